/*
 * cmd_serve.c: `hyprove serve`, a Groth16 proving server over HTTP (libmicrohttpd).
 *
 * What: each --zkey is opened once (hpr_groth16_prover_create: mapped, validated; its bases
 * stay on the context's OpenCL devices from the first proof); POST /prove[?zkey=NAME] with a
 * .wtns as the body answers {"proof": <proof.json>, "public": <public.json>}, errors answer
 * {"error": "..."} with 400 (a bad witness or request), 404 (unknown path or zkey), 405, 413
 * (a body over --max-request) or 500; GET /status lists the zkeys, the devices and the queue.
 * Method: event-driven: libmicrohttpd's own polling (epoll where there is one) on a pool of
 * two threads handles every connection, so an idle socket costs a slot and a little memory,
 * not a thread; serve_guard.c bounds the connections (in all and per client: more are
 * answered 503) and the time a request's headers and body may take. A whole POST /prove is
 * queued and its connection suspended; one prover thread takes the queue in order on the one
 * context of the server (it serves one call at a time: requests wait for the cores and
 * devices instead of oversubscribing them), writes the answer and resumes the connection,
 * whose handler then sends it. /status says how many wait. A queued request whose client has
 * gone is dropped; a running one is stopped (hpr_ctx_cancel) when its client goes. Bodies
 * are collected up to --max-request bytes (a Content-Length above it is refused before the
 * upload). A request that will be refused (unknown path, wrong method, no token) has its
 * body read and dropped before the answer, so the client gets the answer, not a reset. An
 * address other than loopback needs a bearer token (--token-file, compared in constant time)
 * or an explicit --insecure-no-auth. SIGINT or SIGTERM stops the server (exit 0). With
 * --verify every proof is
 * checked (hpr_groth16_verify) before it is sent. A device that fails is one warning line on
 * stderr (once per device while the server runs: the context keeps it unusable).
 * Why here and not in the library: a server is an application of the public API; the library
 * stays free of sockets. libmicrohttpd is optional at build time (HPR_HAVE_MHD).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_bench.h"
#include "cli_groth16.h"
#include "cli_faults.h"

#include <stdio.h>
#include <string.h>

static const char *serve_help =
    "usage: hyprove serve --zkey [NAME=]FILE [--zkey ...] --listen ADDR:PORT [--max-request BYTES]\n"
    "                     [--devices D] [--threads T] [--cpu-tier T] [--precompute F] [--verify]\n"
    "                     [--token-file FILE | --insecure-no-auth] [--drain-timeout S]\n"
    "                     [--access-log FILE|-] [--max-uploads BYTES] [--max-connections N]\n"
    "                     [--max-per-client N] [--header-timeout S] [--min-upload-rate BYTES]\n"
    "                     [--witness-cmd NAME=PROGRAM [ARG...] ...] [--witness-timeout S]\n"
    "\n"
    "A Groth16 proving server over HTTP. Each zkey is loaded once, named NAME or by its file\n"
    "name without .zkey. Requests:\n"
    "  POST /prove[?zkey=NAME]  body: a .wtns file's bytes (NAME may be left out when one zkey\n"
    "                           is loaded) -> 200 {\"proof\": {...}, \"public\": [...]}\n"
    "  GET /status              -> 200 {\"zkeys\": [...], \"devices\": [...], \"queue\": {...}}\n"
    "                           (each zkey with its served, failed and abandoned counts)\n"
    "  GET /metrics             -> 200 the counters in Prometheus' text format\n"
    "Errors answer {\"error\": \"...\"}: 400 bad witness or request, 401 without the token,\n"
    "404 unknown path or zkey, 405 wrong method, 413 body over --max-request (default 256 MiB),\n"
    "422 a witness that does not satisfy the circuit (caught by --verify), 503 with Retry-After\n"
    "when the proof does not fit the memory limit now, 500 otherwise; malformed framing (two\n"
    "Content-Lengths, Content-Length with Transfer-Encoding, HTTP/1.1 without one Host, %00 in\n"
    "the path) is 400; so is a Content-Length shorter than the zkey's witness file (413: more\n"
    "than 64 KiB over it); every error is answered whatever body the request carries. Proofs run\n"
    "one at a time on the context's devices (--devices, default auto as groth16 prove); others queue. ADDR is an\n"
    "IPv4 address (127.0.0.1 for this machine only); PORT 0 picks a free port. An address other\n"
    "than loopback (127.0.0.0/8) needs --token-file FILE (every request must then carry\n"
    "'Authorization: Bearer TOKEN', TOKEN the file's first line) or an explicit --insecure-no-auth;\n"
    "the token may be given on loopback too. There is no TLS: put a TLS proxy in front of a\n"
    "server that other machines reach (docs/groth16.md). The first line\n"
    "on stdout says where it listens. SIGINT or SIGTERM stops it: no new connection, the proofs\n"
    "running, queued or uploading are finished and answered within --drain-timeout S seconds\n"
    "(default 60), then the rest answer 503 (a running proof is stopped); SIGHUP is ignored. A\n"
    "queued request whose client has closed its connection is dropped, not proved (/status\n"
    "counts it as abandoned). --max-uploads BYTES caps the bodies held at once (default four\n"
    "--max-request, at least 1 GiB; under a memory limit M, M/4, counted in M: the proofs get\n"
    "the rest): a request past it answers 503 before its upload.\n"
    "Connections: at most --max-connections N (default 1024) in all and --max-per-client N\n"
    "(default 256) from one address; more are answered 503 with Retry-After. A request's\n"
    "headers must come within --header-timeout S seconds (default 30) of the connection or of\n"
    "the previous answer, its body within that and its length at --min-upload-rate BYTES a\n"
    "second (default 65536); a connection past them is closed. A running proof whose client\n"
    "has closed its connection is stopped.\n"
    "rapidsnark's proverServer API, with --witness-cmd 'NAME=PROGRAM ARG...' (NAME a zkey's; no\n"
    "shell: the words are split on spaces, then the input and output paths are appended, as\n"
    "circom's witness programs take them):\n"
    "  POST /input/NAME         body: the circuit's input JSON: the witness is computed (at most\n"
    "                           --witness-timeout S seconds, default 600) and proved in the\n"
    "                           background, aborting the job before it -> 200 {\"status\": \"busy\"}\n"
    "  GET /status              also {\"status\": ready|busy|success|failed|aborted, \"proof\" and\n"
    "                           \"pubData\" (JSON texts) after a success, \"error\" after a failure}\n"
    "  POST /cancel             aborts the job -> 200 {\"status\": ...}\n"
    "--access-log FILE (or - for stderr) appends one JSON line per\n"
    "request: time, client, method, path, zkey, status, bytes, queue and prove ms. --verify checks each proof\n"
    "before sending it. --precompute F keeps each zkey's MSM sections precomputed F times\n"
    "(hpr_groth16_prover_precompute: F times their memory, made before serving: about 4-20\n"
    "proofs' time; 2 makes each proof about 5% faster on the CPU tiers, so it pays after some\n"
    "80-210 proofs); default: 2 where the devices are the CPU alone and twice the sections fit\n"
    "the memory limit, or a quarter of the machine's memory; else 1, none; printed per key.\n";

#if HPR_HAVE_MHD

#include "serve.h"

#include <arpa/inet.h>
#include <ctype.h>
#include <fcntl.h>
#include <microhttpd.h>
#include <netinet/in.h>
#include <pthread.h>
#include <signal.h>
#include <stdarg.h>
#include <stdint.h>
#include <poll.h>
#include <stdlib.h>
#include <strings.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <time.h>
#include <unistd.h>

/* The statuses the server answers, counted for /metrics (the last: any other). */
static const unsigned serve_codes[SERVE_NCODES] = {200, 400, 401, 404, 405, 413, 422, 500, 503, 0};

