/* Cross-partition updates: the key index and the row rewrite (kv_bucket_cross.h). */
#include "table/kv_bucket_cross.h"

#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "data/binary_row.h"
#include "data/bucket.h"
#include "table/merge.h"
#include "table/partition.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/write_internal.h"
#include "table/write_slots.h"
#include "util/buf.h"

typedef struct kc_entry {
  uint64_t hash;
  size_t off; /* key bytes in keys */
  uint32_t len;
  int32_t part, bucket;
} kc_entry;

typedef struct kc_part {
  uint8_t *part; /* manifest form */
  size_t part_len;
  struct ArrowArray *vals; /* per partition column, one row */
  int32_t *bucket;         /* known buckets, ascending, with their key counts */
  int64_t *count;
  size_t n_buckets, cap_buckets;
} kc_part;

struct pm_kv_cross {
  pm_table *t;
  pm_type row_type;
  const pm_data_field *fields;
  size_t n_fields;
  int restore, bootstrapped;
  int engine;
  int64_t target;
  size_t n_part;
  int *part_col; /* table column of each partition key */
  const pm_data_type **part_types;
  size_t n_key;
  int *key_col; /* table column of each primary key */
  const pm_data_type **key_types;
  pm_binary_row_writer rw;
  pm_buf keys;
  kc_entry *entries;
  size_t n_entries, cap_entries;
  uint32_t *ht; /* entry index + 1 */
  size_t ht_cap;
  kc_part **parts;
  size_t n_parts, cap_parts;
  pm_slot_map part_map;
  pm_value *vals; /* scratch, n_part */
  pm_buf part_buf;
  int32_t *out_bucket; /* of the last rewrite */
  size_t cap_out;
};

static uint64_t key_hash(const uint8_t *p, size_t n) {
  uint64_t h = 1469598103934665603ull;
  for (size_t i = 0; i < n; i++) h = (h ^ p[i]) * 1099511628211ull;
  return h ^ (h >> 31);
}

/* ------------------------------------------------------------ key index */

static int ht_grow(pm_kv_cross *x, pm_error *err) {
  size_t cap = x->ht_cap ? 2 * x->ht_cap : 1024;
  uint32_t *ht = calloc(cap, sizeof *ht);
  if (!ht) return PM_NOMEM(err);
  for (size_t i = 0; i < x->n_entries; i++) {
    size_t q = (size_t)x->entries[i].hash & (cap - 1);
    while (ht[q]) q = (q + 1) & (cap - 1);
    ht[q] = (uint32_t)i + 1;
  }
  free(x->ht);
  x->ht = ht;
  x->ht_cap = cap;
  return 0;
}

/* The entry of key (rw's row), or NULL; *slot = where it goes. */
static kc_entry *find(pm_kv_cross *x, uint64_t h, size_t *slot) {
  const uint8_t *k = x->rw.buf.data;
  size_t n = x->rw.buf.len;
  size_t q = (size_t)h & (x->ht_cap - 1);
  for (; x->ht[q]; q = (q + 1) & (x->ht_cap - 1)) {
    kc_entry *e = &x->entries[x->ht[q] - 1];
    if (e->hash == h && e->len == n && !memcmp(x->keys.data + e->off, k, n)) {
      *slot = q;
      return e;
    }
  }
  *slot = q;
  return NULL;
}

static int insert(pm_kv_cross *x, uint64_t h, int32_t part, int32_t bucket, pm_error *err) {
  if (x->n_entries >= UINT32_MAX - 1) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "cross-partition key index: too many keys");
  if ((x->n_entries + 1) * 2 > x->ht_cap) PM_TRY(ht_grow(x, err));
  size_t slot;
  (void)find(x, h, &slot);
  if (x->n_entries == x->cap_entries) {
    size_t cap = x->cap_entries ? 2 * x->cap_entries : 1024;
    kc_entry *ne = realloc(x->entries, cap * sizeof *ne);
    if (!ne) return PM_NOMEM(err);
    x->entries = ne;
    x->cap_entries = cap;
  }
  kc_entry *e = &x->entries[x->n_entries];
  e->hash = h;
  e->off = x->keys.len;
  e->len = (uint32_t)x->rw.buf.len;
  e->part = part;
  e->bucket = bucket;
  if (pm_buf_append(&x->keys, x->rw.buf.data, x->rw.buf.len)) return PM_NOMEM(err);
  x->ht[slot] = (uint32_t)++x->n_entries;
  return 0;
}

