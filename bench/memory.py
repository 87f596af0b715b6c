#!/usr/bin/env python3
"""The memory budget's estimates against measured peaks (docs/memory.md; not in CI).

For each Groth16 fixture given (directories with circuit.zkey and witness.wtns) and a few MSM
and NTT sizes: hpr_memory_peak's estimate and the measured peak growth of the job's anonymous
memory (the C library's default allocator, and with its caching of freed blocks off:
GLIBC_TUNABLES mmap_threshold=64K, which leaves the blocks the job holds at once); for the
proofs also the whole process's peak RSS of `hyprove groth16 prove --devices cpu` (the key
mapped) and, when given, of rapidsnark's prover on the same files. Prints a Markdown table.

usage: memory.py BUILD_DIR [--rapidsnark PROVER] FIXTURE_DIR...
"""
import json
import os
import resource
import subprocess
import sys
import tempfile

LIVE = {"GLIBC_TUNABLES": "glibc.malloc.mmap_threshold=65536:glibc.malloc.trim_threshold=65536"}
JOBS = [["msm", "bn254", "g1", "16"], ["msm", "bn254", "g1", "20"], ["msm", "bn254", "g2", "16"],
        ["msm", "bls12-381", "g1", "16"], ["ntt", "16"], ["ntt", "20"], ["ntt", "16", "4"], ["lde", "16", "4"]]


def mib(b):
    return f"{b / 1048576:.1f}"


def peak_job(build, args, env=None):
    e = dict(os.environ)
    e.update(env or {})
    r = subprocess.run([os.path.join(build, "bench", "hpr_memory_peak")] + args, capture_output=True, text=True,
                       env=e, check=True)
    return json.loads(r.stdout)


def process_peak(cmd):
    """Peak RSS (bytes) of one child: a fresh python measures only it."""
    code = ("import resource,subprocess,sys; r=subprocess.run(sys.argv[1:], capture_output=True); "
            "print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss if r.returncode == 0 else -1)")
    out = subprocess.run([sys.executable, "-c", code] + cmd, capture_output=True, text=True, check=True).stdout
    return int(out) * 1024


def main():
    args = sys.argv[1:]
    if not args:
        sys.exit(__doc__)
    build, rapidsnark = args.pop(0), None
    if args[:1] == ["--rapidsnark"]:
        rapidsnark = args[1]
        args = args[2:]
    hyprove = os.path.join(build, "hyprove")
    print("| job | size | estimate MiB | peak growth MiB (glibc default) | ratio | blocks held at once MiB | "
          "process peak RSS MiB: hyprove | rapidsnark |")
    print("|---|---|---|---|---|---|---|---|")
    with tempfile.TemporaryDirectory() as tmp:
        proof, public = os.path.join(tmp, "proof.json"), os.path.join(tmp, "public.json")
        for fix in args:
            zkey, wtns = os.path.join(fix, "circuit.zkey"), os.path.join(fix, "witness.wtns")
            d, live = peak_job(build, ["proof", zkey, wtns]), peak_job(build, ["proof", zkey, wtns], LIVE)
            ours = process_peak([hyprove, "groth16", "prove", zkey, wtns, proof, public, "--devices", "cpu"])
            theirs = process_peak([rapidsnark, zkey, wtns, proof, public]) if rapidsnark else 0
            print(f"| proof {os.path.basename(fix.rstrip('/'))} | {d['size']} | {mib(d['estimate'])} | "
                  f"{mib(d['anon_peak_growth'])} | {d['estimate'] / max(d['anon_peak_growth'], 1):.2f} | "
                  f"{mib(live['anon_peak_growth'])} | {mib(ours)} | {mib(theirs) if theirs > 0 else '-'} |")
        for job in JOBS:
            d, live = peak_job(build, job), peak_job(build, job, LIVE)
            print(f"| {job[0]} | {d['size']} | {mib(d['estimate'])} | {mib(d['anon_peak_growth'])} | "
                  f"{d['estimate'] / max(d['anon_peak_growth'], 1):.2f} | {mib(live['anon_peak_growth'])} | - | - |")


if __name__ == "__main__":
    main()
