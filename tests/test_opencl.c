/*
 * test_opencl.c: the OpenCL backend on every OpenCL device found (POCL's CPU device in CI):
 * one kernel per primitive compared bit for bit with the host build of the same arithmetic
 * (both word variants where the device offers two), the MSM against the CPU over the edge
 * matrix and random sizes up to 2^14, chunking forced by a small max allocation, the binary
 * cache (hit, truncated entry rebuilt), OpenCL absent, injected device faults and bad inputs;
 * then the hybrid scheduler over the CPU and the device (random splits give the CPU's bits,
 * faults on the k-th tile, core sharing) and calibration profiles; the NTT's butterflies on
 * the device against the CPU's bits (every field, random sizes, orders, cosets, batches) and
 * a failing device's NTT redone on the CPU; the Groth16 task graph over the CPU and the
 * device (snarkjs's r = s = 0 proof bit for bit, with and without a failing device).
 * Check forks each test, so every OpenCL context is created inside the test that uses it.
 */
#define _POSIX_C_SOURCE 200809L
#include "test_util.h"
#include "msm_test_inputs.h"

#include "groth16.h"
#include "../runtime/cl_device.h"
#include "../runtime/cl_cache.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define PRIM_N 64

static hpr_ctx *make_ctx(const char *devices)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.threads = 2;
    cfg.devices = devices;
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    return ctx;
}

/* The first OpenCL device's id; the suite fails if there is none (CI installs POCL). */
static void first_device(char *id)
{
    hpr_ctx *ctx = make_ctx("cpu");
    hpr_device_info info;
    ck_assert_msg(hpr_device_count(ctx) > 0, "no OpenCL device: %s", hpr_opencl_notice(ctx));
    ck_assert_int_eq(hpr_device_get_info(ctx, 0, &info), HPR_OK);
    strcpy(id, info.id);
    hpr_ctx_destroy(ctx);
}

/* ---- primitives: runs kernel `name` of the test program over buffers, on the raw runtime ---- */

typedef struct {
    cl_runtime *rt;
    cl_dev *dev;
    cl_program prog;
} prim_env;

static void prim_open(prim_env *e, int curve, int words)
{
    char id[16], detail[CL_DETAIL_LEN] = "";
    first_device(id);
    ck_assert_int_eq(cl_runtime_open(&e->rt), 0);
    e->dev = cl_runtime_find(e->rt, id);
    ck_assert_ptr_nonnull(e->dev);
    ck_assert_msg(cl_dev_program(e->rt, e->dev, CL_PROG_TEST, curve, words, &e->prog, detail) == 0, "%s", detail);
}

/* out = kernel(op, in0, in1[, in2]) over count elements; sizes in bytes per element. */
static void prim_run(prim_env *e, const char *name, cl_uint op, const void *const *ins, const size_t *in_sizes,
                     int nins, void *out, size_t out_size, size_t count)
{
    const cl_api *api = &e->rt->api;
    cl_int rc;
    cl_kernel k = api->clCreateKernel(e->prog, name, &rc);
    cl_mem bufs[4] = {0};
    ck_assert_int_eq(rc, CL_SUCCESS);
    ck_assert_int_eq(api->clSetKernelArg(k, 0, sizeof op, &op), CL_SUCCESS);
    for (int i = 0; i < nins; i++) {
        bufs[i] = api->clCreateBuffer(e->dev->context, CL_MEM_READ_ONLY | CL_MEM_COPY_HOST_PTR, in_sizes[i] * count,
                                      (void *)ins[i], &rc);
        ck_assert_int_eq(rc, CL_SUCCESS);
        ck_assert_int_eq(api->clSetKernelArg(k, (cl_uint)i + 1, sizeof(cl_mem), &bufs[i]), CL_SUCCESS);
    }
    bufs[nins] = api->clCreateBuffer(e->dev->context, CL_MEM_WRITE_ONLY, out_size * count, NULL, &rc);
    ck_assert_int_eq(rc, CL_SUCCESS);
    ck_assert_int_eq(api->clSetKernelArg(k, (cl_uint)nins + 1, sizeof(cl_mem), &bufs[nins]), CL_SUCCESS);
    ck_assert_int_eq(api->clEnqueueNDRangeKernel(e->dev->queue[0], k, 1, NULL, &count, NULL, 0, NULL, NULL), CL_SUCCESS);
    ck_assert_int_eq(api->clEnqueueReadBuffer(e->dev->queue[0], bufs[nins], CL_TRUE, 0, out_size * count, out, 0, NULL, NULL),
                     CL_SUCCESS);
    for (int i = 0; i <= nins; i++)
        api->clReleaseMemObject(bufs[i]);
    api->clReleaseKernel(k);
}

