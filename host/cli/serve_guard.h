/*
 * serve_guard.h: the connections of `hyprove serve`: how many, from whom, and how long each
 * may take to send its request (serve_guard.c says why).
 *
 * Contract: guard_notify is the daemon's MHD_OPTION_NOTIFY_CONNECTION callback (with the
 * guard as its closure); the guard_* calls that take a connection are made from the daemon's
 * callbacks for that connection; guard_sweep from any one other thread, every few hundred
 * milliseconds. Every call is thread-safe (the guard's lock).
 */
#ifndef HPR_CLI_SERVE_GUARD_H
#define HPR_CLI_SERVE_GUARD_H

#include <microhttpd.h>
#include <pthread.h>
#include <stdint.h>

typedef enum {
    GUARD_HEADERS, /* waiting for a request's headers (a new or kept-alive connection) */
    GUARD_BODY,    /* the headers came, the body is arriving */
    GUARD_HELD     /* the request is whole: queued, proving or answering; no deadline */
} guard_phase;

typedef struct guard_conn guard_conn;

typedef struct {
    pthread_mutex_t lock;
    guard_conn *head;
    unsigned open;             /* connections open now */
    unsigned max_connections;  /* more are answered 503 (up to the daemon's limit, then closed) */
    unsigned max_per_client;   /* the same, per client address */
    unsigned header_timeout;   /* seconds for a request's headers; the allowance before a body's rate */
    unsigned long long min_rate; /* bytes per second a body must keep up, after header_timeout */
    unsigned long long refused, cut_headers, cut_body; /* counters, under lock */
} serve_guard;

void guard_init(serve_guard *g, unsigned max_connections, unsigned max_per_client, unsigned header_timeout,
                unsigned long long min_rate);
void guard_destroy(serve_guard *g);

/* The connection limit to give the daemon: max_connections and room to answer 503 to more. */
unsigned guard_daemon_limit(const serve_guard *g);

void guard_notify(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code);

/* Why c is to be answered 503 (over a limit when it connected) into why; 0 when it is not. */
int guard_over_limit(struct MHD_Connection *c, char *why, size_t len);

/* The request's headers came; its body announces expected bytes (0: unknown or none). */
void guard_body_started(struct MHD_Connection *c, unsigned long long expected);
void guard_body_received(struct MHD_Connection *c, size_t bytes);
/* The request is whole (no deadline until it completes). */
void guard_hold(struct MHD_Connection *c);
/* The request completed: a kept-alive connection waits for the next one's headers. */
void guard_next_request(struct MHD_Connection *c);

/* Shuts down (SHUT_RDWR) each connection past its deadline: the daemon then closes it. */
void guard_sweep(serve_guard *g);

#endif
