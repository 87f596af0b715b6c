#!/usr/bin/env bash
# ptx-check.sh: the OpenCL programs compiled as they would be for an NVIDIA GPU, without one.
# What: every program the host builds for a device (kernels_cl/msm.cl for each curve and group
# HPR_CL_CURVE=1..4, kernels_cl/ntt.cl for each field HPR_CL_FIELD=1..5, kernels_cl/poseidon2.cl
# for HPR_CL_FIELD=4,5; not test_ops.cl, the primitive tests' program) with the build options
# runtime/opencl/cl_device.c (build_options) gives an NVIDIA device, compiled to PTX by clang's
# NVPTX target (-target nvptx64-nvidia-nvcl, the OpenCL flavour) and assembled for sm_90 (H100,
# H200) by ptxas -v. Prints per kernel: registers, stack frame bytes (the kernel's own and with
# its callees), spill store and load bytes, static PTX instructions (the instruction lines of
# the .entry body and of every function it calls) and static SASS instructions (the .text
# sections of the kernel and its callees in the cubin over 16 bytes, the size of one sm_90
# instruction, trailing padding included: no NVIDIA disassembler is needed, none is here).
# Why: clang's NVPTX back end and ptxas are a proxy for NVIDIA's own OpenCL compiler (the
# same ptxas stage, an LLVM front end like NVIDIA's), so a stack frame, a spill, a call or an
# unrolled loop that stays rolled shows here before a GPU is lent (issue 49, item 6).
# Builtins: clang has no OpenCL library for NVPTX here (no libclc), so the few builtins the
# kernels call (work-item ids, barrier, atomic_min, mul_hi, clz, popcount) are defined below from the NVVM
# special registers and intrinsics, as libclc does, and always inlined.
# Fails (exit 1, naming each) on a kernel of the G1 MSM, NTT or Poseidon2 programs with a stack
# frame or a spill (its own or a callee's; calls left in the PTX are listed, ptxas may inline
# them), and on a program that does not compile. The G2 MSM programs (their point formulas stay
# calls: arith/compat.h) are printed, not checked. Exit 77
# ("skipped") when clang, its NVPTX target or ptxas is missing: ctest reads 77 as a skip, and
# tests/CMakeLists.txt makes it a failure where HPR_CI_REQUIRE names ptx. Exit 2: usage.
# Cost: minutes of ptxas on one core (13 measured here, most of it the G1 MSM programs).
# Usage: scripts/ptx-check.sh [--json FILE] [--words ptx|limb32|standard] [--only LIST] [--keep DIR]
#   --only LIST: comma-separated kinds (msm, ntt, poseidon2) or programs (msm:1 .. msm:4 by
#   HPR_CL_CURVE, ntt:1 .. ntt:5 and poseidon2:4, poseidon2:5 by HPR_CL_FIELD);
#   --words: the word variant (default: limb32, what cl_dev_default_words gives NVIDIA devices;
#   ptx: HPR_CL_WORDS=ptx, the inline-PTX carry chains of arith/ptx_words.h);
#   --json FILE: every figure, one record per kernel; --keep DIR: the PTX, cubins and logs kept
#   in DIR; CLANG=..., PTXAS=... pick the tools.
set -uo pipefail
cd "$(dirname "$0")/.."
JSON=""
KEEP=""
WORDS=limb32
ONLY=""
usage() { echo "usage: $0 [--json FILE] [--words ptx|limb32|standard] [--only LIST] [--keep DIR]" >&2; exit 2; }
while [ $# -gt 0 ]; do
  case "$1" in
    --json) [ $# -ge 2 ] || usage; JSON="$2"; shift 2 ;;
    --words) [ $# -ge 2 ] || usage; WORDS="$2"; shift 2 ;;
    --only) [ $# -ge 2 ] || usage; ONLY="$2"; shift 2 ;;
    --keep) [ $# -ge 2 ] || usage; KEEP="$2"; shift 2 ;;
    *) usage ;;
  esac
done
case "$WORDS" in ptx | limb32 | standard) ;; *) usage ;; esac
for w in ${ONLY//,/ }; do
  case "$w" in msm | ntt | poseidon2 | msm:[1-4] | ntt:[1-5] | poseidon2:[45]) ;; *) usage ;; esac
done

