#!/usr/bin/env bash
# README's first command: install what is missing, build Release, run the main job
# (hyprove with no arguments compares the devices it finds on an MSM workload and proves a
# bundled Groth16 example, which snarkjs then verifies), then draws its table with bench/plot.py.
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
HPR_EXAMPLE_OUT=build/release/example ./build/release/hyprove --json build/release/example/main-job.json
echo "=== snarkjs 0.7.6 verifies the example proof"
.deps/snarkjs/node_modules/.bin/snarkjs groth16 verify tests/fixtures/bn128_2e10/verification_key.json \
  build/release/example/public.json build/release/example/proof.json
echo "=== the table as a picture (bench/plot.py, matplotlib)"
if /usr/bin/python3 -c "import matplotlib" 2>/dev/null; then
  /usr/bin/python3 bench/plot.py --kind devices --out build/release/example/main-job.png build/release/example/main-job.json
else
  echo "python3-matplotlib is not installed: no picture (scripts/install-deps.sh installs it)"
fi
