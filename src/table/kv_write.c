/* The primary-key table writer (kv_write.h): options, row kinds, routing of
 * rows to (partition, bucket) write buffers with sequence numbers, memory
 * bound, commit messages. Flushing is in kv_write_file.c. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/compute.h"
#include "data/bucket.h"
#include "table/append_compact.h"
#include "io/fs.h"
#include "table/kv_bucket.h"
#include "table/kv_bucket_cross.h"
#include "table/kv_write_internal.h"
#include "table/partition.h"
#include "table/read.h"
#include "table/scan.h"
#include "table/write_internal.h"
#include "util/buf.h"
#include "util/random.h"

/* ------------------------------------------------------------ slots */

static void slot_drop_buffer(pm_kv_write *w, pm_kvslot *s) {
  for (size_t i = 0; i < s->n_chunks; i++) pm_array_release(&s->chunks[i]);
  s->n_chunks = 0;
  w->buffered -= s->bytes;
  s->bytes = 0;
}

static void slot_free(pm_kv_write *w, pm_kvslot *s) {
  if (!s) return;
  slot_drop_buffer(w, s);
  free(s->chunks);
  pm_kv_slot_drop_runs(w, s);
  free(s->runs);
  pm_kv_files *lists[2] = {&s->out, &s->cl};
  for (int l = 0; l < 2; l++) {
    for (size_t i = 0; i < lists[l]->n; i++) {
      pm_error e;
      if (lists[l]->paths[i]) pm_fs_delete(w->t->fs, lists[l]->paths[i], &e);
      free(lists[l]->paths[i]);
    }
    free(lists[l]->items);
    free(lists[l]->paths);
  }
  pm_kv_slot_compact_free(w, s);
  free(s->part);
  free(s->bucket_dir);
  free(s->rows);
  free(s);
}

/* The live files of the latest snapshot, scanned once (none when ignoring previous files). */
int pm_kv_restore_previous(pm_kv_write *w, pm_error *err) {
  if (w->ignore_previous) return 0;
  if (!w->dv) return pm_write_previous_files(w->t, &w->restored, &w->previous, err);
  /* deletion vectors: the live files and the DV index entries of one snapshot */
  if (w->restored) return 0;
  w->restored = 1;
  pm_snapshot_manager sm = pm_table_snapshots(w->t);
  pm_snapshot *latest = NULL;
  PM_TRY(pm_snapshot_read_latest_checked(&sm, &latest, err));
  int rc = latest ? pm_scan_live_files(w->t, latest, NULL, &w->previous, err) : 0;
  if (!rc) rc = pm_kv_dv_index_entries(w->t, latest, &w->dv_index, err);
  pm_snapshot_free(latest);
  return rc;
}

/* The bucket's next sequence number and Java's check of the partition's
 * bucket count (write_slots.h), then its levels. */
static int restore_slot(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  PM_TRY(pm_kv_restore_previous(w, err));
  PM_TRY(pm_write_slot_restore(w->t, &w->previous, s->part, s->part_len, s->bucket, &s->next_seq, err));
  return pm_kv_levels_setup(w, s, err);
}

static int slot_get(pm_kv_write *w, const uint8_t *part, size_t part_len, int32_t bucket, pm_kvslot **out,
                    pm_error *err) {
  int64_t pos = pm_slot_map_find(&w->slot_map, part, part_len, bucket);
  if (pos >= 0) {
    *out = w->slots[pos];
    return 0;
  }
  pm_kvslot *s = calloc(1, sizeof *s);
  if (!s) return PM_NOMEM(err);
  s->part = malloc(part_len ? part_len : 1);
  s->part_len = part_len;
  s->bucket = bucket;
  int rc = s->part ? 0 : PM_NOMEM(err);
  if (!rc) memcpy(s->part, part, part_len);
  char *pdir = NULL;
  pm_bytes pb = {s->part, part_len};
  if (!rc) rc = pm_partition_path(w->t, pb, &pdir, err);
  if (!rc) rc = pm_table_bucket_path(w->t, pdir, bucket, &s->bucket_dir, err);
  free(pdir);
  if (!rc) rc = w->ignore_previous ? pm_kv_levels_setup(w, s, err) : restore_slot(w, s, err);
  if (!rc && w->n_slots == w->cap_slots) {
    size_t cap = w->cap_slots ? 2 * w->cap_slots : 16;
    pm_kvslot **ns = realloc(w->slots, cap * sizeof *ns);
    if (!ns) rc = PM_NOMEM(err);
    else {
      w->slots = ns;
      w->cap_slots = cap;
    }
  }
  if (rc) {
    slot_free(w, s);
    return rc;
  }
  rc = pm_slot_map_add(&w->slot_map, s->part, part_len, bucket, w->n_slots, err);
  if (rc) {
    slot_free(w, s);
    return rc;
  }
  w->slots[w->n_slots++] = s;
  *out = s;
  return 0;
}

int pm_kv_slot_get(pm_kv_write *w, const uint8_t *part, size_t part_len, int32_t bucket, pm_kvslot **out,
                   pm_error *err) {
  return slot_get(w, part, part_len, bucket, out, err);
}

/* ------------------------------------------------------------ open */

static int columns_of(pm_kv_write *w, char **names, size_t n, int **cols, const pm_data_type ***types,
                      const char *what, pm_error *err) {
  *cols = calloc(n + 1, sizeof **cols);
  *types = calloc(n + 1, sizeof **types);
  if (!*cols || !*types) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    int idx = pm_schema_field_index(w->t->schema, names[i]);
    if (idx < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: %s '%s' is not a column", w->t->database,
                       w->t->name, what, names[i]);
    if (pm_dtype_is_nested(w->fields[idx].type->root))
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "table %s.%s: %s '%s' has a nested type", w->t->database,
                       w->t->name, what, names[i]);
    (*cols)[i] = idx;
    (*types)[i] = w->fields[idx].type;
  }
  return 0;
}

static int system_field(struct ArrowSchema *ch, const char *fmt, const char *name, int32_t id, int64_t flags,
                        pm_error *err) {
  pm_schema_release(ch);
  PM_TRY(pm_schema_init(ch, fmt, name, flags, 0, err));
  char idbuf[16];
  snprintf(idbuf, sizeof idbuf, "%d", (int)id);
  const char *k[1] = {"PARQUET:field_id"}, *v[1] = {idbuf};
  return pm_schema_set_metadata(ch, 1, k, v, err);
}

