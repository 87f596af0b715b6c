/*
 * ntt_impl.h: the portable radix-2 NTT, instantiated once per field by ntt_cpu.c.
 *
 * Define NT_T (element type), NT_PFX (name prefix), NT_ADD, NT_SUB and NT_MUL (r, a, b
 * pointers), then include. See ntt_cpu.h for the twiddle layout and the contracts.
 *
 * Method: iterative over the table tw[len + j]. Cache blocking: the layers whose
 * butterflies span less than NT_BLOCK elements (a block of 128 KiB, within a core's L2) run
 * block by block, all of them depth first, one block per task; the wider layers run two at
 * a time (radix 4, NT_FN(quads)), their quads cut into tasks for the pool. So an n = 2^20
 * transform of 32-byte elements streams the whole array 4 times (8 wide layers in pairs)
 * plus once for the blocks, instead of 20 times.
 * Bit reversal: blocked, tile by tile (NT_FN(bitrev)).
 */
#define NT_CAT_(a, b) a##b
#define NT_CAT(a, b) NT_CAT_(a, b)
#define NT_FN(name) NT_CAT(NT_PFX, NT_CAT(_, name))

#define NT_BLOCK ((size_t)(128 * 1024) / sizeof(NT_T))

typedef struct {
    NT_T *a;
    const NT_T *tw;
    size_t n, len, per_task, block;
    const NT_T *c, *s;
    unsigned log_n;
    int dit; /* quad_task: the direction */
} NT_FN(job);

/* Butterflies [b0, b1) of the layer of half-span len (b = block * len + j): one division
 * per call, then the block and j advance together. A unit that defines NT_VEC (lanes) and
 * NT_VDIF / NT_VDIT (x, tw, len, j: NT_VEC butterflies at once) gets them wherever NT_VEC
 * consecutive butterflies share a block. */
#ifdef NT_VEC
#define NT_VECTOR_STEP(VOP)                                                                          \
    if (j + NT_VEC <= len && b + NT_VEC <= b1) {                                                     \
        VOP(x, tw, len, j);                                                                          \
        j += NT_VEC;                                                                                 \
        b += NT_VEC;                                                                                 \
        if (j == len) {                                                                              \
            j = 0;                                                                                   \
            x += 2 * len;                                                                            \
        }                                                                                            \
        continue;                                                                                    \
    }
#else
#define NT_VECTOR_STEP(VOP)
#endif

static void NT_FN(dif_butterflies)(NT_T *a, const NT_T *tw, size_t len, size_t b0, size_t b1)
{
    size_t j = b0 % len;
    NT_T *x = a + b0 / len * 2 * len, u, v;
    for (size_t b = b0; b < b1;) {
        NT_VECTOR_STEP(NT_VDIF)
        u = x[j];
        v = x[j + len];
        NT_ADD(&x[j], &u, &v);
        NT_SUB(&v, &u, &v);
        if (j == 0) /* tw[len] = w^0 = 1: the product would be v itself */
            x[j + len] = v;
        else
            NT_MUL(&x[j + len], &v, &tw[len + j]);
        b++;
        if (++j == len) {
            j = 0;
            x += 2 * len;
        }
    }
}

static void NT_FN(dit_butterflies)(NT_T *a, const NT_T *tw, size_t len, size_t b0, size_t b1)
{
    size_t j = b0 % len;
    NT_T *x = a + b0 / len * 2 * len, u, v;
    for (size_t b = b0; b < b1;) {
        NT_VECTOR_STEP(NT_VDIT)
        u = x[j];
        if (j == 0) /* tw[len] = 1, as in dif_butterflies */
            v = x[j + len];
        else
            NT_MUL(&v, &x[j + len], &tw[len + j]);
        NT_ADD(&x[j], &u, &v);
        NT_SUB(&x[j + len], &u, &v);
        b++;
        if (++j == len) {
            j = 0;
            x += 2 * len;
        }
    }
}

