/*
 * rt_fs.c: file-system helpers of the runtime: mkdir -p, and the inputs of rt_fs.h that
 * cannot hang or lie (stat before open, O_NONBLOCK for regular files, the fd checked to be
 * the file stat saw, pseudo-files told from empty files, streams read to EOF up to a bound).
 */
#define _POSIX_C_SOURCE 200809L
#include "rt_fs.h"
#include "rt_mem.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

int rt_make_dirs(const char *dir)
{
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        buf[i] = saved;
    }
    return 0;
}

static rt_file_kind kind_of(const struct stat *sb)
{
    if (S_ISREG(sb->st_mode))
        return RT_FILE_REGULAR;
    if (S_ISDIR(sb->st_mode))
        return RT_FILE_DIRECTORY;
    if (S_ISFIFO(sb->st_mode))
        return RT_FILE_FIFO;
    if (S_ISCHR(sb->st_mode))
        return RT_FILE_CHAR_DEVICE;
    if (S_ISBLK(sb->st_mode))
        return RT_FILE_BLOCK_DEVICE;
    if (S_ISSOCK(sb->st_mode))
        return RT_FILE_SOCKET;
    return RT_FILE_OTHER;
}

const char *rt_file_kind_words(rt_file_kind kind)
{
    switch (kind) {
    case RT_FILE_REGULAR: return "a regular file";
    case RT_FILE_PSEUDO: return "a pseudo-file of unknown size (as in /proc)";
    case RT_FILE_DIRECTORY: return "a directory";
    case RT_FILE_FIFO: return "a FIFO";
    case RT_FILE_CHAR_DEVICE: return "a character device";
    case RT_FILE_BLOCK_DEVICE: return "a block device";
    case RT_FILE_SOCKET: return "a socket";
    default: return "neither a regular file nor a stream";
    }
}

/* Writes the printf-style text into why (when not NULL) and returns err. */
static int say(int err, char *why, size_t why_len, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 4, 5)))
#endif
    ;
static int say(int err, char *why, size_t why_len, const char *fmt, ...)
{
    va_list ap;
    if (why && why_len) {
        va_start(ap, fmt);
        vsnprintf(why, why_len, fmt, ap);
        va_end(ap);
    }
    return err;
}

/* The refusal of a kind the caller does not accept. */
static int refuse(rt_file_kind kind, unsigned flags, char *why, size_t why_len)
{
    const char *accepted = flags & RT_INPUT_STREAMS ? "a regular file, a FIFO or - (stdin)" : "a regular file";
    if (kind == RT_FILE_PSEUDO)
        return say(EINVAL, why, why_len, "is not a regular file of known size (a pseudo-file, as in /proc: st_size 0 "
                   "yet it has content)");
    return say(kind == RT_FILE_DIRECTORY ? EISDIR : EINVAL, why, why_len, "is %s, not %s", rt_file_kind_words(kind),
               accepted);
}

void rt_input_close(rt_input *in)
{
    if (in->fd >= 0)
        close(in->fd);
    in->fd = -1;
}

/* "-": a duplicate of stdin, read as a stream unless it is a directory or a device other than
 * a terminal (`< /dev/zero` would never end). */
static int open_stdin(rt_input *in, char *why, size_t why_len)
{
    struct stat sb;
    if (fstat(STDIN_FILENO, &sb) != 0)
        return say(errno, why, why_len, "(stdin) cannot be read: %s", strerror(errno));
    in->kind = kind_of(&sb);
    if (in->kind == RT_FILE_DIRECTORY || in->kind == RT_FILE_BLOCK_DEVICE || in->kind == RT_FILE_OTHER ||
        (in->kind == RT_FILE_CHAR_DEVICE && !isatty(STDIN_FILENO)))
        return say(EINVAL, why, why_len, "(stdin) is %s, not a regular file or a stream", rt_file_kind_words(in->kind));
    in->fd = fcntl(STDIN_FILENO, F_DUPFD_CLOEXEC, 3);
    if (in->fd < 0)
        return say(errno, why, why_len, "(stdin) cannot be read: %s", strerror(errno));
    in->stream = 1;
    return 0;
}

/* A regular file just opened (fd, O_NONBLOCK): O_NONBLOCK cleared, its size taken, and an
 * st_size of 0 checked by reading one byte (a pseudo-file has content). */
