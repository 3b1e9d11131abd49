/* Lookup compaction's per-key view of the old values (kv_write_internal.h
 * pm_kv_before_*; SEMANTICS 2.4, 3.6; Java's LookupChangelogMergeFunctionWrapper,
 * LookupMergeFunction, FirstRowMergeFunctionWrapper with LookupLevels).
 *
 * For one merge group compacted to level L > 0 that holds level-0 files:
 *   1. the keys of the group's level-0 files (their merged records, retracts
 *      included) form the key set K;
 *   2. the group's level > 0 files are merge-read (the reader's lookup rule
 *      keeps only the newest level > 0 record per key): a key of K found
 *      there is IN_GROUP, its record is the "before" (Java's pickHighLevel);
 *   3. levels L+1 .. max (files overlapping K's key range) are read level by
 *      level in ascending order: the first record of a still unresolved key
 *      is its "before" (UPPER, Java's lookup from outputLevel + 1);
 *   4. the rest is NONE.
 * Then every merged (after) row of the group's rewrite or upgrade with its
 * key in K yields changelog as Java: before absent or a retract -> +I after
 * (if after is an add); before an add -> -D before (after a retract) or
 * -U before, +U after (none with changelog-producer.row-deduplicate when the
 * value rows are equal, as Java's valueEqualiser). First-row: an after row of an UPPER key is dropped
 * (the key is already in the table), a NONE key's row is kept and logged as
 * is (+I), IN_GROUP keys are kept without changelog.
 * changelog-producer = full-compaction (a compaction to the max level): K =
 * the keys of the group's files below the max level, their "before" = the
 * record of the group's max-level files; the same rules (Java's
 * FullChangelogMergeFunctionWrapper: a key only at the max level is unchanged).
 * Reads go through the table reader (pm_kv_merge_read_open over the files, the
 * bucket's current deletion vectors applied), so older schemas are read as
 * the table's. Memory: K and the before rows of K's keys. */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/compute.h"
#include "table/kv_write_internal.h"
#include "table/read.h"
#include "table/write_internal.h"
#include "table/write_slots.h"

enum { B_NONE = 0, B_IN_GROUP = 1, B_UPPER = 2 };

typedef struct bkey {
  int state;
  int32_t src; /* before row: rows[src][row]; src < 0: none */
  int64_t row;
} bkey;

struct pm_kv_before {
  pm_kv_write *w;
  pm_kvslot *s;
  int first_row;
  pm_arena arena;
  pm_slot_map map; /* key bytes -> keys[i] */
  bkey *keys;
  size_t n_keys, cap_keys, unresolved;
  struct ArrowArray *rows; /* before rows, read layout */
  int32_t *row_level;      /* per rows[i]: the level it was looked up in (UPPER), else -1 */
  size_t n_rows, cap_rows;
  int cur_level;           /* the level read_files reads (-1: the group's files) */
  pm_type type; /* read layout: _row_kind, table columns, _SEQUENCE_NUMBER */
  int has_type;
  pm_binary_row_writer rw;
  int row_dedup; /* changelog-producer.row-deduplicate: no -U/+U pair for an unchanged row */
  uint8_t *ignored; /* per table column: named by changelog-producer.row-deduplicate-ignore-fields */
  pm_binary_row_writer vb, va; /* value rows compared for it */
};

typedef int (*row_fn)(pm_kv_before *b, const struct ArrowArray *batch, int64_t i, int64_t key, int *take,
                      pm_error *err);

static int kind_at(const struct ArrowArray *a, int64_t i) {
  const int32_t *off = (const int32_t *)a->buffers[1] + a->offset;
  const char *d = a->buffers[2];
  int32_t len = off[i + 1] - off[i];
  const char *p = d + off[i];
  if (len == 2 && p[0] == '-') return p[1] == 'U' ? PM_ROWKIND_UPDATE_BEFORE : PM_ROWKIND_DELETE;
  if (len == 2 && p[1] == 'U') return PM_ROWKIND_UPDATE_AFTER;
  return PM_ROWKIND_INSERT;
}

