/*
 * test_opencl_poseidon2.c: the Poseidon2 kernels on the first OpenCL device (POCL's CPU
 * device in CI; runtime/opencl/cl_poseidon2.h) against the CPU's portable kernels, bit for
 * bit: permutations of every instance (counts around the work-group size), leaf digests of
 * rows of 0 to 40 columns (strided columns, odd first rows, row counts that are not a multiple
 * of the work-group), 2-to-1 compressions; the same with buffers forced small
 * (HPR_CL_MAX_ALLOC: many chunks per call); a failing device (HPR_CL_INJECT_FAULT) reported;
 * and Plonky3's known answers of the default permutations computed on the device.
 * The case "oclgrind" (small jobs of every kernel) is what scripts/oclgrind-check.sh runs on
 * Oclgrind's simulated device (CK_RUN_CASE=oclgrind).
 */
#define _POSIX_C_SOURCE 200809L /* setenv */
#include "opencl_support.h"

#include "kernels_cpu/poseidon2_cpu.h"
#include "runtime/opencl/cl_poseidon2.h"

#include <string.h>

/* The first OpenCL device through the raw runtime (the options of the environment). */
typedef struct {
    cl_runtime *rt;
    cl_dev *dev;
    char id[16];
} p2_device;

static p2_device device_open(void)
{
    p2_device d;
    ocl_first_device(d.id);
    d.rt = ocl_runtime_open();
    d.dev = cl_runtime_find(d.rt, d.id);
    ck_assert_msg(d.dev != NULL, "%s is not in the raw runtime", d.id);
    return d;
}

static const p2_kernels *cpu(void)
{
    return p2_kernels_for(RT_CPU_PORTABLE);
}

/* n canonical elements of prm's field: mostly random, some 0, 1 and p - 1. */
static uint32_t *random_elements(const p2_params *prm, size_t n, test_rng *rng)
{
    uint32_t *v = malloc((n ? n : 1) * sizeof *v);
    ck_assert_ptr_nonnull(v);
    for (size_t i = 0; i < n; i++) {
        uint64_t r = test_rng_next(rng);
        unsigned edge = (unsigned)(r >> 60);
        v[i] = edge == 0 ? 0 : edge == 1 ? 1 : edge == 2 ? prm->p - 1 : (uint32_t)(r % prm->p);
    }
    return v;
}

static uint32_t *copy_of(const uint32_t *v, size_t n)
{
    uint32_t *c = malloc((n ? n : 1) * sizeof *c);
    ck_assert_ptr_nonnull(c);
    memcpy(c, v, n * sizeof *c);
    return c;
}

/* count random states of prm permuted on the device equal the CPU's. */
static void check_permute(p2_device *d, const p2_params *prm, size_t count, test_rng *rng)
{
    char detail[CL_DETAIL_LEN] = "";
    size_t n = count * prm->width;
    uint32_t *want = random_elements(prm, n, rng), *got = copy_of(want, n);
    cpu()->permute(prm, want, count);
    ck_assert_msg(cl_p2_permute(d->rt, d->dev, prm, got, count, detail) == 0, "%s: %s", prm->name, detail);
    ck_assert_msg(memcmp(want, got, n * sizeof *got) == 0, SEED_FMT "%s: %zu permutations differ from the CPU's",
                  test_seed, prm->name, count);
    free(want);
    free(got);
}

/* The digests of rows [row0, row0 + nrows) of a random matrix of ncols columns of stride
 * elements on the device equal the CPU's. */
