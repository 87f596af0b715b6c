/*
 * ntt_ifma_impl.h: the avx512 tier's NTT butterflies for a 256-bit scalar field (BN254 Fr,
 * BLS12-381 Fr), eight butterflies at once with IFMA, instantiated per field by ntt_ifma.c.
 *
 * What: the dif, dit and scale entries of ntt_cpu.h (same contracts, same bits as the
 * portable kernels); dif and dit over this unit's own twiddle table (NI_FN(kernel_twiddles)).
 * Data layout: the column stays in its 32-byte Montgomery elements (R = 2^256), but for the
 * butterflies each group of eight elements is transposed in place into four vectors of one
 * 64-bit limb each (limb-sliced, the same 256 bytes); a load turns them into five 52-bit limbs
 * in registers and a store turns them back, so the transform needs no scratch buffer and
 * moves the portable kernel's bytes. The last pass transposes back and reduces to [0, p).
 * Arithmetic (ifma_fe_impl.h, R' = 2^260): the data keep the factor R; the twiddles are
 * stored as w R' (canonical), so mont'(x R, w R') = x w R stays in the data's form. Values
 * between layers are lazy, in [0, 2p) (below 2^256, so they fit the 64-bit limbs): DIF
 * computes (u + v, (u - v + 2p) w) with 4p * p < 2^260 p, DIT (u + v w, u - v w). Exact
 * field arithmetic with a canonical end: the portable tier's bits.
 * Layers: those whose butterflies span 8 or more elements pair whole groups (vector j of
 * the upper half with vector j of the lower); the three narrow layers (span 4, 2, 1) run
 * together on two neighbouring groups in registers, lanes regrouped with permutes. Cache
 * blocking as in ntt_impl.h: layers narrower than NI_BLOCK elements run depth first, block
 * by block, one block per task; the wide ones two per pass (radix 4), cut into tasks.
 * Sizes below 16 use the portable kernel (the table keeps a pointer to its twiddles).
 *
 * Instantiation: define NI_PFX (name prefix), NI_F8 (the IFMA type of ifma_fe_impl.h, 5
 * limbs), NI_K (its constant prefix) and NI_PORTABLE (the field's portable ntt_field_ops),
 * then include. Compile only with -mavx512f -mavx512ifma.
 */
#define NI_CAT_(a, b) a##b
#define NI_CAT(a, b) NI_CAT_(a, b)
#define NI_FN(name) NI_CAT(NI_PFX, NI_CAT(_, name))
#define NI_F8_FN(op) NI_CAT(NI_F8, NI_CAT(_, op))
#define NI_CONST(c) NI_CAT(NI_K, NI_CAT(_IFMA_, c))

#define NI_BLOCK ((size_t)4096) /* elements of a cache block: 128 KiB */
#define NI_GROUP_WORDS 32       /* 64-bit words of a group of eight elements */

/* The kernel's twiddle table: v[0], v[1], v[2] hold the twiddles of the layers of span 1, 2
 * and 4 as lane patterns of a group pair; v[3 + k] = tw[8k .. 8k + 7] (as w R'). */
typedef struct {
    const void *tw; /* the portable table, for the sizes below 16 */
    size_t groups;  /* groups of v[3 ..]: n / 8, or 0 for n < 16 */
    NI_F8 v[];
} NI_FN(table);

typedef struct {
    uint64_t *a;
    const NI_FN(table) * t;
    const void *tw;
    size_t n, len, per_task, block;
    const void *c, *s; /* scale: a_i *= c s^i */
    int dit;           /* quad_task: the direction */
} NI_FN(job);