/* The prover thread's answer to r (sent when its connection resumes: prover_thread). */
static void set_answer(request *r, unsigned code, char *body)
{
    r->ready_code = code;
    r->ready_body = body;
}

static void set_error(request *r, unsigned code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    set_answer(r, code, serve_error_json(fmt, ap));
    va_end(ap);
}

static void count(server *s, unsigned *field, int delta)
{
    pthread_mutex_lock(&s->stats_lock);
    *field = (unsigned)((int)*field + delta);
    pthread_mutex_unlock(&s->stats_lock);
}

/* A proof's HTTP status: a witness the key refuses is the client's error, and so is one
 * whose proof does not verify (--verify): it does not satisfy the circuit. */
static unsigned status_code(hpr_status st)
{
    switch (st) {
    case HPR_ERR_FORMAT:
    case HPR_ERR_WITNESS_LENGTH:
    case HPR_ERR_INVALID_ARGUMENT:
    case HPR_ERR_SCALAR_OUT_OF_RANGE: return 400;
    case HPR_ERR_PROOF_INVALID: return 422;
    case HPR_ERR_OUT_OF_MEMORY: /* over --max-memory now: another try may fit */
    case HPR_ERR_CANCELLED: return 503; /* stopped by the drain timeout */
    default: return 500;
    }
}

/* Whether the client has closed its connection (an orderly close read ahead of any data). */
static int client_gone(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = c ? MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD) : NULL;
    char byte;
    if (!info)
        return 0;
    struct pollfd p = {info->connect_fd, POLLIN, 0};
    if (poll(&p, 1, 0) != 1)
        return 0;
    return (p.revents & (POLLHUP | POLLERR)) || recv(info->connect_fd, &byte, 1, MSG_PEEK | MSG_DONTWAIT) == 0;
}

static double ms_since(double t0)
{
    return (cli_now_seconds() - t0) * 1e3;
}

/* The proof (verified under --verify), counted; detail says why not. On the prover thread. */
static hpr_status prove_counted(server *s, serve_key *k, request *r, hpr_groth16_proof *proof, char *detail, size_t len)
{
    double t0 = cli_now_seconds();
    count(s, &s->running, 1);
    hpr_status st = hpr_groth16_prove(s->ctx, k->prover, r->body ? r->body : (const unsigned char *)"", r->len, proof);
    if (st == HPR_OK) /* a device that failed: one warning line in the server's log */
        cli_faults_after_proof(s->ctx, proof->report, NULL);
    if (st == HPR_OK && s->verify && (st = hpr_groth16_verify(s->ctx, k->prover, proof)) != HPR_OK)
        hpr_groth16_proof_clear(proof);
    if (st == HPR_ERR_PROOF_INVALID)
        snprintf(detail, len, "the witness does not satisfy the circuit: its proof does not verify");
    else if (st == HPR_ERR_CANCELLED)
        snprintf(detail, len, "the server is shutting down: the proof was stopped (try again later)");
    else
        snprintf(detail, len, "%s%s%s", hpr_status_str(st), hpr_ctx_error_detail(s->ctx)[0] ? ": " : "",
                 hpr_ctx_error_detail(s->ctx));
    count(s, &s->running, -1);
    r->prove_ms = ms_since(t0);
    pthread_mutex_lock(&s->queue_lock);
    s->proving = NULL;
    int left = r->client_left && st == HPR_ERR_CANCELLED;
    pthread_mutex_unlock(&s->queue_lock);
    pthread_mutex_lock(&s->stats_lock);
    if (st == HPR_OK) {
        s->served++;
        k->served++;
    } else if (left) {
        s->abandoned++;
        k->abandoned++;
    } else {
        s->failed++;
        k->failed++;
    }
    k->prove_seconds += r->prove_ms / 1e3;
    pthread_mutex_unlock(&s->stats_lock);
    r->drop = left;
    return st;
}

/* The answer to a POST /prove: {"proof": ..., "public": ...}, or the error. */
static void answer_proof(request *r, hpr_status st, const char *pj, const char *uj, const char *detail)
{
    char *body = st == HPR_OK ? malloc(strlen(pj) + strlen(uj) + 32) : NULL;
    if (body) {
        sprintf(body, "{\"proof\": %s, \"public\": %s}", pj, uj);
        set_answer(r, 200, body);
    } else {
        set_error(r, st == HPR_OK ? 500 : status_code(st), "%s", st == HPR_OK ? "no memory for the answer" : detail);
    }
}

/* r proved; its answer set (dropped: its client left while it ran), or a proverServer job's
 * result recorded. */
static void prove_one(server *s, request *r)
{
    hpr_groth16_report report = {.struct_size = sizeof report};
    hpr_groth16_proof proof = {.struct_size = sizeof proof, .report = &report};
    char detail[600], *pj = NULL, *uj = NULL;
    hpr_status st = prove_counted(s, r->key, r, &proof, detail, sizeof detail);
    if (st == HPR_OK && (st = hpr_groth16_proof_json(&proof, &pj, &uj)) != HPR_OK)
        snprintf(detail, sizeof detail, "formatting the proof: %s", hpr_status_str(st));
    hpr_groth16_proof_clear(&proof);
    if (r->job)
        ps_job_finished(s, r->job, r->drop ? HPR_ERR_CANCELLED : st, pj, uj, detail);
    else if (!r->drop)
        answer_proof(r, st, pj, uj, detail);
    free(pj);
    free(uj);
}

/* Whether r is not to be proved: its client has gone, or (a proverServer job) it was
 * cancelled or replaced. */
static int unwanted(server *s, request *r)
{
    return r->conn ? client_gone(r->conn) : !ps_job_current(s, r->job);
}

/* The prover thread's turn for r: 503 after the drain timeout, dropped when unwanted
 * (abandoned), else proved. */
static void answer_queued(server *s, request *r)
{
    count(s, &s->waiting, -1);
    r->queue_ms = ms_since(r->queued_at);
    int stopping = s->stopping, gone = !stopping && unwanted(s, r);
    if (stopping || gone) {
        pthread_mutex_lock(&s->stats_lock);
        if (stopping)
            s->turned_away++;
        else {
            s->abandoned++;
            r->key->abandoned++;
        }
        pthread_mutex_unlock(&s->stats_lock);
        r->drop = gone;
        if (stopping && r->job)
            ps_job_finished(s, r->job, HPR_ERR_CANCELLED, NULL, NULL, "the server is shutting down");
        else if (stopping)
            set_error(r, 503, "the server is shutting down: try again elsewhere or later");
        return;
    }
    pthread_mutex_lock(&s->stats_lock);
    s->reports = 0;
    s->fraction = 0;
    snprintf(s->phase, sizeof s->phase, "starting");
    pthread_mutex_unlock(&s->stats_lock);
    pthread_mutex_lock(&s->queue_lock);
    s->proving = r;
    pthread_mutex_unlock(&s->queue_lock);
    prove_one(s, r);
}

/* The next queued request, or NULL once quit is set and the queue is empty. */
static request *next_queued(server *s)
{
    pthread_mutex_lock(&s->queue_lock);
    while (!s->queue_head && !s->quit)
        pthread_cond_wait(&s->queue_cond, &s->queue_lock);
    request *r = s->queue_head;
    if (r) {
        s->queue_head = r->next;
        if (!s->queue_head)
            s->queue_tail = NULL;
    } else {
        s->worker_done = 1;
    }
    pthread_mutex_unlock(&s->queue_lock);
    return r;
}

/* The prover thread: each queued request in order, its connection resumed with the answer
 * (or to be closed: drop); a proverServer job's request (no connection) is freed. */
