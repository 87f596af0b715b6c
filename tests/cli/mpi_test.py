#!/usr/bin/env python3
"""The CLI across processes with Open MPI (issue 23): `mpirun -np 2` and `-np 3` on one machine.

Every run's answer is compared with the same command as one process: the distributed `msm`
(random inputs: BN254 G1 and G2, BLS12-381 G1; and from files) gives the same output file, byte
for byte; `ntt` across ranks gives the same output file; `groth16 prove` on every fixture of
tests/fixtures gives a proof that snarkjs verifies and the fixture's public.json (snarkjs is
looked for as groth16_verify.py finds it: the SNARKJS argument, else .deps/snarkjs; without it
that check is skipped with a message). A rank given bad input (MPMD: rank 1 with a truncated
zkey) ends the job nonzero with one error line, naming rank 1, and no output file; a rank
given another valid zkey ends it with the digest mismatch. `groth16 prove-batch` of a list
with one truncated witness reports exactly that one, and writes and verifies the others (on 3
ranks over sections precomputed twice: --precompute 2). The
benches (msm, ntt, groth16) print a ranks line and write JSON records with ranks and bytes_sent.
A command or option that does not run across ranks is one error from rank 0 (exit 2).

The transport: Open MPI's TCP transport on the loopback interface (as CI runs it, root
allowed, more ranks than cores allowed); if that cannot start here, the shared-memory one
(vader without its single-copy mechanism, which containers often forbid).

usage: mpi_test.py HYPROVE MPIRUN FIXTURES_DIR [SNARKJS]
"""
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile

HYPROVE, MPIRUN, FIXTURES = sys.argv[1], sys.argv[2], sys.argv[3]
SNARKJS = sys.argv[4] if len(sys.argv) > 4 and sys.argv[4] else None
if not SNARKJS:
    guess = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", ".deps", "snarkjs", "node_modules", ".bin",
                         "snarkjs")
    SNARKJS = guess if os.access(guess, os.X_OK) else None
TRANSPORTS = [["--mca", "btl", "self,tcp", "--mca", "btl_tcp_if_include", "lo"],
              ["--mca", "btl", "self,vader", "--mca", "btl_vader_single_copy_mechanism", "none"]]
BASE = [MPIRUN, "--oversubscribe", "--allow-run-as-root", "-x", "HPR_CACHE_DIR", "-x", "HPR_TEST_SEED"]
failures = []
transport = None


def check(cond, what, detail=""):
    print(("ok   " if cond else "FAIL ") + what + ("" if cond or not detail else "\n     " + detail), flush=True)
    if not cond:
        failures.append(what)


