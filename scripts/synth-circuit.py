#!/usr/bin/env python3
"""synth-circuit.py -- write a synthetic circom-format circuit and a satisfying witness
for a Groth16 domain of 2^LOG2, fast (no circom, no wasm): circuit.r1cs (iden3 r1cs
version 1), witness.wtns (version 2) and info.txt in OUTDIR.

usage: synth-circuit.py [--curve bn128|bls12381] [--seed S] [--verify] LOG2 OUTDIR

  --curve   bn128 (default) or bls12381 (the scalar field r of the r1cs and the witness)
  --seed    PRNG seed, a non-negative integer (default 1); the output is a function of
            (curve, seed, LOG2) only: the same bytes under any python3 (checked: 3.6,
            3.11, 3.13)
  --verify  read the two files back and check every constraint mod r (CPython: about
            0.3 s per 10^5 constraints; holds both files in memory)

It is a stand-in for real circuits (SHA-256, hash chains), not one: a multiplication
chain and 64-bit decompositions, so that most witness values are 0 or 1. Signals, in
circom's order: w[0] = 1; 2 outputs; 4 public inputs pub[0..3]; 2 private inputs s0, s1;
then the intermediates. nPublic = 6. The constraints:
  round (91 constraints, 91 new wires), repeated nRounds times:
    25 x   y = x*x + pub[k % 4]: A = {x: 1}, B = {x: 1}, C = {pub_k: r-1, y: 1}; the
           running value x starts at s0, k counts the multiplications from 0
     1 x   v: a fresh PRNG value < 2^64 (a private intermediate), bits b_j = (v >> j) & 1
    64 x   b_j * (b_j - 1) = 0: A = {b_j: 1}, B = {w0: r-1, b_j: 1}, C = {}
     1 x   1 * (sum_j 2^j b_j) = v: A = {w0: 1}, B = {b_0: 1, ..., b_63: 2^63}, C = {v: 1}
           (a linear relation written as a multiplication by one, as circom keeps none
           at --O1; the long rows)
     1 x   1 * (sum + v) = sum': A = {w0: 1}, B = {sum: 1, v: 1}, C = {sum': 1}; the
           running sum starts at s1
  then nExtra more multiplications of the chain (0..90) and two copies:
    out_x = x (A = {w0: 1}, B = {x: 1}, C = {w1: 1}), out_sum = sum (same with w2).
  nConstraints = floor(0.9 * 2^LOG2) = 91*nRounds + nExtra + 2, so the Groth16 domain
  (the smallest power of two >= nConstraints + nPublic + 1) is 2^LOG2: 70.3% of the
  rounds' constraints are boolean ones. Terms: 1-2 per linear combination, except the
  64-term sums. Terms are sorted by wire, coefficients in normal form; labels = wire ids.
  Sections are written in circom's physical order 2, 1, 3 (readers find them by id).
PRNG: splitmix64 from the seed; pub[i], s0 and s1 are 256-bit PRNG values mod r.

Files are written under temporary names in OUTDIR and renamed when complete.
"""
import argparse
import os
import struct
import sys
import time
from array import array

GENERATOR = "synth-circuit 1"
PRIMES = {
    "bn128": 21888242871839275222246405745257275088548364400416034343698204186575808495617,
    "bls12381": 52435875175126190479447740508185965837690552500527637822603658699938581184513,
}
N8 = 32
N_OUT, N_PUB_IN, N_PRV_IN = 2, 4, 2
N_PUBLIC = N_OUT + N_PUB_IN
MUL_PER_ROUND = 25
NBITS = 64
ROUND = MUL_PER_ROUND + 1 + NBITS + 1   # wires per round (y's, v, bits, sum')
ROUND_CONS = MUL_PER_ROUND + NBITS + 2  # constraints per round; equal to ROUND
W_PUB = 1 + N_OUT                       # first public input wire
W_S0 = W_PUB + N_PUB_IN                 # private inputs
W_S1 = W_S0 + 1
W_FIRST = W_S1 + 1                      # first intermediate wire
MASK64 = (1 << 64) - 1


