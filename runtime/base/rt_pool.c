/*
 * rt_pool.c: persistent worker threads woken per run by a generation counter; tasks are taken
 * from one atomic counter, so scheduling is dynamic and the slowest task bounds the tail.
 */
#define _POSIX_C_SOURCE 200809L
#include "rt_pool.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

struct rt_pool {
    unsigned size;
    pthread_t *threads;
    struct worker_start *starts;
    unsigned started;
    pthread_mutex_t run_lock; /* serialises rt_pool_run */
    pthread_mutex_t lock;
    pthread_cond_t wake, done;
    unsigned long generation;
    int stopping;
    unsigned busy_workers;
    rt_task_fn fn;
    void *arg;
    size_t ntasks;
    atomic_size_t next;
};

typedef struct worker_start {
    rt_pool *pool;
    unsigned index;
} worker_start;

static void drain_tasks(rt_pool *pool, unsigned worker)
{
    for (;;) {
        size_t t = atomic_fetch_add(&pool->next, 1);
        if (t >= pool->ntasks)
            return;
        pool->fn(pool->arg, t, worker);
    }
}

static void *worker_main(void *p)
{
    worker_start *ws = p;
    rt_pool *pool = ws->pool;
    unsigned long seen = 0;
    pthread_mutex_lock(&pool->lock);
    for (;;) {
        while (!pool->stopping && pool->generation == seen)
            pthread_cond_wait(&pool->wake, &pool->lock);
        if (pool->stopping)
            break;
        seen = pool->generation;
        pthread_mutex_unlock(&pool->lock);
        drain_tasks(pool, ws->index);
        pthread_mutex_lock(&pool->lock);
        if (--pool->busy_workers == 0)
            pthread_cond_signal(&pool->done);
    }
    pthread_mutex_unlock(&pool->lock);
    return NULL;
}

int rt_pool_create(rt_pool **out, unsigned threads)
{
    rt_pool *pool = NULL;
    *out = NULL;
    if (threads == 0)
        return -1;
    pool = calloc(1, sizeof *pool);
    if (!pool)
        return -1;
    pool->size = threads;
    pthread_mutex_init(&pool->run_lock, NULL);
    pthread_mutex_init(&pool->lock, NULL);
    pthread_cond_init(&pool->wake, NULL);
    pthread_cond_init(&pool->done, NULL);
    pool->threads = calloc(threads, sizeof(pthread_t));
    pool->starts = calloc(threads, sizeof(worker_start));
    if (!pool->threads || !pool->starts)
        goto fail;
    for (unsigned i = 1; i < threads; i++) {
        worker_start *ws = &pool->starts[i];
        ws->pool = pool;
        ws->index = i;
        if (pthread_create(&pool->threads[i], NULL, worker_main, ws) != 0)
            goto fail;
        pool->started++;
    }
    *out = pool;
    return 0;
fail:
    rt_pool_destroy(pool);
    return -1;
}

void rt_pool_destroy(rt_pool *pool)
{
    if (!pool)
        return;
    pthread_mutex_lock(&pool->lock);
    pool->stopping = 1;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);
    for (unsigned i = 1; i <= pool->started; i++)
        pthread_join(pool->threads[i], NULL);
    pthread_cond_destroy(&pool->wake);
    pthread_cond_destroy(&pool->done);
    pthread_mutex_destroy(&pool->lock);
    pthread_mutex_destroy(&pool->run_lock);
    free(pool->threads);
    free(pool->starts);
    free(pool);
}

unsigned rt_pool_size(const rt_pool *pool)
{
    return pool->size;
}

void rt_pool_run(rt_pool *pool, size_t ntasks, rt_task_fn fn, void *arg)
{
    if (ntasks == 0)
        return;
    pthread_mutex_lock(&pool->run_lock);
    pthread_mutex_lock(&pool->lock);
    pool->fn = fn;
    pool->arg = arg;
    pool->ntasks = ntasks;
    atomic_store(&pool->next, 0);
    pool->busy_workers = pool->size - 1;
    pool->generation++;
    pthread_cond_broadcast(&pool->wake);
    pthread_mutex_unlock(&pool->lock);

    drain_tasks(pool, 0);

    pthread_mutex_lock(&pool->lock);
    while (pool->busy_workers > 0)
        pthread_cond_wait(&pool->done, &pool->lock);
    pthread_mutex_unlock(&pool->lock);
    pthread_mutex_unlock(&pool->run_lock);
}

unsigned rt_online_cpus(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n > 0 ? (unsigned)n : 1u;
}

double rt_now_seconds(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}
