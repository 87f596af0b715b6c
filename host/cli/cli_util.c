/*
 * cli_util.c: see cli_util.h.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_util.h"

#include <ctype.h>
#include <errno.h>
#include <limits.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

/* The last error's message (without "hyprove: error: "): under mpirun, a rank other than 0
 * prints nothing and sends it to rank 0 instead (cli_cluster_agree). */
static char last_error[1024];

const char *cli_last_error(void)
{
    return last_error;
}

/* Formats the message into last_error and prints it with its suffix. */
static void print_error(const char *suffix, const char *fmt, va_list ap)
{
    va_list copy;
    va_copy(copy, ap);
    vsnprintf(last_error, sizeof last_error, fmt, copy);
    va_end(copy);
    fputs("hyprove: error: ", stderr);
    vfprintf(stderr, fmt, ap);
    fprintf(stderr, "%s\n", suffix);
}

int cli_error(const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    print_error("", fmt, ap);
    va_end(ap);
    return CLI_EXIT_FAILURE;
}

int cli_usage_error(const char *cmd, const char *fmt, ...)
{
    char hint[96];
    va_list ap;
    snprintf(hint, sizeof hint, " (see 'hyprove %s--help')", cmd);
    va_start(ap, fmt);
    print_error(hint, fmt, ap);
    va_end(ap);
    return CLI_EXIT_USAGE;
}

int cli_status_error(const char *what, hpr_status st, const hpr_ctx *ctx)
{
    const char *detail = hpr_ctx_error_detail(ctx);
    if (detail && *detail)
        return cli_error("%s: %s: %s", what, hpr_status_str(st), detail);
    return cli_error("%s: %s", what, hpr_status_str(st));
}

int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max, unsigned long long *out)
{
    char *end;
    unsigned long long v;
    if (!s || *s < '0' || *s > '9')
        return -1;
    errno = 0;
    v = strtoull(s, &end, 10);
    if (errno || *end || v < min || v > max)
        return -1;
    *out = v;
    return 0;
}

/* Copies a comma-separated list into buf (size cap) after checking its shape: not empty, no
 * empty item. Returns 0 or -1. Items are then taken with strtok_r(buf, ",", ...). */
static int copy_list(const char *s, char *buf, size_t cap)
{
    size_t len = s ? strlen(s) : 0;
    if (len == 0 || len >= cap || s[0] == ',' || s[len - 1] == ',' || strstr(s, ",,"))
        return -1;
    memcpy(buf, s, len + 1);
    return 0;
}

int cli_parse_uint_list(const char *s, unsigned long long min, unsigned long long max, unsigned *out, size_t cap,
                        size_t *count)
{
    char buf[256];
    size_t n = 0;
    if (copy_list(s, buf, sizeof buf))
        return -1;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned long long v;
        if (n == cap || cli_parse_uint(tok, min, max, &v) != 0)
            return -1;
        out[n++] = (unsigned)v;
    }
    *count = n;
    return 0;
}

int cli_parse_curve(const char *s, hpr_curve *out)
{
    if (strcmp(s, "bn254") == 0 || strcmp(s, "bn128") == 0)
        *out = HPR_CURVE_BN254;
    else if (strcmp(s, "bls12-381") == 0 || strcmp(s, "bls12381") == 0)
        *out = HPR_CURVE_BLS12_381;
    else
        return -1;
    return 0;
}

/* Each comma-separated entry of s through one(entry, index, out); at most cap entries. */
static int parse_list_with(const char *s, size_t cap, size_t *count, int (*one)(const char *, size_t, void *), void *out)
{
    char buf[96];
    size_t n = 0;
    if (copy_list(s, buf, sizeof buf))
        return -1;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save), n++)
        if (n == cap || one(tok, n, out))
            return -1;
    *count = n;
    return 0;
}

static int curve_entry(const char *tok, size_t i, void *out)
{
    return cli_parse_curve(tok, (hpr_curve *)out + i);
}

int cli_parse_curve_list(const char *s, hpr_curve *out, size_t cap, size_t *count)
{
    return parse_list_with(s, cap, count, curve_entry, out);
}

static const struct {
    const char *name;
    hpr_field field;
} field_names[] = {{"bn254-fr", HPR_FIELD_BN254_FR},     {"bls12-381-fr", HPR_FIELD_BLS12_381_FR},
                   {"goldilocks", HPR_FIELD_GOLDILOCKS}, {"babybear", HPR_FIELD_BABYBEAR},
                   {"koalabear", HPR_FIELD_KOALABEAR}};

int cli_parse_field(const char *s, hpr_field *out)
{
    for (size_t i = 0; i < sizeof field_names / sizeof field_names[0]; i++)
        if (strcmp(s, field_names[i].name) == 0) {
            *out = field_names[i].field;
            return 0;
        }
    return -1;
}

const char *cli_field_name(hpr_field field)
{
    for (size_t i = 0; i < sizeof field_names / sizeof field_names[0]; i++)
        if (field_names[i].field == field)
            return field_names[i].name;
    return "?";
}

static int field_entry(const char *tok, size_t i, void *out)
{
    return cli_parse_field(tok, (hpr_field *)out + i);
}

int cli_parse_field_list(const char *s, hpr_field *out, size_t cap, size_t *count)
{
    return parse_list_with(s, cap, count, field_entry, out);
}

int cli_parse_device(const char *s, int allow_all)
{
    unsigned p, d;
    char end;
    if (strcmp(s, "cpu") == 0 || (allow_all && (strcmp(s, "all") == 0 || strcmp(s, "auto") == 0)))
        return 0;
    return strncmp(s, "cl:", 3) == 0 && sscanf(s, "cl:%u.%u%c", &p, &d, &end) == 2 ? 0 : -1;
}

