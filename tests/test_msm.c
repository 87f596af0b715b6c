/*
 * test_msm.c: hpr_msm against a naive double-and-add sum, G1 and G2 of both curves: sizes
 * 0..4099 (G2: up to 1000 on the portable tier, 64 on the others; its naive sum is slow), the
 * edge matrix (zero scalars, 1, r-1, all-equal points, P beside -P, infinity), every window
 * size 1..16, 1 and 2 threads, arbitrary tilings, and the rejection of bad inputs.
 */
#include "test_support.h"
#include "msm_test_inputs.h"

static hpr_ctx *make_ctx(unsigned threads)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.threads = threads;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    return ctx;
}

/* The run's tier is the portable one (HPR_CPU=portable; unset, the fastest is used). */
static int portable_tier(void)
{
    const char *tier = getenv("HPR_CPU");
    return tier && strcmp(tier, "portable") == 0;
}

static const size_t sizes[] = {0, 1, 2, 3, 7, 64, 1000, 4099};

/* _i = curve * nsizes + size index */
START_TEST(matches_naive_over_sizes_and_edges)
{
    const curve_t *c = &curves[_i / 8];
    size_t n = sizes[_i % 8];
    if (n > test_size(SIZE_MAX, c->group == HPR_G2 ? 7 : 64))
        return; /* reduced sizes */
    if (c->group == HPR_G2 && (n > 1000 || (n > 64 && !portable_tier())))
        return; /* G2's naive sum is slow: sizes up to 1000 (past the buckets of the windows chosen) on
                 * the portable tier; the other tiers' G2 kernels equal it up to 2^16 (test_cpu_tiers) */
    hpr_ctx *ctx = make_ctx(2), *ctx1 = make_ctx(1);
    for (size_t e = 0; e < sizeof edge_sets / sizeof edge_sets[0]; e++) {
        if (n > 1000 && e > 1 && e < 5)
            continue; /* the largest size runs the random and full edge sets only: the naive sum is slow */
        unsigned char want[MAXP];
        inputs in = make_inputs(ctx, c, n, 1000 + 16 * (uint64_t)_i + e, edge_sets[e]);
        c->naive(want, in.points, in.scalars, n);
        expect_msm(ctx, c, &in, want, NULL, "2 threads");
        expect_msm(ctx1, c, &in, want, NULL, "1 thread");
        if (c->group == HPR_G2) { /* the batch-affine windows (c >= 9) on every edge set */
            hpr_msm_opts batch = {sizeof batch, 10, 0, 0, NULL};
            expect_msm(ctx, c, &in, want, &batch, "batch-affine window");
        }
        free_inputs(&in);
    }
    hpr_ctx_destroy(ctx);
    hpr_ctx_destroy(ctx1);
}
END_TEST

