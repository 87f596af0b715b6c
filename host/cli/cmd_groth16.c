/*
 * cmd_groth16.c: `hyprove groth16 prove` (snarkjs/rapidsnark argument order) and
 * `hyprove bench groth16` (proof times per phase, median of R runs); `groth16 prove-batch` is
 * in cmd_groth16_batch.c.
 *
 * Under mpirun (cli_mpi.h) prove and bench groth16 run across the ranks: every rank maps the
 * zkey from the same path and makes its prover, rank 0 alone reads the witness, the ranks
 * agree that each is ready (one rank's bad key ends the job with one error on rank 0), and
 * hpr_cluster_groth16_prove deals the five MSMs to the ranks; rank 0 writes the outputs.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_mpi.h"
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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
    "zkey must be a regular file (it is mapped). --devices: all (default: the five MSMs dealt\n"
    "to every usable device, the NTTs on the CPU, or on a GPU with the H MSM), cpu, or cl:P.D\n"
    "(the MSMs and NTTs there, h kept there for the H MSM).\n"
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

static const char *verify_help =
    "usage: hyprove groth16 verify VERIFICATION_KEY.json PUBLIC.json PROOF.json\n"
    "\n"
    "Checks a Groth16 proof as `snarkjs groth16 verify` does (the same files, in the same\n"
    "order; BN254 and BLS12-381): every point on its curve and in its subgroup, every public\n"
    "signal below r, then the pairing equation. Exit status: 0 the proof verifies (\"OK\" on\n"
    "stdout), 1 it does not, 2 bad arguments or a file that is missing or malformed.\n";

static const char *bench_help =
    "usage: hyprove bench groth16 CIRCUIT.zkey WITNESS.wtns [--repeat R] [--devices D[,D...]]\n"
    "                             [--threads T] [--cpu-tier T] [--precompute F[,F...]]\n"
    "                             [--json FILE] [--progress]\n"
    "\n"
    "Times whole proofs (the witness file read, h, the five MSMs, the blinding): one warm-up,\n"
    "then R proofs (default 5) per device choice; prints the median of each phase and of the\n"
    "total, and the min total. The prover handle (the mapped zkey) is made once, as a proving\n"
    "server would. --devices: cpu (default), all, cl:P.D, or several side by side (cpu,all).\n"
    "--threads T: CPU threads (default: all cores); --cpu-tier T: portable, adx, avx2 or\n"
    "avx512. --precompute F,..: the prover's sections precomputed F times\n"
    "(hpr_groth16_prover_precompute; 1: none), a run per factor and device choice, each with\n"
    "a prover of its own. --json FILE: also write a record per run as JSON (atomically; - is\n"
    "stdout, the table then goes to stderr): op groth16, curve, constraints_log_n, n_vars,\n"
    "n_public, device, cpu_tier, threads, repeat, precompute, setup_ms (the time to\n"
    "precompute), precomputed_bytes, total_median_ms, total_min_ms, phases (each\n"
    "phase's median_ms and devices), faults (the devices that failed in the proofs: device,\n"
    "error, tiles_failed, dropped). --progress: progress lines on stderr even when it is\n"
    "not a terminal. Under mpirun -np N (Open MPI builds) each proof runs across the N ranks\n"
    "(every rank reads the zkey, rank 0 the witness); rank 0 prints the times, the ranks and\n"
    "the bytes sent per proof, and the records carry ranks and bytes_sent.\n";

static const char *phase_names[HPR_G16_PHASES] = {"witness", "h (NTTs)", "msm A", "msm B1", "msm B2 (G2)",
                                                  "msm C", "msm H", "assemble"};

/* cli_groth16_ctx, with the progress display for what (NULL: none, as the server wants). */
static int groth16_ctx(const char *devices, const char *threads_s, const char *tier, const char *cmd,
                       const char *progress_what, hpr_ctx **ctx)
{
    hpr_config cfg;
    unsigned long long v = 0;
    const char *why;
    hpr_config_default(&cfg);
    if (threads_s && cli_parse_uint(threads_s, 1, 1024, &v) != 0)
        return cli_usage_error(cmd, "--threads '%s' is not an integer in 1..1024", threads_s);
    if (devices && cli_parse_device(devices, 1) != 0)
        return cli_usage_error(cmd, "--devices '%s' is not cpu, all or cl:P.D", devices);
    cfg.threads = (unsigned)v;
    cfg.devices = devices ? devices : "all";
    cfg.cpu_tier = tier;
    if (progress_what)
        cli_progress_attach(&cfg, progress_what);
    hpr_status st = hpr_ctx_create(&cfg, ctx);
    if ((st == HPR_ERR_CPU_TIER || st == HPR_ERR_INVALID_ARGUMENT) && tier && hpr_cpu_tier_check(tier, &why) != HPR_OK)
        return cli_error("CPU tier '%s': %s", tier, why);
    if (st == HPR_ERR_UNKNOWN_DEVICE)
        return cli_error("unknown device '%s' (see 'hyprove devices')", cfg.devices);
    return st == HPR_OK ? 0 : cli_status_error("creating the context", st, NULL);
}

