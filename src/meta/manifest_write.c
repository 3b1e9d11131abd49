/* Manifest encoders (Avro, as Java 2.0.0 / master write them, FORMAT.md 4.1-4.5) and copies. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "data/binary_row.h"
#include "format/avro/avro.h"
#include "io/file.h"
#include "meta/manifest.h"
#include "meta/manifest_internal.h"

/* Writer schemas, byte for byte as Java serializes them: the manifest as the
 * 2.0.0 release writes it (_FILE ends with _WRITE_COLS), or as master writes
 * it (+ _WRITE_COLS_SEQUENCES, only for entries that have them). The
 * manifest list and index manifest are the same in both. */
#define MANIFEST_SCHEMA_HEAD \
    "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":[" \
    "{\"name\":\"_VERSION\",\"type\":\"int\"},{\"name\":\"_KIND\",\"type\":\"int\"}," \
    "{\"name\":\"_PARTITION\",\"type\":\"bytes\"},{\"name\":\"_BUCKET\",\"type\":\"int\"}," \
    "{\"name\":\"_TOTAL_BUCKETS\",\"type\":\"int\"}," \
    "{\"name\":\"_FILE\",\"type\":{\"type\":\"record\",\"name\":\"record__FILE\",\"fields\":[" \
    "{\"name\":\"_FILE_NAME\",\"type\":\"string\"},{\"name\":\"_FILE_SIZE\",\"type\":\"long\"}," \
    "{\"name\":\"_ROW_COUNT\",\"type\":\"long\"},{\"name\":\"_MIN_KEY\",\"type\":\"bytes\"}," \
    "{\"name\":\"_MAX_KEY\",\"type\":\"bytes\"}," \
    "{\"name\":\"_KEY_STATS\",\"type\":{\"type\":\"record\",\"name\":\"record__FILE__KEY_STATS\",\"fields\":[" \
    "{\"name\":\"_MIN_VALUES\",\"type\":\"bytes\"},{\"name\":\"_MAX_VALUES\",\"type\":\"bytes\"}," \
    "{\"name\":\"_NULL_COUNTS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"long\"]}],\"default\":null}]}}," \
    "{\"name\":\"_VALUE_STATS\",\"type\":{\"type\":\"record\",\"name\":\"record__FILE__VALUE_STATS\",\"fields\":[" \
    "{\"name\":\"_MIN_VALUES\",\"type\":\"bytes\"},{\"name\":\"_MAX_VALUES\",\"type\":\"bytes\"}," \
    "{\"name\":\"_NULL_COUNTS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"long\"]}],\"default\":null}]}}," \
    "{\"name\":\"_MIN_SEQUENCE_NUMBER\",\"type\":\"long\"},{\"name\":\"_MAX_SEQUENCE_NUMBER\",\"type\":\"long\"}," \
    "{\"name\":\"_SCHEMA_ID\",\"type\":\"long\"},{\"name\":\"_LEVEL\",\"type\":\"int\"}," \
    "{\"name\":\"_EXTRA_FILES\",\"type\":{\"type\":\"array\",\"items\":\"string\"}}," \
    "{\"name\":\"_CREATION_TIME\",\"type\":[\"null\",{\"type\":\"long\",\"logicalType\":\"timestamp-millis\"}],\"default\":null}," \
    "{\"name\":\"_DELETE_ROW_COUNT\",\"type\":[\"null\",\"long\"],\"default\":null}," \
    "{\"name\":\"_EMBEDDED_FILE_INDEX\",\"type\":[\"null\",\"bytes\"],\"default\":null}," \
    "{\"name\":\"_FILE_SOURCE\",\"type\":[\"null\",\"int\"],\"default\":null}," \
    "{\"name\":\"_VALUE_STATS_COLS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"string\"}],\"default\":null}," \
    "{\"name\":\"_EXTERNAL_PATH\",\"type\":[\"null\",\"string\"],\"default\":null}," \
    "{\"name\":\"_FIRST_ROW_ID\",\"type\":[\"null\",\"long\"],\"default\":null}," \
    "{\"name\":\"_WRITE_COLS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"string\"}],\"default\":null}"

#define MANIFEST_SCHEMA_TAIL_2_0 "]}}]}"
#define MANIFEST_SCHEMA_TAIL_MASTER \
  ",{\"name\":\"_WRITE_COLS_SEQUENCES\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"long\"}],\"default\":null}]}}]}"
static const char MANIFEST_SCHEMA[] = MANIFEST_SCHEMA_HEAD MANIFEST_SCHEMA_TAIL_2_0;
static const char MANIFEST_SCHEMA_MASTER[] = MANIFEST_SCHEMA_HEAD MANIFEST_SCHEMA_TAIL_MASTER;


static const char LIST_SCHEMA[] =
    "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":["
    "{\"name\":\"_VERSION\",\"type\":\"int\"},{\"name\":\"_FILE_NAME\",\"type\":\"string\"},"
    "{\"name\":\"_FILE_SIZE\",\"type\":\"long\"},{\"name\":\"_NUM_ADDED_FILES\",\"type\":\"long\"},"
    "{\"name\":\"_NUM_DELETED_FILES\",\"type\":\"long\"},"
    "{\"name\":\"_PARTITION_STATS\",\"type\":{\"type\":\"record\",\"name\":\"record__PARTITION_STATS\",\"fields\":["
    "{\"name\":\"_MIN_VALUES\",\"type\":\"bytes\"},{\"name\":\"_MAX_VALUES\",\"type\":\"bytes\"},"
    "{\"name\":\"_NULL_COUNTS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",\"long\"]}],\"default\":null}]}},"
    "{\"name\":\"_SCHEMA_ID\",\"type\":\"long\"},"
    "{\"name\":\"_MIN_BUCKET\",\"type\":[\"null\",\"int\"],\"default\":null},"
    "{\"name\":\"_MAX_BUCKET\",\"type\":[\"null\",\"int\"],\"default\":null},"
    "{\"name\":\"_MIN_LEVEL\",\"type\":[\"null\",\"int\"],\"default\":null},"
    "{\"name\":\"_MAX_LEVEL\",\"type\":[\"null\",\"int\"],\"default\":null},"
    "{\"name\":\"_MIN_ROW_ID\",\"type\":[\"null\",\"long\"],\"default\":null},"
    "{\"name\":\"_MAX_ROW_ID\",\"type\":[\"null\",\"long\"],\"default\":null}]}";

static const char INDEX_SCHEMA[] =
    "{\"type\":\"record\",\"name\":\"record\",\"namespace\":\"org.apache.paimon.avro.generated\",\"fields\":["
    "{\"name\":\"_VERSION\",\"type\":\"int\"},{\"name\":\"_KIND\",\"type\":\"int\"},"
    "{\"name\":\"_PARTITION\",\"type\":\"bytes\"},{\"name\":\"_BUCKET\",\"type\":\"int\"},"
    "{\"name\":\"_INDEX_TYPE\",\"type\":\"string\"},{\"name\":\"_FILE_NAME\",\"type\":\"string\"},"
    "{\"name\":\"_FILE_SIZE\",\"type\":\"long\"},{\"name\":\"_ROW_COUNT\",\"type\":\"long\"},"
    "{\"name\":\"_DELETIONS_VECTORS_RANGES\",\"type\":[\"null\",{\"type\":\"array\",\"items\":[\"null\",{\"type\":\"record\","
    "\"name\":\"record__DELETIONS_VECTORS_RANGES\",\"fields\":[{\"name\":\"f0\",\"type\":\"string\"},"
    "{\"name\":\"f1\",\"type\":\"int\"},{\"name\":\"f2\",\"type\":\"int\"},"
    "{\"name\":\"_CARDINALITY\",\"type\":[\"null\",\"long\"],\"default\":null}]}]}],\"default\":null},"
    "{\"name\":\"_EXTERNAL_PATH\",\"type\":[\"null\",\"string\"],\"default\":null},"
    "{\"name\":\"_GLOBAL_INDEX\",\"type\":[\"null\",{\"type\":\"record\",\"name\":\"record__GLOBAL_INDEX\",\"fields\":["
    "{\"name\":\"_ROW_RANGE_START\",\"type\":\"long\"},{\"name\":\"_ROW_RANGE_END\",\"type\":\"long\"},"
    "{\"name\":\"_INDEX_FIELD_ID\",\"type\":\"int\"},"
    "{\"name\":\"_EXTRA_FIELD_IDS\",\"type\":[\"null\",{\"type\":\"array\",\"items\":\"int\"}],\"default\":null},"
    "{\"name\":\"_INDEX_META\",\"type\":[\"null\",\"bytes\"],\"default\":null},"
    "{\"name\":\"_SOURCE_META\",\"type\":[\"null\",\"bytes\"],\"default\":null}]}],\"default\":null}]}";

/* ---------------- container (the one Avro container writer, on a sink) ---------------- */

typedef void (*encode_fn)(pm_avro_encoder *e, const void *items, size_t i);

/* Writes n records as an Avro container to sink (owned: committed or discarded here). */
void pm_manifest_avro_options(const pm_manifest_write_opts *opts, int create_if_absent, pm_avro_writer_options *ao) {
  memset(ao, 0, sizeof *ao);
  ao->codec = opts ? opts->codec : PM_CODEC_ZSTD;
  ao->level = opts && opts->level ? opts->level : 1;
  ao->sync = opts ? opts->sync : NULL;
  ao->no_overwrite = create_if_absent;
}

static int write_container(pm_out_file *sink, const char *schema, const pm_manifest_write_opts *opts,
                           int create_if_absent, encode_fn fn, const void *items, size_t n, uint64_t *size,
                           pm_error *err) {
  pm_avro_writer_options ao;
  pm_manifest_avro_options(opts, create_if_absent, &ao);
  pm_avro_writer *w;
  PM_TRY(pm_avro_writer_open_sink(sink, schema, &ao, &w, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    fn(pm_avro_writer_encoder(w), items, i);
    rc = pm_avro_writer_end_record(w, err);
  }
  if (rc) {
    pm_avro_writer_abort(w);
    return rc;
  }
  return pm_avro_writer_commit(w, size, err);
}

static int encode_container(const char *schema, const pm_manifest_write_opts *opts, encode_fn fn, const void *items,
                            size_t n, const char *what, pm_buf *out, pm_error *err) {
  pm_out_file *sink;
  PM_TRY(pm_out_open_buf(out, what, &sink, err));
  return write_container(sink, schema, opts, 0, fn, items, n, NULL, err);
}

/* Avro (schema, fn) or, when opts->orc, ORC (kind, item_size): create-if-absent. */
static int write_container_file(pm_fs *fs, const char *path, const char *schema, const pm_manifest_write_opts *opts,
                                encode_fn fn, pm_manifest_file_kind kind, size_t item_size, const void *items,
                                size_t n, uint64_t *size, pm_error *err) {
  pm_out_file *sink;
  PM_TRY(pm_fs_create(fs, path, &sink, err));
  if (opts && opts->orc) return pm_manifest_orc_write_all(sink, kind, items, item_size, n, opts, 1, size, err);
  return write_container(sink, schema, opts, 1, fn, items, n, size, err);
}

/* ---------------- record encoding ---------------- */

static void put_bytes(pm_avro_encoder *e, pm_bytes b) { pm_avro_put_bytes(e, b.data ? b.data : (const uint8_t *)"", b.len); }

static void put_stats(pm_avro_encoder *e, const pm_simple_stats *s) {
  put_bytes(e, s->min_values);
  put_bytes(e, s->max_values);
  if (s->null_counts_is_null) {
    pm_avro_put_union(e, 0);
    return;
  }
  pm_avro_put_union(e, 1);
  if (s->n_null_counts > 0) {
    pm_avro_put_block_count(e, s->n_null_counts);
    for (int32_t i = 0; i < s->n_null_counts; i++) {
      if (s->null_counts[i] == PM_NULL_COUNT_UNKNOWN) {
        pm_avro_put_union(e, 0);
      } else {
        pm_avro_put_union(e, 1);
        pm_avro_put_long(e, s->null_counts[i]);
      }
    }
  }
  pm_avro_put_block_end(e);
}

static void put_str_array(pm_avro_encoder *e, const pm_str_list *l) {
  if (l->n > 0) {
    pm_avro_put_block_count(e, l->n);
    for (int32_t i = 0; i < l->n; i++) pm_avro_put_string(e, l->items[i] ? l->items[i] : "");
  }
  pm_avro_put_block_end(e);
}

static void put_opt_str_array(pm_avro_encoder *e, const pm_str_list *l) {
  if (l->is_null) {
    pm_avro_put_union(e, 0);
    return;
  }
  pm_avro_put_union(e, 1);
  put_str_array(e, l);
}

static void put_opt_long(pm_avro_encoder *e, int has, int64_t v) {
  pm_avro_put_union(e, has ? 1 : 0);
  if (has) pm_avro_put_long(e, v);
}

static void put_opt_string(pm_avro_encoder *e, const char *s) {
  pm_avro_put_union(e, s ? 1 : 0);
  if (s) pm_avro_put_string(e, s);
}

void pm_manifest_put_entry(pm_avro_encoder *e, const pm_manifest_entry *me, int master_schema) {
  const pm_data_file_meta *f = &me->file;
  pm_avro_put_int(e, 2);
  pm_avro_put_int(e, me->kind);
  put_bytes(e, me->partition);
  pm_avro_put_int(e, me->bucket);
  pm_avro_put_int(e, me->total_buckets);
  pm_avro_put_string(e, f->file_name ? f->file_name : "");
  pm_avro_put_long(e, f->file_size);
  pm_avro_put_long(e, f->row_count);
  put_bytes(e, f->min_key);
  put_bytes(e, f->max_key);
  put_stats(e, &f->key_stats);
  put_stats(e, &f->value_stats);
  pm_avro_put_long(e, f->min_sequence_number);
  pm_avro_put_long(e, f->max_sequence_number);
  pm_avro_put_long(e, f->schema_id);
  pm_avro_put_int(e, f->level);
  put_str_array(e, &f->extra_files);
  put_opt_long(e, f->has_creation_time, f->creation_time_millis);
  put_opt_long(e, f->has_delete_row_count, f->delete_row_count);
  pm_avro_put_union(e, f->has_embedded_index ? 1 : 0);
  if (f->has_embedded_index) put_bytes(e, f->embedded_index);
  put_opt_long(e, f->file_source >= 0, f->file_source);
  put_opt_str_array(e, &f->value_stats_cols);
  put_opt_string(e, f->external_path);
  put_opt_long(e, f->has_first_row_id, f->first_row_id);
  put_opt_str_array(e, &f->write_cols);
  if (!master_schema) return; /* 2.0.0: no _WRITE_COLS_SEQUENCES */
  if (f->write_cols_sequences_is_null) {
    pm_avro_put_union(e, 0);
  } else {
    pm_avro_put_union(e, 1);
    if (f->n_write_cols_sequences > 0) {
      pm_avro_put_block_count(e, f->n_write_cols_sequences);
      for (int32_t i = 0; i < f->n_write_cols_sequences; i++) pm_avro_put_long(e, f->write_cols_sequences[i]);
    }
    pm_avro_put_block_end(e);
  }
}

static void encode_entry(pm_avro_encoder *e, const void *items, size_t i) {
  pm_manifest_put_entry(e, &((const pm_manifest_entry *)items)[i], 0);
}

static void encode_entry_master(pm_avro_encoder *e, const void *items, size_t i) {
  pm_manifest_put_entry(e, &((const pm_manifest_entry *)items)[i], 1);
}

int pm_manifest_needs_master_schema(const pm_manifest_entry *entries, size_t n) {
  for (size_t i = 0; i < n; i++)
    if (!entries[i].file.write_cols_sequences_is_null) return 1;
  return 0;
}

const char *pm_manifest_schema_json(int master) { return master ? MANIFEST_SCHEMA_MASTER : MANIFEST_SCHEMA; }

/* ORC (opts->orc) into a memory sink. */
static int encode_orc(pm_manifest_file_kind kind, const void *items, size_t item_size, size_t n,
                      const pm_manifest_write_opts *opts, const char *what, pm_buf *out, pm_error *err) {
  pm_out_file *sink;
  PM_TRY(pm_out_open_buf(out, what, &sink, err));
  return pm_manifest_orc_write_all(sink, kind, items, item_size, n, opts, 0, NULL, err);
}

int pm_manifest_encode(const pm_manifest_entry *entries, size_t n, const pm_manifest_write_opts *opts, pm_buf *out,
                       pm_error *err) {
  if (opts && opts->orc) return encode_orc(PM_MFK_MANIFEST, entries, sizeof *entries, n, opts, "manifest", out, err);
  int master = pm_manifest_needs_master_schema(entries, n);
  return encode_container(pm_manifest_schema_json(master), opts, master ? encode_entry_master : encode_entry, entries, n,
                          "manifest", out, err);
}

static void encode_list_entry(pm_avro_encoder *e, const void *items, size_t i) {
  const pm_manifest_file_meta *m = &((const pm_manifest_file_meta *)items)[i];
  pm_avro_put_int(e, 2);
  pm_avro_put_string(e, m->file_name ? m->file_name : "");
  pm_avro_put_long(e, m->file_size);
  pm_avro_put_long(e, m->num_added_files);
  pm_avro_put_long(e, m->num_deleted_files);
  put_stats(e, &m->partition_stats);
  pm_avro_put_long(e, m->schema_id);
  put_opt_long(e, m->has_bucket_range, m->min_bucket);
  put_opt_long(e, m->has_bucket_range, m->max_bucket);
  put_opt_long(e, m->has_level_range, m->min_level);
  put_opt_long(e, m->has_level_range, m->max_level);
  put_opt_long(e, m->has_row_id_range, m->min_row_id);
  put_opt_long(e, m->has_row_id_range, m->max_row_id);
}

int pm_manifest_list_encode(const pm_manifest_file_meta *metas, size_t n, const pm_manifest_write_opts *opts,
                            pm_buf *out, pm_error *err) {
  if (opts && opts->orc) return encode_orc(PM_MFK_LIST, metas, sizeof *metas, n, opts, "manifest list", out, err);
  return encode_container(LIST_SCHEMA, opts, encode_list_entry, metas, n, "manifest list", out, err);
}

static void encode_index_entry(pm_avro_encoder *e, const void *items, size_t i) {
  const pm_index_manifest_entry *ie = &((const pm_index_manifest_entry *)items)[i];
  const pm_index_file_meta *m = &ie->index_file;
  pm_avro_put_int(e, 1);
  pm_avro_put_int(e, ie->kind);
  put_bytes(e, ie->partition);
  pm_avro_put_int(e, ie->bucket);
  pm_avro_put_string(e, m->index_type ? m->index_type : "");
  pm_avro_put_string(e, m->file_name ? m->file_name : "");
  pm_avro_put_long(e, m->file_size);
  pm_avro_put_long(e, m->row_count);
  if (m->dv_ranges_is_null) {
    pm_avro_put_union(e, 0);
  } else {
    pm_avro_put_union(e, 1);
    if (m->n_dv_ranges > 0) {
      pm_avro_put_block_count(e, m->n_dv_ranges);
      for (int32_t i = 0; i < m->n_dv_ranges; i++) {
        const pm_dv_range *r = &m->dv_ranges[i];
        pm_avro_put_union(e, 1);
        pm_avro_put_string(e, r->data_file_name ? r->data_file_name : "");
        pm_avro_put_int(e, r->offset);
        pm_avro_put_int(e, r->length);
        put_opt_long(e, r->has_cardinality, r->cardinality);
      }
    }
    pm_avro_put_block_end(e);
  }
  put_opt_string(e, m->external_path);
  if (!m->has_global_index) {
    pm_avro_put_union(e, 0);
    return;
  }
  const pm_global_index_meta *g = &m->global_index;
  pm_avro_put_union(e, 1);
  pm_avro_put_long(e, g->row_range_start);
  pm_avro_put_long(e, g->row_range_end);
  pm_avro_put_int(e, g->index_field_id);
  if (g->extra_field_ids_is_null) {
    pm_avro_put_union(e, 0);
  } else {
    pm_avro_put_union(e, 1);
    if (g->n_extra_field_ids > 0) {
      pm_avro_put_block_count(e, g->n_extra_field_ids);
      for (int32_t i = 0; i < g->n_extra_field_ids; i++) pm_avro_put_int(e, g->extra_field_ids[i]);
    }
    pm_avro_put_block_end(e);
  }
  pm_avro_put_union(e, g->has_index_meta ? 1 : 0);
  if (g->has_index_meta) put_bytes(e, g->index_meta);
  pm_avro_put_union(e, g->has_source_meta ? 1 : 0);
  if (g->has_source_meta) put_bytes(e, g->source_meta);
}

int pm_index_manifest_encode(const pm_index_manifest_entry *entries, size_t n, const pm_manifest_write_opts *opts,
                             pm_buf *out, pm_error *err) {
  if (opts && opts->orc) return encode_orc(PM_MFK_INDEX, entries, sizeof *entries, n, opts, "index manifest", out, err);
  return encode_container(INDEX_SCHEMA, opts, encode_index_entry, entries, n, "index manifest", out, err);
}

/* ---------------- file writers ---------------- */

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* Partition stats over the entries' partitions ("all mode"). */
static int partition_stats(const pm_manifest_entry *entries, size_t n, const pm_data_type *ptype, pm_arena *arena,
                           pm_simple_stats *out, pm_error *err) {
  size_t arity = ptype ? ptype->n_fields : 0;
  if (arity == 0) {
    pm_simple_stats_empty(out);
    return 0;
  }
  pm_value *mins = calloc(arity, sizeof(pm_value)), *maxs = calloc(arity, sizeof(pm_value));
  int64_t *nulls = pm_arena_alloc(arena, arity * sizeof(int64_t));
  int rc = 0;
  if (!mins || !maxs || !nulls) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < arity; i++) nulls[i] = 0;
  for (size_t e = 0; !rc && e < n; e++) {
    pm_binary_row row;
    rc = pm_binary_row_open_serialized(entries[e].partition.data, entries[e].partition.len, "_PARTITION", &row, err);
    if (!rc && (size_t)row.arity != arity)
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition of arity %d, partition type has %zu fields", row.arity, arity);
    for (size_t i = 0; !rc && i < arity; i++) {
      pm_value v;
      rc = pm_binary_row_get(&row, (int32_t)i, ptype->fields[i].type, &v, err);
      if (rc) break;
      if (v.kind == PM_V_NULL) {
        nulls[i]++;
        continue;
      }
      if (mins[i].kind == PM_V_NULL || pm_value_compare(&v, &mins[i]) < 0) mins[i] = v;
      if (maxs[i].kind == PM_V_NULL || pm_value_compare(&v, &maxs[i]) > 0) maxs[i] = v;
    }
  }
  pm_binary_row_writer wmin, wmax;
  int wi = 0;
  pm_buf bmin, bmax;
  pm_buf_init(&bmin);
  pm_buf_init(&bmax);
  if (!rc) rc = pm_row_writer_init(&wmin, (int32_t)arity, err);
  if (!rc) {
    wi = 1;
    rc = pm_row_writer_init(&wmax, (int32_t)arity, err);
    if (!rc) wi = 2;
  }
  for (size_t i = 0; !rc && i < arity; i++) {
    pm_data_type t = *ptype->fields[i].type;
    t.nullable = 1;
    rc = pm_row_writer_write(&wmin, (int32_t)i, &t, &mins[i], err);
    if (!rc) rc = pm_row_writer_write(&wmax, (int32_t)i, &t, &maxs[i], err);
  }
  if (!rc) rc = pm_row_writer_finish(&wmin, 1, &bmin, err);
  if (!rc) rc = pm_row_writer_finish(&wmax, 1, &bmax, err);
  if (!rc) {
    memset(out, 0, sizeof(*out));
    out->min_values.data = pm_arena_memdup(arena, bmin.data, bmin.len);
    out->min_values.len = bmin.len;
    out->max_values.data = pm_arena_memdup(arena, bmax.data, bmax.len);
    out->max_values.len = bmax.len;
    out->null_counts = nulls;
    out->n_null_counts = (int32_t)arity;
    if (!out->min_values.data || !out->max_values.data) rc = PM_NOMEM(err);
  }
  if (wi >= 1) pm_row_writer_free(&wmin);
  if (wi >= 2) pm_row_writer_free(&wmax);
  pm_buf_free(&bmin);
  pm_buf_free(&bmax);
  free(mins);
  free(maxs);
  return rc;
}

int pm_manifest_meta_fill(const pm_manifest_entry *entries, size_t n, const pm_data_type *partition_type,
                          int64_t default_schema_id, const char *file_name, int64_t file_size, pm_arena *arena,
                          pm_manifest_file_meta *meta, pm_error *err) {
  memset(meta, 0, sizeof(*meta));
  meta->file_name = pm_arena_strdup(arena, file_name);
  if (!meta->file_name) return PM_NOMEM(err);
  meta->file_size = file_size;
  meta->schema_id = n ? INT64_MIN : default_schema_id;
  int row_ids = n > 0;
  for (size_t i = 0; i < n; i++) {
    const pm_manifest_entry *e = &entries[i];
    if (e->kind == PM_FILE_ADD) meta->num_added_files++;
    else meta->num_deleted_files++;
    if (e->file.schema_id > meta->schema_id) meta->schema_id = e->file.schema_id;
    if (i == 0 || e->bucket < meta->min_bucket) meta->min_bucket = e->bucket;
    if (i == 0 || e->bucket > meta->max_bucket) meta->max_bucket = e->bucket;
    if (i == 0 || e->file.level < meta->min_level) meta->min_level = e->file.level;
    if (i == 0 || e->file.level > meta->max_level) meta->max_level = e->file.level;
    if (!e->file.has_first_row_id) {
      row_ids = 0;
    } else {
      int64_t lo = e->file.first_row_id, hi = e->file.first_row_id + e->file.row_count - 1;
      if (i == 0 || lo < meta->min_row_id) meta->min_row_id = lo;
      if (i == 0 || hi > meta->max_row_id) meta->max_row_id = hi;
    }
  }
  meta->has_bucket_range = meta->has_level_range = n > 0;
  meta->has_row_id_range = row_ids;
  return partition_stats(entries, n, partition_type, arena, &meta->partition_stats, err);
}

int pm_manifest_write(pm_fs *fs, const char *path, const pm_manifest_entry *entries, size_t n,
                      const pm_data_type *partition_type, int64_t default_schema_id,
                      const pm_manifest_write_opts *opts, pm_arena *arena, pm_manifest_file_meta *meta,
                      pm_error *err) {
  uint64_t size = 0;
  int master = pm_manifest_needs_master_schema(entries, n);
  int rc = write_container_file(fs, path, pm_manifest_schema_json(master), opts, master ? encode_entry_master : encode_entry,
                                PM_MFK_MANIFEST, sizeof *entries, entries, n, &size, err);
  if (!rc && meta)
    rc = pm_manifest_meta_fill(entries, n, partition_type, default_schema_id, base_name(path), (int64_t)size, arena,
                               meta, err);
  return rc;
}

int pm_manifest_list_write(pm_fs *fs, const char *path, const pm_manifest_file_meta *metas, size_t n,
                           const pm_manifest_write_opts *opts, int64_t *file_size, pm_error *err) {
  uint64_t size = 0;
  int rc = write_container_file(fs, path, LIST_SCHEMA, opts, encode_list_entry, PM_MFK_LIST, sizeof *metas, metas, n,
                                &size, err);
  if (!rc && file_size) *file_size = (int64_t)size;
  return rc;
}

int pm_index_manifest_write(pm_fs *fs, const char *path, const pm_index_manifest_entry *entries, size_t n,
                            const pm_manifest_write_opts *opts, int64_t *file_size, pm_error *err) {
  uint64_t size = 0;
  int rc = write_container_file(fs, path, INDEX_SCHEMA, opts, encode_index_entry, PM_MFK_INDEX, sizeof *entries, entries,
                                n, &size, err);
  if (!rc && file_size) *file_size = (int64_t)size;
  return rc;
}

/* ---------------- copies ---------------- */

typedef struct copier {
  pm_arena *a;
  int oom;
} copier;

static const char *cp_str(copier *c, const char *s) {
  if (!s) return NULL;
  char *d = pm_arena_strdup(c->a, s);
  if (!d) c->oom = 1;
  return d;
}

static pm_bytes cp_bytes(copier *c, pm_bytes b) {
  pm_bytes r = {NULL, b.len};
  r.data = pm_arena_memdup(c->a, b.data ? b.data : (const uint8_t *)"", b.len);
  if (!r.data) c->oom = 1;
  return r;
}

static void *cp_mem(copier *c, const void *p, size_t n) {
  if (!p || !n) return NULL;
  void *d = pm_arena_memdup(c->a, p, n);
  if (!d) c->oom = 1;
  return d;
}

static pm_str_list cp_list(copier *c, pm_str_list l) {
  pm_str_list r = l;
  if (l.n > 0) {
    const char **v = pm_arena_alloc(c->a, (size_t)l.n * sizeof(char *));
    if (!v) {
      c->oom = 1;
      r.n = 0;
      r.items = NULL;
      return r;
    }
    for (int32_t i = 0; i < l.n; i++) v[i] = cp_str(c, l.items[i]);
    r.items = v;
  } else {
    r.items = NULL;
  }
  return r;
}

static void cp_stats(copier *c, const pm_simple_stats *s, pm_simple_stats *d) {
  *d = *s;
  d->min_values = cp_bytes(c, s->min_values);
  d->max_values = cp_bytes(c, s->max_values);
  d->null_counts = s->n_null_counts > 0 ? cp_mem(c, s->null_counts, (size_t)s->n_null_counts * sizeof(int64_t)) : NULL;
}

int pm_data_file_meta_copy(const pm_data_file_meta *src, pm_data_file_meta *dst, pm_arena *arena, pm_error *err) {
  copier c = {arena, 0};
  *dst = *src;
  dst->file_name = cp_str(&c, src->file_name);
  dst->min_key = cp_bytes(&c, src->min_key);
  dst->max_key = cp_bytes(&c, src->max_key);
  cp_stats(&c, &src->key_stats, &dst->key_stats);
  cp_stats(&c, &src->value_stats, &dst->value_stats);
  dst->extra_files = cp_list(&c, src->extra_files);
  if (src->has_embedded_index) dst->embedded_index = cp_bytes(&c, src->embedded_index);
  dst->value_stats_cols = cp_list(&c, src->value_stats_cols);
  dst->external_path = cp_str(&c, src->external_path);
  dst->write_cols = cp_list(&c, src->write_cols);
  dst->write_cols_sequences = src->n_write_cols_sequences > 0
                                  ? cp_mem(&c, src->write_cols_sequences, (size_t)src->n_write_cols_sequences * sizeof(int64_t))
                                  : NULL;
  return c.oom ? PM_NOMEM(err) : 0;
}

int pm_manifest_entry_copy(const pm_manifest_entry *src, pm_manifest_entry *dst, pm_arena *arena, pm_error *err) {
  copier c = {arena, 0};
  *dst = *src;
  dst->partition = cp_bytes(&c, src->partition);
  if (c.oom) return PM_NOMEM(err);
  return pm_data_file_meta_copy(&src->file, &dst->file, arena, err);
}

int pm_manifest_file_meta_copy(const pm_manifest_file_meta *src, pm_manifest_file_meta *dst, pm_arena *arena,
                               pm_error *err) {
  copier c = {arena, 0};
  *dst = *src;
  dst->file_name = cp_str(&c, src->file_name);
  cp_stats(&c, &src->partition_stats, &dst->partition_stats);
  return c.oom ? PM_NOMEM(err) : 0;
}

int pm_index_file_meta_copy(const pm_index_file_meta *src, pm_index_file_meta *dst, pm_arena *arena, pm_error *err) {
  copier c = {arena, 0};
  *dst = *src;
  dst->index_type = cp_str(&c, src->index_type);
  dst->file_name = cp_str(&c, src->file_name);
  dst->external_path = cp_str(&c, src->external_path);
  if (src->n_dv_ranges > 0) {
    pm_dv_range *v = cp_mem(&c, src->dv_ranges, (size_t)src->n_dv_ranges * sizeof(pm_dv_range));
    for (int32_t i = 0; v && i < src->n_dv_ranges; i++) v[i].data_file_name = cp_str(&c, src->dv_ranges[i].data_file_name);
    dst->dv_ranges = v;
  } else {
    dst->dv_ranges = NULL;
  }
  const pm_global_index_meta *g = &src->global_index;
  if (g->n_extra_field_ids > 0)
    dst->global_index.extra_field_ids = cp_mem(&c, g->extra_field_ids, (size_t)g->n_extra_field_ids * sizeof(int32_t));
  if (g->has_index_meta) dst->global_index.index_meta = cp_bytes(&c, g->index_meta);
  if (g->has_source_meta) dst->global_index.source_meta = cp_bytes(&c, g->source_meta);
  return c.oom ? PM_NOMEM(err) : 0;
}

int pm_manifest_entries_push(pm_manifest_entries *v, const pm_manifest_entry *e, pm_error *err) {
  pm_manifest_entry copy;
  PM_TRY(pm_manifest_entry_copy(e, &copy, &v->arena, err));
  return pm_manifest_entries_append_owned(v, &copy, err);
}

/* ---------------- index manifest combination ---------------- */

static int by_bucket_key(const pm_index_manifest_entry *e, int bucket_unaware) {
  const char *t = e->index_file.index_type;
  if (!t) return 0;
  if (!strcmp(t, PM_INDEX_TYPE_HASH)) return 1;
  return !strcmp(t, PM_INDEX_TYPE_DV) && !bucket_unaware;
}

static int same_bucket_key(const pm_index_manifest_entry *a, const pm_index_manifest_entry *b) {
  return a->bucket == b->bucket && a->partition.len == b->partition.len &&
         (a->partition.len == 0 || memcmp(a->partition.data, b->partition.data, a->partition.len) == 0) &&
         strcmp(a->index_file.index_type, b->index_file.index_type) == 0;
}

static int same_name(const pm_index_manifest_entry *a, const pm_index_manifest_entry *b) {
  return strcmp(a->index_file.file_name, b->index_file.file_name) == 0;
}

int pm_index_manifest_combine(const pm_index_manifest_entry *prev, size_t n_prev,
                              const pm_index_manifest_entry *changes, size_t n_changes, int bucket_unaware,
                              pm_index_entries *out, pm_error *err) {
  /* working list of pointers: previous entries, then adds */
  size_t cap = n_prev + n_changes;
  const pm_index_manifest_entry **cur = malloc((cap ? cap : 1) * sizeof(*cur));
  if (!cur) return PM_NOMEM(err);
  size_t n = 0;
  int rc = 0;
  for (size_t i = 0; i < n_prev; i++) cur[n++] = &prev[i];
  for (int pass = 0; pass < 2 && !rc; pass++) { /* deletes first, then adds */
    for (size_t c = 0; c < n_changes && !rc; c++) {
      const pm_index_manifest_entry *e = &changes[c];
      if (!e->index_file.index_type || !e->index_file.file_name) {
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "index change %zu without type or file name", c);
        break;
      }
      int is_delete = e->kind == PM_FILE_DELETE;
      if ((pass == 0) != is_delete) continue;
      int keyed = by_bucket_key(e, bucket_unaware);
      size_t found = n;
      for (size_t i = 0; i < n; i++) {
        if (keyed ? (by_bucket_key(cur[i], bucket_unaware) && same_bucket_key(cur[i], e)) : same_name(cur[i], e)) {
          found = i;
          break;
        }
      }
      if (is_delete) {
        if (found == n) {
          if (!keyed)
            rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "index file %s to delete is not in the index manifest",
                           e->index_file.file_name);
          continue;
        }
        memmove(cur + found, cur + found + 1, (n - found - 1) * sizeof(*cur));
        n--;
      } else if (found < n) {
        if (!keyed) {
          rc = pm_errorf(err, PAIMON_ERR_CONFLICT, "index file %s is already in the index manifest", e->index_file.file_name);
          continue;
        }
        cur[found] = e; /* replace in place */
      } else {
        cur[n++] = e;
      }
    }
  }
  for (size_t i = 0; !rc && i < n; i++) {
    if (out->n == out->cap) {
      size_t nc = out->cap ? out->cap * 2 : 16;
      void *p = realloc(out->items, nc * sizeof(out->items[0]));
      if (!p) {
        rc = PM_NOMEM(err);
        break;
      }
      out->items = p;
      out->cap = nc;
    }
    pm_index_manifest_entry *d = &out->items[out->n];
    *d = *cur[i];
    d->kind = PM_FILE_ADD;
    d->partition.data = pm_arena_memdup(&out->arena, cur[i]->partition.data ? cur[i]->partition.data : (const uint8_t *)"",
                                        cur[i]->partition.len);
    if (!d->partition.data) rc = PM_NOMEM(err);
    if (!rc) rc = pm_index_file_meta_copy(&cur[i]->index_file, &d->index_file, &out->arena, err);
    if (!rc) out->n++;
  }
  free(cur);
  return rc;
}
