/*
 * msm_ifma_impl.h: the AVX-512 IFMA tile kernel of Pippenger's method with batch-affine
 * bucket accumulation, instantiated per curve.
 *
 * What: the same tile contract as the portable kernel (msm_cpu.h): for each window of the
 * tile, sum_j j * B_j with B_j the sum of the tile's points whose digit is +-j.
 * Method (batch-affine accumulation): buckets are affine points in the 8-lane IFMA form.
 * Adding P to a non-empty bucket B costs, in affine coordinates,
 *     lambda = (yP - yB) / (xP - xB),  x3 = lambda^2 - xB - xP,  y3 = lambda (xB - x3) - yB,
 * and the divisions of a whole batch share one inversion (Montgomery's trick: a running
 * product forward, one inversion, two multiplications per element backward). Per addition:
 * 1 (forward product) + 2 (backward) + 1 (lambda) + 1 (lambda^2) + 1 (y3) = 6 multiplications
 * against 10 (8M + 2S) for the mixed XYZZ addition of the portable kernel, and eight
 * additions run at once, one per IFMA lane (points and buckets loaded as rows and transposed).
 * A batch may touch each bucket once. A point whose bucket is already in the open batch waits
 * in a deferred list (at most one batch long) and joins the next batch; a full deferred list
 * flushes the batch early. When the batch is crowded into few buckets (under a quarter full
 * with the deferred list full: many equal digits, or a top window with few digit values such
 * as BLS12-381's carry-only window at c = 15), the point waits in an overflow list whose
 * points are summed pairwise, bucket by bucket, in batches too (MI_FN(reduce_overflow)).
 * Additions with xP = xB stay in the batch: P = B takes the doubling slope 3 xB^2 / (2 yB)
 * (same x3 and y3 formulas), P = -B empties the bucket. Only a partial sum of the pairwise
 * reduction that cancels (P = -B there) goes to the bucket's side accumulator, an XYZZ sum in scalar
 * arithmetic (about 40 times the cost of a batched addition: measured, 5% of the points sent
 * there made a 2^20 MSM 40% slower). That keeps
 * every input, however adversarial (all points equal, all digits equal), correct and linear
 * in time. An empty bucket takes its first point by copy.
 * Reduction: the running sums of msm_impl.h (a mixed and a general XYZZ addition per bucket),
 * run in the lanes on eight slices of the buckets at once and the slices combined in scalar
 * arithmetic (MI_FN(reduce_lanes)); windows of few buckets leave the IFMA form and reduce in
 * scalar arithmetic.
 * Cost per window: see MI_FN(window_cost), which the window choice minimises.
 * Why batches of up to BATCH_SIZE (2048): the inversion (about 330 multiplications in a chain
 * on eight lanes, so one inversion per 256 groups of eight) then costs about one
 * multiplication per addition; a batch is at most a quarter of the buckets long, else points
 * would find their bucket taken too often (their wait is costed in MI_FN(window_cost)).
 *
 * G2 (MI_DEG 2) is the same code over the 8-lane Fq2 of ifma_fe2_impl.h: a coordinate is
 * MI_DEG base-field elements (c0 then c1), each component lazily bounded as above (that
 * file's Karatsuba bounds hold for these operands), the negation and the equality tests
 * taken per component.
 *
 * Instantiation: define MI_EC (curve prefix, e.g. bn254_g1), MI_F (its coordinate field, e.g.
 * bn254_fp or bn254_fq2), MI_F8 (its IFMA lane type, e.g. bn254_fp8 or bn254_fq2x8), MI_DEG
 * (1, or 2 for G2; default 1), MI_N (52-bit limbs of the base field), MI_N64 (its 64-bit
 * limbs), MI_IFMA_P, MI_IFMA_K(c) (base-field IFMA constants) and MI_CURVE_B (64-bit
 * Montgomery limbs of b, MI_DEG * MI_N64 of them), include.
 */
#define MI_FN(op) ARITH_CAT(MI_EC, ARITH_CAT(_ifma_, op))
#define MI_TY(form) ARITH_CAT(MI_EC, ARITH_CAT(_, form))
#define MI_EC_FN(op) ARITH_CAT(MI_EC, ARITH_CAT(_, op))
#define MI_MSM_FN(op) ARITH_CAT(MI_EC, ARITH_CAT(_msm_, op))
#define MI_F8_FN(op) ARITH_CAT(MI_F8, ARITH_CAT(_, op))
#define MI_F_FN(op) ARITH_CAT(MI_F, ARITH_CAT(_, op))
#ifndef MI_DEG
#define MI_DEG 1
#endif
#define MI_CW (MI_DEG * MI_N)     /* 64-bit words of one IFMA coordinate: c0's limbs, then c1's */
#define MI_CW64 (MI_DEG * MI_N64) /* 64-bit limbs of one coordinate of the portable affine form */
#define MI_WORDS (2 * MI_CW)      /* 64-bit words of one IFMA affine point: x then y */

/* The worker's scratch, carved from one aligned block (see MI_FN(scratch_layout)). */
typedef struct {
    uint64_t *buckets;        /* [nb][MI_WORDS] affine, IFMA form, lazily reduced */
    unsigned char *state;     /* [nb] BUCKET_FULL | BUCKET_SIDE */
    uint32_t *stamp;          /* [nb] generation of the batch that holds the bucket */
    MI_TY(xyzz) *side;        /* [nb] side accumulators */
    MI_TY(affine) *plain;     /* [nb] buckets in the portable form, for the reduction */
    MI_F8 *den, *prefix;      /* [BATCH_SIZE / 8] */
    MI_F8 *xsum, *xb;         /* [BATCH_SIZE / 8] xP + xB and xB of each group, kept from pass 1 */
    uint32_t *batch_pt, *batch_code, *defer_pt, *defer_code; /* [BATCH_SIZE] each; pt: list position */
    uint32_t *aux_pt, *aux_code; /* [BATCH_SIZE] the batches of the overflow reduction */
    uint32_t *over_pt, *over_code; /* [OVERFLOW_SIZE] points of crowded buckets, waiting */
    uint64_t *tmp;            /* [OVERFLOW_SIZE][MI_WORDS] their partial sums, IFMA form */
    uint32_t *tmp_bucket;     /* [OVERFLOW_SIZE] bucket of each tmp entry (sorted) */
    uint64_t *keys;           /* [OVERFLOW_SIZE] sort keys */
    unsigned nbatch, ndefer, nover, batch_size; /* batch_size: MI_FN(batch_size)(c) */
    uint32_t gen;
    const uint64_t *prepared; /* the list's points in IFMA form, in list order */
} MI_TY(ifma_work);

static size_t MI_FN(scratch_layout)(MI_TY(ifma_work) *w, unsigned char *base, unsigned c)
{
    size_t nb = (size_t)1 << (c - 1), off = 0;
    size_t sizes[] = {nb * MI_WORDS * 8,          nb, nb * 4, nb * sizeof(MI_TY(xyzz)), nb * sizeof(MI_TY(affine)),
                      BATCH_SIZE / 8 * sizeof(MI_F8), BATCH_SIZE / 8 * sizeof(MI_F8), BATCH_SIZE / 8 * sizeof(MI_F8),
                      BATCH_SIZE / 8 * sizeof(MI_F8), BATCH_SIZE * 4,
                      BATCH_SIZE * 4,             BATCH_SIZE * 4, BATCH_SIZE * 4,
                      BATCH_SIZE * 4,             BATCH_SIZE * 4, OVERFLOW_SIZE * 4, OVERFLOW_SIZE * 4,
                      OVERFLOW_SIZE * MI_WORDS * 8, OVERFLOW_SIZE * 4, OVERFLOW_SIZE * 8};
    void **slots[] = {(void **)&w->buckets, (void **)&w->state,  (void **)&w->stamp,     (void **)&w->side,
                      (void **)&w->plain,   (void **)&w->den,    (void **)&w->prefix,    (void **)&w->xsum,
                      (void **)&w->xb,      (void **)&w->batch_pt,
                      (void **)&w->batch_code, (void **)&w->defer_pt, (void **)&w->defer_code,
                      (void **)&w->aux_pt,  (void **)&w->aux_code, (void **)&w->over_pt, (void **)&w->over_code,
                      (void **)&w->tmp,     (void **)&w->tmp_bucket, (void **)&w->keys};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (base)
            *slots[i] = base + off;
        off += (sizes[i] + 63) & ~(size_t)63;
    }
    return off;
}

