/*
 * test_setup.c: the development setup's parts without snarkjs (groth16_setup_test.py runs the
 * real snarkjs against the CLI):
 *   - hpr_fixed_base_mul against double-and-add (arith's jac_mul_var) on both curves and
 *     groups, for seeded random scalars and the digits' edges (0, 1, 2^k - 1, 2^k, r - 1, ...),
 *     from the generator and from another base, over more than one block, on 1 thread and on
 *     2 threads with every CPU tier that runs here (each tier's fixed_base_sums kernel);
 *     its refusals (a scalar >= r, a base off the curve, NULL) and infinity as the base;
 *   - hpr_groth16_verification_key_json of every fixture's zkey equals snarkjs's own
 *     verification_key.json byte for byte (vk_alphabeta_12 included);
 *   - hpr_groth16_setup into memory: the key proves the fixture's witness with a proof that
 *     hpr_groth16_verify accepts, and rejects the proof of a witness that does not satisfy the
 *     circuit; the same seed gives the same bytes; refused without HPR_SETUP_INSECURE_DEV; a
 *     writer that fails is HPR_ERR_IO.
 */
#include "test_support.h"

#include "host/groth16/groth16.h"

#include "arith/curves.h"

#include <string.h>

static const char *fixtures[] = {"edge_pub", "edge_nopub", "bn128_2e10", "bls12381_2e12"};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])
#define N_MUL 600 /* more than two of fixed_base.c's blocks */

/* k * base by double-and-add, as interchange bytes. */
static void naive_mul(hpr_curve curve, hpr_group group, const unsigned char *base, const uint64_t *k,
                      unsigned char *out)
{
#define NAIVE(EC)                                                                                                  \
    do {                                                                                                           \
        EC##_affine b;                                                                                             \
        EC##_jac j;                                                                                                \
        memcpy(&b, base, sizeof b);                                                                                \
        EC##_jac_mul_var(&j, &b, k);                                                                               \
        EC##_jac_to_affine(&b, &j);                                                                                \
        EC##_affine_to_mont_bytes(out, &b);                                                                        \
    } while (0)
    if (curve == HPR_CURVE_BN254 && group == HPR_G1)
        NAIVE(bn254_g1);
    else if (curve == HPR_CURVE_BN254)
        NAIVE(bn254_g2);
    else if (group == HPR_G1)
        NAIVE(bls12_381_g1);
    else
        NAIVE(bls12_381_g2);
#undef NAIVE
}

/* Scalars: the edges of the signed digits first, then seeded random ones below r. */
static void make_scalars(unsigned char *s, size_t n, const uint64_t *order, test_rng *rng)
{
    size_t i = 0;
    uint64_t k[4];
    memset(s, 0, 32 * n);
    for (unsigned bit = 0; bit < 253 && i + 3 < n; bit += 7) { /* 2^b - 1, 2^b, 2^b + 1 around windows */
        memset(k, 0, sizeof k);
        k[bit / 64] = (uint64_t)1 << (bit % 64);
        memcpy(s + 32 * i++, k, 32);
        uint64_t borrow = 1;
        for (int l = 0; l < 4; l++) { /* 2^b - 1 */
            uint64_t v = k[l] - borrow;
            borrow = k[l] < borrow;
            k[l] = v;
        }
        memcpy(s + 32 * i++, k, 32);
        for (int l = 0; l < 4; l++) /* every other bit below 2^b + 1 */
            k[l] &= 0x5555555555555555ull;
        memcpy(s + 32 * i++, k, 32);
    }
    memcpy(k, order, 32);
    k[0] -= 1; /* r - 1 */
    memcpy(s + 32 * i++, k, 32);
    k[0] -= 1; /* r - 2 */
    memcpy(s + 32 * i++, k, 32);
    i++; /* 0 */
    for (; i < n; i++) {
        do {
            for (int l = 0; l < 4; l++)
                k[l] = test_rng_next(rng);
            k[3] &= ((uint64_t)1 << (64 - __builtin_clzll(order[3]))) - 1; /* order[3] < 2^63 here */
        } while (k[3] > order[3] || (k[3] == order[3] && k[2] >= order[2]));
        memcpy(s + 32 * i, k, 32);
    }
}

