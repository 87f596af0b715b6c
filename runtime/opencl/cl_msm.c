/*
 * cl_msm.c: the host side of the OpenCL MSM: plan, buffers, chunks and the last combination.
 *
 * Plan: a chunk holds as many points as the device's max allocation (and an eighth of its
 * memory) allows. Within a chunk, work-item (segment, window) accumulates its own buckets
 * (kernels_cl/msm.cl). Costs per chunk of m points, W(c) windows, S segments:
 *     W * m mixed additions  +  W * S * 2^c full additions (bucket reduction),
 * over W * S work-items. S is set so that W * S reaches the device's parallelism (one item
 * per compute unit on CPU devices, whose compute units run work-items serially: more would
 * only add bucket reductions; 256 on GPUs), then c minimises the total, with the buckets within the memory budget.
 * Overlap: chunks alternate between two in-order queues with their own buffers, and every
 * transfer is non-blocking, so the upload of chunk k+1 can run while chunk k computes where
 * the device has a copy engine. Each chunk's window sums come back (W XYZZ points); the host
 * adds them in chunk order and runs the Horner combination, so the result does not depend on
 * the chunking (affine output, exact group arithmetic).
 * One driver for both kernel designs (run_chunks over a cl_msm_family: this file's
 * owner-computes, cl_msm_sorted.c's sorted buckets): the chunks are listed first, so that
 * points kept on the device (cl_resident.c) are read from their slab at an offset, with no
 * chunk across a slab's end, and only the scalars are sent.
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_msm_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GPU_ITEMS_PER_CU 256
#define CPU_ITEMS_PER_CU 1
#define MIN_AUTO_C 2
#define MAX_AUTO_C 16
/* CPU devices (POCL): one work-item's buckets stay within a core's L2 (1 MiB on Zen 4). */
#define CPU_BUCKET_BYTES (1u << 20)

typedef struct {
    cl_mem points, scalars, buckets, partials, sums, bad;
} chunk_buffers;

typedef struct {
    cl_kernel check, segments, sum;
} msm_kernels;


static unsigned segments_for(const cl_dev *dev, unsigned nwin, size_t m)
{
    unsigned per_cu = (dev->type & CL_DEVICE_TYPE_GPU) ? GPU_ITEMS_PER_CU : CPU_ITEMS_PER_CU;
    size_t target = (size_t)(dev->compute_units ? dev->compute_units : 1) * per_cu;
    size_t nseg = (target + nwin - 1) / nwin;
    if (nseg > m)
        nseg = m;
    return (unsigned)(nseg ? nseg : 1);
}


/* The bit slice [b0, b1) of the plan in windows of plan->c bits, and the segments that spread
 * them over the device (no more than the bucket budget holds). */
static void plan_windows(cl_msm_plan *plan, const cl_dev *dev, const msm_curve_ops *ops, unsigned b0, unsigned b1)
{
    size_t chunk = plan->chunk_points;
    plan->b0 = b0;
    plan->b1 = b1;
    plan->nwin = cl_msm_slice_windows(b0, b1, plan->c);
    uint64_t per_segment = (uint64_t)plan->nwin * ((uint64_t)ops->xyzz_size << (plan->c - 1));
    plan->nseg = segments_for(dev, plan->nwin, chunk);
    if ((uint64_t)plan->nseg * per_segment > cl_msm_bucket_budget(dev))
        plan->nseg = cl_msm_bucket_budget(dev) / per_segment ? (unsigned)(cl_msm_bucket_budget(dev) / per_segment) : 1;
    plan->seg_len = (chunk + plan->nseg - 1) / plan->nseg;
    plan->nseg = (unsigned)((chunk + plan->seg_len - 1) / plan->seg_len);
}

int cl_msm_kernel_parse(const char *name)
{
    if (name && strcmp(name, "owner") == 0)
        return CL_MSM_KERNEL_OWNER;
    if (name && strcmp(name, "sorted") == 0)
        return CL_MSM_KERNEL_SORTED;
    return CL_MSM_KERNEL_AUTO;
}

int cl_msm_uses_sorted(const cl_dev *dev)
{
    int forced = dev->opts ? dev->opts->msm_kernel : CL_MSM_KERNEL_AUTO;
    if (forced != CL_MSM_KERNEL_AUTO)
        return forced == CL_MSM_KERNEL_SORTED;
    return (dev->type & CL_DEVICE_TYPE_GPU) != 0;
}

