#!/usr/bin/env python3
"""CLI tests for hyprove: arguments, files, errors, atomic outputs, bench JSON.

Usage: cli_test.py PATH_TO_HYPROVE. Expected values are computed here independently with
Python integers (affine formulas), not by hyprove.
"""
import json
import os
import subprocess
import sys
import tempfile

HYPROVE = sys.argv[1]
FAILED = []
PASSED = [0]

CURVES = {
    "bn254": dict(
        p=21888242871839275222246405745257275088696311157297823662689037894645226208583,
        r=21888242871839275222246405745257275088548364400416034343698204186575808495617,
        b=3, size=32, g=(1, 2)),
    "bls12-381": dict(
        p=0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab,
        r=0x73eda753299d7d483339d80809a1d80553bda402fffe5bfeffffffff00000001,
        b=4, size=48,
        g=(0x17f1d3a73197d7942695638c4fa9ac0fc3688c4f9774b905a14e3a3f171bac586c55e83ff97a1aeffb3af00adb22c6bb,
           0x08b3f481e3aaa0f1a09e30ed741d8ae4fcf5e095d5d00af600db18cb2c04b3edd03cc744a2888ae40caa232946c5e7e1)),
}


def ec_add(c, a, b):
    p = c["p"]
    if a is None:
        return b
    if b is None:
        return a
    if a[0] == b[0]:
        if (a[1] + b[1]) % p == 0:
            return None
        lam = 3 * a[0] * a[0] * pow(2 * a[1], -1, p) % p
    else:
        lam = (b[1] - a[1]) * pow(b[0] - a[0], -1, p) % p
    x = (lam * lam - a[0] - b[0]) % p
    return (x, (lam * (a[0] - x) - a[1]) % p)


def ec_mul(c, k, pt):
    acc = None
    for bit in bin(k)[2:]:
        acc = ec_add(c, acc, acc)
        if bit == "1":
            acc = ec_add(c, acc, pt)
    return acc


def encode_point(c, pt):
    if pt is None:
        return bytes(2 * c["size"])
    rr = pow(2, 8 * c["size"], c["p"])
    return b"".join((v * rr % c["p"]).to_bytes(c["size"], "little") for v in pt)


def run(*args, env=None):
    full_env = dict(os.environ, **(env or {}))
    return subprocess.run([HYPROVE, *args], capture_output=True, text=True, timeout=600, env=full_env)


def check(name, cond, detail=""):
    if cond:
        PASSED[0] += 1
    else:
        FAILED.append(name)
        print("FAIL: %s %s" % (name, detail))


def expect_error(name, res, code, *needles):
    lines = res.stderr.strip().splitlines()
    check(name + " (exit %d)" % code, res.returncode == code, "got %d: %s" % (res.returncode, res.stderr))
    check(name + " (one error line)", len(lines) == 1 and lines[0].startswith("hyprove: error: "), res.stderr)
    for needle in needles:
        check(name + " (names %r)" % needle, needle in res.stderr, res.stderr)


META_KEYS = {"hyprove_version", "date", "hostname", "cpu_model", "cpu_tier", "cores", "threads", "opencl_devices"}


def bench_records(fh):
    """The records of a bench JSON file, after checking its envelope: schema, version, command
    and run metadata (docs/cli.md, "JSON output")."""
    doc = json.load(fh)
    check("bench json envelope", doc.get("schema") == "hyprove-bench" and doc.get("schema_version") == 1
          and doc.get("command", "").startswith("bench ") and META_KEYS <= set(doc.get("meta", {})), doc)
    return doc.get("records", [])


def json_point(pt):
    return ["0", "1", "0"] if pt is None else [str(pt[0]), str(pt[1]), "1"]


