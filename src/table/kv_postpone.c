/* Postpone buckets (`bucket` = -2; kv_write.h, SEMANTICS 1.1), as Java's
 * PostponeBucketFileStoreWrite / PostponeBucketWriter write them and its
 * compact action (PostponeBucketCompactSplitSource, PostponeBucketCompactOperator,
 * PostponeBucketCommittableRewriter, PostponeUtils) assigns their buckets.
 *
 * Writing: every row goes to bucket -2 (directory bucket-postpone) of its
 * partition, in arrival order, neither sorted nor merged, with sequence
 * number -1 (Java's KeyValue.UNKNOWN_SEQUENCE: the files' records are
 * replayed in order, their numbers are never used), level 0, file source
 * APPEND, total buckets -2. Files are Avro with metadata.stats-mode = none
 * when Avro can hold the table's columns (else the table's format and stats
 * mode), named <data-file.prefix>u-<commit user>-s-<write id>-w-<uuid>-<n>.avro
 * (the write id random per writer). No restore, no compaction, no changelog.
 *
 * Compaction (pm_kv_postpone_compact, then the next prepare): in the latest
 * snapshot, the partitions with bucket -2 files or real-bucket level-0 files
 * (selected by the request) get a real-bucket writer with bucket = the
 * partition's existing bucket count, else postpone.default-bucket-num, else
 * ceil(rows / postpone.target-row-num-per-bucket), else ceil(bytes /
 * postpone.target-size-per-bucket) (at least 1). The partition's bucket -2
 * files are read one by one in creation-time order (stable), each record
 * with its row kind, and written to that writer (fresh sequence numbers
 * after each bucket's maximum, the merge engine in the write buffer); then
 * every bucket written and every bucket with level-0 files is compacted
 * (the universal strategy, or full). Prepare turns the writers' increments
 * into compact increments (new files become compact-after files; a new
 * file compacted away in the same round is deleted and dropped from both
 * lists) plus, per partition, a bucket -2 message whose compact-before
 * lists the postpone files read: one COMPACT commit. Nothing pending:
 * no messages. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/compute.h"
#include "io/fs.h"
#include "meta/core_options.h"
#include "table/commit.h"
#include "table/kv_dv.h"
#include "table/kv_write_internal.h"
#include "table/partition.h"
#include "table/read.h"
#include "table/scan.h"
#include "util/random.h"
#include "util/sort.h"

/* One real-bucket writer per bucket count. */
typedef struct pp_real {
  int32_t buckets;
  pm_kv_write *w;
} pp_real;

struct pm_kv_postpone {
  pp_real *reals;
  size_t n_reals;
  pm_manifest_entries removed; /* the bucket -2 files read, grouped by partition */
};

/* ------------------------------------------------------------ writing */

/* Java's AvroSchemaConverter: which logical types it converts. */
static int avro_fits(const pm_data_type *t) {
  switch (t->root) {
    case PM_DT_TIMESTAMP:
    case PM_DT_TIMESTAMP_LTZ: return t->precision <= 6;
    case PM_DT_TIME: return t->precision <= 3;
    case PM_DT_VARIANT:
    case PM_DT_GEOMETRY:
    case PM_DT_GEOGRAPHY: return 0;
    case PM_DT_ARRAY:
    case PM_DT_VECTOR:
    case PM_DT_MULTISET: return avro_fits(t->element);
    case PM_DT_MAP: return avro_fits(t->key) && avro_fits(t->value);
    case PM_DT_ROW:
      for (size_t i = 0; i < t->n_fields; i++)
        if (!avro_fits(t->fields[i].type)) return 0;
      return 1;
    default: return 1;
  }
}

