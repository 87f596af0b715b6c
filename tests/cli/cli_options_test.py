#!/usr/bin/env python3
"""The CLI synopsis (docs/cli.md), the help texts and the option parser agree, and the parser keeps its
rules (issue 20 item 3).

For every command of the synopsis block in docs/cli.md ("## Commands"), the options it lists must be
exactly those the command accepts (HPR_LIST_OPTIONS=1 makes a command print its option table
and exit), and its --help must mention each of them and no option it does not accept. Then the
parser's rules: options anywhere among the positional arguments, "--" ends the options,
"--name=VALUE", a repeated single-value option refused, a repeated list option accumulated, a
flag given a value refused, unknown and ambiguous options named. Then the options before the
command (issue 46 item 8): `hyprove --threads T --max-memory SIZE COMMAND ...` gives what the
same options after the command give (msm's point, commit's root.json, bench msm's and groth16
prove's JSON records, a memory limit's refusal), a repeat across the command refused as any
repeat, a command without --threads refusing it in both places, the main job taking
--max-memory and --json in any order, and unknown leading options named. Last, the one thread
cap: --threads takes 1..HPR_MAX_THREADS (read from hyprove.h), before or after the command.

usage: cli_options_test.py HYPROVE docs/cli.md FIXTURE_DIR
"""
import os
import re
import subprocess
import sys
import tempfile

COMMANDS = ["devices", "msm", "bench msm", "calibrate", "ntt", "bench ntt", "commit", "commit verify", "bench commit",
            "bench poseidon2", "groth16 prove", "groth16 prove-batch", "groth16 verify", "bench groth16", "serve"]
OPTION = re.compile(r"--[a-z][a-z0-9-]*")
failures = []


def check(ok, what, result=None):
    if ok:
        return
    detail = ""
    if result is not None:
        detail = f"\n  command: {' '.join(result.args)}\n  exit: {result.returncode}\n  stdout: {result.stdout!r}" \
                 f"\n  stderr: {result.stderr!r}"
    failures.append(what + detail)
    print("FAIL:", what + detail)


def run(args, env=None, cwd=None):
    return subprocess.run(args, capture_output=True, text=True, env=env, cwd=cwd, timeout=600)


def synopsis(readme):
    """{command: set of options} from docs/cli.md's ```-block under "## Commands"."""
    text = open(readme).read()
    start = text.index("## Commands")
    block = text[text.index("```\n", start) + 4:]
    block = block[:block.index("```")]
    found, current = {}, None
    for line in block.splitlines():
        if line.startswith("hyprove "):
            words = line.split()
            two = " ".join(words[1:3])
            current = two if two in COMMANDS else words[1] if words[1] in COMMANDS else None
            if current:
                found.setdefault(current, set())
        elif not line.startswith(" "):
            current = None
        if current:
            found[current] |= set(OPTION.findall(line.split("  ")[0] if line.startswith("hyprove") else line))
    return found


def accepted(hyprove, command):
    r = run([hyprove] + command.split(), env=dict(os.environ, HPR_LIST_OPTIONS="1"))
    check(r.returncode == 0, f"HPR_LIST_OPTIONS for '{command}' exits 0", r)
    return {line.split()[0] for line in r.stdout.splitlines() if line.strip()}


def help_options(hyprove, command):
    r = run([hyprove] + command.split() + ["--help"])
    check(r.returncode == 0 and r.stdout, f"'{command} --help' prints help", r)
    return set(OPTION.findall(r.stdout)) - {"--help"}


def check_docs(hyprove, readme):
    documented = synopsis(readme)
    for command in COMMANDS:
        check(command in documented, f"docs/cli.md's synopsis lists '{command}'")
        ok = accepted(hyprove, command)
        docs = documented.get(command, set())
        check(docs == ok, f"'{command}': docs/cli.md lists {sorted(docs - ok)} that the CLI refuses and leaves out "
                          f"{sorted(ok - docs)} that it accepts")
        helped = help_options(hyprove, command)
        check(ok <= helped, f"'{command} --help' does not mention {sorted(ok - helped)}")
        check(helped <= ok, f"'{command} --help' mentions {sorted(helped - ok)}, which it does not accept")


