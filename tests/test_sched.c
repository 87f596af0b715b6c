/*
 * test_sched.c: the scheduler's policy driven by simulated devices in virtual time (no curve
 * arithmetic, no clock): completion within 10% of the ideal (all items / sum of speeds) for
 * speed ratios 1:1, 1:4, 1:20 and three devices, with and without calibrated speeds, a device
 * that slows down mid-run, and devices that fail (tiles move, a device failing twice is
 * dropped, every item is done exactly once), and the hybrid MSM's window grid (tiles aligned
 * to whole windows).
 */
#include "test_support.h"

#include "runtime/sched/sched.h"

#include <stdlib.h>
#include <string.h>

#define N_ITEMS ((size_t)1 << 22)
#define TILE_OVERHEAD_S 0.0005 /* launch and transfer cost per tile */

typedef struct {
    double speed[SCHED_MAX_DEVICES];     /* items/s */
    double slow_after_s;                 /* from this time on, device 0 runs at slow_factor */
    double slow_factor;
    int fail_on_tile[SCHED_MAX_DEVICES]; /* 1-based tile number that fails; -1: every tile */
    size_t n;                            /* items; 0: N_ITEMS with the point-range tiling */
    sched_tiling tiling;
} sim_setup;

typedef struct {
    double makespan, ideal;
    unsigned tiles[SCHED_MAX_DEVICES];
    int dropped[SCHED_MAX_DEVICES];
    int finished;
    unsigned misaligned; /* tiles of at least tiling.align items not ending on a multiple of it */
} sim_result;

static double speed_at(const sim_setup *s, unsigned d, double t)
{
    return d == 0 && s->slow_after_s > 0 && t >= s->slow_after_s ? s->speed[0] * s->slow_factor : s->speed[d];
}

/* Discrete-event run; also checks that every item is done exactly once. */
static sim_result simulate(const sim_setup *s, unsigned ndev, int calibrated)
{
    sched_policy p;
    double init[SCHED_MAX_DEVICES], busy_until[SCHED_MAX_DEVICES], started[SCHED_MAX_DEVICES], now = 0, total = 0;
    sched_range running[SCHED_MAX_DEVICES];
    int busy[SCHED_MAX_DEVICES] = {0}, done[SCHED_MAX_DEVICES] = {0};
    unsigned started_tiles[SCHED_MAX_DEVICES] = {0};
    size_t n = s->n ? s->n : N_ITEMS;
    sched_tiling tiling = s->n ? s->tiling : (sched_tiling){.min_tile = N_ITEMS / 32, .probe_tile = N_ITEMS / 64};
    unsigned char *covered = calloc(n, 1);
    sim_result r;
    memset(&r, 0, sizeof r);
    for (unsigned d = 0; d < ndev; d++) {
        init[d] = calibrated ? s->speed[d] : 0;
        total += s->speed[d];
    }
    sched_policy_init(&p, n, ndev, init, &tiling);
    for (;;) {
        for (unsigned d = 0; d < ndev; d++) {
            if (busy[d] || done[d])
                continue;
            for (unsigned e = 0; e < ndev; e++) /* as a runner with a clock tells it */
                if (busy[e])
                    sched_policy_progress(&p, e, now - started[e]);
            sched_next_result nr = sched_policy_next(&p, d, &running[d]);
            if (nr == SCHED_DONE)
                done[d] = 1;
            if (nr != SCHED_TILE)
                continue;
            size_t len = running[d].end - running[d].begin;
            size_t edge = tiling.from_end >> d & 1 ? running[d].begin : running[d].end; /* the inner edge */
            if (tiling.align > 1 && len >= tiling.align && edge % tiling.align && edge != n && edge != 0)
                r.misaligned++;
            busy[d] = 1;
            started[d] = now;
            started_tiles[d]++;
            busy_until[d] = now + TILE_OVERHEAD_S + (double)len / speed_at(s, d, now);
        }
        int next = -1;
        for (unsigned d = 0; d < ndev; d++)
            if (busy[d] && (next < 0 || busy_until[d] < busy_until[next]))
                next = (int)d;
        if (next < 0)
            break; /* nobody busy: finished, or every device waits (a deadlock the test reports) */
        now = busy_until[next];
        busy[next] = 0;
        int fail = s->fail_on_tile[next] == -1 || (s->fail_on_tile[next] > 0 && (unsigned)s->fail_on_tile[next] == started_tiles[next]);
        if (fail) {
            sched_policy_failed(&p, (unsigned)next, running[next]);
        } else {
            for (size_t i = running[next].begin; i < running[next].end; i++)
                covered[i]++;
            sched_policy_done(&p, (unsigned)next, running[next], now - started[next]);
            r.tiles[next]++;
        }
    }
    r.finished = sched_policy_finished(&p);
    for (size_t i = 0; i < n && r.finished == 1; i++)
        if (covered[i] != 1)
            r.finished = 0;
    for (unsigned d = 0; d < ndev; d++)
        r.dropped[d] = p.dropped[d];
    r.makespan = now;
    r.ideal = (double)n / total;
    free(covered);
    return r;
}

