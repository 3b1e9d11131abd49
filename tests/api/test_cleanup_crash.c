/*
 * Changelog expiry and tag deletion with file cleanup stopped at each mutating fs operation in
 * turn (fault fs, _exit in a forked child) and failed there with an injected I/O error, on copies
 * of tables written by us (files made two days old):
 *   - decoupled snapshot expiry (Java's ExpireSnapshotsImpl with changelogDecoupled: the
 *     changelog/changelog-<id> files written, then the snapshots go) of a primary-key table with
 *     changelog-producer = input and a tag on an early snapshot;
 *   - changelog expiry (Java's ExpireChangelogImpl) of the long-lived changelogs that leaves;
 *   - tag delete (Java's deleteTag with its cleanup) of a tag whose snapshot expired, on that
 *     changelog table and on a partitioned append table whose overwrites left files only the
 *     tag used.
 * After each stop: every file a snapshot, tag or long-lived changelog still needs exists (walker),
 * the snapshots the uninterrupted run keeps still exist, and every surviving snapshot and tag reads
 * as before with our reader (every stop) and paimon-table (sampled: one stop per operation in
 * normal mode, every stop with PAIMON_LONG_TESTS=1, with check --after-crash); rerunning the
 * operation completes it (a tag already gone: NOT_FOUND, its files are orphans) and, with orphan
 * cleanup for what a stop left behind, the table holds exactly the files (same bytes) of the
 * uninterrupted run's end state (hidden temporary files aside). The states recorded before are
 * read by our reader; paimon-table anchors the latest snapshot and the tags of each base.
 * PAIMON_LONG_TESTS=1 also writes longer histories (more snapshots, changelogs and files to stop at).
 */
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs_fault.h"
#include "support/expire_check.h"
#include "support/fixture_copy.h"
#include "table/expire.h"
#include "table/orphan_clean.h"

static char tmp_root[256], wh[300], work[400];
static paimon_catalog *cat;
static int long_mode;
static int total_stops;

static const pm_fault_op MUTATING[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT,
                                       PM_FAULT_OP_DELETE, PM_FAULT_OP_RENAME};

/* A stop after the snapshot (or changelog) files went and before EARLIEST moved leaves the hint
 * behind, as Java (files, then the hint) does too. */
static const char *const STALE_EARLIEST[] = {"snapshot/EARLIEST: says ", "changelog/EARLIEST: says ",
                                             /* the changelog of t2, deleted with its snapshot's
                                              * long-lived changelog as Java's expiry does */
                                             "tag/tag-t2: references manifest"};

static void copy_dir(const char *from, const char *to) { CHECK(fc_copy_tree_keep_times(from, to) == 0); }

static char *tree(void) { return fc_tree_digest(work, 1); }

/* ------------------------------------------------------------------ the operations */

static pm_expire_config config(int retain, int changelog_retain) {
  pm_expire_config c;
  memset(&c, 0, sizeof c);
  c.retain_min = c.retain_max = retain;
  c.max_deletes = 1000;
  c.changelog_retain_min = 1;
  c.changelog_retain_max = changelog_retain;
  c.changelog_time_retained_ms = 86400 * 1000LL * 10; /* only the counts decide */
  c.changelog_decoupled = 1;
  return c;
}

static int open_work(pm_fs *fs, pm_table **t, pm_error *err) {
  return pm_table_open_fs(fs, work, "db", "work", NULL, NULL, NULL, t, err);
}

static int op_expire_decoupled(pm_fs *fs) {
  pm_table *t = NULL;
  pm_error err = {0};
  int rc = open_work(fs, &t, &err);
  pm_expire_config c = config(2, 100);
  if (!rc) rc = pm_expire_snapshots(t, &c, NULL, NULL, NULL, &err);
  pm_table_free(t);
  return rc;
}

