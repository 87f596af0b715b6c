/*
 * knobs.c: the environment variables hyprove honours, read once when a context is created
 * (hpr_ctx_create) into ctx->knobs. Nothing else in the library calls getenv: the runtime
 * receives what it needs as options (cl_options, sched_tiling). The CLI reads its own.
 * knobs_check refuses a malformed value before the context is made, naming the variable,
 * its value and what it takes (an unset or empty variable is no value); the detail of a
 * failed hpr_ctx_create lives here too, per thread, since there is no context to hold it.
 */
#include "host/core/context.h"
#include "runtime/opencl/cl_msm.h"

#include <ctype.h>
#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies the variable's value into buf (len bytes); "" when unset. A value too long for buf
 * (no valid one is) becomes "(too long)", which every user of a knob refuses or ignores as it
 * would any other bad value. */
static void env_string(const char *name, char *buf, size_t len)
{
    const char *v = getenv(name);
    snprintf(buf, len, "%s", !v ? "" : strlen(v) < len ? v : "(too long)");
}

static int env_is_one(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

/* A single digit 0..9 (knobs_check refuses anything else), else 0. */
static int env_digit(const char *name)
{
    const char *v = getenv(name);
    return v && v[0] >= '0' && v[0] <= '9' && !v[1] ? v[0] - '0' : 0;
}

/* HPR_CACHE_DIR, else $XDG_CACHE_HOME/hyprove, else $HOME/.cache/hyprove; "" when none fits. */
static void env_cache_dir(char *buf, size_t len)
{
    const char *v = getenv("HPR_CACHE_DIR");
    int n = -1;
    if (v && v[0])
        n = snprintf(buf, len, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && v[0])
        n = snprintf(buf, len, "%s/hyprove", v);
    else if ((v = getenv("HOME")) && v[0])
        n = snprintf(buf, len, "%s/.cache/hyprove", v);
    if (n < 0 || (size_t)n >= len)
        buf[0] = '\0';
}

void knobs_read(ctx_knobs *k)
{
    const char *v;
    memset(k, 0, sizeof *k);
    env_string("HPR_CPU", k->cpu_tier, sizeof k->cpu_tier);
    k->ntt_four_step = env_is_one("HPR_NTT_FOUR_STEP");
    k->g16_h_device = (v = getenv("HPR_G16_H_DEVICE")) && v[0] ? v[0] - '0' : -1;
    env_string("HPR_SCHED_INJECT_FAULT", k->sched_fault, sizeof k->sched_fault);
    env_string("HPR_SCHED_TILES", k->sched_tiles, sizeof k->sched_tiles);
    k->sched_every_device = env_digit("HPR_SCHED_EVERY_DEVICE");
    k->sched_trace = getenv("HPR_SCHED_TRACE") != NULL;
    env_string("HPR_MAX_MEMORY", k->max_memory, sizeof k->max_memory);
    cl_options_default(&k->cl);
    env_string("HPR_OPENCL_LIBRARY", k->cl.library, sizeof k->cl.library);
    k->cl.words = cl_words_parse(getenv("HPR_CL_WORDS"));
    k->cl.msm_kernel = cl_msm_kernel_parse(getenv("HPR_CL_MSM"));
    if ((v = getenv("HPR_CL_MSM_ITEMS")) && v[0])
        k->cl.msm_items = (unsigned)strtoul(v, NULL, 10);
    env_string("HPR_CL_INJECT_FAULT", k->cl.inject_fault, sizeof k->cl.inject_fault);
    if ((v = getenv("HPR_CL_MAX_ALLOC")) && v[0])
        k->cl.max_alloc = strtoull(v, NULL, 10);
    env_cache_dir(k->cl.cache_dir, sizeof k->cl.cache_dir);
}

/* Why the calling thread's last hpr_ctx_create failed ("" after a success). */
static _Thread_local char create_detail[CL_DETAIL_LEN];

hpr_status ctx_create_fail(hpr_status status, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(create_detail, sizeof create_detail, fmt, ap);
    va_end(ap);
    return status;
}

void ctx_create_clear(void)
{
    create_detail[0] = '\0';
}

const char *ctx_create_detail(void)
{
    return create_detail;
}

/* s is a decimal integer in [min, max] (digits only). */
static int is_uint(const char *s, unsigned long long min, unsigned long long max)
{
    char *end;
    if (!isdigit((unsigned char)s[0]))
        return 0;
    errno = 0;
    unsigned long long v = strtoull(s, &end, 10);
    return errno == 0 && *end == '\0' && v >= min && v <= max;
}

/* "rand:SEED:P" (HPR_SCHED_INJECT_FAULT's random units): SEED a whole number, 0 <= P <= 1. */
static int is_random_fault(const char *s)
{
    char *end;
    if (strncmp(s, "rand:", 5) != 0 || !isdigit((unsigned char)s[5]))
        return 0;
    errno = 0;
    (void)strtoull(s + 5, &end, 10);
    if (errno || *end != ':' || !(isdigit((unsigned char)end[1]) || end[1] == '.'))
        return 0;
    double p = strtod(end + 1, &end);
    return *end == '\0' && p >= 0 && p <= 1;
}

/* s is "cl:P.D", then (with at allowed) optionally "@K", K >= 1, or "@rand:SEED:P". */
static int is_device_fault(const char *s, int at)
{
    const char *p = s;
    if (strncmp(p, "cl:", 3) != 0 || !isdigit((unsigned char)p[3]))
        return 0;
    for (p += 3; isdigit((unsigned char)*p); p++)
        ;
    if (*p++ != '.' || !isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p))
        p++;
    return *p == '\0' || (at && *p == '@' && (is_uint(p + 1, 1, 0xffffffffull) || is_random_fault(p + 1)));
}

