/*
 * cmd_bench_msm.c: `hyprove bench msm`, and the main job (`hyprove` with no arguments: a
 * bench msm of every device, then the Groth16 example); `hyprove msm` is cmd_msm.c.
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

#define MAX_LIST 16
#define MAX_LOG_N 26
#define MAX_DEVICES 8
#define MAX_TIERS 8
#define MAX_FACTORS 5

static const char *bench_help =
    "usage: hyprove bench msm [--curve C[,C]] [--log-n N[,N...]] [--repeat R] [--threads T]\n"
    "                         [--devices D[,D...] | --device D] [--cpu-tiers T[,T...]|all] [--seed S]\n"
    "                         [--window-bits C] [--group g1|g2] [--resident] [--precompute F[,F...]]\n"
    "                         [--json FILE] [--progress]\n"
    "       hyprove bench ntt ...      ('hyprove bench ntt --help')\n"
    "       hyprove bench groth16 ...  ('hyprove bench groth16 --help')\n"
    "       hyprove bench commit ...   ('hyprove bench commit --help')\n"
    "       hyprove bench poseidon2 ...  ('hyprove bench poseidon2 --help')\n"
    "\n"
    "Times G1 (or, with --group g2, G2) MSMs of 2^N random points: one warm-up, then R timed runs (default 5); prints\n"
    "median and min time, points/s and ns/point per curve and size. Every run's result must\n"
    "equal the first one's, or the benchmark fails. Defaults: both curves, N = 16. List options\n"
    "may also be repeated (--log-n 12 --log-n 16 = --log-n 12,16); other options are given once.\n"
    "  --seed S      the random inputs' seed (default 1)\n"
    "  --window-bits C  Pippenger window size, 1..20 (default: chosen from n)\n"
    "  --threads T   CPU threads; an OpenCL device's records show its compute units instead\n"
    "  --cpu-tiers T,.. CPU kernel tiers to measure side by side: portable, adx, avx2, avx512, neon, or all\n"
    "                (every tier this processor and build can run); default: the one in use\n"
    "                (HPR_CPU, else the fastest). Rows for cpu and all repeat per tier.\n"
    "  --resident    the points as resident bases (hpr_bases_create, made before the warm-up):\n"
    "                an OpenCL device receives them in the warm-up, and each timed run sends\n"
    "                only scalars\n"
    "  --precompute F,..  resident bases precomputed F times (hpr_bases_create_precomputed,\n"
    "                1..16; 1: plain resident bases), a record per factor: the table's note and\n"
    "                the JSON give the time to make them and the bytes they hold\n"
    "  --json FILE   also write the records as JSON (atomically; - is stdout) with the run's\n"
    "                metadata (docs/cli.md: \"JSON output\"): op, curve, group, log_n, n, device,\n"
    "                cpu_tier, threads, repeat, resident, precompute, setup_ms, bases_bytes,\n"
    "                median_ms, min_ms, ns_per_point,\n"
    "                points_per_s, devices_ran, faults (the devices that failed: device, error,\n"
    "                tiles_failed, dropped), and on \"all\" records devices_used (which devices\n"
    "                computed points) and hybrid_efficiency where more than one ran\n"
    "  --device D    one device: auto, cpu, all or cl:P.D (auto: the native CPU tiers and the\n"
    "                GPUs; an OpenCL CPU device only where calibrated to help)\n"
    "  --devices D,.. measure each device alone and together, e.g. cpu,cl:0.0,all; the \"all\"\n"
    "                rows get the hybrid efficiency: their throughput over the sum of the\n"
    "                single devices' throughputs in the same run (default device: auto)\n"
    "  --progress    progress lines on stderr even when it is not a terminal\n"
    "Under mpirun -np N (Open MPI builds) each MSM runs across the N ranks (every rank makes the\n"
    "same random inputs); rank 0 prints the table, a ranks line under each record (bytes sent per\n"
    "run) and the share of each rank on stderr; the JSON records carry ranks and bytes_sent.\n"
    "--resident and --precompute do not run across ranks.\n";

typedef struct {
    hpr_curve curves[2];
    size_t ncurves;
    unsigned log_n[MAX_LIST];
    size_t nlog_n;
    unsigned repeat, threads, window_bits;
    unsigned long long seed;
    const char *json_path, *device;
    char devices[MAX_DEVICES][CLI_DEVICE_NAME_LEN];
    size_t ndevices;
    const char *tiers[MAX_TIERS]; /* CPU kernel tiers; NULL = the context's default */
    size_t ntiers;
    int resident; /* --resident: the points as hpr_bases */
    unsigned precompute[MAX_FACTORS]; /* --precompute: a record per factor (resident) */
    size_t nprecompute;
} bench_args;

