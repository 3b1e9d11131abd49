/* Data-file indexes (meta/fileindex.h) on the Java-written fixture tables:
 *  - bytes: for every live data file of the append_with_* / pk_with_bitmap_dv
 *    fixtures (Parquet and ORC), our index writer given the file's rows and
 *    the table's options produces exactly the index Java embedded in the
 *    manifest or wrote as <data file>.index;
 *  - decoding: the Java indexes prune as Java's FileIndexPredicate does for
 *    values present / absent in each file (bloom filter, bitmap v1/v2, bsi);
 *  - damaged containers are PAIMON_ERR_CORRUPT, never a crash. */
#include <unistd.h>

#include "format/format.h"
#include "support/fixture_copy.h"
#include "harness.h"
#include "io/file.h"
#include "meta/fileindex.h"
#include "table/catalog.h"
#include "table/read.h"
#include "table/scan.h"

static pm_table *open_in(const char *wh, const char *name, const char *k, const char *v) {
  char ident[256];
  snprintf(ident, sizeof ident, "%s.%s", name, name);
  pm_error err = {0};
  pm_options o, d;
  pm_options_init(&o);
  pm_options_init(&d);
  pm_options_set(&o, "warehouse", wh, &err);
  if (k) pm_options_set(&d, k, v, &err);
  pm_catalog *c = NULL;
  pm_table *t = NULL;
  CHECK_OK(pm_catalog_open(&o, &c, &err), &err);
  if (c) CHECK_OK(pm_catalog_get_table(c, ident, &d, &t, &err), &err);
  pm_catalog_free(c);
  pm_options_clear(&o);
  pm_options_clear(&d);
  return t;
}

static pm_table *open_fixture(const char *fmt, const char *name) {
  char wh[512];
  snprintf(wh, sizeof wh, "%s/%s", PM_SHARED("fixtures/warehouse"), fmt);
  return open_in(wh, name, NULL, NULL);
}

static pm_predicate *parse(pm_table *t, const char *text) {
  pm_pred_column cols[64];
  size_t n = t->schema->n_fields;
  for (size_t i = 0; i < n && i < 64; i++) {
    cols[i].name = t->schema->fields[i].name;
    cols[i].index = (int32_t)i;
    cols[i].field_id = t->schema->fields[i].id;
    cols[i].type = t->schema->fields[i].type;
  }
  pm_error err = {0};
  pm_predicate *p = NULL;
  CHECK_OK(pm_pred_parse(text, cols, n, 1, &p, &err), &err);
  return p;
}

typedef struct file_index {
  char *data_path;
  pm_buf bytes; /* Java's index */
  int64_t rows;
} file_index;

/* The live files of the fixture with their Java index bytes. */
static size_t load_indexes(pm_table *t, file_index *out, size_t cap) {
  pm_error err = {0};
  pm_snapshot *snap = NULL;
  CHECK_OK(pm_scan_resolve_snapshot(t, &snap, &err), &err);
  pm_manifest_entries es;
  pm_manifest_entries_init(&es);
  CHECK_OK(pm_scan_live_files(t, snap, NULL, &es, &err), &err);
  size_t n = 0;
  for (size_t i = 0; i < es.n && n < cap; i++) {
    const pm_data_file_meta *f = &es.items[i].file;
    char *pdir = NULL, *bpath = NULL, *path = NULL;
    CHECK_OK(pm_scan_partition_dir(t, es.items[i].partition.data, es.items[i].partition.len, &pdir, &err), &err);
    CHECK_OK(pm_table_bucket_path(t, pdir, es.items[i].bucket, &bpath, &err), &err);
    /* external-path fixtures keep a copy of each file in the table's own bucket dir */
    CHECK_OK(pm_table_data_file_path(t, bpath, f->file_name, NULL, &path, &err), &err);
    file_index *fi = &out[n];
    memset(fi, 0, sizeof *fi);
    fi->data_path = path;
    fi->rows = f->row_count;
    if (f->has_embedded_index) {
      pm_buf_append(&fi->bytes, f->embedded_index.data, f->embedded_index.len);
    } else {
      CHECK_MSG(f->extra_files.n == 1, "%s: %d extra files", f->file_name, (int)f->extra_files.n);
      if (f->extra_files.n == 1) {
        char ip[1024];
        snprintf(ip, sizeof ip, "%s/%s", bpath, f->extra_files.items[0]);
        CHECK_OK(pm_read_file(ip, &fi->bytes, 64u << 20, &err), &err);
      }
    }
    n++;
    free(pdir);
    free(bpath);
  }
  pm_manifest_entries_clear(&es);
  pm_snapshot_free(snap);
  return n;
}

