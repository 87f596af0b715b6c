/*
 * test_progress.c: the progress callback and the cancellation of the long calls (hyprove.h,
 * hpr_progress): an MSM, an NTT, an LDE and a Groth16 proof report their call and phase with
 * fractions in [0, 1] that never decrease and end at exactly 1, and give the bits of the same
 * call without a callback; a cancel (the caller's flag from the callback, or set before the
 * call; hpr_ctx_cancel from another thread) stops an MSM, an NTT and a proof with
 * HPR_ERR_CANCELLED and a detail naming the call, writes no MSM result and leaves an NTT's
 * data as it was, and the next call on the same context succeeds with the right result.
 * With a device, the hybrid scheduler's MSM reports and cancels the same way. The overhead of
 * a callback is printed (a 2^16 MSM with and without), not asserted.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <pthread.h>
#include <stdatomic.h>
#include <string.h>
#include <time.h>

#define MAX_RECORDS 100000

typedef struct {
    char call[32], phase[32];
    double fraction, elapsed_s;
} record;

/* What a callback saw, and what it does: set *flag at its cancel_at-th call (1-based; 0
 * never), when it first sees the phase cancel_phase, or a fraction of cancel_fraction or more
 * (0: never). */
typedef struct {
    record *recs;
    size_t count;
    atomic_int inside, overlapped;
    volatile int flag;
    size_t cancel_at;
    const char *cancel_phase;
    double cancel_fraction;
    /* hpr_ctx_cancel from another thread: the first report waits until it is done */
    hpr_ctx *ctx;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int first_seen, cancel_done;
} recorder;

static recorder *recorder_new(void)
{
    recorder *r = calloc(1, sizeof *r);
    ck_assert_ptr_nonnull(r);
    r->recs = calloc(MAX_RECORDS, sizeof *r->recs);
    ck_assert_ptr_nonnull(r->recs);
    pthread_mutex_init(&r->lock, NULL);
    pthread_cond_init(&r->cond, NULL);
    return r;
}

static void recorder_free(recorder *r)
{
    pthread_mutex_destroy(&r->lock);
    pthread_cond_destroy(&r->cond);
    free(r->recs);
    free(r);
}

static void on_progress(const hpr_progress *p, void *user)
{
    recorder *r = user;
    if (atomic_fetch_add(&r->inside, 1) != 0)
        atomic_store(&r->overlapped, 1);
    if (r->count < MAX_RECORDS) {
        record *rec = &r->recs[r->count];
        snprintf(rec->call, sizeof rec->call, "%s", p->call);
        snprintf(rec->phase, sizeof rec->phase, "%s", p->phase);
        rec->fraction = p->fraction;
        rec->elapsed_s = p->elapsed_s;
    }
    r->count++;
    if (r->count == r->cancel_at || (r->cancel_phase && strcmp(p->phase, r->cancel_phase) == 0) ||
        (r->cancel_fraction > 0 && p->fraction >= r->cancel_fraction))
        __atomic_store_n(&r->flag, 1, __ATOMIC_RELAXED); /* the flag is read by the pool's threads */
    if (r->ctx) { /* the other thread's hpr_ctx_cancel lands before the next tile */
        pthread_mutex_lock(&r->lock);
        r->first_seen = 1;
        pthread_cond_broadcast(&r->cond);
        while (!r->cancel_done)
            pthread_cond_wait(&r->cond, &r->lock);
        pthread_mutex_unlock(&r->lock);
    }
    atomic_fetch_sub(&r->inside, 1);
}

/* A context on devices with threads threads, reporting to r every interval_s (r NULL: no
 * callback, no cancel flag). */
static hpr_ctx *progress_ctx(const char *devices, unsigned threads, recorder *r, double interval_s)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    ck_assert(cfg.progress == NULL && cfg.progress_user == NULL && cfg.progress_interval_s == 0 && cfg.cancel == NULL);
    cfg.devices = devices;
    cfg.threads = threads;
    if (r) {
        cfg.progress = on_progress;
        cfg.progress_user = r;
        cfg.progress_interval_s = interval_s;
        cfg.cancel = &r->flag;
    }
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    return ctx;
}

