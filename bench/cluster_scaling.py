#!/usr/bin/env python3
"""cluster_scaling.py: the figures of docs/cluster.md.

Compares `mpirun -np N` with one CPU thread per rank against one process with one thread, in
alternating pairs (one process, then the job, repeated), since a shared machine drifts:

  msm      bench msm (BN254 G1, 2^LOG_N random points): speedup = one process's median time
           over the job's; efficiency = speedup / N (the issue's target: >= 0.85 at N = 2);
           and the machine's own ceiling: N independent processes at once, each timed against
           one alone (cores that share caches and memory slow each other down)
  groth16  bench groth16 ZKEY WTNS: the same for whole proofs, and the bytes the ranks sent
           per proof (the job's bytes_sent over its proofs)
  batch    groth16 prove-batch over K copies of WTNS: the job's proofs/s over that of N
           independent processes each proving K/N of them at the same time (target >= 0.9)

Usage: bench/cluster_scaling.py HYPROVE [--zkey Z --wtns W] [--ranks N] [--pairs P]
       [--log-n L] [--repeat R] [--batch K] [--json FILE]
Prints a table; --json writes the figures with the processor's name. Needs Open MPI's mpirun
and a hyprove built with it. As root, mpirun gets --allow-run-as-root.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile

MPI_ARGS = ["--oversubscribe", "--mca", "btl", "self,vader", "--mca", "btl_vader_single_copy_mechanism", "none"]


def processor():
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, check=True).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except (OSError, subprocess.CalledProcessError):
        pass
    return "unknown"


def mpirun(ranks):
    cmd = ["mpirun", "-np", str(ranks)] + MPI_ARGS
    if os.geteuid() == 0:
        cmd.insert(1, "--allow-run-as-root")
    return cmd


def run_json(cmd):
    """Runs cmd (its JSON records on stdout) and returns the records."""
    res = subprocess.run(cmd, capture_output=True, text=True)
    if res.returncode != 0:
        sys.exit(f"cluster_scaling: {' '.join(cmd)} failed ({res.returncode}):\n{res.stderr}")
    doc = json.loads(res.stdout)
    return doc["records"] if isinstance(doc, dict) and "records" in doc else doc


def paired(single_cmd, job_cmd, pairs, key):
    """Median over pairs of single[key] / job[key], and the last job record."""
    ratios, last = [], None
    for _ in range(pairs):
        one = run_json(single_cmd)[0]
        last = run_json(job_cmd)[0]
        ratios.append(one[key] / last[key])
    return statistics.median(ratios), ratios, last


def ceiling(cmd, ranks, pairs):
    """Median over pairs of ranks x (one process alone) / (each of ranks processes at once)."""
    ratios = []
    for _ in range(pairs):
        alone = run_json(cmd)[0]["median_ms"]
        procs = [subprocess.Popen(cmd + ["--seed", str(2 + r)], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                  text=True) for r in range(ranks)]
        together = [json.loads(p.communicate()[0])["records"][0]["median_ms"] for p in procs]
        ratios.append(ranks * alone / statistics.mean(together))
    return statistics.median(ratios)


def batch_pairs(hyprove, zkey, wtns, ranks, count, pairs):
    """Median over pairs of the job's proofs/s over ranks independent processes' together."""
    ratios = []
    with tempfile.TemporaryDirectory() as tmp:
        names = []
        for i in range(count):
            name = os.path.join(tmp, f"w{i}.wtns")
            os.symlink(os.path.abspath(wtns), name)
            names.append(name)

        def write_list(path, items):
            with open(path, "w") as f:
                f.write("\n".join(items) + "\n")

        write_list(os.path.join(tmp, "all.list"), names)
        for r in range(ranks):
            write_list(os.path.join(tmp, f"part{r}.list"), names[r::ranks])
            os.makedirs(os.path.join(tmp, f"out{r}"))
        os.makedirs(os.path.join(tmp, "out"))
        common = ["--threads", "1", "--devices", "cpu", "--json", "-"]
        for _ in range(pairs):
            procs = [subprocess.Popen([hyprove, "groth16", "prove-batch", zkey, os.path.join(tmp, f"part{r}.list"),
                                       os.path.join(tmp, f"out{r}")] + common, stdout=subprocess.PIPE, text=True)
                     for r in range(ranks)]
            outs = [p.communicate()[0] for p in procs]
            if any(p.returncode != 0 for p in procs):
                sys.exit("cluster_scaling: an independent prove-batch failed")
            recs = [json.loads(o)["records"][0] for o in outs]
            independent = sum(r["proofs"] for r in recs) / max(max(r["seconds"] for r in recs), 1e-9)
            job = run_json(mpirun(ranks) + [hyprove, "groth16", "prove-batch", zkey, os.path.join(tmp, "all.list"),
                                            os.path.join(tmp, "out")] + common)[0]
            ratios.append(job["proofs_per_s"] / independent)
    return statistics.median(ratios), ratios, job


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("hyprove")
    ap.add_argument("--zkey")
    ap.add_argument("--wtns")
    ap.add_argument("--ranks", type=int, default=2)
    ap.add_argument("--pairs", type=int, default=3)
    ap.add_argument("--log-n", type=int, default=20)
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--batch", type=int, default=8)
    ap.add_argument("--json")
    a = ap.parse_args()
    out = {"processor": processor(), "ranks": a.ranks, "threads_per_rank": 1, "pairs": a.pairs}
    msm = [a.hyprove, "bench", "msm", "--curve", "bn254", "--log-n", str(a.log_n), "--threads", "1", "--device",
           "cpu", "--repeat", str(a.repeat), "--json", "-"]
    ratio, ratios, rec = paired(msm, mpirun(a.ranks) + msm, a.pairs, "median_ms")
    out["msm"] = {"log_n": a.log_n, "speedup": ratio, "efficiency": ratio / a.ranks, "pairs": ratios,
                  "job_median_ms": rec["median_ms"], "bytes_sent": rec.get("bytes_sent")}
    out["msm"]["ceiling_speedup"] = ceiling(msm, a.ranks, a.pairs)
    print(f"processor: {out['processor']}; {a.ranks} ranks x 1 thread against 1 process x 1 thread")
    print(f"msm 2^{a.log_n}: speedup {ratio:.2f} (efficiency {ratio / a.ranks:.2f}), pairs "
          f"{', '.join(f'{r:.2f}' for r in ratios)}, bytes sent {rec.get('bytes_sent')}; this machine's ceiling "
          f"({a.ranks} independent processes at once): {out['msm']['ceiling_speedup']:.2f}")
    if a.zkey and a.wtns:
        g16 = [a.hyprove, "bench", "groth16", a.zkey, a.wtns, "--threads", "1", "--devices", "cpu", "--repeat",
               str(a.repeat), "--json", "-"]
        ratio, ratios, rec = paired(g16, mpirun(a.ranks) + g16, a.pairs, "total_median_ms")
        out["groth16"] = {"zkey": a.zkey, "speedup": ratio, "efficiency": ratio / a.ranks, "pairs": ratios,
                          "job_median_ms": rec["total_median_ms"], "bytes_sent_per_proof": rec.get("bytes_sent")}
        print(f"groth16 {a.zkey}: speedup {ratio:.2f} (efficiency {ratio / a.ranks:.2f}), pairs "
              f"{', '.join(f'{r:.2f}' for r in ratios)}, bytes sent per proof {rec.get('bytes_sent')}")
        ratio, ratios, rec = batch_pairs(a.hyprove, a.zkey, a.wtns, a.ranks, a.batch, a.pairs)
        out["batch"] = {"witnesses": a.batch, "ratio": ratio, "pairs": ratios, "job_proofs_per_s": rec["proofs_per_s"],
                        "bytes_sent_per_proof": rec["bytes_sent"] / max(rec["proofs"], 1)}
        print(f"prove-batch of {a.batch}: job / independent processes {ratio:.2f}, pairs "
              f"{', '.join(f'{r:.2f}' for r in ratios)}, {rec['proofs_per_s']:.2f} proofs/s, "
              f"{rec['bytes_sent'] / max(rec['proofs'], 1):.0f} bytes per proof")
    if a.json:
        with open(a.json + ".tmp", "w") as f:
            json.dump(out, f, indent=1)
        os.replace(a.json + ".tmp", a.json)


if __name__ == "__main__":
    main()
