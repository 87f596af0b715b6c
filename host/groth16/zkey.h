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

/* A little-endian u32 of an iden3 file. */
static inline uint32_t binfile_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Whether the n little-endian bytes at b equal the limbs (a prime in a header). */
static inline int binfile_equals_limbs(const unsigned char *b, const uint64_t *limbs, size_t n)
{
    for (size_t i = 0; i < n; i++)
        if (b[i] != (unsigned char)(limbs[i / 8] >> (8 * (i % 8))))
            return 0;
    return 1;
}

/* Whether the 4-limb k is below the 4-limb m. */
static inline int limbs4_below(const uint64_t *k, const uint64_t *m)
{
    for (int i = 3; i >= 0; i--)
        if (k[i] != m[i])
            return k[i] < m[i];
    return 0;
}

/* One section of an iden3 binary container (.zkey, .wtns, .r1cs: FORMATS.md section 1). */
typedef struct {
    const unsigned char *p;
    uint64_t size;
    int present;
} bin_section;

/* Walks the container of len bytes at d: magic (4 characters), version, then the section
 * table; secs[1..max_id] are filled (ids above max_id are skipped, a repeated id, a record
 * past the end or bytes after the last section refused). name labels the errors
 * (HPR_ERR_FORMAT). */
RT_MUST_CHECK hpr_status binfile_sections(hpr_ctx *ctx, const unsigned char *d, size_t len, const char *name,
                                          const char *magic, uint32_t version, bin_section *secs, uint32_t max_id);
/* Maps path (a regular file of known size, not empty) read-only, with every page read in when
 * populate; what names the kind of file in errors ("zkey", "r1cs"). Release with binfile_unmap. */
RT_MUST_CHECK hpr_status binfile_map(hpr_ctx *ctx, const char *path, const char *what, int populate,
                                     const unsigned char **map, size_t *len);
void binfile_unmap(const unsigned char *map, size_t len);

typedef struct {
    hpr_curve curve;
    uint32_t n8q, n8r;           /* base and scalar field bytes: 32/32 (BN254), 48/32 (BLS12-381) */
    uint32_t n_vars, n_public;   /* witness length (with w[0] = 1); public signals (without it) */
    uint32_t domain_size;        /* a power of two */
    uint32_t n_coef;             /* entries of section 4 */
    int coef_rows_sorted;        /* their rows never decrease (snarkjs's order: FORMATS.md) */
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

/*
 * The pages of a mapped zkey (zkey_open) resident only while a proof reads them: hold reads the
 * pages of [p, p + len) in with one call (MADV_POPULATE_READ: no fault per page) before a phase
 * reads a section; release drops them from this process after it (MADV_DONTNEED: the file's
 * page cache keeps them, so the next hold costs a fraction of a millisecond per 100 MB here).
 * Why: a proof's peak memory then holds the section in use, not the whole key (at 2^20 the key
 * is 0.5 GB). Correct under any interleaving: a released page that another thread still reads
 * is read in again from the file. Nothing for a heap copy or a range outside the mapping.
 */
void zkey_pages_hold(const zkey_file *zk, const void *p, size_t len);
void zkey_pages_release(const zkey_file *zk, const void *p, size_t len);

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
