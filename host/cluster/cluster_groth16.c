/*
 * cluster_groth16.c: Groth16 across the ranks of a cluster: one proof shared by the ranks
 * (hpr_cluster_groth16_prove), and many proofs dealt to them (hpr_cluster_groth16_prove_batch).
 *
 * One proof: every rank maps the same zkey (compared by digest, computed once per prover: a
 * rank with another key fails the call with one error), rank 0 parses the witness and sends
 * its values (32 bytes per variable) with the agreement. Rank 0 then chooses each MSM's
 * window size (the H MSM's from its points: h is not known yet) and sends them. Then the five
 * MSMs run as one job: their window grids (host/msm/msm_hybrid.c) laid end to end, B2 first (G2,
 * the costliest windows), then A, B1, C and H last, dealt to the ranks in whole windows
 * but the end game's, shared in blocks (runtime/sched/ranks.c, sched_tiling.whole_min): to
 * rank 0 from the end (sched_tiling.from_end), to the others from the start, a rank's grids
 * freed once its tiles have passed them. Rank 0 computes h (the QAP
 * evaluations and six NTTs of the domain, 8% of a proof on one core) in the job's start, while
 * the other ranks already take tiles of the first MSMs, and then starts on H, whose h it has.
 * So on two ranks each prepares about three of the five grids rather than all five (one MSM,
 * where they meet, is shared), and h seldom travels: a rank's first H tile brings h (32 x
 * domain bytes), so h is computed once (it was computed by every rank before: cheaper to send
 * than to repeat). Measured against dealing everything from the start (2-core Xeon, 2^16
 * proof, 2 ranks x 1 thread, alternating runs): the ranks' tile time fell from about 1.15x to
 * about 1.05x of one process's MSM time (docs/cluster.md). A rank prepares an
 * MSM's grid at its first tile of it, and forms a window's digits at its first tile of that
 * window. One job rather than five: no rank waits for the others at the end of each MSM, and
 * a proof needs two agreements and one job instead of seventeen steps. Rank 0 adds each MSM's
 * tiles in range order, draws r and s and adds the blinding terms as one process does
 * (host/groth16/groth16_prove.c), so the proof is the one hpr_groth16_prove would make with the same
 * r and s. The report's MSM phases share the job's time after h by the compute time each took.
 * Bytes per proof: the witness to each other rank (32 x nVars), h to each rank that computes
 * an H tile (32 x domain), two agreements, and an ask and up to five points per tile: about
 * 32 x (nVars + domain) x (N - 1) plus about 10 KB per other rank.
 *
 * Many proofs: the witnesses are the items (one per tile: sched_tiling.max_tile), rank 0
 * reads each when a rank asks for it and sends its bytes; the rank proves it alone with its
 * own devices (g16_prove_call) and returns the proof (or the witness's error) to rank 0,
 * which hands it to the caller's writer on the calling thread (results from other ranks,
 * taken on rank 0's serving thread, wait in a queue until rank 0's next idle moment: between
 * its own proofs and at the end), so that the writer may use the batch's context. A witness's own error (malformed, wrong length, a
 * value out of range) is its outcome, not a fault: the batch goes on. A failure of the rank
 * (memory, a device that could not be made good, the transport) is a fault: the witness is
 * proved by another rank, and a rank that fails twice is dropped.
 */
#define _POSIX_C_SOURCE 200809L
#include "host/cluster/cluster.h"
#include "host/groth16/groth16.h"
#include "host/cluster/cluster_calls.h"
#include "host/groth16/groth16_calls.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- one proof ---- */

typedef struct {
    cluster_call *call;
    hpr_cluster_report *report;
} proof_cluster;

/* The order of the MSMs in the job's items: the largest windows first (B2 in G2), the H MSM
 * last: rank 0 computes h while the others take the first tiles, and a rank's first H tile
 * brings h with it (by then it is long ready). */
static const int msm_order[G16_MSMS] = {2, 0, 1, 3, 4};
enum { H_POSITION = G16_MSMS - 1, H_MSM = 4 };

