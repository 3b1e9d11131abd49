/* Writer round trips (every fixture file through every codec, synthetic
 * nested data with nulls across row groups and stripes), predicate pruning,
 * row ranges, and corrupt input handling. */
#include <dirent.h>
#include <sys/stat.h>
#include <unistd.h>

#include "arrow/arrow.h"
#include "print/print.h"
#include "arrow/validate.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_writer.h"
#include "harness.h"

static char tmpdir[256];

static void walk(const char *dir, char ***out, size_t *n) {
  DIR *d = opendir(dir);
  if (!d) return;
  struct dirent *e;
  while ((e = readdir(d))) {
    if (e->d_name[0] == '.') continue;
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, e->d_name);
    struct stat st;
    if (stat(path, &st)) continue;
    if (S_ISDIR(st.st_mode)) {
      walk(path, out, n);
    } else if (strlen(e->d_name) > 4 && !strcmp(e->d_name + strlen(e->d_name) - 4, ".orc") &&
               !strstr(path, "/manifest/")) {
      *out = realloc(*out, (*n + 1) * sizeof **out);
      (*out)[(*n)++] = strdup(path);
    }
  }
  closedir(d);
}

/* Reads a file into JSON text (all columns); returns 0 or an error code. */
static int dump(const char *path, const pm_orc_read_options *o, pm_buf *out, pm_error *err) {
  pm_file *f = NULL;
  pm_orc_reader *r = NULL;
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  int rc = pm_file_open(path, &f, err);
  pm_orc_read_options def;
  pm_orc_read_options_init(&def);
  if (!rc) rc = pm_orc_reader_open(f, o ? o : &def, &r, err);
  if (!rc) rc = pm_orc_reader_schema(r, &s, err);
  while (!rc) {
    struct ArrowArray a;
    if ((rc = pm_orc_reader_next(r, &a, err)) || !a.release) break;
    rc = pm_arrow_validate(&s, &a, err);
    if (!rc) rc = pm_print_batch_to_buf(&s, &a, NULL, out, err);
    a.release(&a);
  }
  pm_schema_release(&s);
  pm_orc_reader_close(r);
  pm_file_close(f);
  return rc;
}

static int convert(const char *in, const char *outp, const pm_orc_writer_options *wo, pm_error *err) {
  pm_file *f = NULL;
  pm_orc_reader *r = NULL;
  pm_orc_writer *w = NULL;
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  int rc = pm_file_open(in, &f, err);
  if (!rc) rc = pm_orc_reader_open(f, NULL, &r, err);
  if (!rc) rc = pm_orc_reader_schema(r, &s, err);
  if (!rc) rc = pm_orc_writer_open(outp, &s, wo, &w, err);
  while (!rc) {
    struct ArrowArray a;
    if ((rc = pm_orc_reader_next(r, &a, err)) || !a.release) break;
    rc = pm_orc_writer_write(w, &a, err);
    a.release(&a);
  }
  if (w) {
    if (rc) pm_orc_writer_abort(w);
    else rc = pm_orc_writer_close(w, err);
  }
  pm_schema_release(&s);
  pm_orc_reader_close(r);
  pm_file_close(f);
  return rc;
}

static void compare_file_stats(const char *a, const char *b) {
  pm_error err;
  pm_file *fa = NULL, *fb = NULL;
  pm_orc_reader *ra = NULL, *rb = NULL;
  if (pm_file_open(a, &fa, &err) || pm_file_open(b, &fb, &err) || pm_orc_reader_open(fa, NULL, &ra, &err) ||
      pm_orc_reader_open(fb, NULL, &rb, &err)) {
    CHECK_MSG(0, "%s", err.message);
    goto done;
  }
  CHECK_EQ_INT(pm_orc_reader_num_columns(ra), pm_orc_reader_num_columns(rb));
  for (size_t c = 1; c < pm_orc_reader_num_columns(ra) && c < pm_orc_reader_num_columns(rb); c++) {
    const pm_orc_column_info *ci = pm_orc_reader_column(ra, c);
    CHECK_EQ_INT(ci->kind, pm_orc_reader_column(rb, c)->kind);
    CHECK_EQ_INT(ci->field_id, pm_orc_reader_column(rb, c)->field_id);
    CHECK_EQ_STR(ci->name, pm_orc_reader_column(rb, c)->name);
    pm_orc_column_stats x, y;
    if (pm_orc_reader_file_stats(ra, c, &x, &err) || pm_orc_reader_file_stats(rb, c, &y, &err)) continue;
    CHECK_MSG(x.num_values == y.num_values, "%s col %zu values %llu vs %llu", a, c, (unsigned long long)x.num_values,
              (unsigned long long)y.num_values);
    CHECK_MSG(x.has_null == y.has_null, "%s col %zu has_null", a, c);
    if (x.has_int) CHECK_MSG(y.has_int && x.min_int == y.min_int && x.max_int == y.max_int, "%s col %zu int min/max", a, c);
    if (x.has_double)
      CHECK_MSG(y.has_double && x.min_double == y.min_double && x.max_double == y.max_double, "%s col %zu double", a, c);
    if (x.has_bytes)
      CHECK_MSG(y.has_bytes && x.min_len == y.min_len && x.max_len == y.max_len &&
                    !memcmp(x.min_bytes, y.min_bytes, x.min_len) && !memcmp(x.max_bytes, y.max_bytes, x.max_len),
                "%s col %zu string min/max", a, c);
    if (x.has_timestamp && ci->kind == PM_ORC_TIMESTAMP_INSTANT)
      CHECK_MSG(y.has_timestamp && x.min_ts_millis == y.min_ts_millis && x.max_ts_millis == y.max_ts_millis &&
                    x.min_ts_nanos == y.min_ts_nanos && x.max_ts_nanos == y.max_ts_nanos,
                "%s col %zu timestamp stats %lld/%d vs %lld/%d", a, c, (long long)x.min_ts_millis, x.min_ts_nanos,
                (long long)y.min_ts_millis, y.min_ts_nanos);
  }
done:
  pm_orc_reader_close(ra);
  pm_orc_reader_close(rb);
  pm_file_close(fa);
  pm_file_close(fb);
}

