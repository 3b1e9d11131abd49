/* Snapshot expiry (expire.h). */
#include "table/expire.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meta/consumer.h"
#include "meta/schema.h"
#include "meta/tag.h"
#include "meta/snapshot.h"
#include "util/str.h"

int64_t pm_expire_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

int pm_expire_config_from_options(const pm_table *t, pm_expire_config *c, pm_error *err) {
  memset(c, 0, sizeof *c);
  const pm_core_options *co = &t->co;
  c->retain_max = co->snapshot_num_retained_max;
  c->retain_min = co->snapshot_num_retained_min;
  c->time_retained_ms = co->snapshot_time_retained_ms;
  c->max_deletes = co->snapshot_expire_limit;
  c->changelog_retain_max = co->set[PM_CO_CHANGELOG_NUM_RETAINED_MAX] ? co->changelog_num_retained_max : c->retain_max;
  c->changelog_retain_min = co->set[PM_CO_CHANGELOG_NUM_RETAINED_MIN] ? co->changelog_num_retained_min : c->retain_min;
  c->changelog_time_retained_ms =
      co->set[PM_CO_CHANGELOG_TIME_RETAINED] ? co->changelog_time_retained_ms : c->time_retained_ms;
  c->consumer_changelog_only = co->consumer_changelog_only;
  c->consumer_expiration_ms = co->set[PM_CO_CONSUMER_EXPIRATION_TIME] ? co->consumer_expiration_ms : 0;
  if (c->retain_min < 1)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "snapshot.num-retained.min must be at least 1, got %d",
                     (int)c->retain_min);
  if (c->max_deletes < 1)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "snapshot.expire.limit must be at least 1, got %d",
                     (int)c->max_deletes);
  c->changelog_decoupled = c->changelog_retain_max > c->retain_max || c->changelog_retain_min > c->retain_min ||
                           c->changelog_time_retained_ms > c->time_retained_ms;
  return 0;
}

/* ------------------------------------------------------------ helpers */

typedef struct snap_vec {
  pm_snapshot **items;
  size_t n, cap;
} snap_vec;

static int sv_push(snap_vec *v, pm_snapshot *s, pm_error *err) {
  if (v->n == v->cap) {
    size_t nc = v->cap ? v->cap * 2 : 16;
    pm_snapshot **ni = realloc(v->items, nc * sizeof *ni);
    if (!ni) {
      pm_snapshot_free(s);
      return PM_NOMEM(err);
    }
    v->items = ni;
    v->cap = nc;
  }
  v->items[v->n++] = s;
  return 0;
}

static void sv_clear(snap_vec *v) {
  for (size_t i = 0; i < v->n; i++) pm_snapshot_free(v->items[i]);
  free(v->items);
  memset(v, 0, sizeof *v);
}

