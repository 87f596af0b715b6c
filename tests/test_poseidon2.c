/*
 * test_poseidon2.c: the CPU Poseidon2 kernels (kernels_cpu/poseidon2_cpu.h) of every tier.
 *  - Plonky3's known answers for its default permutations (KoalaBear widths 16 and 24,
 *    BabyBear width 16), every tier, one state and batches that leave SIMD tails;
 *  - the independent Python oracle's vectors (tests/poseidon2_vectors.h, made by
 *    tests/poseidon2_ref.py from the paper): permutations, leaf sponges of 1..40 elements,
 *    2-to-1 compressions, every tier, the lanes of a batch holding different vectors (the
 *    sponge's vectors, one per length, between random rows checked against single-row calls);
 *  - the parameters: moduli and Montgomery constants, round numbers, the Montgomery tables
 *    against the canonical ones of arith/poseidon2_constants.h, the internal diagonals against
 *    their rationals (V[i] 2^k = n), p2_params_get from many threads at once;
 *  - every tier this machine runs gives the portable tier's bits: permute (counts around 8
 *    and 16), hash_rows (row lengths 0..40, row counts not multiples of 16, odd row0, a
 *    stride wider than the rows), compress, absorb, on random and edge elements (0, 1, p-1);
 *  - the sponge in pieces: absorb over blocks of columns split at multiples of the rate, then
 *    the first 8 elements, is hash_rows; absorbing 0 columns changes nothing.
 * Random data comes from the suite's seed (printed on failure, HPR_TEST_SEED to repeat).
 * A tier this machine cannot run is reported and skipped, never counted as passed silently.
 */
#include "test_support.h"
#include "poseidon2_vectors.h"

#include "arith/poseidon2.h"
#include "arith/poseidon2_constants.h"
#include "kernels_cpu/poseidon2_cpu.h"

#include <pthread.h>
#include <string.h>

static const char *const tier_names[RT_CPU_TIERS] = {"portable", "adx", "avx2", "avx512", "neon"};

static const p2_params *instance(int id)
{
    const p2_params *prm = p2_params_get((p2_instance_id)id);
    ck_assert_ptr_nonnull(prm);
    return prm;
}

/* An element below p: random, or (one in four) 0, 1 or p - 1. */
static uint32_t random_elem(test_rng *rng, uint32_t p)
{
    uint64_t r = test_rng_next(rng);
    switch (r % 16) {
    case 0:
        return 0;
    case 1:
        return 1;
    case 2:
    case 3:
        return p - 1;
    default:
        return (uint32_t)((r >> 8) % p);
    }
}

static uint32_t *random_elems(test_rng *rng, size_t n, uint32_t p)
{
    uint32_t *a = malloc((n ? n : 1) * sizeof *a);
    ck_assert_ptr_nonnull(a);
    for (size_t i = 0; i < n; i++)
        a[i] = random_elem(rng, p);
    return a;
}

/* got[0..n) == want[0..n), else the test fails naming what and the first difference. */
static void expect_same(const uint32_t *got, const uint32_t *want, size_t n, const char *what, const char *tier,
                        const char *name)
{
    for (size_t i = 0; i < n; i++)
        assert_seeded(got[i] == want[i], "%s, tier %s, %s: element %zu is %u, expected %u", what, tier, name, i,
                      got[i], want[i]);
}

/* ---- Plonky3's known answers ---- */

/* Inputs and outputs of Plonky3's regression tests of its default permutations:
 * koala-bear/src/poseidon2.rs, test_default_koalabear_poseidon2_width_16 and
 * test_default_koalabear_poseidon2_width_24; baby-bear/src/poseidon2.rs,
 * test_default_babybear_poseidon2_width_16 (Plonky3 v0.5+; the inputs are those of the
 * neighbouring tests, Sage's set_random_seed(16) / (24) vectors). */
