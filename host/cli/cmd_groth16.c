/*
 * cmd_groth16.c: `hyprove groth16` and its `prove` (snarkjs/rapidsnark argument order), and
 * `hyprove-prover` (the same proof under rapidsnark's `prover` contract); `groth16 verify` is
 * cmd_groth16_verify.c, `groth16 prove-batch` cmd_groth16_batch.c, `bench groth16`
 * cmd_bench_groth16.c.
 *
 * Under mpirun (cli_mpi.h) prove runs across the ranks: every rank maps the
 * zkey from the same path and makes its prover, rank 0 alone reads the witness, the ranks
 * agree that each is ready (one rank's bad key ends the job with one error on rank 0), and
 * hpr_cluster_groth16_prove deals the five MSMs to the ranks; rank 0 writes the outputs.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_bench.h"
#include "cli_groth16.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_mpi.h"
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/stat.h>

static const char *prove_help =
    "usage: hyprove groth16 prove CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json\n"
    "                             [--devices D] [--threads T] [--cpu-tier T] [--report] [--verify]\n"
    "                             [--json FILE] [--progress]\n"
    "\n"
    "Options may come before, between or after the four files. --verify checks the proof\n"
    "(the pairing equation with the zkey's verification key) before writing it: a proof that\n"
    "does not verify is reported with the devices that computed it, and nothing is written\n"
    "(exit status 1). It is the way to catch a witness that does not satisfy the circuit's\n"
    "constraints: the prover checks the witness's size, range and w[0] = 1, and the key's\n"
    "fixed points, but not the constraints themselves (that would cost their evaluation).\n"
    "A Groth16 proof of the witness (snarkjs .wtns) for the proving key (snarkjs .zkey, BN254\n"
    "or BLS12-381), written as snarkjs writes proof.json and public.json (both atomically;\n"
    "public.json is an empty array when the circuit has no public signals). r and s come from\n"
    "the OS's random generator. WITNESS.wtns may be - (stdin) or a FIFO, read to its end; the\n"
    "zkey must be a regular file (it is mapped). --devices: auto (default: the native CPU tiers\n"
    "and the GPUs; an OpenCL CPU device such as POCL only where calibrated to help, OpenCL not\n"
    "loaded when nothing of it would be used; --report says what it chose), all (the five MSMs\n"
    "dealt to every usable device, POCL included, the NTTs on the CPU, or on a GPU with the H\n"
    "MSM), cpu, or cl:P.D (the MSMs and NTTs there, h kept there for the H MSM).\n"
    "A device that fails is one warning line on stderr and its work is redone on the CPU\n"
    "(the proof is the same). --report prints the time of each phase, the devices that\n"
    "computed it and the device faults; --json FILE writes the same as a JSON record (as\n"
    "bench groth16 --json, with a faults array; - is stdout when neither output is).\n"
    "--threads T: CPU threads (default: all cores); --cpu-tier T: portable, adx, avx2 or\n"
    "avx512. On a terminal, a progress line shows while a proof takes over a second;\n"
    "--progress prints plain progress lines on stderr even when it is not a terminal.\n"
    "Under mpirun -np N (Open MPI builds) the proof is computed across the N ranks: every rank\n"
    "reads CIRCUIT.zkey from the same path, rank 0 alone reads WITNESS.wtns and writes the\n"
    "outputs; --report adds a line with the ranks' shares and the bytes they sent, and the\n"
    "--json record carries ranks and bytes_sent.\n";


/* The outputs (PROOF.json, PUBLIC.json: pos[2], pos[3]; and json when given) different files,
 * none of them the zkey or the wtns (pos[0], pos[1]): refused before any work. */
static int check_output_paths(const char *const *pos, const char *json)
{
    const char *outputs[3] = {pos[2], pos[3], json};
    size_t nout = json ? 3 : 2;
    if (cli_output_check_distinct(outputs, nout) != 0 || cli_output_check_not_inputs(outputs, nout, pos, 2) != 0)
        return CLI_EXIT_USAGE;
    return CLI_EXIT_OK;
}