static void free_indexes(file_index *v, size_t n) {
  for (size_t i = 0; i < n; i++) {
    free(v[i].data_path);
    pm_buf_free(&v[i].bytes);
  }
}

/* Our index of a data file's rows. */
static int our_index(pm_table *t, const char *data_path, pm_buf *out, pm_error *err) {
  pm_fidx_writer *w = NULL;
  PM_TRY(pm_fidx_writer_new(&t->options, t->schema->fields, t->schema->n_fields, &w, err));
  if (!w) return pm_errorf(err, PAIMON_ERR_INTERNAL, "no index declared");
  pm_file *file = NULL;
  int rc = pm_file_open(data_path, &file, err);
  pm_format_reader *r = NULL;
  pm_format_read_options o;
  pm_format_read_options_init(&o);
  if (!rc) rc = pm_format_reader_open(pm_format_for_file(data_path), file, &o, &r, err);
  struct ArrowSchema s = {0};
  if (!rc) rc = pm_format_reader_schema(r, &s, err);
  size_t first = pm_table_has_pk(t) ? t->n_trimmed_primary_keys + 2 : 0;
  while (!rc) {
    struct ArrowArray b = {0};
    rc = pm_format_reader_next(r, &b, err);
    if (rc || !b.release) break;
    rc = pm_fidx_writer_add(w, &s, &b, first, err);
    b.release(&b);
  }
  if (!rc) rc = pm_fidx_writer_finish(w, out, err);
  if (s.release) s.release(&s);
  pm_format_reader_close(r);
  pm_fidx_writer_free(w);
  return rc;
}

static const char *FIXTURES_ALL[] = {"append_with_bitmap",     "append_with_bitmap_v1",          "append_with_bloomfilter",
                                 "append_with_bsi",        "append_with_bsi_bitmap_bloomfilter",
                                 "append_with_bitmap_no_embedding", "pk_with_bitmap_dv"};

static void test_bytes_equal_java(void) {
  const char *fmts[] = {"parquet", "orc"};
  const char *only = getenv("FIDX_ONLY");
  const char *const *FIXTURES = only ? &only : FIXTURES_ALL;
  size_t nfx = only ? 1 : sizeof FIXTURES_ALL / sizeof *FIXTURES_ALL;
  for (size_t fm = 0; fm < 2; fm++)
    for (size_t k = 0; k < nfx; k++) {
      pm_table *t = open_fixture(fmts[fm], FIXTURES[k]);
      if (!t) continue;
      file_index fx[8];
      size_t n = load_indexes(t, fx, 8);
      CHECK_MSG(n > 0, "%s/%s: no files", fmts[fm], FIXTURES[k]);
      for (size_t i = 0; i < n; i++) {
        pm_error err = {0};
        pm_buf ours = {0};
        CHECK_OK(our_index(t, fx[i].data_path, &ours, &err), &err);
        int same = ours.len == fx[i].bytes.len && !memcmp(ours.data, fx[i].bytes.data, ours.len);
        CHECK_MSG(same, "%s/%s %s: our index (%zu bytes) differs from Java's (%zu bytes)", fmts[fm], FIXTURES[k],
                  fx[i].data_path, ours.len, fx[i].bytes.len);
        if (!same && getenv("FIDX_DUMP")) {
          FILE *fp = fopen(getenv("FIDX_DUMP"), "wb");
          if (fp) {
            fwrite(ours.data, 1, ours.len, fp);
            fclose(fp);
          }
          char jp[512];
          snprintf(jp, sizeof jp, "%s.java", getenv("FIDX_DUMP"));
          fp = fopen(jp, "wb");
          if (fp) {
            fwrite(fx[i].bytes.data, 1, fx[i].bytes.len, fp);
            fclose(fp);
          }
        }
        if (!same) {
          for (size_t b = 0; b < ours.len && b < fx[i].bytes.len; b++)
            if (ours.data[b] != fx[i].bytes.data[b]) {
              fprintf(stderr, "  first difference at byte %zu: ours %02x java %02x\n", b, ours.data[b],
                      fx[i].bytes.data[b]);
              break;
            }
        }
        pm_buf_free(&ours);
      }
      free_indexes(fx, n);
      pm_table_free(t);
    }
}

