#!/usr/bin/env bash
# gpu-check.sh: the prepared check for a lent GPU machine (an NVIDIA H100 or H200 with CUDA and
# NVIDIA's driver, no package registry, no internet), rehearsed here on POCL's CPU device.
#
# What it does, in order of importance, within GPU_CHECK_BUDGET seconds (450: the summary and
# the tarball follow, so that one call of the lent machine ends within 470 s):
#  1. opencl       OpenCL headers and ICD loader: the Debian .deb files that scripts/gpu-debs.sh
#                  downloaded beforehand (carried in gpu-debs/) unpacked into a private prefix
#                  (never into /), an ICD vendors folder naming NVIDIA's libnvidia-opencl.so
#                  (POCL's driver when rehearsing); NVIDIA's compute cache (CUDA_CACHE_PATH)
#                  and hyprove's program cache (HPR_CACHE_DIR) in build/gpu-check-cache, so
#                  PTX is compiled once per warm machine
#  2. build        hyprove in build/gpu, unless given --build-dir or a build carried in
#                  build/gpu-carry that runs here (then that one is used); and the
#                  correctness driver scripts/gpu-check-compare.c against its libhyprove
#  3. devices      `hyprove devices` (each program built and self-tested); the first GPU is used
#  4. correctness  in one process: G1 MSMs of both curves with both MSM kernels (sorted, owner),
#                  G2 MSMs and forward and inverse NTTs, each compared byte for byte with the CPU;
#                  correctness-ptx: the same with the inline-PTX words (HPR_CL_WORDS=ptx)
#  5. msm-key      BN254 G1 MSM at 2^20 and 2^24 over resident bases (the issue's targets)
#  6. msm-sent     the same with the points sent on every run
#  7. ntt-key      NTT of BN254 Fr and KoalaBear at 2^20, 2^22, 2^24 on the GPU
#  8. then the rest: msm-gpu (both curves 2^16..2^22), msm-resident (BLS12-381 to 2^24),
#     msm-precompute (f = 1, 2, 4, 8), msm-owner (the other kernel), msm-g2, msm-words (the
#     HPR_CL_WORDS variants), groth16 (G16_FIXTURE, default the bundled 2^10 fixture: cpu,
#     all and the GPU, plain and precomputed, and h apart from the H MSM), msm-cpu (the same
#     run's CPU baseline), hybrid (GPU + CPU at 2^22, 2^24), ntt-all (calibrated cpu, GPU and
#     all; a batch of 64 columns), suites (the OpenCL Check suites, when they were built)
# Each timed command gets at most its own limit and what is left of the budget (tm), and is
# skipped, named in the log and the JSON, once less than 5 s are left; one that the budget cut
# short is named too, and fails nothing.
#
# Outputs in $OUT (default build/gpu-check-out): three files, none in a folder (the lent machine
# returns at most 8 files, at most 2 folders down):
#   gpu-check.log            everything printed, a summary last
#   gpu-check.json           every step's status and seconds, the correctness counts, and every
#                            bench's JSON records under figures.<step> (one document)
#   gpu-check-files.tar.gz   the scratch folder: each step's table, stderr, JSON and cmake log
# Intermediate files go to the scratch folder (GPU_CHECK_SCRATCH, default
# build/gpu-check-scratch), emptied at the start.
#
# Usage: OUT=DIR scripts/gpu-check.sh [--rehearse] [--build-dir DIR] [--debs DIR]
#   --rehearse     every step on POCL's CPU device at small sizes (MSM 2^8..2^12, NTT 2^10),
#                  the same steps and outputs (GPU_CHECK_REHEARSE=1 does the same)
#   --build-dir D  use the build in D (hyprove and libhyprove.so) instead of building (HPR_BUILD)
#   --debs D       the folder of .deb files (GPU_DEBS; default gpu-debs)
# Environment: GPU_CHECK_BUDGET (450), GPU_CHECK_CACHE (build/gpu-check-cache),
#   GPU_CHECK_SCRATCH, G16_FIXTURE (a folder with circuit.zkey and witness.wtns),
#   GPU_CHECK_SUITES (the Check suites of the suites step). docs/gpu-check.md says how to run it.
# Exit status: 0 when every step that ran passed (steps skipped or cut for lack of time do not
# fail it), 1 otherwise, 2 for a usage error.
set -uo pipefail
cd "$(dirname "$0")/.."
ROOT=$PWD

