/*
 * compat.h: the small layer that lets one arithmetic source compile as host C11 and as
 * OpenCL C 1.2. Everything under arith/ uses only what this header provides:
 * fixed-size limb arrays, no VLAs, no allocation, no library calls.
 *
 * ARITH_FN        qualifier of every shared function (static inline on both sides)
 * ARITH_UNROLL    before a loop of a fixed, small trip count (limbs): unrolled in OpenCL C
 *                 under HPR_CL_INLINE, nothing otherwise (ARITH_UNROLL_OUTER: see below)
 * ARITH_GLOBAL    address-space qualifier for buffers that live in device global memory
 * arith_u64/u32   unsigned 64/32-bit words; ARITH_U64(x) a 64-bit literal
 * arith_mac       (hi, lo) = a*b + c + d, which cannot overflow 128 bits
 * arith_adc/sbb   add with carry / subtract with borrow, carry and borrow in {0, 1}
 * arith_divrem    quotient and remainder of 32-bit words in a form every OpenCL simulator runs
 *
 * HPR_CL_INT128 (OpenCL only, set by the host for POCL) makes arith_mac use unsigned __int128.
 * HPR_CL_INLINE (OpenCL only, set by the host for every device but POCL) forces inlining and
 * unrolling (see below).
 * HPR_PORTABLE_WORDS (host only) forces the word primitives that OpenCL and compilers without
 * a 128-bit type use, so that the tests exercise them on the host (ctest test_field_portable).
 */
#ifndef ARITH_COMPAT_H
#define ARITH_COMPAT_H

/* OpenCL C compilers define __OPENCL_C_VERSION__ (1.2+) or __OPENCL_VERSION__. */
#if defined(__OPENCL_C_VERSION__) || defined(__OPENCL_VERSION__)
#define ARITH_IS_OPENCL 1
#else
#define ARITH_IS_OPENCL 0
#endif

#if ARITH_IS_OPENCL
typedef ulong arith_u64;
typedef uint arith_u32;
#define ARITH_U64(x) x##UL
#if defined(HPR_CL_INLINE) && HPR_CL_INLINE
/* Build option -DHPR_CL_INLINE=1 (the host sets it for every device but POCL): every shared
 * function inlined into the kernels and the fixed-length limb loops unrolled, so that the
 * limbs live in registers. Left to its own cost model, the NVPTX back end kept the point
 * formulas as calls and the CIOS loop rolled, which put the limb arrays in a stack frame of
 * 224-2,784 bytes per MSM kernel (ptxas for sm_90, scripts/ptx-check.sh, docs/opencl.md). */
#define ARITH_FN static inline __attribute__((always_inline))
#if defined(HPR_CL_CURVE) && HPR_CL_CURVE >= 3
/* G2 (Fq2 coordinates): the point formulas stay calls. Inlined at every call site of the
 * kernels, the BN254 G2 program alone took ptxas over 4 minutes for sm_90 (a driver's
 * first build of it would too), so G2 kernels keep a stack frame for the points they pass. */
#define EC_POINT_FN static inline
#else
#define EC_POINT_FN static inline __attribute__((always_inline))
#endif
#define ARITH_UNROLL _Pragma("unroll")
#else
#define ARITH_FN static inline
#define EC_POINT_FN static inline
#define ARITH_UNROLL
#endif
/* The Montgomery multiplication's outer loop stays rolled in the programs (unrolled, ptxas
 * took many minutes on them); scripts/ptx-check.sh unrolls it (-DHPR_CL_UNROLL_OUTER=1) in a
 * kernel of one multiplication, where the static instruction count is then the dynamic one. */
#if defined(HPR_CL_UNROLL_OUTER) && HPR_CL_UNROLL_OUTER
#define ARITH_UNROLL_OUTER _Pragma("unroll")
#else
#define ARITH_UNROLL_OUTER
#endif
#define ARITH_GLOBAL __global
#else
#include <stdint.h>
typedef uint64_t arith_u64;
typedef uint32_t arith_u32;
#define ARITH_U64(x) UINT64_C(x)
#if defined(__GNUC__) && !defined(__clang__) && !defined(HPR_SANITIZE_BUILD)
/* gcc 12 otherwise leaves the field multiplication out of line inside point formulas and
 * spills every operand through memory (point addition measured 2x slower than clang's). */
#define ARITH_FN static inline __attribute__((always_inline))
#else
/* (and the sanitizer build: forced inlining of Fq2 and G2 made it compile for many minutes) */
#define ARITH_FN static inline
#endif
/* Point formulas stay out of line: each is one call around a fully inlined body of field
 * operations; inlining them too into the MSM loop made gcc 12's code 2.7x slower. */
