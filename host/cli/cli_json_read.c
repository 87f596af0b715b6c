/*
 * cli_json_read.c: a strict JSON reader for the CLI (cli_json_read.h).
 *
 * Method: recursive descent over the text with one cursor. A string is first scanned to its
 * closing quote (its decoded form is never longer than its source, which sizes the buffer),
 * then decoded: the escapes of RFC 8259, \uXXXX written as UTF-8 with surrogate pairs
 * joined. A number's syntax is checked and its text kept (callers want exact integers, not
 * doubles). Arrays and objects grow by doubling. On an error the partial tree stays
 * consistent (count says how many items are complete), so one free releases it.
 * Why strict: what it reads decides an answer (an opening verifies or not), so anything
 * outside the grammar is refused, naming the byte.
 */
#include "cli_json_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_DEPTH 64

typedef struct {
    const char *s;
    size_t len, pos;
    unsigned depth;
    char *err;
    size_t err_len;
} reader;

static int fail(reader *r, const char *fmt, ...)
#if defined(__GNUC__)
    __attribute__((format(printf, 2, 3)))
#endif
    ;

static int fail(reader *r, const char *fmt, ...)
{
    char what[160];
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(what, sizeof what, fmt, ap);
    va_end(ap);
    if (r->err_len)
        snprintf(r->err, r->err_len, "%s at byte %zu", what, r->pos);
    return -1;
}

static void skip_space(reader *r)
{
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' || r->s[r->pos] == '\n' ||
                               r->s[r->pos] == '\r'))
        r->pos++;
}

static int peek(const reader *r)
{
    return r->pos < r->len ? (unsigned char)r->s[r->pos] : -1;
}

static int value(reader *r, cli_jv *v);

static int literal(reader *r, const char *word, cli_json_type type, cli_jv *v)
{
    size_t n = strlen(word);
    if (r->len - r->pos < n || memcmp(r->s + r->pos, word, n) != 0)
        return fail(r, "unexpected character '%c'", r->s[r->pos]);
    r->pos += n;
    v->type = type;
    return 0;
}

static size_t digits(reader *r)
{
    size_t start = r->pos;
    while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
        r->pos++;
    return r->pos - start;
}

/* -?(0|[1-9][0-9]*)(.[0-9]+)?([eE][+-]?[0-9]+)?, kept as written. */
static int number(reader *r, cli_jv *v)
{
    size_t start = r->pos;
    if (peek(r) == '-')
        r->pos++;
    if (peek(r) == '0')
        r->pos++;
    else if (digits(r) == 0)
        return fail(r, "a number without digits");
    if (peek(r) == '.' && (r->pos++, digits(r) == 0))
        return fail(r, "a number without digits after its '.'");
    if (peek(r) == 'e' || peek(r) == 'E') {
        r->pos++;
        if (peek(r) == '+' || peek(r) == '-')
            r->pos++;
        if (digits(r) == 0)
            return fail(r, "a number without digits in its exponent");
    }
    v->text = malloc(r->pos - start + 1);
    if (!v->text)
        return fail(r, "out of memory");
    memcpy(v->text, r->s + start, r->pos - start);
    v->text[r->pos - start] = '\0';
    v->type = CLI_JSON_NUMBER;
    return 0;
}

/* Four hex digits at r->pos into *u: 0 or -1. */
static int hex4(reader *r, unsigned *u)
{
    *u = 0;
    for (int k = 0; k < 4; k++, r->pos++) {
        int c = peek(r);
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16u;
        if (d == 16)
            return fail(r, "\\u needs four hex digits");
        *u = *u << 4 | d;
    }
    return 0;
}

static size_t put_utf8(char *out, unsigned u)
{
    if (u < 0x80) {
        out[0] = (char)u;
        return 1;
    }
    if (u < 0x800) {
        out[0] = (char)(0xc0 | u >> 6);
        out[1] = (char)(0x80 | (u & 0x3f));
        return 2;
    }
    if (u < 0x10000) {
        out[0] = (char)(0xe0 | u >> 12);
        out[1] = (char)(0x80 | (u >> 6 & 0x3f));
        out[2] = (char)(0x80 | (u & 0x3f));
        return 3;
    }
    out[0] = (char)(0xf0 | u >> 18);
    out[1] = (char)(0x80 | (u >> 12 & 0x3f));
    out[2] = (char)(0x80 | (u >> 6 & 0x3f));
    out[3] = (char)(0x80 | (u & 0x3f));
    return 4;
}

/* After "\u" (r->pos at the hex digits): the code point, a surrogate pair joined. */
static int unicode_escape(reader *r, unsigned *u)
{
    unsigned low;
    if (hex4(r, u) != 0)
        return -1;
    if (*u >= 0xdc00 && *u <= 0xdfff)
        return fail(r, "a lone low surrogate");
    if (*u >= 0xd800 && *u <= 0xdbff) {
        if (r->len - r->pos < 2 || r->s[r->pos] != '\\' || r->s[r->pos + 1] != 'u')
            return fail(r, "a high surrogate without its low half");
        r->pos += 2;
        if (hex4(r, &low) != 0)
            return -1;
        if (low < 0xdc00 || low > 0xdfff)
            return fail(r, "a high surrogate without its low half");
        *u = 0x10000 + ((*u - 0xd800) << 10) + (low - 0xdc00);
    }
    if (*u == 0)
        return fail(r, "\\u0000 in a string");
    return 0;
}

