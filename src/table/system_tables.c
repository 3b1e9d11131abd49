/* System tables ($snapshots, $schemas, $options, $files, $partitions, $tags, $branches, $manifests). */
#include "table/system_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "io/file.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "table/scan.h"

typedef enum col_kind { C_I64, C_I32, C_STR, C_TS } col_kind;
typedef struct col_spec {
  const char *name;
  col_kind kind;
} col_spec;

typedef struct sys_table {
  pm_type type;
  pm_builder *b;
  size_t n;
} sys_table;

static int sys_begin(sys_table *st, const col_spec *cols, size_t n, pm_error *err) {
  memset(st, 0, sizeof *st);
  PM_TRY(pm_type_init(&st->type, PM_T_STRUCT, "", 0, (int64_t)n, err));
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    pm_type_id id = cols[i].kind == C_I64 ? PM_T_INT64 : cols[i].kind == C_I32 ? PM_T_INT32
                    : cols[i].kind == C_STR ? PM_T_UTF8 : PM_T_TIMESTAMP;
    rc = pm_type_init(&st->type.children[i], id, cols[i].name, 1, 0, err);
    if (id == PM_T_TIMESTAMP) { /* instants: zoned, so they print with their zone ("...Z") */
      st->type.children[i].unit = PM_UNIT_MS;
      if (!rc && !(st->type.children[i].tz = strdup("UTC"))) rc = PM_NOMEM(err);
    }
  }
  if (!rc) rc = pm_builder_new(&st->type, &st->b, err);
  st->n = n;
  return rc;
}

static void sys_free(sys_table *st) {
  pm_builder_free(st->b);
  pm_type_free(&st->type);
}

static pm_builder *col(sys_table *st, size_t i) { return pm_builder_child(st->b, (int64_t)i); }

static int put_i64(sys_table *st, size_t i, int64_t v, int present, pm_error *err) {
  return present ? pm_builder_append_int(col(st, i), v, err) : pm_builder_append_null(col(st, i), err);
}
static int put_str(sys_table *st, size_t i, const char *s, pm_error *err) {
  return s ? pm_builder_append_str(col(st, i), s, err) : pm_builder_append_null(col(st, i), err);
}
static int end_row(sys_table *st, pm_error *err) { return pm_builder_append_valid(st->b, err); }

static int sys_finish(sys_table *st, struct ArrowArrayStream *out, pm_error *err) {
  struct ArrowSchema schema;
  struct ArrowArray batch;
  memset(&schema, 0, sizeof schema);
  memset(&batch, 0, sizeof batch);
  PM_TRY(pm_builder_schema(st->b, "", &schema, err));
  int rc = pm_builder_finish(st->b, &batch, err);
  if (rc) {
    pm_schema_release(&schema);
    return rc;
  }
  return pm_stream_from_batches(&schema, &batch, 1, out, err);
}


