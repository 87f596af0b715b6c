/*
 * ntt_simd_fields_impl.h: the vector tiers' NTT of Goldilocks, BabyBear and KoalaBear, one
 * template over the vector instruction set: ntt_avx512.c (16 lanes of 32 bits, 8 of 64) and
 * ntt_avx2.c (8 and 4) include it once, after defining
 *   SIMD_TIER                  the tier's name as a token (avx512, avx2): the tables are
 *                              ntt_goldilocks_<tier>_ops, ntt_babybear_<tier>_ops, ...;
 *   SIMD_V, SIMD_LOAD(p), SIMD_STORE(p, v), SIMD_SET1_32(x)   the vector type, unaligned
 *                              load and store, a 32-bit value in every lane;
 *   glv_add, glv_sub, glv_mul (a, b)   Goldilocks lane by lane, and m31v_add, m31v_sub (a, b,
 *                              p), m31v_mul (a, b, p, pinv) for the 31-bit Montgomery fields:
 *                              lane for lane the scalar ones of arith/small_fields.h;
 *   SIMD_PERM32(a, idx, b), SIMD_PERM64(a, idx, b)   lane k of the result is lane idx[k] of
 *                              the 2 LANES lanes a then b (idx: 32-bit or 64-bit lanes);
 *   SIMD_M31_LANES, SIMD_M31_BITS, SIMD_GL_LANES, SIMD_GL_BITS   lanes and log2(lanes).
 * A unit that leaves SIMD_GL_LANES undefined (ntt_neon.c: NEON has no 64x64 multiplication;
 * see there) gets the 31-bit fields only and needs neither glv_* nor SIMD_PERM64.
 * What it builds on the portable template (ntt_impl.h): LANES butterflies at once wherever
 * that many consecutive ones share a block (NT_VDIF, NT_VDIT), the layers of span below the
 * vector width on pairs of vectors with their lanes regrouped by permutes (NT_VNARROW), and
 * the coset scaling a vector at a time (NT_VMUL). The bits are those of the portable tier
 * (tests/test_ntt.c compares every tier).
 */
#define SIMD_CAT_(a, b) a##b
#define SIMD_CAT(a, b) SIMD_CAT_(a, b)
#define SIMD_PFX(f) SIMD_CAT(ntt_##f##_, SIMD_TIER)
#define SIMD_OPS_NAME(field) SIMD_CAT(SIMD_CAT(ntt_##field##_, SIMD_TIER), _ops)

/* The lane-wise operations of each field (vector, vector), the constants folded in. */
#ifdef SIMD_GL_LANES
#define gl_vadd glv_add
#define gl_vsub glv_sub
#define gl_vmul glv_mul
#endif
#define SIMD_M31_OPS(F, P, PINV)                                                                     \
    static inline SIMD_V F##_vadd(SIMD_V a, SIMD_V b)                                                \
    {                                                                                                \
        return m31v_add(a, b, SIMD_SET1_32((int)(P)));                                               \
    }                                                                                                \
    static inline SIMD_V F##_vsub(SIMD_V a, SIMD_V b)                                                \
    {                                                                                                \
        return m31v_sub(a, b, SIMD_SET1_32((int)(P)));                                               \
    }                                                                                                \
    static inline SIMD_V F##_vmul(SIMD_V a, SIMD_V b)                                                \
    {                                                                                                \
        return m31v_mul(a, b, SIMD_SET1_32((int)(P)), SIMD_SET1_32((int)(PINV)));                    \
    }
SIMD_M31_OPS(bb, BB_P, BB_PINV)
SIMD_M31_OPS(kb, KB_P, KB_PINV)

/* LANES butterflies at x[j ..] and x[j + len ..] with tw[len + j ..] (the forms of ntt_impl.h's
 * scalar butterflies), and r[k] = a[k] b[k] for one vector of elements. */
