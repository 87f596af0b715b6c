#!/usr/bin/env python3
"""`hyprove serve` on the loopback address, as a client would use it.

Starts the server with two zkeys (BN254 bn128_2e10 and BLS12-381 bls12381_2e12, their sections
precomputed twice: --precompute 2; --precompute 17 is refused) on 127.0.0.1 port 0 and a 1 MB
request limit, then: GET /status lists both; POST /prove for
each zkey answers a proof that snarkjs accepts, with public.json equal to snarkjs's; a proof
without ?zkey= (two loaded), an unknown zkey, a garbage body, a witness of another length, a
body over the limit, a wrong method and an unknown path get their 4xx and a JSON error; four
concurrent requests all succeed (they queue, and /status, answering meanwhile, counts them) and their proofs verify;
requests refused from their headers (PUT /prove, POST /status, POST to an unknown path) get their
answer although they carry a body (it is read and dropped); a witness that does not satisfy the
circuit is 422 (--verify); malformed framing (two Content-Lengths, Content-Length with
Transfer-Encoding, HTTP/1.1 without Host, %00 in the path) is 400; SIGTERM stops the server with exit status 0. Exposure: an address
other than loopback is refused without --token-file or --insecure-no-auth (nothing is bound),
both together and a bad token file are refused, and a server with --token-file answers 401
(with WWW-Authenticate: Bearer) without the token or with a wrong one, and 200 with it.
SIGTERM with six proofs queued answers all six (--drain-timeout 120) or each with 200 or 503
(--drain-timeout 0), never an empty reply; requests whose clients closed their sockets right
after sending are dropped, at least one of five (the first may be proved before the close is
seen). /status counts per zkey, GET /metrics gives the counters in Prometheus' text format, and
--access-log writes one JSON line per request; --max-uploads refuses (503) an upload past the
budget of bodies held at once. Connections: 100 idle sockets leave the server answering;
idle, byte-a-time and slow-body connections are closed by --header-timeout and
--min-upload-rate; --max-per-client and --max-connections answer 503; a running proof whose
client leaves is stopped (HPR_TEST_SERVE_HOLD_MS holds it until then). Without libmicrohttpd
the command must say so.

usage: serve_test.py HYPROVE SNARKJS FIXTURES_DIR
"""
import http.client
import json
import os
import resource
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import urllib.error
import urllib.request

HYPROVE, SNARKJS, FIXTURES = sys.argv[1:4]
failures = []


def check(cond, what):
    print(("ok   " if cond else "FAIL ") + what, flush=True)
    if not cond:
        failures.append(what)


def request(base, path, data=None, method=None, headers=None, want_headers=False):
    req = urllib.request.Request(base + path, data=data, method=method, headers=headers or {})
    try:
        with urllib.request.urlopen(req, timeout=600) as r:
            got = (r.status, r.read().decode())
            return got + (dict(r.headers),) if want_headers else got
    except urllib.error.HTTPError as e:
        got = (e.code, e.read().decode())
        return got + (dict(e.headers),) if want_headers else got
    except (urllib.error.URLError, ConnectionError) as e:
        return (0, str(e), {}) if want_headers else (0, str(e))


def raw_status(base, text):
    """The status code of the answer to a request written byte for byte (0: none)."""
    host, port = base.split("//")[1].split(":")
    try:
        with socket.create_connection((host, int(port)), timeout=60) as sock:
            sock.sendall(text.encode())
            answer = b""
            while b"\r\n" not in answer:
                chunk = sock.recv(4096)
                if not chunk:
                    break
                answer += chunk
        return int(answer.split(b" ")[1]) if answer.startswith(b"HTTP/") else 0
    except (OSError, ValueError, IndexError):
        return 0


def unsatisfying(witness):
    """The witness with its last value changed (to 2, or 3 if it was 2): still well-formed, no
    longer satisfying the circuit's constraints."""
    w = bytearray(witness)
    new = 3 if w[-32] == 2 and not any(w[-31:]) else 2
    w[-32:] = new.to_bytes(32, "little")
    return bytes(w)


def expect_refused(args, needle, what):
    r = subprocess.run([HYPROVE, "serve"] + args, capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and needle in r.stderr, f"{what} ({r.stderr.strip()[:300]})")


def token_server(bn, out):
    """A server with --token-file on loopback: 401 without the token or with another, 200 with it."""
    token_file = os.path.join(out, "token")
    with open(token_file, "w") as f:
        f.write("s3cret-Token_42\n")
    proc, base = start_server(["--zkey", "bn=" + os.path.join(bn, "circuit.zkey"), "--token-file", token_file])
    try:
        check(base is not None, "a server with --token-file starts")
        if base is None:
            return
        code, body, hdr = request(base, "/status", want_headers=True)
        check(code == 401 and "Bearer" in error_of(body) and hdr.get("WWW-Authenticate") == "Bearer",
              f"--token-file: no token is 401 with WWW-Authenticate: Bearer ({code} {error_of(body)})")
        code, body = request(base, "/status", headers={"Authorization": "Bearer s3cret-Token_43"})
        check(code == 401, f"--token-file: a wrong token is 401 ({code})")
        code, body = request(base, "/prove?zkey=bn", b"x" * 300000, headers={"Authorization": "Basic abc"})
        check(code == 401 and error_of(body) != "", f"--token-file: a body without the token is 401, answered ({code})")
        code, body = request(base, "/status", headers={"Authorization": "Bearer s3cret-Token_42"})
        check(code == 200 and json.loads(body).get("zkeys"), f"--token-file: the token is 200 ({code})")
    finally:
        stop(proc)


