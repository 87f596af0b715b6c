/*
 * fe_safegcd.h: modular inversion by Bernstein and Yang's divsteps ("Fast constant-time gcd
 * computation and modular inversion", 2019), in the variable-time form, for the host C build
 * of fe_impl.h (OpenCL C keeps Fermat: it has no 128-bit integers). Any odd modulus of up to
 * six 64-bit limbs.
 *
 * Why: Fermat's a^(p-2) costs about 1.5 log2 p multiplications in one dependent chain (about
 * 380 for BN254's Fp, 570 for BLS12-381's); a batch-affine MSM pays one per batch, and with
 * Fermat that was about a tenth of the bucket work. divsteps cost about the time of 30-60
 * multiplications here.
 * Method: numbers in signed 62-bit limbs (every limb in [0, 2^62) but the top one, which
 * carries the sign). f = p, g = x, d = 0, e = 1. Each round runs 62 divsteps on the low 64
 * bits of f and g alone (the 2x2 transition matrix t with entries below 2^62 in absolute
 * value, scaled by 2^62), then applies t to the full f, g (exact division by 2^62) and to
 * d, e modulo p (adding the multiple of p that clears the low 62 bits, found with
 * p^-1 mod 2^62). The divsteps run zeros of g at once (count trailing zeros) and cancel up to
 * six bits of g per step with a small multiple of f. When g reaches 0, f = +-1 and
 * d = +-x^-1 mod p (in (-2p, p)), which the end brings to [0, p). The limb count shrinks as
 * f and g do. Invariants (from the paper and the usual implementation notes): |f|, |g| <= p,
 * d, e in (-2p, p), matrix entries bounded by 2^62.
 * Contract: x < p, p odd, the result x^-1 mod p in [0, p), or 0 for x = 0.
 */
#ifndef ARITH_FE_SAFEGCD_H
#define ARITH_FE_SAFEGCD_H

#include <stdint.h>

#define SAFEGCD_MAX_LIMBS 8 /* 62-bit limbs: 6 * 64 = 384 bits need 7 */
#define SAFEGCD_M62 (UINT64_MAX >> 2)

#if defined(__GNUC__)
#define SAFEGCD_FN static __attribute__((noinline, unused))
#else
#define SAFEGCD_FN static
#endif

typedef struct {
    int64_t v[SAFEGCD_MAX_LIMBS];
} safegcd_s62;

typedef struct {
    int64_t u, v, q, r; /* 2^62 [f', g'] = [[u, v], [q, r]] [f, g] */
} safegcd_matrix;

typedef struct {
    safegcd_s62 p;
    uint64_t p_inv62; /* p^-1 mod 2^62 */
    int len;          /* 62-bit limbs of p */
} safegcd_modulus;

static inline int safegcd_ctz64(uint64_t x)
{
    return __builtin_ctzll(x);
}

/* 64-bit limbs (n of them) -> signed 62-bit limbs (len of them, the top one may be wider). */
static inline void safegcd_from_u64(safegcd_s62 *r, const uint64_t *a, int n, int len)
{
    for (int i = 0; i < len; i++) {
        unsigned bit = 62u * (unsigned)i, w = bit / 64, s = bit % 64;
        uint64_t lo = w < (unsigned)n ? a[w] >> s : 0;
        uint64_t hi = (s > 2 && w + 1 < (unsigned)n) ? a[w + 1] << (64 - s) : 0;
        r->v[i] = (int64_t)((lo | hi) & SAFEGCD_M62);
    }
}

/* A value in [0, 2^(64 n)) in signed 62-bit limbs (all limbs in [0, 2^62)) -> 64-bit limbs. */
static inline void safegcd_to_u64(uint64_t *r, const safegcd_s62 *a, int n, int len)
{
    for (int w = 0; w < n; w++)
        r[w] = 0;
    for (int i = 0; i < len; i++) {
        unsigned bit = 62u * (unsigned)i, w = bit / 64, s = bit % 64;
        uint64_t limb = (uint64_t)a->v[i];
        if (w < (unsigned)n)
            r[w] |= limb << s;
        if (s > 2 && w + 1 < (unsigned)n)
            r[w + 1] |= limb >> (64 - s);
    }
}

