/* `paimon table import`: jsonl, csv, parquet, orc and avro inputs into tables of a temp
 * warehouse, in one commit each; `table read A --format jsonl | table import B -` (and the
 * csv form) copies a table exactly, judged by the independent reader (paimon-table read);
 * every table written passes paimon-table check; --overwrite (dynamic and --partition); --partition
 * alone (an append into that partition);
 * bad input is a one-line error and leaves the table as it was. */
#include "harness.h"
#include "support/cli_run.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

#define CLI PAIMON_BINARY_DIR "/paimon"

static char wh[256];

static const char *FIELDS =
    "{\"id\":0,\"name\":\"id\",\"type\":\"INT NOT NULL\"},{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},"
    "{\"id\":2,\"name\":\"d\",\"type\":\"DECIMAL(10, 2)\"},{\"id\":3,\"name\":\"ts\",\"type\":\"TIMESTAMP(3)\"},"
    "{\"id\":4,\"name\":\"dt\",\"type\":\"DATE\"},{\"id\":5,\"name\":\"b\",\"type\":\"BYTES\"},"
    "{\"id\":6,\"name\":\"arr\",\"type\":\"INT\"},{\"id\":7,\"name\":\"m\",\"type\":\"BIGINT\"},"
    "{\"id\":8,\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":[{\"id\":11,\"name\":\"x\",\"type\":\"INT\"},"
    "{\"id\":12,\"name\":\"y\",\"type\":\"STRING\"}]}},"
    "{\"id\":9,\"name\":\"f\",\"type\":\"DOUBLE\"},{\"id\":10,\"name\":\"p\",\"type\":\"STRING\"}";

static const char *ROWS =
    "{\"id\":1,\"s\":\"a,\\\"b\\\"\\nc\",\"d\":\"12.50\",\"ts\":\"2024-01-02T03:04:05.678\",\"dt\":\"2024-01-02\","
    "\"b\":\"AAEC\",\"arr\":1,\"m\":10000000000,\"r\":{\"x\":1,\"y\":\"one\"},\"f\":1.5,\"p\":\"x\"}\n"
    "{\"id\":2,\"s\":\"\",\"d\":null,\"ts\":null,\"dt\":null,\"b\":null,\"arr\":-2,\"m\":-1,\"r\":null,\"f\":2.25,"
    "\"p\":\"y\"}\n"
    "{\"id\":3,\"s\":null,\"d\":\"-0.01\",\"ts\":\"1969-12-31T23:59:59.999\",\"dt\":\"1900-03-01\",\"b\":\"\","
    "\"arr\":null,\"m\":null,\"r\":{\"x\":null,\"y\":null},\"f\":-0.0,\"p\":null}\n"
    "{\"id\":4,\"s\":\"\\u00e9\\u4e2d\",\"d\":\"99999999.99\",\"ts\":\"2024-06-30T12:00:00.000\",\"dt\":\"2024-06-30\","
    "\"b\":\"/w==\",\"arr\":7,\"m\":null,\"r\":{\"x\":4,\"y\":\"\"},\"f\":\"-Infinity\",\"p\":\"x\"}\n";

/* Flat columns (the Avro writer takes no nested ones yet). */
static const char *FLAT_FIELDS =
    "{\"id\":0,\"name\":\"id\",\"type\":\"INT NOT NULL\"},{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},"
    "{\"id\":2,\"name\":\"d\",\"type\":\"DECIMAL(10, 2)\"},{\"id\":3,\"name\":\"ts\",\"type\":\"TIMESTAMP(3)\"},"
    "{\"id\":4,\"name\":\"dt\",\"type\":\"DATE\"},{\"id\":5,\"name\":\"b\",\"type\":\"BYTES\"},"
    "{\"id\":9,\"name\":\"f\",\"type\":\"DOUBLE\"},{\"id\":10,\"name\":\"p\",\"type\":\"STRING\"}";
static const char *FLAT_ROWS =
    "{\"id\":1,\"s\":\"a\",\"d\":\"12.50\",\"ts\":\"2024-01-02T03:04:05.678\",\"dt\":\"2024-01-02\",\"b\":\"AAEC\","
    "\"f\":1.5,\"p\":\"x\"}\n"
    "{\"id\":2,\"s\":\"\",\"d\":null,\"ts\":null,\"dt\":null,\"b\":\"\",\"f\":null,\"p\":\"y\"}\n"
    "{\"id\":3,\"s\":null,\"d\":\"-0.01\",\"ts\":\"1969-12-31T23:59:59.999\",\"dt\":\"1900-03-01\",\"b\":null,"
    "\"f\":-2.5,\"p\":null}\n";

static void make_table_with(const char *name, const char *fields, const char *options);
static void make_table(const char *name, const char *options) { make_table_with(name, FIELDS, options); }

static void make_table_with(const char *name, const char *fields, const char *options) {
  char path[512], cmd[700];
  snprintf(path, sizeof path, "%s/d.db/%s/schema", wh, name);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  CHECK_EQ_INT(system(cmd), 0);
  strcat(path, "/schema-0");
  FILE *f = fopen(path, "wb");
  if (!f) return;
  fprintf(f,
          "{\"version\":3,\"id\":0,\"fields\":[%s],\"highestFieldId\":12,\"partitionKeys\":[\"p\"],"
          "\"primaryKeys\":[],\"options\":{%s},\"timeMillis\":1700000000000}",
          fields, options ? options : "");
  fclose(f);
}

static const char *tdir(const char *name) {
  static char d[2][512];
  static int k;
  k ^= 1;
  snprintf(d[k], sizeof d[k], "%s/d.db/%s", wh, name);
  return d[k];
}

static const char *write_file(const char *name, const char *text) {
  static char path[512];
  snprintf(path, sizeof path, "%s/%s", wh, name);
  FILE *f = fopen(path, "wb");
  if (f) {
    fputs(text, f);
    fclose(f);
  }
  return path;
}

/* Runs `paimon -w WH ARGS` through sh (ARGS may hold pipes: use $P for the CLI, $W for the warehouse). */
static int sh(const char *args, char **out) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, "P='%s'; W='%s'; cd \"$W\" && %s 2>&1", CLI, wh, args);
  return run(cmd, out);
}

