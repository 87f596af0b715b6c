/*
 * test_zkey.c: the strict .zkey and .wtns readers (host/groth16/zkey.h) on the snarkjs fixtures
 * (tests/fixtures) and on malformed copies of them: truncated at every offset up to 8 KiB and
 * every 97th beyond (copies of exactly the truncated length up to 16 KiB), wrong magic, version and protocol, sizes that
 * disagree with the header counts, counts that would overflow, repeated sections, trailing
 * bytes, coefficient entries out of range, witnesses of another curve, length or value
 * range. Each must be a clear error (never a crash: the suite runs under ASan and UBSan).
 * Then the prover's H scalars (host/groth16/groth16_h.c) against snarkjs's reference values.
 */
#include "test_support.h"

#include "host/core/decimal.h"
#include "host/groth16/groth16_h.h"
#include "host/groth16/zkey.h"

#include <string.h>

static void put_u32(unsigned char *p, uint32_t v)
{
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint32_t get_u32(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Offset of section id's record header (the u32 id) in a container, or 0. */
static size_t record_of(const file_buf *f, uint32_t id)
{
    size_t off = 12;
    for (uint32_t i = 0; i < get_u32(f->data + 8); i++) {
        if (get_u32(f->data + off) == id)
            return off;
        off += 12 + (size_t)(get_u32(f->data + off + 4) | (uint64_t)get_u32(f->data + off + 8) << 32);
    }
    return 0;
}

static const char *fixtures[] = {"edge_pub", "edge_nopub", "bn128_2e10", "bls12381_2e12"};

/* _i = fixture: both files parse, and the counts agree with each other and FORMATS.md. */
START_TEST(fixtures_parse)
{
    hpr_ctx *ctx;
    zkey_file zk;
    wtns_data w;
    char path[1024];
    ck_assert_int_eq(hpr_ctx_create(NULL, &ctx), HPR_OK);
    fixture_path(path, sizeof path, fixtures[_i], "circuit.zkey");
    ck_assert_msg(zkey_open(ctx, path, &zk) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(zk.curve, strncmp(fixtures[_i], "bls", 3) == 0 ? HPR_CURVE_BLS12_381 : HPR_CURVE_BN254);
    ck_assert_uint_eq(zk.n8r, 32);
    ck_assert(zk.n_public < zk.n_vars && zk.domain_size >= zk.n_public + 1);
    file_buf wt = read_fixture(fixtures[_i], "witness.wtns");
    ck_assert_msg(wtns_parse(ctx, wt.data, wt.len, "witness.wtns", &zk, &w) == HPR_OK, "%s",
                  hpr_ctx_error_detail(ctx));
    ck_assert_uint_eq(w.n_values, zk.n_vars);
    ck_assert(w.values[0] == 1); /* w[0] = 1 */
    wtns_free(&w);
    zkey_close(&zk);
    free(wt.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

static void expect_refused(hpr_ctx *ctx, const unsigned char *d, size_t len, const char *what, const char *needle)
{
    zkey_file zk;
    hpr_status st = zkey_parse(ctx, d, len, "bad.zkey", &zk);
    ck_assert_msg(st == HPR_ERR_FORMAT || st == HPR_ERR_UNSUPPORTED_CURVE, "%s: accepted (status %d)", what, (int)st);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "bad.zkey") != NULL, "%s: detail '%s' does not name the file",
                  what, hpr_ctx_error_detail(ctx));
    if (needle)
        ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), needle) != NULL, "%s: detail '%s' lacks '%s'", what,
                      hpr_ctx_error_detail(ctx), needle);
}

