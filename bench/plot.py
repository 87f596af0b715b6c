#!/usr/bin/env python3
"""Pictures of hyprove's benchmark JSON (schema "hyprove-bench", schema_version 1), the files
written by `hyprove bench msm|ntt|groth16 --json F`, `hyprove calibrate --json F` and
`hyprove groth16 prove ... --json F`.

Each kind of picture answers one question, and its title says where the numbers were measured
(CPU model, default CPU tier, threads, hyprove version, date, host), so a picture that travels
without its JSON still says what it shows.

throughput  How does the rate scale with the problem size? Throughput (MSM: points/s, NTT:
            elements/s) against log2 n, one line per device series (device, CPU tier, threads)
            and workload (curve and group; field and LDE rate), log y axis so that series an
            order of magnitude apart stay readable; one panel per operation. A bend shows
            where a cache, the bucket count or a device's launch cost takes over.
devices     Is the hybrid split worth it at one size? One bar per single device (the CPU at
            each tier and thread count, each OpenCL device cl:P.D) at one log_n (--log-n,
            default the largest one measured), a solid line for the hybrid `all` run
            (labelled with its hybrid_efficiency when the file has it) and a dashed line for
            the sum of the devices that run combined: the ideal a perfect split would reach.
            The sum counts only as many devices as the record's devices_ran says computed
            points, and is left out when that is one (the hybrid run was one device alone)
            and when no `all` run was measured (the main job's file).
            The legend names only the kinds of bar drawn (CPU, OpenCL device).
groth16     Where does a proof's time go? One stacked horizontal bar per prover run (device,
            tier, threads), one segment per phase (witness, h, the five MSMs, assemble), the
            segments of phases that ran on an OpenCL device hatched, and a black tick with the
            measured total: under `all` phases overlap, so the total can be below the sum.
compare     Did a change, or another machine, make it faster? The same series from two or
            more files side by side (grouped bars from zero on a linear axis: throughput at
            one log_n for MSM and NTT, total proof time for Groth16), each run labelled
            (--label, default the file's host, CPU model and date), with the ratio of each
            later run to the first written beside the bars.
            Rows match by workload, device, CPU tier and threads; where the files' default
            tiers differ (Zen 3 avx2, Zen 4 avx512), each file's default also meets the other's
            in a "default tier" row, and the OpenCL devices and `all` meet there too.

--kind auto picks groth16 when every record is a Groth16 proof, compare when more than one
file is given, throughput otherwise. Unknown keys are ignored; a file that is not version 1
of the schema is refused.

usage: plot.py [--kind auto|throughput|devices|groth16|compare] [--out FILE.png|FILE.svg]
               [--log-n N] [--title T] [--label L ...] FILE.json [FILE.json ...]

--log-n N sets the size of the devices and compare charts (default: the largest measured, for
compare the largest every file measured); for groth16 it keeps the proofs of constraints_log_n
N; throughput shows every size. --label is given once per file, in the order of the files.
With several files, throughput and devices merge files that measured different things (an MSM
file and an NTT file) and keep apart, labelled, files that measured the same series. The
picture is written next to the first file (its name with .png) unless --out names it (through
a temporary file in the same folder, renamed into place); its path is printed. Exit status 0
on success, 2 on a bad argument or input (one line on stderr, no file written).
"""
import argparse
import json
import math
import os
import sys
import tempfile
import textwrap
from dataclasses import dataclass, replace
from typing import Optional


def _matplotlib_or_another_python():
    """matplotlib, or this script run again by a python3 that has it: the python3 first on
    PATH may lack it (a pyenv or venv interpreter) while Debian's /usr/bin/python3 has
    python3-matplotlib. Without one, a line that says what to install, exit status 2."""
    try:
        import matplotlib as mpl
        return mpl
    except ImportError:
        pass
    if not os.environ.get("HPR_PLOT_REEXEC"):
        for other in ("/usr/bin/python3", "/usr/local/bin/python3"):
            if os.path.realpath(other) != os.path.realpath(sys.executable) and os.access(other, os.X_OK):
                probe = os.spawnv(os.P_WAIT, other, [other, "-c", "import matplotlib"])
                if probe == 0:
                    os.environ["HPR_PLOT_REEXEC"] = "1"
                    os.execv(other, [other, os.path.abspath(__file__)] + sys.argv[1:])
    sys.stderr.write(f"plot.py: matplotlib is missing for {sys.executable} (Debian: apt-get install "
                     "python3-matplotlib; elsewhere: pip install matplotlib)\n")
    sys.exit(2)


matplotlib = _matplotlib_or_another_python()

matplotlib.use("Agg")
from matplotlib import colormaps  # noqa: E402  (after the backend is chosen)
from matplotlib.figure import Figure  # noqa: E402
from matplotlib.lines import Line2D  # noqa: E402
from matplotlib.patches import Patch  # noqa: E402
from matplotlib.ticker import FuncFormatter, LogLocator, MaxNLocator, NullFormatter  # noqa: E402

SCHEMA = "hyprove-bench"
SCHEMA_VERSION = 1
KINDS = ("auto", "throughput", "devices", "groth16", "compare")
FORMATS = ("png", "svg")
RATE_OPS = ("msm", "ntt", "commit")
PHASES = ("witness", "h", "msm_a", "msm_b1", "msm_b2", "msm_c", "msm_h", "assemble")
TIERS = ("portable", "adx", "avx2", "avx512")
DEFAULT_TIER, DEFAULT_THREADS = "default tier", "default threads"
UNITS = {"msm": "points/s", "ntt": "elements/s", "commit": "rows/s"}
SIZE_LABELS = {"msm": "log$_2$ n  (n points)", "ntt": "log$_2$ n  (transform length)",
               "commit": "log$_2$ n  (rows per input column)"}
