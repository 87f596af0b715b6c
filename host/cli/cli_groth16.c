/*
 * cli_groth16.c: what the Groth16 commands share (groth16 prove and bench groth16 in
 * cmd_groth16.c, groth16 prove-batch in cmd_groth16_batch.c, serve in cmd_serve.c): a
 * proof's two output files written as one group, a proof
 * verified before it is written, its JSON record, and the main job's example proof.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli_groth16.h"
#include "cli_bench.h"
#include "cli_faults.h"
#include "cli_json.h"

#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

/* The phases of a proof as tables name them, and their snake_case keys of the JSON records. */
const char *const cli_g16_phase_names[HPR_G16_PHASES] = {"witness", "h (NTTs)", "msm A", "msm B1", "msm B2 (G2)",
                                                        "msm C", "msm H", "assemble"};
static const char *const phase_keys[HPR_G16_PHASES] = {"witness", "h", "msm_a", "msm_b1", "msm_b2", "msm_c", "msm_h",
                                                       "assemble"};

/* "msm A: cl:0.0 100%; msm H: cpu 62%, cl:0.0 38%" from the phases that had devices. */
static void devices_of(const hpr_groth16_report *r, char *out, size_t len)
{
    size_t used = 0;
    out[0] = '\0';
    for (int p = 0; p < HPR_G16_PHASES && used + 1 < len; p++)
        if (r->devices[p][0]) {
            int n = snprintf(out + used, len - used, "%s%s: %s", used ? "; " : "", cli_g16_phase_names[p], r->devices[p]);
            used += n > 0 ? (size_t)n : 0;
        }
}

/* The proof checked against the prover's key before anything is written. */
int cli_groth16_verify_before_writing(hpr_ctx *ctx, const hpr_groth16_prover *prover, const hpr_groth16_proof *proof)
{
    char devs[HPR_G16_PHASES * 100];
    hpr_status st = hpr_groth16_verify(ctx, prover, proof);
    if (st == HPR_OK)
        return CLI_EXIT_OK;
    devices_of(proof->report, devs, sizeof devs);
    if (st == HPR_ERR_PROOF_INVALID)
        return cli_error("the proof does not verify (computed on %s): the witness does not satisfy the circuit's "
                         "constraints, or the key and the witness do not belong together, or a device computed "
                         "a wrong result; nothing written", devs[0] ? devs : "cpu");
    return cli_status_error("verifying the proof", st, ctx);
}

/* One JSON record of a proof (or of the medians of several: seconds[], total and min). */
void cli_groth16_json_record(FILE *fp, const hpr_groth16_prover *prover, const char *device, hpr_ctx *ctx,
                             unsigned repeat, double setup_s, const double *seconds, double total_s,
                             double min_total_s, const hpr_groth16_report *last, const cli_faults *faults,
                             const hpr_cluster_report *cluster, const cli_timing *totals)
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
    if (totals)
        cli_timing_json(fp, totals);
    cli_faults_json(fp, faults);
    fputs("}", fp);
}

/* The phases' times and devices; under a phase that a device failed in, its faults; then the
 * devices that failed (none: no such line). */
void cli_groth16_print_report(const hpr_groth16_report *r, FILE *to)
{
    cli_faults faults = {0};
    fprintf(to, "%-12s %10s  %s\n", "phase", "time_ms", "devices");
    for (int i = 0; i < HPR_G16_PHASES; i++) {
        fprintf(to, "%-12s %10.2f  %s\n", cli_g16_phase_names[i], 1e3 * r->seconds[i], r->devices[i]);
        if (r->faults[i][0])
            fprintf(to, "%-12s %10s  fault: %s\n", "", "", r->faults[i]);
    }
    fprintf(to, "%-12s %10.2f\n", "total", 1e3 * r->total_s);
    cli_faults_add(&faults, r->failed, r->nfailed, "the CPU"); /* warned already: no line again */
    cli_faults_print(to, &faults, "device fault: ");
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
    hpr_groth16_report report = {.struct_size = sizeof report};
    hpr_groth16_proof proof = {.struct_size = sizeof proof, .report = &report};
    char proof_path[1100], public_path[1100];
    FILE *human = stdout;
    hpr_status st = hpr_groth16_prove(ctx, prover, cli_example_wtns, cli_example_wtns_len, &proof);
    if (st != HPR_OK)
        return cli_status_error("proving the example", st, ctx);
    cli_faults_after_proof(ctx, proof.report, NULL);
    int rc = cli_groth16_verify_before_writing(ctx, prover, &proof);
    if (rc == CLI_EXIT_OK && out_dir) {
        snprintf(proof_path, sizeof proof_path, "%s/proof.json", out_dir);
        snprintf(public_path, sizeof public_path, "%s/public.json", out_dir);
        rc = cli_groth16_write_outputs(&proof, proof_path, public_path, &human);
    }
    if (rc == CLI_EXIT_OK) {
        cli_groth16_print_report(proof.report, stdout);
        if (out_dir)
            printf("proof verified and written: %s, %s\n", proof_path, public_path);
        else
            printf("proof verified (pairing check against the key); set HPR_EXAMPLE_OUT=DIR to keep it\n");
    }
    hpr_groth16_proof_clear(&proof);
    return rc;
}

