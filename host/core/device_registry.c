/*
 * device_registry.c: the OpenCL devices of a context: the runtime opened on first need
 * (devices discovered, no contexts yet), names resolved, devices listed for the API, and
 * the default device set "auto".
 *
 * Rationale for auto: an OpenCL CPU device (POCL) runs on the very cores the native tiers
 * use, and runs the MSM many times slower than they do (16x on a Zen 4), so beside them it
 * cannot add throughput, yet loading and self-testing it costs every run some 45 MB and
 * tens of ms. auto therefore takes the native tiers and every OpenCL device that is not a
 * CPU device (GPUs, accelerators); a CPU device joins only where this machine's calibration
 * profile shows it at half the native CPU's speed or more (dev_opencl_helps), or when the
 * caller names it or "all". Whether any OpenCL driver besides POCL's is installed is read
 * from the ICD loader's configuration (runtime/opencl/cl_icd.h) before anything is loaded:
 * without one, and without such a calibration, auto is "cpu" and OpenCL stays unloaded.
 * A forced OpenCL library (HPR_OPENCL_LIBRARY) counts as another driver.
 */
#include "host/core/devices.h"
#include "host/core/core_calls.h"
#include "runtime/opencl/cl_icd.h"
#include "runtime/sched/profile.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

hpr_status dev_runtime(hpr_ctx *ctx)
{
    if (ctx->cl)
        return HPR_OK;
    if (cl_runtime_open(&ctx->cl, &ctx->knobs.cl) != 0)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "cannot allocate the OpenCL device list");
    return HPR_OK;
}

hpr_status dev_resolve(hpr_ctx *ctx, const char *name, cl_dev **dev)
{
    hpr_status st;
    *dev = NULL;
    if (strcmp(name, "cpu") == 0 || strcmp(name, "all") == 0)
        return HPR_OK;
    if (strncmp(name, "cl:", 3) != 0)
        return ctx_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "unknown device '%s' (expected auto, cpu, all or cl:P.D)", name);
    if ((st = dev_runtime(ctx)) != HPR_OK)
        return st;
    *dev = cl_runtime_find(ctx->cl, name);
    if (!*dev) {
        if (ctx->cl->ndevs == 0)
            return ctx_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "device '%s': %s", name, ctx->cl->notice);
        return ctx_fail(ctx, HPR_ERR_UNKNOWN_DEVICE, "no OpenCL device '%s' (%u found: cl:0.0 .. see 'hyprove devices')",
                        name, ctx->cl->ndevs);
    }
    return HPR_OK;
}

unsigned device_count_call(hpr_ctx *ctx)
{
    if (!ctx || dev_runtime(ctx) != HPR_OK)
        return 0;
    return ctx->cl->ndevs;
}

const char *opencl_notice_call(hpr_ctx *ctx)
{
    if (!ctx || dev_runtime(ctx) != HPR_OK)
        return "OpenCL is not available";
    return ctx->cl->notice;
}

static const char *kind_name(cl_device_type t)
{
    if (t & CL_DEVICE_TYPE_GPU)
        return "gpu";
    if (t & CL_DEVICE_TYPE_CPU)
        return "cpu";
    if (t & CL_DEVICE_TYPE_ACCELERATOR)
        return "accelerator";
    return "other";
}

hpr_status device_get_info_call(hpr_ctx *ctx, unsigned index, hpr_device_info *info)
{
    if (!ctx || !info)
        return HPR_ERR_INVALID_ARGUMENT;
    if (index >= device_count_call(ctx))
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "device index %u out of range", index);
    const cl_dev *d = &ctx->cl->devs[index];
    memset(info, 0, sizeof *info);
    snprintf(info->id, sizeof info->id, "%s", d->id);
    snprintf(info->kind, sizeof info->kind, "%s", kind_name(d->type));
    snprintf(info->name, sizeof info->name, "%s", d->name);
    snprintf(info->vendor, sizeof info->vendor, "%s", d->vendor);
    snprintf(info->driver, sizeof info->driver, "%s", d->driver);
    snprintf(info->platform, sizeof info->platform, "%s", d->platform_name);
    snprintf(info->c_version, sizeof info->c_version, "%s", d->c_version);
    info->compute_units = d->compute_units;
    info->clock_mhz = d->clock_mhz;
    info->global_mem = d->global_mem;
    info->local_mem = d->local_mem;
    info->max_alloc = d->max_alloc;
    info->int64 = d->int64;
    info->usable = !d->failed;
    snprintf(info->status, sizeof info->status, "%s", d->failed ? d->failure : "");
    info->resident_bytes = d->resident_bytes;
    info->bytes_sent = d->bytes_sent;
    return HPR_OK;
}

hpr_status dev_profile_key(hpr_ctx *ctx, const char *device, char *key, size_t len)
{
    cl_dev *dev;
    hpr_status st = dev_resolve(ctx, device, &dev);
    if (st != HPR_OK)
        return st;
    if (!dev) {
        rt_cpu_features f;
        rt_cpu_features_detect(&f);
        snprintf(key, len, "cpu|%s|threads=%u|tier=%s", f.brand, ctx->threads, rt_cpu_tier_name(ctx->cpu_tier));
    } else {
        snprintf(key, len, "cl|%.100s|%.60s|%.60s|cu=%u", dev->name, dev->vendor, dev->driver, dev->compute_units);
    }
    return HPR_OK;
}

