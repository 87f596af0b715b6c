/*
 * test_memory_budget.c: the memory budget (hpr_config.memory_limit, HPR_MAX_MEMORY;
 * host/core/memory_budget.c). A limit below a call's estimated need refuses an MSM, an NTT, an
 * LDE and a proof with HPR_ERR_OUT_OF_MEMORY and a detail naming need and limit, before
 * anything is written (out, data and the proof as they were: the proof empty); a generous
 * limit runs them (the proof verifies); an MSM over the limit whose pieces fit runs in
 * pieces with the same bytes as the whole MSM (G1 and G2, pieces summing to infinity, bad
 * inputs named by their index in the whole MSM); HPR_MAX_MEMORY sets the limit and a
 * malformed one refuses the context; the size parser's grammar; the soak's random fault knob.
 * (That the estimates bound the measured peak is bench/memory_peak.c, not a unit test.)
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "test_support.h"

#include "host/groth16/groth16.h"
#include "host/core/memory_budget.h"
#include "host/groth16/proof_memory.h"
#include "host/msm/msm_memory.h"
#include "host/ntt/ntt_memory.h"

#include <string.h>

static hpr_ctx *limited_ctx(size_t limit, const char *devices)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.devices = devices;
    cfg.threads = 2;
    cfg.memory_limit = limit;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    return ctx;
}

static void expect_refusal(hpr_ctx *ctx, hpr_status st, const char *what, const char *limit)
{
    const char *detail = hpr_ctx_error_detail(ctx);
    ck_assert_msg(st == HPR_ERR_OUT_OF_MEMORY, "%s: %s (%s)", what, hpr_status_str(st), detail);
    ck_assert_msg(strstr(detail, what) && strstr(detail, "needs about") && strstr(detail, "the memory limit is") &&
                      strstr(detail, limit),
                  "detail '%s' names %s, its need and the limit %s", detail, what, limit);
}

START_TEST(size_grammar)
{
    static const struct {
        const char *text;
        size_t bytes;
    } good[] = {{"1", 1},           {"4096", 4096},          {"512M", (size_t)512 << 20}, {"2g", (size_t)2 << 30},
                {"64KiB", 65536},   {"64kb", 65536},         {"1.5G", (size_t)3 << 29},   {"100B", 100},
                {"1T", (size_t)1 << 40}, {"0.5K", 512}};
    static const char *bad[] = {"", "0", "0K", "-1", "1.5", "M", "12Q", "1 M", "1MiBs", "0x10", "1.", ".5K",
                                "99999999999999999999", "16777216T", "inf"};
    for (size_t i = 0; i < sizeof good / sizeof good[0]; i++) {
        size_t v = 0;
        ck_assert_msg(mem_parse_size(good[i].text, &v) == 0 && v == good[i].bytes, "'%s' = %zu bytes (got %zu)",
                      good[i].text, good[i].bytes, v);
    }
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        size_t v = 0;
        ck_assert_msg(mem_parse_size(bad[i], &v) != 0, "'%s' is refused", bad[i]);
    }
    char buf[32];
    mem_format((size_t)512 << 20, buf, sizeof buf);
    ck_assert_str_eq(buf, "512 MiB");
    mem_format((size_t)1288490189, buf, sizeof buf);
    ck_assert_str_eq(buf, "1.2 GiB");
    mem_format(17, buf, sizeof buf);
    ck_assert_str_eq(buf, "17 bytes");
}
END_TEST

/* An MSM over a tiny limit: refused before out is written; below 2 x 4096 points there are
 * no pieces. */
START_TEST(msm_refused_before_writing)
{
    size_t n = 1000, ps = hpr_point_size(HPR_CURVE_BN254, HPR_G1);
    hpr_ctx *ctx = limited_ctx(4096, "cpu");
    unsigned char *pts = malloc(n * ps), *sc = malloc(n * 32), out[64], before[64];
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, n, test_seed, pts, sc), HPR_OK);
    memset(out, 0xa5, sizeof out);
    memcpy(before, out, sizeof out);
    hpr_status st = hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, n, out);
    expect_refusal(ctx, st, "the MSM of 1000 points", "4.0 KiB (hpr_config.memory_limit)");
    ck_assert_msg(memcmp(out, before, sizeof out) == 0, "a refused MSM leaves out as it was");
    ck_assert_msg(!strstr(hpr_ctx_error_detail(ctx), "at least"), "no pieces below 2 x 4096 points");
    hpr_ctx_destroy(ctx);
    /* a generous limit runs it, with the same answer as no limit */
    unsigned char want[64];
    ctx = limited_ctx(0, "cpu");
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, n, want), HPR_OK);
    hpr_ctx_destroy(ctx);
    ctx = limited_ctx((size_t)1 << 30, "cpu");
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, n, out), HPR_OK);
    ck_assert(memcmp(out, want, 64) == 0);
    hpr_ctx_destroy(ctx);
    free(pts);
    free(sc);
}
END_TEST

