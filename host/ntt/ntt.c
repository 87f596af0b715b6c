/*
 * ntt.c: hpr_ntt and hpr_ntt_lde, the NTT entry points, and ntt_internal_form (the Groth16
 * prover's NTTs on data already in the internal form). The top of the NTT's files
 * (ntt_internal.h): it checks the arguments into a plan, then strings the stages together.
 *
 * What: forward a_k = sum_i c_i (shift w^k)^i over each column, inverse its inverse (scaled
 * by 1/n), orders NN, NR, RN, RR, batches of columns column-major or row-major; the LDE.
 * Method (run_plan): the root w = g^((p-1)/n) and its inverse, the twiddle tables from the
 * context's cache (ntt_twiddles.c), the elements checked and copied into a work buffer (no
 * conversion to the internal form: the transform is linear, see ntt_pipeline.c), per column the
 * host's steps before the butterflies, the butterflies, the host's steps after, and the copy
 * back. The butterflies are dispatched (butterflies): "cl:P.D" runs them and the bit reversals
 * next to them on that OpenCL device (runtime/opencl/cl_ntt.h) with the same twiddles, so the
 * result is the CPU's bit for bit; a device fault restores the columns and redoes them on the
 * CPU, with a notice. "all" deals the columns of a batch to the CPU and every usable OpenCL
 * device through the scheduler, and one large column runs four-step when that pays
 * (ntt_split.c). Otherwise the CPU. LDE: the coefficients are copied straight into out and
 * transformed there, the DIF layers that only meet zeros replaced by scaled copies
 * (ntt_pipeline.c), so a rate-r LDE is r transforms of the input's size, not one of r times its
 * size.
 * Why this order: every element is checked (< p, the first bad index named) before anything
 * is written, so a refused call leaves the caller's data as it was.
 * Progress and cancellation (host/core/progress.h): hpr_ntt and hpr_ntt_lde are tracked calls;
 * every step of every column adds its units (progress_ntt_units) and is preceded by a check,
 * the last one before the copy back, so a cancelled hpr_ntt leaves data as it was.
 */
#include "host/ntt/ntt_internal.h"
#include "host/core/decimal.h"
#include "host/core/devices.h"
#include "host/ntt/ntt_memory.h"
#include "host/ntt/ntt_calls.h"
#include "runtime/base/rt_mem.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The field's table for what does not depend on the tier (sizes, modulus, generator). */
static const ntt_field_ops *field_ops(hpr_field field)
{
    return ntt_field_ops_for((int)field, RT_CPU_PORTABLE);
}

size_t ntt_field_element_size(hpr_field field)
{
    const ntt_field_ops *ops = field_ops(field);
    return ops ? ops->elem_bytes : 0;
}

unsigned ntt_field_two_adicity(hpr_field field)
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
    if (dec_to_limbs(limbs, 4, dec) != 0 || !limbs_below(limbs, ops->modulus) ||
        (limbs[0] | limbs[1] | limbs[2] | limbs[3]) == 0)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "%s '%.80s' is not a nonzero decimal element of %s (below p)",
                        what, dec ? dec : "(null)", ops->name);
    ops->from_canonical(elem, limbs);
    return HPR_OK;
}

/* The plan of one call, checked: the field supported (ctx's CPU tier), log_n within its
 * two-adicity and size_t, the order one of the four, columns x 2^log_n within the address
 * space, the coset shift and generator nonzero decimal elements below p (the generator's
 * root is checked by run_plan), the device resolved (opts->device, else ctx's). Otherwise
 * the status with the detail. */
static hpr_status make_plan(hpr_ctx *ctx, hpr_field field, unsigned log_n, const hpr_ntt_opts *opts, ntt_plan *pl)
{
    uint64_t limbs[4];
    hpr_status st;
    memset(pl, 0, sizeof *pl);
    pl->ops = ntt_field_ops_for((int)field, ctx->cpu_tier);
    if (!pl->ops)
        return ctx_fail(ctx, HPR_ERR_UNSUPPORTED_FIELD,
                        "field %d is not supported (bn254-fr 1, bls12-381-fr 2, goldilocks 3, babybear 4, koalabear 5)",
                        (int)field);
    if (log_n > pl->ops->two_adicity || log_n > 8 * sizeof(size_t) - 8)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "log_n = %u exceeds the two-adicity of %s (%u)", log_n,
                        pl->ops->name, pl->ops->two_adicity);
    pl->field = field;
    pl->log_n = log_n;
    pl->n = (size_t)1 << log_n;
    pl->columns = opts && opts->columns > 1 ? opts->columns : 1;
    pl->row_major = opts ? opts->row_major : 0;
    pl->inverse = opts ? opts->inverse : 0;
    pl->order = opts ? opts->order : HPR_NTT_NN;
    if ((unsigned)pl->order > HPR_NTT_RR)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "order %d is not one of NN, NR, RN, RR (0..3)", (int)pl->order);
    if (pl->columns > SIZE_MAX / pl->n / pl->ops->elem_bytes)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "%zu columns of 2^%u elements overflow the address space",
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
    const char *device = dev_of_call(ctx, opts ? opts->device : NULL);
    pl->all = strcmp(device, "all") == 0;
    return dev_resolve(ctx, device, &pl->dev);
}

