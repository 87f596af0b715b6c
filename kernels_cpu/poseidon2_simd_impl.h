/*
 * poseidon2_simd_impl.h: the vector tiers' Poseidon2 kernels (poseidon2_cpu.h: KoalaBear
 * widths 16 and 24, BabyBear width 16), one template over the vector instruction set:
 * poseidon2_avx2.c (8 lanes) and poseidon2_avx512.c (16 lanes) include it once, after
 * defining
 *   P2V_VEC, P2V_LANES            the vector type (32-bit lanes) and its lane count;
 *   P2V_SET1(x), P2V_SETZERO()    an int32 in every lane, the zero vector;
 *   P2V_ADD32, P2V_SUB32, P2V_MINU32, P2V_AND (a, b)   lane-wise wrapping add and subtract,
 *                                 unsigned minimum, bitwise and;
 *   P2V_SRLI32(a, k), P2V_SLLI32(a, k)   lane-wise logical shifts by a constant;
 *   P2V_MUL_EPI32(a, b), P2V_MUL_EPU32(a, b)   the 64-bit products of the low (even) words of
 *                                 each 64-bit lane, signed and unsigned (vpmuldq, vpmuludq);
 *   P2V_ODD_DOWN(a)               the odd words of a copied into both words of each 64-bit lane;
 *   P2V_MERGE_HIGH(d_even, d_odd) the odd word of each 64-bit lane of d_even in the even words,
 *                                 d_odd's odd words in the odd words;
 *   P2V_ADD_IF_ODD(h, x, a)       h + a in the lanes where x is odd, h elsewhere;
 * and, after the include, the functions prototyped below under "what the including file
 * defines" (loads, stores and transposes of whole states and digests), then its table
 * p2_kernels_<tier> = {p2v_permute, p2v_hash_rows, p2v_compress, p2v_absorb}.
 *
 * Why one permutation per lane: vector i holds state element i of LANES different states, so
 * the whole permutation (S-boxes, the 4x4 blocks of the external layer, the sums of the
 * internal layer) is lane-wise arithmetic without a single shuffle, and every instruction
 * does LANES useful operations. (A state inside one vector would need a shuffle per 4x4
 * block and per sum, and leaves lanes idle in the internal rounds.) Shuffles happen only at
 * the edges, in the including file: a transpose of 32-bit words turns LANES contiguous
 * states or compression inputs into vectors and back; hash_rows needs none on input, as
 * column c of LANES consecutive rows is one contiguous load.
 *
 * The Montgomery lane trick (R = 2^32, p < 2^31, 32-bit lanes): p2v_mul is a signed lazy
 * Montgomery product. vpmuldq forms the signed 64-bit products t of the even lanes and, after
 * vpshufd moved the odd words down, of the odd ones; q = t p^-1 mod 2^32 (vpmuludq, low half)
 * and q p (vpmuldq, q a signed word) agree with t in the low 32 bits, so (t - q p) / 2^32 is
 * the difference of the high words, in (-p, p) whenever |t| < 2^31 p; P2V_MERGE_HIGH moves
 * the even lanes' results down next to the odd lanes'. 6 multiplications, no correction
 * step: the S-box chains such products on signed inputs and makes the result canonical once,
 * min(d, d + p) (the unsigned minimum is d + p exactly when d < 0). The round constant goes
 * in as rc - p in [-p, 0), so state + (rc - p) in [-p, p) is a valid S-box input after one
 * addition. Canonical sums and differences are min(s, s - p) and min(d, d + p), 3
 * instructions.
 * Internal layer out_i = V_i x_i + sum x, with Plonky3's diagonals (-2, 1, 2, 1/2, 3, 4, -1/2,
 * -3, -4, then +-1/2^k): no multiplication. 2x, 3x, 4x are sums; x/2 = (x >> 1) + (x odd)
 * (p + 1)/2; with p = (2^m - 1) 2^n + 1 (KoalaBear m = 7, n = 24; BabyBear m = 4, n = 27),
 * 2^-n = -(2^m - 1), so for x = hi 2^k + lo (2 <= k <= n) -x / 2^k = lo (2^m - 1) 2^(n-k) - hi
 * = (lo << (31 - k)) - (lo << (n - k)) - hi, in (-2^(31-k), p): five shifts and subtractions,
 * made canonical, then added to or subtracted from the sum. Element 0 (V = -2) becomes
 * sum_{i>0} x_i - x_0. These are field multiplications by V_i, so they commute with the
 * Montgomery form. (Measured against p2v_mul by V_i with 16 lanes: KoalaBear-16 1.2x, -24
 * 1.25x, BabyBear-16 1.07x faster permutations.) Every field element the lanes compute is the
 * portable tier's, and states are canonical between rounds and at the interface: the outputs
 * are bit-identical (tests/test_poseidon2.c compares every tier through p2_kernels_for).
 *
 * Everything here is forced inline and the loops over the state unrolled (P2V_INLINE,
 * P2V_UNROLL): each instance's permutation is one straight-line body with width, rounds,
 * S-box degree, field and diagonal compile-time constants (p2v_permute_kb16 and the others).
 * The instances are recognised by width, modulus, round numbers and diagonal
 * (p2v_instance_for); a p2_params these kernels do not know (none today) goes to the portable
 * tier's entries.
 */
