/*
 * cmd_commit.c: `hyprove commit` (the Merkle commitment of a matrix read from a file),
 * `hyprove bench commit` and `hyprove bench poseidon2`.
 *
 * commit: C columns of 2^N canonical 31-bit elements, column after column as `ntt` reads
 * them, go to hpr_commit (the LDE at rate R on shift * <w_{R 2^N}>, or the matrix as given
 * with --no-lde; rows in bit-reversed order; each leaf the width-16 Poseidon2 sponge of its
 * row; nodes the 2-to-1 compression), and root.json gets the shape, the hash and the root,
 * with the openings of the rows that --open names. Each opening is checked against the
 * root with hpr_merkle_verify before anything is written, so a file never holds a path that
 * does not verify.
 *
 * bench commit: the matrices come from the generator of the test vectors
 * (tests/poseidon2_vectors.h: element i = splitmix64(seed + i) mod p, i = c 2^N + j), so the
 * root of any benchmark can be recomputed by tests/poseidon2_ref.py. A warm-up, then R timed
 * commits per device; every run's root must equal the warm-up's and every device's root the
 * first device's (a split never changes the root), or the benchmark fails. Work per commit:
 * rows * ceil(C / 8) sponge permutations (rate 8) plus rows - 1 compressions.
 *
 * bench poseidon2: hpr_poseidon2_permute on random states, per instance and CPU tier (the
 * context's tier, named in every row: HPR_CPU or --cpu-tiers choose it); each timed run
 * starts from the same states (copied before the clock starts) and must give the warm-up's
 * result.
 */
#define _POSIX_C_SOURCE 200809L
#include "cli.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_progress.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_FIELDS 2
#define MAX_SIZES 16
#define MAX_DEVICES 8
#define MAX_TIERS 8
#define MAX_INSTANCES 3
#define SPONGE_RATE 8 /* elements absorbed per permutation by the width-16 sponge */
#define DIGEST 8

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
    "The time goes to stderr.\n";

static const char *bench_commit_help =
    "usage: hyprove bench commit [--field F[,F]] [--log-n N[,N...]] [--rate R] [--columns C]\n"
    "                            [--devices D[,D...]] [--repeat R | --reps R] [--threads T] [--seed S]\n"
    "                            [--json FILE] [--progress]\n"
    "\n"
    "Times Merkle commitments (LDE and tree, as `hyprove commit`) of random matrices: C columns\n"
    "of 2^N elements (defaults: koalabear, N = 16, rate 2, C = 16; --rate 1 commits the matrix\n"
    "as given), element i = splitmix64(S + i) mod p (the test vectors' generator; --seed S,\n"
    "default 1, printed). Per device: one warm-up, then R timed commits (default 5; --reps is\n"
    "--repeat), each root checked against the warm-up's and every device's against the\n"
    "first's. Prints median and min time, rows/s (committed rows) and the Poseidon2\n"
    "permutations per second they imply (rows * ceil(C/8) sponge permutations + rows - 1\n"
    "compressions). --devices: cpu (default), cl:P.D, all, or several side by side\n"
    "(cpu,all); a failing OpenCL device is one warning line on stderr and its work is redone\n"
    "on the CPU. --threads T: CPU threads (default: all cores). --json FILE: also write the\n"
    "records as JSON (atomically; - is stdout, the table then goes to stderr): op commit,\n"
    "field, log_n, columns, rate, rows, seed, device, cpu_tier, threads, repeat, median_ms,\n"
    "min_ms, rows_per_s, elements_per_s (committed elements), permutations,\n"
    "permutations_per_s, root, faults. --progress: progress lines on stderr even when it is\n"
    "not a terminal. List options may also be repeated (--log-n 12 --log-n 16).\n";