/* four 64-bit limbs (value < 2^256) -> five 52-bit limbs, and back (limbs normalised) */
static inline void NI_FN(from_words)(NI_F8 *r, const __m512i *w)
{
    const __m512i m = _mm512_set1_epi64((long long)IFMA_MASK52);
    r->l[0] = _mm512_and_si512(w[0], m);
    r->l[1] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[0], 52), _mm512_slli_epi64(w[1], 12)), m);
    r->l[2] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[1], 40), _mm512_slli_epi64(w[2], 24)), m);
    r->l[3] = _mm512_and_si512(_mm512_or_si512(_mm512_srli_epi64(w[2], 28), _mm512_slli_epi64(w[3], 36)), m);
    r->l[4] = _mm512_srli_epi64(w[3], 16);
}

static inline void NI_FN(to_words)(__m512i *w, const NI_F8 *r)
{
    w[0] = _mm512_or_si512(r->l[0], _mm512_slli_epi64(r->l[1], 52));
    w[1] = _mm512_or_si512(_mm512_srli_epi64(r->l[1], 12), _mm512_slli_epi64(r->l[2], 40));
    w[2] = _mm512_or_si512(_mm512_srli_epi64(r->l[2], 24), _mm512_slli_epi64(r->l[3], 28));
    w[3] = _mm512_or_si512(_mm512_srli_epi64(r->l[3], 36), _mm512_slli_epi64(r->l[4], 16));
}

/* a limb-sliced group <-> registers */
static inline void NI_FN(load)(NI_F8 *r, const uint64_t *g)
{
    __m512i w[4];
    for (int i = 0; i < 4; i++)
        w[i] = _mm512_loadu_si512(g + 8 * i);
    NI_FN(from_words)(r, w);
}

static inline void NI_FN(store)(uint64_t *g, const NI_F8 *r)
{
    __m512i w[4];
    NI_FN(to_words)(w, r);
    for (int i = 0; i < 4; i++)
        _mm512_storeu_si512(g + 8 * i, w[i]);
}

/* Eight 32-byte elements (z[0] = elements 0, 1, ...) <-> four limb vectors (z[i] = limb i of
 * the eight), in registers. The same two index vectors serve both directions. */
static inline void NI_FN(transpose)(__m512i *z, int to_limbs)
{
    const __m512i lo = _mm512_set_epi64(13, 9, 5, 1, 12, 8, 4, 0), hi = _mm512_set_epi64(15, 11, 7, 3, 14, 10, 6, 2);
    __m512i t[4];
    if (to_limbs) {
        t[0] = _mm512_permutex2var_epi64(z[0], lo, z[1]); /* limbs 0, 1 of elements 0..3 */
        t[1] = _mm512_permutex2var_epi64(z[2], lo, z[3]); /* limbs 0, 1 of elements 4..7 */
        t[2] = _mm512_permutex2var_epi64(z[0], hi, z[1]);
        t[3] = _mm512_permutex2var_epi64(z[2], hi, z[3]);
        z[0] = _mm512_shuffle_i64x2(t[0], t[1], 0x44);
        z[1] = _mm512_shuffle_i64x2(t[0], t[1], 0xee);
        z[2] = _mm512_shuffle_i64x2(t[2], t[3], 0x44);
        z[3] = _mm512_shuffle_i64x2(t[2], t[3], 0xee);
    } else {
        t[0] = _mm512_shuffle_i64x2(z[0], z[1], 0x44);
        t[1] = _mm512_shuffle_i64x2(z[0], z[1], 0xee);
        t[2] = _mm512_shuffle_i64x2(z[2], z[3], 0x44);
        t[3] = _mm512_shuffle_i64x2(z[2], z[3], 0xee);
        z[0] = _mm512_permutex2var_epi64(t[0], lo, t[2]);
        z[1] = _mm512_permutex2var_epi64(t[0], hi, t[2]);
        z[2] = _mm512_permutex2var_epi64(t[1], lo, t[3]);
        z[3] = _mm512_permutex2var_epi64(t[1], hi, t[3]);
    }
}

/* In place: a group of eight elements in memory <-> its limb vectors. */
static inline void NI_FN(transpose_group)(uint64_t *g, int to_limbs)
{
    __m512i z[4];
    for (int i = 0; i < 4; i++)
        z[i] = _mm512_loadu_si512(g + 8 * i);
    NI_FN(transpose)(z, to_limbs);
    for (int i = 0; i < 4; i++)
        _mm512_storeu_si512(g + 8 * i, z[i]);
}

