/* Streaming scan state machine (stream_scan.h; SEMANTICS.md §6.2-6.3). */
#include "table/stream_scan.h"

#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <time.h>

#include "meta/consumer.h"
#include "meta/core_options.h"
#include "meta/snapshot.h"
#include "table/expire.h"

/* Java's NextSnapshotFetcher.RANGE_CHECK_INTERVAL */
#define RANGE_CHECK_INTERVAL 16

typedef enum start_kind {
  START_LATEST_FULL,
  START_LATEST,
  START_COMPACTED_FULL,
  START_FROM_SNAPSHOT,
  START_FROM_SNAPSHOT_FULL,
  START_FROM_TIMESTAMP,
  START_FILE_CREATION_TIME,
  START_FROM_CREATION /* resolved at the first plan into FROM_SNAPSHOT or FILE_CREATION_TIME */
} start_kind;

struct pm_stream_scan {
  pm_table *t;            /* a reference */
  pm_predicate *filter;   /* a copy, NULL = none */
  start_kind start;
  int initialized;        /* the starting scanner ran its "constructor" (first plan) */
  int64_t start_snapshot; /* snapshot captured at initialization (0 = none) */
  int64_t start_id;       /* from-snapshot[-full]: the id */
  int64_t start_millis;   /* from-timestamp */
  int full_compacted;     /* compacted-full picks a full compaction (identifier % delta_commits == 0) */
  int32_t delta_commits;
  int level_min;          /* full phase of lookup / full-compaction changelog tables */
  int changelog;          /* follow-ups read changelog manifests */
  int read_overwrite;     /* OVERWRITE snapshots give their changes */
  int decoupled;          /* changelog lifecycle decoupled: expired snapshots live on as changelog/changelog-<id> */
  int64_t next;           /* 0 = null */
  int has_wm;
  int64_t wm;
  int finished;
  int misses;
};

static pm_snapshot_manager sm_of(const pm_stream_scan *s) { return pm_table_snapshots(s->t); }

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

