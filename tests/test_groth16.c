/*
 * test_groth16.c: the Groth16 prover against snarkjs on every fixture in tests/fixtures:
 * with r = s = 0 the proof JSON equals snarkjs's proof_r0s0.json byte for byte and
 * public.json equals snarkjs's; on 1 and 2 threads and every CPU tier; random proofs differ
 * from one another and from the r = s = 0 proof but keep the publics; one prover serves
 * several threads at once; bad witnesses and bad arguments are refused with a clear error.
 * (That snarkjs's verifier accepts random proofs, and rejects the proof of a corrupted
 * witness, is tests/groth16_verify.py: it runs the real snarkjs.)
 */
#include "test_support.h"

#include "host/groth16.h"

#include <pthread.h>
#include <string.h>

static const char *fixtures[] = {"edge_pub", "edge_nopub", "bn128_2e10", "bls12381_2e12"};
#define NFIXTURES (sizeof fixtures / sizeof fixtures[0])

static hpr_ctx *make_ctx(unsigned threads, const char *tier)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.threads = threads;
    cfg.devices = "cpu";
    cfg.cpu_tier = tier;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    return ctx;
}

static hpr_groth16_prover *open_prover(hpr_ctx *ctx, const char *fixture)
{
    char path[1024];
    hpr_groth16_prover *p = NULL;
    fixture_path(path, sizeof path, fixture, "circuit.zkey");
    hpr_status st = hpr_groth16_prover_create(ctx, path, &p);
    ck_assert_msg(st == HPR_OK, "%s: %s (%s)", fixture, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    return p;
}

/* The r = s = 0 proof of the fixture's witness, as JSON, compared with snarkjs's files. */
static void expect_r0s0(hpr_ctx *ctx, const hpr_groth16_prover *p, const char *fixture, const char *what)
{
    static const unsigned char zero[32];
    file_buf wt = read_fixture(fixture, "witness.wtns");
    char *want_proof = read_fixture_text(fixture, "proof_r0s0.json");
    char *want_public = read_fixture_text(fixture, "public.json");
    char *proof_json, *public_json;
    hpr_groth16_proof proof;
    wtns_data w;
    memset(&proof, 0, sizeof proof);
    ck_assert_int_eq(wtns_parse(ctx, wt.data, wt.len, fixture, g16_prover_zkey(p), &w), HPR_OK);
    hpr_status st = g16_prove_values(ctx, p, w.values, zero, zero, &proof);
    ck_assert_msg(st == HPR_OK, "%s %s: %s (%s)", fixture, what, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, &proof_json, &public_json), HPR_OK);
    ck_assert_msg(strcmp(proof_json, want_proof) == 0, "%s %s: proof differs from proof_r0s0.json:\n%s", fixture, what,
                  proof_json);
    ck_assert_msg(strcmp(public_json, want_public) == 0, "%s %s: public differs:\n%s", fixture, what, public_json);
    free(proof_json);
    free(public_json);
    hpr_groth16_proof_free(&proof);
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
            hpr_ctx *ctx = make_ctx(threads, tiers[t]);
            hpr_groth16_prover *p = open_prover(ctx, fixture);
            snprintf(what, sizeof what, "%s, %u thread(s)", tiers[t], threads);
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
    hpr_ctx *ctx = make_ctx(2, NULL);
    hpr_groth16_prover *p = open_prover(ctx, fixture);
    hpr_groth16_proof proofs[2];
    char *pj[2], *uj[2];
    fixture_path(path, sizeof path, fixture, "witness.wtns");
    for (int k = 0; k < 2; k++) {
        hpr_status st = hpr_groth16_prove_file(ctx, p, path, &proofs[k]);
        ck_assert_msg(st == HPR_OK, "%s: %s (%s)", fixture, hpr_status_str(st), hpr_ctx_error_detail(ctx));
        ck_assert_int_eq(hpr_groth16_proof_json(&proofs[k], &pj[k], &uj[k]), HPR_OK);
        ck_assert_str_eq(uj[k], want_public);
        ck_assert_msg(strcmp(pj[k], r0s0) != 0, "%s: a random proof equals the r = s = 0 proof", fixture);
        ck_assert(proofs[k].report.total_s > 0);
        ck_assert_str_eq(proofs[k].report.devices[HPR_G16_MSM_B2], "cpu");
    }
    ck_assert_msg(memcmp(proofs[0].a, proofs[1].a, sizeof proofs[0].a) != 0 &&
                      memcmp(proofs[0].b, proofs[1].b, sizeof proofs[0].b) != 0,
                  "%s: two random proofs share pi_a or pi_b", fixture);
    for (int k = 0; k < 2; k++) {
        free(pj[k]);
        free(uj[k]);
        hpr_groth16_proof_free(&proofs[k]);
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
    hpr_ctx *ctx = make_ctx(1, NULL);
    for (int k = 0; k < 2; k++)
        expect_r0s0(ctx, t->p, t->fixture, "threads sharing a prover");
    hpr_ctx_destroy(ctx);
    return NULL;
}

START_TEST(one_prover_serves_several_threads)
{
    hpr_ctx *ctx = make_ctx(1, NULL);
    hpr_groth16_prover *p = open_prover(ctx, "bn128_2e10");
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
    hpr_groth16_proof proof;
    hpr_status st = hpr_groth16_prove(ctx, p, wt, len, &proof);
    ck_assert_msg(st == want, "%s: %s, expected %s", what, hpr_status_str(st), hpr_status_str(want));
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), detail) != NULL, "%s: detail '%s' lacks '%s'", what,
                  hpr_ctx_error_detail(ctx), detail);
    ck_assert_ptr_null(proof.public_signals);
}

START_TEST(refuses_bad_witnesses_and_arguments)
{
    hpr_ctx *ctx = make_ctx(2, NULL);
    hpr_groth16_prover *bn = open_prover(ctx, "bn128_2e10"), *bls = open_prover(ctx, "bls12381_2e12"), *q = NULL;
    hpr_groth16_proof proof;
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
    hpr_ctx *ctx = make_ctx(2, NULL);
    file_buf zk = read_fixture(fixture, "circuit.zkey");
    hpr_groth16_prover *mapped = open_prover(ctx, fixture), *copied = NULL;
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
    tcase_add_test(tc, version_and_null_accessors);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
