/*
 * test_misuse.c: the public API used as a hostile or careless caller would (issue 21, item 2):
 * NULL for every pointer argument of every call (a status or a documented neutral value,
 * never a crash), absurd MSM tilings and sizes refused as invalid before anything is
 * allocated, the LDE's forbidden overlap detected, malformed environment knobs named with
 * their value (hpr_ctx_error_detail(NULL) after a failed hpr_ctx_create), and input paths
 * that cannot hang or lie: a FIFO with no writer, a directory, /dev/zero, a /proc file and
 * an empty file given as the zkey or the witness are refused at once with words that say
 * what they are; the runtime's stream reader (runtime/base/rt_fs.h) keeps its bound.
 * Check forks each test: a call that blocks fails on the test case's timeout.
 */
#define _POSIX_C_SOURCE 200809L /* setenv, mkdtemp, mkfifo */
#include "test_support.h"

#include "runtime/base/rt_fs.h"

#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define PS 64 /* a BN254 G1 point */

static hpr_ctx *cpu_ctx(void)
{
    return test_ctx("cpu", 1);
}

static void assert_detail(const hpr_ctx *ctx, const char *needle)
{
    const char *detail = hpr_ctx_error_detail(ctx);
    ck_assert_msg(detail && strstr(detail, needle), "the detail '%s' does not name '%s'", detail ? detail : "(null)",
                  needle);
}