/* remain of the filter over the single file of a fixture. */
static int remain_of(pm_table *t, const file_index *fx, const char *where) {
  pm_error err = {0};
  pm_fidx ix;
  CHECK_OK(pm_fidx_open_safe(fx->bytes.data, fx->bytes.len, "test", &ix, &err), &err);
  pm_predicate *p = parse(t, where);
  pm_fidx_col cols[64];
  for (size_t i = 0; i < t->schema->n_fields; i++) {
    cols[i].name = t->schema->fields[i].name;
    cols[i].type = t->schema->fields[i].type;
  }
  int remain = -1;
  if (p) CHECK_OK(pm_fidx_test(&ix, p, cols, t->schema->n_fields, fx->rows, &remain, &err), &err);
  pm_pred_free(p);
  pm_fidx_clear(&ix);
  return remain;
}

typedef struct probe {
  const char *fixture, *where;
  int remain;
} probe;

static void test_java_indexes_prune(void) {
  /* rows: see each fixture's README */
  static const probe probes[] = {
      {"append_with_bloomfilter", "f0 = 'Alice'", 1},
      {"append_with_bloomfilter", "f0 = 'Nobody'", 0},
      {"append_with_bloomfilter", "f1 = 300", 1},
      {"append_with_bloomfilter", "f1 = 301", 0},
      {"append_with_bloomfilter", "f1 in (7, 8, 9)", 0},
      {"append_with_bloomfilter", "f1 in (7, 300)", 1},
      {"append_with_bloomfilter", "f3 = 13.1", 1},
      {"append_with_bloomfilter", "f3 = 13.2", 0},
      {"append_with_bloomfilter", "f1 > 1000", 1}, /* bloom filters answer equality only */
      {"append_with_bsi", "f1 = 200", 1},
      {"append_with_bsi", "f1 = 201", 0},
      {"append_with_bsi", "f1 > 500", 0},
      {"append_with_bsi", "f1 >= 500", 1},
      {"append_with_bsi", "f1 < 20", 0},
      {"append_with_bsi", "f2 = -3", 1},
      {"append_with_bsi", "f2 = -4", 0},
      {"append_with_bsi", "f2 < -3", 0},
      {"append_with_bsi", "f2 <= -3", 1},
      {"append_with_bsi", "f1 > 100 and f2 > 1", 0}, /* no common row */
      {"append_with_bsi", "f1 > 100 and f2 = 1", 1},
      {"append_with_bsi", "f1 = 201 or f2 = -4", 0},
      {"append_with_bsi_bitmap_bloomfilter", "f0 = 'Emily'", 1},
      {"append_with_bsi_bitmap_bloomfilter", "f0 = 'Emil'", 0},
      {"append_with_bsi_bitmap_bloomfilter", "f0 = 'Tony' and f1 = 50", 1},
      {"append_with_bsi_bitmap_bloomfilter", "f0 = 'Lucy' and f1 = 50", 0}, /* bitmaps intersect: no common row */
      {"append_with_bsi_bitmap_bloomfilter", "f4 = TIMESTAMP '2025-04-25 01:00:02.000123'", 1},
      {"append_with_bsi_bitmap_bloomfilter", "f4 = TIMESTAMP '2025-04-25 01:00:02.000124'", 0},
      {"append_with_bitmap_no_embedding", "f0 = 'Lucy'", 1},
      {"append_with_bitmap_no_embedding", "f0 = 'Lucie'", 0},
      {"append_with_bitmap_no_embedding", "f1 = 20 and f2 is null", 1},
      {"append_with_bitmap_no_embedding", "f1 = 10 and f2 is null", 0},
      {"append_with_bitmap_no_embedding", "f0 = 'Bob' and f1 = 20", 0},
      {"append_with_bitmap_no_embedding", "f0 <> 'Bob'", 1},
      {"append_with_bitmap_v1", "f0 = 'Lucy'", 1},
      {"append_with_bitmap_v1", "f0 = 'Lucie'", 0},
      {"append_with_bitmap_v1", "f1 = 10 and f2 is null", 0},
      {"append_with_bitmap_v1", "f1 = 20 and f2 is null", 1},
  };
  const char *fmts[] = {"parquet", "orc"};
  for (size_t fm = 0; fm < 2; fm++)
    for (size_t k = 0; k < sizeof probes / sizeof *probes; k++) {
      pm_table *t = open_fixture(fmts[fm], probes[k].fixture);
      if (!t) continue;
      file_index fx[8];
      size_t n = load_indexes(t, fx, 8);
      if (n == 1) {
        int r = remain_of(t, &fx[0], probes[k].where);
        CHECK_MSG(r == probes[k].remain, "%s/%s: %s: remain %d, expected %d", fmts[fm], probes[k].fixture,
                  probes[k].where, r, probes[k].remain);
      }
      free_indexes(fx, n);
      pm_table_free(t);
    }
}

