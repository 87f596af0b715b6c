/*
 * sched.c: the hybrid scheduler's policy (clock-free) and its threaded runner.
 *
 * GUIDE = 0.9: a device takes 90% of its proportional share of what remains, so most
 * of the work goes out in the first round of large tiles and tiles shrink geometrically;
 * the last ones are at most min_tile and at most the share that ends with the others.
 * Large tiles matter: a device's throughput grows with tile size (Pippenger's window grows
 * with n). Measured (BN254 2^18, CPU 1 thread + POCL 1 thread, 2-core Zen 4, bench
 * --devices cpu,cl:0.0,all): hybrid efficiency 0.85 with GUIDE 0.6, 0.95-0.97 with 0.9. SMOOTH = 0.5 weighs the newest tile's throughput against the
 * history, enough to follow a device that slows down within two tiles.
 * whole_min (the ranks' MSM windows, where a piece of a window pays the window's whole bucket
 * reduction): whole min_tiles until the end game, when less than a min_tile would be left
 * beyond the asking device's balanced share, counting what the busy devices still owe of
 * their tiles (sched_policy_progress); then that share to the item. Dealt whole to the end,
 * the 17 windows of a 2^20 MSM on two ranks left one rank running the last window alone:
 * the ranks' ends lay a median of 73 ms apart (2-core Xeon, 20 jobs), 19 ms with the end
 * game, for two pieces of one window.
 */
#define _POSIX_C_SOURCE 200809L
#include "sched.h"
#include "runtime/base/rt_pool.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GUIDE 0.9
#define SMOOTH 0.5
#define SHARE_DIVISOR 4

void sched_policy_init(sched_policy *p, size_t n, unsigned ndev, const double *speeds, const sched_tiling *tiling)
{
    memset(p, 0, sizeof *p);
    p->n = n;
    p->back = n;
    p->ndev = ndev > SCHED_MAX_DEVICES ? SCHED_MAX_DEVICES : ndev;
    p->min_tile = tiling->min_tile ? tiling->min_tile : 1;
    p->probe_tile = tiling->probe_tile ? tiling->probe_tile : p->min_tile;
    p->align = tiling->align;
    p->max_tile = tiling->max_tile;
    p->whole_min = tiling->whole_min;
    p->from_end = tiling->from_end;
    p->trace = tiling->trace;
    int reserve = tiling->every_device > 0 && n >= (size_t)p->ndev * (size_t)tiling->every_device * p->probe_tile
                      ? tiling->every_device
                      : 0;
    for (unsigned d = 0; d < p->ndev; d++) {
        p->speed[d] = speeds ? speeds[d] : 0;
        p->reserved[d] = reserve;
    }
}

/* Items held for the other devices' reserved probe tiles. */
static size_t held_for_others(const sched_policy *p, unsigned d)
{
    size_t held = 0;
    for (unsigned e = 0; e < p->ndev; e++)
        if (e != d && p->reserved[e] && !p->dropped[e])
            held += (size_t)p->reserved[e] * p->probe_tile;
    return held;
}

static int any_unknown_speed(const sched_policy *p)
{
    for (unsigned d = 0; d < p->ndev; d++)
        if (!p->dropped[d] && p->speed[d] <= 0)
            return 1;
    return 0;
}

/* A returned tile for d: one that another device failed, or any once d is the only device
 * left. Returns 1 and removes it from the queue. */
static int take_returned(sched_policy *p, unsigned d, sched_range *tile)
{
    unsigned alive = 0;
    for (unsigned e = 0; e < p->ndev; e++)
        alive += !p->dropped[e];
    for (unsigned i = 0; i < p->nreturned; i++) {
        if (p->returned_by[i] == d && alive > 1)
            continue;
        *tile = p->returned[i];
        p->nreturned--;
        p->returned[i] = p->returned[p->nreturned];
        p->returned_by[i] = p->returned_by[p->nreturned];
        return 1;
    }
    return 0;
}

/* Whether d is the fastest device still in the run (ties: the lowest index). */
static int is_fastest(const sched_policy *p, unsigned d)
{
    for (unsigned e = 0; e < p->ndev; e++)
        if (e != d && !p->dropped[e] && (p->speed[e] > p->speed[d] || (p->speed[e] == p->speed[d] && e < d)))
            return 0;
    return 1;
}

/* size moved so that the tile's inner edge (its end when dealt from the start, its begin when
 * from the end) lies on the nearest multiple of align (see sched_tiling), never past what is
 * not dealt, and past the share that ends with the other devices (limit; 0 = none) only
 * downwards. */
