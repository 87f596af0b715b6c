/*
 * cl_msm_sorted.c: the host side of the sorted-bucket OpenCL MSM (kernels_cl/msm_sorted.cl):
 * its plan, buffers and launches per chunk (cl_msm_sorted_family). cl_msm.c chooses between
 * it and the owner-computes kernel and drives the chunks for both.
 *
 * Plan: c minimises nwin * (m + 3 * 2^(c-1)) (one mixed addition per point and window, about
 * three additions per bucket in the bucket sums and reduction) with every window's buckets
 * within the bucket budget; unlike the owner-computes kernel, the buckets are shared by the
 * whole device, so a GPU can take c near 16. A chunk then holds as many points as the
 * device's allocations allow with 17 bytes of sorting state per point and window (keys and
 * values twice, the histograms).
 * Work split: the bucket sums give each of `target` work-items an equal share of the sorted
 * entries (span = entries / target, at least 2), whatever the buckets; each window's
 * buckets are reduced in G segments so that nwin * G items run at once.
 * No serial tails: no work-item runs a chain of more than about MAX_CHAIN dependent point
 * additions, whatever the size. The span is at most MAX_CHAIN (more items than `target` at
 * large sizes). The carry levels take CARRY_FAN carries per item: the levels above level 0
 * have too few items to fill a GPU, so each costs its chain's latency, and 8 levels of 9
 * additions (2^24) wait less than 4 of 65; a segment holds at most MAX_CHAIN / 2
 * buckets (two additions each); the segments' sums reach each window's sum through a tree
 * of fan-in TREE_FAN (msm_segment_tree), not one item's loop over all G segments.
 * scripts/msm_cl_work.py prints each kernel's longest chain.
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_msm_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define SORT_GROUP 256u /* = SORT_GROUP and SORT_RADIX of msm_sorted.cl */
#define SORT_TILE (SORT_GROUP * 4u)
#define SCAN_BLOCK (SORT_GROUP * 16u) /* = SCAN_BLOCK of msm_sorted.cl */
#define RADIX_BITS 8u
#define GPU_ITEMS_PER_CU 1024u
#define CPU_ITEMS_PER_CU 4u
#define GPU_SEGMENTS_PER_CU 256u
#define MIN_C 2u
#define MAX_C 16u
#define MIN_SPAN 2u
#define SORT_BYTES_PER_ENTRY 17u
#define MAX_CHAIN 64u /* dependent point additions per work-item, at most about */
#define TREE_FAN 8u   /* = TREE_FAN of msm_sorted.cl */
#define CARRY_FAN 8u  /* carries per item above level 0 (or the span where it is smaller) */
#define LOG_TREE_FAN 3u

typedef struct {
    cl_mem points, scalars, keys[2], vals[2], counts, block_sums, wstart, starts, buckets, carry[2], carry_keys[2], tree_r,
        tree_t, tree_s, sums, bad;
} sorted_buffers;

enum {
    K_CHECK, K_KEYS, K_HIST, K_SCAN_BLOCKS, K_SCAN_SMALL, K_SCAN_APPLY, K_WSTARTS, K_SCATTER, K_STARTS, K_RUNS, K_CARRY,
    K_SEGMENTS, K_TREE, K_WINDOWS, K_COUNT
};
static const char *const kernel_names[K_COUNT] = {
    "msm_check_points", "msm_sort_keys",  "msm_sort_hist",  "msm_scan_blocks",     "msm_scan_small",
    "msm_scan_apply",   "msm_window_starts", "msm_sort_scatter", "msm_bucket_starts", "msm_bucket_runs", "msm_carry_runs",
    "msm_bucket_segments", "msm_segment_tree", "msm_window_sums"};

/* The sizes of one chunk of m points over nwin windows. */
typedef struct {
    size_t m, entries, items;         /* items: level-0 bucket-sum work-items */
    size_t tiles, groups, counts;     /* sort: tiles per window, work-groups, histogram counts (+ 1) */
    size_t carries;                   /* the most level-0 items of any chunk size: buffers hold as many */
    size_t tree_nodes;                /* per window: the G segments and every level of the tree above */
    unsigned nbuckets, nkeys, passes, span, nseg, log_len;
} sorted_shape;

static int is_gpu(const cl_dev *dev)
{
    return (dev->type & CL_DEVICE_TYPE_GPU) != 0;
}

