/*
 * test_opencl_hybrid.c: the hybrid scheduler over the CPU and the first OpenCL device (POCL's
 * CPU device in CI, one thread beside one CPU thread): random tile grids (HPR_SCHED_TILES)
 * over the edge matrix give the CPU's result with both devices taking tiles, faults on the
 * device's k-th tile or on every tile (HPR_SCHED_INJECT_FAULT) are made good by the CPU and
 * reported, the first invalid point is named whichever device met it, and POCL is left out
 * when it would oversubscribe the cores beside the native pool. The random grids run with
 * both OpenCL MSM kernels (HPR_CL_MSM=owner|sorted: loop index / 2). Two OpenCL devices
 * (POCL_DEVICES="pthread pthread") beside the CPU: G1 and G2 grids give the CPU's result
 * with all three taking tiles, and resident bases end up held by both devices.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "opencl_support.h"
#include "msm_test_inputs.h"

#include <string.h>

static void expect_both_devices_used(hpr_ctx *ctx, const char *what)
{
    hpr_run_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    ck_assert_msg(rep.ndevices == 2, "%s: %u devices in the run (%s)", what, rep.ndevices, rep.notes);
    for (unsigned d = 0; d < rep.ndevices; d++) /* a device that only failed computed nothing */
        ck_assert_msg(rep.devices[d].tiles > 0, "%s: %s computed no tile (%u failures)", what, rep.devices[d].device,
                      rep.devices[d].failures);
}

START_TEST(hybrid_splits_give_the_cpu_result)
{
    static const char *const kernels[] = {"owner", "sorted"};
    const curve_t *c = &curves[_i % 2];
    setenv("HPR_CL_MSM", kernels[_i / 2], 1);
    test_rng rng;
    test_rng_init(&rng, 900 + (uint64_t)_i);
    /* the CPU can finish a small MSM before POCL asks for its first tile: hold one for it */
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1);
    for (size_t e = 0; e < sizeof edge_sets / sizeof edge_sets[0]; e++) {
        size_t n = 600 + test_rng_next(&rng) % 1400;
        char tiles[64], what[96];
        /* random grids and tile shapes from the seed: min tile and probe (items), blocks per
         * window, window bits; read when the context is created, so one context per grid */
        snprintf(tiles, sizeof tiles, "%u,%u,%u,%u", (unsigned)(1 + test_rng_next(&rng) % 3),
                 (unsigned)(1 + test_rng_next(&rng) % 2), (unsigned)(1 + test_rng_next(&rng) % 8),
                 (unsigned)(3 + test_rng_next(&rng) % 10));
        setenv("HPR_SCHED_TILES", tiles, 1);
        hpr_ctx *ctx = ocl_hybrid_ctx();
        inputs in = make_inputs(ctx, c, n, 950 + e, edge_sets[e]);
        snprintf(what, sizeof what, "hybrid %s n=%zu tiles %s edges %u", kernels[_i / 2], n, tiles, edge_sets[e]);
        unsigned char want[MAXP];
        ocl_cpu_msm(c->curve, in.points, in.scalars, in.n, want);
        expect_msm(ctx, c, &in, want, NULL, what);
        expect_both_devices_used(ctx, what);
        free_inputs(&in);
        hpr_ctx_destroy(ctx);
    }
    unsetenv("HPR_SCHED_EVERY_DEVICE");
}
END_TEST

/* _i: curve index * 3 + k; k = 1, 2 fails the device's k-th tile, k = 0 every tile */
START_TEST(hybrid_survives_device_faults)
{
    const curve_t *c = &curves[_i / 3];
    unsigned k = (unsigned)(_i % 3);
    char fault[32];
    hpr_run_report rep = {.struct_size = sizeof rep};
    snprintf(fault, sizeof fault, k ? "cl:0.0@%u" : "cl:0.0", k);
    setenv("HPR_SCHED_INJECT_FAULT", fault, 1);
    setenv("HPR_SCHED_TILES", "2,1,4,8", 1);
    /* two tiles held for the device until it asks, whatever the load: its k-th tile (k <= 2)
     * exists, and with every tile failing it fails twice and is dropped */
    setenv("HPR_SCHED_EVERY_DEVICE", "2", 1);
    hpr_ctx *ctx = ocl_hybrid_ctx();
    inputs in = make_inputs(ctx, c, 3000, 990 + k, EDGE_ONES | EDGE_ZEROS);
    unsigned char want[MAXP];
    ocl_cpu_msm(c->curve, in.points, in.scalars, in.n, want);
    expect_msm(ctx, c, &in, want, NULL, fault);
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    ck_assert_uint_eq(rep.ndevices, 2);
    ck_assert_msg(rep.devices[1].failures >= 1 && strstr(rep.devices[1].failure, "HPR_SCHED_INJECT_FAULT"),
                  "%s: report: failures %u '%s'", fault, rep.devices[1].failures, rep.devices[1].failure);
    ck_assert_msg(strstr(rep.notes, "cl:0.0") != NULL, "%s: notes '%s'", fault, rep.notes);
    if (k == 0) {
        ck_assert_int_eq(rep.devices[1].dropped, 1);
        ck_assert_uint_eq(rep.devices[1].tiles, 0);
    }
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
    unsetenv("HPR_SCHED_EVERY_DEVICE");
}
END_TEST

