#!/usr/bin/env bash
# scale-fixtures.sh -- make a Groth16 fixture of domain 2^LOG2 on demand, cached by content
# (never committed), and print its folder as the last line of stdout:
#   dir=$(scripts/scale-fixtures.sh 20 | tail -1)
#
# Usage:
#   scale-fixtures.sh [--curve bn128|bls12381] [--circuit hashchain|sha256|synth]
#                     [--hyprove PATH] [--cache DIR] LOG2
#
#   --curve    bn128 (default) or bls12381
#   --circuit  hashchain (default): make-fixtures.sh's --hashchain circuit (Poseidon(2) chain,
#              Num2Bits(254|255) and a 1-bit mux per round, then a multiplication chain;
#              nPublic 7). nConstraints = 3 + P*nRounds + nMul, P = 775 (bn128) or 776
#              (bls12381); nRounds = floor((T - 3 - 64) / P), nMul = T - 3 - P*nRounds with
#              T = floor(0.9 * 2^LOG2), so the constraints are T (90% of the domain). LOG2 >= 10.
#              sha256: circomlib's Sha256 of a deterministic pseudo-random message of
#              nBlocks*64 - 9 bytes (nBlocks 512-bit blocks once padded), the digest packed into
#              2 outputs (nPublic 2). Measured with circom 2.2.3 --O1 and `snarkjs r1cs info`:
#              one block (Sha256compression) is 31264 constraints, the same with constant and
#              with signal chaining values, and the packing adds 2: nConstraints = 31264*nBlocks
#              + 2. nBlocks = floor(0.9 * 2^LOG2 / 31264), or the most blocks that fit when that
#              falls below half the domain. LOG2 >= 15 (one block does not fit 2^14).
#              synth: no circom. scripts/synth-circuit.py (python3 on PATH, standard library
#              only, seed 1) writes the r1cs and a satisfying witness directly, in seconds at
#              2^22, where circom2 takes over 12 minutes to compile one 2^18 circuit on this
#              2-core machine (so hashchain and sha256 are out of reach past 2^16-2^18).
#              It is a stand-in with the shape of such circuits, not a real one: rounds of 25
#              multiplications x = x*x + pub[k%4], then a fresh 64-bit private value split into
#              64 bits (64 boolean constraints b*(b-1) = 0, one 64-term 1*(sum 2^j b_j) = v row)
#              and a running sum; 70% boolean constraints, most witness values 0/1; outputs the
#              chain's end and the sum (nPublic 6: 2 outputs, 4 public inputs).
#              nConstraints = T = floor(0.9 * 2^LOG2) = 91*nRounds + nExtra + 2. No wasm, no
#              input.json. LOG2 >= 7.
#   --hyprove  the hyprove binary for `groth16 setup` (default: build/release/hyprove of this
#              repository)
#   --cache    cache folder (default: ${XDG_CACHE_HOME:-$HOME/.cache}/hyprove/scale)
# The domain is the smallest power of two >= nConstraints + nPublic + 1; the script checks that
# the compiled circuit lands on 2^LOG2 and stops otherwise.
#
# Steps (each writes temporary names, renamed only when it succeeds, so an interrupted run
# never leaves a file that a later run takes as done; a second run on the same fixture waits):
#   synth    (--circuit synth, instead of compile and witness)
#            python3 synth-circuit.py --curve CURVE --seed 1 LOG2  -> circuit.r1cs, witness.wtns,
#            synth.txt (the generator's counts, seed, inputs and outputs)
#   compile  circom2 circuit.circom --r1cs --wasm --O1 -p CURVE  -> circuit.r1cs, circuit.wasm
#   witness  snarkjs wtns calculate circuit.wasm input.json      -> witness.wtns (sha256: the
#            digest in the witness is checked against node's crypto)
#   setup    hyprove groth16 setup --insecure-dev --seed 1 --vk ...  -> circuit.zkey,
#            verification_key.json (a hyprove without the command stops here, exit status 3,
#            with the r1cs, wasm and witness made)
# Folder: CACHE/<curve>-<circuit>-2e<LOG2>-<first 12 hex of K1>/, K1 = sha256 of circuit.circom,
# input.json, the curve, the circom flags and the tool versions (synth: of synth-circuit.py, a
# copy of which is kept in the folder, the curve and the seed). The zkey is remade when
# K2 = sha256 of circuit.r1cs's sha256, `hyprove --version` and the sha256 of the hyprove binary
# and the libhyprove it loads differs from the one it was made with (.zkey-key): every rebuild
# makes a new key (seconds at 2^20). info.txt: counts, domain, keys,
# tools, and each step's wall seconds and peak RSS (/usr/bin/time, when present).
# Tools: circom2@0.2.23, circomlib@2.0.5 and snarkjs@0.7.6 are npm-installed into CACHE/tools
#   when missing; the snarkjs of scripts/install-deps.sh (.deps/snarkjs) is used when present.
#   synth needs python3 (any python3; the bytes do not depend on its version) and node (the
#   r1cs header is read with it), no npm packages.
# Environment: LOCK, a prefix for the heavy commands, e.g. LOCK="flock -s /tmp/CPU_LOCK".
#
# Constraints this gives (hashchain, synth: the same on both curves, nPublic 7 and 6; sha256:
# nPublic 2):
#   LOG2       10    12     14     15      16      17       18       20        22
#   hashchain  921   3686   14745  29491   58982   117964   235929   943718    3774873
#   sha256     -     -      -      31266   62530   93794    218850   937922    3751682
#   (blocks)                       1       2       3        7        30        120
#   synth      921   3686   14745  29491   58982   117964   235929   943718    3774873
# Checked (2026-12-06, shared 2-core machine, node 20, circom 2.2.3; wall s and peak RSS):
#   bn128 hashchain 2^10: 921 constraints, compile 1.46 s / 224 MB, witness 0.23 s / 74 MB
#   bn128 hashchain 2^12: 3686 constraints, compile 1.60 s / 223 MB, witness 0.24 s / 77 MB
#   bls12381 hashchain 2^12: 3686 constraints, compile 1.65 s / 222 MB, witness 0.24 s / 76 MB
#   bn128 sha256 2^15: 31266 constraints, compile 4.20 s / 281 MB, witness 0.28 s / 80 MB
#   sha256 at 2^10 and 2^12 is refused (exit status 2). `snarkjs wtns check` accepted each
#   witness. Not run: 2^16 and above (the larger counts are computed, not compiled), and the
#   real setup step (this hyprove had no `groth16 setup` yet; exit status 3 there).
#   synth (2026-12-06, same machine, python 3.11, with hyprove's `groth16 setup`):
#   bn128 synth 2^12: 3686 constraints, synth 0.31 s / 15 MB, setup 0.23 s / 17 MB;
#   bls12381 synth 2^12: synth 0.16 s / 15 MB, setup 0.76 s / 20 MB. On both, `hyprove groth16
#   prove --devices cpu` with the zkey and witness gave a proof `snarkjs groth16 verify` accepts;
#   a second run took everything from the cache, and a deleted witness.wtns was remade.
#   synth-circuit.py alone: 0.05 s at 2^16 (9.6 MB r1cs); 2^20 and 2^22 not run here.
set -euo pipefail

