/*
 * memory_budget.c: the memory budget of a call (see memory_budget.h and hpr_config.memory_limit).
 *
 * What: before an MSM, an NTT or LDE, or a Groth16 proof allocates, its peak working memory
 * is estimated from its sizes and compared with the limit; a call over it is refused with
 * HPR_ERR_OUT_OF_MEMORY and a detail naming need and limit, before anything is written. An
 * MSM that does not fit whole runs in pieces of its points (the Pippenger sums of disjoint
 * point ranges add up to the MSM, and the output is affine: the same bytes); a proof that
 * does not fit runs its phases in order (no task graph: one task's memory at a time) with its
 * MSMs in pieces, when that fits.
 *
 * Method: the estimates mirror the allocations, in rt_alloc_large's rounding (blocks of
 * 1 MiB and more take whole 2 MiB huge pages, and all of each block is touched):
 *   MSM (msm_cpu_job.c): the two index lists (8 bytes a point), the decoded copies of
 *     points and scalars when they are not 8-byte aligned, the kernel's point form
 *     (prepared_size a point), the Booth digits (2 bytes a point and window, c <= 15), one
 *     scratch per worker (the kernel's scratch_size: buckets and batch-affine buffers), the
 *     window sums of the tiles. The window size is the one the job will choose
 *     (msm_cpu_window_bits) for all n scalars general: zeros and ones only shrink the job.
 *     OpenCL devices of type CPU (POCL) keep their buffers in host memory: two chunk buffer
 *     sets of cl_msm_make_plan's plan (points, scalars, buckets) and, where the points are
 *     kept (a key, or a hybrid call), the points. A GPU's own memory is not counted; the
 *     CPU's fallback after a device fault is. Under "all" the CPU job and the host devices
 *     add up; on one device the larger of the device and the fallback counts.
 *   NTT (host/ntt*.c): the work copy of canonical data (hpr_ntt; an LDE and the proof's
 *     transforms work in place), the twiddle table of the size (2 x for a tier with its own
 *     table, ntt_ifma_impl.h), a device's copy of the columns, POCL's two buffers and table.
 *   Proof (host/groth16_*.c): held through it, the .wtns bytes (prove_file), the witness
 *     and h (32 bytes per value and per row); then the largest phase: h's three evaluation
 *     columns with two twiddle tables, or one of the five MSMs (A, B1, B2 in G2, C over the
 *     private witness, H over h) as above, beside the spill of the other MSMs: the C
 *     library's heap keeps what a phase frees and reuses it, but puts the next phase's small
 *     blocks into those holes first, so that a 2 MiB-aligned large block then takes fresh
 *     memory (traced with glibc 2.36: at 2^16 the decoded points of two of the five MSMs did);
 *     the spill counts each other MSM's largest block. Under "all" with devices that can
 *     join, the task graph: the CPU's largest task and every spill beside each host device's
 *     points (all five sets may become resident) and its largest MSM's buffers.
 * What a context or prover holds between calls (the key, cached twiddle tables, resident
 * bases) is not a call's need; the estimates count twiddle tables all the same, since the
 * first call allocates them. The limit: the caller's (hpr_config.memory_limit, else
 * HPR_MAX_MEMORY), which bounds a call's working memory, the bytes a running proof holds
 * included; or the room the system leaves when the call starts (MemAvailable, cgroup v2
 * memory.max - memory.current up the hierarchy (cgroup v1's limit_in_bytes - usage_in_bytes
 * too), RLIMIT_AS - VmSize, RLIMIT_DATA - VmData),
 * from which what the proof holds is gone already. Calls under MEM_UNCHECKED are not checked
 * against the system's room: reading /proc costs more than their allocations.
 * Validation (README, "Memory"; bench/memory.py): every estimate bounded the measured peak
 * growth of the job's memory, MSMs and NTTs within 1.1x from 2^16 up, proofs within 1.5x
 * from 2^14 up (below, the fixed allowances of a few hundred KiB dominate).
 */
#define _GNU_SOURCE
#include "memory_budget.h"
#include "devices.h"

#include <ctype.h>
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#define MEM_UNCHECKED ((size_t)16 << 20)
/* Beyond the blocks: small allocations, the workers' stacks and the C library's arenas
 * (measured: 50 KiB beside an NTT's blocks, 0.7 MiB beside a proof's, 2^12 to 2^16). */
