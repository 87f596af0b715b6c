/*
 * msm_cpu.c: the portable CPU MSM kernels for G1 and G2 of BN254 and BLS12-381 (see
 * msm_cpu_impl.h) and their operation tables. The tile kernel is batch-affine
 * (msm_batch_affine_impl.h, with the XYZZ tile of msm_cpu_tile_impl.h for windows below 9
 * bits) over Fp for BLS12-381 G1 and over Fq2 (fe2_impl.h) for G2; BN254 G1 is the XYZZ tile
 * on x86-64 and batch-affine on AArch64 (measured below). Every tier has both groups (avx512:
 * msm_ifma.c).
 */
#include "msm_cpu.h"

#include "portable_fe_backend.h"
#include "arith/curves.h"

#define CPU_EC bn254_g1
#define CPU_F bn254_fp
#include "msm_cpu_impl.h"

#define CPU_EC bls12_381_g1
#define CPU_F bls12_381_fp
#include "msm_cpu_impl.h"

#define CPU_EC bn254_g2
#define CPU_F bn254_fq2
#include "msm_cpu_impl.h"

#define CPU_EC bls12_381_g2
#define CPU_F bls12_381_fq2
#include "msm_cpu_impl.h"

/* BN254 G1 keeps the XYZZ tile on this tier: batch-affine measured slower here (2-core Zen 3,
 * 2^18 and 2^20 points: 1558 against 1052-1347 ms, 5200-5787 against 4512-4955 ms), while
 * BLS12-381 G1 gained (2^20: 10556-10873 against 12220-13618 ms) and so did both on adx.
 * Measured again with the divsteps inversion (same machine, three alternated runs, median of
 * 3 each): a wash, batch-affine 2^16 422-429 against 378-458 ms, 2^18 1325-1605 against
 * 1131-1649 ms, 2^20 5670-6401 against 5932-6106 ms; XYZZ stays.
 * On AArch64, where the field's multiplication, addition and subtraction are assembly (the
 * adx tier's situation, where batch-affine won), BN254 G1 is batch-affine: guest instructions
 * per MSM counted under qemu-aarch64 (hyprove bench msm --curve bn254 --threads 1, repeat 3
 * less repeat 1), 2^12: 201 million against XYZZ's 250 (1.24x fewer), 2^14: 654 against 858
 * (1.31x). Not timed on ARM hardware. */
#define CPU_EC bn254_g1
#define CPU_F bn254_fp
#ifdef FE_ARM64
#define CPU_BATCH_AFFINE 1
#endif
#define CPU_TIER_NAME "portable"
#define CPU_KERNEL msm_bn254_g1_portable_kernel
#include "msm_cpu_tile_impl.h"

#define CPU_EC bls12_381_g1
#define CPU_F bls12_381_fp
#define CPU_BATCH_AFFINE 1
#define CPU_TIER_NAME "portable"
#define CPU_KERNEL msm_bls12_381_g1_portable_kernel
#include "msm_cpu_tile_impl.h"

#define CPU_EC bn254_g2
#define CPU_F bn254_fq2
#define CPU_DEGREE 2
#define CPU_BATCH_AFFINE 1
#define CPU_TIER_NAME "portable"
#define CPU_KERNEL msm_bn254_g2_portable_kernel
#include "msm_cpu_tile_impl.h"

#define CPU_EC bls12_381_g2
#define CPU_F bls12_381_fq2
#define CPU_DEGREE 2
#define CPU_BATCH_AFFINE 1
#define CPU_TIER_NAME "portable"
#define CPU_KERNEL msm_bls12_381_g2_portable_kernel
#include "msm_cpu_tile_impl.h"

_Static_assert(MSM_MAX_WINDOW_BITS == MSM_IMPL_MAX_WINDOW_BITS, "one window limit");

unsigned msm_window_count(unsigned bits, unsigned c)
{
    return msm_digit_windows(bits, c);
}

/* msm_top_digit with the window's plan (arith/msm_impl.h: which limbs, the shifts, the
 * width) worked out once per window: the loop over the scalars is then a dozen operations
 * without branches. At 2^20 BN254 scalars the 17 windows' digits took 47 ms with
 * msm_top_digit per digit, 35 ms so (2-core Zen 4, one thread; the rest is writing 34 MB of
 * fresh pages). Windows stay the outer loop: a block of the list's scalars (DECODE_BLOCK)
 * stays in the cache across them, and with the scalars outer, 17 rows written at once made
 * it slower (66 ms). */