static void test_fixture_roundtrip(void) {
  char **files = NULL;
  size_t n = 0;
  walk(PM_SHARED("fixtures/warehouse"), &files, &n);
  CHECK(n > 100);
  static const pm_codec codecs[] = {PM_CODEC_ZSTD, PM_CODEC_DEFLATE, PM_CODEC_SNAPPY, PM_CODEC_LZ4_RAW, PM_CODEC_NONE};
  char out[512];
  snprintf(out, sizeof out, "%s/rt.orc", tmpdir);
  /* One file per distinct type tree keeps this fast (each write fsyncs). */
  char **seen = calloc(n + 1, sizeof *seen);
  size_t n_seen = 0, tested = 0;
  for (size_t i = 0; i < n; i++) {
    pm_error err;
    char sig[2048] = "";
    pm_file *sf = NULL;
    pm_orc_reader *sr = NULL;
    if (pm_file_open(files[i], &sf, &err) == 0 && pm_orc_reader_open(sf, NULL, &sr, &err) == 0) {
      for (size_t c = 0; c < pm_orc_reader_num_columns(sr) && strlen(sig) < sizeof sig - 8; c++)
        snprintf(sig + strlen(sig), sizeof sig - strlen(sig), "%d/%u,", (int)pm_orc_reader_column(sr, c)->kind,
                 pm_orc_reader_column(sr, c)->n_children);
    }
    pm_orc_reader_close(sr);
    pm_file_close(sf);
    int dup = 0;
    for (size_t j = 0; j < n_seen && !dup; j++) dup = !strcmp(seen[j], sig);
    if (dup) {
      free(files[i]);
      continue;
    }
    seen[n_seen++] = strdup(sig);
    tested++;
    pm_buf a, b;
    pm_buf_init(&a);
    pm_buf_init(&b);
    pm_orc_writer_options wo;
    pm_orc_writer_options_init(&wo);
    wo.codec = codecs[tested % 5];
    if (tested % 3 == 1) {
      wo.row_index_stride = 2; /* many groups and stripes */
      wo.stripe_size = 64;
    }
    CHECK_OK(dump(files[i], NULL, &a, &err), &err);
    int rc = convert(files[i], out, &wo, &err);
    CHECK_MSG(rc == 0, "%s: %s", files[i], err.message);
    if (rc == 0) {
      CHECK_OK(dump(out, NULL, &b, &err), &err);
      CHECK_MSG(a.len == b.len && memcmp(a.data, b.data, a.len) == 0, "%s: values differ after %s round trip", files[i],
                pm_codec_name(wo.codec));
      if (wo.row_index_stride == 0) compare_file_stats(files[i], out);
    }
    pm_buf_free(&a);
    pm_buf_free(&b);
    free(files[i]);
  }
  CHECK_MSG(tested >= 15, "only %zu distinct fixture schemas", tested);
  for (size_t j = 0; j < n_seen; j++) free(seen[j]);
  free(seen);
  free(files);
}

/* ---- synthetic data ---- */

static void *zalloc(size_t n) {
  void *p = pm_aligned_alloc(n);
  memset(p, 0, n);
  return p;
}

enum { ROWS = 25003 };

/* Schema: id LONG, name STRING (nulls), s STRUCT<x INT (nulls), tags LIST<STRING>> (nulls),
 *         m MAP<INT, DOUBLE>, flag BOOLEAN, d DECIMAL(20,3), ts TIMESTAMP(us, local), tz TIMESTAMP(ns, UTC),
 *         bin BINARY, day DATE, b BYTE, sh SHORT, fl FLOAT */