#include "kernels_cpu/poseidon2_cpu.h"

#include "arith/small_fields.h"

#if !defined(P2V_VEC) || !defined(P2V_LANES)
#error "poseidon2_simd_impl.h: define P2V_VEC, P2V_LANES and the lane primitives first"
#endif

#define P2V_MAX_WIDTH 24
#define P2V_ROUNDS_F 8
#define P2V_MAX_ROUNDS_P 32

#if defined(__GNUC__) && !defined(__clang__)
#define P2V_INLINE static inline __attribute__((always_inline))
#define P2V_UNROLL _Pragma("GCC unroll 24")
#elif defined(__clang__)
#define P2V_INLINE static inline __attribute__((always_inline))
#define P2V_UNROLL _Pragma("unroll")
#else
#define P2V_INLINE static inline
#define P2V_UNROLL
#endif

/* ---- lane arithmetic (p, p^-1 mod 2^32 broadcast by the caller) ---- */

/* Signed lazy Montgomery product a b / 2^32 mod p. Inputs: int32 lanes with |a b| < 2^31 p
 * (|a|, |b| <= p suffices); pinv_pos = p^-1 mod 2^32. Output: int32 lanes in (-p, p), not
 * reduced. (A square or a shared operand's odd words come once: the compiler merges them.) */
P2V_INLINE P2V_VEC p2v_mul(P2V_VEC a, P2V_VEC b, P2V_VEC p, P2V_VEC pinv_pos)
{
    P2V_VEC t_even = P2V_MUL_EPI32(a, b), t_odd = P2V_MUL_EPI32(P2V_ODD_DOWN(a), P2V_ODD_DOWN(b));
    P2V_VEC q_even = P2V_MUL_EPU32(t_even, pinv_pos), q_odd = P2V_MUL_EPU32(t_odd, pinv_pos);
    P2V_VEC d_even = P2V_SUB32(t_even, P2V_MUL_EPI32(q_even, p));
    P2V_VEC d_odd = P2V_SUB32(t_odd, P2V_MUL_EPI32(q_odd, p));
    /* the results are the odd words; the even lanes' move down into the even words */
    return P2V_MERGE_HIGH(d_even, d_odd);
}

/* d in (-p, p) (int32) -> d mod p in [0, p) */
P2V_INLINE P2V_VEC p2v_canon(P2V_VEC d, P2V_VEC p)
{
    return P2V_MINU32(d, P2V_ADD32(d, p));
}

/* canonical a + b, a - b (inputs canonical) */
P2V_INLINE P2V_VEC p2v_add(P2V_VEC a, P2V_VEC b, P2V_VEC p)
{
    P2V_VEC s = P2V_ADD32(a, b);
    return P2V_MINU32(s, P2V_SUB32(s, p));
}

P2V_INLINE P2V_VEC p2v_sub(P2V_VEC a, P2V_VEC b, P2V_VEC p)
{
    P2V_VEC d = P2V_SUB32(a, b);
    return P2V_MINU32(d, P2V_ADD32(d, p));
}

