/*
 * cl_device.c: OpenCL discovery, per-device contexts and queues, and program builds through
 * the binary cache.
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_device.h"

#include "cl_cache.h"
#include "cl_sources.h"
#include "runtime/base/rt_pool.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_PLATFORMS 16
#define MAX_DEVICES_PER_PLATFORM 64

static void device_string(const cl_api *api, cl_device_id d, cl_device_info what, char *buf, size_t len)
{
    buf[0] = '\0';
    if (api->clGetDeviceInfo(d, what, len - 1, buf, NULL) != CL_SUCCESS)
        snprintf(buf, len, "?");
    buf[len - 1] = '\0';
}

static void platform_string(const cl_api *api, cl_platform_id p, cl_platform_info what, char *buf, size_t len)
{
    buf[0] = '\0';
    if (api->clGetPlatformInfo(p, what, len - 1, buf, NULL) != CL_SUCCESS)
        snprintf(buf, len, "?");
    buf[len - 1] = '\0';
}

static uint64_t device_ulong(const cl_api *api, cl_device_id d, cl_device_info what)
{
    cl_ulong v = 0;
    api->clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

static unsigned device_uint(const cl_api *api, cl_device_id d, cl_device_info what)
{
    cl_uint v = 0;
    api->clGetDeviceInfo(d, what, sizeof v, &v, NULL);
    return v;
}

static void describe_device(const cl_api *api, cl_dev *dev, unsigned p, unsigned i, cl_platform_id plat,
                            cl_device_id d)
{
    char profile[64], extensions[4096];
    memset(dev, 0, sizeof *dev);
    snprintf(dev->id, sizeof dev->id, "cl:%u.%u", p, i);
    dev->platform = plat;
    dev->device = d;
    platform_string(api, plat, CL_PLATFORM_NAME, dev->platform_name, sizeof dev->platform_name);
    platform_string(api, plat, CL_PLATFORM_VERSION, dev->platform_version, sizeof dev->platform_version);
    device_string(api, d, CL_DEVICE_NAME, dev->name, sizeof dev->name);
    device_string(api, d, CL_DEVICE_VENDOR, dev->vendor, sizeof dev->vendor);
    device_string(api, d, CL_DRIVER_VERSION, dev->driver, sizeof dev->driver);
    device_string(api, d, CL_DEVICE_OPENCL_C_VERSION, dev->c_version, sizeof dev->c_version);
    device_string(api, d, CL_DEVICE_PROFILE, profile, sizeof profile);
    device_string(api, d, CL_DEVICE_EXTENSIONS, extensions, sizeof extensions);
    api->clGetDeviceInfo(d, CL_DEVICE_TYPE, sizeof dev->type, &dev->type, NULL);
    dev->compute_units = device_uint(api, d, CL_DEVICE_MAX_COMPUTE_UNITS);
    dev->clock_mhz = device_uint(api, d, CL_DEVICE_MAX_CLOCK_FREQUENCY);
    dev->global_mem = device_ulong(api, d, CL_DEVICE_GLOBAL_MEM_SIZE);
    dev->local_mem = device_ulong(api, d, CL_DEVICE_LOCAL_MEM_SIZE);
    dev->max_alloc = device_ulong(api, d, CL_DEVICE_MAX_MEM_ALLOC_SIZE);
    dev->int64 = strcmp(profile, "FULL_PROFILE") == 0 || strstr(extensions, "cl_khr_int64") != NULL;
    dev->is_pocl = strstr(dev->platform_name, "Portable Computing Language") != NULL ||
                   strstr(dev->platform_version, "pocl") != NULL;
    if (!dev->int64) {
        dev->failed = 1;
        snprintf(dev->failure, sizeof dev->failure, "no 64-bit integer support (cl_khr_int64)");
    }
}

static int discover(cl_runtime *rt)
{
    const cl_api *api = &rt->api;
    cl_platform_id plats[MAX_PLATFORMS];
    cl_uint nplat = 0;
    cl_int err = api->clGetPlatformIDs(MAX_PLATFORMS, plats, &nplat);
    if (err != CL_SUCCESS || nplat == 0) {
        snprintf(rt->notice, sizeof rt->notice, "no OpenCL platform found (clGetPlatformIDs: %s)",
                 err == CL_SUCCESS ? "0 platforms" : cl_error_name(err));
        return 0;
    }
    rt->devs = calloc((size_t)nplat * MAX_DEVICES_PER_PLATFORM, sizeof *rt->devs);
    if (!rt->devs)
        return -1;
    for (cl_uint p = 0; p < nplat && p < MAX_PLATFORMS; p++) {
        cl_device_id ids[MAX_DEVICES_PER_PLATFORM];
        cl_uint nd = 0;
        if (api->clGetDeviceIDs(plats[p], CL_DEVICE_TYPE_ALL, MAX_DEVICES_PER_PLATFORM, ids, &nd) != CL_SUCCESS)
            continue;
        for (cl_uint i = 0; i < nd && i < MAX_DEVICES_PER_PLATFORM; i++)
            describe_device(api, &rt->devs[rt->ndevs++], p, i, plats[p], ids[i]);
    }
    if (rt->ndevs == 0)
        snprintf(rt->notice, sizeof rt->notice, "OpenCL platforms found, but no devices");
    return 0;
}

static const char *const words_names[CL_WORDS_VARIANTS] = {"standard", "int128", "limb32", "ptx"};

const char *cl_words_name(int words)
{
    return words >= 0 && words < CL_WORDS_VARIANTS ? words_names[words] : "";
}

int cl_words_parse(const char *name)
{
    for (int w = 0; name && w < CL_WORDS_VARIANTS; w++)
        if (strcmp(name, words_names[w]) == 0)
            return w;
    return -1;
}

void cl_options_default(cl_options *opts)
{
    memset(opts, 0, sizeof *opts);
    opts->words = -1;
}

int cl_runtime_open(cl_runtime **out, const cl_options *opts)
{
    cl_runtime *rt = calloc(1, sizeof *rt);
    *out = NULL;
    if (!rt)
        return -1;
    if (opts)
        rt->opts = *opts;
    else
        cl_options_default(&rt->opts);
    if (cl_api_open(&rt->api, rt->opts.library, rt->notice, sizeof rt->notice) != 0) {
        *out = rt;
        return 0;
    }
    rt->api_loaded = 1;
    if (discover(rt) != 0) {
        cl_runtime_close(rt);
        return -1;
    }
    for (unsigned i = 0; i < rt->ndevs; i++)
        rt->devs[i].opts = &rt->opts;
    *out = rt;
    return 0;
}

/* Unlinks *link (a set of dev) and releases it. */
static void release_set(const cl_api *api, cl_dev *dev, cl_resident **link)
{
    cl_resident *r = *link;
    *link = r->next;
    for (unsigned s = 0; r->slabs && s < r->nslabs; s++)
        if (r->slabs[s])
            api->clReleaseMemObject(r->slabs[s]);
    dev->resident_bytes -= r->bytes;
    free(r->slabs);
    free(r);
}

