/*
 * ntt.c: hpr_ntt and hpr_ntt_lde, the NTT entry points (CPU, portable kernels of
 * kernels_cpu/ntt_cpu.h).
 *
 * Steps: (1) check the arguments and every element (< p, the first bad index named) before
 * anything is written; (2) convert the columns into a working buffer in the field's internal
 * form, column-major whatever the caller's layout; (3) per column: forward = [bit-reverse a
 * reversed input] [scale by shift^i] DIF (natural -> bit-reversed) [bit-reverse for a natural
 * output]; inverse = [bit-reverse a natural input] DIT with w^-1 (bit-reversed -> natural)
 * scale by n^-1 shift^-i [bit-reverse for a reversed output]; (4) convert back.
 * Roots: w = g^((p-1)/n), checked to have order exactly n (so an explicit generator that is
 * not one is refused). Twiddle tables are kept per context, one per (field, generator,
 * direction), and grown to the largest size asked: a table of size N serves every n <= N
 * (ntt_cpu.h).
 * Devices: "cl:P.D" runs the butterflies and the bit reversals next to them on that OpenCL
 * device (runtime/cl_ntt.h) with the same twiddles, so the result is the CPU's bit for bit;
 * a device fault restores the columns and redoes them on the CPU, with a notice.
 * "all" deals the columns of a batch to the CPU and every usable OpenCL device through the
 * scheduler (a column per item, the devices' speeds from the NTT calibration when the
 * profile has them; a failed tile is redone elsewhere; the run report names the
 * devices).
 * LDE: the coefficients are loaded straight into out in the internal form and transformed
 * there; the DIF layers that only meet zeros are replaced by scaled copies (lde_segments),
 * so a rate-r LDE is r transforms of the input's size, not one of r times its size.
 * One large column under "all" runs four-step (four_step) when a non-CPU OpenCL device is
 * usable: its sub-NTTs are columns dealt by the scheduler as above.
 */
#include "internal.h"
#include "../kernels_cpu/ntt_cpu.h"
#include "../runtime/cl_ntt.h"
#include "../runtime/rt_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* room for one element of any field, aligned for every internal form */
typedef struct {
    uint64_t l[4];
} ntt_elem;
#define TWIDDLE_CACHE 8

struct hpr_ntt_cache {
    struct {
        const ntt_field_ops *ops;
        uint64_t generator[4];
        int inverse;
        unsigned log_n;
        void *tw, *kernel_tw; /* kernel_tw: the CPU kernels' own table, or NULL (ntt_cpu.h) */
    } entry[TWIDDLE_CACHE];
    unsigned next; /* the entry replaced when all are used */
};

void hpr_ntt_cache_free(hpr_ntt_cache *cache)
{
    if (!cache)
        return;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++) {
        free(cache->entry[i].tw);
        free(cache->entry[i].kernel_tw);
    }
    free(cache);
}

/* The field's table for what does not depend on the tier (sizes, modulus, generator). */
static const ntt_field_ops *field_ops(hpr_field field)
{
    return ntt_field_ops_for((int)field, RT_CPU_PORTABLE);
}

size_t hpr_field_element_size(hpr_field field)
{
    const ntt_field_ops *ops = field_ops(field);
    return ops ? ops->elem_bytes : 0;
}

unsigned hpr_field_two_adicity(hpr_field field)
{
    const ntt_field_ops *ops = field_ops(field);
    return ops ? ops->two_adicity : 0;
}

static int limbs_below(const uint64_t *a, const uint64_t *p)
{
    for (int i = 3; i >= 0; i--)
        if (a[i] != p[i])
            return a[i] < p[i];
    return 0;
}

/* A decimal constant (shift, generator) in the internal form: nonzero and below p. */
static hpr_status parse_constant(hpr_ctx *ctx, const ntt_field_ops *ops, const char *what, const char *dec,
                                 uint64_t *limbs, void *elem)
{
    if (hpr_dec_to_limbs(limbs, 4, dec) != 0 || !limbs_below(limbs, ops->modulus) ||
        (limbs[0] | limbs[1] | limbs[2] | limbs[3]) == 0)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "%s '%.80s' is not a nonzero decimal element of %s (below p)",
                        what, dec ? dec : "(null)", ops->name);
    ops->from_canonical(elem, limbs);
    return HPR_OK;
}

static void set_small(const ntt_field_ops *ops, void *elem, uint64_t v)
{
    uint64_t limbs[4] = {v, 0, 0, 0};
    ops->from_canonical(elem, limbs);
}

