/*
 * test_groth16.c: the Groth16 prover against snarkjs on every fixture in tests/fixtures:
 * with r = s = 0 the proof JSON equals snarkjs's proof_r0s0.json byte for byte and
 * public.json equals snarkjs's; on 1 and 2 threads and every CPU tier; random proofs differ
 * from one another and from the r = s = 0 proof but keep the publics; one prover serves
 * several threads at once; bad witnesses and bad arguments are refused with a clear error,
 * a witness whose w[0] is not 1 too (from a buffer and from a file), and a key whose fixed
 * points (alpha1, beta1, delta1, beta2, gamma2, delta2) are infinity, out of range, off the
 * curve or outside the subgroup when its prover is made; the coefficient entries reversed
 * (unsorted rows) prove the same as snarkjs's sorted ones.
 * (That snarkjs's verifier accepts random proofs, and rejects the proof of a corrupted
 * witness, is tests/cli/groth16_verify.py: it runs the real snarkjs.)
 */
#define _POSIX_C_SOURCE 200809L /* mkstemp */
#include "test_support.h"

#include "host/groth16/groth16.h"

#include <pthread.h>
#include <string.h>
#include <unistd.h>

static const char *fixtures[] = {"edge_pub", "edge_nopub", "bn128_2e10", "bls12381_2e12"};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])

/* The r = s = 0 proof of the fixture's witness, as JSON, compared with snarkjs's files. */
static void expect_r0s0(hpr_ctx *ctx, const hpr_groth16_prover *p, const char *fixture, const char *what)
{
    static const unsigned char zero[32];
    file_buf wt = read_fixture(fixture, "witness.wtns");
    char *want_proof = read_fixture_text(fixture, "proof_r0s0.json");
    char *want_public = read_fixture_text(fixture, "public.json");
    char *proof_json, *public_json;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    wtns_data w;
    ck_assert_int_eq(wtns_parse(ctx, wt.data, wt.len, fixture, g16_prover_zkey(p), &w), HPR_OK);
    hpr_status st = g16_prove_values(ctx, p, w.values, zero, zero, &proof);
    ck_assert_msg(st == HPR_OK, "%s %s: %s (%s)", fixture, what, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, &proof_json, &public_json), HPR_OK);
    ck_assert_msg(strcmp(proof_json, want_proof) == 0, "%s %s: proof differs from proof_r0s0.json:\n%s", fixture, what,
                  proof_json);
    ck_assert_msg(strcmp(public_json, want_public) == 0, "%s %s: public differs:\n%s", fixture, what, public_json);
    free(proof_json);
    free(public_json);
    hpr_groth16_proof_clear(&proof);
    wtns_free(&w);
    free(wt.data);
    free(want_proof);
    free(want_public);
}

/* _i: fixture */
START_TEST(r0s0_proof_equals_snarkjs)
{
    static const char *tiers[] = {"portable", "adx", "avx512"};
    const char *fixture = fixtures[_i];
    for (unsigned t = 0; t < 3; t++) {
        if (hpr_cpu_tier_check(tiers[t], NULL) != HPR_OK)
            continue;
        for (unsigned threads = 1; threads <= 2; threads++) {
            char what[64];
            hpr_ctx *ctx = test_cpu_ctx(tiers[t], threads, 0);
            hpr_groth16_prover *p = test_open_prover(ctx, fixture);
            snprintf(what, sizeof what, "%s, %u thread(s)", tiers[t], threads);
            ck_assert_uint_eq(g16_prover_validated(p), 0);
            expect_r0s0(ctx, p, fixture, what);
            /* the first proof validated every section; the second uses them unchecked (the
             * zkey's unaligned sections: copied as they are instead of decoded) */
            ck_assert_msg(g16_prover_validated(p) == (1u << G16_MSMS) - 1, "%s %s: sections validated: %#x", fixture,
                          what, g16_prover_validated(p));
            snprintf(what, sizeof what, "%s, %u thread(s), validated sections", tiers[t], threads);
            expect_r0s0(ctx, p, fixture, what);
            hpr_groth16_prover_destroy(p);
            hpr_ctx_destroy(ctx);
        }
    }
}
END_TEST

/* Random blinding: two proofs of one witness differ (and differ from r = s = 0), the publics
 * are the witness's, the report covers every phase. _i: fixture */