/* canonical x / 2 (x canonical): (x >> 1) + (p + 1) / 2 when x is odd */
P2V_INLINE P2V_VEC p2v_halve(P2V_VEC x, P2V_VEC half_p1)
{
    P2V_VEC h = P2V_SRLI32(x, 1);
    return P2V_ADD_IF_ODD(h, x, half_p1);
}

/* -x / 2^k for canonical x, 2 <= k <= n, p = (2^m - 1) 2^n + 1 with m + n = 31: int32 lanes in
 * (-2^(31-k), p), not reduced (see the rationale). k and n are compile-time constants. */
P2V_INLINE P2V_VEC p2v_neg_div_2exp(P2V_VEC x, unsigned k, unsigned n)
{
    P2V_VEC hi = P2V_SRLI32(x, k);
    P2V_VEC lo = P2V_AND(x, P2V_SET1((int)((1u << k) - 1)));
    P2V_VEC w = P2V_SUB32(P2V_SLLI32(lo, 31 - k), P2V_SLLI32(lo, n - k));
    return P2V_SUB32(w, hi);
}

/* ---- the permutation on LANES lanes ---- */

/* V_i = sign * num / 2^k, one of the forms the internal layer multiplies by without a
 * multiplication: num in {1, 2, 3, 4} with k = 0, or num = 1 with 1 <= k <= n. V_0 is -2 in
 * every instance (p2v_internal_round treats element 0 apart; p2v_known_matches checks it). */
typedef struct {
    int sign, num, k;
} p2v_diag_form;

/* Plonky3's diagonals (koala-bear/src/poseidon2.rs, baby-bear/src/poseidon2.rs) */
static const p2v_diag_form P2V_KB16_DIAG[16] = {
    {-1, 2, 0}, {1, 1, 0},  {1, 2, 0},  {1, 1, 1},  {1, 3, 0},  {1, 4, 0},  {-1, 1, 1}, {-1, 3, 0},
    {-1, 4, 0}, {1, 1, 8},  {1, 1, 3},  {1, 1, 24}, {-1, 1, 8}, {-1, 1, 3}, {-1, 1, 4}, {-1, 1, 24},
};
static const p2v_diag_form P2V_KB24_DIAG[24] = {
    {-1, 2, 0}, {1, 1, 0},  {1, 2, 0},  {1, 1, 1},  {1, 3, 0},  {1, 4, 0},  {-1, 1, 1}, {-1, 3, 0},
    {-1, 4, 0}, {1, 1, 8},  {1, 1, 2},  {1, 1, 3},  {1, 1, 4},  {1, 1, 5},  {1, 1, 6},  {1, 1, 24},
    {-1, 1, 8}, {-1, 1, 3}, {-1, 1, 4}, {-1, 1, 5}, {-1, 1, 6}, {-1, 1, 7}, {-1, 1, 9}, {-1, 1, 24},
};
static const p2v_diag_form P2V_BB16_DIAG[16] = {
    {-1, 2, 0}, {1, 1, 0},  {1, 2, 0},  {1, 1, 1},  {1, 3, 0},  {1, 4, 0},  {-1, 1, 1}, {-1, 3, 0},
    {-1, 4, 0}, {1, 1, 8},  {1, 1, 2},  {1, 1, 3},  {1, 1, 27}, {-1, 1, 8}, {-1, 1, 4}, {-1, 1, 27},
};

/* What the kernels of one instance need, prepared per call from its p2_params. */
typedef struct p2v_instance p2v_instance;
typedef void (*p2v_perm_fn)(P2V_VEC *state, const p2v_instance *inst);
struct p2v_instance {
    p2v_perm_fn perm;
    unsigned width;
    uint32_t p, pinv_pos, r2;
    uint32_t rc_ext_neg[P2V_ROUNDS_F * P2V_MAX_WIDTH]; /* Montgomery rc - p, in [-p, 0) as int32 */
    uint32_t rc_int_neg[P2V_MAX_ROUNDS_P];
};

