/*
 * cli_ntt.h: what the NTT commands share (host/cli/cli_ntt.c).
 */
#ifndef HOST_CLI_CLI_NTT_H
#define HOST_CLI_CLI_NTT_H

#include "cli.h"
#include "cli_faults.h"

/* One NTT of data in place: alone (hpr_ntt), or under mpirun across the ranks
 * (hpr_cluster_ntt: rank 0's data, report filled). A device that failed alone is one warning
 * line (faults may be NULL: not kept). 0, or the exit code after printing the error. */
int cli_run_ntt(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned char *data, const hpr_ntt_opts *opts,
                hpr_cluster_report *report, cli_faults *faults);

#endif
