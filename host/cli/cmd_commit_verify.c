/*
 * cmd_commit_verify.c: `hyprove commit verify FILE [--root ROOT.json]`, the openings that
 * `hyprove commit --open` writes checked against a root with hpr_merkle_verify.
 *
 * FILE is root.json in the form `commit` writes it (docs/cli.md, "commit"): field, hash, rows,
 * columns, root and openings, each {"row", "values", "path"}. The root the openings are
 * checked against is FILE's own, or with --root that of another root.json: the commitment the
 * verifier holds (written by `commit` without --open), whose field, rows and columns the
 * openings must also match. The whole of FILE is read and checked for form before any opening
 * is verified, so a malformed file is always exit 1 (the member named), never half-checked.
 * Exit status (docs/cli.md, "Exit status"): 0 every opening verifies, 3 one does not (each
 * failing opening named on stderr), 1 a file missing, unreadable or malformed, 2 usage.
 */
#include "cli.h"
#include "cli_commit.h"
#include "cli_json_read.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CMD "commit verify "

const char cli_commit_verify_help[] =
    "usage: hyprove commit verify FILE [--root ROOT.json]\n"
    "\n"
    "Checks the openings of a Merkle commitment against its root (hpr_merkle_verify): FILE is\n"
    "root.json as `hyprove commit` writes it when asked for openings (field, hash, rows, columns,\n"
    "root and openings, each the row, its values and its authentication path). Every opening\n"
    "is checked.\n"
    "  --root ROOT.json  check against the root of this root.json (e.g. one written by\n"
    "                    `hyprove commit` with no openings) instead of FILE's own; its field,\n"
    "                    rows and columns must be FILE's too\n"
    "- is stdin for either file. Exit status: 0 every opening verifies (\"OK\" on stdout), 3 one\n"
    "does not (each named on stderr), 1 a file missing, unreadable or malformed (the member\n"
    "named), 2 bad arguments.\n";

/* A commitment as a root.json describes it. */
typedef struct {
    const char *path;
    hpr_field field;
    uint32_t p; /* the field's modulus */
    size_t rows, columns;
    unsigned depth; /* log2(rows) */
    uint32_t root[DIGEST];
} commitment;

/* What v is, for a message: "an array of 3", "the string \"x\"", "the number 1.5", "nothing". */
static const char *describe(const cli_jv *v, char *buf, size_t n)
{
    static const char *const kinds[] = {"null", "false", "true", "a number", "a string", "an array", "an object"};
    if (!v)
        snprintf(buf, n, "nothing");
    else if (v->type == CLI_JSON_ARRAY)
        snprintf(buf, n, "an array of %zu", v->count);
    else if (v->type == CLI_JSON_STRING)
        snprintf(buf, n, "the string \"%.40s\"", v->text);
    else if (v->type == CLI_JSON_NUMBER)
        snprintf(buf, n, "the number %.40s", v->text);
    else
        snprintf(buf, n, "%s", kinds[v->type]);
    return buf;
}

/* v (a JSON number) as an integer in [0, max] into *out: 0, or 1 after an error naming where. */
static int read_uint(const commitment *c, const cli_jv *v, const char *where, unsigned long long max,
                     unsigned long long *out)
{
    if (!v)
        return cli_error("'%s': %s is missing", c->path, where);
    char what[64];
    if (v->type != CLI_JSON_NUMBER || cli_parse_uint(v->text, 0, max, out) != 0)
        return cli_error("'%s': %s: expected an integer in 0..%llu, found %s", c->path, where, max,
                         describe(v, what, sizeof what));
    return 0;
}

/* v, an array of n field elements (each below p), into out: 0 or 1 after an error. */
static int read_elements(const commitment *c, const cli_jv *v, const char *where, uint32_t *out, size_t n)
{
    char item[96], what[64];
    unsigned long long e;
    if (!v)
        return cli_error("'%s': %s is missing", c->path, where);
    if (v->type != CLI_JSON_ARRAY || v->count != n)
        return cli_error("'%s': %s: expected an array of %zu %s elements, found %s", c->path, where, n,
                         cli_field_name(c->field), describe(v, what, sizeof what));
    for (size_t k = 0; k < n; k++) {
        snprintf(item, sizeof item, "%s[%zu]", where, k);
        if (read_uint(c, &v->items[k], item, c->p - 1, &e) != 0)
            return CLI_EXIT_FAILURE;
        out[k] = (uint32_t)e;
    }
    return 0;
}