def test_help_and_usage():
    for args in (["--help"], ["msm", "--help"], ["bench", "--help"], ["bench", "msm", "--help"], ["devices", "--help"],
                 ["calibrate", "--help"]):
        res = run(*args)
        check("help %s" % args, res.returncode == 0 and "usage" in res.stdout, res.stderr)
    res = run("devices")
    check("devices", res.returncode == 0 and "cpu" in res.stdout and "avx512ifma" in res.stdout, res.stdout)
    expect_error("unknown command", run("frobnicate"), 2, "frobnicate")
    expect_error("msm without curve", run("msm", "--log-n", "3"), 2, "--curve")
    expect_error("msm bad curve", run("msm", "--curve", "bn256", "--log-n", "3"), 2, "bn256")
    expect_error("msm bad log-n", run("msm", "--curve", "bn254", "--log-n", "x"), 2, "--log-n")
    expect_error("msm unknown option", run("msm", "--curve", "bn254", "--log-n", "3", "--frob"), 2, "--frob")
    expect_error("msm option without value", run("msm", "--curve"), 2, "--curve")
    expect_error("msm bad threads", run("msm", "--curve", "bn254", "--log-n", "3", "--threads", "0"), 2, "--threads")
    expect_error("msm bad window", run("msm", "--curve", "bn254", "--log-n", "3", "--window-bits", "21"), 2, "--window-bits")
    expect_error("msm missing opencl device", run("msm", "--curve", "bn254", "--log-n", "3", "--device", "cl:7.7"), 1,
                 "cl:7.7")
    expect_error("msm bad device name", run("msm", "--curve", "bn254", "--log-n", "3", "--device", "gpu0"), 2, "gpu0")
    expect_error("devices bad prepare", run("devices", "--prepare", "bn256"), 2, "bn256")
    expect_error("bench bad list", run("bench", "msm", "--log-n", "3,,4"), 2, "--log-n")
    expect_error("bench unknown", run("bench", "fft"), 2, "fft")
    for args in (["ntt", "--help"], ["bench", "ntt", "--help"]):
        res = run(*args)
        check("help %s" % args, res.returncode == 0 and "usage" in res.stdout, res.stderr)


def write(path, data):
    with open(path, "wb") as fh:
        fh.write(data)


def test_files(tmp):
    for name, c in CURVES.items():
        g = c["g"]
        pts = [g, ec_mul(c, 2, g), None, ec_mul(c, 12345, g)]
        ks = [5, 1, 7, c["r"] - 1]
        want = None
        for k, pt in zip(ks, pts):
            want = ec_add(c, want, ec_mul(c, k, pt) if pt else None)
        pfile, sfile, out = (os.path.join(tmp, name + suffix) for suffix in (".points", ".scalars", ".json"))
        write(pfile, b"".join(encode_point(c, pt) for pt in pts))
        write(sfile, b"".join(k.to_bytes(32, "little") for k in ks))
        res = run("msm", "--curve", name, "--points", pfile, "--scalars", sfile)
        check("%s msm stdout" % name, res.returncode == 0 and json.loads(res.stdout) == json_point(want),
              res.stdout + res.stderr)
        check("%s msm time on stderr" % name, "ms" in res.stderr, res.stderr)
        res = run("msm", "--curve", name, "--points", pfile, "--scalars", sfile, "--out", out, "--threads", "1")
        with open(out) as fh:
            check("%s msm --out" % name, res.returncode == 0 and json.load(fh) == json_point(want), res.stderr)
        # errors: nothing written, the old output untouched, no temporary left behind
        before = open(out).read()
        write(sfile + ".bad", b"".join(k.to_bytes(32, "little") for k in [5, c["r"], 7, 1]))
        res = run("msm", "--curve", name, "--points", pfile, "--scalars", sfile + ".bad", "--out", out)
        expect_error("%s scalar >= r" % name, res, 1, "scalar 1")
        check("%s output untouched on error" % name, open(out).read() == before)
        check("%s no temporary left" % name, not [f for f in os.listdir(tmp) if ".tmp." in f], os.listdir(tmp))
        bad = bytearray(open(pfile, "rb").read())
        bad[c["size"] + 1] ^= 1  # y of point 0
        write(pfile + ".bad", bytes(bad))
        expect_error("%s point off curve" % name, run("msm", "--curve", name, "--points", pfile + ".bad",
                                                       "--scalars", sfile), 1, "point 0")
        write(pfile + ".short", open(pfile, "rb").read()[:-1])
        expect_error("%s truncated points" % name, run("msm", "--curve", name, "--points", pfile + ".short",
                                                        "--scalars", sfile), 1, pfile + ".short")
        write(sfile + ".three", open(sfile, "rb").read()[:96])
        expect_error("%s count mismatch" % name, run("msm", "--curve", name, "--points", pfile,
                                                      "--scalars", sfile + ".three"), 1, "4 points", "3 scalars")
        expect_error("%s missing file" % name, run("msm", "--curve", name, "--points", pfile + ".none",
                                                    "--scalars", sfile), 1, pfile + ".none")
        expect_error("%s unwritable output" % name, run("msm", "--curve", name, "--points", pfile, "--scalars", sfile,
                                                         "--out", os.path.join(tmp, "no", "such", "dir.json")), 1, "no/such")


