/*
 * proof_memory.h: what a Groth16 proof needs of the memory budget (host/core/memory_budget.h),
 * host/groth16/proof_memory.c.
 */
#ifndef HOST_GROTH16_PROOF_MEMORY_H
#define HOST_GROTH16_PROOF_MEMORY_H

#include "host/groth16/groth16.h"
#include "host/groth16/zkey.h"

#include <stddef.h>

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
