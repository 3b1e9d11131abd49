/*
 * The CLI's printed output, run as a process (issue 10 #2, #8, #13 and the UX
 * items): the table view never cuts numbers, cuts text only past --max-width,
 * measures display columns, fits $COLUMNS, prints a header for an empty
 * result and NULL unlike "null"; paths are cut at the start; the default
 * format is a table on a terminal and jsonl otherwise; a failed write to
 * stdout is exit 1 with the reason; an error in the first window of rows
 * prints no partial table.
 */
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "support/arrow_test_util.h"
#include "arrow/builder.h"
#include "format/parquet/parquet_writer.h"
#include "harness.h"

#define PAIMON PAIMON_BINARY_DIR "/paimon"
#define WH PM_SHARED("fixtures/warehouse/parquet")

static char tmp_root[256];
static pm_error err;

#include "support/cli_run.h"

static int count_lines(const char *s) {
  int n = 0;
  for (; *s; s++) n += *s == '\n';
  return n;
}

static const char *last_line(const char *s) {
  size_t n = strlen(s);
  if (n && s[n - 1] == '\n') n--;
  while (n && s[n - 1] != '\n') n--;
  return s + n;
}

/* A Parquet file of `rows` rows: id BIGINT 0.., s STRING "r<id>". */
static void write_long_file(const char *path, int64_t rows) {
  struct ArrowSchema s;
  tu_schema("b:+s{id:l;s:u}", &s);
  pm_builder *b;
  CHECK_OK(pm_builder_new_from_schema(&s, &b, &err), &err);
  pm_pq_writer *w = NULL;
  CHECK_OK(pm_pq_writer_open(path, &s, NULL, &w, &err), &err);
  char text[32];
  for (int64_t r = 0; r < rows; r++) {
    pm_builder_append_int(pm_builder_child(b, 0), r, &err);
    snprintf(text, sizeof text, "r%lld", (long long)r);
    pm_builder_append_str(pm_builder_child(b, 1), text, &err);
    pm_builder_append_valid(b, &err);
    if ((r + 1) % 65536 == 0 || r + 1 == rows) {
      struct ArrowArray a;
      CHECK_OK(pm_builder_finish(b, &a, &err), &err);
      if (w) CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
      pm_array_release(&a);
    }
  }
  if (w) CHECK_OK(pm_pq_writer_close(w, &err), &err);
  pm_pq_writer_free(w);
  pm_builder_free(b);
  pm_schema_release(&s);
}

/* s STRING, k INT: wide (CJK), combining, "null" and NULL strings. */
static void write_text_file(const char *path) {
  static const char *texts[5] = {"\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97", "abc", "e\xcc\x81te", "null", NULL};
  struct ArrowSchema s;
  tu_schema("b:+s{s:u;k:i}", &s);
  pm_builder *b;
  CHECK_OK(pm_builder_new_from_schema(&s, &b, &err), &err);
  for (int r = 0; r < 5; r++) {
    if (texts[r]) pm_builder_append_str(pm_builder_child(b, 0), texts[r], &err);
    else pm_builder_append_null(pm_builder_child(b, 0), &err);
    pm_builder_append_int(pm_builder_child(b, 1), r + 1, &err);
    pm_builder_append_valid(b, &err);
  }
  struct ArrowArray a;
  CHECK_OK(pm_builder_finish(b, &a, &err), &err);
  pm_pq_writer *w = NULL;
  CHECK_OK(pm_pq_writer_open(path, &s, NULL, &w, &err), &err);
  if (w) {
    CHECK_OK(pm_pq_writer_write(w, &a, &err), &err);
    CHECK_OK(pm_pq_writer_close(w, &err), &err);
  }
  pm_pq_writer_free(w);
  pm_array_release(&a);
  pm_builder_free(b);
  pm_schema_release(&s);
}

/* Item 2: `k1=100` of pk_table_with_mor was printed as "..." (widths from the first batch). */
static void test_table_numbers_never_cut(void) {
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_table_with_mor.pk_table_with_mor --format table", &out), 0);
  CHECK_MSG(strstr(out, "100 | 200 |") != NULL, "%s", out);
  CHECK_MSG(strstr(out, "...") == NULL, "%s", out);
  CHECK(strstr(out, "| elephant |") != NULL); /* strings up to 40 columns are not cut either */
  free(out);
}