static int snapshots_table(pm_table *t, struct ArrowArrayStream *out, pm_error *err) {
  static const col_spec cols[] = {{"snapshot_id", C_I64},          {"schema_id", C_I64},
                                  {"commit_user", C_STR},          {"commit_identifier", C_I64},
                                  {"commit_kind", C_STR},          {"commit_time", C_TS},
                                  {"total_record_count", C_I64},   {"delta_record_count", C_I64},
                                  {"changelog_record_count", C_I64}, {"watermark", C_I64},
                                  {"base_manifest_list", C_STR},   {"delta_manifest_list", C_STR},
                                  {"changelog_manifest_list", C_STR}, {"index_manifest", C_STR}};
  sys_table st;
  int rc = sys_begin(&st, cols, sizeof cols / sizeof cols[0], err);
  int64_t *ids = NULL;
  size_t n = 0;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  if (!rc) rc = pm_snapshot_list_ids(&sm, &ids, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_read(&sm, ids[i], &s, err);
    if (rc) break;
    rc = put_i64(&st, 0, s->id, 1, err);
    if (!rc) rc = put_i64(&st, 1, s->schema_id, 1, err);
    if (!rc) rc = put_str(&st, 2, s->commit_user, err);
    if (!rc) rc = put_i64(&st, 3, s->commit_identifier, 1, err);
    if (!rc) rc = put_str(&st, 4, s->commit_kind, err);
    if (!rc) rc = put_i64(&st, 5, s->time_millis, 1, err);
    if (!rc) rc = put_i64(&st, 6, s->total_record_count, s->has_total_record_count, err);
    if (!rc) rc = put_i64(&st, 7, s->delta_record_count, s->has_delta_record_count, err);
    if (!rc) rc = put_i64(&st, 8, s->changelog_record_count, s->has_changelog_record_count, err);
    if (!rc) rc = put_i64(&st, 9, s->watermark, s->has_watermark, err);
    if (!rc) rc = put_str(&st, 10, s->base_manifest_list, err);
    if (!rc) rc = put_str(&st, 11, s->delta_manifest_list, err);
    if (!rc) rc = put_str(&st, 12, s->changelog_manifest_list, err);
    if (!rc) rc = put_str(&st, 13, s->index_manifest, err);
    if (!rc) rc = end_row(&st, err);
    pm_snapshot_free(s);
  }
  free(ids);
  if (!rc) rc = sys_finish(&st, out, err);
  sys_free(&st);
  return rc;
}

static char *json_strings(char **v, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < n; i++) json_array_append_new(a, json_string(v[i]));
  char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
  json_decref(a);
  return s;
}

static int schemas_table(pm_table *t, struct ArrowArrayStream *out, pm_error *err) {
  static const col_spec cols[] = {{"schema_id", C_I64},   {"fields", C_STR},  {"partition_keys", C_STR},
                                  {"primary_keys", C_STR}, {"options", C_STR}, {"comment", C_STR},
                                  {"update_time", C_TS}};
  sys_table st;
  int rc = sys_begin(&st, cols, sizeof cols / sizeof cols[0], err);
  int64_t *ids = NULL;
  size_t n = 0;
  pm_schema_manager scm = pm_table_schemas(t);
  if (!rc) rc = pm_schema_list_ids(&scm, &ids, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    const pm_table_schema *s = NULL;
    rc = pm_table_schema_by_id(t, ids[i], &s, err);
    if (rc) break;
    json_t *fa = json_array();
    for (size_t k = 0; fa && k < s->n_fields; k++) json_array_append_new(fa, pm_data_field_to_json(&s->fields[k]));
    char *fields = fa ? json_dumps(fa, JSON_COMPACT) : NULL;
    json_decref(fa);
    json_t *oo = json_object();
    for (size_t k = 0; oo && k < s->options.n; k++) json_object_set_new(oo, s->options.keys[k], json_string(s->options.values[k]));
    char *opts = oo ? json_dumps(oo, JSON_COMPACT | JSON_PRESERVE_ORDER) : NULL;
    json_decref(oo);
    char *pk = json_strings(s->partition_keys, s->n_partition_keys);
    char *pkeys = json_strings(s->primary_keys, s->n_primary_keys);
    if (!fields || !opts || !pk || !pkeys) rc = PM_NOMEM(err);
    if (!rc) rc = put_i64(&st, 0, s->id, 1, err);
    if (!rc) rc = put_str(&st, 1, fields, err);
    if (!rc) rc = put_str(&st, 2, pk, err);
    if (!rc) rc = put_str(&st, 3, pkeys, err);
    if (!rc) rc = put_str(&st, 4, opts, err);
    if (!rc) rc = put_str(&st, 5, s->comment, err);
    if (!rc) rc = put_i64(&st, 6, s->time_millis, 1, err);
    if (!rc) rc = end_row(&st, err);
    free(fields);
    free(opts);
    free(pk);
    free(pkeys);
  }
  free(ids);
  if (!rc) rc = sys_finish(&st, out, err);
  sys_free(&st);
  return rc;
}