def run(args, timeout=300):
    try:
        return subprocess.run(args, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired as e:
        return subprocess.CompletedProcess(args, 124, e.stdout or "", (e.stderr or "") + "\n(timed out)")


def mpi(np, args, timeout=300):
    """One command line on np ranks; args may be a list of lists (MPMD: one rank each)."""
    if args and isinstance(args[0], list):
        line = BASE + transport
        for k, a in enumerate(args):
            line += ([":"] if k else []) + ["-np", "1", HYPROVE] + a
        return run(line, timeout)
    return run(BASE + transport + ["-np", str(np), HYPROVE] + args, timeout)


def errors(r):
    return [line for line in r.stderr.splitlines() if line.startswith("hyprove: error:")]


def show(r):
    return f"exit {r.returncode}\n     stdout {r.stdout[-800:]!r}\n     stderr {r.stderr[-1500:]!r}"


def pick_transport():
    global transport
    for t in TRANSPORTS:
        transport = t
        r = mpi(2, ["msm", "--curve", "bn254", "--log-n", "4", "--threads", "1", "--device", "cpu"], 120)
        if r.returncode == 0:
            print("transport:", " ".join(t), flush=True)
            return True
        print("transport", " ".join(t), "does not start here:", show(r), flush=True)
    return False


def same_file(a, b):
    return os.path.exists(a) and os.path.exists(b) and open(a, "rb").read() == open(b, "rb").read()


def snarkjs_verify(fixture, public, proof):
    if not SNARKJS:
        return "snarkjs" not in os.environ.get("HPR_CI_REQUIRE", "").split(","), \
            "skipped: snarkjs not found (required here by HPR_CI_REQUIRE)"
    r = run([SNARKJS, "groth16", "verify", os.path.join(fixture, "verification_key.json"), public, proof])
    return r.returncode == 0 and "OK" in r.stdout, r.stdout + r.stderr


def test_msm(tmp):
    cases = [("bn254", "g1"), ("bn254", "g2"), ("bls12-381", "g1")]
    for curve, group in cases:
        common = ["msm", "--curve", curve, "--group", group, "--log-n", "12", "--seed", "7", "--threads", "1",
                  "--device", "cpu"]
        alone = os.path.join(tmp, f"msm_{curve}_{group}_1.json")
        r = run([HYPROVE] + common + ["--out", alone])
        check(r.returncode == 0, f"msm {curve} {group} as one process", show(r))
        for np in (2, 3):
            out = os.path.join(tmp, f"msm_{curve}_{group}_{np}.json")
            r = mpi(np, common + ["--out", out])
            check(r.returncode == 0 and same_file(alone, out),
                  f"msm {curve} {group} on {np} ranks: the same output file", show(r))
            check(f"{np} ranks" in r.stderr, f"msm {curve} {group} on {np} ranks: stderr names the ranks", show(r))
    # from files: every rank reads the same paths
    pts, scs = os.path.join(tmp, "points.bin"), os.path.join(tmp, "scalars.bin")
    r = run([sys.executable, "-c", GEN_INPUTS, HYPROVE, pts, scs])
    if r.returncode == 0:
        alone, out = os.path.join(tmp, "msm_files_1.json"), os.path.join(tmp, "msm_files_2.json")
        args = ["msm", "--curve", "bn254", "--points", pts, "--scalars", scs, "--threads", "1", "--device", "cpu"]
        r1 = run([HYPROVE] + args + ["--out", alone])
        r2 = mpi(2, args + ["--out", out])
        check(r1.returncode == 0 and r2.returncode == 0 and same_file(alone, out),
              "msm from files on 2 ranks: the same output file", show(r2))
        # a rank that cannot read its file: one error, naming rank 1, and no output
        missing = os.path.join(tmp, "missing.bin")
        out = os.path.join(tmp, "msm_bad.json")
        r = mpi(2, [args + ["--out", out], ["msm", "--curve", "bn254", "--points", pts, "--scalars", missing,
                                              "--threads", "1", "--device", "cpu", "--out", out]])
        e = errors(r)
        check(r.returncode != 0 and len(e) == 1 and "rank 1" in e[0] and "missing.bin" in e[0] and
              not os.path.exists(out), "msm: rank 1's unreadable file ends the job with one error naming rank 1",
              show(r))
    else:
        check(False, "msm: the input files made", show(r))


# Writes 2^10 valid BN254 G1 points and scalars (hyprove bench's generator is not a file: take
# them from `hyprove msm --log-n` is not possible either, so the points are multiples of the
# generator computed here in affine coordinates, Montgomery form, little-endian).
GEN_INPUTS = r'''
import sys, random
p = 21888242871839275222246405745257275088696311157297823662689037894645226208583
r = 21888242871839275222246405745257275088548364400416300564591887540894027341963
R = pow(2, 256, p)
def add(P, Q):
    if P is None: return Q
    if Q is None: return P
    (x1, y1), (x2, y2) = P, Q
    if x1 == x2 and (y1 + y2) % p == 0: return None
    l = (3 * x1 * x1 * pow(2 * y1, -1, p)) % p if P == Q else ((y2 - y1) * pow(x2 - x1, -1, p)) % p
    x3 = (l * l - x1 - x2) % p
    return (x3, (l * (x1 - x3) - y1) % p)
random.seed(5)
pts, scs, P = [], [], (1, 2)
for i in range(1024):
    pts.append(P)
    P = add(P, (1, 2)) if i % 3 else add(P, P)
with open(sys.argv[2], "wb") as f:
    for (x, y) in pts:
        f.write((x * R % p).to_bytes(32, "little") + (y * R % p).to_bytes(32, "little"))
with open(sys.argv[3], "wb") as f:
    for _ in pts:
        f.write(random.randrange(r).to_bytes(32, "little"))
'''


def test_ntt(tmp):
    data = os.path.join(tmp, "ntt_in.bin")
    with open(data, "wb") as f:
        state = 1
        for _ in range(8 * 1024):
            state = (state * 6364136223846793005 + 1442695040888963407) % (1 << 64)
            f.write((state % 0xffffffff00000001).to_bytes(8, "little"))
    for extra in ([], ["--inverse", "--coset", "7"]):
        args = ["ntt", "--field", "goldilocks", "--in", data, "--columns", "8", "--threads", "1"] + extra
        alone = os.path.join(tmp, "ntt_1.bin")
        r = run([HYPROVE] + args + ["--out", alone])
        check(r.returncode == 0, f"ntt {' '.join(extra)} as one process", show(r))
        for np in (2, 3):
            out = os.path.join(tmp, f"ntt_{np}.bin")
            r = mpi(np, args + ["--out", out])
            check(r.returncode == 0 and same_file(alone, out),
                  f"ntt {' '.join(extra)} on {np} ranks: the same output file", show(r))
    r = mpi(2, ["bench", "ntt", "--field", "goldilocks", "--log-n", "10", "--lde", "2", "--threads", "1"])
    e = errors(r)
    check(r.returncode == 2 and len(e) == 1 and "not across ranks" in e[0], "bench ntt --lde on 2 ranks: refused",
          show(r))


def test_bench(tmp):
    f = os.path.join(FIXTURES, "bn128_2e10")
    runs = [("bench msm", ["bench", "msm", "--curve", "bn254", "--log-n", "12", "--repeat", "2", "--threads", "1",
                           "--device", "cpu"], "msm"),
            ("bench ntt", ["bench", "ntt", "--field", "goldilocks", "--log-n", "10", "--batch", "4", "--repeat", "2",
                           "--threads", "1"], "ntt"),
            ("bench groth16", ["bench", "groth16", os.path.join(f, "circuit.zkey"), os.path.join(f, "witness.wtns"),
                               "--repeat", "2", "--threads", "1", "--devices", "cpu"], "groth16")]
    for what, args, op in runs:
        out = os.path.join(tmp, op + "_bench.json")
        r = mpi(2, args + ["--json", out])
        check(r.returncode == 0 and "ranks 2" in r.stdout, f"{what} on 2 ranks: the table has its ranks line", show(r))
        try:
            recs = json.load(open(out))["records"]
            check(recs and all(x["op"] == op and x["ranks"] == 2 and x["bytes_sent"] > 0 for x in recs),
                  f"{what} on 2 ranks: JSON records with ranks 2 and bytes_sent", f"{recs}")
        except (OSError, ValueError, KeyError) as ex:
            check(False, f"{what} on 2 ranks: JSON records with ranks 2 and bytes_sent", repr(ex))
    r = mpi(2, ["bench", "msm", "--curve", "bn254", "--log-n", "10", "--resident", "--repeat", "1"])
    e = errors(r)
    check(r.returncode == 2 and len(e) == 1 and "not across ranks" in e[0], "bench msm --resident on 2 ranks: refused",
          show(r))


def fixtures():
    for name in sorted(os.listdir(FIXTURES)):
        f = os.path.join(FIXTURES, name)
        if all(os.path.exists(os.path.join(f, x)) for x in ("circuit.zkey", "witness.wtns", "verification_key.json",
                                                            "public.json")):
            yield name, f


def test_prove(tmp):
    for name, f in fixtures():
        np = 3 if name == "bn128_2e10" else 2
        proof, public = os.path.join(tmp, f"{name}.proof.json"), os.path.join(tmp, f"{name}.public.json")
        r = mpi(np, ["groth16", "prove", os.path.join(f, "circuit.zkey"), os.path.join(f, "witness.wtns"), proof,
                     public, "--threads", "1", "--report"])
        check(r.returncode == 0 and os.path.exists(proof), f"groth16 prove {name} on {np} ranks", show(r))
        if r.returncode != 0:
            continue
        check("ranks" in r.stdout, f"groth16 prove {name} --report: the ranks line", show(r))
        ok, why = snarkjs_verify(f, public, proof)
        check(ok, f"groth16 prove {name} on {np} ranks: snarkjs verifies", why)
        check(json.load(open(public)) == json.load(open(os.path.join(f, "public.json"))),
              f"groth16 prove {name} on {np} ranks: public.json is the fixture's")


def test_bad_rank(tmp):
    f = os.path.join(FIXTURES, "bn128_2e10")
    zkey, wtns = os.path.join(f, "circuit.zkey"), os.path.join(f, "witness.wtns")
    corrupt = os.path.join(tmp, "corrupt.zkey")
    with open(zkey, "rb") as src, open(corrupt, "wb") as dst:
        dst.write(src.read()[:5000])
    proof, public = os.path.join(tmp, "bad.proof.json"), os.path.join(tmp, "bad.public.json")
    r = mpi(2, [["groth16", "prove", zkey, wtns, proof, public, "--threads", "1"],
                ["groth16", "prove", corrupt, wtns, proof, public, "--threads", "1"]])
    e = errors(r)
    check(r.returncode != 0 and len(e) == 1 and "rank 1" in e[0] and "corrupt.zkey" in e[0],
          "a rank with a truncated zkey: the job fails with one error line naming rank 1", show(r))
    check(not os.path.exists(proof) and not os.path.exists(public), "a rank with a truncated zkey: no output file")
    other = os.path.join(FIXTURES, "edge_pub", "circuit.zkey")
    r = mpi(2, [["groth16", "prove", zkey, wtns, proof, public, "--threads", "1"],
                ["groth16", "prove", other, wtns, proof, public, "--threads", "1"]])
    e = errors(r)
    check(r.returncode != 0 and len(e) == 1 and "rank 1" in e[0] and "zkey" in e[0] and "differs" in e[0],
          "a rank with another valid zkey: the digest mismatch, one error line", show(r))
    check(not os.path.exists(proof) and not os.path.exists(public), "a rank with another zkey: no output file")
    r = mpi(2, ["devices"])
    e = errors(r)
    check(r.returncode == 2 and len(e) == 1 and "does not run across ranks" in e[0],
          "devices on 2 ranks: one error from rank 0, exit 2", show(r))


def test_batch(tmp):
    f = os.path.join(FIXTURES, "bn128_2e10")
    zkey = os.path.join(f, "circuit.zkey")
    wdir, outdir = os.path.join(tmp, "batch", "w"), os.path.join(tmp, "batch", "out")
    os.makedirs(wdir)
    os.makedirs(outdir)
    names = [f"w{i}" for i in range(6)]
    for n in names:
        shutil.copy(os.path.join(f, "witness.wtns"), os.path.join(wdir, n + ".wtns"))
    with open(os.path.join(f, "witness.wtns"), "rb") as src, open(os.path.join(wdir, "cut.wtns"), "wb") as dst:
        dst.write(src.read()[:200])
    entries = ["# six good witnesses and a truncated one (the fourth entry)", "w/w0.wtns", "", "w/w1.wtns",
               "  w/w2.wtns  ", "w/cut.wtns", "w/w3.wtns", "w/w4.wtns", os.path.join(wdir, "w5.wtns")]
    listing = os.path.join(tmp, "batch", "list.txt")
    with open(listing, "w") as out:
        out.write("\n".join(entries) + "\n")
    summary = os.path.join(tmp, "batch", "summary.json")
    for np in (2, 3):
        for n in os.listdir(outdir):
            os.unlink(os.path.join(outdir, n))
        # on 3 ranks each rank proves over precomputed sections (the proofs are the same bits)
        r = mpi(np, ["groth16", "prove-batch", zkey, listing, outdir, "--threads", "1", "--json", summary] +
                (["--precompute", "2"] if np == 3 else []))
        e = errors(r)
        check(r.returncode == 1 and len(e) == 1 and e[0].startswith("hyprove: error: witness 4 (") and "cut.wtns" in e[0],
              f"prove-batch on {np} ranks: exactly the truncated witness (entry 4) reported", show(r))
        written = sorted(os.listdir(outdir))
        expect = sorted([n + ".proof.json" for n in names] + [n + ".public.json" for n in names])
        check(written == expect, f"prove-batch on {np} ranks: the six others written, nothing for the bad one",
              f"{written}")
        try:
            rec = json.load(open(summary))["records"][0]
            check(rec["op"] == "groth16_batch" and rec["proofs"] == 6 and rec["failed"] == 1 and rec["ranks"] == np and
                  rec["proofs_per_s"] > 0, f"prove-batch on {np} ranks: the JSON summary", f"{rec}")
        except (OSError, ValueError, KeyError, IndexError) as ex:
            check(False, f"prove-batch on {np} ranks: the JSON summary", repr(ex))
        for n in names if np == 2 else names[:1]:
            ok, why = snarkjs_verify(f, os.path.join(outdir, n + ".public.json"), os.path.join(outdir, n + ".proof.json"))
            check(ok, f"prove-batch on {np} ranks: snarkjs verifies {n}", why)
    # a rank that fails (an injected fault on rank 1's first witness, not the witness's fault): that
    # witness is proved by rank 0, the outcomes are those of a run without faults, the report says so
    for n in os.listdir(outdir):
        os.unlink(os.path.join(outdir, n))
    os.environ["HPR_SCHED_INJECT_FAULT"] = "rank:1@1"
    try:
        r = run(BASE + ["-x", "HPR_SCHED_INJECT_FAULT"] + transport +
                ["-np", "2", HYPROVE, "groth16", "prove-batch", zkey, listing, outdir, "--threads", "1"])
    finally:
        del os.environ["HPR_SCHED_INJECT_FAULT"]
    e = errors(r)
    check(r.returncode == 1 and len(e) == 1 and e[0].startswith("hyprove: error: witness 4 ("),
          "prove-batch with rank 1 failing a witness: still exactly the truncated one reported", show(r))
    check(sorted(os.listdir(outdir)) == expect, "prove-batch with rank 1 failing a witness: the six others written",
          f"{sorted(os.listdir(outdir))}")
    check(re.search(r"rank 1 \d+ tiles \([^)]*1 failed", r.stderr) is not None,
          "prove-batch with rank 1 failing a witness: the ranks line counts rank 1's failure", show(r))


def main():
    os.environ.setdefault("HPR_CACHE_DIR", tempfile.mkdtemp(prefix="hpr-mpi-cache-"))
    os.environ.setdefault("HPR_TEST_SEED", "1")
    if not SNARKJS:
        print("snarkjs not found (scripts/install-deps.sh installs it into .deps/snarkjs): the proofs are not checked "
              "by snarkjs, only made", flush=True)
    if not pick_transport():
        print("FAIL: mpirun cannot start 2 ranks here with either transport")
        return 1
    with tempfile.TemporaryDirectory(prefix="hpr-mpi-") as tmp:
        for test in (test_msm, test_ntt, test_bench, test_prove, test_bad_rank, test_batch):
            test(tmp)
    print(f"{len(failures)} failure(s)" if failures else "all passed", flush=True)
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