skip() { echo "ptx-check: skipped: $*" >&2; exit 77; }
CLANG="${CLANG:-$(command -v clang || command -v clang-14 || true)}"
PTXAS="${PTXAS:-$(command -v ptxas || true)}"
[ -n "$PTXAS" ] || { [ -x /usr/local/cuda/bin/ptxas ] && PTXAS=/usr/local/cuda/bin/ptxas; }
[ -n "$CLANG" ] || skip "no clang"
[ -n "$PTXAS" ] || skip "no ptxas (on PATH or in /usr/local/cuda/bin)"
"$CLANG" -print-targets 2>/dev/null | grep -qw nvptx64 || skip "$CLANG has no NVPTX target"
# The newest PTX target this clang knows (clang 14 stops at sm_86); ptxas assembles it for sm_90.
MARCH=""
for m in sm_90 sm_89 sm_86 sm_80; do
  if echo 'kernel void k(void) {}' | "$CLANG" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -march=$m -S -o /dev/null - 2>/dev/null; then
    MARCH=$m
    break
  fi
done
[ -n "$MARCH" ] || skip "$CLANG cannot compile OpenCL C for nvptx64-nvidia-nvcl"

if [ -n "$KEEP" ]; then
  mkdir -p "$KEEP" && TMP="$KEEP"
else
  TMP="$(mktemp -d)"
  trap 'rm -rf "$TMP"' EXIT
fi
cat >"$TMP/builtins.cl" <<'EOF'
/* OpenCL builtins for NVPTX, as libclc defines them (one dimension per special register). */
#define PTXCHK_FN __attribute__((overloadable, always_inline))
PTXCHK_FN size_t get_local_id(uint d)
{
    return d == 0 ? __nvvm_read_ptx_sreg_tid_x() : d == 1 ? __nvvm_read_ptx_sreg_tid_y() : d == 2 ? __nvvm_read_ptx_sreg_tid_z() : 0;
}
PTXCHK_FN size_t get_group_id(uint d)
{
    return d == 0 ? __nvvm_read_ptx_sreg_ctaid_x() : d == 1 ? __nvvm_read_ptx_sreg_ctaid_y() : d == 2 ? __nvvm_read_ptx_sreg_ctaid_z() : 0;
}
PTXCHK_FN size_t get_local_size(uint d)
{
    return d == 0 ? __nvvm_read_ptx_sreg_ntid_x() : d == 1 ? __nvvm_read_ptx_sreg_ntid_y() : d == 2 ? __nvvm_read_ptx_sreg_ntid_z() : 1;
}
PTXCHK_FN size_t get_num_groups(uint d)
{
    return d == 0 ? __nvvm_read_ptx_sreg_nctaid_x() : d == 1 ? __nvvm_read_ptx_sreg_nctaid_y() : d == 2 ? __nvvm_read_ptx_sreg_nctaid_z() : 1;
}
PTXCHK_FN size_t get_global_id(uint d) { return get_group_id(d) * get_local_size(d) + get_local_id(d); }
PTXCHK_FN size_t get_global_size(uint d) { return get_num_groups(d) * get_local_size(d); }
PTXCHK_FN void barrier(cl_mem_fence_flags f) { (void)f; __nvvm_bar_sync(0); }
PTXCHK_FN void mem_fence(cl_mem_fence_flags f) { (void)f; __nvvm_membar_cta(); }
PTXCHK_FN uint atomic_min(volatile __global uint *p, uint v) { return __sync_fetch_and_umin(p, v); }
PTXCHK_FN uint atomic_max(volatile __global uint *p, uint v) { return __sync_fetch_and_umax(p, v); }
PTXCHK_FN uint atomic_add(volatile __global uint *p, uint v) { return __sync_fetch_and_add(p, v); }
PTXCHK_FN uint atomic_inc(volatile __global uint *p) { return __sync_fetch_and_add(p, 1u); }
PTXCHK_FN uint atomic_add(volatile __local uint *p, uint v) { return __sync_fetch_and_add(p, v); }
PTXCHK_FN uint atomic_inc(volatile __local uint *p) { return __sync_fetch_and_add(p, 1u); }
PTXCHK_FN ulong mul_hi(ulong a, ulong b) { return __nvvm_mulhi_ull(a, b); }
PTXCHK_FN uint mul_hi(uint a, uint b) { return __nvvm_mulhi_ui(a, b); }
PTXCHK_FN uint clz(uint x) { return x ? (uint)__builtin_clz(x) : 32u; }
PTXCHK_FN uint popcount(uint x) { return (uint)__builtin_popcount(x); }
PTXCHK_FN uint min(uint a, uint b) { return a < b ? a : b; }
PTXCHK_FN uint max(uint a, uint b) { return a > b ? a : b; }
EOF