int dev_opencl_helps(hpr_ctx *ctx, const char *cl_key)
{
    char cpu_key[PROFILE_KEY_LEN];
    const char *dir = ctx->knobs.cl.cache_dir;
    int helps = 0;
    profile *prof;
    if (!dir[0] || dev_profile_key(ctx, "cpu", cpu_key, sizeof cpu_key) != HPR_OK || !(prof = malloc(sizeof *prof)))
        return 0;
    profile_load(prof, dir);
    for (size_t i = 0; i < prof->count && !helps; i++) {
        const profile_record *r = &prof->rec[i];
        int msm = strcmp(r->curve, "bn254") == 0 || strcmp(r->curve, "bls12-381") == 0;
        if (!msm || strncmp(r->key, "cl|", 3) != 0 || (cl_key && strcmp(r->key, cl_key) != 0))
            continue;
        double cpu = profile_speed(prof, cpu_key, r->curve, r->log_n);
        helps = cpu > 0 && r->points_per_s >= cpu / 2;
    }
    free(prof);
    return helps;
}

const char *dev_of_call(const hpr_ctx *ctx, const char *asked)
{
    return !asked || strcmp(asked, "auto") == 0 ? ctx->device : asked;
}

void dev_auto_choose(hpr_ctx *ctx)
{
    cl_icd_survey icd;
    cl_icd_survey_take(&icd);
    int forced = ctx->knobs.cl.library[0] != '\0';
    int calibrated = !forced && !icd.other && dev_opencl_helps(ctx, NULL); /* the profile read only when it decides */
    ctx->device_auto = 1;
    snprintf(ctx->device, sizeof ctx->device, "%s", forced || icd.other || calibrated ? "all" : "cpu");
    if (forced || icd.other)
        snprintf(ctx->device_choice, sizeof ctx->device_choice,
                 "auto: all (%s; OpenCL CPU devices only where calibrated to help)",
                 forced ? "HPR_OPENCL_LIBRARY is set" : "an OpenCL driver besides POCL is installed");
    else if (calibrated)
        snprintf(ctx->device_choice, sizeof ctx->device_choice,
                 "auto: all (the calibration profile shows an OpenCL device at half the CPU's speed or more)");
    else
        snprintf(ctx->device_choice, sizeof ctx->device_choice, "auto: cpu (%s; OpenCL not loaded)",
                 icd.pocl ? "the only OpenCL driver is POCL, whose CPU device shares the native tiers' cores"
                          : "no OpenCL driver installed");
}

/* Under auto, whether the usable device dev joins: any device that is not a CPU device; a
 * CPU device where the profile shows it helping (see the top of this file). */
static int auto_takes(hpr_ctx *ctx, const cl_dev *dev)
{
    char key[PROFILE_KEY_LEN];
    if (!ctx->device_auto || !(dev->type & CL_DEVICE_TYPE_CPU))
        return 1;
    if (dev_profile_key(ctx, dev->id, key, sizeof key) != HPR_OK) {
        ctx->detail[0] = '\0';
        return 0;
    }
    return dev_opencl_helps(ctx, key);
}

/* The one rule of which usable OpenCL devices join a run beside the native pool
 * (dev_pick_opencl, dev_host_devices and so the memory estimates): a device of type CPU
 * (POCL) does not, when it and the pool together would oversubscribe the cores. */
int dev_oversubscribes(const hpr_ctx *ctx, const cl_dev *dev)
{
    return (dev->type & CL_DEVICE_TYPE_CPU) && ctx->threads + dev->compute_units > rt_online_cpus();
}

unsigned dev_pick_opencl(hpr_ctx *ctx, dev_ready_fn ready, const void *what, cl_dev **picked, unsigned max)
{
    unsigned count = 0;
    char why[CL_DETAIL_LEN];
    if (dev_runtime(ctx) != HPR_OK)
        return 0;
    for (unsigned i = 0; i < ctx->cl->ndevs && count < max; i++) {
        cl_dev *dev = &ctx->cl->devs[i];
        if (dev->failed) {
            report_note(ctx, dev->id, "left out: unusable");
            continue;
        }
        if (!auto_takes(ctx, dev)) {
            report_note(ctx, dev->id, "left out by the default device set auto: an OpenCL CPU device, not calibrated "
                                      "to help (name it or use all to include it)");
            continue;
        }
        if (dev_oversubscribes(ctx, dev)) {
            snprintf(why, sizeof why,
                     "left out: it runs on the same %u cores as the native pool (%u threads), which is faster per "
                     "core; limit both (threads, POCL_MAX_PTHREAD_COUNT) to combine them",
                     rt_online_cpus(), ctx->threads);
            report_note(ctx, dev->id, why);
            continue;
        }
        if (ready && ready(ctx, dev, what) != HPR_OK) {
            report_note(ctx, dev->id, ctx->detail);
            ctx->detail[0] = '\0';
            if (dev->failed) /* failed its self-test now: a fault of this call */
                report_device_fault(ctx, dev->id, 1, dev->failure);
            continue;
        }
        picked[count++] = dev;
    }
    return count;
}

/* The OpenCL devices of type CPU (POCL: their buffers are host memory) that a call on device
 * may use, at most max: the one named when usable; under "all", those dev_pick_opencl would
 * pick (usable, not oversubscribing the cores beside the pool). *others (may be NULL): the
 * other devices ("all": usable ones that would join). */
unsigned dev_host_devices(hpr_ctx *ctx, const char *device, cl_dev **out, unsigned max, unsigned *others)
{
    unsigned count = 0;
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
        if (d->failed || !auto_takes(ctx, d) || dev_oversubscribes(ctx, d))
            continue;
        if (cpu && count < max)
            out[count++] = d;
        else if (!cpu && others)
            ++*others;
    }
    return count;
}