static void *prover_thread(void *arg)
{
    server *s = arg;
    request *r;
    while ((r = next_queued(s)) != NULL) {
        answer_queued(s, r);
        if (!r->conn) {
            free(r->body);
            free(r);
            continue;
        }
        r->ready = 1;
        MHD_resume_connection(r->conn);
    }
    return NULL;
}

/* Waits (up to test_hold_ms) until the running proof's client is seen gone and the proof
 * cancelled (cancel_if_client_left). */
static void hold_for_client_left(server *s)
{
    const struct timespec tick = {0, 10 * 1000 * 1000};
    for (unsigned waited = 0; waited < s->test_hold_ms; waited += 10) {
        pthread_mutex_lock(&s->queue_lock);
        int left = s->proving && s->proving->client_left;
        pthread_mutex_unlock(&s->queue_lock);
        if (left)
            return;
        nanosleep(&tick, NULL);
    }
}

/* The running proof's progress, for /status. HPR_TEST_SERVE_HOLD_MS (tests only): a proof's
 * first report waits up to that long for its client to leave (and the proof to be cancelled),
 * so that a test can close a connection while its proof runs, however fast the machine. */
static void on_progress(const hpr_progress *p, void *user)
{
    server *s = user;
    pthread_mutex_lock(&s->stats_lock);
    int first = s->reports++ == 0;
    snprintf(s->phase, sizeof s->phase, "%s", p->phase);
    s->fraction = p->fraction;
    pthread_mutex_unlock(&s->stats_lock);
    if (first && s->test_hold_ms)
        hold_for_client_left(s);
}

/* The running proof's client has gone: the proof is cancelled (not while another runs: the
 * flag is set under queue_lock, which the prover thread takes before the next proof). */
static void cancel_if_client_left(server *s)
{
    pthread_mutex_lock(&s->queue_lock);
    request *r = s->proving;
    if (r && !r->client_left && client_gone(r->conn)) {
        r->client_left = 1;
        hpr_ctx_cancel(s->ctx);
    }
    pthread_mutex_unlock(&s->queue_lock);
}

/* A whole POST /prove (its key chosen from the headers), queued for the prover thread with its
 * connection suspended until the answer (sent by on_request when the connection resumes). */
static enum MHD_Result queue_proof(server *s, struct MHD_Connection *c, request *r)
{
    r->conn = c;
    return serve_enqueue(s, r) ? MHD_YES
                               : serve_reply_error(c, r, 503, "the server is shutting down: try again elsewhere or later");
}

/* The running proof as JSON ({"zkey", "phase", "fraction"}), or null. */
static void put_proving(server *s, char *body, size_t cap, size_t *used)
{
    pthread_mutex_lock(&s->queue_lock);
    const char *zkey = s->proving ? s->proving->zkey : NULL;
    pthread_mutex_lock(&s->stats_lock);
    if (zkey)
        serve_put(body, cap, used, "{\"zkey\": \"%s\", \"phase\": \"%s\", \"fraction\": %.3f}", zkey, s->phase,
            s->fraction);
    else
        serve_put(body, cap, used, "null");
    pthread_mutex_unlock(&s->stats_lock);
    pthread_mutex_unlock(&s->queue_lock);
}

/* {"zkeys": [...], "proving": ..., "devices": [...], "threads": T, "queue": {...}, "served": N, "failed": N} */
static enum MHD_Result status(server *s, struct MHD_Connection *c, request *r)
{
    char *ps = s->ps ? ps_status_fields(s) : NULL; /* proverServer's fields first, with --witness-cmd */
    size_t cap = 4096 + 512 * (s->nkeys + HPR_REPORT_MAX_DEVICES) + (ps ? strlen(ps) : 0), used = 0;
    char *body = malloc(cap);
    if (!body || (s->ps && !ps)) {
        free(body);
        free(ps);
        return MHD_NO;
    }
    serve_put(body, cap, &used, "{%s%s\"zkeys\": [", ps ? ps : "", ps ? ", " : "");
    free(ps);
    for (size_t i = 0; i < s->nkeys; i++) {
        size_t dom, vars, pub;
        const serve_key *k = &s->keys[i];
        hpr_groth16_prover_sizes(k->prover, &dom, &vars, &pub);
        pthread_mutex_lock(&s->stats_lock);
        serve_put(body, cap, &used,
            "%s{\"name\": \"%s\", \"curve\": \"%s\", \"domain_size\": %zu, \"n_vars\": %zu, "
            "\"n_public\": %zu, \"served\": %llu, \"failed\": %llu, \"abandoned\": %llu, "
            "\"prove_seconds\": %.3f}",
            i ? ", " : "", k->name, cli_curve_name(hpr_groth16_prover_curve(k->prover)), dom, vars,
            pub, k->served, k->failed, k->abandoned, k->prove_seconds);
        pthread_mutex_unlock(&s->stats_lock);
    }
    serve_put(body, cap, &used, "], \"proving\": ");
    put_proving(s, body, cap, &used);
    serve_put(body, cap, &used, ", \"devices\": [");
    for (size_t i = 0; i < s->ndevices; i++)
        serve_put(body, cap, &used, "%s\"%s\"", i ? ", " : "", s->devices[i]);
    pthread_mutex_lock(&s->stats_lock);
    serve_put(body, cap, &used,
        "], \"threads\": %u, \"queue\": {\"running\": %u, \"waiting\": %u}, \"served\": %llu, \"failed\": %llu, "
        "\"abandoned\": %llu, \"max_request\": %zu, \"uploads\": {\"held\": %zu, \"budget\": %zu}}",
        s->threads, s->running, s->waiting, s->served, s->failed, s->abandoned, s->max_request, s->uploads_held,
        s->uploads_budget);
    pthread_mutex_unlock(&s->stats_lock);
    return serve_reply(c, r, 200, body);
}

/* Collects the body (up to max_request bytes: the rest is dropped and the answer is 413). */
/* Reserves bytes more of the server's uploads budget for r's body; 0 when they do not fit. */
static int reserve_upload(server *s, request *r, size_t bytes)
{
    pthread_mutex_lock(&s->stats_lock);
    int fits = bytes <= s->uploads_budget - s->uploads_held;
    if (fits) {
        s->uploads_held += bytes;
        r->reserved += bytes;
    }
    pthread_mutex_unlock(&s->stats_lock);
    return fits;
}

static void take_upload(server *s, request *r, const char *data, size_t len)
{
    if (r->too_large || r->over_budget || len > s->max_request - r->len) {
        r->too_large |= !r->over_budget;
        r->dropped += len;
        return;
    }
    if (r->len + len > r->reserved && !reserve_upload(s, r, r->len + len - r->reserved)) {
        r->over_budget = 1; /* a body without Content-Length that grew past what is left */
        r->dropped += len;
        return;
    }
    if (r->len + len > r->cap) {
        size_t cap = r->cap ? r->cap : 65536;
        while (cap < r->len + len)
            cap *= 2;
        unsigned char *b = realloc(r->body, cap);
        if (!b) {
            r->too_large = 1;
            return;
        }
        r->body = b;
        r->cap = cap;
    }
    memcpy(r->body + r->len, data, len);
    r->len += len;
}

/* GET /metrics: the counters in Prometheus' text format (version 0.0.4). Key names are
 * letters, digits, '_', '-' and '.' (key_name): no label value needs escaping. */