/* The primary key of row r (columns cols[] of a) into rw. */
static int key_row(pm_kv_cross *x, const struct ArrowArray *a, const int *cols, int64_t r, uint64_t *h, pm_error *err) {
  PM_TRY(pm_row_writer_reset(&x->rw, err));
  for (size_t i = 0; i < x->n_key; i++) {
    pm_value v;
    PM_TRY(pm_write_value_at(x->key_types[i], a->children[cols[i]], r, &v, err));
    PM_TRY(pm_row_writer_write(&x->rw, (int32_t)i, x->key_types[i], &v, err));
  }
  *h = key_hash(x->rw.buf.data, x->rw.buf.len);
  return 0;
}

/* ------------------------------------------------------------ partitions */

static void part_free(pm_kv_cross *x, kc_part *p) {
  if (!p) return;
  for (size_t i = 0; p->vals && i < x->n_part; i++) pm_array_release(&p->vals[i]);
  free(p->vals);
  free(p->bucket);
  free(p->count);
  free(p->part);
  free(p);
}

/* The id of partition part, registered with its column values from row r
 * of a (partition key i at a->children[cols[i]]) when new. */
static int part_id(pm_kv_cross *x, const uint8_t *part, size_t len, const struct ArrowArray *a, const int *cols,
                   int64_t r, int32_t *id, pm_error *err) {
  int64_t pos = pm_slot_map_find(&x->part_map, part, len, 0);
  if (pos >= 0) {
    *id = (int32_t)pos;
    return 0;
  }
  kc_part *p = calloc(1, sizeof *p);
  if (!p) return PM_NOMEM(err);
  p->part = malloc(len ? len : 1);
  p->vals = calloc(x->n_part + 1, sizeof *p->vals);
  int rc = p->part && p->vals ? 0 : PM_NOMEM(err);
  if (!rc) {
    memcpy(p->part, part, len);
    p->part_len = len;
  }
  for (size_t i = 0; !rc && i < x->n_part; i++) {
    pm_builder *b = NULL;
    const pm_type *ty = &x->row_type.children[x->part_col[i]];
    rc = pm_builder_new(ty, &b, err);
    if (!rc) rc = pm_builder_append_from(b, ty, a->children[cols[i]], r, err);
    if (!rc) rc = pm_builder_finish(b, &p->vals[i], err);
    pm_builder_free(b);
  }
  if (!rc && x->n_parts == x->cap_parts) {
    size_t cap = x->cap_parts ? 2 * x->cap_parts : 8;
    kc_part **np = realloc(x->parts, cap * sizeof *np);
    if (!np) rc = PM_NOMEM(err);
    else {
      x->parts = np;
      x->cap_parts = cap;
    }
  }
  if (!rc) rc = pm_slot_map_add(&x->part_map, p->part, len, 0, x->n_parts, err);
  if (rc) {
    part_free(x, p);
    return rc;
  }
  *id = (int32_t)x->n_parts;
  x->parts[x->n_parts++] = p;
  return 0;
}

/* Adds delta to bucket's count (the bucket is created when missing). */
static int count_add(kc_part *p, int32_t bucket, int64_t delta, pm_error *err) {
  size_t i = 0;
  while (i < p->n_buckets && p->bucket[i] < bucket) i++;
  if (i < p->n_buckets && p->bucket[i] == bucket) {
    p->count[i] += delta;
    return 0;
  }
  if (p->n_buckets == p->cap_buckets) {
    size_t cap = p->cap_buckets ? 2 * p->cap_buckets : 8;
    int32_t *nb = realloc(p->bucket, cap * sizeof *nb);
    if (!nb) return PM_NOMEM(err);
    p->bucket = nb;
    int64_t *nc = realloc(p->count, cap * sizeof *nc);
    if (!nc) return PM_NOMEM(err);
    p->count = nc;
    p->cap_buckets = cap;
  }
  memmove(p->bucket + i + 1, p->bucket + i, (p->n_buckets - i) * sizeof *p->bucket);
  memmove(p->count + i + 1, p->count + i, (p->n_buckets - i) * sizeof *p->count);
  p->bucket[i] = bucket;
  p->count[i] = delta;
  p->n_buckets++;
  return 0;
}

