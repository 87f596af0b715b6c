#!/usr/bin/env python3
"""Input tests for hyprove (issue 21): inputs that cannot hang or lie.

Usage: input_test.py PATH_TO_HYPROVE FIXTURE_DIR (tests/fixtures/bn128_2e10).
Every input the CLI opens, given as a FIFO, "-" (stdin), a directory, /dev/zero, a /proc
file and an empty file:
  - the zkey (mapped by the library): anything but a regular file is refused at once, saying
    what it is (a FIFO with no writer used to block forever);
  - the witness, the msm points and scalars, the ntt input and verify's JSON files: a FIFO
    (with a writer) and "-" are read as streams to their end and give the same result as a
    regular file; devices and directories are refused by name; a /proc file is read as the
    stream it is (never "0 bytes"); an empty file is "empty" (never the point at infinity).
And malformed environment knobs (HPR_CPU=bogus, HPR_CL_WORDS=bogus) are named with their
value. Each run has a 20 s timeout, so a hang fails the test instead of blocking it.
"""
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time

HYPROVE = os.path.abspath(sys.argv[1])
FIXTURE = os.path.abspath(sys.argv[2])
ZKEY = os.path.join(FIXTURE, "circuit.zkey")
WTNS = os.path.join(FIXTURE, "witness.wtns")
FAILED = []
PASSED = [0]
TIMEOUT = 20
LIES = (r"(?<![0-9])0 bytes", "9223372036854775807", "too large to load")  # regular expressions

# BN254: the generator (1, 2) in the interchange form (Montgomery, R = 2^256, little-endian)
Q = 0x30644E72E131A029B85045B68181585D97816A916871CA8D3C208C16D87CFD47  # the base field's prime


def mont(v):
    return (v * (1 << 256) % Q).to_bytes(32, "little")


G1 = mont(1) + mont(2)


class Result:
    def __init__(self, returncode, stdout, stderr, args):
        self.returncode, self.stdout, self.stderr, self.args = returncode, stdout, stderr, args


def run(args, stdin_data=None, env=None, stdin_path=None):
    """hyprove with args; a hang past TIMEOUT is a result with returncode None."""
    cmd = [HYPROVE] + list(args)
    stdin = open(stdin_path, "rb") if stdin_path else subprocess.DEVNULL
    try:
        res = subprocess.run(cmd, input=stdin_data, stdin=None if stdin_data is not None else stdin,
                             capture_output=True, timeout=TIMEOUT, env=dict(os.environ, **(env or {})))
        return Result(res.returncode, res.stdout, res.stderr.decode(errors="replace"), cmd)
    except subprocess.TimeoutExpired:
        return Result(None, b"", "(killed after %d s: it hung)" % TIMEOUT, cmd)
    finally:
        if stdin_path:
            stdin.close()


def describe(res):
    return "\n  command: %s\n  exit: %s\n  stderr: %r" % (" ".join(res.args), res.returncode, res.stderr)


def check(name, cond, res=None):
    if cond:
        PASSED[0] += 1
    else:
        FAILED.append(name)
        print("FAIL: %s%s" % (name, describe(res) if res else ""), flush=True)


def expect_error(name, res, code, *needles):
    """Exit code, one error line, the needles in it, and none of the old lies."""
    lines = res.stderr.strip().splitlines()
    check(name + " (exit %d)" % code, res.returncode == code, res)
    check(name + " (one error line)", len(lines) == 1 and lines[0].startswith("hyprove: error: "), res)
    for needle in needles:
        check(name + " (names %r)" % needle, needle in res.stderr, res)
    for lie in LIES:
        check(name + " (does not say %r)" % lie, not re.search(lie, res.stderr), res)


class Writer:
    """Writes data into the FIFO path once a reader opens it (a thread, given up after
    TIMEOUT: a reader that never comes does not hang the test)."""

    def __init__(self, path, data):
        self.path, self.data, self.opened = path, data, False
        self.thread = threading.Thread(target=self.write, daemon=True)
        self.thread.start()

    def write(self):
        deadline = time.monotonic() + TIMEOUT
        while time.monotonic() < deadline:
            try:
                fd = os.open(self.path, os.O_WRONLY | os.O_NONBLOCK)
            except OSError:  # ENXIO: no reader yet
                time.sleep(0.01)
                continue
            self.opened = True
            os.set_blocking(fd, True)
            try:
                view = memoryview(self.data)
                while view:
                    view = view[os.write(fd, view):]
            except BrokenPipeError:
                pass
            os.close(fd)
            return

    def join(self):
        self.thread.join(TIMEOUT + 5)


