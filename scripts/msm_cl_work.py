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

Then, per kernel, the longest chain: the most point additions (and doublings) that one
work-item runs one after another, beside the items of that launch and the additions of all
of them. A chain is latency that no other item can hide once too few items are left to fill
the device: the sorted kernel keeps every chain within about MAX_CHAIN (cl_msm_sorted.c).
The owner-computes kernel walks a segment of points per item by design (no sort); its
chains are printed for comparison.
"""
import argparse

AFF, XYZZ, SCAL = 64, 128, 32
MADD, ADD = 10, 14
BITS = 254
CURVES = {"bn254": (64, 128, 254), "bls12-381": (96, 192, 255)}  # affine, XYZZ bytes; scalar bits
MAX_CHAIN, MIN_SPAN, TREE_FAN, LOG_TREE_FAN, CARRY_FAN = 64, 2, 8, 3, 8  # = cl_msm_sorted.c


def set_group(curve, group):
    """The sizes and costs of curve's group: G2 doubles the bytes, and its Fq2 multiplication
    counts 3 base-field ones."""
    global AFF, XYZZ, BITS, MADD, ADD
    aff, xyzz, BITS = CURVES[curve]
    coords, mults = (2, 3) if group == "g2" else (1, 1)  # base-field words, multiplications per one
    AFF, XYZZ, MADD, ADD = coords * aff, coords * xyzz, mults * 10, mults * 14


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
    seg_len = -(-chunk // nseg)
    chains = [("msm_segments", items, seg_len + 2 * nb, items * (seg_len * nz + 2 * nb)),
              ("msm_sum_segments", nwin, nseg, nwin * nseg)]
    return dict(c=c, mults=mults / n, read=read / n, written=written / n, launches=3,
                extra=f"nseg {nseg}, {items} items", chains=chains)


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
    ntiles = nwin * -(-n // 1024)                  # tiles of 1024 entries within each window
    passes = max(1, -(-(c - 1) // 8))              # the bucket's bits: the window is never sorted
    target = cus * (1024 if gpu else 4)
    span = min(MAX_CHAIN, max(MIN_SPAN, -(-entries // target)))
    items = -(-entries // span)
    chains = [("msm_bucket_runs", items, span, entries)]
    levels, k, fan = 0, items, min(span, CARRY_FAN)
    while k > 1:
        levels += 1
        chains.append((f"msm_carry_runs {levels}", -(-k // fan), min(fan, k) + 1, k + -(-k // fan)))
        k = -(-k // fan)
    seg_target = cus * 256 if gpu else cus
    nseg = 1
    while nseg < nb and (nwin * nseg * 2 <= seg_target or nb // nseg > MAX_CHAIN // 2):
        nseg *= 2
    chains.append(("msm_bucket_segments", nwin * nseg, 2 * (nb // nseg), nwin * nb * 2))
    tree_adds, k, log_k, level = 0, nseg, 0, 0
    while k > 1:
        out = -(-k // TREE_FAN)
        fan = min(k, TREE_FAN)
        chain = 2 * (fan - 1) + 1 + log_k + fan + (fan if level else 0)
        chains.append((f"msm_segment_tree {level + 1}", nwin * out, chain, nwin * out * chain))
        tree_adds += nwin * out * chain
        k, log_k, level = out, log_k + LOG_TREE_FAN, level + 1
    log_len = (c - 1) - (nseg.bit_length() - 1)
    chains.append(("msm_window_sums", nwin, log_len + 1, nwin * (log_len + 1)))
    nz = 1 - 2.0 ** -c
    counts = ntiles * 256 * 4
    mults = entries * nz * MADD + items * ADD + nkeys * 2 * ADD + tree_adds * ADD
    read = (n * (AFF + SCAL)                                  # point check, digits
            + entries * (4 + 8) + (passes - 1) * entries * nz * (4 + 8)  # hist, scatter: zero
            + passes * 3 * counts                             # digits dropped by the first pass; scans
            + (nkeys + 1) * 4 * max(1, entries.bit_length())  # bucket starts (binary search)
            + entries * 8 + entries * nz * AFF + 4            # level-0 runs
            + items * (XYZZ + 4) * 2                          # carry levels (at most)
            + nkeys * (8 + XYZZ) + nwin * nseg * 2 * XYZZ)
    written = (entries * 8 + passes * (counts * 2 + entries * nz * 8) + (nkeys + 1) * 4
               + nkeys * XYZZ + items * (XYZZ + 4) * 2 + nwin * nseg * 2 * XYZZ + nwin * XYZZ)
    return dict(c=c, mults=mults / n, read=read / n, written=written / n,
                launches=2 + 5 * passes + 1 + 2 + levels + 2 + (len(chains) - levels - 3),
                extra=f"{passes} sort passes, span {span}, {items} items, {levels} carry levels, G {nseg}",
                nwin=nwin, passes=passes,
                chains=chains)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--cus", type=int, default=132)
    ap.add_argument("--cpu", action="store_true", help="a CPU device (POCL)")
    ap.add_argument("--mem-gib", type=float, default=141)
    ap.add_argument("--log-n", default="20,24")
    ap.add_argument("--group", choices=("g1", "g2"), default="g1")
    a = ap.parse_args()
    set_group("bn254", a.group)
    mem = int(a.mem_gib * (1 << 30))
    print(f"device: {a.cus} compute units, {'CPU' if a.cpu else 'GPU'}, {a.mem_gib} GiB; BN254 {a.group.upper()}, per point")
    print(f"{'log_n':>5} {'kernel':<7} {'c':>2} {'field mults':>11} {'bytes read':>10} {'written':>8} {'launches':>8}  plan")
    sizes = [int(x) for x in a.log_n.split(",")]
    results = {}
    for log_n in sizes:
        n = 1 << log_n
        for name, f in (("owner", owner), ("sorted", sorted_kernel)):
            r = results[log_n, name] = f(n, a.cus, not a.cpu, mem)
            print(f"{log_n:>5} {name:<7} {r['c']:>2} {r['mults']:>11.1f} {r['read']:>10.0f} {r['written']:>8.0f} "
                  f"{r['launches']:>8}  {r['extra']}")
    print()
    print("longest chain: point additions one work-item runs in sequence; items: that launch's work-items;")
    print("additions: of all its items together")
    print(f"{'log_n':>5} {'kernel':<7} {'launch':<22} {'items':>9} {'longest chain':>13} {'additions':>11}")
    worst = 0
    for log_n in sizes:
        for name in ("owner", "sorted"):
            for kernel, items, chain, adds in results[log_n, name]["chains"]:
                print(f"{log_n:>5} {name:<7} {kernel:<22} {items:>9} {chain:>13} {adds:>11.0f}")
                if name == "sorted":
                    worst = max(worst, chain)
    print(f"sorted kernel: longest chain {worst} (bound: about {MAX_CHAIN})")


if __name__ == "__main__":
    main()