def start_server(args, env=None):
    """A server on 127.0.0.1 port 0: (process, base URL or None)."""
    proc = subprocess.Popen([HYPROVE, "serve", "--listen", "127.0.0.1:0", "--devices", "cpu", "--precompute", "1"] + args,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, env=env)
    line = proc.stdout.readline()
    return proc, (line.split()[3] if "http://" in line else None)


def serving(args, what, env=None):
    """start_server, or (None, None) after a failed check named what (the process killed)."""
    proc, base = start_server(args, env)
    if base is None:
        check(False, what)
        proc.kill()
        return None, None
    return proc, base


def start_proofs(base, path, body, n):
    """n concurrent POSTs of body to path, each on its thread: (the answers, filled in as they
    come, and the threads)."""
    results = [None] * n

    def worker(i):
        results[i] = request(base, path, body)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    return results, threads


def status_of(base):
    code, body = request(base, "/status")
    return json.loads(body) if code == 200 else {}


def wait_until(base, accepted, before):
    """Polls /status until `accepted` proofs were taken since `before` (served, failed,
    abandoned, running or waiting: uploads count once they queue), at most 300 s."""
    for _ in range(30000):
        st = status_of(base)
        q = st.get("queue", {})
        taken = st.get("served", 0) + st.get("failed", 0) + st.get("abandoned", 0) + q.get("running", 0) + \
            q.get("waiting", 0) - before
        if taken >= accepted:
            return True
        threading.Event().wait(0.01)
    return False


def stop(proc):
    proc.send_signal(signal.SIGTERM)
    try:
        out, err = proc.communicate(timeout=300)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
    return proc.returncode, out, err


def drain_and_abandon(bls, wt_bls):
    """SIGTERM with proofs queued: with --drain-timeout 120 all are answered 200; with 0, each
    client gets 200 or 503 (none an empty reply). Requests whose clients closed their sockets
    right after sending are dropped, not proved."""
    for timeout, allowed in (("120", {200}), ("0", {200, 503})):
        proc, base = start_server(["--zkey", "bls=" + os.path.join(bls, "circuit.zkey"), "--drain-timeout", timeout])
        check(base is not None, f"a server with --drain-timeout {timeout} starts")
        if base is None:
            proc.kill()
            continue
        results, threads = start_proofs(base, "/prove", wt_bls, 6)
        check(wait_until(base, 6, 0), f"--drain-timeout {timeout}: the six requests are taken")
        rc, out, err = stop(proc)
        for t in threads:
            t.join()
        codes = [c for c, _ in results]
        check(all(c in allowed for c in codes) and all(c == 200 or "shutting down" in error_of(b) for c, b in results),
              f"SIGTERM, --drain-timeout {timeout}: every queued client is answered, {sorted(allowed)} ({codes})")
        check(rc == 0 and f"{codes.count(200)} proofs served" in out,
              f"--drain-timeout {timeout}: exit 0 and the served count said ({rc} {out.strip()[-160:]})")
    proc, base = serving(["--zkey", "bls=" + os.path.join(bls, "circuit.zkey")], "a server for the abandoned requests starts")
    if base is None:
        return
    host, port = base.split("//")[1].split(":")
    head = f"POST /prove HTTP/1.1\r\nHost: h\r\nContent-Length: {len(wt_bls)}\r\n\r\n".encode()
    for _ in range(5):  # sent whole, then the socket closed at once
        with socket.create_connection((host, int(port)), timeout=60) as sock:
            sock.sendall(head + wt_bls)
    for _ in range(30000):  # until the queue is empty and no request is open
        st = status_of(base)
        if st.get("queue") == {"running": 0, "waiting": 0} and st.get("served", 0) + st.get("abandoned", 0) >= 5:
            break
        threading.Event().wait(0.01)
    st = status_of(base)
    check(st.get("abandoned", 0) >= 1 and st.get("served", 0) + st.get("abandoned", 0) == 5,
          f"five requests whose clients left: at least one dropped, not proved (served {st.get('served')}, "
          f"abandoned {st.get('abandoned')})")
    stop(proc)