/* Row i's key as BinaryRow bytes in b->rw. */
static int key_bytes(pm_kv_before *b, const struct ArrowArray *batch, int64_t i, pm_error *err) {
  pm_kv_write *w = b->w;
  PM_TRY(pm_row_writer_reset(&b->rw, err));
  for (size_t k = 0; k < w->nk; k++) {
    pm_value v;
    const pm_data_type *ty = w->tm.key_types[k];
    PM_TRY(pm_write_value_at(ty, batch->children[1 + w->tm.key_cols[k]], i, &v, err));
    PM_TRY(pm_row_writer_write(&b->rw, (int32_t)k, ty, &v, err));
  }
  return 0;
}

/* Row i of a (read layout) as a BinaryRow of the table columns in rw. */
static int value_bytes(pm_kv_before *b, pm_binary_row_writer *rw, const struct ArrowArray *a, int64_t i,
                       pm_error *err) {
  pm_kv_write *w = b->w;
  PM_TRY(pm_row_writer_reset(rw, err));
  for (size_t f = 0; f < w->nf; f++) {
    pm_value v;
    const pm_data_type *ty = w->fields[f].type;
    if (b->ignored && b->ignored[f]) v.kind = PM_V_NULL; /* null on both sides */
    else PM_TRY(pm_write_value_at(ty, a->children[1 + f], i, &v, err));
    PM_TRY(pm_row_writer_write(rw, (int32_t)f, ty, &v, err));
  }
  return 0;
}

/* Whether before row (src, row) and after row i have equal values (Java's
 * valueEqualiser over the whole value row). */
static int same_value(pm_kv_before *b, const bkey *k, const struct ArrowArray *after, int64_t i, int *same,
                      pm_error *err) {
  PM_TRY(value_bytes(b, &b->vb, &b->rows[k->src], k->row, err));
  PM_TRY(value_bytes(b, &b->va, after, i, err));
  *same = b->vb.buf.len == b->va.buf.len && !memcmp(b->vb.buf.data, b->va.buf.data, b->va.buf.len);
  return 0;
}

/* Merge-reads files[0..n) (read layout, retracts kept) and calls fn for
 * every row (key = its index in K or -1); rows fn marks with *take are kept
 * as before rows (their index stored in keys[key]). */
static int read_files(pm_kv_before *b, pm_kv_lfile *const *files, size_t n, row_fn fn, pm_error *err) {
  if (!n) return 0;
  pm_kv_merge_read mr;
  int rc = pm_kv_merge_read_open(b->w, b->s, files, n, &mr, err);
  if (!rc && !b->has_type) {
    struct ArrowSchema sc;
    if (mr.st.get_schema(&mr.st, &sc)) {
      rc = pm_errorf(err, PAIMON_ERR_IO, "lookup compaction: the read schema");
    } else {
      rc = pm_type_from_schema(&sc, &b->type, err);
      b->has_type = !rc;
      sc.release(&sc);
    }
  }
  int64_t *take = NULL;
  int64_t cap_take = 0;
  while (!rc) {
    struct ArrowArray batch;
    rc = pm_kv_merge_read_next(&mr, &batch, "lookup compaction: reading failed", err);
    if (rc || !batch.release) break;
    if (batch.length > cap_take) {
      int64_t *nt = realloc(take, (size_t)batch.length * sizeof *nt);
      if (!nt) rc = PM_NOMEM(err);
      else {
        take = nt;
        cap_take = batch.length;
      }
    }
    int64_t nt = 0;
    for (int64_t i = 0; !rc && i < batch.length; i++) {
      rc = key_bytes(b, &batch, i, err);
      if (rc) break;
      int64_t key = pm_slot_map_find(&b->map, b->rw.buf.data, b->rw.buf.len, 0);
      int t = 0;
      rc = fn(b, &batch, i, key, &t, err);
      if (!rc && t) {
        b->keys[key].src = (int32_t)b->n_rows;
        b->keys[key].row = nt;
        take[nt++] = i;
      }
    }
    if (!rc && nt) {
      if (b->n_rows == b->cap_rows) {
        size_t cap = b->cap_rows ? 2 * b->cap_rows : 16;
        struct ArrowArray *nr = realloc(b->rows, cap * sizeof *nr);
        if (nr) b->rows = nr;
        int32_t *nl = nr ? realloc(b->row_level, cap * sizeof *nl) : NULL;
        if (!nl) rc = PM_NOMEM(err);
        else {
          b->row_level = nl;
          b->cap_rows = cap;
        }
      }
      if (!rc) rc = pm_take(&b->type, &batch, take, nt, &b->rows[b->n_rows], err);
      if (!rc) b->row_level[b->n_rows++] = b->cur_level;
    }
    batch.release(&batch);
  }
  free(take);
  pm_kv_merge_read_close(&mr);
  return rc;
}

