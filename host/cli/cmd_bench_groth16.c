/*
 * cmd_bench_groth16.c: `hyprove bench groth16`, whole proofs timed per phase (median of R runs)
 * per device choice and precompute factor.
 *
 * Under mpirun (cli_mpi.h) each proof runs across the ranks: every rank maps the zkey from the
 * same path and makes its prover, rank 0 alone reads the witness, and
 * hpr_cluster_groth16_prove deals the five MSMs to the ranks.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_bench.h"
#include "cli_groth16.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_mpi.h"
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

static const char *bench_help =
    "usage: hyprove bench groth16 CIRCUIT.zkey WITNESS.wtns [--repeat R] [--devices D[,D...]]\n"
    "                             [--threads T] [--cpu-tier T] [--precompute F[,F...]]\n"
    "                             [--json FILE] [--progress]\n"
    "\n"
    "Times whole proofs (the witness file read, h, the five MSMs, the blinding): one warm-up,\n"
    "then R proofs (default 5) per device choice; prints the median of each phase and of the\n"
    "total, and the min total. The prover handle (the mapped zkey) is made once, as a proving\n"
    "server would. --devices: auto (default: the native CPU tiers and the GPUs, as groth16\n"
    "prove), cpu, all, cl:P.D, or several side by side (cpu,all).\n"
    "--threads T: CPU threads (default: all cores); --cpu-tier T: portable, adx, avx2 or\n"
    "avx512. --precompute F,..: the prover's sections precomputed F times\n"
    "(hpr_groth16_prover_precompute; 1: none), a run per factor and device choice, each with\n"
    "a prover of its own. --json FILE: also write a record per run as JSON (atomically; - is\n"
    "stdout, the table then goes to stderr): op groth16, curve, constraints_log_n, n_vars,\n"
    "n_public, device, cpu_tier, threads, repeat, precompute, setup_ms (the time to\n"
    "precompute), precomputed_bytes, total_median_ms, total_min_ms, phases (each\n"
    "phase's median_ms and devices), faults (the devices that failed in the proofs: device,\n"
    "error, tiles_failed, dropped). --progress: progress lines on stderr even when it is\n"
    "not a terminal. Under mpirun -np N (Open MPI builds) each proof runs across the N ranks\n"
    "(every rank reads the zkey, rank 0 the witness); rank 0 prints the times, the ranks and\n"
    "the bytes sent per proof, and the records carry ranks and bytes_sent.\n";



/* The witness for bench groth16: alone, its path (the library reads it for every proof, as
 * a server would); across ranks, rank 0's bytes (read once). */
typedef struct {
    const char *path;
    unsigned char *data;
    size_t len;
} bench_witness;

/* One proof, alone or across the ranks; *wall_s its time on this rank. */
static hpr_status prove_once(hpr_ctx *ctx, const hpr_groth16_prover *prover, const bench_witness *w,
                             hpr_groth16_proof *proof, hpr_cluster_report *report, double *wall_s)
{
    const hpr_cluster *cl = cli_cluster();
    double t0 = cli_now_seconds();
    hpr_status st = cl ? hpr_cluster_groth16_prove(ctx, cl, prover, w->data, w->len, proof, report)
                       : hpr_groth16_prove_file(ctx, prover, w->path, proof);
    *wall_s = cli_now_seconds() - t0;
    return st;
}

