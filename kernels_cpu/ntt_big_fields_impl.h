/*
 * ntt_big_fields_impl.h: the portable NTT (ntt_impl.h) of BN254 Fr and BLS12-381 Fr, with
 * their void-pointer entries and moduli, instantiated in the unit that includes
 * it. Two units do: ntt_cpu.c (the portable tier's tables) and ntt_ifma.c (the avx512 tables,
 * whose small-size fallbacks are these), so that neither calls the other.
 * Needs arith/curves.h and ntt_field_entries.h first. Include once per unit.
 */
BIG_FIELD_ENTRIES(bn254_fr)
#define NT_T bn254_fr
#define NT_PFX ntt_bn254_fr
#define NT_ADD bn254_fr_add
#define NT_SUB bn254_fr_sub
#define NT_MUL bn254_fr_mul
#include "ntt_impl.h"

BIG_FIELD_ENTRIES(bls12_381_fr)
#define NT_T bls12_381_fr
#define NT_PFX ntt_bls12_381_fr
#define NT_ADD bls12_381_fr_add
#define NT_SUB bls12_381_fr_sub
#define NT_MUL bls12_381_fr_mul
#include "ntt_impl.h"

static const uint64_t bn254_fr_modulus[4] = BN254_FR_P;
static const uint64_t bls12_381_fr_modulus[4] = BLS12_381_FR_P;

/* The two fields' tables of these kernels, named by the unit (STORAGE: static or nothing). */
#define BIG_FIELD_TABLES(STORAGE, BN254_NAME, BLS12_381_NAME)                                        \
    STORAGE NTT_OPS(BN254_NAME, "bn254-fr", ntt_bn254_fr, ntt_bn254_fr, 32, BN254_FR_TWO_ADICITY,      \
                    BN254_FR_GENERATOR_INT, bn254_fr_modulus);                                       \
    STORAGE NTT_OPS(BLS12_381_NAME, "bls12-381-fr", ntt_bls12_381_fr, ntt_bls12_381_fr, 32,          \
                    BLS12_381_FR_TWO_ADICITY, BLS12_381_FR_GENERATOR_INT, bls12_381_fr_modulus)