static int add_key(pm_kv_before *b, const struct ArrowArray *batch, int64_t i, int64_t key, int *take, pm_error *err) {
  (void)batch;
  (void)i;
  (void)take;
  if (key >= 0) return 0;
  if (b->n_keys == b->cap_keys) {
    size_t cap = b->cap_keys ? 2 * b->cap_keys : 1024;
    bkey *nk = realloc(b->keys, cap * sizeof *nk);
    if (!nk) return PM_NOMEM(err);
    b->keys = nk;
    b->cap_keys = cap;
  }
  size_t len = b->rw.buf.len;
  const uint8_t *copy = pm_arena_memdup(&b->arena, b->rw.buf.data, len ? len : 1);
  if (!copy) return PM_NOMEM(err);
  PM_TRY(pm_slot_map_add(&b->map, copy, len, 0, b->n_keys, err));
  b->keys[b->n_keys++] = (bkey){B_NONE, -1, 0};
  b->unresolved++;
  return 0;
}

static int resolve(pm_kv_before *b, int64_t key, int state, int *take) {
  if (key < 0 || b->keys[key].state != B_NONE) return 0;
  b->keys[key].state = state;
  b->unresolved--;
  *take = !b->first_row; /* first-row needs only whether the key exists */
  return 0;
}

static int found_in_group(pm_kv_before *b, const struct ArrowArray *batch, int64_t i, int64_t key, int *take,
                          pm_error *err) {
  (void)batch;
  (void)i;
  (void)err;
  return resolve(b, key, B_IN_GROUP, take);
}

static int found_upper(pm_kv_before *b, const struct ArrowArray *batch, int64_t i, int64_t key, int *take,
                       pm_error *err) {
  (void)batch;
  (void)i;
  (void)err;
  return resolve(b, key, B_UPPER, take);
}

void pm_kv_before_free(pm_kv_before *b) {
  if (!b) return;
  for (size_t i = 0; i < b->n_rows; i++) pm_array_release(&b->rows[i]);
  free(b->rows);
  free(b->row_level);
  free(b->keys);
  pm_slot_map_free(&b->map);
  pm_row_writer_free(&b->rw);
  free(b->ignored);
  if (b->row_dedup) {
    pm_row_writer_free(&b->vb);
    pm_row_writer_free(&b->va);
  }
  pm_arena_free(&b->arena);
  if (b->has_type) pm_type_free(&b->type);
  free(b);
}

