/* File index container (FileIndexFormat V1): header parsing over untrusted
 * bytes and the test of a filter against the indexes it holds. */
#include <roaring/roaring.h>
#include <stdlib.h>
#include <string.h>

#include "meta/fileindex.h"

#define FIDX_MAGIC 1493475289347502LL

static uint32_t be32(const uint8_t *p) {
  return ((uint32_t)p[0] << 24) | ((uint32_t)p[1] << 16) | ((uint32_t)p[2] << 8) | (uint32_t)p[3];
}

static int corrupt(pm_error *err, const char *what, const char *msg) {
  return pm_errorf(err, PAIMON_ERR_CORRUPT, "file index %s: %s", what ? what : "(embedded)", msg);
}

static int open_header(const uint8_t *data, size_t len, const char *what, pm_fidx *out, pm_error *err) {
  out->data = data;
  out->len = len;
  out->what = what;
  if (len > INT32_MAX) return corrupt(err, what, "larger than 2 GiB");
  if (len < 24) return corrupt(err, what, "shorter than its header");
  uint64_t magic = ((uint64_t)be32(data) << 32) | be32(data + 4);
  if ((int64_t)magic != FIDX_MAGIC) return corrupt(err, what, "bad magic");
  uint32_t version = be32(data + 8);
  if (version != 1) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "file index %s: version %u (only 1 is known)",
                                     what ? what : "(embedded)", version);
  uint32_t head_len = be32(data + 12);
  if (head_len < 24 || head_len > len) return corrupt(err, what, "header length out of range");
  size_t pos = 16;
  uint32_t ncols = be32(data + pos);
  pos += 4;
  if (ncols > PM_FIDX_MAX_ENTRIES) return corrupt(err, what, "too many columns");
  size_t cap = 0;
  for (uint32_t c = 0; c < ncols; c++) {
    if (pos + 2 > head_len) return corrupt(err, what, "truncated column name");
    size_t nl = ((size_t)data[pos] << 8) | data[pos + 1];
    pos += 2;
    if (pos + nl + 4 > head_len) return corrupt(err, what, "truncated column entry");
    const uint8_t *name = data + pos;
    pos += nl;
    uint32_t nidx = be32(data + pos);
    pos += 4;
    if (nidx > PM_FIDX_MAX_ENTRIES || out->n + nidx > PM_FIDX_MAX_ENTRIES) {
      pm_fidx_clear(out);
      return corrupt(err, what, "too many indexes");
    }
    for (uint32_t k = 0; k < nidx; k++) {
      if (pos + 2 > head_len) {
        pm_fidx_clear(out);
        return corrupt(err, what, "truncated index name");
      }
      size_t tl = ((size_t)data[pos] << 8) | data[pos + 1];
      pos += 2;
      if (pos + tl + 8 > head_len) {
        pm_fidx_clear(out);
        return corrupt(err, what, "truncated index entry");
      }
      pm_fidx_entry e = {name, nl, data + pos, tl, (int32_t)be32(data + pos + tl), (int32_t)be32(data + pos + tl + 4)};
      pos += tl + 8;
      if (e.start != -1 && (e.start < 0 || e.length < 0 || (size_t)e.start + (size_t)e.length > len ||
                            (size_t)e.start < head_len)) {
        pm_fidx_clear(out);
        return corrupt(err, what, "index body out of range");
      }
      if (out->n == cap) {
        size_t nc = cap ? cap * 2 : 8;
        pm_fidx_entry *ne = realloc(out->entries, nc * sizeof *ne);
        if (!ne) {
          pm_fidx_clear(out);
          return PM_NOMEM(err);
        }
        out->entries = ne;
        cap = nc;
      }
      out->entries[out->n++] = e;
    }
  }
  if (pos + 4 > head_len) {
    pm_fidx_clear(out);
    return corrupt(err, what, "truncated header");
  }
  return 0;
}