/* Eight elements in memory (any alignment) <-> registers, five 52-bit limbs */
static inline void NI_FN(load_elements)(NI_F8 *r, const uint64_t *e)
{
    __m512i z[4];
    for (int i = 0; i < 4; i++)
        z[i] = _mm512_loadu_si512(e + 8 * i);
    NI_FN(transpose)(z, 1);
    NI_FN(from_words)(r, z);
}

static inline void NI_FN(store_elements)(uint64_t *e, const NI_F8 *r)
{
    __m512i z[4];
    NI_FN(to_words)(z, r);
    NI_FN(transpose)(z, 0);
    for (int i = 0; i < 4; i++)
        _mm512_storeu_si512(e + 8 * i, z[i]);
}

/* Groups [g0, g1) into limb vectors. */
static void NI_FN(enter_groups)(uint64_t *a, size_t g0, size_t g1)
{
    for (size_t g = g0; g < g1; g++)
        NI_FN(transpose_group)(a + g * NI_GROUP_WORDS, 1);
}

/* Groups [g0, g1) back into elements, reduced to [0, p). */
static void NI_FN(leave_groups)(uint64_t *a, size_t g0, size_t g1)
{
    static const uint64_t p[5] = NI_CONST(P);
    for (size_t g = g0; g < g1; g++) {
        uint64_t *x = a + g * NI_GROUP_WORDS;
        NI_F8 v;
        NI_FN(load)(&v, x);
        NI_F8_FN(sub_if_ge)(&v, &v, p);
        NI_FN(store)(x, &v);
        NI_FN(transpose_group)(x, 0);
    }
}

/* Gentleman-Sande: (u, v) <- (u + v, (u - v) w). */
static inline void NI_FN(dif_pair)(NI_F8 *u, NI_F8 *v, const NI_F8 *w)
{
    static const uint64_t two_p[5] = NI_CONST(2P);
    NI_F8 d;
    NI_F8_FN(sub_lazy)(&d, u, v, two_p); /* in (0, 4p) */
    NI_F8_FN(add)(u, u, v);
    NI_F8_FN(mul)(v, &d, w);
}

/* Cooley-Tukey: (u, v) <- (u + v w, u - v w). */
static inline void NI_FN(dit_pair)(NI_F8 *u, NI_F8 *v, const NI_F8 *w)
{
    NI_F8 t;
    NI_F8_FN(mul)(&t, v, w);
    NI_F8_FN(sub)(v, u, &t);
    NI_F8_FN(add)(u, u, &t);
}

/* The span-1 layer's twiddle is w_2^0 = 1: no multiplication. */
static inline void NI_FN(unit_pair)(NI_F8 *u, NI_F8 *v)
{
    NI_F8 d;
    NI_F8_FN(sub)(&d, u, v);
    NI_F8_FN(add)(u, u, v);
    *v = d;
}

/* Vector butterflies [q0, q1) of the layer of span len >= 8: vector q pairs group
 * q / L * 2L + q % L with the group L further (L = len / 8). */
static void NI_FN(vector_layer)(uint64_t *a, const NI_FN(table) * t, size_t len, size_t q0, size_t q1, int dit)
{
    size_t L = len / 8, jg = q0 % L;
    uint64_t *x = a + q0 / L * 2 * L * NI_GROUP_WORDS;
    const NI_F8 *tw = t->v + 3 + L;
    for (size_t q = q0; q < q1; q++) {
        uint64_t *pu = x + jg * NI_GROUP_WORDS, *pv = pu + L * NI_GROUP_WORDS;
        NI_F8 u, v;
        NI_FN(load)(&u, pu);
        NI_FN(load)(&v, pv);
        if (dit)
            NI_FN(dit_pair)(&u, &v, &tw[jg]);
        else
            NI_FN(dif_pair)(&u, &v, &tw[jg]);
        NI_FN(store)(pu, &u);
        NI_FN(store)(pv, &v);
        if (++jg == L) {
            jg = 0;
            x += 2 * L * NI_GROUP_WORDS;
        }
    }
}

