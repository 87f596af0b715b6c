/*
 * cmd_ntt.c: `hyprove ntt`, one NTT from a file; `hyprove bench ntt` is cmd_bench_ntt.c.
 *
 * Under mpirun (cli_mpi.h) it runs across the ranks with hpr_cluster_ntt: the data is rank
 * 0's alone (it reads the file; the other ranks get their columns from it), so rank 0 shares
 * the size it read before the call.
 */
#include "cli.h"
#include "cli_bench.h"
#include "cli_ntt.h"
#include "cli_faults.h"
#include "cli_json.h"
#include "cli_mpi.h"
#include "cli_progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>


static const char *ntt_help =
    "usage: hyprove ntt --field F --in FILE --out FILE [--inverse] [--coset SHIFT]\n"
    "                   [--order nn|nr|rn|rr] [--generator G] [--columns C] [--row-major]\n"
    "                   [--threads T] [--device D] [--progress]\n"
    "\n"
    "One NTT of size 2^k over each column of FILE: canonical little-endian elements of F\n"
    "(bn254-fr, bls12-381-fr: 32 bytes; goldilocks: 8; babybear, koalabear: 4), C columns\n"
    "(default 1) of 2^k elements, column after column (or interleaved with --row-major).\n"
    "Forward: coefficients -> evaluations on SHIFT * <w> (no --coset: SHIFT = 1), w = G^((p-1)/n)\n"
    "with G the field's standard generator (5, 7, 7, 31, 3) unless --generator gives one\n"
    "(decimal). --inverse: evaluations -> coefficients. --order: input then output order,\n"
    "natural (n) or bit-reversed (r); default nn. The output is written atomically (--out -:\n"
    "stdout). --in - reads stdin; a FIFO is read to its end too (at most 4 GiB); an empty\n"
    "input, a device or a directory is refused. --threads T: CPU threads (default: all cores).\n"
    "--device: cpu (default), cl:P.D (the butterflies on that OpenCL device, bit-identical;\n"
    "a failing device is reported and the NTT redone on the CPU), or all (the columns dealt\n"
    "to every usable device; one large column split four-step when a non-CPU OpenCL device\n"
    "can join). --progress: progress lines on stderr even when it is not a terminal.\n"
    "Under mpirun -np N (Open MPI builds) the columns are dealt to the N ranks: rank 0 alone\n"
    "reads FILE and writes the output, and sends each rank its columns.\n";

static int parse_order(const char *s, hpr_ntt_order *order)
{
    static const char *names[] = {"nn", "nr", "rn", "rr"};
    for (int i = 0; i < 4; i++)
        if (strcmp(s, names[i]) == 0) {
            *order = (hpr_ntt_order)i;
            return 0;
        }
    return -1;
}

/* log2 of count / columns, when it is a power of two. */
static int size_of_columns(size_t count, size_t columns, unsigned *log_n)
{
    if (columns == 0 || count == 0 || count % columns)
        return -1;
    size_t n = count / columns;
    for (*log_n = 0; ((size_t)1 << *log_n) < n; (*log_n)++)
        ;
    return ((size_t)1 << *log_n) == n ? 0 : -1;
}

/* FILE read and its size found (rank 0's part of `ntt`): 0, or the error printed. */
static int read_columns(const char *in, const char *field_s, hpr_field field, size_t columns, unsigned char **data,
                        size_t *len, unsigned *log_n)
{
    size_t es = hpr_field_element_size(field);
    if (cli_read_file(in, data, len) != 0)
        return CLI_EXIT_FAILURE;
    if (*len % es || size_of_columns(*len / es, columns, log_n))
        return cli_error("'%s': %zu bytes are not %zu column(s) of 2^k elements of %zu bytes (%s)", in, *len, columns,
                         es, field_s);
    return 0;
}