static void check_hash_rows(p2_device *d, const p2_params *prm, size_t ncols, size_t stride, size_t row0,
                            size_t nrows, test_rng *rng)
{
    char detail[CL_DETAIL_LEN] = "";
    uint32_t *cols = random_elements(prm, ncols * stride, rng);
    size_t out_bytes = (nrows ? nrows : 1) * P2_DIGEST * sizeof(uint32_t);
    uint32_t *want = malloc(out_bytes), *got = malloc(out_bytes);
    ck_assert(want && got);
    ck_assert_uint_le(row0 + nrows, stride);
    cpu()->hash_rows(prm, cols, stride, ncols, row0, nrows, want);
    memset(got, 0xff, nrows * P2_DIGEST * sizeof *got);
    ck_assert_msg(cl_p2_hash_rows(d->rt, d->dev, prm, cols, stride, ncols, row0, nrows, got, detail) == 0, "%s: %s",
                  prm->name, detail);
    ck_assert_msg(memcmp(want, got, nrows * P2_DIGEST * sizeof *got) == 0,
                  SEED_FMT "%s: digests of rows %zu..%zu of %zu columns differ from the CPU's", test_seed, prm->name,
                  row0, row0 + nrows, ncols);
    free(cols);
    free(want);
    free(got);
}

/* count random compressions on the device equal the CPU's. */
static void check_compress(p2_device *d, const p2_params *prm, size_t count, test_rng *rng)
{
    char detail[CL_DETAIL_LEN] = "";
    uint32_t *in = random_elements(prm, count * 2 * P2_DIGEST, rng);
    size_t out_bytes = (count ? count : 1) * P2_DIGEST * sizeof(uint32_t);
    uint32_t *want = malloc(out_bytes), *got = malloc(out_bytes);
    ck_assert(want && got);
    cpu()->compress(prm, in, want, count);
    ck_assert_msg(cl_p2_compress(d->rt, d->dev, prm, in, got, count, detail) == 0, "%s: %s", prm->name, detail);
    ck_assert_msg(memcmp(want, got, count * P2_DIGEST * sizeof *got) == 0,
                  SEED_FMT "%s: %zu compressions differ from the CPU's", test_seed, prm->name, count);
    free(in);
    free(want);
    free(got);
}

/* A row count that is not a multiple of 64 (the kernels' work-group size at most). */
static size_t ragged(size_t n)
{
    return n % 64 == 0 ? n + 1 : n;
}

/* _i = instance: counts on both sides of the work-group size, and a random larger one. */
START_TEST(permutations_equal_the_cpu)
{
    const p2_params *prm = p2_params_get((p2_instance_id)_i);
    p2_device d = device_open();
    test_rng rng;
    test_rng_init(&rng, 2200 + (uint64_t)_i);
    size_t counts[] = {0, 1, 2, 63, 64, 65, 200 + test_rng_next(&rng) % 400};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        check_permute(&d, prm, counts[k], &rng);
    cl_runtime_close(d.rt);
}
END_TEST

/* _i = instance: rows of 0..40 columns (every chunking of a row by the rate, a short last
 * chunk or none), in a matrix whose columns are longer than the rows hashed (stride), from
 * an odd first row, a row count not a multiple of the group. */
START_TEST(row_digests_equal_the_cpu)
{
    const p2_params *prm = p2_params_get((p2_instance_id)_i);
    p2_device d = device_open();
    test_rng rng;
    test_rng_init(&rng, 2300 + (uint64_t)_i);
    for (size_t ncols = 0; ncols <= 40; ncols++) {
        size_t row0 = 2 * (test_rng_next(&rng) % 50) + 1, nrows = ragged(1 + test_rng_next(&rng) % 150);
        size_t stride = row0 + nrows + test_rng_next(&rng) % 20;
        check_hash_rows(&d, prm, ncols, stride, row0, nrows, &rng);
    }
    check_hash_rows(&d, prm, 16, 1, 0, 1, &rng); /* one row, stride 1 */
    check_hash_rows(&d, prm, 3, 10, 4, 0, &rng); /* no rows */
    cl_runtime_close(d.rt);
}
END_TEST

/* _i = 0 KoalaBear-16, 1 BabyBear-16 (compression is width 16). */
START_TEST(compressions_equal_the_cpu)
{
    const p2_params *prm = p2_params_get(_i == 0 ? P2_KOALABEAR_16 : P2_BABYBEAR_16);
    p2_device d = device_open();
    test_rng rng;
    test_rng_init(&rng, 2400 + (uint64_t)_i);
    size_t counts[] = {0, 1, 63, 64, 65, 100 + test_rng_next(&rng) % 900};
    for (size_t k = 0; k < sizeof counts / sizeof counts[0]; k++)
        check_compress(&d, prm, counts[k], &rng);
    cl_runtime_close(d.rt);
}
END_TEST

