/*
 * Crash tests of the primary-key writer with changelog producers (issue 12
 * §4): the crash driver (tests/api/crash_driver.c, --layout pk --upsert N,
 * table option changelog-producer = lookup, then full-compaction) writes a
 * batch per run (flush, the compaction with its changelog files, the
 * APPEND + COMPACT commit, one identifier per batch) and is stopped at fs
 * operation N of each kind in turn ("OP:N:exit=42", the operations counted
 * in one batch's flush + compaction + commit); the next run first recovers
 * the interrupted commit. After every stop:
 *   - `paimon-table check --after-crash` passes (a stale LATEST hint allowed);
 *   - no identifier is published twice, every batch printed committed is published;
 *   - our reader = the model (tests/support/pk_model.h) of the published
 *     batches; `paimon-table read` too at every 4th changed state and at the end;
 *   - the changelog is never half-visible: our incremental changelog read
 *     of every snapshot = the model's changelog: for every COMPACT snapshot
 *     of batch k and every bucket k wrote, the transitions (+I / -D / -U,+U)
 *     of the bucket's keys written since its previous logged compaction, from
 *     their rows then to the state after batch k. (A stop between the APPEND
 *     and the COMPACT snapshot of a batch leaves it without its compaction,
 *     as Java's filterCommitted does: its level-0 files are compacted, and
 *     their changelog produced, when a later batch writes their bucket.)
 * Also lookup with merge-engine = partial-update (remove-record-on-delete;
 * the driver sets every column, so the model stays deduplicate's): its
 * lookup compaction writes the looked-up records as temporary files.
 * make test: 7 stop points with lookup, 4 with full-compaction, 4 with
 * partial-update; PAIMON_LONG_TESTS=1: every operation of a batch.
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "data/bucket.h"
#include "harness.h"
#include "io/fs_fault.h"
#include "support/oracle_crash.h"
#include "support/oracle_driver.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_model.h"

#define USER "crash-user"
#define N_KEYS 12
#define ROWS 6

static char tmp_root[256];
static int long_mode;

static const pkm_column COLS[3] = {{"dt", PKM_STRING, PKM_AGG_DEFAULT, 0, -1},
                                   {"id", PKM_INT, PKM_AGG_DEFAULT, 0, -1},
                                   {"name", PKM_STRING, PKM_AGG_DEFAULT, 0, -1}};

static json_t *with_kind(const json_t *row, const char *k) {
  json_t *c = json_deep_copy(row);
  json_object_set_new(c, "_row_kind", json_string(k));
  return c;
}

/* The bucket of key id (bucket key id, 2 buckets), from FORMAT.md: the BinaryRow of the key
 * (8 header bytes, one 8-byte slot holding the INT) hashed. */
static int bucket_of(int32_t id) {
  uint8_t row[16] = {0};
  uint32_t u = (uint32_t)id;
  for (int i = 0; i < 4; i++) row[8 + i] = (uint8_t)(u >> (8 * i));
  return pm_bucket_of_hash(pm_bucket_hash(row, sizeof row), 2);
}

/* Key id's row in pkm_rows output, or NULL. */
static json_t *row_of(json_t *rows, int id) {
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) if (json_integer_value(json_object_get(r, "id")) == id) return r;
  return NULL;
}

/* The expected rows and changelog: the published batches (ids, sorted) through the model;
 * compacted[i]: batch ids[i] has its COMPACT snapshot. The writer compacts (and logs) only the
 * buckets a batch writes: a COMPACT snapshot of batch k logs, for every (partition, bucket) k
 * wrote, the keys written there since its last logged compaction, from their rows then to now. */
