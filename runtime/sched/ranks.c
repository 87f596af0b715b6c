/*
 * ranks.c: the processes of a job as devices of the scheduler's policy (ranks.h).
 *
 * Why the scheduler's own policy: a rank is a device one level up (its own CPU and OpenCL
 * devices behind it), with a throughput that calibration or a first probe tile tells, that
 * can slow down (a shared node) or fail; sched_policy already deals by throughput, shrinks
 * tiles towards the end and drops a device that fails twice, and it is clock-free, so the
 * times a rank measures for its own tiles drive it here as a device's do in sched_run.
 * Why a star through rank 0: every result must reach rank 0 anyway (it adds them in a fixed
 * order), requests are a few hundred bytes, and a single dealer needs no distributed
 * agreement; with 16 ranks rank 0 handles one small message per tile.
 * Threads: rank 0 computes its own tiles on the calling thread (which holds the caller's
 * context, so the library's nested calls work there) while a second thread serves the other
 * ranks; the transport is used by one thread at a time (MPI_THREAD_SERIALIZED).
 * Waiting: the transport is polled with sleeps that grow from 50 us to 1 ms while nothing
 * comes (a tile lasts milliseconds at least): MPI's blocking receive spins,
 * which on a machine running one rank per core would take a core from the ranks' work.
 * Where an answer is due, the sleeps stay short (RANKS_POLL_NEAR_US): a rank that has sent
 * its ask polls so for RANKS_REPLY_SOON_S, and rank 0's serving thread polls so from shortly
 * before a rank's tile should end (its size over the rank's measured speed) until shortly
 * after. With growing sleeps alone, an ask and its answer each waited for a sleep of up to
 * 1 ms (a nanosleep here oversleeps by about 60 us): 2-3 ms per tile on the 2-core Xeon, about
 * a tenth of a Groth16 tile's time, against 0.3-0.5 ms now (docs/cluster.md).
 */
#define _POSIX_C_SOURCE 200809L
#include "ranks.h"
#include "runtime/base/rt_pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#define RANKS_MAGIC 0x6870726bu /* "hprk" */
#define RANKS_POLL_MIN_US 50
#define RANKS_POLL_MAX_US 1000
#define RANKS_POLL_NEAR_US 100   /* the sleep while an answer is due */
#define RANKS_REPLY_SOON_S 0.002 /* a rank's ask is answered within this, unless it must wait */
#define RANKS_DUE_EARLY_S 0.001  /* rank 0 polls fast from this long before a tile's due time, */
#define RANKS_DUE_LATE_S 0.002   /* until this long after it, each plus a quarter of the tile's time */

enum { MSG_AGREE = 1, MSG_VERDICT, MSG_ASK, MSG_TILE, MSG_DONE, MSG_ABORT };

/* The header of every message; a payload follows. ASK: the previous tile (begin == end: none)
 * with its status (0, an input error's status, -1 a fault), seconds and detail; AGREE: status,
 * digest, speed in seconds, detail; VERDICT, ABORT: status and detail; TILE: the range. */
typedef struct {
    uint32_t magic, kind;
    uint64_t step, begin, end, digest;
    int32_t status, reserved;
    double seconds;
    char detail[RANKS_DETAIL_LEN];
} msg_header;

struct ranks_parked {
    int from;
    unsigned char *data;
    size_t len;
    ranks_parked *next;
};

typedef struct {
    int from;
    msg_header h;
    unsigned char *data; /* the whole message (header first); payload = data + sizeof h */
    size_t len;
} message;

/* Sleeps *us microseconds and doubles it up to RANKS_POLL_MAX_US: a wait that lasts polls
 * less and less often (a few hundred wake-ups a second), one that ends soon answers fast.
 * The caller resets *us to RANKS_POLL_MIN_US when something happened. */
static void nap(unsigned *us)
{
    struct timespec ts = {0, (long)*us * 1000L};
    nanosleep(&ts, NULL);
    *us = *us * 2 < RANKS_POLL_MAX_US ? *us * 2 : RANKS_POLL_MAX_US;
}

/* A short sleep, while an answer is due: *us is left as it is. */
static void nap_near(void)
{
    struct timespec ts = {0, RANKS_POLL_NEAR_US * 1000L};
    nanosleep(&ts, NULL);
}

