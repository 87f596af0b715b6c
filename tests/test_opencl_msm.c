/*
 * test_opencl_msm.c: the MSM on the first OpenCL device (POCL's CPU device in CI) against the
 * CPU: the edge matrix (and the naive sum up to 64 points), random sizes up to 2^14 and window
 * sizes, 32-bit words (HPR_CL_WORDS=limb32), chunking forced by a small maximum allocation
 * (HPR_CL_MAX_ALLOC: the first bad point named by its global index), scalars >= r refused
 * before the device, and a device that fails every call (HPR_CL_INJECT_FAULT): reported,
 * marked unusable, the CPU redoes the work. The edge matrix, random sizes and chunking run
 * with both kernels (HPR_CL_MSM=owner|sorted: loop index / 2), and the sorted kernels also
 * with crowded buckets (all scalars equal; a third 0, a third 1) split over many bucket-sum
 * items (HPR_CL_MSM_ITEMS), so the carry levels run, and its segment tree at every depth. Resident bases (hpr_bases): sent once
 * and checked once per device, then only scalars (counted by hpr_device_get_info's
 * bytes_sent), with slabs smaller than a chunk so that chunks are cut at slab ends, the same
 * bits as the CPU, released by hpr_bases_destroy and safe after hpr_ctx_destroy. G2 on the
 * device (the same kernels over Fq2): the edge matrix against the CPU and the naive sum,
 * chunking with the first bad point's global index, and resident G2 bases, both kernels. Bit
 * slices (cl_msm_slice, the hybrid's pieces at the device's own window size) against the CPU's
 * MSM of the scalars the slice stands for, computed with GMP. Scalars already in a device
 * buffer (cl_msm_device_scalars), chunked: the CPU's bits, only the points sent.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "opencl_support.h"
#include "msm_test_inputs.h"

#include "host/core/devices.h"
#include "host/msm/msm_devices.h"
#include "host/msm/msm_engine.h"
#include "runtime/opencl/cl_msm.h"

#include <gmp.h>
#include <string.h>

static void expect_device_msm(hpr_ctx *ctx, const curve_t *c, const inputs *in, const char *what)
{
    unsigned char want[MAXP];
    ocl_cpu_msm_group(c->curve, c->group, in->points, in->scalars, in->n, want);
    expect_msm(ctx, c, in, want, NULL, what);
    assert_seeded(hpr_ctx_notice(ctx)[0] == '\0', "%s: the device was not used: %s", what, hpr_ctx_notice(ctx));
}

static const char *const kernels[] = {"owner", "sorted"};

/* Loop index i: curve i % 2, kernel i / 2. */
static const curve_t *curve_and_kernel(int i)
{
    setenv("HPR_CL_MSM", kernels[i / 2], 1);
    return &curves[i % 2];
}

/* Every edge set at every size on the device of ctx (id) against the CPU, and against the
 * naive sum up to 64 points; seeds from seed0. */
static void edge_matrix(hpr_ctx *ctx, const curve_t *c, const char *id, const char *kernel, const size_t *sizes,
                        size_t nsizes, uint64_t seed0)
{
    for (size_t s = 0; s < nsizes; s++)
        for (size_t e = 0; e < sizeof edge_sets / sizeof edge_sets[0]; e++) {
            inputs in = make_inputs(ctx, c, sizes[s], seed0 + 10 * s + e, edge_sets[e]);
            char what[64];
            snprintf(what, sizeof what, "%s %s edges %u", id, kernel, edge_sets[e]);
            expect_device_msm(ctx, c, &in, what);
            if (sizes[s] <= 64) {
                unsigned char naive[MAXP];
                c->naive(naive, in.points, in.scalars, in.n);
                expect_msm(ctx, c, &in, naive, NULL, "vs naive");
            }
            free_inputs(&in);
        }
}