/* groth16 prove --json: the proof's report as one record. */
static int write_report_json(const char *path, hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *device,
                             const hpr_groth16_report *r, const cli_faults *faults, const hpr_cluster_report *cluster)
{
    cli_json j;
    if (cli_json_begin(&j, path, "groth16 prove", ctx) != 0)
        return CLI_EXIT_FAILURE;
    cli_groth16_json_record(cli_json_record(&j), prover, device, ctx, 1, 0, r->seconds, r->total_s, r->total_s, r, faults,
                      cluster, NULL);
    return cli_json_end(&j) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

/* groth16 prove's options (NULL or 0 when not given). */
typedef struct {
    const char *devices, *threads, *tier, *json;
    int report, verify;
} prove_options;

/* The proof of the witness at path. The library reads regular files only (hpr_groth16_prove_file
 * refuses anything else, never blocking on it); a stream, "-" (stdin) or a FIFO, is read here
 * to EOF (cli_read_file: bounded) and proved from its bytes. 0, or the error printed. */
static int prove_witness(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *path, hpr_groth16_proof *proof)
{
    struct stat sb;
    unsigned char *data = NULL;
    size_t len = 0;
    hpr_status st;
    if (strcmp(path, "-") != 0 && (stat(path, &sb) != 0 || !S_ISFIFO(sb.st_mode)))
        st = hpr_groth16_prove_file(ctx, prover, path, proof);
    else if (cli_read_file(path, &data, &len) != 0)
        return CLI_EXIT_FAILURE;
    else
        st = hpr_groth16_prove(ctx, prover, data, len, proof);
    free(data);
    cli_progress_clear(); /* a failed call leaves its line: erased before the message */
    return st == HPR_OK ? CLI_EXIT_OK : cli_status_error("proving", st, ctx);
}

/* --report's memory line: the budget's estimate of the proof beside the process's peak RSS. */
static void print_memory(hpr_ctx *ctx, const hpr_groth16_prover *prover, FILE *to)
{
    size_t bytes;
    struct rusage ru;
    if (hpr_groth16_prover_memory(ctx, prover, 1, &bytes) != HPR_OK || getrusage(RUSAGE_SELF, &ru) != 0)
        return;
    fprintf(to, "memory: estimate %.1f MiB (the proof's working memory), peak RSS %.1f MiB (the whole process)\n",
            (double)bytes / (1 << 20), (double)ru.ru_maxrss / 1024);
}

/* --report's device line: what the default device set chose and why (nothing for a set asked for). */
static void print_device_choice(hpr_ctx *ctx, FILE *to)
{
    if (hpr_ctx_device_choice(ctx)[0])
        fprintf(to, "devices: %s\n", hpr_ctx_device_choice(ctx));
}

/* Rank 0's part after a proof across the ranks: verify (--verify), write, report. */
static int finish_across(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *const *pos,
                         const prove_options *po, const hpr_groth16_proof *proof, const hpr_cluster_report *report)
{
    cli_faults faults = {0};
    FILE *human = stdout;
    cli_faults_after_proof(ctx, proof->report, &faults); /* rank 0's devices */
    int rc = po->verify ? cli_groth16_verify_before_writing(ctx, prover, proof) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = cli_groth16_write_outputs(proof, pos[2], pos[3], &human);
    if (rc == CLI_EXIT_OK && po->report) {
        cli_groth16_print_report(proof->report, cli_table == stderr ? stderr : human);
        cli_cluster_print_report(cli_table == stderr ? stderr : human, report);
    }
    if (rc == CLI_EXIT_OK && po->json)
        rc = write_report_json(po->json, ctx, prover, hpr_ctx_devices(ctx), proof->report, &faults,
                               report);
    return rc;
}

/* groth16 prove across the ranks of a cluster: every rank makes its prover from the zkey,
 * rank 0 reads the witness (a file or a stream, whole), the ranks agree that all are ready,
 * and rank 0 writes what the collective proof gave it. */
static int prove_across(const char *const *pos, const prove_options *po)
{
    hpr_ctx *ctx = NULL;
    hpr_groth16_prover *prover = NULL;
    hpr_groth16_report phases = {.struct_size = sizeof phases};
    hpr_groth16_proof proof = {.struct_size = sizeof proof, .report = &phases};
    hpr_cluster_report report = {.struct_size = sizeof report};
    unsigned char *wtns = NULL;
    size_t wtns_len = 0;
    int leader = cli_cluster_leader();
    int rc = leader ? check_output_paths(pos, po->json) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = cli_ctx_from_options(po->devices, po->threads, po->tier, "groth16 prove ", leader ? "groth16 prove" : NULL, &ctx);
    if (rc == CLI_EXIT_OK) {
        hpr_status st = hpr_groth16_prover_create(ctx, pos[0], &prover);
        if (st != HPR_OK)
            rc = cli_status_error("reading the proving key", st, ctx);
    }
    if (rc == CLI_EXIT_OK && leader)
        rc = cli_read_file(pos[1], &wtns, &wtns_len);
    if ((rc = cli_cluster_agree(ctx, rc)) != 0)
        goto out;
    hpr_status st = hpr_cluster_groth16_prove(ctx, cli_cluster(), prover, wtns, wtns_len, &proof, &report);
    cli_progress_clear();
    if (st != HPR_OK) {
        rc = cli_status_error("proving", st, ctx);
        goto out;
    }
    if (leader)
        rc = finish_across(ctx, prover, pos, po, &proof, &report);
    hpr_groth16_proof_clear(&proof);
out:
    free(wtns);
    hpr_groth16_prover_destroy(prover);
    hpr_ctx_destroy(ctx);
    return rc;
}

static int prove(const char *const *pos, const prove_options *po)
{
    hpr_ctx *ctx = NULL;
    hpr_groth16_prover *prover = NULL;
    hpr_groth16_report report = {.struct_size = sizeof report};
    hpr_groth16_proof proof = {.struct_size = sizeof proof, .report = &report};
    cli_faults faults = {0};
    FILE *human = stdout;
    int rc = check_output_paths(pos, po->json);
    if (rc == CLI_EXIT_OK)
        rc = cli_ctx_from_options(po->devices, po->threads, po->tier, "groth16 prove ", "groth16 prove", &ctx);
    if (rc)
        return rc;
    hpr_status st = hpr_groth16_prover_create(ctx, pos[0], &prover);
    if (st != HPR_OK) {
        rc = cli_status_error("reading the proving key", st, ctx);
        goto out;
    }
    if ((rc = prove_witness(ctx, prover, pos[1], &proof)) != CLI_EXIT_OK)
        goto out;
    cli_faults_after_proof(ctx, proof.report, &faults); /* a device that failed: one warning line */
    rc = po->verify ? cli_groth16_verify_before_writing(ctx, prover, &proof) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = cli_groth16_write_outputs(&proof, pos[2], pos[3], &human);
    if (rc == CLI_EXIT_OK && po->report) {
        cli_groth16_print_report(proof.report, cli_table == stderr ? stderr : human); /* --json - */
        print_memory(ctx, prover, cli_table == stderr ? stderr : human);
        print_device_choice(ctx, cli_table == stderr ? stderr : human);
    }
    if (rc == CLI_EXIT_OK && po->json)
        rc = write_report_json(po->json, ctx, prover, hpr_ctx_devices(ctx), proof.report, &faults, NULL);
    hpr_groth16_proof_clear(&proof);
out:
    hpr_groth16_prover_destroy(prover);
    hpr_ctx_destroy(ctx);
    return rc;
}

int cmd_groth16(int argc, char **argv)
{
    const char *devices = NULL, *threads_s = NULL, *tier = NULL, *json = NULL, *pos[4];
    int report = 0, verify = 0, npos;
    const cli_opt opts[] = {CLI_OPT("--devices", &devices), CLI_OPT("--threads", &threads_s), CLI_OPT("--cpu-tier", &tier),
                            CLI_OPT("--json", &json), CLI_OPT_FLAG("--report", &report), CLI_OPT_FLAG("--verify", &verify),
                            CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    if (argc >= 2 && strcmp(argv[1], "verify") == 0)
        return cli_cluster_refuse("groth16 verify") >= 0 ? CLI_EXIT_USAGE : cmd_groth16_verify(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "prove-batch") == 0)
        return cmd_groth16_prove_batch(argc - 1, argv + 1);
    if (argc >= 2 && strcmp(argv[1], "setup") == 0)
        return cli_cluster_refuse("groth16 setup") >= 0 ? CLI_EXIT_USAGE : cmd_groth16_setup(argc - 1, argv + 1);
    if (argc < 2 || strcmp(argv[1], "prove") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            fputs(prove_help, stdout);
            fputs("\n", stdout);
            fputs(cli_prove_batch_help, stdout);
            fputs("\n", stdout);
            fputs(cli_verify_help, stdout);
            fputs("\n", stdout);
            fputs(cli_setup_help, stdout);
            return CLI_EXIT_OK;
        }
        return cli_usage_error("groth16 ",
                               argc < 2 ? "missing subcommand (prove, prove-batch, verify, setup)"
                                        : "unknown subcommand '%s' (prove, prove-batch, verify, setup)",
                               argc < 2 ? "" : argv[1]);
    }
    argc--, argv++;
    int rc = cli_parse_args(argc, argv, "groth16 prove ", prove_help, opts, sizeof opts / sizeof opts[0], pos, 4, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 4)
        return cli_usage_error("groth16 prove ", "expected CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json (%d given)",
                               npos);
    cli_table_for_output(json);
    prove_options po = {devices, threads_s, tier, json, report, verify};
    return cli_cluster() ? prove_across(pos, &po) : prove(pos, &po);
}

/* ---- hyprove-prover: rapidsnark's `prover` command line ---- */

/* Exactly `prover <circuit.zkey> <witness.wtns> <proof.json> <public.json>` as rapidsnark's
 * binary takes it: no options, exit status 0 on success and 1 (EXIT_FAILURE) on any error,
 * the message on stderr. The proof is hyprove's on the default devices (all), written as
 * `hyprove groth16 prove` writes it (snarkjs's form, both files or neither). */
int cmd_rapidsnark_prover(int argc, char **argv)
{
    if (argc != 5) {
        fputs("Invalid number of parameters:\n"
              "Usage: hyprove-prover <circuit.zkey> <witness.wtns> <proof.json> <public.json>\n",
              stderr);
        return 1;
    }
    const char *pos[4] = {argv[1], argv[2], argv[3], argv[4]};
    static const prove_options defaults;
    return prove(pos, &defaults) == CLI_EXIT_OK ? 0 : 1;
}

