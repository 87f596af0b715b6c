/*
 * profile.c: the calibration profile (see profile.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "profile.h"
#include "runtime/base/rt_fs.h"

#include <stdio.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void profile_path(char *buf, size_t len, const char *dir)
{
    snprintf(buf, len, "%s/" PROFILE_FILE, dir);
}

static const char *skip_space(const char *s)
{
    while (*s == ' ' || *s == '\t' || *s == '\r' || *s == '\n')
        s++;
    return s;
}

/* A JSON string at s (after its opening quote) into out (len bytes): the position after the
 * closing quote, or NULL. Escapes are decoded; \u only below 0x80 (the profile is ASCII). */
static const char *parse_string(const char *s, char *out, size_t len, const char **why)
{
    size_t n = 0;
    for (; *s && *s != '"'; s++) {
        char c = *s;
        if ((unsigned char)c < 0x20)
            return *why = "a control character in a string", NULL;
        if (c == '\\') {
            static const char from[] = "\"\\/bfnrt", to[] = "\"\\/\b\f\n\r\t";
            const char *e = strchr(from, *++s);
            unsigned v;
            if (*s == 'u' && sscanf(s + 1, "%4x", &v) == 1 && v < 0x80 && isxdigit((unsigned char)s[4])) {
                c = (char)v;
                s += 4;
            } else if (*s && e) {
                c = to[e - from];
            } else {
                return *why = "a bad escape in a string", NULL;
            }
        }
        if (n + 1 >= len)
            return *why = "a string too long", NULL;
        out[n++] = c;
    }
    if (*s != '"')
        return *why = "an unterminated string", NULL;
    out[n] = '\0';
    return s + 1;
}

/* A JSON number: the position after it, or NULL. */
static const char *parse_number(const char *s, double *v, const char **why)
{
    char *end;
    if (*s != '-' && !isdigit((unsigned char)*s))
        return *why = "a value that is neither a string nor a number", NULL;
    *v = strtod(s, &end);
    if (end == s || isalpha((unsigned char)*end))
        return *why = "a malformed number", NULL;
    return end;
}

/* Which of the four fields a key names (-1: another key, ignored). */
static int field_index(const char *key)
{
    static const char *const names[4] = {"key", "curve", "log_n", "points_per_s"};
    for (int i = 0; i < 4; i++)
        if (strcmp(key, names[i]) == 0)
            return i;
    return -1;
}

/* One member "name": value of the record's object; the position after it, or NULL. */
static const char *parse_member(const char *s, profile_record *r, unsigned *seen, const char **why)
{
    char name[32], text[PROFILE_KEY_LEN];
    double v = 0;
    int is_string;
    if (*s != '"' || !(s = parse_string(s + 1, name, sizeof name, why)))
        return *why = *why ? *why : "expected a quoted name", NULL;
    s = skip_space(s);
    if (*s++ != ':')
        return *why = "expected ':' after a name", NULL;
    s = skip_space(s);
    is_string = *s == '"';
    s = is_string ? parse_string(s + 1, text, sizeof text, why) : parse_number(s, &v, why);
    if (!s)
        return NULL;
    int f = field_index(name);
    if (f < 0)
        return s;
    if (*seen & (1u << f))
        return *why = "a name given twice", NULL;
    *seen |= 1u << f;
    if (is_string != (f < 2))
        return *why = f < 2 ? "key and curve must be strings" : "log_n and points_per_s must be numbers", NULL;
    if (f == 0)
        memcpy(r->key, text, sizeof r->key);
    else if (f == 1 && strlen(text) < sizeof r->curve)
        memcpy(r->curve, text, strlen(text) + 1);
    else if (f == 1)
        return *why = "curve too long", NULL;
    else if (f == 2 && (v < 0 || v > 40 || v != (double)(unsigned)v))
        return *why = "log_n is not an integer in 0..40", NULL;
    else if (f == 2)
        r->log_n = (unsigned)v;
    else if (!(v > 0 && v < 1e30))
        return *why = "points_per_s is not a positive number", NULL;
    else
        r->points_per_s = v;
    return s;
}