/* Batch length for 2^(c-1) buckets: a quarter of the buckets, at most BATCH_SIZE, a multiple
 * of 8. Measured (BN254, 2^20, 2 threads): half the buckets made c = 13 and 14 4% slower. */
static unsigned MI_FN(batch_size)(unsigned c)
{
    size_t quarter = ((size_t)1 << (c - 1)) / 4 / 8 * 8;
    return quarter < 8 ? 8 : quarter > BATCH_SIZE ? BATCH_SIZE : (unsigned)quarter;
}

/* One window's cost in units of one lane's IFMA multiplication, fitted to measurements
 * (BN254, 2^20 points, 2 threads, c = 13, 14, 15: 818, 788, 615 ms; BLS12-381, 2^18 points,
 * 1 thread, c = 13, 14, 15: 663, 640, 730 ms; 2^16, 2 threads, c = 11, 12, 13: 160, 120, 108
 * ms): per point about 16 units of addition work (6 multiplications, loads, transposes,
 * carry chains, digit and bucket bookkeeping), 35 * batch / buckets for points that find
 * their bucket taken and wait (deferred, retried), the batch's inversion (the eight lanes
 * share one scalar inversion, ifma_fe_impl.h: a chain about as long as 330 lane
 * multiplications) shared by the batch: 8 * 330 / batch, and 6
 * more once the bucket rows outgrow a core's L2 (taken as 1 MiB: Zen 4); per bucket about 30
 * units of reduction (two additions in the lanes, MI_FN(reduce_lanes): 20M + 4S, the is-zero
 * tests, blends and row loads; measured, BN254 2^10 points at c = 16, one thread on a 2-core
 * Xeon (Ice Lake): 105 ms against 556 ms for the scalar reduction's 150 units). G2 (MI_DEG 2)
 * scales the work per point and per bucket by 3 (an Fq2 product is three base products), not
 * the inversion (one base inversion and a few products). */
#ifndef MI_L2_BYTES
#define MI_L2_BYTES ((size_t)1 << 20)
#endif
static double MI_FN(window_cost)(unsigned c, size_t m)
{
    size_t nb = (size_t)1 << (c - 1);
    double buckets = (double)nb, batch = (double)MI_FN(batch_size)(c);
    double scale = MI_DEG == 1 ? 1.0 : 3.0, spill = nb * MI_WORDS * 8 > MI_L2_BYTES ? 6.0 : 0.0;
    return (double)m * (scale * (16.0 + 35.0 * batch / buckets + spill) + 8.0 * 330.0 / batch) +
           scale * 30.0 * buckets;
}
static size_t MI_FN(scratch_size)(unsigned c, size_t max_points)
{
    MI_TY(ifma_work) w;
    (void)max_points;
    return MI_FN(scratch_layout)(&w, NULL, c) + 64; /* + alignment slack */
}

/* Lanes k of m: the MI_CW words at base + off[k] (one coordinate), by eight row loads and one
 * transpose per component: on Zen 4 about half the cost of MI_N gathers. Other lanes 0, their
 * rows not read. */
static inline void MI_FN(load_rows_masked)(MI_F8 *r, const uint64_t *base, const size_t *off, __mmask8 m)
{
    for (int d = 0; d < MI_DEG; d++) {
        __m512i row[8];
        for (int k = 0; k < 8; k++)
            row[k] = _mm512_maskz_loadu_epi64(m >> k & 1 ? (__mmask8)((1u << MI_N) - 1) : 0, base + off[k] + d * MI_N);
        ifma_transpose8(row);
        for (int j = 0; j < MI_N; j++)
            r->l[d * MI_N + j] = row[j];
    }
}

static inline void MI_FN(load_rows)(MI_F8 *r, const uint64_t *base, const size_t *off)
{
    MI_FN(load_rows_masked)(r, base, off, 0xff);
}

/* r := b in the lanes of m, r elsewhere. */
static inline void MI_FN(blend)(MI_F8 *r, __mmask8 m, const MI_F8 *b)
{
    for (int j = 0; j < MI_CW; j++)
        r->l[j] = _mm512_mask_blend_epi64(m, r->l[j], b->l[j]);
}

/* The inverse of load_rows for the lanes set in lanes (a third of the cost of scatters). */
static inline void MI_FN(store_rows)(uint64_t *base, const size_t *off, __mmask8 lanes, const MI_F8 *v)
{
    for (int d = 0; d < MI_DEG; d++) {
        __m512i row[8];
        for (int j = 0; j < 8; j++)
            row[j] = j < MI_N ? v->l[d * MI_N + j] : _mm512_setzero_si512();
        ifma_transpose8(row);
        for (int k = 0; k < 8; k++)
            if (lanes >> k & 1)
                _mm512_mask_storeu_epi64(base + off[k] + d * MI_N, (__mmask8)((1u << MI_N) - 1), row[k]);
    }
}

/* Lanes k < count of v := the coordinate at src[k] (MI_DEG components of MI_N64 64-bit limbs,
 * c0's first) as 52-bit limbs, the same integers; the other lanes zero, their rows not read.
 * Eight row loads and one transpose per component, then the limbs cut in all lanes at once
 * (ifma_limbs8_64_to_52): the limb-by-limb cut and the transpose through an array that this
 * replaced took about half of the 2^20-point preparation (about 50 ns a point, 2-core Xeon). */
static void MI_FN(lanes_from_limbs)(MI_F8 *v, const uint64_t *const *src, size_t count)
{
    for (int d = 0; d < MI_DEG; d++) {
        __m512i a[8];
        for (size_t k = 0; k < 8; k++)
            a[k] = k < count ? _mm512_maskz_loadu_epi64((__mmask8)((1u << MI_N64) - 1), src[k] + d * MI_N64)
                             : _mm512_setzero_si512();
        ifma_transpose8(a); /* a[w]: word w of every lane */
        ifma_limbs8_64_to_52(v->l + d * MI_N, MI_N, a, MI_N64);
    }
}

/* The inverse: dst[k] := lane k of v (normalised limbs) as MI_CW64 64-bit limbs, k < count. */
static void MI_FN(limbs_from_lanes)(uint64_t *const *dst, const MI_F8 *v, size_t count)
{
    uint64_t lanes[MI_CW][8], limbs[MI_N];
    for (int j = 0; j < MI_CW; j++)
        _mm512_storeu_si512(lanes[j], v->l[j]);
    for (size_t k = 0; k < count; k++)
        for (int d = 0; d < MI_DEG; d++) {
            for (int j = 0; j < MI_N; j++)
                limbs[j] = lanes[d * MI_N + j][k];
            ifma_limbs_52_to_64(dst[k] + d * MI_N64, MI_N64, limbs, MI_N);
        }
}

/* Coordinate coord (0: x, 1: y) of a portable affine point, as 64-bit limbs. */
static inline const uint64_t *MI_FN(coord_limbs)(const MI_TY(affine) *pt, int coord)
{
    return (const uint64_t *)pt + coord * MI_CW64;
}

/* out[i] = points[index[i]] in the IFMA form (canonical, so negation is p - y per component),
 * i in [begin, end). */
static void MI_FN(prepare_points)(void *out_v, const void *points_v, const uint32_t *index, size_t begin, size_t end)
{
    static const uint64_t p[MI_N] = MI_IFMA_P;
    uint64_t *out = out_v;
    const MI_TY(affine) *points = points_v;
    for (size_t i0 = begin; i0 < end; i0 += 8) {
        size_t count = end - i0 < 8 ? end - i0 : 8, off[8] = {0};
        for (size_t k = 0; k < count; k++)
            off[k] = (i0 + k) * MI_WORDS;
        for (int coord = 0; coord < 2; coord++) {
            const uint64_t *src[8];
            MI_F8 v;
            for (size_t k = 0; k < count; k++)
                src[k] = MI_FN(coord_limbs)(&points[index[i0 + k]], coord);
            MI_FN(lanes_from_limbs)(&v, src, count);
            MI_F8_FN(enter)(&v, &v);
            MI_F8_FN(sub_if_ge)(&v, &v, p);
            MI_FN(store_rows)(out + coord * MI_CW, off, (__mmask8)((1u << count) - 1), &v);
        }
    }
}

