/*
 * test_support.c: the seed, running a suite and the fixture files (test_support.h).
 */
#include "test_support.h"

#include <string.h>
#include <time.h>

unsigned long long test_seed;

void test_seed_init(void)
{
    const char *env = getenv("HPR_TEST_SEED");
    test_seed = env ? strtoull(env, NULL, 0) : (unsigned long long)time(NULL);
    printf("test seed: HPR_TEST_SEED=%llu%s\n", test_seed, test_reduced() ? " (reduced sizes: HPR_TEST_REDUCED)" : "");
    fflush(stdout);
}

int test_reduced(void)
{
    const char *env = getenv("HPR_TEST_REDUCED");
    return env && strcmp(env, "0") != 0;
}

int run_suite(Suite *s)
{
    SRunner *sr = srunner_create(s);
    srunner_run_all(sr, CK_NORMAL);
    int failed = srunner_ntests_failed(sr);
    srunner_free(sr);
    if (failed)
        printf("reproduce with HPR_TEST_SEED=%llu\n", test_seed);
    return failed ? EXIT_FAILURE : EXIT_SUCCESS;
}

TCase *test_case(Suite *s, const char *name, double timeout_s)
{
    TCase *tc = tcase_create(name);
    tcase_set_timeout(tc, timeout_s);
    suite_add_tcase(s, tc);
    return tc;
}

hpr_ctx *test_ctx(const char *devices, unsigned threads)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.threads = threads;
    cfg.devices = devices;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    return ctx;
}

hpr_ctx *test_cpu_ctx(const char *tier, unsigned threads, size_t memory_limit)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.threads = threads;
    cfg.devices = "cpu";
    cfg.cpu_tier = tier;
    cfg.memory_limit = memory_limit;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    if (tier)
        ck_assert_str_eq(hpr_ctx_cpu_tier(ctx), tier);
    return ctx;
}

const char *fixtures_dir(void)
{
    const char *dir = getenv("HPR_FIXTURES_DIR");
    return dir && dir[0] ? dir : "tests/fixtures";
}

void fixture_path(char *out, size_t len, const char *fixture, const char *file)
{
    int n = snprintf(out, len, "%s/%s/%s", fixtures_dir(), fixture, file);
    ck_assert_msg(n > 0 && (size_t)n < len, "the path of %s/%s is too long", fixture, file);
}

/* The file's bytes in a buffer of its length plus extra bytes (zeroed). */
static unsigned char *read_whole(const char *fixture, const char *file, size_t extra, size_t *len)
{
    char path[1024];
    fixture_path(path, sizeof path, fixture, file);
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s (set HPR_FIXTURES_DIR)", path);
    ck_assert_int_eq(fseek(fp, 0, SEEK_END), 0);
    long size = ftell(fp);
    ck_assert_msg(size >= 0, "cannot size %s", path);
    ck_assert_int_eq(fseek(fp, 0, SEEK_SET), 0);
    *len = (size_t)size;
    unsigned char *data = malloc((*len + extra) ? *len + extra : 1);
    ck_assert_ptr_nonnull(data);
    ck_assert_msg(fread(data, 1, *len, fp) == *len, "cannot read %s", path);
    memset(data + *len, 0, extra);
    fclose(fp);
    return data;
}

file_buf read_fixture(const char *fixture, const char *file)
{
    file_buf b;
    b.data = read_whole(fixture, file, 0, &b.len);
    return b;
}

char *read_fixture_text(const char *fixture, const char *file)
{
    size_t len;
    return (char *)read_whole(fixture, file, 1, &len);
}

void reference_string(const char *json, const char *key, unsigned nth, char *out)
{
    char pattern[64];
    snprintf(pattern, sizeof pattern, "\"%s\"", key);
    const char *p = strstr(json, pattern);
    ck_assert_msg(p != NULL, "%s missing from the reference JSON", key);
    p = strchr(p + strlen(pattern), '[');
    ck_assert_msg(p != NULL, "%s is not a list", key);
    for (unsigned i = 0; i <= nth; i++) {
        p = strchr(p + 1, '"');
        ck_assert_msg(p != NULL, "%s has no string %u", key, nth);
        if (i < nth) {
            p = strchr(p + 1, '"'); /* the closing quote */
            ck_assert_msg(p != NULL, "%s has no string %u", key, nth);
        }
    }
    ck_assert_msg(sscanf(p, "\"%199[0-9]\"", out) == 1, "%s: string %u is not a decimal", key, nth);
}

int test_required(const char *capability)
{
    const char *list = getenv("HPR_CI_REQUIRE");
    size_t len = strlen(capability);
    for (const char *p = list; p && *p;) {
        const char *end = strchr(p, ',');
        size_t n = end ? (size_t)(end - p) : strlen(p);
        if (n == len && strncmp(p, capability, len) == 0)
            return 1;
        p = end ? end + 1 : p + n;
    }
    return 0;
}

int test_tier_runs(unsigned t)
{
    const char *why, *name = hpr_cpu_tier_name(t);
    if (name && hpr_cpu_tier_check(name, &why) == HPR_OK)
        return 1;
    ck_assert_msg(!name || !test_required(name), "tier %s is required here (HPR_CI_REQUIRE) but cannot run: %s", name,
                  why);
    printf("tier %s skipped on this machine: %s\n", name ? name : "?", name ? why : "no such tier");
    return 0;
}

hpr_groth16_prover *test_open_prover(hpr_ctx *ctx, const char *fixture)
{
    char path[1024];
    hpr_groth16_prover *p = NULL;
    fixture_path(path, sizeof path, fixture, "circuit.zkey");
    hpr_status st = hpr_groth16_prover_create(ctx, path, &p);
    ck_assert_msg(st == HPR_OK, "%s: %s (%s)", fixture, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    return p;
}
