/*
 * zkey.h: strict readers of snarkjs `.zkey` (Groth16) and `.wtns` files (the layout of
 * shared/fixtures/FORMATS.md), for the Groth16 prover (host/groth16_*.c). Internal to the
 * library.
 *
 * A .zkey is memory-mapped read-only: the point sections are used in place (no copies), so
 * the handle must outlive every use of its pointers. A .wtns is read into memory (it is one
 * scalar per signal). Every violation is HPR_ERR_FORMAT (HPR_ERR_UNSUPPORTED_CURVE for a
 * field pair other than BN254 and BLS12-381, HPR_ERR_IO for the file itself) with a detail
 * naming the file and what is wrong: magic, version, protocol, a section missing, repeated
 * or out of the file, a size that disagrees with the header counts, counts that overflow,
 * a coefficient entry out of range, a witness of another prime or length.
 */
#ifndef HOST_ZKEY_H
#define HOST_ZKEY_H

#include "host/core/context.h"

#include <stddef.h>
#include <stdint.h>

enum { ZKEY_SECTIONS = 10 };

typedef struct {
    hpr_curve curve;
    uint32_t n8q, n8r;           /* base and scalar field bytes: 32/32 (BN254), 48/32 (BLS12-381) */
    uint32_t n_vars, n_public;   /* witness length (with w[0] = 1); public signals (without it) */
    uint32_t domain_size;        /* a power of two */
    uint32_t n_coef;             /* entries of section 4 */
    const unsigned char *r;      /* the scalar field prime, n8r bytes, normal form */
    /* verification-key points (section 2), Montgomery affine, in place */
    const unsigned char *alpha1, *beta1, *beta2, *gamma2, *delta1, *delta2;
    const unsigned char *coef;   /* n_coef entries of 12 + n8r bytes */
    const unsigned char *ic, *a, *b1, *b2, *c, *h; /* the point sections, in place */
    const unsigned char *map;    /* the mapping, or the heap copy when heap_copy */
    size_t map_len;
    int heap_copy;
} zkey_file;

/* Maps and validates path, a regular file of known size (anything else is refused before it
 * is opened, HPR_ERR_IO "zkey 'p' is a FIFO, not a regular file"; empty: HPR_ERR_FORMAT).
 * On success *zk is filled; release with zkey_close. */
RT_MUST_CHECK hpr_status zkey_open(hpr_ctx *ctx, const char *path, zkey_file *zk);
/* The same checks over a copy of len bytes of data, which zk owns (released by zkey_close). */
RT_MUST_CHECK hpr_status zkey_copy(hpr_ctx *ctx, const void *data, size_t len, zkey_file *zk);
/* The same checks over a buffer the caller keeps alive (no mapping; for tests and callers
 * that already hold the bytes). name labels the errors. */
RT_MUST_CHECK hpr_status zkey_parse(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name,
                                    zkey_file *zk);
/* Only the container, protocol and Groth16 header (section 2): curve and counts, for size
 * queries; the point and coefficient sections are neither checked nor located. */
RT_MUST_CHECK hpr_status zkey_parse_header(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name,
                                           zkey_file *zk);
void zkey_close(zkey_file *zk);

typedef struct {
    uint32_t n_values;
    unsigned char *values; /* n_values scalars, 32 bytes each, canonical little-endian */
} wtns_data;

/* Validates a .wtns buffer against zk (prime and length) and copies its values; every value
 * must be below r. name labels the errors. Release with wtns_free. */
RT_MUST_CHECK hpr_status wtns_parse(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name,
                                    const zkey_file *zk, wtns_data *w);
void wtns_free(wtns_data *w);

/* log2 of zk->domain_size (a power of two, checked by the parser). */
unsigned zkey_log_domain(const zkey_file *zk);

#endif