/* The records from first on: at least min_calls, of call, fractions in [0, 1], never
 * decreasing, below 1 but the last, which is 1; never two callbacks at once. */
static void expect_reports(recorder *r, size_t first, const char *call, size_t min_calls)
{
    ck_assert_msg(r->count - first >= min_calls, "%s: %zu reports, expected at least %zu", call, r->count - first,
                  min_calls);
    ck_assert_uint_le(r->count, MAX_RECORDS);
    ck_assert_int_eq(atomic_load(&r->overlapped), 0);
    for (size_t i = first; i < r->count; i++) {
        const record *rec = &r->recs[i];
        ck_assert_str_eq(rec->call, call);
        ck_assert_msg(rec->fraction >= 0 && rec->fraction <= 1, "%s: fraction %g", call, rec->fraction);
        ck_assert_msg(rec->elapsed_s >= 0, "%s: elapsed %g", call, rec->elapsed_s);
        if (i > first) {
            ck_assert_msg(rec->fraction >= r->recs[i - 1].fraction, "%s: fraction %g after %g", call, rec->fraction,
                          r->recs[i - 1].fraction);
            ck_assert(rec->elapsed_s >= r->recs[i - 1].elapsed_s);
        }
        if (i + 1 < r->count)
            ck_assert_msg(rec->fraction < 1, "%s: fraction 1 before the end (report %zu of %zu)", call, i - first,
                          r->count - first);
    }
    ck_assert_msg(r->recs[r->count - 1].fraction == 1.0, "%s: the last fraction is %g", call,
                  r->recs[r->count - 1].fraction);
}

/* Random BN254 G1 inputs of n points. */
static void msm_inputs(size_t n, unsigned char **points, unsigned char **scalars)
{
    hpr_ctx *ctx = test_ctx("cpu", 0);
    *points = malloc(n * hpr_point_size(HPR_CURVE_BN254, HPR_G1));
    *scalars = malloc(n * HPR_SCALAR_SIZE);
    ck_assert(*points && *scalars);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, n, test_seed, *points, *scalars), HPR_OK);
    hpr_ctx_destroy(ctx);
}

/* The MSM without a callback. */
static void reference_msm(const unsigned char *points, const unsigned char *scalars, size_t n, unsigned char *out)
{
    hpr_ctx *ctx = progress_ctx("cpu", 2, NULL, 0);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, out), HPR_OK);
    hpr_ctx_destroy(ctx);
}

START_TEST(msm_reports_and_matches_the_msm_without_a_callback)
{
    size_t n = 1u << 14;
    unsigned char *points, *scalars, want[64], got[64];
    recorder *r = recorder_new();
    msm_inputs(n, &points, &scalars);
    reference_msm(points, scalars, n, want);
    hpr_ctx *ctx = progress_ctx("cpu", 2, r, 1e-6);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_OK);
    ck_assert(memcmp(got, want, sizeof want) == 0);
    expect_reports(r, 0, "msm", 2);
    for (size_t i = 0; i < r->count; i++)
        ck_assert_str_eq(r->recs[i].phase, "");
    /* the bases variant is an MSM too */
    hpr_bases *bases = NULL;
    size_t first = r->count;
    ck_assert_int_eq(hpr_bases_create(ctx, HPR_CURVE_BN254, HPR_G1, points, n, &bases), HPR_OK);
    ck_assert_int_eq(hpr_msm_bases(ctx, bases, scalars, n, got, NULL), HPR_OK);
    ck_assert(memcmp(got, want, sizeof want) == 0);
    expect_reports(r, first, "msm", 2);
    hpr_bases_destroy(bases);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
    free(points);
    free(scalars);
}
END_TEST

START_TEST(a_long_interval_gives_the_final_report_alone)
{
    size_t n = 1u << 12;
    unsigned char *points, *scalars, want[64], got[64];
    recorder *r = recorder_new();
    msm_inputs(n, &points, &scalars);
    reference_msm(points, scalars, n, want);
    hpr_ctx *ctx = progress_ctx("cpu", 2, r, 1000);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_OK);
    ck_assert(memcmp(got, want, sizeof want) == 0);
    expect_reports(r, 0, "msm", 1);
    ck_assert_uint_eq(r->count, 1);
    /* a failed call reports nothing */
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(r->count, 1);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
    free(points);
    free(scalars);
}
END_TEST

