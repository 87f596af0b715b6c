/*
 * cli_msm.h: what the MSM commands share (host/cli/cli_msm.c).
 */
#ifndef HOST_CLI_CLI_MSM_H
#define HOST_CLI_CLI_MSM_H

#include "cli.h"
#include "cli_faults.h"

/* The group of the msm and bench msm commands (--group g1|g2; the CLI runs one command). */
extern hpr_group cli_msm_group;

/* --device: 0, or the exit code of a usage error naming cmd. */
int cli_msm_parse_device(const char *cmd, const char *s);

/* --group g1|g2 (NULL: g1) into cli_msm_group: 0, or the exit code of a usage error. */
int cli_msm_parse_group(const char *cmd, const char *s);

/* Runs one MSM over points, or over bases when not NULL (bench msm --resident); returns 0
 * or prints the error. A device failure that the CPU made good is a warning (once per
 * device) and goes to faults (may be NULL). Under a cluster: across the ranks (bases NULL),
 * the result on rank 0, what the call did in *report (may be NULL). */
int cli_run_msm(hpr_ctx *ctx, hpr_curve curve, const hpr_bases *bases, const void *points, const void *scalars,
                size_t n, unsigned window_bits, unsigned char *out, cli_faults *faults, hpr_cluster_report *report);

/* Random inputs of n points of cli_msm_group (malloc'd): 0, or the exit code after the error. */
int cli_msm_random_inputs(hpr_ctx *ctx, hpr_curve curve, size_t n, unsigned long long seed,
                          unsigned char **points, unsigned char **scalars);

#endif