static void owner_plan(cl_msm_plan *plan, const cl_dev *dev, const msm_curve_ops *ops, size_t n, unsigned c,
                       unsigned b0, unsigned b1)
{
    uint64_t max_alloc = cl_msm_max_alloc(dev), budget = cl_msm_bucket_budget(dev);
    size_t per_point = ops->affine_size + 32;
    size_t chunk = (size_t)(max_alloc / ops->affine_size);
    if ((uint64_t)chunk * per_point > dev->global_mem / 8)
        chunk = (size_t)(dev->global_mem / 8 / per_point);
    if (chunk == 0)
        chunk = 1;
    if (chunk > n)
        chunk = n;
    double best = -1;
    unsigned lo = c ? c : MIN_AUTO_C, hi = c ? c : MAX_AUTO_C;
    plan->c = lo;
    for (unsigned cc = lo; cc <= hi; cc++) {
        unsigned nwin = cl_msm_slice_windows(b0, b1, cc);
        unsigned nseg = segments_for(dev, nwin, chunk);
        double buckets = (double)nwin * nseg * (double)(1u << (cc - 1)) * (double)ops->xyzz_size;
        double cost = (double)nwin * (double)chunk + (double)nwin * nseg * 1.5 * (double)(1u << cc);
        if (!c && (buckets > (double)budget || ((dev->type & CL_DEVICE_TYPE_CPU) &&
                                                 (double)(1u << (cc - 1)) * (double)ops->xyzz_size > CPU_BUCKET_BYTES)))
            continue;
        if (best < 0 || cost < best) {
            best = cost;
            plan->c = cc;
        }
    }
    plan->sorted = 0;
    plan->chunk_points = chunk;
    plan->chunks = (unsigned)((n + chunk - 1) / chunk);
    plan_windows(plan, dev, ops, b0, b1);
}

void cl_msm_make_plan(cl_msm_plan *plan, const cl_dev *dev, const msm_curve_ops *ops, size_t n, unsigned c, unsigned b0,
                      unsigned b1)
{
    if (cl_msm_uses_sorted(dev))
        cl_msm_sorted_plan(plan, dev, ops, n, c, b0, b1);
    else
        owner_plan(plan, dev, ops, n, c, b0, b1);
}

static void release_buffers(const cl_api *api, chunk_buffers *b)
{
    cl_mem *all[] = {&b->points, &b->scalars, &b->buckets, &b->partials, &b->sums, &b->bad};
    for (size_t i = 0; i < sizeof all / sizeof all[0]; i++) {
        if (*all[i])
            api->clReleaseMemObject(*all[i]);
        *all[i] = NULL;
    }
}

static int create_buffers(const cl_api *api, const cl_dev *dev, const cl_msm_plan *plan, const msm_curve_ops *ops,
                          chunk_buffers *b, char *detail)
{
    size_t items = (size_t)plan->nseg * plan->nwin;
    cl_msm_buffer want[] = {
        {&b->points, CL_MEM_READ_ONLY, plan->chunk_points * ops->affine_size},
        {&b->scalars, CL_MEM_READ_ONLY, plan->chunk_points * 32},
        {&b->buckets, CL_MEM_READ_WRITE, items * ((size_t)ops->xyzz_size << (plan->c - 1))},
        {&b->partials, CL_MEM_READ_WRITE, items * ops->xyzz_size},
        {&b->sums, CL_MEM_WRITE_ONLY, plan->nwin * ops->xyzz_size},
        {&b->bad, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint)},
    };
    if (cl_msm_create_buffers(api, dev, want, sizeof want / sizeof want[0], detail) == 0)
        return 0;
    release_buffers(api, b);
    return -1;
}

typedef struct {
    msm_kernels kern;
    chunk_buffers bufs[2];
} owner_state;

static void owner_close(const cl_api *api, void *state)
{
    owner_state *st = state;
    if (!st)
        return;
    release_buffers(api, &st->bufs[0]);
    release_buffers(api, &st->bufs[1]);
    if (st->kern.check)
        api->clReleaseKernel(st->kern.check);
    if (st->kern.segments)
        api->clReleaseKernel(st->kern.segments);
    if (st->kern.sum)
        api->clReleaseKernel(st->kern.sum);
    free(st);
}

