/*
 * test_cpu_tiers.c: the CPU kernel tiers (portable, adx, avx512) against GMP and each other.
 *  - field arithmetic of every tier that can run here, lane by lane against a GMP oracle, on
 *    random values and carry edges (0, 1, p - 1, p .. 2p - 1 for the lazily reduced avx512
 *    form, values whose 52-bit or 64-bit limbs sit at 2^52 - 1, 2^52, 2^64 - 1);
 *  - MSM results of every tier identical to the portable tier's, both curves, the edge
 *    matrix, n up to 2^16;
 *  - random covers of the (windows x points) grid by pieces (hpr_cpu_job_run, what the hybrid
 *    scheduler deals) add up to the MSM, every tier;
 *  - dispatch: the default tier is the fastest that can run, a forced tier is used, an
 *    unknown or unavailable one is refused with a reason, HPR_CPU is honoured.
 * A tier this machine cannot run is reported and skipped, never counted as passed silently.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test_util.h"
#include "msm_test_inputs.h"

#include "internal.h"
#include "../kernels_cl/arith/hpr_compat.h"
#include "../kernels_cl/arith/constants_gen.h"

#include <string.h>

static const char *const tier_names[RT_CPU_TIERS] = {"portable", "adx", "avx512"};
static const hpr_curve test_curves[2] = {HPR_CURVE_BN254, HPR_CURVE_BLS12_381};

static int tier_runs(int t)
{
    const char *why;
    if (hpr_cpu_tier_check(tier_names[t], &why) == HPR_OK)
        return 1;
    printf("tier %s skipped on this machine: %s\n", tier_names[t], why);
    return 0;
}

static hpr_ctx *tier_ctx(const char *tier, unsigned threads)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    cfg.threads = threads;
    cfg.cpu_tier = tier;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    ck_assert_str_eq(hpr_ctx_cpu_tier(ctx), tier);
    return ctx;
}

/* ---- field arithmetic against GMP ---- */

typedef struct {
    mpz_t p, rinv, r2; /* modulus, R^-1 mod p, R^2 mod p for the tier's R = 2^mont_bits */
    unsigned limbs;
} field_oracle;

static void oracle_init(field_oracle *o, const msm_curve_ops *ops, unsigned mont_bits)
{
    static const uint64_t bn_p[4] = BN254_FP_P, bls_p[6] = BLS12_381_FP_P;
    mpz_t r;
    o->limbs = (unsigned)(ops->field_bytes / 8);
    mpz_inits(o->p, o->rinv, o->r2, r, NULL);
    limbs_to_mpz(o->p, o->limbs == 4 ? bn_p : bls_p, o->limbs);
    mpz_setbit(r, mont_bits);
    ck_assert(mpz_invert(o->rinv, r, o->p));
    mpz_mul(o->r2, r, r);
    mpz_mod(o->r2, o->r2, o->p);
    mpz_clear(r);
}

static void oracle_clear(field_oracle *o)
{
    mpz_clears(o->p, o->rinv, o->r2, NULL);
}

/* want = op(a, b) for the tier (see msm_cpu.h), reduced into [0, p). */
static void oracle_op(const field_oracle *o, int op, mpz_t want, const mpz_t a, const mpz_t b)
{
    switch (op) {
    case MSM_FIELD_MUL: mpz_mul(want, a, b); mpz_mul(want, want, o->rinv); break;
    case MSM_FIELD_SQR: mpz_mul(want, a, a); mpz_mul(want, want, o->rinv); break;
    case MSM_FIELD_ADD: mpz_add(want, a, b); break;
    case MSM_FIELD_SUB: mpz_sub(want, a, b); break;
    case MSM_FIELD_INV:
        mpz_mod(want, a, o->p);
        if (mpz_sgn(want) != 0) {
            ck_assert(mpz_invert(want, want, o->p));
            mpz_mul(want, want, o->r2);
        }
        break;
    default: mpz_set(want, a); break;
    }
    mpz_mod(want, want, o->p);
}

