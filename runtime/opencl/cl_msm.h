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
    size_t chunk_points; /* points per chunk (the last may be shorter) */
    unsigned chunks;
    unsigned c, w_begin, nwin, nseg; /* window bits, first window and windows computed, segments per chunk */
    size_t seg_len;         /* points per segment */
} cl_msm_plan;

typedef enum { CL_MSM_OK = 0, CL_MSM_BAD_POINT = 1, CL_MSM_DEVICE_ERROR = -1 } cl_msm_result;

/* Plans an MSM of n points on dev (c = 0: chosen). HPR_CL_MAX_ALLOC (bytes, environment)
 * lowers the device's max allocation, to exercise chunking in tests. */
void cl_msm_make_plan(cl_msm_plan *plan, const cl_dev *dev, const msm_curve_ops *ops, size_t n, unsigned c);

/*
 * out (interchange bytes) = sum scalars[i] * points[i] on dev for curve id `curve`, with the
 * final window combination on the host through ops. Contracts: n >= 1; scalars are canonical
 * (< r, checked by the caller); points are in the interchange form and are validated on the
 * device: CL_MSM_BAD_POINT sets *bad_index (the lowest invalid index) and *bad_kind.
 * CL_MSM_DEVICE_ERROR leaves the failing call in detail. plan_out (may be NULL) receives the
 * plan used.
 */
RT_MUST_CHECK cl_msm_result cl_msm(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops, const unsigned char *points,
                     const unsigned char *scalars, size_t n, unsigned c, unsigned char *out, size_t *bad_index,
                     msm_point_check *bad_kind, cl_msm_plan *plan_out, char *detail);

/*
 * The part of that MSM in windows [w_begin, w_end) of c bits (Booth digits, msm_impl.h):
 * out = sum over those windows w of 2^(c w) * sum_i d_w(scalars[i]) * points[i]. The pieces
 * of a window grid shared with the CPU (host/msm_hybrid.c). Contracts as cl_msm; c >= 1 and
 * w_begin < w_end <= msm_window_count(scalar bits, c).
 */
RT_MUST_CHECK cl_msm_result cl_msm_windows(cl_runtime *rt, cl_dev *dev, int curve, const msm_curve_ops *ops,
                             const unsigned char *points, const unsigned char *scalars, size_t n, unsigned c,
                             unsigned w_begin, unsigned w_end, unsigned char *out, size_t *bad_index,
                             msm_point_check *bad_kind, char *detail);

/* Known-answer checks before first use: field multiplications against expected products
 * and a small MSM against expected_msm (computed by the caller on the CPU). 0 passed, or
 * -1 with the reason in detail. */
RT_MUST_CHECK int cl_selftest_fp_mul(cl_runtime *rt, cl_dev *dev, int curve, const unsigned char *a, const unsigned char *b,
                       const unsigned char *expected, size_t count, size_t elem_size, char *detail);

#endif