START_TEST(random_proofs_are_blinded)
{
    const char *fixture = fixtures[_i];
    char path[1024];
    char *want_public = read_fixture_text(fixture, "public.json");
    char *r0s0 = read_fixture_text(fixture, "proof_r0s0.json");
    hpr_ctx *ctx = test_cpu_ctx(NULL, 2, 0);
    hpr_groth16_prover *p = test_open_prover(ctx, fixture);
    hpr_groth16_report reps[2] = {{.struct_size = sizeof reps[0]}, {.struct_size = sizeof reps[1]}};
    hpr_groth16_proof proofs[2] = {{.struct_size = sizeof proofs[0], .report = &reps[0]},
                                   {.struct_size = sizeof proofs[1], .report = &reps[1]}};
    char *pj[2], *uj[2];
    fixture_path(path, sizeof path, fixture, "witness.wtns");
    for (int k = 0; k < 2; k++) {
        hpr_status st = hpr_groth16_prove_file(ctx, p, path, &proofs[k]);
        ck_assert_msg(st == HPR_OK, "%s: %s (%s)", fixture, hpr_status_str(st), hpr_ctx_error_detail(ctx));
        ck_assert_int_eq(hpr_groth16_proof_json(&proofs[k], &pj[k], &uj[k]), HPR_OK);
        ck_assert_str_eq(uj[k], want_public);
        ck_assert_msg(strcmp(pj[k], r0s0) != 0, "%s: a random proof equals the r = s = 0 proof", fixture);
        ck_assert(proofs[k].report->total_s > 0);
        ck_assert_str_eq(proofs[k].report->devices[HPR_G16_MSM_B2], "cpu");
    }
    ck_assert_msg(memcmp(proofs[0].a, proofs[1].a, sizeof proofs[0].a) != 0 &&
                      memcmp(proofs[0].b, proofs[1].b, sizeof proofs[0].b) != 0,
                  "%s: two random proofs share pi_a or pi_b", fixture);
    for (int k = 0; k < 2; k++) {
        free(pj[k]);
        free(uj[k]);
        hpr_groth16_proof_clear(&proofs[k]);
    }
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
    free(want_public);
    free(r0s0);
}
END_TEST

typedef struct {
    const hpr_groth16_prover *p;
    const char *fixture;
} thread_arg;

static void *prove_in_thread(void *arg)
{
    thread_arg *t = arg;
    hpr_ctx *ctx = test_cpu_ctx(NULL, 1, 0);
    for (int k = 0; k < 2; k++)
        expect_r0s0(ctx, t->p, t->fixture, "threads sharing a prover");
    hpr_ctx_destroy(ctx);
    return NULL;
}

START_TEST(one_prover_serves_several_threads)
{
    hpr_ctx *ctx = test_cpu_ctx(NULL, 1, 0);
    hpr_groth16_prover *p = test_open_prover(ctx, "bn128_2e10");
    pthread_t th[3];
    thread_arg arg = {p, "bn128_2e10"};
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_create(&th[i], NULL, prove_in_thread, &arg), 0);
    for (int i = 0; i < 3; i++)
        ck_assert_int_eq(pthread_join(th[i], NULL), 0);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
}
END_TEST

static void expect_refused(hpr_ctx *ctx, const hpr_groth16_prover *p, const unsigned char *wt, size_t len,
                           hpr_status want, const char *detail, const char *what)
{
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    hpr_status st = hpr_groth16_prove(ctx, p, wt, len, &proof);
    ck_assert_msg(st == want, "%s: %s, expected %s", what, hpr_status_str(st), hpr_status_str(want));
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), detail) != NULL, "%s: detail '%s' lacks '%s'", what,
                  hpr_ctx_error_detail(ctx), detail);
    ck_assert_ptr_null(proof.public_signals);
}

