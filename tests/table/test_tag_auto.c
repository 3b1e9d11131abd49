/* Automatic tags (table/tag_auto.h) on copies of a Java-written primary-key table whose five
 * snapshots were committed at fixed times (2025-08-27 03:55:33.641 .. 03:57:37.573 UTC): the tag
 * names and snapshots below are worked out by hand from those times and Java's rules (the period
 * before the snapshot's, a tag when the time reaches the period after the next tag's), not taken
 * from our output. process-time with a 1-minute period-duration, daily / hourly formatters in fixed
 * zones, num-retained-max, watermark mode on snapshots without watermarks, batch mode (replacing
 * its tag, retention over all tags), TagTimeExpire with a fixed clock, refused options. After each:
 * paimon-table check passes and every snapshot reads as before. */
#include <sys/time.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "io/fs.h"
#include "io/fs_fault.h"
#include "meta/tag.h"
#include "table/expire.h"
#include "table/tag_auto.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/expire_check.h"

#define T "pk_table_scan_and_read_mor"

static char base[256], work[512];
static json_t *rows[6];

static int long_mode(void) { return getenv("PAIMON_LONG_TESTS") != NULL; }

static void fresh_copy(void) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -r '%s/t' '%s'", work, base, work);
  CHECK(system(cmd) == 0);
}

static int64_t now_ms(void) {
  struct timeval tv;
  gettimeofday(&tv, NULL);
  return (int64_t)tv.tv_sec * 1000 + tv.tv_usec / 1000;
}

/* Opens the work table on fs with `opts` (k=v pairs, NULL-terminated) and runs the automatic tags. */
static int run_auto_fs(pm_fs *fs, const char *const *opts, int batch, int64_t now, int *created, int *deleted,
                       pm_error *err) {
  pm_options o;
  pm_options_init(&o);
  for (size_t i = 0; opts && opts[i]; i += 2) pm_options_set(&o, opts[i], opts[i + 1], NULL);
  pm_table *t = NULL;
  int rc = pm_table_open_fs(fs, work, NULL, NULL, NULL, &o, NULL, &t, err);
  if (!rc) rc = pm_tag_auto_run(t, batch, now, created, deleted, err);
  pm_table_free(t);
  pm_options_clear(&o);
  return rc;
}

static int run_auto(const char *const *opts, int batch, int64_t now, int *created, int *deleted, pm_error *err) {
  return run_auto_fs(pm_fs_local(), opts, batch, now, created, deleted, err);
}

/* The tags, as "name=id,..." sorted by name. */
static void tags_are(const char *want, const char *what) {
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  char **names = NULL;
  size_t n = 0;
  pm_error err = {0};
  CHECK_EQ_INT(pm_tag_list(&m, &names, &n, &err), 0);
  char got[1024] = "";
  size_t len = 0;
  for (size_t i = 0; i < n; i++) {
    pm_snapshot *s = NULL;
    CHECK_EQ_INT(pm_tag_read(&m, names[i], &s, &err), 0);
    len += (size_t)snprintf(got + len, sizeof got - len, "%s%s=%lld", i ? "," : "", names[i], s ? (long long)s->id : -1LL);
    pm_snapshot_free(s);
  }
  pm_free_names(names, n);
  CHECK_MSG(!strcmp(got, want), "%s: tags %s, want %s", what, got, want);
}

/* paimon-table check passes and snapshot 5 reads as the fixture's: by the oracle when any file
 * outside tag/ differs from the fixture copy (when none does, the rows are the fixture's). */
static void table_ok(const char *what) {
  CHECK_MSG(ot_check_ok(work, OT_ALLOW_OLD, what), "%s", what);
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "diff -rq -x tag '%s/t' '%s' >/dev/null 2>&1", base, work);
  if (system(cmd) != 0) CHECK(ot_read_equals(work, "--snapshot 5", rows[5], what));
}