static int owner_open(const cl_api *api, const cl_dev *dev, cl_program prog, const cl_msm_plan *plan,
                      const msm_curve_ops *ops, void **state, char *detail)
{
    owner_state *st = calloc(1, sizeof *st);
    cl_int rc;
    *state = st;
    if (!st) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory");
        return CL_MSM_DEVICE_ERROR;
    }
    st->kern.check = api->clCreateKernel(prog, "msm_check_points", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    st->kern.segments = api->clCreateKernel(prog, "msm_segments", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    st->kern.sum = api->clCreateKernel(prog, "msm_sum_segments", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    for (unsigned s = 0; s < 2 && s < plan->chunks; s++)
        if (create_buffers(api, dev, plan, ops, &st->bufs[s], detail) != 0)
            goto out;
    return CL_MSM_OK;
out:
    return CL_MSM_DEVICE_ERROR;
}

static const cl_uint no_bad_index[2] = {0xffffffffu, 0xffffffffu};

static int owner_enqueue(const cl_api *api, const cl_dev *dev, cl_command_queue q, void *state, unsigned slot,
                         const cl_msm_plan *plan, const msm_curve_ops *ops, const cl_msm_chunk *ck, void *host_sums,
                         cl_uint *host_bad, char *detail)
{
    owner_state *st = state;
    const msm_kernels *k = &st->kern;
    const chunk_buffers *b = &st->bufs[slot];
    cl_uint n32 = (cl_uint)ck->m, c = plan->c, b0 = plan->b0, b1 = plan->b1, nwin = plan->nwin;
    cl_uint seg_len = (cl_uint)plan->seg_len;
    cl_uint nseg = (cl_uint)((ck->m + plan->seg_len - 1) / plan->seg_len), first = ck->slab ? ck->slab_first : 0;
    cl_mem points = ck->slab ? ck->slab : b->points;
    if (!ck->slab) {
        CL_CALL(api, clEnqueueWriteBuffer, q, b->points, CL_FALSE, 0, ck->m * ops->affine_size, ck->points, 0, NULL,
                NULL);
    }
    if (cl_msm_enqueue_scalars(api, q, ck, b->scalars, detail) != 0)
        goto out;
    CL_CALL(api, clEnqueueWriteBuffer, q, b->bad, CL_FALSE, 0, sizeof no_bad_index, no_bad_index, 0, NULL, NULL);
    if ((!ck->slab && cl_msm_launch(api, dev, q, k->check, ck->m,
                                    (cl_msm_karg[]){CL_ARG(b->points), CL_ARG(n32), CL_ARG(b->bad), CL_ARGS_END},
                                    detail) != 0) ||
        cl_msm_launch(api, dev, q, k->segments, (size_t)nseg * nwin,
                      (cl_msm_karg[]){CL_ARG(points), CL_ARG(first), CL_ARG(b->scalars), CL_ARG(n32), CL_ARG(c),
                                      CL_ARG(b0), CL_ARG(b1), CL_ARG(nwin), CL_ARG(seg_len), CL_ARG(b->buckets),
                                      CL_ARG(b->partials), CL_ARGS_END},
                      detail) != 0 ||
        cl_msm_launch(api, dev, q, k->sum, nwin,
                      (cl_msm_karg[]){CL_ARG(b->partials), CL_ARG(nseg), CL_ARG(nwin), CL_ARG(b->sums), CL_ARGS_END},
                      detail) != 0)
        goto out;
    CL_CALL(api, clEnqueueReadBuffer, q, b->sums, CL_FALSE, 0, nwin * ops->xyzz_size, host_sums, 0, NULL, NULL);
    CL_CALL(api, clEnqueueReadBuffer, q, b->bad, CL_FALSE, 0, sizeof no_bad_index, host_bad, 0, NULL, NULL);
    CL_CALL(api, clFlush, q);
    return 0;
out:
    return -1;
}

static const cl_msm_family owner_family = {owner_open, owner_enqueue, owner_close};

/* The chunks of points [first, first + n) of pts (into list, when not NULL; their number is
 * returned): plan->chunk_points at most each, and with a resident copy, none across a slab's
 * end. */
static unsigned list_chunks(const cl_msm_plan *plan, const msm_curve_ops *ops, const cl_resident *res,
                            const msm_points *pts, size_t first, const cl_msm_scalars *scalars, size_t n,
                            cl_msm_chunk *list)
{
    unsigned count = 0;
    for (size_t pos = 0; pos < n; count++) {
        cl_msm_chunk ck = {NULL, 0, pos, n - pos < plan->chunk_points ? n - pos : plan->chunk_points,
                           pts->host + (first + pos) * ops->affine_size,
                           scalars->host ? scalars->host + pos * 32 : NULL, scalars->mem};
        if (res) {
            size_t at = first + pos, slab = at / res->slab_points, in = at % res->slab_points;
            if (ck.m > res->slab_points - in)
                ck.m = res->slab_points - in;
            ck.slab = res->slabs[slab];
            ck.slab_first = (cl_uint)in;
        }
        if (list)
            list[count] = ck;
        pos += ck.m;
    }
    return count;
}

/* Every chunk of the plan through one kernel design: two queues in turn, each with its own
 * buffers, so that one chunk's transfers overlap the other's compute. */
static cl_msm_result run_chunks(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops,
                                const cl_msm_family *family, const cl_resident *res, const msm_points *pts,
                                size_t first, const cl_msm_scalars *scalars, size_t n, const cl_msm_plan *planned,
                                unsigned char *out, size_t *bad_index, msm_point_check *bad_kind, char *detail)
{
    const cl_api *api = &rt->api;
    cl_msm_result res_code = CL_MSM_DEVICE_ERROR;
    cl_msm_plan plan = *planned;
    cl_program prog;
    void *state = NULL;
    unsigned char *sums = NULL;
    cl_uint *bad = NULL;
    cl_msm_chunk *chunks = NULL;
    plan.chunks = list_chunks(&plan, ops, res, pts, first, scalars, n, NULL);
    sums = malloc((size_t)plan.chunks * plan.nwin * ops->xyzz_size);
    bad = malloc((size_t)plan.chunks * 2 * sizeof *bad);
    chunks = malloc((size_t)plan.chunks * sizeof *chunks);
    if (!sums || !bad || !chunks) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory for %u chunk results", plan.chunks);
        goto out;
    }
    (void)list_chunks(&plan, ops, res, pts, first, scalars, n, chunks);
    if (cl_dev_program(rt, dev, CL_PROG_MSM, curve, cl_dev_default_words(dev), &prog, detail) != 0)
        goto out;
    res_code = family->open(api, dev, prog, &plan, ops, &state, detail);
    if (res_code != CL_MSM_OK)
        goto out;
    res_code = CL_MSM_DEVICE_ERROR;
    for (unsigned k = 0; k < plan.chunks; k++) {
        if (family->enqueue(api, dev, dev->queue[k % 2], state, k % 2, &plan, ops, &chunks[k],
                            sums + (size_t)k * plan.nwin * ops->xyzz_size, bad + 2 * k, detail) != 0)
            goto out;
        dev->bytes_sent += chunks[k].m * ((scalars->mem ? 0 : 32) + (chunks[k].slab ? 0 : ops->affine_size));
    }
    CL_CALL(api, clFinish, dev->queue[0]);
    CL_CALL(api, clFinish, dev->queue[1]);
    if (cl_msm_find_bad_point(bad, chunks, plan.chunks, bad_index, bad_kind)) {
        res_code = CL_MSM_BAD_POINT;
        goto out;
    }
    if (cl_msm_combine_chunks(ops, &plan, sums, out) != 0) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory for the window sums");
        goto out;
    }
    res_code = CL_MSM_OK;
out:
    if (res_code == CL_MSM_DEVICE_ERROR && dev->queue[0]) {
        /* drain what was enqueued before releasing the buffers it uses */
        api->clFinish(dev->queue[0]);
        api->clFinish(dev->queue[1]);
    }
    if (state)
        family->close(api, state);
    free(sums);
    free(bad);
    free(chunks);
    return res_code;
}