START_TEST(every_window_size)
{
    const curve_t *c = &curves[_i];
    hpr_ctx *ctx = make_ctx(2);
    unsigned char want[MAXP];
    inputs in = make_inputs(ctx, c, 70, 2000 + (uint64_t)_i, EDGE_ZEROS | EDGE_ONES | EDGE_R_MINUS_1 | EDGE_NEG_PAIRS);
    c->naive(want, in.points, in.scalars, in.n);
    for (unsigned wb = 1; wb <= (unsigned)test_size(16, 11); wb++) {
        hpr_msm_opts opts = {sizeof opts, wb, 0, 0, NULL};
        expect_msm(ctx, c, &in, want, &opts, "window size");
    }
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(any_tiling_gives_the_same_result)
{
    const curve_t *c = &curves[_i];
    hpr_ctx *ctx = make_ctx(2);
    unsigned char want[MAXP];
    test_rng rng;
    test_rng_init(&rng, 3000 + (uint64_t)_i);
    inputs in = make_inputs(ctx, c, test_size(777, 100), 3100 + (uint64_t)_i, EDGE_ZEROS | EDGE_ONES);
    c->naive(want, in.points, in.scalars, in.n);
    for (int t = 0; t < (int)test_size(24, 6); t++) {
        hpr_msm_opts opts = {sizeof opts, (unsigned)(1 + test_rng_next(&rng) % test_size(12, 8)),
                             (unsigned)(1 + test_rng_next(&rng) % 40),
                             (unsigned)(1 + test_rng_next(&rng) % 9), NULL};
        expect_msm(ctx, c, &in, want, &opts, "tiling");
    }
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(rejects_bad_inputs)
{
    const curve_t *c = &curves[_i];
    hpr_ctx *ctx = make_ctx(2);
    unsigned char out[MAXP];
    inputs in = make_inputs(ctx, c, 100, 4000 + (uint64_t)_i, 0);
    /* scalar == r at index 42 */
    uint64_t k[4];
    unsigned char saved[32];
    memcpy(saved, in.scalars + 32 * 42, 32);
    memcpy(k, c->order, sizeof k);
    set_scalar(in.scalars + 32 * 42, k);
    ck_assert_int_eq(hpr_msm(ctx, c->curve, c->group, in.points, in.scalars, in.n, out), HPR_ERR_SCALAR_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "scalar 42") != NULL, "detail: %s", hpr_ctx_error_detail(ctx));
    memset(in.scalars + 32 * 42, 0xff, 32); /* 2^256 - 1 */
    ck_assert_int_eq(hpr_msm(ctx, c->curve, c->group, in.points, in.scalars, in.n, out), HPR_ERR_SCALAR_OUT_OF_RANGE);
    memcpy(in.scalars + 32 * 42, saved, 32);
    /* point 57 off the curve */
    in.points[57 * c->point_size + 3] ^= 0x10;
    ck_assert_int_eq(hpr_msm(ctx, c->curve, c->group, in.points, in.scalars, in.n, out), HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 57") != NULL, "detail: %s", hpr_ctx_error_detail(ctx));
    /* point 57 with x >= p */
    memset(in.points + 57 * c->point_size, 0xff, c->point_size / 2);
    ck_assert_int_eq(hpr_msm(ctx, c->curve, c->group, in.points, in.scalars, in.n, out), HPR_ERR_COORDINATE_OUT_OF_RANGE);
    /* arguments */
    ck_assert_int_eq(hpr_msm(ctx, c->curve, (hpr_group)3, in.points, in.scalars, in.n, out), HPR_ERR_UNSUPPORTED_GROUP);
    ck_assert_int_eq(hpr_msm(ctx, (hpr_curve)7, c->group, in.points, in.scalars, in.n, out), HPR_ERR_UNSUPPORTED_CURVE);
    ck_assert_int_eq(hpr_msm(ctx, c->curve, c->group, NULL, in.scalars, in.n, out), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm(ctx, c->curve, c->group, in.points, in.scalars, in.n, NULL), HPR_ERR_INVALID_ARGUMENT);
    hpr_msm_opts opts = {sizeof opts, 21, 0, 0, NULL};
    ck_assert_int_eq(hpr_msm_ex(ctx, c->curve, c->group, in.points, in.scalars, in.n, out, &opts), HPR_ERR_INVALID_ARGUMENT);
    /* n = 0 is the point at infinity */
    unsigned char zero[MAXP] = {0};
    ck_assert_int_eq(hpr_msm(ctx, c->curve, c->group, NULL, NULL, 0, out), HPR_OK);
    ck_assert(memcmp(out, zero, c->point_size) == 0);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(random_inputs_are_deterministic_and_valid)
{
    const curve_t *c = &curves[_i];
    hpr_ctx *ctx1 = make_ctx(1), *ctx2 = make_ctx(2);
    size_t n = 2500;
    unsigned char *p1 = malloc(n * c->point_size), *p2 = malloc(n * c->point_size), *s1 = malloc(32 * n), *s2 = malloc(32 * n);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx1, c->curve, c->group, n, 99, p1, s1), HPR_OK);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx2, c->curve, c->group, n, 99, p2, s2), HPR_OK);
    ck_assert(memcmp(p1, p2, n * c->point_size) == 0 && memcmp(s1, s2, 32 * n) == 0);
    for (size_t i = 0; i < n; i += 97)
        ck_assert_int_eq(hpr_point_check(ctx1, c->curve, c->group, p1 + i * c->point_size), HPR_OK);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx2, c->curve, c->group, n, 100, p2, s2), HPR_OK);
    ck_assert(memcmp(p1, p2, c->point_size) != 0 && memcmp(s1, s2, 32) != 0);
    free(p1), free(p2), free(s1), free(s2);
    hpr_ctx_destroy(ctx1);
    hpr_ctx_destroy(ctx2);
}
END_TEST