static size_t aligned_size(const sched_policy *p, size_t size, double limit, int from_end)
{
    size_t a = p->align;
    if (a <= 1 || size < a || size == p->back - p->next)
        return size;
    if (from_end) {
        size_t begin = p->back - size, up = (begin + a - 1) / a * a, down = up - a; /* up < back */
        size_t smaller = p->back - up, larger = p->back - down;
        if (up == begin)
            return size;
        if (down >= p->next && begin - down < up - begin && (limit <= 0 || (double)larger <= limit))
            return larger;
        return smaller;
    }
    size_t end = p->next + size, down = end / a * a, up = down + a; /* down > next, since size >= a */
    if (up <= p->back && up - end < end - down && (limit <= 0 || (double)(up - p->next) <= limit))
        return up - p->next;
    return down - p->next;
}

/* d's tile is dealt: d is busy with its items, half of which it owes until told more. */
static void deal(sched_policy *p, unsigned d, sched_range tile)
{
    p->busy[d] = 1;
    p->inflight[d] = tile.end - tile.begin;
    p->owed[d] = (double)p->inflight[d] / 2;
}

/* whole_min's end game: the items d takes of the remaining ones so that it ends with the
 * busy devices, which still owe their tiles' rest (total: the devices' summed speed). */
static double balanced_share(const sched_policy *p, unsigned d, size_t remaining, double total)
{
    double owed = 0;
    for (unsigned e = 0; e < p->ndev; e++)
        if (e != d && p->busy[e] && !p->dropped[e])
            owed += p->owed[e];
    return ((double)remaining + owed) * p->speed[d] / total;
}

sched_next_result sched_policy_next(sched_policy *p, unsigned d, sched_range *tile)
{
    size_t remaining = p->back - p->next, size;
    int from_end = d < 32 && (p->from_end >> d & 1);
    double total = 0, share = 0;
    int end_game = 0;
    if (d >= p->ndev || p->dropped[d])
        return SCHED_DONE;
    if (take_returned(p, d, tile)) {
        deal(p, d, *tile);
        return SCHED_TILE;
    }
    if (remaining == 0)
        return sched_policy_finished(p) ? SCHED_DONE : SCHED_WAIT;
    size_t held = p->reserved[d] ? 0 : held_for_others(p, d);
    if (held >= remaining)
        return SCHED_WAIT; /* what is left waits for the devices it is held for */
    remaining -= held;
    if (p->reserved[d])
        p->reserved[d]--;
    if (p->speed[d] <= 0) {
        size = p->probe_tile;
    } else if (any_unknown_speed(p)) { /* small tiles until every device's speed is known */
        size = 2 * p->probe_tile;
    } else {
        for (unsigned e = 0; e < p->ndev; e++)
            if (!p->dropped[e])
                total += p->speed[e];
        share = (double)remaining * p->speed[d] / total; /* finishes with the others */
        size = (size_t)(GUIDE * share);
        /* at most a quarter of d's share of the whole job: a wrong speed costs one such tile */
        double cap = (double)p->n * p->speed[d] / total / SHARE_DIVISOR;
        if ((double)size > cap)
            size = (size_t)cap;
        if (size < p->min_tile && p->whole_min) {
            double balanced = balanced_share(p, d, remaining, total);
            if ((double)remaining - balanced >= (double)p->min_tile) {
                size = p->min_tile; /* the tail in whole min_tiles */
            } else { /* the end game: d's balanced share, to the item */
                size = (size_t)(balanced + 0.5);
                if (size == 0 && !is_fastest(p, d))
                    return SCHED_WAIT; /* a sliver: the fastest device takes it */
                end_game = 1;
                size = size ? size : 1;
            }
        } else if (size < p->min_tile) {
            /* the tail: a min_tile, but never beyond the share that ends with the others */
            size = p->min_tile < (size_t)share + 1 ? p->min_tile : (size_t)share + 1;
            /* a sliver not worth a tile's overhead: the fastest device takes it */
            if (size < p->min_tile / 8 && size < remaining && !is_fastest(p, d))
                return SCHED_WAIT;
        }
    }
    if (p->max_tile && size > p->max_tile)
        size = p->max_tile;
    if (size > remaining)
        size = remaining;
    if (!end_game)
        size = aligned_size(p, size, share, from_end);
    if (size > remaining) /* rounded up into the held items */
        size = remaining;
    if (from_end) {
        tile->begin = p->back - size;
        tile->end = p->back;
        p->back -= size;
    } else {
        tile->begin = p->next;
        tile->end = p->next + size;
        p->next += size;
    }
    deal(p, d, *tile);
    return SCHED_TILE;
}