static json_t *expected(const long long *ids, const int *compacted, size_t n, json_t **changes) {
  pkm_config cfg = {PKM_DEDUPLICATE, 3, COLS, 2, 0, 0, 0, 0, NULL};
  pkm_model *m = pkm_new(&cfg);
  *changes = json_array();
  json_t *before[N_KEYS] = {NULL}; /* the key's row at its bucket's last logged compaction */
  int touched[N_KEYS] = {0};
  for (size_t k = 0; k < n; k++) {
    long long b = ids[k];
    int written[4] = {0}; /* (partition id % 2, bucket) */
    for (int del = 0; del < 2; del++)
      for (int i = 0; i < oc_rows(b, ROWS); i++) {
        if (oc_upsert_is_delete(b, i) != del) continue;
        int id = oc_upsert_id(b, i, N_KEYS);
        char dt[16], name[32];
        snprintf(dt, sizeof dt, "part%d", id % 2);
        snprintf(name, sizeof name, "b%lld-%d", b, i);
        pkm_value v[3] = {pkm_str(dt), pkm_int(id), pkm_str(name)};
        CHECK(pkm_add(m, del ? PKM_DELETE : PKM_INSERT, v) == 0);
        touched[id] = 1;
        written[(id % 2) * 2 + bucket_of(id)] = 1;
      }
    pkm_flush(m);
    if (!compacted[k]) continue;
    json_t *now = pkm_rows(m);
    for (int id = 0; id < N_KEYS; id++) {
      if (!touched[id] || !written[(id % 2) * 2 + bucket_of(id)]) continue;
      json_t *bf = before[id], *af = row_of(now, id);
      if (!bf && af) json_array_append_new(*changes, with_kind(af, "+I"));
      if (bf && !af) json_array_append_new(*changes, with_kind(bf, "-D"));
      if (bf && af) {
        json_array_append_new(*changes, with_kind(bf, "-U"));
        json_array_append_new(*changes, with_kind(af, "+U"));
      }
      json_decref(bf);
      before[id] = af ? json_deep_copy(af) : NULL;
      touched[id] = 0;
    }
    json_decref(now);
  }
  for (int id = 0; id < N_KEYS; id++) json_decref(before[id]);
  json_t *rows = pkm_rows(m);
  pkm_free(m);
  return rows;
}

static paimon_table *open_table(const char *wh, paimon_catalog **cat, paimon_error *err) {
  paimon_option o[] = {{"warehouse", wh}};
  paimon_table *t = NULL;
  *cat = NULL;
  if (!paimon_catalog_open(o, 1, cat, err)) paimon_catalog_get_table(*cat, "db.t", &t, err);
  return t;
}

/* Our read of t with dynamic options (e.g. an incremental changelog read), "_row_kind" first when
 * with_kind_col. NULL on error (err set). */
static json_t *read_with(paimon_table *t, const paimon_option *opts, size_t n, int with_kind_col, paimon_error *err) {
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st = {0};
  json_t *rows = NULL;
  int rc = paimon_read_builder_new(t, opts, n, &rb, err);
  if (!rc) paimon_read_builder_with_row_kind(rb, with_kind_col);
  if (!rc) rc = paimon_read_builder_plan(rb, &plan, err);
  if (!rc) rc = paimon_read_plan(rb, plan, &st, err);
  if (!rc) {
    struct ArrowSchema schema;
    pm_type type;
    pm_error e;
    CHECK(st.get_schema(&st, &schema) == 0);
    CHECK(pm_type_from_schema(&schema, &type, &e) == 0);
    rows = json_array();
    pm_buf b;
    pm_buf_init(&b);
    for (;;) {
      struct ArrowArray a;
      if (st.get_next(&st, &a) || !a.release) break;
      for (int64_t r = 0; r < a.length; r++) {
        json_t *row = json_object();
        for (int64_t c = 0; c < type.n_children; c++) {
          b.len = 0;
          CHECK(pm_json_append_value(&type.children[c], a.children[c], r, -1, &b, &e) == 0);
          json_t *v = json_loadb((const char *)b.data, b.len, JSON_DECODE_ANY, NULL);
          json_object_set_new(row, type.children[c].name, v ? v : json_null());
        }
        json_array_append_new(rows, row);
      }
      a.release(&a);
    }
    pm_buf_free(&b);
    pm_type_free(&type);
    schema.release(&schema);
    st.release(&st);
  }
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  return rows;
}

/* ------------------------------------------------------------ crash stops */

typedef struct pk_table {
  char wh[512], state[512], dir[600];
  const char *producer;
  const char *const *extra; /* further --option values (NULL-terminated), or NULL */
  long long next;
  od_begun begun;
  long long latest_read;
  int changed;
} pk_table;

static void run_driver(pk_table *t, const char *rule, long long from, long long to, od_out *o) {
  char out[700], keys[16], rows[16], opt[128];
  snprintf(keys, sizeof keys, "%d", N_KEYS);
  snprintf(rows, sizeof rows, "%d", ROWS);
  snprintf(opt, sizeof opt, "\"changelog-producer\" : \"%s\"", t->producer);
  snprintf(out, sizeof out, "%s/../driver.out", t->wh);
  const char *flags[24] = {"--state", t->state, "--user", USER, "--layout", "pk", "--upsert", keys, "--rows", rows,
                           "--option", opt};
  size_t nf = 12;
  for (size_t i = 0; t->extra && t->extra[i] && nf < 20; i++) {
    flags[nf++] = "--option";
    flags[nf++] = t->extra[i];
  }
  if (rule) {
    flags[nf++] = "--rule";
    flags[nf++] = rule;
  }
  flags[nf] = NULL;
  od_run_range(flags, t->wh, from, to, out, -1, &t->begun, o);
}

