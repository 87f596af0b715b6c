/*
 * cmd_bench_commit.c: `hyprove bench commit`, commitments timed per device.
 *
 * bench commit: the matrices come from the generator of the test vectors
 * (tests/poseidon2_vectors.h: element i = splitmix64(seed + i) mod p, i = c 2^N + j), so the
 * root of any benchmark can be recomputed by tests/poseidon2_ref.py. A warm-up, then R timed
 * commits per device; every run's root must equal the warm-up's and every device's root the
 * first device's (a split never changes the root), or the benchmark fails. Work per commit:
 * rows * ceil(C / 8) sponge permutations (rate 8) plus rows - 1 compressions.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_bench.h"
#include "cli_commit.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_progress.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 2
#define MAX_SIZES 16
#define MAX_DEVICES 8

static const char *bench_commit_help =
    "usage: hyprove bench commit [--field F[,F]] [--log-n N[,N...]] [--rate R] [--columns C]\n"
    "                            [--devices D[,D...]] [--repeat R | --reps R] [--threads T] [--seed S]\n"
    "                            [--json FILE] [--progress]\n"
    "\n"
    "Times Merkle commitments (LDE and tree, as `hyprove commit`) of random matrices: C columns\n"
    "of 2^N elements (defaults: koalabear, N = 16, rate 2, C = 16; --rate 1 commits the matrix\n"
    "as given), element i = splitmix64(S + i) mod p (the test vectors' generator; --seed S,\n"
    "default 1, printed). Per device: one warm-up, then R timed commits (default 5; --reps is\n"
    "--repeat), each root checked against the warm-up's and every device's against the\n"
    "first's. Prints median and min time, rows/s (committed rows) and the Poseidon2\n"
    "permutations per second they imply (rows * ceil(C/8) sponge permutations + rows - 1\n"
    "compressions). --devices: cpu (default), cl:P.D, all, or several side by side\n"
    "(cpu,all); a failing OpenCL device is one warning line on stderr and its work is redone\n"
    "on the CPU. --threads T: CPU threads (default: all cores). --json FILE: also write the\n"
    "records as JSON (atomically; - is stdout, the table then goes to stderr): op commit,\n"
    "field, log_n, columns, rate, rows, seed, device, cpu_tier, threads, repeat, median_ms,\n"
    "min_ms, rows_per_s, elements_per_s (committed elements), permutations,\n"
    "permutations_per_s, root, faults. --progress: progress lines on stderr even when it is\n"
    "not a terminal. List options may also be repeated (--log-n 12 --log-n 16).\n";

typedef struct {
    hpr_field field;
    unsigned log_n, rate, threads, repeat;
    size_t columns;
    unsigned long long seed;
    const char *device;
    double median_ms, min_ms;
    uint32_t root[DIGEST];
    cli_faults faults; /* the devices that failed in the record's runs (warm-up included) */
    cli_timing timing; /* every run and its statistics (JSON) */
} commit_record;

/* One timed commit of input into root: 0 or the exit code. */
static int commit_once(hpr_ctx *ctx, commit_record *r, const uint32_t *input, uint32_t root[DIGEST], double *ms)
{
    hpr_commit_opts opts = {sizeof opts, NULL, r->device};
    hpr_merkle_tree *tree = NULL;
    double t0 = cli_now_seconds();
    hpr_status st = hpr_commit(ctx, r->field, r->log_n, r->rate, r->columns, input, &opts, &tree);
    *ms = (cli_now_seconds() - t0) * 1e3;
    if (st == HPR_OK) {
        cli_faults_after_call(ctx, &r->faults);
        st = hpr_merkle_root(tree, root);
    }
    hpr_merkle_destroy(tree);
    return st == HPR_OK ? 0 : cli_status_error("bench commit", st, ctx);
}

