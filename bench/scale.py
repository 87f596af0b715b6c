#!/usr/bin/env python3
"""Groth16 at production scale: hyprove against rapidsnark's prover, whole process, paired.

For each size (a fixture from scripts/scale-fixtures.sh LOG2, or a --fixture folder holding
circuit.zkey, witness.wtns and verification_key.json) and each CPU tier (HPR_CPU=TIER):
one warm-up of each prover, then ROUNDS rounds of paired runs, the order alternated from one
round to the next (hyprove then rapidsnark, rapidsnark then hyprove, ...). Every run is a fresh
process, `hyprove groth16 prove ZKEY WTNS PROOF PUBLIC --devices cpu --report` against
`rapidsnark ZKEY WTNS PROOF PUBLIC` (key read, witness read, proof, both JSON files written),
timed by the wall clock around it (fork to reap), its peak RSS the child's own ru_maxrss
(os.wait4). The time ratio hyprove / rapidsnark is taken in each round and its median is quoted
(a paired ratio: the shared machine's drifts cancel within a round); the RSS ratio likewise.
--report's table gives each run's phases (witness, h, the five MSMs, assemble) and its
in-process total; wall minus that total is the process's cost outside the proof (start, key
mapping, output). The warm-up writes the --json record instead, which says the tier that ran
(checked against HPR_CPU), the threads and the size; the timed runs read --report's table
(--phases json takes every run's phases from the record instead; before December 2026 the
record's header loaded the OpenCL runtime even under --devices cpu: some 58 MiB and 50 ms). The last proof of each tool for each (size, tier) is checked with `hyprove groth16
verify` (and `snarkjs groth16 verify` with --snarkjs); a proof that does not verify is reported
and the script exits 1 once the table is printed.

Output: a Markdown table on stdout (the processor, from lscpu, and the command line on top;
progress goes to stderr), and in --out (default: a new folder bench/results/scale-DATE/)
scale.md (the same table), scale.json (every run's raw numbers, the processor, date, command,
tiers) and scale.png: time ratio against log2 n per tier with the targets (avx512 0.30, adx
0.55), and RSS ratio against log2 n with a line at 1. The picture needs matplotlib; when the
running python lacks it, /usr/bin/python3 (or /usr/local/bin/python3) draws it if that one has
it (`scale.py --plot scale.json`, which also redraws a picture from a saved file), otherwise a
note says so and the picture is skipped.

usage: scale.py --rapidsnark PATH [--hyprove build/release/hyprove] [--log-n 16,18,20,22]
                [--tiers avx512,adx] [--rounds 5] [--devices cpu] [--phases report|json]
                [--fixtures-script scripts/scale-fixtures.sh] [--circuit C] [--curve K]
                [--fixture DIR ...] [--out DIR]
                [--snarkjs PATH]
       scale.py --plot DIR/scale.json [--out FILE.png]

--log-n defaults to 16,18,20,22 when no --fixture is given; with --fixture only the folders
given are measured, plus the sizes of --log-n when it is given too. The fixtures script is
given the same hyprove (its key is cached per hyprove build, so a rebuild remakes the zkey).
Tiers that `hyprove devices` does not list as available here are skipped with a note. Exit
status 0 when every proof verifies, 1 when a run fails or a proof does not verify (what was
measured before a failure is still written), 2 on a bad argument or a missing input.
"""
import argparse
import datetime
import hashlib
import importlib.util
import json
import os
import re
import shlex
import statistics
import subprocess
import sys
import tempfile
import time

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SCHEMA, SCHEMA_VERSION = "hyprove-scale", 1
PHASES = ("witness", "h", "msm_a", "msm_b1", "msm_b2", "msm_c", "msm_h", "assemble")
TIERS = ("portable", "adx", "avx2", "avx512")
TARGETS = {"avx512": 0.30, "adx": 0.55}   # time ratio hyprove / rapidsnark, at most (the issue's)
COLORS = {"portable": "tab:gray", "adx": "tab:blue", "avx2": "tab:green", "avx512": "tab:red"}
OTHER_PYTHONS = ("/usr/bin/python3", "/usr/local/bin/python3")   # as bench/plot.py