static int cmp_ll(const void *a, const void *b) {
  long long x = *(const long long *)a, y = *(const long long *)b;
  return x < y ? -1 : x > y;
}

static void verify(pk_table *t, const od_out *o, const char *what, int final) {
  char p[700];
  snprintf(p, sizeof p, "%s/schema/schema-0", t->dir);
  if (access(p, F_OK) != 0) {
    CHECK_MSG(o->n_committed == 0, "%s: committed without a schema", what);
    return;
  }
  ot_snapshot *s = NULL;
  size_t gaps = 0, n = ot_snapshots(t->dir, &s, &gaps);
  CHECK_MSG(gaps == 0, "%s: %zu snapshot ids missing", what, gaps);
  long long *ids = calloc(n + 1, sizeof *ids);
  int *compacted = calloc(n + 1, sizeof *compacted);
  size_t ni = 0;
  for (size_t i = 0; i < n; i++) {
    long long k = s[i].commit_identifier;
    if (strcmp(s[i].commit_kind, "APPEND")) continue;
    CHECK_MSG(!od_has(ids, ni, k), "%s: batch %lld published twice", what, k);
    CHECK_MSG(od_has(t->begun.ids, t->begun.n, k), "%s: identifier %lld that no run began", what, k);
    if (!od_has(ids, ni, k)) ids[ni++] = k;
  }
  qsort(ids, ni, sizeof *ids, cmp_ll);
  for (size_t j = 0; j < ni; j++)
    for (size_t i = 0; i < n; i++)
      if (!strcmp(s[i].commit_kind, "COMPACT") && s[i].commit_identifier == ids[j]) compacted[j] = 1;
  for (size_t i = 0; i < o->n_committed; i++)
    CHECK_MSG(od_has(ids, ni, o->committed[i]), "%s: batch %lld printed committed, not published", what,
              o->committed[i]);
  static const char *const stale_hint[] = {"snapshot/LATEST: says "};
  if (final) CHECK(ot_check_ok(t->dir, OT_AFTER_CRASH, what));
  else CHECK(ot_check_ok_allowing(t->dir, OT_AFTER_CRASH, stale_hint, 1, what));
  json_t *changes = NULL;
  json_t *want = expected(ids, compacted, ni, &changes);
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  paimon_table *tbl = open_table(t->wh, &cat, &err);
  json_t *ours = tbl ? ow_read_ours(tbl, &err) : NULL;
  char msg[8192] = "";
  CHECK_MSG(ours && ot_rows_match(want, ours, msg, sizeof msg), "%s: our reader != model: %s %s", what, msg,
            ours ? "" : err.message);
  json_decref(ours);
  long long latest = n ? s[n - 1].id : 0;
  if (tbl && latest > 0) {
    char between[64];
    snprintf(between, sizeof between, "0,%lld", latest);
    paimon_option opts[] = {{"incremental-between", between}, {"incremental-between-scan-mode", "changelog"}};
    json_t *cl = read_with(tbl, opts, 2, 1, &err);
    CHECK_MSG(cl && ot_rows_match(changes, cl, msg, sizeof msg), "%s: changelog read != model: %s %s", what, msg,
              cl ? "" : err.message);
    json_decref(cl);
  }
  paimon_table_free(tbl);
  paimon_catalog_free(cat);
  if (latest != t->latest_read && (final || long_mode || t->changed++ % 4 == 0)) {
    if (ot_read_equals(t->dir, NULL, want, what)) t->latest_read = latest;
    else CHECK_MSG(0, "%s: paimon-table read != model", what);
  }
  json_decref(want);
  json_decref(changes);
  for (size_t i = 0; i < ni; i++)
    if (ids[i] + 1 > t->next) t->next = ids[i] + 1;
  for (size_t i = 0; i < t->begun.n; i++)
    if (t->begun.ids[i] + 1 > t->next) t->next = t->begun.ids[i] + 1;
  if (final)
    for (size_t i = 0; i < t->begun.n; i++)
      CHECK_MSG(od_has(ids, ni, t->begun.ids[i]), "%s: batch %lld began but was never published", what, t->begun.ids[i]);
  free(ids);
  free(compacted);
  free(s);
}

