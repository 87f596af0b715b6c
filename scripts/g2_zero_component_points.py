#!/usr/bin/env python3
"""Prints, as C string literals of interchange bytes (x.c0, x.c1, y.c0, y.c1, Montgomery
little-endian), points on the G2 twists of BN254 and BLS12-381 whose y has one zero component
(y.c0 = 0, then y.c1 = 0): x is a cube root of y^2 - b in Fq2. They are on the curve, not in
the subgroup (hpr_msm checks the curve only). tests/test_cpu_tiers.c holds the output: a zero
component is where the lazily reduced negation p - 0 = p of the avx512 G2 kernel must not
leave the range of its zero tests.

usage: g2_zero_component_points.py
"""
import random, sys

CURVES = {
    "bn254": (21888242871839275222246405745257275088696311157297823662689037894645226208583, 256),
    "bls12-381": (0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab, 384),
}

def f2_mul(a, b, p):
    return ((a[0] * b[0] - a[1] * b[1]) % p, (a[0] * b[1] + a[1] * b[0]) % p)

def f2_pow(a, e, p):
    r = (1, 0)
    while e:
        if e & 1:
            r = f2_mul(r, a, p)
        a = f2_mul(a, a, p)
        e >>= 1
    return r

def f2_inv(a, p):
    n = pow(a[0] * a[0] + a[1] * a[1], p - 2, p)
    return (a[0] * n % p, -a[1] * n % p)

def twist_b(name, p):
    if name == "bn254":
        return f2_mul((3, 0), f2_inv((9, 1), p), p)
    return (4, 4)

def cube_root(t, p):
    q = p * p - 1
    m = q // 9
    assert m % 3 != 0
    if f2_pow(t, q // 3, p) != (1, 0):
        return None
    x0 = f2_pow(t, pow(3, -1, m), p)
    while True:  # a primitive 9th root of unity
        g = f2_pow((random.randrange(p), random.randrange(p)), m, p)
        if f2_pow(g, 3, p) != (1, 0):
            break
    x = x0
    for _ in range(9):
        if f2_pow(x, 3, p) == t:
            return x
        x = f2_mul(x, g, p)
    raise AssertionError("no cube root found")

def point_with_zero(name, zero_c, seed):
    p, rbits = CURVES[name]
    random.seed(seed)
    b = twist_b(name, p)
    while True:
        v = random.randrange(1, p)
        y = (0, v) if zero_c == 0 else (v, 0)
        y2 = f2_mul(y, y, p)
        x = cube_root(((y2[0] - b[0]) % p, (y2[1] - b[1]) % p), p)
        if x:
            x3 = f2_mul(f2_mul(x, x, p), x, p)
            assert ((x3[0] + b[0]) % p, (x3[1] + b[1]) % p) == y2
            return x, y

def mont_bytes(v, p, rbits):
    return (v * (1 << rbits) % p).to_bytes(rbits // 8, "little")

for name in CURVES:
    p, rbits = CURVES[name]
    for zero_c in (0, 1):
        x, y = point_with_zero(name, zero_c, 1000 + zero_c)
        raw = b"".join(mont_bytes(v, p, rbits) for v in (x[0], x[1], y[0], y[1]))
        print(f"/* {name} G2, y.c{zero_c} = 0 */")
        print("\"" + "".join(f"\\x{c:02x}" for c in raw) + "\"")
