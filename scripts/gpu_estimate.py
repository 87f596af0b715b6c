#!/usr/bin/env python3
"""Expected H200 times of the OpenCL MSM and NTT, on paper, from counted work.

usage: gpu_estimate.py [--ptx-json FILE] [--ptx-words-json FILE] [--clock-ghz F] [--efficiency F]

No GPU has been lent yet: these are estimates from counts, to be replaced by the figures of
scripts/gpu-check.sh. The counts come from scripts/msm_cl_work.py (the sorted MSM's plan on
an H200: field multiplications, bytes, and each launch's items and longest chain of
dependent point additions) and from ptxas (scripts/ptx-check.sh --json: the dynamic SASS
instructions of one base-field multiplication, its "ops_sass"; the defaults below are its
figures of 2026-12-07). The model:
  - compute: field multiplications x SASS per multiplication x FIELD_OVERHEAD (the
    additions, subtractions and moves around them) over the SMs' 32-bit integer rate
    (64 lanes per SM and clock on Hopper) x EFFICIENCY;
  - memory: the bytes read and written over HBM3e's 4.8 TB/s x MEM_EFFICIENCY (overlapping
    with compute: the larger of the two counts);
  - the sort: SORT_SASS instructions per entry and pass (the 32-item rank and the loads and
    stores of the histogram and the scatter, from ptxas's counts of those kernels);
  - a launch with fewer items than fill the GPU (FULL_ITEMS) waits on its longest chain: each
    dependent point addition about its SASS instructions x DEP_CPI cycles;
  - LAUNCH_US per launch.
Published figures beside them: ICICLE's BN254 G1 MSM scaled to an H200 (issue 49: about 18
ms at 2^20 and 95 ms at 2^24). Three columns: the default 32-bit words (--ptx-json: a
ptx-check.sh --json of limb32), hyprove's inline-PTX words (--ptx-words-json: one of --words
ptx; arith/ptx_words.h, opt-in until a GPU has checked them), and a multiplication of the SASS
that issue 49 gives for sppark's chains (about 185 for BN254, 375 for BLS12-381).
"""
import argparse
import json
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import msm_cl_work as work  # noqa: E402

SMS, INT_LANES = 132, 64              # H200: SMs, 32-bit integer lanes per SM and clock
HBM = 4.8e12                          # bytes/s
MEM_EFFICIENCY = 0.75
FIELD_OVERHEAD = 1.15
SORT_SASS = 400                       # per entry and pass
DEP_CPI = 2.0                         # cycles per instruction of one warp's dependent chain
FULL_ITEMS = SMS * 320                # about 10 warps per SM at 150-230 registers
LAUNCH_US = 4.0
SASS_PER_MUL = {"bn254": 576, "bls12-381": 1208}  # ptx-check.sh ops_sass: limb32, loops unrolled
PTX_WORDS = {"bn254": 336, "bls12-381": 744}     # ptx-check.sh --words ptx ops_sass (arith/ptx_words.h)
PTX_GRADE = {"bn254": 185, "bls12-381": 375}     # sppark's chains (issue 49)


def msm_ms(curve, group, log_n, sass_mul, rate, clock):
    work.set_group(curve, group)
    n = 1 << log_n
    r = work.sorted_kernel(n, SMS, True, int(141 * (1 << 30)))
    sass_add = work.ADD * sass_mul * FIELD_OVERHEAD
    compute = r["mults"] * n * sass_mul * FIELD_OVERHEAD / rate
    memory = (r["read"] + r["written"]) * n / (HBM * MEM_EFFICIENCY)
    sort = r["nwin"] * n * r["passes"] * SORT_SASS / rate
    tails = 0.0
    for _kernel, items, chain, _adds in r["chains"]:
        if items < FULL_ITEMS:
            tails += chain * sass_add * DEP_CPI / clock
    launches = r["launches"] * LAUNCH_US * 1e-6
    return 1e3 * (max(compute + sort, memory) + tails + launches), dict(
        compute=compute * 1e3, sort=sort * 1e3, memory=memory * 1e3, tails=tails * 1e3)