static void test_damaged(void) {
  pm_table *t = open_fixture("parquet", "append_with_bsi");
  if (!t) return;
  file_index fx[2];
  size_t n = load_indexes(t, fx, 2);
  CHECK_EQ_INT(n, 1);
  if (n == 1) {
    pm_fidx_col cols[64];
    for (size_t i = 0; i < t->schema->n_fields; i++) {
      cols[i].name = t->schema->fields[i].name;
      cols[i].type = t->schema->fields[i].type;
    }
    const char *wheres[] = {"f1 = 201", "f1 > 5", "f4 is null", "f2 < -1"};
    pm_predicate *ps[4];
    for (int w = 0; w < 4; w++) ps[w] = parse(t, wheres[w]);
    uint8_t *copy = malloc(fx[0].bytes.len);
    /* truncations and single-byte damage never crash; the header's damage is an error */
    for (size_t cut = 0; cut < fx[0].bytes.len; cut += 7) {
      pm_error err = {0};
      pm_fidx ix;
      if (pm_fidx_open_safe(fx[0].bytes.data, cut, "cut", &ix, &err) == 0) {
        for (int w = 0; w < 4; w++) {
          int remain;
          (void)pm_fidx_test(&ix, ps[w], cols, t->schema->n_fields, fx[0].rows, &remain, &err);
        }
        pm_fidx_clear(&ix);
      }
    }
    for (size_t at = 0; at < fx[0].bytes.len; at += 3) {
      memcpy(copy, fx[0].bytes.data, fx[0].bytes.len);
      copy[at] ^= 0x5a;
      pm_error err = {0};
      pm_fidx ix;
      if (pm_fidx_open_safe(copy, fx[0].bytes.len, "flip", &ix, &err) == 0) {
        for (int w = 0; w < 4; w++) {
          int remain;
          (void)pm_fidx_test(&ix, ps[w], cols, t->schema->n_fields, fx[0].rows, &remain, &err);
        }
        pm_fidx_clear(&ix);
      } else {
        CHECK(err.code == PAIMON_ERR_CORRUPT || err.code == PAIMON_ERR_UNSUPPORTED);
      }
    }
    pm_error err = {0};
    pm_fidx ix;
    CHECK(pm_fidx_open_safe(fx[0].bytes.data, 10, "short.index", &ix, &err) == PAIMON_ERR_CORRUPT);
    CHECK_MSG(strstr(err.message, "short.index") != NULL, "%s", err.message);
    free(copy);
    for (int w = 0; w < 4; w++) pm_pred_free(ps[w]);
  }
  free_indexes(fx, n);
  pm_table_free(t);
}

/* Plans and reads t with `where`: rows read (-1 = the read failed, err set); explain counters out. */
static int64_t plan_read(pm_table *t, const char *where, pm_scan_explain *ex, pm_error *err) {
  pm_predicate *p = parse(t, where);
  pm_plan *plan = NULL;
  int64_t rows = -1;
  if (pm_scan_plan(t, p, -1, &plan, err) == 0) {
    *ex = plan->explain;
    pm_read_options o;
    pm_read_options_init(&o);
    o.filter = p;
    struct ArrowArrayStream st = {0};
    if (pm_read_splits(t, plan->splits, plan->n_splits, &o, &st, err) == 0) {
      rows = 0;
      for (;;) {
        struct ArrowArray a = {0};
        if (st.get_next(&st, &a)) {
          const char *m = st.get_last_error(&st);
          snprintf(err->message, sizeof err->message, "%s", m ? m : "?");
          err->code = PAIMON_ERR_CORRUPT;
          rows = -1;
          break;
        }
        if (!a.release) break;
        rows += a.length;
        a.release(&a);
      }
      st.release(&st);
    }
    pm_plan_free(plan);
  }
  pm_pred_free(p);
  return rows;
}

