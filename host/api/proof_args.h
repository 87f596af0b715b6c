/*
 * proof_args.h: a caller's hpr_groth16_proof (and the report it points to) on the way into and
 * out of the proving calls (host/api/groth16.c, host/api/cluster.c). The engine writes a full
 * proof and report of this library; the caller's structs get the bytes their struct_size
 * allows (host/core/sized.h), the report's failed[] entries capped to what it holds.
 */
#ifndef HOST_API_PROOF_ARGS_H
#define HOST_API_PROOF_ARGS_H

#include "host/core/sized.h"
#include "host/groth16/groth16_calls.h"

#include <stddef.h>
#include <string.h>

typedef struct {
    hpr_groth16_proof *caller, *proof; /* proof: NULL where the caller's is (the engine says so) */
    hpr_groth16_report *caller_report;
    hpr_groth16_proof full;
    hpr_groth16_report report;
    size_t bytes, report_bytes;
} proof_args;

/* Checks the caller's proof and report sizes (HPR_ERR_INVALID_ARGUMENT with the detail on ctx). */
static inline hpr_status proof_args_begin(hpr_ctx *ctx, hpr_groth16_proof *proof, proof_args *a)
{
    memset(a, 0, sizeof *a);
    a->caller = proof;
    if (!proof)
        return HPR_OK;
    hpr_status st = SIZED_CHECK_OUT(ctx, hpr_groth16_proof, proof, &a->bytes);
    if (st == HPR_OK && proof->report)
        st = SIZED_CHECK_OUT(ctx, hpr_groth16_report, proof->report, &a->report_bytes);
    if (st != HPR_OK)
        return st;
    a->caller_report = proof->report;
    a->full.report = proof->report ? &a->report : NULL;
    a->proof = &a->full;
    return HPR_OK;
}

/* Hands the engine's proof and report to the caller; returns st. */
static inline hpr_status proof_args_end(proof_args *a, hpr_status st)
{
    if (!a->caller)
        return st;
    if (a->caller_report) {
        sized_cap_entries(&a->report.nfailed, a->report_bytes, offsetof(hpr_groth16_report, failed),
                          sizeof a->report.failed[0]);
        sized_write(a->caller_report, &a->report, a->report_bytes);
    }
    a->full.report = a->caller_report;
    sized_write(a->caller, &a->full, a->bytes);
    return st;
}

#endif
