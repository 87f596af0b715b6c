/*
 * test_support.h: what every Check suite shares (tests/test_support.c, the hpr_test_support
 * library): the seed (HPR_TEST_SEED, printed on failure), a deterministic generator, GMP
 * conversions for the oracles, running a suite, and the snarkjs fixtures (HPR_FIXTURES_DIR):
 * their paths, their files and the decimal strings of their reference JSON.
 */
#ifndef TESTS_TEST_SUPPORT_H
#define TESTS_TEST_SUPPORT_H

#include <check.h>
#include <gmp.h>

#include "hyprove.h"
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* ---- the seed and the generator ---- */

/* The suite's seed: HPR_TEST_SEED from the environment, else the time (test_seed_init). */
extern unsigned long long test_seed;

/* Sets test_seed and prints it. */
void test_seed_init(void);

typedef struct {
    uint64_t s;
} test_rng;

/* Each test derives its own stream so that tests stay reproducible when run alone. */
static inline void test_rng_init(test_rng *r, uint64_t stream)
{
    r->s = test_seed ^ (stream * 0x9e3779b97f4a7c15ull);
}

static inline uint64_t test_rng_next(test_rng *r)
{
    uint64_t z = (r->s += 0x9e3779b97f4a7c15ull);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return z ^ (z >> 31);
}

static inline void limbs_to_mpz(mpz_t out, const uint64_t *limbs, unsigned n)
{
    mpz_import(out, n, -1, sizeof(uint64_t), 0, 0, limbs);
}

static inline void mpz_to_limbs(uint64_t *limbs, unsigned n, const mpz_t v)
{
    size_t count = 0;
    for (unsigned i = 0; i < n; i++)
        limbs[i] = 0;
    mpz_export(limbs, &count, -1, sizeof(uint64_t), 0, 0, v);
}

/* A failure message always carries the seed. */
#define SEED_FMT "(HPR_TEST_SEED=%llu) "
#define assert_seeded(cond, fmt, ...) ck_assert_msg(cond, SEED_FMT fmt, test_seed, __VA_ARGS__)

/* Runs a suite in the Check style: returns the process exit status (the seed printed on a
 * failure). */
int run_suite(Suite *s);

/* Reduced sizes (HPR_TEST_REDUCED=1 in the environment: the emulated aarch64 run of
 * scripts/test-aarch64.sh): test_size(n, reduced) is n, or reduced in that mode. Printed by
 * test_seed_init so that a log says which sizes ran. */
int test_reduced(void);
static inline size_t test_size(size_t n, size_t reduced)
{
    return test_reduced() ? reduced : n;
}

/* A test case of s named name with a timeout of timeout_s seconds, added to s. */
TCase *test_case(Suite *s, const char *name, double timeout_s);

/* A context on devices (NULL: the default, "all") with threads threads (0: all cores); the
 * test fails if it cannot be created. */
hpr_ctx *test_ctx(const char *devices, unsigned threads);
/* A CPU-only context with threads threads on CPU tier tier (a name hpr_cpu_tier_name gives,
 * a tier that runs here: see test_tier_runs; NULL: the default tier) and memory_limit (0:
 * none set); the test fails if it cannot be created or runs another tier. */
hpr_ctx *test_cpu_ctx(const char *tier, unsigned threads, size_t memory_limit);

/* ---- the snarkjs fixtures: HPR_FIXTURES_DIR/<fixture>/<file> (default tests/fixtures) ---- */

typedef struct {
    unsigned char *data;
    size_t len;
} file_buf;

/* HPR_FIXTURES_DIR, else "tests/fixtures" (the suites run from the source tree). */
const char *fixtures_dir(void);

/* The path of a fixture's file into out (len bytes). */
void fixture_path(char *out, size_t len, const char *fixture, const char *file);

/* A fixture's file, in a buffer of exactly its length (so that AddressSanitizer sees a read
 * past the end); the test fails if it cannot be read. Release data with free. */
file_buf read_fixture(const char *fixture, const char *file);

/* A fixture's text file (JSON), NUL-terminated; the test fails if it cannot be read. Free it. */
char *read_fixture_text(const char *fixture, const char *file);

/* The nth decimal string (from 0) of the list after "key" in a reference JSON: "key": ["v0",
 * "v1", ...] (nested lists are read in order: G2's [[x.c0, x.c1], [y.c0, y.c1]]). out holds
 * at least 200 bytes; the test fails when the key or the string is missing. */
void reference_string(const char *json, const char *key, unsigned nth, char *out);

/* Whether HPR_CI_REQUIRE (a comma-separated list that scripts/test.sh sets from what the machine
 * has: CPU tiers by name, "opencl", "mpi", "oclgrind", "snarkjs") names capability: a test that
 * would skip for want of it fails instead, so that CI sees a skip that should not happen. */
int test_required(const char *capability);

/* Whether CPU tier t (hpr_cpu_tier_name(t)) runs here (processor, OS and build); prints why
 * not when it does not, and fails the test when HPR_CI_REQUIRE names the tier. */
int test_tier_runs(unsigned t);

/* The prover of a fixture's circuit.zkey on ctx; fails the test with the detail if it cannot
 * be made. */
hpr_groth16_prover *test_open_prover(hpr_ctx *ctx, const char *fixture);

#endif
