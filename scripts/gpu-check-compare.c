/*
 * gpu-check-compare.c: the correctness step of scripts/gpu-check.sh in one process: MSMs
 * (G1 and G2, both curves, both OpenCL MSM kernels) and NTTs (forward and inverse) on one
 * OpenCL device, each compared byte for byte with the same call on the CPU.
 *
 * Why one process: NVIDIA's program binaries are PTX, which the driver compiles again in
 * every new process (unless its compute cache holds it); the shell loop this replaces ran 48
 * processes. Here each MSM kernel (HPR_CL_MSM, read when a context is created) gets one
 * context, so each program is built or loaded once, and each case's inputs and CPU result
 * are made once for every kernel.
 *
 * A device call that fails and is redone on the CPU still gives the right answer: such a call
 * (hpr_ctx_notice not empty, or an MSM whose run report shows no tile on the device) counts
 * as a failure, as does any call that returns an error.
 *
 * Built by gpu-check.sh against the build's libhyprove (public API only):
 *   cc -std=c11 -O2 -I host/include scripts/gpu-check-compare.c -L BUILD -lhyprove
 * Usage: gpu-check-compare DEVICE [--msm-log-n N,..] [--g2-log-n N,..] [--ntt-log-n N,..]
 *                          [--seeds S] [--kernels K,..]
 * Prints one line per comparison ("msm bn254 g1 2^10 seed 1 sorted: same", DIFFERENT, or
 * FAILED and why) and a last line "compare: N same, M different, K failed"; exit 0 when every
 * comparison matched, 1 otherwise, 2 for a usage error.
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "hyprove.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LIST 16

typedef struct {
    unsigned v[MAX_LIST];
    size_t n;
} uint_list;

typedef struct {
    const char *device;
    uint_list msm_log_n, g2_log_n, ntt_log_n;
    unsigned seeds;
    char kernels[64]; /* comma-separated HPR_CL_MSM values */
    unsigned same, different, failed;
} compare_run;

/* "1,10,16" into l; an empty string is an empty list. 0, or -1 when malformed. */
static int parse_list(const char *s, uint_list *l)
{
    l->n = 0;
    while (*s) {
        char *end;
        unsigned long v = strtoul(s, &end, 10);
        if (end == s || v > 28 || l->n == MAX_LIST)
            return -1;
        l->v[l->n++] = (unsigned)v;
        s = end;
        if (*s == ',')
            s++;
        else if (*s)
            return -1;
    }
    return 0;
}

/* One comparison's line: same, DIFFERENT (both ran, the bytes differ) or FAILED (why). */
static void verdict(compare_run *r, int equal, const char *what, const char *why)
{
    const char *v = why[0] ? "FAILED" : equal ? "same" : "DIFFERENT";
    if (why[0])
        r->failed++;
    else if (equal)
        r->same++;
    else
        r->different++;
    printf("%s: %s%s%s%s\n", what, v, why[0] ? " (" : "", why, why[0] ? ")" : "");
    fflush(stdout);
}

/* Whether the device computed the last MSM of ctx itself (a tile done, none failed). */
static int device_ran(hpr_ctx *ctx, const char *device)
{
    hpr_run_report rep = {.struct_size = sizeof rep};
    if (hpr_ctx_last_report(ctx, &rep) != HPR_OK)
        return 0;
    for (unsigned i = 0; i < rep.ndevices && i < HPR_REPORT_MAX_DEVICES; i++)
        if (strcmp(rep.devices[i].device, device) == 0)
            return rep.devices[i].tiles > 0 && rep.devices[i].failures == 0;
    return 0;
}

#define MAX_KERNELS 4

/* One MSM of 2^log_n random inputs on the CPU, then on r->device in each of the contexts
 * ctx[0..nctx) (one per MSM kernel, named by kernel[]): inputs and the CPU's result are made
 * once. */
