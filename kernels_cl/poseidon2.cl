/*
 * poseidon2.cl: the Poseidon2 kernels of kernels_cpu/poseidon2_cpu.h on an OpenCL device, one
 * field per program (build option -DHPR_CL_FIELD = the hpr_field id: 4 BabyBear, 5 KoalaBear),
 * widths 16 and 24 in the same program. The permutation is arith/poseidon2.h, the source the
 * CPU's portable tier runs, so every result is the CPU's bit for bit.
 * Kernels (one work-item per item; the range is rounded up to whole groups, work-items past
 * `count` do nothing):
 *   p2_permute    count states of width canonical elements, in place;
 *   p2_hash_rows  the sponge digest (8 elements) of each of count rows of a column-major
 *                 matrix: element (r, c) at cols[c * stride + r];
 *   p2_compress   perm(in[16 i .. 16 i + 16))[0..8) for each of count pairs of digests.
 * Every kernel starts with the same arguments: the instance's constants (Montgomery form:
 * rounds_f rows of width external constants, the initial rows first, then rounds_p internal
 * ones, then the width elements of the internal diagonal V), width, rounds_f, rounds_p, count.
 * Elements are canonical in device memory (the host's layout, no conversion on the host) and
 * Montgomery inside the work-item.
 * Method: the width is dispatched once per work-item to code written for a literal 16 or 24,
 * and every function below is inlined into it, so that the compiler unrolls the layers and
 * keeps the state in registers (a state indexed by a run-time width would live in private
 * memory on a GPU); the rounds stay loops. The constants sit in __constant memory, read by
 * every work-item of a group at the same time (a broadcast).
 * Measured on POCL (AMD Zen 4, 2 cores shared): forcing the inlining made p2_permute 1.45x
 * faster (its LLVM otherwise called the permutation out of line, its layers over a run-time
 * width); literal round counts (fully unrolled rounds) were slower, and POCL vectorises
 * neither across work-items.
 */
#define P2_CONST __constant
#if defined(__clang__)
/* every function up to the kernels inlined, whatever the compiler's cost model says (other
 * compilers ignore the pragma and inline as they see fit) */
#pragma clang attribute push(__attribute__((always_inline)), apply_to = function)
#endif
#include "arith/poseidon2.h"

#if HPR_CL_FIELD == 4
#define P2_P BB_P
#define P2_PINV BB_PINV
#define P2_R2 BB_R2
#define P2_SBOX_DEGREE 7
#elif HPR_CL_FIELD == 5
#define P2_P KB_P
#define P2_PINV KB_PINV
#define P2_R2 KB_R2
#define P2_SBOX_DEGREE 3
#else
#error "build the Poseidon2 program with -DHPR_CL_FIELD=4 (BabyBear) or 5 (KoalaBear)"
#endif

#define P2_DIGEST 8 /* elements of a digest; the sponge's rate is width - 8 */

/* canonical -> Montgomery (v R mod p) and back */
static inline uint p2_to_mont(uint v)
{
    return m31_mont_reduce((ulong)v * P2_R2, P2_P, P2_PINV);
}

static inline uint p2_from_mont(uint v)
{
    return m31_mont_reduce((ulong)v, P2_P, P2_PINV);
}

/* The permutation of s[0..width) (Montgomery), width a literal after inlining. */
static inline void p2_permute_w(uint *s, uint width, uint rounds_f, uint rounds_p, __constant uint *c)
{
    __constant uint *rc_int = c + rounds_f * width;
    p2_permute_state(s, width, rounds_f, rounds_p, P2_SBOX_DEGREE, P2_P, P2_PINV, c, rc_int, rc_int + rounds_p);
}

/* st[0..width) canonical, permuted in place */
static inline void p2_permute_one(__global uint *st, uint width, uint rounds_f, uint rounds_p,
                                  __constant uint *c)
{
    uint s[P2_MAX_WIDTH];
    ARITH_UNROLL
    for (uint k = 0; k < width; k++)
        s[k] = p2_to_mont(st[k]);
    p2_permute_w(s, width, rounds_f, rounds_p, c);
    ARITH_UNROLL
    for (uint k = 0; k < width; k++)
        st[k] = p2_from_mont(s[k]);
}

/* The digest of row r: state zero; each chunk of up to width - 8 columns overwrites the
 * state's first elements, then one permutation; out[0..8) = the state's first 8 (a row of no
 * columns: zeros). The chunk is copied element by element under a condition, not by a loop
 * of run-time length, so that the state's indices stay literal. */
static inline void p2_hash_row(__global const uint *cols, ulong stride, uint ncols, uint r, uint width, uint rounds_f,
                               uint rounds_p, __constant uint *c, __global uint *out)
{
    uint s[P2_MAX_WIDTH], rate = width - P2_DIGEST;
    ARITH_UNROLL
    for (uint k = 0; k < width; k++)
        s[k] = 0; /* zero in Montgomery form too */
    for (uint c0 = 0; c0 < ncols; c0 += rate) {
        uint len = ncols - c0 < rate ? ncols - c0 : rate;
        ARITH_UNROLL
        for (uint k = 0; k < rate; k++)
            if (k < len)
                s[k] = p2_to_mont(cols[(ulong)(c0 + k) * stride + r]);
        p2_permute_w(s, width, rounds_f, rounds_p, c);
    }
    ARITH_UNROLL
    for (uint k = 0; k < P2_DIGEST; k++)
        out[k] = p2_from_mont(s[k]);
}

#if defined(__clang__)
#pragma clang attribute pop
#endif

__kernel void p2_permute(__constant uint *c, uint width, uint rounds_f, uint rounds_p, uint count,
                         __global uint *states)
{
    uint i = get_global_id(0);
    if (i >= count)
        return;
    __global uint *st = states + (size_t)i * width;
    if (width == 24)
        p2_permute_one(st, 24, rounds_f, rounds_p, c);
    else
        p2_permute_one(st, 16, rounds_f, rounds_p, c);
}

__kernel void p2_hash_rows(__constant uint *c, uint width, uint rounds_f, uint rounds_p, uint count,
                           __global const uint *cols, ulong stride, uint ncols, __global uint *out)
{
    uint r = get_global_id(0);
    if (r >= count)
        return;
    __global uint *digest = out + (size_t)r * P2_DIGEST;
    if (width == 24)
        p2_hash_row(cols, stride, ncols, r, 24, rounds_f, rounds_p, c, digest);
    else
        p2_hash_row(cols, stride, ncols, r, 16, rounds_f, rounds_p, c, digest);
}

/* width 16 only (the host checks): the first 8 of perm(left || right) */
__kernel void p2_compress(__constant uint *c, uint width, uint rounds_f, uint rounds_p, uint count,
                          __global const uint *in, __global uint *out)
{
    uint i = get_global_id(0), s[16];
    (void)width;
    if (i >= count)
        return;
    __global const uint *pair = in + (size_t)i * 2 * P2_DIGEST;
    for (uint k = 0; k < 16; k++)
        s[k] = p2_to_mont(pair[k]);
    p2_permute_w(s, 16, rounds_f, rounds_p, c);
    for (uint k = 0; k < P2_DIGEST; k++)
        out[(size_t)i * P2_DIGEST + k] = p2_from_mont(s[k]);
}
