/* Java wire samples (fixtures/wire): DataSplit v1..v9 and ManifestCommittable/CommitMessage
 * 0.7, 2..13 decode to their expected.json contents; current formats re-encode byte-identically. */
#include <jansson.h>

#include "harness.h"
#include "io/file.h"
#include "meta/split.h"
#include "meta/wire.h"

static json_t *load_json(const char *path) {
  json_error_t je;
  json_t *j = json_load_file(path, 0, &je);
  CHECK_MSG(j != NULL, "%s: %s", path, je.text);
  return j;
}

/* ---- expected.json normalization: rows -> {arity, hex}, creationTime -> millis, fileSource -> byte ---- */
static json_t *normalize(json_t *j) {
  if (json_is_object(j)) {
    json_t *hex = json_object_get(j, "sampleBytesHex");
    if (hex) {
      json_t *o = json_object();
      json_object_set(o, "arity", json_object_get(j, "arity"));
      json_object_set(o, "hex", hex);
      return o;
    }
    json_t *o = json_object();
    const char *k;
    json_t *v;
    json_object_foreach(j, k, v) {
      if (!strcmp(k, "creationTime") && json_is_object(v)) json_object_set(o, k, json_object_get(v, "epochMillis"));
      else if (!strcmp(k, "fileSource") && json_is_object(v)) json_object_set(o, k, json_object_get(v, "byteValue"));
      else json_object_set_new(o, k, normalize(v));
    }
    return o;
  }
  if (json_is_array(j)) {
    json_t *a = json_array();
    for (size_t i = 0; i < json_array_size(j); i++) json_array_append_new(a, normalize(json_array_get(j, i)));
    return a;
  }
  return json_incref(j);
}

static json_t *row_json(pm_bytes b) { /* manifest form: BE arity + row bytes */
  json_t *o = json_object();
  int32_t arity = b.len >= 4 ? (int32_t)(((uint32_t)b.data[0] << 24) | ((uint32_t)b.data[1] << 16) | ((uint32_t)b.data[2] << 8) | b.data[3]) : -1;
  char *s = malloc(2 * b.len + 1);
  s[0] = 0;
  for (size_t i = 4; i < b.len; i++) sprintf(s + 2 * (i - 4), "%02x", b.data[i]);
  json_object_set_new(o, "arity", json_integer(arity));
  json_object_set_new(o, "hex", json_string(s));
  free(s);
  return o;
}

static json_t *b64(pm_bytes b) {
  static const char *t = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  char *s = malloc(b.len / 3 * 4 + 8);
  size_t k = 0;
  for (size_t i = 0; i < b.len; i += 3) {
    uint32_t v = (uint32_t)b.data[i] << 16;
    if (i + 1 < b.len) v |= (uint32_t)b.data[i + 1] << 8;
    if (i + 2 < b.len) v |= b.data[i + 2];
    s[k++] = t[(v >> 18) & 63];
    s[k++] = t[(v >> 12) & 63];
    s[k++] = i + 1 < b.len ? t[(v >> 6) & 63] : '=';
    s[k++] = i + 2 < b.len ? t[v & 63] : '=';
  }
  s[k] = 0;
  json_t *j = json_string(s);
  free(s);
  return j;
}

static json_t *strs(const pm_str_list *l) {
  if (l->is_null) return json_null();
  json_t *a = json_array();
  for (int32_t i = 0; i < l->n; i++) json_array_append_new(a, l->items[i] ? json_string(l->items[i]) : json_null());
  return a;
}

static json_t *longs(const int64_t *v, int32_t n, int is_null, int64_t null_value) {
  if (is_null) return json_null();
  json_t *a = json_array();
  for (int32_t i = 0; i < n; i++) json_array_append_new(a, v[i] == null_value ? json_null() : json_integer(v[i]));
  return a;
}