static enum MHD_Result metrics(server *s, struct MHD_Connection *c, request *r)
{
    size_t cap = 2048 + 1024 * s->nkeys + 64 * SERVE_NCODES, used = 0; /* a key: 4 lines, name <= 127 */
    char *body = malloc(cap);
    if (!body)
        return MHD_NO;
    pthread_mutex_lock(&s->stats_lock);
    serve_put(body, cap, &used,
        "# HELP hyprove_proofs_total Proof requests by zkey and result.\n"
        "# TYPE hyprove_proofs_total counter\n");
    for (size_t i = 0; i < s->nkeys; i++) {
        const serve_key *k = &s->keys[i];
        serve_put(body, cap, &used,
            "hyprove_proofs_total{zkey=\"%s\",result=\"served\"} %llu\n"
            "hyprove_proofs_total{zkey=\"%s\",result=\"failed\"} %llu\n"
            "hyprove_proofs_total{zkey=\"%s\",result=\"abandoned\"} %llu\n",
            k->name, k->served, k->name, k->failed, k->name, k->abandoned);
    }
    serve_put(body, cap, &used,
        "# HELP hyprove_prove_seconds_total Seconds spent proving (and verifying), by zkey.\n"
        "# TYPE hyprove_prove_seconds_total counter\n");
    for (size_t i = 0; i < s->nkeys; i++)
        serve_put(body, cap, &used, "hyprove_prove_seconds_total{zkey=\"%s\"} %.6f\n",
            s->keys[i].name, s->keys[i].prove_seconds);
    serve_put(body, cap, &used,
        "# HELP hyprove_responses_total Answers by HTTP status (0: any other).\n"
        "# TYPE hyprove_responses_total counter\n");
    for (size_t i = 0; i < SERVE_NCODES; i++)
        serve_put(body, cap, &used, "hyprove_responses_total{code=\"%u\"} %llu\n", serve_codes[i],
            s->answers[i]);
    serve_put(body, cap, &used,
        "# HELP hyprove_queue_running Proofs running now.\n# TYPE hyprove_queue_running gauge\n"
        "hyprove_queue_running %u\n"
        "# HELP hyprove_queue_waiting Proof requests waiting for the prover.\n"
        "# TYPE hyprove_queue_waiting gauge\nhyprove_queue_waiting %u\n",
        s->running, s->waiting);
    pthread_mutex_unlock(&s->stats_lock);
    return serve_reply_as(c, r, 200, body, "text/plain; version=0.0.4");
}

/* Whether a and b (NUL-terminated) are equal, in a time that depends on their lengths only. */
static int same_secret(const char *a, const char *b)
{
    size_t na = strlen(a), nb = strlen(b);
    unsigned char diff = (unsigned char)(na != nb);
    for (size_t i = 0; i < na; i++)
        diff |= (unsigned char)a[i] ^ (unsigned char)(nb ? b[i % nb] : 0);
    return diff == 0;
}

/* The request's Authorization header carries the server's token (or none is required). */
static int authorized(const server *s, struct MHD_Connection *c)
{
    const char *auth = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_AUTHORIZATION);
    if (!s->token[0])
        return 1;
    return auth && strncmp(auth, "Bearer ", 7) == 0 && same_secret(auth + 7, s->token);
}

/* How many times the framing headers occur (names compared without case). */
typedef struct {
    unsigned content_length, transfer_encoding, host;
} framing;

static enum MHD_Result count_framing(void *cls, enum MHD_ValueKind kind, const char *key, const char *value)
{
    framing *f = cls;
    (void)kind, (void)value;
    f->content_length += strcasecmp(key, MHD_HTTP_HEADER_CONTENT_LENGTH) == 0;
    f->transfer_encoding += strcasecmp(key, MHD_HTTP_HEADER_TRANSFER_ENCODING) == 0;
    f->host += strcasecmp(key, MHD_HTTP_HEADER_HOST) == 0;
    return MHD_YES;
}

/* Malformed framing, which a proxy in front could read otherwise than this server (request
 * smuggling): 400 with the reason in why, else 0. */
static unsigned bad_framing(struct MHD_Connection *c, const char *url, const char *version, char *why, size_t len)
{
    framing f = {0, 0, 0};
    MHD_get_connection_values(c, MHD_HEADER_KIND, count_framing, &f);
    if (f.content_length > 1)
        snprintf(why, len, "%u Content-Length headers: send one", f.content_length);
    else if (f.content_length && f.transfer_encoding)
        snprintf(why, len, "both Content-Length and Transfer-Encoding: send one");
    else if (strcmp(version, MHD_HTTP_VERSION_1_1) == 0 && f.host != 1)
        snprintf(why, len, "an HTTP/1.1 request needs one Host header (it has %u)", f.host);
    else if (strstr(url, "%00"))
        snprintf(why, len, "the path holds an encoded NUL (%%00)");
    else
        return 0;
    return MHD_HTTP_BAD_REQUEST;
}

/* The server's percent-decoding of paths and arguments: as libmicrohttpd's, except that %00
 * stays encoded (a NUL would cut the path short: "/prove%00x" would read as "/prove"), for
 * bad_framing to refuse. */
static size_t unescape_keeping_nul(void *cls, struct MHD_Connection *c, char *s)
{
    char *out = s;
    (void)cls, (void)c;
    for (const char *in = s; *in;) {
        unsigned v;
        if (in[0] == '%' && isxdigit((unsigned char)in[1]) && isxdigit((unsigned char)in[2]) &&
            sscanf(in + 1, "%2x", &v) == 1 && v != 0) {
            *out++ = (char)v;
            in += 3;
        } else {
            *out++ = *in++;
        }
    }
    *out = '\0';
    return (size_t)(out - s);
}

/* The answer decided from the headers alone (0: none yet), its reason in r->why. */
static unsigned refusal(const server *s, struct MHD_Connection *c, const char *url, const char *method,
                        const char *version, request *r)
{
    int prove = strcmp(url, "/prove") == 0 || ps_path(s, url); /* POST only, with a body */
    int status = strcmp(url, "/status") == 0 || strcmp(url, "/metrics") == 0; /* GET only, both */
    const char *paths = s->ps ? "POST /prove, GET /status, GET /metrics, POST /input/NAME, POST /cancel"
                              : "POST /prove, GET /status, GET /metrics";
    if (guard_over_limit(c, r->why, sizeof r->why)) {
        r->close = 1;
        return MHD_HTTP_SERVICE_UNAVAILABLE;
    }
    unsigned framing_status = bad_framing(c, url, version, r->why, sizeof r->why);
    if (framing_status)
        return framing_status;
    if (!authorized(s, c)) {
        snprintf(r->why, sizeof r->why, "this server needs 'Authorization: Bearer TOKEN' (its --token-file)");
        return MHD_HTTP_UNAUTHORIZED;
    }
    if (!prove && !status) {
        snprintf(r->why, sizeof r->why, "no such path '%.200s' (%s)", url, paths);
        return MHD_HTTP_NOT_FOUND;
    }
    if ((prove && strcmp(method, "POST") != 0) || (status && strcmp(method, "GET") != 0)) {
        snprintf(r->why, sizeof r->why, "%.100s does not take %.40s (%s)", url, method, paths);
        return MHD_HTTP_METHOD_NOT_ALLOWED;
    }
    return 0;
}

static enum MHD_Result reply_over_uploads(struct MHD_Connection *c, request *r, const server *s)
{
    return serve_reply_error(c, r, 503, "the server holds its limit of uploads (%zu bytes, --max-uploads): try again shortly",
                       s->uploads_budget);
}

/* The zkey of a POST /prove, chosen from its headers: 0 with r->key set, or the refusal's
 * status with its reason in r->why. */
static unsigned choose_key(server *s, struct MHD_Connection *c, request *r)
{
    const char *name = MHD_lookup_connection_value(c, MHD_GET_ARGUMENT_KIND, "zkey");
    serve_key *k = serve_find_key(s, name);
    if (!k && !name) {
        snprintf(r->why, sizeof r->why, "%zu zkeys are loaded: name one with ?zkey=NAME (see GET /status)", s->nkeys);
        return MHD_HTTP_BAD_REQUEST;
    }
    if (!k) {
        snprintf(r->why, sizeof r->why, "no zkey named '%.200s' (see GET /status)", name);
        return MHD_HTTP_NOT_FOUND;
    }
    r->key = k;
    r->zkey = k->name;
    return 0;
}

