/*
 * profile.h: the calibration profile: measured throughput per (device identity, curve or
 * field, size), stored as JSON Lines in the cache directory (profile.jsonl beside the program
 * binaries).
 *
 * Format (schema 1): one JSON object per line,
 *   {"key": "<device identity>", "curve": "bn254", "log_n": 16, "points_per_s": 123456.7}
 * "curve" also names NTT fields ("koalabear", "bn254-fr"), whose figure is elements/s. All four names
 * are required, other names are ignored (later versions may add some), blank lines are
 * skipped. The key names the device so that a profile never applies to other hardware: for
 * the CPU, its model and thread count; for OpenCL, name, vendor, driver and compute units.
 * Each line is read by a strict parser; a malformed line is not used, and the loader reports
 * it (the first one's line and reason, and how many) so that callers can say so. Writes go to
 * a temporary file renamed into place.
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

#define PROFILE_FILE "profile.jsonl"

typedef struct {
    profile_record rec[PROFILE_MAX_RECORDS];
    size_t count;
    unsigned malformed;    /* lines that were not records */
    char first_error[3200]; /* "<path> line N: <reason>" of the first ("" when none) */
} profile;

/* Loads dir/profile.jsonl into p (empty when missing); malformed lines are counted and the
 * first one described in p->first_error. */
void profile_load(profile *p, const char *dir);

/* Sets (key, curve, log_n) to points_per_s, replacing an older measurement. */
void profile_set(profile *p, const char *key, const char *curve, unsigned log_n, double points_per_s);

/* Writes p to dir/profile.jsonl. 0, or -1. */
RT_MUST_CHECK int profile_store(const profile *p, const char *dir);

/* Throughput of (key, curve) at the measured size nearest to 2^log_n (in log scale), or 0. */
double profile_speed(const profile *p, const char *key, const char *curve, unsigned log_n);

#endif
