#!/usr/bin/env python3
"""One exit-status convention for every command (docs/cli.md, "Exit status"; issue 46 item 8).

  0  done; for a check (groth16 verify, commit verify): it verifies
  1  the command could not do its work: an input missing, unreadable or malformed, an output,
     memory, a device
  2  a usage error: the command line itself
  3  a check ran and the answer is no (groth16 verify, commit verify)

Each class is checked on several commands. A status 1 or 2 comes with exactly one
"hyprove: error:" line; a status 3 with a "does not verify" or "invalid proof" line and no error
line; a status 0 of a check with "OK" on stdout.

usage: exit_status_test.py HYPROVE SOURCE_DIR
"""
import json
import os
import struct
import subprocess
import sys
import tempfile

HYPROVE, SOURCE = sys.argv[1], sys.argv[2]
FIXTURE = os.path.join(SOURCE, "tests", "fixtures", "bn128_2e10")
R1CS = os.path.join(SOURCE, "tests", "fixtures", "edge_pub", "circuit.r1cs")
VK, PUBLIC, PROOF = (os.path.join(FIXTURE, n) for n in ("verification_key.json", "public.json", "proof_r0s0.json"))
BN254_P = 21888242871839275222246405745257275088696311157297823662689037894645226208583
failures = []


def run(args, **kw):
    return subprocess.run([HYPROVE] + args, capture_output=True, text=True, timeout=300, **kw)


def check(cond, what, r=None):
    detail = "" if r is None else f"\n  command: {' '.join(r.args)}\n  exit: {r.returncode}\n  stderr: {r.stderr[-600:]!r}"
    print(("ok   " if cond else "FAIL ") + what + ("" if cond else detail), flush=True)
    if not cond:
        failures.append(what)


def expect(code, what, args, needle="", **kw):
    r = run(args, **kw)
    errors = [line for line in r.stderr.splitlines() if line.startswith("hyprove: error:")]
    if code in (1, 2):
        shape = len(errors) == 1 and needle in errors[0]
    elif code == 3:
        shape = not errors and ("does not verify" in r.stderr or "invalid proof" in r.stderr)
    else:
        shape = not errors
    check(r.returncode == code and shape, f"exit {code}: {what}", r)
    return r


def write(tmp, name, data):
    path = os.path.join(tmp, name)
    with open(path, "wb" if isinstance(data, bytes) else "w") as fh:
        fh.write(data)
    return path


def usage_errors(tmp):
    out = os.path.join(tmp, "out")
    expect(2, "an unknown command", ["frobnicate"], "frobnicate")
    expect(2, "an unknown option before the command", ["--bogus", "msm"], "--bogus")
    expect(2, "msm without inputs", ["msm", "--curve", "bn254"], "--points")
    expect(2, "ntt without --out", ["ntt", "--field", "babybear", "--in", PROOF], "--out")
    expect(2, "groth16 verify with two files", ["groth16", "verify", VK, PUBLIC], "2 given")
    expect(2, "groth16 setup without --insecure-dev", ["groth16", "setup", R1CS, out], "--insecure-dev")
    expect(2, "groth16 prove with the same output twice",
           ["groth16", "prove", os.path.join(FIXTURE, "circuit.zkey"), os.path.join(FIXTURE, "witness.wtns"), out,
            out], out)
    expect(2, "commit verify without a file", ["commit", "verify"], "FILE")
    expect(2, "commit with --threads above the cap",
           ["commit", "--field", "koalabear", "--log-n", "1", "--no-lde", "--columns", "1", "--in", PROOF, "--out",
            out, "--threads", "99999"], "--threads")


def unreadable_inputs(tmp):
    missing = os.path.join(tmp, "missing")
    out = os.path.join(tmp, "out")
    expect(1, "msm with a missing points file",
           ["msm", "--curve", "bn254", "--points", missing, "--scalars", missing, "--device", "cpu"], missing)
    expect(1, "ntt with a missing input", ["ntt", "--field", "babybear", "--in", missing, "--out", out], missing)
    expect(1, "commit with a missing input",
           ["commit", "--field", "koalabear", "--log-n", "1", "--no-lde", "--columns", "1", "--in", missing, "--out",
            out], missing)
    expect(1, "groth16 verify with a missing public file", ["groth16", "verify", VK, missing, PROOF], missing)
    expect(1, "groth16 verify with a folder as its key", ["groth16", "verify", tmp, PUBLIC, PROOF], tmp)
    expect(1, "groth16 setup with a missing r1cs", ["groth16", "setup", "--insecure-dev", missing, out], missing)
    expect(1, "groth16 prove with a missing zkey",
           ["groth16", "prove", missing, os.path.join(FIXTURE, "witness.wtns"), out, out + "2"], missing)
    expect(1, "commit verify with a missing file", ["commit", "verify", missing], missing)
    check(not os.path.exists(out), "nothing written by the failed commands")