/* w = g^((p-1) / 2^log_n); 0 if w has order exactly 2^log_n (w^(n/2) = -1), else -1. */
static int primitive_root(const ntt_field_ops *ops, const void *g, unsigned log_n, void *w)
{
    uint64_t e[4], c[4];
    ntt_elem t;
    memcpy(e, ops->modulus, sizeof e);
    e[0] -= 1; /* p is odd */
    for (unsigned k = 0; k < log_n; k++)
        for (int i = 0; i < 4; i++)
            e[i] = (e[i] >> 1) | (i < 3 ? e[i + 1] << 63 : 0);
    ops->pow(w, g, e);
    if (log_n == 0)
        return 0; /* g^(p-1) = 1 */
    e[0] = (uint64_t)1 << (log_n - 1);
    e[1] = e[2] = e[3] = 0;
    ops->pow(&t, w, e);
    ops->to_canonical(c, &t);
    c[0] += 1; /* p - 1 + 1 = p, without carry since p is odd */
    return memcmp(c, ops->modulus, sizeof c) == 0 ? 0 : -1;
}

/* The twiddle tables of one transform: tw for the OpenCL kernels, cpu for the CPU's. */
typedef struct {
    const void *tw, *cpu;
} ntt_tables;

/* The twiddle tables for (ops, g, direction) of at least 2^log_n entries, from the context's
 * cache or computed (and cached). -1 without memory. */
static int twiddles(hpr_ctx *ctx, const ntt_field_ops *ops, const uint64_t *g_limbs, const void *w, int inverse,
                    unsigned log_n, ntt_tables *out)
{
    hpr_ntt_cache *cache = ctx->ntt_cache;
    size_t n = (size_t)1 << log_n;
    if (!cache && !(cache = ctx->ntt_cache = calloc(1, sizeof *cache)))
        return -1;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++) {
        if (cache->entry[i].ops == ops && cache->entry[i].inverse == inverse && cache->entry[i].log_n >= log_n &&
            memcmp(cache->entry[i].generator, g_limbs, sizeof cache->entry[i].generator) == 0) {
            out->tw = cache->entry[i].tw;
            out->cpu = cache->entry[i].kernel_tw ? cache->entry[i].kernel_tw : cache->entry[i].tw;
            return 0;
        }
    }
    void *tw = rt_alloc_large(n * ops->elem_bytes), *kernel_tw = NULL;
    if (!tw)
        return -1;
    ops->twiddles(ctx->pool, tw, n, w);
    if (ops->kernel_twiddles && !(kernel_tw = ops->kernel_twiddles(ctx->pool, tw, n))) {
        free(tw);
        return -1;
    }
    unsigned slot = cache->next;
    for (unsigned i = 0; i < TWIDDLE_CACHE; i++)
        if (cache->entry[i].ops == ops && cache->entry[i].inverse == inverse &&
            memcmp(cache->entry[i].generator, g_limbs, sizeof cache->entry[i].generator) == 0)
            slot = i; /* a smaller table of the same family: replace it */
    if (slot == cache->next)
        cache->next = (cache->next + 1) % TWIDDLE_CACHE;
    free(cache->entry[slot].tw);
    free(cache->entry[slot].kernel_tw);
    cache->entry[slot].ops = ops;
    memcpy(cache->entry[slot].generator, g_limbs, sizeof cache->entry[slot].generator);
    cache->entry[slot].inverse = inverse;
    cache->entry[slot].log_n = log_n;
    cache->entry[slot].tw = tw;
    cache->entry[slot].kernel_tw = kernel_tw;
    out->tw = tw;
    out->cpu = kernel_tw ? kernel_tw : tw;
    return 0;
}

typedef struct {
    const ntt_field_ops *ops;
    hpr_field field;
    unsigned log_n;
    size_t n, columns;
    int row_major;
    int inverse;
    hpr_ntt_order order;
    ntt_elem shift, g;
    uint64_t g_limbs[4];
    int has_shift;
    cl_dev *dev; /* the OpenCL device of the butterflies, or NULL for the CPU */
    int all;     /* "all": columns dealt to every usable device by the scheduler */
    unsigned lde_log_rate; /* > 0: a low-degree extension, only the first n >> lde_log_rate
                            * elements of each column are nonzero (CPU only) */
} ntt_plan;

static hpr_status make_plan(hpr_ctx *ctx, hpr_field field, unsigned log_n, const hpr_ntt_opts *opts, ntt_plan *pl)
{
    uint64_t limbs[4];
    hpr_status st;
    memset(pl, 0, sizeof *pl);
    pl->ops = ntt_field_ops_for((int)field, ctx->cpu_tier);
    if (!pl->ops)
        return hpr_fail(ctx, HPR_ERR_UNSUPPORTED_FIELD,
                        "field %d is not supported (bn254-fr 1, bls12-381-fr 2, goldilocks 3, babybear 4, koalabear 5)",
                        (int)field);
    if (log_n > pl->ops->two_adicity || log_n > 8 * sizeof(size_t) - 8)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "log_n = %u exceeds the two-adicity of %s (%u)", log_n,
                        pl->ops->name, pl->ops->two_adicity);
    pl->field = field;
    pl->log_n = log_n;
    pl->n = (size_t)1 << log_n;
    pl->columns = opts && opts->columns > 1 ? opts->columns : 1;
    pl->row_major = opts ? opts->row_major : 0;
    pl->inverse = opts ? opts->inverse : 0;
    pl->order = opts ? opts->order : HPR_NTT_NN;
    if ((unsigned)pl->order > HPR_NTT_RR)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "order %d is not one of NN, NR, RN, RR (0..3)", (int)pl->order);
    if (pl->columns > SIZE_MAX / pl->n / pl->ops->elem_bytes)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "%zu columns of 2^%u elements overflow the address space",
                        pl->columns, log_n);
    if (opts && opts->coset_shift) {
        if ((st = parse_constant(ctx, pl->ops, "coset shift", opts->coset_shift, limbs, &pl->shift)) != HPR_OK)
            return st;
        pl->has_shift = 1;
    }
    if (opts && opts->generator) {
        if ((st = parse_constant(ctx, pl->ops, "generator", opts->generator, pl->g_limbs, &pl->g)) != HPR_OK)
            return st;
    } else {
        pl->g_limbs[0] = pl->ops->generator;
        pl->ops->from_canonical(&pl->g, pl->g_limbs);
    }
    const char *device = opts && opts->device ? opts->device : ctx->device;
    pl->all = strcmp(device, "all") == 0;
    return hpr_resolve_device(ctx, device, &pl->dev);
}

