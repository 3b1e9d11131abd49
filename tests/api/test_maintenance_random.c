/*
 * Randomized table maintenance (issue 13 §5): random sequences interleave writes (appends,
 * primary-key upserts, partition overwrites) to the main branch and to branches, dedicated
 * compactions, tag create / delete (with its file cleanup) / rename, branch create (from a tag,
 * a snapshot, empty) / delete, rollbacks to a snapshot or a tag, consumer resets and deletes,
 * snapshot expiry (retain-max, expire limit, decoupled changelog retention), partition expiry
 * and orphan cleanup (older than now), all through the public API, on five table layouts
 * (append unaware-bucket, append fixed-bucket, primary-key, primary-key with deletion vectors,
 * primary-key with an input changelog). A model keeps the rows of every retained snapshot, tag,
 * branch snapshot and the consumers; it predicts which snapshots each expiry and rollback keeps.
 * After every step our reader returns exactly the model's rows for every retained snapshot,
 * tag and branch snapshot, the snapshot / tag / branch / consumer lists equal the model's, and
 * every file a snapshot, tag, long-lived changelog or branch needs exists (table_files walker).
 * At the end of each sequence an orphan cleanup runs and `paimon-table check` passes with no
 * orphan left and `paimon-table read` returns the model's rows of the latest snapshot and of a
 * tag and a branch (sampled steps mid-sequence too with PAIMON_LONG_TESTS=1).
 *
 * make test: 4 sequences of 30 steps; PAIMON_LONG_TESTS=1: 200 sequences of 40 steps.
 * A failure prints the layout and seed (MR_SEED=N reruns one, MR_STEPS=N sets the length).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/branch.h"
#include "paimon/cleanup.h"
#include "paimon/compact.h"
#include "paimon/expire.h"
#include "paimon/maintenance.h"
#include "paimon/tag.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/expire_check.h"
#include "table/expire.h"

typedef struct layout {
  const char *name;
  int pk, changelog;
  const char *opts[5];
  size_t n_opts;
} layout;

static const layout LAYOUTS[] = {
    {"append", 0, 0, {"bucket=-1"}, 1},
    {"append-fixed", 0, 0, {"bucket=2", "bucket-key=id"}, 2},
    {"pk", 1, 0, {"bucket=2", "primary-key=dt,id"}, 2},
    {"pk-dv", 1, 0, {"bucket=2", "primary-key=dt,id", "deletion-vectors.enabled=true"}, 3},
    {"pk-changelog", 1, 1, {"bucket=2", "primary-key=dt,id", "changelog-producer=input"}, 3},
};
#define N_LAYOUTS (sizeof LAYOUTS / sizeof LAYOUTS[0])

static const char *const DTS[] = {"2020-01-01", "2020-01-02", "2999-12-30", "2999-12-31"};

static char tmp_root[256];
static int long_mode;
static uint64_t rng;
static unsigned rnd(unsigned n) {
  rng = rng * 6364136223846793005ULL + 1442695040888963407ULL;
  return n ? (unsigned)((rng >> 33) % n) : 0;
}

/* ------------------------------------------------------------------ model */

/* A branch line: snapshot id (decimal text) -> rows. */
typedef struct line {
  char name[32]; /* "" = main */
  json_t *snaps;
  json_t *nopick; /* ids whose reads differ from their committed data (deletion vectors) */
} line;

typedef struct model {
  const layout *lay;
  line main;
  line branches[4];
  size_t n_branches;
  json_t *tags;      /* name -> {"id": n, "rows": [...]} */
  json_t *consumers; /* id -> next snapshot */
  int next_name;     /* tag / branch / consumer names */
  int batch;
} model;