static int settle_regular(rt_input *in, const struct stat *sb, unsigned flags, char *why, size_t why_len)
{
    unsigned char c;
    ssize_t got;
    int fl = fcntl(in->fd, F_GETFL);
    if (fl < 0 || fcntl(in->fd, F_SETFL, fl & ~O_NONBLOCK) != 0)
        return say(errno, why, why_len, "cannot be read: %s", strerror(errno));
    if ((uint64_t)sb->st_size > (uint64_t)SIZE_MAX - 1)
        return say(EFBIG, why, why_len, "is too large for the address space (%lld bytes)", (long long)sb->st_size);
    in->size = (size_t)sb->st_size;
    if (in->size > 0)
        return 0;
    do
        got = read(in->fd, &c, 1);
    while (got < 0 && errno == EINTR);
    if (got < 0)
        return say(errno, why, why_len, "cannot be read: %s", strerror(errno));
    if (got == 0)
        return 0; /* empty */
    in->kind = RT_FILE_PSEUDO;
    if (!(flags & RT_INPUT_STREAMS))
        return refuse(RT_FILE_PSEUDO, flags, why, why_len);
    in->stream = 1;
    in->peeked = c;
    return 0;
}

int rt_open_input(const char *path, unsigned flags, rt_input *in, char *why, size_t why_len)
{
    struct stat sb, fb;
    int err;
    memset(in, 0, sizeof *in);
    in->fd = -1;
    in->peeked = -1;
    if (why && why_len)
        why[0] = '\0';
    if ((flags & RT_INPUT_STREAMS) && strcmp(path, "-") == 0)
        err = open_stdin(in, why, why_len);
    else if (stat(path, &sb) != 0)
        err = say(errno, why, why_len, "cannot be opened: %s", strerror(errno));
    else if ((in->kind = kind_of(&sb)) != RT_FILE_REGULAR && !(in->kind == RT_FILE_FIFO && (flags & RT_INPUT_STREAMS)))
        err = refuse(in->kind, flags, why, why_len);
    else {
        /* a regular file never blocks the open (nor would a FIFO swapped in after the stat);
         * a FIFO accepted as a stream waits for its writer here, as cat does */
        int nonblock = in->kind == RT_FILE_REGULAR ? O_NONBLOCK : 0;
        in->fd = open(path, O_RDONLY | O_CLOEXEC | O_NOCTTY | nonblock);
        if (in->fd < 0)
            err = say(errno, why, why_len, "cannot be opened: %s", strerror(errno));
        else if (fstat(in->fd, &fb) != 0)
            err = say(errno, why, why_len, "cannot be read: %s", strerror(errno));
        else if (fb.st_dev != sb.st_dev || fb.st_ino != sb.st_ino || kind_of(&fb) != in->kind)
            err = say(EAGAIN, why, why_len, "changed while it was opened (it is now %s)",
                      rt_file_kind_words(kind_of(&fb)));
        else if (in->kind == RT_FILE_REGULAR)
            err = settle_regular(in, &fb, flags, why, why_len);
        else {
            err = 0;
            in->stream = 1;
        }
    }
    if (err)
        rt_input_close(in);
    return err;
}

/* "4 GiB", "64 MiB", or "N bytes": a bound in words. */
static void bound_words(char *buf, size_t len, size_t bytes)
{
    if (bytes >= (1u << 30) && bytes % (1u << 30) == 0)
        snprintf(buf, len, "%zu GiB", bytes >> 30);
    else if (bytes >= (1u << 20) && bytes % (1u << 20) == 0)
        snprintf(buf, len, "%zu MiB", bytes >> 20);
    else
        snprintf(buf, len, "%zu bytes", bytes);
}