/* A warm-up and r->repeat timed commits: r's times and root, 0 or the exit code. */
static int measure_commit(hpr_ctx *ctx, commit_record *r, const uint32_t *input)
{
    double *ms = malloc(r->repeat * sizeof *ms), warm;
    uint32_t again[DIGEST];
    int rc = CLI_EXIT_FAILURE;
    if (!ms) {
        cli_error("bench commit: out of memory");
        goto out;
    }
    if ((rc = commit_once(ctx, r, input, r->root, &warm)) != 0)
        goto out;
    for (unsigned k = 0; k < r->repeat; k++) {
        if ((rc = commit_once(ctx, r, input, again, &ms[k])) != 0)
            goto out;
        if (memcmp(again, r->root, sizeof again) != 0) {
            rc = cli_error("bench commit: run %u of %s 2^%u x %zu on %s gave another root than the warm-up", k,
                           cli_field_name(r->field), r->log_n, r->columns, r->device);
            goto out;
        }
    }
    if ((rc = cli_timing_take(&r->timing, ms, r->repeat, "bench commit %s 2^%u x %zu on %s", cli_field_name(r->field),
                              r->log_n, r->columns, r->device)) != 0)
        goto out;
    ms = NULL; /* the record's now */
    r->median_ms = r->timing.stats.median;
    r->min_ms = r->timing.stats.min;
    rc = 0;
out:
    free(ms);
    return rc;
}

static size_t record_rows(const commit_record *r)
{
    return (size_t)r->rate << r->log_n;
}

static void print_commit_header(void)
{
    fprintf(cli_table, "%-6s %-10s %5s %7s %4s %9s %-7s %-8s %7s %6s %11s %11s %9s %9s\n", "op", "field", "log_n",
            "columns", "rate", "rows", "device", "tier", "threads", "repeat", "median_ms", "min_ms", "Mrows/s",
            "Mperm/s");
}

static void print_commit_record(hpr_ctx *ctx, const commit_record *r)
{
    size_t rows = record_rows(r);
    double s = r->median_ms * 1e-3;
    fprintf(cli_table, "%-6s %-10s %5u %7zu %4u %9zu %-7s %-8s %7u %6u %11.3f %11.3f %9.3f %9.3f\n", "commit",
            cli_field_name(r->field), r->log_n, r->columns, r->rate, rows, r->device, hpr_ctx_cpu_tier(ctx), r->threads,
            r->repeat, r->median_ms, r->min_ms, (double)rows / s / 1e6,
            commit_permutations(rows, r->columns) / s / 1e6);
    fflush(cli_table);
}

static int write_commit_json(const char *path, hpr_ctx *ctx, const commit_record *recs, size_t count)
{
    cli_json j;
    if (cli_json_begin(&j, path, "bench commit", ctx) != 0)
        return CLI_EXIT_FAILURE;
    for (size_t i = 0; i < count; i++) {
        const commit_record *r = &recs[i];
        size_t rows = record_rows(r);
        double s = r->median_ms * 1e-3, perms = commit_permutations(rows, r->columns);
        fprintf(cli_json_record(&j),
                "{\"op\": \"commit\", \"field\": \"%s\", \"log_n\": %u, \"columns\": %zu, \"rate\": %u, \"rows\": %zu, "
                "\"seed\": %llu, \"device\": \"%s\", \"cpu_tier\": \"%s\", \"threads\": %u, \"repeat\": %u, "
                "\"median_ms\": %.6f, \"min_ms\": %.6f, \"rows_per_s\": %.1f, \"elements_per_s\": %.1f, "
                "\"permutations\": %.0f, \"permutations_per_s\": %.1f, \"root\": ",
                cli_field_name(r->field), r->log_n, r->columns, r->rate, rows, r->seed, r->device,
                hpr_ctx_cpu_tier(ctx), r->threads, r->repeat, r->median_ms, r->min_ms, (double)rows / s,
                (double)rows * (double)r->columns / s, perms, perms / s);
        commit_print_root(j.fp, r->root);
        cli_timing_json(j.fp, &r->timing);
        cli_faults_json(j.fp, &r->faults);
        fputs("}", j.fp);
    }
    return cli_json_end(&j) == 0 ? 0 : CLI_EXIT_FAILURE;
}

