/*
 * memory_budget.h: the memory limit of a call (hpr_config.memory_limit, HPR_MAX_MEMORY,
 * --max-memory) and its admission: each engine estimates its own peak working memory from
 * its sizes (host/msm/msm_memory.h, host/ntt/ntt_memory.h, host/groth16/proof_memory.h) and
 * asks here, before it allocates, whether that fits.
 *
 * The context keeps the limit and, while a proof runs, the bytes it holds outside its current
 * phase (ctx->mem).
 */
#ifndef HOST_MEMORY_BUDGET_H
#define HOST_MEMORY_BUDGET_H

#include "host/core/context.h"

#include <stddef.h>

/* Beyond an estimate's blocks: small allocations, the workers' stacks and the C library's
 * arenas (measured: 50 KiB beside an NTT's blocks, 0.7 MiB beside a proof's, 2^12 to 2^16). */
#define MEM_CALL_SLACK ((size_t)256 << 10)

/* A limit and what set it, as a refusal's detail names it. */
typedef struct {
    size_t bytes;
    const char *source;
} mem_limit;

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

/* Sizes that saturate at SIZE_MAX instead of wrapping (an estimate of an absurd call must
 * still be refused), and the larger of two. */
size_t mem_sat_add(size_t a, size_t b);
size_t mem_sat_mul(size_t a, size_t b);
size_t mem_max(size_t a, size_t b);

/* Whether need fits ctx's budget now; *lim: the limit, for a refusal's detail. The caller's
 * limit bounds need with what a running proof holds; the system's room has that taken already. */
int mem_budget_fits(hpr_ctx *ctx, size_t need, mem_limit *lim);

/* HPR_ERR_OUT_OF_MEMORY: "<what> needs about N[ (at least L <how>)][, beside the H a proof
 * holds]; the memory limit is M (<source>)". least 0: no smaller way. */
RT_MUST_CHECK hpr_status mem_refuse(hpr_ctx *ctx, const char *what, size_t need, size_t least, const char *how,
                                    const mem_limit *lim);

/* Any other call (hpr_commit): HPR_OK when need bytes fit ctx's budget now, else
 * HPR_ERR_OUT_OF_MEMORY with the detail "<what> needs about N[ (at least L <how>)]; the memory
 * limit is M (<source>)"; least 0: no smaller way. mem_fits: the same question, no detail. */
RT_MUST_CHECK hpr_status mem_check(hpr_ctx *ctx, const char *what, size_t need, size_t least, const char *how);
int mem_fits(hpr_ctx *ctx, size_t need);

#endif