#define VALUES 512

/* Random values below bound, then edges: 0, 1, p - 1, and for bound 2p: p, p + 1, 2p - 1;
 * and values whose limbs are all 2^52 - 1, 2^52 or 2^64 - 1 (reduced below bound). */
static void make_values(uint64_t *v, const field_oracle *o, const mpz_t bound, test_rng *rng)
{
    mpz_t x, t;
    mpz_inits(x, t, NULL);
    for (int i = 0; i < VALUES; i++) {
        uint64_t limbs[6];
        for (unsigned j = 0; j < o->limbs; j++)
            limbs[j] = test_rng_next(rng);
        limbs_to_mpz(x, limbs, o->limbs);
        int edge = i < 64 ? i % 16 : -1;
        switch (edge) {
        case 0: mpz_set_ui(x, 0); break;
        case 1: mpz_set_ui(x, 1); break;
        case 2: mpz_sub_ui(x, o->p, 1); break;
        case 3: mpz_set(x, o->p); break;
        case 4: mpz_add_ui(x, o->p, 1); break;
        case 5: mpz_sub_ui(x, bound, 1); break;
        case 6: /* every 52-bit limb 2^52 - 1 */
            mpz_set_ui(x, 0);
            for (unsigned k = 0; k < 8; k++) {
                mpz_mul_2exp(x, x, 52);
                mpz_add_ui(x, x, (1ul << 52) - 1);
            }
            break;
        case 7: /* every 52-bit limb 2^51 (the top bit of a limb) */
            mpz_set_ui(x, 0);
            for (unsigned k = 0; k < 8; k++) {
                mpz_mul_2exp(x, x, 52);
                mpz_add_ui(x, x, 1ul << 51);
            }
            break;
        case 8: mpz_set_ui(x, 1); mpz_mul_2exp(x, x, 52); break;
        case 9: mpz_set_ui(x, 1); mpz_mul_2exp(x, x, 104); mpz_sub_ui(x, x, 1); break;
        case 10: mpz_set_ui(x, 1); mpz_mul_2exp(x, x, 64); mpz_sub_ui(x, x, 1); break;
        case 11: mpz_set_ui(x, 1); mpz_mul_2exp(x, x, 8 * o->limbs * 8 - 3); break;
        default: break;
        }
        mpz_mod(x, x, bound);
        mpz_to_limbs(v + (size_t)i * o->limbs, o->limbs, x);
    }
    mpz_clears(x, t, NULL);
}

static void check_field_ops(const msm_curve_ops *ops, const msm_cpu_kernel *k, uint64_t stream)
{
    field_oracle o;
    test_rng rng;
    mpz_t bound, a, b, want, got;
    uint64_t va[VALUES * 6], vb[VALUES * 6], vr[VALUES * 6];
    int lazy = k->mont_bits % 64 != 0; /* the avx512 form accepts inputs below 2p */
    oracle_init(&o, ops, k->mont_bits);
    mpz_inits(bound, a, b, want, got, NULL);
    mpz_mul_ui(bound, o.p, lazy ? 2 : 1);
    test_rng_init(&rng, stream);
    make_values(va, &o, bound, &rng);
    make_values(vb, &o, bound, &rng);
    for (int i = 0; i < VALUES; i += 3) { /* shuffle b against a so that edges meet edges and randoms */
        uint64_t tmp[6];
        size_t j = test_rng_next(&rng) % VALUES;
        memcpy(tmp, vb + (size_t)i * o.limbs, o.limbs * 8);
        memcpy(vb + (size_t)i * o.limbs, vb + j * o.limbs, o.limbs * 8);
        memcpy(vb + j * o.limbs, tmp, o.limbs * 8);
    }
    for (int op = 0; op < MSM_FIELD_OPS; op++) {
        if (op == MSM_FIELD_ROUND_TRIP && !lazy)
            continue;
        if (op == MSM_FIELD_ROUND_TRIP) /* the round trip takes canonical 64-bit Montgomery values */
            for (int i = 0; i < VALUES; i++) {
                limbs_to_mpz(a, va + (size_t)i * o.limbs, o.limbs);
                mpz_mod(a, a, o.p);
                mpz_to_limbs(va + (size_t)i * o.limbs, o.limbs, a);
            }
        k->field_op(op, vr, va, vb, VALUES);
        for (int i = 0; i < VALUES; i++) {
            limbs_to_mpz(a, va + (size_t)i * o.limbs, o.limbs);
            limbs_to_mpz(b, vb + (size_t)i * o.limbs, o.limbs);
            limbs_to_mpz(got, vr + (size_t)i * o.limbs, o.limbs);
            oracle_op(&o, op, want, a, b);
            if (mpz_cmp(want, got) != 0) {
                gmp_printf("%s %s op %d value %d: a = %Zx b = %Zx want %Zx got %Zx\n", ops->name, k->tier, op, i, a, b,
                           want, got);
                assert_seeded(0, "%s tier %s: field op %d differs from GMP at value %d", ops->name, k->tier, op, i);
            }
        }
    }
    mpz_clears(bound, a, b, want, got, NULL);
    oracle_clear(&o);
}

