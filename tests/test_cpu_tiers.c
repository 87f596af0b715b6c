/*
 * test_cpu_tiers.c: the CPU kernel tiers (portable, adx, avx2, avx512, neon) against GMP and each
 * other.
 *  - field arithmetic of every tier that can run here (Fp of G1, Fq2 of G2), lane by lane
 *    against a GMP oracle, on random values and carry edges (0, 1, p - 1, p .. 2p - 1 for
 *    the lazily reduced avx512 form, values whose 52-bit or 64-bit limbs sit at 2^52 - 1,
 *    2^52, 2^64 - 1, the zero of Fq2);
 *  - MSM results of every tier identical to the portable tier's, G1 and G2 of both curves,
 *    the edge matrix, n up to 2^16, crowded buckets, the first bad point reported; sums of
 *    the scalars-1 terms (all equal, cancelling eight apart, infinity) against the naive sum;
 *    fixed-base sums over a window table (lanes that double, cancel, stay at infinity) too;
 *  - random covers of the (windows x points) grid by pieces (msm_cpu_job_run, what the hybrid
 *    scheduler deals) add up to the MSM, every tier;
 *  - dispatch: the default tier is the fastest that can run, a forced tier is used, an
 *    unknown or unavailable one is refused with a reason, HPR_CPU is honoured; a tier without
 *    kernels of its own runs those of its own architecture's slower tier (neon: portable's),
 *    on every build.
 * A tier this machine cannot run is reported and skipped, never counted as passed silently.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test_support.h"
#include "msm_test_inputs.h"

#include "host/msm/msm_engine.h"
#include "kernels_cpu/ntt_cpu.h"
#include "arith/compat.h"
#include "arith/constants_gen.h"

#include <string.h>

static const char *const tier_names[RT_CPU_TIERS] = {"portable", "adx", "avx2", "avx512", "neon"};

/* tier_runs, and the tier has MSM kernels of its own (the avx2 tier runs the adx tier's: the
 * MSM tests of adx cover them, and dispatch_picks_the_fastest_and_honours_requests checks
 * that an avx2 context uses them). */
static int tier_runs_own_msm(int t)
{
    if (!test_tier_runs(t))
        return 0;
    return msm_g1_ops(HPR_CURVE_BN254)->tiers->kernels[t] != NULL;
}

/* ---- field arithmetic against GMP ---- */

typedef struct {
    mpz_t p, rinv, r2; /* modulus, R^-1 mod p, R^2 mod p for the tier's R = 2^mont_bits */
    unsigned limbs;    /* of one base-field component */
    unsigned degree;   /* components of an element: 1 (Fp) or 2 (Fq2 = Fp[u]/(u^2 + 1), G2) */
} field_oracle;

