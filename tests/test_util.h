/*
 * test_util.h: what every Check suite shares: the seed (HPR_TEST_SEED, printed on failure),
 * a deterministic generator, and GMP conversions for the oracles.
 */
#ifndef HPR_TEST_UTIL_H
#define HPR_TEST_UTIL_H

#include <check.h>
#include <gmp.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

/* The suite's seed: HPR_TEST_SEED from the environment, else the time. */
static unsigned long long test_seed;

static void test_seed_init(void)
{
    const char *env = getenv("HPR_TEST_SEED");
    test_seed = env ? strtoull(env, NULL, 0) : (unsigned long long)time(NULL);
    printf("test seed: HPR_TEST_SEED=%llu\n", test_seed);
    fflush(stdout);
}

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

/* Runs a suite in the Check style: returns the process exit status. */
static int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("reproduce with HPR_TEST_SEED=%llu\n", test_seed);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

#endif