/* _i = curve * RT_CPU_TIERS + tier */
START_TEST(field_arithmetic_matches_gmp)
{
    const msm_curve_ops *ops = hpr_g1_ops(test_curves[_i / RT_CPU_TIERS]);
    int t = _i % RT_CPU_TIERS;
    if (!tier_runs(t))
        return;
    ck_assert_ptr_nonnull(ops->kernels[t]);
    ck_assert_str_eq(ops->kernels[t]->tier, tier_names[t]);
    check_field_ops(ops, ops->kernels[t], 100 + (uint64_t)_i);
}
END_TEST

/* ---- MSM: every tier equals the portable tier bit for bit ---- */

static const unsigned tier_edges[] = {0, EDGE_ZEROS | EDGE_ONES | EDGE_R_MINUS_1, EDGE_EQUAL_POINTS | EDGE_R_MINUS_1,
                                      EDGE_NEG_PAIRS | EDGE_ONES, EDGE_INFINITY | EDGE_ZEROS, 63};
static const size_t tier_sizes[] = {1, 2, 9, 100, 3000, 1u << 16};

/* _i = curve * nsizes + size index */
START_TEST(msm_of_every_tier_equals_portable)
{
    const curve_t *c = &curves[_i / 6];
    size_t n = tier_sizes[_i % 6];
    hpr_ctx *ref = tier_ctx("portable", 2);
    for (size_t e = 0; e < sizeof tier_edges / sizeof tier_edges[0]; e++) {
        if (n == (1u << 16) && e != 0 && e != 2 && e != 5)
            continue; /* the largest size: random, all points equal, and the full edge set */
        unsigned char want[MAXP];
        inputs in = make_inputs(ref, c, n, 5000 + 16 * (uint64_t)_i + e, tier_edges[e]);
        if (n <= 100)
            c->naive(want, in.points, in.scalars, n);
        else
            ck_assert_int_eq(hpr_msm(ref, c->curve, HPR_G1, in.points, in.scalars, n, want), HPR_OK);
        for (int t = 0; t < RT_CPU_TIERS; t++) {
            if (!tier_runs(t))
                continue;
            hpr_ctx *ctx = tier_ctx(tier_names[t], 1 + (unsigned)(e % 2));
            expect_msm(ctx, c, &in, want, NULL, tier_names[t]);
            hpr_msm_opts opts = {(unsigned)(1 + e * 3), 0, 0, NULL}; /* small windows: crowded buckets */
            if (n <= 3000)
                expect_msm(ctx, c, &in, want, &opts, "forced window");
            hpr_ctx_destroy(ctx);
        }
        free_inputs(&in);
    }
    hpr_ctx_destroy(ref);
}
END_TEST