/* The merge layout: the table's columns, _SEQUENCE_NUMBER, _VALUE_KIND. */
static int build_layout(pm_kv_write *w, pm_error *err) {
  size_t nf = w->nf;
  struct ArrowSchema *ls = &w->layout_schema;
  PM_TRY(pm_schema_init(ls, "+s", "", 0, (int64_t)nf + 2, err));
  for (size_t f = 0; f < nf; f++) {
    pm_schema_release(ls->children[f]);
    PM_TRY(pm_dfield_to_arrow(&w->fields[f], ls->children[f], err));
  }
  PM_TRY(system_field(ls->children[nf], "l", PM_SYSTEM_FIELD_SEQUENCE_NUMBER, PM_FIELD_ID_SEQUENCE_NUMBER, 0, err));
  PM_TRY(system_field(ls->children[nf + 1], "c", "_VALUE_KIND", PM_FIELD_ID_VALUE_KIND, 0, err));
  return pm_type_from_schema(ls, &w->layout, err);
}

/* Key fields _KEY_<k>, the files' schema and the stats modes. */
static int schemas(pm_kv_write *w, pm_error *err) {
  pm_table *t = w->t;
  size_t nf = w->nf, nk = w->nk;
  /* the table's columns (for take) */
  struct ArrowSchema ts;
  PM_TRY(pm_dfields_to_arrow(w->fields, nf, &ts, err));
  int rc = pm_type_from_schema(&ts, &w->type, err);
  pm_schema_release(&ts);
  if (rc) return rc;
  /* key fields */
  w->key_fields = calloc(nk + 1, sizeof *w->key_fields);
  if (!w->key_fields) return PM_NOMEM(err);
  for (size_t k = 0; k < nk; k++) {
    const pm_data_field *src = &w->fields[w->tm.key_cols[k]];
    size_t n = strlen(src->name) + 6;
    w->key_fields[k].name = malloc(n);
    if (!w->key_fields[k].name) return PM_NOMEM(err);
    snprintf(w->key_fields[k].name, n, "_KEY_%s", src->name);
    w->key_fields[k].id = src->id + PM_FIELD_ID_KEY_OFFSET;
    w->key_fields[k].type = src->type; /* borrowed from the schema */
  }
  return pm_kv_file_layout(w, w->fmt, t->co.metadata_stats_mode, PM_CO_METADATA_STATS_MODE, &w->file_schema,
                           &w->key_modes, &w->value_modes, err);
}

int pm_kv_file_layout(pm_kv_write *w, const pm_format *fmt, const char *def_mode, pm_co_id def_option,
                      struct ArrowSchema *fs, pm_stats_mode **key_modes, pm_stats_mode **value_modes, pm_error *err) {
  pm_table *t = w->t;
  size_t nf = w->nf, nk = w->nk;
  int parquet = !strcmp(fmt->name, "parquet");
  /* files: _KEY_..., _SEQUENCE_NUMBER, _VALUE_KIND, columns */
  PM_TRY(pm_schema_init(fs, "+s", "", 0, (int64_t)(nk + 2 + nf), err));
  for (size_t k = 0; k < nk; k++) {
    pm_schema_release(fs->children[k]);
    PM_TRY(pm_dfield_to_arrow(&w->key_fields[k], fs->children[k], err));
  }
  PM_TRY(system_field(fs->children[nk], "l", PM_SYSTEM_FIELD_SEQUENCE_NUMBER, PM_FIELD_ID_SEQUENCE_NUMBER, 0, err));
  PM_TRY(system_field(fs->children[nk + 1], "c", "_VALUE_KIND", PM_FIELD_ID_VALUE_KIND, 0, err));
  for (size_t f = 0; f < nf; f++) {
    struct ArrowSchema *ch = fs->children[nk + 2 + f];
    pm_schema_release(ch);
    PM_TRY(pm_dfield_to_arrow(&w->fields[f], ch, err));
    if (parquet) PM_TRY(pm_write_nested_ids(ch, w->fields[f].type, w->fields[f].id, 0, err));
  }
  /* stats modes: values as the append writer; keys truncate(128) unless
   * fields._KEY_<k>.stats-mode (Avro: the general mode) */
  PM_TRY(pm_write_stats_modes_def(t, w->fields, nf, parquet || !strcmp(fmt->name, "orc"), def_mode, def_option,
                                  value_modes, err));
  pm_stats_mode *km = *key_modes = calloc(nk + 1, sizeof *km);
  if (!km) return PM_NOMEM(err);
  pm_stats_mode def;
  if (pm_stats_mode_parse(def_mode, &def, err)) return pm_error_prefix(err, "option '%s'", pm_core_option_key(def_option));
  for (size_t k = 0; k < nk; k++) {
    const char *fm = pm_field_option(&t->options, w->key_fields[k].name, PM_FIELD_STATS_MODE);
    if (fm) {
      if (pm_stats_mode_parse(fm, &km[k], err)) {
        char key[512];
        pm_field_option_key(w->key_fields[k].name, PM_FIELD_STATS_MODE, key, sizeof key);
        return pm_error_prefix(err, "option '%s'", key);
      }
    } else if (!strcmp(fmt->name, "avro")) {
      km[k] = def;
    } else {
      km[k].kind = PM_STATS_TRUNCATE;
      km[k].length = 128;
    }
  }
  return 0;
}

static int refuse(pm_table *t, const char *what, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "table %s.%s: writing primary-key tables with %s is not supported yet",
                   t->database, t->name, what);
}

/* Dynamic buckets: keyed by the trimmed primary key (kv_bucket.h). */
static int kv_dynamic_open(pm_kv_write *w, pm_error *err) {
  const pm_data_type **types = calloc(w->nk + 1, sizeof *types);
  if (!types) return PM_NOMEM(err);
  for (size_t k = 0; k < w->nk; k++) types[k] = w->fields[w->tm.key_cols[k]].type;
  int rc = pm_kv_buckets_open(w->t, w->tm.key_cols, types, w->nk, !w->ignore_previous, &w->buckets, err);
  free(types);
  return rc;
}

