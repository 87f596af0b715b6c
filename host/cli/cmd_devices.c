/*
 * cmd_devices.c: `hyprove devices`: the CPU as run-time detection sees it, and the devices.
 */
#include "cli.h"

#include "../../runtime/cpu_features.h"
#include "../../runtime/rt_pool.h"

#include <stdio.h>

static const char *devices_help =
    "usage: hyprove devices\n"
    "\n"
    "Lists the compute devices: the CPU with its model, online cores and the instruction sets\n"
    "that both the processor (CPUID) and the operating system (XCR0) enable, then the OpenCL\n"
    "devices (ids cl:P.D) once the OpenCL backend is built.\n";

static const char *yes_no(int v)
{
    return v ? "yes" : "no";
}

int cmd_devices(int argc, char **argv)
{
    rt_cpu_features f;
    int parsed = cli_parse_options(argc, argv, "devices ", devices_help, NULL, 0);
    if (parsed >= 0)
        return parsed;
    rt_cpu_features_detect(&f);
    printf("cpu       %s\n", f.brand[0] ? f.brand : "(unknown model)");
    printf("  cores   %u online\n", rt_online_cpus());
    printf("  avx2 %s, avx512f %s, avx512vl %s, avx512ifma %s, adx %s, bmi2 %s\n", yes_no(f.avx2), yes_no(f.avx512f),
           yes_no(f.avx512vl), yes_no(f.avx512ifma), yes_no(f.adx), yes_no(f.bmi2));
    printf("  os state: ymm %s, zmm %s (XCR0)\n", f.os_avx ? "enabled" : "disabled", f.os_avx512 ? "enabled" : "disabled");
    printf("  kernels  portable C (the AVX-512 IFMA and ADX tiers are not built yet)\n");
    printf("opencl    not built into this version yet\n");
    return CLI_EXIT_OK;
}
