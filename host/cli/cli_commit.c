/*
 * cli_commit.c: what the commitment commands share (see cli_commit.h): the fields with a
 * Poseidon2 commitment, the test vectors' generator, the work of one commitment, a root as JSON.
 */
#include "cli_commit.h"

/* The fields with a Poseidon2 commitment: 0, or -1 for any other name. */
int commit_parse_field(const char *s, hpr_field *field)
{
    if (cli_parse_field(s, field) != 0)
        return -1;
    return *field == HPR_FIELD_KOALABEAR || *field == HPR_FIELD_BABYBEAR ? 0 : -1;
}

uint32_t commit_field_modulus(hpr_field field)
{
    return field == HPR_FIELD_KOALABEAR ? 0x7f000001u : 0x78000001u;
}

const char *commit_hash_name(hpr_field field)
{
    return field == HPR_FIELD_KOALABEAR ? "poseidon2-koalabear-16" : "poseidon2-babybear-16";
}

unsigned commit_log2_rate(unsigned rate)
{
    return rate == 8 ? 3 : rate == 4 ? 2 : rate == 2 ? 1 : 0;
}

/* The test vectors' generator (tests/poseidon2_vectors.h): splitmix64(seed + i) mod p. */
uint32_t commit_matrix_element(uint64_t seed, uint64_t i, uint32_t p)
{
    uint64_t z = seed + i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) % p);
}

/* Permutations of one commitment: the sponge of every row and the compressions. */
double commit_permutations(size_t rows, size_t columns)
{
    return (double)rows * (double)((columns + SPONGE_RATE - 1) / SPONGE_RATE) + (double)(rows - 1);
}

void commit_print_root(FILE *to, const uint32_t root[DIGEST])
{
    fputc('[', to);
    for (int k = 0; k < DIGEST; k++)
        fprintf(to, "%s%u", k ? ", " : "", (unsigned)root[k]);
    fputc(']', to);
}
