/* The append writer (table/write.h): batches matched by name, routing to
 * (partition, bucket), files, DataFileMeta, commit messages; every written
 * table committed and checked by paimon-table (check + read) and our reader. */
#include <dirent.h>

#include "data/bucket.h"
#include "support/commit_fixture.h"
#include "io/fs_fault.h"
#include "table/write.h"

static char root[512];

/* A batch of (id INT NOT NULL, name STRING[, dt STRING]) with columns in the
 * given order: order "ind" = id, name, dt; "ni" = name, id (no dt) ... */
typedef struct tbatch {
  struct ArrowSchema s;
  struct ArrowArray a;
} tbatch;

static void tb_make(tbatch *b, const char *order, int n, const int32_t *ids, const char *const *names,
                    const char *const *dts) {
  int nc = (int)strlen(order);
  tw_schema(&b->s, "+s", "", 0, nc);
  tw_struct(&b->a, n, nc, NULL);
  for (int k = 0; k < nc; k++) {
    switch (order[k]) {
      case 'i':
        tw_schema(b->s.children[k], "i", "id", 0, 0);
        tw_prim(b->a.children[k], n, ids, 4, NULL);
        break;
      case 'n':
        tw_schema(b->s.children[k], "u", "name", 1, 0);
        tw_str(b->a.children[k], n, names, NULL);
        break;
      case 'd':
        tw_schema(b->s.children[k], "u", "dt", 1, 0);
        tw_str(b->a.children[k], n, dts, NULL);
        break;
    }
  }
}

static void tb_free(tbatch *b) {
  b->a.release(&b->a);
  b->s.release(&b->s);
}

/* cf_make_table's columns with exactly the given options ("\"k\" : \"v\", ..."). */
static void mk_table(const char *dir, int partitioned, const char *options) {
  char cmd[1400];
  snprintf(cmd, sizeof cmd, "rm -rf '%s' && mkdir -p '%s/schema'", dir, dir);
  if (system(cmd) != 0) abort();
  char path[1200];
  snprintf(path, sizeof path, "%s/schema/schema-0", dir);
  FILE *f = fopen(path, "w");
  if (!f) abort();
  fprintf(f,
          "{\n  \"version\" : 3,\n  \"id\" : 0,\n  \"fields\" : [ {\n    \"id\" : 0,\n    \"name\" : \"id\",\n"
          "    \"type\" : \"INT NOT NULL\"\n  }, {\n    \"id\" : 1,\n    \"name\" : \"name\",\n    \"type\" : \"STRING\"\n"
          "  }%s ],\n  \"highestFieldId\" : %d,\n  \"partitionKeys\" : [ %s ],\n  \"primaryKeys\" : [ ],\n"
          "  \"options\" : {\n    %s\n  },\n  \"timeMillis\" : 1733000000000\n}",
          partitioned ? ", {\n    \"id\" : 2,\n    \"name\" : \"dt\",\n    \"type\" : \"STRING\"\n  }" : "",
          partitioned ? 2 : 1, partitioned ? "\"dt\"" : "", options);
  fclose(f);
}

static int64_t commit_all(pm_table *t, pm_manifest_committable *m) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_commit *c = NULL;
  int64_t sid = -1;
  if (pm_commit_open(t, "writer-test", 0, &c, &err) || pm_commit_append(c, m, 0, &sid, &err)) {
    fprintf(stderr, "commit: %s\n", err.message);
    sid = -1;
  }
  pm_commit_free(c);
  return sid;
}

/* Number of regular files under dir (recursive), excluding schema/. */
static int count_files(const char *dir, const char *suffix) {
  DIR *d = opendir(dir);
  if (!d) return 0;
  int n = 0;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.' && (!e->d_name[1] || (e->d_name[1] == '.' && !e->d_name[2]))) continue;
    char p[2048];
    snprintf(p, sizeof p, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(p, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      if (strcmp(e->d_name, "schema")) n += count_files(p, suffix);
    } else if (!suffix || (strlen(e->d_name) > strlen(suffix) &&
                           !strcmp(e->d_name + strlen(e->d_name) - strlen(suffix), suffix))) {
      n++;
    }
  }
  closedir(d);
  return n;
}