/* BN254 Fr elements below p: the top byte of each is cleared. */
static unsigned char *ntt_input(size_t count)
{
    test_rng rng;
    unsigned char *d = malloc(count * 32);
    ck_assert_ptr_nonnull(d);
    test_rng_init(&rng, 7);
    for (size_t i = 0; i < count * 32; i += 8) {
        uint64_t v = test_rng_next(&rng);
        memcpy(d + i, &v, 8);
    }
    for (size_t i = 0; i < count; i++)
        d[i * 32 + 31] = 0;
    return d;
}

START_TEST(ntt_and_lde_report_and_match_the_calls_without_a_callback)
{
    unsigned log_n = 16, lde_log = 12;
    size_t n = (size_t)1 << log_n, m = (size_t)1 << lde_log;
    unsigned char *input = ntt_input(n), *want = malloc(n * 32), *got = malloc(n * 32);
    unsigned char *lde_want = malloc(2 * 4 * m * 32), *lde_got = malloc(2 * 4 * m * 32);
    recorder *r = recorder_new();
    ck_assert(want && got && lde_want && lde_got);
    hpr_ctx *plain = progress_ctx("cpu", 2, NULL, 0), *ctx = progress_ctx("cpu", 2, r, 1e-6);
    memcpy(want, input, n * 32);
    memcpy(got, input, n * 32);
    ck_assert_int_eq(hpr_ntt(plain, HPR_FIELD_BN254_FR, log_n, want, NULL), HPR_OK);
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_BN254_FR, log_n, got, NULL), HPR_OK);
    ck_assert(memcmp(got, want, n * 32) == 0);
    expect_reports(r, 0, "ntt", 2);
    size_t first = r->count;
    ck_assert_int_eq(hpr_ntt_lde(plain, HPR_FIELD_BN254_FR, lde_log, 4, NULL, 2, input, lde_want), HPR_OK);
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_BN254_FR, lde_log, 4, NULL, 2, input, lde_got), HPR_OK);
    ck_assert(memcmp(lde_got, lde_want, 2 * 4 * m * 32) == 0);
    expect_reports(r, first, "ntt lde", 2);
    hpr_ctx_destroy(plain);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
    free(input);
    free(want);
    free(got);
    free(lde_want);
    free(lde_got);
}
END_TEST

/* Whether some record from first on has phase. */
static int saw_phase(const recorder *r, size_t first, const char *phase)
{
    for (size_t i = first; i < r->count; i++)
        if (strcmp(r->recs[i].phase, phase) == 0)
            return 1;
    return 0;
}

START_TEST(a_proof_reports_its_phases)
{
    static const char *phases[] = {"witness", "h", "msm A", "msm B1", "msm B2", "msm C", "msm H", "assemble"};
    char wtns[1024];
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    recorder *r = recorder_new();
    hpr_ctx *ctx = progress_ctx("cpu", 2, r, 1e-6);
    hpr_groth16_prover *p = test_open_prover(ctx, "bn128_2e10");
    fixture_path(wtns, sizeof wtns, "bn128_2e10", "witness.wtns");
    hpr_status st = hpr_groth16_prove_file(ctx, p, wtns, &proof);
    ck_assert_msg(st == HPR_OK, "%s (%s)", hpr_status_str(st), hpr_ctx_error_detail(ctx));
    expect_reports(r, 0, "groth16 prove", 8);
    for (size_t i = 0; i < sizeof phases / sizeof phases[0]; i++)
        ck_assert_msg(saw_phase(r, 0, phases[i]), "no report in the phase %s", phases[i]);
    ck_assert_int_eq(hpr_groth16_verify(ctx, p, &proof), HPR_OK);
    hpr_groth16_proof_clear(&proof);
    /* from the bytes: the same */
    file_buf wt = read_fixture("bn128_2e10", "witness.wtns");
    size_t first = r->count;
    ck_assert_int_eq(hpr_groth16_prove(ctx, p, wt.data, wt.len, &proof), HPR_OK);
    expect_reports(r, first, "groth16 prove", 8);
    hpr_groth16_proof_clear(&proof);
    free(wt.data);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
}
END_TEST

