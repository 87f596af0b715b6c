/*
 * serve_rapidsnark.c: rapidsnark's proverServer API in `hyprove serve` (--witness-cmd).
 *
 * What: POST /input/NAME with a circuit's input JSON starts a job: NAME's witness program
 * computes the .wtns, then the server's prover thread proves it with zkey NAME. The program
 * runs without a shell as PROGRAM ARG... INPUT.json OUTPUT.wtns (circom's C++ witness binary
 * and `node generate_witness.js circuit.wasm` both take that form, as does `snarkjs wtns
 * calculate circuit.wasm`), in its own process group, with stdin from /dev/null, its output
 * logged on the server's stderr, for at most --witness-timeout seconds and a .wtns of at most
 * the zkey's witness size. GET /status carries proverServer's fields: "status" (ready, busy,
 * success, failed or aborted), "proof" and "pubData" (the proof's and the public signals' JSON,
 * as strings) after a success, "error" after a failure; POST /cancel aborts the job. One job
 * at a time, as proverServer: a new input aborts the running job and starts its own.
 * Why: deployments of circom provers run proverServer; a client written for it switches to
 * hyprove by changing only the address. Written from the protocol (its requests and the
 * answers' fields), not from proverServer's code.
 * Method: every job has a number; cancelling or replacing a job makes its number stale, so
 * its program's end, its queued proof and its result are dropped when they come (a result of
 * an old job never overwrites a newer state). The witness program runs on a thread of its own
 * (one at a time: a replaced one is killed and its thread joined first); the proof runs on the
 * prover thread, in turn with POST /prove requests, and is stopped through the context's
 * cancel flag when its job is cancelled.
 */
#define _GNU_SOURCE /* pipe2 */
#include "serve.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define PS_MAX_ARGS 32
#define PS_LOG_BYTES 65536 /* of a program's output logged, per job */
#define PS_HEAD 300        /* the start of its output kept for the error (where the reason is) */

typedef enum { PS_READY, PS_BUSY, PS_SUCCESS, PS_FAILED, PS_ABORTED } ps_status;
static const char *const ps_status_names[] = {"ready", "busy", "success", "failed", "aborted"};

typedef struct {
    char name[128];
    char *line;                   /* the command, split in place */
    char *argv[PS_MAX_ARGS + 3];  /* PROGRAM ARG..., then the input and output paths, NULL */
    size_t argc;
} ps_cmd;

struct ps_state {
    ps_cmd cmds[SERVE_MAX_KEYS];
    size_t ncmds;
    unsigned timeout_s;
    pthread_mutex_t lock;       /* the fields below */
    pthread_mutex_t start_lock; /* one POST /input at a time replaces the witness thread */
    ps_status status;
    unsigned long long job; /* the current job's number */
    char *proof, *pub;      /* after a success: the JSON texts */
    char error[800];        /* after a failure */
    pid_t child;            /* the current job's witness program, 0: none */
    pthread_t thread;       /* the latest witness thread (has_thread: not yet joined) */
    int has_thread;
};

typedef struct {
    server *s;
    unsigned long long job;
    serve_key *key;
    const ps_cmd *cmd;
    unsigned char *input;
    size_t len;
    char dir[64];
} ps_work;

static ps_cmd *find_cmd(ps_state *ps, const char *name)
{
    for (size_t i = 0; ps && i < ps->ncmds; i++)
        if (strcmp(ps->cmds[i].name, name) == 0)
            return &ps->cmds[i];
    return NULL;
}

/* "NAME=PROGRAM ARG..." into c, split on spaces and tabs (no quoting: no shell). */
static int parse_cmd(server *s, const char *arg, ps_cmd *c)
{
    const char *eq = strchr(arg, '=');
    if (!eq || eq == arg || (size_t)(eq - arg) >= sizeof c->name)
        return cli_usage_error("serve ", "--witness-cmd '%s' is not NAME=PROGRAM [ARG...]", arg);
    snprintf(c->name, sizeof c->name, "%.*s", (int)(eq - arg), arg);
    if (!serve_find_key(s, c->name))
        return cli_usage_error("serve ", "--witness-cmd '%s': no --zkey is named '%s'", arg, c->name);
    if (!(c->line = strdup(eq + 1)))
        return cli_error("no memory");
    for (char *tok = strtok(c->line, " \t"); tok; tok = strtok(NULL, " \t")) {
        if (c->argc == PS_MAX_ARGS)
            return cli_usage_error("serve ", "--witness-cmd '%s': more than %d words", arg, PS_MAX_ARGS);
        c->argv[c->argc++] = tok;
    }
    if (!c->argc)
        return cli_usage_error("serve ", "--witness-cmd '%s' names no program", arg);
    return 0;
}

