/*
 * pool_scan.c: the first rejected index, pieces checked on the pool (see pool_scan.h). Each
 * task keeps its own piece's first rejection, so the lowest of them is the answer whatever
 * order the tasks run in.
 */
#include "host/core/pool_scan.h"

#include <stdint.h>
#include <stdlib.h>

typedef struct {
    pool_scan_fn check;
    const void *arg;
    size_t count, piece;
    size_t *first; /* per task: the first rejected index of its piece, or count */
} scan_job;

static void scan_task(void *arg, size_t task, unsigned worker)
{
    scan_job *j = arg;
    size_t b = task * j->piece, e = b + j->piece < j->count ? b + j->piece : j->count;
    size_t first = j->check(j->arg, b, e);
    (void)worker;
    j->first[task] = first < e ? first : j->count;
}

size_t pool_first_rejected(hpr_ctx *ctx, size_t count, size_t piece, pool_scan_fn check, const void *arg)
{
    size_t tasks = (count + piece - 1) / piece, first = count;
    scan_job j = {check, arg, count, piece, malloc((tasks ? tasks : 1) * sizeof(size_t))};
    if (!j.first)
        return SIZE_MAX;
    rt_pool_run(ctx->pool, tasks, scan_task, &j);
    for (size_t t = 0; t < tasks; t++)
        first = j.first[t] < first ? j.first[t] : first;
    free(j.first);
    return first;
}
