/*
 * test_cluster.c: the calls of several processes (hpr_cluster, issue 23) with no MPI: each
 * rank is a thread of this test with its own context (one CPU thread), and the transport is
 * a mailbox per rank (a list under a mutex) that send appends to and poll takes from.
 *
 * With 1, 2 and 3 ranks: hpr_cluster_msm equals hpr_msm bit for bit (BN254 and BLS12-381, G1
 * and G2, random inputs from the seed), and the report shows tiles computed (which ranks take
 * part is the scheduler's choice, so only at 2^14 points on 2 ranks are the counts checked to
 * add up: two ranks reported, shares summing to 1); hpr_cluster_ntt equals hpr_ntt on batches
 * of columns (BN254 Fr and Goldilocks, forward and inverse on a coset); a proof of the
 * bn128_2e10 fixture by hpr_cluster_groth16_prove verifies. Errors: hpr_cluster_agree with
 * ranks 1 and 2 failing gives every rank rank 1's status and "rank 1: ..."; a rank whose
 * scalars differ fails the MSM on every rank with HPR_ERR_INVALID_ARGUMENT naming it; a batch
 * with one truncated witness reports that one witness and proves (and verifies) the others.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_support.h"

#include <pthread.h>
#include <string.h>

#define MAX_RANKS 3

/* ---- the in-process transport ---- */

typedef struct message {
    struct message *next;
    int from;
    void *data;
    size_t len;
} message;

typedef struct {
    pthread_mutex_t lock;
    message *head, *tail;
} mailbox;

typedef struct world world;
typedef struct {
    world *w;
    int rank;
} endpoint;

struct world {
    int size;
    mailbox box[MAX_RANKS];
    endpoint ep[MAX_RANKS];
};

static int box_send(void *user, int to, const void *data, size_t len)
{
    endpoint *e = user;
    if (to < 0 || to >= e->w->size)
        return -1;
    message *m = malloc(sizeof *m);
    void *copy = malloc(len ? len : 1);
    if (!m || !copy) {
        free(m);
        free(copy);
        return -1;
    }
    if (len)
        memcpy(copy, data, len);
    *m = (message){NULL, e->rank, copy, len};
    mailbox *b = &e->w->box[to];
    pthread_mutex_lock(&b->lock);
    if (b->tail)
        b->tail->next = m;
    else
        b->head = m;
    b->tail = m;
    pthread_mutex_unlock(&b->lock);
    return 0;
}

static int box_poll(void *user, int *from, void **data, size_t *len)
{
    endpoint *e = user;
    mailbox *b = &e->w->box[e->rank];
    pthread_mutex_lock(&b->lock);
    message *m = b->head;
    if (m) {
        b->head = m->next;
        if (!b->head)
            b->tail = NULL;
    }
    pthread_mutex_unlock(&b->lock);
    if (!m)
        return 0;
    *from = m->from;
    *data = m->data;
    *len = m->len;
    free(m);
    return 1;
}

/* What one rank does with its context and cluster; it records its outcome in arg (the test
 * asserts on the main thread, once every rank has returned). */
typedef void (*rank_fn)(int rank, hpr_ctx *ctx, const hpr_cluster *cluster, void *arg);

typedef struct {
    world *w;
    int rank, made;
    rank_fn fn;
    void *arg;
} rank_thread;

static void *rank_main(void *p)
{
    rank_thread *t = p;
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    cfg.threads = 1;
    if (hpr_ctx_create(&cfg, &ctx) != HPR_OK)
        return NULL;
    t->made = 1;
    hpr_cluster cl = {sizeof cl, t->rank, t->w->size, &t->w->ep[t->rank], box_send, box_poll};
    t->fn(t->rank, ctx, &cl, t->arg);
    hpr_ctx_destroy(ctx);
    return NULL;
}

