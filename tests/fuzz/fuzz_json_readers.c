/*
 * fuzz_json_readers.c: libFuzzer target for the JSON reader (host/core/json_read.h) and the
 * Groth16 verifier's readers of snarkjs's verification_key.json, public.json and proof.json
 * (hpr_groth16_verify_json).
 *
 * Input: the three texts, verification key, public signals and proof, separated by NUL
 * bytes (which valid JSON never holds); the whole input is also parsed as one JSON text.
 *
 * Oracles: a text json_parse accepts, written back as JSON by this target and parsed again,
 * gives the same tree (types, numbers as written, strings, keys, order), and json_get finds
 * every key of an object as its first occurrence; a refused text gets a reason naming the
 * byte. hpr_groth16_verify_json answers only with the statuses of its contract (verifies,
 * does not verify, a format, curve, range, curve-membership or subgroup error), each failure
 * with a detail.
 * Why: these texts come from outside (a proof to accept or refuse), and the readers are
 * recursive-descent code over them.
 */
#define _POSIX_C_SOURCE 200809L
#include "fuzz_support.h"
#include "host/core/json_read.h"

typedef struct {
    char *s;
    size_t len, cap;
} text_buf;

static int put(text_buf *b, const char *s, size_t n)
{
    if (b->len + n + 1 > b->cap) {
        size_t cap = 2 * (b->len + n + 1);
        char *p = realloc(b->s, cap);
        if (!p)
            return -1;
        b->s = p;
        b->cap = cap;
    }
    memcpy(b->s + b->len, s, n);
    b->len += n;
    b->s[b->len] = '\0';
    return 0;
}

static int put_string(text_buf *b, const char *s)
{
    int rc = put(b, "\"", 1);
    for (; *s && rc == 0; s++) {
        unsigned char c = (unsigned char)*s;
        char esc[8];
        if (c < 0x20 || c == '"' || c == '\\') {
            snprintf(esc, sizeof esc, "\\u%04x", c);
            rc = put(b, esc, 6);
        } else {
            rc = put(b, s, 1);
        }
    }
    return rc ? rc : put(b, "\"", 1);
}

/* v written back as JSON (no spaces). */
static int write_json(text_buf *b, const json_value *v)
{
    int rc = 0;
    switch (v->type) {
    case JSON_NULL: return put(b, "null", 4);
    case JSON_FALSE: return put(b, "false", 5);
    case JSON_TRUE: return put(b, "true", 4);
    case JSON_NUMBER: return put(b, v->text, strlen(v->text));
    case JSON_STRING: return put_string(b, v->text);
    case JSON_ARRAY:
    case JSON_OBJECT:
        rc = put(b, v->type == JSON_ARRAY ? "[" : "{", 1);
        for (size_t i = 0; i < v->count && rc == 0; i++) {
            if (i)
                rc = put(b, ",", 1);
            if (rc == 0 && v->type == JSON_OBJECT)
                rc = put_string(b, v->keys[i]) || put(b, ":", 1);
            if (rc == 0)
                rc = write_json(b, &v->items[i]);
        }
        return rc ? rc : put(b, v->type == JSON_ARRAY ? "]" : "}", 1);
    }
    return -1;
}

static int same_tree(const json_value *a, const json_value *b)
{
    if (a->type != b->type || a->count != b->count)
        return 0;
    if ((a->type == JSON_NUMBER || a->type == JSON_STRING) && strcmp(a->text, b->text) != 0)
        return 0;
    for (size_t i = 0; i < a->count; i++)
        if ((a->type == JSON_OBJECT && strcmp(a->keys[i], b->keys[i]) != 0) || !same_tree(&a->items[i], &b->items[i]))
            return 0;
    return 1;
}

static void check_get(const json_value *v)
{
    if (v->type != JSON_ARRAY && v->type != JSON_OBJECT)
        return;
    for (size_t i = 0; i < v->count; i++) {
        if (v->type == JSON_OBJECT) {
            size_t first = 0;
            while (strcmp(v->keys[first], v->keys[i]) != 0)
                first++;
            FUZZ_CHECK(json_get(v, v->keys[i]) == &v->items[first]);
        }
        check_get(&v->items[i]);
    }
}

static void fuzz_json_parse(const char *text, size_t len)
{
    char err[200] = "";
    text_buf out = {NULL, 0, 0};
    json_value *v = json_parse(text, len, err, sizeof err), *again;
    if (!v) {
        FUZZ_CHECK(strstr(err, "at byte ") != NULL);
        return;
    }
    check_get(v);
    if (write_json(&out, v) == 0) {
        again = json_parse(out.s, out.len, err, sizeof err);
        FUZZ_CHECK(again != NULL);
        FUZZ_CHECK(same_tree(v, again));
        json_free(again);
    }
    free(out.s);
    json_free(v);
}

static int verify_status_ok(hpr_status st)
{
    switch (st) {
    case HPR_OK:
    case HPR_ERR_PROOF_INVALID:
    case HPR_ERR_FORMAT:
    case HPR_ERR_UNSUPPORTED_CURVE:
    case HPR_ERR_COORDINATE_OUT_OF_RANGE:
    case HPR_ERR_POINT_NOT_ON_CURVE:
    case HPR_ERR_POINT_NOT_IN_SUBGROUP:
    case HPR_ERR_SCALAR_OUT_OF_RANGE:
        return 1;
    default:
        return 0;
    }
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    hpr_ctx *ctx = fuzz_ctx();
    fuzz_input in = {data, size};
    const char *part[3];
    size_t len[3];
    fuzz_json_parse((const char *)data, size);
    for (int k = 0; k < 3; k++) {
        const uint8_t *end = in.left ? memchr(in.p, 0, in.left) : NULL;
        part[k] = (const char *)in.p;
        len[k] = end ? (size_t)(end - in.p) : in.left;
        in.p += len[k] + (end != NULL);
        in.left -= len[k] + (end != NULL);
    }
    hpr_status st = hpr_groth16_verify_json(ctx, part[0], len[0], part[1], len[1], part[2], len[2]);
    FUZZ_CHECK(verify_status_ok(st));
    if (st != HPR_OK)
        FUZZ_CHECK(hpr_ctx_error_detail(ctx)[0] != '\0');
    return 0;
}