#define MEM_CALL_SLACK ((size_t)256 << 10)
#define MEM_PROOF_SLACK ((size_t)512 << 10)
#define MEM_MSM_MIN_PIECE 4096
#define HYBRID_MIN_POINTS 32768   /* msm_hybrid.c: below it the CPU runs alone */
#define DIGIT_MAX_BITS 15         /* msm_cpu_job.c: digits precomputed up to c = 15 ... */
#define DIGIT_MAX ((size_t)1 << 28) /* ... and 2^28 digits */
#define DECODE_BLOCK 4096         /* msm_cpu_job.c */
#define PROOF_MSMS 5              /* A, B1, B2, C, H */

typedef struct {
    size_t bytes;
    const char *source; /* what set the limit, as the detail names it */
} mem_limit;

static size_t sat_add(size_t a, size_t b)
{
    return a > SIZE_MAX - b ? SIZE_MAX : a + b;
}

static size_t sat_mul(size_t a, size_t b)
{
    return b && a > SIZE_MAX / b ? SIZE_MAX : a * b;
}

static size_t max_size(size_t a, size_t b)
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
static int budget_fits(hpr_ctx *ctx, size_t need, mem_limit *lim)
{
    if (ctx->mem.limit) {
        lim->bytes = ctx->mem.limit;
        lim->source = ctx->mem.from_env ? "HPR_MAX_MEMORY / --max-memory" : "hpr_config.memory_limit";
        return sat_add(need, ctx->mem.held) <= ctx->mem.limit;
    }
    if (need < MEM_UNCHECKED || !system_room(lim))
        return 1;
    return need <= lim->bytes;
}

/* HPR_ERR_OUT_OF_MEMORY: "<what> needs about N[ (at least L <how>)][, beside the H a proof
 * holds]; the memory limit is M (<source>)". least 0: no smaller way. */
static hpr_status refuse(hpr_ctx *ctx, const char *what, size_t need, size_t least, const char *how,
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
    return budget_fits(ctx, need, &lim);
}

hpr_status mem_check(hpr_ctx *ctx, const char *what, size_t need, size_t least, const char *how)
{
    mem_limit lim;
    return budget_fits(ctx, need, &lim) ? HPR_OK : refuse(ctx, what, need, least, how, &lim);
}

/* ---- OpenCL devices on the host's memory ---- */

/* The OpenCL devices of type CPU (POCL: their buffers are host memory) that a call on device
 * may use, at most max: the one named when usable; under "all", those dev_pick_opencl would
 * pick (usable, not oversubscribing the cores beside the pool). *others (may be NULL): the
 * other devices ("all": usable ones that would join). */
static unsigned host_devices(hpr_ctx *ctx, const char *device, cl_dev **out, unsigned max, unsigned *others)
{
    unsigned count = 0, cores = rt_online_cpus();
    cl_dev *dev = NULL;
    if (others)
        *others = 0;
    if (strcmp(device, "cpu") == 0)
        return 0;
    if (strcmp(device, "all") != 0) {
        if (dev_resolve(ctx, device, &dev) != HPR_OK) { /* the call itself will say so */
            ctx->detail[0] = '\0';
            return 0;
        }
        if (dev && !dev->failed && (dev->type & CL_DEVICE_TYPE_CPU))
            out[count++] = dev;
        return count;
    }
    if (dev_runtime(ctx) != HPR_OK)
        return 0;
    for (unsigned i = 0; i < ctx->cl->ndevs; i++) {
        cl_dev *d = &ctx->cl->devs[i];
        int cpu = (d->type & CL_DEVICE_TYPE_CPU) != 0;
        if (d->failed || (cpu && ctx->threads + d->compute_units > cores))
            continue;
        if (cpu && count < max)
            out[count++] = d;
        else if (!cpu && others)
            ++*others;
    }
    return count;
}

/* Host bytes of an MSM of n points on a POCL device: two chunk buffer sets (points, scalars,
 * buckets, partial and window sums) and the points when kept. */
static size_t cl_msm_host_bytes(const cl_dev *dev, const msm_curve_ops *ops, size_t n, int kept)
{
    cl_msm_plan plan;
    cl_msm_make_plan(&plan, dev, ops, n, 0, 0, ops->scalar_bits);
    size_t sums = sat_mul((size_t)plan.nseg * plan.nwin + plan.nwin, ops->xyzz_size);
    size_t buckets = sat_mul(sat_mul((size_t)plan.nseg, plan.nwin), ops->xyzz_size << (plan.c ? plan.c - 1 : 0));
    size_t set = sat_add(sat_add(sat_mul(plan.chunk_points, ops->affine_size + 32), buckets), sums);
    size_t b = sat_add(sat_mul(set, 2), sat_mul((size_t)plan.chunks * plan.nwin, ops->xyzz_size));
    return kept ? sat_add(b, sat_mul(n, ops->affine_size)) : b;
}