/* _i = fixture: truncation at every offset (every 97th byte beyond 8 KiB) is refused. */
START_TEST(truncated_zkeys_are_refused)
{
    hpr_ctx *ctx;
    file_buf z = read_fixture(fixtures[_i], "circuit.zkey");
    ck_assert_int_eq(hpr_ctx_create(NULL, &ctx), HPR_OK);
    for (size_t len = 0; len < z.len; len += len < 8192 ? 1 : 97) {
        /* up to 16 KiB a copy of exactly len bytes, so that ASan sees any read past len */
        unsigned char *copy = len <= 16384 ? malloc(len ? len : 1) : NULL;
        char what[64];
        if (copy)
            memcpy(copy, z.data, len);
        snprintf(what, sizeof what, "truncated at %zu of %zu", len, z.len);
        expect_refused(ctx, copy ? copy : z.data, len, what, NULL);
        free(copy);
    }
    free(z.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(malformed_zkeys_are_refused)
{
    hpr_ctx *ctx;
    file_buf z = read_fixture("bn128_2e10", "circuit.zkey");
    unsigned char *d = malloc(z.len + 8);
    ck_assert_int_eq(hpr_ctx_create(NULL, &ctx), HPR_OK);
    size_t s1 = record_of(&z, 1), s2 = record_of(&z, 2), s4 = record_of(&z, 4), s10 = record_of(&z, 10);
    ck_assert(s1 && s2 && s4 && s10);
#define MUTATE(stmt, what, needle)                                                                   \
    do {                                                                                             \
        memcpy(d, z.data, z.len);                                                                    \
        stmt;                                                                                        \
        expect_refused(ctx, d, z.len, what, needle);                                                 \
    } while (0)
    MUTATE(memcpy(d, "wtns", 4), "magic", "magic");
    MUTATE(put_u32(d + 4, 2), "version", "version 2");
    MUTATE(put_u32(d + 8, 65), "section count", "sections");
    MUTATE(put_u32(d + s1 + 12, 2), "PLONK protocol", "not Groth16");
    MUTATE(put_u32(d + s2 + 12, 40), "n8q", "40 bytes");
    MUTATE(d[s2 + 12 + 4] ^= 1, "another base prime", "neither");
    size_t counts = s2 + 12 + 4 + 32 + 4 + 32;
    MUTATE(put_u32(d + counts, get_u32(d + counts) + 1), "nVars + 1", "section 5");
    MUTATE(put_u32(d + counts + 4, get_u32(d + counts) + 5), "nPublic >= nVars", "nPublic");
    MUTATE(put_u32(d + counts + 8, 1000), "domainSize not a power of two", "domainSize");
    MUTATE(put_u32(d + counts + 8, 0x80000000u), "domainSize beyond the two-adicity", "domainSize");
    MUTATE(put_u32(d + s4 + 12, 0xffffffffu), "nCoef overflow", "nCoef");
    MUTATE(put_u32(d + s4 + 12 + 4, 2), "coefficient matrix 2", "coefficient 0");
    MUTATE(put_u32(d + s4 + 12 + 4 + 8, 0xffffffu), "coefficient signal", "coefficient 0");
    MUTATE(memset(d + s4 + 12 + 4 + 12, 0xff, 32), "coefficient value >= r", "coefficient 0");
    MUTATE(put_u32(d + s10, 3), "section 3 twice", "twice");
    MUTATE(put_u32(d + s2 + 4, get_u32(d + s2 + 4) + 1), "section 2 size", NULL);
    MUTATE(put_u32(d + s1, 11), "section 1 missing", "section 1 is missing");
    memcpy(d, z.data, z.len);
    memset(d + z.len, 0, 8);
    expect_refused(ctx, d, z.len + 8, "trailing bytes", "follow the last section");
#undef MUTATE
    free(d);
    free(z.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* Refused with status want, the detail naming the file and needle. */
static void expect_wtns_status(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *d, size_t len, hpr_status want,
                               const char *what, const char *needle)
{
    wtns_data w;
    hpr_status st = wtns_parse(ctx, d, len, "bad.wtns", zk, &w);
    ck_assert_msg(st == want, "%s: status %d, expected %d", what, (int)st, (int)want);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "bad.wtns") && strstr(hpr_ctx_error_detail(ctx), needle),
                  "%s: detail '%s' lacks '%s'", what, hpr_ctx_error_detail(ctx), needle);
}

static void expect_wtns_refused(hpr_ctx *ctx, const zkey_file *zk, const unsigned char *d, size_t len, const char *what,
                                const char *needle)
{
    expect_wtns_status(ctx, zk, d, len, HPR_ERR_FORMAT, what, needle);
}

START_TEST(malformed_witnesses_are_refused)
{
    hpr_ctx *ctx;
    zkey_file bn, bls;
    file_buf zb = read_fixture("bn128_2e10", "circuit.zkey"), zl = read_fixture("bls12381_2e12", "circuit.zkey");
    file_buf w = read_fixture("bn128_2e10", "witness.wtns"), wl = read_fixture("bls12381_2e12", "witness.wtns");
    unsigned char *d = malloc(w.len);
    ck_assert_int_eq(hpr_ctx_create(NULL, &ctx), HPR_OK);
    ck_assert_int_eq(zkey_parse(ctx, zb.data, zb.len, "bn.zkey", &bn), HPR_OK);
    ck_assert_int_eq(zkey_parse(ctx, zl.data, zl.len, "bls.zkey", &bls), HPR_OK);
    expect_wtns_refused(ctx, &bls, w.data, w.len, "a BN254 witness for a BLS12-381 zkey", "prime");
    expect_wtns_refused(ctx, &bn, wl.data, wl.len, "a BLS12-381 witness for a BN254 zkey", "prime");
    for (size_t len = 0; len < w.len; len += len < 512 ? 1 : 61)
        expect_wtns_refused(ctx, &bn, w.data, len, "truncated witness", "bad.wtns");
    size_t s1 = record_of(&w, 1), s2 = record_of(&w, 2);
    memcpy(d, w.data, w.len);
    put_u32(d + s1 + 12 + 4 + 32, get_u32(d + s1 + 12 + 4 + 32) - 1);
    expect_wtns_status(ctx, &bn, d, w.len, HPR_ERR_WITNESS_LENGTH, "one value short", "witness values");
    memcpy(d, w.data, w.len);
    memset(d + s2 + 12 + 32 * 3, 0xff, 32);
    expect_wtns_refused(ctx, &bn, d, w.len, "a value >= r", "witness value 3");
    memcpy(d, w.data, w.len);
    memcpy(d, "zkey", 4);
    expect_wtns_refused(ctx, &bn, d, w.len, "magic", "magic");
    free(d);
    free(zb.data);
    free(zl.data);
    free(w.data);
    free(wl.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(missing_and_odd_files_are_io_errors)
{
    hpr_ctx *ctx;
    zkey_file zk;
    ck_assert_int_eq(hpr_ctx_create(NULL, &ctx), HPR_OK);
    ck_assert_int_eq(zkey_open(ctx, "/nonexistent/circuit.zkey", &zk), HPR_ERR_IO);
    ck_assert(strstr(hpr_ctx_error_detail(ctx), "/nonexistent/circuit.zkey") != NULL);
    ck_assert_int_eq(zkey_open(ctx, "/", &zk), HPR_ERR_IO);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i = fixture: the H scalars (witness -> a, b, c -> inverse NTT -> coset NTT -> a*b - c)
 * equal snarkjs's: the first eight one by one, and all of them through the H MSM. */
START_TEST(h_scalars_match_snarkjs)
{
    hpr_ctx *ctx;
    zkey_file zk;
    wtns_data w;
    file_buf z = read_fixture(fixtures[_i], "circuit.zkey"), wt = read_fixture(fixtures[_i], "witness.wtns");
    char *json = read_fixture_text(fixtures[_i], "reference_r0s0.json"), dec[200], want_x[200], want_y[200];
    ck_assert_int_eq(hpr_ctx_create(NULL, &ctx), HPR_OK);
    ck_assert_int_eq(zkey_parse(ctx, z.data, z.len, "circuit.zkey", &zk), HPR_OK);
    ck_assert_int_eq(wtns_parse(ctx, wt.data, wt.len, "witness.wtns", &zk, &w), HPR_OK);
    unsigned char *h = malloc((size_t)zk.domain_size * 32), got[96], want[96];
    ck_assert_msg(g16_h(ctx, &zk, w.values, h, NULL) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
    for (unsigned i = 0; i < 8 && i < zk.domain_size; i++) {
        uint64_t limbs[4];
        memcpy(limbs, h + i * 32, 32);
        dec_from_limbs(dec, limbs, 4);
        reference_string(json, "h_scalars_first8", i, want_x);
        ck_assert_msg(strcmp(dec, want_x) == 0, "%s h[%u] = %s, snarkjs %s", fixtures[_i], i, dec, want_x);
    }
    ck_assert_int_eq(hpr_msm(ctx, zk.curve, HPR_G1, zk.h, h, zk.domain_size, got), HPR_OK);
    reference_string(json, "msm_H", 0, want_x);
    reference_string(json, "msm_H", 1, want_y);
    ck_assert_int_eq(hpr_point_from_decimal(zk.curve, HPR_G1, want_x, want_y, "1", want), HPR_OK);
    ck_assert_msg(memcmp(got, want, 2 * zk.n8q) == 0, "%s: the H MSM over our scalars differs from snarkjs's",
                  fixtures[_i]);
    free(h);
    free(json);
    wtns_free(&w);
    free(z.data);
    free(wt.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("zkey");
    TCase *tc = tcase_create("zkey");
    tcase_set_timeout(tc, 600);
    tcase_add_loop_test(tc, fixtures_parse, 0, 4);
    tcase_add_loop_test(tc, truncated_zkeys_are_refused, 0, 4);
    tcase_add_test(tc, malformed_zkeys_are_refused);
    tcase_add_test(tc, malformed_witnesses_are_refused);
    tcase_add_test(tc, missing_and_odd_files_are_io_errors);
    tcase_add_loop_test(tc, h_scalars_match_snarkjs, 0, 4);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