def fifo(tmp, name):
    path = os.path.join(tmp, name)
    if os.path.exists(path):
        os.unlink(path)
    os.mkfifo(path)
    return path


def write(path, data):
    with open(path, "wb") as fh:
        fh.write(data)


def bad_inputs(tmp):
    """(label, path, what the error says) for the inputs every loader refuses or reads as a
    stream that is not what it wants."""
    d = os.path.join(tmp, "a_directory")
    os.makedirs(d, exist_ok=True)
    e = os.path.join(tmp, "empty")
    write(e, b"")
    return [("directory", d, "is a directory"), ("/dev/zero", "/dev/zero", "is a character device"),
            ("empty file", e, "is empty")]


def test_zkey(tmp):
    f = fifo(tmp, "zkey.fifo")
    out = [os.path.join(tmp, "p.json"), os.path.join(tmp, "u.json")]
    res = run(["groth16", "prove", f, WTNS] + out + ["--devices", "cpu"])
    expect_error("zkey FIFO without a writer", res, 1, "zkey '%s' is a FIFO, not a regular file" % f)
    proc = [("/proc file", "/proc/self/status", "not a regular file of known size")]
    for label, path, says in bad_inputs(tmp) + proc:
        res = run(["groth16", "prove", path, WTNS] + out + ["--devices", "cpu"])
        expect_error("zkey %s" % label, res, 1, "zkey '%s'" % path, says)
    check("zkey: nothing written", not os.path.exists(out[0]) and not os.path.exists(out[1]))


def test_witness(tmp):
    want_public = open(os.path.join(FIXTURE, "public.json")).read()
    wtns = open(WTNS, "rb").read()

    def prove(path, name, **kw):
        out = [os.path.join(tmp, name + ".proof.json"), os.path.join(tmp, name + ".public.json")]
        res = run(["groth16", "prove", ZKEY, path] + out + ["--devices", "cpu"], **kw)
        ok = res.returncode == 0 and os.path.exists(out[1]) and open(out[1]).read() == want_public
        return res, ok

    f = fifo(tmp, "wtns.fifo")
    w = Writer(f, wtns)
    res, ok = prove(f, "fifo")
    w.join()
    check("witness from a FIFO: proved, public.json as snarkjs's", ok, res)
    res, ok = prove("-", "stdin", stdin_data=wtns)
    check("witness from stdin (-): proved", ok, res)
    w = Writer(f, b"")
    res, _ = prove(f, "fifo_empty")
    w.join()
    expect_error("witness from an empty FIFO", res, 1, "'%s' is empty" % f)
    for label, path, says in bad_inputs(tmp) + [("/proc file", "/proc/cpuinfo", "not a regular file of known size")]:
        res, _ = prove(path, "bad")
        expect_error("witness %s" % label, res, 1, "witness '%s'" % path, says)


def test_msm(tmp):
    points = G1 * 3
    scalars = b"".join(k.to_bytes(32, "little") for k in (3, 5, 11))
    pfile, sfile = os.path.join(tmp, "points"), os.path.join(tmp, "scalars")
    write(pfile, points)
    write(sfile, scalars)
    base = ["msm", "--curve", "bn254", "--device", "cpu", "--threads", "1"]
    want = run(base + ["--points", pfile, "--scalars", sfile])
    check("msm from regular files", want.returncode == 0 and want.stdout.startswith(b'["'), want)
    pf, sf = fifo(tmp, "points.fifo"), fifo(tmp, "scalars.fifo")
    writers = [Writer(pf, points), Writer(sf, scalars)]
    res = run(base + ["--points", pf, "--scalars", sf])
    for w in writers:
        w.join()
    check("msm from two FIFOs: the same point", res.returncode == 0 and res.stdout == want.stdout, res)
    res = run(base + ["--points", "-", "--scalars", sfile], stdin_data=points)
    check("msm points from stdin (-): the same point", res.returncode == 0 and res.stdout == want.stdout, res)
    for label, path, says in bad_inputs(tmp):
        res = run(base + ["--points", path, "--scalars", sfile])
        expect_error("msm points %s" % label, res, 1, "'%s' %s" % (path, says))
        res = run(base + ["--points", pfile, "--scalars", path])
        expect_error("msm scalars %s" % label, res, 1, "'%s' %s" % (path, says))
    # /proc files are streams of text: read, and refused for what they hold
    res = run(base + ["--points", "/proc/cpuinfo", "--scalars", sfile])
    expect_error("msm points /proc/cpuinfo", res, 1, "/proc/cpuinfo", "not a whole number of bn254 G1 points")
    # stdin that is a device: refused, not read forever
    res = run(base + ["--points", "-", "--scalars", sfile], stdin_path="/dev/zero")
    expect_error("msm points from stdin = /dev/zero", res, 1, "(stdin) is a character device")