static json_t *stats(const pm_simple_stats *s) {
  json_t *o = json_object();
  json_object_set_new(o, "minValues", row_json(s->min_values));
  json_object_set_new(o, "maxValues", row_json(s->max_values));
  json_object_set_new(o, "nullCounts", longs(s->null_counts, s->n_null_counts, s->null_counts_is_null, PM_NULL_COUNT_UNKNOWN));
  return o;
}

static json_t *file_json(const pm_data_file_meta *f) {
  json_t *o = json_object();
  json_object_set_new(o, "fileName", json_string(f->file_name));
  json_object_set_new(o, "fileSize", json_integer(f->file_size));
  json_object_set_new(o, "rowCount", json_integer(f->row_count));
  json_object_set_new(o, "minKey", row_json(f->min_key));
  json_object_set_new(o, "maxKey", row_json(f->max_key));
  json_object_set_new(o, "keyStats", stats(&f->key_stats));
  json_object_set_new(o, "valueStats", stats(&f->value_stats));
  json_object_set_new(o, "minSequenceNumber", json_integer(f->min_sequence_number));
  json_object_set_new(o, "maxSequenceNumber", json_integer(f->max_sequence_number));
  json_object_set_new(o, "schemaId", json_integer(f->schema_id));
  json_object_set_new(o, "level", json_integer(f->level));
  json_object_set_new(o, "extraFiles", strs(&f->extra_files));
  json_object_set_new(o, "creationTime", f->has_creation_time ? json_integer(f->creation_time_millis) : json_null());
  json_object_set_new(o, "deleteRowCount", f->has_delete_row_count ? json_integer(f->delete_row_count) : json_null());
  json_object_set_new(o, "embeddedIndex", f->has_embedded_index ? b64(f->embedded_index) : json_null());
  json_object_set_new(o, "fileSource", f->file_source >= 0 ? json_integer(f->file_source) : json_null());
  json_object_set_new(o, "valueStatsCols", strs(&f->value_stats_cols));
  json_object_set_new(o, "externalPath", f->external_path ? json_string(f->external_path) : json_null());
  json_object_set_new(o, "firstRowId", f->has_first_row_id ? json_integer(f->first_row_id) : json_null());
  json_object_set_new(o, "writeCols", strs(&f->write_cols));
  json_object_set_new(o, "columnMaxSequenceNumbers",
                      longs(f->write_cols_sequences, f->n_write_cols_sequences, f->write_cols_sequences_is_null, INT64_MIN));
  return o;
}

static json_t *files_json(const pm_file_list *l) {
  json_t *a = json_array();
  for (size_t i = 0; i < l->n; i++) json_array_append_new(a, file_json(&l->items[i]));
  return a;
}

static json_t *index_json(const pm_index_file_meta *m) {
  json_t *o = json_object();
  json_object_set_new(o, "indexType", json_string(m->index_type));
  json_object_set_new(o, "fileName", json_string(m->file_name));
  json_object_set_new(o, "fileSize", json_integer(m->file_size));
  json_object_set_new(o, "rowCount", json_integer(m->row_count));
  if (m->dv_ranges_is_null) {
    json_object_set_new(o, "dvRanges", json_null());
  } else {
    json_t *a = json_array();
    for (int32_t i = 0; i < m->n_dv_ranges; i++) {
      json_t *r = json_object();
      json_object_set_new(r, "dataFileName", json_string(m->dv_ranges[i].data_file_name));
      json_object_set_new(r, "offset", json_integer(m->dv_ranges[i].offset));
      json_object_set_new(r, "length", json_integer(m->dv_ranges[i].length));
      json_object_set_new(r, "cardinality", m->dv_ranges[i].has_cardinality ? json_integer(m->dv_ranges[i].cardinality) : json_null());
      json_array_append_new(a, r);
    }
    json_object_set_new(o, "dvRanges", a);
  }
  json_object_set_new(o, "externalPath", m->external_path ? json_string(m->external_path) : json_null());
  if (!m->has_global_index) {
    json_object_set_new(o, "globalIndexMeta", json_null());
  } else {
    const pm_global_index_meta *g = &m->global_index;
    json_t *go = json_object();
    json_object_set_new(go, "rowRangeStart", json_integer(g->row_range_start));
    json_object_set_new(go, "rowRangeEnd", json_integer(g->row_range_end));
    json_object_set_new(go, "indexFieldId", json_integer(g->index_field_id));
    if (g->extra_field_ids_is_null) {
      json_object_set_new(go, "extraFieldIds", json_null());
    } else {
      json_t *a = json_array();
      for (int32_t i = 0; i < g->n_extra_field_ids; i++) json_array_append_new(a, json_integer(g->extra_field_ids[i]));
      json_object_set_new(go, "extraFieldIds", a);
    }
    json_object_set_new(go, "indexMeta", g->has_index_meta ? b64(g->index_meta) : json_null());
    json_object_set_new(go, "sourceMeta", g->has_source_meta ? b64(g->source_meta) : json_null());
    json_object_set_new(o, "globalIndexMeta", go);
  }
  return o;
}