static unsigned bit_length(uint64_t x)
{
    unsigned b = 0;
    while (x) {
        b++;
        x >>= 1;
    }
    return b;
}

static sorted_shape shape_of(const cl_dev *dev, unsigned c, unsigned nwin, size_t m)
{
    sorted_shape s;
    size_t cus = dev->compute_units ? dev->compute_units : 1;
    unsigned forced = dev->opts ? dev->opts->msm_items : 0; /* HPR_CL_MSM_ITEMS: tests force small spans */
    size_t target = cus * (forced ? forced : is_gpu(dev) ? GPU_ITEMS_PER_CU : CPU_ITEMS_PER_CU);
    size_t seg_target = is_gpu(dev) ? cus * GPU_SEGMENTS_PER_CU : cus;
    s.m = m;
    s.entries = (size_t)nwin * m;
    s.tiles = (m + SORT_TILE - 1) / SORT_TILE;
    s.groups = (size_t)nwin * s.tiles;
    s.counts = s.groups * SORT_GROUP + 1;
    s.nbuckets = 1u << (c - 1);
    s.nkeys = nwin * s.nbuckets; /* starts[nkeys]: the count of nonzero digits (a zero digit has no key) */
    s.passes = (c - 1 + RADIX_BITS - 1) / RADIX_BITS; /* the bucket's bits: the window is never sorted */
    if (s.passes == 0)
        s.passes = 1; /* the pass that drops the zero digits */
    s.span = (unsigned)((s.entries + target - 1) / target);
    s.span = s.span < MIN_SPAN ? MIN_SPAN : s.span > MAX_CHAIN ? MAX_CHAIN : s.span;
    s.items = (s.entries + s.span - 1) / s.span;
    /* items <= target while the span is not capped, else entries / MAX_CHAIN: a buffer for
     * the larger of the two serves every chunk of at most m points */
    s.carries = (target > (s.entries + MAX_CHAIN - 1) / MAX_CHAIN ? target : (s.entries + MAX_CHAIN - 1) / MAX_CHAIN) + 1;
    s.nseg = 1;
    while (s.nseg < s.nbuckets && ((size_t)nwin * s.nseg * 2 <= seg_target || s.nbuckets / s.nseg > MAX_CHAIN / 2))
        s.nseg *= 2;
    s.log_len = (c - 1) - (bit_length(s.nseg) - 1);
    s.tree_nodes = 0;
    for (size_t n = s.nseg; ; n = (n + TREE_FAN - 1) / TREE_FAN) {
        s.tree_nodes += n;
        if (n == 1)
            break;
    }
    return s;
}

void cl_msm_sorted_plan(cl_msm_plan *plan, const cl_dev *dev, const msm_curve_ops *ops, size_t n, unsigned c,
                        unsigned b0, unsigned b1)
{
    uint64_t max_alloc = cl_msm_max_alloc(dev), budget = cl_msm_bucket_budget(dev);
    double best = -1;
    unsigned lo = c ? c : MIN_C, hi = c ? c : MAX_C;
    plan->c = lo;
    for (unsigned cc = lo; cc <= hi; cc++) {
        unsigned nwin = cl_msm_slice_windows(b0, b1, cc);
        double buckets = (double)nwin * (double)(1u << (cc - 1)) * (double)ops->xyzz_size;
        double cost = (double)nwin * ((double)n + 3.0 * (double)(1u << (cc - 1)));
        if (!c && cc > lo && buckets > (double)budget)
            continue;
        if (best < 0 || cost < best) {
            best = cost;
            plan->c = cc;
        }
    }
    unsigned nwin = cl_msm_slice_windows(b0, b1, plan->c);
    /* the carries: 1.5 x one XYZZ per MAX_CHAIN entries (level 0 and the level above) */
    size_t per_point = ops->affine_size + 32 + (size_t)nwin * SORT_BYTES_PER_ENTRY +
                       ((size_t)nwin * ops->xyzz_size * 3 + 2 * MAX_CHAIN - 1) / (2 * MAX_CHAIN);
    size_t chunk = (size_t)(max_alloc / ((size_t)nwin * 4 > ops->affine_size ? (size_t)nwin * 4 : ops->affine_size));
    if ((uint64_t)chunk * per_point > dev->global_mem / 8)
        chunk = (size_t)(dev->global_mem / 8 / per_point);
    if (chunk > (size_t)0x7fffffff / nwin) /* entries and point indices fit 31 bits */
        chunk = (size_t)0x7fffffff / nwin;
    if (chunk == 0)
        chunk = 1;
    if (chunk > n)
        chunk = n;
    plan->sorted = 1;
    plan->chunk_points = chunk;
    plan->chunks = (unsigned)((n + chunk - 1) / chunk);
    plan->b0 = b0;
    plan->b1 = b1;
    plan->nwin = nwin;
    sorted_shape full = shape_of(dev, plan->c, nwin, chunk);
    plan->nseg = full.nseg;
    plan->seg_len = full.span;
}