/* The five MSMs as one job: item ranges [first[k], first[k + 1]) are MSM msm_order[k]'s grid. */
typedef struct {
    hpr_ctx *ctx;
    const g16_work *work;
    g16_phases *ph;               /* rank 0's: h's phase ends in the job's start */
    uint32_t c[G16_MSMS];         /* window bits, by MSM (rank 0's choice) */
    size_t first[G16_MSMS + 1];   /* by position in msm_order */
    msm_grid *grid[G16_MSMS];     /* by MSM, prepared on a rank's first tile of it */
    cluster_point *points;        /* rank 0: the tiles' sums */
    size_t count, cap;
    double busy[G16_MSMS];        /* rank 0: seconds spent on each MSM, all ranks */
    /* h: rank 0 computes it in the job's start; the serving thread's payloads wait for it */
    pthread_mutex_t h_lock;
    pthread_cond_t h_done;
    int h_state;                  /* rank 0: 0 being computed, 1 ready, else its error status */
    char h_detail[RANKS_DETAIL_LEN];
    unsigned char has_h[RANKS_MAX]; /* rank 0: ranks that returned an H tile (they keep h) */
    int have_h;                     /* the other ranks: h received into work->h */
    int from_end;                   /* this rank's tiles are dealt from the end (rank 0) */
} proof_job;

/* One MSM's piece of a tile, as it travels. */
typedef struct {
    uint32_t msm, reserved;
    uint64_t begin, end;
    double seconds;
    unsigned char point[MSM_MAX_AFFINE_BYTES];
} proof_piece;

static int tile_has_h(const proof_job *j, sched_range tile)
{
    return tile.end > j->first[H_POSITION] && tile.begin < j->first[H_POSITION + 1];
}

static size_t h_bytes(const proof_job *j)
{
    return (size_t)j->work->zk->domain_size * 32;
}

/* Rank 0, the job's start: h on the calling thread, its phase closed; the waiting payloads
 * are woken with its outcome. */
static int proof_start(void *user, char *detail, size_t dlen)
{
    proof_job *j = user;
    hpr_status st = g16_run_task(j->ctx, j->work, G16_TASK_H, NULL);
    g16_phase_end(j->ph, HPR_G16_H, 1);
    progress_phase(j->ctx, "msm");
    pthread_mutex_lock(&j->h_lock);
    j->h_state = st == HPR_OK ? 1 : (int)st;
    if (st != HPR_OK)
        snprintf(j->h_detail, sizeof j->h_detail, "rank 0: h: %.360s", j->ctx->detail);
    pthread_cond_broadcast(&j->h_done);
    pthread_mutex_unlock(&j->h_lock);
    if (st != HPR_OK)
        snprintf(detail, dlen, "%s", j->h_detail);
    return st == HPR_OK ? 0 : (int)st;
}

/* Rank 0: h travels with each H tile of a rank until that rank has returned one. */
static int proof_payload(void *user, sched_range tile, int rank, void **in, size_t *in_len, int *owned, char *detail,
                         size_t dlen)
{
    proof_job *j = user;
    *owned = 0;
    if (rank == 0 || !tile_has_h(j, tile) || j->has_h[rank])
        return 0;
    pthread_mutex_lock(&j->h_lock);
    while (j->h_state == 0)
        pthread_cond_wait(&j->h_done, &j->h_lock);
    int st = j->h_state == 1 ? 0 : j->h_state;
    if (st)
        snprintf(detail, dlen, "%s", j->h_detail);
    pthread_mutex_unlock(&j->h_lock);
    if (st == 0) {
        *in = j->work->h;
        *in_len = h_bytes(j);
    }
    return st;
}

/* The other ranks: h from a tile's payload into work->h. 0, or -1 (a fault: another rank takes
 * the tile) without h. */
static int take_h(proof_job *j, const void *in, size_t in_len, char *detail, size_t dlen)
{
    if (in_len == h_bytes(j) && j->work->h) {
        memcpy(j->work->h, in, in_len);
        j->have_h = 1;
    }
    if (j->have_h)
        return 0;
    snprintf(detail, dlen, "%s", j->work->h ? "an H tile came without h" : "no memory for h");
    return -1;
}

static hpr_status ensure_grid(proof_job *j, int t)
{
    const g16_msm *m = &j->work->msm[t];
    hpr_curve curve = j->work->zk->curve;
    msm_points pts = {m->points, m->n, m->key, m->owner, m->validated};
    if (j->grid[t])
        return HPR_OK;
    hpr_status st = msm_grid_prepare(j->ctx, curve, m->group, msm_ops(curve, m->group), &pts, m->scalars, m->n,
                                     j->c[t], strcmp(j->ctx->device, "all") == 0, &j->grid[t]);
    if (st == HPR_OK) /* every point of the section was checked */
        g16_prover_set_validated(j->work->prover, t);
    return st;
}