#define CONVERT_CHUNK 16384 /* elements per conversion task */

/* The first element >= p among count canonical elements at data, or count (checked through
 * a scratch chunk, nothing written). */
static size_t first_out_of_range(const ntt_field_ops *ops, const unsigned char *data, size_t count)
{
    ntt_elem scratch[256];
    size_t per = sizeof scratch / ops->elem_bytes;
    for (size_t i = 0; i < count; i += per) {
        size_t len = count - i < per ? count - i : per, bad = ops->import(scratch, data + i * ops->elem_bytes, len);
        if (bad < len)
            return i + bad;
    }
    return count;
}

typedef struct {
    const ntt_field_ops *ops;
    const unsigned char *data;
    size_t count;
    size_t *first_bad; /* per task */
} check_job;

static void check_task(void *arg, size_t t, unsigned worker)
{
    check_job *cj = arg;
    size_t b = t * CONVERT_CHUNK, e = b + CONVERT_CHUNK < cj->count ? b + CONVERT_CHUNK : cj->count;
    (void)worker;
    size_t good = first_out_of_range(cj->ops, cj->data + b * cj->ops->elem_bytes, e - b);
    cj->first_bad[t] = good < e - b ? b + good : cj->count;
}

/* first_out_of_range on the pool; SIZE_MAX without memory. */
static size_t first_out_of_range_on_pool(hpr_ctx *ctx, const ntt_field_ops *ops, const unsigned char *data,
                                         size_t count)
{
    size_t tasks = (count + CONVERT_CHUNK - 1) / CONVERT_CHUNK, bad = count;
    check_job cj = {ops, data, count, malloc((tasks ? tasks : 1) * sizeof(size_t))};
    if (!cj.first_bad)
        return SIZE_MAX;
    rt_pool_run(ctx->pool, tasks, check_task, &cj);
    for (size_t t = 0; t < tasks; t++)
        bad = cj.first_bad[t] < bad ? cj.first_bad[t] : bad;
    free(cj.first_bad);
    return bad;
}

typedef struct {
    const ntt_plan *pl;
    unsigned char *data, *work;
    int back;           /* 0: data -> work (checked), 1: work -> data */
    size_t *first_bad;  /* per task: the first index (in data) >= p, or SIZE_MAX */
} convert_job;

/* Task t: elements [t * CONVERT_CHUNK, ...) of the column-major order; a row-major caller's
 * element (column c, row j) sits at j * columns + c of data. */
static void convert_task(void *arg, size_t t, unsigned worker)
{
    convert_job *cj = arg;
    const ntt_plan *pl = cj->pl;
    const ntt_field_ops *ops = pl->ops;
    size_t es = ops->elem_bytes, total = pl->n * pl->columns;
    size_t b = t * CONVERT_CHUNK, e = b + CONVERT_CHUNK < total ? b + CONVERT_CHUNK : total;
    (void)worker;
    cj->first_bad[t] = SIZE_MAX;
    if (!pl->row_major) {
        size_t good;
        if (cj->back)
            ops->export(cj->data + b * es, cj->work + b * es, e - b);
        else if ((good = ops->import(cj->work + b * es, cj->data + b * es, e - b)) < e - b)
            cj->first_bad[t] = b + good;
        return;
    }
    for (size_t i = b; i < e; i++) {
        size_t c = i / pl->n, j = i % pl->n, at = j * pl->columns + c;
        if (cj->back)
            ops->export(cj->data + at * es, cj->work + i * es, 1);
        else if (ops->import(cj->work + i * es, cj->data + at * es, 1) == 0 && at < cj->first_bad[t])
            cj->first_bad[t] = at;
    }
}

/* data <-> work. Returns the first index of data >= p (SIZE_MAX if none, or when back). */
static size_t convert(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *data, unsigned char *work, int back,
                      size_t *first_bad)
{
    size_t tasks = (pl->n * pl->columns + CONVERT_CHUNK - 1) / CONVERT_CHUNK, bad = SIZE_MAX;
    convert_job cj = {pl, data, work, back, first_bad};
    rt_pool_run(ctx->pool, tasks, convert_task, &cj);
    for (size_t t = 0; t < tasks; t++)
        bad = first_bad[t] < bad ? first_bad[t] : bad;
    return bad;
}

