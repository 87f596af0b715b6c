/*
 * rt_fs.h: file-system helpers of the runtime.
 */
#ifndef RUNTIME_BASE_RT_FS_H
#define RUNTIME_BASE_RT_FS_H

#include "rt_check.h"

#include <stddef.h>

/* mkdir -p: creates dir and its missing parents (mode 0755). 0, or -1. */
RT_MUST_CHECK int rt_make_dirs(const char *dir);

/* The whole regular file path into a malloc'd buffer (*data, *len; one extra 0 byte after
 * the end). 0, or an errno value (EISDIR for anything but a regular file). */
RT_MUST_CHECK int rt_read_file(const char *path, unsigned char **data, size_t *len);

#endif
