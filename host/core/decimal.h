/*
 * decimal.h: decimal strings <-> little-endian 64-bit limbs (snarkjs's JSON numbers).
 */
#ifndef HOST_DECIMAL_H
#define HOST_DECIMAL_H

#include <stdint.h>

/* to_limbs returns 0, or -1 on an empty string, a non-digit or a value >= 2^(64n).
 * from_limbs needs buflen >= 20n + 1. */
int dec_to_limbs(uint64_t *limbs, unsigned n, const char *s);
void dec_from_limbs(char *buf, const uint64_t *limbs, unsigned n);

#endif