REHEARSE="${GPU_CHECK_REHEARSE:-0}"
BUILD="${HPR_BUILD:-}"
DEBS="${GPU_DEBS:-$ROOT/gpu-debs}"
while [ $# -gt 0 ]; do
  case "$1" in
    --rehearse) REHEARSE=1 ;;
    --build-dir) BUILD="${2:?--build-dir needs a folder}"; shift ;;
    --debs) DEBS="${2:?--debs needs a folder}"; shift ;;
    -h|--help) sed -n '2,/^set -uo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) echo "gpu-check.sh: unknown argument '$1' (see --help)" >&2; exit 2 ;;
  esac
  shift
done
[ "$REHEARSE" = 1 ] && MODE=rehearsal || MODE=gpu
abspath() { case "$1" in /*) echo "$1" ;; *) echo "$ROOT/$1" ;; esac; }
OUT="$(abspath "${OUT:-build/gpu-check-out}")"
SCR="$(abspath "${GPU_CHECK_SCRATCH:-build/gpu-check-scratch}")"
CACHE="$(abspath "${GPU_CHECK_CACHE:-build/gpu-check-cache}")"
DEBS="$(abspath "$DEBS")"
OWN_BUILD=1
if [ -n "$BUILD" ]; then BUILD="$(abspath "$BUILD")"; OWN_BUILD=0; else BUILD="$ROOT/build/gpu"; fi
FIXTURE="$(abspath "${G16_FIXTURE:-tests/fixtures/bn128_2e10}")"

mkdir -p "$OUT" "$CACHE"
rm -rf "$SCR" && mkdir -p "$SCR"
LOG="$OUT/gpu-check.log"
: > "$LOG"
exec > >(tee -a "$LOG") 2>&1
TEE_PID=$!

# The sizes: the lent machine's, or the rehearsal's (seconds a step on POCL with 2 cores; a
# program variant built cold costs more there than its runs, so the rehearsal builds fewer).
if [ "$MODE" = gpu ]; then
  DEV_TYPE=gpu
  CMP_ARGS=(--msm-log-n 1,10,16,20 --g2-log-n 1,10,16 --ntt-log-n 10,16,20 --seeds 2)
  KEY=20,24 NTT_KEY=20,22,24 MID=16,20,22 RES_MORE=16,20,22,24 PRE=16,20 G2=16,20,22 G2_CPU=16,20
  WORDS=20 WORDS_CURVES=bn254,bls12-381 CPU=16,20,22 HYB=22,24 NTT_CAL=16,20 NTT_ALL=20,22 NTT_BATCH=16 BATCH=64 R5=5 R3=3 R2=2
  SUITES="${GPU_CHECK_SUITES:-primitives msm runtime hybrid ntt groth16 poseidon2 precompute}"
else
  DEV_TYPE=cpu
  CMP_ARGS=(--msm-log-n 1,10,12 --g2-log-n 1,8 --ntt-log-n 10 --seeds 2)
  KEY=10,12 NTT_KEY=10 MID=10,11 RES_MORE=10,12 PRE=10 G2=8 G2_CPU=8 WORDS=10 WORDS_CURVES=bn254 CPU=10,12 HYB=12
  NTT_CAL=10 NTT_ALL=10 NTT_BATCH=10 BATCH=4 R5=2 R3=2 R2=2
  SUITES="${GPU_CHECK_SUITES:-primitives}" # CI runs them all anyway: here only the step
fi

step() { echo; echo "=== $*"; }
BUDGET="${GPU_CHECK_BUDGET:-450}"
T0=$SECONDS
# tm N CMD...: CMD under timeout min(N, the budget left) (killed 10 s after its SIGTERM), or
# skipped (status 124) when less than 5 s are left. What happened is marked for the step's
# status in a file (tm often runs in a pipeline's subshell): skipped; cut (stopped because the
# budget ran out: not a failure); timed out (its own limit N: a failure).
tm() {
  local limit="$1" left=$((BUDGET - (SECONDS - T0))) rc cut=0
  shift
  [ "$left" -lt "$limit" ] && { limit="$left"; cut=1; }
  if [ "$limit" -lt 5 ]; then
    echo "skipped, the time budget ($BUDGET s) is spent: $*"
    : > "$SCR/.skipped"
    return 124
  fi
  timeout -k 10 "$limit" "$@"
  rc=$?
  if [ "$rc" = 124 ] || [ "$rc" = 137 ]; then
    if [ "$cut" = 1 ]; then
      echo "cut after $limit s, the time budget ($BUDGET s) is spent: $*"
      : > "$SCR/.cut"
    else
      echo "timed out after $limit s: $*"
      : > "$SCR/.timedout"
    fi
  fi
  return "$rc"
}

# run_step NAME FUNCTION: runs FUNCTION as step NAME and records its status in steps.tsv: ok,
# failed (its status, or a device warning in its output files NAME*.txt: a device that failed
# and whose work the CPU redid), timeout, cut or skipped (the budget ran out during it or
# before it), or absent (nothing to run: step_absent). failed and timeout fail the check.
fail=0
run_step() {
  local name="$1" fn="$2" t=$SECONDS rc status
  step "$name"
  rm -f "$SCR/.skipped" "$SCR/.cut" "$SCR/.timedout" "$SCR/.absent"
  if [ $((BUDGET - (SECONDS - T0))) -lt 5 ]; then
    echo "skipped, the time budget ($BUDGET s) is spent"
    status=skipped
  else
    "$fn"
    rc=$?
    if [ -e "$SCR/.absent" ]; then status=absent
    elif [ -e "$SCR/.timedout" ]; then status=timeout
    elif [ -e "$SCR/.cut" ]; then status=cut
    elif [ -e "$SCR/.skipped" ]; then status=skipped
    elif [ "$rc" != 0 ]; then status=failed
    elif cat "$SCR/$name"*.txt 2>/dev/null | grep -q "hyprove: warning"; then
      echo "a device failed in $name (hyprove: warning in its output)"
      status=failed
    else status=ok; fi
  fi
  case "$status" in failed|timeout) fail=1 ;; esac
  printf '%s\t%s\t%s\n' "$name" "$status" $((SECONDS - t)) >> "$SCR/steps.tsv"
  echo "--- $name: $status ($((SECONDS - t)) s)"
}
step_absent() { echo "$*"; : > "$SCR/.absent"; }

# ---- the steps ----

# 1. The OpenCL headers and loader, and the driver's ICD file; the caches.
LOADERS=()
OCL_HEADERS=""
OCL_DRIVER=""
unpack_deb() { # unpack_deb FILE.deb DIR: dpkg-deb, else ar and tar
  if command -v dpkg-deb > /dev/null; then dpkg-deb -x "$1" "$2"; return; fi
  local member
  member="$(ar t "$1" | grep '^data\.tar')" || return 1
  case "$member" in
    *.xz) ar p "$1" "$member" | tar -xJ -C "$2" ;;
    *.zst) ar p "$1" "$member" | zstd -dc | tar -x -C "$2" ;;
    *.gz) ar p "$1" "$member" | tar -xz -C "$2" ;;
    *) ar p "$1" "$member" | tar -x -C "$2" ;;
  esac
}
step_opencl() {
  local prefix="$CACHE/opencl-prefix" deb n=0 lib
  rm -rf "$prefix" && mkdir -p "$prefix"
  for deb in "$DEBS"/*.deb; do
    [ -e "$deb" ] || continue
    unpack_deb "$deb" "$prefix" || { echo "cannot unpack $deb"; return 1; }
    n=$((n + 1))
  done
  echo "unpacked $n .deb file(s) of $DEBS into $prefix"
  # headers: the carried ones, else CUDA's, else the system's
  for inc in "$prefix/usr/include" /usr/local/cuda/include /usr/include; do
    [ -e "$inc/CL/cl.h" ] && { OCL_HEADERS="$inc"; break; }
  done
  # ICD loaders, in the order tried: the carried ocl-icd (it honours OCL_ICD_VENDORS), CUDA's,
  # the system's
  while IFS= read -r lib; do LOADERS+=("$lib"); done < <(
    find "$prefix" -name 'libOpenCL.so.1' 2>/dev/null | sort
    for lib in /usr/local/cuda/lib64/libOpenCL.so.1 /usr/local/cuda/targets/x86_64-linux/lib/libOpenCL.so.1 \
               /usr/lib/x86_64-linux-gnu/libOpenCL.so.1 /usr/lib64/libOpenCL.so.1 /usr/lib/libOpenCL.so.1; do
      [ -e "$lib" ] && echo "$lib"
    done)
  # the driver: NVIDIA's, or POCL's for the rehearsal (as its installed .icd file names it)
  if [ "$MODE" = gpu ]; then
    # the first 64-bit one (/usr/local/nvidia/lib may hold the 32-bit driver beside lib64)
    while IFS= read -r lib; do
      [ "$(od -An -tx1 -j4 -N1 "$lib" 2> /dev/null | tr -d ' ')" = 02 ] && { OCL_DRIVER="$lib"; break; }
    done < <(find /usr/local/nvidia /usr/lib/x86_64-linux-gnu /usr/lib64 -name 'libnvidia-opencl.so*' 2> /dev/null | sort)
  else
    OCL_DRIVER="$(head -n 1 /etc/OpenCL/vendors/pocl.icd 2>/dev/null)"
  fi
  echo "headers: ${OCL_HEADERS:-none}"
  echo "ICD loaders: ${LOADERS[*]:-none}"
  echo "driver: ${OCL_DRIVER:-none}"
  mkdir -p "$SCR/icd"
  if [ -n "$OCL_DRIVER" ]; then
    echo "$OCL_DRIVER" > "$SCR/icd/$DEV_TYPE.icd"
    export OCL_ICD_VENDORS="$SCR/icd"
    unset OCL_ICD_FILENAMES
    case "$OCL_DRIVER" in */*) export LD_LIBRARY_PATH="$(dirname "$OCL_DRIVER")${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}" ;; esac
  fi
  [ ${#LOADERS[@]} -gt 0 ] && export HPR_OPENCL_LIBRARY="${LOADERS[0]}"
  export HPR_CACHE_DIR="$CACHE/hyprove"
  # NVIDIA's JIT cache: PTX compiled to SASS once (4 GiB, the most it takes)
  export CUDA_CACHE_PATH="$CACHE/cuda" CUDA_CACHE_MAXSIZE=4294967296 CUDA_CACHE_DISABLE=0
  mkdir -p "$HPR_CACHE_DIR" "$CUDA_CACHE_PATH"
  echo "HPR_CACHE_DIR=$HPR_CACHE_DIR CUDA_CACHE_PATH=$CUDA_CACHE_PATH"
  [ -n "$OCL_HEADERS" ] && [ ${#LOADERS[@]} -gt 0 ] && [ -n "$OCL_DRIVER" ]
}

# 2. hyprove (unless given a build) and the correctness driver.
HP=""
CMP="$CACHE/bin/gpu-check-compare"
TESTS=OFF
step_build() {
  local log="$SCR/build-cmake.log" v carry="$ROOT/build/gpu-carry"
  # A build carried in build/gpu-carry (docs/gpu-check.md, "A build carried") is used when it
  # runs here: no build, more of the budget for the benchmarks
  if [ "$OWN_BUILD" = 1 ] && [ -x "$carry/hyprove" ]; then
    if LD_LIBRARY_PATH="$carry" "$carry/hyprove" --version > /dev/null 2>&1; then
      echo "using the carried build in $carry"
      BUILD="$carry" OWN_BUILD=0
    else
      echo "the carried build in $carry does not run here:"
      LD_LIBRARY_PATH="$carry" "$carry/hyprove" --version 2>&1 | head -n 3
    fi
  fi
  if [ "$OWN_BUILD" = 1 ]; then
    # CMakeLists.txt needs cmake 3.25 and python3 (it embeds the kernels with a script)
    v="$(cmake --version 2> /dev/null | head -n 1)"
    if ! printf '3.25\n%s\n' "${v##* }" | sort -V -C 2> /dev/null || ! command -v python3 > /dev/null; then
      echo "cannot build here: cmake 3.25 or later (${v:-none}) and python3 ($(command -v python3 || echo none))" \
           "are needed; carry build/gpu-carry (docs/gpu-check.md)"
      return 1
    fi
  fi
  if [ "$OWN_BUILD" = 1 ]; then
    if pkg-config --exists check 2> /dev/null && [ -e /usr/include/gmp.h ]; then TESTS=ON; fi
    echo "$v; Check suites: $TESTS; headers: $OCL_HEADERS"
    local targets=(--target hyprove_cli hyprove_shared)
    [ "$TESTS" = ON ] && targets=()
    { cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DHPR_TESTS="$TESTS" -DHPR_MPI=OFF \
        -DOPENCL_INCLUDE_DIR="$OCL_HEADERS" &&
      tm 400 cmake --build "$BUILD" -j "$(nproc)" "${targets[@]}"; } > "$log" 2>&1 ||
      { echo "build failed (build-cmake.log in the tarball):"; tail -n 30 "$log"; return 1; }
  else
    # a build made elsewhere: its run path may name a folder that is not here
    echo "using the build in $BUILD"
    export LD_LIBRARY_PATH="$BUILD${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
  fi
  HP="$BUILD/hyprove"
  [ -x "$HP" ] || { echo "no hyprove in $BUILD"; return 1; }
  mkdir -p "$(dirname "$CMP")"
  # the house flags; warnings are errors in the rehearsal (CI), not on the lent machine's compiler
  werror=""; [ "$REHEARSE" = 1 ] && werror=-Werror
  ${CC:-cc} -std=c11 -O2 -Wall -Wextra $werror -I host/include scripts/gpu-check-compare.c -o "$CMP" -L"$BUILD" -lhyprove \
    -Wl,-rpath,"$BUILD" >> "$log" 2>&1 || { echo "cannot build the correctness driver:"; tail -n 20 "$log"; return 1; }
  "$HP" --version 2>/dev/null | head -n 1
  echo "built: $HP and $CMP"
}

# 3. The devices, with each ICD loader in turn until one shows a device of the wanted type.
DEV=""
DEV_NAME=""
step_devices() {
  local lib libs=("${LOADERS[@]}")
  [ ${#libs[@]} -gt 0 ] || libs=("") # none found: hyprove's own search (libOpenCL.so.1)
  for lib in "${libs[@]}"; do
    if [ -n "$lib" ]; then export HPR_OPENCL_LIBRARY="$lib"; else unset HPR_OPENCL_LIBRARY; fi
    echo "ICD loader: ${lib:-the default (libOpenCL.so.1)}"
    tm 300 "$HP" devices --json "$SCR/devices.json" > "$SCR/devices.txt" 2>&1
    cat "$SCR/devices.txt"
    DEV="$(awk -v t="($DEV_TYPE)" '/^cl:[0-9]+\.[0-9]+ / && $NF == t {print $1; exit}' "$SCR/devices.txt")"
    [ -n "$DEV" ] && break
  done
  if [ -z "$DEV" ]; then echo "no OpenCL $DEV_TYPE device found"; return 1; fi
  DEV_NAME="$(awk -v d="$DEV" '$1 == d {$1 = ""; $NF = ""; sub(/^ +/, ""); sub(/ +$/, ""); print; exit}' "$SCR/devices.txt")"
  echo "device: $DEV ($DEV_NAME), ICD loader ${HPR_OPENCL_LIBRARY:-libOpenCL.so.1}"
}

# 4. Correctness in one process (scripts/gpu-check-compare.c).
step_correctness() {
  tm 300 "$CMP" "$DEV" "${CMP_ARGS[@]}" 2>&1 | tee "$SCR/correctness.txt"
}
# The same with the inline-PTX words (arith/ptx_words.h; NVIDIA only, not yet the default: this
# step is what makes them the default. Rehearsed on POCL, which ignores HPR_CL_WORDS=ptx.)
step_correctness_ptx() {
  HPR_CL_WORDS=ptx tm 300 "$CMP" "$DEV" "${CMP_ARGS[@]}" 2>&1 | tee "$SCR/correctness-ptx.txt"
}

# bench NAME LIMIT ARGS...: one `hyprove bench` into NAME.txt and NAME.json.
bench() {
  local name="$1" limit="$2"
  shift 2
  tm "$limit" "$HP" bench "$@" --json "$SCR/$name.json" 2>&1 | tee "$SCR/$name.txt"
}
step_msm_key() { bench msm-key 240 msm --curve bn254 --log-n "$KEY" --repeat "$R5" --device "$DEV" --resident; }
step_msm_sent() { bench msm-sent 200 msm --curve bn254 --log-n "$KEY" --repeat "$R3" --device "$DEV"; }
step_ntt_key() { bench ntt-key 200 ntt --field bn254-fr,koalabear --log-n "$NTT_KEY" --repeat "$R3" --device "$DEV"; }
step_msm_gpu() { bench msm-gpu 300 msm --curve bn254,bls12-381 --log-n "$MID" --repeat "$R3" --device "$DEV"; }
step_msm_resident() {
  bench msm-resident 300 msm --curve bls12-381 --log-n "$RES_MORE" --repeat "$R5" --device "$DEV" --resident
}
# precomputed resident bases (issue 18 item 6): each record's note gives the time to make them
step_msm_precompute() {
  bench msm-precompute 240 msm --curve bn254 --log-n "$PRE" --repeat "$R5" --device "$DEV" --precompute 1,2,4,8
}
step_msm_owner() {
  HPR_CL_MSM=owner bench msm-owner 300 msm --curve bn254,bls12-381 --log-n "$MID" --repeat "$R3" --device "$DEV"
}
step_msm_g2() {
  local rc=0
  bench msm-g2 300 msm --group g2 --curve bn254,bls12-381 --log-n "$G2" --repeat "$R3" --device "$DEV" --resident || rc=1
  bench msm-g2-cpu 300 msm --group g2 --curve bn254 --log-n "$G2_CPU" --repeat "$R3" --device cpu || rc=1
  return "$rc"
}
step_msm_words() { # the word variants, same run (standard: 64-bit mul_hi)
  local rc=0 words
  for words in ptx limb32 standard; do
    HPR_CL_WORDS=$words bench "msm-words-$words" 200 msm --curve "$WORDS_CURVES" --log-n "$WORDS" --repeat "$R3" \
      --device "$DEV" || rc=1
  done
  return "$rc"
}
# whole proofs with --devices cpu, all and the GPU, plain and 4 times precomputed; then h's NTTs
# apart from the H MSM (HPR_G16_H_DEVICE=0: against the plain runs, what keeping h on the
# device saves)
step_groth16() {
  local rc=0
  if [ ! -e "$FIXTURE/circuit.zkey" ] || [ ! -e "$FIXTURE/witness.wtns" ]; then
    echo "no circuit.zkey and witness.wtns in $FIXTURE"; return 1
  fi
  echo "fixture: $FIXTURE"
  bench groth16 300 groth16 "$FIXTURE/circuit.zkey" "$FIXTURE/witness.wtns" --repeat "$R5" \
    --devices "cpu,all,$DEV" --precompute 1,4 || rc=1
  HPR_G16_H_DEVICE=0 bench groth16-h-apart 200 groth16 "$FIXTURE/circuit.zkey" "$FIXTURE/witness.wtns" \
    --repeat "$R5" --devices "all,$DEV" || rc=1
  return "$rc"
}
step_msm_cpu() { bench msm-cpu 300 msm --curve bn254,bls12-381 --log-n "$CPU" --repeat "$R3" --device cpu; }
step_hybrid() { bench hybrid 400 msm --curve bn254,bls12-381 --log-n "$HYB" --repeat "$R2" --devices "cpu,$DEV,all"; }
step_ntt_all() { # one column (four-step under all) and a batch of columns, calibrated first
  local rc=0
  tm 300 "$HP" calibrate --field bn254-fr,koalabear --log-n "$NTT_CAL" --devices "cpu,$DEV" \
    --json "$SCR/ntt-all-calibrate.json" 2>&1 | tee "$SCR/ntt-all-calibrate.txt" || rc=1
  bench ntt-all 300 ntt --field bn254-fr,koalabear --log-n "$NTT_ALL" --repeat "$R3" --devices "cpu,$DEV,all" || rc=1
  bench ntt-all-batch 300 ntt --field bn254-fr,koalabear --log-n "$NTT_BATCH" --batch "$BATCH" --repeat "$R3" \
    --devices "cpu,$DEV,all" || rc=1
  return "$rc"
}
# The OpenCL Check suites (built when Check and GMP are there), run directly rather than by
# ctest (which would share the build's Testing/ folder with a ctest that runs this script),
# each with a fresh cache. The loader is found through LD_LIBRARY_PATH, not
# HPR_OPENCL_LIBRARY: the suites check what "auto" chooses, and a forced library counts there
# as a driver besides POCL.
step_suites() {
  local s rc=0 ran=0 ld="${LD_LIBRARY_PATH:-}"
  [ -n "${HPR_OPENCL_LIBRARY:-}" ] && ld="$(dirname "$HPR_OPENCL_LIBRARY")${ld:+:$ld}"
  for s in $SUITES; do
    [ -x "$BUILD/tests/test_opencl_$s" ] || continue
    ran=$((ran + 1))
    echo "test_opencl_$s"
    rm -rf "$CACHE/suites/$s" && mkdir -p "$CACHE/suites/$s"
    (cd "$BUILD/tests" && tm 300 env -u HPR_OPENCL_LIBRARY LD_LIBRARY_PATH="$ld" HPR_FIXTURES_DIR="$ROOT/tests/fixtures" \
      HPR_CACHE_DIR="$CACHE/suites/$s" "./test_opencl_$s") > "$SCR/suites-$s.log" 2>&1 && echo "  passed" ||
      { echo "  FAILED"; tail -n 30 "$SCR/suites-$s.log"; rc=1; }
  done
  [ "$ran" = 0 ] && step_absent "the OpenCL Check suites were not built here (Check and GMP missing)"
  return "$rc"
}

echo "gpu-check ($MODE): $(date -u +%Y-%m-%dT%H:%M:%SZ), budget $BUDGET s, out $OUT, scratch $SCR"
run_step opencl step_opencl
run_step build step_build
if [ -x "${HP:-/nonexistent}" ]; then run_step devices step_devices; fi
if [ -n "$DEV" ]; then
  run_step correctness step_correctness
  run_step correctness-ptx step_correctness_ptx
  run_step msm-key step_msm_key
  run_step msm-sent step_msm_sent
  run_step ntt-key step_ntt_key
  run_step msm-gpu step_msm_gpu
  run_step msm-resident step_msm_resident
  run_step msm-precompute step_msm_precompute
  run_step msm-owner step_msm_owner
  run_step msm-g2 step_msm_g2
  run_step msm-words step_msm_words
  run_step groth16 step_groth16
  run_step msm-cpu step_msm_cpu
  run_step hybrid step_hybrid
  run_step ntt-all step_ntt_all
  run_step suites step_suites
else
  fail=1
fi

# ---- the summary, one JSON of everything, the tarball ----
step "summary"
grep -E "^compare:|DIFFERENT|FAILED" "$SCR/correctness.txt" 2>/dev/null | head -n 20
grep -E "DIFFERENT|FAILED" "$SCR/correctness-ptx.txt" 2>/dev/null | sed 's/^/ptx words: /' | head -n 20
show() { # show TITLE FILE PATTERN
  [ -e "$SCR/$2" ] || return 0
  echo "$1:"; grep -E "$3" "$SCR/$2" || true
}
show "$DEV, BN254 G1, resident bases" msm-key.txt "^msm"
show "$DEV, BN254 G1, points sent" msm-sent.txt "^msm"
show "$DEV, NTT" ntt-key.txt "^ntt"
show "$DEV, sorted kernel" msm-gpu.txt "^msm"
show "$DEV, BLS12-381 resident" msm-resident.txt "^msm"
show "$DEV, precomputed resident bases (f = 1, 2, 4, 8)" msm-precompute.txt "^msm|precomputed"
show "$DEV, owner-computes kernel" msm-owner.txt "^msm"
show "$DEV, G2 resident" msm-g2.txt "^msm"
show "$DEV with inline-PTX words" msm-words-ptx.txt "^msm"
show "$DEV with limb32 words" msm-words-limb32.txt "^msm"
show "$DEV with standard words" msm-words-standard.txt "^msm"
show "Groth16 (cpu, all, $DEV; plain, then precomputed 4 times)" groth16.txt "^device|^sections|^total"
show "CPU (all cores)" msm-cpu.txt "^msm"
show "Hybrid (hybrid_eff on the all rows)" hybrid.txt "^msm|all:"
show "NTT (cpu, $DEV, all)" ntt-all.txt "^ntt|all:"
echo "steps:"
awk -F'\t' '{printf "  %-15s %-8s %5s s\n", $1, $2, $3}' "$SCR/steps.tsv"

# One JSON document, written by the shell alone (python3 and jq may be missing on the lent
# machine; each bench JSON is whole, hyprove writes it atomically) and checked by whichever
# of them is here.
json_str() { printf '"%s"' "$(printf '%s' "$1" | sed 's/\\/\\\\/g; s/"/\\"/g' | tr -d '\000-\037')"; }
count() { cat "$SCR/${2:-correctness}.txt" 2> /dev/null | grep -c ": $1"; }
JSON="$OUT/gpu-check.json"
{
  echo "{\"schema\": \"hyprove-gpu-check\", \"schema_version\": 1, \"mode\": \"$MODE\","
  echo " \"date\": \"$(date -u +%Y-%m-%dT%H:%M:%SZ)\", \"commit\": $(json_str "$(git rev-parse HEAD 2>/dev/null || echo unknown)"),"
  echo " \"budget_s\": $BUDGET, \"elapsed_s\": $((SECONDS - T0)), \"result\": \"$([ "$fail" = 0 ] && echo ok || echo failures)\","
  echo " \"device\": $(json_str "$DEV"), \"device_name\": $(json_str "$DEV_NAME"),"
  echo " \"opencl\": {\"headers\": $(json_str "$OCL_HEADERS"), \"loader\": $(json_str "${HPR_OPENCL_LIBRARY:-}"), \"driver\": $(json_str "$OCL_DRIVER")},"
  echo " \"correctness\": {\"same\": $(count same), \"different\": $(count DIFFERENT), \"failed\": $(count FAILED)},"
  echo " \"correctness_ptx\": {\"same\": $(count same correctness-ptx), \"different\": $(count DIFFERENT correctness-ptx), \"failed\": $(count FAILED correctness-ptx)},"
  echo " \"steps\": ["
  awk -F'\t' '{printf "%s  {\"name\": \"%s\", \"status\": \"%s\", \"seconds\": %d}", (NR > 1 ? ",\n" : ""), $1, $2, $3} END {print ""}' "$SCR/steps.tsv"
  echo " ],"
  echo " \"figures\": {"
  sep=""
  for f in "$SCR"/*.json; do
    [ -s "$f" ] || continue
    printf '%s  "%s":\n' "$sep" "$(basename "$f" .json)"
    cat "$f"
    sep=","
  done
  echo " }"
  echo "}"
} > "$JSON"
if command -v python3 > /dev/null; then check=(python3 -m json.tool); elif command -v jq > /dev/null; then check=(jq empty); else check=(); fi
if [ ${#check[@]} -gt 0 ]; then
  "${check[@]}" < "$JSON" > /dev/null || { echo "gpu-check.json is not valid JSON (${check[0]})"; fail=1; }
fi
rm -f "$SCR/.skipped" "$SCR/.cut" "$SCR/.timedout" "$SCR/.absent"
tar -czf "$OUT/gpu-check-files.tar.gz" -C "$(dirname "$SCR")" "$(basename "$SCR")" ||
  { echo "cannot write gpu-check-files.tar.gz"; fail=1; }
echo "files: $(cd "$OUT" && ls | tr '\n' ' ')"
short="$(awk -F'\t' '$2 == "skipped" || $2 == "cut" {n++} END {print n + 0}' "$SCR/steps.tsv")"
[ "$short" = 0 ] && short="" || short=" ($short steps skipped or cut: the time budget was spent)"
[ "$fail" = 0 ] && echo "gpu-check ($MODE): OK in $((SECONDS - T0)) s$short" ||
  echo "gpu-check ($MODE): FAILURES in $((SECONDS - T0)) s$short (see $LOG)"
exec > /dev/null 2>&1
wait "$TEE_PID" 2> /dev/null
exit "$fail"