/* Checks points[begin, end) (the interchange bytes, read in place as affine limbs): each
 * coordinate below p (scalar compares, in order), then y^2 = x^3 + b on eight points at once
 * (enter the IFMA form, 2 squarings, 1 multiplication). Returns the first failing index, or
 * end, with its kind. Measured at 2^20 points on 2 threads: 14-18 ms for BN254 and 28-34 ms
 * for BLS12-381, against 53-79 and 111-129 ms for the portable check. */
static size_t MI_FN(check_points)(const void *points_v, size_t begin, size_t end, msm_point_check *kind)
{
    static const uint64_t b64[MI_CW64] = MI_CURVE_B, zero64[MI_CW64] = {0};
    const MI_TY(affine) *pts = points_v;
    uint64_t blimbs[MI_CW];
    MI_F8 b, x, y, lhs, rhs;
    for (int d = 0; d < MI_DEG; d++)
        ifma_limbs_64_to_52(blimbs + d * MI_N, MI_N, b64 + d * MI_N64, MI_N64);
    MI_F8_FN(set_const)(&b, blimbs);
    MI_F8_FN(enter)(&b, &b);
    for (size_t i0 = begin; i0 < end; i0 += 8) {
        size_t count = end - i0 < 8 ? end - i0 : 8, in_range = count;
        const uint64_t *xs[8], *ys[8];
        unsigned finite = 0;
        for (size_t k = 0; k < count; k++) {
            const MI_TY(affine) *pt = &pts[i0 + k];
            xs[k] = ys[k] = zero64; /* infinity and unchecked lanes stay zero and pass */
            if (!MI_F_FN(limbs_are_reduced)(MI_FN(coord_limbs)(pt, 0)) ||
                !MI_F_FN(limbs_are_reduced)(MI_FN(coord_limbs)(pt, 1))) {
                in_range = k;
                break;
            }
            if (MI_EC_FN(affine_is_inf)(pt))
                continue;
            finite |= 1u << k;
            xs[k] = MI_FN(coord_limbs)(pt, 0);
            ys[k] = MI_FN(coord_limbs)(pt, 1);
        }
        MI_FN(lanes_from_limbs)(&x, xs, in_range);
        MI_FN(lanes_from_limbs)(&y, ys, in_range);
        MI_F8_FN(enter)(&x, &x);
        MI_F8_FN(enter)(&y, &y);
        MI_F8_FN(sqr)(&lhs, &y);
        MI_F8_FN(sqr)(&rhs, &x);
        MI_F8_FN(mul)(&rhs, &rhs, &x);
        MI_F8_FN(add)(&rhs, &rhs, &b);
        MI_F8_FN(sub)(&lhs, &lhs, &rhs);
        unsigned off_curve = (unsigned)(__mmask8)~MI_F8_FN(is_zero)(&lhs) & finite & ((1u << in_range) - 1);
        if (off_curve) {
            *kind = MSM_POINT_NOT_ON_CURVE;
            return i0 + (size_t)__builtin_ctz(off_curve);
        }
        if (in_range < count) {
            *kind = MSM_POINT_COORD_RANGE;
            return i0 + in_range;
        }
    }
    return end;
}

static void MI_FN(side_add_plain)(MI_TY(ifma_work) *w, uint32_t bucket, const MI_TY(affine) *pt)
{
    if (!(w->state[bucket] & BUCKET_SIDE)) {
        MI_EC_FN(xyzz_set_inf)(&w->side[bucket]);
        w->state[bucket] |= BUCKET_SIDE;
    }
    MI_EC_FN(xyzz_add_affine)(&w->side[bucket], &w->side[bucket], pt);
}

/* dst := the canonical point src, negated if neg (-y = p - y for y != 0). */
static void MI_FN(copy_point)(uint64_t *dst, const uint64_t *src, int neg)
{
    static const uint64_t p[MI_N] = MI_IFMA_P;
    for (int j = 0; j < MI_WORDS; j++)
        dst[j] = src[j];
    for (int d = 0; neg && d < MI_DEG; d++) { /* -y per component: p - y, or 0 for y = 0 */
        const uint64_t *y = src + MI_CW + d * MI_N;
        uint64_t *out = dst + MI_CW + d * MI_N, nonzero = 0, borrow = 0;
        for (int j = 0; j < MI_N; j++)
            nonzero |= y[j];
        for (int j = 0; nonzero && j < MI_N; j++) {
            uint64_t diff = p[j] - y[j] - borrow;
            borrow = diff >> 63;
            out[j] = diff & IFMA_MASK52;
        }
    }
}

/* Bucket := point k (negated if neg). */
static void MI_FN(bucket_copy)(MI_TY(ifma_work) *w, uint32_t bucket, uint32_t k, int neg)
{
    MI_FN(copy_point)(w->buckets + (size_t)bucket * MI_WORDS, w->prepared + (size_t)k * MI_WORDS, neg);
    w->state[bucket] |= BUCKET_FULL;
}


/* out[k] = the IFMA-form affine point at base + off[k] in the portable form (canonical
 * 64-bit Montgomery), k < count <= 8; off has 8 valid entries. One multiplication per
 * coordinate for eight points. */
static void MI_FN(rows_to_plain)(MI_TY(affine) *out, const uint64_t *base, const size_t *off, size_t count)
{
    for (int coord = 0; coord < 2; coord++) {
        uint64_t *dst[8];
        MI_F8 v;
        MI_FN(load_rows)(&v, base + coord * MI_CW, off);
        MI_F8_FN(leave)(&v, &v);
        for (size_t k = 0; k < count; k++)
            dst[k] = (uint64_t *)&out[k] + coord * MI_CW64;
        MI_FN(limbs_from_lanes)(dst, &v, count);
    }
}

/* The side accumulator of bucket += the IFMA-form affine point at row (a partial sum). */
static void MI_FN(side_add_row)(MI_TY(ifma_work) *w, uint32_t bucket, const uint64_t *row)
{
    const size_t off[8] = {0};
    MI_TY(affine) pt;
    MI_FN(rows_to_plain)(&pt, row, off, 1);
    MI_FN(side_add_plain)(w, bucket, &pt);
}

/* Word offsets of group g's points and buckets; lanes past the batch repeat lane 0. */
static inline void MI_FN(group_index)(const uint32_t *pt, const uint32_t *code, unsigned n, unsigned g, size_t *poff,
                                      size_t *boff, __mmask8 *active, __mmask8 *neg)
{
    unsigned mneg = 0, mact = 0;
    for (unsigned k = 0; k < 8; k++) {
        unsigned e = 8 * g + k < n ? 8 * g + k : 8 * g;
        poff[k] = (size_t)pt[e] * MI_WORDS;
        boff[k] = (size_t)(code[e] >> 1) * MI_WORDS;
        if (8 * g + k < n) {
            mact |= 1u << k;
            mneg |= (code[e] & 1u) << k;
        }
    }
    *active = (__mmask8)mact;
    *neg = (__mmask8)mneg;
}

/* v < 4p -> v mod p. */
static inline void MI_FN(canonical_from_4p)(MI_F8 *v)
{
    static const uint64_t p2[MI_N] = MI_IFMA_K(2P);
    MI_F8_FN(sub_if_ge)(v, v, p2);
    MI_F8_FN(canonical)(v, v);
}

/* The point operands' y, canonical, negated in the lanes of neg (p - y per component, 0 for
 * 0), and the buckets' y (below 4p). A G2 component may be 0 where y is not: p - 0 = p would
 * take yP + 4p - yB to 5p, past the zero test's range. */
