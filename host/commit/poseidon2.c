/*
 * poseidon2.c: hpr_poseidon2_permute, Plonky3's Poseidon2 permutations on the caller's
 * states, and hpr_poseidon2_width.
 *
 * Method: every element is checked (< p, the first bad one named) before any state is
 * touched, so a refused call leaves the states as they were; then the context's CPU tier
 * (kernels_cpu/poseidon2_cpu.h: portable, AVX2 8 lanes, AVX-512 16 lanes, the same bits)
 * permutes them, on the pool in pieces of whole SIMD groups when there are enough states to
 * pay for waking the workers (PERMUTE_POOL_MIN), else on the caller's thread.
 */
#include "host/commit/merkle.h"
#include "host/commit/commit_calls.h"

#include <stdint.h>
#include <stdlib.h>

#define PERMUTE_POOL_MIN 256 /* states: below, the caller's thread alone (a few microseconds) */
#define PERMUTE_PIECE 64     /* states per pool task at least (4 AVX-512 groups) */

/* The kernels' instance of a public one; P2_INSTANCES for an unknown value. */
static p2_instance_id instance_id(hpr_poseidon2 instance)
{
    switch (instance) {
    case HPR_POSEIDON2_KOALABEAR_16: return P2_KOALABEAR_16;
    case HPR_POSEIDON2_KOALABEAR_24: return P2_KOALABEAR_24;
    case HPR_POSEIDON2_BABYBEAR_16: return P2_BABYBEAR_16;
    }
    return P2_INSTANCES;
}

unsigned p2_instance_width(hpr_poseidon2 instance)
{
    p2_instance_id id = instance_id(instance);
    return id == P2_INSTANCES ? 0 : p2_params_get(id)->width;
}

typedef struct {
    const p2_kernels *k;
    const p2_params *prm;
    uint32_t *states;
    size_t count, per;
} permute_job;

static void permute_task(void *arg, size_t task, unsigned worker)
{
    const permute_job *pj = arg;
    size_t b = task * pj->per, e = b + pj->per < pj->count ? b + pj->per : pj->count;
    (void)worker;
    pj->k->permute(pj->prm, pj->states + b * pj->prm->width, e - b);
}

hpr_status permute_call(hpr_ctx *ctx, hpr_poseidon2 instance, uint32_t *states, size_t count)
{
    p2_instance_id id = instance_id(instance);
    if (!ctx)
        return HPR_ERR_INVALID_ARGUMENT;
    ctx_call_begin(ctx);
    if (id == P2_INSTANCES)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT,
                        "Poseidon2 instance %d is unknown (koalabear-16 1, koalabear-24 2, babybear-16 3)",
                        (int)instance);
    const p2_params *prm = p2_params_get(id);
    if (count == 0)
        return HPR_OK;
    if (!states)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "states must not be NULL (%zu states)", count);
    if (count > SIZE_MAX / sizeof(uint32_t) / prm->width)
        return ctx_fail(ctx, HPR_ERR_INVALID_ARGUMENT, "%zu states of %u elements overflow the address space", count,
                        prm->width);
    size_t bad = merkle_first_out_of_range(ctx, states, count * prm->width, prm->p);
    if (bad == SIZE_MAX)
        return ctx_fail(ctx, HPR_ERR_OUT_OF_MEMORY, "Poseidon2 of %zu states: out of memory", count);
    if (bad < count * prm->width)
        return ctx_fail(ctx, HPR_ERR_ELEMENT_OUT_OF_RANGE,
                        "element %zu (state %zu, position %zu) is %u, not below the modulus p = %u of %s", bad,
                        bad / prm->width, bad % prm->width, states[bad], prm->p, prm->name);
    permute_job pj = {p2_kernels_for(ctx->cpu_tier), prm, states, count, count};
    size_t tasks = 1;
    if (count >= PERMUTE_POOL_MIN && ctx->threads > 1) {
        size_t want = (size_t)ctx->threads * 4;
        pj.per = (count + want - 1) / want;
        pj.per = pj.per < PERMUTE_PIECE ? PERMUTE_PIECE : (pj.per + 15) / 16 * 16;
        tasks = (count + pj.per - 1) / pj.per;
    }
    if (tasks == 1)
        permute_task(&pj, 0, 0);
    else
        rt_pool_run(ctx->pool, tasks, permute_task, &pj);
    return HPR_OK;
}