static int oracle(void) { return ot_available(); }

/* paimon-table read of two tables gives the same multiset of rows. */
static void same_rows(const char *a, const char *b, const char *what) {
  if (!oracle()) return;
  int rc = 0;
  char *e = NULL;
  json_t *ra = ot_read(tdir(a), NULL, &rc, &e);
  CHECK_MSG(ra != NULL, "%s: %s", what, e ? e : "");
  free(e);
  e = NULL;
  json_t *rb = ot_read(tdir(b), NULL, &rc, &e);
  CHECK_MSG(rb != NULL, "%s: %s", what, e ? e : "");
  free(e);
  char msg[8192] = "";
  if (ra && rb) CHECK_MSG(json_array_size(ra) > 0 && ot_rows_match(ra, rb, msg, sizeof msg), "%s: %s", what, msg);
  json_decref(ra);
  json_decref(rb);
  CHECK_MSG(ot_check_ok(tdir(b), 0, what), "%s", what);
}

static void expect_rows(const char *table, const char *jsonl, const char *what) {
  if (!oracle()) return;
  size_t bad = 0;
  json_t *want = ot_parse_lines(jsonl, &bad);
  CHECK(want != NULL);
  CHECK_MSG(ot_read_equals(tdir(table), NULL, want, what), "%s", what);
  CHECK_MSG(ot_check_ok(tdir(table), 0, what), "%s", what);
  json_decref(want);
}