static inline void MI_FN(load_y)(MI_F8 *yp, MI_F8 *yb, const uint64_t *pbase, const uint64_t *bbase,
                                 const size_t *poff, const size_t *boff, __mmask8 neg, int mode)
{
    static const uint64_t p1[MI_N] = MI_IFMA_K(P);
    MI_F8 t, zero;
    MI_FN(load_rows)(yp, pbase + MI_CW, poff);
    MI_FN(load_rows)(yb, bbase + MI_CW, boff);
    if (mode != FLUSH_POINTS) /* a partial sum (below 4p) as the point: make it canonical */
        MI_FN(canonical_from_4p)(yp);
    for (int j = 0; j < MI_CW; j++)
        zero.l[j] = _mm512_setzero_si512();
    MI_F8_FN(sub_lazy)(&t, &zero, yp, p1);
    MI_F8_FN(sub_if_ge)(&t, &t, p1);
    MI_FN(blend)(yp, neg, &t);
}

/* The lanes of equal_x where P = B (not P = -B), with den := 2 yB there (below 8p). */
static __mmask8 MI_FN(doubling_lanes)(const uint64_t *pbase, const uint64_t *bbase, const size_t *poff,
                                      const size_t *boff, __mmask8 neg, int mode, __mmask8 equal_x, MI_F8 *den)
{
    static const uint64_t p4[MI_N] = MI_IFMA_K(4P);
    MI_F8 yp, yb, t;
    MI_FN(load_y)(&yp, &yb, pbase, bbase, poff, boff, neg, mode);
    MI_F8_FN(sub_lazy)(&t, &yp, &yb, p4); /* in (0, 5p) */
    __mmask8 same = MI_F8_FN(zero_below_5p)(&t) & equal_x;
    MI_F8_FN(add_raw)(&t, &yb, &yb);
    MI_FN(blend)(den, same, &t);
    return same;
}

/* Inverts acc[0..CHAINS-1] together with one inversion: inv of the product, then each
 * inverse as that times the product of the others (prefix and suffix products). */
static void MI_FN(invert_chains)(MI_F8 *acc)
{
    MI_F8 prefix[CHAINS], inv;
    prefix[0] = acc[0];
    for (int j = 1; j < CHAINS; j++)
        MI_F8_FN(mul)(&prefix[j], &prefix[j - 1], &acc[j]);
    MI_F8_FN(inv)(&inv, &prefix[CHAINS - 1]);
    for (int j = CHAINS - 1; j > 0; j--) { /* inv = (acc_0 .. acc_j)^-1 on entry */
        MI_F8 inv_j;
        MI_F8_FN(mul)(&inv_j, &inv, &prefix[j - 1]);
        MI_F8_FN(mul)(&inv, &inv, &acc[j]);
        acc[j] = inv_j;
    }
    acc[0] = inv;
}

/* Adds every (point, bucket) pair of the batch; each bucket occurs at most once.
 * Three passes over the groups of eight: (1) den = xP - xB and CHAINS interleaved running
 * products; (2) one inversion, then 1/den of every group walking the chains back; (3) the
 * sums, each group independent of the others. Interleaved chains and the independent last
 * pass keep the multiplier busy: one long chain would wait on each product's latency.
 * Bounds (lazy reduction, one carry chain per step): points are canonical (< p), buckets are
 * kept below 4p, products are below 2p (ifma_fe_impl.h: mul accepts inputs a < Ap, b < Bp
 * with AB p < R'; here AB <= 16; G2: ifma_fe2_impl.h's 4 AB p < R' holds for BN254 up to
 * AB = 21, and its squaring of xB < 4p needs 64p < R'), bounds per component for G2:
 *   den = xP + 4p - xB < 5p       xsum = xP + xB < 5p      yP' = yP or (p - yP) mod p < p
 *   t = yP' + 4p - yB < 5p        x3 = lambda^2 + 5p - xsum < 7p, minus 4p if >= 4p
 *   u = xB + 4p - x3 < 8p         y3 = lambda u + 4p - yB < 6p, minus 4p if >= 4p
 * xP = xB mod p exactly when den is p, 2p, 3p or 4p. A partial sum as the point operand (the
 * overflow reduction's modes) is made canonical first. */
static void MI_FN(flush_entries)(MI_TY(ifma_work) *w, const uint32_t *pt, const uint32_t *code, unsigned n, int mode)
{
    const uint64_t *pbase = mode == FLUSH_POINTS ? w->prepared : w->tmp;
    uint64_t *bbase = mode == FLUSH_PAIRS ? w->tmp : w->buckets;
    static const uint64_t p4[MI_N] = MI_IFMA_K(4P), p5[MI_N] = MI_IFMA_K(5P);
    unsigned groups = (n + 7) / 8;
    unsigned char special[BATCH_SIZE / 8], dbl[BATCH_SIZE / 8];
    MI_F8 acc[CHAINS], one;
    MI_F8_FN(set_one)(&one);
    for (int j = 0; j < CHAINS; j++)
        acc[j] = one;
    for (unsigned g = 0; g < groups; g++) {
        size_t poff[8], boff[8];
        __mmask8 active, neg;
        MI_F8 xp;
        MI_FN(group_index)(pt, code, n, g, poff, boff, &active, &neg);
        MI_FN(load_rows)(&xp, pbase, poff);
        MI_FN(load_rows)(&w->xb[g], bbase, boff);
        if (mode != FLUSH_POINTS) /* a partial sum (below 4p) as the point: make it canonical */
            MI_FN(canonical_from_4p)(&xp);
        MI_F8_FN(sub_lazy)(&w->den[g], &xp, &w->xb[g], p4);
        MI_F8_FN(add_raw)(&w->xsum[g], &xp, &w->xb[g]);
        __mmask8 equal_x = MI_F8_FN(zero_below_5p)(&w->den[g]) & active;
        __mmask8 use_one = equal_x | (__mmask8)~active, doubling = 0;
        if (equal_x) /* rare for random points: P = B doubles (denominator 2 yB), P = -B cancels */
            doubling = MI_FN(doubling_lanes)(pbase, bbase, poff, boff, neg, mode, equal_x, &w->den[g]);
        MI_FN(blend)(&w->den[g], use_one & (__mmask8)~doubling, &one);
        special[g] = equal_x & (__mmask8)~doubling;
        dbl[g] = doubling;
        w->prefix[g] = acc[g % CHAINS];
        MI_F8_FN(mul)(&acc[g % CHAINS], &acc[g % CHAINS], &w->den[g]);
    }
    MI_FN(invert_chains)(acc);
    for (unsigned g = groups; g-- > 0;) { /* prefix[g] := 1 / den[g] */
        MI_F8 dinv;
        MI_F8_FN(mul)(&dinv, &acc[g % CHAINS], &w->prefix[g]);
        MI_F8_FN(mul)(&acc[g % CHAINS], &acc[g % CHAINS], &w->den[g]);
        w->prefix[g] = dinv;
    }
    for (unsigned g = 0; g < groups; g++) {
        size_t poff[8], boff[8];
        __mmask8 active, neg;
        MI_F8 yp, yb, lambda, t, x3, y3;
        MI_FN(group_index)(pt, code, n, g, poff, boff, &active, &neg);
        MI_FN(load_y)(&yp, &yb, pbase, bbase, poff, boff, neg, mode);
        MI_F8_FN(sub_lazy)(&t, &yp, &yb, p4);
        if (dbl[g]) { /* lambda = 3 xB^2 / (2 yB) in the doubling lanes */
            MI_F8 sq, three;
            MI_F8_FN(sqr)(&sq, &w->xb[g]);
            MI_F8_FN(add_raw)(&three, &sq, &sq);
            MI_F8_FN(add_raw)(&three, &three, &sq);
            MI_FN(blend)(&t, dbl[g], &three);
        }
        MI_F8_FN(mul)(&lambda, &t, &w->prefix[g]);
        MI_F8_FN(sqr)(&x3, &lambda);
        MI_F8_FN(sub_lazy)(&x3, &x3, &w->xsum[g], p5);
        MI_F8_FN(sub_if_ge)(&x3, &x3, p4);
        MI_F8_FN(sub_lazy)(&t, &w->xb[g], &x3, p4);
        MI_F8_FN(mul)(&y3, &lambda, &t);
        MI_F8_FN(sub_lazy)(&y3, &y3, &yb, p4);
        MI_F8_FN(sub_if_ge)(&y3, &y3, p4);
        __mmask8 write = active & (__mmask8)~special[g];
        MI_FN(store_rows)(bbase, boff, write, &x3);
        MI_FN(store_rows)(bbase + MI_CW, boff, write, &y3);
    }
    /* P = -B: the bucket empties. Not in the overflow reduction's modes: a partial sum cannot
     * be empty, and a bucket may wait in the open batch of points while the reduction runs;
     * there P goes to the side accumulator and B stays. */
    for (unsigned g = 0; g < groups; g++)
        for (unsigned k = 0; special[g] && k < 8; k++)
            if (special[g] >> k & 1) {
                unsigned e = 8 * g + k;
                if (mode == FLUSH_POINTS)
                    w->state[code[e] >> 1] &= (unsigned char)~BUCKET_FULL;
                else
                    MI_FN(side_add_row)(w, mode == FLUSH_PAIRS ? w->tmp_bucket[code[e] >> 1] : code[e] >> 1,
                                        w->tmp + (size_t)pt[e] * MI_WORDS);
            }
}