/* fn on size ranks, one thread each, until all return. */
static void run_ranks(int size, rank_fn fn, void *arg)
{
    world w;
    pthread_t th[MAX_RANKS];
    rank_thread t[MAX_RANKS];
    memset(&w, 0, sizeof w);
    w.size = size;
    for (int r = 0; r < size; r++) {
        pthread_mutex_init(&w.box[r].lock, NULL);
        w.ep[r] = (endpoint){&w, r};
        t[r] = (rank_thread){&w, r, 0, fn, arg};
    }
    for (int r = 0; r < size; r++)
        ck_assert_int_eq(pthread_create(&th[r], NULL, rank_main, &t[r]), 0);
    for (int r = 0; r < size; r++)
        pthread_join(th[r], NULL);
    for (int r = 0; r < size; r++) {
        ck_assert_msg(t[r].made, "rank %d could not make its context", r);
        while (w.box[r].head) {
            message *m = w.box[r].head;
            w.box[r].head = m->next;
            free(m->data);
            free(m);
        }
        pthread_mutex_destroy(&w.box[r].lock);
    }
}

static hpr_ctx *cpu_ctx(void)
{
    return test_ctx("cpu", 1);
}

/* ---- MSM ---- */

typedef struct {
    hpr_curve curve;
    hpr_group group;
    size_t n;
    const unsigned char *points, *scalars[MAX_RANKS];
    unsigned char out[MAX_RANKS][192];
    hpr_status st[MAX_RANKS];
    hpr_cluster_report report[MAX_RANKS];
    char detail[MAX_RANKS][512];
    int unsized_report; /* 1 + the rank whose report is given without its struct_size; 0: none */
} msm_job;

static void msm_rank(int rank, hpr_ctx *ctx, const hpr_cluster *cl, void *arg)
{
    msm_job *j = arg;
    j->report[rank].struct_size = rank + 1 == j->unsized_report ? 0 : sizeof j->report[rank];
    j->st[rank] = hpr_cluster_msm(ctx, cl, j->curve, j->group, j->points, j->scalars[rank], j->n, j->out[rank], NULL,
                                  &j->report[rank]);
    snprintf(j->detail[rank], sizeof j->detail[rank], "%s", hpr_ctx_error_detail(ctx));
}

/* Random inputs of (curve, group) and their MSM by hpr_msm. */
static void msm_inputs(msm_job *j, unsigned long long seed, unsigned char **points, unsigned char **scalars,
                       unsigned char *expected)
{
    hpr_ctx *ctx = cpu_ctx();
    size_t ps = hpr_point_size(j->curve, j->group);
    *points = malloc(j->n * ps);
    *scalars = malloc(j->n * HPR_SCALAR_SIZE);
    ck_assert(*points && *scalars);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, j->curve, j->group, j->n, seed, *points, *scalars), HPR_OK);
    ck_assert_int_eq(hpr_msm(ctx, j->curve, j->group, *points, *scalars, j->n, expected), HPR_OK);
    hpr_ctx_destroy(ctx);
}

static const struct {
    hpr_curve curve;
    hpr_group group;
    const char *name;
} msm_cases[] = {{HPR_CURVE_BN254, HPR_G1, "BN254 G1"},
                 {HPR_CURVE_BN254, HPR_G2, "BN254 G2"},
                 {HPR_CURVE_BLS12_381, HPR_G1, "BLS12-381 G1"},
                 {HPR_CURVE_BLS12_381, HPR_G2, "BLS12-381 G2"}};

START_TEST(msm_equals_one_process)
{
    msm_job j;
    unsigned char *points, *scalars, expected[192];
    memset(&j, 0, sizeof j);
    j.curve = msm_cases[_i].curve;
    j.group = msm_cases[_i].group;
    j.n = test_size(1000, 100); /* not a power of two: a ragged last block */
    msm_inputs(&j, test_seed + (unsigned long long)_i, &points, &scalars, expected);
    size_t ps = hpr_point_size(j.curve, j.group);
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1); /* a tile held for each rank until it asks: each computes */
    for (int size = 1; size <= MAX_RANKS; size++) {
        memset(j.out, 0, sizeof j.out);
        j.points = points;
        for (int r = 0; r < size; r++)
            j.scalars[r] = scalars;
        run_ranks(size, msm_rank, &j);
        for (int r = 0; r < size; r++)
            assert_seeded(j.st[r] == HPR_OK, "%s, %d ranks: rank %d: %s: %s", msm_cases[_i].name, size, r,
                          hpr_status_str(j.st[r]), j.detail[r]);
        assert_seeded(memcmp(j.out[0], expected, ps) == 0, "%s on %d ranks differs from hpr_msm", msm_cases[_i].name,
                      size);
        assert_seeded(j.report[0].ranks == (unsigned)size, "%s, %d ranks: report of %u ranks", msm_cases[_i].name,
                      size, j.report[0].ranks);
        /* one rank runs the call locally: no tiles are dealt; else every rank computed */
        for (int r = 0; r < size && size > 1; r++)
            assert_seeded(j.report[0].tiles[r] > 0, "%s, %d ranks: rank %d computed no tile", msm_cases[_i].name, size,
                          r);
    }
    unsetenv("HPR_SCHED_EVERY_DEVICE");
    free(points);
    free(scalars);
}
END_TEST

