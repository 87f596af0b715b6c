/*
 * test_ntt.c: hpr_ntt and hpr_ntt_lde in the five fields against a GMP oracle.
 *  - the O(n^2) DFT (A_k = sum_i c_i (s w^k)^i, w = g^((p-1)/n), computed in GMP) for n up to
 *    2^10, forward and inverse, every order (NN, NR, RN, RR), with and without a coset shift,
 *    the standard generator and an explicit one (snarkjs's 5 for BLS12-381 Fr);
 *  - inverse after forward is the identity up to 2^20; edge sizes 1, 2, 4;
 *  - 2^12, 2^16 and 2^20 on every CPU tier, and 2^16 on the first OpenCL device, at some
 *    outputs against the polynomial evaluated directly (forward, forward on a coset, inverse on
 *    a coset; orders mixed);
 *  - batches: row-major and column-major columns equal the columns one by one, 1 and 2
 *    threads give the same bits;
 *  - LDE at rates 2, 4, 8 equals explicit evaluation of the polynomial on the larger coset;
 *  - bad inputs: an element >= p (named, data unchanged), log_n above the two-adicity, bad
 *    shifts and generators, unknown fields and rates; the range check at its edges (p - 1
 *    and a lower word below p's taken; p, p + 1, a lower word above p's and all ones
 *    refused, by their index in either layout);
 *  - every CPU tier (the avx512 tier's 16-lane BabyBear/KoalaBear kernels, the avx2 tier's 8-lane
 *    and, on AArch64, the neon tier's 4-lane ones) gives the portable tier's bits;
 *  - the small fields' Montgomery constants (small_fields.h) against GMP.
 */
#include "test_support.h"

#include "hyprove.h"
#include "kernels_cpu/ntt_fields.h"

#include <string.h>

typedef struct {
    hpr_field field;
    const char *name, *p_dec;
    unsigned gen, size, adicity;
} field_t;

static const field_t fields[] = {
    {HPR_FIELD_BN254_FR, "bn254-fr", "21888242871839275222246405745257275088548364400416034343698204186575808495617", 5,
     32, 28},
    {HPR_FIELD_BLS12_381_FR, "bls12-381-fr",
     "52435875175126190479447740508185965837690552500527637822603658699938581184513", 7, 32, 32},
    {HPR_FIELD_GOLDILOCKS, "goldilocks", "18446744069414584321", 7, 8, 32},
    {HPR_FIELD_BABYBEAR, "babybear", "2013265921", 31, 4, 27},
    {HPR_FIELD_KOALABEAR, "koalabear", "2130706433", 3, 4, 24},
};
#define NFIELDS (sizeof fields / sizeof fields[0])

static hpr_ctx *make_ctx(unsigned threads)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.threads = threads;
    cfg.devices = "cpu";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    return ctx;
}

static void get_elem(mpz_t v, const unsigned char *bytes, unsigned size)
{
    mpz_import(v, size, -1, 1, 0, 0, bytes);
}

static void put_elem(unsigned char *bytes, unsigned size, const mpz_t v)
{
    size_t count = 0;
    memset(bytes, 0, size);
    mpz_export(bytes, &count, -1, 1, 0, 0, v);
}

/* count random elements below p (some 0, 1 and p - 1). */
static unsigned char *random_elems(const field_t *f, size_t count, test_rng *rng)
{
    unsigned char *d = malloc(count * f->size);
    mpz_t p, v;
    mpz_init_set_str(p, f->p_dec, 10);
    mpz_init(v);
    for (size_t i = 0; i < count; i++) {
        uint64_t limbs[4];
        for (int k = 0; k < 4; k++)
            limbs[k] = test_rng_next(rng);
        limbs_to_mpz(v, limbs, 4);
        mpz_mod(v, v, p);
        unsigned pick = (unsigned)(test_rng_next(rng) % 16);
        if (pick == 0)
            mpz_set_ui(v, 0);
        else if (pick == 1)
            mpz_set_ui(v, 1);
        else if (pick == 2)
            mpz_sub_ui(v, p, 1);
        put_elem(d + i * f->size, f->size, v);
    }
    mpz_clears(p, v, NULL);
    return d;
}