OP_NAMES = {"msm": "MSM", "ntt": "NTT", "groth16": "Groth16", "commit": "Merkle commit"}
STYLES = [("-", "o"), ("--", "s"), (":", "^"), ("-.", "D"), ((0, (5, 1, 1, 1)), "v"), ((0, (1, 3)), "P")]
WIDTH = 12.0


class PlotError(Exception):
    """A bad argument or input: one line on stderr, exit status 2."""


# ---- reading the files ----

@dataclass
class Run:
    """One benchmark file: its path, command, meta object and records, as read."""
    path: str
    command: str
    meta: dict
    records: list


def load_run(path):
    """Reads and checks one benchmark file; raises PlotError naming the file and the fault."""
    try:
        with open(path, encoding="utf-8") as f:
            text = f.read()
    except OSError as e:
        raise PlotError(f"{path}: cannot read: {e.strerror or e}") from None
    except UnicodeDecodeError:
        raise PlotError(f"{path}: not JSON (not UTF-8 text)") from None
    try:
        doc = json.loads(text)
    except json.JSONDecodeError as e:
        raise PlotError(f"{path}: not JSON ({e.msg} at line {e.lineno} column {e.colno})") from None
    if not isinstance(doc, dict):
        raise PlotError(f"{path}: not a hyprove bench file (the top level is not a JSON object)")
    check_schema(path, doc)
    records, meta = doc.get("records"), doc.get("meta", {})
    if not isinstance(records, list) or not all(isinstance(r, dict) for r in records):
        raise PlotError(f"{path}: \"records\" is not a list of objects")
    if not isinstance(meta, dict):
        raise PlotError(f"{path}: \"meta\" is not an object")
    command = doc.get("command")
    return Run(path, command if isinstance(command, str) else "", meta, records)


def check_schema(path, doc):
    if "schema" not in doc:
        raise PlotError(f"{path}: not a hyprove bench file (no \"schema\"; expected \"{SCHEMA}\")")
    if doc["schema"] != SCHEMA:
        raise PlotError(f"{path}: not a hyprove bench file (schema {json.dumps(doc['schema'])}, "
                        f"expected \"{SCHEMA}\")")
    version = doc.get("schema_version")
    if "schema_version" not in doc:
        raise PlotError(f"{path}: no \"schema_version\" (plot.py reads version {SCHEMA_VERSION})")
    if type(version) is not int or version != SCHEMA_VERSION:
        raise PlotError(f"{path}: schema_version {json.dumps(version)} is not supported "
                        f"(plot.py reads version {SCHEMA_VERSION})")


_REQUIRED = object()


def get(run, index, rec, key, kind, default=_REQUIRED):
    """rec[key] checked against kind ("str", "int" or "num"), or default when it is absent."""
    if key not in rec:
        if default is _REQUIRED:
            raise PlotError(f"{run.path}: record {index} ({rec.get('op')}) has no \"{key}\"")
        return default
    v = rec[key]
    ok = {"str": isinstance(v, str),
          "int": type(v) is int,
          "num": type(v) in (int, float) and math.isfinite(v)}[kind]
    if not ok:
        want = {"str": "a string", "int": "an integer", "num": "a number"}[kind]
        raise PlotError(f"{run.path}: record {index} ({rec.get('op')}): \"{key}\" is not {want}")
    return v


# ---- records as measurements ----

@dataclass(frozen=True)
class Point:
    """One rate measurement (an msm, ntt, commit or calibrate record) of run number `run`."""
    run: int
    op: str          # "msm" or "ntt"
    workload: str    # "bn254 g1", "goldilocks lde 4x"
    device: str      # "cpu", "all", "cl:P.D"
    tier: str
    threads: int
    log_n: int
    value: float     # points/s or elements/s
    efficiency: Optional[float]
    ran: Optional[int] = None  # devices_ran: the devices that computed points ("all" records)
    used: Optional[tuple] = None  # devices_used: which devices those were (newer "all" records)

    @property
    def device_key(self):
        return (self.run, self.device, self.tier, self.threads)

    @property
    def series_key(self):
        return (self.run, self.op, self.workload, self.device, self.tier, self.threads)


@dataclass(frozen=True)
class Proof:
    """One Groth16 record of run number `run`."""
    run: int
    curve: str
    log_n: int
    device: str
    tier: str
    threads: int
    total_ms: float
    phases: tuple    # ((phase, median_ms, devices), ...)


def msm_workload(run, i, rec):
    return f"{get(run, i, rec, 'curve', 'str')} {get(run, i, rec, 'group', 'str', 'g1')}"


def ntt_workload(run, i, rec):
    name = get(run, i, rec, "field", "str")
    batch, lde = get(run, i, rec, "batch", "int", 1), get(run, i, rec, "lde", "int", 0)
    return name + (f" lde {lde}x" if lde > 1 else "") + (f" batch {batch}" if batch != 1 else "")


def commit_workload(run, i, rec):
    rate = get(run, i, rec, "rate", "int")
    return (f"{get(run, i, rec, 'field', 'str')} {get(run, i, rec, 'columns', 'int')} cols"
            + (f" rate {rate}" if rate > 1 else " no lde"))