int pm_kv_postpone_open(pm_kv_write *w, const pm_write_config *cfg, pm_error *err) {
  pm_table *t = w->t;
  const pm_format *avro = pm_format_by_name("avro");
  int fits = avro && avro->writer_open;
  for (size_t f = 0; fits && f < w->nf; f++) fits = avro_fits(w->fields[f].type);
  if (fits) {
    pm_schema_release(&w->file_schema);
    free(w->key_modes);
    free(w->value_modes);
    w->key_modes = w->value_modes = NULL;
    w->fmt = avro;
    PM_TRY(pm_kv_file_layout(w, avro, "none", PM_CO_METADATA_STATS_MODE, &w->file_schema, &w->key_modes,
                             &w->value_modes, err));
  }
  char uuid[PM_UUID_TEXT_SIZE];
  pm_uuid_random(uuid);
  const char *user = cfg && cfg->commit_user && *cfg->commit_user ? cfg->commit_user : uuid;
  uint32_t id;
  pm_random_bytes(&id, sizeof id);
  id = (id & 0x7fffffffu) % 0x7fffffffu; /* ThreadLocalRandom.nextInt(Integer.MAX_VALUE) */
  const char *dp = t->co.data_file_prefix ? t->co.data_file_prefix : "data-";
  size_t n = strlen(dp) + strlen(user) + 32;
  w->commit_user = strdup(user);
  w->file_prefix = malloc(n);
  if (!w->commit_user || !w->file_prefix) return PM_NOMEM(err);
  snprintf(w->file_prefix, n, "%su-%s-s-%u-w-", dp, user, (unsigned)id);
  return 0;
}

int pm_kv_postpone_flush(pm_kv_write *w, pm_kvslot *s, pm_error *err) {
  if (!s->n_chunks) return 0;
  pm_kv_roll r;
  pm_kv_roll_init(&r, w, s->bucket_dir, 0, PM_SOURCE_APPEND, 0, &s->out);
  int rc = 0;
  for (size_t i = 0; !rc && i < s->n_chunks; i++) rc = pm_kv_roll_write(&r, &s->chunks[i], err);
  if (!rc) rc = pm_kv_roll_finish(&r, err);
  if (rc) pm_kv_roll_abort(&r);
  for (size_t i = 0; i < s->n_chunks; i++) pm_array_release(&s->chunks[i]);
  s->n_chunks = 0;
  w->buffered -= s->bytes;
  s->bytes = 0;
  return rc;
}

/* Java's PostponeBucketWriter.validateRetract: the first retract a postpone
 * writer gets goes through the merge function (no single-record rule: the
 * record twice), so an engine that refuses it fails the write, not every
 * later compaction. Rows: the batch's rows in the table's columns, kinds[r],
 * keep (NULL: all). */
int pm_kv_postpone_validate(pm_kv_write *w, const struct ArrowArray *b, const int8_t *kinds, const uint8_t *keep,
                            pm_error *err) {
  if (w->retract_validated) return 0;
  int64_t r = 0;
  while (r < b->length && (!pm_rowkind_is_retract(kinds[r]) || (keep && !keep[r]))) r++;
  if (r == b->length) return 0;
  int64_t idx[2] = {r, r};
  struct ArrowArray sub, c, out;
  PM_TRY(pm_take(&w->type, b, idx, 2, &sub, err));
  int rc = pm_array_init(&c, 2, 1, (int64_t)w->nf + 2, err);
  if (rc) {
    pm_array_release(&sub);
    return rc;
  }
  for (size_t f = 0; f < w->nf; f++) pm_array_move(sub.children[f], c.children[f]);
  pm_array_release(&sub);
  int64_t *seq = NULL;
  int8_t *kind = NULL;
  rc = pm_array_init(c.children[w->nf], 2, 2, 0, err);
  if (!rc) rc = pm_array_init(c.children[w->nf + 1], 2, 2, 0, err);
  if (!rc) {
    seq = pm_aligned_alloc(2 * sizeof *seq);
    kind = pm_aligned_alloc(8);
    if (!seq || !kind) rc = PM_NOMEM(err);
  }
  if (rc) {
    pm_aligned_free(seq);
    pm_aligned_free(kind);
    pm_array_release(&c);
    return rc;
  }
  seq[0] = 0;
  seq[1] = 1;
  kind[0] = kind[1] = kinds[r];
  pm_array_set_buffer(c.children[w->nf], 1, seq);
  pm_array_set_buffer(c.children[w->nf + 1], 1, kind);
  memset(&out, 0, sizeof out);
  rc = pm_merge_sorted_batch(&w->tm.cfg, &c, &out, err);
  if (out.release) out.release(&out);
  pm_array_release(&c);
  if (rc) return pm_error_prefix(err, "table %s.%s: ", w->t->database, w->t->name);
  w->retract_validated = 1;
  return 0;
}

