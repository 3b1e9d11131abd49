/* The executor (executor.h): one process-wide pool of persistent workers. */
#include "util/executor.h"

#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>

enum { T_QUEUED, T_RUNNING, T_DONE };

struct pm_task {
  void (*fn)(void *);
  void *arg;
  struct pm_task *next;
  int state; /* guarded by mu */
};

static pthread_once_t pool_once = PTHREAD_ONCE_INIT;
static pthread_mutex_t mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t work_cv = PTHREAD_COND_INITIALIZER; /* a task was queued */
static pthread_cond_t done_cv = PTHREAD_COND_INITIALIZER; /* a task finished */
static pm_task *head, *tail;                                /* FIFO of queued tasks */
static int n_workers, n_idle, n_pending;                    /* n_pending = tasks in the queue */
static atomic_uint_fast64_t threads_created, tasks_run;

int pm_executor_width(const pm_executor *e, int wanted) {
  if (wanted < 1) wanted = 1;
  if (e && e->threads > 0 && wanted > e->threads) wanted = e->threads;
  return wanted;
}

uint64_t pm_executor_threads_created(void) { return atomic_load(&threads_created); }
uint64_t pm_executor_tasks_run(void) { return atomic_load(&tasks_run); }

int pm_executor_pool_size(void) {
  pthread_mutex_lock(&mu);
  int n = n_workers;
  pthread_mutex_unlock(&mu);
  return n;
}

/* fork(): the child has none of the parent's workers; it starts with an empty pool. */
static void atfork_prepare(void) { pthread_mutex_lock(&mu); }
static void atfork_parent(void) { pthread_mutex_unlock(&mu); }
static void atfork_child(void) {
  head = tail = NULL; /* the parent's queued tasks are the parent's */
  n_workers = n_idle = n_pending = 0;
  pthread_cond_init(&work_cv, NULL);
  pthread_cond_init(&done_cv, NULL);
  pthread_mutex_unlock(&mu);
}

static void pool_init(void) { pthread_atfork(atfork_prepare, atfork_parent, atfork_child); }

static void *worker(void *unused) {
  (void)unused;
  pthread_mutex_lock(&mu);
  for (;;) {
    while (!head) pthread_cond_wait(&work_cv, &mu);
    pm_task *t = head;
    head = t->next;
    if (!head) tail = NULL;
    n_pending--;
    n_idle--;
    t->state = T_RUNNING;
    pthread_mutex_unlock(&mu);
    t->fn(t->arg);
    atomic_fetch_add(&tasks_run, 1);
    pthread_mutex_lock(&mu);
    t->state = T_DONE; /* the waiter may free t from here on */
    n_idle++;
    pthread_cond_broadcast(&done_cv);
  }
  return NULL;
}

int pm_executor_submit(const pm_executor *e, void (*fn)(void *arg), void *arg, pm_task **out) {
  *out = NULL;
  if (e && e->threads == 1) return -1; /* single-threaded mode: the pool is never touched */
  pm_task *t = malloc(sizeof *t);
  if (!t) return -1;
  t->fn = fn;
  t->arg = arg;
  t->next = NULL;
  t->state = T_QUEUED;
  pthread_once(&pool_once, pool_init);
  pthread_mutex_lock(&mu);
  if (n_idle <= n_pending) { /* no idle worker left for this task: add one */
    pthread_t th;
    pthread_attr_t attr;
    int ok = n_workers < PM_EXECUTOR_MAX_THREADS && pthread_attr_init(&attr) == 0;
    if (ok) {
      pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
      ok = pthread_create(&th, &attr, worker, NULL) == 0;
      pthread_attr_destroy(&attr);
    }
    if (!ok) {
      pthread_mutex_unlock(&mu);
      free(t);
      return -1;
    }
    n_workers++;
    n_idle++;
    atomic_fetch_add(&threads_created, 1);
  }
  if (tail) tail->next = t;
  else head = t;
  tail = t;
  n_pending++;
  pthread_cond_signal(&work_cv);
  pthread_mutex_unlock(&mu);
  *out = t;
  return 0;
}

void pm_task_wait(pm_task *t) {
  if (!t) return;
  pthread_mutex_lock(&mu);
  while (t->state != T_DONE) pthread_cond_wait(&done_cv, &mu);
  pthread_mutex_unlock(&mu);
  free(t);
}

/* Takes t out of the queue when no worker has started it yet, else waits for it; frees it. */
static void task_withdraw_or_wait(pm_task *t) {
  pthread_mutex_lock(&mu);
  if (t->state == T_QUEUED) {
    pm_task *prev = NULL;
    for (pm_task *q = head; q; prev = q, q = q->next)
      if (q == t) {
        if (prev) prev->next = t->next;
        else head = t->next;
        if (tail == t) tail = prev;
        n_pending--;
        break;
      }
    pthread_mutex_unlock(&mu);
    free(t);
    return;
  }
  while (t->state != T_DONE) pthread_cond_wait(&done_cv, &mu);
  pthread_mutex_unlock(&mu);
  free(t);
}

typedef struct for_job {
  size_t n;
  atomic_size_t next;
  void (*fn)(void *, size_t);
  void *ctx;
} for_job;

static void for_run(void *arg) {
  for_job *j = arg;
  for (size_t i; (i = atomic_fetch_add(&j->next, 1)) < j->n;) j->fn(j->ctx, i);
}

#define MAX_FOR_THREADS 64

void pm_executor_for(const pm_executor *e, size_t n, int par, void (*fn)(void *ctx, size_t i), void *ctx) {
  int w = pm_executor_width(e, par);
  if ((size_t)w > n) w = (int)n;
  if (w > MAX_FOR_THREADS) w = MAX_FOR_THREADS;
  for_job j = {n, 0, fn, ctx};
  pm_task *helpers[MAX_FOR_THREADS];
  int started = 0;
  for (int i = 1; i < w; i++)
    if (pm_executor_submit(e, for_run, &j, &helpers[started]) == 0) started++;
  for_run(&j);
  for (int i = 0; i < started; i++) task_withdraw_or_wait(helpers[i]);
}