/* Every failure of open_header leaves nothing allocated in *out. */
int pm_fidx_open_safe(const uint8_t *data, size_t len, const char *what, pm_fidx *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  int rc = open_header(data, len, what, out, err);
  if (rc) pm_fidx_clear(out);
  return rc;
}

void pm_fidx_clear(pm_fidx *ix) {
  if (!ix) return;
  free(ix->entries);
  ix->entries = NULL;
  ix->n = 0;
}

/* UTF-8 name equals a Java modified UTF-8 name (no NULs or supplementary characters in names we match). */
static int name_eq(const uint8_t *m, size_t ml, const char *s) {
  size_t n = strlen(s);
  return n == ml && memcmp(m, s, n) == 0;
}

/* ---- results (Java's FileIndexResult algebra) ---- */

static void res_free(pm_fidx_result *r) {
  if (r->kind == PM_FIDX_ROWS && r->rows) roaring_bitmap_free(r->rows);
  r->rows = NULL;
}

static int res_remain(const pm_fidx_result *r) {
  if (r->kind == PM_FIDX_SKIP) return 0;
  if (r->kind == PM_FIDX_ROWS) return !roaring_bitmap_is_empty(r->rows);
  return 1;
}

/* a = a AND b (b consumed). */
static int res_and(pm_fidx_result *a, pm_fidx_result *b, pm_error *err) {
  if (a->kind == PM_FIDX_REMAIN) {
    *a = *b;
    b->rows = NULL;
    return 0;
  }
  if (a->kind == PM_FIDX_SKIP) {
    res_free(b);
    return 0;
  }
  if (b->kind == PM_FIDX_ROWS) {
    roaring_bitmap_and_inplace(a->rows, b->rows);
    res_free(b);
    return 0;
  }
  int rb = res_remain(b);
  res_free(b);
  if (!rb) {
    res_free(a);
    a->kind = PM_FIDX_SKIP;
  }
  (void)err;
  return 0;
}

/* a = a OR b (b consumed). */
static int res_or(pm_fidx_result *a, pm_fidx_result *b, pm_error *err) {
  if (a->kind == PM_FIDX_REMAIN) {
    res_free(b);
    return 0;
  }
  if (a->kind == PM_FIDX_SKIP) {
    *a = *b;
    b->rows = NULL;
    return 0;
  }
  if (b->kind == PM_FIDX_ROWS) {
    roaring_bitmap_or_inplace(a->rows, b->rows);
    res_free(b);
    return 0;
  }
  int rb = res_remain(b);
  res_free(b);
  if (rb) {
    res_free(a);
    a->kind = PM_FIDX_REMAIN;
  }
  (void)err;
  return 0;
}

typedef struct test_ctx {
  const pm_fidx *ix;
  const pm_fidx_col *cols;
  size_t n_cols;
  int64_t row_count;
} test_ctx;

static int test_leaf(const test_ctx *c, const pm_predicate *p, pm_fidx_result *out, pm_error *err) {
  out->kind = PM_FIDX_REMAIN;
  out->rows = NULL;
  if (p->field_index < 0 || (size_t)p->field_index >= c->n_cols) return 0;
  const pm_fidx_col *col = &c->cols[p->field_index];
  if (!col->name || !col->type) return 0;
  /* the leaf's literals are typed for the current column type: only a same-typed file column is safe */
  if (col->type->root != p->kind) return 0;
  if (p->kind == PM_DT_DECIMAL && col->type->scale != p->scale) return 0;
  for (size_t i = 0; i < c->ix->n; i++) {
    const pm_fidx_entry *e = &c->ix->entries[i];
    if (!name_eq(e->column, e->column_len, col->name)) continue;
    pm_fidx_result r = {PM_FIDX_REMAIN, NULL};
    if (e->start == -1) continue; /* empty index: REMAIN */
    const uint8_t *b = c->ix->data + e->start;
    size_t n = (size_t)e->length;
    int rc = 0;
    if (name_eq(e->type, e->type_len, PM_FIDX_BLOOM)) rc = pm_fidx_bloom_test(b, n, col->type, p, &r, c->ix->what, err);
    else if (name_eq(e->type, e->type_len, PM_FIDX_BITMAP))
      rc = pm_fidx_bitmap_test(b, n, col->type, p, &r, c->ix->what, err);
    else if (name_eq(e->type, e->type_len, PM_FIDX_BSI)) rc = pm_fidx_bsi_test(b, n, col->type, p, &r, c->ix->what, err);
    if (rc) {
      res_free(&r);
      res_free(out);
      return rc;
    }
    res_and(out, &r, err);
    if (!res_remain(out)) return 0;
  }
  return 0;
}