def calibrate_workload(run, i, rec):
    if get(run, i, rec, "kind", "str") == "msm":
        return msm_workload(run, i, rec)
    return ntt_workload(run, i, rec)


RATE_FIELDS = {"msm": (msm_workload, "points_per_s"),
               "ntt": (ntt_workload, "elements_per_s"),
               "calibrate": (calibrate_workload, "items_per_s"),
               "commit": (commit_workload, "rows_per_s")}


def rate_point(run, index, i, rec):
    """The Point of a rate record (msm, ntt, commit, calibrate), None for other records."""
    op = rec.get("op")
    if op not in RATE_FIELDS:
        return None
    workload, value_key = RATE_FIELDS[op]
    if op == "calibrate":
        op = get(run, i, rec, "kind", "str")
        if op not in RATE_OPS:
            return None
    value = get(run, i, rec, value_key, "num")
    if value <= 0:
        raise PlotError(f"{run.path}: record {i} ({rec.get('op')}): \"{value_key}\" is not positive")
    efficiency = get(run, i, rec, "hybrid_efficiency", "num", None)
    return Point(index, op, workload(run, i, rec), get(run, i, rec, "device", "str"),
                 get(run, i, rec, "cpu_tier", "str", str(run.meta.get("cpu_tier", ""))),
                 get(run, i, rec, "threads", "int", meta_threads(run)),
                 get(run, i, rec, "log_n", "int"), value, efficiency,
                 get(run, i, rec, "devices_ran", "int", None), devices_used(run, i, rec))


def devices_used(run, index, rec):
    """rec["devices_used"] as a tuple of device names, None when it is absent."""
    used = rec.get("devices_used")
    if used is None:
        return None
    if not isinstance(used, list) or not all(isinstance(d, str) for d in used):
        raise PlotError(f"{run.path}: record {index} ({rec.get('op')}): \"devices_used\" is not a list of names")
    return tuple(used)


def meta_threads(run):
    t = run.meta.get("threads")
    return t if type(t) is int else 0


def proof_of(run, index, i, rec):
    phases = rec.get("phases", [])
    if not isinstance(phases, list) or not all(isinstance(p, dict) for p in phases):
        raise PlotError(f"{run.path}: record {i} (groth16): \"phases\" is not a list of objects")
    parsed = tuple((get(run, i, p, "phase", "str"), get(run, i, p, "median_ms", "num"),
                    get(run, i, p, "devices", "str", "cpu")) for p in phases)
    return Proof(index, get(run, i, rec, "curve", "str"), get(run, i, rec, "constraints_log_n", "int"),
                 get(run, i, rec, "device", "str"),
                 get(run, i, rec, "cpu_tier", "str", str(run.meta.get("cpu_tier", ""))),
                 get(run, i, rec, "threads", "int", meta_threads(run)),
                 get(run, i, rec, "total_median_ms", "num"), parsed)


def rate_points(runs, keep_runs=True):
    """Every rate measurement of the runs; of duplicates (same series and size) the fastest.
    Unless keep_runs, files that measured different things (an MSM file and an NTT file of one
    machine) are merged into run 0; files that measured the same series stay apart."""
    points = [p for index, run in enumerate(runs) for i, rec in enumerate(run.records)
              for p in [rate_point(run, index, i, rec)] if p]
    if not keep_runs and not series_overlap(points):
        points = [replace(p, run=0) for p in points]
    best = {}
    for p in points:
        key = p.series_key + (p.log_n,)
        if key not in best or best[key].value < p.value:
            best[key] = p
    return list(best.values())


def series_overlap(points):
    """Whether two runs measured the same series."""
    seen = {}
    for p in points:
        if seen.setdefault(p.series_key[1:], p.run) != p.run:
            return True
    return False


def proofs(runs):
    return [proof_of(run, index, i, rec) for index, run in enumerate(runs)
            for i, rec in enumerate(run.records) if rec.get("op") == "groth16"]


# ---- labels ----

def file_names(runs):
    return ", ".join(os.path.basename(r.path) for r in runs)


def default_label(run):
    parts = [str(run.meta[k]) for k in ("hostname", "cpu_model", "date") if run.meta.get(k)]
    return " · ".join(parts) if parts else os.path.basename(run.path)


@dataclass(frozen=True)
class Names:
    """How the pictures name the runs: letters (A, B, ...) in series and rows, labels in the
    compare legend, given: whether the labels came from --label."""
    letters: list
    labels: list
    given: bool


def run_names(runs, labels=None):
    """The given labels (one per file), else host · CPU model · date, made unique by file names."""
    letters = [chr(65 + r) if r < 26 else f"R{r + 1}" for r in range(len(runs))]
    if labels:
        if len(labels) != len(runs):
            raise PlotError(f"{len(labels)} --label for {len(runs)} files (give one per file)")
        return Names(letters, list(labels), True)
    out = [default_label(r) for r in runs]
    return Names(letters, [f"{lab} ({os.path.basename(r.path)})" if out.count(lab) > 1 else lab
                           for lab, r in zip(out, runs)], False)


def tier_order(tier):
    return -1 if tier == DEFAULT_TIER else TIERS.index(tier) if tier in TIERS else len(TIERS)


def device_order(device, tier, threads):
    """cpu (by tier, then threads), then the OpenCL devices, then all."""
    rank = 0 if device == "cpu" else 2 if device == "all" else 1
    return (rank, device, tier_order(tier), tier, threads if isinstance(threads, int) else -1)


