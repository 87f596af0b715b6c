#!/usr/bin/env python3
"""Whole-process Groth16 proof times, measured as shared/BENCH.md measures snarkjs and
rapidsnark: `hyprove groth16 prove zkey wtns proof.json public.json` as a fresh process (key
mapping, witness read, proof, both JSON files written), one warm-up, then the median and min
of R runs per fixture. With --snarkjs, the last proof of each fixture is verified.

usage: groth16_process.py HYPROVE FIXTURE_DIR [FIXTURE_DIR...] [--repeat R] [--devices D]
                          [--threads T] [--snarkjs PATH]
"""
import argparse
import os
import statistics
import subprocess
import sys
import tempfile
import time


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("hyprove")
    ap.add_argument("fixtures", nargs="+")
    ap.add_argument("--repeat", type=int, default=5)
    ap.add_argument("--devices", default="cpu")
    ap.add_argument("--threads")
    ap.add_argument("--snarkjs")
    a = ap.parse_args()
    print(f"{'fixture':<16} {'devices':<8} {'median_ms':>10} {'min_ms':>10}  verified")
    with tempfile.TemporaryDirectory() as out:
        proof, public = os.path.join(out, "proof.json"), os.path.join(out, "public.json")
        for fx in a.fixtures:
            cmd = [a.hyprove, "groth16", "prove", os.path.join(fx, "circuit.zkey"), os.path.join(fx, "witness.wtns"),
                   proof, public, "--devices", a.devices] + (["--threads", a.threads] if a.threads else [])
            times = []
            for k in range(a.repeat + 1):
                t0 = time.perf_counter()
                r = subprocess.run(cmd, capture_output=True, text=True)
                dt = (time.perf_counter() - t0) * 1e3
                if r.returncode != 0:
                    print(f"{os.path.basename(fx)}: {r.stderr.strip()}", file=sys.stderr)
                    return 1
                if k > 0:
                    times.append(dt)
            verified = "-"
            if a.snarkjs:
                v = subprocess.run([a.snarkjs, "groth16", "verify", os.path.join(fx, "verification_key.json"), public,
                                    proof], capture_output=True, text=True)
                verified = "OK" if v.returncode == 0 and "OK" in v.stdout else "FAILED"
            print(f"{os.path.basename(os.path.normpath(fx)):<16} {a.devices:<8} {statistics.median(times):>10.1f} "
                  f"{min(times):>10.1f}  {verified}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
