/*
 * cmd_devices.c: `hyprove devices`: the CPU as run-time detection sees it, and every OpenCL
 * device with what the scheduler needs, whether its programs came from the binary cache, and
 * its self-test.
 */
#include "cli.h"
#include "cli_json.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *devices_help =
    "usage: hyprove devices [--prepare all|none|bn254|bls12-381] [--json FILE]\n"
    "\n"
    "Lists the compute devices: the CPU with its model, online cores and the instruction sets\n"
    "that both the processor (CPUID) and the operating system (XCR0) enable, then each OpenCL\n"
    "device (id cl:P.D for device D of platform P) with its type, memory and OpenCL C version.\n"
    "  --prepare C   build (or load from the binary cache) the MSM program of these curves on\n"
    "                each OpenCL device and run its self-test (default: all; none skips it).\n"
    "                The cache lives in $HPR_CACHE_DIR, else $XDG_CACHE_HOME/hyprove, else\n"
    "                ~/.cache/hyprove.\n"
    "  --json FILE   also write the listing as JSON (atomically; - is stdout, the text then\n"
    "                goes to stderr): a record per device (docs/cli.md: \"JSON output\")\n";

static const char *yes_no(int v)
{
    return v ? "yes" : "no";
}

/* The tier in use (HPR_CPU, else the fastest) and why each other tier can or cannot run. */
static void print_tiers(void)
{
    hpr_ctx *ctx = NULL;
    hpr_config cfg;
    const char *why;
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    cfg.threads = 1;
    if (hpr_ctx_create(&cfg, &ctx) == HPR_OK)
        fprintf(cli_table, "  kernel tier in use: %s%s\n", hpr_ctx_cpu_tier(ctx), getenv("HPR_CPU") ? " (forced by HPR_CPU)" : "");
    else
        fprintf(cli_table, "  kernel tier in use: none: %s\n", hpr_ctx_error_detail(NULL)); /* why the context failed */
    hpr_ctx_destroy(ctx);
    for (unsigned t = 0; t < hpr_cpu_tier_count(); t++)
        fprintf(cli_table, "    %-9s %s\n", hpr_cpu_tier_name(t), hpr_cpu_tier_check(hpr_cpu_tier_name(t), &why) == HPR_OK ? "available" : why);
}

static void print_cpu(void)
{
    hpr_cpu_info f = cli_cpu_info();
    fprintf(cli_table, "cpu       %s\n", f.brand[0] ? f.brand : "(unknown model)");
    fprintf(cli_table, "  cores   %u online\n", f.online_cpus);
    fprintf(cli_table, "  avx2 %s, avx512f %s, avx512vl %s, avx512ifma %s, adx %s, bmi2 %s\n", yes_no(f.avx2), yes_no(f.avx512f),
           yes_no(f.avx512vl), yes_no(f.avx512ifma), yes_no(f.adx), yes_no(f.bmi2));
    fprintf(cli_table, "  os state: ymm %s, zmm %s (XCR0)\n", f.os_avx ? "enabled" : "disabled", f.os_avx512 ? "enabled" : "disabled");
    print_tiers();
}

/* The JSON record of the device being listed (NULL: no --json). */
static FILE *json_fp;

static const char *program_source(const hpr_device_report *rep)
{
    return rep->cache_hit ? "cache" : rep->cache_rebuilt ? "rebuilt" : "built";
}

static void print_prepare(hpr_ctx *ctx, const char *id, hpr_curve curve, int first)
{
    hpr_device_report rep = {.struct_size = sizeof rep};
    hpr_status st = hpr_device_prepare(ctx, id, curve, &rep);
    fprintf(cli_table, "  %-9s program %s (%.2f s, %s words)%s; self-test %s\n", cli_curve_name(curve),
           rep.cache_hit ? "from the binary cache" : (rep.cache_rebuilt ? "rebuilt (cache entry was corrupt)" : "built"),
           rep.seconds, rep.words[0] ? rep.words : "-", rep.cache_written ? ", cached" : "",
           st == HPR_OK ? "passed" : "FAILED");
    if (st != HPR_OK)
        fprintf(cli_table, "            %s\n", hpr_ctx_error_detail(ctx));
    if (!json_fp)
        return;
    fprintf(json_fp, "%s{\"curve\": \"%s\", \"program\": \"%s\", \"seconds\": %.3f, \"words\": \"%s\", \"self_test\": %s, \"detail\": ",
            first ? "" : ", ", cli_curve_name(curve), program_source(&rep), rep.seconds, rep.words, st == HPR_OK ? "true" : "false");
    cli_json_string(json_fp, st == HPR_OK ? "" : hpr_ctx_error_detail(ctx));
    fputs("}", json_fp);
}

