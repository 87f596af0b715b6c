/*
 * cli_output.h: the CLI's output files, written whole or not at all.
 *
 * Why: a proof or a result file that is half written, or written over the file a symlink
 * points at by replacing the link, or left as a stray temporary after Ctrl-C, is worse than
 * no file. So an output goes where the user's path leads and only once it is complete:
 *   - "-" is stdout. A path that names stdout's own file (/dev/stdout, /proc/self/fd/1) is
 *     stdout too. A character device, FIFO or socket is opened and written in place (no
 *     temporary, no rename: /dev/stdout stays the system's link).
 *   - A regular file or a new path gets a temporary beside it (PATH.tmp.XXXXXX), renamed over
 *     it at the commit. A symlink is followed to its final target (a dangling one to the file it
 *     names, when that file's folder exists), and the temporary goes beside the target, so the
 *     link stays a link and the target is replaced atomically.
 *   - New and replaced files get mode 0666 & ~umask, what `> FILE` gives a new file (the
 *     umask is read once, at the first open). A replaced file's mode, owner and hard links are
 *     not carried over: it is a new file under the old name.
 *   - A failed write, flush or rename removes the temporary, and the error names the path and
 *     the reason. Temporaries alive when SIGINT, SIGTERM, SIGHUP or SIGPIPE arrives are
 *     removed before the signal's default action ends the process (a handler installed at the
 *     first open, for each of these signals whose disposition is still the default).
 * No fsync: an output is as durable as `> FILE` makes it; the rename makes it atomic, not
 * crash-proof.
 */
#ifndef HOST_CLI_CLI_OUTPUT_H
#define HOST_CLI_CLI_OUTPUT_H

#include <stddef.h>
#include <stdio.h>

/* One output. Zero-initialised (or after a failed open, a commit or an abort) it holds
 * nothing, and cli_output_abort on it does nothing. */
typedef struct {
    char *path;     /* as the user gave it: in messages */
    char *target;   /* the file replaced (symlinks followed), NULL when written in place */
    char *tmp_path; /* the temporary beside target, NULL when written in place */
    FILE *fp;       /* where the caller writes */
    void *buf;      /* the stdio buffer of an output written in place */
    int to_stdout;  /* written to the process's stdout */
    int slot;       /* tmp_path's entry among the temporaries removed on a signal, -1 none */
} cli_output;

/* Opens path for writing as above ("-" is stdout). Opening a FIFO waits for its reader.
 * Returns 0, or -1 after printing an error naming path (o then holds nothing). */
int cli_output_open(cli_output *o, const char *path);

/* Flushes and closes o, then renames its temporary over the target. Returns 0, or -1 after
 * printing the error (the temporary removed). Either way o holds nothing afterwards. */
int cli_output_commit(cli_output *o);

/* Commits outs[0..n) as a group: first every temporary is flushed and closed (and each target
 * checked not to be a folder), then every output written in place is flushed, and only then
 * are the temporaries renamed. If anything before the first rename fails, no temporary is
 * renamed and all are removed. A rename that fails after others succeeded cannot undo them:
 * those files are new and the rest keep their old content. Outputs written in place are
 * held in a 1 MiB stdio buffer until the commit, so a group holds back only what fits in it
 * (a proof and its public signals do); what went out before cannot be called back. Returns 0
 * or -1 (error printed); every output holds nothing afterwards. */
int cli_output_commit_all(cli_output *outs, size_t n);

/* Removes the temporary (an output written in place: its unsent buffer is dropped). */
void cli_output_abort(cli_output *o);

/* 1 when o writes to the process's stdout: human-readable text then goes to stderr. */
int cli_output_is_stdout(const cli_output *o);

/* Refuses the same output twice among paths[0..n): equal after following symlinks, the
 * same file (st_dev and st_ino) when it exists, or "-" twice ("-" and /dev/stdout are the
 * same file). The null device may repeat. Returns 0, or -1 after printing an error naming both. */
int cli_output_check_distinct(const char *const *paths, size_t n);

/* Refuses an output among outputs[0..nout) that is one of the files inputs[0..nin) (same
 * st_dev and st_ino): writing over a mapped input is never meant. Returns 0, or -1 after
 * printing an error naming both. */
int cli_output_check_not_inputs(const char *const *outputs, size_t nout, const char *const *inputs, size_t nin);

#endif
