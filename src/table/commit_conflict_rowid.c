/* Row-id conflicts of data-evolution tables (commit_internal.h; Java's
 * DataEvolutionConflictDetection):
 *   - a file we delete must still have the row range (first row id, row
 *     count) we planned with;
 *   - COMPACT: every new file's row range lies inside the row ranges of the
 *     live files of its (partition, bucket) (adjacent ranges joined);
 *   - other kinds: a new file starting below the latest nextRowId (a column
 *     update of existing rows) must match the rows of live files exactly (a
 *     blob / vector-store file: lie inside them);
 *   - COMPACT, or any kind while a row-id check is set: after the commit, data
 *     files whose row ranges overlap have the same range, and each blob /
 *     vector-store file lies inside one data file range (a compaction racing a
 *     concurrent column update, or two compactions, would otherwise lose rows'
 *     values);
 *   - a new global-index file's row range lies inside the row ranges of the
 *     live files of its (partition, bucket) (adjacent ranges joined): the rows
 *     it indexes were not reassigned or removed meanwhile;
 *   - the writer-set row-id check (pm_commit_set_rowid_check, Java's
 *     rowIdCheckConflict): a MERGE INTO / UPDATE / DELETE planned on snapshot S
 *     fails when a non-COMPACT snapshot after S (up to the latest) committed,
 *     in the commit's partitions, a file with rows below S's nextRowId that the
 *     commit's checker (the column checker for DML: overlapping rows and
 *     written columns; the range checker of its deleted normal files for a
 *     deletion-vector materializing COMPACT, against added files only) says
 *     conflicts.
 * Each failure is PAIMON_ERR_CONFLICT naming the file, nothing published. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "meta/file_entry.h"
#include "table/commit_internal.h"
#include "table/scan.h"

typedef struct range {
  int64_t from, to; /* inclusive */
} range;

static int dedicated(const char *name) {
  size_t n = strlen(name);
  return (n >= 5 && !strcmp(name + n - 5, ".blob")) || strstr(name, ".vector.") != NULL;
}

static range meta_range(const pm_data_file_meta *f) {
  range r = {f->first_row_id, f->first_row_id + f->row_count - 1};
  return r;
}

static range file_range(const pm_manifest_entry *e) { return meta_range(&e->file); }

static int range_cmp(const void *a, const void *b) {
  const range *x = a, *y = b;
  if (x->from != y->from) return x->from < y->from ? -1 : 1;
  return x->to < y->to ? -1 : x->to > y->to;
}

/* Sorts and merges overlapping ranges in place (adjacent ones too when join_adjacent). */
static size_t merge_ranges(range *r, size_t n, int join_adjacent) {
  if (!n) return 0;
  qsort(r, n, sizeof *r, range_cmp);
  size_t k = 0;
  for (size_t i = 1; i < n; i++) {
    if (r[i].from <= r[k].to || (join_adjacent && r[i].from == r[k].to + 1)) {
      if (r[i].to > r[k].to) r[k].to = r[i].to;
    } else {
      r[++k] = r[i];
    }
  }
  return k + 1;
}

static int covers(const range *r, size_t n, range q, int exactly) {
  for (size_t i = 0; i < n; i++) {
    if (exactly ? (r[i].from == q.from && r[i].to == q.to) : (r[i].from <= q.from && r[i].to >= q.to)) return 1;
    if (r[i].from > q.from) break;
  }
  return 0;
}

static int same_bucket(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  return a->bucket == b->bucket && a->partition.len == b->partition.len &&
         (!a->partition.len || !memcmp(a->partition.data, b->partition.data, a->partition.len));
}

static int conflict(const pm_commit *c, const pm_snapshot *latest, pm_error *err, const pm_manifest_entry *e,
                    const char *what) {
  range r = file_range(e);
  return pm_errorf(err, PAIMON_ERR_CONFLICT,
                   "commit conflict on table %s: row id conflict: file %s (rows %" PRId64 "..%" PRId64 ", bucket %d) "
                   "%s (a concurrent commit of snapshot %" PRId64 " by %s rewrote or reassigned those rows); give up "
                   "committing",
                   c->t->name, e->file.file_name, r.from, r.to, (int)e->bucket, what, latest->id,
                   latest->commit_user ? latest->commit_user : "?");
}