def plan(log2):
    """(nConstraints, nRounds, nExtra, nWires) for domain 2^log2, or raises ValueError."""
    n = 1 << log2
    t = n * 9 // 10
    if t + N_PUBLIC + 1 > n or t + N_PUBLIC + 1 <= n // 2 or t < 2:
        raise ValueError("LOG2 = {} is too small: floor(0.9 * 2^LOG2) + {} must lie in "
                         "(2^(LOG2-1), 2^LOG2] (LOG2 >= 7)".format(log2, N_PUBLIC + 1))
    n_rounds = (t - 2) // ROUND_CONS
    n_extra = t - 2 - ROUND_CONS * n_rounds
    n_wires = W_FIRST + ROUND * n_rounds + n_extra
    if n_wires >= 1 << 32:
        raise ValueError("LOG2 = {} needs more than 2^32 wires".format(log2))
    return t, n_rounds, n_extra, n_wires


class SplitMix64(object):
    def __init__(self, seed):
        self.s = seed & MASK64

    def next(self):
        self.s = (self.s + 0x9E3779B97F4A7C15) & MASK64
        z = self.s
        z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & MASK64
        z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & MASK64
        return z ^ (z >> 31)

    def field(self, r):
        x = 0
        for _ in range(4):
            x = (x << 64) | self.next()
        return x % r


class Template(object):
    """The bytes of a run of constraints whose wire ids are either absolute or relative to
    a base wire. instance(base) = (T + base*M).to_bytes(...): one big-integer multiply-add
    fills every relative wire id at once (each u32 field holds offset + base < 2^32, so no
    carry crosses a field; negative offsets borrow from the field's own bytes only)."""

    def __init__(self):
        self.buf = bytearray()
        self.rel = []      # (byte position, offset)

    def lc(self, terms):
        """terms: list of (kind, wire or offset, 32-byte coefficient), kind 'a' or 'r'."""
        buf = self.buf
        buf += struct.pack("<I", len(terms))
        for kind, w, coef in terms:
            if kind == "r":
                self.rel.append((len(buf), w))
                buf += b"\0\0\0\0"
            else:
                buf += struct.pack("<I", w)
            buf += coef

    def freeze(self):
        size = len(self.buf)
        mbuf = bytearray(size)
        neg = 0
        for pos, off in self.rel:
            mbuf[pos] = 1
            if off >= 0:
                struct.pack_into("<I", self.buf, pos, off)
            else:
                neg += off << (8 * pos)
        self.t = int.from_bytes(bytes(self.buf), "little") + neg
        self.m = int.from_bytes(bytes(mbuf), "little")
        self.size = size
        del self.buf, self.rel
        return self

    def instance(self, base):
        return (self.t + base * self.m).to_bytes(self.size, "little")


def sort_terms(terms, base_hint):
    """Sort by actual wire id (absolute ids are < any relative one's base, except
    relative negative offsets, which point to earlier rounds but after the inputs)."""
    def key(t):
        kind, w, _ = t
        return w if kind == "a" else base_hint + w
    return sorted(terms, key=key)


def build_round(r, first, phase, enc):
    """Template of one round. first: the round reads s0/s1 (absolute), else the previous
    round's last y and sum'. phase: the multiplication counter at the round's start, mod 4."""
    one, minus1, pow2 = enc
    tpl = Template()
    hint = W_FIRST + ROUND  # any base past the inputs, only used to order terms
    x = ("a", W_S0) if first else ("r", MUL_PER_ROUND - 1 - ROUND)
    for i in range(MUL_PER_ROUND):
        pub = ("a", W_PUB + (phase + i) % 4)
        tpl.lc([x + (one,)])
        tpl.lc([x + (one,)])
        tpl.lc(sort_terms([pub + (minus1,), ("r", i, one)], hint))
        x = ("r", i)
    v = MUL_PER_ROUND
    for j in range(NBITS):
        tpl.lc([("r", v + 1 + j, one)])
        tpl.lc([("a", 0, minus1), ("r", v + 1 + j, one)])
        tpl.lc([])
    tpl.lc([("a", 0, one)])
    tpl.lc([("r", v + 1 + j, pow2[j]) for j in range(NBITS)])
    tpl.lc([("r", v, one)])
    s = ("a", W_S1) if first else ("r", -1)
    tpl.lc([("a", 0, one)])
    tpl.lc(sort_terms([s + (one,), ("r", v, one)], hint))
    tpl.lc([("r", ROUND - 1, one)])
    return tpl.freeze()


