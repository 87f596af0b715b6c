#!/usr/bin/env python3
"""Generate kernels_cpu/fe_adx_gen.h: Montgomery multiplication with mulx/adcx/adox (x86-64
ADX + BMI2) as straight-line inline assembly, for 4 and 6 limbs.

One generator, one committed output (the ctest `adx_asm_up_to_date` regenerates and diffs).
Usage: gen_adx.py [OUTPUT]  (stdout when absent).

Method (CIOS, "no final carry" variant as in fe_impl.h: the top limb of p is below 2^63 - 1):
row i adds a * b[i] into t[0..N] with two independent carry chains (adcx: CF for the low
halves, adox: OF for the high halves), then m = t[0] * (-p^-1) and adds m * p the same way,
which zeroes t[0]; the limbs then shift down by renaming registers, not by moving them.
Registers: N + 1 for t, 2 for the products, rdx for the multiplier, the a, b and p pointers:
14 for N = 6, within the 14 that remain when the frame pointer is reserved (ASan builds).
The final t < 2p loses p once where that does not borrow (sub/sbb, then cmov from a copy in
the registers that the rows no longer need), so the caller gets r < p.
Addition and subtraction (fe_adx_add_N, fe_adx_sub_N): one adc or sbb chain, then p taken off
(add) or masked p added back (sub), branch-free; gcc 12 compiles the same C carry chains with
setb and add $0xff per limb. Every function is always_inline: gcc kept the multiplication out
of line in the batch-affine kernel, 3-4% of an MSM.
"""
from asm_gen import memory_result_function, mont_mul_function, write_header

SIZES = [4, 6]


def scratch_for(n, t):
    """Registers free after the last row: the zero top limb, the product halves, rdx, and (the
    operands are declared "+r") the a and b pointers."""
    return ["%%[%s]" % t[n], "%[lo]", "%[hi]", "%%rdx", "%[a]", "%[b]"][:n]


def gen_mul(n):
    t = ["t%d" % j for j in range(n + 1)]
    lines = []
    emit = lines.append
    for j in range(n + 1):
        emit("xorl %%k[%s], %%k[%s]" % (t[j], t[j]))
    for i in range(n):
        emit("movq %d(%%[b]), %%%%rdx" % (8 * i))
        emit("xorl %k[lo], %k[lo]")  # clears CF and OF
        for j in range(n):
            emit("mulxq %d(%%[a]), %%[lo], %%[hi]" % (8 * j))
            emit("adcxq %%[lo], %%[%s]" % t[j])
            emit("adoxq %%[hi], %%[%s]" % t[j + 1])
        emit("adcq $0, %%[%s]" % t[n])
        emit("movq %%[%s], %%%%rdx" % t[0])
        emit("imulq %[inv], %%rdx")
        emit("xorl %k[lo], %k[lo]")
        for j in range(n):
            emit("mulxq %d(%%[p]), %%[lo], %%[hi]" % (8 * j))
            emit("adcxq %%[lo], %%[%s]" % t[j])
            emit("adoxq %%[hi], %%[%s]" % t[j + 1])
        emit("adcq $0, %%[%s]" % t[n])
        t = t[1:] + t[:1]  # t[0] is now zero: it becomes the new top limb
    # t[0..n-1] < 2p: subtract p once, keep t where that borrows
    s = scratch_for(n, t)
    for j in range(n):
        emit("movq %%[%s], %s" % (t[j], s[j]))
    for j in range(n):
        emit("%s %d(%%[p]), %%[%s]" % ("subq" if j == 0 else "sbbq", 8 * j, t[j]))
    for j in range(n):
        emit("cmovcq %s, %%[%s]" % (s[j], t[j]))
    return mont_mul_function("fe_adx_mont_mul_%d" % n, n, lines, ["t%d" % j for j in range(n + 1)] + ["lo", "hi"],
                             t[:n], ['[a] "+r"(a)', '[b] "+r"(b)'], '[p] "r"(p), [inv] "m"(inv)',
                             '"rdx", "cc", "memory"')


def chain(lines, first, rest, src, dst, n):
    for j in range(n):
        lines.append("%s %s, %%[%s]" % (first if j == 0 else rest, src(j), dst[j]))


def gen_add(n):
    """t = a + b (< 2p: no carry out), then t - p unless that borrows. With 4 limbs the copy of
    t stays in registers; with 6 there are too few, and r holds it."""
    t = ["t%d" % j for j in range(n)]
    lines = []
    for j in range(n):
        lines.append("movq %d(%%[a]), %%[%s]" % (8 * j, t[j]))
    chain(lines, "addq", "adcq", lambda j: "%d(%%[b])" % (8 * j), t, n)
    keep = ["s%d" % j for j in range(n)] if n == 4 else []
    copy = ["%%[%s]" % k for k in keep] or ["%d(%%[r])" % (8 * j) for j in range(n)]  # where t's copy lives
    for j in range(n):
        lines.append("movq %%[%s], %s" % (t[j], copy[j]))
    chain(lines, "subq", "sbbq", lambda j: "%d(%%[p])" % (8 * j), t, n)
    for j in range(n):
        lines.append("cmovcq %s, %%[%s]" % (copy[j], t[j]))
    for j in range(n):
        lines.append("movq %%[%s], %d(%%[r])" % (t[j], 8 * j))
    return memory_result_function("fe_adx_add_%d" % n, "r = a + b mod p, a, b < p, r < p; r may alias a or b.", n, lines,
                                  t + keep)


def gen_sub(n):
    """t = a - b; m = 0 - borrow; then t + (p and m). With 4 limbs p and m are formed in
    registers; with 6, t + p is formed whole and t (kept in r) taken back unless a - b
    borrowed."""
    t = ["t%d" % j for j in range(n)]
    lines = []
    for j in range(n):
        lines.append("movq %d(%%[a]), %%[%s]" % (8 * j, t[j]))
    chain(lines, "subq", "sbbq", lambda j: "%d(%%[b])" % (8 * j), t, n)
    lines.append("sbbq %[m], %[m]")  # m = -borrow
    if n == 4:
        q = ["q%d" % j for j in range(n)]
        for j in range(n):
            lines.append("movq %d(%%[p]), %%[%s]" % (8 * j, q[j]))
            lines.append("andq %%[m], %%[%s]" % q[j])
        chain(lines, "addq", "adcq", lambda j: "%%[%s]" % q[j], t, n)
        temps = t + q + ["m"]
    else:
        for j in range(n):
            lines.append("movq %%[%s], %d(%%[r])" % (t[j], 8 * j))
        chain(lines, "addq", "adcq", lambda j: "%d(%%[p])" % (8 * j), t, n)
        lines.append("testq %[m], %[m]")
        for j in range(n):
            lines.append("cmovzq %d(%%[r]), %%[%s]" % (8 * j, t[j]))
        temps = t + ["m"]
    for j in range(n):
        lines.append("movq %%[%s], %d(%%[r])" % (t[j], 8 * j))
    return memory_result_function("fe_adx_sub_%d" % n, "r = a - b mod p, a, b < p, r < p; r may alias a or b.", n, lines,
                                  temps)


def gen(n):
    return gen_mul(n) + gen_add(n) + gen_sub(n)


def main():
    write_header("gen_adx.py", "KERNELS_CPU_FE_ADX_GEN_H",
                 "/* Montgomery multiplication with mulx/adcx/adox, addition and subtraction with adc/sbb and\n"
                 " * cmov; only for processors with ADX and BMI2. */", [gen(n) for n in SIZES])


if __name__ == "__main__":
    main()