static void expect_near_ideal(const sim_setup *s, unsigned ndev, int calibrated, const char *what)
{
    sim_result r = simulate(s, ndev, calibrated);
    ck_assert_msg(r.finished == 1, "%s: the run did not finish with every item done once", what);
    ck_assert_msg(r.makespan <= 1.10 * r.ideal, "%s (%s): makespan %.4f s > 1.10 x ideal %.4f s", what,
                  calibrated ? "calibrated" : "probed", r.makespan, r.ideal);
}

START_TEST(speed_ratios_finish_near_the_ideal)
{
    static const double ratios[][3] = {{1, 1, 0}, {1, 4, 0}, {4, 1, 0}, {1, 20, 0}, {20, 1, 0}, {1, 2, 5}, {5, 1, 20}};
    for (size_t i = 0; i < sizeof ratios / sizeof ratios[0]; i++) {
        sim_setup s;
        char what[64];
        unsigned ndev = ratios[i][2] > 0 ? 3 : 2;
        memset(&s, 0, sizeof s);
        for (unsigned d = 0; d < ndev; d++)
            s.speed[d] = ratios[i][d] * 1e6;
        snprintf(what, sizeof what, "speeds %g:%g:%g", ratios[i][0], ratios[i][1], ratios[i][2]);
        expect_near_ideal(&s, ndev, 1, what);
        expect_near_ideal(&s, ndev, 0, what);
    }
}
END_TEST

/* The hybrid MSM's grid (host/msm/msm_hybrid.c): 17 windows x 8 blocks, tiles from one item, aligned
 * to whole windows; speeds in items/s as measured there (CPU about 130, POCL about 12) and
 * the other ratios. Tiles of a window or more end on a window; the run ends near the ideal. */
START_TEST(grid_tiles_align_to_windows_and_finish_near_the_ideal)
{
    static const double speeds[][3] = {{130, 12, 0}, {12, 130, 0}, {100, 100, 0}, {200, 10, 0}, {130, 12, 40}};
    for (size_t i = 0; i < sizeof speeds / sizeof speeds[0]; i++) {
        for (int calibrated = 0; calibrated <= 1; calibrated++) {
            sim_setup s;
            unsigned ndev = speeds[i][2] > 0 ? 3 : 2;
            memset(&s, 0, sizeof s);
            s.n = 17 * 8;
            s.tiling = (sched_tiling){.min_tile = 1, .probe_tile = 1, .align = 8};
            for (unsigned d = 0; d < ndev; d++)
                s.speed[d] = speeds[i][d];
            sim_result r = simulate(&s, ndev, calibrated);
            ck_assert_msg(r.finished == 1, "grid %g:%g:%g: not every item done once", speeds[i][0], speeds[i][1],
                          speeds[i][2]);
            ck_assert_msg(r.misaligned == 0, "grid %g:%g:%g: %u tiles of a window or more end inside one",
                          speeds[i][0], speeds[i][1], speeds[i][2], r.misaligned);
            ck_assert_msg(r.makespan <= 1.10 * r.ideal, "grid %g:%g:%g (%s): makespan %.4f s > 1.10 x ideal %.4f s",
                          speeds[i][0], speeds[i][1], speeds[i][2], calibrated ? "calibrated" : "probed", r.makespan,
                          r.ideal);
        }
    }
}
END_TEST