def check_rules(hyprove, fixtures):
    msm = [hyprove, "msm", "--curve", "bn254", "--device", "cpu"]
    base = run(msm + ["--log-n", "4"])
    check(base.returncode == 0 and base.stdout.startswith("["), "msm runs", base)
    for variant in (["--log-n=4"], ["--log-n", "4", "--progress"]):
        r = run(msm + variant)
        check(r.returncode == 0 and r.stdout == base.stdout, f"msm with {variant} gives the same result", r)
    r = run(msm + ["--log-n", "4", "--log-n", "5"])
    check(r.returncode == 2 and "--log-n given twice" in r.stderr, "a repeated single-value option is refused", r)
    r = run(msm + ["--log-n", "12", "--progress"])
    check(r.returncode == 0 and "hyprove: progress msm" in r.stderr and "100%" in r.stderr.splitlines()[-2],
          "--progress prints plain progress lines ending at 100% on stderr (not a terminal)", r)
    r = run(msm + ["--log-n", "12"])
    check(r.returncode == 0 and "progress" not in r.stderr, "no progress lines without --progress off a terminal", r)
    r = run(msm + ["--log-n", "4", "--progress", "--progress"])
    check(r.returncode == 2 and "--progress given twice" in r.stderr, "a repeated flag is refused", r)
    r = run(msm + ["--log-n", "4", "--progress=yes"])
    check(r.returncode == 2 and "--progress takes no value" in r.stderr, "a flag with a value is refused", r)
    r = run(msm + ["--log-n", "4", "--bogus", "1"])
    check(r.returncode == 2 and "unknown option '--bogus'" in r.stderr, "an unknown option is named", r)
    r = run([hyprove, "bench", "msm", "--de", "cpu"])
    check(r.returncode == 2 and "ambiguous option '--de'" in r.stderr, "an ambiguous prefix is named", r)
    r = run(msm + ["--log-n", "4", "-x"])
    check(r.returncode == 2 and "unknown option '-x'" in r.stderr, "an unknown short option is named", r)
    r = run(msm + ["--log-n"])
    check(r.returncode == 2 and "--log-n needs a value" in r.stderr, "a missing value is named", r)
    r = run(msm + ["--log-n", "4", "stray"])
    check(r.returncode == 2 and "unexpected argument 'stray'" in r.stderr, "a stray argument is refused", r)

    with tempfile.TemporaryDirectory() as tmp:
        bench = [hyprove, "bench", "msm", "--curve", "bn254", "--devices", "cpu", "--repeat", "1"]
        r = run(bench + ["--log-n", "3", "--log-n", "4", "--json", "-"])
        check(r.returncode == 0, "a repeated list option runs", r)
        if r.returncode == 0:
            import json
            sizes = [rec["log_n"] for rec in json.loads(r.stdout)["records"]]
            check(sizes == [3, 4], f"--log-n 3 --log-n 4 accumulates to 3,4 (got {sizes})", r)

        zkey, wtns = os.path.join(fixtures, "circuit.zkey"), os.path.join(fixtures, "witness.wtns")
        proof, public = os.path.join(tmp, "p.json"), os.path.join(tmp, "u.json")
        for order in ([zkey, "--devices", "cpu", wtns, "--threads", "1", proof, public],
                      ["--devices=cpu", "--", zkey, wtns, proof, public],
                      [zkey, wtns, proof, public, "--devices", "cpu", "--report"]):
            for path in (proof, public):
                if os.path.exists(path):
                    os.unlink(path)
            r = run([hyprove, "groth16", "prove"] + order)
            check(r.returncode == 0 and os.path.exists(proof) and os.path.exists(public),
                  f"groth16 prove takes options anywhere: {order}", r)
        r = run([hyprove, "groth16", "prove", zkey, wtns, proof, public, "extra"])
        check(r.returncode == 2 and "unexpected argument 'extra'" in r.stderr, "a fifth file is refused", r)
        r = run([hyprove, "serve", "--zkey", zkey, "--zkey", zkey, "--listen", "127.0.0.1:0", "--listen", "x"])
        check(r.returncode == 2 and "--listen given twice" in r.stderr, "serve refuses --listen twice", r)


