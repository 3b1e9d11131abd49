/* Arrow input kinds of the write path (arrow/view.h): large_utf8 / large_binary,
 * utf8_view / binary_view (inline and out-of-line values, several data
 * buffers), dictionary-encoded columns (int8..int64 indices, null indices and
 * null dictionary entries), large_list and list_view, inside a ROW too, each
 * with nulls and with slices (offset != 0 on the batch and on a column), are
 * written to parquet / orc / avro tables; `paimon-table check` passes on each,
 * `paimon-table read` returns exactly the expected rows (Parquet: the tool
 * reads no ORC / Avro data) and so does our reader (every format). Bad input (view buffer
 * index / range, dictionary index, large offsets, list-view range) fails
 * with INVALID_ARGUMENT naming the column and row, and the table is unchanged. */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "harness.h"
#include "util/buf.h"
#include "paimon/write.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"
#include "support/oracle_write.h"

static char wh[256];
#define N 10 /* physical rows of every column */

/* ------------------------------------------------------------ values */

static const char *sval(int i, char *buf) {
  if (i % 4 == 1) return NULL;
  if (i % 3 == 0) snprintf(buf, 64, "long value number %d, out of line", i);
  else snprintf(buf, 64, "s%d", i);
  return buf;
}
/* bytes: "\0\xff" + "b<i>", longer for i%3==0 */
static int bval(int i, uint8_t *buf) {
  if (i % 5 == 3) return -1;
  buf[0] = 0;
  buf[1] = 0xff;
  int n = snprintf((char *)buf + 2, 60, i % 3 == 0 ? "bytes-long-%d-xxxxxxxx" : "b%d", i);
  return n + 2;
}
/* array elements of row i: n = i%3 items, item 1 null when i%4==3; list null when i%5==2 */
static int anum(int i) { return i % 5 == 2 ? -1 : i % 3; }
static const char *aval(int i, int j, char *buf) {
  if (j == 1 && i % 4 == 3) return NULL;
  snprintf(buf, 64, j == 0 ? "e%d-first-element-long" : "e%d_%d", i, j);
  return buf;
}

static char *b64(const uint8_t *d, int n) {
  static const char *T = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char *o = malloc((size_t)n * 2 + 8), *p = o;
  for (int i = 0; i < n; i += 3) {
    uint32_t v = (uint32_t)d[i] << 16 | (i + 1 < n ? (uint32_t)d[i + 1] << 8 : 0) | (i + 2 < n ? d[i + 2] : 0);
    *p++ = T[v >> 18 & 63];
    *p++ = T[v >> 12 & 63];
    *p++ = i + 1 < n ? T[v >> 6 & 63] : '=';
    *p++ = i + 2 < n ? T[v & 63] : '=';
  }
  *p = 0;
  return o;
}

/* ------------------------------------------------------------ builders */

static void set_validity(struct ArrowArray *a, int n, const int *valid) {
  uint8_t *bits = pm_aligned_alloc((size_t)(n + 7) / 8 + 1);
  memset(bits, 0, (size_t)(n + 7) / 8 + 1);
  int nulls = 0;
  for (int i = 0; i < n; i++) {
    if (valid[i]) pm_bit_set(bits, i);
    else nulls++;
  }
  pm_array_set_buffer(a, 0, bits);
  a->null_count = nulls;
}

