/* The executor's pool (util/executor.h): persistent workers reused across jobs, every item of a
 * parallel-for run exactly once, helpers withdrawn when the pool is busy (the caller still
 * progresses), submitted tasks run and are waited for, single-threaded mode creates nothing. */
#include <pthread.h>
#include <stdatomic.h>
#include <unistd.h>

#include "harness.h"
#include "util/executor.h"

static atomic_int hits[1000];

static void count_item(void *ctx, size_t i) {
  (void)ctx;
  atomic_fetch_add(&hits[i], 1);
}

/* A task that blocks until released: occupies a worker. */
static pthread_mutex_t gate_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t gate_cv = PTHREAD_COND_INITIALIZER;
static int gate_open, blocked;

static void blocker(void *arg) {
  (void)arg;
  pthread_mutex_lock(&gate_mu);
  blocked++;
  pthread_cond_broadcast(&gate_cv);
  while (!gate_open) pthread_cond_wait(&gate_cv, &gate_mu);
  pthread_mutex_unlock(&gate_mu);
}

static void test_single_threaded_creates_nothing(void) {
  pm_executor one = {1};
  for (size_t i = 0; i < 1000; i++) atomic_store(&hits[i], 0);
  pm_executor_for(&one, 1000, 8, count_item, NULL);
  int all_once = 1;
  for (size_t i = 0; i < 1000; i++) all_once &= atomic_load(&hits[i]) == 1;
  CHECK(all_once);
  pm_task *t = (pm_task *)1;
  CHECK_EQ_INT(pm_executor_submit(&one, blocker, NULL, &t), -1);
  CHECK(t == NULL);
  CHECK_EQ_INT(pm_executor_threads_created(), 0); /* runs first: nothing else made a thread */
  CHECK_EQ_INT(pm_executor_pool_size(), 0);
}

static void test_for_reuses_the_pool(void) {
  pm_executor any = {0};
  for (size_t i = 0; i < 1000; i++) atomic_store(&hits[i], 0);
  pm_executor_for(&any, 1000, 4, count_item, NULL);
  uint64_t first = pm_executor_threads_created();
  CHECK(first >= 1 && first <= 3); /* helpers only: the caller is the 4th */
  for (int round = 0; round < 20; round++) pm_executor_for(&any, 1000, 4, count_item, NULL);
  int all = 1;
  for (size_t i = 0; i < 1000; i++) all &= atomic_load(&hits[i]) == 21;
  CHECK(all);
  /* the same workers served every round: never more than one round's demand (3 helpers; fewer
   * when a helper finished before the next was submitted and was reused) */
  CHECK(pm_executor_threads_created() <= 3);
  CHECK_EQ_INT(pm_executor_pool_size(), (int)pm_executor_threads_created());
}

static void test_submit_and_busy_pool(void) {
  pm_executor any = {0};
  int pool = pm_executor_pool_size();
  /* occupy every existing worker and two more: the pool grows for queued work */
  pm_task *t[64];
  int n = pool + 2;
  for (int i = 0; i < n; i++) CHECK_EQ_INT(pm_executor_submit(&any, blocker, NULL, &t[i]), 0);
  pthread_mutex_lock(&gate_mu);
  while (blocked < n) pthread_cond_wait(&gate_cv, &gate_mu); /* each started: none waits in a queue */
  pthread_mutex_unlock(&gate_mu);
  CHECK_EQ_INT(pm_executor_pool_size(), n);
  /* a parallel-for while all are busy: its helpers get new workers or are withdrawn; it completes */
  for (size_t i = 0; i < 1000; i++) atomic_store(&hits[i], 0);
  pm_executor_for(&any, 1000, 3, count_item, NULL);
  int all = 1;
  for (size_t i = 0; i < 1000; i++) all &= atomic_load(&hits[i]) == 1;
  CHECK(all);
  pthread_mutex_lock(&gate_mu);
  gate_open = 1;
  pthread_cond_broadcast(&gate_cv);
  pthread_mutex_unlock(&gate_mu);
  for (int i = 0; i < n; i++) pm_task_wait(t[i]);
  /* the workers stay: the next job creates none */
  uint64_t made = pm_executor_threads_created();
  for (size_t i = 0; i < 1000; i++) atomic_store(&hits[i], 0);
  pm_executor_for(&any, 1000, 4, count_item, NULL);
  CHECK_EQ_INT(pm_executor_threads_created(), made);
}

int main(void) {
  RUN_TEST(test_single_threaded_creates_nothing);
  RUN_TEST(test_for_reuses_the_pool);
  RUN_TEST(test_submit_and_busy_pool);
  TEST_MAIN_END();
}