/* Field elements: edges (0, 1, p-1, R mod p as raw limbs, 2^64-1 below p) then random. */
#define FIELD_PRIMS(F, K, N)                                                                                    \
    static void F##_fill(F *v, size_t count, test_rng *rng)                                                 \
    {                                                                                                       \
        const uint64_t p[N] = K##_P;                                                                        \
        for (size_t i = 0; i < count; i++) {                                                                \
            uint64_t l[N];                                                                                  \
            for (int j = 0; j < N; j++)                                                                     \
                l[j] = test_rng_next(rng);                                                                  \
            l[N - 1] %= p[N - 1];                                                                           \
            switch (i) {                                                                                    \
            case 0: memset(l, 0, sizeof l); break;                                                          \
            case 1: memset(l, 0, sizeof l); l[0] = 1; break;                                                \
            case 2: memcpy(l, p, sizeof l); l[0] -= 1; break;                                               \
            case 3: memset(l, 0xff, sizeof l); l[N - 1] = p[N - 1] - 1; break;                              \
            case 4: memset(l, 0, sizeof l); l[0] = ~0ull; break;                                            \
            default: break;                                                                                 \
            }                                                                                               \
            F##_set_limbs(&v[i], l);                                                                        \
        }                                                                                                   \
    }                                                                                                       \
    static void F##_host_op(F *r, unsigned op, const F *a, const F *b)                                      \
    {                                                                                                       \
        switch (op) {                                                                                       \
        case 0: F##_add(r, a, b); break;                                                                    \
        case 1: F##_sub(r, a, b); break;                                                                    \
        case 2: F##_mul(r, a, b); break;                                                                    \
        case 3: F##_sqr(r, a); break;                                                                       \
        case 4: F##_inv(r, a); break;                                                                       \
        case 5: F##_neg(r, a); break;                                                                       \
        default: F##_dbl(r, a); break;                                                                      \
        }                                                                                                   \
    }                                                                                                       \
    static void F##_check_all_ops(prim_env *e, const char *kernel, test_rng *rng)                           \
    {                                                                                                       \
        F a[PRIM_N], b[PRIM_N], got[PRIM_N], want;                                                          \
        F##_fill(a, PRIM_N, rng);                                                                           \
        F##_fill(b, PRIM_N, rng);                                                                           \
        b[0] = a[5]; /* a - a, a + (p - a) style coincidences */                                            \
        for (unsigned op = 0; op < 7; op++) {                                                               \
            const void *ins[2] = {a, b};                                                                    \
            size_t sizes[2] = {sizeof(F), sizeof(F)};                                                       \
            prim_run(e, kernel, op, ins, sizes, 2, got, sizeof(F), PRIM_N);                                 \
            for (size_t i = 0; i < PRIM_N; i++) {                                                           \
                F##_host_op(&want, op, &a[i], &b[i]);                                                       \
                assert_seeded(memcmp(&want, &got[i], sizeof want) == 0, "%s op %u element %zu differs",     \
                              #F, op, i);                                                                   \
            }                                                                                               \
        }                                                                                                   \
    }

FIELD_PRIMS(bn254_fp, BN254_FP, 4)
FIELD_PRIMS(bn254_fr, BN254_FR, 4)
FIELD_PRIMS(bls12_381_fp, BLS12_381_FP, 6)
FIELD_PRIMS(bls12_381_fr, BLS12_381_FR, 4)

/* Points: random multiples of the generator as XYZZ with non-trivial zz, plus infinity,
 * equal pairs (doubling inside add) and P beside -P (cancellation). */
#define POINT_PRIMS(EC)                                                                                          \
    static void EC##_check_all_ops(prim_env *e, test_rng *rng)                                                \
    {                                                                                                         \
        EC##_xyzz p[PRIM_N], q[PRIM_N], got[PRIM_N], want;                                                    \
        EC##_affine a[PRIM_N], g;                                                                             \
        EC##_affine_generator(&g);                                                                            \
        for (size_t i = 0; i < PRIM_N; i++) {                                                                 \
            uint64_t k[4] = {test_rng_next(rng), test_rng_next(rng), 0, 0};                                   \
            EC##_jac j;                                                                                       \
            EC##_jac_mul_var(&j, &g, k);                                                                      \
            EC##_jac_to_affine(&a[i], &j);                                                                    \
            EC##_xyzz_from_affine(&p[i], &a[i]);                                                              \
            EC##_xyzz_dbl(&p[i], &p[i]);                                                                      \
            EC##_xyzz_add_affine(&q[i], &p[i], &g);                                                           \
        }                                                                                                     \
        EC##_xyzz_set_inf(&p[0]);                                                                             \
        EC##_affine_set_inf(&a[1]);                                                                           \
        q[2] = p[2];                                                                                          \
        EC##_xyzz_neg(&q[3], &p[3]);                                                                          \
        EC##_xyzz_to_affine(&a[4], &p[4]);                                                                    \
        EC##_affine_neg(&a[5], &a[4]);                                                                        \
        EC##_xyzz_from_affine(&p[5], &a[4]);                                                                  \
        for (unsigned op = 0; op < 5; op++) {                                                                 \
            const void *ins[3] = {p, q, a};                                                                   \
            size_t sizes[3] = {sizeof p[0], sizeof q[0], sizeof a[0]};                                        \
            prim_run(e, "g1_op", op, ins, sizes, 3, got, sizeof got[0], PRIM_N);                              \
            for (size_t i = 0; i < PRIM_N; i++) {                                                             \
                switch (op) {                                                                                 \
                case 0: EC##_xyzz_add(&want, &p[i], &q[i]); break;                                            \
                case 1: EC##_xyzz_dbl(&want, &p[i]); break;                                                   \
                case 2: EC##_xyzz_add_affine(&want, &p[i], &a[i]); break;                                     \
                case 3: EC##_xyzz_dbl_affine(&want, &a[i]); break;                                            \
                default: {                                                                                    \
                    EC##_affine t;                                                                            \
                    EC##_xyzz_to_affine(&t, &p[i]);                                                           \
                    EC##_xyzz_set_inf(&want);                                                                 \
                    want.x = t.x;                                                                             \
                    want.y = t.y;                                                                             \
                }                                                                                             \
                }                                                                                             \
                assert_seeded(memcmp(&want, &got[i], sizeof want) == 0, "%s op %u point %zu differs", #EC, op, i); \
            }                                                                                                 \
        }                                                                                                     \
    }

POINT_PRIMS(bn254_g1)
POINT_PRIMS(bls12_381_g1)

/* _i = curve index * CL_WORDS_VARIANTS + word variant */
START_TEST(primitives_match_the_host_bit_for_bit)
{
    int curve = _i / CL_WORDS_VARIANTS + 1, words = _i % CL_WORDS_VARIANTS;
    prim_env e;
    test_rng rng;
    test_rng_init(&rng, 100 + (uint64_t)_i);
    prim_open(&e, curve, CL_WORDS_STANDARD);
    if (words != CL_WORDS_STANDARD) {
        if (words == CL_WORDS_INT128 && !e.dev->is_pocl) {
            cl_runtime_close(e.rt);
            return; /* the int128 words exist on POCL only */
        }
        char detail[CL_DETAIL_LEN] = "";
        ck_assert_msg(cl_dev_program(e.rt, e.dev, CL_PROG_TEST, curve, words, &e.prog, detail) == 0, "%s", detail);
    }
    if (curve == HPR_CURVE_BN254) {
        bn254_fp_check_all_ops(&e, "fp_op", &rng);
        bn254_fr_check_all_ops(&e, "fr_op", &rng);
        bn254_g1_check_all_ops(&e, &rng);
    } else {
        bls12_381_fp_check_all_ops(&e, "fp_op", &rng);
        bls12_381_fr_check_all_ops(&e, "fr_op", &rng);
        bls12_381_g1_check_all_ops(&e, &rng);
    }
    cl_runtime_close(e.rt);
}
END_TEST

/* ---- MSM ---- */

static void cpu_reference(const curve_t *c, const inputs *in, unsigned char *want)
{
    hpr_ctx *cpu = make_ctx("cpu");
    ck_assert_int_eq(hpr_msm(cpu, c->curve, HPR_G1, in->points, in->scalars, in->n, want), HPR_OK);
    hpr_ctx_destroy(cpu);
}

static void expect_device_msm(hpr_ctx *ctx, const curve_t *c, const inputs *in, const char *what)
{
    unsigned char want[MAXP];
    cpu_reference(c, in, want);
    expect_msm(ctx, c, in, want, NULL, what);
    assert_seeded(hpr_ctx_notice(ctx)[0] == '\0', "%s: the device was not used: %s", what, hpr_ctx_notice(ctx));
}

static const unsigned edge_sets[] = {0, EDGE_ZEROS | EDGE_ONES | EDGE_R_MINUS_1, EDGE_EQUAL_POINTS | EDGE_R_MINUS_1,
                                     EDGE_NEG_PAIRS | EDGE_ONES, EDGE_INFINITY | EDGE_ZEROS, 63};

START_TEST(msm_edge_matrix_matches_the_cpu)
{
    const curve_t *c = &curves[_i];
    static const size_t sizes[] = {1, 2, 3, 7, 64, 1000};
    char id[16];
    first_device(id);
    hpr_ctx *ctx = make_ctx(id);
    for (size_t s = 0; s < sizeof sizes / sizeof sizes[0]; s++)
        for (size_t e = 0; e < sizeof edge_sets / sizeof edge_sets[0]; e++) {
            inputs in = make_inputs(ctx, c, sizes[s], 1000 + 10 * s + e, edge_sets[e]);
            char what[64];
            snprintf(what, sizeof what, "%s edges %u", id, edge_sets[e]);
            expect_device_msm(ctx, c, &in, what);
            if (sizes[s] <= 64) {
                unsigned char naive[MAXP];
                c->naive(naive, in.points, in.scalars, in.n);
                expect_msm(ctx, c, &in, naive, NULL, "vs naive");
            }
            free_inputs(&in);
        }
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(msm_random_sizes_and_window_bits_match_the_cpu)
{
    const curve_t *c = &curves[_i];
    char id[16];
    test_rng rng;
    test_rng_init(&rng, 200 + (uint64_t)_i);
    first_device(id);
    hpr_ctx *ctx = make_ctx("cpu");
    const size_t n_values[] = {(size_t)(1 + test_rng_next(&rng) % 5000), 1u << 14};
    for (size_t k = 0; k < 2; k++) {
        inputs in = make_inputs(ctx, c, n_values[k], 300 + k, 0);
        unsigned char want[MAXP];
        cpu_reference(c, &in, want);
        for (unsigned t = 0; t < 3; t++) {
            hpr_msm_opts opts = {t == 0 ? 0 : (unsigned)(1 + test_rng_next(&rng) % 16), 0, 0, id};
            char what[64];
            snprintf(what, sizeof what, "%s c=%u", id, opts.window_bits);
            expect_msm(ctx, c, &in, want, &opts, what);
            assert_seeded(hpr_ctx_notice(ctx)[0] == '\0', "%s: %s", what, hpr_ctx_notice(ctx));
        }
        free_inputs(&in);
    }
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(msm_with_32_bit_words_matches_the_cpu)
{
    const curve_t *c = &curves[_i];
    char id[16];
    first_device(id);
    setenv("HPR_CL_WORDS", "limb32", 1);
    hpr_ctx *ctx = make_ctx(id);
    inputs in = make_inputs(ctx, c, 700, 800, 63);
    expect_device_msm(ctx, c, &in, "limb32 words");
    hpr_device_report rep;
    ck_assert_int_eq(hpr_device_prepare(ctx, id, c->curve, &rep), HPR_OK);
    ck_assert_str_eq(rep.words, "limb32");
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(chunked_msm_matches_and_reports_global_indices)
{
    const curve_t *c = &curves[_i];
    char id[16], what[64];
    first_device(id);
    /* chunks of 100 points: 1000 points take 10 chunks on two alternating queues */
    snprintf(what, sizeof what, "%zu", 100 * c->point_size);
    setenv("HPR_CL_MAX_ALLOC", what, 1);
    hpr_ctx *ctx = make_ctx(id);
    inputs in = make_inputs(ctx, c, 1000, 400, EDGE_ZEROS | EDGE_INFINITY | EDGE_ONES);
    expect_device_msm(ctx, c, &in, "chunked");
    in.points[c->point_size * 777 + 5] ^= 1; /* off the curve, in chunk 7 */
    in.points[c->point_size * 912 + c->point_size - 1] = 0xff; /* y >= p, in chunk 9 */
    unsigned char got[MAXP];
    ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, in.points, in.scalars, in.n, got), HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 777 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    in.points[c->point_size * 777 + 5] ^= 1;
    ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, in.points, in.scalars, in.n, got), HPR_ERR_COORDINATE_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 912 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(bad_scalars_are_rejected_before_the_device)
{
    const curve_t *c = &curves[_i];
    char id[16];
    unsigned char got[MAXP];
    first_device(id);
    hpr_ctx *ctx = make_ctx(id);
    inputs in = make_inputs(ctx, c, 50, 500, 0);
    memcpy(in.scalars + 32 * 17, c->order, 32); /* r itself */
    ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, in.points, in.scalars, in.n, got), HPR_ERR_SCALAR_OUT_OF_RANGE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "scalar 17 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* ---- faults, cache, absence ---- */

START_TEST(a_failing_device_is_reported_and_the_cpu_redoes_the_work)
{
    const curve_t *c = &curves[_i];
    char id[16];
    first_device(id);
    setenv("HPR_CL_INJECT_FAULT", id, 1);
    hpr_ctx *ctx = make_ctx(id);
    inputs in = make_inputs(ctx, c, 300, 600, EDGE_ONES);
    unsigned char want[MAXP];
    cpu_reference(c, &in, want);
    for (int call = 0; call < 2; call++) {
        expect_msm(ctx, c, &in, want, NULL, "with an injected fault");
        ck_assert_msg(strstr(hpr_ctx_notice(ctx), id) && strstr(hpr_ctx_notice(ctx), "computed on the CPU"), "notice: %s",
                      hpr_ctx_notice(ctx));
    }
    ck_assert_msg(strstr(hpr_ctx_notice(ctx), "unusable") != NULL, "second call: %s", hpr_ctx_notice(ctx));
    hpr_device_info info;
    ck_assert_int_eq(hpr_device_get_info(ctx, 0, &info), HPR_OK);
    ck_assert_int_eq(info.usable, 0);
    ck_assert_msg(strstr(info.status, "HPR_CL_INJECT_FAULT") != NULL, "%s", info.status);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

static void prepare(const char *id, hpr_device_report *rep)
{
    hpr_ctx *ctx = make_ctx("cpu");
    ck_assert_msg(hpr_device_prepare(ctx, id, HPR_CURVE_BN254, rep) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
    hpr_ctx_destroy(ctx);
}

START_TEST(binary_cache_hits_and_rebuilds_a_truncated_entry)
{
    char dir[] = "/tmp/hpr-cache-test-XXXXXX", id[16], path[4096], cmd[4200];
    hpr_device_report rep;
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("HPR_CACHE_DIR", dir, 1);
    first_device(id);
    prepare(id, &rep);
    ck_assert_int_eq(rep.cache_hit, 0);
    ck_assert_int_eq(rep.cache_written, 1);
    prepare(id, &rep);
    ck_assert_int_eq(rep.cache_hit, 1);
    /* truncate the one entry to half its size */
    snprintf(cmd, sizeof cmd, "f=$(ls %s/cl-*.bin) && test $(echo \"$f\" | wc -l) = 1 && truncate -s $(( $(stat -c %%s \"$f\") / 2 )) \"$f\"", dir);
    ck_assert_int_eq(system(cmd), 0);
    prepare(id, &rep);
    ck_assert_int_eq(rep.cache_hit, 0);
    ck_assert_int_eq(rep.cache_rebuilt, 1);
    ck_assert_int_eq(rep.cache_written, 1);
    prepare(id, &rep);
    ck_assert_int_eq(rep.cache_hit, 1);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    ck_assert_int_eq(system(path), 0);
}
END_TEST

START_TEST(without_opencl_the_cpu_still_runs)
{
    char dir[] = "/tmp/hpr-no-vendors-XXXXXX";
    unsigned char got[MAXP];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("OCL_ICD_VENDORS", dir, 1);
    hpr_ctx *ctx = make_ctx(NULL);
    ck_assert_int_eq(hpr_device_count(ctx), 0);
    ck_assert_msg(strstr(hpr_opencl_notice(ctx), "no OpenCL platform") != NULL, "%s", hpr_opencl_notice(ctx));
    inputs in = make_inputs(ctx, &curves[0], 10, 700, 0);
    hpr_msm_opts opts = {0, 0, 0, "cl:0.0"};
    ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, in.points, in.scalars, in.n, got, &opts),
                     HPR_ERR_UNKNOWN_DEVICE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "no OpenCL platform") != NULL, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_msm(ctx, HPR_CURVE_BN254, HPR_G1, in.points, in.scalars, in.n, got), HPR_OK);
    hpr_config cfg;
    hpr_ctx *bad = NULL;
    hpr_config_default(&cfg);
    cfg.devices = "cl:0.0";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &bad), HPR_ERR_UNKNOWN_DEVICE);
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
    rmdir(dir);
}
END_TEST

START_TEST(unknown_device_names_are_rejected)
{
    hpr_ctx *ctx = make_ctx("cpu");
    unsigned char pts[64] = {0}, sc[32] = {0}, got[64];
    const char *names[] = {"cl:99.0", "gpu", "cl:", ""};
    for (size_t i = 0; i < 4; i++) {
        hpr_msm_opts opts = {0, 0, 0, names[i]};
        ck_assert_int_eq(hpr_msm_ex(ctx, HPR_CURVE_BN254, HPR_G1, pts, sc, 1, got, &opts), HPR_ERR_UNKNOWN_DEVICE);
        ck_assert_msg(hpr_ctx_error_detail(ctx)[0] != '\0', "no detail for '%s'", names[i]);
    }
    hpr_ctx_destroy(ctx);
}
END_TEST

/* ---- the hybrid scheduler over the CPU and the OpenCL device ---- */

/* A context whose "all" includes the first OpenCL device: one CPU thread, and POCL limited
 * to one thread (set before OpenCL loads, in this forked test). */
static hpr_ctx *hybrid_ctx(void)
{
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 1);
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_config_default(&cfg);
    cfg.threads = 1;
    cfg.devices = "all";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    return ctx;
}

