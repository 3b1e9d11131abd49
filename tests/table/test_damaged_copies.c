/*
 * Damaged copies of fixture tables (copied to a temporary directory; the
 * fixtures stay read-only): each damage gives one clear error.
 *  - a data file replaced by another valid file: size / row count vs the manifest (issue 10 #10)
 *  - an empty (0-byte) manifest: says so and names manifest.format (issue 10 #12)
 *  - a corrupt data file: the message names the file once, with one prefix (issue 10 #13)
 *  - a missing snapshot file inside the range: says it does not exist (issue 10 #14)
 */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arrow/stream.h"
#include "harness.h"
#include "support/fixture_copy.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/table.h"

static pm_error err;
static char tmp_root[] = "/tmp/pm_damaged_XXXXXX";

/* Copies fixtures/warehouse/<rel> (a table directory) to a fresh directory; returns its path (static). */
static const char *copy_table(const char *rel, const char *tag) {
  static char dst[1024];
  snprintf(dst, sizeof dst, "%s/%s", tmp_root, tag);
  CHECK(fc_copy_fixture(rel, dst) == 0);
  return dst;
}

static void run(const char *fmt, const char *a, const char *b) {
  char cmd[4096];
  snprintf(cmd, sizeof cmd, fmt, a, b);
  CHECK_MSG(system(cmd) == 0, "%s", cmd);
}

static pm_table *open_root(const char *root, const char *k, const char *v) {
  pm_options dyn;
  pm_options_init(&dyn);
  if (k) pm_options_set(&dyn, k, v, &err);
  pm_table *t = NULL;
  CHECK_OK(pm_table_open_path(root, NULL, NULL, NULL, &dyn, NULL, &t, &err), &err);
  pm_options_clear(&dyn);
  return t;
}

/* Plans and reads everything; returns the status (0 ok) with the message in err. */
static int read_status(pm_table *t, int64_t *rows) {
  *rows = 0;
  pm_plan *plan = NULL;
  int rc = pm_scan_plan(t, NULL, -1, &plan, &err);
  if (rc) return rc;
  pm_read_options ro;
  pm_read_options_init(&ro);
  struct ArrowArrayStream st;
  rc = pm_read_splits(t, plan->splits, plan->n_splits, &ro, &st, &err);
  while (!rc) {
    struct ArrowArray a;
    rc = pm_stream_get_next(&st, &a, &err);
    if (rc || !a.release) break;
    *rows += a.length;
    a.release(&a);
  }
  if (st.release) st.release(&st);
  pm_plan_free(plan);
  return rc;
}

static size_t count_of(const char *hay, const char *needle) {
  size_t n = 0;
  for (const char *p = strstr(hay, needle); p; p = strstr(p + 1, needle)) n++;
  return n;
}

/* #10: data file B replaced by data file A of the same table (a valid file, other size and rows). */
static void replaced_file(const char *rel, const char *tag, const char *a, const char *b) {
  const char *root = copy_table(rel, tag);
  char pa[2048], pb[2048];
  snprintf(pa, sizeof pa, "%s/%s", root, a);
  snprintf(pb, sizeof pb, "%s/%s", root, b);
  pm_table *t = open_root(root, NULL, NULL);
  if (!t) return;
  int64_t rows = 0;
  CHECK_OK(read_status(t, &rows), &err);
  CHECK_EQ_INT(rows, 11);
  run("cp '%s' '%s'", pa, pb);
  /* the stream reports corruption as EIO (PAIMON_ERR_IO); the message says what */
  CHECK(read_status(t, &rows) != 0);
  CHECK_MSG(count_of(err.message, pb) == 1 && strstr(err.message, "fileSize") != NULL, "%s", err.message);
  pm_table_free(t);
}

static void test_replaced_data_file_parquet(void) {
  replaced_file("parquet/append_09.db/append_09", "rp", "f1=10/bucket-1/data-c0401350-64a3-4a54-a143-dd125ad9a8e5-0.parquet",
                "f1=20/bucket-0/data-b446f78a-2cfb-4b3b-add8-31295d24a277-0.parquet");
}

static void test_replaced_data_file_orc(void) {
  replaced_file("orc/append_09.db/append_09", "ro", "f1=10/bucket-1/data-b9e7c41f-66e8-4dad-b25a-e6e1963becc4-0.orc",
                "f1=20/bucket-0/data-b913a160-a4d1-4084-af2a-18333c35668e-0.orc");
}

/* #10: the row count is checked too (the manifest's rowCount changed in the planned split). */
static void test_row_count_mismatch(void) {
  const char *dirs[] = {"parquet/append_09.db/append_09", "orc/append_09.db/append_09"};
  for (int k = 0; k < 2; k++) {
    pm_table *t = open_root(copy_table(dirs[k], "rc"), NULL, NULL);
    if (!t) return;
    pm_plan *plan = NULL;
    CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
    if (!plan || !plan->n_splits) {
      pm_table_free(t);
      CHECK(0);
      return;
    }
    pm_data_split *s = plan->splits[0];
    s->data_files[0].row_count += 1;
    pm_read_options ro;
    pm_read_options_init(&ro);
    struct ArrowArrayStream st;
    int rc = pm_read_splits(t, &s, 1, &ro, &st, &err);
    while (!rc) {
      struct ArrowArray a;
      rc = pm_stream_get_next(&st, &a, &err);
      if (rc || !a.release) break;
      a.release(&a);
    }
    if (st.release) st.release(&st);
    CHECK(rc != 0);
    CHECK_MSG(strstr(err.message, s->data_files[0].file_name) != NULL && strstr(err.message, "rowCount") != NULL,
              "%s", err.message);
    pm_plan_free(plan);
    pm_table_free(t);
  }
}