/* A string-like array of n values (vals[i] NULL = null) in `kind`: u U z Z vu vz. */
static void mk_varbin(const char *kind, int n, const char *const *vals, const int *lens, struct ArrowArray *a) {
  pm_error err;
  int valid[64];
  size_t total = 0;
  for (int i = 0; i < n; i++) {
    valid[i] = vals[i] != NULL;
    total += vals[i] ? (size_t)lens[i] : 0;
  }
  if (kind[0] == 'v') {
    /* views: out-of-line values alternate between two data buffers */
    CHECK(pm_array_init(a, n, 5, 0, &err) == 0);
    uint8_t *views = pm_aligned_alloc((size_t)n * 16 + 1), *d[2];
    d[0] = pm_aligned_alloc(total + 1);
    d[1] = pm_aligned_alloc(total + 1);
    int64_t *sizes = pm_aligned_alloc(16);
    int64_t at[2] = {0, 0};
    memset(views, 0, (size_t)n * 16);
    for (int i = 0; i < n; i++) {
      int32_t l = vals[i] ? lens[i] : 0;
      uint8_t *v = views + i * 16;
      memcpy(v, &l, 4);
      if (l <= 12) {
        if (l) memcpy(v + 4, vals[i], (size_t)l);
      } else {
        int32_t bi = i & 1, bo = (int32_t)at[bi];
        memcpy(v + 4, vals[i], 4);
        memcpy(v + 8, &bi, 4);
        memcpy(v + 12, &bo, 4);
        memcpy(d[bi] + at[bi], vals[i], (size_t)l);
        at[bi] += l;
      }
    }
    sizes[0] = at[0];
    sizes[1] = at[1];
    pm_array_set_buffer(a, 1, views);
    pm_array_set_buffer(a, 2, d[0]);
    pm_array_set_buffer(a, 3, d[1]);
    pm_array_set_buffer(a, 4, sizes);
  } else {
    int large = kind[0] == 'U' || kind[0] == 'Z';
    CHECK(pm_array_init(a, n, 3, 0, &err) == 0);
    uint8_t *off = pm_aligned_alloc((size_t)(n + 1) * 8), *data = pm_aligned_alloc(total + 1);
    int64_t at = 0;
    for (int i = 0; i <= n; i++) {
      if (large) ((int64_t *)off)[i] = at;
      else ((int32_t *)off)[i] = (int32_t)at;
      if (i < n && vals[i]) {
        memcpy(data + at, vals[i], (size_t)lens[i]);
        at += lens[i];
      }
    }
    pm_array_set_buffer(a, 1, off);
    pm_array_set_buffer(a, 2, data);
  }
  set_validity(a, n, valid);
}

/* Dictionary encoding of vals: the dictionary holds the distinct values in
 * reverse order plus an unused entry and a null entry; every 7th null row
 * points at the null entry, the others have a null index. */
static void mk_dict(const char *ifmt, const char *vkind, int n, const char *const *vals, const int *lens,
                    struct ArrowArray *a) {
  pm_error err;
  const char *dv[64];
  int dl[64], nd = 0, idx[64], valid[64];
  dv[nd] = "unused entry";
  dl[nd++] = 12;
  dv[nd] = NULL;
  dl[nd++] = 0;
  for (int i = n - 1; i >= 0; i--) {
    if (!vals[i]) continue;
    dv[nd] = vals[i];
    dl[nd++] = lens[i];
  }
  for (int i = 0; i < n; i++) {
    valid[i] = 1;
    if (!vals[i]) {
      if (i % 7 == 0) idx[i] = 1;
      else valid[i] = 0, idx[i] = 0;
      continue;
    }
    for (int k = 2; k < nd; k++)
      if (dl[k] == lens[i] && !memcmp(dv[k], vals[i], (size_t)lens[i])) idx[i] = k;
  }
  int w = ifmt[0] == 'c' ? 1 : ifmt[0] == 's' ? 2 : ifmt[0] == 'i' ? 4 : 8;
  CHECK(pm_array_init(a, n, 2, 0, &err) == 0);
  uint8_t *ib = pm_aligned_alloc((size_t)n * 8);
  for (int i = 0; i < n; i++) {
    int64_t v = idx[i];
    if (w == 1) ((int8_t *)ib)[i] = (int8_t)v;
    else if (w == 2) ((int16_t *)ib)[i] = (int16_t)v;
    else if (w == 4) ((int32_t *)ib)[i] = (int32_t)v;
    else ((int64_t *)ib)[i] = v;
  }
  pm_array_set_buffer(a, 1, ib);
  set_validity(a, n, valid);
  CHECK(pm_array_alloc_dictionary(a, &err) == 0);
  mk_varbin(vkind, nd, dv, dl, a->dictionary);
}

