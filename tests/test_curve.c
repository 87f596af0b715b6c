/*
 * test_curve.c: G1 of BN254 and BLS12-381 against an independent GMP affine oracle: known
 * vectors (generators, 2G, a published multiple), group laws, XYZZ = Jacobian = affine,
 * batch normalisation, encodings, and rejection of bad points.
 */
#include "test_support.h"

#include "arith/curves.h"
#include "hyprove.h"

#include <string.h>

#define MAXL 6
#define POINT_BYTES 192 /* room for the largest form: BLS12-381 XYZZ */

typedef struct {
    unsigned char b[POINT_BYTES];
} blob; /* any point form, opaque */

typedef struct {
    const char *name;
    hpr_curve curve;
    unsigned limbs;
    unsigned b;
    const uint64_t *p, *order;
    const char *gx, *gy; /* generator, decimal */
    void (*generator)(blob *);
    void (*mul)(blob *jac, const blob *aff, const uint64_t *k);
    void (*jac_add)(blob *, const blob *, const blob *);
    void (*jac_add_affine)(blob *, const blob *, const blob *);
    void (*jac_dbl)(blob *, const blob *);
    void (*jac_from_affine)(blob *, const blob *);
    void (*jac_to_affine)(blob *, const blob *);
    void (*xyzz_add)(blob *, const blob *, const blob *);
    void (*xyzz_add_affine)(blob *, const blob *, const blob *);
    void (*xyzz_dbl)(blob *, const blob *);
    void (*xyzz_from_affine)(blob *, const blob *);
    void (*xyzz_to_affine)(blob *, const blob *);
    void (*xyzz_batch)(blob *out, const blob *in, unsigned long n);
    void (*affine_neg)(blob *, const blob *);
    int (*on_curve)(const blob *);
    int (*in_subgroup)(const blob *);
    void (*coords)(uint64_t *x, uint64_t *y, const blob *aff); /* canonical limbs */
} curve_t;

#define WRAP(EC, F, K)                                                                                         \
    static const uint64_t EC##_p[] = K##_P;                                                                  \
    static const uint64_t EC##_r[] = EC##_ORDER_CONST;                                                       \
    static void EC##_w_gen(blob *r) { EC##_affine_generator((EC##_affine *)r); }                               \
    static void EC##_w_mul(blob *r, const blob *a, const uint64_t *k) { EC##_jac_mul_var((EC##_jac *)r, (const EC##_affine *)a, k); } \
    static void EC##_w_jadd(blob *r, const blob *a, const blob *b) { EC##_jac_add((EC##_jac *)r, (const EC##_jac *)a, (const EC##_jac *)b); } \
    static void EC##_w_jmadd(blob *r, const blob *a, const blob *b) { EC##_jac_add_affine((EC##_jac *)r, (const EC##_jac *)a, (const EC##_affine *)b); } \
    static void EC##_w_jdbl(blob *r, const blob *a) { EC##_jac_dbl((EC##_jac *)r, (const EC##_jac *)a); }      \
    static void EC##_w_jfrom(blob *r, const blob *a) { EC##_jac_from_affine((EC##_jac *)r, (const EC##_affine *)a); } \
    static void EC##_w_jto(blob *r, const blob *a) { EC##_jac_to_affine((EC##_affine *)r, (const EC##_jac *)a); } \
    static void EC##_w_xadd(blob *r, const blob *a, const blob *b) { EC##_xyzz_add((EC##_xyzz *)r, (const EC##_xyzz *)a, (const EC##_xyzz *)b); } \
    static void EC##_w_xmadd(blob *r, const blob *a, const blob *b) { EC##_xyzz_add_affine((EC##_xyzz *)r, (const EC##_xyzz *)a, (const EC##_affine *)b); } \
    static void EC##_w_xdbl(blob *r, const blob *a) { EC##_xyzz_dbl((EC##_xyzz *)r, (const EC##_xyzz *)a); }   \
    static void EC##_w_xfrom(blob *r, const blob *a) { EC##_xyzz_from_affine((EC##_xyzz *)r, (const EC##_affine *)a); } \
    static void EC##_w_xto(blob *r, const blob *a) { EC##_xyzz_to_affine((EC##_affine *)r, (const EC##_xyzz *)a); } \
    static void EC##_w_xbatch(blob *out, const blob *in, unsigned long n)                                      \
    {                                                                                                        \
        EC##_affine *o = malloc(n * sizeof *o);                                                              \
        EC##_xyzz *x = calloc(n ? n : 1, sizeof *x);                                                         \
        F *scratch = malloc(n * sizeof *scratch);                                                            \
        for (unsigned long i = 0; i < n; i++)                                                                \
            memcpy(&x[i], &in[i], sizeof x[i]);                                                              \
        EC##_xyzz_batch_to_affine(o, x, n, scratch);                                                         \
        for (unsigned long i = 0; i < n; i++)                                                                \
            memcpy(&out[i], &o[i], sizeof o[i]);                                                             \
        free(o);                                                                                             \
        free(x);                                                                                             \
        free(scratch);                                                                                       \
    }                                                                                                        \
    static void EC##_w_neg(blob *r, const blob *a) { EC##_affine_neg((EC##_affine *)r, (const EC##_affine *)a); } \
    static int EC##_w_on(const blob *a) { return EC##_affine_on_curve((const EC##_affine *)a); }              \
    static int EC##_w_sub(const blob *a) { return EC##_affine_in_subgroup_var((const EC##_affine *)a); }      \
    static void EC##_w_coords(uint64_t *x, uint64_t *y, const blob *a)                                       \
    {                                                                                                        \
        F##_from_mont(x, &((const EC##_affine *)a)->x);                                                      \
        F##_from_mont(y, &((const EC##_affine *)a)->y);                                                      \
    }