/* The grids of the MSMs that this rank's tiles have passed: laid out before the tile (after
 * it on rank 0, which is dealt from the end: from_end). Each rank's tiles move one way, so it
 * gets no more of them (but a tile another rank failed, for which one is prepared again).
 * Freed at once, a rank holds about two grids rather than five, and the allocator reuses
 * their memory instead of mapping (and zeroing) fresh pages for each proof. */
static void free_grids_passed(proof_job *j, sched_range tile)
{
    for (int k = 0; k < G16_MSMS; k++) {
        if (j->from_end ? j->first[k] < tile.end : j->first[k + 1] > tile.begin)
            continue;
        msm_grid_free(j->grid[msm_order[k]]);
        j->grid[msm_order[k]] = NULL;
    }
}

static int proof_compute(void *user, sched_range tile, void *in, size_t in_len, void **out, size_t *out_len,
                         char *detail, size_t dlen)
{
    proof_job *j = user;
    if (tile_has_h(j, tile) && j->h_state != 1 && take_h(j, in, in_len, detail, dlen) != 0)
        return -1;
    free_grids_passed(j, tile);
    proof_piece *pieces = calloc(G16_MSMS, sizeof *pieces);
    size_t np = 0;
    if (!pieces) {
        snprintf(detail, dlen, "no memory for a tile's sums");
        return -1;
    }
    for (int k = 0; k < G16_MSMS; k++) {
        size_t lo = tile.begin > j->first[k] ? tile.begin : j->first[k];
        size_t hi = tile.end < j->first[k + 1] ? tile.end : j->first[k + 1];
        int t = msm_order[k];
        if (lo >= hi)
            continue;
        double t0 = rt_now_seconds();
        proof_piece *p = &pieces[np];
        hpr_status st = ensure_grid(j, t);
        if (st == HPR_OK)
            st = msm_grid_run(j->grid[t], lo - j->first[k], hi - j->first[k], p->point);
        if (st != HPR_OK) {
            snprintf(detail, dlen, "%s: %s", g16_phase_name(j->work->msm[t].phase), j->ctx->detail);
            free(pieces);
            return cluster_tile_status(st);
        }
        p->msm = (uint32_t)t;
        p->begin = lo - j->first[k];
        p->end = hi - j->first[k];
        p->seconds = rt_now_seconds() - t0;
        np++;
    }
    *out = pieces;
    *out_len = np * sizeof *pieces;
    return 0;
}

static int proof_accept(void *user, sched_range tile, int rank, void *out, size_t out_len, char *detail, size_t dlen)
{
    proof_job *j = user;
    const proof_piece *pieces = out;
    if (out_len % sizeof *pieces != 0 || out_len / sizeof *pieces > G16_MSMS) {
        snprintf(detail, dlen, "rank %d returned %zu bytes for items [%zu, %zu)", rank, out_len, tile.begin, tile.end);
        return HPR_ERR_RANK;
    }
    for (size_t i = 0; i < out_len / sizeof *pieces; i++) {
        const proof_piece *p = &pieces[i];
        if (p->msm >= G16_MSMS) {
            snprintf(detail, dlen, "rank %d returned a sum of MSM %u", rank, p->msm);
            return HPR_ERR_RANK;
        }
        const g16_msm *m = &j->work->msm[p->msm];
        size_t size = msm_ops(j->work->zk->curve, m->group)->affine_size;
        sched_range r = {(size_t)p->begin, (size_t)p->end};
        if (cluster_keep_point(&j->points, &j->count, &j->cap, p->msm, r, p->point, size) != 0) {
            snprintf(detail, dlen, "rank 0: no memory for %zu tile results", j->count + 1);
            return HPR_ERR_OUT_OF_MEMORY;
        }
        j->busy[p->msm] += p->seconds;
    }
    if (tile_has_h(j, tile))
        j->has_h[rank] = 1;
    return 0;
}

/* Rank 0: each MSM's sums added into its output; the MSM phases get the job's time after h
 * in the shares of the compute time each took (they ran as one job). */