int pm_kv_before_build(pm_kv_write *w, pm_kvslot *s, pm_kv_lfile *const *files, size_t n, int out_level, int full,
                       pm_kv_before **out, pm_error *err) {
  *out = NULL;
  pm_kv_before *b = calloc(1, sizeof *b);
  if (!b) return PM_NOMEM(err);
  b->w = w;
  b->s = s;
  b->cur_level = -1;
  b->first_row = !full && w->t->merge_engine == (pm_merge_engine)PM_ENGINE_FIRST_ROW;
  pm_arena_init(&b->arena);
  int rc = pm_row_writer_init(&b->rw, (int32_t)w->nk, err);
  if (!rc && w->t->co.changelog_row_deduplicate) {
    rc = pm_row_writer_init(&b->vb, (int32_t)w->nf, err);
    if (!rc) {
      rc = pm_row_writer_init(&b->va, (int32_t)w->nf, err);
      if (rc) pm_row_writer_free(&b->vb);
    }
    b->row_dedup = !rc;
    /* Java splits the list at ',' (no trimming); names matching no column are ignored */
    const char *list = w->t->co.changelog_row_deduplicate_ignore_fields;
    if (!rc && list && *list) {
      b->ignored = calloc(w->nf + 1, 1);
      if (!b->ignored) rc = PM_NOMEM(err);
      for (const char *p = list; !rc;) {
        const char *e = strchr(p, ',');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        for (size_t f = 0; f < w->nf; f++)
          if (strlen(w->fields[f].name) == len && !memcmp(w->fields[f].name, p, len)) b->ignored[f] = 1;
        if (!e) break;
        p = e + 1;
      }
    }
  }
  int nk = (int)w->nk;
  size_t n0 = 0, nh = 0;
  pm_kv_lfile **l0 = calloc(n + 1, sizeof *l0), **hi = calloc(n + 1, sizeof *hi);
  if (!rc && (!l0 || !hi)) rc = PM_NOMEM(err);
  const pm_value *gmin = NULL, *gmax = NULL; /* key range of the group's level-0 files */
  for (size_t i = 0; !rc && i < n; i++) {
    if (full ? files[i]->meta.level == out_level : files[i]->meta.level != 0) {
      hi[nh++] = files[i];
      continue;
    }
    l0[n0++] = files[i];
    if (!gmin || pm_kv_key_cmp(nk, files[i]->min, gmin) < 0) gmin = files[i]->min;
    if (!gmax || pm_kv_key_cmp(nk, files[i]->max, gmax) > 0) gmax = files[i]->max;
  }
  if (!rc) rc = read_files(b, l0, n0, add_key, err);
  if (!rc && b->unresolved) rc = read_files(b, hi, nh, found_in_group, err);
  pm_kv_lfile **lf = NULL;
  for (int lv = out_level + 1; !full && !rc && b->unresolved && lv < s->levels.n_levels; lv++) {
    const pm_kv_level *level = &s->levels.levels[lv];
    free(lf);
    lf = calloc(level->n + 1, sizeof *lf);
    if (!lf) {
      rc = PM_NOMEM(err);
      break;
    }
    size_t k = 0;
    for (size_t i = 0; i < level->n; i++) {
      pm_kv_lfile *f = level->files[i];
      if (pm_kv_key_cmp(nk, f->max, gmin) < 0 || pm_kv_key_cmp(nk, f->min, gmax) > 0) continue;
      lf[k++] = f;
    }
    b->cur_level = lv;
    rc = read_files(b, lf, k, found_upper, err);
    b->cur_level = -1;
  }
  free(lf);
  free(l0);
  free(hi);
  if (rc) {
    pm_kv_before_free(b);
    return pm_error_prefix(err, "lookup compaction");
  }
  *out = b;
  return 0;
}

/* ------------------------------------------------------------ per merged batch */