/* The planned kernel over pts' resident copy where it has one; a device that cannot run the
 * sorted kernels' work-groups runs the owner-computes kernel instead (same window grid, so a
 * hybrid split stays valid). */
static cl_msm_result run_plan(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const msm_points *pts,
                              size_t first, const cl_msm_scalars *scalars, size_t n, const cl_msm_plan *plan,
                              unsigned char *out, size_t *bad_index, msm_point_check *bad_kind, char *detail)
{
    cl_resident *res = NULL;
    if (cl_dev_injected_fault(dev, detail) || cl_resident_get(rt, dev, curve, ops, pts, &res, detail) != 0)
        return CL_MSM_DEVICE_ERROR;
    if (!plan->sorted)
        return run_chunks(rt, dev, curve, ops, &owner_family, res, pts, first, scalars, n, plan, out, bad_index,
                          bad_kind, detail);
    cl_msm_result r = run_chunks(rt, dev, curve, ops, &cl_msm_sorted_family, res, pts, first, scalars, n, plan, out,
                                 bad_index, bad_kind, detail);
    if (r != CL_MSM_UNSUPPORTED)
        return r;
    cl_msm_plan owner;
    owner_plan(&owner, dev, ops, n, plan->c, plan->b0, plan->b1);
    return run_chunks(rt, dev, curve, ops, &owner_family, res, pts, first, scalars, n, &owner, out, bad_index,
                      bad_kind, detail);
}