/* out = the DFT of in on shift * <w>, w = g^((p-1)/n), natural orders; inverse: its inverse. */
static void gmp_dft(const field_t *f, unsigned gen, const unsigned char *in, unsigned char *out, size_t n,
                    unsigned long shift, int inverse)
{
    mpz_t p, w, s, x, acc, t, c, e;
    mpz_inits(p, w, s, x, acc, t, c, e, NULL);
    mpz_set_str(p, f->p_dec, 10);
    mpz_sub_ui(e, p, 1);
    mpz_divexact_ui(e, e, (unsigned long)n);
    mpz_set_ui(w, gen);
    mpz_powm(w, w, e, p);
    mpz_set_ui(s, shift);
    if (inverse) {
        mpz_invert(w, w, p);
        mpz_invert(s, s, p);
    }
    for (size_t k = 0; k < n; k++) {
        mpz_powm_ui(x, w, (unsigned long)k, p); /* w^k */
        if (!inverse)
            mpz_mul(x, x, s), mpz_mod(x, x, p);  /* forward: points s w^k */
        mpz_set_ui(acc, 0);
        mpz_set_ui(t, 1); /* x^i */
        for (size_t i = 0; i < n; i++) {
            get_elem(c, in + i * f->size, f->size);
            mpz_addmul(acc, c, t);
            mpz_mul(t, t, x);
            mpz_mod(t, t, p);
        }
        mpz_mod(acc, acc, p);
        if (inverse) { /* c_k = n^-1 s^-k sum_i A_i w^-ik */
            mpz_set_ui(t, (unsigned long)n);
            mpz_invert(t, t, p);
            mpz_mul(acc, acc, t);
            mpz_powm_ui(t, s, (unsigned long)k, p);
            mpz_mul(acc, acc, t);
            mpz_mod(acc, acc, p);
        }
        put_elem(out + k * f->size, f->size, acc);
    }
    mpz_clears(p, w, s, x, acc, t, c, e, NULL);
}

static size_t reverse_bits(size_t i, unsigned bits)
{
    size_t r = 0;
    for (unsigned k = 0; k < bits; k++, i >>= 1)
        r = (r << 1) | (i & 1);
    return r;
}

/* dst = src in bit-reversed order (or a copy when reversed is 0). */
static void permute(unsigned char *dst, const unsigned char *src, size_t n, unsigned size, int reversed)
{
    unsigned bits = 0;
    while (((size_t)1 << bits) < n)
        bits++;
    for (size_t i = 0; i < n; i++)
        memcpy(dst + (reversed ? reverse_bits(i, bits) : i) * size, src + i * size, size);
}

static void expect_same(const field_t *f, const unsigned char *got, const unsigned char *want, size_t n,
                        const char *what)
{
    for (size_t i = 0; i < n; i++)
        if (memcmp(got + i * f->size, want + i * f->size, f->size) != 0)
            ck_abort_msg(SEED_FMT "%s %s: element %zu of %zu differs", test_seed, f->name, what, i, n);
}

/* Every order, forward and inverse, against the oracle, for one (field, n, shift, generator). */
static void check_orders(hpr_ctx *ctx, const field_t *f, unsigned log_n, unsigned long shift, unsigned gen,
                         test_rng *rng)
{
    size_t n = (size_t)1 << log_n, bytes = n * f->size;
    unsigned char *coeffs = random_elems(f, n, rng), *evals = malloc(bytes), *in = malloc(bytes),
                  *want = malloc(bytes);
    char shift_dec[24], gen_dec[24], what[96];
    snprintf(shift_dec, sizeof shift_dec, "%lu", shift);
    snprintf(gen_dec, sizeof gen_dec, "%u", gen);
    gmp_dft(f, gen, coeffs, evals, n, shift, 0);
    for (int order = HPR_NTT_NN; order <= HPR_NTT_RR; order++) {
        int in_rev = order == HPR_NTT_RN || order == HPR_NTT_RR, out_rev = order == HPR_NTT_NR || order == HPR_NTT_RR;
        hpr_ntt_opts opts = {sizeof opts, 0, (hpr_ntt_order)order, shift == 1 ? NULL : shift_dec,
                             gen == f->gen ? NULL : gen_dec, 1, 0, NULL};
        snprintf(what, sizeof what, "forward n=2^%u order %d shift %lu g %u", log_n, order, shift, gen);
        permute(in, coeffs, n, f->size, in_rev);
        ck_assert_msg(hpr_ntt(ctx, f->field, log_n, in, &opts) == HPR_OK, "%s: %s", what, hpr_ctx_error_detail(ctx));
        permute(want, evals, n, f->size, out_rev);
        expect_same(f, in, want, n, what);
        opts.inverse = 1;
        snprintf(what, sizeof what, "inverse n=2^%u order %d shift %lu g %u", log_n, order, shift, gen);
        permute(in, evals, n, f->size, in_rev);
        ck_assert_msg(hpr_ntt(ctx, f->field, log_n, in, &opts) == HPR_OK, "%s: %s", what, hpr_ctx_error_detail(ctx));
        permute(want, coeffs, n, f->size, out_rev);
        expect_same(f, in, want, n, what);
    }
    free(coeffs);
    free(evals);
    free(in);
    free(want);
}