/* The accessors and plain calls that take no context: NULL gives a neutral value. */
START_TEST(null_getters_are_neutral)
{
    unsigned char pt[PS] = {0};
    char buf[256];
    size_t dom = 7, vars = 7, pub = 7;
    hpr_run_report rep = {.struct_size = sizeof rep};
    hpr_ctx *ctx = cpu_ctx();
    ck_assert_int_eq(hpr_cpu_info_get(NULL), HPR_ERR_INVALID_ARGUMENT);
    hpr_config_default(NULL);
    ck_assert_str_eq(hpr_version(NULL, NULL, NULL), HPR_VERSION_STRING);
    ck_assert_int_eq(hpr_cpu_tier_check(NULL, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_nonnull(hpr_ctx_cpu_tier(NULL));
    ck_assert_uint_eq(hpr_ctx_threads(NULL), 0);
    ck_assert_ptr_nonnull(hpr_ctx_error_detail(NULL));
    ck_assert_str_eq(hpr_ctx_notice(NULL), "");
    ck_assert_int_eq(hpr_ctx_last_report(NULL, &rep), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_ctx_last_report(ctx, NULL), HPR_ERR_INVALID_ARGUMENT);
    hpr_ctx_cancel(NULL);
    hpr_ctx_destroy(NULL);
    ck_assert_uint_eq(hpr_device_count(NULL), 0);
    ck_assert_ptr_nonnull(hpr_opencl_notice(NULL));
    ck_assert(hpr_calibrated_speed(NULL, "cpu", HPR_CURVE_BN254, 10) == 0);
    ck_assert(hpr_calibrated_speed(ctx, NULL, HPR_CURVE_BN254, 10) == 0);
    ck_assert(hpr_calibrated_speed(ctx, "cpu", (hpr_curve)77, 10) == 0);
    ck_assert(hpr_calibrated_ntt_speed(NULL, "cpu", HPR_FIELD_GOLDILOCKS, 10) == 0);
    ck_assert(hpr_calibrated_ntt_speed(ctx, NULL, HPR_FIELD_GOLDILOCKS, 10) == 0);
    ck_assert_uint_eq(hpr_bases_count(NULL), 0);
    hpr_bases_destroy(NULL);
    ck_assert_int_eq(hpr_groth16_prover_curve(NULL), 0);
    hpr_groth16_prover_sizes(NULL, &dom, &vars, &pub);
    ck_assert(dom == 0 && vars == 0 && pub == 0);
    hpr_groth16_prover_sizes(NULL, NULL, NULL, NULL);
    hpr_groth16_prover_destroy(NULL);
    hpr_groth16_proof_clear(NULL);
    ck_assert_int_eq(hpr_point_to_json(HPR_CURVE_BN254, HPR_G1, NULL, buf, sizeof buf), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_point_to_json(HPR_CURVE_BN254, HPR_G1, pt, NULL, 256), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_point_from_decimal(HPR_CURVE_BN254, HPR_G1, NULL, "1", "1", pt), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_point_from_decimal(HPR_CURVE_BN254, HPR_G1, "0", "1", "0", NULL), HPR_ERR_INVALID_ARGUMENT);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* Every call that takes a context: a NULL context, then NULL for each other pointer. */
START_TEST(null_arguments_are_invalid)
{
    unsigned char pts[2 * PS], sc[64], out[PS];
    unsigned log_n[1] = {10};
    unsigned char data[64] = {0};
    hpr_device_info info = {.struct_size = sizeof info};
    hpr_bases *bases = NULL;
    hpr_groth16_prover *prover = NULL;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    hpr_ctx *ctx = cpu_ctx(), *none = NULL;
    hpr_config cfg;
    hpr_config_default(&cfg);
    ck_assert_int_eq(hpr_ctx_create(&cfg, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, 2, 1, pts, sc), HPR_OK);
    ck_assert_int_eq(hpr_random_msm_inputs(none, HPR_CURVE_BN254, HPR_G1, 2, 1, pts, sc), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_calibrate(none, "cpu", HPR_CURVE_BN254, log_n, 1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_calibrate(ctx, NULL, HPR_CURVE_BN254, log_n, 1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_calibrate(ctx, "cpu", HPR_CURVE_BN254, NULL, 1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_calibrate_ntt(none, "cpu", HPR_FIELD_GOLDILOCKS, log_n, 1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, NULL, HPR_FIELD_GOLDILOCKS, log_n, 1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "cpu", HPR_FIELD_GOLDILOCKS, NULL, 1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_device_get_info(none, 0, &info), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_device_get_info(ctx, 0, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_device_prepare(none, "cl:0.0", HPR_CURVE_BN254, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_device_prepare(ctx, NULL, HPR_CURVE_BN254, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm(none, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, NULL, sc, 2, out), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, NULL, 2, out), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_bases_create(none, HPR_CURVE_BN254, HPR_G1, pts, 2, &bases), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_bases_create(ctx, HPR_CURVE_BN254, HPR_G1, NULL, 2, &bases), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_bases_create(ctx, HPR_CURVE_BN254, HPR_G1, pts, 2, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_bases_create(ctx, HPR_CURVE_BN254, HPR_G1, pts, 2, &bases), HPR_OK);
    ck_assert_int_eq(hpr_msm_bases(none, bases, sc, 2, out, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm_bases(ctx, NULL, sc, 2, out, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm_bases(ctx, bases, NULL, 2, out, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_msm_bases(ctx, bases, sc, 2, NULL, NULL), HPR_ERR_INVALID_ARGUMENT);
    hpr_bases_destroy(bases);
    ck_assert_int_eq(hpr_point_check(none, HPR_CURVE_BN254, HPR_G1, pts), HPR_OK); /* ctx only holds the detail */
    ck_assert_int_eq(hpr_point_check(none, HPR_CURVE_BN254, HPR_G1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_point_check(ctx, HPR_CURVE_BN254, HPR_G1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_ntt(none, HPR_FIELD_GOLDILOCKS, 3, data, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_GOLDILOCKS, 3, NULL, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_ntt_lde(none, HPR_FIELD_GOLDILOCKS, 2, 2, NULL, 1, data, data + 32), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_GOLDILOCKS, 2, 2, NULL, 1, NULL, data), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_GOLDILOCKS, 2, 2, NULL, 1, data, NULL), HPR_ERR_INVALID_ARGUMENT);

    file_buf zk = read_fixture("bn128_2e10", "circuit.zkey"), wt = read_fixture("bn128_2e10", "witness.wtns");
    ck_assert_int_eq(hpr_groth16_prover_create(none, "x.zkey", &prover), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, NULL, &prover), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, "x.zkey", NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(none, zk.data, zk.len, &prover), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, zk.data, zk.len, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_zkey_sizes(ctx, NULL, 10, NULL, NULL, NULL, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_zkey_sizes(ctx, zk.data, zk.len, NULL, NULL, NULL, NULL), HPR_OK);
    ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, zk.data, zk.len, &prover), HPR_OK);
    hpr_groth16_prover_sizes(prover, NULL, NULL, NULL);
    ck_assert_int_eq(hpr_groth16_prove(none, prover, wt.data, wt.len, &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prove(ctx, NULL, wt.data, wt.len, &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prove(ctx, prover, NULL, wt.len, &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prove(ctx, prover, wt.data, wt.len, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prove_file(none, prover, "w.wtns", &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prove_file(ctx, NULL, "w.wtns", &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prove_file(ctx, prover, NULL, &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prove_file(ctx, prover, "w.wtns", NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prove(ctx, prover, wt.data, wt.len, &proof), HPR_OK);
    ck_assert_int_eq(hpr_groth16_verify(none, prover, &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_verify(ctx, NULL, &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_verify(ctx, prover, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_verify_json(none, "{}", 2, "[]", 2, "{}", 2), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_verify_json(ctx, NULL, 2, "[]", 2, "{}", 2), HPR_ERR_INVALID_ARGUMENT);
    hpr_groth16_proof_clear(&proof);
    hpr_groth16_prover_destroy(prover);
    free(zk.data);
    free(wt.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* hpr_groth16_proof_json: a NULL proof or output, and public signals missing while n_public
 * says there are some (it read through the NULL pointer). */
START_TEST(proof_json_refuses_missing_signals)
{
    hpr_ctx *ctx = cpu_ctx();
    hpr_groth16_prover *prover = NULL;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    char *pj = (char *)"x", *uj = (char *)"x";
    file_buf zk = read_fixture("bn128_2e10", "circuit.zkey"), wt = read_fixture("bn128_2e10", "witness.wtns");
    ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, zk.data, zk.len, &prover), HPR_OK);
    ck_assert_int_eq(hpr_groth16_prove(ctx, prover, wt.data, wt.len, &proof), HPR_OK);
    ck_assert_uint_gt(proof.n_public, 0);
    ck_assert_int_eq(hpr_groth16_proof_json(NULL, &pj, &uj), HPR_ERR_INVALID_ARGUMENT);
    ck_assert(pj == NULL && uj == NULL);
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, NULL, &uj), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, &pj, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(pj);
    unsigned char *signals = proof.public_signals;
    proof.public_signals = NULL;
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, &pj, &uj), HPR_ERR_INVALID_ARGUMENT);
    ck_assert(pj == NULL && uj == NULL);
    proof.public_signals = signals;
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, &pj, &uj), HPR_OK);
    free(pj);
    free(uj);
    hpr_groth16_proof_clear(&proof);
    hpr_groth16_prover_destroy(prover);
    free(zk.data);
    free(wt.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

static hpr_status msm_with(hpr_ctx *ctx, const unsigned char *pts, const unsigned char *sc, size_t n, unsigned wb,
                           unsigned chunks, unsigned per_tile, unsigned char *out)
{
    hpr_msm_opts opts = {sizeof opts, wb, chunks, per_tile, "cpu"};
    return hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, n, out, &opts);
}

/* point_chunks and windows_per_tile of 0xffffffff asked for 64 TiB; each bound is named, and
 * the largest values allowed still give the answer. */
START_TEST(absurd_msm_tiling_is_invalid)
{
    enum { N = 64 };
    static unsigned char pts[N * PS], sc[N * 32];
    unsigned char want[PS], got[PS];
    hpr_ctx *ctx = cpu_ctx();
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, N, 5, pts, sc), HPR_OK);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, N, want), HPR_OK);
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 0, 0xffffffffu, 0xffffffffu, got), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "point_chunks = 4294967295");
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 0, 0, 0xffffffffu, got), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "windows_per_tile = 4294967295");
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 0, N + 1, 0, got), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "1..64");
    /* 254-bit scalars in 16-bit windows: 16 windows (254 / 16 + 1), never 40 */
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 16, 0, 40, got), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "windows_per_tile = 40");
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 21, 0, 0, got), HPR_ERR_INVALID_ARGUMENT);
    /* both largest values at once in 4-bit windows (64 windows of 8 buckets), and the largest
     * windows_per_tile of 16-bit windows in one chunk: 64 one-point chunks of 16-bit windows
     * took 64 x 16 bucket reductions of 2^15 buckets, over the suite's timeout under ASan on a
     * loaded machine */
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 4, N, 65, got), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "1..64");
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 4, N, 64, got), HPR_OK);
    ck_assert_mem_eq(got, want, PS);
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 16, 1, 17, got), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "1..16");
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 16, 1, 16, got), HPR_OK);
    ck_assert_mem_eq(got, want, PS);
    ck_assert_int_eq(msm_with(ctx, pts, sc, N, 0, 1, 254, got), HPR_OK); /* 1-bit windows' count */
    ck_assert_mem_eq(got, want, PS);
    ck_assert_int_eq(msm_with(ctx, pts, sc, 0, 0, 2, 0, got), HPR_ERR_INVALID_ARGUMENT); /* n = 0: one chunk */
    /* random inputs: at most 2^32 - 1 of them, refused before anything is written */
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, (size_t)1 << 40, 1, NULL, NULL),
                     HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "n = 1099511627776");
    hpr_ctx_destroy(ctx);
}
END_TEST

