#!/usr/bin/env python3
"""Tests of bench/plot.py, the pictures of hyprove's benchmark JSON.

Usage: plot_test.py PATH_TO_PLOT_PY (run with a Python that has matplotlib).

Renders each kind of picture from the recordings in tests/data/bench/ to PNG and to SVG with
the script as a subprocess (the file is there, PNG decodes with sensible dimensions, SVG
parses), then imports the script and checks the figures' series against the records of the
files (the expectations come from the files, not from their numbers, so new recordings of the
same shape pass), then the errors: one line on stderr, exit status 2, no file left behind.
"""
import glob
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

import matplotlib

matplotlib.use("Agg")
import matplotlib.colors  # noqa: E402
import matplotlib.image  # noqa: E402

PLOT = os.path.abspath(sys.argv[1])
DATA = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "data", "bench")
MSM, MSM2, NTT, G16, CAL = (os.path.join(DATA, f) for f in (
    "msm_zen3.json", "msm_zen3_portable.json", "ntt_zen3.json", "groth16_zen3.json", "calibrate_zen3.json"))
PHASES = ["witness", "h", "msm_a", "msm_b1", "msm_b2", "msm_c", "msm_h", "assemble"]
FAILED = []
PASSED = [0]


def check(ok, what):
    if ok:
        PASSED[0] += 1
    else:
        FAILED.append(what)
        print(f"FAIL: {what}")
    return ok


def run(args):
    return subprocess.run([sys.executable, PLOT] + args, capture_output=True, text=True, timeout=300)


def records(path, op):
    with open(path) as f:
        return [r for r in json.load(f)["records"] if r.get("op") == op]


def meta(path):
    with open(path) as f:
        return json.load(f)["meta"]


# ---- the script renders each kind to PNG and SVG ----

def check_png(path, what):
    try:
        img = matplotlib.image.imread(path)
    except Exception as e:  # noqa: BLE001 (any decoder failure is the finding)
        return check(False, f"{what}: PNG does not decode: {e}")
    h, w = img.shape[:2]
    check(300 <= w <= 4000 and 200 <= h <= 8000 and img.shape[2] in (3, 4),
          f"{what}: PNG dimensions {img.shape}")
    check(img[..., :3].std() > 0.05, f"{what}: PNG is blank")


def check_svg(path, what, words=()):
    with open(path, encoding="utf-8") as f:
        text = f.read()
    missing = [w for w in words if w not in text]  # matplotlib keeps each text in a comment
    check(not missing, f"{what}: SVG lacks the texts {missing}")
    try:
        root = ET.parse(path).getroot()
    except ET.ParseError as e:
        return check(False, f"{what}: SVG does not parse: {e}")
    check(root.tag.endswith("svg"), f"{what}: SVG root is {root.tag}")
    check(len(list(root.iter())) > 100, f"{what}: SVG has almost nothing drawn")


def render(tmp, name, args, words=()):
    """Renders args to name.png and name.svg; words: texts the SVG must hold."""
    for ext in ("png", "svg"):
        out = os.path.join(tmp, f"{name}.{ext}")
        before = set(os.listdir(tmp))
        r = run(args + ["--out", out])
        what = f"{name}.{ext} ({' '.join(os.path.basename(a) for a in args)})"
        if not check(r.returncode == 0, f"{what}: exit {r.returncode}: {r.stderr.strip()}"):
            continue
        check(r.stdout.strip() == out, f"{what}: printed {r.stdout.strip()!r}, not the output path")
        if not check(os.path.isfile(out) and os.path.getsize(out) > 5000, f"{what}: no output or a tiny one"):
            continue
        if ext == "png":
            check_png(out, what)
        else:
            check_svg(out, what, words)
        added = set(os.listdir(tmp)) - before - {os.path.basename(out)}
        check(not added, f"{what}: files other than the output written: {sorted(added)}")


