/*
 * cli_groth16.h: what the CLI's Groth16 commands share (host/cli/cli_groth16.c).
 */
#ifndef HPR_CLI_GROTH16_H
#define HPR_CLI_GROTH16_H

#include "cli.h"
#include "cli_bench.h"
#include "cli_faults.h"

#include <stdio.h>

/* A proof's proof.json and public.json (as snarkjs writes them) as one group
 * (cli_output_commit_all): both written or neither; *human: where a report goes, stderr when
 * either file is stdout. 0, or CLI_EXIT_FAILURE after printing the error. */
int cli_groth16_write_outputs(const hpr_groth16_proof *proof, const char *proof_path, const char *public_path,
                              FILE **human);
/* The phases of a proof as tables name them. */
extern const char *const cli_g16_phase_names[HPR_G16_PHASES];

/* The phases' times and devices; under a phase that a device failed in, its faults; then the
 * devices that failed (none: no such line). */
void cli_groth16_print_report(const hpr_groth16_report *r, FILE *to);

/* The proof checked against the prover's key before anything is written: 0, or the exit code
 * after an error naming the devices that computed it. */
int cli_groth16_verify_before_writing(hpr_ctx *ctx, const hpr_groth16_prover *prover, const hpr_groth16_proof *proof);

/* The precompute factor of serve and prove-batch when --precompute is not given, chosen and
 * applied (hpr_groth16_prover_precompute): 2 where it pays (the context's devices the CPU
 * alone, and at least CLI_PRECOMPUTE_MIN_PROOFS proofs to spread its making over: measured at
 * 2^16 on a 2-core AMD EPYC, f = 2 saved 15 ms of a 262 ms proof (avx512) and 24 of 491 (adx)
 * and took 1.15 s and 4.9 s to make, so it pays after about 80 and 210 proofs; the ratio
 * holds at other sizes, both scale with n) and fits (the sections twice more beside a proof
 * within the memory limit, else within a quarter of the machine's memory), else 1. why: the
 * choice in words. 0, or the exit code after an error. */
#define CLI_PRECOMPUTE_MIN_PROOFS 256
int cli_groth16_default_precompute(hpr_ctx *ctx, hpr_groth16_prover *prover, size_t proofs, unsigned *factor,
                                   char *why, size_t len);

/* One JSON record of a proof (or of the medians of several: seconds[], total and min, and
 * totals: every run's total time, NULL for one proof). */
void cli_groth16_json_record(FILE *fp, const hpr_groth16_prover *prover, const char *device, hpr_ctx *ctx,
                             unsigned repeat, double setup_s, const double *seconds, double total_s,
                             double min_total_s, const hpr_groth16_report *last, const cli_faults *faults,
                             const hpr_cluster_report *cluster, const cli_timing *totals);

#endif
