/*
 * r1cs.h: a strict reader of circom's `.r1cs` (iden3's binary format, version 1: FORMATS.md
 * section 6), for the development setup (host/groth16/setup.c). Internal to the library.
 *
 * The file is mapped read-only and walked once when opened: the header (section 1), every
 * constraint of section 2 (three linear combinations, each a count and that many (wire,
 * coefficient) terms) and the wire-to-label map (section 3, one u64 per wire). Every
 * violation is HPR_ERR_FORMAT naming the file, the section and, in section 2, the constraint
 * and its matrix: a term past the section's end, a wire >= nWires, a coefficient >= r, bytes
 * left after the last constraint, counts that disagree. A prime other than BN254's or
 * BLS12-381's scalar field is HPR_ERR_UNSUPPORTED_CURVE; custom gates (sections 4 and 5, which
 * PLONK circuits use) are refused as not Groth16.
 */
#ifndef HOST_R1CS_H
#define HOST_R1CS_H

#include "host/core/context.h"

#include <stddef.h>
#include <stdint.h>

typedef struct {
    hpr_curve curve;
    uint32_t n8;                       /* bytes of a coefficient (32) */
    uint32_t n_wires, n_pub_out, n_pub_in, n_prv_in, n_constraints;
    uint64_t n_labels;
    uint64_t n_terms[3];               /* terms of A, B and C over all constraints */
    const unsigned char *constraints;  /* section 2, in place */
    const unsigned char *map;          /* the mapping */
    size_t map_len;
} r1cs_file;

/* Maps, then validates path as above. On success *r is filled; release with r1cs_close. */
RT_MUST_CHECK hpr_status r1cs_open(hpr_ctx *ctx, const char *path, r1cs_file *r);
/* The same over len bytes the caller keeps alive (r->map stays NULL); name labels errors. */
RT_MUST_CHECK hpr_status r1cs_parse(hpr_ctx *ctx, const unsigned char *data, size_t len, const char *name,
                                    r1cs_file *r);
void r1cs_close(r1cs_file *r);

/* One linear combination at *p (a validated file's section 2): its term count, and the terms
 * (each a u32 wire and an n8-byte coefficient, normal form); *p moves past it. */
const unsigned char *r1cs_lc(const r1cs_file *r, const unsigned char **p, uint32_t *count);

/* The wire and coefficient (4 canonical limbs) of term i of a combination's terms. */
uint32_t r1cs_term(const r1cs_file *r, const unsigned char *terms, uint32_t i, uint64_t *coef);

#endif
