/*
 * cl_poseidon2.c: see cl_poseidon2.h. One program per field (kernels_cl/poseidon2.cl built
 * through the program cache with -DHPR_CL_FIELD = 4 BabyBear, 5 KoalaBear); the instance's
 * Montgomery constants (p2_params: the external rounds' rows, the internal rounds', the
 * internal diagonal) go to the device in one small read-only buffer per call, the rounds and
 * the width as kernel arguments.
 * Method: the job is cut into chunks of as many states / rows / nodes as the device's buffers
 * hold (within its largest allocation and a quarter of its memory; rows: also within 128 MiB
 * of input, packed on the host); per chunk one upload (for rows: the chunk's slice of each
 * column, packed column after column into a host staging buffer), one launch of one
 * work-item per item in groups of up to GROUP_ITEMS (the range rounded up to whole groups, the
 * kernels leave the surplus work-items idle), one blocking download, all in the device's first
 * in-order queue.
 * Why: a permutation is ~30 rounds of register arithmetic on 16 or 24 words, so one work-item
 * per state keeps every work-item independent (no local memory, no barriers); neighbouring
 * work-items read neighbouring rows of each column (coalesced loads of the matrix). Groups of
 * 64 fill a GPU's SIMD lanes (two warps, one wavefront); the device chooses no group size
 * itself, because a count with a large prime factor would give it groups of one. The host
 * packs a chunk's rows into one transfer rather than one per column.
 * Measured (AMD Zen 4, 2 cores shared with other builds, POCL 2 threads): KoalaBear-16
 * hash_rows of 2^16 rows of 16 columns in 67 ms at best (about 1 M rows/s; 125 to 235 ms
 * under heavier load); the CPU's AVX-512 tier takes 8 ms on one thread (POCL runs the kernel
 * scalar, one work-item after the other).
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_poseidon2.h"

#include "arith/small_fields.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define GROUP_ITEMS 64           /* work-items per group at most (the kernel's limit may be lower) */
#define CHUNK_ITEMS_MAX 0x7fff0000u /* items per launch: the kernels count in 32-bit words */
#define STAGING_BYTES ((size_t)128 << 20) /* a chunk of rows packed on the host: at most 128 MiB */
#define HPR_FIELD_ID_BABYBEAR 4  /* hpr_field ids: the program variant (cl_device.h) */
#define HPR_FIELD_ID_KOALABEAR 5

typedef enum { P2_OP_PERMUTE = 0, P2_OP_HASH_ROWS, P2_OP_COMPRESS } p2_op;

static const char *const kernel_names[] = {"p2_permute", "p2_hash_rows", "p2_compress"};

/* A call's device objects: the kernel, the constants, the chunk's input and output buffers
 * (permute works in place in `in`). */
typedef struct {
    const cl_api *api;
    cl_command_queue queue;
    cl_kernel kernel;
    cl_mem consts, in, out;
    size_t group; /* work-items per group */
} p2_job;

static void job_release(p2_job *job)
{
    cl_mem *m[] = {&job->consts, &job->in, &job->out};
    if (job->kernel)
        job->api->clReleaseKernel(job->kernel);
    for (size_t i = 0; i < sizeof m / sizeof m[0]; i++)
        if (*m[i])
            job->api->clReleaseMemObject(*m[i]);
}

/* Bytes a buffer of the device may take: its largest allocation (or the lower one the options
 * force: HPR_CL_MAX_ALLOC, tests), at most a quarter of its memory (the rest for other work
 * and the other buffers of the call). */
static size_t device_cap(const cl_dev *dev)
{
    uint64_t forced = dev->opts ? dev->opts->max_alloc : 0;
    uint64_t cap = forced > 0 && forced < dev->max_alloc ? forced : dev->max_alloc;
    if (cap > dev->global_mem / 4)
        cap = dev->global_mem / 4;
    return cap > SIZE_MAX ? SIZE_MAX : (size_t)cap;
}

/* Items per chunk: at most count, such that in_bytes and out_bytes per item fit the cap; at
 * least 1. */