def uploads_budget(bls, wt_bls):
    """--max-uploads: while one upload of a BLS12-381 witness (118,796 announced bytes) is held,
    a second is refused 503 (Retry-After) before its upload (the two are over 200,000); once
    the first connection closes, a proof goes through."""
    proc, base = serving(["--zkey", "bls=" + os.path.join(bls, "circuit.zkey"), "--max-request", "200000",
                          "--max-uploads", "200000"], "a server with --max-uploads starts")
    if base is None:
        return
    host, port = base.split("//")[1].split(":")
    try:
        holder = socket.create_connection((host, int(port)), timeout=60)
        holder.sendall(f"POST /prove HTTP/1.1\r\nHost: h\r\nContent-Length: {len(wt_bls)}\r\n\r\n".encode() + b"\0" * 1000)
        held = 0
        for _ in range(30000):
            held = status_of(base).get("uploads", {}).get("held", 0)
            if held >= len(wt_bls):
                break
            threading.Event().wait(0.01)
        check(held == len(wt_bls), f"--max-uploads: /status shows the held upload's reservation ({held})")
        code, body = oversized_request(base, "/prove", len(wt_bls))
        check(code == 503 and "uploads" in error_of(body), f"--max-uploads: a second upload past the budget is 503 "
                                                          f"before it is sent ({code} {error_of(body)})")
        holder.close()
        for _ in range(30000):
            if status_of(base).get("uploads", {}).get("held", 1) == 0:
                break
            threading.Event().wait(0.01)
        code, body = request(base, "/prove", wt_bls)
        check(code == 200, f"--max-uploads: with the first connection gone, a proof goes through ({code} {error_of(body)})")
    finally:
        stop(proc)


def idle_sockets(host, port, n, source="127.0.0.1"):
    return [socket.create_connection((host, port), timeout=30, source_address=(source, 0)) for _ in range(n)]


def closed_by_server(sock):
    """Whether the server closes sock (an end of file or a reset within its 30 s timeout)."""
    try:
        while sock.recv(4096):
            pass
        return True
    except ConnectionResetError:
        return True
    except OSError:
        return False


def sends_until_closed(host, port, text):
    """Sends text a byte every 0.3 s (about 30 s in all): whether the server closes the
    connection before it is all sent."""
    with socket.create_connection((host, port), timeout=30) as sock:
        try:
            for byte in text:
                sock.sendall(bytes([byte]))
                threading.Event().wait(0.3)
        except OSError:
            return True
        return closed_by_server(sock)


def status_from(base, source):
    """GET /status from the loopback address source: (code, error)."""
    host, port = base.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=30, source_address=(source, 0))
    try:
        conn.request("GET", "/status")
        r = conn.getresponse()
        return r.status, error_of(r.read().decode()), r.getheader("Retry-After")
    except (OSError, http.client.HTTPException) as e:
        return 0, str(e), None
    finally:
        conn.close()


def connections(bn, wt_bn):
    """Event-driven connections: 100 idle sockets (more than the 64 that locked the server of a
    thread per connection) leave /status and a proof answering; the idle ones, and one sending
    a byte of its headers every 0.3 s, are closed after --header-timeout 2; a body slower
    than --min-upload-rate is closed. --max-per-client 4 answers a fifth connection from one
    address 503 (another address is served) and --max-connections 8 a ninth in all."""
    proc, base = serving(["--zkey", "bn=" + os.path.join(bn, "circuit.zkey"), "--header-timeout", "2",
                          "--min-upload-rate", "10000"], "a server with --header-timeout 2 starts")
    if base is None:
        return
    host, port = base.split("//")[1].split(":")
    try:
        idle = idle_sockets(host, int(port), 100)
        code, err, _ = status_from(base, "127.0.0.1")
        check(code == 200, f"100 idle connections: GET /status answers ({code} {err})")
        code, body = request(base, "/prove", wt_bn)
        check(code == 200, f"100 idle connections: a proof answers ({code} {error_of(body)})")
        body = socket.create_connection((host, int(port)), timeout=30)
        body.sendall(f"POST /prove HTTP/1.1\r\nHost: h\r\nContent-Length: {len(wt_bn)}\r\n\r\n".encode() + wt_bn[:100])
        check(sends_until_closed(host, int(port), b"GET /status HTTP/1.1\r\nHost: h\r\n" * 3),
              "headers sent a byte every 0.3 s are closed after --header-timeout 2 (in all)")
        check(all(closed_by_server(s) for s in idle[:5]), "idle connections are closed after --header-timeout")
        try:
            unanswered = body.recv(4096) == b""
        except ConnectionResetError:
            unanswered = True
        check(unanswered, "a body slower than --min-upload-rate is closed (its 29 kB at 10 kB/s after 2 s: 5 s)")
        for s in idle + [body]:
            s.close()
    finally:
        stop(proc)
    proc, base = serving(["--zkey", "bn=" + os.path.join(bn, "circuit.zkey"), "--max-connections", "8",
                          "--max-per-client", "4"], "a server with --max-connections 8 --max-per-client 4 starts")
    if base is None:
        return
    try:
        first = idle_sockets(host, int(base.rsplit(":", 1)[1]), 4, "127.0.0.1")
        code, err, retry = status_from(base, "127.0.0.1")
        check(code == 503 and "--max-per-client" in err and retry,
              f"--max-per-client 4: a fifth connection from one address is 503 with Retry-After ({code} {err})")
        code, err, _ = status_from(base, "127.0.0.2")
        check(code == 200, f"--max-per-client 4: another address is served ({code} {err})")
        second = idle_sockets(host, int(base.rsplit(":", 1)[1]), 4, "127.0.0.2")
        code, err, retry = status_from(base, "127.0.0.3")
        check(code == 503 and "--max-connections" in err and retry,
              f"--max-connections 8: a ninth connection is 503 with Retry-After ({code} {err})")
        for s in first + second:
            s.close()
    finally:
        stop(proc)