static json_t *indexes_json(const pm_index_list *l) {
  json_t *a = json_array();
  for (size_t i = 0; i < l->n; i++) json_array_append_new(a, index_json(&l->items[i]));
  return a;
}

static json_t *deletion_json(const pm_deletion_file *d) {
  if (!d->path) return json_null();
  json_t *o = json_object();
  json_object_set_new(o, "path", json_string(d->path));
  json_object_set_new(o, "offset", json_integer(d->offset));
  json_object_set_new(o, "length", json_integer(d->length));
  json_object_set_new(o, "cardinality", d->cardinality < 0 ? json_null() : json_integer(d->cardinality));
  return o;
}

/* Compares key by key so a failure names the field. */
static void compare(const char *what, json_t *mine, json_t *expected) {
  if (json_is_object(expected) && json_is_object(mine)) {
    const char *k;
    json_t *v;
    json_object_foreach(expected, k, v) {
      json_t *m = json_object_get(mine, k);
      if (!m) {
        /* the legacy "before" lists of DataSplit are always empty on the wire */
        CHECK_MSG(!strcmp(k, "beforeFiles") || !strcmp(k, "beforeDeletionFiles") || !strcmp(k, "splitTypeName") ||
                      !strcmp(k, "dataSplitVersion") || !strcmp(k, "chainSplitVersion"),
                  "%s.%s missing in decoded object", what, k);
        continue;
      }
      char sub[512];
      snprintf(sub, sizeof sub, "%s.%s", what, k);
      compare(sub, m, v);
    }
    return;
  }
  if (json_is_array(expected) && json_is_array(mine) && json_array_size(expected) == json_array_size(mine)) {
    for (size_t i = 0; i < json_array_size(expected); i++) {
      char sub[512];
      snprintf(sub, sizeof sub, "%s[%zu]", what, i);
      compare(sub, json_array_get(mine, i), json_array_get(expected, i));
    }
    return;
  }
  char *a = json_dumps(mine, JSON_ENCODE_ANY | JSON_COMPACT), *b = json_dumps(expected, JSON_ENCODE_ANY | JSON_COMPACT);
  CHECK_MSG(json_equal(mine, expected), "%s: ours %s, expected %s", what, a, b);
  free(a);
  free(b);
}

