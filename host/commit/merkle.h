/*
 * merkle.h: the Merkle tree behind the public hpr_merkle_tree (host/commit/merkle.c) and what
 * hpr_commit (host/commit/commit.c) builds it with: the storage of the levels, the leaves hashed on
 * the pool, the upper levels built on the pool, and the test hooks of the commitment.
 *
 * Layout: the levels lie one after the other in one array of 2 rows - 1 digests (8 canonical
 * elements each): level 0 (the leaves, rows digests), level 1 (rows / 2), ..., the root last.
 * So the leaves' kernels write straight into level 0, and a level's nodes are contiguous for
 * the compressions of the next. The committed matrix is kept column-major (element (r, c) at
 * [c * rows + r], the order of the kernels' hash_rows) in memory or in an unlinked file.
 */
#ifndef HOST_MERKLE_H
#define HOST_MERKLE_H

#include "host/core/context.h"
#include "kernels_cpu/poseidon2_cpu.h"

#include <stddef.h>
#include <stdint.h>

struct hpr_merkle_tree {
    hpr_field field;
    const p2_params *prm; /* the field's width-16 Poseidon2 */
    size_t rows, columns; /* rows a power of two */
    unsigned depth;       /* log2 rows */
    uint32_t *nodes;      /* the levels, see the top (rt_alloc_large) */
    uint32_t *matrix;     /* the committed matrix, column-major; NULL when streamed (fd) */
    int fd;               /* streamed: an unlinked file holding the matrix in the same layout; else -1 */
};

/* The width-16 instance of field (KoalaBear, BabyBear), or P2_INSTANCES for any other. */
p2_instance_id merkle_instance(hpr_field field);

/* The first of count canonical u32 elements that is >= p, count if none; SIZE_MAX when a
 * scratch array could not be allocated. On ctx's pool (the largest of each piece first, a
 * loop the compiler vectorizes; the scan only in a piece that has a bad element). */
size_t merkle_first_out_of_range(hpr_ctx *ctx, const uint32_t *in, size_t count, uint32_t p);

/* The bytes of the levels of a tree of rows leaves (rows a power of two). */
size_t merkle_nodes_bytes(size_t rows);

/* A tree of rows leaves (a power of two, >= 1) of columns columns for field (KoalaBear or
 * BabyBear): the levels allocated, not computed; matrix NULL, fd -1. NULL without memory. */
hpr_merkle_tree *merkle_tree_new(hpr_field field, size_t rows, size_t columns);

/* Level j (0 = the leaves) of t: rows >> j digests. */
uint32_t *merkle_level(const hpr_merkle_tree *t, unsigned j);

/* The leaf digests of rows [row0, row0 + nrows) of the column-major matrix cols (ncols
 * columns, element (r, c) at cols[c * stride + r], canonical: not checked) into level 0 of t
 * at row0, on ctx's pool with the kernels k; each piece adds nrows * ncols progress units and
 * is skipped once the call is cancelled (the caller checks after). */
void merkle_hash_rows_on_pool(hpr_ctx *ctx, const p2_kernels *k, hpr_merkle_tree *t, const uint32_t *cols,
                              size_t stride, size_t ncols, size_t row0, size_t nrows);

/* Levels 1 .. depth of t from its level 0, each on ctx's pool with the kernels k (a level's
 * compressions in parallel), adding one progress unit per node. HPR_ERR_CANCELLED when the
 * call is cancelled between levels. */
RT_MUST_CHECK hpr_status merkle_build_levels(hpr_ctx *ctx, const p2_kernels *k, hpr_merkle_tree *t);

/* ---- the commitment's switches, for the tests (host/commit/commit.c) ---- */

typedef struct {
    int general_lde;   /* 1: the rate-2, shift-1 commitment takes the general LDE path too */
    int stream;        /* 1: the streamed path whatever the budget */
    size_t block_cols; /* streamed: columns per block (a multiple of 8); 0 = as the budget allows */
} commit_switches;

/* hpr_commit with the switches (NULL: none, as hpr_commit); a public call of its own
 * (ctx_enter / ctx_leave). */
RT_MUST_CHECK hpr_status commit_with(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, size_t columns,
                                     const void *in, const hpr_commit_opts *opts, const commit_switches *sw,
                                     hpr_merkle_tree **tree);

#endif
