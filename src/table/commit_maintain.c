/* The maintenance after a successful commit (commit.h pm_commit_maintenance_status), in the order
 * of Java's TableCommitImpl.maintain: automatic tags (creation, then time expiry; not with
 * write-only), partition expiry (its check interval), then consumers and snapshots / changelogs
 * (table/expire.h, "snapshot expiration usually takes the most time, so put it at the end").
 * Tags first matters: a snapshot that expiry is about to remove is tagged before it goes.
 *
 * Every step runs even when an earlier one failed; the first failure is kept, prefixed with its
 * step. None of it changes the commit's status: the snapshot is published.
 *
 * snapshot.expire.execution-mode = async on a streaming committer (Java runs a batch committer's
 * maintenance inline in both modes): the steps run on a pool worker (util/executor.h) while the
 * commit call returns. One run at a time per committer: a commit that finishes while a run is
 * under way asks for one more run after it (with the newest snapshot and identifier), so runs
 * never overlap and never queue up. Failures of background runs are sticky (the first is kept
 * for the committer's life, as Java's maintainError); pm_commit_maintenance_wait, the status
 * calls and pm_commit_free wait for the run under way. In single-threaded mode (threads = 1) or
 * when the pool refuses the job, the run happens inline. */
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "table/commit_internal.h"
#include "table/partition_expire.h"
#include "table/tag_auto.h"
#include "util/executor.h"

typedef struct pm_commit_maint {
  pthread_mutex_t mu;
  pthread_cond_t cv;     /* a background run finished */
  pm_pexpire_gate gate;  /* partition expiry's check interval (one per committer) */
  int rc;                /* the first failure (sync: of the last commit's run; async: sticky) */
  pm_error err;
  int expire_rc;         /* the snapshot expiry step of the last finished run */
  pm_error expire_err;
  pm_expire_result expire_result;
  /* async */
  int running;           /* a background run is under way or queued */
  int again;             /* a commit finished meanwhile: run once more with these */
  int64_t again_sid, again_identifier;
  int64_t sid, identifier; /* the run's */
  pm_task *task;         /* the last submitted job (pm_task_wait before the next) */
} pm_commit_maint;

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int maint_get(pm_commit *c) {
  if (c->maint) return 0;
  pm_commit_maint *m = calloc(1, sizeof *m);
  if (!m) return -1;
  pthread_mutex_init(&m->mu, NULL);
  pthread_cond_init(&m->cv, NULL);
  c->maint = m;
  return 0;
}

/* Keeps the first failure (under m->mu). */
static void keep(pm_commit_maint *m, int rc, pm_error *e, const char *step) {
  if (!rc || m->rc) return;
  pm_error_prefix(e, "%s after the commit (the commit succeeded)", step);
  m->rc = rc;
  m->err = *e;
}

/* The steps of one run; touches only the table and the gate (owned by the run) and, under
 * m->mu, the results. */
static void run_steps(pm_commit *c, int64_t sid, int64_t identifier) {
  pm_commit_maint *m = c->maint;
  pm_table *t = c->t;
  pm_error e = {0};
  int rc = 0;
  if (!t->co.write_only) {
    rc = pm_tag_auto_run(t, !c->streaming, wall_ms(), NULL, NULL, &e);
    pthread_mutex_lock(&m->mu);
    keep(m, rc, &e, "automatic tags");
    pthread_mutex_unlock(&m->mu);
  }
  pm_error_clear(&e);
  int64_t psid = -1;
  rc = pm_partition_expire_after_commit(t, &m->gate, c->user, c->streaming, identifier, &psid, &e);
  pthread_mutex_lock(&m->mu);
  keep(m, rc, &e, "automatic partition expiry");
  pthread_mutex_unlock(&m->mu);
  if (psid > sid) sid = psid; /* its OVERWRITE snapshots are the newest */
  pm_error_clear(&e);
  pm_expire_result r;
  memset(&r, 0, sizeof r);
  rc = pm_expire_after_commit(t, sid, &r, &e);
  pthread_mutex_lock(&m->mu);
  m->expire_result = r;
  m->expire_rc = rc;
  pm_error_clear(&m->expire_err);
  if (rc) {
    pm_error_prefix(&e, "automatic expiry after the commit (the commit succeeded)");
    m->expire_err = e;
    if (!m->rc) {
      m->rc = rc;
      m->err = e;
    }
  }
  pthread_mutex_unlock(&m->mu);
}