typedef struct {
    hpr_field fields[MAX_FIELDS];
    size_t nfields;
    unsigned sizes[MAX_SIZES];
    size_t nsizes;
    unsigned rate, repeat, threads;
    size_t columns;
    unsigned long long seed;
    char devices[MAX_DEVICES][CLI_DEVICE_NAME_LEN];
    size_t ndevices;
    const char *json;
} bench_commit_args;

/* --field F[,F] into a->fields, each koalabear or babybear: 0 or -1. */
static int parse_commit_fields(const char *list, bench_commit_args *a)
{
    if (cli_parse_field_list(list, a->fields, MAX_FIELDS, &a->nfields))
        return -1;
    for (size_t f = 0; f < a->nfields; f++)
        if (a->fields[f] != HPR_FIELD_KOALABEAR && a->fields[f] != HPR_FIELD_BABYBEAR)
            return -1;
    return 0;
}

/* Parses bench commit's options into a: -1 to run, else the exit code. */
static int parse_bench_commit(int argc, char **argv, bench_commit_args *a)
{
    const char *cmd = "bench commit ", *field_s = NULL, *log_n_s = NULL, *rate_s = NULL, *cols_s = NULL,
               *devices_s = NULL, *repeat_s = NULL, *reps_s = NULL, *threads_s = NULL, *seed_s = NULL;
    unsigned long long v;
    cli_opt o[] = {CLI_OPT_LIST("--field", &field_s), CLI_OPT_LIST("--log-n", &log_n_s), CLI_OPT("--rate", &rate_s),
                   CLI_OPT("--columns", &cols_s),     CLI_OPT_LIST("--devices", &devices_s),
                   CLI_OPT("--repeat", &repeat_s),    CLI_OPT("--reps", &reps_s),
                   CLI_OPT("--threads", &threads_s),  CLI_OPT("--seed", &seed_s),        CLI_OPT("--json", &a->json),
                   CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    int rc = cli_parse_options(argc, argv, cmd, bench_commit_help, o, sizeof o / sizeof o[0]);
    if (rc >= 0)
        return rc;
    cli_table_for_output(a->json);
    if (field_s && parse_commit_fields(field_s, a))
        return cli_usage_error(cmd, "--field '%s': expected koalabear, babybear or both, comma-separated", field_s);
    if (log_n_s && cli_parse_uint_list(log_n_s, 0, 30, a->sizes, MAX_SIZES, &a->nsizes))
        return cli_usage_error(cmd, "--log-n '%s': expected comma-separated integers in 0..30 (at most %d)", log_n_s,
                               MAX_SIZES);
    if (rate_s && (cli_parse_uint(rate_s, 1, 8, &v) != 0 || (v & (v - 1)) != 0))
        return cli_usage_error(cmd, "--rate '%s' is not 1, 2, 4 or 8", rate_s);
    if (rate_s)
        a->rate = (unsigned)v;
    if (cols_s && cli_parse_uint(cols_s, 1, 1u << 20, &v) != 0)
        return cli_usage_error(cmd, "--columns '%s' is not an integer in 1..2^20", cols_s);
    if (cols_s)
        a->columns = (size_t)v;
    if (devices_s && cli_parse_device_list(devices_s, 1, a->devices, MAX_DEVICES, &a->ndevices))
        return cli_usage_error(cmd, "--devices '%s': expected a comma-separated list of at most %d devices, each cpu, "
                               "all or cl:P.D", devices_s, MAX_DEVICES);
    if (seed_s && cli_parse_uint(seed_s, 0, ~0ull, &a->seed))
        return cli_usage_error(cmd, "--seed '%s' is not a non-negative integer", seed_s);
    if ((rc = cli_parse_repeat(cmd, repeat_s, reps_s, &a->repeat)) != 0)
        return rc;
    if ((rc = cli_parse_threads(cmd, threads_s, &a->threads)) != 0)
        return rc;
    for (size_t f = 0; f < a->nfields; f++)
        for (size_t k = 0; k < a->nsizes; k++)
            if (a->rate > 1 && a->sizes[k] + commit_log2_rate(a->rate) > hpr_field_two_adicity(a->fields[f]))
                return cli_usage_error(cmd, "2^%u at rate %u is beyond %s's two-adicity (2^%u)", a->sizes[k], a->rate,
                                       cli_field_name(a->fields[f]), hpr_field_two_adicity(a->fields[f]));
    return -1;
}

/* The generated matrix of a (field, log_n) workload, or NULL after printing the error. */
static uint32_t *generated_matrix(hpr_field field, unsigned log_n, size_t columns, unsigned long long seed)
{
    size_t count = columns << log_n;
    uint32_t p = commit_field_modulus(field), *m = malloc(count * sizeof *m);
    if (!m) {
        cli_error("bench commit: out of memory for 2^%u x %zu elements", log_n, columns);
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        m[i] = commit_matrix_element(seed, i, p);
    return m;
}

/* Every device on one (field, log_n) workload, appended to recs: 0 or the exit code. */
static int bench_workload(hpr_ctx *ctx, const bench_commit_args *a, hpr_field field, unsigned log_n,
                          commit_record *recs, size_t *nrecs)
{
    uint32_t *input = generated_matrix(field, log_n, a->columns, a->seed);
    size_t first = *nrecs;
    int rc = input ? 0 : CLI_EXIT_FAILURE;
    for (size_t d = 0; d < a->ndevices && !rc; d++) {
        commit_record *r = &recs[*nrecs];
        *r = (commit_record){field, log_n, a->rate, hpr_ctx_threads(ctx), a->repeat, a->columns, a->seed,
                             a->devices[d], 0, 0, {0}, {0}, CLI_TIMING_NONE};
        if ((rc = measure_commit(ctx, r, input)) != 0)
            break;
        if (memcmp(r->root, recs[first].root, sizeof r->root) != 0) {
            rc = cli_error("bench commit: %s gave another root than %s for %s 2^%u x %zu", r->device,
                           recs[first].device, cli_field_name(field), log_n, a->columns);
            cli_timing_free(&r->timing); /* not a record */
            break;
        }
        print_commit_record(ctx, r);
        cli_print_split(ctx, r->device, "rows");
        (*nrecs)++;
    }
    if (!rc) {
        fprintf(stderr, "  root: ");
        commit_print_root(stderr, recs[first].root);
        fputc('\n', stderr);
    }
    free(input);
    return rc;
}

int cmd_bench_commit(int argc, char **argv)
{
    bench_commit_args a = {{HPR_FIELD_KOALABEAR}, 1, {16}, 1, 2, 5, 0, 16, 1, {"cpu"}, 1, NULL};
    static commit_record recs[MAX_FIELDS * MAX_SIZES * MAX_DEVICES];
    size_t nrecs = 0;
    hpr_ctx *ctx = NULL;
    int rc = parse_bench_commit(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if ((rc = cli_make_ctx(a.threads, "cpu", NULL, "commit", &ctx)) != 0)
        return rc;
    fprintf(cli_table, "bench commit: random matrices from seed %llu (element i = splitmix64(seed + i) mod p)\n",
            a.seed);
    print_commit_header();
    for (size_t f = 0; f < a.nfields && !rc; f++)
        for (size_t k = 0; k < a.nsizes && !rc; k++)
            rc = bench_workload(ctx, &a, a.fields[f], a.sizes[k], recs, &nrecs);
    if (!rc && a.json)
        rc = write_commit_json(a.json, ctx, recs, nrecs);
    for (size_t i = 0; i < nrecs; i++)
        cli_timing_free(&recs[i].timing);
    hpr_ctx_destroy(ctx);
    return rc;
}
