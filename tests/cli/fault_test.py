#!/usr/bin/env python3
"""Faults are reported, witnesses are sane (issue 21 items 6 and 5), through the CLI.

Item 6: with an injected fault (HPR_SCHED_INJECT_FAULT=cl:0.0: every tile of the device's
hybrid MSM, or every task it takes in a proof's task graph, fails; HPR_CL_INJECT_FAULT=cl:0.0:
every MSM and NTT call of the device fails), `msm`, `ntt`, `groth16 prove` and the benches
exit 0 with the CPU's answer, print exactly one warning line naming the device and the error,
and carry the fault in --report (groth16 prove: the phase's fault line, the device line; the
benches' split lines) and in the --json records' "faults" array. Without a fault: no warning,
an empty "faults". These need an OpenCL device (POCL in CI) that can run beside one CPU
thread: without one they are skipped (exit 77) with a message.
Item 5 (runs without OpenCL): a witness that does not satisfy the circuit fails
`groth16 prove --verify` with a clear message, exit status 1 and no file written; a witness
whose w[0] is not 1 and a key whose alpha1 is zero or whose delta2 is off the curve are
refused before any work.

usage: fault_test.py HYPROVE FIXTURE_DIR (a BN254 fixture: circuit.zkey, witness.wtns,
verification_key.json). HPR_CACHE_DIR (the OpenCL binary cache) is used read-only: the
binaries are copied into a private cache without the calibration profile, so that a
calibration made by another test cannot keep the device from taking a proof's MSM.
"""
import glob
import json
import os
import shutil
import struct
import subprocess
import sys
import tempfile

failures = []
WARNING = "hyprove: warning:"


def check(ok, what, detail=""):
    if not ok:
        failures.append(what)
        print("FAIL:", what, detail)


def run(hyprove, args, env=None):
    return subprocess.run([hyprove] + args, capture_output=True, text=True, timeout=600,
                          env=dict(os.environ, **(env or {})))


def warnings(res):
    return [line for line in res.stderr.splitlines() if line.startswith(WARNING)]


def expect_one_warning(what, res, device, error):
    """Exit 0 and exactly one warning line, naming the device and the error."""
    w = warnings(res)
    check(res.returncode == 0, f"{what}: exits 0", res.stderr)
    check(len(w) == 1 and device in w[0] and error in w[0],
          f"{what}: one warning line naming {device} and {error}", res.stderr)


def expect_no_warning(what, res):
    check(res.returncode == 0 and warnings(res) == [], f"{what}: exits 0 without a warning", res.stderr)


def records(text, what):
    try:
        return json.loads(text).get("records", [])
    except ValueError as e:
        check(False, f"{what}: JSON parses", f"{e}: {text[:300]!r}")
        return []


def expect_faults(what, rec, device, error, dropped=None):
    faults = rec.get("faults")
    ok = (isinstance(faults, list) and len(faults) == 1 and faults[0].get("device") == device
          and error in faults[0].get("error", "") and isinstance(faults[0].get("tiles_failed"), int)
          and faults[0]["tiles_failed"] >= 1 and isinstance(faults[0].get("dropped"), bool)
          and (dropped is None or faults[0]["dropped"] == dropped))
    check(ok, f"{what}: the record's faults name {device} and {error}", rec.get("faults"))


def sections(data):
    """{id: (offset, size)} of a snarkjs binary file (FORMATS.md section 1)."""
    out, off = {}, 12
    while off + 12 <= len(data):
        sid, size = struct.unpack_from("<IQ", data, off)
        out[sid] = (off + 12, size)
        off += 12 + size
    return out


# ---- item 5: witness and key sanity ----