/* _i = field */
START_TEST(dft_orders_cosets_and_generators_match_gmp)
{
    const field_t *f = &fields[_i];
    static const unsigned sizes[] = {0, 1, 2, 5, 10};
    test_rng rng;
    test_rng_init(&rng, 100 + (uint64_t)_i);
    hpr_ctx *ctx = make_ctx(2);
    for (size_t k = 0; k < sizeof sizes / sizeof sizes[0]; k++) {
        check_orders(ctx, f, sizes[k], 1, f->gen, &rng);
        if (sizes[k] <= 5)
            check_orders(ctx, f, sizes[k], 1 + test_rng_next(&rng) % 1000000, f->gen, &rng);
    }
    if (f->field == HPR_FIELD_BLS12_381_FR || f->field == HPR_FIELD_BN254_FR)
        check_orders(ctx, f, 4, 1, 5, &rng); /* snarkjs derives both fields' roots from 5 */
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i = field: forward then inverse is the identity at 2^20 (or the field's largest size
 * below it), coset and plain; 1 and 2 threads give the same bits. */
START_TEST(inverse_after_forward_is_the_identity_up_to_2_20)
{
    const field_t *f = &fields[_i];
    unsigned log_n = (unsigned)test_size(20, 13);
    size_t n = (size_t)1 << log_n;
    test_rng rng;
    test_rng_init(&rng, 200 + (uint64_t)_i);
    hpr_ctx *ctx = make_ctx(2), *ctx1 = make_ctx(1);
    unsigned char *orig = random_elems(f, n, &rng), *a = malloc(n * f->size), *b = malloc(n * f->size);
    hpr_ntt_opts fwd = {sizeof fwd, 0, HPR_NTT_NR, "12345", NULL, 1, 0, NULL}, inv = {sizeof inv, 1, HPR_NTT_RN,
                        "12345", NULL, 1, 0, NULL};
    memcpy(a, orig, n * f->size);
    memcpy(b, orig, n * f->size);
    ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n, a, &fwd), HPR_OK);
    ck_assert_int_eq(hpr_ntt(ctx1, f->field, log_n, b, &fwd), HPR_OK);
    expect_same(f, a, b, n, "2 threads against 1");
    ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n, a, &inv), HPR_OK);
    expect_same(f, a, orig, n, "coset inverse(forward)");
    ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n, a, NULL), HPR_OK);
    hpr_ntt_opts back = {sizeof back, 1, HPR_NTT_NN, NULL, NULL, 1, 0, NULL};
    ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n, a, &back), HPR_OK);
    expect_same(f, a, orig, n, "inverse(forward) NN");
    free(orig);
    free(a);
    free(b);
    hpr_ctx_destroy(ctx);
    hpr_ctx_destroy(ctx1);
}
END_TEST

/* _i = field: a batch of 5 columns of 2^7, both layouts, equals the columns one by one. */
START_TEST(batched_columns_equal_single_columns)
{
    const field_t *f = &fields[_i];
    unsigned log_n = 7;
    size_t n = (size_t)1 << log_n, cols = 5, es = f->size;
    test_rng rng;
    test_rng_init(&rng, 300 + (uint64_t)_i);
    hpr_ctx *ctx = make_ctx(2);
    unsigned char *colmajor = random_elems(f, n * cols, &rng), *rowmajor = malloc(n * cols * es),
                  *one = malloc(n * es);
    for (size_t c = 0; c < cols; c++)
        for (size_t j = 0; j < n; j++)
            memcpy(rowmajor + (j * cols + c) * es, colmajor + (c * n + j) * es, es);
    hpr_ntt_opts cm = {sizeof cm, 0, HPR_NTT_NR, "3", NULL, cols, 0, NULL}, rm = {sizeof rm, 0, HPR_NTT_NR, "3",
                       NULL, cols, 1, NULL},
                 single = {sizeof single, 0, HPR_NTT_NR, "3", NULL, 1, 0, NULL};
    unsigned char *cm_in = malloc(n * cols * es);
    memcpy(cm_in, colmajor, n * cols * es);
    ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n, colmajor, &cm), HPR_OK);
    ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n, rowmajor, &rm), HPR_OK);
    for (size_t c = 0; c < cols; c++) {
        memcpy(one, cm_in + c * n * es, n * es);
        ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n, one, &single), HPR_OK);
        expect_same(f, colmajor + c * n * es, one, n, "column-major batch");
        for (size_t j = 0; j < n; j++)
            ck_assert_msg(memcmp(rowmajor + (j * cols + c) * es, one + j * es, es) == 0,
                          SEED_FMT "%s row-major batch: column %zu element %zu", test_seed, f->name, c, j);
    }
    free(colmajor);
    free(rowmajor);
    free(one);
    free(cm_in);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i = field: LDE at rates 2, 4, 8 equals the polynomial evaluated (GMP) on g * <w'>. */