static const char *bench_poseidon2_help =
    "usage: hyprove bench poseidon2 [--instance I[,I...]|all] [--count N] [--threads T]\n"
    "                               [--cpu-tiers T[,T...]|all] [--repeat R | --reps R] [--seed S]\n"
    "                               [--json FILE]\n"
    "\n"
    "Times Poseidon2 permutations (hpr_poseidon2_permute, the CPU kernels) of N random states\n"
    "(default 131072): one warm-up, then R timed runs (default 5; --reps is --repeat), each\n"
    "from the same states and checked against the warm-up's result. Prints median and min\n"
    "time, permutations per second in total and per thread, and ns per permutation.\n"
    "--instance: koalabear-16, koalabear-24, babybear-16, a list of them, or all (default).\n"
    "--cpu-tiers: portable, adx, avx2, avx512, neon or all (every tier this processor and build can\n"
    "run; adx has no Poseidon2 kernels of its own and runs the portable ones); default: the\n"
    "one in use (HPR_CPU, else the fastest), named in the tier column. --threads T: CPU\n"
    "threads (default: all cores); --seed S: the states' seed (default 1). --json FILE: also\n"
    "write the records as JSON (atomically; - is stdout, the table then goes to stderr): op\n"
    "poseidon2, instance, width, count, cpu_tier, threads, repeat, median_ms, min_ms,\n"
    "permutations_per_s, permutations_per_s_per_thread, ns_per_permutation, faults.\n";

/* ---- shared ---- */

/* The fields with a Poseidon2 commitment: 0, or -1 for any other name. */
static int parse_commit_field(const char *s, hpr_field *field)
{
    if (cli_parse_field(s, field) != 0)
        return -1;
    return *field == HPR_FIELD_KOALABEAR || *field == HPR_FIELD_BABYBEAR ? 0 : -1;
}

static uint32_t field_modulus(hpr_field field)
{
    return field == HPR_FIELD_KOALABEAR ? 0x7f000001u : 0x78000001u;
}

static const char *hash_name(hpr_field field)
{
    return field == HPR_FIELD_KOALABEAR ? "poseidon2-koalabear-16" : "poseidon2-babybear-16";
}

static unsigned log2_rate(unsigned rate)
{
    return rate == 8 ? 3 : rate == 4 ? 2 : rate == 2 ? 1 : 0;
}

/* The test vectors' generator (tests/poseidon2_vectors.h): splitmix64(seed + i) mod p. */
static uint32_t matrix_element(uint64_t seed, uint64_t i, uint32_t p)
{
    uint64_t z = seed + i + 0x9e3779b97f4a7c15ull;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
    return (uint32_t)((z ^ (z >> 31)) % p);
}

static double median_of(double *ms, unsigned count)
{
    qsort(ms, count, sizeof *ms, cli_compare_doubles);
    return count % 2 ? ms[count / 2] : 0.5 * (ms[count / 2 - 1] + ms[count / 2]);
}

/* A context of threads (0: every core) and CPU tier (NULL: HPR_CPU, else the fastest), with
 * the progress display of --progress; calls name their device. 0, or the exit code after
 * printing the error. */
static int make_ctx(unsigned threads, const char *tier, hpr_ctx **ctx)
{
    hpr_config cfg;
    const char *why;
    hpr_config_default(&cfg);
    cfg.threads = threads;
    cfg.devices = "cpu";
    cfg.cpu_tier = tier;
    cli_progress_attach(&cfg, "commit");
    hpr_status st = hpr_ctx_create(&cfg, ctx);
    if (st == HPR_ERR_CPU_TIER || st == HPR_ERR_INVALID_ARGUMENT) {
        const char *name = tier ? tier : getenv("HPR_CPU");
        if (name && hpr_cpu_tier_check(name, &why) != HPR_OK)
            return cli_error("CPU tier '%s'%s: %s", name, tier ? "" : " (from HPR_CPU)", why);
    }
    return st == HPR_OK ? 0 : cli_status_error("creating the context", st, NULL);
}

/* --threads T (NULL: 0, every core): 0 or the exit code of a usage error. */
static int parse_threads(const char *cmd, const char *s, unsigned *threads)
{
    unsigned long long v = 0;
    if (s && cli_parse_uint(s, 1, 1024, &v) != 0)
        return cli_usage_error(cmd, "--threads '%s' is not an integer in 1..1024", s);
    *threads = (unsigned)v;
    return 0;
}

/* --repeat R or its alias --reps R (default 5): 0 or the exit code of a usage error. */
static int parse_repeat(const char *cmd, const char *repeat_s, const char *reps_s, unsigned *repeat)
{
    unsigned long long v = 5;
    const char *s = repeat_s ? repeat_s : reps_s;
    if (repeat_s && reps_s)
        return cli_usage_error(cmd, "give --repeat or --reps (the same option), not both");
    if (s && cli_parse_uint(s, 1, 1000, &v) != 0)
        return cli_usage_error(cmd, "--%s '%s' is not an integer in 1..1000", repeat_s ? "repeat" : "reps", s);
    *repeat = (unsigned)v;
    return 0;
}

