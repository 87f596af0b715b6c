/*
 * ntt_cpu.h: the CPU's NTT kernels behind one field-independent table (portable C; the
 * fields: BN254 Fr and BLS12-381 Fr in 4x64 Montgomery form from the shared arithmetic,
 * Goldilocks, BabyBear and KoalaBear from ntt_fields.h).
 *
 * Twiddle layout: tw[len + j] = w_{2 len}^j for every power of two len < n and j < len, where
 * w_{2 len} = w^(n / (2 len)) (tw[0] unused): one table of n elements serves every layer with
 * contiguous reads, and, because w_{2 len} = g^((p-1) / (2 len)) for w = g^((p-1) / n), the
 * table of size n serves every smaller size too.
 * Contracts: elements are the field's internal form (Montgomery for the 256-bit and 31-bit
 * fields, canonical for Goldilocks), reduced; n is a power of two >= 1. Every kernel here is
 * linear in its data and multiplies it only by internal-form constants (twiddles, c, s),
 * and a Montgomery product by such a constant keeps whatever factor the data carry: so
 * reduced canonical elements may be given as they are and come out canonical (the host's
 * NTT and LDE do that, host/ntt/ntt_pipeline.c).
 */
#ifndef KERNELS_CPU_NTT_CPU_H
#define KERNELS_CPU_NTT_CPU_H

#include <stddef.h>
#include <stdint.h>

#include "runtime/base/cpu_features.h"
#include "runtime/base/rt_pool.h"

typedef struct {
    const char *name;        /* "bn254-fr", "bls12-381-fr", "goldilocks", "babybear", "koalabear" */
    size_t elem_bytes;       /* bytes of a canonical element and of the internal form: 32, 8 or 4 */
    unsigned two_adicity;    /* the largest s with 2^s | p - 1 */
    unsigned generator;      /* the field's standard multiplicative generator */
    const uint64_t *modulus; /* p, 4 little-endian limbs (zero-extended) */
    /* canonical limbs (4, < p) <-> the internal form */
    void (*from_canonical)(void *e, const uint64_t *limbs);
    void (*to_canonical)(uint64_t *limbs, const void *e);
    void (*mul)(void *r, const void *a, const void *b);
    void (*pow)(void *r, const void *a, const uint64_t *e); /* r = a^e, e 4 limbs */
    /* On the pool. twiddles: the layout above for the primitive n-th root w. dif: natural
     * input, bit-reversed output (Gentleman-Sande); dit: bit-reversed input, natural output
     * (Cooley-Tukey); both compute a_k = sum_i a_i w^(i k) with the table's w. scale:
     * a_i *= c * s^i. bitrev: the bit-reversal permutation. */
    void (*twiddles)(rt_pool *pool, void *tw, size_t n, const void *w);
    void (*dif)(rt_pool *pool, void *a, size_t n, const void *tw);
    void (*dit)(rt_pool *pool, void *a, size_t n, const void *tw);
    void (*scale)(rt_pool *pool, void *a, size_t n, const void *c, const void *s);
    void (*bitrev)(rt_pool *pool, void *a, size_t n);
    /* NULL, or: dif and dit read not the twiddle table but the kernels' own table, made from
     * the table of size n (which then serves every size up to n) by this entry; freed with
     * free(). The OpenCL kernels always read the table itself. */
    void *(*kernel_twiddles)(rt_pool *pool, const void *tw, size_t n);
    size_t kernel_twiddle_bytes; /* bytes a twiddle in that table (0 without one), for the estimates */
} ntt_field_ops;

/* Tasks for `items` units of work on the pool, 4 per thread (fewer if fewer items): returns
 * the task count and sets *per_task, the units of each task (the last may have fewer). */
static inline size_t ntt_pool_tasks(rt_pool *pool, size_t items, size_t *per_task)
{
    size_t tasks = (size_t)rt_pool_size(pool) * 4;
    if (tasks > items)
        tasks = items;
    *per_task = (items + tasks - 1) / tasks;
    return (items + *per_task - 1) / *per_task;
}

