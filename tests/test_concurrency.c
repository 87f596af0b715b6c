/*
 * test_concurrency.c: contexts and prover handles used from several threads at once
 * (issue 21). One context shared by 8 threads (proofs, NTTs of changing sizes that rebuild
 * the context's twiddle cache, MSMs, failing calls), 8 contexts sharing one prover handle.
 * Every proof is verified, every NTT and MSM compared with the same call made alone, and
 * every thread reads its own call's error detail. Runs in the release, ASan and TSan builds
 * (the TSan preset runs this suite: ctest --preset tsan).
 *
 * The threads never call ck_assert (Check's assertions belong to the test's own thread):
 * each records its first failure in its slot, and the test asserts on the slots afterwards.
 * Devices: "cpu" unless HPR_TEST_DEVICES names others ("all" in the release run would bring
 * in POCL, which ThreadSanitizer cannot see into).
 */
#include "test_support.h"

#include <pthread.h>
#include <string.h>

#define THREADS 8

typedef struct {
    /* shared, read-only while the threads run */
    hpr_ctx *shared;            /* NULL: each thread makes its own context */
    const hpr_groth16_prover *prover;
    const file_buf *wtns;
    const char *want_public;
    const unsigned char *ntt_in[4];   /* inputs of log_n 8..11 */
    const unsigned char *ntt_want[4]; /* their forward NTTs, computed alone */
    const unsigned char *msm_points, *msm_scalars, *msm_want;
    size_t msm_n;
    /* the thread's own */
    unsigned index;
    int proofs;
    char failure[512];
} worker;

static const char *test_devices(void)
{
    const char *d = getenv("HPR_TEST_DEVICES");
    return d && d[0] ? d : "cpu";
}

static hpr_ctx *make_ctx(unsigned threads)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.threads = threads;
    cfg.devices = test_devices();
    return hpr_ctx_create(&cfg, &ctx) == HPR_OK ? ctx : NULL;
}

static int failed(worker *w, const char *fmt, const char *a, const char *b)
{
    if (!w->failure[0])
        snprintf(w->failure, sizeof w->failure, fmt, w->index, a, b);
    return 1;
}

/* A proof with w's context, verified, its public signals those of the fixture. */
static int prove_once(worker *w, hpr_ctx *ctx)
{
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    char *pj = NULL, *uj = NULL;
    int bad = 0;
    hpr_status st = hpr_groth16_prove(ctx, w->prover, w->wtns->data, w->wtns->len, &proof);
    if (st != HPR_OK)
        return failed(w, "thread %u: prove: %s (%s)", hpr_status_str(st), hpr_ctx_error_detail(ctx));
    if ((st = hpr_groth16_verify(ctx, w->prover, &proof)) != HPR_OK)
        bad = failed(w, "thread %u: the proof does not verify: %s (%s)", hpr_status_str(st), hpr_ctx_error_detail(ctx));
    else if (hpr_groth16_proof_json(&proof, &pj, &uj) != HPR_OK || strcmp(uj, w->want_public) != 0)
        bad = failed(w, "thread %u: public signals %s%s differ from the fixture's", uj ? uj : "(none)", "");
    free(pj);
    free(uj);
    hpr_groth16_proof_clear(&proof);
    return bad;
}

/* A forward NTT of size 2^(8 + k), equal to the one computed alone. */
static int ntt_once(worker *w, hpr_ctx *ctx, unsigned k)
{
    size_t bytes = ((size_t)32 << (8 + k));
    unsigned char *data = malloc(bytes);
    int bad = 0;
    if (!data)
        return failed(w, "thread %u: out of memory%s%s", "", "");
    memcpy(data, w->ntt_in[k], bytes);
    hpr_status st = hpr_ntt(ctx, HPR_FIELD_BN254_FR, 8 + k, data, NULL);
    if (st != HPR_OK)
        bad = failed(w, "thread %u: ntt: %s (%s)", hpr_status_str(st), hpr_ctx_error_detail(ctx));
    else if (memcmp(data, w->ntt_want[k], bytes) != 0)
        bad = failed(w, "thread %u: an NTT%s%s differs from the same NTT run alone", "", "");
    free(data);
    return bad;
}

/* The MSM equal to the one computed alone, then a failing MSM whose detail must be this
 * thread's own: its bad scalar sits at the thread's index. */