/* The row ranges of base's data files (not blob / vector-store), of e's bucket only when e != NULL. */
static size_t existing_ranges(const pm_manifest_entries *base, const pm_manifest_entry *e, range *out) {
  size_t n = 0;
  for (size_t i = 0; i < base->n; i++) {
    const pm_manifest_entry *b = &base->items[i];
    if (b->kind != PM_FILE_ADD || !b->file.has_first_row_id || dedicated(b->file.file_name)) continue;
    if (e && !same_bucket(b, e)) continue;
    out[n++] = file_range(b);
  }
  return n;
}

static int check_existence(const pm_commit *c, const pm_snapshot *latest, const pm_manifest_entries *base,
                           const pm_commit_changes *ch, int compact, range *buf, pm_error *err) {
  /* deleted files still have the rows we planned with */
  for (size_t i = 0; i < ch->table.n; i++) {
    const pm_manifest_entry *d = &ch->table.items[i];
    if (d->kind != PM_FILE_DELETE) continue;
    for (size_t k = 0; k < base->n; k++) {
      const pm_manifest_entry *b = &base->items[k];
      if (b->kind != PM_FILE_ADD || !pm_file_entry_same(b, d)) continue;
      if (b->file.has_first_row_id != d->file.has_first_row_id ||
          (b->file.has_first_row_id && b->file.first_row_id != d->file.first_row_id) ||
          b->file.row_count != d->file.row_count)
        return conflict(c, latest, err, d, "to delete has other row ids now");
    }
  }
  size_t n_all = 0;
  int all_ready = 0;
  for (size_t i = 0; i < ch->table.n; i++) {
    const pm_manifest_entry *e = &ch->table.items[i];
    if (e->kind != PM_FILE_ADD || !e->file.has_first_row_id) continue;
    if (compact) {
      size_t n = merge_ranges(buf, existing_ranges(base, e, buf), 1);
      if (!covers(buf, n, file_range(e), 0))
        return conflict(c, latest, err, e, "is not inside the row ranges of the live files of its bucket");
    } else if (latest->has_next_row_id && e->file.first_row_id < latest->next_row_id) {
      if (!all_ready) n_all = merge_ranges(buf, existing_ranges(base, NULL, buf), 0), all_ready = 1;
      if (!covers(buf, n_all, file_range(e), !dedicated(e->file.file_name)))
        return conflict(c, latest, err, e, "updates rows that no live file holds as planned");
    }
  }
  return 0;
}

typedef struct ranged_entry {
  range r;
  const pm_manifest_entry *e;
} ranged_entry;

static int ranged_cmp(const void *a, const void *b) { return range_cmp(&((const ranged_entry *)a)->r, &((const ranged_entry *)b)->r); }

/* After the commit: overlapping data-file ranges are identical; dedicated files lie inside one data range. */
static int check_ranges_after(const pm_commit *c, const pm_snapshot *latest, const pm_entry_merge *merged,
                              pm_error *err) {
  size_t n = 0, nd = 0;
  for (size_t i = 0; i < merged->cap; i++) {
    const pm_entry_merge_slot *s = &merged->slots[i];
    if (s->e && s->state == PM_FILE_ADD && s->e->file.has_first_row_id) n++;
  }
  ranged_entry *v = malloc((n + 1) * sizeof *v), *dv = malloc((n + 1) * sizeof *dv);
  range *data = malloc((n + 1) * sizeof *data);
  int rc = v && dv && data ? 0 : PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; !rc && i < merged->cap; i++) {
    const pm_entry_merge_slot *s = &merged->slots[i];
    if (!s->e || s->state != PM_FILE_ADD || !s->e->file.has_first_row_id) continue;
    ranged_entry x = {file_range(s->e), s->e};
    if (dedicated(s->e->file.file_name)) dv[nd++] = x;
    else v[k++] = x;
  }
  if (!rc) qsort(v, k, sizeof *v, ranged_cmp);
  /* groups of overlapping ranges: every member the same range */
  for (size_t i = 0; !rc && i < k;) {
    size_t j = i + 1;
    int64_t end = v[i].r.to;
    while (j < k && v[j].r.from <= end) {
      if (v[j].r.to > end) end = v[j].r.to;
      j++;
    }
    for (size_t m = i + 1; !rc && m < j; m++)
      if (v[m].r.from != v[i].r.from || v[m].r.to != v[i].r.to)
        rc = pm_errorf(err, PAIMON_ERR_CONFLICT,
                       "commit conflict on table %s: data-evolution row range conflict: files %s (rows %" PRId64
                       "..%" PRId64 ") and %s (rows %" PRId64 "..%" PRId64 ") overlap with different ranges "
                       "(concurrent column updates and compactions; latest snapshot %" PRId64 " by %s); give up "
                       "committing",
                       c->t->name, v[i].e->file.file_name, v[i].r.from, v[i].r.to, v[m].e->file.file_name,
                       v[m].r.from, v[m].r.to, latest->id, latest->commit_user ? latest->commit_user : "?");
    i = j;
  }
  for (size_t i = 0; i < k; i++) data[i] = v[i].r;
  size_t nr = rc ? 0 : merge_ranges(data, k, 0);
  for (size_t i = 0; !rc && i < nd; i++)
    if (!covers(data, nr, dv[i].r, 0))
      rc = conflict(c, latest, err, dv[i].e, "is not covered by one data file range");
  free(v);
  free(dv);
  free(data);
  return rc;
}