/* HPR_SCHED_TILES: min,probe[,blocks[,c]], min and probe >= 1, blocks 0..64, c 0..20. */
static int is_tiles(const char *s)
{
    static const unsigned long long lo[4] = {1, 1, 0, 0}, hi[4] = {0xffffffffull, 0xffffffffull, 64, 20};
    for (int k = 0;; k++) {
        char *end;
        if (k == 4 || !isdigit((unsigned char)*s))
            return 0;
        errno = 0;
        unsigned long long v = strtoull(s, &end, 10);
        if (errno || v < lo[k] || v > hi[k] || (*end != ',' && *end != '\0'))
            return 0;
        if (*end == '\0')
            return k >= 1;
        s = end + 1;
    }
}

static int is_zero_one(const char *s)
{
    return strcmp(s, "0") == 0 || strcmp(s, "1") == 0;
}

static int is_digit(const char *s)
{
    return s[0] >= '0' && s[0] <= '9' && !s[1];
}

/* "rank:R", then optionally "@K" or "@rand:SEED:P": a rank of a cluster call (host/cluster/cluster.c). */
static int is_rank_fault(const char *s)
{
    const char *p = s + 5;
    if (strncmp(s, "rank:", 5) != 0 || !isdigit((unsigned char)*p))
        return 0;
    while (isdigit((unsigned char)*p))
        p++;
    return *p == '\0' || (*p == '@' && (is_uint(p + 1, 1, 0xffffffffull) || is_random_fault(p + 1)));
}

static int is_sched_fault(const char *s)
{
    return is_device_fault(s, 1) || is_rank_fault(s);
}

static int is_cl_fault(const char *s)
{
    return is_device_fault(s, 0);
}

static int is_words(const char *s)
{
    return cl_words_parse(s) >= 0;
}

static int is_msm_kernel(const char *s)
{
    return strcmp(s, "owner") == 0 || strcmp(s, "sorted") == 0;
}

static int is_items(const char *s)
{
    return is_uint(s, 1, 0xffffffffull);
}

static int is_bytes(const char *s)
{
    return is_uint(s, 1, ~0ull);
}

static int is_any(const char *s)
{
    (void)s;
    return 1;
}

hpr_status knobs_check(void)
{
    static const struct {
        const char *name, *expected;
        int (*valid)(const char *value);
        size_t max_len; /* the longest value the knob's buffer holds */
    } knobs[] = {
        {"HPR_NTT_FOUR_STEP", "0 or 1", is_zero_one, 1},
        {"HPR_G16_H_DEVICE", "0 or 1", is_zero_one, 1},
        {"HPR_SCHED_EVERY_DEVICE", "a count of tiles, 0 to 9", is_digit, 1},
        {"HPR_SCHED_INJECT_FAULT",
         "cl:P.D, cl:P.D@K (K >= 1: the device's K-th tile fails), cl:P.D@rand:SEED:P (each tile with probability P), "
         "or rank:R with the same suffixes (a cluster call's rank R)",
         is_sched_fault, 63},
        {"HPR_SCHED_TILES", "min,probe[,blocks[,c]]: min and probe >= 1, blocks 0..64, c 0..20", is_tiles, 63},
        {"HPR_CL_WORDS", "standard, int128, limb32 or ptx", is_words, 63},
        {"HPR_CL_MSM", "owner or sorted", is_msm_kernel, 63},
        {"HPR_CL_MSM_ITEMS", "a whole number of work-items, 1..4294967295", is_items, 63},
        {"HPR_CL_INJECT_FAULT", "an OpenCL device id, cl:P.D", is_cl_fault, 31},
        {"HPR_CL_MAX_ALLOC", "a whole number of bytes, at least 1", is_bytes, 63},
        {"HPR_OPENCL_LIBRARY", "a path to an OpenCL ICD loader", is_any, 511},
        {"HPR_CACHE_DIR", "a directory", is_any, 4095},
    };
    for (size_t i = 0; i < sizeof knobs / sizeof knobs[0]; i++) {
        const char *v = getenv(knobs[i].name);
        if (!v || !v[0])
            continue;
        if (!knobs[i].valid(v))
            return ctx_create_fail(HPR_ERR_INVALID_ARGUMENT, "%s='%.200s': expected %s", knobs[i].name, v,
                                   knobs[i].expected);
        if (strlen(v) > knobs[i].max_len)
            return ctx_create_fail(HPR_ERR_INVALID_ARGUMENT,
                                   "%s='%.60s...': %zu characters, more than the %zu it takes", knobs[i].name, v,
                                   strlen(v), knobs[i].max_len);
    }
    return HPR_OK;
}
