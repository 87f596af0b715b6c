/*
 * serve_http.c: the answers and the queue of `hyprove serve`, below its request handling
 * (cmd_serve.c) and its proverServer API (serve_rapidsnark.c), which both use them.
 */
#define _POSIX_C_SOURCE 200809L
#include "serve.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* s with '"', '\' and control characters escaped for a JSON string (malloc'd). */
char *serve_json_escape(const char *s)
{
    size_t n = strlen(s);
    char *out = malloc(6 * n + 1), *o = out;
    if (!out)
        return NULL;
    for (; *s; s++) {
        unsigned char c = (unsigned char)*s;
        if (c == '"' || c == '\\') {
            *o++ = '\\';
            *o++ = (char)c;
        } else if (c < 0x20) {
            o += sprintf(o, "\\u%04x", c);
        } else {
            *o++ = (char)c;
        }
    }
    *o = '\0';
    return out;
}

/* Queues body (malloc'd, taken) as the answer, recorded in r for the access log. */
enum MHD_Result serve_reply_as(struct MHD_Connection *c, request *r, unsigned code, char *body, const char *type)
{
    if (!body)
        return MHD_NO;
    struct MHD_Response *resp = MHD_create_response_from_buffer(strlen(body), body, MHD_RESPMEM_MUST_FREE);
    if (!resp) {
        free(body);
        return MHD_NO;
    }
    r->code = code;
    r->bytes_out = strlen(body);
    MHD_add_response_header(resp, "Content-Type", type);
    if (code == MHD_HTTP_UNAUTHORIZED)
        MHD_add_response_header(resp, "WWW-Authenticate", "Bearer");
    if (code == MHD_HTTP_SERVICE_UNAVAILABLE)
        MHD_add_response_header(resp, "Retry-After", "5");
    if (r->close)
        MHD_add_response_header(resp, MHD_HTTP_HEADER_CONNECTION, "close");
    enum MHD_Result ok = MHD_queue_response(c, code, resp);
    MHD_destroy_response(resp);
    return ok;
}

enum MHD_Result serve_reply(struct MHD_Connection *c, request *r, unsigned code, char *body)
{
    return serve_reply_as(c, r, code, body, "application/json");
}

/* {"error": "..."} (malloc'd; NULL without memory). */
char *serve_error_json(const char *fmt, va_list ap)
{
    char msg[1024], *esc, *body;
    vsnprintf(msg, sizeof msg, fmt, ap);
    if (!(esc = serve_json_escape(msg)))
        return NULL;
    body = malloc(strlen(esc) + 16);
    if (body)
        sprintf(body, "{\"error\": \"%s\"}", esc);
    free(esc);
    return body;
}

enum MHD_Result serve_reply_error(struct MHD_Connection *c, request *r, unsigned code, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    char *body = serve_error_json(fmt, ap);
    va_end(ap);
    return serve_reply(c, r, code, body);
}

/* Appends to buf (cap bytes, *used of them taken): what does not fit is cut off, never written
 * past the end (the callers size buf for the longest answer). */
void serve_put(char *buf, size_t cap, size_t *used, const char *fmt, ...)
{
    va_list ap;
    if (*used + 1 >= cap)
        return;
    va_start(ap, fmt);
    int n = vsnprintf(buf + *used, cap - *used, fmt, ap);
    va_end(ap);
    if (n > 0)
        *used = *used + (size_t)n < cap ? *used + (size_t)n : cap - 1;
}

size_t serve_witness_bytes(const serve_key *k, size_t *n_vars)
{
    size_t domain, pub;
    hpr_groth16_prover_sizes(k->prover, &domain, n_vars, &pub);
    return 12 + (12 + 4 + 32 + 4) + (12 + 32 * *n_vars);
}

serve_key *serve_find_key(server *s, const char *name)
{
    if (!name)
        return s->nkeys == 1 ? &s->keys[0] : NULL;
    for (size_t i = 0; i < s->nkeys; i++)
        if (strcmp(s->keys[i].name, name) == 0)
            return &s->keys[i];
    return NULL;
}

int serve_enqueue(server *s, request *r)
{
    r->queued_at = cli_now_seconds();
    pthread_mutex_lock(&s->queue_lock);
    int open = !s->worker_done;
    if (open) {
        if (r->conn)
            MHD_suspend_connection(r->conn); /* before the prover thread can see it and resume it */
        if (s->queue_tail)
            s->queue_tail->next = r;
        else
            s->queue_head = r;
        s->queue_tail = r;
        pthread_mutex_lock(&s->stats_lock);
        s->waiting++;
        pthread_mutex_unlock(&s->stats_lock);
        pthread_cond_signal(&s->queue_cond);
    }
    pthread_mutex_unlock(&s->queue_lock);
    return open;
}