static void compare_msm(compare_run *r, hpr_ctx *const *ctx, const char *const *kernel, size_t nctx, hpr_curve curve,
                        hpr_group group, unsigned log_n, unsigned long long seed)
{
    size_t n = (size_t)1 << log_n, ps = hpr_point_size(curve, group);
    unsigned char *points = malloc(n * ps), *scalars = malloc(n * HPR_SCALAR_SIZE);
    unsigned char want[4 * 48], got[4 * 48];
    hpr_msm_opts cpu = {.struct_size = sizeof cpu, .device = "cpu"};
    hpr_msm_opts dev = {.struct_size = sizeof dev, .device = r->device};
    char what[128], why[512] = "";
    hpr_status st;
    for (size_t k = 0; k < nctx; k++) {
        snprintf(what, sizeof what, "msm %s %s 2^%u seed %llu %s", curve == HPR_CURVE_BN254 ? "bn254" : "bls12-381",
                 group == HPR_G1 ? "g1" : "g2", log_n, seed, kernel[k]);
        if (k == 0 && (!points || !scalars))
            snprintf(why, sizeof why, "cannot allocate the inputs");
        else if (k == 0 &&
                 ((st = hpr_random_msm_inputs(ctx[0], curve, group, n, seed, points, scalars)) != HPR_OK ||
                  (st = hpr_msm_ex(ctx[0], curve, group, points, scalars, n, want, &cpu)) != HPR_OK))
            snprintf(why, sizeof why, "cpu: %s: %s", hpr_status_str(st), hpr_ctx_error_detail(ctx[0]));
        if (why[0]) { /* no inputs or no reference: every kernel's comparison fails */
            verdict(r, 0, what, why);
            continue;
        }
        if ((st = hpr_msm_ex(ctx[k], curve, group, points, scalars, n, got, &dev)) != HPR_OK) {
            char detail[512];
            snprintf(detail, sizeof detail, "%s: %s: %s", r->device, hpr_status_str(st), hpr_ctx_error_detail(ctx[k]));
            verdict(r, 0, what, detail);
        } else if (hpr_ctx_notice(ctx[k])[0])
            verdict(r, 0, what, hpr_ctx_notice(ctx[k]));
        else if (!device_ran(ctx[k], r->device))
            verdict(r, 0, what, "the device computed no tile of it");
        else
            verdict(r, memcmp(want, got, ps) == 0, what, "");
    }
    free(points);
    free(scalars);
}

/* A canonical random element of field at e (seeded xorshift; 256-bit fields below 2^252). */
static void random_element(hpr_field field, unsigned char *e, size_t size, uint64_t *state)
{
    for (size_t i = 0; i < size; i += 8) {
        *state ^= *state << 13, *state ^= *state >> 7, *state ^= *state << 17;
        uint64_t v = *state;
        memcpy(e + i, &v, size - i < 8 ? size - i : 8);
    }
    if (size == 32)
        e[31] &= 0x0f;
    else if (size == 8) { /* Goldilocks: p = 2^64 - 2^32 + 1 */
        uint64_t v;
        memcpy(&v, e, 8);
        v %= 0xffffffff00000001ull;
        memcpy(e, &v, 8);
    } else { /* the 31-bit fields */
        uint32_t v, p = field == HPR_FIELD_KOALABEAR ? 0x7f000001u : 0x78000001u;
        memcpy(&v, e, 4);
        v %= p;
        memcpy(e, &v, 4);
    }
}

/* A forward then an inverse NTT of 2^log_n random elements on the CPU and on r->device. */
static void compare_ntt(compare_run *r, hpr_ctx *ctx, hpr_field field, const char *name, unsigned log_n, int inverse,
                        unsigned long long seed)
{
    size_t n = (size_t)1 << log_n, es = hpr_field_element_size(field);
    unsigned char *want = malloc(n * es), *got = malloc(n * es);
    hpr_ntt_opts cpu = {.struct_size = sizeof cpu, .inverse = inverse, .device = "cpu"};
    hpr_ntt_opts dev = {.struct_size = sizeof dev, .inverse = inverse, .device = r->device};
    uint64_t state = 0x9e3779b97f4a7c15ull ^ (seed * 0x100000001b3ull) ^ log_n;
    char what[128], why[512] = "";
    hpr_status st;
    snprintf(what, sizeof what, "ntt %s 2^%u %s seed %llu", name, log_n, inverse ? "inverse" : "forward", seed);
    if (!want || !got) {
        snprintf(why, sizeof why, "cannot allocate the inputs");
        goto out;
    }
    for (size_t i = 0; i < n; i++)
        random_element(field, want + i * es, es, &state);
    memcpy(got, want, n * es);
    if ((st = hpr_ntt(ctx, field, log_n, want, &cpu)) != HPR_OK) {
        snprintf(why, sizeof why, "cpu: %s: %s", hpr_status_str(st), hpr_ctx_error_detail(ctx));
        goto out;
    }
    if ((st = hpr_ntt(ctx, field, log_n, got, &dev)) != HPR_OK)
        snprintf(why, sizeof why, "%s: %s: %s", r->device, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    else if (hpr_ctx_notice(ctx)[0])
        snprintf(why, sizeof why, "%s", hpr_ctx_notice(ctx));
out:
    verdict(r, !why[0] && want && got && memcmp(want, got, n * es) == 0, what, why);
    free(want);
    free(got);
}

/* A context on r->device with HPR_CL_MSM = kernel ("" for the default). */
static hpr_ctx *context_for(compare_run *r, const char *kernel)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.devices = r->device;
    if (kernel[0])
        setenv("HPR_CL_MSM", kernel, 1);
    hpr_status st = hpr_ctx_create(&cfg, &ctx);
    if (st != HPR_OK) {
        char what[96];
        const char *detail = hpr_ctx_error_detail(NULL);
        snprintf(what, sizeof what, "context on %s, kernel %s", r->device, kernel[0] ? kernel : "default");
        verdict(r, 0, what, detail[0] ? detail : hpr_status_str(st));
        return NULL;
    }
    return ctx;
}

