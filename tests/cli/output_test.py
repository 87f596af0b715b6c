#!/usr/bin/env python3
"""Output-file tests for hyprove (host/cli/cli_output.c): where an output goes and what is left.

Usage: output_test.py PATH_TO_HYPROVE. Runs `hyprove groth16 prove` on the 2^10 fixture
(tests/fixtures/bn128_2e10) and `hyprove msm --out` in a temporary directory: new and replaced
files and their modes under two umasks, symlinks (kept as links, the target replaced), "-"
and /dev/stdout, a FIFO, /dev/full, a folder in the way, a read-only folder, the same output
twice, an output that is the input, SIGINT/SIGTERM while a temporary exists, SIGTERM between
the renames of a proof and its public file (the pair stays whole), and hyprove-prover. Every case checks that no PATH.tmp.XXXXXX is left behind.
"""
import json
import os
import shutil
import signal
import stat
import subprocess
import sys
import tempfile
import threading
import time

HYPROVE = os.path.abspath(sys.argv[1])
FIXTURE = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "fixtures", "bn128_2e10")
ZKEY = os.path.join(FIXTURE, "circuit.zkey")
WTNS = os.path.join(FIXTURE, "witness.wtns")
FAILED = []
PASSED = [0]
NOBODY = 65534


def run(args, umask=None, timeout=300, user=None, env=None):
    """Runs args (hyprove's arguments, or a full command when args[0] is a path); umask and
    user (a uid) are set in the child, env's variables added to its environment."""
    cmd = args if os.path.isabs(args[0]) else [HYPROVE] + list(args)

    def preexec():
        if umask is not None:
            os.umask(umask)
        if user is not None:
            os.setgroups([])
            os.setgid(user)
            os.setuid(user)

    t0 = time.monotonic()
    res = subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, preexec_fn=preexec,
                         env=dict(os.environ, **(env or {})))
    res.elapsed = time.monotonic() - t0
    return res


def describe(res):
    if res is None:
        return ""
    return "\n  command: %s\n  exit: %s\n  stdout: %r\n  stderr: %r" % (
        " ".join(res.args), res.returncode, res.stdout, res.stderr)


def check(name, cond, res=None, detail=""):
    if cond:
        PASSED[0] += 1
    else:
        FAILED.append(name)
        print("FAIL: %s %s%s" % (name, detail, describe(res)))


def prove(proof, public, *extra, **kw):
    return run(["groth16", "prove", ZKEY, WTNS, proof, public, "--devices", "cpu", *extra], **kw)


def msm(out, **kw):
    return run(["msm", "--curve", "bn254", "--log-n", "4", "--seed", "1", "--device", "cpu", "--out", out], **kw)


def leftovers(*dirs):
    return [os.path.join(d, f) for d in dirs for f in os.listdir(d) if ".tmp." in f]


def is_proof(obj):
    return (isinstance(obj, dict) and {"pi_a", "pi_b", "pi_c", "protocol", "curve"} <= set(obj)
            and obj["protocol"] == "groth16" and obj["curve"] == "bn128" and len(obj["pi_b"]) == 3)


def load(path):
    try:
        with open(path) as fh:
            return json.load(fh)
    except (OSError, ValueError):
        return None


def mode_of(path):
    return stat.S_IMODE(os.stat(path).st_mode)


def expect_error(name, res, code, *needles):
    errors = [line for line in res.stderr.splitlines() if line.startswith("hyprove: error: ")]
    check(name + " (exit %d)" % code, res.returncode == code, res)
    check(name + " (one error line)", len(errors) == 1, res)
    for needle in needles:
        check(name + " (names %r)" % needle, needle in res.stderr, res)


def new_dir(tmp, name):
    path = os.path.join(tmp, name)
    os.mkdir(path)
    return path


# ---- the cases ----