static void release_buffers(const cl_api *api, sorted_buffers *b)
{
    cl_mem *all = (cl_mem *)b;
    for (size_t i = 0; i < sizeof *b / sizeof(cl_mem); i++)
        if (all[i])
            api->clReleaseMemObject(all[i]);
    memset(b, 0, sizeof *b);
}

static int create_buffers(const cl_api *api, const cl_dev *dev, const sorted_shape *s, const msm_curve_ops *ops,
                          unsigned nwin, sorted_buffers *b, char *detail)
{
    /* items are not monotone in the chunk size: the carries are sized by s->carries (the
     * most of any chunk size), not by this chunk's items */
    size_t xs = ops->xyzz_size, carries = s->carries, tree = (size_t)nwin * s->tree_nodes * xs;
    cl_msm_buffer want[] = {
        {&b->points, CL_MEM_READ_ONLY, s->m * ops->affine_size},
        {&b->scalars, CL_MEM_READ_ONLY, s->m * 32},
        {&b->keys[0], CL_MEM_READ_WRITE, s->entries * 4},
        {&b->keys[1], CL_MEM_READ_WRITE, s->entries * 4},
        {&b->vals[0], CL_MEM_READ_WRITE, s->entries * 4},
        {&b->vals[1], CL_MEM_READ_WRITE, s->entries * 4},
        {&b->counts, CL_MEM_READ_WRITE, s->counts * 4},
        {&b->block_sums, CL_MEM_READ_WRITE, (s->counts + SCAN_BLOCK - 1) / SCAN_BLOCK * 4},
        {&b->wstart, CL_MEM_READ_WRITE, ((size_t)nwin + 1) * 4},
        {&b->starts, CL_MEM_READ_WRITE, ((size_t)s->nkeys + 1) * 4},
        {&b->buckets, CL_MEM_READ_WRITE, (size_t)s->nkeys * xs},
        {&b->carry[0], CL_MEM_READ_WRITE, carries * xs},
        {&b->carry[1], CL_MEM_READ_WRITE, (carries / MIN_SPAN + 1) * xs},
        {&b->carry_keys[0], CL_MEM_READ_WRITE, carries * 4},
        {&b->carry_keys[1], CL_MEM_READ_WRITE, (carries / MIN_SPAN + 1) * 4},
        {&b->tree_r, CL_MEM_READ_WRITE, tree},
        {&b->tree_t, CL_MEM_READ_WRITE, tree},
        {&b->tree_s, CL_MEM_READ_WRITE, tree},
        {&b->sums, CL_MEM_READ_WRITE, (size_t)nwin * xs},
        {&b->bad, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint)},
    };
    if (cl_msm_create_buffers(api, dev, want, sizeof want / sizeof want[0], detail) == 0)
        return 0;
    release_buffers(api, b);
    return -1;
}

static int create_kernels(const cl_api *api, cl_program prog, cl_kernel *k, char *detail)
{
    cl_int rc;
    for (int i = 0; i < K_COUNT; i++) {
        k[i] = api->clCreateKernel(prog, kernel_names[i], &rc);
        CL_CHECK_RC(clCreateKernel, rc);
    }
    return 0;
out:
    return -1;
}

static void release_kernels(const cl_api *api, cl_kernel *k)
{
    for (int i = 0; i < K_COUNT; i++)
        if (k[i])
            api->clReleaseKernel(k[i]);
}


/* One pass of step 2: entries of in / vin by the digit at `shift` of their bucket into out /
 * vout (from_starts: the windows' ranges in wstart, else m entries per window). */