# The options of cl_device.c build_options for an NVIDIA device (not POCL: no int128 words,
# forced inlining).
options_of() { # KIND VARIANT
  local what=CURVE
  [ "$1" = msm ] || what=FIELD
  echo "-DHPR_CL_$what=$2 -DHPR_CL_INT128=0 -DHPR_CL_LIMB32=$([ "$WORDS" = limb32 ] && echo 1 || echo 0) -DHPR_CL_PTX=$([ "$WORDS" = ptx ] && echo 1 || echo 0) -DHPR_CL_INLINE=1"
}
ALL=(msm:1 msm:2 msm:3 msm:4 ntt:1 ntt:2 ntt:3 ntt:4 ntt:5 poseidon2:4 poseidon2:5)
PROGRAMS=()
for prog in "${ALL[@]}"; do # --only: a kind (all its programs) or KIND:VARIANT, comma-separated
  [ -z "$ONLY" ] && { PROGRAMS+=("$prog"); continue; }
  IFS=, read -r -a wanted <<<"$ONLY"
  for w in "${wanted[@]}"; do
    if [ "$w" = "$prog" ] || [ "$w" = "${prog%%:*}" ]; then PROGRAMS+=("$prog"); break; fi
  done
done

echo "ptx-check: $CLANG ($("$CLANG" --version | head -1)) -march=$MARCH, $PTXAS -arch=sm_90 ($("$PTXAS" --version | tail -1)), words $WORDS"
failed_build=0
for prog in "${PROGRAMS[@]}"; do
  kind="${prog%%:*}" variant="${prog##*:}" base="$TMP/${prog/:/_}"
  opts="$(options_of "$kind" "$variant")"
  echo "$opts" >"$base.options"
  # shellcheck disable=SC2086 # the options are words
  if ! "$CLANG" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -march=$MARCH -Xclang -finclude-default-header \
    -O3 -S -I. -include "$TMP/builtins.cl" $opts "kernels_cl/$kind.cl" -o "$base.ptx" 2>"$base.clang"; then
    echo "ptx-check: FAIL: $kind.cl ($opts) does not compile with clang:" >&2
    head -20 "$base.clang" >&2
    failed_build=1
    continue
  fi
  if ! "$PTXAS" -arch=sm_90 -v "$base.ptx" -o "$base.cubin" 2>"$base.ptxas"; then
    echo "ptx-check: FAIL: ptxas refused $kind.cl ($opts):" >&2
    grep -v '^ptxas info' "$base.ptxas" | head -20 >&2
    failed_build=1
  fi
done

# Per operation: one kernel each (a base-field multiplication, an addition, a copy), with the
# multiplication's outer loop unrolled (HPR_CL_UNROLL_OUTER), so that the static SASS count is
# the dynamic one; less the copy's (loads, stores, the kernel's frame). The programs' own counts
# are static: a rolled loop counts once. scripts/gpu_estimate.py takes these.
cat >"$TMP/ops.cl" <<'PROBE'
#include "kernels_cl/curve_select.h"
__kernel void op_mul(__global const fp *a, __global const fp *b, __global fp *o)
{
    fp x = a[0], y = b[0], r;
    FP(mul)(&r, &x, &y);
    o[0] = r;
}
__kernel void op_add(__global const fp *a, __global const fp *b, __global fp *o)
{
    fp x = a[0], y = b[0], r;
    FP(add)(&r, &x, &y);
    o[0] = r;
}
__kernel void op_copy(__global const fp *a, __global const fp *b, __global fp *o)
{
    o[0] = a[0];
    (void)b;
}
PROBE
for curve in 1 2; do
  # shellcheck disable=SC2086 # the options are words
  "$CLANG" -x cl -cl-std=CL1.2 -target nvptx64-nvidia-nvcl -march=$MARCH -Xclang -finclude-default-header -O3 -S \
    -I. -include "$TMP/builtins.cl" $(options_of msm $curve) -DHPR_CL_UNROLL_OUTER=1 "$TMP/ops.cl" -o "$TMP/ops$curve.ptx" \
    2>"$TMP/ops$curve.clang" && "$PTXAS" -arch=sm_90 "$TMP/ops$curve.ptx" -o "$TMP/ops$curve.cubin" 2>"$TMP/ops$curve.ptxas" ||
    { echo "ptx-check: FAIL: the per-operation kernels of curve $curve do not build" >&2; failed_build=1; }