static void test_unpartitioned(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/plain", root);
  cf_make_table(dir, 0, NULL);
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_table_write *w = NULL;
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  static const int32_t ids1[] = {1, 2, 3};
  static const char *const names1[] = {"a", "b", NULL};
  static const int32_t ids2[] = {4, 5};
  static const char *const names2[] = {"Two roads diverged in a yellow wood", "e"};
  tbatch b1, b2;
  tb_make(&b1, "in", 3, ids1, names1, NULL);
  tb_make(&b2, "ni", 2, ids2, names2, NULL); /* other column order: matched by name */
  CHECK_OK(pm_table_write_arrow(w, &b1.s, &b1.a, &err), &err);
  CHECK_OK(pm_table_write_arrow(w, &b2.s, &b2.a, &err), &err);
  tb_free(&b1);
  tb_free(&b2);
  pm_manifest_committable *m = NULL;
  CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  CHECK(m && m->n_messages == 1);
  if (m && m->n_messages == 1) {
    pm_commit_message *msg = &m->messages[0];
    CHECK_EQ_INT(msg->bucket, 0);
    CHECK_EQ_INT(msg->total_buckets, -1);
    CHECK_EQ_INT(msg->new_files.n, 1);
    pm_data_file_meta *f = &msg->new_files.items[0];
    CHECK_EQ_INT(f->row_count, 5);
    CHECK_EQ_INT(f->min_sequence_number, 0);
    CHECK_EQ_INT(f->max_sequence_number, 4);
    CHECK_EQ_INT(f->level, 0);
    CHECK_EQ_INT(f->file_source, PM_SOURCE_APPEND);
    CHECK(f->value_stats_cols.is_null);
    CHECK(!strncmp(f->file_name, "data-", 5) && strstr(f->file_name, ".parquet"));
    /* the wire form round-trips */
    pm_buf wire;
    pm_buf_init(&wire);
    CHECK_OK(pm_committable_encode(m, &wire, &err), &err);
    pm_manifest_committable *back = NULL;
    CHECK_OK(pm_committable_decode(wire.data, wire.len, 5, "test", &back, &err), &err);
    CHECK(back && back->n_messages == 1 && back->messages[0].new_files.items[0].row_count == 5);
    pm_committable_free(back);
    pm_buf_free(&wire);
  }
  CHECK_EQ_INT(commit_all(t, m), 1);
  pm_committable_free(m);
  pm_table_write_free(w); /* never deletes handed-out files */
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "1|a|\n2|b|\n3||\n4|Two roads diverged in a yellow wood|\n5|e|\n"));
  pm_table_free(t);
}

