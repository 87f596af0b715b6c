#!/usr/bin/env python3
"""Generate arith/constants_gen.h: every field and curve constant hyprove uses.

One generator, one committed output. CI regenerates it and diffs (scripts/test.sh, and the
ctest `constants_up_to_date`). Usage: gen_constants.py [OUTPUT]  (stdout when absent).
Every value is derived here from the moduli and the curve equations, so nothing is pasted.
"""
import sys

FIELDS = [
    # name, limbs, modulus, multiplicative generator (None for base fields)
    ("BN254_FP", 4,
     21888242871839275222246405745257275088696311157297823662689037894645226208583, None),
    ("BN254_FR", 4,
     21888242871839275222246405745257275088548364400416034343698204186575808495617, 5),
    ("BLS12_381_FP", 6,
     0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
     None),
    ("BLS12_381_FR", 4,
     0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001, 7),
]

# Fields that get 8-lane AVX-512 IFMA kernels (kernels_cpu/ifma_fe_impl.h): name, 52-bit limbs.
# The base fields serve the MSM (msm_ifma_impl.h), the scalar fields the NTT (ntt_ifma.c).
IFMA_FIELDS = [("BN254_FP", 5), ("BLS12_381_FP", 8), ("BN254_FR", 5), ("BLS12_381_FR", 5)]

CURVES = [
    # name, base field, scalar field, b, generator (x, y) in normal form
    ("BN254_G1", "BN254_FP", "BN254_FR", 3, (1, 2)),
    ("BLS12_381_G1", "BLS12_381_FP", "BLS12_381_FR", 4,
     (0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
      0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)),
]


# G2: the twist over Fq2 = Fq[u]/(u^2 + 1), b2 as (c0, c1) in normal form computed in main();
# the generators are the standard ones (they equal snarkjs's vk_gamma_2). Coordinates as
# (c0, c1) pairs.
G2_CURVES = [
    # name, base field, scalar field, b2 = "3/(9+u)" (BN254) or "4(1+u)" (BLS12-381), generator
    ("BN254_G2", "BN254_FP", "BN254_FR", "bn254",
     ((10857046999023057135944570762232829481370756359578518086990519993285655852781,
       11559732032986387107991004021392285783925812861821192530917403151452391805634),
      (8495653923123431417604973247489272438418190587263600148770280649306958101930,
       4082367875863433681332203403145435568316851327593401208105741076214120093531))),
    ("BLS12_381_G2", "BLS12_381_FP", "BLS12_381_FR", "bls12_381",
     ((352701069587466618187139116011060144890029952792775240219908644239793785735715026873347600343865175952761926303160,
       3059144344244213709971259814753781636986470325476647558659373206291635324768958432433509563104347017837885763365758),
      (1985150602287291935568054521177171638300868978215655730859378665066344726373823718423869104263333984641494340347905,
       927553665492332455747201965776037880757740193453592970025027978793976877002675564980949289727957565575433344219582))),
]


def fq2_mul(a, b, p):
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)


def fq2_literal(v, n, r, p):
    return "{ " + ", ".join("ARITH_U64(0x%016x)" % w for c in v for w in limbs(c * r % p, n)) + " }"


def g2_lines(name, field, scalar_field, twist, gen, fields):
    n, p = fields[field]
    sn, order = fields[scalar_field]
    r = pow(2, 64 * n, p)
    if twist == "bn254":  # 3 / (9 + u) = 3 (9 - u) / 82
        inv82 = pow(82, -1, p)
        b2 = (27 * inv82 % p, (-3 * inv82) % p)
    else:  # 4 (1 + u)
        b2 = (4, 4)
    x, y = gen
    x3 = fq2_mul(fq2_mul(x, x, p), x, p)
    lhs = fq2_mul(y, y, p)
    assert lhs == ((x3[0] + b2[0]) % p, (x3[1] + b2[1]) % p), name + " generator is not on the twist"
    b3 = (3 * b2[0] % p, 3 * b2[1] % p)
    return [
        "/* %s: y^2 = x^3 + b2 over %s^2 (u^2 = -1); Fq2 limbs: c0's then c1's */" % (name, field),
        "#define %s_B %s /* Montgomery */" % (name, fq2_literal(b2, n, r, p)),
        "#define %s_B3 %s /* 3 b2, Montgomery */" % (name, fq2_literal(b3, n, r, p)),
        "#define %s_GEN_X %s /* Montgomery */" % (name, fq2_literal(x, n, r, p)),
        "#define %s_GEN_Y %s /* Montgomery */" % (name, fq2_literal(y, n, r, p)),
        "#define %s_ORDER %s /* order of the prime subgroup */" % (name, literal(order, sn)),
        "#define %s_ORDER_LIMBS %d" % (name, sn),
    ]


