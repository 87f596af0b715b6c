/*
 * proof_memory.c: what a Groth16 proof needs of the memory budget (host/core/memory_budget.h),
 * from the MSM and NTT engines' own estimates.
 *
 * A proof (host/groth16/groth16_*.c): held through it, the .wtns bytes (prove_file), the witness
 * and h (32 bytes per value and per row); then the largest phase: h's three evaluation
 * columns with two twiddle tables, or one of the five MSMs (A, B1, B2 in G2, C over the
 * private witness, H over h) as above, beside the spill of the other MSMs: the C
 * library's heap keeps what a phase frees and reuses it, but puts the next phase's small
 * blocks into those holes first, so that a 2 MiB-aligned large block then takes fresh
 * memory (traced with glibc 2.36: at 2^16 the decoded points of two of the five MSMs did);
 * the spill counts each other MSM's largest block. Under "all" with devices that can
 * join, the task graph: the CPU's largest task and every spill beside each host device's
 * points (all five sets may become resident) and its largest MSM's buffers.
 */
#include "host/groth16/proof_memory.h"
#include "host/core/devices.h"
#include "host/core/memory_budget.h"
#include "host/msm/msm_memory.h"
#include "host/ntt/ntt_memory.h"

#include <string.h>

#define MEM_PROOF_SLACK ((size_t)512 << 10) /* see MEM_CALL_SLACK */
#define PROOF_MSMS 5                        /* A, B1, B2, C, H */