/* ------------------------------------------------------------ compaction: planning */

typedef struct pp_part {
  pm_bytes part;   /* borrowed from the live entries */
  int32_t known;   /* real-bucket count, -1 unknown */
  int64_t rows, bytes;
  size_t *files;   /* indices of its bucket -2 entries */
  size_t n_files, cap_files;
  int32_t *l0;     /* real buckets with level-0 files */
  size_t n_l0, cap_l0;
} pp_part;

typedef struct pp_plan {
  pm_manifest_entries live;
  pp_part *parts;
  size_t n_parts, cap_parts;
  pm_slot_map map; /* partition (bucket 0) -> parts[i] */
} pp_plan;

static void plan_free(pp_plan *p) {
  for (size_t i = 0; i < p->n_parts; i++) {
    free(p->parts[i].files);
    free(p->parts[i].l0);
  }
  free(p->parts);
  pm_slot_map_free(&p->map);
  pm_manifest_entries_clear(&p->live);
}

static int grow(void **items, size_t *cap, size_t n, size_t size, pm_error *err) {
  if (n < *cap) return 0;
  size_t c = *cap ? 2 * *cap : 8;
  void *ni = realloc(*items, c * size);
  if (!ni) return PM_NOMEM(err);
  *items = ni;
  *cap = c;
  return 0;
}

static int part_of(pp_plan *p, pm_bytes part, pp_part **out, pm_error *err) {
  int64_t pos = pm_slot_map_find(&p->map, part.data, part.len, 0);
  if (pos >= 0) {
    *out = &p->parts[pos];
    return 0;
  }
  PM_TRY(grow((void **)&p->parts, &p->cap_parts, p->n_parts, sizeof *p->parts, err));
  pp_part *x = &p->parts[p->n_parts];
  memset(x, 0, sizeof *x);
  x->part = part;
  x->known = -1;
  PM_TRY(pm_slot_map_add(&p->map, part.data, part.len, 0, p->n_parts, err));
  p->n_parts++;
  *out = x;
  return 0;
}

static int partition_error(const pm_table *t, pm_bytes part, int code, const char *what, int32_t a, int32_t b,
                           pm_error *err) {
  char *pt = NULL;
  pm_error e2;
  pm_partition_path(t, part, &pt, &e2);
  int rc = pm_errorf(err, code, "table %s.%s: partition '%s' %s (%d, %d)", t->database, t->name, pt ? pt : "?", what,
                     (int)a, (int)b);
  free(pt);
  return rc;
}

/* The latest snapshot's partitions with bucket -2 files or real level-0 files. */
static int plan_build(pm_table *t, const pm_snapshot *snap, pp_plan *p, pm_error *err) {
  PM_TRY(pm_scan_live_files(t, snap, NULL, &p->live, err));
  for (size_t i = 0; i < p->live.n; i++) {
    const pm_manifest_entry *e = &p->live.items[i];
    pp_part *x;
    PM_TRY(part_of(p, e->partition, &x, err));
    if (e->bucket == -2) {
      PM_TRY(grow((void **)&x->files, &x->cap_files, x->n_files, sizeof *x->files, err));
      x->files[x->n_files++] = i;
      x->rows += e->file.row_count;
      x->bytes += e->file.file_size;
      continue;
    }
    if (e->bucket < 0 || e->total_buckets < 0) continue;
    if (x->known >= 0 && x->known != e->total_buckets)
      return partition_error(t, e->partition, PAIMON_ERR_CORRUPT, "has files of different bucket counts", x->known,
                             e->total_buckets, err);
    x->known = e->total_buckets;
    if (e->file.level != 0 || e->total_buckets <= 0) continue;
    int seen = 0;
    for (size_t k = 0; k < x->n_l0 && !seen; k++) seen = x->l0[k] == e->bucket;
    if (seen) continue;
    PM_TRY(grow((void **)&x->l0, &x->cap_l0, x->n_l0, sizeof *x->l0, err));
    x->l0[x->n_l0++] = e->bucket;
  }
  return 0;
}

