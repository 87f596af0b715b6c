/*
 * fuzz_r1cs_setup.c: libFuzzer target for the .r1cs reader and the development setup behind it.
 *
 * Input: a whole .r1cs. Each run: r1cs_parse (the strict reader of host/groth16/r1cs.c) on the
 * buffer; for an accepted circuit of at most 64 constraints and 64 wires, hpr_groth16_setup on
 * it (written to a temporary file: the setup takes a path) with a fixed seed, into memory.
 * Oracles: a refused file has a detail; an accepted one has consistent counts (wires beyond
 * the inputs, terms within the file's bytes); a small accepted circuit always sets up, and
 * the zkey it writes passes the prover's strict zkey parser with the circuit's sizes (nVars =
 * nWires, nPublic = outputs + public inputs, the domain the smallest power of two above the
 * rows), and its verification key is there.
 * Why the limits: the setup allocates 32 bytes per wire and row, and a header may claim 2^32
 * of them in a few bytes (refused elsewhere only when memory runs out, which ASan's allocator
 * reports as a crash); a run should stay under about 50 ms.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_support.h"

#include "host/groth16/r1cs.h"

#include <unistd.h>

#define SETUP_MAX 64u

typedef struct {
    unsigned char *data;
    size_t len, cap;
} mem_out;

static int write_mem(void *user, const void *bytes, size_t len)
{
    mem_out *m = user;
    if (m->len + len > m->cap) {
        size_t cap = 2 * (m->len + len);
        unsigned char *d = realloc(m->data, cap);
        if (!d)
            return -1;
        m->data = d;
        m->cap = cap;
    }
    memcpy(m->data + m->len, bytes, len);
    m->len += len;
    return 0;
}

/* The input as a file the setup can open: one temporary path for the process, rewritten. */
static const char *input_file(const uint8_t *data, size_t size)
{
    static char path[64];
    if (!path[0])
        snprintf(path, sizeof path, "/tmp/hyprove-fuzz-r1cs-%ld.r1cs", (long)getpid());
    FILE *f = fopen(path, "wb");
    FUZZ_CHECK(f != NULL);
    FUZZ_CHECK(fwrite(data, 1, size, f) == size);
    FUZZ_CHECK(fclose(f) == 0);
    return path;
}

static void check_setup(hpr_ctx *ctx, const r1cs_file *r, const uint8_t *data, size_t size)
{
    mem_out zkey = {0};
    char *vk = NULL;
    hpr_groth16_prover *prover = NULL;
    hpr_status st = hpr_groth16_setup(ctx, input_file(data, size), HPR_SETUP_INSECURE_DEV, "fuzz", write_mem, &zkey,
                                      &vk);
    FUZZ_CHECK(st == HPR_OK);
    FUZZ_CHECK(vk != NULL && strstr(vk, "\"protocol\": \"groth16\"") != NULL);
    FUZZ_CHECK(hpr_groth16_prover_create_from_buffer(ctx, zkey.data, zkey.len, &prover) == HPR_OK);
    size_t domain, n_vars, n_public, rows = (size_t)r->n_constraints + r->n_pub_out + r->n_pub_in + 1;
    hpr_groth16_prover_sizes(prover, &domain, &n_vars, &n_public);
    FUZZ_CHECK(hpr_groth16_prover_curve(prover) == r->curve);
    FUZZ_CHECK(n_vars == r->n_wires && n_public == (size_t)r->n_pub_out + r->n_pub_in);
    FUZZ_CHECK(domain >= rows && domain / 2 < rows);
    hpr_groth16_prover_destroy(prover);
    free(vk);
    free(zkey.data);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hpr_ctx *ctx = fuzz_ctx();
    r1cs_file r;
    if (r1cs_parse(ctx, data, size, "fuzz.r1cs", &r) != HPR_OK) {
        FUZZ_CHECK(hpr_ctx_error_detail(ctx)[0] != '\0');
        return 0;
    }
    FUZZ_CHECK((uint64_t)r.n_pub_out + r.n_pub_in + r.n_prv_in < r.n_wires);
    FUZZ_CHECK((r.n_terms[0] + r.n_terms[1] + r.n_terms[2]) * (4 + (uint64_t)r.n8) <= size);
    if (size > 0 && r.n_constraints <= SETUP_MAX && r.n_wires <= SETUP_MAX)
        check_setup(ctx, &r, data, size);
    r1cs_close(&r);
    return 0;
}