START_TEST(a_cancel_from_the_callback_stops_the_msm_and_the_context_stays_usable)
{
    size_t n = 1u << 14;
    unsigned char *points, *scalars, want[64], got[64], untouched[64];
    recorder *r = recorder_new();
    msm_inputs(n, &points, &scalars);
    reference_msm(points, scalars, n, want);
    hpr_ctx *ctx = progress_ctx("cpu", 2, r, 1e-6);
    r->cancel_fraction = 0.3; /* among the tiles (the points' checks are the first 1/8) */
    memset(got, 0xab, sizeof got);
    memcpy(untouched, got, sizeof got);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_ERR_CANCELLED);
    const char *detail = hpr_ctx_error_detail(ctx);
    ck_assert_msg(strstr(detail, "cancelled after") && strstr(detail, "% of the msm"), "detail: %s", detail);
    ck_assert(memcmp(got, untouched, sizeof got) == 0); /* no result written */
    ck_assert(r->count >= 1 && r->recs[r->count - 1].fraction < 1); /* no final report */
    ck_assert_str_eq(hpr_status_str(HPR_ERR_CANCELLED), "cancelled by the caller");
    /* the caller clears its flag; the next MSM on the context is right */
    __atomic_store_n(&r->flag, 0, __ATOMIC_RELAXED); /* the flag is read by the pool's threads */
    r->cancel_fraction = 0;
    size_t first = r->count;
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_OK);
    ck_assert(memcmp(got, want, sizeof want) == 0);
    expect_reports(r, first, "msm", 2);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
    free(points);
    free(scalars);
}
END_TEST

START_TEST(a_flag_set_before_the_call_cancels_it_at_once)
{
    size_t n = 1u << 12;
    unsigned char *points, *scalars, want[64], got[64];
    recorder *r = recorder_new();
    msm_inputs(n, &points, &scalars);
    reference_msm(points, scalars, n, want);
    hpr_ctx *ctx = progress_ctx("cpu", 2, r, 1e-6);
    __atomic_store_n(&r->flag, 1, __ATOMIC_RELAXED); /* the flag is read by the pool's threads */
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_ERR_CANCELLED);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "cancelled after 0% of the msm"), "detail: %s",
                  hpr_ctx_error_detail(ctx));
    ck_assert_uint_eq(r->count, 0);
    __atomic_store_n(&r->flag, 0, __ATOMIC_RELAXED); /* the flag is read by the pool's threads */
    /* hpr_ctx_cancel between calls is dropped when the next call begins */
    hpr_ctx_cancel(ctx);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_OK);
    ck_assert(memcmp(got, want, sizeof want) == 0);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
    free(points);
    free(scalars);
}
END_TEST

static void *cancel_thread(void *arg)
{
    recorder *r = arg;
    pthread_mutex_lock(&r->lock);
    while (!r->first_seen)
        pthread_cond_wait(&r->cond, &r->lock);
    hpr_ctx_cancel(r->ctx);
    r->cancel_done = 1;
    pthread_cond_broadcast(&r->cond);
    pthread_mutex_unlock(&r->lock);
    return NULL;
}

START_TEST(hpr_ctx_cancel_from_another_thread_stops_a_large_msm)
{
    size_t n = 1u << 16;
    unsigned char *points, *scalars, want[64], got[64];
    pthread_t t;
    recorder *r = recorder_new();
    msm_inputs(n, &points, &scalars);
    reference_msm(points, scalars, n, want);
    hpr_ctx *ctx = progress_ctx("cpu", 1, r, 1e-6);
    r->ctx = ctx;
    ck_assert_int_eq(pthread_create(&t, NULL, cancel_thread, r), 0);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_ERR_CANCELLED);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "of the msm"), "detail: %s", hpr_ctx_error_detail(ctx));
    pthread_join(t, NULL);
    r->ctx = NULL;
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_OK);
    ck_assert(memcmp(got, want, sizeof want) == 0);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
    free(points);
    free(scalars);
}
END_TEST