static void make_schema(struct ArrowSchema *s) {
  pm_error err;
  pm_schema_init(s, "+s", "", 0, 13, &err);
  const char *names[14] = {"id", "name", "s", "m", "flag", "d", "ts", "tz", "bin", "day", "b", "sh", "fl", NULL};
  const char *fmts[14] = {"l", "u", "+s", "+m", "b", "d:20,3", "tsu:", "tsn:UTC", "z", "tdD", "c", "s", "f", NULL};
  for (int i = 0; i < 13; i++) {
    int64_t nch = !strcmp(fmts[i], "+s") ? 2 : (!strcmp(fmts[i], "+m") ? 1 : 0);
    pm_schema_init(s->children[i], fmts[i], names[i], ARROW_FLAG_NULLABLE, nch, &err);
    char id[8];
    snprintf(id, sizeof id, "%d", i);
    const char *k = "PARQUET:field_id", *v = id;
    pm_schema_set_metadata(s->children[i], 1, &k, &v, &err);
  }
  struct ArrowSchema *st = s->children[2];
  pm_schema_init(st->children[0], "i", "x", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(st->children[1], "+l", "tags", ARROW_FLAG_NULLABLE, 1, &err);
  pm_schema_init(st->children[1]->children[0], "u", "element", ARROW_FLAG_NULLABLE, 0, &err);
  struct ArrowSchema *m = s->children[3];
  pm_schema_init(m->children[0], "+s", "entries", 0, 2, &err);
  pm_schema_init(m->children[0]->children[0], "i", "key", 0, 0, &err);
  pm_schema_init(m->children[0]->children[1], "g", "value", ARROW_FLAG_NULLABLE, 0, &err);
}

static void set_valid(struct ArrowArray *a, int64_t n, int (*pred)(int64_t)) {
  uint8_t *v = zalloc((size_t)(n + 8) / 8);
  int64_t nulls = 0;
  for (int64_t i = 0; i < n; i++) {
    if (pred(i)) v[i >> 3] |= (uint8_t)(1 << (i & 7));
    else nulls++;
  }
  pm_array_set_buffer(a, 0, v);
  a->null_count = nulls;
}

static int every7(int64_t i) { return i % 7 != 3; }
static int every5(int64_t i) { return i % 5 != 0; }
static int every11(int64_t i) { return i % 11 != 4; }
static int allv(int64_t i) {
  (void)i;
  return 1;
}

static void strings(struct ArrowArray *a, int64_t n, const char *fmt, int64_t mul) {
  pm_error err;
  pm_array_init(a, n, 3, 0, &err);
  int32_t *off = zalloc((size_t)(n + 1) * 4);
  char *data = zalloc((size_t)n * 24 + 1);
  int32_t pos = 0;
  for (int64_t i = 0; i < n; i++) {
    off[i] = pos;
    pos += sprintf(data + pos, fmt, (long long)(i * mul));
  }
  off[n] = pos;
  pm_array_set_buffer(a, 1, off);
  pm_array_set_buffer(a, 2, data);
}

static void make_batch(struct ArrowArray *b, int64_t n) {
  pm_error err;
  pm_array_init(b, n, 1, 13, &err);
  /* id */
  pm_array_init(b->children[0], n, 2, 0, &err);
  int64_t *id = zalloc((size_t)n * 8);
  for (int64_t i = 0; i < n; i++) id[i] = i * 1000003 - 7;
  pm_array_set_buffer(b->children[0], 1, id);
  /* name */
  strings(b->children[1], n, "name-%lld", 1);
  set_valid(b->children[1], n, every7);
  /* struct s */
  struct ArrowArray *s = b->children[2];
  pm_array_init(s, n, 1, 2, &err);
  set_valid(s, n, every5);
  pm_array_init(s->children[0], n, 2, 0, &err);
  int32_t *x = zalloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) x[i] = (int32_t)(i % 1000) - 500;
  pm_array_set_buffer(s->children[0], 1, x);
  set_valid(s->children[0], n, every11);
  struct ArrowArray *tags = s->children[1];
  pm_array_init(tags, n, 2, 1, &err);
  int32_t *toff = zalloc((size_t)(n + 1) * 4);
  int32_t tp = 0;
  for (int64_t i = 0; i < n; i++) {
    toff[i] = tp;
    tp += (int32_t)(i % 4);
  }
  toff[n] = tp;
  pm_array_set_buffer(tags, 1, toff);
  set_valid(tags, n, every7);
  strings(tags->children[0], tp, "t%lld", 3);
  /* map */
  struct ArrowArray *m = b->children[3];
  pm_array_init(m, n, 2, 1, &err);
  int32_t *moff = zalloc((size_t)(n + 1) * 4);
  int32_t mp = 0;
  for (int64_t i = 0; i < n; i++) {
    moff[i] = mp;
    mp += (int32_t)(i % 3);
  }
  moff[n] = mp;
  pm_array_set_buffer(m, 1, moff);
  pm_array_init(m->children[0], mp, 1, 2, &err);
  pm_array_init(m->children[0]->children[0], mp, 2, 0, &err);
  pm_array_init(m->children[0]->children[1], mp, 2, 0, &err);
  int32_t *mk = zalloc((size_t)mp * 4 + 4);
  double *mv = zalloc((size_t)mp * 8 + 8);
  for (int32_t i = 0; i < mp; i++) {
    mk[i] = i;
    mv[i] = i * 0.5;
  }
  pm_array_set_buffer(m->children[0]->children[0], 1, mk);
  pm_array_set_buffer(m->children[0]->children[1], 1, mv);
  set_valid(m->children[0]->children[1], mp, every5);
  /* flag */
  pm_array_init(b->children[4], n, 2, 0, &err);
  uint8_t *fl = zalloc((size_t)(n + 8) / 8);
  for (int64_t i = 0; i < n; i++)
    if (i % 3 == 0) fl[i >> 3] |= (uint8_t)(1 << (i & 7));
  pm_array_set_buffer(b->children[4], 1, fl);
  set_valid(b->children[4], n, every11);
  /* decimal(20,3) */
  pm_array_init(b->children[5], n, 2, 0, &err);
  __int128 *dv = zalloc((size_t)n * 16);
  /* unscaled magnitudes from a few bits to 20 digits: varints of 1 to 10 bytes */
  for (int64_t i = 0; i < n; i++) {
    if (i % 4 == 1)
      dv[i] = (__int128)((i * 7919) % 9000 + 1000) * 1000000000000000LL + i; /* 1e18..1e19: 9-10 bytes */
    else if (i % 4 == 2)
      dv[i] = -((__int128)((i * 7919) % 90000 + 10000) * 1000000000000000LL + i); /* -1e19..-1e20: 10 bytes */
    else
      dv[i] = ((__int128)(i - 12000) * 1000000007) * 1000 + (i % 1000);
  }
  pm_array_set_buffer(b->children[5], 1, dv);
  set_valid(b->children[5], n, every7);
  /* timestamps: before and after 1970, with sub-millisecond parts */
  pm_array_init(b->children[6], n, 2, 0, &err);
  pm_array_init(b->children[7], n, 2, 0, &err);
  int64_t *tu = zalloc((size_t)n * 8), *tn = zalloc((size_t)n * 8);
  for (int64_t i = 0; i < n; i++) {
    tu[i] = (i - 12500) * 3600001001LL + (i % 7) * 1000;
    tn[i] = (i - 12500) * 86400000000123LL + i;
  }
  pm_array_set_buffer(b->children[6], 1, tu);
  pm_array_set_buffer(b->children[7], 1, tn);
  set_valid(b->children[7], n, every5);
  /* binary */
  strings(b->children[8], n, "%llx", 977);
  set_valid(b->children[8], n, allv);
  /* date, byte, short, float */
  pm_array_init(b->children[9], n, 2, 0, &err);
  int32_t *day = zalloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) day[i] = (int32_t)(i - 10000);
  pm_array_set_buffer(b->children[9], 1, day);
  pm_array_init(b->children[10], n, 2, 0, &err);
  int8_t *by = zalloc((size_t)n);
  for (int64_t i = 0; i < n; i++) by[i] = (int8_t)(i * 7);
  pm_array_set_buffer(b->children[10], 1, by);
  pm_array_init(b->children[11], n, 2, 0, &err);
  int16_t *sh = zalloc((size_t)n * 2);
  for (int64_t i = 0; i < n; i++) sh[i] = (int16_t)(i * 13);
  pm_array_set_buffer(b->children[11], 1, sh);
  pm_array_init(b->children[12], n, 2, 0, &err);
  float *f = zalloc((size_t)n * 4);
  for (int64_t i = 0; i < n; i++) f[i] = (float)i / 8.0f;
  pm_array_set_buffer(b->children[12], 1, f);
  set_valid(b->children[12], n, every11);
}