int pm_kv_write_open(pm_table *t, const pm_write_config *cfg, pm_kv_write **out, pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(t, err));
  const pm_core_options *co = &t->co;
  int postpone = t->bucket_mode == PM_BUCKET_POSTPONE;
  if (t->bucket_mode != PM_BUCKET_FIXED && t->bucket_mode != PM_BUCKET_DYNAMIC && !postpone) {
    char what[64];
    snprintf(what, sizeof what, "bucket = %d", (int)t->bucket);
    return refuse(t, what, err);
  }
  if (co->bucket_function != PM_BUCKET_FN_DEFAULT)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "table %s.%s: option '%s' = '%s' is not supported for writing",
                     t->database, t->name, pm_core_option_key(PM_CO_BUCKET_FUNCTION),
                     pm_core_option_text(co, PM_CO_BUCKET_FUNCTION));
  if (co->data_file_thin_mode) return refuse(t, pm_core_option_key(PM_CO_DATA_FILE_THIN_MODE), err);
  if (co->data_file_external_paths && *co->data_file_external_paths && co->external_path_strategy != PM_EXT_PATH_NONE)
    return refuse(t, pm_core_option_key(PM_CO_DATA_FILE_EXTERNAL_PATHS), err);
  if (co->rowkind_field) return refuse(t, pm_core_option_key(PM_CO_ROWKIND_FIELD), err);
  int first_row = t->merge_engine == (pm_merge_engine)PM_ENGINE_FIRST_ROW;
  /* Java's SchemaValidation: deletion vectors only with changelog-producer none / input / lookup */
  if (t->changelog_producer == PM_CHANGELOG_FULL_COMPACTION && t->deletion_vectors)
    return refuse(t, "changelog-producer = full-compaction and deletion vectors (Java allows deletion vectors "
                     "only with changelog-producer none / input / lookup)", err);
  /* lookup compaction (changelog lookup, deletion vectors) merges the
   * looked-up record with the level-0 ones (kv_compact_write.c) */
  if (t->deletion_vectors && t->merge_engine == (pm_merge_engine)PM_ENGINE_FIRST_ROW)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s: merge-engine = first-row does not use deletion vectors (%s)", t->database, t->name,
                     pm_core_option_key(PM_CO_DV_ENABLED));
  if (t->deletion_vectors && co->write_only)
    return refuse(t, "deletion vectors and write-only = true (level-0 files would stay invisible)", err);
  pm_kv_write *w = calloc(1, sizeof *w);
  if (!w) return PM_NOMEM(err);
  w->t = pm_table_retain(t);
  pm_arena_init(&w->arena);
  pm_manifest_entries_init(&w->previous);
  w->ignore_previous = cfg ? cfg->ignore_previous_files : 0;
  w->postpone = postpone; /* no restore, no compaction, no spill, no changelog (kv_postpone.c) */
  if (postpone) w->ignore_previous = 1;
  w->streaming = cfg ? cfg->streaming : 0;
  int rc = pm_kv_compact_async_init(w, err);
  w->fmt = pm_format_by_name(co->file_format);
  if (!rc && (!w->fmt || !w->fmt->writer_open || !strcmp(w->fmt->name, "blob")))
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "option '%s' = '%s': not a format this library writes",
                   pm_core_option_key(PM_CO_FILE_FORMAT), co->file_format);
  pm_format_write_options_init(&w->wo);
  w->wo.compression = co->file_compression;
  if (co->file_compression && !strcasecmp(co->file_compression, "zstd")) w->wo.compression_level = co->file_zstd_level;
  w->fields = t->schema->fields;
  w->nf = t->schema->n_fields;
  w->dense = co->metadata_stats_dense_store;
  w->target = (uint64_t)co->target_file_size;
  w->buffer_limit = (uint64_t)co->write_buffer_size;
  w->compaction = !co->write_only && !postpone;
  w->dv = t->deletion_vectors;
  /* Java's LookupStrategy.needLookup, the reader's lookup rule (read.c) */
  w->lookup = w->dv || first_row || t->changelog_producer == PM_CHANGELOG_LOOKUP || co->force_lookup;
  w->lookup_cl = t->changelog_producer == PM_CHANGELOG_LOOKUP && !w->ignore_previous;
  w->full_cl = t->changelog_producer == PM_CHANGELOG_FULL_COMPACTION;
  pm_index_entries_init(&w->dv_index);
  w->n_levels = co->num_levels > 0 ? co->num_levels : co->num_sorted_run_compaction_trigger + 1;
  w->min_file_size = (int64_t)((double)co->target_file_size * co->compaction_small_file_ratio);
  pm_uuid_random(w->uuid);
  /* write-buffer-spillable: a full buffer spills to local temp files (kv_write_spill.c) */
  w->spillable = co->write_buffer_spillable && !postpone;
  w->fan_in = co->local_sort_max_file_handles;
  w->max_disk = (uint64_t)co->write_buffer_spill_max_disk;
  if (!rc && w->spillable) {
    /* blocks of about sort-spill-buffer-size / (4 x fan-in): a merge of fan-in runs reads
     * (compressed + decoded + arrays) about sort-spill-buffer-size */
    uint64_t block = (uint64_t)co->sort_spill_buffer_size / (4u * (uint64_t)w->fan_in);
    if (block < (16u << 10)) block = 16u << 10;
    if (block > (1u << 20)) block = 1u << 20;
    w->spill_block = block;
    rc = pm_spill_init(&w->spill, NULL, NULL, co->spill_compression, co->spill_zstd_level, block, err);
  }
  if (!rc) rc = build_layout(w, err);
  if (!rc)
    rc = pm_table_merge_init(t, &w->layout, (int)w->nf + 2, (int)w->nf, (int)w->nf + 1, -1, &w->tm, err);
  w->tm.cfg.keep_retracts = 1;
  w->nk = (size_t)w->tm.n_keys;
  if (!rc) rc = schemas(w, err);
  if (!rc && postpone) rc = pm_kv_postpone_open(w, cfg, err);
  if (!rc && !postpone && (t->changelog_producer == PM_CHANGELOG_INPUT || w->lookup_cl || w->full_cl))
    rc = pm_kv_changelog_open(w, err);
  w->n_part = t->n_partition_keys;
  if (!rc) rc = columns_of(w, t->partition_keys, t->n_partition_keys, &w->part_col, &w->part_types, "partition key",
                           err);
  w->n_bkey = t->n_bucket_keys;
  if (!rc) rc = columns_of(w, t->bucket_keys, t->n_bucket_keys, &w->bkey_col, &w->bkey_types, "bucket key", err);
  if (!rc) rc = pm_row_writer_init(&w->bkey_rw, (int32_t)w->n_bkey, err);
  if (!rc && t->bucket_mode == PM_BUCKET_DYNAMIC)
    rc = pm_kv_cross_partition(t) ? pm_kv_cross_open(t, &w->type, w->fields, w->nf, !w->ignore_previous, &w->cross, err)
                                  : kv_dynamic_open(w, err);
  if (rc) {
    pm_kv_write_free(w);
    return rc;
  }
  *out = w;
  return 0;
}