/* Java's crosspartition BucketAssigner.assignBucket (one assigner). */
static int assign(pm_kv_cross *x, kc_part *p, int32_t *bucket, pm_error *err) {
  for (size_t i = 0; i < p->n_buckets; i++)
    if (p->count[i] < x->target) {
      p->count[i]++;
      *bucket = p->bucket[i];
      return 0;
    }
  int32_t b = 0;
  for (size_t i = 0; i < p->n_buckets && p->bucket[i] == b; i++) b++;
  *bucket = b;
  return count_add(p, b, 1, err);
}

/* ------------------------------------------------------------ bootstrap */

static int bootstrap_batch(pm_kv_cross *x, const pm_data_split *sp, const struct ArrowArray *a, const int *kcols,
                           const int *pcols, pm_error *err) {
  int32_t pid;
  PM_TRY(part_id(x, sp->partition.data, sp->partition.len, a, pcols, 0, &pid, err));
  kc_part *p = x->parts[pid];
  for (int64_t r = 0; r < a->length; r++) {
    uint64_t h;
    size_t slot;
    PM_TRY(key_row(x, a, kcols, r, &h, err));
    if ((x->n_entries + 1) * 2 > x->ht_cap) PM_TRY(ht_grow(x, err));
    if (find(x, h, &slot))
      return pm_errorf(err, PAIMON_ERR_CORRUPT,
                       "table %s.%s: a primary key is live in two partitions/buckets (bucket %d): the table was "
                       "written by more than one cross-partition writer",
                       x->t->database, x->t->name, (int)sp->bucket);
    PM_TRY(insert(x, h, pid, sp->bucket, err));
    PM_TRY(count_add(p, sp->bucket, 1, err));
  }
  return 0;
}

/* The index from the live rows of the latest snapshot: key columns and
 * partition columns only, split by split. */
static int bootstrap(pm_kv_cross *x, pm_error *err) {
  x->bootstrapped = 1;
  if (!x->restore) return 0;
  size_t nc = 0;
  const char **names = calloc(x->n_key + x->n_part + 1, sizeof *names);
  int *kcols = calloc(x->n_key + 1, sizeof *kcols), *pcols = calloc(x->n_part + 1, sizeof *pcols);
  int rc = names && kcols && pcols ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < x->n_key; i++) {
    kcols[i] = (int)nc;
    names[nc++] = x->fields[x->key_col[i]].name;
  }
  for (size_t i = 0; !rc && i < x->n_part; i++) {
    pcols[i] = -1;
    for (size_t k = 0; k < x->n_key; k++)
      if (x->key_col[k] == x->part_col[i]) pcols[i] = kcols[k];
    if (pcols[i] < 0) {
      pcols[i] = (int)nc;
      names[nc++] = x->fields[x->part_col[i]].name;
    }
  }
  pm_plan *plan = NULL;
  if (!rc) rc = pm_scan_plan(x->t, NULL, -1, &plan, err);
  pm_read_options o;
  pm_read_options_init(&o);
  o.columns = names;
  o.n_columns = nc;
  for (size_t s = 0; !rc && plan && s < plan->n_splits; s++) {
    const pm_data_split *sp = plan->splits[s];
    struct ArrowArrayStream st;
    memset(&st, 0, sizeof st);
    rc = pm_read_split(x->t, sp, &o, &st, err);
    while (!rc) {
      struct ArrowArray a;
      memset(&a, 0, sizeof a);
      if (st.get_next(&st, &a)) {
        const char *m = st.get_last_error ? st.get_last_error(&st) : NULL;
        rc = pm_errorf(err, PAIMON_ERR_IO, "table %s.%s: rebuilding the cross-partition key index: %s",
                       x->t->database, x->t->name, m ? m : "read failed");
        break;
      }
      if (!a.release) break;
      if (a.length) rc = bootstrap_batch(x, sp, &a, kcols, pcols, err);
      a.release(&a);
    }
    if (st.release) st.release(&st);
  }
  pm_plan_free(plan);
  free(names);
  free(kcols);
  free(pcols);
  return rc;
}

/* ------------------------------------------------------------ API */

