/*
 * fuzz_msm_ntt_loaders.c: libFuzzer target for the CLI's MSM and NTT input files and option
 * strings, and for the option values of hpr_msm_ex and hpr_ntt.
 *
 * The CLI's loaders are static in host/cli/cmd_msm.c and cmd_ntt.c, so this target is built
 * with those files (and the CLI's helpers) and runs the commands themselves, `hyprove msm`
 * and `hyprove ntt`, on files it writes into a private temporary folder: the file checks, the
 * option parsing and the library calls behind them are the CLI's own, unchanged. The option
 * names are fixed here and only their values come from the input (so no input can name
 * another file to read or write, nor ask for 2^26 random points).
 *
 * Input: a control byte, then option values one a line ('\n'; an empty line leaves the
 * option out), then binary data. Control bits 0..1 choose the mode:
 *   0  hyprove msm: lines --curve, --group, --window-bits, --device, --cpu-tier; then a
 *      2-byte little-endian length L, L bytes of points file, and the scalars file (the rest);
 *   1  hyprove ntt: lines --field, --coset, --order, --generator, --columns, --device; bits
 *      2 and 3 add --inverse and --row-major; the rest is the input file;
 *   2  hpr_msm_ex: lines device; then 12 bytes of window_bits, point_chunks and
 *      windows_per_tile (little-endian u32), a curve/group/size byte and a seed byte: an MSM of
 *      at most 7 random valid points with those options must equal the one with the defaults
 *      (the result is the same for every tiling and device) or be refused with a detail;
 *   3  hpr_ntt: lines coset shift, generator, device; then a field/log_n/order byte, a
 *      columns/row-major byte and the elements: a forward NTT (1..4 columns of at most 2^4
 *      elements) with those strings, when accepted, is undone by the inverse NTT with the same
 *      strings and the orders swapped, back to the input; when refused, data is unchanged.
 * Windows of 11..20 bits (valid, but seconds a run) are narrowed to 1..10 (tame_window).
 * Every command runs with --threads 1; the CLI's stdout and stderr are its own (run with
 * -close_fd_mask=3 to silence them, as scripts/fuzz.sh does).
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_support.h"
#include "host/cli/cli.h"
#include "host/cli/cli_progress.h"

#include <unistd.h>

#define MAX_ARGS 32
#define MAX_FILE (1u << 20)

/* Not called by the commands fuzzed here (they are the CLI's other entry points, which
 * cmd_bench_msm.c names): defined so that the target links without the Groth16 commands. */
int cmd_bench_groth16(int argc, char **argv)
{
    (void)argc;
    (void)argv;
    abort();
}

int cli_example_proof(void)
{
    abort();
}

static char dir[64];
static char points_path[96], scalars_path[96], in_path[96], out_path[96];

static void remove_dir(void)
{
    unlink(points_path);
    unlink(scalars_path);
    unlink(in_path);
    unlink(out_path);
    rmdir(dir);
}

static void make_dir(void)
{
    const char *tmp = getenv("TMPDIR");
    snprintf(dir, sizeof dir, "%.40s/hpr-fuzz-XXXXXX", tmp && tmp[0] && strlen(tmp) <= 40 ? tmp : "/tmp");
    if (!mkdtemp(dir)) {
        perror("fuzz: mkdtemp");
        abort();
    }
    snprintf(points_path, sizeof points_path, "%s/points", dir);
    snprintf(scalars_path, sizeof scalars_path, "%s/scalars", dir);
    snprintf(in_path, sizeof in_path, "%s/in", dir);
    snprintf(out_path, sizeof out_path, "%s/out", dir);
    atexit(remove_dir);
}

static void write_file(const char *path, const uint8_t *p, size_t n)
{
    FILE *fp = fopen(path, "wb");
    if (!fp || fwrite(p, 1, n, fp) != n || fclose(fp) != 0) {
        perror("fuzz: writing a temporary file");
        abort();
    }
}

typedef struct {
    char *argv[MAX_ARGS + 1];
    int argc;
    char *owned[MAX_ARGS];
    int nowned;
} args;