static void crash_stops(const char *label, const char *producer, const char *const *extra, size_t want_points) {
  pk_table t;
  memset(&t, 0, sizeof t);
  t.producer = producer;
  t.extra = extra;
  snprintf(t.wh, sizeof t.wh, "%s/%s/wh", tmp_root, label);
  snprintf(t.state, sizeof t.state, "%s/%s/state", tmp_root, label);
  snprintf(t.dir, sizeof t.dir, "%s/db.db/t", t.wh);
  t.latest_read = -1;
  CHECK(oc_mkdirs(t.wh) == 0 && oc_mkdirs(t.state) == 0);
  od_out o;
  run_driver(&t, NULL, 0, 1, &o); /* creates the table, two batches */
  CHECK_MSG(o.status == 0, "first run: exit %d %s", o.status, o.fail_line);
  verify(&t, &o, "first run", 0);
  run_driver(&t, NULL, t.next, t.next, &o); /* a steady batch's operation counts */
  CHECK_MSG(o.status == 0 && o.have_counts, "counting run: exit %d %s", o.status, o.fail_line);
  verify(&t, &o, "counting run", 0);
  if (o.status) return;
  unsigned long long counts[PM_FAULT_OP_COUNT];
  memcpy(counts, o.counts, sizeof counts);
  unsigned long long total = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) total += counts[op];
  fprintf(stderr, "  %s: one batch (flush + compaction + commit): %llu fs operations\n", producer, total);
  /* every operation in long mode; else the publishing kinds (files, snapshots) thinned evenly */
  typedef struct point {
    pm_fault_op op;
    unsigned long long n;
  } point;
  static point pts[4096];
  size_t np = 0;
  for (int op = 0; op < PM_FAULT_OP_COUNT; op++) {
    pm_fault_op k = (pm_fault_op)op;
    int publishing = k == PM_FAULT_OP_CREATE || k == PM_FAULT_OP_CREATE_IF_ABSENT || k == PM_FAULT_OP_PUBLISH ||
                     k == PM_FAULT_OP_RENAME;
    if (!long_mode && !publishing) continue;
    for (unsigned long long n = 1; n <= counts[op] && np < 4096; n++) pts[np++] = (point){k, n};
  }
  int stops = 0;
  size_t want = long_mode ? np : want_points;
  for (size_t j = 0; j < want && j < np && pm_test_failures < 20; j++) {
    const point *pt = &pts[long_mode || np <= want ? j : j * np / want];
    char rule[96], what[200];
    snprintf(rule, sizeof rule, "%s:%llu:exit=%d", pm_fault_op_name(pt->op), pt->n, OC_EXIT_FAULT);
    run_driver(&t, rule, t.next, t.next, &o);
    snprintf(what, sizeof what, "%s: stop %s (batch %lld)", producer, rule, t.next);
    int stopped = o.status == OC_EXIT_FAULT;
    CHECK_MSG(o.status == 0 || stopped, "%s: driver exit %d: %s", what, o.status, o.fail_line);
    verify(&t, &o, what, 0);
    stops += stopped;
  }
  /* a clean run recovers the last interrupted commit */
  run_driver(&t, NULL, t.next, t.next, &o);
  CHECK_MSG(o.status == 0, "final run: exit %d %s", o.status, o.fail_line);
  verify(&t, &o, "after the stops", 1);
  fprintf(stderr, "  %s: %d stop points (%s mode)\n", producer, stops, long_mode ? "long" : "short");
  CHECK(stops >= (int)(want < np ? want : np) - 1);
}

static void test_lookup_crash_stops(void) { crash_stops("lookup", "lookup", NULL, 7); }
static void test_full_compaction_crash_stops(void) { crash_stops("full-compaction", "full-compaction", NULL, 4); }
/* partial-update (remove-record-on-delete; every column set, so the model is deduplicate's):
 * the lookup compaction merges the looked-up records through temporary files */
static void test_partial_update_lookup_crash_stops(void) {
  static const char *const extra[] = {"\"merge-engine\" : \"partial-update\"",
                                      "\"partial-update.remove-record-on-delete\" : \"true\"", NULL};
  crash_stops("partial-update", "lookup", extra, 4);
}

/* test_write_pk_lookup_engines_crash.c includes this file with PK_CL_CRASH_ENGINES defined:
 * the partial-update case runs there (each binary within the time budget). */
int main(void) {
#ifdef PK_CL_CRASH_ENGINES
  int go = od_test_begin("write_pk_eng_crash", ot_available(), tmp_root, sizeof tmp_root, &long_mode);
#else
  int go = od_test_begin("write_pk_cl_crash", ot_available(), tmp_root, sizeof tmp_root, &long_mode);
#endif
  if (go < 0) return 1;
  if (!go) TEST_MAIN_END();
#ifdef PK_CL_CRASH_ENGINES
  RUN_TEST(test_partial_update_lookup_crash_stops);
#else
  RUN_TEST(test_lookup_crash_stops);
  RUN_TEST(test_full_compaction_crash_stops);
#endif
  od_test_end(tmp_root, pm_test_failures);
  TEST_MAIN_END();
}