int pm_kv_before_apply(pm_kv_before *b, const struct ArrowArray *after, uint8_t *keep, struct ArrowArray *cl,
                       int8_t **cl_kinds, pm_error *err) {
  memset(cl, 0, sizeof *cl);
  *cl_kinds = NULL;
  int64_t n = after->length;
  /* at most two changelog rows per after row */
  int32_t *src = malloc((size_t)(2 * n + 1) * sizeof *src);
  int64_t *rows = malloc((size_t)(2 * n + 1) * sizeof *rows);
  int8_t *kinds = malloc((size_t)(2 * n + 1));
  int rc = src && rows && kinds ? 0 : PM_NOMEM(err);
  int32_t self = (int32_t)b->n_rows; /* the after batch's source index */
  int64_t m = 0;
  for (int64_t i = 0; !rc && i < n; i++) {
    if (keep) pm_bit_set(keep, i);
    rc = key_bytes(b, after, i, err);
    if (rc) break;
    int64_t key = pm_slot_map_find(&b->map, b->rw.buf.data, b->rw.buf.len, 0);
    if (key < 0) continue; /* no level-0 record: no changelog */
    const bkey *k = &b->keys[key];
    int after_add = !pm_rowkind_is_retract((int8_t)kind_at(after->children[0], i));
    if (b->first_row) {
      if (k->state == B_UPPER) {
        if (keep) pm_bit_clear(keep, i);
      } else if (k->state == B_NONE) {
        src[m] = self, rows[m] = i, kinds[m++] = (int8_t)kind_at(after->children[0], i);
      }
      continue;
    }
    int before_add = k->src >= 0 && !pm_rowkind_is_retract((int8_t)kind_at(b->rows[k->src].children[0], k->row));
    if (!before_add) {
      if (after_add) src[m] = self, rows[m] = i, kinds[m++] = PM_ROWKIND_INSERT;
    } else if (!after_add) {
      src[m] = k->src, rows[m] = k->row, kinds[m++] = PM_ROWKIND_DELETE;
    } else {
      int same = 0;
      if (b->row_dedup) rc = same_value(b, k, after, i, &same, err);
      if (rc || same) continue;
      src[m] = k->src, rows[m] = k->row, kinds[m++] = PM_ROWKIND_UPDATE_BEFORE;
      src[m] = self, rows[m] = i, kinds[m++] = PM_ROWKIND_UPDATE_AFTER;
    }
  }
  if (!rc && m) {
    const struct ArrowArray **srcs = malloc((b->n_rows + 1) * sizeof *srcs);
    if (!srcs) rc = PM_NOMEM(err);
    for (size_t i = 0; srcs && i < b->n_rows; i++) srcs[i] = &b->rows[i];
    if (srcs) srcs[b->n_rows] = after;
    if (!rc) rc = pm_take_multi(&b->type, srcs, (int64_t)b->n_rows + 1, src, rows, m, cl, err);
    free((void *)srcs);
  }
  free(src);
  free(rows);
  if (!rc && m) {
    *cl_kinds = kinds;
    return 0;
  }
  free(kinds);
  return rc;
}

/* ------------------------------------------------------------ looked-up records for the merge */

int pm_kv_before_upper_files(pm_kv_before *b, pm_arena *arena, uint64_t *fed_acc, uint64_t *bytes_acc, pm_kv_files *out,
                             pm_error *err) {
  pm_kv_write *w = b->w;
  int rc = 0;
  int64_t *idx = NULL;
  int64_t cap_idx = 0;
  for (int lv = 1; !rc && lv < b->s->levels.n_levels; lv++) {
    int any = 0;
    for (size_t i = 0; i < b->n_rows && !any; i++) any = b->row_level[i] == lv;
    if (!any) continue;
    /* the level's before rows are in key order (one merge read of its files) */
    pm_kv_roll roll;
    pm_kv_roll_init(&roll, w, b->s->bucket_dir, lv, PM_SOURCE_COMPACT, 0, out);
    roll.arena = arena;
    roll.fed_acc = fed_acc;
    roll.bytes_acc = bytes_acc;
    for (size_t i = 0; !rc && i < b->n_rows; i++) {
      if (b->row_level[i] != lv) continue;
      int64_t n = b->rows[i].length;
      if (n > cap_idx) {
        int64_t *ni = realloc(idx, (size_t)n * sizeof *ni);
        if (!ni) {
          rc = PM_NOMEM(err);
          break;
        }
        idx = ni;
        cap_idx = n;
      }
      for (int64_t r = 0; r < n; r++) idx[r] = r;
      struct ArrowArray copy, m;
      memset(&m, 0, sizeof m);
      rc = pm_take(&b->type, &b->rows[i], idx, n, &copy, err); /* to_layout moves the copy's columns */
      if (!rc) {
        rc = pm_kv_to_layout(w, &copy, 0, NULL, &m, err);
        pm_array_release(&copy);
      }
      if (!rc && m.release) rc = pm_kv_roll_write(&roll, &m, err);
      if (m.release) pm_array_release(&m);
    }
    if (!rc) rc = pm_kv_roll_finish(&roll, err);
    if (rc) pm_kv_roll_abort(&roll);
  }
  free(idx);
  return rc ? pm_error_prefix(err, "lookup compaction: the looked-up records") : 0;
}
