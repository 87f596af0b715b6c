/*
 * cpu_tiers.h: which CPU kernel tier a context uses (host/core/cpu_tiers.c).
 */
#ifndef HOST_CPU_TIERS_H
#define HOST_CPU_TIERS_H

#include "host/core/context.h"

/* The requested tier (name: the configuration's, else HPR_CPU's; NULL or "": none) if it can run, else the fastest this processor,
 * OS and build allow. HPR_ERR_CPU_TIER or HPR_ERR_INVALID_ARGUMENT for a tier that cannot. */
RT_MUST_CHECK hpr_status cpu_tier_choose(const char *name, rt_cpu_tier *tier);

#endif