START_TEST(refuses_bad_witnesses_and_arguments)
{
    hpr_ctx *ctx = test_cpu_ctx(NULL, 2, 0);
    hpr_groth16_prover *bn = test_open_prover(ctx, "bn128_2e10"), *bls = test_open_prover(ctx, "bls12381_2e12"), *q = NULL;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    file_buf wt = read_fixture("bn128_2e10", "witness.wtns");
    file_buf bls_wt = read_fixture("bls12381_2e12", "witness.wtns");
    file_buf edge_wt = read_fixture("edge_pub", "witness.wtns");
    expect_refused(ctx, bn, bls_wt.data, bls_wt.len, HPR_ERR_FORMAT, "prime", "a BLS12-381 witness for a BN254 key");
    expect_refused(ctx, bls, wt.data, wt.len, HPR_ERR_FORMAT, "prime", "a BN254 witness for a BLS12-381 key");
    expect_refused(ctx, bn, edge_wt.data, edge_wt.len, HPR_ERR_WITNESS_LENGTH, "nVars", "a witness of another length");
    expect_refused(ctx, bn, wt.data, wt.len / 2, HPR_ERR_FORMAT, "", "a truncated witness");
    ck_assert_int_eq(hpr_groth16_prove_file(ctx, bn, "/nonexistent/w.wtns", &proof), HPR_ERR_IO);
    ck_assert_ptr_nonnull(strstr(hpr_ctx_error_detail(ctx), "/nonexistent/w.wtns"));
    ck_assert_int_eq(hpr_groth16_prove_file(ctx, bn, "/", &proof), HPR_ERR_IO);
    ck_assert_int_eq(hpr_groth16_prove(ctx, bn, NULL, 0, &proof), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, "/nonexistent.zkey", &q), HPR_ERR_IO);
    ck_assert_ptr_null(q);
    char path[1024];
    fixture_path(path, sizeof path, "bn128_2e10", "witness.wtns");
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &q), HPR_ERR_FORMAT); /* a .wtns is no .zkey */
    ck_assert_ptr_null(q);
    size_t dom, vars, pub;
    hpr_groth16_prover_sizes(bn, &dom, &vars, &pub);
    ck_assert_uint_eq(dom, 1024);
    ck_assert_uint_eq(vars, 904);
    ck_assert_uint_eq(pub, 7);
    ck_assert_int_eq(hpr_groth16_prover_curve(bls), HPR_CURVE_BLS12_381);
    free(wt.data);
    free(bls_wt.data);
    free(edge_wt.data);
    hpr_groth16_prover_destroy(bn);
    hpr_groth16_prover_destroy(bls);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i: fixture. A prover over a copy of the zkey's bytes proves the same r = s = 0 proof as the
 * mapped one, after the caller's buffer is overwritten; the header-only size query agrees with
 * the prover's sizes and refuses what the prover refuses. */
START_TEST(prover_from_a_buffer)
{
    const char *fixture = fixtures[_i];
    hpr_ctx *ctx = test_cpu_ctx(NULL, 2, 0);
    file_buf zk = read_fixture(fixture, "circuit.zkey");
    hpr_groth16_prover *mapped = test_open_prover(ctx, fixture), *copied = NULL;
    hpr_curve curve = 0;
    size_t dom[2], vars[2], pub[2];
    hpr_status st = hpr_groth16_prover_create_from_buffer(ctx, zk.data, zk.len, &copied);
    ck_assert_msg(st == HPR_OK, "%s: %s (%s)", fixture, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_zkey_sizes(ctx, zk.data, zk.len, &curve, &dom[0], &vars[0], &pub[0]), HPR_OK);
    memset(zk.data, 0x5a, zk.len); /* the prover keeps its own copy */
    hpr_groth16_prover_sizes(copied, &dom[1], &vars[1], &pub[1]);
    ck_assert_int_eq(curve, hpr_groth16_prover_curve(mapped));
    ck_assert_int_eq(hpr_groth16_prover_curve(copied), hpr_groth16_prover_curve(mapped));
    ck_assert(dom[0] == dom[1] && vars[0] == vars[1] && pub[0] == pub[1]);
    expect_r0s0(ctx, copied, fixture, "from a buffer");
    hpr_groth16_prover_destroy(copied);
    ck_assert_int_eq(hpr_groth16_zkey_sizes(ctx, zk.data, zk.len, NULL, NULL, NULL, NULL), HPR_ERR_FORMAT);
    ck_assert_ptr_nonnull(strstr(hpr_ctx_error_detail(ctx), "zkey buffer"));
    ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, zk.data, zk.len, &copied), HPR_ERR_FORMAT);
    ck_assert_ptr_null(copied);
    ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, NULL, 10, &copied), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_zkey_sizes(NULL, zk.data, zk.len, NULL, NULL, NULL, NULL), HPR_ERR_INVALID_ARGUMENT);
    hpr_groth16_prover_destroy(mapped);
    free(zk.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The payload of section id in a snarkjs binary file (FORMATS.md section 1), or NULL. */
static unsigned char *find_section(unsigned char *d, size_t len, uint32_t id)
{
    for (size_t off = 12; off + 12 <= len;) {
        uint32_t sid;
        uint64_t size;
        memcpy(&sid, d + off, 4);
        memcpy(&size, d + off + 4, 8);
        if (sid == id)
            return d + off + 12;
        off += 12 + (size_t)size;
    }
    return NULL;
}

/* _i: fixture. The coefficient entries in another order prove the same: snarkjs writes them
 * sorted by row, which h's evaluations use (each task a run of whole rows, cut at row changes,
 * 7 threads: 28 runs); reversed, the prover sees them unsorted and scans them per row slice. */
START_TEST(coefficient_order_does_not_change_the_proof)
{
    const char *fixture = fixtures[_i];
    file_buf zk = read_fixture(fixture, "circuit.zkey");
    unsigned char *s4 = find_section(zk.data, zk.len, 4), tmp[64];
    uint32_t n_coef;
    for (int reversed = 0; reversed < 2; reversed++) {
        hpr_ctx *ctx = test_cpu_ctx(NULL, reversed ? 2 : 7, 0);
        hpr_groth16_prover *p = NULL;
        ck_assert_ptr_nonnull(s4);
        memcpy(&n_coef, s4, 4);
        size_t entry = 12 + 32; /* n8r = 32 for both curves */
        for (uint32_t i = 0; reversed && i < n_coef / 2; i++) {
            unsigned char *a = s4 + 4 + i * entry, *b = s4 + 4 + (size_t)(n_coef - 1 - i) * entry;
            memcpy(tmp, a, entry);
            memcpy(a, b, entry);
            memcpy(b, tmp, entry);
        }
        ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, zk.data, zk.len, &p), HPR_OK);
        ck_assert_int_eq(g16_prover_zkey(p)->coef_rows_sorted, !reversed || n_coef < 2);
        expect_r0s0(ctx, p, fixture, reversed ? "coefficients reversed" : "coefficients sorted, 7 threads");
        hpr_groth16_prover_destroy(p);
        hpr_ctx_destroy(ctx);
    }
    free(zk.data);
}
END_TEST

