#!/usr/bin/env python3
"""The CPU kernels of this tree against those of an earlier commit, measured in alternation in
one run (issue 47's fair comparison).

The earlier commit (--base, default 1f24d6d, the build issue 47 was measured on) is
exported with `git archive` into build/bench-base/HASH/src and its CLI built there with its
own release preset (once; later runs reuse it), unless --base-cli names a binary. Then, for
ROUNDS rounds, every kernel on every tier runs once with each binary, the order swapped from
one round to the next (base first in even rounds), each run a fresh process `hyprove bench
... --repeat K --json -` with the tier forced by HPR_CPU. A run's figure is its median over
its K timed repetitions (after the CLI's own warm-up); per kernel and tier the table gives
the median of those figures over the rounds for each binary and the median of the paired
ratios base / current (the speedup; above 1 is faster now), with its range. Where both
binaries report a result (a commitment's root), the two must be equal, or the run fails.

Kernels (issue 47's table, 2 threads unless said; --log-n changes the 2^20): BN254 Fr and BLS12-381 Fr NTT 2^20; BN254
and BLS12-381 G1 MSM 2^20 (--devices cpu); the KoalaBear rate-2 LDE of 16 columns of 2^20;
the Poseidon2 commitment of the same; KoalaBear-16 Poseidon2 permutations on one thread.
Tiers: --tiers (default avx512,adx: those this processor can run are kept, the others
named and skipped); the commitment and Poseidon2 run on avx512 only (the adx tier has no
Poseidon2 kernel of its own).

Output: a Markdown table on stdout with the processor (lscpu's model name, family and model)
and the command line on top, and the targets of issue 47 beside each row; --json FILE also
writes every run. Exit status 0; 1 when a run fails or the results differ; 2 on a bad argument.

usage: kernels_vs_commit.py [--base COMMIT | --base-cli PATH] [--hyprove build/release/hyprove]
                            [--rounds 5] [--repeat 3] [--tiers avx512,adx] [--kernels K,...|all]
                            [--log-n 20] [--json FILE]
"""
import argparse
import json
import os
import re
import shlex
import statistics
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

# name -> (bench arguments ("20": the size, --log-n replaces it), threads, {tier: issue 47's
# target speedup}, tiers it is not run on)
KERNELS = {
    "ntt-bn254-2^20": (["ntt", "--field", "bn254-fr", "--log-n", "20"], 2, {"avx512": 1.8, "adx": 1.5}, ()),
    "ntt-bls12-381-2^20": (["ntt", "--field", "bls12-381-fr", "--log-n", "20"], 2, {}, ()),
    "msm-bn254-2^20": (["msm", "--curve", "bn254", "--log-n", "20", "--devices", "cpu"], 2,
                       {"avx512": 1.35, "adx": 1.3}, ()),
    "msm-bls12-381-2^20": (["msm", "--curve", "bls12-381", "--log-n", "20", "--devices", "cpu"], 2,
                           {"avx512": 1.35, "adx": 1.3}, ()),
    "lde-koalabear-2^20x16": (["ntt", "--field", "koalabear", "--log-n", "20", "--batch", "16", "--lde", "2"], 2,
                              {"avx512": 1.6}, ()),
    # the adx tier has no Poseidon2 kernel of its own (it runs the portable one): not measured
    "commit-koalabear-2^20x16": (["commit", "--field", "koalabear", "--log-n", "20", "--columns", "16", "--rate",
                                  "2"], 2, {"avx512": 1.6}, ("adx",)),
    "poseidon2-koalabear-16-1thread": (["poseidon2", "--instance", "koalabear-16", "--count", "262144"], 1,
                                       {"avx512": 1.25}, ("adx",)),
}