def test_render(tmp):
    render(tmp, "throughput", ["--kind", "throughput", MSM, NTT])
    render(tmp, "throughput_auto", [MSM])
    render(tmp, "calibrate", [CAL])
    render(tmp, "devices", ["--kind", "devices", MSM, NTT])
    render(tmp, "devices_12", ["--kind", "devices", "--log-n", "12", "--title", "at 2^12", MSM])
    render(tmp, "groth16", [G16], PHASES)
    render(tmp, "compare", ["--label", "before", "--label", "after", MSM, MSM2], ["before", "after"])
    render(tmp, "compare_g16", ["--kind", "compare", G16, G16])
    # the main job's shape (scripts/run.sh draws its devices chart): one size, each device alone
    inputs = os.path.join(tmp, "inputs")
    os.mkdir(inputs)
    main_job = main_job_like(inputs)
    render(tmp, "devices_main_job", ["--kind", "devices", main_job], ["CPU alone", "OpenCL device alone"])
    render(tmp, "throughput_one_size", [main_job])
    # the default output: the first input with .png
    copy = os.path.join(tmp, "copy.json")
    shutil.copy(MSM, copy)
    r = run([copy])
    check(r.returncode == 0 and os.path.isfile(os.path.join(tmp, "copy.png")),
          f"default output copy.png: exit {r.returncode}: {r.stderr.strip()}")


# ---- the figures' series ----

def load_module():
    spec = importlib.util.spec_from_file_location("hyprove_plot", PLOT)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def line_labels(ax):
    return [ln.get_label() for ln in ax.get_lines() if not ln.get_label().startswith("_")]


def bar_labels(ax):
    return [c.get_label() for c in ax.containers]


def texts(ax):
    return [t.get_text() for t in ax.texts]


def device_words(rec):
    """What a series' label must name: the device, and for cpu its tier and threads."""
    words = [rec["device"]]
    if rec["device"] == "cpu":
        words += [rec["cpu_tier"], f"{rec['threads']}t"]
    return words


def check_title(fig, path, what):
    title = fig._suptitle.get_text() if fig._suptitle else ""
    m = meta(path)
    for key in ("cpu_model", "cpu_tier", "hyprove_version", "date"):
        check(str(m[key]) in title, f"{what}: the title lacks meta {key} ({m[key]!r}): {title!r}")
    check(f"{m['threads']} threads" in title, f"{what}: the title lacks the thread count: {title!r}")


def test_throughput(plot):
    runs = [plot.load_run(MSM), plot.load_run(NTT)]
    fig = plot.build_figure("throughput", runs)
    axes = fig.get_axes()
    check(len(axes) == 2, f"throughput: {len(axes)} panels for msm and ntt (expected 2)")
    for ax, path, op, work in zip(axes, (MSM, NTT), ("msm", "ntt"), (("curve", "group"), ("field",))):
        recs = records(path, op)
        series = {}
        for r in recs:
            key = tuple(r[k] for k in work) + (r.get("lde", 0), r.get("batch", 1), r["device"], r["cpu_tier"],
                                               r["threads"])
            series.setdefault(key, []).append(r)
        labels = line_labels(ax)
        check(len(labels) == len(series), f"throughput {op}: {len(labels)} lines for {len(series)} series")
        for key, recs_of in series.items():
            words = [str(w) for w in key[:len(work)]] + device_words(recs_of[0])
            if key[len(work)] > 1:
                words.append(f"lde {key[len(work)]}x")
            hits = [ln for ln in ax.get_lines() if all(w in ln.get_label() for w in words)]
            if check(hits, f"throughput {op}: no line for {words} among {labels}"):
                check(any(len(ln.get_xdata()) == len({r['log_n'] for r in recs_of}) for ln in hits),
                      f"throughput {op}: the line of {words} lacks points")
        check(ax.get_yscale() == "log", f"throughput {op}: y axis not logarithmic")
        check(plot.UNITS[op] in ax.get_ylabel() and "log" in ax.get_xlabel(),
              f"throughput {op}: axis labels {ax.get_xlabel()!r}, {ax.get_ylabel()!r}")
    curves = {r["curve"] for r in records(MSM, "msm")}
    check(len(curves) >= 2 and all(any(c in lab for lab in line_labels(axes[0])) for c in curves),
          f"throughput: not a line per curve {curves}")
    check_title(fig, MSM, "throughput")
    cal = plot.build_figure("auto", [plot.load_run(CAL)])
    check(len(cal.get_axes()) == len({r["kind"] for r in records(CAL, "calibrate")}),
          "calibrate: not a panel per kind")
    check(all(line_labels(ax) for ax in cal.get_axes()), "calibrate: panels without lines")


