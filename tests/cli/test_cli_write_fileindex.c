/*
 * File indexes on write (issue 14 §5) for append tables, through the CLI: tables declaring
 * file-index.bloom-filter.columns (id), .bitmap.columns (name) and .bsi.columns (v) get
 * Java's DataFileIndexWriter output per data file: in "<file>.index" beside it when larger
 * than file-index.in-manifest-threshold (default 500 bytes), else embedded in the meta.
 *   - two commits whose value ranges overlap, so min/max statistics prune neither file for
 *     id = 501, name = 'b' or v = 50, while each file's index rules one file out: explain says
 *     "1 pruned by file index", and the rows equal those read with file-index.read.enabled =
 *     false (the index only prunes) and the expected count worked out from the input
 *     (planning tests embedded indexes, as Java's scan; "<file>.index" ones at read);
 *   - the .index files exist for the default threshold and not for a large one (embedded);
 *   - paimon-table check and read agree; orphan cleanup keeps the .index files (referenced as
 *     extra files), and truncating then expiring snapshot 1 removes them with their data files
 *     (not judged by paimon-table check afterwards: it reports the ADD entries of the base
 *     manifest whose files the expiry deleted, as Java's expiry also deletes them).
 */
#include <dirent.h>
#include <time.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/cli_run.h"
#include "support/oracle_table.h"

#define CLI PAIMON_BINARY_DIR "/paimon"

static char wh[256];

static int cli(const char *args, char **out) {
  char cmd[8192];
  snprintf(cmd, sizeof cmd, "'%s' -w '%s' %s 2>&1", CLI, wh, args);
  return run(cmd, out);
}

static int count_index_files(const char *dir) {
  DIR *d = opendir(dir);
  int n = 0;
  for (struct dirent *e; d && (e = readdir(d));) {
    size_t l = strlen(e->d_name);
    n += l > 6 && !strcmp(e->d_name + l - 6, ".index");
  }
  if (d) closedir(d);
  return n;
}

/* file 1: even ids 0..998, names 'a' / 'c', v 0 / 100; file 2: ids 1..999 step 4 and 1000,
 * names 'b' / 'd', v 25 / 75 (ids 1, 5, ..., 997: 501 is absent) */
static void write_inputs(void) {
  char p[300];
  snprintf(p, sizeof p, "%s/in1.jsonl", wh);
  FILE *f = fopen(p, "w");
  for (int i = 0; i < 1000; i += 2) fprintf(f, "{\"id\":%d,\"name\":\"%s\",\"v\":%d}\n", i, i % 4 ? "c" : "a", i % 4 ? 100 : 0);
  fclose(f);
  snprintf(p, sizeof p, "%s/in2.jsonl", wh);
  f = fopen(p, "w");
  for (int i = 3; i < 1000; i += 4) fprintf(f, "{\"id\":%d,\"name\":\"%s\",\"v\":%d}\n", i, i % 8 == 3 ? "b" : "d", i % 8 == 3 ? 25 : 75);
  fprintf(f, "{\"id\":1000,\"name\":\"d\",\"v\":75}\n");
  fclose(f);
}

static int read_count(const char *table, const char *where, const char *extra) {
  char args[1024], *out = NULL;
  snprintf(args, sizeof args, "table read %s --where \"%s\" --format csv %s", table, where, extra);
  int rc = cli(args, &out);
  int lines = 0;
  for (char *s = out; s && *s; s++) lines += *s == '\n';
  if (rc) fprintf(stderr, "%s: %s\n", args, out ? out : "");
  free(out);
  return rc ? -1 : lines - 1; /* header */
}

