/*
 * The executor: the one place the library starts threads, for planning
 * (manifest reads, pm_executor_for) and reading (split prefetch workers,
 * pm_executor_spawn).
 *
 * `threads` (table, dynamic or catalog option) caps how many threads one
 * operation uses: 0 = no cap beyond each operation's own parallelism
 * (scan.manifest.parallelism, read.parallelism); 1 = single-threaded mode for
 * embedders that must not spawn threads (SQLite, Python): every job runs on
 * the caller's thread and no thread is ever created.
 *
 * A pm_executor is a small value (no allocation); copies are fine.
 */
#ifndef PM_UTIL_EXECUTOR_H
#define PM_UTIL_EXECUTOR_H

#include <pthread.h>
#include <stddef.h>
#include <stdint.h>

typedef struct pm_executor {
  int threads; /* 0: no cap; 1: single-threaded; N: at most N threads per operation (caller included) */
} pm_executor;

/* How many threads an operation wanting `wanted` (>= 1) may use: min(wanted, threads), at least 1. */
int pm_executor_width(const pm_executor *e, int wanted);

/* Runs fn(ctx, i) for every i in [0, n) on up to pm_executor_width(e, par) threads, the caller's
 * included (so it always progresses); returns when all have run. Items are claimed in order. */
void pm_executor_for(const pm_executor *e, size_t n, int par, void (*fn)(void *ctx, size_t i), void *ctx);

/* Starts a worker thread (joined by the caller with pthread_join). Returns 0, or -1 in
 * single-threaded mode or when the thread cannot be created (the caller then works inline). */
int pm_executor_spawn(const pm_executor *e, pthread_t *th, void *(*fn)(void *), void *arg);

/* Threads the executor has created in this process (for tests of the single-threaded mode). */
uint64_t pm_executor_threads_created(void);

#endif