static void test_partitions_and_buckets(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/parts", root);
  mk_table(dir, 1, "\"bucket\" : \"3\", \"bucket-key\" : \"id\"");
  pm_table *t = cf_open(dir, NULL);
  CHECK_EQ_INT(t->bucket, 3);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_table_write *w = NULL;
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  enum { N = 12 };
  int32_t ids[N];
  const char *names[N];
  static const char *const dts[N] = {"2024-01-01", NULL, "", " ", "a/b=c", "x%y:z", "2024-01-01", NULL, "ü ß",
                                     "2024-01-02", "a/b=c", ""};
  char nb[N][16];
  for (int i = 0; i < N; i++) {
    ids[i] = i * 7 + 1;
    snprintf(nb[i], sizeof nb[i], "n%d", i);
    names[i] = nb[i];
  }
  tbatch b;
  tb_make(&b, "dni", N, ids, names, dts);
  CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
  tb_free(&b);
  pm_manifest_committable *m = NULL;
  CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  /* the (partition, bucket) of id 1 in 2024-01-01: its max sequence number */
  int32_t b1 = pm_bucket_of_hash(pm_bucket_hash((const uint8_t[16]){0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0}, 16), 3);
  CHECK_EQ_INT(b1, 1); /* FORMAT.md 6.3 (a): INT 1, 3 buckets */
  pm_bytes p1 = cf_partition(&m->arena, "2024-01-01", 1);
  int64_t max1 = -1;
  for (size_t i = 0; m && i < m->n_messages; i++)
    if (m->messages[i].bucket == b1 && m->messages[i].partition.len == p1.len &&
        !memcmp(m->messages[i].partition.data, p1.data, p1.len))
      for (size_t k = 0; k < m->messages[i].new_files.n; k++)
        if (m->messages[i].new_files.items[k].max_sequence_number > max1)
          max1 = m->messages[i].new_files.items[k].max_sequence_number;
  CHECK(max1 >= 0);
  /* paimon-table check recomputes every row's bucket from its id (FORMAT 6) */
  int64_t rows = 0;
  for (size_t i = 0; m && i < m->n_messages; i++) {
    CHECK_EQ_INT(m->messages[i].total_buckets, 3);
    for (size_t k = 0; k < m->messages[i].new_files.n; k++) rows += m->messages[i].new_files.items[k].row_count;
  }
  CHECK_EQ_INT(rows, N);
  CHECK_EQ_INT(commit_all(t, m), 1);
  pm_committable_free(m);
  pm_table_write_free(w);
  CHECK(cf_check(dir));
  /* dt null, "" and " " are three partitions sharing the default directory */
  char dflt[1024];
  snprintf(dflt, sizeof dflt, "%s/dt=__DEFAULT_PARTITION__", dir);
  struct stat st;
  CHECK(stat(dflt, &st) == 0);
  snprintf(dflt, sizeof dflt, "%s/dt=a%%2Fb%%3Dc", dir);
  CHECK(stat(dflt, &st) == 0);
  char *exp = NULL;
  {
    char **lines = malloc(N * sizeof *lines);
    for (int i = 0; i < N; i++) {
      char l[128];
      snprintf(l, sizeof l, "%d|%s|%s", ids[i], names[i], dts[i] ? dts[i] : "null");
      lines[i] = strdup(l);
    }
    exp = cf_join_sorted(lines, N);
  }
  CHECK(cf_rows_are(dir, exp));
  free(exp);

  /* a second write continues each bucket's sequence numbers */
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  static const int32_t ids2[] = {1};
  static const char *const names2[] = {"again"};
  static const char *const dts2[] = {"2024-01-01"};
  tb_make(&b, "ind", 1, ids2, names2, dts2);
  CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
  tb_free(&b);
  CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  CHECK(m && m->n_messages == 1 && m->messages[0].new_files.items[0].min_sequence_number == max1 + 1 &&
        m->messages[0].bucket == b1);
  CHECK_EQ_INT(commit_all(t, m), 2);
  pm_committable_free(m);
  pm_table_write_free(w);
  CHECK(cf_check(dir));
  pm_table_free(t);
}

static void expect_bad(pm_table *t, tbatch *b, const char *needle) {
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_table_write *w = NULL;
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  int rc = pm_table_write_arrow(w, &b->s, &b->a, &err);
  CHECK_EQ_INT(rc, PAIMON_ERR_INVALID_ARGUMENT);
  if (!strstr(err.message, needle)) {
    fprintf(stderr, "message '%s' does not name '%s'\n", err.message, needle);
    CHECK(0);
  }
  pm_table_write_free(w);
  tb_free(b);
}