static void test_datasplits(void) {
  for (int v = 1; v <= 9; v++) {
    char path[512], jpath[600];
    snprintf(path, sizeof path, PM_SHARED("fixtures/wire/datasplit-v%d"), v);
    snprintf(jpath, sizeof jpath, "%s.expected.json", path);
    json_t *j = load_json(jpath);
    if (!j) continue;
    json_t *env = json_object_get(j, "javaSerializationEnvelope");
    size_t off = (size_t)json_integer_value(json_object_get(env, "payloadOffset"));
    size_t len = (size_t)json_integer_value(json_object_get(env, "payloadLength"));
    pm_buf b;
    pm_buf_init(&b);
    pm_error err = {0};
    CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
    CHECK(off + len <= b.len);
    pm_data_split *s = NULL;
    int version = 0;
    size_t used = 0;
    CHECK_OK(pm_data_split_decode_prefix(b.data + off, len, &s, &used, &version, &err), &err);
    if (s) {
      CHECK_EQ_INT(version, v);
      CHECK_EQ_INT(used, len);
      json_t *exp = normalize(json_object_get(j, "expected"));
      json_t *mine = json_object();
      json_object_set_new(mine, "snapshotId", json_integer(s->snapshot_id));
      json_object_set_new(mine, "partition", row_json(s->partition));
      json_object_set_new(mine, "bucket", json_integer(s->bucket));
      json_object_set_new(mine, "bucketPath", json_string(s->bucket_path));
      json_object_set_new(mine, "totalBuckets", s->has_total_buckets ? json_integer(s->total_buckets) : json_null());
      pm_file_list fl = {s->data_files, s->n_data_files};
      json_object_set_new(mine, "dataFiles", files_json(&fl));
      if (s->deletion_files) {
        json_t *a = json_array();
        for (size_t i = 0; i < s->n_data_files; i++) json_array_append_new(a, deletion_json(&s->deletion_files[i]));
        json_object_set_new(mine, "dataDeletionFiles", a);
      } else {
        json_object_set_new(mine, "dataDeletionFiles", json_null());
      }
      json_object_set_new(mine, "isStreaming", json_boolean(s->is_streaming));
      json_object_set_new(mine, "rawConvertible", json_boolean(s->raw_convertible));
      CHECK_EQ_INT(json_object_size(mine) + 2, json_object_size(exp)); /* + beforeFiles, beforeDeletionFiles */
      char what[64];
      snprintf(what, sizeof what, "datasplit-v%d", v);
      compare(what, mine, exp);
      if (v == 9) {
        pm_buf re;
        pm_buf_init(&re);
        CHECK_OK(pm_data_split_encode(s, &re, &err), &err);
        CHECK_MSG(re.len == len && memcmp(re.data, b.data + off, len) == 0, "datasplit-v9 re-encoding differs (%zu vs %zu bytes)",
                  re.len, len);
        pm_buf_free(&re);
      }
      json_decref(mine);
      json_decref(exp);
      pm_data_split_free(s);
    }
    /* truncations fail cleanly */
    for (size_t cut = 0; cut < len; cut += 7) {
      pm_data_split *t = NULL;
      CHECK(pm_data_split_decode(b.data + off, cut, &t, &err) != 0);
    }
    pm_buf_free(&b);
    json_decref(j);
  }
}

static json_t *message_json(const pm_commit_message *m) {
  json_t *o = json_object();
  json_object_set_new(o, "partition", row_json(m->partition));
  json_object_set_new(o, "bucket", json_integer(m->bucket));
  json_object_set_new(o, "totalBuckets", m->has_total_buckets ? json_integer(m->total_buckets) : json_null());
  json_t *d = json_object();
  json_object_set_new(d, "newFiles", files_json(&m->new_files));
  json_object_set_new(d, "deletedFiles", files_json(&m->deleted_files));
  json_object_set_new(d, "changelogFiles", files_json(&m->changelog_files));
  json_object_set_new(d, "newIndexFiles", indexes_json(&m->new_index_files));
  json_object_set_new(d, "deletedIndexFiles", indexes_json(&m->deleted_index_files));
  json_object_set_new(o, "dataIncrement", d);
  json_t *c = json_object();
  json_object_set_new(c, "compactBefore", files_json(&m->compact_before));
  json_object_set_new(c, "compactAfter", files_json(&m->compact_after));
  json_object_set_new(c, "changelogFiles", files_json(&m->compact_changelog));
  json_object_set_new(c, "newIndexFiles", indexes_json(&m->compact_new_index_files));
  json_object_set_new(c, "deletedIndexFiles", indexes_json(&m->compact_deleted_index_files));
  json_object_set_new(o, "compactIncrement", c);
  return o;
}

