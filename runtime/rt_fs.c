/*
 * rt_fs.c: file-system helpers of the runtime.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt_fs.h"

#include <errno.h>
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