typedef struct {
    hpr_curve curve;
    unsigned log_n, threads, repeat;
    char device[CLI_DEVICE_NAME_LEN]; /* a copy: the main job reuses its device list for each device */
    const char *tier; /* the CPU kernel tier ("-" for an OpenCL device alone) */
    double median_ms, min_ms;
    double efficiency; /* "all" records: hybrid throughput / sum of the single devices'; < 0: none */
    int resident;
    unsigned precompute;  /* the bases' factor (1: none) */
    double setup_ms;      /* resident: the time hpr_bases_create(_precomputed) took */
    unsigned long long bases_bytes; /* resident: hpr_bases_bytes */
    unsigned devices_ran; /* devices that computed tiles in the last run ("all": 1 below the
                           * size where an OpenCL device joins) */
    cli_faults faults;    /* the devices that failed in the record's runs (warm-up included) */
    unsigned ranks;       /* the processes of the job (1: no mpirun) */
    unsigned long long bytes_sent; /* the ranks' messages in the last run (0 alone) */
    cli_timing timing;             /* every run and its statistics (JSON) */
    char used[128];       /* "all" alone: the devices that computed points in the last run,
                           * comma-separated ("cpu,cl:0.0"); "": not known (a cluster run) */
} bench_record;

/* One measurement: a warm-up, then repeat timed runs, each checked against the warm-up (on
 * rank 0, which has the results: under a cluster every run is made on every rank, and a
 * difference is joined at the end). */
static int measure(hpr_ctx *ctx, hpr_curve curve, const hpr_bases *bases, const unsigned char *points,
                   const unsigned char *scalars, size_t n, unsigned repeat, unsigned window_bits, bench_record *rec)
{
    unsigned char first[192] = {0}, again[192] = {0};
    size_t ps = hpr_point_size(curve, cli_msm_group);
    double *ms = malloc(repeat * sizeof *ms);
    hpr_cluster_report report = {.struct_size = sizeof report};
    int rc = CLI_EXIT_FAILURE, differs = 0;
    if (!ms)
        return cli_cluster_agree(ctx, cli_error("out of memory"));
    if (cli_run_msm(ctx, curve, bases, points, scalars, n, window_bits, first, &rec->faults, &report))
        goto out;
    for (unsigned r = 0; r < repeat; r++) {
        double t0 = cli_now_seconds();
        if (cli_run_msm(ctx, curve, bases, points, scalars, n, window_bits, again, &rec->faults, &report))
            goto out;
        ms[r] = (cli_now_seconds() - t0) * 1e3;
        if (!differs && memcmp(first, again, ps) != 0) {
            differs = cli_error("bench: run %u of %s n = %zu gave a different result than the warm-up", r,
                                cli_curve_name(curve), n);
            if (!cli_cluster())
                goto out;
        }
    }
    if (cli_cluster_agree(ctx, differs) != 0)
        goto out;
    if ((rc = cli_timing_take(&rec->timing, ms, repeat, "bench msm %s 2^%u on %s", cli_curve_name(curve), rec->log_n,
                              rec->device)) != 0)
        goto out;
    ms = NULL; /* the record's now */
    rec->median_ms = rec->timing.stats.median;
    rec->min_ms = rec->timing.stats.min;
    rec->bytes_sent = report.bytes_sent;
    if (cli_cluster())
        cli_cluster_print_report(stderr, &report);
    rc = 0;
out:
    free(ms);
    return rc;
}

static void print_table_header(void)
{
    fprintf(cli_table, "%-4s %-10s %5s %-7s %-8s %7s %6s %11s %11s %10s %10s %10s\n", "op", "curve", "log_n", "device", "tier",
           "threads", "repeat", "median_ms", "min_ms", "ns/point", "Mpoints/s", "hybrid_eff");
}