/* Resolves scan.mode (Java's CoreOptions.startupMode plus createStartingScanner's streaming checks). */
static int resolve_start(pm_stream_scan *s, pm_error *err) {
  pm_table *t = s->t;
  const pm_core_options *co = &t->co;
  const char *mode = co->scan_mode ? co->scan_mode : "default";
  if (!strcasecmp(mode, "default")) {
    if (co->set[PM_CO_SCAN_TIMESTAMP_MILLIS] || co->set[PM_CO_SCAN_TIMESTAMP]) mode = "from-timestamp";
    else if (co->set[PM_CO_SCAN_SNAPSHOT_ID] || co->set[PM_CO_SCAN_TAG_NAME] || co->set[PM_CO_SCAN_WATERMARK] ||
             co->set[PM_CO_SCAN_VERSION])
      mode = "from-snapshot";
    else if (co->set[PM_CO_SCAN_FILE_CREATION_TIME_MILLIS]) mode = "from-file-creation-time";
    else if (co->set[PM_CO_SCAN_CREATION_TIME_MILLIS]) mode = "from-creation-timestamp";
    else if (co->set[PM_CO_INCREMENTAL_BETWEEN] || co->set[PM_CO_INCREMENTAL_BETWEEN_TIMESTAMP]) mode = "incremental";
    else mode = "latest-full";
  }
  if (!strcasecmp(mode, "latest-full") || !strcasecmp(mode, "full")) {
    s->start = START_LATEST_FULL;
  } else if (!strcasecmp(mode, "latest")) {
    s->start = START_LATEST;
  } else if (!strcasecmp(mode, "compacted-full")) {
    s->start = START_COMPACTED_FULL;
    s->full_compacted =
        t->changelog_producer == PM_CHANGELOG_FULL_COMPACTION || co->set[PM_CO_FULL_COMPACTION_DELTA_COMMITS];
    s->delta_commits = co->set[PM_CO_FULL_COMPACTION_DELTA_COMMITS] ? co->full_compaction_delta_commits : 1;
    if (s->delta_commits < 1) s->delta_commits = 1;
  } else if (!strcasecmp(mode, "from-snapshot")) {
    if (co->set[PM_CO_SCAN_SNAPSHOT_ID]) {
      s->start = START_FROM_SNAPSHOT;
      s->start_id = co->scan_snapshot_id;
    } else if (co->set[PM_CO_SCAN_WATERMARK]) {
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "stream scan: cannot start from a watermark (scan.watermark) in streaming mode");
    } else if (co->set[PM_CO_SCAN_TAG_NAME]) {
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "stream scan: cannot start from a tag (scan.tag-name) in streaming mode");
    } else if (co->set[PM_CO_SCAN_VERSION]) {
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "stream scan: scan.version cannot select the start of a stream (use scan.snapshot-id)");
    } else {
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "stream scan: scan.mode = %s needs scan.snapshot-id", mode);
    }
  } else if (!strcasecmp(mode, "from-snapshot-full")) {
    if (!co->set[PM_CO_SCAN_SNAPSHOT_ID])
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "stream scan: scan.mode = %s needs scan.snapshot-id", mode);
    s->start = START_FROM_SNAPSHOT_FULL;
    s->start_id = co->scan_snapshot_id;
  } else if (!strcasecmp(mode, "from-timestamp")) {
    s->start = START_FROM_TIMESTAMP;
    if (co->set[PM_CO_SCAN_TIMESTAMP_MILLIS]) s->start_millis = co->scan_timestamp_millis;
    else if (co->set[PM_CO_SCAN_TIMESTAMP]) PM_TRY(pm_parse_local_timestamp(co->scan_timestamp, &s->start_millis, err));
    else
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "stream scan: scan.mode = from-timestamp needs scan.timestamp-millis or scan.timestamp");
  } else if (!strcasecmp(mode, "from-file-creation-time")) {
    if (!co->set[PM_CO_SCAN_FILE_CREATION_TIME_MILLIS])
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "stream scan: scan.mode = from-file-creation-time needs scan.file-creation-time-millis");
    s->start = START_FILE_CREATION_TIME;
  } else if (!strcasecmp(mode, "from-creation-timestamp")) {
    if (!co->set[PM_CO_SCAN_CREATION_TIME_MILLIS])
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "stream scan: scan.mode = from-creation-timestamp needs scan.creation-time-millis");
    s->start = START_FROM_CREATION;
  } else if (!strcasecmp(mode, "latest-delta")) {
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "stream scan: scan.mode = latest-delta is only supported for batch scans");
  } else if (!strcasecmp(mode, "incremental")) {
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "stream scan: incremental reads (scan.mode = incremental, incremental-between*) are batch "
                     "scans, not streaming ones");
  } else {
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "stream scan: unknown scan.mode '%s' (default, latest-full, full, latest, compacted-full, "
                     "from-snapshot, from-snapshot-full, from-timestamp, from-file-creation-time, from-creation-timestamp)",
                     mode);
  }
  return 0;
}

int pm_stream_scan_new(pm_table *t, const pm_predicate *filter, pm_stream_scan **out, pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(t, err));
  pm_stream_scan *s = calloc(1, sizeof *s);
  if (!s) return PM_NOMEM(err);
  s->t = pm_table_retain(t);
  int rc = filter ? pm_pred_copy(filter, &s->filter, err) : 0;
  if (!rc) rc = resolve_start(s, err);
  const char *cid = t->co.consumer_id;
  if (!rc && cid && (!*cid || strchr(cid, '/') || !strcmp(cid, ".") || !strcmp(cid, "..")))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option consumer-id = '%s' is not a valid file name", cid);
  if (rc) {
    pm_stream_scan_free(s);
    return rc;
  }
  if (pm_table_has_pk(t) && t->changelog_producer == PM_CHANGELOG_LOOKUP) s->level_min = 1;
  if (pm_table_has_pk(t) && t->changelog_producer == PM_CHANGELOG_FULL_COMPACTION) {
    int levels = t->co.num_levels > 0 ? t->co.num_levels : t->co.num_sorted_run_compaction_trigger + 1;
    s->level_min = levels - 1;
  }
  s->changelog = t->changelog_producer != PM_CHANGELOG_NONE;
  pm_expire_config ec;
  pm_error e2 = {0};
  if (!pm_expire_config_from_options(t, &ec, &e2)) s->decoupled = ec.changelog_decoupled;
  s->read_overwrite = pm_table_has_pk(t) ? t->co.streaming_read_overwrite : t->co.streaming_read_append_overwrite;
  *out = s;
  return 0;
}