/* MSMs over the limit whose pieces fit: the same bytes as the whole MSM, the report notes
 * the pieces; G1 and G2 of both curves; with zero_tail, the last piece's scalars all zero
 * (its sum is infinity, as the smallest pieces cut it). */
static const struct {
    hpr_curve curve;
    hpr_group group;
    size_t n;
    size_t zero_tail;
} piece_cases[] = {{HPR_CURVE_BN254, HPR_G1, 20000, 5000}, {HPR_CURVE_BLS12_381, HPR_G1, 9000, 0},
                   {HPR_CURVE_BN254, HPR_G2, 8200, 4100},  {HPR_CURVE_BLS12_381, HPR_G2, 8192, 0}};

START_TEST(msm_in_pieces_gives_the_same_bytes)
{
    hpr_curve curve = piece_cases[_i].curve;
    hpr_group group = piece_cases[_i].group;
    size_t n = piece_cases[_i].n, ps = hpr_point_size(curve, group);
    hpr_ctx *free_ctx = limited_ctx(0, "cpu");
    unsigned char *pts = malloc(n * ps), *sc = malloc(n * 32), want[192], got[192];
    ck_assert_int_eq(hpr_random_msm_inputs(free_ctx, curve, group, n, test_seed + _i, pts, sc), HPR_OK);
    memset(sc + (n - piece_cases[_i].zero_tail) * 32, 0, piece_cases[_i].zero_tail * 32);
    ck_assert_int_eq(hpr_msm(free_ctx, curve, group, pts, sc, n, want), HPR_OK);
    /* the limit: the whole MSM's need less one byte (two pieces fit), then the smallest
     * piece's (as many pieces as the halving gives) */
    msm_points whole = {pts, n, 0, 0, 0};
    size_t half = (n + 1) / 2, smallest = half;
    while ((smallest + 1) / 2 >= 4096)
        smallest = (smallest + 1) / 2;
    msm_points small = {pts, smallest, 0, 0, 0};
    const msm_curve_ops *ops = msm_ops(curve, group);
    size_t limits[2] = {mem_msm_need(free_ctx, ops, &whole, sc, n, NULL) - 1,
                        mem_msm_need(free_ctx, ops, &small, sc, smallest, NULL)};
    for (int k = 0; k < 2; k++) {
        hpr_ctx *ctx = limited_ctx(limits[k], "cpu");
        hpr_run_report rep = {.struct_size = sizeof rep};
        memset(got, 0, sizeof got);
        hpr_status st = hpr_msm(ctx, curve, group, pts, sc, n, got);
        ck_assert_msg(st == HPR_OK, "%s G%d n %zu limit %zu: %s (%s)", curve == HPR_CURVE_BN254 ? "bn254" : "bls12-381",
                      (int)group, n, limits[k], hpr_status_str(st), hpr_ctx_error_detail(ctx));
        ck_assert_msg(memcmp(got, want, ps) == 0, "pieces give the whole MSM's bytes (case %d, limit %d)", _i, k);
        ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
        ck_assert_msg(strstr(rep.notes, "pieces"), "the report notes the pieces: '%s'", rep.notes);
        hpr_ctx_destroy(ctx);
    }
    /* below the smallest piece: refused, naming the least it would take */
    hpr_ctx *ctx = limited_ctx(limits[1] - 1, "cpu");
    memcpy(got, want, sizeof got);
    got[0] ^= 1;
    hpr_status st = hpr_msm(ctx, curve, group, pts, sc, n, got);
    expect_refusal(ctx, st, "the MSM of", "(hpr_config.memory_limit)");
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "at least"), "names the pieces' need: %s",
                  hpr_ctx_error_detail(ctx));
    ck_assert_msg(got[0] == (unsigned char)(want[0] ^ 1), "out untouched");
    hpr_ctx_destroy(ctx);
    hpr_ctx_destroy(free_ctx);
    free(pts);
    free(sc);
}
END_TEST