/* len bytes into a new temporary file, whose path goes to path (at least 32 bytes). */
static void write_temp(char *path, const unsigned char *data, size_t len)
{
    snprintf(path, 32, "/tmp/hpr_test_XXXXXX");
    int fd = mkstemp(path);
    ck_assert_int_ge(fd, 0);
    ck_assert_int_eq(write(fd, data, len), (ssize_t)len);
    close(fd);
}

/* w[0] is the constant 1 of every constraint: a witness with another w[0] is refused, from
 * a buffer and from a file, naming the value (before: a proof that never verifies). */
START_TEST(refuses_a_witness_whose_w0_is_not_one)
{
    hpr_ctx *ctx = test_cpu_ctx(NULL, 2, 0);
    hpr_groth16_prover *p = test_open_prover(ctx, "bn128_2e10");
    file_buf wt = read_fixture("bn128_2e10", "witness.wtns");
    unsigned char *w0 = find_section(wt.data, wt.len, 2);
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    char path[32];
    ck_assert_ptr_nonnull(w0);
    ck_assert_int_eq(w0[0], 1);
    w0[0] = 2;
    expect_refused(ctx, p, wt.data, wt.len, HPR_ERR_FORMAT, "witness w[0] is 2, must be 1", "w[0] = 2");
    w0[0] = 0;
    expect_refused(ctx, p, wt.data, wt.len, HPR_ERR_FORMAT, "witness w[0] is 0, must be 1", "w[0] = 0");
    w0[0] = 1;
    w0[31] = 0x10; /* 1 + 2^252, still below r */
    expect_refused(ctx, p, wt.data, wt.len, HPR_ERR_FORMAT, "must be 1", "w[0] = 1 + 2^252");
    write_temp(path, wt.data, wt.len);
    hpr_status st = hpr_groth16_prove_file(ctx, p, path, &proof);
    ck_assert_msg(st == HPR_ERR_FORMAT && strstr(hpr_ctx_error_detail(ctx), "w[0]") &&
                      strstr(hpr_ctx_error_detail(ctx), path),
                  "from a file: %s (%s)", hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_ptr_null(proof.public_signals);
    unlink(path);
    free(wt.data);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* A BLS12-381 G1 point on the curve y^2 = x^3 + 4 outside the prime-order subgroup (the
 * cofactor is about 2^126: the first x whose x^3 + 4 is a square gives one), interchange form
 * (Montgomery, R = 2^384, little-endian x then y). */
static void bls_g1_outside_subgroup(unsigned char *out)
{
    mpz_t p, x, rhs, y, e;
    size_t count;
    mpz_init_set_str(p, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16);
    mpz_inits(x, rhs, y, e, NULL);
    for (mpz_set_ui(x, 1);; mpz_add_ui(x, x, 1)) {
        mpz_powm_ui(rhs, x, 3, p);
        mpz_add_ui(rhs, rhs, 4);
        mpz_mod(rhs, rhs, p);
        if (mpz_legendre(rhs, p) == 1)
            break;
    }
    mpz_add_ui(e, p, 1);
    mpz_fdiv_q_2exp(e, e, 2);
    mpz_powm(y, rhs, e, p); /* p = 3 mod 4 */
    memset(out, 0, 96);
    mpz_mul_2exp(x, x, 384);
    mpz_mod(x, x, p);
    mpz_mul_2exp(y, y, 384);
    mpz_mod(y, y, p);
    mpz_export(out, &count, -1, 1, 0, 0, x);
    mpz_export(out + 48, &count, -1, 1, 0, 0, y);
    mpz_clears(p, x, rhs, y, e, NULL);
}

/* x^2 = a in Fq2 = Fq[u]/(u^2 + 1), p = 3 mod 4, a.c1 != 0: 1 with x, or 0 when a is not a square
 * (the norm's square root gamma, then x0^2 = (a0 +- gamma) / 2 and x1 = a1 / (2 x0)). */
static int fq2_sqrt(mpz_t x0, mpz_t x1, const mpz_t a0, const mpz_t a1, const mpz_t p)
{
    mpz_t n, g, d, e, t, half;
    int ok = 0;
    mpz_inits(n, g, d, e, t, half, NULL);
    mpz_add_ui(half, p, 1);
    mpz_fdiv_q_2exp(half, half, 1); /* 1/2 = (p + 1) / 2 */
    mpz_mul(n, a0, a0);
    mpz_addmul(n, a1, a1);
    mpz_mod(n, n, p);
    mpz_add_ui(e, p, 1);
    mpz_fdiv_q_2exp(e, e, 2); /* (p + 1) / 4 */
    if (mpz_legendre(n, p) != 1)
        goto out;
    mpz_powm(g, n, e, p);
    for (int sign = 0; sign < 2 && !ok; sign++) {
        (sign ? mpz_sub : mpz_add)(d, a0, g);
        mpz_mul(d, d, half);
        mpz_mod(d, d, p);
        if (mpz_legendre(d, p) != 1)
            continue;
        mpz_powm(x0, d, e, p);
        mpz_mul_2exp(t, x0, 1);
        mpz_invert(t, t, p);
        mpz_mul(x1, a1, t);
        mpz_mod(x1, x1, p);
        mpz_mul(t, x0, x1); /* check: (x0 + x1 u)^2 = (x0^2 - x1^2) + 2 x0 x1 u */
        mpz_mul_2exp(t, t, 1);
        mpz_sub(t, t, a1);
        mpz_mod(t, t, p);
        mpz_mul(d, x0, x0);
        mpz_submul(d, x1, x1);
        mpz_sub(d, d, a0);
        mpz_mod(d, d, p);
        ok = mpz_sgn(t) == 0 && mpz_sgn(d) == 0;
    }
out:
    mpz_clears(n, g, d, e, t, half, NULL);
    return ok;
}

/* A point of curve's twist E'(Fq2) (BN254: y^2 = x^3 + 3/(9 + u); BLS12-381: y^2 = x^3 +
 * 4(1 + u)) outside the prime-order subgroup: the twists' cofactors are about p, so the first
 * x = k (k = 1, 2, ...) whose x^3 + b' is a square gives one. Interchange form: Montgomery
 * (R = 2^(8 n8q)), little-endian x.c0, x.c1, y.c0, y.c1 of n8q bytes each. */
static void twist_point_outside_subgroup(hpr_curve curve, unsigned char *out)
{
    int bls = curve == HPR_CURVE_BLS12_381;
    size_t n8q = bls ? 48 : 32, count;
    mpz_t p, b0, b1, x, r0, r1, y0, y1, t;
    mpz_inits(p, b0, b1, x, r0, r1, y0, y1, t, NULL);
    if (bls) {
        mpz_set_str(p, "1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab", 16);
        mpz_set_ui(b0, 4);
        mpz_set_ui(b1, 4);
    } else { /* 3 / (9 + u) = 3 (9 - u) / 82 */
        mpz_set_str(p, "21888242871839275222246405745257275088696311157297823662689037894645226208583", 10);
        mpz_set_ui(t, 82);
        mpz_invert(t, t, p);
        mpz_mul_ui(b0, t, 27);
        mpz_mod(b0, b0, p);
        mpz_mul_ui(b1, t, 3);
        mpz_sub(b1, p, b1);
        mpz_mod(b1, b1, p);
    }
    for (mpz_set_ui(x, 1);; mpz_add_ui(x, x, 1)) { /* x real: x^3 + b' = (x^3 + b0) + b1 u */
        mpz_powm_ui(r0, x, 3, p);
        mpz_add(r0, r0, b0);
        mpz_mod(r0, r0, p);
        mpz_set(r1, b1);
        if (fq2_sqrt(y0, y1, r0, r1, p))
            break;
    }
    mpz_t *coords[4] = {&x, &t, &y0, &y1};
    mpz_set_ui(t, 0); /* x.c1 */
    memset(out, 0, 4 * n8q);
    for (int i = 0; i < 4; i++) {
        mpz_mul_2exp(r0, *coords[i], (mp_bitcnt_t)(8 * n8q));
        mpz_mod(r0, r0, p);
        mpz_export(out + i * n8q, &count, -1, 1, 0, 0, r0);
    }
    mpz_clears(p, b0, b1, x, r0, r1, y0, y1, t, NULL);
}

/* The prover made from key's bytes is refused with want, the detail naming needle. */
static void expect_key_refused(hpr_ctx *ctx, const file_buf *key, hpr_status want, const char *needle, const char *what)
{
    hpr_groth16_prover *p = NULL;
    hpr_status st = hpr_groth16_prover_create_from_buffer(ctx, key->data, key->len, &p);
    ck_assert_msg(st == want, "%s: %s (%s), expected %s", what, hpr_status_str(st), hpr_ctx_error_detail(ctx),
                  hpr_status_str(want));
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), needle) != NULL, "%s: detail '%s' lacks '%s'", what,
                  hpr_ctx_error_detail(ctx), needle);
    ck_assert_ptr_null(p);
}