void pm_stream_scan_free(pm_stream_scan *s) {
  if (!s) return;
  pm_pred_free(s->filter);
  pm_table_free(s->t);
  free(s);
}

static int empty_plan(pm_plan **out, pm_error *err) {
  pm_plan *p = calloc(1, sizeof *p);
  if (!p) return PM_NOMEM(err);
  snprintf(p->explain.scan_kind, sizeof p->explain.scan_kind, "stream-none");
  *out = p;
  return 0;
}

static int bounded_end(const pm_stream_scan *s, const pm_snapshot *snap) {
  return s->t->co.set[PM_CO_SCAN_BOUNDED_WATERMARK] && snap->has_watermark &&
         snap->watermark > s->t->co.scan_bounded_watermark;
}

static void take_watermark(pm_stream_scan *s, const pm_snapshot *snap) {
  s->has_wm = snap->has_watermark;
  s->wm = snap->watermark;
}

/* compacted-full: the latest COMPACT snapshot (a full compaction's when full_compacted), else the latest. */
static int pick_compacted(pm_stream_scan *s, int64_t *id, pm_error *err) {
  pm_snapshot_manager sm = sm_of(s);
  int64_t e = 0, l = 0;
  *id = 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &e, err));
  PM_TRY(pm_snapshot_latest_id(&sm, &l, err));
  if (!l || !e) return 0;
  for (int64_t i = l; i >= e; i--) {
    pm_snapshot *snap = NULL;
    int rc = pm_snapshot_read(&sm, i, &snap, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      continue;
    }
    if (rc) return rc;
    int hit = snap->commit_kind && !strcmp(snap->commit_kind, "COMPACT") &&
              (!s->full_compacted || snap->commit_identifier % s->delta_commits == 0 ||
               snap->commit_identifier == INT64_MAX);
    pm_snapshot_free(snap);
    if (hit) {
      *id = i;
      return 0;
    }
  }
  *id = l;
  return 0;
}

/* The latest snapshot older than millis (Java earlierThanTimeMills, exclusive); earliest - 1 when none
 * is; 0 with *found = 0 when the table has no snapshot. */
static int earlier_than(pm_stream_scan *s, int64_t millis, int64_t *id, int *found, pm_error *err) {
  pm_snapshot_manager sm = sm_of(s);
  int64_t e = 0, l = 0;
  *found = 0;
  PM_TRY(pm_snapshot_latest_id(&sm, &l, err));
  if (!l) return 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &e, err));
  pm_snapshot *snap = NULL;
  PM_TRY(pm_snapshot_read_at_or_before(&sm, millis - 1, &snap, err));
  *id = snap ? snap->id : (e ? e - 1 : l - 1);
  *found = 1;
  pm_snapshot_free(snap);
  return 0;
}

/* Java initScanner: the starting scanner's constructor (consumer progress first). */
static int init_start(pm_stream_scan *s, pm_error *err) {
  pm_table *t = s->t;
  pm_snapshot_manager sm = sm_of(s);
  if (t->co.consumer_id && !t->co.consumer_ignore_progress) {
    int64_t next = 0;
    int rc = pm_consumer_read(&sm, t->co.consumer_id, &next, err);
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
    } else if (rc) {
      return rc;
    } else {
      s->start = START_FROM_SNAPSHOT;
      s->start_id = next;
    }
  }
  if (s->start == START_FROM_CREATION) {
    int64_t start = 0;
    PM_TRY(pm_scan_creation_start(t, &start, err));
    s->start = start ? START_FROM_SNAPSHOT : START_FILE_CREATION_TIME;
    s->start_id = start;
  }
  s->start_snapshot = 0;
  if (s->start == START_LATEST_FULL || s->start == START_LATEST)
    PM_TRY(pm_snapshot_latest_id(&sm, &s->start_snapshot, err));
  if (s->start == START_FROM_TIMESTAMP) {
    int found = 0;
    int64_t id = 0;
    PM_TRY(earlier_than(s, s->start_millis, &id, &found, err));
    s->start_snapshot = found ? id : -1; /* -1: unresolved (no snapshot yet) */
  }
  s->initialized = 1;
  return 0;
}

