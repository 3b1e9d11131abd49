/* System tables ($snapshots, $schemas, $options, $files, $partitions, $tags, $branches, $manifests,
 * $consumers, $statistics). */
#include "table/system_tables.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "arrow/compute.h"
#include "arrow/stream.h"
#include "io/file.h"
#include "meta/consumer.h"
#include "meta/json_util.h"
#include "meta/manifest.h"
#include "meta/snapshot.h"
#include "data/predicate.h"
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


static const col_spec SNAPSHOTS_COLS[] = {{"snapshot_id", C_I64},          {"schema_id", C_I64},
                                {"commit_user", C_STR},          {"commit_identifier", C_I64},
                                {"commit_kind", C_STR},          {"commit_time", C_TS},
                                {"total_record_count", C_I64},   {"delta_record_count", C_I64},
                                {"changelog_record_count", C_I64}, {"watermark", C_I64},
                                {"base_manifest_list", C_STR},   {"delta_manifest_list", C_STR},
                                {"changelog_manifest_list", C_STR}, {"index_manifest", C_STR}};
static const col_spec SCHEMAS_COLS[] = {{"schema_id", C_I64},   {"fields", C_STR},  {"partition_keys", C_STR},
                                {"primary_keys", C_STR}, {"options", C_STR}, {"comment", C_STR},
                                {"update_time", C_TS}};
static const col_spec OPTIONS_COLS[] = {{"key", C_STR}, {"value", C_STR}};
static const col_spec FILES_COLS[] = {{"partition", C_STR},          {"bucket", C_I32},
                                {"file_path", C_STR},          {"file_format", C_STR},
                                {"schema_id", C_I64},          {"level", C_I32},
                                {"record_count", C_I64},       {"file_size_in_bytes", C_I64},
                                {"min_sequence_number", C_I64}, {"max_sequence_number", C_I64},
                                {"creation_time", C_TS},       {"delete_row_count", C_I64},
                                {"external_path", C_STR}};
static const col_spec PARTITIONS_COLS[] = {{"partition", C_STR}, {"record_count", C_I64}, {"file_size_in_bytes", C_I64},
                                {"file_count", C_I64}, {"last_update_time", C_TS}};
static const col_spec TAGS_COLS[] = {{"tag_name", C_STR}, {"snapshot_id", C_I64}, {"schema_id", C_I64},
                                {"commit_time", C_TS}, {"record_count", C_I64}};
static const col_spec BRANCHES_COLS[] = {{"branch_name", C_STR}};
static const col_spec MANIFESTS_COLS[] = {{"file_name", C_STR}, {"file_size", C_I64}, {"num_added_files", C_I64},
                                {"num_deleted_files", C_I64}, {"schema_id", C_I64}};
static const col_spec CONSUMERS_COLS[] = {{"consumer_id", C_STR}, {"next_snapshot_id", C_I64}};
static const col_spec STATISTICS_COLS[] = {{"snapshot_id", C_I64}, {"schema_id", C_I64}, {"mergedRecordCount", C_I64},
                                {"mergedRecordSize", C_I64}, {"colstat", C_STR}};

static int snapshots_table(pm_table *t, sys_table *st, pm_error *err) {
  int rc = 0;
  int64_t *ids = NULL;
  size_t n = 0;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  if (!rc) rc = pm_snapshot_list_ids(&sm, &ids, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    pm_snapshot *s = NULL;
    rc = pm_snapshot_read(&sm, ids[i], &s, err);
    if (rc) break;
    rc = put_i64(st, 0, s->id, 1, err);
    if (!rc) rc = put_i64(st, 1, s->schema_id, 1, err);
    if (!rc) rc = put_str(st, 2, s->commit_user, err);
    if (!rc) rc = put_i64(st, 3, s->commit_identifier, 1, err);
    if (!rc) rc = put_str(st, 4, s->commit_kind, err);
    if (!rc) rc = put_i64(st, 5, s->time_millis, 1, err);
    if (!rc) rc = put_i64(st, 6, s->total_record_count, s->has_total_record_count, err);
    if (!rc) rc = put_i64(st, 7, s->delta_record_count, s->has_delta_record_count, err);
    if (!rc) rc = put_i64(st, 8, s->changelog_record_count, s->has_changelog_record_count, err);
    if (!rc) rc = put_i64(st, 9, s->watermark, s->has_watermark, err);
    if (!rc) rc = put_str(st, 10, s->base_manifest_list, err);
    if (!rc) rc = put_str(st, 11, s->delta_manifest_list, err);
    if (!rc) rc = put_str(st, 12, s->changelog_manifest_list, err);
    if (!rc) rc = put_str(st, 13, s->index_manifest, err);
    if (!rc) rc = end_row(st, err);
    pm_snapshot_free(s);
  }
  free(ids);
  return rc;
}

