/*
 * rapidsnark_compat.c: a program written to rapidsnark's C API (prover.h), in the call
 * sequence rapidsnark documents, run against libhyprove-rapidsnark. It checks the contract
 * and writes the proofs, which tests/rapidsnark_compat.py verifies with snarkjs.
 *
 * usage: rapidsnark_compat CIRCUIT.zkey WITNESS.wtns OTHER.wtns OUTDIR
 * OTHER.wtns is a witness of another length (PROVER_INVALID_WITNESS_LENGTH). Writes
 * OUTDIR/{buffer1,buffer2,file,oneshot,oneshot_file,thread0,thread1}.{proof,public}.json.
 * Exit status 0 when every check passed, 1 otherwise (each check prints ok or FAIL).
 */
#define _POSIX_C_SOURCE 200809L
#include "prover.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int failures;

static void check(int cond, const char *what)
{
    printf("%s %s\n", cond ? "ok  " : "FAIL", what);
    if (!cond)
        failures++;
}

static unsigned char *read_all(const char *path, unsigned long long *len)
{
    FILE *f = fopen(path, "rb");
    unsigned char *buf = NULL;
    long n;
    if (!f || fseek(f, 0, SEEK_END) != 0 || (n = ftell(f)) < 0 || fseek(f, 0, SEEK_SET) != 0 ||
        !(buf = malloc((size_t)n + 1)) || fread(buf, 1, (size_t)n, f) != (size_t)n) {
        fprintf(stderr, "cannot read %s\n", path);
        exit(2);
    }
    fclose(f);
    *len = (unsigned long long)n;
    return buf;
}

static void write_text(const char *dir, const char *name, const char *kind, const char *text)
{
    char path[4096];
    snprintf(path, sizeof path, "%s/%s.%s.json", dir, name, kind);
    FILE *f = fopen(path, "w");
    if (!f || fputs(text, f) < 0 || fclose(f) != 0) {
        fprintf(stderr, "cannot write %s\n", path);
        exit(2);
    }
}

typedef struct {
    unsigned long long proof_cap, public_cap;
    const char *outdir;
} sizes;

/* One prove with buffers of the advertised capacities; writes the files under name. */
static void prove_into(void *prover, const unsigned char *wtns, unsigned long long wtns_len, const sizes *sz,
                       const char *name)
{
    char *proof = malloc(sz->proof_cap), *pub = malloc(sz->public_cap), err[256] = "", what[400];
    unsigned long long proof_size = sz->proof_cap, public_size = sz->public_cap;
    int rc = groth16_prover_prove(prover, wtns, wtns_len, proof, &proof_size, pub, &public_size, err, sizeof err);
    snprintf(what, sizeof what, "%s: groth16_prover_prove gives PROVER_OK (%s)", name, err);
    check(rc == PROVER_OK, what);
    if (rc == PROVER_OK) {
        snprintf(what, sizeof what, "%s: the sizes out are the lengths without the NUL", name);
        check(proof_size == strlen(proof) && public_size == strlen(pub), what);
        write_text(sz->outdir, name, "proof", proof);
        write_text(sz->outdir, name, "public", pub);
    }
    free(proof);
    free(pub);
}

typedef struct {
    void *prover;
    const unsigned char *wtns;
    unsigned long long len;
    const sizes *sz;
    const char *name;
} thread_job;

static void *thread_main(void *arg)
{
    thread_job *j = arg;
    prove_into(j->prover, j->wtns, j->len, j->sz, j->name);
    return NULL;
}

static void check_short_buffer(void *prover, const unsigned char *wtns, unsigned long long wtns_len, const sizes *sz)
{
    char small[16], pub[8192], err[256] = "";
    unsigned long long proof_size = sizeof small, public_size = sizeof pub;
    memset(small, 'Z', sizeof small);
    int rc = groth16_prover_prove(prover, wtns, wtns_len, small, &proof_size, pub, &public_size, err, sizeof err);
    check(rc == PROVER_ERROR_SHORT_BUFFER, "a 16-byte proof buffer gives PROVER_ERROR_SHORT_BUFFER");
    check(proof_size == sz->proof_cap, "the short buffer's size out is groth16_proof_size's, which every proof fits");
    check(small[0] == 'Z' && small[15] == 'Z', "nothing is written into a short buffer");
    check(strstr(err, "short") != NULL, "the short buffer's error message says so");
    /* rapidsnark's documented retry: buffers of the sizes returned */
    char *proof = malloc(proof_size), *pub2 = malloc(public_size);
    unsigned long long ps = proof_size, us = public_size;
    rc = groth16_prover_prove(prover, wtns, wtns_len, proof, &ps, pub2, &us, err, sizeof err);
    check(rc == PROVER_OK, "the retry with the sizes returned succeeds");
    free(proof);
    free(pub2);
}

