/*
 * resident.h: the keys under which OpenCL devices keep point sets between calls
 * (runtime/opencl/cl_resident.c), and the live hpr_bases of a context. Below everything that
 * computes an MSM (host/msm/msm.c, msm_hybrid.c, groth16_*.c, bases.c) and the context itself.
 */
#ifndef HOST_RESIDENT_H
#define HOST_RESIDENT_H

#include "host/core/context.h"
#include "kernels_cpu/msm_cpu.h"

struct hpr_bases {
    hpr_ctx *ctx; /* NULL once the context is gone */
    hpr_curve curve;
    hpr_group group;
    size_t n;
    unsigned char *points; /* the set's own copy, validated; precomputed: point i's f multiples at i * f + j */
    unsigned precompute;   /* f: 1 (none), or the slices of each scalar (host/msm/bases.c) */
    unsigned slice_bits;   /* s, with precompute: points[i * f + j] = 2^(j s) P_i */
    msm_curve_ops sliced;  /* with precompute: the table of (curve, group) with scalar_bits s - 1 */
    uint64_t key;
    hpr_bases *next; /* the context's list */
};

/* ---- host/msm/bases.c, for the Groth16 prover's precomputed sections too ---- */

#define BASES_MAX_PRECOMPUTE 16

/* The first invalid point of the n points (interchange form), named by its index as an MSM
 * names it (msm_point_error). */
RT_MUST_CHECK hpr_status bases_validate(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *points, size_t n);
/* s for factor f (1..BASES_MAX_PRECOMPUTE): ceil((bits(r) + 2) / f). */
unsigned bases_slice_bits(const msm_curve_ops *ops, unsigned f);
/* ops with scalar_bits = s - 1: the table of an MSM over the s-bit slices. */
msm_curve_ops bases_sliced_ops(const msm_curve_ops *ops, unsigned f);
/* *out = the n validated points precomputed f times (malloc'd; point i's multiples
 * 2^(j s) P_i at i * f + j, s = bases_slice_bits), made on ctx's pool. HPR_ERR_OUT_OF_MEMORY. */
RT_MUST_CHECK hpr_status bases_expand(hpr_ctx *ctx, const msm_curve_ops *ops, const unsigned char *points, size_t n,
                                      unsigned f, unsigned char **out);
/* slices[i * f + j] = the j-th signed s-bit slice of scalars[i] (canonical, < r; 32 bytes
 * each, s-bit two's complement), on ctx's pool. */
void bases_slice(hpr_ctx *ctx, const unsigned char *scalars, size_t n, unsigned f, unsigned s, unsigned char *slices);

/* A fresh key for a point set kept on devices: unique for the process's life, never 0;
 * count consecutive keys from the one returned are reserved. */
uint64_t ctx_new_resident_keys(unsigned count);
/* Releases on every OpenCL device of ctx the point sets of owner (0: none). */
void ctx_drop_resident(hpr_ctx *ctx, uint64_t owner);
/* Detaches the live bases of ctx before it is destroyed: they then belong to no context. */
void bases_detach_all(hpr_ctx *ctx);

#endif