START_TEST(lde_equals_explicit_evaluation)
{
    const field_t *f = &fields[_i];
    unsigned log_n = 5;
    size_t n = (size_t)1 << log_n;
    test_rng rng;
    test_rng_init(&rng, 400 + (uint64_t)_i);
    hpr_ctx *ctx = make_ctx(2);
    unsigned char *coeffs = random_elems(f, n, &rng);
    for (unsigned rate = 2; rate <= 8; rate *= 2) {
        size_t m = n * rate;
        unsigned char *padded = calloc(m, f->size), *want = malloc(m * f->size), *got = malloc(m * f->size);
        memcpy(padded, coeffs, n * f->size);
        gmp_dft(f, f->gen, padded, want, m, f->gen, 0); /* default shift: the generator */
        ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, log_n, rate, NULL, 1, coeffs, got), HPR_OK);
        expect_same(f, got, want, m, rate == 2 ? "LDE rate 2" : rate == 4 ? "LDE rate 4" : "LDE rate 8");
        gmp_dft(f, f->gen, padded, want, m, 11, 0);
        ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, log_n, rate, "11", 1, coeffs, got), HPR_OK);
        expect_same(f, got, want, m, "LDE shift 11");
        /* a batch of three columns equals the columns one by one */
        unsigned char *three = random_elems(f, 3 * n, &rng), *batch = malloc(3 * m * f->size);
        ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, log_n, rate, "11", 3, three, batch), HPR_OK);
        for (size_t c = 0; c < 3; c++) {
            ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, log_n, rate, "11", 1, three + c * n * f->size, got), HPR_OK);
            expect_same(f, batch + c * m * f->size, got, m, "LDE batch");
        }
        free(three);
        free(batch);
        free(padded);
        free(want);
        free(got);
    }
    free(coeffs);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i = field: large LDEs (two columns of 2^13, more than one conversion chunk) at rates 2
 * and 8 equal the coset NTT of the zero-padded columns bit for bit (the segment path
 * against the whole transform), and a bad coefficient past the first chunk is named with
 * out left unchanged. */
START_TEST(large_lde_equals_the_padded_coset_ntt)
{
    const field_t *f = &fields[_i];
    unsigned log_n = (unsigned)test_size(13, 9);
    size_t n = (size_t)1 << log_n;
    test_rng rng;
    test_rng_init(&rng, 700 + (uint64_t)_i);
    hpr_ctx *ctx = make_ctx(2);
    unsigned char *coeffs = random_elems(f, 2 * n, &rng);
    for (unsigned rate = 2; rate <= 8; rate *= 4) {
        size_t m = n * rate;
        unsigned char *want = calloc(2 * m, f->size), *got = malloc(2 * m * f->size);
        for (size_t c = 0; c < 2; c++)
            memcpy(want + c * m * f->size, coeffs + c * n * f->size, n * f->size);
        char gen_dec[24];
        snprintf(gen_dec, sizeof gen_dec, "%u", f->gen);
        hpr_ntt_opts coset = {sizeof coset, 0, HPR_NTT_NN, gen_dec, NULL, 2, 0, "cpu"};
        ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n + (rate == 2 ? 1 : 3), want, &coset), HPR_OK);
        ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, log_n, rate, NULL, 2, coeffs, got), HPR_OK);
        expect_same(f, got, want, 2 * m, rate == 2 ? "large LDE rate 2" : "large LDE rate 8");
        free(want);
        free(got);
    }
    mpz_t p;
    mpz_init_set_str(p, f->p_dec, 10);
    put_elem(coeffs + (n + 5) * f->size, f->size, p); /* column 1, row 5 = p */
    unsigned char *out = malloc(2 * n * f->size), *copy = malloc(2 * n * f->size);
    memset(out, 0xab, 2 * n * f->size);
    memcpy(copy, out, 2 * n * f->size);
    ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, log_n, 2, NULL, 1, coeffs, out), HPR_OK); /* column 0 only */
    memcpy(out, copy, 2 * n * f->size);
    unsigned char *big = malloc(4 * n * f->size);
    memset(big, 0xab, 4 * n * f->size);
    ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, log_n, 2, NULL, 2, coeffs, big), HPR_ERR_ELEMENT_OUT_OF_RANGE);
    char want_detail[64];
    snprintf(want_detail, sizeof want_detail, "coefficient %zu ", n + 5);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), want_detail) != NULL, "%s", hpr_ctx_error_detail(ctx));
    for (size_t i = 0; i < 4 * n * f->size; i++)
        ck_assert_int_eq(big[i], 0xab);
    mpz_clear(p);
    free(big);
    free(out);
    free(copy);
    free(coeffs);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i = field: every CPU tier this machine runs gives the portable tier's bits (sizes 2^0 ..
 * 2^16, each forward and inverse, every order, cosets, batches). */