int main(int argc, char **argv)
{
    if (argc != 5) {
        fprintf(stderr, "usage: rapidsnark_compat CIRCUIT.zkey WITNESS.wtns OTHER.wtns OUTDIR\n");
        return 2;
    }
    unsigned long long zkey_len, wtns_len, other_len, public_file = 0, public_buf = 0;
    unsigned char *zkey = read_all(argv[1], &zkey_len), *wtns = read_all(argv[2], &wtns_len);
    unsigned char *other = read_all(argv[3], &other_len);
    char err[256] = "";
    sizes sz = {0, 0, argv[4]};
    void *prover = NULL, *from_file = NULL;

    groth16_proof_size(&sz.proof_cap);
    check(sz.proof_cap >= 810, "groth16_proof_size gives at least rapidsnark's 810 bytes");
    check(groth16_public_size_for_zkey_buf(zkey, zkey_len, &public_buf, err, sizeof err) == PROVER_OK,
          "groth16_public_size_for_zkey_buf");
    check(groth16_public_size_for_zkey_file(argv[1], &public_file, err, sizeof err) == PROVER_OK,
          "groth16_public_size_for_zkey_file");
    check(public_buf == public_file && public_buf >= 4 && (public_buf - 4) % 82 == 0,
          "both public sizes are nPublic * 82 + 4");
    sz.public_cap = public_buf;

    check(groth16_prover_create(&prover, zkey, zkey_len, err, sizeof err) == PROVER_OK && prover,
          "groth16_prover_create from a buffer");
    memset(zkey, 0xA5, (size_t)zkey_len); /* the prover keeps its own copy */
    prove_into(prover, wtns, wtns_len, &sz, "buffer1");
    prove_into(prover, wtns, wtns_len, &sz, "buffer2"); /* two proofs on one handle */
    check_short_buffer(prover, wtns, wtns_len, &sz);

    char proof[4096], pub[8192];
    unsigned long long ps = sizeof proof, us = sizeof pub;
    err[0] = '\0';
    int rc = groth16_prover_prove(prover, other, other_len, proof, &ps, pub, &us, err, sizeof err);
    check(rc == PROVER_INVALID_WITNESS_LENGTH, "a witness of another length gives PROVER_INVALID_WITNESS_LENGTH");
    check(strstr(err, "nVars") != NULL, "its message names the circuit's length");
    rc = groth16_prover_prove(prover, wtns, 7, proof, &ps, pub, &us, NULL, 0);
    check(rc == PROVER_ERROR, "a truncated witness gives PROVER_ERROR (no error buffer given)");
    rc = groth16_prover_prove(NULL, wtns, wtns_len, proof, &ps, pub, &us, err, sizeof err);
    check(rc == PROVER_ERROR && strstr(err, "NULL") != NULL, "a NULL prover gives PROVER_ERROR and says so");
    memset(err, 'x', sizeof err);
    rc = groth16_prover_prove(prover, other, other_len, proof, &ps, pub, &us, err, 5);
    check(rc == PROVER_INVALID_WITNESS_LENGTH && strlen(err) == 4 && err[6] == 'x',
          "error messages are cut to error_msg_maxsize, NUL included");

    /* two threads on one handle: their proofs run one at a time */
    pthread_t t[2];
    thread_job jobs[2] = {{prover, wtns, wtns_len, &sz, "thread0"}, {prover, wtns, wtns_len, &sz, "thread1"}};
    for (int i = 0; i < 2; i++)
        check(pthread_create(&t[i], NULL, thread_main, &jobs[i]) == 0, "a prover thread starts");
    for (int i = 0; i < 2; i++)
        pthread_join(t[i], NULL);
    groth16_prover_destroy(prover);
    groth16_prover_destroy(NULL);

    check(groth16_prover_create_zkey_file(&from_file, argv[1], err, sizeof err) == PROVER_OK,
          "groth16_prover_create_zkey_file");
    prove_into(from_file, wtns, wtns_len, &sz, "file");
    groth16_prover_destroy(from_file);

    void *bad = NULL;
    check(groth16_prover_create(&bad, wtns, wtns_len, err, sizeof err) == PROVER_ERROR && !bad && err[0],
          "a .wtns given as the zkey gives PROVER_ERROR with a message");
    check(groth16_prover_create_zkey_file(&bad, "/nonexistent.zkey", err, sizeof err) == PROVER_ERROR &&
              strstr(err, "nonexistent") != NULL,
          "a missing zkey file gives PROVER_ERROR naming it");

    /* the one-shot calls */
    unsigned long long zlen2;
    unsigned char *zkey2 = read_all(argv[1], &zlen2);
    ps = sz.proof_cap;
    us = sz.public_cap;
    rc = groth16_prover(zkey2, zlen2, wtns, wtns_len, proof, &ps, pub, &us, err, sizeof err);
    check(rc == PROVER_OK, "groth16_prover (one shot, buffers)");
    if (rc == PROVER_OK) {
        write_text(sz.outdir, "oneshot", "proof", proof);
        write_text(sz.outdir, "oneshot", "public", pub);
    }
    ps = sz.proof_cap;
    us = sz.public_cap;
    rc = groth16_prover_zkey_file(argv[1], wtns, wtns_len, proof, &ps, pub, &us, err, sizeof err);
    check(rc == PROVER_OK, "groth16_prover_zkey_file (one shot)");
    if (rc == PROVER_OK) {
        write_text(sz.outdir, "oneshot_file", "proof", proof);
        write_text(sz.outdir, "oneshot_file", "public", pub);
    }
    free(zkey);
    free(zkey2);
    free(wtns);
    free(other);
    printf("%d failure(s)\n", failures);
    return failures ? 1 : 0;
}
