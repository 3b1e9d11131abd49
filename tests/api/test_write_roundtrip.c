/*
 * Type-coverage round trip of the write path (issue 11 §5, first item): tables
 * with every Paimon type (nested ARRAY / MAP / ROW, nulls at every level,
 * extremes, pre-epoch times, non-ASCII strings), 0 / 1 / 2 partition keys with
 * null, empty and special-character values, fixed and unaware buckets, each
 * file format and codec, several commits, static and dynamic overwrite,
 * truncate / drop partitions, truncate table and alter table between commits.
 * After every step our reader returns exactly the model's rows; at checkpoints
 * (every oracle run costs about a second) the table passes `paimon-table
 * check` and (Parquet data) `paimon-table read` returns exactly the model's
 * rows. paimon-table reads no ORC / Avro data: those tables are checked with
 * `check` (row counts of Avro files) and our reader only. Avro tables have no
 * TIMESTAMP(9) column: Java's AvroSchemaConverter refuses precision > 6, and
 * so do we (tested).
 */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "util/buf.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char tmp_root[256];

#define ALL_COLUMNS                                                                                                  \
  "id INT NOT NULL, c_bool BOOLEAN, c_tiny TINYINT, c_small SMALLINT, c_int INT, c_big BIGINT, c_float FLOAT, "      \
  "c_double DOUBLE, c_dec DECIMAL(10, 2), c_dec_big DECIMAL(38, 9), c_char CHAR(5), c_varchar VARCHAR(10), "        \
  "c_string STRING, c_binary BINARY(3), c_varbinary VARBINARY(8), c_bytes BYTES, c_date DATE, c_time TIME, "        \
  "c_ts0 TIMESTAMP(0), c_ts3 TIMESTAMP(3), c_ts6 TIMESTAMP(6), %s"                                             \
  "c_ltz3 TIMESTAMP(3) WITH LOCAL TIME ZONE, c_ltz6 TIMESTAMP(6) WITH LOCAL TIME ZONE, c_arr ARRAY<INT>, "           \
  "c_arr_str ARRAY<STRING>, c_map MAP<STRING, INT>, c_map2 MAP<INT, ARRAY<STRING>>, "                              \
  "c_row ROW<a INT, b STRING, c ROW<d DOUBLE, e ARRAY<BIGINT>>>, c_arr_row ARRAY<ROW<x INT, y STRING>>"

/* One row (JSON object text) of variant id % 4: normal values, all nulls, nested nulls, extremes /
 * empties. part: the partition columns' JSON members ("" or ",\"p1\":...,\"p2\":..."). */