START_TEST(every_cpu_tier_gives_the_portable_bits)
{
    const field_t *f = &fields[_i];
    test_rng rng;
    test_rng_init(&rng, 600 + (uint64_t)_i);
    hpr_ctx *ref = test_cpu_ctx("portable", 2, 0);
    for (unsigned t = 1; t < hpr_cpu_tier_count(); t++) { /* every tier the library knows but portable */
        const char *tier = hpr_cpu_tier_name(t);
        if (!test_tier_runs(t))
            continue;
        hpr_ctx *ctx = test_cpu_ctx(tier, 2, 0);
        for (unsigned k = 0; k < 16; k++) { /* log_n 0..4, 8, 12, 16, both directions */
            unsigned log_n = k / 2 <= 4 ? k / 2 : 4 * (k / 2 - 3);
            size_t cols = 1 + log_n % 3, total = cols << log_n;
            hpr_ntt_opts opts = {sizeof opts, (int)(k % 2), (hpr_ntt_order)(log_n % 4), log_n % 3 ? "9" : NULL, NULL,
                                 cols,
                                 (int)(log_n % 2), NULL};
            unsigned char *want = random_elems(f, total, &rng), *got = malloc(total * f->size);
            memcpy(got, want, total * f->size);
            ck_assert_int_eq(hpr_ntt(ref, f->field, log_n, want, &opts), HPR_OK);
            ck_assert_int_eq(hpr_ntt(ctx, f->field, log_n, got, &opts), HPR_OK);
            expect_same(f, got, want, total, tier);
            free(want);
            free(got);
        }
        hpr_ctx_destroy(ctx);
    }
    hpr_ctx_destroy(ref);
}
END_TEST

/* ---- large transforms against direct evaluation ---- */

/* sum_i c_i x^i over the n coefficients at c, reduced mod p: Horner, in 128-bit integers for
 * the fields below 2^64, else GMP. */
static void eval_poly(mpz_t acc, const field_t *f, const unsigned char *c, size_t n, const mpz_t x, const mpz_t p)
{
    if (f->size <= 8) {
        uint64_t xv = mpz_get_ui(x), pv = mpz_get_ui(p);
        unsigned __int128 a = 0;
        for (size_t i = n; i-- > 0;) {
            uint64_t ci = 0;
            memcpy(&ci, c + i * f->size, f->size); /* little-endian, canonical */
            a = (a * xv + ci) % pv;
        }
        mpz_set_ui(acc, (unsigned long)(uint64_t)a);
        return;
    }
    mpz_t t;
    mpz_init(t);
    mpz_set_ui(acc, 0);
    for (size_t i = n; i-- > 0;) {
        mpz_mul(acc, acc, x);
        get_elem(t, c + i * f->size, f->size);
        mpz_add(acc, acc, t);
        mpz_mod(acc, acc, p);
    }
    mpz_clear(t);
}

/* The transform's output element at got equals scale * P(x), P the n coefficients at c. */
static void expect_value(const field_t *f, const unsigned char *c, size_t n, const mpz_t x, const mpz_t scale,
                         const mpz_t p, const unsigned char *got, const char *what, size_t k)
{
    mpz_t want, have;
    mpz_inits(want, have, NULL);
    eval_poly(want, f, c, n, x, p);
    mpz_mul(want, want, scale);
    mpz_mod(want, want, p);
    get_elem(have, got, f->size);
    ck_assert_msg(mpz_cmp(want, have) == 0, SEED_FMT "%s %s: output %zu of %zu differs from the direct evaluation",
                  test_seed, f->name, what, k, n);
    mpz_clears(want, have, NULL);
}

/* The outputs checked: 0, 1, n/2, n - 1, then random ones, count in all. */
static size_t probe_index(size_t j, size_t n, test_rng *rng)
{
    static const int fixed = 4;
    if (j < (size_t)fixed)
        return j == 0 ? 0 : j == 1 ? 1 % n : j == 2 ? n / 2 : n - 1;
    return (size_t)(test_rng_next(rng) % n);
}

/* One size on one context: forward NN (A_k = P(w^k)), forward NR on the coset s<w>
 * (out[rev k] = P(s w^k)) and inverse RN on that coset (evaluations E given bit-reversed;
 * c_k = n^-1 s^-k E(w^-k)), each at `points` outputs. */
