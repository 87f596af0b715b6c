/*
 * test_field.c: every field operation of the four fields against GMP, on random values and
 * on the edges (0, 1, p-1, R, R^2, all-ones limbs and values >= p for the checked decoder).
 */
#include "test_support.h"

#include "arith/curves.h"

#include <string.h>

#define MAXL 6
#define RANDOM_ROUNDS 2000

typedef struct {
    const char *name;
    unsigned limbs;
    const uint64_t *p;
    void (*add)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*sub)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*mul)(uint64_t *, const uint64_t *, const uint64_t *);
    void (*neg)(uint64_t *, const uint64_t *);
    void (*dbl)(uint64_t *, const uint64_t *);
    void (*sqr)(uint64_t *, const uint64_t *);
    int (*inv)(uint64_t *, const uint64_t *);
    int (*inv_fermat)(uint64_t *, const uint64_t *);
    int (*eq)(const uint64_t *, const uint64_t *);
    int (*is_zero)(const uint64_t *);
    int (*from_bytes)(uint64_t *, const unsigned char *);
    void (*to_bytes)(unsigned char *, const uint64_t *);
    void (*one)(uint64_t *);
} field;

#define WRAP(F, K)                                                                                            \
    static const uint64_t F##_modulus[] = K##_P;                                                             \
    static void F##_w_add(uint64_t *r, const uint64_t *a, const uint64_t *b) { F##_add((F *)r, (const F *)a, (const F *)b); } \
    static void F##_w_sub(uint64_t *r, const uint64_t *a, const uint64_t *b) { F##_sub((F *)r, (const F *)a, (const F *)b); } \
    static void F##_w_mul(uint64_t *r, const uint64_t *a, const uint64_t *b) { F##_mul((F *)r, (const F *)a, (const F *)b); } \
    static void F##_w_neg(uint64_t *r, const uint64_t *a) { F##_neg((F *)r, (const F *)a); }                      \
    static void F##_w_dbl(uint64_t *r, const uint64_t *a) { F##_dbl((F *)r, (const F *)a); }                      \
    static void F##_w_sqr(uint64_t *r, const uint64_t *a) { F##_sqr((F *)r, (const F *)a); }                      \
    static int F##_w_inv(uint64_t *r, const uint64_t *a) { return F##_inv((F *)r, (const F *)a); }               \
    static int F##_w_inv_fermat(uint64_t *r, const uint64_t *a) { return F##_inv_fermat((F *)r, (const F *)a); } \
    static int F##_w_eq(const uint64_t *a, const uint64_t *b) { return F##_eq((const F *)a, (const F *)b); }     \
    static int F##_w_is_zero(const uint64_t *a) { return F##_is_zero((const F *)a); }                            \
    static int F##_w_from_bytes(uint64_t *r, const unsigned char *b) { return F##_from_bytes((F *)r, b); }      \
    static void F##_w_to_bytes(unsigned char *b, const uint64_t *a) { F##_to_bytes(b, (const F *)a); }          \
    static void F##_w_one(uint64_t *r) { F##_set_one((F *)r); }

WRAP(bn254_fp, BN254_FP)
WRAP(bn254_fr, BN254_FR)
WRAP(bls12_381_fp, BLS12_381_FP)
WRAP(bls12_381_fr, BLS12_381_FR)