/* Crowded buckets beside busy batches (regression: a bucket emptied by P = -B while it waited
 * in the open batch): all points equal, every third scalar r - 1 (one bucket per window),
 * the others random; then every scalar equal. _i = curve */
START_TEST(crowded_buckets_beside_busy_batches)
{
    const curve_t *c = &curves[_i];
    size_t n = 1u << 16;
    hpr_ctx *ref = tier_ctx("portable", 2);
    inputs in = make_inputs(ref, c, n, 7500 + (uint64_t)_i, EDGE_EQUAL_POINTS);
    uint64_t r_minus_1[4];
    unsigned char want[MAXP];
    memcpy(r_minus_1, c->order, sizeof r_minus_1);
    r_minus_1[0] -= 1;
    for (int pattern = 0; pattern < 2; pattern++) {
        for (size_t i = 0; i < n; i++)
            if (pattern == 0 && i % 3 == 0)
                set_scalar(in.scalars + 32 * i, r_minus_1);
            else if (pattern == 1)
                memcpy(in.scalars + 32 * i, in.scalars, 32);
        ck_assert_int_eq(hpr_msm(ref, c->curve, HPR_G1, in.points, in.scalars, n, want), HPR_OK);
        for (int t = 1; t < RT_CPU_TIERS; t++) {
            if (!tier_runs(t))
                continue;
            hpr_ctx *ctx = tier_ctx(tier_names[t], 2);
            expect_msm(ctx, c, &in, want, NULL, pattern ? "all scalars equal" : "every third scalar r - 1");
            hpr_ctx_destroy(ctx);
        }
    }
    free_inputs(&in);
    hpr_ctx_destroy(ref);
}
END_TEST

/* ---- bad points: every tier reports the same first bad point and kind, in place or not ---- */

/* _i = curve */
START_TEST(every_tier_reports_the_same_bad_point)
{
    const curve_t *c = &curves[_i];
    hpr_ctx *ref = tier_ctx("portable", 1);
    test_rng rng;
    test_rng_init(&rng, 7000 + (uint64_t)_i);
    inputs in = make_inputs(ref, c, 5000, 7100 + (uint64_t)_i, EDGE_INFINITY);
    unsigned char *shifted = malloc(in.n * c->point_size + 8), out[MAXP];
    for (int trial = 0; trial < 24; trial++) {
        size_t first = test_rng_next(&rng) % in.n, second = first + test_rng_next(&rng) % 9;
        size_t both[2] = {first, second < in.n ? second : first};
        unsigned char saved[2][MAXP];
        for (int b = 0; b < 2; b++) { /* a range error or an off-curve point at each place */
            memcpy(saved[b], in.points + both[b] * c->point_size, c->point_size);
            if (b == 1 && both[1] == both[0])
                break;
            if (test_rng_next(&rng) & 1)
                memset(in.points + both[b] * c->point_size + (test_rng_next(&rng) & 1) * c->point_size / 2, 0xff,
                       c->point_size / 2);
            else
                in.points[both[b] * c->point_size + 5] ^= 0x04;
        }
        hpr_status want = hpr_msm(ref, c->curve, HPR_G1, in.points, in.scalars, in.n, out);
        char want_detail[256];
        snprintf(want_detail, sizeof want_detail, "%s", hpr_ctx_error_detail(ref));
        ck_assert(want == HPR_ERR_POINT_NOT_ON_CURVE || want == HPR_ERR_COORDINATE_OUT_OF_RANGE);
        char index_text[32];
        snprintf(index_text, sizeof index_text, "point %zu ", first);
        assert_seeded(strstr(want_detail, index_text) != NULL, "want %s in '%s'", index_text, want_detail);
        memcpy(shifted + 8 - 3, in.points, in.n * c->point_size); /* unaligned copy: the decoding path */
        for (int t = 0; t < RT_CPU_TIERS; t++) {
            if (!tier_runs(t))
                continue;
            hpr_ctx *ctx = tier_ctx(tier_names[t], 2);
            const unsigned char *sources[2] = {in.points, shifted + 8 - 3};
            for (int src = 0; src < 2; src++) {
                ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, sources[src], in.scalars, in.n, out), want);
                assert_seeded(strcmp(hpr_ctx_error_detail(ctx), want_detail) == 0, "tier %s %s: '%s' vs '%s'",
                              tier_names[t], src ? "unaligned" : "in place", hpr_ctx_error_detail(ctx), want_detail);
            }
            hpr_ctx_destroy(ctx);
        }
        for (int b = 1; b >= 0; b--)
            memcpy(in.points + both[b] * c->point_size, saved[b], c->point_size);
    }
    free(shifted);
    free_inputs(&in);
    hpr_ctx_destroy(ref);
}
END_TEST