/* msm_digit_bucket (the OpenCL kernels' bucket index, written without a negation so that no
 * compiler makes it llvm.abs) is |d| - 1 over every digit of the largest window. */
START_TEST(digit_bucket_is_magnitude_minus_one)
{
    const int half = 1 << (MSM_IMPL_MAX_WINDOW_BITS - 1);
    for (int d = -half; d <= half; d++)
        if (d != 0)
            ck_assert_uint_eq(msm_digit_bucket(d), (unsigned)(d > 0 ? d : -d) - 1);
}
END_TEST

START_TEST(context_and_status_api)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.devices = "cl:9.9";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_ERR_UNKNOWN_DEVICE);
    ck_assert_ptr_null(ctx);
    cfg.devices = "cpu";
    cfg.threads = 3;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    ck_assert_uint_eq(hpr_ctx_threads(ctx), 3);
    hpr_ctx_destroy(ctx);
    ck_assert_int_eq(hpr_ctx_create(NULL, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_str_eq(hpr_status_str(HPR_OK), "ok");
    ck_assert_str_eq(hpr_status_str((hpr_status)12345), "unknown status");
    ck_assert_uint_eq(hpr_point_size(HPR_CURVE_BN254, HPR_G1), 64);
    ck_assert_uint_eq(hpr_point_size(HPR_CURVE_BLS12_381, HPR_G1), 96);
    ck_assert_uint_eq(hpr_point_size(HPR_CURVE_BN254, HPR_G2), 128);
    ck_assert_uint_eq(hpr_point_size(HPR_CURVE_BLS12_381, HPR_G2), 192);
    ck_assert_uint_eq(hpr_point_size(HPR_CURVE_BN254, (hpr_group)3), 0);
}
END_TEST

int main(void)
{
    const char *tier = getenv("HPR_CPU"), *why;
    if (tier && hpr_cpu_tier_check(tier, &why) != HPR_OK) {
        if (test_required(tier)) {
            printf("HPR_CPU=%s is required here (HPR_CI_REQUIRE) but cannot run: %s\n", tier, why);
            return 1;
        }
        printf("HPR_CPU=%s cannot run here (%s): skipped\n", tier, why);
        return 77; /* ctest: skipped */
    }
    if (tier)
        printf("CPU tier forced by HPR_CPU: %s\n", tier);
    test_seed_init();
    Suite *s = suite_create("msm");
    TCase *tc = tcase_create("cpu");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, matches_naive_over_sizes_and_edges, 0, 32);
    tcase_add_loop_test(tc, every_window_size, 0, 4);
    tcase_add_loop_test(tc, any_tiling_gives_the_same_result, 0, 4);
    tcase_add_loop_test(tc, rejects_bad_inputs, 0, 4);
    tcase_add_loop_test(tc, random_inputs_are_deterministic_and_valid, 0, 4);
    tcase_add_test(tc, context_and_status_api);
    tcase_add_test(tc, digit_bucket_is_magnitude_minus_one);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