/* ---- MSM ---- */

static int aligned8(const void *p)
{
    return ((uintptr_t)p & 7) == 0; /* NULL: an aligned buffer of the library's */
}

/* A block of bytes (rt_alloc_large's rounding) into a job's total and its largest block. */
static void add_block(size_t *total, size_t *largest, size_t bytes)
{
    bytes = mem_round(bytes);
    *total = sat_add(*total, bytes);
    if (largest && bytes > *largest)
        *largest = bytes;
}

/* The CPU job of msm_cpu_job.c for n points (see the top of this file); *largest (may be
 * NULL): its largest block. */
static size_t cpu_job_bytes(const hpr_ctx *ctx, const msm_curve_ops *ops, const void *points, const void *scalars,
                            size_t n, const hpr_msm_opts *opts, size_t *largest)
{
    const msm_cpu_kernel *k = msm_kernel_for(ops, ctx->cpu_tier);
    size_t b = 0;
    if (largest)
        *largest = 0;
    if (n == 0 || !k)
        return 0;
    unsigned c = opts && opts->window_bits ? opts->window_bits
                                           : msm_cpu_window_bits(ops, ctx->cpu_tier, n, ctx->threads);
    size_t nw = msm_window_count(ops->scalar_bits, c), blocks = n / DECODE_BLOCK + 1;
    size_t chunks = opts && opts->point_chunks ? opts->point_chunks : 2 * (size_t)ctx->threads;
    add_block(&b, largest, n * sizeof(uint32_t)); /* the list and the ones */
    add_block(&b, largest, n * sizeof(uint32_t));
    add_block(&b, largest, blocks * (sizeof(size_t) + sizeof(msm_point_check)));
    if (!aligned8(scalars))
        add_block(&b, largest, n * sizeof(msm_scalar));
    if (!aligned8(points))
        add_block(&b, largest, sat_mul(n, ops->affine_size));
    add_block(&b, largest, sat_mul(ctx->threads, (k->scratch_size(c, n) + 63) & ~(size_t)63));
    if (k->prepared_size)
        add_block(&b, largest, sat_mul(n, k->prepared_size));
    if (c <= DIGIT_MAX_BITS && sat_mul(nw, n) <= DIGIT_MAX)
        add_block(&b, largest, nw * n * sizeof(int16_t));
    return sat_add(b, sat_mul(sat_mul(chunks + 2, nw) + ctx->threads, ops->xyzz_size)); /* window sums */
}

/* hpr_msm_ex's device for opts (NULL: the context's). */
static const char *msm_device(const hpr_ctx *ctx, const hpr_msm_opts *opts)
{
    return opts && opts->device ? opts->device : ctx->device;
}

size_t mem_msm_need(hpr_ctx *ctx, const msm_curve_ops *ops, const cl_points *pts, const void *scalars, size_t n,
                    const hpr_msm_opts *opts)
{
    const char *device = msm_device(ctx, opts);
    int shaped = opts && (opts->window_bits || opts->point_chunks || opts->windows_per_tile);
    int all = strcmp(device, "all") == 0;
    size_t cpu = cpu_job_bytes(ctx, ops, pts->host, scalars, n, opts, NULL), dev = 0;
    cl_dev *devs[HPR_REPORT_MAX_DEVICES];
    if (n == 0)
        return 0;
    cpu = sat_add(cpu, MEM_CALL_SLACK);
    if (all && (shaped || n < HYBRID_MIN_POINTS))
        return cpu; /* the CPU alone */
    unsigned ndev = host_devices(ctx, device, devs, HPR_REPORT_MAX_DEVICES - 1, NULL);
    for (unsigned d = 0; d < ndev; d++)
        dev = sat_add(dev, cl_msm_host_bytes(devs[d], ops, n, all || pts->key));
    return all ? sat_add(cpu, dev) : max_size(cpu, dev);
}

/* The smallest piece mem_msm tries for n points (halving while a half keeps the minimum). */
static size_t smallest_piece(size_t n)
{
    size_t piece = n;
    while ((piece + 1) / 2 >= MEM_MSM_MIN_PIECE)
        piece = (piece + 1) / 2;
    return piece;
}