static void test_bad_input(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/bad", root);
  cf_make_table(dir, 1, NULL);
  pm_table *t = cf_open(dir, NULL);
  static const int32_t ids[] = {1, 2};
  static const char *const names[] = {"a", "b"};
  static const char *const dts[] = {"d", "d"};
  tbatch b;
  /* missing NOT NULL column */
  tb_make(&b, "nd", 2, ids, names, dts);
  expect_bad(t, &b, "'id'");
  /* unknown column */
  tb_make(&b, "ind", 2, ids, names, dts);
  b.s.children[1]->release(b.s.children[1]);
  tw_schema(b.s.children[1], "u", "nope", 1, 0);
  expect_bad(t, &b, "'nope'");
  /* wrong type: id as BIGINT */
  tb_make(&b, "ind", 2, ids, names, dts);
  b.s.children[0]->release(b.s.children[0]);
  tw_schema(b.s.children[0], "l", "id", 0, 0);
  pm_error err;
  expect_bad(t, &b, "'id'");
  /* a null in the NOT NULL column (the Arrow field even claims NOT NULL is nullable) */
  tb_make(&b, "ind", 2, ids, names, dts);
  tw_validity(b.a.children[0], 2, "10");
  b.s.children[0]->flags |= ARROW_FLAG_NULLABLE;
  expect_bad(t, &b, "'id'");
  /* nothing was written anywhere */
  CHECK_EQ_INT(count_files(dir, NULL), 0);
  (void)err;
  /* missing nullable columns are nulls */
  tb_make(&b, "i", 2, ids, names, dts);
  memset(&err, 0, sizeof err);
  pm_table_write *w = NULL;
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
  tb_free(&b);
  /* an unflushed writer leaves nothing behind */
  pm_table_write_free(w);
  CHECK_EQ_INT(count_files(dir, NULL), 0);
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  tb_make(&b, "i", 2, ids, names, dts);
  CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
  tb_free(&b);
  pm_manifest_committable *m = NULL;
  CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  CHECK_EQ_INT(commit_all(t, m), 1);
  pm_committable_free(m);
  pm_table_write_free(w);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "1||null\n2||null\n"));
  pm_table_free(t);
}

static void test_rolling_and_formats(void) {
  static const char *const formats[][2] = {{"parquet", "zstd"}, {"parquet", "snappy"}, {"parquet", "none"},
                                           {"orc", "zstd"},     {"avro", "zstd"},      {"avro", "snappy"}};
  for (size_t f = 0; f < sizeof formats / sizeof formats[0]; f++) {
    char dir[600], opts[512];
    snprintf(dir, sizeof dir, "%s/fmt_%s_%s", root, formats[f][0], formats[f][1]);
    snprintf(opts, sizeof opts,
             "\"file.format\" : \"%s\", \"file.compression\" : \"%s\", \"target-file-size\" : \"2 kb\"",
             formats[f][0], formats[f][1]);
    cf_make_table(dir, 1, opts);
    pm_table *t = cf_open(dir, NULL);
    pm_error err;
    memset(&err, 0, sizeof err);
    pm_table_write *w = NULL;
    pm_write_config cfg = {.max_writers = 1}; /* two partitions, one open file at a time */
    CHECK_OK(pm_table_write_open(t, &cfg, &w, &err), &err);
    enum { N = 400 };
    int32_t ids[N];
    const char *names[N], *dts[N];
    char nb[N][40];
    for (int i = 0; i < N; i++) {
      ids[i] = i;
      snprintf(nb[i], sizeof nb[i], "name-%d-%08x", i, (unsigned)(i * 2654435761u));
      names[i] = (i % 17) ? nb[i] : NULL;
      dts[i] = i % 2 ? "odd" : "even";
    }
    for (int rep = 0; rep < 2; rep++) {
      tbatch b;
      tb_make(&b, "ind", N / 2, ids + rep * (N / 2), names + rep * (N / 2), dts + rep * (N / 2));
      CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
      tb_free(&b);
    }
    pm_manifest_committable *m = NULL;
    CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
    size_t files = 0;
    int64_t rows = 0, last_max = -1;
    for (size_t i = 0; m && i < m->n_messages; i++) {
      files += m->messages[i].new_files.n;
      last_max = -1;
      for (size_t k = 0; k < m->messages[i].new_files.n; k++) {
        pm_data_file_meta *fm = &m->messages[i].new_files.items[k];
        rows += fm->row_count;
        CHECK_EQ_INT(fm->min_sequence_number, last_max + 1); /* one writer per partition, numbers continue */
        last_max = fm->max_sequence_number;
        CHECK(strstr(fm->file_name, formats[f][0]) != NULL);
      }
    }
    CHECK_EQ_INT(rows, N);
    CHECK(files > 2); /* rolled */
    CHECK_EQ_INT(commit_all(t, m), 1);
    pm_committable_free(m);
    pm_table_write_free(w);
    char **lines = malloc(N * sizeof *lines);
    for (int i = 0; i < N; i++) {
      char l[128];
      snprintf(l, sizeof l, "%d|%s|%s", ids[i], names[i] ? names[i] : "", dts[i]);
      lines[i] = strdup(l);
    }
    char *exp = cf_join_sorted(lines, N);
    if (!strcmp(formats[f][0], "parquet")) {
      CHECK(cf_check(dir));
      CHECK(cf_rows_are(dir, exp));
    } else {
      char *ours = cf_read_ours(dir);
      CHECK(ours && !strcmp(ours, exp));
      free(ours);
    }
    free(exp);
    pm_table_free(t);
  }
}