def device_label(device, tier, threads, short=False):
    """"cpu avx2 2t", "all avx2 2t", "cl:0.0" (the host side's tier and threads only if asked);
    threads may be a word ("default threads")."""
    if short and device.startswith("cl:"):
        return device
    count = f"{threads}t" if isinstance(threads, int) and threads else threads or ""
    return " ".join(x for x in (device, tier, count) if x)


def device_labels(keys):
    """Labels of device keys (run, device, tier, threads): short for OpenCL devices unless two
    keys of a run would share one."""
    short = {k: device_label(*k[1:], short=True) for k in keys}
    counts = {}
    for k, v in short.items():
        counts[(k[0], v)] = counts.get((k[0], v), 0) + 1
    return {k: v if counts[(k[0], v)] == 1 else device_label(*k[1:]) for k, v in short.items()}


def cl_name(runs, run, device):
    """The name of an OpenCL device in its run's meta (else in any run's), shortened."""
    for d in [d for r in [runs[run]] + runs for d in r.meta.get("opencl_devices") or []]:
        if isinstance(d, dict) and d.get("id") == device and isinstance(d.get("name"), str):
            return d["name"] if len(d["name"]) <= 24 else d["name"][:23] + "…"
    return ""


def si(v):
    """1234567 -> "1.23M"."""
    for div, suffix in ((1e9, "G"), (1e6, "M"), (1e3, "k")):
        if abs(v) >= div:
            return f"{v / div:.3g}{suffix}"
    return f"{v:.3g}"


def meta_line(run):
    m = run.meta
    parts = [str(m.get("cpu_model") or "unknown CPU")]
    if m.get("cpu_tier"):
        parts.append(f"CPU tier {m['cpu_tier']}")
    if m.get("threads"):
        parts.append(f"{m['threads']} threads" + (f" of {m['cores']} cores" if m.get("cores") else ""))
    if m.get("hyprove_version"):
        parts.append(f"hyprove {m['hyprove_version']}")
    for key in ("date", "hostname"):
        if m.get(key):
            parts.append(str(m[key]))
    return " · ".join(parts)


def set_title(fig, title, runs, names):
    """The title, then where each run was measured, once when every file says the same."""
    metas = [meta_line(r) for r in runs]
    if len(set(metas)) == 1:
        lines = [f"measured on {metas[0]}"]
        if names.given and len(runs) > 1:
            lines.append(", ".join(f"{letter}: {label}" for letter, label in zip(names.letters, names.labels)))
    else:
        lines = [f"{letter}{f' ({label})' if names.given else ''}: {m}"
                 for letter, label, m in zip(names.letters, names.labels, metas)]
    wrapped = [textwrap.fill(line, 150, subsequent_indent="    ") for line in [title] + lines]
    fig.suptitle("\n".join(wrapped), fontsize=10)


def new_figure(nrows, ncols=1, height=4.0, width=WIDTH):
    fig = Figure(figsize=(width, 1.0 + height * nrows), layout="constrained")
    axes = fig.subplots(nrows, ncols, squeeze=False)
    return fig, [ax for row in axes for ax in row]


def si_axis(axis, log=False):
    """Tick labels as 200k, 1.5M; on a log axis of at most three decades, also at 2x and 5x."""
    axis.set_major_formatter(FuncFormatter(lambda v, _: si(v)))
    if log:
        lo, hi = axis.get_view_interval()
        axis.set_minor_locator(LogLocator(subs=(2.0, 5.0)))
        if lo > 0 and math.log10(hi / lo) <= 3:
            axis.set_minor_formatter(FuncFormatter(lambda v, _: si(v)))
        else:
            axis.set_minor_formatter(NullFormatter())


def legend_right(ax, handles=None, **kw):
    kw = dict(loc="upper left", bbox_to_anchor=(1.01, 1.0), fontsize="small", frameon=False, **kw)
    return ax.legend(handles=handles, **kw) if handles is not None else ax.legend(**kw)


def color_of(keys):
    """A colour for each key, in order."""
    cmap = colormaps["tab10" if len(keys) <= 10 else "tab20"]
    return {k: cmap(i % cmap.N) for i, k in enumerate(keys)}


def no_records(what, runs):
    return PlotError(f"no {what} records in {file_names(runs)}")


# ---- throughput ----

def throughput_figure(runs, names, title):
    points = rate_points(runs, keep_runs=False)
    ops = [op for op in RATE_OPS if any(p.op == op for p in points)]
    if not ops:
        raise no_records("msm, ntt, commit or calibrate", runs)
    dev_keys = sorted({p.device_key for p in points}, key=lambda k: (k[0],) + device_order(*k[1:]))
    colors, devices = color_of(dev_keys), device_labels(dev_keys)
    entries = max(len({p.series_key for p in points if p.op == op}) for op in ops)
    fig, axes = new_figure(len(ops), height=max(4.0, 0.19 * entries + 0.8))  # room for the legend
    for ax, op in zip(axes, ops):
        draw_throughput(ax, op, [p for p in points if p.op == op], colors, devices,
                        names.letters if any(p.run for p in points) else None)
    set_title(fig, title or "hyprove throughput against size", runs, names)
    return fig


