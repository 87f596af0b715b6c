/*
 * cl_ntt.c: see cl_ntt.h. One program per field; buffers for a column, its bit-reversed copy
 * and the twiddles; per batch of columns (as many as the device's buffers hold): one upload,
 * passes of up to k layers each over every column (kernels_cl/ntt.cl), one download, in one
 * in-order queue.
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_ntt.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    cl_kernel dif, dit, bitrev;
    cl_mem a, b, tw;
    unsigned max_layers; /* layers per pass: the program's local array, the work-group size */
} ntt_state;

/* HPR_NTT_LOCAL_BITS of kernels_cl/ntt.cl for elements of elem_bytes. */
static unsigned local_bits(size_t elem_bytes)
{
    return elem_bytes >= 32 ? 8 : elem_bytes >= 8 ? 10 : 11;
}

/* The most layers a pass of kernel k may run on dev: 2^(k-1) work-items in a group. */
static int pass_layers(const cl_api *api, cl_dev *dev, cl_kernel k, size_t elem_bytes, unsigned *layers,
                       char *detail)
{
    size_t wg = 0;
    unsigned l = local_bits(elem_bytes);
    CL_CALL(api, clGetKernelWorkGroupInfo, k, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof wg, &wg, NULL);
    while (l > 1 && ((size_t)1 << (l - 1)) > wg)
        l--;
    *layers = l;
    return 0;
out:
    return -1;
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

/* Buffers for batch columns; the twiddles of n elements. */
static int make_state(cl_runtime *rt, cl_dev *dev, const cl_ntt_job *job, const void *tw, size_t batch,
                      ntt_state *s, char *detail)
{
    const cl_api *api = &rt->api;
    size_t bytes = ((size_t)1 << job->log_n) * job->elem_bytes;
    cl_program prog;
    cl_int rc;
    unsigned dif_layers, dit_layers;
    if (cl_dev_program(rt, dev, CL_PROG_NTT, job->field, cl_dev_default_words(dev), &prog, detail) != 0)
        return -1;
    s->dif = api->clCreateKernel(prog, "ntt_dif_pass", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    s->dit = api->clCreateKernel(prog, "ntt_dit_pass", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    s->bitrev = api->clCreateKernel(prog, "ntt_bitrev", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    if (pass_layers(api, dev, s->dif, job->elem_bytes, &dif_layers, detail) != 0 ||
        pass_layers(api, dev, s->dit, job->elem_bytes, &dit_layers, detail) != 0)
        goto out;
    s->max_layers = dif_layers < dit_layers ? dif_layers : dit_layers;
    s->a = api->clCreateBuffer(dev->context, CL_MEM_READ_WRITE, batch * bytes, NULL, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    s->b = api->clCreateBuffer(dev->context, CL_MEM_READ_WRITE, batch * bytes, NULL, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    s->tw = api->clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, bytes, (void *)tw, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    return 0;
out:
    return -1;
}

/* s->a <- bit reversal of each of cols columns of s->a (through s->b). */
static int enqueue_bitrev(const cl_api *api, cl_command_queue q, ntt_state *s, unsigned log_n, size_t cols,
                          char *detail)
{
    size_t range[2] = {(size_t)1 << log_n, cols};
    cl_uint bits = log_n;
    cl_mem t;
    CL_CALL(api, clSetKernelArg, s->bitrev, 0, sizeof(cl_mem), &s->a);
    CL_CALL(api, clSetKernelArg, s->bitrev, 1, sizeof(cl_mem), &s->b);
    CL_CALL(api, clSetKernelArg, s->bitrev, 2, sizeof bits, &bits);
    CL_CALL(api, clEnqueueNDRangeKernel, q, s->bitrev, 2, NULL, range, NULL, 0, NULL, NULL);
    t = s->a;
    s->a = s->b;
    s->b = t;
    return 0;
out:
    return -1;
}

/* The log_n layers of cols columns in passes of up to max_layers: DIF from span n/2 down,
 * DIT from span 1 up. */
static int enqueue_layers(const cl_api *api, cl_command_queue q, ntt_state *s, const cl_ntt_job *job, size_t cols,
                          char *detail)
{
    size_t n = (size_t)1 << job->log_n, range[2] = {n / 2, cols};
    cl_kernel k = job->dit ? s->dit : s->dif;
    cl_uint len = job->dit ? 1 : (cl_uint)(n / 2), log_n = job->log_n; /* DIF: the pass's widest span; DIT: its narrowest */
    CL_CALL(api, clSetKernelArg, k, 0, sizeof(cl_mem), &s->a);
    CL_CALL(api, clSetKernelArg, k, 1, sizeof(cl_mem), &s->tw);
    CL_CALL(api, clSetKernelArg, k, 4, sizeof log_n, &log_n);
    for (unsigned done = 0; done < job->log_n;) {
        cl_uint layers = job->log_n - done < s->max_layers ? job->log_n - done : s->max_layers;
        size_t group[2] = {(size_t)1 << (layers - 1), 1};
        CL_CALL(api, clSetKernelArg, k, 2, sizeof len, &len);
        CL_CALL(api, clSetKernelArg, k, 3, sizeof layers, &layers);
        CL_CALL(api, clEnqueueNDRangeKernel, q, k, 2, NULL, range, group, 0, NULL, NULL);
        len = job->dit ? len << layers : len >> layers;
        done += layers;
    }
    return 0;
out:
    return -1;
}

/* cols consecutive columns at a: one upload, the kernels over all of them, one download. */
static int run_batch(const cl_api *api, cl_command_queue q, ntt_state *s, const cl_ntt_job *job, unsigned char *a,
                     size_t cols, char *detail)
{
    size_t bytes = cols * ((size_t)1 << job->log_n) * job->elem_bytes;
    CL_CALL(api, clEnqueueWriteBuffer, q, s->a, CL_FALSE, 0, bytes, a, 0, NULL, NULL);
    if (job->log_n > 0) {
        if ((job->bitrev_before && enqueue_bitrev(api, q, s, job->log_n, cols, detail) != 0) ||
            enqueue_layers(api, q, s, job, cols, detail) != 0 ||
            (job->bitrev_after && enqueue_bitrev(api, q, s, job->log_n, cols, detail) != 0))
            goto out;
    }
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
    for (size_t c = 0; c < columns; c += batch) {
        size_t cols = columns - c < batch ? columns - c : batch;
        if (run_batch(api, dev->queue[0], &s, job, (unsigned char *)a + c * bytes, cols, detail) != 0)
            goto out;
    }
    rc = 0;
out:
    if (rc != 0 && dev->queue[0])
        api->clFinish(dev->queue[0]);
    release_state(api, &s);
    return rc;
}
