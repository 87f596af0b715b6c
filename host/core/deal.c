/*
 * deal.c: one operation dealt across devices (see deal.h).
 *
 * Why one runner: the MSM's grid, the NTT's columns and the commit's leaves each called the
 * scheduler, filled the run report and turned the scheduler's outcome into a status on their
 * own, and the three copies had begun to map the same outcome to different statuses. Here
 * the mapping is one: a cancel is the cancel's status (progress_fail), a tile's stop is the
 * operation's stop status, a job no device could finish is HPR_ERR_DEVICE, each with the
 * scheduler's words after the operation's name.
 */
#include "host/core/deal.h"

#include <stdlib.h>

static hpr_status outcome(hpr_ctx *ctx, const deal_op *op, int rc, const char *why)
{
    if (rc == 0)
        return HPR_OK;
    if (rc > 0 && progress_cancelled(ctx))
        return progress_fail(ctx);
    hpr_status st = rc > 0 ? op->stop_status : HPR_ERR_DEVICE;
    return op->what ? ctx_fail(ctx, st, "%s: %s", op->what, why) : ctx_fail(ctx, st, "%s", why);
}

hpr_status deal_run(hpr_ctx *ctx, const deal_op *op, sched_device *devs, cl_dev *const *run_devs, unsigned ndev,
                    size_t items, const sched_tiling *tiling, size_t result_size, double t0, deal_results *out)
{
    sched_device_report reps[HPR_REPORT_MAX_DEVICES];
    deal_results r = {NULL, NULL, 0};
    char why[512] = "";
    RT_INVARIANT(ndev >= 1 && ndev <= HPR_REPORT_MAX_DEVICES);
    int rc = sched_run(devs, ndev, items, tiling, result_size, &r.results, &r.tiles, &r.ntiles, reps, why, sizeof why);
    report_fill(ctx, run_devs, ndev, reps, op->units_per_item, rt_now_seconds() - t0);
    hpr_status st = outcome(ctx, op, rc, why);
    if (st == HPR_OK && out)
        *out = r;
    else
        deal_results_free(&r);
    return st;
}

void deal_results_free(deal_results *r)
{
    free(r->results);
    free(r->tiles);
    r->results = NULL;
    r->tiles = NULL;
    r->ntiles = 0;
}