static hpr_status proof_results(proof_job *j, g16_phases *ph)
{
    double total = 0, wall = rt_now_seconds() - ph->t;
    for (int t = 0; t < G16_MSMS; t++)
        total += j->busy[t];
    for (int t = 0; t < G16_MSMS; t++) {
        const g16_msm *m = &j->work->msm[t];
        hpr_status st = cluster_sum_points(j->ctx, msm_ops(j->work->zk->curve, m->group), j->points, j->count,
                                           (unsigned)t, m->out);
        if (st != HPR_OK)
            return st;
        ph->report->seconds[m->phase] = total > 0 ? wall * j->busy[t] / total : 0;
    }
    ph->t = rt_now_seconds();
    return HPR_OK;
}

/* Rank 0 chooses every MSM's window bits and sends them to the others; the H MSM's from its
 * points alone (h is not computed yet: its values count as general, as nearly all are). Every
 * rank brings whether it has memory for h. */
static hpr_status agree_on_windows(cluster_call *call, const g16_work *work, uint32_t *c)
{
    uint32_t *got = NULL;
    size_t len = 0;
    hpr_curve curve = work->zk->curve;
    hpr_status st = work->h ? HPR_OK : HPR_ERR_OUT_OF_MEMORY; /* the context's detail says so */
    for (int t = 0; t < G16_MSMS && call->rank == 0 && st == HPR_OK; t++) {
        const g16_msm *m = &work->msm[t];
        const msm_curve_ops *ops = msm_ops(curve, m->group);
        const uint64_t *infinity = g16_prover_infinity(work->prover, t, m->points, m->n, ops->affine_size);
        c[t] = cluster_window_bits(ops, call->ctx->cpu_tier, call->ctx->threads, m->points, infinity,
                                   t == H_MSM ? NULL : m->scalars, m->n);
    }
    if ((st = cluster_agree(call, st, 0, 0, "window sizes", c, G16_MSMS * sizeof *c, (void **)&got, &len, NULL)) !=
        HPR_OK)
        return st;
    if (call->rank != 0) {
        if (!got || len != G16_MSMS * sizeof *c)
            st = ctx_fail(call->ctx, HPR_ERR_RANK, "rank 0 sent %zu bytes of window sizes", len);
        else
            memcpy(c, got, len);
    }
    free(got);
    return st;
}

static void lay_out_grids(proof_job *j)
{
    for (int k = 0; k < G16_MSMS; k++) {
        const g16_msm *m = &j->work->msm[msm_order[k]];
        size_t items = 0;
        unsigned blocks;
        if (m->n)
            msm_grid_shape(j->ctx, msm_ops(j->work->zk->curve, m->group), m->n, j->c[msm_order[k]], &items, &blocks);
        j->first[k + 1] = j->first[k] + items;
    }
}

static hpr_status cluster_work(void *user, g16_phases *ph, g16_work *work)
{
    proof_cluster *pc = user;
    cluster_call *call = pc->call;
    proof_job j;
    memset(&j, 0, sizeof j);
    j.ctx = call->ctx;
    j.work = work;
    j.ph = ph;
    hpr_status st = agree_on_windows(call, work, j.c);
    if (st != HPR_OK)
        return st;
    lay_out_grids(&j);
    if (pthread_mutex_init(&j.h_lock, NULL) != 0)
        return ctx_fail(j.ctx, HPR_ERR_THREADS, "cannot create a mutex");
    if (pthread_cond_init(&j.h_done, NULL) != 0) {
        pthread_mutex_destroy(&j.h_lock);
        return ctx_fail(j.ctx, HPR_ERR_THREADS, "cannot create a condition variable");
    }
    if (call->rank != 0)
        progress_phase(j.ctx, "msm");
    sched_tiling tiling = ctx_tiling(j.ctx, 8, 8, 8); /* whole windows (of 8 blocks) */
    tiling.whole_min = 1;                             /* but the end game's; */
    tiling.from_end = 1;                              /* rank 0 from the end: H first */
    j.from_end = call->rank == 0;
    ranks_job rj = {&j, proof_payload, proof_compute, proof_accept, NULL, proof_start};
    st = cluster_run(call, j.first[G16_MSMS], NULL, &tiling, &rj, pc->report);
    if (st == HPR_OK && call->rank == 0)
        st = proof_results(&j, ph);
    for (int t = 0; t < G16_MSMS; t++)
        msm_grid_free(j.grid[t]);
    free(j.points);
    pthread_cond_destroy(&j.h_done);
    pthread_mutex_destroy(&j.h_lock);
    return st;
}