def draw_throughput(ax, op, points, colors, devices, letters):
    workloads = list(dict.fromkeys(p.workload for p in points))
    series = {}
    for p in points:
        series.setdefault(p.series_key, []).append(p)
    order = sorted(series, key=lambda k: (workloads.index(k[2]), k[0]) + device_order(*k[3:]))
    for key in order:
        pts = sorted(series[key], key=lambda p: p.log_n)
        style, marker = STYLES[workloads.index(key[2]) % len(STYLES)]
        dev = pts[0].device_key
        label = (f"{letters[key[0]]}: " if letters else "") + f"{key[2]} · {devices[dev]}"
        ax.plot([p.log_n for p in pts], [p.value for p in pts], linestyle=style, marker=marker,
                color=colors[dev], label=label, markersize=5)
    ax.set_yscale("log")
    ax.autoscale_view()
    si_axis(ax.yaxis, log=True)
    # sizes are integers; min_n_ticks=1 keeps them so when one size is drawn (MaxNLocator
    # otherwise falls back to steps of 0.2 when fewer than two integers are in view)
    ax.xaxis.set_major_locator(MaxNLocator(integer=True, min_n_ticks=1))
    ax.set_xlabel(SIZE_LABELS[op])
    ax.set_ylabel(f"throughput [{UNITS[op]}]")
    ax.set_title(f"{OP_NAMES[op]}: throughput against size (line style: workload, colour: device)",
                 fontsize=10)
    ax.grid(True, which="major", alpha=0.4)
    ax.grid(True, which="minor", alpha=0.15)
    legend_right(ax)


# ---- devices ----

def devices_figure(runs, names, log_n, title):
    points = rate_points(runs, keep_runs=False)
    if not points:
        raise no_records("msm, ntt, commit or calibrate", runs)
    panels = []
    for op in RATE_OPS:
        of_op = [p for p in points if p.op == op]
        if not of_op:
            continue
        size = log_n if log_n is not None else max(p.log_n for p in of_op)
        for run, workload in dict.fromkeys((p.run, p.workload) for p in of_op):
            at = [p for p in of_op if p.run == run and p.workload == workload and p.log_n == size]
            if at:
                panels.append((op, workload, size, at))
    if not panels:
        raise PlotError(f"no msm, ntt, commit or calibrate records at log_n {log_n} in {file_names(runs)}")
    fig, axes = new_figure(len(panels), height=3.4)
    for ax, (op, workload, size, at) in zip(axes, panels):
        prefix = f"{names.letters[at[0].run]}: " if any(p.run for p in points) else ""
        draw_devices(ax, runs, op, at)
        ax.set_title(f"{prefix}{OP_NAMES[op]} {workload} at n = 2^{size}", fontsize=10)
    together = any(p.device == "all" for _, _, _, at in panels for p in at)
    set_title(fig, title or "hyprove devices alone" + (" and together (hybrid `all`)" if together else ""), runs, names)
    return fig


def draw_devices(ax, runs, op, points):
    singles = sorted((p for p in points if p.device != "all"), key=lambda p: device_order(*p.device_key[1:]))
    hybrids = sorted((p for p in points if p.device == "all"), key=lambda p: device_order(*p.device_key[1:]))
    names = device_labels([p.device_key for p in singles])
    top = max([p.value for p in points] + [sum_of_singles(singles, h)[0] for h in hybrids])
    for x, p in enumerate(singles):
        bars = ax.bar(x, p.value, width=0.6, label=names[p.device_key],
                      color="tab:blue" if p.device == "cpu" else "tab:orange")
        inside = p.value > 0.25 * top  # a label above a tall bar could sit on the hybrid lines
        ax.bar_label(bars, labels=[si(p.value)], fontsize="small", label_type="center" if inside else "edge",
                     padding=0 if inside else 2, color="white" if inside else "black")
    ax.set_xticks(range(len(singles)), [tick_label(runs, p, names) for p in singles], fontsize="small")
    # a legend entry only for a kind of bar that is drawn
    handles = [Patch(color=color, label=label) for color, label, drawn in (
        ("tab:blue", "CPU alone", any(p.device == "cpu" for p in singles)),
        ("tab:orange", "OpenCL device alone", any(p.device != "cpu" for p in singles))) if drawn]
    colors = ["black", "tab:green", "tab:purple", "tab:brown"]
    for j, h in enumerate(hybrids):
        handles += hybrid_lines(ax, singles, h, colors[j % len(colors)])
    ax.set_ylim(0, top * 1.15)
    si_axis(ax.yaxis)
    ax.set_xlim(-0.6, max(len(singles), 1) - 0.4)
    ax.set_ylabel(f"throughput [{UNITS[op]}]")
    ax.grid(True, axis="y", alpha=0.4)
    legend_right(ax, handles)


def tick_label(runs, p, names):
    name = cl_name(runs, p.run, p.device) if p.device.startswith("cl:") else ""
    return names[p.device_key].replace(" ", "\n", 1) + (f"\n{name}" if name else "")