static void expect_both_devices_used(hpr_ctx *ctx, const char *what)
{
    hpr_run_report rep;
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    ck_assert_msg(rep.ndevices == 2, "%s: %u devices in the run (%s)", what, rep.ndevices, rep.notes);
    for (unsigned d = 0; d < rep.ndevices; d++)
        ck_assert_msg(rep.devices[d].tiles > 0 || rep.devices[d].failures > 0, "%s: %s got no tile", what,
                      rep.devices[d].device);
}

START_TEST(hybrid_splits_give_the_cpu_result)
{
    const curve_t *c = &curves[_i];
    test_rng rng;
    test_rng_init(&rng, 900 + (uint64_t)_i);
    /* the CPU can finish a small MSM before POCL asks for its first tile: hold one for it */
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1);
    hpr_ctx *ctx = hybrid_ctx();
    for (size_t e = 0; e < sizeof edge_sets / sizeof edge_sets[0]; e++) {
        size_t n = 600 + test_rng_next(&rng) % 1400;
        char tiles[64], what[96];
        /* random grids and tile shapes from the seed: min tile and probe (items), blocks per
         * window, window bits */
        snprintf(tiles, sizeof tiles, "%u,%u,%u,%u", (unsigned)(1 + test_rng_next(&rng) % 3),
                 (unsigned)(1 + test_rng_next(&rng) % 2), (unsigned)(1 + test_rng_next(&rng) % 8),
                 (unsigned)(3 + test_rng_next(&rng) % 10));
        setenv("HPR_SCHED_TILES", tiles, 1);
        inputs in = make_inputs(ctx, c, n, 950 + e, edge_sets[e]);
        snprintf(what, sizeof what, "hybrid n=%zu tiles %s edges %u", n, tiles, edge_sets[e]);
        unsigned char want[MAXP];
        cpu_reference(c, &in, want);
        expect_msm(ctx, c, &in, want, NULL, what);
        expect_both_devices_used(ctx, what);
        free_inputs(&in);
    }
    unsetenv("HPR_SCHED_EVERY_DEVICE");
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i: curve index * 3 + k; k = 1, 2 fails the device's k-th tile, k = 0 every tile */
START_TEST(hybrid_survives_device_faults)
{
    const curve_t *c = &curves[_i / 3];
    unsigned k = (unsigned)(_i % 3);
    char fault[32];
    hpr_run_report rep;
    snprintf(fault, sizeof fault, k ? "cl:0.0@%u" : "cl:0.0", k);
    setenv("HPR_SCHED_INJECT_FAULT", fault, 1);
    setenv("HPR_SCHED_TILES", "2,1,4,8", 1);
    hpr_ctx *ctx = hybrid_ctx();
    inputs in = make_inputs(ctx, c, 3000, 990 + k, EDGE_ONES | EDGE_ZEROS);
    unsigned char want[MAXP];
    cpu_reference(c, &in, want);
    expect_msm(ctx, c, &in, want, NULL, fault);
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    ck_assert_uint_eq(rep.ndevices, 2);
    ck_assert_msg(rep.devices[1].failures >= 1 && strstr(rep.devices[1].failure, "HPR_SCHED_INJECT_FAULT"),
                  "%s: report: failures %u '%s'", fault, rep.devices[1].failures, rep.devices[1].failure);
    ck_assert_msg(strstr(rep.notes, "cl:0.0") != NULL, "%s: notes '%s'", fault, rep.notes);
    if (k == 0) {
        ck_assert_int_eq(rep.devices[1].dropped, 1);
        ck_assert_uint_eq(rep.devices[1].tiles, 0);
    }
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(hybrid_reports_the_first_invalid_point)
{
    const curve_t *c = &curves[_i];
    unsigned char got[MAXP];
    setenv("HPR_SCHED_TILES", "2,1,2,6", 1);
    hpr_ctx *ctx = hybrid_ctx();
    inputs in = make_inputs(ctx, c, 1200, 1100, 0);
    in.points[c->point_size * 1111 + 3] ^= 1;
    in.points[c->point_size * 333 + 3] ^= 1;
    ck_assert_int_eq(hpr_msm(ctx, c->curve, HPR_G1, in.points, in.scalars, in.n, got), HPR_ERR_POINT_NOT_ON_CURVE);
    ck_assert_msg(strstr(hpr_ctx_error_detail(ctx), "point 333 ") != NULL, "%s", hpr_ctx_error_detail(ctx));
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(hybrid_leaves_out_a_device_that_would_oversubscribe_the_cores)
{
    hpr_config cfg;
    hpr_ctx *ctx = NULL;
    hpr_run_report rep;
    hpr_device_info info;
    hpr_config_default(&cfg);
    cfg.threads = 64; /* more than the cores: POCL cannot fit beside the pool */
    ck_assert_int_eq(hpr_ctx_create(&cfg, &ctx), HPR_OK);
    ck_assert_int_eq(hpr_device_get_info(ctx, 0, &info), HPR_OK);
    inputs in = make_inputs(ctx, &curves[0], 40000, 1200, 0); /* above the hybrid threshold */
    unsigned char want[MAXP];
    cpu_reference(&curves[0], &in, want);
    expect_msm(ctx, &curves[0], &in, want, NULL, "oversubscribed");
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    if (strcmp(info.kind, "cpu") == 0) {
        ck_assert_uint_eq(rep.ndevices, 1);
        ck_assert_msg(strstr(rep.notes, "left out") != NULL, "notes: %s", rep.notes);
    }
    free_inputs(&in);
    hpr_ctx_destroy(ctx);
}
END_TEST

static unsigned char *ntt_random(hpr_field field, size_t count, test_rng *rng);

START_TEST(calibration_is_stored_per_device_and_survives_a_corrupt_profile)
{
    char dir[] = "/tmp/hpr-profile-test-XXXXXX", id[16], path[256];
    unsigned sizes[2] = {8, 10};
    double speeds[2];
    ck_assert_ptr_nonnull(mkdtemp(dir));
    setenv("HPR_CACHE_DIR", dir, 1);
    first_device(id);
    hpr_ctx *ctx = make_ctx("cpu");
    ck_assert_double_eq(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), 0);
    ck_assert_int_eq(hpr_calibrate(ctx, "cpu", HPR_CURVE_BN254, sizes, 2, speeds), HPR_OK);
    ck_assert_int_eq(hpr_calibrate(ctx, id, HPR_CURVE_BN254, sizes, 2, NULL), HPR_OK);
    ck_assert(speeds[0] > 0 && speeds[1] > 0);
    /* the profile keeps one decimal */
    ck_assert_double_eq_tol(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), speeds[1], 0.1);
    ck_assert_double_eq_tol(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 20), speeds[1], 0.1); /* nearest */
    ck_assert(hpr_calibrated_speed(ctx, id, HPR_CURVE_BN254, 8) > 0);
    ck_assert_double_eq(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BLS12_381, 10), 0);
    ck_assert_int_eq(hpr_calibrate(ctx, "all", HPR_CURVE_BN254, sizes, 2, NULL), HPR_ERR_INVALID_ARGUMENT);
    /* the NTT's figures: per field, beside the curves' */
    double msm_10 = hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10);
    ck_assert_double_eq(hpr_calibrated_ntt_speed(ctx, "cpu", HPR_FIELD_KOALABEAR, 10), 0);
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "cpu", HPR_FIELD_KOALABEAR, sizes, 2, speeds), HPR_OK);
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, id, HPR_FIELD_KOALABEAR, sizes, 2, NULL), HPR_OK);
    ck_assert(speeds[0] > 0 && speeds[1] > 0);
    ck_assert_double_eq_tol(hpr_calibrated_ntt_speed(ctx, "cpu", HPR_FIELD_KOALABEAR, 12), speeds[1], 0.1);
    ck_assert(hpr_calibrated_ntt_speed(ctx, id, HPR_FIELD_KOALABEAR, 8) > 0);
    ck_assert_double_eq(hpr_calibrated_ntt_speed(ctx, "cpu", HPR_FIELD_BABYBEAR, 10), 0);
    ck_assert_double_eq_tol(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), msm_10, 0.1); /* kept */
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "all", HPR_FIELD_KOALABEAR, sizes, 2, NULL), HPR_ERR_INVALID_ARGUMENT);
    unsigned too_big[1] = {25};
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "cpu", HPR_FIELD_KOALABEAR, too_big, 1, NULL), HPR_ERR_INVALID_ARGUMENT);
    ck_assert_int_eq(hpr_calibrate_ntt(ctx, "cpu", (hpr_field)9, sizes, 1, NULL), HPR_ERR_UNSUPPORTED_FIELD);
    {   /* a batch under "all" starts from the calibrated speeds: the CPU's bits */
        size_t total = (size_t)8 << 10, es = hpr_field_element_size(HPR_FIELD_KOALABEAR);
        test_rng rng;
        test_rng_init(&rng, 1700);
        unsigned char *want = ntt_random(HPR_FIELD_KOALABEAR, total, &rng), *got = malloc(total * es);
        memcpy(got, want, total * es);
        hpr_ntt_opts opts = {0, HPR_NTT_NN, NULL, NULL, 8, 0, "cpu"};
        ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_KOALABEAR, 10, want, &opts), HPR_OK);
        opts.device = "all";
        ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_KOALABEAR, 10, got, &opts), HPR_OK);
        ck_assert(memcmp(want, got, total * es) == 0);
        free(want);
        free(got);
    }
    /* another thread count is another CPU identity */
    hpr_config cfg;
    hpr_ctx *one = NULL;
    hpr_config_default(&cfg);
    cfg.threads = 1;
    cfg.devices = "cpu";
    ck_assert_int_eq(hpr_ctx_create(&cfg, &one), HPR_OK);
    ck_assert_double_eq(hpr_calibrated_speed(one, "cpu", HPR_CURVE_BN254, 10), 0);
    hpr_ctx_destroy(one);
    /* garbage in the profile is ignored, and the next calibration rewrites it */
    snprintf(path, sizeof path, "%s/profile.json", dir);
    FILE *f = fopen(path, "w");
    ck_assert_ptr_nonnull(f);
    fputs("[\n  {\"key\": \"cpu|trunc", f);
    fclose(f);
    ck_assert_double_eq(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 10), 0);
    ck_assert_int_eq(hpr_calibrate(ctx, "cpu", HPR_CURVE_BN254, sizes, 1, NULL), HPR_OK);
    ck_assert(hpr_calibrated_speed(ctx, "cpu", HPR_CURVE_BN254, 8) > 0);
    hpr_ctx_destroy(ctx);
    snprintf(path, sizeof path, "rm -rf %s", dir);
    ck_assert_int_eq(system(path), 0);
}
END_TEST