static void test_process_time(void) {
  pm_error err = {0};
  int c = 0, d = 0;
  fresh_copy();
  /* 1-minute periods (names yyyyMMddHHmm): snapshot 1 (03:55:33) tags 03:54; the next tag needs
   * 03:57 (03:56 + one period): snapshot 4 (03:57:00.526) tags 03:56; snapshot 5 (03:57:37) < 03:58 */
  const char *o[] = {"tag.automatic-creation", "process-time", "tag.creation-period-duration", "1 min",
                     "sink.process-time-zone", "UTC", NULL};
  CHECK_EQ_INT(run_auto(o, 0, now_ms(), &c, &d, &err), 0);
  CHECK_EQ_INT(c, 2);
  tags_are("202508270354=1,202508270356=4", "process-time, 1 min");
  table_ok("after process-time tags");
  /* a rerun resumes from the newest automatic tag: nothing new */
  CHECK_EQ_INT(run_auto(o, 0, now_ms(), &c, &d, &err), 0);
  CHECK_EQ_INT(c, 0);
  tags_are("202508270354=1,202508270356=4", "process-time rerun");
  /* resumes after a tag deleted by hand: the newest remaining one decides */
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  CHECK_EQ_INT(pm_tag_delete_file(&m, "202508270356", &err), 0);
  CHECK_EQ_INT(run_auto(o, 0, now_ms(), &c, &d, &err), 0);
  CHECK_EQ_INT(c, 1);
  tags_are("202508270354=1,202508270356=4", "process-time after deleting the newest");
}

static void test_periods(void) {
  pm_error err = {0};
  int c = 0, d = 0;
  /* daily, +08:00: 2025-08-27 11:55 local -> tag of the day before */
  fresh_copy();
  const char *daily[] = {"tag.automatic-creation", "process-time", "sink.process-time-zone", "+08:00", NULL};
  CHECK_EQ_INT(run_auto(daily, 0, now_ms(), &c, &d, &err), 0);
  tags_are("2025-08-26=1", "daily +08:00");
  /* daily without dashes, UTC-05:00: 2025-08-26 22:55 local */
  fresh_copy();
  const char *daily2[] = {"tag.automatic-creation", "process-time", "sink.process-time-zone", "UTC-05:00",
                          "tag.period-formatter", "without_dashes", NULL};
  CHECK_EQ_INT(run_auto(daily2, 0, now_ms(), &c, &d, &err), 0);
  tags_are("20250825=1", "daily without dashes -05:00");
  /* hourly in the three formatters and two-hours, UTC: 03:55 -> 02 (hourly), 02 (two-hours: 02..04 floor is 02, minus 2h = 00) */
  const char *fmts[][2] = {{"with_dashes", "2025-08-27 02=1"}, {"without_dashes", "20250827 02=1"},
                           {"without_dashes_and_spaces", "2025082702=1"}};
  for (int i = 0; i < 3; i++) {
    fresh_copy();
    const char *h[] = {"tag.automatic-creation", "process-time", "sink.process-time-zone", "UTC",
                       "tag.creation-period", "hourly", "tag.period-formatter", fmts[i][0], NULL};
    CHECK_EQ_INT(run_auto(h, 0, now_ms(), &c, &d, &err), 0);
    tags_are(fmts[i][1], fmts[i][0]);
  }
  fresh_copy();
  const char *two[] = {"tag.automatic-creation", "process-time", "sink.process-time-zone", "UTC",
                       "tag.creation-period", "two-hours", NULL};
  CHECK_EQ_INT(run_auto(two, 0, now_ms(), &c, &d, &err), 0);
  tags_are("2025-08-27 00=1", "two-hours");
  table_ok("after periodic tags");
  /* watermark mode: these snapshots carry no watermark -> no tag */
  fresh_copy();
  const char *wm[] = {"tag.automatic-creation", "watermark", NULL};
  CHECK_EQ_INT(run_auto(wm, 0, now_ms(), &c, &d, &err), 0);
  CHECK_EQ_INT(c, 0);
  tags_are("", "watermark without watermarks");
}

/* Gives snapshot id the watermark wm (epoch ms) in the work copy (a writer with watermarks). */
static void set_watermark(int64_t id, int64_t wm) {
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  pm_snapshot *s = NULL;
  pm_error err = {0};
  CHECK_EQ_INT(pm_snapshot_read(&m, id, &s, &err), 0);
  if (!s) return;
  s->watermark = wm;
  s->has_watermark = 1;
  pm_buf b;
  pm_buf_init(&b);
  CHECK_EQ_INT(pm_snapshot_to_json(s, &b, &err), 0);
  char *path = pm_snapshot_path(&m, id);
  CHECK_EQ_INT(pm_fs_write_file(pm_fs_local(), path, b.data, b.len, PM_OUT_OVERWRITE, &err), 0);
  free(path);
  pm_buf_free(&b);
  pm_snapshot_free(s);
}