/* An injected I/O error at any file operation of a write fails it naming the
 * file, and the writer's free leaves no file behind (nothing visible, no temp). */
static void test_faults(void) {
  static const pm_fault_op ops[] = {PM_FAULT_OP_MKDIRS, PM_FAULT_OP_CREATE, PM_FAULT_OP_WRITE, PM_FAULT_OP_FSYNC,
                                    PM_FAULT_OP_PUBLISH};
  for (size_t o = 0; o < sizeof ops / sizeof ops[0]; o++) {
    for (uint64_t nth = 1; nth <= 3; nth += 2) {
      char dir[600];
      snprintf(dir, sizeof dir, "%s/fault", root);
      mk_table(dir, 1, "\"bucket\" : \"-1\", \"target-file-size\" : \"1 kb\"");
      pm_error err;
      memset(&err, 0, sizeof err);
      pm_fs *fs = NULL;
      CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
      pm_table *t = cf_open(dir, fs);
      pm_fault_rule rule = {.op = ops[o], .nth = nth, .times = 0, .action = PM_FAULT_ERROR};
      pm_fault_fs_arm(fs, &rule);
      pm_table_write *w = NULL;
      CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
      enum { N = 200 };
      int32_t ids[N];
      const char *names[N], *dts[N];
      for (int i = 0; i < N; i++) {
        ids[i] = i;
        names[i] = "some text to fill the file a bit";
        dts[i] = i % 3 ? "p1" : "p2";
      }
      tbatch b;
      tb_make(&b, "ind", N, ids, names, dts);
      int rc = pm_table_write_arrow(w, &b.s, &b.a, &err);
      tb_free(&b);
      pm_manifest_committable *m = NULL;
      if (!rc) rc = pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err);
      CHECK_EQ_INT(rc, PAIMON_ERR_IO);
      CHECK(strstr(err.message, "injected") != NULL && strstr(err.message, dir) != NULL);
      /* a failed writer stays failed */
      if (rc) CHECK_EQ_INT(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), PAIMON_ERR_IO);
      pm_committable_free(m);
      pm_fault_fs_disarm(fs);
      pm_table_write_free(w);
      CHECK_EQ_INT(count_files(dir, NULL), 0);
      pm_table_free(t);
      pm_fs_unref(fs);
    }
  }
}

