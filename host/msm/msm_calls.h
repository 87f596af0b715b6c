/*
 * msm_calls.h: the entries of the MSM engine (MSMs, bases, points, random inputs, device readiness)
 * that host/api/ calls.
 * Each *_call function is the body of one public call: host/api/ takes the call lock
 * (ctx_enter / ctx_leave) around it; inside the library they are called directly, never
 * through the hpr_ API (the lock is not recursive). Contracts: those of the hpr_ function
 * that host/api/ defines over each (host/include/hyprove.h); each checks its own arguments.
 */
#ifndef HOST_MSM_MSM_CALLS_H
#define HOST_MSM_MSM_CALLS_H

#include "host/msm/msm_engine.h"
#include "host/msm/resident.h"

void bases_destroy(hpr_bases *bases);
size_t bases_count(const hpr_bases *bases);
unsigned bases_precompute_factor(const hpr_bases *bases);
size_t bases_bytes(const hpr_bases *bases);
size_t msm_point_size(hpr_curve curve, hpr_group group);
hpr_status point_to_json(hpr_curve curve, hpr_group group, const void *point, char *buf, size_t buflen);
hpr_status point_from_decimal(hpr_curve curve, hpr_group group, const char *xs, const char *ys, const char *zs,
                              void *point);
hpr_status bases_create_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, size_t n,
                             unsigned precompute, hpr_bases **out);
hpr_status device_prepare_call(hpr_ctx *ctx, const char *device, hpr_curve curve, hpr_device_report *report);
hpr_status msm_bases_call(hpr_ctx *ctx, const hpr_bases *bases, const void *scalars, size_t n, void *out,
                          const hpr_msm_opts *opts);
hpr_status msm_ex_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *points, const void *scalars,
                       size_t n, void *out, const hpr_msm_opts *opts);
hpr_status point_check_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *point);
hpr_status fixed_base_mul_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const void *base, const void *scalars,
                               size_t n, void *out);
/* splitmix64: the next 64 bits of the stream whose state is *x (the seeding of
 * hpr_random_msm_inputs' generator, and the development setup's seeded draws). */
uint64_t msm_splitmix64(uint64_t *x);
hpr_status random_msm_inputs_call(hpr_ctx *ctx, hpr_curve curve, hpr_group group, size_t n, unsigned long long seed,
                                  void *points, void *scalars);

#endif
