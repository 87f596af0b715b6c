/*
 * cmd_devices.c: `hyprove devices`: the CPU as run-time detection sees it, and every OpenCL
 * device with what the scheduler needs, whether its programs came from the binary cache, and
 * its self-test.
 */
#include "cli.h"


#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *devices_help =
    "usage: hyprove devices [--prepare all|none|bn254|bls12-381]\n"
    "\n"
    "Lists the compute devices: the CPU with its model, online cores and the instruction sets\n"
    "that both the processor (CPUID) and the operating system (XCR0) enable, then each OpenCL\n"
    "device (id cl:P.D for device D of platform P) with its type, memory and OpenCL C version.\n"
    "  --prepare C   build (or load from the binary cache) the MSM program of these curves on\n"
    "                each OpenCL device and run its self-test (default: all; none skips it).\n"
    "                The cache lives in $HPR_CACHE_DIR, else $XDG_CACHE_HOME/hyprove, else\n"
    "                ~/.cache/hyprove.\n";

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
        printf("  kernel tier in use: %s%s\n", hpr_ctx_cpu_tier(ctx), getenv("HPR_CPU") ? " (forced by HPR_CPU)" : "");
    else
        printf("  kernel tier in use: none: HPR_CPU='%s' cannot run here\n", getenv("HPR_CPU") ? getenv("HPR_CPU") : "");
    hpr_ctx_destroy(ctx);
    for (unsigned t = 0; t < hpr_cpu_tier_count(); t++)
        printf("    %-9s %s\n", hpr_cpu_tier_name(t), hpr_cpu_tier_check(hpr_cpu_tier_name(t), &why) == HPR_OK ? "available" : why);
}

static void print_cpu(void)
{
    hpr_cpu_info f;
    hpr_cpu_info_get(&f);
    printf("cpu       %s\n", f.brand[0] ? f.brand : "(unknown model)");
    printf("  cores   %u online\n", f.online_cpus);
    printf("  avx2 %s, avx512f %s, avx512vl %s, avx512ifma %s, adx %s, bmi2 %s\n", yes_no(f.avx2), yes_no(f.avx512f),
           yes_no(f.avx512vl), yes_no(f.avx512ifma), yes_no(f.adx), yes_no(f.bmi2));
    printf("  os state: ymm %s, zmm %s (XCR0)\n", f.os_avx ? "enabled" : "disabled", f.os_avx512 ? "enabled" : "disabled");
    print_tiers();
}

static void print_prepare(hpr_ctx *ctx, const char *id, hpr_curve curve)
{
    hpr_device_report rep;
    hpr_status st = hpr_device_prepare(ctx, id, curve, &rep);
    printf("  %-9s program %s (%.2f s, %s words)%s; self-test %s\n", cli_curve_name(curve),
           rep.cache_hit ? "from the binary cache" : (rep.cache_rebuilt ? "rebuilt (cache entry was corrupt)" : "built"),
           rep.seconds, rep.words[0] ? rep.words : "-", rep.cache_written ? ", cached" : "",
           st == HPR_OK ? "passed" : "FAILED");
    if (st != HPR_OK)
        printf("            %s\n", hpr_ctx_error_detail(ctx));
}

/* The calibrated throughput at the measured size nearest to 2^16 and 2^20, per curve. */
static void print_calibration(hpr_ctx *ctx, const char *id)
{
    static const hpr_curve curves[2] = {HPR_CURVE_BN254, HPR_CURVE_BLS12_381};
    for (int c = 0; c < 2; c++) {
        double s16 = hpr_calibrated_speed(ctx, id, curves[c], 16), s20 = hpr_calibrated_speed(ctx, id, curves[c], 20);
        if (s16 > 0)
            printf("  calibrated %-9s %.0f points/s near 2^16, %.0f near 2^20\n", cli_curve_name(curves[c]), s16, s20);
        else
            printf("  calibrated %-9s no (run 'hyprove calibrate')\n", cli_curve_name(curves[c]));
    }
}

static void print_device(hpr_ctx *ctx, const hpr_device_info *d, const hpr_curve *curves, size_t ncurves)
{
    printf("%-9s %s (%s)\n", d->id, d->name, d->kind);
    printf("  platform %s; vendor %s; driver %s; %s\n", d->platform, d->vendor, d->driver, d->c_version);
    printf("  compute units %u at %u MHz; global memory %.1f GiB, max allocation %.1f GiB, local %.0f KiB; "
           "64-bit integers %s\n",
           d->compute_units, d->clock_mhz, (double)d->global_mem / (1 << 30), (double)d->max_alloc / (1 << 30),
           (double)d->local_mem / 1024, yes_no(d->int64));
    if (!d->usable) {
        printf("  unusable: %s\n", d->status);
        return;
    }
    for (size_t i = 0; i < ncurves; i++)
        print_prepare(ctx, d->id, curves[i]);
    print_calibration(ctx, d->id);
}

int cmd_devices(int argc, char **argv)
{
    const char *prepare = "all";
    cli_opt opts[] = {{"--prepare", &prepare}};
    hpr_curve curves[2];
    size_t ncurves = 0;
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    int parsed = cli_parse_options(argc, argv, "devices ", devices_help, opts, 1);
    if (parsed >= 0)
        return parsed;
    if (strcmp(prepare, "all") == 0) {
        curves[ncurves++] = HPR_CURVE_BN254;
        curves[ncurves++] = HPR_CURVE_BLS12_381;
    } else if (strcmp(prepare, "none") != 0) {
        if (cli_parse_curve(prepare, &curves[0]))
            return cli_usage_error("devices ", "--prepare '%s': expected all, none, bn254 or bls12-381", prepare);
        ncurves = 1;
    }
    print_cpu();
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    if (hpr_ctx_create(&cfg, &ctx) != HPR_OK)
        return cli_error("cannot create a context");
    print_calibration(ctx, "cpu");
    unsigned count = hpr_device_count(ctx);
    if (count == 0)
        printf("opencl    none: %s; running CPU-only\n", hpr_opencl_notice(ctx));
    for (unsigned i = 0; i < count; i++) {
        hpr_device_info info;
        if (hpr_device_get_info(ctx, i, &info) == HPR_OK)
            print_device(ctx, &info, curves, ncurves);
    }
    hpr_ctx_destroy(ctx);
    return CLI_EXIT_OK;
}