/* _i: 0 bn128_2e10, 1 bls12381_2e12. Each fixed point of the key at infinity (all zero, as an
 * all-zero alpha1 once went through), with a coordinate >= p, or off the curve: refused when
 * the prover is made, naming the point; from a file too; beta2 outside the subgroup of the
 * twist (both curves; hpr_point_check says so too) and BLS12-381's alpha1 outside G1's as well. */
START_TEST(refuses_a_key_with_bad_fixed_points)
{
    const char *fixture = _i ? "bls12381_2e12" : "bn128_2e10";
    hpr_ctx *ctx = test_cpu_ctx(NULL, 1, 0);
    file_buf key = read_fixture(fixture, "circuit.zkey");
    hpr_groth16_prover *p = NULL;
    unsigned char saved[192];
    char path[32], needle[64];
    zkey_file h;
    ck_assert_int_eq(zkey_parse_header(ctx, key.data, key.len, fixture, &h), HPR_OK);
    size_t g1 = 2 * h.n8q, g2 = 4 * h.n8q;
    const struct {
        const unsigned char *at;
        size_t size;
        const char *name;
    } pts[] = {{h.alpha1, g1, "alpha1"}, {h.beta1, g1, "beta1"},   {h.delta1, g1, "delta1"},
               {h.beta2, g2, "beta2"},   {h.gamma2, g2, "gamma2"}, {h.delta2, g2, "delta2"}};
    for (size_t i = 0; i < sizeof pts / sizeof pts[0]; i++) {
        unsigned char *pt = key.data + (pts[i].at - key.data);
        memcpy(saved, pt, pts[i].size);
        memset(pt, 0, pts[i].size);
        snprintf(needle, sizeof needle, "%s is the point at infinity", pts[i].name);
        expect_key_refused(ctx, &key, HPR_ERR_FORMAT, needle, needle);
        memcpy(pt, saved, pts[i].size);
        pt[pts[i].size / 2] ^= 1; /* y (y.c0) changed in its low bits */
        snprintf(needle, sizeof needle, "%s is not on the", pts[i].name);
        expect_key_refused(ctx, &key, HPR_ERR_POINT_NOT_ON_CURVE, needle, needle);
        memcpy(pt, saved, pts[i].size);
        memset(pt, 0xff, h.n8q); /* x (x.c0) >= p */
        snprintf(needle, sizeof needle, "%s has a coordinate >= p", pts[i].name);
        expect_key_refused(ctx, &key, HPR_ERR_COORDINATE_OUT_OF_RANGE, needle, needle);
        memcpy(pt, saved, pts[i].size);
    }
    unsigned char *beta2 = key.data + (h.beta2 - key.data), twisted[192];
    memcpy(saved, beta2, g2);
    twist_point_outside_subgroup(h.curve, twisted);
    ck_assert_int_eq(hpr_point_check(ctx, h.curve, HPR_G2, twisted), HPR_ERR_POINT_NOT_IN_SUBGROUP);
    ck_assert_int_eq(hpr_point_check(ctx, h.curve, HPR_G2, saved), HPR_OK);
    memcpy(beta2, twisted, g2);
    expect_key_refused(ctx, &key, HPR_ERR_POINT_NOT_IN_SUBGROUP, "beta2 is not in the prime-order subgroup",
                       "beta2 outside the subgroup");
    memcpy(beta2, saved, g2);
    unsigned char *alpha1 = key.data + (h.alpha1 - key.data);
    memcpy(saved, alpha1, g1);
    if (_i) {
        bls_g1_outside_subgroup(alpha1);
        expect_key_refused(ctx, &key, HPR_ERR_POINT_NOT_IN_SUBGROUP, "alpha1 is not in the prime-order subgroup",
                           "alpha1 outside the subgroup");
    }
    memset(alpha1, 0, g1);
    write_temp(path, key.data, key.len);
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &p), HPR_ERR_FORMAT);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "alpha1 is the point at infinity") &&
                      strstr(hpr_ctx_error_detail(ctx), path),
                  "from a file: %s", hpr_ctx_error_detail(ctx));
    ck_assert_ptr_null(p);
    unlink(path);
    memcpy(alpha1, saved, g1); /* the key as it was opens */
    ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, key.data, key.len, &p), HPR_OK);
    hpr_groth16_prover_destroy(p);
    free(key.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The bytes of the key's five MSM sections (as hpr_groth16_prover_precomputed counts them). */
static size_t section_bytes(const hpr_groth16_prover *p)
{
    const zkey_file *zk = g16_prover_zkey(p);
    size_t g1 = hpr_point_size(zk->curve, HPR_G1), g2 = hpr_point_size(zk->curve, HPR_G2);
    size_t npriv = (size_t)zk->n_vars - zk->n_public - 1;
    return zk->n_vars * (2 * g1 + g2) + npriv * g1 + (size_t)zk->domain_size * g1;
}

/* Precomputed sections (hpr_groth16_prover_precompute): the r = s = 0 proof is still
 * snarkjs's, byte for byte, on every tier and for factors that cut the 254-bit scalars
 * unevenly (3, 5) or into 16-bit slices (16, the edge keys only); the factor and bytes are
 * reported; a random proof verifies. BLS12-381 (255-bit scalars, the costliest sections to
 * make: G2 over Fq2 of 381 bits) once, f = 3 on the fastest tier. _i: fixture */
START_TEST(precomputed_sections_prove_the_same)
{
    static const char *tiers[] = {"portable", "adx", "avx512"};
    const char *fixture = fixtures[_i];
    const int bls = strcmp(fixture, "bls12381_2e12") == 0;
    const unsigned factors[] = {2, 3, 5, 16};
    size_t first = bls ? 1 : 0, nfactors = bls ? 2 : strncmp(fixture, "edge", 4) == 0 ? 4 : 3;
    unsigned best = 0; /* the fastest tier that runs: the default */
    for (unsigned t = 0; t < 3; t++)
        best = hpr_cpu_tier_check(tiers[t], NULL) == HPR_OK ? t : best;
    file_buf wt = read_fixture(fixture, "witness.wtns");
    for (unsigned t = 0; t < 3; t++) {
        if (hpr_cpu_tier_check(tiers[t], NULL) != HPR_OK || (bls && t != best))
            continue;
        for (size_t k = first; k < nfactors; k++) {
            char what[64];
            size_t bytes = 0;
            hpr_ctx *ctx = test_cpu_ctx(tiers[t], 2, 0);
            hpr_groth16_prover *p = test_open_prover(ctx, fixture);
            hpr_groth16_proof proof = {.struct_size = sizeof proof};
            ck_assert_uint_eq(hpr_groth16_prover_precomputed(p, &bytes), 1);
            ck_assert_uint_eq(bytes, 0);
            hpr_status st = hpr_groth16_prover_precompute(ctx, p, factors[k]);
            ck_assert_msg(st == HPR_OK, "%s f = %u: %s (%s)", fixture, factors[k], hpr_status_str(st),
                          hpr_ctx_error_detail(ctx));
            ck_assert_uint_eq(hpr_groth16_prover_precomputed(p, &bytes), factors[k]);
            ck_assert_uint_eq(bytes, factors[k] * section_bytes(p));
            snprintf(what, sizeof what, "%s, precompute %u", tiers[t], factors[k]);
            expect_r0s0(ctx, p, fixture, what);
            ck_assert_int_eq(hpr_groth16_prove(ctx, p, wt.data, wt.len, &proof), HPR_OK);
            ck_assert_msg(hpr_groth16_verify(ctx, p, &proof) == HPR_OK, "%s %s: a random proof does not verify",
                          fixture, what);
            hpr_groth16_proof_clear(&proof);
            hpr_groth16_prover_destroy(p);
            hpr_ctx_destroy(ctx);
        }
    }
    free(wt.data);
}
END_TEST

/* hpr_groth16_prover_precompute refuses: a factor above 16, a NULL prover, a prover that has
 * proved (its sections may be in use), a key whose section holds a bad point (named by
 * section and index; the prover stays usable without precomputation). 0 and 1 drop them. */
START_TEST(precompute_refuses_misuse)
{
    const char *fixture = "bn128_2e10";
    hpr_ctx *ctx = test_cpu_ctx(NULL, 2, 0);
    file_buf key = read_fixture(fixture, "circuit.zkey");
    hpr_groth16_prover *p = test_open_prover(ctx, fixture);
    size_t bytes = 1;
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, 17), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "precompute = 17 is out of range"), "%s", hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, NULL, 2), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_groth16_prover_precompute(NULL, p, 2), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(hpr_groth16_prover_precomputed(NULL, &bytes), 0);
    ck_assert_uint_eq(bytes, 0);
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, 4), HPR_OK);
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, 0), HPR_OK); /* dropped */
    ck_assert_uint_eq(hpr_groth16_prover_precomputed(p, &bytes), 1);
    ck_assert_uint_eq(bytes, 0);
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, 2), HPR_OK);
    expect_r0s0(ctx, p, fixture, "precompute 2 after 4 and 0");
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, 3), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "has proved already"), "%s", hpr_ctx_error_detail(ctx));
    ck_assert_uint_eq(hpr_groth16_prover_precomputed(p, NULL), 2); /* unchanged */
    hpr_groth16_prover_destroy(p);
    /* section C's point 3, then section H's point 7, off the curve (y's low bit) */
    zkey_file h;
    ck_assert_int_eq(zkey_parse(ctx, key.data, key.len, fixture, &h), HPR_OK);
    const struct {
        const unsigned char *section;
        size_t index;
        const char *needle;
    } bad[] = {{h.c, 3, "zkey section C: point 3 is not on the"}, {h.h, 7, "zkey section H: point 7 is not on the"}};
    size_t g1 = hpr_point_size(h.curve, HPR_G1);
    for (size_t i = 0; i < 2; i++) {
        unsigned char *pt = key.data + (bad[i].section - key.data) + bad[i].index * g1;
        pt[g1 / 2] ^= 1;
        ck_assert_int_eq(hpr_groth16_prover_create_from_buffer(ctx, key.data, key.len, &p), HPR_OK);
        ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, 2), HPR_ERR_POINT_NOT_ON_CURVE);
        ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), bad[i].needle), "%s", hpr_ctx_error_detail(ctx));
        ck_assert_uint_eq(hpr_groth16_prover_precomputed(p, NULL), 1);
        hpr_groth16_prover_destroy(p);
        pt[g1 / 2] ^= 1;
    }
    free(key.data);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* hpr_version agrees with the header; the accessors take NULL. */
