/*
 * data-file.external-paths strategies as Java's ExternalPathProvider makes
 * them (CoreOptions.ExternalPathStrategy): round-robin, specific-fs (the
 * matching roots, round-robin), entropy-inject (murmur3_32 of the file name:
 * 20 bits as bbbb/bbbb/bbbb/bbbbbbbb directories below the bucket path),
 * weight-robin (data-file.external-paths.weights; bad weights refused), and
 * data-file.prefix. Every table passes paimon-table check and paimon-table
 * read returns the rows written (the stored external paths are used as is);
 * our reader too.
 */
#include <dirent.h>
#include <jansson.h>
#include <regex.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "table/write_internal.h"

static char tmp_root[256];

/* Data files under dir (recursive): count, and how many have a path matching re (relative to dir). */
static void walk(const char *dir, const char *rel, regex_t *re, int *n, int *hits) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char p[1200], r[1200];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    snprintf(r, sizeof r, "%s%s%s", rel, *rel ? "/" : "", e->d_name);
    struct stat st;
    if (stat(p, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      walk(p, r, re, n, hits);
    } else {
      (*n)++;
      if (re && regexec(re, r, 0, NULL, 0) == 0) (*hits)++;
    }
  }
  closedir(d);
}

static int files_matching(const char *dir, const char *pattern, int *total) {
  regex_t re;
  int n = 0, hits = 0;
  CHECK(regcomp(&re, pattern, REG_EXTENDED | REG_NOSUB) == 0);
  walk(dir, "", &re, &n, &hits);
  regfree(&re);
  if (total) *total = n;
  return hits;
}

typedef struct ext_case {
  const char *name;
  const char *strategy;
  const char *extra; /* one more option or NULL */
  int n_roots;       /* roots ext0..ext<n-1> (file://), plus one s3:// root for specific-fs */
} ext_case;

static json_t *rows_json(const char *text) { return ot_parse_lines(text, NULL); }

/* Writes 3 commits of 12 rows (target-file-size small: several files per commit) into a table
 * with the case's options; returns the number of data files per external root. */
static void run_case(paimon_catalog *cat, const ext_case *c, int *per_root) {
  char wh[512], roots[2048] = "", ext[1200];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  for (int i = 0; i < c->n_roots; i++) {
    size_t l = strlen(roots);
    snprintf(roots + l, sizeof roots - l, "%sfile://%s/%s/ext%d", i ? "," : "", tmp_root, c->name, i);
  }
  if (!strcmp(c->strategy, "specific-fs")) {
    size_t l = strlen(roots);
    snprintf(roots + l, sizeof roots - l, ",s3://bucket/never");
  }
  char o1[2100], o2[128];
  snprintf(o1, sizeof o1, "data-file.external-paths=%s", roots);
  snprintf(o2, sizeof o2, "data-file.external-paths.strategy=%s", c->strategy);
  const char *opts[6] = {o1, o2, "bucket=-1", "data-file.prefix=part-", c->extra, NULL};
  size_t n_opts = c->extra ? 5 : 4;
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "db", c->name, "id INT NOT NULL, s STRING, p STRING", "p", opts, n_opts, 0, &err),
           &err);
  char ident[128], dir[800];
  snprintf(ident, sizeof ident, "db.%s", c->name);
  snprintf(dir, sizeof dir, "%s/db.db/%s", wh, c->name);
  json_t *all = json_array();
  int id = 0;
  for (int k = 0; k < 3; k++) {
    char text[4096] = "";
    for (int i = 0; i < 12; i++, id++) {
      size_t l = strlen(text);
      snprintf(text + l, sizeof text - l, "{\"id\":%d,\"s\":\"v%d\",\"p\":\"%s\"}\n", id, id, i % 2 ? "a" : "b/c");
    }
    paimon_table *tb = NULL;
    CHECK_OK(paimon_catalog_get_table(cat, ident, &tb, &err), &err);
    int64_t snap = -1;
    if (tb) CHECK_OK(ow_write_commit(tb, NULL, 0, 0, text, NULL, 0, 0, &snap, &err), &err);
    CHECK_EQ_INT(snap, k + 1);
    json_t *r = rows_json(text);
    json_array_extend(all, r);
    json_decref(r);
    paimon_table_free(tb);
  }
  char what[128];
  snprintf(what, sizeof what, "external paths %s", c->strategy);
  CHECK(ot_check_ok(dir, 0, what));
  CHECK(ot_read_equals(dir, NULL, all, what));
  paimon_table *tb = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &tb, &err), &err);
  json_t *ours = tb ? ow_read_ours(tb, &err) : NULL;
  char msg[4096];
  CHECK_MSG(ours && ot_rows_match(all, ours, msg, sizeof msg), "%s (our reader): %s", what, ours ? msg : err.message);
  json_decref(ours);
  paimon_table_free(tb);
  json_decref(all);
  /* nothing under the table's own bucket directories */
  int in_table = 0;
  CHECK_EQ_INT(files_matching(dir, "\\.parquet$", &in_table), 0);
  for (int i = 0; i < c->n_roots; i++) {
    snprintf(ext, sizeof ext, "%s/%s/ext%d", tmp_root, c->name, i);
    int total = 0;
    const char *pat = !strcmp(c->strategy, "entropy-inject")
                          ? "^p=(a|b%2Fc)/bucket-0/[01]{4}/[01]{4}/[01]{4}/[01]{8}/part-[-0-9a-f]+-[0-9]+\\.parquet$"
                          : "^p=(a|b%2Fc)/bucket-0/part-[-0-9a-f]+-[0-9]+\\.parquet$";
    int hits = files_matching(ext, pat, &total);
    CHECK_MSG(hits == total, "%s: root %d: %d of %d files at the expected place", c->name, i, hits, total);
    per_root[i] = total;
  }
}

