#!/usr/bin/env bash
# oclgrind-check.sh: the OpenCL kernels on Oclgrind's simulated device with its checks on, their
# results compared with the CPU's bit for bit. Runs hyprove (through HPR_OPENCL_LIBRARY, the
# simulator's runtime library) on: a G1 MSM of 2^LOG_N random points on each curve (before it,
# the device's self-test: 16 field multiplications and an MSM of 64 points), the same for BN254
# G2 (sorted kernels), a forward NTT of
# 2^(LOG_N+9) BN254 Fr elements (more than one pass: a pass holds 2^10 of them in 32 KiB of
# local memory, so the strided path runs too) and an inverse coset NTT of two columns of
# 2^(LOG_N+9) Goldilocks elements (2^12 per pass) from bit-reversed order.
# Checks: invalid and out-of-bounds accesses (always on), --data-races, --check-api, and
# --uninitialized on the NTTs. Not on the MSMs: Oclgrind 21.10's uninitialised-value checker
# keeps the record of a released buffer for the next buffer given the same slot, sized as the
# old one, and calls every byte beyond that size uninitialised. The MSM releases the
# self-test's buffers and then allocates larger ones, so the checker flags msm_segments from
# the second work-item on (reproduced outside hyprove: the flags start exactly at the size of
# the released buffer, and vanish when it is not released).
# Then a Groth16 proof of tests/fixtures/edge_pub on the device alone, verified (h's NTTs, its
# combination and the H MSM on the device, h never leaving it: host/groth16/groth16_h_device.c).
# Then the Poseidon2 kernels (kernels_cl/poseidon2.cl), every instance: 67 permutations, the
# row digests of 67 rows of 9 columns and of 3 rows of 0 to 25 columns, 67 compressions (two
# work-groups, the second partial), run by the test binary next to hyprove in the build tree
# (tests/test_opencl_poseidon2, its case "oclgrind", which compares each result with the CPU's
# portable kernels), with every check on (--uninitialized too): about 10 s.
# Fails on any message from Oclgrind (its log, or a fatal error on stderr), on a result that
# differs from the CPU's, and on a device that failed and left the work to the CPU (hyprove's
# warning, which would otherwise hide a kernel that does not run at all).
# Oclgrind interprets every instruction: on 2 cores LOG_N 4 (ctest opencl_oclgrind,
# tests/CMakeLists.txt) takes about 2 minutes (113 s measured), most of it the BLS12-381 and
# G2 MSMs with their self-tests (the sorted-bucket MSM kernels take longer than the
# owner-computes ones); a person checks a larger size by hand. HPR_CL_MSM (owner|sorted) in
# the environment picks the MSM kernels.
# Usage: scripts/oclgrind-check.sh [--hyprove PATH] [--only msm|ntt|groth16|poseidon2] [LOG_N]
#   (defaults build/release/hyprove, every part, 6; the Poseidon2 test binary is
#   DIR/tests/test_opencl_poseidon2 for hyprove at DIR/hyprove, or P2_TEST=PATH)
set -uo pipefail
cd "$(dirname "$0")/.."
HP=build/release/hyprove
ONLY=""
usage() { echo "usage: $0 [--hyprove PATH] [--only msm|ntt|groth16|poseidon2] [LOG_N 1..16]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --hyprove) [ $# -ge 2 ] || usage; HP="$2"; shift 2 ;;
    --only) [ $# -ge 2 ] || usage; ONLY="$2"; shift 2 ;;
    *) break ;;
  esac
done
LOG_N="${1:-6}"
case "$LOG_N" in
  [1-9] | 1[0-6]) ;;
  *) usage ;;
esac
case "$ONLY" in "" | msm | ntt | groth16 | poseidon2) ;; *) usage ;; esac
# part NAME: whether the part NAME runs (--only)
part() { [ -z "$ONLY" ] || [ "$ONLY" = "$1" ]; }
command -v oclgrind >/dev/null || { echo "oclgrind-check: oclgrind is not installed" >&2; exit 2; }
[ -x "$HP" ] || { echo "oclgrind-check: no hyprove at $HP (build first)" >&2; exit 2; }
P2_TEST="${P2_TEST:-$(dirname "$HP")/tests/test_opencl_poseidon2}"
if part poseidon2 && [ ! -x "$P2_TEST" ]; then
  echo "oclgrind-check: no Poseidon2 test binary at $P2_TEST (build the target test_opencl_poseidon2, or set P2_TEST)" >&2
  exit 2
