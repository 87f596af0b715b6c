/*
 * test_opencl_precompute.c: precomputed bases (hpr_bases_create_precomputed, issue 18 item 6)
 * give the same bits as hpr_msm_ex over the original points:
 *  - on the CPU, G1 and G2 of both curves, factors 2, 3, 4, 8 and 16, the edge matrix and the
 *    scalars whose signed slices sit on their boundaries (a slice of exactly 2^(s-1), all ones
 *    carrying through every slice, r - 1), at the chosen window size and at forced ones from 1
 *    to 16 bits (past 15 the tiles form their digits on the fly), with forced tilings, and on a
 *    prefix of the set; against the naive sum where small;
 *  - on every CPU tier this machine runs (the tiers' own digit paths);
 *  - on the first OpenCL device with both kernels (owner, sorted), G1 and G2: the multiples
 *    are sent once (f n points), then scalars only, and resident_bytes reports them; and on
 *    "all" through the hybrid scheduler, the grid forced and a tile held for each device so
 *    that the CPU and the device both compute tiles (the run report is checked);
 *  - the window choice leaves no slice a top window under half a window wide;
 *  - bad input: a factor above 16, a bad point named by its own index, a scalar >= r named by
 *    its own index (not a slice's), more scalars than bases.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "opencl_support.h"
#include "msm_test_inputs.h"

#include "host/msm/msm_engine.h"
#include "host/msm/resident.h"

#include <string.h>

static const unsigned factors[] = {2, 3, 4, 8, 16};

/* s, the slice width of factor f for the curve (hyprove.h: ceil((bits(r) + 2) / f)). */
static unsigned slice_width(const curve_t *c, unsigned f)
{
    unsigned bits = c->curve == HPR_CURVE_BN254 ? 254 : 255;
    return (bits + 2 + f - 1) / f;
}

/* Scalars on the slices' boundaries, laid over in (positions from 1, every third): 2^(j s - 1)
 * (a slice of exactly -2^(s-1) that carries), 2^(j s) - 1 (every slice below j is -1 and
 * carries), and r - 1, for j = 1 .. f - 1. */
static void lay_slice_edges(const curve_t *c, inputs *in, unsigned f)
{
    unsigned s = slice_width(c, f);
    size_t at = 1;
    for (unsigned j = 1; j < f && at < in->n; j++) {
        uint64_t k[4] = {0, 0, 0, 0};
        unsigned bit = j * s - 1;
        k[bit / 64] = UINT64_C(1) << (bit % 64);
        set_scalar(in->scalars + 32 * at, k);
        at += 3;
        if (at >= in->n)
            break;
        memset(k, 0, sizeof k);
        for (unsigned b = 0; b < j * s && b < 253; b++)
            k[b / 64] |= UINT64_C(1) << (b % 64);
        set_scalar(in->scalars + 32 * at, k);
        at += 3;
    }
    if (in->n > 2) {
        uint64_t k[4];
        memcpy(k, c->order, sizeof k);
        k[0] -= 1;
        set_scalar(in->scalars + 32 * 2, k);
    }
}

/* The MSM over b (the first n of its points) equals want; what names the call. */
static void expect_bases(hpr_ctx *ctx, const curve_t *c, const hpr_bases *b, const unsigned char *scalars, size_t n,
                         const unsigned char *want, const hpr_msm_opts *opts, const char *what)
{
    unsigned char got[MAXP];
    hpr_status st = hpr_msm_bases(ctx, b, scalars, n, got, opts);
    assert_seeded(st == HPR_OK, "%s n=%zu f=%u %s: %s (%s)", c->name, n, hpr_bases_precompute(b), what,
                  hpr_status_str(st), hpr_ctx_error_detail(ctx));
    assert_seeded(memcmp(got, want, c->point_size) == 0, "%s n=%zu f=%u %s: differs from hpr_msm (c=%u chunks=%u wpt=%u)",
                  c->name, n, hpr_bases_precompute(b), what, opts ? opts->window_bits : 0,
                  opts ? opts->point_chunks : 0, opts ? opts->windows_per_tile : 0);
}

/* want = the plain MSM of in's first n terms on the CPU of ctx. */
static void plain_msm(hpr_ctx *ctx, const curve_t *c, const inputs *in, size_t n, unsigned char *want)
{
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, "cpu"};
    ck_assert_int_eq(hpr_msm_ex(ctx, c->curve, c->group, in->points, in->scalars, n, want, &opts), HPR_OK);
}

/* One case: n inputs (seed, edges; the slices' boundaries of factor f laid over), want = their
 * plain MSM on the CPU, *b = their bases precomputed f times. */