static long long line_latest(const line *l) {
  long long hi = 0;
  const char *k;
  json_t *v;
  json_object_foreach(l->snaps, k, v) if (atoll(k) > hi) hi = atoll(k);
  return hi;
}
static long long line_earliest(const line *l) {
  long long lo = 0;
  const char *k;
  json_t *v;
  json_object_foreach(l->snaps, k, v) if (!lo || atoll(k) < lo) lo = atoll(k);
  return lo;
}
static json_t *line_rows(const line *l, long long id) {
  char k[32];
  snprintf(k, sizeof k, "%lld", id);
  return json_object_get(l->snaps, k);
}
static void line_set(line *l, long long id, json_t *rows) {
  char k[32];
  snprintf(k, sizeof k, "%lld", id);
  json_object_set(l->snaps, k, rows);
  if (!l->nopick) l->nopick = json_object();
  json_object_del(l->nopick, k);
}
static void line_free(line *l) {
  json_decref(l->snaps);
  json_decref(l->nopick);
  l->snaps = l->nopick = NULL;
}
static void line_drop(line *l, long long id) {
  char k[32];
  snprintf(k, sizeof k, "%lld", id);
  json_object_del(l->snaps, k);
}
/* A random retained snapshot id of l whose rows are modelled (0 when none). */
static long long line_pick(const line *l) {
  size_t n = json_object_size(l->snaps);
  if (!n) return 0;
  long long e = line_earliest(l), k = (long long)rnd((unsigned)n);
  for (long long i = 0; i < (long long)n; i++) {
    long long id = e + (k + i) % (long long)n;
    char key[32];
    snprintf(key, sizeof key, "%lld", id);
    if (json_is_array(line_rows(l, id)) && !json_object_get(l->nopick, key)) return id;
  }
  return 0;
}

/* rows with the rows of `add` applied: appended (append tables) or upserted by (dt, id). */
static json_t *apply_rows(const json_t *rows, const json_t *add, int pk, const char *overwrite_dt) {
  json_t *out = json_array();
  size_t i, j;
  json_t *r, *a;
  json_array_foreach(rows, i, r) {
    const char *dt = json_string_value(json_object_get(r, "dt"));
    if (overwrite_dt && dt && !strcmp(dt, overwrite_dt)) continue;
    int replaced = 0;
    if (pk)
      json_array_foreach(add, j, a) if (json_equal(json_object_get(r, "dt"), json_object_get(a, "dt")) &&
                                        json_equal(json_object_get(r, "id"), json_object_get(a, "id"))) replaced = 1;
    if (!replaced) json_array_append(out, r);
  }
  json_array_foreach(add, j, a) json_array_append(out, a);
  return out;
}

/* Rows without the old partitions (values before 2999: partition expiry drops them). */
static json_t *drop_old(const json_t *rows, int *n_old) {
  json_t *out = json_array();
  const char *seen[8];
  int ns = 0;
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) {
    const char *dt = json_string_value(json_object_get(r, "dt"));
    if (dt && strncmp(dt, "2999", 4) < 0) {
      int k = 0;
      while (k < ns && strcmp(seen[k], dt)) k++;
      if (k == ns && ns < 8) seen[ns++] = dt;
      continue;
    }
    json_array_append(out, r);
  }
  *n_old = ns;
  return out;
}

/* ------------------------------------------------------------------ table access */

static paimon_catalog *cat;
static char ident[128], dir[512];

static paimon_table *open_line(const line *l) {
  char id[200];
  if (l->name[0]) snprintf(id, sizeof id, "%s$branch_%s", ident, l->name);
  else snprintf(id, sizeof id, "%s", ident);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, id, &t, &err), &err);
  return t;
}

static long long latest_of(const paimon_table *t) {
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  int64_t id = 0;
  pm_error err = {0};
  CHECK_OK(pm_snapshot_latest_id(&sm, &id, &err), &err);
  return (long long)id;
}

/* Rows of a random batch: 1..4 rows in one partition, distinct ids (upserts hit earlier keys). */
static json_t *make_batch(model *m, const char **dt_out) {
  const char *dt = DTS[rnd(4)];
  *dt_out = dt;
  json_t *rows = json_array();
  int n = 1 + (int)rnd(4), base = (int)rnd(12);
  m->batch++;
  for (int i = 0; i < n; i++) {
    json_t *r = json_object();
    json_object_set_new(r, "id", json_integer(m->lay->pk ? (base + 3 * i) % 12 : m->batch * 10 + i));
    char v[32];
    snprintf(v, sizeof v, "b%d-%d", m->batch, i);
    json_object_set_new(r, "v", json_string(v));
    json_object_set_new(r, "dt", json_string(dt));
    json_array_append_new(rows, r);
  }
  return rows;
}

static char *to_lines(const json_t *rows) {
  size_t len = 0, i;
  char *out = calloc(1, 1);
  json_t *r;
  json_array_foreach(rows, i, r) {
    char *s = json_dumps(r, JSON_COMPACT);
    size_t n = strlen(s);
    out = realloc(out, len + n + 2);
    memcpy(out + len, s, n);
    out[len + n] = '\n';
    out[len += n + 1] = 0;
    free(s);
  }
  return out;
}

static int g_dv; /* the table has deletion vectors */

