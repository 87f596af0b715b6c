/*
 * json_read.c: a recursive-descent JSON reader (json_read.h).
 *
 * Method: one pass over the text with a cursor; strings are decoded (the escapes of RFC 8259,
 * \uXXXX as UTF-8, surrogate pairs joined); numbers are kept as written after their syntax
 * is checked (the callers want decimal integers of any length, not doubles); arrays and
 * objects grow their item arrays by doubling. Why strict: the inputs are security-relevant
 * (a proof to accept or refuse), so anything outside the grammar is an error naming where.
 */
#include "host/core/json_read.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define JSON_MAX_DEPTH 64

typedef struct {
    const char *s;
    size_t len, pos;
    char *err;
    size_t err_len;
    int failed;
} reader;

static int fail(reader *r, const char *fmt, ...)
{
    if (!r->failed && r->err && r->err_len) {
        char what[160];
        va_list ap;
        va_start(ap, fmt);
        vsnprintf(what, sizeof what, fmt, ap);
        va_end(ap);
        snprintf(r->err, r->err_len, "%s at byte %zu", what, r->pos);
    }
    r->failed = 1;
    return -1;
}

static void skip_space(reader *r)
{
    while (r->pos < r->len && (r->s[r->pos] == ' ' || r->s[r->pos] == '\t' || r->s[r->pos] == '\n' ||
                               r->s[r->pos] == '\r'))
        r->pos++;
}

static int append(char **buf, size_t *n, size_t *cap, char c)
{
    if (*n + 2 > *cap) {
        size_t ncap = *cap ? 2 * *cap : 32;
        char *b = realloc(*buf, ncap);
        if (!b)
            return -1;
        *buf = b;
        *cap = ncap;
    }
    (*buf)[(*n)++] = c;
    (*buf)[*n] = '\0';
    return 0;
}

static int hex4(reader *r, unsigned *out)
{
    *out = 0;
    for (int i = 0; i < 4; i++, r->pos++) {
        char c = r->pos < r->len ? r->s[r->pos] : '\0';
        unsigned d = c >= '0' && c <= '9' ? (unsigned)(c - '0') : c >= 'a' && c <= 'f' ? (unsigned)(c - 'a' + 10)
                   : c >= 'A' && c <= 'F' ? (unsigned)(c - 'A' + 10) : 16;
        if (d == 16)
            return fail(r, "bad \\u escape");
        *out = *out * 16 + d;
    }
    return 0;
}

static int put_utf8(char **buf, size_t *n, size_t *cap, unsigned cp)
{
    int rc = 0;
    if (cp < 0x80) {
        rc |= append(buf, n, cap, (char)cp);
    } else if (cp < 0x800) {
        rc |= append(buf, n, cap, (char)(0xc0 | cp >> 6));
        rc |= append(buf, n, cap, (char)(0x80 | (cp & 0x3f)));
    } else if (cp < 0x10000) {
        rc |= append(buf, n, cap, (char)(0xe0 | cp >> 12));
        rc |= append(buf, n, cap, (char)(0x80 | ((cp >> 6) & 0x3f)));
        rc |= append(buf, n, cap, (char)(0x80 | (cp & 0x3f)));
    } else {
        rc |= append(buf, n, cap, (char)(0xf0 | cp >> 18));
        rc |= append(buf, n, cap, (char)(0x80 | ((cp >> 12) & 0x3f)));
        rc |= append(buf, n, cap, (char)(0x80 | ((cp >> 6) & 0x3f)));
        rc |= append(buf, n, cap, (char)(0x80 | (cp & 0x3f)));
    }
    return rc;
}