/* A body's announced length (length: its header, or NULL) against --max-request (413) and the
 * uploads budget (503), before the upload. */
static enum MHD_Result on_upload_headers(server *s, struct MHD_Connection *c, request *r, unsigned long long announced,
                                         const char *length)
{
    if (announced > s->max_request)
        return serve_reply_error(c, r, 413, "the body has %s bytes, over the server's limit of %zu", length,
                                 s->max_request);
    return reserve_upload(s, r, (size_t)announced) ? MHD_YES : reply_over_uploads(c, r, s);
}

/* A POST /prove's headers: its key, its Content-Length (length: the header, or NULL) against
 * the witness that key takes and the server's limits (answered before the upload when they
 * refuse it). */
static enum MHD_Result on_prove_headers(server *s, struct MHD_Connection *c, request *r, unsigned long long announced,
                                        const char *length)
{
    count(s, &s->open_proofs, 1);
    r->counted = 1;
    if (announced > s->max_request)
        return on_upload_headers(s, c, r, announced, length);
    if ((r->refuse = choose_key(s, c, r)) != 0)
        return MHD_YES; /* the body read and dropped, then the answer */
    size_t vars, want = serve_witness_bytes(r->key, &vars);
    if (length && (announced < want || announced > want + SERVE_WTNS_SLACK))
        return serve_reply_error(c, r, announced < want ? 400 : 413,
                           "the body has %s bytes: a .wtns for zkey '%s' (nVars = %zu values) has %zu%s", length,
                           r->zkey, vars, want, announced < want ? "" : " (and at most 64 KiB more)");
    return on_upload_headers(s, c, r, announced, length);
}

static enum MHD_Result on_request(void *cls, struct MHD_Connection *c, const char *url, const char *method,
                                  const char *version, const char *upload, size_t *upload_size, void **con_cls)
{
    server *s = cls;
    request *r = *con_cls;
    if (!r) { /* the headers: the body, if any, comes in the next calls */
        if (!(r = calloc(1, sizeof *r)))
            return MHD_NO;
        *con_cls = r;
        r->start = cli_now_seconds();
        snprintf(r->method, sizeof r->method, "%s", method);
        snprintf(r->path, sizeof r->path, "%s", url);
        const char *length = MHD_lookup_connection_value(c, MHD_HEADER_KIND, MHD_HTTP_HEADER_CONTENT_LENGTH);
        unsigned long long announced = length ? strtoull(length, NULL, 10) : 0;
        guard_body_started(c, announced);
        r->refuse = refusal(s, c, url, method, version, r);
        if (r->refuse || (strcmp(url, "/prove") != 0 && !ps_path(s, url)))
            return MHD_YES;
        if (ps_path(s, url)) /* its body is the circuit's input: the upload limits alone */
            return on_upload_headers(s, c, r, announced, length);
        return on_prove_headers(s, c, r, announced, length); /* a POST /prove (refusal() let nothing else through) */
    }
    if (r->ready) { /* resumed by the prover thread: its answer, or a close for a client gone */
        char *body = r->ready_body;
        r->ready_body = NULL;
        if (r->drop)
            free(body);
        return r->drop ? MHD_NO : serve_reply(c, r, r->ready_code, body);
    }
    if (*upload_size)
        guard_body_received(c, *upload_size);
    else
        guard_hold(c);
    if (r->refuse) { /* the body read and dropped, then the answer: a client still sending it gets it */
        if (*upload_size) {
            *upload_size = 0;
            return MHD_YES;
        }
        return serve_reply_error(c, r, r->refuse, "%s", r->why);
    }
    if ((strcmp(url, "/prove") == 0 || ps_path(s, url)) && strcmp(method, "POST") == 0) {
        if (*upload_size) {
            take_upload(s, r, upload, *upload_size);
            *upload_size = 0;
            /* a body without Content-Length past a limit is read and dropped for its answer,
             * but no more than its limit again: past that the connection is closed */
            return r->dropped > (s->max_request > (1u << 20) ? s->max_request : (1u << 20)) ? MHD_NO : MHD_YES;
        }
        r->close = r->too_large || r->over_budget;
        if (r->too_large)
            return serve_reply_error(c, r, 413, "the body is over the server's limit of %zu bytes", s->max_request);
        if (r->over_budget)
            return reply_over_uploads(c, r, s);
        return ps_path(s, url) ? ps_request(s, c, r, url) : queue_proof(s, c, r);
    }
    if (strcmp(url, "/metrics") == 0)
        return metrics(s, c, r);
    return status(s, c, r); /* GET /status: refusal() let nothing else through */
}

/* One JSON line per request: time (UTC), client, method, path, zkey, status (0: no answer
 * was sent), bytes in and out, queue and prove milliseconds. Under stats_lock. */
static void log_access(server *s, struct MHD_Connection *c, const request *r)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    char client[64] = "", when[32];
    struct timespec now;
    struct tm tm;
    if (info && info->client_addr && info->client_addr->sa_family == AF_INET) {
        const struct sockaddr_in *in = (const struct sockaddr_in *)info->client_addr;
        char ip[INET_ADDRSTRLEN];
        inet_ntop(AF_INET, &in->sin_addr, ip, sizeof ip);
        snprintf(client, sizeof client, "%s:%u", ip, (unsigned)ntohs(in->sin_port));
    }
    clock_gettime(CLOCK_REALTIME, &now);
    gmtime_r(&now.tv_sec, &tm);
    strftime(when, sizeof when, "%Y-%m-%dT%H:%M:%S", &tm);
    char *method = serve_json_escape(r->method), *path = serve_json_escape(r->path);
    fprintf(s->access_log,
            "{\"time\": \"%s.%03ldZ\", \"client\": \"%s\", \"method\": \"%s\", \"path\": \"%s\", \"zkey\": %s%s%s, "
            "\"status\": %u, \"bytes_in\": %zu, \"bytes_out\": %zu, \"queue_ms\": %.1f, \"prove_ms\": %.1f, "
            "\"total_ms\": %.1f}\n",
            when, now.tv_nsec / 1000000, client, method ? method : "", path ? path : "", r->zkey ? "\"" : "",
            r->zkey ? r->zkey : "null", r->zkey ? "\"" : "", r->code, r->len, r->bytes_out, r->queue_ms, r->prove_ms,
            ms_since(r->start));
    fflush(s->access_log);
    free(method);
    free(path);
}

/* The request's end (answered, or its connection gone): counted, logged, freed. */
static void on_completed(void *cls, struct MHD_Connection *c, void **con_cls, enum MHD_RequestTerminationCode toe)
{
    server *s = cls;
    request *r = *con_cls;
    (void)toe;
    guard_next_request(c);
    if (r) {
        if (r->counted)
            count(s, &s->open_proofs, -1);
        pthread_mutex_lock(&s->stats_lock);
        s->uploads_held -= r->reserved;
        size_t i = 0;
        while (serve_codes[i] && serve_codes[i] != r->code)
            i++;
        if (r->code)
            s->answers[i]++;
        if (s->access_log)
            log_access(s, c, r);
        pthread_mutex_unlock(&s->stats_lock);
        free(r->body);
        free(r->ready_body);
        free(r);
        *con_cls = NULL;
    }
}

