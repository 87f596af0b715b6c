/*
 * msm_batch_affine_impl.h: the bucket accumulation of Pippenger's method in affine
 * coordinates with batched inversions, in scalar C over any field of fe_impl.h/fe2_impl.h:
 * the G1 and G2 tile kernel of the portable and adx tiers (included by msm_cpu_tile_impl.h
 * when CPU_BATCH_AFFINE is defined; it reuses that file's XYZZ tile for small windows).
 *
 * Why: a mixed XYZZ addition costs 8M + 2S (28 base multiplications in Fq2 with Karatsuba);
 * an affine addition whose inversion is shared by a batch (Montgomery's trick: a running
 * product forward, one inversion, two multiplications back) costs 1 + 2 + 1 (lambda) + 1S
 * (lambda^2) + 1 (y3) = 5M + 1S (about 17 base multiplications in Fq2), plus one inversion
 * per batch. Measured on G1 (2-core Zen 3, adx tier, BN254, 2^20 points, paired runs against
 * the XYZZ tile): 1.24-1.47x.
 * Method, per window of the tile: buckets are affine. A point whose bucket is empty is copied
 * in. Otherwise it joins the open batch, unless its bucket is already in the batch (or the
 * batch is full): then it waits in a deferred list that joins the next batch. A batch closes
 * when it or the deferred list is full, and at the end of the window. P = B takes the
 * doubling slope 3 xB^2 / (2 yB), P = -B empties the bucket. When the deferred list is full
 * while the batch is under a quarter full (many equal digits, as the small values of a real
 * witness give), the deferred points go to per-bucket XYZZ side sums instead (mixed
 * additions), so no input makes the batches degenerate. The window sum reduces the affine
 * buckets plus their side sums by running sums (msm_impl.h's method, mixed additions).
 * Windows with fewer than BA_MIN_BUCKETS buckets use the XYZZ tile: batches would be short.
 * Contract: as every tile kernel (msm_cpu.h); points validated, finite, affine.
 */
#define BA_FN(op) ARITH_CAT(CPU_EC, ARITH_CAT(_ba_, op))
#define BA_TY ARITH_CAT(CPU_EC, _ba_work)

#define BA_MAX_BATCH 512
#ifdef HPR_BA_MIN_BUCKETS /* for A/B measurements against the XYZZ tile */
#define BA_MIN_BUCKETS HPR_BA_MIN_BUCKETS
#else
#define BA_MIN_BUCKETS 256 /* c >= 9 */
#endif

#ifndef MSM_BA_KINDS
#define MSM_BA_KINDS
enum { BA_ADD = 0, BA_DOUBLE = 1, BA_CANCEL = 2 };
#endif

typedef struct {
    CPU_TY(affine) *buckets;  /* [nb] */
    unsigned char *full;      /* [nb] the bucket holds a point */
    unsigned char *has_side;  /* [nb] side[b] holds a sum */
    uint32_t *stamp;          /* [nb] generation of the batch that holds the bucket */
    CPU_TY(xyzz) *side;       /* [nb] side sums */
    uint32_t *batch_b, *defer_b; /* [BA_MAX_BATCH] bucket of each entry */
    CPU_TY(affine) *batch_p, *defer_p; /* [BA_MAX_BATCH] the signed point of each entry */
    unsigned char *kind;      /* [BA_MAX_BATCH] BA_ADD, BA_DOUBLE or BA_CANCEL */
    CPU_F *den, *prefix;      /* [BA_MAX_BATCH] */
    unsigned nbatch, ndefer, batch_size;
    uint32_t gen;
} BA_TY;

static size_t BA_FN(layout)(BA_TY *w, unsigned char *base, unsigned c)
{
    size_t nb = (size_t)1 << (c - 1), off = 0, mb = BA_MAX_BATCH;
    size_t sizes[] = {nb * sizeof(CPU_TY(affine)), nb, nb, nb * 4, nb * sizeof(CPU_TY(xyzz)), mb * 4, mb * 4,
                      mb * sizeof(CPU_TY(affine)), mb * sizeof(CPU_TY(affine)), mb, mb * sizeof(CPU_F),
                      mb * sizeof(CPU_F)};
    void **slots[] = {(void **)&w->buckets, (void **)&w->full,    (void **)&w->has_side, (void **)&w->stamp,
                      (void **)&w->side,    (void **)&w->batch_b, (void **)&w->defer_b,  (void **)&w->batch_p,
                      (void **)&w->defer_p, (void **)&w->kind,    (void **)&w->den,      (void **)&w->prefix};
    for (size_t i = 0; i < sizeof sizes / sizeof sizes[0]; i++) {
        if (base)
            *slots[i] = base + off;
        off += (sizes[i] + 63) & ~(size_t)63;
    }
    return off;
}