/* Embedded indexes prune at planning (explain counts them), equally with the index off. */
static void test_scan_prunes_embedded(void) {
  static const struct {
    const char *where;
    int64_t rows;
    size_t pruned;
  } cases[] = {
      {"f0 = 'Lucy'", 1, 0},          {"f0 = 'Nobody'", 0, 1},       {"f1 = 20 and f0 = 'Bob'", 0, 1},
      {"f0 in ('Emily', 'X')", 1, 0}, {"f2 is null and f1 = 10", 0, 1}, {"f1 <> 10", 3, 0},
  };
  char wh[512];
  snprintf(wh, sizeof wh, "%s/parquet", PM_SHARED("fixtures/warehouse"));
  for (int on = 0; on < 2; on++) {
    pm_table *t = open_in(wh, "append_with_bitmap", on ? NULL : "file-index.read.enabled", on ? NULL : "false");
    if (!t) return;
    for (size_t k = 0; k < sizeof cases / sizeof *cases; k++) {
      pm_error err = {0};
      pm_scan_explain ex;
      memset(&ex, 0, sizeof ex);
      int64_t rows = plan_read(t, cases[k].where, &ex, &err);
      CHECK_MSG(rows == cases[k].rows, "%s (index %s): %lld rows, expected %lld (%s)", cases[k].where, on ? "on" : "off",
                (long long)rows, (long long)cases[k].rows, err.message);
      CHECK_MSG(ex.files_pruned_file_index == (on ? cases[k].pruned : 0), "%s (index %s): %zu files pruned by index",
                cases[k].where, on ? "on" : "off", ex.files_pruned_file_index);
    }
    pm_buf txt = {0};
    pm_error err = {0};
    pm_scan_explain ex;
    plan_read(t, "f0 = 'Nobody'", &ex, &err);
    CHECK_OK(pm_scan_explain_format(&ex, &txt, &err), &err);
    pm_buf_append(&txt, "", 1);
    CHECK_MSG(strstr((char *)txt.data, on ? "1 pruned by file index" : "0 pruned by file index") != NULL, "%s",
              (char *)txt.data);
    pm_buf_free(&txt);
    pm_table_free(t);
  }
}

/* Stand-alone <file>.index files prune at read time: on a copy whose data file is damaged, a
 * filter the index rules out reads nothing without touching the file; with the index off, or a
 * filter the index lets through, the damage is reached. */
static void test_read_skips_by_index_file(void) {
  char root[256], wh[300], path[1024];
  snprintf(root, sizeof root, "/tmp/pm_fidx_%d", (int)getpid());
  snprintf(wh, sizeof wh, "%s/w", root);
  const char *names[] = {"append_with_bloomfilter", "append_with_bsi", "append_with_bitmap_no_embedding"};
  const char *miss[] = {"f0 = 'Nobody'", "f1 = 250", "f0 = 'Lucie'"}; /* inside the min/max stats */
  const char *hit[] = {"f0 = 'Alice'", "f1 > 400", "f0 = 'Lucy'"};
  for (int k = 0; k < 3; k++) {
    char rel[256], dst[600];
    snprintf(rel, sizeof rel, "parquet/%s.db", names[k]);
    snprintf(dst, sizeof dst, "%s/%s.db", wh, names[k]);
    CHECK_EQ_INT(fc_copy_fixture(rel, dst), 0);
    /* damage every data file (the copies under external-path too) */
    snprintf(path, sizeof path, "for f in $(find '%s' -name 'data-*.parquet'); do printf 'garbage' > \"$f\"; done",
             dst);
    CHECK_EQ_INT(system(path), 0);
    pm_table *t = open_in(wh, names[k], NULL, NULL);
    if (!t) continue;
    pm_error err = {0};
    pm_scan_explain ex;
    int64_t r = plan_read(t, miss[k], &ex, &err);
    CHECK_MSG(r == 0, "%s %s: %lld rows (%s)", names[k], miss[k], (long long)r, err.message);
    r = plan_read(t, hit[k], &ex, &err);
    CHECK_MSG(r == -1, "%s %s: read a damaged file: %lld rows", names[k], hit[k], (long long)r);
    pm_table_free(t);
    t = open_in(wh, names[k], "file-index.read.enabled", "false");
    if (!t) continue;
    r = plan_read(t, miss[k], &ex, &err);
    CHECK_MSG(r == -1, "%s %s (index off): %lld rows", names[k], miss[k], (long long)r);
    pm_table_free(t);
  }
  snprintf(path, sizeof path, "rm -rf '%s'", root);
  CHECK_EQ_INT(system(path), 0);
}

int main(void) {
  RUN_TEST(test_bytes_equal_java);
  if (!getenv("FIDX_BYTES_ONLY")) {
    RUN_TEST(test_java_indexes_prune);
    RUN_TEST(test_damaged);
    RUN_TEST(test_scan_prunes_embedded);
    RUN_TEST(test_read_skips_by_index_file);
  }
  TEST_MAIN_END();
}
