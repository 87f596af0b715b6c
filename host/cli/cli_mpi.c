/*
 * cli_mpi.c: the CLI's Open MPI binding of hpr_cluster (see cli_mpi.h).
 *
 * What: a process started by `mpirun -np N hyprove ...` is one rank of a job. It is found
 * from the launcher's environment (OMPI_COMM_WORLD_SIZE and _RANK; PMIX_RANK; PMI_SIZE and
 * PMI_RANK), so a plain `hyprove` never initialises MPI. MPI is initialised with
 * MPI_THREAD_SERIALIZED: the library makes one transport call at a time, but during a call
 * rank 0 serves the other ranks from a thread of its own while the main thread computes
 * (runtime/sched/ranks.c), so not always from the main thread. MPI_COMM_WORLD gets
 * MPI_ERRORS_RETURN, so that a failing transfer is a -1 the library reports (HPR_ERR_RANK)
 * rather than an abort.
 *
 * Method: send is MPI_Isend completed by MPI_Testall; while it waits, the messages that
 * arrive are received into a queue, which poll empties first. So two ranks that send to each
 * other at once never wait on each other (a blocking MPI_Send of a large message would: Open
 * MPI's rendezvous waits for the matching receive), and each pair's order is kept (MPI keeps
 * it per source; the queue is FIFO). MPI counts are int: a message over CHUNK (1 GiB) goes as
 * a header with its length (TAG_LONG) followed by its chunks (TAG_CHUNK), and the receiver
 * takes all of them at once. Poll probes any source and any tag (TAG_MSG or TAG_LONG: a
 * chunk never comes first, MPI does not reorder one source's messages).
 *
 * Cost: one MPI message per library message (two more per GiB above 1 GiB); a send spins on
 * MPI_Testall for SPIN_TESTS tests, then sleeps PAUSE_NS between tests, so that a rank
 * waiting on a large transfer costs little CPU while short ones do not wait for a timer.
 *
 * Without Open MPI (HPR_HAVE_MPI unset) only the launcher check is left: a job of several
 * ranks is refused, because each rank would run the whole command alone.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_mpi.h"
#include "cli_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#if HPR_HAVE_MPI
#include <mpi.h>
#endif

static int cluster_rank, cluster_size = 1, have_cluster;
static hpr_cluster cluster;

/* A decimal environment variable in 0..2^30: 0 with *out set, else -1. */
static int env_int(const char *name, int *out)
{
    unsigned long long v;
    const char *s = getenv(name);
    if (!s || cli_parse_uint(s, 0, 1ull << 30, &v) != 0)
        return -1;
    *out = (int)v;
    return 0;
}

/* 1 when a launcher started this process as a rank (rank and size from its variables;
 * size 1 when only a rank is set), else 0. */
static int launched(int *rank, int *size)
{
    *rank = 0;
    *size = 1;
    int sized = env_int("OMPI_COMM_WORLD_SIZE", size) == 0 || env_int("PMI_SIZE", size) == 0;
    int ranked = env_int("OMPI_COMM_WORLD_RANK", rank) == 0 || env_int("PMIX_RANK", rank) == 0 ||
                 env_int("PMI_RANK", rank) == 0;
    return sized || ranked;
}

const hpr_cluster *cli_cluster(void)
{
    return have_cluster ? &cluster : NULL;
}

int cli_cluster_rank(void)
{
    return cluster_rank;
}

int cli_cluster_size(void)
{
    return cluster_size;
}

int cli_cluster_leader(void)
{
    return cluster_rank == 0;
}

int cli_cluster_refuse(const char *what)
{
    if (!have_cluster)
        return -1;
    if (cluster_rank == 0)
        cli_error("'%s' does not run across ranks (this job has %d): run it as one process, without mpirun; "
                  "across ranks run msm, ntt, groth16 prove, groth16 prove-batch or bench msm|ntt|groth16",
                  what, cluster_size);
    return CLI_EXIT_USAGE;
}