/* hpr_ntt_lde: in and out must not overlap (the header's rule, now enforced), and a log_n
 * whose sum with log2(rate) would wrap is refused rather than shifted past the word. */
START_TEST(lde_overlap_and_wrap_are_invalid)
{
    enum { LOG = 4, N = 1 << LOG, ES = 8 }; /* goldilocks */
    static unsigned char buf[(N + 2 * N) * ES * 2];
    hpr_ctx *ctx = cpu_ctx();
    for (size_t i = 0; i < N; i++)
        buf[i * ES] = (unsigned char)(i + 1);
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_GOLDILOCKS, LOG, 2, NULL, 1, buf, buf), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "overlap");
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_GOLDILOCKS, LOG, 2, NULL, 1, buf, buf + N * ES - 8),
                     HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_GOLDILOCKS, LOG, 2, NULL, 1, buf + 2 * N * ES - 8, buf),
                     HPR_ERR_INVALID_ARGUMENT); /* in inside the tail of out */
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_GOLDILOCKS, LOG, 2, NULL, 1, buf, buf + N * ES), HPR_OK); /* adjacent */
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_GOLDILOCKS, 0xffffffffu, 2, NULL, 1, buf, buf + N * ES),
                     HPR_ERR_INVALID_ARGUMENT);
    assert_detail(ctx, "two-adicity");
    hpr_ctx_destroy(ctx);
}
END_TEST

