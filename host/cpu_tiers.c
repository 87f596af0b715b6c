/*
 * cpu_tiers.c: the CPU kernel tiers: what the processor offers (CPUID and XCR0,
 * runtime/base/cpu_features.h), whether this build has a tier's kernels, and the choice of
 * tier for a context (forced by hpr_config.cpu_tier or HPR_CPU, else the fastest).
 */
#include "cpu_tiers.h"
#include "msm_engine.h"

#include <string.h>

/* Whether this build has the tier's kernels (the same for every curve). */
static int tier_built(rt_cpu_tier tier)
{
    return msm_g1_ops(HPR_CURVE_BN254)->kernels[tier] != NULL;
}

hpr_status hpr_cpu_tier_check(const char *name, const char **why)
{
    const char *unused;
    rt_cpu_features f;
    int tier = name ? rt_cpu_tier_parse(name) : -1;
    if (!why)
        why = &unused;
    *why = "";
    if (tier < 0) {
        *why = "unknown CPU tier (expected portable, adx or avx512)";
        return HPR_ERR_INVALID_ARGUMENT;
    }
    rt_cpu_features_detect(&f);
    if (!rt_cpu_tier_supported(&f, (rt_cpu_tier)tier)) {
        *why = tier == RT_CPU_ADX ? "this processor lacks ADX or BMI2"
                                  : "this processor lacks AVX-512 IFMA (or ADX), or the OS does not enable the ZMM registers";
        return HPR_ERR_CPU_TIER;
    }
    if (!tier_built((rt_cpu_tier)tier)) {
        *why = tier == RT_CPU_ADX ? "this build of hyprove has no ADX kernels (not an x86-64 build)"
                                  : "this build of hyprove has no AVX-512 kernels (compiler without IFMA, or HPR_AVX512=OFF)";
        return HPR_ERR_CPU_TIER;
    }
    return HPR_OK;
}

hpr_status cpu_tier_choose(const char *name, rt_cpu_tier *tier)
{
    if (name && *name) {
        hpr_status st = hpr_cpu_tier_check(name, NULL);
        if (st == HPR_OK)
            *tier = (rt_cpu_tier)rt_cpu_tier_parse(name);
        return st;
    }
    rt_cpu_features f;
    rt_cpu_features_detect(&f);
    *tier = RT_CPU_PORTABLE;
    for (int t = RT_CPU_TIERS - 1; t > RT_CPU_PORTABLE; t--)
        if (rt_cpu_tier_supported(&f, (rt_cpu_tier)t) && tier_built((rt_cpu_tier)t)) {
            *tier = (rt_cpu_tier)t;
            break;
        }
    return HPR_OK;
}

void hpr_cpu_info_get(hpr_cpu_info *info)
{
    rt_cpu_features f;
    rt_cpu_features_detect(&f);
    memset(info, 0, sizeof *info);
    memcpy(info->brand, f.brand, sizeof info->brand);
    info->brand[sizeof info->brand - 1] = '\0';
    info->online_cpus = rt_online_cpus();
    info->avx2 = f.avx2;
    info->avx512f = f.avx512f;
    info->avx512vl = f.avx512vl;
    info->avx512ifma = f.avx512ifma;
    info->adx = f.adx;
    info->bmi2 = f.bmi2;
    info->os_avx = f.os_avx;
    info->os_avx512 = f.os_avx512;
}

unsigned hpr_cpu_tier_count(void)
{
    return RT_CPU_TIERS;
}

const char *hpr_cpu_tier_name(unsigned index)
{
    return index < RT_CPU_TIERS ? rt_cpu_tier_name((rt_cpu_tier)index) : NULL;
}