/* The open batch: points into buckets. */
static void MI_FN(flush)(MI_TY(ifma_work) *w)
{
    MI_FN(flush_entries)(w, w->batch_pt, w->batch_code, w->nbatch, FLUSH_POINTS);
    w->nbatch = 0;
    w->gen++;
}

static int MI_FN(compare_keys)(const void *a, const void *b)
{
    uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
    return x < y ? -1 : x > y;
}

/* Adds the queued (tmp index, tmp index or bucket) pair to the aux batch; flushes when full. */
static void MI_FN(aux_push)(MI_TY(ifma_work) *w, unsigned *m, uint32_t p, uint32_t b, int mode)
{
    w->aux_pt[*m] = p;
    w->aux_code[(*m)++] = b << 1;
    if (*m == BATCH_SIZE) {
        MI_FN(flush_entries)(w, w->aux_pt, w->aux_code, *m, mode);
        *m = 0;
    }
}

/* The end of run s in the sorted tmp entries (entries of one bucket). */
static unsigned MI_FN(run_end)(const MI_TY(ifma_work) *w, unsigned s, unsigned n)
{
    unsigned e = s + 1;
    while (e < n && w->tmp_bucket[e] == w->tmp_bucket[s])
        e++;
    return e;
}

/* The points of crowded buckets (few buckets, many points: equal digits, or a top window
 * with few digit values, such as BLS12-381's carry window at c = 15) summed by pairwise
 * batch-affine additions instead of one at a time: sorted by bucket, each bucket's points
 * added in pairs, then pairs of pairs (every round one batch of independent additions) while
 * a round has at least MIN_PAIRS additions; each bucket's first partial sum is then added to
 * the bucket (one batch), the few others to its side accumulator. */
static void MI_FN(reduce_overflow)(MI_TY(ifma_work) *w)
{
    unsigned n = w->nover, m = 0;
    if (n == 0)
        return;
    for (unsigned i = 0; i < n; i++)
        w->keys[i] = (uint64_t)(w->over_code[i] >> 1) << 32 | i;
    qsort(w->keys, n, sizeof w->keys[0], MI_FN(compare_keys));
    for (unsigned j = 0; j < n; j++) {
        uint32_t i = (uint32_t)w->keys[j];
        MI_FN(copy_point)(w->tmp + (size_t)j * MI_WORDS, w->prepared + (size_t)w->over_pt[i] * MI_WORDS,
                          (int)(w->over_code[i] & 1));
        w->tmp_bucket[j] = w->over_code[i] >> 1;
    }
    unsigned stride = 1;
    for (; stride < n; stride *= 2) { /* rounds while they fill a batch worth an inversion */
        unsigned pairs = 0;
        for (unsigned s = 0, e; s < n; s = e) {
            e = MI_FN(run_end)(w, s, n);
            pairs += (e - s) / (2 * stride) + ((e - s) % (2 * stride) > stride);
        }
        if (pairs < MIN_PAIRS)
            break;
        for (unsigned s = 0, e; s < n; s = e) {
            e = MI_FN(run_end)(w, s, n);
            for (unsigned a = s; a + stride < e; a += 2 * stride)
                MI_FN(aux_push)(w, &m, a + stride, a, FLUSH_PAIRS);
        }
        if (m)
            MI_FN(flush_entries)(w, w->aux_pt, w->aux_code, m, FLUSH_PAIRS);
        m = 0;
    }
    for (unsigned s = 0, e; s < n; s = e) {
        uint32_t b = w->tmp_bucket[s];
        e = MI_FN(run_end)(w, s, n);
        for (unsigned a = s + stride; a < e; a += stride) /* the few partial sums left */
            MI_FN(side_add_row)(w, b, w->tmp + (size_t)a * MI_WORDS);
        if (!(w->state[b] & BUCKET_FULL)) {
            MI_FN(copy_point)(w->buckets + (size_t)b * MI_WORDS, w->tmp + (size_t)s * MI_WORDS, 0);
            w->state[b] |= BUCKET_FULL;
        } else {
            MI_FN(aux_push)(w, &m, s, b, FLUSH_TMP_INTO_BUCKETS);
        }
    }
    if (m)
        MI_FN(flush_entries)(w, w->aux_pt, w->aux_code, m, FLUSH_TMP_INTO_BUCKETS);
    w->nover = 0;
}

/* One (point, digit code) pair: copy, batch, defer, or side accumulator. */
static void MI_FN(accumulate)(MI_TY(ifma_work) *w, uint32_t k, uint32_t code, int may_defer)
{
    uint32_t b = code >> 1;
    if (!(w->state[b] & BUCKET_FULL)) {
        MI_FN(bucket_copy)(w, b, k, (int)(code & 1));
    } else if (w->stamp[b] == w->gen) {
        if (may_defer && w->ndefer < w->batch_size) {
            w->defer_pt[w->ndefer] = k;
            w->defer_code[w->ndefer++] = code;
        } else { /* crowded: to the pairwise reduction */
            w->over_pt[w->nover] = k;
            w->over_code[w->nover++] = code;
            if (w->nover == OVERFLOW_SIZE)
                MI_FN(reduce_overflow)(w);
        }
    } else {
        w->stamp[b] = w->gen;
        w->batch_pt[w->nbatch] = k;
        w->batch_code[w->nbatch++] = code;
    }
}

/* Flushes the full batch, then moves the deferred points into the next one. */
static void MI_FN(flush_and_retry)(MI_TY(ifma_work) *w)
{
    unsigned n = w->ndefer;
    if (w->nbatch > 0)
        MI_FN(flush)(w);
    else
        w->gen++;
    w->ndefer = 0;
    for (unsigned i = 0; i < n; i++) {
        uint32_t k = w->defer_pt[i], code = w->defer_code[i];
        if (w->nbatch == w->batch_size || ((w->state[code >> 1] & BUCKET_FULL) && w->stamp[code >> 1] == w->gen)) {
            w->defer_pt[w->ndefer] = k; /* i >= ndefer: compaction in place */
            w->defer_code[w->ndefer++] = code;
        } else {
            MI_FN(accumulate)(w, k, code, 0);
        }
    }
}

/* Buckets -> portable affine form, eight at a time (full buckets only are read later). */
static void MI_FN(buckets_to_plain)(MI_TY(ifma_work) *w, size_t nb)
{
    for (size_t b0 = 0; b0 < nb; b0 += 8) {
        size_t off[8], count = nb - b0 < 8 ? nb - b0 : 8;
        for (size_t k = 0; k < 8; k++)
            off[k] = (b0 + (k < count ? k : 0)) * MI_WORDS;
        MI_FN(rows_to_plain)(&w->plain[b0], w->buckets, off, count);
    }
}
/* ---- The bucket reduction in the lanes ----
 * sum_j (j + 1) B_j by running sums costs two additions per bucket; in scalar ADX arithmetic
 * (8M + 2S mixed, 12M + 2S general) that was about a third of a whole Groth16 proof's time on
 * this tier (perf, BN254 2^16, one thread), against half for the batch-affine accumulation.
 * Here lane k takes the buckets [k s, k s + s), s = nb / 8, and runs the same running sums
 * on them in IFMA arithmetic, all eight lanes at once: lane k ends with the running sum
 * R_k = sum_t B_{ks+t} and S_k = sum_t (t + 1) B_{ks+t}; then, in scalar arithmetic,
 * sum_j (j + 1) B_j = sum_k S_k + s sum_k k R_k: about 22 additions and log2(s) doublings
 * for the whole window. The lanes keep which of them hold infinity as masks (the XYZZ sums
 * never have ZZ = 0 otherwise), and the rare cases P = Q (doubling) and P = -Q (infinity)
 * are blended in lane by lane. A bucket's side accumulator joins its lane's running sum as
 * in the scalar reduction. The window sum is the same group element as the scalar
 * reduction's; MSM results are affine, so the same bits. */
