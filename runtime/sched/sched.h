/*
 * sched.h: the hybrid scheduler: one job of n work items (MSM points) split across devices
 * by measured throughput and rebalanced while it runs. It knows devices and tiles, nothing
 * about curves; devices know nothing about scheduling.
 *
 * A tile is a half-open range [begin, end) of the items; a device turns it into a result
 * blob (for MSM: the tile's sum as a point), and the caller adds the results in tile order.
 *
 * Policy (sched_policy, pure and clock-free so tests can drive it with simulated time):
 * - Guided self-scheduling weighted by speed: an idle device with speed s_d (items/s) takes
 *   GUIDE * remaining * s_d / sum(s) items (see sched.c); so tiles start large and shrink
 *   towards the end, and every device keeps pulling from the shared pool while it is fast
 *   enough to matter.
 * - Tail rule: a device does not take a tile that it would finish later than the other
 *   devices would finish all that remains without it; it waits (and takes work back if a
 *   device fails).
 * - Unknown speed: the device's first tile is a probe of probe_tile items (others take at
 *   most 2 * probe_tile until every speed is known); its measured time gives the speed.
 *   Calibrated speeds are only a start: a device running beside others can be much slower
 *   than alone (shared memory bandwidth), so the first measured tile replaces the calibrated
 *   figure, and no tile exceeds a quarter of the device's share of the whole job (n * its speed /
 *   all speeds), so that a wrong estimate costs at most one such tile. Speeds are smoothed
 *   over the tiles a device completes, so a device that slows down mid-run gets smaller
 *   tiles.
 * - Faults: a failed tile goes back to a queue that every device serves first; a device that
 *   fails twice is dropped for the rest of the run. If all devices are dropped, the job fails.
 * HPR_SCHED_TRACE (environment, any value) prints every completed tile on stderr.
 * HPR_SCHED_EVERY_DEVICE=1 (for tests) holds a probe tile for each device until it asks, so
 * that a split is exercised even when one device could finish everything before another
 * starts (a slow device then delays the run: never for production).
 */
#ifndef RUNTIME_SCHED_SCHED_H
#define RUNTIME_SCHED_SCHED_H

#include "runtime/base/rt_check.h"

#include <stddef.h>

#define SCHED_MAX_DEVICES 16
#define SCHED_MAX_FAILURES 2

typedef enum { SCHED_TILE = 0, SCHED_WAIT = 1, SCHED_DONE = 2 } sched_next_result;

typedef struct {
    size_t begin, end;
} sched_range;

/* Tile sizes in items: min_tile (the tail's), probe_tile (a device of unknown speed starts
 * with it), align: tiles of at least align items end on a multiple of align (or at n), so a
 * caller whose items come in groups (host/msm/msm_hybrid.c: the blocks of a window) gets whole groups
 * where tiles are large; 0 or 1: no alignment. */
typedef struct {
    size_t min_tile, probe_tile, align;
    int every_device; /* K > 0: K probe tiles' items are held for each device until it has
                       * asked K times (tests: every device takes part, K times, even in a
                       * job the fastest could finish alone) */
    int trace;        /* each tile's device, range and time printed on stderr (debugging) */
    size_t max_tile;  /* 0: no limit; else no tile exceeds it (items that each cost a whole job,
                       * such as the proofs of a batch: runtime/sched/ranks.h) */
    int whole_min;    /* 1: tiles of whole min_tiles (the ranks' MSM windows: a piece of a
                       * window costs its whole bucket reduction) until the end game, where
                       * less than a min_tile would be left beyond the asking device's
                       * balanced share: then that share, cut to the item (see
                       * sched_policy_progress), so the devices end together */
    unsigned from_end; /* bit d set: device d takes its tiles from the end of the items, the
                        * others from the start (a cluster's Groth16 job: rank 0 starts on
                        * the H MSM, whose h it computes, the others on B2, so each rank
                        * prepares fewer of the five MSMs); 0: every device from the start */
} sched_tiling;

typedef struct {
    size_t n, next, back, done_items, min_tile, probe_tile, align, max_tile; /* [next, back): not dealt */
    int whole_min;
    unsigned from_end;
    unsigned ndev;
    double speed[SCHED_MAX_DEVICES];  /* items per second; 0 = not yet known */
    int measured[SCHED_MAX_DEVICES];  /* speed[d] comes from this run (not only calibration) */
    unsigned failures[SCHED_MAX_DEVICES];
    int dropped[SCHED_MAX_DEVICES];
    int busy[SCHED_MAX_DEVICES];
    size_t inflight[SCHED_MAX_DEVICES]; /* the items of d's tile in flight (busy[d]) */
    double owed[SCHED_MAX_DEVICES];     /* of those, the items d has still to do (an estimate:
                                         * half the tile, or sched_policy_progress's) */
    sched_range returned[4 * SCHED_MAX_DEVICES]; /* failed tiles waiting for another device */
    unsigned returned_by[4 * SCHED_MAX_DEVICES];  /* the device that failed each */
    unsigned nreturned;
    int trace;
    int reserved[SCHED_MAX_DEVICES]; /* tiling's every_device (tests): the tiles still held
                                      * for d (a probe tile's items each) until it asks */
} sched_policy;

/* speeds: initial estimates (items/s) per device from calibration, 0 = unknown (probe). */
void sched_policy_init(sched_policy *p, size_t n, unsigned ndev, const double *speeds, const sched_tiling *tiling);

/* Next tile for device d, or WAIT (nothing for d now, work still in flight) or DONE. */
sched_next_result sched_policy_next(sched_policy *p, unsigned d, sched_range *tile);

/* Device d's tile in flight has run for elapsed seconds (a runner with a clock says so
 * before asking for a tile, so whole_min's end game knows what the busy devices still owe;
 * without it, each owes half its tile). */
void sched_policy_progress(sched_policy *p, unsigned d, double elapsed);

/* Device d completed tile in seconds. */
void sched_policy_done(sched_policy *p, unsigned d, sched_range tile, double seconds);

/* Device d failed tile: the tile is returned; returns 1 if d is now dropped. */
int sched_policy_failed(sched_policy *p, unsigned d, sched_range tile);

/* 1 when every item is done; -1 when items remain but every device is dropped. */
int sched_policy_finished(const sched_policy *p);

/* ---- the runner: one thread per device ---- */

typedef struct {
    const char *name;
    void *impl;
    /* Computes tile into result (result_size bytes). Returns 0; 1 for an input error (stops
     * the job; detail names it); -1 for a device fault (detail names it; the tile moves). */
    int (*run_tile)(void *impl, sched_range tile, void *result, char *detail, size_t detail_len);
    double speed; /* calibrated items/s, 0 = unknown */
} sched_device;

typedef struct {
    unsigned tiles, failures;
    size_t items;
    double busy_s, wait_s;
    int dropped;
    char failure[256]; /* the last fault */
} sched_device_report;

typedef struct {
    sched_range range;
    unsigned device;
} sched_tile_record;

/*
 * Runs the job. On return 0, results holds one result per completed tile, tiles[] their
 * ranges and devices, sorted by range begin (*ntiles of them, at most max_tiles).
 * Returns 1 on an input error (detail), -1 if the job could not finish (detail).
 */
RT_MUST_CHECK int sched_run(sched_device *devs, unsigned ndev, size_t n, const sched_tiling *tiling, size_t result_size,
              void **results, sched_tile_record **tiles, size_t *ntiles, sched_device_report *reports, char *detail,
              size_t detail_len);

#endif
