#!/usr/bin/env python3
"""Counted work of the two OpenCL MSM kernels per point, from their plans and code.

usage: msm_cl_work.py [--cus N] [--cpu] [--mem-gib G] [--log-n 20,24] [--group g1|g2]

Mirrors the planning of runtime/opencl/cl_msm.c (owner-computes) and cl_msm_sorted.c
(sorted buckets) for one device (default: an NVIDIA H200, 132 compute units, 141 GiB) and
counts, per point of an MSM of 2^N BN254 G1 points with random scalars: field
multiplications (squarings counted as multiplications: mixed XYZZ addition 10, XYZZ addition
14, as in arith/ec_impl.h), global memory bytes read and written by the kernels, and kernel
launches per chunk. Expected values: a Booth digit is zero with probability 2^-c; the
sorted kernels' buckets are all non-empty at these sizes. Affine points 64 bytes, XYZZ 128,
scalars 32 (BN254). --group g2: BN254 G2, the same kernels over Fq2 (affine 128 bytes, XYZZ
256), field multiplications counted in the base field, 3 per Fq2 multiplication (Karatsuba;
an Fq2 squaring costs 2 and is counted as 3: an upper bound).
"""
import argparse

AFF, XYZZ, SCAL = 64, 128, 32
MADD, ADD = 10, 14
BITS = 254


def windows(c):  # msm_digit_windows: Booth digits need one extra bit
    return (BITS + 1 + c - 1) // c


def owner(n, cus, gpu, mem):
    max_alloc = mem // 4
    budget = min(mem // 4, max_alloc)
    chunk = min(n, max_alloc // AFF, mem // 8 // (AFF + 32))
    per_cu = 256 if gpu else 1
    best = None
    for c in range(2, 17):
        nwin = windows(c)
        nseg = min(chunk, -(-cus * per_cu // nwin))
        buckets = nwin * nseg * (1 << (c - 1)) * XYZZ
        cost = nwin * chunk + nwin * nseg * 1.5 * (1 << c)
        if buckets > budget or (not gpu and (1 << (c - 1)) * XYZZ > (1 << 20)):
            continue
        if best is None or cost < best[0]:
            best = (cost, c, nwin, nseg)
    _, c, nwin, nseg = best
    nb = 1 << (c - 1)
    nz = 1 - 2.0 ** -c
    items = nwin * nseg
    mults = nwin * n * nz * MADD + items * nb * 2 * ADD + items * ADD
    read = nwin * n * (SCAL + nz * (AFF + XYZZ)) + items * nb * XYZZ + items * XYZZ
    written = nwin * n * nz * XYZZ + items * nb * XYZZ * 1 + items * XYZZ + nwin * XYZZ
    return dict(c=c, mults=mults / n, read=read / n, written=written / n, launches=3,
                extra=f"nseg {nseg}, {items} items")


def sorted_kernel(n, cus, gpu, mem):
    best = None
    for c in range(2, 17):
        nwin = windows(c)
        cost = nwin * (n + 3.0 * (1 << (c - 1)))
        if c > 2 and nwin * (1 << (c - 1)) * XYZZ > mem // 4:
            continue
        if best is None or cost < best[0]:
            best = (cost, c, nwin)
    _, c, nwin = best
    nb = 1 << (c - 1)
    nkeys = nwin * nb
    entries = nwin * n
    ntiles = -(-entries // 1024)
    passes = -(-nkeys.bit_length() // 8)
    target = cus * (1024 if gpu else 4)
    span = max(2, -(-entries // target))
    items = -(-entries // span)
    levels, k = 0, items
    while k > 1:
        k = -(-k // span)
        levels += 1
    seg_target = cus * 256 if gpu else cus
    nseg = 1
    while nseg < nb and nwin * nseg * 2 <= seg_target:
        nseg *= 2
    nz = 1 - 2.0 ** -c
    counts = ntiles * 256 * 4
    mults = entries * nz * MADD + items * ADD + nkeys * 2 * ADD + nwin * nseg * 2 * ADD
    read = (n * (AFF + SCAL)                                  # point check, digits
            + passes * (entries * (4 + 8) + 3 * counts)       # hist, scan, scatter
            + (nkeys + 1) * 4 * max(1, entries.bit_length())  # bucket starts (binary search)
            + entries * 8 + entries * nz * AFF + 4            # level-0 runs
            + items * (XYZZ + 4) * 2                          # carry levels (at most)
            + nkeys * (8 + XYZZ) + nwin * nseg * 2 * XYZZ)
    written = (entries * 8 + passes * (counts * 2 + entries * 8) + (nkeys + 1) * 4
               + nkeys * XYZZ + items * (XYZZ + 4) * 2 + nwin * nseg * 2 * XYZZ + nwin * XYZZ)
    return dict(c=c, mults=mults / n, read=read / n, written=written / n,
                launches=2 + 5 * passes + 2 + levels + 2,
                extra=f"{passes} sort passes, span {span}, {items} items, {levels} carry levels, G {nseg}")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cus", type=int, default=132)
    ap.add_argument("--cpu", action="store_true", help="a CPU device (POCL)")
    ap.add_argument("--mem-gib", type=float, default=141)
    ap.add_argument("--log-n", default="20,24")
    ap.add_argument("--group", choices=("g1", "g2"), default="g1")
    a = ap.parse_args()
    global AFF, XYZZ, MADD, ADD
    if a.group == "g2":
        AFF, XYZZ, MADD, ADD = 2 * AFF, 2 * XYZZ, 3 * MADD, 3 * ADD
    mem = int(a.mem_gib * (1 << 30))
    print(f"device: {a.cus} compute units, {'CPU' if a.cpu else 'GPU'}, {a.mem_gib} GiB; BN254 {a.group.upper()}, per point")
    print(f"{'log_n':>5} {'kernel':<7} {'c':>2} {'field mults':>11} {'bytes read':>10} {'written':>8} {'launches':>8}  plan")
    for log_n in (int(x) for x in a.log_n.split(",")):
        n = 1 << log_n
        for name, f in (("owner", owner), ("sorted", sorted_kernel)):
            r = f(n, a.cus, not a.cpu, mem)
            print(f"{log_n:>5} {name:<7} {r['c']:>2} {r['mults']:>11.1f} {r['read']:>10.0f} {r['written']:>8.0f} "
                  f"{r['launches']:>8}  {r['extra']}")


if __name__ == "__main__":
    main()