/* Buffers of at most 4096 bytes (HPR_CL_MAX_ALLOC): every call runs in many chunks (64
 * states of 16, 42 of 24, 25 rows of 40 columns, 64 compressions each), same bits. */
START_TEST(chunked_jobs_equal_the_cpu)
{
    test_rng rng;
    setenv("HPR_CL_MAX_ALLOC", "4096", 1);
    p2_device d = device_open();
    test_rng_init(&rng, 2500);
    for (int id = 0; id < P2_INSTANCES; id++) {
        const p2_params *prm = p2_params_get((p2_instance_id)id);
        check_permute(&d, prm, 300, &rng);
        check_hash_rows(&d, prm, 40, 400, 7, 333, &rng);
        check_hash_rows(&d, prm, 1, 2000, 3, 1500, &rng); /* 128 rows per chunk: the digests set it */
        if (prm->width == 16)
            check_compress(&d, prm, 300, &rng);
    }
    unsetenv("HPR_CL_MAX_ALLOC");
    cl_runtime_close(d.rt);
}
END_TEST

/* HPR_CL_INJECT_FAULT: every call fails and says why. */
START_TEST(a_failing_device_is_reported)
{
    char id[16], detail[CL_DETAIL_LEN];
    uint32_t state[24] = {0}, digests[2 * P2_DIGEST] = {0}, out[P2_DIGEST];
    const p2_params *prm = p2_params_get(P2_KOALABEAR_16);
    ocl_first_device(id);
    setenv("HPR_CL_INJECT_FAULT", id, 1);
    p2_device d = device_open();
    detail[0] = '\0';
    ck_assert_int_eq(cl_p2_permute(d.rt, d.dev, prm, state, 1, detail), -1);
    ck_assert_msg(strstr(detail, "HPR_CL_INJECT_FAULT") != NULL, "%s", detail);
    detail[0] = '\0';
    ck_assert_int_eq(cl_p2_hash_rows(d.rt, d.dev, prm, state, 1, 16, 0, 1, out, detail), -1);
    ck_assert_msg(strstr(detail, "HPR_CL_INJECT_FAULT") != NULL, "%s", detail);
    detail[0] = '\0';
    ck_assert_int_eq(cl_p2_compress(d.rt, d.dev, prm, digests, out, 1, detail), -1);
    ck_assert_msg(strstr(detail, "HPR_CL_INJECT_FAULT") != NULL, "%s", detail);
    unsetenv("HPR_CL_INJECT_FAULT");
    cl_runtime_close(d.rt);
}
END_TEST

/* Plonky3's regression tests of its default permutations (test_default_koalabear_poseidon2_
 * width_16 / _24 in koala-bear/src/poseidon2.rs, test_default_babybear_poseidon2_width_16 in
 * baby-bear/src/poseidon2.rs): the inputs and outputs transcribed from those files. */
static const uint32_t kat_in16[16] = {894848333, 1437655012, 1200606629, 1690012884, 71131202,  1749206695,
                                      1717947831, 120589055, 19776022,   42382981,   1831865506, 724844064,
                                      171220207,  1299207443, 227047920, 1783754913};
static const uint32_t kat_in24[24] = {886409618,  1327899896, 1902407911, 591953491,  648428576,  1844789031,
                                      1198336108, 355597330,  1799586834, 59617783,   790334801,  1968791836,
                                      559272107,  31054313,   1042221543, 474748436,  135686258,  263665994,
                                      1962340735, 1741539604, 2026927696, 449439011,  1131357108, 50869465};
