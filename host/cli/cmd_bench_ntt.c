/*
 * cmd_bench_ntt.c: `hyprove bench ntt`, NTTs and LDEs timed per field, size and device.
 *
 * Under mpirun (cli_mpi.h) each NTT runs across the ranks with hpr_cluster_ntt (an LDE does
 * not run across ranks). A warm-up, then R timed runs, each checked against the warm-up.
 */
#include "cli.h"
#include "cli_bench.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_mpi.h"
#include "cli_ntt.h"
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 5
#define MAX_SIZES 16
#define MAX_DEVICES 4

static const char *bench_ntt_help =
    "usage: hyprove bench ntt [--field F[,F]] [--log-n N[,N...]] [--batch B] [--lde RATE]\n"
    "                         [--repeat R] [--threads T] [--seed S] [--device D | --devices D[,D...]]\n"
    "                         [--json FILE] [--progress]\n"
    "\n"
    "Times forward NTTs (natural order in and out) of random elements: one warm-up, then R\n"
    "timed runs (default 5), each checked against the warm-up's result. Prints median and min\n"
    "time, ns per butterfly ((n/2) log2 n per column) and GB/s (input plus output bytes over\n"
    "the median time). --batch B: B columns of 2^N; --lde RATE (2, 4, 8): the low-degree\n"
    "extension of 2^N coefficients (per column) to RATE * 2^N evaluations on the generator's coset.\n"
    "--device: cpu (default), cl:P.D (the butterflies there) or all (the columns of a batch\n"
    "dealt to every usable device); --devices measures several side by side. LDE runs on\n"
    "the CPU. --threads T: CPU threads (default: all cores); --seed S: the random inputs'\n"
    "seed (default 1). --json FILE: also write the records as JSON (atomically; - is stdout,\n"
    "the table then goes to stderr) with the run's metadata: op, field, log_n, batch, lde,\n"
    "device, cpu_tier, threads, repeat, median_ms, min_ms, ns_per_butterfly, gb_per_s,\n"
    "elements_per_s, faults (docs/cli.md: \"JSON output\"). A failing OpenCL device is one warning\n"
    "line on stderr and its columns are redone on the CPU. --progress: progress lines on stderr even\n"
    "when it is not a terminal. List options may also be repeated (--log-n 12 --log-n 16).\n"
    "Defaults: every field, N = 16, B = 1.\n"
    "Under mpirun -np N (Open MPI builds) each batch's columns are dealt to the N ranks (rank 0's\n"
    "data, sent to them); rank 0 prints the table with a ranks line (bytes sent per run) and the\n"
    "JSON records carry ranks and bytes_sent. --lde does not run across ranks.\n";

typedef struct {
    hpr_field field;
    unsigned log_n, threads, repeat, lde;
    size_t batch;
    double median_ms, min_ms;
    const char *device;
    cli_faults faults; /* the devices that failed in the record's runs (warm-up included) */
    unsigned ranks;    /* the processes of the job (1: no mpirun) */
    unsigned long long bytes_sent; /* the ranks' messages in the last run (0 alone) */
    hpr_cluster_report report;     /* the last run's, under a cluster */
    cli_timing timing;             /* every run and its statistics (JSON) */
} ntt_record;

/* Random canonical elements (below 2^(bits of p - 1), so below p), never all zero. */
static void random_elements(unsigned char *d, size_t count, size_t es, unsigned long long seed)
{
    unsigned long long s = seed * 0x9e3779b97f4a7c15ull + 1;
    for (size_t i = 0; i < count * es; i++) {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        d[i] = (unsigned char)s;
        if (i % es == es - 1)
            d[i] &= 0x1f; /* the top byte: below every modulus's top byte (0x30 for BN254 Fr) */
    }
}

