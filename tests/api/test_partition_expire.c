/*
 * Partition expiry (issue 13 §2; Java's NormalPartitionExpire, PartitionTimeExtractor,
 * values-time / update-time strategies, the expire_partitions procedure and the
 * automatic run after commits):
 *   - partition times as Java parses them (default lenient formatter, DateTimeFormatter
 *     patterns with SMART resolution, $key patterns), expected values worked out by hand;
 *   - tables written through the public API with partitions in the past, the future and
 *     values that are no time: after paimon_table_expire_partitions paimon-table check
 *     passes, paimon-table read returns exactly the rows written into the kept partitions,
 *     every earlier snapshot reads as before; max_expires order, dry run, formatter and
 *     pattern, update-time, refusals;
 *   - the automatic run after a commit (check interval 0 / the default interval / a broken
 *     formatter that must not fail the commit / write-only).
 * Crashes and injected I/O errors: test_maintenance_crash.c.
 */
#include <unistd.h>

#include "harness.h"
#include "meta/core_options.h"
#include "meta/snapshot.h"
#include "paimon/maintenance.h"
#include "table/partition_expire.h"
#include "table/partition_time.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char wh[256];
static paimon_catalog *cat;
static paimon_error err;

/* ------------------------------------------------------------ partition times */

static int64_t parse_secs(const char *formatter, const char *text, int *ok) {
  pm_ptime_format *f = NULL;
  pm_error e = {0};
  *ok = 0;
  if (pm_ptime_format_compile(formatter, &f, &e)) return -1;
  pm_local_time t;
  int rc = pm_ptime_parse(f, text, &t, &e);
  pm_ptime_format_free(f);
  if (rc) return -2;
  *ok = 1;
  return t.seconds;
}

#define EXPECT_TIME(fmt, text, secs)                                                          \
  do {                                                                                        \
    int ok_;                                                                                  \
    int64_t got_ = parse_secs(fmt, text, &ok_);                                               \
    CHECK_MSG(ok_ && got_ == (secs), "%s / '%s': %lld", fmt ? fmt : "(default)", text, (long long)got_); \
  } while (0)
#define EXPECT_NO_TIME(fmt, text)                                                             \
  do {                                                                                        \
    int ok_;                                                                                  \
    parse_secs(fmt, text, &ok_);                                                              \
    CHECK_MSG(!ok_, "%s / '%s' parsed", fmt ? fmt : "(default)", text);                       \
  } while (0)

