/*
 * profile.c: the calibration profile (see profile.h).
 */
#define _POSIX_C_SOURCE 200809L
#include "profile.h"
#include "runtime/base/rt_fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

static void profile_path(char *buf, size_t len, const char *dir)
{
    snprintf(buf, len, "%s/profile.json", dir);
}

/* One record line; 0 when it is not one. */
static int parse_line(const char *line, profile_record *r)
{
    const char *k = strstr(line, "\"key\": \""), *c = strstr(line, "\"curve\": \"");
    const char *l = strstr(line, "\"log_n\": "), *s = strstr(line, "\"points_per_s\": ");
    const char *kend, *cend;
    if (!k || !c || !l || !s)
        return 0;
    k += 8;
    c += 10;
    kend = strchr(k, '"');
    cend = strchr(c, '"');
    if (!kend || !cend || (size_t)(kend - k) >= sizeof r->key || (size_t)(cend - c) >= sizeof r->curve)
        return 0;
    memcpy(r->key, k, (size_t)(kend - k));
    r->key[kend - k] = '\0';
    memcpy(r->curve, c, (size_t)(cend - c));
    r->curve[cend - c] = '\0';
    if (sscanf(l + 9, "%u", &r->log_n) != 1 || sscanf(s + 16, "%lf", &r->points_per_s) != 1)
        return 0;
    return r->log_n <= 40 && r->points_per_s > 0;
}

void profile_load(profile *p, const char *dir)
{
    char path[4200], line[1024];
    FILE *f;
    p->count = 0;
    profile_path(path, sizeof path, dir);
    f = fopen(path, "r");
    if (!f)
        return;
    while (p->count < PROFILE_MAX_RECORDS && fgets(line, sizeof line, f))
        if (parse_line(line, &p->rec[p->count]))
            p->count++;
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
    fprintf(f, "[\n");
    for (size_t i = 0; i < p->count; i++)
        fprintf(f, "  {\"key\": \"%s\", \"curve\": \"%s\", \"log_n\": %u, \"points_per_s\": %.1f}%s\n", p->rec[i].key,
                p->rec[i].curve, p->rec[i].log_n, p->rec[i].points_per_s, i + 1 < p->count ? "," : "");
    fprintf(f, "]\n");
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
