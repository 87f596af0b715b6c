/*
 * test_pairing.c: the optimal ate pairings of BN254 and BLS12-381 (host/groth16/pairing.c) and the
 * JSON reader of verification (host/core/json_read.c).
 *
 * Pairing: bilinearity with seeded random scalars a, b (GMP computes a b mod r):
 * e(aP, bQ) = e(abP, Q) = e(P, abQ); the product e(aP, Q) e(-aP, Q) = 1 and
 * e(aP, Q) e(bP, Q) = e((a + b)P, Q); non-degeneracy e(P, Q) != 1; a pair with the point at
 * infinity contributes 1. Scalar multiples come from hpr_msm (G1 and G2), which test_msm checks
 * against the naive sum. Known answers: two pairing checks of Ethereum's BN254 precompile
 * (EIP-197) test set, "jeff1" and "jeff2" of go-ethereum's
 * core/vm/testdata/precompiles/bn256Pairing.json (two pairs each, product 1), and their first
 * pairs alone (a single pairing, not 1); the Groth16 fixtures' snarkjs proofs, which
 * tests/cli/groth16_verify.py checks, are the end-to-end known answers on both curves.
 */
#include "host/core/json_read.h"
#include "host/groth16/pairing.h"
#include "arith/curves.h"
#include "test_support.h"

#include <check.h>
#include <gmp.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    hpr_curve curve;
    size_t g1, g2;
    unsigned limbs; /* base field limbs */
    const char *order_dec;
} curve_case;

static const curve_case curves[] = {
    {HPR_CURVE_BN254, 64, 128, 4, "21888242871839275222246405745257275088548364400416034343698204186575808495617"},
    {HPR_CURVE_BLS12_381, 96, 192, 6,
     "52435875175126190479447740508185965837690552500527637822603658699938581184513"},
};

static void generators(hpr_curve curve, unsigned char *g1, unsigned char *g2)
{
    if (curve == HPR_CURVE_BN254) {
        bn254_g1_affine a;
        bn254_g2_affine b;
        bn254_g1_affine_generator(&a);
        bn254_g2_affine_generator(&b);
        bn254_fp_to_mont_bytes(g1, &a.x);
        bn254_fp_to_mont_bytes(g1 + 32, &a.y);
        bn254_fq2_to_mont_bytes(g2, &b.x);
        bn254_fq2_to_mont_bytes(g2 + 64, &b.y);
    } else {
        bls12_381_g1_affine a;
        bls12_381_g2_affine b;
        bls12_381_g1_affine_generator(&a);
        bls12_381_g2_affine_generator(&b);
        bls12_381_fp_to_mont_bytes(g1, &a.x);
        bls12_381_fp_to_mont_bytes(g1 + 48, &a.y);
        bls12_381_fq2_to_mont_bytes(g2, &b.x);
        bls12_381_fq2_to_mont_bytes(g2 + 96, &b.y);
    }
}

/* out = k * point (k as an mpz below r) */
static void mul(hpr_ctx *ctx, hpr_curve curve, hpr_group group, const unsigned char *point, const mpz_t k,
                unsigned char *out)
{
    uint64_t limbs[4];
    mpz_to_limbs(limbs, 4, k);
    ck_assert_int_eq(hpr_msm(ctx, curve, group, point, limbs, 1, out), HPR_OK);
}

static pairing_pair pair(const unsigned char *p, const unsigned char *q)
{
    pairing_pair x = {p, q, 0, 0, 0};
    return x;
}

static void value(const curve_case *c, pairing_pair *pairs, size_t n, uint64_t *out)
{
    ck_assert_int_eq(pairing_product_value(c->curve, pairs, n, out), 0);
}