/* (x + rc)^degree, canonical, for canonical x and rc_neg = rc - p broadcast. */
P2V_INLINE P2V_VEC p2v_add_rc_sbox(P2V_VEC x, uint32_t rc_neg, unsigned degree, P2V_VEC p, P2V_VEC pinv_pos)
{
    P2V_VEC y = P2V_ADD32(x, P2V_SET1((int)rc_neg)); /* [-p, p) */
    P2V_VEC y2 = p2v_mul(y, y, p, pinv_pos);
    P2V_VEC y3 = p2v_mul(y, y2, p, pinv_pos);
    if (degree == 7) { /* y^7 = y^4 y^3 */
        P2V_VEC y4 = p2v_mul(y2, y2, p, pinv_pos);
        y3 = p2v_mul(y4, y3, p, pinv_pos);
    }
    return p2v_canon(y3, p);
}

/* 4x4 block [[2,3,1,1],[1,2,3,1],[1,1,2,3],[3,1,1,2]] on canonical x[0..4) */
P2V_INLINE void p2v_m4(P2V_VEC *x, P2V_VEC p)
{
    P2V_VEC t01 = p2v_add(x[0], x[1], p), t23 = p2v_add(x[2], x[3], p);
    P2V_VEC t0123 = p2v_add(t01, t23, p);
    P2V_VEC t01123 = p2v_add(t0123, x[1], p), t01233 = p2v_add(t0123, x[3], p);
    P2V_VEC x0_2 = p2v_add(x[0], x[0], p), x2_2 = p2v_add(x[2], x[2], p);
    x[0] = p2v_add(t01123, t01, p);
    x[1] = p2v_add(t01123, x2_2, p);
    x[2] = p2v_add(t01233, t23, p);
    x[3] = p2v_add(t01233, x0_2, p);
}

/* the external linear layer on a canonical state of `width` (16 or 24) elements */
P2V_INLINE void p2v_external_linear(P2V_VEC *s, unsigned width, P2V_VEC p)
{
    P2V_UNROLL
    for (unsigned b = 0; b < width; b += 4)
        p2v_m4(s + b, p);
    P2V_VEC col[4];
    P2V_UNROLL
    for (unsigned k = 0; k < 4; k++) {
        col[k] = s[k];
        P2V_UNROLL
        for (unsigned b = 4; b < width; b += 4)
            col[k] = p2v_add(col[k], s[b + k], p);
    }
    P2V_UNROLL
    for (unsigned i = 0; i < width; i++)
        s[i] = p2v_add(s[i], col[i % 4], p);
}

/* one external round on a canonical state: constants (rc - p per element), S-boxes, linear layer */
P2V_INLINE void p2v_external_round(P2V_VEC *s, const uint32_t *rc_neg, unsigned width, unsigned degree, P2V_VEC p,
                                   P2V_VEC pinv_pos)
{
    P2V_UNROLL
    for (unsigned i = 0; i < width; i++)
        s[i] = p2v_add_rc_sbox(s[i], rc_neg[i], degree, p, pinv_pos);
    p2v_external_linear(s, width, p);
}

/* t with V x = +-t (the sign: p2v_diag_adds), canonical, for canonical x */
P2V_INLINE P2V_VEC p2v_diag_term(P2V_VEC x, p2v_diag_form v, unsigned n, P2V_VEC p, P2V_VEC half_p1)
{
    if (v.k == 0) {
        if (v.num == 1)
            return x;
        P2V_VEC x2 = p2v_add(x, x, p);
        if (v.num == 2)
            return x2;
        return v.num == 3 ? p2v_add(x2, x, p) : p2v_add(x2, x2, p);
    }
    if (v.k == 1)
        return p2v_halve(x, half_p1);
    return p2v_canon(p2v_neg_div_2exp(x, (unsigned)v.k, n), p); /* -x / 2^k */
}

/* whether out = sum + term (else sum - term) */
P2V_INLINE int p2v_diag_adds(p2v_diag_form v)
{
    return v.k >= 2 ? v.sign < 0 : v.sign > 0;
}

/* canonical sum of x[0..count) by a balanced tree (count >= 1) */
P2V_INLINE P2V_VEC p2v_sum(const P2V_VEC *x, unsigned count, P2V_VEC p)
{
    P2V_VEC acc[P2V_MAX_WIDTH];
    P2V_UNROLL
    for (unsigned i = 0; i < count; i++)
        acc[i] = x[i];
    P2V_UNROLL
    for (unsigned step = 1; step < count; step *= 2)
        P2V_UNROLL
        for (unsigned i = 0; i + step < count; i += 2 * step)
            acc[i] = p2v_add(acc[i], acc[i + step], p);
    return acc[0];
}

