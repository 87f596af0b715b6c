/*
 * opencl_support.c: the OpenCL suites' shared environment (opencl_support.h).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "opencl_support.h"

#include "host/context.h"

#include <string.h>

hpr_ctx *ocl_ctx(const char *devices)
{
    return test_ctx(devices, 2);
}

void ocl_first_device(char *id)
{
    hpr_ctx *ctx = ocl_ctx("cpu");
    hpr_device_info info;
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

/* The variable's value into buf (len bytes); "" when unset or too long. */
static void env_string(const char *name, char *buf, size_t len)
{
    const char *v = getenv(name);
    buf[0] = '\0';
    if (v && strlen(v) < len)
        memcpy(buf, v, strlen(v) + 1);
}

void ocl_options_from_env(cl_options *opts)
{
    const char *v;
    int n = -1;
    cl_options_default(opts);
    env_string("HPR_OPENCL_LIBRARY", opts->library, sizeof opts->library);
    if ((v = getenv("HPR_CL_WORDS")) != NULL) {
        if (strcmp(v, "standard") == 0)
            opts->words = CL_WORDS_STANDARD;
        else if (strcmp(v, "int128") == 0)
            opts->words = CL_WORDS_INT128; /* honoured on POCL only (cl_dev_default_words) */
        else if (strcmp(v, "limb32") == 0)
            opts->words = CL_WORDS_LIMB32;
    }
    env_string("HPR_CL_INJECT_FAULT", opts->inject_fault, sizeof opts->inject_fault);
    if ((v = getenv("HPR_CL_MAX_ALLOC")) && v[0])
        opts->max_alloc = strtoull(v, NULL, 10);
    if ((v = getenv("HPR_CACHE_DIR")) && v[0])
        n = snprintf(opts->cache_dir, sizeof opts->cache_dir, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && v[0])
        n = snprintf(opts->cache_dir, sizeof opts->cache_dir, "%s/hyprove", v);
    else if ((v = getenv("HOME")) && v[0])
        n = snprintf(opts->cache_dir, sizeof opts->cache_dir, "%s/.cache/hyprove", v);
    if (n < 0 || (size_t)n >= sizeof opts->cache_dir)
        opts->cache_dir[0] = '\0';
}

cl_runtime *ocl_runtime_open(void)
{
    cl_options opts;
    cl_runtime *rt = NULL;
    ocl_options_from_env(&opts);
    ck_assert_int_eq(cl_runtime_open(&rt, &opts), 0);
    ck_assert_ptr_nonnull(rt);
    return rt;
}

void ocl_cpu_msm(hpr_curve curve, const unsigned char *points, const unsigned char *scalars, size_t n,
                 unsigned char *out)
{
    hpr_ctx *cpu = ocl_ctx("cpu");
    ck_assert_int_eq(hpr_msm(cpu, curve, HPR_G1, points, scalars, n, out), HPR_OK);
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
