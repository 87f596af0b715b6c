/*
 * knobs.c: the environment variables hyprove honours, read once when a context is created
 * (hpr_ctx_create) into ctx->knobs. Nothing else in the library calls getenv: the runtime
 * receives what it needs as options (cl_options, sched_tiling). The CLI reads its own.
 */
#include "context.h"
#include "runtime/opencl/cl_msm.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Copies the variable's value into buf (len bytes); "" when unset. A value too long for buf
 * (no valid one is) becomes "(too long)", which every user of a knob refuses or ignores as it
 * would any other bad value. */
static void env_string(const char *name, char *buf, size_t len)
{
    const char *v = getenv(name);
    snprintf(buf, len, "%s", !v ? "" : strlen(v) < len ? v : "(too long)");
}

static int env_is_one(const char *name)
{
    const char *v = getenv(name);
    return v && strcmp(v, "1") == 0;
}

/* HPR_CACHE_DIR, else $XDG_CACHE_HOME/hyprove, else $HOME/.cache/hyprove; "" when none fits. */
static void env_cache_dir(char *buf, size_t len)
{
    const char *v = getenv("HPR_CACHE_DIR");
    int n = -1;
    if (v && v[0])
        n = snprintf(buf, len, "%s", v);
    else if ((v = getenv("XDG_CACHE_HOME")) && v[0])
        n = snprintf(buf, len, "%s/hyprove", v);
    else if ((v = getenv("HOME")) && v[0])
        n = snprintf(buf, len, "%s/.cache/hyprove", v);
    if (n < 0 || (size_t)n >= len)
        buf[0] = '\0';
}

void knobs_read(ctx_knobs *k)
{
    const char *v;
    memset(k, 0, sizeof *k);
    env_string("HPR_CPU", k->cpu_tier, sizeof k->cpu_tier);
    k->ntt_four_step = env_is_one("HPR_NTT_FOUR_STEP");
    env_string("HPR_SCHED_INJECT_FAULT", k->sched_fault, sizeof k->sched_fault);
    env_string("HPR_SCHED_TILES", k->sched_tiles, sizeof k->sched_tiles);
    k->sched_every_device = env_is_one("HPR_SCHED_EVERY_DEVICE");
    k->sched_trace = getenv("HPR_SCHED_TRACE") != NULL;
    cl_options_default(&k->cl);
    env_string("HPR_OPENCL_LIBRARY", k->cl.library, sizeof k->cl.library);
    k->cl.words = cl_words_parse(getenv("HPR_CL_WORDS"));
    k->cl.msm_kernel = cl_msm_kernel_parse(getenv("HPR_CL_MSM"));
    if ((v = getenv("HPR_CL_MSM_ITEMS")) && v[0])
        k->cl.msm_items = (unsigned)strtoul(v, NULL, 10);
    env_string("HPR_CL_INJECT_FAULT", k->cl.inject_fault, sizeof k->cl.inject_fault);
    if ((v = getenv("HPR_CL_MAX_ALLOC")) && v[0])
        k->cl.max_alloc = strtoull(v, NULL, 10);
    env_cache_dir(k->cl.cache_dir, sizeof k->cl.cache_dir);
}