/* At the opening quote: the decoded string into *out. */
static int read_string(reader *r, char **out)
{
    char *buf = NULL;
    size_t n = 0, cap = 0;
    r->pos++;
    if (append(&buf, &n, &cap, 'x') != 0)
        return fail(r, "out of memory");
    n = 0;
    buf[0] = '\0';
    for (;;) {
        if (r->pos >= r->len) {
            free(buf);
            return fail(r, "unterminated string");
        }
        unsigned char c = (unsigned char)r->s[r->pos++];
        if (c == '"')
            break;
        if (c < 0x20) {
            free(buf);
            return fail(r, "control character in a string");
        }
        if (c != '\\') {
            if (append(&buf, &n, &cap, (char)c) != 0)
                goto oom;
            continue;
        }
        char e = r->pos < r->len ? r->s[r->pos++] : '\0';
        const char *from = "\"\\/bfnrt", *to = "\"\\/\b\f\n\r\t";
        const char *k = e ? strchr(from, e) : NULL;
        if (k) {
            if (append(&buf, &n, &cap, to[k - from]) != 0)
                goto oom;
        } else if (e == 'u') {
            unsigned cp, lo;
            if (hex4(r, &cp) != 0) {
                free(buf);
                return -1;
            }
            if (cp >= 0xd800 && cp < 0xdc00) {
                if (r->pos + 2 > r->len || r->s[r->pos] != '\\' || r->s[r->pos + 1] != 'u') {
                    free(buf);
                    return fail(r, "unpaired surrogate");
                }
                r->pos += 2;
                if (hex4(r, &lo) != 0 || lo < 0xdc00 || lo >= 0xe000) {
                    free(buf);
                    return fail(r, "unpaired surrogate");
                }
                cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
            } else if (cp >= 0xdc00 && cp < 0xe000) {
                free(buf);
                return fail(r, "unpaired surrogate");
            } else if (cp == 0) { /* the tree's strings are C strings: a NUL would cut one short */
                free(buf);
                return fail(r, "\\u0000 in a string");
            }
            if (put_utf8(&buf, &n, &cap, cp) != 0)
                goto oom;
        } else {
            free(buf);
            return fail(r, "bad escape");
        }
    }
    *out = buf;
    return 0;
oom:
    free(buf);
    return fail(r, "out of memory");
}

static int digits(reader *r)
{
    size_t start = r->pos;
    while (r->pos < r->len && r->s[r->pos] >= '0' && r->s[r->pos] <= '9')
        r->pos++;
    return r->pos > start ? 0 : fail(r, "digit expected");
}

static int read_number(reader *r, char **out)
{
    size_t start = r->pos;
    if (r->s[r->pos] == '-')
        r->pos++;
    if (r->pos < r->len && r->s[r->pos] == '0')
        r->pos++;
    else if (digits(r) != 0)
        return -1;
    if (r->pos < r->len && r->s[r->pos] == '.') {
        r->pos++;
        if (digits(r) != 0)
            return -1;
    }
    if (r->pos < r->len && (r->s[r->pos] == 'e' || r->s[r->pos] == 'E')) {
        r->pos++;
        if (r->pos < r->len && (r->s[r->pos] == '+' || r->s[r->pos] == '-'))
            r->pos++;
        if (digits(r) != 0)
            return -1;
    }
    if (!(*out = malloc(r->pos - start + 1)))
        return fail(r, "out of memory");
    memcpy(*out, r->s + start, r->pos - start);
    (*out)[r->pos - start] = '\0';
    return 0;
}

static int read_value(reader *r, json_value *v, int depth);

static int compare_keys(const void *a, const void *b)
{
    return strcmp(*(char *const *)a, *(char *const *)b);
}

/* An object whose keys repeat is refused: readers differ on which value wins (snarkjs's
 * JSON.parse takes the last, a first-match reader the first), so one file could verify in one
 * tool and not in another. Sorted copies of the keys, adjacent ones compared: n log n. */
static int check_unique_keys(reader *r, const json_value *v)
{
    if (v->count < 2)
        return 0;
    char **sorted = malloc(v->count * sizeof *sorted);
    if (!sorted)
        return fail(r, "out of memory");
    memcpy(sorted, v->keys, v->count * sizeof *sorted);
    qsort(sorted, v->count, sizeof *sorted, compare_keys);
    int rc = 0;
    for (size_t i = 1; i < v->count && rc == 0; i++)
        if (strcmp(sorted[i - 1], sorted[i]) == 0)
            rc = fail(r, "key \"%.60s\" repeated in an object ending", sorted[i]);
    free(sorted);
    return rc;
}