static void test_committables(void) {
  const char *names[] = {"manifest-committable-v2-0.7", "manifest-committable-v2", "manifest-committable-v3",
                         "manifest-committable-v4", "manifest-committable-v5", "manifest-committable-v6",
                         "manifest-committable-v7", "manifest-committable-v4-v7", "manifest-committable-v8",
                         "manifest-committable-v9", "manifest-committable-v10", "manifest-committable-v11",
                         "manifest-committable-v11-v5", "manifest-committable-v13-v5"};
  for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
    char path[512], jpath[600];
    snprintf(path, sizeof path, "%s/fixtures/wire/%s", PAIMON_SHARED_DIR, names[n]);
    snprintf(jpath, sizeof jpath, "%s.expected.json", path);
    json_t *j = load_json(jpath);
    if (!j) continue;
    int cv = (int)json_integer_value(json_object_get(json_object_get(j, "versions"), "manifestCommittableSerializerVersion"));
    pm_buf b;
    pm_buf_init(&b);
    pm_error err = {0};
    CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
    pm_manifest_committable *c = NULL;
    CHECK_OK(pm_committable_decode(b.data, b.len, cv, names[n], &c, &err), &err);
    if (c) {
      json_t *exp = normalize(json_object_get(j, "expected"));
      json_t *mine = json_object();
      json_object_set_new(mine, "identifier", json_integer(c->identifier));
      json_object_set_new(mine, "watermark", c->has_watermark ? json_integer(c->watermark) : json_null());
      if (cv <= 4) {
        json_t *a = json_array();
        for (size_t i = 0; i < c->n_log_offsets; i++) {
          json_t *o = json_object();
          json_object_set_new(o, "bucket", json_integer(c->log_offset_buckets[i]));
          json_object_set_new(o, "offset", json_integer(c->log_offsets[i]));
          json_array_append_new(a, o);
        }
        json_object_set_new(mine, "legacyLogOffsets", a);
      } else {
        json_object_set_new(mine, "legacyLogOffsets", json_null());
      }
      json_t *props = json_object();
      for (size_t i = 0; i < c->n_properties; i++) json_object_set_new(props, c->property_keys[i], json_string(c->property_values[i]));
      json_object_set_new(mine, "properties", props);
      json_t *msgs = json_array();
      for (size_t i = 0; i < c->n_messages; i++) json_array_append_new(msgs, message_json(&c->messages[i]));
      json_object_set_new(mine, "commitMessages", msgs);
      compare(names[n], mine, exp);
      CHECK_EQ_INT(c->messages_are_07, n == 0);
      if (!strcmp(names[n], "manifest-committable-v13-v5")) {
        pm_buf re;
        pm_buf_init(&re);
        CHECK_OK(pm_committable_encode(c, &re, &err), &err);
        CHECK_MSG(re.len == b.len && memcmp(re.data, b.data, b.len) == 0, "committable re-encoding differs (%zu vs %zu bytes)",
                  re.len, b.len);
        pm_buf_free(&re);
      }
      json_decref(mine);
      json_decref(exp);
      pm_committable_free(c);
    }
    for (size_t cut = 0; cut < b.len; cut += 61) {
      pm_manifest_committable *t = NULL;
      int rc = pm_committable_decode(b.data, cut, cv, "cut", &t, &err);
      CHECK(rc != 0);
      if (!rc) pm_committable_free(t);
    }
    pm_buf_free(&b);
    json_decref(j);
  }
}

