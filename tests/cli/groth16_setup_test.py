#!/usr/bin/env python3
"""`hyprove groth16 setup --insecure-dev`: keys that snarkjs, and hyprove, prove and verify with.

For every fixture with a circuit.r1cs (tests/fixtures: BN254 at 2^10 and BLS12-381 at 2^12, and
the two edge circuits with and without public signals), a seeded setup writes a zkey and a
verification key; then:
  - the same seed gives the same bytes, another seed other bytes;
  - the verification key is byte for byte what `snarkjs zkey export verificationkey` makes of
    the zkey (vk_alphabeta_12 included);
  - hyprove's proof of the fixture's witness verifies with snarkjs and with hyprove, under the
    tool's key, and its public.json equals the witness's public signals (the fixture's);
  - snarkjs's own prover, given the tool's zkey, makes a proof that snarkjs verifies (every
    section it reads is in snarkjs's layout);
  - a witness with one private value changed gives a proof snarkjs rejects, and `prove --verify`
    refuses to write it.
Then the refusals: no --insecure-dev (exit 2, usage), a missing, truncated, lying or foreign
.r1cs (exit 1): one error line naming what is wrong (section, constraint), and no output file
left behind. Last,
scripts/synth-circuit.py (the scale benchmark's stand-in circuit) at 2^10 on both curves:
snarkjs's wtns check accepts its witness, and its key from the setup proves it.

usage: groth16_setup_test.py HYPROVE SNARKJS FIXTURES_DIR
"""
import hashlib
import os
import struct
import subprocess
import sys
import tempfile

HYPROVE, SNARKJS, FIXTURES = sys.argv[1], sys.argv[2], sys.argv[3]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args):
    return subprocess.run(args, capture_output=True, text=True, timeout=600)


def setup(r1cs, out, seed, name="k"):
    zkey, vk = os.path.join(out, name + ".zkey"), os.path.join(out, name + ".vk.json")
    r = run([HYPROVE, "groth16", "setup", "--insecure-dev", "--seed", seed, "--vk", vk, r1cs, zkey])
    return r, zkey, vk


def digest(path):
    return hashlib.sha256(open(path, "rb").read()).hexdigest()


def snarkjs_verify(vk, public, proof):
    r = run([SNARKJS, "groth16", "verify", vk, public, proof])
    return r.returncode == 0 and "OK" in r.stdout, (r.stdout + r.stderr).strip()[-160:]


def corrupted_witness(wtns, n_public, out):
    """The witness with its first private value changed (FORMATS.md: section 2 holds the values)."""
    data = bytearray(open(wtns, "rb").read())
    pos, values, n8 = 12, None, 32
    for _ in range(struct.unpack_from("<I", data, 8)[0]):
        kind, size = struct.unpack_from("<IQ", data, pos)
        if kind == 2:
            values = pos + 12
        pos += 12 + size
    off = values + n8 * (n_public + 1)
    v = int.from_bytes(data[off:off + n8], "little")
    data[off:off + n8] = (v + 1 if v < 5 else v - 1).to_bytes(n8, "little")
    path = os.path.join(out, "corrupt.wtns")
    open(path, "wb").write(bytes(data))
    return path


