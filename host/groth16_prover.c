/*
 * groth16_prover.c: the Groth16 prover handle (hpr_groth16_prover_*): a .zkey mapped and
 * validated once by zkey_open (host/zkey.c), or copied from the caller's bytes and validated by
 * zkey_copy, then only read.
 *
 * Why a handle: the key's point sections are used in place from the mapping, so one prover
 * serves many proofs. Thread safety: the prover is read-only after hpr_groth16_prover_create
 * (the zkey mapping and its parsed offsets); all per-proof state lives on the stack, the heap
 * and the caller's context.
 */
#include "resident.h"
#include "groth16.h"

#include <stdlib.h>

struct hpr_groth16_prover {
    zkey_file zk;
    uint64_t key;
};

/* A prover over the zkey at path, or (path NULL) over a copy of the len bytes at data. */
static hpr_status prover_create(hpr_ctx *ctx, const char *path, const void *data, size_t len,
                                hpr_groth16_prover **out)
{
    hpr_groth16_prover *p;
    hpr_status st;
    *out = NULL;
    p = calloc(1, sizeof *p);
    if (!p)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Groth16 prover: out of memory");
    st = path ? zkey_open(ctx, path, &p->zk) : zkey_copy(ctx, data, len, &p->zk);
    if (st != HPR_OK) {
        free(p);
        return st;
    }
    p->key = ctx_new_resident_keys(1 + G16_MSMS);
    *out = p;
    return HPR_OK;
}

hpr_status hpr_groth16_prover_create(hpr_ctx *ctx, const char *zkey_path, hpr_groth16_prover **out)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!zkey_path || !out)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "zkey path and out must not be NULL");
    return prover_create(ctx, zkey_path, NULL, 0, out);
}

hpr_status hpr_groth16_prover_create_from_buffer(hpr_ctx *ctx, const void *zkey, size_t len,
                                                 hpr_groth16_prover **out)
{
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!zkey || !out)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "zkey buffer and out must not be NULL");
    return prover_create(ctx, NULL, zkey, len, out);
}

void hpr_groth16_prover_destroy(hpr_groth16_prover *prover)
{
    if (!prover)
        return;
    zkey_close(&prover->zk);
    free(prover);
}

hpr_curve hpr_groth16_prover_curve(const hpr_groth16_prover *prover)
{
    return prover ? prover->zk.curve : (hpr_curve)0;
}

void hpr_groth16_prover_sizes(const hpr_groth16_prover *prover, size_t *domain_size, size_t *n_vars, size_t *n_public)
{
    if (domain_size)
        *domain_size = prover ? prover->zk.domain_size : 0;
    if (n_vars)
        *n_vars = prover ? prover->zk.n_vars : 0;
    if (n_public)
        *n_public = prover ? prover->zk.n_public : 0;
}

hpr_status hpr_groth16_zkey_sizes(hpr_ctx *ctx, const void *zkey, size_t len, hpr_curve *curve, size_t *domain_size,
                                  size_t *n_vars, size_t *n_public)
{
    zkey_file zk;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!zkey)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "zkey buffer must not be NULL");
    if ((st = zkey_parse_header(ctx, zkey, len, "the zkey buffer", &zk)) != HPR_OK)
        return st;
    if (curve)
        *curve = zk.curve;
    if (domain_size)
        *domain_size = zk.domain_size;
    if (n_vars)
        *n_vars = zk.n_vars;
    if (n_public)
        *n_public = zk.n_public;
    return HPR_OK;
}

uint64_t g16_prover_key(const hpr_groth16_prover *prover)
{
    return prover->key;
}

const zkey_file *g16_prover_zkey(const hpr_groth16_prover *prover)
{
    return &prover->zk;
}