static void print_record(const bench_record *r)
{
    double n = (double)((size_t)1 << r->log_n);
    char eff[16] = "-";
    if (r->efficiency >= 0)
        snprintf(eff, sizeof eff, "%.3f", r->efficiency);
    fprintf(cli_table, "%-4s %-10s %5u %-7s %-8s %7u %6u %11.3f %11.3f %10.1f %10.3f %10s\n", "msm", cli_curve_name(r->curve),
           r->log_n, r->device, r->tier, r->threads, r->repeat, r->median_ms, r->min_ms, r->median_ms * 1e6 / n, n / (r->median_ms * 1e3),
           eff);
    if (r->ranks > 1)
        fprintf(cli_table, "     ranks %u, bytes sent per run %llu\n", r->ranks, r->bytes_sent);
    if (r->resident)
        fprintf(cli_table, "     resident bases precomputed %u times: made in %.1f ms, %.1f MiB on the host\n",
                r->precompute, r->setup_ms, (double)r->bases_bytes / 1048576.0);
    fflush(cli_table);
}

/* Per-device shares of the last hybrid run, and the devices left out (stderr). */
static void print_hybrid_report(hpr_ctx *ctx)
{
    hpr_run_report rep = {.struct_size = sizeof rep};
    if (hpr_ctx_last_report(ctx, &rep) != HPR_OK)
        return;
    fprintf(stderr, "  all:");
    for (unsigned d = 0; d < rep.ndevices; d++) {
        const hpr_device_run *x = &rep.devices[d];
        char failed[64] = "";
        if (x->failures || x->dropped)
            snprintf(failed, sizeof failed, ", %u failed%s", x->failures, x->dropped ? ", dropped" : "");
        fprintf(stderr, " %s %u tiles %llu points (%.0f/s busy %.3f s, waited %.3f s%s)%s", x->device, x->tiles,
                x->points, x->points_per_s, x->busy_s, x->wait_s, failed, d + 1 < rep.ndevices ? ";" : "\n");
    }
    if (rep.notes[0])
        fprintf(stderr, "  note: %s\n", rep.notes);
}

/* ", \"devices_used\": [\"cpu\", \"cl:0.0\"]" from "cpu,cl:0.0" (device names: no quotes or
 * backslashes to escape). */
static void write_used(FILE *fp, const char *used)
{
    fputs(", \"devices_used\": [\"", fp);
    for (const char *c = used; *c; c++)
        if (*c == ',')
            fputs("\", \"", fp);
        else
            fputc(*c, fp);
    fputs("\"]", fp);
}

static int write_json(const char *path, const bench_record *recs, size_t count)
{
    cli_json j;
    if (cli_json_begin(&j, path, "bench msm", NULL) != 0)
        return CLI_EXIT_FAILURE;
    for (size_t i = 0; i < count; i++) {
        const bench_record *r = &recs[i];
        double n = (double)((size_t)1 << r->log_n);
        fprintf(cli_json_record(&j),
                "{\"op\": \"msm\", \"curve\": \"%s\", \"group\": \"%s\", \"log_n\": %u, \"n\": %.0f, \"device\": \"%s\", "
                "\"cpu_tier\": \"%s\", \"threads\": %u, \"repeat\": %u, \"resident\": %s, \"precompute\": %u, "
                "\"setup_ms\": %.3f, \"bases_bytes\": %llu, \"median_ms\": %.6f, \"min_ms\": %.6f, "
                "\"ns_per_point\": %.3f, \"points_per_s\": %.1f, \"devices_ran\": %u, \"ranks\": %u, \"bytes_sent\": %llu",
                cli_curve_name(r->curve), cli_msm_group == HPR_G2 ? "g2" : "g1", r->log_n, n, r->device, r->tier, r->threads, r->repeat,
                r->resident ? "true" : "false", r->precompute, r->setup_ms, r->bases_bytes, r->median_ms, r->min_ms,
                r->median_ms * 1e6 / n, n / (r->median_ms * 1e-3), r->devices_ran, r->ranks ? r->ranks : 1, r->bytes_sent);
        cli_timing_json(j.fp, &r->timing);
        if (r->used[0])
            write_used(j.fp, r->used);
        if (r->efficiency >= 0)
            fprintf(j.fp, ", \"hybrid_efficiency\": %.4f", r->efficiency);
        cli_faults_json(j.fp, &r->faults);
        fputs("}", j.fp);
    }
    return cli_json_end(&j) == 0 ? 0 : CLI_EXIT_FAILURE;
}