static inputs precomputed_case(hpr_ctx *ctx, const curve_t *c, size_t n, uint64_t seed, unsigned edges, unsigned f,
                               unsigned char *want, hpr_bases **b)
{
    inputs in = make_inputs(ctx, c, n, seed, edges);
    lay_slice_edges(c, &in, f);
    plain_msm(ctx, c, &in, n, want);
    ck_assert_int_eq(hpr_bases_create_precomputed(ctx, c->curve, c->group, in.points, n, f, b), HPR_OK);
    return in;
}

/* Loop index: the curve group. Every factor over sizes and edge sets, window sizes, tilings. */
START_TEST(precomputed_msm_equals_the_plain_one_on_the_cpu)
{
    const curve_t *c = &curves[_i];
    hpr_ctx *ctx = test_ctx("cpu", 2);
    static const size_t sizes[] = {1, 5, 64, 300};
    static const unsigned windows[] = {1, 5, 11, 16};
    for (size_t fi = 0; fi < sizeof factors / sizeof factors[0]; fi++)
        for (size_t si = 0; si < sizeof sizes / sizeof sizes[0]; si++) {
            size_t n = sizes[si];
            unsigned f = factors[fi];
            inputs in = make_inputs(ctx, c, n, 100 * fi + 10 * si + (uint64_t)_i, edge_sets[(fi + si) % 6]);
            lay_slice_edges(c, &in, f);
            hpr_bases *b = NULL;
            unsigned char want[MAXP];
            ck_assert_int_eq(hpr_bases_create_precomputed(ctx, c->curve, c->group, in.points, n, f, &b), HPR_OK);
            ck_assert_uint_eq(hpr_bases_precompute(b), f);
            ck_assert_uint_eq(hpr_bases_count(b), n);
            ck_assert_uint_eq(hpr_bases_bytes(b), n * f * c->point_size);
            plain_msm(ctx, c, &in, n, want);
            if (n <= 64) {
                unsigned char naive[MAXP];
                c->naive(naive, in.points, in.scalars, n);
                expect_msm(ctx, c, &in, naive, NULL, "plain MSM against the naive sum");
            }
            expect_bases(ctx, c, b, in.scalars, n, want, NULL, "auto window");
            for (size_t w = 0; w < sizeof windows / sizeof windows[0] && n >= 64; w++) {
                hpr_msm_opts opts = {sizeof opts, windows[w], 0, 0, "cpu"};
                expect_bases(ctx, c, b, in.scalars, n, want, &opts, "forced window");
            }
            if (n >= 64) {
                hpr_msm_opts tiled = {sizeof tiled, 7, 3, 1, "cpu"};
                expect_bases(ctx, c, b, in.scalars, n, want, &tiled, "forced tiling");
                plain_msm(ctx, c, &in, n - 17, want);
                expect_bases(ctx, c, b, in.scalars, n - 17, want, NULL, "a prefix of the set");
            }
            hpr_bases_destroy(b);
            free_inputs(&in);
        }
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The precomputed multiples of the first tier against double-and-add: point i * f + j is
 * 2^(j s) P_i, for every j of 64 bases spread over the set (edges included). */
static void expect_multiples(const curve_t *c, const unsigned char *points, const unsigned char *multiples, size_t n,
                             unsigned f, const char *tier)
{
    unsigned s = slice_width(c, f);
    for (size_t k = 0; k < 64; k++) {
        size_t i = k * (n - 1) / 63;
        for (unsigned j = 0; j < f; j++) {
            uint64_t e[4] = {0, 0, 0, 0};
            unsigned char scalar[32], want[MAXP];
            e[j * s / 64] = UINT64_C(1) << (j * s % 64);
            set_scalar(scalar, e);
            c->naive(want, points + i * c->point_size, scalar, 1);
            ck_assert_msg(memcmp(want, multiples + (i * f + j) * c->point_size, c->point_size) == 0,
                          "%s %s: precomputed point %zu * %u + %u is not 2^%u P_%zu", c->name, tier, i, f, j, j * s, i);
        }
    }
}

/* Loop index: the curve group. Every tier that runs here, its own digit paths (table, on the
 * fly), and its own doublings where it has them (avx512): the precomputed points of the first
 * tier (portable) are the multiples double-and-add gives, and every other tier's are the same
 * bytes. */
START_TEST(every_tier_gives_the_same_bits)
{
    const curve_t *c = &curves[_i];
    size_t n = 900, bytes = n * 4 * c->point_size;
    unsigned char *first = NULL;
    for (unsigned t = 0; t < hpr_cpu_tier_count(); t++) {
        const char *tier = hpr_cpu_tier_name(t);
        if (!test_tier_runs(t))
            continue;
        hpr_config cfg;
        hpr_ctx *ctx = NULL;
        hpr_config_default(&cfg);
        cfg.devices = "cpu";
        cfg.threads = 2;
        cfg.cpu_tier = tier;
        ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
        hpr_bases *b = NULL;
        unsigned char want[MAXP];
        inputs in = precomputed_case(ctx, c, n, 300, EDGE_ZEROS | EDGE_ONES | EDGE_NEG_PAIRS | EDGE_INFINITY, 4, want, &b);
        if (!first) {
            expect_multiples(c, in.points, b->points, n, 4, tier);
            first = malloc(bytes);
            ck_assert_ptr_nonnull(first);
            memcpy(first, b->points, bytes);
        } else {
            ck_assert_msg(memcmp(first, b->points, bytes) == 0, "%s: the precomputed points differ from %s's", tier,
                          hpr_cpu_tier_name(0));
        }
        expect_bases(ctx, c, b, in.scalars, n, want, NULL, tier);
        hpr_msm_opts wide = {sizeof wide, 16, 0, 0, "cpu"};
        expect_bases(ctx, c, b, in.scalars, n, want, &wide, tier);
        hpr_bases_destroy(b);
        free_inputs(&in);
        hpr_ctx_destroy(ctx);
    }
    free(first);
}
END_TEST

static const char *const kernels[] = {"owner", "sorted"};

/* Loop index i: curve group i % 3 (BN254 G1, BLS12-381 G1, BN254 G2), kernel i / 3. */
START_TEST(precomputed_bases_stay_on_the_device)
{
    const curve_t *c = &curves[_i % 3];
    size_t n = 600, ps = c->point_size;
    unsigned f = 4;
    char id[16];
    unsigned long long resident;
    setenv("HPR_CL_MSM", kernels[_i / 3], 1);
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx(id);
    hpr_bases *b = NULL;
    unsigned char want[MAXP], first[MAXP];
    inputs in = precomputed_case(ctx, c, n, 400 + (uint64_t)_i, EDGE_ZEROS | EDGE_ONES | EDGE_INFINITY, f, want, &b);
    hpr_msm_opts on_device = {sizeof on_device, 0, 0, 0, id};
    /* the device's self-tests of the group run (and send) first */
    ck_assert_int_eq(hpr_msm_ex(ctx, c->curve, c->group, in.points, in.scalars, 10, first, &on_device), HPR_OK);
    for (int round = 0; round < 2; round++) {
        unsigned long long before = ocl_bytes_sent(ctx, NULL);
        expect_bases(ctx, c, b, in.scalars, n, want, &on_device, kernels[_i / 3]);
        assert_seeded(hpr_ctx_notice(ctx)[0] == '\0', "the device was not used: %s", hpr_ctx_notice(ctx));
        unsigned long long sent = ocl_bytes_sent(ctx, &resident) - before;
        assert_seeded(sent == f * n * (32 + (round ? 0 : ps)), "round %d: %llu bytes sent", round, sent);
        assert_seeded(resident == f * n * ps, "round %d: %llu bytes resident", round, resident);
    }
    hpr_msm_opts window = {sizeof window, 11, 0, 0, id};
    expect_bases(ctx, c, b, in.scalars, n, want, &window, "11-bit windows on the device");
    hpr_bases_destroy(b);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The hybrid scheduler deals the f n points' grid to the CPU and the device. */
/* Each device of the run computed tiles (a device that only failed does not count). */
static void expect_every_device_computed(hpr_ctx *ctx, const char *what)
{
    hpr_run_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    ck_assert_msg(rep.ndevices == 2, "%s: %u devices in the run (%s)", what, rep.ndevices, rep.notes);
    for (unsigned d = 0; d < rep.ndevices; d++)
        ck_assert_msg(rep.devices[d].tiles > 0, "%s: %s computed no tile (%u failures)", what, rep.devices[d].device,
                      rep.devices[d].failures);
}

/* The grid forced (below the hybrid minimum of 32,768 points the CPU would run alone) and a
 * tile held for each device, so that both compute, whatever the machine's load. */
START_TEST(precomputed_bases_on_every_device_together)
{
    const curve_t *c = &curves[_i];
    size_t n = 3000;
    setenv("HPR_SCHED_TILES", "1,1,4,0", 1);
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1);
    hpr_ctx *ctx = ocl_hybrid_ctx();
    hpr_bases *b = NULL;
    unsigned char want[MAXP];
    inputs in = precomputed_case(ctx, c, n, 500 + (uint64_t)_i, EDGE_ZEROS | EDGE_ONES, 8, want, &b);
    hpr_msm_opts all = {sizeof all, 0, 0, 0, "all"};
    expect_bases(ctx, c, b, in.scalars, n, want, &all, "all devices");
    expect_every_device_computed(ctx, "all devices");
    expect_bases(ctx, c, b, in.scalars, n, want, &all, "all devices, again");
    expect_every_device_computed(ctx, "all devices, again");
    hpr_bases_destroy(b);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
    unsetenv("HPR_SCHED_TILES");
    unsetenv("HPR_SCHED_EVERY_DEVICE");
}
END_TEST

/* The window choice never leaves a slice's top window under half a window wide (its digits
 * would crowd into a few buckets): slices of 128, 64 and 32 bits, every tier, sizes 2^8..2^22. */
START_TEST(slices_get_no_narrow_top_window)
{
    static const unsigned slice_bits[] = {128, 64, 32, 86};
    for (size_t k = 0; k < sizeof slice_bits / sizeof slice_bits[0]; k++) {
        msm_curve_ops sliced = *msm_g1_ops(HPR_CURVE_BN254);
        sliced.scalar_bits = slice_bits[k] - 1;
        for (int tier = 0; tier < RT_CPU_TIERS; tier++)
            for (unsigned log_m = 8; log_m <= 22; log_m += 2)
                for (unsigned threads = 1; threads <= 8; threads *= 2) {
                    unsigned c = msm_cpu_window_bits(&sliced, (rt_cpu_tier)tier, (size_t)1 << log_m, threads);
                    unsigned windows = msm_window_count(sliced.scalar_bits, c);
                    unsigned top = slice_bits[k] - (windows - 1) * c;
                    ck_assert_msg(2 * top >= c, "s = %u, tier %d, m = 2^%u, %u threads: c = %u leaves a %u-bit top window",
                                  slice_bits[k], tier, log_m, threads, c, top);
                }
    }
}
END_TEST

START_TEST(bad_precompute_input_is_named)
{
    const curve_t *c = &curves[0];
    size_t n = 50;
    hpr_ctx *ctx = test_ctx("cpu", 1);
    inputs in = make_inputs(ctx, c, n, 600, 0);
    hpr_bases *b = NULL;
    unsigned char got[MAXP];
    ck_assert_int_eq(hpr_bases_create_precomputed(ctx, c->curve, c->group, in.points, n, 17, &b),
                     HPR_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "precompute = 17") != NULL, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_ptr_null(b);
    in.points[c->point_size * 33 + 5] ^= 1;
    ck_assert_int_eq(hpr_bases_create_precomputed(ctx, c->curve, c->group, in.points, n, 4, &b),
                     HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 33 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_ptr_null(b);
    in.points[c->point_size * 33 + 5] ^= 1;
    ck_assert_int_eq(hpr_bases_create_precomputed(ctx, c->curve, c->group, in.points, n, 0, &b), HPR_OK);
    ck_assert_uint_eq(hpr_bases_precompute(b), 1); /* 0: none */
    hpr_bases_destroy(b);
    ck_assert_int_eq(hpr_bases_create_precomputed(ctx, c->curve, c->group, in.points, n, 4, &b), HPR_OK);
    memset(in.scalars + 32 * 41, 0xff, 32);
    ck_assert_int_eq(hpr_msm_bases(ctx, b, in.scalars, n, got, NULL), HPR_ERR_SCALAR_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "scalar 41 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_msm_bases(ctx, b, in.scalars, n + 1, got, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm_bases(ctx, b, NULL, n, got, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm_bases(ctx, b, in.scalars, 0, got, NULL), HPR_OK); /* infinity */
    unsigned char zero[MAXP] = {0};
    ck_assert_int_eq(memcmp(got, zero, c->point_size), 0);
    hpr_bases_destroy(b);
    ck_assert_uint_eq(hpr_bases_precompute(NULL), 0);
    ck_assert_uint_eq(hpr_bases_bytes(NULL), 0);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("opencl_precompute");
    TCase *cpu = test_case(s, "cpu", 900);
    tcase_add_loop_test(cpu, precomputed_msm_equals_the_plain_one_on_the_cpu, 0, 4);
    tcase_add_loop_test(cpu, every_tier_gives_the_same_bits, 0, 4);
    tcase_add_test(cpu, slices_get_no_narrow_top_window);
    tcase_add_test(cpu, bad_precompute_input_is_named);
    TCase *dev = test_case(s, "device", 900);
    tcase_add_loop_test(dev, precomputed_bases_stay_on_the_device, 0, 6);
    tcase_add_loop_test(dev, precomputed_bases_on_every_device_together, 0, 2);
    return run_suite(s);
}