int rt_read_stream(int fd, size_t limit, unsigned char **data, size_t *len)
{
    /* one byte past the bound is read to tell "exactly the bound" from "more" */
    size_t cap = 0, n = 0, max_cap = limit < SIZE_MAX - 1 ? limit + 1 : SIZE_MAX - 1;
    unsigned char *buf = NULL;
    int err = 0;
    *data = NULL;
    *len = 0;
    for (;;) {
        if (n == cap) {
            size_t want = !cap ? (max_cap < 65536 ? max_cap : 65536) : cap > max_cap / 2 ? max_cap : cap * 2;
            unsigned char *grown = want > cap ? realloc(buf, want + 1) : NULL;
            if (!grown) {
                err = ENOMEM;
                break;
            }
            buf = grown;
            cap = want;
        }
        ssize_t got = read(fd, buf + n, cap - n);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) { /* a non-blocking stdin */
            struct pollfd p = {fd, POLLIN, 0};
            if (poll(&p, 1, -1) < 0 && errno != EINTR) {
                err = errno;
                break;
            }
            continue;
        }
        if (got < 0) {
            err = errno;
            break;
        }
        if (got == 0)
            break;
        n += (size_t)got;
        if (n > limit) {
            err = EFBIG;
            break;
        }
    }
    if (err) {
        free(buf);
        return err;
    }
    if (!buf && !(buf = malloc(1)))
        return ENOMEM;
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

/* A regular file of in->size bytes, which must neither shrink nor grow while read. */
static int read_regular(rt_input *in, unsigned char **data, size_t *len, char *why, size_t why_len)
{
    unsigned char *buf = rt_alloc_large(in->size + 1); /* huge pages for a large file: fewer faults */
    unsigned char extra;
    size_t n = 0;
    ssize_t got = 0;
    if (!buf)
        return say(ENOMEM, why, why_len, "is too large to load (%zu bytes: out of memory)", in->size);
    while (n < in->size && ((got = read(in->fd, buf + n, in->size - n)) > 0 || (got < 0 && errno == EINTR)))
        n += got > 0 ? (size_t)got : 0;
    if (got < 0) {
        int err = errno;
        free(buf);
        return say(err, why, why_len, "cannot be read: %s", strerror(err));
    }
    while ((got = read(in->fd, &extra, 1)) < 0 && errno == EINTR)
        ;
    if (n < in->size || got > 0) {
        free(buf);
        return say(EAGAIN, why, why_len, "changed size while it was read (%zu bytes by its size, %s)", in->size,
                   n < in->size ? "fewer read" : "more read");
    }
    buf[n] = 0;
    *data = buf;
    *len = n;
    return 0;
}

int rt_input_read(rt_input *in, size_t limit, unsigned char **data, size_t *len, char *why, size_t why_len)
{
    char bound[32];
    unsigned char *rest = NULL;
    size_t nrest = 0;
    int err;
    *data = NULL;
    *len = 0;
    if (!in->stream)
        return read_regular(in, data, len, why, why_len);
    if (in->peeked >= 0 && limit == 0)
        err = EFBIG;
    else
        err = rt_read_stream(in->fd, in->peeked >= 0 ? limit - 1 : limit, &rest, &nrest);
    bound_words(bound, sizeof bound, limit);
    if (err == EFBIG)
        return say(err, why, why_len, "is a stream longer than the %s bound", bound);
    if (err)
        return say(err, why, why_len, "cannot be read: %s", strerror(err));
    if (in->peeked >= 0) { /* a pseudo-file's first byte, read by rt_open_input */
        unsigned char *all = realloc(rest, nrest + 2);
        if (!all) {
            free(rest);
            return say(ENOMEM, why, why_len, "cannot be read: %s", strerror(ENOMEM));
        }
        memmove(all + 1, all, nrest + 1);
        all[0] = (unsigned char)in->peeked;
        rest = all;
        nrest++;
    }
    *data = rest;
    *len = nrest;
    return 0;
}

int rt_read_file(const char *path, unsigned flags, size_t limit, unsigned char **data, size_t *len, char *why,
                 size_t why_len)
{
    rt_input in;
    int err = rt_open_input(path, flags, &in, why, why_len);
    *data = NULL;
    *len = 0;
    if (err)
        return err;
    err = rt_input_read(&in, limit, data, len, why, why_len);
    rt_input_close(&in);
    return err;
}

FILE *rt_fopen_regular(const char *path)
{
    rt_input in;
    FILE *f;
    if ((errno = rt_open_input(path, 0, &in, NULL, 0)) != 0)
        return NULL;
    if (!(f = fdopen(in.fd, "r"))) {
        int err = errno;
        rt_input_close(&in);
        errno = err;
    }
    return f;
}