def sum_of_singles(singles, hybrid):
    """The bars of the devices a hybrid run combined; (their summed throughput, their names, a
    note for the legend: "" or how they were chosen). The candidates are the CPU at the hybrid
    run's tier and threads (else the fastest CPU bar) and every OpenCL device: the devices
    whose throughputs `bench msm` sums for hybrid_efficiency. Records that name the devices
    that computed points (devices_used) give exactly those. Older ones count them (devices_ran):
    at 1 the hybrid run was one device alone, and a sum of one would repeat its bar; where the
    count is more than one but fewer than the candidates, the CPU (its pool takes part in every
    hybrid run) and the fastest OpenCL devices are taken, and the note says so. Without either
    (NTT records, older files), every candidate."""
    cpus = [p for p in singles if p.device == "cpu"]
    match = [p for p in cpus if (p.tier, p.threads) == (hybrid.tier, hybrid.threads)]
    cpu = match[0] if match else max(cpus, key=lambda p: p.value, default=None)
    opencl = [p for p in singles if p.device != "cpu"]
    parts, note = ([cpu] if cpu else []) + opencl, ""
    if hybrid.used is not None:
        parts = [p for p in parts if p.device in hybrid.used]
    elif hybrid.ran is not None and hybrid.ran < len(parts):
        if hybrid.ran > 1:
            note = f"{hybrid.ran} of {len(parts)} devices ran; assumed {'the CPU and ' if cpu else ''}the fastest"
        room = max(hybrid.ran - (1 if cpu else 0), 0)
        kept = sorted(opencl, key=lambda p: p.value, reverse=True)[:room]
        parts = ([cpu] if cpu and hybrid.ran > 0 else []) + [p for p in opencl if p in kept]
    return (sum(p.value for p in parts), [device_label(p.device, p.tier, p.threads, short=True) for p in parts],
            note)


def hybrid_lines(ax, singles, hybrid, color):
    """The solid line of a hybrid run and the dashed line of the sum of the devices it combined
    (only when more than one of them ran); their legend handles. Without a hybrid run (the main
    job measures each device alone) there is no sum either: no run combined those devices, and
    where one is POCL on the CPU's cores no run would (the library leaves it out of `all`)."""
    text = f"{device_label(hybrid.device, hybrid.tier, hybrid.threads)}: {si(hybrid.value)}"
    if hybrid.efficiency is not None:
        text += f", hybrid efficiency {hybrid.efficiency:.2f}"
        below = hybrid.efficiency <= 1  # on the side away from the sum's line
        ax.annotate(f"efficiency {hybrid.efficiency:.2f}", xy=(1.0, hybrid.value),
                    xycoords=("axes fraction", "data"), xytext=(-4, -3 if below else 3),
                    textcoords="offset points", ha="right", va="top" if below else "bottom",
                    fontsize="small", color=color)
    if hybrid.ran == 1:
        text += " (one device ran)"
    handles = [ax.axhline(hybrid.value, color=color, linewidth=2, label=text)]
    total, parts, note = sum_of_singles(singles, hybrid)
    if len(parts) > 1:
        handles.append(ax.axhline(total, color=color, linestyle="--", linewidth=1.2,
                                  label=f"sum of {' + '.join(parts)}: {si(total)}" + (f" ({note})" if note else "")))
    return handles


# ---- groth16 ----

def phase_order(found):
    return [p for p in PHASES if p in found] + [p for p in dict.fromkeys(found) if p not in PHASES]


def groth16_figure(runs, names, log_n, title):
    rows = proofs(runs)
    if log_n is not None:
        rows = [r for r in rows if r.log_n == log_n]
    if not rows:
        raise no_records("groth16" + (f" (constraints_log_n {log_n})" if log_n is not None else ""), runs)
    rows.sort(key=lambda r: (r.run, r.curve, r.log_n) + device_order(r.device, r.tier, r.threads))
    fig, axes = new_figure(1, height=max(2.6, 0.62 * len(rows) + 1.2))
    ax = axes[0]
    draw_phases(ax, rows, phase_order([ph for r in rows for ph, _, _ in r.phases]))
    devices = device_labels([(r.run, r.device, r.tier, r.threads) for r in rows])
    ax.set_yticks(range(len(rows)), [(f"{names.letters[r.run]}: " if len(runs) > 1 else "")
                                      + f"{r.curve} 2^{r.log_n}\n{devices[(r.run, r.device, r.tier, r.threads)]}"
                                      for r in rows], fontsize="small")
    ax.invert_yaxis()
    ax.set_xlabel("time [ms] (phase medians stacked; tick: measured total median)")
    ax.set_title("Groth16 proof: time per phase", fontsize=10)
    ax.grid(True, axis="x", alpha=0.4)
    set_title(fig, title or "hyprove Groth16 phase breakdown", runs, names)
    return fig


def draw_phases(ax, rows, order):
    colors = color_of(order)
    left = [0.0] * len(rows)
    hatched = False
    for ph in order:
        times = [next((ms for name, ms, _ in r.phases if name == ph), 0.0) for r in rows]
        bars = ax.barh(range(len(rows)), times, left=left, height=0.6, color=colors[ph], label=ph,
                       edgecolor="white", linewidth=0.5)
        for bar, r in zip(bars, rows):
            devs = next((d for name, _, d in r.phases if name == ph), "cpu")
            if "cl:" in devs:
                bar.set_hatch("///")
                hatched = True
        left = [a + b for a, b in zip(left, times)]
    ends = [max(a, r.total_ms) for a, r in zip(left, rows)]
    for y, r in enumerate(rows):
        ax.plot([r.total_ms] * 2, [y - 0.4, y + 0.4], color="black", linewidth=2.5)
        ax.annotate(f"total {r.total_ms:.4g} ms", xy=(ends[y], y), xytext=(6, 0), textcoords="offset points",
                    va="center", fontsize="small")
    ax.set_xlim(0, max(ends) * 1.22)
    handles = [Patch(color=colors[ph], label=ph) for ph in order]
    handles.append(Line2D([], [], color="black", linewidth=2.5, label="total (median)"))
    if hatched:
        handles.append(Patch(facecolor="white", edgecolor="grey", hatch="///", label="on an OpenCL device"))
    legend_right(ax, handles, title="phase")