/* ------------------------------------------------------------ writing */

/* The partition row (manifest form) and bucket of row r of batch b. */
static int route_row(pm_kv_write *w, const struct ArrowArray *b, int64_t r, pm_buf *part, pm_value *vals,
                     int32_t *bucket, pm_error *err) {
  part->len = 0;
  for (size_t i = 0; i < w->n_part; i++)
    PM_TRY(pm_write_value_at(w->part_types[i], b->children[w->part_col[i]], r, &vals[i], err));
  PM_TRY(pm_partition_row_encode(w->part_types, vals, w->n_part, part, err));
  if (w->buckets) return pm_kv_buckets_route(w->buckets, b, r, part->data, part->len, bucket, err);
  if (w->cross || w->postpone) {
    *bucket = w->postpone ? -2 : pm_kv_cross_bucket(w->cross, r);
    return 0;
  }
  int32_t hash;
  PM_TRY(pm_write_key_hash(w->bkey_types, w->bkey_col, w->n_bkey, b, r, &w->bkey_rw, &hash, err));
  *bucket = pm_bucket_of_hash(hash, w->t->bucket);
  return 0;
}

static int push_row(pm_kvslot *s, int64_t r, pm_error *err) {
  if (s->n_rows == s->cap_rows) {
    size_t cap = s->cap_rows ? 2 * s->cap_rows : 1024;
    int64_t *nr = realloc(s->rows, cap * sizeof *nr);
    if (!nr) return PM_NOMEM(err);
    s->rows = nr;
    s->cap_rows = cap;
  }
  s->rows[s->n_rows++] = r;
  return 0;
}

static int fixed_column(struct ArrowArray *a, int64_t n, size_t width, void **data, pm_error *err) {
  PM_TRY(pm_array_init(a, n, 2, 0, err));
  *data = pm_aligned_alloc(n ? (size_t)n * width : width);
  if (!*data) {
    pm_array_release(a);
    return PM_NOMEM(err);
  }
  pm_array_set_buffer(a, 1, *data);
  return 0;
}

/* Appends the slot's routed rows of batch b (kinds[r] per row) to its
 * buffer, numbering them in arrival order. */
static int buffer_rows(pm_kv_write *w, pm_kvslot *s, const struct ArrowArray *b, const int8_t *kinds, pm_error *err) {
  int64_t n = (int64_t)s->n_rows;
  if (s->n_chunks == s->cap_chunks) {
    size_t cap = s->cap_chunks ? 2 * s->cap_chunks : 8;
    struct ArrowArray *nc = realloc(s->chunks, cap * sizeof *nc);
    if (!nc) return PM_NOMEM(err);
    s->chunks = nc;
    s->cap_chunks = cap;
  }
  /* taken in key order (pm_kv_presort), each row keeping its arrival sequence number */
  size_t *perm = NULL;
  int64_t *sorted = NULL;
  if (!w->postpone) PM_TRY(pm_kv_presort(w, b, s->rows, n, &perm, &sorted, err));
  const int64_t *rows = sorted ? sorted : s->rows;
  struct ArrowArray sub;
  int32_t *zeros = calloc((size_t)(n ? n : 1), sizeof *zeros); /* one source: the batch */
  int rc = zeros ? pm_gather_batch(&w->type, &b, 1, zeros, rows, n, &sub, err) : PM_NOMEM(err);
  free(zeros);
  struct ArrowArray *c = &s->chunks[s->n_chunks];
  if (!rc) {
    rc = pm_array_init(c, n, 1, (int64_t)w->nf + 2, err);
    if (rc) pm_array_release(&sub);
  }
  if (rc) {
    free(perm);
    free(sorted);
    return rc;
  }
  for (size_t f = 0; f < w->nf; f++) pm_array_move(sub.children[f], c->children[f]);
  pm_array_release(&sub);
  void *seq, *kind;
  rc = fixed_column(c->children[w->nf], n, 8, &seq, err);
  if (!rc) rc = fixed_column(c->children[w->nf + 1], n, 1, &kind, err);
  if (rc) {
    free(perm);
    free(sorted);
    pm_array_release(c);
    return rc;
  }
  for (int64_t i = 0; i < n; i++) {
    /* postpone: Java's UNKNOWN_SEQUENCE (and arrival order, no presort) */
    ((int64_t *)seq)[i] = w->postpone ? -1 : s->next_seq + (perm ? (int64_t)perm[i] : i);
    ((int8_t *)kind)[i] = kinds[rows[i]];
  }
  if (!w->postpone) s->next_seq += n;
  free(perm);
  free(sorted);
  s->n_chunks++;
  uint64_t bytes = pm_write_batch_bytes(c, w->fields, w->nf) + 9 * (uint64_t)n + 64;
  s->bytes += bytes;
  w->buffered += bytes;
  return 0;
}

static uint64_t slot_disk(const pm_kvslot *s) {
  uint64_t n = 0;
  for (size_t i = 0; i < s->n_runs; i++) n += s->runs[i].bytes;
  return n;
}