/* Closes the open batch: one inversion for all its denominators, then each bucket gets its
 * point (or is emptied by its negation). Montgomery's trick runs two running products, over the
 * even and the odd entries: each is a chain of dependent multiplications, and two chains
 * overlap in the processor where one waits on each product's latency (1.5x the time of a
 * multiplication among independent ones, adx tier, Zen 4); three more multiplications per
 * batch. */
static void BA_FN(apply_batch)(BA_TY *w)
{
    CPU_F acc[2], inv[2], t;
    unsigned n = w->nbatch;
    CPU_F_FN(set_one)(&acc[0]);
    CPU_F_FN(set_one)(&acc[1]);
    for (unsigned j = 0; j < n; j++) {
        const CPU_TY(affine) *p = &w->batch_p[j], *b = &w->buckets[w->batch_b[j]];
        if (!CPU_F_FN(eq)(&p->x, &b->x)) {
            w->kind[j] = BA_ADD;
            CPU_F_FN(sub)(&w->den[j], &p->x, &b->x);
        } else if (CPU_F_FN(eq)(&p->y, &b->y)) {
            w->kind[j] = BA_DOUBLE; /* y != 0: points of prime order have none */
            CPU_F_FN(dbl)(&w->den[j], &b->y);
        } else {
            w->kind[j] = BA_CANCEL;
            CPU_F_FN(set_one)(&w->den[j]);
        }
        w->prefix[j] = acc[j & 1];
        CPU_F_FN(mul)(&acc[j & 1], &acc[j & 1], &w->den[j]);
    }
    CPU_F_FN(mul)(&t, &acc[0], &acc[1]);
    (void)CPU_F_FN(inv)(&t, &t); /* a product of non-zero elements */
    CPU_F_FN(mul)(&inv[0], &t, &acc[1]); /* 1 / acc[0] */
    CPU_F_FN(mul)(&inv[1], &t, &acc[0]);
    for (unsigned j = n; j-- > 0;) {
        uint32_t bi = w->batch_b[j];
        CPU_TY(affine) *b = &w->buckets[bi];
        const CPU_TY(affine) *p = &w->batch_p[j];
        CPU_F lambda, num, x3;
        CPU_F_FN(mul)(&t, &inv[j & 1], &w->prefix[j]); /* 1 / den[j] */
        CPU_F_FN(mul)(&inv[j & 1], &inv[j & 1], &w->den[j]);
        if (w->kind[j] == BA_CANCEL) {
            w->full[bi] = 0;
            continue;
        }
        if (w->kind[j] == BA_ADD) {
            CPU_F_FN(sub)(&num, &p->y, &b->y);
        } else { /* 3 xB^2 */
            CPU_F_FN(sqr)(&num, &b->x);
            CPU_F_FN(add)(&lambda, &num, &num);
            CPU_F_FN(add)(&num, &lambda, &num);
        }
        CPU_F_FN(mul)(&lambda, &num, &t);
        CPU_F_FN(sqr)(&x3, &lambda);
        CPU_F_FN(sub)(&x3, &x3, &b->x);
        CPU_F_FN(sub)(&x3, &x3, &p->x);
        CPU_F_FN(sub)(&t, &b->x, &x3);
        CPU_F_FN(mul)(&t, &lambda, &t);
        CPU_F_FN(sub)(&b->y, &t, &b->y);
        b->x = x3;
    }
    w->nbatch = 0;
    w->gen++;
}

/* Point p (signed) into bucket b: copied into an empty bucket, else into the open batch, else
 * deferred. The caller keeps room in the deferred list. */
static void BA_FN(add)(BA_TY *w, uint32_t b, const CPU_TY(affine) *p)
{
    if (!w->full[b]) {
        w->buckets[b] = *p;
        w->full[b] = 1;
    } else if (w->stamp[b] == w->gen || w->nbatch == w->batch_size) {
        w->defer_b[w->ndefer] = b;
        w->defer_p[w->ndefer++] = *p;
    } else {
        w->stamp[b] = w->gen;
        w->batch_b[w->nbatch] = b;
        w->batch_p[w->nbatch++] = *p;
    }
}

/* Applies the open batch, then feeds the deferred points again (into the next batch or, when
 * they crowd few buckets, into the side sums). */