/* The steps of one column around its butterflies (see the top): host work before and after,
 * and what the butterfly stage does (on the CPU or a device). */
static int input_reversed(const ntt_plan *pl)
{
    return pl->order == HPR_NTT_RN || pl->order == HPR_NTT_RR;
}

static int output_reversed(const ntt_plan *pl)
{
    return pl->order == HPR_NTT_NR || pl->order == HPR_NTT_RR;
}

static cl_ntt_job butterfly_stage(const ntt_plan *pl)
{
    cl_ntt_job job = {(int)pl->field, pl->ops->elem_bytes, pl->log_n, pl->inverse, 0, 0};
    job.bitrev_before = pl->inverse && !input_reversed(pl);
    job.bitrev_after = !pl->inverse && !output_reversed(pl);
    return job;
}

/* i reversed in its low bits bits */
static size_t reverse_bits(size_t i, unsigned bits)
{
    size_t r = 0;
    for (unsigned b = 0; b < bits; b++)
        r |= ((i >> b) & 1) << (bits - 1 - b);
    return r;
}

/* The LDE's first lde_log_rate DIF layers, on a column whose upper segments are zero: they
 * leave segment t (of n / rate elements) = a_j (shift w^rev(t))^j, w the plan's n-th root,
 * rev over lde_log_rate bits. So each segment is the scaled coefficients, and the rest of the
 * DIF is one transform of n / rate per segment: the same field elements as the whole DIF on
 * the padded column, without the zeros' work. */
static void lde_segments(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *a, const void *shift, const void *w)
{
    size_t seg = pl->n >> pl->lde_log_rate, bytes = seg * pl->ops->elem_bytes;
    ntt_elem one, factor;
    set_small(pl->ops, &one, 1);
    for (size_t t = ((size_t)1 << pl->lde_log_rate) - 1; t >= 1; t--) {
        uint64_t e[4] = {reverse_bits(t, pl->lde_log_rate), 0, 0, 0};
        pl->ops->pow(&factor, w, e);
        pl->ops->mul(&factor, &factor, pl->has_shift ? shift : (const void *)&one);
        memcpy(a + t * bytes, a, bytes);
        pl->ops->scale(ctx->pool, a + t * bytes, seg, &one, &factor);
    }
    if (pl->has_shift)
        pl->ops->scale(ctx->pool, a, seg, &one, shift);
}

static void before_butterflies(hpr_ctx *ctx, const ntt_plan *pl, void *a, const void *shift, const void *w)
{
    ntt_elem one;
    set_small(pl->ops, &one, 1);
    if (pl->inverse)
        return;
    if (pl->lde_log_rate) {
        lde_segments(ctx, pl, a, shift, w);
        return;
    }
    if (input_reversed(pl))
        pl->ops->bitrev(ctx->pool, a, pl->n);
    if (pl->has_shift)
        pl->ops->scale(ctx->pool, a, pl->n, &one, shift);
}

static void butterflies_on_cpu(hpr_ctx *ctx, const ntt_plan *pl, void *a, const ntt_tables *tw)
{
    cl_ntt_job job = butterfly_stage(pl);
    if (job.bitrev_before)
        pl->ops->bitrev(ctx->pool, a, pl->n);
    size_t segments = (size_t)1 << pl->lde_log_rate, seg = pl->n / segments; /* see lde_segments */
    if (job.dit)
        pl->ops->dit(ctx->pool, a, pl->n, tw->cpu);
    else
        for (size_t t = 0; t < segments; t++)
            pl->ops->dif(ctx->pool, (unsigned char *)a + t * seg * pl->ops->elem_bytes, seg, tw->cpu);
    if (job.bitrev_after)
        pl->ops->bitrev(ctx->pool, a, pl->n);
}

static void after_butterflies(hpr_ctx *ctx, const ntt_plan *pl, void *a, const void *shift_inv, const void *n_inv)
{
    ntt_elem one;
    set_small(pl->ops, &one, 1);
    if (!pl->inverse)
        return;
    pl->ops->scale(ctx->pool, a, pl->n, n_inv, pl->has_shift ? shift_inv : (const void *)&one);
    if (output_reversed(pl))
        pl->ops->bitrev(ctx->pool, a, pl->n);
}

/* ---- "all": columns dealt by the scheduler (runtime/sched.h), one item per column ---- */

typedef struct {
    hpr_ctx *ctx;
    const ntt_plan *pl;
    unsigned char *work;
    const ntt_tables *tw;
    cl_dev *dev; /* NULL for the CPU */
} column_device;

/* Columns [begin, end) on one device. A device works on a copy, so that a failed tile leaves
 * the columns as they were for the device that redoes it. */