static int op_expire_changelogs(pm_fs *fs) {
  pm_table *t = NULL;
  pm_error err = {0};
  int rc = open_work(fs, &t, &err);
  pm_expire_config c = config(2, 3);
  if (!rc) rc = pm_expire_changelogs(t, &c, NULL, &err);
  pm_table_free(t);
  return rc;
}

static int op_tag_delete(pm_fs *fs) {
  pm_table *t = NULL;
  pm_error err = {0};
  int rc = open_work(fs, &t, &err);
  pm_fdel_stats st;
  memset(&st, 0, sizeof st);
  if (!rc) rc = pm_tag_delete_clean(t, "t2", &st, &err);
  pm_table_free(t);
  return rc;
}

/* ------------------------------------------------------------------ checks */

typedef struct scenario {
  const char *name;
  const char *base; /* directory copied to `work` */
  int (*op)(pm_fs *);
  ec_record rec;     /* every snapshot and tag of the base (our reader, anchored by the oracle) */
  int64_t *kept;     /* snapshots the uninterrupted run keeps */
  size_t n_kept;
  char *final_tree;  /* after the uninterrupted run and an orphan cleanup */
  char *base_tree;   /* the base's files */
  const char *gone_tag; /* the tag the operation deletes (may or may not be there after a stop) */
} scenario;

static void orphan_clean(const char *what) {
  pm_table *t = NULL;
  pm_error err = {0};
  CHECK_OK(open_work(pm_fs_local(), &t, &err), &err);
  pm_orphan_options o;
  memset(&o, 0, sizeof o); /* now - 1 day: the copy's files are two days old, a stop's new ones young */
  pm_orphan_result r;
  if (t) CHECK_MSG(pm_orphan_clean(t, &o, 0, &r, &err) == 0, "%s: orphan cleanup: %s", what, err.message);
  pm_table_free(t);
}

static void check_state(const scenario *sc, int oracle, const char *what) {
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "db.work", &t, &err), &err);
  if (!t) return;
  ec_files needed;
  ec_files_collect(t->t, &needed);
  CHECK_MSG(needed.missing == 0, "%s: %zu needed files missing, first %s", what, needed.missing,
            needed.first_missing);
  pm_snapshot_manager sm = pm_table_snapshots(t->t);
  for (size_t i = 0; i < sc->n_kept; i++) {
    int exists = 0;
    pm_error e = {0};
    CHECK_OK(pm_snapshot_exists(&sm, sc->kept[i], &exists, &e), &e);
    CHECK_MSG(exists, "%s: snapshot %lld (kept by the operation) is gone", what, (long long)sc->kept[i]);
  }
  for (size_t i = 0; i < sc->rec.n; i++) {
    const ec_state *s = &sc->rec.items[i];
    const char *tag = s->tag[0] ? s->tag : NULL;
    int exists = 0;
    pm_error e = {0};
    if (tag) CHECK_OK(pm_tag_exists(&sm, tag, &exists, &e), &e);
    else CHECK_OK(pm_snapshot_exists(&sm, s->snap, &exists, &e), &e);
    if (!exists) {
      CHECK_MSG(!tag || (sc->gone_tag && !strcmp(tag, sc->gone_tag)), "%s: tag %s is gone", what, tag);
      continue;
    }
    json_t *ours = ec_ours(t, s->snap, tag);
    char msg[4096];
    CHECK_MSG(ours && ot_rows_match(s->rows, ours, msg, sizeof msg), "%s: %s %lld (ours): %s", what,
              tag ? tag : "snapshot", s->snap, ours ? msg : "unreadable");
    json_decref(ours);
  }
  if (oracle) { /* paimon-table: the latest snapshot (every stop in long mode: every state) */
    long long latest = 0;
    for (size_t i = 0; i < sc->rec.n; i++) {
      const ec_state *s = &sc->rec.items[i];
      int exists = 0;
      pm_error e = {0};
      if (s->tag[0]) pm_tag_exists(&sm, s->tag, &exists, &e);
      else pm_snapshot_exists(&sm, s->snap, &exists, &e);
      if (!exists || (!long_mode && s->tag[0])) continue;
      if (!s->tag[0] && s->snap > latest) latest = s->snap;
      if (!long_mode) continue;
      json_t *o = ec_oracle(work, s->snap, s->tag[0] ? s->tag : NULL, tmp_root);
      char msg[4096];
      CHECK_MSG(o && ot_rows_match(s->rows, o, msg, sizeof msg), "%s: %s %lld (paimon-table): %s", what,
                s->tag[0] ? s->tag : "snapshot", s->snap, o ? msg : "unreadable");
      json_decref(o);
    }
    for (size_t i = 0; !long_mode && oracle > 1 && latest && i < sc->rec.n; i++) {
      const ec_state *s = &sc->rec.items[i];
      if (s->tag[0] || s->snap != latest) continue;
      json_t *o = ec_oracle(work, s->snap, NULL, tmp_root);
      char msg[4096];
      CHECK_MSG(o && ot_rows_match(s->rows, o, msg, sizeof msg), "%s: snapshot %lld (paimon-table): %s", what, s->snap,
                o ? msg : "unreadable");
      json_decref(o);
    }
    /* t2's changelog half deleted by a stopped changelog expiry: the oracle checks tags' changelogs */
    const char *allowed[6];
    char list_line[300] = "";
    size_t na = 0;
    for (size_t i = 0; i < sizeof STALE_EARLIEST / sizeof STALE_EARLIEST[0]; i++) allowed[na++] = STALE_EARLIEST[i];
    allowed[na++] = "tag/tag-t2: changelogRecordCount ";
    pm_snapshot *t2 = NULL;
    pm_error e2 = {0};
    if (!pm_tag_read(&sm, "t2", &t2, &e2) && t2->changelog_manifest_list) {
      snprintf(list_line, sizeof list_line, "manifest/%s: references manifest ", t2->changelog_manifest_list);
      allowed[na++] = list_line;
    }
    pm_snapshot_free(t2);
    CHECK(ec_check_needed_ex(work, OT_AFTER_CRASH, &needed, 1, allowed, na, what));
  }
  ec_files_free(&needed);
  paimon_table_free(t);
}