static void oracle_init(field_oracle *o, const msm_curve_ops *ops, unsigned mont_bits)
{
    static const uint64_t bn_p[4] = BN254_FP_P, bls_p[6] = BLS12_381_FP_P;
    mpz_t r;
    o->degree = ops->degree;
    o->limbs = (unsigned)(ops->field_bytes / 8 / ops->degree);
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

/* want = op(a, b) for the tier (see msm_cpu.h) in Fp, reduced into [0, p). */
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

/* The same in Fq2 (u^2 = -1), components [0] and [1]: the schoolbook product, and the
 * inverse (a0 - a1 u) / (a0^2 + a1^2) times R^2 (0 for 0). */
static void oracle_op2(const field_oracle *o, int op, mpz_t *want, mpz_t *a, mpz_t *b)
{
    mpz_t t, n;
    mpz_inits(t, n, NULL);
    switch (op) {
    case MSM_FIELD_MUL:
    case MSM_FIELD_SQR: {
        mpz_t *y = op == MSM_FIELD_SQR ? a : b;
        mpz_mul(want[0], a[0], y[0]);
        mpz_submul(want[0], a[1], y[1]);
        mpz_mul(want[1], a[0], y[1]);
        mpz_addmul(want[1], a[1], y[0]);
        mpz_mul(want[0], want[0], o->rinv);
        mpz_mul(want[1], want[1], o->rinv);
        break;
    }
    case MSM_FIELD_INV:
        mpz_mul(n, a[0], a[0]);
        mpz_addmul(n, a[1], a[1]);
        mpz_mod(n, n, o->p);
        if (mpz_sgn(n) == 0) {
            mpz_set_ui(want[0], 0);
            mpz_set_ui(want[1], 0);
            break;
        }
        ck_assert(mpz_invert(n, n, o->p));
        mpz_mul(n, n, o->r2);
        mpz_mul(want[0], a[0], n);
        mpz_neg(t, a[1]);
        mpz_mul(want[1], t, n);
        break;
    default: /* add, sub and the round trip work per component */
        for (int d = 0; d < 2; d++)
            oracle_op(o, op, want[d], a[d], b[d]);
        break;
    }
    for (int d = 0; d < 2; d++)
        mpz_mod(want[d], want[d], o->p);
    mpz_clears(t, n, NULL);
}

#define VALUES 512

/* Random values below bound, then edges: 0, 1, p - 1, and for bound 2p: p, p + 1, 2p - 1;
 * and values whose limbs are all 2^52 - 1, 2^52 or 2^64 - 1 (reduced below bound). */
static void make_values(uint64_t *v, const field_oracle *o, const mpz_t bound, test_rng *rng, int count)
{
    mpz_t x, t;
    mpz_inits(x, t, NULL);
    for (int i = 0; i < count; i++) {
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

/* Components [0, degree) of element i of v as integers. */
static void element_to_mpz(mpz_t *x, const field_oracle *o, const uint64_t *v, int i)
{
    for (unsigned d = 0; d < o->degree; d++)
        limbs_to_mpz(x[d], v + ((size_t)i * o->degree + d) * o->limbs, o->limbs);
}

static void check_field_ops(const msm_curve_ops *ops, const msm_cpu_kernel *k, uint64_t stream)
{
    field_oracle o;
    test_rng rng;
    mpz_t bound, a[2], b[2], want[2], got[2];
    uint64_t va[VALUES * 12], vb[VALUES * 12], vr[VALUES * 12];
    int lazy = k->mont_bits % 64 != 0; /* the avx512 form accepts inputs below 2p */
    oracle_init(&o, ops, k->mont_bits);
    size_t elem = o.limbs * o.degree; /* limbs of one element */
    int comps = VALUES * (int)o.degree;
    mpz_inits(bound, a[0], a[1], b[0], b[1], want[0], want[1], got[0], got[1], NULL);
    mpz_mul_ui(bound, o.p, lazy ? 2 : 1);
    test_rng_init(&rng, stream);
    make_values(va, &o, bound, &rng, comps);
    make_values(vb, &o, bound, &rng, comps);
    if (o.degree == 2) /* the zero element of Fq2 (both components 0): inverse 0 */
        memset(va + 40 * elem, 0, elem * 8);
    for (int i = 0; i < VALUES; i += 3) { /* shuffle b against a so that edges meet edges and randoms */
        uint64_t tmp[12];
        size_t j = test_rng_next(&rng) % VALUES;
        memcpy(tmp, vb + (size_t)i * elem, elem * 8);
        memcpy(vb + (size_t)i * elem, vb + j * elem, elem * 8);
        memcpy(vb + j * elem, tmp, elem * 8);
    }
    for (int op = 0; op < MSM_FIELD_OPS; op++) {
        if (op == MSM_FIELD_ROUND_TRIP && !lazy)
            continue;
        if (op == MSM_FIELD_ROUND_TRIP) /* the round trip takes canonical 64-bit Montgomery values */
            for (int i = 0; i < comps; i++) {
                limbs_to_mpz(a[0], va + (size_t)i * o.limbs, o.limbs);
                mpz_mod(a[0], a[0], o.p);
                mpz_to_limbs(va + (size_t)i * o.limbs, o.limbs, a[0]);
            }
        k->field_op(op, vr, va, vb, VALUES);
        for (int i = 0; i < VALUES; i++) {
            element_to_mpz(a, &o, va, i);
            element_to_mpz(b, &o, vb, i);
            element_to_mpz(got, &o, vr, i);
            if (o.degree == 2)
                oracle_op2(&o, op, want, a, b);
            else
                oracle_op(&o, op, want[0], a[0], b[0]);
            for (unsigned d = 0; d < o.degree; d++)
                if (mpz_cmp(want[d], got[d]) != 0) {
                    gmp_printf("%s %s op %d value %d component %u: a = %Zx b = %Zx want %Zx got %Zx\n", ops->name,
                               k->tier, op, i, d, a[d], b[d], want[d], got[d]);
                    assert_seeded(0, "%s tier %s: field op %d differs from GMP at value %d", ops->name, k->tier, op,
                                  i);
                }
        }
    }
    mpz_clears(bound, a[0], a[1], b[0], b[1], want[0], want[1], got[0], got[1], NULL);
    oracle_clear(&o);
}

/* _i = curve * RT_CPU_TIERS + tier */
START_TEST(field_arithmetic_matches_gmp)
{
    const curve_t *c = &curves[_i / RT_CPU_TIERS];
    const msm_curve_ops *ops = msm_ops(c->curve, c->group);
    int t = _i % RT_CPU_TIERS;
    if (!tier_runs_own_msm(t)) {
        printf("tier %s: no field kernels of its own to test\n", tier_names[t]);
        return;
    }
    ck_assert_ptr_nonnull(ops->tiers->kernels[t]);
    ck_assert_str_eq(ops->tiers->kernels[t]->tier, tier_names[t]);
    check_field_ops(ops, ops->tiers->kernels[t], 100 + (uint64_t)_i);
}
END_TEST

/* ---- MSM: every tier equals the portable tier bit for bit ---- */

static const size_t tier_sizes[] = {1, 2, 9, 100, 3000, 1u << 16};

/* want := the naive sum when n <= naive_max, else the portable tier's MSM (ref) with a window
 * one bit narrower than any tier chooses for n on 1 or 2 threads: other buckets, other window
 * sums, so that no tier (portable included) is compared with its own iteration. */
static void reference_msm(hpr_ctx *ref, const curve_t *c, const inputs *in, size_t naive_max, unsigned char *want)
{
    if (in->n <= naive_max) {
        c->naive(want, in->points, in->scalars, in->n);
        return;
    }
    const msm_curve_ops *ops = msm_ops(c->curve, c->group);
    unsigned narrowest = 64;
    for (int t = 0; t < RT_CPU_TIERS; t++)
        for (unsigned threads = 1; threads <= 2; threads++) {
            unsigned bits = msm_cpu_window_bits(ops, (rt_cpu_tier)t, in->n, threads);
            narrowest = bits < narrowest ? bits : narrowest;
        }
    hpr_msm_opts other = {sizeof other, narrowest > 2 ? narrowest - 1 : narrowest + 1, 0, 0, NULL};
    ck_assert_int_eq(hpr_msm_ex(ref, c->curve, c->group, in->points, in->scalars, in->n, want, &other), HPR_OK);
}

/* _i = curve * nsizes + size index */
START_TEST(msm_of_every_tier_equals_portable)
{
    const curve_t *c = &curves[_i / 6];
    size_t n = tier_sizes[_i % 6];
    if (n > test_size(SIZE_MAX, c->group == HPR_G2 ? 9 : 100))
        return; /* reduced sizes */
    hpr_ctx *ref = test_cpu_ctx("portable", 2, 0);
    for (size_t e = 0; e < sizeof edge_sets / sizeof edge_sets[0]; e++) {
        if (n == (1u << 16) && e != 0 && ((e != 2 && e != 5) || c->group == HPR_G2))
            continue; /* the largest size: random, all points equal, and the full edge set (G2: random) */
        unsigned char want[MAXP];
        inputs in = make_inputs(ref, c, n, 5000 + 16 * (uint64_t)_i + e, edge_sets[e]);
        reference_msm(ref, c, &in, 100, want);
        for (int t = 0; t < RT_CPU_TIERS; t++) {
            if (!tier_runs_own_msm(t))
                continue;
            hpr_ctx *ctx = test_cpu_ctx(tier_names[t], 1 + (unsigned)(e % 2), 0);
            expect_msm(ctx, c, &in, want, NULL, tier_names[t]);
            /* small windows: crowded buckets */
            hpr_msm_opts opts = {sizeof opts, (unsigned)(1 + e * 3 % test_size(64, 10)), 0, 0, NULL};
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
    size_t n = test_size(c->group == HPR_G2 ? 1u << 14 : 1u << 16, 300); /* G2's portable reference is slow */
    hpr_ctx *ref = test_cpu_ctx("portable", 2, 0);
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
        ck_assert_int_eq(hpr_msm(ref, c->curve, c->group, in.points, in.scalars, n, want), HPR_OK);
        for (int t = 1; t < RT_CPU_TIERS; t++) {
            if (!tier_runs_own_msm(t))
                continue;
            hpr_ctx *ctx = test_cpu_ctx(tier_names[t], 2, 0);
            expect_msm(ctx, c, &in, want, NULL, pattern ? "all scalars equal" : "every third scalar r - 1");
            hpr_ctx_destroy(ctx);
        }
    }
    free_inputs(&in);
    hpr_ctx_destroy(ref);
}
END_TEST

/* The scalars-1 terms (msm_cpu_kernel.sum_points: eight lanes of running sums on the avx512
 * tier, 128 affine lanes batched on adx and portable): every scalar 1, n = 1003 (not a
 * multiple of 8), points random; all equal (the lanes double); P in lane k then -P eight
 * points later (each IFMA lane cancels to infinity and starts again); every fifth at infinity
 * (left out of the lanes); -P 128 finite points after P (an affine lane meets its own
 * negation). Every tier against the naive sum. _i = curve * 5 + pattern */
START_TEST(ones_sums_of_every_tier_equal_the_naive_sum)
{
    const curve_t *c = &curves[_i / 5];
    int pattern = _i % 5;
    size_t n = test_size(c->group == HPR_G2 ? 403 : 1003, 300), ps = c->point_size;
    hpr_ctx *ref = test_cpu_ctx("portable", 2, 0);
    inputs in = make_inputs(ref, c, n, 9100 + (uint64_t)_i, 0);
    unsigned char want[MAXP];
    for (size_t i = 0; i < n; i++) {
        unsigned char *p = in.points + i * ps;
        set_small_scalar(in.scalars + 32 * i, 1);
        if (pattern == 1 && i > 0)
            memcpy(p, in.points, ps);
        else if (pattern == 2 && i % 16 >= 8)
            negate_point(c, p, p - 8 * ps);
        else if (pattern == 3 && i % 5 == 2)
            memset(p, 0, ps);
        else if (pattern == 4 && i % 256 >= 128)
            negate_point(c, p, p - 128 * ps);
    }
    c->naive(want, in.points, in.scalars, n);
    for (int t = 0; t < RT_CPU_TIERS; t++) {
        if (!tier_runs_own_msm(t))
            continue;
        for (unsigned threads = 1; threads <= 2; threads++) {
            hpr_ctx *ctx = test_cpu_ctx(tier_names[t], threads, 0);
            expect_msm(ctx, c, &in, want, NULL, pattern == 0   ? "ones, random points"
                                                : pattern == 1 ? "ones, all points equal"
                                                : pattern == 2 ? "ones, -P eight points after P"
                                                : pattern == 3 ? "ones, every fifth point at infinity"
                                                               : "ones, -P 128 points after P");
            hpr_ctx_destroy(ctx);
        }
    }
    free_inputs(&in);
    hpr_ctx_destroy(ref);
}
END_TEST

/* The fixed-base sums (msm_cpu_kernel.fixed_base_sums: eight scalars in the lanes on the
 * avx512 tier) of FB_N scalars over a table of FB_WINDOWS x FB_HALF random points, in which
 * T[half] and T[2 half + 1] equal T[0]. Digits by scalar i % 6: random; 1, 1 (the lane
 * doubles T[0]) then random; 1, -1 (the lane cancels to infinity) then random; all 0; 1, -1
 * and nothing after (ends at infinity); -half in every window. Every tier's sums, normalised,
 * against the naive sum of the terms (scalars 1 and r - 1). _i = curve */
#define FB_N 29 /* not a multiple of 8 */
#define FB_WINDOWS 5
#define FB_HALF 4
START_TEST(fixed_base_sums_of_every_tier_equal_the_naive_sum)
{
    const curve_t *c = &curves[_i];
    const msm_curve_ops *ops = msm_ops(c->curve, c->group);
    size_t ps = c->point_size, entries = FB_WINDOWS * FB_HALF;
    hpr_ctx *ref = test_cpu_ctx("portable", 1, 0);
    inputs tab = make_inputs(ref, c, entries, 9300 + (uint64_t)_i, 0);
    int16_t digits[FB_N * FB_WINDOWS];
    unsigned char terms[FB_WINDOWS * MAXP], ks[FB_WINDOWS * 32], want[FB_N][MAXP], got[MAXP];
    uint32_t index[FB_WINDOWS * FB_HALF];
    uint64_t r_minus_1[4];
    test_rng rng;
    test_rng_init(&rng, 9400 + (uint64_t)_i);
    memcpy(r_minus_1, c->order, sizeof r_minus_1);
    r_minus_1[0] -= 1;
    memcpy(tab.points + FB_HALF * ps, tab.points, ps);
    memcpy(tab.points + (2 * FB_HALF + 1) * ps, tab.points, ps);
    for (size_t i = 0; i < entries; i++)
        index[i] = (uint32_t)i;
    for (size_t i = 0; i < FB_N; i++) {
        int16_t *d = digits + i * FB_WINDOWS;
        size_t m = 0;
        for (unsigned j = 0; j < FB_WINDOWS; j++)
            d[j] = (int16_t)((int)(test_rng_next(&rng) % (2 * FB_HALF + 1)) - FB_HALF);
        if (i % 6 == 1 || i % 6 == 2 || i % 6 == 4) {
            d[0] = 1;
            d[1] = i % 6 == 1 ? 1 : -1;
        }
        if (i % 6 == 3 || i % 6 == 4)
            memset(d + (i % 6 == 4 ? 2 : 0), 0, (FB_WINDOWS - (i % 6 == 4 ? 2 : 0)) * sizeof *d);
        if (i % 6 == 5)
            for (unsigned j = 0; j < FB_WINDOWS; j++)
                d[j] = -FB_HALF;
        for (unsigned j = 0; j < FB_WINDOWS; j++) {
            if (d[j] == 0)
                continue;
            memcpy(terms + m * ps, tab.points + (j * FB_HALF + (size_t)abs(d[j]) - 1) * ps, ps);
            if (d[j] > 0)
                set_small_scalar(ks + 32 * m, 1);
            else
                set_scalar(ks + 32 * m, r_minus_1);
            m++;
        }
        c->naive(want[i], terms, ks, m);
    }
    for (int t = 0; t < RT_CPU_TIERS; t++) {
        if (!tier_runs_own_msm(t))
            continue;
        const msm_cpu_kernel *k = ops->tiers->kernels[t];
        void *table = tab.points, *prepared = NULL, *sums = malloc(FB_N * ops->xyzz_size);
        if (k->prepared_size) {
            prepared = malloc(entries * k->prepared_size);
            k->prepare_points(prepared, tab.points, index, 0, entries);
            table = prepared;
        }
        k->fixed_base_sums(sums, table, FB_HALF, digits, FB_WINDOWS, FB_N);
        for (size_t i = 0; i < FB_N; i++) {
            ops->encode_xyzz(got, (unsigned char *)sums + i * ops->xyzz_size);
            assert_seeded(memcmp(got, want[i], ps) == 0, "%s %s: fixed-base sum %zu (digit pattern %zu) differs "
                          "from the naive sum", c->name, tier_names[t], i, i % 6);
        }
        free(prepared);
        free(sums);
    }
    free_inputs(&tab);
    hpr_ctx_destroy(ref);
}
END_TEST
#undef FB_N
#undef FB_WINDOWS
#undef FB_HALF

/* ---- G2 points whose y has a zero component (scripts/g2_zero_component_points.py) ---- */

/* [curve: BN254, BLS12-381][zero component: y.c0, y.c1], interchange bytes. */
static const char *const zero_component_points[2][2] = {
    {
        "\xe8\xfc\xa8\xbf\xe2\x20\xe5\x59\x25\x45\x79\x69\x6c\x2e\x1a\x20\x10\x12\x71\xfb\xcd\xb6\xbd\x14"
        "\x2b\x8c\xdb\xe0\x2a\x53\x0d\x20\x8b\xf6\x3e\x35\xb8\xd9\x2e\xe2\xf4\xb8\xcf\x8c\x9b\xd1\x44\x69"
        "\x4b\x7c\x0b\x4e\x97\x12\xf9\x9e\x8a\xca\x0e\x3e\xf1\x0c\x47\x03\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        "\xd4\x5c\x82\x97\xab\xad\x91\xae\xd4\x02\x90\x07\x9b\xe8\x66\xf9\x12\x76\xf6\x49\x86\x55\x5a\x51"
        "\x2b\x5f\xb5\xb7\xa8\xca\x5d\x12",
        "\x00\x56\xc2\x80\x75\x89\xae\xce\xfb\x7b\xd1\xf3\x55\xac\x6d\xc3\xc6\x74\x67\x01\x5b\x86\x70\xf8"
        "\x50\x2f\x1e\xae\x09\xee\xfd\x07\x2b\xa2\xab\x7e\xa1\x13\xae\x5d\xc1\x61\x17\x7b\x5e\x41\xe0\xda"
        "\x72\x02\xa7\xa9\xb7\x5b\x6e\xeb\xcc\x8c\x19\xbc\x19\xb5\x92\x0f\x13\xce\xbb\x44\xcc\x88\x4c\x3e"
        "\x41\x83\x5e\xaa\xc1\xb1\x43\xd7\x3e\x75\x93\xab\x07\x50\x3a\xfb\xe7\x4f\xd5\x8b\xb3\x94\x31\x0b"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\x00\x00\x00\x00\x00\x00\x00",
    },
    {
        "\x85\xee\x22\xed\xac\x11\x37\x85\x44\xae\xbf\xd8\xdd\x9a\xce\x74\x2a\xdb\x91\x65\x40\x95\xaa\xe1"
        "\xbe\x40\xaa\xd5\x15\x58\xee\xc7\x08\xf9\xa7\x14\x1b\xb0\xa6\x5a\x6c\x2e\x71\xce\xfc\xc7\xfb\x0c"
        "\x12\xb3\x7b\x4f\xf2\xfa\x96\xea\x26\xb5\xdc\x36\x06\xe7\xba\x6c\x6a\x83\xe9\x05\xce\x3a\x80\x93"
        "\xfa\xd6\xbd\x73\xc3\xff\x68\x00\xfd\x7d\x2d\x3a\x74\xee\x61\xc4\x27\x23\xff\x0c\x8d\x00\xbc\x14"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x1d\x7f\x12\x81\xe2\x2c\xc3\xf7\xa0\x97\x2a\x2f\x47\x24\xab\x24\x20\x49\x8b\xee\xb6\x77\x6b\x29"
        "\xda\xa2\x41\x84\xc9\x84\xb2\x2c\x17\xe4\xab\x4d\x0a\xce\xe5\xa0\x5e\x7c\x39\xa8\x63\x5e\xec\x11",
        "\x65\x08\xd5\x74\xe5\x8d\xc2\xba\xef\xbc\xaf\x2b\xe2\x68\x26\x66\x86\xfc\x9f\xa0\x25\x57\x79\x87"
        "\x07\x1a\xb7\xcb\x82\x3c\xe2\x79\x23\x6b\x0d\xf6\xfa\xec\xd2\x74\x23\x5e\xeb\x19\x28\x2d\xf0\x0b"
        "\xd1\x8e\xde\x14\x3c\x2b\x0f\xd2\x5f\x44\xfd\x5c\xfb\x22\xcb\x83\xb7\x25\x56\x87\xa5\x1a\xa1\x38"
        "\xf4\x4b\x7b\x7a\xc2\x38\xb9\x23\xb8\x5d\x4d\xeb\x1b\x68\xac\xc5\x81\x66\x0c\xd5\xe3\x47\x26\x08"
        "\x40\x2e\x25\x6e\xf4\x5a\x06\x20\x63\x96\xdd\x9c\x78\x93\xfb\x6e\xf7\xfe\x43\x5f\x7e\xc1\xe5\x8b"
        "\xc3\xb4\x23\xb0\x4b\xcf\x8a\xb0\x1e\xc5\xb9\xc9\x63\x17\x36\x5a\x6b\x34\xf6\x1b\xa5\xdc\xab\x04"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00"
        "\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00",
    },
};

/* Mostly that point Z, some -Z, the rest random, under random, zero, one and r - 1 scalars:
 * buckets double (P = B) and cancel (P = -B) on a y with a zero component, both signs. Every
 * tier equals the portable tier, and the naive sum at 64 points. _i = curve (G2) * 2 + zero
 * component. */
START_TEST(g2_points_with_a_zero_y_component)
{
    const curve_t *c = &curves[2 + _i / 2];
    const unsigned char *z = (const unsigned char *)zero_component_points[_i / 2][_i % 2];
    hpr_ctx *ref = test_cpu_ctx("portable", 2, 0);
    unsigned char neg_z[MAXP], five_z[MAXP], five[32];
    set_small_scalar(five, 5);
    /* on the curve (hpr_msm checks that; Z is outside the subgroup, which it does not check) */
    ck_assert_int_eq(hpr_msm(ref, c->curve, c->group, z, five, 1, five_z), HPR_OK);
    negate_point(c, neg_z, z);
    const size_t sizes[] = {64, 3000};
    for (int s = 0; s < (int)test_size(2, 1); s++) {
        size_t n = sizes[s];
        test_rng rng;
        test_rng_init(&rng, 7600 + 4 * (uint64_t)_i + (uint64_t)s);
        inputs in = make_inputs(ref, c, n, 7700 + 4 * (uint64_t)_i + (uint64_t)s, EDGE_ZEROS | EDGE_ONES | EDGE_R_MINUS_1);
        for (size_t i = 0; i < n; i++) {
            unsigned pick = (unsigned)(test_rng_next(&rng) % 8);
            if (pick < 5)
                memcpy(in.points + i * c->point_size, z, c->point_size);
            else if (pick < 7)
                memcpy(in.points + i * c->point_size, neg_z, c->point_size);
        }
        unsigned char want[MAXP];
        reference_msm(ref, c, &in, 64, want);
        for (int t = 0; t < RT_CPU_TIERS; t++) {
            if (!tier_runs_own_msm(t))
                continue;
            hpr_ctx *ctx = test_cpu_ctx(tier_names[t], 2, 0);
            hpr_msm_opts crowded = {sizeof crowded, 4, 0, 0, NULL};
            expect_msm(ctx, c, &in, want, NULL, "zero y component");
            expect_msm(ctx, c, &in, want, &crowded, "zero y component, 4-bit windows");
            hpr_ctx_destroy(ctx);
        }
        free_inputs(&in);
    }
    hpr_ctx_destroy(ref);
}
END_TEST

/* ---- bad points: every tier reports the same first bad point and kind, in place or not ---- */

/* _i = curve */
START_TEST(every_tier_reports_the_same_bad_point)
{
    const curve_t *c = &curves[_i];
    hpr_ctx *ref = test_cpu_ctx("portable", 1, 0);
    test_rng rng;
    test_rng_init(&rng, 7000 + (uint64_t)_i);
    inputs in = make_inputs(ref, c, test_size(5000, 300), 7100 + (uint64_t)_i, EDGE_INFINITY);
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
        hpr_status want = hpr_msm(ref, c->curve, c->group, in.points, in.scalars, in.n, out);
        char want_detail[256];
        snprintf(want_detail, sizeof want_detail, "%s", hpr_ctx_error_detail(ref));
        ck_assert(want == HPR_ERR_POINT_NOT_ON_CURVE || want == HPR_ERR_COORDINATE_OUT_OF_RANGE);
        char index_text[32];
        snprintf(index_text, sizeof index_text, "point %zu ", first);
        assert_seeded(strstr(want_detail, index_text) != NULL, "want %s in '%s'", index_text, want_detail);
        memcpy(shifted + 8 - 3, in.points, in.n * c->point_size); /* unaligned copy: the decoding path */
        for (int t = 0; t < RT_CPU_TIERS; t++) {
            if (!tier_runs_own_msm(t))
                continue;
            hpr_ctx *ctx = test_cpu_ctx(tier_names[t], 2, 0);
            const unsigned char *sources[2] = {in.points, shifted + 8 - 3};
            for (int src = 0; src < 2; src++) {
                ck_assert_int_eq(hpr_msm(ctx, c->curve, c->group, sources[src], in.scalars, in.n, out), want);
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
    hpr_config cfg = {.struct_size = sizeof cfg};
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
    if (f.avx512ifma && f.avx512f && f.adx && f.bmi2 && msm_g1_ops(HPR_CURVE_BN254)->tiers->kernels[RT_CPU_AVX512])
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

/* The avx2 tier has no MSM kernels of its own: an avx2 context runs the adx tier's, every
 * curve and group, and gets the portable bits. */
START_TEST(avx2_tier_msm_runs_the_adx_kernels)
{
    if (!test_tier_runs(RT_CPU_AVX2))
        return;
    hpr_ctx *ref = test_cpu_ctx("portable", 1, 0), *ctx = test_cpu_ctx("avx2", 2, 0);
    for (size_t k = 0; k < sizeof curves / sizeof curves[0]; k++) {
        const curve_t *c = &curves[k];
        const msm_curve_ops *ops = msm_ops(c->curve, c->group);
        unsigned char want[MAXP];
        ck_assert_ptr_null(ops->tiers->kernels[RT_CPU_AVX2]);
        ck_assert_ptr_eq(msm_kernel_for(ops, RT_CPU_AVX2), ops->tiers->kernels[RT_CPU_ADX]);
        inputs in = make_inputs(ref, c, 700, 7400 + (uint64_t)k, EDGE_ZEROS | EDGE_ONES | EDGE_R_MINUS_1);
        ck_assert_int_eq(hpr_msm(ref, c->curve, c->group, in.points, in.scalars, in.n, want), HPR_OK);
        expect_msm(ctx, c, &in, want, NULL, "avx2");
        free_inputs(&in);
    }
    hpr_ctx_destroy(ctx);
    hpr_ctx_destroy(ref);
}
END_TEST

/* ---- pieces of the window grid (what the hybrid scheduler deals) ---- */

/* One random cover of the grid: windows in random runs; a run is either whole windows over
 * all points, or one window cut at random point boundaries. Returns the sum (XYZZ). */
static void sum_random_pieces(hpr_ctx *ctx, msm_cpu_job *job, const msm_curve_ops *ops, size_t n, test_rng *rng,
                              uint64_t *acc)
{
    uint64_t piece[MSM_MAX_XYZZ_BYTES / 8];
    unsigned windows = msm_cpu_job_windows(job);
    ops->xyzz_set_inf(acc);
    for (unsigned w = 0; w < windows;) {
        unsigned run = 1 + (unsigned)(test_rng_next(rng) % 3);
        if (run > windows - w)
            run = windows - w;
        if (test_rng_next(rng) % 2) {
            ck_assert_int_eq(msm_cpu_job_run(ctx, job, w, w + run, 0, n, piece), HPR_OK);
            ops->xyzz_add(acc, acc, piece);
            w += run;
            continue;
        }
        for (size_t p0 = 0; p0 < n;) {
            size_t p1 = p0 + 1 + test_rng_next(rng) % (n / 3 + 1);
            p1 = p1 < n ? p1 : n;
            ck_assert_int_eq(msm_cpu_job_run(ctx, job, w, w + 1, p0, p1, piece), HPR_OK);
            ops->xyzz_add(acc, acc, piece);
            p0 = p1;
        }
        w++;
    }
}

/* Random covers of (windows x points) by pieces, every tier, random window sizes and the
 * edge matrix (the ones belong to window 0's pieces), in every other case with a random run
 * of windows' digits formed before the pieces (msm_cpu_job_form_digits): the sum is the MSM.
 * _i = curve */
START_TEST(pieces_of_the_window_grid_add_up_to_the_msm)
{
    const curve_t *c = &curves[_i];
    const msm_curve_ops *ops = msm_ops(c->curve, c->group);
    test_rng rng;
    test_rng_init(&rng, 7100 + (uint64_t)_i);
    hpr_ctx *ref = test_cpu_ctx("portable", 2, 0);
    for (size_t e = 0; e < sizeof edge_sets / sizeof edge_sets[0]; e++) {
        size_t n = 1 + test_rng_next(&rng) % test_size(c->group == HPR_G2 ? 1000 : 3000, 100);
        unsigned char want[MAXP], got[MAXP];
        uint64_t acc[MSM_MAX_XYZZ_BYTES / 8];
        inputs in = make_inputs(ref, c, n, 7200 + 16 * (uint64_t)_i + e, edge_sets[e]);
        ck_assert_int_eq(hpr_msm(ref, c->curve, c->group, in.points, in.scalars, n, want), HPR_OK);
        for (int t = 0; t < RT_CPU_TIERS; t++) {
            if (!tier_runs_own_msm(t))
                continue;
            hpr_ctx *ctx = test_cpu_ctx(tier_names[t], 1 + (unsigned)(e % 2), 0);
            hpr_msm_opts opts = {sizeof opts, (unsigned)(2 + test_rng_next(&rng) % test_size(13, 7)), 0, 0, NULL};
            msm_cpu_job *job;
            ck_assert_int_eq(msm_cpu_job_prepare(ctx, ops, in.points, 0, in.scalars, n, &opts, &job), HPR_OK);
            unsigned windows = msm_cpu_job_windows(job), w0 = (unsigned)(test_rng_next(&rng) % windows);
            if (e % 2) /* some windows' digits formed ahead (a cluster rank's expected windows) */
                msm_cpu_job_form_digits(job, w0, w0 + 1 + (unsigned)(test_rng_next(&rng) % (windows - w0)));
            sum_random_pieces(ctx, job, ops, n, &rng, acc);
            ops->encode_xyzz(got, acc);
            ck_assert_msg(memcmp(got, want, c->point_size) == 0, "%s tier %s: n %zu, c %u, edges %u: pieces differ",
                          c->name, tier_names[t], n, opts.window_bits, edge_sets[e]);
            msm_cpu_job_free(job);
            hpr_ctx_destroy(ctx);
        }
        free_inputs(&in);
    }
    hpr_ctx_destroy(ref);
}
END_TEST

/* msm_digits against the Booth digit's definition, bit by bit: window w (at = w c, width =
 * min(c, top - at)) is the width bits from at, plus the bit below (none for w = 0), minus
 * 2^width times its top bit; no bit at or above top is read (the scalars' limbs are random
 * in all 256 bits). Every c the kernels use, tops of the curves, of precomputed slices and
 * random ones, through an index that jumps. */
static int booth_bit(const uint64_t *l, unsigned j)
{
    return (int)(l[j / 64] >> (j % 64) & 1);
}

START_TEST(digits_follow_the_booth_definition)
{
    enum { N = 301 };
    test_rng rng;
    test_rng_init(&rng, 7900);
    msm_scalar *k = malloc(N * sizeof *k);
    uint32_t index[N];
    int16_t *digits = malloc((size_t)256 * N * sizeof *digits);
    ck_assert(k && digits);
    for (size_t i = 0; i < N; i++) {
        for (int j = 0; j < 4; j++)
            k[i].l[j] = test_rng_next(&rng);
        index[i] = (uint32_t)(i * 7 % N);
    }
    static const unsigned tops[] = {255, 256, 254, 1, 2, 64, 65, 128, 129, 192, 193};
    for (unsigned t = 0; t < sizeof tops / sizeof tops[0] + 8; t++) {
        unsigned top = t < sizeof tops / sizeof tops[0] ? tops[t] : 1 + (unsigned)(test_rng_next(&rng) % 256);
        for (unsigned c = 1; c <= 15; c++) {
            unsigned windows = (top + c - 1) / c, w0 = (unsigned)(test_rng_next(&rng) % windows);
            msm_digits(digits, N, k, index, 3, N - 2, w0, windows, c, top);
            for (unsigned w = w0; w < windows; w++)
                for (size_t i = 3; i < N - 2; i++) {
                    const uint64_t *l = k[index[i]].l;
                    unsigned at = w * c, width = top - at < c ? top - at : c;
                    int want = at > 0 ? booth_bit(l, at - 1) : 0;
                    for (unsigned j = 0; j < width; j++)
                        want += booth_bit(l, at + j) << j;
                    want -= booth_bit(l, at + width - 1) << width;
                    ck_assert_msg(digits[(size_t)w * N + i] == want, "top %u, c %u, window %u, scalar %zu: digit %d, want %d",
                                  top, c, w, i, digits[(size_t)w * N + i], want);
                }
        }
    }
    free(k);
    free(digits);
}
END_TEST

/* The fallback chains, checked on every build (an x86-64 build has avx512 kernels that a neon
 * context must not reach, an AArch64 build neon NTT kernels that the x86 tiers must not). */
START_TEST(tiers_fall_back_within_their_architecture)
{
    ck_assert_int_eq(rt_cpu_tier_fallback(RT_CPU_AVX512), RT_CPU_AVX2);
    ck_assert_int_eq(rt_cpu_tier_fallback(RT_CPU_AVX2), RT_CPU_ADX);
    ck_assert_int_eq(rt_cpu_tier_fallback(RT_CPU_ADX), RT_CPU_PORTABLE);
    ck_assert_int_eq(rt_cpu_tier_fallback(RT_CPU_NEON), RT_CPU_PORTABLE);
    ck_assert_int_eq(rt_cpu_tier_fallback(RT_CPU_PORTABLE), RT_CPU_PORTABLE);
    for (size_t k = 0; k < sizeof curves / sizeof curves[0]; k++) {
        const msm_curve_ops *ops = msm_ops(curves[k].curve, curves[k].group);
        ck_assert_ptr_null(ops->tiers->kernels[RT_CPU_NEON]);
        ck_assert_ptr_eq(msm_kernel_for(ops, RT_CPU_NEON), ops->tiers->kernels[RT_CPU_PORTABLE]);
        ck_assert_str_eq(msm_kernel_for(ops, RT_CPU_NEON)->tier, "portable");
    }
    for (int field = 1; field <= 5; field++) {
        const ntt_field_ops *neon = ntt_field_ops_for(field, RT_CPU_NEON);
        ck_assert_ptr_nonnull(neon);
        if (field <= 3) /* the 256-bit fields and Goldilocks: the portable kernels */
            ck_assert_ptr_eq(neon, ntt_field_ops_for(field, RT_CPU_PORTABLE));
        for (int t = RT_CPU_ADX; t <= RT_CPU_AVX512; t++) {
            const ntt_field_ops *x86 = ntt_field_ops_for(field, (rt_cpu_tier)t);
            ck_assert(x86 == ntt_field_ops_for(field, RT_CPU_PORTABLE) || x86 != neon);
        }
    }
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("cpu_tiers");
    TCase *tc = tcase_create("tiers");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, field_arithmetic_matches_gmp, 0, 4 * RT_CPU_TIERS);
    tcase_add_loop_test(tc, msm_of_every_tier_equals_portable, 0, 24);
    tcase_add_loop_test(tc, crowded_buckets_beside_busy_batches, 0, 4);
    tcase_add_loop_test(tc, ones_sums_of_every_tier_equal_the_naive_sum, 0, 20);
    tcase_add_loop_test(tc, fixed_base_sums_of_every_tier_equal_the_naive_sum, 0, 4);
    tcase_add_loop_test(tc, g2_points_with_a_zero_y_component, 0, 4);
    tcase_add_loop_test(tc, every_tier_reports_the_same_bad_point, 0, 4);
    tcase_add_test(tc, digits_follow_the_booth_definition);
    tcase_add_loop_test(tc, pieces_of_the_window_grid_add_up_to_the_msm, 0, 4);
    tcase_add_test(tc, dispatch_picks_the_fastest_and_honours_requests);
    tcase_add_test(tc, avx2_tier_msm_runs_the_adx_kernels);
    tcase_add_test(tc, tiers_fall_back_within_their_architecture);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
