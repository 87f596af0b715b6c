/*
 * cmd_commit.c: `hyprove commit`, the Merkle commitment of a matrix read from a file.
 *
 * commit: C columns of 2^N canonical 31-bit elements, column after column as `ntt` reads
 * them, go to hpr_commit (the LDE at rate R on shift * <w_{R 2^N}>, or the matrix as given
 * with --no-lde; rows in bit-reversed order; each leaf the width-16 Poseidon2 sponge of its
 * row; nodes the 2-to-1 compression), and root.json gets the shape, the hash and the root,
 * with the openings of the rows that --open names. Each opening is checked against the
 * root with hpr_merkle_verify before anything is written, so a file never holds a path that
 * does not verify.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_bench.h"
#include "cli_commit.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_progress.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const char *commit_help =
    "usage: hyprove commit --field koalabear|babybear --log-n N (--rate R | --no-lde) --columns C\n"
    "                      --in FILE --out FILE [--shift S] [--open ROW[,ROW...]]\n"
    "                      [--device cpu|all|cl:P.D] [--threads T] [--progress]\n"
    "\n"
    "The Merkle commitment of a matrix, as Plonky3's MerkleTreeMmcs makes it (Poseidon2 of the\n"
    "field, width 16: each row hashed by the padding-free sponge of rate 8, digests of 8\n"
    "elements, nodes the truncated 2-to-1 compression).\n"
    "  --in FILE     C columns of 2^N canonical little-endian 4-byte elements (< p), column\n"
    "                after column: exactly C * 2^N * 4 bytes (as `hyprove ntt` reads; - is\n"
    "                stdin, a FIFO is read to its end)\n"
    "  --rate R      2, 4 or 8: each column is taken as the evaluations of a polynomial on\n"
    "                <w_n> (n = 2^N, natural order) and extended to R * n evaluations on\n"
    "                S * <w_{R n}> (the low-degree extension); the committed matrix has R * n\n"
    "                rows in bit-reversed order. --rate 1 is --no-lde.\n"
    "  --no-lde      commit the matrix as given (row i = element i of every column)\n"
    "  --shift S     the LDE's coset shift, decimal, 1..p-1 (default 1: no coset)\n"
    "  --open ROWS   also write the openings of these rows of the committed matrix: the row's\n"
    "                values and its authentication path (each checked against the root first)\n"
    "  --device D    cpu (default), cl:P.D (OpenCL) or all (split by the scheduler across every\n"
    "                usable device); the root is the same for every choice. A failing OpenCL\n"
    "                device is one warning line on stderr and its work is redone on the CPU.\n"
    "  --threads T   CPU threads (default: all cores)\n"
    "  --progress    progress lines on stderr even when it is not a terminal\n"
    "  --out FILE    root.json, written atomically (- is stdout):\n"
    "                {\"field\": \"koalabear\", \"hash\": \"poseidon2-koalabear-16\", \"log_n\": N,\n"
    "                 \"rate\": R, \"columns\": C, \"rows\": R*2^N, \"shift\": \"1\", \"root\": [8 integers],\n"
    "                 \"openings\": [{\"row\": r, \"values\": [C integers], \"path\": [[8], ...]}]}\n"
    "                (openings only with --open; path: the siblings bottom-up, log2(rows) of them)\n"
    "The time goes to stderr. `hyprove commit verify FILE` checks the openings of a root.json\n"
    "against its root or another's (`hyprove commit verify --help`).\n";

typedef struct {
    hpr_field field;
    unsigned log_n, rate, threads;
    size_t columns, rows; /* rows of the committed matrix: rate * 2^log_n */
    const char *in, *out, *device, *open;
    char shift[24];       /* decimal, canonical */
    size_t *open_rows;    /* --open, nopen of them (malloc'd) */
    size_t nopen;
} commit_args;

