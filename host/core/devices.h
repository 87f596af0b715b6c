/*
 * devices.h: the OpenCL devices of a context (host/core/device_registry.c): the OpenCL runtime
 * opened lazily, names resolved, and the one rule of which devices join a run across devices.
 * An MSM's readiness (program built, self-test passed) is the MSM engine's
 * (host/msm/msm_devices.h).
 */
#ifndef HOST_DEVICES_H
#define HOST_DEVICES_H

#include "host/core/context.h"

/* Opens the OpenCL runtime of ctx if not yet done (a runtime without devices when OpenCL is
 * absent). HPR_ERR_OUT_OF_MEMORY otherwise. */
RT_MUST_CHECK hpr_status dev_runtime(hpr_ctx *ctx);

/* Resolves a device name: *dev = NULL for the CPU ("cpu", "all"), the OpenCL device for
 * "cl:P.D"; HPR_ERR_UNKNOWN_DEVICE (with detail) for anything else. */
RT_MUST_CHECK hpr_status dev_resolve(hpr_ctx *ctx, const char *name, cl_dev **dev);

/* The identity under which a device's calibrated figures are stored in the profile (the
 * CPU's includes its model, threads and kernel tier: the tiers differ up to fivefold).
 * HPR_ERR_UNKNOWN_DEVICE for a bad name. */
RT_MUST_CHECK hpr_status dev_profile_key(hpr_ctx *ctx, const char *device, char *key, size_t len);

/* 1 when the calibration profile shows an OpenCL device adding throughput beside the CPU: its
 * MSM speed (either curve, some size) at least half the CPU's at that curve and size, the CPU
 * as ctx runs it (model, threads, tier). cl_key: that device's key (dev_profile_key), or NULL
 * for any OpenCL device in the profile. 0 without a profile. */
int dev_opencl_helps(hpr_ctx *ctx, const char *cl_key);

/* The device of a call that asked for `asked` (an options struct's device): the context's
 * for NULL or "auto" (what auto resolved to), else asked. */
const char *dev_of_call(const hpr_ctx *ctx, const char *asked);

/* Resolves the device set "auto" of a new context (sets ctx->device, device_auto and
 * device_choice): "all" when an OpenCL driver other than POCL's is installed or a
 * calibration on this machine shows an OpenCL device adding throughput, else "cpu", with
 * nothing of OpenCL loaded. Under auto, an OpenCL device of type CPU joins only where
 * dev_auto_cpu_device_helps says so. */
void dev_auto_choose(hpr_ctx *ctx);

/* The rule of which usable OpenCL devices join a run beside the native pool: 1 when dev, of
 * type CPU (POCL), would oversubscribe the cores with the pool's threads. */
int dev_oversubscribes(const hpr_ctx *ctx, const cl_dev *dev);

/* A caller's readiness check for dev_pick_opencl (an MSM's: program built, self-test passed,
 * host/msm/device_selftest.c); what: the caller's own argument. HPR_OK when dev is ready. */
typedef hpr_status (*dev_ready_fn)(hpr_ctx *ctx, cl_dev *dev, const void *what);

/* The OpenCL devices that join a run across devices (at most max, into picked): usable, not
 * oversubscribing the cores beside the native pool (dev_oversubscribes), and ready (ready
 * NULL: no check, as for the NTT and the commit); the others are named in the notes, and one
 * that fails its readiness now is a fault of the run report (report_device_fault). */
unsigned dev_pick_opencl(hpr_ctx *ctx, dev_ready_fn ready, const void *what, cl_dev **picked, unsigned max);

/* The OpenCL devices of type CPU (POCL: their buffers are host memory) that a call on device
 * may use, at most max, into out: the one named when usable; under "all", those
 * dev_pick_opencl would pick. *others (may be NULL): the other devices that would join under
 * "all". For the memory estimates. */
unsigned dev_host_devices(hpr_ctx *ctx, const char *device, cl_dev **out, unsigned max, unsigned *others);

#endif
