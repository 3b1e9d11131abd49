/* The append-table writer (write.h): options, routing of rows to
 * (partition, bucket) writers, rolling, bounded open files, commit messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/compute.h"
#include "table/append_compact.h"
#include "io/fs.h"
#include "table/kv_write.h"
#include "table/merge.h"
#include "table/partition.h"
#include "table/scan.h"
#include "table/write_internal.h"
#include "util/random.h"

/* ------------------------------------------------------------ slots */

void pm_wslot_free(pm_table_write *w, pm_wslot *s, int delete_files) {
  if (!s) return;
  pm_wfile_abort(w, s);
  for (size_t i = 0; i < s->n_files; i++) {
    if (delete_files && s->file_paths[i]) {
      pm_error e;
      pm_fs_delete(w->t->fs, s->file_paths[i], &e);
    }
    free(s->file_paths[i]);
  }
  for (size_t i = 0; i < s->n_index_paths; i++) {
    if (delete_files) {
      pm_error e;
      pm_fs_delete(w->t->fs, s->index_paths[i], &e);
    }
    free(s->index_paths[i]);
  }
  free(s->index_paths);
  free(s->files);
  free(s->file_paths);
  free(s->part);
  free(s->bucket_dir);
  free(s->rel_dir);
  free(s->rows);
  free(s);
}

int pm_wslot_new(pm_table_write *w, const uint8_t *part, size_t part_len, int32_t bucket, pm_wslot **out,
                 pm_error *err) {
  *out = NULL;
  pm_wslot *s = calloc(1, sizeof *s);
  if (!s) return PM_NOMEM(err);
  s->part = malloc(part_len ? part_len : 1);
  s->part_len = part_len;
  s->bucket = bucket;
  if (w->n_ext) {
    uint32_t r;
    pm_random_bytes(&r, sizeof r);
    /* Java starts a round-robin provider at a random root, an entropy-inject one at 0 */
    s->ext_pos = w->ext_strategy == PM_EXT_PATH_ENTROPY_INJECT ? 0 : (int64_t)(r % w->n_ext);
  }
  int rc = s->part ? 0 : PM_NOMEM(err);
  if (!rc) memcpy(s->part, part, part_len);
  char *pdir = NULL;
  pm_bytes pb = {s->part, part_len};
  if (!rc) rc = pm_partition_path(w->t, pb, &pdir, err);
  if (!rc) rc = pm_table_bucket_path(w->t, pdir, bucket, &s->bucket_dir, err);
  if (!rc) {
    const char *pd = w->t->data_path_directory;
    size_t n = (pd ? strlen(pd) + 1 : 0) + strlen(pdir) + 32;
    s->rel_dir = malloc(n);
    if (!s->rel_dir) rc = PM_NOMEM(err);
    else
      snprintf(s->rel_dir, n, "%s%s%s%sbucket-%d", pd ? pd : "", pd ? "/" : "", pdir, *pdir ? "/" : "", (int)bucket);
  }
  free(pdir);
  if (rc) {
    pm_wslot_free(w, s, 0);
    return rc;
  }
  *out = s;
  return 0;
}

int pm_wslot_get(pm_table_write *w, const uint8_t *part, size_t part_len, int32_t bucket, pm_wslot **out,
                    pm_error *err) {
  int64_t pos = pm_slot_map_find(&w->slot_map, part, part_len, bucket);
  if (pos >= 0) {
    *out = w->slots[pos];
    return 0;
  }
  pm_wslot *s = NULL;
  PM_TRY(pm_wslot_new(w, part, part_len, bucket, &s, err));
  int rc = 0;
  if (!rc && w->fixed && !w->ignore_previous && !w->seq_per_file) {
    rc = pm_write_previous_files(w->t, &w->restored, &w->previous, err);
    if (!rc) rc = pm_write_slot_restore(w->t, &w->previous, s->part, part_len, bucket, &s->next_seq, err);
  }
  if (!rc && w->n_slots == w->cap_slots) {
    size_t cap = w->cap_slots ? 2 * w->cap_slots : 16;
    pm_wslot **ns = realloc(w->slots, cap * sizeof *ns);
    if (!ns) rc = PM_NOMEM(err);
    else {
      w->slots = ns;
      w->cap_slots = cap;
    }
  }
  if (rc) {
    pm_wslot_free(w, s, 0);
    return rc;
  }
  rc = pm_slot_map_add(&w->slot_map, s->part, part_len, bucket, w->n_slots, err);
  if (rc) {
    pm_wslot_free(w, s, 0);
    return rc;
  }
  w->slots[w->n_slots++] = s;
  *out = s;
  return 0;
}

