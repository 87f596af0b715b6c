/*
 * cl_msm_kernels.h: the private contract of the OpenCL MSM's host code, shared by cl_msm.c
 * (the driver), its two kernel families (cl_msm_common.c and cl_msm.c's owner-computes,
 * cl_msm_sorted.c's sorted buckets) and the point sets kept on devices (cl_resident.c). Not
 * for the library above runtime/opencl/: its face is cl_msm.h.
 */
#ifndef RUNTIME_OPENCL_CL_MSM_KERNELS_H
#define RUNTIME_OPENCL_CL_MSM_KERNELS_H

#include "cl_msm.h"

/* The resident copy of pts on dev, uploaded and checked on first use; *out = NULL when the
 * set is not kept (key 0; larger than half the device's memory after the least recently used
 * sets are released; an invalid point: the chunks then upload and check as usual). 0, or -1
 * with detail on a device error. */
RT_MUST_CHECK int cl_resident_get(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const msm_points *pts,
                                  cl_resident **out, char *detail);

typedef struct {
    cl_mem *mem;
    cl_mem_flags flags;
    size_t size;
} cl_msm_buffer;
/* Creates each buffer of want[0..count) in dev's context: 0, or -1 with the failing call in
 * detail (the buffers made so far are left for the caller to release). */
RT_MUST_CHECK int cl_msm_create_buffers(const cl_api *api, const cl_dev *dev, const cl_msm_buffer *want, size_t count,
                                        char *detail);
/* A kernel's arguments for cl_msm_launch: CL_ARG(x) each (x an lvalue), then CL_ARGS_END. */
typedef struct {
    size_t size;
    const void *value;
} cl_msm_karg;
#define CL_ARG(x) ((cl_msm_karg){sizeof(x), &(x)})
#define CL_ARGS_END ((cl_msm_karg){0, NULL})
/* Sets k's arguments and enqueues it on q over `count` items in work-groups of
 * cl_launch_group(dev, k) items: the global size is rounded up to whole groups, so the
 * kernel ignores items at or past count (every kernel launched so guards itself). 0, or -1
 * with the failing call in detail. */
RT_MUST_CHECK int cl_msm_launch(const cl_api *api, const cl_dev *dev, cl_command_queue q, cl_kernel k, size_t count,
                                const cl_msm_karg *args, char *detail);
/* The same with work-groups of exactly `local` items over `global` (a multiple of local):
 * for the kernels that share local memory within a group. */
RT_MUST_CHECK int cl_msm_launch_groups(const cl_api *api, cl_command_queue q, cl_kernel k, size_t global, size_t local,
                                       const cl_msm_karg *args, char *detail);
uint64_t cl_msm_max_alloc(const cl_dev *dev);
uint64_t cl_msm_bucket_budget(const cl_dev *dev);
/* One chunk of an MSM: points [begin, begin + m) counted from the MSM's first, read from a
 * resident slab (at slab_first) or, slab NULL, uploaded from the host bytes. */
typedef struct {
    cl_mem slab;
    cl_uint slab_first;
    size_t begin, m;
    const unsigned char *points, *scalars; /* scalars: NULL when they are on the device (scalar_mem) */
    cl_mem scalar_mem;                     /* the MSM's scalars on the device (at begin), or NULL */
} cl_msm_chunk;

/* Where an MSM's scalars are: host bytes, or a device buffer (host NULL). */
typedef struct {
    const unsigned char *host;
    cl_mem mem;
} cl_msm_scalars;

/* The chunk's scalars into dst on q (non-blocking): uploaded from the host, or copied on the
 * device from scalar_mem. 0, or -1 with detail. */
RT_MUST_CHECK int cl_msm_enqueue_scalars(const cl_api *api, cl_command_queue q, const cl_msm_chunk *ck, cl_mem dst,
                                         char *detail);

/* The host code of one kernel design: open makes its kernels and two sets of chunk buffers
 * (CL_MSM_UNSUPPORTED when the device cannot run it), enqueue puts one chunk on queue q
 * with buffer set `slot` without waiting (the window sums and the bad-point pair land in
 * host_sums and host_bad when the queue finishes), close releases what open made. */
typedef struct {
    int (*open)(const cl_api *api, const cl_dev *dev, cl_program prog, const cl_msm_plan *plan,
                const msm_curve_ops *ops, void **state, char *detail);
    int (*enqueue)(const cl_api *api, const cl_dev *dev, cl_command_queue q, void *state, unsigned slot,
                   const cl_msm_plan *plan, const msm_curve_ops *ops, const cl_msm_chunk *ck, void *host_sums,
                   cl_uint *host_bad, char *detail);
    void (*close)(const cl_api *api, void *state);
} cl_msm_family;
extern const cl_msm_family cl_msm_sorted_family;

/* 1 with the lowest invalid point (counted from the MSM's first) over the chunks' check
 * results, else 0. */
int cl_msm_find_bad_point(const cl_uint *bad, const cl_msm_chunk *chunks, unsigned count, size_t *index,
                          msm_point_check *kind);
/* out = 2^plan->b0 times the combination of the chunks' window sums (plan->chunks x
 * plan->nwin XYZZ, chunk order; window w at 2^(w c)). 0, or -1 when out of host memory. */
RT_MUST_CHECK int cl_msm_combine_chunks(const msm_curve_ops *ops, const cl_msm_plan *plan, const unsigned char *sums,
                                        unsigned char *out);
void cl_msm_sorted_plan(cl_msm_plan *plan, const cl_dev *dev, const msm_curve_ops *ops, size_t n, unsigned c,
                        unsigned b0, unsigned b1);
/* Windows of c bits that tile [b0, b1). */
unsigned cl_msm_slice_windows(unsigned b0, unsigned b1, unsigned c);

#endif