START_TEST(a_cancelled_ntt_leaves_its_data_as_it_was)
{
    unsigned log_n = 16;
    size_t n = (size_t)1 << log_n;
    unsigned char *input = ntt_input(n), *data = malloc(n * 32), *want = malloc(n * 32);
    recorder *r = recorder_new();
    ck_assert(data && want);
    hpr_ctx *ctx = progress_ctx("cpu", 2, r, 1e-6);
    memcpy(data, input, n * 32);
    r->cancel_at = 1;
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_BN254_FR, log_n, data, NULL), HPR_ERR_CANCELLED);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "of the ntt"), "detail: %s", hpr_ctx_error_detail(ctx));
    ck_assert(memcmp(data, input, n * 32) == 0);
    __atomic_store_n(&r->flag, 0, __ATOMIC_RELAXED); /* the flag is read by the pool's threads */
    r->cancel_at = 0;
    memcpy(want, input, n * 32);
    hpr_ctx *plain = progress_ctx("cpu", 2, NULL, 0);
    ck_assert_int_eq(hpr_ntt(plain, HPR_FIELD_BN254_FR, log_n, want, NULL), HPR_OK);
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_BN254_FR, log_n, data, NULL), HPR_OK);
    ck_assert(memcmp(data, want, n * 32) == 0);
    /* the LDE stops too */
    unsigned char *out = malloc(4 * n * 32);
    ck_assert_ptr_nonnull(out);
    r->cancel_at = r->count + 1;
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_BN254_FR, log_n, 4, NULL, 1, input, out), HPR_ERR_CANCELLED);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "of the ntt lde"), "detail: %s", hpr_ctx_error_detail(ctx));
    free(out);
    hpr_ctx_destroy(plain);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
    free(input);
    free(data);
    free(want);
}
END_TEST

START_TEST(a_proof_cancelled_midway_stops_and_the_next_one_verifies)
{
    char wtns[1024];
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    recorder *r = recorder_new();
    hpr_ctx *ctx = progress_ctx("cpu", 2, r, 1e-6);
    hpr_groth16_prover *p = test_open_prover(ctx, "bn128_2e10");
    fixture_path(wtns, sizeof wtns, "bn128_2e10", "witness.wtns");
    r->cancel_phase = "msm B1";
    ck_assert_int_eq(hpr_groth16_prove_file(ctx, p, wtns, &proof), HPR_ERR_CANCELLED);
    const char *detail = hpr_ctx_error_detail(ctx);
    ck_assert_msg(strstr(detail, "cancelled after") && strstr(detail, "groth16 prove"), "detail: %s", detail);
    ck_assert(!saw_phase(r, 0, "msm H") && !saw_phase(r, 0, "assemble"));
    ck_assert_ptr_null(proof.public_signals);
    r->cancel_phase = NULL;
    __atomic_store_n(&r->flag, 0, __ATOMIC_RELAXED); /* the flag is read by the pool's threads */
    size_t first = r->count;
    ck_assert_int_eq(hpr_groth16_prove_file(ctx, p, wtns, &proof), HPR_OK);
    expect_reports(r, first, "groth16 prove", 8);
    ck_assert_int_eq(hpr_groth16_verify(ctx, p, &proof), HPR_OK);
    hpr_groth16_proof_clear(&proof);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
}
END_TEST

/* The hybrid scheduler's MSM (CPU + the first OpenCL device): reports, bits, cancel. Only
 * where OpenCL finds a device (the OpenCL suites require one; this suite does not). */