static int cmp_snap_id(const void *a, const void *b) {
  const pm_snapshot *x = *(pm_snapshot *const *)a, *y = *(pm_snapshot *const *)b;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* Tags of a branch as snapshots, sorted by id (a tag deleted while listing is skipped). */
static int collect_tags(const pm_snapshot_manager *sm, snap_vec *out, pm_error *err) {
  char **names = NULL;
  size_t n = 0;
  PM_TRY(pm_tag_list(sm, &names, &n, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    pm_snapshot *s = NULL;
    rc = pm_tag_read(sm, names[i], &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = 0;
      continue;
    }
    if (!rc) rc = sv_push(out, s, err);
  }
  pm_free_names(names, n);
  if (!rc && out->n > 1) qsort(out->items, out->n, sizeof *out->items, cmp_snap_id);
  return rc;
}

/* Index of the last tag with id < target (-1 = none). */
static long find_previous(const snap_vec *tags, int64_t target) {
  long r = -1;
  for (size_t i = 0; i < tags->n && tags->items[i]->id < target; i++) r = (long)i;
  return r;
}
static long find_previous_or_equal(const snap_vec *tags, int64_t target) {
  long r = -1;
  for (size_t i = 0; i < tags->n && tags->items[i]->id <= target; i++) r = (long)i;
  return r;
}

/* The snapshots every other branch still starts from: each branch's earliest snapshot and
 * its tags (they may hold the files of the main branch they were created from). */
static int collect_branch_pins(pm_table *t, snap_vec *pins, pm_error *err) {
  char **branches = NULL;
  size_t nb = 0;
  PM_TRY(pm_branch_list(t->fs, t->root, &branches, &nb, err));
  int rc = 0;
  for (size_t i = 0; !rc && i <= nb; i++) {
    const char *b = i == nb ? "main" : branches[i];
    if (!strcmp(b, t->branch)) continue;
    pm_snapshot_manager sm = pm_snapshot_manager_of(t->fs, t->root, strcmp(b, "main") ? b : NULL);
    int64_t e = 0;
    rc = pm_snapshot_earliest_id(&sm, &e, err);
    if (!rc && e > 0) {
      pm_snapshot *s = NULL;
      rc = pm_snapshot_read(&sm, e, &s, err);
      if (rc == PAIMON_ERR_NOT_FOUND) {
        pm_error_clear(err);
        rc = 0;
      } else if (!rc) rc = sv_push(pins, s, err);
    }
    if (!rc) rc = collect_tags(&sm, pins, err);
    if (rc) pm_error_prefix(err, "branch %s", b);
  }
  pm_free_names(branches, nb);
  return rc;
}

static int has_long_lived_changelogs(pm_table *t, int *has, pm_error *err) {
  char *dir = pm_table_meta_path(t, "changelog");
  if (!dir) return PM_NOMEM(err);
  int64_t *ids = NULL;
  size_t n = 0;
  int rc = pm_meta_list_ids(t->fs, dir, "changelog-", &ids, &n, err);
  free(ids);
  free(dir);
  *has = n > 0;
  return rc;
}

/* changelog/changelog-<id> of snapshot s (Java's commitChangelog + the long-lived LATEST hint). */
static int write_changelog(pm_table *t, const pm_snapshot *s, pm_error *err) {
  char *dir = pm_table_meta_path(t, "changelog");
  char sub[64];
  snprintf(sub, sizeof sub, "changelog/changelog-%lld", (long long)s->id);
  char *p = pm_table_meta_path(t, sub);
  char *hint = pm_table_meta_path(t, "changelog/LATEST");
  int rc = (!dir || !p || !hint) ? PM_NOMEM(err) : pm_fs_mkdirs(t->fs, dir, err);
  pm_buf b;
  pm_buf_init(&b);
  if (!rc) rc = pm_snapshot_to_json(s, &b, err);
  if (!rc) rc = pm_fs_write_file(t->fs, p, b.data, b.len, PM_OUT_OVERWRITE, err);
  if (!rc) {
    char txt[32];
    int len = snprintf(txt, sizeof txt, "%lld", (long long)s->id);
    rc = pm_fs_write_file(t->fs, hint, txt, (size_t)len, PM_OUT_OVERWRITE, err);
  }
  pm_buf_free(&b);
  free(dir);
  free(p);
  free(hint);
  return rc;
}

static void report(pm_expire_progress_fn f, void *ctx, const char *phase, int64_t done, int64_t total) {
  if (f) f(ctx, phase, done, total);
}

typedef struct exec_progress {
  pm_expire_progress_fn f;
  void *ctx;
} exec_progress;

static void on_exec(void *ctx, int64_t done, int64_t total) {
  exec_progress *p = ctx;
  report(p->f, p->ctx, "deleting files", done, total);
}

/* The last step of both expiries: deletes the files planned in d (progress may be NULL), adding
 * what was deleted to *sum, whatever the result. */
static int delete_planned(pm_file_deletion *d, pm_expire_progress_fn progress, void *pctx, pm_fdel_stats *sum,
                          pm_error *err) {
  exec_progress ep = {progress, pctx};
  pm_fdel_stats st;
  int rc = pm_fdel_execute(d, progress ? on_exec : NULL, &ep, &st, err);
  sum->data_deleted += st.data_deleted;
  sum->meta_deleted += st.meta_deleted;
  sum->dirs_deleted += st.dirs_deleted;
  sum->missing += st.missing;
  sum->failed += st.failed;
  return rc;
}

/* ------------------------------------------------------------ expireUntil */

int pm_expire_until(pm_table *t, const pm_expire_config *c, int64_t end, pm_expire_progress_fn progress, void *pctx,
                    pm_expire_result *r, pm_error *err) {
  pm_expire_result local;
  if (!r) r = &local;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  int64_t earliest = 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &earliest, err));
  if (earliest <= 0) return 0;
  if (end <= earliest) {
    /* nothing to expire: make the EARLIEST hint right (Java writes it when missing; a run
     * stopped between the snapshot files and the hint left it behind: rewritten too) */
    char *h = pm_table_meta_path(t, "snapshot/EARLIEST");
    if (!h) return PM_NOMEM(err);
    pm_buf b;
    pm_buf_init(&b);
    int rc = pm_fs_read_file(t->fs, h, &b, 64, err);
    int right = 0;
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = 0;
    } else if (!rc) {
      char txt[72];
      snprintf(txt, sizeof txt, "%.*s", (int)(b.len < 64 ? b.len : 64), b.data ? (const char *)b.data : "");
      right = strtoll(txt, NULL, 10) == earliest;
    }
    pm_buf_free(&b);
    free(h);
    if (!rc && !right && !c->dry_run) rc = pm_snapshot_write_hint(&sm, "EARLIEST", earliest, err);
    return rc;
  }

  snap_vec snaps = {0}, tags = {0}, pins = {0};
  pm_name_set data_pins, manifest_skip;
  pm_name_set_init(&data_pins);
  pm_name_set_init(&manifest_skip);
  pm_file_deletion d;
  pm_fdel_init(&d, t);
  int rc = 0;

  /* snapshots [earliest, end] that exist */
  report(progress, pctx, "reading snapshots", 0, end - earliest + 1);
  for (int64_t id = earliest; !rc && id <= end; id++) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_read(&sm, id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = 0;
      continue;
    }
    if (!rc) rc = sv_push(&snaps, s, err);
  }
  if (rc || !snaps.n || snaps.items[snaps.n - 1]->id != end) goto out; /* end gone: a concurrent expiry */
  int64_t begin = snaps.items[0]->id;

  if (!rc) rc = collect_tags(&sm, &tags, err);
  if (!rc) rc = collect_branch_pins(t, &pins, err);
  for (size_t i = 0; !rc && i < pins.n; i++) rc = pm_fdel_skip_live_data(t, pins.items[i], &data_pins, err);
  int produce_changelog = t->changelog_producer != PM_CHANGELOG_NONE;

  /* 1. data files removed by the deltas of (begin, end]; begin's delta too, when no long-lived
   * changelog may still use its files (its deletions were due when begin-1 expired; a run stopped
   * after the snapshot files went left them). */
  int begin_delta = 0;
  if (!rc && !c->changelog_decoupled) {
    int has = 1;
    rc = has_long_lived_changelogs(t, &has, err);
    begin_delta = !has;
  }
  pm_name_set tag_data;
  pm_name_set_init(&tag_data);
  long cached_tag = -2;
  int skip_append = c->changelog_decoupled && !produce_changelog;
  for (size_t i = 0; !rc && i < snaps.n; i++) {
    const pm_snapshot *s = snaps.items[i];
    if (s->id == begin && !begin_delta) continue;
    long ti = find_previous(&tags, s->id);
    if (ti != cached_tag) {
      pm_name_set_clear(&tag_data);
      pm_name_set_init(&tag_data);
      for (size_t k = 0; !rc && k < data_pins.cap; k++)
        if (data_pins.slots[k]) rc = pm_name_set_add(&tag_data, data_pins.slots[k], NULL, err);
      if (!rc && ti >= 0) rc = pm_fdel_skip_live_data(t, tags.items[ti], &tag_data, err);
      cached_tag = ti;
    }
    if (!rc) rc = pm_fdel_plan_deleted_in_delta(&d, s, &tag_data, skip_append, err);
  }
  pm_name_set_clear(&tag_data);
  report(progress, pctx, "planned data files", (int64_t)d.data.n, (int64_t)d.data.n);

  /* 2. changelog files of [begin, end) */
  for (size_t i = 0; !rc && !c->changelog_decoupled && i + 1 < snaps.n; i++)
    rc = pm_fdel_plan_changelog(&d, snaps.items[i], err);

  /* 3. metadata of [begin, end) not used by end, the tags in range or other branches */
  if (!rc) {
    long right = find_previous(&tags, end);
    if (right >= 0) {
      long left = find_previous_or_equal(&tags, begin);
      if (left < 0) left = 0;
      for (long i = left; !rc && i <= right; i++) rc = pm_fdel_skip_manifests(t, tags.items[i], &manifest_skip, err);
    }
  }
  if (!rc) rc = pm_fdel_skip_manifests(t, snaps.items[snaps.n - 1], &manifest_skip, err);
  for (size_t i = 0; !rc && i < pins.n; i++) rc = pm_fdel_skip_manifests(t, pins.items[i], &manifest_skip, err);
  for (size_t i = 0; !rc && i + 1 < snaps.n; i++)
    rc = pm_fdel_plan_manifests(&d, snaps.items[i], &manifest_skip, !c->changelog_decoupled || produce_changelog,
                                !c->changelog_decoupled, 1, err);
  if (rc) {
    pm_error_prefix(err, "expiring snapshots %lld..%lld of %s (nothing deleted)", (long long)begin,
                    (long long)end - 1, t->root);
    goto out;
  }
  if (c->dry_run) {
    r->snapshots_expired += (int64_t)snaps.n - 1;
    if (c->changelog_decoupled) r->changelogs_written += (int64_t)snaps.n - 1;
    r->files.data_deleted += (int64_t)d.data.n;
    r->files.meta_deleted += (int64_t)d.meta.n;
    goto out;
  }

  /* 4. long-lived changelogs, snapshot files (ascending), EARLIEST */
  report(progress, pctx, "deleting snapshots", 0, (int64_t)snaps.n - 1);
  for (size_t i = 0; !rc && i + 1 < snaps.n; i++) {
    const pm_snapshot *s = snaps.items[i];
    if (c->changelog_decoupled) {
      rc = write_changelog(t, s, err);
      if (!rc) r->changelogs_written++;
    }
    char *p = rc ? NULL : pm_snapshot_path(&sm, s->id);
    if (!rc && !p) rc = PM_NOMEM(err);
    if (!rc) rc = pm_fs_delete(t->fs, p, err);
    if (rc == PAIMON_ERR_NOT_FOUND) { /* a concurrent expiry took it */
      pm_error_clear(err);
      rc = 0;
    } else if (!rc) r->snapshots_expired++;
    free(p);
  }
  if (!rc) rc = pm_snapshot_write_hint(&sm, "EARLIEST", end, err);
  if (rc) {
    pm_error_prefix(err, "expiring snapshots %lld..%lld of %s (%lld snapshot files deleted, data kept)",
                    (long long)begin, (long long)end - 1, t->root, (long long)r->snapshots_expired);
    goto out;
  }

  /* 5. the files */
  rc = delete_planned(&d, progress, pctx, &r->files, err);
  if (rc) pm_error_prefix(err, "expired snapshots %lld..%lld of %s", (long long)begin, (long long)end - 1, t->root);