static size_t chunk_items(const cl_dev *dev, size_t count, size_t in_bytes, size_t out_bytes)
{
    size_t cap = device_cap(dev), per = in_bytes > out_bytes ? in_bytes : out_bytes;
    size_t items = per ? cap / per : count;
    if (items > count)
        items = count;
    if (items > CHUNK_ITEMS_MAX)
        items = CHUNK_ITEMS_MAX;
    return items ? items : 1;
}

/* The constants of prm as one array: rc_ext (rounds_f * width), rc_int (rounds_p), diag
 * (width), Montgomery form (kernels_cl/poseidon2.cl reads them in this order). n receives
 * the count; at most P2_CONSTS_MAX. */
#define P2_CONSTS_MAX (8 * 24 + 32 + 24)
static int pack_constants(const p2_params *prm, uint32_t *c, size_t *n, char *detail)
{
    size_t ext = (size_t)prm->rounds_f * prm->width, total = ext + prm->rounds_p + prm->width;
    if (total > P2_CONSTS_MAX) {
        snprintf(detail, CL_DETAIL_LEN, "internal: %s has %zu Poseidon2 constants (at most %d)", prm->name, total,
                 P2_CONSTS_MAX);
        return -1;
    }
    memcpy(c, prm->rc_ext, ext * sizeof *c);
    memcpy(c + ext, prm->rc_int, prm->rounds_p * sizeof *c);
    memcpy(c + ext + prm->rounds_p, prm->diag, prm->width * sizeof *c);
    *n = total;
    return 0;
}

/* The program's field id for prm, or 0 when the instance is of neither field. */
static int field_of(const p2_params *prm)
{
    return prm->p == KB_P ? HPR_FIELD_ID_KOALABEAR : prm->p == BB_P ? HPR_FIELD_ID_BABYBEAR : 0;
}

/* The kernel of op, its group size, the constants buffer and the chunk buffers (in_bytes and
 * out_bytes; out_bytes 0: no output buffer), the common arguments set: 0 consts, 1 width,
 * 2 rounds_f, 3 rounds_p. */
