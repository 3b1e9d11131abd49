/* ORC manifests, manifest lists and index manifests as Java Paimon 2.0.0 writes
 * them for manifest.format = orc: the versioned row types (_VERSION first, field
 * id -1) of ManifestEntry / ManifestFileMeta / IndexManifestEntry as ORC
 * structs, every field carrying its Paimon field id as the ORC attribute
 * paimon.id (array elements: Java's derived element id), the codec of
 * manifest.compression, ORC's compression buffer size for the column count,
 * rows handed to the ORC writer in batches of 1024 (Java's write batch). */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "format/orc/orc_writer.h"
#include "meta/manifest_internal.h"

/* ---- the three row types ---- */

typedef struct ofield {
  const char *name;
  char t;  /* c int8, i int32, l int64, u string, z bytes, T timestamp(ms), s struct, L list (kids[0] = element) */
  int id;  /* Paimon field id (list elements: derived) */
  const struct ofield *kids;
  int n_kids;
} ofield;

#define KIDS(a) a, (int)(sizeof a / sizeof a[0])

static const ofield LONG_ITEM[] = {{"element", 'l', 0, NULL, 0}};
static const ofield INT_ITEM[] = {{"element", 'i', 0, NULL, 0}};
static const ofield STR_ITEM[] = {{"element", 'u', 0, NULL, 0}};

static const ofield STATS[] = {{"_MIN_VALUES", 'z', 0, NULL, 0},
                               {"_MAX_VALUES", 'z', 1, NULL, 0},
                               {"_NULL_COUNTS", 'L', 2, KIDS(LONG_ITEM)}};

static const ofield FILE_FIELDS[] = {
    {"_FILE_NAME", 'u', 0, NULL, 0},           {"_FILE_SIZE", 'l', 1, NULL, 0},
    {"_ROW_COUNT", 'l', 2, NULL, 0},           {"_MIN_KEY", 'z', 3, NULL, 0},
    {"_MAX_KEY", 'z', 4, NULL, 0},             {"_KEY_STATS", 's', 5, KIDS(STATS)},
    {"_VALUE_STATS", 's', 6, KIDS(STATS)},     {"_MIN_SEQUENCE_NUMBER", 'l', 7, NULL, 0},
    {"_MAX_SEQUENCE_NUMBER", 'l', 8, NULL, 0}, {"_SCHEMA_ID", 'l', 9, NULL, 0},
    {"_LEVEL", 'i', 10, NULL, 0},              {"_EXTRA_FILES", 'L', 11, KIDS(STR_ITEM)},
    {"_CREATION_TIME", 'T', 12, NULL, 0},      {"_DELETE_ROW_COUNT", 'l', 13, NULL, 0},
    {"_EMBEDDED_FILE_INDEX", 'z', 14, NULL, 0}, {"_FILE_SOURCE", 'c', 15, NULL, 0},
    {"_VALUE_STATS_COLS", 'L', 16, KIDS(STR_ITEM)}, {"_EXTERNAL_PATH", 'u', 17, NULL, 0},
    {"_FIRST_ROW_ID", 'l', 18, NULL, 0},       {"_WRITE_COLS", 'L', 19, KIDS(STR_ITEM)},
    /* master's extra field: only when an entry carries it (pm_manifest_needs_master_schema) */
    {"_WRITE_COLS_SEQUENCES", 'L', 20, KIDS(LONG_ITEM)}};

/* _FILE of the 2.0.0 schema (20 fields) and of master's (21). */
static const ofield ENTRY_FIELDS[] = {{"_VERSION", 'i', -1, NULL, 0},      {"_KIND", 'c', 0, NULL, 0},
                                      {"_PARTITION", 'z', 1, NULL, 0},     {"_BUCKET", 'i', 2, NULL, 0},
                                      {"_TOTAL_BUCKETS", 'i', 3, NULL, 0}, {"_FILE", 's', 4, FILE_FIELDS, 20}};
