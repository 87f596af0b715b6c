/*
 * cl_msm.h: one MSM on one OpenCL device (kernels_cl/msm.cl), in chunks when the inputs
 * exceed what the device can allocate, with transfers overlapped with compute.
 */
#ifndef RUNTIME_OPENCL_CL_MSM_H
#define RUNTIME_OPENCL_CL_MSM_H

#include "runtime/base/rt_check.h"

#include "cl_device.h"
#include "kernels_cpu/msm_cpu.h"

typedef struct {
    int sorted;          /* 1: the sorted-bucket kernels (msm_sorted.cl), 0: owner-computes (msm.cl) */
    size_t chunk_points; /* points per chunk (the last may be shorter) */
    unsigned chunks;
    unsigned c, b0, b1, nwin, nseg; /* the device's window bits, over the bit slice [b0, b1) of the scalars
                                       in nwin windows (the last narrower); owner-computes: segments per
                                       chunk; sorted: bucket segments per window */
    size_t seg_len;         /* owner-computes: points per segment; sorted: entries per bucket-sum item */
} cl_msm_plan;

typedef enum {
    CL_MSM_OK = 0,
    CL_MSM_BAD_POINT = 1,
    CL_MSM_DEVICE_ERROR = -1,
    CL_MSM_UNSUPPORTED = -2 /* the sorted kernels cannot run on the device (work-group size): internal */
} cl_msm_result;

/* The kernel a device runs: HPR_CL_MSM (cl_options.msm_kernel) forces one, else the sorted
 * kernels on GPUs and owner-computes on CPU devices (measured on POCL: see cl_msm.c). */
enum { CL_MSM_KERNEL_AUTO = 0, CL_MSM_KERNEL_OWNER = 1, CL_MSM_KERNEL_SORTED = 2 };
int cl_msm_kernel_parse(const char *name); /* "owner", "sorted"; anything else (NULL too): AUTO */
int cl_msm_uses_sorted(const cl_dev *dev);

/* Plans an MSM of n points over the bit slice [b0, b1) of the scalars on dev (c = 0: the
 * device chooses its window) with the kernel cl_msm_uses_sorted picks. HPR_CL_MAX_ALLOC
 * (bytes, environment) lowers the device's max allocation, to exercise chunking in tests. */
void cl_msm_make_plan(cl_msm_plan *plan, const cl_dev *dev, const msm_curve_ops *ops, size_t n, unsigned c, unsigned b0,
                      unsigned b1);

/* The points of an MSM: the set's host bytes (interchange form, count points) and, where key
 * is not 0, the caller's unique key of the set, under which each device keeps it between
 * calls, uploaded and checked once (cl_resident.c); owner groups keys for cl_resident_drop.
 * validated: 1 when the host bytes were validated before and cannot have changed since (a
 * resident set, a prover's section after an MSM over it succeeded): the CPU's MSM does not
 * check them again. */
typedef struct {
    const unsigned char *host;
    size_t count;
    uint64_t key, owner;
    int validated;
} cl_points;

/*
 * out (interchange bytes) = sum scalars[i] * pts[first + i] for i < n on dev for curve id
 * `curve`, with the final window combination on the host through ops. Contracts: n >= 1,
 * first + n <= pts->count; scalars are canonical (< r, checked by the caller); points are in
 * the interchange form and are validated on the device: CL_MSM_BAD_POINT sets *bad_index
 * (the lowest invalid index, counted from first) and *bad_kind. CL_MSM_DEVICE_ERROR leaves
 * the failing call in detail. plan_out (may be NULL) receives the plan used.
 */
RT_MUST_CHECK cl_msm_result cl_msm(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const cl_points *pts,
                                   size_t first, const unsigned char *scalars, size_t n, unsigned c, unsigned char *out,
                                   size_t *bad_index, msm_point_check *bad_kind, cl_msm_plan *plan_out, char *detail);

/*
 * The part of that MSM in the bit slice [b0, b1) of the scalars, with Booth digits that carry
 * in b[b0 - 1] and carry out b[b1 - 1] (msm_booth_digit_at): out = 2^b0 * sum_i
 * (bits [b0, b1) of k_i + b[b0 - 1] - 2^(b1 - b0) b[b1 - 1]) * pts[first + i], in windows of
 * the device's own size. That is exactly what another device's Booth windows [w0, w1) of any
 * size c give for b0 = w0 c, b1 = w1 c: the pieces of a window grid shared with the CPU
 * (host/msm_hybrid.c), each device at its best window. Contracts as cl_msm; b0 < b1.
 */
RT_MUST_CHECK cl_msm_result cl_msm_slice(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops,
                                         const cl_points *pts, size_t first, const unsigned char *scalars, size_t n,
                                         unsigned b0, unsigned b1, unsigned char *out, size_t *bad_index,
                                         msm_point_check *bad_kind, char *detail);

/* cl_msm over pts[0, n) with the scalars already on dev: n canonical 32-byte little-endian
 * scalars (< r, the producer's contract) in the buffer scalars of dev's context, with no work
 * pending on dev's queues (the producer waited). Each chunk copies its scalars on the device:
 * nothing is sent for them. Contracts and results as cl_msm. */
RT_MUST_CHECK cl_msm_result cl_msm_device_scalars(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops,
                                                  const cl_points *pts, cl_mem scalars, size_t n, unsigned char *out,
                                                  size_t *bad_index, msm_point_check *bad_kind, char *detail);

/* The resident copy of pts on dev, uploaded and checked on first use; *out = NULL when the
 * set is not kept (key 0; larger than half the device's memory after the least recently used
 * sets are released; an invalid point: the chunks then upload and check as usual). 0, or -1
 * with detail on a device error. */
RT_MUST_CHECK int cl_resident_get(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const cl_points *pts,
                                  cl_resident **out, char *detail);

/* Known-answer checks before first use: field multiplications against expected products
 * and a small MSM against expected_msm (computed by the caller on the CPU). 0 passed, or
 * -1 with the reason in detail. */
RT_MUST_CHECK int cl_selftest_fp_mul(cl_runtime *rt, cl_dev *dev, int curve, const unsigned char *a, const unsigned char *b,
                       const unsigned char *expected, size_t count, size_t elem_size, char *detail);

/* Shared by the two kernels' host code (cl_msm.c, cl_msm_sorted.c). */
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
/* Sets k's arguments and enqueues it on q over `global` items (work-groups of `local`, 0:
 * the driver's choice). 0, or -1 with the failing call in detail. */
RT_MUST_CHECK int cl_msm_launch(const cl_api *api, cl_command_queue q, cl_kernel k, size_t global, size_t local,
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
