/* DataSplit serialization, versions 1..9 (SEMANTICS.md 10.2). */
#include "meta/split.h"

#include <stdlib.h>
#include <string.h>

#include "meta/wire.h"

int pm_data_split_new(pm_data_split **out, pm_error *err) {
  pm_data_split *s = calloc(1, sizeof(*s));
  if (!s) return PM_NOMEM(err);
  pm_arena_init(&s->arena);
  *out = s;
  return 0;
}

void pm_data_split_free(pm_data_split *s) {
  if (!s) return;
  pm_arena_free(&s->arena);
  free(s);
}

static int32_t file_arity_for_split(int v) {
  if (v <= 1) return 15;
  if (v == 2) return 16;
  if (v <= 4) return 17;
  if (v <= 6) return 18;
  if (v == 7) return 19;
  if (v == 8) return 20;
  return 21;
}

int pm_data_split_decode_prefix(const uint8_t *data, size_t len, pm_data_split **out, size_t *consumed, int *version,
                                pm_error *err) {
  pm_wire_reader r;
  pm_wire_reader_init(&r, data, len, "DataSplit");
  pm_data_split *s = NULL;
  PM_TRY(pm_data_split_new(&s, err));
  int rc = 0;
  int v = 1;
  int64_t first = pm_wire_i64(&r);
  if (first == PM_DATA_SPLIT_MAGIC) {
    v = pm_wire_i32(&r);
    s->snapshot_id = pm_wire_i64(&r);
  } else {
    s->snapshot_id = first;
  }
  if (!r.why && (v < 1 || v > PM_DATA_SPLIT_VERSION)) {
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "DataSplit: version %d not supported", v);
    goto done;
  }
  if (pm_wire_read_partition(&r, &s->arena, &s->partition)) goto wire;
  s->bucket = pm_wire_i32(&r);
  s->bucket_path = pm_wire_utf(&r, &s->arena);
  if (v >= 6) {
    s->has_total_buckets = pm_wire_bool(&r);
    if (s->has_total_buckets) s->total_buckets = pm_wire_i32(&r);
  }
  if (pm_wire_i32(&r) != 0 && !r.why) pm_wire_fail(&r, "legacy before-files list not empty");
  if (pm_wire_i8(&r) != 0 && !r.why) pm_wire_fail(&r, "legacy before-deletion-files list present");
  int32_t n = pm_wire_i32(&r);
  if (r.why) goto wire;
  if (n < 0 || (size_t)n > (size_t)(r.end - r.p) / 4) {
    pm_wire_fail(&r, "bad data file count");
    goto wire;
  }
  s->n_data_files = (size_t)n;
  s->data_files = n ? pm_arena_alloc(&s->arena, (size_t)n * sizeof(pm_data_file_meta)) : NULL;
  if (n && !s->data_files) {
    rc = PM_NOMEM(err);
    goto done;
  }
  for (int32_t i = 0; i < n; i++) {
    rc = pm_wire_read_file_meta(&r, file_arity_for_split(v), &s->arena, &s->data_files[i], err);
    if (rc) goto done;
  }
  if (pm_wire_i8(&r) == 1) {
    int32_t dn = pm_wire_i32(&r);
    if (!r.why && dn != n) pm_wire_fail(&r, "deletion file count differs from data file count");
    if (r.why) goto wire;
    s->deletion_files = n ? pm_arena_alloc(&s->arena, (size_t)n * sizeof(pm_deletion_file)) : NULL;
    if (n && !s->deletion_files) {
      rc = PM_NOMEM(err);
      goto done;
    }
    for (int32_t i = 0; i < n && !r.why; i++) {
      pm_deletion_file *d = &s->deletion_files[i];
      memset(d, 0, sizeof(*d));
      d->cardinality = -1;
      if (pm_wire_i8(&r) == 0) continue;
      d->path = pm_wire_utf(&r, &s->arena);
      d->offset = pm_wire_i64(&r);
      d->length = pm_wire_i64(&r);
      if (v >= 4) d->cardinality = pm_wire_i64(&r);
    }
  }
  s->is_streaming = pm_wire_bool(&r);
  s->raw_convertible = pm_wire_bool(&r);