/* Permutations of one commitment: the sponge of every row and the compressions. */
static double commit_permutations(size_t rows, size_t columns)
{
    return (double)rows * (double)((columns + SPONGE_RATE - 1) / SPONGE_RATE) + (double)(rows - 1);
}

static void print_root(FILE *to, const uint32_t root[DIGEST])
{
    fputc('[', to);
    for (int k = 0; k < DIGEST; k++)
        fprintf(to, "%s%u", k ? ", " : "", (unsigned)root[k]);
    fputc(']', to);
}

/* ---- commit ---- */

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
    if (a->rate > 1 && a->log_n + log2_rate(a->rate) > limit)
        return cli_usage_error("commit ", "--log-n %u at rate %u: the LDE of 2^%u rows is beyond %s's two-adicity "
                               "(2^%u)", a->log_n, a->rate, a->log_n + log2_rate(a->rate), cli_field_name(a->field),
                               limit);
    a->rows = (size_t)a->rate << a->log_n;
    return 0;
}

/* --shift S (1..p-1) into a->shift, canonical decimal; only 1 without the LDE. */
static int parse_shift(commit_args *a, const char *shift_s)
{
    unsigned long long v = 1;
    uint32_t p = field_modulus(a->field);
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
    if (!field_s || parse_commit_field(field_s, &a->field))
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
    if ((rc = parse_threads("commit ", threads_s, &a->threads)) != 0)
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
        print_root(fp, path + (size_t)d * DIGEST);
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
            "\"shift\": \"%s\",\n \"root\": ", cli_field_name(a->field), hash_name(a->field), a->log_n, a->rate,
            a->columns, a->rows, a->shift);
    print_root(fp, root);
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
    hpr_commit_opts opts = {a->shift, a->device};
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
    memset(&a, 0, sizeof a);
    int rc = parse_commit_args(argc, argv, &a);
    if (rc >= 0)
        goto out;
    cli_table_for_output(a.out);
    if ((rc = make_ctx(a.threads, NULL, &ctx)) != 0)
        goto out;
    rc = run_commit(&a, ctx);
out:
    hpr_ctx_destroy(ctx);
    free(a.open_rows);
    return rc;
}

/* ---- bench commit ---- */

typedef struct {
    hpr_field field;
    unsigned log_n, rate, threads, repeat;
    size_t columns;
    unsigned long long seed;
    const char *device;
    double median_ms, min_ms;
    uint32_t root[DIGEST];
    cli_faults faults; /* the devices that failed in the record's runs (warm-up included) */
} commit_record;

/* One timed commit of input into root: 0 or the exit code. */
static int commit_once(hpr_ctx *ctx, commit_record *r, const uint32_t *input, uint32_t root[DIGEST], double *ms)
{
    hpr_commit_opts opts = {NULL, r->device};
    hpr_merkle_tree *tree = NULL;
    double t0 = cli_now_seconds();
    hpr_status st = hpr_commit(ctx, r->field, r->log_n, r->rate, r->columns, input, &opts, &tree);
    *ms = (cli_now_seconds() - t0) * 1e3;
    if (st == HPR_OK) {
        cli_faults_after_call(ctx, &r->faults);
        st = hpr_merkle_root(tree, root);
    }
    hpr_merkle_destroy(tree);
    return st == HPR_OK ? 0 : cli_status_error("bench commit", st, ctx);
}

/* A warm-up and r->repeat timed commits: r's times and root, 0 or the exit code. */
static int measure_commit(hpr_ctx *ctx, commit_record *r, const uint32_t *input)
{
    double *ms = malloc(r->repeat * sizeof *ms), warm;
    uint32_t again[DIGEST];
    int rc = CLI_EXIT_FAILURE;
    if (!ms) {
        cli_error("bench commit: out of memory");
        goto out;
    }
    if ((rc = commit_once(ctx, r, input, r->root, &warm)) != 0)
        goto out;
    for (unsigned k = 0; k < r->repeat; k++) {
        if ((rc = commit_once(ctx, r, input, again, &ms[k])) != 0)
            goto out;
        if (memcmp(again, r->root, sizeof again) != 0) {
            rc = cli_error("bench commit: run %u of %s 2^%u x %zu on %s gave another root than the warm-up", k,
                           cli_field_name(r->field), r->log_n, r->columns, r->device);
            goto out;
        }
    }
    r->median_ms = median_of(ms, r->repeat);
    r->min_ms = ms[0];
    rc = 0;
out:
    free(ms);
    return rc;
}