void cl_resident_drop(const cl_api *api, cl_dev *dev, uint64_t owner)
{
    cl_resident **link = &dev->resident;
    while (*link) {
        if (owner && (*link)->owner != owner)
            link = &(*link)->next;
        else
            release_set(api, dev, link);
    }
}

void cl_resident_remove(const cl_api *api, cl_dev *dev, cl_resident *r)
{
    cl_resident **link = &dev->resident;
    while (*link && *link != r)
        link = &(*link)->next;
    if (*link)
        release_set(api, dev, link);
}

static void release_device(const cl_api *api, cl_dev *dev)
{
    cl_resident_drop(api, dev, 0);
    for (int t = 0; t < CL_TWIDDLE_SLOTS; t++)
        if (dev->twiddles[t].buf)
            api->clReleaseMemObject(dev->twiddles[t].buf);
    for (int k = 0; k < CL_PROG_KINDS; k++)
        for (int c = 0; c < CL_CURVES; c++)
            for (int w = 0; w < CL_WORDS_VARIANTS; w++)
                if (dev->programs[k][c][w])
                    api->clReleaseProgram(dev->programs[k][c][w]);
    for (int q = 0; q < 2; q++)
        if (dev->queue[q])
            api->clReleaseCommandQueue(dev->queue[q]);
    if (dev->context)
        api->clReleaseContext(dev->context);
}