void cli_cluster_print_report(FILE *to, const hpr_cluster_report *r)
{
    fprintf(to, "  ranks %u:", r->ranks);
    for (unsigned k = 0; k < r->ranks && k < HPR_CLUSTER_MAX_RANKS; k++) {
        char failed[48] = "";
        if (r->failures[k] || r->dropped[k])
            snprintf(failed, sizeof failed, ", %u failed%s", r->failures[k], r->dropped[k] ? ", dropped" : "");
        fprintf(to, " rank %u %u tiles (%.0f%%, busy %.3f s%s)%s", k, r->tiles[k], 100.0 * r->share[k], r->busy_s[k],
                failed, k + 1 < r->ranks ? ";" : "");
    }
    fprintf(to, "; sent %llu bytes in %llu messages\n", (unsigned long long)r->bytes_sent,
            (unsigned long long)r->messages);
}

int cli_cluster_agree(hpr_ctx *ctx, int rc)
{
    hpr_ctx *own = NULL;
    hpr_config cfg = {.struct_size = sizeof cfg};
    if (!have_cluster)
        return rc;
    if (!ctx) { /* this rank could not make its context: a small one carries the message */
        hpr_config_default(&cfg);
        cfg.devices = "cpu";
        cfg.threads = 1;
        if (hpr_ctx_create(&cfg, &own) != HPR_OK)
            return rc ? rc : cli_error("creating a context for the job's messages failed");
        ctx = own;
    }
    hpr_status mine = rc == 0 ? HPR_OK : rc == CLI_EXIT_USAGE ? HPR_ERR_INVALID_ARGUMENT : HPR_ERR_IO;
    hpr_status st = hpr_cluster_agree(ctx, &cluster, mine, rc ? cli_last_error() : NULL);
    if (st != HPR_OK && rc == 0) { /* another rank failed (its error, or the transport's) */
        const char *detail = hpr_ctx_error_detail(ctx);
        if (cluster_rank == 0)
            cli_error("%s", detail && *detail ? detail : hpr_status_str(st));
        rc = CLI_EXIT_FAILURE;
    }
    hpr_ctx_destroy(own);
    return rc;
}

#if HPR_HAVE_MPI

#define TAG_MSG 7301
#define TAG_LONG 7302
#define TAG_CHUNK 7303
#define CHUNK ((size_t)1 << 30)
#define SPIN_TESTS 2000
#define PAUSE_NS 20000

static int mpi_initialised, mpi_finalised;

/* Messages received while a send waited, oldest first. */
typedef struct queued {
    struct queued *next;
    int from;
    void *data;
    size_t len;
} queued;
static queued *queue_head, *queue_tail;

static void pause_briefly(void)
{
    struct timespec ts = {0, PAUSE_NS};
    nanosleep(&ts, NULL);
}