static void test_strategies(void) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  paimon_option o = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  int per[3] = {0, 0, 0};
  ext_case rr = {"rr", "round-robin", NULL, 2};
  run_case(cat, &rr, per);
  CHECK(per[0] + per[1] == 6); /* 3 commits x 2 partitions; each writer starts at a random root, as Java */
  ext_case sf = {"sfs", "specific-fs", "data-file.external-paths.specific-fs=file", 1};
  memset(per, 0, sizeof per);
  run_case(cat, &sf, per);
  CHECK(per[0] == 6); /* 3 commits x 2 partitions, the s3:// root never used */
  ext_case en = {"entropy", "entropy-inject", NULL, 2};
  memset(per, 0, sizeof per);
  run_case(cat, &en, per);
  CHECK_MSG(per[1] == 6, "entropy: %d / %d", per[0], per[1]); /* Java's provider starts at 0 and moves first: root 1 */
  ext_case wr = {"weighted", "weight-robin", "data-file.external-paths.weights=1,1000000", 2};
  memset(per, 0, sizeof per);
  run_case(cat, &wr, per);
  CHECK_MSG(per[0] + per[1] == 6 && per[1] >= 5, "weighted: %d / %d", per[0], per[1]);
  paimon_catalog_free(cat);
}

/* Java's entropy directories: the low 20 bits of Guava's murmur3_32(file name), MSB first. */
static void test_entropy_dirs(void) {
  char out[24];
  /* murmur3_32("") = 0, "a" = 0x3c2569b2, "hello" = 0x248bfa47 (reference vectors, seed 0) */
  pm_write_entropy_dirs("", out);
  CHECK_EQ_STR(out, "0000/0000/0000/00000000");
  pm_write_entropy_dirs("a", out);
  CHECK_EQ_STR(out, "0101/0110/1001/10110010"); /* 0x569b2 */
  pm_write_entropy_dirs("hello", out);
  CHECK_EQ_STR(out, "1011/1111/1010/01000111"); /* 0xbfa47 */
}

/* Weight-robin weights are checked as CoreOptions.externalPathWeights / the provider do. */
static void test_bad_weights(void) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  paimon_option o = {"warehouse", wh};
  paimon_catalog *cat = NULL;
  paimon_error err = {0};
  CHECK_OK(paimon_catalog_open(&o, 1, &cat, &err), &err);
  static const char *const bad[][2] = {{"w1", "1,0"}, {"w2", "1,x"}, {"w3", "1,2,3"}};
  for (int i = 0; i < 3; i++) {
    char o1[1200], o3[128];
    snprintf(o1, sizeof o1, "data-file.external-paths=file://%s/%s/a,file://%s/%s/b", tmp_root, bad[i][0], tmp_root,
             bad[i][0]);
    snprintf(o3, sizeof o3, "data-file.external-paths.weights=%s", bad[i][1]);
    const char *opts[] = {o1, "data-file.external-paths.strategy=weight-robin", o3, "bucket=-1"};
    CHECK_OK(ow_create_table(cat, "db", bad[i][0], "id INT", NULL, opts, 4, 0, &err), &err);
    char ident[64];
    snprintf(ident, sizeof ident, "db.%s", bad[i][0]);
    paimon_table *tb = NULL;
    CHECK_OK(paimon_catalog_get_table(cat, ident, &tb, &err), &err);
    int64_t snap = -1;
    paimon_status st = tb ? ow_write_commit(tb, NULL, 0, 0, "{\"id\":1}\n", NULL, 0, 0, &snap, &err) : PAIMON_OK;
    CHECK_EQ_INT(st, PAIMON_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err.message, "data-file.external-paths.weights") != NULL, "%s", err.message);
    paimon_table_free(tb);
  }
  paimon_catalog_free(cat);
}

int main(void) {
  snprintf(tmp_root, sizeof tmp_root, "/tmp/pm_test_write_external_XXXXXX");
  if (!mkdtemp(tmp_root)) return 1;
  char wh[300];
  snprintf(wh, sizeof wh, "%s/wh", tmp_root);
  if (mkdir(wh, 0755)) return 1;
  RUN_TEST(test_entropy_dirs);
  if (ot_available()) RUN_TEST(test_strategies);
  RUN_TEST(test_bad_weights);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp_root);
  if (!getenv("PM_KEEP") && !pm_test_failures && system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