/* r = the lanes idx of the sixteen (a, b), limb by limb */
static inline void NI_FN(permute)(NI_F8 *r, const NI_F8 *a, __m512i idx, const NI_F8 *b)
{
    for (int i = 0; i < 5; i++)
        r->l[i] = _mm512_permutex2var_epi64(a->l[i], idx, b->l[i]);
}

/* The layers of span 4, 2, 1 (DIF order; dit: 1, 2, 4) on the group pairs [p0, p1): for span
 * s, u takes the lanes of both groups whose bit s is clear, v the others; then back. */
static void NI_FN(narrow_layers)(uint64_t *a, const NI_FN(table) * t, size_t p0, size_t p1, int dit)
{
    static const long long split[3][2][8] = {
        {{0, 2, 4, 6, 8, 10, 12, 14}, {1, 3, 5, 7, 9, 11, 13, 15}},
        {{0, 1, 4, 5, 8, 9, 12, 13}, {2, 3, 6, 7, 10, 11, 14, 15}},
        {{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}},
    };
    static const long long merge[3][2][8] = {
        {{0, 8, 1, 9, 2, 10, 3, 11}, {4, 12, 5, 13, 6, 14, 7, 15}},
        {{0, 1, 8, 9, 2, 3, 10, 11}, {4, 5, 12, 13, 6, 7, 14, 15}},
        {{0, 1, 2, 3, 8, 9, 10, 11}, {4, 5, 6, 7, 12, 13, 14, 15}},
    };
    for (size_t p = p0; p < p1; p++) {
        uint64_t *ga = a + 2 * p * NI_GROUP_WORDS, *gb = ga + NI_GROUP_WORDS;
        NI_F8 x, y, u, v;
        NI_FN(load)(&x, ga);
        NI_FN(load)(&y, gb);
        for (int step = 0; step < 3; step++) {
            int s = dit ? step : 2 - step; /* span 2^s */
            NI_FN(permute)(&u, &x, _mm512_loadu_si512(split[s][0]), &y);
            NI_FN(permute)(&v, &x, _mm512_loadu_si512(split[s][1]), &y);
            if (s == 0)
                NI_FN(unit_pair)(&u, &v);
            else if (dit)
                NI_FN(dit_pair)(&u, &v, &t->v[s]);
            else
                NI_FN(dif_pair)(&u, &v, &t->v[s]);
            NI_FN(permute)(&x, &u, _mm512_loadu_si512(merge[s][0]), &v);
            NI_FN(permute)(&y, &u, _mm512_loadu_si512(merge[s][1]), &v);
        }
        NI_FN(store)(ga, &x);
        NI_FN(store)(gb, &y);
    }
}

static void NI_FN(enter_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(job) *jb = arg;
    size_t groups = jb->n / 8, g0 = task * jb->per_task, g1 = g0 + jb->per_task < groups ? g0 + jb->per_task : groups;
    (void)worker;
    NI_FN(enter_groups)(jb->a, g0, g1);
}

static void NI_FN(leave_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(job) *jb = arg;
    size_t groups = jb->n / 8, g0 = task * jb->per_task, g1 = g0 + jb->per_task < groups ? g0 + jb->per_task : groups;
    (void)worker;
    NI_FN(leave_groups)(jb->a, g0, g1);
}

/* Radix 4 as in ntt_impl.h: the wide layers of spans len and len / 2 in one pass. Vector
 * quad q (H = len / 16 groups, block q / H, jg = q % H) is the groups jg, jg + H, jg + 2H,
 * jg + 3H of its block x of 2 len elements; runs of NI_QUAD_RUN consecutive quads take both
 * layers while their groups are in L1. */