static const uint32_t kat_in16[16] = {894848333, 1437655012, 1200606629, 1690012884, 71131202,  1749206695,
                                      1717947831, 120589055, 19776022,   42382981,   1831865506, 724844064,
                                      171220207,  1299207443, 227047920, 1783754913};
static const uint32_t kat_in24[24] = {886409618,  1327899896, 1902407911, 591953491,  648428576,  1844789031,
                                      1198336108, 355597330,  1799586834, 59617783,   790334801,  1968791836,
                                      559272107,  31054313,   1042221543, 474748436,  135686258,  263665994,
                                      1962340735, 1741539604, 2026927696, 449439011,  1131357108, 50869465};
static const uint32_t kat_kb16[16] = {1934285469, 604889435,  133449501,  1026180808, 1830659359, 176667110,
                                      1391183747, 351743874,  1238264085, 1292768839, 2023573270, 1201586780,
                                      1360691759, 1230682461, 748270449,  651545025};
static const uint32_t kat_kb24[24] = {382801106,  82839311,   1503190615, 1987418517, 854076995,  1862291425,
                                      262755189,  1050814217, 722724562,  741265943,  1026879332, 754316749,
                                      1966025564, 1518878196, 502200188,  1368172258, 845459257,  1711434837,
                                      724453836,  171032289,  655223446,  1098636135, 407832555,  1707498914};
static const uint32_t kat_bb16[16] = {516096821,  90309867,   1101817252, 1660784290, 360715097,  1789519026,
                                      1788910906, 563338433,  319524748,  1741414159, 1650859320, 894311162,
                                      1121347488, 1692793758, 1052633829, 1344246938};

static const struct {
    const uint32_t *in, *out;
} kats[P2_INSTANCES] = {
    [P2_KOALABEAR_16] = {kat_in16, kat_kb16},
    [P2_KOALABEAR_24] = {kat_in24, kat_kb24},
    [P2_BABYBEAR_16] = {kat_in16, kat_bb16},
};

START_TEST(plonky3_known_answers_every_tier)
{
    const p2_params *prm = instance(_i);
    unsigned w = prm->width;
    static const size_t counts[] = {1, 8, 16, 37}; /* 37: full SIMD groups and a tail */
    for (int t = 0; t < RT_CPU_TIERS; t++) {
        if (!test_tier_runs(t))
            continue;
        for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
            uint32_t *states = malloc(counts[c] * w * sizeof *states);
            for (size_t k = 0; k < counts[c]; k++)
                memcpy(states + k * w, kats[_i].in, w * sizeof *states);
            p2_kernels_for((rt_cpu_tier)t)->permute(prm, states, counts[c]);
            for (size_t k = 0; k < counts[c]; k++)
                expect_same(states + k * w, kats[_i].out, w, "Plonky3 known answer", tier_names[t], prm->name);
            free(states);
        }
    }
}
END_TEST

/* p2_permute_mont is the same permutation on Montgomery residues. */
START_TEST(montgomery_permutation_is_the_permutation)
{
    const p2_params *prm = instance(_i);
    uint32_t s[P2_MAX_WIDTH];
    for (unsigned k = 0; k < prm->width; k++)
        s[k] = (uint32_t)(((uint64_t)kats[_i].in[k] << 32) % prm->p);
    p2_permute_mont(prm, s);
    for (unsigned k = 0; k < prm->width; k++)
        s[k] = m31_mont_reduce(s[k], prm->p, prm->pinv);
    expect_same(s, kats[_i].out, prm->width, "p2_permute_mont", "portable", prm->name);
}
END_TEST

/* ---- the Python oracle's vectors ---- */

/* The k-th vector after v (cyclically) among those of v's instance: batches whose lanes hold
 * different oracle vectors, so that a SIMD kernel mixing lanes gives another answer. Each
 * vector type starts with its instance (tests/poseidon2_vectors.h). */