static void test_synthetic(void) {
  pm_error err;
  struct ArrowSchema s;
  struct ArrowArray b;
  make_schema(&s);
  make_batch(&b, ROWS);
  CHECK_OK(pm_arrow_validate(&s, &b, &err), &err);
  pm_buf expect;
  pm_buf_init(&expect);
  CHECK_OK(pm_print_batch_to_buf(&s, &b, NULL, &expect, &err), &err);
  static const pm_codec codecs[] = {PM_CODEC_ZSTD, PM_CODEC_DEFLATE, PM_CODEC_SNAPPY, PM_CODEC_LZ4_RAW, PM_CODEC_NONE};
  char path[512];
  snprintf(path, sizeof path, "%s/syn.orc", tmpdir);
  for (int ci = 0; ci < 5; ci++) {
    pm_orc_writer_options wo;
    pm_orc_writer_options_init(&wo);
    wo.codec = codecs[ci];
    if (ci == 1) wo.stripe_size = 100000; /* several stripes */
    if (ci == 2) wo.compression_block_size = 1000;
    pm_orc_writer *w = NULL;
    CHECK_OK(pm_orc_writer_open(path, &s, &wo, &w, &err), &err);
    if (!w) continue;
    /* write in uneven slices to cross row groups mid-batch */
    int64_t pos = 0, step = 7777;
    while (pos < ROWS) {
      int64_t k = ROWS - pos < step ? ROWS - pos : step;
      struct ArrowArray slice = b;
      slice.offset = pos;
      slice.length = k;
      /* children of a struct are sliced by the parent offset */
      CHECK_OK(pm_orc_writer_write(w, &slice, &err), &err);
      pos += k;
    }
    CHECK_EQ_INT(pm_orc_writer_num_rows(w), ROWS);
    CHECK_OK(pm_orc_writer_close(w, &err), &err);
    pm_buf got;
    pm_buf_init(&got);
    CHECK_OK(dump(path, NULL, &got, &err), &err);
    pm_orc_read_options o;
    pm_orc_read_options_init(&o);
    o.default_ts_unit = 'u';
    pm_orc_ts_unit tsu = {"tz", -1, 'n'};
    o.ts_units = &tsu;
    o.n_ts_units = 1;
    got.len = 0;
    CHECK_OK(dump(path, &o, &got, &err), &err);
    CHECK_MSG(got.len == expect.len && !memcmp(got.data, expect.data, got.len), "synthetic round trip with %s differs",
              pm_codec_name(wo.codec));
    if (ci == 1) {
      pm_file *f;
      pm_orc_reader *r;
      CHECK_OK(pm_file_open(path, &f, &err), &err);
      CHECK_OK(pm_orc_reader_open(f, NULL, &r, &err), &err);
      CHECK(pm_orc_reader_num_stripes(r) > 1);
      CHECK_EQ_INT(pm_orc_reader_num_rows(r), ROWS);
      CHECK_EQ_INT(pm_orc_reader_find_field_id(r, 5), pm_orc_reader_find_column(r, "d"));
      pm_orc_column_stats st;
      CHECK_OK(pm_orc_reader_file_stats(r, 1, &st, &err), &err);
      CHECK(st.has_int && st.min_int == -7 && st.max_int == (ROWS - 1) * 1000003LL - 7 && st.null_count == 0);
      int32_t name = pm_orc_reader_find_column(r, "name");
      CHECK_OK(pm_orc_reader_file_stats(r, (size_t)name, &st, &err), &err);
      CHECK(st.has_bytes && st.min_len == 6 && !memcmp(st.min_bytes, "name-0", 6));
      CHECK_EQ_INT(st.null_count, (ROWS + 3) / 7);
      pm_orc_reader_close(r);
      pm_file_close(f);
    }
    pm_buf_free(&got);
  }
  /* Predicates: id in one row group -> other stripes/groups pruned, rows of that group returned. */
  pm_fmt_predicate p;
  pm_fmt_literal lit = {PM_FMT_LIT_INT64, 15000 * 1000003LL - 7, 0, NULL, 0};
  memset(&p, 0, sizeof p);
  p.column = "id";
  p.op = PM_FMT_OP_EQ;
  p.values = &lit;
  p.n_values = 1;
  pm_orc_read_options o;
  pm_orc_read_options_init(&o);
  o.predicates = &p;
  o.n_predicates = 1;
  const char *cols[] = {"id"};
  o.columns = cols;
  o.n_columns = 1;
  pm_file *f;
  pm_orc_reader *r;
  CHECK_OK(pm_file_open(path, &f, &err), &err);
  CHECK_OK(pm_orc_reader_open(f, &o, &r, &err), &err);
  int64_t rows = 0, first = -1;
  for (;;) {
    struct ArrowArray a;
    CHECK_OK(pm_orc_reader_next(r, &a, &err), &err);
    if (!a.release) break;
    if (first < 0) first = ((const int64_t *)a.children[0]->buffers[1])[0];
    rows += a.length;
    a.release(&a);
  }
  CHECK_EQ_INT(rows, 10000);
  CHECK_EQ_INT(first, 10000 * 1000003LL - 7);
  CHECK_EQ_INT(pm_orc_reader_skipped_row_groups(r), 2);
  pm_orc_reader_close(r);
  /* string predicate + IS NULL, and a predicate nothing matches */
  pm_fmt_literal sl = {PM_FMT_LIT_BYTES, 0, 0, (const uint8_t *)"zzz", 3};
  p.column = "name";
  p.op = PM_FMT_OP_GT;
  p.values = &sl;
  CHECK_OK(pm_orc_reader_open(f, &o, &r, &err), &err);
  struct ArrowArray a;
  CHECK_OK(pm_orc_reader_next(r, &a, &err), &err);
  CHECK(a.release == NULL);
  CHECK(pm_orc_reader_skipped_stripes(r) + pm_orc_reader_skipped_row_groups(r) >= 1);
  pm_orc_reader_close(r);
  /* Row ranges + field-id projection + batch size. */
  pm_orc_read_options_init(&o);
  int64_t ranges[] = {5, 8, 9999, 10002, 25000, 25003};
  o.row_ranges = ranges;
  o.n_row_ranges = 3;
  int32_t ids[] = {0, 2};
  o.field_ids = ids;
  o.n_field_ids = 2;
  o.batch_size = 4;
  CHECK_OK(pm_orc_reader_open(f, &o, &r, &err), &err);
  int64_t want[] = {5, 6, 7, 9999, 10000, 10001, 25000, 25001, 25002};
  size_t k = 0;
  for (;;) {
    CHECK_OK(pm_orc_reader_next(r, &a, &err), &err);
    if (!a.release) break;
    CHECK(a.n_children == 2 && a.length <= 4);
    for (int64_t i = 0; i < a.length && k < 9; i++, k++)
      CHECK_EQ_INT(((const int64_t *)a.children[0]->buffers[1])[i], want[k] * 1000003LL - 7);
    a.release(&a);
  }
  CHECK_EQ_INT(k, 9);
  pm_orc_reader_close(r);
  /* Unknown column. */
  pm_orc_read_options_init(&o);
  const char *nope[] = {"nope"};
  o.columns = nope;
  o.n_columns = 1;
  CHECK(pm_orc_reader_open(f, &o, &r, &err) == PAIMON_ERR_NOT_FOUND);
  pm_file_close(f);
  pm_buf_free(&expect);
  b.release(&b);
  s.release(&s);
}