static int enqueue_pass(const cl_api *api, const cl_dev *dev, cl_command_queue q, cl_kernel *k, sorted_buffers *b, const sorted_shape *s,
                        cl_uint shift, cl_uint from_starts, cl_uint nwin, cl_mem in, cl_mem vin, cl_mem out, cl_mem vout,
                        char *detail)
{
    cl_uint m = (cl_uint)s->m, nbuckets = s->nbuckets, tiles = (cl_uint)s->tiles, len = (cl_uint)s->counts;
    cl_uint nblocks = (len + SCAN_BLOCK - 1) / SCAN_BLOCK;
    size_t items = s->groups * SORT_GROUP;
    if (cl_msm_launch_groups(api, q, k[K_HIST], items, SORT_GROUP,
                             (cl_msm_karg[]){CL_ARG(in), CL_ARG(b->wstart), CL_ARG(from_starts), CL_ARG(m),
                                             CL_ARG(nbuckets), CL_ARG(shift), CL_ARG(tiles), CL_ARG(b->counts),
                                             CL_ARG(len), CL_ARGS_END},
                             detail) != 0 ||
        cl_msm_launch_groups(api, q, k[K_SCAN_BLOCKS], (size_t)nblocks * SORT_GROUP, SORT_GROUP,
                             (cl_msm_karg[]){CL_ARG(b->counts), CL_ARG(len), CL_ARG(b->block_sums), CL_ARGS_END},
                             detail) != 0 ||
        cl_msm_launch_groups(api, q, k[K_SCAN_SMALL], SORT_GROUP, SORT_GROUP,
                             (cl_msm_karg[]){CL_ARG(b->block_sums), CL_ARG(nblocks), CL_ARGS_END}, detail) != 0 ||
        cl_msm_launch_groups(api, q, k[K_SCAN_APPLY], (size_t)nblocks * SORT_GROUP, SORT_GROUP,
                             (cl_msm_karg[]){CL_ARG(b->counts), CL_ARG(len), CL_ARG(b->block_sums), CL_ARGS_END},
                             detail) != 0)
        return -1;
    if (!from_starts && cl_msm_launch(api, dev, q, k[K_WSTARTS], (size_t)nwin + 1,
                                             (cl_msm_karg[]){CL_ARG(b->counts), CL_ARG(tiles), CL_ARG(nwin), CL_ARG(len),
                                                             CL_ARG(b->wstart), CL_ARGS_END},
                                             detail) != 0)
        return -1;
    return cl_msm_launch_groups(api, q, k[K_SCATTER], items, SORT_GROUP,
                                (cl_msm_karg[]){CL_ARG(in), CL_ARG(vin), CL_ARG(b->wstart), CL_ARG(from_starts), CL_ARG(m),
                                                CL_ARG(nbuckets), CL_ARG(shift), CL_ARG(b->counts), CL_ARG(tiles),
                                                CL_ARG(out), CL_ARG(vout), CL_ARGS_END},
                                detail);
}

/* Steps 1-2 of msm_sorted.cl: the nonzero entries, sorted by key into keys[0] / vals[0]
 * (their count in wstart[nwin]). */
static int enqueue_sort(const cl_api *api, const cl_dev *dev, cl_command_queue q, cl_kernel *k, sorted_buffers *b,
                        const sorted_shape *s, const cl_msm_plan *plan, char *detail)
{
    cl_uint m = (cl_uint)s->m, c = plan->c, b0 = plan->b0, b1 = plan->b1, nwin = plan->nwin;
    if (cl_msm_launch(api, dev, q, k[K_KEYS], s->entries,
                      (cl_msm_karg[]){CL_ARG(b->scalars), CL_ARG(m), CL_ARG(c), CL_ARG(b0), CL_ARG(b1), CL_ARG(nwin),
                                      CL_ARG(b->keys[0]), CL_ARG(b->vals[0]), CL_ARGS_END},
                      detail) != 0)
        return -1;
    for (unsigned p = 0; p < s->passes; p++)
        if (enqueue_pass(api, dev, q, k, b, s, p * RADIX_BITS, p > 0, nwin, b->keys[p % 2], b->vals[p % 2], b->keys[1 - p % 2],
                         b->vals[1 - p % 2], detail) != 0)
            return -1;
    if (s->passes % 2) { /* the result is in the second pair: swap the handles, not the data */
        cl_mem t = b->keys[0];
        b->keys[0] = b->keys[1];
        b->keys[1] = t;
        t = b->vals[0];
        b->vals[0] = b->vals[1];
        b->vals[1] = t;
    }
    return 0;
}

