/*
 * test_opencl_runtime.c: the OpenCL runtime around the kernels: the program binary cache
 * (HPR_CACHE_DIR: a miss writes, the next context hits, a truncated entry is rebuilt), the
 * calibration profile beside it (stored per device and per CPU identity, MSM and NTT figures
 * side by side, a corrupt profile ignored and rewritten, a calibrated batch under "all" gives
 * the CPU's bits), OpenCL absent (no platform: the CPU still runs, device names are refused
 * with the reason) and device names that name no device.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include "opencl_support.h"

#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* ---- the cache folder: program binaries and the calibration profile ---- */

static void prepare(const char *id, hpr_device_report *rep)
{
    hpr_ctx *ctx = ocl_ctx("cpu");
    ck_assert_msg(hpr_device_prepare(ctx, id, HPR_CURVE_BN254, rep) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
    hpr_ctx_destroy(ctx);
}

START_TEST(binary_cache_hits_and_rebuilds_a_truncated_entry)
{
    char dir[] = "/tmp/hpr-cache-test-XXXXXX", id[16], path[4096], cmd[4200];
    hpr_device_report rep;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("HPR_CACHE_DIR", dir, 1);
    ocl_first_device(id);
    prepare(id, &rep);
    ck_assert_int_eq(rep.cache_hit, 0);
    ck_assert_int_eq(rep.cache_written, 1);
    prepare(id, &rep);
    ck_assert_int_eq(rep.cache_hit, 1);
    /* truncate the one entry to half its size */
    snprintf(cmd, sizeof cmd, "f=$(ls %s/cl-*.bin) && test $(echo \"$f\" | wc -l) = 1 && truncate -s $(( $(stat -c %%s \"$f\") / 2 )) \"$f\"", dir);
    ck_assert_int_eq(system(cmd), 0);
    prepare(id, &rep);
    ck_assert_int_eq(rep.cache_hit, 0);
    ck_assert_int_eq(rep.cache_rebuilt, 1);
    ck_assert_int_eq(rep.cache_written, 1);
    prepare(id, &rep);
    ck_assert_int_eq(rep.cache_hit, 1);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    ck_assert_int_eq(system(path), 0);
}
END_TEST

START_TEST(calibration_is_stored_per_device_and_survives_a_corrupt_profile)
{
    char dir[] = "/tmp/hpr-profile-test-XXXXXX", id[16], path[256];
    unsigned sizes[2] = {8, 10};
    double speeds[2];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("HPR_CACHE_DIR", dir, 1);
    ocl_first_device(id);
    hpr_ctx *ctx = ocl_ctx("cpu");
    ck_assert_double_eq(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), 0);
    ck_assert_int_eq(hpr_calibrate(ctx, "cpu", HPR_CURVE_BN254, sizes, 2, speeds), HPR_OK);
    ck_assert_int_eq(hpr_calibrate(ctx, id, HPR_CURVE_BN254, sizes, 2, NULL), HPR_OK);
    ck_assert(speeds[0] > 0 && speeds[1] > 0);
    /* the profile keeps one decimal */
    ck_assert_double_eq_tol(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), speeds[1], 0.1);
    ck_assert_double_eq_tol(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 20), speeds[1], 0.1); /* nearest */
    ck_assert(hpr_calibrated_speed(ctx, id, HPR_CURVE_BN254, 8) > 0);
    ck_assert_double_eq(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BLS12_381, 10), 0);
    ck_assert_int_eq(hpr_calibrate(ctx, "all", HPR_CURVE_BN254, sizes, 2, NULL), HPR_ERR_INVALID_ARGUMENT);
    /* the NTT's figures: per field, beside the curves' */
    double msm_10 = hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10);
    ck_assert_double_eq(hpr_calibrated_ntt_speed(ctx, "cpu", HPR_FIELD_KOALABEAR, 10), 0);
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "cpu", HPR_FIELD_KOALABEAR, sizes, 2, speeds), HPR_OK);
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, id, HPR_FIELD_KOALABEAR, sizes, 2, NULL), HPR_OK);
    ck_assert(speeds[0] > 0 && speeds[1] > 0);
    ck_assert_double_eq_tol(hpr_calibrated_ntt_speed(ctx, "cpu", HPR_FIELD_KOALABEAR, 12), speeds[1], 0.1);
    ck_assert(hpr_calibrated_ntt_speed(ctx, id, HPR_FIELD_KOALABEAR, 8) > 0);
    ck_assert_double_eq(hpr_calibrated_ntt_speed(ctx, "cpu", HPR_FIELD_BABYBEAR, 10), 0);
    ck_assert_double_eq_tol(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), msm_10, 0.1); /* kept */
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "all", HPR_FIELD_KOALABEAR, sizes, 2, NULL), HPR_ERR_INVALID_ARGUMENT);
    unsigned too_big[1] = {25};
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "cpu", HPR_FIELD_KOALABEAR, too_big, 1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "cpu", (hpr_field)9, sizes, 1, NULL), HPR_ERR_UNSUPPORTED_FIELD);
    {   /* a batch under "all" starts from the calibrated speeds: the CPU's bits */
        size_t total = (size_t)8 << 10, es = hpr_field_element_size(HPR_FIELD_KOALABEAR);
        test_rng rng;
        test_rng_init(&rng, 1700);
        unsigned char *want = ocl_ntt_random(HPR_FIELD_KOALABEAR, total, &rng), *got = malloc(total * es);
        memcpy(got, want, total * es);
        hpr_ntt_opts opts = {0, HPR_NTT_NN, NULL, NULL, 8, 0, "cpu"};
        ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_KOALABEAR, 10, want, &opts), HPR_OK);
        opts.device = "all";
        ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_KOALABEAR, 10, got, &opts), HPR_OK);
        ck_assert(memcmp(want, got, total * es) == 0);
        free(want);
        free(got);
    }
    /* another thread count is another CPU identity */
    hpr_ctx *one = test_ctx("cpu", 1);
    ck_assert_double_eq(hpr_calibrated_speed(one, "cpu", HPR_CURVE_BN254, 10), 0);
    hpr_ctx_destroy(one);
    /* a malformed line is not used and is reported (the notice names the file, the line and
     * why); a reformatted but valid line is read; the next calibration rewrites the file */
    double before = hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 8);
    snprintf(path, sizeof path, "%s/profile.jsonl", dir);
    FILE *f = fopen(path, "r");
    ck_assert_ptr_nonnull(f);
    char good[1024];
    ck_assert_ptr_nonnull(fgets(good, sizeof good, f));
    fclose(f);
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("\n", f); /* blank: skipped */
    fputs("{\"key\": \"cpu|trunc\n", f);
    fclose(f);
    ck_assert_double_eq(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), 0);
    ck_assert_msg(strstr(hpr_ctx_notice(ctx), "profile.jsonl line 2: an unterminated string") != NULL, "%s",
                  hpr_ctx_notice(ctx));
    f = fopen(path, "w"); /* the saved record with its members reordered and respaced */
    ck_assert_ptr_nonnull(f);
    const char *k = strstr(good, "\"key\": \""), *kend = strstr(good, "\", \"curve\"");
    ck_assert(k && kend);
    fprintf(f, "  { \"points_per_s\" : %.1f ,\"log_n\":%u, \"extra\": [1], ", before, 8u);
    fclose(f);
    ck_assert_double_eq(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), 0);
    ck_assert_msg(strstr(hpr_ctx_notice(ctx), "line 1") != NULL, "%s", hpr_ctx_notice(ctx));
    f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fprintf(f, "  { \"points_per_s\" : %.1f ,\"log_n\":%u, \"note\": \"x\", \"curve\" : \"bn254\", %.*s}\n", before, 8u,
            (int)(kend + 1 - k), k);
    fclose(f);
    ck_assert_double_eq_tol(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 8), before, 0.1);
    ck_assert_str_eq(hpr_ctx_notice(ctx), "");
    f = fopen(path, "a");
    ck_assert_ptr_nonnull(f);
    fputs("[1, 2]\n", f);
    fclose(f);
    ck_assert_int_eq(hpr_calibrate(ctx, "cpu", HPR_CURVE_BN254, sizes, 1, NULL), HPR_OK);
    ck_assert_msg(strstr(hpr_ctx_notice(ctx), "dropped") != NULL, "%s", hpr_ctx_notice(ctx));
    ck_assert(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 8) > 0);
    ck_assert_str_eq(hpr_ctx_notice(ctx), "");
    hpr_ctx_destroy(ctx);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    ck_assert_int_eq(system(path), 0);
}
END_TEST