START_TEST(a_device_that_slows_down_is_compensated)
{
    sim_setup s;
    memset(&s, 0, sizeof s);
    s.speed[0] = 4e6;
    s.speed[1] = 2e6;
    s.slow_after_s = 0.2; /* device 0 drops to a quarter of its speed a third of the way in */
    s.slow_factor = 0.25;
    sim_result r = simulate(&s, 2, 1);
    double work_before = 0.2 * 6e6, ideal = 0.2 + ((double)N_ITEMS - work_before) / (1e6 + 2e6);
    ck_assert_int_eq(r.finished, 1);
    ck_assert_msg(r.makespan <= 1.10 * ideal, "makespan %.4f s > 1.10 x ideal %.4f s", r.makespan, ideal);
}
END_TEST

START_TEST(failed_tiles_move_and_a_device_failing_twice_is_dropped)
{
    for (int k = 1; k <= 4; k++) {
        sim_setup s;
        memset(&s, 0, sizeof s);
        s.speed[0] = 1e6;
        s.speed[1] = 3e6;
        s.fail_on_tile[1] = k;
        sim_result r = simulate(&s, 2, k % 2);
        ck_assert_msg(r.finished == 1, "fault on tile %d: not every item done exactly once", k);
        ck_assert_int_eq(r.dropped[1], 0);
    }
    sim_setup s;
    memset(&s, 0, sizeof s);
    s.speed[0] = 1e6;
    s.speed[1] = 3e6;
    s.fail_on_tile[1] = -1; /* fails every tile: dropped after two, the other finishes */
    sim_result r = simulate(&s, 2, 1);
    ck_assert_int_eq(r.finished, 1);
    ck_assert_int_eq(r.dropped[1], 1);
    ck_assert_uint_eq(r.tiles[1], 0);
    s.fail_on_tile[0] = -1; /* both fail always: the run ends unfinished, no deadlock */
    sched_policy p;
    sched_range t;
    sched_tiling tiling = {.min_tile = 10, .probe_tile = 10};
    sched_policy_init(&p, 100, 1, NULL, &tiling);
    ck_assert_int_eq(sched_policy_next(&p, 0, &t), SCHED_TILE);
    ck_assert_int_eq(sched_policy_failed(&p, 0, t), 0);
    ck_assert_int_eq(sched_policy_next(&p, 0, &t), SCHED_TILE); /* alone: takes its own failed tile back */
    ck_assert_int_eq(sched_policy_failed(&p, 0, t), 1);
    ck_assert_int_eq(sched_policy_finished(&p), -1);
    ck_assert_int_eq(sched_policy_next(&p, 0, &t), SCHED_DONE);
}
END_TEST

/* max_tile (a cluster's prove-batch: one witness per tile): no tile exceeds it, whatever the
 * speeds, and the items are all dealt once. */
START_TEST(max_tile_caps_every_tile)
{
    sched_policy p;
    sched_range t;
    double speeds[2] = {100, 50};
    sched_tiling tiling = {.min_tile = 1, .probe_tile = 1, .max_tile = 1};
    size_t next = 0;
    sched_policy_init(&p, 40, 2, speeds, &tiling);
    for (unsigned k = 0; next < 40; k++) {
        ck_assert_int_eq(sched_policy_next(&p, k % 2, &t), SCHED_TILE);
        ck_assert_uint_eq(t.begin, next);
        ck_assert_uint_eq(t.end, next + 1);
        sched_policy_done(&p, k % 2, t, 0.01);
        next = t.end;
    }
    ck_assert_int_eq(sched_policy_finished(&p), 1);
    ck_assert_int_eq(sched_policy_next(&p, 0, &t), SCHED_DONE);
    tiling.max_tile = 0; /* without it, the first tile is the guided share */
    sched_policy_init(&p, 40, 2, speeds, &tiling);
    ck_assert_int_eq(sched_policy_next(&p, 0, &t), SCHED_TILE);
    ck_assert_uint_gt(t.end - t.begin, 1);
}
END_TEST