/* In pieces, a bad point or scalar is named by its index in the whole MSM, as without. */
START_TEST(msm_pieces_name_bad_inputs_by_their_index)
{
    size_t n = 12000, ps = hpr_point_size(HPR_CURVE_BN254, HPR_G1);
    hpr_ctx *free_ctx = limited_ctx(0, "cpu");
    unsigned char *pts = malloc(n * ps), *sc = malloc(n * 32), out[64];
    ck_assert_int_eq(hpr_random_msm_inputs(free_ctx, HPR_CURVE_BN254, HPR_G1, n, test_seed, pts, sc), HPR_OK);
    msm_points whole = {pts, n, 0, 0, 0};
    size_t limit = mem_msm_need(free_ctx, msm_ops(HPR_CURVE_BN254, HPR_G1), &whole, sc, n, NULL) - 1;
    hpr_ctx *ctx = limited_ctx(limit, "cpu");
    memset(pts + 10001 * ps, 0xff, 32); /* x >= p in the second piece */
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, n, out), HPR_ERR_COORDINATE_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 10001 "), "%s", hpr_ctx_error_detail(ctx));
    pts[10001 * ps + 31] = 0x01; /* x < p, now off the curve (almost surely) */
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, n, out), HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 10001 "), "%s", hpr_ctx_error_detail(ctx));
    memset(sc + 9000 * 32, 0xff, 32); /* a scalar >= r in the second piece, before the bad point */
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, n, out), HPR_ERR_SCALAR_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "scalar 9000 "), "%s", hpr_ctx_error_detail(ctx));
    hpr_ctx_destroy(ctx);
    hpr_ctx_destroy(free_ctx);
    free(pts);
    free(sc);
}
END_TEST

/* hpr_ntt and hpr_ntt_lde over a tiny limit: refused, data and out as they were. */
START_TEST(ntt_and_lde_refused_before_writing)
{
    unsigned log_n = 12;
    size_t n = (size_t)1 << log_n;
    hpr_ctx *ctx = limited_ctx(64 << 10, "cpu");
    unsigned char *data = calloc(n, 32), *copy = malloc(n * 32);
    unsigned char *out = malloc(4 * n * 32), *out_copy = malloc(4 * n * 32);
    for (size_t i = 0; i < n; i++)
        data[32 * i] = (unsigned char)i; /* small canonical elements */
    memcpy(copy, data, n * 32);
    memset(out, 0x5a, 4 * n * 32);
    memcpy(out_copy, out, 4 * n * 32);
    hpr_status st = hpr_ntt(ctx, HPR_FIELD_BN254_FR, log_n, data, NULL);
    expect_refusal(ctx, st, "the NTT of 1 x 2^12 elements", "64 KiB (hpr_config.memory_limit)");
    ck_assert_msg(memcmp(data, copy, n * 32) == 0, "a refused NTT leaves data as it was");
    st = hpr_ntt_lde(ctx, HPR_FIELD_BN254_FR, log_n, 4, NULL, 1, data, out);
    expect_refusal(ctx, st, "the LDE of 1 x 2^12 coefficients (rate 4)", "64 KiB");
    ck_assert_msg(memcmp(out, out_copy, 4 * n * 32) == 0, "a refused LDE leaves out as it was");
    hpr_ctx_destroy(ctx);
    /* generous: both run */
    ctx = limited_ctx((size_t)1 << 30, "cpu");
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_BN254_FR, log_n, data, NULL), HPR_OK);
    ck_assert_int_eq(hpr_ntt_lde(ctx, HPR_FIELD_BN254_FR, log_n, 4, NULL, 1, copy, out), HPR_OK);
    ck_assert_msg(memcmp(data, copy, n * 32) != 0, "the NTT ran");
    hpr_ctx_destroy(ctx);
    free(data);
    free(copy);
    free(out);
    free(out_copy);
}
END_TEST

static int proof_is_empty(const hpr_groth16_proof *pf)
{
    static const unsigned char zero[192];
    return !pf->public_signals && pf->n_public == 0 && memcmp(pf->a, zero, 96) == 0 && memcmp(pf->b, zero, 192) == 0 &&
           memcmp(pf->c, zero, 96) == 0;
}