START_TEST(the_hybrid_msm_reports_and_cancels)
{
    size_t n = 1u << 15;
    unsigned char *points, *scalars, want[64], got[64];
    recorder *r = recorder_new();
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 1);
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1);
    hpr_ctx *ctx = progress_ctx("all", 1, r, 1e-6);
    if (hpr_device_count(ctx) == 0) {
        ck_assert_msg(!test_required("opencl"), "an OpenCL device is required here (HPR_CI_REQUIRE): %s",
                      hpr_opencl_notice(ctx));
        printf("the_hybrid_msm_reports_and_cancels: no OpenCL device (%s): skipped\n", hpr_opencl_notice(ctx));
        hpr_ctx_destroy(ctx);
        recorder_free(r);
        return;
    }
    msm_inputs(n, &points, &scalars);
    reference_msm(points, scalars, n, want);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_OK);
    ck_assert(memcmp(got, want, sizeof want) == 0);
    expect_reports(r, 0, "msm", 2);
    hpr_run_report rep = {.struct_size = sizeof rep};
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    printf("hybrid MSM: %u devices, %zu reports\n", rep.ndevices, r->count);
    r->cancel_fraction = 0.2; /* among the scheduler's tiles */
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_ERR_CANCELLED);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "of the msm"), "detail: %s", hpr_ctx_error_detail(ctx));
    __atomic_store_n(&r->flag, 0, __ATOMIC_RELAXED); /* the flag is read by the pool's threads */
    r->cancel_fraction = 0;
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, got), HPR_OK);
    ck_assert(memcmp(got, want, sizeof want) == 0);
    hpr_ctx_destroy(ctx);
    recorder_free(r);
    free(points);
    free(scalars);
}
END_TEST

static void count_only(const hpr_progress *p, void *user)
{
    (void)p;
    (*(unsigned long *)user)++;
}

/* The best of 3 seconds of a 2^16 MSM on ctx. */
static double best_msm_seconds(hpr_ctx *ctx, const unsigned char *points, const unsigned char *scalars, size_t n)
{
    unsigned char out[64];
    double best = 1e9;
    for (int k = 0; k < 3; k++) {
        struct timespec a, b;
        clock_gettime(CLOCK_MONOTONIC, &a);
        ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, points, scalars, n, out), HPR_OK);
        clock_gettime(CLOCK_MONOTONIC, &b);
        double s = (double)(b.tv_sec - a.tv_sec) + 1e-9 * (double)(b.tv_nsec - a.tv_nsec);
        best = s < best ? s : best;
    }
    return best;
}

START_TEST(overhead_of_a_callback_is_printed)
{
    size_t n = test_size(1u << 16, 1u << 12); /* reduced: the ThreadSanitizer run */
    unsigned char *points, *scalars;
    unsigned long calls = 0;
    volatile int never = 0;
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *with = NULL;
    msm_inputs(n, &points, &scalars);
    hpr_ctx *without = progress_ctx("cpu", 2, NULL, 0);
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    cfg.threads = 2;
    cfg.progress = count_only;
    cfg.progress_user = &calls;
    cfg.cancel = &never;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &with), HPR_OK);
    double t0 = best_msm_seconds(without, points, scalars, n), t1 = best_msm_seconds(with, points, scalars, n);
    printf("overhead: %zu-point MSM on 2 threads, best of 3: %.2f ms without a callback, %.2f ms with one (0.1 s "
           "interval, %lu calls in all): %+.2f%%\n",
           n, 1e3 * t0, 1e3 * t1, calls, 100 * (t1 / t0 - 1));
    ck_assert_uint_ge(calls, 3);
    hpr_ctx_destroy(with);
    hpr_ctx_destroy(without);
    free(points);
    free(scalars);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("progress");
    TCase *tc = test_case(s, "progress", 600);
    tcase_add_test(tc, msm_reports_and_matches_the_msm_without_a_callback);
    tcase_add_test(tc, a_long_interval_gives_the_final_report_alone);
    tcase_add_test(tc, ntt_and_lde_report_and_match_the_calls_without_a_callback);
    tcase_add_test(tc, a_proof_reports_its_phases);
    tcase_add_test(tc, a_cancel_from_the_callback_stops_the_msm_and_the_context_stays_usable);
    tcase_add_test(tc, a_flag_set_before_the_call_cancels_it_at_once);
    tcase_add_test(tc, hpr_ctx_cancel_from_another_thread_stops_a_large_msm);
    tcase_add_test(tc, a_cancelled_ntt_leaves_its_data_as_it_was);
    tcase_add_test(tc, a_proof_cancelled_midway_stops_and_the_next_one_verifies);
    tcase_add_test(tc, the_hybrid_msm_reports_and_cancels);
    tcase_add_test(tc, overhead_of_a_callback_is_printed);
    return run_suite(s);
}
