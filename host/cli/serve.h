/*
 * serve.h: the state of `hyprove serve` shared by its files: cmd_serve.c (HTTP, the prover
 * thread, options), serve_guard.c (connections) and serve_rapidsnark.c (rapidsnark's
 * proverServer API).
 *
 * Contract: fields marked with a lock are read and written under it; the lock order is
 * queue_lock, then stats_lock (never the other way).
 */
#ifndef HPR_CLI_SERVE_H
#define HPR_CLI_SERVE_H

#include "cli.h"
#include "serve_guard.h"

#include <microhttpd.h>
#include <pthread.h>
#include <stdarg.h>
#include <time.h>

#define SERVE_MAX_KEYS 16
#define SERVE_MAX_TOKEN 512

typedef struct ps_state ps_state; /* serve_rapidsnark.c */

typedef struct {
    char name[128];
    hpr_groth16_prover *prover;
    unsigned long long served, failed, abandoned; /* under the server's stats_lock */
    double prove_seconds;
} serve_key;

#define SERVE_NCODES 10 /* the statuses counted for /metrics (cmd_serve.c's serve_codes) */

typedef struct request request;

typedef struct {
    hpr_ctx *ctx;
    serve_key keys[SERVE_MAX_KEYS];
    size_t nkeys, max_request;
    int verify;
    char token[SERVE_MAX_TOKEN + 1]; /* --token-file's; empty: none required */
    char devices[HPR_REPORT_MAX_DEVICES + 1][300]; /* for /status, read once at the start */
    size_t ndevices;
    unsigned threads;
    pthread_mutex_t stats_lock;
    serve_guard guard; /* the connections' limits and deadlines */
    /* The prover thread's queue (queue_lock): whole POST /prove requests, their connections
     * suspended until the answer is ready. */
    pthread_mutex_t queue_lock;
    pthread_cond_t queue_cond;
    request *queue_head, *queue_tail;
    request *proving;    /* the request being proved, or NULL */
    int quit, worker_done; /* quit: stop when the queue is empty; worker_done: it has stopped */
    pthread_t worker;
    char phase[32];          /* the running proof's phase and fraction (stats_lock), for /status */
    double fraction;
    unsigned reports;        /* progress reports of the running proof (stats_lock) */
    unsigned test_hold_ms;   /* HPR_TEST_SERVE_HOLD_MS (on_progress) */
    unsigned waiting, running, open_proofs; /* open_proofs: POST /prove requests not yet completed */
    unsigned long long served, failed, abandoned, turned_away;
    volatile int stopping; /* the drain timeout has passed: requests not yet proved answer 503 */
    unsigned drain_timeout;
    unsigned long long answers[SERVE_NCODES]; /* by serve_codes, under stats_lock */
    size_t uploads_held, uploads_budget;      /* bytes reserved for bodies in flight (stats_lock), the cap */
    FILE *access_log;                         /* NULL: none; written under stats_lock */
    ps_state *ps; /* rapidsnark's proverServer API (serve_rapidsnark.c); NULL without --witness-cmd */
} server;

struct request {
    unsigned char *body;
    size_t len, cap;
    int too_large, counted, over_budget; /* counted: in open_proofs */
    size_t reserved;                     /* bytes of the server's uploads budget held for this body */
    size_t dropped;                      /* bytes of it read and dropped (past a limit) */
    unsigned refuse; /* an HTTP status decided from the headers: the body is dropped, then it is answered */
    char why[400];
    /* for the access log */
    double start;              /* the headers' arrival (cli_now_seconds) */
    double queue_ms, prove_ms; /* waiting for the context, proving (and verifying) */
    unsigned code;             /* the answer's status, 0: none sent */
    size_t bytes_out;
    char method[16], path[128];
    const char *zkey; /* the key's name, or NULL */
    /* a queued proof: its connection (suspended), key, place in the queue and answer */
    struct MHD_Connection *conn;
    serve_key *key;
    request *next;
    double queued_at;
    int ready, drop;  /* the answer is ready (ready_code, ready_body); drop: close instead (the client left) */
    int client_left;  /* seen gone while its proof ran (queue_lock): the proof was cancelled */
    int close;        /* answer with Connection: close */
    unsigned ready_code;
    char *ready_body;
    unsigned long long job; /* a proverServer job's number (no connection: conn NULL); 0: a POST /prove */
};

/* A body may carry SERVE_WTNS_SLACK bytes more than serve_witness_bytes (sections the .wtns
 * reader skips), never fewer. */
#define SERVE_WTNS_SLACK 65536

/* The bytes of the smallest .wtns for k (and its nVars into *n_vars): the file's header, the
 * witness header section and nVars values (snarkjs's layout; FORMATS.md), with 32-byte values
 * (the scalar field of BN254 and of BLS12-381). */
size_t serve_witness_bytes(const serve_key *k, size_t *n_vars);

/* The key named name, or with name NULL the only key when one is loaded; NULL otherwise. */
serve_key *serve_find_key(server *s, const char *name);

/* Queues r for the prover thread (its connection, if any, suspended until the answer): 1,
 * or 0 when the prover thread has stopped (nothing queued). */
int serve_enqueue(server *s, request *r);

/* The request's answer: body (malloc'd, taken; NULL without memory) with the HTTP status (and
 * the Content-Type type; serve_reply: JSON), recorded in r for the access log. */
enum MHD_Result serve_reply_as(struct MHD_Connection *c, request *r, unsigned code, char *body, const char *type);
enum MHD_Result serve_reply(struct MHD_Connection *c, request *r, unsigned code, char *body);
enum MHD_Result serve_reply_error(struct MHD_Connection *c, request *r, unsigned code, const char *fmt, ...);
/* {"error": "..."} (malloc'd; NULL without memory); s with '"', '\' and control characters
 * escaped for a JSON string (malloc'd). */
char *serve_error_json(const char *fmt, va_list ap);
char *serve_json_escape(const char *s);
/* Appends to buf (cap bytes, *used taken), never past its end. */
void serve_put(char *buf, size_t cap, size_t *used, const char *fmt, ...);

/* rapidsnark's proverServer API (serve_rapidsnark.c), on with --witness-cmd. */
/* --witness-cmd NAME=PROGRAM [ARG...] (n of them, each NAME a loaded zkey's) and
 * --witness-timeout S into s->ps (NULL when n is 0): 0, or a usage error's exit status. */
int ps_options(server *s, const char *const *cmds, size_t n, const char *timeout_s);
/* Aborts the job (its program killed), joins its thread, frees s->ps. After the daemon stops. */
void ps_destroy(server *s);
/* Whether url is one of the API's (POST /input/NAME, POST /cancel) and the API is on. */
int ps_path(const server *s, const char *url);
/* Answers POST /input/NAME (its body whole in r: r->body is taken) or POST /cancel. */
enum MHD_Result ps_request(server *s, struct MHD_Connection *c, request *r, const char *url);
/* Whether job is the current job, still running. */
int ps_job_current(server *s, unsigned long long job);
/* The result of job (dropped unless it is current): HPR_OK with the proof's and the public
 * signals' JSON, HPR_ERR_CANCELLED (aborted), else failed with detail. */
void ps_job_finished(server *s, unsigned long long job, hpr_status st, const char *pj, const char *uj,
                     const char *detail);
/* /status's proverServer fields ("status": ..., and "proof" and "pubData" or "error"), malloc'd. */
char *ps_status_fields(server *s);

#endif