/* Items of an array (keys NULL) or object up to the closing bracket. */
static int read_items(reader *r, json_value *v, int depth, char close)
{
    size_t cap = 0;
    r->pos++;
    skip_space(r);
    if (r->pos < r->len && r->s[r->pos] == close) {
        r->pos++;
        return 0;
    }
    for (;;) {
        char *key = NULL;
        skip_space(r);
        if (v->type == JSON_OBJECT) {
            if (r->pos >= r->len || r->s[r->pos] != '"')
                return fail(r, "object key expected");
            if (read_string(r, &key) != 0)
                return -1;
            skip_space(r);
            if (r->pos >= r->len || r->s[r->pos] != ':') {
                free(key);
                return fail(r, "':' expected");
            }
            r->pos++;
        }
        if (v->count == cap) {
            size_t ncap = cap ? 2 * cap : 4;
            json_value *items = realloc(v->items, ncap * sizeof *items);
            char **keys = v->type == JSON_OBJECT ? realloc(v->keys, ncap * sizeof *keys) : NULL;
            if (items)
                v->items = items;
            if (keys)
                v->keys = keys;
            if (!items || (v->type == JSON_OBJECT && !keys)) {
                free(key);
                return fail(r, "out of memory");
            }
            cap = ncap;
        }
        memset(&v->items[v->count], 0, sizeof v->items[0]);
        if (v->type == JSON_OBJECT)
            v->keys[v->count] = key;
        v->count++;
        if (read_value(r, &v->items[v->count - 1], depth + 1) != 0)
            return -1;
        skip_space(r);
        if (r->pos < r->len && r->s[r->pos] == ',') {
            r->pos++;
            continue;
        }
        if (r->pos < r->len && r->s[r->pos] == close) {
            r->pos++;
            return v->type == JSON_OBJECT ? check_unique_keys(r, v) : 0;
        }
        return fail(r, "',' or '%c' expected", close);
    }
}

static int read_value(reader *r, json_value *v, int depth)
{
    static const struct {
        const char *word;
        json_type type;
    } words[] = {{"null", JSON_NULL}, {"false", JSON_FALSE}, {"true", JSON_TRUE}};
    if (depth > JSON_MAX_DEPTH)
        return fail(r, "nested deeper than %d levels", JSON_MAX_DEPTH);
    skip_space(r);
    if (r->pos >= r->len)
        return fail(r, "value expected");
    char c = r->s[r->pos];
    if (c == '"') {
        v->type = JSON_STRING;
        return read_string(r, &v->text);
    }
    if (c == '-' || (c >= '0' && c <= '9')) {
        v->type = JSON_NUMBER;
        return read_number(r, &v->text);
    }
    if (c == '[' || c == '{') {
        v->type = c == '[' ? JSON_ARRAY : JSON_OBJECT;
        return read_items(r, v, depth, c == '[' ? ']' : '}');
    }
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++) {
        size_t n = strlen(words[i].word);
        if (r->len - r->pos >= n && memcmp(r->s + r->pos, words[i].word, n) == 0) {
            r->pos += n;
            v->type = words[i].type;
            return 0;
        }
    }
    return fail(r, "unexpected character '%c'", c);
}

static void free_inside(json_value *v)
{
    for (size_t i = 0; i < v->count && v->items; i++) {
        free_inside(&v->items[i]);
        if (v->keys)
            free(v->keys[i]);
    }
    free(v->items);
    free(v->keys);
    free(v->text);
}

json_value *json_parse(const char *text, size_t len, char *err, size_t err_len)
{
    reader r = {text, len, 0, err, err_len, 0};
    json_value *root = calloc(1, sizeof *root);
    if (!root) {
        fail(&r, "out of memory");
        return NULL;
    }
    if (read_value(&r, root, 0) == 0) {
        skip_space(&r);
        if (r.pos == r.len)
            return root;
        fail(&r, "text after the value");
    }
    json_free(root);
    return NULL;
}

void json_free(json_value *v)
{
    if (!v)
        return;
    free_inside(v);
    free(v);
}

const json_value *json_get(const json_value *obj, const char *key)
{
    if (!obj || obj->type != JSON_OBJECT)
        return NULL;
    for (size_t i = 0; i < obj->count; i++)
        if (strcmp(obj->keys[i], key) == 0)
            return &obj->items[i];
    return NULL;
}