cl_msm_result cl_msm(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const msm_points *pts,
                     size_t first, const unsigned char *scalars, size_t n, unsigned c, unsigned char *out,
                     size_t *bad_index, msm_point_check *bad_kind, cl_msm_plan *plan_out, char *detail)
{
    cl_msm_plan plan;
    cl_msm_scalars sc = {scalars, NULL};
    /* the whole scalar: bits [0, bits + 1), the top one 0 (k < r), so no digit carries out */
    cl_msm_make_plan(&plan, dev, ops, n, c, 0, ops->scalar_bits + 1);
    if (plan_out)
        *plan_out = plan;
    return run_plan(rt, dev, curve, ops, pts, first, &sc, n, &plan, out, bad_index, bad_kind, detail);
}

cl_msm_result cl_msm_device_scalars(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops,
                                    const msm_points *pts, cl_mem scalars, size_t n, unsigned char *out,
                                    size_t *bad_index, msm_point_check *bad_kind, char *detail)
{
    cl_msm_plan plan;
    cl_msm_scalars sc = {NULL, scalars};
    cl_msm_make_plan(&plan, dev, ops, n, 0, 0, ops->scalar_bits + 1);
    return run_plan(rt, dev, curve, ops, pts, 0, &sc, n, &plan, out, bad_index, bad_kind, detail);
}

cl_msm_result cl_msm_slice(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const msm_points *pts,
                           size_t first, const unsigned char *scalars, size_t n, unsigned b0, unsigned b1,
                           unsigned char *out, size_t *bad_index, msm_point_check *bad_kind, char *detail)
{
    cl_msm_plan plan;
    cl_msm_scalars sc = {scalars, NULL};
    cl_msm_make_plan(&plan, dev, ops, n, 0, b0, b1);
    return run_plan(rt, dev, curve, ops, pts, first, &sc, n, &plan, out, bad_index, bad_kind, detail);
}

int cl_selftest_fp_mul(cl_runtime *rt, cl_dev *dev, int curve, const unsigned char *a, const unsigned char *b,
                       const unsigned char *expected, size_t count, size_t elem_size, char *detail)
{
    const cl_api *api = &rt->api;
    cl_mem ma = NULL, mb = NULL, mo = NULL;
    cl_kernel k = NULL;
    cl_program prog;
    unsigned char *got = malloc(count * elem_size);
    size_t bytes = count * elem_size;
    cl_uint count32 = (cl_uint)count;
    int rc = -1;
    cl_int err;
    if (!got) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory");
        return -1;
    }
    if (cl_dev_program(rt, dev, CL_PROG_MSM, curve, cl_dev_default_words(dev), &prog, detail) != 0)
        goto out;
    k = api->clCreateKernel(prog, "fp_mul_selftest", &err);
    CL_CHECK_RC(clCreateKernel, err);
    ma = api->clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)a, &err);
    CL_CHECK_RC(clCreateBuffer, err);
    mb = api->clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)b, &err);
    CL_CHECK_RC(clCreateBuffer, err);
    mo = api->clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, bytes, NULL, &err);
    CL_CHECK_RC(clCreateBuffer, err);
    if (cl_msm_launch(api, dev, dev->queue[0], k, count,
                      (cl_msm_karg[]){CL_ARG(ma), CL_ARG(mb), CL_ARG(count32), CL_ARG(mo), CL_ARGS_END}, detail) != 0)
        goto out;
    CL_CALL(api, clEnqueueReadBuffer, dev->queue[0], mo, CL_TRUE, 0, bytes, got, 0, NULL, NULL);
    if (memcmp(got, expected, bytes) != 0) {
        snprintf(detail, CL_DETAIL_LEN, "self-test: a field multiplication on %s differs from the known answer", dev->id);
        goto out;
    }
    rc = 0;
out:
    if (ma)
        api->clReleaseMemObject(ma);
    if (mb)
        api->clReleaseMemObject(mb);
    if (mo)
        api->clReleaseMemObject(mo);
    if (k)
        api->clReleaseKernel(k);
    free(got);
    return rc;
}