int cli_example_proof(void)
{
    hpr_ctx *ctx = NULL;
    hpr_groth16_prover *prover = NULL;
    int rc = cli_ctx_from_options("auto", NULL, NULL, "", NULL, &ctx);
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

/* The bytes of the prover's five MSM sections (A, B1, C, H in G1, B2 in G2). */
static size_t section_bytes(const hpr_groth16_prover *prover)
{
    size_t domain, nv, npub;
    hpr_groth16_prover_sizes(prover, &domain, &nv, &npub);
    size_t g1 = hpr_groth16_prover_curve(prover) == HPR_CURVE_BN254 ? 64 : 96;
    return g1 * (2 * nv + (nv - npub - 1) + domain) + 2 * g1 * nv;
}

/* Whether extra bytes fit beside a proof: within HPR_MAX_MEMORY (--max-memory) when set,
 * else within a quarter of the machine's memory. */
static int fits_beside_a_proof(hpr_ctx *ctx, const hpr_groth16_prover *prover, size_t extra)
{
    const char *limit_s = getenv("HPR_MAX_MEMORY");
    unsigned long long limit;
    size_t proof = 0;
    if (limit_s && limit_s[0] && cli_parse_size(limit_s, &limit) == 0)
        return hpr_groth16_prover_memory(ctx, prover, 1, &proof) == HPR_OK && extra + proof <= limit;
    long pages = sysconf(_SC_PHYS_PAGES), page = sysconf(_SC_PAGESIZE);
    return pages > 0 && page > 0 && extra <= (size_t)pages / 4 * (size_t)page;
}

int cli_groth16_default_precompute(hpr_ctx *ctx, hpr_groth16_prover *prover, size_t proofs, unsigned *factor,
                                   char *why, size_t len)
{
    size_t extra = 2 * section_bytes(prover); /* f = 2: twice the sections' points */
    *factor = 1;
    if (strcmp(hpr_ctx_devices(ctx), "cpu") != 0)
        snprintf(why, len, "precompute 1 (default: the devices are %s; 2 pays on the CPU tiers alone)",
                 hpr_ctx_devices(ctx));
    else if (proofs < CLI_PRECOMPUTE_MIN_PROOFS)
        snprintf(why, len, "precompute 1 (default: %zu proof(s), fewer than the %d that pay for making the sections)",
                 proofs, CLI_PRECOMPUTE_MIN_PROOFS);
    else if (!fits_beside_a_proof(ctx, prover, extra))
        snprintf(why, len, "precompute 1 (default: 2 would take %.1f MiB more than the memory %s)",
                 (double)extra / (1 << 20), getenv("HPR_MAX_MEMORY") ? "limit allows" : "a quarter of this machine's");
    else
        *factor = 2;
    if (*factor == 2)
        snprintf(why, len, "precompute 2 (default on the CPU tiers: %.1f MiB more, about 5%% faster proofs once made; "
                 "pays after some 80-210 proofs)", (double)extra / (1 << 20));
    hpr_status st = hpr_groth16_prover_precompute(ctx, prover, *factor);
    return st == HPR_OK ? 0 : cli_status_error("precomputing the proving key's sections", st, ctx);
}