die() { echo "scale-fixtures.sh: $*" >&2; exit "${RC:-1}"; }
usage() { sed -n '2,/^set -euo/p' "$0" | sed '$d' | sed 's/^# \{0,1\}//'; }
case "${1:-}" in ""|-h|--help) usage; exit 0;; esac

ROOT=$(cd "$(dirname "$0")/.." && pwd)
CURVE=bn128; CIRCUIT=hashchain; HYPROVE=$ROOT/build/release/hyprove
CACHE=${XDG_CACHE_HOME:-$HOME/.cache}/hyprove/scale
LOG2=""
while [ $# -gt 0 ]; do
  case "$1" in
    --curve) [ $# -ge 2 ] || die "--curve needs a value"; CURVE=$2; shift 2;;
    --circuit) [ $# -ge 2 ] || die "--circuit needs a value"; CIRCUIT=$2; shift 2;;
    --hyprove) [ $# -ge 2 ] || die "--hyprove needs a value"; HYPROVE=$2; shift 2;;
    --cache) [ $# -ge 2 ] || die "--cache needs a value"; CACHE=$2; shift 2;;
    -*) die "unknown option $1 (see --help)";;
    *) [ -z "$LOG2" ] || die "one LOG2 only (got $LOG2 and $1)"; LOG2=$1; shift;;
  esac