def malformed_inputs(tmp):
    out = os.path.join(tmp, "out")
    short = write(tmp, "short.bin", b"\1" * 10)
    expect(1, "msm with points of a size no point count gives",
           ["msm", "--curve", "bn254", "--points", short, "--scalars", short, "--device", "cpu"], short)
    big = write(tmp, "big.bin", struct.pack("<I", 0xffffffff))
    expect(1, "ntt with an element >= p", ["ntt", "--field", "babybear", "--in", big, "--out", out], "")
    cut = write(tmp, "cut.json", '{"pi_a": [1, 2')
    expect(1, "groth16 verify with a proof that is not JSON", ["groth16", "verify", VK, PUBLIC, cut], "byte")
    proof = json.load(open(PROOF))
    off = write(tmp, "off.json", json.dumps(dict(proof, pi_a=[str(int(proof["pi_a"][0]) + 1), proof["pi_a"][1], "1"])))
    expect(1, "groth16 verify with a point off its curve", ["groth16", "verify", VK, PUBLIC, off], "not on the")
    r1cs = open(R1CS, "rb").read()
    expect(1, "groth16 setup with a truncated r1cs",
           ["groth16", "setup", "--insecure-dev", write(tmp, "cut.r1cs", r1cs[:-7]), out], "past the end")
    empty = write(tmp, "list.txt", "# no witness here\n")
    os.mkdir(os.path.join(tmp, "outdir"))
    expect(1, "groth16 prove-batch with a list that names no witness",
           ["groth16", "prove-batch", os.path.join(FIXTURE, "circuit.zkey"), empty, os.path.join(tmp, "outdir")],
           "names no witness")
    expect(1, "commit verify with a file that is not JSON",
           ["commit", "verify", write(tmp, "notjson.json", "{")], "not JSON")
    check(not os.path.exists(out), "nothing written by the failed commands")


def commitment(tmp):
    """A real commitment with two openings: (root.json path, its document)."""
    matrix = write(tmp, "matrix.bin", struct.pack("<32I", *range(1, 33)))
    root = os.path.join(tmp, "root.json")
    r = run(["commit", "--field", "koalabear", "--log-n", "4", "--no-lde", "--columns", "2", "--in", matrix, "--out",
             root, "--open", "1,9"])
    check(r.returncode == 0, "commit writes root.json with openings", r)
    return root, json.load(open(root)) if r.returncode == 0 else {}


def checks(tmp):
    r = expect(0, "groth16 verify of a valid proof", ["groth16", "verify", VK, PUBLIC, PROOF])
    check(r.stdout.startswith("OK"), "groth16 verify says OK", r)
    public = json.load(open(PUBLIC))
    changed = write(tmp, "public.json", json.dumps([str((int(public[0]) + 1) % BN254_P)] + public[1:]))
    expect(3, "groth16 verify of a proof with a public signal changed", ["groth16", "verify", VK, changed, PROOF])
    neg = json.load(open(PROOF))
    neg["pi_a"] = [neg["pi_a"][0], str(BN254_P - int(neg["pi_a"][1])), "1"]
    expect(3, "groth16 verify of -A for A", ["groth16", "verify", VK, PUBLIC, write(tmp, "neg.json", json.dumps(neg))])
    root, doc = commitment(tmp)
    if not doc:
        return
    r = expect(0, "commit verify of real openings", ["commit", "verify", root])
    check(r.stdout.startswith("OK"), "commit verify says OK", r)
    doc["openings"][0]["values"][1] = (doc["openings"][0]["values"][1] + 1) % 0x7f000001
    expect(3, "commit verify of an opening with a value changed",
           ["commit", "verify", write(tmp, "tampered.json", json.dumps(doc))])


def main():
    with tempfile.TemporaryDirectory(prefix="hpr-exit-") as tmp:
        usage_errors(tmp)
        unreadable_inputs(tmp)
        malformed_inputs(tmp)
        checks(tmp)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
