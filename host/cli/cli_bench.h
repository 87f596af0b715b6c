/*
 * cli_bench.h: the scaffolding that the CLI's commands share to make a context from their
 * options and to time repeated runs (host/cli/cli_bench.c): msm and bench msm, ntt and bench
 * ntt, commit, bench commit and bench poseidon2, groth16 prove, prove-batch, serve and bench
 * groth16. The JSON envelope of their records is cli_json.h.
 */
#ifndef HOST_CLI_CLI_BENCH_H
#define HOST_CLI_CLI_BENCH_H

#include "cli.h"

/* A context of threads (0: every core) on devices ("cpu", "all", "cl:P.D") and CPU tier (NULL:
 * HPR_CPU, else the fastest), with the progress display for progress_what (NULL: none). 0, or
 * the exit code after printing the error: an unknown device is named with the devices there
 * are, a tier that cannot run with why (HPR_CPU named when it chose the tier). */
int cli_make_ctx(unsigned threads, const char *devices, const char *tier, const char *progress_what, hpr_ctx **ctx);

/* cli_make_ctx from a command's option strings: --devices (NULL: "auto"; refused unless auto,
 * cpu, all or cl:P.D) and --threads (NULL: every core), with cmd naming the command in a usage
 * error. 0, or the exit code after printing the error. */
int cli_ctx_from_options(const char *devices, const char *threads_s, const char *tier, const char *cmd,
                         const char *progress_what, hpr_ctx **ctx);

/* cli_ctx_from_options with the caller's progress callback (and its user pointer, reports at
 * most every interval_s) instead of the terminal's progress line, and memory_limit as
 * hpr_config's (0: HPR_MAX_MEMORY or the memory available, as there). */
int cli_ctx_with_progress(const char *devices, const char *threads_s, const char *tier, const char *cmd,
                          hpr_progress_fn progress, void *user, double interval_s, size_t memory_limit,
                          hpr_ctx **ctx);

/* --threads T, 1..HPR_MAX_THREADS (NULL: 0, every core): 0 or the exit code of a usage error
 * naming cmd. */
int cli_parse_threads(const char *cmd, const char *s, unsigned *threads);

/* --repeat R or its alias --reps R (default 5, 1..1000): 0 or the exit code of a usage error. */
int cli_parse_repeat(const char *cmd, const char *repeat_s, const char *reps_s, unsigned *repeat);

/* The statistics of count timed runs (count >= 1), in the runs' unit. */
typedef struct {
    double median, min, max, mean, sd; /* sd: the sample standard deviation (0 for one run) */
} cli_stats;

/* s from ms[0..count) (sorted in place). */
void cli_stats_of(double *ms, unsigned count, cli_stats *s);

/* A record's timed runs: their statistics and every run's time in the order they ran, as the
 * bench JSON carries them (cli_timing_json). runs is the caller's malloc'ed array, kept. */
typedef struct {
    cli_stats stats;
    double *runs;
    unsigned count;
} cli_timing;
#define CLI_TIMING_NONE {{0, 0, 0, 0, 0}, NULL, 0} /* no runs yet: a record's initializer */

/* t from the runs ms[0..count) (taken over: freed by cli_timing_free; ms is left in run
 * order), and on stderr a note (not a warning: nothing failed) naming the record (what_fmt,
 * printf-style) when the slowest run took over 1.5 times the fastest (a noisy machine: the
 * median is then less sure). 0, or CLI_EXIT_FAILURE after printing the error (no memory; ms is
 * then still the caller's). */
int cli_timing_take(cli_timing *t, double *ms, unsigned count, const char *what_fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
void cli_timing_free(cli_timing *t);

/* ", \"mean_ms\": ..., \"sd_ms\": ..., \"max_ms\": ..., \"warmup_runs\": 1, \"runs_ms\": [...]" of
 * t (median_ms and min_ms are the records' own fields; every bench makes one untimed warm-up
 * run before the timed ones). */
void cli_timing_json(FILE *fp, const cli_timing *t);

#endif