def lc_bytes(terms):
    """terms: list of (wire, 32-byte coefficient), absolute wires."""
    out = [struct.pack("<I", len(terms))]
    for w, c in sorted(terms, key=lambda t: t[0]):
        out.append(struct.pack("<I", w))
        out.append(c)
    return b"".join(out)


def binfile_header(magic, version, nsections):
    return magic + struct.pack("<II", version, nsections)


def section_header(sid, size):
    return struct.pack("<IQ", sid, size)


def generate(curve, seed, log2, outdir):
    r = PRIMES[curve]
    n_cons, n_rounds, n_extra, n_wires = plan(log2)
    enc = ((1).to_bytes(N8, "little"), (r - 1).to_bytes(N8, "little"),
           [(1 << j).to_bytes(N8, "little") for j in range(NBITS)])
    one, minus1 = enc[0], enc[1]
    zero = bytes(N8)
    # the bits of one byte of v as 8 witness values (32 bytes each, 0 or 1)
    byte_bits = [b"".join(one if (b >> i) & 1 else zero for i in range(8)) for b in range(256)]

    rng = SplitMix64(seed)
    pub = [rng.field(r) for _ in range(N_PUB_IN)]
    s0 = rng.field(r)
    s1 = rng.field(r)

    pid = os.getpid()
    r1cs_tmp = os.path.join(outdir, ".circuit.r1cs.tmp.{}".format(pid))
    wtns_tmp = os.path.join(outdir, ".witness.wtns.tmp.{}".format(pid))
    info_tmp = os.path.join(outdir, ".info.txt.tmp.{}".format(pid))
    n_bool = NBITS * n_rounds
    try:
        with open(r1cs_tmp, "wb") as fr, open(wtns_tmp, "wb") as fw:
            # ---- witness header; w[1], w[2] (outputs) are patched at the end
            fw.write(binfile_header(b"wtns", 2, 2))
            fw.write(section_header(1, 4 + N8 + 4))
            fw.write(struct.pack("<I", N8) + r.to_bytes(N8, "little") + struct.pack("<I", n_wires))
            fw.write(section_header(2, N8 * n_wires))
            wit_start = fw.tell()
            fw.write(one + zero + zero)
            fw.write(b"".join(p.to_bytes(N8, "little") for p in pub + [s0, s1]))
            # ---- r1cs: circom's physical order, section 2 first; its size is patched
            fr.write(binfile_header(b"r1cs", 1, 3))
            s2_hdr = fr.tell()
            fr.write(section_header(2, 0))
            s2_start = fr.tell()

            templates = {}
            x, acc = s0, s1
            k = 0                      # multiplication counter
            base = W_FIRST
            p0, p1, p2, p3 = pub
            pubs = (p0, p1, p2, p3)
            write_r, write_w = fr.write, fw.write
            next64 = rng.next
            for rnd in range(n_rounds):
                key = (rnd == 0, k & 3)
                tpl = templates.get(key)
                if tpl is None:
                    tpl = templates[key] = build_round(r, key[0], key[1], enc)
                write_r(tpl.instance(base))
                vals = []
                for i in range(MUL_PER_ROUND):
                    x = (x * x + pubs[(k + i) & 3]) % r
                    vals.append(x.to_bytes(N8, "little"))
                k += MUL_PER_ROUND
                v = next64()
                vb = v.to_bytes(8, "little")
                vals.append(vb + bytes(N8 - 8))
                for c in vb:
                    vals.append(byte_bits[c])
                acc = (acc + v) % r
                vals.append(acc.to_bytes(N8, "little"))
                write_w(b"".join(vals))
                base += ROUND
            # ---- the chain's tail, then the two output copies
            xw = W_S0 if n_rounds == 0 else base - ROUND + MUL_PER_ROUND - 1
            sw = W_S1 if n_rounds == 0 else base - 1
            tail_r, tail_w = [], []
            for i in range(n_extra):
                y = base + i
                tail_r.append(lc_bytes([(xw, one)]) + lc_bytes([(xw, one)]) +
                              lc_bytes([(W_PUB + (k & 3), minus1), (y, one)]))
                x = (x * x + pubs[k & 3]) % r
                tail_w.append(x.to_bytes(N8, "little"))
                k += 1
                xw = y
            base += n_extra
            tail_r.append(lc_bytes([(0, one)]) + lc_bytes([(xw, one)]) + lc_bytes([(1, one)]))
            tail_r.append(lc_bytes([(0, one)]) + lc_bytes([(sw, one)]) + lc_bytes([(2, one)]))
            write_r(b"".join(tail_r))
            write_w(b"".join(tail_w))
            if base != n_wires:
                raise AssertionError("wire count {} != {}".format(base, n_wires))
            if fw.tell() != wit_start + N8 * n_wires:
                raise AssertionError("witness size")
            fw.seek(wit_start + N8)
            fw.write(x.to_bytes(N8, "little") + acc.to_bytes(N8, "little"))

            s2_end = fr.tell()
            fr.write(section_header(1, 4 + N8 + 4 * 4 + 8 + 4))
            fr.write(struct.pack("<I", N8) + r.to_bytes(N8, "little") +
                     struct.pack("<IIIIQI", n_wires, N_OUT, N_PUB_IN, N_PRV_IN, n_wires, n_cons))
            fr.write(section_header(3, 8 * n_wires))
            labels = array("Q", range(n_wires))
            if labels.itemsize != 8:
                raise AssertionError("array 'Q' is not 64-bit here")
            if sys.byteorder != "little":
                labels.byteswap()
            fr.write(labels.tobytes())
            fr.seek(s2_hdr)
            fr.write(section_header(2, s2_end - s2_start))
        os.replace(r1cs_tmp, os.path.join(outdir, "circuit.r1cs"))
        os.replace(wtns_tmp, os.path.join(outdir, "witness.wtns"))
    finally:
        for p in (r1cs_tmp, wtns_tmp):
            if os.path.exists(p):
                os.unlink(p)

    n_mul = k
    info = [
        "generator={} ({})".format(GENERATOR, os.path.basename(__file__)),
        "curve={}".format(curve),
        "seed={}".format(seed),
        "log2={}".format(log2),
        "constraints={}".format(n_cons),
        "wires={}".format(n_wires),
        "outputs={}".format(N_OUT),
        "public_inputs={}".format(N_PUB_IN),
        "private_inputs={}".format(N_PRV_IN),
        "nPublic={}".format(N_PUBLIC),
        "domain=2^{} ({}), {:.1f}% used".format(log2, 1 << log2,
                                                100.0 * (n_cons + N_PUBLIC + 1) / (1 << log2)),
        "rounds={} (each {} multiplications, {} boolean, 1 decomposition, 1 sum)".format(
            n_rounds, MUL_PER_ROUND, NBITS),
        "extra_multiplications={}".format(n_extra),
        "boolean_constraints={} ({:.1f}%)".format(n_bool, 100.0 * n_bool / n_cons),
        "multiplications={}".format(n_mul),
        "pub_in=[{}]".format(", ".join('"{}"'.format(p) for p in pub)),
        "secret=[\"{}\", \"{}\"]".format(s0, s1),
        "out=[\"{}\", \"{}\"]".format(x, acc),
    ]
    with open(info_tmp, "w") as f:
        f.write("\n".join(info) + "\n")
    os.replace(info_tmp, os.path.join(outdir, "info.txt"))
    return info