def processor():
    """lscpu's model name with the family and model numbers (machines of one name differ)."""
    fields = {}
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, env=dict(os.environ, LC_ALL="C")).stdout
        for line in out.splitlines():
            key, _, value = line.partition(":")
            fields.setdefault(key.strip(), value.strip())
    except OSError:
        pass
    name = fields.get("Model name", "unknown processor")
    if "CPU family" in fields and "Model" in fields:
        name += " (family %s model %s)" % (fields["CPU family"], fields["Model"])
    return name


def run(cmd, **kw):
    proc = subprocess.run(cmd, capture_output=True, text=True, **kw)
    if proc.returncode != 0:
        raise RuntimeError("%s: exit %d\n%s%s" % (shlex.join(cmd), proc.returncode, proc.stdout[-2000:],
                                                  proc.stderr[-2000:]))
    return proc.stdout


def build_base(commit):
    """The path of the CLI built from commit (built once into build/bench-base/HASH)."""
    full = run(["git", "-C", ROOT, "rev-parse", "--verify", commit + "^{commit}"]).strip()
    top = os.path.join(ROOT, "build", "bench-base", full)
    src = os.path.join(top, "src")
    cli = os.path.join(src, "build", "release", "hyprove")
    if os.path.exists(cli):
        return cli, full
    os.makedirs(src, exist_ok=True)
    archive = subprocess.Popen(["git", "-C", ROOT, "archive", full], stdout=subprocess.PIPE)
    subprocess.run(["tar", "-x", "-C", src], stdin=archive.stdout, check=True)
    if archive.wait() != 0:
        raise RuntimeError("git archive %s failed" % full)
    print("building %s's CLI in %s (once)" % (full[:12], src), file=sys.stderr)
    run(["cmake", "--preset", "release"], cwd=src)
    targets = run(["cmake", "--build", "--preset", "release", "--target", "help"], cwd=src)
    target = "hyprove_cli" if "hyprove_cli" in targets else "hyprove"
    run(["cmake", "--build", "--preset", "release", "-j%d" % (os.cpu_count() or 2), "--target", target], cwd=src)
    if not os.path.exists(cli):
        raise RuntimeError("the build of %s left no %s" % (full, cli))
    return cli, full


def available_tiers(hyprove):
    """The CPU tiers this processor and build can run, from `hyprove devices`."""
    out = run([hyprove, "devices"])
    return {m.group(1) for m in re.finditer(r"^\s+(\w+)\s+available\s*$", out, re.M)}