static int column_tile(void *impl, sched_range r, void *result, char *detail, size_t detail_len)
{
    column_device *cd = impl;
    size_t col_bytes = cd->pl->n * cd->pl->ops->elem_bytes, bytes = (r.end - r.begin) * col_bytes;
    unsigned char *cols = cd->work + r.begin * col_bytes;
    char why[CL_DETAIL_LEN];
    (void)result;
    if (!cd->dev) {
        for (size_t c = 0; c < r.end - r.begin; c++)
            butterflies_on_cpu(cd->ctx, cd->pl, cols + c * col_bytes, cd->tw);
        return 0;
    }
    cl_ntt_job job = butterfly_stage(cd->pl);
    unsigned char *copy = rt_alloc_large(bytes);
    int rc = -1;
    if (!copy)
        snprintf(why, sizeof why, "no host memory for a copy of %zu columns", r.end - r.begin);
    else
        memcpy(copy, cols, bytes);
    if (copy && (rc = cl_ntt_columns(cd->ctx->cl, cd->dev, &job, copy, r.end - r.begin, cd->tw->tw, why)) == 0)
        memcpy(cols, copy, bytes);
    else
        snprintf(detail, detail_len, "%s: %s", cd->dev->id, why);
    free(copy);
    return rc == 0 ? 0 : -1;
}

static hpr_status columns_on_every_device(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *work,
                                         const ntt_tables *tw)
{
    cl_dev *cl_devs[HPR_REPORT_MAX_DEVICES - 1], *run_devs[HPR_REPORT_MAX_DEVICES];
    column_device cds[HPR_REPORT_MAX_DEVICES];
    sched_device devs[HPR_REPORT_MAX_DEVICES];
    sched_device_report reps[HPR_REPORT_MAX_DEVICES];
    sched_tile_record *tiles = NULL;
    /* tiles of 2^12 elements or more (many small columns, as four-step makes: a tile per
     * column would cost more in dispatch than in work), yet at least four tiles; a column of
     * 2^12 or more is a tile (a slow device's probe must stay short) */
    size_t per_tile = ((size_t)1 << 12) / pl->n;
    if (per_tile > pl->columns / 4)
        per_tile = pl->columns / 4;
    sched_tiling tiling = {per_tile ? per_tile : 1, per_tile ? per_tile : 1, 0};
    void *results = NULL;
    size_t ntiles = 0;
    char why[512] = "";
    double t0 = rt_now_seconds();
    memset(&ctx->report, 0, sizeof ctx->report);
    unsigned ndev = 1 + hpr_pick_opencl_devices(ctx, 0, cl_devs, HPR_REPORT_MAX_DEVICES - 1);
    for (unsigned d = 0; d < ndev; d++) {
        run_devs[d] = d ? cl_devs[d - 1] : NULL;
        cds[d] = (column_device){ctx, pl, work, tw, run_devs[d]};
        /* calibrated elements/s (hpr_calibrate_ntt) as columns/s, or 0: probed */
        double speed = hpr_calibrated_ntt_speed(ctx, d ? cl_devs[d - 1]->id : "cpu", pl->field, pl->log_n);
        devs[d] = (sched_device){d ? cl_devs[d - 1]->id : "cpu", &cds[d], column_tile, speed / (double)pl->n};
    }
    int rc = sched_run(devs, ndev, pl->columns, &tiling, 1, &results, &tiles, &ntiles, reps, why, sizeof why);
    hpr_fill_report(ctx, run_devs, ndev, reps, (double)pl->n, rt_now_seconds() - t0);
    free(results);
    free(tiles);
    return rc == 0 ? HPR_OK : hpr_fail(ctx, HPR_ERR_DEVICE, "NTT columns: %s", why);
}

/* ---- one large NTT split across devices: four-step ----
 * n = n1 n2, index i = n2 i1 + i2 (a: n1 rows of n2). X[k1 + n1 k2] = sum_i2 w^(i2 k1)
 * w_n2^(i2 k2) sum_i1 a[n2 i1 + i2] w_n1^(i1 k1), so: transpose (n2 rows of n1), n2 NTTs of
 * n1 (natural orders), scale row i2 by w^(i2 k1), transpose (n1 rows of n2), n1 NTTs of n2,
 * transpose into natural order. Each set of sub-NTTs is a batch of columns dealt by the
 * scheduler (columns_on_every_device: calibrated, probed, a failed tile redone elsewhere);
 * the sub-NTTs use the plan's twiddle table (a table serves every smaller size). Exact
 * arithmetic: the same field elements, so the same bits as one device. */
#define FOUR_STEP_MIN_LOG 10 /* below, one device is faster than three transposes */
#define TRANSPOSE_TILE 32

typedef struct {
    const unsigned char *src;
    unsigned char *dst;
    size_t rows, cols, es;
} transpose_job;

#define TRANSPOSE_TILE_OF(T)                                                                         \
    for (size_t r = r0; r < r1; r++)                                                                 \
        for (size_t c = c0; c < c1; c++)                                                             \
    ((T *)tj->dst)[c * tj->rows + r] = ((const T *)tj->src)[r * tj->cols + c]