def fixture_checks(name, fixture):
    r1cs, wtns = os.path.join(fixture, "circuit.r1cs"), os.path.join(fixture, "witness.wtns")
    want_public = open(os.path.join(fixture, "public.json"), "rb").read()
    with tempfile.TemporaryDirectory() as out:
        r, zkey, vk = setup(r1cs, out, "fixture-seed")
        check(r.returncode == 0 and "INSECURE" in r.stderr, f"{name}: setup writes a key and says it is insecure "
              f"({r.stderr.strip()[-200:]})")
        if r.returncode != 0:
            return
        r2, zkey2, vk2 = setup(r1cs, out, "fixture-seed", "again")
        check(r2.returncode == 0 and digest(zkey) == digest(zkey2) and digest(vk) == digest(vk2),
              f"{name}: the same seed gives the same zkey and vk bytes")
        r3, zkey3, _ = setup(r1cs, out, "another-seed", "other")
        check(r3.returncode == 0 and digest(zkey) != digest(zkey3), f"{name}: another seed gives another zkey")
        exported = os.path.join(out, "exported.json")
        r = run([SNARKJS, "zkey", "export", "verificationkey", zkey, exported])
        check(r.returncode == 0 and open(exported, "rb").read() == open(vk, "rb").read(),
              f"{name}: --vk is byte for byte snarkjs's export of the zkey ({r.stderr.strip()[-120:]})")
        proof, public = os.path.join(out, "proof.json"), os.path.join(out, "public.json")
        r = run([HYPROVE, "groth16", "prove", "--devices", "cpu", "--verify", zkey, wtns, proof, public])
        check(r.returncode == 0, f"{name}: hyprove proves and verifies with the tool's zkey ({r.stderr.strip()})")
        if r.returncode == 0:
            ok, text = snarkjs_verify(vk, public, proof)
            check(ok, f"{name}: snarkjs verifies hyprove's proof under the tool's vk ({text})")
            r = run([HYPROVE, "groth16", "verify", vk, public, proof])
            check(r.returncode == 0, f"{name}: hyprove groth16 verify accepts it ({r.stderr.strip()})")
            check(open(public, "rb").read() == want_public, f"{name}: the public signals are the witness's")
        sproof, spublic = os.path.join(out, "sproof.json"), os.path.join(out, "spublic.json")
        r = run([SNARKJS, "groth16", "prove", zkey, wtns, sproof, spublic])
        check(r.returncode == 0, f"{name}: snarkjs proves with the tool's zkey ({r.stderr.strip()[-160:]})")
        if r.returncode == 0:
            ok, text = snarkjs_verify(vk, spublic, sproof)
            check(ok, f"{name}: snarkjs verifies its own proof under the tool's vk ({text})")
        n_public = want_public.count(b'"')
        n_public //= 2
        bad = corrupted_witness(wtns, n_public, out)
        os.remove(proof)
        r = run([HYPROVE, "groth16", "prove", "--devices", "cpu", "--verify", zkey, bad, proof, public])
        check(r.returncode != 0 and not os.path.exists(proof),
              f"{name}: prove --verify refuses a witness that does not satisfy the circuit (exit {r.returncode})")
        r = run([HYPROVE, "groth16", "prove", "--devices", "cpu", zkey, bad, proof, public])
        if r.returncode == 0:
            ok, text = snarkjs_verify(vk, public, proof)
            check(not ok, f"{name}: snarkjs rejects the proof of an unsatisfying witness ({text})")
        else:
            check(False, f"{name}: an unsatisfying witness still gives a proof to reject ({r.stderr.strip()})")


def sections(data):
    """{id: (payload offset, size)} of an iden3 binary file."""
    out, pos = {}, 12
    for _ in range(struct.unpack_from("<I", data, 8)[0]):
        kind, size = struct.unpack_from("<IQ", data, pos)
        out[kind] = (pos + 12, size)
        pos += 12 + size
    return out


def refusal(args, out, what, needles, code=1):
    """Refused with exit code (1: the r1cs is missing or malformed; 2: usage), one error line
    naming needles, nothing written."""
    zkey = os.path.join(out, "refused.zkey")
    r = run([HYPROVE, "groth16", "setup"] + args + [zkey])
    lines = [l for l in r.stderr.splitlines() if "error" in l]
    msg = r.stderr.strip()
    check(r.returncode == code and len(lines) == 1 and all(n in msg for n in needles) and not os.path.exists(zkey)
          and not [f for f in os.listdir(out) if ".tmp." in f],
          f"{what}: exit {code}, one error naming {needles}, nothing written (exit {r.returncode}: {msg[-220:]})")