def open_file_limit(bn):
    """Under an open-file limit of 300 (soft and hard): the default --max-connections shrinks to
    fit, said on stderr; --max-connections 1000 is refused, naming the limit."""
    def limit():
        resource.setrlimit(resource.RLIMIT_NOFILE, (300, 300))
    args = [HYPROVE, "serve", "--zkey", os.path.join(bn, "circuit.zkey"), "--listen", "127.0.0.1:0", "--devices", "cpu",
            "--precompute", "1"]
    proc = subprocess.Popen(args, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True, preexec_fn=limit)
    line = proc.stdout.readline()
    _, _, err = stop(proc)
    check("http://" in line and "--max-connections 189 (the open-file limit" in err,
          f"an open-file limit of 300: the default connection cap shrinks to fit ({err.strip()[-200:]})")
    r = subprocess.run(args + ["--max-connections", "1000"], capture_output=True, text=True, timeout=60,
                       preexec_fn=limit)
    check(r.returncode == 2 and "limit of 300" in r.stderr,
          f"an open-file limit of 300: --max-connections 1000 is refused ({r.stderr.strip()[-200:]})")


def chunked(host, port, chunks, end):
    """A POST /prove of chunks 64 KiB chunks (then the last chunk when end): (the answer's
    status or 0, the bytes sent before the server closed the connection)."""
    sent = 0
    with socket.create_connection((host, port), timeout=30) as sock:
        try:
            sock.sendall(b"POST /prove HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n")
            for _ in range(chunks):
                sock.sendall(b"10000\r\n" + b"\0" * 0x10000 + b"\r\n")
                sent += 0x10000
            if end:
                sock.sendall(b"0\r\n\r\n")
            answer = sock.recv(64)
        except OSError:
            return 0, sent
    return (int(answer.split(b" ")[1]) if answer.startswith(b"HTTP/") else 0), sent


def bodies_and_memory(bn, wt_bn):
    """A chunked body over --max-request 100000 answers 413 (read and dropped to its end); an
    endless one is cut after about its limit again, not read for ever. With --max-memory 2M
    the bodies held count in the limit: the uploads budget and the largest body default to a
    quarter (524288 bytes), a proof gets the rest (1.5 MiB: it needs more, 503 naming it), and
    an uploads budget that leaves nothing is refused."""
    proc, base = serving(["--zkey", "bn=" + os.path.join(bn, "circuit.zkey"), "--max-request", "100000"],
                         "a server with --max-request 100000 starts")
    if base is None:
        return
    host, port = base.split("//")[1].split(":")
    try:
        code, sent = chunked(host, int(port), 3, True)
        check(code == 413, f"a chunked body of 196608 bytes over --max-request 100000: 413 ({code})")
        code, sent = chunked(host, int(port), 1000, False)
        check(code == 0 and sent < 20 << 20, f"an endless chunked body is cut ({sent} bytes sent before the close)")
    finally:
        stop(proc)
    proc, base = serving(["--max-memory", "2M", "--zkey", "bn=" + os.path.join(bn, "circuit.zkey")],
                         "a server with --max-memory 2M starts")
    if base is None:
        return
    try:
        st = status_of(base)
        check(st.get("max_request") == 524288 and st.get("uploads", {}).get("budget") == 524288,
              f"--max-memory 2M: the largest body and the uploads budget are a quarter ({st.get('max_request')}, "
              f"{st.get('uploads')})")
        code, body = request(base, "/prove", wt_bn)
        check(code == 503 and "the memory limit is 1.5 MiB" in error_of(body),
              f"--max-memory 2M: a proof gets the limit less the uploads budget ({code} {error_of(body)})")
    finally:
        stop(proc)
    expect_refused(["--max-memory", "64M", "--zkey", os.path.join(bn, "circuit.zkey"), "--listen", "127.0.0.1:0",
                    "--max-uploads", str(64 << 20)], "leave nothing of the memory limit",
                   "an uploads budget as large as --max-memory is refused")