/* Row ranges that jump across row groups (seeking with the row index
 * positions) return exactly the rows of a full read, for every type. */
static void test_seek_row_groups(void) {
  pm_error err;
  struct ArrowSchema s;
  struct ArrowArray b;
  make_schema(&s);
  make_batch(&b, ROWS);
  char path[512];
  snprintf(path, sizeof path, "%s/seek.orc", tmpdir);
  static const pm_codec codecs[] = {PM_CODEC_ZSTD, PM_CODEC_NONE, PM_CODEC_SNAPPY};
  for (int ci = 0; ci < 3; ci++) {
    pm_orc_writer_options wo;
    pm_orc_writer_options_init(&wo);
    wo.codec = codecs[ci];
    wo.row_index_stride = 1000;
    wo.compression_block_size = ci == 2 ? 700 : 0; /* positions inside multi-chunk groups */
    wo.stripe_size = ci == 0 ? 0 : 300000;
    pm_orc_writer *w = NULL;
    CHECK_OK(pm_orc_writer_open(path, &s, &wo, &w, &err), &err);
    if (!w) continue;
    CHECK_OK(pm_orc_writer_write(w, &b, &err), &err);
    CHECK_OK(pm_orc_writer_close(w, &err), &err);
    pm_buf full;
    pm_buf_init(&full);
    CHECK_OK(dump(path, NULL, &full, &err), &err);
    /* line start offsets */
    size_t *line = malloc((ROWS + 1) * sizeof *line);
    size_t nl = 0;
    line[nl++] = 0;
    for (size_t i = 0; i < full.len && nl <= ROWS; i++)
      if (full.data[i] == '\n') line[nl++] = i + 1;
    CHECK_EQ_INT(nl, ROWS + 1);
    int64_t ranges[] = {3, 5, 2500, 2503, 2999, 3001, 7000, 7001, 12345, 12400, 19999, 20000, 24990, 25003};
    size_t nr = sizeof ranges / sizeof ranges[0] / 2;
    pm_buf want;
    pm_buf_init(&want);
    for (size_t i = 0; i < nr && nl == ROWS + 1; i++)
      pm_buf_append(&want, full.data + line[ranges[2 * i]], line[ranges[2 * i + 1]] - line[ranges[2 * i]]);
    pm_orc_read_options o;
    pm_orc_read_options_init(&o);
    o.row_ranges = ranges;
    o.n_row_ranges = nr;
    o.batch_size = 37;
    pm_buf got;
    pm_buf_init(&got);
    CHECK_OK(dump(path, &o, &got, &err), &err);
    CHECK_MSG(got.len == want.len && !memcmp(got.data, want.data, got.len), "row ranges with %s differ from a full read",
              pm_codec_name(codecs[ci]));
    if (ci == 0 && nl == ROWS + 1) { /* deletion-vector shape: every third row dropped */
      size_t nmany = 0;
      int64_t *many = malloc(ROWS * 2 * sizeof *many);
      want.len = 0;
      for (int64_t row = 0; row < ROWS; row += 3) {
        int64_t e = row + 2 < ROWS ? row + 2 : ROWS;
        many[2 * nmany] = row;
        many[2 * nmany + 1] = e;
        nmany++;
        pm_buf_append(&want, full.data + line[row], line[e] - line[row]);
      }
      o.row_ranges = many;
      o.n_row_ranges = nmany;
      o.batch_size = 1000;
      got.len = 0;
      CHECK_OK(dump(path, &o, &got, &err), &err);
      CHECK_MSG(got.len == want.len && !memcmp(got.data, want.data, got.len), "many row ranges differ from a full read");
      free(many);
    }
    free(line);
    pm_buf_free(&full);
    pm_buf_free(&want);
    pm_buf_free(&got);
  }
  b.release(&b);
  s.release(&s);
}