/* The NTT, alone or across the ranks (data: rank 0's): 0, or the error printed. */
static int write_output(const char *path, const unsigned char *data, size_t len)
{
    cli_output o;
    if (cli_output_open(&o, path) != 0)
        return CLI_EXIT_FAILURE;
    if (fwrite(data, 1, len, o.fp) != len) {
        cli_output_abort(&o);
        return cli_error("writing '%s' failed", path);
    }
    return cli_output_commit(&o) == 0 ? CLI_EXIT_OK : CLI_EXIT_FAILURE;
}

int cmd_ntt(int argc, char **argv)
{
    const char *field_s = NULL, *in = NULL, *out = NULL, *coset = NULL, *order_s = NULL, *gen = NULL, *cols_s = NULL,
               *threads_s = NULL, *device = NULL;
    hpr_ntt_opts opts = {sizeof opts, 0, HPR_NTT_NN, NULL, NULL, 1, 0, NULL};
    hpr_field field;
    unsigned long long v;
    unsigned char *data = NULL;
    size_t len = 0;
    unsigned log_n = 0;
    hpr_ctx *ctx = NULL;
    hpr_cluster_report report = {.struct_size = sizeof report};
    cli_opt o[] = {CLI_OPT("--field", &field_s), CLI_OPT("--in", &in),           CLI_OPT("--out", &out),         CLI_OPT("--coset", &coset),
                   CLI_OPT("--order", &order_s), CLI_OPT("--generator", &gen),   CLI_OPT("--columns", &cols_s),  CLI_OPT("--threads", &threads_s),
                   CLI_OPT("--device", &device), CLI_OPT_FLAG("--inverse", &opts.inverse),
                   CLI_OPT_FLAG("--row-major", &opts.row_major), CLI_OPT_FLAG("--progress", &cli_progress_mode)};
    int rc = cli_parse_options(argc, argv, "ntt ", ntt_help, o, sizeof o / sizeof o[0]);
    if (rc >= 0)
        return rc;
    if (!field_s || cli_parse_field(field_s, &field))
        return cli_usage_error("ntt ", "--field '%s': expected bn254-fr, bls12-381-fr, goldilocks, babybear or koalabear",
                               field_s ? field_s : "");
    if (!in || !out)
        return cli_usage_error("ntt ", "--in and --out are required");
    if (order_s && parse_order(order_s, &opts.order))
        return cli_usage_error("ntt ", "--order '%s': expected nn, nr, rn or rr", order_s);
    if (cols_s && cli_parse_uint(cols_s, 1, 1u << 30, &v) != 0)
        return cli_usage_error("ntt ", "--columns '%s' is not an integer in 1..2^30", cols_s);
    if (cols_s)
        opts.columns = (size_t)v;
    if (device && cli_parse_device(device, 1))
        return cli_usage_error("ntt ", "--device '%s': expected cpu, cl:P.D or all", device);
    opts.device = device ? device : "cpu";
    opts.coset_shift = coset;
    opts.generator = gen;
    rc = cli_ctx_from_options("cpu", threads_s, NULL, "ntt ", "ntt", &ctx);
    if (rc == 0 && cli_cluster_leader()) /* rank 0 alone reads the data */
        rc = read_columns(in, field_s, field, opts.columns, &data, &len, &log_n);
    if ((rc = cli_cluster_agree(ctx, rc)) != 0) /* alone: rc */
        goto out;
    if (cli_cluster_share(&log_n, sizeof log_n) != 0) {
        rc = CLI_EXIT_FAILURE;
        goto out;
    }
    if ((rc = cli_run_ntt(ctx, field, log_n, data, &opts, &report, NULL)) != 0 || !cli_cluster_leader())
        goto out;
    if (cli_cluster())
        fprintf(stderr, "ntt: %s 2^%u x %zu column(s), %u ranks, %llu bytes sent\n", cli_field_name(field), log_n,
                opts.columns, report.ranks, (unsigned long long)report.bytes_sent);
    rc = write_output(out, data, len);
out:
    free(data);
    hpr_ctx_destroy(ctx);
    return rc;
}
