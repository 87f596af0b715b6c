/*
 * cli_output.c: see cli_output.h (where an output goes, temporaries, group commits, the
 * signal cleanup, the same-file checks).
 *
 * The temporaries alive at a signal are kept in a fixed table of path copies, each with a
 * sig_atomic_t flag: the handler reads only those and calls only unlink, signal and raise
 * (async-signal-safe). A temporary is entered after mkstemp made it and left after it was
 * renamed or removed, so a signal in between leaves at worst one stray temporary, never
 * removes a file that is not ours.
 *
 * A group's commit (a proof and its public signals): each temporary's data is synced to disk
 * (fsync) before any rename; a signal the cleanup handles (SIGINT, SIGTERM, SIGHUP, SIGPIPE)
 * that comes from the first rename to the last is held by the handler (in whichever thread it
 * runs: a mask would cover the calling thread only, not the pool's) and raised again once the
 * group is complete; each target's folder is synced after the renames. What can
 * still tear a group: SIGKILL or a crash between two renames (the first file new, the second
 * old), and a power loss in that window; a power loss before the first rename leaves the old
 * files, after the folder's sync the new ones. HPR_TEST_COMMIT_PAUSE_MS (tests only) sleeps
 * that long between a group's renames.
 */
#define _XOPEN_SOURCE 700 /* POSIX 2008 with realpath */
#include "cli_output.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <time.h>
#include <unistd.h>

#include "cli_util.h"

#ifndef PATH_MAX
#define PATH_MAX 4096
#endif
#define TMP_SLOTS 8
#define MAX_LINK_HOPS 40
/* An output written in place waits in this buffer until its commit (see cli_output_commit_all). */
#define IN_PLACE_BUFFER (1u << 20)

/* ---- temporaries removed on a signal ---- */

static char tmp_names[TMP_SLOTS][PATH_MAX];
static volatile sig_atomic_t tmp_live[TMP_SLOTS];
static volatile sig_atomic_t committing, pending_signal; /* a group's renames under way; a signal held */

static void remove_temporaries(int sig)
{
    if (committing) { /* held until the group is complete (rename_group raises it then) */
        pending_signal = sig;
        return;
    }
    for (int i = 0; i < TMP_SLOTS; i++)
        if (tmp_live[i])
            unlink(tmp_names[i]);
    signal(sig, SIG_DFL);
    raise(sig);
}

/* The handler for each of the signals that would end the process by default; a signal
 * the process was started with ignored (nohup, a background job's SIGINT) stays ignored. */
static void install_signal_cleanup(void)
{
    static const int sigs[] = {SIGINT, SIGTERM, SIGHUP, SIGPIPE};
    static int installed;
    struct sigaction sa, old;
    if (installed)
        return;
    installed = 1;
    memset(&sa, 0, sizeof sa);
    sa.sa_handler = remove_temporaries;
    sigemptyset(&sa.sa_mask);
    for (size_t i = 0; i < sizeof sigs / sizeof sigs[0]; i++)
        if (sigaction(sigs[i], NULL, &old) == 0 && old.sa_handler == SIG_DFL)
            sigaction(sigs[i], &sa, NULL);
}

/* Enters path; returns its slot, or -1 when the table is full or the path too long (the
 * temporary is then still removed on every error, only not on a signal). */
static int tmp_enter(const char *path)
{
    size_t len = strlen(path);
    for (int i = 0; i < TMP_SLOTS; i++)
        if (!tmp_live[i] && len < PATH_MAX) {
            memcpy(tmp_names[i], path, len + 1);
            atomic_signal_fence(memory_order_seq_cst); /* the name before the flag */
            tmp_live[i] = 1;
            return i;
        }
    return -1;
}

static void tmp_leave(int slot)
{
    if (slot >= 0 && slot < TMP_SLOTS)
        tmp_live[slot] = 0;
}

/* ---- where a path leads ---- */

/* 0666 & ~umask, the umask read at the first call. */
static mode_t creation_mode(void)
{
    static int known;
    static mode_t mode;
    if (!known) {
        mode_t old = umask(0);
        umask(old);
        mode = 0666 & ~old;
        known = 1;
    }
    return mode;
}

static int is_stdout_file(const struct stat *st)
{
    struct stat out;
    return fstat(STDOUT_FILENO, &out) == 0 && out.st_dev == st->st_dev && out.st_ino == st->st_ino;
}

static int is_null_device(const struct stat *st)
{
    struct stat null;
    return S_ISCHR(st->st_mode) && stat("/dev/null", &null) == 0 && null.st_rdev == st->st_rdev;
}

/* link's target as a path (relative targets taken from link's folder); frees link.
 * NULL with errno set on failure. */
