#!/usr/bin/env python3
"""make_corpus.py: the seed corpora of the libFuzzer targets (tests/fuzz/corpus/<target>/),
made from the fixtures in tests/fixtures, byte for byte the same on every run.

    python3 tests/fuzz/make_corpus.py [OUT_DIR]     (default: tests/fuzz/corpus)

Each target's folder is emptied and written again. Seeds, in each target's input format (see
the comment at the top of its .c file):
  fuzz_zkey_wtns        zkey length (u32 LE), .zkey, .wtns: edge_pub and edge_nopub whole, and
                        bn128_2e10 and bls12381_2e12 cut down to 16 signals and 16 constraints
                        (their first points of each section, the coefficients that stay in
                        range, the first witness values: keys the parser accepts and the
                        target proves in milliseconds; the proofs do not verify, which the
                        target does not ask). The whole fixtures (422 KB and 2.4 MB) would only
                        be parsed, never proved, by the target, and would slow every run.
  fuzz_msm_ntt_loaders  hyprove msm inputs (points from the zkeys' sections, scalars from the
                        witnesses) for both curves and groups, hyprove ntt inputs for each
                        field, and hpr_msm_ex / hpr_ntt option records
  fuzz_decimal_points   the fixtures' G1 points as decimal x, y, z (proofs and keys), edges
  fuzz_json_readers     verification_key.json, public.json, proof_r0s0.json of each fixture
                        (NUL-separated), and small JSON texts
  fuzz_r1cs_setup       circuit.r1cs of edge_pub and edge_nopub (circuits small enough for the
                        target to set up), and bn128_2e10's header with its first 16
                        constraints (the counts rewritten to match)
"""
import json
import os
import shutil
import struct
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
FIXTURES = os.path.join(HERE, '..', 'fixtures')
KEEP_VARS = 16
KEEP_DOMAIN = 16


def read(*path):
    with open(os.path.join(FIXTURES, *path), 'rb') as f:
        return f.read()


def sections(data):
    """The container's sections as {id: bytes}, and its magic and version."""
    magic, version, count = data[:4], *struct.unpack('<II', data[4:12])
    off, out = 12, {}
    for _ in range(count):
        sid, size = struct.unpack('<IQ', data[off:off + 12])
        out[sid] = data[off + 12:off + 12 + size]
        off += 12 + size
    return magic, version, out


def container(magic, version, secs):
    body = b''.join(struct.pack('<IQ', sid, len(s)) + s for sid, s in secs)
    return magic + struct.pack('<II', version, len(secs)) + body


def zkey_header(secs):
    h = secs[2]
    n8q = struct.unpack('<I', h[:4])[0]
    c = 4 + n8q + 4 + 32
    n_vars, n_public, domain = struct.unpack('<III', h[c:c + 12])
    return n8q, c, n_vars, n_public, domain


def reduce_zkey(zkey, wtns):
    """The key and witness cut down to KEEP_VARS signals and a KEEP_DOMAIN domain."""
    magic, version, s = sections(zkey)
    n8q, c, n_vars, n_public, domain = zkey_header(s)
    g1, g2 = 2 * n8q, 4 * n8q
    nv, dom = min(n_vars, KEEP_VARS), min(domain, KEEP_DOMAIN)
    assert n_public < nv
    header = s[2][:c] + struct.pack('<III', nv, n_public, dom) + s[2][c + 12:]
    entry = 12 + 32
    coefs = []
    for i in range(struct.unpack('<I', s[4][:4])[0]):
        e = s[4][4 + i * entry:4 + (i + 1) * entry]
        _, row, signal = struct.unpack('<III', e[:12])
        if row < dom and signal < nv:
            coefs.append(e)
    out = [(1, s[1]), (2, header), (3, s[3][:(n_public + 1) * g1]),
           (4, struct.pack('<I', len(coefs)) + b''.join(coefs)),
           (5, s[5][:nv * g1]), (6, s[6][:nv * g1]), (7, s[7][:nv * g2]),
           (8, s[8][:(nv - n_public - 1) * g1]), (9, s[9][:dom * g1])]
    wmagic, wversion, w = sections(wtns)
    whead = w[1][:36] + struct.pack('<I', nv)
    return container(magic, version, out), container(wmagic, wversion, [(1, whead), (2, w[2][:nv * 32])])