size_t mem_proof_need(hpr_ctx *ctx, const zkey_file *zk, const g16_precomputed *pre, int from_file, size_t *full,
                      size_t *least)
{
    const msm_curve_ops *g1 = msm_ops(zk->curve, HPR_G1), *g2 = msm_ops(zk->curve, HPR_G2);
    const ntt_field_ops *fr =
        ntt_field_ops_for(zk->curve == HPR_CURVE_BN254 ? HPR_FIELD_BN254_FR : HPR_FIELD_BLS12_381_FR, ctx->cpu_tier);
    size_t n = zk->domain_size, nv = zk->n_vars, npriv = nv - zk->n_public - 1;
    size_t held = mem_sat_add(mem_round(n * 32), mem_round(nv * 32 + 1)), f = pre ? pre->f : 1;
    if (pre) /* the slices of w and h */
        held = mem_sat_add(held, mem_sat_add(mem_round(32 * f * nv), mem_round(32 * f * n)));
    if (from_file)
        held = mem_sat_add(held, nv * (size_t)zk->n8r + 4096);
    if (!g1 || !g2 || !fr) {
        *full = *least = held;
        return held;
    }
    const msm_points pts[PROOF_MSMS] = {{pre ? pre->points[0] : zk->a, f * nv, 1, 1, 0},
                                       {pre ? pre->points[1] : zk->b1, f * nv, 1, 1, 0},
                                       {pre ? pre->points[2] : zk->b2, f * nv, 1, 1, 0},
                                       {pre ? pre->points[3] : zk->c, f * npriv, 1, 1, 0},
                                       {pre ? pre->points[4] : zk->h, f * n, 1, 1, 0}};
    const msm_curve_ops *ops[PROOF_MSMS] = {pre ? &pre->ops[0] : g1, pre ? &pre->ops[0] : g1,
                                            pre ? &pre->ops[1] : g2, pre ? &pre->ops[0] : g1,
                                            pre ? &pre->ops[0] : g1};
    cl_dev *devs[HPR_REPORT_MAX_DEVICES], *dev = NULL;
    unsigned gpus = 0, nhost = 0;
    int all = strcmp(ctx->device, "all") == 0;
    if (!all && strcmp(ctx->device, "cpu") != 0 && dev_resolve(ctx, ctx->device, &dev) != HPR_OK)
        ctx->detail[0] = '\0';
    /* h's columns and two twiddle tables (each batch's scratch slots beside them) */
    size_t h_order = mem_sat_add(mem_round(3 * n * 32), ntt_mem_bytes(ctx, fr, n, 3, 0, dev, all));
    h_order = mem_sat_add(h_order, mem_sat_add(mem_round(n * 32), fr->kernel_twiddles ? mem_round(n * 64) : 0));
    size_t order = h_order, pieces = h_order, spill = 0, spill_pieces = 0;
    size_t cpu = mem_sat_add(mem_round(3 * n * 32), ntt_mem_bytes(ctx, fr, n, 3, 0, NULL, 0));
    cpu = mem_sat_add(cpu, mem_sat_add(mem_round(n * 32), fr->kernel_twiddles ? mem_round(n * 64) : 0));
    if (all)
        nhost = dev_host_devices(ctx, "all", devs, HPR_REPORT_MAX_DEVICES - 1, &gpus);
    size_t dev_msm = 0, resident = 0;
    /* each MSM beside the largest blocks of the others, which the heap may have put in fresh
     * memory (spill: see the top of this file) */
    size_t need[PROOF_MSMS], need_piece[PROOF_MSMS], largest[PROOF_MSMS], largest_piece[PROOF_MSMS];
    for (int i = 0; i < PROOF_MSMS; i++) {
        size_t m = pts[i].count;
        msm_points piece = {pts[i].host, msm_mem_smallest_piece(m), 0, 0, 0};
        need[i] = mem_msm_need(ctx, ops[i], &pts[i], NULL, m, NULL);
        need_piece[i] = mem_msm_need(ctx, ops[i], &piece, NULL, piece.count, NULL);
        cpu = mem_max(cpu, msm_mem_cpu_job_bytes(ctx, ops[i], pts[i].host, NULL, m, NULL, &largest[i]));
        (void)msm_mem_cpu_job_bytes(ctx, ops[i], pts[i].host, NULL, piece.count, NULL, &largest_piece[i]);
        spill = mem_sat_add(spill, largest[i]);
        spill_pieces = mem_sat_add(spill_pieces, largest_piece[i]);
        for (unsigned d = 0; d < nhost; d++) {
            dev_msm = mem_max(dev_msm, msm_mem_cl_host_bytes(devs[d], ops[i], m, 0));
            resident = mem_sat_add(resident, mem_sat_mul(m, ops[i]->affine_size));
        }
    }
    for (int i = 0; i < PROOF_MSMS; i++) {
        order = mem_max(order, mem_sat_add(need[i], spill - largest[i]));
        pieces = mem_max(pieces, mem_sat_add(need_piece[i], spill_pieces - largest_piece[i]));
    }
    /* the task graph when a device joins: the CPU's largest task and every spill (any order)
     * beside the host devices' */
    size_t peak = nhost + gpus ? mem_sat_add(mem_sat_add(cpu, spill), mem_sat_add(resident, mem_sat_mul(dev_msm, nhost))) : order;
    /* h's evaluations, kept for h's device (host/groth16/groth16_graph.c) beside the CPU's MSMs */
    if (nhost + gpus && !pre && ctx->knobs.g16_h_device != 0 && (gpus || ctx->knobs.g16_h_device == 1))
        peak = mem_sat_add(peak, mem_round(3 * n * 32));
    *full = mem_sat_add(mem_sat_add(held, MEM_PROOF_SLACK), peak);
    *least = mem_sat_add(mem_sat_add(held, MEM_PROOF_SLACK), pieces);
    return held;
}

hpr_status mem_proof_begin(hpr_ctx *ctx, const zkey_file *zk, const g16_precomputed *pre, int from_file)
{
    mem_limit lim;
    size_t full, least, held = mem_proof_need(ctx, zk, pre, from_file, &full, &least);
    ctx->mem.held = 0;
    ctx->mem.in_order = 0;
    if (mem_budget_fits(ctx, full, &lim)) {
        ctx->mem.held = held;
        return HPR_OK;
    }
    if (least < full && mem_budget_fits(ctx, least, &lim)) {
        ctx->mem.held = held;
        ctx->mem.in_order = 1;
        return HPR_OK;
    }
    return mem_refuse(ctx, "the proof", full, least < full ? least : 0, "with its phases in order and its MSMs in pieces",
                  &lim);
}

hpr_status mem_proof_end(hpr_ctx *ctx, hpr_status st)
{
    ctx->mem.held = 0;
    ctx->mem.in_order = 0;
    return st;
}