START_TEST(version_and_null_accessors)
{
    unsigned major, minor, patch;
    char want[32];
    ck_assert_str_eq(hpr_version(&major, &minor, &patch), HPR_VERSION_STRING);
    snprintf(want, sizeof want, "%u.%u.%u", major, minor, patch);
    ck_assert_str_eq(want, HPR_VERSION_STRING);
    ck_assert_str_eq(hpr_version(NULL, NULL, NULL), HPR_VERSION_STRING);
    size_t dom = 1, vars = 1, pub = 1;
    hpr_groth16_prover_sizes(NULL, &dom, &vars, &pub);
    ck_assert(dom == 0 && vars == 0 && pub == 0);
    ck_assert_int_eq(hpr_groth16_prover_curve(NULL), 0);
    ck_assert_str_eq(hpr_status_str(HPR_ERR_WITNESS_LENGTH), "witness length differs from the circuit's");
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("groth16");
    TCase *tc = tcase_create("groth16");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, r0s0_proof_equals_snarkjs, 0, NFIXTURES);
    tcase_add_loop_test(tc, random_proofs_are_blinded, 0, NFIXTURES);
    tcase_add_test(tc, one_prover_serves_several_threads);
    tcase_add_test(tc, refuses_bad_witnesses_and_arguments);
    tcase_add_loop_test(tc, prover_from_a_buffer, 0, NFIXTURES);
    tcase_add_loop_test(tc, coefficient_order_does_not_change_the_proof, 0, NFIXTURES);
    tcase_add_test(tc, version_and_null_accessors);
    tcase_add_test(tc, refuses_a_witness_whose_w0_is_not_one);
    tcase_add_loop_test(tc, refuses_a_key_with_bad_fixed_points, 0, 2);
    tcase_add_loop_test(tc, precomputed_sections_prove_the_same, 0, NFIXTURES);
    tcase_add_test(tc, precompute_refuses_misuse);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