/* Until the buffered bytes fit write-buffer-size, the largest buffer is
 * spilled (write-buffer-spillable, while its runs stay below
 * write-buffer-spill.max-disk-size) or flushed to level-0 files. */
static int bound_memory(pm_kv_write *w, pm_error *err) {
  while (w->buffered > w->buffer_limit) {
    pm_kvslot *big = NULL;
    for (size_t i = 0; i < w->n_slots; i++)
      if (w->slots[i]->n_chunks && (!big || w->slots[i]->bytes > big->bytes)) big = w->slots[i];
    if (!big) break;
    if (w->spillable && slot_disk(big) < w->max_disk) PM_TRY(pm_kv_spill_slot(w, big, err));
    else PM_TRY(pm_kv_flush(w, big, err));
  }
  return 0;
}

static int write_routed(pm_kv_write *w, const struct ArrowArray *b, const int8_t *kinds, const uint8_t *keep,
                        pm_error *err) {
  pm_buf part;
  pm_buf_init(&part);
  pm_value *vals = calloc(w->n_part + 1, sizeof *vals);
  pm_kvslot **touched = NULL;
  size_t n_touched = 0, cap_touched = 0;
  int rc = vals ? 0 : PM_NOMEM(err);
  pm_kvslot *prev = NULL;
  for (int64_t r = 0; !rc && r < b->length; r++) {
    if (keep && !keep[r]) continue;
    int32_t bucket;
    rc = route_row(w, b, r, &part, vals, &bucket, err);
    if (rc) break;
    pm_kvslot *s = prev;
    if (!s || s->bucket != bucket || s->part_len != part.len || memcmp(s->part, part.data, part.len)) {
      rc = slot_get(w, part.data, part.len, bucket, &s, err);
      if (rc) break;
    }
    if (!s->n_rows) {
      if (n_touched == cap_touched) {
        size_t cap = cap_touched ? 2 * cap_touched : 16;
        pm_kvslot **nt = realloc(touched, cap * sizeof *nt);
        if (!nt) {
          rc = PM_NOMEM(err);
          break;
        }
        touched = nt;
        cap_touched = cap;
      }
      touched[n_touched++] = s;
    }
    rc = push_row(s, r, err);
    prev = s;
  }
  for (size_t i = 0; !rc && i < n_touched; i++) rc = buffer_rows(w, touched[i], b, kinds, err);
  for (size_t i = 0; i < n_touched; i++) touched[i]->n_rows = 0;
  free(touched);
  free(vals);
  pm_buf_free(&part);
  if (!rc) rc = bound_memory(w, err);
  return rc;
}

/* A view of struct batch a without child `skip` (schema and array; both
 * borrow a's children). */
typedef struct strip_view {
  struct ArrowSchema s;
  struct ArrowArray a;
  struct ArrowSchema **sc;
  struct ArrowArray **ac;
} strip_view;

static void noop_schema_release(struct ArrowSchema *s) { s->release = NULL; }
static void noop_array_release(struct ArrowArray *a) { a->release = NULL; }

static int strip_column(const struct ArrowSchema *s, const struct ArrowArray *a, int64_t skip, strip_view *v,
                        pm_error *err) {
  memset(v, 0, sizeof *v);
  v->sc = calloc((size_t)s->n_children + 1, sizeof *v->sc);
  v->ac = calloc((size_t)s->n_children + 1, sizeof *v->ac);
  if (!v->sc || !v->ac) {
    free(v->sc);
    free(v->ac);
    return PM_NOMEM(err);
  }
  int64_t n = 0;
  for (int64_t i = 0; i < s->n_children; i++) {
    if (i == skip) continue;
    v->sc[n] = s->children[i];
    v->ac[n] = a->children[i];
    n++;
  }
  v->s = *s;
  v->s.n_children = n;
  v->s.children = v->sc;
  v->s.release = noop_schema_release;
  v->a = *a;
  v->a.n_children = n;
  v->a.children = v->ac;
  v->a.release = noop_array_release;
  return 0;
}

/* A row kind from its text: Java's RowKind short strings (+I, -U, +U, -D, what
 * `rowkind.field` holds), RowKind names (INSERT, UPDATE_BEFORE, UPDATE_AFTER,
 * DELETE) or the byte values 0..3; -1 for anything else. */
static int kind_of_text(const char *s, size_t n) {
  static const char *const shorts[4] = {"+I", "-U", "+U", "-D"};
  static const char *const names[4] = {"INSERT", "UPDATE_BEFORE", "UPDATE_AFTER", "DELETE"};
  for (int k = 0; k < 4; k++)
    if ((n == 2 && !memcmp(s, shorts[k], 2)) || (n == strlen(names[k]) && !memcmp(s, names[k], n)) ||
        (n == 1 && s[0] == '0' + k))
      return k;
  return -1;
}

/* Row kinds of the batch from the row-kind column: integers 0..3 (Paimon's
 * RowKind byte; int8..int64) or strings (kind_of_text). */
static int read_kinds(pm_kv_write *w, const struct ArrowSchema *s, const struct ArrowArray *a, int64_t col,
                      int8_t *kinds, pm_error *err) {
  const struct ArrowSchema *cs = s->children[col];
  const struct ArrowArray *ca = a->children[col];
  const char *f = cs->format;
  int width = !strcmp(f, "c") ? 1 : !strcmp(f, "s") ? 2 : !strcmp(f, "i") ? 4 : !strcmp(f, "l") ? 8 : 0;
  int text = !strcmp(f, "u") ? 4 : !strcmp(f, "U") ? 8 : 0;
  if (!width && !text)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s: row-kind column '%s' must be an integer (0..3) or string (+I/-U/+U/-D) column, "
                     "got Arrow format '%s'",
                     w->t->database, w->t->name, w->row_kind_column, f);
  if (ca->length < a->length + a->offset - ca->offset && ca->length < a->length)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: row-kind column '%s' is shorter than the batch",
                     w->t->database, w->t->name, w->row_kind_column);
  const uint8_t *valid = ca->n_buffers > 0 && ca->null_count != 0 ? ca->buffers[0] : NULL;
  for (int64_t r = 0; r < a->length; r++) {
    int64_t j = ca->offset + a->offset + r, k = -1;
    int null = valid && !pm_bit_get(valid, j);
    if (!null && width == 1) k = ((const int8_t *)ca->buffers[1])[j];
    else if (!null && width == 2) k = ((const int16_t *)ca->buffers[1])[j];
    else if (!null && width == 4) k = ((const int32_t *)ca->buffers[1])[j];
    else if (!null && width == 8) k = ((const int64_t *)ca->buffers[1])[j];
    else if (!null && text == 4) {
      const int32_t *o = ca->buffers[1];
      k = kind_of_text((const char *)ca->buffers[2] + o[j], (size_t)(o[j + 1] - o[j]));
    } else if (!null) {
      const int64_t *o = ca->buffers[1];
      k = kind_of_text((const char *)ca->buffers[2] + o[j], (size_t)(o[j + 1] - o[j]));
    }
    if (k < 0 || k > 3)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "table %s.%s: row-kind column '%s' row %lld: %s (+I or 0, -U or 1, +U or 2, -D or 3)",
                       w->t->database, w->t->name, w->row_kind_column, (long long)r,
                       null ? "null" : "not a row kind");
    kinds[r] = (int8_t)k;
  }
  return 0;
}

