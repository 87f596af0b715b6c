/*
 * merkle.c: the Merkle tree of a committed matrix (hpr_merkle_tree) with Plonky3's layout
 * (MerkleTreeMmcs over PaddingFreeSponge<perm, 16, 8, 8> and TruncatedPermutation<perm, 2,
 * 8, 16>): the levels, the openings and the verifier.
 *
 * What: leaf i = the sponge of row i of the matrix; node i of level j + 1 = the truncated
 * permutation of nodes 2i and 2i + 1 of level j; the root is the last level's single node.
 * An opening is row i's values and the sibling of each level from the leaves up.
 * Method: the whole tree is kept, its levels one after the other in one array (merkle.h), so
 * that the leaves' kernels (kernels_cpu/poseidon2_cpu.h, the context's CPU tier, or an
 * OpenCL device through host/commit/commit.c) write straight into level 0 and every level is the
 * contiguous input of the next one's compressions. A level's compressions run in parallel on
 * the pool in pieces of whole SIMD groups; the levels run in order (each needs the last).
 * Cost: rows leaves (the sponge: ceil(columns / 8) permutations each) and rows - 1
 * compressions; 64 bytes per row of memory for the levels, kept for the openings, which then
 * cost depth copies of 8 elements (and the row's values: from memory, or one read per column
 * from a streamed commitment's file).
 * Why keep the tree: an opening costs nothing then, and the levels above the leaves are half
 * of the leaves' digests (the matrix itself is usually far larger).
 * The verifier climbs with the portable kernels: one path is a handful of permutations.
 */
#define _XOPEN_SOURCE 700 /* pread */
#include "host/commit/merkle.h"
#include "host/core/pool_scan.h"
#include "host/commit/commit_calls.h"
#include "runtime/base/rt_mem.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define LEAF_PIECE_MIN 64      /* rows per pool task at least (a few SIMD groups) */
#define LEAF_TASKS_PER_THREAD 8 /* enough pieces for the pool to even out */
#define NODE_PIECE_MIN 256     /* compressions per pool task at least */

/* ---- canonical elements checked on the pool (hpr_commit, hpr_poseidon2_permute) ---- */

#define CHECK_PIECE 65536 /* elements per pool task */

typedef struct {
    const uint32_t *in;
    uint32_t p;
} range_check;

/* Elements [begin, end): their largest (a loop the compiler vectorizes), and only when it is
 * >= p the scan for the first. */
static size_t first_not_below_p(const void *arg, size_t begin, size_t end)
{
    const range_check *rc = arg;
    uint32_t largest = 0;
    for (size_t i = begin; i < end; i++)
        largest = rc->in[i] > largest ? rc->in[i] : largest;
    for (size_t i = begin; largest >= rc->p && i < end; i++)
        if (rc->in[i] >= rc->p)
            return i;
    return end;
}

size_t merkle_first_out_of_range(hpr_ctx *ctx, const uint32_t *in, size_t count, uint32_t p)
{
    const range_check rc = {in, p};
    return pool_first_rejected(ctx, count, CHECK_PIECE, first_not_below_p, &rc);
}

p2_instance_id merkle_instance(hpr_field field)
{
    if (field == HPR_FIELD_KOALABEAR)
        return P2_KOALABEAR_16;
    if (field == HPR_FIELD_BABYBEAR)
        return P2_BABYBEAR_16;
    return P2_INSTANCES;
}

size_t merkle_nodes_bytes(size_t rows)
{
    return (2 * rows - 1) * P2_DIGEST * sizeof(uint32_t);
}

hpr_merkle_tree *merkle_tree_new(hpr_field field, size_t rows, size_t columns)
{
    p2_instance_id id = merkle_instance(field);
    hpr_merkle_tree *t = calloc(1, sizeof *t);
    if (!t || id == P2_INSTANCES)
        goto fail;
    t->field = field;
    t->prm = p2_params_get(id);
    t->rows = rows;
    t->columns = columns;
    while (((size_t)1 << t->depth) < rows)
        t->depth++;
    t->fd = -1;
    t->nodes = rt_alloc_large(merkle_nodes_bytes(rows));
    if (!t->nodes)
        goto fail;
    return t;
fail:
    free(t);
    return NULL;
}