#define LANE_REDUCE_MIN 64 /* buckets; fewer: the scalar reduction (the combination costs ~30) */

typedef struct {
    MI_F8 x, y, zz, zzz;
} MI_TY(xyzz8);

static inline void MI_FN(blend_xyzz8)(MI_TY(xyzz8) *r, __mmask8 m, const MI_TY(xyzz8) *b)
{
    MI_FN(blend)(&r->x, m, &b->x);
    MI_FN(blend)(&r->y, m, &b->y);
    MI_FN(blend)(&r->zz, m, &b->zz);
    MI_FN(blend)(&r->zzz, m, &b->zzz);
}

/* dbl-2008-s-1 (a = 0) in every lane: r = 2 p. Coordinates in [0, 2p), as every function here. */
static void MI_FN(xyzz8_dbl)(MI_TY(xyzz8) *r, const MI_TY(xyzz8) *p)
{
    MI_F8 u, v, w, s, m, t;
    MI_F8_FN(add)(&u, &p->y, &p->y);
    MI_F8_FN(sqr)(&v, &u);
    MI_F8_FN(mul)(&w, &u, &v);
    MI_F8_FN(mul)(&s, &p->x, &v);
    MI_F8_FN(sqr)(&m, &p->x);
    MI_F8_FN(add)(&t, &m, &m);
    MI_F8_FN(add)(&m, &m, &t);
    MI_F8_FN(mul)(&r->zz, &v, &p->zz);
    MI_F8_FN(mul)(&r->zzz, &w, &p->zzz);
    MI_F8_FN(mul)(&w, &w, &p->y);
    MI_F8_FN(sqr)(&t, &m);
    MI_F8_FN(sub)(&t, &t, &s);
    MI_F8_FN(sub)(&r->x, &t, &s);
    MI_F8_FN(sub)(&s, &s, &r->x);
    MI_F8_FN(mul)(&s, &m, &s);
    MI_F8_FN(sub)(&r->y, &s, &w);
}

/* The end of both additions, from P = pp and R = rr: s->x, s->y := X3, Y3 with Q = q1 PP and
 * the subtrahend y1 PPP (q1, y1: X1 and Y1 in the mixed addition, U1 and S1 in the general
 * one); s->zz, s->zzz (the operands' product, set by the caller) take PP and PPP. */
static void MI_FN(xyzz8_finish)(MI_TY(xyzz8) *s, const MI_F8 *pp, const MI_F8 *rr, const MI_F8 *q1,
                                 const MI_F8 *y1)
{
    MI_F8 t, ppp, qq;
    MI_F8_FN(sqr)(&t, pp);
    MI_F8_FN(mul)(&ppp, pp, &t);
    MI_F8_FN(mul)(&s->zz, &s->zz, &t);
    MI_F8_FN(mul)(&s->zzz, &s->zzz, &ppp);
    MI_F8_FN(mul)(&qq, q1, &t);
    MI_F8_FN(sqr)(&t, rr);
    MI_F8_FN(sub)(&t, &t, &ppp);
    MI_F8_FN(sub)(&t, &t, &qq);
    MI_F8_FN(sub)(&s->x, &t, &qq);
    MI_F8_FN(sub)(&qq, &qq, &s->x);
    MI_F8_FN(mul)(&qq, rr, &qq);
    MI_F8_FN(mul)(&t, y1, &ppp);
    MI_F8_FN(sub)(&s->y, &qq, &t);
}

/* In the lanes of take: r += q (madd-2008-s), q affine and finite. rinf: r's infinite lanes;
 * returns them after. */
static __mmask8 MI_FN(xyzz8_add_affine)(MI_TY(xyzz8) *r, __mmask8 rinf, const MI_F8 *qx, const MI_F8 *qy,
                                        __mmask8 take)
{
    MI_TY(xyzz8) s, q;
    MI_F8 u2, s2, pp, rr;
    MI_F8_FN(mul)(&u2, qx, &r->zz);
    MI_F8_FN(mul)(&s2, qy, &r->zzz);
    MI_F8_FN(sub)(&pp, &u2, &r->x);
    MI_F8_FN(sub)(&rr, &s2, &r->y);
    __mmask8 finite = take & (__mmask8)~rinf, pz = MI_F8_FN(is_zero)(&pp) & finite;
    __mmask8 rz = MI_F8_FN(is_zero)(&rr) & pz;
    s.zz = r->zz;
    s.zzz = r->zzz;
    MI_FN(xyzz8_finish)(&s, &pp, &rr, &r->x, &r->y);
    q.x = *qx;
    q.y = *qy;
    MI_F8_FN(set_one)(&q.zz);
    q.zzz = q.zz;
    if (rz) { /* r = q: double q */
        MI_TY(xyzz8) d;
        MI_FN(xyzz8_dbl)(&d, &q);
        MI_FN(blend_xyzz8)(&s, rz, &d);
    }
    MI_FN(blend_xyzz8)(&s, take & rinf, &q);
    MI_FN(blend_xyzz8)(r, take, &s);
    return (__mmask8)((rinf & ~take) | (pz & ~rz));
}

/* In the lanes of take: r += q (add-2008-s); rinf, qinf: the infinite lanes; returns r's after. */
static __mmask8 MI_FN(xyzz8_add)(MI_TY(xyzz8) *r, __mmask8 rinf, const MI_TY(xyzz8) *q, __mmask8 qinf,
                                 __mmask8 take)
{
    MI_TY(xyzz8) s;
    MI_F8 u1, u2, s1, s2, pp, rr;
    MI_F8_FN(mul)(&u1, &r->x, &q->zz);
    MI_F8_FN(mul)(&u2, &q->x, &r->zz);
    MI_F8_FN(mul)(&s1, &r->y, &q->zzz);
    MI_F8_FN(mul)(&s2, &q->y, &r->zzz);
    MI_F8_FN(sub)(&pp, &u2, &u1);
    MI_F8_FN(sub)(&rr, &s2, &s1);
    __mmask8 both = take & (__mmask8)~rinf & (__mmask8)~qinf, pz = MI_F8_FN(is_zero)(&pp) & both;
    __mmask8 rz = MI_F8_FN(is_zero)(&rr) & pz;
    MI_F8_FN(mul)(&s.zz, &r->zz, &q->zz);
    MI_F8_FN(mul)(&s.zzz, &r->zzz, &q->zzz);
    MI_FN(xyzz8_finish)(&s, &pp, &rr, &u1, &s1);
    if (rz) { /* r = q: double r */
        MI_TY(xyzz8) d;
        MI_FN(xyzz8_dbl)(&d, r);
        MI_FN(blend_xyzz8)(&s, rz, &d);
    }
    MI_FN(blend_xyzz8)(&s, take & rinf & (__mmask8)~qinf, q);
    MI_FN(blend_xyzz8)(r, both | (take & rinf), &s);
    return (__mmask8)((rinf & ~(take & (__mmask8)~qinf)) | (pz & ~rz));
}

/* Lanes of m: the coordinate at base + off[k] (IFMA rows, below 4p) reduced below 2p; other
 * lanes 0 (their rows are not read). */
static void MI_FN(load_bucket_coord)(MI_F8 *r, const uint64_t *base, const size_t *off, __mmask8 m)
{
    static const uint64_t p2[MI_N] = MI_IFMA_K(2P);
    MI_FN(load_rows_masked)(r, base, off, m);
    MI_F8_FN(sub_if_ge)(r, r, p2);
}