/* field and hash: 0 or 1 after an error. */
static int read_field(commitment *c, const cli_jv *doc)
{
    const cli_jv *field = cli_json_get(doc, "field"), *hash = cli_json_get(doc, "hash");
    if (!field)
        return cli_error("'%s': field is missing", c->path);
    char what[64];
    if (field->type != CLI_JSON_STRING || commit_parse_field(field->text, &c->field) != 0)
        return cli_error("'%s': field: expected \"koalabear\" or \"babybear\", found %s", c->path,
                         describe(field, what, sizeof what));
    c->p = commit_field_modulus(c->field);
    if (!hash)
        return cli_error("'%s': hash is missing (\"%s\" for %s)", c->path, commit_hash_name(c->field),
                         cli_field_name(c->field));
    if (hash->type != CLI_JSON_STRING || strcmp(hash->text, commit_hash_name(c->field)) != 0)
        return cli_error("'%s': hash: expected \"%s\" (the hash of %s commitments), found %s", c->path,
                         commit_hash_name(c->field), cli_field_name(c->field), describe(hash, what, sizeof what));
    return 0;
}

/* The commitment that doc (a root.json read from path) describes: 0 or 1 after an error. */
static int read_commitment(commitment *c, const char *path, const cli_jv *doc)
{
    unsigned long long rows, columns;
    memset(c, 0, sizeof *c);
    c->path = path;
    if (doc->type != CLI_JSON_OBJECT)
        return cli_error("'%s': expected a JSON object (root.json as `hyprove commit` writes it)", path);
    if (read_field(c, doc) != 0 || read_uint(c, cli_json_get(doc, "rows"), "rows", 1ull << 62, &rows) != 0 ||
        read_uint(c, cli_json_get(doc, "columns"), "columns", 1ull << 30, &columns) != 0)
        return CLI_EXIT_FAILURE;
    if (rows == 0 || (rows & (rows - 1)) != 0)
        return cli_error("'%s': rows: %llu is not a power of two (a commitment's rows are 2^k)", path, rows);
    if (columns == 0)
        return cli_error("'%s': columns: 0 (a committed matrix has at least one column)", path);
    c->rows = (size_t)rows;
    c->columns = (size_t)columns;
    while ((1ull << c->depth) < rows)
        c->depth++;
    return read_elements(c, cli_json_get(doc, "root"), "root", c->root, DIGEST);
}

/* openings[i] into *row, values (columns) and path (depth digests): 0 or 1 after an error. */
static int read_opening(const commitment *c, const cli_jv *o, size_t i, size_t *row, uint32_t *values,
                        uint32_t *path)
{
    char where[64], level[80], what[64];
    unsigned long long r;
    const cli_jv *p = cli_json_get(o, "path");
    snprintf(where, sizeof where, "openings[%zu]", i);
    if (o->type != CLI_JSON_OBJECT)
        return cli_error("'%s': %s: expected an object {\"row\", \"values\", \"path\"}", c->path, where);
    snprintf(where, sizeof where, "openings[%zu].row", i);
    if (read_uint(c, cli_json_get(o, "row"), where, c->rows - 1, &r) != 0)
        return CLI_EXIT_FAILURE;
    *row = (size_t)r;
    snprintf(where, sizeof where, "openings[%zu].values", i);
    if (read_elements(c, cli_json_get(o, "values"), where, values, c->columns) != 0)
        return CLI_EXIT_FAILURE;
    snprintf(where, sizeof where, "openings[%zu].path", i);
    if (!p || p->type != CLI_JSON_ARRAY || p->count != c->depth)
        return cli_error("'%s': %s: expected an array of %u digests (log2 of %zu rows), found %s", c->path, where,
                         c->depth, c->rows, describe(p, what, sizeof what));
    for (unsigned d = 0; d < c->depth; d++) {
        snprintf(level, sizeof level, "%s[%u]", where, d);
        if (read_elements(c, &p->items[d], level, path + (size_t)d * DIGEST, DIGEST) != 0)
            return CLI_EXIT_FAILURE;
    }
    return 0;
}

/* path read and parsed into *doc: 0 or 1 after an error naming the file (and the byte). */
static int read_json(const char *path, cli_jv **doc)
{
    unsigned char *text = NULL;
    size_t len;
    char err[200];
    int rc = CLI_EXIT_FAILURE;
    if (cli_read_file(path, &text, &len) != 0)
        goto out;
    if (!(*doc = cli_json_parse((const char *)text, len, err, sizeof err))) {
        cli_error("'%s': not JSON: %s", path, err);
        goto out;
    }
    rc = 0;
out:
    free(text);
    return rc;
}