/* Four lanes over 32-byte blocks, so that the multiplications of one block do not wait for
 * each other's (one lane ran at about 4 GB/s; an MSM of 2^20 digests 96 MB on every rank). */
static uint64_t digest_step(uint64_t h, uint64_t w)
{
    h = (h ^ w) * 0x100000001b3ull;
    return h ^ (h >> 29);
}

uint64_t ranks_digest(uint64_t seed, const void *data, size_t len)
{
    const unsigned char *p = data;
    uint64_t h = seed ? seed : 0xcbf29ce484222325ull, lane[4], w;
    size_t i = 0;
    for (int k = 0; k < 4; k++)
        lane[k] = h + 0x9e3779b97f4a7c15ull * (uint64_t)(k + 1);
    for (; i + 32 <= len; i += 32)
        for (int k = 0; k < 4; k++) {
            memcpy(&w, p + i + 8 * k, 8);
            lane[k] = digest_step(lane[k], w);
        }
    for (int k = 0; k < 4; k++)
        h = digest_step(h, lane[k]);
    for (; i + 8 <= len; i += 8) {
        memcpy(&w, p + i, 8);
        h = digest_step(h, w);
    }
    for (; i < len; i++)
        h = (h ^ p[i]) * 0x100000001b3ull;
    return (h ^ len) * 0x9e3779b97f4a7c15ull;
}

void ranks_link_init(ranks_link *l, int rank, int size, void *user,
                     int (*send)(void *, int, const void *, size_t), int (*poll)(void *, int *, void **, size_t *),
                     int broken_status, int mismatch_status)
{
    memset(l, 0, sizeof *l);
    l->rank = rank;
    l->size = size;
    l->user = user;
    l->send = send;
    l->poll = poll;
    l->broken_status = broken_status;
    l->mismatch_status = mismatch_status;
}

void ranks_link_release(ranks_link *l)
{
    while (l->parked) {
        ranks_parked *p = l->parked;
        l->parked = p->next;
        free(p->data);
        free(p);
    }
}

/* Sends header h (kind, step filled here) and payload to rank `to`. 0, or -1. */
static int link_send(ranks_link *l, int to, unsigned kind, msg_header *h, const void *payload, size_t plen)
{
    unsigned char *buf = malloc(sizeof *h + plen);
    if (!buf)
        return -1;
    h->magic = RANKS_MAGIC;
    h->kind = kind;
    h->step = l->step;
    memcpy(buf, h, sizeof *h);
    if (plen)
        memcpy(buf + sizeof *h, payload, plen);
    int rc = l->send(l->user, to, buf, sizeof *h + plen) == 0 ? 0 : -1;
    free(buf);
    l->bytes += sizeof *h + plen;
    l->messages++;
    return rc;
}

static int park(ranks_link *l, int from, void *data, size_t len)
{
    ranks_parked *p = malloc(sizeof *p), **tail = &l->parked;
    if (!p)
        return -1;
    *p = (ranks_parked){from, data, len, NULL};
    while (*tail)
        tail = &(*tail)->next;
    *tail = p;
    return 0;
}

/* A parked message of the current step, if any (the first that arrived). */
static int unpark(ranks_link *l, message *m)
{
    for (ranks_parked **pp = &l->parked; *pp; pp = &(*pp)->next) {
        msg_header h;
        memcpy(&h, (*pp)->data, sizeof h);
        if (h.step != l->step)
            continue;
        ranks_parked *p = *pp;
        *pp = p->next;
        *m = (message){p->from, h, p->data, p->len};
        free(p);
        return 1;
    }
    return 0;
}

/* The next message of this step, without waiting: 1 (into m), 0 none, -1 a broken link or a
 * message that is not ours or of an earlier step (detail). */