static void background(void *arg) {
  pm_commit *c = arg;
  pm_commit_maint *m = c->maint;
  for (;;) {
    run_steps(c, m->sid, m->identifier);
    pthread_mutex_lock(&m->mu);
    if (!m->again) {
      m->running = 0;
      pthread_cond_broadcast(&m->cv);
      pthread_mutex_unlock(&m->mu);
      return; /* c may be freed from here on: touch nothing */
    }
    m->again = 0;
    m->sid = m->again_sid;
    m->identifier = m->again_identifier;
    pthread_mutex_unlock(&m->mu);
  }
}

void pm_commit_maintain(pm_commit *c, int64_t sid, int64_t identifier) {
  if (maint_get(c)) {
    /* no memory for the state: nothing ran; the commit stands */
    return;
  }
  pm_commit_maint *m = c->maint;
  int async = c->streaming && c->t->co.snapshot_expire_async;
  if (!async) {
    pm_commit_maintenance_wait(c); /* a run from an earlier async table handle: never overlap */
    pthread_mutex_lock(&m->mu);
    m->rc = 0;
    pm_error_clear(&m->err);
    pthread_mutex_unlock(&m->mu);
    run_steps(c, sid, identifier);
    return;
  }
  pthread_mutex_lock(&m->mu);
  if (m->running) {
    m->again = 1;
    if (sid > m->again_sid) m->again_sid = sid;
    m->again_identifier = identifier;
    pthread_mutex_unlock(&m->mu);
    return;
  }
  m->running = 1;
  m->again = 0;
  m->again_sid = -1;
  m->sid = sid;
  m->identifier = identifier;
  pm_task *old = m->task;
  m->task = NULL;
  pthread_mutex_unlock(&m->mu);
  pm_task_wait(old); /* its run has returned (running was 0): frees the job */
  pm_executor ex = pm_table_executor(c->t);
  pm_task *task = NULL;
  if (pm_executor_submit(&ex, background, c, &task) != 0) {
    background(c); /* single-threaded mode or a full pool: inline */
    return;
  }
  pthread_mutex_lock(&m->mu);
  m->task = task;
  pthread_mutex_unlock(&m->mu);
}

void pm_commit_maintenance_wait(pm_commit *c) {
  pm_commit_maint *m = c ? c->maint : NULL;
  if (!m) return;
  pthread_mutex_lock(&m->mu);
  while (m->running) pthread_cond_wait(&m->cv, &m->mu);
  pm_task *old = m->task;
  m->task = NULL;
  pthread_mutex_unlock(&m->mu);
  pm_task_wait(old);
}

void pm_commit_maint_free(pm_commit *c) {
  if (!c->maint) return;
  pm_commit_maintenance_wait(c);
  pthread_mutex_destroy(&c->maint->mu);
  pthread_cond_destroy(&c->maint->cv);
  free(c->maint);
  c->maint = NULL;
}

int pm_commit_maintenance_status(pm_commit *c, pm_error *err) {
  pm_commit_maint *m = c ? c->maint : NULL;
  if (!m) return 0;
  pm_commit_maintenance_wait(c);
  pthread_mutex_lock(&m->mu);
  int rc = m->rc;
  if (rc && err) *err = m->err;
  pthread_mutex_unlock(&m->mu);
  return rc;
}

int pm_commit_expire_status(pm_commit *c, struct pm_expire_result *r, pm_error *err) {
  pm_commit_maint *m = c ? c->maint : NULL;
  if (r) memset(r, 0, sizeof *r);
  if (!m) return 0;
  pm_commit_maintenance_wait(c);
  pthread_mutex_lock(&m->mu);
  int rc = m->expire_rc;
  if (r) *r = m->expire_result;
  if (rc && err) *err = m->expire_err;
  pthread_mutex_unlock(&m->mu);
  return rc;
}
