/*
 * ranks.h: the hybrid scheduler one level up: the processes (ranks) of a job as devices.
 * Rank 0 deals a job's items to the ranks with the scheduler's policy (sched_policy: guided
 * self-scheduling by throughput, probes, the tail rule, faulty ranks dropped), each rank asks
 * for its next tile when it has finished one, and results are handed to rank 0's accept in
 * the order they arrive (the caller adds them in item order).
 *
 * Messages go between rank 0 and the other ranks only (a star), over the caller's transport
 * (hpr_cluster in hyprove.h). Every message is a ranks_msg header and a payload. Each
 * collective step (ranks_agree, ranks_run) has a number, the same on every rank because every
 * rank makes the same steps in the same order; a message of a later step that arrives early
 * (a fast rank already in the next step) is kept until that step, and one of an earlier
 * step is an error: the ranks are out of step.
 *
 * Within a step every message is answered exactly once (an ask by a tile, DONE or ABORT; an
 * agreement by the verdict), and rank 0 leaves a step only when every rank has had its last
 * answer, so no message of a step outlives it.
 *
 * Rank 0 runs its own tiles on the calling thread while a second thread serves the other
 * ranks: the transport is used by one thread at a time, not always the same one
 * (MPI_THREAD_SERIALIZED). Every
 * wait polls with short sleeps (50 us growing to 1 ms), so a waiting rank costs no CPU that its
 * neighbours on the machine could use.
 */
#ifndef RUNTIME_SCHED_RANKS_H
#define RUNTIME_SCHED_RANKS_H

#include "sched.h"

#include <stddef.h>
#include <stdint.h>

#define RANKS_MAX SCHED_MAX_DEVICES
#define RANKS_DETAIL_LEN 384

/* The transport (hpr_cluster's fields) and the link's state on this rank. */
typedef struct ranks_parked ranks_parked;
typedef struct {
    int rank, size;
    void *user;
    int (*send)(void *user, int to, const void *data, size_t len);
    int (*poll)(void *user, int *from, void **data, size_t *len);
    uint64_t step;         /* the current collective step */
    uint64_t bytes, messages; /* sent and received through this rank (rank 0: all of them) */
    int broken_status;     /* the status of a failed transport or ranks out of step */
    int mismatch_status;   /* the status of inputs that differ between ranks */
    ranks_parked *parked;  /* messages of later steps */
} ranks_link;

/* Starts a link over a transport: step 0, no counts. */
void ranks_link_init(ranks_link *l, int rank, int size, void *user,
                     int (*send)(void *, int, const void *, size_t), int (*poll)(void *, int *, void **, size_t *),
                     int broken_status, int mismatch_status);
/* Frees the parked messages (a link whose step ended normally has none). */
void ranks_link_release(ranks_link *l);

/* What a step did on rank 0 (per rank: tiles, items, seconds busy, failed tiles, dropped). */
typedef struct {
    unsigned tiles[RANKS_MAX], failures[RANKS_MAX];
    size_t items[RANKS_MAX];
    double busy_s[RANKS_MAX];
    int dropped[RANKS_MAX];
} ranks_report;

/*
 * Collective agreement. Each rank brings its status (0 or an error of its own, with detail),
 * a digest of the inputs that must be equal everywhere (what names them in the message) and
 * its speed; rank 0 also brings payload0 (len0 bytes) for every rank. Returns on every rank:
 * 0 when every status is 0 and every digest equals rank 0's (then other ranks get a malloc'd
 * copy of the payload in *payload, *len; rank 0 gets NULL); else the lowest failing rank's
 * status with verdict "rank R: <detail>", or mismatch_status ("rank R's <what> differs from
 * rank 0's"), or broken_status. speeds (rank 0, may be NULL): each rank's speed.
 */
int ranks_agree(ranks_link *l, int status, const char *detail, uint64_t digest, double speed, const char *what,
                const void *payload0, size_t len0, void **payload, size_t *len, double *speeds, char *verdict,
                size_t verdict_len);

/* A job's callbacks. compute runs on every rank (on the calling thread); payload and accept
 * on rank 0 only, one at a time (under the job's lock), on either of its threads. */
typedef struct {
    void *user;
    /* The payload of tile for rank, the rank that computes it (0 too): *in (NULL: none), and
     * *owned 1 when the step must free it after use. 0, or an error status (detail). NULL:
     * no tile has a payload. */
    int (*payload)(void *user, sched_range tile, int rank, void **in, size_t *in_len, int *owned, char *detail,
                   size_t dlen);
    /* Computes tile from in into *out (malloc'd, or in itself: "in place", not freed
     * separately). 0; an error status for an input error (the job stops, detail); -1 for a
     * fault (the tile goes to another rank, detail). */
    int (*compute)(void *user, sched_range tile, void *in, size_t in_len, void **out, size_t *out_len, char *detail,
                   size_t dlen);
    /* Takes tile's result from rank. 0, or an error status (the job stops, detail). */
    int (*accept)(void *user, sched_range tile, int rank, void *out, size_t out_len, char *detail, size_t dlen);
    /* Rank 0, may be NULL: called on the calling thread between its tiles, while it waits,
     * and once at the end (not under the lock): where results taken on the serving thread
     * can be handed on from the caller's thread. */
    void (*idle)(void *user);
    /* Rank 0, may be NULL: called once on the calling thread while the other ranks already
     * take tiles, before rank 0 takes its first (work the others' tiles do not need at once,
     * and that their payloads may wait for). 0, or an error status (detail): the job stops. */
    int (*start)(void *user, char *detail, size_t dlen);
} ranks_job;

/*
 * Collective: the n items of job dealt to the ranks. speeds (rank 0; NULL or 0: unknown,
 * probed) as ranks_agree collects them; tiling as the scheduler's. Returns 0 when every item
 * was computed and accepted; else on every rank the error status with detail ("rank R: ..."):
 * a rank's input error, an accept failure, every rank dropped, or broken_status. report
 * (rank 0, may be NULL) is filled.
 */
int ranks_run(ranks_link *l, size_t n, const double *speeds, const sched_tiling *tiling, const ranks_job *job,
              ranks_report *report, char *detail, size_t detail_len);

/* A 64-bit digest of len bytes (FNV-1a-like over 8-byte words in four lanes, then the
 * tail), chained from seed (0 to start): tells inputs apart, not an adversary's collision. */
uint64_t ranks_digest(uint64_t seed, const void *data, size_t len);

#endif