#if defined(__GNUC__)
#define EC_POINT_FN static __attribute__((noinline, unused))
#else
#define EC_POINT_FN static inline
#endif
#define ARITH_GLOBAL
#define ARITH_UNROLL /* the host compilers unroll fixed-length loops as they see fit */
#define ARITH_UNROLL_OUTER
#endif

/* adc/sbb through the compiler's carry intrinsics on x86-64 (baseline ISA, no -madx needed):
 * gcc 12 turns the portable carry expressions into setc/movzx chains (measured about 1.5x
 * slower point additions here). */
#if !ARITH_IS_OPENCL && !defined(HPR_PORTABLE_WORDS) && defined(__x86_64__) && (defined(__GNUC__) || defined(__clang__))
#include <x86intrin.h>
#define ARITH_X86_CARRY_INTRINSICS 1
#else
#define ARITH_X86_CARRY_INTRINSICS 0
#endif

/* Returns the low word of a*b + c + d; *hi receives the high word. */
ARITH_FN arith_u64 arith_mac(arith_u64 a, arith_u64 b, arith_u64 c, arith_u64 d, arith_u64 *hi)
{
#if ARITH_IS_OPENCL && defined(HPR_CL_INT128) && HPR_CL_INT128
    /* Vendor-guarded fast path: POCL's compiler accepts unsigned __int128 although standard
     * OpenCL C does not (the host enables it only for POCL; the mul_hi path stays tested). */
    unsigned __int128 t = (unsigned __int128)a * b + c + d;
    *hi = (arith_u64)(t >> 64);
    return (arith_u64)t;
#elif ARITH_IS_OPENCL || !defined(__SIZEOF_INT128__) || defined(HPR_PORTABLE_WORDS)
#if ARITH_IS_OPENCL
    arith_u64 h = mul_hi(a, b);
    arith_u64 lo = a * b;
#else
    /* Portable 32x32 schoolbook fallback for compilers without a 128-bit type. */
    arith_u64 a0 = a & 0xffffffffu, a1 = a >> 32, b0 = b & 0xffffffffu, b1 = b >> 32;
    arith_u64 p00 = a0 * b0, p01 = a0 * b1, p10 = a1 * b0, p11 = a1 * b1;
    arith_u64 mid = (p00 >> 32) + (p01 & 0xffffffffu) + (p10 & 0xffffffffu);
    arith_u64 h = p11 + (p01 >> 32) + (p10 >> 32) + (mid >> 32);
    arith_u64 lo = (mid << 32) | (p00 & 0xffffffffu);
#endif
    lo += c;
    h += lo < c;
    lo += d;
    h += lo < d;
    *hi = h;
    return lo;
#else
    unsigned __int128 t = (unsigned __int128)a * b + c + d;
    *hi = (arith_u64)(t >> 64);
    return (arith_u64)t;
#endif
}

/* Returns a + b + carry_in (carry_in in {0,1}); *carry_out receives the carry. */
ARITH_FN arith_u64 arith_adc(arith_u64 a, arith_u64 b, arith_u64 carry_in, arith_u64 *carry_out)
{
#if ARITH_X86_CARRY_INTRINSICS
    unsigned long long s;
    *carry_out = _addcarry_u64((unsigned char)carry_in, a, b, &s);
    return s;
#else
    arith_u64 s = a + b;
    arith_u64 c = s < a;
    arith_u64 t = s + carry_in;
    c += t < s;
    *carry_out = c;
    return t;
#endif
}

/* Returns a - b - borrow_in (borrow_in in {0,1}); *borrow_out receives the borrow. */
ARITH_FN arith_u64 arith_sbb(arith_u64 a, arith_u64 b, arith_u64 borrow_in, arith_u64 *borrow_out)
{
#if ARITH_X86_CARRY_INTRINSICS
    unsigned long long d;
    *borrow_out = _subborrow_u64((unsigned char)borrow_in, a, b, &d);
    return d;
#else
    arith_u64 d = a - b;
    arith_u64 br = a < b;
    arith_u64 t = d - borrow_in;
    br += d < borrow_in;
    *borrow_out = br;
    return t;
#endif
}

/* Returns x / y (y != 0); *rem receives x % y, computed as x - q y. A kernel that needs both
 * should call this rather than write x / y and x % y: LLVM (its DivRemPairs pass) rewrites
 * such a pair into this very form but freezes x first, and Oclgrind 21.10's uninitialised-
 * value checker stops at the freeze instruction ("Unsupported instruction: freeze"). Written
 * out, the pair is left alone: the same values and the same instructions on every device. */
ARITH_FN arith_u32 arith_divrem(arith_u32 x, arith_u32 y, arith_u32 *rem)
{
    arith_u32 q = x / y;
    *rem = x - q * y;
    return q;
}

#endif