/* one internal round on a canonical state: rc_neg = rc - p and the S-box on element 0, then
 * out_i = V_i x_i + sum x with V = diag (V_0 = -2) */
P2V_INLINE void p2v_internal_round(P2V_VEC *s, uint32_t rc_neg, unsigned width, unsigned degree,
                                   const p2v_diag_form *diag, unsigned n, P2V_VEC p, P2V_VEC pinv_pos,
                                   P2V_VEC half_p1)
{
    P2V_VEC s0 = p2v_add_rc_sbox(s[0], rc_neg, degree, p, pinv_pos);
    P2V_VEC sum_rest = p2v_sum(s + 1, width - 1, p);
    P2V_VEC term[P2V_MAX_WIDTH];
    P2V_UNROLL
    for (unsigned i = 1; i < width; i++)
        term[i] = p2v_diag_term(s[i], diag[i], n, p, half_p1);
    P2V_VEC sum = p2v_add(sum_rest, s0, p);
    s[0] = p2v_sub(sum_rest, s0, p); /* sum - 2 s0 */
    P2V_UNROLL
    for (unsigned i = 1; i < width; i++)
        s[i] = p2v_diag_adds(diag[i]) ? p2v_add(sum, term[i], p) : p2v_sub(sum, term[i], p);
}

/* The permutation of LANES canonical Montgomery states in place (s[i] = element i). width,
 * rounds_p, degree, field (p, n) and diag are compile-time constants of the instantiations. */
P2V_INLINE void p2v_permute_body(P2V_VEC *state, const p2v_instance *inst, unsigned width, unsigned rounds_p,
                                 unsigned degree, uint32_t p_scalar, uint32_t pinv_neg, unsigned n,
                                 const p2v_diag_form *diag)
{
    const P2V_VEC p = P2V_SET1((int)p_scalar);
    const P2V_VEC pinv_pos = P2V_SET1((int)(0u - pinv_neg)); /* p^-1 = -(-p^-1) */
    const P2V_VEC half_p1 = P2V_SET1((int)((p_scalar + 1) / 2));
    P2V_VEC s[P2V_MAX_WIDTH];
    P2V_UNROLL
    for (unsigned i = 0; i < width; i++)
        s[i] = state[i];
    p2v_external_linear(s, width, p);
    for (unsigned r = 0; r < P2V_ROUNDS_F / 2; r++)
        p2v_external_round(s, inst->rc_ext_neg + r * width, width, degree, p, pinv_pos);
    for (unsigned r = 0; r < rounds_p; r++)
        p2v_internal_round(s, inst->rc_int_neg[r], width, degree, diag, n, p, pinv_pos, half_p1);
    for (unsigned r = P2V_ROUNDS_F / 2; r < P2V_ROUNDS_F; r++)
        p2v_external_round(s, inst->rc_ext_neg + r * width, width, degree, p, pinv_pos);
    P2V_UNROLL
    for (unsigned i = 0; i < width; i++)
        state[i] = s[i];
}

static void p2v_permute_kb16(P2V_VEC *state, const p2v_instance *inst)
{
    p2v_permute_body(state, inst, 16, 20, 3, KB_P, KB_PINV, 24, P2V_KB16_DIAG);
}

static void p2v_permute_kb24(P2V_VEC *state, const p2v_instance *inst)
{
    p2v_permute_body(state, inst, 24, 23, 3, KB_P, KB_PINV, 24, P2V_KB24_DIAG);
}

static void p2v_permute_bb16(P2V_VEC *state, const p2v_instance *inst)
{
    p2v_permute_body(state, inst, 16, 13, 7, BB_P, BB_PINV, 27, P2V_BB16_DIAG);
}

/* ---- instances ---- */

typedef struct {
    unsigned width, rounds_p, degree;
    uint32_t p;
    const p2v_diag_form *diag;
    p2v_perm_fn perm;
} p2v_known_instance;

static const p2v_known_instance P2V_KNOWN[] = {
    {16, 20, 3, KB_P, P2V_KB16_DIAG, p2v_permute_kb16},
    {24, 23, 3, KB_P, P2V_KB24_DIAG, p2v_permute_kb24},
    {16, 13, 7, BB_P, P2V_BB16_DIAG, p2v_permute_bb16},
};

