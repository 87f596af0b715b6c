/*
 * cmd_groth16_batch.c: `hyprove groth16 prove-batch ZKEY WTNS_LIST OUTDIR`: one Groth16 proof
 * per witness of a list, for throughput, as one process or across the ranks of mpirun.
 *
 * The list is text, one .wtns path per line; a relative path is relative to the list's
 * folder (so a list travels with its witnesses); blank lines and lines whose first non-blank
 * character is '#' are skipped; blanks around a path and a final CR are dropped. Witness
 * NAME.wtns (its file name less ".wtns") gives OUTDIR/NAME.proof.json and
 * OUTDIR/NAME.public.json, written together and atomically as groth16 prove writes its two
 * files. Two entries with the same NAME would write the same files: a usage error before
 * anything runs. OUTDIR must be an existing folder: it is not made, so that a mistyped name
 * is an error rather than a new folder somewhere (groth16 prove does not make folders either).
 *
 * Method: hpr_cluster_groth16_prove_batch (host/include/hyprove.h). Rank 0 (the process
 * alone, or rank 0 of the job) reads the list, checks OUTDIR and reads each witness when a
 * rank asks for work; every rank maps the zkey from the same path and proves the witnesses it
 * is dealt whole, on its own devices; rank 0 writes each outcome as it comes. A witness that
 * cannot be read or proved is one error line, "witness K (PATH): ...", K counting the list's
 * entries from 1; its files are not written (and an older pair of the same name is left as it
 * was). Exit status 1 when any witness failed, 0 when all were written. The summary (proofs,
 * failures, seconds, proofs/s, ranks, bytes sent) goes to stdout, and with --json FILE as a
 * record (op groth16_batch).
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_bench.h"
#include "cli_groth16.h"
#include "cli_json.h"
#include "cli_mpi.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

const char cli_prove_batch_help[] =
    "usage: hyprove groth16 prove-batch CIRCUIT.zkey WITNESS_LIST OUTDIR [--devices D] [--threads T]\n"
    "                                   [--cpu-tier T] [--precompute F] [--verify] [--json FILE]\n"
    "\n"
    "A Groth16 proof for each witness named in WITNESS_LIST (text: one .wtns path per line,\n"
    "relative paths from the list's folder; blank lines and lines starting with # skipped).\n"
    "Witness NAME.wtns gives OUTDIR/NAME.proof.json and OUTDIR/NAME.public.json, both written\n"
    "atomically as groth16 prove writes them; two witnesses of the same NAME are refused before\n"
    "anything runs, and OUTDIR must exist. A witness that cannot be read or proved is one line\n"
    "'hyprove: error: witness K (PATH): ...' (K from 1 in the list's order) and gets no files;\n"
    "the others are proved. Then a summary: proofs, failed, seconds, proofs/s, ranks and bytes\n"
    "sent; --json FILE writes it as a record (atomically; - is stdout). Exit status 1 when a\n"
    "witness failed, 0 when every proof was written. --verify checks each proof against the\n"
    "zkey before writing it (a proof that does not verify is a failed witness). --devices: auto\n"
    "(default: as groth16 prove), all, cpu or cl:P.D; --threads T: CPU threads (default: all cores); --cpu-tier T:\n"
    "portable, adx, avx2, avx512 or neon. --precompute F: the key's MSM sections precomputed F\n"
    "times before the first proof (hpr_groth16_prover_precompute: F times their memory; 2 pays\n"
    "on the CPU tiers once a batch has a few hundred proofs; default: 2 where the devices are the\n"
    "CPU alone, the batch has 256 witnesses or more and twice the sections fit the memory limit,\n"
    "or a quarter of the machine's memory; else 1, none; the choice is printed). Under mpirun -np N (Open MPI builds) the witnesses are dealt\n"
    "to the N ranks, each proving whole witnesses: every rank reads CIRCUIT.zkey from the same\n"
    "path, rank 0 alone reads the list and the witnesses and writes the outputs.\n";

#define CMD "groth16 prove-batch "

/* The witnesses of the list: each path as opened, and its NAME. */
typedef struct {
    char **paths, **names;
    size_t count, cap;
} witness_list;

/* What the callbacks share (rank 0). */
typedef struct {
    const witness_list *list;
    const char *outdir;
    hpr_ctx *ctx;
    hpr_ctx *verify_ctx; /* --verify's (CPU): the callbacks run inside the batch's call on ctx */
    const hpr_groth16_prover *prover;
    size_t written, failed;
} batch;

static void list_free(witness_list *l)
{
    for (size_t i = 0; i < l->count; i++) {
        free(l->paths[i]);
        free(l->names[i]);
    }
    free(l->paths);
    free(l->names);
    memset(l, 0, sizeof *l);
}