/* _i: curve */
START_TEST(pairing_is_bilinear_and_nondegenerate)
{
    const curve_case *c = &curves[_i];
    hpr_ctx *ctx = test_ctx("cpu", 1);
    test_rng rng;
    mpz_t r, a, b, ab, apb;
    unsigned char g1[96], g2[192], ap[96], bq[192], abp[96], abq[192], bp[96], apbp[96];
    uint64_t v1[72], v2[72], v3[72], one[72];
    size_t words = 12 * c->limbs;
    test_rng_init(&rng, 900 + (uint64_t)_i);
    mpz_inits(r, a, b, ab, apb, NULL);
    mpz_set_str(r, c->order_dec, 10);
    uint64_t ra[4], rb[4];
    for (int i = 0; i < 4; i++)
        ra[i] = test_rng_next(&rng), rb[i] = test_rng_next(&rng);
    limbs_to_mpz(a, ra, 4);
    limbs_to_mpz(b, rb, 4);
    mpz_mod(a, a, r);
    mpz_mod(b, b, r);
    mpz_mul(ab, a, b);
    mpz_mod(ab, ab, r);
    mpz_add(apb, a, b);
    mpz_mod(apb, apb, r);
    generators(c->curve, g1, g2);
    mul(ctx, c->curve, HPR_G1, g1, a, ap);
    mul(ctx, c->curve, HPR_G1, g1, b, bp);
    mul(ctx, c->curve, HPR_G2, g2, b, bq);
    mul(ctx, c->curve, HPR_G1, g1, ab, abp);
    mul(ctx, c->curve, HPR_G2, g2, ab, abq);
    mul(ctx, c->curve, HPR_G1, g1, apb, apbp);

    pairing_pair p1 = pair(ap, bq), p2 = pair(abp, g2), p3 = pair(g1, abq);
    value(c, &p1, 1, v1);
    value(c, &p2, 1, v2);
    value(c, &p3, 1, v3);
    assert_seeded(memcmp(v1, v2, words * 8) == 0, "curve %d: e(aP, bQ) != e(abP, Q)", (int)c->curve);
    assert_seeded(memcmp(v1, v3, words * 8) == 0, "curve %d: e(aP, bQ) != e(P, abQ)", (int)c->curve);

    memset(one, 0, sizeof one);
    one[0] = 1;
    pairing_pair g = pair(g1, g2);
    value(c, &g, 1, v1);
    ck_assert_msg(memcmp(v1, one, words * 8) != 0, "curve %d: e(P, Q) = 1", (int)c->curve);

    pairing_pair inverse[2] = {pair(ap, g2), pair(ap, g2)};
    inverse[1].negate_g1 = 1;
    ck_assert_int_eq(pairing_product_is_one(c->curve, inverse, 2), 1);
    inverse[1].negate_g1 = 0;
    ck_assert_int_eq(pairing_product_is_one(c->curve, inverse, 2), 0);

    pairing_pair sum[2] = {pair(ap, g2), pair(bp, g2)}, whole = pair(apbp, g2);
    value(c, sum, 2, v1);
    value(c, &whole, 1, v2);
    assert_seeded(memcmp(v1, v2, words * 8) == 0, "curve %d: e(aP, Q) e(bP, Q) != e((a + b)P, Q)", (int)c->curve);

    pairing_pair with_inf[2] = {pair(g1, g2), pair(ap, bq)};
    with_inf[1].g1_inf = 1; /* e(O, bQ) = 1 */
    value(c, with_inf, 2, v1);
    value(c, &g, 1, v2);
    ck_assert(memcmp(v1, v2, words * 8) == 0);
    mpz_clears(r, a, b, ab, apb, NULL);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* EIP-197's encoding: per pair, G1 x, y then G2 x (imaginary part first), y, each 32 bytes
 * big-endian hex. */
static const char *const eip197_jeff[2] = {
    "1c76476f4def4bb94541d57ebba1193381ffa7aa76ada664dd31c16024c43f593034dd2920f673e204fee2811c678745fc819b55d3e9"
    "d294e45c9b03a76aef41209dd15ebff5d46c4bd888e51a93cf99a7329636c63514396b4a452003a35bf704bf11ca01483bfa8b34b435"
    "61848d28905960114c8ac04049af4b6315a416782bb8324af6cfc93537a2ad1a445cfd0ca2a71acd7ac41fadbf933c2a51be344d120a"
    "2a4cf30c1bf9845f20c6fe39e07ea2cce61f0c9bb048165fe5e4de877550111e129f1cf1097710d41c4ac70fcdfa5ba2023c6ff1cbea"
    "c322de49d1b6df7c2032c61a830e3c17286de9462bf242fca2883585b93870a73853face6a6bf411198e9393920d483a7260bfb731fb"
    "5d25f1aa493335a9e71297e485b7aef312c21800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed090689d0"
    "585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6"
    "cc0166fa7daa",
    "2eca0c7238bf16e83e7a1e6c5d49540685ff51380f309842a98561558019fc0203d3260361bb8451de5ff5ecd17f010ff22f5c31cdf1"
    "84e9020b06fa5997db841213d2149b006137fcfb23036606f848d638d576a120ca981b5b1a5f9300b3ee2276cf730cf493cd95d64677"
    "bbb75fc42db72513a4c1e387b476d056f80aa75f21ee6226d31426322afcda621464d0611d226783262e21bb3bc86b537e986237096d"
    "f1f82dff337dd5972e32a8ad43e28a78a96a823ef1cd4debe12b6552ea5f06967a1237ebfeca9aaae0d6d0bab8e28c198c5a339ef8a2"
    "407e31cdac516db922160fa257a5fd5b280642ff47b65eca77e626cb685c84fa6d3b6882a283ddd1198e9393920d483a7260bfb731fb"
    "5d25f1aa493335a9e71297e485b7aef312c21800deef121f1e76426a00665e5c4479674322d4f75edadd46debd5cd992f6ed090689d0"
    "585ff075ec9e99ad690c3395bc4b313370b38ef355acdadcd122975b12c85ea5db8c6deb4aab71808dcb408fe3d1e7690c43d37b4ce6"
    "cc0166fa7daa",
};

/* Big-endian hex of 32 bytes at hex -> the Montgomery element's interchange bytes at out. */
static void eip197_element(const char *hex, unsigned char *out)
{
    uint64_t limbs[4] = {0, 0, 0, 0};
    bn254_fp fe;
    for (int i = 0; i < 64; i++) {
        char c = hex[i];
        uint64_t d = (uint64_t)(c <= '9' ? c - '0' : c - 'a' + 10);
        int nibble = 63 - i;
        limbs[nibble / 16] |= d << (4 * (nibble % 16));
    }
    ck_assert(bn254_fp_limbs_are_reduced(limbs));
    bn254_fp_to_mont(&fe, limbs);
    bn254_fp_to_mont_bytes(out, &fe);
}

/* _i: jeff1, jeff2 */
START_TEST(eip197_pairing_checks)
{
    unsigned char g1[2][64], g2[2][128];
    const char *in = eip197_jeff[_i];
    for (int k = 0; k < 2; k++) {
        const char *p = in + k * 384;
        eip197_element(p, g1[k]);
        eip197_element(p + 64, g1[k] + 32);
        eip197_element(p + 192, g2[k]);       /* x.c0 (the real part comes second) */
        eip197_element(p + 128, g2[k] + 32);  /* x.c1 */
        eip197_element(p + 320, g2[k] + 64);  /* y.c0 */
        eip197_element(p + 256, g2[k] + 96);  /* y.c1 */
    }
    pairing_pair pairs[2] = {pair(g1[0], g2[0]), pair(g1[1], g2[1])};
    ck_assert_msg(pairing_product_is_one(HPR_CURVE_BN254, pairs, 2) == 1, "jeff%d: the product is not 1", (int)_i + 1);
    ck_assert_msg(pairing_product_is_one(HPR_CURVE_BN254, pairs, 1) == 0, "jeff%d: e(P1, Q1) = 1", (int)_i + 1);
}
END_TEST

/* Every escape of RFC 8259 decodes to its own character (each alone and all in one string),
 * \u in either case of hex digits; an escape of anything else is refused. */
START_TEST(json_reader_decodes_every_escape)
{
    static const struct {
        const char *json, *want;
    } cases[] = {{"\"\\\"\"", "\""},   {"\"\\\\\"", "\\"},   {"\"\\/\"", "/"},      {"\"\\b\"", "\b"},
                 {"\"\\f\"", "\f"},    {"\"\\n\"", "\n"},    {"\"\\r\"", "\r"},     {"\"\\t\"", "\t"},
                 {"\"\\u0041\"", "A"}, {"\"\\u00E9\"", "\xc3\xa9"}, {"\"\\u20ac\"", "\xe2\x82\xac"},
                 {"\"a\\tb\\rc\\nd\\fe\\bf\\\"g\\\\h\\/i\"", "a\tb\rc\nd\fe\bf\"g\\h/i"}};
    char err[200];
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        json_value *v = json_parse(cases[i].json, strlen(cases[i].json), err, sizeof err);
        ck_assert_msg(v != NULL && v->type == JSON_STRING, "%s refused: %s", cases[i].json, err);
        ck_assert_msg(strcmp(v->text, cases[i].want) == 0, "%s decoded wrongly", cases[i].json);
        json_free(v);
    }
    static const char *const bad[] = {"\"\\a\"", "\"\\v\"", "\"\\0\"", "\"\\x41\"", "\"\\u12\"", "\"\\u12g4\""};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++)
        ck_assert_msg(json_parse(bad[i], strlen(bad[i]), err, sizeof err) == NULL, "%s accepted", bad[i]);
}
END_TEST

