/*
 * r1cs.c: the strict .r1cs reader of r1cs.h.
 * Method: the container is walked by binfile_sections (host/groth16/zkey.c); the header is
 * checked against its exact size and the supported primes; then section 2 is walked constraint
 * by constraint, every count checked against the bytes left before a term is read, so a
 * truncated or lying file is named (constraint, matrix, term) and never read past its end.
 * Why walk it all at open: the setup reads the constraints twice (evaluation, then the zkey's
 * coefficient section) and must not fail half way through writing its output.
 */
#include "host/groth16/r1cs.h"
#include "host/groth16/zkey.h"
#include "arith/compat.h"
#include "arith/constants_gen.h"

#include <string.h>

enum { R1CS_SECTIONS = 5 };

static const uint64_t bn254_r[4] = BN254_FR_P, bls_r[4] = BLS12_381_FR_P;
static const char *const matrix_name[3] = {"A", "B", "C"};

static const uint64_t *prime_of(const r1cs_file *r)
{
    return r->curve == HPR_CURVE_BN254 ? bn254_r : bls_r;
}

uint32_t r1cs_term(const r1cs_file *r, const unsigned char *terms, uint32_t i, uint64_t *coef)
{
    const unsigned char *t = terms + (size_t)i * (4 + r->n8);
    for (int l = 0; l < 4; l++) {
        coef[l] = 0;
        for (int b = 7; b >= 0; b--)
            coef[l] = coef[l] << 8 | t[4 + 8 * l + b];
    }
    return binfile_u32(t);
}

const unsigned char *r1cs_lc(const r1cs_file *r, const unsigned char **p, uint32_t *count)
{
    const unsigned char *terms = *p + 4;
    *count = binfile_u32(*p);
    *p = terms + (size_t)*count * (4 + r->n8);
    return terms;
}

static hpr_status parse_header(hpr_ctx *ctx, const char *name, const bin_section *s1, r1cs_file *r)
{
    const unsigned char *p = s1->p;
    if (s1->size < 4)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section 1 (header) has %llu bytes, too short for n8", name,
                        (unsigned long long)s1->size);
    r->n8 = binfile_u32(p);
    if (r->n8 != 32)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE,
                        "%s: section 1 (header): a field of %u bytes (BN254 and BLS12-381 have 32)", name, r->n8);
    if (s1->size != 4 + 32 + 4 * 4 + 8 + 4)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section 1 (header) has %llu bytes, expected %d", name,
                        (unsigned long long)s1->size, 4 + 32 + 4 * 4 + 8 + 4);
    if (binfile_equals_limbs(p + 4, bn254_r, 32))
        r->curve = HPR_CURVE_BN254;
    else if (binfile_equals_limbs(p + 4, bls_r, 32))
        r->curve = HPR_CURVE_BLS12_381;
    else
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_CURVE,
                        "%s: section 1 (header): the prime is neither BN254's nor BLS12-381's scalar field "
                        "(compile with circom --prime bn128 or bls12381)",
                        name);
    const unsigned char *c = p + 36;
    r->n_wires = binfile_u32(c);
    r->n_pub_out = binfile_u32(c + 4);
    r->n_pub_in = binfile_u32(c + 8);
    r->n_prv_in = binfile_u32(c + 12);
    r->n_labels = binfile_u32(c + 16) | (uint64_t)binfile_u32(c + 20) << 32;
    r->n_constraints = binfile_u32(c + 24);
    if (r->n_wires == 0 || (uint64_t)r->n_pub_out + r->n_pub_in + r->n_prv_in >= r->n_wires)
        return ctx_fail(ctx, HPR_ERR_FORMAT,
                        "%s: section 1 (header): nWires %u does not hold wire 0 and the %u outputs, %u public and %u "
                        "private inputs",
                        name, r->n_wires, r->n_pub_out, r->n_pub_in, r->n_prv_in);
    if (r->n_labels < r->n_wires)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section 1 (header): nLabels %llu is below nWires %u", name,
                        (unsigned long long)r->n_labels, r->n_wires);
    return HPR_OK;
}