def test_devices(plot):
    fig = plot.build_figure("devices", [plot.load_run(MSM)])
    recs = records(MSM, "msm")
    top = max(r["log_n"] for r in recs)
    panels = {(r["curve"], r["group"]) for r in recs if r["log_n"] == top}
    axes = fig.get_axes()
    check(len(axes) == len(panels), f"devices: {len(axes)} panels for {len(panels)} curves")
    for ax in axes:
        title = ax.get_title()
        key = next((k for k in panels if f"{k[0]} {k[1]}" in title), None)
        if not check(key and f"2^{top}" in title, f"devices: panel {title!r} names no curve at 2^{top}"):
            continue
        at = [r for r in recs if (r["curve"], r["group"]) == key and r["log_n"] == top]
        singles = [r for r in at if r["device"] != "all"]
        bars = bar_labels(ax)
        check(len(bars) == len(singles), f"devices {key}: {len(bars)} bars for {len(singles)} single devices")
        for r in singles:
            check(any(all(w in b for w in device_words(r)) for b in bars),
                  f"devices {key}: no bar for {device_words(r)} among {bars}")
        lines = line_labels(ax)
        for h in (r for r in at if r["device"] == "all"):
            solid = [lab for lab in lines if lab.startswith("all")]
            check(solid, f"devices {key}: no hybrid line among {lines}")
            if "hybrid_efficiency" in h:
                check(any(f"{h['hybrid_efficiency']:.2f}" in lab for lab in solid),
                      f"devices {key}: the hybrid line lacks its efficiency: {solid}")
        if any(r["device"].startswith("cl:") for r in singles):
            check(any(lab.startswith("sum of") for lab in lines), f"devices {key}: no sum line among {lines}")
            dashed = [ln for ln in ax.get_lines() if ln.get_label().startswith("sum of")]
            check(dashed and dashed[0].get_linestyle() == "--", f"devices {key}: the sum line is not dashed")
    small = plot.build_figure("devices", [plot.load_run(MSM)], log_n=12)
    check(all("2^12" in ax.get_title() for ax in small.get_axes()), "devices --log-n 12: panels not at 2^12")
    check_title(fig, MSM, "devices")


def test_groth16(plot):
    recs = records(G16, "groth16")
    fig = plot.build_figure("auto", [plot.load_run(G16)])
    ax = fig.get_axes()[0]
    bars = bar_labels(ax)
    check(all(p in bars for p in PHASES), f"groth16: phases {bars}, expected all of {PHASES}")
    check(all(len(c.patches) == len(recs) for c in ax.containers),
          f"groth16: not a bar per record ({len(recs)})")
    check(len(ax.get_yticklabels()) == len(recs), "groth16: not a row per record")
    check(sum(t.startswith("total") for t in texts(ax)) == len(recs), f"groth16: totals {texts(ax)}")
    check("ms" in ax.get_xlabel(), f"groth16: x label {ax.get_xlabel()!r}")
    rows = " | ".join(t.get_text() for t in ax.get_yticklabels())
    for r in recs:
        check(all(w in rows for w in device_words(r)), f"groth16: no row for {device_words(r)}: {rows}")
    check_title(fig, G16, "groth16")