static size_t record_rows(const commit_record *r)
{
    return (size_t)r->rate << r->log_n;
}

static void print_commit_header(void)
{
    fprintf(cli_table, "%-6s %-10s %5s %7s %4s %9s %-7s %-8s %7s %6s %11s %11s %9s %9s\n", "op", "field", "log_n",
            "columns", "rate", "rows", "device", "tier", "threads", "repeat", "median_ms", "min_ms", "Mrows/s",
            "Mperm/s");
}

static void print_commit_record(hpr_ctx *ctx, const commit_record *r)
{
    size_t rows = record_rows(r);
    double s = r->median_ms * 1e-3;
    fprintf(cli_table, "%-6s %-10s %5u %7zu %4u %9zu %-7s %-8s %7u %6u %11.3f %11.3f %9.3f %9.3f\n", "commit",
            cli_field_name(r->field), r->log_n, r->columns, r->rate, rows, r->device, hpr_ctx_cpu_tier(ctx), r->threads,
            r->repeat, r->median_ms, r->min_ms, (double)rows / s / 1e6,
            commit_permutations(rows, r->columns) / s / 1e6);
    fflush(cli_table);
}

static int write_commit_json(const char *path, hpr_ctx *ctx, const commit_record *recs, size_t count)
{
    cli_json j;
    if (cli_json_begin(&j, path, "bench commit", ctx) != 0)
        return CLI_EXIT_FAILURE;
    for (size_t i = 0; i < count; i++) {
        const commit_record *r = &recs[i];
        size_t rows = record_rows(r);
        double s = r->median_ms * 1e-3, perms = commit_permutations(rows, r->columns);
        fprintf(cli_json_record(&j),
                "{\"op\": \"commit\", \"field\": \"%s\", \"log_n\": %u, \"columns\": %zu, \"rate\": %u, \"rows\": %zu, "
                "\"seed\": %llu, \"device\": \"%s\", \"cpu_tier\": \"%s\", \"threads\": %u, \"repeat\": %u, "
                "\"median_ms\": %.6f, \"min_ms\": %.6f, \"rows_per_s\": %.1f, \"elements_per_s\": %.1f, "
                "\"permutations\": %.0f, \"permutations_per_s\": %.1f, \"root\": ",
                cli_field_name(r->field), r->log_n, r->columns, r->rate, rows, r->seed, r->device,
                hpr_ctx_cpu_tier(ctx), r->threads, r->repeat, r->median_ms, r->min_ms, (double)rows / s,
                (double)rows * (double)r->columns / s, perms, perms / s);
        print_root(j.fp, r->root);
        cli_faults_json(j.fp, &r->faults);
        fputs("}", j.fp);
    }
    return cli_json_end(&j) == 0 ? 0 : CLI_EXIT_FAILURE;
}

typedef struct {
    hpr_field fields[MAX_FIELDS];
    size_t nfields;
    unsigned sizes[MAX_SIZES];
    size_t nsizes;
    unsigned rate, repeat, threads;
    size_t columns;
    unsigned long long seed;
    char devices[MAX_DEVICES][CLI_DEVICE_NAME_LEN];
    size_t ndevices;
    const char *json;
} bench_commit_args;

/* --field F[,F] into a->fields, each koalabear or babybear: 0 or -1. */
static int parse_commit_fields(const char *list, bench_commit_args *a)
{
    if (cli_parse_field_list(list, a->fields, MAX_FIELDS, &a->nfields))
        return -1;
    for (size_t f = 0; f < a->nfields; f++)
        if (a->fields[f] != HPR_FIELD_KOALABEAR && a->fields[f] != HPR_FIELD_BABYBEAR)
            return -1;
    return 0;
}

