#!/usr/bin/env python3
"""`hyprove commit` against the independent Python oracle (tests/poseidon2_ref.py).

Usage: commit_test.py PATH_TO_HYPROVE. Random matrices (seeded; HPR_TEST_SEED sets the seed,
printed on failure) of both fields are committed at rate 1 (--no-lde), 2, 4 and 8, without a
shift and with the field's generator, on the devices cpu and all, and cl:0.0 when `hyprove
devices` lists an OpenCL device. Every root must equal the oracle's, every opening the oracle's
row and a path that recomputes the root. Then the errors: a missing input, a file of the wrong
size, an element >= p (named in the message), --rate 3, an unknown field, an output folder that
does not exist; a failed commit leaves no output file behind.
"""
import json
import os
import random
import re
import struct
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.dirname(os.path.abspath(__file__))))  # tests/: poseidon2_ref.py
import poseidon2_ref as ref  # noqa: E402

HYPROVE = sys.argv[1] if len(sys.argv) > 1 else None
SEED = int(os.environ.get("HPR_TEST_SEED", random.SystemRandom().randrange(1 << 32)))
FAILED = []
PASSED = [0]


def check(name, cond, detail=""):
    if cond:
        PASSED[0] += 1
    else:
        FAILED.append(name)
        print("FAIL: %s %s" % (name, str(detail)[:2000]))


def run(*args):
    return subprocess.run([HYPROVE, *args], capture_output=True, text=True, timeout=600)


def write_matrix(path, data):
    with open(path, "wb") as fh:
        fh.write(struct.pack("<%dI" % len(data), *data))


def expect_error(name, res, code, *needles):
    lines = res.stderr.strip().splitlines()
    check(name + " (exit %d)" % code, res.returncode == code, "got %d: %s" % (res.returncode, res.stderr))
    check(name + " (one error line)", len(lines) == 1 and lines[0].startswith("hyprove: error: "), res.stderr)
    for needle in needles:
        check(name + " (names %r)" % needle, needle in res.stderr, res.stderr)


def opencl_devices():
    res = run("devices", "--prepare", "none")
    return ["cl:0.0"] if res.returncode == 0 and re.search(r"^cl:0\.0\b", res.stdout, re.M) else []


def commit_args(field, log_n, rate, columns, path, shift, device, out):
    args = ["commit", "--field", field, "--log-n", str(log_n), "--columns", str(columns), "--in", path,
            "--device", device, "--out", out]
    args += ["--no-lde"] if rate == 1 else ["--rate", str(rate)]
    if shift is not None:
        args += ["--shift", str(shift)]
    return args


def check_document(name, doc, field, log_n, rate, columns, shift, root):
    expect = {"field": field, "hash": "poseidon2-%s-16" % field, "log_n": log_n, "rate": rate,
              "columns": columns, "rows": rate << log_n, "shift": str(shift or 1)}
    for key, value in expect.items():
        check("%s: %s" % (name, key), doc.get(key) == value, "got %r, expected %r" % (doc.get(key), value))
    check("%s: root equals the oracle's" % name, doc.get("root") == root, "got %r, oracle %r" % (doc.get("root"), root))


def check_openings(name, doc, field, rows, levels, opened):
    ident = ref.HASH_INSTANCE[field]
    root = levels[-1][0]
    got = doc.get("openings")
    check(name + ": one opening per row asked", isinstance(got, list) and [o.get("row") for o in got] == opened,
          got)
    for o in got or []:
        r = o.get("row")
        if not isinstance(r, int) or not 0 <= r < len(rows):
            continue
        check("%s: row %d values" % (name, r), o.get("values") == rows[r], "got %r, oracle %r" % (o.get("values"), rows[r]))
        check("%s: row %d path" % (name, r), o.get("path") == ref.merkle_open(levels, r), o.get("path"))
        path = o.get("path") or []
        ok = (len(path) == len(levels) - 1 and all(isinstance(d, list) and len(d) == 8 for d in path)
              and ref.merkle_verify(ident, root, r, o.get("values") or [], path))
        check("%s: row %d path recomputes the root" % (name, r), ok)


def commit_cases(rng):
    """(field, log_n, rate, columns, shift) of each random case: every field, rate and shift;
    sizes up to log_n 8 and 33 columns, kept to at most 2^11 committed rows."""
    widths = [1, 7, 8, 9, 16, 17, 24, 33]
    cases = []
    for field in ("koalabear", "babybear"):
        g = ref.FIELDS[field]["g"]
        p = ref.FIELDS[field]["p"]
        cases.append((field, 0, 1, rng.choice(widths), None))
        cases.append((field, 8, 1, rng.randint(1, 33), None))
        for rate in (2, 4, 8):
            for shift in (None, g):
                log_n = rng.randint(1, 8 if rate == 2 else 11 - rate.bit_length())
                cases.append((field, log_n, rate, rng.choice(widths + [rng.randint(1, 33)]), shift))
        cases.append((field, rng.randint(1, 5), 2, rng.randint(1, 33), rng.randrange(2, p)))
        cases.append((field, 8, 8, rng.randint(1, 3), None))
    return cases