static int full_plan(pm_stream_scan *s, int64_t id, pm_plan **out, pm_error *err) {
  pm_snapshot_manager sm = sm_of(s);
  pm_snapshot *snap = NULL;
  int rc = pm_snapshot_read(&sm, id, &snap, err);
  if (rc == PAIMON_ERR_NOT_FOUND) pm_error_prefix(err, "stream scan of %s.%s: starting snapshot: ", s->t->database, s->t->name);
  if (rc) return rc;
  rc = pm_scan_plan_stream_full(s->t, s->filter, snap, s->level_min, out, err);
  if (!rc) {
    take_watermark(s, snap);
    s->next = id + 1;
    s->finished = bounded_end(s, snap);
  }
  pm_snapshot_free(snap);
  return rc;
}

/* Java tryFirstPlan. */
static int first_plan(pm_stream_scan *s, pm_plan **out, pm_error *err) {
  if (!s->initialized) PM_TRY(init_start(s, err));
  pm_snapshot_manager sm = sm_of(s);
  int64_t e = 0, l = 0, id = 0;
  switch (s->start) {
    case START_LATEST_FULL:
      if (!s->start_snapshot) PM_TRY(pm_snapshot_latest_id(&sm, &s->start_snapshot, err));
      if (!s->start_snapshot) return empty_plan(out, err);
      return full_plan(s, s->start_snapshot, out, err);
    case START_COMPACTED_FULL:
      PM_TRY(pick_compacted(s, &id, err));
      if (!id) return empty_plan(out, err);
      return full_plan(s, id, out, err);
    case START_FILE_CREATION_TIME:
    case START_FROM_CREATION:
      PM_TRY(pm_snapshot_latest_id(&sm, &l, err));
      if (!l) return empty_plan(out, err);
      return full_plan(s, l, out, err);
    case START_FROM_SNAPSHOT_FULL:
      PM_TRY(pm_snapshot_earliest_id(&sm, &e, err));
      if (!e) return empty_plan(out, err);
      return full_plan(s, s->start_id > e ? s->start_id : e, out, err);
    case START_LATEST:
      PM_TRY(pm_snapshot_latest_id(&sm, &l, err));
      if (!l) return empty_plan(out, err);
      s->next = s->start_snapshot ? l + 1 : 1;
      break;
    case START_FROM_SNAPSHOT:
      if (s->decoupled) PM_TRY(pm_long_lived_changelog_earliest(s->t, &e, err));
      if (!e) PM_TRY(pm_snapshot_earliest_id(&sm, &e, err));
      if (!e) return empty_plan(out, err);
      s->next = s->start_id > e ? s->start_id : e;
      break;
    case START_FROM_TIMESTAMP:
      if (s->start_snapshot < 0) {
        int found = 0;
        PM_TRY(earlier_than(s, s->start_millis, &id, &found, err));
        if (!found) return empty_plan(out, err);
        s->start_snapshot = id;
      }
      s->next = s->start_snapshot + 1;
      break;
  }
  /* NextSnapshot: the input may already be over */
  int exists = 0;
  PM_TRY(pm_snapshot_exists(&sm, s->next - 1, &exists, err));
  if (exists && s->t->co.set[PM_CO_SCAN_BOUNDED_WATERMARK]) {
    pm_snapshot *snap = NULL;
    PM_TRY(pm_snapshot_read(&sm, s->next - 1, &snap, err));
    s->finished = bounded_end(s, snap);
    pm_snapshot_free(snap);
  }
  return empty_plan(out, err);
}

/* Java NextSnapshotFetcher.rangeCheck. */
static int range_check(pm_stream_scan *s, pm_error *err) {
  pm_snapshot_manager sm = sm_of(s);
  int64_t e = 0, l = 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &e, err));
  PM_TRY(pm_snapshot_latest_id(&sm, &l, err));
  if (!e || e <= s->next) {
    if ((!e && s->next > 1) || (l && s->next > l + 1))
      return pm_errorf(err, PAIMON_ERR_NOT_FOUND,
                       "stream scan of %s.%s: the next snapshot %lld is past the latest snapshot %lld + 1 (was the "
                       "table recreated?)",
                       s->t->database, s->t->name, (long long)s->next, (long long)l);
    return 0;
  }
  if (s->decoupled) return 0; /* Java: no expiry error when the changelog lifecycle is decoupled */
  return pm_errorf(err, PAIMON_ERR_NOT_FOUND,
                   "stream scan of %s.%s: the next snapshot %lld has expired (snapshots now range over [%lld, %lld]); "
                   "retain snapshots longer (snapshot.time-retained, snapshot.num-retained.min) or read with a "
                   "consumer-id so that unread snapshots are kept",
                   s->t->database, s->t->name, (long long)s->next, (long long)e, (long long)l);
}