static char *json_strings(char **v, size_t n) {
  json_t *a = json_array();
  for (size_t i = 0; a && i < n; i++) json_array_append_new(a, json_string(v[i]));
  char *s = a ? json_dumps(a, JSON_COMPACT) : NULL;
  json_decref(a);
  return s;
}

static int schemas_table(pm_table *t, sys_table *st, pm_error *err) {
  int rc = 0;
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
    if (!rc) rc = put_i64(st, 0, s->id, 1, err);
    if (!rc) rc = put_str(st, 1, fields, err);
    if (!rc) rc = put_str(st, 2, pk, err);
    if (!rc) rc = put_str(st, 3, pkeys, err);
    if (!rc) rc = put_str(st, 4, opts, err);
    if (!rc) rc = put_str(st, 5, s->comment, err);
    if (!rc) rc = put_i64(st, 6, s->time_millis, 1, err);
    if (!rc) rc = end_row(st, err);
    free(fields);
    free(opts);
    free(pk);
    free(pkeys);
  }
  free(ids);
  return rc;
}

static int options_table(pm_table *t, sys_table *st, pm_error *err) {
  int rc = 0;
  for (size_t i = 0; !rc && i < t->schema->options.n; i++) {
    rc = put_str(st, 0, t->schema->options.keys[i], err);
    if (!rc) rc = put_str(st, 1, t->schema->options.values[i], err);
    if (!rc) rc = end_row(st, err);
  }
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

static int files_table(pm_table *t, sys_table *st, pm_error *err) {
  int rc = 0;
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
    if (!rc) rc = put_str(st, 0, part, err);
    if (!rc) rc = put_i64(st, 1, e->bucket, 1, err);
    if (!rc) rc = put_str(st, 2, path, err);
    if (!rc) rc = put_str(st, 3, file_format_of(e->file.file_name), err);
    if (!rc) rc = put_i64(st, 4, e->file.schema_id, 1, err);
    if (!rc) rc = put_i64(st, 5, e->file.level, 1, err);
    if (!rc) rc = put_i64(st, 6, e->file.row_count, 1, err);
    if (!rc) rc = put_i64(st, 7, e->file.file_size, 1, err);
    if (!rc) rc = put_i64(st, 8, e->file.min_sequence_number, 1, err);
    if (!rc) rc = put_i64(st, 9, e->file.max_sequence_number, 1, err);
    if (!rc) rc = put_i64(st, 10, e->file.creation_time_millis, e->file.has_creation_time, err);
    if (!rc) rc = put_i64(st, 11, e->file.delete_row_count, e->file.has_delete_row_count, err);
    if (!rc) rc = put_str(st, 12, e->file.external_path, err);
    if (!rc) rc = end_row(st, err);
    free(part);
    free(pdir);
    free(bpath);
    free(path);
  }
  pm_manifest_entries_clear(&v);
  return rc;
}

static int cmp_entry_partition(const void *x, const void *y) {
  const pm_manifest_entry *a = *(const pm_manifest_entry *const *)x, *b = *(const pm_manifest_entry *const *)y;
  if (a->partition.len != b->partition.len) return a->partition.len < b->partition.len ? -1 : 1;
  return a->partition.len ? memcmp(a->partition.data, b->partition.data, a->partition.len) : 0;
}

static int partitions_table(pm_table *t, sys_table *st, pm_error *err) {
  int rc = 0;
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
    if (!rc) rc = put_str(st, 0, part, err);
    if (!rc) rc = put_i64(st, 1, rows, 1, err);
    if (!rc) rc = put_i64(st, 2, size, 1, err);
    if (!rc) rc = put_i64(st, 3, files, 1, err);
    if (!rc) rc = put_i64(st, 4, last, has_last, err);
    if (!rc) rc = end_row(st, err);
    free(part);
    i = j;
  }
  free(sorted);
  pm_manifest_entries_clear(&v);
  return rc;
}