/* CHAR(n) is padded on write and trimmed on read, VARCHAR(n) truncated (code points). */
static void test_char_varchar(void) {
  pm_error err;
  struct ArrowSchema s;
  pm_schema_init(&s, "+s", "", 0, 2, &err);
  pm_schema_init(s.children[0], "u", "c", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s.children[1], "u", "v", ARROW_FLAG_NULLABLE, 0, &err);
  const char *k[2] = {"PARQUET:field_id", "ORC:type"}, *v0[2] = {"1", "char(5)"}, *v1[2] = {"2", "varchar(3)"};
  pm_schema_set_metadata(s.children[0], 2, k, v0, &err);
  pm_schema_set_metadata(s.children[1], 2, k, v1, &err);
  static const char *vals[] = {"ab", "abcdefg", "\xc3\xbc\xe2\x82\xacx y", "", "z  "};
  struct ArrowArray b;
  pm_array_init(&b, 5, 1, 2, &err);
  for (int c = 0; c < 2; c++) {
    pm_array_init(b.children[c], 5, 3, 0, &err);
    int32_t *off = zalloc(6 * 4);
    char *data = zalloc(64);
    int32_t pos = 0;
    for (int i = 0; i < 5; i++) {
      off[i] = pos;
      memcpy(data + pos, vals[i], strlen(vals[i]));
      pos += (int32_t)strlen(vals[i]);
    }
    off[5] = pos;
    pm_array_set_buffer(b.children[c], 1, off);
    pm_array_set_buffer(b.children[c], 2, data);
  }
  char path[512];
  snprintf(path, sizeof path, "%s/char.orc", tmpdir);
  pm_orc_writer *w = NULL;
  CHECK_OK(pm_orc_writer_open(path, &s, NULL, &w, &err), &err);
  if (w) {
    CHECK_OK(pm_orc_writer_write(w, &b, &err), &err);
    CHECK_OK(pm_orc_writer_close(w, &err), &err);
  }
  pm_buf got;
  pm_buf_init(&got);
  CHECK_OK(dump(path, NULL, &got, &err), &err);
  pm_buf_push_u8(&got, 0);
  CHECK_EQ_STR((const char *)got.data,
               "{\"c\":\"ab\",\"v\":\"ab\"}\n{\"c\":\"abcde\",\"v\":\"abc\"}\n"
               "{\"c\":\"\xc3\xbc\xe2\x82\xacx y\",\"v\":\"\xc3\xbc\xe2\x82\xacx\"}\n{\"c\":\"\",\"v\":\"\"}\n"
               "{\"c\":\"z\",\"v\":\"z  \"}\n");
  pm_file *f;
  pm_orc_reader *r;
  CHECK_OK(pm_file_open(path, &f, &err), &err);
  CHECK_OK(pm_orc_reader_open(f, NULL, &r, &err), &err);
  CHECK_EQ_INT(pm_orc_reader_column(r, 1)->kind, PM_ORC_CHAR);
  CHECK_EQ_INT(pm_orc_reader_column(r, 1)->max_length, 5);
  CHECK_EQ_INT(pm_orc_reader_column(r, 2)->kind, PM_ORC_VARCHAR);
  struct ArrowSchema rs;
  CHECK_OK(pm_orc_reader_schema(r, &rs, &err), &err);
  char *t = pm_schema_metadata_get(rs.children[0], "ORC:type");
  CHECK_EQ_STR(t, "char(5)");
  free(t);
  rs.release(&rs);
  pm_orc_reader_close(r);
  pm_file_close(f);
  pm_buf_free(&got);
  b.release(&b);
  s.release(&s);
}