static void test_watermark_delay_completion(void) {
  pm_error err = {0};
  int c = 0, d = 0;
  /* watermarks 2025-08-27 10:00 UTC on snapshot 2, 2025-08-28 01:00 UTC on snapshot 4 (daily, UTC by
   * default): 2 tags the 26th, the next needs the 28th: 4 tags the 27th */
  const int64_t w2 = 1756288800000LL, w4 = 1756342800000LL;
  const char *wm[] = {"tag.automatic-creation", "watermark", NULL};
  fresh_copy();
  set_watermark(2, w2);
  set_watermark(4, w4);
  CHECK_EQ_INT(run_auto(wm, 0, now_ms(), &c, &d, &err), 0);
  tags_are("2025-08-26=2,2025-08-27=4", "watermark, daily UTC");
  table_ok("after watermark tags");
  /* in -05:00 the second watermark is the 27th 20:00: no second tag */
  fresh_copy();
  set_watermark(2, w2);
  set_watermark(4, w4);
  const char *wm5[] = {"tag.automatic-creation", "watermark", "sink.watermark-time-zone", "-05:00", NULL};
  CHECK_EQ_INT(run_auto(wm5, 0, now_ms(), &c, &d, &err), 0);
  tags_are("2025-08-26=2", "watermark, daily -05:00");
  /* a 2-hour creation delay: 01:00 - 2 h is before the 28th: no second tag */
  fresh_copy();
  set_watermark(2, w2);
  set_watermark(4, w4);
  const char *dl[] = {"tag.automatic-creation", "watermark", "tag.creation-delay", "2 h", NULL};
  CHECK_EQ_INT(run_auto(dl, 0, now_ms(), &c, &d, &err), 0);
  tags_are("2025-08-26=2", "watermark with a creation delay");
  /* automatic completion: each tag is the next expected period: 03:55 on snapshot 4 (not 03:56),
   * so 03:57:37 on snapshot 5 reaches 03:56 + one period and tags 03:56 */
  fresh_copy();
  const char *cp[] = {"tag.automatic-creation", "process-time", "tag.creation-period-duration", "1 min",
                      "sink.process-time-zone", "UTC", "tag.automatic-completion", "true", NULL};
  CHECK_EQ_INT(run_auto(cp, 0, now_ms(), &c, &d, &err), 0);
  tags_are("202508270354=1,202508270355=4,202508270356=5", "automatic completion");
}

static void test_retained_max(void) {
  pm_error err = {0};
  int c = 0, d = 0;
  fresh_copy();
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  CHECK_EQ_INT(pm_tag_create(&m, "manual", 2, -1, 0, NULL, &err), 0);
  /* 10 s periods: 03:55:20 on snapshot 1, 03:56:50 on 4 (03:57:00.5), 03:57:20 on 5 (03:57:37.5);
   * names are minutes (yyyyMMddHHmm): 0355, 0356, 0357; at most 1 automatic tag kept, the manual
   * one is not counted */
  const char *o[] = {"tag.automatic-creation", "process-time", "tag.creation-period-duration", "10 s",
                     "sink.process-time-zone", "UTC", "tag.num-retained-max", "1", NULL};
  CHECK_EQ_INT(run_auto(o, 0, now_ms(), &c, &d, &err), 0);
  CHECK_EQ_INT(c, 3);
  CHECK_EQ_INT(d, 2);
  tags_are("202508270357=5,manual=2", "num-retained-max 1");
  table_ok("after num-retained-max");
  /* with a retention: the tag files carry tagCreateTime / tagTimeRetained */
  fresh_copy();
  const char *r[] = {"tag.automatic-creation", "process-time", "sink.process-time-zone", "UTC",
                     "tag.default-time-retained", "2 d", NULL};
  CHECK_EQ_INT(run_auto(r, 0, now_ms(), &c, &d, &err), 0);
  pm_snapshot *s = NULL;
  CHECK_EQ_INT(pm_tag_read(&m, "2025-08-26", &s, &err), 0);
  CHECK(s && s->tag_time_retained_json && !strcmp(s->tag_time_retained_json, "172800.000000000"));
  pm_snapshot_free(s);
  /* expiry: two days and a minute later the tag is gone */
  CHECK_EQ_INT(run_auto(r, 0, now_ms() + 2 * 86400000LL + 60000, &c, &d, &err), 0);
  CHECK_EQ_INT(d, 1);
  tags_are("", "after its retention");
  table_ok("after tag expiry");
}

