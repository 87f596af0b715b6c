#!/usr/bin/env python3
"""--max-memory SIZE, the memory limit every hyprove command takes (issue 21 item 4).

A limit below a call's need is refused with the need and the limit named and nothing written
(groth16 prove leaves no proof or public file); a limit whose pieces fit runs the MSM in
pieces with the same result; a generous limit proves; a malformed size (the option or
HPR_MAX_MEMORY) is an error naming it; --max-memory twice is refused.

usage: memory_cli_test.py HYPROVE FIXTURE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

failures = []


def size_of(text):
    """Bytes of a size as the library prints it ("7.1 MiB", "300 KiB", "17 bytes")."""
    number, unit = text.split()
    scale = {"bytes": 1, "KiB": 1 << 10, "MiB": 1 << 20, "GiB": 1 << 30}[unit]
    return int(float(number) * scale)


def check(ok, what, r=None):
    if ok:
        return
    if r is not None:
        what += f"\n  command: {' '.join(r.args)}\n  exit: {r.returncode}\n  stdout: {r.stdout!r}\n  stderr: {r.stderr!r}"
    failures.append(what)
    print("FAIL:", what)


def run(args, env=None):
    e = dict(os.environ)
    e.pop("HPR_MAX_MEMORY", None)
    e.update(env or {})
    return subprocess.run(args, capture_output=True, text=True, env=e, timeout=600)


def main():
    hyprove, fixture = sys.argv[1:3]
    msm = [hyprove, "msm", "--curve", "bn254", "--device", "cpu", "--threads", "2", "--log-n", "14"]
    whole = run(msm)
    check(whole.returncode == 0 and whole.stdout.startswith("["), "msm runs", whole)
    r = run(msm + ["--max-memory=2K"])
    check(r.returncode == 1 and "the MSM of 16384 points needs about" in r.stderr
          and "the memory limit is 2.0 KiB (HPR_MAX_MEMORY / --max-memory)" in r.stderr and r.stdout == "",
          "msm over --max-memory 2K is refused, naming need and limit", r)
    # a limit between the pieces' need and the whole MSM's (both named by the refusal above:
    # they depend on the CPU tier's scratch) runs it in pieces, with the same result
    m = re.search(r"needs about ([0-9.]+ [KMG]?i?B|[0-9]+ bytes) \(at least ([0-9.]+ [KMG]?i?B|[0-9]+ bytes) in pieces",
                  r.stderr)
    check(m is not None, "the refusal names the MSM's need and its pieces' need", r)
    if m:
        whole_need, piece_need = size_of(m.group(1)), size_of(m.group(2))
        limit = min(int(piece_need * 1.5), (piece_need + whole_need) // 2)
        check(piece_need < limit < whole_need, f"a limit between {m.group(2)} and {m.group(1)}", r)
        r = run(msm + ["--max-memory", str(limit)])
        check(r.returncode == 0 and r.stdout == whole.stdout,
              f"msm in pieces under --max-memory {limit} (between {m.group(2)} and {m.group(1)}): same result", r)
    r = run(msm + ["--max-memory", "512M"])
    check(r.returncode == 0 and r.stdout == whole.stdout, "msm under --max-memory 512M", r)
    for bad in ("bogus", "0", "1.5", "12Q", "-1M"):
        r = run(msm + ["--max-memory", bad])
        check(r.returncode == 2 and f"option --max-memory: '{bad}' is not a memory size" in r.stderr,
              f"--max-memory {bad} is refused, naming the option", r)
    r = run(msm + ["--max-memory", "1G", "--max-memory", "2G"])
    check(r.returncode == 2 and "--max-memory given twice" in r.stderr, "--max-memory twice is refused", r)
    r = run(msm, env={"HPR_MAX_MEMORY": "lots"})
    check(r.returncode == 1 and "HPR_MAX_MEMORY='lots' is not a memory size" in r.stderr,
          "a malformed HPR_MAX_MEMORY is named", r)
    r = run(msm, env={"HPR_MAX_MEMORY": "2K"})
    check(r.returncode == 1 and "the memory limit is 2.0 KiB" in r.stderr, "HPR_MAX_MEMORY sets the limit", r)

    with tempfile.TemporaryDirectory() as tmp:
        data = os.path.join(tmp, "col.bin")
        with open(data, "wb") as f:
            for i in range(1 << 12):
                f.write(i.to_bytes(32, "little"))
        before = open(data, "rb").read()
        out = os.path.join(tmp, "ntt.bin")
        r = run([hyprove, "ntt", "--field", "bn254-fr", "--in", data, "--out", out,
                 "--max-memory", "16K"])
        check(r.returncode == 1 and "the NTT of 1 x 2^12 elements needs about" in r.stderr
              and not os.path.exists(out) and open(data, "rb").read() == before,
              "ntt over --max-memory 16K is refused, nothing written", r)

        zkey, wtns = os.path.join(fixture, "circuit.zkey"), os.path.join(fixture, "witness.wtns")
        proof, public = os.path.join(tmp, "proof.json"), os.path.join(tmp, "public.json")
        prove = [hyprove, "groth16", "prove", zkey, wtns, proof, public, "--devices", "cpu"]
        r = run(prove + ["--max-memory", "64K"])
        check(r.returncode == 1 and "the proof needs about" in r.stderr and "the memory limit is 64 KiB" in r.stderr
              and not os.path.exists(proof) and not os.path.exists(public),
              "groth16 prove over --max-memory 64K is refused, no files written", r)
        r = run(prove + ["--max-memory", "256M"])
        check(r.returncode == 0 and os.path.exists(proof) and os.path.exists(public),
              "groth16 prove under --max-memory 256M proves", r)

        # a proof whose MSMs must run in pieces (2^14 rows: MSMs of more than 2 x 4096 points),
        # with ../shared/fixtures when it is there: a limit between "at least" and the full need
        # runs its phases in order with the MSMs in pieces, and the proof verifies
        big = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "..", "shared", "fixtures", "bn128_2e14")
        if os.path.isdir(big):
            zkey, wtns = os.path.join(big, "circuit.zkey"), os.path.join(big, "witness.wtns")
            prove = [hyprove, "groth16", "prove", zkey, wtns, proof, public, "--devices", "cpu", "--threads", "2"]
            r = run(prove + ["--max-memory", "1K"])
            m = re.search(r"needs about ([\d.]+) (KiB|MiB) \(at least ([\d.]+) (KiB|MiB) with its phases in order", r.stderr)
            check(r.returncode == 1 and m, "a 2^14 proof over its limit names the need in pieces", r)
            if m:
                unit = {"KiB": 1 << 10, "MiB": 1 << 20}
                full, least = float(m[1]) * unit[m[2]], float(m[3]) * unit[m[4]]
                r = run(prove + ["--max-memory", str(int((full + least) / 2)), "--verify"])
                check(r.returncode == 0 and os.path.exists(proof), "the 2^14 proof in pieces verifies", r)

    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("--max-memory: refusals name need and limit, pieces give the same MSM, bad sizes are named")


if __name__ == "__main__":
    main()