/* ------------------------------------------------ global-index row ids */

/* Java's checkGlobalIndexRowIdExistence. */
static int check_global_index(const pm_commit *c, const pm_snapshot *latest, const pm_manifest_entries *base,
                              const pm_commit_changes *ch, range *buf, pm_error *err) {
  for (size_t i = 0; i < ch->index.n; i++) {
    const pm_index_manifest_entry *x = &ch->index.items[i];
    if (x->kind != PM_FILE_ADD || !x->index_file.has_global_index) continue;
    size_t n = 0;
    for (size_t k = 0; k < base->n; k++) {
      const pm_manifest_entry *b = &base->items[k];
      if (b->kind != PM_FILE_ADD || !b->file.has_first_row_id || b->bucket != x->bucket ||
          b->partition.len != x->partition.len ||
          (b->partition.len && memcmp(b->partition.data, x->partition.data, b->partition.len)))
        continue;
      buf[n++] = file_range(b);
    }
    n = merge_ranges(buf, n, 1);
    range r = {x->index_file.global_index.row_range_start, x->index_file.global_index.row_range_end};
    if (!covers(buf, n, r, 0))
      return pm_errorf(err, PAIMON_ERR_CONFLICT,
                       "commit conflict on table %s: global index row id existence conflict: index file %s (bucket "
                       "%d) references rows %" PRId64 "..%" PRId64 ", which the live data files do not all hold (a "
                       "concurrent commit, latest snapshot %" PRId64 " by %s, reassigned or removed them); give up "
                       "committing",
                       c->t->name, x->index_file.file_name, (int)x->bucket, r.from, r.to, latest->id,
                       latest->commit_user ? latest->commit_user : "?");
  }
  return 0;
}

/* ------------------------------------------------ row-id conflict checkers */

typedef struct write_range {
  range r;
  int32_t *ids; /* sorted */
  size_t n_ids;
} write_range;

struct pm_rowid_checker {
  pm_table *t;
  int columns;
  write_range *w; /* columns: groups sorted by range */
  size_t n;
  range *ranges;  /* !columns: merged ranges */
  size_t n_ranges;
};

static int is_system_column(const char *name) {
  static const char *const v[] = {"_SEQUENCE_NUMBER", "_VALUE_KIND", "_LEVEL", "rowkind", "_ROW_ID"};
  if (!strncmp(name, "_KEY_", 5)) return 1;
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    if (!strcmp(name, v[i])) return 1;
  return 0;
}

/* *id = the field id of column `col` in the schema of f, -1 for a system column. */
static int write_col_id(pm_table *t, const pm_data_file_meta *f, const char *col, int32_t *id, pm_error *err) {
  const pm_table_schema *s = NULL;
  PM_TRY(pm_table_schema_by_id(t, f->schema_id, &s, err));
  for (size_t i = 0; i < s->n_fields; i++)
    if (!strcmp(s->fields[i].name, col)) {
      *id = s->fields[i].id;
      return 0;
    }
  if (is_system_column(col)) {
    *id = -1;
    return 0;
  }
  return pm_errorf(err, PAIMON_ERR_CORRUPT,
                   "table %s: data file %s: write column '%s' is no column of its schema %" PRId64, t->name,
                   f->file_name, col, f->schema_id);
}