void cli_print_split(hpr_ctx *ctx, const char *device, const char *unit)
{
    hpr_run_report rep = {.struct_size = sizeof rep};
    if (strcmp(device, "all") != 0 || hpr_ctx_last_report(ctx, &rep) != HPR_OK)
        return;
    fprintf(stderr, "  all:");
    for (unsigned d = 0; d < rep.ndevices; d++) {
        const hpr_device_run *x = &rep.devices[d];
        char failed[64] = "";
        if (x->failures || x->dropped)
            snprintf(failed, sizeof failed, ", %u failed%s", x->failures, x->dropped ? ", dropped" : "");
        fprintf(stderr, " %s %u tiles %llu %s (busy %.3f s%s)%s", x->device, x->tiles, x->points, unit, x->busy_s,
                failed, d + 1 < rep.ndevices ? ";" : "\n");
    }
    if (rep.notes[0])
        fprintf(stderr, "  note: %s\n", rep.notes);
}

int cli_parse_cpu_tiers(const char *cmd, const char *list, char (*storage)[CLI_DEVICE_NAME_LEN], const char **tiers,
                        size_t cap, size_t *count)
{
    const char *why;
    size_t named;
    *count = 0;
    if (strcmp(list, "all") == 0) {
        for (unsigned t = 0; t < hpr_cpu_tier_count() && *count < cap; t++)
            if (hpr_cpu_tier_check(hpr_cpu_tier_name(t), NULL) == HPR_OK)
                tiers[(*count)++] = hpr_cpu_tier_name(t);
        return 0;
    }
    if (cli_split_list(list, storage, cap, &named))
        return cli_usage_error(cmd, "--cpu-tiers '%s': expected all or a comma-separated list of at most %zu of "
                               "portable, adx, avx2, avx512, neon", list, cap);
    for (size_t i = 0; i < named; i++) {
        if (hpr_cpu_tier_check(storage[i], &why) != HPR_OK)
            return cli_usage_error(cmd, "--cpu-tiers: '%s': %s", storage[i], why);
        tiers[(*count)++] = storage[i];
    }
    return 0;
}

int cli_split_list(const char *s, char (*out)[CLI_DEVICE_NAME_LEN], size_t cap, size_t *count)
{
    char buf[256];
    size_t n = 0;
    if (copy_list(s, buf, sizeof buf))
        return -1;
    for (char *save = NULL, *tok = strtok_r(buf, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        if (n == cap || strlen(tok) >= CLI_DEVICE_NAME_LEN)
            return -1;
        strcpy(out[n++], tok);
    }
    *count = n;
    return 0;
}

int cli_parse_device_list(const char *s, int allow_all, char (*out)[CLI_DEVICE_NAME_LEN], size_t cap, size_t *count)
{
    if (cli_split_list(s, out, cap, count))
        return -1;
    for (size_t i = 0; i < *count; i++)
        if (cli_parse_device(out[i], allow_all))
            return -1;
    return 0;
}

const char *cli_curve_name(hpr_curve curve)
{
    return curve == HPR_CURVE_BN254 ? "bn254" : "bls12-381";
}

int cli_read_file(const char *path, unsigned char **data, size_t *len)
{
    char why[256];
    /* regular files, "-" and FIFOs (streams, read to EOF up to the bound) and /proc-style
     * files; devices, sockets and directories refused (the library's input checks) */
    void *bytes = NULL;
    if (hpr_input_read(path, 1, CLI_STREAM_LIMIT, &bytes, len, why, sizeof why) != HPR_OK)
        return cli_error("'%s' %s", path, why);
    *data = bytes;
    if (*len == 0) {
        free(*data);
        *data = NULL;
        return cli_error("'%s' is empty", path);
    }
    return 0;
}

int cli_parse_size(const char *s, unsigned long long *bytes)
{
    static const char units[] = "KMGT";
    unsigned long long whole = 0, frac = 0, scale = 1;
    unsigned shift = 0;
    const char *p = s, *u;
    if (!p || *p < '0' || *p > '9')
        return -1;
    for (; *p >= '0' && *p <= '9'; p++) {
        if (whole > (ULLONG_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (unsigned long long)(*p - '0');
    }
    if (*p == '.' && (*++p < '0' || *p > '9'))
        return -1;
    for (; *p >= '0' && *p <= '9'; p++)
        if (scale < 1000000) {
            frac = frac * 10 + (unsigned long long)(*p - '0');
            scale *= 10;
        }
    if (*p && (u = strchr(units, toupper((unsigned char)*p)))) {
        shift = 10 * (unsigned)(u - units + 1);
        p++;
        if ((p[0] == 'i' || p[0] == 'I') && (p[1] == 'B' || p[1] == 'b'))
            p++;
    }
    if (*p == 'B' || *p == 'b')
        p++;
    if (*p || (frac && !shift) || whole > ((unsigned long long)SIZE_MAX >> shift))
        return -1;
    *bytes = (whole << shift) + (frac << shift) / scale;
    return *bytes ? 0 : -1;
}

double cli_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

int cli_compare_doubles(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

hpr_cpu_info cli_cpu_info(void)
{
    hpr_cpu_info info = {.struct_size = sizeof info};
    if (hpr_cpu_info_get(&info) != HPR_OK) /* a struct_size of this build's own: not expected */
        memset(&info, 0, sizeof info);
    return info;
}