/* The root to check against: FILE's own, or --root's when its commitment is FILE's. 0, 1
 * after an error, or 3 when the two files describe different commitments. */
static int trusted_root(commitment *c, const char *root_path)
{
    cli_jv *doc = NULL;
    commitment t;
    int rc = CLI_EXIT_FAILURE;
    if (!root_path)
        return 0;
    if (read_json(root_path, &doc) != 0 || read_commitment(&t, root_path, doc) != 0)
        goto out;
    rc = CLI_EXIT_NOT_VERIFIED;
    if (t.field != c->field || t.rows != c->rows || t.columns != c->columns) {
        fprintf(stderr, "hyprove: does not verify: '%s' holds openings of a %s commitment of %zu rows and %zu "
                "columns, '%s' is a %s commitment of %zu rows and %zu columns\n", c->path, cli_field_name(c->field),
                c->rows, c->columns, root_path, cli_field_name(t.field), t.rows, t.columns);
        goto out;
    }
    memcpy(c->root, t.root, sizeof c->root);
    rc = 0;
out:
    cli_json_free(doc);
    return rc;
}

/* Every opening read (check_only: its form only) or verified: 0, 1 after an error, 3 when
 * one does not verify (each named). */
static int openings(const commitment *c, const cli_jv *list, int check_only, uint32_t *values, uint32_t *path)
{
    size_t failed = 0, row = 0;
    for (size_t i = 0; i < list->count; i++) {
        if (read_opening(c, &list->items[i], i, &row, values, path) != 0)
            return CLI_EXIT_FAILURE;
        if (check_only)
            continue;
        hpr_status st = hpr_merkle_verify(c->field, c->root, c->depth, row, values, c->columns, path);
        if (st != HPR_OK && st != HPR_ERR_PROOF_INVALID)
            return cli_status_error("commit verify: checking an opening", st, NULL);
        if (st == HPR_ERR_PROOF_INVALID) {
            fprintf(stderr, "hyprove: does not verify: openings[%zu] (row %zu) does not lead to the root\n", i, row);
            failed++;
        }
    }
    if (failed)
        fprintf(stderr, "hyprove: %zu of %zu opening(s) do not verify\n", failed, list->count);
    return failed ? CLI_EXIT_NOT_VERIFIED : 0;
}

/* FILE's openings checked against the root: the exit status. */
static int verify_file(const char *file, const char *root_path)
{
    cli_jv *doc = NULL;
    commitment c;
    uint32_t *values = NULL, *path = NULL;
    int rc = CLI_EXIT_FAILURE;
    if (read_json(file, &doc) != 0 || read_commitment(&c, file, doc) != 0)
        goto out;
    const cli_jv *list = cli_json_get(doc, "openings");
    if (!list || list->type != CLI_JSON_ARRAY || list->count == 0) {
        cli_error("'%s': openings: %s (write them with `hyprove commit --open ROWS`)", file,
                  !list ? "missing" : list->type != CLI_JSON_ARRAY ? "not an array" : "empty");
        goto out;
    }
    values = malloc(c.columns * sizeof *values);
    path = malloc(((size_t)c.depth + 1) * DIGEST * sizeof *path);
    if (!values || !path) {
        cli_error("commit verify: out of memory for an opening of %zu columns", c.columns);
        goto out;
    }
    if ((rc = openings(&c, list, 1, values, path)) != 0 || (rc = trusted_root(&c, root_path)) != 0 ||
        (rc = openings(&c, list, 0, values, path)) != 0)
        goto out;
    printf("OK: %zu opening(s) verify against the root (%s, %zu rows, %zu columns)\n", list->count,
           cli_field_name(c.field), c.rows, c.columns);
out:
    free(values);
    free(path);
    cli_json_free(doc);
    return rc;
}

int cmd_commit_verify(int argc, char **argv)
{
    const char *root_path = NULL, *pos[1];
    int npos;
    const cli_opt opts[] = {CLI_OPT("--root", &root_path)};
    int rc = cli_parse_args(argc, argv, CMD, cli_commit_verify_help, opts, sizeof opts / sizeof opts[0], pos, 1,
                            &npos);
    if (rc >= 0)
        return rc;
    if (npos < 1)
        return cli_usage_error(CMD, "expected FILE, a root.json with openings (hyprove commit --open ROWS)");
    if (root_path && strcmp(root_path, "-") == 0 && strcmp(pos[0], "-") == 0)
        return cli_usage_error(CMD, "stdin (-) can be read once: give FILE or --root as a path");
    return verify_file(pos[0], root_path);
}