/* The calibrated throughput at the measured size nearest to 2^16 and 2^20, per curve. */
static void print_calibration(hpr_ctx *ctx, const char *id)
{
    static const hpr_curve curves[2] = {HPR_CURVE_BN254, HPR_CURVE_BLS12_381};
    if (json_fp)
        fputs(", \"calibrated\": [", json_fp);
    for (int c = 0; c < 2; c++) {
        double s16 = hpr_calibrated_speed(ctx, id, curves[c], 16), s20 = hpr_calibrated_speed(ctx, id, curves[c], 20);
        if (s16 > 0)
            fprintf(cli_table, "  calibrated %-9s %.0f points/s near 2^16, %.0f near 2^20\n", cli_curve_name(curves[c]), s16, s20);
        else
            fprintf(cli_table, "  calibrated %-9s no (run 'hyprove calibrate')\n", cli_curve_name(curves[c]));
        if (json_fp && s16 > 0)
            fprintf(json_fp, "%s{\"curve\": \"%s\", \"points_per_s_2e16\": %.0f, \"points_per_s_2e20\": %.0f}",
                    c && hpr_calibrated_speed(ctx, id, curves[0], 16) > 0 ? ", " : "", cli_curve_name(curves[c]), s16, s20);
    }
    if (json_fp)
        fputs("]", json_fp);
}

static void json_device(const hpr_device_info *d)
{
    fputs("{\"op\": \"device\", \"id\": ", json_fp);
    cli_json_string(json_fp, d->id);
    fprintf(json_fp, ", \"type\": \"%s\", \"name\": ", d->kind);
    cli_json_string(json_fp, d->name);
    fputs(", \"vendor\": ", json_fp);
    cli_json_string(json_fp, d->vendor);
    fputs(", \"platform\": ", json_fp);
    cli_json_string(json_fp, d->platform);
    fputs(", \"driver\": ", json_fp);
    cli_json_string(json_fp, d->driver);
    fputs(", \"opencl_c\": ", json_fp);
    cli_json_string(json_fp, d->c_version);
    fprintf(json_fp, ", \"compute_units\": %u, \"clock_mhz\": %u, \"global_mem\": %llu, \"max_alloc\": %llu, "
            "\"local_mem\": %llu, \"int64\": %s, \"usable\": %s, \"status\": ",
            d->compute_units, d->clock_mhz, d->global_mem, d->max_alloc, d->local_mem, d->int64 ? "true" : "false",
            d->usable ? "true" : "false");
    cli_json_string(json_fp, d->status);
    fprintf(json_fp, ", \"resident_bytes\": %llu, \"prepared\": [", d->resident_bytes);
}

static void print_device(hpr_ctx *ctx, const hpr_device_info *d, const hpr_curve *curves, size_t ncurves)
{
    fprintf(cli_table, "%-9s %s (%s)\n", d->id, d->name, d->kind);
    fprintf(cli_table, "  platform %s; vendor %s; driver %s; %s\n", d->platform, d->vendor, d->driver, d->c_version);
    fprintf(cli_table, "  compute units %u at %u MHz; global memory %.1f GiB, max allocation %.1f GiB, local %.0f KiB; "
           "64-bit integers %s\n",
           d->compute_units, d->clock_mhz, (double)d->global_mem / (1 << 30), (double)d->max_alloc / (1 << 30),
           (double)d->local_mem / 1024, yes_no(d->int64));
    if (json_fp)
        json_device(d);
    if (!d->usable) {
        fprintf(cli_table, "  unusable: %s\n", d->status);
        if (json_fp)
            fputs("]}", json_fp);
        return;
    }
    for (size_t i = 0; i < ncurves; i++)
        print_prepare(ctx, d->id, curves[i], i == 0);
    if (json_fp)
        fputs("]", json_fp);
    print_calibration(ctx, d->id);
    if (json_fp)
        fputs("}", json_fp);
}