# ---- compare ----

def compare_figure(runs, names, log_n, title):
    if len(runs) < 2:
        raise PlotError("compare needs two or more files")
    panels = compare_rate_panels(runs, log_n) + compare_proof_panels(runs, log_n)
    if not panels:
        raise PlotError(f"no msm, ntt, calibrate or groth16 records to compare"
                        f"{f' at log_n {log_n}' if log_n is not None else ''} in {file_names(runs)}")
    heights = [0.3 * len({k[0] for k in values}) * len({k[1] for k in values}) + 1.3 for _, _, values in panels]
    fig = Figure(figsize=(WIDTH, 1.2 + sum(heights)), layout="constrained")
    axes = fig.subplots(len(panels), 1, squeeze=False, gridspec_kw={"height_ratios": heights})[:, 0]
    for ax, (op, size, values) in zip(axes, panels):
        draw_compare(ax, op, size, values, names)
    set_title(fig, title or f"hyprove compared: {' vs '.join(names.letters)}", runs,
              replace(names, given=False))
    return fig


def comparable(runs):
    """A function (run, device, tier, threads) -> the (device, tier, threads) rows a measurement
    is compared in. Where the files' default CPU tiers (or thread counts) differ, a file's
    default becomes "default tier" ("default threads"), so that one machine's default meets the
    other's; a CPU measurement at its file's default tier is also compared under the tier's
    name (the same kernels on both machines)."""
    tiers = {str(r.meta.get("cpu_tier", "")) for r in runs}
    threads = {meta_threads(r) for r in runs}

    def keys(run, device, tier, n):
        if len(threads) > 1 and n == meta_threads(runs[run]):
            n = DEFAULT_THREADS
        if len(tiers) > 1 and tier == runs[run].meta.get("cpu_tier"):
            return [(device, DEFAULT_TIER, n)] + ([(device, tier, n)] if device == "cpu" else [])
        return [(device, tier, n)]
    return keys


def compare_rate_panels(runs, log_n):
    """(op, log_n, {(run, (workload, device, tier, threads)): throughput}) of MSM and NTT."""
    points, keys, panels = rate_points(runs), comparable(runs), []
    for op in RATE_OPS:
        of_op = [p for p in points if p.op == op]
        if of_op:
            size = log_n if log_n is not None else common_size(of_op, len(runs))
            values = {(p.run, (p.workload,) + k): p.value for p in of_op if p.log_n == size
                      for k in keys(p.run, p.device, p.tier, p.threads)}
            values = drop_lonely_defaults(values)
            if values:
                panels.append((op, size, values))
    return panels


def compare_proof_panels(runs, log_n):
    """The Groth16 panel: ("groth16", None, {(run, (curve 2^n, device, tier, threads)): total ms})."""
    keys = comparable(runs)
    values = {(r.run, (f"{r.curve} 2^{r.log_n}",) + k): r.total_ms
              for r in proofs(runs) if log_n is None or r.log_n == log_n
              for k in keys(r.run, r.device, r.tier, r.threads)}
    values = drop_lonely_defaults(values)
    return [("groth16", None, values)] if values else []


def drop_lonely_defaults(values):
    """Without the CPU's "default tier" rows that only one run has (each is also under its
    tier's name)."""
    runs_of = {}
    for run, row in values:
        runs_of.setdefault(row, set()).add(run)
    return {k: v for k, v in values.items()
            if not (k[1][1] == "cpu" and k[1][2] == DEFAULT_TIER and len(runs_of[k[1]]) < 2)}


def common_size(points, nruns):
    """The largest log_n every run measured (else the largest any run measured)."""
    sizes = [{p.log_n for p in points if p.run == r} for r in range(nruns)]
    common = set.intersection(*[s for s in sizes if s]) if any(sizes) else set()
    return max(common) if common else max(p.log_n for p in points)


def draw_compare(ax, op, size, values, names):
    """Grouped horizontal bars: a row per series, a bar per run that has this panel's operation;
    each later run's ratio to the first beside the row; a thin rule between workloads."""
    present = sorted({run for run, _ in values})
    workloads = list(dict.fromkeys(row[0] for _, row in values))
    rows = sorted({row for _, row in values}, key=lambda k: (workloads.index(k[0]),) + device_order(*k[1:]))
    devices = device_labels([(0,) + k[1:] for k in rows])
    letters, labels = names.letters, names.labels
    height, colors = 0.8 / len(present), color_of(list(range(len(labels))))
    for slot, r in enumerate(present):
        mine = [(i, values[(r, k)]) for i, k in enumerate(rows) if (r, k) in values]
        ax.barh([i - 0.4 + height * (slot + 0.5) for i, _ in mine], [v for _, v in mine], height=height * 0.95,
                color=colors[r], label=labels[r])
    for i, k in enumerate(rows):
        annotate_ratios(ax, i, [(letters[r], values.get((r, k))) for r in present])
        if i and k[0] != rows[i - 1][0]:
            ax.axhline(i - 0.5, color="grey", linewidth=0.6)
    ax.set_yticks(range(len(rows)), [f"{k[0]} · {devices[(0,) + k[1:]]}" for k in rows], fontsize="small")
    ax.set_ylim(len(rows) - 0.5, -0.5)
    ratio = f"ratio {','.join(letters[r] for r in present[1:])} / {letters[present[0]]}" if len(present) > 1 else ""
    # a linear axis from zero, so that a bar's length is its value; room on the right for the
    # ratios written beside the longest bars (longer with more runs)
    ax.set_xlim(0, max(values.values()) * (1.15 + 0.1 * max(len(present) - 1, 1)))
    if op == "groth16":
        ax.set_xlabel("total median time [ms] (shorter is faster)")
        ax.set_title("Groth16 proof time" + (f"; {ratio}: below 1 is faster" if ratio else ""), fontsize=10)
    else:
        si_axis(ax.xaxis)
        ax.set_xlabel(f"throughput at n = 2^{size} [{UNITS[op]}] (longer is faster)")
        ax.set_title(f"{OP_NAMES[op]} at n = 2^{size}" + (f"; {ratio}: above 1 is faster" if ratio else ""),
                     fontsize=10)
    ax.grid(True, axis="x", which="both", alpha=0.3)
    handles = [Patch(color=colors[r], label=f"{letters[r]}: {labels[r]}") for r in present]
    legend_right(ax, handles, title="run")