def test_random_and_bench(tmp):
    for name in CURVES:
        outs = set()
        for extra in ([], ["--threads", "1"], ["--window-bits", "5"], ["--threads", "2", "--window-bits", "11"]):
            res = run("msm", "--curve", name, "--log-n", "9", "--seed", "7", *extra)
            check("%s random msm %s" % (name, extra), res.returncode == 0, res.stderr)
            outs.add(res.stdout)
        check("%s random msm identical across threads and windows" % name, len(outs) == 1, outs)
    jpath = os.path.join(tmp, "bench.json")
    res = run("bench", "msm", "--curve", "bn254,bls12-381", "--log-n", "4,6", "--repeat", "2", "--json", jpath)
    check("bench runs", res.returncode == 0 and "median_ms" in res.stdout, res.stderr)
    with open(jpath) as fh:
        recs = bench_records(fh)
    check("bench records", len(recs) == 4, recs)
    keys = {"op", "curve", "log_n", "device", "threads", "repeat", "median_ms", "min_ms", "ns_per_point"}
    check("bench record keys", all(keys <= set(r) for r in recs), recs)
    check("bench values", all(r["op"] == "msm" and r["repeat"] == 2 and r["min_ms"] <= r["median_ms"] for r in recs), recs)
    # G2: the same result for every thread count and window, snarkjs's G2 JSON, and the bench records
    for name in CURVES:
        outs = set()
        for extra in ([], ["--threads", "1"], ["--window-bits", "4"], ["--window-bits", "10"]):
            res = run("msm", "--curve", name, "--group", "g2", "--log-n", "9", "--seed", "3", *extra)
            check("%s G2 msm %s" % (name, extra), res.returncode == 0, res.stderr)
            outs.add(res.stdout)
        out = json.loads(outs.pop()) if len(outs) == 1 else None
        check("%s G2 msm identical across threads and windows" % name, out is not None)
        check("%s G2 msm JSON is [[x0,x1],[y0,y1],[1,0]]" % name,
              out is not None and len(out) == 3 and all(len(c) == 2 for c in out) and out[2] == ["1", "0"], out)
    res = run("bench", "msm", "--curve", "bn254", "--group", "g2", "--log-n", "5", "--repeat", "2", "--json", jpath)
    check("bench G2 runs", res.returncode == 0, res.stderr)
    with open(jpath) as fh:
        recs = bench_records(fh)
    check("bench G2 records", len(recs) == 1 and recs[0]["group"] == "g2", recs)
    expect_error("msm bad group", run("msm", "--curve", "bn254", "--group", "g3", "--log-n", "4"), 2, "--group", "g3")
    pdir = os.path.join(tmp, "g2")
    os.makedirs(pdir, exist_ok=True)
    write(os.path.join(pdir, "p.bin"), b"\x01" * 100)
    write(os.path.join(pdir, "s.bin"), b"\x00" * 32)
    expect_error("msm G2 file of partial points", run("msm", "--curve", "bn254", "--group", "g2", "--points",
                 os.path.join(pdir, "p.bin"), "--scalars", os.path.join(pdir, "s.bin")), 1, "G2 points", "128 bytes")