/* A piece's failure: an invalid point named by its index in the whole MSM (the piece ran
 * from point off), anything else as it is. */
static hpr_status piece_error(hpr_ctx *ctx, const msm_curve_ops *ops, hpr_status st, const unsigned char *points,
                              size_t off, size_t m)
{
    uint64_t affine[MSM_MAX_AFFINE_BYTES / 8];
    if (st != HPR_ERR_COORDINATE_OUT_OF_RANGE && st != HPR_ERR_POINT_NOT_ON_CURVE)
        return st;
    for (size_t i = 0; i < m; i++) {
        msm_point_check kind = ops->decode_point(affine, points + (off + i) * ops->affine_size);
        if (kind != MSM_POINT_OK)
            return msm_point_error(ctx, ops, off + i, kind);
    }
    return st;
}

/* out = the MSM as the sum of run over pieces of `piece` points (the last shorter). */
static hpr_status msm_in_pieces(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                const cl_points *pts, const unsigned char *scalars, size_t n, void *out,
                                const hpr_msm_opts *opts, mem_msm_fn run, size_t piece)
{
    static const unsigned char zero[MSM_MAX_AFFINE_BYTES];
    static const uint32_t first = 0;
    uint64_t acc[MSM_MAX_XYZZ_BYTES / 8], term[MSM_MAX_XYZZ_BYTES / 8], affine[MSM_MAX_AFFINE_BYTES / 8];
    unsigned char part[MSM_MAX_AFFINE_BYTES];
    size_t as = ops->affine_size;
    char note[160];
    hpr_status st = msm_check_scalars(ctx, ops, scalars, n); /* named by their index in the whole */
    if (st != HPR_OK)
        return st;
    ops->xyzz_set_inf(acc);
    for (size_t off = 0; off < n; off += piece) {
        size_t m = n - off < piece ? n - off : piece;
        cl_points sub = {pts->host + off * as, m, 0, 0, pts->validated};
        if ((st = run(ctx, curve, group, ops, &sub, scalars + off * 32, m, part, opts)) != HPR_OK)
            return piece_error(ctx, ops, st, pts->host, off, m);
        if (memcmp(part, zero, as) == 0)
            continue; /* infinity */
        if (ops->decode_point(affine, part) != MSM_POINT_OK)
            return ctx_fail(ctx, HPR_ERR_INTERNAL, "MSM in pieces: a piece's result is not a point");
        ops->sum_points(term, affine, &first, 0, 1);
        ops->xyzz_add(acc, acc, term);
    }
    ops->encode_xyzz(out, acc);
    snprintf(note, sizeof note, "the MSM ran in %zu pieces of at most %zu points (memory limit)",
             (n + piece - 1) / piece, piece);
    note_append(ctx->report.notes, sizeof ctx->report.notes, NULL, note);
    return HPR_OK;
}

hpr_status mem_msm(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops, const cl_points *pts,
                   const void *scalars, size_t n, void *out, const hpr_msm_opts *opts, mem_msm_fn run)
{
    mem_limit lim;
    char what[64];
    size_t need = mem_msm_need(ctx, ops, pts, scalars, n, opts), piece = n, piece_need = need;
    if (budget_fits(ctx, need, &lim))
        return run(ctx, curve, group, ops, pts, scalars, n, out, opts);
    while ((piece + 1) / 2 >= MEM_MSM_MIN_PIECE) {
        piece = (piece + 1) / 2;
        cl_points sub = {pts->host, piece, 0, 0, 0};
        piece_need = mem_msm_need(ctx, ops, &sub, scalars, piece, opts);
        if (budget_fits(ctx, piece_need, &lim))
            return msm_in_pieces(ctx, curve, group, ops, pts, scalars, n, out, opts, run, piece);
    }
    snprintf(what, sizeof what, "the MSM of %zu points", n);
    return refuse(ctx, what, need, piece < n ? piece_need : 0, "in pieces of its points", &lim);
}

/* ---- NTT ---- */

/* An NTT of columns x n elements of es bytes (ops: its field on ctx's tier): the work copy
 * when copy, the scan's first-bad slots, the twiddle table (the tier's own too), and the
 * copies of dev ("cl:P.D") or of "all" (all: the devices that join), with POCL's buffers. */