static int tags_table(pm_table *t, sys_table *st, pm_error *err) {
  int rc = 0;
  char **names = NULL;
  size_t n = 0;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  if (!rc) rc = pm_tag_list(&sm, &names, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    pm_snapshot *s = NULL;
    rc = pm_tag_read(&sm, names[i], &s, err);
    if (rc) break;
    rc = put_str(st, 0, names[i], err);
    if (!rc) rc = put_i64(st, 1, s->id, 1, err);
    if (!rc) rc = put_i64(st, 2, s->schema_id, 1, err);
    if (!rc) rc = put_i64(st, 3, s->time_millis, 1, err);
    if (!rc) rc = put_i64(st, 4, s->total_record_count, s->has_total_record_count, err);
    if (!rc) rc = end_row(st, err);
    pm_snapshot_free(s);
  }
  pm_free_names(names, n);
  return rc;
}

static int branches_table(pm_table *t, sys_table *st, pm_error *err) {
  int rc = 0;
  char **names = NULL;
  size_t n = 0;
  if (!rc) rc = pm_branch_list(t->fs, t->root, &names, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    rc = put_str(st, 0, names[i], err);
    if (!rc) rc = end_row(st, err);
  }
  pm_free_names(names, n);
  return rc;
}

static int manifests_table(pm_table *t, sys_table *st, pm_error *err) {
  int rc = 0;
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
    rc = p ? pm_scan_manifest_error(t, p, pm_manifest_list_read(t->fs, p, &metas, err), err) : PM_NOMEM(err);
    free(p);
  }
  for (size_t i = 0; !rc && i < metas.n; i++) {
    const pm_manifest_file_meta *m = &metas.items[i];
    rc = put_str(st, 0, m->file_name, err);
    if (!rc) rc = put_i64(st, 1, m->file_size, 1, err);
    if (!rc) rc = put_i64(st, 2, m->num_added_files, 1, err);
    if (!rc) rc = put_i64(st, 3, m->num_deleted_files, 1, err);
    if (!rc) rc = put_i64(st, 4, m->schema_id, 1, err);
    if (!rc) rc = end_row(st, err);
  }
  pm_manifest_file_metas_clear(&metas);
  pm_snapshot_free(snap);
  return rc;
}

/* Java's ConsumersTable: the consumers of the table's branch, by id. */
static int consumers_table(pm_table *t, sys_table *st, pm_error *err) {
  pm_consumer *c = NULL;
  size_t n = 0;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  int rc = pm_consumer_list(&sm, &c, &n, err);
  for (size_t i = 0; !rc && i < n; i++) {
    rc = put_str(st, 0, c[i].id, err);
    if (!rc) rc = put_i64(st, 1, c[i].next_snapshot, 1, err);
    if (!rc) rc = end_row(st, err);
  }
  pm_consumers_free(c, n);
  return rc;
}

/* colStats as Java re-serializes it (a map of ColStats, Jackson's pretty printer): map
 * keys in file order; each ColStats with its non-null properties in the order colId,
 * distinctCount, min, max, nullCount, avgLen, maxLen (unknown keys are dropped). */
static int colstats_text(const json_t *cs, const char *path, char **out, pm_error *err) {
  static const char *const KEYS[] = {"colId", "distinctCount", "min", "max", "nullCount", "avgLen", "maxLen"};
  *out = NULL;
  if (cs && !json_is_null(cs) && !json_is_object(cs))
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: \"colStats\" is not an object", path);
  json_t *norm = json_object();
  if (!norm) return PM_NOMEM(err);
  int rc = 0;
  const char *name;
  json_t *v;
  if (cs && json_is_object(cs)) json_object_foreach((json_t *)cs, name, v) {
      if (rc) break;
      if (!json_is_object(v)) {
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: colStats of \"%s\" is not an object", path, name);
        break;
      }
      json_t *o = json_object();
      if (!o || json_object_set_new(norm, name, o)) {
        rc = PM_NOMEM(err);
        break;
      }
      for (size_t k = 0; k < sizeof KEYS / sizeof KEYS[0]; k++) {
        json_t *x = json_object_get(v, KEYS[k]);
        if (!k && !x) x = json_integer(0); /* an int property: never omitted */
        else if (!x || json_is_null(x)) continue;
        else json_incref(x);
        if (!x || json_object_set_new(o, KEYS[k], x)) rc = PM_NOMEM(err);
      }
    }
  pm_buf b;
  pm_buf_init(&b);
  if (!rc) rc = pm_json_pretty(norm, &b, err);
  json_decref(norm);
  if (!rc) {
    *out = malloc(b.len + 1);
    if (!*out) rc = PM_NOMEM(err);
    else {
      if (b.len) memcpy(*out, b.data, b.len);
      (*out)[b.len] = 0;
    }
  }
  pm_buf_free(&b);
  return rc;
}