static json_t *data_split_json(const pm_data_split *s) {
  json_t *mine = json_object();
  json_object_set_new(mine, "snapshotId", json_integer(s->snapshot_id));
  json_object_set_new(mine, "partition", row_json(s->partition));
  json_object_set_new(mine, "bucket", json_integer(s->bucket));
  json_object_set_new(mine, "bucketPath", json_string(s->bucket_path));
  json_object_set_new(mine, "totalBuckets", s->has_total_buckets ? json_integer(s->total_buckets) : json_null());
  pm_file_list fl = {s->data_files, s->n_data_files};
  json_object_set_new(mine, "dataFiles", files_json(&fl));
  if (s->deletion_files) {
    json_t *a = json_array();
    for (size_t i = 0; i < s->n_data_files; i++) json_array_append_new(a, deletion_json(&s->deletion_files[i]));
    json_object_set_new(mine, "dataDeletionFiles", a);
  } else {
    json_object_set_new(mine, "dataDeletionFiles", json_null());
  }
  json_object_set_new(mine, "isStreaming", json_boolean(s->is_streaming));
  json_object_set_new(mine, "rawConvertible", json_boolean(s->raw_convertible));
  return mine;
}

static json_t *deletions_json(const pm_deletion_file *d, size_t n) {
  if (!d) return json_null();
  json_t *a = json_array();
  for (size_t i = 0; i < n; i++) json_array_append_new(a, deletion_json(&d[i]));
  return a;
}

static json_t *split_json(const pm_split *s) {
  json_t *mine = NULL;
  if (s->type == PM_SPLIT_DATA || s->type == PM_SPLIT_FALLBACK_DATA) {
    mine = data_split_json(s->data);
    if (s->type == PM_SPLIT_FALLBACK_DATA) json_object_set_new(mine, "isFallback", json_boolean(s->is_fallback));
  } else if (s->type == PM_SPLIT_INDEXED) {
    mine = json_object();
    json_object_set_new(mine, "split", data_split_json(s->data));
    json_t *rr = json_array();
    for (size_t i = 0; i < s->n_row_ranges; i++) {
      json_t *o = json_object();
      json_object_set_new(o, "from", json_integer(s->row_ranges[2 * i]));
      json_object_set_new(o, "to", json_integer(s->row_ranges[2 * i + 1]));
      json_array_append_new(rr, o);
    }
    json_object_set_new(mine, "rowRanges", rr);
    if (s->scores) {
      json_t *sc = json_array();
      for (size_t i = 0; i < s->n_scores; i++) json_array_append_new(sc, json_real(s->scores[i]));
      json_object_set_new(mine, "scores", sc);
    } else {
      json_object_set_new(mine, "scores", json_null());
    }
  } else if (s->type == PM_SPLIT_INCREMENTAL) {
    const pm_incremental_split *x = &s->incremental;
    mine = json_object();
    json_object_set_new(mine, "snapshotId", json_integer(x->snapshot_id));
    json_object_set_new(mine, "partition", row_json(x->partition));
    json_object_set_new(mine, "bucket", json_integer(x->bucket));
    json_object_set_new(mine, "totalBuckets", json_integer(x->total_buckets));
    pm_file_list bf = {x->before_files, x->n_before_files}, af = {x->after_files, x->n_after_files};
    json_object_set_new(mine, "beforeFiles", files_json(&bf));
    json_object_set_new(mine, "beforeDeletionFiles", deletions_json(x->before_deletion_files, x->n_before_files));
    json_object_set_new(mine, "afterFiles", files_json(&af));
    json_object_set_new(mine, "afterDeletionFiles", deletions_json(x->after_deletion_files, x->n_after_files));
    json_object_set_new(mine, "isStreaming", json_boolean(x->is_streaming));
  } else if (s->type == PM_SPLIT_CHAIN) {
    mine = json_object();
    json_object_set_new(mine, "logicalPartition", row_json(s->logical_partition));
    pm_file_list fl = {s->chain_files, s->n_chain_files};
    json_object_set_new(mine, "dataFiles", files_json(&fl));
    json_t *bp = json_array(), *br = json_array();
    for (size_t i = 0; i < s->n_bucket_paths; i++)
      json_array_append_new(bp, json_pack("[ss]", s->bucket_path_keys[i], s->bucket_path_values[i]));
    for (size_t i = 0; i < s->n_branches; i++) json_array_append_new(br, json_pack("[ss]", s->branch_keys[i], s->branch_values[i]));
    json_object_set_new(mine, "fileBucketPathMapping", bp);
    json_object_set_new(mine, "fileBranchMapping", br);
    json_object_set_new(mine, "dataDeletionFiles", deletions_json(s->chain_deletion_files, s->n_chain_files));
  } else if (s->type == PM_SPLIT_QUERY_AUTH || s->type == PM_SPLIT_FALLBACK) {
    mine = json_object();
    json_t *inner = json_object();
    json_object_set_new(inner, "splitType", json_integer(s->inner->type));
    json_object_set_new(inner, "value", split_json(s->inner));
    json_object_set_new(mine, "split", inner);
    if (s->type == PM_SPLIT_FALLBACK) {
      json_object_set_new(mine, "isFallback", json_boolean(s->is_fallback));
    } else if (!s->has_auth) {
      json_object_set_new(mine, "authResult", json_null());
    } else {
      json_t *ar = json_object(), *f = json_array(), *m = json_array();
      for (size_t i = 0; i < s->n_auth_filter; i++)
        json_array_append_new(f, s->auth_filter[i] ? json_string(s->auth_filter[i]) : json_null());
      for (size_t i = 0; i < s->n_masks; i++) json_array_append_new(m, json_pack("[ss]", s->mask_keys[i], s->mask_values[i]));
      json_object_set_new(ar, "filter", s->has_auth_filter ? json_incref(f) : json_null());
      json_object_set_new(ar, "columnMasking", s->has_masks ? json_incref(m) : json_null());
      json_decref(f);
      json_decref(m);
      json_object_set_new(mine, "authResult", ar);
    }
  }
  return mine;
}

