#!/usr/bin/env python3
"""Load test of `hyprove serve` on the loopback address (bounded in count and time; it stops
by itself and leaves nothing running).

Starts the server (127.0.0.1, port 0) with one zkey, then, while IDLE idle sockets and SLOW
clients sending their headers a byte every 0.5 s hold connections:
  1. CLIENTS concurrent clients send PROOFS POST /prove in all (each waits for its answer
     before the next): requests per second, latency p50 and p99;
  2. ABANDON clients send a whole witness and close at once (dropped or proved, never lost);
  3. OVERSIZED requests announce a body over --max-request (413 before the upload);
  4. SIGTERM with QUEUED proofs in flight: every one is answered (200, or 503 after the drain
     timeout), none gets an empty reply.
Prints a table (and --json FILE): the figures, the server's RSS before and after, and the
check that nothing was lost (every request answered, the server's counts equal to the
answers). Exit status 1 when something was lost.

usage: serve_load.py HYPROVE ZKEY WITNESS [--clients N] [--proofs N] [--json FILE]
  e.g. bench/serve_load.py build/release/hyprove tests/fixtures/bn128_2e10/circuit.zkey \\
           tests/fixtures/bn128_2e10/witness.wtns
"""
import argparse
import http.client
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time


def post(host, port, path, body, timeout=300):
    """(status, seconds); status 0: no answer (reset or empty reply)."""
    t0 = time.monotonic()
    conn = http.client.HTTPConnection(host, port, timeout=timeout)
    try:
        conn.request("POST", path, body=body)
        r = conn.getresponse()
        r.read()
        return r.status, time.monotonic() - t0
    except (OSError, http.client.HTTPException):
        return 0, time.monotonic() - t0
    finally:
        conn.close()


def status(host, port):
    conn = http.client.HTTPConnection(host, port, timeout=60)
    try:
        conn.request("GET", "/status")
        return json.loads(conn.getresponse().read())
    finally:
        conn.close()


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def percentile(values, q):
    v = sorted(values)
    return v[min(len(v) - 1, int(q * len(v)))] if v else 0.0


def slow_client(host, port, stop):
    """Sends headers a byte every 0.5 s until the server closes the connection or stop is set."""
    text = b"GET /status HTTP/1.1\r\nHost: h\r\n" * 20
    try:
        with socket.create_connection((host, port), timeout=60) as s:
            for b in text:
                if stop.is_set():
                    return
                s.sendall(bytes([b]))
                time.sleep(0.5)
    except OSError:
        pass


