#!/usr/bin/env python3
"""The default command against hand-picked options: `hyprove groth16 prove` with no device
option (the default device set, auto) and with each --devices given, paired, whole process.

For each fixture folder (circuit.zkey and witness.wtns): one warm-up run of each variant, then
ROUNDS rounds in which every variant runs once, the order rotated from one round to the next.
Every run is a fresh process (`hyprove groth16 prove ZKEY WTNS PROOF PUBLIC [--devices D]`),
timed by the wall clock around it (fork to reap), its peak RSS its own ru_maxrss (os.wait4).
Each variant's time and RSS are divided by the default's in the same round, and the median
ratio is quoted (a paired ratio: the shared machine's drifts cancel within a round). The
default run's --report line `devices:` (what auto chose) is printed with the table.

Output: a Markdown table on stdout, the processor (lscpu's model name) and the command line
on top; --json FILE also writes every run's numbers. Exit status 0, 1 when a run fails, 2 on
a bad argument.

usage: defaults.py [--hyprove build/release/hyprove] [--devices cpu,all] [--rounds 7]
                   [--json FILE] FIXTURE_DIR [FIXTURE_DIR ...]
"""
import argparse
import json
import os
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def processor():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=False).stdout
    except OSError:
        return "unknown"
    for line in out.splitlines():
        if line.startswith("Model name:"):
            return line.split(":", 1)[1].strip()
    return "unknown"


def run_once(cmd):
    """(wall seconds, peak RSS MiB, stdout+stderr) of one process; raises on failure."""
    t0 = time.perf_counter()
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    out = proc.stdout.read()
    _, status, usage = os.wait4(proc.pid, 0)
    wall = time.perf_counter() - t0
    proc.returncode = os.waitstatus_to_exitcode(status)
    text = out.decode(errors="replace")
    if proc.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s" % (shlex.join(cmd), proc.returncode, text))
    return wall, usage.ru_maxrss / 1024.0, text


def variant_cmd(hyprove, fixture, tmp, devices):
    cmd = [hyprove, "groth16", "prove", os.path.join(fixture, "circuit.zkey"), os.path.join(fixture, "witness.wtns"),
           os.path.join(tmp, "proof.json"), os.path.join(tmp, "public.json")]
    if devices:
        cmd += ["--devices", devices]
    return cmd + ["--report"]


def measure(hyprove, fixture, variants, rounds):
    """{variant: [(wall, rss), ...]} and the default's `devices:` line."""
    runs = {v: [] for v in variants}
    choice = ""
    with tempfile.TemporaryDirectory() as tmp:
        for v in variants:  # warm-up: page cache, the OpenCL binary cache
            _, _, text = run_once(variant_cmd(hyprove, fixture, tmp, v))
            if v == "":
                choice = next((l for l in text.splitlines() if l.startswith("devices:")), "devices: (no line)")
        for r in range(rounds):
            order = variants[r % len(variants):] + variants[:r % len(variants)]
            for v in order:
                wall, rss, _ = run_once(variant_cmd(hyprove, fixture, tmp, v))
                runs[v].append((wall, rss))
                print("  %s round %d %-9s %.3f s %.1f MiB" % (os.path.basename(fixture), r + 1, v or "default", wall,
                                                                 rss), file=sys.stderr)
    return runs, choice


def paired_median(runs, v, k):
    return statistics.median(x[k] / d[k] for x, d in zip(runs[v], runs[""]))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--hyprove", default=os.path.join(ROOT, "build", "release", "hyprove"))
    ap.add_argument("--devices", default="cpu,all")
    ap.add_argument("--rounds", type=int, default=7)
    ap.add_argument("--json")
    ap.add_argument("fixtures", nargs="+")
    a = ap.parse_args()
    if a.rounds < 1 or not os.access(a.hyprove, os.X_OK):
        print("defaults.py: --rounds must be >= 1 and --hyprove executable (%s)" % a.hyprove, file=sys.stderr)
        return 2
    for f in a.fixtures:
        if not all(os.path.isfile(os.path.join(f, n)) for n in ("circuit.zkey", "witness.wtns")):
            print("defaults.py: %s lacks circuit.zkey or witness.wtns" % f, file=sys.stderr)
            return 2
    variants = [""] + [d for d in a.devices.split(",") if d]
    print("Processor: %s. Command: `%s`\n" % (processor(), shlex.join([sys.argv[0]] + sys.argv[1:])))
    print("| fixture | options | median wall (s) | median peak RSS (MiB) | time / default | RSS / default |")
    print("|---|---|---|---|---|---|")
    record = {"processor": processor(), "command": sys.argv, "rounds": a.rounds, "fixtures": {}}
    try:
        for f in a.fixtures:
            runs, choice = measure(a.hyprove, f, variants, a.rounds)
            name = os.path.basename(os.path.normpath(f))
            for v in variants:
                wall = statistics.median(x[0] for x in runs[v])
                rss = statistics.median(x[1] for x in runs[v])
                print("| %s | %s | %.3f | %.1f | %.3f | %.3f |" % (
                    name, "--devices " + v if v else "(default) " + choice.replace("devices: ", ""), wall, rss,
                    paired_median(runs, v, 0), paired_median(runs, v, 1)))
            record["fixtures"][name] = {"default_choice": choice, "runs": {v or "default": runs[v] for v in variants}}
    except RuntimeError as e:
        print("defaults.py: a run failed: %s" % e, file=sys.stderr)
        return 1
    if a.json:
        with open(a.json + ".tmp", "w") as fh:
            json.dump(record, fh, indent=1)
        os.replace(a.json + ".tmp", a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