static void test_jsonl_and_copies(void) {
  make_table("src", NULL);
  char *out = NULL;
  write_file("rows.jsonl", ROWS);
  CHECK_EQ_INT(sh("$P -w $W table import d.src rows.jsonl", &out), 0);
  CHECK_MSG(out && !strcmp(out, "snapshot 1: 4 rows in 3 files\n"), "%s", out ? out : "");
  free(out);
  expect_rows("src", ROWS, "src from jsonl");
  /* Our reader returns the rows too. */
  CHECK_EQ_INT(sh("$P -w $W table read d.src --select id --format csv | sort", &out), 0);
  CHECK_EQ_STR(out, "1\n2\n3\n4\nid\n");
  free(out);
  /* Copies: jsonl through a pipe (stdin), and csv through a file. */
  make_table("copy_jsonl", NULL);
  CHECK_EQ_INT(sh("$P -w $W table read d.src --format jsonl | $P -w $W table import d.copy_jsonl -", &out), 0);
  CHECK_MSG(out && strstr(out, "snapshot 1: 4 rows"), "%s", out ? out : "");
  free(out);
  same_rows("src", "copy_jsonl", "jsonl pipe copy");
  make_table("copy_csv", NULL);
  CHECK_EQ_INT(sh("$P -w $W table read d.src --format csv > src.csv && $P -w $W table import d.copy_csv src.csv", &out),
               0);
  CHECK_MSG(out && strstr(out, "snapshot 1: 4 rows"), "%s", out ? out : "");
  free(out);
  same_rows("src", "copy_csv", "csv copy");
  /* Data files of the parquet table as parquet input; several files in one commit. */
  make_table("copy_parquet", NULL);
  CHECK_EQ_INT(sh("$P -w $W table import d.copy_parquet $(find d.db/src -name 'data-*.parquet' | sort)", &out), 0);
  CHECK_MSG(out && strstr(out, "snapshot 1: 4 rows"), "%s", out ? out : "");
  free(out);
  same_rows("src", "copy_parquet", "parquet files copy");
}

/* ORC and Avro inputs: the data files of tables written in those formats. */
/* ROWS without the pre-1970 timestamp: the ORC writer stores 1969-12-31T23:59:59.999 as
 * 1970-01-01T00:00:00.999 (our reader reads the Java-written ORC fixtures right), left to the
 * format owner. */
static char *orc_rows(void) {
  static char buf[4096];
  snprintf(buf, sizeof buf, "%s", ROWS);
  char *p = strstr(buf, "1969-12-31T23:59:59.999");
  if (p) memcpy(p, "1970-01-02T00:00:00.001", 23);
  return buf;
}

static void test_orc_avro(void) {
  const char *fmts[] = {"orc", "avro"};
  write_file("flat.jsonl", FLAT_ROWS);
  write_file("orc.jsonl", orc_rows());
  for (int i = 0; i < 2; i++) {
    int flat = i == 1;
    char name[64], opt[128], args[768], copy[64];
    snprintf(name, sizeof name, "src_%s", fmts[i]);
    snprintf(opt, sizeof opt, "\"file.format\":\"%s\"", fmts[i]);
    make_table_with(name, flat ? FLAT_FIELDS : FIELDS, opt);
    char *out = NULL;
    snprintf(args, sizeof args, "$P -w $W table import d.%s %s", name, flat ? "flat.jsonl" : "orc.jsonl");
    CHECK_EQ_INT(sh(args, &out), 0);
    CHECK_MSG(out && strstr(out, "snapshot 1: "), "%s: %s", fmts[i], out ? out : "");
    free(out);
    snprintf(copy, sizeof copy, "copy_%s", fmts[i]);
    make_table_with(copy, flat ? FLAT_FIELDS : FIELDS, NULL);
    snprintf(args, sizeof args, "$P -w $W table import d.%s $(find d.db/%s -name 'data-*.%s' | sort)", copy, name,
             fmts[i]);
    CHECK_EQ_INT(sh(args, &out), 0);
    CHECK_MSG(out && strstr(out, flat ? "snapshot 1: 3 rows" : "snapshot 1: 4 rows"), "%s: %s", fmts[i],
              out ? out : "");
    free(out);
    /* paimon-table reads Parquet data only: the Parquet copy must hold the rows imported. */
    expect_rows(copy, flat ? FLAT_ROWS : orc_rows(), fmts[i]);
    /* An explicit --format works on any file name. */
    snprintf(args, sizeof args,
             "cp $(find d.db/%s -name 'data-*.%s' | head -1) noext_%s && $P -w $W table import d.%s noext_%s --format %s",
             name, fmts[i], fmts[i], copy, fmts[i], fmts[i]);
    CHECK_EQ_INT(sh(args, &out), 0);
    CHECK_MSG(out && strstr(out, "snapshot 2: "), "%s: %s", fmts[i], out ? out : "");
    free(out);
    if (oracle()) CHECK_MSG(ot_check_ok(tdir(copy), 0, fmts[i]), "%s", fmts[i]);
  }
}