/* The partition's bucket count (Java's PostponeBucketNumResolver). */
static int bucket_count(const pm_table *t, const pp_part *x, int32_t *out, pm_error *err) {
  const pm_core_options *co = &t->co;
  if (x->known > 0) {
    *out = x->known;
    return 0;
  }
  if (co->postpone_default_bucket_num > 0) {
    *out = co->postpone_default_bucket_num;
    return 0;
  }
  int64_t value = x->bytes, target = co->postpone_target_size_per_bucket;
  pm_co_id key = PM_CO_POSTPONE_TARGET_SIZE_PER_BUCKET;
  if (co->postpone_target_row_num_per_bucket > 0) {
    value = x->rows;
    target = co->postpone_target_row_num_per_bucket;
    key = PM_CO_POSTPONE_TARGET_ROW_NUM_PER_BUCKET;
  }
  if (target <= 0) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s' must be greater than 0", pm_core_option_key(key));
  int64_t n = value <= 0 ? 1 : (value - 1) / target + 1;
  if (n > INT32_MAX)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s: the postpone bucket number %lld exceeds the maximum integer: increase option '%s'",
                     t->database, t->name, (long long)n, pm_core_option_key(key));
  *out = (int32_t)n;
  return 0;
}

/* ------------------------------------------------------------ compaction: writing */

static void pp_free_reals(pm_kv_postpone *pp) {
  for (size_t i = 0; i < pp->n_reals; i++) pm_kv_write_free(pp->reals[i].w);
  free(pp->reals);
  pp->reals = NULL;
  pp->n_reals = 0;
}

void pm_kv_postpone_free(pm_kv_postpone *pp) {
  if (!pp) return;
  pp_free_reals(pp);
  pm_manifest_entries_clear(&pp->removed);
  free(pp);
}

/* The real-bucket writer of bucket count n: the table with bucket = n and
 * write-only = false, restored from snapshot snap's live files. */
static int real_writer(pm_kv_write *w, const pp_plan *p, const pm_snapshot *snap, int32_t n, pm_kv_write **out,
                       pm_error *err) {
  pm_kv_postpone *pp = w->pp;
  for (size_t i = 0; i < pp->n_reals; i++)
    if (pp->reals[i].buckets == n) {
      *out = pp->reals[i].w;
      return 0;
    }
  pp_real *nr = realloc(pp->reals, (pp->n_reals + 1) * sizeof *nr);
  if (!nr) return PM_NOMEM(err);
  pp->reals = nr;
  pm_options dyn;
  pm_options_init(&dyn);
  pm_table *rt = NULL;
  int rc = pm_options_set(&dyn, pm_core_option_key(PM_CO_WRITE_ONLY), "false", err);
  if (!rc) rc = pm_table_reopen(w->t, NULL, &dyn, &rt, err);
  pm_options_clear(&dyn);
  if (rc) return rc;
  rt->bucket = n; /* a handle of our own: the rewrite's table (Java's tableForPostponeRewrite) */
  rt->bucket_mode = PM_BUCKET_FIXED;
  pm_write_config cfg = {w->commit_user, 0, 0, 0};
  pm_kv_write *r = NULL;
  rc = pm_kv_write_open(rt, &cfg, &r, err);
  pm_table_free(rt);
  if (rc) return rc;
  /* restore from the planned snapshot, not whatever is latest by now */
  r->restored = 1;
  r->postpone_rewrite = 1;
  for (size_t i = 0; !rc && i < p->live.n; i++) rc = pm_manifest_entries_push(&r->previous, &p->live.items[i], err);
  if (!rc && r->dv) rc = pm_kv_dv_index_entries(r->t, snap, &r->dv_index, err);
  if (!rc) rc = pm_kv_write_row_kind_column(r, PM_READ_ROW_KIND_COLUMN, err);
  if (rc) {
    pm_kv_write_free(r);
    return rc;
  }
  pp->reals[pp->n_reals++] = (pp_real){n, r};
  *out = r;
  return 0;
}