def test_commits(tmp, rng, devices):
    for k, (field, log_n, rate, columns, shift) in enumerate(commit_cases(rng)):
        p = ref.FIELDS[field]["p"]
        data = [rng.randrange(p) for _ in range((1 << log_n) * columns)]
        if k % 3 == 0:  # the edges of the field in a few places
            for i in rng.sample(range(len(data)), min(3, len(data))):
                data[i] = rng.choice([0, 1, p - 1])
        path = os.path.join(tmp, "m%d.bin" % k)
        write_matrix(path, data)
        rows, levels = ref.commit_tree(field, log_n, rate, columns, data, shift or 1)
        root = levels[-1][0]
        nrows = len(rows)
        opened = sorted({0, nrows - 1, rng.randrange(nrows)})
        for device in devices:
            name = "%s log_n %d rate %d columns %d shift %s on %s" % (field, log_n, rate, columns, shift, device)
            out = os.path.join(tmp, "root%d-%s.json" % (k, device.replace(":", "_")))
            args = commit_args(field, log_n, rate, columns, path, shift, device, out)
            if device == "cpu":
                args += ["--open", ",".join(map(str, opened))]
            res = run(*args)
            check(name + ": exit 0", res.returncode == 0, res.stderr)
            check(name + ": no warning (no device dropped)", "warning" not in res.stderr, res.stderr)
            if res.returncode != 0:
                continue
            try:
                with open(out) as fh:
                    doc = json.load(fh)
            except (OSError, ValueError) as exc:
                check(name + ": root.json readable", False, exc)
                continue
            check_document(name, doc, field, log_n, rate, columns, shift, root)
            if device == "cpu":
                check_openings(name, doc, field, rows, levels, opened)
            else:
                check(name + ": no openings unless asked", "openings" not in doc, doc)


def test_errors(tmp):
    p = ref.KOALABEAR_P
    log_n, columns = 3, 2
    good = os.path.join(tmp, "good.bin")
    write_matrix(good, [(7 * i) % p for i in range(columns << log_n)])
    outdir = os.path.join(tmp, "errors")
    os.mkdir(outdir)
    out = os.path.join(outdir, "root.json")

    def base(**over):
        opts = {"--field": "koalabear", "--log-n": str(log_n), "--rate": "2", "--columns": str(columns),
                "--in": good, "--out": out}
        opts.update(over)
        args = ["commit"]
        for key, value in opts.items():
            args += [key, value]
        return args

    missing = os.path.join(tmp, "does-not-exist.bin")
    expect_error("missing --in file", run(*base(**{"--in": missing})), 1, missing)
    short = os.path.join(tmp, "short.bin")
    write_matrix(short, [1] * ((columns << log_n) - 1))
    expect_error("file of the wrong size", run(*base(**{"--in": short})), 1, short)
    bad = os.path.join(tmp, "bad.bin")
    data = [(7 * i) % p for i in range(columns << log_n)]
    index = (1 << log_n) + 5  # column 1, row 5
    data[index] = p
    write_matrix(bad, data)
    res = run(*base(**{"--in": bad}))
    expect_error("element >= p", res, 1)
    check("element >= p: the message names the element",
          re.search(r"\b%d\b" % index, res.stderr) or (re.search(r"\brow 5\b", res.stderr)
                                                         and re.search(r"\bcolumn 1\b", res.stderr)), res.stderr)
    expect_error("--rate 3", run(*base(**{"--rate": "3"})), 2, "--rate")
    expect_error("unknown field", run(*base(**{"--field": "goldilocks2"})), 2, "goldilocks2")
    check("failed commits leave nothing in the output folder", os.listdir(outdir) == [], os.listdir(outdir))
    nowhere = os.path.join(tmp, "no-such-folder")
    res = run(*base(**{"--out": os.path.join(nowhere, "root.json")}))
    expect_error("--out into a missing folder", res, 1, nowhere)
    check("--out into a missing folder creates nothing", not os.path.exists(nowhere))
    res = run(*base(**{"--open": str(2 << log_n)}))
    check("--open past the last row fails", res.returncode != 0 and str(2 << log_n) in res.stderr, res.stderr)
    check("a refused --open leaves nothing behind", os.listdir(outdir) == [], os.listdir(outdir))
    res = run(*base())
    check("the same arguments succeed", res.returncode == 0 and os.path.exists(out), res.stderr)
    check("a successful commit leaves only root.json", os.listdir(outdir) == ["root.json"], os.listdir(outdir))


def main():
    if HYPROVE is None:
        print(__doc__, file=sys.stderr)
        return 2
    check("the oracle's self-test", ref.self_test(verbose=False))
    rng = random.Random(SEED)
    devices = ["cpu", "all"] + opencl_devices()
    check("OpenCL device required here (HPR_CI_REQUIRE) is listed", "cl:0.0" in devices
          or "opencl" not in os.environ.get("HPR_CI_REQUIRE", "").split(","), "hyprove devices lists no cl:0.0")
    with tempfile.TemporaryDirectory(prefix="hpr-commit-") as tmp:
        test_commits(tmp, rng, devices)
        test_errors(tmp)
    print("commit_test: %d passed, %d failed (devices %s; HPR_TEST_SEED=%d)"
          % (PASSED[0], len(FAILED), ",".join(devices), SEED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