#define NEXT_OF_INSTANCE(vectors, count, v, k) \
    next_of_instance((const char *)&(vectors)[0].instance, sizeof(vectors)[0], count, v, k)

static int instance_at(const char *first, size_t stride, size_t i)
{
    int instance;
    memcpy(&instance, first + i * stride, sizeof instance);
    return instance;
}

static size_t next_of_instance(const char *first, size_t stride, size_t count, size_t v, size_t k)
{
    size_t i = v;
    while (k > 0) {
        i = (i + 1) % count;
        if (instance_at(first, stride, i) == instance_at(first, stride, v))
            k--;
    }
    return i;
}

START_TEST(oracle_permutations_every_tier)
{
    for (int t = 0; t < RT_CPU_TIERS; t++) {
        if (!test_tier_runs(t))
            continue;
        const p2_kernels *kern = p2_kernels_for((rt_cpu_tier)t);
        for (size_t v = 0; v < P2_N_PERM_VECTORS; v++) {
            const p2_params *prm = instance(p2_perm_vectors[v].instance);
            ck_assert_uint_eq(p2_perm_vectors[v].width, prm->width);
            for (size_t count = 1; count <= 19; count += 18) { /* 19: a batch with a tail */
                uint32_t *states = malloc(count * prm->width * sizeof *states);
                for (size_t k = 0; k < count; k++)
                    memcpy(states + k * prm->width,
                           p2_perm_vectors[NEXT_OF_INSTANCE(p2_perm_vectors, P2_N_PERM_VECTORS, v, k)].in,
                           prm->width * sizeof *states);
                kern->permute(prm, states, count);
                for (size_t k = 0; k < count; k++)
                    expect_same(states + k * prm->width,
                                p2_perm_vectors[NEXT_OF_INSTANCE(p2_perm_vectors, P2_N_PERM_VECTORS, v, k)].out,
                                prm->width, "oracle permutation", tier_names[t], prm->name);
                free(states);
            }
        }
    }
}
END_TEST

/* Each sponge vector as every third row of [row0, row0 + nrows) of a matrix, random rows
 * between and around them (so that a kernel reading the wrong row, stride or lane gets another
 * digest): the vector's rows give the oracle's digest; the random rows hashed in the batch give
 * the portable tier's digest of each row hashed alone (one row a call: no lanes). */
START_TEST(oracle_sponges_every_tier)
{
    enum { ROW0 = 3, NROWS = 19, STRIDE = 29 };
    test_rng rng;
    test_rng_init(&rng, 200);
    const p2_kernels *portable = p2_kernels_for(RT_CPU_PORTABLE);
    for (int t = 0; t < RT_CPU_TIERS; t++) {
        if (!test_tier_runs(t))
            continue;
        const p2_kernels *kern = p2_kernels_for((rt_cpu_tier)t);
        for (size_t v = 0; v < P2_N_SPONGE_VECTORS; v++) {
            const p2_sponge_vector *vec = &p2_sponge_vectors[v];
            const p2_params *prm = instance(vec->instance);
            uint32_t *cols = random_elems(&rng, (size_t)vec->len * STRIDE, prm->p);
            uint32_t out[NROWS * P2_DIGEST], alone[P2_DIGEST];
            for (size_t c = 0; c < vec->len; c++)
                for (size_t r = ROW0; r < ROW0 + NROWS; r += 3)
                    cols[c * STRIDE + r] = vec->row[c];
            kern->hash_rows(prm, cols, STRIDE, vec->len, ROW0, NROWS, out);
            for (size_t r = 0; r < NROWS; r++) {
                if (r % 3 == 0) {
                    expect_same(out + r * P2_DIGEST, vec->digest, P2_DIGEST, "oracle sponge", tier_names[t], prm->name);
                    continue;
                }
                portable->hash_rows(prm, cols, STRIDE, vec->len, ROW0 + r, 1, alone);
                expect_same(out + r * P2_DIGEST, alone, P2_DIGEST, "a random row beside the oracle's", tier_names[t],
                            prm->name);
            }
            free(cols);
        }
    }
}
END_TEST