START_TEST(msm_shares_add_up)
{
    msm_job j;
    unsigned char *points, *scalars, expected[192];
    memset(&j, 0, sizeof j);
    j.curve = HPR_CURVE_BN254;
    j.group = HPR_G1;
    j.n = test_size((size_t)1 << 14, 1024);
    msm_inputs(&j, test_seed + 10, &points, &scalars, expected);
    j.points = points;
    j.scalars[0] = j.scalars[1] = scalars;
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1); /* both ranks compute, whatever the load */
    run_ranks(2, msm_rank, &j);
    unsetenv("HPR_SCHED_EVERY_DEVICE");
    ck_assert_int_eq(j.st[0], HPR_OK);
    ck_assert_int_eq(j.st[1], HPR_OK);
    assert_seeded(memcmp(j.out[0], expected, 64) == 0, "%s", "2^14 on 2 ranks differs from hpr_msm");
    const hpr_cluster_report *rep = &j.report[0];
    double share = rep->share[0] + rep->share[1];
    assert_seeded(rep->ranks == 2 && rep->tiles[0] > 0 && rep->tiles[1] > 0 && share > 0.999 && share < 1.001,
                  "ranks %u, tiles %u + %u, shares %.4f + %.4f", rep->ranks, rep->tiles[0], rep->tiles[1],
                  rep->share[0], rep->share[1]);
    assert_seeded(rep->bytes_sent > 0 && rep->messages > 0, "bytes sent %llu in %llu messages",
                  (unsigned long long)rep->bytes_sent, (unsigned long long)rep->messages);
    free(points);
    free(scalars);
}
END_TEST

START_TEST(msm_with_other_scalars_names_the_rank)
{
    msm_job j;
    unsigned char *points, *scalars, expected[192];
    memset(&j, 0, sizeof j);
    j.curve = HPR_CURVE_BN254;
    j.group = HPR_G1;
    j.n = 256;
    msm_inputs(&j, test_seed + 20, &points, &scalars, expected);
    unsigned char *other = malloc(j.n * HPR_SCALAR_SIZE);
    ck_assert(other);
    memcpy(other, scalars, j.n * HPR_SCALAR_SIZE);
    other[5 * HPR_SCALAR_SIZE] ^= 1; /* the low byte of scalar 5: still below r */
    j.points = points;
    j.scalars[0] = scalars;
    j.scalars[1] = other;
    run_ranks(2, msm_rank, &j);
    for (int r = 0; r < 2; r++)
        assert_seeded(j.st[r] == HPR_ERR_INVALID_ARGUMENT && strstr(j.detail[r], "rank 1"),
                      "rank %d: %s: %s (expected invalid argument naming rank 1)", r, hpr_status_str(j.st[r]),
                      j.detail[r]);
    free(other);
    free(points);
    free(scalars);
}
END_TEST

/* A report refused on rank 0 alone (its struct_size 0; the others' fine): every rank fails the
 * call, none waits for rank 0. */
START_TEST(msm_report_refused_on_one_rank_fails_every_rank)
{
    msm_job j;
    unsigned char *points, *scalars, expected[192];
    memset(&j, 0, sizeof j);
    j.curve = HPR_CURVE_BN254;
    j.group = HPR_G1;
    j.n = 64;
    j.unsized_report = 1;
    msm_inputs(&j, test_seed + 21, &points, &scalars, expected);
    j.points = points;
    j.scalars[0] = j.scalars[1] = scalars;
    run_ranks(2, msm_rank, &j);
    for (int r = 0; r < 2; r++)
        assert_seeded(j.st[r] == HPR_ERR_INVALID_ARGUMENT && strstr(j.detail[r], "hpr_cluster_report.struct_size is 0"),
                      "rank %d: %s: %s (expected invalid argument naming the report)", r, hpr_status_str(j.st[r]),
                      j.detail[r]);
    free(points);
    free(scalars);
}
END_TEST