void sched_policy_progress(sched_policy *p, unsigned d, double elapsed)
{
    if (d >= p->ndev || !p->busy[d] || p->speed[d] <= 0)
        return;
    double left = (double)p->inflight[d] - p->speed[d] * elapsed;
    p->owed[d] = left > 0 ? left : 0;
}

void sched_policy_done(sched_policy *p, unsigned d, sched_range tile, double seconds)
{
    RT_INVARIANT(d < p->ndev && tile.begin < tile.end && tile.end <= p->n);
    size_t len = tile.end - tile.begin;
    double inst = (double)len / (seconds > 1e-9 ? seconds : 1e-9);
    p->speed[d] = p->measured[d] ? SMOOTH * p->speed[d] + (1 - SMOOTH) * inst : inst;
    p->measured[d] = 1;
    p->done_items += len;
    RT_INVARIANT(p->done_items <= p->n);
    p->busy[d] = 0;
}

int sched_policy_failed(sched_policy *p, unsigned d, sched_range tile)
{
    if (p->nreturned < sizeof p->returned / sizeof p->returned[0]) {
        p->returned[p->nreturned] = tile;
        p->returned_by[p->nreturned++] = d;
    }
    p->busy[d] = 0;
    if (++p->failures[d] >= SCHED_MAX_FAILURES)
        p->dropped[d] = 1;
    return p->dropped[d];
}

int sched_policy_finished(const sched_policy *p)
{
    if (p->done_items == p->n)
        return 1;
    for (unsigned d = 0; d < p->ndev; d++)
        if (!p->dropped[d])
            return 0;
    return -1;
}

/* ---- the runner ---- */

typedef struct {
    sched_policy policy;
    pthread_mutex_t lock;
    pthread_cond_t changed;
    sched_device *devs;
    sched_device_report *reports;
    size_t result_size, ntiles, cap;
    unsigned char *results;
    sched_tile_record *tiles;
    int input_error, out_of_memory;
    char *detail;
    size_t detail_len;
} run_state;

typedef struct {
    run_state *st;
    unsigned d;
} worker_arg;

/* Appends a finished tile (lock held). */
static void record_tile(run_state *st, unsigned d, sched_range r, const unsigned char *result)
{
    if (st->ntiles == st->cap) {
        size_t cap = st->cap ? 2 * st->cap : 64;
        unsigned char *res = realloc(st->results, cap * st->result_size);
        if (res)
            st->results = res;
        sched_tile_record *t = realloc(st->tiles, cap * sizeof *t);
        if (t)
            st->tiles = t;
        if (!res || !t) {
            st->out_of_memory = 1;
            return;
        }
        st->cap = cap;
    }
    memcpy(st->results + st->ntiles * st->result_size, result, st->result_size);
    st->tiles[st->ntiles].range = r;
    st->tiles[st->ntiles].device = d;
    st->ntiles++;
}

/* Lock held on entry and exit. Returns 0 to go on, 1 to stop. */
static int run_one(run_state *st, unsigned d, sched_range r, unsigned char *buf, char *why, size_t why_len)
{
    sched_device_report *rep = &st->reports[d];
    pthread_mutex_unlock(&st->lock);
    double t0 = rt_now_seconds();
    int rc = st->devs[d].run_tile(st->devs[d].impl, r, buf, why, why_len);
    double secs = rt_now_seconds() - t0;
    if (st->policy.trace)
        fprintf(stderr, "sched: %s tile [%zu, %zu) %zu items in %.3f s\n", st->devs[d].name, r.begin, r.end,
                r.end - r.begin, secs);
    pthread_mutex_lock(&st->lock);
    rep->busy_s += secs;
    if (rc == 0) {
        sched_policy_done(&st->policy, d, r, secs);
        record_tile(st, d, r, buf);
        rep->tiles++;
        rep->items += r.end - r.begin;
    } else if (rc > 0) {
        if (!st->input_error)
            snprintf(st->detail, st->detail_len, "%s", why);
        st->input_error = 1;
    } else {
        rep->failures++;
        snprintf(rep->failure, sizeof rep->failure, "%.255s", why);
        rep->dropped = sched_policy_failed(&st->policy, d, r);
    }
    pthread_cond_broadcast(&st->changed);
    return st->input_error || st->out_of_memory;
}