/* Rows [t TILE, ...) of src into the columns of dst, tile by tile. */
static void transpose_task(void *arg, size_t t, unsigned worker)
{
    const transpose_job *tj = arg;
    size_t r0 = t * TRANSPOSE_TILE, r1 = r0 + TRANSPOSE_TILE < tj->rows ? r0 + TRANSPOSE_TILE : tj->rows;
    (void)worker;
    for (size_t c0 = 0; c0 < tj->cols; c0 += TRANSPOSE_TILE) {
        size_t c1 = c0 + TRANSPOSE_TILE < tj->cols ? c0 + TRANSPOSE_TILE : tj->cols;
        if (tj->es == 4)
            TRANSPOSE_TILE_OF(uint32_t);
        else if (tj->es == 8)
            TRANSPOSE_TILE_OF(uint64_t);
        else
            TRANSPOSE_TILE_OF(ntt_elem);
    }
}

/* dst (cols rows of rows) = the transpose of src (rows rows of cols). */
static void transpose(hpr_ctx *ctx, unsigned char *dst, const unsigned char *src, size_t rows, size_t cols, size_t es)
{
    transpose_job tj = {src, dst, rows, cols, es};
    rt_pool_run(ctx->pool, (rows + TRANSPOSE_TILE - 1) / TRANSPOSE_TILE, transpose_task, &tj);
}

typedef struct {
    const ntt_field_ops *ops;
    unsigned char *a;
    size_t rows, cols; /* a: rows of cols */
    const void *w;
} twist_job;

/* Row r (< rows) times w^(r k) at column k, for the rows of task t (16 per task). */
static void twist_task(void *arg, size_t t, unsigned worker)
{
    const twist_job *tj = arg;
    const ntt_field_ops *ops = tj->ops;
    size_t es = ops->elem_bytes, r0 = t * 16, r1 = r0 + 16 < tj->rows ? r0 + 16 : tj->rows;
    uint64_t e[4] = {r0, 0, 0, 0};
    ntt_elem step, f;
    (void)worker;
    ops->pow(&step, tj->w, e); /* w^r0 */
    for (size_t r = r0; r < r1; r++, ops->mul(&step, &step, tj->w)) {
        unsigned char *row = tj->a + r * tj->cols * es;
        set_small(ops, &f, 1);
        for (size_t k = 1; k < tj->cols; k++) {
            ops->mul(&f, &f, &step);
            ops->mul(row + k * es, row + k * es, &f);
        }
    }
}

/* The report of the second batch plus the first one's work (devices matched by name). */
static void merge_reports(hpr_run_report *into, const hpr_run_report *first)
{
    for (unsigned d = 0; d < first->ndevices; d++) {
        unsigned m = 0;
        while (m < into->ndevices && strcmp(into->devices[m].device, first->devices[d].device) != 0)
            m++;
        if (m == into->ndevices) {
            if (m == HPR_REPORT_MAX_DEVICES)
                continue;
            into->devices[into->ndevices++] = first->devices[d];
            continue;
        }
        hpr_device_run *o = &into->devices[m];
        const hpr_device_run *f = &first->devices[d];
        o->tiles += f->tiles;
        o->failures += f->failures;
        o->points += f->points;
        o->busy_s += f->busy_s;
        o->wait_s += f->wait_s;
        o->points_per_s = o->busy_s > 0 ? (double)o->points / o->busy_s : 0;
        o->dropped |= f->dropped;
        if (!o->failure[0])
            snprintf(o->failure, sizeof o->failure, "%s", f->failure);
    }
    into->seconds += first->seconds;
}

/* Whether to split one column: when an OpenCL device other than a CPU can take part (an
 * OpenCL CPU device such as POCL shares the cores the CPU kernels already use, and the three
 * transposes would make the split slower than the CPU alone); HPR_NTT_FOUR_STEP=1 forces it
 * (the tests, on POCL). */
static int four_step_pays(hpr_ctx *ctx)
{
    cl_dev *devs[HPR_REPORT_MAX_DEVICES - 1];
    const char *force = getenv("HPR_NTT_FOUR_STEP");
    unsigned ndev = hpr_pick_opencl_devices(ctx, 0, devs, HPR_REPORT_MAX_DEVICES - 1);
    if (force && strcmp(force, "1") == 0)
        return ndev > 0;
    for (unsigned d = 0; d < ndev; d++)
        if (!(devs[d]->type & CL_DEVICE_TYPE_CPU))
            return 1;
    return 0;
}

/* The butterfly stage of one column (natural or bit-reversed, as butterfly_stage) by four
 * steps over every usable device. w: the plan's root of order n in its direction. */