def same_both_ways(hyprove, before, command, after, what, compare=None):
    """`hyprove BEFORE COMMAND AFTER` and `hyprove COMMAND AFTER BEFORE`: the same exit status and
    stdout (or compare(stdout) when given); returns the two results."""
    first = run([hyprove] + before + command + after)
    second = run([hyprove] + command + after + before)
    key = compare or (lambda out: out)
    check(first.returncode == second.returncode and key(first.stdout) == key(second.stdout),
          f"{what}: the options before the command give what they give after it "
          f"(exit {first.returncode} and {second.returncode})", first if first.returncode else second)
    return first, second


def records(stdout, fields):
    import json
    try:
        doc = json.loads(stdout)
    except ValueError:
        return None
    return doc["meta"]["threads"], [{k: r.get(k) for k in fields} for r in doc["records"]]


def check_leading_results(hyprove, fixtures, tmp):
    msm = ["msm", "--curve", "bn254", "--log-n", "5", "--device", "cpu"]
    a, b = same_both_ways(hyprove, ["--threads", "1", "--max-memory", "1G"], msm, [], "msm")
    check(a.returncode == 0 and a.stdout.startswith("[") and "1 threads" in a.stderr and "1 threads" in b.stderr,
          "msm: --threads 1 before the command runs on one thread", a)
    a, _ = same_both_ways(hyprove, ["--thr=1"], msm, [], "msm with a prefix before the command")
    check(a.returncode == 0 and "1 threads" in a.stderr, "an unambiguous prefix works before the command", a)
    a, b = same_both_ways(hyprove, ["--max-memory", "64K"], msm[:3] + ["--log-n", "14", "--device", "cpu"], [],
                          "msm over its memory limit", compare=lambda out: out)
    check(a.returncode == 1 and "64 KiB" in a.stderr and a.stderr == b.stderr,
          "--max-memory before the command sets the command's limit (refused the same way)", a)
    bench = ["bench", "msm", "--curve", "bn254", "--log-n", "3", "--devices", "cpu", "--repeat", "1", "--json", "-"]
    a, _ = same_both_ways(hyprove, ["--threads", "1"], bench, [], "bench msm --json",
                          compare=lambda out: records(out, ("op", "curve", "log_n", "device", "threads", "repeat")))
    got = records(a.stdout, ("threads",))
    check(a.returncode == 0 and got and got[1] == [{"threads": 1}], f"bench msm: the records say 1 thread ({got})", a)
    root, data = {}, os.path.join(tmp, "matrix.bin")
    with open(data, "wb") as fh:
        fh.write(bytes(range(64)) * 4)  # 2 columns of 2^5 little-endian elements, each below p
    for where in ("before", "after"):
        out = os.path.join(tmp, f"root-{where}.json")
        cmd = ["commit", "--field", "koalabear", "--log-n", "5", "--no-lde", "--columns", "2", "--in", data, "--out",
               out, "--open", "3"]
        lead = ["--threads", "1", "--max-memory", "256M"]
        r = run([hyprove] + (lead + cmd if where == "before" else cmd + lead))
        check(r.returncode == 0 and "1 threads" in r.stderr, f"commit with the options {where} the command", r)
        root[where] = open(out).read() if os.path.exists(out) else None
    check(root["before"] is not None and root["before"] == root["after"], "commit: the same root.json both ways")
    zkey, wtns = os.path.join(fixtures, "circuit.zkey"), os.path.join(fixtures, "witness.wtns")
    prove = ["groth16", "prove", zkey, wtns, os.path.join(tmp, "p.json"), os.path.join(tmp, "u.json"), "--devices",
             "cpu", "--json", "-"]
    a, _ = same_both_ways(hyprove, ["--threads", "1"], prove, [], "groth16 prove --json",
                          compare=lambda out: records(out, ("op", "curve", "device", "threads", "n_vars")))
    got = records(a.stdout, ("threads",))
    check(a.returncode == 0 and got and got[1] == [{"threads": 1}],
          "groth16 prove: the record says 1 thread", a)


