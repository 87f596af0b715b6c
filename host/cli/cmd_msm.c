/*
 * cmd_msm.c: `hyprove msm`, one MSM of files or random inputs; `hyprove bench msm` and the
 * main job are cmd_bench_msm.c.
 *
 * Under mpirun (cli_mpi.h) msm and bench msm run across the ranks: every rank reads (or makes
 * from the seed) the same points and scalars, the ranks agree that each has them
 * (cli_cluster_agree: one rank's unreadable file ends the job with one error on rank 0), and
 * each MSM is hpr_cluster_msm, its result on rank 0. Every collective call is made by every
 * rank in the same order: a decision that only rank 0 can make (a run that differs from the
 * warm-up) is joined at the end of the measurement rather than taken at once.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_bench.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_mpi.h"
#include "cli_msm.h"
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LOG_N 26

static const char *msm_help =
    "usage: hyprove msm --curve bn254|bls12-381 (--points FILE --scalars FILE | --log-n N [--seed S])\n"
    "                   [--threads T] [--device auto|cpu|all|cl:P.D] [--window-bits C] [--group g1|g2] [--out FILE]\n"
    "                   [--cpu-tier T] [--progress]\n"
    "\n"
    "Computes sum_i scalars[i] * points[i] on G1 (or G2) and prints the affine result as snarkjs JSON\n"
    "([\"x\",\"y\",\"1\"] in decimal, [\"0\",\"1\",\"0\"] for infinity) to FILE or stdout; the time goes\n"
    "to stderr.\n"
    "  --points FILE   n points back to back: x then y, Montgomery form, little-endian\n"
    "                  (32-byte coordinates for bn254, 48 for bls12-381); infinity = all zero\n"
    "  --scalars FILE  n scalars back to back: 32 bytes each, canonical little-endian, < r\n"
    "                  (n >= 1: an empty file is refused; a FILE may be - (stdin) or a FIFO,\n"
    "                  read to its end, at most 4 GiB; devices and directories are refused)\n"
    "  --log-n N       instead of files: 2^N random valid inputs (N <= 26) from --seed (default 1)\n"
    "  --threads T     CPU threads (default: all cores)\n"
    "  --device D      auto (default: the native CPU tiers and the GPUs, split by measured\n"
    "                  throughput; an OpenCL CPU device only where calibrated to help), all\n"
    "                  (every usable device), cpu, or an OpenCL device cl:P.D ('hyprove\n"
    "                  devices' lists them).\n"
    "                  A failing OpenCL device is reported (one warning line on stderr naming\n"
    "                  it and the error) and its work redone on the CPU: the result is exact.\n"
    "  --window-bits C Pippenger window size, 1..20 (default: chosen from n)\n"
    "  --group G       g1 (default) or g2 (points of 128 bytes for bn254, 192 for bls12-381:\n"
    "                  x.c0, x.c1, y.c0, y.c1)\n"
    "  --out FILE      write the result to FILE (atomically; - is stdout) instead of stdout\n"
    "  --cpu-tier T    CPU kernel tier: portable, adx, avx2, avx512 or neon (default: HPR_CPU, else\n"
    "                  the fastest this processor can run)\n"
    "  --progress      progress lines on stderr even when it is not a terminal\n"
    "Under mpirun -np N (Open MPI builds) the MSM runs across the N ranks: every rank reads the\n"
    "same --points and --scalars paths (or makes the same random inputs), rank 0 writes the\n"
    "result; stderr's line adds the ranks and the bytes they sent.\n";

static int load_inputs(hpr_curve curve, const char *ppath, const char *spath, unsigned char **points,
                       unsigned char **scalars, size_t *n)
{
    size_t plen, slen, ps = hpr_point_size(curve, cli_msm_group);
    if (cli_read_file(ppath, points, &plen) || cli_read_file(spath, scalars, &slen))
        return CLI_EXIT_FAILURE;
    if (plen % ps)
        return cli_error("'%s': %zu bytes is not a whole number of %s %s points (%zu bytes each)", ppath, plen,
                         cli_curve_name(curve), cli_msm_group == HPR_G2 ? "G2" : "G1", ps);
    if (slen % HPR_SCALAR_SIZE)
        return cli_error("'%s': %zu bytes is not a whole number of 32-byte scalars", spath, slen);
    if (plen / ps != slen / HPR_SCALAR_SIZE)
        return cli_error("'%s' holds %zu points but '%s' holds %zu scalars", ppath, plen / ps, spath,
                         slen / HPR_SCALAR_SIZE);
    *n = plen / ps;
    return 0;
}

/* Writes the result to o (opened once the result exists, so that a file is never made or
 * emptied for a computation that fails) or to stdout when o is NULL. */
static int write_point_json(hpr_curve curve, const unsigned char *point, cli_output *o)
{
    char json[512];
    hpr_status st = hpr_point_to_json(curve, cli_msm_group, point, json, sizeof json);
    if (st != HPR_OK)
        return cli_status_error("formatting the result", st, NULL);
    if (!o) {
        printf("%s\n", json);
        return fflush(stdout) == 0 ? 0 : cli_error("cannot write to stdout");
    }
    fprintf(o->fp, "%s\n", json);
    return cli_output_commit(o) == 0 ? 0 : CLI_EXIT_FAILURE;
}

