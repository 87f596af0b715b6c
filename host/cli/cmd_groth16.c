/*
 * cmd_groth16.c: `hyprove groth16 prove` (snarkjs/rapidsnark argument order) and
 * `hyprove bench groth16` (proof times per phase, median of R runs).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"

#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static const char *prove_help =
    "usage: hyprove groth16 prove CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json\n"
    "                             [--devices D] [--threads T] [--cpu-tier T] [--report] [--verify]\n"
    "\n"
    "Options may come before, between or after the four files. --verify checks the proof\n"
    "(the pairing equation with the zkey's verification key) before writing it: a proof that\n"
    "does not verify is reported with the devices that computed it, and nothing is written.\n"
    "A Groth16 proof of the witness (snarkjs .wtns) for the proving key (snarkjs .zkey, BN254\n"
    "or BLS12-381), written as snarkjs writes proof.json and public.json (both atomically;\n"
    "public.json is an empty array when the circuit has no public signals). r and s come from\n"
    "the OS's random generator. --devices: all (default: the five MSMs dealt to every usable\n"
    "device, the NTTs on the CPU), cpu, or cl:P.D (the MSMs and NTTs there). --report\n"
    "prints the time of each phase and the devices that computed it. On a terminal, a\n"
    "progress line shows while a proof takes over a second.\n";

static const char *verify_help =
    "usage: hyprove groth16 verify VERIFICATION_KEY.json PUBLIC.json PROOF.json\n"
    "\n"
    "Checks a Groth16 proof as `snarkjs groth16 verify` does (the same files, in the same\n"
    "order; BN254 and BLS12-381): every point on its curve and in its subgroup, every public\n"
    "signal below r, then the pairing equation. Exit status: 0 the proof verifies (\"OK\" on\n"
    "stdout), 1 it does not, 2 bad arguments or a file that is missing or malformed.\n";

static const char *bench_help =
    "usage: hyprove bench groth16 CIRCUIT.zkey WITNESS.wtns [--repeat R] [--devices D[,D...]]\n"
    "                             [--threads T] [--cpu-tier T]\n"
    "\n"
    "Times whole proofs (the witness file read, h, the five MSMs, the blinding): one warm-up,\n"
    "then R proofs (default 5) per device choice; prints the median of each phase and of the\n"
    "total, and the min total. The prover handle (the mapped zkey) is made once, as a proving\n"
    "server would.\n";

static const char *phase_names[HPR_G16_PHASES] = {"witness", "h (NTTs)", "msm A", "msm B1", "msm B2 (G2)",
                                                  "msm C", "msm H", "assemble"};

int cli_groth16_ctx(const char *devices, const char *threads_s, const char *tier, const char *cmd, hpr_ctx **ctx)
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
    hpr_status st = hpr_ctx_create(&cfg, ctx);
    if ((st == HPR_ERR_CPU_TIER || st == HPR_ERR_INVALID_ARGUMENT) && tier && hpr_cpu_tier_check(tier, &why) != HPR_OK)
        return cli_error("CPU tier '%s': %s", tier, why);
    if (st == HPR_ERR_UNKNOWN_DEVICE)
        return cli_error("unknown device '%s' (see 'hyprove devices')", cfg.devices);
    return st == HPR_OK ? 0 : cli_status_error("creating the context", st, NULL);
}

/* ---- the progress line ---- */

typedef struct {
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t cond;
    int done, shown, started;
    double t0;
} progress;

static void *progress_main(void *arg)
{
    progress *p = arg;
    pthread_mutex_lock(&p->lock);
    while (!p->done) {
        struct timespec until;
        clock_gettime(CLOCK_REALTIME, &until);
        until.tv_nsec += 250000000L;
        if (until.tv_nsec >= 1000000000L) {
            until.tv_sec++;
            until.tv_nsec -= 1000000000L;
        }
        pthread_cond_timedwait(&p->cond, &p->lock, &until);
        double elapsed = cli_now_seconds() - p->t0;
        if (!p->done && elapsed >= 1.0) {
            fprintf(stderr, "\rhyprove: proving... %.1f s", elapsed);
            fflush(stderr);
            p->shown = 1;
        }
    }
    if (p->shown)
        fprintf(stderr, "\r\033[K");
    pthread_mutex_unlock(&p->lock);
    return NULL;
}

static void progress_start(progress *p)
{
    memset(p, 0, sizeof *p);
    p->t0 = cli_now_seconds();
    if (!isatty(STDERR_FILENO))
        return;
    pthread_mutex_init(&p->lock, NULL);
    pthread_cond_init(&p->cond, NULL);
    p->started = pthread_create(&p->thread, NULL, progress_main, p) == 0;
}

static void progress_stop(progress *p)
{
    if (!p->started)
        return;
    pthread_mutex_lock(&p->lock);
    p->done = 1;
    pthread_cond_signal(&p->cond);
    pthread_mutex_unlock(&p->lock);
    pthread_join(p->thread, NULL);
    pthread_mutex_destroy(&p->lock);
    pthread_cond_destroy(&p->cond);
}