# ------------------------------------------------------------------ verification
def read_sections(path, magic):
    with open(path, "rb") as f:
        data = f.read()
    if data[:4] != magic:
        raise ValueError("{}: not a {} file".format(path, magic.decode()))
    nsec = struct.unpack_from("<I", data, 8)[0]
    pos, secs = 12, {}
    for _ in range(nsec):
        sid, size = struct.unpack_from("<IQ", data, pos)
        if sid in secs:
            raise ValueError("{}: section {} twice".format(path, sid))
        secs[sid] = (pos + 12, size)
        pos += 12 + size
    if pos != len(data):
        raise ValueError("{}: {} bytes after the last section".format(path, len(data) - pos))
    return data, secs


def verify(outdir, curve):
    r = PRIMES[curve]
    d, s = read_sections(os.path.join(outdir, "circuit.r1cs"), b"r1cs")
    p, size = s[1]
    n8 = struct.unpack_from("<I", d, p)[0]
    if n8 != N8 or int.from_bytes(d[p + 4:p + 4 + n8], "little") != r:
        raise ValueError("r1cs: wrong field")
    n_wires, n_out, n_pub, n_prv, n_labels, n_cons = struct.unpack_from("<IIIIQI", d, p + 4 + n8)
    wd, ws = read_sections(os.path.join(outdir, "witness.wtns"), b"wtns")
    wp, _ = ws[1]
    if struct.unpack_from("<I", wd, wp)[0] != N8 or \
            int.from_bytes(wd[wp + 4:wp + 36], "little") != r:
        raise ValueError("wtns: wrong field")
    n_wit = struct.unpack_from("<I", wd, wp + 36)[0]
    if n_wit != n_wires or ws[2][1] != N8 * n_wires:
        raise ValueError("wtns: {} values, r1cs nWires {}".format(n_wit, n_wires))
    w0 = ws[2][0]
    w = [int.from_bytes(wd[w0 + N8 * i:w0 + N8 * (i + 1)], "little") for i in range(n_wires)]
    if w[0] != 1 or any(x >= r for x in w):
        raise ValueError("wtns: w[0] != 1 or a value >= r")
    p, size = s[2]
    end = p + size
    unpack = struct.unpack_from
    frm = int.from_bytes

    def lc(p):
        n = unpack("<I", d, p)[0]
        p += 4
        acc = 0
        for _ in range(n):
            wire = unpack("<I", d, p)[0]
            c = frm(d[p + 4:p + 36], "little")
            if c >= r or wire >= n_wires:
                raise ValueError("r1cs: bad term at byte {}".format(p))
            acc += c * w[wire]
            p += 36
        return acc, p

    for i in range(n_cons):
        a, p = lc(p)
        b, p = lc(p)
        c, p = lc(p)
        if (a * b - c) % r:
            raise ValueError("constraint {} is not satisfied".format(i))
    if p != end:
        raise ValueError("r1cs: section 2 has {} bytes after the last constraint".format(end - p))
    labels = array("Q")
    labels.frombytes(d[s[3][0]:s[3][0] + s[3][1]])
    if sys.byteorder != "little":
        labels.byteswap()
    if len(labels) != n_wires:
        raise ValueError("r1cs: {} labels, nWires {}".format(len(labels), n_wires))
    return n_cons, n_wires