static void row_json(int id, const char *part, const char *extra, char *out, size_t cap) {
  switch (id % 4) {
    case 0:
      snprintf(out, cap,
               "{\"id\":%d,\"c_bool\":true,\"c_tiny\":%d,\"c_small\":-300,\"c_int\":%d,\"c_big\":%lld,"
               "\"c_float\":1.5,\"c_double\":%d.25,\"c_dec\":\"%d.05\",\"c_dec_big\":\"-123.000000001\","
               "\"c_char\":\"abcde\",\"c_varchar\":\"v%d\",\"c_string\":\"s%d \\u00e9\\u4e2d\",\"c_binary\":\"AQID\","
               "\"c_varbinary\":\"AAECAw==\",\"c_bytes\":\"/w==\",\"c_date\":\"2024-02-29\",\"c_time\":\"12:34:56\","
               "\"c_ts0\":\"2024-01-02T03:04:05\",\"c_ts3\":\"2024-01-02T03:04:05.123\","
               "\"c_ts6\":\"2024-01-02T03:04:05.123456\",\"c_ts9\":\"2024-01-02T03:04:05.123456789\","
               "\"c_ltz3\":\"2024-01-02T03:04:05.123Z\",\"c_ltz6\":\"2024-01-02T03:04:05.123456Z\","
               "\"c_arr\":[1,2,%d],\"c_arr_str\":[\"x\",\"y\"],\"c_map\":[[\"k1\",1],[\"k2\",%d]],"
               "\"c_map2\":[[1,[\"a\",\"b\"]]],\"c_row\":{\"a\":%d,\"b\":\"r\",\"c\":{\"d\":0.5,\"e\":[1,2]}},"
               "\"c_arr_row\":[{\"x\":1,\"y\":\"y1\"},{\"x\":%d,\"y\":\"y2\"}]%s%s}",
               id, id % 100, id * 7, (long long)id * 1000000007LL, id, id, id, id, id, id, id, id, part, extra);
      break;
    case 1:
      snprintf(out, cap,
               "{\"id\":%d,\"c_bool\":null,\"c_tiny\":null,\"c_small\":null,\"c_int\":null,\"c_big\":null,"
               "\"c_float\":null,\"c_double\":null,\"c_dec\":null,\"c_dec_big\":null,\"c_char\":null,"
               "\"c_varchar\":null,\"c_string\":null,\"c_binary\":null,\"c_varbinary\":null,\"c_bytes\":null,"
               "\"c_date\":null,\"c_time\":null,\"c_ts0\":null,\"c_ts3\":null,\"c_ts6\":null,\"c_ts9\":null,"
               "\"c_ltz3\":null,\"c_ltz6\":null,\"c_arr\":null,\"c_arr_str\":null,\"c_map\":null,\"c_map2\":null,"
               "\"c_row\":null,\"c_arr_row\":null%s%s}",
               id, part, extra);
      break;
    case 2:
      snprintf(out, cap,
               "{\"id\":%d,\"c_bool\":false,\"c_tiny\":0,\"c_small\":0,\"c_int\":0,\"c_big\":0,\"c_float\":\"NaN\","
               "\"c_double\":-0.5,\"c_dec\":\"0.00\",\"c_dec_big\":\"0.000000000\",\"c_char\":\"     \","
               "\"c_varchar\":\"\",\"c_string\":\"\",\"c_binary\":\"AAAA\",\"c_varbinary\":\"\",\"c_bytes\":\"\","
               "\"c_date\":\"1970-01-01\",\"c_time\":\"00:00:00\",\"c_ts0\":\"1970-01-01T00:00:00\","
               "\"c_ts3\":\"1970-01-01T00:00:00.000\",\"c_ts6\":\"1970-01-01T00:00:00.000000\","
               "\"c_ts9\":\"1970-01-01T00:00:00.000000000\",\"c_ltz3\":\"1970-01-01T00:00:00.000Z\","
               "\"c_ltz6\":\"1970-01-01T00:00:00.000000Z\",\"c_arr\":[1,null,3],\"c_arr_str\":[null,\"\"],"
               "\"c_map\":[[\"k\",null],[\"\",0]],\"c_map2\":[[1,null],[2,[null,\"x\"]]],"
               "\"c_row\":{\"a\":null,\"b\":null,\"c\":null},\"c_arr_row\":[null,{\"x\":null,\"y\":\"q\"}]%s%s}",
               id, part, extra);
      break;
    default:
      snprintf(out, cap,
               "{\"id\":%d,\"c_bool\":true,\"c_tiny\":-128,\"c_small\":32767,\"c_int\":-2147483648,"
               "\"c_big\":9007199254740991,\"c_float\":\"-Infinity\",\"c_double\":\"NaN\",\"c_dec\":\"-99999999.99\","
               "\"c_dec_big\":\"12345678901234567890123456789.123456789\",\"c_char\":\"\\u00e9\\u00e9\\u00e9ab\","
               "\"c_varchar\":\"\\\"q\\\\\\n\\t\",\"c_string\":\"%d/\\u00e9=%%\",\"c_binary\":\"////\","
               "\"c_varbinary\":\"AP8A/wD/AP8=\",\"c_bytes\":\"AAECAwQFBgcICQ==\",\"c_date\":\"1969-12-31\","
               "\"c_time\":\"23:59:59\",\"c_ts0\":\"1969-12-31T23:59:59\",\"c_ts3\":\"1900-01-01T00:00:00.001\","
               "\"c_ts6\":\"1969-12-31T23:59:59.999999\",\"c_ts9\":\"1969-12-31T23:59:59.999999999\","
               "\"c_ltz3\":\"2262-04-11T23:47:16.854Z\",\"c_ltz6\":\"1969-12-31T23:59:59.000001Z\","
               "\"c_arr\":[],\"c_arr_str\":[],\"c_map\":[],\"c_map2\":[[3,[]]],"
               "\"c_row\":{\"a\":1,\"b\":\"s\",\"c\":{\"d\":null,\"e\":[null,5]}},\"c_arr_row\":[]%s%s}",
               id, id, part, extra);
  }
}

