/*
 * profile.h: the calibration profile: measured MSM throughput per (device identity, curve,
 * size), stored as JSON in the cache directory (profile.json beside the program binaries).
 *
 * Format: a JSON list with one record per line,
 *   {"key": "<device identity>", "curve": "bn254", "log_n": 16, "points_per_s": 123456.7}
 * The key names the device so that a profile never applies to other hardware: for the CPU,
 * its model and thread count; for OpenCL, name, vendor, driver and compute units. Unreadable
 * lines are ignored; writes go to a temporary file renamed into place.
 */
#ifndef RUNTIME_SCHED_PROFILE_H
#define RUNTIME_SCHED_PROFILE_H

#include "runtime/base/rt_check.h"

#include <stddef.h>

#define PROFILE_MAX_RECORDS 512
#define PROFILE_KEY_LEN 256

typedef struct {
    char key[PROFILE_KEY_LEN];
    char curve[16];
    unsigned log_n;
    double points_per_s;
} profile_record;

typedef struct {
    profile_record rec[PROFILE_MAX_RECORDS];
    size_t count;
} profile;

/* Loads dir/profile.json into p (empty when missing). */
void profile_load(profile *p, const char *dir);

/* Sets (key, curve, log_n) to points_per_s, replacing an older measurement. */
void profile_set(profile *p, const char *key, const char *curve, unsigned log_n, double points_per_s);

/* Writes p to dir/profile.json. 0, or -1. */
RT_MUST_CHECK int profile_store(const profile *p, const char *dir);

/* Throughput of (key, curve) at the measured size nearest to 2^log_n (in log scale), or 0. */
double profile_speed(const profile *p, const char *key, const char *curve, unsigned log_n);

#endif