/* ------------------------------------------------------------ open */

/* Java's Parquet field ids of ARRAY elements and MAP keys / values
 * (SpecialFields: base Integer.MAX_VALUE / 4, 1024 per field id, + depth). */
#define NESTED_ID_BASE 536870911
int pm_write_nested_ids(struct ArrowSchema *s, const pm_data_type *t, int32_t fid, int32_t depth, pm_error *err) {
  const char *k[1] = {"PARQUET:field_id"};
  char v[24];
  const char *vv[1] = {v};
  switch (t->root) {
    case PM_DT_ARRAY:
    case PM_DT_VECTOR:
      snprintf(v, sizeof v, "%d", NESTED_ID_BASE + fid * 1024 + depth + 1);
      PM_TRY(pm_schema_set_metadata(s->children[0], 1, k, vv, err));
      return pm_write_nested_ids(s->children[0], t->element, fid, depth + 1, err);
    case PM_DT_MAP:
    case PM_DT_MULTISET: {
      struct ArrowSchema *e = s->children[0];
      snprintf(v, sizeof v, "%d", NESTED_ID_BASE - fid * 1024 - depth - 1);
      PM_TRY(pm_schema_set_metadata(e->children[0], 1, k, vv, err));
      snprintf(v, sizeof v, "%d", NESTED_ID_BASE + fid * 1024 + depth + 1);
      PM_TRY(pm_schema_set_metadata(e->children[1], 1, k, vv, err));
      PM_TRY(pm_write_nested_ids(e->children[0], t->root == PM_DT_MAP ? t->key : t->element, fid, depth + 1, err));
      if (t->root == PM_DT_MAP) PM_TRY(pm_write_nested_ids(e->children[1], t->value, fid, depth + 1, err));
      return 0;
    }
    case PM_DT_ROW:
      for (size_t i = 0; i < t->n_fields; i++)
        PM_TRY(pm_write_nested_ids(s->children[i], t->fields[i].type, t->fields[i].id, 0, err));
      return 0;
    default: return 0;
  }
}

int pm_write_stats_modes(const pm_table *t, const pm_data_field *fields, size_t n, int nested_none,
                         pm_stats_mode **out, pm_error *err) {
  return pm_write_stats_modes_def(t, fields, n, nested_none, t->co.metadata_stats_mode, PM_CO_METADATA_STATS_MODE, out,
                                  err);
}

int pm_write_stats_modes_def(const pm_table *t, const pm_data_field *fields, size_t n, int nested_none,
                             const char *def_mode, pm_co_id def_option, pm_stats_mode **out,
                             pm_error *err) {
  const pm_core_options *co = &t->co;
  pm_stats_mode *modes = *out = calloc(n + 1, sizeof *modes);
  if (!modes) return PM_NOMEM(err);
  pm_stats_mode def;
  int rc = pm_stats_mode_parse(def_mode, &def, err);
  if (rc) return pm_error_prefix(err, "option '%s'", pm_core_option_key(def_option));
  for (size_t i = 0; i < n; i++) {
    const char *fm = pm_field_option(&t->options, fields[i].name, PM_FIELD_STATS_MODE);
    if (fm) {
      if (pm_stats_mode_parse(fm, &modes[i], err)) {
        char key[512];
        pm_field_option_key(fields[i].name, PM_FIELD_STATS_MODE, key, sizeof key);
        return pm_error_prefix(err, "option '%s'", key);
      }
    } else if (co->metadata_stats_keep_first_n >= 0 && (int64_t)i >= co->metadata_stats_keep_first_n) {
      modes[i].kind = PM_STATS_NONE;
    } else {
      modes[i] = def;
    }
    if (nested_none && pm_dtype_is_nested(fields[i].type->root)) modes[i].kind = PM_STATS_NONE;
  }
  return 0;
}

