/*
 * rt_fs.h: file-system helpers of the runtime.
 */
#ifndef HPR_RT_FS_H
#define HPR_RT_FS_H

/* mkdir -p: creates dir and its missing parents (mode 0755). 0, or -1. */
int rt_make_dirs(const char *dir);

#endif