/* hpr_ctx_create with a malformed environment knob: HPR_ERR_INVALID_ARGUMENT, and
 * hpr_ctx_error_detail(NULL) names the variable and its value. */
static void expect_knob_refused(const char *name, const char *value, const char *needle)
{
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *ctx = NULL;
    char want[128];
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    setenv(name, value, 1);
    ck_assert_msg(hpr_ctx_create(&cfg, &ctx) == HPR_ERR_INVALID_ARGUMENT, "%s=%s was accepted", name, value);
    ck_assert_ptr_null(ctx);
    snprintf(want, sizeof want, "%s='%s'", name, value);
    assert_detail(NULL, want);
    assert_detail(NULL, needle);
    unsetenv(name);
}

static void expect_knob_accepted(const char *name, const char *value)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    setenv(name, value, 1);
    ck_assert_msg(hpr_ctx_create(&cfg, &ctx) == HPR_OK, "%s=%s: %s", name, value, hpr_ctx_error_detail(NULL));
    ck_assert_str_eq(hpr_ctx_error_detail(NULL), "");
    hpr_ctx_destroy(ctx);
    unsetenv(name);
}

START_TEST(bad_environment_values_are_named)
{
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *ctx = NULL;
    expect_knob_refused("HPR_CPU", "bogus", "unknown CPU tier (expected portable, adx, avx2, avx512 or neon)");
    expect_knob_refused("HPR_CL_WORDS", "bogus", "standard, int128, limb32 or ptx");
    expect_knob_refused("HPR_CL_MSM", "fast", "owner or sorted");
    expect_knob_refused("HPR_CL_MSM_ITEMS", "-3", "work-items");
    expect_knob_refused("HPR_CL_MAX_ALLOC", "1G", "bytes");
    expect_knob_refused("HPR_CL_INJECT_FAULT", "cl:0", "cl:P.D");
    expect_knob_refused("HPR_SCHED_INJECT_FAULT", "cl:0.0@0", "cl:P.D@K");
    expect_knob_refused("HPR_SCHED_TILES", "0,1", "min,probe");
    expect_knob_refused("HPR_SCHED_TILES", "2,1,4,8,9", "min,probe");
    expect_knob_refused("HPR_SCHED_TILES", "2,1,4,21", "c 0..20");
    expect_knob_refused("HPR_NTT_FOUR_STEP", "yes", "0 or 1");
    expect_knob_refused("HPR_SCHED_EVERY_DEVICE", "12", "0 to 9");
    expect_knob_refused("HPR_SCHED_EVERY_DEVICE", "yes", "0 to 9");
    expect_knob_accepted("HPR_SCHED_EVERY_DEVICE", "2");
    expect_knob_accepted("HPR_CPU", "portable");
    expect_knob_accepted("HPR_CPU", "");
    expect_knob_accepted("HPR_CL_WORDS", "limb32");
    expect_knob_accepted("HPR_CL_MSM", "sorted");
    expect_knob_accepted("HPR_CL_MSM_ITEMS", "1024");
    expect_knob_accepted("HPR_CL_MAX_ALLOC", "19200");
    expect_knob_accepted("HPR_CL_INJECT_FAULT", "cl:0.0");
    expect_knob_accepted("HPR_SCHED_INJECT_FAULT", "cl:0.0@2");
    expect_knob_accepted("HPR_SCHED_INJECT_FAULT", "cl:1.12");
    expect_knob_accepted("HPR_SCHED_TILES", "2,1,4,8");
    expect_knob_accepted("HPR_SCHED_TILES", "1,1");
    expect_knob_accepted("HPR_NTT_FOUR_STEP", "1");
    /* the config's tier wins over HPR_CPU, and is named itself when it is the bad one */
    setenv("HPR_CPU", "bogus", 1);
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    cfg.cpu_tier = "portable";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    hpr_ctx_destroy(ctx);
    ctx = NULL;
    unsetenv("HPR_CPU");
    cfg.cpu_tier = "sse9";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(NULL, "cpu_tier 'sse9': unknown CPU tier");
    cfg.cpu_tier = NULL;
    cfg.devices = "gpu";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_ERR_UNKNOWN_DEVICE);
    assert_detail(NULL, "device 'gpu'");
    cfg.devices = "cpu";
    cfg.threads = 0xffffffffu;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_ERR_INVALID_ARGUMENT);
    assert_detail(NULL, "threads = 4294967295");
    cfg.threads = 1;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK); /* a success clears the detail */
    ck_assert_str_eq(hpr_ctx_error_detail(NULL), "");
    hpr_ctx_destroy(ctx);
}
END_TEST

