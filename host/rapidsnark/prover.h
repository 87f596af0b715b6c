/*
 * prover.h: rapidsnark's C prover API (the prover.h of iden3/rapidsnark, current releases),
 * implemented by libhyprove-rapidsnark on hyprove's Groth16 prover. A program or binding
 * written for rapidsnark compiles against this header unchanged and links
 * -lhyprove-rapidsnark (pkg-config hyprove-rapidsnark) instead of -lrapidsnark.
 *
 * The contract, as rapidsnark defines it:
 *   - Every size is an unsigned long long. Output buffers are the caller's: *proof_size and
 *     *public_size give their capacity in bytes on entry and, on success, the length of the
 *     JSON written (without the terminating NUL, which is written too).
 *   - A buffer shorter than its JSON plus the NUL gives PROVER_ERROR_SHORT_BUFFER with the
 *     sizes needed (NUL included) in *proof_size and *public_size; nothing else is written.
 *     The proof's size given back is groth16_proof_size()'s, which every proof fits, so the
 *     retry that rapidsnark's callers make cannot fall short (a proof's length varies with
 *     its random r and s).
 *   - A witness with another number of values than the zkey's nVars gives
 *     PROVER_INVALID_WITNESS_LENGTH; every other failure PROVER_ERROR. error_msg (when not
 *     NULL and error_msg_maxsize > 0) receives a NUL-terminated message, cut to fit.
 *   - groth16_proof_size() and the public sizes are capacities that always suffice
 *     (82 bytes per public signal plus 4; the proof's for either curve).
 * Differences, all supersets: BLS12-381 zkeys are accepted as well as BN254 ones; the proof
 * JSON is the one snarkjs writes (pretty-printed, with "protocol" and "curve"); a prover
 * object may be used from several threads (its proofs run one at a time). The prover keeps
 * its own copy of a zkey given as a buffer, so the caller may free the buffer at once.
 * Devices: a prover runs on every usable device ("all"); HPR_CPU and the other HPR_
 * environment variables of hyprove apply.
 */
#ifndef HYPROVE_RAPIDSNARK_PROVER_H
#define HYPROVE_RAPIDSNARK_PROVER_H

#ifdef __cplusplus
extern "C" {
#endif

#define PROVER_OK 0x0
#define PROVER_ERROR 0x1
#define PROVER_ERROR_SHORT_BUFFER 0x2
#define PROVER_INVALID_WITNESS_LENGTH 0x3

/* The public.json capacity for a zkey in memory / in a file, in *public_size. */
int groth16_public_size_for_zkey_buf(const void *zkey_buffer, unsigned long long zkey_size,
                                     unsigned long long *public_size, char *error_msg,
                                     unsigned long long error_msg_maxsize);
int groth16_public_size_for_zkey_file(const char *zkey_fname, unsigned long long *public_size, char *error_msg,
                                      unsigned long long error_msg_maxsize);

/* The proof.json capacity (any zkey). */
void groth16_proof_size(unsigned long long *proof_size);

/* A prover object over a zkey in memory / in a file; release with groth16_prover_destroy. */
int groth16_prover_create(void **prover_object, const void *zkey_buffer, unsigned long long zkey_size,
                          char *error_msg, unsigned long long error_msg_maxsize);
int groth16_prover_create_zkey_file(void **prover_object, const char *zkey_file_path, char *error_msg,
                                    unsigned long long error_msg_maxsize);

/* One proof of the .wtns bytes, as proof.json and public.json text. */
int groth16_prover_prove(void *prover_object, const void *wtns_buffer, unsigned long long wtns_size,
                         char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                         unsigned long long *public_size, char *error_msg, unsigned long long error_msg_maxsize);

void groth16_prover_destroy(void *prover_object);

/* One-shot: create, prove, destroy. */
int groth16_prover(const void *zkey_buffer, unsigned long long zkey_size, const void *wtns_buffer,
                   unsigned long long wtns_size, char *proof_buffer, unsigned long long *proof_size,
                   char *public_buffer, unsigned long long *public_size, char *error_msg,
                   unsigned long long error_msg_maxsize);
int groth16_prover_zkey_file(const char *zkey_file_path, const void *wtns_buffer, unsigned long long wtns_size,
                             char *proof_buffer, unsigned long long *proof_size, char *public_buffer,
                             unsigned long long *public_size, char *error_msg, unsigned long long error_msg_maxsize);

#ifdef __cplusplus
}
#endif

#endif