/* Radix 4: two wide layers in one pass over the quads [q0, q1). Quad q (h = len / 2, block
 * q / h, j = q % h) is x[j], x[j + h], x[j + len], x[j + len + h] of its block x of 2 len
 * elements; DIF runs the span-len butterflies (j, j + len), (j + h, j + len + h), then the
 * span-h ones (j, j + h), (j + len, j + len + h); DIT the same in reverse. These are the
 * radix-2 layers' own butterflies, so the bits are the same, but each element comes from
 * memory once for both layers: consecutive quads go NT_QUAD_RUN at a time, whose four
 * segments stay in L1 between the two layers. */
#define NT_QUAD_RUN 64

static void NT_FN(quads)(NT_T *a, const NT_T *tw, size_t len, size_t q0, size_t q1, int dit)
{
    size_t h = len / 2, j = q0 % h;
    NT_T *x = a + q0 / h * 2 * len;
    for (size_t q = q0; q < q1;) {
        size_t run = h - j < q1 - q ? h - j : q1 - q;
        if (run > NT_QUAD_RUN)
            run = NT_QUAD_RUN;
        if (dit) {
            NT_FN(dit_butterflies)(x, tw, h, j, j + run);
            NT_FN(dit_butterflies)(x + len, tw, h, j, j + run);
            NT_FN(dit_butterflies)(x, tw, len, j, j + run);
            NT_FN(dit_butterflies)(x, tw, len, j + h, j + h + run);
        } else {
            NT_FN(dif_butterflies)(x, tw, len, j, j + run);
            NT_FN(dif_butterflies)(x, tw, len, j + h, j + h + run);
            NT_FN(dif_butterflies)(x, tw, h, j, j + run);
            NT_FN(dif_butterflies)(x + len, tw, h, j, j + run);
        }
        q += run;
        if ((j += run) == h) {
            j = 0;
            x += 2 * len;
        }
    }
}

static void NT_FN(quad_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    size_t quads = jb->n / 4, q0 = t * jb->per_task, q1 = q0 + jb->per_task < quads ? q0 + jb->per_task : quads;
    (void)worker;
    NT_FN(quads)(jb->a, jb->tw, jb->len, q0, q1, jb->dit);
}

static void NT_FN(dif_layer_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    size_t half = jb->n / 2, b0 = t * jb->per_task, b1 = b0 + jb->per_task < half ? b0 + jb->per_task : half;
    (void)worker;
    NT_FN(dif_butterflies)(jb->a, jb->tw, jb->len, b0, b1);
}

static void NT_FN(dit_layer_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    size_t half = jb->n / 2, b0 = t * jb->per_task, b1 = b0 + jb->per_task < half ? b0 + jb->per_task : half;
    (void)worker;
    NT_FN(dit_butterflies)(jb->a, jb->tw, jb->len, b0, b1);
}

/* Every layer narrower than the block, depth first, on block t. A unit that defines
 * NT_VNARROW (x, plan, dit: every layer of span below NT_VEC on the 2 NT_VEC elements at x),
 * NT_VNARROW_T (its plan) and NT_VNARROW_PREP (plan, tw) gets them there instead of the
 * scalar layers. */
static void NT_FN(dif_block_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    NT_T *a = jb->a + t * jb->block;
    size_t narrow = 1;
    (void)worker;
#ifdef NT_VNARROW
    NT_VNARROW_T plan;
    if (jb->block >= 2 * NT_VEC) {
        NT_VNARROW_PREP(&plan, jb->tw);
        narrow = NT_VEC;
    }
#endif
    for (size_t len = jb->block / 2; len >= narrow; len /= 2)
        NT_FN(dif_butterflies)(a, jb->tw, len, 0, jb->block / 2);
#ifdef NT_VNARROW
    for (size_t x = 0; narrow > 1 && x < jb->block; x += 2 * NT_VEC)
        NT_VNARROW(a + x, &plan, 0);
#endif
}