static const ofield ENTRY_FIELDS_MASTER[] = {{"_VERSION", 'i', -1, NULL, 0},      {"_KIND", 'c', 0, NULL, 0},
                                             {"_PARTITION", 'z', 1, NULL, 0},     {"_BUCKET", 'i', 2, NULL, 0},
                                             {"_TOTAL_BUCKETS", 'i', 3, NULL, 0}, {"_FILE", 's', 4, FILE_FIELDS, 21}};

static const ofield LIST_FIELDS[] = {
    {"_VERSION", 'i', -1, NULL, 0},          {"_FILE_NAME", 'u', 0, NULL, 0},
    {"_FILE_SIZE", 'l', 1, NULL, 0},         {"_NUM_ADDED_FILES", 'l', 2, NULL, 0},
    {"_NUM_DELETED_FILES", 'l', 3, NULL, 0}, {"_PARTITION_STATS", 's', 4, KIDS(STATS)},
    {"_SCHEMA_ID", 'l', 5, NULL, 0},         {"_MIN_BUCKET", 'i', 6, NULL, 0},
    {"_MAX_BUCKET", 'i', 7, NULL, 0},        {"_MIN_LEVEL", 'i', 8, NULL, 0},
    {"_MAX_LEVEL", 'i', 9, NULL, 0},         {"_MIN_ROW_ID", 'l', 10, NULL, 0},
    {"_MAX_ROW_ID", 'l', 11, NULL, 0}};

static const ofield DV_FIELDS[] = {{"f0", 'u', 0, NULL, 0},
                                   {"f1", 'i', 1, NULL, 0},
                                   {"f2", 'i', 2, NULL, 0},
                                   {"_CARDINALITY", 'l', 3, NULL, 0}};
static const ofield DV_ITEM[] = {{"element", 's', 0, KIDS(DV_FIELDS)}};
static const ofield GLOBAL_FIELDS[] = {{"_ROW_RANGE_START", 'l', 0, NULL, 0}, {"_ROW_RANGE_END", 'l', 1, NULL, 0},
                                       {"_INDEX_FIELD_ID", 'i', 2, NULL, 0},  {"_EXTRA_FIELD_IDS", 'L', 3, KIDS(INT_ITEM)},
                                       {"_INDEX_META", 'z', 4, NULL, 0},      {"_SOURCE_META", 'z', 5, NULL, 0}};
static const ofield INDEX_FIELDS[] = {
    {"_VERSION", 'i', -1, NULL, 0},   {"_KIND", 'c', 0, NULL, 0},
    {"_PARTITION", 'z', 1, NULL, 0},  {"_BUCKET", 'i', 2, NULL, 0},
    {"_INDEX_TYPE", 'u', 3, NULL, 0}, {"_FILE_NAME", 'u', 4, NULL, 0},
    {"_FILE_SIZE", 'l', 5, NULL, 0},  {"_ROW_COUNT", 'l', 6, NULL, 0},
    {"_DELETIONS_VECTORS_RANGES", 'L', 7, KIDS(DV_ITEM)}, {"_EXTERNAL_PATH", 'u', 8, NULL, 0},
    {"_GLOBAL_INDEX", 's', 9, KIDS(GLOBAL_FIELDS)}};

/* Java's SpecialFields.getArrayElementFieldId(id, depth 1): Integer.MAX_VALUE / 4 + id * 1024 + 1. */
static int element_id(int list_id) { return 536870911 + list_id * 1024 + 1; }

static int type_of(const ofield *f, pm_type *t, pm_error *err) {
  pm_type_id id;
  switch (f->t) {
    case 'c': id = PM_T_INT8; break;
    case 'i': id = PM_T_INT32; break;
    case 'l': id = PM_T_INT64; break;
    case 'u': id = PM_T_UTF8; break;
    case 'z': id = PM_T_BINARY; break;
    case 'T': id = PM_T_TIMESTAMP; break;
    case 's': id = PM_T_STRUCT; break;
    default: id = PM_T_LIST; break;
  }
  PM_TRY(pm_type_init(t, id, f->name, 1, f->n_kids, err));
  if (id == PM_T_TIMESTAMP) t->unit = PM_UNIT_MS;
  for (int i = 0; i < f->n_kids; i++) PM_TRY(type_of(&f->kids[i], &t->children[i], err));
  return 0;
}