/* Item 2: the last row of a 300k-row `parquet cat --format table` ended with "29...". */
static void test_table_300k_rows(void) {
  char path[512], cmd[1024];
  snprintf(path, sizeof path, "%s/long.parquet", tmp_root);
  write_long_file(path, 300000);
  char *out = NULL;
  snprintf(cmd, sizeof cmd, "%s parquet cat %s --format table", PAIMON, path);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_MSG(!strcmp(last_line(out), "299999 | r299999\n"), "last line '%s'", last_line(out));
  CHECK(strstr(out, "...") == NULL);
  CHECK(strstr(out, "\n   0 | r0\n") != NULL); /* the first window is as wide as its widest id (4 digits)... */
  /* ...and the header is printed again above the window that widens a column. */
  CHECK(strstr(out, "\n    id | s\n-------+--------\n") != NULL);
  free(out);
}

/* Item 2: text cut past --max-width (default 40), --no-truncate shows it whole. */
static void test_table_max_width(void) {
  static const char *longest =
      "Two roads diverged in a wood, and I took the one less traveled by, And that has made all the difference.";
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --format table", &out), 0);
  CHECK(strstr(out, "Two roads diverged in a wood, and I t... |") != NULL);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --format table --max-width 12", &out), 0);
  CHECK_MSG(strstr(out, "Two roads... |") != NULL, "%s", out);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --format table --no-truncate", &out), 0);
  CHECK(strstr(out, longest) != NULL);
  free(out);
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --max-width 2 2>&1", &out), 2);
  CHECK(strstr(out, "invalid value '2' for --max-width") != NULL);
  free(out);
}

/* Item 2: display columns (CJK 2, combining marks 0) and NULL unlike the string "null". */
static void test_table_display_width_and_null(void) {
  char path[512], cmd[1024];
  snprintf(path, sizeof path, "%s/text.parquet", tmp_root);
  write_text_file(path);
  char *out = NULL;
  snprintf(cmd, sizeof cmd, "%s parquet cat %s --format table", PAIMON, path);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_EQ_STR(out,
               "s      | k\n"
               "-------+--\n"
               "\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97 | 1\n"
               "abc    | 2\n"
               "e\xcc\x81te    | 3\n"
               "null   | 4\n"
               "NULL   | 5\n");
  free(out);
}

/* Item 2: an empty result prints its header (and separator). */
static void test_table_empty_result(void) {
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --where 'f1 = 12345' --format table", &out), 0);
  CHECK_EQ_STR(out, "f0 | f1 | f2 | f3\n---+----+----+---\n");
  free(out);
}

/* Item 2: a table wider than the terminal ($COLUMNS) shows the columns that fit, numbers whole. */
static void test_table_terminal_width(void) {
  char *out = NULL;
  CHECK_EQ_INT(run("COLUMNS=60 " PAIMON " -w " WH " table files pk_09.pk_09 --format table", &out), 0);
  CHECK(count_lines(out) >= 3);
  int ok = 1;
  for (const char *l = out; *l;) {
    const char *nl = strchr(l, '\n');
    size_t len = nl ? (size_t)(nl - l) : strlen(l);
    ok &= len <= 60;
    l += len + (nl != NULL);
  }
  CHECK_MSG(ok, "%s", out);
  CHECK(strstr(out, "partition | bucket | file_path") != NULL);
  CHECK(strstr(out, " more)\n") != NULL);
  free(out);
  /* Without a terminal width every column is shown. */
  CHECK_EQ_INT(run("COLUMNS= " PAIMON " -w " WH " table files pk_09.pk_09 --format table", &out), 0);
  CHECK(strstr(out, "| external_path\n") != NULL);
  free(out);
}

/* UX: `table files` cuts file_path at the start, keeping the file name. */
static void test_files_paths_cut_at_start(void) {
  char *out = NULL;
  CHECK_EQ_INT(run(PAIMON " -w " WH " table files pk_09.pk_09 --format table", &out), 0);
  const char *row = strchr(strchr(out, '\n') + 1, '\n') + 1; /* first data row */
  CHECK_MSG(strncmp(row, "{f1=10}   |      1 | ...", 23) == 0, "%s", row);
  CHECK(strstr(row, ".parquet | parquet") != NULL);
  free(out);
}