static int failed(pm_kv_write *w, pm_error *err) {
  if (err) *err = w->fail;
  return (int)w->fail.code;
}

static int fail_with(pm_kv_write *w, int rc, pm_error *err) {
  w->failed = 1;
  if (err) w->fail = *err;
  if (!w->fail.code) w->fail.code = (paimon_status)rc;
  return rc;
}

/* A background compaction that failed fails the writer at the next call
 * (Java: the task's exception comes out of the next write / prepare). */
static int surface_task_failure(pm_kv_write *w, pm_error *err) {
  if (!atomic_load(&w->task_failed)) return 0;
  for (size_t i = 0; i < w->n_slots; i++) {
    pm_kvslot *s = w->slots[i];
    if (s->task && pm_kv_ctask_done(w, s->task) && s->task->rc) {
      int rc = pm_kv_compact_collect(w, s, 1, err);
      return fail_with(w, rc, err);
    }
  }
  return 0;
}

int pm_kv_write_arrow(pm_kv_write *w, const struct ArrowSchema *s, const struct ArrowArray *a, int kind,
                      pm_error *err) {
  if (w->failed) return failed(w, err);
  PM_TRY(pm_kv_write_check_signal(w, err));
  PM_TRY(surface_task_failure(w, err));
  if (kind < 0 || kind > 3) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "row kind %d is not 0..3", kind);
  int64_t col = -1;
  if (w->row_kind_column) {
    if (strcmp(s->format, "+s") != 0 || s->n_children != a->n_children)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "input batch: not a struct array");
    for (int64_t i = 0; i < s->n_children && col < 0; i++)
      if (s->children[i]->name && !strcmp(s->children[i]->name, w->row_kind_column)) col = i;
    if (col < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: the batch has no row-kind column '%s'",
                       w->t->database, w->t->name, w->row_kind_column);
  }
  int64_t n = a->length;
  int8_t *kinds = malloc((size_t)n + 1);
  uint8_t *keep = malloc((size_t)n + 1);
  if (!kinds || !keep) {
    free(kinds);
    free(keep);
    return PM_NOMEM(err);
  }
  int rc = 0;
  strip_view v;
  int stripped = 0;
  if (col >= 0) {
    rc = read_kinds(w, s, a, col, kinds, err);
    if (!rc) rc = strip_column(s, a, col, &v, err);
    stripped = !rc;
  } else {
    memset(kinds, kind, (size_t)n);
  }
  const pm_core_options *co = &w->t->co;
  int any_dropped = 0;
  for (int64_t r = 0; !rc && r < n; r++) {
    int k = kinds[r];
    keep[r] = !((co->ignore_delete && pm_rowkind_is_retract(k)) ||
                (co->ignore_update_before && k == PM_ROWKIND_UPDATE_BEFORE));
    any_dropped |= !keep[r];
  }
  struct ArrowArray nb;
  memset(&nb, 0, sizeof nb);
  if (!rc) rc = pm_write_match(w->fields, w->nf, stripped ? &v.s : s, stripped ? &v.a : a, &nb, err);
  if (stripped) {
    free(v.sc);
    free(v.ac);
  }
  if (!rc && w->postpone) rc = pm_kv_postpone_validate(w, &nb, kinds, any_dropped ? keep : NULL, err);
  if (rc) {
    if (nb.release) nb.release(&nb);
    free(kinds);
    free(keep);
    return rc; /* nothing of the batch was written */
  }
  if (w->cross) {
    /* the rows to write: kv_bucket_cross.h. As Java, every row passes the key index
     * (GlobalIndexAssigner) and the kind filter (TableWriteImpl's RowKindFilter) drops
     * retracts afterwards, the -D it generates for a moved key included. */
    struct ArrowArray xb;
    int8_t *xk = NULL;
    uint8_t *xkeep = NULL;
    rc = pm_kv_cross_rewrite(w->cross, &nb, kinds, NULL, &xb, &xk, err);
    if (!rc && (co->ignore_delete || co->ignore_update_before)) {
      xkeep = malloc((size_t)xb.length + 1);
      if (!xkeep) rc = PM_NOMEM(err);
      for (int64_t r = 0; !rc && r < xb.length; r++)
        xkeep[r] = !((co->ignore_delete && pm_rowkind_is_retract(xk[r])) ||
                     (co->ignore_update_before && xk[r] == PM_ROWKIND_UPDATE_BEFORE));
    }
    if (!rc) rc = write_routed(w, &xb, xk, xkeep, err);
    if (xb.release) xb.release(&xb);
    free(xk);
    free(xkeep);
  } else {
    rc = write_routed(w, &nb, kinds, any_dropped ? keep : NULL, err);
  }
  if (!rc) w->rows_written += nb.length;
  nb.release(&nb);
  free(kinds);
  free(keep);
  return rc ? fail_with(w, rc, err) : 0;
}

int64_t pm_kv_write_rows(const pm_kv_write *w) { return w->rows_written; }