wire:
  if (r.why) rc = pm_wire_error(&r, err);
done:
  if (rc) {
    pm_data_split_free(s);
    return rc;
  }
  if (consumed) *consumed = (size_t)(r.p - r.base);
  if (version) *version = v;
  *out = s;
  return 0;
}

int pm_data_split_decode(const uint8_t *data, size_t len, pm_data_split **out, pm_error *err) {
  size_t used = 0;
  PM_TRY(pm_data_split_decode_prefix(data, len, out, &used, NULL, err));
  if (used != len) {
    pm_data_split_free(*out);
    *out = NULL;
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "DataSplit: %zu trailing bytes after offset %zu", len - used, used);
  }
  return 0;
}

int pm_data_split_selects_row_ids(const pm_data_split *s, int row_tracking) {
  if (!row_tracking) return 0;
  for (size_t i = 0; i < s->n_data_files; i++)
    if (!s->data_files[i].has_first_row_id) return 0;
  return 1;
}

static int cmp_range(const void *x, const void *y) {
  const int64_t *a = x, *b = y;
  if (a[0] != b[0]) return a[0] < b[0] ? -1 : 1;
  return a[1] < b[1] ? -1 : a[1] > b[1];
}

size_t pm_row_ranges_normalize(int64_t *v, size_t n) {
  if (n == 0) return 0;
  qsort(v, n, 2 * sizeof *v, cmp_range);
  size_t k = 0;
  for (size_t i = 1; i < n; i++) {
    if (v[2 * i] <= v[2 * k + 1] || v[2 * i] - 1 == v[2 * k + 1]) {
      if (v[2 * i + 1] > v[2 * k + 1]) v[2 * k + 1] = v[2 * i + 1];
    } else {
      k++;
      v[2 * k] = v[2 * i], v[2 * k + 1] = v[2 * i + 1];
    }
  }
  return k + 1;
}

int pm_data_split_set_row_ranges(pm_data_split *s, const int64_t *ranges, size_t n, pm_error *err) {
  int64_t *v = pm_arena_alloc(&s->arena, n * 2 * sizeof *v + 1);
  if (!v) return PM_NOMEM(err);
  if (n) memcpy(v, ranges, n * 2 * sizeof *v);
  s->row_ranges = v;
  s->n_row_ranges = n;
  s->has_row_ranges = 1;
  return 0;
}

int pm_data_split_copy(const pm_data_split *src, pm_data_split **out, pm_error *err) {
  *out = NULL;
  pm_buf b;
  pm_buf_init(&b);
  pm_data_split *d = NULL;
  int rc = pm_data_split_encode(src, &b, err);
  if (!rc) rc = pm_data_split_decode(b.data, b.len, &d, err);
  pm_buf_free(&b);
  if (!rc && src->has_row_ranges) rc = pm_data_split_set_row_ranges(d, src->row_ranges, src->n_row_ranges, err);
  if (rc) {
    pm_data_split_free(d);
    return rc;
  }
  *out = d;
  return 0;
}

