/*
 * cpu_features.h: what the processor and the operating system let us use, read at run time
 * from CPUID and XCR0 (an AVX-512 bit in CPUID is not enough: the OS must save the ZMM state).
 */
#ifndef RUNTIME_BASE_CPU_FEATURES_H
#define RUNTIME_BASE_CPU_FEATURES_H

typedef struct {
    char brand[49];
    int avx2, avx512f, avx512vl, avx512ifma, adx, bmi2;
    int os_avx, os_avx512; /* XCR0 enables the YMM / ZMM state */
} rt_cpu_features;

/* CPU kernel tiers. portable: C (on AArch64 with umulh/adcs field assembly); then x86-64's,
 * slowest first: mulx/adcx/adox field multiplication (ADX, BMI2); the same plus 8-lane AVX2
 * kernels of the small-field NTT (AVX2, ADX, BMI2); 8-lane AVX-512 IFMA; then AArch64's: the
 * portable kernels plus 4-lane NEON kernels of the 31-bit fields' NTT. A tier without a
 * kernel of its own runs that of the tier it falls back to (rt_cpu_tier_fallback), and so on
 * down to portable. */
typedef enum { RT_CPU_PORTABLE = 0, RT_CPU_ADX, RT_CPU_AVX2, RT_CPU_AVX512, RT_CPU_NEON, RT_CPU_TIERS } rt_cpu_tier;

const char *rt_cpu_tier_name(rt_cpu_tier tier);
/* The tier named name ("portable", "adx", "avx2", "avx512", "neon"); -1 for anything else. */
int rt_cpu_tier_parse(const char *name);
/* The tier whose kernels tier runs where it has none of its own: the next slower tier of its
 * architecture (avx512 -> avx2 -> adx -> portable; neon -> portable); portable for portable. */
rt_cpu_tier rt_cpu_tier_fallback(rt_cpu_tier tier);
/* Whether the processor and the OS allow the tier (not whether this build has its kernels). */
int rt_cpu_tier_supported(const rt_cpu_features *f, rt_cpu_tier tier);

/* Fills f; on non-x86 machines every flag is 0 and brand comes from /proc/cpuinfo if any. */
void rt_cpu_features_detect(rt_cpu_features *f);

#endif
