/*
 * cli_commit.h: what the commitment commands share (host/cli/cli_commit.c): `commit`
 * (cmd_commit.c) and `bench commit` (cmd_bench_commit.c); `bench poseidon2`
 * (cmd_bench_poseidon2.c) takes the generator of the test vectors.
 */
#ifndef HOST_CLI_CLI_COMMIT_H
#define HOST_CLI_CLI_COMMIT_H

#include "cli.h"

#include <stdint.h>
#include <stdio.h>

#define SPONGE_RATE 8 /* elements absorbed per permutation by the width-16 sponge */
#define DIGEST 8

/* The fields with a Poseidon2 commitment: 0, or -1 for any other name. */
int commit_parse_field(const char *s, hpr_field *field);

uint32_t commit_field_modulus(hpr_field field);

const char *commit_hash_name(hpr_field field);

unsigned commit_log2_rate(unsigned rate);

/* The test vectors' generator (tests/poseidon2_vectors.h): splitmix64(seed + i) mod p. */
uint32_t commit_matrix_element(uint64_t seed, uint64_t i, uint32_t p);

/* Permutations of one commitment: the sponge of every row and the compressions. */
double commit_permutations(size_t rows, size_t columns);

void commit_print_root(FILE *to, const uint32_t root[DIGEST]);

#endif