static int bench_one(hpr_ctx *ctx, const hpr_groth16_prover *prover, const bench_witness *wtns, unsigned repeat,
                     const char *device, double setup_s, cli_json *json)
{
    hpr_cluster_report cluster = {.struct_size = sizeof cluster};
    double wall_s = 0;
    double medians[HPR_G16_PHASES];
    double *runs = malloc((size_t)(repeat + 1) * HPR_G16_PHASES * sizeof *runs), *col = malloc(repeat * sizeof *col);
    double *totals = malloc(repeat * sizeof *totals);
    hpr_groth16_report report = {.struct_size = sizeof report};
    hpr_groth16_proof proof = {.struct_size = sizeof proof, .report = &report};
    hpr_groth16_report last = {.struct_size = sizeof last};
    cli_faults faults = {0};
    int rc = CLI_EXIT_OK;
    if ((rc = cli_cluster_agree(ctx, !runs || !col || !totals ? cli_error("out of memory") : 0)) != 0)
        goto out;
    for (unsigned k = 0; k <= repeat; k++) { /* run 0 warms up */
        hpr_status st = prove_once(ctx, prover, wtns, &proof, &cluster, &wall_s);
        if (st != HPR_OK) {
            rc = cli_status_error("proving", st, ctx);
            goto out;
        }
        cli_faults_after_proof(ctx, proof.report, &faults);
        if (k > 0) {
            for (int i = 0; i < HPR_G16_PHASES; i++)
                runs[(k - 1) * HPR_G16_PHASES + i] = proof.report->seconds[i];
            totals[k - 1] = cli_cluster() ? wall_s : proof.report->total_s; /* across ranks: rank 0's wall time */
        }
        last = *proof.report;
        hpr_groth16_proof_clear(&proof);
    }
    size_t pre_bytes = 0;
    unsigned f = hpr_groth16_prover_precomputed(prover, &pre_bytes);
    fprintf(cli_table, "device %s, median of %u proofs:\n", device, repeat);
    if (f > 1)
        fprintf(cli_table, "sections precomputed %u times: made in %.1f ms, %.1f MiB on the host\n", f, 1e3 * setup_s,
                (double)pre_bytes / 1048576.0);
    fprintf(cli_table, "%-12s %10s  %s\n", "phase", "time_ms", "devices (last run)");
    for (int i = 0; i < HPR_G16_PHASES; i++) {
        for (unsigned k = 0; k < repeat; k++)
            col[k] = runs[k * HPR_G16_PHASES + i];
        cli_stats phase;
        cli_stats_of(col, repeat, &phase);
        medians[i] = phase.median;
        fprintf(cli_table, "%-12s %10.2f  %s\n", cli_g16_phase_names[i], 1e3 * medians[i], last.devices[i]);
    }
    for (unsigned k = 0; k < repeat; k++)
        totals[k] *= 1e3; /* ms, as the other benches */
    cli_timing total;
    if ((rc = cli_timing_take(&total, totals, repeat, "bench groth16 on %s", device)) != 0)
        goto out;
    totals = NULL; /* total's now */
    fprintf(cli_table, "%-12s %10.2f  (min %.2f)\n", "total", total.stats.median, total.stats.min);
    if (cli_cluster()) {
        fprintf(cli_table, "ranks %u, bytes sent per proof %llu\n", cluster.ranks,
                (unsigned long long)cluster.bytes_sent);
        cli_cluster_print_report(stderr, &cluster);
    }
    cli_faults_print(cli_table, &faults, "device fault: ");
    fputs("\n", cli_table);
    if (json)
        cli_groth16_json_record(cli_json_record(json), prover, device, ctx, repeat, setup_s, medians,
                                total.stats.median * 1e-3, total.stats.min * 1e-3, &last, &faults,
                                cli_cluster() ? &cluster : NULL, &total);
    cli_timing_free(&total);
out:
    free(runs);
    free(col);
    free(totals);
    return rc;
}

/* hpr_groth16_prover_precompute(f) timed into *seconds (f = 1: nothing to do, exactly 0 s). */
static hpr_status timed_precompute(hpr_ctx *ctx, hpr_groth16_prover *prover, unsigned f, double *seconds)
{
    *seconds = 0;
    if (f <= 1)
        return HPR_OK;
    double t0 = cli_now_seconds();
    hpr_status st = hpr_groth16_prover_precompute(ctx, prover, f);
    *seconds = cli_now_seconds() - t0;
    return st;
}