static int columns(pm_kv_cross *x, char **names, size_t n, int **cols, const pm_data_type ***types, pm_error *err) {
  *cols = calloc(n + 1, sizeof **cols);
  *types = calloc(n + 1, sizeof **types);
  if (!*cols || !*types) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    int idx = pm_schema_field_index(x->t->schema, names[i]);
    if (idx < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: key '%s' is not a column", x->t->database,
                       x->t->name, names[i]);
    (*cols)[i] = idx;
    (*types)[i] = x->fields[idx].type;
  }
  return 0;
}

int pm_kv_cross_open(pm_table *t, const pm_type *row_type, const pm_data_field *fields, size_t n_fields,
                     int restore, pm_kv_cross **out, pm_error *err) {
  *out = NULL;
  pm_kv_cross *x = calloc(1, sizeof *x);
  if (!x) return PM_NOMEM(err);
  x->t = pm_table_retain(t);
  x->fields = fields;
  x->n_fields = n_fields;
  x->restore = restore;
  x->target = t->co.dynamic_bucket_target_row_num;
  x->engine = (int)t->merge_engine;
  pm_buf_init(&x->keys);
  pm_buf_init(&x->part_buf);
  int rc = pm_type_copy(row_type, &x->row_type, err);
  x->n_part = t->n_partition_keys;
  x->n_key = t->n_primary_keys;
  if (!rc) rc = columns(x, t->partition_keys, x->n_part, &x->part_col, &x->part_types, err);
  if (!rc) rc = columns(x, t->primary_keys, x->n_key, &x->key_col, &x->key_types, err);
  if (!rc) rc = pm_row_writer_init(&x->rw, (int32_t)x->n_key, err);
  if (!rc && !(x->vals = calloc(x->n_part + 1, sizeof *x->vals))) rc = PM_NOMEM(err);
  if (!rc) rc = ht_grow(x, err);
  if (rc) {
    pm_kv_cross_free(x);
    return rc;
  }
  *out = x;
  return 0;
}

typedef struct kc_out {
  int64_t *src;  /* input row */
  int32_t *part; /* partition whose values replace the row's partition columns, -1: the row's own */
  int8_t *kind;
  int32_t *bucket;
  size_t n, cap;
} kc_out;

static int emit(kc_out *o, int64_t r, int32_t part, int8_t kind, int32_t bucket, pm_error *err) {
  if (o->n == o->cap) {
    size_t cap = o->cap ? 2 * o->cap : 1024;
    int64_t *ns = realloc(o->src, cap * sizeof *ns);
    if (ns) o->src = ns;
    int32_t *np = ns ? realloc(o->part, cap * sizeof *np) : NULL;
    if (np) o->part = np;
    int8_t *nk = np ? realloc(o->kind, cap * sizeof *nk) : NULL;
    if (nk) o->kind = nk;
    int32_t *nb = nk ? realloc(o->bucket, cap * sizeof *nb) : NULL;
    if (!nb) return PM_NOMEM(err);
    o->bucket = nb;
    o->cap = cap;
  }
  o->src[o->n] = r;
  o->part[o->n] = part;
  o->kind[o->n] = kind;
  o->bucket[o->n] = bucket;
  o->n++;
  return 0;
}

static void out_free(kc_out *o) {
  free(o->src);
  free(o->part);
  free(o->kind);
  free(o->bucket);
}