/* ---- dispatch ---- */

START_TEST(dispatch_picks_the_fastest_and_honours_requests)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    const char *why = NULL, *saved = getenv("HPR_CPU");
    char saved_copy[32] = "";
    int best = RT_CPU_PORTABLE;
    if (saved)
        snprintf(saved_copy, sizeof saved_copy, "%s", saved);
    unsetenv("HPR_CPU");
    for (int t = RT_CPU_TIERS - 1; t > 0; t--)
        if (hpr_cpu_tier_check(tier_names[t], NULL) == HPR_OK) {
            best = t;
            break;
        }
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    ck_assert_str_eq(hpr_ctx_cpu_tier(ctx), tier_names[best]);
    hpr_ctx_destroy(ctx);
    printf("default CPU tier here: %s\n", tier_names[best]);

    rt_cpu_features f;
    rt_cpu_features_detect(&f);
    if (f.avx512ifma && f.avx512f && f.adx && f.bmi2 && hpr_g1_ops(HPR_CURVE_BN254)->kernels[RT_CPU_AVX512])
        ck_assert_str_eq(tier_names[best], "avx512"); /* this project's CI machine: IFMA is picked */

    setenv("HPR_CPU", "portable", 1);
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    ck_assert_str_eq(hpr_ctx_cpu_tier(ctx), "portable");
    hpr_ctx_destroy(ctx);

    setenv("HPR_CPU", "sse9", 1);
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(ctx);
    cfg.cpu_tier = "portable"; /* the config wins over the environment */
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    ck_assert_str_eq(hpr_ctx_cpu_tier(ctx), "portable");
    hpr_ctx_destroy(ctx);
    unsetenv("HPR_CPU");

    ck_assert_int_eq(hpr_cpu_tier_check("sse9", &why), HPR_ERR_INVALID_ARGUMENT);
    ck_assert(strstr(why, "unknown CPU tier") != NULL);
    ck_assert_int_eq(hpr_cpu_tier_check(NULL, &why), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_cpu_tier_check("portable", &why), HPR_OK);
    for (int t = 0; t < RT_CPU_TIERS; t++) {
        hpr_status st = hpr_cpu_tier_check(tier_names[t], &why);
        cfg.cpu_tier = tier_names[t];
        ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), st);
        if (st != HPR_OK) {
            ck_assert_int_eq(st, HPR_ERR_CPU_TIER);
            ck_assert(why[0] != '\0');
        }
        hpr_ctx_destroy(ctx);
        ctx = NULL;
    }
    if (saved)
        setenv("HPR_CPU", saved_copy, 1);
}
END_TEST

/* ---- pieces of the window grid (what the hybrid scheduler deals) ---- */

/* One random cover of the grid: windows in random runs; a run is either whole windows over
 * all points, or one window cut at random point boundaries. Returns the sum (XYZZ). */
