#!/usr/bin/env python3
"""Every command's --json (issue 20 item 4): the envelope (schema, version, command, run
metadata) and the fields the "JSON output" table of docs/cli.md lists, to a file and to stdout ("-", when
the table must go to stderr so that stdout parses).

usage: json_output_test.py HYPROVE FIXTURE_DIR
"""
import json
import os
import subprocess
import sys
import tempfile

META = {"hyprove_version", "date", "hostname", "cpu_model", "cpu_tier", "cores", "threads", "opencl_devices",
        "devices", "device_choice"}
FIELDS = {
    "msm": {"curve", "group", "log_n", "n", "device", "cpu_tier", "threads", "repeat", "resident", "precompute",
            "setup_ms", "bases_bytes", "median_ms",
            "min_ms", "ns_per_point", "points_per_s", "devices_ran", "faults"},
    "ntt": {"field", "log_n", "batch", "lde", "device", "cpu_tier", "threads", "repeat", "median_ms", "min_ms",
            "ns_per_butterfly", "gb_per_s", "elements_per_s", "faults"},
    "groth16": {"curve", "constraints_log_n", "n_vars", "n_public", "device", "cpu_tier", "threads", "repeat",
                "precompute", "setup_ms", "precomputed_bytes", "total_median_ms", "total_min_ms", "phases", "faults"},
    "calibrate": {"kind", "log_n", "device", "threads", "items_per_s"},
    "device": {"id", "type", "name"},
}
# every bench record's runs: mean, sample standard deviation, max, the warm-up count, each run
TIMING = {"mean_ms", "sd_ms", "max_ms", "warmup_runs", "runs_ms"}
FIELDS["msm"] |= TIMING
FIELDS["ntt"] |= TIMING
PHASES = ["witness", "h", "msm_a", "msm_b1", "msm_b2", "msm_c", "msm_h", "assemble"]
FAULT = {"device": str, "error": str, "tiles_failed": int, "dropped": bool}  # one entry of "faults"
failures = []


def check(ok, what, detail=""):
    if not ok:
        failures.append(what)
        print("FAIL:", what, detail)


def run(hyprove, args, env=None):
    r = subprocess.run([hyprove] + args, capture_output=True, text=True, timeout=900,
                       env=dict(os.environ, **(env or {})))
    check(r.returncode == 0, f"{' '.join(args)} exits 0", f"\nstdout {r.stdout!r}\nstderr {r.stderr!r}")
    return r


def document(text, command, what):
    """The parsed document after checking its envelope; {} when it does not parse."""
    try:
        doc = json.loads(text)
    except ValueError as e:
        check(False, f"{what}: JSON parses", f"{e}: {text[:300]!r}")
        return {}
    check(doc.get("schema") == "hyprove-bench" and doc.get("schema_version") == 1, f"{what}: schema 1", doc)
    check(doc.get("command") == command, f"{what}: command {command!r}", doc.get("command"))
    meta = doc.get("meta", {})
    check(META <= set(meta), f"{what}: meta has {sorted(META - set(meta))} missing", meta)
    check(len(meta.get("date", "")) == 20 and meta.get("date", "").endswith("Z"), f"{what}: ISO date", meta)
    check(isinstance(meta.get("opencl_devices"), list), f"{what}: opencl_devices is a list", meta)
    return doc