START_TEST(hybrid_reports_the_first_invalid_point)
{
    const curve_t *c = &curves[_i];
    unsigned char got[MAXP];
    setenv("HPR_SCHED_TILES", "2,1,2,6", 1);
    hpr_ctx *ctx = ocl_hybrid_ctx();
    inputs in = make_inputs(ctx, c, 1200, 1100, 0);
    in.points[c->point_size * 1111 + 3] ^= 1;
    in.points[c->point_size * 333 + 3] ^= 1;
    ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, in.points, in.scalars, in.n, got), HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 333 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(hybrid_leaves_out_a_device_that_would_oversubscribe_the_cores)
{
    hpr_ctx *ctx = test_ctx("all", 64); /* more threads than cores: POCL cannot fit beside the pool */
    hpr_run_report rep = {.struct_size = sizeof rep};
    hpr_device_info info = {.struct_size = sizeof info};
    ck_assert_int_eq(hpr_device_get_info(ctx, 0, &info), HPR_OK);
    inputs in = make_inputs(ctx, &curves[0], 40000, 1200, 0); /* above the hybrid threshold */
    unsigned char want[MAXP];
    ocl_cpu_msm(curves[0].curve, in.points, in.scalars, in.n, want);
    expect_msm(ctx, &curves[0], &in, want, NULL, "oversubscribed");
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    if (strcmp(info.kind, "cpu") == 0) {
        ck_assert_uint_eq(rep.ndevices, 1);
        ck_assert_msg(strstr(rep.notes, "left out") != NULL, "notes: %s", rep.notes);
    }
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

static unsigned long long resident_on(hpr_ctx *ctx, unsigned index)
{
    hpr_device_info info = {.struct_size = sizeof info};
    ck_assert_int_eq(hpr_device_get_info(ctx, index, &info), HPR_OK);
    return info.resident_bytes;
}

/* _i: curve _i % 2, G1 (_i < 2) or G2. Two POCL devices of one thread each (set before
 * OpenCL loads in this forked test) and one CPU thread. */
START_TEST(hybrid_spreads_over_two_opencl_devices)
{
    const curve_t *c = &curves[_i];
    setenv("POCL_DEVICES", "pthread pthread", 1);
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1);
    setenv("HPR_SCHED_TILES", "1,1,8,8", 1);
    hpr_ctx *ctx = ocl_hybrid_ctx();
    ck_assert_uint_eq(hpr_device_count(ctx), 2);
    inputs in = make_inputs(ctx, c, 1500, 990 + (uint64_t)_i, EDGE_ZEROS | EDGE_ONES | EDGE_INFINITY);
    unsigned char want[MAXP], got[MAXP];
    ocl_cpu_msm_group(c->curve, c->group, in.points, in.scalars, in.n, want);
    expect_msm(ctx, c, &in, want, NULL, "two OpenCL devices");
    hpr_run_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    ck_assert_msg(rep.ndevices == 3, "%u devices in the run (%s)", rep.ndevices, rep.notes);
    for (unsigned d = 0; d < rep.ndevices; d++)
        ck_assert_msg(rep.devices[d].tiles > 0, "%s got no tile (%s)", rep.devices[d].device, rep.notes);
    ck_assert_uint_eq(resident_on(ctx, 0) + resident_on(ctx, 1), 0); /* a call's points: released after it */
    hpr_bases *b = NULL;
    ck_assert_int_eq(hpr_bases_create(ctx, c->curve, c->group, in.points, in.n, &b), HPR_OK);
    for (int round = 0; round < 2; round++) {
        ck_assert_int_eq(hpr_msm_bases(ctx, b, in.scalars, in.n, got, NULL), HPR_OK);
        assert_seeded(memcmp(got, want, c->point_size) == 0, "bases over two devices, round %d: differs", round);
    }
    ck_assert_uint_eq(resident_on(ctx, 0), in.n * c->point_size);
    ck_assert_uint_eq(resident_on(ctx, 1), in.n * c->point_size);
    hpr_bases_destroy(b);
    ck_assert_uint_eq(resident_on(ctx, 0) + resident_on(ctx, 1), 0);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
    unsetenv("HPR_SCHED_EVERY_DEVICE");
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("opencl_hybrid");
    TCase *tc = test_case(s, "hybrid", 900);
    tcase_add_loop_test(tc, hybrid_splits_give_the_cpu_result, 0, 4);
    tcase_add_loop_test(tc, hybrid_reports_the_first_invalid_point, 0, 2);
    tcase_add_test(tc, hybrid_leaves_out_a_device_that_would_oversubscribe_the_cores);
    tcase_add_loop_test(tc, hybrid_spreads_over_two_opencl_devices, 0, 4);
    TCase *faults = test_case(s, "faults", 900); /* may build the MSM program (an empty cache) */
    tcase_add_loop_test(faults, hybrid_survives_device_faults, 0, 6);
    return run_suite(s);
}