def refusal_checks():
    src = os.path.join(FIXTURES, "edge_pub", "circuit.r1cs")
    data = open(src, "rb").read()
    s = sections(data)
    hdr, _ = s[1]
    cons, cons_size = s[2]
    with tempfile.TemporaryDirectory() as out:
        def variant(name, content):
            p = os.path.join(out, name)
            open(p, "wb").write(content)
            return p
        refusal([src], out, "no --insecure-dev", ["--insecure-dev", "production"], code=2)
        refusal(["--insecure-dev", os.path.join(out, "missing.r1cs")], out, "a missing r1cs", ["missing.r1cs"])
        # the section table says more bytes than the file has
        refusal(["--insecure-dev", variant("cut.r1cs", data[:-7])], out, "a truncated r1cs", ["runs past the end"])
        # constraint 0's first A term names a wire past nWires
        n_wires = struct.unpack_from("<I", data, hdr + 4 + 32)[0]
        bad = bytearray(data)
        count = struct.unpack_from("<I", data, cons)[0]
        assert count > 0, "edge_pub's constraint 0 has no A term"
        struct.pack_into("<I", bad, cons + 4, n_wires + 5)
        refusal(["--insecure-dev", variant("wire.r1cs", bytes(bad))], out, "a wire out of range",
                ["section 2", "constraint 0", "A", f"wire {n_wires + 5} of {n_wires}"])
        # a coefficient >= r
        bad = bytearray(data)
        bad[cons + 8:cons + 40] = b"\xff" * 32
        refusal(["--insecure-dev", variant("coef.r1cs", bytes(bad))], out, "a coefficient >= r",
                ["constraint 0", "coefficient >= r"])
        # a term count larger than the section
        bad = bytearray(data)
        struct.pack_into("<I", bad, cons, 1 << 20)
        refusal(["--insecure-dev", variant("count.r1cs", bytes(bad))], out, "a term count past the section",
                ["constraint 0", "run past the section"])
        # another prime (Goldilocks-sized): not a Groth16 curve here
        bad = bytearray(data)
        bad[hdr + 4:hdr + 36] = (2**64 - 2**32 + 1).to_bytes(32, "little")
        refusal(["--insecure-dev", variant("prime.r1cs", bytes(bad))], out, "a foreign prime", ["prime", "BN254"])
        refusal(["--insecure-dev", variant("zkey.r1cs", b"zkey" + data[4:])], out, "not an r1cs", ["magic"])


SYNTH = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__)))), "scripts",
                     "synth-circuit.py")


def synth_checks():
    """scripts/synth-circuit.py (the scale benchmark's stand-in circuit) on both curves: its
    r1cs and witness satisfy snarkjs's checks, and the setup's key proves it."""
    for curve in ("bn128", "bls12381"):
        with tempfile.TemporaryDirectory() as out:
            r = run([sys.executable, SYNTH, "--curve", curve, "--seed", "3", "10", out])
            check(r.returncode == 0, f"synth {curve} 2^10: the generator runs ({r.stderr.strip()[-160:]})")
            if r.returncode != 0:
                continue
            r1cs, wtns = os.path.join(out, "circuit.r1cs"), os.path.join(out, "witness.wtns")
            r = run([SNARKJS, "wtns", "check", r1cs, wtns])
            check(r.returncode == 0 and "WITNESS IS CORRECT" in r.stdout,
                  f"synth {curve} 2^10: snarkjs wtns check accepts its witness ({r.stdout.strip()[-120:]})")
            rs, zkey, vk = setup(r1cs, out, "synth")
            proof, public = os.path.join(out, "proof.json"), os.path.join(out, "public.json")
            r = run([HYPROVE, "groth16", "prove", "--devices", "cpu", zkey, wtns, proof, public])
            ok, text = snarkjs_verify(vk, public, proof) if rs.returncode == 0 and r.returncode == 0 else (False, "")
            check(ok, f"synth {curve} 2^10: set up, proved, and snarkjs verifies ({text} {r.stderr.strip()})")


def main():
    names = []
    for name in sorted(os.listdir(FIXTURES)):
        fixture = os.path.join(FIXTURES, name)
        if os.path.exists(os.path.join(fixture, "circuit.r1cs")):
            names.append(name)
            fixture_checks(name, fixture)
    check(len(names) >= 4 and "bls12381_2e12" in names and "bn128_2e10" in names,
          f"fixtures with an r1cs: {', '.join(names)}")
    refusal_checks()
    synth_checks()
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all setup checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