static hpr_status four_step(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *a, const ntt_tables *tw, const void *w)
{
    const ntt_field_ops *ops = pl->ops;
    unsigned log1 = pl->log_n / 2;
    size_t n1 = (size_t)1 << log1, n2 = pl->n / n1, es = ops->elem_bytes;
    unsigned char *b = rt_alloc_large(pl->n * es);
    hpr_run_report first;
    hpr_status st;
    if (!b)
        return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "NTT of 2^%u: no memory for the four-step transposes", pl->log_n);
    if (pl->inverse && input_reversed(pl))
        ops->bitrev(ctx->pool, a, pl->n);
    ntt_plan sub = *pl;
    sub.order = HPR_NTT_NN;
    sub.has_shift = 0;
    sub.lde_log_rate = 0;
    sub.log_n = log1;
    sub.n = n1;
    sub.columns = n2;
    transpose(ctx, b, a, n1, n2, es);
    if ((st = columns_on_every_device(ctx, &sub, b, tw)) != HPR_OK)
        goto out;
    first = ctx->report;
    twist_job tj = {ops, b, n2, n1, w};
    rt_pool_run(ctx->pool, (n2 + 15) / 16, twist_task, &tj);
    transpose(ctx, a, b, n2, n1, es);
    sub.log_n = pl->log_n - log1;
    sub.n = n2;
    sub.columns = n1;
    if ((st = columns_on_every_device(ctx, &sub, a, tw)) != HPR_OK)
        goto out;
    merge_reports(&ctx->report, &first);
    transpose(ctx, b, a, n1, n2, es);
    memcpy(a, b, pl->n * es);
    if (!pl->inverse && output_reversed(pl))
        ops->bitrev(ctx->pool, a, pl->n);
out:
    free(b);
    return st;
}

/* The butterflies of every column on the plan's device; on a device fault the columns are
 * restored and redone on the CPU, and the notice says so. */
static hpr_status butterflies(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *work, const ntt_tables *tw,
                              const void *w)
{
    size_t col_bytes = pl->n * pl->ops->elem_bytes;
    char why[CL_DETAIL_LEN];
    if (pl->all && pl->columns > 1)
        return columns_on_every_device(ctx, pl, work, tw);
    if (pl->all && !pl->lde_log_rate && pl->log_n >= FOUR_STEP_MIN_LOG && four_step_pays(ctx))
        return four_step(ctx, pl, work, tw, w);
    if (pl->dev && !pl->dev->failed) {
        cl_ntt_job job = butterfly_stage(pl);
        unsigned char *saved = rt_alloc_large(pl->columns * col_bytes);
        if (!saved)
            return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "NTT on %s: no memory for the CPU's copy", pl->dev->id);
        memcpy(saved, work, pl->columns * col_bytes);
        if (cl_ntt_columns(ctx->cl, pl->dev, &job, work, pl->columns, tw->tw, why) == 0) {
            free(saved);
            return HPR_OK;
        }
        memcpy(work, saved, pl->columns * col_bytes);
        free(saved);
        pl->dev->failed = 1;
        snprintf(pl->dev->failure, sizeof pl->dev->failure, "%s", why);
        snprintf(ctx->notice, sizeof ctx->notice, "%s: %.400s; the NTT was computed on the CPU instead", pl->dev->id,
                 why);
    } else if (pl->dev) {
        snprintf(ctx->notice, sizeof ctx->notice, "%s is unusable (%.400s); the NTT was computed on the CPU instead",
                 pl->dev->id, pl->dev->failure);
    }
    for (size_t c = 0; c < pl->columns; c++)
        butterflies_on_cpu(ctx, pl, work + c * col_bytes, tw);
    return HPR_OK;
}

/* x^-1 = x^(p-2). */
static void invert(const ntt_field_ops *ops, void *r, const void *x)
{
    uint64_t e[4];
    memcpy(e, ops->modulus, sizeof e);
    e[0] -= 2; /* p is odd and > 2 */
    ops->pow(r, x, e);
}

/* What run_plan's data hold before and after. */
typedef enum {
    DATA_CANONICAL,         /* canonical elements, checked and converted into a work copy and back */
    DATA_INTERNAL,          /* the field's internal form, transformed in place */
    DATA_INTERNAL_IN_ONLY,  /* the internal form in (column-major), canonical out, in place */
} data_form;

