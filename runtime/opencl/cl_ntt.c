/*
 * cl_ntt.c: see cl_ntt.h. One program per field; buffers for a column, its bit-reversed copy
 * and the twiddles; per batch of columns (as many as the device's buffers hold): one upload,
 * passes of up to k layers each over every column (kernels_cl/ntt.cl), one download, in one
 * in-order queue. Columns kept on the device (cl_ntt_cols): one upload, then transforms over
 * twiddle tables the device keeps between calls (cl_dev.twiddles: CL_TWIDDLE_SLOTS tables,
 * the least recently used replaced, released with the device), with
 * their scalings (ntt_scale, over tables hi and lo the host makes: 2^(log_n - lo_bits) + 2^lo_bits
 * elements, not n) and the Groth16 combination (ntt_mul_sub_canonical) into a buffer the MSM
 * reads its scalars from (cl_msm_device_scalars): nothing comes back between the steps.
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_ntt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cl_kernel dif, dit, bitrev;
    cl_mem a, b, tw;
    size_t group_max;     /* work-items per group both pass kernels allow on the device */
    size_t bitrev_group;  /* cl_launch_group of ntt_bitrev */
} ntt_state;

/* Work-groups of cl_launch_group items for n (a power of two) items along dimension 0: at
 * most n, so the group divides the range and no kernel needs a guard. */
static size_t pow2_group(size_t launch_group, size_t n)
{
    return launch_group < n ? launch_group : n;
}

/* NTT_LOCAL_BITS of kernels_cl/ntt.cl for elements of elem_bytes: 32 KiB of local memory. */
static unsigned local_bits(size_t elem_bytes)
{
    return elem_bytes >= 32 ? 10 : elem_bytes >= 8 ? 12 : 13;
}

static int kernel_group_max(const cl_api *api, cl_dev *dev, cl_kernel k, size_t *wg, char *detail)
{
    CL_CALL(api, clGetKernelWorkGroupInfo, k, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof *wg, wg, NULL);
    return 0;
out:
    return -1;
}

/* The most layers a pass of cols sets may take: cols 2^k elements in the local array and
 * cols 2^(k-1) work-items in a group; at least 1. */
static unsigned pass_layers(const ntt_state *s, size_t elem_bytes, size_t cols)
{
    unsigned k = local_bits(elem_bytes);
    while (k > 1 && ((cols << k) > ((size_t)1 << local_bits(elem_bytes)) || (cols << (k - 1)) > s->group_max))
        k--;
    return k;
}

static void release_state(const cl_api *api, ntt_state *s)
{
    cl_kernel *k[] = {&s->dif, &s->dit, &s->bitrev};
    cl_mem *m[] = {&s->a, &s->b, &s->tw};
    for (size_t i = 0; i < 3; i++) {
        if (*k[i])
            api->clReleaseKernel(*k[i]);
        if (*m[i])
            api->clReleaseMemObject(*m[i]);
    }
}

/* Buffers for batch columns; the twiddles of n elements, a copy of tw (NULL: none, the
 * caller sets s->tw to a buffer it keeps). */