static int leftover_states; /* stops whose rerun + orphan cleanup left unneeded files */

/* A file the rerun + orphan cleanup left: one of the base (same bytes) that the uninterrupted
 * run deletes, not needed by any surviving state (the reads after the stop and after the rerun
 * say so) and still named by one (a DELETE entry of a retained snapshot's manifest, the data
 * lists of a long-lived changelog, the changelog of a tag), so orphan cleanup (Java's too)
 * keeps it; the expiry of its holder deletes it. */
static int from_base(const char *line, void *ctx) {
  const char *base_tree = ctx;
  char l[1100];
  snprintf(l, sizeof l, "%.1000s", line);
  l[strcspn(l, "\n")] = 0;
  for (const char *p = base_tree; p && (p = strstr(p, l)); p += strlen(l))
    if (p[strlen(l)] == '\n') return 1;
  return 0;
}

/* The lines of `want` that `have` lacks: each one accepted by ok(path) (may be NULL: none is),
 * else printed. Returns the number not accepted. */
static int diff_lines(const char *have, const char *want, const char *label, int (*ok)(const char *, void *),
                      void *ctx) {
  int bad = 0;
  for (const char *p = want; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p + 1) : strlen(p);
    char line[2048];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    const char *path = strstr(line, "  ./");
    if (!strstr(have, line) && !(path && ok && ok(ok == from_base ? line : path + 4, ctx))) {
      fprintf(stderr, "  %s: %s", label, line);
      bad++;
    }
    p = nl ? nl + 1 : NULL;
  }
  return bad;
}

/* changelog/EARLIEST missing: a stop before the expiry wrote it and a rerun with nothing left to
 * expire leaves it unwritten; readers list changelog/ then (as Java's hint lookup does). */
static int hint_only(const char *rel, void *ctx) {
  (void)ctx;
  return !strncmp(rel, "changelog/EARLIEST\n", 19);
}