static void test_batch(void) {
  pm_error err = {0};
  int c = 0, d = 0;
  fresh_copy();
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  CHECK_EQ_INT(pm_tag_create(&m, "manual", 2, -1, 0, NULL, &err), 0);
  const char *o[] = {"tag.automatic-creation", "batch", "sink.process-time-zone", "UTC", NULL};
  /* not a batch commit: nothing */
  CHECK_EQ_INT(run_auto(o, 0, now_ms(), &c, &d, &err), 0);
  CHECK_EQ_INT(c, 0);
  CHECK_EQ_INT(run_auto(o, 1, now_ms(), &c, &d, &err), 0);
  tags_are("batch-write-2025-08-27=5,manual=2", "batch");
  /* again: replaced (deleted, created) */
  CHECK_EQ_INT(run_auto(o, 1, now_ms(), &c, &d, &err), 0);
  CHECK_EQ_INT(c, 1);
  CHECK_EQ_INT(d, 1);
  /* customized name, at most 2 tags of all: the oldest (manual, snapshot 2) goes */
  const char *o2[] = {"tag.automatic-creation", "batch", "tag.batch.customized-name", "nightly",
                      "tag.num-retained-max", "2", NULL};
  CHECK_EQ_INT(run_auto(o2, 1, now_ms(), &c, &d, &err), 0);
  tags_are("batch-write-2025-08-27=5,nightly=5", "batch, customized name, max 2");
  table_ok("after batch tags");
}

static void test_time_expire(void) {
  pm_error err = {0};
  int c = 0, d = 0;
  fresh_copy();
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  CHECK_EQ_INT(pm_tag_create(&m, "short", 1, 1000, 0, NULL, &err), 0);
  CHECK_EQ_INT(pm_tag_create(&m, "long", 2, 86400000, 0, NULL, &err), 0);
  CHECK_EQ_INT(pm_tag_create(&m, "forever", 3, -1, 0, NULL, &err), 0);
  const char *off[] = {"tag.time-expire-enabled", "false", NULL};
  CHECK_EQ_INT(run_auto(off, 0, now_ms() + 60000, &c, &d, &err), 0);
  CHECK_EQ_INT(d, 0);
  CHECK_EQ_INT(run_auto(NULL, 0, now_ms() - 60000, &c, &d, &err), 0);
  CHECK_EQ_INT(d, 0);
  CHECK_EQ_INT(run_auto(NULL, 0, now_ms() + 60000, &c, &d, &err), 0);
  CHECK_EQ_INT(d, 1);
  tags_are("forever=3,long=2", "a minute later");
  CHECK_EQ_INT(run_auto(NULL, 0, now_ms() + 86400000LL + 60000, &c, &d, &err), 0);
  tags_are("forever=3", "a day later");
  table_ok("after time expiry");
}

/* Stopped (or failing with an I/O error) at each mutating fs operation of a run that creates three
 * tags and deletes two: the table checks (after-crash; the first stop in normal mode, every one with PAIMON_LONG_TESTS=1), every tag
 * left is whole (check reads each),
 * and a rerun reaches the newest tag (retention catches up at the next creation, as in Java). */