/* One escape after the backslash (r->pos at the letter) appended at out: its length or -1. */
static long escape(reader *r, char *out)
{
    static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
    int c = peek(r);
    const char *at = c > 0 ? strchr(from, c) : NULL;
    unsigned u;
    if (c == 'u') {
        r->pos++;
        return unicode_escape(r, &u) != 0 ? -1 : (long)put_utf8(out, u);
    }
    if (!at || !*at)
        return fail(r, "an unknown escape");
    r->pos++;
    out[0] = to[at - from];
    return 1;
}

/* A string at r->pos (its opening quote) decoded into *out (malloc'd). */
static int string(reader *r, char **out)
{
    size_t end = ++r->pos, n = 0;
    while (end < r->len && r->s[end] != '"')
        end += r->s[end] == '\\' ? 2 : 1;
    if (end >= r->len)
        return fail(r, "a string without its closing quote");
    if (!(*out = malloc(end - r->pos + 1)))
        return fail(r, "out of memory");
    while (r->pos < end) {
        unsigned char c = (unsigned char)r->s[r->pos++];
        long k = 1;
        if (c < 0x20) {
            r->pos--;
            return fail(r, "a control character in a string");
        }
        if (c == '\\')
            k = escape(r, *out + n);
        else
            (*out)[n] = (char)c;
        if (k < 0)
            return -1;
        n += (size_t)k;
    }
    (*out)[n] = '\0';
    r->pos++;
    return 0;
}

/* Room for one more item (and key) in v: 0 or -1. */
static int grow(reader *r, cli_jv *v, size_t *cap)
{
    if (v->count < *cap)
        return 0;
    size_t ncap = *cap ? 2 * *cap : 8;
    cli_jv *items = realloc(v->items, ncap * sizeof *items);
    if (items)
        v->items = items;
    char **keys = items && v->type == CLI_JSON_OBJECT ? realloc(v->keys, ncap * sizeof *keys) : NULL;
    if (keys)
        v->keys = keys;
    if (!items || (v->type == CLI_JSON_OBJECT && !keys))
        return fail(r, "out of memory");
    *cap = ncap;
    return 0;
}

/* The items of an array or object, r->pos after its opening bracket. */
static int items(reader *r, cli_jv *v, char close)
{
    size_t cap = 0;
    skip_space(r);
    if (peek(r) == close) {
        r->pos++;
        return 0;
    }
    for (;;) {
        if (grow(r, v, &cap) != 0)
            return -1;
        cli_jv *item = &v->items[v->count];
        memset(item, 0, sizeof *item);
        skip_space(r);
        if (v->type == CLI_JSON_OBJECT) {
            v->keys[v->count] = NULL;
            if (peek(r) != '"' || string(r, &v->keys[v->count]) != 0) {
                v->count++; /* its key, if any, is freed with the tree */
                return peek(r) == '"' ? -1 : fail(r, "expected a member's name (a string)");
            }
            v->count++;
            for (size_t i = 0; i + 1 < v->count; i++)
                if (strcmp(v->keys[i], v->keys[v->count - 1]) == 0)
                    return fail(r, "the member \"%.40s\" is repeated", v->keys[i]);
            skip_space(r);
            if (peek(r) != ':')
                return fail(r, "expected ':' after a member's name");
            r->pos++;
        } else {
            v->count++;
        }
        if (value(r, item) != 0)
            return -1;
        skip_space(r);
        if (peek(r) == close) {
            r->pos++;
            return 0;
        }
        if (peek(r) != ',')
            return fail(r, "expected ',' or '%c'", close);
        r->pos++;
    }
}

static int value(reader *r, cli_jv *v)
{
    int c, rc;
    skip_space(r);
    c = peek(r);
    if (c < 0)
        return fail(r, "the text ends where a value was expected");
    if (c == '{' || c == '[') {
        if (++r->depth > MAX_DEPTH)
            return fail(r, "nested deeper than %d levels", MAX_DEPTH);
        r->pos++;
        v->type = c == '{' ? CLI_JSON_OBJECT : CLI_JSON_ARRAY;
        rc = items(r, v, c == '{' ? '}' : ']');
        r->depth--;
        return rc;
    }
    if (c == '"') {
        v->type = CLI_JSON_STRING;
        return string(r, &v->text);
    }
    if (c == '-' || (c >= '0' && c <= '9'))
        return number(r, v);
    if (c == 't')
        return literal(r, "true", CLI_JSON_TRUE, v);
    if (c == 'f')
        return literal(r, "false", CLI_JSON_FALSE, v);
    if (c == 'n')
        return literal(r, "null", CLI_JSON_NULL, v);
    return fail(r, "unexpected character '%c'", c);
}

static void free_items(cli_jv *v)
{
    for (size_t i = 0; i < v->count; i++) {
        free_items(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
}

void cli_json_free(cli_jv *v)
{
    if (!v)
        return;
    free_items(v);
    free(v);
}

cli_jv *cli_json_parse(const char *text, size_t len, char *err, size_t err_len)
{
    reader r = {text, len, 0, 0, err, err_len};
    cli_jv *root = calloc(1, sizeof *root);
    if (err_len)
        err[0] = '\0';
    if (!root) {
        fail(&r, "out of memory");
        return NULL;
    }
    if (value(&r, root) == 0) {
        skip_space(&r);
        if (r.pos == r.len)
            return root;
        fail(&r, "more text after the value");
    }
    cli_json_free(root);
    return NULL;
}

const cli_jv *cli_json_get(const cli_jv *obj, const char *key)
{
    if (!obj || obj->type != CLI_JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}