static void arg(args *a, const char *s)
{
    if (a->argc < MAX_ARGS)
        a->argv[a->argc++] = (char *)s;
    a->argv[a->argc] = NULL;
}

/* "--name VALUE" from the next line, unless the line is empty. */
static void line_opt(args *a, fuzz_input *in, const char *name)
{
    char *v = fuzz_field(in, '\n');
    if (!v)
        return;
    a->owned[a->nowned++] = v;
    if (v[0]) {
        arg(a, name);
        arg(a, v);
    }
}

/* Windows of 11..20 bits are valid but cost 2^c buckets a window whatever the number of
 * points (a 4-point BLS12-381 G2 MSM with 19-bit windows took a minute under ASan): such a
 * value becomes 1..10, so that each run stays short; values outside 1..20 are kept. */
static unsigned tame_window(unsigned c)
{
    return c > 10 && c <= 20 ? c - 10 : c;
}

/* The same for the decimal text of --window-bits (a string that is not a plain decimal number
 * is kept as it is). */
static void tame_window_text(char *s)
{
    char *end;
    unsigned long c = strtoul(s, &end, 10);
    if (s[0] >= '0' && s[0] <= '9' && !*end && c > 10 && c <= 20)
        snprintf(s, strlen(s) + 1, "%lu", c - 10);
}

static void args_free(args *a)
{
    for (int i = 0; i < a->nowned; i++)
        free(a->owned[i]);
}

/* The command with getopt_long's state and the CLI's globals as a fresh process has them. */
static void run_cli(int (*cmd)(int, char **), args *a)
{
    cli_progress_mode = -1;
    cli_table = stdout;
    int rc = cmd(a->argc, a->argv);
    FUZZ_CHECK(rc == CLI_EXIT_OK || rc == CLI_EXIT_FAILURE || rc == CLI_EXIT_USAGE);
}