/* "A.B.C.D:PORT" into addr. */
static int parse_listen(const char *s, struct sockaddr_in *addr)
{
    char host[64];
    const char *colon = strrchr(s, ':');
    unsigned long long port;
    if (!colon || (size_t)(colon - s) >= sizeof host || cli_parse_uint(colon + 1, 0, 65535, &port) != 0)
        return -1;
    memcpy(host, s, (size_t)(colon - s));
    host[colon - s] = '\0';
    memset(addr, 0, sizeof *addr);
    addr->sin_family = AF_INET;
    addr->sin_port = htons((uint16_t)port);
    return inet_pton(AF_INET, host, &addr->sin_addr) == 1 ? 0 : -1;
}

/* The token of --token-file into s->token: the file's first line without its line end, 1 to
 * SERVE_MAX_TOKEN visible ASCII characters. 0, or the exit status of a usage error. */
static int read_token(server *s, const char *path)
{
    char line[SERVE_MAX_TOKEN + 3];
    FILE *f = fopen(path, "r");
    if (!f)
        return cli_usage_error("serve ", "--token-file '%s': cannot read it", path);
    int got = fgets(line, sizeof line, f) != NULL;
    fclose(f);
    size_t n = got ? strcspn(line, "\r\n") : 0;
    if (!got || n == 0 || n > SERVE_MAX_TOKEN) /* a longer line fills the buffer: n > SERVE_MAX_TOKEN */
        return cli_usage_error("serve ", "--token-file '%s': its first line must hold the token, 1 to %d characters",
                               path, SERVE_MAX_TOKEN);
    for (size_t i = 0; i < n; i++)
        if (line[i] <= ' ' || line[i] > '~')
            return cli_usage_error("serve ", "--token-file '%s': the token must be visible ASCII characters, "
                                   "no spaces", path);
    memcpy(s->token, line, n);
    s->token[n] = '\0';
    return 0;
}

/* --access-log PATH (appended), "-" for stderr, or none (NULL). 0, or a usage error's status. */
static int open_access_log(server *s, const char *path)
{
    if (path && strcmp(path, "-") == 0)
        s->access_log = stderr;
    else if (path && !(s->access_log = fopen(path, "a")))
        return cli_usage_error("serve ", "--access-log '%s': cannot open it for appending", path);
    if (s->access_log && s->access_log != stderr) /* not inherited by --witness-cmd's programs */
        fcntl(fileno(s->access_log), F_SETFD, FD_CLOEXEC);
    return 0;
}

/* Whether addr is a loopback address (127.0.0.0/8). */
static int is_loopback(const struct sockaddr_in *addr)
{
    return (ntohl(addr->sin_addr.s_addr) >> 24) == 127;
}

/* "NAME=FILE", or FILE named by its file name without ".zkey": the name into out, the path
 * returned. A name is letters, digits, '_', '-' and '.'. */
static const char *key_name(const char *arg, char *out, size_t len)
{
    const char *eq = strchr(arg, '='), *path = eq ? eq + 1 : arg;
    const char *slash = strrchr(path, '/'), *base = eq ? arg : slash ? slash + 1 : path;
    size_t n = eq ? (size_t)(eq - arg) : strlen(base);
    if (!eq && n > 5 && strcmp(base + n - 5, ".zkey") == 0)
        n -= 5;
    snprintf(out, len, "%.*s", (int)n, base);
    for (const char *c = out; *c; c++)
        if (!((*c >= 'a' && *c <= 'z') || (*c >= 'A' && *c <= 'Z') || (*c >= '0' && *c <= '9') || strchr("_-.", *c)))
            return NULL;
    return out[0] ? path : NULL;
}

/* --precompute F for every key, or (F 0: not given) the default chosen per key
 * (cli_groth16_default_precompute: a server makes many proofs), said on stderr. */
static int precompute_key(server *s, serve_key *k, unsigned precompute)
{
    char why[160];
    unsigned factor;
    hpr_status st;
    if (precompute) {
        st = hpr_groth16_prover_precompute(s->ctx, k->prover, precompute);
        return st == HPR_OK ? 0 : cli_status_error(k->name, st, s->ctx);
    }
    int rc = cli_groth16_default_precompute(s->ctx, k->prover, SIZE_MAX, &factor, why, sizeof why);
    if (!rc)
        fprintf(stderr, "serve: zkey %s: %s\n", k->name, why);
    return rc;
}

static int open_keys(server *s, const char *const *args, size_t n, unsigned precompute)
{
    for (size_t i = 0; i < n; i++) {
        serve_key *k = &s->keys[s->nkeys];
        const char *path = key_name(args[i], k->name, sizeof k->name);
        if (!path)
            return cli_usage_error("serve ", "--zkey '%s': a name is letters, digits, '_', '-' and '.'", args[i]);
        if (serve_find_key(s, k->name) && s->nkeys)
            return cli_usage_error("serve ", "two zkeys are named '%s': name them with --zkey NAME=FILE", k->name);
        hpr_status st = hpr_groth16_prover_create(s->ctx, path, &k->prover);
        if (st != HPR_OK)
            return cli_status_error(path, st, s->ctx);
        s->nkeys++;
        int rc = precompute_key(s, k, precompute);
        if (rc)
            return rc;
    }
    return 0;
}

/* The devices for /status (JSON-escaped): "cpu", then each OpenCL device "cl:P.D NAME". */
static void list_devices(server *s)
{
    snprintf(s->devices[0], sizeof s->devices[0], "cpu");
    s->ndevices = 1;
    for (unsigned i = 0, n = hpr_device_count(s->ctx); i < n && s->ndevices <= HPR_REPORT_MAX_DEVICES; i++) {
        hpr_device_info info = {.struct_size = sizeof info};
        char *name;
        if (hpr_device_get_info(s->ctx, i, &info) != HPR_OK || !(name = serve_json_escape(info.name)))
            continue;
        snprintf(s->devices[s->ndevices++], sizeof s->devices[0], "%s %.200s%s", info.id, name,
                 info.usable ? "" : " (unusable)");
        free(name);
    }
    s->threads = hpr_ctx_threads(s->ctx);
}

static unsigned open_proofs(server *s)
{
    pthread_mutex_lock(&s->stats_lock);
    unsigned n = s->open_proofs;
    pthread_mutex_unlock(&s->stats_lock);
    return n;
}

/* The main thread's rounds: connections past their deadlines shut down, the running proof
 * stopped when its client has gone. */
static void watch(server *s)
{
    guard_sweep(&s->guard);
    cancel_if_client_left(s);
}

/* Waits until no POST /prove is open or cli_now_seconds passes deadline; 1 when none is. */
static int wait_for_open_proofs(server *s, double deadline)
{
    const struct timespec tick = {0, 20 * 1000 * 1000};
    while (open_proofs(s) > 0) {
        if (cli_now_seconds() >= deadline)
            return 0;
        nanosleep(&tick, NULL);
        watch(s);
    }
    return 1;
}

/* After SIGINT or SIGTERM: no new connection; the proofs running, queued or still uploading
 * finish and are answered within --drain-timeout seconds; then the rest answer 503 (a running
 * proof is cancelled) and get a few seconds to be sent. */
static void drain(server *s, struct MHD_Daemon *d)
{
    MHD_socket listen_fd = MHD_quiesce_daemon(d);
    if (listen_fd != MHD_INVALID_SOCKET)
        close(listen_fd);
    if (open_proofs(s) > 0)
        fprintf(stderr, "serve: draining: %u request(s) open, at most %u s\n", open_proofs(s), s->drain_timeout);
    if (wait_for_open_proofs(s, cli_now_seconds() + s->drain_timeout))
        return;
    s->stopping = 1;
    hpr_ctx_cancel(s->ctx);
    (void)wait_for_open_proofs(s, cli_now_seconds() + 5);
}

/* Waits for SIGINT or SIGTERM, watching the connections meanwhile; the signal's number. */
static int wait_for_stop(server *s, const sigset_t *stop)
{
    const struct timespec tick = {0, 200 * 1000 * 1000};
    int sig;
    while ((sig = sigtimedwait(stop, NULL, &tick)) < 0)
        watch(s);
    return sig;
}