typedef struct rt_table {
  paimon_catalog *cat;
  char name[64], ident[96], dir[700];
  int parquet;
  ot_model m;
  int next_id;
  int extra_column; /* c_new added, c_small renamed c_small2 */
  int no_ts9;       /* Avro: no TIMESTAMP(9) column */
  int lz4;          /* Parquet with file.compression = lz4 */
  int orc;          /* ORC data files */
  int steps;
} rt_table;

static void rt_open(rt_table *t, const char *name, const char *partition_keys, const char *const *options,
                    size_t n_options) {
  memset(t, 0, sizeof *t);
  char wh[512];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", wh);
  CHECK(system(cmd) == 0);
  paimon_option o = {"warehouse", wh};
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&o, 1, &t->cat, &err), &err);
  snprintf(t->name, sizeof t->name, "%s", name);
  snprintf(t->ident, sizeof t->ident, "db.%s", name);
  snprintf(t->dir, sizeof t->dir, "%s/db.db/%s", wh, name);
  t->parquet = 1;
  for (size_t i = 0; i < n_options; i++) {
    if (!strncmp(options[i], "file.format=", 12) && strcmp(options[i] + 12, "parquet")) t->parquet = 0;
    if (!strcmp(options[i], "file.format=avro")) t->no_ts9 = 1;
    if (!strcmp(options[i], "file.compression=lz4")) t->lz4 = 1;
    if (!strcmp(options[i], "file.format=orc")) t->orc = 1;
  }
  char columns[4096], all[2048];
  snprintf(all, sizeof all, ALL_COLUMNS, t->no_ts9 ? "" : "c_ts9 TIMESTAMP(9), ");
  snprintf(columns, sizeof columns, "%s%s", all,
           !partition_keys ? "" : strchr(partition_keys, ',') ? ", p1 STRING, p2 INT" : ", p1 STRING");
  if (t->cat)
    CHECK_OK(ow_create_table(t->cat, "db", name, columns, partition_keys, options, n_options, 0, &err), &err);
  ot_model_init(&t->m);
  t->next_id = 1;
}

static void rt_close(rt_table *t) {
  ot_model_clear(&t->m);
  paimon_catalog_free(t->cat);
}

/* Verifies the table against the model with our reader and, when `oracle`, with paimon-table
 * (check; read for Parquet data). */
static void rt_verify(rt_table *t, const char *what, int oracle) {
  char w[256];
  snprintf(w, sizeof w, "%s: %s", t->name, what);
  /* Parquet LZ4: Java writes the deprecated Hadoop-framed LZ4 codec, which DuckDB (and so
   * paimon-table read) cannot read; we write LZ4_RAW, which Java's parquet reader reads too:
   * that FAIL line alone is accepted (printed as a note). */
  static const char *const lz4_note[] = {"(Java: LZ4 from file.compression)"};
  if (oracle && t->lz4)
    CHECK(ot_check_ok_allowing(t->dir, 0, lz4_note, 1, w));
  else if (oracle)
    CHECK(ot_check_ok(t->dir, 0, w));
  if (oracle && t->parquet) CHECK(ot_read_equals(t->dir, NULL, t->m.live, w));
  paimon_table *tb = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(t->cat, t->ident, &tb, &err), &err);
  json_t *ours = tb ? ow_read_ours(tb, &err) : NULL;
  CHECK_MSG(ours != NULL, "%s: our read: %s", w, err.message);
  char msg[8192];
  if (ours) CHECK_MSG(ot_rows_match(t->m.live, ours, msg, sizeof msg), "%s (our reader): %s", w, msg);
  json_decref(ours);
  paimon_table_free(tb);
  t->steps++;
}

/* n rows in one partition (part: JSON members text), shaped as the table's current columns.
 * Returns the JSON lines (malloc'd). */
