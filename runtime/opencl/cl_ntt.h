/*
 * cl_ntt.h: the NTT's layers on one OpenCL device (kernels_cl/ntt.cl). The host converts
 * elements, computes twiddles and scales (host/ntt_pipeline.c); the device runs the butterflies and
 * the bit reversals next to them, on the same twiddle table, so its results are the CPU's.
 */
#ifndef RUNTIME_OPENCL_CL_NTT_H
#define RUNTIME_OPENCL_CL_NTT_H

#include "runtime/base/rt_check.h"

#include "cl_device.h"

#include <stddef.h>

/* What the device does to one column a of n = 2^log_n internal-form elements of elem_bytes:
 * [bit reversal] then DIF (dit = 0) or DIT (dit = 1) layers over tw, then [bit reversal]. */
typedef struct {
    int field; /* hpr_field id */
    size_t elem_bytes;
    unsigned log_n;
    int dit, bitrev_before, bitrev_after;
} cl_ntt_job;

/* Runs job on each of columns columns (column-major, in place). 0, or -1 with the failing
 * call in detail (the data is then unspecified: the caller redoes it from its copy). */
RT_MUST_CHECK int cl_ntt_columns(cl_runtime *rt, cl_dev *dev, const cl_ntt_job *job, void *a, size_t columns, const void *tw,
                   char *detail);

#endif