/* Rank 0's witness values (parsed and checked), sent to the others with the agreement over
 * the zkey's digest (st: rank 0's status so far, its r and s drawn); the others get them in
 * *values. */
static hpr_status share_witness(cluster_call *call, const hpr_groth16_prover *prover, const void *wtns,
                                size_t wtns_len, hpr_status st, wtns_data *w, unsigned char **values)
{
    const zkey_file *zk = g16_prover_zkey(prover);
    uint64_t digest = g16_prover_digest(prover);
    size_t len = 0;
    *values = NULL;
    memset(w, 0, sizeof *w);
    if (call->rank == 0 && st == HPR_OK)
        st = wtns && wtns_len ? g16_parse_witness(call->ctx, prover, wtns, wtns_len, "witness", w)
                              : ctx_fail(call->ctx, HPR_ERR_INVALID_ARGUMENT, "rank 0 has no witness");
    size_t bytes = (size_t)zk->n_vars * 32;
    st = cluster_agree(call, st, digest, 0, "zkey", w->values, call->rank == 0 ? bytes : 0, (void **)values, &len,
                       NULL);
    if (st == HPR_OK && call->rank != 0 && len != bytes)
        st = ctx_fail(call->ctx, HPR_ERR_RANK, "rank 0 sent %zu bytes of witness, the key needs %zu", len, bytes);
    return st;
}

hpr_status cluster_prove_call(hpr_ctx *ctx, const hpr_cluster *cluster, const hpr_groth16_prover *prover,
                              const void *wtns, size_t wtns_len, hpr_groth16_proof *proof,
                              hpr_cluster_report *report)
{
    cluster_call call;
    proof_cluster pc = {&call, report};
    unsigned char *values = NULL;
    wtns_data w;
    hpr_status st = cluster_call_begin(ctx, cluster, report, &call);
    if (st != HPR_OK)
        return st;
    st = !prover || !proof ? ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "prover and proof must not be NULL") : HPR_OK;
    if ((st = cluster_arguments_status(&call, st)) != HPR_OK) /* the others learn of it in the first agreement */
        return cluster_agree(&call, st, 0, 0, "zkey", NULL, 0, NULL, NULL, NULL);
    g16_proof_reset(proof);
    if (call.size == 1) {
        st = g16_prove_call(ctx, prover, wtns, wtns_len, proof);
        cluster_report_end(&call, report);
        return st;
    }
    unsigned char r[32], s[32]; /* drawn before anything is shared: a failure is agreed on */
    st = call.rank == 0 ? g16_random_blinding(ctx, g16_prover_zkey(prover)->curve, r, s) : HPR_OK;
    if ((st = share_witness(&call, prover, wtns, wtns_len, st, &w, &values)) == HPR_OK) {
        double t0 = rt_now_seconds();
        if (call.rank == 0) {
            st = g16_prove_values_by(ctx, prover, w.values, r, s, proof, cluster_work, &pc);
            if (proof->report)
                proof->report->total_s = rt_now_seconds() - t0;
        } else {
            st = g16_work_by(ctx, prover, values, cluster_work, &pc);
        }
    }
    if (st != HPR_OK)
        g16_proof_clear(proof);
    wtns_free(&w);
    free(values);
    cluster_report_end(&call, report);
    return st;
}

/* ---- many proofs ---- */

/* A tile's payload: a witness's bytes, or why it could not be read. The outcome: a proof
 * (points, publics) or the witness's error. */
typedef struct {
    int32_t status; /* HPR_OK: the bytes follow; else the reader's error, detail set */
    uint32_t reserved;
    char detail[RANKS_DETAIL_LEN];
} witness_head;

typedef struct {
    int32_t status; /* HPR_OK: the proof; else the witness's error */
    uint32_t curve, n_public, reserved;
    unsigned char a[96], b[192], c[96];
    char detail[RANKS_DETAIL_LEN];
} outcome_head; /* then n_public x 32 bytes */

/* An outcome taken on rank 0's serving thread, handed to the writer on the calling thread. */
typedef struct outcome {
    size_t index;
    int rank;
    unsigned char *bytes;
    size_t len;
    struct outcome *next;
} outcome;