START_TEST(oracle_compressions_every_tier)
{
    enum { COUNT = 21 };
    for (int t = 0; t < RT_CPU_TIERS; t++) {
        if (!test_tier_runs(t))
            continue;
        const p2_kernels *kern = p2_kernels_for((rt_cpu_tier)t);
        for (size_t v = 0; v < P2_N_COMPRESS_VECTORS; v++) {
            const p2_compress_vector *vec = &p2_compress_vectors[v];
            const p2_params *prm = instance(vec->instance);
            uint32_t in[COUNT * 2 * P2_DIGEST], out[COUNT * P2_DIGEST];
            for (size_t k = 0; k < COUNT; k++) { /* lanes: the instance's vectors in turn */
                const p2_compress_vector *lane =
                    &p2_compress_vectors[NEXT_OF_INSTANCE(p2_compress_vectors, P2_N_COMPRESS_VECTORS, v, k)];
                memcpy(in + k * 2 * P2_DIGEST, lane->left, sizeof lane->left);
                memcpy(in + k * 2 * P2_DIGEST + P2_DIGEST, lane->right, sizeof lane->right);
            }
            kern->compress(prm, in, out, COUNT);
            for (size_t k = 0; k < COUNT; k++)
                expect_same(out + k * P2_DIGEST,
                            p2_compress_vectors[NEXT_OF_INSTANCE(p2_compress_vectors, P2_N_COMPRESS_VECTORS, v, k)].out,
                            P2_DIGEST, "oracle compression", tier_names[t], prm->name);
        }
    }
}
END_TEST

/* ---- the parameters ---- */

/* V of each instance as rationals n / 2^k (Plonky3's documented diagonals). */
typedef struct {
    int n;
    unsigned k;
} rational;

static const rational diag_kb16[16] = {{-2, 0}, {1, 0},  {2, 0},   {1, 1},   {3, 0},   {4, 0},   {-1, 1}, {-3, 0},
                                       {-4, 0}, {1, 8},  {1, 3},   {1, 24},  {-1, 8},  {-1, 3},  {-1, 4}, {-1, 24}};
static const rational diag_kb24[24] = {{-2, 0},  {1, 0},  {2, 0},  {1, 1},  {3, 0},  {4, 0},  {-1, 1}, {-3, 0},
                                       {-4, 0},  {1, 8},  {1, 2},  {1, 3},  {1, 4},  {1, 5},  {1, 6},  {1, 24},
                                       {-1, 8},  {-1, 3}, {-1, 4}, {-1, 5}, {-1, 6}, {-1, 7}, {-1, 9}, {-1, 24}};
static const rational diag_bb16[16] = {{-2, 0}, {1, 0}, {2, 0},  {1, 1},   {3, 0},  {4, 0},  {-1, 1}, {-3, 0},
                                       {-4, 0}, {1, 8}, {1, 2},  {1, 3},   {1, 27}, {-1, 8}, {-1, 4}, {-1, 27}};

typedef struct {
    const char *name;
    unsigned width, rounds_f, rounds_p, degree;
    uint32_t p;
    const uint32_t *rc_ext, *rc_int, *diag;
    const rational *v;
} expected_instance;

static const expected_instance expected_params[P2_INSTANCES] = {
    [P2_KOALABEAR_16] = {"koalabear-16", 16, 8, 20, 3, 0x7f000001u, P2_KB16_RC_EXT, P2_KB16_RC_INT, P2_KB16_DIAG,
                         diag_kb16},
    [P2_KOALABEAR_24] = {"koalabear-24", 24, 8, 23, 3, 0x7f000001u, P2_KB24_RC_EXT, P2_KB24_RC_INT, P2_KB24_DIAG,
                         diag_kb24},
    [P2_BABYBEAR_16] = {"babybear-16", 16, 8, 13, 7, 0x78000001u, P2_BB16_RC_EXT, P2_BB16_RC_INT, P2_BB16_DIAG,
                        diag_bb16},
};