static void sum_random_pieces(hpr_ctx *ctx, hpr_cpu_job *job, const msm_curve_ops *ops, size_t n, test_rng *rng,
                              uint64_t *acc)
{
    uint64_t piece[4 * 6];
    unsigned windows = hpr_cpu_job_windows(job);
    ops->xyzz_set_inf(acc);
    for (unsigned w = 0; w < windows;) {
        unsigned run = 1 + (unsigned)(test_rng_next(rng) % 3);
        if (run > windows - w)
            run = windows - w;
        if (test_rng_next(rng) % 2) {
            ck_assert_int_eq(hpr_cpu_job_run(ctx, job, w, w + run, 0, n, piece), HPR_OK);
            ops->xyzz_add(acc, acc, piece);
            w += run;
            continue;
        }
        for (size_t p0 = 0; p0 < n;) {
            size_t p1 = p0 + 1 + test_rng_next(rng) % (n / 3 + 1);
            p1 = p1 < n ? p1 : n;
            ck_assert_int_eq(hpr_cpu_job_run(ctx, job, w, w + 1, p0, p1, piece), HPR_OK);
            ops->xyzz_add(acc, acc, piece);
            p0 = p1;
        }
        w++;
    }
}

/* Random covers of (windows x points) by pieces, every tier, random window sizes and the
 * edge matrix (the ones belong to window 0's pieces): the sum is the MSM. _i = curve */
START_TEST(pieces_of_the_window_grid_add_up_to_the_msm)
{
    const curve_t *c = &curves[_i];
    const msm_curve_ops *ops = hpr_g1_ops(c->curve);
    test_rng rng;
    test_rng_init(&rng, 7100 + (uint64_t)_i);
    hpr_ctx *ref = tier_ctx("portable", 2);
    for (size_t e = 0; e < sizeof tier_edges / sizeof tier_edges[0]; e++) {
        size_t n = 1 + test_rng_next(&rng) % 3000;
        unsigned char want[MAXP], got[MAXP];
        uint64_t acc[4 * 6];
        inputs in = make_inputs(ref, c, n, 7200 + 16 * (uint64_t)_i + e, tier_edges[e]);
        ck_assert_int_eq(hpr_msm(ref, c->curve, HPR_G1, in.points, in.scalars, n, want), HPR_OK);
        for (int t = 0; t < RT_CPU_TIERS; t++) {
            if (!tier_runs(t))
                continue;
            hpr_ctx *ctx = tier_ctx(tier_names[t], 1 + (unsigned)(e % 2));
            hpr_msm_opts opts = {(unsigned)(2 + test_rng_next(&rng) % 13), 0, 0, NULL};
            hpr_cpu_job *job;
            ck_assert_int_eq(hpr_cpu_job_prepare(ctx, ops, in.points, in.scalars, n, &opts, &job), HPR_OK);
            sum_random_pieces(ctx, job, ops, n, &rng, acc);
            ops->encode_xyzz(got, acc);
            ck_assert_msg(memcmp(got, want, c->point_size) == 0, "%s tier %s: n %zu, c %u, edges %u: pieces differ",
                          c->name, tier_names[t], n, opts.window_bits, tier_edges[e]);
            hpr_cpu_job_free(job);
            hpr_ctx_destroy(ctx);
        }
        free_inputs(&in);
    }
    hpr_ctx_destroy(ref);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("cpu_tiers");
    TCase *tc = tcase_create("tiers");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, field_arithmetic_matches_gmp, 0, 2 * RT_CPU_TIERS);
    tcase_add_loop_test(tc, msm_of_every_tier_equals_portable, 0, 12);
    tcase_add_loop_test(tc, crowded_buckets_beside_busy_batches, 0, 2);
    tcase_add_loop_test(tc, every_tier_reports_the_same_bad_point, 0, 2);
    tcase_add_loop_test(tc, pieces_of_the_window_grid_add_up_to_the_msm, 0, 2);
    tcase_add_test(tc, dispatch_picks_the_fastest_and_honours_requests);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