/* Java's GlobalIndexAssigner.processInput for row r. */
static int process_row(pm_kv_cross *x, const struct ArrowArray *b, int64_t r, int8_t kind, kc_out *o, pm_error *err) {
  x->part_buf.len = 0;
  for (size_t i = 0; i < x->n_part; i++)
    PM_TRY(pm_write_value_at(x->part_types[i], b->children[x->part_col[i]], r, &x->vals[i], err));
  PM_TRY(pm_partition_row_encode(x->part_types, x->vals, x->n_part, &x->part_buf, err));
  int32_t pid;
  PM_TRY(part_id(x, x->part_buf.data, x->part_buf.len, b, x->part_col, r, &pid, err));
  uint64_t h;
  PM_TRY(key_row(x, b, x->key_col, r, &h, err));
  size_t slot;
  kc_entry *e = find(x, h, &slot);
  if (e && e->part == pid) return emit(o, r, -1, kind, e->bucket, err);
  if (e) {
    switch (x->engine) {
      case PM_MERGE_DEDUPLICATE:
        PM_TRY(emit(o, r, e->part, PM_ROWKIND_DELETE, e->bucket, err));
        PM_TRY(count_add(x->parts[e->part], e->bucket, -1, err));
        break;
      case PM_MERGE_PARTIAL_UPDATE:
      case PM_MERGE_AGGREGATION: return emit(o, r, e->part, kind, e->bucket, err);
      default: return 0; /* first-row: the key keeps its first partition */
    }
  }
  int32_t bucket;
  PM_TRY(assign(x, x->parts[pid], &bucket, err));
  if (e) {
    e->part = pid;
    e->bucket = bucket;
  } else {
    PM_TRY(insert(x, h, pid, bucket, err));
  }
  return emit(o, r, -1, kind, bucket, err);
}

static int is_part_col(const pm_kv_cross *x, size_t f, size_t *which) {
  for (size_t i = 0; i < x->n_part; i++)
    if ((size_t)x->part_col[i] == f) {
      *which = i;
      return 1;
    }
  return 0;
}

static int build(pm_kv_cross *x, const struct ArrowArray *b, const kc_out *o, struct ArrowArray *out, pm_error *err) {
  PM_TRY(pm_array_init(out, (int64_t)o->n, 1, (int64_t)x->n_fields, err));
  int rc = 0;
  for (size_t f = 0; !rc && f < x->n_fields; f++) {
    const pm_type *ty = &x->row_type.children[f];
    pm_builder *bl = NULL;
    rc = pm_builder_new(ty, &bl, err);
    size_t pi;
    if (!rc && is_part_col(x, f, &pi)) {
      for (size_t j = 0; !rc && j < o->n; j++)
        rc = o->part[j] < 0 ? pm_builder_append_from(bl, ty, b->children[f], o->src[j], err)
                            : pm_builder_append_from(bl, ty, &x->parts[o->part[j]]->vals[pi], 0, err);
    } else if (!rc) {
      rc = pm_builder_append_take(bl, ty, b->children[f], o->src, (int64_t)o->n, err);
    }
    if (!rc) {
      pm_array_release(out->children[f]);
      rc = pm_builder_finish(bl, out->children[f], err);
    }
    pm_builder_free(bl);
  }
  if (rc) pm_array_release(out);
  return rc;
}

int pm_kv_cross_rewrite(pm_kv_cross *x, const struct ArrowArray *b, const int8_t *kinds, const uint8_t *keep,
                        struct ArrowArray *out, int8_t **out_kinds, pm_error *err) {
  *out_kinds = NULL;
  memset(out, 0, sizeof *out);
  if (!x->bootstrapped) PM_TRY(bootstrap(x, err));
  kc_out o;
  memset(&o, 0, sizeof o);
  int rc = 0;
  for (int64_t r = 0; !rc && r < b->length; r++)
    if (!keep || keep[r]) rc = process_row(x, b, r, kinds[r], &o, err);
  if (!rc) rc = build(x, b, &o, out, err);
  if (!rc) {
    *out_kinds = o.kind;
    o.kind = NULL;
    free(x->out_bucket);
    x->out_bucket = o.bucket;
    o.bucket = NULL;
  }
  out_free(&o);
  return rc;
}

int32_t pm_kv_cross_bucket(const pm_kv_cross *x, int64_t r) { return x->out_bucket[r]; }

size_t pm_kv_cross_keys(const pm_kv_cross *x) { return x->n_entries; }

void pm_kv_cross_free(pm_kv_cross *x) {
  if (!x) return;
  for (size_t i = 0; i < x->n_parts; i++) part_free(x, x->parts[i]);
  free(x->parts);
  pm_slot_map_free(&x->part_map);
  free(x->entries);
  free(x->ht);
  pm_buf_free(&x->keys);
  pm_buf_free(&x->part_buf);
  pm_row_writer_free(&x->rw);
  free(x->vals);
  free(x->out_bucket);
  free(x->part_col);
  free(x->part_types);
  free(x->key_col);
  free(x->key_types);
  pm_type_free(&x->row_type);
  pm_table_free(x->t);
  free(x);
}