/* Lanes of m: the side accumulators side[j[k]] (portable XYZZ) in the lane form; returns the
 * lanes of m where the accumulator is infinity. */
static __mmask8 MI_FN(load_sides)(MI_TY(xyzz8) *r, const MI_TY(xyzz) *side, const size_t *j, __mmask8 m)
{
    static const uint64_t zero[MI_CW64];
    MI_F8 *coords[4] = {&r->x, &r->y, &r->zz, &r->zzz};
    for (int c = 0; c < 4; c++) {
        const uint64_t *src[8];
        for (int k = 0; k < 8; k++)
            src[k] = m >> k & 1 ? (const uint64_t *)&side[j[k]] + c * MI_CW64 : zero;
        MI_FN(lanes_from_limbs)(coords[c], src, 8);
        MI_F8_FN(enter)(coords[c], coords[c]);
    }
    return MI_F8_FN(is_zero)(&r->zz) & m;
}

/* Lanes -> eight portable XYZZ points (infinity where inf). */
static void MI_FN(xyzz8_to_plain)(MI_TY(xyzz) *out, const MI_TY(xyzz8) *v, __mmask8 inf)
{
    const MI_F8 *coords[4] = {&v->x, &v->y, &v->zz, &v->zzz};
    for (int c = 0; c < 4; c++) {
        uint64_t *dst[8];
        MI_F8 t;
        for (int k = 0; k < 8; k++)
            dst[k] = (uint64_t *)&out[k] + c * MI_CW64;
        MI_F8_FN(leave)(&t, coords[c]);
        MI_FN(limbs_from_lanes)(dst, &t, 8);
    }
    for (int k = 0; k < 8; k++)
        if (inf >> k & 1)
            MI_EC_FN(xyzz_set_inf)(&out[k]);
}

/* out[i] = 2^shift in[i] for i < count (msm_cpu_kernel.shift_points: validated interchange
 * points stride bytes apart, infinity stays infinity, out may be in): the doublings in the
 * lanes, eight points at a time (dbl-2008-s-1), then one batch inversion per block. The
 * affine result is unique, so the bytes are those of the portable shift_points. */
#define MI_SHIFT_BLOCK 64
static void MI_FN(shift_points)(unsigned char *out, const unsigned char *in, size_t stride, size_t count,
                                unsigned shift)
{
    MI_TY(xyzz) acc[MI_SHIFT_BLOCK], lanes[8];
    MI_TY(affine) a[MI_SHIFT_BLOCK];
    MI_F scratch[MI_SHIFT_BLOCK];
    for (size_t b = 0; b < count; b += MI_SHIFT_BLOCK) {
        size_t m = count - b < MI_SHIFT_BLOCK ? count - b : MI_SHIFT_BLOCK;
        for (size_t i = 0; i < m; i++)
            MI_EC_FN(xyzz_from_mont_bytes)(&acc[i], in + (b + i) * stride);
        for (size_t g = 0; g < m; g += 8) {
            size_t j[8];
            __mmask8 live = m - g >= 8 ? (__mmask8)0xff : (__mmask8)((1u << (m - g)) - 1);
            MI_TY(xyzz8) v;
            for (int k = 0; k < 8; k++)
                j[k] = g + (size_t)k < m ? g + (size_t)k : g;
            __mmask8 inf = MI_FN(load_sides)(&v, acc, j, live);
            for (unsigned d = 0; d < shift; d++)
                MI_FN(xyzz8_dbl)(&v, &v);
            MI_FN(xyzz8_to_plain)(lanes, &v, inf);
            for (size_t k = 0; k < 8 && g + k < m; k++)
                acc[g + k] = lanes[k];
        }
        MI_EC_FN(xyzz_batch_to_affine)(a, acc, m, scratch);
        for (size_t i = 0; i < m; i++)
            MI_EC_FN(affine_to_mont_bytes)(out + (b + i) * stride, &a[i]);
    }
}
#undef MI_SHIFT_BLOCK

/* The kernel's sum_points (msm_cpu.h): eight running XYZZ sums in the lanes, lane k taking
 * every eighth point (the mixed addition above; points at infinity are left out of take),
 * then the eight folded by portable additions. Per point one 8-lane mixed addition instead of
 * a scalar one: a circuit's witness holds many 1s (a 2^20 synthetic circuit: 35% of its
 * 943725 values), which every w-based MSM of a proof sums here. */
static void MI_FN(sum_points)(void *acc_v, const void *points_v, const uint32_t *index, size_t begin, size_t end)
{
    const MI_TY(affine) *points = points_v;
    MI_TY(xyzz) *acc = acc_v, lanes[8];
    MI_TY(xyzz8) run;
    __mmask8 inf = 0xff;
    memset(&run, 0, sizeof run);
    for (size_t i0 = begin; i0 < end; i0 += 8) {
        size_t count = end - i0 < 8 ? end - i0 : 8;
        const uint64_t *xs[8], *ys[8];
        unsigned take = 0;
        MI_F8 x, y;
        for (size_t k = 0; k < count; k++) {
            const MI_TY(affine) *pt = &points[index[i0 + k]];
            xs[k] = MI_FN(coord_limbs)(pt, 0);
            ys[k] = MI_FN(coord_limbs)(pt, 1);
            take |= (unsigned)!MI_EC_FN(affine_is_inf)(pt) << k;
        }
        if (!take)
            continue;
        MI_FN(lanes_from_limbs)(&x, xs, count);
        MI_FN(lanes_from_limbs)(&y, ys, count);
        MI_F8_FN(enter)(&x, &x);
        MI_F8_FN(enter)(&y, &y);
        inf = MI_FN(xyzz8_add_affine)(&run, inf, &x, &y, (__mmask8)take);
    }
    MI_FN(xyzz8_to_plain)(lanes, &run, inf);
    MI_EC_FN(xyzz_set_inf)(acc);
    for (int k = 0; k < 8; k++)
        MI_EC_FN(xyzz_add)(acc, acc, &lanes[k]);
}

/* The kernel's fixed_base_sums (msm_cpu.h): lane k sums the table points of scalar i0 + k,
 * all eight lanes at window j in one step (a mixed addition in the lanes; a lane whose digit
 * is 0 idles), each row gathered by load_rows from prepare_points' form (canonical, so the y
 * of a negative digit is p - y). The lanes' running sums handle equal and opposite terms
 * (xyzz8_add_affine). Per multiple about windows / 8 lane additions and one conversion back
 * per eight: the technique of the SALT seed (eight multiplications per register). */
static void MI_FN(fixed_base_sums)(void *acc_v, const void *table_v, size_t half, const int16_t *digits,
                                   unsigned windows, size_t n)
{
    static const uint64_t p[MI_N] = MI_IFMA_P;
    const uint64_t *table = table_v;
    MI_TY(xyzz) *acc = acc_v, lanes[8];
    uint64_t plimbs[MI_CW];
    MI_F8 pv;
    for (int d = 0; d < MI_DEG; d++)
        memcpy(plimbs + d * MI_N, p, sizeof p);
    MI_F8_FN(set_const)(&pv, plimbs);
    for (size_t i0 = 0; i0 < n; i0 += 8) {
        size_t count = n - i0 < 8 ? n - i0 : 8;
        MI_TY(xyzz8) run;
        __mmask8 inf = 0xff;
        memset(&run, 0, sizeof run);
        for (unsigned j = 0; j < windows; j++) {
            size_t off[8] = {0};
            unsigned take = 0, neg = 0;
            for (size_t k = 0; k < count; k++) {
                int d = digits[(i0 + k) * windows + j];
                if (d == 0)
                    continue;
                off[k] = (j * half + (size_t)(d < 0 ? -d : d) - 1) * MI_WORDS;
                take |= 1u << k;
                neg |= (unsigned)(d < 0) << k;
            }
            if (!take)
                continue;
            MI_F8 x, y, ny;
            MI_FN(load_rows_masked)(&x, table, off, (__mmask8)take);
            MI_FN(load_rows_masked)(&y, table + MI_CW, off, (__mmask8)take);
            if (neg) {
                MI_F8_FN(sub)(&ny, &pv, &y);
                MI_FN(blend)(&y, (__mmask8)neg, &ny);
            }
            inf = MI_FN(xyzz8_add_affine)(&run, inf, &x, &y, (__mmask8)take);
        }
        MI_FN(xyzz8_to_plain)(lanes, &run, inf);
        memcpy(acc + i0, lanes, count * sizeof lanes[0]);
    }
}