static char *rt_rows(rt_table *t, int n, const char *part) {
  pm_buf out;
  pm_buf_init(&out);
  char line[8192];
  for (int i = 0; i < n; i++) {
    char extra[64] = "";
    int id = t->next_id++;
    if (t->extra_column) snprintf(extra, sizeof extra, ",\"c_new\":%s", id % 2 ? "\"n\"" : "null");
    row_json(id, part, extra, line, sizeof line);
    json_error_t je;
    json_t *o = json_loads(line, 0, &je);
    CHECK_MSG(o != NULL, "row %d: %s", id, je.text);
    if (!o) continue;
    if (t->extra_column) {
      json_object_set(o, "c_small2", json_object_get(o, "c_small"));
      json_object_del(o, "c_small");
    }
    if (t->no_ts9) json_object_del(o, "c_ts9");
    if (t->orc) {
      /* ORC stores seconds = trunc(floor_millis / 1000) and the nanos of the second (Java's
       * TimestampTreeWriter; we write the same bytes): an instant in (-1 s, 0) with a sub-second
       * part reads back as +fraction in every ORC reader (Java's, ORC C++, ours). Such values are
       * not representable in ORC; one second earlier they are (still pre-1970, sub-second). */
      static const char *const shift[][2] = {{"1969-12-31T23:59:59.999999", "1969-12-31T23:59:58.999999"},
                                             {"1969-12-31T23:59:59.999999999", "1969-12-31T23:59:58.999999999"}};
      const char *cols[] = {"c_ts6", "c_ts9"};
      for (int c = 0; c < 2; c++) {
        const char *v = json_string_value(json_object_get(o, cols[c]));
        if (v && !strcmp(v, shift[c][0])) json_object_set_new(o, cols[c], json_string(shift[c][1]));
      }
    }
    char *text = json_dumps(o, JSON_COMPACT | JSON_PRESERVE_ORDER);
    CHECK(text != NULL && pm_buf_append(&out, text, strlen(text)) == 0 && pm_buf_push_u8(&out, '\n') == 0);
    free(text);
    json_decref(o);
  }
  CHECK(pm_buf_push_u8(&out, 0) == 0);
  return (char *)out.data;
}

/* Writes and commits rows (JSON lines); overwrite as in ow_write_commit; the model follows. */
static void rt_commit(rt_table *t, const char *rows, const paimon_option *spec, size_t n_spec, int overwrite,
                      const char *what, int oracle) {
  paimon_table *tb = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(t->cat, t->ident, &tb, &err), &err);
  int64_t snap = -1;
  if (tb) CHECK_OK(ow_write_commit(tb, NULL, 0, 0, rows, spec, n_spec, overwrite, &snap, &err), &err);
  CHECK_MSG(snap > 0, "%s: %s: no snapshot", t->name, what);
  paimon_table_free(tb);
  json_t *r = ot_parse_lines(rows, NULL);
  CHECK(r != NULL);
  if (overwrite) {
    if (n_spec == 0) {
      /* dynamic: the partitions the rows touch (callers pass rows of one partition) */
      json_t *first = json_array_get(r, 0);
      const char *keys[2] = {"p1", "p2"};
      const json_t *vals[2] = {json_object_get(first, "p1"), json_object_get(first, "p2")};
      size_t nk = vals[1] ? 2 : vals[0] ? 1 : 0;
      ot_model_delete_where(&t->m, keys, vals, nk);
    } else {
      const char *keys[2];
      json_t *vals[2];
      for (size_t i = 0; i < n_spec; i++) {
        keys[i] = spec[i].key;
        vals[i] = !strcmp(spec[i].value, "__DEFAULT_PARTITION__") ? json_null()
                  : !strcmp(spec[i].key, "p2")                    ? json_integer(atoi(spec[i].value))
                                                                  : json_string(spec[i].value);
      }
      ot_model_delete_where(&t->m, keys, (const json_t *const *)vals, n_spec);
      for (size_t i = 0; i < n_spec; i++) json_decref(vals[i]);
    }
  }
  ot_model_append(&t->m, r);
  json_decref(r);
  rt_verify(t, what, oracle);
}

