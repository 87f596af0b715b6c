/*
 * zkey.c: the strict .zkey and .wtns readers of zkey.h. The container (FORMATS.md section 1)
 * is walked through its section table first: every record must lie inside the file, no id
 * the reader uses may repeat, and nothing may follow the last section. Then each section's
 * size is checked against the counts of the header, in 64-bit arithmetic (u32 counts times
 * point sizes cannot overflow it), before any pointer into it is formed.
 * Why so strict: the prover uses the key's sections in place, so a file that disagrees with
 * its own header is refused with a detail rather than read past its end.
 */
#define _DEFAULT_SOURCE /* MAP_POPULATE */
#define _POSIX_C_SOURCE 200809L
#include "host/groth16/zkey.h"
#include "runtime/base/rt_fs.h"
#include "runtime/base/rt_mem.h"
#include "arith/compat.h"
#include "arith/constants_gen.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAX_SECTIONS 64

static const uint64_t bn254_q[4] = BN254_FP_P, bn254_r[4] = BN254_FR_P;
static const uint64_t bls_q[6] = BLS12_381_FP_P, bls_r[4] = BLS12_381_FR_P;

/* Whether the n little-endian bytes at a are below those at b. */
static int bytes_below(const unsigned char *a, const unsigned char *b, size_t n)
{
    for (size_t i = n; i-- > 0;)
        if (a[i] != b[i])
            return a[i] < b[i];
    return 0;
}

hpr_status binfile_sections(hpr_ctx *ctx, const unsigned char *d, size_t len, const char *name, const char *magic,
                            uint32_t version, bin_section *secs, uint32_t max_id)
{
    size_t off = 12;
    memset(secs, 0, (max_id + 1) * sizeof *secs);
    if (len < 12)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: %zu bytes, shorter than the 12-byte header", name, len);
    if (memcmp(d, magic, 4) != 0)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: not a .%s file (the magic is not '%s')", name, magic, magic);
    if (binfile_u32(d + 4) != version)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: version %u (expected %u)", name, binfile_u32(d + 4), version);
    uint32_t n = binfile_u32(d + 8);
    if (n > MAX_SECTIONS)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: %u sections (at most %d)", name, n, MAX_SECTIONS);
    for (uint32_t i = 0; i < n; i++) {
        if (len - off < 12)
            return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: the header of section record %u runs past the end (offset %zu)",
                            name, i, off);
        uint32_t id = binfile_u32(d + off);
        uint64_t size = binfile_u32(d + off + 4) | (uint64_t)binfile_u32(d + off + 8) << 32;
        if (size > len - off - 12)
            return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section %u (%llu bytes at offset %zu) runs past the end", name,
                            id, (unsigned long long)size, off + 12);
        if (id >= 1 && id <= max_id) {
            if (secs[id].present)
                return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section %u appears twice", name, id);
            secs[id] = (bin_section){d + off + 12, size, 1};
        }
        off += 12 + (size_t)size;
    }
    if (off != len)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: %zu bytes follow the last section", name, len - off);
    return HPR_OK;
}

static hpr_status require(hpr_ctx *ctx, const char *name, const bin_section *secs, uint32_t first, uint32_t last)
{
    for (uint32_t id = first; id <= last; id++)
        if (!secs[id].present)
            return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section %u is missing", name, id);
    return HPR_OK;
}

static hpr_status expect_size(hpr_ctx *ctx, const char *name, const bin_section *s, uint32_t id, uint64_t want,
                              const char *what)
{
    if (s->size != want)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section %u has %llu bytes, %s needs %llu", name, id,
                        (unsigned long long)s->size, what, (unsigned long long)want);
    return HPR_OK;
}