int pm_data_split_encode(const pm_data_split *s, pm_buf *out, pm_error *err) {
  int bad = 0;
  pm_wire_put_i64(out, PM_DATA_SPLIT_MAGIC, &bad);
  pm_wire_put_i32(out, PM_DATA_SPLIT_VERSION, &bad);
  pm_wire_put_i64(out, s->snapshot_id, &bad);
  pm_wire_put_partition(out, s->partition, &bad);
  pm_wire_put_i32(out, s->bucket, &bad);
  pm_wire_put_utf(out, s->bucket_path ? s->bucket_path : "", &bad);
  pm_wire_put_i8(out, s->has_total_buckets ? 1 : 0, &bad);
  if (s->has_total_buckets) pm_wire_put_i32(out, s->total_buckets, &bad);
  pm_wire_put_i32(out, 0, &bad);
  pm_wire_put_i8(out, 0, &bad);
  pm_wire_put_i32(out, (int32_t)s->n_data_files, &bad);
  if (bad) return PM_NOMEM(err);
  for (size_t i = 0; i < s->n_data_files; i++) PM_TRY(pm_wire_put_file_meta(out, &s->data_files[i], 21, err));
  if (!s->deletion_files) {
    pm_wire_put_i8(out, 0, &bad);
  } else {
    pm_wire_put_i8(out, 1, &bad);
    pm_wire_put_i32(out, (int32_t)s->n_data_files, &bad);
    for (size_t i = 0; i < s->n_data_files; i++) {
      const pm_deletion_file *d = &s->deletion_files[i];
      if (!d->path) {
        pm_wire_put_i8(out, 0, &bad);
        continue;
      }
      pm_wire_put_i8(out, 1, &bad);
      pm_wire_put_utf(out, d->path, &bad);
      pm_wire_put_i64(out, d->offset, &bad);
      pm_wire_put_i64(out, d->length, &bad);
      pm_wire_put_i64(out, d->cardinality, &bad);
    }
  }
  pm_wire_put_i8(out, s->is_streaming ? 1 : 0, &bad);
  pm_wire_put_i8(out, s->raw_convertible ? 1 : 0, &bad);
  return bad ? PM_NOMEM(err) : 0;
}

/* ---------------- SplitSerializer ---------------- */

void pm_split_free(pm_split *s) {
  if (!s) return;
  pm_data_split_free(s->data);
  pm_split_free(s->inner);
  pm_arena_free(&s->arena);
  free(s);
}

static int read_deletion_list(pm_wire_reader *r, size_t n_files, pm_arena *a, pm_deletion_file **out) {
  *out = NULL;
  if (pm_wire_i8(r) != 1) return 0;
  int32_t n = pm_wire_i32(r);
  if (r->why) return -1;
  if (n < 0 || (size_t)n != n_files) {
    pm_wire_fail(r, "deletion file count differs from data file count");
    return -1;
  }
  pm_deletion_file *d = pm_arena_alloc(a, (size_t)n * sizeof(pm_deletion_file) + 1);
  if (!d) {
    pm_wire_fail(r, "out of memory");
    return -1;
  }
  for (int32_t i = 0; i < n && !r->why; i++) {
    memset(&d[i], 0, sizeof d[i]);
    d[i].cardinality = -1;
    if (pm_wire_i8(r) == 0) continue;
    d[i].path = pm_wire_utf(r, a);
    d[i].offset = pm_wire_i64(r);
    d[i].length = pm_wire_i64(r);
    d[i].cardinality = pm_wire_i64(r);
  }
  *out = d;
  return r->why ? -1 : 0;
}

static void put_deletion_list(pm_buf *b, const pm_deletion_file *d, size_t n, int *bad) {
  if (!d) {
    pm_wire_put_i8(b, 0, bad);
    return;
  }
  pm_wire_put_i8(b, 1, bad);
  pm_wire_put_i32(b, (int32_t)n, bad);
  for (size_t i = 0; i < n; i++) {
    if (!d[i].path) {
      pm_wire_put_i8(b, 0, bad);
      continue;
    }
    pm_wire_put_i8(b, 1, bad);
    pm_wire_put_utf(b, d[i].path, bad);
    pm_wire_put_i64(b, d[i].offset, bad);
    pm_wire_put_i64(b, d[i].length, bad);
    pm_wire_put_i64(b, d[i].cardinality, bad);
  }
}

static int read_files(pm_wire_reader *r, int32_t arity, pm_arena *a, pm_data_file_meta **out, size_t *n_out,
                      pm_error *err) {
  int32_t n = pm_wire_i32(r);
  *out = NULL;
  *n_out = 0;
  if (r->why) return pm_wire_error(r, err);
  if (n < 0 || (size_t)n > (size_t)(r->end - r->p) / 4) {
    pm_wire_fail(r, "bad file count");
    return pm_wire_error(r, err);
  }
  if (!n) return 0;
  *out = pm_arena_alloc(a, (size_t)n * sizeof(pm_data_file_meta));
  if (!*out) return PM_NOMEM(err);
  for (int32_t i = 0; i < n; i++) {
    PM_TRY(pm_wire_read_file_meta(r, arity, a, &(*out)[i], err));
    *n_out = (size_t)i + 1;
  }
  return 0;
}