/* whole_min: however the speeds share the tail, every tile is a multiple of min_tile (whole
 * windows of 8 blocks) until the end game (the last items, less than a min_tile beyond the
 * asking device's share: here within the last 3 min_tiles), and every item is dealt once;
 * without it the tail is cut finer, and earlier. Returns the first item of the first tile
 * that is not whole (n: none). */
static size_t first_short_tile(int whole_min)
{
    sched_policy p;
    sched_range t;
    double speeds[3] = {100, 37, 61};
    sched_tiling tiling = {.min_tile = 8, .probe_tile = 8, .align = 8, .whole_min = whole_min};
    size_t next = 0, n = 8 * 37 + 5, first = n;
    sched_policy_init(&p, n, 3, speeds, &tiling);
    for (unsigned k = 0; next < n; k++) {
        unsigned d = k % 3;
        if (sched_policy_next(&p, d, &t) != SCHED_TILE)
            continue;
        ck_assert_uint_eq(t.begin, next);
        if (t.end != n && ((t.end - t.begin) % 8 != 0 || t.end % 8 != 0) && t.begin < first)
            first = t.begin;
        sched_policy_done(&p, d, t, (double)(t.end - t.begin) / speeds[d]);
        next = t.end;
    }
    ck_assert_int_eq(sched_policy_finished(&p), 1);
    return first;
}

START_TEST(whole_min_keeps_the_tail_in_whole_tiles)
{
    size_t n = 8 * 37 + 5;
    ck_assert_uint_ge(first_short_tile(1), n - 3 * 8);
    ck_assert_uint_lt(first_short_tile(0), n - 3 * 8);
}
END_TEST

/* A grid of 17 windows x 8 blocks (a 2^20 MSM at c = 15) on 2 devices, or 3 when speeds[2] > 0. */
static sim_setup window_grid_sim(const double speeds[3], sched_tiling tiling, unsigned *ndev)
{
    sim_setup s;
    *ndev = speeds[2] > 0 ? 3 : 2;
    memset(&s, 0, sizeof s);
    for (unsigned d = 0; d < *ndev; d++)
        s.speed[d] = speeds[d];
    s.n = 17 * 8;
    s.tiling = tiling;
    return s;
}

/* whole_min's end game (a cluster MSM of 17 windows on 2 ranks): the last windows are shared
 * by what each busy device still owes, so the devices end together; dealt in whole windows to
 * the end, one device would run the odd window alone (makespan 9/8.5 of the ideal). */
START_TEST(whole_min_end_game_ends_together)
{
    static const double sims[][3] = {{100, 100, 0}, {100, 90, 0}, {100, 61, 0}, {130, 40, 0}, {100, 37, 61}};
    for (size_t i = 0; i < sizeof sims / sizeof sims[0]; i++)
        for (unsigned from_end = 0; from_end <= 1; from_end++) {
            unsigned ndev;
            sched_tiling tiling = {.min_tile = 8, .probe_tile = 8, .align = 8, .whole_min = 1, .from_end = from_end};
            sim_setup s = window_grid_sim(sims[i], tiling, &ndev);
            sim_result r = simulate(&s, ndev, 1);
            ck_assert_msg(r.finished == 1, "end game, speeds %g:%g:%g: not every item done once", sims[i][0],
                          sims[i][1], sims[i][2]);
            ck_assert_msg(r.makespan <= 1.03 * r.ideal + 2 * ndev * TILE_OVERHEAD_S,
                          "end game, speeds %g:%g:%g, from_end %u: makespan %.4f s > 1.03 x %.4f s + overheads",
                          sims[i][0], sims[i][1], sims[i][2], from_end, r.makespan, r.ideal);
        }
}
END_TEST