out:
  pm_fdel_clear(&d);
  pm_name_set_clear(&data_pins);
  pm_name_set_clear(&manifest_skip);
  sv_clear(&snaps);
  sv_clear(&tags);
  sv_clear(&pins);
  return rc;
}

/* ------------------------------------------------------------ expire */

int pm_expire_snapshots(pm_table *t, const pm_expire_config *c, pm_expire_progress_fn progress, void *pctx,
                        pm_expire_result *r, pm_error *err) {
  pm_expire_result local;
  if (!r) r = &local;
  memset(r, 0, sizeof *r);
  if (c->retain_max < c->retain_min)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "retain max (%d) must not be less than retain min (%d)",
                     (int)c->retain_max, (int)c->retain_min);
  if (c->retain_min < 1)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "retain min must be at least 1, got %d", (int)c->retain_min);
  if (c->max_deletes < 1)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "expire limit must be at least 1, got %d", (int)c->max_deletes);
  int64_t now = c->now_ms ? c->now_ms : pm_expire_now_ms();
  int64_t older_than = c->time_retained_ms >= now ? INT64_MIN : now - c->time_retained_ms;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  if (c->consumer_expiration_ms > 0 && !c->dry_run)
    PM_TRY(pm_consumer_expire(&sm, now - c->consumer_expiration_ms, NULL, err));
  int64_t latest = 0, earliest = 0;
  PM_TRY(pm_snapshot_latest_id(&sm, &latest, err));
  if (latest <= 0) return 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &earliest, err));
  if (earliest <= 0) return 0;
  int64_t min = latest - c->retain_max + 1;
  if (min < earliest) min = earliest;
  int64_t max_excl = latest - c->retain_min + 1;
  if (!c->consumer_changelog_only) {
    int64_t cmin = 0;
    int found = 0;
    PM_TRY(pm_consumer_min_next(&sm, &cmin, &found, err));
    if (found && cmin < max_excl) max_excl = cmin;
  }
  if (earliest + c->max_deletes < max_excl) max_excl = earliest + c->max_deletes;
  int64_t end = max_excl;
  for (int64_t id = min; id < max_excl; id++) {
    pm_snapshot *next = NULL;
    int rc = pm_snapshot_read(&sm, id + 1, &next, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      continue;
    }
    if (rc) return rc;
    int young = older_than <= next->time_millis;
    pm_snapshot_free(next);
    if (young) {
      end = id;
      break;
    }
  }
  int rc = pm_expire_until(t, c, end, progress, pctx, r, err);
  if (!rc && c->changelog_decoupled) rc = pm_expire_changelogs(t, c, r, err);
  return rc;
}

