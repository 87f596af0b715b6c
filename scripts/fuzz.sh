#!/usr/bin/env bash
# scripts/fuzz.sh [SECONDS]: builds the libFuzzer targets of tests/fuzz (HPR_FUZZ=ON, clang,
# ASan and UBSan, in build/fuzz) and runs each for SECONDS (default 20) on a copy of its seed
# corpus (tests/fuzz/corpus/<target>, never written to), then prints per target the executions
# and the coverage of libFuzzer's final "#N DONE cov: X ft: Y" line. Exits non-zero when a
# target crashes, leaks, trips a sanitizer or an oracle, runs out of memory or hangs; the
# input that did it is kept as build/fuzz/run/artifacts/<target>-crash-... (rerun it with
# build/fuzz/tests/fuzz/<target> FILE). HPR_FUZZ_FLAGS: more libFuzzer flags for every target
# (after the script's own, so they win). CI runs it with the default; longer runs: docs/fuzzing.md,
# "Fuzzing".
set -euo pipefail
cd "$(dirname "$0")/.."
seconds="${1:-20}"
if ! [[ "$seconds" =~ ^[0-9]+$ ]] || ((seconds == 0)); then
  echo "usage: scripts/fuzz.sh [SECONDS]   (seconds per target, default 20)" >&2
  exit 2
fi
build=build/fuzz
targets=(fuzz_zkey_wtns fuzz_msm_ntt_loaders fuzz_decimal_points fuzz_json_readers fuzz_r1cs_setup)

echo "=== fuzz: configure and build ($build)"
cmake -S . -B "$build" -DCMAKE_C_COMPILER="${HPR_FUZZ_CC:-clang}" -DCMAKE_BUILD_TYPE=Debug \
  -DCMAKE_C_FLAGS_DEBUG="-O1 -g" -DHPR_WERROR=ON -DHPR_FUZZ=ON -DHPR_TESTS=OFF >/dev/null
cmake --build "$build" -j "$(nproc)" --target hpr_fuzz

run="$build/run"
rm -rf "$run"
mkdir -p "$run/artifacts"
failed=()
summary=()
for t in "${targets[@]}"; do
  echo "=== fuzz: $t for ${seconds} s"
  mkdir -p "$run/corpus/$t"
  cp tests/fuzz/corpus/"$t"/* "$run/corpus/$t/"
  log="$run/$t.log"
  # -close_fd_mask=3: the CLI's own output (fuzz_msm_ntt_loaders) is dropped; libFuzzer's
  # and the sanitizers' reports still reach the log. -timeout: one input over 10 s is a hang.
  rc=0
  "$build/tests/fuzz/$t" -max_total_time="$seconds" -rss_limit_mb=2048 -timeout=10 -close_fd_mask=3 \
    -print_final_stats=1 -artifact_prefix="$run/artifacts/$t-" ${HPR_FUZZ_FLAGS:-} "$run/corpus/$t" >"$log" 2>&1 || rc=$?
  done_line="$(grep -E '^#[0-9]+[[:space:]]+DONE' "$log" | tail -n 1 || true)"
  if ((rc != 0)) || [[ -z "$done_line" ]]; then
    echo "--- $t FAILED (exit status $rc); the report in $log:"
    report="$(awk '/ERROR:|runtime error:|fuzz oracle failed|deadly signal/ {p = 1} p' "$log" | head -n 80)"
    if [[ -n "$report" ]]; then echo "$report"; else tail -n 40 "$log"; fi
    failed+=("$t")
    summary+=("$(printf '%-22s FAILED (exit status %d, see %s)' "$t" "$rc" "$log")")
    continue
  fi
  # "#123456  DONE   cov: 1234 ft: 5678 corp: ..." -> executions, cov and ft
  read -r execs cov ft < <(sed -E 's/^#([0-9]+)[[:space:]]+DONE[[:space:]]+cov: ([0-9]+) ft: ([0-9]+).*/\1 \2 \3/' \
    <<<"$done_line")
  summary+=("$(printf '%-22s %10s execs  cov: %-6s ft: %s' "$t" "$execs" "$cov" "$ft")")
  echo "$t: $done_line"
done

echo "=== fuzz: ${seconds} s per target"
printf '%s\n' "${summary[@]}"
if ((${#failed[@]})); then
  echo "fuzz: FAILED: ${failed[*]} (inputs in $run/artifacts)" >&2
  exit 1
fi
echo "fuzz: every target ran clean"