static void test_crash(void) {
  static const char *const o[] = {"tag.automatic-creation", "process-time", "tag.creation-period-duration", "10 s",
                                  "sink.process-time-zone", "UTC", "tag.num-retained-max", "1", NULL};
  static const pm_fault_op ops[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT,
                                    PM_FAULT_OP_DELETE, PM_FAULT_OP_RENAME};
  pm_error err = {0};
  pm_fs *ff = NULL;
  CHECK_EQ_INT(pm_fault_fs_new(pm_fs_local(), &ff, &err), 0);
  fresh_copy();
  CHECK_EQ_INT(run_auto_fs(ff, o, 0, now_ms(), NULL, NULL, &err), 0);
  uint64_t counts[5];
  for (int k = 0; k < 5; k++) counts[k] = pm_fault_fs_count(ff, ops[k]);
  int stops = 0;
  for (int k = 0; k < 5; k++)
    for (uint64_t n = 1; n <= counts[k]; n++) {
      if (!long_mode() && n > 1 && n < counts[k]) continue; /* the first and last of each kind */
      char what[128];
      for (int mode = 0; mode < 2; mode++) {
        fresh_copy();
        snprintf(what, sizeof what, "automatic tags %s at %s #%llu", mode ? "failing" : "stopped",
                 pm_fault_op_name(ops[k]), (unsigned long long)n);
        pm_fault_rule r = {ops[k], n, 1, mode ? PM_FAULT_ERROR : PM_FAULT_EXIT, mode ? 0 : 42};
        if (mode) {
          pm_fault_fs_arm(ff, &r);
          CHECK_EQ_INT(run_auto_fs(ff, o, 0, now_ms(), NULL, NULL, &err), PAIMON_ERR_IO);
          pm_fault_fs_disarm(ff);
        } else {
          pid_t pid = fork();
          if (pid == 0) {
            pm_fault_fs_arm(ff, &r);
            _exit(run_auto_fs(ff, o, 0, now_ms(), NULL, NULL, &err) ? 1 : 0);
          }
          int st = 0;
          waitpid(pid, &st, 0);
          CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 42, "%s: not reached", what);
          stops++;
        }
        /* the oracle judges the first stop in normal mode (every one with PAIMON_LONG_TESTS=1) */
        if (!mode && (stops == 1 || long_mode()))
          CHECK_MSG(ot_check_ok(work, OT_ALLOW_OLD | OT_AFTER_CRASH, what), "%s", what);
        CHECK_EQ_INT(run_auto(o, 0, now_ms(), NULL, NULL, &err), 0);
        pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
        int exists = 0;
        CHECK_EQ_INT(pm_tag_exists(&m, "202508270357", &exists, &err), 0);
        CHECK_MSG(exists, "%s: rerun did not reach the newest tag", what);
      }
    }
  printf("automatic tags: %d crash stops, %d injected errors\n", stops, stops);
  CHECK(stops >= 5);
  pm_fs_unref(ff);
}

/* paimon-table check passes on the work copy with no orphan file (after_crash: orphans allowed),
 * every file the table needs exists; accepted: ADD entries cancelled in a retained snapshot whose
 * files expiry deleted, as Java's (support/expire_check.h). The fixture's README is removed first. */
static int table_clean(int after_crash, const char *what) {
  char p[700];
  snprintf(p, sizeof p, "%s/README", work);
  unlink(p);
  pm_error err = {0};
  pm_table *t = NULL;
  if (pm_table_open_fs(pm_fs_local(), work, NULL, NULL, NULL, NULL, NULL, &t, &err)) return 0;
  ec_files needed;
  ec_files_collect(t, &needed);
  int ok = needed.missing == 0;
  if (!ok) fprintf(stderr, "%s: needed file missing: %s\n", what, needed.first_missing);
  ok = ec_check_needed_ex(work, OT_ALLOW_OLD | (after_crash ? OT_AFTER_CRASH : 0), &needed, after_crash, NULL, 0,
                          what) && ok;
  ec_files_free(&needed);
  pm_table_free(t);
  return ok;
}

/* Expires snapshots 1..4 of the work copy (snapshot 5 stays), with tag "short" (1 s retention)
 * on snapshot 1 pinning its files: the level-0 files snapshot 3 compacted away and snapshot 1's
 * manifests. */
static void expire_under_tag(void) {
  pm_error err = {0};
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  CHECK_EQ_INT(pm_tag_create(&m, "short", 1, 1000, 0, NULL, &err), 0);
  pm_table *t = NULL;
  CHECK_EQ_INT(pm_table_open_fs(pm_fs_local(), work, NULL, NULL, NULL, NULL, NULL, &t, &err), 0);
  pm_expire_config c;
  CHECK_EQ_INT(pm_expire_config_from_options(t, &c, &err), 0);
  CHECK_EQ_INT(pm_expire_until(t, &c, 5, NULL, NULL, NULL, &err), 0);
  pm_table_free(t);
}

