/*
 * fuzz_decimal_points.c: libFuzzer target for the decimal side of the point API:
 * hpr_point_from_decimal, the internal decimal parser and printer (host/core/decimal.h) and
 * hpr_point_to_json.
 *
 * Input: one control byte (bit 0: the curve, BN254 or BLS12-381; bit 1: G2 instead of G1;
 * bits 2..5: a limb count 0..15 for the decimal parser; bits 6..7: how short the JSON buffer
 * is), then the text "x\ny\nz" (fields split at newlines). The same bytes after the control
 * byte are also read raw as limbs and as an interchange-form point.
 *
 * Oracles (the decimal forms are what snarkjs JSON carries, so a parser that disagrees with
 * the printer would accept or write another point than the one meant):
 *   - dec_to_limbs accepts exactly the non-empty digit strings below 2^(64 n) (the bound
 *     computed here by repeated doubling in decimal, independently of decimal.c), and
 *     dec_from_limbs gives the string back without its leading zeros; any limbs printed by
 *     dec_from_limbs parse back to the same limbs;
 *   - a point that hpr_point_from_decimal accepts prints with hpr_point_to_json as
 *     ["x","y","1"] with the input's digits (leading zeros dropped), or ["0","1","0"] for z "0",
 *     and parses back to the same bytes; G2 is refused with HPR_ERR_UNSUPPORTED_GROUP;
 *   - raw bytes that hpr_point_to_json accepts (coordinates below p, on the curve) print as
 *     decimals that parse back to the same bytes; a short buffer is refused, never overrun
 *     (it is allocated at its exact length for ASan).
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_support.h"
#include "host/core/decimal.h"

#define MAX_LIMBS 12
#define MAX_DIGITS 240

/* 2^(64 n) in decimal, n = 0..MAX_LIMBS, made once. */
static char pow2[MAX_LIMBS + 1][MAX_DIGITS];

static void make_powers(void)
{
    unsigned char d[MAX_DIGITS] = {1}; /* little-endian decimal digits */
    unsigned len = 1;
    for (unsigned n = 0; n <= MAX_LIMBS; n++) {
        for (unsigned i = 0; i < len; i++)
            pow2[n][i] = (char)('0' + d[len - 1 - i]);
        pow2[n][len] = '\0';
        for (unsigned b = 0; b < 64 && n < MAX_LIMBS; b++) {
            unsigned carry = 0;
            for (unsigned i = 0; i < len; i++) {
                unsigned v = d[i] * 2u + carry;
                d[i] = (unsigned char)(v % 10);
                carry = v / 10;
            }
            if (carry)
                d[len++] = (unsigned char)carry;
        }
    }
}

/* s without its leading zeros ("0" for zeros only). */
static const char *strip_zeros(const char *s)
{
    while (s[0] == '0' && s[1] != '\0')
        s++;
    return s;
}

static int all_digits(const char *s)
{
    if (!*s)
        return 0;
    for (; *s; s++)
        if (*s < '0' || *s > '9')
            return 0;
    return 1;
}

/* Whether the digit string s (no leading zeros) is below the digit string bound. */
static int below(const char *s, const char *bound)
{
    size_t a = strlen(s), b = strlen(bound);
    return a != b ? a < b : strcmp(s, bound) < 0;
}

static void fuzz_decimal(const char *s, unsigned n, const uint8_t *raw, size_t raw_len)
{
    uint64_t limbs[MAX_LIMBS + 1] = {0}, back[MAX_LIMBS + 1] = {0};
    char buf[20 * MAX_LIMBS + 1];
    int ok = dec_to_limbs(limbs, n, s) == 0;
    int want = n <= MAX_LIMBS && all_digits(s) && below(strip_zeros(s), pow2[n]);
    FUZZ_CHECK(ok == want);
    if (ok && n > 0) {
        dec_from_limbs(buf, limbs, n);
        FUZZ_CHECK(strcmp(buf, strip_zeros(s)) == 0);
    }
    /* raw limbs -> decimal -> the same limbs */
    if (n == 0 || n > MAX_LIMBS)
        return;
    memset(limbs, 0, sizeof limbs);
    memcpy(limbs, raw, raw_len < n * 8 ? raw_len : n * 8);
    dec_from_limbs(buf, limbs, n);
    FUZZ_CHECK(strlen(buf) <= 20 * n && all_digits(buf) && strcmp(buf, strip_zeros(buf)) == 0);
    FUZZ_CHECK(dec_to_limbs(back, n, buf) == 0 && memcmp(back, limbs, n * 8) == 0);
}