/* One linear combination of constraint k at *off within section 2 (size bytes). */
static hpr_status check_lc(hpr_ctx *ctx, const char *name, r1cs_file *r, const bin_section *s2, uint64_t *off,
                           uint32_t k, int m)
{
    uint64_t left = s2->size - *off, term = 4 + (uint64_t)r->n8;
    if (left < 4)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section 2 (constraints) ends inside constraint %u (%s's count)", name,
                        k, matrix_name[m]);
    uint32_t count = binfile_u32(s2->p + *off);
    if ((uint64_t)count * term > left - 4)
        return ctx_fail(ctx, HPR_ERR_FORMAT,
                        "%s: section 2 (constraints): constraint %u, %s: %u terms run past the section's end", name, k,
                        matrix_name[m], count);
    const unsigned char *terms = s2->p + *off + 4;
    for (uint32_t i = 0; i < count; i++) {
        uint64_t coef[4];
        uint32_t wire = r1cs_term(r, terms, i, coef);
        if (wire >= r->n_wires)
            return ctx_fail(ctx, HPR_ERR_FORMAT,
                            "%s: section 2 (constraints): constraint %u, %s, term %u: wire %u of %u", name, k,
                            matrix_name[m], i, wire, r->n_wires);
        if (!limbs4_below(coef, prime_of(r)))
            return ctx_fail(ctx, HPR_ERR_FORMAT,
                            "%s: section 2 (constraints): constraint %u, %s, term %u: a coefficient >= r", name, k,
                            matrix_name[m], i);
    }
    r->n_terms[m] += count;
    *off += 4 + (uint64_t)count * term;
    return HPR_OK;
}

static hpr_status parse_constraints(hpr_ctx *ctx, const char *name, const bin_section *s2, r1cs_file *r)
{
    uint64_t off = 0;
    hpr_status st;
    for (uint32_t k = 0; k < r->n_constraints; k++)
        for (int m = 0; m < 3; m++)
            if ((st = check_lc(ctx, name, r, s2, &off, k, m)) != HPR_OK)
                return st;
    if (off != s2->size)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section 2 (constraints): %llu bytes follow constraint %u, the last",
                        name, (unsigned long long)(s2->size - off), r->n_constraints);
    r->constraints = s2->p;
    return HPR_OK;
}

hpr_status r1cs_parse(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name, r1cs_file *r)
{
    bin_section s[R1CS_SECTIONS + 1];
    hpr_status st;
    memset(r, 0, sizeof *r);
    if ((st = binfile_sections(ctx, data, len, name, "r1cs", 1, s, R1CS_SECTIONS)) != HPR_OK)
        return st;
    for (int id = 1; id <= 2; id++)
        if (!s[id].present)
            return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section %d (%s) is missing", name, id,
                            id == 1 ? "header" : "constraints");
    if (s[4].present || s[5].present)
        return ctx_fail(ctx, HPR_ERR_FORMAT,
                        "%s: sections 4 and 5 (custom gates) are for PLONK; Groth16 needs a circuit without them", name);
    if ((st = parse_header(ctx, name, &s[1], r)) != HPR_OK)
        return st;
    if (s[3].present && s[3].size != 8 * (uint64_t)r->n_wires)
        return ctx_fail(ctx, HPR_ERR_FORMAT, "%s: section 3 (wire-to-label map) has %llu bytes, nWires %u needs %llu",
                        name, (unsigned long long)s[3].size, r->n_wires, 8 * (unsigned long long)r->n_wires);
    return parse_constraints(ctx, name, &s[2], r);
}

hpr_status r1cs_open(hpr_ctx *ctx, const char *path, r1cs_file *r)
{
    const unsigned char *map;
    size_t len;
    memset(r, 0, sizeof *r);
    hpr_status st = binfile_map(ctx, path, "r1cs", 1, &map, &len);
    if (st != HPR_OK)
        return st;
    if ((st = r1cs_parse(ctx, map, len, path, r)) != HPR_OK) {
        binfile_unmap(map, len);
        return st;
    }
    r->map = map;
    r->map_len = len;
    return HPR_OK;
}

void r1cs_close(r1cs_file *r)
{
    if (r && r->map)
        binfile_unmap(r->map, r->map_len);
    if (r)
        memset(r, 0, sizeof *r);
}
