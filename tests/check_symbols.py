#!/usr/bin/env python3
"""The shared libraries export their public API and nothing else.

libhyprove.so: every defined dynamic symbol is an hpr_ function of hyprove.h (the header's
HPR_API declarations, read here), and every one of those is exported.
libhyprove-rapidsnark.so: exactly rapidsnark's nine prover.h functions.
A symbol outside these lists fails the test, named (a program defining the same name would
silently replace ours, or ours theirs).

usage: check_symbols.py LIBHYPROVE.so HYPROVE_H LIBHYPROVE_RAPIDSNARK.so
"""
import re
import subprocess
import sys

failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def exported(lib):
    out = subprocess.run(["nm", "-D", "--defined-only", lib], capture_output=True, text=True, check=True).stdout
    return {line.split()[-1] for line in out.splitlines() if len(line.split()) >= 3}


def main():
    lib, header, compat = sys.argv[1:4]
    api = set(re.findall(r"HPR_API[^;(]*?\b(hpr_\w+)\s*\(", open(header).read()))
    got = exported(lib)
    check(len(api) > 40, f"hyprove.h declares {len(api)} HPR_API functions")
    extra, missing = sorted(got - api), sorted(api - got)
    check(not extra, f"{lib} exports nothing outside hyprove.h's API (extra: {extra})")
    check(not missing, f"{lib} exports every API function (missing: {missing})")
    want = {"groth16_public_size_for_zkey_buf", "groth16_public_size_for_zkey_file", "groth16_proof_size",
            "groth16_prover_create", "groth16_prover_create_zkey_file", "groth16_prover_prove",
            "groth16_prover_destroy", "groth16_prover", "groth16_prover_zkey_file"}
    got = exported(compat)
    check(got == want, f"{compat} exports exactly rapidsnark's prover.h (extra: {sorted(got - want)}, "
                       f"missing: {sorted(want - got)})")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
