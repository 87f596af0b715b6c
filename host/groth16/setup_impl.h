/*
 * setup_impl.h: the scalar-field half of the development setup (host/groth16/setup.c), written
 * once for both curves' Fr. Included by setup.c with SU_F (the field type, e.g. bn254_fr) and
 * SU_P (its constant prefix, e.g. BN254_FR) defined; it undefines them.
 *
 * Contract: every SU_F value is a reduced Montgomery element; "limbs" are 4 canonical
 * little-endian words (what the fixed-base multiplication and the files take).
 * The roots are snarkjs's (FORMATS.md section 5): w_n = 5^((r - 1) / n), so that the H points
 * made here belong to the same coset as the provers' (generator 5 on both curves).
 */
#define SU_FN(op) ARITH_CAT(SU_F, ARITH_CAT(_su_, op))
#define SU_OP(op) ARITH_CAT(SU_F, ARITH_CAT(_, op))
#define SU_CONST(c) ARITH_CAT(SU_P, ARITH_CAT(_, c))

/* w_n for n = 2^log_n: 5^((r - 1) >> log_n). */
static void SU_FN(root)(void *wv, unsigned log_n)
{
    SU_F *w = wv;
    const uint64_t p[4] = SU_CONST(P);
    uint64_t e[4];
    SU_F five;
    for (int i = 0; i < 4; i++) /* (r - 1) >> log_n; r - 1 only clears bit 0 of r */
        e[i] = ((i == 0 ? p[0] - 1 : p[i]) >> log_n) | (i < 3 && log_n ? p[i + 1] << (64 - log_n) : 0);
    SU_OP(set_u64)(&five, 5);
    SU_OP(pow_var)(w, &five, e);
}

/* out[i] = scale * x_i / (tau - x_i) for x_i = start * step^i, i < count: with
 * scale = (tau^m - 1) / m this is the Lagrange basis L_i(tau) of the m-domain at the points
 * x_i of that domain. One inversion for the block (scratch: count elements). 0 when some
 * x_i = tau (tau on the domain). */
static int SU_FN(lagrange_block)(void *outv, size_t count, const void *tauv, const void *scalev, const void *startv,
                                 const void *stepv, void *scratchv)
{
    SU_F *out = outv, *scratch = scratchv;
    const SU_F *tau = tauv, *scale = scalev, *start = startv, *step = stepv;
    SU_F x = *start, acc, inv, t;
    SU_OP(set_one)(&acc);
    for (size_t i = 0; i < count; i++) {
        out[i] = x; /* keep x_i */
        SU_OP(sub)(&t, tau, &x);
        if (SU_OP(is_zero)(&t))
            return 0;
        scratch[i] = acc;
        SU_OP(mul)(&acc, &acc, &t);
        SU_OP(mul)(&x, &x, step);
    }
    SU_OP(inv)(&inv, &acc);
    for (size_t i = count; i-- > 0;) {
        SU_F d, xi = out[i];
        SU_OP(mul)(&t, &inv, &scratch[i]); /* 1 / (tau - x_i) */
        SU_OP(sub)(&d, tau, &xi);
        SU_OP(mul)(&inv, &inv, &d);
        SU_OP(mul)(&t, &t, &xi);
        SU_OP(mul)(&out[i], &t, scale);
    }
    return 1;
}

/* (tau^m - 1) / m * factor, m = 2^log_m. */
static void SU_FN(lagrange_scale)(void *scalev, const void *tauv, unsigned log_m, const void *factorv)
{
    SU_F *scale = scalev;
    const SU_F *tau = tauv, *factor = factorv;
    SU_F t, m;
    uint64_t e[4] = {0, 0, 0, 0};
    e[log_m / 64] = (uint64_t)1 << (log_m % 64);
    SU_OP(pow_var)(&t, tau, e);
    SU_OP(set_one)(&m);
    SU_OP(sub)(&t, &t, &m);
    SU_OP(set_u64)(&m, 1);
    for (unsigned i = 0; i < log_m; i++)
        SU_OP(dbl)(&m, &m);
    SU_OP(inv)(&m, &m);
    SU_OP(mul)(&t, &t, &m);
    SU_OP(mul)(scale, &t, factor);
}

/* a_j(tau), b_j(tau), c_j(tau) for every wire j, from the constraints and L (the n-domain's
 * Lagrange basis at tau); the public rows nConstraints + i add L to a_i (i <= nPublic), as
 * snarkjs's setup does. a, b, c: n_wires elements each, zeroed here. */