def test_regular(tmp):
    d = new_dir(tmp, "regular")
    for umask, want in ((0o022, 0o644), (0o077, 0o600)):
        proof, public = os.path.join(d, "p%o.json" % umask), os.path.join(d, "u%o.json" % umask)
        res = prove(proof, public, umask=umask)
        check("new files under umask %03o" % umask, res.returncode == 0 and is_proof(load(proof))
              and isinstance(load(public), list), res)
        check("new proof mode %03o under umask %03o" % (want, umask), mode_of(proof) == want, res,
              "mode %o" % mode_of(proof))
        check("new public mode %03o under umask %03o" % (want, umask), mode_of(public) == want, res)
        check("stdout empty without --report", res.stdout == "", res)
        out = os.path.join(d, "m%o.json" % umask)
        res = msm(out, umask=umask)
        check("msm --out new file under umask %03o" % umask, res.returncode == 0 and len(load(out)) == 3
              and mode_of(out) == want, res)
    # an existing file: replaced by a new inode with the new content and the umask's mode
    proof, public = os.path.join(d, "old_p.json"), os.path.join(d, "old_u.json")
    for path in (proof, public):
        with open(path, "w") as fh:
            fh.write("old content\n")
        os.chmod(path, 0o600)
    inode = os.stat(proof).st_ino
    res = prove(proof, public, umask=0o022)
    check("existing file replaced", res.returncode == 0 and is_proof(load(proof)), res)
    check("existing file: a new inode", os.stat(proof).st_ino != inode, res)
    check("existing file: mode 0666 & ~umask", mode_of(proof) == 0o644, res, "mode %o" % mode_of(proof))
    check("regular: no temporary left", not leftovers(d), res, leftovers(d))


def test_symlinks(tmp):
    d, other = new_dir(tmp, "links"), new_dir(tmp, "link_targets")
    target, public = os.path.join(other, "target.json"), os.path.join(d, "public.json")
    with open(target, "w") as fh:
        fh.write("old\n")
    link = os.path.join(d, "link.json")
    os.symlink(os.path.relpath(target, d), link)
    res = prove(link, public, umask=0o022)
    check("symlink: exit 0", res.returncode == 0, res)
    check("symlink: still a symlink", os.path.islink(link) and os.readlink(link) == os.path.relpath(target, d), res)
    check("symlink: the target holds the proof", is_proof(load(target)), res)
    check("symlink: target mode", mode_of(target) == 0o644, res)
    # a chain: link2 -> link -> target
    with open(target, "w") as fh:
        fh.write("old\n")
    link2 = os.path.join(d, "link2.json")
    os.symlink("link.json", link2)
    res = prove(link2, public)
    check("symlink chain: both links stay", res.returncode == 0 and os.path.islink(link2) and os.path.islink(link),
          res)
    check("symlink chain: the final target holds the proof", is_proof(load(target)), res)
    # a dangling link into an existing folder: the file it names is made
    made = os.path.join(other, "made.json")
    dangling = os.path.join(d, "dangling.json")
    os.symlink(made, dangling)
    res = msm(dangling, umask=0o022)
    check("dangling symlink: target made", res.returncode == 0 and os.path.isfile(made) and len(load(made)) == 3, res)
    check("dangling symlink: still a symlink", os.path.islink(dangling) and os.readlink(dangling) == made, res)
    check("dangling symlink: mode", mode_of(made) == 0o644, res)
    # a dangling link into a folder that does not exist: an error naming the path
    nowhere = os.path.join(d, "nowhere.json")
    os.symlink(os.path.join(other, "no", "such", "x.json"), nowhere)
    expect_error("dangling symlink into no folder", msm(nowhere), 1, nowhere)
    check("dangling symlink into no folder: link kept", os.path.islink(nowhere))
    # a loop
    loop = os.path.join(d, "loop.json")
    os.symlink("loop.json", loop)
    expect_error("symlink loop", msm(loop), 1, loop)
    check("symlinks: no temporary left", not leftovers(d, other), None, leftovers(d, other))


def test_stdout(tmp):
    d = new_dir(tmp, "stdout")
    public = os.path.join(d, "public.json")
    file_proof = os.path.join(d, "file_proof.json")
    res = prove(file_proof, public)
    ref = load(file_proof)
    for name in ("-", "/dev/stdout"):
        res = prove(name, public, "--report")
        try:
            got = json.loads(res.stdout)
        except ValueError:
            got = None
        check("%s: stdout is exactly the proof" % name, res.returncode == 0 and is_proof(got), res)
        check("%s: the same shape as a file's proof" % name,
              got is not None and ref is not None and set(got) == set(ref)
              and all(got[k] == ref[k] for k in ("protocol", "curve")), res)
        check("%s: the report went to stderr" % name, "total" in res.stderr, res)
        check("%s: public written" % name, isinstance(load(public), list), res)
    check("/dev/stdout is still a link", os.path.islink("/dev/stdout"), None, "(replaced by a file)")
    res = run(["msm", "--curve", "bn254", "--log-n", "4", "--seed", "1", "--device", "cpu", "--out", "-"])
    ref = msm(os.path.join(d, "m.json"))
    check("msm --out -: stdout is the point", res.returncode == 0 and json.loads(res.stdout or "null")
          == load(os.path.join(d, "m.json")), res)
    check("stdout: no temporary left", not leftovers(d), res, leftovers(d))


