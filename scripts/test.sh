#!/usr/bin/env bash
# README's second command: build Release and Debug+ASan+UBSan (warnings as errors) and run the
# whole test suite (ctest over the Check suites, the CLI tests, the constants and OpenCL C
# checks) in both builds, the release one beside a busy process; then the ThreadSanitizer
# build of the concurrency suites, the fuzz targets for a short while each (scripts/fuzz.sh),
# and the aarch64 cross build and its suites under qemu-user (scripts/test-aarch64.sh, reduced sizes). The release and ASan suites run with
# HPR_CI_REQUIRE naming what this machine has (CPU tiers, OpenCL, MPI, oclgrind, clang and ptxas, snarkjs): a
# test that would skip for want of one of them fails instead.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
jobs="$(nproc)"
# What this machine has, from /proc/cpuinfo and the tools installed (not from hyprove's own
# detection): each test that would skip for want of one of these fails instead
# (tests/test_support.h, test_required), so a skip that should not happen fails CI. Set
# HPR_CI_REQUIRE yourself (empty: nothing required) to override.
required_here() {
  local flags req="portable"
  flags=" $(grep -m1 '^flags' /proc/cpuinfo 2>/dev/null | cut -d: -f2) "
  has() { [[ "$flags" == *" $1 "* ]]; }
  if has adx && has bmi2; then
    req+=",adx"
    has avx2 && req+=",avx2"
    has avx512f && has avx512ifma && req+=",avx512"
  fi
  [ "$(uname -m)" = aarch64 ] && req+=",neon"
  dpkg -s pocl-opencl-icd >/dev/null 2>&1 && req+=",opencl"
  command -v mpirun >/dev/null 2>&1 && req+=",mpi"
  command -v oclgrind >/dev/null 2>&1 && req+=",oclgrind"
  command -v clang >/dev/null 2>&1 && { command -v ptxas || command -v /usr/local/cuda/bin/ptxas; } >/dev/null 2>&1 &&
    req+=",ptx"
  [ -x .deps/snarkjs/node_modules/.bin/snarkjs ] && req+=",snarkjs"
  echo "$req"
}
export HPR_CI_REQUIRE="${HPR_CI_REQUIRE-$(required_here)}"
echo "=== required of the tests (HPR_CI_REQUIRE): ${HPR_CI_REQUIRE:-nothing}"
for preset in release asan; do
  echo "=== $preset: configure and build"
  cmake --preset "$preset"
  cmake --build --preset "$preset" -j "$jobs"
done
# The asan test preset sets ASAN_OPTIONS, UBSAN_OPTIONS and LSAN_OPTIONS. Its
# intercept_tls_get_addr=0 is there because GCC 12's sanitizer runtime takes a dynamic TLS block
# that starts 16 bytes into a page for a glibc <= 2.18 one and reads the two words before it as
# that block's bounds; POCL's dlopen'ed LLVM allocates such blocks, and LeakSanitizer's tracer
# then faulted at exit now and then ("Tracer caught signal 11", test_opencl_primitives). Without
# the interceptor the leak check still runs; it only scans those blocks as ordinary heap.
# The release suite runs beside a busy process (a shell spinning on one core at normal
# priority, as a build or another job would) for its first HPR_CI_BUSY_SECONDS (600; the
# suite's longest tests start first): a test that depends on timing, or on which device asks
# for work first, fails here rather than on a user's busy machine (issue 46, item 7). The ASan
# suite runs on the machine as it is. HPR_CI_BUSY=0 leaves the busy process out.
busy_pid=""
stop_busy() {
  if [ -n "$busy_pid" ]; then kill "$busy_pid" 2>/dev/null || true; fi
  busy_pid=""
}
trap stop_busy EXIT
for preset in release asan; do
  if [ "$preset" = release ] && [ "${HPR_CI_BUSY:-1}" != 0 ]; then
    timeout "${HPR_CI_BUSY_SECONDS:-600}" bash -c 'while :; do :; done' &
    busy_pid=$!
    echo "=== $preset: tests (beside a busy process, pid $busy_pid)"
  else
    echo "=== $preset: tests"
  fi
  ctest --preset "$preset" -j "$jobs"
  stop_busy
done
# The steps below run elsewhere than this machine's devices (TSan without OpenCL, the fuzz
# targets, qemu): nothing is required of them.
unset HPR_CI_REQUIRE
echo "=== tsan: the concurrency suites under ThreadSanitizer (CPU only, reduced sizes)"
cmake --preset tsan
cmake --build --preset tsan -j "$jobs"
ctest --preset tsan -j 1
echo "=== fuzz: every libFuzzer target for a short while (HPR_FUZZ_SECONDS, default 20)"
bash scripts/fuzz.sh "${HPR_FUZZ_SECONDS:-20}"
echo "=== aarch64 (cross-compiled, qemu-user)"
bash scripts/test-aarch64.sh
