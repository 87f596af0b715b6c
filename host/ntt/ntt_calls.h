/*
 * ntt_calls.h: the entries of the NTT engine (NTTs, LDEs, fields) that host/api/ calls.
 * Each *_call function is the body of one public call: host/api/ takes the call lock
 * (ctx_enter / ctx_leave) around it; inside the library they are called directly, never
 * through the hpr_ API (the lock is not recursive). Contracts: those of the hpr_ function
 * that host/api/ defines over each (host/include/hyprove.h); each checks its own arguments.
 */
#ifndef HOST_NTT_NTT_CALLS_H
#define HOST_NTT_NTT_CALLS_H

#include "host/ntt/ntt_internal.h"

size_t ntt_field_element_size(hpr_field field);
unsigned ntt_field_two_adicity(hpr_field field);
hpr_status ntt_lde_call(hpr_ctx *ctx, hpr_field field, unsigned log_n, unsigned rate, const char *shift,
                        size_t columns, const void *in, void *out);

#endif