typedef struct by_ctime_ctx {
  const pm_manifest_entries *live;
  const size_t *files;
} by_ctime_ctx;

static int by_ctime(const void *ctx, size_t a, size_t b) {
  const by_ctime_ctx *c = ctx;
  int64_t x = c->live->items[c->files[a]].file.creation_time_millis;
  int64_t y = c->live->items[c->files[b]].file.creation_time_millis;
  return x < y ? -1 : x > y;
}

/* Replays one bucket -2 file into real writer r: every record with its row kind, in file order. */
static int replay_file(pm_kv_write *w, pm_kv_write *r, const pm_manifest_entry *e, const char *bdir, pm_error *err) {
  pm_data_split sp;
  memset(&sp, 0, sizeof sp);
  pm_arena_init(&sp.arena);
  sp.snapshot_id = -1;
  sp.partition = e->partition;
  sp.bucket = -2;
  sp.bucket_path = bdir;
  sp.total_buckets = e->total_buckets;
  sp.has_total_buckets = 1;
  sp.data_files = (pm_data_file_meta *)&e->file;
  sp.n_data_files = 1;
  const char **cols = calloc(w->nf + 1, sizeof *cols);
  if (!cols) return PM_NOMEM(err);
  for (size_t f = 0; f < w->nf; f++) cols[f] = w->fields[f].name;
  pm_read_options ro;
  pm_read_options_init(&ro);
  ro.columns = cols;
  ro.n_columns = w->nf;
  ro.with_row_kind = 1;
  ro.parallelism = 1;
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  int rc = pm_read_split(w->t, &sp, &ro, &st, err);
  struct ArrowSchema sch;
  memset(&sch, 0, sizeof sch);
  if (!rc && st.get_schema(&st, &sch)) rc = pm_errorf(err, PAIMON_ERR_IO, "%s", st.get_last_error(&st));
  while (!rc) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    if (st.get_next(&st, &b)) {
      const char *msg = st.get_last_error ? st.get_last_error(&st) : NULL;
      rc = pm_errorf(err, PAIMON_ERR_IO, "%s", msg ? msg : "reading a postpone file");
      break;
    }
    if (!b.release) break;
    if (b.length) rc = pm_kv_write_arrow(r, &sch, &b, PM_ROWKIND_INSERT, err);
    b.release(&b);
  }
  if (sch.release) sch.release(&sch);
  if (st.release) st.release(&st);
  free(cols);
  pm_arena_free(&sp.arena);
  if (rc) pm_error_prefix(err, "table %s.%s: postpone file %s: ", w->t->database, w->t->name, e->file.file_name);
  return rc;
}