/* ------------------------------------------------------------ cases */

typedef struct kcase {
  const char *s_kind; /* column s STRING: u U vu d:<idx>:<values> */
  const char *b_kind; /* column b BYTES: z Z vz d:... */
  const char *a_kind; /* column a ARRAY<STRING>: "+l:u" "+L:U" "+vl:vu" ... */
  const char *r_kind; /* column r ROW<x STRING>: kind of x */
  int top_off, col_off, len; /* batch offset; extra offset of every column; rows */
} kcase;

static void col_schema(struct ArrowSchema *s, const char *kind, const char *name) {
  pm_error err;
  if (!strncmp(kind, "d:", 2)) {
    char ifmt[4] = {kind[2], 0};
    CHECK(pm_schema_init(s, ifmt, name, ARROW_FLAG_NULLABLE, 0, &err) == 0);
    CHECK(pm_schema_init_dictionary(s, &err) == 0);
    CHECK(pm_schema_init(s->dictionary, kind + 4, NULL, ARROW_FLAG_NULLABLE, 0, &err) == 0);
  } else {
    CHECK(pm_schema_init(s, kind, name, ARROW_FLAG_NULLABLE, 0, &err) == 0);
  }
}

static void col_array(const char *kind, int n, const char *const *vals, const int *lens, struct ArrowArray *a) {
  if (!strncmp(kind, "d:", 2)) {
    char ifmt[4] = {kind[2], 0};
    mk_dict(ifmt, kind + 4, n, vals, lens, a);
  } else {
    mk_varbin(kind, n, vals, lens, a);
  }
}