static int options_table(pm_table *t, struct ArrowArrayStream *out, pm_error *err) {
  static const col_spec cols[] = {{"key", C_STR}, {"value", C_STR}};
  sys_table st;
  int rc = sys_begin(&st, cols, 2, err);
  for (size_t i = 0; !rc && i < t->schema->options.n; i++) {
    rc = put_str(&st, 0, t->schema->options.keys[i], err);
    if (!rc) rc = put_str(&st, 1, t->schema->options.values[i], err);
    if (!rc) rc = end_row(&st, err);
  }
  if (!rc) rc = sys_finish(&st, out, err);
  sys_free(&st);
  return rc;
}

static const char *file_format_of(const char *name) {
  const char *dot = strrchr(name, '.');
  return dot ? dot + 1 : "";
}

static int live_entries(pm_table *t, pm_manifest_entries *v, pm_error *err) {
  pm_snapshot *snap = NULL;
  PM_TRY(pm_scan_resolve_snapshot(t, &snap, err));
  int rc = snap ? pm_scan_live_files(t, snap, NULL, v, err) : 0;
  pm_snapshot_free(snap);
  return rc;
}

static int files_table(pm_table *t, struct ArrowArrayStream *out, pm_error *err) {
  static const col_spec cols[] = {{"partition", C_STR},          {"bucket", C_I32},
                                  {"file_path", C_STR},          {"file_format", C_STR},
                                  {"schema_id", C_I64},          {"level", C_I32},
                                  {"record_count", C_I64},       {"file_size_in_bytes", C_I64},
                                  {"min_sequence_number", C_I64}, {"max_sequence_number", C_I64},
                                  {"creation_time", C_TS},       {"delete_row_count", C_I64},
                                  {"external_path", C_STR}};
  sys_table st;
  int rc = sys_begin(&st, cols, sizeof cols / sizeof cols[0], err);
  pm_manifest_entries v;
  pm_manifest_entries_init(&v);
  if (!rc) rc = live_entries(t, &v, err);
  for (size_t i = 0; !rc && i < v.n; i++) {
    const pm_manifest_entry *e = &v.items[i];
    char *part = NULL, *pdir = NULL, *bpath = NULL, *path = NULL;
    rc = pm_scan_partition_string(t, e->partition.data, e->partition.len, &part, err);
    if (!rc) rc = pm_scan_partition_dir(t, e->partition.data, e->partition.len, &pdir, err);
    if (!rc) rc = pm_table_bucket_path(t, pdir, e->bucket, &bpath, err);
    if (!rc) rc = pm_table_data_file_path(t, bpath, e->file.file_name, e->file.external_path, &path, err);
    if (!rc) rc = put_str(&st, 0, part, err);
    if (!rc) rc = put_i64(&st, 1, e->bucket, 1, err);
    if (!rc) rc = put_str(&st, 2, path, err);
    if (!rc) rc = put_str(&st, 3, file_format_of(e->file.file_name), err);
    if (!rc) rc = put_i64(&st, 4, e->file.schema_id, 1, err);
    if (!rc) rc = put_i64(&st, 5, e->file.level, 1, err);
    if (!rc) rc = put_i64(&st, 6, e->file.row_count, 1, err);
    if (!rc) rc = put_i64(&st, 7, e->file.file_size, 1, err);
    if (!rc) rc = put_i64(&st, 8, e->file.min_sequence_number, 1, err);
    if (!rc) rc = put_i64(&st, 9, e->file.max_sequence_number, 1, err);
    if (!rc) rc = put_i64(&st, 10, e->file.creation_time_millis, e->file.has_creation_time, err);
    if (!rc) rc = put_i64(&st, 11, e->file.delete_row_count, e->file.has_delete_row_count, err);
    if (!rc) rc = put_str(&st, 12, e->file.external_path, err);
    if (!rc) rc = end_row(&st, err);
    free(part);
    free(pdir);
    free(bpath);
    free(path);
  }
  pm_manifest_entries_clear(&v);
  if (!rc) rc = sys_finish(&st, out, err);
  sys_free(&st);
  return rc;
}

