/*
 * rt_pool.h: a fixed-size thread pool for parallel loops over task indices.
 *
 * rt_pool_run() hands tasks 0..ntasks-1 to the workers and the calling thread in increasing
 * order (each taken by whoever is free first) and returns when all are done. The worker index
 * passed to the task (0..size-1) lets tasks use per-worker scratch prepared beforehand.
 * Runs on one pool are serialised; tasks must not call rt_pool_run on their own pool.
 */
#ifndef RUNTIME_BASE_RT_POOL_H
#define RUNTIME_BASE_RT_POOL_H

#include <stddef.h>

typedef struct rt_pool rt_pool;
typedef void (*rt_task_fn)(void *arg, size_t task, unsigned worker);

/* threads >= 1 (the caller counts as one). Returns 0 on success, -1 if threads or memory fail. */
int rt_pool_create(rt_pool **out, unsigned threads);
void rt_pool_destroy(rt_pool *pool);
unsigned rt_pool_size(const rt_pool *pool);
void rt_pool_run(rt_pool *pool, size_t ntasks, rt_task_fn fn, void *arg);

/* Number of online processors (at least 1). */
unsigned rt_online_cpus(void);

/* Monotonic seconds. */
double rt_now_seconds(void);

#endif