/* The G1 JSON ["x","y","1"] or ["0","1","0"]: its x and y (into x, y; cap bytes each) and z. */
static int split_g1_json(const char *json, char *x, char *y, char *z, size_t cap)
{
    char *out[3] = {x, y, z};
    const char *p = json;
    if (*p++ != '[')
        return -1;
    for (int k = 0; k < 3; k++) {
        size_t n = 0;
        if (*p++ != '"')
            return -1;
        while (*p >= '0' && *p <= '9' && n + 1 < cap)
            out[k][n++] = *p++;
        out[k][n] = '\0';
        if (*p++ != '"' || *p++ != (k < 2 ? ',' : ']'))
            return -1;
    }
    return *p == '\0' ? 0 : -1;
}

/* A point accepted by hpr_point_to_json prints as decimals that parse back to its bytes. */
static void json_round_trip(hpr_curve curve, const unsigned char *point, size_t ps)
{
    char json[256], x[MAX_DIGITS], y[MAX_DIGITS], z[MAX_DIGITS];
    unsigned char again[96];
    FUZZ_CHECK(hpr_point_to_json(curve, HPR_G1, point, json, sizeof json) == HPR_OK);
    FUZZ_CHECK(split_g1_json(json, x, y, z, sizeof x) == 0);
    FUZZ_CHECK(hpr_point_from_decimal(curve, HPR_G1, x, y, z, again) == HPR_OK);
    FUZZ_CHECK(memcmp(again, point, ps) == 0);
}

static void fuzz_from_decimal(hpr_curve curve, hpr_group group, const char *x, const char *y, const char *z)
{
    unsigned char point[96];
    char json[256], jx[MAX_DIGITS], jy[MAX_DIGITS], jz[MAX_DIGITS];
    hpr_status st = hpr_point_from_decimal(curve, group, x, y, z, point);
    if (group == HPR_G2) {
        FUZZ_CHECK(st == HPR_ERR_UNSUPPORTED_GROUP);
        return;
    }
    if (st != HPR_OK)
        return;
    FUZZ_CHECK(strcmp(z, "0") == 0 || strcmp(z, "1") == 0);
    FUZZ_CHECK(hpr_point_to_json(curve, HPR_G1, point, json, sizeof json) == HPR_OK);
    FUZZ_CHECK(split_g1_json(json, jx, jy, jz, sizeof jx) == 0);
    if (strcmp(z, "0") == 0)
        FUZZ_CHECK(strcmp(json, "[\"0\",\"1\",\"0\"]") == 0);
    else
        FUZZ_CHECK(strcmp(jx, strip_zeros(x)) == 0 && strcmp(jy, strip_zeros(y)) == 0 && strcmp(jz, "1") == 0);
    json_round_trip(curve, point, hpr_point_size(curve, HPR_G1));
}

/* Raw bytes as a point: hpr_point_to_json accepts them or says why; an accepted G1 point
 * round-trips; a buffer of buflen bytes is never overrun. */
static void fuzz_to_json(hpr_curve curve, hpr_group group, const uint8_t *raw, size_t raw_len, size_t buflen)
{
    unsigned char point[192] = {0};
    size_t ps = hpr_point_size(curve, group);
    char *buf = malloc(buflen);
    if (!buf)
        return;
    memcpy(point, raw, raw_len < ps ? raw_len : ps);
    hpr_status st = hpr_point_to_json(curve, group, point, buf, buflen);
    if (st == HPR_OK) {
        FUZZ_CHECK(memchr(buf, '\0', buflen) != NULL);
        if (group == HPR_G1)
            json_round_trip(curve, point, ps);
    } else {
        FUZZ_CHECK(st == HPR_ERR_INVALID_ARGUMENT || st == HPR_ERR_COORDINATE_OUT_OF_RANGE ||
                   st == HPR_ERR_POINT_NOT_ON_CURVE);
    }
    free(buf);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    static const size_t buflens[4] = {512, 8, 40, 120};
    fuzz_input in = {data, size};
    unsigned ctl = fuzz_byte(&in);
    hpr_curve curve = ctl & 1 ? HPR_CURVE_BLS12_381 : HPR_CURVE_BN254;
    hpr_group group = ctl & 2 ? HPR_G2 : HPR_G1;
    unsigned n = (ctl >> 2) & 15;
    const uint8_t *raw = in.p;
    size_t raw_len = in.left;
    char *x = fuzz_field(&in, '\n'), *y = fuzz_field(&in, '\n'), *z = fuzz_field(&in, '\n');
    if (!pow2[0][0])
        make_powers();
    if (x && y && z) {
        fuzz_decimal(x, n, raw, raw_len);
        fuzz_from_decimal(curve, group, x, y, z);
        fuzz_to_json(curve, group, raw, raw_len, buflens[ctl >> 6]);
    }
    free(x);
    free(y);
    free(z);
    return 0;
}
