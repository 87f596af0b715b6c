/*
 * cli_bench.c: a context from a command's options and the statistics of timed runs (see
 * cli_bench.h). One copy, so that every command reports a bad device, thread count, repeat
 * count or CPU tier with the same words and computes its median the same way.
 */
#include "cli_bench.h"
#include "cli_progress.h"

#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Why a device name did not resolve, listing the OpenCL devices there are (or why there are
 * none). Returns CLI_EXIT_FAILURE. */
static int unknown_device_error(const char *device)
{
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *probe = NULL;
    char list[256] = "";
    size_t used = 0;
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    cfg.threads = 1;
    if (hpr_ctx_create(&cfg, &probe) != HPR_OK)
        return cli_error("device '%s' is not available", device);
    unsigned count = hpr_device_count(probe);
    for (unsigned i = 0; i < count && used + 20 < sizeof list; i++) {
        hpr_device_info info = {.struct_size = sizeof info};
        if (hpr_device_get_info(probe, i, &info) == HPR_OK)
            used += (size_t)snprintf(list + used, sizeof list - used, "%s%s", i ? ", " : "", info.id);
    }
    if (count == 0)
        cli_error("device '%s' is not available: %s", device, hpr_opencl_notice(probe));
    else
        cli_error("device '%s' is not available (OpenCL devices: %s)", device, list);
    hpr_ctx_destroy(probe);
    return CLI_EXIT_FAILURE;
}

/* The context of cfg, whose threads, devices and tier are set here; 0 or the exit code. */
static int make_ctx(hpr_config *cfg, unsigned threads, const char *devices, const char *tier, hpr_ctx **ctx)
{
    const char *why;
    cfg->threads = threads;
    cfg->devices = devices;
    cfg->cpu_tier = tier;
    hpr_status st = hpr_ctx_create(cfg, ctx);
    if (st == HPR_ERR_UNKNOWN_DEVICE)
        return unknown_device_error(devices);
    if (st == HPR_ERR_CPU_TIER || st == HPR_ERR_INVALID_ARGUMENT) {
        const char *name = tier ? tier : getenv("HPR_CPU");
        if (name && hpr_cpu_tier_check(name, &why) != HPR_OK)
            return cli_error("CPU tier '%s'%s: %s", name, tier ? "" : " (from HPR_CPU)", why);
    }
    return st == HPR_OK ? 0 : cli_status_error("creating the context", st, NULL);
}

int cli_make_ctx(unsigned threads, const char *devices, const char *tier, const char *progress_what, hpr_ctx **ctx)
{
    hpr_config cfg;
    hpr_config_default(&cfg);
    if (progress_what)
        cli_progress_attach(&cfg, progress_what);
    return make_ctx(&cfg, threads, devices, tier, ctx);
}

/* --threads and --devices checked: 0, or the exit code of a usage error naming cmd. */
static int check_ctx_options(const char *devices, const char *threads_s, const char *cmd, unsigned *threads)
{
    int rc = cli_parse_threads(cmd, threads_s, threads);
    if (rc != 0)
        return rc;
    if (devices && cli_parse_device(devices, 1) != 0)
        return cli_usage_error(cmd, "--devices '%s' is not auto, cpu, all or cl:P.D", devices);
    return 0;
}

int cli_ctx_from_options(const char *devices, const char *threads_s, const char *tier, const char *cmd,
                         const char *progress_what, hpr_ctx **ctx)
{
    unsigned threads = 0;
    int rc = check_ctx_options(devices, threads_s, cmd, &threads);
    return rc ? rc : cli_make_ctx(threads, devices ? devices : "auto", tier, progress_what, ctx);
}