def test_compare(plot):
    runs = [plot.load_run(MSM), plot.load_run(MSM2)]
    fig = plot.build_figure("auto", runs, labels=["before", "after"])
    ax = fig.get_axes()[0]
    check(bar_labels(ax) == ["before", "after"], f"compare: bar groups {bar_labels(ax)}")
    legend = [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else []
    check(any("before" in t for t in legend) and any("after" in t for t in legend), f"compare: legend {legend}")
    check(any(t.startswith("×") for t in texts(ax)), f"compare: no ratio annotated: {texts(ax)}")
    rows = " | ".join(t.get_text() for t in ax.get_yticklabels())
    check(all(c in rows for c in {r["curve"] for r in records(MSM, "msm")}), f"compare: rows {rows}")
    default = plot.build_figure("compare", runs)
    legend = [t.get_text() for t in default.get_axes()[0].get_legend().get_texts()]
    for path in (MSM, MSM2):
        check(any(meta(path)["hostname"] in t and meta(path)["cpu_model"] in t for t in legend),
              f"compare: default labels {legend} lack {path}'s host and CPU model")
    title = default._suptitle.get_text()
    check(all(meta(p)["cpu_model"] in title for p in (MSM, MSM2)), f"compare: title {title!r}")


# ---- the labels tell the truth: legend entries that exist, the devices that ran, integer
# sizes, bars from zero (inputs derived from the recordings are written to the test's folder) ----

def derived(tmp, name, path=MSM, keep=lambda r: True, change=lambda r: [r]):
    """A copy of the recording at path with only the records keep() takes, each replaced by
    the records change() returns; its path."""
    with open(path) as f:
        doc = json.load(f)
    doc["records"] = [new for r in doc["records"] if keep(r) for new in change(dict(r))]
    out = os.path.join(tmp, name + ".json")
    with open(out, "w") as f:
        json.dump(doc, f)
    return out


def top_size(path, op="msm"):
    return max(r["log_n"] for r in records(path, op))


def main_job_like(tmp):
    """The shape of the main job's file (host/cli/cmd_bench_msm.c, cmd_default_job): one size,
    the CPU at 1 thread and at its default, each OpenCL device alone, no all run; made from
    the recording's largest size."""
    size = top_size(MSM)
    return derived(tmp, "main_job_like", keep=lambda r: r["log_n"] == size and r["device"] != "all",
                   change=lambda r: [r, dict(r, threads=2)] if r["device"] == "cpu" else [r])


def check_devices_legend(ax, what):
    """Every legend entry stands for something drawn: "CPU alone" for a blue bar, "OpenCL
    device alone" for an orange one, any other entry for a line of that label; and every kind
    of bar and every labelled line has its entry."""
    legend = [t.get_text() for t in ax.get_legend().get_texts()] if ax.get_legend() else []
    fills = [tuple(b.get_facecolor()) for c in ax.containers for b in c.patches]
    for entry, color in (("CPU alone", "tab:blue"), ("OpenCL device alone", "tab:orange")):
        drawn = tuple(matplotlib.colors.to_rgba(color)) in fills
        check((entry in legend) == drawn, f"{what}: legend entry {entry!r} {'without' if not drawn else 'missing for'} "
                                          f"its {color} bars (legend {legend})")
    lines = line_labels(ax)
    for entry in legend:
        if entry not in ("CPU alone", "OpenCL device alone"):
            check(entry in lines, f"{what}: legend entry {entry!r} has no line (lines {lines})")
    for label in lines:
        check(label in legend, f"{what}: line {label!r} has no legend entry ({legend})")


def sum_parts(label):
    """"sum of cpu avx2 1t + cl:0.0: 215k (a note)" -> ["cpu avx2 1t", "cl:0.0"]."""
    return label[len("sum of "):].split(" (")[0].rsplit(": ", 1)[0].split(" + ")


def test_devices_legend(plot, tmp):
    size = top_size(MSM)
    cases = [("cpu, OpenCL and all", MSM, size),
             ("devices_ran 1", MSM, min(r["log_n"] for r in records(MSM, "msm"))),
             ("cpu and all", derived(tmp, "no_opencl", keep=lambda r: not r["device"].startswith("cl:")), size),
             ("OpenCL and all", derived(tmp, "no_cpu", keep=lambda r: r["device"] != "cpu"), size),
             ("all alone (no bars)", derived(tmp, "all_alone", path=NTT, keep=lambda r: r["device"] == "all"),
              top_size(NTT, "ntt")),
             ("the main job's shape", main_job_like(tmp), size),
             ("ntt", NTT, top_size(NTT, "ntt"))]
    for name, path, log_n in cases:
        fig = plot.build_figure("devices", [plot.load_run(path)], log_n=log_n)
        for ax in fig.get_axes():
            check_devices_legend(ax, f"devices legend, {name}, {ax.get_title()}")


def test_devices_sum(plot, tmp):
    """The dashed sum adds only the devices that the hybrid record says ran: in the recording
    one device ran below 2^15 (the size where an OpenCL device joins) and two at 2^15."""
    recs = records(MSM, "msm")
    ran = {r["devices_ran"] for r in recs if r["device"] == "all"}
    check({1, 2} <= ran, f"msm_zen3.json: all records with devices_ran {sorted(ran)} (the test needs 1 and 2)")
    for size in sorted({r["log_n"] for r in recs}):
        at = [r for r in recs if r["log_n"] == size]
        fig = plot.build_figure("devices", [plot.load_run(MSM)], log_n=size)
        for ax in fig.get_axes():
            h = next((r for r in at if r["device"] == "all" and f"{r['curve']} {r['group']}" in ax.get_title()), None)
            what = f"devices sum, devices_ran {h and h['devices_ran']}, {ax.get_title()}"
            if not check(h, f"{what}: no all record"):
                continue
            singles = [r for r in at if r["curve"] == h["curve"] and r["device"] != "all"]
            dashed = [ln for ln in ax.get_lines() if ln.get_label().startswith("sum of")]
            lines = line_labels(ax)
            if h["devices_ran"] == 1:
                # the hybrid run was one device: no sum (the CLI writes no efficiency then)
                check(not dashed, f"{what}: a sum line among {lines}")
                check(any(lab.startswith("all") and "one device ran" in lab for lab in lines),
                      f"{what}: the hybrid line does not say one device ran: {lines}")
                continue
            if not check(len(dashed) == 1, f"{what}: {len(dashed)} sum lines among {lines} (expected 1)"):
                continue
            parts = sum_parts(dashed[0].get_label())
            check(len(parts) == h["devices_ran"], f"{what}: sums {parts} for {h['devices_ran']} devices that ran")
            if h["devices_ran"] != len(singles):
                continue  # which ones ran, the record does not say: the case below
            check(sorted(p.split()[0] for p in parts) == sorted(r["device"] for r in singles),
                  f"{what}: sums {parts}, expected {[r['device'] for r in singles]}")
            total = dashed[0].get_ydata()[0]
            check(abs(total - sum(r["points_per_s"] for r in singles)) < 1, f"{what}: the sum is {total}")
            # consistent with the recorded efficiency: hybrid throughput / the sum
            check(abs(h["points_per_s"] / total - h["hybrid_efficiency"]) < 0.005,
                  f"{what}: hybrid / sum {h['points_per_s'] / total:.4f} is not the recorded efficiency "
                  f"{h['hybrid_efficiency']}")

    # no all run (the main job's file): nothing combined the devices, so no sum
    fig = plot.build_figure("devices", [plot.load_run(main_job_like(tmp))])
    for ax in fig.get_axes():
        what = f"devices sum, no all run, {ax.get_title()}"
        check(len(bar_labels(ax)) == 3, f"{what}: {len(bar_labels(ax))} bars (expected 3)")
        check(not line_labels(ax), f"{what}: lines {line_labels(ax)} (expected none)")

    # devices_ran 2 of three devices measured alone (a second, slower OpenCL device added to
    # the recording): the CPU and the faster OpenCL device, not the third
    size = top_size(MSM)
    def third(r):
        if not r["device"].startswith("cl:"):
            return [r]
        slow = dict(r, device="cl:0.1", points_per_s=r["points_per_s"] / 3, median_ms=r["median_ms"] * 3)
        return [r, slow]
    fig = plot.build_figure("devices", [plot.load_run(derived(tmp, "two_of_three", change=third))], log_n=size)
    for ax in fig.get_axes():
        what = f"devices sum, devices_ran 2 of 3, {ax.get_title()}"
        check(len(bar_labels(ax)) == 3, f"{what}: {len(bar_labels(ax))} bars (expected 3)")
        dashed = [lab for lab in line_labels(ax) if lab.startswith("sum of")]
        if check(len(dashed) == 1, f"{what}: sum lines {dashed}"):
            parts = sum_parts(dashed[0])
            check(sorted(p.split()[0] for p in parts) == ["cl:0.0", "cpu"], f"{what}: sums {parts}")
            check("2 of 3 devices ran" in dashed[0], f"{what}: the sum does not say how it chose: {dashed[0]}")

    # the same, the hybrid records naming the devices that ran (devices_used, as bench msm
    # writes them now): exactly those, the slower one included, and no note of a guess
    def third_named(r):
        if r["device"] == "all" and r["log_n"] == size:
            return [dict(r, devices_used=["cpu", "cl:0.1"])]
        return third(r)
    fig = plot.build_figure("devices", [plot.load_run(derived(tmp, "two_named", change=third_named))], log_n=size)
    for ax in fig.get_axes():
        what = f"devices sum, devices_used cpu and cl:0.1, {ax.get_title()}"
        dashed = [lab for lab in line_labels(ax) if lab.startswith("sum of")]
        if check(len(dashed) == 1, f"{what}: sum lines {dashed}"):
            parts = sum_parts(dashed[0])
            check(sorted(p.split()[0] for p in parts) == ["cl:0.1", "cpu"], f"{what}: sums {parts}")
            check("ran;" not in dashed[0] and "assumed" not in dashed[0], f"{what}: a guess is noted: {dashed[0]}")


def check_integer_ticks(ax, what):
    lo, hi = sorted(ax.get_xlim())
    shown = [t for t in ax.get_xticks() if lo <= t <= hi]
    check(shown and all(float(t).is_integer() for t in shown), f"{what}: x ticks {shown} (integers expected)")


def test_throughput_one_size(plot, tmp):
    """A throughput chart of one size (the main job measures one) has integer ticks only."""
    for path, op in ((MSM, "msm"), (NTT, "ntt")):
        size = top_size(path, op)
        one = derived(tmp, f"one_size_{op}", path=path, keep=lambda r: r.get("log_n") == size)
        fig = plot.build_figure("throughput", [plot.load_run(one)])
        for ax in fig.get_axes():
            check_integer_ticks(ax, f"throughput of 2^{size} alone ({op})")
            lo, hi = ax.get_xlim()
            check(lo <= size <= hi, f"throughput of 2^{size} alone ({op}): x range {lo}..{hi}")
    fig = plot.build_figure("throughput", [plot.load_run(MSM), plot.load_run(NTT)])
    for ax in fig.get_axes():
        check_integer_ticks(ax, f"throughput {ax.get_title()}")


def test_compare_linear(plot):
    """The compare chart's bars start at zero on a linear axis."""
    for files in ((MSM, MSM2), (G16, G16), (NTT, NTT)):
        fig = plot.build_figure("compare", [plot.load_run(p) for p in files])
        for ax in fig.get_axes():
            what = f"compare {' '.join(os.path.basename(p) for p in files)}, {ax.get_title()}"
            check(ax.get_xscale() == "linear", f"{what}: x scale {ax.get_xscale()}")
            check(ax.get_xlim()[0] == 0, f"{what}: the x axis starts at {ax.get_xlim()[0]}")
            bars = [b for c in ax.containers for b in c.patches]
            check(bars and all(b.get_x() == 0 and b.get_width() > 0 for b in bars),
                  f"{what}: bars that do not start at 0")
            check(max(b.get_width() for b in bars) < ax.get_xlim()[1], f"{what}: a bar runs past the axis")
            check("log" not in ax.get_xlabel(), f"{what}: x label {ax.get_xlabel()!r}")


def test_module(tmp):
    plot = load_module()
    check(plot.choose_kind("auto", [plot.load_run(G16)]) == "groth16", "auto: groth16 records")
    check(plot.choose_kind("auto", [plot.load_run(MSM), plot.load_run(MSM2)]) == "compare", "auto: two files")
    check(plot.choose_kind("auto", [plot.load_run(NTT)]) == "throughput", "auto: one file")
    work = os.path.join(tmp, "derived")
    os.mkdir(work)
    for test, args in ((test_throughput, ()), (test_devices, ()), (test_groth16, ()), (test_compare, ()),
                       (test_devices_legend, (work,)), (test_devices_sum, (work,)),
                       (test_throughput_one_size, (work,)), (test_compare_linear, ())):
        try:
            test(plot, *args)
        except Exception as e:  # noqa: BLE001 (report and go on)
            check(False, f"{test.__name__}: {type(e).__name__}: {e}")


# ---- errors ----

def write(path, text):
    with open(path, "w") as f:
        f.write(text)
    return path


def changed(path, version=None, drop=None):
    with open(MSM) as f:
        doc = json.load(f)
    if version is not None:
        doc["schema_version"] = version
    if drop:
        del doc[drop]
    return json.dumps(doc)


def expect_error(tmp, what, args, words, out=None):
    before = set(os.listdir(tmp))
    out = out or os.path.join(tmp, "error.png")
    r = run(["--out", out] + args if "--out" not in args else args)
    lines = r.stderr.strip().splitlines()
    check(r.returncode == 2, f"{what}: exit {r.returncode} (expected 2)")
    if check(len(lines) == 1, f"{what}: stderr is not one line: {r.stderr!r}"):
        check(all(w in lines[0] for w in words), f"{what}: message {lines[0]!r} lacks {words}")
    check(set(os.listdir(tmp)) == before, f"{what}: files left: {sorted(set(os.listdir(tmp)) - before)}")


def test_errors(tmp):
    work = os.path.join(tmp, "errors")
    os.mkdir(work)
    v2 = write(os.path.join(work, "v2.json"), changed(MSM, version=2))
    nov = write(os.path.join(work, "noversion.json"), changed(MSM, drop="schema_version"))
    noschema = write(os.path.join(work, "noschema.json"), changed(MSM, drop="schema"))
    other = write(os.path.join(work, "other.json"), json.dumps({"schema": "something-else", "schema_version": 1}))
    text = write(os.path.join(work, "text.json"), "median 12 ms\n")
    missing = os.path.join(work, "missing.json")
    expect_error(work, "unknown extension", ["--out", os.path.join(work, "x.pdf"), MSM], ["x.pdf", ".pdf"])
    expect_error(work, "no extension", ["--out", os.path.join(work, "x"), MSM], ["x"])
    expect_error(work, "schema_version 2", [v2], ["v2.json", "schema_version 2"])
    expect_error(work, "no schema_version", [nov], ["noversion.json", "schema_version"])
    expect_error(work, "no schema", [noschema], ["noschema.json", "schema"])
    expect_error(work, "another schema", [other], ["other.json", "something-else"])
    expect_error(work, "not JSON", [text], ["text.json", "not JSON"])
    expect_error(work, "missing file", [missing], ["missing.json"])
    expect_error(work, "second file bad", [MSM, v2], ["v2.json", "schema_version 2"])
    expect_error(work, "no groth16 records", ["--kind", "groth16", MSM], ["groth16", "msm_zen3.json"])
    expect_error(work, "no msm records", ["--kind", "throughput", G16], ["groth16_zen3.json"])
    expect_error(work, "devices at an unmeasured size", ["--kind", "devices", "--log-n", "40", MSM], ["40"])
    expect_error(work, "compare with one file", ["--kind", "compare", MSM], ["compare"])
    expect_error(work, "labels for each file", ["--label", "a", MSM, MSM2], ["label"])
    expect_error(work, "unknown kind", ["--kind", "pie", MSM], ["pie"])
    with open(MSM) as f:
        doc = json.load(f)
    doc["records"] = [dict(r, devices_used="cpu") if r.get("device") == "all" else r for r in doc["records"]]
    used = write(os.path.join(work, "used.json"), json.dumps(doc))
    expect_error(work, "devices_used not a list", ["--kind", "devices", used], ["used.json", "devices_used"])
    expect_error(work, "missing output folder", [MSM], ["nowhere"], out=os.path.join(work, "nowhere", "a.png"))
    # a failed run leaves an earlier picture as it was
    old = write(os.path.join(work, "old.png"), "an earlier picture")
    r = run(["--out", old, v2])
    with open(old) as f:
        check(r.returncode == 2 and f.read() == "an earlier picture", "a failed run replaced the earlier picture")
    check(not glob.glob(os.path.join(work, ".plot-*")), "errors: temporary files left")


def test_as_readme_runs_it(tmp):
    """bench/plot.py run as docs/cli.md runs it: by its own shebang (python3 first on PATH,
    which may lack matplotlib: the script then finds an interpreter that has it, or says in one
    line what to install)."""
    check(os.access(PLOT, os.X_OK), "bench/plot.py is executable")
    out = os.path.join(tmp, "shebang.png")
    r = subprocess.run([PLOT, MSM, "--out", out], capture_output=True, text=True, timeout=300)
    check((r.returncode == 0 and os.path.exists(out)) or
          (r.returncode == 2 and "matplotlib is missing" in r.stderr and len(r.stderr.strip().splitlines()) == 1),
          f"bench/plot.py by its shebang draws, or names what to install in one line (exit {r.returncode}: "
          f"{r.stderr.strip()[-200:]})")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_as_readme_runs_it(tmp)
        test_render(tmp)
        test_module(tmp)
        test_errors(tmp)
    print(f"{PASSED[0]} checks passed, {len(FAILED)} failed")
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