static int set_ids(const ofield *f, int id, struct ArrowSchema *s, pm_error *err) {
  char buf[24];
  snprintf(buf, sizeof buf, "%d", id);
  const char *k[1] = {"PARQUET:field_id"}, *v[1] = {buf};
  PM_TRY(pm_schema_set_metadata(s, 1, k, v, err));
  for (int i = 0; i < f->n_kids; i++)
    PM_TRY(set_ids(&f->kids[i], f->t == 'L' ? element_id(id) : f->kids[i].id, s->children[i], err));
  return 0;
}

static int count_columns(const ofield *f, int n) {
  int c = 0;
  for (int i = 0; i < n; i++) c += 1 + count_columns(f[i].kids, f[i].n_kids);
  return c;
}

/* ORC's WriterImpl.getEstimatedBufferSize: stripe / (20 x columns) rounded up to a
 * power of two in [4 KiB, 256 KiB], at most the configured 256 KiB. */
static uint64_t orc_buffer_size(uint64_t stripe, int columns) {
  uint64_t est = stripe / (20u * (uint64_t)columns), p = 4096;
  while (p < est && p < 256 * 1024) p <<= 1;
  return p;
}

/* ---- the writer ---- */

#define BATCH_ROWS 1024

struct pm_manifest_orc {
  pm_manifest_file_kind kind;
  pm_builder *b;
  pm_orc_writer *w;
  int master;
};

int pm_manifest_orc_open(pm_out_file *sink, pm_manifest_file_kind kind, int master, const pm_manifest_write_opts *o,
                         int create_if_absent, pm_manifest_orc **out, pm_error *err) {
  *out = NULL;
  const ofield *fields = kind == PM_MFK_LIST ? LIST_FIELDS : kind == PM_MFK_INDEX ? INDEX_FIELDS
                         : master                ? ENTRY_FIELDS_MASTER
                                                 : ENTRY_FIELDS;
  int nf = kind == PM_MFK_LIST ? (int)(sizeof LIST_FIELDS / sizeof *LIST_FIELDS)
           : kind == PM_MFK_INDEX ? (int)(sizeof INDEX_FIELDS / sizeof *INDEX_FIELDS)
                                  : (int)(sizeof ENTRY_FIELDS / sizeof *ENTRY_FIELDS);
  ofield root = {"", 's', 0, fields, nf};
  pm_manifest_orc *m = calloc(1, sizeof *m);
  if (!m) {
    pm_out_abort(sink);
    return PM_NOMEM(err);
  }
  m->kind = kind;
  m->master = master;
  pm_type t;
  memset(&t, 0, sizeof t);
  struct ArrowSchema s;
  memset(&s, 0, sizeof s);
  int rc = type_of(&root, &t, err);
  if (!rc) rc = pm_builder_new(&t, &m->b, err);
  if (!rc) rc = pm_builder_schema(m->b, NULL, &s, err);
  for (int i = 0; !rc && i < nf; i++) rc = set_ids(&fields[i], fields[i].id, s.children[i], err);
  pm_type_free(&t);
  pm_orc_writer_options wo;
  pm_orc_writer_options_init(&wo);
  wo.codec = o ? o->codec : PM_CODEC_ZSTD;
  wo.compression_level = o && o->level ? o->level : 1;
  wo.stripe_size = 64u << 20;
  wo.compression_block_size = orc_buffer_size(wo.stripe_size, 1 + count_columns(fields, nf));
  wo.create_if_absent = create_if_absent;
  if (!rc) {
    rc = pm_orc_writer_open_sink(sink, &s, &wo, &m->w, err); /* owns sink from here */
    sink = NULL;
  }
  pm_schema_release(&s);
  if (rc) {
    if (sink) pm_out_abort(sink);
    pm_manifest_orc_abort(m);
    return rc;
  }
  *out = m;
  return 0;
}