/* ------------------------------------------------------------ long-lived changelogs */

static char *changelog_path(pm_table *t, int64_t id) {
  char sub[64];
  snprintf(sub, sizeof sub, "changelog/changelog-%lld", (long long)id);
  return pm_table_meta_path(t, sub);
}

/* changelog/changelog-<id>; missing = PAIMON_ERR_NOT_FOUND. */
static int read_changelog(pm_table *t, int64_t id, pm_snapshot **out, pm_error *err) {
  *out = NULL;
  char *p = changelog_path(t, id);
  if (!p) return PM_NOMEM(err);
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(t->fs, p, &b, 0, err);
  if (!rc) rc = pm_snapshot_parse((const char *)b.data, b.len, p, out, err);
  pm_buf_free(&b);
  free(p);
  return rc;
}

/* Java's ExpireChangelogImpl.expireUntil over [begin, end): plan everything (read-only), delete
 * the changelog files ascending, write changelog/EARLIEST, then delete the planned files (a stop
 * leaves only unreferenced files). */
static int expire_changelogs_until(pm_table *t, const pm_expire_config *c, int64_t begin, int64_t end,
                                   pm_expire_result *r, pm_error *err) {
  pm_snapshot_manager sm = pm_table_snapshots(t);
  snap_vec logs = {0}, tags = {0}, pins = {0};
  pm_name_set data_pins, manifest_skip, tag_data;
  pm_name_set_init(&data_pins);
  pm_name_set_init(&manifest_skip);
  pm_name_set_init(&tag_data);
  pm_file_deletion d;
  pm_fdel_init(&d, t);
  pm_snapshot *end_log = NULL, *earliest = NULL;
  if (end <= begin) return 0; /* nothing to expire (Java rewrites the EARLIEST hint; we leave it) */
  int rc = read_changelog(t, end, &end_log, err);
  if (rc == PAIMON_ERR_NOT_FOUND) { /* a concurrent expiry, or not long-lived: nothing to do (Java) */
    pm_error_clear(err);
    rc = 0;
    goto out;
  }
  for (int64_t id = begin; !rc && id < end; id++) {
    pm_snapshot *s = NULL;
    rc = read_changelog(t, id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = 0;
      continue;
    }
    if (!rc) rc = sv_push(&logs, s, err);
  }
  if (!rc) {
    int64_t e = 0;
    rc = pm_snapshot_earliest_id(&sm, &e, err);
    if (!rc) rc = pm_snapshot_read(&sm, e, &earliest, err);
  }
  if (!rc) rc = collect_tags(&sm, &tags, err);
  if (!rc) rc = collect_branch_pins(t, &pins, err);
  for (size_t i = 0; !rc && i < pins.n; i++) rc = pm_fdel_skip_live_data(t, pins.items[i], &data_pins, err);
  /* metadata: kept for the tags in range, the end changelog, the earliest snapshot, other branches */
  if (!rc) {
    long right = find_previous(&tags, end);
    if (right >= 0) {
      long left = find_previous_or_equal(&tags, begin);
      if (left < 0) left = 0;
      for (long i = left; !rc && i <= right; i++) rc = pm_fdel_skip_manifests(t, tags.items[i], &manifest_skip, err);
    }
  }
  if (!rc) rc = pm_fdel_skip_manifests_existing(t, end_log, &manifest_skip, err);
  if (!rc) rc = pm_fdel_skip_manifests(t, earliest, &manifest_skip, err);
  for (size_t i = 0; !rc && i < pins.n; i++) rc = pm_fdel_skip_manifests(t, pins.items[i], &manifest_skip, err);
  long cached_tag = -2;
  for (size_t i = 0; !rc && i < logs.n; i++) {
    const pm_snapshot *s = logs.items[i];
    if (s->changelog_manifest_list) {
      rc = pm_fdel_plan_changelog(&d, s, err);
      if (!rc) rc = pm_fdel_plan_manifests(&d, s, &manifest_skip, 0, 1, 0, err);
      continue;
    }
    long ti = find_previous(&tags, s->id);
    if (ti != cached_tag) {
      pm_name_set_clear(&tag_data);
      pm_name_set_init(&tag_data);
      for (size_t k = 0; !rc && k < data_pins.cap; k++)
        if (data_pins.slots[k]) rc = pm_name_set_add(&tag_data, data_pins.slots[k], NULL, err);
      if (!rc && ti >= 0) rc = pm_fdel_skip_live_data(t, tags.items[ti], &tag_data, err);
      cached_tag = ti;
    }
    if (!rc) rc = pm_fdel_plan_deleted_in_delta(&d, s, &tag_data, 0, err);
    if (!rc) rc = pm_fdel_plan_manifests(&d, s, &manifest_skip, 1, 0, 0, err);
  }
  if (rc) {
    pm_error_prefix(err, "expiring changelogs %lld..%lld of %s (nothing deleted)", (long long)begin,
                    (long long)end - 1, t->root);
    goto out;
  }
  if (c->dry_run) {
    r->changelogs_expired += (int64_t)logs.n;
    r->files.data_deleted += (int64_t)d.data.n;
    r->files.meta_deleted += (int64_t)d.meta.n;
    goto out;
  }
  int64_t deleted = 0;
  for (size_t i = 0; !rc && i < logs.n; i++) {
    char *p = changelog_path(t, logs.items[i]->id);
    rc = p ? pm_fs_delete(t->fs, p, err) : PM_NOMEM(err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = 0;
    } else if (!rc) deleted++;
    free(p);
  }
  r->changelogs_expired += deleted;
  if (!rc) {
    char *hint = pm_table_meta_path(t, "changelog/EARLIEST");
    char txt[32];
    int len = snprintf(txt, sizeof txt, "%lld", (long long)end);
    rc = hint ? pm_fs_write_file(t->fs, hint, txt, (size_t)len, PM_OUT_OVERWRITE, err) : PM_NOMEM(err);
    free(hint);
  }
  if (rc) {
    pm_error_prefix(err, "expiring changelogs %lld..%lld of %s (%lld changelog files deleted, data kept)",
                    (long long)begin, (long long)end - 1, t->root, (long long)deleted);
    goto out;
  }
  rc = delete_planned(&d, NULL, NULL, &r->files, err);
  if (rc) pm_error_prefix(err, "expired changelogs %lld..%lld of %s", (long long)begin, (long long)end - 1, t->root);
out:
  pm_fdel_clear(&d);
  pm_name_set_clear(&data_pins);
  pm_name_set_clear(&manifest_skip);
  pm_name_set_clear(&tag_data);
  pm_snapshot_free(end_log);
  pm_snapshot_free(earliest);
  sv_clear(&logs);
  sv_clear(&tags);
  sv_clear(&pins);
  return rc;
}