int cmd_msm(int argc, char **argv)
{
    const char *curve_s = NULL, *ppath = NULL, *spath = NULL, *out_path = NULL, *device = NULL;
    const char *log_n_s = NULL, *seed_s = NULL, *threads_s = NULL, *wb_s = NULL, *group_s = NULL, *tier_s = NULL;
    unsigned long long log_n = 0, seed = 1, wb = 0;
    unsigned threads = 0;
    unsigned char *points = NULL, *scalars = NULL, result[192];
    hpr_ctx *ctx = NULL;
    hpr_curve curve;
    hpr_cluster_report report = {.struct_size = sizeof report};
    cli_output out = {0};
    size_t n = 0;
    int rc = CLI_EXIT_USAGE;
    cli_opt opts[] = {CLI_OPT("--curve", &curve_s),   CLI_OPT("--points", &ppath),  CLI_OPT("--scalars", &spath),
                      CLI_OPT("--out", &out_path),    CLI_OPT("--log-n", &log_n_s), CLI_OPT("--seed", &seed_s),
                      CLI_OPT("--threads", &threads_s), CLI_OPT("--device", &device), CLI_OPT("--window-bits", &wb_s),
                      CLI_OPT("--group", &group_s), CLI_OPT("--cpu-tier", &tier_s),
                      CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    int parsed = cli_parse_options(argc, argv, "msm ", msm_help, opts, sizeof opts / sizeof opts[0]);
    if (parsed >= 0)
        return parsed;
    if (!curve_s)
        return cli_usage_error("msm ", "--curve is required");
    if (cli_msm_parse_group("msm ", group_s) != 0)
        return CLI_EXIT_USAGE;
    if (cli_parse_curve(curve_s, &curve))
        return cli_usage_error("msm ", "unknown curve '%s' (expected bn254 or bls12-381)", curve_s);
    if (!log_n_s && !(ppath && spath))
        return cli_usage_error("msm ", "give --points and --scalars, or --log-n");
    if (log_n_s && (ppath || spath))
        return cli_usage_error("msm ", "--log-n cannot be combined with --points/--scalars");
    if (log_n_s && cli_parse_uint(log_n_s, 0, MAX_LOG_N, &log_n))
        return cli_usage_error("msm ", "--log-n '%s' is not an integer in 0..%d", log_n_s, MAX_LOG_N);
    if (seed_s && cli_parse_uint(seed_s, 0, ~0ull, &seed))
        return cli_usage_error("msm ", "--seed '%s' is not a non-negative integer", seed_s);
    if ((rc = cli_parse_threads("msm ", threads_s, &threads)) != 0)
        return rc;
    if (wb_s && cli_parse_uint(wb_s, 1, 20, &wb))
        return cli_usage_error("msm ", "--window-bits '%s' is not an integer in 1..20", wb_s);
    if (!device)
        device = "auto";
    if ((rc = cli_msm_parse_device("msm ", device)) != 0)
        return rc;
    rc = cli_make_ctx(threads, device, tier_s, "msm", &ctx);
    if (!rc)
        device = hpr_ctx_devices(ctx); /* auto: what it chose */
    if (!rc && log_n_s) {
        n = (size_t)1 << log_n;
        rc = cli_msm_random_inputs(ctx, curve, n, seed, &points, &scalars);
    } else if (!rc) {
        rc = load_inputs(curve, ppath, spath, &points, &scalars, &n);
    }
    if ((rc = cli_cluster_agree(ctx, rc)) != 0) /* alone: rc */
        goto out;
    double t0 = cli_now_seconds();
    if ((rc = cli_run_msm(ctx, curve, NULL, points, scalars, n, (unsigned)wb, result, NULL, &report)) != 0)
        goto out;
    double ms = (cli_now_seconds() - t0) * 1e3;
    if (!cli_cluster_leader()) /* rank 0 writes the result */
        goto out;
    if (out_path && cli_output_open(&out, out_path) != 0) {
        rc = CLI_EXIT_FAILURE;
        goto out;
    }
    fprintf(stderr, "msm: %s %s, n = %zu, device %s, %u threads, CPU tier %s: %.3f ms", cli_curve_name(curve),
            cli_msm_group == HPR_G2 ? "G2" : "G1", n,
            device, hpr_ctx_threads(ctx), hpr_ctx_cpu_tier(ctx), ms);
    if (cli_cluster())
        fprintf(stderr, ", %u ranks, %llu bytes sent", report.ranks, (unsigned long long)report.bytes_sent);
    fputc('\n', stderr);
    rc = write_point_json(curve, result, out_path ? &out : NULL);
out:
    cli_output_abort(&out); /* no-op after a commit */
    free(points);
    free(scalars);
    hpr_ctx_destroy(ctx);
    return rc;
}