/* Step 6: the segments' sums (level 0 of tree_r and tree_s) up the tree to one node per
 * window, then each window's sum S + L T. */
static int enqueue_windows(const cl_api *api, const cl_dev *dev, cl_command_queue q, cl_kernel *k, sorted_buffers *b,
                           const sorted_shape *s, cl_uint nwin, char *detail)
{
    cl_uint off = 0, n = s->nseg, has_t = 0, log_k = 0, log_len = s->log_len;
    while (n > 1) {
        cl_uint n_out = (n + TREE_FAN - 1) / TREE_FAN, off_out = off + nwin * n;
        if (cl_msm_launch(api, dev, q, k[K_TREE], (size_t)nwin * n_out,
                          (cl_msm_karg[]){CL_ARG(b->tree_r), CL_ARG(b->tree_t), CL_ARG(b->tree_s), CL_ARG(off),
                                          CL_ARG(n), CL_ARG(off_out), CL_ARG(nwin), CL_ARG(has_t), CL_ARG(log_k),
                                          CL_ARGS_END},
                          detail) != 0)
            return -1;
        off = off_out;
        n = n_out;
        has_t = 1;
        log_k += LOG_TREE_FAN;
    }
    return cl_msm_launch(api, dev, q, k[K_WINDOWS], nwin,
                         (cl_msm_karg[]){CL_ARG(b->tree_t), CL_ARG(b->tree_s), CL_ARG(off), CL_ARG(has_t),
                                         CL_ARG(log_len), CL_ARG(nwin), CL_ARG(b->sums), CL_ARGS_END},
                         detail);
}

/* Steps 3-6: bucket starts, bucket sums (level 0, then the carry levels), segments, windows. */
static int enqueue_sums(const cl_api *api, const cl_dev *dev, cl_command_queue q, cl_kernel *k, sorted_buffers *b,
                        const sorted_shape *s, cl_uint nwin, cl_mem points, cl_uint first, char *detail)
{
    cl_uint nkeys = s->nkeys, span = s->span, nbuckets = s->nbuckets, fan = span < CARRY_FAN ? span : CARRY_FAN;
    cl_uint nseg = s->nseg, items = (cl_uint)s->items;
    if (cl_msm_launch(api, dev, q, k[K_STARTS], (size_t)nkeys + 1,
                      (cl_msm_karg[]){CL_ARG(b->keys[0]), CL_ARG(b->wstart), CL_ARG(nwin), CL_ARG(nkeys), CL_ARG(b->starts),
                                      CL_ARGS_END},
                      detail) != 0 ||
        cl_msm_launch(api, dev, q, k[K_RUNS], s->items,
                      (cl_msm_karg[]){CL_ARG(points), CL_ARG(first), CL_ARG(b->keys[0]), CL_ARG(b->vals[0]),
                                      CL_ARG(b->starts), CL_ARG(nkeys), CL_ARG(span), CL_ARG(items), CL_ARG(b->buckets),
                                      CL_ARG(b->carry[0]), CL_ARG(b->carry_keys[0]), CL_ARGS_END},
                      detail) != 0)
        return -1;
    unsigned from = 0;
    for (size_t n = s->items; n > 1; n = (n + fan - 1) / fan, from = 1 - from) {
        cl_uint n32 = (cl_uint)n;
        if (cl_msm_launch(api, dev, q, k[K_CARRY], (n + fan - 1) / fan,
                          (cl_msm_karg[]){CL_ARG(b->carry[from]), CL_ARG(b->carry_keys[from]), CL_ARG(n32), CL_ARG(fan),
                                          CL_ARG(b->buckets), CL_ARG(b->carry[1 - from]), CL_ARG(b->carry_keys[1 - from]),
                                          CL_ARGS_END},
                          detail) != 0)
            return -1;
    }
    if (cl_msm_launch(api, dev, q, k[K_SEGMENTS], (size_t)nwin * nseg,
                      (cl_msm_karg[]){CL_ARG(b->buckets), CL_ARG(b->starts), CL_ARG(nbuckets), CL_ARG(nseg), CL_ARG(nwin),
                                      CL_ARG(b->tree_r), CL_ARG(b->tree_s), CL_ARGS_END},
                      detail) != 0)
        return -1;
    return enqueue_windows(api, dev, q, k, b, s, nwin, detail);
}

static const cl_uint no_bad_index[2] = {0xffffffffu, 0xffffffffu};