static void expect_montgomery_table(const uint32_t *mont, const uint32_t *canonical, size_t n, uint32_t p,
                                    const char *what, const char *name)
{
    for (size_t i = 0; i < n; i++) {
        ck_assert_msg(canonical[i] < p, "%s %s[%zu] = %u is not canonical", name, what, i, canonical[i]);
        ck_assert_msg(mont[i] == (uint32_t)(((uint64_t)canonical[i] << 32) % p), "%s %s[%zu]: Montgomery form wrong",
                      name, what, i);
    }
}

START_TEST(parameters_are_plonky3s)
{
    const p2_params *prm = instance(_i);
    const expected_instance *e = &expected_params[_i];
    uint32_t p = e->p;
    ck_assert_str_eq(prm->name, e->name);
    ck_assert_uint_eq(prm->width, e->width);
    ck_assert_uint_eq(prm->rounds_f, e->rounds_f);
    ck_assert_uint_eq(prm->rounds_p, e->rounds_p);
    ck_assert_uint_eq(prm->sbox_degree, e->degree);
    ck_assert_uint_eq(prm->p, p);
    ck_assert_uint_eq((uint32_t)(prm->pinv * p), 0xffffffffu); /* p pinv = -1 mod 2^32 */
    ck_assert_uint_eq(prm->r2, (uint32_t)(((((uint64_t)1 << 32) % p) << 32) % p));
    expect_montgomery_table(prm->rc_ext, e->rc_ext, (size_t)e->rounds_f * e->width, p, "rc_ext", e->name);
    expect_montgomery_table(prm->rc_int, e->rc_int, e->rounds_p, p, "rc_int", e->name);
    expect_montgomery_table(prm->diag, e->diag, e->width, p, "diag", e->name);
    for (unsigned i = 0; i < e->width; i++) { /* V[i] 2^k = n (mod p) */
        uint64_t lhs = ((uint64_t)e->diag[i] << e->v[i].k) % p;
        uint64_t rhs = e->v[i].n < 0 ? p - (uint64_t)(-e->v[i].n) : (uint64_t)e->v[i].n;
        ck_assert_msg(lhs == rhs, "%s: V[%u] is not %d/2^%u", e->name, i, e->v[i].n, e->v[i].k);
    }
    ck_assert_uint_eq(e->diag[0], p - 2); /* arith/poseidon2.h's internal layer relies on it */
}
END_TEST

typedef struct {
    const p2_params *got[P2_INSTANCES];
    uint32_t state[16];
} params_race;

static void *get_params_and_permute(void *arg)
{
    params_race *r = arg;
    for (int id = P2_INSTANCES - 1; id >= 0; id--)
        r->got[id] = p2_params_get((p2_instance_id)id);
    p2_portable_permute(r->got[P2_KOALABEAR_16], r->state, 1);
    return NULL;
}

/* Threads that all ask for the parameters first (a forked test: nobody made them before). */
START_TEST(params_get_is_thread_safe)
{
    enum { THREADS = 8 };
    pthread_t th[THREADS];
    params_race r[THREADS];
    memset(r, 0, sizeof r);
    for (int i = 0; i < THREADS; i++)
        memcpy(r[i].state, kat_in16, sizeof kat_in16);
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, get_params_and_permute, &r[i]), 0);
    for (int i = 0; i < THREADS; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    for (int i = 0; i < THREADS; i++) {
        for (int id = 0; id < P2_INSTANCES; id++)
            ck_assert_ptr_eq(r[i].got[id], p2_params_get((p2_instance_id)id));
        expect_same(r[i].state, kat_kb16, 16, "permutation after a concurrent first p2_params_get", "portable",
                    "koalabear-16");
    }
    ck_assert_ptr_null(p2_params_get(P2_INSTANCES));
    ck_assert_ptr_null(p2_params_get((p2_instance_id)-1));
}
END_TEST

