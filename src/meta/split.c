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
