/*
 * speeds.h: the calibrated speeds that the schedulers start from (host/core/speeds.c looks them
 * up in the profile, runtime/sched/profile.h; host/calibrate/calibrate.c measures and stores them).
 * The public lookups are hpr_calibrated_speed and hpr_calibrated_ntt_speed.
 */
#ifndef HOST_SPEEDS_H
#define HOST_SPEEDS_H

#include "host/core/context.h"

/* The profile's labels: "bn254", "bls12-381"; "bn254-fr" .. "koalabear" (NULL: unknown). */
const char *speed_curve_label(hpr_curve curve);
const char *speed_field_label(hpr_field field);

#endif