static int test_node(const test_ctx *c, const pm_predicate *p, int depth, pm_fidx_result *out, pm_error *err) {
  out->kind = PM_FIDX_REMAIN;
  out->rows = NULL;
  if (depth > PM_PRED_MAX_NESTING + 8) return 0;
  if (p->op == PM_PRED_ALWAYS_FALSE) {
    out->kind = PM_FIDX_SKIP;
    return 0;
  }
  if (p->op != PM_PRED_AND && p->op != PM_PRED_OR) return test_leaf(c, p, out, err);
  int have = 0;
  for (size_t i = 0; i < p->n_children; i++) {
    pm_fidx_result r;
    int rc = test_node(c, p->children[i], depth + 1, &r, err);
    if (rc) {
      res_free(out);
      return rc;
    }
    if (!have) {
      *out = r;
      have = 1;
    } else if (p->op == PM_PRED_OR) {
      res_or(out, &r, err);
    } else {
      res_and(out, &r, err);
    }
    if (p->op == PM_PRED_AND && !res_remain(out)) return 0;
  }
  return 0;
}

int pm_fidx_test(const pm_fidx *ix, const pm_predicate *p, const pm_fidx_col *cols, size_t n_cols, int64_t row_count,
                 int *remain, pm_error *err) {
  *remain = 1;
  if (!p || !ix || !ix->n) return 0;
  test_ctx c = {ix, cols, n_cols, row_count};
  pm_fidx_result r;
  PM_TRY(test_node(&c, p, 0, &r, err));
  *remain = res_remain(&r);
  res_free(&r);
  return 0;
}

const char *pm_fidx_opt(const pm_fidx_opts *o, const char *key) {
  if (!o) return NULL;
  for (size_t i = 0; i < o->n; i++)
    if (!strcmp(o->keys[i], key)) return o->values[i];
  return NULL;
}

/* ---- java.util.HashMap iteration order ---- */

static uint32_t spread(int32_t h) {
  uint32_t u = (uint32_t)h;
  return u ^ (u >> 16);
}