#define NI_QUAD_RUN 8

static void NI_FN(vector_quads)(uint64_t *a, const NI_FN(table) * t, size_t len, size_t q0, size_t q1, int dit)
{
    size_t H = len / 16, jg = q0 % H;
    uint64_t *x = a + q0 / H * 4 * H * NI_GROUP_WORDS, *upper;
    for (size_t q = q0; q < q1;) {
        size_t run = H - jg < q1 - q ? H - jg : q1 - q;
        if (run > NI_QUAD_RUN)
            run = NI_QUAD_RUN;
        upper = x + 2 * H * NI_GROUP_WORDS;
        if (dit) {
            NI_FN(vector_layer)(x, t, len / 2, jg, jg + run, 1);
            NI_FN(vector_layer)(upper, t, len / 2, jg, jg + run, 1);
            NI_FN(vector_layer)(x, t, len, jg, jg + run, 1);
            NI_FN(vector_layer)(x, t, len, jg + H, jg + H + run, 1);
        } else {
            NI_FN(vector_layer)(x, t, len, jg, jg + run, 0);
            NI_FN(vector_layer)(x, t, len, jg + H, jg + H + run, 0);
            NI_FN(vector_layer)(x, t, len / 2, jg, jg + run, 0);
            NI_FN(vector_layer)(upper, t, len / 2, jg, jg + run, 0);
        }
        q += run;
        if ((jg += run) == H) {
            jg = 0;
            x += 4 * H * NI_GROUP_WORDS;
        }
    }
}

static void NI_FN(quad_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(job) *jb = arg;
    size_t quads = jb->n / 32, q0 = task * jb->per_task, q1 = q0 + jb->per_task < quads ? q0 + jb->per_task : quads;
    (void)worker;
    NI_FN(vector_quads)(jb->a, jb->t, jb->len, q0, q1, jb->dit);
}

static void NI_FN(wide_task)(void *arg, size_t task, unsigned worker, int dit)
{
    NI_FN(job) *jb = arg;
    size_t vectors = jb->n / 16, q0 = task * jb->per_task, q1 = q0 + jb->per_task < vectors ? q0 + jb->per_task : vectors;
    (void)worker;
    NI_FN(vector_layer)(jb->a, jb->t, jb->len, q0, q1, dit);
}

static void NI_FN(wide_dif_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(wide_task)(arg, task, worker, 0);
}

static void NI_FN(wide_dit_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(wide_task)(arg, task, worker, 1);
}

/* Every layer narrower than the block, depth first, on block `task`; the groups enter the
 * limb form first when no wide layer did that (DIT: always), and leave it last when no wide
 * layer follows (DIF: always). */
static void NI_FN(block_task)(void *arg, size_t task, unsigned worker, int dit)
{
    NI_FN(job) *jb = arg;
    uint64_t *a = jb->a + task * jb->block / 8 * NI_GROUP_WORDS;
    size_t groups = jb->block / 8, vectors = jb->block / 16;
    int only_block = jb->block == jb->n;
    (void)worker;
    if (dit || only_block)
        NI_FN(enter_groups)(a, 0, groups);
    if (dit) {
        NI_FN(narrow_layers)(a, jb->t, 0, vectors, 1);
        for (size_t len = 8; len < jb->block; len *= 2)
            NI_FN(vector_layer)(a, jb->t, len, 0, vectors, 1);
    } else {
        for (size_t len = jb->block / 2; len >= 8; len /= 2)
            NI_FN(vector_layer)(a, jb->t, len, 0, vectors, 0);
        NI_FN(narrow_layers)(a, jb->t, 0, vectors, 0);
    }
    if (!dit || only_block)
        NI_FN(leave_groups)(a, 0, groups);
}

static void NI_FN(dif_block_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(block_task)(arg, task, worker, 0);
}

static void NI_FN(dit_block_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(block_task)(arg, task, worker, 1);
}