/* The butterflies of every column (the butterfly stage, ntt_butterfly_stage) of work
 * (internal form, the host's steps before done), dispatched: under "all", the columns of a
 * batch over every device, or one large column four-step, when that pays (ntt_split.c); on
 * the plan's device; else on the CPU. On a device fault the columns are restored and redone
 * on the CPU, the device is marked failed, and the notice says so; a device already failed
 * leaves the CPU to do them, with the notice too; either way the run report names the CPU
 * and the device's fault (report_device_fault). tw: the plan's tables; w: the plan's root
 * in its direction (internal form). */
static hpr_status butterflies(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *work, const ntt_tables *tw,
                              const void *w)
{
    size_t col_bytes = pl->n * pl->ops->elem_bytes;
    char why[CL_DETAIL_LEN];
    int tried = 0;
    if (pl->all && pl->columns > 1)
        return ntt_columns_on_every_device(ctx, pl, work, tw);
    if (pl->all && ntt_four_step_pays(ctx, pl))
        return ntt_four_step(ctx, pl, work, tw, w);
    if (pl->dev && !pl->dev->failed) {
        tried = 1;
        cl_ntt_job job = ntt_butterfly_stage(pl);
        unsigned char *saved = rt_alloc_large(pl->columns * col_bytes);
        if (!saved)
            return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "NTT on %s: no memory for the CPU's copy", pl->dev->id);
        memcpy(saved, work, pl->columns * col_bytes);
        if (cl_ntt_columns(ctx->cl, pl->dev, &job, work, pl->columns, tw->tw, why) == 0) {
            free(saved);
            progress_add(ctx, (uint64_t)pl->columns * pl->n * pl->log_n); /* one kernel run: at once */
            return HPR_OK;
        }
        memcpy(work, saved, pl->columns * col_bytes);
        free(saved);
        ctx_device_failed(pl->dev, why);
        snprintf(ctx->notice, sizeof ctx->notice, "%s: %.400s; the NTT was computed on the CPU instead", pl->dev->id,
                 why);
    } else if (pl->dev) {
        snprintf(ctx->notice, sizeof ctx->notice, "%s is unusable (%.400s); the NTT was computed on the CPU instead",
                 pl->dev->id, pl->dev->failure);
    }
    double t0 = rt_now_seconds();
    for (size_t c = 0; c < pl->columns; c++) {
        if (progress_cancelled(ctx))
            return progress_fail(ctx);
        ntt_butterflies_on_cpu(ctx, pl, work + c * col_bytes, tw);
    }
    if (pl->dev) { /* the report: the CPU did the work of the device that failed */
        report_single(ctx, "cpu", pl->columns * pl->n, rt_now_seconds() - t0);
        report_device_fault(ctx, pl->dev->id, (unsigned)tried, pl->dev->failure);
    }
    return HPR_OK;
}

/* Per column of work, the host's steps before the butterflies, then the butterflies, then
 * the host's steps after (shift_dir, w_dir, n_inv: the plan's constants in its direction),
 * each step of each column after a cancellation check (HPR_ERR_CANCELLED) and adding its
 * progress units (progress_ntt_units: one per element and step). */
