/*
 * memory_budget.c: the memory limit of a call and its admission (see memory_budget.h and
 * hpr_config.memory_limit).
 *
 * What: before an MSM, an NTT or LDE, or a Groth16 proof allocates, its peak working memory
 * is estimated from its sizes and compared with the limit; a call over it is refused with
 * HPR_ERR_OUT_OF_MEMORY and a detail naming need and limit, before anything is written. An
 * MSM that does not fit whole runs in pieces of its points (the Pippenger sums of disjoint
 * point ranges add up to the MSM, and the output is affine: the same bytes); a proof that
 * does not fit runs its phases in order (no task graph: one task's memory at a time) with its
 * MSMs in pieces, when that fits.
 *
 *
 * Each engine states its own need next to its allocations (host/msm/msm_memory.c,
 * host/ntt/ntt_memory.c, host/groth16/proof_memory.c) in rt_alloc_large's rounding
 * (mem_round: blocks of 1 MiB and more take whole 2 MiB huge pages, and all of each block is
 * touched); this file keeps only the limit and the admission.
 * What a context or prover holds between calls (the key, cached twiddle tables, resident
 * bases) is not a call's need; the estimates count twiddle tables all the same, since the
 * first call allocates them. The limit: the caller's (hpr_config.memory_limit, else
 * HPR_MAX_MEMORY), which bounds a call's working memory, the bytes a running proof holds
 * included; or the room the system leaves when the call starts (MemAvailable, cgroup v2
 * memory.max - memory.current up the hierarchy (cgroup v1's limit_in_bytes - usage_in_bytes
 * too), RLIMIT_AS - VmSize, RLIMIT_DATA - VmData),
 * from which what the proof holds is gone already. Calls under MEM_UNCHECKED are not checked
 * against the system's room: reading /proc costs more than their allocations.
 * Validation (docs/memory.md; bench/memory.py): every estimate bounded the measured peak
 * growth of the job's memory, MSMs and NTTs within 1.1x from 2^16 up, proofs within 1.5x
 * from 2^14 up (below, the fixed allowances of a few hundred KiB dominate).
 */
#define _GNU_SOURCE
#include "host/core/memory_budget.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MEM_UNCHECKED ((size_t)16 << 20)

size_t mem_sat_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

size_t mem_sat_mul(size_t a, size_t b)
{
    return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

size_t mem_max(size_t a, size_t b)
{
    return a > b ? a : b;
}

size_t mem_round(size_t bytes)
{
    const size_t huge = (size_t)2 << 20;
    if (bytes >= ((size_t)1 << 20))
        return bytes > SIZE_MAX - huge ? SIZE_MAX : (bytes + huge - 1) & ~(huge - 1);
    return (bytes + 63) & ~(size_t)63;
}

/* ---- sizes as text ---- */

/* The unit of s (K, M, G, T, then an optional "B" or "iB"; or a lone "B"): its power of two
 * in *shift, and the rest of s; NULL when anything follows. */
static const char *size_unit(const char *p, unsigned *shift)
{
    static const char units[] = "KMGT";
    const char *u = *p ? strchr(units, toupper((unsigned char)*p)) : NULL;
    *shift = u ? 10 * (unsigned)(u - units + 1) : 0;
    if (u) {
        p++;
        if ((p[0] == 'i' || p[0] == 'I') && (p[1] == 'B' || p[1] == 'b'))
            p += 2;
        else if (p[0] == 'B' || p[0] == 'b')
            p++;
    } else if (*p == 'B' || *p == 'b') {
        p++;
    }
    return *p ? NULL : p;
}

int mem_parse_size(const char *s, size_t *bytes)
{
    unsigned long long whole = 0, frac = 0, scale = 1;
    unsigned shift;
    const char *p = s;
    if (!p || !isdigit((unsigned char)*p))
        return -1;
    for (; isdigit((unsigned char)*p); p++) {
        if (whole > (ULLONG_MAX - 9) / 10)
            return -1;
        whole = whole * 10 + (unsigned long long)(*p - '0');
    }
    if (*p == '.') {
        if (!isdigit((unsigned char)*++p))
            return -1;
        for (; isdigit((unsigned char)*p); p++)
            if (scale < 1000000) { /* six decimals are plenty */
                frac = frac * 10 + (unsigned long long)(*p - '0');
                scale *= 10;
            }
    }
    if (!size_unit(p, &shift) || (frac && !shift) || whole > ((unsigned long long)SIZE_MAX >> shift))
        return -1;
    unsigned long long v = (whole << shift) + (frac << shift) / scale; /* frac << 40 < 2^60 */
    if (v == 0 || v > SIZE_MAX)
        return -1;
    *bytes = (size_t)v;
    return 0;
}

void mem_format(size_t bytes, char *buf, size_t len)
{
    static const char *units[] = {"KiB", "MiB", "GiB", "TiB", "PiB", "EiB"};
    double v = (double)bytes;
    int u = -1;
    if (bytes < 1024) {
        snprintf(buf, len, "%zu bytes", bytes);
        return;
    }
    while (v >= 1024 && u < 5) {
        v /= 1024;
        u++;
    }
    snprintf(buf, len, v < 9.95 ? "%.1f %s" : "%.0f %s", v, units[u]);
}

hpr_status mem_budget_init(hpr_ctx *ctx, size_t limit)
{
    ctx->mem.limit = limit;
    ctx->mem.from_env = 0;
    ctx->mem.held = 0;
    ctx->mem.in_order = 0;
    if (limit || !ctx->knobs.max_memory[0])
        return HPR_OK;
    if (mem_parse_size(ctx->knobs.max_memory, &ctx->mem.limit) != 0)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "HPR_MAX_MEMORY='%s' is not a size (bytes, or a number with K, M, G or T: \"512M\", \"1.5G\")",
                        ctx->knobs.max_memory);
    ctx->mem.from_env = 1;
    return HPR_OK;
}