static int run_once(hpr_ctx *ctx, ntt_record *r, const unsigned char *input, unsigned char *work, size_t in_bytes,
                    size_t out_bytes)
{
    hpr_ntt_opts opts = {sizeof opts, 0, HPR_NTT_NN, NULL, NULL, r->batch, 0, r->device};
    hpr_status st;
    (void)out_bytes;
    if (!r->lde) {
        memcpy(work, input, in_bytes);
        return cli_run_ntt(ctx, r->field, r->log_n, work, &opts, &r->report, &r->faults);
    }
    st = hpr_ntt_lde(ctx, r->field, r->log_n, r->lde, NULL, r->batch, input, work); /* on the CPU */
    if (st == HPR_OK)
        cli_faults_after_call(ctx, &r->faults);
    return st == HPR_OK ? 0 : cli_status_error("bench ntt", st, ctx);
}

static int measure_ntt(hpr_ctx *ctx, ntt_record *r, unsigned long long seed)
{
    size_t es = hpr_field_element_size(r->field), n = (size_t)1 << r->log_n;
    size_t in_bytes = n * r->batch * es, out_bytes = r->lde ? in_bytes * r->lde : in_bytes;
    unsigned char *input = malloc(in_bytes), *first = malloc(out_bytes), *work = malloc(out_bytes);
    double *ms = malloc(r->repeat * sizeof *ms);
    int rc = CLI_EXIT_FAILURE, differs = 0;
    if (cli_cluster_agree(ctx, !input || !first || !work || !ms
                                   ? cli_error("bench ntt: out of memory for 2^%u x %zu elements", r->log_n, r->batch)
                                   : 0) != 0)
        goto out;
    random_elements(input, n * r->batch, es, seed);
    if (run_once(ctx, r, input, first, in_bytes, out_bytes))
        goto out;
    for (unsigned k = 0; k < r->repeat; k++) {
        double t0 = cli_now_seconds();
        if (run_once(ctx, r, input, work, in_bytes, out_bytes))
            goto out;
        ms[k] = (cli_now_seconds() - t0) * 1e3;
        if (!differs && cli_cluster_leader() && memcmp(first, work, out_bytes) != 0) {
            differs = cli_error("bench ntt: run %u of %s 2^%u gave a different result than the warm-up", k,
                                cli_field_name(r->field), r->log_n);
            if (!cli_cluster()) /* under a cluster every rank makes every run: joined below */
                goto out;
        }
    }
    if (cli_cluster_agree(ctx, differs) != 0)
        goto out;
    r->bytes_sent = r->report.bytes_sent;
    if ((rc = cli_timing_take(&r->timing, ms, r->repeat, "bench ntt %s 2^%u on %s", cli_field_name(r->field), r->log_n,
                              r->device)) != 0)
        goto out;
    ms = NULL; /* the record's now */
    r->median_ms = r->timing.stats.median;
    r->min_ms = r->timing.stats.min;
    rc = 0;
out:
    free(input);
    free(first);
    free(work);
    free(ms);
    return rc;
}

/* Butterflies and bytes (input + output) of a record. */
static void record_work(const ntt_record *r, double *butterflies, double *bytes)
{
    double es = (double)hpr_field_element_size(r->field), n = (double)((size_t)1 << r->log_n);
    double m = r->lde ? n * r->lde : n;
    unsigned log_m = r->log_n + (r->lde == 2 ? 1 : r->lde == 4 ? 2 : r->lde == 8 ? 3 : 0);
    *butterflies = m / 2 * log_m * (double)r->batch;
    *bytes = (n + m) * es * (double)r->batch;
}

static void print_ntt_record(const ntt_record *r)
{
    double bf, bytes;
    record_work(r, &bf, &bytes);
    fprintf(cli_table, "%-4s %-13s %5u %6zu %4u %-7s %7u %6u %11.3f %11.3f %12.2f %8.2f\n", "ntt", cli_field_name(r->field), r->log_n,
           r->batch, r->lde, r->device, r->threads, r->repeat, r->median_ms, r->min_ms, r->median_ms * 1e6 / bf,
           bytes / (r->median_ms * 1e-3) / 1e9);
    if (r->ranks > 1)
        fprintf(cli_table, "     ranks %u, bytes sent per run %llu\n", r->ranks, r->bytes_sent);
    fflush(cli_table);
}