/* Whether name is one of the entries of the comma-separated list. */
static int listed(const char *list, const char *name)
{
    size_t len = strlen(name);
    for (const char *p = list; *p;) {
        size_t entry = strcspn(p, ",");
        if (entry == len && strncmp(p, name, len) == 0)
            return 1;
        p += entry + (p[entry] == ',');
    }
    return 0;
}

/* Whether a single device's record is one of the devices that the "all" record combined: the
 * CPU at its tier and threads, an OpenCL device; of those, only the ones that computed points
 * in it where that is known (all->used). */
static int combined_in(const bench_record *all, const bench_record *single)
{
    int cpu = strcmp(single->device, "cpu") == 0;
    if ((cpu && (single->threads != all->threads || strcmp(single->tier, all->tier) != 0)) ||
        (!cpu && strncmp(single->device, "cl:", 3) != 0))
        return 0;
    return !all->used[0] || listed(all->used, single->device);
}

/* Hybrid efficiency of the "all" records among recs[first..last): its throughput over the
 * sum of the throughputs that the devices it combined reached alone; only where more than one
 * device ran (else "all" is one device, and the ratio is noise). */
static void set_efficiency(bench_record *recs, size_t first, size_t last)
{
    for (size_t i = first; i < last; i++) {
        double sum = 0;
        int singles = 0;
        if (strcmp(recs[i].device, "all") != 0)
            continue;
        for (size_t j = first; j < last; j++)
            if (combined_in(&recs[i], &recs[j])) {
                sum += 1.0 / recs[j].median_ms;
                singles++;
            }
        recs[i].efficiency = singles > 1 && recs[i].devices_ran > 1 ? (1.0 / recs[i].median_ms) / sum : -1;
    }
}

/* The devices that computed points in the context's last MSM: their count, and their names
 * in used (comma-separated; "" when the report is missing). */
static unsigned devices_that_ran(hpr_ctx *ctx, char *used, size_t len)
{
    hpr_run_report rep = {.struct_size = sizeof rep};
    unsigned count = 0;
    used[0] = '\0';
    if (hpr_ctx_last_report(ctx, &rep) != HPR_OK)
        return 1;
    for (unsigned d = 0; d < rep.ndevices; d++)
        if (rep.devices[d].points > 0) {
            size_t at = strlen(used);
            snprintf(used + at, len - at, "%s%s", count ? "," : "", rep.devices[d].device);
            count++;
        }
    return count;
}

/* One (curve, size, device, threads) measurement appended to recs. */
/* The record's threads: the CPU pool's, or the OpenCL device's compute units (POCL: its
 * threads), which is what runs an OpenCL-only measurement. */
static unsigned device_threads(hpr_ctx *ctx, const char *device)
{
    hpr_device_info info = {.struct_size = sizeof info};
    if (strncmp(device, "cl:", 3) == 0)
        for (unsigned i = 0; i < hpr_device_count(ctx); i++)
            if (hpr_device_get_info(ctx, i, &info) == HPR_OK && strcmp(info.id, device) == 0)
                return info.compute_units;
    return hpr_ctx_threads(ctx);
}

/* factor: 0 for the points as they are (or plain resident bases with --resident), else the
 * bases precomputed factor times. */