uint32_t *merkle_level(const hpr_merkle_tree *t, unsigned j)
{
    /* levels 0 .. j-1 hold rows + rows/2 + ... + rows/2^(j-1) = 2 rows - 2 (rows >> j) digests */
    return t->nodes + (2 * t->rows - 2 * (t->rows >> j)) * P2_DIGEST;
}

/* Pieces of items for the pool: at least min_piece items each (a multiple of 16, the widest
 * SIMD group), about LEAF_TASKS_PER_THREAD per thread; returns the count, *per the size. */
static size_t pool_pieces(const hpr_ctx *ctx, size_t items, size_t min_piece, size_t *per)
{
    size_t want = (size_t)ctx->threads * LEAF_TASKS_PER_THREAD;
    size_t piece = (items + want - 1) / want;
    piece = piece < min_piece ? min_piece : (piece + 15) / 16 * 16;
    *per = piece;
    return (items + piece - 1) / piece;
}

typedef struct {
    hpr_ctx *ctx;
    const p2_kernels *k;
    const p2_params *prm;
    const uint32_t *cols;
    size_t stride, ncols, row0, nrows, per;
    uint32_t *out; /* the digest of row0 */
} leaf_job;

static void leaf_task(void *arg, size_t task, unsigned worker)
{
    const leaf_job *lj = arg;
    size_t b = task * lj->per, e = b + lj->per < lj->nrows ? b + lj->per : lj->nrows;
    (void)worker;
    if (progress_cancelled(lj->ctx))
        return;
    lj->k->hash_rows(lj->prm, lj->cols, lj->stride, lj->ncols, lj->row0 + b, e - b, lj->out + b * P2_DIGEST);
    progress_add(lj->ctx, (uint64_t)(e - b) * lj->ncols);
}

void merkle_hash_rows_on_pool(hpr_ctx *ctx, const p2_kernels *k, hpr_merkle_tree *t, const uint32_t *cols,
                              size_t stride, size_t ncols, size_t row0, size_t nrows)
{
    leaf_job lj = {ctx, k, t->prm, cols, stride, ncols, row0, nrows, 0, t->nodes + row0 * P2_DIGEST};
    size_t tasks = pool_pieces(ctx, nrows, LEAF_PIECE_MIN, &lj.per);
    rt_pool_run(ctx->pool, tasks, leaf_task, &lj);
}

typedef struct {
    hpr_ctx *ctx;
    const p2_kernels *k;
    const p2_params *prm;
    const uint32_t *in;
    uint32_t *out;
    size_t count, per;
} node_job;

static void node_task(void *arg, size_t task, unsigned worker)
{
    const node_job *nj = arg;
    size_t b = task * nj->per, e = b + nj->per < nj->count ? b + nj->per : nj->count;
    (void)worker;
    nj->k->compress(nj->prm, nj->in + 2 * b * P2_DIGEST, nj->out + b * P2_DIGEST, e - b);
    progress_add(nj->ctx, e - b);
}

hpr_status merkle_build_levels(hpr_ctx *ctx, const p2_kernels *k, hpr_merkle_tree *t)
{
    hpr_status st = HPR_OK;
    for (unsigned j = 1; j <= t->depth && (st = progress_check(ctx)) == HPR_OK; j++) {
        node_job nj = {ctx, k, t->prm, merkle_level(t, j - 1), merkle_level(t, j), t->rows >> j, 0};
        size_t tasks = pool_pieces(ctx, nj.count, NODE_PIECE_MIN, &nj.per);
        rt_pool_run(ctx->pool, tasks, node_task, &nj);
    }
    return st;
}

/* ---- the public calls on a tree (no context: a tree stands alone once made) ---- */

hpr_status merkle_root_copy(const hpr_merkle_tree *tree, uint32_t root[8])
{
    if (!tree || !root)
        return HPR_ERR_INVALID_ARGUMENT;
    memcpy(root, merkle_level(tree, tree->depth), P2_DIGEST * sizeof(uint32_t));
    return HPR_OK;
}