static int stats_modes(pm_table_write *w, pm_error *err) {
  return pm_write_stats_modes(w->t, w->fields, w->n_fields, w->nested_none, &w->modes, err);
}

/* w->fields = the table columns named by cols (table order; each once). */
static int write_columns(pm_table_write *w, const char *const *cols, size_t n, pm_error *err) {
  const pm_table_schema *sc = w->t->schema;
  w->own_fields = calloc(n + 1, sizeof *w->own_fields);
  if (!w->own_fields) return PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; i < sc->n_fields; i++)
    for (size_t j = 0; j < n; j++)
      if (cols[j] && !strcmp(cols[j], sc->fields[i].name)) {
        w->own_fields[k++] = sc->fields[i];
        break;
      }
  if (k != n)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: write columns: %zu names for %zu distinct columns",
                     w->t->database, w->t->name, n, k);
  w->fields = w->own_fields;
  w->n_fields = k;
  return 0;
}

static int key_columns(pm_table_write *w, char **names, size_t n, int **cols, const pm_data_type ***types,
                       const char *what, pm_error *err) {
  *cols = calloc(n + 1, sizeof **cols);
  *types = calloc(n + 1, sizeof **types);
  if (!*cols || !*types) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    int idx = pm_schema_field_index(w->t->schema, names[i]);
    if (idx < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: %s '%s' is not a column", w->t->database,
                       w->t->name, what, names[i]);
    (*cols)[i] = idx;
    (*types)[i] = w->fields[idx].type;
    if (pm_dtype_is_nested(w->fields[idx].type->root))
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "table %s.%s: %s '%s' has a nested type", w->t->database,
                       w->t->name, what, names[i]);
  }
  return 0;
}

static int write_open(pm_table *t, const pm_write_config *cfg, const char *const *cols, size_t n_cols,
                      pm_table_write **out, pm_error *err);

int pm_table_write_open(pm_table *t, const pm_write_config *cfg, pm_table_write **out, pm_error *err) {
  return write_open(t, cfg, NULL, 0, out, err);
}

int pm_table_write_open_cols(pm_table *t, const pm_write_config *cfg, const char *const *cols, size_t n,
                             pm_table_write **out, pm_error *err) {
  *out = NULL;
  if (!n || pm_table_has_pk(t))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: write columns need an append table and a column",
                     t->database, t->name);
  return write_open(t, cfg, cols, n, out, err);
}