static int write_ntt_json(const char *path, hpr_ctx *ctx, const ntt_record *recs, size_t count)
{
    cli_json j;
    if (cli_json_begin(&j, path, "bench ntt", ctx) != 0)
        return CLI_EXIT_FAILURE;
    for (size_t i = 0; i < count; i++) {
        const ntt_record *r = &recs[i];
        double bf, bytes, out = (double)((size_t)1 << r->log_n) * (r->lde ? r->lde : 1) * (double)r->batch;
        record_work(r, &bf, &bytes);
        fprintf(cli_json_record(&j),
                "{\"op\": \"ntt\", \"field\": \"%s\", \"log_n\": %u, \"batch\": %zu, \"lde\": %u, \"device\": \"%s\", "
                "\"cpu_tier\": \"%s\", \"threads\": %u, \"repeat\": %u, \"median_ms\": %.6f, \"min_ms\": %.6f, "
                "\"ns_per_butterfly\": %.4f, \"gb_per_s\": %.4f, \"elements_per_s\": %.1f, \"ranks\": %u, "
                "\"bytes_sent\": %llu",
                cli_field_name(r->field), r->log_n, r->batch, r->lde, r->lde ? "cpu" : r->device, hpr_ctx_cpu_tier(ctx),
                r->threads, r->repeat, r->median_ms, r->min_ms, r->median_ms * 1e6 / bf,
                bytes / (r->median_ms * 1e-3) / 1e9, out / (r->median_ms * 1e-3), r->ranks ? r->ranks : 1,
                r->bytes_sent);
        cli_timing_json(j.fp, &r->timing);
        cli_faults_json(j.fp, &r->faults);
        fputs("}", j.fp);
    }
    return cli_json_end(&j) == 0 ? 0 : CLI_EXIT_FAILURE;
}