static hpr_status transform_columns(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *work, const ntt_tables *tw,
                                    const void *shift_dir, const void *w_dir, const void *n_inv)
{
    size_t col_bytes = pl->n * pl->ops->elem_bytes;
    hpr_status st = HPR_OK;
    for (size_t c = 0; c < pl->columns && (st = progress_check(ctx)) == HPR_OK; c++) {
        ntt_before_butterflies(ctx, pl, work + c * col_bytes, shift_dir, w_dir);
        progress_add(ctx, pl->n);
    }
    if (st != HPR_OK || (st = progress_check(ctx)) != HPR_OK || (st = butterflies(ctx, pl, work, tw, w_dir)) != HPR_OK)
        return st;
    for (size_t c = 0; c < pl->columns && (st = progress_check(ctx)) == HPR_OK; c++) {
        ntt_after_butterflies(ctx, pl, work + c * col_bytes, shift_dir, n_inv);
        progress_add(ctx, pl->n);
    }
    return st;
}

/* What run_plan's data hold before and after. */
typedef enum {
    DATA_CANONICAL, /* canonical elements, checked and copied into a work copy and back */
    DATA_IN_PLACE,  /* transformed in place: the field's internal form (the Groth16 prover's
                       calls), or canonical elements already checked (the LDE's output) */
} data_form;

/* The constants of a plan's transform in its direction (internal form) and its twiddles. */
typedef struct {
    ntt_elem w_dir, shift_dir, n_inv;
    ntt_tables tw;
    int no_tables; /* the tables could not be made (no memory) */
} ntt_constants;

/* k for pl: HPR_ERR_INVALID_ARGUMENT unless the generator's root has order exactly n; the
 * tables' lack of memory is left in k->no_tables. k->tw points into k (n = 1: no butterflies). */
static hpr_status plan_constants(hpr_ctx *ctx, const ntt_plan *pl, ntt_constants *k)
{
    const ntt_field_ops *ops = pl->ops;
    ntt_elem w;
    if (ntt_primitive_root(ops, &pl->g, pl->log_n, &w) != 0)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "the generator gives no primitive root of order 2^%u in %s (not a multiplicative generator)",
                        pl->log_n, ops->name);
    if (pl->inverse)
        ntt_invert(ops, &k->w_dir, &w);
    else
        k->w_dir = w;
    if (pl->has_shift && pl->inverse)
        ntt_invert(ops, &k->shift_dir, &pl->shift);
    else
        k->shift_dir = pl->shift;
    ntt_set_small(ops, &k->n_inv, pl->n); /* n < p for every n the field allows */
    ntt_invert(ops, &k->n_inv, &k->n_inv);
    k->tw = (ntt_tables){&k->w_dir, &k->w_dir};
    k->no_tables = pl->n > 1 && ntt_twiddles(ctx, ops, pl->g_limbs, &k->w_dir, pl->inverse, pl->log_n, &k->tw) != 0;
    return HPR_OK;
}

/* The transform of pl over data (as form says; the plan checked by make_plan): the root
 * (HPR_ERR_INVALID_ARGUMENT unless of order exactly n), the tables, for canonical data the
 * checked copy in (HPR_ERR_ELEMENT_OUT_OF_RANGE naming the first element >= p, data
 * untouched), per column the host's steps and the butterflies, the copy out. Else
 * HPR_ERR_OUT_OF_MEMORY, or HPR_ERR_DEVICE from the split (canonical data then untouched,
 * data transformed in place unspecified). */
static hpr_status run_plan(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *data, data_form form)
{
    int in_place = form == DATA_IN_PLACE;
    const ntt_field_ops *ops = pl->ops;
    ntt_constants k;
    size_t total = pl->n * pl->columns, bad;
    hpr_status st = plan_constants(ctx, pl, &k);
    if (st != HPR_OK)
        return st;
    unsigned char *work = in_place ? data : rt_alloc_large(total * ops->elem_bytes);
    size_t *first_bad = malloc(((total + NTT_COPY_CHUNK - 1) / NTT_COPY_CHUNK) * sizeof *first_bad);
    if (k.no_tables || !work || !first_bad) {
        if (!in_place)
            free(work);
        free(first_bad);
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "NTT of %zu x 2^%u elements: out of memory", pl->columns,
                        pl->log_n);
    }
    if (!in_place && (bad = ntt_copy_columns(ctx, pl, data, work, 0, first_bad)) != SIZE_MAX) {
        free(work);
        free(first_bad);
        return ctx_fail(ctx, HPR_ERR_ELEMENT_OUT_OF_RANGE,
                        "element %zu is not below the modulus p of %s (elements are canonical little-endian)", bad,
                        ops->name);
    }
    if (in_place) /* no copy in (the LDE's load was the caller's): its units at once */
        progress_add(ctx, total);
    st = transform_columns(ctx, pl, work, &k.tw, &k.shift_dir, &k.w_dir, &k.n_inv);
    if (st == HPR_OK) /* the last check: a cancelled hpr_ntt leaves data as it was */
        st = progress_check(ctx);
    if (!in_place) {
        if (st == HPR_OK)
            ntt_copy_columns(ctx, pl, data, work, 1, first_bad);
        free(work);
    } else if (st == HPR_OK) {
        progress_add(ctx, total); /* no copy out */
    }
    free(first_bad);
    return st;
}