/* The prover thread stops once the queue is empty; later requests answer 503. */
static void stop_prover(server *s)
{
    pthread_mutex_lock(&s->queue_lock);
    s->stopping = 1; /* a request that came after the drain: 503 */
    s->quit = 1;
    pthread_cond_broadcast(&s->queue_cond);
    pthread_mutex_unlock(&s->queue_lock);
    pthread_join(s->worker, NULL);
}

static struct MHD_Daemon *start_daemon(server *s, const struct sockaddr_in *addr)
{
    return MHD_start_daemon(
        MHD_USE_AUTO_INTERNAL_THREAD | MHD_ALLOW_SUSPEND_RESUME, 0, NULL, NULL, on_request, s,
        MHD_OPTION_THREAD_POOL_SIZE, (unsigned)2, MHD_OPTION_SOCK_ADDR, (const struct sockaddr *)addr,
        MHD_OPTION_NOTIFY_COMPLETED, on_completed, s, MHD_OPTION_NOTIFY_CONNECTION, guard_notify, &s->guard,
        MHD_OPTION_CONNECTION_LIMIT, guard_daemon_limit(&s->guard),
        MHD_OPTION_CONNECTION_TIMEOUT, s->guard.header_timeout, MHD_OPTION_LISTEN_BACKLOG_SIZE, (unsigned)511,
        MHD_OPTION_UNESCAPE_CALLBACK, unescape_keeping_nul, NULL, MHD_OPTION_END);
}

/* Serves until SIGINT or SIGTERM, then drains; SIGHUP is ignored (a server started from a
 * terminal outlives it). */
static int run(server *s, const struct sockaddr_in *addr)
{
    sigset_t stop;
    signal(SIGHUP, SIG_IGN);
    sigemptyset(&stop);
    sigaddset(&stop, SIGINT);
    sigaddset(&stop, SIGTERM);
    pthread_sigmask(SIG_BLOCK, &stop, NULL); /* the server's threads inherit the mask */
    if (pthread_create(&s->worker, NULL, prover_thread, s) != 0)
        return cli_error("cannot start the prover thread");
    struct MHD_Daemon *d = start_daemon(s, addr);
    if (!d) {
        stop_prover(s);
        return cli_error("cannot listen on %s:%u (in use, or not an address of this machine)",
                         inet_ntoa(addr->sin_addr), (unsigned)ntohs(addr->sin_port));
    }
    const union MHD_DaemonInfo *info = MHD_get_daemon_info(d, MHD_DAEMON_INFO_BIND_PORT);
    printf("hyprove: serving on http://%s:%u with %zu zkey(s)\n", inet_ntoa(addr->sin_addr),
           info ? (unsigned)info->port : (unsigned)ntohs(addr->sin_port), s->nkeys);
    fflush(stdout);
    int sig = wait_for_stop(s, &stop);
    drain(s, d);
    stop_prover(s);
    MHD_stop_daemon(d);
    printf("hyprove: stopped (%s); %llu proofs served, %llu failed, %llu abandoned by their clients, %llu turned "
           "away by the drain timeout\n",
           sig == SIGINT ? "SIGINT" : "SIGTERM", s->served, s->failed, s->abandoned, s->turned_away);
    return CLI_EXIT_OK;
}

/* The open-file limit raised (up to its hard limit) for the daemon's connections and some
 * more for the server's own files; when the hard limit is lower, the default connection cap
 * shrinks to fit (said on stderr) and one given with --max-connections is a usage error. */
static int fit_open_files(serve_guard *g, int given)
{
    struct rlimit lim;
    rlim_t need = (rlim_t)guard_daemon_limit(g) + 64;
    if (getrlimit(RLIMIT_NOFILE, &lim) != 0 || lim.rlim_cur >= need)
        return 0;
    lim.rlim_cur = lim.rlim_max == RLIM_INFINITY || lim.rlim_max >= need ? need : lim.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur >= need)
        return 0;
    if (!given && getrlimit(RLIMIT_NOFILE, &lim) == 0 && lim.rlim_cur > 64 + 16 + 64) {
        while (g->max_connections > 1 && (rlim_t)guard_daemon_limit(g) + 64 > lim.rlim_cur)
            g->max_connections--;
        if (g->max_per_client > g->max_connections)
            g->max_per_client = g->max_connections;
        fprintf(stderr, "serve: --max-connections %u (the open-file limit, ulimit -n, allows no more)\n",
                g->max_connections);
        return 0;
    }
    return cli_usage_error("serve ", "--max-connections %u needs %llu open files, over this process's limit of %llu "
                           "(ulimit -n): give a smaller --max-connections or raise the limit",
                           g->max_connections, (unsigned long long)need, (unsigned long long)lim.rlim_max);
}

/* --max-connections, --max-per-client, --header-timeout and --min-upload-rate into the guard
 * (their defaults when not given); 0, or a usage error's status. */
static int guard_options(server *s, const char *const v[4])
{
    unsigned long long conns = 1024, per_client = 256, header = 30, rate = 65536;
    if (v[0] && cli_parse_uint(v[0], 1, 60000, &conns) != 0)
        return cli_usage_error("serve ", "--max-connections '%s' is not an integer in 1..60000", v[0]);
    if (v[1] && cli_parse_uint(v[1], 1, 60000, &per_client) != 0)
        return cli_usage_error("serve ", "--max-per-client '%s' is not an integer in 1..60000", v[1]);
    if (v[2] && cli_parse_uint(v[2], 1, 3600, &header) != 0)
        return cli_usage_error("serve ", "--header-timeout '%s' is not a number of seconds in 1..3600", v[2]);
    if (v[3] && cli_parse_uint(v[3], 1, 1ull << 40, &rate) != 0)
        return cli_usage_error("serve ", "--min-upload-rate '%s' is not a byte count per second in 1..2^40", v[3]);
    if (!v[1] && per_client > conns)
        per_client = conns;
    guard_init(&s->guard, (unsigned)conns, (unsigned)per_client, (unsigned)header, rate);
    return fit_open_files(&s->guard, v[0] != NULL);
}

/* --max-request and --max-uploads (their defaults when not given) and the proofs' share of
 * the memory limit. With a limit M (--max-memory, HPR_MAX_MEMORY) the bodies held at once
 * count in it: the uploads budget defaults to M/4 (and the largest body to that), the proofs
 * get the rest (*proof_memory). Without one (*proof_memory 0) each proof is checked against
 * the memory available when it starts, which the bodies held have already taken. Otherwise
 * the budget defaults to four of the largest bodies, at least 1 GiB. 0, or a usage error. */
static int body_options(server *s, const char *max_s, const char *uploads_s, size_t *proof_memory)
{
    unsigned long long limit = 0, max_request = 256ull << 20, uploads;
    const char *env = getenv("HPR_MAX_MEMORY");
    if (env && env[0] && cli_parse_size(env, &limit) != 0)
        limit = 0; /* malformed: the context refuses it with its own error */
    if (limit && max_request > limit / 4)
        max_request = limit / 4 > 64 ? limit / 4 : 64;
    if (max_s && cli_parse_uint(max_s, 64, 1ull << 40, &max_request) != 0)
        return cli_usage_error("serve ", "--max-request '%s' is not a byte count from 64 to 2^40", max_s);
    if (limit)
        uploads = max_request > limit / 4 ? max_request : limit / 4;
    else
        uploads = max_request * 4 > (1ull << 30) ? max_request * 4 : (1ull << 30);
    if (uploads_s && cli_parse_uint(uploads_s, max_request, 1ull << 44, &uploads) != 0)
        return cli_usage_error("serve ", "--max-uploads '%s' is not a byte count from --max-request (%llu) to 2^44",
                               uploads_s, max_request);
    if (limit && uploads >= limit)
        return cli_usage_error("serve ", "the bodies held at once (%llu bytes: --max-uploads, at least --max-request) "
                               "leave nothing of the memory limit (%llu bytes, --max-memory) for the proofs",
                               uploads, limit);
    s->max_request = (size_t)max_request;
    s->uploads_budget = (size_t)uploads;
    *proof_memory = limit ? (size_t)(limit - uploads) : 0;
    return 0;
}