def test_ntt(tmp):
    data = b"".join(v.to_bytes(8, "little") for v in (1, 2, 3, 4, 5, 6, 7, 8))
    infile, out = os.path.join(tmp, "ntt.in"), os.path.join(tmp, "ntt.out")
    write(infile, data)
    base = ["ntt", "--field", "goldilocks", "--threads", "1", "--device", "cpu"]
    res = run(base + ["--in", infile, "--out", out])
    check("ntt from a regular file", res.returncode == 0, res)
    want = open(out, "rb").read()
    f = fifo(tmp, "ntt.fifo")
    w = Writer(f, data)
    res = run(base + ["--in", f, "--out", out + ".fifo"])
    w.join()
    check("ntt from a FIFO: the same output", res.returncode == 0 and open(out + ".fifo", "rb").read() == want, res)
    res = run(base + ["--in", "-", "--out", out + ".stdin"], stdin_data=data)
    check("ntt from stdin (-): the same output",
          res.returncode == 0 and open(out + ".stdin", "rb").read() == want, res)
    for label, path, says in bad_inputs(tmp):
        res = run(base + ["--in", path, "--out", out + ".bad"])
        expect_error("ntt in %s" % label, res, 1, "'%s' %s" % (path, says))
        check("ntt in %s: nothing written" % label, not os.path.exists(out + ".bad"))
    res = run(base + ["--in", "/proc/self/status", "--out", out + ".bad"])
    expect_error("ntt in /proc/self/status", res, 1, "/proc/self/status", "are not")


def test_verify(tmp):
    vk, pub, proof = (os.path.join(FIXTURE, n) for n in ("verification_key.json", "public.json", "proof_r0s0.json"))
    res = run(["groth16", "verify", vk, pub, proof])
    check("verify from regular files", res.returncode == 0, res)
    f = fifo(tmp, "vk.fifo")
    w = Writer(f, open(vk, "rb").read())
    res = run(["groth16", "verify", f, pub, proof])
    w.join()
    check("verify with the key from a FIFO", res.returncode == 0 and b"OK" in res.stdout, res)
    for label, path, says in bad_inputs(tmp):
        res = run(["groth16", "verify", vk, path, proof])
        expect_error("verify public %s" % label, res, 1, "'%s' %s" % (path, says))


def test_environment(tmp):
    for args in (["msm", "--curve", "bn254", "--log-n", "2", "--device", "cpu"],
                 ["ntt", "--field", "goldilocks", "--in", "/dev/null", "--out", os.path.join(tmp, "x")],
                 ["groth16", "prove", ZKEY, WTNS, os.path.join(tmp, "e.json"), os.path.join(tmp, "f.json")]):
        res = run(args, env={"HPR_CPU": "bogus"})
        expect_error("HPR_CPU=bogus: %s" % args[0], res, 1, "HPR_CPU", "'bogus'", "unknown CPU tier")
        res = run(args, env={"HPR_CL_WORDS": "bogus"})
        expect_error("HPR_CL_WORDS=bogus: %s" % args[0], res, 1, "HPR_CL_WORDS='bogus'",
                     "standard, int128, limb32 or ptx")


def main():
    tmp = tempfile.mkdtemp(prefix="hpr_input_")
    try:
        for test in (test_zkey, test_witness, test_msm, test_ntt, test_verify, test_environment):
            test(tmp)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    print("%d checks passed, %d failed" % (PASSED[0], len(FAILED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