void cl_runtime_close(cl_runtime *rt)
{
    if (!rt)
        return;
    for (unsigned i = 0; i < rt->ndevs; i++)
        release_device(&rt->api, &rt->devs[i]);
    free(rt->devs);
    if (rt->api_loaded)
        cl_api_close(&rt->api);
    free(rt);
}

cl_dev *cl_runtime_find(cl_runtime *rt, const char *id)
{
    for (unsigned i = 0; rt && i < rt->ndevs; i++)
        if (strcmp(rt->devs[i].id, id) == 0)
            return &rt->devs[i];
    return NULL;
}

int cl_dev_open(cl_runtime *rt, cl_dev *dev, char *detail)
{
    const cl_api *api = &rt->api;
    cl_int rc;
    if (dev->context)
        return 0;
    dev->context = api->clCreateContext(NULL, 1, &dev->device, NULL, NULL, &rc);
    CL_CHECK_RC(clCreateContext, rc);
    for (int q = 0; q < 2; q++) {
        dev->queue[q] = api->clCreateCommandQueue(dev->context, dev->device, 0, &rc);
        CL_CHECK_RC(clCreateCommandQueue, rc);
    }
    return 0;
out:
    release_device(api, dev);
    memset(dev->queue, 0, sizeof dev->queue);
    dev->context = NULL;
    return -1;
}

static int dev_is_nvidia(const cl_dev *dev)
{
    return strstr(dev->vendor, "NVIDIA") != NULL;
}

int cl_dev_offers_words(const cl_dev *dev, int words)
{
    return words == CL_WORDS_STANDARD || words == CL_WORDS_LIMB32 || (words == CL_WORDS_INT128 && dev->is_pocl) ||
           (words == CL_WORDS_PTX && dev_is_nvidia(dev));
}

/* The portable words behind a vendor's fast path: ptx's limb32, int128's standard. */
static int portable_words(int words)
{
    return words == CL_WORDS_PTX ? CL_WORDS_LIMB32 : CL_WORDS_STANDARD;
}

int cl_dev_default_words(const cl_dev *dev)
{
    int forced = dev->opts ? dev->opts->words : -1;
    if (forced >= 0 && cl_dev_offers_words(dev, forced))
        return forced;
    if (dev->is_pocl)
        return CL_WORDS_INT128;
    /* NVIDIA: 32-bit words, each product one native 32x32->64 multiplication where 64-bit
     * words need mul_hi on emulated 64-bit integers (issue 49; ptxas's figures in
     * docs/opencl.md; a GPU measurement may revise it: scripts/gpu-check.sh compares them).
     * The inline-PTX words (HPR_CL_WORDS=ptx) take 0.58x limb32's SASS per BN254 multiplication
     * but have not run on a GPU yet: they become the default once gpu-check has compared them
     * bit for bit on one (docs/opencl.md). */
    return dev_is_nvidia(dev) ? CL_WORDS_LIMB32 : CL_WORDS_STANDARD;
}

size_t cl_launch_group(const cl_api *api, const cl_dev *dev, cl_kernel k)
{
    size_t limit = 0, group = CL_LAUNCH_GROUP;
    if (api->clGetKernelWorkGroupInfo(k, dev->device, CL_KERNEL_WORK_GROUP_SIZE, sizeof limit, &limit, NULL) != CL_SUCCESS)
        limit = 1; /* no answer: single items always run */
    while (group > 1 && group > limit)
        group /= 2;
    return group;
}