int pm_kv_write_spill_to(pm_kv_write *w, const char *tmp_dir, pm_fs *fs, pm_error *err) {
  if (!w->spillable) return 0;
  if (w->spill.dir)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: the writer has spilled already", w->t->database,
                     w->t->name);
  pm_spill_free(&w->spill);
  return pm_spill_init(&w->spill, fs, tmp_dir, w->t->co.spill_compression, w->t->co.spill_zstd_level, w->spill_block,
                       err);
}

void pm_kv_write_spill_stats(const pm_kv_write *w, int64_t *runs, uint64_t *bytes, int64_t *live) {
  *runs = w->spill.runs_written;
  *bytes = w->spill.bytes_written;
  *live = w->spill.live_files;
}

int pm_table_write_spill_to(pm_table_write *w, const char *tmp_dir, pm_fs *fs, pm_error *err) {
  return w->kv ? pm_kv_write_spill_to(w->kv, tmp_dir, fs, err) : 0;
}

int pm_table_write_spill_stats(const pm_table_write *w, int64_t *runs, uint64_t *bytes, int64_t *live) {
  if (!w->kv) return 0;
  pm_kv_write_spill_stats(w->kv, runs, bytes, live);
  return 1;
}

int pm_kv_write_row_kind_column(pm_kv_write *w, const char *column, pm_error *err) {
  char *c = NULL;
  if (column && !(c = strdup(column))) return PM_NOMEM(err);
  free(w->row_kind_column);
  w->row_kind_column = c;
  return 0;
}

/* ------------------------------------------------------------ prepare */

static int slot_has_changes(const pm_kvslot *s) {
  return s->out.n || s->cl.n || s->compact_cl.n || s->n_before || s->compact_after.n || (s->dv && pm_dv_maintainer_modified(s->dv));
}

/* The bucket's new DV index file when its vectors changed since the last
 * prepare (Java's lazily generated CompactDeletionFile): the commit
 * message's compact increment new index file; the previous DV file of the
 * bucket is replaced in the index manifest by the committer (SEMANTICS 8.3). */
static int dv_prepare(pm_kv_write *w, pm_kvslot *s, pm_manifest_committable *c, pm_commit_message *m, pm_error *err) {
  if (!s->dv || !pm_dv_maintainer_modified(s->dv)) return 0;
  if (!w->has_dv_pf) {
    pm_path_factory_init(&w->dv_pf, w->t->fs, w->t->root);
    w->has_dv_pf = 1;
  }
  pm_index_file_meta *f = pm_arena_alloc(&c->arena, sizeof *f);
  if (!f) return PM_NOMEM(err);
  memset(f, 0, sizeof *f);
  int written = 0;
  int rc = pm_kv_dv_write(w->t, s->dv, &w->dv_pf, s->bucket_dir, &c->arena, f, &written, err);
  if (rc)
    return pm_error_prefix(err, "table %s.%s: writing the deletion vectors of bucket %d", w->t->database, w->t->name,
                           (int)s->bucket);
  if (written) {
    m->compact_new_index_files.items = f;
    m->compact_new_index_files.n = 1;
  }
  return 0;
}

static int list_dup(pm_arena *a, const pm_data_file_meta *items, size_t n, pm_file_list *out, pm_error *err) {
  out->n = n;
  out->items = NULL;
  if (!n) return 0;
  out->items = pm_arena_memdup(a, items, n * sizeof *items);
  return out->items ? 0 : PM_NOMEM(err);
}

/* Java's prepareCommit(waitCompaction): batch writes wait (BatchTableWrite);
 * stream writes wait for lookup tables (lookup-wait's default), with
 * commit.force-compact, and when the bucket has more than
 * num-sorted-run.stop-trigger + 1 sorted runs; a requested compaction and
 * deletion-vector buckets (their vectors are written here, Java's lazily
 * generated deletion file) are always waited for. */
static int prepare_waits(const pm_kv_write *w, const pm_kvslot *s) {
  const pm_core_options *co = &w->t->co;
  return !w->streaming || w->lookup || co->commit_force_compact || s->forced || s->dv ||
         pm_kv_levels_sorted_runs(&s->levels) > (size_t)co->num_sorted_run_stop_trigger + 1;
}

