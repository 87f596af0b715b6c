/*
 * poseidon2_params.h: one Poseidon2 instance's parameters as the host holds them (host C only,
 * not OpenCL C): the CPU kernels (kernels_cpu/poseidon2_cpu.h) compute with them and the
 * OpenCL backend (runtime/opencl/cl_poseidon2.h) uploads them, so the type lives below both.
 * The instances and their constants are made by kernels_cpu/poseidon2_cpu.c (p2_params_get).
 */
#ifndef ARITH_POSEIDON2_PARAMS_H
#define ARITH_POSEIDON2_PARAMS_H

#include <stdint.h>

#define P2_DIGEST 8 /* elements of a digest */

typedef enum { P2_KOALABEAR_16 = 0, P2_KOALABEAR_24, P2_BABYBEAR_16, P2_INSTANCES } p2_instance_id;

/* One instance, its constants in Montgomery form (R = 2^32) for the kernels. */
typedef struct {
    const char *name;          /* "koalabear-16", "koalabear-24", "babybear-16" */
    unsigned width;            /* 16 or 24 */
    unsigned rounds_f;         /* external rounds, half at the start and half at the end (8) */
    unsigned rounds_p;         /* internal rounds (KoalaBear 20 / 23, BabyBear 13) */
    unsigned sbox_degree;      /* 3 (KoalaBear) or 7 (BabyBear) */
    uint32_t p, pinv, r2;      /* modulus, -p^-1 mod 2^32, 2^64 mod p */
    const uint32_t *rc_ext;    /* rounds_f * width: the initial rounds' rows, then the final ones */
    const uint32_t *rc_int;    /* rounds_p */
    const uint32_t *diag;      /* width: V of the internal matrix 1 + Diag(V) (1 = all ones) */
} p2_params;

#endif