START_TEST(msm_edge_matrix_matches_the_cpu)
{
    const curve_t *c = curve_and_kernel(_i);
    static const size_t sizes[] = {1, 2, 3, 7, 64, 1000};
    char id[16];
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx(id);
    edge_matrix(ctx, c, id, kernels[_i / 2], sizes, sizeof sizes / sizeof sizes[0], 1000);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(msm_random_sizes_and_window_bits_match_the_cpu)
{
    const curve_t *c = curve_and_kernel(_i);
    char id[16];
    test_rng rng;
    test_rng_init(&rng, 200 + (uint64_t)_i);
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx("cpu");
    const size_t n_values[] = {(size_t)(1 + test_rng_next(&rng) % 5000), 1u << 14};
    for (size_t k = 0; k < 2; k++) {
        inputs in = make_inputs(ctx, c, n_values[k], 300 + k, 0);
        unsigned char want[MAXP];
        ocl_cpu_msm(c->curve, in.points, in.scalars, in.n, want);
        for (unsigned t = 0; t < 3; t++) {
            hpr_msm_opts opts = {sizeof opts, t == 0 ? 0 : (unsigned)(1 + test_rng_next(&rng) % 16), 0, 0, id};
            char what[64];
            snprintf(what, sizeof what, "%s %s c=%u", id, kernels[_i / 2], opts.window_bits);
            expect_msm(ctx, c, &in, want, &opts, what);
            assert_seeded(hpr_ctx_notice(ctx)[0] == '\0', "%s: %s", what, hpr_ctx_notice(ctx));
        }
        free_inputs(&in);
    }
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The sorted kernel's segment tree at every depth (cl_msm_sorted.c: a segment holds at most
 * 32 buckets, fan-in 8): c = 6 one segment per window (no tree), 7 two (one level, a partial
 * node), 10 sixteen (two levels), 13 128 (three), 16 1024 (four, log_k doublings up to 9);
 * on few points, so most buckets are empty (infinity through every level). Loop index: curve. */
START_TEST(sorted_kernel_segment_tree_at_every_depth_matches_the_cpu)
{
    const curve_t *c = &curves[_i];
    static const unsigned window_bits[] = {6, 7, 10, 13, 16};
    char id[16];
    setenv("HPR_CL_MSM", "sorted", 1);
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx("cpu");
    inputs in = make_inputs(ctx, c, 3000, 500 + (uint64_t)_i, 0);
    unsigned char want[MAXP];
    ocl_cpu_msm(c->curve, in.points, in.scalars, in.n, want);
    for (size_t t = 0; t < sizeof window_bits / sizeof window_bits[0]; t++) {
        hpr_msm_opts opts = {sizeof opts, window_bits[t], 0, 0, id};
        char what[64];
        snprintf(what, sizeof what, "%s sorted c=%u", id, window_bits[t]);
        expect_msm(ctx, c, &in, want, &opts, what);
        assert_seeded(hpr_ctx_notice(ctx)[0] == '\0', "%s: %s", what, hpr_ctx_notice(ctx));
    }
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(msm_with_32_bit_words_matches_the_cpu)
{
    const curve_t *c = &curves[_i];
    char id[16];
    ocl_first_device(id);
    setenv("HPR_CL_WORDS", "limb32", 1);
    hpr_ctx *ctx = ocl_ctx(id);
    inputs in = make_inputs(ctx, c, 700, 800, 63);
    expect_device_msm(ctx, c, &in, "limb32 words");
    hpr_device_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(hpr_device_prepare(ctx, id, c->curve, &rep), HPR_OK);
    ck_assert_str_eq(rep.words, "limb32");
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(chunked_msm_matches_and_reports_global_indices)
{
    const curve_t *c = curve_and_kernel(_i);
    char id[16], what[64];
    ocl_first_device(id);
    /* chunks of 100 points: 1000 points take 10 chunks on two alternating queues */
    snprintf(what, sizeof what, "%zu", 100 * c->point_size);
    setenv("HPR_CL_MAX_ALLOC", what, 1);
    hpr_ctx *ctx = ocl_ctx(id);
    inputs in = make_inputs(ctx, c, 1000, 400, EDGE_ZEROS | EDGE_INFINITY | EDGE_ONES);
    expect_device_msm(ctx, c, &in, "chunked");
    in.points[c->point_size * 777 + 5] ^= 1; /* off the curve, in chunk 7 */
    in.points[c->point_size * 912 + c->point_size - 1] = 0xff; /* y >= p, in chunk 9 */
    unsigned char got[MAXP];
    ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, in.points, in.scalars, in.n, got), HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 777 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    in.points[c->point_size * 777 + 5] ^= 1;
    ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, in.points, in.scalars, in.n, got), HPR_ERR_COORDINATE_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 912 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* Scalars where one bucket holds most entries: every scalar equal (each window has one full
 * bucket), or a third 0 and a third 1 (Groth16 witnesses). 1024 bucket-sum items per compute
 * unit make spans of a few entries, so each crowded bucket spreads over many items and the
 * carries take several levels. */
START_TEST(sorted_kernel_spreads_crowded_buckets)
{
    const curve_t *c = &curves[_i];
    char id[16];
    setenv("HPR_CL_MSM", "sorted", 1);
    setenv("HPR_CL_MSM_ITEMS", "1024", 1);
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx(id);
    for (int pattern = 0; pattern < 2; pattern++) {
        inputs in = make_inputs(ctx, c, 3000, 900 + (uint64_t)pattern, 0);
        for (size_t i = 0; i < in.n; i++) {
            unsigned char *k = in.scalars + 32 * i;
            if (pattern == 0)
                memcpy(k, in.scalars, 32);
            else if (i % 3 < 2) {
                memset(k, 0, 32);
                k[0] = (unsigned char)(i % 3);
            }
        }
        unsigned char want[MAXP];
        ocl_cpu_msm(c->curve, in.points, in.scalars, in.n, want);
        for (unsigned cbits = 0; cbits <= 16; cbits += 8) {
            hpr_msm_opts opts = {sizeof opts, cbits, 0, 0, id};
            char what[64];
            snprintf(what, sizeof what, "%s crowded pattern %d c=%u", id, pattern, cbits);
            expect_msm(ctx, c, &in, want, &opts, what);
            assert_seeded(hpr_ctx_notice(ctx)[0] == '\0', "%s: %s", what, hpr_ctx_notice(ctx));
        }
        free_inputs(&in);
    }
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(bad_scalars_are_rejected_before_the_device)
{
    const curve_t *c = &curves[_i];
    char id[16];
    unsigned char got[MAXP];
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx(id);
    inputs in = make_inputs(ctx, c, 50, 500, 0);
    memcpy(in.scalars + 32 * 17, c->order, 32); /* r itself */
    ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, in.points, in.scalars, in.n, got), HPR_ERR_SCALAR_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "scalar 17 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* ---- a failing device ---- */

START_TEST(a_failing_device_is_reported_and_the_cpu_redoes_the_work)
{
    const curve_t *c = &curves[_i];
    char id[16];
    ocl_first_device(id);
    setenv("HPR_CL_INJECT_FAULT", id, 1);
    hpr_ctx *ctx = ocl_ctx(id);
    inputs in = make_inputs(ctx, c, 300, 600, EDGE_ONES);
    unsigned char want[MAXP];
    ocl_cpu_msm(c->curve, in.points, in.scalars, in.n, want);
    for (int call = 0; call < 2; call++) {
        expect_msm(ctx, c, &in, want, NULL, "with an injected fault");
        ck_assert_msg(strstr(hpr_ctx_notice(ctx), id) && strstr(hpr_ctx_notice(ctx), "computed on the CPU"), "notice: %s",
                      hpr_ctx_notice(ctx));
    }
    ck_assert_msg(strstr(hpr_ctx_notice(ctx), "unusable") != NULL, "second call: %s", hpr_ctx_notice(ctx));
    hpr_device_info info = {.struct_size = sizeof info};
    ck_assert_int_eq(hpr_device_get_info(ctx, 0, &info), HPR_OK);
    ck_assert_int_eq(info.usable, 0);
    ck_assert_msg(strstr(info.status, "HPR_CL_INJECT_FAULT") != NULL, "%s", info.status);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* One MSM over the first n bases: equal to the CPU's over the same points, and exactly
 * `expect` bytes sent to the device. */
static void expect_bases_msm(hpr_ctx *ctx, const curve_t *c, const hpr_bases *b, const inputs *in, size_t n,
                             const char *id, unsigned long long expect, const char *what)
{
    unsigned char want[MAXP], got[MAXP];
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, id};
    unsigned long long before = ocl_bytes_sent(ctx, NULL);
    ocl_cpu_msm(c->curve, in->points, in->scalars, n, want);
    hpr_status st = hpr_msm_bases(ctx, b, in->scalars, n, got, &opts);
    ck_assert_msg(st == HPR_OK, "%s: %s (%s)", what, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    assert_seeded(hpr_ctx_notice(ctx)[0] == '\0', "%s: the device was not used: %s", what, hpr_ctx_notice(ctx));
    assert_seeded(memcmp(got, want, c->point_size) == 0, "%s: differs from the CPU", what);
    assert_seeded(ocl_bytes_sent(ctx, NULL) - before == expect, "%s: %llu bytes sent, expected %llu", what,
                  ocl_bytes_sent(ctx, NULL) - before, expect);
}

/* Loop index: curve _i % 2, kernel _i / 2. Slabs of 300 points (HPR_CL_MAX_ALLOC) under
 * chunks of at most 300 points: 1000 bases take 4 slabs, and a prefix of 555 ends mid-slab. */
START_TEST(resident_bases_are_sent_once_and_match_the_cpu)
{
    const curve_t *c = curve_and_kernel(_i);
    char id[16], limit[32];
    unsigned long long resident;
    size_t n = 1000, ps = c->point_size;
    ocl_first_device(id);
    snprintf(limit, sizeof limit, "%zu", 300 * ps);
    setenv("HPR_CL_MAX_ALLOC", limit, 1);
    hpr_ctx *ctx = ocl_ctx(id), *other = ocl_ctx(id);
    inputs in = make_inputs(ctx, c, n, 500 + (uint64_t)_i, EDGE_ZEROS | EDGE_INFINITY | EDGE_ONES);
    hpr_bases *b = NULL;
    hpr_device_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(hpr_device_prepare(ctx, id, c->curve, &rep), HPR_OK); /* its self-test's MSM sent first */
    ck_assert_int_eq(hpr_bases_create(ctx, c->curve, HPR_G1, in.points, n, &b), HPR_OK);
    ck_assert_uint_eq(hpr_bases_count(b), n);
    (void)ocl_bytes_sent(ctx, &resident);
    ck_assert_uint_eq(resident, 0); /* nothing sent before the first MSM */
    expect_bases_msm(ctx, c, b, &in, n, id, n * (ps + 32), "first MSM: points and scalars");
    (void)ocl_bytes_sent(ctx, &resident);
    ck_assert_uint_eq(resident, n * ps);
    free(in.scalars);
    inputs fresh = make_inputs(ctx, c, n, 600 + (uint64_t)_i, 0);
    in.scalars = fresh.scalars;
    free(fresh.points);
    expect_bases_msm(ctx, c, b, &in, n, id, n * 32, "second MSM: scalars only");
    expect_bases_msm(ctx, c, b, &in, 555, id, 555 * 32, "a prefix of the bases");
    unsigned char got[MAXP];
    ck_assert_int_eq(hpr_msm_bases(other, b, in.scalars, n, got, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm_bases(ctx, b, in.scalars, n + 1, got, NULL), HPR_ERR_INVALID_ARGUMENT);
    hpr_bases_destroy(b);
    (void)ocl_bytes_sent(ctx, &resident);
    ck_assert_uint_eq(resident, 0);
    /* invalid bases are refused when made, the first one named */
    in.points[ps * 321 + 3] ^= 1;
    ck_assert_int_eq(hpr_bases_create(ctx, c->curve, HPR_G1, in.points, n, &b), HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 321 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_ptr_null(b);
    in.points[ps * 321 + 3] ^= 1;
    /* bases that outlive their context: destroying them is still safe */
    ck_assert_int_eq(hpr_bases_create(ctx, c->curve, HPR_G1, in.points, n, &b), HPR_OK);
    expect_bases_msm(ctx, c, b, &in, n, id, n * (ps + 32), "bases made again");
    hpr_ctx_destroy(ctx);
    ck_assert_int_eq(hpr_msm_bases(other, b, in.scalars, n, got, NULL), HPR_ERR_INVALID_ARGUMENT);
    hpr_bases_destroy(b);
    hpr_ctx_destroy(other);
    free_inputs(&in);
}
END_TEST

/* Loop index: G2 of curve _i % 2, kernel _i / 2. */
START_TEST(g2_on_the_device_matches_the_cpu)
{
    const curve_t *c = &curves[2 + _i % 2];
    static const size_t sizes[] = {1, 3, 64, 300};
    char id[16], limit[32];
    setenv("HPR_CL_MSM", kernels[_i / 2], 1);
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx(id);
    edge_matrix(ctx, c, id, kernels[_i / 2], sizes, sizeof sizes / sizeof sizes[0], 700);
    hpr_ctx_destroy(ctx);
    /* chunks of 100 points and resident slabs of 100: the first bad point by its global index */
    snprintf(limit, sizeof limit, "%zu", 100 * c->point_size);
    setenv("HPR_CL_MAX_ALLOC", limit, 1);
    ctx = ocl_ctx(id);
    inputs in = make_inputs(ctx, c, 450, 800, EDGE_ZEROS | EDGE_INFINITY | EDGE_ONES);
    expect_device_msm(ctx, c, &in, "G2 chunked");
    hpr_bases *b = NULL;
    hpr_device_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(hpr_device_prepare(ctx, id, c->curve, &rep), HPR_OK);
    ck_assert_int_eq(hpr_bases_create(ctx, c->curve, HPR_G2, in.points, in.n, &b), HPR_OK);
    for (int round = 0; round < 2; round++) {
        unsigned char want[MAXP], got[MAXP];
        hpr_msm_opts opts = {sizeof opts, 0, 0, 0, id};
        unsigned long long before = ocl_bytes_sent(ctx, NULL);
        ocl_cpu_msm_group(c->curve, HPR_G2, in.points, in.scalars, in.n, want);
        ck_assert_int_eq(hpr_msm_bases(ctx, b, in.scalars, in.n, got, &opts), HPR_OK);
        assert_seeded(memcmp(got, want, c->point_size) == 0, "G2 resident bases, round %d: differs from the CPU", round);
        assert_seeded(ocl_bytes_sent(ctx, NULL) - before == in.n * (32 + (round ? 0 : c->point_size)),
                      "G2 resident bases, round %d: %llu bytes sent", round, ocl_bytes_sent(ctx, NULL) - before);
    }
    hpr_bases_destroy(b);
    in.points[c->point_size * 377 + 9] ^= 1; /* off the curve, in chunk 3 */
    unsigned char got[MAXP];
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, id};
    ck_assert_int_eq(hpr_msm_ex(ctx, c->curve, HPR_G2, in.points, in.scalars, in.n, got, &opts),
                     HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 377 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The scalar that the bit slice [b0, b1) of k stands for, times 2^b0, mod r (GMP):
 * 2^b0 (bits [b0, b1) of k + b[b0 - 1] - 2^(b1 - b0) b[b1 - 1]). */
static void slice_scalar(unsigned char *out, const unsigned char *k, unsigned b0, unsigned b1, const uint64_t *order)
{
    mpz_t x, s, r;
    size_t count = 0;
    mpz_inits(x, s, r, NULL);
    mpz_import(x, 32, -1, 1, 0, 0, k);
    mpz_import(r, 4, -1, 8, 0, 0, order);
    mpz_fdiv_q_2exp(s, x, b0);
    mpz_fdiv_r_2exp(s, s, b1 - b0);
    if (b0 > 0 && mpz_tstbit(x, b0 - 1))
        mpz_add_ui(s, s, 1);
    if (mpz_tstbit(x, b1 - 1)) {
        mpz_t top;
        mpz_init_set_ui(top, 1);
        mpz_mul_2exp(top, top, b1 - b0);
        mpz_sub(s, s, top);
        mpz_clear(top);
    }
    mpz_mul_2exp(s, s, b0);
    mpz_mod(s, s, r);
    memset(out, 0, 32);
    mpz_export(out, &count, -1, 1, 0, 0, s);
    mpz_clears(x, s, r, NULL);
}

/* Loop index: curve _i % 2 (G1), kernel _i / 2. Fixed and random slices, narrow and wide, at
 * the device's own window size. */
START_TEST(device_bit_slices_match_the_scalars_they_stand_for)
{
    const curve_t *c = curve_and_kernel(_i);
    const msm_curve_ops *ops = msm_ops(c->curve, HPR_G1);
    unsigned top = ops->scalar_bits + 1, slices[12][2] = {{0, 0}, {0, 1}, {1, 7}, {5, 22}, {13, 26}, {100, 101},
                                                           {200, 0}, {37, 150}};
    char id[16], why[CL_DETAIL_LEN];
    cl_dev *dev = NULL;
    test_rng rng;
    test_rng_init(&rng, 1200 + (uint64_t)_i);
    slices[0][1] = slices[6][1] = top;
    for (int j = 8; j < 12; j++) {
        slices[j][0] = (unsigned)(test_rng_next(&rng) % (top - 1));
        slices[j][1] = slices[j][0] + 1 + (unsigned)(test_rng_next(&rng) % (top - slices[j][0]));
    }
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx(id);
    ck_assert_int_eq(dev_resolve(ctx, id, &dev), HPR_OK);
    ck_assert_int_eq(dev_ready(ctx, dev, c->curve, HPR_G1), HPR_OK);
    inputs in = make_inputs(ctx, c, 300, 1300 + (uint64_t)_i, EDGE_ZEROS | EDGE_R_MINUS_1 | EDGE_ONES);
    unsigned char *shifted = malloc(in.n * 32);
    ck_assert_ptr_nonnull(shifted);
    msm_points pts = {in.points, in.n, 0, 0, 0};
    for (int j = 0; j < 12; j++) {
        unsigned b0 = slices[j][0], b1 = slices[j][1];
        unsigned char want[MAXP], got[MAXP];
        size_t bad = 0;
        msm_point_check kind;
        for (size_t i = 0; i < in.n; i++)
            slice_scalar(shifted + 32 * i, in.scalars + 32 * i, b0, b1, c->order);
        ocl_cpu_msm(c->curve, in.points, shifted, in.n, want);
        ck_assert_msg(cl_msm_slice(ctx->cl, dev, (int)c->curve, ops, &pts, 0, in.scalars, in.n, b0, b1, got, &bad,
                                   &kind, why) == CL_MSM_OK,
                      "slice [%u, %u): %s", b0, b1, why);
        assert_seeded(memcmp(got, want, c->point_size) == 0, "%s slice [%u, %u): differs from the CPU", kernels[_i / 2],
                      b0, b1);
    }
    free(shifted);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* Loop index: curve _i % 2 (G1), kernel _i / 2. Scalars already on the device
 * (cl_msm_device_scalars, the Groth16 H MSM over h left there): chunks of 100 points
 * (HPR_CL_MAX_ALLOC) copy their scalars from the buffer at their offsets; the CPU's bits, and
 * only the points are sent. */
START_TEST(msm_over_scalars_on_the_device_matches_the_cpu)
{
    const curve_t *c = curve_and_kernel(_i);
    const msm_curve_ops *ops = msm_ops(c->curve, HPR_G1);
    char id[16], why[CL_DETAIL_LEN], limit[32];
    cl_dev *dev = NULL;
    cl_int rc;
    snprintf(limit, sizeof limit, "%zu", 100 * c->point_size);
    setenv("HPR_CL_MAX_ALLOC", limit, 1);
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx(id);
    ck_assert_int_eq(dev_resolve(ctx, id, &dev), HPR_OK);
    ck_assert_int_eq(dev_ready(ctx, dev, c->curve, HPR_G1), HPR_OK);
    inputs in = make_inputs(ctx, c, 1000, 1400 + (uint64_t)_i, EDGE_ZEROS | EDGE_INFINITY | EDGE_ONES | EDGE_R_MINUS_1);
    unsigned char want[MAXP], got[MAXP];
    size_t bad = 0;
    msm_point_check kind;
    cl_mem scalars = ctx->cl->api.clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in.n * 32,
                                                 in.scalars, &rc);
    ck_assert_int_eq(rc, CL_SUCCESS);
    msm_points pts = {in.points, in.n, 0, 0, 0};
    ocl_cpu_msm(c->curve, in.points, in.scalars, in.n, want);
    uint64_t before = dev->bytes_sent;
    ck_assert_msg(cl_msm_device_scalars(ctx->cl, dev, (int)c->curve, ops, &pts, scalars, in.n, got, &bad, &kind,
                                        why) == CL_MSM_OK,
                  "%s", why);
    assert_seeded(memcmp(got, want, c->point_size) == 0, "%s: the MSM over device scalars differs from the CPU",
                  kernels[_i / 2]);
    ck_assert_uint_eq(dev->bytes_sent - before, in.n * c->point_size);
    ctx->cl->api.clReleaseMemObject(scalars);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("opencl_msm");
    TCase *tc = test_case(s, "msm", 900);
    tcase_add_loop_test(tc, msm_edge_matrix_matches_the_cpu, 0, 4);
    tcase_add_loop_test(tc, msm_random_sizes_and_window_bits_match_the_cpu, 0, 4);
    tcase_add_loop_test(tc, msm_with_32_bit_words_matches_the_cpu, 0, 2);
    tcase_add_loop_test(tc, chunked_msm_matches_and_reports_global_indices, 0, 4);
    tcase_add_loop_test(tc, msm_over_scalars_on_the_device_matches_the_cpu, 0, 4);
    tcase_add_loop_test(tc, sorted_kernel_spreads_crowded_buckets, 0, 2);
    tcase_add_loop_test(tc, sorted_kernel_segment_tree_at_every_depth_matches_the_cpu, 0, 2);
    tcase_add_loop_test(tc, bad_scalars_are_rejected_before_the_device, 0, 2);
    tcase_add_loop_test(tc, resident_bases_are_sent_once_and_match_the_cpu, 0, 4);
    tcase_add_loop_test(tc, g2_on_the_device_matches_the_cpu, 0, 4);
    tcase_add_loop_test(tc, device_bit_slices_match_the_scalars_they_stand_for, 0, 4);
    TCase *faults = test_case(s, "faults", 900); /* may build the MSM program (an empty cache) */
    tcase_add_loop_test(faults, a_failing_device_is_reported_and_the_cpu_redoes_the_work, 0, 2);
    return run_suite(s);
}
