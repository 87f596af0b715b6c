#!/usr/bin/env python3
"""hyprove installed into a temporary prefix, then used as a newcomer would.

`cmake --install` puts the libraries (shared, versioned, and static), hyprove.h, rapidsnark's
prover.h, the CLI with its hyprove-prover name, the pkg-config files, the CMake package and
the LICENSE, README.md and docs/ under the prefix (every link of those pages resolving to an
installed file). Then, with nothing but the prefix:
  - pkg-config: a consumer of hyprove.h built against the shared library and against the
    static one (no libhyprove.so needed to run it), and the rapidsnark client
    (tests/rapidsnark_compat.c) against libhyprove-rapidsnark, whose proof snarkjs accepts;
  - CMake: find_package(hyprove) and the imported targets hyprove::hyprove,
    hyprove::hyprove_static and hyprove::rapidsnark;
  - the installed CLI runs from the prefix (its RUNPATH finds the library), and
    hyprove-prover behaves as rapidsnark's prover: four arguments, exit 0 and a proof that
    snarkjs accepts, exit 1 otherwise;
  - the link lines that README.md and docs/install.md show (their ```sh blocks marked
    `<!-- install_test: run -->`) run as they stand with bash -euo pipefail, only the prefix
    (the block's `PREFIX=` line), the build folder and the compiler substituted, on a copy of
    tests/install/consumer.c named app.c; every program they build then runs with no
    LD_LIBRARY_PATH (the one they link without an rpath must fail so, as the docs say), and
    the static one needs no libhyprove.so.

usage: install_test.py BUILD_DIR SOURCE_DIR C_COMPILER SNARKJS
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

BUILD, SOURCE, CC, SNARKJS = [os.path.abspath(a) if i < 2 else a for i, a in enumerate(sys.argv[1:5])]
FIXTURE = os.path.join(SOURCE, "tests", "fixtures", "bn128_2e10")
failures = []


def check(cond, what):
    what = " | ".join(line for line in what.splitlines() if line.strip())
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def run(args, **kw):
    if not os.path.exists(args[0]) and os.sep in args[0]:
        return subprocess.CompletedProcess(args, 127, "", f"{args[0]} does not exist")
    env = dict(os.environ)
    env.pop("LD_LIBRARY_PATH", None)
    env.update(kw.pop("env", {}))
    return subprocess.run(args, capture_output=True, text=True, timeout=900, env=env, **kw)


def snarkjs_accepts(public, proof):
    r = run([SNARKJS, "groth16", "verify", os.path.join(FIXTURE, "verification_key.json"), public, proof])
    return r.returncode == 0 and "OK" in r.stdout


def version():
    for line in open(os.path.join(SOURCE, "CMakeLists.txt")):
        if line.startswith("project(hyprove VERSION "):
            return line.split()[2]
    return "?"


def check_layout(prefix, libdir):
    for rel in ["include/hyprove.h", "include/hyprove-rapidsnark/prover.h", f"{libdir}/libhyprove.so.{version()}",
                f"{libdir}/libhyprove.a", f"{libdir}/libhyprove-rapidsnark.a", f"{libdir}/pkgconfig/hyprove.pc",
                f"{libdir}/pkgconfig/hyprove-rapidsnark.pc", f"{libdir}/cmake/hyprove/hyprove-config.cmake",
                "bin/hyprove", "share/doc/hyprove/LICENSE"]:
        check(os.path.exists(os.path.join(prefix, rel)), f"installed {rel}")
    link = os.path.join(prefix, "bin", "hyprove-prover")
    check(os.path.islink(link) and os.readlink(link) == "hyprove", "installed bin/hyprove-prover -> hyprove")
    so = os.path.join(prefix, libdir, "libhyprove.so")
    check(os.path.realpath(so).endswith(f"libhyprove.so.{version()}"), "libhyprove.so links to the versioned file")


LINK = re.compile(r"\]\(([^)#]+)(#[^)]*)?\)")


def check_installed_docs(prefix):
    """The installed README and docs/ link only to files that are installed beside them."""
    docdir = os.path.join(prefix, "share", "doc", "hyprove")
    docs = os.path.join(docdir, "docs")
    pages = [os.path.join(docdir, "README.md")]
    if os.path.isdir(docs):
        pages += sorted(os.path.join(docs, n) for n in os.listdir(docs) if n.endswith(".md"))
    check(len(pages) > 10, f"installed README.md and docs/ ({len(pages)} pages)")
    for page in pages:
        if not os.path.exists(page):
            check(False, f"installed {os.path.relpath(page, prefix)}")
            continue
        for target, _ in LINK.findall(open(page, encoding="utf-8").read()):
            if "://" in target:
                continue
            path = os.path.normpath(os.path.join(os.path.dirname(page), target))
            check(os.path.exists(path), f"{os.path.relpath(page, docdir)} links to {target}, which is installed")


def with_pkg_config(prefix, libdir, work):
    env = {"PKG_CONFIG_PATH": os.path.join(prefix, libdir, "pkgconfig")}
    r = run(["pkg-config", "--modversion", "hyprove"], env=env)
    check(r.stdout.strip() == version(), f"pkg-config --modversion hyprove is {version()} ({r.stderr.strip()})")
    flags = run(["pkg-config", "--cflags", "--libs", "hyprove"], env=env).stdout.split()
    exe = os.path.join(work, "pc_shared")
    r = run([CC, os.path.join(SOURCE, "tests", "install", "consumer.c"), "-o", exe] + flags)
    check(r.returncode == 0, f"pkg-config: the consumer builds against libhyprove.so ({r.stderr.strip()[-300:]})")
    r = run([exe], env={"LD_LIBRARY_PATH": os.path.join(prefix, libdir)})
    check(r.returncode == 0 and "ok" in r.stdout, f"pkg-config: the shared consumer runs ({r.stdout}{r.stderr})")
    cflags = run(["pkg-config", "--cflags", "hyprove"], env=env).stdout.split()
    exe = os.path.join(work, "pc_static")
    r = run([CC, os.path.join(SOURCE, "tests", "install", "consumer.c"), "-o", exe] + cflags +
            ["-L" + os.path.join(prefix, libdir), "-Wl,-Bstatic", "-lhyprove", "-Wl,-Bdynamic", "-lpthread", "-ldl"])
    check(r.returncode == 0, f"pkg-config: the consumer builds against libhyprove.a ({r.stderr.strip()[-300:]})")
    r = run([exe])
    check(r.returncode == 0 and "ok" in r.stdout, f"pkg-config: the static consumer runs alone ({r.stdout}{r.stderr})")
    flags = run(["pkg-config", "--cflags", "--libs", "hyprove-rapidsnark"], env=env).stdout.split()
    exe = os.path.join(work, "pc_rapidsnark")
    r = run([CC, os.path.join(SOURCE, "tests", "rapidsnark_compat.c"), "-o", exe] + flags + ["-lpthread"])
    check(r.returncode == 0, f"pkg-config: rapidsnark's client builds against hyprove-rapidsnark ({r.stderr[-300:]})")
    out = os.path.join(work, "pc_rapidsnark_out")
    os.mkdir(out)
    other = os.path.join(SOURCE, "tests", "fixtures", "edge_pub", "witness.wtns")
    r = run([exe, os.path.join(FIXTURE, "circuit.zkey"), os.path.join(FIXTURE, "witness.wtns"), other, out],
            env={"LD_LIBRARY_PATH": os.path.join(prefix, libdir)})
    check(r.returncode == 0, f"pkg-config: rapidsnark's client passes its checks ({r.stdout[-400:]}{r.stderr})")
    check(snarkjs_accepts(os.path.join(out, "buffer1.public.json"), os.path.join(out, "buffer1.proof.json")),
          "pkg-config: snarkjs accepts the rapidsnark client's proof")


def with_cmake(prefix, work):
    b = os.path.join(work, "cmake-consumer")
    r = run(["cmake", "-S", os.path.join(SOURCE, "tests", "install"), "-B", b, "-DCMAKE_PREFIX_PATH=" + prefix,
             "-DCMAKE_C_COMPILER=" + CC,
             "-DRAPIDSNARK_CLIENT_SOURCE=" + os.path.join(SOURCE, "tests", "rapidsnark_compat.c")])
    check(r.returncode == 0, f"CMake: find_package(hyprove) configures ({r.stderr.strip()[-400:]})")
    r = run(["cmake", "--build", b])
    check(r.returncode == 0, f"CMake: the consumers build on the imported targets ({r.stdout[-400:]}{r.stderr[-400:]})")
    for exe in ("consumer_shared", "consumer_static"):
        r = run([os.path.join(b, exe)])
        check(r.returncode == 0 and "ok" in r.stdout, f"CMake: {exe} runs ({r.stdout}{r.stderr})")
    out = os.path.join(work, "cmake_rapidsnark_out")
    os.mkdir(out)
    other = os.path.join(SOURCE, "tests", "fixtures", "edge_pub", "witness.wtns")
    r = run([os.path.join(b, "rapidsnark_client"), os.path.join(FIXTURE, "circuit.zkey"),
             os.path.join(FIXTURE, "witness.wtns"), other, out])
    check(r.returncode == 0, f"CMake: hyprove::rapidsnark's client passes its checks ({r.stdout[-400:]}{r.stderr})")


def installed_cli(prefix, work):
    hyprove = os.path.join(prefix, "bin", "hyprove")
    r = run([hyprove, "--version"])
    check(r.returncode == 0 and r.stdout.strip() == f"hyprove {version()}",
          f"the installed CLI runs from the prefix ({r.stdout.strip()} {r.stderr.strip()})")
    prover = os.path.join(prefix, "bin", "hyprove-prover")
    proof, public = os.path.join(work, "proof.json"), os.path.join(work, "public.json")
    r = run([prover, os.path.join(FIXTURE, "circuit.zkey"), os.path.join(FIXTURE, "witness.wtns"), proof, public])
    check(r.returncode == 0, f"hyprove-prover ZKEY WTNS PROOF PUBLIC exits 0 ({r.stderr.strip()})")
    check(snarkjs_accepts(public, proof), "snarkjs accepts hyprove-prover's proof")
    r = run([prover, os.path.join(FIXTURE, "circuit.zkey")])
    check(r.returncode == 1 and "Usage" in r.stderr, "hyprove-prover with one argument exits 1 with its usage")
    r = run([prover, os.path.join(FIXTURE, "witness.wtns"), os.path.join(FIXTURE, "witness.wtns"), proof, public])
    check(r.returncode == 1 and r.stderr.strip() != "", "hyprove-prover with a bad zkey exits 1 with a message")


MARK = "<!-- install_test: run -->"


def marked_blocks(page):
    """[(line number, text)] of the ```sh blocks of page marked with MARK on the line before."""
    lines = open(os.path.join(SOURCE, page), encoding="utf-8").read().splitlines()
    blocks = []
    for i, line in enumerate(lines):
        if line.strip() == "```sh" and i > 0 and lines[i - 1].strip() == MARK:
            end = next(j for j in range(i + 1, len(lines)) if lines[j].strip() == "```")
            blocks.append((i + 1, "\n".join(lines[i + 1:end])))
    return blocks