/* ---- what the system can give ---- */

static int read_line_value(const char *path, char *buf, size_t len)
{
    FILE *f = fopen(path, "re");
    int ok = f && fgets(buf, (int)len, f) != NULL;
    if (f)
        fclose(f);
    if (ok)
        buf[strcspn(buf, "\n")] = '\0';
    return ok ? 0 : -1;
}

static int meminfo_available(size_t *bytes)
{
    char line[128];
    unsigned long long kb;
    int found = 0;
    FILE *f = fopen("/proc/meminfo", "re");
    if (!f)
        return -1;
    while (!found && fgets(line, sizeof line, f))
        found = sscanf(line, "MemAvailable: %llu kB", &kb) == 1;
    fclose(f);
    if (!found)
        return -1;
    *bytes = kb > SIZE_MAX / 1024 ? SIZE_MAX : (size_t)kb * 1024;
    return 0;
}

/* The value of key in a cgroup's memory.stat (dir/memory.stat), 0 when absent. */
static unsigned long long cgroup_stat(const char *dir, const char *key)
{
    char file[4400], line[256];
    unsigned long long v = 0;
    size_t len = strlen(key);
    snprintf(file, sizeof file, "%s/memory.stat", dir);
    FILE *f = fopen(file, "re");
    while (f && fgets(line, sizeof line, f))
        if (strncmp(line, key, len) == 0 && line[len] == ' ')
            v = strtoull(line + len + 1, NULL, 10);
    if (f)
        fclose(f);
    return v;
}

/* The least room (limit - usage, the usage without the inactive file pages the kernel
 * reclaims first, as container runtimes count the working set) of the cgroup at path under
 * root and of its parents, over those with a limit (from 2^62 up is none: cgroup v1's
 * "unlimited"): 0, or -1 when none has one. path is cut in place. */
static int cgroup_walk(const char *root, char *path, const char *limit_name, const char *usage_name,
                       const char *inactive_key, size_t *bytes)
{
    char file[4400], value[64];
    int found = 0;
    for (;;) {
        unsigned long long max, cur;
        char dir[4200];
        snprintf(dir, sizeof dir, "%s%s", root, strcmp(path, "/") == 0 ? "" : path);
        snprintf(file, sizeof file, "%s/%s", dir, limit_name);
        if (read_line_value(file, value, sizeof value) == 0 && sscanf(value, "%llu", &max) == 1 && max < (1ull << 62)) {
            unsigned long long inactive = cgroup_stat(dir, inactive_key);
            snprintf(file, sizeof file, "%s/%s", dir, usage_name);
            if (read_line_value(file, value, sizeof value) != 0 || sscanf(value, "%llu", &cur) != 1)
                cur = 0;
            cur = cur > inactive ? cur - inactive : 0;
            size_t room = cur >= max ? 0 : (size_t)(max - cur);
            *bytes = found && *bytes < room ? *bytes : room;
            found = 1;
        }
        char *slash = strrchr(path, '/');
        if (!slash || slash == path)
            break;
        *slash = '\0';
    }
    return found ? 0 : -1;
}

/* The least room of the process's memory cgroups: v2 (memory.max - memory.current, the
 * "0::" line of /proc/self/cgroup) and v1 (memory.limit_in_bytes - memory.usage_in_bytes,
 * the line of the memory controller), each with its parents; -1 when none has a limit. */