/* A scratch directory with a FIFO (no writer), a subdirectory and an empty file. */
typedef struct {
    char dir[64], fifo[96], sub[96], empty[96];
} scratch;

static void scratch_make(scratch *s)
{
    snprintf(s->dir, sizeof s->dir, "/tmp/hpr_misuse_XXXXXX");
    ck_assert_ptr_nonnull(mkdtemp(s->dir));
    snprintf(s->fifo, sizeof s->fifo, "%s/fifo", s->dir);
    snprintf(s->sub, sizeof s->sub, "%s/sub", s->dir);
    snprintf(s->empty, sizeof s->empty, "%s/empty", s->dir);
    ck_assert_int_eq(mkfifo(s->fifo, 0600), 0);
    ck_assert_int_eq(mkdir(s->sub, 0700), 0);
    int fd = open(s->empty, O_WRONLY | O_CREAT | O_TRUNC, 0600);
    ck_assert_int_ge(fd, 0);
    close(fd);
}

static void scratch_remove(const scratch *s)
{
    unlink(s->fifo);
    rmdir(s->sub);
    unlink(s->empty);
    rmdir(s->dir);
}

/* The zkey and the witness as a FIFO with no writer (this blocked forever), a directory,
 * /dev/zero, a /proc file and an empty file: refused at once, saying what each is. */
