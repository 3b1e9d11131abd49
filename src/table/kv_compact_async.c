/* Background compaction of the primary-key writer (kv_write_internal.h,
 * "background compaction"; Java's MergeTreeCompactManager with the writer's
 * compaction executor): a bucket's picked unit is queued as a task; one
 * drainer job per writer on the library executor (util/executor.h) runs the
 * queued tasks one after another, as Java's single compaction thread of a
 * writer does, while the writer goes on buffering and flushing. The writer
 * collects a finished task when it flushes the bucket again, waits for it
 * when the bucket has more than num-sorted-run.stop-trigger sorted runs
 * (back-pressure), before a requested compaction, and at prepare as
 * Java's prepareCommit(waitCompaction) does. */
#include <stdlib.h>
#include <string.h>

#include "table/kv_write_internal.h"

static atomic_int test_wait_always;

void pm_kv_write_test_wait_compactions(int on) { atomic_store(&test_wait_always, on); }

int pm_kv_compact_async_init(pm_kv_write *w, pm_error *err) {
  w->wait_always = atomic_load(&test_wait_always);
  if (pthread_mutex_init(&w->cmu, NULL)) return pm_errorf(err, PAIMON_ERR_NOMEM, "compaction queue: no mutex");
  if (pthread_cond_init(&w->ccv, NULL)) {
    pthread_mutex_destroy(&w->cmu);
    return pm_errorf(err, PAIMON_ERR_NOMEM, "compaction queue: no condition variable");
  }
  w->has_cmu = 1;
  atomic_init(&w->task_failed, 0);
  return 0;
}

void pm_kv_compact_async_free(pm_kv_write *w) {
  if (!w->has_cmu) return;
  pm_task_wait(w->drain_job);
  w->drain_job = NULL;
  pthread_cond_destroy(&w->ccv);
  pthread_mutex_destroy(&w->cmu);
  w->has_cmu = 0;
}

/* The drainer: runs queued tasks until the queue is empty. */
static void drain(void *arg) {
  pm_kv_write *w = arg;
  pthread_mutex_lock(&w->cmu);
  for (;;) {
    pm_kv_ctask *ct = w->q_head;
    if (!ct) break;
    w->q_head = ct->next;
    if (!w->q_head) w->q_tail = NULL;
    ct->next = NULL;
    pthread_mutex_unlock(&w->cmu);
    pm_kv_ctask_run(ct);
    pthread_mutex_lock(&w->cmu);
    ct->done = 1;
    if (ct->rc) atomic_store(&w->task_failed, 1);
    pthread_cond_broadcast(&w->ccv);
  }
  w->draining = 0;
  pthread_cond_broadcast(&w->ccv);
  pthread_mutex_unlock(&w->cmu);
}

int pm_kv_compact_submit(pm_kv_write *w, pm_kvslot *s, pm_kv_ctask *ct, pm_error *err) {
  (void)err;
  s->task = ct;
  s->forced = 0;
  pthread_mutex_lock(&w->cmu);
  if (w->q_tail) w->q_tail->next = ct;
  else w->q_head = ct;
  w->q_tail = ct;
  int start = !w->draining;
  if (start) w->draining = 1;
  pthread_mutex_unlock(&w->cmu);
  if (!start) return 0;
  /* the previous drainer has stopped (draining was 0): release its handle */
  pm_task_wait(w->drain_job);
  w->drain_job = NULL;
  pm_executor ex = pm_table_executor(w->t);
  if (pm_executor_submit(&ex, drain, w, &w->drain_job) == 0) return 0;
  /* single-threaded executor (or a full pool): the task runs here, now; the
   * queue held only it (no drainer was running) */
  w->drain_job = NULL;
  drain(w);
  return 0;
}

int pm_kv_ctask_done(pm_kv_write *w, const pm_kv_ctask *ct) {
  pthread_mutex_lock(&w->cmu);
  int d = ct->done;
  pthread_mutex_unlock(&w->cmu);
  return d;
}

int pm_kv_compact_collect(pm_kv_write *w, pm_kvslot *s, int blocking, pm_error *err) {
  pm_kv_ctask *ct = s->task;
  if (!ct) return 0;
  pthread_mutex_lock(&w->cmu);
  if (!ct->done && !(blocking || w->wait_always)) {
    pthread_mutex_unlock(&w->cmu);
    return 0;
  }
  while (!ct->done) pthread_cond_wait(&w->ccv, &w->cmu);
  pthread_mutex_unlock(&w->cmu);
  s->task = NULL;
  s->forced = 0;
  return pm_kv_ctask_apply(w, ct, err);
}

int pm_kv_compact_sync_trigger(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  if (!s->has_levels) return 0;
  int wait = pm_kv_levels_sorted_runs(&s->levels) > (size_t)w->t->co.num_sorted_run_stop_trigger;
  PM_TRY(pm_kv_compact_collect(w, s, wait, err));
  return pm_kv_compact_trigger(w, s, 0, err);
}

void pm_kv_compact_cancel_all(pm_kv_write *w) {
  if (!w->has_cmu) return;
  pthread_mutex_lock(&w->cmu);
  /* queued tasks never start: they are done with nothing written */
  for (pm_kv_ctask *ct = w->q_head, *next; ct; ct = next) {
    next = ct->next;
    ct->next = NULL;
    ct->rc = PAIMON_ERR_IO;
    ct->done = 1;
  }
  w->q_head = w->q_tail = NULL;
  for (size_t i = 0; i < w->n_slots; i++)
    if (w->slots[i]->task) atomic_store(&w->slots[i]->task->cancel, 1);
  while (w->draining) pthread_cond_wait(&w->ccv, &w->cmu);
  pthread_mutex_unlock(&w->cmu);
  pm_task_wait(w->drain_job);
  w->drain_job = NULL;
  for (size_t i = 0; i < w->n_slots; i++) {
    pm_kvslot *s = w->slots[i];
    pm_kv_ctask_free(w, s->task); /* not applied: outputs deleted */
    s->task = NULL;
  }
}

void pm_kv_write_watch(pm_kv_write *w, pm_write_signal *s) {
  pm_write_signal_release(w->signal);
  w->signal = pm_write_signal_retain(s);
  w->signal_seen = pm_write_signal_value(s);
}

int pm_kv_write_check_signal(pm_kv_write *w, pm_error *err) {
  if (!w->signal) return 0;
  uint64_t v = pm_write_signal_value(w->signal);
  if (v == w->signal_seen) return 0;
  w->signal_seen = v;
  return pm_kv_write_refresh(w, err);
}

int pm_kv_write_refresh(pm_kv_write *w, pm_error *err) {
  if (!w->compaction || w->ignore_previous) return 0; /* no levels / nothing restored */
  pm_kv_compact_cancel_all(w); /* results on the old levels are discarded (outputs deleted) */
  atomic_store(&w->task_failed, 0);
  pm_manifest_entries_clear(&w->previous);
  pm_manifest_entries_init(&w->previous);
  pm_index_entries_clear(&w->dv_index);
  pm_index_entries_init(&w->dv_index);
  w->restored = 0;
  int rc = pm_kv_restore_previous(w, err);
  for (size_t i = 0; !rc && i < w->n_slots; i++) rc = pm_kv_slot_refresh(w, w->slots[i], err);
  if (rc)
    return pm_error_prefix(err, "table %s.%s: refreshing the writer after a dropped compaction: ", w->t->database,
                           w->t->name);
  return 0;
}