static int add_id(int32_t **ids, size_t *n, size_t *cap, int32_t id, pm_error *err) {
  for (size_t i = 0; i < *n; i++)
    if ((*ids)[i] == id) return 0;
  if (*n == *cap) {
    size_t nc = *cap ? *cap * 2 : 8;
    int32_t *p = realloc(*ids, nc * sizeof *p);
    if (!p) return PM_NOMEM(err);
    *ids = p;
    *cap = nc;
  }
  (*ids)[(*n)++] = id;
  return 0;
}

static int id_cmp(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return x < y ? -1 : x > y;
}

/* Adds the field ids f writes (null _WRITE_COLS: every field of its schema). */
static int add_write_ids(pm_table *t, const pm_data_file_meta *f, int32_t **ids, size_t *n, size_t *cap,
                         pm_error *err) {
  if (f->write_cols.is_null) {
    const pm_table_schema *s = NULL;
    PM_TRY(pm_table_schema_by_id(t, f->schema_id, &s, err));
    for (size_t i = 0; i < s->n_fields; i++) PM_TRY(add_id(ids, n, cap, s->fields[i].id, err));
    return 0;
  }
  for (int32_t i = 0; i < f->write_cols.n; i++) {
    int32_t id;
    PM_TRY(write_col_id(t, f, f->write_cols.items[i], &id, err));
    if (id >= 0) PM_TRY(add_id(ids, n, cap, id, err));
  }
  return 0;
}

typedef struct ranged_file {
  range r;
  const pm_data_file_meta *f;
} ranged_file;

static int ranged_file_cmp(const void *a, const void *b) {
  return range_cmp(&((const ranged_file *)a)->r, &((const ranged_file *)b)->r);
}

void pm_rowid_checker_free(pm_rowid_checker *k) {
  if (!k) return;
  for (size_t i = 0; i < k->n; i++) free(k->w[i].ids);
  free(k->w);
  free(k->ranges);
  free(k);
}

int pm_rowid_checker_new(pm_table *t, int columns, const pm_data_file_meta *const *files, size_t n,
                         pm_rowid_checker **out, pm_error *err) {
  *out = NULL;
  pm_rowid_checker *k = calloc(1, sizeof *k);
  ranged_file *v = malloc((n + 1) * sizeof *v);
  if (!k || !v) {
    free(k);
    free(v);
    return PM_NOMEM(err);
  }
  k->t = t;
  k->columns = columns;
  size_t m = 0;
  for (size_t i = 0; i < n; i++)
    if (files[i]->has_first_row_id) v[m++] = (ranged_file){meta_range(files[i]), files[i]};
  qsort(v, m, sizeof *v, ranged_file_cmp);
  int rc = 0;
  if (!columns) {
    k->ranges = malloc((m + 1) * sizeof *k->ranges);
    if (!k->ranges) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < m; i++) k->ranges[i] = v[i].r;
    if (!rc) k->n_ranges = merge_ranges(k->ranges, m, 1);
  } else {
    k->w = calloc(m + 1, sizeof *k->w);
    if (!k->w) rc = PM_NOMEM(err);
    /* groups of overlapping ranges (RangeHelper.mergeOverlappingRanges: touching ones stay apart) */
    for (size_t i = 0; !rc && i < m;) {
      write_range *g = &k->w[k->n++];
      g->r = v[i].r;
      size_t cap = 0;
      size_t j = i;
      while (!rc && j < m && (j == i || v[j].r.from <= g->r.to)) {
        if (v[j].r.to > g->r.to) g->r.to = v[j].r.to;
        rc = add_write_ids(t, v[j].f, &g->ids, &g->n_ids, &cap, err);
        j++;
      }
      if (!rc && g->n_ids) qsort(g->ids, g->n_ids, sizeof *g->ids, id_cmp);
      i = j;
    }
  }
  free(v);
  if (rc) {
    pm_rowid_checker_free(k);
    return rc;
  }
  *out = k;
  return 0;
}

int pm_rowid_checker_empty(const pm_rowid_checker *k) { return k->columns ? k->n == 0 : k->n_ranges == 0; }

static int has_id(const write_range *g, int32_t id) {
  return bsearch(&id, g->ids, g->n_ids, sizeof id, id_cmp) != NULL;
}