static char *follow_link(char *link)
{
    char target[PATH_MAX], *out = NULL;
    const char *slash = strrchr(link, '/');
    size_t dir_len = slash ? (size_t)(slash - link) + 1 : 0;
    ssize_t len = readlink(link, target, sizeof target);
    int err = errno;
    if (len < 0 || (size_t)len == sizeof target) {
        err = len < 0 ? err : ENAMETOOLONG;
        goto out;
    }
    target[len] = '\0';
    if (target[0] == '/')
        dir_len = 0;
    out = malloc(dir_len + (size_t)len + 1);
    err = ENOMEM;
    if (!out)
        goto out;
    memcpy(out, link, dir_len);
    memcpy(out + dir_len, target, (size_t)len + 1);
out:
    free(link);
    errno = err;
    return out;
}

/* The absolute name of a file to be made at path (which does not exist): its folder
 * resolved, then its last component. NULL with errno set when the folder cannot be. */
static char *new_file_path(const char *path)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    char *dir = NULL, *real = NULL, *out = NULL;
    int err = EISDIR; /* "dir/" names a folder */
    if (!*base)
        goto out;
    err = ENOMEM;
    dir = slash ? strndup(path, slash == path ? 1 : (size_t)(slash - path)) : strdup(".");
    if (!dir)
        goto out;
    real = realpath(dir, NULL);
    err = errno;
    if (!real)
        goto out;
    err = ENOMEM;
    out = malloc(strlen(real) + strlen(base) + 2);
    if (out)
        sprintf(out, "%s%s%s", real, strcmp(real, "/") == 0 ? "" : "/", base);
out:
    free(dir);
    free(real);
    if (!out)
        errno = err;
    return out;
}

/* The file a write to path replaces or makes: path with every symlink followed (a dangling
 * link's target, when its folder exists), absolute. NULL with errno set when it has none. */
static char *resolve_target(const char *path)
{
    struct stat st;
    char *cur = strdup(path), *out = NULL;
    int err;
    for (int hops = 0; cur; hops++) {
        if (lstat(cur, &st) != 0) {
            out = errno == ENOENT ? new_file_path(cur) : NULL;
            break;
        }
        if (!S_ISLNK(st.st_mode)) {
            out = realpath(cur, NULL);
            break;
        }
        if (hops == MAX_LINK_HOPS) {
            errno = ELOOP;
            break;
        }
        cur = follow_link(cur);
    }
    err = errno;
    free(cur);
    errno = err;
    return out;
}

/* ---- opening ---- */

/* Prints "cannot write 'PATH': REASON", drops whatever o holds, returns -1. */
static int open_failed(cli_output *o, const char *path, int err)
{
    cli_error("cannot write '%s': %s", path, strerror(err));
    cli_output_abort(o);
    return -1;
}

/* o->fp over fd (taken), with the buffer that holds the output until its commit. */
static int attach_in_place(cli_output *o, int fd)
{
    o->buf = malloc(IN_PLACE_BUFFER);
    o->fp = o->buf ? fdopen(fd, "w") : NULL;
    if (!o->fp) {
        int err = o->buf ? errno : ENOMEM;
        close(fd);
        return open_failed(o, o->path, err);
    }
    setvbuf(o->fp, o->buf, _IOFBF, IN_PLACE_BUFFER);
    return 0;
}

static int open_stdout(cli_output *o)
{
    fflush(stdout); /* what the command printed before goes first */
    int fd = fcntl(STDOUT_FILENO, F_DUPFD_CLOEXEC, 0);
    if (fd < 0)
        return open_failed(o, o->path, errno);
    o->to_stdout = 1;
    return attach_in_place(o, fd);
}

/* A connection to the listening Unix stream socket at path, or -1 with errno set. */
static int connect_socket(const char *path)
{
    struct sockaddr_un addr;
    int fd = -1, err = ENAMETOOLONG;
    memset(&addr, 0, sizeof addr);
    addr.sun_family = AF_UNIX;
    if (strlen(path) >= sizeof addr.sun_path)
        goto out;
    strcpy(addr.sun_path, path);
    fd = socket(AF_UNIX, SOCK_STREAM, 0);
    if (fd >= 0 && connect(fd, (const struct sockaddr *)&addr, sizeof addr) == 0)
        return fd;
    err = errno;
out:
    if (fd >= 0)
        close(fd);
    errno = err;
    return -1;
}

/* A character or block device, a FIFO (waiting for its reader) or a socket, written in place. */
static int open_in_place(cli_output *o, const struct stat *st)
{
    int fd = S_ISSOCK(st->st_mode) ? connect_socket(o->path) : open(o->path, O_WRONLY | O_NOCTTY | O_CLOEXEC);
    if (fd < 0)
        return open_failed(o, o->path, errno);
    return attach_in_place(o, fd);
}

