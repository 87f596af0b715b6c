/*
 * hpr_compat.h: the small layer that lets one arithmetic source compile as host C11 and as
 * OpenCL C 1.2. Everything under kernels_cl/arith/ uses only what this header provides:
 * fixed-size limb arrays, no VLAs, no allocation, no library calls.
 *
 * HPR_FN        qualifier of every shared function (static inline on both sides)
 * HPR_GLOBAL    address-space qualifier for buffers that live in device global memory
 * hpr_u64/u32   unsigned 64/32-bit words; HPR_U64(x) a 64-bit literal
 * hpr_mac       (hi, lo) = a*b + c + d, which cannot overflow 128 bits
 * hpr_adc/sbb   add with carry / subtract with borrow, carry and borrow in {0, 1}
 *
 * HPR_CL_INT128 (OpenCL only, set by the host for POCL) makes hpr_mac use unsigned __int128.
 * HPR_PORTABLE_WORDS (host only) forces the word primitives that OpenCL and compilers without
 * a 128-bit type use, so that the tests exercise them on the host (ctest test_field_portable).
 */
#ifndef HPR_COMPAT_H
#define HPR_COMPAT_H

/* OpenCL C compilers define __OPENCL_C_VERSION__ (1.2+) or __OPENCL_VERSION__. */
#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
#define HPR_IS_OPENCL 1
#else
#define HPR_IS_OPENCL 0
#endif

#if HPR_IS_OPENCL
typedef ulong hpr_u64;
typedef uint hpr_u32;
#define HPR_U64(x) x##UL
#define HPR_FN static inline
#define HPR_POINT_FN static inline
#define HPR_GLOBAL __global
#else
#include <stdint.h>
typedef uint64_t hpr_u64;
typedef uint32_t hpr_u32;
#define HPR_U64(x) UINT64_C(x)
#if defined(__GNUC__) && !defined(__clang__) && !defined(HPR_SANITIZE_BUILD)
/* gcc 12 otherwise leaves the field multiplication out of line inside point formulas and
 * spills every operand through memory (point addition measured 2x slower than clang's). */
#define HPR_FN static inline __attribute__((always_inline))
#else
/* (and the sanitizer build: forced inlining of Fq2 and G2 made it compile for many minutes) */
#define HPR_FN static inline
#endif
/* Point formulas stay out of line: each is one call around a fully inlined body of field
 * operations; inlining them too into the MSM loop made gcc 12's code 2.7x slower. */
#if defined(__GNUC__)
#define HPR_POINT_FN static __attribute__((noinline, unused))
#else
#define HPR_POINT_FN static inline
#endif
#define HPR_GLOBAL
#endif

/* adc/sbb through the compiler's carry intrinsics on x86-64 (baseline ISA, no -madx needed):
 * gcc 12 turns the portable carry expressions into setc/movzx chains (measured about 1.5x
 * slower point additions here). */
#if !HPR_IS_OPENCL && !defined(HPR_PORTABLE_WORDS) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define HPR_X86_CARRY_INTRINSICS 1
#else
#define HPR_X86_CARRY_INTRINSICS 0
#endif

/* Returns the low word of a*b + c + d; *hi receives the high word. */
HPR_FN hpr_u64 hpr_mac(hpr_u64 a, hpr_u64 b, hpr_u64 c, hpr_u64 d, hpr_u64 *hi)
{
#if HPR_IS_OPENCL && defined(HPR_CL_INT128) && HPR_CL_INT128
    /* Vendor-guarded fast path: POCL's compiler accepts unsigned __int128 although standard
     * OpenCL C does not (the host enables it only for POCL; the mul_hi path stays tested). */
    unsigned __int128 t = (unsigned __int128)a * b + c + d;
    *hi = (hpr_u64)(t >> 64);
    return (hpr_u64)t;
#elif HPR_IS_OPENCL || !defined(__SIZEOF_INT128__) || defined(HPR_PORTABLE_WORDS)
#if HPR_IS_OPENCL
    hpr_u64 h = mul_hi(a, b);
    hpr_u64 lo = a * b;
#else
    /* Portable 32x32 schoolbook fallback for compilers without a 128-bit type. */
    hpr_u64 a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    hpr_u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    hpr_u64 mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    hpr_u64 h = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    hpr_u64 lo = (mid << 32) | (p00 & 0xffffffffu);
#endif
    lo += c;
    h += lo < c;
    lo += d;
    h += lo < d;
    *hi = h;
    return lo;
#else
    unsigned __int128 t = (unsigned __int128)a * b + c + d;
    *hi = (hpr_u64)(t >> 64);
    return (hpr_u64)t;
#endif
}

/* Returns a + b + carry_in (carry_in in {0,1}); *carry_out receives the carry. */
HPR_FN hpr_u64 hpr_adc(hpr_u64 a, hpr_u64 b, hpr_u64 carry_in, hpr_u64 *carry_out)
{
#if HPR_X86_CARRY_INTRINSICS
    unsigned long long s;
    *carry_out = _addcarry_u64((unsigned char)carry_in, a, b, &s);
    return s;
#else
    hpr_u64 s = a + b;
    hpr_u64 c = s < a;
    hpr_u64 t = s + carry_in;
    c += t < s;
    *carry_out = c;
    return t;
#endif
}

/* Returns a - b - borrow_in (borrow_in in {0,1}); *borrow_out receives the borrow. */
HPR_FN hpr_u64 hpr_sbb(hpr_u64 a, hpr_u64 b, hpr_u64 borrow_in, hpr_u64 *borrow_out)
{
#if HPR_X86_CARRY_INTRINSICS
    unsigned long long d;
    *borrow_out = _subborrow_u64((unsigned char)borrow_in, a, b, &d);
    return d;
#else
    hpr_u64 d = a - b;
    hpr_u64 br = a < b;
    hpr_u64 t = d - borrow_in;
    br += d < borrow_in;
    *borrow_out = br;
    return t;
#endif
}

#endif