done

python3 - "$TMP" "$JSON" "$WORDS" "$MARCH" "${PROGRAMS[@]}" <<'EOF'
import json, re, struct, sys

tmp, json_path, words, march, programs = sys.argv[1], sys.argv[2], sys.argv[3], sys.argv[4], sys.argv[5:]
NAMES = {"msm": {1: "BN254 G1", 2: "BLS12-381 G1", 3: "BN254 G2", 4: "BLS12-381 G2"},
         "ntt": {1: "BN254 Fr", 2: "BLS12-381 Fr", 3: "Goldilocks", 4: "BabyBear", 5: "KoalaBear"},
         "poseidon2": {4: "BabyBear", 5: "KoalaBear"}}
DIRECTIVE = re.compile(r"^\s*(\.reg|\.local|\.shared|\.param|\.pragma|\.loc|//|\{|\}|$)")


def ptx_functions(text):
    """Per .entry and .func body: its PTX instructions (lines ending in ';' that are not declarations; a call,
    written over several lines, counts once) and the functions it calls."""
    out, name, depth, count, calls, in_call = {}, None, 0, 0, set(), False
    for line in text.splitlines():
        s = line.split("//")[0].strip()
        m = re.match(r"^\.(visible\s+)?(entry|func)\s+(\([^)]*\)\s*)?([\w$]+)", s)
        if m and depth == 0:
            name, count, calls, entry = m.group(4), 0, set(), m.group(2) == "entry"
            if s.endswith(";"):  # a declaration
                name = None
            continue
        if name is None:
            continue
        depth += s.count("{") - s.count("}")
        if s.startswith("call"):
            in_call, count = True, count + 1
            rest = re.sub(r"^call(\.uni)?\s*(\([^)]*\),?)?", "", s).strip()
            if rest:
                calls.add(rest.rstrip(",; ").split()[0])
                in_call = False
        elif in_call and re.match(r"^[\w$]+,?$", s):
            calls.add(s.rstrip(","))
            in_call = False
        elif in_call:
            in_call = not s.endswith(";")
        elif depth > 0 and s.endswith(";") and not DIRECTIVE.match(s):
            count += 1
        if depth == 0 and s.endswith("}"):
            out[name] = (count, sorted(calls), entry)
            name = None
    return out


def reachable(funcs, name):
    """The functions name calls, directly or not."""
    seen, todo = set(), list(funcs.get(name, (0, [], 0))[1])
    while todo:
        f = todo.pop()
        if f not in seen:
            seen.add(f)
            todo += funcs.get(f, (0, [], 0))[1]
    return sorted(seen)


def ptxas_info(text):
    """Per function: registers, own stack frame, cumulative stack, spill stores and loads."""
    info, cur = {}, None
    for line in text.splitlines():
        m = re.search(r"Function properties for (\S+)", line)
        if m:
            cur = info.setdefault(m.group(1), {"registers": None, "stack": 0, "stack_cumulative": 0})
            continue
        m = re.search(r"(\d+) bytes stack frame, (\d+) bytes spill stores, (\d+) bytes spill loads", line)
        if m and cur is not None:
            cur["stack"], cur["spill_stores"], cur["spill_loads"] = map(int, m.groups())
            cur["stack_cumulative"] = max(cur["stack_cumulative"], cur["stack"])
            continue
        m = re.search(r"Used (\d+) registers.*?(?:(\d+) bytes cumulative stack size)?$", line)
        if m and cur is not None:
            cur["registers"] = int(m.group(1))
            if m.group(2):
                cur["stack_cumulative"] = int(m.group(2))
    return info


def cubin_text_sizes(path):
    """Bytes of each .text.<function> section of an ELF64 cubin."""
    d = open(path, "rb").read()
    shoff, = struct.unpack_from("<Q", d, 0x28)
    shentsize, shnum, shstrndx = struct.unpack_from("<HHH", d, 0x3A)
    secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
    names = secs[shstrndx][4]
    sizes = {}
    for s in secs:
        n = d[names + s[0]:d.index(b"\0", names + s[0])].decode()
        if n.startswith(".text."):
            sizes[n[6:]] = s[5]
    return sizes


