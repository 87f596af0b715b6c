/*
 * resident.h: the keys under which OpenCL devices keep point sets between calls
 * (runtime/opencl/cl_resident.c), and the live hpr_bases of a context. Below everything that
 * computes an MSM (host/msm.c, msm_hybrid.c, groth16_*.c, bases.c) and the context itself.
 */
#ifndef HOST_RESIDENT_H
#define HOST_RESIDENT_H

#include "context.h"
#include "kernels_cpu/msm_cpu.h"

struct hpr_bases {
    hpr_ctx *ctx; /* NULL once the context is gone */
    hpr_curve curve;
    hpr_group group;
    size_t n;
    unsigned char *points; /* the set's own copy, validated; precomputed: point i's f multiples at i * f + j */
    unsigned precompute;   /* f: 1 (none), or the slices of each scalar (host/bases.c) */
    unsigned slice_bits;   /* s, with precompute: points[i * f + j] = 2^(j s) P_i */
    msm_curve_ops sliced;  /* with precompute: the table of (curve, group) with scalar_bits s - 1 */
    uint64_t key;
    hpr_bases *next; /* the context's list */
};

/* A fresh key for a point set kept on devices: unique for the process's life, never 0;
 * count consecutive keys from the one returned are reserved. */
uint64_t ctx_new_resident_keys(unsigned count);
/* Releases on every OpenCL device of ctx the point sets of owner (0: none). */
void ctx_drop_resident(hpr_ctx *ctx, uint64_t owner);
/* Detaches the live bases of ctx before it is destroyed: they then belong to no context. */
void bases_detach_all(hpr_ctx *ctx);

#endif