/* A tag that TagTimeExpire (or num-retained-max) deletes takes the files only it held along, as
 * Java's TagDeletion: after snapshots 1..4 expired under tag "short", its expiry leaves no orphan
 * (paimon-table lists every unreachable file); with the old tag-file-only deletion snapshot 1's
 * compacted level-0 files and manifests stayed as orphans. Then the same for num-retained-max. */
static void test_expire_cleans_files(void) {
  pm_error err = {0};
  int c = 0, d = 0;
  fresh_copy();
  expire_under_tag();
  if (long_mode()) CHECK(table_clean(0, "tag cleanup before the tag's expiry"));
  CHECK_EQ_INT(run_auto(NULL, 0, now_ms() + 60000, &c, &d, &err), 0);
  CHECK_EQ_INT(d, 1);
  tags_are("", "after the tag's retention");
  CHECK(table_clean(0, "tag cleanup"));
  CHECK(ot_read_equals(work, "--snapshot 5", rows[5], "after tag expiry with file cleanup"));
  /* num-retained-max 1 of automatic tags: the tag on snapshot 1 (expired) goes with its files */
  fresh_copy();
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), work, NULL);
  const char *o[] = {"tag.automatic-creation", "process-time", "tag.creation-period-duration", "10 s",
                     "sink.process-time-zone", "UTC", NULL};
  CHECK_EQ_INT(run_auto(o, 0, now_ms(), &c, &d, &err), 0);
  tags_are("202508270355=1,202508270356=4,202508270357=5", "three automatic tags");
  pm_table *t = NULL;
  CHECK_EQ_INT(pm_table_open_fs(pm_fs_local(), work, NULL, NULL, NULL, NULL, NULL, &t, &err), 0);
  pm_expire_config cfg;
  CHECK_EQ_INT(pm_expire_config_from_options(t, &cfg, &err), 0);
  CHECK_EQ_INT(pm_expire_until(t, &cfg, 5, NULL, NULL, NULL, &err), 0);
  pm_table_free(t);
  if (long_mode()) CHECK(table_clean(0, "tag cleanup before num-retained-max"));
  const char *o1[] = {"tag.automatic-creation", "process-time", "tag.creation-period-duration", "10 s",
                      "sink.process-time-zone", "UTC", "tag.num-retained-max", "1", NULL};
  (void)m;
  /* retention applies at the next creation: remove the newest so that the run creates it again */
  CHECK_EQ_INT(pm_tag_delete_file(&m, "202508270357", &err), 0);
  CHECK_EQ_INT(run_auto(o1, 0, now_ms(), &c, &d, &err), 0);
  CHECK_EQ_INT(c, 1);
  CHECK_EQ_INT(d, 2);
  tags_are("202508270357=5", "num-retained-max 1 after expiry");
  CHECK(table_clean(0, "tag cleanup"));
  CHECK(ot_read_equals(work, "--snapshot 5", rows[5], "after num-retained-max with file cleanup"));
}

/* Stopped (or failing) at each mutating fs operation of that tag expiry with its file cleanup:
 * the table checks after the crash (orphans allowed), snapshot 5 reads as before, and a rerun
 * ends with the tag gone and the table checking. */