static int cmp_entry_partition(const void *x, const void *y) {
  const pm_manifest_entry *a = *(const pm_manifest_entry *const *)x, *b = *(const pm_manifest_entry *const *)y;
  if (a->partition.len != b->partition.len) return a->partition.len < b->partition.len ? -1 : 1;
  return a->partition.len ? memcmp(a->partition.data, b->partition.data, a->partition.len) : 0;
}

static int partitions_table(pm_table *t, struct ArrowArrayStream *out, pm_error *err) {
  static const col_spec cols[] = {{"partition", C_STR}, {"record_count", C_I64}, {"file_size_in_bytes", C_I64},
                                  {"file_count", C_I64}, {"last_update_time", C_TS}};
  sys_table st;
  int rc = sys_begin(&st, cols, sizeof cols / sizeof cols[0], err);
  pm_manifest_entries v;
  pm_manifest_entries_init(&v);
  if (!rc) rc = live_entries(t, &v, err);
  const pm_manifest_entry **sorted = NULL;
  if (!rc && v.n) {
    sorted = malloc(v.n * sizeof *sorted);
    if (!sorted) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < v.n; i++) sorted[i] = &v.items[i];
    if (!rc) qsort(sorted, v.n, sizeof *sorted, cmp_entry_partition);
  }
  for (size_t i = 0; !rc && i < v.n;) {
    size_t j = i;
    int64_t rows = 0, size = 0, files = 0, last = 0;
    int has_last = 0;
    while (j < v.n && cmp_entry_partition(&sorted[i], &sorted[j]) == 0) {
      rows += sorted[j]->file.row_count;
      size += sorted[j]->file.file_size;
      files++;
      if (sorted[j]->file.has_creation_time && (!has_last || sorted[j]->file.creation_time_millis > last)) {
        last = sorted[j]->file.creation_time_millis;
        has_last = 1;
      }
      j++;
    }
    char *part = NULL;
    rc = pm_scan_partition_string(t, sorted[i]->partition.data, sorted[i]->partition.len, &part, err);
    if (!rc) rc = put_str(&st, 0, part, err);
    if (!rc) rc = put_i64(&st, 1, rows, 1, err);
    if (!rc) rc = put_i64(&st, 2, size, 1, err);
    if (!rc) rc = put_i64(&st, 3, files, 1, err);
    if (!rc) rc = put_i64(&st, 4, last, has_last, err);
    if (!rc) rc = end_row(&st, err);
    free(part);
    i = j;
  }
  free(sorted);
  pm_manifest_entries_clear(&v);
  if (!rc) rc = sys_finish(&st, out, err);
  sys_free(&st);
  return rc;
}

static int tags_table(pm_table *t, struct ArrowArrayStream *out, pm_error *err) {
  static const col_spec cols[] = {{"tag_name", C_STR}, {"snapshot_id", C_I64}, {"schema_id", C_I64},
                                  {"commit_time", C_TS}, {"record_count", C_I64}};
  sys_table st;
  int rc = sys_begin(&st, cols, sizeof cols / sizeof cols[0], err);
  char **names = NULL;
  size_t n = 0;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  if (!rc) rc = pm_tag_list(&sm, &names, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    pm_snapshot *s = NULL;
    rc = pm_tag_read(&sm, names[i], &s, err);
    if (rc) break;
    rc = put_str(&st, 0, names[i], err);
    if (!rc) rc = put_i64(&st, 1, s->id, 1, err);
    if (!rc) rc = put_i64(&st, 2, s->schema_id, 1, err);
    if (!rc) rc = put_i64(&st, 3, s->time_millis, 1, err);
    if (!rc) rc = put_i64(&st, 4, s->total_record_count, s->has_total_record_count, err);
    if (!rc) rc = end_row(&st, err);
    pm_snapshot_free(s);
  }
  pm_free_names(names, n);
  if (!rc) rc = sys_finish(&st, out, err);
  sys_free(&st);
  return rc;
}

