#!/usr/bin/env python3
"""The bench scripts that print the figures in docs/performance.md, run for real at small sizes.

- bench/kernels_vs_commit.py with --base-cli this very CLI (no build of another commit), the
  sizes at 2^8, two rounds on the portable tier: exit 0, a row per kernel in the table and the
  JSON, each with a figure per round from both binaries and the commitment roots agreeing;
  an unknown kernel and a size out of range are usage errors (exit 2).
- bench/scale.py's reading of `groth16 prove --report` (parse_report) on the CLI's real
  output: the phases and the total, and nothing from the memory line after the table (it was
  once read as a phase 'memory_estimate' of as many milliseconds as it had MiB).

usage: bench_scripts_test.py HYPROVE REPO_ROOT
"""
import json
import os
import subprocess
import sys
import tempfile

HYPROVE, ROOT = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
sys.path.insert(0, os.path.join(ROOT, "bench"))
import kernels_vs_commit  # noqa: E402
import scale  # noqa: E402

failures = []


def check(ok, what):
    print(("ok   " if ok else "FAIL ") + what)
    if not ok:
        failures.append(what)


def kernels_vs_commit_smoke(tmp):
    out = os.path.join(tmp, "kv.json")
    cmd = [sys.executable, os.path.join(ROOT, "bench", "kernels_vs_commit.py"), "--base-cli", HYPROVE, "--hyprove",
           HYPROVE, "--log-n", "8", "--rounds", "2", "--repeat", "1", "--tiers", "portable", "--json", out]
    r = subprocess.run(cmd, capture_output=True, text=True, timeout=900)
    check(r.returncode == 0, "kernels_vs_commit.py at 2^8 exits 0" + ("" if r.returncode == 0 else
                                                                         " (%d: %s)" % (r.returncode, r.stderr[-800:])))
    if r.returncode != 0:
        return
    rows = [l for l in r.stdout.splitlines() if l.startswith("| ") and "portable" in l]
    check(len(rows) == len(kernels_vs_commit.KERNELS), "a table row per kernel (%d)" % len(rows))
    check("sizes 2^8, not 2^20" in r.stdout, "the header says the sizes are not 2^20")
    doc = json.load(open(out, encoding="utf-8"))
    check(sorted(row["kernel"] for row in doc["rows"]) == sorted(kernels_vs_commit.KERNELS), "a JSON row per kernel")
    for row in doc["rows"]:
        check(len(row["base_ms"]) == 2 and len(row["current_ms"]) == 2 and
              all(v > 0 for v in row["base_ms"] + row["current_ms"]) and row["speedup_min"] <= row["speedup_max"],
              "%s: two figures from each binary, a ratio range" % row["kernel"])
    for bad in (["--kernels", "nope"], ["--log-n", "30"]):
        r = subprocess.run(cmd[:2] + ["--base-cli", HYPROVE, "--hyprove", HYPROVE] + bad, capture_output=True, text=True)
        check(r.returncode == 2, "%s is a usage error (exit %d)" % (" ".join(bad), r.returncode))


def scale_report_parse(tmp):
    fx = os.path.join(ROOT, "tests", "fixtures", "edge_pub")
    r = subprocess.run([HYPROVE, "groth16", "prove", os.path.join(fx, "circuit.zkey"), os.path.join(fx, "witness.wtns"),
                        os.path.join(tmp, "proof.json"), os.path.join(tmp, "public.json"), "--report", "--devices",
                        "cpu"], capture_output=True, text=True, timeout=300)
    check(r.returncode == 0, "groth16 prove --report exits 0")
    check("memory: estimate" in r.stdout + r.stderr, "the report has its memory line")
    phases, total = scale.parse_report(r.stdout + r.stderr)
    known = set(scale.REPORT_NAMES.values())
    check(set(phases) <= known and "h" in phases and "msm_a" in phases,
          "parse_report reads the phases only: %s" % sorted(phases))
    check(total > 0 and total >= max(phases.values()), "and the total (%s ms)" % total)


with tempfile.TemporaryDirectory() as tmp:
    scale_report_parse(tmp)
    kernels_vs_commit_smoke(tmp)
if failures:
    print("%d check(s) failed" % len(failures))
    sys.exit(1)
print("all checks passed")