static int job_open(cl_runtime *rt, cl_dev *dev, const p2_params *prm, p2_op op, size_t in_bytes, size_t out_bytes,
                    p2_job *job, char *detail)
{
    const cl_api *api = &rt->api;
    uint32_t consts[P2_CONSTS_MAX];
    size_t nconsts, kernel_group;
    cl_uint width = prm->width, rounds_f = prm->rounds_f, rounds_p = prm->rounds_p;
    cl_program prog;
    cl_int rc;
    int field = field_of(prm);
    if (field == 0 || (prm->width != 16 && prm->width != 24)) {
        snprintf(detail, CL_DETAIL_LEN, "internal: %s is not a BabyBear or KoalaBear instance of width 16 or 24",
                 prm->name);
        return -1;
    }
    if (pack_constants(prm, consts, &nconsts, detail) != 0 ||
        cl_dev_program(rt, dev, CL_PROG_POSEIDON2, field, cl_dev_default_words(dev), &prog, detail) != 0)
        return -1;
    job->queue = dev->queue[0];
    job->kernel = api->clCreateKernel(prog, kernel_names[op], &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    CL_CALL(api, clGetKernelWorkGroupInfo, job->kernel, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof kernel_group,
            &kernel_group, NULL);
    job->group = kernel_group < GROUP_ITEMS ? (kernel_group ? kernel_group : 1) : GROUP_ITEMS;
    job->consts = api->clCreateBuffer(dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, nconsts * sizeof *consts,
                                      consts, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    job->in = api->clCreateBuffer(dev->context, CL_MEM_READ_WRITE, in_bytes ? in_bytes : sizeof(cl_uint), NULL, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    if (out_bytes) {
        job->out = api->clCreateBuffer(dev->context, CL_MEM_WRITE_ONLY, out_bytes, NULL, &rc);
        CL_CHECK_RC(clCreateBuffer, rc);
    }
    CL_CALL(api, clSetKernelArg, job->kernel, 0, sizeof(cl_mem), &job->consts);
    CL_CALL(api, clSetKernelArg, job->kernel, 1, sizeof width, &width);
    CL_CALL(api, clSetKernelArg, job->kernel, 2, sizeof rounds_f, &rounds_f);
    CL_CALL(api, clSetKernelArg, job->kernel, 3, sizeof rounds_p, &rounds_p);
    return 0;
out:
    return -1;
}

/* Launches the job's kernel over items work-items (argument 4: their count), the range
 * rounded up to whole groups. */
static int job_launch(p2_job *job, size_t items, char *detail)
{
    const cl_api *api = job->api;
    cl_uint n = (cl_uint)items;
    size_t global = (items + job->group - 1) / job->group * job->group;
    CL_CALL(api, clSetKernelArg, job->kernel, 4, sizeof n, &n);
    CL_CALL(api, clEnqueueNDRangeKernel, job->queue, job->kernel, 1, NULL, &global, &job->group, 0, NULL, NULL);
    return 0;
out:
    return -1;
}

/* On failure: wait for what the queue still holds (it may read host memory), release. */
static int job_close(p2_job *job, int rc)
{
    if (rc != 0 && job->queue)
        job->api->clFinish(job->queue);
    job_release(job);
    return rc;
}

/* The checks every call starts with: the injected fault (tests). */
static int job_start(cl_runtime *rt, cl_dev *dev, p2_job *job, char *detail)
{
    memset(job, 0, sizeof *job);
    job->api = &rt->api;
    return cl_dev_injected_fault(dev, detail) ? -1 : 0;
}

int cl_p2_permute(cl_runtime *rt, cl_dev *dev, const p2_params *prm, uint32_t *states, size_t count, char *detail)
{
    p2_job job;
    const cl_api *api = &rt->api;
    size_t state_bytes = (size_t)prm->width * sizeof *states, batch;
    int rc = -1;
    if (job_start(rt, dev, &job, detail) != 0)
        goto out;
    if (count == 0)
        return 0;
    batch = chunk_items(dev, count, state_bytes, 0);
    if (job_open(rt, dev, prm, P2_OP_PERMUTE, batch * state_bytes, 0, &job, detail) != 0)
        goto out;
    /* p2_permute(consts, width, rounds_f, rounds_p, count, states) */
    CL_CALL(api, clSetKernelArg, job.kernel, 5, sizeof(cl_mem), &job.in);
    for (size_t done = 0; done < count; done += batch) {
        size_t n = count - done < batch ? count - done : batch;
        uint32_t *at = states + done * prm->width;
        CL_CALL(api, clEnqueueWriteBuffer, job.queue, job.in, CL_FALSE, 0, n * state_bytes, at, 0, NULL, NULL);
        if (job_launch(&job, n, detail) != 0)
            goto out;
        CL_CALL(api, clEnqueueReadBuffer, job.queue, job.in, CL_TRUE, 0, n * state_bytes, at, 0, NULL, NULL);
    }
    rc = 0;
out:
    return job_close(&job, rc);
}

/* Uploads rows [row, row + n) of each of the ncols columns, packed (column c at c * n)
 * through staging (n * ncols elements): one transfer per chunk, not one per column. (Also
 * what Oclgrind 21.10 needs: it marks the bytes a write at a nonzero offset fills as the
 * wrong ones, and its uninitialised-value check then flags every digest.) The staging stays
 * untouched until the chunk's blocking download, after the write has completed. */
static int upload_rows(p2_job *job, uint32_t *staging, const uint32_t *cols, size_t stride, size_t ncols, size_t row,
                       size_t n, char *detail)
{
    const cl_api *api = job->api;
    if (ncols == 0)
        return 0;
    for (size_t c = 0; c < ncols; c++)
        memcpy(staging + c * n, cols + c * stride + row, n * sizeof *cols);
    CL_CALL(api, clEnqueueWriteBuffer, job->queue, job->in, CL_FALSE, 0, n * ncols * sizeof *cols, staging, 0, NULL,
            NULL);
    return 0;
out:
    return -1;
}

int cl_p2_hash_rows(cl_runtime *rt, cl_dev *dev, const p2_params *prm, const uint32_t *cols, size_t stride,
                    size_t ncols, size_t row0, size_t nrows, uint32_t *out, char *detail)
{
    p2_job job;
    const cl_api *api = &rt->api;
    size_t digest_bytes = P2_DIGEST * sizeof *out, row_bytes = ncols * sizeof *cols, batch;
    cl_uint n_cols = (cl_uint)ncols;
    uint32_t *staging = NULL;
    int rc = -1;
    if (job_start(rt, dev, &job, detail) != 0)
        goto out;
    if (nrows == 0)
        return 0;
    if (ncols > UINT32_MAX) {
        snprintf(detail, CL_DETAIL_LEN, "internal: %zu columns (at most 2^32 - 1)", ncols);
        goto out;
    }
    batch = chunk_items(dev, nrows, row_bytes, digest_bytes);
    if (row_bytes && batch > STAGING_BYTES / row_bytes) /* the host's copy of a chunk stays small */
        batch = STAGING_BYTES / row_bytes ? STAGING_BYTES / row_bytes : 1;
    staging = malloc(row_bytes ? batch * row_bytes : 1);
    if (!staging) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory for %zu bytes of staging", batch * row_bytes);
        goto out;
    }
    if (job_open(rt, dev, prm, P2_OP_HASH_ROWS, batch * ncols * sizeof *cols, batch * digest_bytes, &job, detail) != 0)
        goto out;
    /* p2_hash_rows(consts, width, rounds_f, rounds_p, nrows, cols, stride, ncols, out) */
    CL_CALL(api, clSetKernelArg, job.kernel, 5, sizeof(cl_mem), &job.in);
    CL_CALL(api, clSetKernelArg, job.kernel, 7, sizeof n_cols, &n_cols);
    CL_CALL(api, clSetKernelArg, job.kernel, 8, sizeof(cl_mem), &job.out);
    for (size_t done = 0; done < nrows; done += batch) {
        size_t n = nrows - done < batch ? nrows - done : batch;
        cl_ulong packed_stride = n; /* the chunk's columns, packed */
        CL_CALL(api, clSetKernelArg, job.kernel, 6, sizeof packed_stride, &packed_stride);
        if (upload_rows(&job, staging, cols, stride, ncols, row0 + done, n, detail) != 0 ||
            job_launch(&job, n, detail) != 0)
            goto out;
        CL_CALL(api, clEnqueueReadBuffer, job.queue, job.out, CL_TRUE, 0, n * digest_bytes, out + done * P2_DIGEST, 0,
                NULL, NULL);
    }
    rc = 0;
out:
    rc = job_close(&job, rc); /* first: a failed queue may still read the staging */
    free(staging);
    return rc;
}

int cl_p2_compress(cl_runtime *rt, cl_dev *dev, const p2_params *prm, const uint32_t *in, uint32_t *out, size_t count,
                   char *detail)
{
    p2_job job;
    const cl_api *api = &rt->api;
    size_t digest_bytes = P2_DIGEST * sizeof *out, batch;
    int rc = -1;
    if (job_start(rt, dev, &job, detail) != 0)
        goto out;
    if (count == 0)
        return 0;
    if (prm->width != 16) {
        snprintf(detail, CL_DETAIL_LEN, "internal: compression by %s (width 16 only)", prm->name);
        goto out;
    }
    batch = chunk_items(dev, count, 2 * digest_bytes, digest_bytes);
    if (job_open(rt, dev, prm, P2_OP_COMPRESS, batch * 2 * digest_bytes, batch * digest_bytes, &job, detail) != 0)
        goto out;
    /* p2_compress(consts, width, rounds_f, rounds_p, count, in, out) */
    CL_CALL(api, clSetKernelArg, job.kernel, 5, sizeof(cl_mem), &job.in);
    CL_CALL(api, clSetKernelArg, job.kernel, 6, sizeof(cl_mem), &job.out);
    for (size_t done = 0; done < count; done += batch) {
        size_t n = count - done < batch ? count - done : batch;
        CL_CALL(api, clEnqueueWriteBuffer, job.queue, job.in, CL_FALSE, 0, n * 2 * digest_bytes,
                in + done * 2 * P2_DIGEST, 0, NULL, NULL);
        if (job_launch(&job, n, detail) != 0)
            goto out;
        CL_CALL(api, clEnqueueReadBuffer, job.queue, job.out, CL_TRUE, 0, n * digest_bytes, out + done * P2_DIGEST, 0,
                NULL, NULL);
    }
    rc = 0;
out:
    return job_close(&job, rc);
}