def needs_libhyprove_so(exe):
    r = run(["readelf", "-d", exe])
    return r.returncode != 0 or "libhyprove.so" in r.stdout


def run_documented(page, work):
    """page's marked link lines run as written, for a prefix of their own."""
    blocks = marked_blocks(page)
    check(len(blocks) > 0, f"{page} marks its link lines for this test")
    for first, text in blocks:
        where = f"{page}:{first}"
        folder = os.path.join(work, "documented-" + re.sub(r"\W", "-", where))
        prefix = os.path.join(folder, "prefix")
        os.makedirs(folder)
        script, n = re.subn(r"^PREFIX=\S*", "PREFIX=" + shlex.quote(prefix), text, count=1, flags=re.M)
        check(n == 1, f"{where}: the block sets PREFIX")
        script = re.sub(r"^cc ", shlex.quote(CC) + " ", script.replace("build/release", shlex.quote(BUILD)),
                        flags=re.M)
        if not re.search(r"^cmake --install ", script, re.M):  # the block uses a prefix installed before it
            run(["cmake", "--install", BUILD, "--prefix", prefix])
        shutil.copy(os.path.join(SOURCE, "tests", "install", "consumer.c"), os.path.join(folder, "app.c"))
        r = run(["bash", "-euo", "pipefail", "-c", script], cwd=folder)
        check(r.returncode == 0, f"{where}: the block runs as written (exit {r.returncode}: "
                                 f"{(r.stdout + r.stderr).strip()[-400:]})")
        programs = sorted(f for f in os.listdir(folder) if re.fullmatch(r"app(-[a-z]+)?", f))
        check(len(programs) > 0, f"{where}: the block builds a program ({programs})")
        for name in programs:
            r = run([os.path.join(folder, name)])
            if name == "app-env":
                check(r.returncode != 0, f"{where}: {name}, linked without an rpath, does not find the library "
                                         f"without LD_LIBRARY_PATH (exit {r.returncode})")
                continue
            check(r.returncode == 0 and "ok" in r.stdout,
                  f"{where}: {name} runs with no LD_LIBRARY_PATH ({r.stdout.strip()} {r.stderr.strip()[-300:]})")
            if "static" in name:
                check(not needs_libhyprove_so(os.path.join(folder, name)), f"{where}: {name} needs no libhyprove.so")


def main():
    with tempfile.TemporaryDirectory() as work:
        prefix = os.path.join(work, "prefix")
        r = run(["cmake", "--install", BUILD, "--prefix", prefix])
        check(r.returncode == 0, f"cmake --install into a temporary prefix ({r.stderr.strip()[-300:]})")
        libdir = "lib" if os.path.isdir(os.path.join(prefix, "lib", "pkgconfig")) else \
            os.path.relpath(os.path.dirname(os.path.dirname(
                next(os.path.join(d, f) for d, _, fs in os.walk(prefix) for f in fs if f == "hyprove.pc"))), prefix)
        check_layout(prefix, libdir)
        check_installed_docs(prefix)
        with_pkg_config(prefix, libdir, work)
        with_cmake(prefix, work)
        installed_cli(prefix, work)
        for page in ("README.md", os.path.join("docs", "install.md")):
            run_documented(page, work)
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