START_TEST(zkey_and_witness_paths_cannot_hang_or_lie)
{
    static const struct {
        int which; /* 0 fifo, 1 directory, 2 empty, else the path */
        const char *path, *says;
        hpr_status st;
    } cases[] = {
        {0, NULL, "is a FIFO, not a regular file", HPR_ERR_IO},
        {1, NULL, "is a directory", HPR_ERR_IO},
        {2, NULL, "is empty", HPR_ERR_FORMAT},
        {3, "/dev/zero", "is a character device, not a regular file", HPR_ERR_IO},
        {3, "/proc/self/status", "is not a regular file of known size", HPR_ERR_IO},
        {3, "/nonexistent/x", "No such file or directory", HPR_ERR_IO},
    };
    scratch s;
    hpr_ctx *ctx = cpu_ctx();
    hpr_groth16_prover *prover = NULL, *p2 = (hpr_groth16_prover *)&s;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    file_buf zk = read_fixture("bn128_2e10", "circuit.zkey");
    scratch_make(&s);
    ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, zk.data, zk.len, &prover), HPR_OK);
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        const char *const made[3] = {s.fifo, s.sub, s.empty};
        const char *path = cases[i].which < 3 ? made[cases[i].which] : cases[i].path;
        char want[160];
        ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &p2), cases[i].st);
        ck_assert_ptr_null(p2);
        snprintf(want, sizeof want, "zkey '%s' ", path);
        assert_detail(ctx, want);
        assert_detail(ctx, cases[i].says);
        ck_assert_int_eq(hpr_groth16_prove_file(ctx, prover, path, &proof), cases[i].st);
        snprintf(want, sizeof want, "witness '%s' ", path);
        assert_detail(ctx, want);
        assert_detail(ctx, cases[i].says);
        ck_assert_msg(!strstr(hpr_ctx_error_detail(ctx), "0 bytes") &&
                          !strstr(hpr_ctx_error_detail(ctx), "9223372036854775807"),
                      "%s", hpr_ctx_error_detail(ctx));
    }
    hpr_groth16_prover_destroy(prover);
    scratch_remove(&s);
    free(zk.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

typedef struct {
    const char *path;
    size_t len;
} writer_job;

/* Writes len bytes (byte i = i mod 251) into the FIFO path, then closes it. */
static void *fifo_writer(void *arg)
{
    const writer_job *w = arg;
    unsigned char block[4096];
    int fd = open(w->path, O_WRONLY);
    for (size_t done = 0; fd >= 0 && done < w->len;) {
        size_t n = w->len - done < sizeof block ? w->len - done : sizeof block;
        for (size_t i = 0; i < n; i++)
            block[i] = (unsigned char)((done + i) % 251);
        ssize_t put = write(fd, block, n);
        if (put <= 0)
            break;
        done += (size_t)put;
    }
    if (fd >= 0)
        close(fd);
    return NULL;
}

/* The runtime's input reader: streams accepted only when asked for, read to EOF within the
 * bound (one byte more is EFBIG, naming the bound), /proc files as streams of their content,
 * devices and directories refused by name. */
START_TEST(runtime_inputs_stream_within_bounds)
{
    scratch s;
    unsigned char *data = NULL;
    size_t len = 0;
    char why[256];
    pthread_t writer;
    writer_job job;
    scratch_make(&s);

    /* a FIFO as a stream: 200000 bytes, in full and in order */
    job = (writer_job){s.fifo, 200000};
    ck_assert_int_eq(pthread_create(&writer, NULL, fifo_writer, &job), 0);
    ck_assert_int_eq(rt_read_file(s.fifo, RT_INPUT_STREAMS, 1 << 20, &data, &len, why, sizeof why), 0);
    pthread_join(writer, NULL);
    ck_assert_uint_eq(len, 200000);
    for (size_t i = 0; i < len; i++)
        ck_assert_uint_eq(data[i], i % 251);
    free(data);

    /* past the bound: EFBIG, and the bound is named */
    job = (writer_job){s.fifo, 1001};
    ck_assert_int_eq(pthread_create(&writer, NULL, fifo_writer, &job), 0);
    ck_assert_int_eq(rt_read_file(s.fifo, RT_INPUT_STREAMS, 1000, &data, &len, why, sizeof why), EFBIG);
    pthread_join(writer, NULL);
    ck_assert_ptr_null(data);
    ck_assert_msg(strstr(why, "longer than the 1000 bytes bound") != NULL, "%s", why);
    job = (writer_job){s.fifo, 1000}; /* exactly the bound is fine */
    ck_assert_int_eq(pthread_create(&writer, NULL, fifo_writer, &job), 0);
    ck_assert_int_eq(rt_read_file(s.fifo, RT_INPUT_STREAMS, 1000, &data, &len, why, sizeof why), 0);
    pthread_join(writer, NULL);
    ck_assert_uint_eq(len, 1000);
    free(data);

    /* a pipe's fd directly */
    int fds[2];
    ck_assert_int_eq(pipe(fds), 0);
    ck_assert_int_eq(write(fds[1], "0123456789", 10), 10);
    close(fds[1]);
    ck_assert_int_eq(rt_read_stream(fds[0], 9, &data, &len), EFBIG);
    close(fds[0]);

    /* a /proc file: a stream of its content when streams are accepted, refused otherwise */
    ck_assert_int_eq(rt_read_file("/proc/self/status", RT_INPUT_STREAMS, 1 << 20, &data, &len, why, sizeof why), 0);
    ck_assert_msg(len > 10 && strstr((char *)data, "Name:") != NULL, "%zu bytes", len);
    free(data);
    ck_assert_int_eq(rt_read_file("/proc/self/status", 0, 1 << 20, &data, &len, why, sizeof why), EINVAL);
    ck_assert_msg(strstr(why, "not a regular file of known size") != NULL, "%s", why);

    /* without RT_INPUT_STREAMS a FIFO is refused before its open could block */
    ck_assert_int_eq(rt_read_file(s.fifo, 0, 1 << 20, &data, &len, why, sizeof why), EINVAL);
    ck_assert_str_eq(why, "is a FIFO, not a regular file");
    ck_assert_int_eq(rt_read_file("/dev/zero", RT_INPUT_STREAMS, 1 << 20, &data, &len, why, sizeof why), EINVAL);
    ck_assert_str_eq(why, "is a character device, not a regular file, a FIFO or - (stdin)");
    ck_assert_int_eq(rt_read_file(s.sub, RT_INPUT_STREAMS, 1 << 20, &data, &len, why, sizeof why), EISDIR);
    ck_assert_msg(strstr(why, "is a directory") != NULL, "%s", why);
    ck_assert_int_eq(rt_read_file(s.empty, 0, 1 << 20, &data, &len, why, sizeof why), 0);
    ck_assert_uint_eq(len, 0); /* empty is the caller's to judge */
    free(data);
    ck_assert_ptr_null(rt_fopen_regular(s.fifo));
    ck_assert_int_eq(errno, EINVAL);
    scratch_remove(&s);
}
END_TEST

/* ---- struct_size (docs/api.md, "Structs that grow") ---- */

static void assert_detail_has(const char *detail, const char *words)
{
    ck_assert_msg(strstr(detail, words) != NULL, "detail '%s' lacks '%s'", detail, words);
}

/* hpr_config: 0, one byte short, a newer caller's larger struct with its tail zero (taken)
 * and with a member set there (refused). */
START_TEST(config_struct_size_is_checked)
{
    struct {
        hpr_config cfg;
        unsigned char newer[16];
    } big;
    hpr_ctx *ctx = NULL;
    hpr_config cfg;
    hpr_config_default(&cfg);
    ck_assert_uint_eq(cfg.struct_size, sizeof cfg);
    cfg.threads = 1;
    cfg.devices = "cpu";
    cfg.struct_size = 0;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(ctx);
    assert_detail_has(hpr_ctx_error_detail(NULL), "hpr_config.struct_size is 0: set it to sizeof(hpr_config)");
    cfg.struct_size = sizeof cfg - 1;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_ERR_INVALID_ARGUMENT);
    assert_detail_has(hpr_ctx_error_detail(NULL), "below");
    memset(&big, 0, sizeof big);
    big.cfg = cfg;
    big.cfg.struct_size = sizeof big;
    ck_assert_int_eq(hpr_ctx_create(&big.cfg, &ctx), HPR_OK);
    ck_assert_uint_eq(hpr_ctx_threads(ctx), 1);
    hpr_ctx_destroy(ctx);
    ctx = NULL;
    big.newer[3] = 1;
    ck_assert_int_eq(hpr_ctx_create(&big.cfg, &ctx), HPR_ERR_INVALID_ARGUMENT);
    assert_detail_has(hpr_ctx_error_detail(NULL), "newer libhyprove");
}
END_TEST

