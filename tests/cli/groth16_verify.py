#!/usr/bin/env python3
"""Groth16 proofs of `hyprove groth16 prove` checked by the real verifier, snarkjs 0.7.6.

For every fixture (tests/fixtures, and ../shared/fixtures when present): a proof on each
device choice (cpu, every OpenCL device alone, all, and all with one CPU thread beside POCL
on one thread, where the task graph spreads the MSMs over both) must verify with `snarkjs groth16 verify`
and its public.json must equal snarkjs's byte for byte; a witness with one private value
changed must give a proof that snarkjs rejects; bad arguments and files give one clear error
line and leave existing outputs untouched; the main job (`hyprove` with no arguments) proves
the bundled example, which snarkjs accepts.

usage: groth16_verify.py HYPROVE SNARKJS FIXTURES_DIR [MORE_FIXTURE_DIRS...]
"""
import os
import struct
import subprocess
import sys
import tempfile

HYPROVE, SNARKJS = sys.argv[1], sys.argv[2]
FIXTURE_DIRS = sys.argv[3:]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, timeout=600, **kw)


def snarkjs_verify(fixture, public, proof):
    r = run([SNARKJS, "groth16", "verify", os.path.join(fixture, "verification_key.json"), public, proof])
    return r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


def opencl_devices():
    r = run([HYPROVE, "devices"])
    ids = []
    for line in r.stdout.splitlines():
        word = line.split()[0] if line.split() else ""
        if word.startswith("cl:") and "unusable" not in line:
            ids.append(word)
    return ids


def fixtures():
    seen = set()
    for d in FIXTURE_DIRS:
        if not os.path.isdir(d):
            continue
        for name in sorted(os.listdir(d)):
            f = os.path.join(d, name)
            needed = ["circuit.zkey", "witness.wtns", "verification_key.json", "public.json"]
            if name not in seen and all(os.path.exists(os.path.join(f, x)) for x in needed):
                seen.add(name)
                yield name, f


GRAPH = "all+1"  # "all" with one CPU thread and POCL on one thread: both join the task graph


def prove(fixture, witness, out, device):
    proof, public = os.path.join(out, "proof.json"), os.path.join(out, "public.json")
    extra, env = [], dict(os.environ)
    if device == GRAPH:
        device, extra = "all", ["--threads", "1"]
        env["POCL_MAX_PTHREAD_COUNT"] = "1"
    r = run([HYPROVE, "groth16", "prove", os.path.join(fixture, "circuit.zkey"), witness, proof, public,
             "--devices", device] + extra, env=env)
    return r, proof, public


def witness_values(data):
    """(offset of section 2's values, count) of a .wtns (FORMATS.md)."""
    assert data[:4] == b"wtns"
    nsec = struct.unpack_from("<I", data, 8)[0]
    pos, n8, count, values = 12, None, None, None
    for _ in range(nsec):
        typ, size = struct.unpack_from("<IQ", data, pos)
        pos += 12
        if typ == 1:
            n8 = struct.unpack_from("<I", data, pos)[0]
            count = struct.unpack_from("<I", data, pos + 4 + n8)[0]
        elif typ == 2:
            values = pos
        pos += size
    return values, count, n8


def n_public(fixture):
    with open(os.path.join(fixture, "public.json")) as f:
        return sum(1 for line in f if line.strip().startswith('"'))


def corrupted_witness(fixture, out):
    data = bytearray(open(os.path.join(fixture, "witness.wtns"), "rb").read())
    values, count, n8 = witness_values(data)
    k = n_public(fixture) + 1  # the first private signal
    assert k < count, "no private signal to corrupt"
    off = values + n8 * k
    v = int.from_bytes(data[off:off + n8], "little")
    v = v + 1 if v < 5 else v - 1  # stays below r
    data[off:off + n8] = v.to_bytes(n8, "little")
    path = os.path.join(out, "corrupt.wtns")
    open(path, "wb").write(bytes(data))
    return path