int pm_expire_changelogs(pm_table *t, const pm_expire_config *c, pm_expire_result *r, pm_error *err) {
  pm_expire_result local;
  if (!r) {
    memset(&local, 0, sizeof local);
    r = &local;
  }
  if (c->changelog_retain_max < c->changelog_retain_min)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "changelog retain max (%d) must not be less than changelog retain min (%d)",
                     (int)c->changelog_retain_max, (int)c->changelog_retain_min);
  if (c->changelog_retain_min < 1)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "changelog retain min must be at least 1, got %d",
                     (int)c->changelog_retain_min);
  pm_snapshot_manager sm = pm_table_snapshots(t);
  int64_t latest = 0, earliest = 0;
  PM_TRY(pm_snapshot_latest_id(&sm, &latest, err));
  if (latest <= 0) return 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &earliest, err));
  if (earliest <= 0) return 0;
  char *dir = pm_table_meta_path(t, "changelog");
  if (!dir) return PM_NOMEM(err);
  int64_t *ids = NULL;
  size_t n = 0;
  int rc = pm_meta_list_ids(t->fs, dir, "changelog-", &ids, &n, err);
  free(dir);
  int64_t lo = n ? ids[0] : 0, hi = n ? ids[n - 1] : 0;
  free(ids);
  if (rc || !n) return rc;
  int64_t now = c->now_ms ? c->now_ms : pm_expire_now_ms();
  int64_t older_than =
      c->changelog_time_retained_ms >= now ? INT64_MIN : now - c->changelog_time_retained_ms;
  int64_t min = latest - c->changelog_retain_max + 1;
  if (min < lo) min = lo;
  int64_t max_excl = latest - c->changelog_retain_min + 1;
  int64_t cmin = 0;
  int found = 0;
  PM_TRY(pm_consumer_min_next(&sm, &cmin, &found, err)); /* consumers always pin changelogs */
  if (found && cmin < max_excl) max_excl = cmin;
  if (lo + c->max_deletes < max_excl) max_excl = lo + c->max_deletes;
  if (hi < max_excl) max_excl = hi; /* only long-lived changelogs: the end one must be one too */
  if (max_excl <= lo) return 0;
  int64_t end = max_excl;
  for (int64_t id = min; id <= max_excl; id++) {
    pm_snapshot *s = NULL;
    rc = read_changelog(t, id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      continue;
    }
    if (rc) return rc;
    int young = older_than <= s->time_millis;
    pm_snapshot_free(s);
    if (young) {
      end = id;
      break;
    }
  }
  return expire_changelogs_until(t, c, lo, end, r, err);
}