def test_opencl(tmp):
    """The OpenCL device (POCL in CI) gives the CPU's bytes; without OpenCL the CLI runs CPU-only."""
    empty = os.path.join(tmp, "no-vendors")
    os.mkdir(empty)
    res = run("devices", env={"OCL_ICD_VENDORS": empty})
    check("devices without opencl", res.returncode == 0 and "running CPU-only" in res.stdout
          and "no OpenCL platform" in res.stdout, res.stdout + res.stderr)
    expect_error("msm on cl without opencl", run("msm", "--curve", "bn254", "--log-n", "3", "--device", "cl:0.0",
                                                 env={"OCL_ICD_VENDORS": empty}), 1, "cl:0.0", "no OpenCL platform")
    res = run("msm", "--curve", "bn254", "--log-n", "3", env={"OCL_ICD_VENDORS": empty})
    check("default msm without opencl", res.returncode == 0, res.stderr)
    res = run("devices", "--prepare", "bn254")
    check("devices lists cl:0.0 with its self-test", res.returncode == 0 and "cl:0.0" in res.stdout
          and "self-test passed" in res.stdout, res.stdout + res.stderr)
    res = run("devices", "--prepare", "bn254")
    check("second devices run hits the cache", "from the binary cache" in res.stdout, res.stdout)
    for name in CURVES:
        cpu = run("msm", "--curve", name, "--log-n", "8", "--seed", "3", "--device", "cpu")
        cl = run("msm", "--curve", name, "--log-n", "8", "--seed", "3", "--device", "cl:0.0")
        check("%s msm on cl:0.0 equals the cpu" % name, cpu.returncode == 0 and cl.returncode == 0
              and cl.stdout == cpu.stdout and "warning" not in cl.stderr, cpu.stderr + cl.stderr)
        fault = run("msm", "--curve", name, "--log-n", "8", "--seed", "3", "--device", "cl:0.0",
                    env={"HPR_CL_INJECT_FAULT": "cl:0.0"})
        check("%s injected fault: same result, a warning" % name, fault.returncode == 0 and fault.stdout == cpu.stdout
              and "warning" in fault.stderr and "HPR_CL_INJECT_FAULT" in fault.stderr, fault.stderr)
    jpath = os.path.join(tmp, "bench-cl.json")
    res = run("bench", "msm", "--curve", "bn254", "--log-n", "6", "--repeat", "1", "--device", "cl:0.0", "--json", jpath)
    check("bench on cl:0.0", res.returncode == 0 and "cl:0.0" in res.stdout, res.stdout + res.stderr)
    with open(jpath) as fh:
        recs = bench_records(fh)
    check("bench json names the device", len(recs) == 1 and recs[0]["device"] == "cl:0.0", recs)
    # a tile held for the device until it asks (HPR_SCHED_EVERY_DEVICE), so that both devices
    # compute on a loaded machine too and the all record has its hybrid efficiency
    hybrid_env = {"POCL_MAX_PTHREAD_COUNT": "1", "HPR_SCHED_EVERY_DEVICE": "1"}
    jpath = os.path.join(tmp, "bench-hybrid.json")
    res = run("bench", "msm", "--curve", "bn254", "--log-n", "15", "--repeat", "1", "--threads", "1",
              "--devices", "cpu,cl:0.0,all", "--json", jpath, env=hybrid_env)
    check("bench --devices cpu,cl:0.0,all", res.returncode == 0 and "hybrid_eff" in res.stdout, res.stdout + res.stderr)
    with open(jpath) as fh:
        recs = bench_records(fh)
    check("bench hybrid records", [r["device"] for r in recs] == ["cpu", "cl:0.0", "all"], recs)
    check("hybrid_efficiency only on the all record, where both devices computed",
          "hybrid_efficiency" not in recs[0] and "hybrid_efficiency" not in recs[1]
          and recs[2].get("devices_ran") == 2 and 0 < recs[2].get("hybrid_efficiency", 0) < 2, recs)
    check("the all record names the devices that ran", sorted(recs[2].get("devices_used", [])) == ["cl:0.0", "cpu"]
          and "devices_used" not in recs[0] and "devices_used" not in recs[1], recs)
    # its efficiency is over what those two reached alone (the records' own throughputs)
    alone = recs[0]["points_per_s"] + recs[1]["points_per_s"]
    check("hybrid_efficiency = all / (cpu + cl:0.0)",
          abs(recs[2]["points_per_s"] / alone - recs[2].get("hybrid_efficiency", 0)) < 0.01, recs)
    check("bench all reports the split", "all: cpu" in res.stderr and "cl:0.0" in res.stderr, res.stderr)
    res = run("calibrate", "--curve", "bn254", "--log-n", "6,7", "--devices", "cpu,cl:0.0")
    check("calibrate", res.returncode == 0 and res.stdout.count("bn254") == 4, res.stdout + res.stderr)
    res = run("calibrate", "--field", "goldilocks", "--log-n", "6,7", "--devices", "cpu,cl:0.0")
    check("calibrate the NTT", res.returncode == 0 and res.stdout.count("goldilocks") == 4 and "bn254" not in res.stdout,
          res.stdout + res.stderr)
    expect_error("calibrate bad field", run("calibrate", "--field", "mersenne"), 2, "mersenne")
    res = run("devices", "--prepare", "none")
    check("devices shows the calibration", "calibrated bn254" in res.stdout and "points/s" in res.stdout, res.stdout)
    expect_error("calibrate bad device", run("calibrate", "--devices", "gpu"), 2, "gpu")
    expect_error("bench devices and device", run("bench", "msm", "--device", "cpu", "--devices", "cpu,all"), 2,
                 "--devices")
    expect_error("bench empty devices item", run("bench", "msm", "--devices", "cpu,,all"), 2, "--devices")