class Failure(Exception):
    """A run that failed: printed, what was measured is written, exit status 1."""


def die(msg, status=2):
    print(f"scale.py: {msg}", file=sys.stderr)
    sys.exit(status)


# ---- the machine and the tools ----

def processor():
    """lscpu's "Model name" (the first one), else /proc/cpuinfo's, else "unknown"."""
    try:
        out = subprocess.run(["lscpu"], capture_output=True, text=True, env=dict(os.environ, LC_ALL="C")).stdout
        for line in out.splitlines():
            if line.startswith("Model name:"):
                return line.split(":", 1)[1].strip()
    except OSError:
        pass
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return "unknown"


def available_tiers(hyprove):
    """The CPU tiers `hyprove devices` lists as available on this processor."""
    out = subprocess.run([hyprove, "devices"], capture_output=True, text=True).stdout
    return {m.group(1) for m in re.finditer(r"^\s+(\w+)\s+available\s*$", out, re.M)}


def first_line(cmd):
    try:
        r = subprocess.run(cmd, capture_output=True, text=True)
        return (r.stdout.strip().splitlines() or [""])[0]
    except OSError:
        return ""


def sha256_of(path):
    h = hashlib.sha256()
    with open(path, "rb") as f:
        for block in iter(lambda: f.read(1 << 20), b""):
            h.update(block)
    return h.hexdigest()


# ---- fixtures ----

def fixture_from_script(script, hyprove, log_n, circuit=None, curve=None):
    """The folder scale-fixtures.sh prints last (its progress passes through to stderr)."""
    extra = (["--circuit", circuit] if circuit else []) + (["--curve", curve] if curve else [])
    args = [script, "--hyprove", hyprove] + extra + [str(log_n)]
    print(f"scale.py: fixture 2^{log_n}: {' '.join(args)}", file=sys.stderr)
    r = subprocess.run(args, stdout=subprocess.PIPE, text=True)
    lines = [x for x in r.stdout.splitlines() if x.strip()]
    if r.returncode != 0 or not lines:
        raise Failure(f"{script} {log_n} failed (exit status {r.returncode})")
    return lines[-1].strip()


def fixture_info(folder):
    """info.txt's key=value lines (scale-fixtures.sh writes it; {} when absent)."""
    info = {}
    try:
        with open(os.path.join(folder, "info.txt"), encoding="utf-8") as f:
            for line in f:
                if "=" in line:
                    k, v = line.rstrip("\n").split("=", 1)
                    info[k.strip()] = v.strip()
    except OSError:
        pass
    return info


def check_fixture(folder):
    for name in ("circuit.zkey", "witness.wtns", "verification_key.json"):
        if not os.path.isfile(os.path.join(folder, name)):
            die(f"{folder}: no {name} (a fixture folder holds circuit.zkey, witness.wtns and "
                "verification_key.json)")


# ---- one run ----

def run_child(cmd, env):
    """Runs cmd as a fresh process: (wall ms, peak RSS KiB, exit status, stdout, stderr)."""
    with tempfile.TemporaryFile() as out, tempfile.TemporaryFile() as err:
        t0 = time.perf_counter()
        p = subprocess.Popen(cmd, stdin=subprocess.DEVNULL, stdout=out, stderr=err, env=env)
        _, status, usage = os.wait4(p.pid, 0)
        wall_ms = (time.perf_counter() - t0) * 1e3
        p.returncode = os.waitstatus_to_exitcode(status)   # reaped here, not by Popen
        out.seek(0)
        err.seek(0)
        stdout, stderr = (f.read().decode(errors="replace") for f in (out, err))
    return wall_ms, usage.ru_maxrss, p.returncode, stdout, stderr.strip()   # ru_maxrss: KiB on Linux


REPORT_NAMES = {"witness": "witness", "h (NTTs)": "h", "msm A": "msm_a", "msm B1": "msm_b1",
                "msm B2 (G2)": "msm_b2", "msm C": "msm_c", "msm H": "msm_h", "assemble": "assemble"}