/* NAME of a witness path: its file name less ".wtns" (the whole file name without it). */
static char *witness_name(const char *path)
{
    const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
    size_t len = strlen(base);
    if (len > 5 && strcmp(base + len - 5, ".wtns") == 0)
        len -= 5;
    char *name = malloc(len + 1);
    if (name) {
        memcpy(name, base, len);
        name[len] = '\0';
    }
    return name;
}

/* entry (a line, trimmed) added, relative to dir ("" for the current folder): 0, or an
 * exit code after the error (a NAME seen before, at line `line`). */
static int list_add(witness_list *l, const char *dir, const char *entry, size_t line)
{
    int rc = CLI_EXIT_FAILURE;
    size_t need = strlen(dir) + strlen(entry) + 2;
    char *path = malloc(need), *name = NULL;
    if (!path)
        return cli_error("out of memory");
    snprintf(path, need, "%s%s", entry[0] == '/' ? "" : dir, entry);
    name = witness_name(path);
    if (!name || !*name) {
        rc = name ? cli_error("witness list, line %zu: '%s' names no witness file", line, entry)
                  : cli_error("out of memory");
        goto out;
    }
    for (size_t i = 0; i < l->count; i++)
        if (strcmp(l->names[i], name) == 0) {
            rc = cli_error("witness list, line %zu: witness '%s' and witness %zu ('%s') have the same name '%s': "
                           "both would write %s.proof.json", line, path, i + 1, l->paths[i], name, name);
            goto out;
        }
    if (l->count == l->cap) {
        size_t cap = l->cap ? 2 * l->cap : 16;
        char **p = realloc(l->paths, cap * sizeof *p), **n = p ? realloc(l->names, cap * sizeof *n) : NULL;
        if (p)
            l->paths = p;
        if (n)
            l->names = n;
        if (!p || !n) {
            rc = cli_error("out of memory");
            goto out;
        }
        l->cap = cap;
    }
    l->paths[l->count] = path;
    l->names[l->count++] = name;
    return 0;
out:
    free(path);
    free(name);
    return rc;
}

/* The list file read into *l: 0, or the exit code after the error. */
static int list_read(const char *list_path, witness_list *l)
{
    unsigned char *text = NULL;
    size_t len = 0, line = 0;
    char dir[4096] = "";
    int rc = CLI_EXIT_FAILURE;
    const char *slash = strrchr(list_path, '/');
    if (slash && (size_t)(slash - list_path) + 2 > sizeof dir)
        return cli_error("'%s': the list's folder name is too long", list_path);
    if (slash && strcmp(list_path, "-") != 0)
        snprintf(dir, sizeof dir, "%.*s/", (int)(slash - list_path), list_path);
    if (cli_read_file(list_path, &text, &len) != 0)
        return CLI_EXIT_FAILURE;
    rc = 0;
    for (char *s = (char *)text, *next; s && !rc; s = next) { /* cli_read_file ends the text with a 0 */
        next = strchr(s, '\n');
        if (next)
            *next++ = '\0';
        line++;
        while (*s == ' ' || *s == '\t')
            s++;
        size_t n = strlen(s);
        while (n && (s[n - 1] == ' ' || s[n - 1] == '\t' || s[n - 1] == '\r'))
            s[--n] = '\0';
        if (n && s[0] != '#')
            rc = list_add(l, dir, s, line);
    }
    if (!rc && l->count == 0)
        rc = cli_error("witness list '%s' names no witness", list_path);
    free(text);
    return rc;
}

/* OUTDIR an existing folder: 0, or the exit code after the error. */
static int check_outdir(const char *outdir)
{
    struct stat sb;
    if (stat(outdir, &sb) != 0)
        return cli_error("output folder '%s': %s (it is not made: create it first)", outdir, strerror(errno));
    if (!S_ISDIR(sb.st_mode))
        return cli_error("output folder '%s' is not a folder", outdir);
    return 0;
}

/* hpr_witness_reader: witness index's bytes (a regular file, as groth16 prove reads one). */
static hpr_status read_witness(void *user, size_t index, void **data, size_t *len, char *why, size_t why_len)
{
    const batch *b = user;
    char reason[256] = "";
    const char *path = b->list->paths[index];
    hpr_status st = hpr_input_read(path, 0, 0, data, len, reason, sizeof reason);
    if (st == HPR_OK && *len == 0) {
        free(*data);
        *data = NULL;
        st = HPR_ERR_FORMAT;
        snprintf(reason, sizeof reason, "is empty");
    }
    if (st != HPR_OK)
        snprintf(why, why_len, "'%s' %s", path, reason[0] ? reason : hpr_status_str(st));
    return st;
}

