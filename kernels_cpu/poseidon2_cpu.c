/*
 * poseidon2_cpu.c: the instances' parameters (Plonky3's constants of
 * arith/poseidon2_constants.h in Montgomery form), the portable tier's kernels on the shared
 * permutation of arith/poseidon2.h, and the choice of kernel table per tier.
 *
 * Method: one permutation at a time, the shared code with the parameters read at run time.
 * Copies per instance with the modulus, width and round numbers as compile-time constants
 * were slower (AMD Zen 4, gcc 12 -O3, permutations/s: KoalaBear-16 805k against 975k,
 * BabyBear-16 727k against 823k): gcc vectorises the loops over the state with SSE2 when the
 * width is a run-time value, and unrolls them into slower scalar code otherwise. Elements
 * cross the interface canonical and are converted to Montgomery form (R = 2^32) at the
 * edges: 2 width products of a permutation's ~600. Measured (one core, -O3, baseline
 * x86-64): about 0.95M KoalaBear-16, 0.6M KoalaBear-24 and 0.79M BabyBear-16 permutations/s.
 * The Montgomery tables are made on first use under pthread_once, so that any thread may call
 * p2_params_get first.
 */
#include "poseidon2_cpu.h"

#include "arith/poseidon2.h"
#include "arith/poseidon2_constants.h"

#include <pthread.h>
#include <string.h>

/* ---- the parameters ---- */

static arith_u32 kb16_tables[P2_KB16_ROUNDS_F * P2_KB16_WIDTH + P2_KB16_ROUNDS_P + P2_KB16_WIDTH];
static arith_u32 kb24_tables[P2_KB24_ROUNDS_F * P2_KB24_WIDTH + P2_KB24_ROUNDS_P + P2_KB24_WIDTH];
static arith_u32 bb16_tables[P2_BB16_ROUNDS_F * P2_BB16_WIDTH + P2_BB16_ROUNDS_P + P2_BB16_WIDTH];
static p2_params p2_instances[P2_INSTANCES];
static pthread_once_t p2_instances_once = PTHREAD_ONCE_INIT;

/* dst[i] = src[i] R mod p (src canonical) */
static void to_montgomery(arith_u32 *dst, const arith_u32 *src, size_t n, arith_u32 p)
{
    for (size_t i = 0; i < n; i++)
        dst[i] = (arith_u32)(((uint64_t)src[i] << 32) % p);
}

/* Fills *prm, its tables in tables (rc_ext, rc_int, diag one after another). */
static void params_init(p2_params *prm, arith_u32 *tables, const char *name, unsigned width, unsigned rounds_f,
                        unsigned rounds_p, unsigned sbox_degree, arith_u32 p, arith_u32 pinv, arith_u32 r2,
                        const arith_u32 *rc_ext, const arith_u32 *rc_int, const arith_u32 *diag)
{
    arith_u32 *ext = tables, *in = ext + (size_t)rounds_f * width, *dg = in + rounds_p;
    to_montgomery(ext, rc_ext, (size_t)rounds_f * width, p);
    to_montgomery(in, rc_int, rounds_p, p);
    to_montgomery(dg, diag, width, p);
    *prm = (p2_params){.name = name,
                       .width = width,
                       .rounds_f = rounds_f,
                       .rounds_p = rounds_p,
                       .sbox_degree = sbox_degree,
                       .p = p,
                       .pinv = pinv,
                       .r2 = r2,
                       .rc_ext = ext,
                       .rc_int = in,
                       .diag = dg};
}

static void instances_init(void)
{
    params_init(&p2_instances[P2_KOALABEAR_16], kb16_tables, "koalabear-16", P2_KB16_WIDTH, P2_KB16_ROUNDS_F,
                P2_KB16_ROUNDS_P, P2_KB_SBOX_DEGREE, KB_P, KB_PINV, KB_R2, P2_KB16_RC_EXT, P2_KB16_RC_INT,
                P2_KB16_DIAG);
    params_init(&p2_instances[P2_KOALABEAR_24], kb24_tables, "koalabear-24", P2_KB24_WIDTH, P2_KB24_ROUNDS_F,
                P2_KB24_ROUNDS_P, P2_KB_SBOX_DEGREE, KB_P, KB_PINV, KB_R2, P2_KB24_RC_EXT, P2_KB24_RC_INT,
                P2_KB24_DIAG);
    params_init(&p2_instances[P2_BABYBEAR_16], bb16_tables, "babybear-16", P2_BB16_WIDTH, P2_BB16_ROUNDS_F,
                P2_BB16_ROUNDS_P, P2_BB_SBOX_DEGREE, BB_P, BB_PINV, BB_R2, P2_BB16_RC_EXT, P2_BB16_RC_INT,
                P2_BB16_DIAG);
}