static int link_try_recv(ranks_link *l, message *m, char *detail, size_t dlen)
{
    if (unpark(l, m))
        return 1;
    for (;;) {
        void *data = NULL;
        size_t len = 0;
        int from = -1, got = l->poll(l->user, &from, &data, &len);
        if (got == 0)
            return 0;
        if (got < 0) {
            snprintf(detail, dlen, "rank %d: the transport failed while receiving", l->rank);
            return -1;
        }
        l->bytes += len;
        l->messages++;
        msg_header h;
        if (len < sizeof h || (memcpy(&h, data, sizeof h), h.magic != RANKS_MAGIC) || from < 0 || from >= l->size) {
            snprintf(detail, dlen, "rank %d received a message of %zu bytes from rank %d that is not hyprove's", l->rank,
                     len, from);
            free(data);
            return -1;
        }
        if (h.step > l->step) { /* a faster rank's next step */
            if (park(l, from, data, len) != 0) {
                free(data);
                snprintf(detail, dlen, "rank %d: no memory for a message", l->rank);
                return -1;
            }
            continue;
        }
        if (h.step < l->step) {
            snprintf(detail, dlen, "ranks out of step: rank %d sent a message of step %llu while rank %d is in step %llu",
                     from, (unsigned long long)h.step, l->rank, (unsigned long long)l->step);
            free(data);
            return -1;
        }
        h.detail[RANKS_DETAIL_LEN - 1] = '\0';
        *m = (message){from, h, data, len};
        return 1;
    }
}

/* Waits for the next message of this step, polling fast for the first soon_s seconds (an
 * answer expected by then). 0, or -1 (detail). */
static int link_recv(ranks_link *l, message *m, double soon_s, char *detail, size_t dlen)
{
    unsigned us = RANKS_POLL_MIN_US;
    double until = soon_s > 0 ? rt_now_seconds() + soon_s : 0;
    int got;
    while ((got = link_try_recv(l, m, detail, dlen)) == 0) {
        if (until > 0 && rt_now_seconds() < until)
            nap_near();
        else
            nap(&us);
    }
    return got > 0 ? 0 : -1;
}

static const unsigned char *payload_of(const message *m, size_t *plen)
{
    *plen = m->len - sizeof m->h;
    return m->data + sizeof m->h;
}

/* ---- agreement ---- */

/* Rank 0's verdict from every rank's AGREE (its own in slot 0). */
static int verdict_of(ranks_link *l, const msg_header *agree, const char *what, char *verdict, size_t vlen)
{
    for (int r = 0; r < l->size; r++)
        if (agree[r].status != 0) {
            snprintf(verdict, vlen, "rank %d: %s", r, agree[r].detail);
            return agree[r].status;
        }
    for (int r = 1; r < l->size; r++)
        if (agree[r].digest != agree[0].digest) {
            snprintf(verdict, vlen, "rank %d's %s differs from rank 0's (digest %016llx, rank 0's %016llx): every rank "
                                    "must read the same %s",
                     r, what, (unsigned long long)agree[r].digest, (unsigned long long)agree[0].digest, what);
            return l->mismatch_status;
        }
    return 0;
}

static int agree_as_rank0(ranks_link *l, const msg_header *mine, const char *what, const void *payload0, size_t len0,
                          double *speeds, char *verdict, size_t vlen)
{
    msg_header *agree = calloc((size_t)l->size, sizeof *agree);
    int st, broken = 0;
    if (!agree) {
        snprintf(verdict, vlen, "rank 0: no memory to agree");
        return l->broken_status;
    }
    agree[0] = *mine;
    for (int got = 1; got < l->size; got++) {
        message m;
        if (link_recv(l, &m, 0, verdict, vlen) != 0) {
            st = l->broken_status;
            goto out;
        }
        if (m.h.kind != MSG_AGREE && !broken) {
            snprintf(verdict, vlen, "ranks out of step: rank %d is not agreeing in step %llu", m.from,
                     (unsigned long long)l->step);
            broken = 1;
        }
        agree[m.from] = m.h;
        free(m.data);
    }
    st = broken ? l->broken_status : verdict_of(l, agree, what, verdict, vlen);
    msg_header v = {0};
    v.status = st;
    snprintf(v.detail, sizeof v.detail, "%s", st ? verdict : "");
    for (int r = 1; r < l->size; r++)
        if (link_send(l, r, MSG_VERDICT, &v, st ? NULL : payload0, st ? 0 : len0) != 0 && st == 0) {
            snprintf(verdict, vlen, "rank 0: the transport failed sending to rank %d", r);
            st = l->broken_status;
        }
    if (speeds)
        for (int r = 0; r < l->size; r++)
            speeds[r] = agree[r].seconds;
out:
    free(agree);
    return st;
}