int ps_options(server *s, const char *const *cmds, size_t n, const char *timeout_s)
{
    unsigned long long timeout = 600;
    if (!n)
        return timeout_s ? cli_usage_error("serve ", "--witness-timeout needs --witness-cmd") : 0;
    if (timeout_s && cli_parse_uint(timeout_s, 1, 86400, &timeout) != 0)
        return cli_usage_error("serve ", "--witness-timeout '%s' is not a number of seconds in 1..86400", timeout_s);
    if (!(s->ps = calloc(1, sizeof *s->ps)))
        return cli_error("no memory");
    pthread_mutex_init(&s->ps->lock, NULL);
    pthread_mutex_init(&s->ps->start_lock, NULL);
    s->ps->timeout_s = (unsigned)timeout;
    for (size_t i = 0; i < n; i++) {
        int rc = parse_cmd(s, cmds[i], &s->ps->cmds[s->ps->ncmds++]);
        if (rc)
            return rc;
        if (find_cmd(s->ps, s->ps->cmds[i].name) != &s->ps->cmds[i])
            return cli_usage_error("serve ", "two --witness-cmd for '%s'", s->ps->cmds[i].name);
    }
    return 0;
}

/* Under ps->lock: the current job stops being current (its program killed). */
static void end_job(ps_state *ps, ps_status status)
{
    ps->status = status;
    ps->job++;
    if (ps->child > 0)
        kill(-ps->child, SIGKILL);
}

/* A proof of a job that is no longer current is stopped (the prover thread's request). */
static void stop_stale_proof(server *s)
{
    pthread_mutex_lock(&s->queue_lock);
    request *r = s->proving;
    if (r && r->job && !ps_job_current(s, r->job) && !r->client_left) {
        r->client_left = 1;
        hpr_ctx_cancel(s->ctx);
    }
    pthread_mutex_unlock(&s->queue_lock);
}

void ps_destroy(server *s)
{
    ps_state *ps = s->ps;
    if (!ps)
        return;
    pthread_mutex_lock(&ps->lock);
    end_job(ps, PS_ABORTED);
    pthread_mutex_unlock(&ps->lock);
    if (ps->has_thread)
        pthread_join(ps->thread, NULL);
    for (size_t i = 0; i < ps->ncmds; i++)
        free(ps->cmds[i].line);
    free(ps->proof);
    free(ps->pub);
    pthread_mutex_destroy(&ps->lock);
    pthread_mutex_destroy(&ps->start_lock);
    free(ps);
    s->ps = NULL;
}

int ps_job_current(server *s, unsigned long long job)
{
    pthread_mutex_lock(&s->ps->lock);
    int current = job == s->ps->job && s->ps->status == PS_BUSY;
    pthread_mutex_unlock(&s->ps->lock);
    return current;
}

void ps_job_finished(server *s, unsigned long long job, hpr_status st, const char *pj, const char *uj,
                     const char *detail)
{
    ps_state *ps = s->ps;
    pthread_mutex_lock(&ps->lock);
    if (job == ps->job && ps->status == PS_BUSY) {
        ps->status = st == HPR_OK ? PS_SUCCESS : st == HPR_ERR_CANCELLED ? PS_ABORTED : PS_FAILED;
        if (st == HPR_OK && (!(ps->proof = strdup(pj)) || !(ps->pub = strdup(uj)))) {
            ps->status = PS_FAILED;
            detail = "no memory for the proof";
        }
        if (ps->status != PS_SUCCESS)
            snprintf(ps->error, sizeof ps->error, "%s", detail);
    }
    pthread_mutex_unlock(&ps->lock);
}