/* Montgomery form of V = sign num / 2^k: sign num 2^(32 - k) mod p */
static uint32_t p2v_diag_mont(p2v_diag_form v, uint32_t p)
{
    uint32_t m = (uint32_t)(((uint64_t)v.num << (32 - v.k)) % p);
    return v.sign > 0 || m == 0 ? m : p - m;
}

static int p2v_known_matches(const p2v_known_instance *known, const p2_params *prm)
{
    if (prm->width != known->width || prm->rounds_f != P2V_ROUNDS_F || prm->rounds_p != known->rounds_p ||
        prm->sbox_degree != known->degree || prm->p != known->p)
        return 0;
    for (unsigned i = 0; i < known->width; i++)
        if (prm->diag[i] != p2v_diag_mont(known->diag[i], known->p))
            return 0;
    return 1;
}

/* Fills inst for prm (its round constants as rc - p); 0 when these kernels do not know the
 * instance. */
static int p2v_instance_for(p2v_instance *inst, const p2_params *prm)
{
    const p2v_known_instance *known = NULL;
    for (size_t i = 0; i < sizeof P2V_KNOWN / sizeof P2V_KNOWN[0]; i++)
        if (p2v_known_matches(&P2V_KNOWN[i], prm))
            known = &P2V_KNOWN[i];
    if (!known)
        return 0;
    inst->perm = known->perm;
    inst->width = prm->width;
    inst->p = prm->p;
    inst->pinv_pos = 0u - prm->pinv;
    inst->r2 = prm->r2;
    for (unsigned i = 0; i < P2V_ROUNDS_F * prm->width; i++)
        inst->rc_ext_neg[i] = prm->rc_ext[i] - prm->p;
    for (unsigned i = 0; i < prm->rounds_p; i++)
        inst->rc_int_neg[i] = prm->rc_int[i] - prm->p;
    return 1;
}

/* ---- moving states in and out ---- */

/* Field conversions of whole lanes, canonical in and out: x -> x R (the product x R^2 / R) and
 * x R -> x (the product x 1 / R). */
static inline P2V_VEC p2v_to_mont(P2V_VEC x, const p2v_instance *inst)
{
    const P2V_VEC p = P2V_SET1((int)inst->p), pinv_pos = P2V_SET1((int)inst->pinv_pos);
    return p2v_canon(p2v_mul(x, P2V_SET1((int)inst->r2), p, pinv_pos), p);
}

static inline P2V_VEC p2v_from_mont(P2V_VEC x, const p2v_instance *inst)
{
    const P2V_VEC p = P2V_SET1((int)inst->p), pinv_pos = P2V_SET1((int)inst->pinv_pos);
    return p2v_canon(p2v_mul(x, P2V_SET1(1), p, pinv_pos), p);
}

/* What the including file defines after the include (p2v_to_mont and p2v_from_mont do the
 * conversions): */

/* s[e] lane k = element e of state k of src (count states of `width` canonical elements,
 * width 16 or 24, count <= LANES; lanes count.. are zero), in Montgomery form. */
static void p2v_load_states(P2V_VEC *s, const uint32_t *src, unsigned width, unsigned count,
                            const p2v_instance *inst);

/* The first `width` elements of the Montgomery states in s (lanes 0..count) written canonical to
 * dst, state after state (width elements each; width 8, 16 or 24). */
static void p2v_store_states(uint32_t *dst, unsigned width, const P2V_VEC *s, unsigned count,
                             const p2v_instance *inst);

/* The first 8 elements (P2_DIGEST) of the Montgomery states in s (lanes 0..count) written
 * canonical to dst, 8 per state: what p2v_store_states(dst, P2_DIGEST, s, count, inst) writes. */
static void p2v_store_digests(uint32_t *dst, const P2V_VEC *s, unsigned count, const p2v_instance *inst);

/* Lanes 0..count of the vector at src (count <= LANES), the others zero; reads nothing beyond
 * src[count - 1]. */
static inline P2V_VEC p2v_load_lanes(const uint32_t *src, unsigned count);

/* The sponge over ncols columns of `count` consecutive rows (the first at column offset `row`):
 * each chunk of up to width - 8 columns overwrites s[0..chunk) and permutes. Lanes count..
 * read nothing. */