/* The wide layers (span >= the block), two per pass, the last one alone when their number
 * is odd (see ntt_impl.h's wide_layers). */
static void NI_FN(wide_layers)(rt_pool *pool, NI_FN(job) * jb, int dit)
{
    jb->dit = dit;
    for (size_t len = dit ? jb->block : jb->n / 2; len >= jb->block && len < jb->n;) {
        int pair;
        len = ntt_wide_pass(len, jb->n, jb->block, dit, &pair, &jb->len);
        if (pair)
            rt_pool_run(pool, ntt_pool_tasks(pool, jb->n / 32, &jb->per_task), NI_FN(quad_task), jb);
        else
            rt_pool_run(pool, ntt_pool_tasks(pool, jb->n / 16, &jb->per_task),
                        dit ? NI_FN(wide_dit_task) : NI_FN(wide_dif_task), jb);
    }
}

void NI_FN(dif)(rt_pool *pool, void *a, size_t n, const void *table)
{
    const NI_FN(table) *t = table;
    if (n < 2)
        return;
    if (n < 16) {
        NI_PORTABLE.dif(pool, a, n, t->tw);
        return;
    }
    NI_FN(job) jb = {a, t, NULL, n, 0, 0, n < NI_BLOCK ? n : NI_BLOCK, NULL, NULL, 0};
    if (n > jb.block)
        rt_pool_run(pool, ntt_pool_tasks(pool, n / 8, &jb.per_task), NI_FN(enter_task), &jb);
    NI_FN(wide_layers)(pool, &jb, 0);
    rt_pool_run(pool, n / jb.block, NI_FN(dif_block_task), &jb);
}

void NI_FN(dit)(rt_pool *pool, void *a, size_t n, const void *table)
{
    const NI_FN(table) *t = table;
    if (n < 2)
        return;
    if (n < 16) {
        NI_PORTABLE.dit(pool, a, n, t->tw);
        return;
    }
    NI_FN(job) jb = {a, t, NULL, n, 0, 0, n < NI_BLOCK ? n : NI_BLOCK, NULL, NULL, 0};
    rt_pool_run(pool, n / jb.block, NI_FN(dit_block_task), &jb);
    NI_FN(wide_layers)(pool, &jb, 1);
    if (n > jb.block)
        rt_pool_run(pool, ntt_pool_tasks(pool, n / 8, &jb.per_task), NI_FN(leave_task), &jb);
}

/* a_i *= c s^i on the groups [g0, g1): lane k of the factor holds c s^(8 g + k) (x R'),
 * stepped by s^8; the products are reduced, as the portable scale's. */
static void NI_FN(scale_groups)(uint64_t *a, size_t g0, size_t g1, const void *c, const void *s)
{
    static const uint64_t p[5] = NI_CONST(P);
    uint64_t lanes[NI_GROUP_WORDS], e[4] = {8 * g0, 0, 0, 0};
    NI_F8 f, step, x;
    NI_PORTABLE.pow(lanes, s, e); /* s^(8 g0) */
    NI_PORTABLE.mul(lanes, lanes, c);
    for (int k = 1; k < 8; k++)
        NI_PORTABLE.mul(lanes + 4 * k, lanes + 4 * (k - 1), s);
    NI_FN(load_elements)(&f, lanes);
    NI_F8_FN(enter)(&f, &f);
    e[0] = 8;
    NI_PORTABLE.pow(lanes, s, e);
    for (int k = 1; k < 8; k++)
        memcpy(lanes + 4 * k, lanes, 4 * sizeof(uint64_t));
    NI_FN(load_elements)(&step, lanes);
    NI_F8_FN(enter)(&step, &step);
    for (size_t g = g0; g < g1; g++) {
        uint64_t *x_at = a + g * NI_GROUP_WORDS;
        NI_FN(load_elements)(&x, x_at);
        NI_F8_FN(mul)(&x, &x, &f); /* x < p, f < 2p: below 2p */
        NI_F8_FN(sub_if_ge)(&x, &x, p);
        NI_FN(store_elements)(x_at, &x);
        NI_F8_FN(mul)(&f, &f, &step);
    }
}

