/*
 * fuzz_support.h: what the libFuzzer targets of tests/fuzz share (header only, each target
 * is one translation unit): the one-thread CPU context, the input splitters and the oracle
 * check.
 *
 * OpenCL is kept out of every target (HPR_OPENCL_LIBRARY names no library, so no device is
 * found and "all" is the CPU): the targets are about the parsers and the CPU paths behind
 * them, and an OpenCL program build takes seconds a run.
 */
#ifndef TESTS_FUZZ_FUZZ_SUPPORT_H
#define TESTS_FUZZ_FUZZ_SUPPORT_H

#include "hyprove.h"

#include <sanitizer/common_interface_defs.h> /* __sanitizer_report_error_summary */
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* An oracle that does not hold: a bug, reported to libFuzzer as a crash. The message goes
 * where the sanitizers report, which -close_fd_mask=2 leaves open (stderr is closed then). */
static inline void fuzz_check_failed(const char *cond, const char *file, int line)
{
    char msg[512];
    snprintf(msg, sizeof msg, "fuzz oracle failed: %s (%s:%d)", cond, file, line);
    __sanitizer_report_error_summary(msg);
    abort();
}
#define FUZZ_CHECK(cond) ((cond) ? (void)0 : fuzz_check_failed(#cond, __FILE__, __LINE__))

/* Before any context is made: no OpenCL library, so no device. */
static inline void fuzz_no_opencl(void)
{
    setenv("HPR_OPENCL_LIBRARY", "/nonexistent/hyprove-fuzz-no-opencl.so", 1);
}

/* The targets' context: one CPU thread, the CPU device, made once for the process. */
static inline hpr_ctx *fuzz_ctx(void)
{
    static hpr_ctx *ctx;
    if (!ctx) {
        hpr_config cfg;
        fuzz_no_opencl();
        hpr_config_default(&cfg);
        cfg.threads = 1;
        cfg.devices = "cpu";
        if (hpr_ctx_create(&cfg, &ctx) != HPR_OK) {
            fprintf(stderr, "fuzz: cannot create the CPU context\n");
            abort();
        }
    }
    return ctx;
}

/* A cursor over the input. */
typedef struct {
    const uint8_t *p;
    size_t left;
} fuzz_input;

/* The next byte (0 past the end). */
static inline unsigned fuzz_byte(fuzz_input *in)
{
    if (!in->left)
        return 0;
    in->left--;
    return *in->p++;
}

/* The next 4 bytes, little-endian (missing bytes are 0). */
static inline uint32_t fuzz_u32(fuzz_input *in)
{
    uint32_t v = 0;
    for (int i = 0; i < 4; i++)
        v |= (uint32_t)fuzz_byte(in) << (8 * i);
    return v;
}

/* The bytes up to the next sep (or the end) as a malloc'd NUL-terminated string (sep is
 * consumed); NULL when out of memory. */
static inline char *fuzz_field(fuzz_input *in, int sep)
{
    const uint8_t *end = in->left ? memchr(in->p, sep, in->left) : NULL;
    size_t n = end ? (size_t)(end - in->p) : in->left;
    char *s = malloc(n + 1);
    if (!s)
        return NULL;
    memcpy(s, in->p, n);
    s[n] = '\0';
    in->p += n;
    in->left -= n;
    if (end) {
        in->p++;
        in->left--;
    }
    return s;
}

#endif