/* Java nextPlan. */
static int next_plan(pm_stream_scan *s, pm_plan **out, pm_error *err) {
  pm_snapshot_manager sm = sm_of(s);
  for (;;) {
    if (s->finished) return empty_plan(out, err);
    pm_snapshot *snap = NULL;
    int rc = pm_snapshot_read(&sm, s->next, &snap, err);
    if (rc == PAIMON_ERR_NOT_FOUND && s->decoupled) { /* an expired snapshot's long-lived changelog */
      pm_error_clear(err);
      rc = pm_long_lived_changelog_read(s->t, s->next, &snap, err);
    }
    if (rc == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      if (++s->misses % RANGE_CHECK_INTERVAL == 0) PM_TRY(range_check(s, err));
      return empty_plan(out, err);
    }
    if (rc) return rc;
    s->misses = 0;
    if (bounded_end(s, snap)) {
      s->finished = 1;
      pm_snapshot_free(snap);
      return empty_plan(out, err);
    }
    if (s->t->co.set[PM_CO_STREAMING_READ_SNAPSHOT_DELAY] &&
        snap->time_millis > wall_ms() - s->t->co.streaming_read_snapshot_delay_ms) {
      pm_snapshot_free(snap);
      return empty_plan(out, err);
    }
    const char *kind = snap->commit_kind ? snap->commit_kind : "";
    int scan_it = -1; /* -1: skip; 0: delta; 1: changelog; 2: an overwrite's changes (primary keys) */
    if (!strcmp(kind, "OVERWRITE") && s->read_overwrite) scan_it = pm_table_has_pk(s->t) ? 2 : 0;
    else if (s->changelog && snap->changelog_manifest_list) scan_it = 1;
    else if (!s->changelog && !strcmp(kind, "APPEND")) scan_it = 0;
    if (scan_it < 0) {
      s->next++;
      pm_snapshot_free(snap);
      continue;
    }
    pm_plan *p = NULL;
    rc = scan_it == 2 ? pm_scan_plan_stream_changes(s->t, s->filter, snap, &p, err)
                      : pm_scan_plan_stream_delta(s->t, s->filter, snap, scan_it, &p, err);
    if (!rc) take_watermark(s, snap);
    pm_snapshot_free(snap);
    if (rc) return rc;
    s->next++;
    if (!p->n_splits && !p->n_incremental_splits) {
      pm_plan_free(p);
      continue;
    }
    *out = p;
    return 0;
  }
}

int pm_stream_scan_plan(pm_stream_scan *s, pm_plan **out, pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(s->t, err));
  return s->next ? next_plan(s, out, err) : first_plan(s, out, err);
}

int pm_stream_scan_finished(const pm_stream_scan *s) { return s->finished; }

int pm_stream_scan_checkpoint(const pm_stream_scan *s, int64_t *next) {
  if (!s->next) return 0;
  if (next) *next = s->next;
  return 1;
}

void pm_stream_scan_restore(pm_stream_scan *s, int64_t next) {
  s->next = next > 0 ? next : 0;
  s->misses = 0;
}

int pm_stream_scan_watermark(const pm_stream_scan *s, int64_t *wm) {
  if (!s->has_wm) return 0;
  if (wm) *wm = s->wm;
  return 1;
}

int pm_stream_scan_notify_checkpoint_complete(pm_stream_scan *s, int64_t next, pm_error *err) {
  if (!s->t->co.consumer_id) return 0;
  pm_snapshot_manager sm = sm_of(s);
  int rc = pm_consumer_reset(&sm, s->t->co.consumer_id, next, err);
  if (rc) pm_error_prefix(err, "stream scan of %s.%s: saving consumer progress: ", s->t->database, s->t->name);
  return rc;
}

int64_t pm_stream_scan_discovery_interval_ms(const pm_stream_scan *s) {
  return s->t->co.continuous_discovery_interval_ms;
}