static void p2v_absorb_columns(P2V_VEC *s, const uint32_t *cols, size_t stride, size_t ncols, size_t row,
                               unsigned count, const p2v_instance *inst)
{
    const size_t rate = inst->width - P2_DIGEST;
    for (size_t c0 = 0; c0 < ncols; c0 += rate) {
        size_t len = ncols - c0 < rate ? ncols - c0 : rate;
        for (size_t j = 0; j < len; j++)
            s[j] = p2v_to_mont(p2v_load_lanes(cols + (c0 + j) * stride + row, count), inst);
        inst->perm(s, inst);
    }
}

/* ---- the kernels: the p2_kernels entries, contracts in poseidon2_cpu.h ---- */

static void p2v_permute(const p2_params *prm, uint32_t *states, size_t count)
{
    p2v_instance inst;
    if (!p2v_instance_for(&inst, prm)) {
        p2_portable_permute(prm, states, count);
        return;
    }
    P2V_VEC s[P2V_MAX_WIDTH];
    for (size_t i = 0; i < count; i += P2V_LANES) {
        unsigned n = count - i < P2V_LANES ? (unsigned)(count - i) : P2V_LANES;
        uint32_t *batch = states + i * inst.width;
        p2v_load_states(s, batch, inst.width, n, &inst);
        inst.perm(s, &inst);
        p2v_store_states(batch, inst.width, s, n, &inst);
    }
}

static void p2v_hash_rows(const p2_params *prm, const uint32_t *cols, size_t stride, size_t ncols, size_t row0,
                          size_t nrows, uint32_t *out)
{
    p2v_instance inst;
    if (!p2v_instance_for(&inst, prm)) {
        p2_portable_hash_rows(prm, cols, stride, ncols, row0, nrows, out);
        return;
    }
    P2V_VEC s[P2V_MAX_WIDTH];
    for (size_t r = 0; r < nrows; r += P2V_LANES) {
        unsigned n = nrows - r < P2V_LANES ? (unsigned)(nrows - r) : P2V_LANES;
        for (unsigned i = 0; i < inst.width; i++)
            s[i] = P2V_SETZERO();
        p2v_absorb_columns(s, cols, stride, ncols, row0 + r, n, &inst);
        p2v_store_digests(out + r * P2_DIGEST, s, n, &inst);
    }
}

static void p2v_compress(const p2_params *prm, const uint32_t *in, uint32_t *out, size_t count)
{
    p2v_instance inst;
    if (!p2v_instance_for(&inst, prm)) {
        p2_portable_compress(prm, in, out, count);
        return;
    }
    P2V_VEC s[P2V_MAX_WIDTH];
    for (size_t i = 0; i < count; i += P2V_LANES) {
        unsigned n = count - i < P2V_LANES ? (unsigned)(count - i) : P2V_LANES;
        p2v_load_states(s, in + i * 2 * P2_DIGEST, 2 * P2_DIGEST, n, &inst); /* left || right */
        for (unsigned e = 2 * P2_DIGEST; e < inst.width; e++)
            s[e] = P2V_SETZERO(); /* (a width-24 state is zero beyond the pair) */
        inst.perm(s, &inst);
        p2v_store_digests(out + i * P2_DIGEST, s, n, &inst);
    }
}

static void p2v_absorb(const p2_params *prm, uint32_t *states, const uint32_t *cols, size_t stride, size_t ncols,
                       size_t row0, size_t nrows)
{
    p2v_instance inst;
    if (!p2v_instance_for(&inst, prm)) {
        p2_portable_absorb(prm, states, cols, stride, ncols, row0, nrows);
        return;
    }
    if (ncols == 0)
        return;
    P2V_VEC s[P2V_MAX_WIDTH];
    for (size_t r = 0; r < nrows; r += P2V_LANES) {
        unsigned n = nrows - r < P2V_LANES ? (unsigned)(nrows - r) : P2V_LANES;
        uint32_t *batch = states + r * inst.width;
        p2v_load_states(s, batch, inst.width, n, &inst);
        p2v_absorb_columns(s, cols, stride, ncols, row0 + r, n, &inst);
        p2v_store_states(batch, inst.width, s, n, &inst);
    }
}