def annotate_ratios(ax, y, named):
    """Right of a row's longest bar: "×1.18" (two runs), or "B/A ×1.18  C/A ×0.91"; named is
    [(letter, value or None)], the first run the base."""
    (base_name, base), present = named[0], [v for _, v in named if v is not None]
    if base is None or len(present) < 2:
        return
    text = "  ".join((f"{name}/{base_name} " if len(named) > 2 else "") + f"×{v / base:.2f}"
                     for name, v in named[1:] if v is not None)
    ax.annotate(text, xy=(max(present), y), xytext=(5, 0), textcoords="offset points", va="center",
                fontsize="small", fontweight="bold")


# ---- the figure, the file ----

def choose_kind(kind, runs):
    """auto: groth16 when every record is a Groth16 proof, compare for several files, else
    throughput."""
    if kind != "auto":
        return kind
    ops = [rec.get("op") for r in runs for rec in r.records]
    if ops and all(op == "groth16" for op in ops):
        return "groth16"
    return "compare" if len(runs) > 1 else "throughput"


def build_figure(kind, runs, log_n=None, labels=None, title=None):
    """The matplotlib Figure of a kind (or "auto") for runs from load_run."""
    kind = choose_kind(kind, runs)
    names = run_names(runs, labels)
    if kind == "throughput":
        return throughput_figure(runs, names, title)
    if kind == "devices":
        return devices_figure(runs, names, log_n, title)
    if kind == "groth16":
        return groth16_figure(runs, names, log_n, title)
    if kind == "compare":
        return compare_figure(runs, names, log_n, title)
    raise PlotError(f"unknown kind {kind!r} (expected one of {', '.join(KINDS)})")


def output_format(path):
    ext = os.path.splitext(path)[1].lower().lstrip(".")
    if ext not in FORMATS:
        raise PlotError(f"{path}: unsupported output format {('.' + ext) if ext else '(no extension)'} "
                        f"(expected .png or .svg)")
    return ext


def save_figure(fig, path):
    """Writes the figure to a temporary file beside path, then renames it into place."""
    fmt = output_format(path)
    directory = os.path.dirname(os.path.abspath(path))
    try:
        fd, tmp = tempfile.mkstemp(prefix=".plot-", suffix="." + fmt, dir=directory)
    except OSError as e:
        raise PlotError(f"{path}: cannot write: {e.strerror or e}") from None
    try:
        with os.fdopen(fd, "wb") as f:
            fig.savefig(f, format=fmt, dpi=110, metadata={"Date": None} if fmt == "svg" else None)
        mask = os.umask(0)
        os.umask(mask)
        os.chmod(tmp, 0o666 & ~mask)
        os.replace(tmp, path)
    except BaseException:
        os.unlink(tmp)
        raise


class Parser(argparse.ArgumentParser):
    def error(self, message):
        self.exit(2, f"{self.prog}: error: {message}\n")


def parse_args(argv):
    ap = Parser(prog="plot.py", description="Plots of hyprove benchmark JSON files (schema_version 1).")
    ap.add_argument("--kind", choices=KINDS, default="auto")
    ap.add_argument("--out", metavar="FILE.png|FILE.svg", help="FILE.png or FILE.svg (default: the first input with .png)")
    ap.add_argument("--log-n", type=int, metavar="N", help="the size of the devices and compare charts "
                    "(default: the largest measured); for groth16, the constraints_log_n shown")
    ap.add_argument("--title", metavar="T", help="the first line of the title (the measurement's meta follows)")
    ap.add_argument("--label", action="append", metavar="L", help="a run's name in the pictures; once per file, in order")
    ap.add_argument("files", nargs="+", metavar="FILE.json")
    return ap.parse_args(argv)


def main(argv=None):
    args = parse_args(argv)
    out = args.out or os.path.splitext(args.files[0])[0] + ".png"
    try:
        output_format(out)
        runs = [load_run(p) for p in args.files]
        save_figure(build_figure(args.kind, runs, args.log_n, args.label, args.title), out)
    except PlotError as e:
        print(f"plot.py: error: {e}", file=sys.stderr)
        return 2
    print(out)
    return 0


if __name__ == "__main__":
    sys.exit(main())