static int cgroup_room(size_t *bytes)
{
    char line[4096], v2[4096] = "", v1[4096] = "";
    size_t room;
    int found = 0;
    FILE *f = fopen("/proc/self/cgroup", "re");
    while (f && fgets(line, sizeof line, f)) {
        char *a = strchr(line, ':'), *b = a ? strchr(a + 1, ':') : NULL;
        if (!b)
            continue;
        line[strcspn(line, "\n")] = '\0';
        *b = '\0';
        if (strcmp(line, "0:") == 0 && a + 1 == b) /* "0::path" */
            snprintf(v2, sizeof v2, "%s", b + 1);
        for (char *save = NULL, *c = strtok_r(a + 1, ",", &save); c; c = strtok_r(NULL, ",", &save))
            if (strcmp(c, "memory") == 0)
                snprintf(v1, sizeof v1, "%s", b + 1);
    }
    if (f)
        fclose(f);
    if (v2[0] && cgroup_walk("/sys/fs/cgroup", v2, "memory.max", "memory.current", "inactive_file", &room) == 0) {
        *bytes = room;
        found = 1;
    }
    if (v1[0] && cgroup_walk("/sys/fs/cgroup/memory", v1, "memory.limit_in_bytes", "memory.usage_in_bytes",
                             "total_inactive_file", &room) == 0) {
        *bytes = found && *bytes < room ? *bytes : room;
        found = 1;
    }
    return found ? 0 : -1;
}

/* The room under a resource limit that is set, given what the process uses of it. */
static int rlimit_room(int resource, size_t used, size_t *bytes)
{
    struct rlimit rl;
    if (getrlimit(resource, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY)
        return -1;
    *bytes = (size_t)rl.rlim_cur > used ? (size_t)rl.rlim_cur - used : 0;
    return 0;
}

/* lim = the least room the system leaves now; 0 when nothing is known. */
static int system_room(mem_limit *lim)
{
    unsigned long long size = 0, rss, shared, text, lib, data = 0;
    size_t page = (size_t)sysconf(_SC_PAGESIZE);
    char statm[256];
    int known = 0;
    if (read_line_value("/proc/self/statm", statm, sizeof statm) != 0 ||
        sscanf(statm, "%llu %llu %llu %llu %llu %llu", &size, &rss, &shared, &text, &lib, &data) != 6)
        size = data = 0;
    static const char *const source[4] = {"what the system has available: MemAvailable",
                                          "the room under the cgroup's memory limit", "the room under RLIMIT_AS",
                                          "the room under RLIMIT_DATA"};
    size_t room[4] = {0, 0, 0, 0};
    int ok[4];
    ok[0] = meminfo_available(&room[0]) == 0;
    ok[1] = cgroup_room(&room[1]) == 0;
    ok[2] = rlimit_room(RLIMIT_AS, (size_t)size * page, &room[2]) == 0;
    ok[3] = rlimit_room(RLIMIT_DATA, (size_t)data * page, &room[3]) == 0;
    for (int i = 0; i < 4; i++)
        if (ok[i] && (!known || room[i] < lim->bytes)) {
            lim->bytes = room[i];
            lim->source = source[i];
            known = 1;
        }
    return known;
}

/* Whether need fits ctx's budget now (lim: the limit, for the detail). The caller's limit
 * bounds need with what a running proof holds; the system's room has that taken already. */
int mem_budget_fits(hpr_ctx *ctx, size_t need, mem_limit *lim)
{
    if (ctx->mem.limit) {
        lim->bytes = ctx->mem.limit;
        lim->source = ctx->mem.from_env ? "HPR_MAX_MEMORY / --max-memory" : "hpr_config.memory_limit";
        return mem_sat_add(need, ctx->mem.held) <= ctx->mem.limit;
    }
    if (need < MEM_UNCHECKED || !system_room(lim))
        return 1;
    return need <= lim->bytes;
}

/* HPR_ERR_OUT_OF_MEMORY: "<what> needs about N[ (at least L <how>)][, beside the H a proof
 * holds]; the memory limit is M (<source>)". least 0: no smaller way. */
hpr_status mem_refuse(hpr_ctx *ctx, const char *what, size_t need, size_t least, const char *how,
                         const mem_limit *lim)
{
    char n[32], l[32], h[32], m[32], at_least[96] = "", beside[96] = "";
    mem_format(need, n, sizeof n);
    mem_format(lim->bytes, m, sizeof m);
    if (least) {
        mem_format(least, l, sizeof l);
        snprintf(at_least, sizeof at_least, " (at least %s %s)", l, how);
    }
    if (ctx->mem.limit && ctx->mem.held) {
        mem_format(ctx->mem.held, h, sizeof h);
        snprintf(beside, sizeof beside, ", beside the %s that the proof holds", h);
    }
    return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "%s needs about %s%s%s; the memory limit is %s (%s)", what, n,
                    at_least, beside, m, lim->source);
}

/* ---- any call's check (hpr_commit) ---- */

int mem_fits(hpr_ctx *ctx, size_t need)
{
    mem_limit lim;
    return mem_budget_fits(ctx, need, &lim);
}

hpr_status mem_check(hpr_ctx *ctx, const char *what, size_t need, size_t least, const char *how)
{
    mem_limit lim;
    return mem_budget_fits(ctx, need, &lim) ? HPR_OK : mem_refuse(ctx, what, need, least, how, &lim);
}