/* Builds the batch of case k (ids base + logical row) and appends the expected rows. */
static void build(const kcase *k, int base, struct ArrowSchema *s, struct ArrowArray *a, json_t *expect) {
  pm_error err;
  int phys = N + k->col_off; /* column length: the batch is [top_off, top_off+len) of N rows */
  /* physical column row p holds logical batch row p - col_off */
  CHECK(pm_schema_init(s, "+s", "", 0, 5, &err) == 0);
  CHECK(pm_schema_init(s->children[0], "l", "id", 0, 0, &err) == 0);
  col_schema(s->children[1], k->s_kind, "s");
  col_schema(s->children[2], k->b_kind, "b");
  char lf[8], ef[16];
  sscanf(k->a_kind, "%7[^:]:%15s", lf, ef);
  CHECK(pm_schema_init(s->children[3], lf, "a", ARROW_FLAG_NULLABLE, 1, &err) == 0);
  col_schema(s->children[3]->children[0], ef, "element");
  CHECK(pm_schema_init(s->children[4], "+s", "r", ARROW_FLAG_NULLABLE, 1, &err) == 0);
  col_schema(s->children[4]->children[0], k->r_kind, "x");

  CHECK(pm_array_init(a, k->len, 1, 5, &err) == 0);
  a->offset = k->top_off;
  char sb[64][64];
  uint8_t bb[64][64];
  const char *sv[64], *bv[64];
  int sl[64], bl[64];
  for (int p = 0; p < phys; p++) {
    int r = p - k->col_off; /* logical row of the N-row batch; < 0: padding */
    int i = r < 0 ? 0 : r;
    sv[p] = sval(i, sb[p]);
    sl[p] = sv[p] ? (int)strlen(sv[p]) : 0;
    int n = bval(i, bb[p]);
    bv[p] = n < 0 ? NULL : (const char *)bb[p];
    bl[p] = n < 0 ? 0 : n;
  }
  /* id */
  int64_t ids[64];
  for (int p = 0; p < phys; p++) ids[p] = base + p - k->col_off;
  struct ArrowArray *c = a->children[0];
  CHECK(pm_array_init(c, phys, 2, 0, &err) == 0);
  void *idb = pm_aligned_alloc(sizeof ids);
  memcpy(idb, ids, sizeof ids);
  pm_array_set_buffer(c, 1, idb);
  c->offset = k->col_off;
  c->length = N;
  col_array(k->s_kind, phys, sv, sl, a->children[1]);
  col_array(k->b_kind, phys, bv, bl, a->children[2]);
  /* array column: elements flattened in row order (list view: reverse row order) */
  const char *ev[256];
  int el[256], ne = 0, start[64], cnt[64], lvalid[64];
  char eb[256][64];
  int view = lf[1] == 'v';
  for (int q = 0; q < phys; q++) {
    int p = view ? phys - 1 - q : q;
    int r = p - k->col_off, i = r < 0 ? 0 : r;
    int m = anum(i);
    lvalid[p] = m >= 0;
    start[p] = ne;
    cnt[p] = m < 0 ? 0 : m;
    for (int j = 0; j < cnt[p]; j++) {
      ev[ne] = aval(i, j, eb[ne]);
      el[ne] = ev[ne] ? (int)strlen(ev[ne]) : 0;
      ne++;
    }
  }
  struct ArrowArray *l = a->children[3];
  int large = lf[1] == 'L' || lf[2] == 'L';
  CHECK(pm_array_init(l, phys, view ? 3 : 2, 1, &err) == 0);
  uint8_t *ob = pm_aligned_alloc((size_t)(phys + 1) * 8), *szb = pm_aligned_alloc((size_t)(phys + 1) * 8);
  for (int p = 0; p <= phys; p++) {
    int64_t o = p < phys ? start[p] : ne, z = p < phys ? cnt[p] : 0;
    if (large) ((int64_t *)ob)[p] = o, ((int64_t *)szb)[p] = z;
    else ((int32_t *)ob)[p] = (int32_t)o, ((int32_t *)szb)[p] = (int32_t)z;
  }
  pm_array_set_buffer(l, 1, ob);
  if (view) pm_array_set_buffer(l, 2, szb);
  else pm_aligned_free(szb);
  set_validity(l, phys, lvalid);
  col_array(ef, ne, ev, el, l->children[0]);
  /* row column: x = s again; the row is null where b is null */
  struct ArrowArray *rw = a->children[4];
  CHECK(pm_array_init(rw, phys, 1, 1, &err) == 0);
  int rvalid[64];
  for (int p = 0; p < phys; p++) rvalid[p] = bv[p] != NULL;
  set_validity(rw, phys, rvalid);
  col_array(k->r_kind, phys, sv, sl, rw->children[0]);
  for (int i = 1; i < 5; i++) a->children[i]->offset = k->col_off, a->children[i]->length = N;
  /* a->children have length N (physical N + col_off); the batch is [top_off, top_off+len) */
  for (int r = k->top_off; r < k->top_off + k->len; r++) {
    json_t *o = json_object();
    char tmp[64];
    json_object_set_new(o, "id", json_integer(base + r));
    const char *x = sval(r, tmp);
    json_object_set_new(o, "s", x ? json_string(x) : json_null());
    uint8_t bt[64];
    int n = bval(r, bt);
    if (n < 0) {
      json_object_set_new(o, "b", json_null());
      json_object_set_new(o, "r", json_null());
    } else {
      char *e = b64(bt, n);
      json_object_set_new(o, "b", json_string(e));
      free(e);
      json_t *ro = json_object();
      json_object_set_new(ro, "x", x ? json_string(x) : json_null());
      json_object_set_new(o, "r", ro);
    }
    int m = anum(r);
    if (m < 0) {
      json_object_set_new(o, "a", json_null());
    } else {
      json_t *arr = json_array();
      for (int j = 0; j < m; j++) {
        const char *y = aval(r, j, tmp);
        json_array_append_new(arr, y ? json_string(y) : json_null());
      }
      json_object_set_new(o, "a", arr);
    }
    json_array_append_new(expect, o);
  }
}

