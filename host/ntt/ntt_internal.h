/*
 * ntt_internal.h: what the NTT's files share (host/ntt*.c), from the bottom up:
 *   ntt_twiddles.c  the context's twiddle cache;
 *   ntt_pipeline.c  the CPU's stages of one transform: range checks, conversions, the host
 *                   work before and after the butterflies, the butterflies on the CPU;
 *   ntt_split.c     the work dealt across devices: the columns of a batch over the
 *                   scheduler, one large column by four steps;
 *   ntt.c           the entry points, the plan, the dispatch between a device, the CPU and
 *                   the split.
 * A file calls only the files below it.
 *
 * Forms: "canonical" is the caller's little-endian integer < p (elem_bytes each); "internal"
 * is the field's own form in ntt_field_ops (kernels_cpu/ntt_cpu.h): reduced Montgomery for
 * BN254 Fr, BLS12-381 Fr, BabyBear and KoalaBear, canonical words for Goldilocks.
 */
#ifndef HOST_NTT_INTERNAL_H
#define HOST_NTT_INTERNAL_H

#include "host/core/context.h"
#include "kernels_cpu/ntt_cpu.h"
#include "runtime/opencl/cl_ntt.h"

#include <stddef.h>
#include <stdint.h>

/* room for one element of any field, aligned for every internal form */
typedef struct {
    uint64_t l[4];
} ntt_elem;

/* The twiddle tables of one transform: tw for the OpenCL kernels, cpu for the CPU's. */
typedef struct {
    const void *tw, *cpu;
} ntt_tables;

/* One transform (or a batch of columns) as the entry points checked and resolved it. */
typedef struct {
    const ntt_field_ops *ops;
    hpr_field field;
    unsigned log_n;
    size_t n, columns;
    int row_major;
    int inverse;
    hpr_ntt_order order;
    ntt_elem shift, g; /* internal form */
    uint64_t g_limbs[4];
    int has_shift;
    cl_dev *dev; /* the OpenCL device of the butterflies, or NULL for the CPU */
    int all;     /* "all": columns dealt to every usable device by the scheduler */
    unsigned lde_log_rate; /* > 0: a low-degree extension, only the first n >> lde_log_rate
                            * elements of each column are nonzero (CPU only) */
} ntt_plan;

/* ---- host/ntt/ntt.c ---- */

/* hpr_ntt over data (column-major) already in the internal form of a 256-bit field (reduced
 * Montgomery, as fe_impl.h's bn254_fr / bls12_381_fr), transformed in place: no range check
 * and no conversion (the Groth16 prover's h). The plan's arguments are checked as hpr_ntt
 * does; row_major or a field not of 32-byte elements is HPR_ERR_INTERNAL. */
/* hpr_ntt without the call lock: for a thread working for the call that holds it (a cluster
 * call's rank 0 runs its tiles on a worker thread, host/cluster/cluster.c). */
RT_MUST_CHECK hpr_status ntt_call(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data, const hpr_ntt_opts *opts);
RT_MUST_CHECK hpr_status ntt_internal_form(hpr_ctx *ctx, hpr_field field, unsigned log_n, void *data,
                                           const hpr_ntt_opts *opts);

/* The transform opts describes (order NN, column-major, device "cpu") of every column of
 * cols, kept on their device (runtime/opencl/cl_ntt.h): the host's scalings (forward:
 * shift^i before; inverse: n^-1 shift^-i after) run there too, from small tables, so the
 * columns stay on the device, the same bits as ntt_internal_form. Adds the call's progress
 * units. For a device's thread: the context's detail is not written; why (CL_DETAIL_LEN)
 * says what failed: HPR_ERR_DEVICE (the columns then unspecified: the caller redoes the work
 * from its copy), HPR_ERR_OUT_OF_MEMORY, HPR_ERR_INTERNAL for opts it does not take. */
RT_MUST_CHECK hpr_status ntt_on_device_columns(hpr_ctx *ctx, hpr_field field, unsigned log_n, cl_ntt_cols *cols,
                                               const hpr_ntt_opts *opts, char *why);

/* ---- host/ntt/ntt_split.c ---- */

/* The butterfly stage (ntt_butterfly_stage) of pl's columns of work (column-major, internal
 * form, the host's steps before done), dealt by the scheduler to the CPU and every usable
 * OpenCL device, one column per item; a failed tile is redone by another device. Fills the
 * context's run report (reset first). tw: the plan's tables (ntt_twiddles). HPR_ERR_DEVICE
 * (with detail) when every device is dropped. */
RT_MUST_CHECK hpr_status ntt_columns_on_every_device(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *work,
                                                     const ntt_tables *tw);

/* Whether one column of pl runs four-step across devices: not an LDE, at least 2^10
 * elements, and an OpenCL device other than a CPU usable (or, with the knob ntt_four_step,
 * any usable OpenCL device). Asks for the devices (dev_pick_opencl) only when the size
 * qualifies. */
int ntt_four_step_pays(hpr_ctx *ctx, const ntt_plan *pl);