static int decode_incremental(pm_wire_reader *r, pm_split *s, pm_error *err) {
  pm_incremental_split *x = &s->incremental;
  int32_t v = pm_wire_i32(r);
  if (!r->why && v != 1 && v != 2) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "IncrementalSplit version %d", v);
  int32_t arity = v == 1 ? 20 : 21;
  x->snapshot_id = pm_wire_i64(r);
  if (pm_wire_read_partition(r, &s->arena, &x->partition)) return pm_wire_error(r, err);
  x->bucket = pm_wire_i32(r);
  x->total_buckets = pm_wire_i32(r);
  PM_TRY(read_files(r, arity, &s->arena, &x->before_files, &x->n_before_files, err));
  if (read_deletion_list(r, x->n_before_files, &s->arena, &x->before_deletion_files)) return pm_wire_error(r, err);
  PM_TRY(read_files(r, arity, &s->arena, &x->after_files, &x->n_after_files, err));
  if (read_deletion_list(r, x->n_after_files, &s->arena, &x->after_deletion_files)) return pm_wire_error(r, err);
  x->is_streaming = pm_wire_bool(r);
  return r->why ? pm_wire_error(r, err) : 0;
}

/* DataSplit record at the reader position; advances the reader. */
static int decode_data_at(pm_wire_reader *r, pm_split *s, pm_error *err) {
  size_t used = 0;
  PM_TRY(pm_data_split_decode_prefix(r->p, (size_t)(r->end - r->p), &s->data, &used, NULL, err));
  r->p += used;
  return 0;
}

/* UTF pairs: int32 count + (UTF key, UTF value). */
static int read_utf_pairs(pm_wire_reader *r, pm_arena *a, const char ***keys, const char ***values, size_t *n) {
  int32_t cnt = pm_wire_i32(r);
  if (!r->why && (cnt < 0 || (size_t)cnt > (size_t)(r->end - r->p) / 4)) pm_wire_fail(r, "bad map size");
  if (r->why) return -1;
  *keys = pm_arena_alloc(a, (size_t)cnt * sizeof(char *) + 1);
  *values = pm_arena_alloc(a, (size_t)cnt * sizeof(char *) + 1);
  if (!*keys || !*values) {
    pm_wire_fail(r, "out of memory");
    return -1;
  }
  for (int32_t i = 0; i < cnt; i++) {
    (*keys)[i] = pm_wire_utf(r, a);
    (*values)[i] = pm_wire_utf(r, a);
  }
  *n = (size_t)cnt;
  return r->why ? -1 : 0;
}

/* int32 byte length (-1 = null) + UTF-8 (QueryAuthSplit strings). */
static const char *read_len_string(pm_wire_reader *r, pm_arena *a) {
  int32_t n = pm_wire_i32(r);
  if (r->why || n == -1) return NULL;
  if (n < 0 || (size_t)n > (size_t)(r->end - r->p)) {
    pm_wire_fail(r, "bad string length");
    return NULL;
  }
  char *s = pm_arena_strndup(a, (const char *)r->p, (size_t)n);
  if (!s) pm_wire_fail(r, "out of memory");
  r->p += n;
  return s;
}

static int read_len_strings(pm_wire_reader *r, pm_arena *a, const char ***out, size_t n) {
  *out = pm_arena_alloc(a, n * sizeof(char *) + 1);
  if (!*out) {
    pm_wire_fail(r, "out of memory");
    return -1;
  }
  for (size_t i = 0; i < n; i++) (*out)[i] = read_len_string(r, a);
  return r->why ? -1 : 0;
}

#define MAX_SPLIT_NESTING 8

static int decode_split_at(pm_wire_reader *r, int depth, pm_split **out, pm_error *err);

