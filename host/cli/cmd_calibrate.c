/*
 * cmd_calibrate.c: `hyprove calibrate`: measures each device's MSM (and, with --field, NTT)
 * throughput and stores the profile that the scheduler starts from.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_bench.h"
#include "cli_json.h"
#include "cli_progress.h"

#include <stdio.h>
#include <string.h>

#define MAX_SIZES 8
#define MAX_DEVICES 8

static const char *calibrate_help =
    "usage: hyprove calibrate [--curve C[,C]] [--field F[,F]] [--log-n N[,N...]] [--threads T]\n"
    "                         [--devices D[,D...]] [--json FILE] [--progress]\n"
    "\n"
    "Measures the MSM throughput (points/s, transfers included) of each device alone, per\n"
    "curve and size, and stores it in the calibration profile (profile.jsonl in $HPR_CACHE_DIR,\n"
    "else $XDG_CACHE_HOME/hyprove, else ~/.cache/hyprove), keyed by the device's identity and\n"
    "driver. The hybrid scheduler (device all) starts from these figures instead of probing.\n"
    "--field F (bn254-fr, bls12-381-fr, goldilocks, babybear, koalabear): the NTT's throughput\n"
    "(elements/s of forward NTTs of 2^N, batches of at least 2^16 elements) instead, which the\n"
    "NTT's split across devices starts from; with --curve too, both.\n"
    "Defaults: both curves, sizes 2^12,2^14,2^16, the CPU with all cores and every usable\n"
    "OpenCL device. The CPU's figures are kept per thread count: calibrate with the --threads\n"
    "you will run with. List options may also be repeated (--log-n 12 --log-n 16).\n"
    "  --threads T   CPU threads (default: all cores)\n"
    "  --devices D,.. cpu and OpenCL devices cl:P.D (default: cpu and every usable device)\n"
    "  --json FILE   also write the figures as JSON (atomically; - is stdout, the table then\n"
    "                goes to stderr): op calibrate, kind msm|ntt, curve or field, log_n,\n"
    "                device, threads, items_per_s (docs/cli.md: \"JSON output\")\n"
    "  --progress    progress lines on stderr even when it is not a terminal\n";

/* Every OpenCL device id of a CPU-only context, after "cpu". */
static size_t all_devices(char ids[][CLI_DEVICE_NAME_LEN], size_t max)
{
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *ctx = NULL;
    size_t n = 0;
    snprintf(ids[n++], CLI_DEVICE_NAME_LEN, "cpu");
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    if (hpr_ctx_create(&cfg, &ctx) != HPR_OK)
        return n;
    for (unsigned i = 0; i < hpr_device_count(ctx) && n < max; i++) {
        hpr_device_info info = {.struct_size = sizeof info};
        if (hpr_device_get_info(ctx, i, &info) == HPR_OK && info.usable)
            snprintf(ids[n++], CLI_DEVICE_NAME_LEN, "%s", info.id);
    }
    hpr_ctx_destroy(ctx);
    return n;
}

/* What to measure: MSM curves and NTT fields, at the sizes log_n. */
typedef struct {
    const hpr_curve *curves;
    size_t ncurves;
    const hpr_field *fields;
    size_t nfields;
    const unsigned *log_n;
    size_t nlog;
} calibration_plan;

/* The --json file's records (NULL: no --json). */
static cli_json *json;

/* kind: "msm" (what names a curve) or "ntt" (a field). */
static void print_rows(hpr_ctx *ctx, const char *id, const char *kind, const char *what, const calibration_plan *cp,
                       const double *speed)
{
    unsigned threads = hpr_ctx_threads(ctx);
    if (hpr_ctx_notice(ctx)[0])
        fprintf(stderr, "hyprove: warning: %s\n", hpr_ctx_notice(ctx));
    for (size_t i = 0; i < cp->nlog; i++) {
        fprintf(cli_table, "%-8s %-13s %5u %14.0f\n", id, what, cp->log_n[i], speed[i]);
        if (json)
            fprintf(cli_json_record(json),
                    "{\"op\": \"calibrate\", \"kind\": \"%s\", \"%s\": \"%s\", \"log_n\": %u, \"device\": \"%s\", "
                    "\"threads\": %u, \"items_per_s\": %.1f}",
                    kind, strcmp(kind, "msm") == 0 ? "curve" : "field", what, cp->log_n[i], id, threads, speed[i]);
    }
    fflush(cli_table);
}