int pm_rowid_checker_conflicts(pm_rowid_checker *k, const pm_data_file_meta *f, int *conflict, pm_error *err) {
  *conflict = 0;
  if (!f->has_first_row_id) return 0;
  range q = meta_range(f);
  if (!k->columns) {
    for (size_t i = 0; i < k->n_ranges && k->ranges[i].from <= q.to; i++)
      if (k->ranges[i].to >= q.from) {
        *conflict = 1;
        break;
      }
    return 0;
  }
  /* the first group ending at or after q.from (groups are disjoint and sorted) */
  size_t lo = 0, hi = k->n;
  while (lo < hi) {
    size_t mid = lo + (hi - lo) / 2;
    if (k->w[mid].r.to < q.from) lo = mid + 1;
    else hi = mid;
  }
  for (size_t i = lo; i < k->n && k->w[i].r.from <= q.to; i++) {
    const write_range *g = &k->w[i];
    if (g->r.to < q.from) continue;
    if (f->write_cols.is_null) {
      *conflict = 1;
      return 0;
    }
    for (int32_t c = 0; c < f->write_cols.n; c++) {
      int32_t id;
      PM_TRY(write_col_id(k->t, f, f->write_cols.items[c], &id, err));
      if (id >= 0 && has_id(g, id)) {
        *conflict = 1;
        return 0;
      }
    }
  }
  return 0;
}

/* ------------------------------------------------ the writer-set row-id check */

int pm_commit_set_rowid_check(pm_commit *c, int mode, int64_t from_snapshot, pm_error *err) {
  if (mode != PM_ROWID_CHECK_OFF && mode != PM_ROWID_CHECK_DML && mode != PM_ROWID_CHECK_MATERIALIZE_DV)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "commit: unknown row id check mode %d", mode);
  if (mode != PM_ROWID_CHECK_OFF && from_snapshot < 1)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "commit: row id check from snapshot %" PRId64
                     ": not a snapshot id (>= 1)", from_snapshot);
  c->rowid_check_mode = mode;
  c->rowid_check_from = mode == PM_ROWID_CHECK_OFF ? 0 : from_snapshot;
  return 0;
}

int pm_commit_rowid_check_applies(const pm_commit *c, const char *kind) {
  if (!c->t->co.data_evolution) return 0;
  if (c->rowid_check_mode == PM_ROWID_CHECK_DML) return 1;
  return c->rowid_check_mode == PM_ROWID_CHECK_MATERIALIZE_DV && !strcmp(kind, "COMPACT");
}

static int in_partitions(const pm_commit_changes *ch, const pm_bytes *p) {
  for (size_t i = 0; i < ch->table.n; i++) {
    const pm_bytes *q = &ch->table.items[i].partition;
    if (q->len == p->len && (!q->len || !memcmp(q->data, p->data, q->len))) return 1;
  }
  for (size_t i = 0; i < ch->index.n; i++) {
    const pm_bytes *q = &ch->index.items[i].partition;
    if (q->len == p->len && (!q->len || !memcmp(q->data, p->data, q->len))) return 1;
  }
  return 0;
}

/* The entries of snapshot s's delta manifest list (not merged: ADDs and DELETEs). */
static int read_delta(pm_commit *c, const pm_snapshot *s, pm_manifest_entries *out, pm_error *err) {
  if (!s->delta_manifest_list) return 0;
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  char sub[1100];
  snprintf(sub, sizeof sub, "manifest/%s", s->delta_manifest_list);
  char *p = pm_table_root_path(c->t, sub);
  int rc = p ? pm_scan_manifest_error(c->t, p, pm_manifest_list_read(c->t->fs, p, &metas, err), err) : PM_NOMEM(err);
  free(p);
  for (size_t i = 0; !rc && i < metas.n; i++) {
    snprintf(sub, sizeof sub, "manifest/%s", metas.items[i].file_name);
    p = pm_table_root_path(c->t, sub);
    rc = p ? pm_scan_manifest_error(c->t, p, pm_manifest_read(c->t->fs, p, NULL, NULL, out, err), err)
           : PM_NOMEM(err);
    free(p);
  }
  pm_manifest_file_metas_clear(&metas);
  return rc;
}