int pm_java_hash_order(const int32_t *hashes, size_t n, int compute_if_absent, size_t *order, pm_error *err) {
  if (!n) return 0;
  /* exact list model: bins as linked lists of key indices */
  size_t cap = 16, size = 0;
  size_t *next = malloc(n * sizeof *next);
  size_t *head = malloc(cap * sizeof *head), *tail = malloc(cap * sizeof *tail), *len = calloc(cap, sizeof *len);
  const size_t NIL = (size_t)-1;
  int rc = 0;
  if (!next || !head || !tail || !len) rc = PM_NOMEM(err);
  for (size_t b = 0; !rc && b < cap; b++) head[b] = tail[b] = NIL;
  for (size_t i = 0; !rc && i < n; i++) {
    for (int pass = 0; pass < 3 && !rc; pass++) {
      /* pass 0: computeIfAbsent resizes first when size > threshold; pass 1/2: resizes after the insert */
      int grow = 0;
      if (pass == 0) {
        if (compute_if_absent && (double)size > 0.75 * (double)cap) grow = 1;
      } else if (pass == 1) {
        uint32_t b = spread(hashes[i]) & (uint32_t)(cap - 1);
        size_t existing = len[b];
        next[i] = NIL;
        if (compute_if_absent) {
          next[i] = head[b];
          head[b] = i;
          if (tail[b] == NIL) tail[b] = i;
        } else {
          if (tail[b] == NIL) head[b] = i;
          else next[tail[b]] = i;
          tail[b] = i;
        }
        len[b]++;
        size++;
        /* treeifyBin below MIN_TREEIFY_CAPACITY (64) resizes instead */
        size_t limit = compute_if_absent ? 7 : 8;
        if (existing >= limit && cap < 64) grow = 1;
      } else {
        if (!compute_if_absent && (double)size > 0.75 * (double)cap) grow = 1;
      }
      if (!grow || cap >= ((size_t)1 << 30)) continue;
      size_t nc = cap * 2;
      size_t *nh = malloc(nc * sizeof *nh), *nt = malloc(nc * sizeof *nt), *nl = calloc(nc, sizeof *nl);
      if (!nh || !nt || !nl) {
        free(nh), free(nt), free(nl);
        rc = PM_NOMEM(err);
        break;
      }
      for (size_t b = 0; b < nc; b++) nh[b] = nt[b] = NIL;
      for (size_t b = 0; b < cap; b++) {
        for (size_t e = head[b]; e != NIL;) {
          size_t nx = next[e];
          uint32_t nb = spread(hashes[e]) & (uint32_t)(nc - 1);
          next[e] = NIL;
          if (nt[nb] == NIL) nh[nb] = e;
          else next[nt[nb]] = e;
          nt[nb] = e;
          nl[nb]++;
          e = nx;
        }
      }
      free(head), free(tail), free(len);
      head = nh, tail = nt, len = nl, cap = nc;
      if (pass == 1) {
        /* a treeify resize may be followed by the size check (put) */
      }
    }
  }
  size_t k = 0;
  for (size_t b = 0; !rc && b < cap; b++)
    for (size_t e = head[b]; e != NIL; e = next[e]) order[k++] = e;
  free(next), free(head), free(tail), free(len);
  return rc;
}

static inline uint32_t rotl32(uint32_t x, int r) { return (x << r) | (x >> (32 - r)); }
static uint32_t mix_k1(uint32_t k) {
  k *= 0xcc9e2d51u;
  k = rotl32(k, 15);
  return k * 0x1b873593u;
}
static uint32_t mix_h1(uint32_t h, uint32_t k) {
  h ^= k;
  h = rotl32(h, 13);
  return h * 5 + 0xe6546b64u;
}

int32_t pm_java_binary_string_hash(const uint8_t *s, size_t n) {
  uint32_t h = 42;
  size_t aligned = n - n % 4;
  for (size_t i = 0; i < aligned; i += 4)
    h = mix_h1(h, mix_k1((uint32_t)s[i] | ((uint32_t)s[i + 1] << 8) | ((uint32_t)s[i + 2] << 16) |
                         ((uint32_t)s[i + 3] << 24)));
  for (size_t i = aligned; i < n; i++) h = mix_h1(h, mix_k1((uint32_t)(int32_t)(int8_t)s[i]));
  h ^= (uint32_t)n;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return (int32_t)h;
}

/* ---- RoaringBitmap (Java) portable serialization after runOptimize ----
 * Containers as Java builds them by adding rows (array up to 4096 values,
 * else bitmap), then Java's runOptimize: a run container replaces an array
 * when 2 * cardinality > 2 + 4 * runs, a bitmap when 8192 > 2 + 4 * runs
 * (CRoaring breaks the array tie differently, hence this writer). */

static void le16(uint8_t *p, uint32_t v) {
  p[0] = (uint8_t)v;
  p[1] = (uint8_t)(v >> 8);
}
static void le32(uint8_t *p, uint32_t v) {
  le16(p, v);
  le16(p + 2, v >> 16);
}