int cmd_bench_groth16(int argc, char **argv)
{
    const char *devices_s = NULL, *threads_s = NULL, *tier = NULL, *repeat_s = NULL, *json_s = NULL, *pos[2];
    const char *precompute_s = NULL;
    const cli_opt opts[] = {CLI_OPT_LIST("--devices", &devices_s),    CLI_OPT("--threads", &threads_s),
                            CLI_OPT("--cpu-tier", &tier),             CLI_OPT("--repeat", &repeat_s),
                            CLI_OPT_LIST("--precompute", &precompute_s), CLI_OPT("--json", &json_s),
                            CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    cli_json j, *json = NULL;
    char devices[8][CLI_DEVICE_NAME_LEN];
    unsigned factors[8] = {1};
    size_t ndev = 1, nfactors = 1;
    unsigned repeat = 5;
    int npos;
    int rc = cli_parse_args(argc, argv, "bench groth16 ", bench_help, opts, sizeof opts / sizeof opts[0], pos, 2, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 2)
        return cli_usage_error("bench groth16 ", "expected CIRCUIT.zkey WITNESS.wtns");
    if ((rc = cli_parse_repeat("bench groth16 ", repeat_s, NULL, &repeat)) != 0)
        return rc;
    if (devices_s) {
        if (cli_parse_device_list(devices_s, 1, devices, 8, &ndev) != 0)
            return cli_usage_error("bench groth16 ", "--devices '%s': expected auto, cpu, all or cl:P.D, comma-separated",
                                   devices_s);
    } else {
        snprintf(devices[0], sizeof devices[0], "auto");
    }
    if (precompute_s && cli_parse_uint_list(precompute_s, 1, 16, factors, 8, &nfactors))
        return cli_usage_error("bench groth16 ", "--precompute '%s': expected at most 8 comma-separated factors in 1..16",
                               precompute_s);
    cli_table_for_output(json_s);
    if (!cli_cluster_leader())
        json_s = NULL; /* rank 0 writes the outputs */
    if (json_s && cli_json_begin(&j, json_s, "bench groth16", NULL) != 0)
        return cli_cluster_agree(NULL, CLI_EXIT_FAILURE);
    json = json_s ? &j : NULL;
    rc = 0;
    bench_witness wtns = {pos[1], NULL, 0};
    for (size_t run = 0; run < ndev * nfactors && rc == 0; run++) {
        const char *device = devices[run / nfactors];
        hpr_ctx *ctx = NULL;
        hpr_groth16_prover *prover = NULL;
        double setup_s = 0;
        rc = cli_ctx_from_options(device, threads_s, tier, "bench groth16 ", "groth16 prove", &ctx);
        hpr_status st = rc ? HPR_OK : hpr_groth16_prover_create(ctx, pos[0], &prover);
        if (st != HPR_OK)
            rc = cli_status_error("reading the proving key", st, ctx);
        if (!rc && (st = timed_precompute(ctx, prover, factors[run % nfactors], &setup_s)) != HPR_OK)
            rc = cli_status_error("precomputing the proving key's sections", st, ctx);
        if (!rc && cli_cluster() && cli_cluster_leader() && !wtns.data) /* across ranks: rank 0's bytes */
            rc = cli_read_file(pos[1], &wtns.data, &wtns.len);
        if ((rc = cli_cluster_agree(ctx, rc)) == 0) /* alone: rc */
            rc = bench_one(ctx, prover, &wtns, (unsigned)repeat, hpr_ctx_devices(ctx), setup_s,
                           json); /* the context's device set: for auto, what it chose */
        hpr_groth16_prover_destroy(prover);
        hpr_ctx_destroy(ctx);
    }
    free(wtns.data);
    if (json && rc)
        cli_json_abort(json);
    else if (json && cli_json_end(json) != 0)
        rc = CLI_EXIT_FAILURE;
    return rc;
}