/* Java's StatisticTable: one row from the statistics file of the latest (or time-travel)
 * snapshot, none when it has none. */
static int statistics_table(pm_table *t, sys_table *st, pm_error *err) {
  pm_snapshot *snap = NULL;
  PM_TRY(pm_scan_resolve_snapshot(t, &snap, err));
  if (!snap || !snap->statistics) {
    pm_snapshot_free(snap);
    return 0;
  }
  size_t len = strlen(snap->statistics) + 16;
  char *sub = malloc(len);
  if (sub) snprintf(sub, len, "statistics/%s", snap->statistics);
  char *p = sub ? pm_table_root_path(t, sub) : NULL;
  free(sub);
  pm_snapshot_free(snap);
  if (!p) return PM_NOMEM(err);
  pm_buf b;
  pm_buf_init(&b);
  json_t *j = NULL;
  char *colstat = NULL;
  int64_t sid = 0, schema = 0, cnt = 0, size = 0;
  int has_cnt = 0, has_size = 0;
  int rc = pm_fs_read_file(t->fs, p, &b, 64 << 20, err);
  if (!rc) rc = pm_json_parse((const char *)b.data, b.len, p, &j, err);
  if (!rc && !json_is_object(j)) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: statistics file is not a JSON object", p);
  if (!rc) rc = pm_json_req_int64(j, "snapshotId", p, &sid, err);
  if (!rc) rc = pm_json_req_int64(j, "schemaId", p, &schema, err);
  if (!rc) rc = pm_json_get_int64(j, "mergedRecordCount", p, &cnt, &has_cnt, err);
  if (!rc) rc = pm_json_get_int64(j, "mergedRecordSize", p, &size, &has_size, err);
  if (!rc) rc = colstats_text(json_object_get(j, "colStats"), p, &colstat, err);
  if (!rc) rc = put_i64(st, 0, sid, 1, err);
  if (!rc) rc = put_i64(st, 1, schema, 1, err);
  if (!rc) rc = put_i64(st, 2, cnt, has_cnt, err);
  if (!rc) rc = put_i64(st, 3, size, has_size, err);
  if (!rc) rc = put_str(st, 4, colstat, err);
  if (!rc) rc = end_row(st, err);
  free(colstat);
  json_decref(j);
  pm_buf_free(&b);
  free(p);
  return rc;
}

typedef int (*sys_fn)(pm_table *, sys_table *, pm_error *);
#define COLS(a) a, sizeof a / sizeof a[0]
typedef struct sys_entry {
  const char *name;
  sys_fn fn;
  const col_spec *cols;
  size_t n_cols;
} sys_entry;
static const sys_entry SYSTEM_TABLES[] = {
    {"snapshots", snapshots_table, COLS(SNAPSHOTS_COLS)},    {"schemas", schemas_table, COLS(SCHEMAS_COLS)},
    {"options", options_table, COLS(OPTIONS_COLS)},          {"files", files_table, COLS(FILES_COLS)},
    {"partitions", partitions_table, COLS(PARTITIONS_COLS)}, {"tags", tags_table, COLS(TAGS_COLS)},
    {"branches", branches_table, COLS(BRANCHES_COLS)},       {"manifests", manifests_table, COLS(MANIFESTS_COLS)},
    {"consumers", consumers_table, COLS(CONSUMERS_COLS)},    {"statistics", statistics_table, COLS(STATISTICS_COLS)}};
#undef COLS