done
[ -n "$LOG2" ] || die "missing LOG2 (see --help)"
if ! [[ "$LOG2" =~ ^[0-9]+$ ]] || [ "$LOG2" -gt 28 ]; then die "LOG2 must be an integer <= 28, got '$LOG2'"; fi
LOG2=$((10#$LOG2))
case "$CURVE" in bn128|bls12381) ;; *) die "--curve must be bn128 or bls12381";; esac
case "$CIRCUIT" in hashchain|sha256|synth) ;; *) die "--circuit must be hashchain, sha256 or synth";; esac
case "$HYPROVE" in /*) ;; *) HYPROVE=$PWD/$HYPROVE;; esac
command -v node >/dev/null || die "node not found (node >= 18 and npm are needed)"
SYNTH=$ROOT/scripts/synth-circuit.py; SEED=1
if [ "$CIRCUIT" = synth ]; then
  command -v python3 >/dev/null || die "python3 not found (--circuit synth runs $SYNTH with it)"
  [ -f "$SYNTH" ] || die "$SYNTH is missing"
fi
LOCK=${LOCK:-}
TIMEBIN=""; [ -x /usr/bin/time ] && TIMEBIN=/usr/bin/time

# ---------------------------------------------------------------- parameters
N=$((1 << LOG2)); T=$((N * 9 / 10))
if [ "$CIRCUIT" = hashchain ]; then
  [ "$LOG2" -ge 10 ] || die "hashchain needs LOG2 >= 10 (one round is 775 constraints)"
  PER=775; NBITS=254; [ "$CURVE" = bls12381 ] && { PER=776; NBITS=255; }
  NROUNDS=$(( (T - 3 - 64) / PER )); NMUL=$(( T - 3 - PER * NROUNDS ))
  PREDICT=$(( 3 + PER * NROUNDS + NMUL )); NPUB=7
  PARAMS="nRounds=$NROUNDS nMul=$NMUL nBits=$NBITS"
elif [ "$CIRCUIT" = synth ]; then
  # synth-circuit.py's plan: 91-constraint rounds, then nExtra multiplications and 2 copies
  NPUB=6
  if [ "$LOG2" -lt 7 ]; then
    RC=2 die "synth needs LOG2 >= 7 (floor(0.9 * 2^LOG2) + $((NPUB + 1)) must fit the domain)"
  fi
  NROUNDS=$(( (T - 2) / 91 )); NEXTRA=$(( T - 2 - 91 * NROUNDS )); PREDICT=$T
  PARAMS="seed=$SEED nRounds=$NROUNDS nExtraMul=$NEXTRA"
else
  PERBLOCK=31264; NPUB=2
  if [ $((PERBLOCK + 2 + NPUB + 1)) -gt "$N" ]; then
    RC=2 die "sha256 needs LOG2 >= 15: one 512-bit block is $PERBLOCK constraints, over 2^$LOG2 (use --circuit hashchain)"
  fi
  NBLOCKS=$(( T / PERBLOCK ))
  if [ $((PERBLOCK * NBLOCKS + 2 + NPUB + 1)) -le $((N / 2)) ]; then
    NBLOCKS=$(( (N - 2 - NPUB - 1) / PERBLOCK ))
  fi
  MSGBYTES=$(( 64 * NBLOCKS - 9 )); MSGBITS=$(( 8 * MSGBYTES ))
  PREDICT=$(( PERBLOCK * NBLOCKS + 2 ))
  PARAMS="nBlocks=$NBLOCKS message_bytes=$MSGBYTES nBits=$MSGBITS"
fi
echo "scale-fixtures: $CURVE $CIRCUIT 2^$LOG2: $PARAMS, $PREDICT constraints expected" >&2

# ---------------------------------------------------------------- tools
mkdir -p "$CACHE"; CACHE=$(cd "$CACHE" && pwd)
TOOLS=$CACHE/tools
pkgver() { node -p "require('$1/package.json').version" 2>/dev/null || true; }
if [ "$CIRCUIT" = synth ]; then
  # no circom, circomlib or snarkjs: the generator writes the r1cs and the witness itself
  SYNTHSUM=$(sha256sum "$SYNTH" | cut -c1-64)
  TOOLVERS="synth-circuit.py sha256 ${SYNTHSUM:0:12}, $(python3 --version 2>&1)"
else
{
  flock 8
  need=()
  [ "$(pkgver "$TOOLS/node_modules/circom2")" = 0.2.23 ] || need+=(circom2@0.2.23)
  [ "$(pkgver "$TOOLS/node_modules/circomlib")" = 2.0.5 ] || need+=(circomlib@2.0.5)
  SNARKJS_DIR=$ROOT/.deps/snarkjs/node_modules/snarkjs
  if [ "$(pkgver "$SNARKJS_DIR")" != 0.7.6 ]; then
    SNARKJS_DIR=$TOOLS/node_modules/snarkjs
    [ "$(pkgver "$SNARKJS_DIR")" = 0.7.6 ] || need+=(snarkjs@0.7.6)
  fi
  if [ ${#need[@]} -gt 0 ]; then
    command -v npm >/dev/null || die "npm not found, needed to install ${need[*]}"
    echo "scale-fixtures: npm install ${need[*]} into $TOOLS" >&2
    mkdir -p "$TOOLS"
    npm install --no-audit --no-fund --prefix "$TOOLS" "${need[@]}" >&2
  fi
} 8>"$CACHE/tools.lock"
[ "$(pkgver "$TOOLS/node_modules/circom2")" = 0.2.23 ] || die "circom2 0.2.23 missing under $TOOLS"
[ "$(pkgver "$TOOLS/node_modules/circomlib")" = 2.0.5 ] || die "circomlib 2.0.5 missing under $TOOLS"
[ "$(pkgver "$SNARKJS_DIR")" = 0.7.6 ] || die "snarkjs 0.7.6 missing at $SNARKJS_DIR"
CIRCOM=(node "$TOOLS/node_modules/circom2/cli.js")
SNARKJS=(node "$SNARKJS_DIR/cli.js")
CIRCOM_FLAGS=(--r1cs --wasm --O1 -p "$CURVE")
TOOLVERS="circom2 0.2.23 ($("${CIRCOM[@]}" --version 2>/dev/null | grep -i compiler | head -1)), circomlib 2.0.5, snarkjs 0.7.6"
fi

# ---------------------------------------------------------------- sources
SRC=$(mktemp -d "$CACHE/.src.XXXXXX")
trap 'rm -rf "$SRC"' EXIT
if [ "$CIRCUIT" = hashchain ]; then
  cat > "$SRC/circuit.circom" <<EOF
pragma circom 2.0.0;

// Mixed-constraint benchmark circuit for Groth16 fixtures (generated by scale-fixtures.sh,
// the circuit of make-fixtures.sh --hashchain).
// Each round: one Poseidon(2) hash, a full bit decomposition of the hash
// (Num2Bits -> many 0/1 witness values) and a 1-bit multiplexer.
// After the rounds: a multiplication chain x[j+1] = x[j]*x[j] + pub_in[j % 4].
// Public: 4 inputs + 3 outputs (nPublic = 7).

include "circomlib/circuits/poseidon.circom";
include "circomlib/circuits/bitify.circom";

template HashBitsChain(nRounds, nMul, nBits) {
    signal input pub_in[4];
    signal input secret[2];
    signal output out_hash;
    signal output out_prod;
    signal output out_bitsum;

    component H[nRounds];
    component B[nRounds];
    signal h[nRounds + 1];
    signal sel[nRounds];
    var bitsum = 0;

    h[0] <== secret[0] * pub_in[0];
    for (var i = 0; i < nRounds; i++) {
        H[i] = Poseidon(2);
        H[i].inputs[0] <== h[i];
        H[i].inputs[1] <== pub_in[(i + 1) % 4] + secret[1];
        B[i] = Num2Bits(nBits);
        B[i].in <== H[i].out;
        // 1-bit mux: sel = bit0 ? hash : previous
        sel[i] <== B[i].out[0] * (H[i].out - h[i]) + h[i];
        h[i + 1] <== sel[i] + H[i].out;
        for (var k = 0; k < nBits; k++) {
            bitsum += B[i].out[k];
        }
    }

    signal x[nMul + 1];
    x[0] <== h[nRounds] + secret[1];
    for (var j = 0; j < nMul; j++) {
        x[j + 1] <== x[j] * x[j] + pub_in[j % 4];
    }

    out_hash <== h[nRounds];
    out_prod <== x[nMul];
    out_bitsum <== bitsum;
}

component main {public [pub_in]} = HashBitsChain($NROUNDS, $NMUL, $NBITS);
EOF
  cat > "$SRC/input.json" <<'EOF'
{
  "pub_in": ["7", "1000003", "0", "21888242871839275222246405745257275088548364400416711"],
  "secret": ["123456789123456789123456789", "987654321987654321"]
}
EOF
elif [ "$CIRCUIT" = synth ]; then
  # the source is the generator itself; its inputs come from the seed
  cp "$SYNTH" "$SRC/synth-circuit.py"
else
  cat > "$SRC/circuit.circom" <<EOF
pragma circom 2.0.0;

// SHA-256 benchmark circuit (generated by scale-fixtures.sh): circomlib's Sha256 of a
// $MSGBYTES-byte message ($NBLOCKS blocks once padded; the message bits are private inputs, most
// witness values are 0/1), the digest packed into two 128-bit outputs, big-endian
// (hi = first 16 bytes). nPublic = 2.

include "circomlib/circuits/sha256/sha256.circom";
include "circomlib/circuits/bitify.circom";

template Sha256Packed(nBits) {
    signal input in[nBits];
    signal output hi;
    signal output lo;

    component h = Sha256(nBits);
    for (var i = 0; i < nBits; i++) {
        h.in[i] <== in[i];
    }
    component ph = Bits2Num(128);
    component pl = Bits2Num(128);
    for (var i = 0; i < 128; i++) {
        ph.in[i] <== h.out[127 - i];
        pl.in[i] <== h.out[255 - i];
    }
    hi <== ph.out;
    lo <== pl.out;
}

component main = Sha256Packed($MSGBITS);
EOF
  # message: SHA-256("hyprove scale-fixtures " || counter) blocks, cut to MSGBYTES; bits MSB first
  # shellcheck disable=SC2016  # a node program
  node -e '
    const crypto = require("crypto"), n = +process.argv[1], parts = [];
    for (let c = 0, have = 0; have < n; c++, have += 32)
      parts.push(crypto.createHash("sha256").update("hyprove scale-fixtures " + c).digest());
    const msg = Buffer.concat(parts).subarray(0, n), bits = [];
    for (const b of msg) for (let i = 7; i >= 0; i--) bits.push((b >> i) & 1);
    process.stdout.write(JSON.stringify({ in: bits }) + "\n");
  ' "$MSGBYTES" > "$SRC/input.json"
fi

if [ "$CIRCUIT" = synth ]; then
  SOURCES=(synth-circuit.py)
  K1=$( { cat "$SRC/synth-circuit.py"; echo "curve=$CURVE seed=$SEED log2=$LOG2 layout=1"; } | sha256sum | cut -c1-64)
else
  SOURCES=(circuit.circom input.json)
  K1=$( { cat "$SRC/circuit.circom" "$SRC/input.json"; echo "curve=$CURVE flags=${CIRCOM_FLAGS[*]} tools=$TOOLVERS layout=1"; } \
        | sha256sum | cut -c1-64)
fi
NAME=$CURVE-$CIRCUIT-2e$LOG2-${K1:0:12}
D=$CACHE/$NAME
mkdir -p "$D"

# one run per fixture at a time; the work folders of runs that died are removed under the lock
exec 9>"$D/.lock"
if ! flock -n 9; then echo "scale-fixtures: waiting for another run on $NAME" >&2; flock 9; fi
rm -rf "$D"/.work.*
W=$(mktemp -d "$D/.work.XXXXXX")
trap 'rm -rf "$SRC" "$W"' EXIT
for f in "${SOURCES[@]}"; do
  cmp -s "$SRC/$f" "$D/$f" 2>/dev/null || { cp "$SRC/$f" "$W/$f" && mv "$W/$f" "$D/$f"; }
done

# step NAME CMD...: runs CMD (under $LOCK, its stdout to stderr) and writes the line
# "NAME  wall s  peak RSS" to $D/.step-NAME; returns CMD's exit status.
step() {
  local name=$1; shift
  echo ">> $name: $*" >&2
  local rc=0 t0 t1 wall rss="n/a"
  t0=$(date +%s%N)
  if [ -n "$TIMEBIN" ]; then
    $LOCK "$TIMEBIN" -f '%e %M' -o "$W/time.$name" "$@" >&2 || rc=$?
  else
    $LOCK "$@" >&2 || rc=$?
  fi
  t1=$(date +%s%N)
  [ "$rc" -eq 0 ] || return "$rc"
  wall=$(awk "BEGIN{printf \"%.2f\", ($t1 - $t0) / 1e9}")
  if [ -n "$TIMEBIN" ] && [ -s "$W/time.$name" ]; then
    read -r wall rss < <(tail -1 "$W/time.$name"); rss="$((rss / 1024)) MB"
  fi
  printf '%-8s %9s s  peak RSS %s\n' "$name" "$wall" "$rss" > "$W/step.$name"
  mv "$W/step.$name" "$D/.step-$name"
}

# r1cs header (section 1) without loading the constraints: the counts snarkjs r1cs info prints
r1cs_counts() {
  # shellcheck disable=SC2016  # a node program
  node -e '
    const fs = require("fs"), fd = fs.openSync(process.argv[1], "r"), b = Buffer.alloc(64);
    const rd = (pos, len) => { fs.readSync(fd, b, 0, len, pos); return b; };
    if (rd(0, 12).toString("latin1", 0, 4) !== "r1cs") throw new Error("not an r1cs file");
    let pos = 12; const nSec = b.readUInt32LE(8);
    for (let s = 0; s < nSec; s++) {
      rd(pos, 12); const type = b.readUInt32LE(0), size = Number(b.readBigUInt64LE(4));
      if (type === 1) {
        const n8 = rd(pos + 12, 4).readUInt32LE(0), h = rd(pos + 16 + n8, 28);
        const [wires, out, pubIn, prvIn] = [0, 4, 8, 12].map(o => h.readUInt32LE(o));
        console.log(`${h.readUInt32LE(24)} ${wires} ${pubIn} ${out} ${prvIn}`); process.exit(0);
      }
      pos += 12 + size;
    }
    throw new Error("no header section");
  ' "$1"
}

# ---------------------------------------------------------------- compile (synth: r1cs + witness)
cd "$W"
if [ "$CIRCUIT" = synth ]; then
  if [ -f "$D/circuit.r1cs" ] && [ -f "$D/witness.wtns" ] && [ -f "$D/synth.txt" ]; then
    echo "scale-fixtures: cached synth" >&2
  else
    # the generator writes temporary names in $W/synth and renames them there when complete
    step synth python3 "$D/synth-circuit.py" --curve "$CURVE" --seed "$SEED" "$LOG2" "$W/synth" \
      || die "synth-circuit.py failed"
    mv "$W/synth/witness.wtns" "$D/witness.wtns"
    mv "$W/synth/info.txt" "$D/synth.txt"
    mv "$W/synth/circuit.r1cs" "$D/circuit.r1cs"
    rm -rf "$W/synth"
  fi
elif [ -f "$D/circuit.r1cs" ] && [ -f "$D/circuit.wasm" ]; then
  echo "scale-fixtures: cached compile" >&2
else
  # circom2 runs under WASI: it does not follow symlinks or '..' paths reliably, so it works
  # inside $W with a real copy of circomlib's circuits next to the circuit.
  mkdir -p lib/circomlib && cp -r "$TOOLS/node_modules/circomlib/circuits" lib/circomlib/
  cp "$D/circuit.circom" circuit.circom
  step compile "${CIRCOM[@]}" circuit.circom "${CIRCOM_FLAGS[@]}" -l lib -o . || die "circom2 failed"
  mv circuit_js/circuit.wasm "$D/circuit.wasm"
  mv circuit.r1cs "$D/circuit.r1cs"
  rm -rf lib circuit_js circuit.circom
fi
counts=$(r1cs_counts "$D/circuit.r1cs") || die "cannot read $D/circuit.r1cs's header"
read -r NCONS NWIRES NPUBIN NOUT NPRV <<< "$counts"
NPUBLIC=$((NPUBIN + NOUT))
POW=0; while [ $((1 << POW)) -lt $((NCONS + NPUBLIC + 1)) ]; do POW=$((POW + 1)); done
echo "scale-fixtures: $NCONS constraints, $NWIRES wires, nPublic $NPUBLIC -> domain 2^$POW" >&2
[ "$NCONS" -eq "$PREDICT" ] || echo "scale-fixtures: note: $PREDICT constraints were expected" >&2
[ "$POW" -eq "$LOG2" ] || die "the circuit's domain is 2^$POW, not 2^$LOG2 ($PARAMS): fix the parameters above"

# ---------------------------------------------------------------- witness
if [ "$CIRCUIT" = synth ]; then
  : # made with the r1cs above
elif [ -f "$D/witness.wtns" ]; then
  echo "scale-fixtures: cached witness" >&2
else
  step witness "${SNARKJS[@]}" wtns calculate "$D/circuit.wasm" "$D/input.json" "$W/witness.wtns" \
    || die "snarkjs wtns calculate failed"
  if [ "$CIRCUIT" = sha256 ]; then
    # w[1], w[2] (hi, lo) must be the SHA-256 of the message of input.json
    # shellcheck disable=SC2016  # a node program
    node -e '
      const fs = require("fs"), crypto = require("crypto");
      const bits = JSON.parse(fs.readFileSync(process.argv[1], "utf8")).in, msg = Buffer.alloc(bits.length / 8);
      bits.forEach((v, i) => { msg[i >> 3] |= v << (7 - (i & 7)); });
      const want = crypto.createHash("sha256").update(msg).digest("hex");
      const fd = fs.openSync(process.argv[2], "r"), b = Buffer.alloc(4096); fs.readSync(fd, b, 0, 4096, 0);
      let pos = 12, n8 = 0;
      for (;;) {
        const type = b.readUInt32LE(pos), size = Number(b.readBigUInt64LE(pos + 4));
        if (type === 1) n8 = b.readUInt32LE(pos + 12);
        if (type === 2) break;
        pos += 12 + size;
      }
      const el = i => { let x = 0n; for (let k = n8 - 1; k >= 0; k--) x = (x << 8n) | BigInt(b[pos + 12 + i * n8 + k]); return x; };
      const got = el(1).toString(16).padStart(32, "0") + el(2).toString(16).padStart(32, "0");
      if (got !== want) { console.error(`digest in the witness ${got}, want ${want}`); process.exit(1); }
    ' "$D/input.json" "$W/witness.wtns" || die "the witness does not hold the message's SHA-256"
  fi
  mv "$W/witness.wtns" "$D/witness.wtns"
fi

# ---------------------------------------------------------------- info.txt
write_info() {
  {
    echo "fixture=$NAME"
    echo "curve=$CURVE"
    echo "circuit=$CIRCUIT ($PARAMS)"
    echo "constraints=$NCONS"
    echo "wires=$NWIRES"
    echo "public_inputs=$NPUBIN"
    echo "outputs=$NOUT"
    echo "private_inputs=$NPRV"
    echo "nPublic=$NPUBLIC"
    echo "domain=2^$POW ($((1 << POW))), $(awk "BEGIN{printf \"%.1f\", 100 * ($NCONS + $NPUBLIC + 1) / $((1 << POW))}")% used"
    if [ "$CIRCUIT" = synth ]; then
      echo "generator=synth-circuit.py --curve $CURVE --seed $SEED $LOG2 (a stand-in, not a real circuit)"
      grep -E '^(rounds|extra_multiplications|boolean_constraints|multiplications)=' "$D/synth.txt" | sed 's/^/synth_/'
    else
      echo "circom_flags=${CIRCOM_FLAGS[*]}"
    fi
    echo "tools=$TOOLVERS, node $(node --version)"
    echo "key_circuit=$K1"
    if [ -f "$D/.zkey-key" ]; then echo "key_zkey=$(cat "$D/.zkey-key")"; echo "hyprove=$(cat "$D/.zkey-hyprove" 2>/dev/null)"; fi
    for s in synth compile witness setup; do
      if [ -f "$D/.step-$s" ]; then cat "$D/.step-$s"; fi
    done
  } > "$W/info.txt"
  mv "$W/info.txt" "$D/info.txt"
}
write_info

# ---------------------------------------------------------------- setup
if [ ! -x "$HYPROVE" ]; then
  RC=3 die "no hyprove binary at $HYPROVE (build it, or pass --hyprove); r1cs, wasm (not synth) and witness are in $D"
fi
# the setup's code: the binary and the libhyprove it loads (ldd), so that any rebuild makes a new key
HVER="$("$HYPROVE" --version 2>/dev/null | head -1 || true), sha256 $(
  { cat "$HYPROVE"; ldd "$HYPROVE" 2>/dev/null | awk '/libhyprove/ {print $3}' | xargs -r cat; } | sha256sum | cut -c1-64)"
K2=$( { sha256sum "$D/circuit.r1cs" | cut -c1-64; echo "hyprove=$HVER"; } | sha256sum | cut -c1-64)
if [ -f "$D/circuit.zkey" ] && [ -f "$D/verification_key.json" ] && [ "$(cat "$D/.zkey-key" 2>/dev/null)" = "$K2" ]; then
  echo "scale-fixtures: cached zkey ($HVER)" >&2
else
  if ! msg=$("$HYPROVE" groth16 setup --help 2>&1 >/dev/null); then
    RC=3 die "$HYPROVE has no 'groth16 setup' yet (${msg:-no message}); r1cs, wasm and witness are in $D"
  fi
  # the zkey there (if any) is not this hyprove's: out of the way before the new one is made
  rm -f "$D/.zkey-key" "$D/.zkey-hyprove" "$D/.step-setup" "$D/circuit.zkey" "$D/verification_key.json"
  write_info
  step setup "$HYPROVE" groth16 setup --insecure-dev --seed 1 --vk "$W/verification_key.json" \
    "$D/circuit.r1cs" "$W/circuit.zkey" || RC=3 die "hyprove groth16 setup failed"
  mv "$W/verification_key.json" "$D/verification_key.json"
  mv "$W/circuit.zkey" "$D/circuit.zkey"
  echo "$HVER" > "$W/hv" && mv "$W/hv" "$D/.zkey-hyprove"
  echo "$K2" > "$W/k2" && mv "$W/k2" "$D/.zkey-key"
  write_info
fi
cat "$D/info.txt" >&2
echo "$D"
