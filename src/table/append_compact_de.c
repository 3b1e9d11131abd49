/* Data-evolution compaction plan (append_compact.h): Java's
 * DataEvolutionCompactCoordinator.CompactPlanner for the normal data files
 * (blob / vector-store files stay as they are, as Java's compaction leaves
 * them without blob-compaction.enabled). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>

#include "table/append_compact.h"
#include "table/partition.h"

typedef struct de_cand {
  const pm_manifest_entry *e;
  size_t pos; /* position in the snapshot's file list */
} de_cand;

static int dedicated_file(const char *name) {
  size_t n = strlen(name);
  return (n >= 5 && !strcmp(name + n - 5, ".blob")) || strstr(name, ".vector.") != NULL;
}

static int64_t first_of(const de_cand *c) { return c->e->file.first_row_id; }
static int64_t last_of(const de_cand *c) { return c->e->file.first_row_id + c->e->file.row_count - 1; }

/* RangeHelper order: start, then end, then the input order (a stable sort). */
static int by_range(const void *a, const void *b) {
  const de_cand *x = a, *y = b;
  if (first_of(x) != first_of(y)) return first_of(x) < first_of(y) ? -1 : 1;
  if (last_of(x) != last_of(y)) return last_of(x) < last_of(y) ? -1 : 1;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int by_pos(const void *a, const void *b) {
  const de_cand *x = a, *y = b;
  return x->pos < y->pos ? -1 : x->pos > y->pos;
}

static int same_part(const pm_bytes *a, const pm_bytes *b) {
  return a->len == b->len && (!a->len || !memcmp(a->data, b->data, a->len));
}

/* The bin being filled: files (groups in row-id order, each in snapshot order) and weight. */
typedef struct de_bin {
  de_cand *files;
  size_t n;
  int64_t weight;
} de_bin;

/* triggerTask of the normal files: a task when the bin has compaction.min.file-num files. */
static int drain(const pm_append_compact_opts *o, de_bin *bin, pm_append_compact_plan *p, pm_error *err) {
  size_t n = bin->n;
  bin->n = 0;
  bin->weight = 0;
  if (!n || (int64_t)n < o->min_file_num) return 0;
  pm_append_compact_task *t;
  PM_TRY(pm_append_compact_plan_push(p, n, &t, err));
  for (size_t i = 0; i < n; i++) t->files[i] = bin->files[i].e;
  t->partition = bin->files[0].e->partition;
  t->bucket = bin->files[0].e->bucket;
  return 0;
}

static void bin_add(de_bin *bin, const de_cand *g, size_t n, int64_t weight) {
  memcpy(bin->files + bin->n, g, n * sizeof *g);
  bin->n += n;
  bin->weight += weight;
}

/* One run of row-id-continuous files c[0, n) (snapshot order): grouped by row-id range, the groups
 * packed into bins of more than target-file-size. */
static int plan_continuous(const pm_table *t, const pm_append_compact_opts *o, de_cand *c, size_t n, de_bin *bin,
                           pm_append_compact_plan *p, pm_error *err) {
  qsort(c, n, sizeof *c, by_range);
  int rc = 0;
  size_t g0 = 0;
  while (!rc && g0 < n) {
    int64_t end = last_of(&c[g0]);
    size_t g1 = g0 + 1;
    while (g1 < n && first_of(&c[g1]) <= end) {
      if (last_of(&c[g1]) > end) end = last_of(&c[g1]);
      g1++;
    }
    de_cand *g = c + g0;
    size_t k = g1 - g0;
    qsort(g, k, sizeof *g, by_pos); /* a group keeps the snapshot's order */
    int64_t weight = 0;
    for (size_t i = 0; i < k && !rc; i++) {
      if (first_of(&g[i]) != first_of(&g[0]) || last_of(&g[i]) != last_of(&g[0]))
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT,
                       "table %s.%s: data-evolution files %s (rows %" PRId64 "..%" PRId64 ") and %s (rows %" PRId64
                       "..%" PRId64 ") overlap without covering the same row-id range",
                       t ? t->database : "?", t ? t->name : "?", g[0].e->file.file_name, first_of(&g[0]), last_of(&g[0]),
                       g[i].e->file.file_name, first_of(&g[i]), last_of(&g[i]));
      weight += g[i].e->file.file_size > o->open_file_cost ? g[i].e->file.file_size : o->open_file_cost;
    }
    if (rc) break;
    if (weight > o->target_file_size) {
      /* the bin so far, then this group alone (it merges its column files) */
      rc = drain(o, bin, p, err);
      if (!rc) {
        bin_add(bin, g, k, weight);
        rc = drain(o, bin, p, err);
      }
    } else {
      bin_add(bin, g, k, weight);
      if (bin->weight > o->target_file_size) rc = drain(o, bin, p, err);
    }
    g0 = g1;
  }
  if (!rc) rc = drain(o, bin, p, err);
  return rc;
}

int pm_append_compact_plan_de(const pm_table *t, const pm_manifest_entries *live, const pm_compact_request *req,
                              const pm_append_compact_opts *o, pm_append_compact_plan *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  size_t cap = live->n ? live->n : 1;
  de_cand *c = malloc(cap * sizeof *c);
  de_cand *part = malloc(cap * sizeof *part);
  char *done = calloc(cap, 1);
  de_bin bin = {malloc(cap * sizeof *bin.files), 0, 0};
  int rc = c && part && done && bin.files ? 0 : PM_NOMEM(err);
  size_t n = 0;
  for (size_t i = 0; !rc && i < live->n; i++) {
    const pm_manifest_entry *e = &live->items[i];
    if (dedicated_file(e->file.file_name)) continue;
    int match = 1;
    rc = pm_compact_request_match(t, req, e->partition, &match, err);
    if (rc || !match) continue;
    if (!e->file.has_first_row_id || e->file.row_count <= 0) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "table %s.%s: data file %s has %s", t ? t->database : "?",
                     t ? t->name : "?",
                     e->file.file_name, e->file.has_first_row_id ? "no rows" : "no first row id");
      break;
    }
    c[n].e = e;
    c[n].pos = i;
    n++;
  }
  /* per partition, in order of first appearance */
  for (size_t i = 0; !rc && i < n; i++) {
    if (done[i]) continue;
    size_t k = 0;
    for (size_t j = i; j < n; j++)
      if (!done[j] && same_part(&c[j].e->partition, &c[i].e->partition)) {
        part[k++] = c[j];
        done[j] = 1;
      }
    /* runs of continuous row ids (adjacent files join: Java's range [first, first + rowCount]) */
    qsort(part, k, sizeof *part, by_range);
    size_t r0 = 0;
    while (!rc && r0 < k) {
      int64_t end = last_of(&part[r0]) + 1;
      size_t r1 = r0 + 1;
      while (r1 < k && first_of(&part[r1]) <= end) {
        if (last_of(&part[r1]) + 1 > end) end = last_of(&part[r1]) + 1;
        r1++;
      }
      qsort(part + r0, r1 - r0, sizeof *part, by_pos);
      rc = plan_continuous(t, o, part + r0, r1 - r0, &bin, out, err);
      r0 = r1;
    }
  }
  free(bin.files);
  free(done);
  free(part);
  free(c);
  if (rc) pm_append_compact_plan_free(out);
  return rc;
}