static void test_split_serializer(void) {
  const char *names[] = {"split-v1-data", "split-v1-fallback-data", "split-v1-indexed", "split-v1-incremental",
                         "split-v1-chain", "split-v1-query-auth", "split-v1-fallback"};
  for (size_t n = 0; n < sizeof(names) / sizeof(names[0]); n++) {
    char path[512], jpath[600];
    snprintf(path, sizeof path, "%s/fixtures/wire/%s", PAIMON_SHARED_DIR, names[n]);
    snprintf(jpath, sizeof jpath, "%s.expected.json", path);
    json_t *j = load_json(jpath);
    pm_buf b;
    pm_buf_init(&b);
    pm_error err = {0};
    CHECK_OK(pm_read_file(path, &b, 0, &err), &err);
    pm_split *s = NULL;
    int rc = pm_split_decode(b.data, b.len, &s, &err);
    CHECK_MSG(rc == 0, "%s: %s", names[n], err.message);
    if (s) {
      json_t *exp = normalize(json_object_get(j, "expected"));
      json_t *mine = split_json(s);
      compare(names[n], mine, exp);
      pm_buf re;
      pm_buf_init(&re);
      CHECK_OK(pm_split_encode(s, &re, &err), &err);
      CHECK_MSG(re.len == b.len && memcmp(re.data, b.data, b.len) == 0, "%s: re-encoding differs", names[n]);
      pm_buf_free(&re);
      json_decref(mine);
      json_decref(exp);
      pm_split_free(s);
    }
    for (size_t cut = 0; cut < b.len; cut += 11) {
      pm_split *t = NULL;
      CHECK(pm_split_decode(b.data, cut, &t, &err) != 0);
    }
    pm_buf_free(&b);
    json_decref(j);
  }
}

int main(void) {
  RUN_TEST(test_datasplits);
  RUN_TEST(test_committables);
  RUN_TEST(test_split_serializer);
  TEST_MAIN_END();
}
