/*
 * cli_ntt.c: what `ntt` (cmd_ntt.c) and `bench ntt` (cmd_bench_ntt.c) share (see cli_ntt.h).
 */
#include "cli_ntt.h"
#include "cli_mpi.h"

int cli_run_ntt(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned char *data, const hpr_ntt_opts *opts,
                hpr_cluster_report *report, cli_faults *faults)
{
    const hpr_cluster *cl = cli_cluster();
    if (report) /* a record's member: sized here, where the call is made */
        report->struct_size = sizeof *report;
    hpr_status st = cl ? hpr_cluster_ntt(ctx, cl, field, log_n, cli_cluster_leader() ? data : NULL, opts, report)
                       : hpr_ntt(ctx, field, log_n, data, opts);
    if (st != HPR_OK)
        return cli_status_error("ntt", st, ctx);
    if (!cl)
        cli_faults_after_call(ctx, faults); /* a device that failed: one warning line */
    return 0;
}