/* Dense unions: type ids and offsets written and read back, with skips and seeks. */
static void check_union_values(const struct ArrowArray *u, int64_t first_row, const int8_t *tags, const int32_t *ival,
                               const uint8_t *ivalid, const char *const *sval) {
  const int8_t *ids = (const int8_t *)u->buffers[0];
  const int32_t *off = (const int32_t *)u->buffers[1];
  const struct ArrowArray *ia = u->children[0], *sa = u->children[1];
  for (int64_t i = 0; i < u->length; i++) {
    int64_t row = first_row + i;
    CHECK_EQ_INT(ids[i], tags[row]);
    if (ids[i] == 0) {
      const uint8_t *vb = (const uint8_t *)ia->buffers[0];
      int valid = !vb || ((vb[off[i] >> 3] >> (off[i] & 7)) & 1);
      CHECK_EQ_INT(valid, ivalid[row]);
      if (valid) CHECK_EQ_INT(((const int32_t *)ia->buffers[1])[off[i]], ival[row]);
    } else {
      const int32_t *so = (const int32_t *)sa->buffers[1];
      const char *d = (const char *)sa->buffers[2];
      CHECK(so[off[i] + 1] - so[off[i]] == (int32_t)strlen(sval[row]) &&
            !memcmp(d + so[off[i]], sval[row], strlen(sval[row])));
    }
  }
}

static void test_union(void) {
  pm_error err;
  enum { N = 9 };
  static const int8_t tags[N] = {0, 1, 1, 0, 1, 0, 0, 1, 0};
  static const int32_t ival[N] = {10, 0, 0, -3, 0, 7, 99, 0, 5};
  static const uint8_t ivalid[N] = {1, 0, 0, 0, 0, 1, 1, 0, 1};
  static const char *const sval[N] = {"", "one", "two", "", "three", "", "", "four", ""};
  struct ArrowSchema s;
  pm_schema_init(&s, "+s", "", 0, 1, &err);
  pm_schema_init(s.children[0], "+ud:0,1", "u", 0, 2, &err);
  pm_schema_init(s.children[0]->children[0], "i", "tag0", ARROW_FLAG_NULLABLE, 0, &err);
  pm_schema_init(s.children[0]->children[1], "u", "tag1", ARROW_FLAG_NULLABLE, 0, &err);
  struct ArrowArray b;
  pm_array_init(&b, N, 1, 1, &err);
  struct ArrowArray *u = b.children[0];
  pm_array_init(u, N, 2, 2, &err);
  int8_t *ids = zalloc(N);
  int32_t *off = zalloc(N * 4), *iv = zalloc(N * 4), *so = zalloc((N + 1) * 4);
  char *sd = zalloc(64);
  uint8_t *ivb = zalloc(8);
  int32_t ni = 0, ns = 0, sp = 0;
  int64_t inull = 0;
  for (int i = 0; i < N; i++) {
    ids[i] = tags[i];
    if (tags[i] == 0) {
      off[i] = ni;
      iv[ni] = ival[i];
      if (ivalid[i]) ivb[ni >> 3] |= (uint8_t)(1 << (ni & 7));
      else inull++;
      ni++;
    } else {
      off[i] = ns;
      so[ns] = sp;
      memcpy(sd + sp, sval[i], strlen(sval[i]));
      sp += (int32_t)strlen(sval[i]);
      so[++ns] = sp;
    }
  }
  pm_array_set_buffer(u, 0, ids);
  pm_array_set_buffer(u, 1, off);
  pm_array_init(u->children[0], ni, 2, 0, &err);
  pm_array_set_buffer(u->children[0], 0, ivb);
  pm_array_set_buffer(u->children[0], 1, iv);
  u->children[0]->null_count = inull;
  pm_array_init(u->children[1], ns, 3, 0, &err);
  pm_array_set_buffer(u->children[1], 1, so);
  pm_array_set_buffer(u->children[1], 2, sd);
  char path[512];
  snprintf(path, sizeof path, "%s/union.orc", tmpdir);
  pm_orc_writer_options wo;
  pm_orc_writer_options_init(&wo);
  wo.row_index_stride = 2;
  pm_orc_writer *w = NULL;
  CHECK_OK(pm_orc_writer_open(path, &s, &wo, &w, &err), &err);
  if (w) {
    CHECK_OK(pm_orc_writer_write(w, &b, &err), &err);
    CHECK_OK(pm_orc_writer_close(w, &err), &err);
  }
  for (int mode = 0; mode < 2; mode++) {
    pm_file *f;
    pm_orc_reader *r;
    pm_orc_read_options o;
    pm_orc_read_options_init(&o);
    int64_t ranges[] = {1, 2, 4, 6, 8, 9};
    if (mode) {
      o.row_ranges = ranges;
      o.n_row_ranges = 3;
      o.batch_size = 1;
    }
    CHECK_OK(pm_file_open(path, &f, &err), &err);
    CHECK_OK(pm_orc_reader_open(f, &o, &r, &err), &err);
    struct ArrowSchema rs;
    CHECK_OK(pm_orc_reader_schema(r, &rs, &err), &err);
    CHECK_EQ_STR(rs.children[0]->format, "+ud:0,1");
    rs.release(&rs);
    CHECK_EQ_INT(pm_orc_reader_column(r, 1)->kind, PM_ORC_UNION);
    int64_t seen = 0;
    for (;;) {
      struct ArrowArray a;
      CHECK_OK(pm_orc_reader_next(r, &a, &err), &err);
      if (!a.release) break;
      int64_t first = mode ? (seen == 0 ? 1 : seen == 1 ? 4 : seen == 2 ? 5 : 8) : seen;
      check_union_values(a.children[0], first, tags, ival, ivalid, sval);
      seen += a.length;
      a.release(&a);
    }
    CHECK_EQ_INT(seen, mode ? 4 : N);
    pm_orc_reader_close(r);
    pm_file_close(f);
  }
  b.release(&b);
  s.release(&s);
}