/* OUTDIR/NAME.proof.json and OUTDIR/NAME.public.json of witness index: 0 or -1 (printed). */
static int write_pair(const batch *b, size_t index, const hpr_groth16_proof *proof)
{
    const char *name = b->list->names[index];
    size_t need = strlen(b->outdir) + strlen(name) + 16;
    char *proof_path = malloc(need), *public_path = malloc(need);
    FILE *human = stdout;
    int rc = -1;
    if (!proof_path || !public_path) {
        cli_error("witness %zu (%s): out of memory", index + 1, b->list->paths[index]);
        goto out;
    }
    snprintf(proof_path, need, "%s/%s.proof.json", b->outdir, name);
    snprintf(public_path, need, "%s/%s.public.json", b->outdir, name);
    rc = cli_groth16_write_outputs(proof, proof_path, public_path, &human) == CLI_EXIT_OK ? 0 : -1;
out:
    free(proof_path);
    free(public_path);
    return rc;
}

/* hpr_proof_writer: a witness's outcome: its files, or its error line. */
static hpr_status write_proof(void *user, size_t index, hpr_status status, const char *detail,
                              const hpr_groth16_proof *proof, int rank)
{
    batch *b = user;
    char where[32] = "";
    if (status == HPR_OK && b->verify_ctx) {
        status = hpr_groth16_verify(b->verify_ctx, b->prover, proof);
        detail = status == HPR_ERR_PROOF_INVALID ? "the proof does not verify against the key (nothing written)"
                                                 : hpr_ctx_error_detail(b->verify_ctx);
    }
    if (cli_cluster())
        snprintf(where, sizeof where, " (rank %d)", rank);
    if (status != HPR_OK) {
        cli_error("witness %zu (%s): %s%s%s%s", index + 1, b->list->paths[index], hpr_status_str(status),
                  detail && *detail ? ": " : "", detail ? detail : "", where);
        b->failed++;
    } else if (write_pair(b, index, proof) != 0) {
        b->failed++;
    } else {
        b->written++;
    }
    return HPR_OK; /* one witness's failure does not stop the batch */
}