/* Every snapshot above `before` that the operation committed on l reads as `rows`; with deletion
 * vectors, whose reads skip level-0 files (Java's), an APPEND below the writer's COMPACT reads as
 * before and any other such snapshot is not modelled (json null: existence only); neither is
 * picked for tags, branches, rollbacks or consumers (their level-0 data shows once compacted). */
static void record_new(line *l, const paimon_table *t, long long before, json_t *rows) {
  long long now = latest_of(t);
  json_t *prev = before ? line_rows(l, before) : NULL;
  json_t *empty = json_array();
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  for (long long id = before + 1; id <= now; id++) {
    json_t *r = rows;
    if (g_dv && id < now) {
      pm_snapshot *s = NULL;
      pm_error e = {0};
      CHECK_OK(pm_snapshot_read(&sm, id, &s, &e), &e);
      r = s && !strcmp(s->commit_kind, "APPEND") ? (prev ? prev : empty) : json_null();
      pm_snapshot_free(s);
    }
    line_set(l, id, r);
    if (g_dv && id < now) {
      char key[32];
      snprintf(key, sizeof key, "%lld", id);
      json_object_set_new(l->nopick, key, json_true());
    }
  }
  json_decref(empty);
}

/* ------------------------------------------------------------------ steps */

static char step_what[256];

static void st_write(model *m, line *l, int overwrite) {
  paimon_table *t = open_line(l);
  if (!t) return;
  const char *dt = NULL;
  json_t *add = make_batch(m, &dt);
  char *text = to_lines(add);
  long long before = latest_of(t);
  json_t *cur = before ? line_rows(l, before) : NULL;
  json_t *empty = json_array();
  json_t *next = apply_rows(json_is_array(cur) ? cur : empty, add, m->lay->pk, overwrite ? dt : NULL);
  paimon_option spec = {"dt", dt};
  paimon_error err = {0};
  int64_t sid = -1;
  CHECK_MSG(ow_write_commit(t, NULL, 0, 0, text, overwrite ? &spec : NULL, overwrite ? 1 : 0, overwrite, &sid,
                            &err) == 0,
            "%s: %s", step_what, err.message);
  CHECK_MSG(sid > before, "%s: snapshot %lld after %lld", step_what, (long long)sid, before);
  record_new(l, t, before, next);
  json_decref(next);
  json_decref(empty);
  json_decref(add);
  free(text);
  paimon_table_free(t);
}

static void st_compact(model *m) {
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  o.full = (int)rnd(2);
  paimon_compact_result r;
  paimon_error err = {0};
  long long before = latest_of(t);
  CHECK_MSG(paimon_table_compact(t, &o, &r, &err) == 0, "%s: %s", step_what, err.message);
  if (r.snapshot_id >= 0) {
    CHECK_EQ_INT(r.snapshot_id, latest_of(t));
    record_new(&m->main, t, before, line_rows(&m->main, before));
  } else {
    CHECK_EQ_INT(latest_of(t), before);
  }
  paimon_table_free(t);
}

static const char *pick_tag(model *m) {
  size_t n = json_object_size(m->tags);
  if (!n) return NULL;
  size_t k = rnd((unsigned)n), i = 0;
  const char *name;
  json_t *v;
  json_object_foreach(m->tags, name, v) if (i++ == k) return name;
  return NULL;
}

static void st_tag_create(model *m) {
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  char name[32];
  snprintf(name, sizeof name, "tg%d", m->next_name++);
  long long id = rnd(2) ? line_pick(&m->main) : -1;
  long long want = id > 0 ? id : line_latest(&m->main);
  paimon_error err = {0};
  int rc = paimon_table_create_tag(t, name, id > 0 ? id : -1, NULL, 0, &err);
  if (!want) {
    CHECK_MSG(rc == PAIMON_ERR_NOT_FOUND, "%s: tag of an empty table: %d %s", step_what, rc, err.message);
  } else {
    CHECK_MSG(rc == 0, "%s: %s", step_what, err.message);
    json_t *tag = json_object();
    json_object_set_new(tag, "id", json_integer(want));
    json_object_set(tag, "rows", line_rows(&m->main, want));
    json_object_set_new(m->tags, name, tag);
  }
  paimon_table_free(t);
}

static void st_tag_delete(model *m) {
  const char *name = pick_tag(m);
  if (!name) return;
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  paimon_error err = {0};
  CHECK_MSG(paimon_table_delete_tag(t, name, &err) == 0, "%s: %s %s", step_what, name, err.message);
  json_object_del(m->tags, name);
  paimon_table_free(t);
}