/* Section 2: field sizes and primes (the curve), counts, verification-key points. */
static hpr_status parse_header(hpr_ctx *ctx, const char *name, const bin_section *s2, zkey_file *zk)
{
    const unsigned char *p = s2->p;
    if (s2->size < 4)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section 2 has %llu bytes, too short for n8q", name,
                        (unsigned long long)s2->size);
    zk->n8q = binfile_u32(p);
    if (zk->n8q != 32 && zk->n8q != 48)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "%s: base field of %u bytes (BN254: 32, BLS12-381: 48)",
                        name, zk->n8q);
    uint64_t g1 = 2 * (uint64_t)zk->n8q, g2 = 4 * (uint64_t)zk->n8q, want = 4 + zk->n8q + 4 + 32 + 12 + 3 * g1 + 3 * g2;
    hpr_status st = expect_size(ctx, name, s2, 2, want, "the Groth16 header");
    if (st != HPR_OK)
        return st;
    const unsigned char *q = p + 4, *r = q + zk->n8q + 4;
    zk->n8r = binfile_u32(q + zk->n8q);
    if (zk->n8r != 32)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "%s: scalar field of %u bytes (expected 32)", name, zk->n8r);
    if (zk->n8q == 32 && binfile_equals_limbs(q, bn254_q, 32) && binfile_equals_limbs(r, bn254_r, 32))
        zk->curve = HPR_CURVE_BN254;
    else if (zk->n8q == 48 && binfile_equals_limbs(q, bls_q, 48) && binfile_equals_limbs(r, bls_r, 32))
        zk->curve = HPR_CURVE_BLS12_381;
    else
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE, "%s: the primes are neither BN254's nor BLS12-381's", name);
    zk->r = r;
    const unsigned char *c = r + 32;
    zk->n_vars = binfile_u32(c);
    zk->n_public = binfile_u32(c + 4);
    zk->domain_size = binfile_u32(c + 8);
    if (zk->n_vars == 0 || zk->n_public >= zk->n_vars)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: nVars %u and nPublic %u (need nPublic < nVars)", name, zk->n_vars,
                        zk->n_public);
    unsigned max_log = zk->curve == HPR_CURVE_BN254 ? 27 : 31; /* the H domain is 2 * domainSize */
    if (zk->domain_size == 0 || (zk->domain_size & (zk->domain_size - 1)) || zk->domain_size > (1u << max_log))
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: domainSize %u is not a power of two up to 2^%u", name,
                        zk->domain_size, max_log);
    const unsigned char *pts = c + 12;
    zk->alpha1 = pts;
    zk->beta1 = zk->alpha1 + g1;
    zk->beta2 = zk->beta1 + g1;
    zk->gamma2 = zk->beta2 + g2;
    zk->delta1 = zk->gamma2 + g2;
    zk->delta2 = zk->delta1 + g1;
    return HPR_OK;
}

/* Section 4: the coefficient entries, each checked (matrix, row, signal, value < r), and
 * whether their rows are sorted (groth16_h.c then reads each entry once). */
static hpr_status parse_coefficients(hpr_ctx *ctx, const char *name, const bin_section *s4, zkey_file *zk)
{
    uint64_t entry = 12 + (uint64_t)zk->n8r;
    if (s4->size < 4)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section 4 has %llu bytes, too short for nCoef", name,
                        (unsigned long long)s4->size);
    zk->n_coef = binfile_u32(s4->p);
    hpr_status st = expect_size(ctx, name, s4, 4, 4 + (uint64_t)zk->n_coef * entry, "nCoef entries");
    if (st != HPR_OK)
        return st;
    zk->coef = s4->p + 4;
    zk->coef_rows_sorted = 1;
    for (uint32_t i = 0, last_row = 0; i < zk->n_coef; i++) {
        const unsigned char *e = zk->coef + i * entry;
        uint32_t matrix = binfile_u32(e), row = binfile_u32(e + 4), signal = binfile_u32(e + 8);
        if (row < last_row)
            zk->coef_rows_sorted = 0;
        last_row = row;
        if (matrix > 1 || row >= zk->domain_size || signal >= zk->n_vars || !bytes_below(e + 12, zk->r, zk->n8r))
            return ctx_fail(ctx, HPR_ERR_FORMAT,
                            "%s: coefficient %u is out of range (matrix %u, row %u of %u, signal %u of %u, or a value "
                            ">= r)",
                            name, i, matrix, row, zk->domain_size, signal, zk->n_vars);
    }
    return HPR_OK;
}

/* The container, the protocol (section 1) and the Groth16 header (section 2), with every
 * section located in s. */
static hpr_status parse_front(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name, zkey_file *zk,
                              bin_section *s, uint32_t last_required)
{
    hpr_status st;
    memset(zk, 0, sizeof *zk);
    if ((st = binfile_sections(ctx, data, len, name, "zkey", 1, s, ZKEY_SECTIONS)) != HPR_OK ||
        (st = require(ctx, name, s, 1, last_required)) != HPR_OK ||
        (st = expect_size(ctx, name, &s[1], 1, 4, "the protocol id")) != HPR_OK)
        return st;
    if (binfile_u32(s[1].p) != 1)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: protocol %u is not Groth16 (1; PLONK is 2, FFLONK 10)", name,
                        binfile_u32(s[1].p));
    return parse_header(ctx, name, &s[2], zk);
}