/* ---- every tier against the portable tier ---- */

static void compare_permute(const p2_kernels *kern, const char *tier, const p2_params *prm, test_rng *rng)
{
    static const size_t counts[] = {0, 1, 2, 7, 8, 9, 15, 16, 17, 31, 33, 100};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t n = counts[c] * prm->width;
        uint32_t *want = random_elems(rng, n, prm->p), *got = malloc((n ? n : 1) * sizeof *got);
        memcpy(got, want, n * sizeof *got);
        p2_portable_permute(prm, want, counts[c]);
        kern->permute(prm, got, counts[c]);
        expect_same(got, want, n, "permute", tier, prm->name);
        free(want);
        free(got);
    }
}

static void compare_hash_rows(const p2_kernels *kern, const char *tier, const p2_params *prm, test_rng *rng)
{
    static const size_t nrows_list[] = {1, 5, 16, 17, 31, 50};
    for (size_t ncols = 0; ncols <= 40; ncols++) {
        size_t nrows = nrows_list[ncols % 6], row0 = 2 * (ncols % 4) + 1, stride = row0 + nrows + ncols % 3;
        uint32_t *cols = random_elems(rng, ncols * stride, prm->p);
        uint32_t *want = malloc(nrows * P2_DIGEST * sizeof *want), *got = malloc(nrows * P2_DIGEST * sizeof *got);
        memset(got, 0xa5, nrows * P2_DIGEST * sizeof *got);
        p2_portable_hash_rows(prm, cols, stride, ncols, row0, nrows, want);
        kern->hash_rows(prm, cols, stride, ncols, row0, nrows, got);
        expect_same(got, want, nrows * P2_DIGEST, "hash_rows", tier, prm->name);
        if (ncols == 0) /* the zero state's first 8, unpermuted */
            for (size_t i = 0; i < nrows * P2_DIGEST; i++)
                ck_assert_uint_eq(want[i], 0);
        free(cols);
        free(want);
        free(got);
    }
}

static void compare_compress(const p2_kernels *kern, const char *tier, const p2_params *prm, test_rng *rng)
{
    static const size_t counts[] = {0, 1, 3, 8, 15, 16, 17, 37};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; c++) {
        size_t count = counts[c];
        uint32_t *in = random_elems(rng, count * 2 * P2_DIGEST, prm->p);
        uint32_t *want = malloc((count + 1) * P2_DIGEST * sizeof *want);
        uint32_t *got = malloc((count + 1) * P2_DIGEST * sizeof *got);
        for (size_t i = 0; i < (count + 1) * P2_DIGEST; i++)
            want[i] = got[i] = 0xdeadbeef; /* the element past the end must stay */
        p2_portable_compress(prm, in, want, count);
        kern->compress(prm, in, got, count);
        expect_same(got, want, (count + 1) * P2_DIGEST, "compress", tier, prm->name);
        free(in);
        free(want);
        free(got);
    }
}

static void compare_absorb(const p2_kernels *kern, const char *tier, const p2_params *prm, test_rng *rng)
{
    static const size_t nrows_list[] = {1, 7, 16, 23, 33};
    for (size_t ncols = 0; ncols <= 40; ncols += 3) {
        size_t nrows = nrows_list[ncols % 5], row0 = 1 + ncols % 5, stride = row0 + nrows + 2;
        uint32_t *cols = random_elems(rng, ncols * stride, prm->p);
        uint32_t *want = random_elems(rng, nrows * prm->width, prm->p);
        uint32_t *got = malloc(nrows * prm->width * sizeof *got);
        memcpy(got, want, nrows * prm->width * sizeof *got);
        p2_portable_absorb(prm, want, cols, stride, ncols, row0, nrows);
        kern->absorb(prm, got, cols, stride, ncols, row0, nrows);
        expect_same(got, want, nrows * prm->width, "absorb", tier, prm->name);
        free(cols);
        free(want);
        free(got);
    }
}

