/*
 * cpu_features.h: what the processor and the operating system let us use, read at run time
 * from CPUID and XCR0 (an AVX-512 bit in CPUID is not enough: the OS must save the ZMM state).
 */
#ifndef HPR_CPU_FEATURES_H
#define HPR_CPU_FEATURES_H

typedef struct {
    char brand[49];
    int avx2, avx512f, avx512vl, avx512ifma, adx, bmi2;
    int os_avx, os_avx512; /* XCR0 enables the YMM / ZMM state */
} rt_cpu_features;

/* Fills f; on non-x86 machines every flag is 0 and brand comes from /proc/cpuinfo if any. */
void rt_cpu_features_detect(rt_cpu_features *f);

#endif
