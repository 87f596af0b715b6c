#!/usr/bin/env bash
# README's first command: install what is missing, build Release, run the main job
# (hyprove with no arguments compares the devices it finds on an MSM workload and proves a
# bundled Groth16 example, which snarkjs then verifies).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake --preset release
cmake --build --preset release -j "$(nproc)"
# with no arguments: the main job, whose Groth16 example proof snarkjs then verifies
if [ $# -gt 0 ]; then
  exec ./build/release/hyprove "$@"
fi
mkdir -p build/release/example
HPR_EXAMPLE_OUT=build/release/example ./build/release/hyprove
echo "=== snarkjs 0.7.6 verifies the example proof"
.deps/snarkjs/node_modules/.bin/snarkjs groth16 verify tests/fixtures/bn128_2e10/verification_key.json \
  build/release/example/public.json build/release/example/proof.json