fi

# hyprove dlopens HPR_OPENCL_LIBRARY instead of the ICD loader, so the simulator's runtime
# library is named here; the oclgrind launcher preloads the same file and passes its options.
rt="${OCLGRIND_RT:-}"
for cand in "$(dirname "$(command -v oclgrind)")/../lib/oclgrind/liboclgrind-rt.so" \
            /usr/lib/oclgrind/liboclgrind-rt.so /usr/local/lib/liboclgrind-rt.so /usr/lib/liboclgrind-rt.so; do
  [ -n "$rt" ] && break
  [ -e "$cand" ] && rt="$cand"
done
[ -n "$rt" ] || { echo "oclgrind-check: liboclgrind-rt.so not found (set OCLGRIND_RT)" >&2; exit 2; }

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT
# A fresh program cache: Oclgrind builds every program from the current sources (its options,
# such as --build-options, are not part of hyprove's cache key).
export HPR_OPENCL_LIBRARY="$rt" HPR_CACHE_DIR="$work/cl-cache"
unset HPR_CL_INJECT_FAULT

dev="$("$HP" devices --prepare none 2>/dev/null | awk '/^cl:[0-9]+\.[0-9]+ .*Oclgrind/ {print $1; exit}')"
[ -n "$dev" ] || { echo "oclgrind-check: no Oclgrind device through $rt" >&2; "$HP" devices --prepare none >&2; exit 1; }
echo "oclgrind-check: $dev through $rt, MSMs of 2^$LOG_N points, NTTs of 2^$((LOG_N + 9)), Poseidon2${ONLY:+ (only $ONLY)}"
fail=0
n=0

# run_checked_program NAME CHECKS PROGRAM ARGS...: PROGRAM ARGS on the simulator with
# oclgrind's CHECKS (a space-separated list); its stdout in $work/NAME.out.
run_checked_program() {
  local name="$1" checks t0 t1 rc
  read -r -a checks <<<"$2"
  shift 2
  n=$((n + 1))
  t0="$(date +%s)"
  oclgrind "${checks[@]}" --log "$work/$name.oclgrind" "$@" >"$work/$name.out" 2>"$work/$name.err"
  rc=$?
  t1="$(date +%s)"
  if [ "$rc" -ne 0 ] || [ -s "$work/$name.oclgrind" ] || grep -qiE 'oclgrind|warning|error' "$work/$name.err"; then
    echo "FAIL $name (exit $rc, $((t1 - t0)) s): oclgrind ${checks[*]} $*"
    sed 's/^/  stdout: /' "$work/$name.out" | grep -vE '^  stdout: (test seed|Running suite)' | head -n 20
    sed 's/^/  stderr: /' "$work/$name.err" | head -n 40
    [ -s "$work/$name.oclgrind" ] && sed 's/^/  oclgrind: /' "$work/$name.oclgrind" | head -n 80
    fail=1
    return 1
  fi
  echo "ok   $name ($((t1 - t0)) s)"
}

# run_checked NAME CHECKS ARGS...: hyprove ARGS, as run_checked_program.
run_checked() {
  local name="$1" checks="$2"
  shift 2
  run_checked_program "$name" "$checks" "$HP" "$@"
}

# same NAME CPU_FILE DEVICE_FILE: the device's bytes are the CPU's.
same() {
  if ! cmp -s "$2" "$3"; then
    echo "FAIL $1: the result on $dev differs from the CPU's"
    fail=1
  fi
}