static void json_cpu(hpr_ctx *ctx)
{
    hpr_cpu_info f = cli_cpu_info();
    const char *why;
    fputs("{\"op\": \"device\", \"id\": \"cpu\", \"type\": \"cpu\", \"name\": ", json_fp);
    cli_json_string(json_fp, f.brand);
    fprintf(json_fp, ", \"cores\": %u, \"avx2\": %s, \"avx512f\": %s, \"avx512vl\": %s, \"avx512ifma\": %s, "
            "\"adx\": %s, \"bmi2\": %s, \"os_ymm\": %s, \"os_zmm\": %s, \"cpu_tier\": \"%s\", \"tiers\": [",
            f.online_cpus, f.avx2 ? "true" : "false", f.avx512f ? "true" : "false", f.avx512vl ? "true" : "false",
            f.avx512ifma ? "true" : "false", f.adx ? "true" : "false", f.bmi2 ? "true" : "false",
            f.os_avx ? "true" : "false", f.os_avx512 ? "true" : "false", hpr_ctx_cpu_tier(ctx));
    for (unsigned t = 0; t < hpr_cpu_tier_count(); t++) {
        int ok = hpr_cpu_tier_check(hpr_cpu_tier_name(t), &why) == HPR_OK;
        fprintf(json_fp, "%s{\"tier\": \"%s\", \"available\": %s, \"why\": ", t ? ", " : "", hpr_cpu_tier_name(t),
                ok ? "true" : "false");
        cli_json_string(json_fp, ok ? "" : why);
        fputs("}", json_fp);
    }
    fputs("]", json_fp);
}

/* --prepare into curves: 0, or the usage error's exit code. */
static int parse_prepare(const char *prepare, hpr_curve *curves, size_t *ncurves)
{
    *ncurves = 0;
    if (!prepare || strcmp(prepare, "all") == 0) {
        curves[(*ncurves)++] = HPR_CURVE_BN254;
        curves[(*ncurves)++] = HPR_CURVE_BLS12_381;
    } else if (strcmp(prepare, "none") != 0) {
        if (cli_parse_curve(prepare, &curves[0]))
            return cli_usage_error("devices ", "--prepare '%s': expected all, none, bn254 or bls12-381", prepare);
        *ncurves = 1;
    }
    return 0;
}

int cmd_devices(int argc, char **argv)
{
    const char *prepare = NULL, *json = NULL;
    cli_opt opts[] = {CLI_OPT("--prepare", &prepare), CLI_OPT("--json", &json)};
    hpr_curve curves[2];
    size_t ncurves = 0;
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *ctx = NULL;
    cli_json j;
    int rc = cli_parse_options(argc, argv, "devices ", devices_help, opts, sizeof opts / sizeof opts[0]);
    if (rc >= 0)
        return rc;
    if ((rc = parse_prepare(prepare, curves, &ncurves)) != 0)
        return rc;
    cli_table_for_output(json);
    print_cpu();
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    if (hpr_ctx_create(&cfg, &ctx) != HPR_OK)
        return cli_error("cannot create a context: %s", hpr_ctx_error_detail(NULL));
    if (json && cli_json_begin(&j, json, "devices", ctx) != 0) {
        hpr_ctx_destroy(ctx);
        return CLI_EXIT_FAILURE;
    }
    json_fp = json ? j.fp : NULL;
    if (json_fp) {
        cli_json_record(&j);
        json_cpu(ctx);
    }
    print_calibration(ctx, "cpu");
    if (json_fp)
        fputs("}", json_fp);
    unsigned count = hpr_device_count(ctx);
    if (count == 0)
        fprintf(cli_table, "opencl    none: %s; running CPU-only\n", hpr_opencl_notice(ctx));
    for (unsigned i = 0; i < count; i++) {
        hpr_device_info info = {.struct_size = sizeof info};
        if (hpr_device_get_info(ctx, i, &info) != HPR_OK)
            continue;
        if (json_fp)
            cli_json_record(&j);
        print_device(ctx, &info, curves, ncurves);
    }
    rc = json && cli_json_end(&j) != 0 ? CLI_EXIT_FAILURE : CLI_EXIT_OK;
    hpr_ctx_destroy(ctx);
    return rc;
}
