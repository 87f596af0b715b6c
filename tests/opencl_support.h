/*
 * opencl_support.h: what the OpenCL suites (tests/test_opencl_*.c) share, on top of
 * test_support.h: contexts that reach the first OpenCL device (POCL's CPU device in CI: a
 * test fails when there is no device, it is never skipped), the raw runtime opened with the
 * options a context would read from the environment, the CPU's reference MSM and random NTT
 * inputs.
 *
 * Check forks each test, so every OpenCL context is created inside the test that uses it.
 * A context reads the HPR_* environment knobs once, in hpr_ctx_create: a test sets them
 * before it creates the context they are meant for.
 */
#ifndef TESTS_OPENCL_SUPPORT_H
#define TESTS_OPENCL_SUPPORT_H

#include "test_support.h"

#include "hyprove.h"
#include "runtime/opencl/cl_device.h"

/* A context on devices (NULL: the default) with two CPU threads. */
hpr_ctx *ocl_ctx(const char *devices);

/* The first OpenCL device's id ("cl:P.D", id holds 16 bytes); fails the test if there is none,
 * with the OpenCL notice. */
void ocl_first_device(char *id);

/* A context whose "all" includes the first OpenCL device: one CPU thread, and POCL limited to
 * one thread (POCL_MAX_PTHREAD_COUNT, set before OpenCL loads in this forked test). */
hpr_ctx *ocl_hybrid_ctx(void);

/* The raw OpenCL runtime with the options a context takes from the environment (knobs_read:
 * HPR_OPENCL_LIBRARY, HPR_CL_WORDS, HPR_CL_INJECT_FAULT, HPR_CL_MAX_ALLOC, the cache folder);
 * cl_runtime_close releases it. */
cl_runtime *ocl_runtime_open(void);

/* out = the G1 MSM of (points, scalars) on the CPU alone, in a context of its own. */
void ocl_cpu_msm(hpr_curve curve, const unsigned char *points, const unsigned char *scalars, size_t n,
                 unsigned char *out);
/* The same for group (G1 or G2). */
void ocl_cpu_msm_group(hpr_curve curve, hpr_group group, const unsigned char *points, const unsigned char *scalars,
                       size_t n, unsigned char *out);

/* count random canonical elements of field (top byte masked below every modulus's); free it. */
unsigned char *ocl_ntt_random(hpr_field field, size_t count, test_rng *rng);

/* Makes the device id fail every later MSM and NTT call of ctx, as HPR_CL_INJECT_FAULT does
 * for a context created with it, but after the device has passed its self-test in ctx (the
 * fault then hits work the scheduler gave it, not the self-test that would leave it out).
 * The runtime of ctx must be open (a device was used). */
void ocl_inject_fault_now(hpr_ctx *ctx, const char *id);

/* Bytes of MSM points and scalars sent to the first OpenCL device of ctx so far
 * (hpr_device_info.bytes_sent); *resident (may be NULL) receives the bytes of bases it holds. */
unsigned long long ocl_bytes_sent(hpr_ctx *ctx, unsigned long long *resident);

#endif