static const kcase CASES[] = {
    {"u", "z", "+l:u", "u", 0, 0, N},
    {"U", "Z", "+L:U", "U", 0, 0, N},
    {"vu", "vz", "+vl:vu", "vu", 0, 0, N},
    {"U", "Z", "+L:u", "vu", 3, 0, 6},
    {"vu", "vz", "+l:vu", "U", 2, 3, 7},
    {"d:c:u", "d:s:z", "+L:d:i:u", "d:l:U", 0, 0, N},
    {"d:i:vu", "d:l:Z", "+vl:d:c:U", "d:s:u", 1, 2, 8},
    {"d:l:U", "d:i:vz", "+vL:u", "d:i:vu", 4, 1, 5},
    {"vu", "Z", "+vL:vu", "u", 9, 0, 1},
    {"U", "vz", "+L:vu", "d:c:vu", 5, 0, 0},
};

/* ------------------------------------------------------------ tables */

static void make_table(const char *name, const char *format) {
  char path[512], cmd[700];
  snprintf(path, sizeof path, "%s/d.db/%s/schema", wh, name);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", path);
  CHECK_EQ_INT(system(cmd), 0);
  char schema[2048];
  snprintf(schema, sizeof schema,
           "{\"version\":3,\"id\":0,\"fields\":[{\"id\":0,\"name\":\"id\",\"type\":\"BIGINT NOT NULL\"},"
           "{\"id\":1,\"name\":\"s\",\"type\":\"STRING\"},{\"id\":2,\"name\":\"b\",\"type\":\"BYTES\"},"
           "{\"id\":3,\"name\":\"a\",\"type\":{\"type\":\"ARRAY\",\"element\":\"STRING\"}},"
           "{\"id\":4,\"name\":\"r\",\"type\":{\"type\":\"ROW\",\"fields\":[{\"id\":5,\"name\":\"x\","
           "\"type\":\"STRING\"}]}}],"
           "\"highestFieldId\":5,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{\"file.format\":\"%s\"},"
           "\"timeMillis\":1700000000000}",
           format);
  strcat(path, "/schema-0");
  FILE *f = fopen(path, "wb");
  CHECK(f != NULL);
  if (f) {
    fputs(schema, f);
    fclose(f);
  }
}

static int64_t latest(paimon_table *t) {
  int64_t id = -1;
  paimon_error err = {0};
  CHECK_OK(paimon_table_latest_snapshot_id(t, &id, &err), &err);
  return id;
}

/* One batch written and committed; returns the write status (nothing committed on error). */
static int write_commit(paimon_table *t, struct ArrowSchema *s, struct ArrowArray *a, paimon_error *err) {
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int64_t snap = -1;
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) rc = paimon_table_write_arrow(w, s, a, err);
  int wrc = rc;
  if (!wrc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!wrc && !rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!wrc && !rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, err);
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return rc;
}

typedef void (*corrupt_fn)(struct ArrowArray *a);

/* view of s row 3 (a long value) points at data buffer 7 */
static void bad_view_index(struct ArrowArray *a) {
  uint8_t *v = (uint8_t *)a->children[1]->buffers[1] + 3 * 16;
  int32_t bi = 7;
  memcpy(v + 8, &bi, 4);
}
/* view of b row 6 (a long value) runs past its buffer's size */
static void bad_view_range(struct ArrowArray *a) {
  uint8_t *v = (uint8_t *)a->children[2]->buffers[1] + 6 * 16;
  int32_t bo = 1000;
  memcpy(v + 12, &bo, 4);
}
/* dictionary index of s row 4 outside the dictionary */
static void bad_dict_index(struct ArrowArray *a) { ((int8_t *)a->children[1]->buffers[1])[4] = 100; }
/* large offsets of s decrease at row 5 */
static void bad_large_offsets(struct ArrowArray *a) { ((int64_t *)a->children[1]->buffers[1])[6] = 1; }
/* list view of a row 6 reaches past the child */
static void bad_list_view(struct ArrowArray *a) { ((int32_t *)a->children[3]->buffers[2])[6] = 500; }
/* dictionary index of r.x (nested) row 8 negative */
static void bad_nested_dict(struct ArrowArray *a) {
  ((int32_t *)a->children[4]->children[0]->buffers[1])[8] = -3;
}

