/* Overwrite, truncate and drop partitions (SEMANTICS.md 7.7, Java's
 * OverwriteChangesProvider): recomputed against the latest snapshot on every attempt. */
#include <stdlib.h>
#include <string.h>

#include "table/commit_internal.h"
#include "table/scan.h"

/* ------------------------------------------------------------ partitions */

int pm_commit_spec_match(const pm_commit *c, const pm_partition_spec *specs, size_t n, pm_bytes partition,
                         int *match, pm_error *err) {
  const pm_table *t = c->t;
  *match = 0;
  for (size_t s = 0; s < n && !*match; s++) {
    int ok = 1;
    for (size_t k = 0; k < specs[s].n && ok; k++) {
      size_t idx = 0;
      while (idx < t->n_partition_keys && strcmp(t->partition_keys[idx], specs[s].keys[k])) idx++;
      if (idx == t->n_partition_keys)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec: '%s' is not a partition key of table %s",
                         specs[s].keys[k], t->name);
      pm_value v;
      const pm_data_type *type = NULL;
      char text[512];
      PM_TRY(pm_scan_partition_field(t, partition.data, partition.len, idx, &v, &type, text, sizeof text, err));
      const char *want = specs[s].values[k];
      int want_null = !want || !strcmp(want, t->partition_default_name);
      if (v.kind == PM_V_NULL) ok = want_null;
      else ok = !want_null && !strcmp(text, want);
    }
    *match = ok;
  }
  return 0;
}

/* Every key of every spec must be a partition key, once per spec. */
static int validate_specs(const pm_commit *c, const pm_partition_spec *specs, size_t n, pm_error *err) {
  const pm_table *t = c->t;
  for (size_t s = 0; s < n; s++)
    for (size_t k = 0; k < specs[s].n; k++) {
      size_t idx = 0;
      while (idx < t->n_partition_keys && strcmp(t->partition_keys[idx], specs[s].keys[k])) idx++;
      if (idx == t->n_partition_keys)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec: '%s' is not a partition key of table %s",
                         specs[s].keys[k], t->name);
      for (size_t j = 0; j < k; j++)
        if (!strcmp(specs[s].keys[j], specs[s].keys[k]))
          return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec: key '%s' given twice",
                           specs[s].keys[k]);
    }
  return 0;
}

char *pm_commit_partition_text(const pm_commit *c, pm_bytes partition) {
  char *s = NULL;
  pm_error e = {0};
  if (pm_scan_partition_string(c->t, partition.data, partition.len, &s, &e)) return strdup("?");
  return s;
}

/* ------------------------------------------------------------ provider */

typedef enum filter_kind { F_ALL, F_SPECS, F_PARTITIONS } filter_kind;

typedef struct overwrite_ctx {
  filter_kind kind;
  const pm_partition_spec *specs; /* F_SPECS */
  size_t n_specs;
  pm_bytes *parts; /* F_PARTITIONS: exact partition rows */
  size_t n_parts;
  const pm_commit_changes *add; /* the new files and index files */
  pm_manifest_entries live;     /* of the latest snapshot (this attempt) */
  pm_index_entries index;
} overwrite_ctx;

static int selected(const pm_commit *c, const overwrite_ctx *o, pm_bytes partition, int *sel, pm_error *err) {
  *sel = 0;
  if (o->kind == F_ALL) {
    *sel = 1;
    return 0;
  }
  if (o->kind == F_SPECS) return pm_commit_spec_match(c, o->specs, o->n_specs, partition, sel, err);
  for (size_t i = 0; i < o->n_parts && !*sel; i++)
    *sel = o->parts[i].len == partition.len && (!partition.len || !memcmp(o->parts[i].data, partition.data, partition.len));
  return 0;
}