typedef struct {
    hpr_ctx *ctx;
    const hpr_groth16_prover *prover;
    hpr_witness_reader read;
    hpr_proof_writer write;
    void *user;
    size_t failed;
    pthread_mutex_t lock; /* the queue: filled by accept (either thread), emptied by idle */
    outcome *head, **tail;
} batch_job;

static int batch_payload(void *user, sched_range tile, int rank, void **in, size_t *in_len, int *owned,
                         char *detail, size_t dlen)
{
    batch_job *b = user;
    (void)rank;
    witness_head head = {0};
    void *data = NULL;
    size_t len = 0;
    (void)detail;
    (void)dlen;
    head.status = b->read(b->user, tile.begin, &data, &len, head.detail, sizeof head.detail);
    if (head.status != HPR_OK || !data) {
        head.status = head.status != HPR_OK ? head.status : HPR_ERR_IO;
        free(data);
        data = NULL;
        len = 0;
    }
    unsigned char *buf = malloc(sizeof head + len);
    if (!buf) {
        free(data);
        snprintf(detail, dlen, "rank 0: no memory for witness %zu (%zu bytes)", tile.begin, len);
        return HPR_ERR_OUT_OF_MEMORY;
    }
    memcpy(buf, &head, sizeof head);
    if (len)
        memcpy(buf + sizeof head, data, len);
    free(data);
    *in = buf;
    *in_len = sizeof head + len;
    *owned = 1;
    return 0;
}

/* The outcome message of a proof or of a witness's error. */
static int pack_outcome(hpr_status status, const char *detail, const hpr_groth16_proof *proof, void **out,
                        size_t *out_len)
{
    outcome_head head = {0};
    size_t publics = status == HPR_OK ? (size_t)proof->n_public * 32 : 0;
    head.status = status;
    snprintf(head.detail, sizeof head.detail, "%s", detail ? detail : "");
    if (status == HPR_OK) {
        head.curve = (uint32_t)proof->curve;
        head.n_public = proof->n_public;
        memcpy(head.a, proof->a, sizeof head.a);
        memcpy(head.b, proof->b, sizeof head.b);
        memcpy(head.c, proof->c, sizeof head.c);
    }
    unsigned char *buf = malloc(sizeof head + publics);
    if (!buf)
        return -1;
    memcpy(buf, &head, sizeof head);
    if (publics)
        memcpy(buf + sizeof head, proof->public_signals, publics);
    *out = buf;
    *out_len = sizeof head + publics;
    return 0;
}

static int batch_compute(void *user, sched_range tile, void *in, size_t in_len, void **out, size_t *out_len,
                         char *detail, size_t dlen)
{
    batch_job *b = user;
    witness_head head;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    if (in_len < sizeof head || tile.end != tile.begin + 1) {
        snprintf(detail, dlen, "witness %zu came malformed (%zu bytes)", tile.begin, in_len);
        return -1;
    }
    memcpy(&head, in, sizeof head);
    head.detail[sizeof head.detail - 1] = '\0';
    if (head.status != HPR_OK) /* rank 0 could not read it: its outcome as it is */
        return pack_outcome((hpr_status)head.status, head.detail, NULL, out, out_len) == 0 ? 0 : -1;
    hpr_status st = g16_prove_call(b->ctx, b->prover, (unsigned char *)in + sizeof head, in_len - sizeof head, &proof);
    if (cluster_tile_status(st) < 0) { /* this rank's failure, not the witness's: another rank proves it */
        snprintf(detail, dlen, "witness %zu: %s", tile.begin, b->ctx->detail);
        return -1;
    }
    int rc = pack_outcome(st, b->ctx->detail, &proof, out, out_len);
    g16_proof_clear(&proof);
    if (rc != 0)
        snprintf(detail, dlen, "witness %zu: no memory for its proof", tile.begin);
    return rc;
}

/* Hands one outcome (as batch_compute packed it) to the writer: on the calling thread, so
 * that the writer may call the library with the batch's context. */