static int msm_once(worker *w, hpr_ctx *ctx)
{
    unsigned char out[64], bad_scalars[32 * THREADS];
    char want[64];
    hpr_status st = hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, w->msm_points, w->msm_scalars, w->msm_n, out);
    if (st != HPR_OK)
        return failed(w, "thread %u: msm: %s (%s)", hpr_status_str(st), hpr_ctx_error_detail(ctx));
    if (memcmp(out, w->msm_want, sizeof out) != 0)
        return failed(w, "thread %u: an MSM%s%s differs from the same MSM run alone", "", "");
    memcpy(bad_scalars, w->msm_scalars, sizeof bad_scalars);
    memset(bad_scalars + 32 * w->index, 0xff, 32);
    st = hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, w->msm_points, bad_scalars, THREADS, out);
    snprintf(want, sizeof want, "scalar %u is not below", w->index);
    if (st != HPR_ERR_SCALAR_OUT_OF_RANGE)
        return failed(w, "thread %u: a scalar >= r gave %s%s", hpr_status_str(st), "");
    if (!strstr(hpr_ctx_error_detail(ctx), want))
        return failed(w, "thread %u: the detail '%s' is not this thread's ('%s ...')", hpr_ctx_error_detail(ctx), want);
    return 0;
}

static void *work(void *arg)
{
    worker *w = arg;
    hpr_ctx *ctx = w->shared ? w->shared : make_ctx(1);
    if (!ctx) {
        failed(w, "thread %u: no context%s%s", "", "");
        return NULL;
    }
    for (int k = 0; k < w->proofs && !w->failure[0]; k++) {
        if (prove_once(w, ctx) || ntt_once(w, ctx, (w->index + (unsigned)k) % 4))
            break;
        if (w->msm_n && msm_once(w, ctx))
            break;
    }
    if (!w->shared)
        hpr_ctx_destroy(ctx);
    return NULL;
}

typedef struct {
    hpr_ctx *ctx;
    hpr_groth16_prover *prover;
    file_buf wtns;
    char *want_public;
    unsigned char *ntt_in[4], *ntt_want[4];
    unsigned char *points, *scalars, msm_want[64];
} inputs;

/* The fixture's prover and witness, NTT and MSM inputs and their results computed alone. */
static void inputs_make(inputs *in, test_rng *rng)
{
    char path[1024];
    in->ctx = make_ctx(2);
    ck_assert_msg(in->ctx != NULL, "no context on %s", test_devices());
    fixture_path(path, sizeof path, "bn128_2e10", "circuit.zkey");
    ck_assert_int_eq(hpr_groth16_prover_create(in->ctx, path, &in->prover), HPR_OK);
    in->wtns = read_fixture("bn128_2e10", "witness.wtns");
    in->want_public = read_fixture_text("bn128_2e10", "public.json");
    for (unsigned k = 0; k < 4; k++) {
        size_t n = (size_t)1 << (8 + k);
        in->ntt_in[k] = malloc(32 * n);
        in->ntt_want[k] = malloc(32 * n);
        ck_assert(in->ntt_in[k] && in->ntt_want[k]);
        for (size_t i = 0; i < n; i++) {
            uint64_t limbs[4] = {test_rng_next(rng), test_rng_next(rng), test_rng_next(rng),
                                 test_rng_next(rng) >> 4}; /* below 2^252 < r */
            memcpy(in->ntt_in[k] + 32 * i, limbs, 32);
        }
        memcpy(in->ntt_want[k], in->ntt_in[k], 32 * n);
        ck_assert_int_eq(hpr_ntt(in->ctx, HPR_FIELD_BN254_FR, 8 + k, in->ntt_want[k], NULL), HPR_OK);
    }
    size_t n = 1024;
    in->points = malloc(64 * n);
    in->scalars = malloc(32 * n);
    ck_assert(in->points && in->scalars);
    ck_assert_int_eq(hpr_random_msm_inputs(in->ctx, HPR_CURVE_BN254, HPR_G1, n, test_seed, in->points, in->scalars),
                     HPR_OK);
    ck_assert_int_eq(hpr_msm(in->ctx, HPR_CURVE_BN254, HPR_G1, in->points, in->scalars, n, in->msm_want), HPR_OK);
}

static void inputs_free(inputs *in)
{
    for (unsigned k = 0; k < 4; k++) {
        free(in->ntt_in[k]);
        free(in->ntt_want[k]);
    }
    free(in->points);
    free(in->scalars);
    free(in->wtns.data);
    free(in->want_public);
    hpr_groth16_prover_destroy(in->prover);
    hpr_ctx_destroy(in->ctx);
}