static int bench_one(const bench_args *a, hpr_curve curve, unsigned log_n, const char *device, const char *tier,
                     unsigned threads, unsigned factor, const unsigned char *points, const unsigned char *scalars,
                     bench_record *r)
{
    hpr_ctx *ctx = NULL;
    hpr_bases *bases = NULL;
    size_t n = (size_t)1 << log_n;
    int rc = cli_make_ctx(threads, device, tier, "msm", &ctx);
    if ((rc = cli_cluster_agree(ctx, rc)) != 0) { /* alone: make_ctx's */
        hpr_ctx_destroy(ctx);
        return rc;
    }
    device = hpr_ctx_devices(ctx); /* the context's device set: for auto, what it chose */
    *r = (bench_record){curve, log_n, device_threads(ctx, device), a->repeat, "",
                        strncmp(device, "cl:", 3) == 0 ? "-" : hpr_ctx_cpu_tier(ctx), 0, 0, -1, a->resident || factor,
                        factor ? factor : 1, 0, 0, 1, {0}, (unsigned)cli_cluster_size(), 0, CLI_TIMING_NONE, ""};
    snprintf(r->device, sizeof r->device, "%s", device);
    double t0 = cli_now_seconds();
    hpr_status st = r->resident ? hpr_bases_create_precomputed(ctx, curve, cli_msm_group, points, n, factor, &bases) : HPR_OK;
    r->setup_ms = r->resident ? (cli_now_seconds() - t0) * 1e3 : 0;
    r->bases_bytes = hpr_bases_bytes(bases);
    rc = st != HPR_OK ? cli_status_error("bench msm: the resident bases", st, ctx)
                      : measure(ctx, curve, bases, points, scalars, n, a->repeat, a->window_bits, r);
    hpr_bases_destroy(bases);
    if (!rc && strcmp(device, "all") == 0 && !cli_cluster()) {
        r->devices_ran = devices_that_ran(ctx, r->used, sizeof r->used);
        print_hybrid_report(ctx);
    }
    hpr_ctx_destroy(ctx);
    return rc;
}

static void free_records(bench_record *recs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        cli_timing_free(&recs[i].timing);
}

/* Runs every (curve, size) on each device for each thread count in threads[]; records go
 * to recs (room for curves x sizes x devices x thread counts). */
static int run_bench(const bench_args *a, const unsigned *threads, size_t nthreads, bench_record *recs, size_t *nrecs)
{
    int rc = 0;
    *nrecs = 0;
    print_table_header();
    for (size_t ci = 0; ci < a->ncurves && !rc; ci++) {
        for (size_t li = 0; li < a->nlog_n && !rc; li++) {
            hpr_ctx *gen = NULL;
            unsigned char *points = NULL, *scalars = NULL;
            size_t n = (size_t)1 << a->log_n[li], first = *nrecs;
            rc = cli_make_ctx(0, "cpu", NULL, "msm", &gen);
            if (!rc)
                rc = cli_msm_random_inputs(gen, a->curves[ci], n, a->seed, &points, &scalars);
            hpr_ctx_destroy(gen);
            for (size_t di = 0; di < a->ndevices && !rc; di++) {
                /* an OpenCL device alone does not use the CPU kernels: one tier is enough */
                size_t ntiers = strncmp(a->devices[di], "cl:", 3) == 0 ? 1 : a->ntiers;
                size_t nfactors = a->nprecompute ? a->nprecompute : 1;
                for (size_t k = 0; k < ntiers && !rc; k++)
                    for (size_t ti = 0; ti < nthreads && !rc; ti++)
                        for (size_t fi = 0; fi < nfactors && !rc; fi++)
                            if ((rc = bench_one(a, a->curves[ci], a->log_n[li], a->devices[di], a->tiers[k],
                                                threads[ti], a->nprecompute ? a->precompute[fi] : 0, points, scalars,
                                                &recs[*nrecs])) == 0)
                                (*nrecs)++;
            }
            set_efficiency(recs, first, *nrecs);
            for (size_t i = first; i < *nrecs; i++)
                print_record(&recs[i]);
            free(points);
            free(scalars);
        }
    }
    return rc;
}

/* --devices D[,D...] (or --device D) into a->devices. */
static int parse_devices(bench_args *a, const char *list)
{
    if (cli_parse_device_list(list, 1, a->devices, MAX_DEVICES, &a->ndevices))
        return cli_usage_error("bench msm ", "--devices '%s': expected a comma-separated list of at most %d devices, "
                               "each cpu, all or cl:P.D", list, MAX_DEVICES);
    return 0;
}

/* --cpu-tiers T[,T...] or all into a->tiers; every named tier must be able to run here. */
static int parse_tiers(bench_args *a, const char *list)
{
    static char parsed[MAX_TIERS][CLI_DEVICE_NAME_LEN];
    return cli_parse_cpu_tiers("bench msm ", list, parsed, a->tiers, MAX_TIERS, &a->ntiers);
}

static const char bench_default_device[] = "auto";

