/*
 * soak.c: many proofs in one process, for leaks and faults (issue 21 item 7; bench/soak.sh
 * runs it; not in CI). The public API only.
 *
 * What: COUNT proofs of one witness with one prover handle, on one context (or, with
 * --fresh-context, a new context for every proof: a device that failed stays unusable on its
 * context, so fault runs need a fresh one for the device to join again). After every proof
 * the resident set (/proc/self/statm) is sampled; every K-th proof is verified
 * (hpr_groth16_verify; K = 1 verifies all). At the end: the time, the RSS after proof 1,
 * after proof WARM (default 100, the end of the warm-up: allocator arenas, twiddle and
 * program caches settled) and after the last, the largest after WARM, and the growth: that
 * largest less the RSS after WARM. Exit status 0 when every proof succeeded and verified and
 * the growth is below --max-growth MiB (default 4), else 1.
 * Faults: with HPR_SCHED_INJECT_FAULT (e.g. cl:0.0@rand:SEED:P, random units of work of the
 * device fail) under --device all, the proofs whose notice names a fault and the proofs in
 * which an OpenCL device computed a phase are counted: every proof must verify all the same.
 *
 * usage: hpr_soak ZKEY WTNS [--count N] [--device D] [--threads T] [--verify-every K]
 *                 [--warm W] [--max-growth MIB] [--fresh-context]
 */
#define _POSIX_C_SOURCE 200809L
#include "hyprove.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

typedef struct {
    const char *zkey, *wtns, *device;
    unsigned long count, verify_every, warm;
    unsigned threads;
    double max_growth_mib;
    int fresh;
} soak_opts;

static double now_s(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* The resident set in bytes (0 when /proc is not there). */
static size_t rss_bytes(void)
{
    unsigned long long size = 0, resident = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%llu %llu", &size, &resident) != 2)
            resident = 0;
        fclose(f);
    }
    return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

static int usage(void)
{
    fputs("usage: hpr_soak ZKEY WTNS [--count N] [--device D] [--threads T] [--verify-every K] [--warm W]\n"
          "                [--max-growth MIB] [--fresh-context]\n",
          stderr);
    return 2;
}

static int parse(int argc, char **argv, soak_opts *o)
{
    *o = (soak_opts){NULL, NULL, "cpu", 1000, 100, 100, 0, 4.0, 0};
    int npos = 0;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i], *v = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(a, "--fresh-context") == 0) {
            o->fresh = 1;
            continue;
        }
        if (strncmp(a, "--", 2) == 0 && !v)
            return -1;
        if (strcmp(a, "--count") == 0)
            o->count = strtoul(v, NULL, 10);
        else if (strcmp(a, "--device") == 0)
            o->device = v;
        else if (strcmp(a, "--threads") == 0)
            o->threads = (unsigned)strtoul(v, NULL, 10);
        else if (strcmp(a, "--verify-every") == 0)
            o->verify_every = strtoul(v, NULL, 10);
        else if (strcmp(a, "--warm") == 0)
            o->warm = strtoul(v, NULL, 10);
        else if (strcmp(a, "--max-growth") == 0)
            o->max_growth_mib = strtod(v, NULL);
        else if (strncmp(a, "--", 2) == 0)
            return -1;
        else if (npos < 2) {
            *(npos++ ? &o->wtns : &o->zkey) = a;
            continue;
        } else {
            return -1;
        }
        i++;
    }
    if (npos != 2 || o->count == 0 || o->verify_every == 0)
        return -1;
    if (o->warm >= o->count)
        o->warm = o->count > 1 ? o->count / 2 : 1;
    return 0;
}

static hpr_ctx *make_ctx(const soak_opts *o)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.devices = o->device;
    cfg.threads = o->threads;
    hpr_status st = hpr_ctx_create(&cfg, &ctx);
    if (st != HPR_OK)
        fprintf(stderr, "hpr_soak: creating the context: %s (%s)\n", hpr_status_str(st), hpr_ctx_error_detail(NULL));
    return ctx;
}

/* Whether an OpenCL device computed some phase of the proof. */
static int device_joined(const hpr_groth16_proof *pf)
{
    for (int p = 0; p < HPR_G16_PHASES; p++)
        if (strstr(pf->report->devices[p], "cl:"))
            return 1;
    return 0;
}