def measure(hyprove, kernel, tier, repeat, log_n):
    """(median ms, the result to compare or None) of one fresh process."""
    args, threads, _, _ = KERNELS[kernel]
    args = [str(log_n) if a == "20" else a for a in args]
    if kernel.startswith("poseidon2") and log_n != 20:
        args[args.index("262144")] = str(1 << max(log_n - 2, 4))
    cmd = [hyprove, "bench"] + args + ["--threads", str(threads), "--repeat", str(repeat), "--json", "-"]
    doc = json.loads(run(cmd, env=dict(os.environ, HPR_CPU=tier)))
    rec = doc["records"][0]
    if rec.get("cpu_tier", tier) != tier:
        raise RuntimeError("%s ran on tier %s, not %s" % (shlex.join(cmd), rec.get("cpu_tier"), tier))
    return rec["median_ms"], rec.get("root")


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--base", default="1f24d6d")
    ap.add_argument("--base-cli")
    ap.add_argument("--hyprove", default=os.path.join(ROOT, "build", "release", "hyprove"))
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--tiers", default="avx512,adx")
    ap.add_argument("--kernels", default="all")
    ap.add_argument("--log-n", type=int, default=20, help="the sizes' log2 (default 20, issue 47's; less for a smoke test)")
    ap.add_argument("--json")
    a = ap.parse_args()
    kernels = list(KERNELS) if a.kernels == "all" else a.kernels.split(",")
    bad = [k for k in kernels if k not in KERNELS]
    if bad or a.rounds < 1 or a.repeat < 1 or not 4 <= a.log_n <= 24:
        ap.error("unknown kernel %s (known: %s)" % (", ".join(bad), ", ".join(KERNELS)) if bad else
                 "--rounds and --repeat take at least 1, --log-n 4 to 24")
    if not os.access(a.hyprove, os.X_OK):
        ap.error("no CLI at %s (build the release preset, or give --hyprove)" % a.hyprove)
    try:
        base_cli, base_name = (a.base_cli, a.base_cli) if a.base_cli else build_base(a.base)
        head = run(["git", "-C", ROOT, "rev-parse", "--short=12", "HEAD"]).strip()
        dirty = run(["git", "-C", ROOT, "status", "--porcelain", "--untracked-files=no"]).strip()
        can = available_tiers(a.hyprove)
        tiers = [t for t in a.tiers.split(",") if t in can]
        for t in a.tiers.split(","):
            if t not in can:
                print("tier %s: not available on this processor or build, skipped" % t, file=sys.stderr)
        runs = {(k, t): {"base": [], "current": []} for k in kernels for t in tiers if t not in KERNELS[k][3]}
        for r in range(a.rounds):
            for k, t in runs:
                order = [("base", base_cli), ("current", a.hyprove)]
                results = {}
                for which, cli in (order if r % 2 == 0 else order[::-1]):
                    ms, results[which] = measure(cli, k, t, a.repeat, a.log_n)
                    runs[(k, t)][which].append(ms)
                if results["base"] is not None and results["current"] is not None and \
                        results["base"] != results["current"]:
                    raise RuntimeError("%s on %s: the base's result %s differs from the current %s" %
                                       (k, t, results["base"], results["current"]))
                print("round %d %-32s %-7s base %9.2f ms  current %9.2f ms" %
                      (r + 1, k, t, runs[(k, t)]["base"][-1], runs[(k, t)]["current"][-1]), file=sys.stderr)
    except (RuntimeError, OSError, subprocess.CalledProcessError, ValueError, KeyError) as e:
        print("kernels_vs_commit: %s" % e, file=sys.stderr)
        return 1
    print("Processor: %s. Base %s, current %s%s; %d rounds, each run the median of %d repetitions%s." %
          (processor(), base_name if a.base_cli else base_name[:12], head, " (with uncommitted changes)" if dirty else "", a.rounds, a.repeat,
           "" if a.log_n == 20 else "; sizes 2^%d, not 2^20" % a.log_n))
    print("Command: `%s`\n" % shlex.join([os.path.relpath(sys.argv[0], ROOT)] + sys.argv[1:]))
    print("| kernel | tier | base ms | current ms | speedup (range) | issue 47 target |")
    print("|---|---|---|---|---|---|")
    rows = []
    for (k, t), v in runs.items():
        ratios = [b / c for b, c in zip(v["base"], v["current"])]
        target = KERNELS[k][2].get(t)
        row = {"kernel": k, "tier": t, "base_ms": v["base"], "current_ms": v["current"],
               "base_median_ms": statistics.median(v["base"]), "current_median_ms": statistics.median(v["current"]),
               "speedup_median": statistics.median(ratios), "speedup_min": min(ratios), "speedup_max": max(ratios),
               "target": target}
        rows.append(row)
        print("| %s | %s | %.2f | %.2f | %.2fx (%.2f-%.2f) | %s |" %
              (k, t, row["base_median_ms"], row["current_median_ms"], row["speedup_median"], row["speedup_min"],
               row["speedup_max"], ("%.2fx" % target) if target else "-"))
    if a.json:
        tmp = a.json + ".tmp"
        with open(tmp, "w", encoding="utf-8") as f:
            json.dump({"processor": processor(), "base": base_name, "current": head, "dirty": bool(dirty),
                       "rounds": a.rounds, "repeat": a.repeat, "rows": rows}, f, indent=1)
            f.write("\n")
        os.replace(tmp, a.json)
    return 0


if __name__ == "__main__":
    sys.exit(main())