int cmd_serve(int argc, char **argv)
{
    const char *paths[SERVE_MAX_KEYS] = {NULL}, *listen = NULL, *max_s = NULL, *devices = NULL, *threads_s = NULL, *tier = NULL;
    const char *precompute_s = NULL, *token_file = NULL, *drain_s = NULL, *access_log = NULL, *uploads_s = NULL;
    const char *guard_v[4] = {NULL}, *witness_cmds[SERVE_MAX_KEYS] = {NULL}, *witness_timeout = NULL;
    size_t nwitness = 0;
    int no_auth = 0;
    size_t npaths = 0;
    unsigned long long precompute = 0; /* 0: the default, chosen per key */
    size_t proof_memory = 0;
    unsigned long long drain_timeout = 60;
    server s;
    struct sockaddr_in addr;
    int rc;
    memset(&s, 0, sizeof s);
    const cli_opt opts[] = {CLI_OPT_EACH("--zkey", paths, SERVE_MAX_KEYS, &npaths), CLI_OPT("--listen", &listen),
                            CLI_OPT("--max-request", &max_s), CLI_OPT("--devices", &devices), CLI_OPT("--threads", &threads_s),
                            CLI_OPT("--cpu-tier", &tier), CLI_OPT("--precompute", &precompute_s),
                            CLI_OPT_FLAG("--verify", &s.verify), CLI_OPT("--token-file", &token_file),
                            CLI_OPT_FLAG("--insecure-no-auth", &no_auth), CLI_OPT("--drain-timeout", &drain_s),
                            CLI_OPT("--access-log", &access_log), CLI_OPT("--max-uploads", &uploads_s),
                            CLI_OPT("--max-connections", &guard_v[0]), CLI_OPT("--max-per-client", &guard_v[1]),
                            CLI_OPT("--header-timeout", &guard_v[2]), CLI_OPT("--min-upload-rate", &guard_v[3]),
                            CLI_OPT_EACH("--witness-cmd", witness_cmds, SERVE_MAX_KEYS, &nwitness),
                            CLI_OPT("--witness-timeout", &witness_timeout)};
    rc = cli_parse_options(argc, argv, "serve ", serve_help, opts, sizeof opts / sizeof opts[0]);
    if (rc >= 0)
        return rc;
    if (!npaths || !listen)
        return cli_usage_error("serve ", "expected --zkey FILE and --listen ADDR:PORT");
    if (parse_listen(listen, &addr) != 0)
        return cli_usage_error("serve ", "--listen '%s' is not an IPv4 ADDR:PORT (e.g. 127.0.0.1:8080)", listen);
    if (token_file && no_auth)
        return cli_usage_error("serve ", "give --token-file or --insecure-no-auth, not both");
    if (!is_loopback(&addr) && !token_file && !no_auth)
        return cli_usage_error("serve ", "--listen '%s' is reachable from other machines: give --token-file FILE "
                               "(clients then send 'Authorization: Bearer TOKEN') or, on a network whose every "
                               "client you trust, --insecure-no-auth; there is no TLS (put a proxy in front)", listen);
    if (token_file && (rc = read_token(&s, token_file)) != 0)
        return rc;
    if (precompute_s && cli_parse_uint(precompute_s, 1, 16, &precompute) != 0)
        return cli_usage_error("serve ", "--precompute '%s' is not an integer in 1..16", precompute_s);
    if (drain_s && cli_parse_uint(drain_s, 0, 86400, &drain_timeout) != 0)
        return cli_usage_error("serve ", "--drain-timeout '%s' is not a number of seconds in 0..86400", drain_s);
    s.drain_timeout = (unsigned)drain_timeout;
    if ((rc = body_options(&s, max_s, uploads_s, &proof_memory)) != 0 || (rc = guard_options(&s, guard_v)) != 0)
        return rc;
    const char *hold = getenv("HPR_TEST_SERVE_HOLD_MS");
    s.test_hold_ms = hold ? (unsigned)strtoul(hold, NULL, 10) % 600001 : 0;
    if ((rc = cli_ctx_with_progress(devices, threads_s, tier, "serve ", on_progress, &s, 0.02, proof_memory, &s.ctx)) !=
        0) {
        guard_destroy(&s.guard);
        return rc;
    }
    pthread_mutex_init(&s.stats_lock, NULL);
    pthread_mutex_init(&s.queue_lock, NULL);
    pthread_cond_init(&s.queue_cond, NULL);
    rc = open_access_log(&s, access_log); /* after every usage check: then the cleanup below closes it */
    if (rc == 0)
        rc = open_keys(&s, paths, npaths, (unsigned)precompute);
    if (rc == 0)
        rc = ps_options(&s, witness_cmds, nwitness, witness_timeout);
    list_devices(&s);
    if (rc == 0)
        rc = run(&s, &addr);
    ps_destroy(&s);
    for (size_t i = 0; i < s.nkeys; i++)
        hpr_groth16_prover_destroy(s.keys[i].prover);
    hpr_ctx_destroy(s.ctx);
    if (s.access_log && s.access_log != stderr)
        fclose(s.access_log);
    pthread_mutex_destroy(&s.stats_lock);
    pthread_mutex_destroy(&s.queue_lock);
    pthread_cond_destroy(&s.queue_cond);
    guard_destroy(&s.guard);
    return rc;
}

#else

#define SERVE_MAX_KEYS 16 /* as serve.h */

int cmd_serve(int argc, char **argv)
{
    const char *paths[SERVE_MAX_KEYS], *cmds[SERVE_MAX_KEYS], *value[15] = {NULL};
    size_t ncmds = 0;
    size_t npaths = 0;
    int verify = 0, no_auth = 0;
    const cli_opt opts[] = {CLI_OPT_EACH("--zkey", paths, SERVE_MAX_KEYS, &npaths), CLI_OPT("--listen", &value[0]),
                            CLI_OPT("--max-request", &value[1]), CLI_OPT("--devices", &value[2]), CLI_OPT("--threads", &value[3]),
                            CLI_OPT("--cpu-tier", &value[4]), CLI_OPT("--precompute", &value[5]),
                            CLI_OPT_FLAG("--verify", &verify), CLI_OPT("--token-file", &value[6]),
                            CLI_OPT_FLAG("--insecure-no-auth", &no_auth), CLI_OPT("--drain-timeout", &value[7]),
                            CLI_OPT("--access-log", &value[8]), CLI_OPT("--max-uploads", &value[9]),
                            CLI_OPT("--max-connections", &value[10]), CLI_OPT("--max-per-client", &value[11]),
                            CLI_OPT("--header-timeout", &value[12]), CLI_OPT("--min-upload-rate", &value[13]),
                            CLI_OPT_EACH("--witness-cmd", cmds, SERVE_MAX_KEYS, &ncmds),
                            CLI_OPT("--witness-timeout", &value[14])};
    int rc = cli_parse_options(argc, argv, "serve ", serve_help, opts, sizeof opts / sizeof opts[0]);
    if (rc >= 0)
        return rc;
    return cli_error("this hyprove was built without libmicrohttpd: install libmicrohttpd-dev "
                     "(scripts/install-deps.sh does) and rebuild to get `hyprove serve`");
}

#endif