int pm_fidx_roaring_serialize(const void *bitmap, pm_buf *out, pm_error *err) {
  const roaring_bitmap_t *r = bitmap;
  uint64_t card = roaring_bitmap_get_cardinality(r);
  uint32_t *v = malloc((size_t)(card ? card : 1) * sizeof *v);
  if (!v) return PM_NOMEM(err);
  roaring_bitmap_to_uint32_array(r, v);
  /* containers: [start, end) into v, kind 0 array 1 bitmap 2 run, runs */
  size_t nc = 0;
  for (uint64_t i = 0; i < card; i++)
    if (i == 0 || (v[i] >> 16) != (v[i - 1] >> 16)) nc++;
  size_t *cs = malloc((nc ? nc : 1) * sizeof *cs), *ce = malloc((nc ? nc : 1) * sizeof *ce);
  uint32_t *runs = malloc((nc ? nc : 1) * sizeof *runs);
  uint8_t *kind = malloc(nc ? nc : 1);
  if (!cs || !ce || !runs || !kind) {
    free(v), free(cs), free(ce), free(runs), free(kind);
    return PM_NOMEM(err);
  }
  size_t k = 0;
  int any_run = 0;
  for (uint64_t i = 0; i < card;) {
    uint64_t j = i;
    uint32_t nr = 0;
    while (j < card && (v[j] >> 16) == (v[i] >> 16)) {
      if (j == i || v[j] != v[j - 1] + 1) nr++;
      j++;
    }
    uint64_t c = j - i;
    cs[k] = (size_t)i;
    ce[k] = (size_t)j;
    runs[k] = nr;
    uint64_t run_size = 2 + 4 * (uint64_t)nr;
    if (c <= 4096) kind[k] = 2 * c > run_size ? 2 : 0;
    else kind[k] = 8192 > run_size ? 2 : 1;
    if (kind[k] == 2) any_run = 1;
    k++;
    i = j;
  }
  size_t start = out->len;
  size_t hdr = any_run ? 4 + (nc + 7) / 8 : 8;
  int offsets = !any_run || nc >= 4;
  size_t body_at = hdr + 4 * nc + (offsets ? 4 * nc : 0);
  size_t total = body_at;
  for (size_t c = 0; c < nc; c++)
    total += kind[c] == 0 ? 2 * (ce[c] - cs[c]) : kind[c] == 1 ? 8192 : 2 + 4 * (size_t)runs[c];
  int rc = pm_buf_append_zeros(out, total) ? PM_NOMEM(err) : 0;
  if (!rc) {
    uint8_t *p = out->data + start;
    if (any_run) {
      le32(p, 12347u | ((uint32_t)(nc - 1) << 16));
      for (size_t c = 0; c < nc; c++)
        if (kind[c] == 2) p[4 + c / 8] |= (uint8_t)(1u << (c % 8));
    } else {
      le32(p, 12346u);
      le32(p + 4, (uint32_t)nc);
    }
    size_t at = body_at;
    for (size_t c = 0; c < nc; c++) {
      le16(p + hdr + 4 * c, v[cs[c]] >> 16);
      le16(p + hdr + 4 * c + 2, (uint32_t)(ce[c] - cs[c] - 1));
      if (offsets) le32(p + hdr + 4 * nc + 4 * c, (uint32_t)at);
      if (kind[c] == 0) {
        for (size_t i = cs[c]; i < ce[c]; i++, at += 2) le16(p + at, v[i] & 0xFFFF);
      } else if (kind[c] == 1) {
        for (size_t i = cs[c]; i < ce[c]; i++) {
          uint32_t lo = v[i] & 0xFFFF;
          p[at + lo / 8] |= (uint8_t)(1u << (lo % 8));
        }
        at += 8192;
      } else {
        le16(p + at, runs[c]);
        at += 2;
        for (size_t i = cs[c]; i < ce[c];) {
          size_t j = i + 1;
          while (j < ce[c] && v[j] == v[j - 1] + 1) j++;
          le16(p + at, v[i] & 0xFFFF);
          le16(p + at + 2, (uint32_t)(j - i - 1));
          at += 4;
          i = j;
        }
      }
    }
  }
  free(v), free(cs), free(ce), free(runs), free(kind);
  return rc;
}