def test_fifo(tmp):
    d = new_dir(tmp, "fifo")
    fifo, public = os.path.join(d, "proof.fifo"), os.path.join(d, "public.json")
    os.mkfifo(fifo)
    got = []

    def reader():
        with open(fifo) as fh:
            got.append(fh.read())

    t = threading.Thread(target=reader, daemon=True)
    t.start()
    res = prove(fifo, public)
    t.join(60)
    text = got[0] if got else ""
    check("fifo: exit 0", res.returncode == 0, res)
    check("fifo: the reader got the whole proof", is_proof(json.loads(text or "null")), res, repr(text))
    check("fifo: still a FIFO", stat.S_ISFIFO(os.lstat(fifo).st_mode), res)
    check("fifo: no temporary left", not leftovers(d), res, leftovers(d))


def test_dev_full(tmp):
    d = new_dir(tmp, "full")
    public = os.path.join(d, "public.json")
    res = prove("/dev/full", public)
    expect_error("/dev/full", res, 1, "/dev/full", "No space left on device")
    check("/dev/full: the other output not made", not os.path.exists(public), res)
    # an existing other output keeps its content
    with open(public, "w") as fh:
        fh.write("old\n")
    res = prove("/dev/full", public)
    check("/dev/full: the other output untouched", res.returncode == 1 and open(public).read() == "old\n", res)
    expect_error("msm --out /dev/full", msm("/dev/full"), 1, "/dev/full", "No space left on device")
    check("/dev/full: no temporary left", not leftovers(d), res, leftovers(d))


def test_folder_in_the_way(tmp):
    d = new_dir(tmp, "folder")
    folder, public = new_dir(d, "proof.json"), os.path.join(d, "public.json")
    res = prove(folder, public)
    expect_error("folder in the way", res, 1, folder, "Is a directory")
    check("folder in the way: nothing made", os.listdir(d) == ["proof.json"] and os.listdir(folder) == [], res,
          os.listdir(d))
    expect_error("msm --out folder", msm(folder), 1, folder)
    check("folder: no temporary left", not leftovers(d, folder), res)


def nobody_kit(tmp):
    """For root, who ignores permissions: hyprove, its library and the fixture copied into a
    folder that nobody can read (the build tree may sit under a private folder, as a fresh
    clone in mktemp -d does), and how to run them as nobody; None when nobody cannot run it."""
    box = new_dir(tmp, "nobody")
    for d in (tmp, box):
        os.chmod(d, 0o755)
    build = os.path.dirname(HYPROVE)
    for name in ["hyprove"] + [f for f in os.listdir(build) if f.startswith("libhyprove.so")]:
        shutil.copy(os.path.join(build, name), os.path.join(box, name))
    for src in (ZKEY, WTNS):
        shutil.copy(src, os.path.join(box, os.path.basename(src)))
        os.chmod(os.path.join(box, os.path.basename(src)), 0o644)
    kit = {"hyprove": os.path.join(box, "hyprove"), "env": {"LD_LIBRARY_PATH": box},
           "zkey": os.path.join(box, "circuit.zkey"), "wtns": os.path.join(box, "witness.wtns")}
    probe = run([kit["hyprove"], "--version"], user=NOBODY, env=kit["env"])
    return kit if probe.returncode == 0 else None