static int flush_batch(pm_manifest_orc *m, pm_error *err) {
  if (pm_builder_length(m->b) == 0) return 0;
  struct ArrowArray a;
  memset(&a, 0, sizeof a);
  PM_TRY(pm_builder_finish(m->b, &a, err));
  int rc = pm_orc_writer_write(m->w, &a, err);
  if (a.release) a.release(&a);
  return rc;
}

/* ---- value helpers (one child builder each) ---- */

static pm_builder *kid(pm_builder *b, int i) { return pm_builder_child(b, i); }

static int put_int(pm_builder *b, int64_t v, pm_error *err) { return pm_builder_append_int(b, v, err); }

static int put_opt_int(pm_builder *b, int has, int64_t v, pm_error *err) {
  return has ? pm_builder_append_int(b, v, err) : pm_builder_append_null(b, err);
}

static int put_str(pm_builder *b, const char *s, pm_error *err) {
  return s ? pm_builder_append_str(b, s, err) : pm_builder_append_null(b, err);
}

static int put_bytes(pm_builder *b, pm_bytes v, pm_error *err) {
  return pm_builder_append_bytes(b, v.data ? (const void *)v.data : "", v.len, err);
}

static int put_str_list(pm_builder *b, const pm_str_list *l, int nullable, pm_error *err) {
  if (nullable && l->is_null) return pm_builder_append_null(b, err);
  for (int32_t i = 0; i < l->n; i++) PM_TRY(pm_builder_append_str(kid(b, 0), l->items[i] ? l->items[i] : "", err));
  return pm_builder_append_valid(b, err);
}

static int put_stats(pm_builder *b, const pm_simple_stats *s, pm_error *err) {
  PM_TRY(put_bytes(kid(b, 0), s->min_values, err));
  PM_TRY(put_bytes(kid(b, 1), s->max_values, err));
  pm_builder *nc = kid(b, 2);
  if (s->null_counts_is_null) {
    PM_TRY(pm_builder_append_null(nc, err));
  } else {
    for (int32_t i = 0; i < s->n_null_counts; i++)
      PM_TRY(put_opt_int(kid(nc, 0), s->null_counts[i] != PM_NULL_COUNT_UNKNOWN, s->null_counts[i], err));
    PM_TRY(pm_builder_append_valid(nc, err));
  }
  return pm_builder_append_valid(b, err);
}

static int put_file(pm_builder *b, const pm_data_file_meta *f, int master, pm_error *err) {
  PM_TRY(put_str(kid(b, 0), f->file_name ? f->file_name : "", err));
  PM_TRY(put_int(kid(b, 1), f->file_size, err));
  PM_TRY(put_int(kid(b, 2), f->row_count, err));
  PM_TRY(put_bytes(kid(b, 3), f->min_key, err));
  PM_TRY(put_bytes(kid(b, 4), f->max_key, err));
  PM_TRY(put_stats(kid(b, 5), &f->key_stats, err));
  PM_TRY(put_stats(kid(b, 6), &f->value_stats, err));
  PM_TRY(put_int(kid(b, 7), f->min_sequence_number, err));
  PM_TRY(put_int(kid(b, 8), f->max_sequence_number, err));
  PM_TRY(put_int(kid(b, 9), f->schema_id, err));
  PM_TRY(put_int(kid(b, 10), f->level, err));
  PM_TRY(put_str_list(kid(b, 11), &f->extra_files, 0, err));
  PM_TRY(put_opt_int(kid(b, 12), f->has_creation_time, f->creation_time_millis, err));
  PM_TRY(put_opt_int(kid(b, 13), f->has_delete_row_count, f->delete_row_count, err));
  PM_TRY(f->has_embedded_index ? put_bytes(kid(b, 14), f->embedded_index, err) : pm_builder_append_null(kid(b, 14), err));
  PM_TRY(put_opt_int(kid(b, 15), f->file_source >= 0, f->file_source, err));
  PM_TRY(put_str_list(kid(b, 16), &f->value_stats_cols, 1, err));
  PM_TRY(put_str(kid(b, 17), f->external_path, err));
  PM_TRY(put_opt_int(kid(b, 18), f->has_first_row_id, f->first_row_id, err));
  PM_TRY(put_str_list(kid(b, 19), &f->write_cols, 1, err));
  if (master) {
    pm_builder *wcs = kid(b, 20);
    if (f->write_cols_sequences_is_null) {
      PM_TRY(pm_builder_append_null(wcs, err));
    } else {
      for (int32_t i = 0; i < f->n_write_cols_sequences; i++)
        PM_TRY(put_int(kid(wcs, 0), f->write_cols_sequences[i], err));
      PM_TRY(pm_builder_append_valid(wcs, err));
    }
  }
  return pm_builder_append_valid(b, err);
}