static hpr_status run_plan(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *data, data_form form)
{
    int internal_form = form != DATA_CANONICAL;
    const ntt_field_ops *ops = pl->ops;
    ntt_elem w, w_dir, shift_dir, n_inv;
    size_t total = pl->n * pl->columns, bad;
    if (primitive_root(ops, &pl->g, pl->log_n, &w) != 0)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "the generator gives no primitive root of order 2^%u in %s (not a multiplicative generator)",
                        pl->log_n, ops->name);
    if (pl->inverse)
        invert(ops, &w_dir, &w);
    else
        w_dir = w;
    if (pl->has_shift && pl->inverse)
        invert(ops, &shift_dir, &pl->shift);
    else
        shift_dir = pl->shift;
    set_small(ops, &n_inv, pl->n); /* n < p for every n the field allows */
    invert(ops, &n_inv, &n_inv);
    ntt_tables tw = {&w_dir, &w_dir}; /* n = 1: no butterflies */
    int no_tables = pl->n > 1 && twiddles(ctx, ops, pl->g_limbs, &w_dir, pl->inverse, pl->log_n, &tw) != 0;
    unsigned char *work = internal_form ? data : rt_alloc_large(total * ops->elem_bytes);
    size_t *first_bad = malloc(((total + CONVERT_CHUNK - 1) / CONVERT_CHUNK) * sizeof *first_bad);
    if (no_tables || !work || !first_bad) {
        if (!internal_form)
            free(work);
        free(first_bad);
        return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "NTT of %zu x 2^%u elements: out of memory", pl->columns,
                        pl->log_n);
    }
    size_t col_bytes = pl->n * ops->elem_bytes;
    if (!internal_form && (bad = convert(ctx, pl, data, work, 0, first_bad)) != SIZE_MAX) {
        free(work);
        free(first_bad);
        return hpr_fail(ctx, HPR_ERR_ELEMENT_OUT_OF_RANGE,
                        "element %zu is not below the modulus p of %s (elements are canonical little-endian)", bad,
                        ops->name);
    }
    for (size_t c = 0; c < pl->columns; c++)
        before_butterflies(ctx, pl, work + c * col_bytes, &shift_dir, &w_dir);
    hpr_status st = butterflies(ctx, pl, work, &tw, &w_dir);
    for (size_t c = 0; c < pl->columns && st == HPR_OK; c++)
        after_butterflies(ctx, pl, work + c * col_bytes, &shift_dir, &n_inv);
    if (!internal_form) {
        if (st == HPR_OK)
            convert(ctx, pl, data, work, 1, first_bad);
        free(work);
    } else if (form == DATA_INTERNAL_IN_ONLY && st == HPR_OK) {
        convert(ctx, pl, data, data, 1, first_bad); /* element by element: in place */
    }
    free(first_bad);
    return st;
}

hpr_status hpr_ntt(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data, const hpr_ntt_opts *opts)
{
    ntt_plan pl;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx->detail[0] = '\0';
    ctx->notice[0] = '\0';
    if ((st = make_plan(ctx, field, log_n, opts, &pl)) != HPR_OK)
        return st;
    if (!data)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "data must not be NULL");
    return run_plan(ctx, &pl, data, DATA_CANONICAL);
}

hpr_status hpr_ntt_internal_form(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data, const hpr_ntt_opts *opts)
{
    ntt_plan pl;
    hpr_status st;
    ctx->detail[0] = '\0';
    ctx->notice[0] = '\0';
    if ((st = make_plan(ctx, field, log_n, opts, &pl)) != HPR_OK)
        return st;
    if (pl.row_major || pl.ops->elem_bytes != 32)
        return hpr_fail(ctx, HPR_ERR_INTERNAL, "hpr_ntt_internal_form: 256-bit fields, column-major only");
    return run_plan(ctx, &pl, data, DATA_INTERNAL);
}

typedef struct {
    const ntt_field_ops *ops;
    const unsigned char *in;
    unsigned char *out;
    size_t n, m; /* coefficients and evaluations per column */
} lde_load_job;

/* Column c of the LDE's output: its n coefficients in the internal form (checked before),
 * then zeros. */
static void lde_load_task(void *arg, size_t c, unsigned worker)
{
    lde_load_job *lj = arg;
    size_t es = lj->ops->elem_bytes;
    unsigned char *col = lj->out + c * lj->m * es;
    (void)worker;
    lj->ops->import(col, lj->in + c * lj->n * es, lj->n);
    memset(col + lj->n * es, 0, (lj->m - lj->n) * es);
}

hpr_status hpr_ntt_lde(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, const char *shift,
                       size_t columns, const void *in, void *out)
{
    unsigned log_rate = rate == 2 ? 1 : rate == 4 ? 2 : rate == 8 ? 3 : 0;
    char g_dec[24];
    ntt_plan pl;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx->detail[0] = '\0';
    if (!log_rate)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "LDE rate %u is not 2, 4 or 8", rate);
    if (!in || !out)
        return hpr_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "in and out must not be NULL");
    const ntt_field_ops *ops = field_ops(field);
    if (ops)
        snprintf(g_dec, sizeof g_dec, "%u", ops->generator);
    hpr_ntt_opts opts = {0, HPR_NTT_NN, shift ? shift : g_dec, NULL, columns, 0, "cpu"};
    if ((st = make_plan(ctx, field, log_n + log_rate, &opts, &pl)) != HPR_OK)
        return st;
    size_t n = (size_t)1 << log_n, bad;
    if ((bad = first_out_of_range_on_pool(ctx, ops, in, n * pl.columns)) == SIZE_MAX)
        return hpr_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "LDE of %zu x 2^%u coefficients: out of memory", pl.columns,
                        log_n);
    if (bad < n * pl.columns)
        return hpr_fail(ctx, HPR_ERR_ELEMENT_OUT_OF_RANGE, "coefficient %zu is not below the modulus p of %s", bad,
                        ops->name);
    pl.lde_log_rate = log_rate;
    lde_load_job lj = {pl.ops, in, out, n, pl.n};
    rt_pool_run(ctx->pool, pl.columns, lde_load_task, &lj);
    return run_plan(ctx, &pl, out, DATA_INTERNAL_IN_ONLY);
}