static void write_outcome(batch_job *b, size_t index, int rank, const unsigned char *bytes, size_t len)
{
    outcome_head head;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    memcpy(&head, bytes, sizeof head);
    head.detail[sizeof head.detail - 1] = '\0';
    if (head.status == HPR_OK) {
        proof.curve = (hpr_curve)head.curve;
        proof.n_public = head.n_public;
        memcpy(proof.a, head.a, sizeof proof.a);
        memcpy(proof.b, head.b, sizeof proof.b);
        memcpy(proof.c, head.c, sizeof proof.c);
        proof.public_signals = head.n_public ? (unsigned char *)bytes + sizeof head : NULL;
    }
    (void)len;
    ctx_callback_begin(b->ctx); /* the writer may use the batch's context (hyprove.h) */
    hpr_status written = b->write(b->user, index, (hpr_status)head.status, head.detail,
                                  head.status == HPR_OK ? &proof : NULL, rank);
    ctx_callback_end(b->ctx);
    if (head.status != HPR_OK || written != HPR_OK)
        b->failed++;
}

static int batch_accept(void *user, sched_range tile, int rank, void *out, size_t out_len, char *detail, size_t dlen)
{
    batch_job *b = user;
    outcome_head head;
    if (out_len < sizeof head || (memcpy(&head, out, sizeof head), out_len != sizeof head + (head.status == HPR_OK
                                                                                               ? (size_t)head.n_public * 32
                                                                                               : 0))) {
        snprintf(detail, dlen, "rank %d returned %zu bytes for witness %zu, not an outcome", rank, out_len, tile.begin);
        return HPR_ERR_RANK;
    }
    outcome *o = malloc(sizeof *o);
    unsigned char *bytes = malloc(out_len);
    if (!o || !bytes) {
        free(o);
        free(bytes);
        snprintf(detail, dlen, "rank 0: no memory to keep the proof of witness %zu", tile.begin);
        return HPR_ERR_OUT_OF_MEMORY;
    }
    memcpy(bytes, out, out_len);
    *o = (outcome){tile.begin, rank, bytes, out_len, NULL};
    pthread_mutex_lock(&b->lock);
    *b->tail = o;
    b->tail = &o->next;
    pthread_mutex_unlock(&b->lock);
    return 0;
}

/* The calling thread: every queued outcome to the writer, in the order they came. */
static void batch_idle(void *user)
{
    batch_job *b = user;
    for (;;) {
        pthread_mutex_lock(&b->lock);
        outcome *o = b->head;
        if (o) {
            b->head = o->next;
            if (!b->head)
                b->tail = &b->head;
        }
        pthread_mutex_unlock(&b->lock);
        if (!o)
            return;
        write_outcome(b, o->index, o->rank, o->bytes, o->len);
        free(o->bytes);
        free(o);
    }
}

hpr_status cluster_batch_call(hpr_ctx *ctx, const hpr_cluster *cluster, const hpr_groth16_prover *prover,
                              size_t count, hpr_witness_reader read_witness, hpr_proof_writer write_proof,
                              void *user, size_t *failed, hpr_cluster_report *report)
{
    cluster_call call;
    batch_job b = {ctx, prover, read_witness, write_proof, user, 0, PTHREAD_MUTEX_INITIALIZER, NULL, NULL};
    double speeds[HPR_CLUSTER_MAX_RANKS] = {0};
    if (failed)
        *failed = 0;
    hpr_status st = cluster_call_begin(ctx, cluster, report, &call);
    if (st != HPR_OK)
        return st;
    if (!prover)
        st = ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "prover must not be NULL");
    else if (call.rank == 0 && (!read_witness || !write_proof))
        st = ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "rank 0 needs read_witness and write_proof");
    st = cluster_arguments_status(&call, st);
    uint64_t digest = prover ? g16_prover_digest(prover) : 0;
    uint64_t n = count;
    digest = ranks_digest(digest, &n, sizeof n);
    if ((st = cluster_agree(&call, st, digest, 0, "zkey and batch size", NULL, 0, NULL, NULL, speeds)) != HPR_OK)
        return st;
    sched_tiling tiling = ctx_tiling(ctx, 1, 1, 0);
    tiling.max_tile = 1; /* a witness per tile: each is a whole proof */
    ranks_job rj = {&b, batch_payload, batch_compute, batch_accept, batch_idle, NULL};
    b.tail = &b.head;
    if (count)
        st = cluster_run(&call, count, speeds, &tiling, &rj, report);
    batch_idle(&b); /* what a failed run took before it stopped */
    if (failed)
        *failed = b.failed;
    cluster_report_end(&call, report);
    return st;
}