static void st_tag_rename(model *m) {
  const char *name = pick_tag(m);
  if (!name) return;
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  char to[32];
  snprintf(to, sizeof to, "tg%d", m->next_name++);
  paimon_error err = {0};
  CHECK_MSG(paimon_table_rename_tag(t, name, to, &err) == 0, "%s: %s -> %s: %s", step_what, name, to, err.message);
  json_t *v = json_incref(json_object_get(m->tags, name));
  json_object_del(m->tags, name);
  json_object_set_new(m->tags, to, v);
  paimon_table_free(t);
}

static void st_branch_create(model *m) {
  if (m->n_branches == 4) return;
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  line *b = &m->branches[m->n_branches];
  snprintf(b->name, sizeof b->name, "br%d", m->next_name++);
  b->snaps = json_object();
  const char *tag = rnd(2) ? pick_tag(m) : NULL;
  long long id = tag ? -1 : rnd(4) ? line_pick(&m->main) : -1;
  paimon_error err = {0};
  CHECK_MSG(paimon_table_create_branch(t, b->name, tag, id > 0 ? id : -1, 0, &err) == 0, "%s: %s", step_what,
            err.message);
  if (tag) {
    json_t *tv = json_object_get(m->tags, tag);
    line_set(b, json_integer_value(json_object_get(tv, "id")), json_object_get(tv, "rows"));
  } else if (id > 0) {
    line_set(b, id, line_rows(&m->main, id));
  }
  m->n_branches++;
  paimon_table_free(t);
}

static void st_branch_delete(model *m) {
  if (!m->n_branches) return;
  size_t k = rnd((unsigned)m->n_branches);
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  paimon_error err = {0};
  CHECK_MSG(paimon_table_delete_branch(t, m->branches[k].name, &err) == 0, "%s: %s", step_what, err.message);
  line_free(&m->branches[k]);
  m->branches[k] = m->branches[--m->n_branches];
  paimon_table_free(t);
}

/* Rollback: the snapshots above the target and the tags of later snapshots go (Java's
 * RollbackHelper); a tag whose snapshot expired is written back as the only snapshot. */
static void st_rollback(model *m) {
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  const char *tag = rnd(3) == 0 ? pick_tag(m) : NULL;
  long long target = 0;
  json_t *rows = NULL;
  paimon_error err = {0};
  int rc;
  if (tag) {
    json_t *tv = json_object_get(m->tags, tag);
    target = json_integer_value(json_object_get(tv, "id"));
    rows = json_incref(json_object_get(tv, "rows"));
    rc = paimon_table_rollback_to_tag(t, tag, &err);
  } else {
    target = line_pick(&m->main);
    if (!target) {
      paimon_table_free(t);
      return;
    }
    rows = json_incref(line_rows(&m->main, target));
    rc = paimon_table_rollback_to_snapshot(t, target, &err);
  }
  CHECK_MSG(rc == 0, "%s: to %s %lld: %s", step_what, tag ? tag : "snapshot", target, err.message);
  long long hi = line_latest(&m->main);
  for (long long id = line_earliest(&m->main); id <= hi; id++)
    if (id > target) line_drop(&m->main, id);
  if (!line_rows(&m->main, target)) { /* an expired tag snapshot: the only one now */
    json_object_clear(m->main.snaps);
    json_object_clear(m->main.nopick);
    line_set(&m->main, target, rows);
  }
  const char *name;
  json_t *v, *tmp;
  json_object_foreach_safe(m->tags, tmp, name, v) if (json_integer_value(json_object_get(v, "id")) > target)
      json_object_del(m->tags, name);
  json_decref(rows);
  paimon_table_free(t);
}

static void st_consumer(model *m, int del) {
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  paimon_error err = {0};
  if (del) {
    size_t n = json_object_size(m->consumers), k = rnd((unsigned)n + 1), i = 0;
    const char *id;
    json_t *v;
    json_object_foreach(m->consumers, id, v) if (i++ == k) break;
    if (id && k < n) {
      char copy[32];
      snprintf(copy, sizeof copy, "%s", id);
      CHECK_MSG(paimon_table_delete_consumer(t, copy, &err) == 0, "%s: %s", step_what, err.message);
      json_object_del(m->consumers, copy);
    }
  } else {
    long long next = line_pick(&m->main);
    if (next) {
      char id[32];
      snprintf(id, sizeof id, "c%u", rnd(3));
      CHECK_MSG(paimon_table_reset_consumer(t, id, next, &err) == 0, "%s: %s", step_what, err.message);
      json_object_set_new(m->consumers, id, json_integer(next));
    }
  }
  paimon_table_free(t);
}