/* The pass plan of the wide layers (span len from block up to n / 2) that the CPU kernels
 * share: a pass runs two layers at once (quads of elements) where both are wide, else one.
 * For the pass starting at span len (DIF: the widest first, n / 2; DIT: block first), sets
 * *pair and *job_len (the span the pass's job takes: the wider layer of a DIT pair) and
 * returns the span the next pass starts at; the passes end when that leaves [block, n). */
static inline size_t ntt_wide_pass(size_t len, size_t n, size_t block, int dit, int *pair, size_t *job_len)
{
    size_t next = dit ? 2 * len : len / 2; /* the span of the pass's second layer, if any */
    *pair = dit ? next < n : next >= block;
    *job_len = dit && *pair ? next : len;
    return *pair ? (dit ? 2 * next : next / 2) : next;
}

extern const ntt_field_ops ntt_bn254_fr_ops;
extern const ntt_field_ops ntt_bls12_381_fr_ops;
extern const ntt_field_ops ntt_goldilocks_ops;
extern const ntt_field_ops ntt_babybear_ops;
extern const ntt_field_ops ntt_koalabear_ops;
/* the adx and avx2 tiers' BN254 Fr and BLS12-381 Fr (ntt_adx.c: mulx/adcx/adox multiplication) */
extern const ntt_field_ops ntt_bn254_fr_adx_ops;
extern const ntt_field_ops ntt_bls12_381_fr_adx_ops;
/* the avx2 tier (ntt_avx2.c): Goldilocks (4 lanes of 64 bits), BabyBear and KoalaBear (8 lanes
 * of 32 bits) */
extern const ntt_field_ops ntt_goldilocks_avx2_ops;
extern const ntt_field_ops ntt_babybear_avx2_ops;
extern const ntt_field_ops ntt_koalabear_avx2_ops;
/* the avx512 tier (ntt_avx512.c): Goldilocks (8 lanes of 64 bits), BabyBear and KoalaBear
 * (16 lanes of 32 bits) */
extern const ntt_field_ops ntt_goldilocks_avx512_ops;
extern const ntt_field_ops ntt_babybear_avx512_ops;
extern const ntt_field_ops ntt_koalabear_avx512_ops;
/* and BN254 Fr, BLS12-381 Fr: the portable entries but for the IFMA butterflies and scaling
 * of ntt_ifma.c (8 lanes of 52-bit limbs) */
extern const ntt_field_ops ntt_bn254_fr_avx512_ops;
extern const ntt_field_ops ntt_bls12_381_fr_avx512_ops;
#define NTT_IFMA_KERNELS(PFX)                                                                        \
    void *PFX##_kernel_twiddles(rt_pool *pool, const void *tw, size_t n);                            \
    void PFX##_dif(rt_pool *pool, void *a, size_t n, const void *table);                             \
    void PFX##_dit(rt_pool *pool, void *a, size_t n, const void *table);                             \
    void PFX##_scale(rt_pool *pool, void *a, size_t n, const void *c, const void *s);
NTT_IFMA_KERNELS(ntt_bn254_fr_ifma)
NTT_IFMA_KERNELS(ntt_bls12_381_fr_ifma)
/* the neon tier (ntt_neon.c, AArch64): BabyBear and KoalaBear (4 lanes of 32 bits) */
extern const ntt_field_ops ntt_babybear_neon_ops;
extern const ntt_field_ops ntt_koalabear_neon_ops;

/* The table of field (hpr_field id 1..5) for a CPU tier: the tier's own kernels where it has
 * them (adx: the 256-bit fields; avx2: those and the small fields; avx512: every field;
 * neon: BabyBear and KoalaBear), else those of the first tier down its fallback chain
 * (rt_cpu_tier_fallback) that has them, at last the portable ones; NULL for an unknown field.
 * Every tier gives the same bits. */
const ntt_field_ops *ntt_field_ops_for(int field, rt_cpu_tier tier);

#endif