# Optimal ate pairings (host/groth16/pairing.c): the tower Fq12 = Fq6[w]/(w^2 - v), Fq6 = Fq2[v]/(v^3 - xi).
PAIRINGS = [
    # name, base field, scalar field, xi = (c0, c1), curve parameter u, twist type
    ("BN254_PAIRING", "BN254_FP", "BN254_FR", (9, 1), 4965661367192848881, "D"),
    ("BLS12_381_PAIRING", "BLS12_381_FP", "BLS12_381_FR", (1, 1), -0xd201000000010000, "M"),
]


def fq2_pow(a, e, p):
    out, base = (1, 0), a
    while e:
        if e & 1:
            out = fq2_mul(out, base, p)
        base = fq2_mul(base, base, p)
        e >>= 1
    return out


def pairing_lines(name, field, scalar_field, xi, u, twist, fields):
    n, p = fields[field]
    _, r_order = fields[scalar_field]
    mont = pow(2, 64 * n, p)
    assert (p**12 - 1) % r_order == 0
    final = (p**12 - 1) // r_order
    loop = 6 * u + 2 if twist == "D" else abs(u)  # BN: 6u + 2; BLS12: |u| (u < 0: conjugate)
    words = (final.bit_length() + 63) // 64
    g12, g13 = fq2_pow(xi, (p - 1) // 3, p), fq2_pow(xi, (p - 1) // 2, p)
    g22 = fq2_pow(xi, (p * p - 1) // 3, p)
    assert g22[1] == 0 and fq2_pow(xi, (p * p - 1) // 2, p) == (p - 1, 0)
    return [
        "/* %s: optimal ate over %s; xi = %d + %d u, %s-type twist */" % (name, field, xi[0], xi[1], twist),
        "#define %s_XI %s /* Montgomery */" % (name, fq2_literal(xi, n, mont, p)),
        "#define %s_LOOP %s /* %s */" % (name, literal(loop, 2), "6u + 2" if twist == "D" else "|u|, u < 0"),
        "#define %s_LOOP_BITS %d" % (name, loop.bit_length()),
        "#define %s_GAMMA12 %s /* xi^((p-1)/3), Montgomery */" % (name, fq2_literal(g12, n, mont, p)),
        "#define %s_GAMMA13 %s /* xi^((p-1)/2), Montgomery */" % (name, fq2_literal(g13, n, mont, p)),
        "#define %s_GAMMA22 %s /* xi^((p^2-1)/3), in Fq, Montgomery */" % (name, literal(g22[0] * mont % p, n)),
        "#define %s_FINAL_EXP %s /* (p^12 - 1) / r */" % (name, literal(final, words)),
        "#define %s_FINAL_EXP_LIMBS %d" % (name, words),
    ]


def limbs(value, n):
    return [(value >> (64 * i)) & (2**64 - 1) for i in range(n)]


def literal(value, n):
    return "{ " + ", ".join("ARITH_U64(0x%016x)" % v for v in limbs(value, n)) + " }"


def two_adicity(p):
    s, q = 0, p - 1
    while q % 2 == 0:
        q //= 2
        s += 1
    return s


def field_lines(name, n, p, gen):
    r = pow(2, 64 * n, p)
    mont = lambda v: v * r % p  # noqa: E731
    out = [
        "/* %s: p = %d */" % (name, p),
        "#define %s_LIMBS %d" % (name, n),
        "#define %s_BITS %d" % (name, p.bit_length()),
        "#define %s_P %s" % (name, literal(p, n)),
        "#define %s_P_MINUS_2 %s" % (name, literal(p - 2, n)),
        "#define %s_INV ARITH_U64(0x%016x) /* -p^-1 mod 2^64 */" % (name, (-pow(p, -1, 2**64)) % 2**64),
        "#define %s_ONE %s /* R mod p */" % (name, literal(r, n)),
        "#define %s_R2 %s /* R^2 mod p */" % (name, literal(r * r % p, n)),
    ]
    if gen is not None:
        s = two_adicity(p)
        root = pow(gen, (p - 1) >> s, p)
        assert pow(root, 2**(s - 1), p) == p - 1
        out += [
            "#define %s_TWO_ADICITY %d" % (name, s),
            "#define %s_GENERATOR_INT %d" % (name, gen),
            "#define %s_GENERATOR %s /* Montgomery */" % (name, literal(mont(gen), n)),
            "#define %s_ROOT_OF_UNITY %s /* g^((p-1)/2^s), Montgomery */" % (name, literal(mont(root), n)),
        ]
    return out


def limbs52(value, n):
    assert value < 2**(52 * n)
    return "{ " + ", ".join("ARITH_U64(0x%013x)" % ((value >> (52 * i)) & (2**52 - 1)) for i in range(n)) + " }"


def ifma_lines(name, n52, fields):
    """Radix-2^52 Montgomery form with R' = 2^(52*n52). Values stay in [0, 2p) without a final
    subtraction because 4p < R'. TO maps a 64-bit Montgomery value a*R to a*R' in one
    multiplication (mont(aR, R'^2/R) = aR'), FROM maps back (mont(aR', R) = aR)."""
    n, p = fields[name]
    r64, r52 = 2**(64 * n), 2**(52 * n52)
    assert 16 * p < r52  # the lazy bounds of kernels_cpu/msm_ifma_impl.h: products of inputs below 8p and 2p
    return [
        "/* %s in radix 2^52 for AVX-512 IFMA: %d limbs, Montgomery R' = 2^%d */" % (name, n52, 52 * n52),
        "#define %s_IFMA_LIMBS %d" % (name, n52),
        "#define %s_IFMA_P %s" % (name, limbs52(p, n52)),
        "#define %s_IFMA_2P %s" % (name, limbs52(2 * p, n52)),
        "#define %s_IFMA_3P %s" % (name, limbs52(3 * p, n52)),
        "#define %s_IFMA_4P %s" % (name, limbs52(4 * p, n52)),
        "#define %s_IFMA_5P %s" % (name, limbs52(5 * p, n52)),
        "#define %s_IFMA_INV ARITH_U64(0x%013x) /* -p^-1 mod 2^52 */" % (name, (-pow(p, -1, 2**52)) % 2**52),
        "#define %s_IFMA_ONE %s /* R' mod p */" % (name, limbs52(r52 % p, n52)),
        "#define %s_IFMA_TO %s /* R'^2 / R mod p */" % (name, limbs52(r52 * r52 * pow(r64, -1, p) % p, n52)),
        "#define %s_IFMA_FROM %s /* R mod p */" % (name, limbs52(r64 % p, n52)),
        "#define %s_IFMA_P_MINUS_2 %s" % (name, limbs52(p - 2, n52)),
    ]


def curve_lines(name, field, scalar_field, b, gen, fields):
    n, p = fields[field]
    sn, order = fields[scalar_field]
    r = pow(2, 64 * n, p)
    x, y = gen
    assert (y * y - x * x * x - b) % p == 0, name + " generator is not on the curve"
    return [
        "/* %s: y^2 = x^3 + %d over %s */" % (name, b, field),
        "#define %s_B %s /* Montgomery */" % (name, literal(b * r % p, n)),
        "#define %s_B3 %s /* 3b, Montgomery */" % (name, literal(3 * b * r % p, n)),
        "#define %s_GEN_X %s /* Montgomery */" % (name, literal(x * r % p, n)),
        "#define %s_GEN_Y %s /* Montgomery */" % (name, literal(y * r % p, n)),
        "#define %s_ORDER %s /* order of the prime subgroup */" % (name, literal(order, sn)),
        "#define %s_ORDER_LIMBS %d" % (name, sn),
    ]


def main():
    fields = {f[0]: (f[1], f[2]) for f in FIELDS}
    lines = [
        "/* GENERATED by scripts/gen_constants.py: DO NOT EDIT. */",
        "/* Limbs are little-endian 64-bit words; Montgomery form uses R = 2^(64*limbs). */",
        "#ifndef ARITH_CONSTANTS_GEN_H",
        "#define ARITH_CONSTANTS_GEN_H",
        "",
    ]
    for f in FIELDS:
        lines += field_lines(*f) + [""]
    for f in IFMA_FIELDS:
        lines += ifma_lines(*f, fields) + [""]
    for c in CURVES:
        lines += curve_lines(*c, fields) + [""]
    for c in G2_CURVES:
        lines += g2_lines(*c, fields) + [""]
    for c in PAIRINGS:
        lines += pairing_lines(*c, fields) + [""]
    lines += ["#endif"]
    text = "\n".join(lines) + "\n"
    if len(sys.argv) > 1:
        with open(sys.argv[1], "w") as fh:
            fh.write(text)
    else:
        sys.stdout.write(text)


if __name__ == "__main__":
    main()
