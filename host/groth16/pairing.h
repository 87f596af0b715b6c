/*
 * pairing.h: the optimal ate pairings of BN254 and BLS12-381 (host/groth16/pairing.c), for Groth16
 * verification. Internal to the library.
 */
#ifndef HOST_PAIRING_H
#define HOST_PAIRING_H

#include "hyprove.h"

#include <stddef.h>
#include <stdint.h>

/* One pair (P in G1, Q in G2), each in the interchange form (Montgomery affine bytes);
 * g1_inf / g2_inf mark the point at infinity (its bytes are then not read); negate_g1 uses
 * -P. Contract: the points are on their curves and in the prime-order subgroups. */
typedef struct {
    const unsigned char *g1, *g2;
    int g1_inf, g2_inf, negate_g1;
} pairing_pair;

/* 1 when the product of e(P_i, Q_i) is 1, 0 when it is not, -1 for an unsupported curve or a
 * degenerate Miller step (points outside the contract). */
int pairing_product_is_one(hpr_curve curve, const pairing_pair *pairs, size_t n);

/* The product of e(P_i, Q_i) as the 12 Fq coordinates of the tower (c0.c0.c0, c0.c0.c1,
 * c0.c1.c0, ..., c1.c2.c1), each canonical little-endian limbs (4 for BN254, 6 for
 * BLS12-381): out holds 12 * limbs words. Returns 0, or -1 as above. For tests. */
int pairing_product_value(hpr_curve curve, const pairing_pair *pairs, size_t n, uint64_t *out);

#endif