int pm_kv_write_prepare(pm_kv_write *w, int64_t identifier, pm_manifest_committable **out, pm_error *err) {
  *out = NULL;
  if (w->failed) return failed(w, err);
  int src = pm_kv_write_check_signal(w, err);
  if (src) return fail_with(w, src, err);
  for (size_t i = 0; i < w->n_slots; i++) {
    /* Java's flushWriteBuffer: the flush, then collect + trigger (also with nothing buffered) */
    pm_kvslot *s = w->slots[i];
    int had = s->n_chunks || s->n_runs;
    int rc = pm_kv_flush(w, s, err);
    if (!rc && !had) rc = pm_kv_compact_sync_trigger(w, s, err);
    if (rc) return fail_with(w, rc, err);
  }
  /* full-compaction.delta-commits: a full compaction of the buckets written, every
   * delta-commits identifiers (each batch commit), as Java's GlobalFullCompactionSinkWrite;
   * changelog-producer = full-compaction: at least every commit when unset */
  int delta_set = w->t->co.set[PM_CO_FULL_COMPACTION_DELTA_COMMITS];
  int32_t delta = delta_set ? w->t->co.full_compaction_delta_commits : -1;
  if (w->full_cl && delta < 1) delta = 1;
  if (w->compaction && delta > 0 && !w->postpone_rewrite && (identifier == INT64_MAX || identifier % delta == 0)) {
    for (size_t i = 0; i < w->n_slots; i++) {
      int rc = pm_kv_compact_slot(w, w->slots[i], 1, err);
      if (rc) return fail_with(w, rc, err);
    }
  }
  for (size_t i = 0; i < w->n_slots; i++) {
    pm_kvslot *s = w->slots[i];
    int rc = s->task ? pm_kv_compact_collect(w, s, prepare_waits(w, s), err) : 0;
    if (rc) return fail_with(w, rc, err);
  }
  pm_manifest_committable *c = calloc(1, sizeof *c);
  if (!c) return PM_NOMEM(err);
  c->arena = w->arena;
  pm_arena_init(&w->arena);
  c->identifier = identifier;
  c->message_version = PM_COMMIT_MESSAGE_VERSION;
  size_t n = 0;
  for (size_t i = 0; i < w->n_slots; i++) n += slot_has_changes(w->slots[i]);
  c->messages = pm_arena_alloc(&c->arena, (n ? n : 1) * sizeof *c->messages);
  if (!c->messages) {
    pm_committable_free(c);
    return PM_NOMEM(err);
  }
  memset(c->messages, 0, (n ? n : 1) * sizeof *c->messages);
  int rc = 0;
  for (size_t i = 0; !rc && i < w->n_slots; i++) {
    pm_kvslot *s = w->slots[i];
    if (!slot_has_changes(s)) continue;
    pm_commit_message *m = &c->messages[c->n_messages++];
    m->partition.data = pm_arena_memdup(&c->arena, s->part, s->part_len);
    m->partition.len = s->part_len;
    m->bucket = s->bucket;
    m->total_buckets = w->t->bucket;
    m->has_total_buckets = 1;
    rc = m->partition.data ? 0 : PM_NOMEM(err);
    if (!rc) rc = list_dup(&c->arena, s->out.items, s->out.n, &m->new_files, err);
    if (!rc) rc = list_dup(&c->arena, s->cl.items, s->cl.n, &m->changelog_files, err);
    if (!rc) rc = list_dup(&c->arena, s->compact_before, s->n_before, &m->compact_before, err);
    if (!rc) rc = list_dup(&c->arena, s->compact_after.items, s->compact_after.n, &m->compact_after, err);
    if (!rc) rc = list_dup(&c->arena, s->compact_cl.items, s->compact_cl.n, &m->compact_changelog, err);
    if (!rc) rc = dv_prepare(w, s, c, m, err);
  }
  if (!rc && w->buckets) rc = pm_kv_buckets_prepare(w->buckets, c, err);
  if (!rc && w->pp) rc = pm_kv_postpone_prepare(w, identifier, c, err);
  if (rc) {
    pm_committable_free(c);
    return fail_with(w, rc, err);
  }
  for (size_t i = 0; i < w->n_slots; i++) {
    pm_kvslot *s = w->slots[i];
    pm_kv_compact_handed(w, s);
    for (size_t k = 0; k < s->out.n; k++) free(s->out.paths[k]);
    s->out.n = 0;
    for (size_t k = 0; k < s->cl.n; k++) free(s->cl.paths[k]);
    s->cl.n = 0;
    for (size_t k = 0; k < s->compact_after.n; k++) free(s->compact_after.paths[k]);
    s->compact_after.n = 0;
    for (size_t k = 0; k < s->compact_cl.n; k++) free(s->compact_cl.paths[k]);
    s->compact_cl.n = 0;
    s->n_before = 0;
  }
  *out = c;
  return 0;
}

void pm_kv_write_free(pm_kv_write *w) {
  if (!w) return;
  pm_kv_compact_cancel_all(w); /* Java's close: cancel, wait, delete the results never handed out */
  for (size_t i = 0; i < w->n_slots; i++) slot_free(w, w->slots[i]);
  free(w->slots);
  pm_slot_map_free(&w->slot_map);
  pm_schema_release(&w->layout_schema);
  pm_schema_release(&w->file_schema);
  pm_type_free(&w->type);
  pm_type_free(&w->layout);
  pm_table_merge_free(&w->tm);
  if (w->key_fields)
    for (size_t k = 0; k < w->nk; k++) free(w->key_fields[k].name);
  free(w->key_fields);
  free(w->key_modes);
  free(w->value_modes);
  pm_kv_changelog_free(w->changelog);
  free(w->part_col);
  free(w->part_types);
  free(w->bkey_col);
  free(w->bkey_types);
  pm_row_writer_free(&w->bkey_rw);
  pm_kv_buckets_free(w->buckets);
  pm_kv_cross_free(w->cross);
  free(w->row_kind_column);
  pm_manifest_entries_clear(&w->previous);
  pm_index_entries_clear(&w->dv_index);
  pm_arena_free(&w->arena);
  pm_spill_free(&w->spill);
  pm_kv_postpone_free(w->pp);
  free(w->commit_user);
  free(w->file_prefix);
  pm_kv_compact_async_free(w);
  pm_write_signal_release(w->signal);
  pm_table_free(w->t);
  free(w);
}

/* ------------------------------------------------------------ table writer entry points (write.h) */

int pm_table_write_arrow_kind(pm_table_write *w, const struct ArrowSchema *s, const struct ArrowArray *a, int kind,
                              pm_error *err) {
  if (w->kv) return pm_kv_write_arrow(w->kv, s, a, kind, err);
  if (kind != PM_ROWKIND_INSERT && kind != PM_ROWKIND_UPDATE_AFTER)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s is an append table: it takes only +I / +U rows, not %s", w->t->database,
                     w->t->name, pm_rowkind_name(kind) ? pm_rowkind_name(kind) : "an invalid row kind");
  return pm_table_write_arrow(w, s, a, err);
}

int pm_table_write_compact(pm_table_write *w, const pm_partition_spec *spec, int32_t bucket, int full, pm_error *err) {
  pm_compact_request req = {spec, spec ? 1 : 0, NULL, bucket, full, NULL, NULL};
  return pm_table_write_compact_req(w, &req, err);
}

int pm_table_write_compact_req(pm_table_write *w, const pm_compact_request *req, pm_error *err) {
  if (!w->kv) return pm_append_compact(w, req, err);
  return pm_kv_write_compact(w->kv, req, err);
}

int pm_table_write_compact_stats(const pm_table_write *w, struct pm_kv_compact_stats *out) {
  if (!w->kv) {
    *out = w->cstats;
    return 1;
  }
  pm_kv_write_compact_stats(w->kv, out);
  return 1;
}

int pm_table_write_row_kind_column(pm_table_write *w, const char *column, pm_error *err) {
  if (!w->kv)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s is an append table: a row-kind column is for primary-key tables", w->t->database,
                     w->t->name);
  return pm_kv_write_row_kind_column(w->kv, column, err);
}

void pm_table_write_watch(pm_table_write *w, pm_write_signal *s) {
  if (w && w->kv) pm_kv_write_watch(w->kv, s);
}