/* ------------------------------------------------------------ after a commit */

int pm_expire_after_commit(pm_table *t, int64_t committed_id, pm_expire_result *r, pm_error *err) {
  pm_expire_result local;
  if (!r) r = &local;
  memset(r, 0, sizeof *r);
  if (t->co.write_only || t->bucket == -2) return 0;
  pm_expire_config c;
  PM_TRY(pm_expire_config_from_options(t, &c, err));
  /* snapshots 1..committed_id at most: none beyond retain-min (the earliest is >= 1) */
  if (committed_id > 0 && committed_id <= c.retain_min && committed_id <= c.changelog_retain_min &&
      c.consumer_expiration_ms <= 0)
    return 0;
  c.now_ms = pm_expire_now_ms();
  pm_snapshot_manager sm = pm_table_snapshots(t);
  if (c.consumer_expiration_ms > 0) {
    PM_TRY(pm_consumer_expire(&sm, c.now_ms - c.consumer_expiration_ms, NULL, err));
    c.consumer_expiration_ms = 0; /* done */
  }
  int64_t latest = 0, earliest = 0;
  PM_TRY(pm_snapshot_latest_id(&sm, &latest, err));
  if (latest <= 0) return 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &earliest, err));
  if (earliest <= 0) return 0;
  int can_expire = latest - c.retain_min + 1 > earliest;
  if (!can_expire && !c.changelog_decoupled) return 0; /* the common case: nothing else to read */
  if (can_expire) return pm_expire_snapshots(t, &c, NULL, NULL, r, err); /* changelogs too */
  return pm_expire_changelogs(t, &c, r, err);
}

