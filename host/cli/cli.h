/*
 * cli.h: the subcommands of the hyprove CLI and their shared option parser.
 */
#ifndef HOST_CLI_CLI_H
#define HOST_CLI_CLI_H

#include "cli_util.h"

typedef struct {
    const char *name;   /* "--curve" */
    const char **value; /* receives the argument */
} cli_opt;

/* Parses argv[1..argc) as "--name VALUE" or "--name=VALUE" against opts; --help/-h prints
 * help to stdout. Returns -1 when parsing succeeded and the command should run, otherwise
 * the exit code to return (0 after --help, CLI_EXIT_USAGE after an error). */
int cli_parse_options(int argc, char **argv, const char *cmd, const char *help, const cli_opt *opts, size_t nopts);
/* The same, with up to max_pos positional arguments anywhere among the options (before, after
 * or between them; after "--" every argument is positional) collected into pos, their number
 * in *npos. More than max_pos is a usage error. */
int cli_parse_args(int argc, char **argv, const char *cmd, const char *help, const cli_opt *opts, size_t nopts,
                   const char **pos, int max_pos, int *npos);

int cmd_msm(int argc, char **argv);
int cmd_bench(int argc, char **argv);
int cmd_devices(int argc, char **argv);
int cmd_calibrate(int argc, char **argv);
int cmd_ntt(int argc, char **argv);
int cmd_bench_ntt(int argc, char **argv);
int cmd_groth16(int argc, char **argv);
/* A context for proofs from the CLI's --devices, --threads and --cpu-tier values (each may
 * be NULL): 0, or the exit code after printing the error (cmd names the command). */
int cli_groth16_ctx(const char *devices, const char *threads_s, const char *tier, const char *cmd, hpr_ctx **ctx);
/* `hyprove serve`: a Groth16 proving server over HTTP (cmd_serve.c). */
int cmd_serve(int argc, char **argv);
/* hyprove-prover (hyprove run under that name): rapidsnark's `prover` command line. */
int cmd_rapidsnark_prover(int argc, char **argv);
int cmd_bench_groth16(int argc, char **argv);
int cmd_default_job(void);
/* The main job's Groth16 example (cmd_groth16.c). */
int cli_example_proof(void);

#endif