/* Parses bench commit's options into a: -1 to run, else the exit code. */
static int parse_bench_commit(int argc, char **argv, bench_commit_args *a)
{
    const char *cmd = "bench commit ", *field_s = NULL, *log_n_s = NULL, *rate_s = NULL, *cols_s = NULL,
               *devices_s = NULL, *repeat_s = NULL, *reps_s = NULL, *threads_s = NULL, *seed_s = NULL;
    unsigned long long v;
    cli_opt o[] = {CLI_OPT_LIST("--field", &field_s), CLI_OPT_LIST("--log-n", &log_n_s), CLI_OPT("--rate", &rate_s),
                   CLI_OPT("--columns", &cols_s),     CLI_OPT_LIST("--devices", &devices_s),
                   CLI_OPT("--repeat", &repeat_s),    CLI_OPT("--reps", &reps_s),
                   CLI_OPT("--threads", &threads_s),  CLI_OPT("--seed", &seed_s),        CLI_OPT("--json", &a->json),
                   CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    int rc = cli_parse_options(argc, argv, cmd, bench_commit_help, o, sizeof o / sizeof o[0]);
    if (rc >= 0)
        return rc;
    cli_table_for_output(a->json);
    if (field_s && parse_commit_fields(field_s, a))
        return cli_usage_error(cmd, "--field '%s': expected koalabear, babybear or both, comma-separated", field_s);
    if (log_n_s && cli_parse_uint_list(log_n_s, 0, 30, a->sizes, MAX_SIZES, &a->nsizes))
        return cli_usage_error(cmd, "--log-n '%s': expected comma-separated integers in 0..30 (at most %d)", log_n_s,
                               MAX_SIZES);
    if (rate_s && (cli_parse_uint(rate_s, 1, 8, &v) != 0 || (v & (v - 1)) != 0))
        return cli_usage_error(cmd, "--rate '%s' is not 1, 2, 4 or 8", rate_s);
    if (rate_s)
        a->rate = (unsigned)v;
    if (cols_s && cli_parse_uint(cols_s, 1, 1u << 20, &v) != 0)
        return cli_usage_error(cmd, "--columns '%s' is not an integer in 1..2^20", cols_s);
    if (cols_s)
        a->columns = (size_t)v;
    if (devices_s && cli_parse_device_list(devices_s, 1, a->devices, MAX_DEVICES, &a->ndevices))
        return cli_usage_error(cmd, "--devices '%s': expected a comma-separated list of at most %d devices, each cpu, "
                               "all or cl:P.D", devices_s, MAX_DEVICES);
    if (seed_s && cli_parse_uint(seed_s, 0, ~0ull, &a->seed))
        return cli_usage_error(cmd, "--seed '%s' is not a non-negative integer", seed_s);
    if ((rc = parse_repeat(cmd, repeat_s, reps_s, &a->repeat)) != 0)
        return rc;
    if ((rc = parse_threads(cmd, threads_s, &a->threads)) != 0)
        return rc;
    for (size_t f = 0; f < a->nfields; f++)
        for (size_t k = 0; k < a->nsizes; k++)
            if (a->rate > 1 && a->sizes[k] + log2_rate(a->rate) > hpr_field_two_adicity(a->fields[f]))
                return cli_usage_error(cmd, "2^%u at rate %u is beyond %s's two-adicity (2^%u)", a->sizes[k], a->rate,
                                       cli_field_name(a->fields[f]), hpr_field_two_adicity(a->fields[f]));
    return -1;
}

/* The generated matrix of a (field, log_n) workload, or NULL after printing the error. */
static uint32_t *generated_matrix(hpr_field field, unsigned log_n, size_t columns, unsigned long long seed)
{
    size_t count = columns << log_n;
    uint32_t p = field_modulus(field), *m = malloc(count * sizeof *m);
    if (!m) {
        cli_error("bench commit: out of memory for 2^%u x %zu elements", log_n, columns);
        return NULL;
    }
    for (size_t i = 0; i < count; i++)
        m[i] = matrix_element(seed, i, p);
    return m;
}

/* Every device on one (field, log_n) workload, appended to recs: 0 or the exit code. */
static int bench_workload(hpr_ctx *ctx, const bench_commit_args *a, hpr_field field, unsigned log_n,
                          commit_record *recs, size_t *nrecs)
{
    uint32_t *input = generated_matrix(field, log_n, a->columns, a->seed);
    size_t first = *nrecs;
    int rc = input ? 0 : CLI_EXIT_FAILURE;
    for (size_t d = 0; d < a->ndevices && !rc; d++) {
        commit_record *r = &recs[*nrecs];
        *r = (commit_record){field, log_n, a->rate, hpr_ctx_threads(ctx), a->repeat, a->columns, a->seed,
                             a->devices[d], 0, 0, {0}, {0}};
        if ((rc = measure_commit(ctx, r, input)) != 0)
            break;
        if (memcmp(r->root, recs[first].root, sizeof r->root) != 0) {
            rc = cli_error("bench commit: %s gave another root than %s for %s 2^%u x %zu", r->device,
                           recs[first].device, cli_field_name(field), log_n, a->columns);
            break;
        }
        print_commit_record(ctx, r);
        cli_print_split(ctx, r->device, "rows");
        (*nrecs)++;
    }
    if (!rc) {
        fprintf(stderr, "  root: ");
        print_root(stderr, recs[first].root);
        fputc('\n', stderr);
    }
    free(input);
    return rc;
}

int cmd_bench_commit(int argc, char **argv)
{
    bench_commit_args a = {{HPR_FIELD_KOALABEAR}, 1, {16}, 1, 2, 5, 0, 16, 1, {"cpu"}, 1, NULL};
    static commit_record recs[MAX_FIELDS * MAX_SIZES * MAX_DEVICES];
    size_t nrecs = 0;
    hpr_ctx *ctx = NULL;
    int rc = parse_bench_commit(argc, argv, &a);
    if (rc >= 0)
        return rc;
    if ((rc = make_ctx(a.threads, NULL, &ctx)) != 0)
        return rc;
    fprintf(cli_table, "bench commit: random matrices from seed %llu (element i = splitmix64(seed + i) mod p)\n",
            a.seed);
    print_commit_header();
    for (size_t f = 0; f < a.nfields && !rc; f++)
        for (size_t k = 0; k < a.nsizes && !rc; k++)
            rc = bench_workload(ctx, &a, a.fields[f], a.sizes[k], recs, &nrecs);
    if (!rc && a.json)
        rc = write_commit_json(a.json, ctx, recs, nrecs);
    hpr_ctx_destroy(ctx);
    return rc;
}

/* ---- bench poseidon2 ---- */

static const struct {
    const char *name;
    hpr_poseidon2 instance;
    hpr_field field; /* of the random states */
} instances[MAX_INSTANCES] = {{"koalabear-16", HPR_POSEIDON2_KOALABEAR_16, HPR_FIELD_KOALABEAR},
                              {"koalabear-24", HPR_POSEIDON2_KOALABEAR_24, HPR_FIELD_KOALABEAR},
                              {"babybear-16", HPR_POSEIDON2_BABYBEAR_16, HPR_FIELD_BABYBEAR}};

typedef struct {
    unsigned instance; /* index into instances[] */
    size_t count;
    const char *tier;  /* the context's */
    unsigned threads, repeat;
    double median_ms, min_ms;
    cli_faults faults;
} p2_record;

typedef struct {
    unsigned instances[MAX_INSTANCES];
    size_t ninstances;
    size_t count;
    unsigned repeat, threads;
    unsigned long long seed;
    const char *tiers[MAX_TIERS]; /* NULL: the context's default */
    size_t ntiers;
    const char *json;
} bench_p2_args;

/* --instance I[,I...]|all into a->instances: 0 or -1. */
static int parse_instances(bench_p2_args *a, const char *list)
{
    char names[MAX_INSTANCES * 2][CLI_DEVICE_NAME_LEN];
    size_t count;
    if (strcmp(list, "all") == 0)
        return 0; /* the default: every instance */
    if (cli_split_list(list, names, MAX_INSTANCES * 2, &count))
        return -1;
    a->ninstances = 0;
    for (size_t i = 0; i < count; i++) {
        unsigned k = 0;
        while (k < MAX_INSTANCES && strcmp(names[i], instances[k].name) != 0)
            k++;
        for (size_t j = 0; j < a->ninstances; j++)
            if (a->instances[j] == k)
                return -1; /* twice */
        if (k == MAX_INSTANCES)
            return -1;
        a->instances[a->ninstances++] = k;
    }
    return 0;
}

/* --cpu-tiers T[,T...]|all into a->tiers, each able to run here: 0 or the exit code. */
static int parse_p2_tiers(bench_p2_args *a, const char *list)
{
    static char parsed[MAX_TIERS][CLI_DEVICE_NAME_LEN];
    return cli_parse_cpu_tiers("bench poseidon2 ", list, parsed, a->tiers, MAX_TIERS, &a->ntiers);
}

/* Parses bench poseidon2's options into a: -1 to run, else the exit code. */
static int parse_bench_p2(int argc, char **argv, bench_p2_args *a)
{
    const char *cmd = "bench poseidon2 ", *inst_s = NULL, *count_s = NULL, *threads_s = NULL, *tiers_s = NULL,
               *repeat_s = NULL, *reps_s = NULL, *seed_s = NULL;
    unsigned long long v;
    cli_opt o[] = {CLI_OPT_LIST("--instance", &inst_s), CLI_OPT("--count", &count_s),
                   CLI_OPT("--threads", &threads_s),    CLI_OPT_LIST("--cpu-tiers", &tiers_s),
                   CLI_OPT("--repeat", &repeat_s),      CLI_OPT("--reps", &reps_s),
                   CLI_OPT("--seed", &seed_s),          CLI_OPT("--json", &a->json)};
    int rc = cli_parse_options(argc, argv, cmd, bench_poseidon2_help, o, sizeof o / sizeof o[0]);
    if (rc >= 0)
        return rc;
    cli_table_for_output(a->json);
    if (inst_s && parse_instances(a, inst_s))
        return cli_usage_error(cmd, "--instance '%s': expected koalabear-16, koalabear-24, babybear-16 "
                               "(comma-separated, each once) or all", inst_s);
    if (count_s && cli_parse_uint(count_s, 1, 1u << 24, &v) != 0)
        return cli_usage_error(cmd, "--count '%s' is not an integer in 1..2^24", count_s);
    if (count_s)
        a->count = (size_t)v;
    if (seed_s && cli_parse_uint(seed_s, 0, ~0ull, &a->seed))
        return cli_usage_error(cmd, "--seed '%s' is not a non-negative integer", seed_s);
    if ((rc = parse_repeat(cmd, repeat_s, reps_s, &a->repeat)) != 0)
        return rc;
    if ((rc = parse_threads(cmd, threads_s, &a->threads)) != 0)
        return rc;
    if (tiers_s && (rc = parse_p2_tiers(a, tiers_s)) != 0)
        return rc;
    return -1;
}

/* One run of r->count permutations from input into work: 0 or the exit code. */
static int permute_once(hpr_ctx *ctx, p2_record *r, const uint32_t *input, uint32_t *work, size_t words, double *ms)
{
    memcpy(work, input, words * sizeof *work);
    double t0 = cli_now_seconds();
    hpr_status st = hpr_poseidon2_permute(ctx, instances[r->instance].instance, work, r->count);
    *ms = (cli_now_seconds() - t0) * 1e3;
    if (st == HPR_OK)
        cli_faults_after_call(ctx, &r->faults);
    return st == HPR_OK ? 0 : cli_status_error("bench poseidon2", st, ctx);
}

/* A warm-up and r->repeat timed runs on random states: r's times, 0 or the exit code. */
static int measure_p2(hpr_ctx *ctx, p2_record *r, unsigned long long seed)
{
    size_t words = r->count * hpr_poseidon2_width(instances[r->instance].instance);
    uint32_t p = field_modulus(instances[r->instance].field);
    uint32_t *input = malloc(words * sizeof *input), *first = malloc(words * sizeof *first),
             *work = malloc(words * sizeof *work);
    double *ms = malloc(r->repeat * sizeof *ms), warm;
    int rc = CLI_EXIT_FAILURE;
    if (!input || !first || !work || !ms) {
        cli_error("bench poseidon2: out of memory for %zu states", r->count);
        goto out;
    }
    for (size_t i = 0; i < words; i++)
        input[i] = matrix_element(seed, i, p);
    if ((rc = permute_once(ctx, r, input, first, words, &warm)) != 0)
        goto out;
    for (unsigned k = 0; k < r->repeat; k++) {
        if ((rc = permute_once(ctx, r, input, work, words, &ms[k])) != 0)
            goto out;
        if (memcmp(first, work, words * sizeof *work) != 0) {
            rc = cli_error("bench poseidon2: run %u of %s (tier %s) gave another result than the warm-up", k,
                           instances[r->instance].name, r->tier);
            goto out;
        }
    }
    r->median_ms = median_of(ms, r->repeat);
    r->min_ms = ms[0];
    rc = 0;
out:
    free(input);
    free(first);
    free(work);
    free(ms);
    return rc;
}

static void print_p2_header(void)
{
    fprintf(cli_table, "%-9s %-12s %8s %-8s %7s %6s %11s %11s %9s %12s %8s\n", "op", "instance", "count", "tier",
            "threads", "repeat", "median_ms", "min_ms", "Mperm/s", "Mperm/s/thr", "ns/perm");
}

static void print_p2_record(const p2_record *r)
{
    double per_s = (double)r->count / (r->median_ms * 1e-3);
    fprintf(cli_table, "%-9s %-12s %8zu %-8s %7u %6u %11.3f %11.3f %9.3f %12.3f %8.1f\n", "poseidon2",
            instances[r->instance].name, r->count, r->tier, r->threads, r->repeat, r->median_ms, r->min_ms,
            per_s / 1e6, per_s / r->threads / 1e6, 1e9 / per_s);
    fflush(cli_table);
}

static int write_p2_json(const char *path, const p2_record *recs, size_t count)
{
    cli_json j;
    if (cli_json_begin(&j, path, "bench poseidon2", NULL) != 0)
        return CLI_EXIT_FAILURE;
    for (size_t i = 0; i < count; i++) {
        const p2_record *r = &recs[i];
        double per_s = (double)r->count / (r->median_ms * 1e-3);
        fprintf(cli_json_record(&j),
                "{\"op\": \"poseidon2\", \"instance\": \"%s\", \"width\": %u, \"count\": %zu, \"device\": \"cpu\", "
                "\"cpu_tier\": \"%s\", \"threads\": %u, \"repeat\": %u, \"median_ms\": %.6f, \"min_ms\": %.6f, "
                "\"permutations_per_s\": %.1f, \"permutations_per_s_per_thread\": %.1f, \"ns_per_permutation\": %.3f",
                instances[r->instance].name, hpr_poseidon2_width(instances[r->instance].instance), r->count, r->tier,
                r->threads, r->repeat, r->median_ms, r->min_ms, per_s, per_s / r->threads, 1e9 / per_s);
        cli_faults_json(j.fp, &r->faults);
        fputs("}", j.fp);
    }
    return cli_json_end(&j) == 0 ? 0 : CLI_EXIT_FAILURE;
}

/* The library's static name of a tier (it outlives the context that named it). */
static const char *tier_name(const char *name)
{
    for (unsigned t = 0; t < hpr_cpu_tier_count(); t++)
        if (strcmp(hpr_cpu_tier_name(t), name) == 0)
            return hpr_cpu_tier_name(t);
    return "?";
}

/* Every instance on one CPU tier (NULL: the default), appended to recs: 0 or the exit code. */
static int bench_p2_tier(const bench_p2_args *a, const char *tier, p2_record *recs, size_t *nrecs)
{
    hpr_ctx *ctx = NULL;
    int rc = make_ctx(a->threads, tier, &ctx);
    for (size_t i = 0; i < a->ninstances && !rc; i++) {
        p2_record *r = &recs[*nrecs];
        *r = (p2_record){a->instances[i], a->count, tier_name(hpr_ctx_cpu_tier(ctx)), hpr_ctx_threads(ctx),
                         a->repeat, 0, 0, {0}};
        if ((rc = measure_p2(ctx, r, a->seed)) == 0) {
            print_p2_record(r);
            (*nrecs)++;
        }
    }
    hpr_ctx_destroy(ctx);
    return rc;
}

int cmd_bench_poseidon2(int argc, char **argv)
{
    bench_p2_args a = {{0, 1, 2}, MAX_INSTANCES, (size_t)1 << 17, 5, 0, 1, {NULL}, 1, NULL};
    static p2_record recs[MAX_INSTANCES * MAX_TIERS];
    size_t nrecs = 0;
    int rc = parse_bench_p2(argc, argv, &a);
    if (rc >= 0)
        return rc;
    print_p2_header();
    rc = 0;
    for (size_t t = 0; t < a.ntiers && !rc; t++)
        rc = bench_p2_tier(&a, a.tiers[t], recs, &nrecs);
    if (!rc && a.json)
        rc = write_p2_json(a.json, recs, nrecs);
    return rc;
}