def records(doc, op, what):
    recs = doc.get("records", [])
    check(recs and all(r.get("op") == op for r in recs), f"{what}: records of op {op}", recs)
    for r in recs:
        check(FIELDS[op] <= set(r), f"{what}: record lacks {sorted(FIELDS[op] - set(r))}", r)
        if TIMING <= set(r):  # the statistics agree with the runs they come from
            runs = r["runs_ms"]
            median_of = sorted(runs)[len(runs) // 2] if len(runs) % 2 else \
                sum(sorted(runs)[len(runs) // 2 - 1:len(runs) // 2 + 1]) / 2
            close = lambda a, b: abs(a - b) <= 1e-3 + 1e-6 * abs(b)  # fields printed to 3 decimals at least
            check(len(runs) == r.get("repeat") and r["warmup_runs"] == 1 and close(r["max_ms"], max(runs))
                  and close(r.get("min_ms", r.get("total_min_ms", 0)), min(runs))
                  and close(r["mean_ms"], sum(runs) / len(runs)) and r["sd_ms"] >= 0
                  and close(r.get("median_ms", r.get("total_median_ms", 0)), median_of),
                  f"{what}: runs_ms and its statistics agree", r)
        if "faults" in FIELDS[op]:
            faults = r.get("faults")
            check(isinstance(faults, list) and all(isinstance(f, dict) and set(f) == set(FAULT) and
                                                   all(isinstance(f[k], t) for k, t in FAULT.items())
                                                   for f in faults),
                  f"{what}: faults is a list of {sorted(FAULT)}", faults)
    return recs


def to_file_and_stdout(hyprove, args, command, op, tmp):
    """The command with --json FILE, then --json -: the same records' shape both ways."""
    path = os.path.join(tmp, command.replace(" ", "_") + ".json")
    r = run(hyprove, args + ["--json", path])
    with open(path) as fh:
        recs = records(document(fh.read(), command, command + " --json FILE"), op, command)
    check(r.stdout.strip() != "" or op == "device", f"{command}: the table still prints with --json FILE", r.stdout)
    r = run(hyprove, args + ["--json", "-"])
    stdout_recs = records(document(r.stdout, command, command + " --json -"), op, command + " -")
    check(len(stdout_recs) == len(recs), f"{command}: as many records on stdout as in the file")
    check(r.stderr.strip() != "", f"{command} --json -: the table goes to stderr", r.stderr)
    return recs


def main():
    hyprove, fixture = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    zkey, wtns = os.path.join(fixture, "circuit.zkey"), os.path.join(fixture, "witness.wtns")
    with tempfile.TemporaryDirectory() as tmp:
        env_cache = {"HPR_CACHE_DIR": os.path.join(tmp, "cache")}
        os.environ.update(env_cache)
        recs = to_file_and_stdout(hyprove, ["bench", "msm", "--curve", "bn254", "--log-n", "6", "--repeat", "1",
                                            "--devices", "cpu,all"], "bench msm", "msm", tmp)
        check(all("hybrid_efficiency" not in r for r in recs if r.get("devices_ran", 1) < 2),
              "hybrid_efficiency only where more than one device ran", recs)
        check(all(isinstance(r.get("devices_used"), list) and len(r["devices_used"]) == r["devices_ran"]
                  and all(isinstance(d, str) and d for d in r["devices_used"])
                  for r in recs if r["device"] == "all"),
              "every all record names its devices_ran devices in devices_used", recs)
        recs = to_file_and_stdout(hyprove, ["bench", "msm", "--curve", "bn254", "--log-n", "6", "--repeat", "1",
                                            "--device", "cpu", "--precompute", "1,4"], "bench msm", "msm", tmp)
        check([(r.get("precompute"), r.get("resident"), r.get("bases_bytes")) for r in recs] ==
              [(1, True, 64 * 64), (4, True, 4 * 64 * 64)], "bench msm --precompute 1,4: a resident record per factor,"
              " with the bases' bytes", recs)
        r = subprocess.run([hyprove, "bench", "msm", "--log-n", "6", "--precompute", "17"], capture_output=True,
                           text=True, timeout=60)
        check(r.returncode == 2 and "--precompute '17'" in r.stderr, "bench msm --precompute 17: refused, named",
              r.stderr)
        to_file_and_stdout(hyprove, ["bench", "ntt", "--field", "goldilocks", "--log-n", "6", "--repeat", "1"],
                           "bench ntt", "ntt", tmp)
        recs = to_file_and_stdout(hyprove, ["bench", "groth16", zkey, wtns, "--repeat", "1", "--devices", "cpu"],
                                  "bench groth16", "groth16", tmp)
        for r in recs:
            check(TIMING <= set(r), "bench groth16 record: every run and its statistics", r)
            check([p.get("phase") for p in r.get("phases", [])] == PHASES, "groth16 record: the eight phases", r)
            check(r.get("curve") == "bn254" and r.get("constraints_log_n") == 10, "groth16 record: curve, size", r)
        recs = to_file_and_stdout(hyprove, ["bench", "groth16", zkey, wtns, "--repeat", "1", "--devices", "cpu",
                                            "--precompute", "1,2"], "bench groth16", "groth16", tmp)
        check([r.get("precompute") for r in recs] == [1, 2] and recs[0].get("precomputed_bytes") == 0 and
              recs[0].get("setup_ms") == 0 and recs[1].get("setup_ms", 0) > 0,
              "bench groth16 --precompute 1,2: a record per factor, the second's making timed", recs)
        # bn128_2e10: A, B1 (G1) and B2 (G2) over n_vars, C over the private ones, H over 2^10
        if len(recs) == 2:
            r = recs[1]
            g1 = 2 * r["n_vars"] + r["n_vars"] - r["n_public"] - 1 + 1024
            check(r.get("precomputed_bytes") == 2 * (64 * g1 + 128 * r["n_vars"]),
                  "bench groth16 --precompute 2: twice the sections' bytes", r)
        r = subprocess.run([hyprove, "bench", "groth16", zkey, wtns, "--precompute", "0"], capture_output=True,
                           text=True)
        check(r.returncode == 2 and "--precompute '0'" in r.stderr, "bench groth16 --precompute 0: refused, named",
              r.stderr)
        recs = to_file_and_stdout(hyprove, ["calibrate", "--curve", "bn254", "--field", "goldilocks", "--log-n", "6",
                                            "--devices", "cpu"], "calibrate", "calibrate", tmp)
        check(sorted((r.get("kind"), r.get("curve", r.get("field"))) for r in recs) ==
              [("msm", "bn254"), ("ntt", "goldilocks")], "calibrate records: kind and curve or field", recs)
        recs = to_file_and_stdout(hyprove, ["devices", "--prepare", "none"], "devices", "device", tmp)
        check(recs and recs[0].get("id") == "cpu" and "tiers" in recs[0], "devices: the CPU first, with tiers", recs)

        proof, public, report = (os.path.join(tmp, f) for f in ("proof.json", "public.json", "report.json"))
        r = run(hyprove, ["groth16", "prove", zkey, wtns, proof, public, "--devices", "cpu", "--json", report])
        with open(report) as fh:
            recs = records(document(fh.read(), "groth16 prove", "groth16 prove --json"), "groth16", "prove")
        check(len(recs) == 1 and recs[0].get("repeat") == 1 and recs[0].get("device") == "cpu",
              "groth16 prove --json: one record of one proof on cpu", recs)
        r = run(hyprove, ["groth16", "prove", zkey, wtns, proof, public, "--devices", "cpu", "--report", "--json", "-"])
        doc = document(r.stdout, "groth16 prove", "groth16 prove --report --json -")
        check("msm H" in r.stderr, "groth16 prove --report with --json -: the report goes to stderr", r.stderr)
        check(doc.get("meta", {}).get("devices") == "cpu" and doc.get("meta", {}).get("device_choice") == ""
              and "devices: auto" not in r.stderr, "--devices cpu: meta.devices cpu, no auto choice", doc.get("meta"))
        # the default device set where POCL is the only OpenCL driver (an ICD folder of its own):
        # the CPU, said in --report and the JSON, and OpenCL not listed (so not loaded)
        vendors = os.path.join(tmp, "vendors")
        os.makedirs(vendors)
        with open(os.path.join(vendors, "pocl.icd"), "w") as fh:
            fh.write("libpocl.so.2\n")
        r = run(hyprove, ["groth16", "prove", zkey, wtns, proof, public, "--report", "--json", "-"],
                env={"OCL_ICD_VENDORS": vendors})
        meta = document(r.stdout, "groth16 prove", "groth16 prove (default devices) --json -").get("meta", {})
        check(meta.get("devices") == "cpu" and meta.get("device_choice", "").startswith("auto: cpu")
              and "POCL" in meta.get("device_choice", "") and meta.get("opencl_devices") == [],
              "default devices with POCL the only driver: auto chose the CPU, OpenCL not listed", meta)
        check("devices: auto: cpu" in r.stderr, "groth16 prove --report says what auto chose", r.stderr)
        recs = records(json.loads(r.stdout), "groth16", "prove (default devices)") if r.returncode == 0 else []
        check(len(recs) == 1 and recs[0].get("device") == "cpu", "the record names the device auto chose", recs)

        main_job = os.path.join(tmp, "main.json")
        jobdir = os.path.join(tmp, "job")
        os.makedirs(os.path.join(jobdir, "tmp"))
        env = dict(os.environ, TMPDIR=os.path.join(jobdir, "tmp"))
        env.pop("HPR_EXAMPLE_OUT", None)
        r = subprocess.run([hyprove, "--json", main_job], capture_output=True, text=True, timeout=900, cwd=jobdir,
                           env=env)
        check(r.returncode == 0 and "proof verified" in r.stdout, "the main job runs from another directory",
              r.stdout[-500:] + r.stderr[-500:])
        if os.path.exists(main_job):
            with open(main_job) as fh:
                recs = records(document(fh.read(), "bench msm", "hyprove --json"), "msm", "main job")
            check({r.get("curve") for r in recs} == {"bn254", "bls12-381"}, "main job: both curves", recs)
            # record by record: the CPU's runs (one thread, then every core, on each curve) come
            # first and say so, then each OpenCL device's; each names its own device and tier
            cpu = recs[:4]
            check(len(cpu) == 4 and all(r.get("device") == "cpu" and r.get("cpu_tier") not in (None, "-") for r in cpu)
                  and [r.get("threads") for r in cpu][0::2] == [1, 1],
                  "main job: the first four records are the CPU's, with their threads and tier", cpu)
            for r in recs[4:]:
                check(str(r.get("device", "")).startswith("cl:") and r.get("cpu_tier") == "-",
                      "main job: the later records are an OpenCL device's, with no CPU tier", r)
        check(os.listdir(jobdir) == ["tmp"] and os.listdir(os.path.join(jobdir, "tmp")) == [],
              "the main job leaves nothing behind (working directory, TMPDIR)", os.listdir(jobdir))
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("json output: every command's envelope and records")


if __name__ == "__main__":
    main()