/* Each rank checks a share of the points: an off-curve point in any share (the first, the
 * middle, the last point) fails the call on every rank with hpr_msm's status and the point's
 * index, and with two bad points the first one is named. */
START_TEST(msm_finds_a_bad_point_in_every_share)
{
    msm_job j;
    unsigned char *points, *scalars, expected[192];
    memset(&j, 0, sizeof j);
    j.curve = HPR_CURVE_BN254;
    j.group = HPR_G1;
    j.n = 300;
    msm_inputs(&j, test_seed + 30, &points, &scalars, expected);
    const size_t bad[] = {0, 150, 299};
    for (int size = 2; size <= MAX_RANKS; size++)
        for (size_t b = 0; b < sizeof bad / sizeof bad[0]; b++) {
            unsigned char *broken = malloc(j.n * 64);
            char want[64];
            ck_assert(broken);
            memcpy(broken, points, j.n * 64);
            broken[bad[b] * 64 + 32] ^= 1; /* y changed: off the curve */
            if (b + 1 < sizeof bad / sizeof bad[0])
                broken[bad[b + 1] * 64 + 32] ^= 1; /* a later one too: the first is named */
            j.points = broken;
            for (int r = 0; r < size; r++)
                j.scalars[r] = scalars;
            run_ranks(size, msm_rank, &j);
            snprintf(want, sizeof want, "point %zu is not on", bad[b]);
            for (int r = 0; r < size; r++)
                assert_seeded(j.st[r] == HPR_ERR_POINT_NOT_ON_CURVE && strstr(j.detail[r], want),
                              "%d ranks, bad point %zu: rank %d: %s: %s", size, bad[b], r, hpr_status_str(j.st[r]),
                              j.detail[r]);
            free(broken);
        }
    free(points);
    free(scalars);
}
END_TEST

/* ---- NTT ---- */

typedef struct {
    hpr_field field;
    unsigned log_n;
    hpr_ntt_opts opts;
    unsigned char *data; /* rank 0's */
    hpr_status st[MAX_RANKS];
    char detail[MAX_RANKS][512];
} ntt_job;

static void ntt_rank(int rank, hpr_ctx *ctx, const hpr_cluster *cl, void *arg)
{
    ntt_job *j = arg;
    j->st[rank] = hpr_cluster_ntt(ctx, cl, j->field, j->log_n, rank == 0 ? j->data : NULL, &j->opts, NULL);
    snprintf(j->detail[rank], sizeof j->detail[rank], "%s", hpr_ctx_error_detail(ctx));
}

START_TEST(ntt_equals_one_process)
{
    static const hpr_field fields[] = {HPR_FIELD_BN254_FR, HPR_FIELD_GOLDILOCKS};
    hpr_field field = fields[_i % 2];
    int inverse = _i / 2;
    size_t es = hpr_field_element_size(field), columns = 5, n = (size_t)1 << 10, bytes = columns * n * es;
    unsigned char *input = malloc(bytes), *expected = malloc(bytes);
    test_rng rng;
    ck_assert(input && expected);
    test_rng_init(&rng, 30 + (uint64_t)_i);
    for (size_t i = 0; i < bytes; i++) {
        input[i] = (unsigned char)test_rng_next(&rng);
        if (i % es == es - 1)
            input[i] &= 0x1f; /* below every modulus */
    }
    ntt_job j;
    memset(&j, 0, sizeof j);
    j.field = field;
    j.log_n = 10;
    j.opts = (hpr_ntt_opts){sizeof(hpr_ntt_opts), inverse, HPR_NTT_NN, inverse ? "7" : NULL, NULL, columns, 0, "cpu"};
    hpr_ctx *ctx = cpu_ctx();
    memcpy(expected, input, bytes);
    ck_assert_int_eq(hpr_ntt(ctx, field, j.log_n, expected, &j.opts), HPR_OK);
    hpr_ctx_destroy(ctx);
    j.data = malloc(bytes);
    ck_assert(j.data);
    for (int size = 2; size <= MAX_RANKS; size++) {
        memcpy(j.data, input, bytes);
        run_ranks(size, ntt_rank, &j);
        for (int r = 0; r < size; r++)
            assert_seeded(j.st[r] == HPR_OK, "ntt, %d ranks: rank %d: %s: %s", size, r, hpr_status_str(j.st[r]),
                          j.detail[r]);
        assert_seeded(memcmp(j.data, expected, bytes) == 0, "ntt %s%s on %d ranks differs from hpr_ntt",
                      field == HPR_FIELD_GOLDILOCKS ? "goldilocks" : "bn254-fr", inverse ? " (inverse, coset)" : "",
                      size);
    }
    free(j.data);
    free(input);
    free(expected);
}
END_TEST

