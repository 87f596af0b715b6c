/*
 * rt_check.c: the report of a broken internal invariant (Debug and sanitizer builds only;
 * see rt_check.h). The one place where the library prints: a hyprove bug, not an input error.
 */
#include "rt_check.h"

#include <stdio.h>
#include <stdlib.h>

#if defined(HPR_CHECK_INVARIANTS) && HPR_CHECK_INVARIANTS
void rt_invariant_failed(const char *cond, const char *file, int line)
{
    fprintf(stderr, "hyprove: internal invariant broken at %s:%d: %s\n", file, line, cond);
    abort();
}
#else
/* ISO C forbids an empty translation unit. */
typedef int rt_check_unused;
#endif
