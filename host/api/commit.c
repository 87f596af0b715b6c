/*
 * host/api/commit.c: the public entries for the commit, Merkle trees and Poseidon2.
 * Thin: each takes the call lock where it reaches a context, then calls one engine entry.
 */
#include "host/commit/commit_calls.h"
#include "host/core/sized.h"

hpr_status hpr_commit(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, size_t columns, const void *in,
                      const hpr_commit_opts *opts, hpr_merkle_tree **tree)
{
    hpr_commit_opts o;
    ctx_enter(ctx);
    hpr_status st = opts ? SIZED_READ(ctx, hpr_commit_opts, opts, &o) : HPR_OK;
    if (st != HPR_OK && tree)
        *tree = NULL;
    if (st == HPR_OK)
        st = commit_call(ctx, field, log_n, rate, columns, in, opts ? &o : NULL, NULL, tree);
    return ctx_leave(ctx, st);
}

hpr_status hpr_merkle_root(const hpr_merkle_tree *tree, uint32_t root[8])
{
    return merkle_root_copy(tree, root);
}

size_t hpr_merkle_rows(const hpr_merkle_tree *tree)
{
    return merkle_rows(tree);
}

size_t hpr_merkle_columns(const hpr_merkle_tree *tree)
{
    return merkle_columns(tree);
}

unsigned hpr_merkle_depth(const hpr_merkle_tree *tree)
{
    return merkle_depth(tree);
}

hpr_field hpr_merkle_field(const hpr_merkle_tree *tree)
{
    return merkle_field(tree);
}

hpr_status hpr_merkle_open(const hpr_merkle_tree *tree, size_t row, uint32_t *values, uint32_t *path)
{
    return merkle_open(tree, row, values, path);
}

hpr_status hpr_merkle_verify(hpr_field field, const uint32_t root[8], unsigned depth, size_t row, const uint32_t *values,
                             size_t columns, const uint32_t *path)
{
    return merkle_verify(field, root, depth, row, values, columns, path);
}

void hpr_merkle_destroy(hpr_merkle_tree *tree)
{
    merkle_destroy(tree);
}

unsigned hpr_poseidon2_width(hpr_poseidon2 instance)
{
    return p2_instance_width(instance);
}

hpr_status hpr_poseidon2_permute(hpr_ctx *ctx, hpr_poseidon2 instance, uint32_t *states, size_t count)
{
    ctx_enter(ctx);
    return ctx_leave(ctx, permute_call(ctx, instance, states, count));
}