#define FIELD(F, N)                                                                                           \
    {#F, N, F##_modulus, F##_w_add, F##_w_sub, F##_w_mul, F##_w_neg, F##_w_dbl, F##_w_sqr, F##_w_inv, F##_w_inv_fermat, F##_w_eq, \
     F##_w_is_zero, F##_w_from_bytes, F##_w_to_bytes, F##_w_one}

static const field fields[] = {FIELD(bn254_fp, 4), FIELD(bn254_fr, 4), FIELD(bls12_381_fp, 6), FIELD(bls12_381_fr, 4)};
#define NFIELDS (sizeof fields / sizeof fields[0])

/* The oracle's view of one field: p, R, R^-1. */
typedef struct {
    mpz_t p, r, rinv;
} oracle;

static void oracle_init(oracle *o, const field *f)
{
    mpz_inits(o->p, o->r, o->rinv, NULL);
    limbs_to_mpz(o->p, f->p, f->limbs);
    mpz_set_ui(o->r, 1);
    mpz_mul_2exp(o->r, o->r, 64 * f->limbs);
    mpz_mod(o->r, o->r, o->p);
    mpz_invert(o->rinv, o->r, o->p);
}

static void oracle_clear(oracle *o)
{
    mpz_clears(o->p, o->r, o->rinv, NULL);
}

/* The values every operation is tried on: edges, then random ones (all as limbs, < p). */
static size_t sample_values(const field *f, const oracle *o, uint64_t (*out)[MAXL], size_t cap, test_rng *rng)
{
    mpz_t v;
    size_t n = 0;
    mpz_init(v);
    const long small[] = {0, 1, 2, 3};
    for (size_t i = 0; i < 4; i++) {
        mpz_set_si(v, small[i]);
        mpz_to_limbs(out[n++], f->limbs, v);
    }
    mpz_sub_ui(v, o->p, 1); /* p - 1 */
    mpz_to_limbs(out[n++], f->limbs, v);
    mpz_sub_ui(v, o->p, 2);
    mpz_to_limbs(out[n++], f->limbs, v);
    mpz_to_limbs(out[n++], f->limbs, o->r); /* R mod p */
    mpz_mul(v, o->r, o->r);
    mpz_mod(v, v, o->p); /* R^2 mod p */
    mpz_to_limbs(out[n++], f->limbs, v);
    mpz_set_ui(v, 1);
    mpz_mul_2exp(v, v, 64 * f->limbs);
    mpz_sub_ui(v, v, 1); /* all-ones limbs, reduced */
    mpz_mod(v, v, o->p);
    mpz_to_limbs(out[n++], f->limbs, v);
    mpz_set_ui(v, 1);
    mpz_mul_2exp(v, v, 64 * (f->limbs - 1)); /* a carry edge: one limb boundary */
    mpz_sub_ui(v, v, 1);
    mpz_to_limbs(out[n++], f->limbs, v);
    while (n < cap) {
        uint64_t raw[MAXL];
        for (unsigned i = 0; i < f->limbs; i++)
            raw[i] = test_rng_next(rng);
        limbs_to_mpz(v, raw, f->limbs);
        mpz_mod(v, v, o->p);
        mpz_to_limbs(out[n++], f->limbs, v);
    }
    mpz_clear(v);
    return n;
}

static void expect_limbs(const field *f, const char *op, const uint64_t *got, const mpz_t want, const uint64_t *a,
                         const uint64_t *b)
{
    uint64_t w[MAXL];
    mpz_t av, bv;
    mpz_to_limbs(w, f->limbs, want);
    if (memcmp(got, w, f->limbs * 8) == 0)
        return;
    mpz_inits(av, bv, NULL);
    limbs_to_mpz(av, a, f->limbs);
    limbs_to_mpz(bv, b, f->limbs);
    gmp_printf("%s %s mismatch: a=%Zx b=%Zx want=%Zx\n", f->name, op, av, bv, want);
    mpz_clears(av, bv, NULL);
    ck_abort_msg(SEED_FMT "%s %s mismatch against GMP", test_seed, f->name, op);
}

START_TEST(binary_ops_match_gmp)
{
    const field *f = &fields[_i];
    oracle o;
    test_rng rng;
    static uint64_t vals[64][MAXL];
    mpz_t a, b, want;
    oracle_init(&o, f);
    test_rng_init(&rng, 100 + (uint64_t)_i);
    mpz_inits(a, b, want, NULL);
    for (int round = 0; round < RANDOM_ROUNDS / 64 + 1; round++) {
        size_t n = sample_values(f, &o, vals, 64, &rng);
        for (size_t i = 0; i < n; i++) {
            for (size_t j = 0; j < n; j += (round ? 7 : 1)) {
                uint64_t r[MAXL];
                limbs_to_mpz(a, vals[i], f->limbs);
                limbs_to_mpz(b, vals[j], f->limbs);
                f->add(r, vals[i], vals[j]);
                mpz_add(want, a, b);
                mpz_mod(want, want, o.p);
                expect_limbs(f, "add", r, want, vals[i], vals[j]);
                f->sub(r, vals[i], vals[j]);
                mpz_sub(want, a, b);
                mpz_mod(want, want, o.p);
                expect_limbs(f, "sub", r, want, vals[i], vals[j]);
                f->mul(r, vals[i], vals[j]); /* Montgomery: a*b/R */
                mpz_mul(want, a, b);
                mpz_mul(want, want, o.rinv);
                mpz_mod(want, want, o.p);
                expect_limbs(f, "mul", r, want, vals[i], vals[j]);
                memcpy(r, vals[i], sizeof r); /* aliasing: r = r * b */
                f->mul(r, r, vals[j]);
                expect_limbs(f, "mul (aliased)", r, want, vals[i], vals[j]);
                assert_seeded(f->eq(vals[i], vals[j]) == (mpz_cmp(a, b) == 0), "%s eq", f->name);
            }
        }
    }
    mpz_clears(a, b, want, NULL);
    oracle_clear(&o);
}
END_TEST

START_TEST(unary_ops_match_gmp)
{
    const field *f = &fields[_i];
    oracle o;
    test_rng rng;
    static uint64_t vals[RANDOM_ROUNDS][MAXL];
    mpz_t a, want, r2;
    oracle_init(&o, f);
    test_rng_init(&rng, 200 + (uint64_t)_i);
    mpz_inits(a, want, r2, NULL);
    mpz_mul(r2, o.r, o.r);
    size_t n = sample_values(f, &o, vals, RANDOM_ROUNDS, &rng);
    for (size_t i = 0; i < n; i++) {
        uint64_t r[MAXL];
        limbs_to_mpz(a, vals[i], f->limbs);
        f->neg(r, vals[i]);
        mpz_neg(want, a);
        mpz_mod(want, want, o.p);
        expect_limbs(f, "neg", r, want, vals[i], vals[i]);
        f->dbl(r, vals[i]);
        mpz_mul_2exp(want, a, 1);
        mpz_mod(want, want, o.p);
        expect_limbs(f, "dbl", r, want, vals[i], vals[i]);
        f->sqr(r, vals[i]);
        mpz_mul(want, a, a);
        mpz_mul(want, want, o.rinv);
        mpz_mod(want, want, o.p);
        expect_limbs(f, "sqr", r, want, vals[i], vals[i]);
        assert_seeded(f->is_zero(vals[i]) == (mpz_sgn(a) == 0), "%s is_zero", f->name);
        /* the host's inversion (divsteps) and OpenCL's (Fermat) */
        for (int fermat = 0; fermat < 2; fermat++) {
            int ok = fermat ? f->inv_fermat(r, vals[i]) : f->inv(r, vals[i]);
            if (mpz_sgn(a) == 0) {
                /* the documented error value: 0, and a return code of 0 */
                assert_seeded(!ok && f->is_zero(r), "%s inv(0) must return 0 and give 0", f->name);
                continue;
            }
            assert_seeded(ok, "%s inv of a non-zero value failed", f->name);
            mpz_invert(want, a, o.p); /* Montgomery inverse: R^2 / a */
            mpz_mul(want, want, r2);
            mpz_mod(want, want, o.p);
            expect_limbs(f, fermat ? "inv_fermat" : "inv", r, want, vals[i], vals[i]);
        }
    }
    mpz_clears(a, want, r2, NULL);
    oracle_clear(&o);
}
END_TEST

/* Divsteps (arith/fe_safegcd.h) on its own, modulo random odd moduli of 1 to 6 limbs (their
 * top bits random, so the 62-bit limb count and its shrinking vary) and the four fields'
 * moduli: x^-1 mod p against GMP for random x, 0, 1, 2 and p - 1. */
START_TEST(divsteps_inverse_matches_gmp)
{
    test_rng rng;
    mpz_t p, x, want, got;
    test_rng_init(&rng, 260);
    mpz_inits(p, x, want, got, NULL);
    for (int round = 0; round < 3000; round++) {
        uint64_t pl[MAXL] = {0}, xl[MAXL] = {0}, rl[MAXL];
        int n = 1 + round % 6;
        if (round < (int)NFIELDS) {
            n = (int)fields[round].limbs;
            memcpy(pl, fields[round].p, 8 * (size_t)n);
        } else {
            for (int i = 0; i < n; i++)
                pl[i] = test_rng_next(&rng);
            pl[n - 1] >>= test_rng_next(&rng) % 63;
            pl[n - 1] |= n == 1 ? 4 : 1; /* p > 2 */
            pl[0] |= 1;
        }
        limbs_to_mpz(p, pl, (unsigned)n);
        for (int k = 0; k < 8; k++) {
            for (int i = 0; i < n; i++)
                xl[i] = test_rng_next(&rng);
            limbs_to_mpz(x, xl, (unsigned)n);
            mpz_mod(x, x, p);
            if (k < 4) /* 0, 1, 2, p - 1 */
                k == 3 ? mpz_sub_ui(x, p, 1) : mpz_set_ui(x, (unsigned long)k);
            memset(xl, 0, sizeof xl);
            mpz_export(xl, NULL, -1, 8, 0, 0, x);
            safegcd_inv(rl, xl, pl, n);
            limbs_to_mpz(got, rl, (unsigned)n);
            if (mpz_invert(want, x, p) == 0)
                mpz_set_ui(want, 0); /* no inverse: gcd(x, p) > 1 (0 included) gives 0 */
            if (mpz_sgn(x) != 0 && mpz_cmp(got, want) != 0) {
                mpz_gcd(want, x, p);
                if (mpz_cmp_ui(want, 1) == 0)
                    assert_seeded(0, "divsteps: round %d, %d limbs: wrong inverse", round, n);
            }
            if (mpz_sgn(x) == 0)
                assert_seeded(mpz_sgn(got) == 0, "divsteps: round %d: the inverse of 0 must be 0", round);
        }
    }
    mpz_clears(p, x, want, got, NULL);
}
END_TEST

START_TEST(bytes_round_trip_and_reject_out_of_range)
{
    const field *f = &fields[_i];
    oracle o;
    test_rng rng;
    static uint64_t vals[256][MAXL];
    mpz_t v, want;
    unsigned char bytes[8 * MAXL], back[8 * MAXL];
    oracle_init(&o, f);
    test_rng_init(&rng, 300 + (uint64_t)_i);
    mpz_inits(v, want, NULL);
    size_t n = sample_values(f, &o, vals, 256, &rng);
    for (size_t i = 0; i < n; i++) {
        uint64_t m[MAXL];
        limbs_to_mpz(v, vals[i], f->limbs); /* a canonical value */
        for (unsigned k = 0; k < 8 * f->limbs; k++)
            bytes[k] = (unsigned char)(vals[i][k / 8] >> (8 * (k % 8)));
        assert_seeded(f->from_bytes(m, bytes), "%s from_bytes rejected a value < p", f->name);
        mpz_mul(want, v, o.r); /* Montgomery form of v */
        mpz_mod(want, want, o.p);
        expect_limbs(f, "from_bytes", m, want, vals[i], vals[i]);
        f->to_bytes(back, m);
        assert_seeded(memcmp(bytes, back, 8 * f->limbs) == 0, "%s to_bytes(from_bytes(x)) != x", f->name);
    }
    /* p, p + 1, 2p - 1 (in range of the limbs only for the small fields), all-ones: rejected */
    const long offsets[] = {0, 1, 12345};
    for (size_t k = 0; k < 4; k++) {
        uint64_t m[MAXL];
        if (k < 3) {
            mpz_add_ui(v, o.p, (unsigned long)offsets[k]);
        } else {
            mpz_set_ui(v, 1);
            mpz_mul_2exp(v, v, 64 * f->limbs);
            mpz_sub_ui(v, v, 1);
        }
        uint64_t limbs[MAXL];
        mpz_to_limbs(limbs, f->limbs, v);
        for (unsigned b = 0; b < 8 * f->limbs; b++)
            bytes[b] = (unsigned char)(limbs[b / 8] >> (8 * (b % 8)));
        assert_seeded(!f->from_bytes(m, bytes), "%s from_bytes accepted a value >= p (case %zu)", f->name, k);
    }
    mpz_clears(v, want, NULL);
    oracle_clear(&o);
}
END_TEST

START_TEST(one_is_r_mod_p)
{
    const field *f = &fields[_i];
    oracle o;
    uint64_t one[MAXL];
    oracle_init(&o, f);
    f->one(one);
    expect_limbs(f, "one", one, o.r, one, one);
    oracle_clear(&o);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("field");
    TCase *tc = tcase_create("gmp");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, binary_ops_match_gmp, 0, NFIELDS);
    tcase_add_loop_test(tc, unary_ops_match_gmp, 0, NFIELDS);
    tcase_add_loop_test(tc, bytes_round_trip_and_reject_out_of_range, 0, NFIELDS);
    tcase_add_test(tc, divsteps_inverse_matches_gmp);
    tcase_add_loop_test(tc, one_is_r_mod_p, 0, NFIELDS);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