static int write_open(pm_table *t, const pm_write_config *cfg, const char *const *cols, size_t n_cols,
                      pm_table_write **out, pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(t, err));
  if (pm_table_has_pk(t)) { /* primary-key tables: table/kv_write.h */
    pm_table_write *w = calloc(1, sizeof *w);
    if (!w) return PM_NOMEM(err);
    int rc = pm_kv_write_open(t, cfg, &w->kv, err);
    if (rc) free(w);
    else *out = w;
    return rc;
  }
  if (t->bucket_mode != PM_BUCKET_FIXED && t->bucket_mode != PM_BUCKET_UNAWARE)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "table %s.%s: bucket %d is not supported for append writes",
                     t->database, t->name, (int)t->bucket);
  if (t->bucket_mode == PM_BUCKET_FIXED && t->co.bucket_function != PM_BUCKET_FN_DEFAULT)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "table %s.%s: option '%s' = '%s' is not supported for writing",
                     t->database, t->name, pm_core_option_key(PM_CO_BUCKET_FUNCTION),
                     pm_core_option_text(&t->co, PM_CO_BUCKET_FUNCTION));
  pm_table_write *w = calloc(1, sizeof *w);
  if (!w) return PM_NOMEM(err);
  w->t = pm_table_retain(t);
  pm_arena_init(&w->arena);
  pm_manifest_entries_init(&w->previous);
  w->streaming = cfg ? cfg->streaming : 0;
  w->ignore_previous = cfg ? cfg->ignore_previous_files : 0;
  int rc = 0;
  if (cfg && cfg->commit_user && !(w->commit_user = strdup(cfg->commit_user))) rc = PM_NOMEM(err);
  const pm_core_options *co = &t->co;
  w->fmt = pm_format_by_name(co->file_format);
  if (!rc && (!w->fmt || !w->fmt->writer_open || !strcmp(w->fmt->name, "blob")))
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "option '%s' = '%s': not a format this library writes",
                   pm_core_option_key(PM_CO_FILE_FORMAT), co->file_format);
  pm_format_write_options_init(&w->wo);
  w->wo.compression = co->file_compression;
  if (co->file_compression && !strcasecmp(co->file_compression, "zstd")) w->wo.compression_level = co->file_zstd_level;
  w->fields = t->schema->fields;
  w->n_fields = t->schema->n_fields;
  if (!rc && n_cols) rc = write_columns(w, cols, n_cols, err);
  w->nested_none = w->fmt && strcmp(w->fmt->name, "avro") != 0;
  w->dense = co->metadata_stats_dense_store;
  w->fixed = t->bucket_mode == PM_BUCKET_FIXED;
  w->seq_per_file = t->row_tracking || t->data_evolution;
  w->target = (uint64_t)co->target_file_size;
  w->max_open = cfg && cfg->max_writers > 0 ? cfg->max_writers : co->write_max_writers_to_spill;
  if (w->max_open < 1) w->max_open = 1;
  w->mem_budget = (uint64_t)co->write_buffer_size / 2;
  pm_uuid_random(w->uuid);
  if (!rc) rc = pm_dfields_to_arrow(w->fields, w->n_fields, &w->schema, err);
  for (size_t i = 0; !rc && w->fmt && !strcmp(w->fmt->name, "parquet") && i < w->n_fields; i++)
    rc = pm_write_nested_ids(w->schema.children[i], w->fields[i].type, w->fields[i].id, 0, err);
  if (!rc) rc = pm_type_from_schema(&w->schema, &w->type, err);
  if (!rc) rc = stats_modes(w, err);
  w->n_part = w->own_fields ? 0 : t->n_partition_keys;
  if (w->own_fields) w->fixed = 0, w->target = UINT64_MAX; /* callers route and roll */
  if (!rc) rc = key_columns(w, t->partition_keys, w->n_part, &w->part_col, &w->part_types, "partition key",
                            err);
  if (!rc && w->fixed) {
    w->n_bkey = t->n_bucket_keys;
    if (!w->n_bkey)
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: bucket %d needs option '%s'", t->database,
                     t->name, (int)t->bucket, pm_core_option_key(PM_CO_BUCKET_KEY));
    if (!rc) rc = key_columns(w, t->bucket_keys, t->n_bucket_keys, &w->bkey_col, &w->bkey_types, "bucket key", err);
  }
  if (!rc) rc = pm_wfile_external_roots(w, err);
  if (rc) {
    pm_table_write_free(w);
    return rc;
  }
  *out = w;
  return 0;
}

/* ------------------------------------------------------------ writing */

/* Closes least recently used files until one more may open. Files of the
 * batch being written stay open (a batch spread over more slots than the
 * limit would otherwise close and reopen files on every batch), up to
 * PM_WRITE_MAX_OPEN_FILES open files. */
static int make_room(pm_table_write *w, pm_wslot *keep, pm_error *err) {
  while (w->n_open >= w->max_open) {
    int hard = w->n_open >= PM_WRITE_MAX_OPEN_FILES;
    pm_wslot *lru = NULL;
    for (size_t i = 0; i < w->n_slots; i++) {
      pm_wslot *s = w->slots[i];
      if (s != keep && s->open && (hard || s->batch != w->batch_no) && (!lru || s->last_use < lru->last_use))
        lru = s;
    }
    if (!lru) break;
    PM_TRY(pm_wfile_close(w, lru, err));
  }
  return 0;
}

