/*
 * memory_peak.c: the memory budget's estimates against the measured peak (issue 21 item 4;
 * bench/memory.py runs it over sizes for the table of docs/memory.md; not in CI).
 *
 * One job per process, on the CPU (the first call of a fresh context, as a refused or
 * accepted call meets it): its estimate (host/core/memory_budget.c), then the job, while a thread
 * samples the anonymous resident set (/proc/self/statm: resident less shared pages) every
 * 100 microseconds. Printed as one JSON line: the estimate, the peak growth of the anonymous
 * set over its level before the job (the job's working set: the key, the inputs and the
 * context are there before), and the growth of the peak resident set (VmHWM, reset through
 * /proc/self/clear_refs just before; it counts the library's code pages faulted in by the
 * job too). A proof's key is read into memory first (hpr_groth16_prover_create_from_buffer),
 * so that its pages are not part of the job's growth.
 *
 * usage: hpr_memory_peak proof ZKEY WTNS [THREADS]
 *        hpr_memory_peak msm bn254|bls12-381 g1|g2 LOG_N [THREADS]
 *        hpr_memory_peak ntt|lde LOG_N [COLUMNS|RATE] [THREADS]    (BN254 Fr)
 */
#define _GNU_SOURCE
#include "host/groth16/groth16.h"
#include "host/core/memory_budget.h"
#include "host/groth16/proof_memory.h"
#include "host/msm/msm_memory.h"
#include "host/ntt/ntt_memory.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static atomic_int sampling;
static size_t anon_peak;

static size_t anon_now(void)
{
    unsigned long long size, resident, shared;
    FILE *f = fopen("/proc/self/statm", "r");
    int ok = f && fscanf(f, "%llu %llu %llu", &size, &resident, &shared) == 3;
    if (f)
        fclose(f);
    return ok ? (size_t)(resident - shared) * (size_t)sysconf(_SC_PAGESIZE) : 0;
}

static size_t status_kb(const char *key)
{
    char line[256];
    size_t v = 0, len = strlen(key);
    FILE *f = fopen("/proc/self/status", "r");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0)
            v = strtoull(line + len + 1, NULL, 10);
    if (f)
        fclose(f);
    return v * 1024;
}

