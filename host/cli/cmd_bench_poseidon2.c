/*
 * cmd_bench_poseidon2.c: `hyprove bench poseidon2`, Poseidon2 permutations timed per
 * instance and CPU tier.
 *
 * bench poseidon2: hpr_poseidon2_permute on random states, per instance and CPU tier (the
 * context's tier, named in every row: HPR_CPU or --cpu-tiers choose it); each timed run
 * starts from the same states (copied before the clock starts) and must give the warm-up's
 * result.
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

#define MAX_TIERS 8
#define MAX_INSTANCES 3

static const char *bench_poseidon2_help =
    "usage: hyprove bench poseidon2 [--instance I[,I...]|all] [--count N] [--threads T]\n"
    "                               [--cpu-tiers T[,T...]|all] [--repeat R | --reps R] [--seed S]\n"
    "                               [--json FILE]\n"
    "\n"
    "Times Poseidon2 permutations (hpr_poseidon2_permute, the CPU kernels) of N random states\n"
    "(default 131072): one warm-up, then R timed runs (default 5; --reps is --repeat), each\n"
    "from the same states and checked against the warm-up's result. Prints median and min\n"
    "time, permutations per second in total and per thread, and ns per permutation.\n"
    "--instance: koalabear-16, koalabear-24, babybear-16, a list of them, or all (default).\n"
    "--cpu-tiers: portable, adx, avx2, avx512, neon or all (every tier this processor and build can\n"
    "run; adx has no Poseidon2 kernels of its own and runs the portable ones); default: the\n"
    "one in use (HPR_CPU, else the fastest), named in the tier column. --threads T: CPU\n"
    "threads (default: all cores); --seed S: the states' seed (default 1). --json FILE: also\n"
    "write the records as JSON (atomically; - is stdout, the table then goes to stderr): op\n"
    "poseidon2, instance, width, count, cpu_tier, threads, repeat, median_ms, min_ms,\n"
    "permutations_per_s, permutations_per_s_per_thread, ns_per_permutation, faults.\n";

static const struct {
    const char *name;
    hpr_poseidon2 instance;
    hpr_field field; /* of the random states */
} instances[MAX_INSTANCES] = {{"koalabear-16", HPR_POSEIDON2_KOALABEAR_16, HPR_FIELD_KOALABEAR},
                              {"koalabear-24", HPR_POSEIDON2_KOALABEAR_24, HPR_FIELD_KOALABEAR},
                              {"babybear-16", HPR_POSEIDON2_BABYBEAR_16, HPR_FIELD_BABYBEAR}};

typedef struct {
    unsigned instance; /* index into instances[] */
    size_t count;
    const char *tier;  /* the context's */
    unsigned threads, repeat;
    double median_ms, min_ms;
    cli_faults faults;
    cli_timing timing; /* every run and its statistics (JSON) */
} p2_record;

typedef struct {
    unsigned instances[MAX_INSTANCES];
    size_t ninstances;
    size_t count;
    unsigned repeat, threads;
    unsigned long long seed;
    const char *tiers[MAX_TIERS]; /* NULL: the context's default */
    size_t ntiers;
    const char *json;
} bench_p2_args;

/* --instance I[,I...]|all into a->instances: 0 or -1. */
static int parse_instances(bench_p2_args *a, const char *list)
{
    char names[MAX_INSTANCES * 2][CLI_DEVICE_NAME_LEN];
    size_t count;
    if (strcmp(list, "all") == 0)
        return 0; /* the default: every instance */
    if (cli_split_list(list, names, MAX_INSTANCES * 2, &count))
        return -1;
    a->ninstances = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned k = 0;
        while (k < MAX_INSTANCES && strcmp(names[i], instances[k].name) != 0)
            k++;
        for (size_t j = 0; j < a->ninstances; j++)
            if (a->instances[j] == k)
                return -1; /* twice */
        if (k == MAX_INSTANCES)
            return -1;
        a->instances[a->ninstances++] = k;
    }
    return 0;
}

/* --cpu-tiers T[,T...]|all into a->tiers, each able to run here: 0 or the exit code. */
static int parse_p2_tiers(bench_p2_args *a, const char *list)
{
    static char parsed[MAX_TIERS][CLI_DEVICE_NAME_LEN];
    return cli_parse_cpu_tiers("bench poseidon2 ", list, parsed, a->tiers, MAX_TIERS, &a->ntiers);
}