static int decode_chain(pm_wire_reader *r, pm_split *s, pm_error *err) {
  int32_t v = pm_wire_i32(r);
  if (!r->why && v != 3) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "ChainSplit version %d", v);
  if (pm_wire_read_partition(r, &s->arena, &s->logical_partition)) return pm_wire_error(r, err);
  PM_TRY(read_files(r, 21, &s->arena, &s->chain_files, &s->n_chain_files, err));
  if (read_utf_pairs(r, &s->arena, &s->bucket_path_keys, &s->bucket_path_values, &s->n_bucket_paths) ||
      read_utf_pairs(r, &s->arena, &s->branch_keys, &s->branch_values, &s->n_branches) ||
      read_deletion_list(r, s->n_chain_files, &s->arena, &s->chain_deletion_files))
    return pm_wire_error(r, err);
  return 0;
}

static int decode_query_auth(pm_wire_reader *r, int depth, pm_split *s, pm_error *err) {
  PM_TRY(decode_split_at(r, depth + 1, &s->inner, err));
  s->has_auth = pm_wire_bool(r);
  if (!s->has_auth) return r->why ? pm_wire_error(r, err) : 0;
  s->has_auth_filter = pm_wire_bool(r);
  if (s->has_auth_filter) {
    int32_t n = pm_wire_i32(r);
    if (!r->why && (n < 0 || (size_t)n > (size_t)(r->end - r->p) / 4)) pm_wire_fail(r, "bad filter count");
    if (r->why || read_len_strings(r, &s->arena, &s->auth_filter, (size_t)n)) return pm_wire_error(r, err);
    s->n_auth_filter = (size_t)n;
  }
  s->has_masks = pm_wire_bool(r);
  if (s->has_masks) {
    int32_t n = pm_wire_i32(r);
    if (!r->why && (n < 0 || (size_t)n > (size_t)(r->end - r->p) / 8)) pm_wire_fail(r, "bad column masking count");
    if (r->why) return pm_wire_error(r, err);
    s->mask_keys = pm_arena_alloc(&s->arena, (size_t)n * sizeof(char *) + 1);
    s->mask_values = pm_arena_alloc(&s->arena, (size_t)n * sizeof(char *) + 1);
    if (!s->mask_keys || !s->mask_values) return PM_NOMEM(err);
    for (int32_t i = 0; i < n; i++) {
      s->mask_keys[i] = read_len_string(r, &s->arena);
      s->mask_values[i] = read_len_string(r, &s->arena);
    }
    s->n_masks = (size_t)n;
  }
  return r->why ? pm_wire_error(r, err) : 0;
}