static void test_overwrite(void) {
  make_table("ow", NULL);
  char *out = NULL;
  CHECK_EQ_INT(sh("$P -w $W table import d.ow rows.jsonl", &out), 0);
  free(out);
  /* Dynamic: replaces partition x only. */
  write_file("x.jsonl", "{\"id\":10,\"p\":\"x\"}\n");
  CHECK_EQ_INT(sh("$P -w $W table import d.ow x.jsonl --overwrite", &out), 0);
  CHECK_EQ_STR(out, "snapshot 2: 1 rows in 1 files\n");
  free(out);
  CHECK_EQ_INT(sh("$P -w $W table read d.ow --select id,p --format csv | sort", &out), 0);
  CHECK_EQ_STR(out, "10,x\n2,y\n3,\nid,p\n");
  free(out);
  /* Static partition: replaces y; a row outside the spec is refused (nothing changes). */
  write_file("y.jsonl", "{\"id\":20,\"p\":\"y\"}\n{\"id\":21,\"p\":\"y\"}\n");
  CHECK_EQ_INT(sh("$P -w $W table import d.ow y.jsonl --overwrite --partition p=y", &out), 0);
  CHECK_EQ_STR(out, "snapshot 3: 2 rows in 1 files\n");
  free(out);
  CHECK_EQ_INT(sh("$P -w $W table import d.ow x.jsonl --overwrite --partition p=y", &out), 1);
  CHECK_MSG(out && strchr(out, '\n') == out + strlen(out) - 1, "%s", out ? out : "");
  free(out);
  expect_rows("ow",
              "{\"id\":10,\"s\":null,\"d\":null,\"ts\":null,\"dt\":null,\"b\":null,\"arr\":null,\"m\":null,\"r\":null,"
              "\"f\":null,\"p\":\"x\"}\n"
              "{\"id\":20,\"s\":null,\"d\":null,\"ts\":null,\"dt\":null,\"b\":null,\"arr\":null,\"m\":null,\"r\":null,"
              "\"f\":null,\"p\":\"y\"}\n"
              "{\"id\":21,\"s\":null,\"d\":null,\"ts\":null,\"dt\":null,\"b\":null,\"arr\":null,\"m\":null,\"r\":null,"
              "\"f\":null,\"p\":\"y\"}\n"
              "{\"id\":3,\"s\":null,\"d\":\"-0.01\",\"ts\":\"1969-12-31T23:59:59.999\",\"dt\":\"1900-03-01\",\"b\":\"\","
              "\"arr\":null,\"m\":null,\"r\":{\"x\":null,\"y\":null},\"f\":-0.0,\"p\":null}\n",
              "overwrites");
  /* Truncating the partitions afterwards (drop-partition) leaves the null partition. */
  CHECK_EQ_INT(sh("$P -w $W table drop-partition d.ow --partition p=x --partition p=y", &out), 0);
  free(out);
  CHECK_EQ_INT(sh("$P -w $W table read d.ow --select id --format csv", &out), 0);
  CHECK_EQ_STR(out, "id\n3\n");
  free(out);
}

/* --partition without --overwrite: an append into that partition; rows of another one are refused
 * (nothing committed, no file left), a partial spec on a one-key table is the whole key. */