/* Memory of the open files (Parquet's MemoryManager idea): each may hold
 * budget / open files in memory before its rows are written out (a row
 * group ends early), so many open writers stay under the budget together. */
static int bound_memory(pm_table_write *w, pm_wfile *f, pm_error *err) {
  if (!w->mem_budget || w->n_open < 1) return 0;
  uint64_t lim = w->mem_budget / (uint64_t)w->n_open;
  if (pm_format_writer_buffered(f->fw) <= lim) return 0;
  return pm_format_writer_flush(f->fw, err);
}

int pm_wslot_write(pm_table_write *w, pm_wslot *s, const struct ArrowArray *b, pm_error *err) {
  int64_t len = b->length;
  if (!len) return 0;
  s->last_use = ++w->tick;
  double bpr = (double)pm_write_batch_bytes(b, w->fields, w->n_fields) / (double)len;
  if (bpr < 1) bpr = 1;
  int64_t done = 0;
  while (done < len) {
    double ratio = pm_write_size_ratio(w->closed_fed, w->closed_bytes); /* learned as files close */
    if (!s->open) {
      PM_TRY(make_room(w, s, err));
      PM_TRY(pm_wfile_open(w, s, err));
    }
    pm_wfile *f = s->open;
    double pb, room = (double)w->target - pm_write_roll_size(f->fw, (double)f->fed, ratio, &pb);
    int64_t n = room <= 0 ? 1 : (int64_t)(room / (bpr * pb)) + 1;
    if (n > len - done) n = len - done;
    if (n < 1) n = 1;
    int rc;
    if (done == 0 && n == len) {
      rc = pm_wfile_write(w, s, b, err);
    } else {
      struct ArrowArray part;
      rc = pm_write_slice(b, done, n, &part, err);
      if (!rc) {
        rc = pm_wfile_write(w, s, &part, err);
        part.release(&part);
      }
    }
    if (rc) return rc;
    f->fed += (uint64_t)(bpr * (double)n);
    if (pm_write_roll_size(f->fw, (double)f->fed, ratio, &pb) >= (double)w->target) PM_TRY(pm_wfile_close(w, s, err));
    else PM_TRY(bound_memory(w, f, err));
    done += n;
  }
  return 0;
}

static int write_routed(pm_table_write *w, const struct ArrowArray *b, pm_error *err) {
  w->batch_no++;
  if (!w->n_part && !w->fixed) {
    pm_wslot *s = NULL;
    PM_TRY(pm_wslot_get(w, PM_EMPTY_ROW_BYTES, sizeof PM_EMPTY_ROW_BYTES, 0, &s, err));
    s->batch = w->batch_no;
    return pm_wslot_write(w, s, b, err);
  }
  PM_TRY(pm_write_route(w, b, err));
  pm_route_scratch *x = &w->route;
  int rc = 0;
  for (size_t i = 0; !rc && i < x->n_touched; i++) {
    pm_wslot *s = x->touched[i];
    if ((int64_t)s->n_rows == b->length) {
      rc = pm_wslot_write(w, s, b, err);
    } else {
      struct ArrowArray sub;
      rc = pm_take(&w->type, b, s->rows, (int64_t)s->n_rows, &sub, err);
      if (!rc) {
        rc = pm_wslot_write(w, s, &sub, err);
        sub.release(&sub);
      }
    }
  }
  for (size_t i = 0; i < x->n_touched; i++) x->touched[i]->n_rows = 0;
  return rc;
}

static int failed(pm_table_write *w, pm_error *err) {
  if (err) *err = w->fail;
  return (int)w->fail.code;
}

static int fail_with(pm_table_write *w, int rc, pm_error *err) {
  w->failed = 1;
  if (err) w->fail = *err;
  if (!w->fail.code) w->fail.code = (paimon_status)rc;
  return rc;
}

int pm_table_write_arrow(pm_table_write *w, const struct ArrowSchema *s, const struct ArrowArray *a, pm_error *err) {
  if (w->kv) return pm_kv_write_arrow(w->kv, s, a, PM_ROWKIND_INSERT, err);
  if (w->failed) return failed(w, err);
  struct ArrowArray nb;
  PM_TRY(pm_write_match(w->fields, w->n_fields, s, a, &nb, err));
  int rc = write_routed(w, &nb, err);
  if (!rc) w->rows_written += nb.length;
  nb.release(&nb);
  return rc ? fail_with(w, rc, err) : 0;
}

