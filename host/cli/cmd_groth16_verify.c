/*
 * cmd_groth16_verify.c: `hyprove groth16 verify`, a proof checked as `snarkjs groth16 verify`
 * checks it (the same three files, in the same order).
 */
#include "cli.h"

#include <stdio.h>
#include <stdlib.h>

const char cli_verify_help[] =
    "usage: hyprove groth16 verify VERIFICATION_KEY.json PUBLIC.json PROOF.json\n"
    "\n"
    "Checks a Groth16 proof as `snarkjs groth16 verify` does (the same files, in the same\n"
    "order; BN254 and BLS12-381): every point on its curve and in its subgroup, every public\n"
    "signal below r, then the pairing equation. Exit status: 0 the proof verifies (\"OK\" on\n"
    "stdout), 3 it does not, 1 a file that is missing, unreadable or malformed (a point off its\n"
    "curve or outside its subgroup included), 2 bad arguments.\n";


/* The three files read, then hpr_groth16_verify_json: exit 0 valid, 3 invalid, 1 when a file
 * could not be read or checked. */
static int verify_files(const char *const *pos)
{
    unsigned char *text[3] = {NULL, NULL, NULL};
    size_t len[3];
    hpr_ctx *ctx = NULL;
    hpr_config cfg;
    int rc = CLI_EXIT_FAILURE;
    for (int i = 0; i < 3; i++)
        if (cli_read_file(pos[i], &text[i], &len[i]) != 0)
            goto out;
    hpr_config_default(&cfg);
    cfg.devices = "cpu";
    hpr_status st = hpr_ctx_create(&cfg, &ctx);
    if (st != HPR_OK) {
        cli_status_error("creating the context", st, NULL);
        goto out;
    }
    st = hpr_groth16_verify_json(ctx, (const char *)text[0], len[0], (const char *)text[1], len[1],
                                 (const char *)text[2], len[2]);
    if (st == HPR_OK) {
        printf("OK: the proof verifies\n");
        rc = CLI_EXIT_OK;
    } else if (st == HPR_ERR_PROOF_INVALID) {
        fprintf(stderr, "hyprove: invalid proof: %s\n", hpr_ctx_error_detail(ctx));
        rc = CLI_EXIT_NOT_VERIFIED;
    } else {
        rc = cli_status_error("verifying", st, ctx);
    }
out:
    hpr_ctx_destroy(ctx);
    for (int i = 0; i < 3; i++)
        free(text[i]);
    return rc;
}

int cmd_groth16_verify(int argc, char **argv)
{
    const char *pos[3];
    int npos;
    int rc = cli_parse_args(argc, argv, "groth16 verify ", cli_verify_help, NULL, 0, pos, 3, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 3)
        return cli_usage_error("groth16 verify ", "expected VERIFICATION_KEY.json PUBLIC.json PROOF.json (%d given)",
                               npos);
    return verify_files(pos);
}