/* One partition: its bucket -2 files replayed into r, then its written and level-0 buckets compacted. */
static int compact_partition(pm_kv_write *w, pm_kv_write *r, const pp_plan *p, const pp_part *x, int full,
                             pm_error *err) {
  size_t *order = malloc((x->n_files + 1) * sizeof *order);
  if (!order) return PM_NOMEM(err);
  for (size_t i = 0; i < x->n_files; i++) order[i] = i;
  by_ctime_ctx bc = {&p->live, x->files};
  int rc = pm_sort_indices(order, x->n_files, by_ctime, &bc) ? PM_NOMEM(err) : 0;
  char *pdir = NULL, *bdir = NULL;
  if (!rc && x->n_files) rc = pm_partition_path(w->t, x->part, &pdir, err);
  if (!rc && x->n_files) rc = pm_table_bucket_path(w->t, pdir, -2, &bdir, err);
  for (size_t i = 0; !rc && i < x->n_files; i++) {
    const pm_manifest_entry *e = &p->live.items[x->files[order[i]]];
    rc = replay_file(w, r, e, bdir, err);
    if (!rc) rc = pm_manifest_entries_push(&w->pp->removed, e, err);
  }
  free(order);
  free(pdir);
  free(bdir);
  /* the buckets written (the slots of this partition) and those with level-0 files */
  for (size_t i = 0; !rc && i < x->n_l0; i++) {
    pm_kvslot *s;
    rc = pm_kv_slot_get(r, x->part.data, x->part.len, x->l0[i], &s, err);
  }
  for (size_t i = 0; !rc && i < r->n_slots; i++) {
    pm_kvslot *s = r->slots[i];
    if (s->part_len != x->part.len || (s->part_len && memcmp(s->part, x->part.data, s->part_len))) continue;
    rc = pm_kv_compact_slot(r, s, full, err);
  }
  return rc;
}

int pm_kv_postpone_compact(pm_kv_write *w, const pm_compact_request *req, pm_error *err) {
  pm_table *t = w->t;
  if (req->bucket >= 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s has postpone buckets (bucket = -2): its compaction assigns the buckets, it cannot "
                     "select bucket %d",
                     t->database, t->name, (int)req->bucket);
  if (!w->pp) {
    w->pp = calloc(1, sizeof *w->pp);
    if (!w->pp) return PM_NOMEM(err);
    pm_manifest_entries_init(&w->pp->removed);
  }
  if (w->pp->n_reals)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s: a postpone compaction is pending: prepare its commit first", t->database, t->name);
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *snap = NULL;
  PM_TRY(pm_snapshot_read_latest_checked(&sm, &snap, err));
  if (!snap) return 0;
  pp_plan p;
  memset(&p, 0, sizeof p);
  pm_manifest_entries_init(&p.live);
  int rc = plan_build(t, snap, &p, err);
  size_t total = 0, done = 0;
  int *sel = rc ? NULL : calloc(p.n_parts + 1, sizeof *sel);
  if (!rc && !sel) rc = PM_NOMEM(err);
  for (size_t i = 0; !rc && i < p.n_parts; i++) {
    const pp_part *x = &p.parts[i];
    if (!x->n_files && !x->n_l0) continue;
    rc = pm_compact_request_match(t, req, x->part, &sel[i], err);
    total += sel[i];
  }
  for (size_t i = 0; !rc && i < p.n_parts; i++) {
    if (!sel[i]) continue;
    int32_t n = 0;
    pm_kv_write *r = NULL;
    rc = bucket_count(t, &p.parts[i], &n, err);
    if (!rc) rc = real_writer(w, &p, snap, n, &r, err);
    if (!rc) rc = compact_partition(w, r, &p, &p.parts[i], req->full, err);
    if (!rc && req->progress) req->progress(req->ctx, ++done, total);
  }
  free(sel);
  plan_free(&p);
  pm_snapshot_free(snap);
  return rc;
}

/* ------------------------------------------------------------ compaction: the commit messages */

static int name_in(const pm_file_list *l, const char *name) {
  for (size_t i = 0; i < l->n; i++)
    if (!strcmp(l->items[i].file_name, name)) return 1;
  return 0;
}

static int copy_files(pm_arena *a, pm_data_file_meta *dst, size_t *n, const pm_file_list *src, const pm_file_list *skip,
                      pm_error *err) {
  for (size_t i = 0; i < src->n; i++) {
    if (skip && name_in(skip, src->items[i].file_name)) continue;
    PM_TRY(pm_data_file_meta_copy(&src->items[i], &dst[(*n)++], a, err));
  }
  return 0;
}