static void fuzz_cli_msm(fuzz_input *in)
{
    args a = {{NULL}, 0, {NULL}, 0};
    arg(&a, "msm");
    line_opt(&a, in, "--curve");
    line_opt(&a, in, "--group");
    line_opt(&a, in, "--window-bits");
    if (a.nowned == 3)
        tame_window_text(a.owned[2]);
    line_opt(&a, in, "--device");
    line_opt(&a, in, "--cpu-tier");
    size_t plen = fuzz_byte(in);
    plen |= (size_t)fuzz_byte(in) << 8;
    if (plen > in->left)
        plen = in->left;
    write_file(points_path, in->p, plen);
    write_file(scalars_path, in->p + plen, in->left - plen);
    const char *fixed[] = {"--points", points_path, "--scalars", scalars_path, "--threads", "1"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        arg(&a, fixed[i]);
    run_cli(cmd_msm, &a);
    args_free(&a);
}

static void fuzz_cli_ntt(fuzz_input *in, unsigned ctl)
{
    args a = {{NULL}, 0, {NULL}, 0};
    arg(&a, "ntt");
    line_opt(&a, in, "--field");
    line_opt(&a, in, "--coset");
    line_opt(&a, in, "--order");
    line_opt(&a, in, "--generator");
    line_opt(&a, in, "--columns");
    line_opt(&a, in, "--device");
    if (ctl & 4)
        arg(&a, "--inverse");
    if (ctl & 8)
        arg(&a, "--row-major");
    write_file(in_path, in->p, in->left);
    const char *fixed[] = {"--in", in_path, "--out", out_path, "--threads", "1"};
    for (size_t i = 0; i < sizeof fixed / sizeof fixed[0]; i++)
        arg(&a, fixed[i]);
    run_cli(cmd_ntt, &a);
    args_free(&a);
}

/* hpr_msm_ex with the input's options against the defaults, on random valid points. */
static void fuzz_msm_opts(fuzz_input *in)
{
    hpr_ctx *ctx = fuzz_ctx();
    char *device = fuzz_field(in, '\n');
    hpr_msm_opts opts = {sizeof opts, 0, 0, 0, NULL};
    unsigned char points[7 * 192], scalars[7 * 32], got[192], want[192];
    opts.window_bits = tame_window(fuzz_u32(in));
    opts.point_chunks = fuzz_u32(in);
    opts.windows_per_tile = fuzz_u32(in);
    opts.device = device && device[0] ? device : NULL;
    unsigned shape = fuzz_byte(in), seed = fuzz_byte(in);
    hpr_curve curve = shape & 1 ? HPR_CURVE_BLS12_381 : HPR_CURVE_BN254;
    hpr_group group = shape & 2 ? HPR_G2 : HPR_G1;
    size_t n = (shape >> 2) & 7, ps = hpr_point_size(curve, group);
    if (device) {
        FUZZ_CHECK(hpr_random_msm_inputs(ctx, curve, group, n, seed, points, scalars) == HPR_OK);
        FUZZ_CHECK(hpr_msm_ex(ctx, curve, group, points, scalars, n, want, NULL) == HPR_OK);
        hpr_status st = hpr_msm_ex(ctx, curve, group, points, scalars, n, got, &opts);
        if (st == HPR_OK)
            FUZZ_CHECK(memcmp(got, want, ps) == 0);
        else
            FUZZ_CHECK(hpr_ctx_error_detail(ctx)[0] != '\0');
    }
    free(device);
}

/* hpr_ntt with the input's strings, undone by the inverse. */
static void fuzz_ntt_opts(fuzz_input *in)
{
    static const hpr_field fields[5] = {HPR_FIELD_BN254_FR, HPR_FIELD_BLS12_381_FR, HPR_FIELD_GOLDILOCKS,
                                        HPR_FIELD_BABYBEAR, HPR_FIELD_KOALABEAR};
    static const hpr_ntt_order swapped[4] = {HPR_NTT_NN, HPR_NTT_RN, HPR_NTT_NR, HPR_NTT_RR};
    hpr_ctx *ctx = fuzz_ctx();
    char *shift = fuzz_field(in, '\n'), *gen = fuzz_field(in, '\n'), *device = fuzz_field(in, '\n');
    unsigned shape = fuzz_byte(in), layout = fuzz_byte(in), columns = (layout & 3) + 1;
    hpr_field field = fields[(shape & 7) % 5];
    unsigned log_n = (shape >> 3) % 5;
    hpr_ntt_opts fwd = {sizeof fwd, 0, (hpr_ntt_order)(shape >> 6), NULL, NULL, columns, (int)((layout >> 2) & 1),
                        NULL}, inv;
    size_t bytes = ((size_t)columns << log_n) * hpr_field_element_size(field);
    unsigned char *data = malloc(bytes), *orig = malloc(bytes);
    if (shift && gen && device && data && orig) {
        memset(data, 0, bytes);
        memcpy(data, in->p, in->left < bytes ? in->left : bytes);
        memcpy(orig, data, bytes);
        fwd.coset_shift = shift[0] ? shift : NULL;
        fwd.generator = gen[0] ? gen : NULL;
        fwd.device = device[0] ? device : NULL;
        inv = fwd;
        inv.inverse = 1;
        inv.order = swapped[fwd.order];
        hpr_status st = hpr_ntt(ctx, field, log_n, data, &fwd);
        if (st == HPR_OK) {
            FUZZ_CHECK(hpr_ntt(ctx, field, log_n, data, &inv) == HPR_OK);
            FUZZ_CHECK(memcmp(data, orig, bytes) == 0);
        } else {
            FUZZ_CHECK(hpr_ctx_error_detail(ctx)[0] != '\0');
            FUZZ_CHECK(memcmp(data, orig, bytes) == 0); /* on error data is unchanged */
        }
    }
    free(shift);
    free(gen);
    free(device);
    free(data);
    free(orig);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    fuzz_input in = {data, size};
    unsigned ctl = fuzz_byte(&in);
    if (!dir[0]) {
        fuzz_no_opencl();
        make_dir();
    }
    if (size > MAX_FILE)
        return 0;
    switch (ctl & 3) {
    case 0: fuzz_cli_msm(&in); break;
    case 1: fuzz_cli_ntt(&in, ctl); break;
    case 2: fuzz_msm_opts(&in); break;
    default: fuzz_ntt_opts(&in); break;
    }
    return 0;
}