/* A proof over the limit is refused before it allocates (from a buffer and from a file); a
 * generous limit proves, and the proof verifies. */
START_TEST(proof_refused_then_proved)
{
    const char *fixture = _i ? "bls12381_2e12" : "bn128_2e10";
    char wpath[1024];
    hpr_ctx *ctx = limited_ctx(64 << 10, "cpu");
    hpr_groth16_prover *p = test_open_prover(ctx, fixture);
    file_buf wt = read_fixture(fixture, "witness.wtns");
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    size_t full, least, full_file, least_file;
    const zkey_file *zk = g16_prover_zkey(p);
    mem_proof_need(ctx, zk, NULL, 0, &full, &least);
    size_t held_file = mem_proof_need(ctx, zk, NULL, 1, &full_file, &least_file);
    ck_assert_msg(full > (64 << 10) && least <= full && full <= full_file, "the proof's need (%zu) is above 64 KiB",
                  full);
    /* a witness file's bytes sit beside the values until parsed (then freed): counted then */
    ck_assert_msg(full_file >= held_file + (size_t)zk->n_vars * zk->n8r, "the file's bytes are counted (%zu)",
                  full_file);
    hpr_status st = hpr_groth16_prove(ctx, p, wt.data, wt.len, &proof);
    expect_refusal(ctx, st, "the proof", "64 KiB (hpr_config.memory_limit)");
    ck_assert_msg(proof_is_empty(&proof), "a refused proof is empty");
    fixture_path(wpath, sizeof wpath, fixture, "witness.wtns");
    st = hpr_groth16_prove_file(ctx, p, wpath, &proof);
    expect_refusal(ctx, st, "the proof", "64 KiB");
    ck_assert_msg(proof_is_empty(&proof), "a refused proof is empty");
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);

    ctx = limited_ctx(full_file, "cpu"); /* exactly the estimate (of the proof from a file: the larger) */
    p = test_open_prover(ctx, fixture);
    st = hpr_groth16_prove(ctx, p, wt.data, wt.len, &proof);
    ck_assert_msg(st == HPR_OK, "%s at its estimate: %s (%s)", fixture, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_verify(ctx, p, &proof), HPR_OK);
    hpr_groth16_proof_clear(&proof);
    ck_assert_int_eq(hpr_groth16_prove_file(ctx, p, wpath, &proof), HPR_OK);
    ck_assert_int_eq(hpr_groth16_verify(ctx, p, &proof), HPR_OK);
    hpr_groth16_proof_clear(&proof);
    /* after the proof nothing stays held: a plain MSM is checked on its own */
    ck_assert_int_eq(ctx->mem.held, 0);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
    free(wt.data);
}
END_TEST

/* HPR_MAX_MEMORY sets the limit (named as such), a malformed one refuses the context;
 * hpr_config.memory_limit wins over it. */
START_TEST(environment_limit)
{
    hpr_config cfg = {.struct_size = sizeof cfg};
    hpr_ctx *ctx = NULL;
    unsigned char out[64];
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    ck_assert_int_eq(cfg.memory_limit, 0);
    setenv("HPR_MAX_MEMORY", "12Q", 1);
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_ptr_null(ctx);
    setenv("HPR_MAX_MEMORY", "1K", 1);
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    size_t n = 3000, ps = 64;
    unsigned char *bp = malloc(n * ps), *bs = malloc(n * 32);
    ck_assert_int_eq(hpr_random_msm_inputs(ctx, HPR_CURVE_BN254, HPR_G1, n, 7, bp, bs), HPR_OK);
    expect_refusal(ctx, hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, bp, bs, n, out), "the MSM of 3000 points",
                   "1.0 KiB (HPR_MAX_MEMORY / --max-memory)");
    hpr_ctx_destroy(ctx);
    cfg.memory_limit = (size_t)1 << 30; /* the caller's limit wins */
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, bp, bs, n, out), HPR_OK);
    hpr_ctx_destroy(ctx);
    unsetenv("HPR_MAX_MEMORY");
    free(bp);
    free(bs);
}
END_TEST

/* The soak's fault knob (bench/soak.sh): HPR_SCHED_INJECT_FAULT=cl:P.D@rand:SEED:P fails each
 * unit of that device's work with probability P, other devices never; malformed forms are
 * refused when the context is made. */