/* Rerun (a deleted tag: NOT_FOUND), orphan cleanup, then the uninterrupted run's files. */
static void complete(const scenario *sc, const char *what) {
  int rc = sc->op(pm_fs_local());
  int tag_gone = 0;
  if (sc->gone_tag) {
    char p[600];
    snprintf(p, sizeof p, "%s/tag/tag-%s", work, sc->gone_tag);
    tag_gone = access(p, F_OK) != 0;
  }
  CHECK_MSG(rc == 0 || (rc == PAIMON_ERR_NOT_FOUND && tag_gone), "%s: rerun: %d", what, rc);
  orphan_clean(what);
  char *t = tree();
  if (t && sc->final_tree && strcmp(t, sc->final_tree)) {
    int bad = diff_lines(t, sc->final_tree, "missing", hint_only, NULL);
    bad += diff_lines(sc->final_tree, t, "extra", from_base, sc->base_tree);
    CHECK_MSG(bad == 0, "%s: rerun + orphan cleanup differ from the uninterrupted run (%d files)", what, bad);
    leftover_states++;
    char w[300];
    snprintf(w, sizeof w, "%s, rerun", what);
    check_state(sc, 0, w);
  }
  CHECK(t && sc->final_tree);
  free(t);
}

static void run_stops(scenario *sc) {
  pm_error err = {0};
  pm_fs *ff = NULL;
  CHECK_EQ_INT(pm_fault_fs_new(pm_fs_local(), &ff, &err), 0);
  if (!ff) return;
  /* the uninterrupted run: operation counts, the snapshots it keeps, its end state */
  copy_dir(sc->base, work);
  pm_fault_fs_disarm(ff);
  CHECK_MSG(sc->op(ff) == 0, "%s: the uninterrupted run", sc->name);
  uint64_t counts[5], total = 0;
  for (int k = 0; k < 5; k++) total += counts[k] = pm_fault_fs_count(ff, MUTATING[k]);
  {
    pm_snapshot_manager sm = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
    size_t n = 0;
    CHECK_OK(pm_snapshot_list_ids(&sm, &sc->kept, &n, &err), &err);
    sc->n_kept = n;
  }
  orphan_clean(sc->name);
  sc->final_tree = tree();
  check_state(sc, 2, sc->name);
  int stops = 0, faults = 0;
  uint64_t seq = 0;
  /* normal mode: 4 stops spread over the operations (one judged by the oracle) */
  uint64_t stride = long_mode || total < 4 ? 1 : total / 4;
  for (int k = 0; k < 5; k++)
    for (uint64_t n = 1; n <= counts[k]; n++, seq++) {
      char what[200];
      if (seq % stride) continue;
      copy_dir(sc->base, work);
      pm_fault_rule r = {MUTATING[k], n, 1, PM_FAULT_EXIT, 42};
      pid_t pid = fork();
      if (pid == 0) {
        pm_fault_fs_arm(ff, &r);
        _exit(sc->op(ff) ? 1 : 0);
      }
      int st = 0;
      waitpid(pid, &st, 0);
      CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 42, "%s: stop %s #%llu not reached", sc->name,
                pm_fault_op_name(MUTATING[k]), (unsigned long long)n);
      snprintf(what, sizeof what, "%s stopped at %s #%llu", sc->name, pm_fault_op_name(MUTATING[k]),
               (unsigned long long)n);
      check_state(sc, long_mode || seq == (total / 2) / stride * stride, what);
      complete(sc, what);
      stops++;

      copy_dir(sc->base, work);
      pm_fault_rule e = {MUTATING[k], n, 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(ff, &e);
      int rc = sc->op(ff);
      pm_fault_fs_disarm(ff);
      CHECK_MSG(rc == PAIMON_ERR_IO, "%s: an injected error at %s #%llu is reported (%d)", sc->name,
                pm_fault_op_name(MUTATING[k]), (unsigned long long)n, rc);
      snprintf(what, sizeof what, "%s failed at %s #%llu", sc->name, pm_fault_op_name(MUTATING[k]),
               (unsigned long long)n);
      check_state(sc, long_mode, what);
      complete(sc, what);
      faults++;
    }
  printf("%s: %d crash stops, %d injected errors (%llu mutating operations)\n", sc->name, stops, faults,
         (unsigned long long)total);
  total_stops += stops;
  CHECK(stops >= 3);
  pm_fs_unref(ff);
}