static int agree_as_worker(ranks_link *l, msg_header *mine, void **payload, size_t *len, char *verdict, size_t vlen)
{
    message m;
    if (link_send(l, 0, MSG_AGREE, mine, NULL, 0) != 0) {
        snprintf(verdict, vlen, "rank %d: the transport failed sending to rank 0", l->rank);
        return l->broken_status;
    }
    if (link_recv(l, &m, 0, verdict, vlen) != 0)
        return l->broken_status;
    int st = m.h.kind == MSG_VERDICT ? m.h.status : l->broken_status;
    if (m.h.kind != MSG_VERDICT)
        snprintf(verdict, vlen, "ranks out of step: rank %d expected rank 0's verdict", l->rank);
    else if (st != 0)
        snprintf(verdict, vlen, "%s", m.h.detail);
    else if (payload) {
        size_t plen;
        const unsigned char *p = payload_of(&m, &plen);
        *payload = plen ? malloc(plen) : NULL;
        if (plen && !*payload) {
            snprintf(verdict, vlen, "rank %d: no memory for %zu bytes from rank 0", l->rank, plen);
            st = l->broken_status;
        } else {
            if (plen)
                memcpy(*payload, p, plen);
            *len = plen;
        }
    }
    free(m.data);
    return st;
}

int ranks_agree(ranks_link *l, int status, const char *detail, uint64_t digest, double speed, const char *what,
                const void *payload0, size_t len0, void **payload, size_t *len, double *speeds, char *verdict,
                size_t verdict_len)
{
    msg_header mine = {0};
    mine.status = status;
    mine.digest = digest;
    mine.seconds = speed;
    snprintf(mine.detail, sizeof mine.detail, "%s", status && detail ? detail : "");
    if (payload)
        *payload = NULL;
    if (len)
        *len = 0;
    verdict[0] = '\0';
    l->step++;
    if (l->size <= 1) {
        if (status)
            snprintf(verdict, verdict_len, "%s", detail ? detail : "");
        if (speeds)
            speeds[0] = speed;
        return status;
    }
    return l->rank == 0 ? agree_as_rank0(l, &mine, what, payload0, len0, speeds, verdict, verdict_len)
                        : agree_as_worker(l, &mine, payload, len, verdict, verdict_len);
}

/* ---- dealing: rank 0 ---- */

typedef struct {
    ranks_link *l;
    const ranks_job *job;
    sched_policy pol;
    pthread_mutex_t lock;
    int error;                 /* the first error status (0: none) */
    char detail[RANKS_DETAIL_LEN];
    ranks_report *rep;
    double started; /* rt_now_seconds() at the job's start (the trace's clock) */
    double dealt_at[RANKS_MAX]; /* when each rank's tile in flight was dealt */
} dealer;

/* The next tile for rank (under the lock), the policy first told how long each busy rank's
 * tile has run (whole_min's end game: what they still owe). */
static sched_next_result dealer_next(dealer *d, int rank, sched_range *tile)
{
    double now = rt_now_seconds();
    for (int r = 0; r < d->l->size; r++)
        if (r != rank && d->pol.busy[r])
            sched_policy_progress(&d->pol, (unsigned)r, now - d->dealt_at[r]);
    sched_next_result next = sched_policy_next(&d->pol, (unsigned)rank, tile);
    if (next == SCHED_TILE)
        d->dealt_at[rank] = now;
    return next;
}

/* Records the job's first error (under the lock). */
static void dealer_fail(dealer *d, int status, int rank, const char *why)
{
    if (d->error)
        return;
    d->error = status;
    if (rank >= 0)
        snprintf(d->detail, sizeof d->detail, "rank %d: %s", rank, why);
    else
        snprintf(d->detail, sizeof d->detail, "%s", why);
}