/* Expiry with retain-max N (retain-min 1, everything young enough: only the counts decide):
 * [E, end) goes, end = max(E, L - N + 1) capped by E + limit and by each consumer's next
 * snapshot. The changelog table keeps a longer changelog retention sometimes (decoupled). */
static void st_expire(model *m) {
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  paimon_expire_options o;
  paimon_expire_options_init(&o);
  o.retain_max = 1 + (int)rnd(4);
  o.retain_min = 1;
  o.time_retained_millis = 10LL * 86400 * 1000;
  o.max_deletes = rnd(3) ? 1000 : 1 + (int)rnd(2);
  if (m->lay->changelog && rnd(2)) {
    o.changelog_retain_max = o.retain_max + 1 + (int)rnd(3);
    o.changelog_retain_min = 1;
    o.changelog_time_retained_millis = o.time_retained_millis;
  }
  paimon_expire_result r;
  paimon_error err = {0};
  CHECK_MSG(paimon_table_expire_snapshots(t, &o, NULL, NULL, &r, &err) == 0, "%s: %s", step_what, err.message);
  long long e = line_earliest(&m->main), l = line_latest(&m->main);
  if (l) {
    long long end = l - o.retain_max + 1;
    if (end < e) end = e;
    if (end > e + o.max_deletes) end = e + o.max_deletes;
    const char *id;
    json_t *v;
    json_object_foreach(m->consumers, id, v) if (json_integer_value(v) < end) end = json_integer_value(v);
    for (long long s = e; s < end; s++) line_drop(&m->main, s);
    CHECK_MSG(r.earliest_snapshot == (end > e ? end : e), "%s: earliest %lld, model %lld", step_what,
              (long long)r.earliest_snapshot, end > e ? end : e);
  }
  paimon_table_free(t);
}

static void st_partition_expire(model *m) {
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  paimon_expire_partitions_options o;
  memset(&o, 0, sizeof o);
  o.expiration_time = "1 d";
  o.timestamp_formatter = "yyyy-MM-dd";
  o.expire_strategy = "values-time";
  paimon_expire_partitions_result r;
  paimon_error err = {0};
  long long before = latest_of(t);
  CHECK_MSG(paimon_table_expire_partitions(t, &o, NULL, NULL, &r, &err) == 0, "%s: %s", step_what, err.message);
  int n_old = 0;
  json_t *cur = before ? line_rows(&m->main, before) : NULL;
  json_t *next = cur ? drop_old(cur, &n_old) : NULL;
  CHECK_MSG((long long)r.expired == n_old, "%s: %llu partitions expired, model %d", step_what,
            (unsigned long long)r.expired, n_old);
  if (n_old) {
    CHECK_MSG(r.snapshot_id > before, "%s: no snapshot", step_what);
    record_new(&m->main, t, before, next);
  } else {
    CHECK_EQ_INT(r.snapshot_id, -1);
  }
  json_decref(next);
  paimon_table_free(t);
}

static void st_orphans(model *m) {
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  usleep(2000); /* every file written so far is older than now - 1 ms */
  paimon_orphan_result r;
  paimon_error err = {0};
  CHECK_MSG(paimon_table_remove_orphan_files(t, pm_expire_now_ms() - 1, 0, NULL, NULL, NULL, &r, &err) == 0, "%s: %s",
            step_what, err.message);
  paimon_table_free(t);
}

/* ------------------------------------------------------------------ verification */

static int names_equal(char **names, size_t n, const json_t *obj) {
  if (n != json_object_size(obj)) return 0;
  for (size_t i = 0; i < n; i++)
    if (!json_object_get(obj, names[i])) return 0;
  return 1;
}

static void verify_line(const line *l, const char *what) {
  paimon_table *t = open_line(l);
  if (!t) return;
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  int64_t *ids = NULL;
  size_t n = 0;
  pm_error e = {0};
  CHECK_OK(pm_snapshot_list_ids(&sm, &ids, &n, &e), &e);
  int same = n == json_object_size(l->snaps);
  for (size_t i = 0; i < n && same; i++) same = line_rows(l, ids[i]) != NULL;
  CHECK_MSG(same, "%s: %s has %zu snapshots (%lld..%lld), model %zu (%lld..%lld)", what, l->name[0] ? l->name : "main",
            n, n ? (long long)ids[0] : 0, n ? (long long)ids[n - 1] : 0, json_object_size(l->snaps),
            line_earliest(l), line_latest(l));
  free(ids);
  const char *k;
  json_t *rows;
  json_object_foreach(l->snaps, k, rows) {
    if (json_is_null(rows)) continue;
    json_t *got = ec_ours(t, atoll(k), NULL);
    char msg[4096];
    CHECK_MSG(got && ot_rows_match(rows, got, msg, sizeof msg), "%s: %s snapshot %s: %s", what,
              l->name[0] ? l->name : "main", k, got ? msg : "unreadable");
    json_decref(got);
  }
  paimon_table_free(t);
}