static void BA_FN(flush)(BA_TY *w)
{
    unsigned n = w->ndefer;
    int crowded = n == w->batch_size && w->nbatch < w->batch_size / 4;
    BA_FN(apply_batch)(w);
    w->ndefer = 0;
    for (unsigned j = 0; j < n; j++) {
        uint32_t b = w->defer_b[j];
        if (crowded) {
            if (!w->has_side[b])
                CPU_EC_FN(xyzz_set_inf)(&w->side[b]);
            CPU_EC_FN(xyzz_add_affine)(&w->side[b], &w->side[b], &w->defer_p[j]);
            w->has_side[b] = 1;
        } else {
            CPU_TY(affine) p = w->defer_p[j]; /* the deferred list is refilled while read */
            BA_FN(add)(w, b, &p);
        }
    }
}

/* sum_j j * bucket_j, bucket_j = its affine point plus its side sum. */
static void BA_FN(reduce)(CPU_TY(xyzz) *r, const BA_TY *w, unsigned long nb)
{
    CPU_TY(xyzz) running, sum;
    CPU_EC_FN(xyzz_set_inf)(&running);
    CPU_EC_FN(xyzz_set_inf)(&sum);
    for (unsigned long j = nb; j-- > 0;) {
        if (w->full[j])
            CPU_EC_FN(xyzz_add_affine)(&running, &running, &w->buckets[j]);
        if (w->has_side[j])
            CPU_EC_FN(xyzz_add)(&running, &running, &w->side[j]);
        CPU_EC_FN(xyzz_add)(&sum, &sum, &running);
    }
    *r = sum;
}

static void BA_FN(tile)(void *sums_v, const msm_tile_input *in, const msm_tile *tile, unsigned c, void *scratch)
{
    CPU_TY(xyzz) *sums = sums_v;
    const CPU_TY(affine) *points = in->points;
    unsigned long nb = 1ul << (c - 1);
    BA_TY w;
    if (nb < BA_MIN_BUCKETS) {
        CPU_FN(tile)(sums_v, in, tile, c, scratch);
        return;
    }
    BA_FN(layout)(&w, scratch, c);
    w.batch_size = nb / 4 < BA_MAX_BATCH ? (unsigned)(nb / 4) : BA_MAX_BATCH;
    for (unsigned wi = tile->w_begin; wi < tile->w_end; wi++) {
        memset(w.full, 0, nb);
        memset(w.has_side, 0, nb);
        memset(w.stamp, 0, nb * 4);
        w.gen = 1;
        w.nbatch = w.ndefer = 0;
        for (size_t i = tile->begin; i < tile->end; i++) {
            uint32_t k = in->index[i];
            int d = in->digits ? in->digits[wi * in->count + i] : msm_top_digit(in->scalars[k].l, in->top, wi, c);
            CPU_TY(affine) p;
            if (d == 0)
                continue;
            if (d > 0)
                p = points[k];
            else
                CPU_EC_FN(affine_neg)(&p, &points[k]);
            if (w.ndefer == w.batch_size)
                BA_FN(flush)(&w);
            BA_FN(add)(&w, (uint32_t)(d > 0 ? d : -d) - 1, &p);
        }
        while (w.nbatch || w.ndefer)
            BA_FN(flush)(&w);
        BA_FN(reduce)(&sums[wi - tile->w_begin], &w, nb);
    }
}

static size_t BA_FN(scratch_size)(unsigned c, size_t max_points)
{
    BA_TY w;
    size_t xyzz = CPU_FN(scratch_size)(c, max_points);
    size_t own = BA_FN(layout)(&w, NULL, c);
    return own > xyzz ? own : xyzz;
}

/* In mixed XYZZ additions (8M + 2S; 28 base multiplications in Fq2): a batched addition is
 * about 0.65 of one, plus the inversion per batch (divsteps, arith/fe_safegcd.h: about the
 * time of 30-50 multiplications, some 5 mixed additions in Fp, 2 in Fq2 where one Fp
 * inversion and a few products serve; Fermat cost 40 and 15); the reduction two additions
 * per bucket. */
#if CPU_DEGREE == 2
#define BA_INV_COST 2.0
#else
#define BA_INV_COST 5.0
#endif
static double BA_FN(window_cost)(unsigned c, size_t m)
{
    unsigned long nb = 1ul << (c - 1);
    if (nb < BA_MIN_BUCKETS)
        return CPU_FN(window_cost)(c, m);
    double batch = nb / 4 < BA_MAX_BATCH ? (double)(nb / 4) : BA_MAX_BATCH;
    return (double)m * (0.65 + BA_INV_COST / batch) + 3.0 * (double)nb;
}
#undef BA_INV_COST

#undef BA_FN
#undef BA_TY
#undef BA_MAX_BATCH
#undef BA_MIN_BUCKETS