def test_read_only_folder(tmp):
    d = new_dir(tmp, "readonly")
    ro = new_dir(d, "ro")
    os.chmod(ro, 0o555)
    proof, public = os.path.join(ro, "proof.json"), os.path.join(ro, "public.json")
    if os.geteuid() != 0:
        res, res_msm = prove(proof, public), msm(proof)
    else:
        kit = nobody_kit(tmp)
        if kit is None:
            print("note: running as root and nobody cannot run hyprove here: read-only folder case skipped")
            return
        os.chmod(d, 0o755)
        res = run([kit["hyprove"], "groth16", "prove", kit["zkey"], kit["wtns"], proof, public, "--devices", "cpu"],
                  user=NOBODY, env=kit["env"])
        res_msm = run([kit["hyprove"], "msm", "--curve", "bn254", "--log-n", "4", "--seed", "1", "--device", "cpu",
                       "--out", proof], user=NOBODY, env=kit["env"])
    expect_error("read-only folder", res, 1, proof, "Permission denied")
    check("read-only folder: nothing made", os.listdir(ro) == [], res, os.listdir(ro))
    expect_error("msm into a read-only folder", res_msm, 1, proof, "Permission denied")
    os.chmod(ro, 0o755)


def test_same_path_twice(tmp):
    d = new_dir(tmp, "twice")
    p = os.path.join(d, "p.json")
    alias = os.path.join(d, "alias.json")
    os.symlink("p.json", alias)
    # a missing wtns: the check must come first, before any file is read
    missing = os.path.join(d, "missing.wtns")
    cases = [("PROOF == PUBLIC", p, p), ("a dangling alias", p, alias), ("- twice", "-", "-"),
             ("- and /dev/stdout", "-", "/dev/stdout")]
    for name, a, b in cases:
        res = run(["groth16", "prove", ZKEY, missing, a, b, "--devices", "cpu"])
        expect_error("same output twice: %s" % name, res, 2, "same file")
        check("same output twice: %s: nothing written" % name, os.listdir(d) == ["alias.json"] and res.stdout == "",
              res, os.listdir(d))
        check("same output twice: %s: before proving" % name, "missing.wtns" not in res.stderr, res)
    with open(p, "w") as fh:
        fh.write("old\n")
    res = prove(alias, p)
    expect_error("same output twice: an existing file and its alias", res, 2, "same file")
    check("same output twice: the file untouched", open(p).read() == "old\n", res)


def test_output_is_input(tmp):
    d = new_dir(tmp, "input")
    zkey, wtns = os.path.join(d, "circuit.zkey"), os.path.join(d, "witness.wtns")
    for src_path, dst_path in ((ZKEY, zkey), (WTNS, wtns)):
        with open(src_path, "rb") as src, open(dst_path, "wb") as dst:
            dst.write(src.read())
    before = open(zkey, "rb").read()
    alias = os.path.join(d, "alias.zkey")
    os.symlink("circuit.zkey", alias)
    public = os.path.join(d, "public.json")
    for name, out in (("the zkey", zkey), ("an alias of the zkey", alias)):
        res = run(["groth16", "prove", zkey, wtns, out, public, "--devices", "cpu"])
        expect_error("output is %s" % name, res, 2, out, zkey)
        check("output is %s: zkey unchanged" % name, open(zkey, "rb").read() == before, res)
        check("output is %s: nothing written" % name,
              sorted(os.listdir(d)) == ["alias.zkey", "circuit.zkey", "witness.wtns"], res)
    wtns_before = open(wtns, "rb").read()
    res = run(["groth16", "prove", zkey, wtns, public, wtns, "--devices", "cpu"])
    expect_error("output is the wtns", res, 2, wtns)
    check("output is the wtns: wtns unchanged", open(wtns, "rb").read() == wtns_before, res)


def signal_and_reap(p, cmd, sig):
    """Sends sig to the running process p (started as cmd) and waits for it (killed after 60 s)."""
    p.send_signal(sig)
    try:
        out, err = p.communicate(timeout=60)
    except subprocess.TimeoutExpired:
        p.kill()
        out, err = p.communicate()
    return subprocess.CompletedProcess(cmd, p.returncode, out, err)


