/*
 * commit_calls.h: the entries of the commit engine (Poseidon2, Merkle trees, the commit)
 * that host/api/ calls.
 * Each *_call function is the body of one public call: host/api/ takes the call lock
 * (ctx_enter / ctx_leave) around it; inside the library they are called directly, never
 * through the hpr_ API (the lock is not recursive). Contracts: those of the hpr_ function
 * that host/api/ defines over each (host/include/hyprove.h); each checks its own arguments.
 */
#ifndef HOST_COMMIT_COMMIT_CALLS_H
#define HOST_COMMIT_COMMIT_CALLS_H

#include "host/commit/merkle.h"

hpr_status merkle_root_copy(const hpr_merkle_tree *tree, uint32_t root[8]);
size_t merkle_rows(const hpr_merkle_tree *tree);
size_t merkle_columns(const hpr_merkle_tree *tree);
unsigned merkle_depth(const hpr_merkle_tree *tree);
hpr_field merkle_field(const hpr_merkle_tree *tree);
hpr_status merkle_open(const hpr_merkle_tree *tree, size_t row, uint32_t *values, uint32_t *path);
hpr_status merkle_verify(hpr_field field, const uint32_t root[8], unsigned depth, size_t row, const uint32_t *values,
                         size_t columns, const uint32_t *path);
void merkle_destroy(hpr_merkle_tree *tree);
unsigned p2_instance_width(hpr_poseidon2 instance);
hpr_status commit_call(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, size_t columns, const void *in,
                       const hpr_commit_opts *opts, const commit_switches *sw, hpr_merkle_tree **tree);
hpr_status permute_call(hpr_ctx *ctx, hpr_poseidon2 instance, uint32_t *states, size_t count);

#endif
