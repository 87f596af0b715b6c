/*
 * prover.c: libhyprove-rapidsnark, rapidsnark's C prover API (prover.h states the contract)
 * over hyprove's public API alone (hyprove.h).
 *
 * Method: a prover object is a context (default configuration: every core, every usable
 * device) and a Groth16 prover handle, with a mutex because a context serves one call at a
 * time. A proof is hpr_groth16_prove, then hpr_groth16_proof_json; the texts are copied into
 * the caller's buffers only when both fit with their NULs, as rapidsnark does. Size queries
 * read the zkey's header alone (hpr_groth16_zkey_sizes) on a one-thread CPU context, which
 * probes no device. hyprove's statuses become rapidsnark's codes (HPR_ERR_WITNESS_LENGTH is
 * PROVER_INVALID_WITNESS_LENGTH, every other failure PROVER_ERROR) and its failure detail
 * the error message.
 * Why a library of its own: rapidsnark's names (groth16_*) are not hyprove's, and programs
 * that link libhyprove alone should not get them; this library exports those nine functions
 * and nothing else (hidden visibility, tests/check_symbols.py).
 */
#define _POSIX_C_SOURCE 200809L
#include "prover.h"

#include "hyprove.h"

#include <fcntl.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#if defined(__GNUC__)
#define RS_API __attribute__((visibility("default")))
#else
#define RS_API
#endif

/* The largest proof.json of either curve with its NUL: 8 coordinates of at most 115 decimal
 * digits (BLS12-381's base field; BN254's have at most 77) and 198 bytes of snarkjs's layout
 * around them. The public capacity per signal: 77 digits, quotes, comma, space and newline. */
#define RS_PROOF_CAPACITY (8ull * 115 + 198 + 1)
#define RS_PUBLIC_CAPACITY(n) ((unsigned long long)(n) * 82 + 4)

typedef struct {
    pthread_mutex_t lock;
    hpr_ctx *ctx;
    hpr_groth16_prover *prover;
} rs_prover;

static void put_error(char *msg, unsigned long long max, const char *fmt, ...)
{
    va_list ap;
    if (!msg || max == 0)
        return;
    va_start(ap, fmt);
    vsnprintf(msg, (size_t)max, fmt, ap);
    va_end(ap);
}

/* "what: status: detail" into msg; the rapidsnark code of st. */
static int fail(const hpr_ctx *ctx, hpr_status st, const char *what, char *msg, unsigned long long max)
{
    const char *detail = ctx ? hpr_ctx_error_detail(ctx) : "";
    put_error(msg, max, "%s: %s%s%s", what, hpr_status_str(st), detail[0] ? ": " : "", detail);
    return st == HPR_ERR_WITNESS_LENGTH ? PROVER_INVALID_WITNESS_LENGTH : PROVER_ERROR;
}

/* A context that computes nothing: the CPU, one thread, no device probed. */
static hpr_status query_ctx(hpr_ctx **ctx)
{
    hpr_config cfg;
    hpr_config_default(&cfg);
    cfg.threads = 1;
    cfg.devices = "cpu";
    return hpr_ctx_create(&cfg, ctx);
}

static int public_size_of(const void *zkey, unsigned long long len, unsigned long long *public_size, char *msg,
                          unsigned long long max)
{
    hpr_ctx *ctx = NULL;
    size_t n_public = 0;
    int rc = PROVER_OK;
    hpr_status st = query_ctx(&ctx);
    if (st != HPR_OK)
        return fail(NULL, st, "creating a hyprove context", msg, max);
    if ((st = hpr_groth16_zkey_sizes(ctx, zkey, (size_t)len, NULL, NULL, NULL, &n_public)) != HPR_OK)
        rc = fail(ctx, st, "reading the zkey", msg, max);
    else
        *public_size = RS_PUBLIC_CAPACITY(n_public);
    hpr_ctx_destroy(ctx);
    return rc;
}

RS_API int groth16_public_size_for_zkey_buf(const void *zkey_buffer, unsigned long long zkey_size,
                                            unsigned long long *public_size, char *error_msg,
                                            unsigned long long error_msg_maxsize)
{
    if (!zkey_buffer || !public_size) {
        put_error(error_msg, error_msg_maxsize, "zkey_buffer and public_size must not be NULL");
        return PROVER_ERROR;
    }
    return public_size_of(zkey_buffer, zkey_size, public_size, error_msg, error_msg_maxsize);
}

