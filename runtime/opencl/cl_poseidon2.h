/*
 * cl_poseidon2.h: the Poseidon2 kernels of kernels_cpu/poseidon2_cpu.h on one OpenCL device
 * (kernels_cl/poseidon2.cl, the permutation of arith/poseidon2.h that the CPU's portable tier
 * runs too): permutations, leaf digests of matrix rows (Plonky3's padding-free sponge) and
 * 2-to-1 compressions, one work-item per state, row or node. The results are the CPU
 * kernels' bit for bit.
 *
 * Contracts (as the CPU kernels'): every element in and out is canonical (< p), checked by the
 * callers; prm comes from p2_params_get; compress takes a width-16 instance; the host arrays
 * may be of any size: the work is cut into chunks within the device's buffer limits. Each
 * call returns 0, or -1 with the failing OpenCL call (or the build log) in detail
 * (CL_DETAIL_LEN bytes); the outputs are then unspecified, and the caller redoes the work on
 * the CPU from its own copy (permute: from a copy of states made before the call).
 */
#ifndef RUNTIME_OPENCL_CL_POSEIDON2_H
#define RUNTIME_OPENCL_CL_POSEIDON2_H

#include "arith/poseidon2_params.h"
#include "runtime/base/rt_check.h"

#include "cl_device.h"

#include <stddef.h>
#include <stdint.h>

/* count permutations in place: states holds count * prm->width elements, state after state. */
RT_MUST_CHECK int cl_p2_permute(cl_runtime *rt, cl_dev *dev, const p2_params *prm, uint32_t *states, size_t count,
                                char *detail);

/* The leaf digests of rows [row0, row0 + nrows) of a column-major matrix of ncols columns
 * (element (r, c) at cols[c * stride + r]): out[(r - row0) * 8 + k], as p2_kernels.hash_rows.
 * Only those rows of each column travel to the device. */
RT_MUST_CHECK int cl_p2_hash_rows(cl_runtime *rt, cl_dev *dev, const p2_params *prm, const uint32_t *cols,
                                  size_t stride, size_t ncols, size_t row0, size_t nrows, uint32_t *out, char *detail);

/* count 2-to-1 compressions (width 16): out[i] = perm(in[2i] || in[2i + 1])[0..8), digests of
 * 8 elements; in and out do not overlap. */
RT_MUST_CHECK int cl_p2_compress(cl_runtime *rt, cl_dev *dev, const p2_params *prm, const uint32_t *in, uint32_t *out,
                                 size_t count, char *detail);

#endif
