/*
 * cli_msm.c: what `msm` (cmd_msm.c) and `bench msm` with the main job (cmd_bench_msm.c)
 * share (see cli_msm.h).
 */
#include "cli_msm.h"
#include "cli_mpi.h"

#include <stdlib.h>
#include <string.h>

/* The group of the msm and bench msm commands (--group g1|g2; the CLI runs one command). */
hpr_group cli_msm_group = HPR_G1;

int cli_msm_parse_device(const char *cmd, const char *s)
{
    if (cli_parse_device(s, 1) == 0)
        return 0;
    return cli_usage_error(cmd, "unknown device '%s' (expected auto, cpu, all or cl:P.D)", s);
}

int cli_msm_parse_group(const char *cmd, const char *s)
{
    if (!s || strcmp(s, "g1") == 0)
        cli_msm_group = HPR_G1;
    else if (strcmp(s, "g2") == 0)
        cli_msm_group = HPR_G2;
    else
        return cli_usage_error(cmd, "--group '%s': expected g1 or g2", s);
    return 0;
}

/* Runs one MSM over points, or over bases when not NULL (bench msm --resident); returns 0
 * or prints the error. A device failure that the CPU made good is a warning (once per
 * device) and goes to faults (may be NULL). Under a cluster: across the ranks (bases NULL),
 * the result on rank 0, what the call did in *report (may be NULL). */
int cli_run_msm(hpr_ctx *ctx, hpr_curve curve, const hpr_bases *bases, const void *points, const void *scalars,
                size_t n, unsigned window_bits, unsigned char *out, cli_faults *faults, hpr_cluster_report *report)
{
    hpr_msm_opts opts = {sizeof opts, window_bits, 0, 0, NULL};
    const hpr_cluster *cl = cli_cluster();
    if (report) /* a record's member: sized here, where the call is made */
        report->struct_size = sizeof *report;
    hpr_status st = cl      ? hpr_cluster_msm(ctx, cl, curve, cli_msm_group, points, scalars, n, out, &opts, report)
                    : bases ? hpr_msm_bases(ctx, bases, scalars, n, out, &opts)
                            : hpr_msm_ex(ctx, curve, cli_msm_group, points, scalars, n, out, &opts);
    if (st == HPR_OK)
        cli_faults_after_call(ctx, faults);
    return st == HPR_OK ? 0 : cli_status_error("msm", st, ctx);
}

/* Random inputs of 2^log_n points. */
int cli_msm_random_inputs(hpr_ctx *ctx, hpr_curve curve, size_t n, unsigned long long seed,
                          unsigned char **points, unsigned char **scalars)
{
    size_t ps = hpr_point_size(curve, cli_msm_group);
    *points = malloc(n * ps);
    *scalars = malloc(n * HPR_SCALAR_SIZE);
    if (!*points || !*scalars)
        return cli_error("cannot allocate %zu random inputs", n);
    hpr_status st = hpr_random_msm_inputs(ctx, curve, cli_msm_group, n, seed, *points, *scalars);
    return st == HPR_OK ? 0 : cli_status_error("generating inputs", st, ctx);
}
