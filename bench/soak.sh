#!/bin/sh
# bench/soak.sh: the soak and fault runs of issue 21 (item 7). Minutes of work: not in CI.
#
#   bench/soak.sh BUILD_DIR [FIXTURE_DIR]     (FIXTURE_DIR: tests/fixtures/bn128_2e10)
#
# 1. Soak: COUNT proofs (default 1000) of the fixture's witness on the CPU with ONE prover
#    handle and ONE context in one process (bench/soak.c, built as BUILD_DIR/bench/hpr_soak);
#    the RSS is sampled after every proof and every 100th proof is verified. Fails when a
#    proof fails or does not verify, or when the largest RSS after proof 100 exceeds the RSS
#    after proof 100 by MAX_GROWTH MiB (default 4) or more.
# 2. Faults: FAULT_COUNT proofs (default 100) under --device all with an OpenCL device that
#    fails random units of work: HPR_SCHED_INJECT_FAULT=FAULT_DEVICE@rand:FAULT_SEED:FAULT_P
#    (default cl:0.0, seed 1, probability 0.5; see the environment knobs in docs/api.md). A failed
#    device stays unusable on its context, so every proof gets a fresh context (the prover
#    handle stays one) and the device joins again. Every proof is verified. On POCL (the CPU
#    as an OpenCL device) the pool takes one thread and POCL one (POCL_MAX_PTHREAD_COUNT=1),
#    else "all" leaves POCL out (it would share the pool's cores). The summary counts the
#    proofs with a fault made good and those in which the device computed a phase.
# Each run prints one JSON line of figures (docs/testing.md, "Soak and fault runs").
set -eu
BUILD=${1:?usage: bench/soak.sh BUILD_DIR [FIXTURE_DIR]}
FIX=${2:-$(dirname "$0")/../tests/fixtures/bn128_2e10}
SOAK=$BUILD/bench/hpr_soak
[ -x "$SOAK" ] || { echo "soak.sh: $SOAK is not built (cmake --build $BUILD --target hpr_soak)" >&2; exit 2; }

echo "== soak: ${COUNT:-1000} proofs of $FIX on the CPU, one context, one prover" >&2
"$SOAK" "$FIX/circuit.zkey" "$FIX/witness.wtns" --count "${COUNT:-1000}" --device cpu --verify-every 100 \
  --warm 100 --max-growth "${MAX_GROWTH:-4}"

FAULT="${FAULT_DEVICE:-cl:0.0}@rand:${FAULT_SEED:-1}:${FAULT_P:-0.5}"
echo "== faults: ${FAULT_COUNT:-100} proofs under all, HPR_SCHED_INJECT_FAULT=$FAULT, every proof verified" >&2
out=$(POCL_MAX_PTHREAD_COUNT=${POCL_MAX_PTHREAD_COUNT:-1} HPR_SCHED_INJECT_FAULT=$FAULT \
  "$SOAK" "$FIX/circuit.zkey" "$FIX/witness.wtns" --count "${FAULT_COUNT:-100}" --device all --threads 1 \
  --fresh-context --verify-every 1 --warm 20 --max-growth "${MAX_GROWTH:-4}")
echo "$out"
case $out in
*'"proofs_with_a_device": 0}'*) echo "soak.sh: no OpenCL device computed a phase: the fault run tested nothing" >&2; exit 1;;
esac