/* The summary line and, with --json, its record. */
static int summarise(const batch *b, const char *json_path, const char *devices, double seconds,
                     const hpr_cluster_report *r)
{
    unsigned ranks = r->ranks ? r->ranks : 1;
    double rate = seconds > 0 ? (double)b->written / seconds : 0;
    cli_json j;
    fprintf(cli_table, "prove-batch: %zu witnesses: %zu proofs written, %zu failed, in %.3f s (%.3f proofs/s); ranks %u, "
            "bytes sent %llu (%.0f per proof)\n", b->list->count, b->written, b->failed, seconds, rate, ranks,
            (unsigned long long)r->bytes_sent, b->written ? (double)r->bytes_sent / (double)b->written : 0.0);
    if (ranks > 1) /* who proved what, and the witnesses a failing rank gave back (proved elsewhere) */
        cli_cluster_print_report(stderr, r);
    if (!json_path)
        return CLI_EXIT_OK;
    if (cli_json_begin(&j, json_path, "groth16 prove-batch", b->ctx) != 0)
        return CLI_EXIT_FAILURE;
    size_t domain = 0, n_vars = 0, n_public = 0;
    hpr_groth16_prover_sizes(b->prover, &domain, &n_vars, &n_public);
    fprintf(cli_json_record(&j),
            "{\"op\": \"groth16_batch\", \"curve\": \"%s\", \"domain_size\": %zu, \"n_vars\": %zu, \"device\": \"%s\", "
            "\"cpu_tier\": \"%s\", \"threads\": %u, \"witnesses\": %zu, \"proofs\": %zu, \"failed\": %zu, "
            "\"seconds\": %.6f, \"proofs_per_s\": %.4f, \"ranks\": %u, \"bytes_sent\": %llu, \"messages\": %llu, "
            "\"precompute\": %u}",
            cli_curve_name(hpr_groth16_prover_curve(b->prover)), domain, n_vars, devices, hpr_ctx_cpu_tier(b->ctx),
            hpr_ctx_threads(b->ctx), b->list->count, b->written, b->failed, seconds, rate, ranks,
            (unsigned long long)r->bytes_sent, (unsigned long long)r->messages,
            hpr_groth16_prover_precomputed(b->prover, NULL));
    return cli_json_end(&j) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

/* prove-batch's options (NULL or 0 when not given). */
typedef struct {
    const char *devices, *threads, *tier, *json, *precompute_s;
    int verify;
    unsigned long long precompute;
} batch_options;

/* Rank 0's preparation: the list read and OUTDIR checked; other ranks have nothing to do. */
static int prepare(const char *const *pos, witness_list *list)
{
    if (!cli_cluster_leader())
        return 0;
    int rc = list_read(pos[1], list);
    return rc ? rc : check_outdir(pos[2]);
}

/* --precompute F, or the default chosen for this batch (cli_groth16_default_precompute; across
 * ranks 1: a cluster's proofs read the plain sections), said on the table's stream. */
static int apply_precompute(hpr_ctx *ctx, hpr_groth16_prover *prover, const batch_options *o, size_t proofs)
{
    char why[160];
    unsigned factor;
    hpr_status st;
    if (o->precompute_s || cli_cluster()) {
        if ((st = hpr_groth16_prover_precompute(ctx, prover, (unsigned)o->precompute)) != HPR_OK)
            return cli_status_error("precomputing the proving key's sections", st, ctx);
        return 0;
    }
    int rc = cli_groth16_default_precompute(ctx, prover, proofs, &factor, why, sizeof why);
    if (!rc)
        fprintf(cli_table, "prove-batch: %s\n", why);
    return rc;
}

static int run_batch(const char *const *pos, const batch_options *o)
{
    witness_list list = {0};
    hpr_ctx *ctx = NULL, *verify_ctx = NULL;
    hpr_groth16_prover *prover = NULL;
    hpr_cluster_report report = {.struct_size = sizeof report};
    int rc = prepare(pos, &list);
    if (!rc)
        rc = cli_ctx_from_options(o->devices, o->threads, o->tier, CMD, NULL, &ctx);
    if (!rc && o->verify && cli_cluster_leader())
        rc = cli_ctx_from_options("cpu", "1", NULL, CMD, NULL, &verify_ctx);
    if (!rc) {
        hpr_status st = hpr_groth16_prover_create(ctx, pos[0], &prover);
        if (st != HPR_OK)
            rc = cli_status_error("reading the proving key", st, ctx);
        else
            rc = apply_precompute(ctx, prover, o, list.count);
    }
    uint64_t count = list.count;
    if ((rc = cli_cluster_agree(ctx, rc)) != 0)
        goto out;
    if (cli_cluster_share(&count, sizeof count) != 0) {
        rc = CLI_EXIT_FAILURE;
        goto out;
    }
    batch b = {&list, pos[2], ctx, verify_ctx, prover, 0, 0};
    double t0 = cli_now_seconds();
    hpr_status st = hpr_cluster_groth16_prove_batch(ctx, cli_cluster(), prover, (size_t)count, read_witness,
                                                    write_proof, &b, NULL, &report);
    double seconds = cli_now_seconds() - t0;
    if (st != HPR_OK) {
        rc = cli_status_error("proving the batch", st, ctx);
        goto out;
    }
    if (!cli_cluster_leader())
        goto out;
    rc = summarise(&b, o->json, hpr_ctx_devices(ctx), seconds, &report);
    if (rc == CLI_EXIT_OK && b.failed)
        rc = CLI_EXIT_FAILURE;
out:
    hpr_groth16_prover_destroy(prover);
    hpr_ctx_destroy(verify_ctx);
    hpr_ctx_destroy(ctx);
    list_free(&list);
    return rc;
}

int cmd_groth16_prove_batch(int argc, char **argv)
{
    batch_options o = {NULL, NULL, NULL, NULL, NULL, 0, 1};
    const char *pos[3];
    int npos;
    const cli_opt opts[] = {CLI_OPT("--devices", &o.devices), CLI_OPT("--threads", &o.threads),
                            CLI_OPT("--cpu-tier", &o.tier), CLI_OPT("--json", &o.json),
                            CLI_OPT("--precompute", &o.precompute_s), CLI_OPT_FLAG("--verify", &o.verify)};
    int rc = cli_parse_args(argc, argv, CMD, cli_prove_batch_help, opts, sizeof opts / sizeof opts[0], pos, 3, &npos);
    if (rc >= 0)
        return rc;
    if (npos < 3)
        return cli_usage_error(CMD, "expected CIRCUIT.zkey WITNESS_LIST OUTDIR (%d given)", npos);
    if (o.precompute_s && cli_parse_uint(o.precompute_s, 1, 16, &o.precompute) != 0)
        return cli_usage_error(CMD, "--precompute '%s' is not an integer in 1..16", o.precompute_s);
    cli_table_for_output(o.json);
    if (!cli_cluster_leader())
        o.json = NULL; /* rank 0 writes the outputs */
    return run_batch(pos, &o);
}
