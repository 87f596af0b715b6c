/*
 * calibrate_calls.h: the entries of calibration (MSM and NTT speeds measured on each device)
 * that host/api/ calls.
 * Each *_call function is the body of one public call: host/api/ takes the call lock
 * (ctx_enter / ctx_leave) around it; inside the library they are called directly, never
 * through the hpr_ API (the lock is not recursive). Contracts: those of the hpr_ function
 * that host/api/ defines over each (host/include/hyprove.h); each checks its own arguments.
 */
#ifndef HOST_CALIBRATE_CALIBRATE_CALLS_H
#define HOST_CALIBRATE_CALIBRATE_CALLS_H

#include "host/core/context.h"

hpr_status calibrate_call(hpr_ctx *ctx, const char *device, hpr_curve curve, const unsigned *log_n, size_t count,
                          double *points_per_s);
hpr_status calibrate_ntt_call(hpr_ctx *ctx, const char *device, hpr_field field, const unsigned *log_n, size_t count,
                              double *elements_per_s);

#endif