def test_witness_and_key(hyprove, fixture, tmp):
    zkey, wtns = os.path.join(fixture, "circuit.zkey"), os.path.join(fixture, "witness.wtns")
    proof, public = os.path.join(tmp, "bad-proof.json"), os.path.join(tmp, "bad-public.json")
    with open(wtns, "rb") as fh:
        w = bytearray(fh.read())
    s = sections(w)
    n8 = struct.unpack_from("<I", w, s[1][0])[0]
    r = int.from_bytes(w[s[1][0] + 4:s[1][0] + 4 + n8], "little")
    n = struct.unpack_from("<I", w, s[1][0] + 4 + n8)[0]
    base = s[2][0]

    def value_at(i):
        return int.from_bytes(w[base + i * n8:base + (i + 1) * n8], "little")

    def with_value(i, v):
        data = bytearray(w)
        data[base + i * n8:base + (i + 1) * n8] = v.to_bytes(n8, "little")
        return data

    def prove(name, data, *extra):
        path = os.path.join(tmp, name)
        with open(path, "wb") as fh:
            fh.write(data)
        for f in (proof, public):
            if os.path.exists(f):
                os.remove(f)
        return run(hyprove, ["groth16", "prove", zkey, path, proof, public, "--devices", "cpu"] + list(extra))

    def nothing_written(what):
        check(not os.path.exists(proof) and not os.path.exists(public), f"{what}: no proof file written",
              os.listdir(tmp))

    # the last private value (an intermediate signal) changed, still below r: the constraints fail
    last = n - 1
    res = prove("unsatisfied.wtns", with_value(last, (value_at(last) + 1) % r), "--verify")
    check(res.returncode == 1 and "does not verify" in res.stderr and "constraints" in res.stderr
          and "nothing written" in res.stderr, "an unsatisfied witness fails --verify with a clear message",
          res.stderr)
    nothing_written("an unsatisfied witness with --verify")
    res = prove("satisfied.wtns", bytes(w), "--verify")
    check(res.returncode == 0 and os.path.exists(proof), "the fixture's own witness passes --verify", res.stderr)

    res = prove("w0.wtns", with_value(0, 2))
    check(res.returncode == 1 and "w[0] is 2, must be 1" in res.stderr, "w[0] = 2 is refused, naming it",
          res.stderr)
    nothing_written("w[0] = 2")

    with open(zkey, "rb") as fh:
        z = bytearray(fh.read())
    off = sections(z)[2][0]
    n8q = struct.unpack_from("<I", z, off)[0]
    n8r = struct.unpack_from("<I", z, off + 4 + n8q)[0]
    alpha1 = off + 4 + n8q + 4 + n8r + 12  # then beta1, beta2, gamma2, delta1, delta2
    delta2 = alpha1 + 2 * (2 * n8q) + 2 * (4 * n8q) + 2 * n8q
    for name, at, size, needle in (("alpha1", alpha1, 2 * n8q, "alpha1 is the point at infinity"),
                                   ("delta2", delta2, 4 * n8q, "delta2 is not on the")):
        bad = bytearray(z)
        if name == "alpha1":
            bad[at:at + size] = bytes(size)
        else:
            bad[at + size // 2] ^= 1  # y.c0 changed in its low bits
        path = os.path.join(tmp, f"bad-{name}.zkey")
        with open(path, "wb") as fh:
            fh.write(bad)
        res = run(hyprove, ["groth16", "prove", path, wtns, proof, public, "--devices", "cpu"])
        check(res.returncode == 1 and needle in res.stderr, f"a zkey with a bad {name} is refused, naming it",
              res.stderr)
        nothing_written(f"a zkey with a bad {name}")


# ---- item 6: faults reported ----

def has_opencl(hyprove):
    res = run(hyprove, ["devices", "--prepare", "bn254"])
    return res.returncode == 0 and "cl:0.0" in res.stdout and "self-test passed" in res.stdout


# One CPU thread beside one POCL thread: the device joins "all" (it is left out when the two
# would oversubscribe the cores); every device takes a probe tile; a small forced MSM grid.
HYBRID = {"POCL_MAX_PTHREAD_COUNT": "1", "HPR_SCHED_EVERY_DEVICE": "1", "HPR_SCHED_TILES": "2,1,4,8"}
# every tile of the device failing: it is dropped after two failures, so two tiles are held
# for it (with one, a CPU that finishes the rest first, as on a loaded machine, leaves it one
# failure and not dropped)
SCHED_FAULT = dict(HYBRID, HPR_SCHED_EVERY_DEVICE="2", HPR_SCHED_INJECT_FAULT="cl:0.0")
CL_FAULT = dict(HYBRID, HPR_CL_INJECT_FAULT="cl:0.0")


def test_msm(hyprove, tmp):
    args = ["msm", "--curve", "bn254", "--log-n", "10", "--seed", "7", "--threads", "1"]
    cpu = run(hyprove, args + ["--device", "cpu"], HYBRID)
    check(cpu.returncode == 0 and cpu.stdout.startswith('["'), "msm on cpu", cpu.stderr)
    res = run(hyprove, args + ["--device", "all"], SCHED_FAULT)
    expect_one_warning("msm all, every tile of cl:0.0 failing", res, "cl:0.0", "HPR_SCHED_INJECT_FAULT")
    check(res.stdout == cpu.stdout, "msm all with a failing device: the CPU's result", res.stdout + cpu.stdout)
    check("dropped" in res.stderr, "msm all: the device dropped says so", res.stderr)
    # two tiles held for the device: its second exists however fast the CPU is (avx512, load)
    res = run(hyprove, args + ["--device", "all"],
              dict(HYBRID, HPR_SCHED_EVERY_DEVICE="2", HPR_SCHED_INJECT_FAULT="cl:0.0@2"))
    expect_one_warning("msm all, the device's 2nd tile failing", res, "cl:0.0", "tile 2")
    check(res.stdout == cpu.stdout, "msm all with one failed tile: the CPU's result", res.stdout)
    res = run(hyprove, args + ["--device", "cl:0.0"], CL_FAULT)
    expect_one_warning("msm on a failing cl:0.0", res, "cl:0.0", "HPR_CL_INJECT_FAULT")
    check(res.stdout == cpu.stdout, "msm on a failing cl:0.0: the CPU's result", res.stdout)
    res = run(hyprove, args + ["--device", "all"], CL_FAULT)  # the device fails its self-test: left out
    expect_one_warning("msm all, cl:0.0 failing its self-test", res, "cl:0.0", "HPR_CL_INJECT_FAULT")
    check(res.stdout == cpu.stdout, "msm all, cl:0.0 failing its self-test: the CPU's result", res.stdout)
    res = run(hyprove, args + ["--device", "all"], HYBRID)
    expect_no_warning("msm all without a fault", res)
    check(res.stdout == cpu.stdout, "msm all without a fault: the CPU's result", res.stdout)

    bench = ["bench", "msm", "--curve", "bn254", "--log-n", "10", "--repeat", "3", "--threads", "1",
             "--device", "all", "--json", "-"]
    res = run(hyprove, bench, SCHED_FAULT)
    expect_one_warning("bench msm all, 4 runs with a failing device", res, "cl:0.0", "HPR_SCHED_INJECT_FAULT")
    recs = records(res.stdout, "bench msm --json")
    check(len(recs) == 1, "bench msm: one record", recs)
    for rec in recs:
        expect_faults("bench msm", rec, "cl:0.0", "HPR_SCHED_INJECT_FAULT", dropped=True)
    check("failed" in res.stderr and "dropped" in res.stderr, "bench msm: the split line shows the failure",
          res.stderr)
    res = run(hyprove, bench, HYBRID)
    expect_no_warning("bench msm all without a fault", res)
    check([r.get("faults") for r in records(res.stdout, "bench msm")] == [[]], "bench msm: no faults, []",
          res.stdout)


def test_ntt(hyprove, tmp):
    p = 2**64 - 2**32 + 1
    x = 12345
    values = []
    for _ in range(32 * 256):
        x = (x * 6364136223846793005 + 1442695040888963407) % 2**64
        values.append(x % p)
    src = os.path.join(tmp, "ntt-in.bin")
    with open(src, "wb") as fh:
        fh.write(b"".join(struct.pack("<Q", v) for v in values))

    def ntt(device, env, name):
        out = os.path.join(tmp, name)
        res = run(hyprove, ["ntt", "--field", "goldilocks", "--in", src, "--out", out, "--columns", "32",
                            "--threads", "1", "--device", device], env)
        data = open(out, "rb").read() if os.path.exists(out) else b""
        return res, data

    cpu, want = ntt("cpu", HYBRID, "ntt-cpu.bin")
    check(cpu.returncode == 0 and len(want) == 8 * 32 * 256, "ntt on cpu", cpu.stderr)
    res, got = ntt("all", CL_FAULT, "ntt-all.bin")
    expect_one_warning("ntt all (columns), cl:0.0 failing", res, "cl:0.0", "HPR_CL_INJECT_FAULT")
    check(got == want, "ntt all with a failing device: the CPU's result")
    res, got = ntt("cl:0.0", CL_FAULT, "ntt-cl.bin")
    expect_one_warning("ntt on a failing cl:0.0", res, "cl:0.0", "HPR_CL_INJECT_FAULT")
    check(got == want, "ntt on a failing cl:0.0: the CPU's result")
    res, got = ntt("all", HYBRID, "ntt-ok.bin")
    expect_no_warning("ntt all without a fault", res)
    check(got == want, "ntt all without a fault: the CPU's result")

    bench = ["bench", "ntt", "--field", "goldilocks", "--log-n", "8", "--batch", "32", "--repeat", "2",
             "--threads", "1", "--device", "all", "--json", "-"]
    res = run(hyprove, bench, CL_FAULT)
    expect_one_warning("bench ntt all, 3 runs with a failing device", res, "cl:0.0", "HPR_CL_INJECT_FAULT")
    recs = records(res.stdout, "bench ntt --json")
    check(len(recs) == 1, "bench ntt: one record", recs)
    for rec in recs:
        expect_faults("bench ntt", rec, "cl:0.0", "HPR_CL_INJECT_FAULT")
    check("failed" in res.stderr, "bench ntt: the split line shows the failure", res.stderr)
    res = run(hyprove, bench, HYBRID)
    expect_no_warning("bench ntt all without a fault", res)
    check([r.get("faults") for r in records(res.stdout, "bench ntt")] == [[]], "bench ntt: no faults, []",
          res.stdout)


PHASES = ("witness", "h (NTTs)", "msm A", "msm B1", "msm B2 (G2)", "msm C", "msm H", "assemble")


def phase_devices(report):
    """{phase: devices} from groth16 prove --report's table."""
    out = {}
    for line in report.splitlines():
        for name in PHASES:
            if line.startswith(name + " ") and len(line) > 24:
                out[name] = line[24:].strip()
    return out


def test_groth16(hyprove, fixture, tmp):
    zkey, wtns = os.path.join(fixture, "circuit.zkey"), os.path.join(fixture, "witness.wtns")
    vk = os.path.join(fixture, "verification_key.json")
    with open(os.path.join(fixture, "public.json")) as fh:
        want_public = fh.read()

    def prove(devices, env, *extra):
        proof, public, rep = (os.path.join(tmp, f) for f in ("g-proof.json", "g-public.json", "g-report.json"))
        for f in (proof, public, rep):
            if os.path.exists(f):
                os.remove(f)
        res = run(hyprove, ["groth16", "prove", zkey, wtns, proof, public, "--devices", devices, "--threads", "1",
                            "--report", "--json", rep] + list(extra), env)
        ok = os.path.exists(public) and open(public).read() == want_public
        verified = ok and run(hyprove, ["groth16", "verify", vk, public, proof]).returncode == 0
        recs = records(open(rep).read(), "groth16 prove --json") if os.path.exists(rep) else []
        return res, verified, recs

    for devices, env, error, what in (("all", dict(HYBRID, HPR_SCHED_INJECT_FAULT="cl:0.0"), "HPR_SCHED_INJECT_FAULT",
                                       "the task graph, cl:0.0 failing its task"),
                                      ("cl:0.0", CL_FAULT, "HPR_CL_INJECT_FAULT", "on a failing cl:0.0")):
        res, verified, recs = prove(devices, env)
        expect_one_warning(f"groth16 prove {what}", res, "cl:0.0", error)
        check(verified, f"groth16 prove {what}: the proof verifies, the publics are snarkjs's", res.stderr)
        devs = phase_devices(res.stdout)
        check(len(devs) >= 7 and not any("cl:0.0" in d for d in devs.values()),
              f"groth16 prove {what}: --report names no phase on the failed cl:0.0", res.stdout)
        check("fault: cl:0.0 failed (" in res.stdout and error in res.stdout,
              f"groth16 prove {what}: --report shows the phase's fault", res.stdout)
        check("device fault: cl:0.0 failed" in res.stdout, f"groth16 prove {what}: --report lists the device",
              res.stdout)
        check(len(recs) == 1, f"groth16 prove {what}: one JSON record", recs)
        for rec in recs:
            expect_faults(f"groth16 prove {what}", rec, "cl:0.0", error, dropped=True)
    res, verified, recs = prove("cl:0.0", CL_FAULT)
    check(phase_devices(res.stdout).get("h (NTTs)") == "cpu", "groth16 prove on a failing cl:0.0: h on the cpu",
          res.stdout)
    res, verified, recs = prove("all", CL_FAULT)  # the device fails its self-test: the proof on the CPU
    expect_one_warning("groth16 prove all, cl:0.0 failing its self-test", res, "cl:0.0", "HPR_CL_INJECT_FAULT")
    check(verified and "device fault: cl:0.0 failed" in res.stdout,
          "groth16 prove all, cl:0.0 failing its self-test: verified, the device in --report", res.stdout)
    for rec in recs:
        expect_faults("groth16 prove all, a failed self-test", rec, "cl:0.0", "HPR_CL_INJECT_FAULT", dropped=True)
    res, verified, recs = prove("all", HYBRID)
    expect_no_warning("groth16 prove all without a fault", res)
    check(verified and [r.get("faults") for r in recs] == [[]], "groth16 prove all without a fault: faults []",
          recs)
    check("fault" not in res.stdout, "groth16 prove all without a fault: no fault in --report", res.stdout)

    res = run(hyprove, ["bench", "groth16", zkey, wtns, "--devices", "all", "--repeat", "2", "--threads", "1",
                        "--json", "-"], dict(HYBRID, HPR_SCHED_INJECT_FAULT="cl:0.0"))
    expect_one_warning("bench groth16 all, 3 proofs with a failing device", res, "cl:0.0", "HPR_SCHED_INJECT_FAULT")
    recs = records(res.stdout, "bench groth16 --json")
    check(len(recs) == 1, "bench groth16: one record", recs)
    for rec in recs:
        expect_faults("bench groth16", rec, "cl:0.0", "HPR_SCHED_INJECT_FAULT", dropped=True)


def private_cache(tmp):
    """The OpenCL binaries of HPR_CACHE_DIR (none: an empty cache) without its profile."""
    cache = os.path.join(tmp, "cache")
    os.makedirs(cache)
    src = os.environ.get("HPR_CACHE_DIR")
    for f in glob.glob(os.path.join(src, "*.bin")) if src else []:
        shutil.copy(f, cache)
    return cache


def main():
    hyprove, fixture = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    with tempfile.TemporaryDirectory() as tmp:
        os.environ["HPR_CACHE_DIR"] = private_cache(tmp)
        for knob in ("HPR_SCHED_INJECT_FAULT", "HPR_CL_INJECT_FAULT", "HPR_SCHED_TILES", "HPR_SCHED_EVERY_DEVICE"):
            os.environ.pop(knob, None)
        test_witness_and_key(hyprove, fixture, tmp)
        skip = None
        if (os.cpu_count() or 1) < 2:
            skip = "fewer than 2 cores: an OpenCL CPU device cannot join beside a CPU thread"
        elif not has_opencl(hyprove):
            skip = "no OpenCL device with a passing self-test (install POCL: scripts/install-deps.sh)"
        if not skip:
            test_msm(hyprove, tmp)
            test_ntt(hyprove, tmp)
            test_groth16(hyprove, fixture, tmp)
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    if skip and "opencl" in os.environ.get("HPR_CI_REQUIRE", "").split(","):
        print(f"FAIL: an OpenCL device is required here (HPR_CI_REQUIRE), but the fault checks cannot run: {skip}")
        sys.exit(1)
    if skip:
        print(f"SKIP: the fault reporting checks: {skip} (the witness and key checks passed)")
        sys.exit(77)
    print("faults are reported once per device, in --report and --json; bad witnesses and keys are refused")


if __name__ == "__main__":
    main()