static void test_time_extract(void) {
  /* Java's default: y-M-d[ H:m:s[.f]], lenient */
  EXPECT_TIME(NULL, "2024-01-05", 1704412800);
  EXPECT_TIME(NULL, "2024-1-5", 1704412800);
  EXPECT_TIME(NULL, "2024-01-05 03:04:05", 1704423845);
  EXPECT_TIME(NULL, "2024-01-05 3:4:5.25", 1704423845);
  EXPECT_TIME(NULL, "2024-13-01", 1735689600);     /* lenient: month 13 = next January */
  EXPECT_TIME(NULL, "2024-02-30", 1709251200);     /* lenient: Feb 30 = Mar 1 */
  EXPECT_NO_TIME(NULL, "2024-01-05 10:00");        /* the optional time is all or nothing */
  EXPECT_NO_TIME(NULL, "20240105");
  EXPECT_NO_TIME(NULL, "abc");
  EXPECT_NO_TIME(NULL, "");
  /* DateTimeFormatter patterns, SMART */
  EXPECT_TIME("yyyyMMdd", "20240105", 1704412800);
  EXPECT_NO_TIME("yyyyMMdd", "2024015");
  EXPECT_NO_TIME("yyyyMMdd", "20241301");          /* month out of range */
  EXPECT_TIME("yyyyMMdd", "20240230", 1709164800); /* SMART: clamped to Feb 29 */
  EXPECT_TIME("yyyyMMddHH", "2024010512", 1704456000);
  EXPECT_TIME("yyyy-MM-dd HH:mm:ss", "2024-01-05 03:04:05", 1704423845);
  EXPECT_TIME("yyyy-MM-dd", "2024-01-05", 1704412800);
  EXPECT_NO_TIME("yyyy-MM-dd", "2024-1-5");        /* MM is two digits */
  EXPECT_TIME("yyyy-M-d", "2024-1-5", 1704412800);
  EXPECT_TIME("yyMMdd", "240105", 1704412800);     /* reduced year, base 2000 */
  EXPECT_TIME("yyyy/MM/dd'T'HH", "2024/01/05T12", 1704456000);
  EXPECT_TIME("yyyyMMdd HH:mm:ss.SSS", "20240105 03:04:05.250", 1704423845);
  EXPECT_TIME("yyyy-MM-dd HH", "2024-01-05 24", 1704499200); /* SMART: 24:00 = next midnight */
  EXPECT_NO_TIME("yyyyMM", "202401");              /* no day: no date */
  EXPECT_NO_TIME("yyyyMMdd", "20240105x");
  /* the other patterns Java users write: proleptic year, ISO 'T', fractions, packed times */
  EXPECT_TIME("uuuu-MM-dd", "2024-01-05", 1704412800);
  EXPECT_TIME("uuuuMMddHHmmss", "20240105030405", 1704423845);
  EXPECT_TIME("yyyy-MM-dd'T'HH:mm:ss", "2024-01-05T03:04:05", 1704423845);
  EXPECT_TIME("yyyy-MM-dd'T'HH:mm:ss.SSS", "2024-01-05T03:04:05.999", 1704423845);
  EXPECT_TIME("yyyy-MM-dd HH:mm", "2024-01-05 03:04", 1704423840);
  EXPECT_TIME("yyyy_MM_dd-HH", "2024_01_05-03", 1704423600);
  EXPECT_TIME("'dt='yyyyMMdd", "dt=20240105", 1704412800);
  EXPECT_TIME("dd.MM.yyyy", "05.01.2024", 1704412800);
  EXPECT_NO_TIME("yyyy-MM-dd'T'HH", "2024-01-05 03");
  pm_ptime_format *f = NULL;
  pm_error e = {0};
  /* unsupported letters are refused naming the option and the letter: an unquoted T, am/pm,
   * zones, optional sections */
  CHECK_EQ_INT(pm_ptime_format_compile("yyyy-MM-ddTHH", &f, &e), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(e.message, "partition.timestamp-formatter") && strstr(e.message, "'T'"));
  CHECK_EQ_INT(pm_ptime_format_compile("yyyy-MM-dd hh a", &f, &e), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(e.message, "partition.timestamp-formatter") && strstr(e.message, "'h'"));
  CHECK_EQ_INT(pm_ptime_format_compile("yyyy-MM-dd HH:mm:ssXXX", &f, &e), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(e.message, "'X'") != NULL);
  CHECK_EQ_INT(pm_ptime_format_compile("yyyy-MM-dd[ HH]", &f, &e), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(e.message, "partition.timestamp-formatter") && strstr(e.message, "'['"));
  CHECK_EQ_INT(pm_ptime_format_compile("yyyy-MMM-dd", &f, &e), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(e.message, "partition.timestamp-formatter") != NULL);
  CHECK_EQ_INT(pm_ptime_format_compile("yyyy-MM-dd'", &f, &e), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_ptime_format_compile("yyyy-ww", &f, &e), PAIMON_ERR_INVALID_ARGUMENT);
  /* $key patterns: longer keys first; a null value the pattern uses */
  const char *keys[] = {"dt", "dt1", "hr"};
  const char *vals[] = {"A", "B", "07"};
  char *s = NULL;
  CHECK_EQ_INT(pm_ptime_text("$dt1|$dt|$hr:00|$x", keys, vals, 3, &s, &e), 0);
  CHECK_EQ_STR(s, "B|A|07:00|$x");
  free(s);
  CHECK_EQ_INT(pm_ptime_text(NULL, keys, vals, 3, &s, &e), 0);
  CHECK_EQ_STR(s, "A");
  free(s);
  const char *nvals[] = {"A", NULL, "07"};
  CHECK_EQ_INT(pm_ptime_text("$dt-$hr", keys, nvals, 3, &s, &e), 0); /* dt1 unused */
  CHECK_EQ_STR(s, "A-07");
  free(s);
  CHECK_EQ_INT(pm_ptime_text("$dt1-$hr", keys, nvals, 3, &s, &e), PAIMON_ERR_INVALID_ARGUMENT);
  /* local times and the check-interval gate */
  pm_local_time a = pm_local_time_of_millis(-1), b = pm_local_time_of_millis(0);
  CHECK(a.seconds == -1 && a.nanos == 999000000 && pm_local_time_cmp(a, b) < 0);
  pm_pexpire_config c;
  memset(&c, 0, sizeof c);
  c.check_interval_ms = 3600000;
  pm_pexpire_gate g = {0};
  CHECK_EQ_INT(pm_pexpire_gate_due(&g, &c, 1000000000, 5), 0); /* Java: never on the first check */
  CHECK_EQ_INT(pm_pexpire_gate_due(&g, &c, 1000000000 + 3600001, 5), 1);
  CHECK_EQ_INT(pm_pexpire_gate_due(&g, &c, 1000000000 + 3600002, 5), 0);
  c.end_input_check = 1;
  CHECK_EQ_INT(pm_pexpire_gate_due(&g, &c, 1000000000 + 3600003, PM_BATCH_COMMIT_IDENTIFIER), 1);
  c.check_interval_ms = 0;
  CHECK_EQ_INT(pm_pexpire_gate_due(&g, &c, 1, 5), 1);
}