static int decode_split_at(pm_wire_reader *r, int depth, pm_split **out, pm_error *err) {
  if (depth > MAX_SPLIT_NESTING) return pm_errorf(err, PAIMON_ERR_CORRUPT, "split: nested too deeply");
  pm_split *s = calloc(1, sizeof(*s));
  if (!s) return PM_NOMEM(err);
  pm_arena_init(&s->arena);
  int rc = 0;
  int64_t magic = pm_wire_i64(r);
  int32_t version = pm_wire_i32(r);
  int32_t type = pm_wire_i32(r);
  if (r->why) {
    rc = pm_wire_error(r, err);
  } else if (magic != PM_SPLIT_MAGIC || version != 1) {
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "split: bad SplitSerializer magic/version (%d)", version);
  } else {
    s->type = (pm_split_type)type;
    switch (type) {
      case PM_SPLIT_DATA: rc = decode_data_at(r, s, err); break;
      case PM_SPLIT_FALLBACK_DATA:
        rc = decode_data_at(r, s, err);
        if (!rc) s->is_fallback = pm_wire_bool(r);
        break;
      case PM_SPLIT_INCREMENTAL: rc = decode_incremental(r, s, err); break;
      case PM_SPLIT_CHAIN: rc = decode_chain(r, s, err); break;
      case PM_SPLIT_QUERY_AUTH: rc = decode_query_auth(r, depth, s, err); break;
      case PM_SPLIT_FALLBACK:
        s->is_fallback = pm_wire_bool(r);
        if (r->why) rc = pm_wire_error(r, err);
        else rc = decode_split_at(r, depth + 1, &s->inner, err);
        break;
      case PM_SPLIT_INDEXED: {
        int64_t m = pm_wire_i64(r);
        int32_t iv = pm_wire_i32(r);
        if (!r->why && (m != PM_INDEXED_SPLIT_MAGIC || iv != 1)) {
          rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "split: bad IndexedSplit magic/version %d", iv);
          break;
        }
        if (!r->why) rc = decode_data_at(r, s, err);
        if (rc) break;
        int32_t n = pm_wire_i32(r);
        if (!r->why && (n < 0 || (size_t)n > (size_t)(r->end - r->p) / 16)) pm_wire_fail(r, "bad row range count");
        if (r->why) break;
        s->n_row_ranges = (size_t)n;
        s->row_ranges = pm_arena_alloc(&s->arena, (size_t)n * 2 * sizeof(int64_t) + 1);
        if (!s->row_ranges) {
          rc = PM_NOMEM(err);
          break;
        }
        for (int32_t i = 0; i < 2 * n; i++) s->row_ranges[i] = pm_wire_i64(r);
        if (pm_wire_bool(r)) {
          int32_t ns = pm_wire_i32(r);
          if (!r->why && (ns < 0 || (size_t)ns > (size_t)(r->end - r->p) / 4)) pm_wire_fail(r, "bad score count");
          if (r->why) break;
          s->n_scores = (size_t)ns;
          s->scores = pm_arena_alloc(&s->arena, (size_t)ns * sizeof(float) + 1);
          if (!s->scores) {
            rc = PM_NOMEM(err);
            break;
          }
          for (int32_t i = 0; i < ns; i++) {
            uint32_t bits = (uint32_t)pm_wire_i32(r);
            memcpy(&s->scores[i], &bits, 4);
          }
        }
        break;
      }
      default: rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "split: SplitSerializer type %d not supported", type); break;
    }
  }
  if (!rc && r->why) rc = pm_wire_error(r, err);
  if (rc) {
    pm_split_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

int pm_split_decode(const uint8_t *data, size_t len, pm_split **out, pm_error *err) {
  pm_wire_reader r;
  pm_wire_reader_init(&r, data, len, "split");
  pm_split *s = NULL;
  PM_TRY(decode_split_at(&r, 0, &s, err));
  if (r.p != r.end) {
    pm_split_free(s);
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "split: %zu trailing bytes", (size_t)(r.end - r.p));
  }
  *out = s;
  return 0;
}

static void put_len_string(pm_buf *b, const char *s, int *bad) {
  if (!s) {
    pm_wire_put_i32(b, -1, bad);
    return;
  }
  size_t n = strlen(s);
  pm_wire_put_i32(b, (int32_t)n, bad);
  if (pm_buf_append(b, s, n)) *bad = 1;
}

