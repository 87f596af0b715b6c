/*
 * cl_msm_common.c: what both OpenCL MSM kernels' host code shares (cl_msm.c for
 * owner-computes, cl_msm_sorted.c for the sorted buckets): the device's allocation limits,
 * the chunks' bad-point results and the combination of the chunks' window sums.
 */
#include "cl_msm_kernels.h"

#include <stdlib.h>
#include <string.h>

int cl_msm_create_buffers(const cl_api *api, const cl_dev *dev, const cl_msm_buffer *want, size_t count, char *detail)
{
    cl_int rc;
    for (size_t i = 0; i < count; i++) {
        *want[i].mem = api->clCreateBuffer(dev->context, want[i].flags, want[i].size, NULL, &rc);
        CL_CHECK_RC(clCreateBuffer, rc);
    }
    return 0;
out:
    return -1;
}

static int set_args(const cl_api *api, cl_kernel k, const cl_msm_karg *args, char *detail)
{
    for (cl_uint i = 0; args[i].value; i++)
        CL_CALL(api, clSetKernelArg, k, i, args[i].size, args[i].value);
    return 0;
out:
    return -1;
}

int cl_msm_launch_groups(const cl_api *api, cl_command_queue q, cl_kernel k, size_t global, size_t local,
                         const cl_msm_karg *args, char *detail)
{
    if (set_args(api, k, args, detail) != 0)
        return -1;
    CL_CALL(api, clEnqueueNDRangeKernel, q, k, 1, NULL, &global, &local, 0, NULL, NULL);
    return 0;
out:
    return -1;
}

int cl_msm_launch(const cl_api *api, const cl_dev *dev, cl_command_queue q, cl_kernel k, size_t count,
                  const cl_msm_karg *args, char *detail)
{
    size_t local = cl_launch_group(api, dev, k);
    return cl_msm_launch_groups(api, q, k, (count + local - 1) / local * local, local, args, detail);
}

uint64_t cl_msm_max_alloc(const cl_dev *dev)
{
    uint64_t forced = dev->opts ? dev->opts->max_alloc : 0;
    return forced > 0 && forced < dev->max_alloc ? forced : dev->max_alloc;
}

/* The bytes that every work-item's buckets may take together. */
uint64_t cl_msm_bucket_budget(const cl_dev *dev)
{
    uint64_t max_alloc = cl_msm_max_alloc(dev);
    return dev->global_mem / 4 < max_alloc ? dev->global_mem / 4 : max_alloc;
}

int cl_msm_find_bad_point(const cl_uint *bad, const cl_msm_chunk *chunks, unsigned count, size_t *index,
                          msm_point_check *kind)
{
    for (unsigned k = 0; k < count; k++) {
        cl_uint range = bad[2 * k], curve = bad[2 * k + 1];
        if (range == 0xffffffffu && curve == 0xffffffffu)
            continue;
        *kind = range <= curve ? MSM_POINT_COORD_RANGE : MSM_POINT_NOT_ON_CURVE;
        *index = chunks[k].begin + (range <= curve ? range : curve);
        return 1;
    }
    return 0;
}

unsigned cl_msm_slice_windows(unsigned b0, unsigned b1, unsigned c)
{
    return (b1 - b0 + c - 1) / c;
}

int cl_msm_combine_chunks(const msm_curve_ops *ops, const cl_msm_plan *plan, const unsigned char *sums,
                          unsigned char *out)
{
    size_t xs = ops->xyzz_size;
    unsigned char *window_sums = malloc((size_t)(plan->nwin + 1) * xs);
    if (!window_sums)
        return -1;
    uint64_t result[MSM_MAX_XYZZ_BYTES / 8];
    unsigned char *shift = window_sums + (size_t)plan->nwin * xs; /* [-1] infinity, [0] the sum: times 2^b0 */
    memcpy(window_sums, sums, plan->nwin * xs);
    for (unsigned k = 1; k < plan->chunks; k++)
        for (unsigned w = 0; w < plan->nwin; w++)
            ops->xyzz_add(window_sums + w * xs, window_sums + w * xs, sums + ((size_t)k * plan->nwin + w) * xs);
    ops->combine_windows(result, window_sums, plan->nwin, plan->c);
    ops->xyzz_set_inf(shift - xs);
    memcpy(shift, result, xs);
    ops->combine_windows(result, shift - xs, 2, plan->b0);
    ops->encode_xyzz(out, result);
    free(window_sums);
    return 0;
}

int cl_msm_enqueue_scalars(const cl_api *api, cl_command_queue q, const cl_msm_chunk *ck, cl_mem dst, char *detail)
{
    if (ck->scalar_mem)
        CL_CALL(api, clEnqueueCopyBuffer, q, ck->scalar_mem, dst, ck->begin * 32, 0, ck->m * 32, 0, NULL, NULL);
    else
        CL_CALL(api, clEnqueueWriteBuffer, q, dst, CL_FALSE, 0, ck->m * 32, ck->scalars, 0, NULL, NULL);
    return 0;
out:
    return -1;
}