static void verify(model *m, const char *what) {
  verify_line(&m->main, what);
  for (size_t i = 0; i < m->n_branches; i++) verify_line(&m->branches[i], what);
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  paimon_error err = {0};
  char **names = NULL;
  size_t n = 0;
  CHECK_OK(paimon_table_list_tags(t, &names, &n, &err), &err);
  CHECK_MSG(names_equal(names, n, m->tags), "%s: %zu tags, model %zu", what, n, json_object_size(m->tags));
  paimon_free_strings(names, n);
  const char *name;
  json_t *tv;
  json_object_foreach(m->tags, name, tv) {
    int64_t id = -1;
    CHECK_MSG(paimon_table_get_tag(t, name, &id, NULL, &err) == 0, "%s: tag %s: %s", what, name, err.message);
    CHECK_MSG(id == json_integer_value(json_object_get(tv, "id")), "%s: tag %s on %lld", what, name, (long long)id);
    if (json_is_null(json_object_get(tv, "rows"))) continue;
    json_t *got = ec_ours(t, id, name);
    char msg[4096];
    CHECK_MSG(got && ot_rows_match(json_object_get(tv, "rows"), got, msg, sizeof msg), "%s: tag %s: %s", what, name,
              got ? msg : "unreadable");
    json_decref(got);
  }
  CHECK_OK(paimon_table_list_branches(t, &names, &n, &err), &err);
  int same = n == m->n_branches;
  for (size_t i = 0; i < n && same; i++) {
    same = 0;
    for (size_t j = 0; j < m->n_branches; j++) same |= !strcmp(names[i], m->branches[j].name);
  }
  CHECK_MSG(same, "%s: %zu branches, model %zu", what, n, m->n_branches);
  paimon_free_strings(names, n);
  paimon_consumer *cs = NULL;
  CHECK_OK(paimon_table_list_consumers(t, &cs, &n, &err), &err);
  same = n == json_object_size(m->consumers);
  for (size_t i = 0; i < n && same; i++)
    same = json_integer_value(json_object_get(m->consumers, cs[i].id)) == cs[i].next_snapshot;
  CHECK_MSG(same, "%s: %zu consumers, model %zu", what, n, json_object_size(m->consumers));
  paimon_consumers_free(cs, n);
  ec_files needed;
  ec_files_collect(t->t, &needed);
  CHECK_MSG(needed.missing == 0, "%s: %zu needed files missing, first %s", what, needed.missing, needed.first_missing);
  ec_files_free(&needed);
  paimon_table_free(t);
}

typedef struct allow_list {
  char lines[16][300];
  size_t n;
} allow_list;

static void allow_one(pm_table *t, const char *prefix, const char *what, const pm_snapshot *s, allow_list *al) {
  if (!s->changelog_manifest_list || al->n == 16) return;
  char p[1200];
  snprintf(p, sizeof p, "%s/manifest/%s", dir, s->changelog_manifest_list);
  (void)t;
  if (!access(p, F_OK)) return;
  snprintf(al->lines[al->n++], sizeof al->lines[0], "%s%s: references manifest-list %s,", prefix, what,
           s->changelog_manifest_list);
}

/* The oracle's FAIL lines for the dangling changelog pointers of t's snapshots and tags. */
static void allow_dangling(pm_table *t, const char *prefix, allow_list *al) {
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_error e = {0};
  int64_t *ids = NULL;
  size_t n = 0;
  CHECK_OK(pm_snapshot_list_ids(&sm, &ids, &n, &e), &e);
  for (size_t i = 0; i < n; i++) {
    pm_snapshot *s = NULL;
    char what[64];
    snprintf(what, sizeof what, "snapshot/snapshot-%lld", (long long)ids[i]);
    if (!pm_snapshot_read(&sm, ids[i], &s, &e)) allow_one(t, prefix, what, s, al);
    pm_snapshot_free(s);
  }
  free(ids);
  char **tags = NULL;
  CHECK_OK(pm_tag_list(&sm, &tags, &n, &e), &e);
  for (size_t i = 0; i < n; i++) {
    pm_snapshot *s = NULL;
    char what[128];
    snprintf(what, sizeof what, "tag/tag-%s", tags[i]);
    if (!pm_tag_read(&sm, tags[i], &s, &e)) allow_one(t, prefix, what, s, al);
    pm_snapshot_free(s);
  }
  pm_free_names(tags, n);
}

