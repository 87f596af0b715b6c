/*
 * cmd_groth16_setup.c: `hyprove groth16 setup --insecure-dev`, a development Groth16 setup of a
 * circom .r1cs (hpr_groth16_setup): the .zkey and, with --vk, its verification key. Both files
 * are written whole or not at all (cli_output.h), committed together.
 */
#include "cli.h"
#include "cli_bench.h"
#include "cli_output.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char cli_setup_help[] =
    "usage: hyprove groth16 setup --insecure-dev [--seed S] [--vk VK.json] [--threads T]\n"
    "                             CIRCUIT.r1cs OUT.zkey\n"
    "\n"
    "A Groth16 key for a circom circuit (.r1cs, BN254 or BLS12-381) in snarkjs's .zkey layout,\n"
    "which snarkjs, rapidsnark and hyprove prove with, and with --vk its verification key as\n"
    "`snarkjs zkey export verificationkey` writes it.\n"
    "\n"
    "INSECURE, FOR TESTS AND BENCHMARKS ONLY: this one process draws the toxic waste (tau,\n"
    "alpha, beta, delta), so whoever ran it could forge proofs for this key. Never use the\n"
    "key in production; make production keys with a multi-party ceremony (snarkjs powers of\n"
    "tau and zkey contribute). --insecure-dev is required to say you know this.\n"
    "\n"
    "  --seed S      draw the toxic waste from the text S (the same S and circuit give the same\n"
    "                bytes), for reproducible fixtures; without it, from getrandom\n"
    "  --vk VK.json  also write the verification key\n"
    "  --threads T   threads for the multiples of the generators (default: every core)\n"
    "\n"
    "Exit status: 0 written; 1 a missing, unreadable or malformed .r1cs, a write that failed or\n"
    "memory that ran out; 2 bad arguments. Files are written whole or not at all (a pipe or\n"
    "stdout as \"-\" is written as it comes).\n";

typedef struct {
    cli_output *out;
    int failed; /* a write failed: the setup stops */
} zkey_writer;

static int write_output(void *user, const void *bytes, size_t len)
{
    zkey_writer *w = user;
    if (fwrite(bytes, 1, len, w->out->fp) != len)
        w->failed = 1;
    return w->failed ? -1 : 0;
}

/* The outputs distinct and neither of them the circuit: refused before any work. */
static int check_paths(const char *r1cs, const char *zkey, const char *vk)
{
    const char *outputs[2] = {zkey, vk}, *inputs[1] = {r1cs};
    size_t nout = vk ? 2 : 1;
    if (cli_output_check_distinct(outputs, nout) != 0 || cli_output_check_not_inputs(outputs, nout, inputs, 1) != 0)
        return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

static int setup(const char *r1cs, const char *zkey, const char *vk, const char *seed, const char *threads_s)
{
    cli_output outs[2];
    hpr_ctx *ctx = NULL;
    char *vk_json = NULL;
    size_t nouts = 0;
    int rc = check_paths(r1cs, zkey, vk);
    memset(outs, 0, sizeof outs);
    if (rc != CLI_EXIT_OK || (rc = cli_ctx_from_options("cpu", threads_s, NULL, "groth16 setup ", NULL, &ctx)) != 0)
        return rc;
    rc = CLI_EXIT_FAILURE;
    if (cli_output_open(&outs[0], zkey) != 0)
        goto out;
    nouts = 1;
    if (vk && cli_output_open(&outs[nouts++], vk) != 0) {
        nouts--;
        goto out;
    }
    fprintf(stderr, "hyprove: INSECURE development setup: this process knows the toxic waste; the key is for tests "
                    "and benchmarks, never for production\n");
    zkey_writer writer = {&outs[0], 0};
    hpr_status st = hpr_groth16_setup(ctx, r1cs, HPR_SETUP_INSECURE_DEV, seed, write_output, &writer,
                                      vk ? &vk_json : NULL);
    if (st != HPR_OK) {
        rc = cli_status_error("setting up", st, ctx);
        goto out;
    }
    if (vk && fputs(vk_json, outs[1].fp) < 0) {
        rc = cli_error("cannot write '%s'", vk);
        goto out;
    }
    FILE *human = cli_output_is_stdout(&outs[0]) || (vk && cli_output_is_stdout(&outs[1])) ? stderr : stdout;
    rc = cli_output_commit_all(outs, nouts) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
    nouts = 0;
    if (rc == CLI_EXIT_OK)
        fprintf(human, "wrote %s%s%s (INSECURE: for tests and benchmarks only)\n", zkey, vk ? " and " : "",
                vk ? vk : "");
out:
    for (size_t i = 0; i < nouts; i++)
        cli_output_abort(&outs[i]);
    free(vk_json);
    hpr_ctx_destroy(ctx);
    return rc;
}

int cmd_groth16_setup(int argc, char **argv)
{
    const char *seed = NULL, *vk = NULL, *threads_s = NULL, *pos[2];
    int insecure = 0, npos;
    const cli_opt opts[] = {CLI_OPT("--seed", &seed), CLI_OPT("--vk", &vk), CLI_OPT("--threads", &threads_s),
                            CLI_OPT_FLAG("--insecure-dev", &insecure)};
    int rc = cli_parse_args(argc, argv, "groth16 setup ", cli_setup_help, opts, sizeof opts / sizeof opts[0], pos, 2,
                            &npos);
    if (rc >= 0)
        return rc;
    if (!insecure)
        return cli_usage_error("groth16 setup ",
                               "refused without --insecure-dev: this setup knows its toxic waste, so its keys are for "
                               "tests and benchmarks only, never for production");
    if (npos < 2)
        return cli_usage_error("groth16 setup ", "expected CIRCUIT.r1cs OUT.zkey (%d given)", npos);
    return setup(pos[0], pos[1], vk, seed, threads_s);
}