/* A temporary beside the target (a regular file or a new one), with the mode a new file gets. */
static int open_replacement(cli_output *o)
{
    struct stat st;
    int fd = -1, err;
    o->target = resolve_target(o->path);
    if (!o->target)
        return open_failed(o, o->path, errno);
    o->tmp_path = malloc(strlen(o->target) + sizeof ".tmp.XXXXXX");
    if (!o->tmp_path)
        return open_failed(o, o->path, ENOMEM);
    sprintf(o->tmp_path, "%s.tmp.XXXXXX", o->target);
    fd = mkstemp(o->tmp_path);
    if (fd < 0) {
        err = errno;
        free(o->tmp_path);
        o->tmp_path = NULL;
        if (lstat(o->path, &st) != 0 || !S_ISLNK(st.st_mode))
            cli_error("cannot write '%s': cannot create a temporary file beside it: %s", o->path, strerror(err));
        else
            cli_error("cannot write '%s': cannot create a temporary file beside its target '%s': %s", o->path,
                      o->target, strerror(err));
        goto out;
    }
    o->slot = tmp_enter(o->tmp_path);
    if (fchmod(fd, creation_mode()) == 0 && (o->fp = fdopen(fd, "w")) != NULL)
        return 0;
    err = errno;
    close(fd);
    cli_error("cannot write '%s': %s", o->path, strerror(err));
out:
    cli_output_abort(o);
    return -1;
}

int cli_output_open(cli_output *o, const char *path)
{
    struct stat st;
    int found;
    memset(o, 0, sizeof *o);
    o->slot = -1;
    install_signal_cleanup();
    o->path = strdup(path);
    if (!o->path)
        return open_failed(o, path, ENOMEM);
    if (strcmp(path, "-") == 0)
        return open_stdout(o);
    found = stat(path, &st) == 0;
    if (!found && errno != ENOENT)
        return open_failed(o, path, errno);
    if (found && is_stdout_file(&st))
        return open_stdout(o);
    if (found && S_ISDIR(st.st_mode))
        return open_failed(o, path, EISDIR);
    if (found && !S_ISREG(st.st_mode))
        return open_in_place(o, &st);
    return open_replacement(o);
}

/* ---- committing ---- */

/* Flushes and closes o->fp: 0, or the errno of the first failure. */
static int close_stream(cli_output *o, int sync)
{
    int err = 0, had_error = ferror(o->fp);
    if (fflush(o->fp) != 0)
        err = errno;
    if (!err && sync && fsync(fileno(o->fp)) != 0)
        err = errno;
    if (fclose(o->fp) != 0 && !err)
        err = errno;
    o->fp = NULL;
    return !err && had_error ? EIO : err;
}

/* The temporary's content complete on disk, and its target still something a file can be
 * renamed over. */
static int close_replacement(cli_output *o)
{
    struct stat st;
    int err = close_stream(o, 1); /* on disk before the rename */
    if (!err && stat(o->target, &st) == 0 && S_ISDIR(st.st_mode))
        err = EISDIR;
    if (err)
        cli_error("cannot write '%s': %s", o->path, strerror(err));
    return err ? -1 : 0;
}

static int close_in_place(cli_output *o)
{
    int err = close_stream(o, 0);
    if (err)
        cli_error("cannot write '%s': %s", o->path, strerror(err));
    return err ? -1 : 0;
}

static int rename_over(cli_output *o)
{
    if (rename(o->tmp_path, o->target) != 0) {
        int err = errno;
        cli_error("cannot write '%s': renaming '%s' to '%s' failed: %s", o->path, o->tmp_path, o->target,
                  strerror(err));
        return -1;
    }
    tmp_leave(o->slot);
    free(o->tmp_path);
    o->tmp_path = NULL;
    return 0;
}

/* The folder holding path synced (its renames durable); errors ignored: the files are in
 * place, only their durability across a power loss is not confirmed. */
static void sync_folder_of(const char *path)
{
    char dir[PATH_MAX];
    if (strlen(path) >= sizeof dir)
        return;
    strcpy(dir, path);
    char *slash = strrchr(dir, '/');
    if (!slash)
        strcpy(dir, ".");
    else
        slash[slash == dir ? 1 : 0] = '\0'; /* "/name": the root */
    int fd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (fd >= 0) {
        (void)fsync(fd);
        close(fd);
    }
}

/* HPR_TEST_COMMIT_PAUSE_MS: the tests' pause between a group's renames (0: none). */
static void test_pause(void)
{
    const char *v = getenv("HPR_TEST_COMMIT_PAUSE_MS");
    long ms = v ? strtol(v, NULL, 10) : 0;
    if (ms > 0 && ms <= 60000) {
        struct timespec ts = {ms / 1000, (ms % 1000) * 1000000L};
        nanosleep(&ts, NULL);
    }
}