START_TEST(json_reader_accepts_and_refuses)
{
    char err[200];
    const char *good = " {\"a\": [1, -2.5e3, \"x\\u00e9\\ud83d\\ude00\\n\", true, false, null, {}], \"b\": {\"c\": \"\"}} ";
    json_value *v = json_parse(good, strlen(good), err, sizeof err);
    ck_assert_msg(v != NULL, "%s", err);
    const json_value *a = json_get(v, "a");
    ck_assert(a && a->type == JSON_ARRAY && a->count == 7);
    ck_assert_str_eq(a->items[0].text, "1");
    ck_assert_str_eq(a->items[1].text, "-2.5e3");
    ck_assert_str_eq(a->items[2].text, "x\xc3\xa9\xf0\x9f\x98\x80\n");
    ck_assert(a->items[3].type == JSON_TRUE && a->items[4].type == JSON_FALSE && a->items[5].type == JSON_NULL);
    ck_assert(a->items[6].type == JSON_OBJECT && a->items[6].count == 0);
    ck_assert_str_eq(json_get(json_get(v, "b"), "c")->text, "");
    ck_assert_ptr_null(json_get(v, "z"));
    json_free(v);
    const char *bad[] = {"", "{", "[1,]", "[1 2]", "{\"a\" 1}", "{a: 1}", "\"abc", "\"\\q\"", "01", "-", "1.",
                         "[1] x", "\"\\ud800\"", "\"\x01\"", "tru", "{\"a\": [}", "1e",
                         "\"a\\u0000b\"", "{\"a\": 1, \"b\": 2, \"a\": 1}", "[{\"k\": {\"x\": 1, \"x\": 2}}]"};
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        err[0] = '\0';
        v = json_parse(bad[i], strlen(bad[i]), err, sizeof err);
        ck_assert_msg(v == NULL && strstr(err, "byte") != NULL, "'%s' accepted (or no reason: %s)", bad[i], err);
    }
    char deep[300];
    memset(deep, '[', 100);
    memset(deep + 100, ']', 100);
    ck_assert_ptr_null(json_parse(deep, 200, err, sizeof err));
    ck_assert_ptr_nonnull(strstr(err, "nested"));
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("pairing");
    TCase *tc = tcase_create("pairing");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, pairing_is_bilinear_and_nondegenerate, 0, 2);
    tcase_add_loop_test(tc, eip197_pairing_checks, 0, 2);
    tcase_add_test(tc, json_reader_accepts_and_refuses);
    tcase_add_test(tc, json_reader_decodes_every_escape);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