/* ------------------------------------------------------------ tables */

static paimon_table *open_t(const char *ident) {
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  return t;
}

static void table_dir(const char *db, const char *name, char *out, size_t cap) {
  snprintf(out, cap, "%s/%s.db/%s", wh, db, name);
}

/* Rows (JSON objects) of lines matching a partition filter: keep(line) */
static json_t *rows_of(const char *lines) {
  size_t bad = 0;
  return ot_parse_lines(lines, &bad);
}

static int64_t latest_id(const char *dir, char **kind, char **user) {
  pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), dir, NULL);
  pm_snapshot *s = NULL;
  pm_error e = {0};
  if (pm_snapshot_read_latest(&m, &s, &e) || !s) return 0;
  int64_t id = s->id;
  if (kind) *kind = strdup(s->commit_kind ? s->commit_kind : "");
  if (user) *user = strdup(s->commit_user ? s->commit_user : "");
  pm_snapshot_free(s);
  return id;
}

typedef struct collected {
  char items[16][128];
  int n;
} collected;

static void collect(void *ctx, const char *p) {
  collected *c = ctx;
  if (c->n < 16) snprintf(c->items[c->n++], sizeof c->items[0], "%s", p);
}

#define R_OLD1 "{\"id\":1,\"v\":\"a\",\"dt\":\"2020-01-01\"}\n{\"id\":2,\"v\":\"b\",\"dt\":\"2020-01-01\"}\n"
#define R_OLD2 "{\"id\":3,\"v\":\"c\",\"dt\":\"2020-01-02\"}\n"
#define R_OLD3 "{\"id\":4,\"v\":\"d\",\"dt\":\"2020-01-03\"}\n"
#define R_NEW "{\"id\":5,\"v\":\"e\",\"dt\":\"2999-01-01\"}\n{\"id\":6,\"v\":\"f\",\"dt\":\"2999-01-01\"}\n"
#define R_ABC "{\"id\":7,\"v\":\"g\",\"dt\":\"abc\"}\n"
#define R_NULL "{\"id\":8,\"v\":\"h\",\"dt\":null}\n"

/* Creates db.name (id INT, v STRING, dt STRING, partitioned by dt) with the six partitions above,
 * one commit each (snapshots 1..6). */
static void make_dt_table(const char *name, const char *const *opts, size_t n_opts) {
  char ident[128];
  snprintf(ident, sizeof ident, "pe.%s", name);
  CHECK_OK(ow_create_table(cat, "pe", name, "id INT, v STRING, dt STRING", "dt", opts, n_opts, 0, &err), &err);
  paimon_table *t = open_t(ident);
  const char *batches[] = {R_OLD2, R_NEW, R_OLD1, R_ABC, R_OLD3, R_NULL};
  for (int i = 0; t && i < 6; i++) CHECK_OK(ow_write_commit(t, NULL, 0, 0, batches[i], NULL, 0, 0, NULL, &err), &err);
  paimon_table_free(t);
}