static void NI_FN(scale_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(job) *jb = arg;
    size_t groups = jb->n / 8, g0 = task * jb->per_task, g1 = g0 + jb->per_task < groups ? g0 + jb->per_task : groups;
    (void)worker;
    NI_FN(scale_groups)(jb->a, g0, g1, jb->c, jb->s);
}

/* The scale entry of ntt_cpu.h: a_i *= c s^i, eight at a time. */
void NI_FN(scale)(rt_pool *pool, void *a, size_t n, const void *c, const void *s)
{
    if (n < 16) {
        NI_PORTABLE.scale(pool, a, n, c, s);
        return;
    }
    NI_FN(job) jb = {a, NULL, NULL, n, 0, 0, 0, c, s, 0};
    rt_pool_run(pool, ntt_pool_tasks(pool, n / 8, &jb.per_task), NI_FN(scale_task), &jb);
}

/* Groups [g0, g1) of the kernel table from the portable one: tw[8k .. 8k + 7] (x R) ->
 * x R' in [0, p). */
static void NI_FN(table_task)(void *arg, size_t task, unsigned worker)
{
    NI_FN(job) *jb = arg;
    static const uint64_t p[5] = NI_CONST(P);
    size_t groups = jb->n / 8, g0 = task * jb->per_task, g1 = g0 + jb->per_task < groups ? g0 + jb->per_task : groups;
    NI_FN(table) *t = (NI_FN(table) *)jb->t;
    (void)worker;
    for (size_t g = g0; g < g1; g++) {
        uint64_t words[NI_GROUP_WORDS];
        memcpy(words, (const uint64_t *)jb->tw + g * NI_GROUP_WORDS, sizeof words);
        for (int i = 0; g == 0 && i < 4; i++)
            words[i] = 0; /* tw[0] is unused and may be unset */
        NI_FN(transpose_group)(words, 1);
        NI_FN(load)(&t->v[3 + g], words);
        NI_F8_FN(enter)(&t->v[3 + g], &t->v[3 + g]);
        NI_F8_FN(sub_if_ge)(&t->v[3 + g], &t->v[3 + g], p);
    }
}

/* The kernel table of the portable table tw of size n (see ntt_cpu.h); NULL without memory.
 * Freed with free(); rt_alloc_large aligns it for the vectors. */
void *NI_FN(kernel_twiddles)(rt_pool *pool, const void *tw, size_t n)
{
    static const long long pattern[3][8] = {{1, 1, 1, 1, 1, 1, 1, 1}, {2, 3, 2, 3, 2, 3, 2, 3}, {4, 5, 6, 7, 4, 5, 6, 7}};
    size_t groups = n >= 16 ? n / 8 : 0, bytes = sizeof(NI_FN(table)) + (groups ? 3 + groups : 0) * sizeof(NI_F8);
    NI_FN(table) *t = rt_alloc_large(bytes);
    if (!t)
        return NULL;
    t->tw = tw;
    t->groups = groups;
    if (!groups)
        return t;
    NI_FN(job) jb = {NULL, t, tw, n, 0, 0, 0, NULL, NULL, 0};
    rt_pool_run(pool, ntt_pool_tasks(pool, groups, &jb.per_task), NI_FN(table_task), &jb);
    for (int s = 0; s < 3; s++)
        for (int i = 0; i < 5; i++)
            t->v[s].l[i] = _mm512_permutexvar_epi64(_mm512_loadu_si512(pattern[s]), t->v[3].l[i]);
    return t;
}

#undef NI_FN
#undef NI_F8_FN
#undef NI_CONST
#undef NI_CAT
#undef NI_CAT_
#undef NI_BLOCK
#undef NI_GROUP_WORDS
#undef NI_QUAD_RUN
#undef NI_PFX
#undef NI_F8
#undef NI_K
#undef NI_PORTABLE
