/*
 * decimal.c: conversion between decimal strings and little-endian limbs, for snarkjs JSON.
 * Schoolbook on 32-bit half-limbs: multiply-by-10-and-add in, divide-by-10^9 out. Sizes are
 * at most 384 bits, so quadratic cost is irrelevant.
 */
#include "host/core/decimal.h"

#include <string.h>

#define MAX_HALVES 24 /* 12 limbs */

int dec_to_limbs(uint64_t *limbs, unsigned n, const char *s)
{
    uint32_t h[MAX_HALVES] = {0};
    unsigned nh = 2 * n;
    if (!s || !*s || nh > MAX_HALVES)
        return -1;
    for (; *s; s++) {
        if (*s < '0' || *s > '9')
            return -1;
        uint64_t carry = (uint64_t)(*s - '0');
        for (unsigned i = 0; i < nh; i++) {
            uint64_t t = (uint64_t)h[i] * 10 + carry;
            h[i] = (uint32_t)t;
            carry = t >> 32;
        }
        if (carry)
            return -1;
    }
    for (unsigned i = 0; i < n; i++)
        limbs[i] = (uint64_t)h[2 * i] | ((uint64_t)h[2 * i + 1] << 32);
    return 0;
}

void dec_from_limbs(char *buf, const uint64_t *limbs, unsigned n)
{
    uint32_t h[MAX_HALVES];
    char rev[20 * MAX_HALVES / 2 + 16];
    unsigned nh = 2 * n, len = 0;
    for (unsigned i = 0; i < n; i++) {
        h[2 * i] = (uint32_t)limbs[i];
        h[2 * i + 1] = (uint32_t)(limbs[i] >> 32);
    }
    for (;;) {
        uint64_t rem = 0;
        int nonzero = 0;
        for (unsigned i = nh; i-- > 0;) {
            uint64_t cur = (rem << 32) | h[i];
            h[i] = (uint32_t)(cur / 1000000000u);
            rem = cur % 1000000000u;
            nonzero |= h[i] != 0;
        }
        for (int d = 0; d < 9; d++) {
            rev[len++] = (char)('0' + rem % 10);
            rem /= 10;
            if (!nonzero && rem == 0)
                break;
        }
        if (!nonzero)
            break;
    }
    while (len > 1 && rev[len - 1] == '0')
        len--;
    for (unsigned i = 0; i < len; i++)
        buf[i] = rev[len - 1 - i];
    buf[len] = '\0';
}