/* "\"status\": ..., \"proof\": ..., \"pubData\": ..., \"error\": ..." (malloc'd; NULL without memory). */
char *ps_status_fields(server *s)
{
    ps_state *ps = s->ps;
    pthread_mutex_lock(&ps->lock);
    char *proof = ps->status == PS_SUCCESS ? serve_json_escape(ps->proof) : NULL;
    char *pub = ps->status == PS_SUCCESS ? serve_json_escape(ps->pub) : NULL;
    char *error = ps->status == PS_FAILED ? serve_json_escape(ps->error) : NULL;
    size_t cap = 64 + (proof ? strlen(proof) : 0) + (pub ? strlen(pub) : 0) + (error ? strlen(error) : 0), used = 0;
    char *out = malloc(cap);
    if (out) {
        serve_put(out, cap, &used, "\"status\": \"%s\"", ps_status_names[ps->status]);
        if (proof && pub)
            serve_put(out, cap, &used, ", \"proof\": \"%s\", \"pubData\": \"%s\"", proof, pub);
        if (error)
            serve_put(out, cap, &used, ", \"error\": \"%s\"", error);
    }
    pthread_mutex_unlock(&ps->lock);
    free(proof);
    free(pub);
    free(error);
    return out;
}

static enum MHD_Result reply_status(server *s, struct MHD_Connection *c, request *r)
{
    char *fields = ps_status_fields(s), *body = fields ? malloc(strlen(fields) + 3) : NULL;
    if (body)
        sprintf(body, "{%s}", fields);
    free(fields);
    return serve_reply(c, r, 200, body);
}

/* Logs a program's output on stderr ("serve: witness NAME: ..."), at most PS_LOG_BYTES, and
 * keeps its first PS_HEAD bytes in head. */
static void log_output(const ps_work *w, const char *buf, size_t n, size_t *logged, char *head)
{
    if (*logged < PS_LOG_BYTES) {
        size_t show = n < PS_LOG_BYTES - *logged ? n : PS_LOG_BYTES - *logged;
        fprintf(stderr, "serve: witness %s: %.*s%s", w->cmd->name, (int)show, buf,
                show && buf[show - 1] == '\n' ? "" : "\n");
        *logged += show;
    }
    size_t kept = strlen(head), more = n < PS_HEAD - 1 - kept ? n : PS_HEAD - 1 - kept;
    memcpy(head + kept, buf, more);
    head[kept + more] = '\0';
}

/* Runs the program (its output read from fd until it ends, the deadline passes or the .wtns
 * grows past limit bytes: then it is killed); why says what went wrong, "" when it exited 0. */
static void watch_program(ps_work *w, pid_t pid, int fd, const char *out, size_t limit, char *why, size_t len)
{
    char buf[4096], head[PS_HEAD] = "";
    const struct timespec tick = {0, 100 * 1000 * 1000};
    size_t logged = 0;
    struct stat st;
    int status = 0, open_fd = 1, killed = 0, exited = 0;
    double t0 = cli_now_seconds();
    for (;;) {
        struct pollfd p = {fd, POLLIN, 0};
        int ready = open_fd ? poll(&p, 1, exited ? 0 : 100) : 0;
        if (ready > 0) {
            ssize_t n = read(fd, buf, sizeof buf);
            if (n > 0)
                log_output(w, buf, (size_t)n, &logged, head);
            else if (n == 0 || errno != EINTR)
                open_fd = 0;
        } else if (exited) {
            break; /* ended, and its output read (a descendant holding the pipe is not waited for) */
        } else if (!open_fd) {
            nanosleep(&tick, NULL);
        }
        if (!exited)
            exited = waitpid(pid, &status, WNOHANG) == pid;
        if (!exited && cli_now_seconds() - t0 > w->s->ps->timeout_s)
            killed = 1;
        else if (!exited && stat(out, &st) == 0 && (size_t)st.st_size > limit)
            killed = 2;
        if (killed)
            break;
    }
    if (killed) {
        kill(-pid, SIGKILL);
        while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
            ;
    }
    why[0] = '\0';
    if (killed == 1)
        snprintf(why, len, "the witness program ran past --witness-timeout %u s", w->s->ps->timeout_s);
    else if (killed == 2)
        snprintf(why, len, "the witness program wrote more than the %zu bytes of zkey '%s''s witness", limit,
                 w->key->name);
    else if (WIFSIGNALED(status))
        snprintf(why, len, "the witness program was killed by signal %d", WTERMSIG(status));
    else if (WEXITSTATUS(status) != 0)
        snprintf(why, len, "the witness program exited with status %d: %s", WEXITSTATUS(status), head);
}

