#!/usr/bin/env python3
"""README.md cannot go stale: its commands run, its links resolve, it stays a front page.

- Every ```sh block that README marks with `<!-- readme_test: run -->` on the line before its
  fence is run as it stands, with bash -euo pipefail, from the source folder, with the one
  substitution of the CLI under test for `build/release/hyprove` (so the ASan build runs it
  too). It must exit 0; a block that proves and verifies must print the verifier's "OK".
- The other ```sh blocks (the two commands that install, build and run everything) are not
  run here: CI runs them (.ci/run is the second). Each script they name must exist and be
  executable.
- Every command of the CLI table (`hyprove devices`, `hyprove bench msm|ntt|...`) answers its
  --help with exit status 0, so the table lists only commands that exist.
- Every relative link resolves to a file of the source tree, and README is at most 250 lines
  (details live in docs/).

usage: readme_test.py HYPROVE SOURCE_DIR
"""
import os
import re
import subprocess
import sys

MAX_LINES = 250
RUN_MARK = "<!-- readme_test: run -->"
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what)
    if not cond:
        failures.append(what)


def sh_blocks(lines):
    """[(marked, first line number, text)] of the ```sh blocks."""
    out, i = [], 0
    while i < len(lines):
        if lines[i].strip() == "```sh":
            j = i + 1
            while lines[j].strip() != "```":
                j += 1
            k = i - 1
            while k >= 0 and not lines[k].strip():
                k -= 1
            out.append((k >= 0 and lines[k].strip() == RUN_MARK, i + 1, "\n".join(lines[i + 1:j])))
            i = j
        i += 1
    return out


def run_block(hyprove, source, first, text):
    script = text.replace("build/release/hyprove", hyprove)
    r = subprocess.run(["bash", "-euo", "pipefail", "-c", script], cwd=source, capture_output=True, text=True,
                       timeout=600)
    tail = (r.stdout + r.stderr).strip()[-600:]
    check(r.returncode == 0, f"README's block at line {first} runs (exit {r.returncode}){'' if r.returncode == 0 else ': ' + tail}")
    if "groth16 verify" in text:
        check(re.search(r"^OK\b", r.stdout, re.M) is not None,
              f"README's block at line {first}: the proof verifies (stdout: {r.stdout.strip()[-80:]!r})")


def check_scripts(source, first, text):
    for script in re.findall(r"^\s*(\./\S+)", text, re.M):
        path = os.path.join(source, script)
        check(os.path.isfile(path) and os.access(path, os.X_OK), f"README's block at line {first}: {script} is executable")


def table_commands(text):
    """The commands of the CLI table's first column, alternatives (`bench msm\\|ntt`) expanded;
    `hyprove-prover` (a link that the install makes) is not among them."""
    commands = []
    for line in text.splitlines():
        if not line.startswith("| `hyprove ") and not line.startswith("| `hyprove`"):
            continue
        first = re.split(r"(?<!\\)\|", line)[1]
        for cmd in re.findall(r"`(hyprove(?: [^`]*)?)`", first):
            words = cmd.replace("\\|", "|").split()
            if len(words) == 1:
                commands.append([])
                continue
            for last in words[-1].split("|"):
                commands.append(words[1:-1] + [last])
    return commands


def check_commands(hyprove, text):
    commands = table_commands(text)
    check(len(commands) >= 10, f"README's CLI table lists commands ({len(commands)})")
    for words in commands:
        r = subprocess.run([hyprove] + words + ["--help"], capture_output=True, text=True, timeout=60)
        check(r.returncode == 0 and "usage" in (r.stdout + r.stderr).lower(),
              f"hyprove {' '.join(words + ['--help'])} answers (exit {r.returncode})")


def check_links(source, text):
    links = re.findall(r"\]\(([^)#]+)(?:#[^)]*)?\)", text)
    check(len(links) > 10, f"README links to docs ({len(links)} links)")
    for target in links:
        if "://" not in target:
            check(os.path.exists(os.path.join(source, target)), f"README's link {target} resolves")


def main():
    if len(sys.argv) != 3:
        print(__doc__.strip().splitlines()[-1], file=sys.stderr)
        return 2
    hyprove, source = os.path.abspath(sys.argv[1]), os.path.abspath(sys.argv[2])
    text = open(os.path.join(source, "README.md"), encoding="utf-8").read()
    lines = text.splitlines()
    check(len(lines) <= MAX_LINES, f"README.md has {len(lines)} lines (at most {MAX_LINES})")
    blocks = sh_blocks(lines)
    check(sum(marked for marked, _, _ in blocks) >= 2, "README marks the blocks that are safe to run")
    for marked, first, block in blocks:
        if marked:
            run_block(hyprove, source, first, block)
        else:
            check_scripts(source, first, block)
    check_commands(hyprove, text)
    check_links(source, text)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