if part msm; then
  # Both OpenCL MSM kernels (HPR_CL_MSM: the sorted buckets, the default on Oclgrind's device,
  # and owner-computes).
  for curve in bn254 bls12-381; do
    "$HP" msm --curve "$curve" --log-n "$LOG_N" --seed 7 --device cpu >"$work/msm-$curve.cpu" 2>/dev/null ||
      { echo "FAIL msm-$curve on the cpu"; fail=1; }
    for kernel in sorted owner; do
      export HPR_CL_MSM=$kernel
      run_checked "msm-$curve-$kernel" "--check-api --data-races" msm --curve "$curve" \
        --log-n "$LOG_N" --seed 7 --device "$dev" && same "msm-$curve-$kernel" "$work/msm-$curve.cpu" "$work/msm-$curve-$kernel.out"
    done
  done
  unset HPR_CL_MSM
  # G2 (the same kernels over Fq2), BN254, the sorted kernels (the G2 self-test runs first)
  "$HP" msm --curve bn254 --group g2 --log-n "$LOG_N" --seed 7 --device cpu >"$work/msm-g2.cpu" 2>/dev/null ||
    { echo "FAIL msm-g2 on the cpu"; fail=1; }
  run_checked "msm-bn254-g2-sorted" "--check-api --data-races" msm --curve bn254 --group g2 --log-n "$LOG_N" \
    --seed 7 --device "$dev" && same "msm-bn254-g2-sorted" "$work/msm-g2.cpu" "$work/msm-bn254-g2-sorted.out"
fi

if part ntt; then
  # Canonical elements below the modulus from a fixed seed: 2^(LOG_N+9) of BN254 Fr (32 bytes),
  # twice that of Goldilocks (8 bytes; two columns).
  python3 - "$work" "$((LOG_N + 9))" <<'PY'
import random, sys
work, log_n = sys.argv[1], int(sys.argv[2])
rng = random.Random(7)
for name, p, size, cols in (
        ("bn254-fr", 21888242871839275222246405745257275088548364400416034343698204186575808495617, 32, 1),
        ("goldilocks", 2**64 - 2**32 + 1, 8, 2)):
    with open("%s/%s.in" % (work, name), "wb") as fh:
        fh.write(b"".join(rng.randrange(p).to_bytes(size, "little") for _ in range(cols << log_n)))
PY
  ntt_cases=("bn254-fr:--order nn" "goldilocks:--inverse --coset 7 --order rn --columns 2")
  for c in "${ntt_cases[@]}"; do
    field="${c%%:*}"
    read -r -a opts <<<"${c#*:}"
    "$HP" ntt --field "$field" --in "$work/$field.in" --out "$work/ntt-$field.cpu" "${opts[@]}" --device cpu 2>/dev/null ||
      { echo "FAIL ntt-$field on the cpu"; fail=1; }
    run_checked "ntt-$field" "--check-api --data-races --uninitialized" ntt --field "$field" --in "$work/$field.in" \
      --out "$work/ntt-$field.dev" "${opts[@]}" --device "$dev" &&
      same "ntt-$field" "$work/ntt-$field.cpu" "$work/ntt-$field.dev"
  done
fi

# Groth16 on the device alone (edge_pub, a domain of a few rows): h's NTTs with their scalings,
# h = a b - c out of Montgomery form (ntt_scale, ntt_mul_sub_canonical) and the H MSM over h
# left on the device, then the other MSMs; --verify checks the proof with the pairing (r and s
# are random, so it is not compared with the CPU's: a wrong h or MSM fails the verification,
# and a device that failed is hyprove's warning).
if part groth16; then
  g16="tests/fixtures/edge_pub"
  run_checked "groth16-edge_pub" "--check-api --data-races" groth16 prove "$g16/circuit.zkey" "$g16/witness.wtns" \
    "$work/proof.json" "$work/public.json" --devices "$dev" --verify
fi

# Poseidon2: the test binary's small jobs of every kernel and instance, each result compared
# with the CPU's there (a failed comparison fails the binary); every check on.
if part poseidon2; then
  CK_RUN_CASE=oclgrind CK_FORK=no run_checked_program poseidon2 "--check-api --data-races --uninitialized" "$P2_TEST"
fi

if [ "$fail" -ne 0 ]; then
  echo "oclgrind-check: FAILED"
  exit 1
fi
echo "oclgrind-check: $n runs on $dev clean, results equal to the CPU's"