def pack_zkey_wtns(zkey, wtns):
    return struct.pack('<I', len(zkey)) + zkey + wtns


def zkey_points(name, sid, count):
    """The first count points of a zkey section that are not infinity (all zero)."""
    _, _, s = sections(read(name, 'circuit.zkey'))
    n8q = zkey_header(s)[0]
    size = 2 * n8q if sid != 7 else 4 * n8q
    points = [s[sid][i:i + size] for i in range(0, len(s[sid]), size)]
    return b''.join([p for p in points if any(p)][:count])


def witness_scalars(name, count):
    _, _, w = sections(read(name, 'witness.wtns'))
    return w[2][:count * 32]


def lines(*values):
    return ''.join(v + '\n' for v in values).encode()


def msm_cli(curve, group, window, device, tier, points, scalars):
    return b'\x00' + lines(curve, group, window, device, tier) + struct.pack('<H', len(points)) + points + scalars


def ntt_cli(flags, field, coset, order, gen, columns, device, data):
    return bytes([1 | flags]) + lines(field, coset, order, gen, columns, device) + data


def elements(size, count, bits):
    """count small canonical elements of size bytes (below 2^bits)."""
    return b''.join(((i * 2654435761 + 12345) % (1 << bits)).to_bytes(size, 'little') for i in range(count))


def seeds_zkey_wtns():
    out = {}
    for name in ('edge_pub', 'edge_nopub'):
        out[name] = pack_zkey_wtns(read(name, 'circuit.zkey'), read(name, 'witness.wtns'))
    for name in ('bn128_2e10', 'bls12381_2e12'):
        z, w = reduce_zkey(read(name, 'circuit.zkey'), read(name, 'witness.wtns'))
        out[name + '_reduced'] = pack_zkey_wtns(z, w)
    out['edge_pub_no_witness'] = pack_zkey_wtns(read('edge_pub', 'circuit.zkey'), b'')
    return out


def seeds_msm_ntt():
    bn, bls = 'bn128_2e10', 'bls12381_2e12'
    out = {
        'msm_bn254_g1': msm_cli('bn254', 'g1', '', 'cpu', '', zkey_points(bn, 5, 4), witness_scalars(bn, 4)),
        'msm_bn254_g2_window': msm_cli('bn254', 'g2', '3', 'all', 'portable', zkey_points(bn, 7, 3),
                                       witness_scalars(bn, 3)),
        'msm_bls12381_g1': msm_cli('bls12-381', 'g1', '5', 'cpu', '', zkey_points(bls, 5, 4),
                                   witness_scalars(bls, 4)),
        'msm_bls12381_g2': msm_cli('bls12381', 'g2', '', '', '', zkey_points(bls, 7, 2), witness_scalars(bls, 2)),
        'msm_empty': msm_cli('bn254', '', '', 'cpu', '', b'', b''),
        'ntt_bn254_fr': ntt_cli(0, 'bn254-fr', '', 'nn', '', '', 'cpu', witness_scalars(bn, 8)),
        'ntt_bls12381_fr_coset': ntt_cli(4, 'bls12-381-fr', '7', 'rn', '', '2', '', witness_scalars(bls, 8)),
        'ntt_goldilocks_generator': ntt_cli(0, 'goldilocks', '3', 'nr', '7', '', 'all', elements(8, 16, 63)),
        'ntt_babybear_rows': ntt_cli(8, 'babybear', '', 'rr', '31', '4', 'cpu', elements(4, 16, 30)),
        'ntt_koalabear': ntt_cli(4, 'koalabear', '5', '', '', '', '', elements(4, 8, 30)),
        # hpr_msm_ex: device line, window_bits, point_chunks, windows_per_tile, shape (curve, group, n), seed
        'opts_msm_bn254_g1': b'\x02' + lines('cpu') + struct.pack('<III', 4, 2, 1) + bytes([5 << 2, 1]),
        'opts_msm_bls12381_g2': b'\x02' + lines('all') + struct.pack('<III', 0, 3, 2) + bytes([3 | 4 << 2, 2]),
        # hpr_ntt: shift, generator, device lines, shape (field, log_n, order), layout, elements
        'opts_ntt_bn254_coset': b'\x03' + lines('5', '', 'cpu') + bytes([0 | 3 << 3 | 1 << 6, 1])
                                + witness_scalars(bn, 16),
        'opts_ntt_goldilocks_generator': b'\x03' + lines('', '7', '') + bytes([2 | 4 << 3 | 3 << 6, 4 | 1])
                                         + elements(8, 32, 63),
    }
    return out