NTT_FIELDS = {
    "goldilocks": (2**64 - 2**32 + 1, 7, 8),
    "babybear": (2013265921, 31, 4),
    "bn254-fr": (21888242871839275222246405745257275088548364400416034343698204186575808495617, 5, 32),
}


def dft(p, g, coeffs, shift=1, inverse=False):
    n = len(coeffs)
    w = pow(g, (p - 1) // n, p)
    if inverse:
        w, shift = pow(w, -1, p), pow(shift, -1, p)
        ninv = pow(n, -1, p)
        return [ninv * pow(shift, k, p) * sum(c * pow(w, i * k, p) for i, c in enumerate(coeffs)) % p
                for k in range(n)]
    return [sum(c * pow(shift * pow(w, k, p), i, p) for i, c in enumerate(coeffs)) % p for k in range(n)]


def elems(values, size):
    return b"".join(v.to_bytes(size, "little") for v in values)


def test_ntt(tmp):
    inp, out = os.path.join(tmp, "ntt.in"), os.path.join(tmp, "ntt.out")
    for field, (p, g, size) in NTT_FIELDS.items():
        coeffs = [(i * 7919 + 3) ** 5 % p for i in range(8)]
        write(inp, elems(coeffs, size))
        res = run("ntt", "--field", field, "--in", inp, "--out", out)
        with open(out, "rb") as fh:
            got = fh.read()
        check("ntt %s forward" % field, res.returncode == 0 and got == elems(dft(p, g, coeffs), size), res.stderr)
        write(inp, elems(dft(p, g, coeffs, 5), size))
        res = run("ntt", "--field", field, "--in", inp, "--out", out, "--inverse", "--coset", "5")
        with open(out, "rb") as fh:
            got = fh.read()
        check("ntt %s coset inverse" % field, res.returncode == 0 and got == elems(coeffs, size), res.stderr)
    p, g, size = NTT_FIELDS["goldilocks"]
    coeffs = list(range(1, 9))
    write(inp, elems(coeffs, size))
    res = run("ntt", "--field", "goldilocks", "--in", inp, "--out", out, "--order", "nr")
    with open(out, "rb") as fh:
        got = fh.read()
    want = dft(p, g, coeffs)
    rev = [want[int(format(k, "03b")[::-1], 2)] for k in range(8)]
    check("ntt order nr", res.returncode == 0 and got == elems(rev, size), res.stderr)
    os.remove(out)
    expect_error("ntt bad field", run("ntt", "--field", "mersenne", "--in", inp, "--out", out), 2, "mersenne")
    expect_error("ntt bad order", run("ntt", "--field", "babybear", "--in", inp, "--out", out, "--order", "xy"), 2,
                 "--order")
    expect_error("ntt on a missing device", run("ntt", "--field", "babybear", "--in", inp, "--out", out, "--device",
                                                "cl:7.7"), 1, "cl:7.7")
    expect_error("ntt bad device name", run("ntt", "--field", "babybear", "--in", inp, "--out", out, "--device",
                                            "gpu"), 2, "gpu")
    write(inp, bytes(8 * 3))
    expect_error("ntt not a power of two", run("ntt", "--field", "goldilocks", "--in", inp, "--out", out), 1, inp)
    write(inp, elems([1, 2, p, 4], size))
    expect_error("ntt element >= p", run("ntt", "--field", "goldilocks", "--in", inp, "--out", out), 1, "element 2")
    expect_error("ntt bad shift", run("ntt", "--field", "goldilocks", "--in", inp, "--out", out, "--coset", "0"), 1,
                 "coset shift")
    check("ntt failures leave no output", not os.path.exists(out))
    jpath = os.path.join(tmp, "ntt.json")
    res = run("bench", "ntt", "--field", "babybear,goldilocks", "--log-n", "4,6", "--repeat", "1", "--json", jpath)
    check("bench ntt", res.returncode == 0 and "ns/butterfly" in res.stdout, res.stdout + res.stderr)
    with open(jpath) as fh:
        recs = bench_records(fh)
    check("bench ntt json", [(r["field"], r["log_n"]) for r in recs] ==
          [("babybear", 4), ("babybear", 6), ("goldilocks", 4), ("goldilocks", 6)]
          and all(r["median_ms"] > 0 and r["ns_per_butterfly"] > 0 for r in recs), recs)
    res = run("bench", "ntt", "--field", "koalabear", "--log-n", "5", "--lde", "2", "--repeat", "1")
    check("bench ntt lde", res.returncode == 0 and "koalabear" in res.stdout, res.stdout + res.stderr)
    expect_error("bench ntt bad lde", run("bench", "ntt", "--lde", "3"), 2, "--lde")
    jpath = os.path.join(tmp, "ntt_devices.json")
    res = run("bench", "ntt", "--field", "babybear", "--log-n", "6", "--batch", "4", "--repeat", "1",
              "--devices", "cpu,cl:0.0,all", "--json", jpath)
    check("bench ntt --devices", res.returncode == 0, res.stdout + res.stderr)
    with open(jpath) as fh:
        recs = bench_records(fh)
    check("bench ntt devices json", [r["device"] for r in recs] == ["cpu", "cl:0.0", "all"], recs)
    expect_error("bench ntt lde on a device", run("bench", "ntt", "--lde", "2", "--device", "cl:0.0"), 2, "--lde")
    expect_error("bench ntt device and devices", run("bench", "ntt", "--device", "cpu", "--devices", "cpu"), 2,
                 "--devices")
    expect_error("bench ntt beyond two-adicity", run("bench", "ntt", "--field", "koalabear", "--log-n", "25"), 2,
                 "two-adicity")


def main():
    with tempfile.TemporaryDirectory() as tmp:
        test_help_and_usage()
        test_files(tmp)
        test_ntt(tmp)
        test_random_and_bench(tmp)
        test_opencl(tmp)
    print("%d passed, %d failed" % (PASSED[0], len(FAILED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