static inline void safegcd_modulus_init(safegcd_modulus *m, const uint64_t *p, int n)
{
    uint64_t inv = p[0]; /* Newton: correct to 3 bits for odd p, doubling each step */
    for (int i = 0; i < 5; i++)
        inv *= 2 - p[0] * inv;
    m->p_inv62 = inv & SAFEGCD_M62;
    m->len = (64 * n + 61) / 62;
    safegcd_from_u64(&m->p, p, n, m->len);
}

/* 62 divsteps on the low bits f0, g0 (f0 odd): the matrix, and the new eta (= -delta). */
static inline int64_t safegcd_divsteps_62(int64_t eta, uint64_t f0, uint64_t g0, safegcd_matrix *t)
{
    uint64_t u = 1, v = 0, q = 0, r = 1, f = f0, g = g0, m, w;
    int i = 62, limit, zeros;
    for (;;) {
        zeros = safegcd_ctz64(g | (UINT64_MAX << i)); /* the sentinel stops at i */
        g >>= zeros;
        u <<= zeros;
        v <<= zeros;
        eta -= zeros;
        i -= zeros;
        if (i == 0)
            break;
        if (eta < 0) { /* delta > 0: swap f and g (g := -f) */
            uint64_t tmp;
            eta = -eta;
            tmp = f, f = g, g = -tmp;
            tmp = u, u = q, q = -tmp;
            tmp = v, v = r, r = -tmp;
            limit = (int)eta + 1 > i ? i : (int)eta + 1;
            m = (UINT64_MAX >> (64 - limit)) & 63u;
            w = (f * g * (f * f - 2)) & m; /* g + w f clears min(limit, 6) low bits */
        } else {
            limit = (int)eta + 1 > i ? i : (int)eta + 1;
            m = (UINT64_MAX >> (64 - limit)) & 15u;
            w = f + (((f + 1) & 4) << 1); /* -1/f mod 16 */
            w = (-w * g) & m;
        }
        g += f * w;
        q += u * w;
        r += v * w;
    }
    t->u = (int64_t)u;
    t->v = (int64_t)v;
    t->q = (int64_t)q;
    t->r = (int64_t)r;
    return eta;
}

/* [f, g] := t [f, g] / 2^62 over len limbs (exact). */
static inline void safegcd_update_fg(int len, safegcd_s62 *f, safegcd_s62 *g, const safegcd_matrix *t)
{
    __int128 cf = (__int128)t->u * f->v[0] + (__int128)t->v * g->v[0];
    __int128 cg = (__int128)t->q * f->v[0] + (__int128)t->r * g->v[0];
    cf >>= 62;
    cg >>= 62;
    for (int i = 1; i < len; i++) {
        cf += (__int128)t->u * f->v[i] + (__int128)t->v * g->v[i];
        cg += (__int128)t->q * f->v[i] + (__int128)t->r * g->v[i];
        f->v[i - 1] = (int64_t)((uint64_t)cf & SAFEGCD_M62);
        g->v[i - 1] = (int64_t)((uint64_t)cg & SAFEGCD_M62);
        cf >>= 62;
        cg >>= 62;
    }
    f->v[len - 1] = (int64_t)cf;
    g->v[len - 1] = (int64_t)cg;
}

/* [d, e] := (t [d, e] + p [md, me]) / 2^62, md and me chosen to clear the low 62 bits and to
 * keep d, e in (-2p, p). */