static void test_import_into_partition(void) {
  make_table("ip", NULL);
  char *out = NULL;
  write_file("px.jsonl", "{\"id\":1,\"p\":\"x\"}\n{\"id\":2,\"p\":\"x\"}\n");
  write_file("py.jsonl", "{\"id\":3,\"p\":\"x\"}\n{\"id\":4,\"p\":\"y\"}\n");
  CHECK_EQ_INT(sh("$P -w $W table import d.ip px.jsonl --partition p=x", &out), 0);
  CHECK_EQ_STR(out, "snapshot 1: 2 rows in 1 files\n");
  free(out);
  CHECK_EQ_INT(sh("$P -w $W table import d.ip px.jsonl py.jsonl --partition p=x", &out), 1);
  CHECK_MSG(out && strstr(out, "p=y") && strstr(out, "outside the partition written to") &&
                strchr(out, '\n') == out + strlen(out) - 1,
            "%s", out ? out : "");
  free(out);
  CHECK_EQ_INT(sh("$P -w $W table import d.ip py.jsonl --partition p=z", &out), 1); /* no row of p=z at all */
  free(out);
  CHECK_EQ_INT(sh("$P -w $W table import d.ip px.jsonl --partition q=x", &out), 1); /* not a partition key */
  CHECK_MSG(out && strstr(out, "'q'"), "%s", out ? out : "");
  free(out);
  /* only the first import is visible, and no file of the refused ones is left */
  CHECK_EQ_INT(sh("ls d.db/ip/snapshot | grep -c snapshot-; find d.db/ip -name 'data-*' | wc -l", &out), 0);
  CHECK_EQ_STR(out, "1\n1\n");
  free(out);
  CHECK_EQ_INT(sh("$P -w $W table read d.ip --select id,p --format csv", &out), 0);
  CHECK_EQ_STR(out, "id,p\n1,x\n2,x\n");
  free(out);
  if (oracle()) CHECK(ot_check_ok(tdir("ip"), 0, "import --partition"));
  CHECK_EQ_INT(sh("$P table import --help", &out), 0);
  CHECK(out && strstr(out, "--partition k=v,... imports into that"));
  free(out);
}

static void test_errors(void) {
  make_table("err", NULL);
  char *out = NULL;
  struct {
    const char *args;
    int code;
    const char *msg;
  } cases[] = {
      {"printf '{\"id\":1}\\n{\"id\":\"no\"}\\n' | $P -w $W table import d.err -", 1, "stdin: line 2"},
      {"printf '{\"id\":1,\"zz\":2}\\n' | $P -w $W table import d.err -", 1, "'zz'"},
      {"printf 'id,zz\\n1,2\\n' > bad.csv && $P -w $W table import d.err bad.csv", 1, "'zz'"},
      {"printf '{\"s\":\"x\"}\\n' | $P -w $W table import d.err -", 1, "id"},
      {"$P -w $W table import d.err rows.jsonl nonexistent.parquet", 1, "nonexistent.parquet"},
      {"$P -w $W table import d.err rows.jsonl --format xml", 1, "'xml'"},
      {"$P -w $W table import d.err", 2, "no input file"},
      {"$P -w $W table import d.err rows.jsonl --partition p=x", 1, "outside the partition written to"},
      {"$P -w $W table import d.err rows.jsonl --bogus", 2, "unknown option --bogus"},
      {"$P -w $W table import d.nope rows.jsonl", 1, "does not exist"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK_EQ_INT(sh(cases[i].args, &out), cases[i].code);
    CHECK_MSG(out && strstr(out, cases[i].msg) && strchr(out, '\n') == out + strlen(out) - 1, "%s: %s",
              cases[i].args, out ? out : "");
    free(out);
  }
  /* Nothing was committed and no data file is left. */
  CHECK_EQ_INT(sh("ls d.db/err/snapshot 2>/dev/null | wc -l; find d.db/err -name 'data-*' | wc -l", &out), 0);
  CHECK_EQ_STR(out, "0\n0\n");
  free(out);
  CHECK_EQ_INT(sh("$P table import --help", &out), 0);
  CHECK(out && strstr(out, "usage: paimon [-w WAREHOUSE] table import DB.T FILE..."));
  free(out);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_import_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_jsonl_and_copies);
  RUN_TEST(test_orc_avro);
  RUN_TEST(test_overwrite);
  RUN_TEST(test_import_into_partition);
  RUN_TEST(test_errors);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