def running_client_leaves(bls, wt_bls):
    """A proof whose client closes its connection while it runs is stopped (abandoned, not
    served); proofs that wait and run longer than --header-timeout are answered. The test hook
    HPR_TEST_SERVE_HOLD_MS holds each proof's first progress report until its client leaves
    (at most 2.5 s), so the client closes while the proof runs whatever the machine's speed."""
    proc, base = serving(["--zkey", "bls=" + os.path.join(bls, "circuit.zkey"), "--header-timeout", "1"],
                         "a server with HPR_TEST_SERVE_HOLD_MS starts", dict(os.environ, HPR_TEST_SERVE_HOLD_MS="2500"))
    if base is None:
        return
    host, port = base.split("//")[1].split(":")
    try:
        results, threads = start_proofs(base, "/prove", wt_bls, 2)
        for t in threads:
            t.join()
        check([c for c, _ in results] == [200, 200], f"two proofs of 2.5 s or more each, --header-timeout 1: both "
                                                      f"answered ({[c for c, _ in results]})")
        sock = socket.create_connection((host, int(port)), timeout=60)
        sock.sendall(f"POST /prove HTTP/1.1\r\nHost: h\r\nContent-Length: {len(wt_bls)}\r\n\r\n".encode() + wt_bls)
        proving = None
        for _ in range(3000):
            proving = status_of(base).get("proving")
            if proving:
                break
            threading.Event().wait(0.01)
        check(proving is not None and proving.get("zkey") == "bls" and 0 <= proving.get("fraction", -1) < 1,
              f"/status shows the running proof ({proving})")
        sock.close()
        st = {}
        for _ in range(3000):
            st = status_of(base)
            if st.get("abandoned", 0) + st.get("served", 0) >= 3 and st.get("proving") is None:
                break
            threading.Event().wait(0.01)
        check(st.get("abandoned") == 1 and st.get("served") == 2 and st.get("failed") == 0,
              f"a running proof whose client left is stopped: abandoned, not served (served {st.get('served')}, "
              f"abandoned {st.get('abandoned')}, failed {st.get('failed')})")
    finally:
        stop(proc)


def ps_status(base):
    code, body = request(base, "/status")
    return json.loads(body) if code == 200 else {"status": f"HTTP {code}"}


def ps_wait(base):
    """GET /status until its proverServer status is no longer busy (at most 300 s)."""
    st = {}
    for _ in range(3000):
        st = ps_status(base)
        if st.get("status") != "busy":
            break
        threading.Event().wait(0.1)
    return st


def prover_server_api(edge, out):
    """rapidsnark's proverServer API, step by step as its clients go: GET /status (ready), POST
    /input/NAME with the input JSON (busy), GET /status until success: proof and pubData are
    JSON texts, snarkjs accepts the proof and pubData is public.json. An input the witness
    program refuses fails with its exit status; POST /cancel aborts a job (its program killed);
    a new input aborts the job before it; --witness-timeout fails a program that runs past it
    (one that closed its output first)."""
    slow = os.path.join(out, "slow-witness.sh")
    with open(slow, "w") as f:
        f.write("#!/bin/sh\nexec sleep 120\n")
    os.chmod(slow, 0o755)
    zkey, wasm = os.path.join(edge, "circuit.zkey"), os.path.join(edge, "circuit.wasm")
    expect_refused(["--zkey", "edge=" + zkey, "--listen", "127.0.0.1:0", "--witness-cmd", "nope=" + slow],
                   "no --zkey is named 'nope'", "--witness-cmd for a name no --zkey has is refused")
    proc, base = serving(["--zkey", "edge=" + zkey, "--zkey", "slow=" + zkey, "--witness-cmd",
                          f"edge={SNARKJS} wtns calculate {wasm}", "--witness-cmd", "slow=" + slow],
                         "a server with --witness-cmd starts")
    if base is None:
        return
    inputs = open(os.path.join(edge, "input.json"), "rb").read()
    try:
        check(ps_status(base).get("status") == "ready", "proverServer API: GET /status is ready at first")
        code, body = request(base, "/input/edge", inputs)
        check(code == 200 and json.loads(body) == {"status": "busy"}, f"POST /input/edge: busy ({code} {body[:200]})")
        st = ps_wait(base)
        ok = st.get("status") == "success"
        if ok:
            answer = json.dumps({"proof": json.loads(st["proof"]), "public": json.loads(st["pubData"])})
            ok = snarkjs_accepts(edge, answer, out, "ps")
        check(ok, f"GET /status: success, snarkjs accepts the proof and pubData is public.json ({str(st)[:300]})")
        code, body = request(base, "/input/edge", b'{"a": "5"}')
        st = ps_wait(base)
        check(st.get("status") == "failed" and "exited with status" in st.get("error", ""),
              f"an input the witness program refuses: failed with its exit status ({str(st)[:300]})")
        request(base, "/input/slow", inputs)
        check(ps_status(base).get("status") == "busy", "POST /input/slow: busy")
        code, body = request(base, "/cancel", b"", "POST")
        check(code == 200 and json.loads(body).get("status") == "aborted", f"POST /cancel: aborted ({code} {body})")
        gone = False
        for _ in range(100):
            if subprocess.run(["pgrep", "-f", "sleep 120"], capture_output=True).returncode != 0:
                gone = True
                break
            threading.Event().wait(0.05)
        check(gone and ps_status(base).get("status") == "aborted", "the cancelled job's program is killed")
        request(base, "/input/slow", inputs)
        request(base, "/input/edge", inputs)
        st = ps_wait(base)
        check(st.get("status") == "success", f"a new input aborts the job before it and is proved ({st.get('status')})")
        for path, data, method, want in (("/input/nope", inputs, None, 404), ("/input/edge", None, "GET", 405)):
            code, body = request(base, path, data, method)
            check(code == want, f"{method or 'POST'} {path}: {want} ({code} {error_of(body)})")
    finally:
        stop(proc)
    quiet = os.path.join(out, "quiet-witness.sh")  # closes its output first: the pipe ends, the program runs on
    with open(quiet, "w") as f:
        f.write("#!/bin/sh\nexec >/dev/null 2>&1\nexec sleep 120\n")
    os.chmod(quiet, 0o755)
    proc, base = serving(["--zkey", "slow=" + zkey, "--witness-cmd", "slow=" + quiet, "--witness-timeout", "1"],
                         "a server with --witness-timeout 1 starts")
    if base is None:
        return
    try:
        request(base, "/input/slow", inputs)
        st = ps_wait(base)
        check(st.get("status") == "failed" and "--witness-timeout 1" in st.get("error", ""),
              f"--witness-timeout 1: a program that runs past it fails ({str(st)[:200]})")
    finally:
        stop(proc)