/* Parses bench poseidon2's options into a: -1 to run, else the exit code. */
static int parse_bench_p2(int argc, char **argv, bench_p2_args *a)
{
    const char *cmd = "bench poseidon2 ", *inst_s = NULL, *count_s = NULL, *threads_s = NULL, *tiers_s = NULL,
               *repeat_s = NULL, *reps_s = NULL, *seed_s = NULL;
    unsigned long long v;
    cli_opt o[] = {CLI_OPT_LIST("--instance", &inst_s), CLI_OPT("--count", &count_s),
                   CLI_OPT("--threads", &threads_s),    CLI_OPT_LIST("--cpu-tiers", &tiers_s),
                   CLI_OPT("--repeat", &repeat_s),      CLI_OPT("--reps", &reps_s),
                   CLI_OPT("--seed", &seed_s),          CLI_OPT("--json", &a->json)};
    int rc = cli_parse_options(argc, argv, cmd, bench_poseidon2_help, o, sizeof o / sizeof o[0]);
    if (rc >= 0)
        return rc;
    cli_table_for_output(a->json);
    if (inst_s && parse_instances(a, inst_s))
        return cli_usage_error(cmd, "--instance '%s': expected koalabear-16, koalabear-24, babybear-16 "
                               "(comma-separated, each once) or all", inst_s);
    if (count_s && cli_parse_uint(count_s, 1, 1u << 24, &v) != 0)
        return cli_usage_error(cmd, "--count '%s' is not an integer in 1..2^24", count_s);
    if (count_s)
        a->count = (size_t)v;
    if (seed_s && cli_parse_uint(seed_s, 0, ~0ull, &a->seed))
        return cli_usage_error(cmd, "--seed '%s' is not a non-negative integer", seed_s);
    if ((rc = cli_parse_repeat(cmd, repeat_s, reps_s, &a->repeat)) != 0)
        return rc;
    if ((rc = cli_parse_threads(cmd, threads_s, &a->threads)) != 0)
        return rc;
    if (tiers_s && (rc = parse_p2_tiers(a, tiers_s)) != 0)
        return rc;
    return -1;
}

/* One run of r->count permutations from input into work: 0 or the exit code. */
static int permute_once(hpr_ctx *ctx, p2_record *r, const uint32_t *input, uint32_t *work, size_t words, double *ms)
{
    memcpy(work, input, words * sizeof *work);
    double t0 = cli_now_seconds();
    hpr_status st = hpr_poseidon2_permute(ctx, instances[r->instance].instance, work, r->count);
    *ms = (cli_now_seconds() - t0) * 1e3;
    if (st == HPR_OK)
        cli_faults_after_call(ctx, &r->faults);
    return st == HPR_OK ? 0 : cli_status_error("bench poseidon2", st, ctx);
}

