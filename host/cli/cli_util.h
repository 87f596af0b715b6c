/*
 * cli_util.h: what every hyprove subcommand shares: errors, option parsing, files, timing.
 */
#ifndef HOST_CLI_CLI_UTIL_H
#define HOST_CLI_CLI_UTIL_H

#include <stddef.h>

#include "cli_output.h" /* output files: cli_output_open, _commit, _commit_all, _abort */
#include "hyprove.h"

/* The exit statuses of every command (docs/cli.md, "Exit status"). */
#define CLI_EXIT_OK 0           /* done; a check: it verifies */
#define CLI_EXIT_FAILURE 1      /* the work could not be done: an input missing, unreadable or malformed,
                                 * an output, memory, a device, an internal error */
#define CLI_EXIT_USAGE 2        /* the command line: a command, option, value or argument count */
#define CLI_EXIT_NOT_VERIFIED 3 /* a check (groth16 verify, commit verify) ran: it does not verify */

/* A macro's value as a string literal ("4096" for HPR_MAX_THREADS), for help texts. */
#define CLI_STR_(x) #x
#define CLI_STR(x) CLI_STR_(x)

/* Prints "hyprove: error: <message>" on one line to stderr. Returns CLI_EXIT_FAILURE. */
int cli_error(const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 1, 2)))
#endif
    ;
/* Same, for bad usage; adds a hint to run --help. Returns CLI_EXIT_USAGE. */
int cli_usage_error(const char *cmd, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;
/* The message of the last cli_error or cli_usage_error (without the "hyprove: error: " prefix
 * and the --help hint); "" before any. */
const char *cli_last_error(void);
/* Failure of a library call: status text plus the context's detail. Returns CLI_EXIT_FAILURE. */
int cli_status_error(const char *what, hpr_status st, const hpr_ctx *ctx);

/* Strict parsers: the whole string must be a number in [min, max]. Return 0 or -1. */
int cli_parse_uint(const char *s, unsigned long long min, unsigned long long max, unsigned long long *out);
/* Comma-separated list of unsigned values in [min, max]; at most cap entries. */
int cli_parse_uint_list(const char *s, unsigned long long min, unsigned long long max, unsigned *out, size_t cap,
                        size_t *count);
/* "bn254" or "bls12-381" (also "bn128", "bls12381" as snarkjs spells them). */
int cli_parse_curve(const char *s, hpr_curve *out);
/* Comma-separated curves, at most cap of them. */
int cli_parse_curve_list(const char *s, hpr_curve *out, size_t cap, size_t *count);
const char *cli_curve_name(hpr_curve curve);
/* "bn254-fr", "bls12-381-fr", "goldilocks", "babybear" or "koalabear". */
int cli_parse_field(const char *s, hpr_field *out);
/* Comma-separated fields, at most cap of them. */
int cli_parse_field_list(const char *s, hpr_field *out, size_t cap, size_t *count);
const char *cli_field_name(hpr_field field);
/* A device name: "cpu", "cl:P.D", and "all" when allow_all. Returns 0 or -1. */
#define CLI_DEVICE_NAME_LEN 16
int cli_parse_device(const char *s, int allow_all);
/* Comma-separated device names (as cli_parse_device), at most cap, copied into out. */
/* Splits a comma-separated list of names (each shorter than CLI_DEVICE_NAME_LEN, at most cap). */
int cli_split_list(const char *s, char (*out)[CLI_DEVICE_NAME_LEN], size_t cap, size_t *count);
int cli_parse_device_list(const char *s, int allow_all, char (*out)[CLI_DEVICE_NAME_LEN], size_t cap, size_t *count);
/* After a benchmark's run on device "all": how the run report shared the work (tiles and
 * `unit` per device, busy time, failures) and its notes, on stderr; nothing on other devices. */
void cli_print_split(hpr_ctx *ctx, const char *device, const char *unit);
/* --cpu-tiers T[,T...] or all (cmd: "bench msm ", the usage error's prefix): every tier that
 * can run here, or each one named, which must (names kept in storage, cap of them); 0 or the
 * usage error's exit code. */
int cli_parse_cpu_tiers(const char *cmd, const char *list, char (*storage)[CLI_DEVICE_NAME_LEN], const char **tiers,
                        size_t cap, size_t *count);


/* Whole input into a malloc'd buffer (one extra 0 byte): a regular file, or a stream read to
 * EOF: "-" (stdin), a FIFO or a /proc-style file, at most CLI_STREAM_LIMIT bytes. A device,
 * socket or directory and an empty input are refused. Returns 0, or CLI_EXIT_FAILURE after
 * printing an error naming path and saying what it is. */
#define CLI_STREAM_LIMIT ((size_t)1 << 32)
int cli_read_file(const char *path, unsigned char **data, size_t *len);

/* A memory size: bytes, or a number with K, M, G or T (powers of 1024, an optional "B" or
 * "iB", any case: "512M", "1.5G", "64KiB"), above 0. Returns 0 or -1. The library reads
 * HPR_MAX_MEMORY with the same rules (host/core/memory_budget.c). */
int cli_parse_size(const char *s, unsigned long long *bytes);

double cli_now_seconds(void);
/* The processor and OS facts (hpr_cpu_info_get); all fields empty if the library refused them. */
hpr_cpu_info cli_cpu_info(void);
int cli_compare_doubles(const void *a, const void *b);

#endif