static const sys_entry *find_system_table(const char *name, pm_error *err) {
  for (size_t i = 0; name && i < sizeof SYSTEM_TABLES / sizeof SYSTEM_TABLES[0]; i++)
    if (!strcmp(SYSTEM_TABLES[i].name, name)) return &SYSTEM_TABLES[i];
  pm_errorf(err, PAIMON_ERR_NOT_FOUND,
            "unknown system table '$%s' (snapshots, schemas, options, files, partitions, tags, branches, "
            "manifests, consumers, statistics)",
            name ? name : "");
  return NULL;
}

int pm_system_table_exists(const char *name) { return find_system_table(name, NULL) != NULL; }

int pm_system_table_schema(const char *name, pm_table_schema **out, pm_error *err) {
  *out = NULL;
  const sys_entry *e = find_system_table(name, err);
  if (!e) return PAIMON_ERR_NOT_FOUND;
  pm_table_schema *s = calloc(1, sizeof *s);
  if (s) s->fields = calloc(e->n_cols, sizeof *s->fields);
  if (!s || !s->fields) {
    free(s);
    return PM_NOMEM(err);
  }
  pm_options_init(&s->options);
  s->version = 1;
  s->highest_field_id = (int32_t)e->n_cols - 1;
  int rc = 0;
  for (size_t i = 0; i < e->n_cols && !rc; i++) {
    col_kind k = e->cols[i].kind;
    pm_data_field *f = &s->fields[i];
    f->id = (int32_t)i;
    f->name = strdup(e->cols[i].name);
    rc = f->name ? pm_dtype_new(k == C_I64 ? PM_DT_BIGINT : k == C_I32 ? PM_DT_INT
                                : k == C_STR ? PM_DT_VARCHAR : PM_DT_TIMESTAMP_LTZ,
                                1, &f->type, err)
                 : PM_NOMEM(err);
    s->n_fields = i + 1;
    if (!rc && k == C_STR) f->type->length = PM_DT_MAX_LENGTH; /* STRING */
    if (!rc && k == C_TS) f->type->precision = 3;              /* Arrow "tsm:UTC" (an instant) */
  }
  if (rc) {
    pm_schema_free(s);
    return rc;
  }
  *out = s;
  return 0;
}

/* Output columns: indices into e->cols (all when the options name none). *idx malloc'd. */
static int output_columns(const sys_entry *e, const pm_read_options *o, size_t **idx, size_t *n, pm_error *err) {
  *n = o && o->n_columns ? o->n_columns : e->n_cols;
  *idx = malloc(*n * sizeof **idx);
  if (!*idx) return PM_NOMEM(err);
  for (size_t j = 0; j < *n; j++) {
    if (!o || !o->n_columns) {
      (*idx)[j] = j;
      continue;
    }
    const char *want = o->columns[j];
    size_t c = 0;
    while (c < e->n_cols && (!want || strcmp(e->cols[c].name, want))) c++;
    if (c == e->n_cols) {
      char names[1024] = "";
      size_t len = 0;
      for (size_t k = 0; k < e->n_cols && len < sizeof names; k++)
        len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", k ? ", " : "", e->cols[k].name);
      free(*idx);
      *idx = NULL;
      return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "system table $%s has no column '%s' (columns: %s)", e->name,
                       want ? want : "(null)", names);
    }
    (*idx)[j] = c;
  }
  return 0;
}

static int check_options(const sys_entry *e, const pm_read_options *o, pm_error *err) {
  if (!o) return 0;
  if (o->with_row_kind)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "system table $%s has no row kinds", e->name);
  int32_t map[64];
  for (size_t i = 0; i < e->n_cols && i < 64; i++) map[i] = (int32_t)i;
  if (o->filter && !pm_pred_only_fields(o->filter, map, e->n_cols))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "filter refers to a column that system table $%s does not have",
                     e->name);
  return 0;
}

/* The projected struct schema of columns idx[0..n) of the full schema. */
static int project_schema(const struct ArrowSchema *full, const size_t *idx, size_t n, struct ArrowSchema *out,
                          pm_error *err) {
  PM_TRY(pm_schema_init(out, "+s", "", 0, (int64_t)n, err));
  int rc = 0;
  for (size_t j = 0; j < n && !rc; j++) {
    pm_schema_release(out->children[j]);
    rc = pm_schema_copy(full->children[idx[j]], out->children[j], err);
  }
  if (rc) pm_schema_release(out);
  return rc;
}

