/*
 * cl_ntt.h: the NTT's layers on one OpenCL device (kernels_cl/ntt.cl). The host converts
 * elements, computes twiddles and scales (host/ntt/ntt_pipeline.c); the device runs the butterflies and
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

/* ---- columns kept on one device between transforms (the Groth16 prover's a, b, c) ---- */

typedef struct cl_ntt_cols cl_ntt_cols;

/* a_i *= c s^i over each column of 2^log_n, given as the tables hi[j] = c s^(j 2^lo_bits)
 * (2^(log_n - lo_bits) elements) and lo[j] = s^j (2^lo_bits elements), internal form;
 * lo_bits <= log_n. */
typedef struct {
    const void *hi, *lo;
    unsigned lo_bits;
} cl_ntt_scale;

/* Whether columns of 2^log_n elements, twice (the bit reversal's copy), a column of results
 * and the twiddle tables the device may keep (CL_TWIDDLE_SLOTS) fit on dev (each buffer
 * within its largest allocation, all within half its memory): the caller keeps them on the
 * host otherwise. */
int cl_ntt_cols_fit(const cl_dev *dev, size_t elem_bytes, unsigned log_n, size_t columns);

/* Uploads `columns` columns of 2^log_n internal-form elements of field (column-major) at a
 * to dev (counted in dev->bytes_sent) into *out. 0, or -1 with the failing call in detail. */
RT_MUST_CHECK int cl_ntt_cols_upload(cl_runtime *rt, cl_dev *dev, int field, size_t elem_bytes, unsigned log_n,
                                     const void *a, size_t columns, cl_ntt_cols **out, char *detail);

/* On every column: [before] then job (its log_n and field the columns') over the twiddles tw
 * (2^log_n elements, as cl_ntt_columns takes them) then [after] (NULL: no scaling). The
 * device keeps the table under tw_key (the field, size, direction and generator it is made
 * for) and sends it again only when it has let it go. Waits for the device. 0, or -1 with
 * detail (the columns are then unspecified). */
RT_MUST_CHECK int cl_ntt_cols_transform(cl_runtime *rt, cl_ntt_cols *cols, const cl_ntt_job *job, const void *tw,
                                        const cl_twiddle_key *tw_key, const cl_ntt_scale *before,
                                        const cl_ntt_scale *after, char *detail);

/* *out = a new buffer of 2^log_n canonical 32-byte little-endian elements, a b - c over the
 * first three columns (BN254 Fr, BLS12-381 Fr; Montgomery in), the caller's to release.
 * Waits for the device. 0, or -1 with detail (*out NULL). */
RT_MUST_CHECK int cl_ntt_cols_mul_sub(cl_runtime *rt, cl_ntt_cols *cols, cl_mem *out, char *detail);

/* Releases the columns' buffers and kernels (NULL: nothing). */
void cl_ntt_cols_release(cl_runtime *rt, cl_ntt_cols *cols);

#endif
