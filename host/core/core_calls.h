/*
 * core_calls.h: the entries of the core (call state, devices, CPU tiers, calibrated speeds, progress)
 * that host/api/ calls.
 * Each *_call function is the body of one public call: host/api/ takes the call lock
 * (ctx_enter / ctx_leave) around it; inside the library they are called directly, never
 * through the hpr_ API (the lock is not recursive). Contracts: those of the hpr_ function
 * that host/api/ defines over each (host/include/hyprove.h); each checks its own arguments.
 */
#ifndef HOST_CORE_CORE_CALLS_H
#define HOST_CORE_CORE_CALLS_H

#include "host/core/context.h"

const char *status_text(hpr_status status);
hpr_status cpu_tier_check(const char *name, const char **why);
void cpu_info_get(hpr_cpu_info *info);
unsigned cpu_tier_count(void);
const char *cpu_tier_name(unsigned index);
void progress_cancel(hpr_ctx *ctx);
double calibrated_ntt_speed_call(hpr_ctx *ctx, const char *device, hpr_field field, unsigned log_n);
double calibrated_speed_call(hpr_ctx *ctx, const char *device, hpr_curve curve, unsigned log_n);
unsigned device_count_call(hpr_ctx *ctx);
hpr_status device_get_info_call(hpr_ctx *ctx, unsigned index, hpr_device_info *info);
const char *opencl_notice_call(hpr_ctx *ctx);

#endif