def fixture_checks(name, fixture, devices):
    want_public = open(os.path.join(fixture, "public.json"), "rb").read()
    with tempfile.TemporaryDirectory() as out:
        for device in devices:
            r, proof, public = prove(fixture, os.path.join(fixture, "witness.wtns"), out, device)
            check(r.returncode == 0, f"{name} --devices {device}: hyprove proves ({r.stderr.strip()})")
            if r.returncode != 0:
                continue
            ok, text = snarkjs_verify(fixture, public, proof)
            check(ok, f"{name} --devices {device}: snarkjs groth16 verify accepts the proof ({text.strip()[-200:]})")
            check(open(public, "rb").read() == want_public, f"{name} --devices {device}: public.json equals snarkjs's")
        bad = corrupted_witness(fixture, out)
        r, proof, public = prove(fixture, bad, out, "cpu")
        check(r.returncode == 0, f"{name}: a corrupted witness still gives a proof (hyprove does not check constraints)")
        if r.returncode == 0:
            ok, text = snarkjs_verify(fixture, public, proof)
            check(not ok and "Invalid proof" in text,
                  f"{name}: snarkjs rejects the proof of a corrupted witness ({text.strip()[-120:]})")


def cli_error_checks(fixture):
    with tempfile.TemporaryDirectory() as out:
        proof, public = os.path.join(out, "proof.json"), os.path.join(out, "public.json")
        for p in (proof, public):
            open(p, "w").write("keep")
        zkey, wtns = os.path.join(fixture, "circuit.zkey"), os.path.join(fixture, "witness.wtns")
        truncated = os.path.join(out, "t.zkey")
        open(truncated, "wb").write(open(zkey, "rb").read()[:5000])
        cases = [
            ([zkey, wtns, proof], "expected CIRCUIT.zkey"),
            ([os.path.join(out, "none.zkey"), wtns, proof, public], "none.zkey"),
            ([truncated, wtns, proof, public], "t.zkey"),
            ([zkey, zkey, proof, public], "wtns"),
            ([zkey, os.path.join(out, "none.wtns"), proof, public], "none.wtns"),
            ([zkey, wtns, proof, public, "--devices", "cl:9.9"], "cl:9.9"),
            ([zkey, wtns, proof, public, "--threads", "0"], "--threads"),
            ([zkey, wtns, os.path.join(out, "no", "dir", "p.json"), public], "p.json"),
        ]
        for args, word in cases:
            r = run([HYPROVE, "groth16", "prove"] + args)
            lines = [l for l in r.stderr.splitlines() if l.startswith("hyprove: error:")]
            check(r.returncode != 0 and len(lines) == 1 and word in lines[0],
                  f"groth16 prove {' '.join(os.path.basename(a) for a in args)}: one error naming '{word}' "
                  f"(rc {r.returncode}: {r.stderr.strip()[:200]})")
            check(open(proof).read() == "keep" and open(public).read() == "keep",
                  f"groth16 prove {word}: existing outputs untouched")
        r = run([HYPROVE, "groth16", "prove", zkey, wtns, proof, public, "extra.json"])
        check(r.returncode != 0 and "extra.json" in r.stderr and open(proof).read() == "keep",
              f"groth16 prove with a fifth file: refused, naming it ({r.stderr.strip()[:160]})")
        # options before, between and after the files, and "--" before files: one proof each
        for args in (["--devices", "cpu", "--threads", "1", zkey, wtns, proof, public],
                     [zkey, "--devices=cpu", wtns, proof, "--threads", "2", public],
                     ["--devices", "cpu", "--", zkey, wtns, proof, public]):
            os.remove(proof) if os.path.exists(proof) else None
            r = run([HYPROVE, "groth16", "prove"] + args)
            ok, text = snarkjs_verify(fixture, public, proof) if r.returncode == 0 else (False, r.stderr)
            check(ok, f"groth16 prove {' '.join(a if a.startswith('-') else os.path.basename(a) for a in args)}: "
                      f"snarkjs accepts the proof ({text.strip()[-160:]})")
        r = run([HYPROVE, "groth16", "prove", "--help"])
        check(r.returncode == 0 and "CIRCUIT.zkey" in r.stdout, "groth16 prove --help")
        r = run([HYPROVE, "bench", "groth16", zkey, wtns, "--repeat", "1", "--devices", "cpu"])
        check(r.returncode == 0 and "msm B2" in r.stdout and "total" in r.stdout, "bench groth16 prints the phases")