def parse_report(text):
    """(phases {key: ms}, total ms) of `groth16 prove --report`'s table ("phase time_ms devices"
    then one line a phase, then "total"), phase keys as in the --json record."""
    phases, total, seen = {}, None, False
    for line in text.splitlines():
        m = re.match(r"^(\S.*?)\s+(\d+\.\d+)(?:\s.*)?$", line)
        if line.startswith("phase ") and "time_ms" in line:
            seen = True
        elif seen and m and m.group(1) == "total":
            total, seen = float(m.group(2)), False  # the table ends (the memory line follows)
        elif seen and m:
            phases[REPORT_NAMES.get(m.group(1), re.sub(r"\W+", "_", m.group(1)).lower())] = float(m.group(2))
    if total is None or not phases:
        raise Failure("no phase table in hyprove's --report output:\n" + text)
    return phases, total


class Bench:
    """The provers' command lines for one fixture, and one timed run of either."""

    def __init__(self, a, folder, tmp):
        self.a, self.folder, self.tmp = a, folder, tmp
        self.zkey, self.wtns = os.path.join(folder, "circuit.zkey"), os.path.join(folder, "witness.wtns")
        self.vk = os.path.join(folder, "verification_key.json")
        self.files = {t: (os.path.join(tmp, f"{t}-proof.json"), os.path.join(tmp, f"{t}-public.json"))
                      for t in ("hyprove", "rapidsnark")}

    def run(self, tool, tier, record=False):
        """One timed run. hyprove's phases come from --report (or with record=True, or
        --phases json, from its --json record, which also says the tier, threads and size)."""
        proof, public = self.files[tool]
        for f in (proof, public):   # so that the proof verified later is this run's
            if os.path.exists(f):
                os.unlink(f)
        env = {k: v for k, v in os.environ.items() if k != "HPR_CPU"}
        record = record or self.a.phases == "json"
        rec_path = os.path.join(self.tmp, "record.json")
        if tool == "hyprove":
            env["HPR_CPU"] = tier
            cmd = [self.a.hyprove, "groth16", "prove", self.zkey, self.wtns, proof, public,
                   "--devices", self.a.devices] + (["--json", rec_path] if record else ["--report"])
        else:
            cmd = [self.a.rapidsnark, self.zkey, self.wtns, proof, public]
        wall_ms, rss_kib, status, stdout, err = run_child(cmd, env)
        if status != 0 or not os.path.exists(proof):
            raise Failure(f"{tool} failed on {self.folder} (tier {tier}, exit status {status}): "
                          f"{err or 'no proof written'}\n  command: {shlex.join(cmd)}")
        run = {"tool": tool, "wall_ms": round(wall_ms, 3), "maxrss_kib": rss_kib}
        if tool == "hyprove" and record:
            with open(rec_path, encoding="utf-8") as f:
                rec = json.load(f)["records"][0]
            if rec.get("cpu_tier") != tier:
                raise Failure(f"HPR_CPU={tier} was not honoured: the record says cpu_tier "
                              f"{rec.get('cpu_tier')!r}")
            run.update(source="json", total_ms=rec["total_median_ms"], log_n=rec.get("constraints_log_n"),
                       threads=rec.get("threads"), device=rec.get("device"),
                       phases={p["phase"]: p["median_ms"] for p in rec["phases"]})
        elif tool == "hyprove":
            phases, total = parse_report(stdout)
            run.update(source="report", total_ms=total, phases=phases)
        return run

    def verify(self, tool):
        """{verifier: "OK" | "FAILED"} for the last proof tool wrote."""
        proof, public = self.files[tool]
        verifiers = [("hyprove", [self.a.hyprove, "groth16", "verify"])]
        if self.a.snarkjs:
            snarkjs = ["node", self.a.snarkjs] if self.a.snarkjs.endswith(".js") else [self.a.snarkjs]
            verifiers.append(("snarkjs", snarkjs + ["groth16", "verify"]))
        out = {}
        for name, cmd in verifiers:
            r = subprocess.run(cmd + [self.vk, public, proof], capture_output=True, text=True)
            ok = r.returncode == 0 and "OK" in r.stdout
            out[name] = "OK" if ok else "FAILED"
            if not ok:
                print(f"scale.py: {tool}'s proof for {self.folder} does not verify with {name}: "
                      f"{(r.stdout + r.stderr).strip()}", file=sys.stderr)
        return out