hpr_status zkey_parse_header(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name, zkey_file *zk)
{
    bin_section s[ZKEY_SECTIONS + 1];
    return parse_front(ctx, data, len, name, zk, s, 2);
}

hpr_status zkey_parse(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name, zkey_file *zk)
{
    bin_section s[ZKEY_SECTIONS + 1];
    hpr_status st;
    if ((st = parse_front(ctx, data, len, name, zk, s, 9)) != HPR_OK)
        return st;
    uint64_t g1 = 2 * (uint64_t)zk->n8q, g2 = 4 * (uint64_t)zk->n8q, nv = zk->n_vars;
    struct {
        uint32_t id;
        uint64_t bytes;
        const char *what;
        const unsigned char **out;
    } points[] = {
        {3, ((uint64_t)zk->n_public + 1) * g1, "nPublic + 1 G1 points (IC)", &zk->ic},
        {5, nv * g1, "nVars G1 points (A)", &zk->a},
        {6, nv * g1, "nVars G1 points (B1)", &zk->b1},
        {7, nv * g2, "nVars G2 points (B2)", &zk->b2},
        {8, (nv - zk->n_public - 1) * g1, "nVars - nPublic - 1 G1 points (C)", &zk->c},
        {9, (uint64_t)zk->domain_size * g1, "domainSize G1 points (H)", &zk->h},
    };
    for (size_t i = 0; i < sizeof points / sizeof points[0]; i++) {
        if ((st = expect_size(ctx, name, &s[points[i].id], points[i].id, points[i].bytes, points[i].what)) != HPR_OK)
            return st;
        *points[i].out = s[points[i].id].p;
    }
    if ((st = parse_coefficients(ctx, name, &s[4], zk)) != HPR_OK)
        return st;
    zk->map = NULL;
    zk->map_len = 0;
    return HPR_OK;
}

hpr_status binfile_map(hpr_ctx *ctx, const char *path, const char *what, int populate, const unsigned char **map,
                       size_t *len)
{
    void *m = MAP_FAILED;
    char why[256];
    rt_input in;
    hpr_status st = HPR_OK;
    *map = NULL;
    *len = 0;
    /* a regular file of known size only: it is mapped (a FIFO, device or /proc file is refused
     * before anything could block on it) */
    int err = rt_open_input(path, 0, &in, why, sizeof why);
    if (err != 0)
        return ctx_fail(ctx, err == ENOMEM ? HPR_ERR_OUT_OF_MEMORY : HPR_ERR_IO, "%s '%s' %s", what, path, why);
    if (in.size == 0) {
        st = ctx_fail(ctx, HPR_ERR_FORMAT, "%s '%s' is empty", what, path);
        goto out;
    }
#ifndef MAP_POPULATE
#define MAP_POPULATE 0
#endif
    m = mmap(NULL, in.size, PROT_READ, MAP_PRIVATE | (populate ? MAP_POPULATE : 0), in.fd, 0);
    if (m == MAP_FAILED) {
        st = ctx_fail(ctx, HPR_ERR_IO, "cannot map the %s '%s': %s", what, path, strerror(errno));
        goto out;
    }
    *map = m;
    *len = in.size;
out:
    rt_input_close(&in);
    return st;
}

void binfile_unmap(const unsigned char *map, size_t len)
{
    if (map)
        munmap((void *)map, len);
}

hpr_status zkey_open(hpr_ctx *ctx, const char *path, zkey_file *zk)
{
    const unsigned char *map;
    size_t len;
    memset(zk, 0, sizeof *zk);
    hpr_status st = binfile_map(ctx, path, "zkey", 0, &map, &len);
    if (st != HPR_OK)
        return st;
    st = zkey_parse(ctx, map, len, path, zk);
    if (st != HPR_OK) {
        binfile_unmap(map, len);
        return st;
    }
    zk->map = map; /* owned by zk now */
    zk->map_len = len;
    zkey_pages_release(zk, map, len); /* what the parse read (the coefficients) until a proof needs it */
    return HPR_OK;
}

/* The whole pages of the mapping that [p, p + len) touches; 0 when p is not in the mapping. */
static int mapped_pages(const zkey_file *zk, const void *p, size_t len, unsigned char **begin, size_t *bytes)
{
    const unsigned char *b = p, *e = b + len;
    uintptr_t page = (uintptr_t)sysconf(_SC_PAGESIZE);
    if (!zk->map || zk->heap_copy || len == 0 || b < zk->map || e > zk->map + zk->map_len)
        return 0;
    uintptr_t first = (uintptr_t)b & ~(page - 1), last = ((uintptr_t)e + page - 1) & ~(page - 1);
    *begin = (unsigned char *)first;
    *bytes = last - first;
    return 1;
}