def main():
    ap = argparse.ArgumentParser(
        description="Write a synthetic circom-format circuit.r1cs + witness.wtns for domain 2^LOG2.")
    ap.add_argument("--curve", choices=sorted(PRIMES), default="bn128")
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--verify", action="store_true",
                    help="read the files back and check every constraint (slow)")
    ap.add_argument("log2", type=int, metavar="LOG2")
    ap.add_argument("outdir", metavar="OUTDIR")
    a = ap.parse_args()
    if a.seed < 0:
        ap.error("--seed must be >= 0")
    if not 0 <= a.log2 <= 28:
        ap.error("LOG2 must be in 7..28")
    try:
        plan(a.log2)
    except ValueError as e:
        ap.error(str(e))
    if not os.path.isdir(a.outdir):
        os.makedirs(a.outdir)
    t0 = time.time()
    info = generate(a.curve, a.seed, a.log2, a.outdir)
    dt = time.time() - t0
    for line in info[:15]:
        print(line)
    print("files={} {} ({:.1f} MB, {:.1f} MB)".format(
        os.path.join(a.outdir, "circuit.r1cs"), os.path.join(a.outdir, "witness.wtns"),
        os.path.getsize(os.path.join(a.outdir, "circuit.r1cs")) / 1e6,
        os.path.getsize(os.path.join(a.outdir, "witness.wtns")) / 1e6))
    print("seconds={:.2f}".format(dt))
    if a.verify:
        t0 = time.time()
        n_cons, n_wires = verify(a.outdir, a.curve)
        print("verify=ok ({} constraints, {} wires, {:.2f} s)".format(n_cons, n_wires, time.time() - t0))
    sys.stdout.flush()


if __name__ == "__main__":
    main()