/* The oracle: paimon-table check (no orphan unless strict is 0) and reads of the latest
 * snapshot, a tag and a branch. */
static void oracle(model *m, int strict, const char *what) {
  paimon_table *t = open_line(&m->main);
  if (!t) return;
  ec_files needed;
  ec_files_collect(t->t, &needed);
  /* a tag of a snapshot that expired (and a branch snapshot made from one, or a snapshot a
   * rollback wrote back from such a tag) keeps its changelog pointer, the list deleted with the
   * snapshot as Java's expiry does (the oracle flags those) */
  allow_list al;
  memset(&al, 0, sizeof al);
  allow_dangling(t->t, "", &al);
  for (size_t i = 0; i < m->n_branches; i++) {
    pm_table *bt = NULL;
    pm_error e = {0};
    char prefix[64];
    snprintf(prefix, sizeof prefix, "branch/branch-%s/", m->branches[i].name);
    CHECK_OK(pm_table_reopen(t->t, m->branches[i].name, NULL, &bt, &e), &e);
    if (bt) allow_dangling(bt, prefix, &al);
    pm_table_free(bt);
  }
  const char *allow[16];
  size_t n_allow = al.n;
  for (size_t i = 0; i < al.n; i++) allow[i] = al.lines[i];
  CHECK(ec_check_needed_ex(dir, 0, &needed, !strict, allow, n_allow, what));
  ec_files_free(&needed);
  long long l = line_latest(&m->main);
  if (l) {
    json_t *o = ec_oracle(dir, l, NULL, tmp_root);
    char msg[4096];
    CHECK_MSG(o && ot_rows_match(line_rows(&m->main, l), o, msg, sizeof msg), "%s: paimon-table read %lld: %s", what,
              l, o ? msg : "unreadable");
    json_decref(o);
  }
  const char *tag = pick_tag(m);
  if (tag && (strict || long_mode)) {
    json_t *tv = json_object_get(m->tags, tag);
    json_t *o = ec_oracle(dir, json_integer_value(json_object_get(tv, "id")), tag, tmp_root);
    char msg[4096];
    CHECK_MSG(o && ot_rows_match(json_object_get(tv, "rows"), o, msg, sizeof msg), "%s: paimon-table read tag %s: %s",
              what, tag, o ? msg : "unreadable");
    json_decref(o);
  }
  if (m->n_branches && long_mode) {
    const line *b = &m->branches[rnd((unsigned)m->n_branches)];
    long long bl = line_latest(b);
    if (bl) {
      char extra[96];
      snprintf(extra, sizeof extra, "--branch %s", b->name);
      int rc = 0;
      json_t *o = ot_read(dir, extra, &rc, NULL);
      char msg[4096];
      CHECK_MSG(o && ot_rows_match(line_rows(b, bl), o, msg, sizeof msg), "%s: paimon-table read branch %s: %s", what,
                b->name, o ? msg : "unreadable");
      json_decref(o);
    }
  }
  paimon_table_free(t);
}

/* ------------------------------------------------------------------ sequences */

static const char *const STEP_NAMES[] = {"write",        "overwrite",     "compact",        "tag create",
                                         "tag delete",   "tag rename",    "branch create",  "branch write",
                                         "branch delete", "rollback",     "consumer reset", "consumer delete",
                                         "expire",       "partition expire", "orphan cleanup"};
static const unsigned WEIGHTS[] = {24, 6, 9, 8, 5, 3, 4, 5, 2, 5, 3, 2, 12, 4, 6};
#define N_STEPS (sizeof WEIGHTS / sizeof WEIGHTS[0])

