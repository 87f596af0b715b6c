/*
 * msm_ops.h: what the library's host code knows of a curve group for an MSM (host C only, not
 * OpenCL C): the table of its host arithmetic (msm_curve_ops, one per curve and group, filled
 * by kernels_cpu/msm_cpu.c), the point checks, and the set of points an MSM runs over
 * (msm_points). The CPU kernels (kernels_cpu/), the OpenCL backend's host code
 * (runtime/opencl/) and the library (host/) all take them, so they live below all three.
 */
#ifndef ARITH_MSM_OPS_H
#define ARITH_MSM_OPS_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    MSM_POINT_OK = 0,
    MSM_POINT_COORD_RANGE,
    MSM_POINT_NOT_ON_CURVE,
    MSM_POINT_NOT_IN_SUBGROUP
} msm_point_check;

/* The largest affine point (BLS12-381 G2: two Fq2 coordinates of 96 bytes) and XYZZ point. */
#define MSM_MAX_AFFINE_BYTES 192
#define MSM_MAX_XYZZ_BYTES 384

struct msm_cpu_tiers; /* the CPU tiers' tile kernels: kernels_cpu/msm_cpu.h */

typedef struct {
    const char *name;
    size_t field_bytes;   /* bytes of one coordinate (G2: an Fq2 element, c0 then c1) */
    unsigned degree;      /* 1 (G1: coordinates in Fp) or 2 (G2: in Fq2) */
    size_t affine_size;   /* sizeof the affine struct (== 2 * field_bytes: the interchange form) */
    size_t xyzz_size;     /* sizeof the XYZZ struct */
    unsigned scalar_bits; /* bit length of the group order r */
    const uint64_t *order; /* r, 4 limbs */

    /* the CPU tiers' tile kernels (kernels_cpu/msm_cpu.h; msm_kernel_for picks one) */
    const struct msm_cpu_tiers *tiers;
    /* acc = sum of points[index[i]] for i in [begin, end) */
    void (*sum_points)(void *acc, const void *points, const uint32_t *index, size_t begin, size_t end);
    void (*xyzz_set_inf)(void *p);
    void (*xyzz_add)(void *r, const void *a, const void *b);
    void (*combine_windows)(void *r, const void *sums, unsigned nwindows, unsigned c);
    /* Interchange bytes -> affine, with range and on-curve checks (no subgroup check). */
    msm_point_check (*decode_point)(void *affine, const unsigned char *bytes);
    /* XYZZ -> interchange bytes of the affine point (all zero for infinity). */
    void (*encode_xyzz)(unsigned char *bytes, const void *xyzz);
    /* Affine (validated) <-> canonical coordinate limbs (field_bytes / 8 limbs each). */
    void (*affine_to_canonical)(uint64_t *x, uint64_t *y, const void *affine);
    msm_point_check (*affine_from_canonical)(void *affine, const uint64_t *x, const uint64_t *y);
    /* 1 if the (validated) affine point is in the prime-order subgroup. Costs a scalar mul. */
    int (*in_subgroup)(const void *affine);
    /* r = a * b in the base field (Montgomery, reduced): the known answers of device self-tests. */
    void (*fp_mul)(void *r, const void *a, const void *b);
} msm_curve_ops;

/* The points of an MSM: the set's host bytes (interchange form, count points) and, where key
 * is not 0, the caller's unique key of the set, under which each device keeps it between
 * calls, uploaded and checked once (runtime/opencl/cl_resident.c); owner groups keys for cl_resident_drop.
 * validated: 1 when the host bytes were validated before and cannot have changed since (a
 * resident set, a prover's section after an MSM over it succeeded): the CPU's MSM does not
 * check them again. */
typedef struct {
    const unsigned char *host;
    size_t count;
    uint64_t key, owner;
    int validated;
} msm_points;

#endif