/* from_end (a cluster's Groth16 job: rank 0 from the end): the marked device's tiles run down
 * from n without a gap, the others' up from 0, the two meet once, every item is dealt once,
 * and tiles have their inner edge on a window (n itself is not one) but in the end game
 * (whole_min: the last items, here within 3 windows); in
 * the simulation, the run still ends near the ideal. */
START_TEST(from_end_deals_from_both_ends)
{
    sched_policy p;
    sched_range t;
    double speeds[3] = {100, 37, 61};
    sched_tiling tiling = {.min_tile = 8, .probe_tile = 8, .align = 8, .whole_min = 1, .from_end = 1};
    size_t n = 8 * 101 + 5, front = 0, back = n, back_tiles = 0;
    sched_policy_init(&p, n, 3, speeds, &tiling);
    for (unsigned k = 0; front < back; k++) {
        unsigned d = k % 3;
        sched_next_result nr = sched_policy_next(&p, d, &t);
        if (nr == SCHED_WAIT && d != 0) /* a sliver of the end game, left to the fastest */
            continue;
        ck_assert_int_eq(nr, SCHED_TILE);
        ck_assert_uint_lt(t.begin, t.end);
        if (d == 0) {
            ck_assert_uint_eq(t.end, back);
            ck_assert(t.begin % 8 == 0 || t.begin == front || back - front < 3 * 8); /* or the end game */
            back = t.begin;
            back_tiles++;
        } else {
            ck_assert_uint_eq(t.begin, front);
            ck_assert(t.end % 8 == 0 || t.end == back || back - front < 3 * 8);
            front = t.end;
        }
        sched_policy_done(&p, d, t, (double)(t.end - t.begin) / speeds[d]);
    }
    ck_assert_uint_eq(front, back);
    ck_assert_uint_gt(back_tiles, 1);
    ck_assert_uint_lt(back, n);
    ck_assert_int_eq(sched_policy_finished(&p), 1);
    ck_assert_int_eq(sched_policy_next(&p, 0, &t), SCHED_DONE);
    static const double sims[][3] = {{130, 12, 0}, {12, 130, 0}, {100, 100, 0}, {130, 12, 40}};
    for (size_t i = 0; i < sizeof sims / sizeof sims[0]; i++) {
        unsigned ndev;
        sim_setup s = window_grid_sim(sims[i], (sched_tiling){.min_tile = 1, .probe_tile = 1, .align = 8, .from_end = 1},
                                      &ndev);
        for (int calibrated = 0; calibrated <= 1; calibrated++) {
            sim_result r = simulate(&s, ndev, calibrated);
            ck_assert_msg(r.finished == 1, "from_end, speeds %g:%g:%g: not every item done once", sims[i][0],
                          sims[i][1], sims[i][2]);
            ck_assert_uint_eq(r.misaligned, 0);
            ck_assert_msg(r.makespan <= 1.10 * r.ideal, "from_end, speeds %g:%g:%g: makespan %.4f s > 1.10 x %.4f s",
                          sims[i][0], sims[i][1], sims[i][2], r.makespan, r.ideal);
        }
    }
}
END_TEST

/* The tiling's every_device (HPR_SCHED_EVERY_DEVICE=K in a context): a device that asks only
 * after the other has taken everything it could still gets its probe tile (K of them); without it, the
 * first device takes every item; a dropped device's hold is released. */
static unsigned tiles_of_late_device(int every, int drop_late)
{
    sched_policy p;
    sched_range t;
    sched_tiling tiling = {.min_tile = 10, .probe_tile = 10, .every_device = every};
    unsigned got = 0;
    sched_policy_init(&p, 100, 2, NULL, &tiling);
    if (drop_late) {
        sched_range first = {0, 0};
        ck_assert_int_eq(sched_policy_failed(&p, 1, first), 0);
        ck_assert_int_eq(sched_policy_failed(&p, 1, first), 1); /* dropped */
        p.nreturned = 0;                                        /* the empty ranges above */
    }
    while (sched_policy_next(&p, 0, &t) == SCHED_TILE)
        sched_policy_done(&p, 0, t, 1e-3);
    while (!drop_late && sched_policy_next(&p, 1, &t) == SCHED_TILE) {
        got++;
        sched_policy_done(&p, 1, t, 1e-3);
    }
    ck_assert_int_eq(sched_policy_finished(&p), 1);
    return got;
}