static int provide_overwrite(void *ctx, pm_commit *c, const pm_snapshot *latest, pm_commit_changes *out,
                             pm_error *err) {
  overwrite_ctx *o = ctx;
  pm_manifest_entries_clear(&o->live);
  pm_manifest_entries_init(&o->live);
  pm_index_entries_clear(&o->index);
  pm_index_entries_init(&o->index);
  if (latest) {
    PM_TRY(pm_scan_live_files(c->t, latest, NULL, &o->live, err));
    for (size_t i = 0; i < o->live.n; i++) {
      pm_manifest_entry e = o->live.items[i];
      /* real buckets only (postpone tables: their bucket -2 files too) */
      if (e.bucket < 0 && !(c->t->bucket_mode == PM_BUCKET_POSTPONE && e.bucket == -2)) continue;
      int sel = 0;
      PM_TRY(selected(c, o, e.partition, &sel, err));
      if (!sel) continue;
      e.kind = PM_FILE_DELETE;
      PM_TRY(pm_manifest_entries_append_owned(&out->table, &e, err));
    }
    if (latest->index_manifest) {
      size_t n = strlen(latest->index_manifest) + 16;
      char *sub = malloc(n);
      if (!sub) return PM_NOMEM(err);
      snprintf(sub, n, "manifest/%s", latest->index_manifest);
      char *p = pm_table_root_path(c->t, sub);
      free(sub);
      if (!p) return PM_NOMEM(err);
      int rc = pm_index_manifest_read(c->t->fs, p, &o->index, err);
      free(p);
      PM_TRY(rc);
      for (size_t i = 0; i < o->index.n; i++) {
        pm_index_manifest_entry e = o->index.items[i];
        int sel = 0;
        PM_TRY(selected(c, o, e.partition, &sel, err));
        if (!sel) continue;
        e.kind = PM_FILE_DELETE;
        PM_TRY(pm_index_entries_append_owned(&out->index, &e, err));
      }
    }
  }
  return pm_commit_changes_append(out, o->add, 0, err);
}

static void overwrite_ctx_free(overwrite_ctx *o) {
  pm_manifest_entries_clear(&o->live);
  pm_index_entries_clear(&o->index);
  free(o->parts);
}

static int run_overwrite(pm_commit *c, overwrite_ctx *o, int64_t identifier, const pm_manifest_committable *m,
                         int64_t *sid, pm_error *err) {
  pm_commit_provider p = {provide_overwrite, o};
  return pm_commit_try(c, &p, identifier, m, "OVERWRITE", 1, sid, err);
}

/* ------------------------------------------------------------ entry points */

static int provide_compact(void *ctx, pm_commit *c, const pm_snapshot *latest, pm_commit_changes *out,
                           pm_error *err) {
  (void)c;
  (void)latest;
  return pm_commit_changes_append(out, ctx, 0, err); /* overwrite commits no changelog (Java logs a warning) */
}

int pm_commit_overwrite(pm_commit *c, const pm_partition_spec *spec, const pm_manifest_committable *m,
                        int64_t *snapshot_id, pm_error *err) {
  int64_t sid = -1;
  if (snapshot_id) *snapshot_id = -1;
  pm_commit_collected cc;
  PM_TRY(pm_commit_collect(c, m, &cc, err));
  int64_t identifier = m ? m->identifier : PM_BATCH_COMMIT_IDENTIFIER;
  if (spec) {
    int vrc = validate_specs(c, spec, 1, err);
    if (vrc) {
      pm_commit_collected_free(&cc);
      return vrc;
    }
  }
  overwrite_ctx o;
  memset(&o, 0, sizeof o);
  pm_manifest_entries_init(&o.live);
  pm_index_entries_init(&o.index);
  o.add = &cc.append;
  int rc = 0, skip = 0;
  if (c->t->n_partition_keys > 0 && c->t->co.dynamic_partition_overwrite) {
    if (!cc.append.table.n) skip = 1; /* nothing written: nothing replaced */
    o.kind = F_PARTITIONS;
    o.parts = calloc(cc.append.table.n ? cc.append.table.n : 1, sizeof *o.parts);
    if (!o.parts) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < cc.append.table.n; i++) {
      pm_bytes p = cc.append.table.items[i].partition;
      int seen = 0;
      for (size_t k = 0; k < o.n_parts && !seen; k++)
        seen = o.parts[k].len == p.len && (!p.len || !memcmp(o.parts[k].data, p.data, p.len));
      if (!seen) o.parts[o.n_parts++] = p;
    }
  } else if (spec && spec->n) {
    o.kind = F_SPECS;
    o.specs = spec;
    o.n_specs = 1;
    for (size_t i = 0; !rc && i < cc.append.table.n; i++) {
      int in = 0;
      rc = pm_commit_spec_match(c, spec, 1, cc.append.table.items[i].partition, &in, err);
      if (!rc && !in) {
        char *pt = pm_commit_partition_text(c, cc.append.table.items[i].partition);
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "overwrite: the changes in partition %s do not belong to "
                       "the partition being overwritten", pt ? pt : "?");
        free(pt);
      }
    }
  } else {
    o.kind = F_ALL;
  }
  /* Java upgrades only when the committable carries no compaction */
  if (!rc && !cc.compact.table.n && !cc.compact.index.n) rc = pm_commit_try_upgrade(c, &cc.append.table, err);
  if (!rc && !skip) rc = run_overwrite(c, &o, identifier, m, &sid, err);
  if (!rc && (cc.compact.table.n || cc.compact.index.n)) {
    pm_commit_provider p = {provide_compact, &cc.compact};
    rc = pm_commit_compact_part(c, &p, identifier, m, !skip && sid > 0, &sid, err);
  }
  overwrite_ctx_free(&o);
  pm_commit_collected_free(&cc);
  if (snapshot_id) *snapshot_id = sid;
  if (!rc) pm_commit_maintain(c, sid, identifier);
  return rc;
}