/* THREADS threads on one shared context (shared = 1) or a context each, one prover handle. */
static void run_threads(int shared)
{
    test_rng rng;
    inputs in;
    worker w[THREADS];
    pthread_t tid[THREADS];
    test_rng_init(&rng, 21);
    memset(&in, 0, sizeof in);
    inputs_make(&in, &rng);
    for (unsigned t = 0; t < THREADS; t++) {
        memset(&w[t], 0, sizeof w[t]);
        w[t].shared = shared ? in.ctx : NULL;
        w[t].prover = in.prover;
        w[t].wtns = &in.wtns;
        w[t].want_public = in.want_public;
        for (unsigned k = 0; k < 4; k++) {
            w[t].ntt_in[k] = in.ntt_in[k];
            w[t].ntt_want[k] = in.ntt_want[k];
        }
        w[t].msm_points = in.points;
        w[t].msm_scalars = in.scalars;
        w[t].msm_want = in.msm_want;
        w[t].msm_n = 1024;
        w[t].index = t;
        w[t].proofs = (int)test_size(2, 1);
        ck_assert_int_eq(pthread_create(&tid[t], NULL, work, &w[t]), 0);
    }
    for (unsigned t = 0; t < THREADS; t++)
        pthread_join(tid[t], NULL);
    for (unsigned t = 0; t < THREADS; t++)
        assert_seeded(w[t].failure[0] == '\0', "%s context: %s", shared ? "shared" : "separate", w[t].failure);
    inputs_free(&in);
}

START_TEST(eight_threads_share_one_context)
{
    run_threads(1);
}
END_TEST

START_TEST(eight_contexts_share_one_prover)
{
    run_threads(0);
}
END_TEST

/* What the other thread does in between: a call that succeeds, then one that fails with
 * another detail. */
static void *other_calls(void *arg)
{
    hpr_ctx *ctx = arg;
    unsigned char pts[64 * 2], sc[32 * 2], out[64];
    if (hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, 2, 8, pts, sc) == HPR_OK &&
        hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out) == HPR_OK) {
        memset(sc, 0xff, 32);
        hpr_status refused = hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out); /* "scalar 0 ..." */
        (void)refused;
    }
    return NULL;
}

/* Another thread's calls in between do not change what a thread reads of its own last
 * call (the detail and the report). */
START_TEST(each_thread_reads_its_own_last_call)
{
    hpr_ctx *ctx = make_ctx(1);
    unsigned char pts[64 * 2], sc[32 * 2], out[64];
    hpr_run_report rep = {.struct_size = sizeof rep};
    pthread_t tid;
    ck_assert(ctx != NULL);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, 2, 7, pts, sc), HPR_OK);
    memset(sc + 32, 0xff, 32);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out), HPR_ERR_SCALAR_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "scalar 1 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(pthread_create(&tid, NULL, other_calls, ctx), 0);
    pthread_join(tid, NULL);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "scalar 1 ") != NULL,
                  "another thread's call replaced this thread's detail: '%s'", hpr_ctx_error_detail(ctx));
    memset(sc + 32, 0, 32);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 2, out), HPR_OK);
    ck_assert_int_eq(pthread_create(&tid, NULL, other_calls, ctx), 0);
    pthread_join(tid, NULL);
    ck_assert_msg(strcmp(hpr_ctx_error_detail(ctx), "") == 0, "'%s'", hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    ck_assert_uint_ge(rep.ndevices, 1);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The getters of a context accept NULL. */
START_TEST(null_context_getters)
{
    ck_assert_uint_eq(hpr_ctx_threads(NULL), 0);
    ck_assert_str_eq(hpr_ctx_cpu_tier(NULL), "");
    ck_assert_str_eq(hpr_ctx_error_detail(NULL), "");
    ck_assert_str_eq(hpr_ctx_notice(NULL), "");
}
END_TEST

int main(void)
{
    Suite *s = suite_create("concurrency");
    TCase *tc = test_case(s, "threads", 900);
    tcase_add_test(tc, eight_threads_share_one_context);
    tcase_add_test(tc, eight_contexts_share_one_prover);
    tcase_add_test(tc, each_thread_reads_its_own_last_call);
    tcase_add_test(tc, null_context_getters);
    return run_suite(s);
}