def longest_names(bn):
    """16 zkeys (the most) of 127-character names: /status is whole JSON and /metrics ends with
    its last gauge (their buffers are sized for this; nothing is cut off or overrun)."""
    zkey = os.path.join(bn, "circuit.zkey")
    names = [f"k{i:02d}".ljust(127, "x") for i in range(16)]
    args = [a for n in names for a in ("--zkey", f"{n}={zkey}")]
    proc, base = serving(args, "a server with 16 zkeys of 127-character names starts")
    if base is None:
        return
    try:
        st = status_of(base)
        code, text = request(base, "/metrics")
        check([k["name"] for k in st.get("zkeys", [])] == names and code == 200
              and text.endswith("hyprove_queue_waiting 0\n") and text.count("hyprove_proofs_total{") == 48,
              f"16 zkeys of 127-character names: /status and /metrics whole ({len(st.get('zkeys', []))} keys, "
              f"{len(text)} bytes of metrics)")
    finally:
        stop(proc)


def oversized_request(base, path, length):
    """A POST announcing length bytes with "Expect: 100-continue" and sending none of them: the
    server must answer from the headers alone. (Sending the body raced with the server closing
    the connection after its early 413: the client could see a reset instead of the answer.)"""
    host, port = base.split("//")[1].split(":")
    conn = http.client.HTTPConnection(host, int(port), timeout=60)
    try:
        conn.putrequest("POST", path)
        conn.putheader("Content-Length", str(length))
        conn.putheader("Expect", "100-continue")
        conn.endheaders()
        r = conn.getresponse()
        return r.status, r.read().decode()
    except (OSError, http.client.HTTPException) as e:
        return 0, str(e)
    finally:
        conn.close()


def error_of(body):
    try:
        return json.loads(body).get("error", "")
    except ValueError:
        return ""


def snarkjs_accepts(fixture, body, out, tag):
    answer = json.loads(body)
    proof, public = os.path.join(out, tag + ".proof.json"), os.path.join(out, tag + ".public.json")
    json.dump(answer["proof"], open(proof, "w"))
    json.dump(answer["public"], open(public, "w"))
    r = subprocess.run([SNARKJS, "groth16", "verify", os.path.join(fixture, "verification_key.json"), public, proof],
                       capture_output=True, text=True, timeout=600)
    want = json.load(open(os.path.join(fixture, "public.json")))
    return r.returncode == 0 and "OK" in r.stdout and answer["public"] == want