int cmd_bench(int argc, char **argv)
{
    const char *curve_s = NULL, *log_n_s = NULL, *repeat_s = NULL, *threads_s = NULL, *seed_s = NULL, *wb_s = NULL;
    bench_args a = {{HPR_CURVE_BN254, HPR_CURVE_BLS12_381}, 2, {16}, 1, 5, 0, 0, 1, NULL, bench_default_device, {{0}}, 0,
                    {NULL}, 1, 0, {0}, 0};
    const char *devices_s = NULL, *tiers_s = NULL, *group_s = NULL, *precompute_s = NULL;
    unsigned long long v;
    static bench_record recs[2 * MAX_LIST * MAX_DEVICES * MAX_TIERS * MAX_FACTORS];
    size_t nrecs;
    if (argc < 2 || strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0) {
        fputs(bench_help, argc < 2 ? stderr : stdout);
        return argc < 2 ? CLI_EXIT_USAGE : CLI_EXIT_OK;
    }
    if (strcmp(argv[1], "ntt") == 0)
        return cmd_bench_ntt(argc - 1, argv + 1);
    if (strcmp(argv[1], "groth16") == 0)
        return cmd_bench_groth16(argc - 1, argv + 1);
    if (strcmp(argv[1], "commit") == 0)
        return cli_cluster_refuse("bench commit") >= 0 ? CLI_EXIT_USAGE : cmd_bench_commit(argc - 1, argv + 1);
    if (strcmp(argv[1], "poseidon2") == 0)
        return cli_cluster_refuse("bench poseidon2") >= 0 ? CLI_EXIT_USAGE : cmd_bench_poseidon2(argc - 1, argv + 1);
    if (strcmp(argv[1], "msm") != 0)
        return cli_usage_error("bench ", "unknown benchmark '%s' (expected msm, ntt, groth16, commit or poseidon2)",
                               argv[1]);
    const char *device_s = NULL;
    cli_opt opts[] = {CLI_OPT_LIST("--curve", &curve_s), CLI_OPT_LIST("--log-n", &log_n_s), CLI_OPT("--repeat", &repeat_s),
                      CLI_OPT("--threads", &threads_s), CLI_OPT("--seed", &seed_s),   CLI_OPT("--window-bits", &wb_s),
                      CLI_OPT("--json", &a.json_path),  CLI_OPT("--device", &device_s), CLI_OPT_LIST("--devices", &devices_s),
                      CLI_OPT_LIST("--cpu-tiers", &tiers_s), CLI_OPT("--group", &group_s),
                      CLI_OPT_FLAG("--resident", &a.resident), CLI_OPT_LIST("--precompute", &precompute_s),
                      CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    int parsed = cli_parse_options(argc - 1, argv + 1, "bench msm ", bench_help, opts, sizeof opts / sizeof opts[0]);
    if (parsed >= 0)
        return parsed;
    cli_table_for_output(a.json_path);
    if (cli_msm_parse_group("bench msm ", group_s) != 0)
        return CLI_EXIT_USAGE;
    if (curve_s && cli_parse_curve_list(curve_s, a.curves, 2, &a.ncurves))
        return cli_usage_error("bench msm ", "--curve '%s': expected bn254, bls12-381 or both, comma-separated", curve_s);
    if (log_n_s && cli_parse_uint_list(log_n_s, 0, MAX_LOG_N, a.log_n, MAX_LIST, &a.nlog_n))
        return cli_usage_error("bench msm ", "--log-n '%s': expected comma-separated integers in 0..%d", log_n_s, MAX_LOG_N);
    int bad;
    if (repeat_s && (bad = cli_parse_repeat("bench msm ", repeat_s, NULL, &a.repeat)) != 0)
        return bad;
    if (threads_s && (bad = cli_parse_threads("bench msm ", threads_s, &a.threads)) != 0)
        return bad;
    if (seed_s && cli_parse_uint(seed_s, 0, ~0ull, &a.seed))
        return cli_usage_error("bench msm ", "--seed '%s' is not a non-negative integer", seed_s);
    if (wb_s && cli_parse_uint(wb_s, 1, 20, &v) == 0)
        a.window_bits = (unsigned)v;
    else if (wb_s)
        return cli_usage_error("bench msm ", "--window-bits '%s' is not an integer in 1..20", wb_s);
    if (device_s)
        a.device = device_s;
    if (devices_s && device_s)
        return cli_usage_error("bench msm ", "give --device or --devices, not both");
    if (parse_devices(&a, devices_s ? devices_s : a.device))
        return CLI_EXIT_USAGE;
    if (tiers_s && parse_tiers(&a, tiers_s))
        return CLI_EXIT_USAGE;
    if (precompute_s && cli_parse_uint_list(precompute_s, 1, 16, a.precompute, MAX_FACTORS, &a.nprecompute))
        return cli_usage_error("bench msm ", "--precompute '%s': expected at most %d comma-separated factors in 1..16",
                               precompute_s, MAX_FACTORS);
    if ((a.resident || a.nprecompute) && cli_cluster())
        return cli_usage_error("bench msm ", "--resident and --precompute are not across ranks: run them without mpirun");
    int rc = run_bench(&a, &a.threads, 1, recs, &nrecs);
    if (!rc && a.json_path && cli_cluster_leader()) /* rank 0 writes the outputs */
        rc = write_json(a.json_path, recs, nrecs);
    free_records(recs, nrecs);
    return rc;
}

/* The OpenCL devices that pass their self-test on both curves. */
static void usable_opencl_devices(char ids[][16], size_t max, size_t *count, char *notice, size_t notice_len)
{
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *ctx = NULL;
    *count = 0;
    notice[0] = '\0';
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    if (hpr_ctx_create(&cfg, &ctx) != HPR_OK)
        return;
    unsigned n = hpr_device_count(ctx);
    if (n == 0)
        snprintf(notice, notice_len, "%s", hpr_opencl_notice(ctx));
    for (unsigned i = 0; i < n && *count < max; i++) {
        hpr_device_info info = {.struct_size = sizeof info};
        if (hpr_device_get_info(ctx, i, &info) != HPR_OK ||
            hpr_device_prepare(ctx, info.id, HPR_CURVE_BN254, NULL) != HPR_OK ||
            hpr_device_prepare(ctx, info.id, HPR_CURVE_BLS12_381, NULL) != HPR_OK) {
            fprintf(stderr, "hyprove: warning: %s left out: %s\n", info.id, hpr_ctx_error_detail(ctx));
            continue;
        }
        snprintf(ids[(*count)++], 16, "%s", info.id);
    }
    hpr_ctx_destroy(ctx);
}

int cmd_default_job(const char *json)
{
    bench_args a = {{HPR_CURVE_BN254, HPR_CURVE_BLS12_381}, 2, {16}, 1, 3, 0, 0, 1, NULL, "cpu", {"cpu"}, 1, {NULL}, 1, 0,
                    {0}, 0};
    unsigned threads[2] = {1, 0};
    bench_record recs[4 + 2 * 8];
    char ids[8][16], notice[512];
    size_t nrecs, more, nids;
    int rc;
    printf("hyprove %s: MSM on every device found (G1, 2^16 random points, median of 3)\n", HPR_VERSION_STRING);
    usable_opencl_devices(ids, 8, &nids, notice, sizeof notice);
    hpr_ctx *probe = NULL;
    if (cli_make_ctx(1, "cpu", NULL, "msm", &probe))
        return CLI_EXIT_FAILURE;
    printf("devices: cpu (%s kernels)", hpr_ctx_cpu_tier(probe));
    hpr_ctx_destroy(probe);
    for (size_t i = 0; i < nids; i++)
        printf(", %s", ids[i]);
    printf(nids ? "\n\n" : "; no OpenCL device (%s)\n\n", notice);
    rc = run_bench(&a, threads, 2, recs, &nrecs);
    for (size_t i = 0; i < nids && !rc; i++) {
        snprintf(a.devices[0], sizeof a.devices[0], "%.15s", ids[i]);
        printf("\n");
        rc = run_bench(&a, threads + 1, 1, recs + nrecs, &more);
        nrecs += more;
    }
    if (!rc && json)
        rc = write_json(json, recs, nrecs);
    free_records(recs, nrecs);
    if (!rc) {
        printf("\n");
        rc = cli_example_proof();
    }
    if (!rc)
        printf("\nrun 'hyprove --help' for the commands, 'hyprove devices' for what was detected\n");
    return rc;
}