/* ---- agree ---- */

typedef struct {
    hpr_status st[MAX_RANKS];
    char detail[MAX_RANKS][512];
    int fail; /* fail the ranks from 1 (0: every rank succeeds) */
} agree_job;

static void agree_rank(int rank, hpr_ctx *ctx, const hpr_cluster *cl, void *arg)
{
    agree_job *j = arg;
    hpr_status mine = j->fail && rank == 1 ? HPR_ERR_IO : j->fail && rank == 2 ? HPR_ERR_FORMAT : HPR_OK;
    const char *detail = rank == 1 ? "cannot read x.bin" : rank == 2 ? "y.bin is malformed" : NULL;
    j->st[rank] = hpr_cluster_agree(ctx, cl, mine, mine == HPR_OK ? NULL : detail);
    snprintf(j->detail[rank], sizeof j->detail[rank], "%s", hpr_ctx_error_detail(ctx));
}

START_TEST(agree_gives_every_rank_the_first_failure)
{
    agree_job j;
    memset(&j, 0, sizeof j);
    run_ranks(3, agree_rank, &j);
    for (int r = 0; r < 3; r++)
        ck_assert_msg(j.st[r] == HPR_OK, "rank %d: %s: %s", r, hpr_status_str(j.st[r]), j.detail[r]);
    memset(&j, 0, sizeof j);
    j.fail = 1;
    run_ranks(3, agree_rank, &j);
    for (int r = 0; r < 3; r++)
        ck_assert_msg(j.st[r] == HPR_ERR_IO && strstr(j.detail[r], "rank 1: cannot read x.bin"),
                      "rank %d: %s: '%s' (expected rank 1's I/O error)", r, hpr_status_str(j.st[r]), j.detail[r]);
}
END_TEST

/* ---- Groth16 ---- */

typedef struct {
    const char *fixture;
    file_buf wtns;
    size_t bad;   /* prove_batch: the witness given truncated */
    size_t count; /* prove_batch: witnesses */
    hpr_status st[MAX_RANKS], verified[MAX_RANKS];
    char detail[MAX_RANKS][512];
    /* prove_batch, on rank 0 */
    hpr_ctx *verify_ctx;
    const hpr_groth16_prover *prover0;
    hpr_status outcome[8], batch_verified[8];
    unsigned outcomes[8];
    size_t failed;
    hpr_cluster_report report;
} g16_job;

static void prove_rank(int rank, hpr_ctx *ctx, const hpr_cluster *cl, void *arg)
{
    g16_job *j = arg;
    char path[1024];
    hpr_groth16_prover *prover = NULL;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    fixture_path(path, sizeof path, j->fixture, "circuit.zkey");
    j->st[rank] = hpr_groth16_prover_create(ctx, path, &prover);
    if (j->st[rank] == HPR_OK)
        j->st[rank] = hpr_cluster_groth16_prove(ctx, cl, prover, rank == 0 ? j->wtns.data : NULL,
                                                rank == 0 ? j->wtns.len : 0, &proof, NULL);
    snprintf(j->detail[rank], sizeof j->detail[rank], "%s", hpr_ctx_error_detail(ctx));
    if (j->st[rank] == HPR_OK && rank == 0)
        j->verified[rank] = hpr_groth16_verify(ctx, prover, &proof);
    hpr_groth16_proof_clear(&proof);
    hpr_groth16_prover_destroy(prover);
}