static void check_large(hpr_ctx *ctx, const field_t *f, unsigned log_n, unsigned points, const char *where,
                        test_rng *rng)
{
    size_t n = (size_t)1 << log_n, bytes = n * f->size;
    unsigned char *coeffs = random_elems(f, n, rng), *work = malloc(bytes), *evals = random_elems(f, n, rng);
    mpz_t p, w, winv, s, sinv, ninv, x, scale, e;
    char what[96];
    mpz_inits(p, w, winv, s, sinv, ninv, x, scale, e, NULL);
    mpz_set_str(p, f->p_dec, 10);
    mpz_sub_ui(e, p, 1);
    mpz_divexact_ui(e, e, (unsigned long)n);
    mpz_set_ui(w, f->gen);
    mpz_powm(w, w, e, p);
    mpz_invert(winv, w, p);
    mpz_set_ui(s, 7);
    mpz_invert(sinv, s, p);
    mpz_set_ui(ninv, (unsigned long)n);
    mpz_invert(ninv, ninv, p);
    hpr_ntt_opts plain = {sizeof plain, 0, HPR_NTT_NN, NULL, NULL, 1, 0, NULL}, coset = {sizeof coset, 0, HPR_NTT_NR,
                          "7", NULL, 1, 0, NULL},
                 inverse = {sizeof inverse, 1, HPR_NTT_RN, "7", NULL, 1, 0, NULL};

    memcpy(work, coeffs, bytes);
    ck_assert_msg(hpr_ntt(ctx, f->field, log_n, work, &plain) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
    snprintf(what, sizeof what, "%s, forward 2^%u", where, log_n);
    mpz_set_ui(scale, 1);
    for (size_t j = 0; j < points; j++) {
        size_t k = probe_index(j, n, rng);
        mpz_powm_ui(x, w, (unsigned long)k, p);
        expect_value(f, coeffs, n, x, scale, p, work + k * f->size, what, k);
    }

    memcpy(work, coeffs, bytes);
    ck_assert_msg(hpr_ntt(ctx, f->field, log_n, work, &coset) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
    snprintf(what, sizeof what, "%s, forward 2^%u on the coset 7<w>, output bit-reversed", where, log_n);
    for (size_t j = 0; j < points; j++) {
        size_t k = probe_index(j, n, rng);
        mpz_powm_ui(x, w, (unsigned long)k, p);
        mpz_mul(x, x, s);
        mpz_mod(x, x, p);
        expect_value(f, coeffs, n, x, scale, p, work + reverse_bits(k, log_n) * f->size, what, k);
    }

    permute(work, evals, n, f->size, 1);
    ck_assert_msg(hpr_ntt(ctx, f->field, log_n, work, &inverse) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
    snprintf(what, sizeof what, "%s, inverse 2^%u on the coset 7<w>, input bit-reversed", where, log_n);
    for (size_t j = 0; j < points; j++) {
        size_t k = probe_index(j, n, rng);
        mpz_powm_ui(x, winv, (unsigned long)k, p);
        mpz_powm_ui(scale, sinv, (unsigned long)k, p);
        mpz_mul(scale, scale, ninv);
        mpz_mod(scale, scale, p);
        expect_value(f, evals, n, x, scale, p, work + k * f->size, what, k);
    }
    mpz_clears(p, w, winv, s, sinv, ninv, x, scale, e, NULL);
    free(coeffs);
    free(evals);
    free(work);
}

/* _i = field: transforms of 2^12, 2^16 and 2^20 (across and beyond every field's cache block;
 * reduced: 2^12 and 2^13), on every CPU tier that runs here, checked at some outputs against the
 * polynomial evaluated directly (O(n) each): a partner independent of the library above the
 * O(n^2) DFT's 2^10, which sees a twiddle that forward and inverse would get wrong alike and
 * needs no second tier to compare with. */
START_TEST(large_transforms_match_direct_evaluation)
{
    const field_t *f = &fields[_i];
    static const unsigned sizes[] = {12, 16, 20}, reduced[] = {12, 13};
    test_rng rng;
    test_rng_init(&rng, 700 + (uint64_t)_i);
    for (unsigned t = 0; t < hpr_cpu_tier_count(); t++) {
        if (!test_tier_runs(t))
            continue;
        hpr_ctx *ctx = test_cpu_ctx(hpr_cpu_tier_name(t), 2, 0);
        char where[32];
        snprintf(where, sizeof where, "tier %s", hpr_cpu_tier_name(t));
        for (size_t k = 0; k < (test_reduced() ? 2 : 3); k++) {
            unsigned log_n = test_reduced() ? reduced[k] : sizes[k];
            if (log_n <= f->adicity)
                check_large(ctx, f, log_n, log_n >= 20 ? 6 : 12, where, &rng);
        }
        hpr_ctx_destroy(ctx);
    }
}
END_TEST

/* The first usable OpenCL device into id (16 bytes): 1, or 0 after saying why there is none
 * (a failure when HPR_CI_REQUIRE names opencl). */
static int first_opencl_device(char *id)
{
    hpr_ctx *ctx = test_ctx("cpu", 1);
    hpr_device_info info = {.struct_size = sizeof info};
    int found = 0;
    for (unsigned d = 0; d < hpr_device_count(ctx) && !found; d++)
        if (hpr_device_get_info(ctx, d, &info) == HPR_OK && info.usable && strlen(info.id) < 16) {
            strcpy(id, info.id);
            found = 1;
        }
    hpr_ctx_destroy(ctx);
    if (!found) {
        ck_assert_msg(!test_required("opencl"), "no usable OpenCL device, and HPR_CI_REQUIRE names opencl");
        printf("no usable OpenCL device: the device's large transforms are not checked here\n");
    }
    return found;
}

/* _i = field: the same direct-evaluation check of 2^16 transforms (2^12 reduced) on the first
 * OpenCL device (POCL's CPU device in CI): its kernels are other code than the CPU tiers',
 * and above 2^13 test_opencl_ntt.c compares them with nothing else. */
START_TEST(large_transforms_on_the_opencl_device_match_direct_evaluation)
{
    const field_t *f = &fields[_i];
    char id[16], what[32];
    test_rng rng;
    if (!first_opencl_device(id))
        return;
    test_rng_init(&rng, 750 + (uint64_t)_i);
    hpr_ctx *ctx = test_ctx(id, 1);
    snprintf(what, sizeof what, "device %s", id);
    check_large(ctx, f, test_reduced() ? 12 : 16, 8, what, &rng);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(bad_inputs_are_refused_and_leave_data_unchanged)
{
    hpr_ctx *ctx = make_ctx(1);
    for (size_t fi = 0; fi < NFIELDS; fi++) {
        const field_t *f = &fields[fi];
        size_t n = 8;
        unsigned char data[8 * 32], copy[8 * 32];
        mpz_t p;
        mpz_init_set_str(p, f->p_dec, 10);
        memset(data, 0, sizeof data);
        data[0] = 1;
        put_elem(data + 5 * f->size, f->size, p); /* element 5 = p */
        memcpy(copy, data, sizeof copy);
        ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, NULL), HPR_ERR_ELEMENT_OUT_OF_RANGE);
        ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "element 5 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
        ck_assert(memcmp(data, copy, sizeof data) == 0);
        memset(data + 5 * f->size, 0, f->size);
        ck_assert_int_eq(hpr_ntt(ctx, f->field, f->adicity + 1, data, NULL), HPR_ERR_INVALID_ARGUMENT);
        ck_assert(strstr(hpr_ctx_error_detail(ctx), "two-adicity") != NULL);
        hpr_ntt_opts bad_shift = {sizeof bad_shift, 0, HPR_NTT_NN, "0", NULL, 1, 0, NULL};
        ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, &bad_shift), HPR_ERR_INVALID_ARGUMENT);
        ck_assert(strstr(hpr_ctx_error_detail(ctx), "coset shift") != NULL);
        bad_shift.coset_shift = "12x";
        ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, &bad_shift), HPR_ERR_INVALID_ARGUMENT);
        char p_dec[100];
        gmp_snprintf(p_dec, sizeof p_dec, "%Zd", p);
        bad_shift.coset_shift = p_dec;
        ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, &bad_shift), HPR_ERR_INVALID_ARGUMENT);
        hpr_ntt_opts bad_gen = {sizeof bad_gen, 0, HPR_NTT_NN, NULL, "1", 1, 0, NULL}; /* 1 generates nothing */
        ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, &bad_gen), HPR_ERR_INVALID_ARGUMENT);
        ck_assert(strstr(hpr_ctx_error_detail(ctx), "primitive root") != NULL);
        hpr_ntt_opts bad_order = {sizeof bad_order, 0, (hpr_ntt_order)7, NULL, NULL, 1, 0, NULL};
        ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, &bad_order), HPR_ERR_INVALID_ARGUMENT);
        ck_assert(memcmp(data, copy, f->size) == 0);
        unsigned char out[64 * 32];
        ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, 3, 3, NULL, 1, data, out), HPR_ERR_INVALID_ARGUMENT);
        ck_assert_int_eq(hpr_ntt_lde(ctx, f->field, f->adicity, 2, NULL, 1, data, out), HPR_ERR_INVALID_ARGUMENT);
        (void)n;
        mpz_clear(p);
    }
    unsigned char d[32] = {0};
    ck_assert_int_eq(hpr_ntt(ctx, (hpr_field)99, 0, d, NULL), HPR_ERR_UNSUPPORTED_FIELD);
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_BN254_FR, 0, NULL, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_uint_eq(hpr_field_element_size((hpr_field)99), 0);
    ck_assert_uint_eq(hpr_field_two_adicity(HPR_FIELD_BABYBEAR), 27);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* The range check compares words, converting nothing: p - 1 and values whose top word is
 * p's but a lower one below are taken; p, p + 1, a lower word above p's under an equal top
 * word, and all ones are refused, named by their index in the caller's layout (row-major:
 * row * columns + column), the data unchanged. */
