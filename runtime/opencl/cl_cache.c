/*
 * cl_cache.c: the OpenCL program binary cache (see cl_cache.h for the format).
 */
#define _POSIX_C_SOURCE 200809L
#include "cl_cache.h"
#include "runtime/base/rt_fs.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define CACHE_MAGIC "HPRCLB01"
#define CACHE_HEADER 32
#define CACHE_MAX_PAYLOAD ((size_t)1 << 30)

uint64_t cl_cache_hash(uint64_t h, const void *data, size_t len)
{
    const unsigned char *p = data;
    for (size_t i = 0; i < len; i++) {
        h ^= p[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

void cl_cache_path(char *buf, size_t len, const char *dir, uint64_t key)
{
    snprintf(buf, len, "%s/cl-%016llx.bin", dir, (unsigned long long)key);
}

static void put_u64(unsigned char *p, uint64_t v)
{
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(v >> (8 * i));
}

static uint64_t get_u64(const unsigned char *p)
{
    uint64_t v = 0;
    for (int i = 0; i < 8; i++)
        v |= (uint64_t)p[i] << (8 * i);
    return v;
}

cl_cache_result cl_cache_load(const char *dir, uint64_t key, unsigned char **payload, size_t *len)
{
    char path[4096];
    unsigned char header[CACHE_HEADER];
    unsigned char *data = NULL;
    cl_cache_result res = CL_CACHE_CORRUPT;
    uint64_t size;
    long end;
    FILE *f;
    *payload = NULL;
    *len = 0;
    cl_cache_path(path, sizeof path, dir, key);
    f = rt_fopen_regular(path); /* a FIFO or device put there must not hang the build */
    if (!f)
        return CL_CACHE_MISS;
    if (fread(header, 1, CACHE_HEADER, f) != CACHE_HEADER || memcmp(header, CACHE_MAGIC, 8) != 0 ||
        get_u64(header + 8) != key)
        goto out;
    size = get_u64(header + 16);
    if (size == 0 || size > CACHE_MAX_PAYLOAD || fseek(f, 0, SEEK_END) != 0 || (end = ftell(f)) < 0 ||
        (uint64_t)end != CACHE_HEADER + size || fseek(f, CACHE_HEADER, SEEK_SET) != 0)
        goto out;
    data = malloc((size_t)size);
    if (!data || fread(data, 1, (size_t)size, f) != size)
        goto out;
    if (cl_cache_hash(CL_CACHE_HASH_INIT, data, (size_t)size) != get_u64(header + 24))
        goto out;
    *payload = data;
    *len = (size_t)size;
    data = NULL;
    res = CL_CACHE_HIT;
out:
    free(data);
    fclose(f);
    return res;
}

int cl_cache_store(const char *dir, uint64_t key, const unsigned char *payload, size_t len)
{
    char path[4096], tmp[4200];
    unsigned char header[CACHE_HEADER];
    int rc = -1;
    FILE *f = NULL;
    if (rt_make_dirs(dir) != 0)
        return -1;
    cl_cache_path(path, sizeof path, dir, key);
    snprintf(tmp, sizeof tmp, "%s.%ld.tmp", path, (long)getpid());
    memcpy(header, CACHE_MAGIC, 8);
    put_u64(header + 8, key);
    put_u64(header + 16, len);
    put_u64(header + 24, cl_cache_hash(CL_CACHE_HASH_INIT, payload, len));
    f = fopen(tmp, "wb");
    if (!f)
        return -1;
    if (fwrite(header, 1, CACHE_HEADER, f) != CACHE_HEADER || fwrite(payload, 1, len, f) != len)
        goto out;
    if (fclose(f) != 0) {
        f = NULL;
        goto out;
    }
    f = NULL;
    if (rename(tmp, path) != 0)
        goto out;
    rc = 0;
out:
    if (f)
        fclose(f);
    if (rc != 0)
        remove(tmp);
    return rc;
}