START_TEST(groth16_proof_verifies)
{
    g16_job j;
    memset(&j, 0, sizeof j);
    j.fixture = "bn128_2e10";
    j.wtns = read_fixture(j.fixture, "witness.wtns");
    for (int size = 2; size <= MAX_RANKS; size++) {
        j.verified[0] = HPR_ERR_INTERNAL;
        run_ranks(size, prove_rank, &j);
        for (int r = 0; r < size; r++)
            ck_assert_msg(j.st[r] == HPR_OK, "%d ranks: rank %d: %s: %s", size, r, hpr_status_str(j.st[r]), j.detail[r]);
        ck_assert_msg(j.verified[0] == HPR_OK, "%d ranks: the proof does not verify: %s", size,
                      hpr_status_str(j.verified[0]));
    }
    free(j.wtns.data);
}
END_TEST

/* HPR_SCHED_INJECT_FAULT=rank:1@K for each K: rank 1's K-th tile fails (for some K an H tile,
 * whose h came with it: the next H tile it gets must bring h again), another rank redoes it,
 * and the proof still verifies. */
START_TEST(groth16_proof_survives_a_ranks_failed_tile)
{
    g16_job j;
    memset(&j, 0, sizeof j);
    j.fixture = "bn128_2e10";
    j.wtns = read_fixture(j.fixture, "witness.wtns");
    for (unsigned k = 1; k <= 10; k++) {
        char fault[32];
        snprintf(fault, sizeof fault, "rank:1@%u", k);
        ck_assert_int_eq(setenv("HPR_SCHED_INJECT_FAULT", fault, 1), 0); /* read when the contexts are made */
        for (int size = 2; size <= 3; size++) {
            j.verified[0] = HPR_ERR_INTERNAL;
            run_ranks(size, prove_rank, &j);
            for (int r = 0; r < size; r++)
                ck_assert_msg(j.st[r] == HPR_OK, "%s, %d ranks: rank %d: %s: %s", fault, size, r,
                              hpr_status_str(j.st[r]), j.detail[r]);
            ck_assert_msg(j.verified[0] == HPR_OK, "%s, %d ranks: the proof does not verify: %s", fault, size,
                          hpr_status_str(j.verified[0]));
        }
    }
    unsetenv("HPR_SCHED_INJECT_FAULT");
    free(j.wtns.data);
}
END_TEST

static hpr_status batch_read(void *user, size_t index, void **data, size_t *len, char *why, size_t why_len)
{
    g16_job *j = user;
    size_t n = index == j->bad ? 100 : j->wtns.len; /* the bad one: its first 100 bytes */
    (void)why;
    (void)why_len;
    *data = malloc(n);
    if (!*data)
        return HPR_ERR_OUT_OF_MEMORY;
    memcpy(*data, j->wtns.data, n);
    *len = n;
    return HPR_OK;
}

static hpr_status batch_write(void *user, size_t index, hpr_status status, const char *detail,
                              const hpr_groth16_proof *proof, int rank)
{
    g16_job *j = user;
    (void)detail;
    (void)rank;
    if (index >= j->count)
        return HPR_ERR_INTERNAL;
    j->outcomes[index]++;
    j->outcome[index] = status;
    j->batch_verified[index] = status == HPR_OK ? hpr_groth16_verify(j->verify_ctx, j->prover0, proof) : status;
    return HPR_OK;
}

static void batch_rank(int rank, hpr_ctx *ctx, const hpr_cluster *cl, void *arg)
{
    g16_job *j = arg;
    char path[1024];
    hpr_groth16_prover *prover = NULL;
    fixture_path(path, sizeof path, j->fixture, "circuit.zkey");
    j->st[rank] = hpr_groth16_prover_create(ctx, path, &prover);
    if (rank == 0) { /* the writer verifies with the batch's own context: it runs on the calling thread */
        j->prover0 = prover;
        j->verify_ctx = ctx;
    }
    if (j->st[rank] == HPR_OK)
        j->st[rank] = hpr_cluster_groth16_prove_batch(ctx, cl, prover, j->count, rank == 0 ? batch_read : NULL,
                                                      rank == 0 ? batch_write : NULL, j,
                                                      rank == 0 ? &j->failed : NULL, rank == 0 ? &j->report : NULL);
    snprintf(j->detail[rank], sizeof j->detail[rank], "%s", hpr_ctx_error_detail(ctx));
    hpr_groth16_prover_destroy(prover);
}