static void *sampler(void *arg)
{
    struct timespec pause = {0, 100000};
    (void)arg;
    while (atomic_load(&sampling)) {
        size_t a = anon_now();
        if (a > anon_peak)
            anon_peak = a;
        nanosleep(&pause, NULL);
    }
    return NULL;
}

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* A whole regular file (the library's input checks: hpr_input_read), NULL when it cannot be
 * read or is empty. */
static unsigned char *read_all(const char *path, size_t *len)
{
    void *data = NULL;
    if (hpr_input_read(path, 0, 0, &data, len, NULL, 0) != HPR_OK || *len == 0) {
        free(data);
        return NULL;
    }
    return data;
}

typedef struct {
    const char *kind;
    hpr_ctx *ctx;
    /* proof */
    hpr_groth16_prover *prover;
    unsigned char *wtns;
    size_t wtns_len;
    /* msm */
    hpr_curve curve;
    hpr_group group;
    unsigned char *points, *scalars;
    /* msm, ntt, lde */
    size_t n, columns;
    unsigned log_n, rate;
    unsigned char *data, *out;
} job;

static hpr_status run(job *j)
{
    unsigned char out[192];
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    if (strcmp(j->kind, "proof") == 0) {
        hpr_status st = hpr_groth16_prove(j->ctx, j->prover, j->wtns, j->wtns_len, &proof);
        hpr_groth16_proof_clear(&proof);
        return st;
    }
    if (strcmp(j->kind, "msm") == 0)
        return hpr_msm(j->ctx, j->curve, j->group, j->points, j->scalars, j->n, out);
    if (strcmp(j->kind, "ntt") == 0) {
        hpr_ntt_opts o = {sizeof o, 0, HPR_NTT_NN, NULL, NULL, j->columns, 0, "cpu"};
        return hpr_ntt(j->ctx, HPR_FIELD_BN254_FR, j->log_n, j->data, &o);
    }
    return hpr_ntt_lde(j->ctx, HPR_FIELD_BN254_FR, j->log_n, j->rate, NULL, 1, j->data, j->out);
}

/* The job's inputs made and its estimate; -1 on bad arguments. */
static int prepare(job *j, int argc, char **argv, size_t *estimate, char *size, size_t size_len)
{
    unsigned threads = 0;
    hpr_config cfg;
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    j->kind = argv[1];
    if (strcmp(j->kind, "proof") == 0 && argc >= 4) {
        size_t zlen;
        unsigned char *zkey = read_all(argv[2], &zlen);
        size_t full, least;
        threads = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
        cfg.threads = threads;
        if (!zkey || !(j->wtns = read_all(argv[3], &j->wtns_len)) || hpr_ctx_create(&cfg, &j->ctx) != HPR_OK ||
            hpr_groth16_prover_create_from_buffer(j->ctx, zkey, zlen, &j->prover) != HPR_OK)
            return -1;
        free(zkey);
        const zkey_file *zk = g16_prover_zkey(j->prover);
        mem_proof_need(j->ctx, zk, NULL, 0, &full, &least);
        *estimate = full;
        snprintf(size, size_len, "domain 2^%u, %u vars", (unsigned)__builtin_ctz(zk->domain_size), zk->n_vars);
        return 0;
    }
    if (strcmp(j->kind, "msm") == 0 && argc >= 5) {
        j->curve = strcmp(argv[2], "bn254") == 0 ? HPR_CURVE_BN254 : HPR_CURVE_BLS12_381;
        j->group = strcmp(argv[3], "g2") == 0 ? HPR_G2 : HPR_G1;
        j->log_n = (unsigned)atoi(argv[4]);
        j->n = (size_t)1 << j->log_n;
        cfg.threads = argc > 5 ? (unsigned)atoi(argv[5]) : 0;
        size_t ps = hpr_point_size(j->curve, j->group);
        if (hpr_ctx_create(&cfg, &j->ctx) != HPR_OK || !(j->points = malloc(j->n * ps)) ||
            !(j->scalars = malloc(j->n * 32)) ||
            hpr_random_msm_inputs(j->ctx, j->curve, j->group, j->n, 1, j->points, j->scalars) != HPR_OK)
            return -1;
        msm_points pts = {j->points, j->n, 0, 0, 0};
        *estimate = mem_msm_need(j->ctx, msm_ops(j->curve, j->group), &pts, j->scalars, j->n, NULL);
        snprintf(size, size_len, "%s %s 2^%u", argv[2], argv[3], j->log_n);
        return 0;
    }
    if ((strcmp(j->kind, "ntt") == 0 || strcmp(j->kind, "lde") == 0) && argc >= 3) {
        int lde = strcmp(j->kind, "lde") == 0;
        j->log_n = (unsigned)atoi(argv[2]);
        j->n = (size_t)1 << j->log_n;
        j->columns = lde ? 1 : argc > 3 ? strtoul(argv[3], NULL, 10) : 1;
        j->rate = lde ? (argc > 3 ? (unsigned)atoi(argv[3]) : 4) : 1;
        cfg.threads = argc > 4 ? (unsigned)atoi(argv[4]) : 0;
        if (hpr_ctx_create(&cfg, &j->ctx) != HPR_OK || !(j->data = calloc(j->n * j->columns, 32)) ||
            (lde && !(j->out = malloc(j->n * j->rate * 32))))
            return -1;
        for (size_t i = 0; i < j->n * j->columns; i++) /* small canonical elements, every page touched */
            j->data[32 * i] = (unsigned char)(i * 7 + 1);
        if (lde)
            memset(j->out, 0, j->n * j->rate * 32);
        ntt_plan pl;
        memset(&pl, 0, sizeof pl);
        pl.ops = ntt_field_ops_for(HPR_FIELD_BN254_FR, j->ctx->cpu_tier);
        pl.n = j->n * j->rate;
        pl.log_n = j->log_n + (j->rate == 8 ? 3 : j->rate == 4 ? 2 : j->rate == 2 ? 1 : 0);
        pl.columns = j->columns;
        pl.lde_log_rate = lde ? pl.log_n - j->log_n : 0;
        *estimate = mem_ntt_need(j->ctx, &pl);
        snprintf(size, size_len, lde ? "bn254-fr 2^%u x rate %u" : "bn254-fr 2^%u x %u columns", j->log_n,
                 lde ? j->rate : (unsigned)j->columns);
        return 0;
    }
    return -1;
}

int main(int argc, char **argv)
{
    job j;
    size_t estimate = 0;
    char size[96];
    pthread_t thread;
    memset(&j, 0, sizeof j);
    if (argc < 3 || prepare(&j, argc, argv, &estimate, size, sizeof size) != 0) {
        fputs("usage: hpr_memory_peak proof ZKEY WTNS [THREADS] | msm CURVE g1|g2 LOG_N [THREADS] |\n"
              "       ntt LOG_N [COLUMNS] [THREADS] | lde LOG_N [RATE] [THREADS]\n",
              stderr);
        return 2;
    }
    FILE *clear = fopen("/proc/self/clear_refs", "w");
    if (clear) { /* "5": VmHWM back to the resident set now */
        fputs("5", clear);
        fclose(clear);
    }
    size_t anon0 = anon_now(), rss0 = status_kb("VmRSS:");
    anon_peak = anon0;
    atomic_store(&sampling, 1);
    pthread_create(&thread, NULL, sampler, NULL);
    double t0 = now_s();
    hpr_status st = run(&j);
    double seconds = now_s() - t0;
    atomic_store(&sampling, 0);
    pthread_join(thread, NULL);
    size_t a = anon_now(), hwm = status_kb("VmHWM:");
    if (a > anon_peak)
        anon_peak = a;
    if (st != HPR_OK) {
        fprintf(stderr, "hpr_memory_peak: %s: %s (%s)\n", size, hpr_status_str(st), hpr_ctx_error_detail(j.ctx));
        return 1;
    }
    size_t measured = anon_peak - anon0;
    printf("{\"job\": \"%s\", \"size\": \"%s\", \"threads\": %u, \"tier\": \"%s\", \"estimate\": %zu, "
           "\"anon_peak_growth\": %zu, \"hwm_growth\": %zu, \"rss_before\": %zu, \"ratio\": %.2f, \"seconds\": %.3f}\n",
           j.kind, size, hpr_ctx_threads(j.ctx), hpr_ctx_cpu_tier(j.ctx), estimate, measured,
           hwm > rss0 ? hwm - rss0 : 0, rss0, measured ? (double)estimate / (double)measured : 0.0, seconds);
    return 0;
}