static void rt_truncate_partitions(rt_table *t, const paimon_option *spec, size_t n, const char *what, int oracle) {
  paimon_table *tb = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_commit *c = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_get_table(t->cat, t->ident, &tb, &err), &err);
  if (tb) CHECK_OK(paimon_write_builder_new(tb, 0, NULL, 0, &wb, &err), &err);
  if (wb) CHECK_OK(paimon_write_builder_new_commit(wb, &c, &err), &err);
  int64_t snap = -1;
  if (c && n) {
    const paimon_option *specs[1] = {spec};
    size_t nf[1] = {n};
    CHECK_OK(paimon_table_commit_truncate_partitions(c, specs, nf, 1, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err),
             &err);
  } else if (c) {
    CHECK_OK(paimon_table_commit_truncate_table(c, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err), &err);
  }
  CHECK_MSG(snap > 0, "%s: %s: no snapshot", t->name, what);
  paimon_table_commit_free(c);
  paimon_write_builder_free(wb);
  paimon_table_free(tb);
  const char *keys[2];
  json_t *vals[2];
  for (size_t i = 0; i < n; i++) {
    keys[i] = spec[i].key;
    vals[i] = !strcmp(spec[i].value, "__DEFAULT_PARTITION__") ? json_null()
              : !strcmp(spec[i].key, "p2")                    ? json_integer(atoi(spec[i].value))
                                                              : json_string(spec[i].value);
  }
  ot_model_delete_where(&t->m, keys, (const json_t *const *)vals, n);
  for (size_t i = 0; i < n; i++) json_decref(vals[i]);
  rt_verify(t, what, oracle);
}

/* ALTER TABLE: add c_new STRING, rename c_small -> c_small2 (the model follows). */
static void rt_alter(rt_table *t) {
  paimon_schema_change *ch[2] = {NULL, NULL};
  paimon_error err = {0};
  CHECK_OK(paimon_schema_change_add_column("c_new", "STRING", "added", PAIMON_COLUMN_LAST, NULL, &ch[0], &err), &err);
  CHECK_OK(paimon_schema_change_rename_column("c_small", "c_small2", &ch[1], &err), &err);
  CHECK_OK(paimon_catalog_alter_table(t->cat, t->ident, (const paimon_schema_change *const *)ch, 2, 0, &err), &err);
  paimon_schema_change_free(ch[0]);
  paimon_schema_change_free(ch[1]);
  size_t i;
  json_t *r;
  json_array_foreach(t->m.live, i, r) {
    json_object_set(r, "c_small2", json_object_get(r, "c_small"));
    json_object_del(r, "c_small");
    json_object_set_new(r, "c_new", json_null());
  }
  t->extra_column = 1;
}

/* Two partition keys, fixed buckets, Parquet zstd: every operation, verified after each. */
static void test_two_keys_fixed_bucket_all_operations(void) {
  const char *opts[] = {"bucket=2", "bucket-key=id"};
  rt_table t;
  rt_open(&t, "two_keys", "p1,p2", opts, 2);
  char *rows;
  /* partitions: ordinary, null, empty, special characters, null int */
  const char *parts[] = {",\"p1\":\"a\",\"p2\":1", ",\"p1\":null,\"p2\":2", ",\"p1\":\"\",\"p2\":null",
                         ",\"p1\":\"x/y=z %#?:*\\u00e9 \",\"p2\":3", ",\"p1\":\"b\",\"p2\":2"};
  size_t total = 0;
  char *all = calloc(1, 1);
  for (size_t i = 0; i < 5; i++) {
    rows = rt_rows(&t, 4, parts[i]);
    all = realloc(all, total + strlen(rows) + 1);
    memcpy(all + total, rows, strlen(rows) + 1);
    total += strlen(rows);
    free(rows);
  }
  rt_commit(&t, all, NULL, 0, 0, "commit 1: 5 partitions", 0);
  free(all);
  rows = rt_rows(&t, 5, parts[0]);
  rt_commit(&t, rows, NULL, 0, 0, "commit 2: more rows in p1=a", 0);
  free(rows);
  /* static overwrite of a partial spec p1=a with rows in (a, 5) */
  paimon_option ow[1] = {{"p1", "a"}};
  rows = rt_rows(&t, 3, ",\"p1\":\"a\",\"p2\":5");
  rt_commit(&t, rows, ow, 1, 1, "overwrite p1=a", 1);
  free(rows);
  /* truncate a full spec, drop the null partition */
  paimon_option tp[2] = {{"p1", "b"}, {"p2", "2"}};
  rt_truncate_partitions(&t, tp, 2, "truncate p1=b/p2=2", 0);
  paimon_option dn[1] = {{"p1", "__DEFAULT_PARTITION__"}};
  rt_truncate_partitions(&t, dn, 1, "drop p1=null", 0);
  /* alter between commits, then write with the new schema */
  rt_alter(&t);
  rows = rt_rows(&t, 4, parts[2]);
  rt_commit(&t, rows, NULL, 0, 0, "commit after alter", 1);
  free(rows);
  /* dynamic partition overwrite of the special-character partition */
  rows = rt_rows(&t, 2, parts[3]);
  rt_commit(&t, rows, NULL, 0, 1, "dynamic overwrite of the special partition", 0);
  free(rows);
  rt_truncate_partitions(&t, NULL, 0, "truncate table", 0);
  rows = rt_rows(&t, 4, parts[0]);
  rt_commit(&t, rows, NULL, 0, 0, "commit after truncate", 1);
  free(rows);
  rt_close(&t);
}