static void NT_FN(dit_block_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    NT_T *a = jb->a + t * jb->block;
    size_t narrow = 1;
    (void)worker;
#ifdef NT_VNARROW
    NT_VNARROW_T plan;
    if (jb->block >= 2 * NT_VEC) {
        NT_VNARROW_PREP(&plan, jb->tw);
        narrow = NT_VEC;
        for (size_t x = 0; x < jb->block; x += 2 * NT_VEC)
            NT_VNARROW(a + x, &plan, 1);
    }
#endif
    for (size_t len = narrow; len < jb->block; len *= 2)
        NT_FN(dit_butterflies)(a, jb->tw, len, 0, jb->block / 2);
}

/* The wide layers (span >= the block): two per pass (NT_FN(quads)), the last one alone when
 * their number is odd. */
static void NT_FN(wide_layers)(rt_pool *pool, NT_FN(job) * jb, int dit)
{
    jb->dit = dit;
    for (size_t len = dit ? jb->block : jb->n / 2; len >= jb->block && len < jb->n;) {
        int pair;
        len = ntt_wide_pass(len, jb->n, jb->block, dit, &pair, &jb->len);
        if (pair)
            rt_pool_run(pool, ntt_pool_tasks(pool, jb->n / 4, &jb->per_task), NT_FN(quad_task), jb);
        else
            rt_pool_run(pool, ntt_pool_tasks(pool, jb->n / 2, &jb->per_task),
                        dit ? NT_FN(dit_layer_task) : NT_FN(dif_layer_task), jb);
    }
}

static void NT_FN(dif)(rt_pool *pool, void *a, size_t n, const void *tw)
{
    NT_FN(job) jb = {a, tw, n, 0, 0, n < NT_BLOCK ? n : NT_BLOCK, NULL, NULL, 0, 0};
    if (n < 2)
        return;
    NT_FN(wide_layers)(pool, &jb, 0);
    rt_pool_run(pool, n / jb.block, NT_FN(dif_block_task), &jb);
}

static void NT_FN(dit)(rt_pool *pool, void *a, size_t n, const void *tw)
{
    NT_FN(job) jb = {a, tw, n, 0, 0, n < NT_BLOCK ? n : NT_BLOCK, NULL, NULL, 0, 0};
    if (n < 2)
        return;
    rt_pool_run(pool, n / jb.block, NT_FN(dit_block_task), &jb);
    NT_FN(wide_layers)(pool, &jb, 1);
}

/* Element range of task t when n elements are cut into per_task pieces. */
static void NT_FN(range)(const NT_FN(job) * jb, size_t t, size_t *b, size_t *e)
{
    *b = t * jb->per_task;
    *e = *b + jb->per_task < jb->n ? *b + jb->per_task : jb->n;
}


static void NT_FN(exponent)(uint64_t *e, size_t v)
{
    e[0] = (uint64_t)v;
    e[1] = e[2] = e[3] = 0;
}

/* NT_LANES independent factors, so that the multiplications of a scale do not wait on each
 * other; NT_MUL_LANES(r, a, b) multiplies NT_LANES elements (a unit with NT_VMUL: one vector
 * multiplication). */
#ifdef NT_VMUL
#define NT_LANES NT_VEC
#define NT_MUL_LANES NT_VMUL
#else
#define NT_LANES 8
#define NT_MUL_LANES(r, a, b)                                                                        \
    for (size_t k_ = 0; k_ < NT_LANES; k_++)                                                         \
    NT_MUL(&(r)[k_], &(a)[k_], &(b)[k_])
#endif

/* a[i] *= c * s^i for i in the task's range: lane k of the factors holds c s^(i + k), stepped
 * by s^NT_LANES. */
static void NT_FN(scale_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    size_t b, e, i;
    uint64_t ex[4];
    NT_T f[NT_LANES], step[NT_LANES];
    (void)worker;
    NT_FN(range)(jb, t, &b, &e);
    NT_FN(exponent)(ex, b);
    NT_FN(pow)(&f[0], jb->s, ex);
    NT_MUL(&f[0], &f[0], jb->c);
    for (size_t k = 1; k < NT_LANES; k++)
        NT_MUL(&f[k], &f[k - 1], jb->s);
    NT_FN(exponent)(ex, NT_LANES);
    NT_FN(pow)(&step[0], jb->s, ex);
    for (size_t k = 1; k < NT_LANES; k++)
        step[k] = step[0];
    for (i = b; i + NT_LANES <= e; i += NT_LANES) {
        NT_MUL_LANES(jb->a + i, jb->a + i, f);
        NT_MUL_LANES(f, f, step);
    }
    for (size_t k = 0; i < e; i++, k++)
        NT_MUL(&jb->a[i], &jb->a[i], &f[k]);
}

