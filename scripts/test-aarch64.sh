#!/usr/bin/env bash
# ARM64: cross-compiles the library, the CLI and the Check suites for aarch64 Linux with
# Debian's gcc-aarch64-linux-gnu (cmake/aarch64-linux-gnu.cmake) and runs the field, curve,
# MSM, CPU tier, NTT and Poseidon2 suites under qemu-user at reduced sizes (HPR_TEST_REDUCED=1: the
# emulator is 30-50 times slower than the host). Part of scripts/test.sh (CI); alone:
#   bash scripts/test-aarch64.sh [ctest regex]
# Not run there: the OpenCL suites (no arm64 POCL in the emulator), the Groth16 and fixture
# suites (covered natively; the prover is the same portable code), the CLI tests.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh --aarch64
build=build/aarch64
suites=(test_field test_field_portable test_curve test_msm test_cpu_tiers test_ntt test_poseidon2 hyprove_cli)
cmake -S . -B "$build" -DCMAKE_TOOLCHAIN_FILE=cmake/aarch64-linux-gnu.cmake -DCMAKE_BUILD_TYPE=Release -DHPR_WERROR=ON
cmake --build "$build" -j "$(nproc)" --target "${suites[@]}"
# The suites run in one process (CK_FORK=no): fewer emulated forks.
CK_FORK=no HPR_TEST_REDUCED=1 ctest --test-dir "$build" --output-on-failure -j "$(nproc)" \
  -R "${1:-^(test_field|test_field_portable|test_curve|test_msm_portable|test_cpu_tiers|test_ntt|test_poseidon2)$}"