START_TEST(random_fault_knob)
{
    static const char *bad[] = {"cl:0.0@rand:", "cl:0.0@rand:1", "cl:0.0@rand:1:", "cl:0.0@rand:1:1.5",
                                "cl:0.0@rand:x:0.5", "cl:0.0@rand:1:0.5x"};
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
        setenv("HPR_SCHED_INJECT_FAULT", bad[i], 1);
        ck_assert_msg(hpr_ctx_create(&cfg, &ctx) == HPR_ERR_INVALID_ARGUMENT, "'%s' is refused", bad[i]);
    }
    static const struct {
        const char *knob;
        unsigned lo, hi; /* faults among 1000 units of cl:0.0 */
    } cases[] = {{"cl:0.0@rand:7:1", 1000, 1000}, {"cl:0.0@rand:7:0", 0, 0}, {"cl:0.0@rand:7:0.5", 400, 600},
                 {"cl:0.0@rand:9:.25", 150, 350}};
    for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
        setenv("HPR_SCHED_INJECT_FAULT", cases[i].knob, 1);
        ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
        unsigned faults = 0;
        for (unsigned k = 1; k <= 1000; k++) {
            faults += ctx_sched_fault(ctx, "cl:0.0", k) != 0;
            ck_assert_int_eq(ctx_sched_fault(ctx, "cl:0.1", k), 0);
        }
        ck_assert_msg(faults >= cases[i].lo && faults <= cases[i].hi, "%s: %u faults in 1000 units", cases[i].knob,
                      faults);
        hpr_ctx_destroy(ctx);
    }
    unsetenv("HPR_SCHED_INJECT_FAULT");
}
END_TEST

/* Over sections precomputed twice, a proof's estimate holds the slices of w and h beside what
 * it held, and its MSMs twice the points; at exactly that estimate the proof runs and verifies. */
START_TEST(precomputed_proof_counts_its_slices)
{
    const char *fixture = "bn128_2e10";
    hpr_ctx *ctx = limited_ctx((size_t)1 << 40, "cpu");
    hpr_groth16_prover *p = test_open_prover(ctx, fixture);
    const zkey_file *zk = g16_prover_zkey(p);
    file_buf wt = read_fixture(fixture, "witness.wtns");
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    size_t full, least, full_pre, least_pre;
    size_t held = mem_proof_need(ctx, zk, NULL, 0, &full, &least);
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, 2), HPR_OK);
    size_t held_pre = mem_proof_need(ctx, zk, g16_prover_precomputed(p), 0, &full_pre, &least_pre);
    size_t slices = mem_round(64 * (size_t)zk->n_vars) + mem_round(64 * (size_t)zk->domain_size);
    ck_assert_msg(held_pre == held + slices, "held %zu, precomputed %zu, slices %zu", held, held_pre, slices);
    ck_assert_msg(full_pre > full + slices && least_pre > least, "full %zu -> %zu, least %zu -> %zu", full, full_pre,
                  least, least_pre);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
    ctx = limited_ctx(full_pre, "cpu");
    p = test_open_prover(ctx, fixture);
    ck_assert_int_eq(hpr_groth16_prover_precompute(ctx, p, 2), HPR_OK);
    hpr_status st = hpr_groth16_prove(ctx, p, wt.data, wt.len, &proof);
    ck_assert_msg(st == HPR_OK, "at its estimate: %s (%s)", hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_verify(ctx, p, &proof), HPR_OK);
    hpr_groth16_proof_clear(&proof);
    hpr_groth16_prover_destroy(p);
    hpr_ctx_destroy(ctx);
    free(wt.data);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("memory_budget");
    TCase *tc = test_case(s, "memory_budget", 600);
    tcase_add_test(tc, size_grammar);
    tcase_add_test(tc, msm_refused_before_writing);
    tcase_add_loop_test(tc, msm_in_pieces_gives_the_same_bytes, 0, (int)(sizeof piece_cases / sizeof piece_cases[0]));
    tcase_add_test(tc, msm_pieces_name_bad_inputs_by_their_index);
    tcase_add_test(tc, ntt_and_lde_refused_before_writing);
    tcase_add_loop_test(tc, proof_refused_then_proved, 0, 2);
    tcase_add_test(tc, precomputed_proof_counts_its_slices);
    tcase_add_test(tc, environment_limit);
    tcase_add_test(tc, random_fault_knob);
    return run_suite(s);
}