int64_t pm_table_write_rows(const pm_table_write *w) { return w->kv ? pm_kv_write_rows(w->kv) : w->rows_written; }

/* ------------------------------------------------------------ prepare */

int pm_table_write_prepare(pm_table_write *w, int64_t identifier, pm_manifest_committable **out, pm_error *err) {
  *out = NULL;
  if (w->kv) return pm_kv_write_prepare(w->kv, identifier, out, err);
  if (w->failed) return failed(w, err);
  for (size_t i = 0; i < w->n_slots; i++) {
    int rc = pm_wfile_close(w, w->slots[i], err);
    if (rc) return fail_with(w, rc, err);
  }
  pm_manifest_committable *c = calloc(1, sizeof *c);
  if (!c) return PM_NOMEM(err);
  c->arena = w->arena;
  pm_arena_init(&w->arena);
  c->identifier = identifier;
  c->message_version = PM_COMMIT_MESSAGE_VERSION;
  size_t n = pm_append_compact_pending(w);
  for (size_t i = 0; i < w->n_slots; i++) n += w->slots[i]->n_files > 0;
  c->messages = pm_arena_alloc(&c->arena, (n ? n : 1) * sizeof *c->messages);
  if (!c->messages) {
    pm_committable_free(c);
    return PM_NOMEM(err);
  }
  memset(c->messages, 0, (n ? n : 1) * sizeof *c->messages);
  int rc = 0;
  for (size_t i = 0; !rc && i < w->n_slots; i++) {
    pm_wslot *s = w->slots[i];
    if (!s->n_files) continue;
    pm_commit_message *m = &c->messages[c->n_messages++];
    m->partition.data = pm_arena_memdup(&c->arena, s->part, s->part_len);
    m->partition.len = s->part_len;
    m->bucket = s->bucket;
    m->total_buckets = w->t->bucket;
    m->has_total_buckets = 1;
    m->new_files.items = pm_arena_memdup(&c->arena, s->files, s->n_files * sizeof *s->files);
    m->new_files.n = s->n_files;
    if (!m->partition.data || !m->new_files.items) rc = PM_NOMEM(err);
  }
  if (!rc) rc = pm_append_compact_messages(w, c, err);
  if (rc) {
    /* the metas' strings now live in c's arena: nothing can be handed out; the files stay deletable */
    pm_committable_free(c);
    return fail_with(w, rc, err);
  }
  for (size_t i = 0; i < w->n_slots; i++) {
    pm_wslot *s = w->slots[i];
    for (size_t k = 0; k < s->n_files; k++) free(s->file_paths[k]);
    s->n_files = 0;
    for (size_t k = 0; k < s->n_index_paths; k++) free(s->index_paths[k]);
    s->n_index_paths = 0;
  }
  pm_append_compact_handed(w);
  *out = c;
  return 0;
}

void pm_table_write_free(pm_table_write *w) {
  if (!w) return;
  pm_kv_write_free(w->kv);
  for (size_t i = 0; i < w->n_slots; i++) pm_wslot_free(w, w->slots[i], 1);
  pm_append_compact_free(w);
  free(w->slots);
  pm_slot_map_free(&w->slot_map);
  pm_route_scratch_free(&w->route);
  for (size_t i = 0; i < w->n_ext; i++) free(w->ext_roots[i]);
  free(w->ext_roots);
  free(w->ext_weights);
  if (w->schema.release) w->schema.release(&w->schema);
  pm_type_free(&w->type);
  free(w->modes);
  free(w->part_col);
  free(w->part_types);
  free(w->own_fields);
  free(w->bkey_col);
  free(w->bkey_types);
  free(w->commit_user);
  pm_manifest_entries_clear(&w->previous);
  pm_arena_free(&w->arena);
  pm_table_free(w->t);
  free(w);
}