static const struct {
  kcase k;
  corrupt_fn fn;
  const char *want; /* substrings of the message */
  const char *want2;
} BAD[] = {
    {{"vu", "z", "+l:u", "u", 0, 0, N}, bad_view_index, "column 's'", "row 3"},
    {{"u", "vz", "+l:u", "u", 0, 0, N}, bad_view_range, "column 'b'", "row 6"},
    {{"d:c:u", "z", "+l:u", "u", 0, 0, N}, bad_dict_index, "column 's'", "row 4"},
    {{"U", "z", "+l:u", "u", 0, 0, N}, bad_large_offsets, "column 's'", "row 5"},
    {{"u", "z", "+vl:u", "u", 0, 0, N}, bad_list_view, "column 'a'", "row 6"},
    {{"u", "z", "+l:u", "d:i:u", 0, 0, N}, bad_nested_dict, "column 'r.x'", "row 8"},
};

static void test_kinds(const char *format) {
  char name[32];
  snprintf(name, sizeof name, "t_%s", format);
  make_table(name, format);
  paimon_error err = {0};
  paimon_option o[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  char id[64];
  snprintf(id, sizeof id, "d.%s", name);
  if (cat) CHECK_OK(paimon_catalog_get_table(cat, id, &t, &err), &err);
  if (!t) {
    paimon_catalog_free(cat);
    return;
  }
  json_t *expect = json_array();
  int64_t snaps = 0;
  for (size_t i = 0; i < sizeof CASES / sizeof *CASES; i++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    build(&CASES[i], (int)(i + 1) * 100, &s, &a, expect);
    int rc = write_commit(t, &s, &a, &err);
    CHECK_MSG(rc == 0, "%s case %zu: %s", format, i, err.message);
    if (CASES[i].len > 0) snaps++;
    CHECK_EQ_INT(latest(t), snaps);
    a.release(&a);
    s.release(&s);
  }
  for (size_t i = 0; i < sizeof BAD / sizeof *BAD; i++) {
    struct ArrowSchema s;
    struct ArrowArray a;
    json_t *ignored = json_array();
    build(&BAD[i].k, 9000, &s, &a, ignored);
    json_decref(ignored);
    BAD[i].fn(&a);
    memset(&err, 0, sizeof err);
    CHECK_EQ_INT(write_commit(t, &s, &a, &err), PAIMON_ERR_INVALID_ARGUMENT);
    CHECK_MSG(strstr(err.message, BAD[i].want) && strstr(err.message, BAD[i].want2), "%s bad %zu: %s", format, i,
              err.message);
    CHECK_EQ_INT(latest(t), snaps);
    a.release(&a);
    s.release(&s);
  }
  /* paimon-table check on every format; paimon-table read has no ORC / Avro data reader,
   * those are read back with ours (and their Avro row counts are part of check) */
  char dir[512];
  snprintf(dir, sizeof dir, "%s/d.db/%s", wh, name);
  if (ot_available()) {
    CHECK(ot_check_ok(dir, 0, format));
    if (!strcmp(format, "parquet")) CHECK(ot_read_equals(dir, NULL, expect, format));
  }
  json_t *ours = ow_read_ours(t, &err);
  CHECK_MSG(ours != NULL, "%s: our read: %s", format, err.message);
  char msg[8192];
  if (ours) CHECK_MSG(ot_rows_match(expect, ours, msg, sizeof msg), "%s (our reader): %s", format, msg);
  json_decref(ours);
  json_decref(expect);
  paimon_table_free(t);
  paimon_catalog_free(cat);
}

static void test_parquet(void) { test_kinds("parquet"); }
static void test_orc(void) { test_kinds("orc"); }
static void test_avro(void) { test_kinds("avro"); }

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_write_kinds_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  RUN_TEST(test_parquet);
  RUN_TEST(test_orc);
  RUN_TEST(test_avro);
  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