/* One key, unaware buckets; no key; each format and codec: two commits each. */
static void test_formats_and_codecs(void) {
  static const char *const formats[][2] = {
      {"parquet", "zstd"}, {"parquet", "snappy"}, {"parquet", "gzip"}, {"parquet", "lz4"}, {"parquet", "none"},
      {"orc", "zstd"},     {"orc", "snappy"},     {"orc", "zlib"},     {"orc", "lz4"},     {"orc", "none"},
      {"avro", "zstd"},    {"avro", "snappy"},    {"avro", "deflate"}, {"avro", "none"},
  };
  for (size_t i = 0; i < sizeof formats / sizeof formats[0]; i++) {
    char f[64], c[64], name[64];
    snprintf(f, sizeof f, "file.format=%s", formats[i][0]);
    snprintf(c, sizeof c, "file.compression=%s", formats[i][1]);
    snprintf(name, sizeof name, "t_%s_%s", formats[i][0], formats[i][1]);
    const char *opts[] = {f, c};
    int keyed = i % 2 == 0;
    rt_table t;
    rt_open(&t, name, keyed ? "p1" : NULL, opts, 2);
    int before = pm_test_failures;
    for (int k = 0; k < 2; k++) {
      char *rows = rt_rows(&t, 4, keyed ? (k ? ",\"p1\":null" : ",\"p1\":\"\\u00e9 /=\"") : "");
      char what[64];
      snprintf(what, sizeof what, "commit %d", k + 1);
      rt_commit(&t, rows, NULL, 0, 0, what, k == 1);
      free(rows);
    }
    fprintf(stderr, "  %s %s/%s%s\n", pm_test_failures == before ? "ok  " : "FAIL", formats[i][0], formats[i][1],
            keyed ? " (partitioned)" : "");
    rt_close(&t);
  }
}

/* Java's AvroSchemaConverter refuses TIMESTAMP(7..9) for Avro files: so does our writer,
 * naming the column, and nothing is committed. */
static void test_avro_refuses_timestamp9(void) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  paimon_option o = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  const char *opts[] = {"file.format=avro"};
  CHECK_OK(ow_create_table(cat, "db", "avro_ts9", "id INT NOT NULL, c_ts9 TIMESTAMP(9)", NULL, opts, 1, 0, &err), &err);
  paimon_table *tb = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "db.avro_ts9", &tb, &err), &err);
  int64_t snap = -1;
  paimon_status st = tb ? ow_write_commit(tb, NULL, 0, 0, "{\"id\":1,\"c_ts9\":\"2024-01-02T03:04:05.123456789\"}\n",
                                          NULL, 0, 0, &snap, &err)
                        : PAIMON_ERR_INTERNAL;
  CHECK_EQ_INT(st, PAIMON_ERR_UNSUPPORTED);
  CHECK_MSG(strstr(err.message, "c_ts9") != NULL, "message: %s", err.message);
  CHECK_EQ_INT(snap, -1);
  char snapdir[700];
  snprintf(snapdir, sizeof snapdir, "%s/db.db/avro_ts9/snapshot/snapshot-1", wh);
  CHECK(access(snapdir, F_OK) != 0);
  paimon_table_free(tb);
  paimon_catalog_free(cat);
}

int main(void) {
  if (!ot_available()) TEST_MAIN_END();
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_write_roundtrip_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_two_keys_fixed_bucket_all_operations);
  RUN_TEST(test_formats_and_codecs);
  RUN_TEST(test_avro_refuses_timestamp9);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