/* _i: curve (2) x group (2) x base (generator, another point) */
START_TEST(fixed_base_matches_double_and_add)
{
    hpr_curve curve = (_i & 1) ? HPR_CURVE_BLS12_381 : HPR_CURVE_BN254;
    hpr_group group = (_i & 2) ? HPR_G2 : HPR_G1;
    int other = (_i & 4) != 0;
    size_t ps = hpr_point_size(curve, group);
    unsigned char *base = malloc(2 * ps), *scalars = malloc(32 * N_MUL), *out1 = malloc(N_MUL * ps),
                  *out2 = malloc(N_MUL * ps), want[192];
    uint64_t order[4];
    test_rng rng;
    hpr_ctx *one = test_ctx("cpu", 1);
    test_rng_init(&rng, 700 + (uint64_t)_i);
    /* the order: r - 1 written by the library's own random scalars is not needed; read it from
     * the curve's constants */
    if (curve == HPR_CURVE_BN254)
        memcpy(order, (const uint64_t[4])BN254_G1_ORDER, 32);
    else
        memcpy(order, (const uint64_t[4])BLS12_381_G1_ORDER, 32);
    if (other)
        ck_assert_int_eq(hpr_random_msm_inputs(one, curve, group, 2, test_seed + 5, base, NULL), HPR_OK);
    else if (curve == HPR_CURVE_BN254 && group == HPR_G1) {
        bn254_g1_affine g;
        bn254_g1_affine_generator(&g);
        memcpy(base, &g, ps);
    } else if (curve == HPR_CURVE_BN254) {
        bn254_g2_affine g;
        bn254_g2_affine_generator(&g);
        memcpy(base, &g, ps);
    } else if (group == HPR_G1) {
        bls12_381_g1_affine g;
        bls12_381_g1_affine_generator(&g);
        memcpy(base, &g, ps);
    } else {
        bls12_381_g2_affine g;
        bls12_381_g2_affine_generator(&g);
        memcpy(base, &g, ps);
    }
    make_scalars(scalars, N_MUL, order, &rng);
    ck_assert_int_eq(hpr_fixed_base_mul(one, curve, group, base, scalars, N_MUL, out1), HPR_OK);
    for (unsigned t = 0; t < hpr_cpu_tier_count(); t++) { /* every tier's kernel, on 2 threads */
        if (!test_tier_runs(t))
            continue;
        hpr_ctx *two = test_cpu_ctx(hpr_cpu_tier_name(t), 2, 0);
        memset(out2, 0xa5, N_MUL * ps);
        ck_assert_int_eq(hpr_fixed_base_mul(two, curve, group, base, scalars, N_MUL, out2), HPR_OK);
        assert_seeded(memcmp(out1, out2, N_MUL * ps) == 0, "curve %d group %d: tier %s on 2 threads differs from "
                      "the default tier on 1", (int)curve, (int)group, hpr_cpu_tier_name(t));
        hpr_ctx_destroy(two);
    }
    for (size_t i = 0; i < N_MUL; i++) {
        uint64_t k[4];
        memcpy(k, scalars + 32 * i, 32);
        naive_mul(curve, group, base, k, want);
        assert_seeded(memcmp(out1 + i * ps, want, ps) == 0,
                      "curve %d group %d base %d: multiple %zu (scalar %016llx...%016llx) differs from double-and-add",
                      (int)curve, (int)group, other, i, (unsigned long long)k[3], (unsigned long long)k[0]);
    }
    hpr_ctx_destroy(one);
    free(base);
    free(scalars);
    free(out1);
    free(out2);
}
END_TEST

START_TEST(fixed_base_refuses_bad_input)
{
    hpr_ctx *ctx = test_ctx("cpu", 1);
    unsigned char base[64], scalars[4 * 32], out[4 * 64];
    static const unsigned char zero[4 * 64];
    const uint64_t r[4] = BN254_G1_ORDER;
    bn254_g1_affine g;
    bn254_g1_affine_generator(&g);
    memcpy(base, &g, 64);
    memset(scalars, 0, sizeof scalars);
    scalars[0] = 5;
    memcpy(scalars + 3 * 32, r, 32); /* scalar 3 = r */
    ck_assert_int_eq(hpr_fixed_base_mul(ctx, HPR_CURVE_BN254, HPR_G1, base, scalars, 4, out),
                     HPR_ERR_SCALAR_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "scalar 3") != NULL, "%s", hpr_ctx_error_detail(ctx));
    memset(scalars + 3 * 32, 0, 32);
    base[40] ^= 1; /* y changed: off the curve */
    ck_assert_int_eq(hpr_fixed_base_mul(ctx, HPR_CURVE_BN254, HPR_G1, base, scalars, 4, out),
                     HPR_ERR_POINT_NOT_ON_CURVE);
    memset(base, 0, sizeof base); /* infinity: every multiple is infinity */
    memset(out, 0xaa, sizeof out);
    ck_assert_int_eq(hpr_fixed_base_mul(ctx, HPR_CURVE_BN254, HPR_G1, base, scalars, 4, out), HPR_OK);
    ck_assert(memcmp(out, zero, sizeof out) == 0);
    ck_assert_int_eq(hpr_fixed_base_mul(ctx, HPR_CURVE_BN254, HPR_G1, NULL, scalars, 4, out),
                     HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_fixed_base_mul(ctx, (hpr_curve)77, HPR_G1, base, scalars, 4, out),
                     HPR_ERR_UNSUPPORTED_CURVE);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i: fixture */
