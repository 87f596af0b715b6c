#!/usr/bin/env bash
# README's second command: build Release and Debug+ASan+UBSan (warnings as errors) and run the
# whole test suite (ctest over the Check suites, the CLI tests, the constants and OpenCL C
# checks) in both builds; then the ThreadSanitizer build of the concurrency suites, the fuzz
# targets for a short while each (scripts/fuzz.sh), and the aarch64 cross build and its suites
# under qemu-user (scripts/test-aarch64.sh, reduced sizes).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs="$(nproc)"
for preset in release asan; do
  echo "=== $preset: configure and build"
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j "$jobs"
done
for preset in release asan; do
  echo "=== $preset: tests"
  ASAN_OPTIONS=detect_leaks=1:abort_on_error=1 UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1 \
    ctest --preset "$preset" -j "$jobs"
done
echo "=== tsan: the concurrency suites under ThreadSanitizer (CPU only, reduced sizes)"
cmake --preset tsan
cmake --build --preset tsan -j "$jobs"
ctest --preset tsan -j 1
echo "=== fuzz: every libFuzzer target for a short while (HPR_FUZZ_SECONDS, default 20)"
bash scripts/fuzz.sh "${HPR_FUZZ_SECONDS:-20}"
echo "=== aarch64 (cross-compiled, qemu-user)"
bash scripts/test-aarch64.sh