static void SU_FN(evaluate)(const r1cs_file *r, const void *Lv, void *const abcv[3])
{
    const SU_F *L = Lv;
    SU_F *abc[3] = {abcv[0], abcv[1], abcv[2]};
    const unsigned char *p = r->constraints;
    uint32_t n_public = r->n_pub_out + r->n_pub_in;
    for (int m = 0; m < 3; m++)
        memset(abc[m], 0, (size_t)r->n_wires * sizeof(SU_F));
    for (uint32_t k = 0; k < r->n_constraints; k++)
        for (int m = 0; m < 3; m++) {
            uint32_t count;
            const unsigned char *terms = r1cs_lc(r, &p, &count);
            for (uint32_t i = 0; i < count; i++) {
                uint64_t coef[4];
                SU_F c;
                uint32_t wire = r1cs_term(r, terms, i, coef);
                SU_OP(to_mont)(&c, coef);
                SU_OP(mul)(&c, &c, &L[k]);
                SU_OP(add)(&abc[m][wire], &abc[m][wire], &c);
            }
        }
    for (uint32_t i = 0; i <= n_public; i++)
        SU_OP(add)(&abc[0][i], &abc[0][i], &L[r->n_constraints + i]);
}

/* The value of a zkey coefficient entry: coef * R^2 mod r as a plain integer (FORMATS.md
 * section 4), little-endian bytes. */
static void SU_FN(coef_entry)(unsigned char *bytes, const uint64_t *coef)
{
    SU_F once, twice;
    SU_OP(to_mont)(&once, coef);         /* coef R */
    SU_OP(to_mont)(&twice, once.l);      /* (coef R) R, read as an integer */
    SU_OP(limbs_to_bytes)(bytes, twice.l);
}

/* limbs[i] = (beta a_j + alpha b_j + c_j) * factor, j = first + i, i < count. */
static void SU_FN(query_scalars)(uint64_t (*limbs)[4], void *const abcv[3], size_t first, size_t count,
                                 const void *alphav, const void *betav, const void *factorv)
{
    const SU_F *abc[3] = {abcv[0], abcv[1], abcv[2]}, *alpha = alphav, *beta = betav, *factor = factorv;
    for (size_t i = 0; i < count; i++) {
        SU_F t, u;
        SU_OP(mul)(&t, beta, &abc[0][first + i]);
        SU_OP(mul)(&u, alpha, &abc[1][first + i]);
        SU_OP(add)(&t, &t, &u);
        SU_OP(add)(&t, &t, &abc[2][first + i]);
        SU_OP(mul)(&t, &t, factor);
        SU_OP(from_mont)(limbs[i], &t);
    }
}

static void SU_FN(to_limbs)(uint64_t (*limbs)[4], const void *xv, size_t count)
{
    const SU_F *x = xv;
    for (size_t i = 0; i < count; i++)
        SU_OP(from_mont)(limbs[i], &x[i]);
}

static void SU_FN(mont)(void *r, const uint64_t *limbs)
{
    SU_OP(to_mont)((SU_F *)r, limbs);
}

static void SU_FN(mul)(void *r, const void *a, const void *b)
{
    SU_OP(mul)((SU_F *)r, (const SU_F *)a, (const SU_F *)b);
}

static void SU_FN(inv)(void *r, const void *a)
{
    SU_OP(inv)((SU_F *)r, (const SU_F *)a);
}

/* r = a^e for a small exponent e. */
static void SU_FN(pow_u64)(void *r, const void *a, uint64_t e)
{
    const uint64_t ev[4] = {e, 0, 0, 0};
    SU_OP(pow_var)((SU_F *)r, (const SU_F *)a, ev);
}

/* The operations table of setup.c (su_ops, defined before the include). */
static const su_ops SU_FN(ops) = {sizeof(SU_F),          SU_FN(root),           SU_FN(mont),     SU_FN(mul),
                                  SU_FN(inv),            SU_FN(pow_u64),        SU_FN(lagrange_scale),
                                  SU_FN(lagrange_block), SU_FN(evaluate),       SU_FN(coef_entry),
                                  SU_FN(query_scalars),  SU_FN(to_limbs)};

#undef SU_FN
#undef SU_OP
#undef SU_CONST
#undef SU_F
#undef SU_P