/* ---- NTT: the butterflies on the device give the CPU's bits ---- */

static const hpr_field ntt_fields[] = {HPR_FIELD_BN254_FR, HPR_FIELD_BLS12_381_FR, HPR_FIELD_GOLDILOCKS,
                                       HPR_FIELD_BABYBEAR, HPR_FIELD_KOALABEAR};

/* count random canonical elements of field (top byte masked below every modulus's). */
static unsigned char *ntt_random(hpr_field field, size_t count, test_rng *rng)
{
    size_t es = hpr_field_element_size(field);
    unsigned char *d = malloc(count * es);
    for (size_t i = 0; i < count * es; i++)
        d[i] = (unsigned char)(test_rng_next(rng) & (i % es == es - 1 ? 0x1f : 0xff));
    return d;
}

/* _i = field: random sizes (2^0 .. 2^12), orders, directions, cosets and batches. */
START_TEST(ntt_on_the_device_equals_the_cpu)
{
    hpr_field field = ntt_fields[_i];
    size_t es = hpr_field_element_size(field);
    char id[16], what[128];
    test_rng rng;
    first_device(id);
    test_rng_init(&rng, 1300 + (uint64_t)_i);
    hpr_ctx *ctx = make_ctx("cpu");
    for (int round = 0; round < 10; round++) {
        unsigned log_n = round < 3 ? (unsigned)round : round == 3 ? 13u : (unsigned)(3 + test_rng_next(&rng) % 10);
        size_t cols = 1 + test_rng_next(&rng) % 3, total = cols << log_n;
        hpr_ntt_opts opts = {(int)(test_rng_next(&rng) % 2), (hpr_ntt_order)(test_rng_next(&rng) % 4),
                             test_rng_next(&rng) % 2 ? "7" : NULL, NULL, cols, (int)(test_rng_next(&rng) % 2), "cpu"};
        unsigned char *on_cpu = ntt_random(field, total, &rng), *on_dev = malloc(total * es);
        memcpy(on_dev, on_cpu, total * es);
        snprintf(what, sizeof what, "field %d 2^%u x %zu inverse %d order %d coset %s", (int)field, log_n, cols,
                 opts.inverse, (int)opts.order, opts.coset_shift ? opts.coset_shift : "-");
        ck_assert_msg(hpr_ntt(ctx, field, log_n, on_cpu, &opts) == HPR_OK, "%s: %s", what, hpr_ctx_error_detail(ctx));
        opts.device = id;
        ck_assert_msg(hpr_ntt(ctx, field, log_n, on_dev, &opts) == HPR_OK, "%s: %s", what, hpr_ctx_error_detail(ctx));
        ck_assert_msg(hpr_ctx_notice(ctx)[0] == '\0', "%s: the device fell back: %s", what, hpr_ctx_notice(ctx));
        ck_assert_msg(memcmp(on_cpu, on_dev, total * es) == 0, SEED_FMT "%s: the device's bits differ", test_seed,
                      what);
        free(on_cpu);
        free(on_dev);
    }
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(ntt_on_a_failing_device_is_redone_on_the_cpu)
{
    char id[16];
    test_rng rng;
    first_device(id);
    test_rng_init(&rng, 1400);
    setenv("HPR_CL_INJECT_FAULT", id, 1);
    hpr_ctx *ctx = make_ctx("cpu");
    hpr_ntt_opts opts = {0, HPR_NTT_NR, "3", NULL, 2, 0, "cpu"};
    unsigned char *want = ntt_random(HPR_FIELD_GOLDILOCKS, 2 << 9, &rng), *got = malloc((2 << 9) * 8);
    memcpy(got, want, (2 << 9) * 8);
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_GOLDILOCKS, 9, want, &opts), HPR_OK);
    opts.device = id;
    ck_assert_int_eq(hpr_ntt(ctx, HPR_FIELD_GOLDILOCKS, 9, got, &opts), HPR_OK);
    ck_assert_msg(strstr(hpr_ctx_notice(ctx), "HPR_CL_INJECT_FAULT") && strstr(hpr_ctx_notice(ctx), "CPU instead"),
                  "notice: %s", hpr_ctx_notice(ctx));
    ck_assert(memcmp(want, got, (2 << 9) * 8) == 0);
    unsetenv("HPR_CL_INJECT_FAULT");
    free(want);
    free(got);
    hpr_ctx_destroy(ctx);
}
END_TEST