/* data-file.path-directory and external paths (round-robin over two roots). */
static void test_locations(void) {
  char dir[600], opts[2048];
  snprintf(dir, sizeof dir, "%s/loc", root);
  snprintf(opts, sizeof opts,
           "\"bucket\" : \"-1\", \"data-file.path-directory\" : \"data\", \"target-file-size\" : \"1 kb\", "
           "\"data-file.external-paths\" : \"file://%s/ext1,file://%s/ext2/\", "
           "\"data-file.external-paths.strategy\" : \"round-robin\"",
           root, root);
  mk_table(dir, 1, opts);
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_table_write *w = NULL;
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  enum { N = 300 };
  int32_t ids[N];
  const char *names[N], *dts[N];
  char nb[N][32];
  for (int i = 0; i < N; i++) {
    ids[i] = i;
    snprintf(nb[i], sizeof nb[i], "v%d-%x", i, (unsigned)(i * 40503u));
    names[i] = nb[i];
    dts[i] = "p";
  }
  tbatch b;
  tb_make(&b, "ind", N, ids, names, dts);
  CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
  tb_free(&b);
  pm_manifest_committable *m = NULL;
  CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  int in1 = 0, in2 = 0;
  for (size_t i = 0; m && i < m->n_messages; i++)
    for (size_t k = 0; k < m->messages[i].new_files.n; k++) {
      const char *e = m->messages[i].new_files.items[k].external_path;
      char want[1200];
      snprintf(want, sizeof want, "file:%s/ext", root);
      CHECK(e && !strncmp(e, want, strlen(want)) && strstr(e, "/data/dt=p/bucket-0/data-"));
      if (e && strstr(e, "/ext1/")) in1++;
      if (e && strstr(e, "/ext2/")) in2++;
    }
  CHECK(in1 > 0 && in2 > 0 && (in1 - in2 <= 1 && in2 - in1 <= 1)); /* round robin */
  CHECK_EQ_INT(commit_all(t, m), 1);
  pm_committable_free(m);
  pm_table_write_free(w);
  CHECK(cf_check(dir));
  char **lines = malloc(N * sizeof *lines);
  for (int i = 0; i < N; i++) {
    char l[128];
    snprintf(l, sizeof l, "%d|%s|p", ids[i], names[i]);
    lines[i] = strdup(l);
  }
  char *exp = cf_join_sorted(lines, N);
  CHECK(cf_rows_are(dir, exp));
  free(exp);
  pm_table_free(t);

  /* without external paths: the files go under <table>/data/ */
  snprintf(dir, sizeof dir, "%s/loc2", root);
  mk_table(dir, 0, "\"bucket\" : \"-1\", \"data-file.path-directory\" : \"data\", \"data-file.prefix\" : \"part-\"");
  t = cf_open(dir, NULL);
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  tb_make(&b, "in", 2, ids, names, NULL);
  CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
  tb_free(&b);
  CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  CHECK(m && m->n_messages == 1 && !strncmp(m->messages[0].new_files.items[0].file_name, "part-", 5));
  CHECK_EQ_INT(commit_all(t, m), 1);
  pm_committable_free(m);
  pm_table_write_free(w);
  CHECK_EQ_INT(count_files(dir, ".parquet"), 1);
  char sub[1200];
  snprintf(sub, sizeof sub, "%s/data/bucket-0", dir);
  CHECK_EQ_INT(count_files(sub, ".parquet"), 1);
  CHECK(cf_check(dir));
  pm_table_free(t);
}