int cli_groth16_ctx(const char *devices, const char *threads_s, const char *tier, const char *cmd, hpr_ctx **ctx)
{
    return groth16_ctx(devices, threads_s, tier, cmd, NULL, ctx);
}

/* ---- prove ---- */

/* The phases' times and devices; under a phase that a device failed in, its faults; then the
 * devices that failed (none: no such line). */
static void print_report(const hpr_groth16_report *r, FILE *to)
{
    cli_faults faults = {0};
    fprintf(to, "%-12s %10s  %s\n", "phase", "time_ms", "devices");
    for (int i = 0; i < HPR_G16_PHASES; i++) {
        fprintf(to, "%-12s %10.2f  %s\n", phase_names[i], 1e3 * r->seconds[i], r->devices[i]);
        if (r->faults[i][0])
            fprintf(to, "%-12s %10s  fault: %s\n", "", "", r->faults[i]);
    }
    fprintf(to, "%-12s %10.2f\n", "total", 1e3 * r->total_s);
    cli_faults_add(&faults, r->failed, r->nfailed, "the CPU"); /* warned already: no line again */
    cli_faults_print(to, &faults, "device fault: ");
}

int cli_groth16_write_outputs(const hpr_groth16_proof *proof, const char *proof_path, const char *public_path, FILE **human)
{
    char *pj = NULL, *uj = NULL;
    cli_output outs[2];
    int rc = CLI_EXIT_FAILURE;
    memset(outs, 0, sizeof outs);
    hpr_status st = hpr_groth16_proof_json(proof, &pj, &uj);
    if (st != HPR_OK)
        return cli_error("formatting the proof: %s", hpr_status_str(st));
    if (cli_output_open(&outs[0], proof_path) != 0 || cli_output_open(&outs[1], public_path) != 0)
        goto out;
    *human = cli_output_is_stdout(&outs[0]) || cli_output_is_stdout(&outs[1]) ? stderr : stdout;
    fputs(pj, outs[0].fp);
    fputs(uj, outs[1].fp);
    rc = cli_output_commit_all(outs, 2) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
out:
    cli_output_abort(&outs[0]); /* after a commit or a failed open: nothing to do */
    cli_output_abort(&outs[1]);
    free(pj);
    free(uj);
    return rc;
}

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

/* "msm A: cl:0.0 100%; msm H: cpu 62%, cl:0.0 38%" from the phases that had devices. */
static void devices_of(const hpr_groth16_report *r, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int p = 0; p < HPR_G16_PHASES && used + 1 < len; p++)
        if (r->devices[p][0]) {
            int n = snprintf(out + used, len - used, "%s%s: %s", used ? "; " : "", phase_names[p], r->devices[p]);
            used += n > 0 ? (size_t)n : 0;
        }
}