/* ------------------------------------------------------------------ the bases */

static paimon_table *new_table(const char *name, const char *cols, const char *parts, const char *const *opts,
                               size_t n) {
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "db", name, cols, parts, opts, n, 0, &err), &err);
  char id[64];
  snprintf(id, sizeof id, "db.%s", name);
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, id, &t, &err), &err);
  return t;
}

static void tag(paimon_table *t, const char *name, int64_t id) {
  paimon_error err = {0};
  CHECK_OK(paimon_table_create_tag(t, name, id, NULL, 0, &err), &err);
}

/* Records every snapshot and tag of dir (as db.work) with our reader; the oracle reads the
 * latest snapshot (and, long mode, the tags) and must agree. */
static void record(scenario *sc) {
  copy_dir(sc->base, work);
  paimon_table *t = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(cat, "db.work", &t, &err), &err);
  if (!t) return;
  ec_record_all_with(t, work, tmp_root, &sc->rec, 0);
  sc->base_tree = tree();
  long long latest = 0;
  for (size_t i = 0; i < sc->rec.n; i++)
    if (!sc->rec.items[i].tag[0] && sc->rec.items[i].snap > latest) latest = sc->rec.items[i].snap;
  for (size_t i = 0; i < sc->rec.n; i++) {
    const ec_state *s = &sc->rec.items[i];
    if (s->tag[0] ? !long_mode : s->snap != latest) continue;
    json_t *o = ec_oracle(work, s->snap, s->tag[0] ? s->tag : NULL, tmp_root);
    char msg[4096];
    CHECK_MSG(o && ot_rows_match(o, s->rows, msg, sizeof msg), "%s: %s %lld: ours != paimon-table: %s", sc->name,
              s->tag[0] ? s->tag : "snapshot", s->snap, o ? msg : "unreadable");
    json_decref(o);
  }
  paimon_table_free(t);
}

static void make_old(const char *d) {
  char cmd[800];
  snprintf(cmd, sizeof cmd, "touch -d '2 days ago' $(find '%s' -type f)", d);
  CHECK(system(cmd) == 0);
}

static char base_cl[400], base_cl2[400], base_ap[400];

/* The changelog table: primary key id, input changelog, one bucket; upserts of overlapping keys,
 * tag t2 on snapshot 2. */
static void make_changelog_base(int commits) {
  const char *opts[] = {"primary-key=id", "bucket=1", "changelog-producer=input", "write-only=true"};
  paimon_table *t = new_table("cl", "id INT NOT NULL, v STRING", "", opts, 4);
  if (!t) return;
  paimon_error err = {0};
  for (int b = 1; b <= commits; b++) {
    char rows[256];
    snprintf(rows, sizeof rows, "{\"id\":1,\"v\":\"b%d\"}\n{\"id\":%d,\"v\":\"x%d\"}\n{\"id\":%d,\"v\":\"y%d\"}\n", b,
             b + 1, b, b % 3 + 10, b);
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, NULL, 0, 0, NULL, &err), &err);
    if (b == 2) tag(t, "t2", 2);
  }
  paimon_table_free(t);
  snprintf(base_cl, sizeof base_cl, "%s/db.db/cl", wh);
  make_old(base_cl);
}

/* The append table: partitions a, b with overwrites (files only early snapshots use), tags t2
 * and t4, then every snapshot but the last two expired. */
