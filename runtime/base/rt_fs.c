/*
 * rt_fs.c: file-system helpers of the runtime.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt_fs.h"
#include "rt_mem.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

int rt_make_dirs(const char *dir)
{
    char buf[4096];
    size_t n = strlen(dir);
    if (n == 0 || n >= sizeof buf)
        return -1;
    memcpy(buf, dir, n + 1);
    for (size_t i = 1; i <= n; i++) {
        if (buf[i] != '/' && buf[i] != '\0')
            continue;
        char saved = buf[i];
        buf[i] = '\0';
        if (mkdir(buf, 0755) != 0 && errno != EEXIST)
            return -1;
        buf[i] = saved;
    }
    return 0;
}

int rt_read_file(const char *path, unsigned char **data, size_t *len)
{
    struct stat sb;
    unsigned char *buf = NULL;
    int err = 0;
    FILE *fp = fopen(path, "rb");
    *data = NULL;
    *len = 0;
    if (!fp)
        return errno;
    if (fstat(fileno(fp), &sb) != 0 || !S_ISREG(sb.st_mode)) {
        err = EISDIR;
        goto out;
    }
    buf = rt_alloc_large((size_t)sb.st_size + 1); /* huge pages for a large file: fewer faults */
    if (!buf) {
        err = ENOMEM;
        goto out;
    }
    if (fread(buf, 1, (size_t)sb.st_size, fp) != (size_t)sb.st_size) {
        err = ferror(fp) ? EIO : ENODATA;
        goto out;
    }
    buf[sb.st_size] = 0;
    *data = buf;
    *len = (size_t)sb.st_size;
    buf = NULL;
out:
    free(buf);
    fclose(fp);
    return err;
}