size_t merkle_rows(const hpr_merkle_tree *tree)
{
    return tree ? tree->rows : 0;
}

size_t merkle_columns(const hpr_merkle_tree *tree)
{
    return tree ? tree->columns : 0;
}

unsigned merkle_depth(const hpr_merkle_tree *tree)
{
    return tree ? tree->depth : 0;
}

hpr_field merkle_field(const hpr_merkle_tree *tree)
{
    return tree ? tree->field : (hpr_field)0;
}

/* Row row of a streamed tree's matrix from its file: one read per column (the file is
 * column-major, as the matrix in memory). -1 when a read fails or comes short. */
static int read_streamed_row(const hpr_merkle_tree *t, size_t row, uint32_t *values)
{
    for (size_t c = 0; c < t->columns; c++) {
        off_t at = (off_t)((c * t->rows + row) * sizeof(uint32_t));
        ssize_t got;
        do
            got = pread(t->fd, &values[c], sizeof values[c], at);
        while (got < 0 && errno == EINTR);
        if (got != (ssize_t)sizeof values[c])
            return -1;
    }
    return 0;
}

hpr_status merkle_open(const hpr_merkle_tree *tree, size_t row, uint32_t *values, uint32_t *path)
{
    if (!tree || row >= tree->rows)
        return HPR_ERR_INVALID_ARGUMENT;
    if (values && tree->matrix) {
        for (size_t c = 0; c < tree->columns; c++)
            values[c] = tree->matrix[c * tree->rows + row];
    } else if (values && read_streamed_row(tree, row, values) != 0) {
        return HPR_ERR_IO;
    }
    for (unsigned j = 0; path && j < tree->depth; j++)
        memcpy(path + j * P2_DIGEST, merkle_level(tree, j) + ((row >> j) ^ 1) * P2_DIGEST,
               P2_DIGEST * sizeof(uint32_t));
    return HPR_OK;
}

/* Whether the count elements at v are all below p. */
static int all_canonical(const uint32_t *v, size_t count, uint32_t p)
{
    for (size_t i = 0; i < count; i++)
        if (v[i] >= p)
            return 0;
    return 1;
}

hpr_status merkle_verify(hpr_field field, const uint32_t root[8], unsigned depth, size_t row,
                             const uint32_t *values, size_t columns, const uint32_t *path)
{
    p2_instance_id id = merkle_instance(field);
    uint32_t pair[2 * P2_DIGEST], node[P2_DIGEST];
    if (id == P2_INSTANCES)
        return HPR_ERR_UNSUPPORTED_FIELD;
    if (!root || (!values && columns) || (!path && depth) || depth > 63 || (row >> depth) != 0)
        return HPR_ERR_INVALID_ARGUMENT;
    const p2_params *prm = p2_params_get(id);
    const p2_kernels *k = p2_kernels_for(RT_CPU_PORTABLE);
    if (!all_canonical(root, P2_DIGEST, prm->p) || (columns && !all_canonical(values, columns, prm->p)) ||
        (depth && !all_canonical(path, (size_t)depth * P2_DIGEST, prm->p)))
        return HPR_ERR_ELEMENT_OUT_OF_RANGE;
    k->hash_rows(prm, values, 1, columns, 0, 1, node); /* one row: element c at values[c] */
    for (unsigned j = 0; j < depth; j++) {
        int right = (row >> j) & 1; /* the node is its parent's right child */
        memcpy(pair + (right ? P2_DIGEST : 0), node, sizeof node);
        memcpy(pair + (right ? 0 : P2_DIGEST), path + j * P2_DIGEST, sizeof node);
        k->compress(prm, pair, node, 1);
    }
    return memcmp(node, root, sizeof node) == 0 ? HPR_OK : HPR_ERR_PROOF_INVALID;
}

void merkle_destroy(hpr_merkle_tree *tree)
{
    if (!tree)
        return;
    if (tree->fd >= 0)
        close(tree->fd);
    free(tree->matrix);
    free(tree->nodes);
    free(tree);
}