/* ---- prove ---- */

static void print_report(const hpr_groth16_report *r)
{
    printf("%-12s %10s  %s\n", "phase", "time_ms", "devices");
    for (int i = 0; i < HPR_G16_PHASES; i++)
        printf("%-12s %10.2f  %s\n", phase_names[i], 1e3 * r->seconds[i], r->devices[i]);
    printf("%-12s %10.2f\n", "total", 1e3 * r->total_s);
}

/* Both files through temporaries, renamed only when both are written. */
static int write_outputs(const hpr_groth16_proof *proof, const char *proof_path, const char *public_path)
{
    char *pj = NULL, *uj = NULL;
    cli_output po, uo;
    int rc = CLI_EXIT_FAILURE;
    hpr_status st = hpr_groth16_proof_json(proof, &pj, &uj);
    if (st != HPR_OK)
        return cli_error("formatting the proof: %s", hpr_status_str(st));
    if (cli_output_open(&po, proof_path) != 0)
        goto out;
    if (cli_output_open(&uo, public_path) != 0) {
        cli_output_abort(&po);
        goto out;
    }
    fputs(pj, (FILE *)po.fp);
    fputs(uj, (FILE *)uo.fp);
    if (cli_output_commit(&po) != 0) {
        cli_output_abort(&uo);
        goto out;
    }
    rc = cli_output_commit(&uo) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
out:
    free(pj);
    free(uj);
    return rc;
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
        return cli_error("the proof does not verify (computed on %s); nothing written", devs[0] ? devs : "cpu");
    return cli_status_error("verifying the proof", st, ctx);
}

static int prove(const char *const *pos, const char *devices, const char *threads_s, const char *tier, int report,
                 int verify)
{
    hpr_ctx *ctx = NULL;
    hpr_groth16_prover *prover = NULL;
    hpr_groth16_proof proof;
    progress prog;
    int rc = cli_groth16_ctx(devices, threads_s, tier, "groth16 prove ", &ctx);
    if (rc)
        return rc;
    hpr_status st = hpr_groth16_prover_create(ctx, pos[0], &prover);
    if (st != HPR_OK) {
        rc = cli_status_error("reading the proving key", st, ctx);
        goto out;
    }
    progress_start(&prog);
    st = hpr_groth16_prove_file(ctx, prover, pos[1], &proof);
    progress_stop(&prog);
    if (st != HPR_OK) {
        rc = cli_status_error("proving", st, ctx);
        goto out;
    }
    if (hpr_ctx_notice(ctx)[0])
        fprintf(stderr, "hyprove: notice: %s\n", hpr_ctx_notice(ctx));
    rc = verify ? verify_before_writing(ctx, prover, &proof) : CLI_EXIT_OK;
    if (rc == CLI_EXIT_OK)
        rc = write_outputs(&proof, pos[2], pos[3]);
    if (rc == CLI_EXIT_OK && report)
        print_report(&proof.report);
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
    const char *devices = NULL, *threads_s = NULL, *tier = NULL, *pos[4];
    const cli_opt opts[] = {{"--devices", &devices}, {"--threads", &threads_s}, {"--cpu-tier", &tier}};
    if (argc >= 2 && strcmp(argv[1], "verify") == 0)
        return cmd_groth16_verify(argc - 1, argv + 1);
    if (argc < 2 || strcmp(argv[1], "prove") != 0) {
        if (argc >= 2 && (strcmp(argv[1], "--help") == 0 || strcmp(argv[1], "-h") == 0)) {
            fputs(prove_help, stdout);
            fputs("\n", stdout);
            fputs(verify_help, stdout);
            return CLI_EXIT_OK;
        }
        return cli_usage_error("groth16 ",
                               argc < 2 ? "missing subcommand (prove, verify)" : "unknown subcommand '%s' (prove, verify)",
                               argc < 2 ? "" : argv[1]);
    }
    argc--, argv++;
    int report = cli_take_flag(&argc, argv, "--report"), verify = cli_take_flag(&argc, argv, "--verify"), npos;
    int rc = cli_parse_args(argc, argv, "groth16 prove ", prove_help, opts, sizeof opts / sizeof opts[0], pos, 4, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 4)
        return cli_usage_error("groth16 prove ", "expected CIRCUIT.zkey WITNESS.wtns PROOF.json PUBLIC.json (%d given)",
                               npos);
    return prove(pos, devices, threads_s, tier, report, verify);
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
    return prove(pos, NULL, NULL, NULL, 0, 0) == CLI_EXIT_OK ? 0 : 1;
}

/* ---- bench ---- */