static void check_table(const char *name, const char *threshold, int want_index_files) {
  char args[2048], *out = NULL, table[64], dir[512];
  snprintf(table, sizeof table, "d.%s", name);
  snprintf(dir, sizeof dir, "%s/d.db/%s/bucket-0", wh, name);
  snprintf(args, sizeof args,
           "table create %s --columns 'id INT, name STRING, v BIGINT' --option bucket=1 --option bucket-key=id "
           "--option file-index.bloom-filter.columns=id --option file-index.bitmap.columns=name "
           "--option file-index.bsi.columns=v %s",
           table, threshold);
  CHECK_EQ_INT(cli(args, &out), 0);
  free(out);
  for (int k = 1; k <= 2; k++) {
    snprintf(args, sizeof args, "table import %s '%s/in%d.jsonl'", table, wh, k);
    CHECK_EQ_INT(cli(args, &out), 0);
    free(out);
  }
  CHECK_EQ_INT(count_index_files(dir), want_index_files);
  struct {
    const char *where;
    int rows;
  } q[] = {{"id = 501", 0}, {"id = 500", 1}, {"name = 'b'", 125}, {"v = 50", 0}, {"v = 75", 126}};
  for (size_t i = 0; i < sizeof q / sizeof q[0]; i++) {
    CHECK_MSG(read_count(table, q[i].where, "") == q[i].rows, "%s %s", name, q[i].where);
    CHECK_MSG(read_count(table, q[i].where, "--option file-index.read.enabled=false") == q[i].rows, "%s %s", name,
              q[i].where);
    snprintf(args, sizeof args, "table explain %s --where \"%s\"", table, q[i].where);
    CHECK_EQ_INT(cli(args, &out), 0);
    /* id = 501 / name = 'b' / v = 50 lie in both files' ranges: one file's index rules it out
     * (id = 501 and v = 50: both files); the others leave the matching file */
    const char *want = !strcmp(q[i].where, "id = 501") || !strcmp(q[i].where, "v = 50") ? "2 pruned by file index"
                       : !strcmp(q[i].where, "id = 500") || !strcmp(q[i].where, "v = 75") ? NULL
                                                                                             : "1 pruned by file index";
    /* planning tests embedded indexes only (Java's scan); a "<file>.index" is tested when
     * the file is read (FileIndexEvaluator), so planning keeps both files then */
    if (!want_index_files && want) CHECK_MSG(out && strstr(out, want), "%s %s: %s", name, q[i].where, out);
    if (want_index_files) CHECK_MSG(out && strstr(out, " 0 pruned by file index"), "%s %s: %s", name, q[i].where, out);
    free(out);
  }
  char tdir[512];
  snprintf(tdir, sizeof tdir, "%s/d.db/%s", wh, name);
  CHECK(ot_check_ok(tdir, 0, name));
  int rc = 0;
  char *err_text = NULL;
  json_t *rows = ot_read(tdir, "", &rc, &err_text);
  CHECK_MSG(rc == 0 && rows && json_array_size(rows) == 500 + 251, "oracle read %s: %s", name, err_text ? err_text : "");
  json_decref(rows);
  free(err_text);
  /* orphan cleanup: the .index files are referenced */
  snprintf(args, sizeof args, "table remove-orphan-files %s --older-than %lld", table,
           (long long)(time(NULL) + 0) * 1000 - 1);
  CHECK_EQ_INT(cli(args, &out), 0);
  CHECK_MSG(out && strstr(out, "files 0"), "%s", out);
  free(out);
  CHECK_EQ_INT(count_index_files(dir), want_index_files);
  /* truncate + expire: the index files go with their data files */
  snprintf(args, sizeof args, "table truncate %s", table);
  CHECK_EQ_INT(cli(args, &out), 0);
  free(out);
  snprintf(args, sizeof args, "table expire-snapshots %s --retain-max 1 --retain-min 1", table);
  CHECK_EQ_INT(cli(args, &out), 0);
  free(out);
  CHECK_EQ_INT(count_index_files(dir), 0);
  CHECK_EQ_INT(read_count(table, "id >= 0", ""), 0);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/cli_fidx_XXXXXX");
  CHECK(mkdtemp(wh) != NULL);
  char *out = NULL;
  CHECK_EQ_INT(cli("db create d", &out), 0);
  free(out);
  write_inputs();
  check_table("files", "", 2);                                                    /* > 500 bytes: .index files */
  check_table("embedded", "--option file-index.in-manifest-threshold=1mb", 0); /* embedded */
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