/* sum_j (j + 1) bucket_j for nb >= LANE_REDUCE_MIN buckets (a power of two). */
static void MI_FN(reduce_lanes)(MI_TY(xyzz) *r, const MI_TY(ifma_work) *w, size_t nb)
{
    size_t s = nb / 8, j[8], off[8];
    MI_TY(xyzz8) running, sum;
    __mmask8 rinf = 0xff, sinf = 0xff;
    MI_TY(xyzz) part[8], sums[8], acc, run;
    memset(&running, 0, sizeof running);
    memset(&sum, 0, sizeof sum);
    for (size_t t = s; t-- > 0;) {
        unsigned full = 0, side = 0;
        for (int k = 0; k < 8; k++) {
            j[k] = (size_t)k * s + t;
            off[k] = j[k] * MI_WORDS;
            full |= (unsigned)((w->state[j[k]] & BUCKET_FULL) != 0) << k;
            side |= (unsigned)((w->state[j[k]] & BUCKET_SIDE) != 0) << k;
        }
        if (full) {
            MI_F8 x, y;
            MI_FN(load_bucket_coord)(&x, w->buckets, off, (__mmask8)full);
            MI_FN(load_bucket_coord)(&y, w->buckets + MI_CW, off, (__mmask8)full);
            rinf = MI_FN(xyzz8_add_affine)(&running, rinf, &x, &y, (__mmask8)full);
        }
        if (side) {
            MI_TY(xyzz8) q;
            __mmask8 qinf = MI_FN(load_sides)(&q, w->side, j, (__mmask8)side);
            rinf = MI_FN(xyzz8_add)(&running, rinf, &q, qinf, (__mmask8)side);
        }
        sinf = MI_FN(xyzz8_add)(&sum, sinf, &running, rinf, 0xff);
    }
    MI_FN(xyzz8_to_plain)(part, &running, rinf);
    MI_FN(xyzz8_to_plain)(sums, &sum, sinf);
    MI_EC_FN(xyzz_set_inf)(&acc);
    MI_EC_FN(xyzz_set_inf)(&run);
    for (int k = 7; k > 0; k--) { /* acc = sum_k k R_k */
        MI_EC_FN(xyzz_add)(&run, &run, &part[k]);
        MI_EC_FN(xyzz_add)(&acc, &acc, &run);
    }
    for (size_t m = s; m > 1 && !MI_EC_FN(xyzz_is_inf)(&acc); m >>= 1)
        MI_EC_FN(xyzz_dbl)(&acc, &acc);
    for (int k = 0; k < 8; k++)
        MI_EC_FN(xyzz_add)(&acc, &acc, &sums[k]);
    *r = acc;
}

/* sum_j j * bucket_j, buckets plus side accumulators. */
static void MI_FN(reduce)(MI_TY(xyzz) *r, MI_TY(ifma_work) *w, size_t nb)
{
    MI_TY(xyzz) running, sum;
    if (nb >= LANE_REDUCE_MIN) {
        MI_FN(reduce_lanes)(r, w, nb);
        return;
    }
    MI_FN(buckets_to_plain)(w, nb);
    MI_EC_FN(xyzz_set_inf)(&running);
    MI_EC_FN(xyzz_set_inf)(&sum);
    for (size_t j = nb; j-- > 0;) {
        if (w->state[j] & BUCKET_FULL)
            MI_EC_FN(xyzz_add_affine)(&running, &running, &w->plain[j]);
        if (w->state[j] & BUCKET_SIDE)
            MI_EC_FN(xyzz_add)(&running, &running, &w->side[j]);
        MI_EC_FN(xyzz_add)(&sum, &sum, &running);
    }
    *r = sum;
}

/* The lanes' view of field_op (msm_cpu.h): elements as MI_CW64 64-bit limbs (c0's first). */
static void MI_FN(field_op)(int op, uint64_t *r, const uint64_t *a, const uint64_t *b, size_t count)
{
    for (size_t i0 = 0; i0 < count; i0 += 8) {
        size_t n = count - i0 < 8 ? count - i0 : 8;
        const uint64_t *as[8], *bs[8];
        uint64_t *rs[8];
        MI_F8 x, y, z;
        for (size_t k = 0; k < n; k++) {
            as[k] = a + (i0 + k) * MI_CW64;
            bs[k] = b + (i0 + k) * MI_CW64;
            rs[k] = r + (i0 + k) * MI_CW64;
        }
        MI_FN(lanes_from_limbs)(&x, as, n);
        MI_FN(lanes_from_limbs)(&y, bs, n);
        switch (op) {
        case MSM_FIELD_MUL: MI_F8_FN(mul)(&z, &x, &y); break;
        case MSM_FIELD_SQR: MI_F8_FN(sqr)(&z, &x); break;
        case MSM_FIELD_ADD: MI_F8_FN(add)(&z, &x, &y); break;
        case MSM_FIELD_SUB: MI_F8_FN(sub)(&z, &x, &y); break;
        case MSM_FIELD_INV: MI_F8_FN(inv)(&z, &x); break;
        default:
            MI_F8_FN(enter)(&z, &x);
            MI_F8_FN(leave)(&z, &z);
            break;
        }
        MI_F8_FN(canonical)(&z, &z);
        MI_FN(limbs_from_lanes)(rs, &z, n);
    }
}

static void MI_FN(tile)(void *sums_v, const msm_tile_input *in, const msm_tile *tile, unsigned c, void *scratch)
{
    MI_TY(xyzz) *sums = sums_v;
    MI_TY(ifma_work) w;
    size_t nb = (size_t)1 << (c - 1);
    MI_FN(scratch_layout)(&w, (unsigned char *)(((uintptr_t)scratch + 63) & ~(uintptr_t)63), c);
    w.prepared = in->prepared;
    w.batch_size = MI_FN(batch_size)(c);
    for (unsigned win = tile->w_begin; win < tile->w_end; win++) {
        memset(w.state, 0, nb);
        memset(w.stamp, 0, nb * 4);
        w.gen = 1;
        w.nbatch = w.ndefer = w.nover = 0;
        for (size_t i = tile->begin; i < tile->end; i++) {
            int d = in->digits ? in->digits[win * in->count + i] : msm_top_digit(in->scalars[in->index[i]].l, in->top, win, c);
            if (d == 0)
                continue;
            /* the flush reads this point within a batch or two: fetch it now, without waiting */
            __builtin_prefetch(w.prepared + i * MI_WORDS);
            __builtin_prefetch(w.prepared + i * MI_WORDS + MI_WORDS - 1);
            /* a full deferred list: flush early unless the batch is crowded into few buckets */
            while (w.nbatch == w.batch_size || (w.ndefer == w.batch_size && w.nbatch >= w.batch_size / 4))
                MI_FN(flush_and_retry)(&w);
            MI_FN(accumulate)(&w, (uint32_t)i, d > 0 ? (uint32_t)(d - 1) << 1 : ((uint32_t)(-d - 1) << 1) | 1u, 1);
        }
        while (w.nbatch > 0 || w.ndefer > 0)
            MI_FN(flush_and_retry)(&w);
        MI_FN(reduce_overflow)(&w);
        MI_FN(reduce)(&sums[win - tile->w_begin], &w, nb);
    }
}

#undef LANE_REDUCE_MIN
#undef MI_FN
#undef MI_TY
#undef MI_EC_FN
#undef MI_MSM_FN
#undef MI_F8_FN
#undef MI_F_FN
#undef MI_WORDS
#undef MI_CW
#undef MI_CW64
#undef MI_DEG
#undef MI_EC
#undef MI_F8
#undef MI_N
#undef MI_N64
#undef MI_IFMA_P
#undef MI_IFMA_K
#undef MI_F
#undef MI_CURVE_B