/* Options of a program build. HPR_CL_INLINE (arith/compat.h: shared functions inlined, limb
 * loops unrolled) for every device but POCL, whose CPU code does not need it and whose builds
 * it would slow. scripts/ptx-check.sh compiles with an NVIDIA device's options: keep it in step. */
static void build_options(char *buf, size_t len, const cl_dev *dev, int kind, int variant, int words)
{
    snprintf(buf, len,
             "-cl-std=CL1.2 -DHPR_CL_%s=%d -DHPR_CL_INT128=%d -DHPR_CL_LIMB32=%d -DHPR_CL_PTX=%d -DHPR_CL_INLINE=%d",
             kind == CL_PROG_NTT || kind == CL_PROG_POSEIDON2 ? "FIELD" : "CURVE", variant, words == CL_WORDS_INT128,
             words == CL_WORDS_LIMB32, words == CL_WORDS_PTX, !dev->is_pocl);
}

static uint64_t cache_key(const cl_dev *dev, const char *options, int kind)
{
    uint64_t h = CL_CACHE_HASH_INIT;
    const char *parts[] = {dev->name, dev->vendor, dev->driver, dev->platform_version, options, cl_src_hash};
    for (size_t i = 0; i < sizeof parts / sizeof parts[0]; i++)
        h = cl_cache_hash(h, parts[i], strlen(parts[i]) + 1);
    return cl_cache_hash(h, &kind, sizeof kind);
}

/* Build log of prog on dev appended to detail after "<what>: ". */
static void capture_build_log(const cl_api *api, cl_program prog, const cl_dev *dev, char *detail, const char *what)
{
    char log[CL_DETAIL_LEN];
    size_t n = 0;
    log[0] = '\0';
    if (api->clGetProgramBuildInfo(prog, dev->device, CL_PROGRAM_BUILD_LOG, sizeof log - 1, log, &n) != CL_SUCCESS)
        snprintf(log, sizeof log, "(no build log)");
    log[sizeof log - 1] = '\0';
    for (char *c = log; *c; c++)
        if (*c == '\n')
            *c = ' ';
    snprintf(detail, CL_DETAIL_LEN, "%s on %s: %.400s", what, dev->id, log);
}

/* Tries the cached binary. Returns a built program, or NULL (and sets *corrupt when an entry
 * existed but was unusable). */
static cl_program load_cached(const cl_api *api, cl_dev *dev, const char *dir, uint64_t key, const char *options,
                              int *corrupt)
{
    unsigned char *bin = NULL;
    size_t len = 0;
    cl_int rc, status;
    cl_program prog = NULL;
    cl_cache_result res = cl_cache_load(dir, key, &bin, &len);
    *corrupt = res == CL_CACHE_CORRUPT;
    if (res != CL_CACHE_HIT)
        return NULL;
    const unsigned char *bins[1] = {bin};
    prog = api->clCreateProgramWithBinary(dev->context, 1, &dev->device, &len, bins, &status, &rc);
    if (rc == CL_SUCCESS && status == CL_SUCCESS && api->clBuildProgram(prog, 1, &dev->device, options, NULL, NULL) == CL_SUCCESS) {
        free(bin);
        return prog;
    }
    if (prog)
        api->clReleaseProgram(prog);
    free(bin);
    *corrupt = 1;
    return NULL;
}

static void store_binary(const cl_api *api, cl_dev *dev, cl_program prog, const char *dir, uint64_t key,
                         cl_build_report *rep)
{
    size_t len = 0;
    unsigned char *bin = NULL;
    if (api->clGetProgramInfo(prog, CL_PROGRAM_BINARY_SIZES, sizeof len, &len, NULL) != CL_SUCCESS || len == 0)
        return;
    bin = malloc(len);
    if (!bin)
        return;
    unsigned char *bins[1] = {bin};
    if (api->clGetProgramInfo(prog, CL_PROGRAM_BINARIES, sizeof bins, bins, NULL) == CL_SUCCESS)
        rep->cache_written = cl_cache_store(dir, key, bin, len) == 0;
    free(bin);
    (void)dev;
}