static int put_entry(pm_manifest_orc *m, const pm_manifest_entry *e, pm_error *err) {
  pm_builder *b = m->b;
  PM_TRY(put_int(kid(b, 0), 2, err));
  PM_TRY(put_int(kid(b, 1), e->kind, err));
  PM_TRY(put_bytes(kid(b, 2), e->partition, err));
  PM_TRY(put_int(kid(b, 3), e->bucket, err));
  PM_TRY(put_int(kid(b, 4), e->total_buckets, err));
  PM_TRY(put_file(kid(b, 5), &e->file, m->master, err));
  return pm_builder_append_valid(b, err);
}

static int put_meta(pm_manifest_orc *m, const pm_manifest_file_meta *f, pm_error *err) {
  pm_builder *b = m->b;
  PM_TRY(put_int(kid(b, 0), 2, err));
  PM_TRY(put_str(kid(b, 1), f->file_name ? f->file_name : "", err));
  PM_TRY(put_int(kid(b, 2), f->file_size, err));
  PM_TRY(put_int(kid(b, 3), f->num_added_files, err));
  PM_TRY(put_int(kid(b, 4), f->num_deleted_files, err));
  PM_TRY(put_stats(kid(b, 5), &f->partition_stats, err));
  PM_TRY(put_int(kid(b, 6), f->schema_id, err));
  PM_TRY(put_opt_int(kid(b, 7), f->has_bucket_range, f->min_bucket, err));
  PM_TRY(put_opt_int(kid(b, 8), f->has_bucket_range, f->max_bucket, err));
  PM_TRY(put_opt_int(kid(b, 9), f->has_level_range, f->min_level, err));
  PM_TRY(put_opt_int(kid(b, 10), f->has_level_range, f->max_level, err));
  PM_TRY(put_opt_int(kid(b, 11), f->has_row_id_range, f->min_row_id, err));
  PM_TRY(put_opt_int(kid(b, 12), f->has_row_id_range, f->max_row_id, err));
  return pm_builder_append_valid(b, err);
}