def many_clients(host, port, witness, clients, proofs):
    lat, codes, lock = [], [], threading.Lock()
    todo = iter(range(proofs))

    def worker():
        while True:
            with lock:
                if next(todo, None) is None:
                    return
            code, sec = post(host, port, "/prove", witness)
            with lock:
                codes.append(code)
                lat.append(sec)
    t0 = time.monotonic()
    threads = [threading.Thread(target=worker) for _ in range(clients)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    return codes, lat, time.monotonic() - t0


def abandon(host, port, witness, n):
    head = f"POST /prove HTTP/1.1\r\nHost: h\r\nContent-Length: {len(witness)}\r\n\r\n".encode()
    for _ in range(n):
        with socket.create_connection((host, port), timeout=60) as s:
            s.sendall(head + witness)


def oversized(host, port, n, length):
    codes = []
    for _ in range(n):
        conn = http.client.HTTPConnection(host, port, timeout=60)
        try:
            conn.putrequest("POST", "/prove")
            conn.putheader("Content-Length", str(length))
            conn.putheader("Expect", "100-continue")
            conn.endheaders()
            r = conn.getresponse()
            r.read()
            codes.append(r.status)
        except (OSError, http.client.HTTPException):
            codes.append(0)
        finally:
            conn.close()
    return codes


def wait_settled(host, port, taken, deadline):
    while time.monotonic() < deadline:
        st = status(host, port)
        if st["queue"] == {"running": 0, "waiting": 0} and st["served"] + st["failed"] + st["abandoned"] >= taken:
            return st
        time.sleep(0.05)
    return status(host, port)


def sigterm_under_load(proc, host, port, witness, n):
    results = [None] * n

    def worker(i):
        results[i] = post(host, port, "/prove", witness)[0]
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    deadline = time.monotonic() + 60
    while time.monotonic() < deadline:
        q = status(host, port)["queue"]
        if q["running"] + q["waiting"] >= n // 2:
            break
        time.sleep(0.01)
    proc.send_signal(signal.SIGTERM)
    for t in threads:
        t.join()
    out, _ = proc.communicate(timeout=300)
    return results, proc.returncode, out


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("hyprove")
    ap.add_argument("zkey")
    ap.add_argument("witness")
    ap.add_argument("--clients", type=int, default=16)
    ap.add_argument("--proofs", type=int, default=200)
    ap.add_argument("--idle", type=int, default=200)
    ap.add_argument("--slow", type=int, default=20)
    ap.add_argument("--abandon", type=int, default=20)
    ap.add_argument("--oversized", type=int, default=20)
    ap.add_argument("--queued", type=int, default=10)
    ap.add_argument("--baseline", type=int, default=50, help="proofs of one client alone first (the baseline)")
    ap.add_argument("--json")
    a = ap.parse_args()
    witness = open(a.witness, "rb").read()
    proc = subprocess.Popen([a.hyprove, "serve", "--zkey", "k=" + a.zkey, "--listen", "127.0.0.1:0",
                             "--max-request", str(len(witness) + 65536), "--header-timeout", "5",
                             "--drain-timeout", "30"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, text=True)
    line = proc.stdout.readline()
    if "http://" not in line:
        print("the server did not start", file=sys.stderr)
        proc.kill()
        return 1
    host, port = line.split()[3].split("//")[1].split(":")
    port = int(port)
    stop = threading.Event()
    try:
        post(host, port, "/prove", witness)  # the first proof makes what the later ones reuse
        base_codes, base_lat, base_wall = many_clients(host, port, witness, 1, a.baseline)
        rss_before = rss_kib(proc.pid)
        idle = [socket.create_connection((host, port), timeout=60) for _ in range(a.idle)]
        slow = [threading.Thread(target=slow_client, args=(host, port, stop)) for _ in range(a.slow)]
        for t in slow:
            t.start()
        codes, lat, wall = many_clients(host, port, witness, a.clients, a.proofs)
        abandon(host, port, witness, a.abandon)
        big = oversized(host, port, a.oversized, len(witness) + 65537 + (1 << 20))
        st = wait_settled(host, port, 1 + a.baseline + a.proofs + a.abandon, time.monotonic() + 300)
        rss_after = rss_kib(proc.pid)
        stop.set()
        for s in idle:
            s.close()
        queued, rc, out = sigterm_under_load(proc, host, port, witness, a.queued)
    finally:
        stop.set()
        if proc.poll() is None:
            proc.kill()
            proc.wait()
    lost = codes.count(0) + base_codes.count(0) + big.count(0) + queued.count(0)
    settled = st["failed"] == 0 and st["served"] + st["abandoned"] == 1 + a.baseline + a.proofs + a.abandon
    fig = {
        "baseline": {"proofs": a.baseline, "requests_per_s": a.baseline / base_wall,
                     "p50_ms": percentile(base_lat, 0.5) * 1e3},
        "proofs": a.proofs, "clients": a.clients, "requests_per_s": a.proofs / wall,
        "p50_ms": percentile(lat, 0.5) * 1e3, "p99_ms": percentile(lat, 0.99) * 1e3,
        "answers": {str(c): codes.count(c) for c in sorted(set(codes))},
        "idle_sockets": a.idle, "slow_clients": a.slow,
        "abandoned": {"sent": a.abandon, "dropped": st["abandoned"],
                      "proved": st["served"] - 1 - a.baseline - codes.count(200)},
        "oversized": {str(c): big.count(c) for c in sorted(set(big))},
        "sigterm": {"queued": a.queued, "answers": {str(c): queued.count(c) for c in sorted(set(queued))},
                    "exit": rc},
        "rss_kib": {"before": rss_before, "after": rss_after},
        "lost": lost, "counts_match": settled,
    }
    print(f"baseline: one client alone, {a.baseline} proofs: {fig['baseline']['requests_per_s']:.1f} requests/s, "
          f"p50 {fig['baseline']['p50_ms']:.1f} ms")
    print(f"{a.proofs} proofs from {a.clients} clients beside {a.idle} idle sockets and {a.slow} slow clients:")
    print(f"  {fig['requests_per_s']:.1f} requests/s, p50 {fig['p50_ms']:.1f} ms, p99 {fig['p99_ms']:.1f} ms, "
          f"answers {fig['answers']} ({fig['requests_per_s'] / fig['baseline']['requests_per_s']:.2f}x the baseline)")
    print(f"  abandoned: {fig['abandoned']}; oversized: {fig['oversized']}")
    print(f"  SIGTERM with {a.queued} in flight: answers {fig['sigterm']['answers']}, exit {rc}")
    print(f"  RSS {rss_before} KiB before, {rss_after} KiB after; lost {lost}; counts match: {settled}")
    if a.json:
        with open(a.json, "w") as f:
            json.dump(fig, f, indent=1)
    ok = lost == 0 and settled and set(codes) == {200} and set(base_codes) == {200} and set(big) == {413} and rc == 0 and \
        set(queued) <= {200, 503}
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