static void NT_FN(scale)(rt_pool *pool, void *a, size_t n, const void *c, const void *s)
{
    NT_FN(job) jb = {a, NULL, n, 0, 0, 0, c, s, 0, 0};
    rt_pool_run(pool, ntt_pool_tasks(pool, jb.n, &jb.per_task), NT_FN(scale_task), &jb);
}

/* The top layer tw[n/2 + j] = w^j by powers, then every lower layer by a strided gather. */
static void NT_FN(powers_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    size_t b, e;
    uint64_t ex[4];
    NT_T f;
    (void)worker;
    NT_FN(range)(jb, t, &b, &e);
    NT_FN(exponent)(ex, b);
    NT_FN(pow)(&f, jb->s, ex);
    for (size_t i = b; i < e; i++) {
        jb->a[i] = f;
        NT_MUL(&f, &f, jb->s);
    }
}

static void NT_FN(twiddles)(rt_pool *pool, void *tw_v, size_t n, const void *w)
{
    NT_T *tw = tw_v;
    if (n < 2)
        return;
    NT_FN(job) jb = {tw + n / 2, NULL, n / 2, 0, 0, 0, NULL, w, 0, 0};
    rt_pool_run(pool, ntt_pool_tasks(pool, jb.n, &jb.per_task), NT_FN(powers_task), &jb);
    for (size_t len = n / 4; len >= 1; len /= 2)
        for (size_t j = 0; j < len; j++)
            tw[len + j] = tw[n / 2 + j * (n / (2 * len))];
}

/* i reversed in its low bits bits (bits <= 32): byte table, four lookups. */
static size_t NT_FN(reverse)(size_t i, unsigned bits)
{
    static const unsigned char rev8[256] = {
#define NT_R2(n) n, n + 2 * 64, n + 1 * 64, n + 3 * 64
#define NT_R4(n) NT_R2(n), NT_R2(n + 2 * 16), NT_R2(n + 1 * 16), NT_R2(n + 3 * 16)
#define NT_R6(n) NT_R4(n), NT_R4(n + 2 * 4), NT_R4(n + 1 * 4), NT_R4(n + 3 * 4)
        NT_R6(0), NT_R6(2), NT_R6(1), NT_R6(3)
#undef NT_R6
#undef NT_R4
#undef NT_R2
    };
    uint32_t v = (uint32_t)i;
    uint32_t r = (uint32_t)rev8[v & 0xff] << 24 | (uint32_t)rev8[(v >> 8) & 0xff] << 16 |
                 (uint32_t)rev8[(v >> 16) & 0xff] << 8 | rev8[v >> 24];
    return bits ? (size_t)(r >> (32 - bits)) : 0;
}

/* Swaps the pairs (i, rev(i)) with i < rev(i) for i in the task's range: disjoint pairs.
 * For the sizes below two tiles' bits. */
static void NT_FN(bitrev_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    size_t b, e;
    (void)worker;
    NT_FN(range)(jb, t, &b, &e);
    for (size_t i = b; i < e; i++) {
        size_t j = NT_FN(reverse)(i, jb->log_n);
        if (i < j) {
            NT_T x = jb->a[i];
            jb->a[i] = jb->a[j];
            jb->a[j] = x;
        }
    }
}

/* Blocked bit reversal. An index of log_n bits is (h, m, l) with h and l of NT_BR_BITS bits
 * each, and rev(h, m, l) = (rev l, rev m, rev h). The tile of m, {(h, m, l)}, is 2^NT_BR_BITS
 * runs of 2^NT_BR_BITS consecutive elements (at least a cache line each), and the
 * permutation maps the tile of m onto the tile of rev m, transposed: both tiles are read
 * run by run into L1 buffers, then written back run by run, so the array is streamed once
 * in whole lines instead of a line touched per element. */
