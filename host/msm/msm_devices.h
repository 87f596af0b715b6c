/*
 * msm_devices.h: OpenCL devices made ready for MSMs (host/msm/device_selftest.c): the program
 * built and a self-test passed, once per device, curve and group; and the devices picked for
 * an MSM run across devices (host/core/devices.h's rule with this readiness).
 */
#ifndef HOST_MSM_MSM_DEVICES_H
#define HOST_MSM_MSM_DEVICES_H

#include "host/core/devices.h"

/* The MSM program variant of (curve, group) (kernels_cl/curve_select.h): the curve id for
 * G1, the curve id + 2 for G2. What cl_msm and cl_msm_windows take as their curve. */
int dev_msm_variant(hpr_curve curve, hpr_group group);

/* Makes dev ready for MSMs of (curve, group): program built, self-test passed (once per
 * curve and group). HPR_ERR_DEVICE with detail if not; the device is then marked failed. */
RT_MUST_CHECK hpr_status dev_ready(hpr_ctx *ctx, cl_dev *dev, hpr_curve curve, hpr_group group);

/* dev_pick_opencl with the readiness for MSMs of (curve, group). */
unsigned msm_pick_devices(hpr_ctx *ctx, hpr_curve curve, hpr_group group, cl_dev **picked, unsigned max);

#endif
