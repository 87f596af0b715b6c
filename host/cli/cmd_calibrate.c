/*
 * cmd_calibrate.c: `hyprove calibrate`: measures each device's MSM throughput and stores the
 * profile that the hybrid scheduler starts from.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <stdio.h>
#include <string.h>

#define MAX_SIZES 8
#define MAX_DEVICES 8

static const char *calibrate_help =
    "usage: hyprove calibrate [--curve C[,C]] [--log-n N[,N...]] [--threads T] [--devices D[,D...]]\n"
    "\n"
    "Measures the MSM throughput (points/s, transfers included) of each device alone, per\n"
    "curve and size, and stores it in the calibration profile (profile.json in $HPR_CACHE_DIR,\n"
    "else $XDG_CACHE_HOME/hyprove, else ~/.cache/hyprove), keyed by the device's identity and\n"
    "driver. The hybrid scheduler (--device all) starts from these figures instead of probing.\n"
    "Defaults: both curves, sizes 2^12,2^14,2^16, the CPU with all cores and every usable\n"
    "OpenCL device. The CPU's figures are kept per thread count: calibrate with the --threads\n"
    "you will run with.\n";

/* Every OpenCL device id of a CPU-only context, after "cpu". */
static size_t all_devices(char ids[][CLI_DEVICE_NAME_LEN], size_t max)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    size_t n = 0;
    snprintf(ids[n++], CLI_DEVICE_NAME_LEN, "cpu");
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    if (hpr_ctx_create(&cfg, &ctx) != HPR_OK)
        return n;
    for (unsigned i = 0; i < hpr_device_count(ctx) && n < max; i++) {
        hpr_device_info info;
        if (hpr_device_get_info(ctx, i, &info) == HPR_OK && info.usable)
            snprintf(ids[n++], CLI_DEVICE_NAME_LEN, "%s", info.id);
    }
    hpr_ctx_destroy(ctx);
    return n;
}

static int calibrate_device(const char *id, unsigned threads, const hpr_curve *curves, size_t ncurves,
                            const unsigned *log_n, size_t nlog)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    double speed[MAX_SIZES];
    int rc = 0;
    hpr_config_default(&cfg);
    cfg.devices = id;
    cfg.threads = threads;
    if (hpr_ctx_create(&cfg, &ctx) != HPR_OK)
        return cli_error("device '%s' is not available", id);
    for (size_t c = 0; c < ncurves && !rc; c++) {
        hpr_status st = hpr_calibrate(ctx, id, curves[c], log_n, nlog, speed);
        if (st != HPR_OK) {
            rc = cli_status_error("calibrate", st, ctx);
            break;
        }
        for (size_t i = 0; i < nlog; i++)
            printf("%-8s %-10s %5u %14.0f\n", id, cli_curve_name(curves[c]), log_n[i], speed[i]);
        fflush(stdout);
    }
    hpr_ctx_destroy(ctx);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    const char *curve_s = NULL, *log_n_s = NULL, *threads_s = NULL, *devices_s = NULL;
    cli_opt opts[] = {{"--curve", &curve_s}, {"--log-n", &log_n_s}, {"--threads", &threads_s}, {"--devices", &devices_s}};
    hpr_curve curves[2] = {HPR_CURVE_BN254, HPR_CURVE_BLS12_381};
    unsigned log_n[MAX_SIZES] = {12, 14, 16};
    size_t ncurves = 2, nlog = 3, ndev;
    unsigned long long threads = 0;
    char ids[MAX_DEVICES][CLI_DEVICE_NAME_LEN];
    int rc = 0;
    int parsed = cli_parse_options(argc, argv, "calibrate ", calibrate_help, opts, sizeof opts / sizeof opts[0]);
    if (parsed >= 0)
        return parsed;
    if (curve_s && cli_parse_curve_list(curve_s, curves, 2, &ncurves))
        return cli_usage_error("calibrate ", "--curve '%s': expected bn254, bls12-381 or both, comma-separated", curve_s);
    if (log_n_s && cli_parse_uint_list(log_n_s, 1, 24, log_n, MAX_SIZES, &nlog))
        return cli_usage_error("calibrate ", "--log-n '%s': expected comma-separated integers in 1..24", log_n_s);
    if (threads_s && cli_parse_uint(threads_s, 1, 1024, &threads))
        return cli_usage_error("calibrate ", "--threads '%s' is not an integer in 1..1024", threads_s);
    if (devices_s) {
        if (cli_parse_device_list(devices_s, 0, ids, MAX_DEVICES, &ndev))
            return cli_usage_error("calibrate ", "--devices '%s': expected a comma-separated list of at most %d devices, "
                                   "each cpu or cl:P.D", devices_s, MAX_DEVICES);
    } else {
        ndev = all_devices(ids, MAX_DEVICES);
    }
    printf("%-8s %-10s %5s %14s\n", "device", "curve", "log_n", "points_per_s");
    for (size_t d = 0; d < ndev && !rc; d++)
        rc = calibrate_device(ids[d], (unsigned)threads, curves, ncurves, log_n, nlog);
    return rc;
}