static int calibrate_device(const char *id, unsigned threads, const calibration_plan *cp)
{
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *ctx = NULL;
    double speed[MAX_SIZES];
    hpr_status st = HPR_OK;
    hpr_config_default(&cfg);
    cfg.devices = id;
    cfg.threads = threads;
    cli_progress_attach(&cfg, "calibrate");
    if ((st = hpr_ctx_create(&cfg, &ctx)) != HPR_OK) /* the detail names the device or environment knob */
        return cli_error("device '%s' is not available: %s", id, hpr_ctx_error_detail(NULL));
    for (size_t c = 0; c < cp->ncurves && st == HPR_OK; c++)
        if ((st = hpr_calibrate(ctx, id, cp->curves[c], cp->log_n, cp->nlog, speed)) == HPR_OK)
            print_rows(ctx, id, "msm", cli_curve_name(cp->curves[c]), cp, speed);
    for (size_t f = 0; f < cp->nfields && st == HPR_OK; f++)
        if ((st = hpr_calibrate_ntt(ctx, id, cp->fields[f], cp->log_n, cp->nlog, speed)) == HPR_OK)
            print_rows(ctx, id, "ntt", cli_field_name(cp->fields[f]), cp, speed);
    int rc = st == HPR_OK ? 0 : cli_status_error("calibrate", st, ctx);
    hpr_ctx_destroy(ctx);
    return rc;
}

int cmd_calibrate(int argc, char **argv)
{
    const char *curve_s = NULL, *field_s = NULL, *log_n_s = NULL, *threads_s = NULL, *devices_s = NULL, *json_s = NULL;
    cli_opt opts[] = {CLI_OPT_LIST("--curve", &curve_s), CLI_OPT_LIST("--field", &field_s),
                      CLI_OPT_LIST("--log-n", &log_n_s), CLI_OPT("--threads", &threads_s),
                      CLI_OPT_LIST("--devices", &devices_s), CLI_OPT("--json", &json_s),
                      CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    cli_json j;
    hpr_curve curves[2] = {HPR_CURVE_BN254, HPR_CURVE_BLS12_381};
    hpr_field fields[5];
    unsigned log_n[MAX_SIZES] = {12, 14, 16};
    size_t ndev;
    unsigned threads = 0;
    char ids[MAX_DEVICES][CLI_DEVICE_NAME_LEN];
    calibration_plan cp = {curves, 2, fields, 0, log_n, 3};
    int rc = 0;
    int parsed = cli_parse_options(argc, argv, "calibrate ", calibrate_help, opts, sizeof opts / sizeof opts[0]);
    if (parsed >= 0)
        return parsed;
    if (curve_s && cli_parse_curve_list(curve_s, curves, 2, &cp.ncurves))
        return cli_usage_error("calibrate ", "--curve '%s': expected bn254, bls12-381 or both, comma-separated", curve_s);
    if (field_s && cli_parse_field_list(field_s, fields, 5, &cp.nfields))
        return cli_usage_error("calibrate ", "--field '%s': expected bn254-fr, bls12-381-fr, goldilocks, babybear or "
                               "koalabear, comma-separated", field_s);
    if (field_s && !curve_s)
        cp.ncurves = 0; /* --field alone: the NTT only */
    if (log_n_s && cli_parse_uint_list(log_n_s, 1, 24, log_n, MAX_SIZES, &cp.nlog))
        return cli_usage_error("calibrate ", "--log-n '%s': expected comma-separated integers in 1..24", log_n_s);
    if ((rc = cli_parse_threads("calibrate ", threads_s, &threads)) != 0)
        return rc;
    if (devices_s) {
        if (cli_parse_device_list(devices_s, 0, ids, MAX_DEVICES, &ndev))
            return cli_usage_error("calibrate ", "--devices '%s': expected a comma-separated list of at most %d devices, "
                                   "each cpu or cl:P.D", devices_s, MAX_DEVICES);
    } else {
        ndev = all_devices(ids, MAX_DEVICES);
    }
    cli_table_for_output(json_s);
    if (json_s && cli_json_begin(&j, json_s, "calibrate", NULL) != 0)
        return CLI_EXIT_FAILURE;
    json = json_s ? &j : NULL;
    fprintf(cli_table, "%-8s %-13s %5s %14s\n", "device", "curve/field", "log_n", "items_per_s");
    for (size_t d = 0; d < ndev && !rc; d++)
        rc = calibrate_device(ids[d], (unsigned)threads, &cp);
    if (json && rc)
        cli_json_abort(json);
    else if (json && cli_json_end(json) != 0)
        rc = CLI_EXIT_FAILURE;
    return rc;
}