def mib(kib):
    return kib / 1024.0


def summarize(entry):
    """Medians of one (fixture, tier) entry's rounds."""
    h = [r for r in entry["runs"] if r["tool"] == "hyprove"]
    s = [r for r in entry["runs"] if r["tool"] == "rapidsnark"]
    by_round = {}
    for r in entry["runs"]:
        by_round.setdefault(r["round"], {})[r["tool"]] = r
    pairs = [v for _, v in sorted(by_round.items()) if len(v) == 2]
    time_ratios = [p["hyprove"]["wall_ms"] / p["rapidsnark"]["wall_ms"] for p in pairs]
    rss_ratios = [p["hyprove"]["maxrss_kib"] / p["rapidsnark"]["maxrss_kib"] for p in pairs]
    names = [p for p in PHASES if any(p in r["phases"] for r in h)]
    names += sorted({p for r in h for p in r["phases"]} - set(names))
    def med(xs):
        return round(statistics.median(xs), 4)
    return {
        "hyprove_ms": med(r["wall_ms"] for r in h),
        "rapidsnark_ms": med(r["wall_ms"] for r in s),
        "time_ratio": med(time_ratios), "time_ratio_min": round(min(time_ratios), 4),
        "time_ratio_max": round(max(time_ratios), 4),
        "hyprove_rss_mib": med(mib(r["maxrss_kib"]) for r in h),
        "rapidsnark_rss_mib": med(mib(r["maxrss_kib"]) for r in s),
        "rss_ratio": med(rss_ratios),
        "hyprove_in_process_ms": med(r["total_ms"] for r in h),
        "hyprove_outside_ms": med(r["wall_ms"] - r["total_ms"] for r in h),
        "phases_ms": {p: med(r["phases"].get(p, 0.0) for r in h) for p in names},
        "target": TARGETS.get(entry["tier"]),
    }


# ---- the report ----

def verdict(tool, results):
    """"hyprove OK", or "rapidsnark FAILED (snarkjs)" naming the verifiers that refused it."""
    bad = [name for name, v in results.items() if v != "OK"]
    return f"{tool} " + (f"FAILED ({', '.join(bad)})" if bad else "OK")


