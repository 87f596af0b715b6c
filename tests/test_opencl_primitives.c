/*
 * test_opencl_primitives.c: the OpenCL arithmetic on the first OpenCL device (POCL's CPU
 * device in CI), one kernel of the test program (kernels_cl/test_ops.cl) per primitive: the
 * field operations of Fp and Fr and the XYZZ point operations of G1, both curves, compared bit
 * for bit with the host build of the same arithmetic (arith/), in every word variant the
 * device offers (standard, int128 on POCL, limb32, ptx on NVIDIA). On the raw runtime
 * (cl_runtime_open).
 */
#include "opencl_support.h"

#include "arith/curves.h"

#include <string.h>

#define PRIM_N 64

/* ---- primitives: runs kernel `name` of the test program over buffers, on the raw runtime ---- */

typedef struct {
    cl_runtime *rt;
    cl_dev *dev;
    cl_program prog;
} prim_env;

static void prim_open(prim_env *e, int curve, int words)
{
    char id[16], detail[CL_DETAIL_LEN] = "";
    ocl_first_device(id);
    e->rt = ocl_runtime_open();
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
        if (!cl_dev_offers_words(e.dev, words)) {
            cl_runtime_close(e.rt);
            return; /* int128 words exist on POCL only, ptx words on NVIDIA only */
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

int main(void)
{
    test_seed_init();
    Suite *s = suite_create("opencl_primitives");
    TCase *tc = test_case(s, "primitives", 900); /* each test builds the test program of one curve and word variant */
    tcase_add_loop_test(tc, primitives_match_the_host_bit_for_bit, 0, 2 * CL_WORDS_VARIANTS);
    return run_suite(s);
}