#define SIMD_BUTTERFLIES(F)                                                                          \
    static inline void F##_vdif(F##_t *x, const F##_t *tw, size_t len, size_t j)                     \
    {                                                                                                \
        SIMD_V u = SIMD_LOAD(x + j), v = SIMD_LOAD(x + j + len), w = SIMD_LOAD(tw + len + j);        \
        SIMD_STORE(x + j, F##_vadd(u, v));                                                           \
        SIMD_STORE(x + j + len, F##_vmul(F##_vsub(u, v), w));                                        \
    }                                                                                                \
    static inline void F##_vdit(F##_t *x, const F##_t *tw, size_t len, size_t j)                     \
    {                                                                                                \
        SIMD_V u = SIMD_LOAD(x + j), w = SIMD_LOAD(tw + len + j);                                    \
        SIMD_V v = F##_vmul(SIMD_LOAD(x + j + len), w);                                              \
        SIMD_STORE(x + j, F##_vadd(u, v));                                                           \
        SIMD_STORE(x + j + len, F##_vsub(u, v));                                                     \
    }                                                                                                \
    static inline void F##_vmul_n(F##_t *r, const F##_t *a, const F##_t *b)                          \
    {                                                                                                \
        SIMD_STORE(r, F##_vmul(SIMD_LOAD(a), SIMD_LOAD(b)));                                         \
    }

/* NT_VNARROW of ntt_impl.h: the layers of span below the vector width (LANES elements, BITS
 * layers) on the 2 LANES elements at x, in registers. For span s, u gathers the elements
 * whose bit s is clear (in order: lane k holds element k / s * 2s + k % s) and v the
 * others, so lane k of a butterfly takes the twiddle tw[s + k % s]; then the lanes go back.
 * The plan (index and twiddle vectors) is made once per cache block. Span 1's twiddle is 1. */
#define SIMD_NARROW_LAYERS(F, IDX_T, LANES, BITS, PERM)                                              \
    typedef struct {                                                                                 \
        SIMD_V split[BITS][2], merge[BITS][2], tw[BITS];                                             \
    } F##_narrow_plan;                                                                               \
    static void F##_narrow_prep(F##_narrow_plan *pl, const F##_t *tw)                                \
    {                                                                                                \
        for (unsigned sb = 0; sb < (BITS); sb++) {                                                   \
            size_t s = (size_t)1 << sb;                                                              \
            IDX_T idx[4][LANES];                                                                     \
            F##_t pattern[LANES];                                                                    \
            for (size_t k = 0; k < (LANES); k++) {                                                   \
                idx[0][k] = (IDX_T)(k / s * 2 * s + k % s);                                          \
                idx[1][k] = (IDX_T)(k / s * 2 * s + k % s + s);                                      \
                pattern[k] = tw[s + k % s];                                                          \
            }                                                                                        \
            for (size_t e = 0; e < 2 * (LANES); e++) {                                               \
                size_t lane = e / (2 * s) * s + e % s;                                               \
                idx[2 + e / (LANES)][e % (LANES)] = (IDX_T)((e & s) ? (LANES) + lane : lane);        \
            }                                                                                        \
            for (int h = 0; h < 2; h++) {                                                            \
                pl->split[sb][h] = SIMD_LOAD(idx[h]);                                                \
                pl->merge[sb][h] = SIMD_LOAD(idx[2 + h]);                                            \
            }                                                                                        \
            pl->tw[sb] = SIMD_LOAD(pattern);                                                         \
        }                                                                                            \
    }                                                                                                \
    static inline void F##_narrow(F##_t *x, const F##_narrow_plan *pl, int dit)                      \
    {                                                                                                \
        SIMD_V a = SIMD_LOAD(x), b = SIMD_LOAD(x + (LANES));                                         \
        for (unsigned step = 0; step < (BITS); step++) {                                             \
            unsigned sb = dit ? step : (BITS)-1 - step;                                              \
            SIMD_V u = PERM(a, pl->split[sb][0], b), v = PERM(a, pl->split[sb][1], b), t;            \
            if (dit) {                                                                               \
                t = sb ? F##_vmul(v, pl->tw[sb]) : v;                                                \
                v = F##_vsub(u, t);                                                                  \
                u = F##_vadd(u, t);                                                                  \
            } else {                                                                                 \
                t = F##_vsub(u, v);                                                                  \
                u = F##_vadd(u, v);                                                                  \
                v = sb ? F##_vmul(t, pl->tw[sb]) : t;                                                \
            }                                                                                        \
            a = PERM(u, pl->merge[sb][0], v);                                                        \
            b = PERM(u, pl->merge[sb][1], v);                                                        \
        }                                                                                            \
        SIMD_STORE(x, a);                                                                            \
        SIMD_STORE(x + (LANES), b);                                                                  \
    }

SIMD_BUTTERFLIES(bb)
SIMD_BUTTERFLIES(kb)
SIMD_NARROW_LAYERS(bb, int32_t, SIMD_M31_LANES, SIMD_M31_BITS, SIMD_PERM32)
SIMD_NARROW_LAYERS(kb, int32_t, SIMD_M31_LANES, SIMD_M31_BITS, SIMD_PERM32)
SMALL_FIELD_COMMON(simd, bb, BB_P)
SMALL_FIELD_COMMON(simd, kb, KB_P)

/* the macros of ntt_field_entries.h paste their prefix: expand SIMD_PFX(...) first */
#define SIMD_ENTRIES(PFX, F) SMALL_FIELD_ENTRIES(PFX, F)
#define SIMD_NTT_OPS(NAME, LABEL, PFX, BYTES, ADICITY, GEN, MOD) NTT_OPS(NAME, LABEL, PFX, PFX, BYTES, ADICITY, GEN, MOD)

#ifdef SIMD_GL_LANES
SIMD_BUTTERFLIES(gl)
SIMD_NARROW_LAYERS(gl, int64_t, SIMD_GL_LANES, SIMD_GL_BITS, SIMD_PERM64)
SMALL_FIELD_COMMON(simd, gl, GL_P)
SIMD_ENTRIES(SIMD_PFX(gl), gl)
#define NT_T gl_t
#define NT_PFX SIMD_PFX(gl)
#define NT_ADD gl_add
#define NT_SUB gl_sub
#define NT_MUL gl_mul
#define NT_VEC SIMD_GL_LANES
#define NT_VDIF gl_vdif
#define NT_VDIT gl_vdit
#define NT_VMUL gl_vmul_n
#define NT_VNARROW gl_narrow
#define NT_VNARROW_T gl_narrow_plan
#define NT_VNARROW_PREP gl_narrow_prep
#include "ntt_impl.h"
SIMD_NTT_OPS(SIMD_OPS_NAME(goldilocks), "goldilocks", SIMD_PFX(gl), 8, 32, 7, simd_gl_modulus);
#endif

SIMD_ENTRIES(SIMD_PFX(bb), bb)
#define NT_T bb_t
#define NT_PFX SIMD_PFX(bb)
#define NT_ADD bb_add
#define NT_SUB bb_sub
#define NT_MUL bb_mul
#define NT_VEC SIMD_M31_LANES
#define NT_VDIF bb_vdif
#define NT_VDIT bb_vdit
#define NT_VMUL bb_vmul_n
#define NT_VNARROW bb_narrow
#define NT_VNARROW_T bb_narrow_plan
#define NT_VNARROW_PREP bb_narrow_prep
#include "ntt_impl.h"

SIMD_ENTRIES(SIMD_PFX(kb), kb)
#define NT_T kb_t
#define NT_PFX SIMD_PFX(kb)
#define NT_ADD kb_add
#define NT_SUB kb_sub
#define NT_MUL kb_mul
#define NT_VEC SIMD_M31_LANES
#define NT_VDIF kb_vdif
#define NT_VDIT kb_vdit
#define NT_VMUL kb_vmul_n
#define NT_VNARROW kb_narrow
#define NT_VNARROW_T kb_narrow_plan
#define NT_VNARROW_PREP kb_narrow_prep
#include "ntt_impl.h"

SIMD_NTT_OPS(SIMD_OPS_NAME(babybear), "babybear", SIMD_PFX(bb), 4, 27, 31, simd_bb_modulus);
SIMD_NTT_OPS(SIMD_OPS_NAME(koalabear), "koalabear", SIMD_PFX(kb), 4, 24, 3, simd_kb_modulus);