static int put_index(pm_manifest_orc *m, const pm_index_manifest_entry *e, pm_error *err) {
  pm_builder *b = m->b;
  const pm_index_file_meta *f = &e->index_file;
  PM_TRY(put_int(kid(b, 0), 1, err));
  PM_TRY(put_int(kid(b, 1), e->kind, err));
  PM_TRY(put_bytes(kid(b, 2), e->partition, err));
  PM_TRY(put_int(kid(b, 3), e->bucket, err));
  PM_TRY(put_str(kid(b, 4), f->index_type ? f->index_type : "", err));
  PM_TRY(put_str(kid(b, 5), f->file_name ? f->file_name : "", err));
  PM_TRY(put_int(kid(b, 6), f->file_size, err));
  PM_TRY(put_int(kid(b, 7), f->row_count, err));
  pm_builder *dv = kid(b, 8);
  if (f->dv_ranges_is_null) {
    PM_TRY(pm_builder_append_null(dv, err));
  } else {
    pm_builder *item = kid(dv, 0);
    for (int32_t i = 0; i < f->n_dv_ranges; i++) {
      const pm_dv_range *r = &f->dv_ranges[i];
      PM_TRY(put_str(kid(item, 0), r->data_file_name ? r->data_file_name : "", err));
      PM_TRY(put_int(kid(item, 1), r->offset, err));
      PM_TRY(put_int(kid(item, 2), r->length, err));
      PM_TRY(put_opt_int(kid(item, 3), r->has_cardinality, r->cardinality, err));
      PM_TRY(pm_builder_append_valid(item, err));
    }
    PM_TRY(pm_builder_append_valid(dv, err));
  }
  PM_TRY(put_str(kid(b, 9), f->external_path, err));
  pm_builder *gi = kid(b, 10);
  if (!f->has_global_index) {
    PM_TRY(pm_builder_append_null(gi, err));
  } else {
    const pm_global_index_meta *g = &f->global_index;
    PM_TRY(put_int(kid(gi, 0), g->row_range_start, err));
    PM_TRY(put_int(kid(gi, 1), g->row_range_end, err));
    PM_TRY(put_int(kid(gi, 2), g->index_field_id, err));
    pm_builder *x = kid(gi, 3);
    if (g->extra_field_ids_is_null) {
      PM_TRY(pm_builder_append_null(x, err));
    } else {
      for (int32_t i = 0; i < g->n_extra_field_ids; i++) PM_TRY(put_int(kid(x, 0), g->extra_field_ids[i], err));
      PM_TRY(pm_builder_append_valid(x, err));
    }
    PM_TRY(g->has_index_meta ? put_bytes(kid(gi, 4), g->index_meta, err) : pm_builder_append_null(kid(gi, 4), err));
    PM_TRY(g->has_source_meta ? put_bytes(kid(gi, 5), g->source_meta, err) : pm_builder_append_null(kid(gi, 5), err));
    PM_TRY(pm_builder_append_valid(gi, err));
  }
  return pm_builder_append_valid(b, err);
}

int pm_manifest_orc_add(pm_manifest_orc *m, const void *item, int *batch_done, pm_error *err) {
  int rc = m->kind == PM_MFK_LIST    ? put_meta(m, item, err)
           : m->kind == PM_MFK_INDEX ? put_index(m, item, err)
                                     : put_entry(m, item, err);
  if (!rc && pm_builder_length(m->b) >= BATCH_ROWS) {
    rc = flush_batch(m, err);
    if (batch_done) *batch_done = 1;
  } else if (batch_done) {
    *batch_done = 0;
  }
  return rc;
}

uint64_t pm_manifest_orc_estimated_size(const pm_manifest_orc *m) {
  /* Java's OrcBulkWriter.length(): file position + a fifth of the buffered estimate. */
  uint64_t buffered = pm_orc_writer_buffered_bytes(m->w);
  return pm_orc_writer_bytes_written(m->w) + (buffered + 4) / 5;
}

int pm_manifest_orc_finish(pm_manifest_orc *m, uint64_t *size, pm_error *err) {
  int rc = flush_batch(m, err);
  if (!rc) {
    rc = pm_orc_writer_finish(m->w, size, err);
  } else {
    pm_orc_writer_abort(m->w);
  }
  m->w = NULL;
  pm_manifest_orc_abort(m);
  return rc;
}

void pm_manifest_orc_abort(pm_manifest_orc *m) {
  if (!m) return;
  pm_orc_writer_abort(m->w);
  pm_builder_free(m->b);
  free(m);
}

int pm_manifest_orc_write_all(pm_out_file *sink, pm_manifest_file_kind kind, const void *items, size_t item_size,
                              size_t n, const pm_manifest_write_opts *o, int create_if_absent, uint64_t *size,
                              pm_error *err) {
  int master = kind == PM_MFK_MANIFEST && pm_manifest_needs_master_schema(items, n);
  pm_manifest_orc *m;
  PM_TRY(pm_manifest_orc_open(sink, kind, master, o, create_if_absent, &m, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) rc = pm_manifest_orc_add(m, (const char *)items + i * item_size, NULL, err);
  if (rc) {
    pm_manifest_orc_abort(m);
    return rc;
  }
  return pm_manifest_orc_finish(m, size, err);
}