/* A finished tile of rank (under the lock): its result accepted, or its fault or error. */
static void dealer_finish(dealer *d, int rank, sched_range tile, int rc, double seconds, void *out, size_t out_len,
                          const char *why)
{
    char detail[RANKS_DETAIL_LEN];
    if (rc > 0) {
        dealer_fail(d, rc, rank, why);
        return;
    }
    if (rc < 0) {
        d->rep->failures[rank]++;
        if (sched_policy_failed(&d->pol, (unsigned)rank, tile))
            d->rep->dropped[rank] = 1;
        return;
    }
    if (d->error)
        return;
    int st = d->job->accept(d->job->user, tile, rank, out, out_len, detail, sizeof detail);
    if (st != 0) {
        dealer_fail(d, st, -1, detail);
        return;
    }
    sched_policy_done(&d->pol, (unsigned)rank, tile, seconds);
    if (d->pol.trace)
        fprintf(stderr, "ranks: rank %d tile [%zu, %zu) in %.4f s, accepted at %.4f s\n", rank, tile.begin, tile.end,
                seconds, rt_now_seconds() - d->started);
    d->rep->tiles[rank]++;
    d->rep->items[rank] += tile.end - tile.begin;
    d->rep->busy_s[rank] += seconds;
}

/* Rank 0's own tiles (on the calling thread), beside the thread that serves the others. */
static void *dealer_local_worker(void *arg)
{
    dealer *d = arg;
    unsigned us = RANKS_POLL_MIN_US;
    pthread_mutex_lock(&d->lock);
    while (!d->error) {
        sched_range tile;
        if (d->job->idle) {
            pthread_mutex_unlock(&d->lock);
            d->job->idle(d->job->user);
            pthread_mutex_lock(&d->lock);
        }
        sched_next_result next = dealer_next(d, 0, &tile);
        if (next == SCHED_DONE)
            break;
        if (next == SCHED_WAIT) {
            pthread_mutex_unlock(&d->lock);
            nap(&us);
            pthread_mutex_lock(&d->lock);
            continue;
        }
        us = RANKS_POLL_MIN_US;
        void *in = NULL, *out = NULL;
        size_t in_len = 0, out_len = 0;
        int owned = 0;
        char why[RANKS_DETAIL_LEN] = "";
        int rc = d->job->payload ? d->job->payload(d->job->user, tile, 0, &in, &in_len, &owned, why, sizeof why) : 0;
        if (rc != 0) {
            dealer_fail(d, rc, -1, why);
            break;
        }
        pthread_mutex_unlock(&d->lock);
        double t0 = rt_now_seconds();
        rc = d->job->compute(d->job->user, tile, in, in_len, &out, &out_len, why, sizeof why);
        double seconds = rt_now_seconds() - t0;
        pthread_mutex_lock(&d->lock);
        dealer_finish(d, 0, tile, rc, seconds, out, out_len, why);
        if (out != in)
            free(out);
        if (owned)
            free(in);
    }
    pthread_mutex_unlock(&d->lock);
    return NULL;
}

/* An ASK from a rank: its previous tile's outcome (with the result as payload). */
static void dealer_take_ask(dealer *d, const message *m)
{
    if (m->h.begin >= m->h.end)
        return;
    size_t plen;
    const unsigned char *p = payload_of(m, &plen);
    sched_range tile = {(size_t)m->h.begin, (size_t)m->h.end};
    dealer_finish(d, m->from, tile, m->h.status, m->h.seconds, (void *)p, plen, m->h.detail);
}

/* The answer to a waiting rank (under the lock; the payload prepared here is sent by the
 * caller after unlocking): 1 when there is one to send (kind, h, payload), 0 to keep it
 * waiting. */
typedef struct {
    unsigned kind;
    msg_header h;
    void *payload;
    size_t len;
    int owned;
} answer;

static int dealer_answer(dealer *d, int rank, answer *a)
{
    memset(a, 0, sizeof *a);
    if (d->error) {
        a->kind = MSG_ABORT;
        a->h.status = d->error;
        snprintf(a->h.detail, sizeof a->h.detail, "%s", d->detail);
        return 1;
    }
    sched_range tile;
    sched_next_result next = dealer_next(d, rank, &tile);
    if (next == SCHED_WAIT)
        return 0;
    if (next == SCHED_DONE) {
        a->kind = MSG_DONE;
        return 1;
    }
    char why[RANKS_DETAIL_LEN] = "";
    int rc = d->job->payload
                 ? d->job->payload(d->job->user, tile, rank, &a->payload, &a->len, &a->owned, why, sizeof why)
                 : 0;
    if (rc != 0) {
        dealer_fail(d, rc, -1, why);
        sched_policy_failed(&d->pol, (unsigned)rank, tile); /* not computed: the job stops anyway */
        return dealer_answer(d, rank, a);
    }
    a->kind = MSG_TILE;
    a->h.begin = tile.begin;
    a->h.end = tile.end;
    return 1;
}