/* The proof checked against the prover's key before anything is written. */
static int verify_before_writing(hpr_ctx *ctx, const hpr_groth16_prover *prover, const hpr_groth16_proof *proof)
{
    char devs[HPR_G16_PHASES * 100];
    hpr_status st = hpr_groth16_verify(ctx, prover, proof);
    if (st == HPR_OK)
        return CLI_EXIT_OK;
    devices_of(&proof->report, devs, sizeof devs);
    if (st == HPR_ERR_PROOF_INVALID)
        return cli_error("the proof does not verify (computed on %s): the witness does not satisfy the circuit's "
                         "constraints, or the key and the witness do not belong together, or a device computed "
                         "a wrong result; nothing written", devs[0] ? devs : "cpu");
    return cli_status_error("verifying the proof", st, ctx);
}

/* snake_case phase names of the JSON records. */
static const char *phase_keys[HPR_G16_PHASES] = {"witness", "h", "msm_a", "msm_b1", "msm_b2", "msm_c", "msm_h",
                                                 "assemble"};

/* One JSON record of a proof (or of the medians of several: seconds[], total and min). */
static void json_proof_record(FILE *fp, const hpr_groth16_prover *prover, const char *device, hpr_ctx *ctx,
                              unsigned repeat, double setup_s, const double *seconds, double total_s,
                              double min_total_s, const hpr_groth16_report *last, const cli_faults *faults,
                              const hpr_cluster_report *cluster)
{
    size_t domain = 0, n_vars = 0, n_public = 0, pre_bytes = 0;
    unsigned log_domain = 0, f = hpr_groth16_prover_precomputed(prover, &pre_bytes);
    hpr_groth16_prover_sizes(prover, &domain, &n_vars, &n_public);
    while (((size_t)1 << log_domain) < domain)
        log_domain++;
    fprintf(fp, "{\"op\": \"groth16\", \"curve\": \"%s\", \"constraints_log_n\": %u, \"n_vars\": %zu, "
            "\"n_public\": %zu, \"device\": \"%s\", \"cpu_tier\": \"%s\", \"threads\": %u, \"repeat\": %u, "
            "\"precompute\": %u, \"setup_ms\": %.3f, \"precomputed_bytes\": %zu, "
            "\"total_median_ms\": %.3f, \"total_min_ms\": %.3f, \"phases\": [",
            cli_curve_name(hpr_groth16_prover_curve(prover)), log_domain, n_vars, n_public, device,
            hpr_ctx_cpu_tier(ctx), hpr_ctx_threads(ctx), repeat, f, 1e3 * setup_s, pre_bytes, 1e3 * total_s,
            1e3 * min_total_s);
    for (int i = 0; i < HPR_G16_PHASES; i++) {
        fprintf(fp, "%s{\"phase\": \"%s\", \"median_ms\": %.3f, \"devices\": ", i ? ", " : "", phase_keys[i],
                1e3 * seconds[i]);
        cli_json_string(fp, last->devices[i][0] ? last->devices[i] : "cpu");
        fputs("}", fp);
    }
    fprintf(fp, "], \"ranks\": %u, \"bytes_sent\": %llu", cluster ? cluster->ranks : 1,
            cluster ? (unsigned long long)cluster->bytes_sent : 0ull);
    cli_faults_json(fp, faults);
    fputs("}", fp);
}

