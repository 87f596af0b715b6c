/*
 * deal.h: the one runner that deals an operation across devices (host/core/deal.c): an MSM's
 * window grid (host/msm/msm_hybrid.c), an NTT's columns (host/ntt/ntt_split.c), a commit's
 * leaves (host/commit/commit.c). Each engine says what a tile is (runtime/sched/sched.h's
 * sched_device) and how large; the runner deals the tiles by measured speed, fills the run
 * report and maps the scheduler's outcome to a status, the same way for every engine.
 */
#ifndef HOST_CORE_DEAL_H
#define HOST_CORE_DEAL_H

#include "host/core/context.h"

/* What is dealt. */
typedef struct {
    const char *what;       /* names the operation in a failure's detail ("NTT columns: ..."); NULL:
                             * the scheduler's words alone */
    hpr_status stop_status; /* a tile that stops the job (run_tile returned 1) for another reason
                             * than a cancel: its detail with this status */
    double units_per_item;  /* the run report counts a device's items as these units (points,
                             * elements, rows) */
} deal_op;

/* The results of a dealt operation: one result of result_size bytes per completed tile, the
 * tiles' ranges and devices sorted by range begin (runtime/sched/sched.h). Freed by
 * deal_results_free. */
typedef struct {
    void *results;
    sched_tile_record *tiles;
    size_t ntiles;
} deal_results;

/* Deals the items [0, items) of op over devs[0..ndev) (devs[d] runs on run_devs[d]; NULL: the
 * CPU) in tiles shaped by tiling, then fills ctx's run report (report_fill, from t0). Returns
 * HPR_OK with out (may be NULL: nothing kept) filled; progress_fail's status after a cancel;
 * op->stop_status after another stop; HPR_ERR_DEVICE when no device could finish the job. A
 * failure's detail is "<op->what>: <the scheduler's words>". */
RT_MUST_CHECK hpr_status deal_run(hpr_ctx *ctx, const deal_op *op, sched_device *devs, cl_dev *const *run_devs,
                                  unsigned ndev, size_t items, const sched_tiling *tiling, size_t result_size,
                                  double t0, deal_results *out);

void deal_results_free(deal_results *r);

#endif