static void make_append_base(int commits) {
  const char *opts[] = {"bucket=-1", "write-only=true"};
  paimon_table *t = new_table("ap", "id INT NOT NULL, name STRING, dt STRING", "dt", opts, 2);
  if (!t) return;
  paimon_error err = {0};
  for (int b = 1; b <= commits; b++) {
    const char *dt = (b % 4 == 1 || b % 4 == 2) ? "a" : "b";
    int ow = b > 2 && b % 4 == 1; /* 5, 9, 13: t2's files leave the snapshots */
    char rows[256];
    snprintf(rows, sizeof rows, "{\"id\":%d,\"name\":\"b%d\",\"dt\":\"%s\"}\n{\"id\":%d,\"name\":\"c%d\",\"dt\":\"%s\"}\n",
             b * 10, b, dt, b * 10 + 1, b, dt);
    paimon_option spec = {"dt", "a"}; /* overwrites of a: t2's files go from the snapshots */
    CHECK_OK(ow_write_commit(t, NULL, 0, 0, rows, &spec, ow ? 1 : 0, ow, NULL, &err), &err);
    if (b == 2) tag(t, "t2", 2);
    if (b == 4) tag(t, "t4", 4);
  }
  pm_expire_config c = config(2, 2);
  c.changelog_decoupled = 0;
  pm_error e = {0};
  CHECK_OK(pm_expire_snapshots(t->t, &c, NULL, NULL, NULL, &e), &e);
  paimon_table_free(t);
  snprintf(base_ap, sizeof base_ap, "%s/db.db/ap", wh);
  make_old(base_ap);
}

static void free_scenario(scenario *sc) {
  ec_record_free(&sc->rec);
  free(sc->kept);
  free(sc->final_tree);
  free(sc->base_tree);
}

static void test_cleanup_crash(void) {
  int commits = long_mode ? 14 : 7;
  make_changelog_base(commits);
  make_append_base(long_mode ? 16 : 8);
  /* 1. decoupled snapshot expiry of the changelog table */
  scenario a = {"decoupled snapshot expiry", base_cl, op_expire_decoupled, {0}, NULL, 0, NULL, NULL, NULL};
  record(&a);
  run_stops(&a);
  /* its end state is the base of the changelog expiry and of the first tag delete */
  copy_dir(base_cl, work);
  CHECK_EQ_INT(op_expire_decoupled(pm_fs_local()), 0);
  snprintf(base_cl2, sizeof base_cl2, "%s/cl2", tmp_root);
  copy_dir(work, base_cl2);
  make_old(base_cl2);
  scenario b = {"changelog expiry", base_cl2, op_expire_changelogs, {0}, NULL, 0, NULL, NULL, NULL};
  record(&b);
  run_stops(&b);
  scenario c = {"tag delete (changelog table)", base_cl2, op_tag_delete, {0}, NULL, 0, NULL, NULL, "t2"};
  record(&c);
  run_stops(&c);
  scenario d = {"tag delete (append table)", base_ap, op_tag_delete, {0}, NULL, 0, NULL, NULL, "t2"};
  record(&d);
  run_stops(&d);
  printf("cleanup crash: %d stops in all; %d stopped or failed runs left unneeded files that a later expiry "
         "removes\n", total_stops, leftover_states);
  free_scenario(&a);
  free_scenario(&b);
  free_scenario(&c);
  free_scenario(&d);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_cleanup_crash_XXXXXX");
  CHECK(mkdtemp(tmp_root) != NULL);
  if (!ot_available()) {
    fprintf(stderr, "paimon-table not available: skipped\n");
    TEST_MAIN_END();
  }
  long_mode = getenv("PAIMON_LONG_TESTS") && atoi(getenv("PAIMON_LONG_TESTS")) > 0;
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  CHECK(mkdir(wh, 0755) == 0);
  snprintf(work, sizeof work, "%s/db.db/work", wh);
  paimon_option o = {"warehouse", wh};
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  ot_cache_enable(1); /* repeated states judged once */
  RUN_TEST(test_cleanup_crash);
  paimon_catalog_free(cat);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP_TMP") && !pm_test_failures) CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