/* A file without rows is valid: schema and statistics, no batches; abort leaves nothing. */
static void test_empty_and_abort(void) {
  pm_error err;
  struct ArrowSchema s;
  make_schema(&s);
  char path[512], path2[512];
  snprintf(path, sizeof path, "%s/empty.orc", tmpdir);
  snprintf(path2, sizeof path2, "%s/aborted.orc", tmpdir);
  pm_orc_writer *w = NULL;
  CHECK_OK(pm_orc_writer_open(path, &s, NULL, &w, &err), &err);
  if (w) CHECK_OK(pm_orc_writer_close(w, &err), &err);
  pm_file *f;
  pm_orc_reader *r;
  CHECK_OK(pm_file_open(path, &f, &err), &err);
  CHECK_OK(pm_orc_reader_open(f, NULL, &r, &err), &err);
  CHECK_EQ_INT(pm_orc_reader_num_rows(r), 0);
  CHECK_EQ_INT(pm_orc_reader_num_stripes(r), 0);
  CHECK_EQ_INT(pm_orc_reader_num_columns(r), 19);
  struct ArrowArray a;
  CHECK_OK(pm_orc_reader_next(r, &a, &err), &err);
  CHECK(a.release == NULL);
  pm_orc_column_stats st;
  CHECK_OK(pm_orc_reader_file_stats(r, 1, &st, &err), &err);
  CHECK_EQ_INT(st.num_values, 0);
  pm_orc_reader_close(r);
  pm_file_close(f);
  CHECK_OK(pm_orc_writer_open(path2, &s, NULL, &w, &err), &err);
  pm_orc_writer_abort(w);
  CHECK(access(path2, F_OK) != 0);
  /* a batch that does not match the schema is refused (nothing written, the writer stays usable) */
  struct ArrowArray b;
  pm_array_init(&b, 1, 1, 2, &err);
  pm_array_init(b.children[0], 1, 2, 0, &err);
  pm_array_init(b.children[1], 1, 2, 0, &err);
  CHECK_OK(pm_orc_writer_open(path2, &s, NULL, &w, &err), &err);
  CHECK(pm_orc_writer_write(w, &b, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  pm_orc_writer_abort(w);
  b.release(&b);
  /* a malformed batch found while appending poisons the writer: close fails, no file appears */
  struct ArrowArray full;
  make_batch(&full, 10);
  full.children[0]->length = 3; /* column shorter than the batch */
  CHECK_OK(pm_orc_writer_open(path2, &s, NULL, &w, &err), &err);
  CHECK(pm_orc_writer_write(w, &full, &err) == PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(pm_orc_writer_close(w, &err) != 0);
  CHECK(access(path2, F_OK) != 0);
  full.release(&full);
  s.release(&s);
}

/* Every truncation and many byte flips of a small file: errors, never crashes. */
static void test_corrupt_input(void) {
  pm_error err;
  pm_buf file;
  pm_buf_init(&file);
  char path[512];
  snprintf(path, sizeof path, "%s/syn.orc", tmpdir);
  const char *src = PM_SHARED("fixtures/warehouse/orc/append_complex_build_in_fieldid.db/append_complex_build_in_fieldid/"
                              "bucket-0/data-6dac9052-36d8-4950-8f74-b2bbc082e489-0.orc");
  CHECK_OK(pm_read_file(src, &file, 0, &err), &err);
  size_t errors = 0;
  for (size_t len = 0; len < file.len; len++) {
    pm_file *f;
    pm_orc_reader *r = NULL;
    CHECK_OK(pm_file_from_memory(file.data, len, "truncated.orc", &f, &err), &err);
    int rc = pm_orc_reader_open(f, NULL, &r, &err);
    while (rc == 0) {
      struct ArrowArray a;
      rc = pm_orc_reader_next(r, &a, &err);
      if (rc || !a.release) break;
      a.release(&a);
    }
    if (rc) {
      errors++;
      CHECK_MSG(strstr(err.message, "truncated.orc") != NULL, "message without file name: %s", err.message);
    }
    pm_orc_reader_close(r);
    pm_file_close(f);
  }
  CHECK(errors >= file.len - 1);
  uint8_t *copy = malloc(file.len);
  uint64_t seed = 12345;
  for (int iter = 0; iter < 3000; iter++) {
    memcpy(copy, file.data, file.len);
    for (int k = 0; k < 1 + iter % 4; k++) {
      seed = seed * 6364136223846793005ULL + 1442695040888963407ULL;
      copy[(seed >> 33) % file.len] ^= (uint8_t)(1u << ((seed >> 20) & 7));
    }
    pm_file *f;
    pm_orc_reader *r = NULL;
    pm_file_from_memory(copy, file.len, "flipped.orc", &f, &err);
    int rc = pm_orc_reader_open(f, NULL, &r, &err);
    struct ArrowSchema s;
    if (rc == 0 && pm_orc_reader_schema(r, &s, &err) == 0) s.release(&s);
    while (rc == 0) {
      struct ArrowArray a;
      rc = pm_orc_reader_next(r, &a, &err);
      if (rc || !a.release) break;
      a.release(&a);
    }
    pm_orc_reader_close(r);
    pm_file_close(f);
  }
  free(copy);
  pm_buf_free(&file);
}

int main(void) {
  snprintf(tmpdir, sizeof tmpdir, "%s/orc-test-XXXXXX", PAIMON_BINARY_DIR);
  if (!mkdtemp(tmpdir)) {
    perror("mkdtemp");
    return 1;
  }
  RUN_TEST(test_fixture_roundtrip);
  RUN_TEST(test_synthetic);
  RUN_TEST(test_seek_row_groups);
  RUN_TEST(test_char_varchar);
  RUN_TEST(test_union);
  RUN_TEST(test_empty_and_abort);
  RUN_TEST(test_corrupt_input);
  char cmd[600];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmpdir);
  if (system(cmd) != 0) fprintf(stderr, "cleanup failed\n");
  TEST_MAIN_END();
}