START_TEST(verification_key_equals_snarkjs)
{
    const char *fixture = fixtures[_i];
    hpr_ctx *ctx = test_ctx("cpu", 1);
    hpr_groth16_prover *p = test_open_prover(ctx, fixture);
    char *want = read_fixture_text(fixture, "verification_key.json"), *vk = NULL;
    ck_assert_int_eq(hpr_groth16_verification_key_json(ctx, p, &vk), HPR_OK);
    ck_assert_msg(strcmp(vk, want) == 0, "%s: the verification key differs from snarkjs's:\n%s", fixture, vk);
    free(vk);
    ck_assert_int_eq(hpr_groth16_verification_key_json(ctx, NULL, &vk), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(vk);
    free(want);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
}
END_TEST

typedef struct {
    unsigned char *data;
    size_t len, cap, fail_after;
} mem_writer;

static int write_mem(void *user, const void *bytes, size_t len)
{
    mem_writer *w = user;
    if (w->fail_after && w->len + len > w->fail_after)
        return -1;
    if (w->len + len > w->cap) {
        w->cap = 2 * (w->len + len);
        w->data = realloc(w->data, w->cap);
        ck_assert_ptr_nonnull(w->data);
    }
    memcpy(w->data + w->len, bytes, len);
    w->len += len;
    return 0;
}

/* A proof of the witness under the key in w: HPR_OK when it verifies, else the status. */
static hpr_status prove_and_verify(hpr_ctx *ctx, const mem_writer *w, const file_buf *wtns)
{
    hpr_groth16_prover *p = NULL;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    ck_assert_msg(hpr_groth16_prover_create_from_buffer(ctx, w->data, w->len, &p) == HPR_OK, "%s",
                  hpr_ctx_error_detail(ctx));
    ck_assert_msg(hpr_groth16_prove(ctx, p, wtns->data, wtns->len, &proof) == HPR_OK, "%s",
                  hpr_ctx_error_detail(ctx));
    hpr_status st = hpr_groth16_verify(ctx, p, &proof);
    hpr_groth16_proof_clear(&proof);
    hpr_groth16_prover_destroy(p);
    return st;
}

/* _i: fixture */
START_TEST(setup_in_memory_proves_and_rejects)
{
    const char *fixture = fixtures[_i];
    char r1cs[1024], *vk = NULL, *vk2 = NULL;
    hpr_ctx *ctx = test_ctx("cpu", 2);
    mem_writer w = {0}, again = {0}, failing = {0};
    file_buf wtns = read_fixture(fixture, "witness.wtns");
    fixture_path(r1cs, sizeof r1cs, fixture, "circuit.r1cs");
    ck_assert_int_eq(hpr_groth16_setup(ctx, r1cs, 0, "s", write_mem, &w, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "HPR_SETUP_INSECURE_DEV") != NULL, "%s",
                  hpr_ctx_error_detail(ctx));
    ck_assert_uint_eq(w.len, 0);
    ck_assert_msg(hpr_groth16_setup(ctx, r1cs, HPR_SETUP_INSECURE_DEV, "test", write_mem, &w, &vk) == HPR_OK, "%s",
                  hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_setup(ctx, r1cs, HPR_SETUP_INSECURE_DEV, "test", write_mem, &again, &vk2), HPR_OK);
    ck_assert_msg(w.len == again.len && memcmp(w.data, again.data, w.len) == 0 && strcmp(vk, vk2) == 0,
                  "%s: the same seed gave other bytes", fixture);
    ck_assert_msg(prove_and_verify(ctx, &w, &wtns) == HPR_OK, "%s: the setup's key gives a proof that does not verify: %s",
                  fixture, hpr_ctx_error_detail(ctx));
    /* the first private signal changed (v - 1, or 1 for 0): the circuit no longer holds */
    size_t dom, vars, pub;
    hpr_curve curve;
    ck_assert_int_eq(hpr_groth16_zkey_sizes(ctx, w.data, w.len, &curve, &dom, &vars, &pub), HPR_OK);
    unsigned char *v = wtns.data + wtns.len - 32 * (vars - (pub + 1));
    int zero = 1;
    for (int b = 0; b < 32; b++)
        zero &= v[b] == 0;
    for (int b = 0; b < 32 && !zero; b++)
        if (v[b]--) /* borrow only through zero bytes */
            break;
    if (zero)
        v[0] = 1;
    ck_assert_msg(prove_and_verify(ctx, &w, &wtns) == HPR_ERR_PROOF_INVALID,
                  "%s: an unsatisfying witness gave a proof that verifies", fixture);
    failing.fail_after = w.len / 2;
    ck_assert_int_eq(hpr_groth16_setup(ctx, r1cs, HPR_SETUP_INSECURE_DEV, "test", write_mem, &failing, NULL),
                     HPR_ERR_IO);
    free(w.data);
    free(again.data);
    free(failing.data);
    free(vk);
    free(vk2);
    free(wtns.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("setup");
    TCase *tc = tcase_create("setup");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, fixed_base_matches_double_and_add, 0, 8);
    tcase_add_test(tc, fixed_base_refuses_bad_input);
    tcase_add_loop_test(tc, verification_key_equals_snarkjs, 0, NFIXTURES);
    tcase_add_loop_test(tc, setup_in_memory_proves_and_rejects, 0, NFIXTURES);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