typedef struct {
    cl_kernel kern[K_COUNT];
    sorted_buffers bufs[2];
} sorted_state;

/* 1 when the sort kernels can run with work-groups of SORT_GROUP items on dev. */
static int takes_sort_groups(const cl_api *api, const cl_dev *dev, cl_kernel *k)
{
    int kinds[] = {K_HIST, K_SCAN_BLOCKS, K_SCAN_SMALL, K_SCAN_APPLY, K_SCATTER};
    for (size_t i = 0; i < sizeof kinds / sizeof kinds[0]; i++) {
        size_t wg = 0;
        if (api->clGetKernelWorkGroupInfo(k[kinds[i]], dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL) !=
                CL_SUCCESS ||
            wg < SORT_GROUP)
            return 0;
    }
    return 1;
}

static void sorted_close(const cl_api *api, void *state)
{
    sorted_state *st = state;
    if (!st)
        return;
    release_buffers(api, &st->bufs[0]);
    release_buffers(api, &st->bufs[1]);
    release_kernels(api, st->kern);
    free(st);
}

static int sorted_open(const cl_api *api, const cl_dev *dev, cl_program prog, const cl_msm_plan *plan,
                       const msm_curve_ops *ops, void **state, char *detail)
{
    sorted_state *st = calloc(1, sizeof *st);
    int rc = CL_MSM_DEVICE_ERROR;
    *state = st;
    if (!st) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory");
        return rc;
    }
    if (create_kernels(api, prog, st->kern, detail) != 0)
        return rc;
    if (!takes_sort_groups(api, dev, st->kern)) {
        snprintf(detail, CL_DETAIL_LEN, "%s cannot run work-groups of %u items", dev->id, SORT_GROUP);
        return CL_MSM_UNSUPPORTED;
    }
    sorted_shape full = shape_of(dev, plan->c, plan->nwin, plan->chunk_points);
    for (unsigned s = 0; s < 2 && s < plan->chunks; s++)
        if (create_buffers(api, dev, &full, ops, plan->nwin, &st->bufs[s], detail) != 0)
            return rc;
    return CL_MSM_OK;
}

static int sorted_enqueue(const cl_api *api, const cl_dev *dev, cl_command_queue q, void *state, unsigned slot,
                          const cl_msm_plan *plan, const msm_curve_ops *ops, const cl_msm_chunk *ck, void *host_sums,
                          cl_uint *host_bad, char *detail)
{
    sorted_state *st = state;
    sorted_buffers *b = &st->bufs[slot];
    sorted_shape s = shape_of(dev, plan->c, plan->nwin, ck->m);
    cl_uint m32 = (cl_uint)ck->m, first = ck->slab ? ck->slab_first : 0;
    cl_mem points = ck->slab ? ck->slab : b->points;
    if (!ck->slab) {
        CL_CALL(api, clEnqueueWriteBuffer, q, b->points, CL_FALSE, 0, ck->m * ops->affine_size, ck->points, 0, NULL,
                NULL);
    }
    if (cl_msm_enqueue_scalars(api, q, ck, b->scalars, detail) != 0)
        goto out;
    CL_CALL(api, clEnqueueWriteBuffer, q, b->bad, CL_FALSE, 0, sizeof no_bad_index, no_bad_index, 0, NULL, NULL);
    if ((!ck->slab &&
         cl_msm_launch(api, dev, q, st->kern[K_CHECK], ck->m, (cl_msm_karg[]){CL_ARG(b->points), CL_ARG(m32), CL_ARG(b->bad), CL_ARGS_END}, detail) != 0) ||
        enqueue_sort(api, dev, q, st->kern, b, &s, plan, detail) != 0 ||
        enqueue_sums(api, dev, q, st->kern, b, &s, plan->nwin, points, first, detail) != 0)
        goto out;
    CL_CALL(api, clEnqueueReadBuffer, q, b->sums, CL_FALSE, 0, plan->nwin * ops->xyzz_size, host_sums, 0, NULL, NULL);
    CL_CALL(api, clEnqueueReadBuffer, q, b->bad, CL_FALSE, 0, sizeof no_bad_index, host_bad, 0, NULL, NULL);
    CL_CALL(api, clFlush, q);
    return 0;
out:
    return -1;
}

const cl_msm_family cl_msm_sorted_family = {sorted_open, sorted_enqueue, sorted_close};