static int copy_index(pm_arena *a, pm_index_list *dst, const pm_index_list *x, const pm_index_list *y, pm_error *err) {
  dst->n = 0;
  dst->items = pm_arena_alloc(a, (x->n + y->n + 1) * sizeof *dst->items);
  if (!dst->items) return PM_NOMEM(err);
  const pm_index_list *l[2] = {x, y};
  for (int k = 0; k < 2; k++)
    for (size_t i = 0; i < l[k]->n; i++) PM_TRY(pm_index_file_meta_copy(&l[k]->items[i], &dst->items[dst->n++], a, err));
  return 0;
}

/* Message m of a real writer as a compact increment (Java's BucketFiles): the
 * new files are compact-after files; a new file also compact-before was
 * compacted away in this round: it leaves both lists (and the disk, unless
 * an upgrade kept its name). */
static int rewrite_message(pm_kv_write *w, pm_kv_write *r, const pm_commit_message *m, pm_arena *a,
                           pm_commit_message *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  out->partition.data = pm_arena_memdup(a, m->partition.data, m->partition.len ? m->partition.len : 1);
  out->partition.len = m->partition.len;
  out->bucket = m->bucket;
  out->total_buckets = m->total_buckets;
  out->has_total_buckets = m->has_total_buckets;
  size_t nb = m->compact_before.n, na = m->new_files.n + m->compact_after.n;
  size_t ncl = m->changelog_files.n + m->compact_changelog.n;
  pm_data_file_meta *before = pm_arena_alloc(a, (nb + 1) * sizeof *before);
  pm_data_file_meta *after = pm_arena_alloc(a, (na + 1) * sizeof *after);
  pm_data_file_meta *cl = pm_arena_alloc(a, (ncl + 1) * sizeof *cl);
  if (!out->partition.data || !before || !after || !cl) return PM_NOMEM(err);
  size_t kb = 0, ka = 0, kc = 0;
  PM_TRY(copy_files(a, before, &kb, &m->compact_before, &m->new_files, err));
  PM_TRY(copy_files(a, after, &ka, &m->new_files, &m->compact_before, err));
  PM_TRY(copy_files(a, after, &ka, &m->compact_after, NULL, err));
  PM_TRY(copy_files(a, cl, &kc, &m->changelog_files, NULL, err));
  PM_TRY(copy_files(a, cl, &kc, &m->compact_changelog, NULL, err));
  out->compact_before = (pm_file_list){before, kb};
  out->compact_after = (pm_file_list){after, ka};
  out->compact_changelog = (pm_file_list){cl, kc};
  PM_TRY(copy_index(a, &out->compact_new_index_files, &m->new_index_files, &m->compact_new_index_files, err));
  PM_TRY(copy_index(a, &out->compact_deleted_index_files, &m->deleted_index_files, &m->compact_deleted_index_files,
                    err));
  /* new files compacted in this round: never committed, deleted now */
  char *pdir = NULL, *bdir = NULL;
  int rc = 0;
  for (size_t i = 0; i < m->new_files.n; i++) {
    const pm_data_file_meta *f = &m->new_files.items[i];
    if (!name_in(&m->compact_before, f->file_name) || name_in(&m->compact_after, f->file_name)) continue;
    if (!bdir) {
      rc = pm_partition_path(r->t, m->partition, &pdir, err);
      if (!rc) rc = pm_table_bucket_path(r->t, pdir, m->bucket, &bdir, err);
      if (rc) break;
    }
    char *path = NULL;
    pm_error e;
    if (!pm_table_data_file_path(r->t, bdir, f->file_name, f->external_path, &path, &e)) pm_fs_delete(r->t->fs, path, &e);
    free(path);
  }
  free(pdir);
  free(bdir);
  if (rc) return rc;
  /* metrics */
  w->stats.tasks++;
  w->stats.files_removed += (int64_t)kb;
  w->stats.files_added += (int64_t)ka;
  for (size_t i = 0; i < ka; i++) {
    if (name_in(&out->compact_before, after[i].file_name)) {
      w->stats.upgrades++;
      continue;
    }
    w->stats.rows_written += after[i].row_count;
    w->stats.bytes_written += after[i].file_size;
  }
  return 0;
}