#define NT_BR_BITS (sizeof(NT_T) >= 32 ? 3u : sizeof(NT_T) >= 8 ? 4u : 5u)
#define NT_BR_SIDE ((size_t)1 << NT_BR_BITS)

static void NT_FN(tile_load)(NT_T *buf, const NT_T *a, size_t m, unsigned log_n)
{
    for (size_t h = 0; h < NT_BR_SIDE; h++)
        memcpy(buf + h * NT_BR_SIDE, a + (h << (log_n - NT_BR_BITS)) + (m << NT_BR_BITS), NT_BR_SIDE * sizeof(NT_T));
}

/* The tile of m from the buffered tile of rev m: a(h, m, l) = buf[rev l][rev h]. */
static void NT_FN(tile_store)(NT_T *a, const NT_T *buf, size_t m, unsigned log_n, const unsigned char *rev)
{
    for (size_t h = 0; h < NT_BR_SIDE; h++) {
        NT_T *run = a + (h << (log_n - NT_BR_BITS)) + (m << NT_BR_BITS);
        for (size_t l = 0; l < NT_BR_SIDE; l++)
            run[l] = buf[rev[l] * NT_BR_SIDE + rev[h]];
    }
}

/* The tile pairs (m, rev m) with m <= rev m, m in the task's range (jb->n counts the m). */
static void NT_FN(bitrev_tiles_task)(void *arg, size_t t, unsigned worker)
{
    NT_FN(job) *jb = arg;
    NT_T own[NT_BR_SIDE * NT_BR_SIDE], other[NT_BR_SIDE * NT_BR_SIDE];
    unsigned char rev[NT_BR_SIDE];
    unsigned mid_bits = jb->log_n - 2 * NT_BR_BITS;
    size_t b, e;
    (void)worker;
    for (size_t i = 0; i < NT_BR_SIDE; i++)
        rev[i] = (unsigned char)NT_FN(reverse)(i, NT_BR_BITS);
    NT_FN(range)(jb, t, &b, &e);
    for (size_t m = b; m < e; m++) {
        size_t rm = NT_FN(reverse)(m, mid_bits);
        if (rm < m)
            continue;
        NT_FN(tile_load)(own, jb->a, m, jb->log_n);
        if (rm != m) {
            NT_FN(tile_load)(other, jb->a, rm, jb->log_n);
            NT_FN(tile_store)(jb->a, own, rm, jb->log_n, rev);
        }
        NT_FN(tile_store)(jb->a, rm != m ? other : own, m, jb->log_n, rev);
    }
}

static void NT_FN(bitrev)(rt_pool *pool, void *a, size_t n)
{
    NT_FN(job) jb = {a, NULL, n, 0, 0, 0, NULL, NULL, 0, 0};
    while (((size_t)1 << jb.log_n) < n)
        jb.log_n++;
    if (jb.log_n >= 2 * NT_BR_BITS) {
        jb.n = (size_t)1 << (jb.log_n - 2 * NT_BR_BITS);
        rt_pool_run(pool, ntt_pool_tasks(pool, jb.n, &jb.per_task), NT_FN(bitrev_tiles_task), &jb);
    } else if (n > 2) {
        rt_pool_run(pool, ntt_pool_tasks(pool, jb.n, &jb.per_task), NT_FN(bitrev_task), &jb);
    }
}

#undef NT_FN
#undef NT_CAT
#undef NT_CAT_
#undef NT_BLOCK
#undef NT_T
#undef NT_PFX
#undef NT_ADD
#undef NT_SUB
#undef NT_MUL
#undef NT_VECTOR_STEP
#undef NT_QUAD_RUN
#undef NT_LANES
#undef NT_MUL_LANES
#undef NT_VMUL
#undef NT_VNARROW
#undef NT_VNARROW_T
#undef NT_VNARROW_PREP
#undef NT_BR_BITS
#undef NT_BR_SIDE
#undef NT_VEC
#undef NT_VDIF
#undef NT_VDIT
