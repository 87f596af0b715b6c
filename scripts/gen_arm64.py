#!/usr/bin/env python3
"""Generate kernels_cpu/fe_arm64_gen.h: Montgomery multiplication, addition and subtraction
with mul/umulh and adds/adcs/sbcs/csel (AArch64) as straight-line inline assembly, for 4 and
6 limbs.

One generator, one committed output (the ctest `arm64_asm_up_to_date` regenerates and diffs).
Usage: gen_arm64.py [OUTPUT]  (stdout when absent).

Why: gcc 12 compiles the portable C (arith/fe_impl.h: 128-bit products, carries as compares)
for AArch64 into about 260 instructions for a 4-limb multiplication, 48 of them `cinc` that
rebuild carries the flags already held; this CIOS is 161 (the 32 mul and 32 umulh of the
products, 4 of m, the rest one adds/adcs chain per half row and the final subtraction).
Method (CIOS, "no final carry" as in fe_impl.h: the top limb of p is below 2^63 - 1, so the
running sum fits N + 1 limbs and no partial sum overflows them): row i adds the low halves of
a * b[i] into t[0..N] in one carry chain and the high halves into t[1..N] in a second (AArch64
has one carry flag), then m = t[0] * (-p^-1) and m * p the same way, which zeroes t[0]; the
limbs shift down by renaming registers. a stays in registers; p too with 4 limbs, and with 6
it is loaded beside each product (registers would run out). The final t < 2p loses p once
where that does not borrow (subs/sbcs, csel), so r < p.
"""
from asm_gen import memory_result_function, mont_mul_function, write_header

SIZES = [4, 6]


def load_pairs(lines, regs, ptr):
    for j in range(0, len(regs), 2):
        lines.append("ldp %%[%s], %%[%s], [%%[%s], #%d]" % (regs[j], regs[j + 1], ptr, 8 * j))


def store_pairs(lines, regs):
    for j in range(0, len(regs), 2):
        lines.append("stp %%[%s], %%[%s], [%%[r], #%d]" % (regs[j], regs[j + 1], 8 * j))


def gen_mul(n):
    t = ["t%d" % j for j in range(n + 1)]
    a = ["a%d" % j for j in range(n)]
    lo = ["l%d" % j for j in range(n)]
    p_in_regs = n == 4
    pr = ["q%d" % j for j in range(n)] if p_in_regs else []
    lines = []
    emit = lines.append
    load_pairs(lines, a, "a")
    load_pairs(lines, pr, "p")
    for j in range(n + 1):
        emit("mov %%[%s], xzr" % t[j])

    def products(op, x, mult_of_p):
        for j in range(n):
            if mult_of_p and not p_in_regs:
                emit("ldr %%[%s], [%%[p], #%d]" % (lo[j], 8 * j))
                emit("%s %%[%s], %%[%s], %%[%s]" % (op, lo[j], x, lo[j]))
            else:
                src = pr[j] if mult_of_p else a[j]
                emit("%s %%[%s], %%[%s], %%[%s]" % (op, lo[j], x, src))

    def accumulate(x, mult_of_p):
        products("mul", x, mult_of_p)
        for j in range(n):
            emit("%s %%[%s], %%[%s], %%[%s]" % ("adds" if j == 0 else "adcs", t[j], t[j], lo[j]))
        emit("adc %%[%s], %%[%s], xzr" % (t[n], t[n]))
        products("umulh", x, mult_of_p)
        for j in range(n):
            op = "adds" if j == 0 else ("adc" if j == n - 1 else "adcs")
            emit("%s %%[%s], %%[%s], %%[%s]" % (op, t[j + 1], t[j + 1], lo[j]))

    for i in range(n):
        emit("ldr %%[bi], [%%[b], #%d]" % (8 * i))
        accumulate("bi", False)
        emit("mul %%[bi], %%[%s], %%[inv]" % t[0])  # m, in the register b[i] no longer needs
        accumulate("bi", True)
        t = t[1:] + t[:1]  # t[0] is now zero: it becomes the new top limb
    if not p_in_regs:
        load_pairs(lines, a, "p")  # a is no longer needed
    psub = pr if p_in_regs else a
    for j in range(n):
        emit("%s %%[%s], %%[%s], %%[%s]" % ("subs" if j == 0 else "sbcs", lo[j], t[j], psub[j]))
    for j in range(n):
        emit("csel %%[%s], %%[%s], %%[%s], lo" % (t[j], t[j], lo[j]))  # lo: a - p borrowed, t < p
    return mont_mul_function("fe_arm64_mont_mul_%d" % n, n, lines, t + a + lo + pr + ["bi"], t[:n], [],
                             '[a] "r"(a), [b] "r"(b), [p] "r"(p), [inv] "r"(inv)', '"cc", "memory"')


def chain(lines, first, rest, dst, lhs, rhs):
    for j in range(len(dst)):
        lines.append("%s %%[%s], %%[%s], %%[%s]" % (first if j == 0 else rest, dst[j], lhs[j], rhs[j]))


def gen_add(n):
    """t = a + b (< 2p: no carry out), then t - p unless that borrows."""
    t = ["t%d" % j for j in range(n)]
    u = ["u%d" % j for j in range(n)]
    lines = []
    load_pairs(lines, t, "a")
    load_pairs(lines, u, "b")
    chain(lines, "adds", "adcs", t, t, u)
    load_pairs(lines, u, "p")
    chain(lines, "subs", "sbcs", u, t, u)
    for j in range(n):
        lines.append("csel %%[%s], %%[%s], %%[%s], lo" % (t[j], t[j], u[j]))
    store_pairs(lines, t)
    return memory_result_function("fe_arm64_add_%d" % n, "r = a + b mod p, a, b < p, r < p; r may alias a or b.", n, lines,
                                  t + u)


def gen_sub(n):
    """t = a - b; m = all ones where that borrowed; t + (p and m)."""
    t = ["t%d" % j for j in range(n)]
    u = ["u%d" % j for j in range(n)]
    lines = []
    load_pairs(lines, t, "a")
    load_pairs(lines, u, "b")
    chain(lines, "subs", "sbcs", t, t, u)
    lines.append("csetm %[m], lo")
    load_pairs(lines, u, "p")
    for j in range(n):
        lines.append("and %%[%s], %%[%s], %%[m]" % (u[j], u[j]))
    chain(lines, "adds", "adcs", t, t, u)
    store_pairs(lines, t)
    return memory_result_function("fe_arm64_sub_%d" % n, "r = a - b mod p, a, b < p, r < p; r may alias a or b.", n, lines,
                                  t + u + ["m"])


def main():
    write_header("gen_arm64.py", "KERNELS_CPU_FE_ARM64_GEN_H",
                 "/* Montgomery multiplication with mul/umulh and adds/adcs, addition and subtraction with\n"
                 " * adcs/sbcs and csel; AArch64 only. */", [gen_mul(n) + gen_add(n) + gen_sub(n) for n in SIZES])


if __name__ == "__main__":
    main()