/* Finishes the rows built in st into a one-batch stream: filter (exact, the
 * predicate code of data tables), limit, projection. */
static int sys_finish(const sys_entry *e, sys_table *st, const pm_read_options *o, struct ArrowArrayStream *out,
                      pm_error *err) {
  struct ArrowSchema schema, oschema;
  struct ArrowArray batch, res;
  memset(&schema, 0, sizeof schema);
  memset(&oschema, 0, sizeof oschema);
  memset(&batch, 0, sizeof batch);
  memset(&res, 0, sizeof res);
  size_t *idx = NULL, n_out = 0;
  uint8_t *bits = NULL;
  int rc = output_columns(e, o, &idx, &n_out, err);
  if (!rc) rc = pm_builder_schema(st->b, "", &schema, err);
  if (!rc) rc = pm_builder_finish(st->b, &batch, err);
  int64_t n = batch.length, kept = 0;
  if (!rc) {
    bits = malloc((size_t)n / 8 + 1);
    if (!bits) rc = PM_NOMEM(err);
  }
  if (!rc && o && o->filter) {
    int32_t map[64];
    for (size_t i = 0; i < e->n_cols && i < 64; i++) map[i] = (int32_t)i;
    rc = pm_pred_eval_batch(o->filter, &schema, &batch, map, e->n_cols, bits, err);
  } else if (!rc) {
    memset(bits, 0xff, (size_t)n / 8 + 1);
  }
  int64_t limit = o ? o->limit : -1;
  for (int64_t i = 0; !rc && i < n; i++) {
    if (!pm_bit_get(bits, i)) continue;
    if (limit >= 0 && kept >= limit) pm_bit_clear(bits, i);
    else kept++;
  }
  if (!rc) rc = project_schema(&schema, idx, n_out, &oschema, err);
  if (!rc) rc = pm_array_init(&res, kept, 1, (int64_t)n_out, err);
  for (size_t j = 0; !rc && j < n_out; j++) {
    struct ArrowArray col;
    rc = pm_filter(&st->type.children[idx[j]], batch.children[idx[j]], bits, 0, &col, err);
    if (!rc) {
      pm_array_release(res.children[j]);
      pm_array_move(&col, res.children[j]);
    }
  }
  free(bits);
  free(idx);
  pm_schema_release(&schema);
  pm_array_release(&batch);
  if (rc) {
    pm_schema_release(&oschema);
    pm_array_release(&res);
    return rc;
  }
  return pm_stream_from_batches(&oschema, &res, 1, out, err);
}

int pm_system_table_read_schema(const char *name, const pm_read_options *o, struct ArrowSchema *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  const sys_entry *e = find_system_table(name, err);
  if (!e) return PAIMON_ERR_NOT_FOUND;
  PM_TRY(check_options(e, o, err));
  sys_table st;
  size_t *idx = NULL, n_out = 0;
  struct ArrowSchema full;
  memset(&full, 0, sizeof full);
  int rc = sys_begin(&st, e->cols, e->n_cols, err);
  if (!rc) rc = output_columns(e, o, &idx, &n_out, err);
  if (!rc) rc = pm_builder_schema(st.b, "", &full, err);
  if (!rc) rc = project_schema(&full, idx, n_out, out, err);
  pm_schema_release(&full);
  free(idx);
  sys_free(&st);
  return rc;
}

int pm_system_table_read_with(pm_table *t, const char *name, const pm_read_options *o, struct ArrowArrayStream *out,
                              pm_error *err) {
  memset(out, 0, sizeof *out);
  const sys_entry *e = find_system_table(name, err);
  if (!e) return PAIMON_ERR_NOT_FOUND;
  PM_TRY(check_options(e, o, err));
  sys_table st;
  int rc = sys_begin(&st, e->cols, e->n_cols, err);
  if (!rc) rc = e->fn(t, &st, err);
  if (!rc) rc = sys_finish(e, &st, o, out, err);
  sys_free(&st);
  return rc;
}

int pm_system_table_read(pm_table *t, const char *name, struct ArrowArrayStream *out, pm_error *err) {
  return pm_system_table_read_with(t, name, NULL, out, err);
}