static int run_sequence(const layout *lay, uint64_t seed, int steps, int idx) {
  int failures = pm_test_failures;
  rng = seed * 0x9E3779B97F4A7C15ULL + 7;
  g_dv = strstr(lay->name, "dv") != NULL;
  snprintf(ident, sizeof ident, "db.r%d", idx);
  snprintf(dir, sizeof dir, "%s/wh/db.db/r%d", tmp_root, idx);
  paimon_error err = {0};
  const char *opts[8];
  size_t n = 0;
  for (size_t i = 0; i < lay->n_opts; i++) opts[n++] = lay->opts[i];
  /* write-only sometimes (the dedicated compaction then does all the compacting); not with
   * deletion vectors, whose level-0 files are not read (Java's too: the data would be invisible) */
  if (rnd(2) && !strstr(lay->name, "dv")) opts[n++] = "write-only=true";
  CHECK_OK(ow_create_table(cat, "db", ident + 3, "id INT NOT NULL, v STRING, dt STRING NOT NULL", "dt", opts, n, 0,
                           &err),
           &err);
  model m;
  memset(&m, 0, sizeof m);
  m.lay = lay;
  m.main.snaps = json_object();
  m.tags = json_object();
  m.consumers = json_object();
  unsigned total = 0;
  for (size_t i = 0; i < N_STEPS; i++) total += WEIGHTS[i];
  int oracle_step = long_mode ? 1 + (int)rnd((unsigned)steps) : -1;
  for (int s = 0; s < steps && pm_test_failures == failures; s++) {
    unsigned w = rnd(total), k = 0;
    while (w >= WEIGHTS[k]) w -= WEIGHTS[k++];
    if (s < 3) k = 0; /* start with some data */
    snprintf(step_what, sizeof step_what, "%s seed %llu step %d (%s)", lay->name, (unsigned long long)seed, s,
             STEP_NAMES[k]);
    if (getenv("MR_TRACE")) fprintf(stderr, "%s (main %lld..%lld)\n", step_what, line_earliest(&m.main), line_latest(&m.main));
    switch (k) {
    case 0: st_write(&m, &m.main, 0); break;
    case 1: st_write(&m, &m.main, 1); break;
    case 2: st_compact(&m); break;
    case 3: st_tag_create(&m); break;
    case 4: st_tag_delete(&m); break;
    case 5: st_tag_rename(&m); break;
    case 6: st_branch_create(&m); break;
    case 7:
      if (m.n_branches) st_write(&m, &m.branches[rnd((unsigned)m.n_branches)], (int)rnd(4) == 0);
      break;
    case 8: st_branch_delete(&m); break;
    case 9: st_rollback(&m); break;
    case 10: st_consumer(&m, 0); break;
    case 11: st_consumer(&m, 1); break;
    case 12: st_expire(&m); break;
    case 13: st_partition_expire(&m); break;
    default: st_orphans(&m); break;
    }
    verify(&m, step_what);
    if (s == oracle_step) oracle(&m, 0, step_what);
  }
  if (pm_test_failures == failures) {
    snprintf(step_what, sizeof step_what, "%s seed %llu: the final orphan cleanup", lay->name, (unsigned long long)seed);
    st_orphans(&m);
    verify(&m, step_what);
    oracle(&m, 1, step_what);
  }
  for (size_t i = 0; i < m.n_branches; i++) line_free(&m.branches[i]);
  line_free(&m.main);
  json_decref(m.tags);
  json_decref(m.consumers);
  return pm_test_failures != failures;
}

static void test_random(void) {
  const char *one = getenv("MR_SEED");
  int runs = one ? 1 : long_mode ? 200 : 4;
  int steps = getenv("MR_STEPS") ? atoi(getenv("MR_STEPS")) : long_mode ? 40 : 30;
  int failed = 0;
  for (int i = 0; i < runs; i++) {
    uint64_t seed = one ? strtoull(one, NULL, 10) : (uint64_t)(i + 1);
    /* normal mode: the layouts most maintenance paths differ on (append, fixed buckets, DV, changelog) */
    static const int NORMAL[] = {0, 1, 3, 4};
    const layout *lay = &LAYOUTS[one || long_mode ? seed % N_LAYOUTS : (uint64_t)NORMAL[i % 4]];
    if (run_sequence(lay, seed, steps, i)) {
      fprintf(stderr, "FAILED: layout %s seed %llu (MR_SEED=%llu)\n", lay->name, (unsigned long long)seed,
              (unsigned long long)seed);
      if (++failed >= 3) break;
    }
  }
  printf("maintenance random: %d sequences of %d steps, %d failed\n", runs, steps, failed);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_maint_random_XXXXXX");
  CHECK(mkdtemp(tmp_root) != NULL);
  if (!ot_available()) {
    fprintf(stderr, "paimon-table not available: skipped\n");
    TEST_MAIN_END();
  }
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  char wh[300];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  CHECK(mkdir(wh, 0755) == 0);
  paimon_option o = {"warehouse", wh};
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  RUN_TEST(test_random);
  paimon_catalog_free(cat);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP_TMP") && !pm_test_failures) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