def g1_decimal(point):
    x, y, z = point
    return [x, y, z]


def seeds_decimal():
    out = {}
    for name, ctl in (('bn128_2e10', 0 | 4 << 2), ('bls12381_2e12', 1 | 6 << 2), ('edge_pub', 4 << 2)):
        proof = json.loads(read(name, 'proof_r0s0.json'))
        vk = json.loads(read(name, 'verification_key.json'))
        for field, point in (('pi_a', proof['pi_a']), ('pi_c', proof['pi_c']), ('alpha1', vk['vk_alpha_1'])):
            out['%s_%s' % (name, field)] = bytes([ctl]) + '\n'.join(g1_decimal(point)).encode()
    out['bn254_infinity'] = bytes([0]) + b'0\n1\n0'
    out['bn254_generator_leading_zeros'] = bytes([0 | 1 << 2]) + b'0001\n002\n1'
    out['bls12381_g2_refused'] = bytes([1 | 2 | 12 << 2]) + b'1\n2\n1'
    out['limbs_twelve'] = bytes([12 << 2 | 3 << 6]) + b'9' * 230 + b'\n1\n1'
    return out


def seeds_json():
    out = {}
    for name in ('edge_pub', 'edge_nopub', 'bn128_2e10', 'bls12381_2e12'):
        out[name] = b'\0'.join([read(name, 'verification_key.json'), read(name, 'public.json'),
                                read(name, 'proof_r0s0.json')])
    out['escapes'] = (b' {"a": [1, -2.5e3, "x\\u00e9\\ud83d\\ude00\\n", true, false, null, {}], '
                      b'"b": {"c": "", "c": 0.5E+2}} ')
    out['nested'] = b'[' * 64 + b']' * 64
    return out


def first_constraints(r1cs, count):
    """The r1cs with its first count constraints (nConstraints rewritten), no wire-label map."""
    _, _, secs = sections(r1cs)
    hdr = bytearray(secs[1])
    body, off = secs[2], 0
    for _ in range(count * 3):  # A, B, C of each constraint: a u32 count, then (u32 wire, 32 bytes) terms
        n = struct.unpack_from('<I', body, off)[0]
        off += 4 + 36 * n
    struct.pack_into('<I', hdr, len(hdr) - 4, count)
    return container(b'r1cs', 1, [(1, bytes(hdr)), (2, body[:off])])


def seeds_r1cs():
    out = {}
    for name in ('edge_pub', 'edge_nopub'):
        out[name] = read(name, 'circuit.r1cs')
    out['bn128_2e10_first16'] = first_constraints(read('bn128_2e10', 'circuit.r1cs'), 16)
    return out


def main():
    root = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, 'corpus')
    targets = {'fuzz_zkey_wtns': seeds_zkey_wtns(), 'fuzz_msm_ntt_loaders': seeds_msm_ntt(),
               'fuzz_decimal_points': seeds_decimal(), 'fuzz_json_readers': seeds_json(),
               'fuzz_r1cs_setup': seeds_r1cs()}
    total = 0
    for target, seeds in targets.items():
        d = os.path.join(root, target)
        shutil.rmtree(d, ignore_errors=True)
        os.makedirs(d)
        for name, data in sorted(seeds.items()):
            with open(os.path.join(d, name), 'wb') as f:
                f.write(data)
            total += len(data)
    print('make_corpus.py: %d seeds, %d bytes, in %s' % (sum(len(s) for s in targets.values()), total, root))


if __name__ == '__main__':
    main()