/* write-max-writers-to-spill: beyond the limit the least recently used file is closed. */
static void test_max_writers(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/maxw", root);
  mk_table(dir, 1, "\"bucket\" : \"-1\", \"write-max-writers-to-spill\" : \"2\"");
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_table_write *w = NULL;
  CHECK_OK(pm_table_write_open(t, NULL, &w, &err), &err);
  static const char *const order[] = {"a", "b", "a", "c", "a", "b"};
  for (int r = 0; r < 6; r++) {
    int32_t id = r;
    const char *nm = "x";
    tbatch b;
    tb_make(&b, "ind", 1, &id, &nm, &order[r]);
    CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
    tb_free(&b);
  }
  pm_manifest_committable *m = NULL;
  CHECK_OK(pm_table_write_prepare(w, PM_BATCH_COMMIT_IDENTIFIER, &m, &err), &err);
  /* a stays open throughout (most recently used when c and b open); b is closed by c, reopened */
  size_t files = 0;
  for (size_t i = 0; m && i < m->n_messages; i++) files += m->messages[i].new_files.n;
  CHECK_EQ_INT(files, 4);
  CHECK_EQ_INT(commit_all(t, m), 1);
  pm_committable_free(m);
  pm_table_write_free(w);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "0|x|a\n1|x|b\n2|x|a\n3|x|c\n4|x|a\n5|x|b\n"));
  pm_table_free(t);
}

/* A stream writer: prepare per checkpoint; sequence numbers continue per writer. */
static void test_streaming(void) {
  char dir[600];
  snprintf(dir, sizeof dir, "%s/stream", root);
  mk_table(dir, 0, "\"bucket\" : \"-1\"");
  pm_table *t = cf_open(dir, NULL);
  pm_error err;
  memset(&err, 0, sizeof err);
  pm_table_write *w = NULL;
  pm_write_config cfg = {.commit_user = "stream-user", .streaming = 1};
  CHECK_OK(pm_table_write_open(t, &cfg, &w, &err), &err);
  pm_commit *c = NULL;
  CHECK_OK(pm_commit_open(t, "stream-user", 1, &c, &err), &err);
  for (int64_t cp = 1; cp <= 3; cp++) {
    int32_t ids[2] = {(int32_t)cp * 10, (int32_t)cp * 10 + 1};
    static const char *const names[2] = {"s", "t"};
    tbatch b;
    tb_make(&b, "in", 2, ids, names, NULL);
    CHECK_OK(pm_table_write_arrow(w, &b.s, &b.a, &err), &err);
    tb_free(&b);
    pm_manifest_committable *m = NULL;
    CHECK_OK(pm_table_write_prepare(w, cp, &m, &err), &err);
    CHECK(m && m->identifier == cp && m->n_messages == 1);
    if (m && m->n_messages == 1) CHECK_EQ_INT(m->messages[0].new_files.items[0].min_sequence_number, (cp - 1) * 2);
    int64_t sid = -1;
    CHECK_OK(pm_commit_append(c, m, 0, &sid, &err), &err);
    CHECK_EQ_INT(sid, cp);
    pm_committable_free(m);
  }
  /* a checkpoint without rows: no message */
  pm_manifest_committable *m = NULL;
  CHECK_OK(pm_table_write_prepare(w, 4, &m, &err), &err);
  CHECK(m && m->n_messages == 0);
  pm_committable_free(m);
  pm_commit_free(c);
  pm_table_write_free(w);
  CHECK(cf_check(dir));
  CHECK(cf_rows_are(dir, "10|s|\n11|t|\n20|s|\n21|t|\n30|s|\n31|t|\n"));
  pm_table_free(t);
}

int main(void) {
  snprintf(root, sizeof root, "/tmp/pm_test_write_%d", (int)getpid());
  RUN_TEST(test_unpartitioned);
  RUN_TEST(test_partitions_and_buckets);
  RUN_TEST(test_bad_input);
  RUN_TEST(test_rolling_and_formats);
  RUN_TEST(test_faults);
  RUN_TEST(test_locations);
  RUN_TEST(test_max_writers);
  RUN_TEST(test_streaming);
  char cmd[600];
  if (!pm_test_failures) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", root);
    if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  }
  tw_cleanup();
  TEST_MAIN_END();
}