/* #10 Avro data files are counted when read to the end. */
static void test_row_count_mismatch_avro(void) {
  pm_table *t = open_root(copy_table("avro/append_with_multiple_ts_precision_and_timezone.db/"
                                     "append_with_multiple_ts_precision_and_timezone",
                                     "ra"),
                          NULL, NULL);
  if (!t) return;
  pm_plan *plan = NULL;
  CHECK_OK(pm_scan_plan(t, NULL, -1, &plan, &err), &err);
  if (plan && plan->n_splits) {
    pm_data_split *s = plan->splits[0];
    int64_t real = s->data_files[0].row_count;
    s->data_files[0].row_count = real + 2;
    pm_read_options ro;
    pm_read_options_init(&ro);
    struct ArrowArrayStream st;
    int rc = pm_read_splits(t, &s, 1, &ro, &st, &err);
    while (!rc) {
      struct ArrowArray a;
      rc = pm_stream_get_next(&st, &a, &err);
      if (rc || !a.release) break;
      a.release(&a);
    }
    if (st.release) st.release(&st);
    CHECK(rc != 0);
    CHECK_MSG(strstr(err.message, "rowCount") != NULL, "%s", err.message);
  } else {
    CHECK(0);
  }
  pm_plan_free(plan);
  pm_table_free(t);
}

/* #12: an empty ORC manifest (and manifest list) says it is empty and names the expected format. */
static void test_empty_orc_manifest(void) {
  const char *root = copy_table("orc/append_09.db/append_09", "em");
  /* first the manifests (read through the lists), then the manifest lists too */
  for (int pass = 0; pass < 2; pass++) {
    run(pass == 0 ? "cd '%s/manifest' && for f in manifest-*; do case $f in manifest-list-*) ;; *) : > $f;; esac; "
                    "done%s"
                  : "cd '%s/manifest' && for f in manifest-list-*; do : > $f; done%s",
        root, "");
    pm_table *t = open_root(root, NULL, NULL);
    if (!t) return;
    int64_t rows = 0;
    int rc = read_status(t, &rows);
    CHECK_EQ_INT(rc, PAIMON_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "empty (0 bytes)") != NULL && strstr(err.message, "manifest.format 'orc'") != NULL &&
                  strstr(err.message, "Avro") == NULL && count_of(err.message, root) == 1,
              "%s", err.message);
    pm_table_free(t);
  }
}

/* #13: a corrupt page of a data file: one path, one prefix. */
static void corrupt_file(const char *rel, const char *tag, const char *file, long off, int len) {
  const char *root = copy_table(rel, tag);
  char path[2048];
  snprintf(path, sizeof path, "%s/%s", root, file);
  FILE *f = fopen(path, "r+b");
  CHECK(f != NULL);
  if (!f) return;
  fseek(f, off, SEEK_SET);
  for (int i = 0; i < len; i++) fputc(0xff, f);
  fclose(f);
  pm_table *t = open_root(root, NULL, NULL);
  if (!t) return;
  int64_t rows = 0;
  int rc = read_status(t, &rows);
  CHECK(rc != 0);
  CHECK_MSG(count_of(err.message, path) == 1 && count_of(err.message, "get_next") == 0, "%s", err.message);
  pm_table_free(t);
}

static void test_corrupt_data_file_names_path_once(void) {
  corrupt_file("parquet/append_09.db/append_09", "cp", "f1=20/bucket-0/data-b446f78a-2cfb-4b3b-add8-31295d24a277-0.parquet",
               4, 36);
  corrupt_file("orc/append_09.db/append_09", "co", "f1=20/bucket-0/data-b913a160-a4d1-4084-af2a-18333c35668e-0.orc", 126,
               30);
}

/* #14: snapshot 3 missing between 1, 2, 4, 5. */
static void test_missing_snapshot_in_range(void) {
  const char *root = copy_table("parquet/append_09.db/append_09", "ms");
  run("rm '%s/snapshot/snapshot-3'%s", root, "");
  pm_table *t = open_root(root, "scan.snapshot-id", "3");
  if (!t) return;
  int64_t rows = 0;
  int rc = read_status(t, &rows);
  CHECK_EQ_INT(rc, PAIMON_ERR_NOT_FOUND);
  CHECK_MSG(strstr(err.message, "snapshot 3 does not exist") != NULL && strstr(err.message, "snapshot-3") != NULL &&
                strstr(err.message, "expired or deleted") != NULL && strstr(err.message, "out of the available") == NULL,
            "%s", err.message);
  pm_table_free(t);
  /* outside the range keeps the range message */
  t = open_root(root, "scan.snapshot-id", "9");
  if (!t) return;
  CHECK_EQ_INT(read_status(t, &rows), PAIMON_ERR_NOT_FOUND);
  CHECK_MSG(strstr(err.message, "out of the available range [1, 5]") != NULL, "%s", err.message);
  pm_table_free(t);
}

int main(void) {
  if (!mkdtemp(tmp_root)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_replaced_data_file_parquet);
  RUN_TEST(test_replaced_data_file_orc);
  RUN_TEST(test_row_count_mismatch);
  RUN_TEST(test_row_count_mismatch_avro);
  RUN_TEST(test_empty_orc_manifest);
  RUN_TEST(test_corrupt_data_file_names_path_once);
  RUN_TEST(test_missing_snapshot_in_range);
  char cmd[1100];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (system(cmd) != 0) fprintf(stderr, "could not remove %s\n", tmp_root);
  TEST_MAIN_END();
}