RS_API int groth16_public_size_for_zkey_file(const char *zkey_fname, unsigned long long *public_size,
                                             char *error_msg, unsigned long long error_msg_maxsize)
{
    struct stat sb;
    void *map = MAP_FAILED;
    int rc = PROVER_ERROR, fd;
    if (!zkey_fname || !public_size) {
        put_error(error_msg, error_msg_maxsize, "zkey_fname and public_size must not be NULL");
        return PROVER_ERROR;
    }
    /* O_NONBLOCK: a FIFO must not block the open; it is refused below */
    if ((fd = open(zkey_fname, O_RDONLY | O_NONBLOCK)) < 0) {
        put_error(error_msg, error_msg_maxsize, "cannot open '%s'", zkey_fname);
        return PROVER_ERROR;
    }
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode) || sb.st_size == 0)
        put_error(error_msg, error_msg_maxsize, "'%s' is not a non-empty regular file", zkey_fname);
    else if ((map = mmap(NULL, (size_t)sb.st_size, PROT_READ, MAP_PRIVATE, fd, 0)) == MAP_FAILED)
        put_error(error_msg, error_msg_maxsize, "cannot map '%s'", zkey_fname);
    else
        rc = public_size_of(map, (unsigned long long)sb.st_size, public_size, error_msg, error_msg_maxsize);
    if (map != MAP_FAILED)
        munmap(map, (size_t)sb.st_size);
    close(fd);
    return rc;
}

RS_API void groth16_proof_size(unsigned long long *proof_size)
{
    if (proof_size)
        *proof_size = RS_PROOF_CAPACITY;
}

/* A prover object over the zkey at path, or (path NULL) over a copy of the buffer. */
static int create(void **prover_object, const char *path, const void *zkey, unsigned long long len, char *msg,
                  unsigned long long max)
{
    rs_prover *p;
    hpr_status st;
    int rc = PROVER_ERROR;
    if (!prover_object || (!path && !zkey)) {
        put_error(msg, max, "prover_object and the zkey must not be NULL");
        return PROVER_ERROR;
    }
    *prover_object = NULL;
    if (!(p = calloc(1, sizeof *p))) {
        put_error(msg, max, "out of memory");
        return PROVER_ERROR;
    }
    if (pthread_mutex_init(&p->lock, NULL) != 0) {
        put_error(msg, max, "cannot create a mutex");
        free(p);
        return PROVER_ERROR;
    }
    if ((st = hpr_ctx_create(NULL, &p->ctx)) != HPR_OK) {
        rc = fail(NULL, st, "creating a hyprove context", msg, max);
        goto out;
    }
    st = path ? hpr_groth16_prover_create(p->ctx, path, &p->prover)
              : hpr_groth16_prover_create_from_buffer(p->ctx, zkey, (size_t)len, &p->prover);
    if (st != HPR_OK) {
        rc = fail(p->ctx, st, "reading the zkey", msg, max);
        goto out;
    }
    *prover_object = p;
    p = NULL;
    rc = PROVER_OK;
out:
    groth16_prover_destroy(p);
    return rc;
}

RS_API int groth16_prover_create(void **prover_object, const void *zkey_buffer, unsigned long long zkey_size,
                                 char *error_msg, unsigned long long error_msg_maxsize)
{
    return create(prover_object, NULL, zkey_buffer, zkey_size, error_msg, error_msg_maxsize);
}

RS_API int groth16_prover_create_zkey_file(void **prover_object, const char *zkey_file_path, char *error_msg,
                                           unsigned long long error_msg_maxsize)
{
    if (!zkey_file_path) {
        put_error(error_msg, error_msg_maxsize, "zkey_file_path must not be NULL");
        return PROVER_ERROR;
    }
    return create(prover_object, zkey_file_path, NULL, 0, error_msg, error_msg_maxsize);
}

/* Both texts into the caller's buffers when both fit with their NULs. Else the sizes to retry
 * with: the public text's own (the same for every proof of this witness) and, for the proof,
 * the capacity that every proof fits (a proof's length varies with its random r and s, so
 * its own length could fall short on the retry that rapidsnark's callers make). */
static int deliver(const char *proof, const char *pub, char *proof_buffer, unsigned long long *proof_size,
                   char *public_buffer, unsigned long long *public_size, char *msg, unsigned long long max)
{
    unsigned long long need_proof = strlen(proof) + 1ull, need_public = strlen(pub) + 1ull;
    if (*proof_size < need_proof || *public_size < need_public) {
        put_error(msg, max, "buffers too short: proof needs %llu bytes (%llu given), public %llu (%llu given)",
                  need_proof, *proof_size, need_public, *public_size);
        *proof_size = need_proof > RS_PROOF_CAPACITY ? need_proof : RS_PROOF_CAPACITY;
        *public_size = need_public;
        return PROVER_ERROR_SHORT_BUFFER;
    }
    memcpy(proof_buffer, proof, (size_t)need_proof);
    memcpy(public_buffer, pub, (size_t)need_public);
    *proof_size = need_proof - 1;
    *public_size = need_public - 1;
    return PROVER_OK;
}