/* Java's checkForRowIdFromSnapshot with the strategy of c's mode. */
static int check_from_snapshot(pm_commit *c, const pm_snapshot *latest, const pm_commit_changes *ch, const char *kind,
                               pm_error *err) {
  if (!pm_commit_rowid_check_applies(c, kind)) return 0;
  int dml = c->rowid_check_mode == PM_ROWID_CHECK_DML;
  const pm_data_file_meta **files = malloc((ch->table.n + 1) * sizeof *files);
  if (!files) return PM_NOMEM(err);
  size_t n = 0;
  for (size_t i = 0; i < ch->table.n; i++) {
    const pm_manifest_entry *e = &ch->table.items[i];
    /* materializing deletion vectors rewrites whole row ranges: its deleted normal files */
    if (dml || (e->kind == PM_FILE_DELETE && !dedicated(e->file.file_name))) files[n++] = &e->file;
  }
  pm_rowid_checker *k = NULL;
  int rc = pm_rowid_checker_new(c->t, dml, files, n, &k, err);
  free(files);
  if (rc || pm_rowid_checker_empty(k)) {
    pm_rowid_checker_free(k);
    return rc;
  }
  pm_snapshot_manager sm = pm_table_snapshots(c->t);
  int64_t from = c->rowid_check_from, check_next = 0;
  pm_snapshot *s = NULL;
  rc = pm_snapshot_read(&sm, from, &s, err);
  if (rc) pm_error_prefix(err, "table %s: row id check from snapshot %" PRId64, c->t->name, from);
  else if (!s->has_next_row_id)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "table %s: row id check from snapshot %" PRId64 ": the snapshot has no nextRowId", c->t->name, from);
  else check_next = s->next_row_id;
  pm_snapshot_free(s);
  for (int64_t id = from + 1; !rc && id <= latest->id; id++) {
    s = NULL;
    if (id != latest->id) {
      rc = pm_snapshot_read(&sm, id, &s, err);
      if (rc) {
        pm_error_prefix(err, "table %s: row id check from snapshot %" PRId64, c->t->name, from);
        break;
      }
    }
    const pm_snapshot *cur = s ? s : latest;
    if (cur->commit_kind && !strcmp(cur->commit_kind, "COMPACT")) {
      pm_snapshot_free(s);
      continue;
    }
    pm_manifest_entries delta;
    pm_manifest_entries_init(&delta);
    rc = read_delta(c, cur, &delta, err);
    for (size_t i = 0; !rc && i < delta.n; i++) {
      const pm_manifest_entry *e = &delta.items[i];
      if (!dml && e->kind != PM_FILE_ADD) continue;
      if (!e->file.has_first_row_id || e->file.first_row_id >= check_next || !in_partitions(ch, &e->partition))
        continue;
      int hit = 0;
      rc = pm_rowid_checker_conflicts(k, &e->file, &hit, err);
      if (!rc && hit) {
        range r = file_range(e);
        rc = pm_errorf(err, PAIMON_ERR_CONFLICT,
                       "commit conflict on table %s: data-evolution row id conflict: file %s (rows %" PRId64 "..%" PRId64
                       ", bucket %d) %s by snapshot %" PRId64 " (%s by %s) after snapshot %" PRId64 ", which this "
                       "commit was planned on, %s; give up committing",
                       c->t->name, e->file.file_name, r.from, r.to, (int)e->bucket,
                       e->kind == PM_FILE_ADD ? "added" : "deleted", cur->id, cur->commit_kind ? cur->commit_kind : "?",
                       cur->commit_user ? cur->commit_user : "?", from,
                       dml ? "updates rows and columns this commit updates (multiple MERGE INTO operations updating "
                             "the same rows would render some updates ineffective)"
                           : "holds rows of a file this deletion-vector materialization rewrites (they would come "
                             "back or be lost)");
      }
    }
    pm_manifest_entries_clear(&delta);
    pm_snapshot_free(s);
  }
  pm_rowid_checker_free(k);
  return rc;
}

int pm_commit_check_rowid_conflicts(pm_commit *c, const pm_snapshot *latest, const pm_manifest_entries *base,
                                    const pm_commit_changes *ch, const char *kind, const pm_entry_merge *merged,
                                    pm_error *err) {
  if (!c->t->co.data_evolution) return 0;
  int compact = !strcmp(kind, "COMPACT");
  range *buf = malloc((base->n + 1) * sizeof *buf);
  if (!buf) return PM_NOMEM(err);
  int rc = check_existence(c, latest, base, ch, compact, buf, err);
  if (!rc && (compact || c->rowid_check_mode != PM_ROWID_CHECK_OFF)) rc = check_ranges_after(c, latest, merged, err);
  if (!rc) rc = check_global_index(c, latest, base, ch, buf, err);
  free(buf);
  if (!rc) rc = check_from_snapshot(c, latest, ch, kind, err);
  return rc;
}
