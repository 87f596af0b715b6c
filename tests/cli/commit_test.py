#!/usr/bin/env python3
"""`hyprove commit` against the independent Python oracle (tests/poseidon2_ref.py).

Usage: commit_test.py PATH_TO_HYPROVE. Random matrices (seeded; HPR_TEST_SEED sets the seed,
printed on failure) of both fields are committed at rate 1 (--no-lde), 2, 4 and 8, without a
shift and with the field's generator, on the devices cpu and all, and cl:0.0 when `hyprove
devices` lists an OpenCL device. Every root must equal the oracle's, every opening the oracle's
row and a path that recomputes the root. Then the errors: a missing input, a file of the wrong
size, an element >= p (named in the message), --rate 3, an unknown field, an output folder that
does not exist; a failed commit leaves no output file behind. Last, `commit verify`: a real
commitment's openings verify against their own root and against the root file written without
--open; a tampered value, path element, row or root, and another commitment's root, each exit
3 naming the opening; malformed files exit 1 naming the member, bad arguments 2.
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


def verify(path, *more):
    return run("commit", "verify", path, *more)


def expect_not_verified(name, res, *needles):
    check(name + " (exit 3)", res.returncode == 3, "got %d: %s" % (res.returncode, res.stderr))
    check(name + " (says so, no error line)", "does not verify" in res.stderr and "error" not in res.stderr
          and "OK" not in res.stdout, res.stderr)
    for needle in needles:
        check(name + " (names %r)" % needle, needle in res.stderr, res.stderr)


def commit_file(tmp, name, data, log_n, columns, *more):
    src, out = os.path.join(tmp, name + ".bin"), os.path.join(tmp, name + ".json")
    write_matrix(src, data)
    res = run("commit", "--field", "babybear", "--log-n", str(log_n), "--rate", "2", "--columns", str(columns),
              "--in", src, "--out", out, *more)
    check("commit " + name, res.returncode == 0, res.stderr)
    return out


def test_verify_tampered(tmp, doc, root_only):
    """Each change to a verifying file: exit 3, the opening named."""
    p, rows = ref.BABYBEAR_P, doc["rows"]

    def tampered(name, change):
        d = json.loads(json.dumps(doc))
        change(d)
        path = os.path.join(tmp, name + ".json")
        with open(path, "w") as fh:
            json.dump(d, fh)
        return path

    def bump(lst, i):
        lst[i] = (lst[i] + 1) % p

    expect_not_verified("a tampered value", verify(tampered("value", lambda d: bump(d["openings"][1]["values"], 2))),
                        "openings[1] (row %d)" % doc["openings"][1]["row"])
    expect_not_verified("a tampered path element",
                        verify(tampered("pathel", lambda d: bump(d["openings"][0]["path"][2], 7))), "openings[0]")
    other = (doc["openings"][0]["row"] + 1) % rows
    expect_not_verified("a wrong row", verify(tampered("row", lambda d: d["openings"][0].update(row=other))),
                        "(row %d)" % other)
    res = verify(tampered("root", lambda d: bump(d["root"], 0)))
    expect_not_verified("a wrong root", res, "openings[0]", "openings[1]", "2 of 2")
    res = verify(tampered("root2", lambda d: bump(d["root"], 0)), "--root", root_only)
    check("--root: the trusted root replaces the file's own (a tampered root in FILE is not used)",
          res.returncode == 0 and res.stdout.startswith("OK"), res.stderr)


def test_verify_malformed(tmp, doc):
    """A file that is not a root.json with openings: exit 1, one error line naming the member."""
    def write(name, text):
        path = os.path.join(tmp, name + ".json")
        with open(path, "w") as fh:
            fh.write(text)
        return path

    def changed(name, change):
        d = json.loads(json.dumps(doc))
        change(d)
        return write(name, json.dumps(d))

    p = ref.BABYBEAR_P
    expect_error("verify: not JSON", verify(write("notjson", '{"field": "babybear",')), 1, "not JSON", "byte")
    dup = json.dumps(doc)[:-1] + ', "root": %s}' % json.dumps(doc["root"])
    expect_error("verify: a member repeated", verify(write("dup", dup)), 1, "repeated")
    expect_error("verify: no openings", verify(changed("noopen", lambda d: d.pop("openings"))), 1, "openings")
    expect_error("verify: an unknown field", verify(changed("field", lambda d: d.update(field="goldilocks"))), 1,
                 "field", "goldilocks")
    expect_error("verify: another hash", verify(changed("hash", lambda d: d.update(hash="sha256"))), 1, "hash")
    expect_error("verify: rows not a power of two", verify(changed("rows", lambda d: d.update(rows=12))), 1, "rows")
    expect_error("verify: a short values array",
                 verify(changed("short", lambda d: d["openings"][0]["values"].pop())), 1, "openings[0].values")
    expect_error("verify: an element >= p",
                 verify(changed("big", lambda d: d["openings"][1]["path"][3].__setitem__(5, p))), 1,
                 "openings[1].path[3][5]", str(p))
    expect_error("verify: a path one level short",
                 verify(changed("depth", lambda d: d["openings"][0]["path"].pop())), 1, "openings[0].path")
    expect_error("verify: a row past the last",
                 verify(changed("past", lambda d: d["openings"][0].update(row=doc["rows"]))), 1, "openings[0].row")
    expect_error("verify: a value as a string",
                 verify(changed("str", lambda d: d["openings"][0]["values"].__setitem__(0, "5"))), 1,
                 "openings[0].values[0]")
    expect_error("verify: a root of 7", verify(changed("root7", lambda d: d["root"].pop())), 1, "root")
    missing = os.path.join(tmp, "missing.json")
    expect_error("verify: a missing file", verify(missing), 1, missing)
    expect_error("verify: no file", run("commit", "verify"), 2, "FILE")
    expect_error("verify: two files", run("commit", "verify", missing, missing), 2, "unexpected argument")
    expect_error("verify: an unknown option", run("commit", "verify", missing, "--rows", "3"), 2, "--rows")


def test_verify(tmp, rng):
    log_n, columns = 4, 11  # 32 committed rows: a depth-5 path; 11 columns: two sponge chunks
    p = ref.BABYBEAR_P
    data = [rng.randrange(p) for _ in range(columns << log_n)]
    rows = [0, 13, 31]
    opened = commit_file(tmp, "opened", data, log_n, columns, "--open", ",".join(map(str, rows)))
    root_only = commit_file(tmp, "rootonly", data, log_n, columns)
    res = verify(opened)
    check("commit verify: a real commitment's openings verify (exit 0, OK)",
          res.returncode == 0 and res.stdout.startswith("OK: 3 opening(s) verify") and res.stderr == "", res)
    res = verify(opened, "--root", root_only)
    check("commit verify --root: they verify against the root written without --open", res.returncode == 0, res)
    with open(opened) as fh:
        doc = json.load(fh)
    res = subprocess.run([HYPROVE, "commit", "verify", "-"], input=json.dumps(doc), capture_output=True, text=True)
    check("commit verify - reads stdin", res.returncode == 0, res)
    other = commit_file(tmp, "other", [(x + 1) % p for x in data], log_n, columns)
    expect_not_verified("another commitment's root (--root)", verify(opened, "--root", other), "openings[0]")
    wide = commit_file(tmp, "wide", data + data[:1 << log_n], log_n, columns + 1)
    expect_not_verified("--root of a commitment of another shape", verify(opened, "--root", wide), "columns")
    two = dict(doc, openings=doc["openings"][:2])
    test_verify_tampered(tmp, two, root_only)
    test_verify_malformed(tmp, two)


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
        test_verify(tmp, rng)
    print("commit_test: %d passed, %d failed (devices %s; HPR_TEST_SEED=%d)"
          % (PASSED[0], len(FAILED), ",".join(devices), SEED))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