/* The options of the calls: a zeroed struct is refused by name before anything runs, a
 * sized one gives what no options give, a larger one with a set tail is refused. */
START_TEST(options_struct_size_is_checked)
{
    unsigned char pts[2 * PS], sc[64], out[PS], want[PS];
    uint64_t data[8] = {1, 2, 3, 4, 5, 6, 7, 8}, copy[8];
    uint32_t cols[16] = {0};
    hpr_merkle_tree *tree = (hpr_merkle_tree *)&data; /* must be set to NULL on failure */
    hpr_ctx *ctx = cpu_ctx();
    hpr_msm_opts zero_msm = {0}, msm = {.struct_size = sizeof msm, .device = "cpu"};
    hpr_ntt_opts zero_ntt = {0};
    hpr_commit_opts zero_commit = {0};
    struct {
        hpr_msm_opts o;
        unsigned char newer[8];
    } big = {{.struct_size = sizeof big, .device = "cpu"}, {0}};
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, 2, 5, pts, sc), HPR_OK);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, want), HPR_OK);
    memset(out, 0x5a, sizeof out);
    ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out, &zero_msm), HPR_ERR_INVALID_ARGUMENT);
    assert_detail_has(hpr_ctx_error_detail(ctx), "hpr_msm_opts.struct_size is 0");
    for (size_t i = 0; i < sizeof out; i++)
        ck_assert_uint_eq(out[i], 0x5a); /* nothing written */
    ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out, &msm), HPR_OK);
    ck_assert_mem_eq(out, want, sizeof out);
    ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out, &big.o), HPR_OK);
    ck_assert_mem_eq(out, want, sizeof out);
    big.newer[7] = 9;
    ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out, &big.o), HPR_ERR_INVALID_ARGUMENT);
    assert_detail_has(hpr_ctx_error_detail(ctx), "newer libhyprove");
    memcpy(copy, data, sizeof data);
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_GOLDILOCKS, 3, data, &zero_ntt), HPR_ERR_INVALID_ARGUMENT);
    assert_detail_has(hpr_ctx_error_detail(ctx), "hpr_ntt_opts.struct_size is 0");
    ck_assert_mem_eq(copy, data, sizeof data);
    ck_assert_int_eq(hpr_commit(ctx, HPR_FIELD_KOALABEAR, 4, 1, 1, cols, &zero_commit, &tree),
                     HPR_ERR_INVALID_ARGUMENT);
    assert_detail_has(hpr_ctx_error_detail(ctx), "hpr_commit_opts.struct_size is 0");
    ck_assert_ptr_null(tree);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* Outputs: a zero or short struct_size refused, a larger struct written only as far as this
 * library's struct reaches (the caller's tail untouched) and its struct_size set to that. */