/* The batch on size ranks: every witness has one outcome, the bad one failed, the others
 * verify. */
static void check_batch(g16_job *j, int size)
{
    memset(j->outcomes, 0, sizeof j->outcomes);
    j->failed = 0;
    j->report.struct_size = sizeof j->report; /* rank 0's, before the ranks start */
    run_ranks(size, batch_rank, j);
    for (int r = 0; r < size; r++)
        ck_assert_msg(j->st[r] == HPR_OK, "%d ranks: rank %d: %s: %s", size, r, hpr_status_str(j->st[r]), j->detail[r]);
    ck_assert_msg(j->failed == 1, "%d ranks: %zu witnesses failed, expected 1", size, j->failed);
    for (size_t i = 0; i < j->count; i++) {
        ck_assert_msg(j->outcomes[i] == 1, "%d ranks: witness %zu had %u outcomes", size, i, j->outcomes[i]);
        if (i == j->bad)
            ck_assert_msg(j->outcome[i] != HPR_OK, "%d ranks: the truncated witness was proved", size);
        else
            ck_assert_msg(j->outcome[i] == HPR_OK && j->batch_verified[i] == HPR_OK, "%d ranks: witness %zu: %s, verify %s",
                          size, i, hpr_status_str(j->outcome[i]), hpr_status_str(j->batch_verified[i]));
    }
}

START_TEST(batch_reports_exactly_the_bad_witness)
{
    g16_job j;
    memset(&j, 0, sizeof j);
    j.fixture = "bn128_2e10";
    j.wtns = read_fixture(j.fixture, "witness.wtns");
    j.count = 5;
    j.bad = 2;
    for (int size = 1; size <= 2; size++)
        check_batch(&j, size);
    free(j.wtns.data);
}
END_TEST

/* HPR_SCHED_INJECT_FAULT=rank:1@1: rank 1's first witness fails as a fault of the rank (not of
 * the witness), so rank 0 proves it; the outcomes are those of a run without faults and the
 * report counts the failure. */
START_TEST(batch_redoes_a_failed_ranks_witness_elsewhere)
{
    g16_job j;
    memset(&j, 0, sizeof j);
    j.fixture = "bn128_2e10";
    j.wtns = read_fixture(j.fixture, "witness.wtns");
    j.count = 6;
    j.bad = 4;
    ck_assert_int_eq(setenv("HPR_SCHED_INJECT_FAULT", "rank:1@1", 1), 0); /* read when the contexts are made */
    check_batch(&j, 2);
    unsetenv("HPR_SCHED_INJECT_FAULT");
    ck_assert_msg(j.report.failures[1] == 1, "rank 1 failed %u tiles, expected the injected one",
                  j.report.failures[1]);
    ck_assert_uint_eq(j.report.failures[0], 0);
    free(j.wtns.data);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("cluster");
    TCase *tc = test_case(s, "cluster", 600);
    tcase_add_loop_test(tc, msm_equals_one_process, 0, 4);
    tcase_add_test(tc, msm_shares_add_up);
    tcase_add_test(tc, msm_with_other_scalars_names_the_rank);
    tcase_add_test(tc, msm_report_refused_on_one_rank_fails_every_rank);
    tcase_add_test(tc, msm_finds_a_bad_point_in_every_share);
    tcase_add_loop_test(tc, ntt_equals_one_process, 0, 4);
    tcase_add_test(tc, agree_gives_every_rank_the_first_failure);
    tcase_add_test(tc, groth16_proof_verifies);
    tcase_add_test(tc, groth16_proof_survives_a_ranks_failed_tile);
    tcase_add_test(tc, batch_reports_exactly_the_bad_witness);
    tcase_add_test(tc, batch_redoes_a_failed_ranks_witness_elsewhere);
    test_seed_init();
    return run_suite(s);
}