static inline void safegcd_update_de(safegcd_s62 *d, safegcd_s62 *e, const safegcd_matrix *t,
                                     const safegcd_modulus *mod)
{
    int len = mod->len;
    int64_t sd = d->v[len - 1] >> 63, se = e->v[len - 1] >> 63;
    int64_t md = (t->u & sd) + (t->v & se), me = (t->q & sd) + (t->r & se);
    __int128 cd = (__int128)t->u * d->v[0] + (__int128)t->v * e->v[0];
    __int128 ce = (__int128)t->q * d->v[0] + (__int128)t->r * e->v[0];
    md -= (int64_t)((mod->p_inv62 * (uint64_t)cd + (uint64_t)md) & SAFEGCD_M62);
    me -= (int64_t)((mod->p_inv62 * (uint64_t)ce + (uint64_t)me) & SAFEGCD_M62);
    cd += (__int128)mod->p.v[0] * md;
    ce += (__int128)mod->p.v[0] * me;
    cd >>= 62;
    ce >>= 62;
    for (int i = 1; i < len; i++) {
        cd += (__int128)t->u * d->v[i] + (__int128)t->v * e->v[i] + (__int128)mod->p.v[i] * md;
        ce += (__int128)t->q * d->v[i] + (__int128)t->r * e->v[i] + (__int128)mod->p.v[i] * me;
        d->v[i - 1] = (int64_t)((uint64_t)cd & SAFEGCD_M62);
        e->v[i - 1] = (int64_t)((uint64_t)ce & SAFEGCD_M62);
        cd >>= 62;
        ce >>= 62;
    }
    d->v[len - 1] = (int64_t)cd;
    e->v[len - 1] = (int64_t)ce;
}

/* Carries each limb's bits above 62 into the next one (signed shifts). */
static inline void safegcd_propagate(safegcd_s62 *r, int len)
{
    for (int i = 0; i + 1 < len; i++) {
        r->v[i + 1] += r->v[i] >> 62;
        r->v[i] &= (int64_t)SAFEGCD_M62;
    }
}

/* r in (-2p, p), sign < 0 to negate -> r in [0, p). */
static inline void safegcd_normalize(safegcd_s62 *r, int64_t sign, const safegcd_modulus *mod)
{
    int len = mod->len;
    int64_t add = r->v[len - 1] >> 63, neg = sign >> 63;
    for (int i = 0; i < len; i++)
        r->v[i] += mod->p.v[i] & add;
    for (int i = 0; i < len; i++)
        r->v[i] = (r->v[i] ^ neg) - neg;
    safegcd_propagate(r, len);
    add = r->v[len - 1] >> 63;
    for (int i = 0; i < len; i++)
        r->v[i] += mod->p.v[i] & add;
    safegcd_propagate(r, len);
}

/* r = x^-1 mod p (n 64-bit limbs each, n <= 6), 0 for x = 0. Variable time. */
SAFEGCD_FN void safegcd_inv(uint64_t *r, const uint64_t *x, const uint64_t *p, int n)
{
    safegcd_modulus mod = {{{0}}, 0, 0};
    safegcd_s62 d = {{0}}, e = {{0}}, f, g = {{0}};
    int64_t eta = -1;
    safegcd_modulus_init(&mod, p, n);
    int len = mod.len;
    f = mod.p;
    safegcd_from_u64(&g, x, n, len);
    e.v[0] = 1;
    for (;;) {
        safegcd_matrix t;
        eta = safegcd_divsteps_62(eta, (uint64_t)f.v[0], (uint64_t)g.v[0], &t);
        safegcd_update_de(&d, &e, &t, &mod);
        safegcd_update_fg(len, &f, &g, &t);
        if (g.v[0] == 0) {
            int64_t any = 0;
            for (int j = 1; j < len; j++)
                any |= g.v[j];
            if (any == 0)
                break;
        }
        /* shrink: when the top limbs of f and g are only sign (0 or -1), fold them down */
        int64_t fn = f.v[len - 1], gn = g.v[len - 1];
        int64_t cond = ((int64_t)len - 2) >> 63;
        cond |= fn ^ (fn >> 63);
        cond |= gn ^ (gn >> 63);
        if (cond == 0) {
            f.v[len - 2] |= (int64_t)((uint64_t)fn << 62);
            g.v[len - 2] |= (int64_t)((uint64_t)gn << 62);
            len--;
        }
    }
    /* f = +-1 (x != 0) and d = x^-1 / f; for x = 0, f = p and d = 0 */
    safegcd_normalize(&d, f.v[len - 1], &mod);
    safegcd_to_u64(r, &d, n, mod.len);
}

#endif