static int build_from_source(const cl_api *api, cl_dev *dev, int kind, const char *options, cl_program *out,
                             char *detail)
{
    const char *src = kind == CL_PROG_MSM         ? cl_src_msm
                      : kind == CL_PROG_NTT       ? cl_src_ntt
                      : kind == CL_PROG_POSEIDON2 ? cl_src_poseidon2
                                                  : cl_src_test;
    cl_int rc;
    cl_program prog = api->clCreateProgramWithSource(dev->context, 1, &src, NULL, &rc);
    CL_CHECK_RC(clCreateProgramWithSource, rc);
    rc = api->clBuildProgram(prog, 1, &dev->device, options, NULL, NULL);
    if (rc != CL_SUCCESS) {
        capture_build_log(api, prog, dev, detail, rc == CL_BUILD_PROGRAM_FAILURE ? "OpenCL program build failed" : cl_error_name(rc));
        goto out;
    }
    *out = prog;
    return 0;
out:
    if (prog)
        api->clReleaseProgram(prog);
    return -1;
}

static int load_or_build(cl_runtime *rt, cl_dev *dev, int kind, int curve, int words, char *detail)
{
    const cl_api *api = &rt->api;
    cl_build_report *rep = &dev->reports[kind][curve][words];
    char options[160];
    const char *dir = rt->opts.cache_dir;
    int have_dir = dir[0] != '\0', corrupt = 0;
    double t0 = rt_now_seconds();
    cl_program prog = NULL;
    uint64_t key;
    build_options(options, sizeof options, dev, kind, curve, words);
    key = cache_key(dev, options, kind);
    memset(rep, 0, sizeof *rep);
    rep->words = words;
    if (have_dir)
        prog = load_cached(api, dev, dir, key, options, &corrupt);
    if (prog) {
        rep->cache_hit = 1;
    } else {
        if (build_from_source(api, dev, kind, options, &prog, detail) != 0)
            return -1;
        rep->cache_rebuilt = corrupt;
        if (have_dir)
            store_binary(api, dev, prog, dir, key, rep);
    }
    rep->seconds = rt_now_seconds() - t0;
    dev->programs[kind][curve][words] = prog;
    return 0;
}

int cl_dev_program(cl_runtime *rt, cl_dev *dev, int kind, int curve, int words, cl_program *prog, char *detail)
{
    if (curve < 1 || curve >= CL_CURVES || kind < 0 || kind >= CL_PROG_KINDS || words < 0 || words >= CL_WORDS_VARIANTS) {
        snprintf(detail, CL_DETAIL_LEN, "internal: no program (kind %d, curve %d, words %d)", kind, curve, words);
        return -1;
    }
    if (cl_dev_open(rt, dev, detail) != 0)
        return -1;
    if (!cl_dev_offers_words(dev, words)) /* e.g. PTX on POCL: its x86 back end would fail at launch */
        words = portable_words(words);
    if (!dev->programs[kind][curve][words] && load_or_build(rt, dev, kind, curve, words, detail) != 0) {
        if (words != CL_WORDS_INT128 && words != CL_WORDS_PTX)
            return -1;
        /* a vendor fast path did not build: its portable words always must */
        return cl_dev_program(rt, dev, kind, curve, portable_words(words), prog, detail);
    }
    *prog = dev->programs[kind][curve][words];
    return 0;
}

int cl_dev_injected_fault(const cl_dev *dev, char *detail)
{
    const char *f = dev->opts ? dev->opts->inject_fault : "";
    if (!f[0] || strcmp(f, dev->id) != 0)
        return 0;
    snprintf(detail, CL_DETAIL_LEN, "fault injected by HPR_CL_INJECT_FAULT=%s", f);
    return 1;
}