int cmd_bench_ntt(int argc, char **argv)
{
    const char *field_s = NULL, *log_n_s = NULL, *batch_s = NULL, *lde_s = NULL, *repeat_s = NULL, *threads_s = NULL,
               *seed_s = NULL, *json = NULL, *device = NULL, *devices_s = NULL;
    char devices[MAX_DEVICES][CLI_DEVICE_NAME_LEN] = {"cpu"};
    size_t ndevices = 1;
    hpr_field fields[MAX_FIELDS] = {HPR_FIELD_BN254_FR, HPR_FIELD_BLS12_381_FR, HPR_FIELD_GOLDILOCKS,
                                    HPR_FIELD_BABYBEAR, HPR_FIELD_KOALABEAR};
    unsigned sizes[MAX_SIZES] = {16};
    size_t nfields = MAX_FIELDS, nsizes = 1, nrecs = 0;
    unsigned long long batch = 1, lde = 0, seed = 1;
    unsigned repeat = 5;
    static ntt_record recs[MAX_FIELDS * MAX_SIZES * MAX_DEVICES];
    hpr_ctx *ctx = NULL;
    cli_opt o[] = {CLI_OPT_LIST("--field", &field_s), CLI_OPT_LIST("--log-n", &log_n_s), CLI_OPT("--batch", &batch_s),
                   CLI_OPT("--lde", &lde_s),       CLI_OPT("--repeat", &repeat_s), CLI_OPT("--threads", &threads_s), CLI_OPT("--seed", &seed_s),
                   CLI_OPT("--json", &json),       CLI_OPT("--device", &device),   CLI_OPT_LIST("--devices", &devices_s),
                   CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    int rc = cli_parse_options(argc, argv, "bench ntt ", bench_ntt_help, o, sizeof o / sizeof o[0]);
    if (rc >= 0)
        return rc;
    cli_table_for_output(json);
    if (field_s && cli_parse_field_list(field_s, fields, MAX_FIELDS, &nfields))
        return cli_usage_error("bench ntt ", "--field '%s': expected comma-separated bn254-fr, bls12-381-fr, "
                                             "goldilocks, babybear, koalabear", field_s);
    if (log_n_s && cli_parse_uint_list(log_n_s, 0, 30, sizes, MAX_SIZES, &nsizes))
        return cli_usage_error("bench ntt ", "--log-n '%s': expected comma-separated integers in 0..30", log_n_s);
    if (batch_s && cli_parse_uint(batch_s, 1, 1u << 20, &batch))
        return cli_usage_error("bench ntt ", "--batch '%s' is not an integer in 1..2^20", batch_s);
    if (lde_s && (cli_parse_uint(lde_s, 2, 8, &lde) || (lde != 2 && lde != 4 && lde != 8)))
        return cli_usage_error("bench ntt ", "--lde '%s' is not 2, 4 or 8", lde_s);
    if ((rc = cli_parse_repeat("bench ntt ", repeat_s, NULL, &repeat)) != 0)
        return rc;
    if (seed_s && cli_parse_uint(seed_s, 0, ~0ull, &seed))
        return cli_usage_error("bench ntt ", "--seed '%s' is not a non-negative integer", seed_s);
    if (device && devices_s)
        return cli_usage_error("bench ntt ", "give --device or --devices, not both");
    if ((device || devices_s) && cli_parse_device_list(device ? device : devices_s, 1, devices, MAX_DEVICES, &ndevices))
        return cli_usage_error("bench ntt ", "--device%s '%s': expected cpu, cl:P.D or all (at most %d)",
                               device ? "" : "s", device ? device : devices_s, MAX_DEVICES);
    for (size_t d = 0; d < ndevices; d++)
        if (lde && strcmp(devices[d], "cpu") != 0)
            return cli_usage_error("bench ntt ", "--lde runs on the CPU only (device '%s')", devices[d]);
    if (lde && cli_cluster())
        return cli_usage_error("bench ntt ", "--lde is not across ranks: run it without mpirun");
    rc = cli_ctx_from_options("cpu", threads_s, NULL, "bench ntt ", "ntt", &ctx);
    if ((rc = cli_cluster_agree(ctx, rc)) != 0) /* alone: the context's error */
        return rc;
    fprintf(cli_table, "%-4s %-13s %5s %6s %4s %-7s %7s %6s %11s %11s %12s %8s\n", "op", "field", "log_n", "batch", "lde",
           "device", "threads", "repeat", "median_ms", "min_ms", "ns/butterfly", "GB/s");
    rc = 0;
    for (size_t f = 0; f < nfields && !rc; f++)
        for (size_t k = 0; k < nsizes && !rc; k++)
            for (size_t d = 0; d < ndevices && !rc; d++) {
                ntt_record *r = &recs[nrecs];
                *r = (ntt_record){fields[f], sizes[k], hpr_ctx_threads(ctx), (unsigned)repeat, (unsigned)lde,
                                  (size_t)batch, 0, 0, devices[d], {0}, (unsigned)cli_cluster_size(), 0, {0}, CLI_TIMING_NONE};
                unsigned log_rate = lde == 2 ? 1 : lde == 4 ? 2 : lde == 8 ? 3 : 0;
                if (r->log_n + log_rate > hpr_field_two_adicity(r->field)) {
                    rc = cli_usage_error("bench ntt ", "2^%u is beyond %s's two-adicity (%u)", r->log_n,
                                         cli_field_name(r->field), hpr_field_two_adicity(r->field));
                    break;
                }
                if ((rc = measure_ntt(ctx, r, seed)) == 0) {
                    print_ntt_record(r);
                    if (cli_cluster())
                        cli_cluster_print_report(stderr, &r->report);
                    else
                        cli_print_split(ctx, r->device, "elements");
                    nrecs++;
                }
            }
    if (!rc && json && cli_cluster_leader()) /* rank 0 writes the outputs */
        rc = write_ntt_json(json, ctx, recs, nrecs);
    for (size_t i = 0; i < nrecs; i++)
        cli_timing_free(&recs[i].timing);
    hpr_ctx_destroy(ctx);
    return rc;
}