RS_API int groth16_prover_prove(void *prover_object, const void *wtns_buffer, unsigned long long wtns_size,
                                char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                                unsigned long long *public_size, char *error_msg,
                                unsigned long long error_msg_maxsize)
{
    rs_prover *p = prover_object;
    hpr_groth16_proof proof = {.struct_size = sizeof proof};
    char *pj = NULL, *uj = NULL;
    int rc;
    if (!p || !wtns_buffer || !proof_buffer || !proof_size || !public_buffer || !public_size) {
        put_error(error_msg, error_msg_maxsize, "%s must not be NULL",
                  !p ? "prover_object" : !wtns_buffer ? "wtns_buffer" : !proof_buffer ? "proof_buffer"
                  : !proof_size ? "proof_size" : !public_buffer ? "public_buffer" : "public_size");
        return PROVER_ERROR;
    }
    pthread_mutex_lock(&p->lock);
    hpr_status st = hpr_groth16_prove(p->ctx, p->prover, wtns_buffer, (size_t)wtns_size, &proof);
    if (st != HPR_OK) {
        rc = fail(p->ctx, st, "proving", error_msg, error_msg_maxsize);
        pthread_mutex_unlock(&p->lock);
        return rc;
    }
    pthread_mutex_unlock(&p->lock);
    st = hpr_groth16_proof_json(&proof, &pj, &uj);
    hpr_groth16_proof_clear(&proof);
    if (st != HPR_OK)
        rc = fail(NULL, st, "formatting the proof", error_msg, error_msg_maxsize);
    else
        rc = deliver(pj, uj, proof_buffer, proof_size, public_buffer, public_size, error_msg, error_msg_maxsize);
    free(pj);
    free(uj);
    return rc;
}

RS_API void groth16_prover_destroy(void *prover_object)
{
    rs_prover *p = prover_object;
    if (!p)
        return;
    hpr_groth16_prover_destroy(p->prover);
    hpr_ctx_destroy(p->ctx);
    pthread_mutex_destroy(&p->lock);
    free(p);
}

/* create (from a file when path is not NULL), prove, destroy */
static int one_shot(const char *path, const void *zkey, unsigned long long zkey_size, const void *wtns,
                    unsigned long long wtns_size, char *proof_buffer, unsigned long long *proof_size,
                    char *public_buffer, unsigned long long *public_size, char *msg, unsigned long long max)
{
    void *prover = NULL;
    int rc = path ? groth16_prover_create_zkey_file(&prover, path, msg, max)
                  : groth16_prover_create(&prover, zkey, zkey_size, msg, max);
    if (rc != PROVER_OK)
        return rc;
    rc = groth16_prover_prove(prover, wtns, wtns_size, proof_buffer, proof_size, public_buffer, public_size, msg, max);
    groth16_prover_destroy(prover);
    return rc;
}

RS_API int groth16_prover(const void *zkey_buffer, unsigned long long zkey_size, const void *wtns_buffer,
                          unsigned long long wtns_size, char *proof_buffer, unsigned long long *proof_size,
                          char *public_buffer, unsigned long long *public_size, char *error_msg,
                          unsigned long long error_msg_maxsize)
{
    if (!zkey_buffer) {
        put_error(error_msg, error_msg_maxsize, "zkey_buffer must not be NULL");
        return PROVER_ERROR;
    }
    return one_shot(NULL, zkey_buffer, zkey_size, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer,
                    public_size, error_msg, error_msg_maxsize);
}

RS_API int groth16_prover_zkey_file(const char *zkey_file_path, const void *wtns_buffer, unsigned long long wtns_size,
                                    char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                                    unsigned long long *public_size, char *error_msg,
                                    unsigned long long error_msg_maxsize)
{
    if (!zkey_file_path) {
        put_error(error_msg, error_msg_maxsize, "zkey_file_path must not be NULL");
        return PROVER_ERROR;
    }
    return one_shot(zkey_file_path, NULL, 0, wtns_buffer, wtns_size, proof_buffer, proof_size, public_buffer,
                    public_size, error_msg, error_msg_maxsize);
}
