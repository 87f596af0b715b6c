/*
 * memory_budget.h: the memory budget of a call (hpr_config.memory_limit, HPR_MAX_MEMORY,
 * --max-memory): estimates of the peak working memory of an MSM, an NTT or LDE and a Groth16
 * proof from their sizes, checked before they allocate (host/memory_budget.c).
 *
 * Callers: hpr_ctx_create (mem_budget_init), msm_keyed (mem_msm, host/msm.c), hpr_ntt and
 * hpr_ntt_lde (mem_ntt_check, host/ntt.c), the proof's entry points (mem_proof_begin and
 * mem_proof_end, host/groth16_prove.c). The context keeps the limit and, while a proof runs,
 * the bytes it holds outside its current phase (ctx->mem).
 */
#ifndef HOST_MEMORY_BUDGET_H
#define HOST_MEMORY_BUDGET_H

#include "groth16.h"
#include "msm_engine.h"
#include "ntt_internal.h"
#include "zkey.h"

#include <stddef.h>

/* ctx->mem from the caller's limit (0: HPR_MAX_MEMORY from ctx->knobs, else the system's at
 * each call). HPR_ERR_INVALID_ARGUMENT (with the detail naming HPR_MAX_MEMORY) when the
 * variable is not a size. */
RT_MUST_CHECK hpr_status mem_budget_init(hpr_ctx *ctx, size_t limit);

/* "512M", "1.5G", "1048576", "64KiB" (K, M, G, T, powers of 1024, an optional "B" or "iB",
 * any case) into *bytes: 0, or -1 for anything else (empty, 0, junk, an overflow). */
int mem_parse_size(const char *s, size_t *bytes);

/* bytes as people read them ("1.2 GiB", "512 MiB", "300 KiB", "17 bytes") into buf. */
void mem_format(size_t bytes, char *buf, size_t len);

/* What rt_alloc_large takes for bytes (runtime/base/rt_mem.h): a block of 1 MiB or more
 * rounded up to 2 MiB (huge pages: a touched block is resident whole), else to 64 bytes. */
size_t mem_round(size_t bytes);

/* The peak working memory of the MSM msm_keyed runs for these arguments (checked by
 * check_msm_args): the CPU job (msm_cpu_job.c), the per-call host memory of the OpenCL
 * devices that run on the CPU (a GPU's memory is its own), the CPU's fallback. */
size_t mem_msm_need(hpr_ctx *ctx, const msm_curve_ops *ops, const cl_points *pts, const void *scalars, size_t n,
                    const hpr_msm_opts *opts);

/* An MSM as msm_dispatch runs it (host/msm.c); the budget's pieces go through it too. */
typedef hpr_status (*mem_msm_fn)(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                 const cl_points *pts, const void *scalars, size_t n, void *out,
                                 const hpr_msm_opts *opts);

/* run over the MSM when its need fits the budget; else in pieces of the points (each run
 * through run, the results added: the same point, the same bytes) when a piece of at least
 * 4096 points fits; else HPR_ERR_OUT_OF_MEMORY naming the need and the limit, out untouched.
 * Arguments checked by check_msm_args. */
RT_MUST_CHECK hpr_status mem_msm(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const msm_curve_ops *ops,
                                 const cl_points *pts, const void *scalars, size_t n, void *out,
                                 const hpr_msm_opts *opts, mem_msm_fn run);

/* The peak working memory of the transform of pl (make_plan's, lde_log_rate set for an LDE):
 * a canonical hpr_ntt's work copy, the twiddle tables, a device's copies. */
size_t mem_ntt_need(hpr_ctx *ctx, const ntt_plan *pl);
/* HPR_OK when mem_ntt_need fits, else HPR_ERR_OUT_OF_MEMORY naming need and limit. */
RT_MUST_CHECK hpr_status mem_ntt_check(hpr_ctx *ctx, const ntt_plan *pl);

/* Any other call (hpr_commit): HPR_OK when need bytes fit ctx's budget now, else
 * HPR_ERR_OUT_OF_MEMORY with the detail "<what> needs about N[ (at least L <how>)]; the memory
 * limit is M (<source>)"; least 0: no smaller way. mem_fits: the same question, no detail. */
RT_MUST_CHECK hpr_status mem_check(hpr_ctx *ctx, const char *what, size_t need, size_t least, const char *how);
int mem_fits(hpr_ctx *ctx, size_t need);

/* The peak working memory of one proof with zk (from_file: the .wtns read from a file; pre:
 * the prover's precomputed sections or NULL) on ctx's device: *full with its work as it runs
 * (the task graph under "all"), *least with the phases in order and the MSMs in pieces;
 * returns what it holds through the proof (the file, the witness, h, the slices). */
size_t mem_proof_need(hpr_ctx *ctx, const zkey_file *zk, const g16_precomputed *pre, int from_file, size_t *full,
                      size_t *least);

/* Before a proof allocates: HPR_OK when it fits (ctx->mem.held set; ctx->mem.in_order when
 * only the phases in order with MSMs in pieces do), else HPR_ERR_OUT_OF_MEMORY naming the
 * need and the limit. mem_proof_end clears what it set and returns st. */
RT_MUST_CHECK hpr_status mem_proof_begin(hpr_ctx *ctx, const zkey_file *zk, const g16_precomputed *pre, int from_file);
RT_MUST_CHECK hpr_status mem_proof_end(hpr_ctx *ctx, hpr_status st);

#endif