/* ------------------------------------------------------------ tag deletion */

int pm_tag_delete_clean(pm_table *t, const char *name, pm_fdel_stats *st, pm_error *err) {
  pm_fdel_stats local;
  if (!st) st = &local;
  memset(st, 0, sizeof *st);
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *tag = NULL;
  int rc = pm_tag_read(&sm, name, &tag, err);
  if (rc) return rc;
  int exists = 1;
  rc = pm_snapshot_exists(&sm, tag->id, &exists, err);
  snap_vec tags = {0}, pins = {0};
  pm_name_set data_skip, manifest_skip;
  pm_name_set_init(&data_skip);
  pm_name_set_init(&manifest_skip);
  pm_file_deletion d;
  pm_fdel_init(&d, t);
  pm_snapshot *earliest = NULL;
  int clean = !rc && !exists;
  if (clean) rc = collect_tags(&sm, &tags, err);
  if (clean && !rc) {
    size_t same = 0;
    for (size_t i = 0; i < tags.n; i++) same += tags.items[i]->id == tag->id;
    clean = same <= 1; /* another tag of that snapshot keeps everything */
  }
  if (clean && !rc) {
    /* plan (read-only): keep what the left neighbour tag, the nearest right one (earliest
     * snapshot or next tag) and other branches use */
    pm_error perr = {0};
    int prc = 0;
    long left = find_previous(&tags, tag->id);
    const pm_snapshot *right = NULL;
    for (size_t i = 0; i < tags.n && !right; i++)
      if (tags.items[i]->id > tag->id) right = tags.items[i];
    int64_t e = 0;
    prc = pm_snapshot_earliest_id(&sm, &e, &perr);
    if (!prc && e > 0) prc = pm_snapshot_read(&sm, e, &earliest, &perr);
    if (!prc && earliest && (!right || earliest->id < right->id)) right = earliest;
    if (!prc) prc = collect_branch_pins(t, &pins, &perr);
    const pm_snapshot *keep[2] = {left >= 0 ? tags.items[left] : NULL, right};
    for (int k = 0; !prc && k < 2; k++)
      if (keep[k]) {
        prc = pm_fdel_skip_live_data(t, keep[k], &data_skip, &perr);
        if (!prc) prc = pm_fdel_skip_manifests(t, keep[k], &manifest_skip, &perr);
      }
    for (size_t i = 0; !prc && i < pins.n; i++) {
      prc = pm_fdel_skip_live_data(t, pins.items[i], &data_skip, &perr);
      if (!prc) prc = pm_fdel_skip_manifests(t, pins.items[i], &manifest_skip, &perr);
    }
    if (!prc) prc = pm_fdel_plan_unused_data(&d, tag, &data_skip, &perr);
    if (!prc) prc = pm_fdel_plan_manifests(&d, tag, &manifest_skip, 1, 0, 1, &perr);
    if (prc) clean = 0; /* Java: the tag goes, its files stay (orphan cleanup) */
  }
  if (!rc) rc = pm_tag_delete_file(&sm, name, err);
  if (!rc && clean) {
    rc = pm_fdel_execute(&d, NULL, NULL, st, err);
    if (rc) pm_error_prefix(err, "tag '%s' deleted; its files", name);
  }
  pm_fdel_clear(&d);
  pm_name_set_clear(&data_skip);
  pm_name_set_clear(&manifest_skip);
  pm_snapshot_free(earliest);
  pm_snapshot_free(tag);
  sv_clear(&tags);
  sv_clear(&pins);
  return rc;
}

int pm_long_lived_changelog_read(pm_table *t, int64_t id, pm_snapshot **out, pm_error *err) {
  return read_changelog(t, id, out, err);
}

int pm_long_lived_changelog_earliest(pm_table *t, int64_t *id, pm_error *err) {
  *id = 0;
  char *dir = pm_table_meta_path(t, "changelog");
  if (!dir) return PM_NOMEM(err);
  int64_t *ids = NULL;
  size_t n = 0;
  int rc = pm_meta_list_ids(t->fs, dir, "changelog-", &ids, &n, err);
  if (rc == PAIMON_ERR_NOT_FOUND) {
    pm_error_clear(err);
    rc = 0;
  }
  for (size_t i = 0; !rc && i < n; i++)
    if (!*id || ids[i] < *id) *id = ids[i];
  free(ids);
  free(dir);
  return rc;
}