def main():
    bn, bls = os.path.join(FIXTURES, "bn128_2e10"), os.path.join(FIXTURES, "bls12381_2e12")
    help_text = subprocess.run([HYPROVE, "serve", "--help"], capture_output=True, text=True).stdout
    check("POST /prove" in help_text, "serve --help describes the requests")
    r = subprocess.run([HYPROVE, "serve", "--zkey", os.path.join(bn, "circuit.zkey"), "--listen", "not-an-address"],
                       capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "--listen" in r.stderr, f"a bad --listen is refused ({r.stderr.strip()})")
    r = subprocess.run([HYPROVE, "serve", "--zkey", os.path.join(bn, "circuit.zkey"), "--zkey",
                        os.path.join(bls, "circuit.zkey"), "--listen", "127.0.0.1:0"], capture_output=True, text=True,
                       timeout=60)
    check(r.returncode == 2 and "NAME=FILE" in r.stderr, f"two zkeys of one name are refused ({r.stderr.strip()})")
    r = subprocess.run([HYPROVE, "serve", "--zkey", os.path.join(bn, "circuit.zkey"), "--listen", "127.0.0.1:0",
                        "--precompute", "17"], capture_output=True, text=True, timeout=60)
    check(r.returncode == 2 and "--precompute '17'" in r.stderr, f"--precompute 17 is refused ({r.stderr.strip()})")
    zkey = ["--zkey", os.path.join(bn, "circuit.zkey")]
    expect_refused(zkey + ["--listen", "0.0.0.0:0"], "--token-file",
                   "a non-loopback --listen without --token-file or --insecure-no-auth is refused")
    expect_refused(zkey + ["--listen", "127.0.0.1:0", "--token-file", "/nonexistent/token", "--insecure-no-auth"],
                   "not both", "--token-file with --insecure-no-auth is refused")
    expect_refused(zkey + ["--listen", "127.0.0.1:0", "--token-file", "/nonexistent/token"], "cannot read",
                   "an unreadable --token-file is refused")
    with tempfile.NamedTemporaryFile("w", suffix=".token") as empty:
        expect_refused(zkey + ["--listen", "127.0.0.1:0", "--token-file", empty.name], "first line",
                       "an empty --token-file is refused")
    log_dir = tempfile.mkdtemp(prefix="hpr-serve-log-")
    access_log = os.path.join(log_dir, "access.log")
    proc = subprocess.Popen([HYPROVE, "serve", "--zkey", "bn=" + os.path.join(bn, "circuit.zkey"), "--zkey",
                             "bls=" + os.path.join(bls, "circuit.zkey"), "--listen", "127.0.0.1:0", "--max-request", "1000000",
                             "--devices", "cpu", "--precompute", "2", "--verify", "--access-log", access_log],
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    line = proc.stdout.readline()
    check("serving on http://127.0.0.1:" in line, f"the server says where it listens ({line.strip()})")
    if "http://" not in line:
        proc.kill()
        print(proc.stderr.read())
        return 1
    base = line.split()[3]
    try:
        with tempfile.TemporaryDirectory() as out:
            code, body = request(base, "/status")
            st = json.loads(body) if code == 200 else {}
            names = [k["name"] for k in st.get("zkeys", [])]
            curves = [k["curve"] for k in st.get("zkeys", [])]
            check(code == 200 and names == ["bn", "bls"] and curves == ["bn254", "bls12-381"]
                  and st.get("devices", [""])[0] == "cpu", f"GET /status lists the two zkeys ({body[:200]})")
            wt_bn = open(os.path.join(bn, "witness.wtns"), "rb").read()
            wt_bls = open(os.path.join(bls, "witness.wtns"), "rb").read()
            key_bn, key_bls = "bn", "bls"
            wt_edge = open(os.path.join(FIXTURES, "edge_pub", "witness.wtns"), "rb").read()
            code, body = request(base, f"/prove?zkey={key_bn}", wt_bn)
            check(code == 200 and snarkjs_accepts(bn, body, out, "bn"), f"POST /prove (BN254): snarkjs accepts it "
                                                                        f"({code} {error_of(body)})")
            code, body = request(base, f"/prove?zkey={key_bls}", wt_bls)
            check(code == 200 and snarkjs_accepts(bls, body, out, "bls"), f"POST /prove (BLS12-381): snarkjs accepts "
                                                                          f"it ({code} {error_of(body)})")
            for path, data, method, want, needle, what in [
                ("/prove", wt_bn, None, 400, "zkey", "no ?zkey= with two loaded"),
                ("/prove?zkey=nope", wt_bn, None, 404, "nope", "an unknown zkey"),
                (f"/prove?zkey={key_bn}", b"garbage", None, 400, "", "a garbage body"),
                (f"/prove?zkey={key_bls}", wt_bn, None, 400, "nVars", "a witness of the other curve (its length)"),
                (f"/prove?zkey={key_bn}", wt_edge, None, 400, "nVars", "a witness of another length"),
                ("/prove", None, "GET", 405, "POST", "GET /prove"),
                ("/nowhere", None, "GET", 404, "nowhere", "an unknown path"),
                (f"/prove?zkey={key_bn}", wt_bn, "PUT", 405, "PUT", "PUT /prove with a witness as its body"),
                ("/status", b"x" * 300000, "POST", 405, "POST", "POST /status with a 300 kB body"),
                ("/nope", b"x" * 300000, "POST", 404, "nope", "POST /nope with a 300 kB body"),
                (f"/prove?zkey={key_bn}", unsatisfying(wt_bn), None, 422, "satisfy",
                 "a witness that does not satisfy the circuit (--verify)"),
            ]:
                code, body = request(base, path, data, method)
                err = error_of(body)
                check(code == want and err != "" and needle in err, f"{what}: {want} with a JSON error ({code} {err})")
            for text, want, what in [
                ("POST /prove?zkey=bn HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nContent-Length: 6\r\n\r\nhello!", 400,
                 "two Content-Length headers"),
                ("POST /prove?zkey=bn HTTP/1.1\r\nHost: h\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n"
                 "5\r\nhello\r\n0\r\n\r\n", 400, "Content-Length with Transfer-Encoding: chunked"),
                ("GET /status HTTP/1.1\r\nConnection: close\r\n\r\n", 400, "HTTP/1.1 without Host"),
                ("GET /status%00x HTTP/1.1\r\nHost: h\r\nConnection: close\r\n\r\n", 400, "%00 in the path"),
                ("GET /status HTTP/1.0\r\n\r\n", 200, "HTTP/1.0 without Host (allowed)"),
            ]:
                code = raw_status(base, text)
                check(code == want, f"{what}: {want} ({code})")
            code, body = oversized_request(base, f"/prove?zkey={key_bn}", 1000001)
            err = error_of(body)
            check(code == 413 and "limit" in err, f"a body over --max-request: 413 before the upload ({code} {err})")
            for length, want in ((len(wt_bn) - 1, 400), (len(wt_bn) + 65537, 413)):
                code, body = oversized_request(base, f"/prove?zkey={key_bn}", length)
                err = error_of(body)
                check(code == want and "nVars = 904" in err, f"a Content-Length of {length} for a witness of "
                                                            f"{len(wt_bn)} bytes: {want} before the upload ({code} {err})")
            seen = []
            results, threads = start_proofs(base, f"/prove?zkey={key_bls}", wt_bls, 4)
            while any(t.is_alive() for t in threads):  # /status answers while proofs run and wait
                code, body = request(base, "/status")
                if code == 200:
                    q = json.loads(body)["queue"]
                    seen.append(q["running"] + q["waiting"])
            for t in threads:
                t.join()
            check(all(c == 200 for c, _ in results), f"four concurrent requests all answer 200 ({[c for c, _ in results]})")
            check(all(c == 200 and snarkjs_accepts(bls, b, out, f"c{i}") for i, (c, b) in enumerate(results)),
                  "snarkjs accepts the four concurrent proofs")
            check(len(seen) > 0 and max(seen) >= 1 and max(seen) <= 4,
                  f"GET /status answers during the proofs and counts them in its queue (seen {sorted(set(seen))})")
            code, body = request(base, "/status")
            st = json.loads(body) if code == 200 else {}
            check(st.get("served") == 6 and st.get("failed") == 1 and st.get("abandoned") == 0
                  and st.get("queue") == {"running": 0, "waiting": 0},
                  f"/status counts 6 proofs served, 1 failed (the unsatisfying witness: the garbage and wrong "
                  f"lengths were refused from their headers) and an empty queue ({body[-160:]})")
            per_key = {k["name"]: (k["served"], k["failed"]) for k in st.get("zkeys", [])}
            check(per_key == {"bn": (1, 1), "bls": (5, 0)}, f"/status counts per zkey ({per_key})")
            code, text = request(base, "/metrics")
            check(code == 200 and 'hyprove_proofs_total{zkey="bls",result="served"} 5\n' in text
                  and 'hyprove_proofs_total{zkey="bn",result="failed"} 1\n' in text
                  and 'hyprove_responses_total{code="422"} 1\n' in text and "hyprove_queue_waiting 0\n" in text,
                  f"GET /metrics: the counters in Prometheus' text format ({code} {text[:200]!r})")
            token_server(bn, out)
            drain_and_abandon(bls, wt_bls)
            uploads_budget(bls, wt_bls)
            connections(bn, wt_bn)
            open_file_limit(bn)
            bodies_and_memory(bn, wt_bn)
            running_client_leaves(bls, wt_bls)
            prover_server_api(os.path.join(FIXTURES, "edge_pub"), out)
            longest_names(bn)
    finally:
        rc, _, _ = stop(proc)
    check(rc == 0, f"SIGTERM stops the server with exit 0 (rc {rc})")
    try:
        lines = [json.loads(line) for line in open(access_log)]
    except (OSError, ValueError) as e:
        lines = []
        print(f"access log: {e}")
    proved = [x for x in lines if x["path"] == "/prove" and x["status"] == 200 and x["zkey"] == "bls"]
    check(len(proved) == 5 and all(x["prove_ms"] > 0 and x["bytes_in"] == len(open(os.path.join(bls, "witness.wtns"),
                                                                                      "rb").read()) for x in proved)
          and any(x["path"] == "/nowhere" and x["status"] == 404 and x["zkey"] is None for x in lines)
          and all(x["client"].startswith("127.0.0.1:") and x["time"].endswith("Z") for x in lines),
          f"--access-log: one JSON line per request ({len(lines)} lines, {len(proved)} BLS12-381 proofs)")
    shutil.rmtree(log_dir, ignore_errors=True)
    # without --precompute: 2 on the CPU alone (a server makes many proofs), 1 with OpenCL
    # devices; the choice said on stderr before the server listens
    for devices, said in (("cpu", "precompute 2 (default on the CPU tiers"), ("all", "precompute 1 (default: the devices are all")):
        proc = subprocess.Popen([HYPROVE, "serve", "--zkey", "bn=" + os.path.join(bn, "circuit.zkey"), "--listen",
                                 "127.0.0.1:0", "--devices", devices], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                                text=True)
        line = proc.stdout.readline()
        _, _, err = stop(proc)
        check("http://" in line and f"serve: zkey bn: {said}" in err,
              f"--devices {devices} without --precompute: '{said}' said ({err.strip()[:300]})")
    print(f"{len(failures)} failure(s)")
    return 1 if failures else 0


if __name__ == "__main__":
    sys.exit(main())