START_TEST(every_tier_gives_the_portable_bits)
{
    const p2_params *prm = instance(_i);
    test_rng rng;
    test_rng_init(&rng, 400 + (uint64_t)_i);
    for (int t = 1; t < RT_CPU_TIERS; t++) {
        if (!test_tier_runs(t))
            continue;
        const p2_kernels *kern = p2_kernels_for((rt_cpu_tier)t);
        printf("%s, tier %s: %s\n", prm->name, tier_names[t],
               kern == &p2_kernels_portable ? "the portable kernels" : "kernels of its own");
        compare_permute(kern, tier_names[t], prm, &rng);
        compare_hash_rows(kern, tier_names[t], prm, &rng);
        if (prm->width == 16)
            compare_compress(kern, tier_names[t], prm, &rng);
        compare_absorb(kern, tier_names[t], prm, &rng);
    }
}
END_TEST

/* ---- the sponge in pieces ---- */

START_TEST(absorb_in_pieces_is_hash_rows_every_tier)
{
    const p2_params *prm = instance(_i);
    size_t rate = prm->width - P2_DIGEST;
    test_rng rng;
    test_rng_init(&rng, 500 + (uint64_t)_i);
    for (int t = 0; t < RT_CPU_TIERS; t++) {
        if (!test_tier_runs(t))
            continue;
        const p2_kernels *kern = p2_kernels_for((rt_cpu_tier)t);
        for (size_t trial = 0; trial < test_size(12, 4); trial++) {
            size_t ncols = 1 + test_rng_next(&rng) % (5 * rate), nrows = 1 + test_rng_next(&rng) % 40;
            size_t row0 = 1 + 2 * (test_rng_next(&rng) % 4), stride = row0 + nrows + 3;
            uint32_t *cols = random_elems(&rng, ncols * stride, prm->p);
            uint32_t *want = malloc(nrows * P2_DIGEST * sizeof *want);
            uint32_t *states = calloc(nrows * prm->width, sizeof *states);
            kern->hash_rows(prm, cols, stride, ncols, row0, nrows, want);
            for (size_t c0 = 0; c0 < ncols;) { /* pieces of 0..3 rates (0: nothing changes) */
                size_t len = rate * (test_rng_next(&rng) % 4);
                if (len > ncols - c0)
                    len = ncols - c0;
                kern->absorb(prm, states, cols + c0 * stride, stride, len, row0, nrows);
                c0 += len;
            }
            for (size_t r = 0; r < nrows; r++)
                expect_same(states + r * prm->width, want + r * P2_DIGEST, P2_DIGEST, "absorb in pieces",
                            tier_names[t], prm->name);
            free(cols);
            free(want);
            free(states);
        }
    }
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("poseidon2");
    TCase *tc = test_case(s, "poseidon2", 600);
    tcase_add_loop_test(tc, plonky3_known_answers_every_tier, 0, P2_INSTANCES);
    tcase_add_loop_test(tc, montgomery_permutation_is_the_permutation, 0, P2_INSTANCES);
    tcase_add_test(tc, oracle_permutations_every_tier);
    tcase_add_test(tc, oracle_sponges_every_tier);
    tcase_add_test(tc, oracle_compressions_every_tier);
    tcase_add_loop_test(tc, parameters_are_plonky3s, 0, P2_INSTANCES);
    tcase_add_test(tc, params_get_is_thread_safe);
    tcase_add_loop_test(tc, every_tier_gives_the_portable_bits, 0, P2_INSTANCES);
    tcase_add_loop_test(tc, absorb_in_pieces_is_hash_rows_every_tier, 0, P2_INSTANCES);
    return run_suite(s);
}