def check_leading_rules(hyprove, tmp):
    msm = [hyprove, "msm", "--curve", "bn254", "--log-n", "3", "--device", "cpu"]
    r = run([hyprove, "--threads", "1"] + msm[1:] + ["--threads", "1"])
    check(r.returncode == 2 and "--threads given twice" in r.stderr, "--threads before and after: refused as a repeat",
          r)
    r = run([hyprove, "--max-memory", "1G"] + msm[1:] + ["--max-memory", "1G"])
    check(r.returncode == 2 and "--max-memory given twice" in r.stderr, "--max-memory before and after: a repeat", r)
    r = run([hyprove, "--threads", "1", "--threads", "2"] + msm[1:])
    check(r.returncode == 2 and "--threads given twice" in r.stderr, "--threads twice before the command: refused", r)
    a, b = same_both_ways(hyprove, ["--threads", "2"], ["devices"], [], "devices, which has no --threads")
    check(a.returncode == 2 and "unknown option '--threads'" in a.stderr and a.stderr == b.stderr,
          "a command without --threads refuses it before the command as after it", a)
    r = run([hyprove, "--bogus", "1"] + msm[1:])
    check(r.returncode == 2 and "unknown option '--bogus' before the command" in r.stderr
          and "unknown command" not in r.stderr, "an unknown option before the command is named as an option", r)
    r = run([hyprove, "--threads"])
    check(r.returncode == 2 and "--threads needs a value" in r.stderr, "--threads without a value before a command", r)
    r = run([hyprove, "--threads", "2"])
    check(r.returncode == 2 and "--threads needs a command" in r.stderr, "the main job refuses --threads, saying why", r)
    job = os.path.join(tmp, "main.json")
    r = run([hyprove, "--json", job] + msm[1:])
    check(r.returncode == 2 and "main job" in r.stderr, "--json before a command (the main job's form) is refused", r)
    for order in (["--max-memory", "64K", "--json", job], ["--json", job, "--max-memory", "64K"]):
        r = run([hyprove] + order)
        check(r.returncode == 1 and "64 KiB" in r.stderr and not os.path.exists(job),
              f"the main job takes --max-memory and --json in any order ({order}): its limit applies", r)
    r = run([hyprove, "--threads", "2", "--help"])
    check(r.returncode == 0 and r.stdout.startswith("usage: hyprove [--threads T]"), "hyprove --threads 2 --help", r)
    r = run([hyprove, "--threads", "2", "msm", "--help"])
    check(r.returncode == 0 and "usage: hyprove msm" in r.stdout, "hyprove --threads 2 msm --help: msm's help", r)


def check_thread_cap(hyprove, header):
    cap = int(re.search(r"#define HPR_MAX_THREADS (\d+)", open(header).read()).group(1))
    msm = ["msm", "--curve", "bn254", "--log-n", "2", "--device", "cpu"]
    r = run([hyprove] + msm + ["--threads", str(cap)])
    check(r.returncode == 0 and f"{cap} threads" in r.stderr, f"msm --threads {cap} (HPR_MAX_THREADS) runs", r)
    for where in ("after", "before"):
        args = msm + ["--threads", str(cap + 1)] if where == "after" else ["--threads", str(cap + 1)] + msm
        r = run([hyprove] + args)
        check(r.returncode == 2 and f"--threads '{cap + 1}' is not an integer in 1..{cap}" in r.stderr,
              f"--threads {cap + 1} {where} the command: refused, naming 1..{cap}", r)
    for command in (["bench", "ntt", "--log-n", "3"], ["groth16", "setup", "--insecure-dev", "a.r1cs", "b.zkey"]):
        r = run([hyprove] + command + ["--threads", str(cap + 1)])
        check(r.returncode == 2 and f"1..{cap}" in r.stderr, f"{' '.join(command[:2])} --threads {cap + 1}: refused",
              r)


def main():
    hyprove, readme, fixtures = sys.argv[1:4]
    check_docs(hyprove, readme)
    check_rules(hyprove, fixtures)
    with tempfile.TemporaryDirectory() as tmp:
        check_leading_results(hyprove, fixtures, tmp)
        check_leading_rules(hyprove, tmp)
    check_thread_cap(hyprove, os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(readme))), "host",
                                           "include", "hyprove.h"))
    if failures:
        print(f"{len(failures)} failure(s)")
        sys.exit(1)
    print("cli options: docs/cli.md, help texts and parser agree; parser rules hold")


if __name__ == "__main__":
    main()
