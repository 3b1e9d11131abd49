/* The executor (executor.h). */
#include "util/executor.h"

#include <stdatomic.h>

static atomic_uint_fast64_t threads_created;

int pm_executor_width(const pm_executor *e, int wanted) {
  if (wanted < 1) wanted = 1;
  if (e && e->threads > 0 && wanted > e->threads) wanted = e->threads;
  return wanted;
}

int pm_executor_spawn(const pm_executor *e, pthread_t *th, void *(*fn)(void *), void *arg) {
  if (e && e->threads == 1) return -1;
  if (pthread_create(th, NULL, fn, arg) != 0) return -1;
  atomic_fetch_add(&threads_created, 1);
  return 0;
}

uint64_t pm_executor_threads_created(void) { return atomic_load(&threads_created); }

typedef struct for_job {
  size_t n;
  atomic_size_t next;
  void (*fn)(void *, size_t);
  void *ctx;
} for_job;

static void *for_worker(void *arg) {
  for_job *j = arg;
  for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) j->fn(j->ctx, i);
  return NULL;
}

#define MAX_FOR_THREADS 64

void pm_executor_for(const pm_executor *e, size_t n, int par, void (*fn)(void *ctx, size_t i), void *ctx) {
  int w = pm_executor_width(e, par);
  if ((size_t)w > n) w = (int)n;
  if (w > MAX_FOR_THREADS) w = MAX_FOR_THREADS;
  for_job j = {n, 0, fn, ctx};
  pthread_t th[MAX_FOR_THREADS];
  int started = 0;
  for (int i = 1; i < w; i++)
    if (pm_executor_spawn(e, &th[started], for_worker, &j) == 0) started++;
  for_worker(&j);
  for (int i = 0; i < started; i++) pthread_join(th[i], NULL);
}
