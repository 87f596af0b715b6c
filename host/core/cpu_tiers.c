/*
 * cpu_tiers.c: the CPU kernel tiers: what the processor offers (CPUID and XCR0,
 * runtime/base/cpu_features.h), whether this build has a tier's kernels, and the choice of
 * tier for a context (forced by hpr_config.cpu_tier or HPR_CPU, else the fastest).
 */
#include "host/core/cpu_tiers.h"
#include "host/core/core_calls.h"

#include <string.h>

/* Whether this build has the tier's kernels (the avx2 tier: its NTT kernels; its MSM kernels
 * are the adx tier's). */
static int tier_built(rt_cpu_tier tier)
{
    switch (tier) {
    case RT_CPU_PORTABLE: return 1;
    case RT_CPU_ADX: return HPR_HAVE_ADX;
    case RT_CPU_AVX2: return HPR_HAVE_AVX2;
    case RT_CPU_AVX512: return HPR_HAVE_IFMA;
    case RT_CPU_NEON: return HPR_HAVE_NEON;
    default: return 0;
    }
}

/* Why the processor cannot run tier, or why this build lacks it. */
static const char *tier_unsupported_reason(rt_cpu_tier tier)
{
    switch (tier) {
    case RT_CPU_ADX: return "this processor lacks ADX or BMI2";
    case RT_CPU_AVX2: return "this processor lacks AVX2, ADX or BMI2, or the OS does not enable the YMM registers";
    case RT_CPU_NEON: return "the neon tier is for AArch64 processors";
    default: return "this processor lacks AVX-512 IFMA (or ADX), or the OS does not enable the ZMM registers";
    }
}

static const char *tier_unbuilt_reason(rt_cpu_tier tier)
{
    switch (tier) {
    case RT_CPU_ADX: return "this build of hyprove has no ADX kernels (not an x86-64 build)";
    case RT_CPU_AVX2: return "this build of hyprove has no AVX2 kernels (not an x86-64 build, or a compiler without -mavx2)";
    case RT_CPU_NEON: return "this build of hyprove has no NEON kernels (not an AArch64 build)";
    default: return "this build of hyprove has no AVX-512 kernels (compiler without IFMA, or HPR_AVX512=OFF)";
    }
}

hpr_status cpu_tier_check(const char *name, const char **why)
{
    const char *unused;
    rt_cpu_features f;
    int tier = name ? rt_cpu_tier_parse(name) : -1;
    if (!why)
        why = &unused;
    *why = "";
    if (tier < 0) {
        *why = "unknown CPU tier (expected portable, adx, avx2, avx512 or neon)";
        return HPR_ERR_INVALID_ARGUMENT;
    }
    rt_cpu_features_detect(&f);
    if (!rt_cpu_tier_supported(&f, (rt_cpu_tier)tier)) {
        *why = tier_unsupported_reason((rt_cpu_tier)tier);
        return HPR_ERR_CPU_TIER;
    }
    if (!tier_built((rt_cpu_tier)tier)) {
        *why = tier_unbuilt_reason((rt_cpu_tier)tier);
        return HPR_ERR_CPU_TIER;
    }
    return HPR_OK;
}

hpr_status cpu_tier_choose(const char *name, rt_cpu_tier *tier)
{
    if (name && *name) {
        hpr_status st = cpu_tier_check(name, NULL);
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

void cpu_info_get(hpr_cpu_info *info)
{
    rt_cpu_features f;
    if (!info)
        return;
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

unsigned cpu_tier_count(void)
{
    return RT_CPU_TIERS;
}

const char *cpu_tier_name(unsigned index)
{
    return index < RT_CPU_TIERS ? rt_cpu_tier_name((rt_cpu_tier)index) : NULL;
}