static int make_state(cl_runtime *rt, cl_dev *dev, const cl_ntt_job *job, const void *tw, size_t batch,
                      ntt_state *s, char *detail)
{
    const cl_api *api = &rt->api;
    size_t bytes = ((size_t)1 << job->log_n) * job->elem_bytes;
    cl_program prog;
    cl_int rc;
    size_t dif_group, dit_group;
    if (cl_dev_program(rt, dev, CL_PROG_NTT, job->field, cl_dev_default_words(dev), &prog, detail) != 0)
        return -1;
    s->dif = api->clCreateKernel(prog, "ntt_dif_pass", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    s->dit = api->clCreateKernel(prog, "ntt_dit_pass", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    s->bitrev = api->clCreateKernel(prog, "ntt_bitrev", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    if (kernel_group_max(api, dev, s->dif, &dif_group, detail) != 0 ||
        kernel_group_max(api, dev, s->dit, &dit_group, detail) != 0)
        goto out;
    s->group_max = dif_group < dit_group ? dif_group : dit_group;
    s->bitrev_group = cl_launch_group(api, dev, s->bitrev);
    s->a = api->clCreateBuffer(dev->context, CL_MEM_READ_WRITE, batch * bytes, NULL, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    s->b = api->clCreateBuffer(dev->context, CL_MEM_READ_WRITE, batch * bytes, NULL, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    if (tw) {
        s->tw = api->clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)tw, &rc);
        CL_CHECK_RC(clCreateBuffer, rc);
    }
    return 0;
out:
    return -1;
}

/* s->a <- bit reversal of each of cols columns of s->a (through s->b). */
static int enqueue_bitrev(const cl_api *api, cl_command_queue q, ntt_state *s, unsigned log_n, size_t cols,
                          char *detail)
{
    size_t range[2] = {(size_t)1 << log_n, cols}, group[2] = {pow2_group(s->bitrev_group, range[0]), 1};
    cl_uint bits = log_n;
    cl_mem t;
    CL_CALL(api, clSetKernelArg, s->bitrev, 0, sizeof(cl_mem), &s->a);
    CL_CALL(api, clSetKernelArg, s->bitrev, 1, sizeof(cl_mem), &s->b);
    CL_CALL(api, clSetKernelArg, s->bitrev, 2, sizeof bits, &bits);
    CL_CALL(api, clEnqueueNDRangeKernel, q, s->bitrev, 2, NULL, range, group, 0, NULL, NULL);
    t = s->a;
    s->a = s->b;
    s->b = t;
    return 0;
out:
    return -1;
}

/* One pass: k layers whose narrowest span is s, over sets of `sets` consecutive lo. */
typedef struct {
    cl_uint s, k, sets;
} ntt_pass;

/* The passes of the log_n layers, in launch order (at most log_n). The contiguous pass (s = 1)
 * takes as many layers as a group allows; the wider layers go in strided passes of groups of
 * 256 bytes of consecutive elements (coalesced), as many layers as then fit. DIF runs the
 * spans downwards (the contiguous pass last), DIT upwards (it first). */
static unsigned plan_passes(const ntt_state *st, const cl_ntt_job *job, ntt_pass *passes)
{
    unsigned log_n = job->log_n, contiguous = pass_layers(st, job->elem_bytes, 1), np = 0;
    size_t want = 256 / job->elem_bytes;
    if (contiguous > log_n)
        contiguous = log_n;
    if (job->dit)
        passes[np++] = (ntt_pass){1, contiguous, 1};
    /* the strided layers: spans 2^contiguous .. 2^(log_n - 1) */
    unsigned lo_layer = contiguous, hi_layer = log_n; /* [lo_layer, hi_layer) left */
    while (lo_layer < hi_layer) {
        unsigned k = pass_layers(st, job->elem_bytes, want), left = hi_layer - lo_layer;
        if (k > left)
            k = left;
        unsigned low = job->dit ? lo_layer : hi_layer - k; /* the pass's narrowest layer */
        size_t sets = want < ((size_t)1 << low) ? want : (size_t)1 << low;
        passes[np++] = (ntt_pass){(cl_uint)1 << low, k, (cl_uint)sets};
        if (job->dit)
            lo_layer += k;
        else
            hi_layer -= k;
    }
    if (!job->dit && contiguous)
        passes[np++] = (ntt_pass){1, contiguous, 1};
    return np;
}

/* The log_n layers of cols columns, pass by pass. */
static int enqueue_layers(const cl_api *api, cl_command_queue q, ntt_state *s, const cl_ntt_job *job, size_t cols,
                          char *detail)
{
    ntt_pass passes[64];
    size_t range[2] = {((size_t)1 << job->log_n) / 2, cols};
    cl_kernel k = job->dit ? s->dit : s->dif;
    cl_uint log_n = job->log_n;
    unsigned np = plan_passes(s, job, passes);
    CL_CALL(api, clSetKernelArg, k, 0, sizeof(cl_mem), &s->a);
    CL_CALL(api, clSetKernelArg, k, 1, sizeof(cl_mem), &s->tw);
    CL_CALL(api, clSetKernelArg, k, 4, sizeof log_n, &log_n);
    for (unsigned p = 0; p < np; p++) {
        size_t group[2] = {(size_t)passes[p].sets << (passes[p].k - 1), 1};
        CL_CALL(api, clSetKernelArg, k, 2, sizeof passes[p].s, &passes[p].s);
        CL_CALL(api, clSetKernelArg, k, 3, sizeof passes[p].k, &passes[p].k);
        CL_CALL(api, clSetKernelArg, k, 5, sizeof passes[p].sets, &passes[p].sets);
        CL_CALL(api, clEnqueueNDRangeKernel, q, k, 2, NULL, range, group, 0, NULL, NULL);
    }
    return 0;
out:
    return -1;
}

/* The job's stage on cols columns of s->a: [bit reversal] layers [bit reversal]. */
static int enqueue_stage(const cl_api *api, cl_command_queue q, ntt_state *s, const cl_ntt_job *job, size_t cols,
                         char *detail)
{
    if (job->log_n == 0)
        return 0;
    if ((job->bitrev_before && enqueue_bitrev(api, q, s, job->log_n, cols, detail) != 0) ||
        enqueue_layers(api, q, s, job, cols, detail) != 0 ||
        (job->bitrev_after && enqueue_bitrev(api, q, s, job->log_n, cols, detail) != 0))
        return -1;
    return 0;
}

/* cols consecutive columns at a: one upload, the kernels over all of them, one download. */
static int run_batch(const cl_api *api, cl_command_queue q, ntt_state *s, const cl_ntt_job *job, unsigned char *a,
                     size_t cols, char *detail)
{
    size_t bytes = cols * ((size_t)1 << job->log_n) * job->elem_bytes;
    CL_CALL(api, clEnqueueWriteBuffer, q, s->a, CL_FALSE, 0, bytes, a, 0, NULL, NULL);
    if (enqueue_stage(api, q, s, job, cols, detail) != 0)
        goto out;
    CL_CALL(api, clEnqueueReadBuffer, q, s->a, CL_TRUE, 0, bytes, a, 0, NULL, NULL);
    return 0;
out:
    return -1;
}

int cl_ntt_columns(cl_runtime *rt, cl_dev *dev, const cl_ntt_job *job, void *a, size_t columns, const void *tw,
                   char *detail)
{
    const cl_api *api = &rt->api;
    ntt_state s;
    size_t bytes = ((size_t)1 << job->log_n) * job->elem_bytes;
    /* columns per batch: within the device's largest buffer and a quarter of its memory */
    size_t cap = dev->max_alloc < dev->global_mem / 4 ? dev->max_alloc : dev->global_mem / 4;
    size_t batch = cap / bytes < columns ? cap / bytes : columns;
    int rc = -1;
    memset(&s, 0, sizeof s);
    if (batch == 0)
        batch = 1;
    if (cl_dev_injected_fault(dev, detail) || make_state(rt, dev, job, tw, batch, &s, detail) != 0)
        goto out;
    dev->bytes_sent += bytes; /* the twiddles */
    for (size_t c = 0; c < columns; c += batch) {
        size_t cols = columns - c < batch ? columns - c : batch;
        if (run_batch(api, dev->queue[0], &s, job, (unsigned char *)a + c * bytes, cols, detail) != 0)
            goto out;
        dev->bytes_sent += cols * bytes;
    }
    rc = 0;
out:
    if (rc != 0 && dev->queue[0])
        api->clFinish(dev->queue[0]);
    release_state(api, &s);
    return rc;
}

/* ---- columns kept on the device ---- */

struct cl_ntt_cols {
    cl_dev *dev;
    ntt_state s;
    cl_kernel scale, mul_sub;
    int field;
    size_t elem_bytes, columns;
    unsigned log_n;
};

int cl_ntt_cols_fit(const cl_dev *dev, size_t elem_bytes, unsigned log_n, size_t columns)
{
    size_t col = ((size_t)1 << log_n) * elem_bytes;
    uint64_t cap = dev->max_alloc < dev->global_mem / 4 ? dev->max_alloc : dev->global_mem / 4;
    return columns <= cap / col && (2 * columns + 1 + CL_TWIDDLE_SLOTS) * (uint64_t)col <= dev->global_mem / 2;
}

int cl_ntt_cols_upload(cl_runtime *rt, cl_dev *dev, int field, size_t elem_bytes, unsigned log_n, const void *a,
                       size_t columns, cl_ntt_cols **out, char *detail)
{
    const cl_api *api = &rt->api;
    cl_ntt_job job = {field, elem_bytes, log_n, 0, 0, 0};
    size_t bytes = columns * ((size_t)1 << log_n) * elem_bytes;
    cl_ntt_cols *c = calloc(1, sizeof *c);
    cl_program prog;
    cl_int rc;
    *out = NULL;
    if (!c) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory for the device's columns");
        return -1;
    }
    c->dev = dev, c->field = field, c->elem_bytes = elem_bytes, c->columns = columns, c->log_n = log_n;
    if (cl_dev_injected_fault(dev, detail) || make_state(rt, dev, &job, NULL, columns, &c->s, detail) != 0 ||
        cl_dev_program(rt, dev, CL_PROG_NTT, field, cl_dev_default_words(dev), &prog, detail) != 0)
        goto out;
    c->scale = api->clCreateKernel(prog, "ntt_scale", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    if (elem_bytes == 32) {
        c->mul_sub = api->clCreateKernel(prog, "ntt_mul_sub_canonical", &rc);
        CL_CHECK_RC(clCreateKernel, rc);
    }
    CL_CALL(api, clEnqueueWriteBuffer, dev->queue[0], c->s.a, CL_FALSE, 0, bytes, a, 0, NULL, NULL);
    CL_CALL(api, clFinish, dev->queue[0]);
    dev->bytes_sent += bytes;
    *out = c;
    return 0;
out:
    cl_ntt_cols_release(rt, c);
    return -1;
}

/* Every column *= the scaling sc (see ntt_scale). */
static int enqueue_scale(const cl_api *api, cl_ntt_cols *c, const cl_ntt_scale *sc, char *detail)
{
    cl_command_queue q = c->dev->queue[0];
    size_t range[2] = {(size_t)1 << c->log_n, c->columns};
    size_t group[2] = {pow2_group(cl_launch_group(api, c->dev, c->scale), range[0]), 1};
    size_t lo_bytes = ((size_t)1 << sc->lo_bits) * c->elem_bytes, hi_bytes = ((size_t)1 << (c->log_n - sc->lo_bits)) * c->elem_bytes;
    cl_uint lo_bits = sc->lo_bits, log_n = c->log_n;
    cl_mem hi = NULL, lo = NULL;
    cl_int rc;
    int ok = -1;
    hi = api->clCreateBuffer(c->dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, hi_bytes, (void *)sc->hi, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    lo = api->clCreateBuffer(c->dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, lo_bytes, (void *)sc->lo, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    c->dev->bytes_sent += hi_bytes + lo_bytes;
    CL_CALL(api, clSetKernelArg, c->scale, 0, sizeof(cl_mem), &c->s.a);
    CL_CALL(api, clSetKernelArg, c->scale, 1, sizeof(cl_mem), &hi);
    CL_CALL(api, clSetKernelArg, c->scale, 2, sizeof(cl_mem), &lo);
    CL_CALL(api, clSetKernelArg, c->scale, 3, sizeof lo_bits, &lo_bits);
    CL_CALL(api, clSetKernelArg, c->scale, 4, sizeof log_n, &log_n);
    CL_CALL(api, clEnqueueNDRangeKernel, q, c->scale, 2, NULL, range, group, 0, NULL, NULL);
    ok = 0;
out:
    /* released after the kernel that uses them: OpenCL keeps a buffer until its last use */
    if (hi)
        api->clReleaseMemObject(hi);
    if (lo)
        api->clReleaseMemObject(lo);
    return ok;
}

/* *out = the twiddle table of key (bytes, host copy tw) on dev: the one kept there, or a new
 * copy in the free or least recently used slot. 0, or -1 with detail. */
static int kept_twiddles(const cl_api *api, cl_dev *dev, const cl_twiddle_key *key, const void *tw, size_t bytes,
                         cl_mem *out, char *detail)
{
    cl_twiddle_slot *slot = &dev->twiddles[0];
    cl_int rc;
    for (int t = 0; t < CL_TWIDDLE_SLOTS; t++) {
        cl_twiddle_slot *s = &dev->twiddles[t];
        if (s->buf && s->bytes == bytes && memcmp(&s->key, key, sizeof *key) == 0) {
            s->last_use = ++dev->resident_clock;
            *out = s->buf;
            return 0;
        }
        if (!s->buf || (slot->buf && s->last_use < slot->last_use))
            slot = s;
    }
    if (slot->buf)
        api->clReleaseMemObject(slot->buf);
    slot->buf = api->clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)tw, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    slot->key = *key;
    slot->bytes = bytes;
    slot->last_use = ++dev->resident_clock;
    dev->bytes_sent += bytes;
    *out = slot->buf;
    return 0;
out:
    slot->buf = NULL;
    return -1;
}

int cl_ntt_cols_transform(cl_runtime *rt, cl_ntt_cols *c, const cl_ntt_job *job, const void *tw,
                          const cl_twiddle_key *tw_key, const cl_ntt_scale *before, const cl_ntt_scale *after,
                          char *detail)
{
    const cl_api *api = &rt->api;
    cl_command_queue q = c->dev->queue[0];
    size_t bytes = ((size_t)1 << c->log_n) * c->elem_bytes;
    if (job->log_n != c->log_n || job->field != c->field) {
        snprintf(detail, CL_DETAIL_LEN, "internal: a transform of 2^%u elements over columns of 2^%u", job->log_n,
                 c->log_n);
        return -1;
    }
    if (cl_dev_injected_fault(c->dev, detail) || kept_twiddles(api, c->dev, tw_key, tw, bytes, &c->s.tw, detail) != 0)
        return -1;
    if ((before && enqueue_scale(api, c, before, detail) != 0) ||
        enqueue_stage(api, q, &c->s, job, c->columns, detail) != 0 || (after && enqueue_scale(api, c, after, detail) != 0))
        goto out;
    CL_CALL(api, clFinish, q);
    c->s.tw = NULL; /* the device's (kept_twiddles), not the columns' */
    return 0;
out:
    api->clFinish(q);
    c->s.tw = NULL;
    return -1;
}

int cl_ntt_cols_mul_sub(cl_runtime *rt, cl_ntt_cols *c, cl_mem *out, char *detail)
{
    const cl_api *api = &rt->api;
    cl_command_queue q = c->dev->queue[0];
    size_t n = (size_t)1 << c->log_n;
    cl_uint log_n = c->log_n;
    cl_int rc;
    *out = NULL;
    if (!c->mul_sub || c->columns < 3) {
        snprintf(detail, CL_DETAIL_LEN, "internal: a b - c needs three columns of a 256-bit field");
        return -1;
    }
    *out = api->clCreateBuffer(c->dev->context, CL_MEM_READ_WRITE, n * 32, NULL, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    CL_CALL(api, clSetKernelArg, c->mul_sub, 0, sizeof(cl_mem), &c->s.a);
    CL_CALL(api, clSetKernelArg, c->mul_sub, 1, sizeof(cl_mem), out);
    CL_CALL(api, clSetKernelArg, c->mul_sub, 2, sizeof log_n, &log_n);
    size_t group = pow2_group(cl_launch_group(api, c->dev, c->mul_sub), n);
    CL_CALL(api, clEnqueueNDRangeKernel, q, c->mul_sub, 1, NULL, &n, &group, 0, NULL, NULL);
    CL_CALL(api, clFinish, q);
    return 0;
out:
    api->clFinish(q);
    if (*out)
        api->clReleaseMemObject(*out);
    *out = NULL;
    return -1;
}

void cl_ntt_cols_release(cl_runtime *rt, cl_ntt_cols *c)
{
    if (!c)
        return;
    if (c->scale)
        rt->api.clReleaseKernel(c->scale);
    if (c->mul_sub)
        rt->api.clReleaseKernel(c->mul_sub);
    release_state(&rt->api, &c->s);
    free(c);
}