START_TEST(output_struct_size_is_checked)
{
    unsigned char pts[2 * PS], sc[64], out[PS];
    struct {
        hpr_run_report r;
        unsigned char tail[32];
    } big;
    hpr_run_report zero = {0};
    hpr_cpu_info cpu = {0};
    hpr_ctx *ctx = cpu_ctx();
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, 2, 6, pts, sc), HPR_OK);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out), HPR_OK);
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &zero), HPR_ERR_INVALID_ARGUMENT);
    memset(&big, 0xab, sizeof big);
    big.r.struct_size = sizeof big;
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &big.r), HPR_OK);
    ck_assert_uint_eq(big.r.struct_size, sizeof big.r);
    ck_assert_uint_ge(big.r.ndevices, 1);
    ck_assert_str_eq(big.r.devices[0].device, "cpu");
    for (size_t i = 0; i < sizeof big.tail; i++)
        ck_assert_uint_eq(big.tail[i], 0xab);
    ck_assert_int_eq(hpr_cpu_info_get(&cpu), HPR_ERR_INVALID_ARGUMENT);
    cpu.struct_size = sizeof cpu - 1;
    ck_assert_int_eq(hpr_cpu_info_get(&cpu), HPR_ERR_INVALID_ARGUMENT);
    cpu.struct_size = sizeof cpu;
    ck_assert_int_eq(hpr_cpu_info_get(&cpu), HPR_OK);
    ck_assert_uint_ge(cpu.online_cpus, 1);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* A proof: a zeroed one (or its report) refused by name; without a report the proof is made
 * all the same; the report is the caller's; clear leaves the struct reusable and never frees
 * what a proof the library did not write points to. */
START_TEST(proof_struct_size_is_checked)
{
    file_buf wt = read_fixture("bn128_2e10", "witness.wtns");
    char path[1024];
    hpr_groth16_prover *prover = NULL;
    hpr_groth16_report rep = {0};
    hpr_groth16_proof zero = {0}, proof = {.struct_size = sizeof proof};
    hpr_ctx *ctx = cpu_ctx();
    fixture_path(path, sizeof path, "bn128_2e10", "circuit.zkey");
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &prover), HPR_OK);
    ck_assert_int_eq(hpr_groth16_prove(ctx, prover, wt.data, wt.len, &zero), HPR_ERR_INVALID_ARGUMENT);
    assert_detail_has(hpr_ctx_error_detail(ctx), "hpr_groth16_proof.struct_size is 0");
    proof.report = &rep;
    ck_assert_int_eq(hpr_groth16_prove(ctx, prover, wt.data, wt.len, &proof), HPR_ERR_INVALID_ARGUMENT);
    assert_detail_has(hpr_ctx_error_detail(ctx), "hpr_groth16_report.struct_size is 0");
    proof.report = NULL;
    ck_assert_int_eq(hpr_groth16_prove(ctx, prover, wt.data, wt.len, &proof), HPR_OK);
    ck_assert_int_eq(hpr_groth16_verify(ctx, prover, &proof), HPR_OK);
    ck_assert_ptr_null(proof.report);
    hpr_groth16_proof_clear(&proof);
    ck_assert_uint_eq(proof.struct_size, sizeof proof);
    ck_assert_ptr_null(proof.public_signals);
    rep.struct_size = sizeof rep;
    proof.report = &rep;
    ck_assert_int_eq(hpr_groth16_prove(ctx, prover, wt.data, wt.len, &proof), HPR_OK);
    ck_assert_ptr_eq(proof.report, &rep);
    ck_assert_uint_eq(rep.struct_size, sizeof rep);
    ck_assert(rep.total_s > 0 && rep.seconds[HPR_G16_MSM_A] >= 0);
    ck_assert_int_eq(hpr_groth16_verify(ctx, prover, &proof), HPR_OK);
    hpr_groth16_proof_clear(&proof);
    zero.public_signals = (unsigned char *)path; /* not the library's: clear must leave it */
    zero.n_public = 1;
    hpr_groth16_proof_clear(&zero);
    ck_assert_ptr_eq(zero.public_signals, (unsigned char *)path);
    hpr_groth16_prover_destroy(prover);
    free(wt.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("misuse");
    TCase *tc = test_case(s, "misuse", 120);
    tcase_add_test(tc, null_getters_are_neutral);
    tcase_add_test(tc, null_arguments_are_invalid);
    tcase_add_test(tc, proof_json_refuses_missing_signals);
    tcase_add_test(tc, absurd_msm_tiling_is_invalid);
    tcase_add_test(tc, lde_overlap_and_wrap_are_invalid);
    tcase_add_test(tc, bad_environment_values_are_named);
    tcase_add_test(tc, config_struct_size_is_checked);
    tcase_add_test(tc, options_struct_size_is_checked);
    tcase_add_test(tc, output_struct_size_is_checked);
    tcase_add_test(tc, proof_struct_size_is_checked);
    /* a blocked open fails here on the timeout instead of hanging the suite */
    TCase *io = test_case(s, "inputs", 30);
    tcase_add_test(io, zkey_and_witness_paths_cannot_hang_or_lie);
    tcase_add_test(io, runtime_inputs_stream_within_bounds);
    return run_suite(s);
}