/* _i = 0: columns of a batch dealt to the CPU and the device ("all") give the CPU's bits and
 * both devices take columns; _i = 1: the device fails every tile, the CPU redoes them. */
/* _i = field: one large column under "all" runs four-step, its sub-NTTs dealt between the
 * CPU and POCL: the CPU's bits for every direction and order, 2^12 (n1 = n2) and 2^13. */
START_TEST(one_large_ntt_split_four_step_gives_the_cpu_result)
{
    char id[16];
    test_rng rng;
    hpr_run_report rep;
    hpr_field field = ntt_fields[_i];
    size_t es = hpr_field_element_size(field);
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 1); /* before OpenCL loads (first_device): POCL fits beside 1 thread */
    setenv("HPR_NTT_FOUR_STEP", "1", 1);      /* POCL is a CPU device: not split unless forced */
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1); /* both devices take part */
    first_device(id);
    test_rng_init(&rng, 1600 + (uint64_t)_i);
    hpr_ctx *ctx = hybrid_ctx();
    for (unsigned round = 0; round < 4; round++) {
        unsigned log_n = 12 + round % 2;
        size_t n = (size_t)1 << log_n;
        hpr_ntt_opts opts = {(int)(round / 2), (hpr_ntt_order)((round + (unsigned)_i) % 4), round % 3 ? "5" : NULL,
                             NULL, 1, 0, "cpu"};
        unsigned char *want = ntt_random(field, n, &rng), *got = malloc(n * es);
        memcpy(got, want, n * es);
        ck_assert_int_eq(hpr_ntt(ctx, field, log_n, want, &opts), HPR_OK);
        opts.device = "all";
        ck_assert_msg(hpr_ntt(ctx, field, log_n, got, &opts) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
        ck_assert_msg(memcmp(want, got, n * es) == 0,
                      SEED_FMT "field %d 2^%u inverse %d order %d: the four-step split differs", test_seed, (int)field,
                      log_n, opts.inverse, (int)opts.order);
        ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
        ck_assert_msg(rep.ndevices == 2, "%u devices (%s)", rep.ndevices, rep.notes);
        ck_assert_uint_gt(rep.devices[0].tiles, 0);
        ck_assert_uint_gt(rep.devices[1].tiles, 1); /* a tile of each batch: the reports merged */
        free(want);
        free(got);
    }
    /* a failing device: its sub-NTTs are redone by the CPU, same bits, the failure reported */
    setenv("HPR_CL_INJECT_FAULT", id, 1);
    size_t n = (size_t)1 << 12;
    hpr_ntt_opts opts = {0, HPR_NTT_NN, NULL, NULL, 1, 0, "cpu"};
    unsigned char *want = ntt_random(field, n, &rng), *got = malloc(n * es);
    memcpy(got, want, n * es);
    ck_assert_int_eq(hpr_ntt(ctx, field, 12, want, &opts), HPR_OK);
    opts.device = "all";
    ck_assert_msg(hpr_ntt(ctx, field, 12, got, &opts) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
    ck_assert_msg(memcmp(want, got, n * es) == 0, SEED_FMT "field %d: the four-step split with a failing device differs",
                  test_seed, (int)field);
    ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
    ck_assert_msg(rep.ndevices == 2 && rep.devices[1].failures >= 1 &&
                      strstr(rep.devices[1].failure, "HPR_CL_INJECT_FAULT") != NULL,
                  "devices %u, failures %u: %s", rep.ndevices, rep.devices[1].failures, rep.devices[1].failure);
    unsetenv("HPR_CL_INJECT_FAULT");
    free(want);
    free(got);
    unsetenv("HPR_NTT_FOUR_STEP");
    unsetenv("HPR_SCHED_EVERY_DEVICE");
    hpr_ctx_destroy(ctx);
}
END_TEST

START_TEST(ntt_columns_split_across_devices_give_the_cpu_result)
{
    char id[16];
    test_rng rng;
    hpr_run_report rep;
    setenv("POCL_MAX_PTHREAD_COUNT", "1", 1); /* before OpenCL loads (first_device): POCL fits beside 1 thread */
    first_device(id);
    test_rng_init(&rng, 1500 + (uint64_t)_i);
    if (_i == 1)
        setenv("HPR_CL_INJECT_FAULT", id, 1);
    setenv("HPR_SCHED_EVERY_DEVICE", "1", 1); /* the CPU could finish before POCL's first probe */
    hpr_ctx *ctx = hybrid_ctx();
    for (size_t f = 0; f < sizeof ntt_fields / sizeof ntt_fields[0]; f++) {
        size_t es = hpr_field_element_size(ntt_fields[f]), cols = 32, total = cols << 12;
        hpr_ntt_opts opts = {(int)(f % 2), (hpr_ntt_order)(f % 4), "5", NULL, cols, (int)(f % 2), "cpu"};
        unsigned char *want = ntt_random(ntt_fields[f], total, &rng), *got = malloc(total * es);
        memcpy(got, want, total * es);
        ck_assert_int_eq(hpr_ntt(ctx, ntt_fields[f], 12, want, &opts), HPR_OK);
        opts.device = "all";
        ck_assert_msg(hpr_ntt(ctx, ntt_fields[f], 12, got, &opts) == HPR_OK, "%s", hpr_ctx_error_detail(ctx));
        ck_assert_msg(memcmp(want, got, total * es) == 0, SEED_FMT "field %d: the split differs", test_seed,
                      (int)ntt_fields[f]);
        ck_assert_int_eq(hpr_ctx_last_report(ctx, &rep), HPR_OK);
        ck_assert_msg(rep.ndevices == 2, "%u devices (%s)", rep.ndevices, rep.notes);
        ck_assert_uint_gt(rep.devices[0].tiles, 0);
        /* BN254 Fr, first: 32 columns of 2^12 keep the CPU busy long enough for the device's probe */
        if (_i == 0 && f == 0)
            ck_assert_uint_gt(rep.devices[1].tiles, 0);
        free(want);
        free(got);
        if (_i == 1) { /* dropped after two failures; the next runs leave it out as unusable */
            ck_assert_msg(rep.devices[1].failures >= 1 && strstr(rep.devices[1].failure, "HPR_CL_INJECT_FAULT"),
                          "failures %u: %s", rep.devices[1].failures, rep.devices[1].failure);
            break;
        }
    }
    unsetenv("HPR_CL_INJECT_FAULT");
    unsetenv("HPR_SCHED_EVERY_DEVICE");
    hpr_ctx_destroy(ctx);
}
END_TEST

/* ---- the Groth16 task graph ---- */

static char *read_text(const char *fixture, const char *file)
{
    char path[1024];
    const char *dir = getenv("HPR_FIXTURES_DIR");
    snprintf(path, sizeof path, "%s/%s/%s", dir ? dir : "tests/fixtures", fixture, file);
    FILE *fp = fopen(path, "rb");
    ck_assert_msg(fp != NULL, "cannot open %s (set HPR_FIXTURES_DIR)", path);
    fseek(fp, 0, SEEK_END);
    long len = ftell(fp);
    fseek(fp, 0, SEEK_SET);
    char *b = malloc((size_t)len + 1);
    ck_assert(fread(b, 1, (size_t)len, fp) == (size_t)len);
    b[len] = 0;
    fclose(fp);
    return b;
}

/* The r = s = 0 proof on ctx equals snarkjs's proof_r0s0.json; returns its report. */
static hpr_groth16_report graph_proof(hpr_ctx *ctx, const char *fixture, const char *what)
{
    static const unsigned char zero[32];
    char path[1024], *proof_json, *public_json, *want = read_text(fixture, "proof_r0s0.json");
    const char *dir = getenv("HPR_FIXTURES_DIR");
    hpr_groth16_prover *p = NULL;
    hpr_groth16_proof proof;
    hpr_wtns w;
    snprintf(path, sizeof path, "%s/%s/circuit.zkey", dir ? dir : "tests/fixtures", fixture);
    ck_assert_int_eq(hpr_groth16_prover_create(ctx, path, &p), HPR_OK);
    snprintf(path, sizeof path, "%s/%s/witness.wtns", dir ? dir : "tests/fixtures", fixture);
    FILE *fp = fopen(path, "rb");
    ck_assert_ptr_nonnull(fp);
    static unsigned char wt[1 << 20];
    size_t len = fread(wt, 1, sizeof wt, fp);
    fclose(fp);
    memset(&proof, 0, sizeof proof);
    ck_assert_int_eq(hpr_wtns_parse(ctx, wt, len, fixture, hpr_groth16_prover_zkey(p), &w), HPR_OK);
    hpr_status st = hpr_groth16_prove_values(ctx, p, w.values, zero, zero, &proof);
    ck_assert_msg(st == HPR_OK, "%s %s: %s (%s)", fixture, what, hpr_status_str(st), hpr_ctx_error_detail(ctx));
    ck_assert_int_eq(hpr_groth16_proof_json(&proof, &proof_json, &public_json), HPR_OK);
    ck_assert_msg(strcmp(proof_json, want) == 0, "%s %s: the proof differs from snarkjs's proof_r0s0.json", fixture, what);
    hpr_groth16_report rep = proof.report;
    free(proof_json);
    free(public_json);
    free(want);
    hpr_groth16_proof_free(&proof);
    hpr_wtns_free(&w);
    hpr_groth16_prover_destroy(p);
    return rep;
}

static int device_took_a_phase(const hpr_groth16_report *rep, const char *id)
{
    for (int i = 0; i < HPR_G16_PHASES; i++)
        if (strstr(rep->devices[i], id))
            return 1;
    return 0;
}

/* _i: 0 bn128_2e10, 1 bls12381_2e12. The graph over the CPU and the device gives snarkjs's
 * proof; without a calibration the device takes the first large G1 MSM; then the device
 * fails every MSM, the CPU redoes them, the proof is the same and the notice names the fault. */
START_TEST(groth16_graph_gives_the_snarkjs_proof)
{
    static const char *fixtures[] = {"bn128_2e10", "bls12381_2e12"};
    hpr_curve curve = _i == 0 ? HPR_CURVE_BN254 : HPR_CURVE_BLS12_381;
    char id[16];
    hpr_ctx *ctx = hybrid_ctx();
    first_device(id);
    hpr_groth16_report rep = graph_proof(ctx, fixtures[_i], "on the graph");
    ck_assert_str_eq(rep.devices[HPR_G16_MSM_B2], "cpu");
    ck_assert_str_eq(rep.devices[HPR_G16_H], "cpu");
    int uncalibrated = hpr_calibrated_speed(ctx, id, curve, 12) == 0 || hpr_calibrated_speed(ctx, "cpu", curve, 12) == 0;
    if (uncalibrated)
        ck_assert_msg(device_took_a_phase(&rep, id), "%s took no MSM of the proof", id);
    setenv("HPR_CL_INJECT_FAULT", id, 1);
    rep = graph_proof(ctx, fixtures[_i], "with a failing device");
    ck_assert_msg(!device_took_a_phase(&rep, id), "a failed device is named for a phase");
    if (uncalibrated) /* the device got an MSM, failed, and the CPU redid it */
        ck_assert_msg(strstr(hpr_ctx_notice(ctx), "HPR_CL_INJECT_FAULT") && strstr(hpr_ctx_notice(ctx), "CPU instead"),
                      "notice: %s", hpr_ctx_notice(ctx));
    unsetenv("HPR_CL_INJECT_FAULT");
    hpr_ctx_destroy(ctx);
}
END_TEST

static Suite *opencl_suite(void)
{
    Suite *s = suite_create("opencl");
    TCase *tc = tcase_create("opencl");
    tcase_set_timeout(tc, 900);
    tcase_add_loop_test(tc, primitives_match_the_host_bit_for_bit, 0, 2 * CL_WORDS_VARIANTS);
    tcase_add_loop_test(tc, msm_edge_matrix_matches_the_cpu, 0, 2);
    tcase_add_loop_test(tc, msm_random_sizes_and_window_bits_match_the_cpu, 0, 2);
    tcase_add_loop_test(tc, msm_with_32_bit_words_matches_the_cpu, 0, 2);
    tcase_add_loop_test(tc, chunked_msm_matches_and_reports_global_indices, 0, 2);
    tcase_add_loop_test(tc, bad_scalars_are_rejected_before_the_device, 0, 2);
    tcase_add_loop_test(tc, a_failing_device_is_reported_and_the_cpu_redoes_the_work, 0, 2);
    tcase_add_test(tc, binary_cache_hits_and_rebuilds_a_truncated_entry);
    tcase_add_test(tc, without_opencl_the_cpu_still_runs);
    tcase_add_test(tc, unknown_device_names_are_rejected);
    tcase_add_loop_test(tc, hybrid_splits_give_the_cpu_result, 0, 2);
    tcase_add_loop_test(tc, hybrid_survives_device_faults, 0, 6);
    tcase_add_loop_test(tc, hybrid_reports_the_first_invalid_point, 0, 2);
    tcase_add_test(tc, hybrid_leaves_out_a_device_that_would_oversubscribe_the_cores);
    tcase_add_test(tc, calibration_is_stored_per_device_and_survives_a_corrupt_profile);
    tcase_add_loop_test(tc, ntt_on_the_device_equals_the_cpu, 0, 5);
    tcase_add_test(tc, ntt_on_a_failing_device_is_redone_on_the_cpu);
    tcase_add_loop_test(tc, ntt_columns_split_across_devices_give_the_cpu_result, 0, 2);
    tcase_add_loop_test(tc, one_large_ntt_split_four_step_gives_the_cpu_result, 0, 5);
    tcase_add_loop_test(tc, groth16_graph_gives_the_snarkjs_proof, 0, 2);
    suite_add_tcase(s, tc);
    return s;
}

int main(void)
{
    test_seed_init();
    return run_suite(opencl_suite());
}
