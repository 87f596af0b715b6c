/*
 * cl_msm.h: one MSM on one OpenCL device (kernels_cl/msm.cl), in chunks when the inputs
 * exceed what the device can allocate, with transfers overlapped with compute. This is the
 * backend's face to the library; the contract between cl_msm.c and its two kernel families
 * (owner-computes, sorted buckets) and the resident point sets is cl_msm_kernels.h.
 */
#ifndef RUNTIME_OPENCL_CL_MSM_H
#define RUNTIME_OPENCL_CL_MSM_H

#include "runtime/base/rt_check.h"

#include "cl_device.h"
#include "arith/msm_ops.h"

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


/*
 * out (interchange bytes) = sum scalars[i] * pts[first + i] for i < n on dev for curve id
 * `curve`, with the final window combination on the host through ops. Contracts: n >= 1,
 * first + n <= pts->count; scalars are canonical (< r, checked by the caller); points are in
 * the interchange form and are validated on the device: CL_MSM_BAD_POINT sets *bad_index
 * (the lowest invalid index, counted from first) and *bad_kind. CL_MSM_DEVICE_ERROR leaves
 * the failing call in detail. plan_out (may be NULL) receives the plan used.
 */
RT_MUST_CHECK cl_msm_result cl_msm(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const msm_points *pts,
                                   size_t first, const unsigned char *scalars, size_t n, unsigned c, unsigned char *out,
                                   size_t *bad_index, msm_point_check *bad_kind, cl_msm_plan *plan_out, char *detail);

/*
 * The part of that MSM in the bit slice [b0, b1) of the scalars, with Booth digits that carry
 * in b[b0 - 1] and carry out b[b1 - 1] (msm_booth_digit_at): out = 2^b0 * sum_i
 * (bits [b0, b1) of k_i + b[b0 - 1] - 2^(b1 - b0) b[b1 - 1]) * pts[first + i], in windows of
 * the device's own size. That is exactly what another device's Booth windows [w0, w1) of any
 * size c give for b0 = w0 c, b1 = w1 c: the pieces of a window grid shared with the CPU
 * (host/msm/msm_hybrid.c), each device at its best window. Contracts as cl_msm; b0 < b1.
 */
RT_MUST_CHECK cl_msm_result cl_msm_slice(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops,
                                         const msm_points *pts, size_t first, const unsigned char *scalars, size_t n,
                                         unsigned b0, unsigned b1, unsigned char *out, size_t *bad_index,
                                         msm_point_check *bad_kind, char *detail);

/* cl_msm over pts[0, n) with the scalars already on dev: n canonical 32-byte little-endian
 * scalars (< r, the producer's contract) in the buffer scalars of dev's context, with no work
 * pending on dev's queues (the producer waited). Each chunk copies its scalars on the device:
 * nothing is sent for them. Contracts and results as cl_msm. */
RT_MUST_CHECK cl_msm_result cl_msm_device_scalars(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops,
                                                  const msm_points *pts, cl_mem scalars, size_t n, unsigned char *out,
                                                  size_t *bad_index, msm_point_check *bad_kind, char *detail);


/* Known-answer checks before first use: field multiplications against expected products
 * and a small MSM against expected_msm (computed by the caller on the CPU). 0 passed, or
 * -1 with the reason in detail. */
RT_MUST_CHECK int cl_selftest_fp_mul(cl_runtime *rt, cl_dev *dev, int curve, const unsigned char *a, const unsigned char *b,
                       const unsigned char *expected, size_t count, size_t elem_size, char *detail);

#endif
