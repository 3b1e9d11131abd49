/* Row-id conflicts of data-evolution tables (commit_internal.h; Java's
 * DataEvolutionConflictDetection without the writer-set "row id check from
 * snapshot", which no C writer sets):
 *   - a file we delete must still have the row range (first row id, row
 *     count) we planned with;
 *   - COMPACT: every new file's row range lies inside the row ranges of the
 *     live files of its (partition, bucket) (adjacent ranges joined);
 *   - other kinds: a new file starting below the latest nextRowId (a column
 *     update of existing rows) must match the rows of live files exactly (a
 *     blob / vector-store file: lie inside them);
 *   - COMPACT: after the commit, data files whose row ranges overlap have the
 *     same range, and each blob / vector-store file lies inside one data file
 *     range (a compaction racing a concurrent column update, or two
 *     compactions, would otherwise lose rows' values).
 * Each failure is PAIMON_ERR_CONFLICT naming the file, nothing published. */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "meta/file_entry.h"
#include "table/commit_internal.h"

typedef struct range {
  int64_t from, to; /* inclusive */
} range;

static int dedicated(const char *name) {
  size_t n = strlen(name);
  return (n >= 5 && !strcmp(name + n - 5, ".blob")) || strstr(name, ".vector.") != NULL;
}

static range file_range(const pm_manifest_entry *e) {
  range r = {e->file.first_row_id, e->file.first_row_id + e->file.row_count - 1};
  return r;
}

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

int pm_commit_check_rowid_conflicts(pm_commit *c, const pm_snapshot *latest, const pm_manifest_entries *base,
                                    const pm_commit_changes *ch, const char *kind, const pm_entry_merge *merged,
                                    pm_error *err) {
  if (!c->t->co.data_evolution) return 0;
  int compact = !strcmp(kind, "COMPACT");
  range *buf = malloc((base->n + 1) * sizeof *buf);
  if (!buf) return PM_NOMEM(err);
  int rc = check_existence(c, latest, base, ch, compact, buf, err);
  free(buf);
  if (!rc && compact) rc = check_ranges_after(c, latest, merged, err);
  return rc;
}