#define bn254_g1_ORDER_CONST BN254_G1_ORDER
#define bls12_381_g1_ORDER_CONST BLS12_381_G1_ORDER
WRAP(bn254_g1, bn254_fp, BN254_FP)
WRAP(bls12_381_g1, bls12_381_fp, BLS12_381_FP)

#define CURVE(EC, CURVE_ID, N, B, GX, GY)                                                                     \
    {#EC, CURVE_ID, N, B, EC##_p, EC##_r, GX, GY, EC##_w_gen, EC##_w_mul, EC##_w_jadd, EC##_w_jmadd, EC##_w_jdbl, \
     EC##_w_jfrom, EC##_w_jto, EC##_w_xadd, EC##_w_xmadd, EC##_w_xdbl, EC##_w_xfrom, EC##_w_xto, EC##_w_xbatch, \
     EC##_w_neg, EC##_w_on, EC##_w_sub, EC##_w_coords}

static const curve_t curves[] = {
    CURVE(bn254_g1, HPR_CURVE_BN254, 4, 3, "1", "2"),
    CURVE(bls12_381_g1, HPR_CURVE_BLS12_381, 6, 4,
          "3685416753713387016781088315183077757961620795782546409894578378688607592378376318836054947676345821548104185464507",
          "1339506544944476473020471379941921221584933875938349620426543736416511423956333506472724655353366534992391756441569"),
};

/* ---- the oracle: affine points over GMP integers ---- */

typedef struct {
    mpz_t x, y;
    int inf;
} opoint;

static void op_init(opoint *p)
{
    mpz_inits(p->x, p->y, NULL);
    p->inf = 1;
}

static void op_clear(opoint *p)
{
    mpz_clears(p->x, p->y, NULL);
}

static void op_add(opoint *r, const opoint *a, const opoint *b, const mpz_t p)
{
    mpz_t l, t, x3;
    if (a->inf) {
        mpz_set(r->x, b->x), mpz_set(r->y, b->y), r->inf = b->inf;
        return;
    }
    if (b->inf) {
        mpz_set(r->x, a->x), mpz_set(r->y, a->y), r->inf = a->inf;
        return;
    }
    mpz_inits(l, t, x3, NULL);
    if (mpz_cmp(a->x, b->x) == 0) {
        mpz_add(t, a->y, b->y);
        mpz_mod(t, t, p);
        if (mpz_sgn(t) == 0) {
            r->inf = 1;
            goto out;
        }
        mpz_mul(l, a->x, a->x); /* 3x^2 / 2y */
        mpz_mul_ui(l, l, 3);
        mpz_mul_ui(t, a->y, 2);
    } else {
        mpz_sub(l, b->y, a->y);
        mpz_sub(t, b->x, a->x);
    }
    mpz_mod(t, t, p);
    mpz_invert(t, t, p);
    mpz_mul(l, l, t);
    mpz_mod(l, l, p);
    mpz_mul(x3, l, l);
    mpz_sub(x3, x3, a->x);
    mpz_sub(x3, x3, b->x);
    mpz_mod(x3, x3, p);
    mpz_sub(t, a->x, x3);
    mpz_mul(t, t, l);
    mpz_sub(t, t, a->y);
    mpz_mod(r->y, t, p);
    mpz_set(r->x, x3);
    r->inf = 0;
out:
    mpz_clears(l, t, x3, NULL);
}

static void op_mul(opoint *r, const opoint *a, const mpz_t k, const mpz_t p)
{
    opoint acc;
    op_init(&acc);
    for (long bit = (long)mpz_sizeinbase(k, 2) - 1; bit >= 0; bit--) {
        op_add(&acc, &acc, &acc, p);
        if (mpz_tstbit(k, (mp_bitcnt_t)bit))
            op_add(&acc, &acc, a, p);
    }
    mpz_set(r->x, acc.x), mpz_set(r->y, acc.y), r->inf = acc.inf;
    op_clear(&acc);
}

/* Compares an affine blob (Montgomery) with the oracle point. */
static int affine_matches(const curve_t *c, const blob *a, const opoint *o)
{
    uint64_t x[MAXL], y[MAXL], want[MAXL];
    uint64_t zero[2 * MAXL] = {0};
    if (o->inf)
        return memcmp(a->b, zero, 16 * c->limbs) == 0;
    c->coords(x, y, a);
    mpz_to_limbs(want, c->limbs, o->x);
    if (memcmp(x, want, 8 * c->limbs))
        return 0;
    mpz_to_limbs(want, c->limbs, o->y);
    return memcmp(y, want, 8 * c->limbs) == 0;
}

static void random_scalar(const curve_t *c, test_rng *rng, uint64_t *k, mpz_t kz)
{
    mpz_t r;
    mpz_init(r);
    limbs_to_mpz(r, c->order, 4);
    for (int i = 0; i < 4; i++)
        k[i] = test_rng_next(rng);
    limbs_to_mpz(kz, k, 4);
    mpz_mod(kz, kz, r);
    mpz_to_limbs(k, 4, kz);
    mpz_clear(r);
}

static void oracle_generator(const curve_t *c, opoint *g)
{
    mpz_set_str(g->x, c->gx, 10);
    mpz_set_str(g->y, c->gy, 10);
    g->inf = 0;
}

/* k * G as an affine blob. */
static void mul_gen(const curve_t *c, blob *out, const uint64_t *k)
{
    blob g, j;
    c->generator(&g);
    c->mul(&j, &g, k);
    c->jac_to_affine(out, &j);
}

START_TEST(generator_and_known_multiples)
{
    const curve_t *c = &curves[_i];
    blob g, j, a;
    opoint og, want;
    mpz_t p, k;
    uint64_t limbs[4];
    test_rng rng;
    test_rng_init(&rng, 10 + (uint64_t)_i);
    mpz_inits(p, k, NULL);
    op_init(&og), op_init(&want);
    limbs_to_mpz(p, c->p, c->limbs);
    oracle_generator(c, &og);
    c->generator(&g);
    ck_assert_msg(c->on_curve(&g) && c->in_subgroup(&g), "%s generator", c->name);
    ck_assert_msg(affine_matches(c, &g, &og), "%s generator constants", c->name);
    /* 2G by doubling, in both forms */
    c->jac_from_affine(&j, &g);
    c->jac_dbl(&j, &j);
    c->jac_to_affine(&a, &j);
    op_add(&want, &og, &og, p);
    ck_assert_msg(affine_matches(c, &a, &want), "%s 2G (Jacobian)", c->name);
    c->xyzz_from_affine(&j, &g);
    c->xyzz_dbl(&j, &j);
    c->xyzz_to_affine(&a, &j);
    ck_assert_msg(affine_matches(c, &a, &want), "%s 2G (XYZZ)", c->name);
    if (c->curve == HPR_CURVE_BN254) { /* the published value (EIP-196 test vectors) */
        mpz_set_str(want.x, "1368015179489954701390400359078579693043519447331113978918064868415326638035", 10);
        mpz_set_str(want.y, "9918110051302171585080402603319702774565515993150576347155970296011118125764", 10);
        ck_assert_msg(affine_matches(c, &a, &want), "bn254 2G against the published vector");
    }
    /* r*G = infinity, (r-1)*G = -G */
    c->mul(&j, &g, c->order);
    c->jac_to_affine(&a, &j);
    want.inf = 1;
    ck_assert_msg(affine_matches(c, &a, &want), "%s r*G must be infinity", c->name);
    memcpy(limbs, c->order, sizeof limbs);
    limbs[0] -= 1;
    mul_gen(c, &a, limbs);
    c->affine_neg(&j, &g);
    ck_assert_msg(memcmp(&a, &j, 16 * c->limbs) == 0, "%s (r-1)*G must be -G", c->name);
    /* random multiples against the oracle */
    for (int t = 0; t < 8; t++) {
        random_scalar(c, &rng, limbs, k);
        mul_gen(c, &a, limbs);
        op_mul(&want, &og, k, p);
        assert_seeded(affine_matches(c, &a, &want), "%s k*G, k = limbs %016llx...", c->name, (unsigned long long)limbs[3]);
        assert_seeded(c->on_curve(&a), "%s k*G on curve", c->name);
    }
    op_clear(&og), op_clear(&want);
    mpz_clears(p, k, NULL);
}
END_TEST

/* The sum of a and b (affine blobs) in five ways must agree with the oracle. */
static void check_sum(const curve_t *c, const blob *a, const blob *b, const opoint *oa, const opoint *ob, const mpz_t p)
{
    blob ja, jb, r, aff;
    opoint want;
    op_init(&want);
    op_add(&want, oa, ob, p);
    c->jac_from_affine(&ja, a);
    c->jac_from_affine(&jb, b);
    c->jac_add(&r, &ja, &jb);
    c->jac_to_affine(&aff, &r);
    assert_seeded(affine_matches(c, &aff, &want), "%s jac_add", c->name);
    c->jac_add_affine(&r, &ja, b);
    c->jac_to_affine(&aff, &r);
    assert_seeded(affine_matches(c, &aff, &want), "%s jac_add_affine", c->name);
    c->xyzz_from_affine(&ja, a);
    c->xyzz_from_affine(&jb, b);
    c->xyzz_add(&r, &ja, &jb);
    c->xyzz_to_affine(&aff, &r);
    assert_seeded(affine_matches(c, &aff, &want), "%s xyzz_add", c->name);
    c->xyzz_add_affine(&r, &ja, b);
    c->xyzz_to_affine(&aff, &r);
    assert_seeded(affine_matches(c, &aff, &want), "%s xyzz_add_affine", c->name);
    /* with non-trivial Z: (a + a) + b against 2a + b */
    c->xyzz_dbl(&r, &ja);
    c->xyzz_add_affine(&r, &r, b);
    c->jac_from_affine(&jb, a);
    c->jac_dbl(&jb, &jb);
    c->jac_add_affine(&jb, &jb, b);
    c->xyzz_to_affine(&aff, &r);
    c->jac_to_affine(&ja, &jb);
    assert_seeded(memcmp(&aff, &ja, 16 * c->limbs) == 0, "%s 2a+b: XYZZ and Jacobian disagree", c->name);
    op_clear(&want);
}

static void oracle_of(const curve_t *c, opoint *o, const blob *a)
{
    uint64_t x[MAXL], y[MAXL];
    uint64_t zero[2 * MAXL] = {0};
    o->inf = memcmp(a->b, zero, 16 * c->limbs) == 0;
    if (o->inf)
        return;
    c->coords(x, y, a);
    limbs_to_mpz(o->x, x, c->limbs);
    limbs_to_mpz(o->y, y, c->limbs);
}

START_TEST(group_laws_in_every_form)
{
    const curve_t *c = &curves[_i];
    test_rng rng;
    mpz_t p, k;
    uint64_t limbs[4];
    blob pts[6];
    opoint o[6];
    test_rng_init(&rng, 20 + (uint64_t)_i);
    mpz_inits(p, k, NULL);
    limbs_to_mpz(p, c->p, c->limbs);
    for (int i = 0; i < 6; i++)
        op_init(&o[i]);
    for (int round = 0; round < 6; round++) {
        random_scalar(c, &rng, limbs, k);
        mul_gen(c, &pts[0], limbs); /* P */
        random_scalar(c, &rng, limbs, k);
        mul_gen(c, &pts[1], limbs); /* Q */
        c->affine_neg(&pts[2], &pts[0]); /* -P */
        memset(&pts[3], 0, sizeof pts[3]); /* infinity */
        pts[4] = pts[0];                   /* P again */
        for (int i = 0; i < 5; i++)
            oracle_of(c, &o[i], &pts[i]);
        for (int i = 0; i < 5; i++)
            for (int j = 0; j < 5; j++)
                check_sum(c, &pts[i], &pts[j], &o[i], &o[j], p);
    }
    for (int i = 0; i < 6; i++)
        op_clear(&o[i]);
    mpz_clears(p, k, NULL);
}
END_TEST

START_TEST(batch_normalisation_matches_single)
{
    const curve_t *c = &curves[_i];
    enum { N = 37 };
    blob x[N], single[N], batch[N], g;
    test_rng rng;
    test_rng_init(&rng, 30 + (uint64_t)_i);
    c->generator(&g);
    c->xyzz_from_affine(&x[0], &g);
    for (int i = 1; i < N; i++) {
        if (test_rng_next(&rng) % 5 == 0) {
            blob inf = {{0}};
            c->xyzz_from_affine(&x[i], &inf);
        } else {
            c->xyzz_dbl(&x[i], &x[i - 1]);
            c->xyzz_add_affine(&x[i], &x[i], &g);
        }
    }
    for (int i = 0; i < N; i++)
        c->xyzz_to_affine(&single[i], &x[i]);
    c->xyzz_batch(batch, x, N);
    for (int i = 0; i < N; i++)
        assert_seeded(memcmp(&single[i], &batch[i], 16 * c->limbs) == 0, "%s batch normalisation at %d", c->name, i);
}
END_TEST

START_TEST(encodings_round_trip_and_reject_bad_points)
{
    const curve_t *c = &curves[_i];
    test_rng rng;
    mpz_t k;
    uint64_t limbs[4];
    blob a, back;
    char json[256], xs[200], ys[200], zs[8];
    size_t ps = hpr_point_size(c->curve, HPR_G1);
    test_rng_init(&rng, 40 + (uint64_t)_i);
    mpz_init(k);
    for (int round = 0; round < 10; round++) {
        random_scalar(c, &rng, limbs, k);
        mul_gen(c, &a, limbs);
        ck_assert_int_eq(hpr_point_to_json(c->curve, HPR_G1, &a, json, sizeof json), HPR_OK);
        ck_assert_int_eq(sscanf(json, "[\"%199[0-9]\",\"%199[0-9]\",\"%7[0-9]\"]", xs, ys, zs), 3);
        ck_assert_str_eq(zs, "1");
        ck_assert_int_eq(hpr_point_from_decimal(c->curve, HPR_G1, xs, ys, zs, &back), HPR_OK);
        assert_seeded(memcmp(&a, &back, ps) == 0, "%s JSON round trip", c->name);
        ck_assert_int_eq(hpr_point_check(NULL, c->curve, HPR_G1, &a), HPR_OK);
        /* off the curve: y + 1 */
        char ybad[200];
        mpz_t y;
        mpz_init_set_str(y, ys, 10);
        mpz_add_ui(y, y, 1);
        gmp_snprintf(ybad, sizeof ybad, "%Zd", y);
        ck_assert_int_eq(hpr_point_from_decimal(c->curve, HPR_G1, xs, ybad, "1", &back), HPR_ERR_POINT_NOT_ON_CURVE);
        back = a;
        back.b[ps - 1] ^= 0x01; /* flip a bit of y in the interchange form */
        ck_assert_int_ne(hpr_point_check(NULL, c->curve, HPR_G1, &back), HPR_OK);
        mpz_clear(y);
    }
    /* infinity */
    memset(&a, 0, sizeof a);
    ck_assert_int_eq(hpr_point_to_json(c->curve, HPR_G1, &a, json, sizeof json), HPR_OK);
    ck_assert_str_eq(json, "[\"0\",\"1\",\"0\"]");
    ck_assert_int_eq(hpr_point_from_decimal(c->curve, HPR_G1, "0", "1", "0", &back), HPR_OK);
    ck_assert(memcmp(&a, &back, ps) == 0);
    /* affine (0, 0) is not on the curve (it was read as infinity: fuzz_decimal_points) */
    ck_assert_int_eq(hpr_point_from_decimal(c->curve, HPR_G1, "0", "0", "1", &back), HPR_ERR_POINT_NOT_ON_CURVE);
    /* coordinate >= p: x = p in the interchange bytes */
    memset(&a, 0, sizeof a);
    memcpy(a.b, c->p, 8 * c->limbs);
    a.b[8 * c->limbs] = 2;
    ck_assert_int_eq(hpr_point_check(NULL, c->curve, HPR_G1, &a), HPR_ERR_COORDINATE_OUT_OF_RANGE);
    /* decimal garbage */
    ck_assert_int_eq(hpr_point_from_decimal(c->curve, HPR_G1, "12x", "2", "1", &back), HPR_ERR_FORMAT);
    ck_assert_int_eq(hpr_point_from_decimal(c->curve, HPR_G1, "1", "2", "2", &back), HPR_ERR_FORMAT);
    mpz_clear(k);
}
END_TEST

/* A BLS12-381 point on the curve but outside the prime-order subgroup must be rejected. */
START_TEST(bls12_381_subgroup_check)
{
    const curve_t *c = &curves[1];
    mpz_t p, x, rhs, y, e;
    blob a;
    char xs[200], ys[200];
    mpz_inits(p, x, rhs, y, e, NULL);
    limbs_to_mpz(p, c->p, c->limbs);
    mpz_add_ui(e, p, 1);
    mpz_fdiv_q_2exp(e, e, 2); /* p = 3 mod 4: sqrt = v^((p+1)/4) */
    for (unsigned long xi = 1;; xi++) {
        mpz_set_ui(x, xi);
        mpz_pow_ui(rhs, x, 3);
        mpz_add_ui(rhs, rhs, 4);
        mpz_mod(rhs, rhs, p);
        mpz_powm(y, rhs, e, p);
        mpz_mul(e, y, y); /* reuse e as a check, then restore */
        mpz_mod(e, e, p);
        int square = mpz_cmp(e, rhs) == 0;
        mpz_add_ui(e, p, 1);
        mpz_fdiv_q_2exp(e, e, 2);
        if (square)
            break;
    }
    gmp_snprintf(xs, sizeof xs, "%Zd", x);
    gmp_snprintf(ys, sizeof ys, "%Zd", y);
    ck_assert_int_eq(hpr_point_from_decimal(HPR_CURVE_BLS12_381, HPR_G1, xs, ys, "1", &a), HPR_OK);
    ck_assert_int_eq(hpr_point_check(NULL, HPR_CURVE_BLS12_381, HPR_G1, &a), HPR_ERR_POINT_NOT_IN_SUBGROUP);
    c->generator(&a);
    ck_assert_int_eq(hpr_point_check(NULL, HPR_CURVE_BLS12_381, HPR_G1, &a), HPR_OK);
    mpz_clears(p, x, rhs, y, e, NULL);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("curve");
    TCase *tc = tcase_create("g1");
    tcase_set_timeout(tc, 300);
    tcase_add_loop_test(tc, generator_and_known_multiples, 0, 2);
    tcase_add_loop_test(tc, group_laws_in_every_form, 0, 2);
    tcase_add_loop_test(tc, batch_normalisation_matches_single, 0, 2);
    tcase_add_loop_test(tc, encodings_round_trip_and_reject_bad_points, 0, 2);
    tcase_add_test(tc, bls12_381_subgroup_check);
    suite_add_tcase(s, tc);
    return run_suite(s);
}