START_TEST(range_check_takes_p_minus_1_and_refuses_p_and_above)
{
    hpr_ctx *ctx = make_ctx(2);
    for (size_t fi = 0; fi < NFIELDS; fi++) {
        const field_t *f = &fields[fi];
        size_t n = 8, cols = 2, es = f->size;
        unsigned char data[2 * 8 * 32], copy[sizeof data];
        hpr_ntt_opts rm = {sizeof rm, 0, HPR_NTT_NN, NULL, NULL, cols, 1, NULL};
        mpz_t p, v;
        mpz_init_set_str(p, f->p_dec, 10);
        mpz_init(v);
        for (int bad = 0; bad < 5; bad++) {
            memset(data, 0, sizeof data);
            mpz_sub_ui(v, p, 1);
            put_elem(data + 3 * es, es, v); /* taken */
            if (es == 32) { /* top word p's, the word below one less: taken */
                put_elem(data + 4 * es, es, p);
                data[4 * es + 16] = (unsigned char)(data[4 * es + 16] - 1);
                data[4 * es + 1] = 0xff;
            }
            if (bad == 0) {
                memcpy(copy, data, sizeof data);
                ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, &rm), HPR_OK);
                continue;
            }
            if (bad == 1)
                mpz_set(v, p);
            else if (bad == 2)
                mpz_add_ui(v, p, 1);
            else
                mpz_ui_pow_ui(v, 2, 8 * es), mpz_sub_ui(v, v, 1);
            put_elem(data + 11 * es, es, v); /* row 5, column 1 */
            if (bad == 4) {
                if (es != 32)
                    continue;
                put_elem(data + 11 * es, es, p); /* top word p's, the word below one more */
                data[11 * es + 16] = (unsigned char)(data[11 * es + 16] + 1);
                ck_assert(data[11 * es + 16] != 0);
            }
            memcpy(copy, data, sizeof data);
            ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, &rm), HPR_ERR_ELEMENT_OUT_OF_RANGE);
            ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "element 11 ") != NULL, "%s %d: %s", f->name, bad,
                          hpr_ctx_error_detail(ctx));
            ck_assert(memcmp(data, copy, sizeof data) == 0);
            rm.row_major = 0; /* column-major: the same bytes, element 11 is column 1's row 3 */
            ck_assert_int_eq(hpr_ntt(ctx, f->field, 3, data, &rm), HPR_ERR_ELEMENT_OUT_OF_RANGE);
            ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "element 11 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
            ck_assert(memcmp(data, copy, sizeof data) == 0);
            rm.row_major = 1;
        }
        (void)n;
        mpz_clears(p, v, NULL);
    }
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(small_field_constants_match_gmp)
{
    static const struct {
        uint32_t p, pinv, r2;
    } m31[] = {{BB_P, BB_PINV, BB_R2}, {KB_P, KB_PINV, KB_R2}};
    mpz_t p, t, two32;
    mpz_inits(p, t, two32, NULL);
    mpz_ui_pow_ui(two32, 2, 32);
    for (size_t i = 0; i < 2; i++) {
        mpz_set_ui(p, m31[i].p);
        ck_assert(mpz_probab_prime_p(p, 30));
        ck_assert_uint_eq((uint32_t)(m31[i].p * m31[i].pinv), 0xffffffffu); /* p * pinv = -1 mod 2^32 */
        mpz_powm_ui(t, two32, 2, p);
        ck_assert_uint_eq(mpz_get_ui(t), m31[i].r2);
    }
    mpz_set_str(p, "18446744069414584321", 10);
    ck_assert(mpz_probab_prime_p(p, 30));
    ck_assert(mpz_cmp_ui(p, 0) > 0 && GL_P == 18446744069414584321ull);
    mpz_clears(p, t, two32, NULL);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("ntt");
    TCase *tc = tcase_create("ntt");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, dft_orders_cosets_and_generators_match_gmp, 0, NFIELDS);
    tcase_add_loop_test(tc, inverse_after_forward_is_the_identity_up_to_2_20, 0, NFIELDS);
    tcase_add_loop_test(tc, batched_columns_equal_single_columns, 0, NFIELDS);
    tcase_add_loop_test(tc, lde_equals_explicit_evaluation, 0, NFIELDS);
    tcase_add_loop_test(tc, large_lde_equals_the_padded_coset_ntt, 0, NFIELDS);
    tcase_add_loop_test(tc, every_cpu_tier_gives_the_portable_bits, 0, NFIELDS);
    tcase_add_loop_test(tc, large_transforms_match_direct_evaluation, 0, NFIELDS);
    tcase_add_loop_test(tc, large_transforms_on_the_opencl_device_match_direct_evaluation, 0, NFIELDS);
    tcase_add_test(tc, bad_inputs_are_refused_and_leave_data_unchanged);
    tcase_add_test(tc, range_check_takes_p_minus_1_and_refuses_p_and_above);
    tcase_add_test(tc, small_field_constants_match_gmp);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
