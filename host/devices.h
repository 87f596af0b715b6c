/*
 * devices.h: the OpenCL devices of a context. device_registry.c opens the OpenCL runtime
 * lazily and resolves names; device_selftest.c makes a device ready (program built, self-test
 * passed) and picks the devices that join a hybrid run.
 */
#ifndef HOST_DEVICES_H
#define HOST_DEVICES_H

#include "context.h"

/* Opens the OpenCL runtime of ctx if not yet done (a runtime without devices when OpenCL is
 * absent). HPR_ERR_OUT_OF_MEMORY otherwise. */
RT_MUST_CHECK hpr_status dev_runtime(hpr_ctx *ctx);

/* Resolves a device name: *dev = NULL for the CPU ("cpu", "all"), the OpenCL device for
 * "cl:P.D"; HPR_ERR_UNKNOWN_DEVICE (with detail) for anything else. */
RT_MUST_CHECK hpr_status dev_resolve(hpr_ctx *ctx, const char *name, cl_dev **dev);

/* The MSM program variant of (curve, group) (kernels_cl/curve_select.h): the curve id for
 * G1, the curve id + 2 for G2. What cl_msm and cl_msm_windows take as their curve. */
int dev_msm_variant(hpr_curve curve, hpr_group group);

/* Makes dev ready for MSMs of (curve, group): program built, self-test passed (once per
 * curve and group). HPR_ERR_DEVICE with detail if not; the device is then marked failed. */
RT_MUST_CHECK hpr_status dev_ready(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, hpr_group group);

/* The OpenCL devices that join a hybrid run (at most max, into picked): usable, ready for
 * MSMs of (curve, group) (program built, self-test passed; curve 0: not checked, for the
 * NTT), and not oversubscribing the cores beside the native pool; the others are named in
 * the notes, and one that fails its self-test now is a fault of the run report
 * (report_device_fault). */
unsigned dev_pick_opencl(hpr_ctx *ctx, hpr_curve curve, hpr_group group, cl_dev **picked, unsigned max);

#endif