int pm_commit_drop_partitions(pm_commit *c, const pm_partition_spec *specs, size_t n, int64_t identifier,
                              int64_t *snapshot_id, pm_error *err) {
  if (snapshot_id) *snapshot_id = -1;
  pm_commit_changes none;
  memset(&none, 0, sizeof none);
  overwrite_ctx o;
  memset(&o, 0, sizeof o);
  pm_manifest_entries_init(&o.live);
  pm_index_entries_init(&o.index);
  o.add = &none;
  o.kind = n ? F_SPECS : F_ALL;
  o.specs = specs;
  o.n_specs = n;
  for (size_t i = 0; i < n; i++)
    if (!specs[i].n)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "drop partitions: partition spec %zu is empty", i);
  PM_TRY(validate_specs(c, specs, n, err));
  const char *prev = c->operation;
  c->operation = "TRUNCATE";
  int64_t sid = -1;
  int rc = run_overwrite(c, &o, identifier, NULL, &sid, err);
  c->operation = prev;
  overwrite_ctx_free(&o);
  if (snapshot_id) *snapshot_id = sid;
  if (!rc) pm_commit_maintain(c, sid, identifier);
  return rc;
}

int pm_commit_drop_partition_rows(pm_commit *c, const pm_bytes *rows, size_t n, int64_t identifier,
                                  int64_t *snapshot_id, pm_error *err) {
  if (snapshot_id) *snapshot_id = -1;
  if (!n) return 0;
  pm_commit_changes none;
  memset(&none, 0, sizeof none);
  overwrite_ctx o;
  memset(&o, 0, sizeof o);
  pm_manifest_entries_init(&o.live);
  pm_index_entries_init(&o.index);
  o.add = &none;
  o.kind = F_PARTITIONS;
  o.parts = malloc(n * sizeof *o.parts);
  if (!o.parts) return PM_NOMEM(err);
  memcpy(o.parts, rows, n * sizeof *o.parts);
  o.n_parts = n;
  int64_t sid = -1;
  int rc = run_overwrite(c, &o, identifier, NULL, &sid, err);
  overwrite_ctx_free(&o);
  if (snapshot_id) *snapshot_id = sid;
  return rc;
}

int pm_commit_check_in_partition(const pm_commit *c, const pm_partition_spec *spec, const pm_manifest_committable *m,
                                 pm_error *err) {
  if (!spec || !spec->n || !m) return 0;
  PM_TRY(validate_specs(c, spec, 1, err));
  for (size_t i = 0; i < m->n_messages; i++) {
    const pm_commit_message *msg = &m->messages[i];
    if (!msg->new_files.n && !msg->changelog_files.n && !msg->compact_after.n) continue;
    int in = 0;
    PM_TRY(pm_commit_spec_match(c, spec, 1, msg->partition, &in, err));
    if (!in) {
      char *pt = pm_commit_partition_text(c, msg->partition);
      int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                         "the new files of partition %s are outside the partition written to", pt ? pt : "?");
      free(pt);
      return rc;
    }
  }
  return 0;
}
