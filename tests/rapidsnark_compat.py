#!/usr/bin/env python3
"""rapidsnark's C API on hyprove, checked by the real verifier (snarkjs 0.7.6).

For each fixture in tests/fixtures: runs tests/rapidsnark_compat.c's program (a client
written to rapidsnark's prover.h, linked against libhyprove-rapidsnark) with the fixture's
zkey and witness and a witness of another length made here (the last value dropped); the
program checks the API's contract and writes its proofs, and each proof must verify with
`snarkjs groth16 verify` and its public.json equal snarkjs's byte for byte.

usage: rapidsnark_compat.py PROGRAM SNARKJS FIXTURES_DIR
"""
import os
import struct
import subprocess
import sys
import tempfile

PROGRAM, SNARKJS, FIXTURES = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def shorter_witness(data):
    """The .wtns with its last value dropped (count and section size fixed): another length."""
    n_sections = struct.unpack_from("<I", data, 8)[0]
    pos, sections = 12, []
    for _ in range(n_sections):
        kind, size = struct.unpack_from("<IQ", data, pos)
        sections.append([kind, bytearray(data[pos + 12:pos + 12 + size])])
        pos += 12 + size
    for kind, body in sections:
        if kind == 1:
            n8 = struct.unpack_from("<I", body, 0)[0]
            count = struct.unpack_from("<I", body, 4 + n8)[0]
            struct.pack_into("<I", body, 4 + n8, count - 1)
    for s in sections:
        if s[0] == 2:
            s[1] = s[1][:-n8]
    out = bytearray(data[:12])
    for kind, body in sections:
        out += struct.pack("<IQ", kind, len(body)) + body
    return bytes(out)


def main():
    for name in ("bn128_2e10", "bls12381_2e12", "edge_nopub"):
        fixture = os.path.join(FIXTURES, name)
        with tempfile.TemporaryDirectory() as out:
            other = os.path.join(out, "other.wtns")
            with open(os.path.join(fixture, "witness.wtns"), "rb") as f, open(other, "wb") as g:
                g.write(shorter_witness(f.read()))
            r = subprocess.run([PROGRAM, os.path.join(fixture, "circuit.zkey"), os.path.join(fixture, "witness.wtns"),
                                other, out], capture_output=True, text=True, timeout=900)
            sys.stdout.write(r.stdout)
            check(r.returncode == 0, f"{name}: the rapidsnark client's checks pass ({r.stderr.strip()[-300:]})")
            want_public = open(os.path.join(fixture, "public.json"), "rb").read()
            proofs = sorted(p[:-len(".proof.json")] for p in os.listdir(out) if p.endswith(".proof.json"))
            check(len(proofs) == 7, f"{name}: the client wrote its 7 proofs ({proofs})")
            for p in proofs:
                proof, public = os.path.join(out, p + ".proof.json"), os.path.join(out, p + ".public.json")
                v = subprocess.run([SNARKJS, "groth16", "verify", os.path.join(fixture, "verification_key.json"),
                                    public, proof], capture_output=True, text=True, timeout=600)
                check(v.returncode == 0 and "OK" in v.stdout,
                      f"{name} {p}: snarkjs groth16 verify accepts the proof ({(v.stdout + v.stderr).strip()[-160:]})")
                check(open(public, "rb").read() == want_public, f"{name} {p}: public.json equals snarkjs's")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
