/*
 * serve_guard.c: limits and deadlines for the connections of `hyprove serve`.
 *
 * What: every connection the daemon accepts is tracked here (guard_notify) with its client
 * address and phase. One over --max-connections in all, or over --max-per-client from its
 * address, is answered 503 with Retry-After when its headers come (the daemon takes up to
 * guard_daemon_limit connections, a margin over the cap, so that the answer can be sent; past
 * it the daemon closes new ones at once). A request's headers must arrive within
 * --header-timeout seconds of the connection (or of the previous request's end); its body
 * within that allowance plus its length at --min-upload-rate bytes per second (a body without
 * Content-Length: the bytes so far at that rate). guard_sweep shuts such connections down.
 * Why: the daemon's own timeout restarts on every byte, so a client sending one byte a
 * second held a connection for ever (slowloris); with the limits, idle or slow sockets cost a
 * connection slot for a bounded time and never lock the server for the others.
 * Method: a list under one lock (connections are at most some thousands; each check is a
 * walk, made at accept and every sweep). A deadline shuts the socket down (shutdown(2), the
 * descriptor stays the daemon's: it sees the end and closes it, calling guard_notify's CLOSED
 * first, which takes the lock; so no descriptor is shut down after the daemon closed it and
 * the number could be reused).
 */
#define _POSIX_C_SOURCE 200809L
#include "serve_guard.h"
#include "cli_util.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/socket.h>

#define GUARD_OVER_HEADER_S 5 /* an over-limit connection's time for the headers of its 503 */

struct guard_conn {
    guard_conn *prev, *next;
    serve_guard *guard;
    int fd;
    uint32_t client;       /* IPv4 address (network order); 0: another family */
    int over;              /* 1: over max_connections, 2: over max_per_client (at accept) */
    int cut;               /* shut down by a deadline */
    guard_phase phase;
    double since;          /* the phase's start (cli_now_seconds) */
    unsigned long long expected, received; /* the body's announced length (0: unknown), bytes so far */
};

void guard_init(serve_guard *g, unsigned max_connections, unsigned max_per_client, unsigned header_timeout,
                unsigned long long min_rate)
{
    pthread_mutex_init(&g->lock, NULL);
    g->head = NULL;
    g->open = 0;
    g->max_connections = max_connections;
    g->max_per_client = max_per_client;
    g->header_timeout = header_timeout;
    g->min_rate = min_rate;
    g->refused = g->cut_headers = g->cut_body = 0;
}

void guard_destroy(serve_guard *g)
{
    pthread_mutex_destroy(&g->lock);
}

unsigned guard_daemon_limit(const serve_guard *g)
{
    unsigned margin = g->max_connections / 4 > 16 ? g->max_connections / 4 : 16;
    return g->max_connections + margin;
}

static void enter(guard_conn *k, guard_phase phase)
{
    k->phase = phase;
    k->since = cli_now_seconds();
}

/* The new connection's limit: 1 over max_connections, 2 over max_per_client, else 0. Under lock. */
static int limit_of(const serve_guard *g, const guard_conn *k)
{
    unsigned same = 0;
    if (g->open > g->max_connections)
        return 1;
    for (const guard_conn *o = g->head; o && k->client; o = o->next)
        same += o->client == k->client && !o->over;
    return same > g->max_per_client ? 2 : 0;
}

static void track(serve_guard *g, struct MHD_Connection *c, void **socket_context)
{
    const union MHD_ConnectionInfo *fd = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CONNECTION_FD);
    const union MHD_ConnectionInfo *addr = MHD_get_connection_info(c, MHD_CONNECTION_INFO_CLIENT_ADDRESS);
    guard_conn *k = calloc(1, sizeof *k);
    if (!k)
        return; /* untracked: no limit or deadline of ours (the daemon's timeout still holds) */
    k->guard = g;
    k->fd = fd ? fd->connect_fd : -1;
    if (addr && addr->client_addr && addr->client_addr->sa_family == AF_INET)
        k->client = ((const struct sockaddr_in *)addr->client_addr)->sin_addr.s_addr;
    enter(k, GUARD_HEADERS);
    pthread_mutex_lock(&g->lock);
    k->next = g->head;
    if (g->head)
        g->head->prev = k;
    g->head = k;
    g->open++;
    k->over = limit_of(g, k);
    pthread_mutex_unlock(&g->lock);
    *socket_context = k;
}