def table(doc):
    """The Markdown report: header lines, the comparison, the phases."""
    when = doc["date"].replace("T", " ").replace("Z", " UTC")
    lines = [
        "# Groth16 at scale: hyprove against rapidsnark (whole process, paired)", "",
        f"Processor: {doc['processor']} ({doc['cpus']} online CPUs)  ",
        f"Command: `{doc['command']}`  ",
        f"Date: {when}; {doc['hyprove_version'] or 'hyprove'} ({doc['hyprove']}), devices {doc['devices']}; "
        f"rapidsnark {doc['rapidsnark']}  ",
        f"Method: one warm-up of each, then {doc['rounds']} round{'s' if doc['rounds'] != 1 else ''} of paired runs, the order alternated; "
        "medians; ratio = hyprove / rapidsnark, the median of the per-round ratios (min-max in brackets); "
        "peak RSS = each process's ru_maxrss (MiB).", "",
        "| log2 n | fixture | tier | hyprove ms | rapidsnark ms | time ratio | target | "
        "hyprove RSS MiB | rapidsnark RSS MiB | RSS ratio | verified |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    for e in doc["results"]:
        m = e["summary"]
        target = f"{m['target']:.2f}" if m["target"] is not None else "-"
        verified = ", ".join(verdict(tool, res) for tool, res in e["verified"].items())
        lines.append(f"| {e['log_n']} | {e['fixture']} | {e['tier']} | {m['hyprove_ms']:.1f} | "
                     f"{m['rapidsnark_ms']:.1f} | {m['time_ratio']:.3f} ({m['time_ratio_min']:.3f}-"
                     f"{m['time_ratio_max']:.3f}) | {target} | {m['hyprove_rss_mib']:.1f} | "
                     f"{m['rapidsnark_rss_mib']:.1f} | {m['rss_ratio']:.2f} | {verified} |")
    if doc["results"]:
        names = list(doc["results"][0]["summary"]["phases_ms"])
        threads = sorted({str(e.get("threads")) for e in doc["results"]})
        lines += ["", f"hyprove's phases (median ms of the timed runs, from --{doc.get('phases_from', 'json')}; "
                  f"{'/'.join(threads)} threads; in-process = its total, outside = wall - in-process):", "",
                  "| log2 n | tier | " + " | ".join(names) + " | in-process | outside | wall |",
                  "|---|---|" + "---|" * (len(names) + 3)]
        for e in doc["results"]:
            m = e["summary"]
            lines.append(f"| {e['log_n']} | {e['tier']} | "
                         + " | ".join(f"{m['phases_ms'].get(p, 0.0):.1f}" for p in names)
                         + f" | {m['hyprove_in_process_ms']:.1f} | {m['hyprove_outside_ms']:.1f} | "
                           f"{m['hyprove_ms']:.1f} |")
    if doc.get("skipped_tiers"):
        lines += ["", "Skipped (not available on this processor): " + ", ".join(doc["skipped_tiers"]) + "."]
    if doc.get("error"):
        lines += ["", "Stopped early: " + doc["error"].splitlines()[0]]
    return "\n".join(lines) + "\n"


# ---- the picture ----

def python_with_matplotlib():
    """Another python3 that has matplotlib (the one first on PATH may be a pyenv or venv
    interpreter without it while Debian's has python3-matplotlib), or None."""
    for other in OTHER_PYTHONS:
        if os.path.realpath(other) != os.path.realpath(sys.executable) and os.access(other, os.X_OK):
            if subprocess.run([other, "-c", "import matplotlib"], capture_output=True).returncode == 0:
                return other
    return None


def draw(json_path, png_path):
    """Draws scale.png from scale.json here if matplotlib imports, else under another python3.
    Returns True when the picture was written."""
    if importlib.util.find_spec("matplotlib") is None:
        other = None if os.environ.get("HPR_PLOT_REEXEC") else python_with_matplotlib()
        if other is None:
            print(f"scale.py: note: no matplotlib for {sys.executable} (nor {', '.join(OTHER_PYTHONS)}): "
                  "no picture (Debian: apt-get install python3-matplotlib)", file=sys.stderr)
            return False
        r = subprocess.run([other, os.path.abspath(__file__), "--plot", json_path, "--out", png_path],
                           env=dict(os.environ, HPR_PLOT_REEXEC="1"))
        return r.returncode == 0
    with open(json_path, encoding="utf-8") as f:
        doc = json.load(f)
    figure(doc).savefig(png_path, dpi=110)
    return True


def figure(doc):
    import matplotlib
    matplotlib.use("Agg")
    from matplotlib.figure import Figure

    fig = Figure(figsize=(12, 5), layout="constrained")
    ax_t, ax_m = fig.subplots(1, 2)
    series = {}
    for e in doc["results"]:
        key = (e["tier"], e.get("circuit") or "")
        series.setdefault(key, []).append(e)
    circuits = {k[1] for k in series}
    sizes = sorted({e["log_n"] for e in doc["results"]})
    for (tier, circuit), es in sorted(series.items(), key=lambda kv: (TIERS.index(kv[0][0])
                                                                     if kv[0][0] in TIERS else 9, kv[0][1])):
        es.sort(key=lambda e: e["log_n"])
        x = [e["log_n"] for e in es]
        label = tier + (f" {circuit}" if len(circuits) > 1 else "")
        color = COLORS.get(tier)
        t = [e["summary"]["time_ratio"] for e in es]
        err = [[v - e["summary"]["time_ratio_min"] for v, e in zip(t, es)],
               [e["summary"]["time_ratio_max"] - v for v, e in zip(t, es)]]
        ax_t.errorbar(x, t, yerr=err, color=color, marker="o", capsize=4, label=label)
        m = [e["summary"]["rss_ratio"] for e in es]
        ax_m.plot(x, m, color=color, marker="o", label=label)
        for xi, ti, mi in zip(x, t, m):
            ax_t.annotate(f"{ti:.2f}", (xi, ti), textcoords="offset points", xytext=(6, 4), fontsize=8, color=color)
            ax_m.annotate(f"{mi:.2f}", (xi, mi), textcoords="offset points", xytext=(6, 4), fontsize=8, color=color)
    for tier in sorted({e["tier"] for e in doc["results"]}):
        if tier in TARGETS:
            ax_t.axhline(TARGETS[tier], color=COLORS.get(tier), linestyle="--", linewidth=1,
                         label=f"{tier} target {TARGETS[tier]:.2f}")
    ax_m.axhline(1.0, color="black", linestyle="--", linewidth=1, label="equal")
    for ax, what in ((ax_t, "time"), (ax_m, "peak RSS")):
        ax.set_xticks(sizes, [f"$2^{{{n}}}$" for n in sizes])
        if sizes:
            ax.set_xlim(sizes[0] - 1, sizes[-1] + 1)
        ax.set_ylim(bottom=0)
        ax.set_xlabel("circuit domain (constraints, log$_2$)")
        ax.set_ylabel(f"{what}: hyprove / rapidsnark")
        ax.set_title(f"{what} ratio (median of {doc['rounds']} paired rounds"
                     + (", min-max bars)" if what == "time" else ")"))
        ax.grid(True, alpha=0.3)
        ax.legend(fontsize=8)
    fig.suptitle(f"Groth16 whole process, hyprove / rapidsnark: {doc['processor']}, {doc['cpus']} CPUs, "
                 f"devices {doc['devices']}, {doc['date'][:10]}", fontsize=10)
    return fig


# ---- main ----

def int_list(text):
    try:
        return [int(x) for x in text.split(",") if x.strip()]
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a comma-separated list of integers: {text!r}") from None


def default_out():
    base = os.path.join(ROOT, "bench", "results", "scale-" + datetime.date.today().isoformat())
    out, k = base, 2
    while os.path.exists(out):
        out, k = f"{base}-{k}", k + 1
    return out


def write_outputs(doc, out):
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "scale.json"), "w", encoding="utf-8") as f:
        json.dump(doc, f, indent=1)
        f.write("\n")
    with open(os.path.join(out, "scale.md"), "w", encoding="utf-8") as f:
        f.write(table(doc))


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                 formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--rapidsnark", help="rapidsnark's prover binary (the yardstick)")
    ap.add_argument("--hyprove", default=os.path.join(ROOT, "build", "release", "hyprove"))
    ap.add_argument("--log-n", type=int_list, help="sizes for the fixtures script (default 16,18,20,22)")
    ap.add_argument("--tiers", default="avx512,adx")
    ap.add_argument("--rounds", type=int, default=5)
    ap.add_argument("--devices", default="cpu", help="hyprove's --devices (default cpu)")
    ap.add_argument("--phases", choices=("report", "json"), default="report",
                    help="where the timed runs' phases come from (default report; see the docstring)")
    ap.add_argument("--fixtures-script", default=os.path.join(ROOT, "scripts", "scale-fixtures.sh"))
    ap.add_argument("--fixture", action="extend", nargs="+", default=[], metavar="DIR")
    ap.add_argument("--circuit", help="scale-fixtures.sh's --circuit (hashchain, sha256, synth)")
    ap.add_argument("--curve", help="scale-fixtures.sh's --curve (bn128, bls12381)")
    ap.add_argument("--out", help="output folder (with --plot: the picture)")
    ap.add_argument("--snarkjs", help="also verify with `snarkjs groth16 verify` (a cli.js runs under node)")
    ap.add_argument("--plot", metavar="SCALE_JSON", help="only draw the picture of a scale.json")
    a = ap.parse_args()

    if a.plot:
        png = a.out or os.path.join(os.path.dirname(os.path.abspath(a.plot)), "scale.png")
        return 0 if draw(a.plot, png) else 2
    if not a.rapidsnark:
        ap.error("--rapidsnark PATH is required")
    for name in ("rapidsnark", "hyprove"):
        path = getattr(a, name)
        if not (os.path.isfile(path) and os.access(path, os.X_OK)):
            die(f"--{name}: {path} is not an executable file")
        setattr(a, name, os.path.abspath(path))
    if a.rounds < 1:
        ap.error("--rounds must be at least 1")
    tiers = [t for t in a.tiers.split(",") if t]
    for t in tiers:
        if t not in TIERS:
            ap.error(f"unknown tier {t!r} (one of {', '.join(TIERS)})")
    here = available_tiers(a.hyprove)
    skipped = [t for t in tiers if t not in here]
    for t in skipped:
        print(f"scale.py: note: tier {t} is not available on this processor (hyprove devices): skipped",
              file=sys.stderr)
    tiers = [t for t in tiers if t in here]
    if not tiers:
        die("none of the tiers asked for runs here")
    sizes = a.log_n if a.log_n is not None else ([] if a.fixture else [16, 18, 20, 22])
    for folder in a.fixture:
        check_fixture(folder)

    doc = {
        "schema": SCHEMA, "schema_version": SCHEMA_VERSION,
        "date": datetime.datetime.now(datetime.timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ"),
        "command": shlex.join(sys.argv), "argv": sys.argv,
        "processor": processor(), "cpus": os.cpu_count(),
        "hyprove": a.hyprove, "hyprove_version": first_line([a.hyprove, "--version"]),
        "hyprove_sha256": sha256_of(a.hyprove),
        "rapidsnark": a.rapidsnark, "rapidsnark_sha256": sha256_of(a.rapidsnark),
        "devices": a.devices, "phases_from": a.phases, "rounds": a.rounds, "tiers": tiers, "skipped_tiers": skipped,
        "targets": TARGETS, "results": [],
    }
    out = os.path.abspath(a.out or default_out())
    failed_verify = False
    try:
        folders = [fixture_from_script(a.fixtures_script, a.hyprove, n, a.circuit, a.curve) for n in sizes] + \
            list(a.fixture)
        for folder in folders:
            check_fixture(folder)
            info = fixture_info(folder)
            with tempfile.TemporaryDirectory(prefix="scale-") as tmp:
                bench = Bench(a, folder, tmp)
                for tier in tiers:
                    entry = {"fixture": os.path.basename(os.path.normpath(folder)), "folder": folder,
                             "circuit": info.get("circuit", "").split(" ")[0], "info": info, "tier": tier}
                    warm = [bench.run("hyprove", tier, record=True), bench.run("rapidsnark", tier)]
                    entry["log_n"], entry["threads"] = warm[0]["log_n"], warm[0]["threads"]
                    entry["warmup"] = warm
                    entry["runs"] = []
                    for k in range(a.rounds):
                        order = ("hyprove", "rapidsnark") if k % 2 == 0 else ("rapidsnark", "hyprove")
                        pair = {}
                        for pos, tool in enumerate(order):
                            r = bench.run(tool, tier)
                            r.update(round=k, position=pos)
                            entry["runs"].append(r)
                            pair[tool] = r
                        h, s = pair["hyprove"], pair["rapidsnark"]
                        print(f"scale.py: 2^{entry['log_n']} {tier} round {k + 1}/{a.rounds}: hyprove "
                              f"{h['wall_ms']:.1f} ms {mib(h['maxrss_kib']):.0f} MiB, rapidsnark "
                              f"{s['wall_ms']:.1f} ms {mib(s['maxrss_kib']):.0f} MiB, ratio "
                              f"{h['wall_ms'] / s['wall_ms']:.3f}", file=sys.stderr)
                    entry["verified"] = {tool: bench.verify(tool) for tool in ("hyprove", "rapidsnark")}
                    failed_verify |= any(v != "OK" for res in entry["verified"].values() for v in res.values())
                    entry["summary"] = summarize(entry)
                    doc["results"].append(entry)
    except Failure as e:
        doc["error"] = str(e)
        print(f"scale.py: {e}", file=sys.stderr)

    write_outputs(doc, out)
    print(table(doc), end="")
    if doc["results"]:
        png = os.path.join(out, "scale.png")
        if draw(os.path.join(out, "scale.json"), png):
            print(f"scale.py: wrote {png}", file=sys.stderr)
    print(f"scale.py: wrote {os.path.join(out, 'scale.json')} and scale.md", file=sys.stderr)
    if failed_verify:
        print("scale.py: a proof did not verify (see above)", file=sys.stderr)
    return 1 if failed_verify or doc.get("error") else 0


if __name__ == "__main__":
    sys.exit(main())
