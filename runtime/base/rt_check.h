/*
 * rt_check.h: two habits of the whole code base, as macros.
 *
 * RT_MUST_CHECK marks an internal call whose status must be looked at (gcc and clang warn
 * when a caller drops it; CI builds with -Werror).
 *
 * RT_INVARIANT(cond) states an internal invariant (a contract of an internal prototype, a
 * bound a loop relies on). It is checked in Debug and sanitizer builds (HPR_CHECK_INVARIANTS,
 * set by CMake for both) and costs nothing in Release. A broken invariant is a bug of
 * hyprove, never of its input: it prints where and aborts, so that the tests stop at it.
 */
#ifndef RT_CHECK_H
#define RT_CHECK_H

#if defined(__GNUC__)
#define RT_MUST_CHECK __attribute__((warn_unused_result))
#else
#define RT_MUST_CHECK
#endif

#if defined(HPR_CHECK_INVARIANTS) && HPR_CHECK_INVARIANTS
void rt_invariant_failed(const char *cond, const char *file, int line);
#define RT_INVARIANT(cond) ((cond) ? (void)0 : rt_invariant_failed(#cond, __FILE__, __LINE__))
#else
#define RT_INVARIANT(cond) ((void)0)
#endif

#endif
