/*
 * cli.h: the subcommands of the hyprove CLI and their shared option parser.
 */
#ifndef HOST_CLI_CLI_H
#define HOST_CLI_CLI_H

#include "cli_util.h"

#include <stdio.h>

/* How an option takes its values (cli_args.c). */
typedef enum {
    CLI_ONCE = 0, /* "--name VALUE" at most once: *value gets it */
    CLI_LIST,     /* a comma-separated list: repeats accumulate ("--log-n 10 --log-n 12" = "10,12") */
    CLI_FLAG,     /* no value: *flag set to 1; twice is an error */
    CLI_EACH      /* repeatable: each value in order into each[0..cap), *count of them */
} cli_opt_kind;

typedef struct {
    const char *name;   /* "--curve" */
    const char **value; /* CLI_ONCE, CLI_LIST: receives the argument (NULL before: not given) */
    cli_opt_kind kind;
    int *flag;          /* CLI_FLAG */
    const char **each;  /* CLI_EACH: cap slots, *count used */
    size_t cap, *count;
} cli_opt;

#define CLI_OPT(name, value) {name, value, CLI_ONCE, NULL, NULL, 0, NULL}
#define CLI_OPT_LIST(name, value) {name, value, CLI_LIST, NULL, NULL, 0, NULL}
#define CLI_OPT_FLAG(name, flag) {name, NULL, CLI_FLAG, flag, NULL, 0, NULL}
#define CLI_OPT_EACH(name, each, cap, count) {name, NULL, CLI_EACH, NULL, each, cap, count}

/* Parses argv[1..argc) with getopt_long against opts (cli_args.c): options as "--name VALUE"
 * or "--name=VALUE", positional arguments anywhere among them ("--" ends the options), up to
 * max_pos of them collected into pos (their number in *npos); --help/-h prints help to stdout.
 * Returns -1 when parsing succeeded and the command should run, otherwise the exit code to
 * return (0 after --help or a listing for HPR_LIST_OPTIONS, CLI_EXIT_USAGE after an error). */
int cli_parse_args(int argc, char **argv, const char *cmd, const char *help, const cli_opt *opts, size_t nopts,
                   const char **pos, int max_pos, int *npos);
/* The options before the command: argv[1..) up to the first word that is not an option.
 * --threads T and --max-memory SIZE are kept for the command's cli_parse_args, which parses
 * them ahead of its own arguments; --json FILE is the main job's (*json, NULL when not given).
 * *command receives the index of the command's word (argc: none, the main job, for which
 * --max-memory is applied here and --threads refused). --help and --version print main_help
 * or the version. Returns -1 to go on, else the exit code (0 after --help or --version). */
int cli_leading_options(int argc, char **argv, const char *main_help, int *command, const char **json);
/* Where tables and human-readable results go: stdout, or stderr when a command's JSON or
 * result output is stdout ("-"), so that the output stays parseable. */
extern FILE *cli_table;
/* cli_table set for an output path (NULL: none). */
void cli_table_for_output(const char *path);
/* cli_parse_args without positional arguments. */
int cli_parse_options(int argc, char **argv, const char *cmd, const char *help, const cli_opt *opts, size_t nopts);

int cmd_msm(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_ntt(int argc, char **argv);
int cmd_bench_ntt(int argc, char **argv);
/* `hyprove commit`, `hyprove bench commit` and `hyprove bench poseidon2` (cmd_commit.c). */
int cmd_commit(int argc, char **argv);
/* `hyprove commit verify FILE [--root ROOT.json]` (cmd_commit_verify.c) and its help. */
int cmd_commit_verify(int argc, char **argv);
extern const char cli_commit_verify_help[];
int cmd_bench_commit(int argc, char **argv);
int cmd_bench_poseidon2(int argc, char **argv);
int cmd_groth16(int argc, char **argv);
/* `hyprove groth16 verify VK PUBLIC PROOF` (cmd_groth16_verify.c) and its help. */
int cmd_groth16_verify(int argc, char **argv);
extern const char cli_verify_help[];
/* `hyprove groth16 setup --insecure-dev ... R1CS ZKEY` (cmd_groth16_setup.c) and its help. */
int cmd_groth16_setup(int argc, char **argv);
extern const char cli_setup_help[];
/* `hyprove groth16 prove-batch ZKEY WTNS_LIST OUTDIR` (cmd_groth16_batch.c) and its help. */
int cmd_groth16_prove_batch(int argc, char **argv);
extern const char cli_prove_batch_help[];
/* `hyprove serve`: a Groth16 proving server over HTTP (cmd_serve.c). */
int cmd_serve(int argc, char **argv);
/* hyprove-prover (hyprove run under that name): rapidsnark's `prover` command line. */
int cmd_rapidsnark_prover(int argc, char **argv);
int cmd_bench_groth16(int argc, char **argv);
/* The main job (hyprove with no command); json: also write its MSM table there (or NULL). */
int cmd_default_job(const char *json);
/* The main job's Groth16 example (cmd_groth16.c). */
int cli_example_proof(void);

#endif
