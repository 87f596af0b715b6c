/*
 * portable_fe_backend.h: the field arithmetic under the portable tier's kernels (msm_cpu.c,
 * ntt_cpu.c), included before arith/curves.h. On AArch64 (gcc, clang) the inline assembly of
 * fe_arm64_gen.h, which arith/fe_impl.h selects by FE_ARM64 (every ARM64 processor has its
 * instructions, so the choice is made at compile time); elsewhere the C of arith/fe_impl.h.
 */
#ifndef KERNELS_CPU_PORTABLE_FE_BACKEND_H
#define KERNELS_CPU_PORTABLE_FE_BACKEND_H

#if defined(__aarch64__) && (defined(__GNUC__) || defined(__clang__))
#define FE_ARM64 1
#include "fe_arm64_gen.h"
#endif

#endif