static void run_all(compare_run *r)
{
    static const hpr_curve curves[] = {HPR_CURVE_BN254, HPR_CURVE_BLS12_381};
    static const struct {
        hpr_field field;
        const char *name;
    } fields[] = {{HPR_FIELD_BN254_FR, "bn254-fr"}, {HPR_FIELD_KOALABEAR, "koalabear"}};
    char kernels[sizeof r->kernels], *save = NULL;
    const char *kernel[MAX_KERNELS];
    hpr_ctx *ctx[MAX_KERNELS];
    size_t nctx = 0;
    memcpy(kernels, r->kernels, sizeof kernels);
    for (char *k = strtok_r(kernels, ",", &save); k && nctx < MAX_KERNELS; k = strtok_r(NULL, ",", &save))
        if ((ctx[nctx] = context_for(r, k)) != NULL)
            kernel[nctx++] = k;
    if (nctx == 0)
        return;
    /* G1 with every kernel; G2 with the first (it runs the same kernels over Fq2), and the
     * NTTs in the first kernel's context */
    for (size_t c = 0; c < 2; c++)
        for (size_t i = 0; i < r->msm_log_n.n; i++)
            for (unsigned s = 1; s <= r->seeds; s++)
                compare_msm(r, ctx, kernel, nctx, curves[c], HPR_G1, r->msm_log_n.v[i], s);
    for (size_t c = 0; c < 2; c++)
        for (size_t i = 0; i < r->g2_log_n.n; i++)
            compare_msm(r, ctx, kernel, 1, curves[c], HPR_G2, r->g2_log_n.v[i], 1);
    for (size_t f = 0; f < 2; f++)
        for (size_t i = 0; i < r->ntt_log_n.n; i++)
            for (int inverse = 0; inverse <= 1; inverse++)
                compare_ntt(r, ctx[0], fields[f].field, fields[f].name, r->ntt_log_n.v[i], inverse, 1);
    for (size_t k = 0; k < nctx; k++)
        hpr_ctx_destroy(ctx[k]);
}

int main(int argc, char **argv)
{
    compare_run r = {.seeds = 2, .kernels = "sorted,owner"};
    if (argc < 2 || argv[1][0] == '-') {
        fprintf(stderr, "usage: gpu-check-compare DEVICE [--msm-log-n N,..] [--g2-log-n N,..] [--ntt-log-n N,..] "
                        "[--seeds S] [--kernels K,..]\n");
        return 2;
    }
    r.device = argv[1];
    (void)parse_list("1,10,16,20", &r.msm_log_n);
    (void)parse_list("1,10,16", &r.g2_log_n);
    (void)parse_list("10,16,20", &r.ntt_log_n);
    for (int i = 2; i < argc; i++) {
        const char *opt = argv[i], *val = i + 1 < argc ? argv[++i] : NULL;
        int bad = !val;
        if (bad)
            ;
        else if (strcmp(opt, "--msm-log-n") == 0)
            bad = parse_list(val, &r.msm_log_n);
        else if (strcmp(opt, "--g2-log-n") == 0)
            bad = parse_list(val, &r.g2_log_n);
        else if (strcmp(opt, "--ntt-log-n") == 0)
            bad = parse_list(val, &r.ntt_log_n);
        else if (strcmp(opt, "--seeds") == 0)
            bad = (r.seeds = (unsigned)strtoul(val, NULL, 10)) == 0;
        else if (strcmp(opt, "--kernels") == 0)
            bad = snprintf(r.kernels, sizeof r.kernels, "%s", val) >= (int)sizeof r.kernels;
        else
            bad = 1;
        if (bad) {
            fprintf(stderr, "gpu-check-compare: bad option or value: %s %s\n", opt, val ? val : "");
            return 2;
        }
    }
    run_all(&r);
    printf("compare: %u same, %u different, %u failed\n", r.same, r.different, r.failed);
    return r.different == 0 && r.failed == 0 && r.same > 0 ? 0 : 1;
}