/* Starts the program on the job's files: its pid (its own process group), or -1 with why. */
static pid_t spawn_program(char *const argv[], int out_fd, char *why, size_t len)
{
    posix_spawn_file_actions_t fa;
    posix_spawnattr_t attr;
    pid_t pid = -1;
    posix_spawn_file_actions_init(&fa);
    posix_spawnattr_init(&attr);
    posix_spawn_file_actions_addopen(&fa, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
    posix_spawn_file_actions_adddup2(&fa, out_fd, STDOUT_FILENO);
    posix_spawn_file_actions_adddup2(&fa, out_fd, STDERR_FILENO);
    posix_spawnattr_setflags(&attr, POSIX_SPAWN_SETPGROUP);
    posix_spawnattr_setpgroup(&attr, 0);
    extern char **environ;
    int err = posix_spawnp(&pid, argv[0], &fa, &attr, argv, environ);
    if (err)
        snprintf(why, len, "cannot start the witness program '%s': %s", argv[0], strerror(err));
    posix_spawn_file_actions_destroy(&fa);
    posix_spawnattr_destroy(&attr);
    return err ? -1 : pid;
}

/* Writes the input, runs the program, reads the .wtns (malloc'd into *wtns): 0, or -1 with why. */
static int compute_witness(ps_work *w, unsigned char **wtns, size_t *wtns_len, char *why, size_t len)
{
    char in[96], out[96];
    char *argv[PS_MAX_ARGS + 3];
    int pipefd[2] = {-1, -1}, rc = -1;
    size_t vars, limit = serve_witness_bytes(w->key, &vars) + SERVE_WTNS_SLACK;
    snprintf(in, sizeof in, "%s/input.json", w->dir);
    snprintf(out, sizeof out, "%s/witness.wtns", w->dir);
    memcpy(argv, w->cmd->argv, w->cmd->argc * sizeof *argv);
    argv[w->cmd->argc] = in;
    argv[w->cmd->argc + 1] = out;
    argv[w->cmd->argc + 2] = NULL;
    FILE *f = fopen(in, "wb");
    if (!f || fwrite(w->input, 1, w->len, f) != w->len || fclose(f) != 0) {
        snprintf(why, len, "cannot write the input to %s", in);
        goto cleanup;
    }
    if (pipe2(pipefd, O_CLOEXEC) != 0) {
        snprintf(why, len, "cannot make a pipe: %s", strerror(errno));
        goto cleanup;
    }
    pthread_mutex_lock(&w->s->ps->lock);
    int current = w->job == w->s->ps->job;
    pid_t pid = current ? spawn_program(argv, pipefd[1], why, len) : -1;
    w->s->ps->child = current && pid > 0 ? pid : 0;
    pthread_mutex_unlock(&w->s->ps->lock);
    close(pipefd[1]);
    if (!current)
        snprintf(why, len, "cancelled");
    if (pid < 0)
        goto cleanup;
    watch_program(w, pid, pipefd[0], out, limit, why, len);
    pthread_mutex_lock(&w->s->ps->lock);
    if (w->s->ps->child == pid)
        w->s->ps->child = 0;
    pthread_mutex_unlock(&w->s->ps->lock);
    if (!why[0] && cli_read_file(out, wtns, wtns_len) != 0)
        snprintf(why, len, "the witness program exited 0 but left no readable .wtns");
    else if (!why[0])
        rc = 0;
cleanup:
    if (pipefd[0] >= 0)
        close(pipefd[0]);
    unlink(in);
    unlink(out);
    return rc;
}

/* The witness thread of one job: the program, then the proof queued for the prover thread. */
static void *witness_thread(void *arg)
{
    ps_work *w = arg;
    char why[600] = "";
    unsigned char *wtns = NULL;
    size_t len = 0;
    request *r = NULL;
    if (compute_witness(w, &wtns, &len, why, sizeof why) != 0) {
        ps_job_finished(w->s, w->job, HPR_ERR_INVALID_ARGUMENT, NULL, NULL, why[0] ? why : "no memory");
        goto cleanup;
    }
    if (!(r = calloc(1, sizeof *r))) {
        ps_job_finished(w->s, w->job, HPR_ERR_OUT_OF_MEMORY, NULL, NULL, "no memory");
        goto cleanup;
    }
    *r = (request){.body = wtns, .len = len, .key = w->key, .zkey = w->key->name, .job = w->job};
    wtns = NULL;
    r->start = cli_now_seconds();
    if (!serve_enqueue(w->s, r)) {
        ps_job_finished(w->s, w->job, HPR_ERR_CANCELLED, NULL, NULL, "the server is shutting down");
        free(r->body);
        free(r);
    }
cleanup:
    free(wtns);
    rmdir(w->dir);
    free(w->input);
    free(w);
    return NULL;
}

/* The new job's number: the running job (if any) aborted, the last result cleared. */
static unsigned long long new_job(ps_state *ps)
{
    pthread_mutex_lock(&ps->lock);
    if (ps->status == PS_BUSY)
        end_job(ps, PS_ABORTED);
    unsigned long long job = ++ps->job;
    ps->status = PS_BUSY;
    free(ps->proof);
    free(ps->pub);
    ps->proof = ps->pub = NULL;
    ps->error[0] = '\0';
    pthread_mutex_unlock(&ps->lock);
    return job;
}

/* POST /input/NAME: the running job (if any) aborted, a new one started on a witness thread
 * (the previous one joined first); answers the status. */
static enum MHD_Result start_job(server *s, struct MHD_Connection *c, request *r, const char *name)
{
    ps_state *ps = s->ps;
    const ps_cmd *cmd = find_cmd(ps, name);
    const char *tmp = getenv("TMPDIR");
    ps_work *w;
    if (!cmd)
        return serve_reply_error(c, r, 404, "no --witness-cmd for '%.200s' (POST /input/NAME takes a NAME given "
                                 "to --witness-cmd)", name);
    if (!r->len)
        return serve_reply_error(c, r, 400, "POST /input/%s needs the circuit's input JSON as its body", name);
    if (!(w = calloc(1, sizeof *w)))
        return MHD_NO;
    snprintf(w->dir, sizeof w->dir, "%.40s/hyprove-input-XXXXXX", tmp && tmp[0] ? tmp : "/tmp");
    if (!mkdtemp(w->dir)) {
        free(w);
        return serve_reply_error(c, r, 500, "cannot make a folder for the witness: %s", strerror(errno));
    }
    w->s = s;
    w->key = serve_find_key(s, name);
    w->cmd = cmd;
    w->input = r->body; /* taken */
    w->len = r->len;
    r->body = NULL;
    pthread_mutex_lock(&ps->start_lock);
    w->job = new_job(ps);
    stop_stale_proof(s);
    if (ps->has_thread)
        pthread_join(ps->thread, NULL);
    int started = ps->has_thread = pthread_create(&ps->thread, NULL, witness_thread, w) == 0;
    pthread_mutex_unlock(&ps->start_lock);
    if (!started) {
        ps_job_finished(s, w->job, HPR_ERR_OUT_OF_MEMORY, NULL, NULL, "cannot start the witness thread");
        rmdir(w->dir);
        free(w->input);
        free(w);
    }
    return reply_status(s, c, r);
}

/* POST /cancel: the running job aborted; answers the status. */
static enum MHD_Result cancel_job(server *s, struct MHD_Connection *c, request *r)
{
    pthread_mutex_lock(&s->ps->lock);
    if (s->ps->status == PS_BUSY)
        end_job(s->ps, PS_ABORTED);
    pthread_mutex_unlock(&s->ps->lock);
    stop_stale_proof(s);
    return reply_status(s, c, r);
}

int ps_path(const server *s, const char *url)
{
    return s->ps && (strncmp(url, "/input/", 7) == 0 || strcmp(url, "/cancel") == 0);
}

enum MHD_Result ps_request(server *s, struct MHD_Connection *c, request *r, const char *url)
{
    return strcmp(url, "/cancel") == 0 ? cancel_job(s, c, r) : start_job(s, c, r, url + 7);
}