/* The butterfly stage of pl's one column a (internal form; natural or bit-reversed as
 * ntt_butterfly_stage says) by four steps over every usable device, the same bits as one
 * device. tw: the plan's tables; w: the plan's root of order n in its direction (internal
 * form). The run report covers both batches of sub-NTTs. HPR_ERR_OUT_OF_MEMORY, or
 * HPR_ERR_DEVICE as ntt_columns_on_every_device (a then unspecified). */
RT_MUST_CHECK hpr_status ntt_four_step(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *a, const ntt_tables *tw,
                                       const void *w);

/* ---- host/ntt/ntt_pipeline.c ---- */

#define NTT_COPY_CHUNK 16384 /* elements per task of the checks and copies */

/* elem = v (v < p) in the internal form of ops. */
void ntt_set_small(const ntt_field_ops *ops, void *elem, uint64_t v);

/* r = x^-1 = x^(p-2) (internal form; x nonzero, not checked: 0 gives 0). */
void ntt_invert(const ntt_field_ops *ops, void *r, const void *x);

/* w = g^((p-1) / 2^log_n) (internal form, g too); 0 if w has order exactly 2^log_n
 * (w^(n/2) = -1), else -1. log_n <= the field's two-adicity (not checked). */
RT_MUST_CHECK int ntt_primitive_root(const ntt_field_ops *ops, const void *g, unsigned log_n, void *w);

/* The first element >= p among count canonical elements at data (nothing written), or
 * count if all are below p; SIZE_MAX without memory. On the pool. */
RT_MUST_CHECK size_t ntt_first_out_of_range_on_pool(hpr_ctx *ctx, const ntt_field_ops *ops,
                                                    const unsigned char *data, size_t count);

/* data <-> work for pl's columns, on the pool, a progress unit per element (no conversion:
 * the transforms take canonical elements as they are, see ntt_pipeline.c). back = 0: the
 * canonical elements of data (column-major, or row-major when pl->row_major) checked and
 * copied into work, column-major; returns the first index of data >= p, or SIZE_MAX if none
 * (work is unspecified when one is found). back = 1: work back into data, in the caller's
 * layout (nothing checked); returns SIZE_MAX. first_bad: scratch of one size_t per
 * NTT_COPY_CHUNK elements (rounded up). */
size_t ntt_copy_columns(hpr_ctx *ctx, const ntt_plan *pl, unsigned char *data, unsigned char *work, int back,
                   size_t *first_bad);

/* The LDE's input loaded into out: each of pl->columns columns of n canonical coefficients
 * of in (column-major, already checked < p: not checked again) becomes a column of pl->n
 * elements of out, the coefficients as they are (see ntt_copy_columns), then zeros. On the pool. */
void ntt_lde_load(hpr_ctx *ctx, const ntt_plan *pl, const unsigned char *in, unsigned char *out, size_t n);

/* Whether pl's input (output) is in bit-reversed order (orders RN, RR; NR, RR). */
int ntt_input_reversed(const ntt_plan *pl);
int ntt_output_reversed(const ntt_plan *pl);

/* What the butterfly stage of one column of pl does, on the CPU or a device: forward, DIF
 * (natural -> bit-reversed) then a bit reversal for a natural output; inverse, a bit reversal
 * of a natural input then DIT (bit-reversed -> natural). */
cl_ntt_job ntt_butterfly_stage(const ntt_plan *pl);

/* The host's steps of one column a (internal form) before its butterflies: forward only,
 * [bit-reverse a reversed input] [scale by shift^i], or for an LDE the zero-padded
 * coefficients turned into scaled segments (see ntt_pipeline.c). shift: the plan's shift in
 * its direction, w: the plan's root in its direction (internal form). */
void ntt_before_butterflies(hpr_ctx *ctx, const ntt_plan *pl, void *a, const void *shift, const void *w);

/* The butterfly stage (ntt_butterfly_stage) of one column a (internal form) on the CPU's
 * pool, with tw->cpu; for an LDE, one DIF per segment. Adds n log_n progress units (host/core/progress.h). */
void ntt_butterflies_on_cpu(hpr_ctx *ctx, const ntt_plan *pl, void *a, const ntt_tables *tw);

/* The host's steps of one column a (internal form) after its butterflies: inverse only,
 * scale by n^-1 shift^-i, [bit-reverse for a reversed output]. shift_inv, n_inv: internal
 * form. */
void ntt_after_butterflies(hpr_ctx *ctx, const ntt_plan *pl, void *a, const void *shift_inv, const void *n_inv);

/* ---- host/ntt/ntt_twiddles.c ---- */

/* The twiddle tables for (ops, generator g_limbs (canonical), direction) of at least 2^log_n
 * entries for the root w (internal form, of order 2^log_n: not checked), from the context's
 * cache or computed and cached (the tables stay the cache's). -1 without memory, else 0. */
RT_MUST_CHECK int ntt_twiddles(hpr_ctx *ctx, const ntt_field_ops *ops, const uint64_t *g_limbs, const void *w,
                               int inverse, unsigned log_n, ntt_tables *out);

/* Frees a context's twiddle cache (NULL: nothing). */
void ntt_twiddle_cache_free(ntt_twiddle_cache *cache);

#endif