def test_signals(tmp):
    """PROOF is a regular file, PUBLIC a FIFO nobody opens. The proof's temporary is made first
    (write_outputs opens PROOF, then PUBLIC), and opening the FIFO for writing blocks until a
    reader comes: the run waits with the temporary in place, deterministically. The signal
    must remove it, and the process must die from that signal."""
    for sig in (signal.SIGTERM, signal.SIGINT):
        d = new_dir(tmp, "signal_%d" % sig)
        proof, fifo = os.path.join(d, "proof.json"), os.path.join(d, "public.fifo")
        os.mkfifo(fifo)
        cmd = [HYPROVE, "groth16", "prove", ZKEY, WTNS, proof, fifo, "--devices", "cpu"]
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        deadline = time.monotonic() + 120
        while not leftovers(d) and p.poll() is None and time.monotonic() < deadline:
            time.sleep(0.02)
        had_temporary = bool(leftovers(d))
        res = signal_and_reap(p, cmd, sig)
        name = signal.Signals(sig).name
        check("%s: the temporary existed while blocked on the FIFO" % name, had_temporary, res)
        check("%s: died from the signal" % name, p.returncode == -sig, res)
        check("%s: no temporary left" % name, not leftovers(d), res, leftovers(d))
        check("%s: no proof made" % name, not os.path.exists(proof), res)
        check("%s: the FIFO is still a FIFO" % name, stat.S_ISFIFO(os.lstat(fifo).st_mode), res)


def test_pair_and_a_signal_between_its_renames(tmp):
    """An old proof.json and public.json pair replaced, HPR_TEST_COMMIT_PAUSE_MS holding the
    run between the two renames: SIGTERM sent once the first file is replaced takes effect only
    after the second (the signals are blocked across the group's renames), so the pair is the
    new one, whole, and the process still dies from the signal."""
    d = new_dir(tmp, "pair")
    proof, public = os.path.join(d, "proof.json"), os.path.join(d, "public.json")
    for path in (proof, public):
        with open(path, "w") as fh:
            fh.write("old\n")
    before = {path: os.stat(path).st_ino for path in (proof, public)}
    cmd = [HYPROVE, "groth16", "prove", ZKEY, WTNS, proof, public, "--devices", "cpu"]
    p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                         env=dict(os.environ, HPR_TEST_COMMIT_PAUSE_MS="3000"))
    deadline = time.monotonic() + 120
    def replaced():
        return [path for path in (proof, public) if os.stat(path).st_ino != before[path]]
    while not replaced() and p.poll() is None and time.monotonic() < deadline:
        time.sleep(0.01)
    first = replaced()
    res = signal_and_reap(p, cmd, signal.SIGTERM)
    check("pair: the signal came between the renames (one file replaced)", len(first) == 1, res, first)
    check("pair: died from SIGTERM once the pair was complete", p.returncode == -signal.SIGTERM, res)
    check("pair: both files replaced", len(replaced()) == 2, res, replaced())
    contents = [open(path).read() for path in (proof, public)]
    check("pair: both are the new JSON", all(c.lstrip().startswith(("{", "[")) for c in contents), res, contents)
    check("pair: no temporary left", not leftovers(d), res, leftovers(d))


def test_rapidsnark_prover(tmp):
    d = new_dir(tmp, "prover")
    prover = os.path.join(d, "hyprove-prover")
    os.symlink(HYPROVE, prover)
    out = new_dir(d, "out")
    p, u = os.path.join(out, "proof.json"), os.path.join(out, "public.json")
    res = run([prover, ZKEY, WTNS, p, p])
    check("hyprove-prover same path twice: exit 1", res.returncode == 1, res)
    check("hyprove-prover same path twice: names it", p in res.stderr and "same file" in res.stderr, res)
    check("hyprove-prover same path twice: nothing written", os.listdir(out) == [], res, os.listdir(out))
    res = run([prover, ZKEY, WTNS, p, u])
    check("hyprove-prover: exit 0", res.returncode == 0 and is_proof(load(p)) and isinstance(load(u), list), res)
    res = run([prover, ZKEY, WTNS, "/dev/full", u])
    check("hyprove-prover /dev/full: exit 1", res.returncode == 1 and "No space left on device" in res.stderr, res)
    check("hyprove-prover: no temporary left", not leftovers(out), res, leftovers(out))


def main():
    if not os.path.isfile(ZKEY):
        print("fixture missing: %s" % ZKEY)
        return 1
    with tempfile.TemporaryDirectory() as tmp:
        for test in (test_regular, test_symlinks, test_stdout, test_fifo, test_dev_full, test_folder_in_the_way,
                     test_read_only_folder, test_same_path_twice, test_output_is_input, test_signals,
                     test_pair_and_a_signal_between_its_renames, test_rapidsnark_prover):
            test(tmp)
        os.chmod(tmp, 0o700)
    print("%d passed, %d failed" % (PASSED[0], len(FAILED)))
    return 1 if FAILED else 0


if __name__ == "__main__":
    sys.exit(main())