int cli_ctx_with_progress(const char *devices, const char *threads_s, const char *tier, const char *cmd,
                          hpr_progress_fn progress, void *user, double interval_s, size_t memory_limit,
                          hpr_ctx **ctx)
{
    unsigned threads = 0;
    hpr_config cfg;
    int rc = check_ctx_options(devices, threads_s, cmd, &threads);
    if (rc != 0)
        return rc;
    hpr_config_default(&cfg);
    cfg.progress = progress;
    cfg.progress_user = user;
    cfg.progress_interval_s = interval_s;
    cfg.memory_limit = memory_limit;
    return make_ctx(&cfg, threads, devices ? devices : "auto", tier, ctx);
}

int cli_parse_threads(const char *cmd, const char *s, unsigned *threads)
{
    unsigned long long v = 0;
    if (s && cli_parse_uint(s, 1, HPR_MAX_THREADS, &v) != 0)
        return cli_usage_error(cmd, "--threads '%s' is not an integer in 1..%d (HPR_MAX_THREADS)", s, HPR_MAX_THREADS);
    *threads = (unsigned)v;
    return 0;
}

int cli_parse_repeat(const char *cmd, const char *repeat_s, const char *reps_s, unsigned *repeat)
{
    unsigned long long v = 5;
    const char *s = repeat_s ? repeat_s : reps_s;
    if (repeat_s && reps_s)
        return cli_usage_error(cmd, "give --repeat or --reps (the same option), not both");
    if (s && cli_parse_uint(s, 1, 1000, &v) != 0)
        return cli_usage_error(cmd, "--%s '%s' is not an integer in 1..1000", repeat_s ? "repeat" : "reps", s);
    *repeat = (unsigned)v;
    return 0;
}

void cli_stats_of(double *ms, unsigned count, cli_stats *s)
{
    double sum = 0, squares = 0;
    qsort(ms, count, sizeof *ms, cli_compare_doubles);
    for (unsigned i = 0; i < count; i++)
        sum += ms[i];
    s->mean = sum / count;
    for (unsigned i = 0; i < count; i++)
        squares += (ms[i] - s->mean) * (ms[i] - s->mean);
    s->median = count % 2 ? ms[count / 2] : 0.5 * (ms[count / 2 - 1] + ms[count / 2]);
    s->min = ms[0];
    s->max = ms[count - 1];
    s->sd = count > 1 ? sqrt(squares / (count - 1)) : 0;
}

#define NOISY_RATIO 1.5 /* max / min over which a record's runs are called noisy */

int cli_timing_take(cli_timing *t, double *ms, unsigned count, const char *what_fmt, ...)
{
    char what[128];
    va_list ap;
    double *sorted = malloc((count ? count : 1) * sizeof *sorted);
    memset(t, 0, sizeof *t);
    va_start(ap, what_fmt);
    vsnprintf(what, sizeof what, what_fmt, ap);
    va_end(ap);
    if (!sorted)
        return cli_error("%s: out of memory", what);
    memcpy(sorted, ms, count * sizeof *ms);
    cli_stats_of(sorted, count, &t->stats);
    free(sorted);
    t->runs = ms;
    t->count = count;
    if (count > 1 && t->stats.min > 0 && t->stats.max > NOISY_RATIO * t->stats.min)
        fprintf(stderr, "hyprove: note: %s: the slowest run took %.2fx the fastest (%.3f vs %.3f ms): a noisy "
                "machine, the median is less sure (every run is in the JSON's runs_ms)\n",
                what, t->stats.max / t->stats.min, t->stats.max, t->stats.min);
    return 0;
}

void cli_timing_free(cli_timing *t)
{
    free(t->runs);
    memset(t, 0, sizeof *t);
}

void cli_timing_json(FILE *fp, const cli_timing *t)
{
    fprintf(fp, ", \"mean_ms\": %.6f, \"sd_ms\": %.6f, \"max_ms\": %.6f, \"warmup_runs\": 1, \"runs_ms\": [",
            t->stats.mean, t->stats.sd, t->stats.max);
    for (unsigned i = 0; i < t->count; i++)
        fprintf(fp, "%s%.6f", i ? ", " : "", t->runs[i]);
    fputs("]", fp);
}