/* --open ROW[,ROW...] into a->open_rows, each below a->rows: 0 or the exit code. */
static int parse_open_rows(commit_args *a)
{
    size_t len = strlen(a->open), cap = 1;
    char *copy = malloc(len + 1), *save = NULL;
    int rc = CLI_EXIT_USAGE;
    for (size_t i = 0; i < len; i++)
        cap += a->open[i] == ',';
    a->open_rows = malloc(cap * sizeof *a->open_rows);
    if (!copy || !a->open_rows) {
        rc = cli_error("commit: out of memory for --open");
        goto out;
    }
    memcpy(copy, a->open, len + 1);
    if (len == 0 || a->open[0] == ',' || a->open[len - 1] == ',' || strstr(a->open, ",,")) {
        cli_usage_error("commit ", "--open '%s': expected comma-separated row numbers", a->open);
        goto out;
    }
    for (char *tok = strtok_r(copy, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) {
        unsigned long long row;
        if (cli_parse_uint(tok, 0, a->rows - 1, &row) != 0) {
            cli_usage_error("commit ", "--open: '%s' is not a row of the committed matrix (0..%zu: %zu rows)", tok,
                            a->rows - 1, a->rows);
            goto out;
        }
        a->open_rows[a->nopen++] = (size_t)row;
    }
    rc = 0;
out:
    free(copy);
    return rc;
}

/* --rate and --no-lde into a->rate, then --log-n within the field's two-adicity. */
static int parse_shape(commit_args *a, const char *rate_s, int no_lde)
{
    unsigned long long v;
    if (!rate_s && !no_lde)
        return cli_usage_error("commit ", "--rate (2, 4 or 8) or --no-lde is required");
    if (rate_s && (cli_parse_uint(rate_s, 1, 8, &v) != 0 || (v & (v - 1)) != 0))
        return cli_usage_error("commit ", "--rate '%s' is not 1, 2, 4 or 8", rate_s);
    if (rate_s && no_lde && v != 1)
        return cli_usage_error("commit ", "--no-lde commits the matrix as given (rate 1): it cannot take --rate %s",
                               rate_s);
    a->rate = no_lde ? 1 : (unsigned)v;
    unsigned limit = hpr_field_two_adicity(a->field);
    if (a->rate > 1 && a->log_n + commit_log2_rate(a->rate) > limit)
        return cli_usage_error("commit ", "--log-n %u at rate %u: the LDE of 2^%u rows is beyond %s's two-adicity "
                               "(2^%u)", a->log_n, a->rate, a->log_n + commit_log2_rate(a->rate), cli_field_name(a->field),
                               limit);
    a->rows = (size_t)a->rate << a->log_n;
    return 0;
}

/* --shift S (1..p-1) into a->shift, canonical decimal; only 1 without the LDE. */
static int parse_shift(commit_args *a, const char *shift_s)
{
    unsigned long long v = 1;
    uint32_t p = commit_field_modulus(a->field);
    if (shift_s && cli_parse_uint(shift_s, 1, p - 1, &v) != 0)
        return cli_usage_error("commit ", "--shift '%s' is not an integer in 1..%u (p - 1 of %s)", shift_s,
                               (unsigned)(p - 1), cli_field_name(a->field));
    if (v != 1 && a->rate == 1)
        return cli_usage_error("commit ", "--shift %s: the shift is the LDE's coset, and --no-lde (rate 1) commits "
                               "the matrix as given", shift_s);
    snprintf(a->shift, sizeof a->shift, "%llu", v);
    return 0;
}

/* Parses and checks commit's arguments into a: -1 to run, else the exit code. */
static int parse_commit_args(int argc, char **argv, commit_args *a)
{
    const char *field_s = NULL, *log_n_s = NULL, *rate_s = NULL, *cols_s = NULL, *shift_s = NULL, *threads_s = NULL;
    int no_lde = 0;
    unsigned long long v;
    cli_opt o[] = {CLI_OPT("--field", &field_s),   CLI_OPT("--log-n", &log_n_s),      CLI_OPT("--rate", &rate_s),
                   CLI_OPT("--columns", &cols_s),  CLI_OPT("--in", &a->in),           CLI_OPT("--out", &a->out),
                   CLI_OPT("--shift", &shift_s),   CLI_OPT_LIST("--open", &a->open),  CLI_OPT("--device", &a->device),
                   CLI_OPT("--threads", &threads_s), CLI_OPT_FLAG("--no-lde", &no_lde),
                   CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    int rc = cli_parse_options(argc, argv, "commit ", commit_help, o, sizeof o / sizeof o[0]);
    if (rc >= 0)
        return rc;
    if (!field_s || commit_parse_field(field_s, &a->field))
        return cli_usage_error("commit ", "--field '%s': expected koalabear or babybear", field_s ? field_s : "");
    if (!log_n_s || cli_parse_uint(log_n_s, 0, 30, &v) != 0)
        return cli_usage_error("commit ", "--log-n '%s': expected an integer in 0..30 (2^N rows per column)",
                               log_n_s ? log_n_s : "");
    a->log_n = (unsigned)v;
    if (!cols_s || cli_parse_uint(cols_s, 1, 1u << 30, &v) != 0)
        return cli_usage_error("commit ", "--columns '%s': expected an integer in 1..2^30", cols_s ? cols_s : "");
    a->columns = (size_t)v;
    if (!a->in || !a->out)
        return cli_usage_error("commit ", "--in and --out are required");
    if ((rc = parse_shape(a, rate_s, no_lde)) != 0 || (rc = parse_shift(a, shift_s)) != 0)
        return rc;
    if (a->device && cli_parse_device(a->device, 1))
        return cli_usage_error("commit ", "--device '%s': expected cpu, cl:P.D or all", a->device);
    if (!a->device)
        a->device = "cpu";
    if ((rc = cli_parse_threads("commit ", threads_s, &a->threads)) != 0)
        return rc;
    if (a->open && (rc = parse_open_rows(a)) != 0)
        return rc;
    const char *ins[] = {a->in}, *outs[] = {a->out};
    if (cli_output_check_not_inputs(outs, 1, ins, 1) != 0)
        return CLI_EXIT_USAGE;
    return -1;
}

/* The input, exactly columns * 2^log_n elements of 4 bytes: 0 or the exit code. */
static int read_matrix(const commit_args *a, unsigned char **data)
{
    size_t len, expected = a->columns * ((size_t)4 << a->log_n);
    if (cli_read_file(a->in, data, &len) != 0)
        return CLI_EXIT_FAILURE;
    if (len == expected)
        return 0;
    cli_error("'%s': %zu bytes, expected %zu: %zu column(s) of 2^%u %s elements of 4 bytes (--columns %zu, "
              "--log-n %u)", a->in, len, expected, a->columns, a->log_n, cli_field_name(a->field), a->columns,
              a->log_n);
    free(*data);
    *data = NULL;
    return CLI_EXIT_FAILURE;
}

/* The opening of row, checked against the root first, as one member of "openings":
 * {"row": r, "values": [...], "path": [[8 elements], ...]}. 0 or the exit code. */
static int write_opening(FILE *fp, const commit_args *a, const hpr_merkle_tree *tree, const uint32_t root[DIGEST],
                         size_t row, uint32_t *values, uint32_t *path)
{
    unsigned depth = hpr_merkle_depth(tree);
    hpr_status st = hpr_merkle_open(tree, row, values, path);
    if (st != HPR_OK)
        return cli_error("commit: opening row %zu: %s", row, hpr_status_str(st));
    st = hpr_merkle_verify(a->field, root, depth, row, values, a->columns, path);
    if (st != HPR_OK)
        return cli_error("commit: the opening of row %zu does not verify against the root: %s", row,
                         hpr_status_str(st));
    fprintf(fp, "  {\"row\": %zu, \"values\": [", row);
    for (size_t c = 0; c < a->columns; c++)
        fprintf(fp, "%s%u", c ? ", " : "", (unsigned)values[c]);
    fputs("], \"path\": [", fp);
    for (unsigned d = 0; d < depth; d++) {
        fputs(d ? ", " : "", fp);
        commit_print_root(fp, path + (size_t)d * DIGEST);
    }
    fputs("]}", fp);
    return 0;
}

/* root.json into fp: 0 or the exit code (an opening that does not verify). */
static int write_root_json(FILE *fp, const commit_args *a, const hpr_merkle_tree *tree, const uint32_t root[DIGEST])
{
    size_t depth = hpr_merkle_depth(tree);
    uint32_t *values = malloc(a->columns * sizeof *values), *path = malloc((depth + 1) * DIGEST * sizeof *path);
    int rc = CLI_EXIT_FAILURE;
    if (!values || !path) {
        cli_error("commit: out of memory for the openings");
        goto out;
    }
    fprintf(fp, "{\"field\": \"%s\", \"hash\": \"%s\", \"log_n\": %u, \"rate\": %u, \"columns\": %zu, \"rows\": %zu, "
            "\"shift\": \"%s\",\n \"root\": ", cli_field_name(a->field), commit_hash_name(a->field), a->log_n, a->rate,
            a->columns, a->rows, a->shift);
    commit_print_root(fp, root);
    if (a->open)
        fputs(",\n \"openings\": [\n", fp);
    for (size_t i = 0; i < a->nopen; i++) {
        if ((rc = write_opening(fp, a, tree, root, a->open_rows[i], values, path)) != 0)
            goto out;
        fputs(i + 1 < a->nopen ? ",\n" : "\n ]", fp);
    }
    fputs("}\n", fp);
    rc = 0;
out:
    free(values);
    free(path);
    return rc;
}

/* Commits the matrix read from a->in and writes root.json: 0 or the exit code. */
static int run_commit(const commit_args *a, hpr_ctx *ctx)
{
    hpr_commit_opts opts = {sizeof opts, a->shift, a->device};
    hpr_merkle_tree *tree = NULL;
    unsigned char *data = NULL;
    uint32_t root[DIGEST];
    cli_output out = {0};
    int rc = read_matrix(a, &data);
    if (rc)
        goto out;
    double t0 = cli_now_seconds();
    hpr_status st = hpr_commit(ctx, a->field, a->log_n, a->rate, a->columns, data, &opts, &tree);
    double ms = (cli_now_seconds() - t0) * 1e3;
    if (st != HPR_OK) {
        rc = cli_status_error("commit", st, ctx);
        goto out;
    }
    cli_faults_after_call(ctx, NULL); /* a device that failed: one warning line */
    if ((st = hpr_merkle_root(tree, root)) != HPR_OK) {
        rc = cli_status_error("commit: the root", st, NULL);
        goto out;
    }
    rc = CLI_EXIT_FAILURE;
    if (cli_output_open(&out, a->out) != 0)
        goto out;
    if ((rc = write_root_json(out.fp, a, tree, root)) != 0)
        goto out;
    if ((rc = cli_output_commit(&out) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE) != 0)
        goto out;
    /* after the output: a failure stays one error line */
    fprintf(stderr, "commit: %s 2^%u x %zu column(s), rate %u, shift %s: %zu rows, device %s, %u threads, CPU tier "
            "%s: %.3f ms\n", cli_field_name(a->field), a->log_n, a->columns, a->rate, a->shift, a->rows, a->device,
            hpr_ctx_threads(ctx), hpr_ctx_cpu_tier(ctx), ms);
out:
    cli_output_abort(&out); /* nothing after a commit */
    hpr_merkle_destroy(tree);
    free(data);
    return rc;
}

int cmd_commit(int argc, char **argv)
{
    commit_args a;
    hpr_ctx *ctx = NULL;
    if (argc >= 2 && strcmp(argv[1], "verify") == 0)
        return cmd_commit_verify(argc - 1, argv + 1);
    memset(&a, 0, sizeof a);
    int rc = parse_commit_args(argc, argv, &a);
    if (rc >= 0)
        goto out;
    cli_table_for_output(a.out);
    if ((rc = cli_make_ctx(a.threads, "cpu", NULL, "commit", &ctx)) != 0)
        goto out;
    rc = run_commit(&a, ctx);
out:
    hpr_ctx_destroy(ctx);
    free(a.open_rows);
    return rc;
}
