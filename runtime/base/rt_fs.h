/*
 * rt_fs.h: file-system helpers of the runtime.
 */
#ifndef RUNTIME_BASE_RT_FS_H
#define RUNTIME_BASE_RT_FS_H

#include "rt_check.h"

#include <stddef.h>
#include <stdio.h>

/* mkdir -p: creates dir and its missing parents (mode 0755). 0, or -1. */
RT_MUST_CHECK int rt_make_dirs(const char *dir);

/*
 * Inputs that cannot hang or lie. A path is stat()ed before it is opened, so that nothing
 * blocks in open() on a file the caller does not accept: a regular file is opened with
 * O_NONBLOCK (a FIFO swapped in after the stat cannot block the open), then fstat()ed again
 * and must be the same regular file (device and inode). A regular file whose st_size is 0
 * but which has content (a pseudo-file, as /proc's) is told from an empty one by reading
 * one byte. What is not accepted is refused with words that say what it is.
 * Callers choose per input: the library's path-taking calls accept regular files of known
 * size only (a zkey is mapped, a witness read by its size); the CLI's loaders also accept
 * streams (RT_INPUT_STREAMS): "-" (stdin), FIFOs (the open waits for a writer, as cat does)
 * and pseudo-files, read to EOF up to a bound. Devices, sockets and directories are refused.
 */
typedef enum {
    RT_FILE_REGULAR = 0,  /* a regular file whose st_size is its length */
    RT_FILE_PSEUDO,       /* regular by stat, st_size 0, yet it has content (/proc) */
    RT_FILE_DIRECTORY,
    RT_FILE_FIFO,
    RT_FILE_CHAR_DEVICE,
    RT_FILE_BLOCK_DEVICE,
    RT_FILE_SOCKET,
    RT_FILE_OTHER
} rt_file_kind;

/* The kind in words for messages: "a regular file", "a directory", "a FIFO", "a character
 * device", ...; static text. */
const char *rt_file_kind_words(rt_file_kind kind);

/* rt_open_input's flags: also "-" (stdin), FIFOs and pseudo-files, as streams. */
#define RT_INPUT_STREAMS 1u

typedef struct {
    int fd;            /* open for reading, close-on-exec; -1 when closed */
    rt_file_kind kind; /* what the path (for "-": stdin) is */
    int stream;        /* read to EOF (a FIFO, stdin, a pseudo-file); else a regular file of size bytes */
    size_t size;       /* a regular file's length from fstat; 0 for a stream */
    int peeked;        /* a pseudo-file's first byte (read to tell it from an empty file), else -1 */
} rt_input;

/* Opens path for reading as above; flags: 0 or RT_INPUT_STREAMS. 0 and *in (release with
 * rt_input_close), or an errno value (ENOENT and the like from stat or open; EISDIR for a
 * directory; EINVAL for a kind refused; EAGAIN for a file changed between stat and open) with
 * why (why_len bytes) saying what is wrong after the file's name, e.g. "is a FIFO, not a
 * regular file" or "cannot be opened: No such file or directory". */
RT_MUST_CHECK int rt_open_input(const char *path, unsigned flags, rt_input *in, char *why, size_t why_len);
void rt_input_close(rt_input *in);

/* The whole input into a malloc'd buffer (*data, *len; one extra 0 byte after the end): a
 * regular file exactly its size (it must neither shrink nor grow while read), a stream to EOF
 * and at most limit bytes (EFBIG past it, the bound named in why). 0, or an errno value with
 * why as rt_open_input's. An empty input is not an error here: *len is 0. */
RT_MUST_CHECK int rt_input_read(rt_input *in, size_t limit, unsigned char **data, size_t *len, char *why,
                                size_t why_len);

/* A stream fd (blocking or not) read to EOF into a malloc'd buffer (one extra 0 byte), at most
 * limit bytes: 0, EFBIG past the bound, ENOMEM, or read's errno. */
RT_MUST_CHECK int rt_read_stream(int fd, size_t limit, unsigned char **data, size_t *len);

/* rt_open_input, rt_input_read and rt_input_close in one. */
RT_MUST_CHECK int rt_read_file(const char *path, unsigned flags, size_t limit, unsigned char **data, size_t *len,
                               char *why, size_t why_len);

/* fopen(path, "r") for files the library keeps for itself (caches, profiles): a regular file
 * only, opened without blocking; NULL with errno (EINVAL for any other kind) otherwise. */
FILE *rt_fopen_regular(const char *path);

#endif