static void test_expire_clean_crash(void) {
  static const pm_fault_op ops[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_PUBLISH, PM_FAULT_OP_CREATE_IF_ABSENT,
                                    PM_FAULT_OP_DELETE, PM_FAULT_OP_RENAME};
  pm_error err = {0};
  pm_fs *ff = NULL;
  CHECK_EQ_INT(pm_fault_fs_new(pm_fs_local(), &ff, &err), 0);
  fresh_copy();
  expire_under_tag();
  int64_t later = now_ms() + 60000;
  CHECK_EQ_INT(run_auto_fs(ff, NULL, 0, later, NULL, NULL, &err), 0);
  uint64_t counts[5], total = 0;
  for (int k = 0; k < 5; k++) total += counts[k] = pm_fault_fs_count(ff, ops[k]);
  CHECK_MSG(total >= 3, "tag expiry with cleanup made %llu mutating fs operations", (unsigned long long)total);
  int stops = 0;
  for (int k = 0; k < 5; k++)
    for (uint64_t n = 1; n <= counts[k]; n++)
      for (int mode = 0; mode < 2; mode++) {
        if (!long_mode() && n > 1 && n < counts[k]) continue; /* the first and last of each kind */
        char what[128];
        fresh_copy();
        expire_under_tag();
        snprintf(what, sizeof what, "tag expiry %s at %s #%llu", mode ? "failing" : "stopped",
                 pm_fault_op_name(ops[k]), (unsigned long long)n);
        pm_fault_rule r = {ops[k], n, 1, mode ? PM_FAULT_ERROR : PM_FAULT_EXIT, mode ? 0 : 42};
        if (mode) {
          pm_fault_fs_arm(ff, &r);
          int rc = run_auto_fs(ff, NULL, 0, later, NULL, NULL, &err);
          pm_fault_fs_disarm(ff);
          CHECK_MSG(rc == PAIMON_ERR_IO, "%s: status %d", what, rc);
        } else {
          pid_t pid = fork();
          if (pid == 0) {
            pm_fault_fs_arm(ff, &r);
            _exit(run_auto_fs(ff, NULL, 0, later, NULL, NULL, &err) ? 1 : 0);
          }
          int st = 0;
          waitpid(pid, &st, 0);
          CHECK_MSG(WIFEXITED(st) && WEXITSTATUS(st) == 42, "%s: not reached", what);
          stops++;
        }
        if (!mode && (stops == 1 || long_mode())) {
          CHECK_MSG(table_clean(1, what), "%s", what);
          CHECK(ot_read_equals(work, "--snapshot 5", rows[5], what));
        }
        CHECK_EQ_INT(run_auto(NULL, 0, later, NULL, NULL, &err), 0);
        tags_are("", what);
        if (!mode && (stops == 1 || long_mode())) CHECK(table_clean(1, what));
      }
  printf("tag expiry with cleanup: %d crash stops\n", stops);
  pm_fs_unref(ff);
}

static void test_refused(void) {
  struct {
    const char *k, *v, *msg;
  } cases[] = {
      {"tag.creation-period", "weekly", "tag.creation-period"},
      {"tag.period-formatter", "roman", "tag.period-formatter"},
      {"sink.process-time-zone", "Mars/Olympus", "sink.process-time-zone"},
      {"tag.creation-delay", "2 d", "tag.creation-delay"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    fresh_copy();
    pm_error err = {0};
    const char *o[] = {"tag.automatic-creation", "process-time", cases[i].k, cases[i].v, NULL};
    CHECK_EQ_INT(run_auto(o, 0, now_ms(), NULL, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err.message, cases[i].msg), "%s", err.message);
    tags_are("", cases[i].k);
  }
  pm_error err = {0};
  const char *o[] = {"tag.automatic-creation", "hourly", NULL};
  CHECK_EQ_INT(run_auto(o, 0, now_ms(), NULL, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_MSG(strstr(err.message, "tag.automatic-creation"), "%s", err.message);
}

int main(void) {
  snprintf(base, sizeof base, "/tmp/pm_tag_auto_XXXXXX");
  if (!mkdtemp(base)) return 1;
  snprintf(work, sizeof work, "%s/w", base);
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "cp -r '%s/fixtures/warehouse/parquet/" T ".db/" T "' '%s/t' && chmod -R u+w '%s'",
           PAIMON_SHARED_DIR, base, base);
  if (system(cmd)) return 1;
  if (!ot_available()) {
    printf("SKIP: paimon-table oracle not available\n");
    return 0;
  }
  char t[600];
  snprintf(t, sizeof t, "%s/t", base);
  int rc = 0;
  rows[5] = ot_read(t, "--snapshot 5", &rc, NULL);
  ot_cache_enable(1);
  CHECK(rows[5] && !rc);
  RUN_TEST(test_process_time);
  RUN_TEST(test_periods);
  RUN_TEST(test_watermark_delay_completion);
  RUN_TEST(test_retained_max);
  RUN_TEST(test_batch);
  RUN_TEST(test_time_expire);
  RUN_TEST(test_refused);
  RUN_TEST(test_crash);
  RUN_TEST(test_expire_cleans_files);
  RUN_TEST(test_expire_clean_crash);
  json_decref(rows[5]);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", base);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