static size_t ntt_bytes(hpr_ctx *ctx, const ntt_field_ops *ops, size_t n, size_t columns, int copy, cl_dev *dev,
                        int all)
{
    size_t col = sat_mul(n, ops->elem_bytes), total = sat_mul(col, columns);
    size_t b = sat_add(sat_mul(total / NTT_CONVERT_CHUNK + 1, sizeof(size_t)), MEM_CALL_SLACK);
    cl_dev *devs[HPR_REPORT_MAX_DEVICES];
    unsigned ndev = 0;
    if (copy)
        b = sat_add(b, mem_round(total));
    b = sat_add(b, mem_round(col));
    if (ops->kernel_twiddles)
        b = sat_add(b, mem_round(sat_mul(col, 2)));
    if (dev) {
        b = sat_add(b, mem_round(total)); /* the CPU's copy, to redo the columns after a fault */
        if (!dev->failed && (dev->type & CL_DEVICE_TYPE_CPU))
            devs[ndev++] = dev;
    } else if (all && (columns > 1 || n >= 1024)) {
        ndev = host_devices(ctx, "all", devs, HPR_REPORT_MAX_DEVICES - 1, NULL);
        b = sat_add(b, sat_add(mem_round(total), mem_round(col))); /* tiles' copies, four-step's transposes */
    }
    for (unsigned d = 0; d < ndev; d++)
        b = sat_add(b, sat_add(sat_mul(total, 2), col));
    return b;
}

size_t mem_ntt_need(hpr_ctx *ctx, const ntt_plan *pl)
{
    return ntt_bytes(ctx, pl->ops, pl->n, pl->columns, !pl->lde_log_rate, pl->dev, pl->all);
}

hpr_status mem_ntt_check(hpr_ctx *ctx, const ntt_plan *pl)
{
    mem_limit lim;
    char what[96];
    size_t need = mem_ntt_need(ctx, pl);
    if (budget_fits(ctx, need, &lim))
        return HPR_OK;
    if (pl->lde_log_rate)
        snprintf(what, sizeof what, "the LDE of %zu x 2^%u coefficients (rate %u)", pl->columns,
                 pl->log_n - pl->lde_log_rate, 1u << pl->lde_log_rate);
    else
        snprintf(what, sizeof what, "the NTT of %zu x 2^%u elements", pl->columns, pl->log_n);
    return refuse(ctx, what, need, 0, "", &lim);
}

/* ---- Groth16 ---- */

