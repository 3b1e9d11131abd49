/*
 * The executor: the one place the library starts threads, serving planning
 * (manifest reads, pm_executor_for) and reading (split prefetch workers,
 * pm_executor_submit).
 *
 * Threads belong to one process-wide pool, created lazily by the first job
 * that asks for a helper and kept for the life of the process: idle workers
 * wait for the next job, so repeated plans and reads reuse the same threads
 * instead of creating new ones. The pool grows when a job arrives and no
 * worker is idle (a queued job always has a worker to run it), up to
 * PM_EXECUTOR_MAX_THREADS; beyond that, submissions are refused and callers
 * work on their own thread. After fork() the child starts with an empty pool.
 *
 * `threads` (table, dynamic or catalog option) caps how many threads one
 * operation uses: 0 = no cap beyond each operation's own parallelism
 * (scan.manifest.parallelism, read.parallelism); 1 = single-threaded mode for
 * embedders that must not spawn threads (SQLite, Python): every job runs on
 * the caller's thread and no thread is ever created (the pool is not even
 * initialised).
 *
 * A pm_executor is a small value (the cap; no allocation); copies are fine.
 */
#ifndef PM_UTIL_EXECUTOR_H
#define PM_UTIL_EXECUTOR_H

#include <stddef.h>
#include <stdint.h>

#define PM_EXECUTOR_MAX_THREADS 256

typedef struct pm_executor {
  int threads; /* 0: no cap; 1: single-threaded; N: at most N threads per operation (caller included) */
} pm_executor;

/* How many threads an operation wanting `wanted` (>= 1) may use: min(wanted, threads), at least 1. */
int pm_executor_width(const pm_executor *e, int wanted);

/* Runs fn(ctx, i) for every i in [0, n) on up to pm_executor_width(e, par) threads, the caller's
 * included (so it always progresses, even when every pool worker is busy: helpers that have not
 * started when the caller runs out of items are withdrawn); returns when all have run. Items are
 * claimed in order. */
void pm_executor_for(const pm_executor *e, size_t n, int par, void (*fn)(void *ctx, size_t i), void *ctx);

/* A job handed to the pool. */
typedef struct pm_task pm_task;

/* Runs fn(arg) on a pool worker. Returns 0 with *out set (the caller must pm_task_wait it), or -1
 * in single-threaded mode, when the pool is full or a thread cannot be created or on no memory
 * (nothing was started: the caller works inline or with fewer workers). */
int pm_executor_submit(const pm_executor *e, void (*fn)(void *arg), void *arg, pm_task **out);

/* Waits until t has run and frees it. */
void pm_task_wait(pm_task *t);

/* Threads the executor has created in this process (for tests of the pool and of the
 * single-threaded mode), and the pool's current size. */
uint64_t pm_executor_threads_created(void);
int pm_executor_pool_size(void);
/* Tasks pool workers have run in this process (a job that used other threads moves it). */
uint64_t pm_executor_tasks_run(void);

#endif