const p2_params *p2_params_get(p2_instance_id id)
{
    if ((unsigned)id >= P2_INSTANCES)
        return NULL;
    pthread_once(&p2_instances_once, instances_init);
    return &p2_instances[id];
}

/* ---- one permutation ---- */

void p2_permute_mont(const p2_params *prm, uint32_t *state)
{
    p2_permute_state(state, prm->width, prm->rounds_f, prm->rounds_p, prm->sbox_degree, prm->p, prm->pinv,
                     prm->rc_ext, prm->rc_int, prm->diag);
}

/* ---- canonical <-> Montgomery at the interface ---- */

static inline arith_u32 to_mont(const p2_params *prm, arith_u32 v)
{
    return m31_mont_reduce((arith_u64)v * prm->r2, prm->p, prm->pinv);
}

static inline arith_u32 from_mont(const p2_params *prm, arith_u32 v)
{
    return m31_mont_reduce(v, prm->p, prm->pinv);
}

/* The sponge over ncols columns of row `row` on s (Montgomery): each chunk of up to rate
 * columns overwrites s[0..chunk) and permutes. */
static inline void absorb_row(const p2_params *prm, arith_u32 *s, const uint32_t *cols,
                              size_t stride, size_t ncols, size_t row)
{
    size_t rate = prm->width - P2_DIGEST;
    for (size_t c0 = 0; c0 < ncols; c0 += rate) {
        size_t len = ncols - c0 < rate ? ncols - c0 : rate;
        for (size_t k = 0; k < len; k++)
            s[k] = to_mont(prm, cols[(c0 + k) * stride + row]);
        p2_permute_mont(prm, s);
    }
}

/* ---- the portable tier ---- */

void p2_portable_permute(const p2_params *prm, uint32_t *states, size_t count)
{
    arith_u32 s[P2_MAX_WIDTH];
    for (size_t i = 0; i < count; i++) {
        uint32_t *st = states + i * prm->width;
        for (unsigned k = 0; k < prm->width; k++)
            s[k] = to_mont(prm, st[k]);
        p2_permute_mont(prm, s);
        for (unsigned k = 0; k < prm->width; k++)
            st[k] = from_mont(prm, s[k]);
    }
}

void p2_portable_hash_rows(const p2_params *prm, const uint32_t *cols, size_t stride, size_t ncols, size_t row0,
                           size_t nrows, uint32_t *out)
{
    arith_u32 s[P2_MAX_WIDTH];
    for (size_t r = 0; r < nrows; r++) {
        memset(s, 0, sizeof s); /* zero is its own Montgomery form */
        absorb_row(prm, s, cols, stride, ncols, row0 + r);
        for (unsigned k = 0; k < P2_DIGEST; k++)
            out[r * P2_DIGEST + k] = from_mont(prm, s[k]);
    }
}

void p2_portable_compress(const p2_params *prm, const uint32_t *in, uint32_t *out, size_t count)
{
    arith_u32 s[P2_MAX_WIDTH];
    for (size_t i = 0; i < count; i++) {
        memset(s, 0, sizeof s);
        for (unsigned k = 0; k < 2 * P2_DIGEST; k++)
            s[k] = to_mont(prm, in[i * 2 * P2_DIGEST + k]);
        p2_permute_mont(prm, s);
        for (unsigned k = 0; k < P2_DIGEST; k++)
            out[i * P2_DIGEST + k] = from_mont(prm, s[k]);
    }
}

void p2_portable_absorb(const p2_params *prm, uint32_t *states, const uint32_t *cols, size_t stride, size_t ncols,
                        size_t row0, size_t nrows)
{
    arith_u32 s[P2_MAX_WIDTH];
    if (ncols == 0)
        return;
    for (size_t r = 0; r < nrows; r++) {
        uint32_t *st = states + r * prm->width;
        for (unsigned k = 0; k < prm->width; k++)
            s[k] = to_mont(prm, st[k]);
        absorb_row(prm, s, cols, stride, ncols, row0 + r);
        for (unsigned k = 0; k < prm->width; k++)
            st[k] = from_mont(prm, s[k]);
    }
}

const p2_kernels p2_kernels_portable = {
    .permute = p2_portable_permute,
    .hash_rows = p2_portable_hash_rows,
    .compress = p2_portable_compress,
    .absorb = p2_portable_absorb,
};