def ntt_ms(field, log_n, rate):
    """One column of 2^log_n: butterflies (one multiplication, an addition and a subtraction)
    in passes of 2^10 (256-bit) or 2^12 (Goldilocks) elements in 32 KiB of local memory, each
    pass reading and writing every element and reading a twiddle per butterfly and layer
    (the n-entry table: no reuse at 2^24, 512 MiB past the 60 MB L2)."""
    # BN254 Fr: the multiplication of BN254 Fp's size (8 32-bit words); Goldilocks: about 30
    # (an assumption: its whole ntt_dif_pass has 152 static SASS instructions)
    size, sass_mul, local_bits = {"bn254-fr": (32, SASS_PER_MUL["bn254"], 10), "goldilocks": (8, 30, 12)}[field]
    n = 1 << log_n
    passes, left, first = 0, log_n, True
    while left > 0:
        k = local_bits if first else local_bits - 3  # strided passes: groups of 8 sets
        left -= k
        passes += 1
        first = False
    butterflies = n // 2 * log_n
    compute = butterflies * sass_mul * 1.5 / rate
    memory = (passes * 2 * n * size + butterflies * size) / (HBM * MEM_EFFICIENCY)
    return 1e3 * (max(compute, memory) + passes * LAUNCH_US * 1e-6), passes


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--ptx-json", help="scripts/ptx-check.sh --json output (limb32 words): its ops_sass")
    ap.add_argument("--ptx-words-json", help="scripts/ptx-check.sh --words ptx --json output: its ops_sass")
    ap.add_argument("--clock-ghz", type=float, default=1.755, help="sustained SM clock (boost 1.98)")
    ap.add_argument("--efficiency", type=float, default=0.7, help="share of the integer rate reached")
    a = ap.parse_args()
    clock = a.clock_ghz * 1e9
    rate = SMS * INT_LANES * clock * a.efficiency
    for path, table in ((a.ptx_json, SASS_PER_MUL), (a.ptx_words_json, PTX_WORDS)):
        if path:
            with open(path) as fh:
                ops = json.load(fh).get("ops_sass", {})
            for curve, field in (("bn254", "bn254_fp"), ("bls12-381", "bls12_381_fp")):
                if field in ops:
                    table[curve] = ops[field]["mul"]
    print(f"H200 model: {SMS} SMs x {INT_LANES} integer lanes at {a.clock_ghz} GHz x {a.efficiency} = "
          f"{rate / 1e12:.1f} T instructions/s; HBM {HBM / 1e12} TB/s x {MEM_EFFICIENCY}")
    print(f"SASS per base-field multiplication: limb32 {SASS_PER_MUL}, ptx words {PTX_WORDS}, sppark-grade {PTX_GRADE}")
    print(f"{'MSM':<22} {'log_n':>5} {'ms':>7} {'ptx ms':>7} {'185 ms':>7}  compute / sort / memory / tails (ms)   published")
    published = {("bn254", "g1", 20): "ICICLE ~18 ms (scaled)", ("bn254", "g1", 24): "ICICLE ~95 ms (scaled)"}
    for curve, group, log_n in (("bn254", "g1", 20), ("bn254", "g1", 24), ("bls12-381", "g1", 20),
                                ("bls12-381", "g1", 24), ("bn254", "g2", 20), ("bls12-381", "g2", 20)):
        ms, parts = msm_ms(curve, group, log_n, SASS_PER_MUL[curve], rate, clock)
        ours, _ = msm_ms(curve, group, log_n, PTX_WORDS[curve], rate, clock)
        ptx, _ = msm_ms(curve, group, log_n, PTX_GRADE[curve], rate, clock)
        print(f"{curve + ' ' + group.upper():<22} {log_n:>5} {ms:>7.1f} {ours:>7.1f} {ptx:>7.1f}  "
              f"{parts['compute']:.1f} / {parts['sort']:.1f} / {parts['memory']:.1f} / {parts['tails']:.1f}"
              f"   {published.get((curve, group, log_n), '-')}")
    print(f"{'NTT (one column)':<22} {'log_n':>5} {'ms':>7} {'passes':>7}")
    for field in ("bn254-fr", "goldilocks"):
        for log_n in (20, 24):
            ms, passes = ntt_ms(field, log_n, rate)
            print(f"{field:<22} {log_n:>5} {ms:>7.2f} {passes:>7}")


if __name__ == "__main__":
    main()
