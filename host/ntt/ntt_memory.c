/*
 * ntt_memory.c: what an NTT or LDE needs of the memory budget (host/core/memory_budget.h),
 * next to the NTT engine's allocations: the work copy of canonical data (hpr_ntt; an LDE and the proof's
 *     transforms work in place), the twiddle table of the size (2 x for a tier with its own
 *     table, ntt_ifma_impl.h), a device's copy of the columns, POCL's two buffers and table.
 */
#include "host/ntt/ntt_memory.h"
#include "host/core/devices.h"
#include "host/core/memory_budget.h"

#include <stdio.h>

/* An NTT of columns x n elements of es bytes (ops: its field on ctx's tier): the work copy
 * when copy, the scan's first-bad slots, the twiddle table (the tier's own too), and the
 * copies of dev ("cl:P.D") or of "all" (all: the devices that join), with POCL's buffers. */
size_t ntt_mem_bytes(hpr_ctx *ctx, const ntt_field_ops *ops, size_t n, size_t columns, int copy, cl_dev *dev,
                        int all)
{
    size_t col = mem_sat_mul(n, ops->elem_bytes), total = mem_sat_mul(col, columns);
    size_t b = mem_sat_add(mem_sat_mul(total / NTT_COPY_CHUNK + 1, sizeof(size_t)), MEM_CALL_SLACK);
    cl_dev *devs[HPR_REPORT_MAX_DEVICES];
    unsigned ndev = 0;
    if (copy)
        b = mem_sat_add(b, mem_round(total));
    b = mem_sat_add(b, mem_round(col));
    b = mem_sat_add(b, mem_round(mem_sat_mul(n, ops->kernel_twiddle_bytes))); /* the tier's own table */
    if (dev) {
        b = mem_sat_add(b, mem_round(total)); /* the CPU's copy, to redo the columns after a fault */
        if (!dev->failed && (dev->type & CL_DEVICE_TYPE_CPU))
            devs[ndev++] = dev;
    } else if (all && (columns > 1 || n >= 1024)) {
        ndev = dev_host_devices(ctx, "all", devs, HPR_REPORT_MAX_DEVICES - 1, NULL);
        b = mem_sat_add(b, mem_sat_add(mem_round(total), mem_round(col))); /* tiles' copies, four-step's transposes */
    }
    for (unsigned d = 0; d < ndev; d++)
        b = mem_sat_add(b, mem_sat_add(mem_sat_mul(total, 2), col));
    return b;
}

size_t mem_ntt_need(hpr_ctx *ctx, const ntt_plan *pl)
{
    return ntt_mem_bytes(ctx, pl->ops, pl->n, pl->columns, !pl->lde_log_rate, pl->dev, pl->all);
}

hpr_status mem_ntt_check(hpr_ctx *ctx, const ntt_plan *pl)
{
    mem_limit lim;
    char what[96];
    size_t need = mem_ntt_need(ctx, pl);
    if (mem_budget_fits(ctx, need, &lim))
        return HPR_OK;
    if (pl->lde_log_rate)
        snprintf(what, sizeof what, "the LDE of %zu x 2^%u coefficients (rate %u)", pl->columns,
                 pl->log_n - pl->lde_log_rate, 1u << pl->lde_log_rate);
    else
        snprintf(what, sizeof what, "the NTT of %zu x 2^%u elements", pl->columns, pl->log_n);
    return mem_refuse(ctx, what, need, 0, "", &lim);
}