static int branches_table(pm_table *t, struct ArrowArrayStream *out, pm_error *err) {
  static const col_spec cols[] = {{"branch_name", C_STR}};
  sys_table st;
  int rc = sys_begin(&st, cols, 1, err);
  char **names = NULL;
  size_t n = 0;
  if (!rc) rc = pm_branch_list(t->fs, t->root, &names, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    rc = put_str(&st, 0, names[i], err);
    if (!rc) rc = end_row(&st, err);
  }
  pm_free_names(names, n);
  if (!rc) rc = sys_finish(&st, out, err);
  sys_free(&st);
  return rc;
}

static int manifests_table(pm_table *t, struct ArrowArrayStream *out, pm_error *err) {
  static const col_spec cols[] = {{"file_name", C_STR}, {"file_size", C_I64}, {"num_added_files", C_I64},
                                  {"num_deleted_files", C_I64}, {"schema_id", C_I64}};
  sys_table st;
  int rc = sys_begin(&st, cols, sizeof cols / sizeof cols[0], err);
  pm_snapshot *snap = NULL;
  if (!rc) rc = pm_scan_resolve_snapshot(t, &snap, err);
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  const char *lists[2] = {snap ? snap->base_manifest_list : NULL, snap ? snap->delta_manifest_list : NULL};
  for (size_t i = 0; !rc && i < 2; i++) {
    if (!lists[i]) continue;
    char sub[1024];
    snprintf(sub, sizeof sub, "manifest/%s", lists[i]);
    char *p = pm_table_root_path(t, sub);
    rc = p ? pm_manifest_list_read(t->fs, p, &metas, err) : PM_NOMEM(err);
    free(p);
  }
  for (size_t i = 0; !rc && i < metas.n; i++) {
    const pm_manifest_file_meta *m = &metas.items[i];
    rc = put_str(&st, 0, m->file_name, err);
    if (!rc) rc = put_i64(&st, 1, m->file_size, 1, err);
    if (!rc) rc = put_i64(&st, 2, m->num_added_files, 1, err);
    if (!rc) rc = put_i64(&st, 3, m->num_deleted_files, 1, err);
    if (!rc) rc = put_i64(&st, 4, m->schema_id, 1, err);
    if (!rc) rc = end_row(&st, err);
  }
  pm_manifest_file_metas_clear(&metas);
  pm_snapshot_free(snap);
  if (!rc) rc = sys_finish(&st, out, err);
  sys_free(&st);
  return rc;
}

typedef int (*sys_fn)(pm_table *, struct ArrowArrayStream *, pm_error *);
static const struct {
  const char *name;
  sys_fn fn;
} SYSTEM_TABLES[] = {{"snapshots", snapshots_table}, {"schemas", schemas_table},       {"options", options_table},
                     {"files", files_table},         {"partitions", partitions_table}, {"tags", tags_table},
                     {"branches", branches_table},   {"manifests", manifests_table}};

int pm_system_table_exists(const char *name) {
  for (size_t i = 0; i < sizeof SYSTEM_TABLES / sizeof SYSTEM_TABLES[0]; i++)
    if (!strcmp(SYSTEM_TABLES[i].name, name)) return 1;
  return 0;
}

int pm_system_table_read(pm_table *t, const char *name, struct ArrowArrayStream *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; i < sizeof SYSTEM_TABLES / sizeof SYSTEM_TABLES[0]; i++)
    if (!strcmp(SYSTEM_TABLES[i].name, name)) return SYSTEM_TABLES[i].fn(t, out, err);
  return pm_errorf(err, PAIMON_ERR_NOT_FOUND,
                   "unknown system table '$%s' (snapshots, schemas, options, files, partitions, tags, branches, "
                   "manifests)",
                   name);
}