/* Receives the long message announced by a TAG_LONG header from source: 0 or -1. */
static int receive_long(int source, void **data, size_t *len)
{
    uint64_t total = 0;
    if (MPI_Recv(&total, (int)sizeof total, MPI_BYTE, source, TAG_LONG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
        MPI_SUCCESS)
        return -1;
    unsigned char *buf = malloc(total ? (size_t)total : 1);
    if (!buf)
        return -1;
    for (size_t off = 0; off < total; off += CHUNK) {
        size_t part = total - off < CHUNK ? (size_t)(total - off) : CHUNK;
        if (MPI_Recv(buf + off, (int)part, MPI_BYTE, source, TAG_CHUNK, MPI_COMM_WORLD, MPI_STATUS_IGNORE) !=
            MPI_SUCCESS) {
            free(buf);
            return -1;
        }
    }
    *data = buf;
    *len = (size_t)total;
    return 0;
}

/* Receives the message whose envelope st describes (probed): 0, or -1 (nothing kept). */
static int receive_probed(const MPI_Status *st, int *from, void **data, size_t *len)
{
    int count = 0;
    *from = st->MPI_SOURCE;
    if (st->MPI_TAG == TAG_LONG)
        return receive_long(st->MPI_SOURCE, data, len);
    if (st->MPI_TAG != TAG_MSG || MPI_Get_count(st, MPI_BYTE, &count) != MPI_SUCCESS || count < 0)
        return -1;
    void *buf = malloc(count ? (size_t)count : 1);
    if (!buf)
        return -1;
    if (MPI_Recv(buf, count, MPI_BYTE, st->MPI_SOURCE, TAG_MSG, MPI_COMM_WORLD, MPI_STATUS_IGNORE) != MPI_SUCCESS) {
        free(buf);
        return -1;
    }
    *data = buf;
    *len = (size_t)count;
    return 0;
}

/* A message waiting, received: 1, 0 when none waits, -1 when the transport failed. Probed
 * twice: Open MPI's MPI_Iprobe looks for a match before it drives progress, so a message that
 * arrived since the last call is pulled in by the first probe and matched only by the next;
 * with one probe per poll every message waited one more of the poller's sleeps (up to 1 ms). */
static int receive_any(int *from, void **data, size_t *len)
{
    int flag = 0;
    MPI_Status st;
    for (int probe = 0; probe < 2 && !flag; probe++)
        if (MPI_Iprobe(MPI_ANY_SOURCE, MPI_ANY_TAG, MPI_COMM_WORLD, &flag, &st) != MPI_SUCCESS)
            return -1;
    if (!flag)
        return 0;
    return receive_probed(&st, from, data, len) == 0 ? 1 : -1;
}

/* A waiting message moved to the queue: 1, 0 when none waits, -1 on failure. */
static int queue_one(void)
{
    queued *q = malloc(sizeof *q);
    if (!q)
        return -1;
    int got = receive_any(&q->from, &q->data, &q->len);
    if (got != 1) {
        free(q);
        return got;
    }
    q->next = NULL;
    if (queue_tail)
        queue_tail->next = q;
    else
        queue_head = q;
    queue_tail = q;
    return 1;
}

/* Completes reqs[0..n), receiving into the queue meanwhile: 0 or -1. */
static int complete(MPI_Request *reqs, int n)
{
    for (long tests = 0;; tests++) {
        int done = 0;
        if (MPI_Testall(n, reqs, &done, MPI_STATUSES_IGNORE) != MPI_SUCCESS)
            return -1;
        if (done)
            return 0;
        int got = queue_one();
        if (got < 0)
            return -1;
        if (!got && tests >= SPIN_TESTS)
            pause_briefly();
    }
}

static int mpi_send(void *user, int to, const void *data, size_t len)
{
    MPI_Request one, *reqs = &one;
    uint64_t total = len;
    int n = 1, rc = -1;
    (void)user;
    if (len <= CHUNK) {
        if (MPI_Isend(data, (int)len, MPI_BYTE, to, TAG_MSG, MPI_COMM_WORLD, &one) != MPI_SUCCESS)
            return -1;
        return complete(&one, 1);
    }
    size_t chunks = (len + CHUNK - 1) / CHUNK;
    reqs = malloc((chunks + 1) * sizeof *reqs);
    if (!reqs)
        return -1;
    if (MPI_Isend(&total, (int)sizeof total, MPI_BYTE, to, TAG_LONG, MPI_COMM_WORLD, &reqs[0]) != MPI_SUCCESS)
        goto out;
    for (size_t c = 0; c < chunks; c++, n++) {
        size_t off = c * CHUNK, part = len - off < CHUNK ? len - off : CHUNK;
        if (MPI_Isend((const unsigned char *)data + off, (int)part, MPI_BYTE, to, TAG_CHUNK, MPI_COMM_WORLD,
                      &reqs[n]) != MPI_SUCCESS)
            goto out;
    }
    rc = 0;
out:
    /* the requests posted are completed (or failed) before their buffers may go */
    if (complete(reqs, n) != 0)
        rc = -1;
    free(reqs);
    return rc;
}

static int mpi_poll(void *user, int *from, void **data, size_t *len)
{
    (void)user;
    if (queue_head) {
        queued *q = queue_head;
        queue_head = q->next;
        if (!queue_head)
            queue_tail = NULL;
        *from = q->from;
        *data = q->data;
        *len = q->len;
        free(q);
        return 1;
    }
    return receive_any(from, data, len);
}

/* Ranks other than 0 print nothing: their stdout, and their stderr unless HPR_RANK_STDERR is
 * set, go to /dev/null. */
static void silence(void)
{
    if (!freopen("/dev/null", "w", stdout))
        fclose(stdout);
    if (!getenv("HPR_RANK_STDERR") && !freopen("/dev/null", "w", stderr))
        fclose(stderr);
}

void cli_cluster_end(void)
{
    if (!mpi_initialised || mpi_finalised)
        return;
    mpi_finalised = 1;
    while (queue_head) {
        queued *q = queue_head;
        queue_head = q->next;
        free(q->data);
        free(q);
    }
    queue_tail = NULL;
    have_cluster = 0;
    fflush(stdout);
    fflush(stderr);
    MPI_Finalize();
}

int cli_cluster_begin(int *argc, char ***argv)
{
    int rank, size, provided = 0;
    if (!launched(&rank, &size))
        return -1;
    if (MPI_Init_thread(argc, argv, MPI_THREAD_SERIALIZED, &provided) != MPI_SUCCESS)
        return cli_error("MPI_Init_thread failed: this process cannot join the job");
    mpi_initialised = 1;
    atexit(cli_cluster_end);
    MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
    if (MPI_Comm_rank(MPI_COMM_WORLD, &cluster_rank) != MPI_SUCCESS ||
        MPI_Comm_size(MPI_COMM_WORLD, &cluster_size) != MPI_SUCCESS)
        return cli_error("MPI_Comm_rank or MPI_Comm_size failed");
    if (cluster_rank > 0)
        silence();
    if (provided < MPI_THREAD_SERIALIZED)
        return cluster_rank == 0 ? cli_error("this MPI library gives too little thread support (MPI_THREAD_SERIALIZED needed)")
                                 : CLI_EXIT_FAILURE;
    if (cluster_size > HPR_CLUSTER_MAX_RANKS) {
        if (cluster_rank == 0)
            cli_error("this job has %d ranks: hyprove runs at most %d (HPR_CLUSTER_MAX_RANKS)", cluster_size,
                      HPR_CLUSTER_MAX_RANKS);
        return CLI_EXIT_USAGE;
    }
    if (cluster_size > 1) {
        cluster = (hpr_cluster){sizeof(hpr_cluster), cluster_rank, cluster_size, NULL, mpi_send, mpi_poll};
        have_cluster = 1;
    }
    return -1;
}

int cli_cluster_share(void *data, size_t len)
{
    if (!have_cluster)
        return 0;
    if (MPI_Bcast(data, (int)len, MPI_BYTE, 0, MPI_COMM_WORLD) == MPI_SUCCESS)
        return 0;
    if (cluster_rank == 0)
        cli_error("MPI_Bcast of %zu bytes failed", len);
    return -1;
}

#else /* no Open MPI in this build */

void cli_cluster_end(void)
{
}

int cli_cluster_begin(int *argc, char ***argv)
{
    int rank, size;
    (void)argc;
    (void)argv;
    if (!launched(&rank, &size) || size <= 1)
        return -1;
    if (rank == 0)
        cli_error("this hyprove was built without Open MPI (libopenmpi-dev not found when it was configured): "
                  "under mpirun each of the %d ranks would run the whole command alone; install libopenmpi-dev "
                  "and configure again (HPR_MPI=AUTO), or run hyprove without mpirun",
                  size);
    return CLI_EXIT_USAGE;
}

int cli_cluster_share(void *data, size_t len)
{
    (void)data;
    (void)len;
    return 0;
}

#endif
