/*
 * test_opencl_runtime.c: the OpenCL runtime around the kernels: the program binary cache
 * (HPR_CACHE_DIR: a miss writes, the next context hits, a truncated entry is rebuilt), the
 * calibration profile beside it (stored per device and per CPU identity, MSM and NTT figures
 * side by side, a corrupt profile ignored and rewritten, a calibrated batch under "all" gives
 * the CPU's bits), OpenCL absent (no platform: the CPU still runs, device names are refused
 * with the reason), device names that name no device, and the default device set auto
 * (POCL the only driver: the CPU, OpenCL not loaded; another driver: all without POCL's CPU
 * device; a calibration at half the CPU's speed or more: POCL joins and computes tiles).
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp */
#include "opencl_support.h"
#include "host/core/devices.h"

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
    hpr_device_report rep = {.struct_size = sizeof rep};
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
        hpr_ntt_opts opts = {sizeof opts, 0, HPR_NTT_NN, NULL, NULL, 8, 0, "cpu"};
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
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, "cl:0.0"};
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
        hpr_msm_opts opts = {sizeof opts, 0, 0, 0, names[i]};
        ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 1, got, &opts), HPR_ERR_UNKNOWN_DEVICE);
        ck_assert_msg(hpr_ctx_error_detail(ctx)[0] != '\0', "no detail for '%s'", names[i]);
    }
    hpr_ctx_destroy(ctx);
}
END_TEST

/* ---- the default device set, auto ---- */

/* dir/name holding text (an .icd file names its library on its first line). */
static void write_text(const char *dir, const char *name, const char *text)
{
    char path[512];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs(text, f);
    ck_assert_int_eq(fclose(f), 0);
}

/* An MSM of 2^15 points (the hybrid's minimum) on ctx's default devices; its report. */
static void default_msm(hpr_ctx *ctx, hpr_run_report *rep)
{
    size_t n = (size_t)1 << 15;
    unsigned char *points = malloc(n * 64), *scalars = malloc(n * 32), got[64];
    ck_assert_ptr_nonnull(points);
    ck_assert_ptr_nonnull(scalars);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, n, test_seed ^ 900, points, scalars), HPR_OK);
    ck_assert_msg(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got) == HPR_OK, "%s",
                  hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_ctx_last_report(ctx, rep), HPR_OK);
    free(points);
    free(scalars);
}

/* Where POCL is the only OpenCL driver, auto is the CPU and OpenCL is not even loaded; with
 * another driver installed, auto is "all" without the OpenCL CPU device; with a calibration
 * showing that device at half the CPU's speed or more, it joins. */
START_TEST(auto_leaves_pocl_out_unless_calibrated_to_help)
{
    char vendors[] = "/tmp/hpr-auto-vendors-XXXXXX", cache[] = "/tmp/hpr-auto-cache-XXXXXX", cmd[256];
    char cpu_key[256], cl_key[256], line[1200], id[16];
    hpr_run_report rep = {.struct_size = sizeof rep};
    ck_assert_ptr_nonnull(mkdtemp(vendors));
    ck_assert_ptr_nonnull(mkdtemp(cache));
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 1); /* 1 thread and POCL's 1: both fit 2 cores */
    ocl_first_device(id); /* with the machine's own drivers: POCL's device */
    setenv("OCL_ICD_VENDORS", vendors, 1);
    setenv("HPR_CACHE_DIR", cache, 1);
    write_text(vendors, "pocl.icd", "libpocl.so.2\n");

    hpr_ctx *ctx = test_ctx(NULL, 1);
    ck_assert_str_eq(hpr_ctx_devices(ctx), "cpu");
    ck_assert_msg(strstr(hpr_ctx_device_choice(ctx), "POCL") && strstr(hpr_ctx_device_choice(ctx), "not loaded"), "%s",
                  hpr_ctx_device_choice(ctx));
    default_msm(ctx, &rep);
    ck_assert_uint_eq(rep.ndevices, 1);
    {   /* a call that names auto gets the context's choice */
        unsigned char point[64], scalar[32], got[64];
        hpr_msm_opts asked = {sizeof asked, 0, 0, 0, "auto"};
        ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, 1, test_seed ^ 901, point, scalar), HPR_OK);
        ck_assert_msg(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, point, scalar, 1, got, &asked) == HPR_OK, "%s",
                      hpr_ctx_error_detail(ctx));
    }
    ck_assert_ptr_null(ctx->cl); /* the OpenCL runtime never opened: nothing loaded */
    hpr_ctx_destroy(ctx);

    write_text(vendors, "gpu.icd", "libnvidia-opencl.so.1\n"); /* another driver (absent here: not loaded) */
    ctx = test_ctx(NULL, 1);
    ck_assert_str_eq(hpr_ctx_devices(ctx), "all");
    ck_assert_msg(strstr(hpr_ctx_device_choice(ctx), "besides POCL") != NULL, "%s", hpr_ctx_device_choice(ctx));
    default_msm(ctx, &rep);
    ck_assert_msg(rep.ndevices == 1 && strstr(rep.notes, "left out by the default device set auto"),
                  "devices %u, notes '%s'", rep.ndevices, rep.notes);
    ck_assert_int_eq(dev_profile_key(ctx, "cpu", cpu_key, sizeof cpu_key), HPR_OK);
    ck_assert_int_eq(dev_profile_key(ctx, id, cl_key, sizeof cl_key), HPR_OK);
    hpr_ctx_destroy(ctx);

    /* POCL's device calibrated at 0.4 and then 0.6 of the CPU's speed: only the second joins */
    snprintf(cmd, sizeof cmd, "%s/gpu.icd", vendors);
    ck_assert_int_eq(unlink(cmd), 0);
    for (int helps = 0; helps < 2; helps++) {
        snprintf(line, sizeof line,
                 "{\"key\": \"%s\", \"curve\": \"bn254\", \"log_n\": 15, \"points_per_s\": 1000000.0}\n"
                 "{\"key\": \"%s\", \"curve\": \"bn254\", \"log_n\": 15, \"points_per_s\": %s}\n",
                 cpu_key, cl_key, helps ? "600000.0" : "400000.0");
        write_text(cache, "profile.jsonl", line);
        setenv("HPR_SCHED_EVERY_DEVICE", "1", 1); /* a tile held for the device, whatever the load */
        ctx = test_ctx(NULL, 1);
        unsetenv("HPR_SCHED_EVERY_DEVICE");
        ck_assert_str_eq(hpr_ctx_devices(ctx), helps ? "all" : "cpu");
        default_msm(ctx, &rep);
        ck_assert_msg(rep.ndevices == (helps ? 2u : 1u), "calibrated at %s of the CPU: %u devices, notes '%s'",
                      helps ? "0.6" : "0.4", rep.ndevices, rep.notes);
        if (helps)
            ck_assert_msg(rep.devices[1].tiles >= 1, "the calibrated POCL device computed no tile");
        hpr_ctx_destroy(ctx);
    }
    unsetenv("OCL_ICD_VENDORS");
    unsetenv("POCL_MAX_PTHREAD_COUNT");
    snprintf(cmd, sizeof cmd, "rm -rf %s %s", vendors, cache);
    ck_assert_int_eq(system(cmd), 0);
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
    TCase *defaults = test_case(s, "defaults", 600);
    tcase_add_test(defaults, auto_leaves_pocl_out_unless_calibrated_to_help);
    return run_suite(s);
}
