/*
 * sized.h: the structs of the public API that begin with `size_t struct_size` (hyprove.h,
 * "Structs that grow"; docs/api.md). A struct crosses the API by these two calls only, so the
 * rule is in one place:
 *   - struct_size below the oldest layout this library takes (0 included: a caller that
 *     left the field out) is refused;
 *   - above the library's own size, it is taken when the caller's newer members are all zero
 *     bytes (a newer program that does not use them), refused otherwise;
 *   - the library reads and writes min(struct_size, its size) bytes; an output's struct_size
 *     becomes the bytes written.
 * Today every struct's oldest layout is its present one (the field came in 0.2.0); when a
 * struct grows, its call sites keep passing the 0.2.0 size as `oldest`.
 */
#ifndef HOST_CORE_SIZED_H
#define HOST_CORE_SIZED_H

#include "host/core/context.h"

/* What is wrong with the struct_size of the caller's struct p (not NULL) of the type named
 * `type`, whose size in this library is `ours`: HPR_OK, or HPR_ERR_INVALID_ARGUMENT with why
 * (why_len bytes). input: the members past ours must be zero (an output's are not read). */
RT_MUST_CHECK hpr_status sized_problem(const char *type, const void *p, size_t oldest, size_t ours, int input,
                                       char *why, size_t why_len);

/* min(the struct_size of the caller's struct p, ours): the bytes of it to read or write. */
size_t sized_bytes(const void *p, size_t ours);

/* A caller's input struct `in` (not NULL) copied into *copy (ours bytes; the members past the
 * caller's struct_size zero; its struct_size ours), or HPR_ERR_INVALID_ARGUMENT with why (for
 * a call without a context: hpr_ctx_create). */
RT_MUST_CHECK hpr_status sized_take(const char *type, const void *in, size_t oldest, size_t ours, void *copy,
                                    char *why, size_t why_len);

/* sized_take with the detail on ctx (ctx may be NULL: the status alone), the call's earlier
 * results cleared. */
RT_MUST_CHECK hpr_status sized_read(hpr_ctx *ctx, const char *type, const void *in, size_t oldest, size_t ours,
                                    void *copy);

/* The caller's output struct `out` (not NULL): checks its struct_size as sized_read does and sets
 * *bytes to what may be written (min(struct_size, ours)). Nothing is written here. */
RT_MUST_CHECK hpr_status sized_check_out(hpr_ctx *ctx, const char *type, const void *out, size_t oldest, size_t ours,
                                         size_t *bytes);

/* The usual case: the oldest layout is 0.2.0's, today's (see above). */
#define SIZED_READ(ctx, type, in, copy) sized_read(ctx, #type, in, sizeof(type), sizeof(type), copy)
#define SIZED_CHECK_OUT(ctx, type, out, bytes) sized_check_out(ctx, #type, out, sizeof(type), sizeof(type), bytes)

/* Writes the library's full struct `full` (ours bytes) into the caller's `out` checked by
 * sized_check_out: its first `bytes` bytes, then struct_size = bytes. */
void sized_write(void *out, const void *full, size_t bytes);

/* *count capped to the entries of an array that starts at byte `offset` of a struct, each
 * `entry` bytes, that lie within `bytes` of it (a report's devices, written no further than the
 * caller's struct). */
void sized_cap_entries(unsigned *count, size_t bytes, size_t offset, size_t entry);

#endif