/* groth16 prove --json: the proof's report as one record. */
static int write_report_json(const char *path, hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *device,
                             const hpr_groth16_report *r, const cli_faults *faults, const hpr_cluster_report *cluster)
{
    cli_json j;
    if (cli_json_begin(&j, path, "groth16 prove", ctx) != 0)
        return CLI_EXIT_FAILURE;
    json_proof_record(cli_json_record(&j), prover, device, ctx, 1, 0, r->seconds, r->total_s, r->total_s, r, faults,
                      cluster);
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

/* Rank 0's part after a proof across the ranks: verify (--verify), write, report. */
static int finish_across(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *const *pos,
                         const prove_options *po, const hpr_groth16_proof *proof, const hpr_cluster_report *report)
{
    cli_faults faults = {0};
    FILE *human = stdout;
    cli_faults_after_proof(ctx, &proof->report, &faults); /* rank 0's devices */
    int rc = po->verify ? verify_before_writing(ctx, prover, proof) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = cli_groth16_write_outputs(proof, pos[2], pos[3], &human);
    if (rc == CLI_EXIT_OK && po->report) {
        print_report(&proof->report, cli_table == stderr ? stderr : human);
        cli_cluster_print_report(cli_table == stderr ? stderr : human, report);
    }
    if (rc == CLI_EXIT_OK && po->json)
        rc = write_report_json(po->json, ctx, prover, po->devices ? po->devices : "all", &proof->report, &faults,
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
    hpr_groth16_proof proof;
    hpr_cluster_report report = {0};
    unsigned char *wtns = NULL;
    size_t wtns_len = 0;
    int leader = cli_cluster_leader();
    int rc = leader ? check_output_paths(pos, po->json) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = groth16_ctx(po->devices, po->threads, po->tier, "groth16 prove ", leader ? "groth16 prove" : NULL, &ctx);
    if (rc == CLI_EXIT_OK) {
        hpr_status st = hpr_groth16_prover_create(ctx, pos[0], &prover);
        if (st != HPR_OK)
            rc = cli_status_error("reading the proving key", st, ctx);
    }
    if (rc == CLI_EXIT_OK && leader)
        rc = cli_read_file(pos[1], &wtns, &wtns_len);
    if ((rc = cli_cluster_agree(ctx, rc)) != 0)
        goto out;
    memset(&proof, 0, sizeof proof);
    hpr_status st = hpr_cluster_groth16_prove(ctx, cli_cluster(), prover, wtns, wtns_len, &proof, &report);
    cli_progress_clear();
    if (st != HPR_OK) {
        rc = cli_status_error("proving", st, ctx);
        goto out;
    }
    if (leader)
        rc = finish_across(ctx, prover, pos, po, &proof, &report);
    hpr_groth16_proof_free(&proof);
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
    hpr_groth16_proof proof;
    cli_faults faults = {0};
    FILE *human = stdout;
    int rc = check_output_paths(pos, po->json);
    if (rc == CLI_EXIT_OK)
        rc = groth16_ctx(po->devices, po->threads, po->tier, "groth16 prove ", "groth16 prove", &ctx);
    if (rc)
        return rc;
    hpr_status st = hpr_groth16_prover_create(ctx, pos[0], &prover);
    if (st != HPR_OK) {
        rc = cli_status_error("reading the proving key", st, ctx);
        goto out;
    }
    if ((rc = prove_witness(ctx, prover, pos[1], &proof)) != CLI_EXIT_OK)
        goto out;
    cli_faults_after_proof(ctx, &proof.report, &faults); /* a device that failed: one warning line */
    rc = po->verify ? verify_before_writing(ctx, prover, &proof) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = cli_groth16_write_outputs(&proof, pos[2], pos[3], &human);
    if (rc == CLI_EXIT_OK && po->report)
        print_report(&proof.report, cli_table == stderr ? stderr : human); /* --json - */
    if (rc == CLI_EXIT_OK && po->json)
        rc = write_report_json(po->json, ctx, prover, po->devices ? po->devices : "all", &proof.report, &faults, NULL);
    hpr_groth16_proof_free(&proof);
out:
    hpr_groth16_prover_destroy(prover);
    hpr_ctx_destroy(ctx);
    return rc;
}

/* The three files read, then hpr_groth16_verify_json: exit 0 valid, 1 invalid, 2 otherwise. */
static int verify_files(const char *const *pos)
{
    unsigned char *text[3] = {NULL, NULL, NULL};
    size_t len[3];
    hpr_ctx *ctx = NULL;
    hpr_config cfg;
    int rc = CLI_EXIT_USAGE;
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
        rc = CLI_EXIT_FAILURE;
    } else {
        cli_status_error("verifying", st, ctx);
        rc = CLI_EXIT_USAGE;
    }
out:
    hpr_ctx_destroy(ctx);
    for (int i = 0; i < 3; i++)
        free(text[i]);
    return rc;
}

static int cmd_groth16_verify(int argc, char **argv)
{
    const char *pos[3];
    int npos;
    int rc = cli_parse_args(argc, argv, "groth16 verify ", verify_help, NULL, 0, pos, 3, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 3)
        return cli_usage_error("groth16 verify ", "expected VERIFICATION_KEY.json PUBLIC.json PROOF.json (%d given)",
                               npos);
    return verify_files(pos);
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
    if (argc < 2 || strcmp(argv[1], "prove") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            fputs(prove_help, stdout);
            fputs("\n", stdout);
            fputs(cli_prove_batch_help, stdout);
            fputs("\n", stdout);
            fputs(verify_help, stdout);
            return CLI_EXIT_OK;
        }
        return cli_usage_error("groth16 ",
                               argc < 2 ? "missing subcommand (prove, prove-batch, verify)"
                                        : "unknown subcommand '%s' (prove, prove-batch, verify)",
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

/* ---- bench ---- */

/* The witness for bench groth16: alone, its path (the library reads it for every proof, as
 * a server would); across ranks, rank 0's bytes (read once). */
typedef struct {
    const char *path;
    unsigned char *data;
    size_t len;
} bench_witness;

/* One proof, alone or across the ranks; *wall_s its time on this rank. */
static hpr_status prove_once(hpr_ctx *ctx, const hpr_groth16_prover *prover, const bench_witness *w,
                             hpr_groth16_proof *proof, hpr_cluster_report *report, double *wall_s)
{
    const hpr_cluster *cl = cli_cluster();
    double t0 = cli_now_seconds();
    hpr_status st = cl ? hpr_cluster_groth16_prove(ctx, cl, prover, w->data, w->len, proof, report)
                       : hpr_groth16_prove_file(ctx, prover, w->path, proof);
    *wall_s = cli_now_seconds() - t0;
    return st;
}

static int bench_one(hpr_ctx *ctx, const hpr_groth16_prover *prover, const bench_witness *wtns, unsigned repeat,
                     const char *device, double setup_s, cli_json *json)
{
    hpr_cluster_report cluster = {0};
    double wall_s = 0;
    double medians[HPR_G16_PHASES];
    double *runs = malloc((size_t)(repeat + 1) * HPR_G16_PHASES * sizeof *runs), *col = malloc(repeat * sizeof *col);
    double *totals = malloc(repeat * sizeof *totals);
    hpr_groth16_proof proof;
    hpr_groth16_report last = {0};
    cli_faults faults = {0};
    int rc = CLI_EXIT_OK;
    if ((rc = cli_cluster_agree(ctx, !runs || !col || !totals ? cli_error("out of memory") : 0)) != 0)
        goto out;
    for (unsigned k = 0; k <= repeat; k++) { /* run 0 warms up */
        memset(&proof, 0, sizeof proof);
        hpr_status st = prove_once(ctx, prover, wtns, &proof, &cluster, &wall_s);
        if (st != HPR_OK) {
            rc = cli_status_error("proving", st, ctx);
            goto out;
        }
        cli_faults_after_proof(ctx, &proof.report, &faults);
        if (k > 0) {
            for (int i = 0; i < HPR_G16_PHASES; i++)
                runs[(k - 1) * HPR_G16_PHASES + i] = proof.report.seconds[i];
            totals[k - 1] = cli_cluster() ? wall_s : proof.report.total_s; /* across ranks: rank 0's wall time */
        }
        last = proof.report;
        hpr_groth16_proof_free(&proof);
    }
    size_t pre_bytes = 0;
    unsigned f = hpr_groth16_prover_precomputed(prover, &pre_bytes);
    fprintf(cli_table, "device %s, median of %u proofs:\n", device, repeat);
    if (f > 1)
        fprintf(cli_table, "sections precomputed %u times: made in %.1f ms, %.1f MiB on the host\n", f, 1e3 * setup_s,
                (double)pre_bytes / 1048576.0);
    fprintf(cli_table, "%-12s %10s  %s\n", "phase", "time_ms", "devices (last run)");
    for (int i = 0; i < HPR_G16_PHASES; i++) {
        for (unsigned k = 0; k < repeat; k++)
            col[k] = runs[k * HPR_G16_PHASES + i];
        qsort(col, repeat, sizeof *col, cli_compare_doubles);
        medians[i] = col[repeat / 2];
        fprintf(cli_table, "%-12s %10.2f  %s\n", phase_names[i], 1e3 * medians[i], last.devices[i]);
    }
    qsort(totals, repeat, sizeof *totals, cli_compare_doubles);
    fprintf(cli_table, "%-12s %10.2f  (min %.2f)\n", "total", 1e3 * totals[repeat / 2], 1e3 * totals[0]);
    if (cli_cluster()) {
        fprintf(cli_table, "ranks %u, bytes sent per proof %llu\n", cluster.ranks,
                (unsigned long long)cluster.bytes_sent);
        cli_cluster_print_report(stderr, &cluster);
    }
    cli_faults_print(cli_table, &faults, "device fault: ");
    fputs("\n", cli_table);
    if (json)
        json_proof_record(cli_json_record(json), prover, device, ctx, repeat, setup_s, medians, totals[repeat / 2],
                          totals[0], &last, &faults, cli_cluster() ? &cluster : NULL);
out:
    free(runs);
    free(col);
    free(totals);
    return rc;
}

/* hpr_groth16_prover_precompute(f) timed into *seconds (f = 1: nothing to do, exactly 0 s). */
static hpr_status timed_precompute(hpr_ctx *ctx, hpr_groth16_prover *prover, unsigned f, double *seconds)
{
    *seconds = 0;
    if (f <= 1)
        return HPR_OK;
    double t0 = cli_now_seconds();
    hpr_status st = hpr_groth16_prover_precompute(ctx, prover, f);
    *seconds = cli_now_seconds() - t0;
    return st;
}

int cmd_bench_groth16(int argc, char **argv)
{
    const char *devices_s = NULL, *threads_s = NULL, *tier = NULL, *repeat_s = NULL, *json_s = NULL, *pos[2];
    const char *precompute_s = NULL;
    const cli_opt opts[] = {CLI_OPT_LIST("--devices", &devices_s),    CLI_OPT("--threads", &threads_s),
                            CLI_OPT("--cpu-tier", &tier),             CLI_OPT("--repeat", &repeat_s),
                            CLI_OPT_LIST("--precompute", &precompute_s), CLI_OPT("--json", &json_s),
                            CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    cli_json j, *json = NULL;
    char devices[8][CLI_DEVICE_NAME_LEN];
    unsigned factors[8] = {1};
    size_t ndev = 1, nfactors = 1;
    unsigned long long repeat = 5;
    int npos;
    int rc = cli_parse_args(argc, argv, "bench groth16 ", bench_help, opts, sizeof opts / sizeof opts[0], pos, 2, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 2)
        return cli_usage_error("bench groth16 ", "expected CIRCUIT.zkey WITNESS.wtns");
    if (repeat_s && cli_parse_uint(repeat_s, 1, 1000, &repeat) != 0)
        return cli_usage_error("bench groth16 ", "--repeat '%s' is not an integer in 1..1000", repeat_s);
    if (devices_s) {
        if (cli_parse_device_list(devices_s, 1, devices, 8, &ndev) != 0)
            return cli_usage_error("bench groth16 ", "--devices '%s': expected cpu, all or cl:P.D, comma-separated",
                                   devices_s);
    } else {
        snprintf(devices[0], sizeof devices[0], "cpu");
    }
    if (precompute_s && cli_parse_uint_list(precompute_s, 1, 16, factors, 8, &nfactors))
        return cli_usage_error("bench groth16 ", "--precompute '%s': expected at most 8 comma-separated factors in 1..16",
                               precompute_s);
    cli_table_for_output(json_s);
    if (!cli_cluster_leader())
        json_s = NULL; /* rank 0 writes the outputs */
    if (json_s && cli_json_begin(&j, json_s, "bench groth16", NULL) != 0)
        return cli_cluster_agree(NULL, CLI_EXIT_FAILURE);
    json = json_s ? &j : NULL;
    rc = 0;
    bench_witness wtns = {pos[1], NULL, 0};
    for (size_t run = 0; run < ndev * nfactors && rc == 0; run++) {
        const char *device = devices[run / nfactors];
        hpr_ctx *ctx = NULL;
        hpr_groth16_prover *prover = NULL;
        double setup_s = 0;
        rc = groth16_ctx(device, threads_s, tier, "bench groth16 ", "groth16 prove", &ctx);
        hpr_status st = rc ? HPR_OK : hpr_groth16_prover_create(ctx, pos[0], &prover);
        if (st != HPR_OK)
            rc = cli_status_error("reading the proving key", st, ctx);
        if (!rc && (st = timed_precompute(ctx, prover, factors[run % nfactors], &setup_s)) != HPR_OK)
            rc = cli_status_error("precomputing the proving key's sections", st, ctx);
        if (!rc && cli_cluster() && cli_cluster_leader() && !wtns.data) /* across ranks: rank 0's bytes */
            rc = cli_read_file(pos[1], &wtns.data, &wtns.len);
        if ((rc = cli_cluster_agree(ctx, rc)) == 0) /* alone: rc */
            rc = bench_one(ctx, prover, &wtns, (unsigned)repeat, device, setup_s, json);
        hpr_groth16_prover_destroy(prover);
        hpr_ctx_destroy(ctx);
    }
    free(wtns.data);
    if (json && rc)
        cli_json_abort(json);
    else if (json && cli_json_end(json) != 0)
        rc = CLI_EXIT_FAILURE;
    return rc;
}

/* ---- the main job's example proof ---- */

/* The example circuit inside the binary (example_circuit.c, made at build time by
 * scripts/embed_bin.py from tests/fixtures/bn128_2e10): a circom circuit of 2^10 constraints
 * on BN254, so the main job runs from any directory, installed or not. */
extern const unsigned char cli_example_zkey[], cli_example_wtns[];
extern const size_t cli_example_zkey_len, cli_example_wtns_len;

/* The example proved, verified and, when $HPR_EXAMPLE_OUT names a directory, written there as
 * proof.json and public.json (nothing is written otherwise). */
static int example_prove(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *out_dir)
{
    hpr_groth16_proof proof;
    char proof_path[1100], public_path[1100];
    FILE *human = stdout;
    hpr_status st = hpr_groth16_prove(ctx, prover, cli_example_wtns, cli_example_wtns_len, &proof);
    if (st != HPR_OK)
        return cli_status_error("proving the example", st, ctx);
    cli_faults_after_proof(ctx, &proof.report, NULL);
    int rc = verify_before_writing(ctx, prover, &proof);
    if (rc == CLI_EXIT_OK && out_dir) {
        snprintf(proof_path, sizeof proof_path, "%s/proof.json", out_dir);
        snprintf(public_path, sizeof public_path, "%s/public.json", out_dir);
        rc = cli_groth16_write_outputs(&proof, proof_path, public_path, &human);
    }
    if (rc == CLI_EXIT_OK) {
        print_report(&proof.report, stdout);
        if (out_dir)
            printf("proof verified and written: %s, %s\n", proof_path, public_path);
        else
            printf("proof verified (pairing check against the key); set HPR_EXAMPLE_OUT=DIR to keep it\n");
    }
    hpr_groth16_proof_free(&proof);
    return rc;
}

int cli_example_proof(void)
{
    hpr_ctx *ctx = NULL;
    hpr_groth16_prover *prover = NULL;
    int rc = cli_groth16_ctx("all", NULL, NULL, "", &ctx);
    if (rc)
        return rc;
    printf("Groth16 example: a proof of the bundled circuit (BN254, 2^10 constraints) on every device\n");
    hpr_status st = hpr_groth16_prover_create_from_buffer(ctx, cli_example_zkey, cli_example_zkey_len, &prover);
    rc = st == HPR_OK ? example_prove(ctx, prover, getenv("HPR_EXAMPLE_OUT"))
                      : cli_status_error("reading the example's proving key", st, ctx);
    hpr_groth16_prover_destroy(prover);
    hpr_ctx_destroy(ctx);
    return rc;
}