START_TEST(every_device_knob_holds_a_probe_tile)
{
    ck_assert_uint_eq(tiles_of_late_device(0, 0), 0);
    ck_assert_uint_eq(tiles_of_late_device(1, 0), 1);
    ck_assert_uint_eq(tiles_of_late_device(1, 1), 0); /* finished by device 0 alone */
    ck_assert_uint_ge(tiles_of_late_device(2, 0), 2); /* HPR_SCHED_EVERY_DEVICE=2: two tiles */
    ck_assert_uint_eq(tiles_of_late_device(2, 1), 0);
}
END_TEST

/* The threaded runner with trivial devices: results sorted by range and covering all. */
static int sum_tile(void *impl, sched_range r, void *result, char *detail, size_t len)
{
    int *fail_first = impl;
    unsigned long long s = 0;
    if (*fail_first > 0) {
        (*fail_first)--;
        snprintf(detail, len, "simulated fault");
        return -1;
    }
    for (size_t i = r.begin; i < r.end; i++)
        s += i;
    memcpy(result, &s, sizeof s);
    return 0;
}

START_TEST(the_runner_covers_every_item_once)
{
    int fails[3] = {1, 1, 1};
    sched_device devs[3] = {{"a", &fails[0], sum_tile, 0}, {"b", &fails[1], sum_tile, 0}, {"c", &fails[2], sum_tile, 0}};
    sched_device_report reps[3];
    sched_tile_record *tiles;
    void *results;
    size_t ntiles, n = 100000;
    char detail[256];
    sched_tiling tiling = {.min_tile = 1000, .probe_tile = 700};
    ck_assert_int_eq(sched_run(devs, 3, n, &tiling, sizeof(unsigned long long), &results, &tiles, &ntiles, reps,
                               detail, sizeof detail), 0);
    unsigned long long total = 0, v;
    size_t expect_begin = 0;
    for (size_t i = 0; i < ntiles; i++) {
        ck_assert_uint_eq(tiles[i].range.begin, expect_begin);
        expect_begin = tiles[i].range.end;
        memcpy(&v, (unsigned char *)results + i * sizeof v, sizeof v);
        total += v;
    }
    ck_assert_uint_eq(expect_begin, n);
    ck_assert_uint_eq(total, (unsigned long long)n * (n - 1) / 2);
    unsigned failures = 0, injected = 3 - (unsigned)(fails[0] + fails[1] + fails[2]);
    for (int d = 0; d < 3; d++) {
        failures += reps[d].failures;
        if (reps[d].failures)
            ck_assert_str_eq(reps[d].failure, "simulated fault");
    }
    ck_assert_uint_eq(failures, injected);
    ck_assert_uint_ge(injected, 1);
    free(results);
    free(tiles);
}
END_TEST

int main(void)
{
    Suite *s = suite_create("sched");
    TCase *tc = tcase_create("sched");
    tcase_set_timeout(tc, 120);
    tcase_add_test(tc, speed_ratios_finish_near_the_ideal);
    tcase_add_test(tc, every_device_knob_holds_a_probe_tile);
    tcase_add_test(tc, grid_tiles_align_to_windows_and_finish_near_the_ideal);
    tcase_add_test(tc, a_device_that_slows_down_is_compensated);
    tcase_add_test(tc, failed_tiles_move_and_a_device_failing_twice_is_dropped);
    tcase_add_test(tc, the_runner_covers_every_item_once);
    tcase_add_test(tc, max_tile_caps_every_tile);
    tcase_add_test(tc, whole_min_keeps_the_tail_in_whole_tiles);
    tcase_add_test(tc, whole_min_end_game_ends_together);
    tcase_add_test(tc, from_end_deals_from_both_ends);
    suite_add_tcase(s, tc);
    test_seed_init();
    return run_suite(s);
}
