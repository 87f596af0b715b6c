/*
 * groth16.h: the Groth16 prover's internals (host/groth16.c) that tests reach: the proof
 * with chosen r and s (r = s = 0 reproduces the fixtures' proof_r0s0.json) and the zkey a
 * prover holds. Internal to the library: users get r and s from the OS's CSPRNG only.
 */
#ifndef HPR_GROTH16_H
#define HPR_GROTH16_H

#include "zkey.h"

const hpr_zkey *hpr_groth16_prover_zkey(const hpr_groth16_prover *prover);

/* One MSM of the proof: the phase it is (HPR_G16_MSM_A .. HPR_G16_MSM_H), its group, inputs
 * and output (interchange form). */
typedef struct {
    hpr_groth16_phase phase;
    hpr_group group;
    const unsigned char *points, *scalars;
    size_t n;
    unsigned char *out;
} g16_msm;

enum { G16_MSMS = 5 }; /* A, B1, B2, C, H: msm[phase - HPR_G16_MSM_A] */

/* The work of one proof before the blinding: the h scalars (into h) and the five MSMs. */
typedef struct {
    const hpr_zkey *zk;
    const unsigned char *w;
    unsigned char *h;
    g16_msm msm[G16_MSMS];
} g16_work;

/* The MSM m on the CPU, or on device (NULL: the context's default; G2: always the CPU),
 * with an error detail naming the MSM. */
hpr_status hpr_groth16_run_msm(hpr_ctx *ctx, hpr_curve curve, const g16_msm *m, const char *device);

/* The proof's work as one task graph over the CPU and the OpenCL devices devs[0..ndev)
 * (picked and ready for the curve; host/groth16_graph.c): h on the CPU, then the H MSM; the
 * G2 MSM on the CPU; the G1 MSMs on whichever device is free, an OpenCL device taking the
 * largest. A failing device's MSM is redone on the CPU and named in notices (len bytes). Fills
 * the report's phases (times overlap; devices: the one that computed each). */
hpr_status hpr_groth16_graph(hpr_ctx *ctx, g16_work *work, cl_dev **devs, unsigned ndev, hpr_groth16_report *report,
                             char *notices, size_t len);

/* The proof of the witness values w (n_vars canonical 32-byte scalars, checked below r by
 * hpr_wtns_parse) with the blinding scalars r and s (canonical, < r). */
hpr_status hpr_groth16_prove_values(hpr_ctx *ctx, const hpr_groth16_prover *prover, const unsigned char *w,
                                    const unsigned char *r, const unsigned char *s, hpr_groth16_proof *proof);

#endif