/* A warm-up and r->repeat timed runs on random states: r's times, 0 or the exit code. */
static int measure_p2(hpr_ctx *ctx, p2_record *r, unsigned long long seed)
{
    size_t words = r->count * hpr_poseidon2_width(instances[r->instance].instance);
    uint32_t p = commit_field_modulus(instances[r->instance].field);
    uint32_t *input = malloc(words * sizeof *input), *first = malloc(words * sizeof *first),
             *work = malloc(words * sizeof *work);
    double *ms = malloc(r->repeat * sizeof *ms), warm;
    int rc = CLI_EXIT_FAILURE;
    if (!input || !first || !work || !ms) {
        cli_error("bench poseidon2: out of memory for %zu states", r->count);
        goto out;
    }
    for (size_t i = 0; i < words; i++)
        input[i] = commit_matrix_element(seed, i, p);
    if ((rc = permute_once(ctx, r, input, first, words, &warm)) != 0)
        goto out;
    for (unsigned k = 0; k < r->repeat; k++) {
        if ((rc = permute_once(ctx, r, input, work, words, &ms[k])) != 0)
            goto out;
        if (memcmp(first, work, words * sizeof *work) != 0) {
            rc = cli_error("bench poseidon2: run %u of %s (tier %s) gave another result than the warm-up", k,
                           instances[r->instance].name, r->tier);
            goto out;
        }
    }
    if ((rc = cli_timing_take(&r->timing, ms, r->repeat, "bench poseidon2 %s (tier %s)", instances[r->instance].name,
                              r->tier)) != 0)
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

static void print_p2_header(void)
{
    fprintf(cli_table, "%-9s %-12s %8s %-8s %7s %6s %11s %11s %9s %12s %8s\n", "op", "instance", "count", "tier",
            "threads", "repeat", "median_ms", "min_ms", "Mperm/s", "Mperm/s/thr", "ns/perm");
}

static void print_p2_record(const p2_record *r)
{
    double per_s = (double)r->count / (r->median_ms * 1e-3);
    fprintf(cli_table, "%-9s %-12s %8zu %-8s %7u %6u %11.3f %11.3f %9.3f %12.3f %8.1f\n", "poseidon2",
            instances[r->instance].name, r->count, r->tier, r->threads, r->repeat, r->median_ms, r->min_ms,
            per_s / 1e6, per_s / r->threads / 1e6, 1e9 / per_s);
    fflush(cli_table);
}

static int write_p2_json(const char *path, const p2_record *recs, size_t count)
{
    cli_json j;
    if (cli_json_begin(&j, path, "bench poseidon2", NULL) != 0)
        return CLI_EXIT_FAILURE;
    for (size_t i = 0; i < count; i++) {
        const p2_record *r = &recs[i];
        double per_s = (double)r->count / (r->median_ms * 1e-3);
        fprintf(cli_json_record(&j),
                "{\"op\": \"poseidon2\", \"instance\": \"%s\", \"width\": %u, \"count\": %zu, \"device\": \"cpu\", "
                "\"cpu_tier\": \"%s\", \"threads\": %u, \"repeat\": %u, \"median_ms\": %.6f, \"min_ms\": %.6f, "
                "\"permutations_per_s\": %.1f, \"permutations_per_s_per_thread\": %.1f, \"ns_per_permutation\": %.3f",
                instances[r->instance].name, hpr_poseidon2_width(instances[r->instance].instance), r->count, r->tier,
                r->threads, r->repeat, r->median_ms, r->min_ms, per_s, per_s / r->threads, 1e9 / per_s);
        cli_timing_json(j.fp, &r->timing);
        cli_faults_json(j.fp, &r->faults);
        fputs("}", j.fp);
    }
    return cli_json_end(&j) == 0 ? 0 : CLI_EXIT_FAILURE;
}

/* The library's static name of a tier (it outlives the context that named it). */
static const char *tier_name(const char *name)
{
    for (unsigned t = 0; t < hpr_cpu_tier_count(); t++)
        if (strcmp(hpr_cpu_tier_name(t), name) == 0)
            return hpr_cpu_tier_name(t);
    return "?";
}

/* Every instance on one CPU tier (NULL: the default), appended to recs: 0 or the exit code. */
static int bench_p2_tier(const bench_p2_args *a, const char *tier, p2_record *recs, size_t *nrecs)
{
    hpr_ctx *ctx = NULL;
    int rc = cli_make_ctx(a->threads, "cpu", tier, "commit", &ctx);
    for (size_t i = 0; i < a->ninstances && !rc; i++) {
        p2_record *r = &recs[*nrecs];
        *r = (p2_record){a->instances[i], a->count, tier_name(hpr_ctx_cpu_tier(ctx)), hpr_ctx_threads(ctx),
                         a->repeat, 0, 0, {0}, CLI_TIMING_NONE};
        if ((rc = measure_p2(ctx, r, a->seed)) == 0) {
            print_p2_record(r);
            (*nrecs)++;
        }
    }
    hpr_ctx_destroy(ctx);
    return rc;
}

int cmd_bench_poseidon2(int argc, char **argv)
{
    bench_p2_args a = {{0, 1, 2}, MAX_INSTANCES, (size_t)1 << 17, 5, 0, 1, {NULL}, 1, NULL};
    static p2_record recs[MAX_INSTANCES * MAX_TIERS];
    size_t nrecs = 0;
    int rc = parse_bench_p2(argc, argv, &a);
    if (rc >= 0)
        return rc;
    print_p2_header();
    rc = 0;
    for (size_t t = 0; t < a.ntiers && !rc; t++)
        rc = bench_p2_tier(&a, a.tiers[t], recs, &nrecs);
    if (!rc && a.json)
        rc = write_p2_json(a.json, recs, nrecs);
    for (size_t i = 0; i < nrecs; i++)
        cli_timing_free(&recs[i].timing);
    return rc;
}