hpr_status ntt_call(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data, const hpr_ntt_opts *opts)
{
    ntt_plan pl;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if ((st = make_plan(ctx, field, log_n, opts, &pl)) != HPR_OK)
        return st;
    if (!data)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "data must not be NULL");
    if ((st = mem_ntt_check(ctx, &pl)) != HPR_OK)
        return st;
    progress_begin(ctx, "ntt", progress_ntt_units(pl.columns, pl.log_n));
    if ((st = progress_check(ctx)) == HPR_OK)
        st = run_plan(ctx, &pl, data, DATA_CANONICAL);
    return progress_end(ctx, st);
}

hpr_status ntt_internal_form(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data, const hpr_ntt_opts *opts)
{
    ntt_plan pl;
    hpr_status st;
    /* not a public call (the Groth16 prover's, within its own): detail and notice as the
     * NTT's, the report left to the caller */
    ctx->detail[0] = '\0';
    ctx->notice[0] = '\0';
    if ((st = make_plan(ctx, field, log_n, opts, &pl)) != HPR_OK)
        return st;
    if (pl.row_major || pl.ops->elem_bytes != 32)
        return ctx_fail(ctx, HPR_ERR_INTERNAL, "ntt_internal_form: 256-bit fields, column-major only");
    return run_plan(ctx, &pl, data, DATA_IN_PLACE);
}

/* The device's tables of a_i *= c s^i (cl_ntt_scale), split at lo_bits = log_n / 2: 2^(log_n
 * - lo_bits) + 2^lo_bits elements at t, hi first. */
static cl_ntt_scale scale_tables(const ntt_plan *pl, const void *c, const void *step, unsigned char *t)
{
    const ntt_field_ops *ops = pl->ops;
    unsigned lo_bits = pl->log_n / 2;
    size_t es = ops->elem_bytes, nhi = pl->n >> lo_bits, nlo = (size_t)1 << lo_bits;
    unsigned char *hi = t, *lo = t + nhi * es;
    ntt_elem stride;
    ntt_set_small(ops, lo, 1);
    for (size_t j = 1; j < nlo; j++)
        ops->mul(lo + j * es, lo + (j - 1) * es, step);
    ops->mul(&stride, lo + (nlo - 1) * es, step); /* step^(2^lo_bits) */
    memcpy(hi, c, es);
    for (size_t j = 1; j < nhi; j++)
        ops->mul(hi + j * es, hi + (j - 1) * es, &stride);
    return (cl_ntt_scale){hi, lo, lo_bits};
}

hpr_status ntt_on_device_columns(hpr_ctx *ctx, hpr_field field, unsigned log_n, cl_ntt_cols *cols,
                                 const hpr_ntt_opts *opts, char *why)
{
    ntt_plan pl;
    ntt_constants k;
    ntt_elem one;
    hpr_status st = HPR_OK;
    if (make_plan(ctx, field, log_n, opts, &pl) != HPR_OK || plan_constants(ctx, &pl, &k) != HPR_OK ||
        pl.order != HPR_NTT_NN || pl.row_major || pl.lde_log_rate) {
        snprintf(why, CL_DETAIL_LEN, "internal: ntt_on_device_columns takes a valid plan, order NN, column-major");
        return HPR_ERR_INTERNAL;
    }
    unsigned char *t = malloc(((pl.n >> (log_n / 2)) + ((size_t)1 << (log_n / 2))) * pl.ops->elem_bytes);
    if (k.no_tables || !t) {
        free(t);
        snprintf(why, CL_DETAIL_LEN, "NTT of %zu x 2^%u elements: out of memory", pl.columns, log_n);
        return HPR_ERR_OUT_OF_MEMORY;
    }
    ntt_set_small(pl.ops, &one, 1);
    cl_ntt_job job = ntt_butterfly_stage(&pl);
    cl_ntt_scale sc;
    if (pl.inverse)
        sc = scale_tables(&pl, &k.n_inv, pl.has_shift ? (const void *)&k.shift_dir : &one, t);
    else
        sc = scale_tables(&pl, &one, &k.shift_dir, t);
    int before = !pl.inverse && pl.has_shift;
    cl_twiddle_key key;
    memset(&key, 0, sizeof key); /* compared whole, padding too */
    key.field = (int)field, key.log_n = log_n, key.inverse = pl.inverse;
    memcpy(key.generator, pl.g_limbs, sizeof key.generator);
    if (cl_ntt_cols_transform(ctx->cl, cols, &job, k.tw.tw, &key, before ? &sc : NULL, pl.inverse ? &sc : NULL,
                              why) != 0)
        st = HPR_ERR_DEVICE;
    else
        progress_add(ctx, progress_ntt_units(pl.columns, log_n));
    free(t);
    return st;
}