size_t mem_proof_need(hpr_ctx *ctx, const zkey_file *zk, const g16_precomputed *pre, int from_file, size_t *full,
                      size_t *least)
{
    const msm_curve_ops *g1 = msm_ops(zk->curve, HPR_G1), *g2 = msm_ops(zk->curve, HPR_G2);
    const ntt_field_ops *fr =
        ntt_field_ops_for(zk->curve == HPR_CURVE_BN254 ? HPR_FIELD_BN254_FR : HPR_FIELD_BLS12_381_FR, ctx->cpu_tier);
    size_t n = zk->domain_size, nv = zk->n_vars, npriv = nv - zk->n_public - 1;
    size_t held = sat_add(mem_round(n * 32), mem_round(nv * 32 + 1)), f = pre ? pre->f : 1;
    if (pre) /* the slices of w and h */
        held = sat_add(held, sat_add(mem_round(32 * f * nv), mem_round(32 * f * n)));
    if (from_file)
        held = sat_add(held, nv * (size_t)zk->n8r + 4096);
    if (!g1 || !g2 || !fr) {
        *full = *least = held;
        return held;
    }
    const cl_points pts[PROOF_MSMS] = {{pre ? pre->points[0] : zk->a, f * nv, 1, 1, 0},
                                       {pre ? pre->points[1] : zk->b1, f * nv, 1, 1, 0},
                                       {pre ? pre->points[2] : zk->b2, f * nv, 1, 1, 0},
                                       {pre ? pre->points[3] : zk->c, f * npriv, 1, 1, 0},
                                       {pre ? pre->points[4] : zk->h, f * n, 1, 1, 0}};
    const msm_curve_ops *ops[PROOF_MSMS] = {pre ? &pre->ops[0] : g1, pre ? &pre->ops[0] : g1,
                                            pre ? &pre->ops[1] : g2, pre ? &pre->ops[0] : g1,
                                            pre ? &pre->ops[0] : g1};
    cl_dev *devs[HPR_REPORT_MAX_DEVICES], *dev = NULL;
    unsigned gpus = 0, nhost = 0;
    int all = strcmp(ctx->device, "all") == 0;
    if (!all && strcmp(ctx->device, "cpu") != 0 && dev_resolve(ctx, ctx->device, &dev) != HPR_OK)
        ctx->detail[0] = '\0';
    /* h's columns and two twiddle tables (each batch's scratch slots beside them) */
    size_t h_order = sat_add(mem_round(3 * n * 32), ntt_bytes(ctx, fr, n, 3, 0, dev, all));
    h_order = sat_add(h_order, sat_add(mem_round(n * 32), fr->kernel_twiddles ? mem_round(n * 64) : 0));
    size_t order = h_order, pieces = h_order, spill = 0, spill_pieces = 0;
    size_t cpu = sat_add(mem_round(3 * n * 32), ntt_bytes(ctx, fr, n, 3, 0, NULL, 0));
    cpu = sat_add(cpu, sat_add(mem_round(n * 32), fr->kernel_twiddles ? mem_round(n * 64) : 0));
    if (all)
        nhost = host_devices(ctx, "all", devs, HPR_REPORT_MAX_DEVICES - 1, &gpus);
    size_t dev_msm = 0, resident = 0;
    /* each MSM beside the largest blocks of the others, which the heap may have put in fresh
     * memory (spill: see the top of this file) */
    size_t need[PROOF_MSMS], need_piece[PROOF_MSMS], largest[PROOF_MSMS], largest_piece[PROOF_MSMS];
    for (int i = 0; i < PROOF_MSMS; i++) {
        size_t m = pts[i].count;
        cl_points piece = {pts[i].host, smallest_piece(m), 0, 0, 0};
        need[i] = mem_msm_need(ctx, ops[i], &pts[i], NULL, m, NULL);
        need_piece[i] = mem_msm_need(ctx, ops[i], &piece, NULL, piece.count, NULL);
        cpu = max_size(cpu, cpu_job_bytes(ctx, ops[i], pts[i].host, NULL, m, NULL, &largest[i]));
        (void)cpu_job_bytes(ctx, ops[i], pts[i].host, NULL, piece.count, NULL, &largest_piece[i]);
        spill = sat_add(spill, largest[i]);
        spill_pieces = sat_add(spill_pieces, largest_piece[i]);
        for (unsigned d = 0; d < nhost; d++) {
            dev_msm = max_size(dev_msm, cl_msm_host_bytes(devs[d], ops[i], m, 0));
            resident = sat_add(resident, sat_mul(m, ops[i]->affine_size));
        }
    }
    for (int i = 0; i < PROOF_MSMS; i++) {
        order = max_size(order, sat_add(need[i], spill - largest[i]));
        pieces = max_size(pieces, sat_add(need_piece[i], spill_pieces - largest_piece[i]));
    }
    /* the task graph when a device joins: the CPU's largest task and every spill (any order)
     * beside the host devices' */
    size_t peak = nhost + gpus ? sat_add(sat_add(cpu, spill), sat_add(resident, sat_mul(dev_msm, nhost))) : order;
    /* h's evaluations, kept for h's device (host/groth16_graph.c) beside the CPU's MSMs */
    if (nhost + gpus && !pre && ctx->knobs.g16_h_device != 0 && (gpus || ctx->knobs.g16_h_device == 1))
        peak = sat_add(peak, mem_round(3 * n * 32));
    *full = sat_add(sat_add(held, MEM_PROOF_SLACK), peak);
    *least = sat_add(sat_add(held, MEM_PROOF_SLACK), pieces);
    return held;
}

hpr_status mem_proof_begin(hpr_ctx *ctx, const zkey_file *zk, const g16_precomputed *pre, int from_file)
{
    mem_limit lim;
    size_t full, least, held = mem_proof_need(ctx, zk, pre, from_file, &full, &least);
    ctx->mem.held = 0;
    ctx->mem.in_order = 0;
    if (budget_fits(ctx, full, &lim)) {
        ctx->mem.held = held;
        return HPR_OK;
    }
    if (least < full && budget_fits(ctx, least, &lim)) {
        ctx->mem.held = held;
        ctx->mem.in_order = 1;
        return HPR_OK;
    }
    return refuse(ctx, "the proof", full, least < full ? least : 0, "with its phases in order and its MSMs in pieces",
                  &lim);
}

hpr_status mem_proof_end(hpr_ctx *ctx, hpr_status st)
{
    ctx->mem.held = 0;
    ctx->mem.in_order = 0;
    return st;
}
