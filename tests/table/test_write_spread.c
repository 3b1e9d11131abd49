/* The append writer on batches spread over many partitions (table/write.h,
 * write_route.c): files of the batch being written stay open beyond
 * write-max-writers-to-spill (one file per partition, not one per batch),
 * and the open files share half of write-buffer-size (Parquet row groups
 * end early, the files stay whole). Tables checked by paimon-table (check +
 * read) and our reader. */
#include <dirent.h>

#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "support/commit_fixture.h"
#include "table/write.h"

static char root[512];

static int64_t commit_all(pm_table *t, pm_manifest_committable *m) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  int64_t sid = -1;
  if (pm_commit_open(t, "spread-test", 0, &c, &err) || pm_commit_append(c, m, 0, &sid, &err)) {
    fprintf(stderr, "commit: %s\n", err.message);
    sid = -1;
  }
  pm_commit_free(c);
  return sid;
}

/* Parquet files under dir (recursive): count and total row groups. */
static void parquet_files(const char *dir, int *files, int64_t *row_groups) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st)) continue;
    size_t n = strlen(e->d_name);
    if (S_ISDIR(st.st_mode)) {
      parquet_files(p, files, row_groups);
    } else if (n > 8 && !strcmp(e->d_name + n - 8, ".parquet")) {
      (*files)++;
      pm_pq_reader *r = NULL;
      pm_error err;
      if (!pm_pq_reader_open_path(p, NULL, &r, &err)) *row_groups += pm_pq_reader_meta(r)->n_row_groups;
      pm_pq_reader_close(r);
    }
  }
  closedir(d);
}

/* Writes `batches` batches of `rows` rows, row i of the whole input in
 * partition "p<i % parts>" (every 13th a null partition), commits, checks. */
static void write_spread(const char *name, const char *options, int parts, int batches, int rows, int *files,
                         int64_t *row_groups) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/%s", root, name);
  cf_make_table(dir, 1, options);
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_table_write *w = NULL;
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  int total = batches * rows;
  int32_t *ids = malloc((size_t)total * sizeof *ids);
  const char **names = malloc((size_t)total * sizeof *names), **dts = malloc((size_t)total * sizeof *dts);
  char (*nb)[24] = malloc((size_t)total * sizeof *nb), (*db)[8] = malloc((size_t)parts * sizeof *db);
  for (int p = 0; p < parts; p++) snprintf(db[p], sizeof db[p], "p%02d", p);
  for (int i = 0; i < total; i++) {
    ids[i] = i;
    snprintf(nb[i], sizeof nb[i], "n%08x", (unsigned)(i * 2654435761u));
    names[i] = nb[i];
    dts[i] = i % 13 == 5 ? NULL : db[i % parts];
  }
  for (int k = 0; k < batches; k++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    tw_schema(&s, "+s", "", 0, 3);
    tw_schema(s.children[0], "i", "id", 0, 0);
    tw_schema(s.children[1], "u", "name", 1, 0);
    tw_schema(s.children[2], "u", "dt", 1, 0);
    tw_struct(&a, rows, 3, NULL);
    tw_prim(a.children[0], rows, ids + k * rows, 4, NULL);
    tw_str(a.children[1], rows, names + k * rows, NULL);
    tw_str(a.children[2], rows, dts + k * rows, NULL);
    CHECK_OK(pm_table_write_arrow(w, &s, &a, &err), &err);
    a.release(&a);
    s.release(&s);
  }
  pm_manifest_committable *m = NULL;
  CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  int64_t n_rows = 0;
  for (size_t i = 0; m && i < m->n_messages; i++) {
    int64_t last = -1;
    for (size_t f = 0; f < m->messages[i].new_files.n; f++) {
      const pm_data_file_meta *fm = &m->messages[i].new_files.items[f];
      CHECK_EQ_INT(fm->min_sequence_number, last + 1); /* one writer per partition, numbers continue */
      last = fm->max_sequence_number;
      n_rows += fm->row_count;
    }
  }
  CHECK_EQ_INT(n_rows, total);
  CHECK_EQ_INT(commit_all(t, m), 1);
  pm_committable_free(m);
  pm_table_write_free(w);
  CHECK(cf_check(dir));
  char **lines = malloc((size_t)total * sizeof *lines);
  for (int i = 0; i < total; i++) {
    char l[64];
    snprintf(l, sizeof l, "%d|%s|%s", ids[i], names[i], dts[i] ? dts[i] : "null");
    lines[i] = strdup(l);
  }
  char *exp = cf_join_sorted(lines, (size_t)total);
  CHECK(cf_rows_are(dir, exp));
  free(exp);
  *files = 0;
  *row_groups = 0;
  parquet_files(dir, files, row_groups);
  free(ids);
  free(names);
  free(dts);
  free(nb);
  free(db);
  pm_table_free(t);
}

/* 3 batches, each over all 21 partitions (20 + null), limit 2 open writers:
 * one file per partition (before: files closed and reopened on every batch). */
static void test_batch_files_stay_open(void) {
  int files = 0;
  int64_t rgs = 0;
  write_spread("spread", "\"write-max-writers-to-spill\" : \"2\"", 20, 3, 400, &files, &rgs);
  CHECK_EQ_INT(files, 21);
  CHECK_EQ_INT(rgs, 21);
}

/* write-buffer-size 64 kb: 4 open files share 32 kb; rows beyond their share
 * end row groups early, each partition still one file. */
static void test_memory_budget(void) {
  int files = 0;
  int64_t rgs = 0;
  write_spread("budget", "\"write-buffer-size\" : \"64 kb\"", 4, 8, 4000, &files, &rgs);
  CHECK_EQ_INT(files, 5);
  CHECK(rgs > 2 * files);
  int files2 = 0;
  int64_t rgs2 = 0;
  write_spread("nobudget", NULL, 4, 8, 4000, &files2, &rgs2); /* default 256 mb: one row group each */
  CHECK_EQ_INT(files2, 5);
  CHECK_EQ_INT(rgs2, 5);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_write_spread_%d", (int)getpid());
  RUN_TEST(test_batch_files_stay_open);
  RUN_TEST(test_memory_budget);
  char cmd[600];
  if (!pm_test_failures) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
