#!/usr/bin/env python3
"""The rehearsal of scripts/gpu-check.sh (issue 49 item 7): every step on POCL's CPU device at
small sizes, against this build's hyprove (--build-dir: no second build), as it will run on a
lent GPU machine. Asserts: exit 0; every step of the script (its `run_step NAME` lines) ran and
passed, none skipped or absent; the correctness step compared something and found no
difference; the lent machine's limits on what comes back: at most 8 files in $OUT, none more
than 2 folders down (the extra ones are named); and the three outputs (log, JSON, tarball) are
whole.

Usage: gpu_check_rehearsal_test.py SOURCE_DIR BUILD_DIR. The program cache persists in
$HPR_CACHE_DIR/gpu-check (the test's own folder under the build tree), so a second run builds
no program. Skipped (77) where POCL is not installed, unless HPR_CI_REQUIRE names opencl.
"""
import json
import os
import re
import subprocess
import sys
import tarfile
import tempfile
import time

MAX_FILES, MAX_DEPTH = 8, 2
OUTPUTS = {"gpu-check.log", "gpu-check.json", "gpu-check-files.tar.gz"}


def fail(msg, log=None):
    print("FAIL:", msg)
    if log:
        print("--- the end of the script's output:")
        print(log[-6000:])
    sys.exit(1)


def main():
    src, build = sys.argv[1], sys.argv[2]
    required = os.environ.get("HPR_CI_REQUIRE", "").split(",")
    if not os.path.exists("/etc/OpenCL/vendors/pocl.icd") and "opencl" not in required:
        print("skipped: POCL is not installed (no /etc/OpenCL/vendors/pocl.icd)")
        sys.exit(77)
    script = os.path.join(src, "scripts", "gpu-check.sh")
    steps_expected = re.findall(r"^\s*run_step (\S+) ", open(script).read(), re.M)
    cache = os.path.join(os.environ.get("HPR_CACHE_DIR") or os.path.join(build, "test-cache"), "gpu-check")
    with tempfile.TemporaryDirectory(prefix="hpr-gpu-check-") as tmp:
        out = os.path.join(tmp, "out")
        os.mkdir(out)
        env = dict(os.environ, OUT=out, GPU_CHECK_SCRATCH=os.path.join(tmp, "scratch"), GPU_CHECK_CACHE=cache)
        env.pop("HPR_CACHE_DIR", None)
        t0 = time.time()
        p = subprocess.run(["bash", script, "--rehearse", "--build-dir", build], env=env, stdout=subprocess.PIPE,
                           stderr=subprocess.STDOUT, text=True, timeout=900)
        took = time.time() - t0
        log = p.stdout
        if p.returncode != 0:
            fail(f"gpu-check.sh --rehearse exited {p.returncode}", log)

        # What comes back from the lent machine: at most 8 files, at most 2 folders down.
        files = []
        for d, _, names in os.walk(out):
            files += [os.path.relpath(os.path.join(d, n), out) for n in names]
        deep = [f for f in files if f.count(os.sep) > MAX_DEPTH]
        if len(files) > MAX_FILES:
            fail(f"{len(files)} files in OUT, at most {MAX_FILES} come back: extra {sorted(files)[MAX_FILES:]}"
                 f" (all: {sorted(files)})")
        if deep:
            fail(f"files more than {MAX_DEPTH} folders down in OUT do not come back: {sorted(deep)}")
        if set(files) != OUTPUTS:
            fail(f"OUT holds {sorted(files)}, expected {sorted(OUTPUTS)}")

        doc = json.load(open(os.path.join(out, "gpu-check.json")))
        if doc.get("mode") != "rehearsal" or doc.get("result") != "ok":
            fail(f"gpu-check.json: mode {doc.get('mode')}, result {doc.get('result')}", log)
        steps = {s["name"]: s["status"] for s in doc["steps"]}
        missing = [s for s in steps_expected if s not in steps]
        not_ok = {s: st for s, st in steps.items() if st != "ok"}
        if missing or not_ok:
            fail(f"steps that did not run: {missing}; steps not ok: {not_ok}", log)
        for key in ("correctness", "correctness_ptx"):
            c = doc[key]
            if c["same"] == 0 or c["different"] or c["failed"]:
                fail(f"{key}: {c}", log)
        for fig in ("devices", "msm-key", "msm-sent", "ntt-key", "groth16", "hybrid", "ntt-all"):
            if not doc["figures"].get(fig):
                fail(f"gpu-check.json lacks figures.{fig}")
        with tarfile.open(os.path.join(out, "gpu-check-files.tar.gz")) as tar:
            names = {os.path.basename(n) for n in tar.getnames()}
        for want in ("steps.tsv", "correctness.txt", "msm-key.txt", "msm-key.json"):
            if want not in names:
                fail(f"the tarball lacks {want}")
        if "gpu-check (rehearsal): OK" not in open(os.path.join(out, "gpu-check.log")).read():
            fail("the log does not end with the OK line", log)
    print(f"gpu-check rehearsal: {len(steps)} steps ok in {took:.0f} s, OUT: {sorted(files)}")


if __name__ == "__main__":
    main()