/* The LDE of pl (checked; pl->lde_log_rate set) from in (columns of n coefficients) into out:
 * the coefficients checked (HPR_ERR_ELEMENT_OUT_OF_RANGE naming the first >= p, out
 * untouched), loaded into out, transformed there. */
static hpr_status run_lde(hpr_ctx *ctx, const ntt_plan *pl, const unsigned char *in, unsigned char *out, size_t n)
{
    size_t bad = ntt_first_out_of_range_on_pool(ctx, pl->ops, in, n * pl->columns);
    if (bad == SIZE_MAX)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "LDE of %zu x 2^%u coefficients: out of memory", pl->columns,
                        pl->log_n - pl->lde_log_rate);
    if (bad < n * pl->columns)
        return ctx_fail(ctx, HPR_ERR_ELEMENT_OUT_OF_RANGE, "coefficient %zu is not below the modulus p of %s", bad,
                        pl->ops->name);
    ntt_lde_load(ctx, pl, in, out, n);
    return run_plan(ctx, pl, out, DATA_IN_PLACE);
}

/* The header's rule for the LDE: in (columns of n coefficients) and out (columns of the
 * plan's size) must not overlap, since out is written while in is read. */
static hpr_status check_lde_overlap(hpr_ctx *ctx, const ntt_plan *pl, const void *in, size_t n, const void *out)
{
    uintptr_t a = (uintptr_t)in, b = (uintptr_t)out;
    uintptr_t in_bytes = pl->columns * n * pl->ops->elem_bytes, out_bytes = pl->columns * pl->n * pl->ops->elem_bytes;
    if (a < b + out_bytes && b < a + in_bytes)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "in and out overlap (in: %zu bytes at %p, out: %zu bytes at %p): the LDE needs "
                        "separate buffers",
                        (size_t)in_bytes, in, (size_t)out_bytes, out);
    return HPR_OK;
}

hpr_status ntt_lde_call(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, const char *shift,
                        size_t columns, const void *in, void *out)
{
    unsigned log_rate = rate == 2 ? 1 : rate == 4 ? 2 : rate == 8 ? 3 : 0;
    char g_dec[24];
    ntt_plan pl;
    hpr_status st;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (!log_rate)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "LDE rate %u is not 2, 4 or 8", rate);
    if (!in || !out)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "in and out must not be NULL");
    const ntt_field_ops *ops = field_ops(field);
    if (ops)
        snprintf(g_dec, sizeof g_dec, "%u", ops->generator);
    hpr_ntt_opts opts = {sizeof opts, 0, HPR_NTT_NN, shift ? shift : g_dec, NULL, columns, 0, "cpu"};
    if (ops && (uint64_t)log_n + log_rate > ops->two_adicity) /* before log_n + log_rate could wrap */
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "LDE of 2^%u coefficients at rate %u: 2^%llu points exceed the "
                        "two-adicity of %s (%u)", log_n, rate, (unsigned long long)log_n + log_rate, ops->name,
                        ops->two_adicity);
    if ((st = make_plan(ctx, field, log_n + log_rate, &opts, &pl)) != HPR_OK)
        return st;
    if ((st = check_lde_overlap(ctx, &pl, in, (size_t)1 << log_n, out)) != HPR_OK)
        return st;
    pl.lde_log_rate = log_rate;
    if ((st = mem_ntt_check(ctx, &pl)) != HPR_OK)
        return st;
    progress_begin(ctx, "ntt lde", progress_ntt_units(pl.columns, pl.log_n));
    if ((st = progress_check(ctx)) == HPR_OK)
        st = run_lde(ctx, &pl, in, out, (size_t)1 << log_n);
    return progress_end(ctx, st);
}