static const struct {
    p2_instance_id id;
    const uint32_t *in;
    uint32_t out[24];
} plonky3_kats[] = {
    {P2_KOALABEAR_16, kat_in16, {1934285469, 604889435, 133449501, 1026180808, 1830659359, 176667110, 1391183747,
                                 351743874, 1238264085, 1292768839, 2023573270, 1201586780, 1360691759, 1230682461,
                                 748270449, 651545025}},
    {P2_KOALABEAR_24, kat_in24, {382801106, 82839311, 1503190615, 1987418517, 854076995, 1862291425, 262755189,
                                 1050814217, 722724562, 741265943, 1026879332, 754316749, 1966025564, 1518878196,
                                 502200188, 1368172258, 845459257, 1711434837, 724453836, 171032289, 655223446,
                                 1098636135, 407832555, 1707498914}},
    {P2_BABYBEAR_16, kat_in16, {516096821, 90309867, 1101817252, 1660784290, 360715097, 1789519026, 1788910906,
                                563338433, 319524748, 1741414159, 1650859320, 894311162, 1121347488, 1692793758,
                                1052633829, 1344246938}},
};

/* _i = vector: the permutation on the device gives Plonky3's output (the state repeated 65
 * times: a second work-group too). */
START_TEST(plonky3_known_answers_on_the_device)
{
    const p2_params *prm = p2_params_get(plonky3_kats[_i].id);
    char detail[CL_DETAIL_LEN] = "";
    enum { COPIES = 65 };
    uint32_t states[COPIES * 24];
    p2_device d = device_open();
    for (size_t c = 0; c < COPIES; c++)
        memcpy(states + c * prm->width, plonky3_kats[_i].in, prm->width * sizeof *states);
    ck_assert_msg(cl_p2_permute(d.rt, d.dev, prm, states, COPIES, detail) == 0, "%s", detail);
    for (size_t c = 0; c < COPIES; c++)
        for (unsigned k = 0; k < prm->width; k++)
            ck_assert_msg(states[c * prm->width + k] == plonky3_kats[_i].out[k],
                          "%s copy %zu element %u: %u, Plonky3 %u", prm->name, c, k, states[c * prm->width + k],
                          plonky3_kats[_i].out[k]);
    cl_runtime_close(d.rt);
}
END_TEST

/* Small jobs of every kernel and instance (Oclgrind interprets each instruction): 67 items
 * (a partial second group) for each kernel, and rows of 0 to 25 columns (no chunk, short
 * and whole chunks of either rate). */
START_TEST(small_jobs_equal_the_cpu)
{
    static const size_t widths[] = {0, 1, 7, 8, 9, 16, 17, 24, 25};
    p2_device d = device_open();
    test_rng rng;
    test_rng_init(&rng, 2600);
    for (int id = 0; id < P2_INSTANCES; id++) {
        const p2_params *prm = p2_params_get((p2_instance_id)id);
        check_permute(&d, prm, 67, &rng);
        check_hash_rows(&d, prm, 9, 70, 3, 67, &rng);
        for (size_t k = 0; k < sizeof widths / sizeof widths[0]; k++)
            check_hash_rows(&d, prm, widths[k], 7, 1, 3, &rng);
        if (prm->width == 16)
            check_compress(&d, prm, 67, &rng);
    }
    cl_runtime_close(d.rt);
}
END_TEST

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("opencl_poseidon2");
    TCase *tc = test_case(s, "device", 600);
    tcase_add_loop_test(tc, permutations_equal_the_cpu, 0, P2_INSTANCES);
    tcase_add_loop_test(tc, row_digests_equal_the_cpu, 0, P2_INSTANCES);
    tcase_add_loop_test(tc, compressions_equal_the_cpu, 0, 2);
    tcase_add_test(tc, chunked_jobs_equal_the_cpu);
    tcase_add_test(tc, a_failing_device_is_reported);
    tcase_add_loop_test(tc, plonky3_known_answers_on_the_device, 0, (int)(sizeof plonky3_kats / sizeof plonky3_kats[0]));
    TCase *small = test_case(s, "oclgrind", 600);
    tcase_add_test(small, small_jobs_equal_the_cpu);
    return run_suite(s);
}