/* A tile of items sent to rank (under the lock): when rank 0 should poll fast for its ask
 * (due[1] = 0: the rank's speed is not known yet), from the rank's measured speed. Items
 * differ in cost (a proof's G2 windows against its G1 ones), hence the margins. */
static void expect_tile(const dealer *d, int rank, size_t items, double due[2])
{
    double speed = d->pol.speed[rank], seconds = speed > 0 ? (double)items / speed : 0, now = rt_now_seconds();
    due[0] = seconds > 0 ? now + seconds - RANKS_DUE_EARLY_S - seconds / 4 : 0;
    due[1] = seconds > 0 ? now + seconds + RANKS_DUE_LATE_S + seconds / 4 : 0;
}

/* 1 when some rank's tile is due about now, so an ask is to be answered without delay. */
static int answer_due(double due[][2], int size)
{
    double now = rt_now_seconds();
    for (int r = 1; r < size; r++)
        if (due[r][1] > 0 && now > due[r][0] && now < due[r][1])
            return 1;
    return 0;
}

/* Serves the other ranks until each has had its last answer. 0, or -1 for a broken link
 * (d->detail). */
static int dealer_serve(dealer *d)
{
    ranks_link *l = d->l;
    int waiting[RANKS_MAX] = {0}, closed = 0;
    double due[RANKS_MAX][2] = {{0}}; /* per rank: from when to when its ask is due */
    unsigned us = RANKS_POLL_MIN_US;
    while (closed < l->size - 1) {
        message m;
        char why[RANKS_DETAIL_LEN];
        int got = link_try_recv(l, &m, why, sizeof why);
        if (got < 0) {
            pthread_mutex_lock(&d->lock);
            dealer_fail(d, l->broken_status, -1, why);
            pthread_mutex_unlock(&d->lock);
            return -1;
        }
        if (got > 0) {
            pthread_mutex_lock(&d->lock);
            if (m.h.kind != MSG_ASK)
                dealer_fail(d, l->broken_status, -1, "ranks out of step: a rank is not in the same call as rank 0");
            else
                dealer_take_ask(d, &m);
            waiting[m.from] = 1;
            due[m.from][1] = 0;
            pthread_mutex_unlock(&d->lock);
            free(m.data);
        }
        int sent = 0;
        for (int r = 1; r < l->size; r++) {
            answer a;
            if (!waiting[r])
                continue;
            pthread_mutex_lock(&d->lock);
            int ready = dealer_answer(d, r, &a);
            if (ready && a.kind == MSG_TILE)
                expect_tile(d, r, a.h.end - a.h.begin, due[r]);
            pthread_mutex_unlock(&d->lock);
            if (!ready)
                continue;
            int rc = link_send(l, r, a.kind, &a.h, a.payload, a.len);
            if (a.owned)
                free(a.payload);
            waiting[r] = 0;
            sent = 1;
            if (a.kind != MSG_TILE)
                closed++;
            if (rc != 0) {
                pthread_mutex_lock(&d->lock);
                snprintf(why, sizeof why, "rank 0: the transport failed sending to rank %d", r);
                dealer_fail(d, l->broken_status, -1, why);
                pthread_mutex_unlock(&d->lock);
                return -1;
            }
        }
        if (got || sent)
            us = RANKS_POLL_MIN_US;
        else if (answer_due(due, l->size))
            nap_near();
        else
            nap(&us);
    }
    return 0;
}

static void *dealer_serve_thread(void *arg)
{
    dealer_serve(arg);
    return NULL;
}

/* The job's start on the calling thread (the server, if any, already deals to the others). */
static void dealer_start(dealer *d)
{
    char why[RANKS_DETAIL_LEN] = "";
    if (!d->job->start)
        return;
    int rc = d->job->start(d->job->user, why, sizeof why);
    if (rc != 0) {
        pthread_mutex_lock(&d->lock);
        dealer_fail(d, rc, -1, why);
        pthread_mutex_unlock(&d->lock);
    }
}

