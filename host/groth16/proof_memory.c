/*
 * proof_memory.c: what a Groth16 proof needs of the memory budget (host/core/memory_budget.h),
 * from the MSM and NTT engines' own estimates.
 *
 * A proof (host/groth16/groth16_*.c): held through it, the witness and h (32 bytes per value and
 * per row); then the largest phase: the .wtns bytes of prove_file (freed once parsed), h's three evaluation
 * columns with two twiddle tables, or one of the five MSMs (A, B1, B2 in G2, C over the
 * private witness, H over h) as above, each with its zkey section's pages (resident only
 * during its phase: host/groth16/zkey.h), h with the coefficient section's, and the MSMs
 * beside the NTTs' twiddle tables, which the context keeps after h. In order, what a
 * phase freed is handed back to the system before the next (malloc_trim: glibc keeps freed
 * blocks that are not at its heap's top resident). Under "all" with devices that can join,
 * the task graph: the CPU's largest task and the spill, each MSM's largest block (tasks run
 * side by side and the heap may put their blocks in fresh memory), beside each host device's
 * points (all five sets may become resident) and its largest MSM's buffers.
 */
#include "host/groth16/proof_memory.h"
#include "host/groth16/groth16_calls.h"
#include "host/core/devices.h"
#include "host/core/memory_budget.h"
#include "host/msm/msm_memory.h"
#include "host/ntt/ntt_memory.h"

#include <stdint.h>
#include <string.h>

#define MEM_PROOF_SLACK ((size_t)512 << 10) /* see MEM_CALL_SLACK */
#define PROOF_MSMS 5                        /* A, B1, B2, C, H */

static size_t page_round(size_t bytes)
{
    return mem_sat_add(bytes, 4095) & ~(size_t)4095;
}

static int aligned8(const void *p)
{
    return ((uintptr_t)p & 7) == 0;
}

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
    /* a witness read from a file: its bytes beside the values until they are parsed, then freed */
    size_t file_bytes = from_file ? nv * (size_t)zk->n8r + 4096 : 0;
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
    /* h's columns beside, first, the coefficient section's pages (resident while the
     * evaluations read them: zkey.h), then the NTTs' two twiddle tables (each batch's scratch
     * slots beside them). The tables stay in the context's cache (host/ntt/ntt_twiddles.c)
     * after h: resident through the MSMs too. */
    size_t tables = mem_sat_mul(2, mem_sat_add(mem_round(n * 32), mem_round(n * fr->kernel_twiddle_bytes)));
    size_t ntt_phase = mem_sat_add(ntt_mem_bytes(ctx, fr, n, 3, 0, dev, all), tables / 2);
    size_t coef_pages = page_round((size_t)zk->n_coef * (12 + zk->n8r));
    size_t h_order = mem_sat_add(mem_round(3 * n * 32), mem_max(coef_pages, ntt_phase));
    size_t order = h_order, pieces = h_order, spill = 0;
    size_t cpu = mem_sat_add(mem_round(3 * n * 32), ntt_mem_bytes(ctx, fr, n, 3, 0, NULL, 0));
    cpu = mem_sat_add(cpu, mem_sat_add(mem_round(n * 32), mem_round(n * fr->kernel_twiddle_bytes)));
    if (all)
        nhost = dev_host_devices(ctx, "all", devs, HPR_REPORT_MAX_DEVICES - 1, &gpus);
    size_t dev_msm = 0, resident = 0, sections = 0;
    /* the task graph's spill: the largest blocks of the MSMs that run beside one another,
     * which the heap may have put in fresh memory (see the top of this file) */
    size_t need[PROOF_MSMS], need_piece[PROOF_MSMS], largest[PROOF_MSMS];
    for (int i = 0; i < PROOF_MSMS; i++) {
        size_t m = pts[i].count;
        msm_points piece = {pts[i].host, msm_mem_smallest_piece(m), 0, 0, 0};
        /* the section's pages, resident during its MSM; an unaligned section is the MSM's
         * decoded copy instead (host/groth16/groth16_work.c), which its estimate counts */
        size_t section = !pre && aligned8(pts[i].host) ? page_round(m * ops[i]->affine_size) : 0;
        need[i] = mem_sat_add(mem_msm_need(ctx, ops[i], &pts[i], NULL, m, NULL), section);
        need_piece[i] = mem_sat_add(mem_msm_need(ctx, ops[i], &piece, NULL, piece.count, NULL), section);
        cpu = mem_max(cpu, msm_mem_cpu_job_bytes(ctx, ops[i], pts[i].host, NULL, m, NULL, &largest[i]));
        spill = mem_sat_add(spill, largest[i]);
        sections = mem_sat_add(sections, section);
        for (unsigned d = 0; d < nhost; d++) {
            dev_msm = mem_max(dev_msm, msm_mem_cl_host_bytes(devs[d], ops[i], m, 0));
            resident = mem_sat_add(resident, mem_sat_mul(m, ops[i]->affine_size));
        }
    }
    /* in order, what each task freed is handed back before the next (release_freed in
     * host/groth16/groth16_work.c, glibc's malloc_trim): no spill there; elsewhere the other
     * MSMs' largest blocks may stay resident beside each */
    for (int i = 0; i < PROOF_MSMS; i++) {
#ifdef __GLIBC__
        size_t beside = 0;
#else
        size_t beside = spill - largest[i];
#endif
        order = mem_max(order, mem_sat_add(mem_sat_add(need[i], beside), tables));
        pieces = mem_max(pieces, mem_sat_add(mem_sat_add(need_piece[i], beside), tables));
    }
    /* the task graph when a device joins: the CPU's largest task and every spill (any order)
     * beside the host devices' */
    size_t graph = mem_sat_add(mem_sat_add(cpu, spill), mem_sat_add(resident, mem_sat_mul(dev_msm, nhost)));
    size_t peak = nhost + gpus ? mem_sat_add(mem_sat_add(graph, sections), tables) : order; /* side by side: every section's pages */
    /* h's evaluations, kept for h's device (host/groth16/groth16_graph.c) beside the CPU's MSMs */
    if (nhost + gpus && !pre && ctx->knobs.g16_h_device != 0 && (gpus || ctx->knobs.g16_h_device == 1))
        peak = mem_sat_add(peak, mem_round(3 * n * 32));
    *full = mem_sat_add(mem_sat_add(held, MEM_PROOF_SLACK), mem_max(peak, file_bytes));
    *least = mem_sat_add(mem_sat_add(held, MEM_PROOF_SLACK), mem_max(pieces, file_bytes));
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

hpr_status groth16_memory_call(hpr_ctx *ctx, const hpr_groth16_prover *prover, int from_file, size_t *bytes)
{
    size_t full, least;
    if (bytes)
        *bytes = 0;
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    if (!prover || !bytes)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "memory estimate: the prover or the output is NULL");
    (void)mem_proof_need(ctx, g16_prover_zkey(prover), g16_prover_precomputed(prover), from_file != 0, &full, &least);
    *bytes = full;
    return HPR_OK;
}
