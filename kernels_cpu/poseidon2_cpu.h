/*
 * poseidon2_cpu.h: the CPU's Poseidon2 kernels (KoalaBear widths 16 and 24, BabyBear width
 * 16) behind one table per tier: portable C (poseidon2_cpu.c, the shared arithmetic of
 * arith/poseidon2.h), AVX2 (poseidon2_avx2.c, 8 permutations at once, one per lane) and
 * AVX-512 (poseidon2_avx512.c, 16 at once). Every tier gives the same bits.
 *
 * Instances: Plonky3's p3-koala-bear and p3-baby-bear default permutations (round numbers,
 * S-box, linear layers and round constants: arith/poseidon2_constants.h says which release).
 * Contracts: every element crossing this interface is canonical (a u32 < p); inputs are
 * checked by the callers (host/), not here. The kernels work in Montgomery form inside.
 * The Merkle layout (Plonky3's MerkleTreeMmcs with PaddingFreeSponge and
 * TruncatedPermutation): a leaf digest is the sponge of a row (state zero, each chunk of
 * `rate` = width - 8 elements overwrites state[0..chunk), one permutation per chunk, the
 * last chunk may be short; a row of 0 elements is the zero state's first 8, unpermuted), the
 * digest state[0..8); a node is the first 8 elements of perm(left digest || right digest)
 * (width 16 only).
 */
#ifndef KERNELS_CPU_POSEIDON2_CPU_H
#define KERNELS_CPU_POSEIDON2_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "arith/poseidon2_params.h"
#include "runtime/base/cpu_features.h"


/* The instance's parameters (static storage; Montgomery constants made once, thread-safe). */
const p2_params *p2_params_get(p2_instance_id id);

typedef struct {
    /* count permutations in place: states holds count * width canonical elements, state
     * after state */
    void (*permute)(const p2_params *prm, uint32_t *states, size_t count);
    /* The leaf digests of rows [row0, row0 + nrows) of a column-major matrix of ncols columns
     * (element (r, c) at cols[c * stride + r], canonical): out[(r - row0) * 8 + k]. */
    void (*hash_rows)(const p2_params *prm, const uint32_t *cols, size_t stride, size_t ncols, size_t row0,
                      size_t nrows, uint32_t *out);
    /* count 2-to-1 compressions (width 16): out[i] = perm(in[2i] || in[2i + 1])[0..8), digests
     * of 8 elements; out and in do not overlap. */
    void (*compress)(const p2_params *prm, const uint32_t *in, uint32_t *out, size_t count);
    /* The sponge continued over ncols more columns of rows [row0, row0 + nrows) (layout as
     * hash_rows): states holds nrows sponge states of width canonical elements, state after
     * state; each chunk of up to `rate` columns overwrites and permutes. Calls that split a
     * row at multiples of the rate give what one call gives (the streaming commit hashes
     * blocks of columns this way); a zero state absorbed over every column, then its first 8
     * elements, is hash_rows. */
    void (*absorb)(const p2_params *prm, uint32_t *states, const uint32_t *cols, size_t stride, size_t ncols,
                   size_t row0, size_t nrows);
} p2_kernels;

/* The kernels of a tier; a tier this build lacks falls back to the best one below it
 * (avx512 -> avx2 -> portable; adx -> portable). Never NULL. */
const p2_kernels *p2_kernels_for(rt_cpu_tier tier);

/* The portable tier's single permutation on one state in Montgomery form: the reference the
 * SIMD tiers follow lane for lane (and their tails of fewer than 8 or 16 states). */
void p2_permute_mont(const p2_params *prm, uint32_t *state);

/* The portable tier's kernels (poseidon2_cpu.c), with the contracts of p2_kernels: the
 * table p2_kernels_portable, and its entries by name for the SIMD tiers' tails. */
extern const p2_kernels p2_kernels_portable;
void p2_portable_permute(const p2_params *prm, uint32_t *states, size_t count);
void p2_portable_hash_rows(const p2_params *prm, const uint32_t *cols, size_t stride, size_t ncols, size_t row0,
                           size_t nrows, uint32_t *out);
void p2_portable_compress(const p2_params *prm, const uint32_t *in, uint32_t *out, size_t count);
void p2_portable_absorb(const p2_params *prm, uint32_t *states, const uint32_t *cols, size_t stride, size_t ncols,
                        size_t row0, size_t nrows);

/* The SIMD tiers' tables: poseidon2_avx2.c (built when HPR_HAVE_AVX2) and poseidon2_avx512.c
 * (built when HPR_HAVE_IFMA); p2_kernels_for returns them for their tiers. */
extern const p2_kernels p2_kernels_avx2;
extern const p2_kernels p2_kernels_avx512;

#endif