static int run_as_rank0(ranks_link *l, size_t n, const double *speeds, const sched_tiling *tiling,
                        const ranks_job *job, ranks_report *rep, char *detail, size_t dlen)
{
    dealer d;
    pthread_t server;
    memset(&d, 0, sizeof d);
    d.l = l;
    d.job = job;
    d.rep = rep;
    d.started = rt_now_seconds();
    sched_policy_init(&d.pol, n, (unsigned)l->size, speeds, tiling);
    if (pthread_mutex_init(&d.lock, NULL) != 0) {
        snprintf(detail, dlen, "rank 0: cannot create a mutex");
        return l->broken_status;
    }
    /* the calling thread computes rank 0's tiles (it holds the caller's context), a second
     * thread serves the others; without one, rank 0 only serves */
    int threaded = l->size == 1 || pthread_create(&server, NULL, dealer_serve_thread, &d) == 0;
    if (!threaded)
        d.pol.dropped[0] = 1;
    dealer_start(&d);
    if (threaded) {
        dealer_local_worker(&d);
        if (l->size > 1)
            pthread_join(server, NULL);
    } else {
        dealer_serve(&d);
    }
    if (job->idle)
        job->idle(job->user);
    pthread_mutex_destroy(&d.lock);
    if (!d.error && sched_policy_finished(&d.pol) != 1)
        dealer_fail(&d, l->broken_status, -1, "every rank failed its tiles (see the report's failures)");
    if (d.error)
        snprintf(detail, dlen, "%s", d.detail);
    return d.error;
}

/* ---- dealing: the other ranks ---- */

static int run_as_worker(ranks_link *l, const ranks_job *job, char *detail, size_t dlen)
{
    msg_header ask = {0};
    void *result = NULL, *in_place = NULL;
    size_t result_len = 0;
    int st = 0;
    for (;;) {
        message m;
        int rc = link_send(l, 0, MSG_ASK, &ask, result, result_len);
        if (result != in_place)
            free(result);
        free(in_place);
        result = in_place = NULL;
        result_len = 0;
        if (rc != 0) {
            snprintf(detail, dlen, "rank %d: the transport failed sending to rank 0", l->rank);
            return l->broken_status;
        }
        if (link_recv(l, &m, RANKS_REPLY_SOON_S, detail, dlen) != 0)
            return l->broken_status;
        if (m.h.kind != MSG_TILE) {
            st = m.h.kind == MSG_DONE ? 0 : m.h.kind == MSG_ABORT ? m.h.status : l->broken_status;
            if (m.h.kind == MSG_ABORT)
                snprintf(detail, dlen, "%s", m.h.detail);
            else if (st)
                snprintf(detail, dlen, "ranks out of step: rank %d expected a tile", l->rank);
            free(m.data);
            return st;
        }
        size_t in_len;
        const unsigned char *p = payload_of(&m, &in_len);
        void *in = in_len ? malloc(in_len) : NULL;
        sched_range tile = {(size_t)m.h.begin, (size_t)m.h.end};
        memset(&ask, 0, sizeof ask);
        ask.begin = m.h.begin;
        ask.end = m.h.end;
        if (in_len && !in) {
            ask.status = -1;
            snprintf(ask.detail, sizeof ask.detail, "no memory for %zu bytes of a tile", in_len);
        } else {
            if (in_len)
                memcpy(in, p, in_len);
            double t0 = rt_now_seconds();
            ask.status = job->compute(job->user, tile, in, in_len, &result, &result_len, ask.detail, sizeof ask.detail);
            ask.seconds = rt_now_seconds() - t0;
            in_place = in;
            if (ask.status != 0) {
                if (result != in)
                    free(result);
                result = NULL;
                result_len = 0;
            }
        }
        free(m.data);
    }
}

int ranks_run(ranks_link *l, size_t n, const double *speeds, const sched_tiling *tiling, const ranks_job *job,
              ranks_report *report, char *detail, size_t detail_len)
{
    ranks_report local;
    ranks_report *rep = report ? report : &local;
    memset(rep, 0, sizeof *rep);
    detail[0] = '\0';
    l->step++;
    if (l->size > RANKS_MAX) {
        snprintf(detail, detail_len, "%d ranks: at most %d", l->size, RANKS_MAX);
        return l->broken_status;
    }
    return l->rank == 0 ? run_as_rank0(l, n, speeds, tiling, job, rep, detail, detail_len)
                        : run_as_worker(l, job, detail, detail_len);
}