BLS12_381_P = 0x1a0111ea397fe69a4b1ba7b6434bacd764774b84f38512bf6730d2a0f6b0f6241eabfffeb153ffffb9feffffffffaaab


def bls_g1_outside_subgroup():
    """A point of y^2 = x^3 + 4 over BLS12-381's Fq outside the order-r subgroup (the cofactor
    is h = 0x396c8c005555e1568c00aaab0000aaab, so almost every curve point is)."""
    p = BLS12_381_P
    x = 5
    while True:
        rhs = (x ** 3 + 4) % p
        y = pow(rhs, (p + 1) // 4, p)  # p = 3 (mod 4)
        if y * y % p == rhs:
            return [str(x), str(y), "1"]
        x += 1


BN254_P = 21888242871839275222246405745257275088696311157297823662689037894645226208583


def fq2_sqrt(a0, a1, p):
    """A square root of a0 + a1 u in Fq[u]/(u^2 + 1) (p = 3 mod 4, a1 != 0), or None."""
    norm = (a0 * a0 + a1 * a1) % p
    gamma = pow(norm, (p + 1) // 4, p)
    if gamma * gamma % p != norm:
        return None
    half = (p + 1) // 2
    for delta in ((a0 + gamma) * half % p, (a0 - gamma) * half % p):
        x0 = pow(delta, (p + 1) // 4, p)
        if x0 * x0 % p != delta or x0 == 0:
            continue
        x1 = a1 * pow(2 * x0, p - 2, p) % p
        if (x0 * x0 - x1 * x1) % p == a0 % p and 2 * x0 * x1 % p == a1 % p:
            return x0, x1
    return None


def twist_point_outside_subgroup(curve):
    """A point of the twist E'(Fq2) (BN254: y^2 = x^3 + 3/(9 + u); BLS12-381: y^2 = x^3 + 4(1 + u))
    outside the order-r subgroup, as snarkjs writes pi_b: the twists' cofactors are about p, so
    the first real x whose x^3 + b' is a square gives one."""
    if curve == "bls12381":
        p, b0, b1 = BLS12_381_P, 4, 4
    else:  # 3 / (9 + u) = 3 (9 - u) / 82
        p = BN254_P
        inv82 = pow(82, p - 2, p)
        b0, b1 = 27 * inv82 % p, (-3 * inv82) % p
    x = 1
    while True:
        y = fq2_sqrt((x ** 3 + b0) % p, b1, p)
        if y:
            return [[str(x), "0"], [str(y[0]), str(y[1])], ["1", "0"]]
        x += 1


def verify(vk, public, proof):
    return run([HYPROVE, "groth16", "verify", vk, public, proof])


def verify_checks(name, fixture):
    """`hyprove groth16 verify` (and `prove --verify`) against snarkjs's files: snarkjs's
    proofs verify, and rapidsnark's (compact, no curve); tampered ones are rejected with exit 3
    (a valid form that fails the equation) or 1 (malformed, a key repeated, off the curve,
    outside the subgroup of G1 or G2; docs/cli.md, "Exit status")."""
    import json
    vk = os.path.join(fixture, "verification_key.json")
    public = os.path.join(fixture, "public.json")
    with tempfile.TemporaryDirectory() as out:
        for proof_name in ("proof_r0s0.json", "proof.json"):
            proof = os.path.join(fixture, proof_name)
            if os.path.exists(proof):
                r = verify(vk, public, proof)
                check(r.returncode == 0 and "OK" in r.stdout,
                      f"{name}: hyprove groth16 verify accepts snarkjs's {proof_name} ({r.stderr.strip()[-160:]})")
        r = run([HYPROVE, "groth16", "prove", os.path.join(fixture, "circuit.zkey"), os.path.join(fixture, "witness.wtns"),
                 os.path.join(out, "p.json"), os.path.join(out, "u.json"), "--devices", "cpu", "--verify"])
        check(r.returncode == 0 and verify(vk, os.path.join(out, "u.json"), os.path.join(out, "p.json")).returncode == 0,
              f"{name}: prove --verify writes a proof that hyprove groth16 verify accepts ({r.stderr.strip()[-160:]})")
        good = json.load(open(os.path.join(out, "p.json")))
        pub = json.load(open(os.path.join(out, "u.json")))
        curve_p = BLS12_381_P if good["curve"] == "bls12381" else \
            21888242871839275222246405745257275088696311157297823662689037894645226208583

        def expect(proof_obj, public_list, code, what, needle=""):
            pf, uf = os.path.join(out, "t_proof.json"), os.path.join(out, "t_public.json")
            json.dump(proof_obj, open(pf, "w"))
            json.dump(public_list, open(uf, "w"))
            r = verify(vk, uf, pf)
            check(r.returncode == code and needle in r.stderr,
                  f"{name}: {what}: exit {code} (got {r.returncode}: {r.stderr.strip()[-160:]})")

        neg_a = dict(good, pi_a=[good["pi_a"][0], str(curve_p - int(good["pi_a"][1])), "1"])
        expect(neg_a, pub, 3, "-A instead of A (a coordinate changed, still on the curve)", "invalid proof")
        expect(dict(good, pi_a=good["pi_c"], pi_c=good["pi_a"]), pub, 3, "A and C swapped", "invalid proof")
        if pub:
            expect(good, [str(int(pub[0]) + 1)] + pub[1:], 3, "a public signal changed", "invalid proof")
            expect(good, pub[:-1], 1, "a public signal missing", "public signals")
        off = dict(good, pi_a=[str(int(good["pi_a"][0]) + 1), good["pi_a"][1], "1"])
        expect(off, pub, 1, "A off the curve", "not on the")
        expect(dict(good, pi_b=[good["pi_b"][1], good["pi_b"][0], good["pi_b"][2]]), pub, 1, "B off the curve",
               "not on the")
        rapidsnark = os.path.join(fixture, "proof_rapidsnark.json")
        if os.path.exists(rapidsnark):  # rapidsnark's own output: compact, no curve
            r = verify(vk, public, rapidsnark)
            check(r.returncode == 0 and "OK" in r.stdout,
                  f"{name}: verify accepts rapidsnark's proof.json ({r.stderr.strip()[-160:]})")
        compact = {k: v for k, v in good.items() if k != "curve"}
        pf, uf = os.path.join(out, "c_proof.json"), os.path.join(out, "c_public.json")
        open(pf, "w").write(json.dumps(compact, separators=(",", ":")))
        open(uf, "w").write(json.dumps(pub, separators=(",", ":")))
        r = verify(vk, uf, pf)
        check(r.returncode == 0, f"{name}: a proof in rapidsnark's form (compact, no curve) verifies "
                                 f"({r.stderr.strip()[-160:]})")
        dup = json.dumps(good)[:-1] + ', "pi_a": ' + json.dumps(good["pi_c"]) + "}"
        open(pf, "w").write(dup)
        r = verify(vk, os.path.join(out, "u.json"), pf)
        check(r.returncode == 1 and "repeated" in r.stderr,
              f"{name}: a proof with pi_a twice is refused, not read either way (exit {r.returncode}: "
              f"{r.stderr.strip()[-160:]})")
        expect(dict(good, pi_b=twist_point_outside_subgroup(good["curve"])), pub, 1,
               "B on the twist but outside the prime-order subgroup", "subgroup")
        if good["curve"] == "bls12381":
            expect(dict(good, pi_c=bls_g1_outside_subgroup()), pub, 1, "C outside the prime-order subgroup",
                   "subgroup")
        expect(dict(good, protocol="plonk"), pub, 1, "protocol plonk", "protocol")
        bad = os.path.join(out, "bad.json")
        open(bad, "w").write('{"pi_a": [1, 2')
        r = verify(vk, public, bad)
        check(r.returncode == 1 and "proof" in r.stderr and "byte" in r.stderr,
              f"{name}: malformed proof JSON: exit 1 naming the file and byte ({r.stderr.strip()[-160:]})")
        r = verify(vk, public, os.path.join(out, "none.json"))
        check(r.returncode == 1 and "none.json" in r.stderr, f"{name}: a missing file: exit 1 naming it")


def wrong_key_checks(fixture):
    """A zkey whose delta2 (verification) no longer matches its proving points: prove --verify
    refuses to write the proof, naming the devices; without --verify the proof is written and
    `groth16 verify` with the key's own verification points rejects it."""
    import struct
    data = bytearray(open(os.path.join(fixture, "circuit.zkey"), "rb").read())
    pos, n = 12, struct.unpack_from("<I", data, 8)[0]
    for _ in range(n):
        kind, size = struct.unpack_from("<IQ", data, pos)
        if kind == 2:
            h = pos + 12
            n8q = struct.unpack_from("<I", data, h)[0]
            n8r = struct.unpack_from("<I", data, h + 4 + n8q)[0]
            pts = h + 4 + n8q + 4 + n8r + 12
            g1, g2 = 2 * n8q, 4 * n8q
            gamma2, delta2 = pts + 2 * g1 + g2, pts + 2 * g1 + 2 * g2 + g1
            data[delta2:delta2 + g2] = data[gamma2:gamma2 + g2]
        pos += 12 + size
    with tempfile.TemporaryDirectory() as out:
        zkey = os.path.join(out, "wrong.zkey")
        open(zkey, "wb").write(bytes(data))
        proof, public = os.path.join(out, "proof.json"), os.path.join(out, "public.json")
        r = run([HYPROVE, "groth16", "prove", zkey, os.path.join(fixture, "witness.wtns"), proof, public,
                 "--devices", "cpu", "--verify"])
        check(r.returncode == 1 and "does not verify" in r.stderr and "cpu" in r.stderr
              and not os.path.exists(proof) and not os.path.exists(public),
              f"prove --verify with a key whose delta2 was replaced: refused, devices named, nothing written "
              f"({r.stderr.strip()[-200:]})")


def main_job_checks(fixture):
    """`hyprove` with no arguments proves the bundled example; snarkjs accepts the proof."""
    with tempfile.TemporaryDirectory() as out:
        r = run([HYPROVE], env=dict(os.environ, HPR_EXAMPLE_OUT=out))
        check(r.returncode == 0 and "Groth16 example" in r.stdout and "msm B2" in r.stdout,
              f"the main job proves the bundled example (rc {r.returncode}: {r.stderr.strip()[-200:]})")
        if r.returncode == 0:
            ok, text = snarkjs_verify(fixture, os.path.join(out, "public.json"), os.path.join(out, "proof.json"))
            check(ok, f"snarkjs accepts the main job's example proof ({text.strip()[-120:]})")


def main():
    cl = opencl_devices()
    check(cl or "opencl" not in os.environ.get("HPR_CI_REQUIRE", "").split(","),
          "an OpenCL device is required here (HPR_CI_REQUIRE): `hyprove devices` lists none usable")
    devices = ["cpu"] + cl + ["all"] + ([GRAPH] if cl else [])
    print("devices:", ", ".join(devices))
    names = []
    for name, fixture in fixtures():
        names.append(name)
        fixture_checks(name, fixture, devices)
    check(len(names) >= 4, f"fixtures found: {', '.join(names)}")
    for name, fixture in fixtures():
        verify_checks(name, fixture)
    wrong_key_checks(os.path.join(FIXTURE_DIRS[0], "bn128_2e10"))
    cli_error_checks(os.path.join(FIXTURE_DIRS[0], "bn128_2e10"))
    main_job_checks(os.path.join(FIXTURE_DIRS[0], "bn128_2e10"))
    if failures:
        print(f"{len(failures)} check(s) failed")
        return 1
    print("all Groth16 verification checks passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