static void test_values_time(void) {
  make_dt_table("t1", NULL, 0);
  char dir[512];
  table_dir("pe", "t1", dir, sizeof dir);
  json_t *before[7] = {0};
  for (int id = 1; id <= 6; id++) {
    char extra[32];
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    int rc = 0;
    before[id] = ot_read(dir, extra, &rc, NULL);
  }
  paimon_table *t = open_t("pe.t1");
  if (!t) return;
  paimon_expire_partitions_options o;
  memset(&o, 0, sizeof o);
  o.expiration_time = "1 d";
  o.max_expires = 2;
  o.dry_run = 1;
  collected c = {0};
  paimon_expire_partitions_result r;
  CHECK_OK(paimon_table_expire_partitions(t, &o, collect, &c, &r, &err), &err);
  CHECK_EQ_INT(r.expired, 2);
  CHECK_EQ_INT(r.partitions, 6);
  CHECK_EQ_INT(r.snapshot_id, -1);
  CHECK_EQ_INT(c.n, 2);
  CHECK_EQ_STR(c.items[0], "dt=2020-01-01"); /* sorted by value, not by write order */
  CHECK_EQ_STR(c.items[1], "dt=2020-01-02");
  CHECK_EQ_INT(latest_id(dir, NULL, NULL), 6); /* dry run: nothing committed */
  o.dry_run = 0;
  memset(&c, 0, sizeof c);
  CHECK_OK(paimon_table_expire_partitions(t, &o, collect, &c, &r, &err), &err);
  CHECK_EQ_INT(r.expired, 2);
  CHECK_EQ_INT(r.snapshot_id, 7);
  char *kind = NULL, *user = NULL;
  CHECK_EQ_INT(latest_id(dir, &kind, &user), 7);
  CHECK_EQ_STR(kind, "OVERWRITE");
  CHECK(user && strlen(user) == 36); /* a random user (Java's "" is refused by our committer) */
  free(kind);
  free(user);
  CHECK(ot_check_ok(dir, 0, "after expiring 2 partitions"));
  json_t *want = rows_of(R_OLD3 R_NEW R_ABC R_NULL);
  CHECK(ot_read_equals(dir, NULL, want, "kept partitions after the first expiry"));
  json_decref(want);
  for (int id = 1; id <= 6; id++) {
    char extra[32];
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    CHECK(ot_read_equals(dir, extra, before[id], "an earlier snapshot after expiry"));
    json_decref(before[id]);
  }
  /* the table's max (100): the rest of the past; "abc" and null stay (no time) */
  o.max_expires = 0;
  memset(&c, 0, sizeof c);
  CHECK_OK(paimon_table_expire_partitions(t, &o, collect, &c, &r, &err), &err);
  CHECK_EQ_INT(r.expired, 1);
  CHECK_EQ_INT(r.partitions, 4);
  CHECK_EQ_STR(c.items[0], "dt=2020-01-03");
  want = rows_of(R_NEW R_ABC R_NULL);
  CHECK(ot_read_equals(dir, NULL, want, "kept partitions after the second expiry"));
  json_decref(want);
  CHECK(ot_check_ok(dir, 0, "after the second expiry"));
  /* nothing left to expire: nothing committed */
  CHECK_OK(paimon_table_expire_partitions(t, &o, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT(r.expired, 0);
  CHECK_EQ_INT(r.snapshot_id, -1);
  CHECK_EQ_INT(latest_id(dir, NULL, NULL), 8);
  /* a long expiration time: the future partition stays; "2999" is before now + 1000 years */
  o.expiration_time = "-1 d";
  CHECK_EQ_INT(paimon_table_expire_partitions(t, &o, NULL, NULL, &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "partition.expiration-time") != NULL);
  paimon_table_free(t);
}

static void test_formatter_pattern_update_time(void) {
  /* year/month/day partitions, pattern "$year-$month-$day" with the default formatter */
  CHECK_OK(ow_create_table(cat, "pe", "ymd", "id INT, year STRING, month STRING, day STRING", "year,month,day", NULL,
                           0, 0, &err),
           &err);
  paimon_table *t = open_t("pe.ymd");
  if (!t) return;
  CHECK_OK(ow_write_commit(t, NULL, 0, 0,
                           "{\"id\":1,\"year\":\"2019\",\"month\":\"12\",\"day\":\"31\"}\n"
                           "{\"id\":2,\"year\":\"2999\",\"month\":\"1\",\"day\":\"1\"}\n"
                           "{\"id\":3,\"year\":\"2020\",\"month\":\"2\",\"day\":\"1\"}\n",
                           NULL, 0, 0, NULL, &err),
           &err);
  paimon_expire_partitions_options o;
  memset(&o, 0, sizeof o);
  o.expiration_time = "7 d";
  o.timestamp_pattern = "$year-$month-$day";
  collected c = {0};
  paimon_expire_partitions_result r;
  CHECK_OK(paimon_table_expire_partitions(t, &o, collect, &c, &r, &err), &err);
  CHECK_EQ_INT(r.expired, 2);
  CHECK_EQ_STR(c.items[0], "year=2019, month=12, day=31");
  CHECK_EQ_STR(c.items[1], "year=2020, month=2, day=1");
  char dir[512];
  table_dir("pe", "ymd", dir, sizeof dir);
  json_t *want = rows_of("{\"id\":2,\"year\":\"2999\",\"month\":\"1\",\"day\":\"1\"}\n");
  CHECK(ot_read_equals(dir, NULL, want, "ymd after expiry"));
  json_decref(want);
  CHECK(ot_check_ok(dir, 0, "ymd after expiry"));
  paimon_table_free(t);

  /* dt = yyyyMMdd with the formatter given as a table option; an unsupported formatter is refused */
  const char *opts[] = {"partition.timestamp-formatter=yyyyMMdd", "partition.expiration-time=1 d"};
  CHECK_OK(ow_create_table(cat, "pe", "fmt", "id INT, dt STRING", "dt", opts, 2, 0, &err), &err);
  t = open_t("pe.fmt");
  if (!t) return;
  CHECK_OK(ow_write_commit(t, NULL, 0, 0, "{\"id\":1,\"dt\":\"20200101\"}\n{\"id\":2,\"dt\":\"29990101\"}\n"
                           "{\"id\":3,\"dt\":\"2020-01-01\"}\n", NULL, 0, 0, NULL, &err), &err);
  memset(&o, 0, sizeof o);
  memset(&c, 0, sizeof c);
  CHECK_OK(paimon_table_expire_partitions(t, NULL, collect, &c, &r, &err), &err); /* the table's own options */
  CHECK_EQ_INT(r.expired, 1);
  CHECK_EQ_STR(c.items[0], "dt=20200101");
  table_dir("pe", "fmt", dir, sizeof dir);
  want = rows_of("{\"id\":2,\"dt\":\"29990101\"}\n{\"id\":3,\"dt\":\"2020-01-01\"}\n");
  CHECK(ot_read_equals(dir, NULL, want, "fmt after expiry"));
  json_decref(want);
  o.timestamp_formatter = "yyyy-MMM-dd";
  CHECK_EQ_INT(paimon_table_expire_partitions(t, &o, NULL, NULL, &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
  o.timestamp_formatter = NULL;
  o.expire_strategy = "values_time";
  CHECK_EQ_INT(paimon_table_expire_partitions(t, &o, NULL, NULL, &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "partition.expiration-strategy") != NULL);
  /* update-time: the files were written just now, so nothing is a day old ... */
  o.expire_strategy = "update-time";
  CHECK_OK(paimon_table_expire_partitions(t, &o, NULL, NULL, &r, &err), &err);
  CHECK_EQ_INT(r.expired, 0);
  paimon_table_free(t);
  /* ... but two days from now both partitions are (max-num 1: the first by value) */
  pm_table *pt = NULL;
  pm_error e = {0};
  pm_options dyn;
  pm_options_init(&dyn);
  pm_options_set(&dyn, pm_core_option_key(PM_CO_PARTITION_EXPIRATION_STRATEGY), "update-time", &e);
  pm_options_set(&dyn, pm_core_option_key(PM_CO_PARTITION_EXPIRATION_MAX_NUM), "1", &e);
  CHECK_OK(pm_table_open_fs(pm_fs_local(), dir, "pe", "fmt", NULL, &dyn, NULL, &pt, &e), &e);
  pm_options_clear(&dyn);
  if (!pt) return;
  pm_pexpire_config pc;
  CHECK_OK(pm_pexpire_config_from_table(pt, &pc, &e), &e);
  CHECK_EQ_INT(pc.strategy, PM_PEXPIRE_UPDATE_TIME);
  pm_pexpired_list l;
  CHECK_OK(pm_partition_expire_plan(pt, &pc, pm_pexpire_local_now_ms() + 2 * 86400000LL, &l, &e), &e);
  CHECK_EQ_INT(l.n, 1);
  CHECK_EQ_INT(l.candidates, 2);
  if (l.n) CHECK_EQ_STR(l.items[0].spec, "dt=2020-01-01");
  pm_pexpired_list_clear(&l);
  pm_table_free(pt);
}

static void test_refusals(void) {
  CHECK_OK(ow_create_table(cat, "pe", "flat", "id INT, v STRING", NULL, NULL, 0, 0, &err), &err);
  paimon_table *t = open_t("pe.flat");
  paimon_expire_partitions_options o;
  memset(&o, 0, sizeof o);
  o.expiration_time = "1 d";
  CHECK_EQ_INT(paimon_table_expire_partitions(t, &o, NULL, NULL, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "not partitioned") != NULL);
  paimon_table_free(t);
  t = open_t("pe.ymd");
  CHECK_EQ_INT(paimon_table_expire_partitions(t, NULL, NULL, NULL, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "partition.expiration-time") != NULL);
  o.max_expires = -3;
  CHECK_EQ_INT(paimon_table_expire_partitions(t, &o, NULL, NULL, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  paimon_table_free(t);
  CHECK_EQ_INT(paimon_table_expire_partitions(NULL, &o, NULL, NULL, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
}

/* ------------------------------------------------------------ after commits */

/* Writes lines and commits them through a committer of the table, returning its expire status. */
static paimon_status write_commit_status(const char *ident, const char *lines, paimon_status *expire_st,
                                         char *expire_msg, size_t cap) {
  paimon_table *t = open_t(ident);
  paimon_write_builder *wb = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  pm_table_write *w = NULL;
  pm_manifest_committable *mc = NULL;
  struct ArrowSchema s = {0};
  struct ArrowArray a = {0};
  pm_error e = {0};
  paimon_status st = t ? paimon_write_builder_new(t, 0, NULL, 0, &wb, &err) : PAIMON_ERR_NOT_FOUND;
  if (!st) {
    pm_write_config cfg = {paimon_write_builder_commit_user(wb), 0, 0, 0};
    st = (paimon_status)pm_table_write_open(wb->t, &cfg, &w, &e);
    if (!st) st = ow_batch(t, lines, &s, &a, &err);
    if (!st) st = (paimon_status)pm_table_write_arrow(w, &s, &a, &e);
    if (!st) st = (paimon_status)pm_table_write_prepare(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &mc, &e);
    if (!st) st = (paimon_status)pm_api_messages_wrap(mc, &m, &e);
  }
  if (!st) st = paimon_write_builder_new_commit(wb, &c, &err);
  if (!st) st = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
  paimon_error ee = {0};
  *expire_st = c ? paimon_table_commit_maintenance_status(c, &ee) : PAIMON_OK;
  snprintf(expire_msg, cap, "%s", ee.message);
  if (a.release) a.release(&a);
  if (s.release) s.release(&s);
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  pm_table_write_free(w);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  return st;
}

static void test_after_commit(void) {
  const char *opts[] = {"partition.expiration-time=1 d", "partition.expiration-check-interval=0"};
  CHECK_OK(ow_create_table(cat, "pe", "auto", "id INT, v STRING, dt STRING", "dt", opts, 2, 0, &err), &err);
  paimon_status es = 0;
  char msg[1024];
  CHECK_OK(write_commit_status("pe.auto", R_OLD1 R_NEW, &es, msg, sizeof msg), &err);
  CHECK_EQ_INT(es, 0);
  char dir[512], *kind = NULL, *user = NULL, *user1 = NULL;
  table_dir("pe", "auto", dir, sizeof dir);
  CHECK_EQ_INT(latest_id(dir, &kind, &user), 2); /* APPEND, then the expiry's OVERWRITE */
  CHECK_EQ_STR(kind, "OVERWRITE");
  {
    pm_snapshot_manager m = pm_snapshot_manager_of(pm_fs_local(), dir, NULL);
    pm_snapshot *s1 = NULL;
    pm_error e = {0};
    CHECK_OK(pm_snapshot_read(&m, 1, &s1, &e), &e);
    if (s1) user1 = strdup(s1->commit_user);
    pm_snapshot_free(s1);
  }
  CHECK_EQ_STR(user, user1); /* the committer's own user */
  free(kind);
  free(user);
  free(user1);
  json_t *want = rows_of(R_NEW);
  CHECK(ot_read_equals(dir, NULL, want, "auto: after the commit"));
  json_decref(want);
  CHECK(ot_check_ok(dir, 0, "auto: after the commit"));

  /* the default check interval (1 h): Java's first check never runs */
  const char *opts2[] = {"partition.expiration-time=1 d"};
  CHECK_OK(ow_create_table(cat, "pe", "auto_interval", "id INT, v STRING, dt STRING", "dt", opts2, 1, 0, &err), &err);
  CHECK_OK(write_commit_status("pe.auto_interval", R_OLD1 R_NEW, &es, msg, sizeof msg), &err);
  table_dir("pe", "auto_interval", dir, sizeof dir);
  CHECK_EQ_INT(latest_id(dir, NULL, NULL), 1);

  /* a broken formatter: the commit succeeds, the expiry's failure is reported apart */
  const char *opts3[] = {"partition.expiration-time=1 d", "partition.expiration-check-interval=0",
                         "partition.timestamp-formatter=yyyy-MMM-dd"};
  CHECK_OK(ow_create_table(cat, "pe", "auto_bad", "id INT, v STRING, dt STRING", "dt", opts3, 3, 0, &err), &err);
  CHECK_OK(write_commit_status("pe.auto_bad", R_OLD1 R_NEW, &es, msg, sizeof msg), &err);
  CHECK_EQ_INT(es, PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(msg, "partition.timestamp-formatter") != NULL);
  table_dir("pe", "auto_bad", dir, sizeof dir);
  CHECK_EQ_INT(latest_id(dir, NULL, NULL), 1);
  want = rows_of(R_OLD1 R_NEW);
  CHECK(ot_read_equals(dir, NULL, want, "auto_bad: the commit is there"));
  json_decref(want);

  /* write-only: no expiry (Java creates none) */
  const char *opts4[] = {"partition.expiration-time=1 d", "partition.expiration-check-interval=0", "write-only=true"};
  CHECK_OK(ow_create_table(cat, "pe", "auto_wo", "id INT, v STRING, dt STRING", "dt", opts4, 3, 0, &err), &err);
  CHECK_OK(write_commit_status("pe.auto_wo", R_OLD1 R_NEW, &es, msg, sizeof msg), &err);
  table_dir("pe", "auto_wo", dir, sizeof dir);
  CHECK_EQ_INT(latest_id(dir, NULL, NULL), 1);
}

int main(void) {
  RUN_TEST(test_time_extract);
  if (!ot_available()) TEST_MAIN_END();
  snprintf(wh, sizeof wh, "/tmp/pm_pexpire_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  paimon_option o = {"warehouse", wh};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  ot_cache_enable(1);
  RUN_TEST(test_values_time);
  RUN_TEST(test_formatter_pattern_update_time);
  RUN_TEST(test_refusals);
  RUN_TEST(test_after_commit);
  paimon_catalog_free(cat);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