static void *worker(void *arg)
{
    worker_arg *wa = arg;
    run_state *st = wa->st;
    unsigned d = wa->d;
    char why[512];
    unsigned char *buf = malloc(st->result_size);
    pthread_mutex_lock(&st->lock);
    if (!buf)
        st->out_of_memory = 1;
    while (!st->input_error && !st->out_of_memory) {
        sched_range r;
        sched_next_result nr = sched_policy_next(&st->policy, d, &r);
        if (nr == SCHED_DONE)
            break;
        if (nr == SCHED_WAIT) {
            if (sched_policy_finished(&st->policy) != 0)
                break;
            double t0 = rt_now_seconds();
            pthread_cond_wait(&st->changed, &st->lock);
            st->reports[d].wait_s += rt_now_seconds() - t0;
            continue;
        }
        why[0] = '\0';
        if (run_one(st, d, r, buf, why, sizeof why))
            break;
    }
    pthread_cond_broadcast(&st->changed);
    pthread_mutex_unlock(&st->lock);
    free(buf);
    return NULL;
}

typedef struct {
    sched_tile_record rec;
    size_t from; /* position in the completion order */
} sort_entry;

static int compare_entries(const void *a, const void *b)
{
    const sort_entry *x = a, *y = b;
    return x->rec.range.begin < y->rec.range.begin ? -1 : x->rec.range.begin > y->rec.range.begin;
}

/* Sorts tiles by begin and permutes results alongside. Returns 0, or -1 without memory. */
static int sort_tiles(run_state *st)
{
    size_t n = st->ntiles, rs = st->result_size;
    sort_entry *e = malloc((n ? n : 1) * sizeof *e);
    unsigned char *sorted = malloc((n ? n : 1) * rs);
    if (!e || !sorted) {
        free(e);
        free(sorted);
        return -1;
    }
    for (size_t i = 0; i < n; i++)
        e[i] = (sort_entry){st->tiles[i], i};
    qsort(e, n, sizeof *e, compare_entries);
    for (size_t i = 0; i < n; i++) {
        memcpy(sorted + i * rs, st->results + e[i].from * rs, rs);
        st->tiles[i] = e[i].rec;
    }
    free(e);
    free(st->results);
    st->results = sorted;
    return 0;
}

int sched_run(sched_device *devs, unsigned ndev, size_t n, const sched_tiling *tiling, size_t result_size,
              void **results, sched_tile_record **tiles, size_t *ntiles, sched_device_report *reports, char *detail,
              size_t detail_len)
{
    run_state st;
    pthread_t threads[SCHED_MAX_DEVICES];
    worker_arg args[SCHED_MAX_DEVICES];
    double speeds[SCHED_MAX_DEVICES];
    unsigned started = 0;
    int rc = -1;
    memset(&st, 0, sizeof st);
    *results = NULL;
    *tiles = NULL;
    *ntiles = 0;
    if (ndev == 0 || ndev > SCHED_MAX_DEVICES) {
        snprintf(detail, detail_len, "scheduler: %u devices (1..%d)", ndev, SCHED_MAX_DEVICES);
        return -1;
    }
    for (unsigned d = 0; d < ndev; d++) {
        speeds[d] = devs[d].speed;
        memset(&reports[d], 0, sizeof reports[d]);
    }
    sched_policy_init(&st.policy, n, ndev, speeds, tiling);
    pthread_mutex_init(&st.lock, NULL);
    pthread_cond_init(&st.changed, NULL);
    st.devs = devs;
    st.reports = reports;
    st.result_size = result_size;
    st.detail = detail;
    st.detail_len = detail_len;
    for (unsigned d = 0; d < ndev; d++) {
        args[d] = (worker_arg){&st, d};
        if (pthread_create(&threads[d], NULL, worker, &args[d]) != 0)
            break;
        started++;
    }
    if (started < ndev) { /* the devices without a thread are out: nobody waits for them */
        pthread_mutex_lock(&st.lock);
        for (unsigned d = started; d < ndev; d++)
            st.policy.dropped[d] = 1;
        pthread_cond_broadcast(&st.changed);
        pthread_mutex_unlock(&st.lock);
    }
    for (unsigned d = 0; d < started; d++)
        pthread_join(threads[d], NULL);
    if (st.input_error) {
        rc = 1;
    } else if (st.out_of_memory || sort_tiles(&st) != 0) {
        snprintf(detail, detail_len, "scheduler: out of memory for tile results");
    } else if (sched_policy_finished(&st.policy) != 1) {
        snprintf(detail, detail_len, started ? "every device failed before the job was done"
                                             : "scheduler: could not start device threads");
    } else {
        rc = 0;
    }
    if (rc == 0) {
        *results = st.results;
        *tiles = st.tiles;
        *ntiles = st.ntiles;
    } else {
        free(st.results);
        free(st.tiles);
    }
    pthread_cond_destroy(&st.changed);
    pthread_mutex_destroy(&st.lock);
    return rc;
}
