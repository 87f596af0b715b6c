/*
 * cl_resident.c: point sets kept on an OpenCL device between MSMs (resident bases).
 *
 * Why: a prover runs its MSMs over the same bases again and again (a Groth16 zkey's A, B1,
 * C and H points for every proof; an hpr_bases object for every hpr_msm_bases call). Sent
 * once, they cost the bus nothing afterwards: each later MSM sends 32 bytes of scalar per
 * point instead of 96 (BN254 G1: 64 bytes of point and 32 of scalar), and skips the device's
 * point check.
 * What: a set is keyed by its caller (msm_points.key, unique for the process's life) and
 * stored on the device in the interchange form, which is what the kernels read: slabs of at
 * most the device's max allocation (the last may be shorter), checked once by the kernel
 * that checks uploaded chunks. The chunk driver (cl_msm.c) reads a chunk's points from its
 * slab at an offset and never lets a chunk cross a slab's end.
 * Room: the sets of a device take at most half its global memory together (the MSM's working
 * buffers, at most an eighth each, keep the rest); making room releases the least recently
 * used sets first; a set that does not fit alone is not kept, and its MSMs upload chunk by
 * chunk as before. A set with an invalid point is not kept either: the chunks' own checks
 * then name the point, as for any MSM.
 * Life: until cl_resident_drop(owner) (hpr_bases_destroy, a context proving with another
 * zkey) or the runtime closes.
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_msm_kernels.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static cl_resident *find(cl_dev *dev, const msm_points *pts, int curve)
{
    for (cl_resident *r = dev->resident; r; r = r->next)
        if (r->key == pts->key && r->curve == curve && r->count == pts->count)
            return r;
    return NULL;
}

/* Releases least recently used sets until `need` more bytes fit in half the device's memory:
 * 1, or 0 when they cannot. */
static int make_room(const cl_api *api, cl_dev *dev, uint64_t need)
{
    uint64_t room = dev->global_mem / 2;
    if (need > room)
        return 0;
    while (dev->resident_bytes + need > room && dev->resident) {
        cl_resident *oldest = dev->resident;
        for (cl_resident *r = dev->resident; r; r = r->next)
            if (r->last_use < oldest->last_use)
                oldest = r;
        cl_resident_remove(api, dev, oldest);
    }
    return 1;
}

/* Uploads the slabs (blocking) and checks every point: 0 and *valid, or -1 with detail. */
static int upload(cl_runtime *rt, cl_dev *dev, int curve, cl_resident *r, const unsigned char *host, int *valid,
                  char *detail)
{
    const cl_api *api = &rt->api;
    cl_mem *slabs = r->slabs, bad = NULL;
    cl_kernel check = NULL;
    cl_program prog;
    cl_int rc;
    int ret = -1;
    *valid = 1;
    if (cl_dev_program(rt, dev, CL_PROG_MSM, curve, cl_dev_default_words(dev), &prog, detail) != 0)
        goto out;
    check = api->clCreateKernel(prog, "msm_check_points", &rc);
    CL_CHECK_RC(clCreateKernel, rc);
    bad = api->clCreateBuffer(dev->context, CL_MEM_READ_WRITE, 2 * sizeof(cl_uint), NULL, &rc);
    CL_CHECK_RC(clCreateBuffer, rc);
    for (unsigned s = 0; s < r->nslabs && *valid; s++) {
        size_t first = (size_t)s * r->slab_points, m = r->count - first < r->slab_points ? r->count - first : r->slab_points;
        cl_uint m32 = (cl_uint)m, found[2] = {0xffffffffu, 0xffffffffu};
        slabs[s] = api->clCreateBuffer(dev->context, CL_MEM_READ_ONLY, m * r->point_size, NULL, &rc);
        CL_CHECK_RC(clCreateBuffer, rc);
        CL_CALL(api, clEnqueueWriteBuffer, dev->queue[0], slabs[s], CL_FALSE, 0, m * r->point_size,
                host + first * r->point_size, 0, NULL, NULL);
        CL_CALL(api, clEnqueueWriteBuffer, dev->queue[0], bad, CL_FALSE, 0, sizeof found, found, 0, NULL, NULL);
        if (cl_msm_launch(api, dev, dev->queue[0], check, m,
                          (cl_msm_karg[]){CL_ARG(slabs[s]), CL_ARG(m32), CL_ARG(bad), CL_ARGS_END}, detail) != 0)
            goto out;
        CL_CALL(api, clEnqueueReadBuffer, dev->queue[0], bad, CL_TRUE, 0, sizeof found, found, 0, NULL, NULL);
        *valid = found[0] == 0xffffffffu && found[1] == 0xffffffffu;
        dev->bytes_sent += m * r->point_size;
    }
    ret = 0;
out:
    if (check)
        api->clReleaseKernel(check);
    if (bad)
        api->clReleaseMemObject(bad);
    return ret;
}

int cl_resident_get(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const msm_points *pts,
                    cl_resident **out, char *detail)
{
    const cl_api *api = &rt->api;
    uint64_t max_alloc = cl_msm_max_alloc(dev);
    cl_resident *r;
    int valid;
    *out = NULL;
    if (!pts->key || pts->count == 0)
        return 0;
    if ((r = find(dev, pts, curve)) != NULL) {
        r->last_use = ++dev->resident_clock;
        *out = r;
        return 0;
    }
    uint64_t bytes = (uint64_t)pts->count * ops->affine_size;
    if (!make_room(api, dev, bytes))
        return 0;
    r = calloc(1, sizeof *r);
    if (!r) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory");
        return -1;
    }
    r->key = pts->key;
    r->owner = pts->owner;
    r->curve = curve;
    r->count = pts->count;
    r->point_size = ops->affine_size;
    r->slab_points = (size_t)(max_alloc / ops->affine_size);
    if (r->slab_points > 0x7fffffffu) /* the kernels' offsets are 32-bit */
        r->slab_points = 0x7fffffffu;
    if (r->slab_points == 0)
        r->slab_points = 1;
    r->nslabs = (unsigned)((pts->count + r->slab_points - 1) / r->slab_points);
    r->bytes = bytes;
    r->slabs = calloc(r->nslabs, sizeof(cl_mem));
    /* linked first, so that a failed upload is released like any other set */
    r->next = dev->resident;
    dev->resident = r;
    dev->resident_bytes += bytes;
    r->last_use = ++dev->resident_clock;
    if (!r->slabs) {
        snprintf(detail, CL_DETAIL_LEN, "out of host memory");
        cl_resident_remove(api, dev, r);
        return -1;
    }
    if (upload(rt, dev, curve, r, pts->host, &valid, detail) != 0 || !valid) {
        api->clFinish(dev->queue[0]);
        cl_resident_remove(api, dev, r);
        return valid ? -1 : 0;
    }
    *out = r;
    return 0;
}