int pm_split_encode(const pm_split *s, pm_buf *out, pm_error *err) {
  int bad = 0;
  pm_wire_put_i64(out, PM_SPLIT_MAGIC, &bad);
  pm_wire_put_i32(out, 1, &bad);
  pm_wire_put_i32(out, (int32_t)s->type, &bad);
  if (bad) return PM_NOMEM(err);
  switch (s->type) {
    case PM_SPLIT_DATA:
    case PM_SPLIT_FALLBACK_DATA:
      if (!s->data) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "split without DataSplit");
      PM_TRY(pm_data_split_encode(s->data, out, err));
      if (s->type == PM_SPLIT_FALLBACK_DATA) pm_wire_put_i8(out, s->is_fallback ? 1 : 0, &bad);
      break;
    case PM_SPLIT_INDEXED:
      if (!s->data) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "split without DataSplit");
      pm_wire_put_i64(out, PM_INDEXED_SPLIT_MAGIC, &bad);
      pm_wire_put_i32(out, 1, &bad);
      if (bad) return PM_NOMEM(err);
      PM_TRY(pm_data_split_encode(s->data, out, err));
      pm_wire_put_i32(out, (int32_t)s->n_row_ranges, &bad);
      for (size_t i = 0; i < 2 * s->n_row_ranges; i++) pm_wire_put_i64(out, s->row_ranges[i], &bad);
      pm_wire_put_i8(out, s->scores ? 1 : 0, &bad);
      if (s->scores) {
        pm_wire_put_i32(out, (int32_t)s->n_scores, &bad);
        for (size_t i = 0; i < s->n_scores; i++) {
          uint32_t bits;
          memcpy(&bits, &s->scores[i], 4);
          pm_wire_put_i32(out, (int32_t)bits, &bad);
        }
      }
      break;
    case PM_SPLIT_INCREMENTAL: {
      const pm_incremental_split *x = &s->incremental;
      pm_wire_put_i32(out, 2, &bad);
      pm_wire_put_i64(out, x->snapshot_id, &bad);
      pm_wire_put_partition(out, x->partition, &bad);
      pm_wire_put_i32(out, x->bucket, &bad);
      pm_wire_put_i32(out, x->total_buckets, &bad);
      pm_wire_put_i32(out, (int32_t)x->n_before_files, &bad);
      if (bad) return PM_NOMEM(err);
      for (size_t i = 0; i < x->n_before_files; i++) PM_TRY(pm_wire_put_file_meta(out, &x->before_files[i], 21, err));
      put_deletion_list(out, x->before_deletion_files, x->n_before_files, &bad);
      pm_wire_put_i32(out, (int32_t)x->n_after_files, &bad);
      if (bad) return PM_NOMEM(err);
      for (size_t i = 0; i < x->n_after_files; i++) PM_TRY(pm_wire_put_file_meta(out, &x->after_files[i], 21, err));
      put_deletion_list(out, x->after_deletion_files, x->n_after_files, &bad);
      pm_wire_put_i8(out, x->is_streaming ? 1 : 0, &bad);
      break;
    }
    case PM_SPLIT_CHAIN:
      pm_wire_put_i32(out, 3, &bad);
      pm_wire_put_partition(out, s->logical_partition, &bad);
      pm_wire_put_i32(out, (int32_t)s->n_chain_files, &bad);
      if (bad) return PM_NOMEM(err);
      for (size_t i = 0; i < s->n_chain_files; i++) PM_TRY(pm_wire_put_file_meta(out, &s->chain_files[i], 21, err));
      pm_wire_put_i32(out, (int32_t)s->n_bucket_paths, &bad);
      for (size_t i = 0; i < s->n_bucket_paths; i++) {
        pm_wire_put_utf(out, s->bucket_path_keys[i], &bad);
        pm_wire_put_utf(out, s->bucket_path_values[i], &bad);
      }
      pm_wire_put_i32(out, (int32_t)s->n_branches, &bad);
      for (size_t i = 0; i < s->n_branches; i++) {
        pm_wire_put_utf(out, s->branch_keys[i], &bad);
        pm_wire_put_utf(out, s->branch_values[i], &bad);
      }
      put_deletion_list(out, s->chain_deletion_files, s->n_chain_files, &bad);
      break;
    case PM_SPLIT_QUERY_AUTH:
      if (!s->inner) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "QueryAuthSplit without inner split");
      PM_TRY(pm_split_encode(s->inner, out, err));
      pm_wire_put_i8(out, s->has_auth ? 1 : 0, &bad);
      if (s->has_auth) {
        pm_wire_put_i8(out, s->has_auth_filter ? 1 : 0, &bad);
        if (s->has_auth_filter) {
          pm_wire_put_i32(out, (int32_t)s->n_auth_filter, &bad);
          for (size_t i = 0; i < s->n_auth_filter; i++) put_len_string(out, s->auth_filter[i], &bad);
        }
        pm_wire_put_i8(out, s->has_masks ? 1 : 0, &bad);
        if (s->has_masks) {
          pm_wire_put_i32(out, (int32_t)s->n_masks, &bad);
          for (size_t i = 0; i < s->n_masks; i++) {
            put_len_string(out, s->mask_keys[i], &bad);
            put_len_string(out, s->mask_values[i], &bad);
          }
        }
      }
      break;
    case PM_SPLIT_FALLBACK:
      if (!s->inner) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "FallbackSplit without inner split");
      pm_wire_put_i8(out, s->is_fallback ? 1 : 0, &bad);
      if (bad) return PM_NOMEM(err);
      PM_TRY(pm_split_encode(s->inner, out, err));
      break;
    default: return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "split: cannot encode SplitSerializer type %d", (int)s->type);
  }
  return bad ? PM_NOMEM(err) : 0;
}