/* The renames of a group, an ending signal held until the last (see the top of this file):
 * the handler, in whichever thread the signal reaches, sees `committing` and only records it. */
static int rename_group(cli_output *outs, size_t n)
{
    int rc = 0, renamed = 0;
    committing = 1;
    atomic_signal_fence(memory_order_seq_cst);
    for (size_t i = 0; i < n && rc == 0; i++) {
        if (!outs[i].tmp_path)
            continue;
        if (renamed++)
            test_pause();
        rc = rename_over(&outs[i]);
    }
    for (size_t i = 0; i < n && rc == 0; i++)
        if (outs[i].target) /* renamed: its folder synced */
            sync_folder_of(outs[i].target);
    committing = 0;
    atomic_signal_fence(memory_order_seq_cst);
    if (pending_signal) /* now: the handler removes what is left and ends the process */
        raise(pending_signal);
    return rc;
}

int cli_output_commit_all(cli_output *outs, size_t n)
{
    int rc = 0;
    for (size_t i = 0; i < n && rc == 0; i++)
        if (outs[i].tmp_path)
            rc = close_replacement(&outs[i]);
    for (size_t i = 0; i < n && rc == 0; i++)
        if (!outs[i].tmp_path && outs[i].fp)
            rc = close_in_place(&outs[i]);
    if (rc == 0)
        rc = rename_group(outs, n);
    for (size_t i = 0; i < n; i++)
        cli_output_abort(&outs[i]); /* the temporaries not renamed; the rest freed */
    return rc;
}

int cli_output_commit(cli_output *o)
{
    return cli_output_commit_all(o, 1);
}

/* Closes an output written in place without sending its buffer: the descriptor is first
 * pointed at /dev/null (without it the buffer goes out). */
static void drop_in_place(FILE *fp)
{
    int null_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (null_fd >= 0) {
        dup2(null_fd, fileno(fp));
        close(null_fd);
    }
    fclose(fp);
}

void cli_output_abort(cli_output *o)
{
    if (o->fp && o->tmp_path)
        fclose(o->fp);
    else if (o->fp)
        drop_in_place(o->fp);
    if (o->tmp_path) {
        unlink(o->tmp_path);
        tmp_leave(o->slot);
    }
    free(o->tmp_path);
    free(o->target);
    free(o->path);
    free(o->buf);
    memset(o, 0, sizeof *o);
    o->slot = -1;
}

int cli_output_is_stdout(const cli_output *o)
{
    return o->to_stdout;
}

/* ---- the same file twice ---- */

/* What an output path names: "-", an existing file (st), or the file it would make. */
typedef struct {
    int dash, exists;
    struct stat st;
    char *made; /* absolute, symlinks followed; NULL when it exists or cannot be made */
} output_id;

static void identify(const char *path, output_id *id)
{
    memset(id, 0, sizeof *id);
    id->dash = strcmp(path, "-") == 0;
    if (id->dash)
        id->exists = fstat(STDOUT_FILENO, &id->st) == 0;
    else if (stat(path, &id->st) == 0)
        id->exists = 1;
    else
        id->made = resolve_target(path);
}

static int same_output(const char *a, const char *b)
{
    output_id x, y;
    int same;
    identify(a, &x);
    identify(b, &y);
    if (x.dash && y.dash)
        same = 1;
    else if (x.exists && y.exists)
        same = x.st.st_dev == y.st.st_dev && x.st.st_ino == y.st.st_ino && !is_null_device(&x.st);
    else if (x.exists || y.exists)
        same = 0;
    else
        same = x.made && y.made ? strcmp(x.made, y.made) == 0 : strcmp(a, b) == 0;
    free(x.made);
    free(y.made);
    return same;
}

int cli_output_check_distinct(const char *const *paths, size_t n)
{
    for (size_t i = 0; i < n; i++)
        for (size_t j = i + 1; j < n; j++)
            if (same_output(paths[i], paths[j])) {
                cli_error("outputs '%s' and '%s' are the same file: give each output a path of its own", paths[i],
                          paths[j]);
                return -1;
            }
    return 0;
}

static int output_is_file(const char *output, const char *input)
{
    output_id id;
    struct stat in;
    identify(output, &id);
    free(id.made);
    return id.exists && stat(input, &in) == 0 && in.st_dev == id.st.st_dev && in.st_ino == id.st.st_ino;
}

int cli_output_check_not_inputs(const char *const *outputs, size_t nout, const char *const *inputs, size_t nin)
{
    for (size_t i = 0; i < nout; i++)
        for (size_t j = 0; j < nin; j++)
            if (output_is_file(outputs[i], inputs[j])) {
                cli_error("output '%s' is the input '%s': refusing to write over it", outputs[i], inputs[j]);
                return -1;
            }
    return 0;
}
