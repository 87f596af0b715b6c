/*
 * opencl_support.c: the OpenCL suites' shared environment (opencl_support.h).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "opencl_support.h"

#include "host/core/context.h"

#include <string.h>

hpr_ctx *ocl_ctx(const char *devices)
{
    return test_ctx(devices, 2);
}

void ocl_first_device(char *id)
{
    hpr_ctx *ctx = ocl_ctx("cpu");
    hpr_device_info info = {.struct_size = sizeof info};
    ck_assert_msg(hpr_device_count(ctx) > 0, "no OpenCL device: %s", hpr_opencl_notice(ctx));
    ck_assert_int_eq(hpr_device_get_info(ctx, 0, &info), HPR_OK);
    ck_assert_uint_lt(strlen(info.id), 16);
    strcpy(id, info.id);
    hpr_ctx_destroy(ctx);
}

hpr_ctx *ocl_hybrid_ctx(void)
{
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 1);
    return test_ctx("all", 1);
}

cl_runtime *ocl_runtime_open(void)
{
    ctx_knobs knobs; /* the options a context takes from the environment (host/core/knobs.c) */
    cl_runtime *rt = NULL;
    knobs_read(&knobs);
    ck_assert_int_eq(cl_runtime_open(&rt, &knobs.cl), 0);
    ck_assert_ptr_nonnull(rt);
    return rt;
}

void ocl_cpu_msm(hpr_curve curve, const unsigned char *points, const unsigned char *scalars, size_t n,
                 unsigned char *out)
{
    ocl_cpu_msm_group(curve, HPR_G1, points, scalars, n, out);
}

void ocl_cpu_msm_group(hpr_curve curve, hpr_group group, const unsigned char *points, const unsigned char *scalars,
                       size_t n, unsigned char *out)
{
    hpr_ctx *cpu = ocl_ctx("cpu");
    ck_assert_int_eq(hpr_msm(cpu, curve, group, points, scalars, n, out), HPR_OK);
    hpr_ctx_destroy(cpu);
}

unsigned char *ocl_ntt_random(hpr_field field, size_t count, test_rng *rng)
{
    size_t es = hpr_field_element_size(field);
    unsigned char *d = malloc(count * es);
    ck_assert_ptr_nonnull(d);
    for (size_t i = 0; i < count * es; i++)
        d[i] = (unsigned char)(test_rng_next(rng) & (i % es == es - 1 ? 0x1f : 0xff));
    return d;
}

void ocl_inject_fault_now(hpr_ctx *ctx, const char *id)
{
    ck_assert_msg(ctx->cl != NULL, "the OpenCL runtime of the context is not open yet");
    ck_assert_uint_lt(strlen(id), sizeof ctx->cl->opts.inject_fault);
    strcpy(ctx->knobs.cl.inject_fault, id);
    strcpy(ctx->cl->opts.inject_fault, id); /* what the devices read (cl_dev_injected_fault) */
}

unsigned long long ocl_bytes_sent(hpr_ctx *ctx, unsigned long long *resident)
{
    hpr_device_info info = {.struct_size = sizeof info};
    ck_assert_int_eq(hpr_device_get_info(ctx, 0, &info), HPR_OK);
    if (resident)
        *resident = info.resident_bytes;
    return info.bytes_sent;
}