static void untrack(serve_guard *g, guard_conn *k)
{
    pthread_mutex_lock(&g->lock);
    if (k->prev)
        k->prev->next = k->next;
    else
        g->head = k->next;
    if (k->next)
        k->next->prev = k->prev;
    g->open--;
    pthread_mutex_unlock(&g->lock);
    free(k);
}

void guard_notify(void *cls, struct MHD_Connection *c, void **socket_context, enum MHD_ConnectionNotificationCode code)
{
    if (code == MHD_CONNECTION_NOTIFY_STARTED)
        track(cls, c, socket_context);
    else if (*socket_context) {
        untrack(cls, *socket_context);
        *socket_context = NULL;
    }
}

static guard_conn *conn_of(struct MHD_Connection *c)
{
    const union MHD_ConnectionInfo *info = MHD_get_connection_info(c, MHD_CONNECTION_INFO_SOCKET_CONTEXT);
    return info ? info->socket_context : NULL;
}

int guard_over_limit(struct MHD_Connection *c, char *why, size_t len)
{
    guard_conn *k = conn_of(c);
    if (!k || !k->over)
        return 0;
    serve_guard *g = k->guard;
    pthread_mutex_lock(&g->lock);
    g->refused++;
    pthread_mutex_unlock(&g->lock);
    if (k->over == 1)
        snprintf(why, len, "the server holds its limit of %u connections (--max-connections): try again shortly",
                 g->max_connections);
    else
        snprintf(why, len, "this client holds its limit of %u connections (--max-per-client): close some or "
                 "try again shortly", g->max_per_client);
    return 1;
}

/* Moves c's connection to phase (and its body's counts), under the guard's lock. */
static void move(struct MHD_Connection *c, guard_phase phase, unsigned long long expected, size_t received)
{
    guard_conn *k = conn_of(c);
    if (!k)
        return;
    pthread_mutex_lock(&k->guard->lock);
    if (k->phase != phase) {
        enter(k, phase);
        k->expected = expected;
        k->received = 0;
    }
    k->received += received;
    pthread_mutex_unlock(&k->guard->lock);
}

void guard_body_started(struct MHD_Connection *c, unsigned long long expected)
{
    move(c, GUARD_BODY, expected, 0);
}

void guard_body_received(struct MHD_Connection *c, size_t bytes)
{
    move(c, GUARD_BODY, 0, bytes);
}

void guard_hold(struct MHD_Connection *c)
{
    move(c, GUARD_HELD, 0, 0);
}

void guard_next_request(struct MHD_Connection *c)
{
    move(c, GUARD_HEADERS, 0, 0);
}

/* Whether k is past its deadline: 1 the headers', 2 the body's, else 0. Under lock. */
static int overdue(const serve_guard *g, const guard_conn *k)
{
    double t = cli_now_seconds() - k->since, allowance = g->header_timeout;
    if (k->phase == GUARD_HEADERS)
        return t > (k->over && allowance > GUARD_OVER_HEADER_S ? GUARD_OVER_HEADER_S : allowance) ? 1 : 0;
    if (k->phase == GUARD_BODY) {
        unsigned long long bytes = k->expected > k->received ? k->expected : k->received;
        return t > allowance + (double)bytes / (double)g->min_rate ? 2 : 0;
    }
    return 0;
}

void guard_sweep(serve_guard *g)
{
    pthread_mutex_lock(&g->lock);
    for (guard_conn *k = g->head; k; k = k->next) {
        int why = k->cut || k->fd < 0 ? 0 : overdue(g, k);
        if (!why)
            continue;
        shutdown(k->fd, SHUT_RDWR);
        k->cut = 1;
        if (why == 1)
            g->cut_headers++;
        else
            g->cut_body++;
    }
    pthread_mutex_unlock(&g->lock);
}