/* One line: 1 a record, 0 blank, -1 malformed (*why says how). */
static int parse_line(const char *line, profile_record *r, const char **why)
{
    unsigned seen = 0;
    const char *s = skip_space(line);
    *why = NULL;
    if (!*s)
        return 0;
    if (*s++ != '{')
        return *why = "not a JSON object", -1;
    s = skip_space(s);
    while (*s != '}') {
        if (!(s = parse_member(s, r, &seen, why)))
            return -1;
        s = skip_space(s);
        if (*s == ',')
            s = skip_space(s + 1);
        else if (*s != '}')
            return *why = "expected ',' or '}'", -1;
    }
    if (*skip_space(s + 1))
        return *why = "text after the object", -1;
    if (seen != 15u)
        return *why = "key, curve, log_n and points_per_s are required", -1;
    return 1;
}

void profile_load(profile *p, const char *dir)
{
    char path[4200], line[2048];
    unsigned number = 0;
    FILE *f;
    p->count = 0;
    p->malformed = 0;
    p->first_error[0] = '\0';
    profile_path(path, sizeof path, dir);
    f = rt_fopen_regular(path); /* a FIFO or device put there must not hang the lookup */
    if (!f)
        return;
    while (p->count < PROFILE_MAX_RECORDS && fgets(line, sizeof line, f)) {
        const char *why = NULL;
        number++;
        char *end = strchr(line, '\n');
        if (end)
            *end = '\0';
        int got = end || feof(f) ? parse_line(line, &p->rec[p->count], &why) : -1;
        if (got > 0)
            p->count++;
        if (got < 0 && p->malformed++ == 0)
            snprintf(p->first_error, sizeof p->first_error, "%.3000s line %u: %s", path, number,
                     why ? why : "a line over 2047 bytes");
    }
    fclose(f);
}

void profile_set(profile *p, const char *key, const char *curve, unsigned log_n, double points_per_s)
{
    profile_record *r = NULL;
    for (size_t i = 0; i < p->count && !r; i++)
        if (strcmp(p->rec[i].key, key) == 0 && strcmp(p->rec[i].curve, curve) == 0 && p->rec[i].log_n == log_n)
            r = &p->rec[i];
    if (!r && p->count < PROFILE_MAX_RECORDS)
        r = &p->rec[p->count++];
    if (!r)
        return;
    snprintf(r->key, sizeof r->key, "%s", key);
    for (char *c = r->key; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
            *c = '_';
    snprintf(r->curve, sizeof r->curve, "%s", curve);
    r->log_n = log_n;
    r->points_per_s = points_per_s;
}

int profile_store(const profile *p, const char *dir)
{
    char path[4200], tmp[4300];
    FILE *f;
    int ok;
    if (rt_make_dirs(dir) != 0)
        return -1;
    profile_path(path, sizeof path, dir);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    f = fopen(tmp, "w");
    if (!f)
        return -1;
    for (size_t i = 0; i < p->count; i++)
        fprintf(f, "{\"key\": \"%s\", \"curve\": \"%s\", \"log_n\": %u, \"points_per_s\": %.1f}\n", p->rec[i].key,
                p->rec[i].curve, p->rec[i].log_n, p->rec[i].points_per_s);
    ok = !ferror(f);
    ok &= fclose(f) == 0;
    if (!ok || rename(tmp, path) != 0) {
        remove(tmp);
        return -1;
    }
    return 0;
}

double profile_speed(const profile *p, const char *key, const char *curve, unsigned log_n)
{
    double best = 0;
    unsigned best_dist = ~0u;
    for (size_t i = 0; i < p->count; i++) {
        const profile_record *r = &p->rec[i];
        if (strcmp(r->key, key) != 0 || strcmp(r->curve, curve) != 0)
            continue;
        unsigned dist = r->log_n > log_n ? r->log_n - log_n : log_n - r->log_n;
        if (dist < best_dist) {
            best_dist = dist;
            best = r->points_per_s;
        }
    }
    return best;
}