records, failures = [], []
for prog in programs:
    kind, variant = prog.split(":")
    base = f"{tmp}/{kind}_{variant}"
    try:
        ptx = open(base + ".ptx").read()
        log = open(base + ".ptxas").read()
        sizes = cubin_text_sizes(base + ".cubin")
    except OSError:
        continue
    options = open(base + ".options").read().strip()
    funcs, info = ptx_functions(ptx), ptxas_info(log)
    for kernel, (ptx_insts, calls, entry) in funcs.items():
        if not entry:
            continue
        f, callees = info.get(kernel, {}), reachable(funcs, kernel)
        r = {"program": f"{kind}.cl", "variant": int(variant), "what": NAMES[kind][int(variant)], "options": options,
             "kernel": kernel, "registers": f.get("registers"), "stack_frame": f.get("stack", 0),
             "stack_cumulative": f.get("stack_cumulative", 0), "spill_stores": f.get("spill_stores", 0),
             "spill_loads": f.get("spill_loads", 0), "ptx_instructions": ptx_insts + sum(funcs[c][0] for c in callees if c in funcs),
             "sass_instructions": sum(sizes.get(k, 0) for k in [kernel] + callees) // 16, "calls": calls,
             "checked": kind in ("ntt", "poseidon2") or (kind == "msm" and int(variant) <= 2)}
        records.append(r)
        bad = [w for w, v in (("stack frame", r["stack_cumulative"]), ("spill stores", r["spill_stores"]),
                              ("spill loads", r["spill_loads"])) if v]
        if r["checked"] and bad:
            failures.append(f"{kernel} ({r['what']}, {kind}.cl): " + "; ".join(
                f"{b} {r[{'stack frame': 'stack_cumulative', 'spill stores': 'spill_stores', 'spill loads': 'spill_loads'}[b]]} bytes"
                for b in bad))

hdr = f"{'program':<12} {'group/field':<13} {'kernel':<22} {'regs':>4} {'stack':>6} {'spill st/ld':>11} {'PTX':>6} {'SASS':>6}"
print(hdr)
print("-" * len(hdr))
for r in records:
    stack = f"{r['stack_frame']}" if r["stack_frame"] == r["stack_cumulative"] else f"{r['stack_frame']}+{r['stack_cumulative'] - r['stack_frame']}"
    print(f"{r['program']:<12} {r['what']:<13} {r['kernel']:<22} {r['registers'] if r['registers'] is not None else '-':>4} "
          f"{stack:>6} {str(r['spill_stores']) + '/' + str(r['spill_loads']):>11} {r['ptx_instructions']:>6} "
          f"{r['sass_instructions']:>6}" + (f"  calls {', '.join(r['calls'])}" if r["calls"] else ""))
ops = {}
for curve, field in ((1, "bn254_fp"), (2, "bls12_381_fp")):
    try:
        sizes = cubin_text_sizes(f"{tmp}/ops{curve}.cubin")
    except OSError:
        continue
    copy = sizes.get("op_copy", 0) // 16
    ops[field] = {op: sizes.get("op_" + op, 0) // 16 - copy for op in ("mul", "add")}
if ops:
    print("SASS per operation (dynamic: the multiplication's loops unrolled; less a copy kernel's): " +
          "; ".join(f"{f} mul {v['mul']}, add {v['add']}" for f, v in ops.items()))
if json_path:
    with open(json_path, "w") as f:
        json.dump({"words": words, "ptx_target": march, "ptxas_arch": "sm_90", "kernels": records, "ops_sass": ops},
                  f, indent=1)
        f.write("\n")
for msg in failures:
    print(f"ptx-check: FAIL: {msg}", file=sys.stderr)
sys.exit(1 if failures else 0)
EOF
rc=$?
if [ "$failed_build" -ne 0 ] || [ "$rc" -ne 0 ]; then
  echo "ptx-check: FAILED (a stack frame or spill in a G1 MSM, NTT or Poseidon2 kernel, or a program that does not build)" >&2
  exit 1
fi
echo "ptx-check: ok (no stack frame or spill in the G1 MSM, NTT and Poseidon2 kernels)"
