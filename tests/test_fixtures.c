/*
 * test_fixtures.c: known answers from snarkjs. For each fixture in tests/fixtures (copied from
 * shared/fixtures), the G1 MSMs of the .zkey sections A, B1 and C with the .wtns witness must
 * equal the msm_A, msm_B1 and msm_C values that snarkjs computed (reference_r0s0.json).
 * The container is read through its section table, as FORMATS.md prescribes.
 */
#include "test_support.h"

#include "hyprove.h"

#include <string.h>

static const char *fixture_names[] = {"edge_pub", "edge_nopub", "bn128_2e10", "bls12381_2e12"};

static uint32_t u32le(const unsigned char *p)
{
    return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}

/* Payload of section id through the binfile section table; asserts it exists. */
static const unsigned char *section(const file_buf *f, uint32_t id, uint64_t *size)
{
    size_t off = 12;
    uint32_t n = u32le(f->data + 8);
    for (uint32_t i = 0; i < n; i++) {
        ck_assert(off + 12 <= f->len);
        uint32_t sid = u32le(f->data + off);
        uint64_t sz = u32le(f->data + off + 4) | (uint64_t)u32le(f->data + off + 8) << 32;
        ck_assert(off + 12 + sz <= f->len);
        if (sid == id) {
            *size = sz;
            return f->data + off + 12;
        }
        off += 12 + (size_t)sz;
    }
    ck_abort_msg("section %u not found", id);
    return NULL;
}

static void check_section_msm(hpr_ctx *ctx, const char *fixture, hpr_curve curve, const file_buf *zkey,
                              const char *json, uint32_t id, const char *key, const unsigned char *scalars,
                              size_t n)
{
    uint64_t size;
    size_t ps = hpr_point_size(curve, HPR_G1);
    const unsigned char *points = section(zkey, id, &size);
    unsigned char got[96], want[96];
    char x[200], y[200];
    ck_assert_msg(size == n * ps, "%s section %u: %llu bytes for %zu points", fixture, id, (unsigned long long)size, n);
    hpr_status st = hpr_msm(ctx, curve, HPR_G1, points, scalars, n, got);
    ck_assert_msg(st == HPR_OK, "%s %s: %s (%s)", fixture, key, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    reference_string(json, key, 0, x); /* "key": ["x", "y"] */
    reference_string(json, key, 1, y);
    ck_assert_int_eq(hpr_point_from_decimal(curve, HPR_G1, x, y, "1", want), HPR_OK);
    ck_assert_msg(memcmp(got, want, ps) == 0, "%s %s differs from snarkjs", fixture, key);
}

START_TEST(zkey_msms_match_snarkjs)
{
    const char *fixture = fixture_names[_i];
    file_buf zkey = read_fixture(fixture, "circuit.zkey"), wtns = read_fixture(fixture, "witness.wtns");
    char *json = read_fixture_text(fixture, "reference_r0s0.json");
    uint64_t hsize, wsize;
    hpr_ctx *ctx = NULL;
    ck_assert(memcmp(zkey.data, "zkey", 4) == 0 && memcmp(wtns.data, "wtns", 4) == 0);
    const unsigned char *h = section(&zkey, 2, &hsize);
    uint32_t n8q = u32le(h);
    hpr_curve curve = n8q == 32 ? HPR_CURVE_BN254 : HPR_CURVE_BLS12_381;
    const unsigned char *h2 = h + 4 + n8q;
    uint32_t n8r = u32le(h2);
    uint32_t nvars = u32le(h2 + 4 + n8r), npublic = u32le(h2 + 8 + n8r);
    const unsigned char *w = section(&wtns, 2, &wsize);
    ck_assert_uint_eq(wsize, (uint64_t)nvars * 32);
    ck_assert_int_eq(hpr_ctx_create(NULL, &ctx), HPR_OK);
    check_section_msm(ctx, fixture, curve, &zkey, json, 5, "msm_A", w, nvars);
    check_section_msm(ctx, fixture, curve, &zkey, json, 6, "msm_B1", w, nvars);
    check_section_msm(ctx, fixture, curve, &zkey, json, 8, "msm_C", w + 32 * (npublic + 1), nvars - npublic - 1);
    hpr_ctx_destroy(ctx);
    free(zkey.data);
    free(wtns.data);
    free(json);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("fixtures");
    TCase *tc = tcase_create("snarkjs");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, zkey_msms_match_snarkjs, 0, sizeof fixture_names / sizeof fixture_names[0]);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