void zkey_pages_hold(const zkey_file *zk, const void *p, size_t len)
{
#ifndef MADV_POPULATE_READ
#define MADV_POPULATE_READ 22 /* Linux 5.14; older kernels answer EINVAL and the pages fault in */
#endif
    unsigned char *begin;
    size_t bytes, page = (size_t)sysconf(_SC_PAGESIZE);
    if (!mapped_pages(zk, p, len, &begin, &bytes) || madvise(begin, bytes, MADV_POPULATE_READ) == 0)
        return;
    /* an older kernel: one read a page, so that the faults come now, in order (readahead) */
    unsigned char sink = 0;
    for (size_t off = 0; off < bytes; off += page)
        sink |= ((volatile unsigned char *)begin)[off];
    (void)sink;
}

void zkey_pages_release(const zkey_file *zk, const void *p, size_t len)
{
    unsigned char *begin;
    size_t bytes;
    if (mapped_pages(zk, p, len, &begin, &bytes))
        (void)madvise(begin, bytes, MADV_DONTNEED);
}

hpr_status zkey_copy(hpr_ctx *ctx, const void *data, size_t len, zkey_file *zk)
{
    unsigned char *copy = len ? rt_alloc_large(len) : NULL;
    hpr_status st;
    memset(zk, 0, sizeof *zk);
    if (len && !copy)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "no memory for a copy of the %zu-byte zkey", len);
    if (len)
        memcpy(copy, data, len);
    st = zkey_parse(ctx, copy, len, "the zkey buffer", zk);
    if (st != HPR_OK) {
        free(copy);
        return st;
    }
    zk->map = copy;
    zk->map_len = len;
    zk->heap_copy = 1;
    return HPR_OK;
}

void zkey_close(zkey_file *zk)
{
    if (zk && zk->map && zk->heap_copy)
        free((void *)zk->map);
    else if (zk && zk->map)
        munmap((void *)zk->map, zk->map_len);
    if (zk)
        memset(zk, 0, sizeof *zk);
}

hpr_status wtns_parse(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name, const zkey_file *zk,
                          wtns_data *w)
{
    bin_section s[3];
    hpr_status st;
    memset(w, 0, sizeof *w);
    if ((st = binfile_sections(ctx, data, len, name, "wtns", 2, s, 2)) != HPR_OK ||
        (st = require(ctx, name, s, 1, 2)) != HPR_OK)
        return st;
    if (s[1].size < 4 || binfile_u32(s[1].p) != zk->n8r)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: the witness field is not %u bytes like the zkey's scalar field",
                        name, zk->n8r);
    if ((st = expect_size(ctx, name, &s[1], 1, 4 + (uint64_t)zk->n8r + 4, "the witness header")) != HPR_OK)
        return st;
    if (memcmp(s[1].p + 4, zk->r, zk->n8r) != 0)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: the witness prime is not the zkey's scalar field prime (another curve)",
                        name);
    uint32_t n = binfile_u32(s[1].p + 4 + zk->n8r);
    if (n != zk->n_vars)
        return ctx_fail(ctx, HPR_ERR_WITNESS_LENGTH, "%s: %u witness values, the zkey needs nVars = %u", name, n,
                        zk->n_vars);
    if ((st = expect_size(ctx, name, &s[2], 2, (uint64_t)n * zk->n8r, "nWitness values")) != HPR_OK)
        return st;
    for (uint32_t i = 0; i < n; i++)
        if (!bytes_below(s[2].p + (size_t)i * zk->n8r, zk->r, zk->n8r))
            return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: witness value %u is not below the scalar field prime r", name, i);
    w->values = rt_alloc_large((size_t)n * zk->n8r + 1);
    if (!w->values)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "%s: no memory for %u witness values", name, n);
    memcpy(w->values, s[2].p, (size_t)n * zk->n8r);
    w->n_values = n;
    return HPR_OK;
}

void wtns_free(wtns_data *w)
{
    if (w) {
        free(w->values);
        memset(w, 0, sizeof *w);
    }
}

unsigned zkey_log_domain(const zkey_file *zk)
{
    unsigned log_n = 0;
    while (((size_t)1 << log_n) < zk->domain_size)
        log_n++;
    return log_n;
}