static int bench_one(hpr_ctx *ctx, const hpr_groth16_prover *prover, const char *wtns, unsigned repeat,
                     const char *device)
{
    double *runs = malloc((size_t)(repeat + 1) * HPR_G16_PHASES * sizeof *runs), *col = malloc(repeat * sizeof *col);
    double *totals = malloc(repeat * sizeof *totals);
    hpr_groth16_proof proof;
    hpr_groth16_report last = {0};
    int rc = CLI_EXIT_OK;
    if (!runs || !col || !totals) {
        rc = cli_error("out of memory");
        goto out;
    }
    for (unsigned k = 0; k <= repeat; k++) { /* run 0 warms up */
        hpr_status st = hpr_groth16_prove_file(ctx, prover, wtns, &proof);
        if (st != HPR_OK) {
            rc = cli_status_error("proving", st, ctx);
            goto out;
        }
        if (k > 0) {
            for (int i = 0; i < HPR_G16_PHASES; i++)
                runs[(k - 1) * HPR_G16_PHASES + i] = proof.report.seconds[i];
            totals[k - 1] = proof.report.total_s;
        }
        last = proof.report;
        hpr_groth16_proof_free(&proof);
    }
    printf("device %s, median of %u proofs:\n%-12s %10s  %s\n", device, repeat, "phase", "time_ms", "devices (last run)");
    for (int i = 0; i < HPR_G16_PHASES; i++) {
        for (unsigned k = 0; k < repeat; k++)
            col[k] = runs[k * HPR_G16_PHASES + i];
        qsort(col, repeat, sizeof *col, cli_compare_doubles);
        printf("%-12s %10.2f  %s\n", phase_names[i], 1e3 * col[repeat / 2], last.devices[i]);
    }
    qsort(totals, repeat, sizeof *totals, cli_compare_doubles);
    printf("%-12s %10.2f  (min %.2f)\n\n", "total", 1e3 * totals[repeat / 2], 1e3 * totals[0]);
out:
    free(runs);
    free(col);
    free(totals);
    return rc;
}

int cmd_bench_groth16(int argc, char **argv)
{
    const char *devices_s = NULL, *threads_s = NULL, *tier = NULL, *repeat_s = NULL, *pos[2];
    const cli_opt opts[] = {{"--devices", &devices_s}, {"--threads", &threads_s}, {"--cpu-tier", &tier},
                            {"--repeat", &repeat_s}};
    char devices[8][CLI_DEVICE_NAME_LEN];
    size_t ndev = 1;
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
    for (size_t d = 0; d < ndev && rc <= 0; d++) {
        hpr_ctx *ctx = NULL;
        hpr_groth16_prover *prover = NULL;
        if ((rc = cli_groth16_ctx(devices[d], threads_s, tier, "bench groth16 ", &ctx)) != 0)
            return rc;
        hpr_status st = hpr_groth16_prover_create(ctx, pos[0], &prover);
        rc = st == HPR_OK ? bench_one(ctx, prover, pos[1], (unsigned)repeat, devices[d])
                          : cli_status_error("reading the proving key", st, ctx);
        hpr_groth16_prover_destroy(prover);
        hpr_ctx_destroy(ctx);
    }
    return rc > 0 ? rc : CLI_EXIT_OK;
}

/* ---- the main job's example proof ---- */

#ifndef HPR_EXAMPLE_DIR
#define HPR_EXAMPLE_DIR "tests/fixtures/bn128_2e10"
#endif

/* Proves the bundled example (HPR_EXAMPLE_DIR: a circom circuit of 2^10 constraints on BN254)
 * on every device, writes proof.json and public.json into $HPR_EXAMPLE_OUT (else a new
 * temporary directory) and prints the phases. */
int cli_example_proof(void)
{
    const char *dir = getenv("HPR_EXAMPLE_DIR") ? getenv("HPR_EXAMPLE_DIR") : HPR_EXAMPLE_DIR;
    const char *out_env = getenv("HPR_EXAMPLE_OUT");
    char zkey[1024], wtns[1024], vk[1024], out[1024], proof_path[1100], public_path[1100];
    const char *pos[4] = {zkey, wtns, proof_path, public_path};
    snprintf(zkey, sizeof zkey, "%s/circuit.zkey", dir);
    snprintf(wtns, sizeof wtns, "%s/witness.wtns", dir);
    snprintf(vk, sizeof vk, "%s/verification_key.json", dir);
    if (out_env) {
        snprintf(out, sizeof out, "%s", out_env);
    } else {
        const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
        snprintf(out, sizeof out, "%s/hyprove-example-XXXXXX", tmp);
        if (!mkdtemp(out))
            return cli_error("cannot make a directory for the example proof under %s", tmp);
    }
    snprintf(proof_path, sizeof proof_path, "%s/proof.json", out);
    snprintf(public_path, sizeof public_path, "%s/public.json", out);
    printf("Groth16 example: a proof of %s (BN254, 2^10 constraints) on every device\n", dir);
    int rc = prove(pos, "all", NULL, NULL, 1, 1);
    if (rc == CLI_EXIT_OK)
        printf("proof written (and verified): %s, %s\nverify again with: hyprove groth16 verify %s %s %s\n"
               "                      or: snarkjs groth16 verify %s %s %s\n",
               proof_path, public_path, vk, public_path, proof_path, vk, public_path, proof_path);
    return rc;
}