static int add_messages(pm_manifest_committable *c, size_t more, pm_error *err) {
  pm_commit_message *nm = pm_arena_alloc(&c->arena, (c->n_messages + more + 1) * sizeof *nm);
  if (!nm) return PM_NOMEM(err);
  if (c->n_messages) memcpy(nm, c->messages, c->n_messages * sizeof *nm);
  c->messages = nm;
  return 0;
}

int pm_kv_postpone_prepare(pm_kv_write *w, int64_t identifier, pm_manifest_committable *c, pm_error *err) {
  pm_kv_postpone *pp = w->pp;
  if (!pp || !pp->n_reals) return 0;
  size_t n = pp->n_reals;
  pm_manifest_committable **rc_c = calloc(n + 1, sizeof *rc_c);
  if (!rc_c) return PM_NOMEM(err);
  int rc = 0;
  size_t more = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    rc = pm_kv_write_prepare(pp->reals[i].w, identifier, &rc_c[i], err);
    if (!rc) more += rc_c[i]->n_messages;
  }
  /* one bucket -2 message per partition of the files read (pushed grouped by partition) */
  const pm_manifest_entries *rm = &pp->removed;
  for (size_t i = 0; i < rm->n; i++)
    more += !i || rm->items[i].partition.len != rm->items[i - 1].partition.len ||
            memcmp(rm->items[i].partition.data, rm->items[i - 1].partition.data, rm->items[i].partition.len);
  if (!rc) rc = add_messages(c, more, err);
  for (size_t i = 0; !rc && i < n; i++)
    for (size_t k = 0; !rc && k < rc_c[i]->n_messages; k++)
      rc = rewrite_message(w, pp->reals[i].w, &rc_c[i]->messages[k], &c->arena, &c->messages[c->n_messages++], err);
  for (size_t i = 0; !rc && i < rm->n;) {
    size_t j = i + 1;
    while (j < rm->n && rm->items[j].partition.len == rm->items[i].partition.len &&
           !memcmp(rm->items[j].partition.data, rm->items[i].partition.data, rm->items[i].partition.len))
      j++;
    pm_commit_message *m = &c->messages[c->n_messages++];
    memset(m, 0, sizeof *m);
    m->partition.data = pm_arena_memdup(&c->arena, rm->items[i].partition.data,
                                        rm->items[i].partition.len ? rm->items[i].partition.len : 1);
    m->partition.len = rm->items[i].partition.len;
    m->bucket = -2;
    m->total_buckets = rm->items[i].total_buckets;
    m->has_total_buckets = 1;
    pm_data_file_meta *before = pm_arena_alloc(&c->arena, (j - i) * sizeof *before);
    if (!m->partition.data || !before) rc = PM_NOMEM(err);
    for (size_t k = i; !rc && k < j; k++) rc = pm_data_file_meta_copy(&rm->items[k].file, &before[k - i], &c->arena, err);
    m->compact_before = (pm_file_list){before, j - i};
    w->stats.files_removed += (int64_t)(j - i);
    i = j;
  }
  if (rc) {
    /* nothing of this compaction reaches a commit: its files go */
    for (size_t i = 0; i < n; i++) {
      pm_error e;
      if (rc_c[i]) pm_commit_abort(pp->reals[i].w->t, rc_c[i], &e);
    }
  }
  for (size_t i = 0; i < n; i++) pm_committable_free(rc_c[i]);
  free(rc_c);
  pp_free_reals(pp);
  pm_manifest_entries_clear(&pp->removed);
  pm_manifest_entries_init(&pp->removed);
  return rc;
}
