/*
 * cpu_features.c: CPUID leaves 1 and 7 for the instruction sets, XGETBV(0) for the register
 * state the OS saves, leaves 0x80000002..4 for the brand string. A feature is reported only
 * when both the CPU has it and the OS enables its registers.
 */
#include "cpu_features.h"

#include <stdio.h>
#include <string.h>

#if defined(__x86_64__) || defined(__i386__)
#include <cpuid.h>

static unsigned long long read_xcr0(void)
{
    unsigned eax, edx;
    __asm__ volatile("xgetbv" : "=a"(eax), "=d"(edx) : "c"(0));
    return ((unsigned long long)edx << 32) | eax;
}

static void read_brand(char *brand)
{
    unsigned regs[12] = {0};
    unsigned max_ext = __get_cpuid_max(0x80000000u, NULL);
    if (max_ext < 0x80000004u)
        return;
    for (unsigned i = 0; i < 3; i++)
        __get_cpuid(0x80000002u + i, &regs[4 * i], &regs[4 * i + 1], &regs[4 * i + 2], &regs[4 * i + 3]);
    memcpy(brand, regs, 48);
    brand[48] = '\0';
    size_t len = strlen(brand), start = 0;
    while (len > 0 && brand[len - 1] == ' ')
        brand[--len] = '\0';
    while (brand[start] == ' ')
        start++;
    memmove(brand, brand + start, len - start + 1);
}

void rt_cpu_features_detect(rt_cpu_features *f)
{
    unsigned a, b, c, d;
    memset(f, 0, sizeof *f);
    read_brand(f->brand);
    if (!__get_cpuid(1, &a, &b, &c, &d))
        return;
    int osxsave = (c >> 27) & 1, avx = (c >> 28) & 1;
    if (osxsave && avx) {
        unsigned long long xcr0 = read_xcr0();
        f->os_avx = (xcr0 & 0x6) == 0x6;
        f->os_avx512 = f->os_avx && (xcr0 & 0xe0) == 0xe0;
    }
    if (__get_cpuid_max(0, NULL) < 7)
        return;
    __cpuid_count(7, 0, a, b, c, d);
    f->bmi2 = (b >> 8) & 1;
    f->adx = (b >> 19) & 1;
    f->avx2 = f->os_avx && ((b >> 5) & 1);
    f->avx512f = f->os_avx512 && ((b >> 16) & 1);
    f->avx512ifma = f->avx512f && ((b >> 21) & 1);
    f->avx512vl = f->avx512f && ((b >> 31) & 1);
}

#else

void rt_cpu_features_detect(rt_cpu_features *f)
{
    memset(f, 0, sizeof *f);
    FILE *fp = fopen("/proc/cpuinfo", "r");
    char line[256];
    if (!fp)
        return;
    while (fgets(line, sizeof line, fp)) {
        char *colon = strchr(line, ':');
        if (colon && (strncmp(line, "model name", 10) == 0 || strncmp(line, "Processor", 9) == 0)) {
            snprintf(f->brand, sizeof f->brand, "%s", colon + 2);
            f->brand[strcspn(f->brand, "\n")] = '\0';
            break;
        }
    }
    fclose(fp);
}

#endif

static const char *const tier_names[RT_CPU_TIERS] = {"portable", "adx", "avx2", "avx512", "neon"};

const char *rt_cpu_tier_name(rt_cpu_tier tier)
{
    return (unsigned)tier < RT_CPU_TIERS ? tier_names[tier] : "unknown";
}

int rt_cpu_tier_parse(const char *name)
{
    for (int t = 0; t < RT_CPU_TIERS; t++)
        if (strcmp(name, tier_names[t]) == 0)
            return t;
    return -1;
}

rt_cpu_tier rt_cpu_tier_fallback(rt_cpu_tier tier)
{
    switch (tier) {
    case RT_CPU_AVX512: return RT_CPU_AVX2;
    case RT_CPU_AVX2: return RT_CPU_ADX;
    default: return RT_CPU_PORTABLE;
    }
}

int rt_cpu_tier_supported(const rt_cpu_features *f, rt_cpu_tier tier)
{
    switch (tier) {
    case RT_CPU_PORTABLE: return 1;
    case RT_CPU_ADX: return f->adx && f->bmi2;
    case RT_CPU_AVX2: return f->avx2 && f->adx && f->bmi2;
    case RT_CPU_AVX512: return f->avx512f && f->avx512ifma && f->adx && f->bmi2;
#if defined(__aarch64__)
    case RT_CPU_NEON: return 1; /* Advanced SIMD is part of every AArch64 processor */
#endif
    default: return 0;
    }
}