int main(int argc, char **argv)
{
    soak_opts o;
    size_t wlen = 0, rss_first = 0, rss_warm = 0, rss_last = 0, rss_max = 0;
    unsigned long verified = 0, faulted = 0, joined = 0, failed = 0;
    if (parse(argc, argv, &o) != 0)
        return usage();
    void *wtns = NULL;
    hpr_status rd = hpr_input_read(o.wtns, 0, 0, &wtns, &wlen, NULL, 0); /* the witness, read once */
    hpr_ctx *ctx = make_ctx(&o);
    hpr_groth16_prover *prover = NULL;
    if (rd != HPR_OK || wlen == 0 || !ctx) {
        fprintf(stderr, "hpr_soak: cannot read '%s' or make a context\n", o.wtns);
        return 1;
    }
    hpr_status st = hpr_groth16_prover_create(ctx, o.zkey, &prover);
    if (st != HPR_OK) {
        fprintf(stderr, "hpr_soak: %s: %s (%s)\n", o.zkey, hpr_status_str(st), hpr_ctx_error_detail(ctx));
        return 1;
    }
    double t0 = now_s();
    for (unsigned long i = 1; i <= o.count; i++) {
        hpr_groth16_report report = {.struct_size = sizeof report};
        hpr_groth16_proof proof = {.struct_size = sizeof proof, .report = &report};
        hpr_ctx *c = ctx;
        if (o.fresh && !(c = make_ctx(&o)))
            return 1;
        st = hpr_groth16_prove(c, prover, wtns, wlen, &proof);
        if (st != HPR_OK) {
            fprintf(stderr, "hpr_soak: proof %lu: %s (%s)\n", i, hpr_status_str(st), hpr_ctx_error_detail(c));
            failed++;
        } else {
            faulted += hpr_ctx_notice(c)[0] != '\0';
            joined += device_joined(&proof);
            if (i % o.verify_every == 0) {
                hpr_status v = hpr_groth16_verify(c, prover, &proof);
                verified += v == HPR_OK;
                if (v != HPR_OK) {
                    fprintf(stderr, "hpr_soak: proof %lu does not verify: %s (%s)\n", i, hpr_status_str(v),
                            hpr_ctx_error_detail(c));
                    failed++;
                }
            }
        }
        hpr_groth16_proof_clear(&proof);
        if (o.fresh)
            hpr_ctx_destroy(c);
        size_t rss = rss_bytes();
        if (i == 1)
            rss_first = rss;
        if (i == o.warm)
            rss_warm = rss;
        if (i >= o.warm && rss > rss_max)
            rss_max = rss;
        rss_last = rss;
        if (i % 100 == 0 || i == o.count)
            fprintf(stderr, "hpr_soak: %lu proofs, %.1f s, RSS %.2f MiB\n", i, now_s() - t0, rss / 1048576.0);
    }
    double seconds = now_s() - t0, growth = ((double)rss_max - (double)rss_warm) / 1048576.0;
    printf("{\"proofs\": %lu, \"device\": \"%s\", \"fresh_context\": %d, \"seconds\": %.2f, \"ms_per_proof\": %.2f, "
           "\"rss_mib\": {\"proof_1\": %.2f, \"proof_%lu\": %.2f, \"proof_%lu\": %.2f, \"max_after_%lu\": %.2f}, "
           "\"growth_mib\": %.3f, \"verified\": %lu, \"failed\": %lu, \"proofs_with_faults\": %lu, "
           "\"proofs_with_a_device\": %lu}\n",
           o.count, o.device, o.fresh, seconds, 1000 * seconds / (double)o.count, rss_first / 1048576.0, o.warm,
           rss_warm / 1048576.0, o.count, rss_last / 1048576.0, o.warm, rss_max / 1048576.0, growth, verified, failed,
           faulted, joined);
    hpr_groth16_prover_destroy(prover);
    hpr_ctx_destroy(ctx);
    free(wtns);
    if (failed || growth >= o.max_growth_mib) {
        fprintf(stderr, "hpr_soak: FAILED: %lu failed proofs or checks, RSS growth %.3f MiB (limit %.1f)\n", failed,
                growth, o.max_growth_mib);
        return 1;
    }
    return 0;
}