/* UX: one default format: jsonl when stdout is not a terminal, a table on a terminal. */
static void test_default_format(void) {
  char *out = NULL, cmd[1024];
  CHECK_EQ_INT(run(PAIMON " -w " WH " table read pk_09.pk_09 --limit 1", &out), 0);
  CHECK_EQ_STR(out, "{\"f0\":\"Alice\",\"f1\":10,\"f2\":1,\"f3\":21.1}\n");
  free(out);
  snprintf(cmd, sizeof cmd, "%s parquet cat %s/text.parquet --limit 1", PAIMON, tmp_root);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_EQ_STR(out, "{\"s\":\"\xe4\xb8\xad\xe6\x96\x87\xe5\xad\x97\",\"k\":1}\n");
  free(out);
  /* On a terminal (script(1) gives the command a pseudo-terminal): a table. */
  if (access("/usr/bin/script", X_OK) == 0) {
    snprintf(cmd, sizeof cmd,
             "script -qec \"COLUMNS=200 %s -w %s table read pk_09.pk_09 --limit 1\" /dev/null | tr -d '\\r'", PAIMON,
             WH);
    CHECK_EQ_INT(run(cmd, &out), 0);
    CHECK_MSG(strstr(out, "f0    | f1 | f2 |   f3\n") != NULL, "%s", out);
    free(out);
  }
}

/* Item 8: a failed write to stdout is exit 1 with the system's reason, for every output path. */
static void test_write_error_exit(void) {
  static const char *cmds[] = {
      " table read pk_09.pk_09",
      " table read pk_09.pk_09 --format table",
      " table read pk_09.pk_09 --format csv",
      " table snapshots pk_09.pk_09",
      " table get pk_09.pk_09",
      " db list",
  };
  char cmd[1024];
  for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
    char *out = NULL;
    snprintf(cmd, sizeof cmd, "%s -w %s%s 2>&1 >/dev/full", PAIMON, WH, cmds[i]);
    CHECK_MSG(run(cmd, &out) == 1, "%s", cmds[i]);
    CHECK_MSG(strstr(out, "No space left on device") != NULL, "%s: '%s'", cmds[i], out);
    free(out);
  }
  char *out = NULL;
  snprintf(cmd, sizeof cmd, "%s parquet cat %s/long.parquet 2>&1 >/dev/full", PAIMON, tmp_root);
  CHECK_EQ_INT(run(cmd, &out), 1);
  CHECK_EQ_STR(out, "paimon parquet: cannot write output: No space left on device\n");
  free(out);
}

/* Item 13: an error while the first window of rows arrives prints no partial table. A copy of
 * append_09 with one data file zeroed: jsonl streams the rows read before the error, the table
 * view prints nothing. */
static void test_error_in_first_window_prints_no_table(void) {
  char cmd[2048], files_cmd[1024];
  snprintf(files_cmd, sizeof files_cmd, "cd %s/append_09.db/append_09 && find . -name '*.parquet' | sort", WH);
  char *list = NULL;
  CHECK_EQ_INT(run(files_cmd, &list), 0);
  int partial_cases = 0;
  for (char *f = strtok(list, "\n"); f; f = strtok(NULL, "\n")) {
    snprintf(cmd, sizeof cmd,
             "rm -rf %s/wh && mkdir -p %s/wh/append_09.db && cp -r %s/append_09.db/append_09 %s/wh/append_09.db/ && "
             "p=%s/wh/append_09.db/append_09/%s && head -c $(stat -c %%s $p) /dev/zero > $p.z && mv $p.z $p",
             tmp_root, tmp_root, WH, tmp_root, tmp_root, f);
    char *out = NULL;
    CHECK_EQ_INT(run(cmd, &out), 0);
    free(out);
    snprintf(cmd, sizeof cmd, "%s -w %s/wh table read append_09.append_09 --format jsonl 2>/dev/null", PAIMON,
             tmp_root);
    int rc = run(cmd, &out);
    int rows = count_lines(out);
    free(out);
    if (rc != 1 || rows == 0) continue; /* this file fails before any row, or is not read */
    partial_cases++;
    snprintf(cmd, sizeof cmd, "%s -w %s/wh table read append_09.append_09 --format table 2>/dev/null", PAIMON,
             tmp_root);
    CHECK_EQ_INT(run(cmd, &out), 1);
    CHECK_MSG(out[0] == 0, "partial table after %d jsonl rows: %s", rows, out);
    free(out);
  }
  free(list);
  CHECK(partial_cases > 0);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_cli_print_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  RUN_TEST(test_table_numbers_never_cut);
  RUN_TEST(test_table_300k_rows);
  RUN_TEST(test_table_max_width);
  RUN_TEST(test_table_display_width_and_null);
  RUN_TEST(test_table_empty_result);
  RUN_TEST(test_table_terminal_width);
  RUN_TEST(test_files_paths_cut_at_start);
  RUN_TEST(test_default_format);
  RUN_TEST(test_write_error_exit);
  RUN_TEST(test_error_in_first_window_prints_no_table);
  char cmd[512];
  snprintf(cmd, sizeof cmd, "rm -rf %s", tmp_root);
  if (system(cmd)) pm_test_failures++;
  TEST_MAIN_END();
}