/* ---- no OpenCL, unknown devices ---- */

START_TEST(without_opencl_the_cpu_still_runs)
{
    char dir[] = "/tmp/hpr-no-vendors-XXXXXX";
    unsigned char points[10 * 64], scalars[10 * 32], got[64];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("OCL_ICD_VENDORS", dir, 1);
    hpr_ctx *ctx = ocl_ctx(NULL);
    ck_assert_int_eq(hpr_device_count(ctx), 0);
    ck_assert_msg(strstr(hpr_opencl_notice(ctx), "no OpenCL platform") != NULL, "%s", hpr_opencl_notice(ctx));
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, 10, test_seed ^ 700, points, scalars), HPR_OK);
    hpr_msm_opts opts = {0, 0, 0, "cl:0.0"};
    ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, 10, got, &opts),
                     HPR_ERR_UNKNOWN_DEVICE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "no OpenCL platform") != NULL, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, 10, got), HPR_OK);
    hpr_config cfg;
    hpr_ctx *bad = NULL;
    hpr_config_default(&cfg);
    cfg.devices = "cl:0.0";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &bad), HPR_ERR_UNKNOWN_DEVICE);
    hpr_ctx_destroy(ctx);
    rmdir(dir);
}
END_TEST

START_TEST(unknown_device_names_are_rejected)
{
    hpr_ctx *ctx = ocl_ctx("cpu");
    unsigned char pts[64] = {0}, sc[32] = {0}, got[64];
    const char *names[] = {"cl:99.0", "gpu", "cl:", ""};
    for (size_t i = 0; i < 4; i++) {
        hpr_msm_opts opts = {0, 0, 0, names[i]};
        ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 1, got, &opts), HPR_ERR_UNKNOWN_DEVICE);
        ck_assert_msg(hpr_ctx_error_detail(ctx)[0] != '\0', "no detail for '%s'", names[i]);
    }
    hpr_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("opencl_runtime");
    TCase *cache = test_case(s, "cache", 900); /* builds programs into an empty cache, calibrates */
    tcase_add_test(cache, binary_cache_hits_and_rebuilds_a_truncated_entry);
    tcase_add_test(cache, calibration_is_stored_per_device_and_survives_a_corrupt_profile);
    TCase *absent = test_case(s, "absent", 300);
    tcase_add_test(absent, without_opencl_the_cpu_still_runs);
    tcase_add_test(absent, unknown_device_names_are_rejected);
    return run_suite(s);
}