void msm_digits(int16_t *digits, size_t stride, const msm_scalar *scalars, const uint32_t *index, size_t begin,
                size_t end, unsigned w0, unsigned w1, unsigned c, unsigned top)
{
    for (unsigned w = w0; w < w1; w++) {
        msm_digit_plan plan = msm_plan_slice_digit(0, top, w, c);
        int16_t *row = digits + w * stride;
        for (size_t i = begin; i < end; i++)
            row[i] = (int16_t)msm_planned_digit(&plan, scalars[index[i]].l);
    }
}

/* Both curves' scalars have 4 limbs: the byte conversion of the 4-limb fields serves them. */
void msm_scalar_from_bytes(msm_scalar *k, const unsigned char *bytes)
{
    bn254_fr_limbs_from_bytes(k->l, bytes);
}

void msm_scalar_to_bytes(unsigned char *bytes, const msm_scalar *k)
{
    bn254_fr_limbs_to_bytes(bytes, k->l);
}

static const uint64_t bn254_order[4] = BN254_G1_ORDER;
static const uint64_t bls12_381_order[4] = BLS12_381_G1_ORDER;

#if HPR_HAVE_ADX
extern const msm_cpu_kernel msm_bn254_g1_adx_kernel, msm_bls12_381_g1_adx_kernel, msm_bn254_g2_adx_kernel,
    msm_bls12_381_g2_adx_kernel;
#define ADX_KERNEL(curve) &msm_##curve##_adx_kernel
#else
#define ADX_KERNEL(curve) NULL
#endif

#if HPR_HAVE_IFMA
extern const msm_cpu_kernel msm_bn254_g1_ifma_kernel, msm_bls12_381_g1_ifma_kernel, msm_bn254_g2_ifma_kernel,
    msm_bls12_381_g2_ifma_kernel;
#define IFMA_KERNEL(curve) &msm_##curve##_ifma_kernel
#else
#define IFMA_KERNEL(curve) NULL
#endif

#define OPS(curve, field, deg, order_limbs, order_bits, label, ifma)                                          \
    static const struct msm_cpu_tiers msm_##curve##_tiers = {                                       \
        {[RT_CPU_PORTABLE] = &msm_##curve##_portable_kernel, [RT_CPU_ADX] = ADX_KERNEL(curve),         \
         [RT_CPU_AVX512] = ifma}}; /* avx2: the adx kernels */                                      \
    const msm_curve_ops msm_##curve##_ops = {                                                      \
        .name = label,                                                                             \
        .field_bytes = sizeof(field),                                                              \
        .degree = deg,                                                                             \
        .affine_size = sizeof(curve##_affine),                                                     \
        .xyzz_size = sizeof(curve##_xyzz),                                                         \
        .scalar_bits = order_bits,                                                                 \
        .order = order_limbs,                                                                      \
        .tiers = &msm_##curve##_tiers,                                                             \
        .sum_points = curve##_tile_sum_points, /* the portable kernel's */                         \
        .xyzz_set_inf = curve##_cpu_xyzz_set_inf,                                                  \
        .xyzz_add = curve##_cpu_xyzz_add,                                                          \
        .combine_windows = curve##_cpu_combine_windows,                                            \
        .decode_point = curve##_cpu_decode_point,                                                  \
        .encode_xyzz = curve##_cpu_encode_xyzz,                                                    \
        .affine_to_canonical = curve##_cpu_affine_to_canonical,                                    \
        .affine_from_canonical = curve##_cpu_affine_from_canonical,                                \
        .in_subgroup = curve##_cpu_in_subgroup,                                                    \
        .fp_mul = curve##_cpu_fp_mul,                                                              \
    }

OPS(bn254_g1, bn254_fp, 1, bn254_order, BN254_FR_BITS, "bn254 G1", IFMA_KERNEL(bn254_g1));
OPS(bls12_381_g1, bls12_381_fp, 1, bls12_381_order, BLS12_381_FR_BITS, "bls12-381 G1", IFMA_KERNEL(bls12_381_g1));
OPS(bn254_g2, bn254_fq2, 2, bn254_order, BN254_FR_BITS, "bn254 G2", IFMA_KERNEL(bn254_g2));
OPS(bls12_381_g2, bls12_381_fq2, 2, bls12_381_order, BLS12_381_FR_BITS, "bls12-381 G2", IFMA_KERNEL(bls12_381_g2));

const msm_cpu_kernel *msm_kernel_for(const msm_curve_ops *ops, rt_cpu_tier tier)
{
    if ((unsigned)tier >= RT_CPU_TIERS)
        tier = RT_CPU_PORTABLE;
    for (;; tier = rt_cpu_tier_fallback(tier))
        if (ops->tiers->kernels[tier] || tier == RT_CPU_PORTABLE)
            return ops->tiers->kernels[tier];
}
