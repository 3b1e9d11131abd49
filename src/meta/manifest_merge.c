/* Rolling manifest writer and manifest merging (meta/manifest_merge.h). */
#include "meta/manifest_merge.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/avro/avro.h"
#include "io/file.h"
#include "data/binary_row.h"
#include "meta/file_entry.h"
#include "meta/manifest_internal.h"

int pm_manifest_merge_options_init(pm_manifest_merge_options *o, const pm_core_options *co,
                                   const pm_data_type *partition_type, int64_t default_schema_id, pm_error *err) {
  memset(o, 0, sizeof *o);
  o->target_file_size = co->manifest_target_file_size;
  o->merge_min_count = co->manifest_merge_min_count;
  o->full_compaction_size = co->manifest_full_compaction_size;
  o->partition_type = partition_type;
  o->default_schema_id = default_schema_id;
  /* Java 2.0.0 writes manifests, manifest lists and index manifests in manifest.format
   * (later Java always writes Avro and no longer knows the option). */
  const char *fmt = co->manifest_format ? co->manifest_format : "avro";
  if (!strcasecmp(fmt, "orc"))
    o->write.orc = 1;
  else if (strcasecmp(fmt, "avro") != 0)
    return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "option %s = '%s': manifests are written in avro or orc",
                     pm_core_option_given_key(co, PM_CO_MANIFEST_FORMAT), fmt);
  const char *c = co->manifest_compression ? co->manifest_compression : "zstd";
  if (!strcasecmp(c, "zstd") || !strcasecmp(c, "zstandard")) o->write.codec = PM_CODEC_ZSTD;
  else if (!strcasecmp(c, "none") || !strcasecmp(c, "null") || !strcasecmp(c, "uncompressed")) o->write.codec = PM_CODEC_NONE;
  else if (!strcasecmp(c, "snappy")) o->write.codec = PM_CODEC_SNAPPY;
  else if (!strcasecmp(c, "deflate")) o->write.codec = PM_CODEC_DEFLATE;
  else
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "option %s = '%s': manifests support zstd, snappy, deflate or none",
                     pm_core_option_given_key(co, PM_CO_MANIFEST_COMPRESSION), c);
  return 0;
}

int pm_manifest_file_metas_push(pm_manifest_file_metas *v, const pm_manifest_file_meta *m, pm_error *err) {
  pm_manifest_file_meta copy;
  PM_TRY(pm_manifest_file_meta_copy(m, &copy, &v->arena, err));
  return pm_manifest_file_metas_append_owned(v, &copy, err);
}

static const char *base_name(const char *path) {
  const char *s = strrchr(path, '/');
  return s ? s + 1 : path;
}

/* ---------------- rolling writer ---------------- */

/* Writes entries[0..n) into manifest files, starting a new file once one reaches the
 * target size; each completed file's meta goes to out. */
int pm_manifest_write_rolling(pm_fs *fs, pm_path_factory *pf, const pm_manifest_entry *e, size_t n,
                              const pm_manifest_merge_options *o, pm_manifest_file_metas *out, pm_error *err) {
  const pm_manifest_write_opts *wo = &o->write;
  int master = pm_manifest_needs_master_schema(e, n);
  const char *schema = pm_manifest_schema_json(master);
  pm_avro_writer_options ao;
  pm_manifest_avro_options(wo, 1, &ao);
  int rc = 0;
  size_t i = 0;
  while (!rc && i < n) {
    char *path = pm_path_factory_new_manifest(pf);
    if (!path) return PM_NOMEM(err);
    pm_out_file *sink = NULL;
    pm_avro_writer *w = NULL;
    pm_manifest_orc *ow = NULL;
    rc = pm_fs_create(fs, path, &sink, err);
    /* the writer owns sink from here, even on error */
    if (!rc && wo->orc) rc = pm_manifest_orc_open(sink, PM_MFK_MANIFEST, master, wo, 1, &ow, err);
    else if (!rc) rc = pm_avro_writer_open_sink(sink, schema, &ao, &w, err);
    size_t start = i;
    while (!rc && i < n) {
      int check = 1;
      if (ow) {
        rc = pm_manifest_orc_add(ow, &e[i], &check, err); /* Java checks the size once per written batch */
      } else {
        pm_manifest_put_entry(pm_avro_writer_encoder(w), &e[i], master);
        rc = pm_avro_writer_end_record(w, err);
      }
      i++;
      uint64_t pos = ow ? pm_manifest_orc_estimated_size(ow) : pm_out_pos(sink);
      if (!rc && check && o->target_file_size > 0 && pos >= (uint64_t)o->target_file_size) break;
    }
    uint64_t size = 0;
    if (rc) {
      pm_avro_writer_abort(w);
      pm_manifest_orc_abort(ow);
    } else {
      rc = ow ? pm_manifest_orc_finish(ow, &size, err) : pm_avro_writer_commit(w, &size, err);
      if (!rc) {
        pm_manifest_file_meta meta;
        rc = pm_manifest_meta_fill(e + start, i - start, o->partition_type, o->default_schema_id, base_name(path),
                                   (int64_t)size, &out->arena, &meta, err);
        if (!rc) rc = pm_manifest_file_metas_append_owned(out, &meta, err);
      }
    }
    if (rc) pm_error_prefix(err, "manifest %s", path);
    free(path);
  }
  return rc;
}

int pm_manifest_delete_files(pm_fs *fs, pm_path_factory *pf, const pm_manifest_file_meta *metas, size_t n,
                             pm_error *err) {
  int first = 0;
  for (size_t i = 0; i < n; i++) {
    size_t cap = strlen(pf->table_root) + strlen(metas[i].file_name) + 16;
    char *p = malloc(cap);
    if (!p) return PM_NOMEM(err);
    snprintf(p, cap, "%s/manifest/%s", pf->table_root, metas[i].file_name);
    pm_error e2 = {0};
    int rc = pm_fs_delete(fs, p, &e2);
    if (rc && rc != PAIMON_ERR_NOT_FOUND && !first) {
      first = rc;
      if (err) *err = e2;
    }
    free(p);
  }
  return first;
}

int pm_manifest_fill_row_id_ranges(pm_fs *fs, pm_path_factory *pf, pm_manifest_file_metas *v, pm_error *err) {
  for (size_t i = 0; i < v->n; i++) {
    pm_manifest_file_meta *m = &v->items[i];
    if (m->has_row_id_range) continue;
    size_t cap = strlen(pf->table_root) + strlen(m->file_name) + 16;
    char *p = malloc(cap);
    if (!p) return PM_NOMEM(err);
    snprintf(p, cap, "%s/manifest/%s", pf->table_root, m->file_name);
    pm_manifest_entries e;
    pm_manifest_entries_init(&e);
    int rc = pm_manifest_read(fs, p, NULL, NULL, &e, err);
    free(p);
    int all = !rc && e.n > 0;
    int64_t lo = INT64_MAX, hi = INT64_MIN;
    for (size_t k = 0; all && k < e.n; k++) {
      const pm_data_file_meta *f = &e.items[k].file;
      if (!f->has_first_row_id) {
        all = 0;
      } else {
        if (f->first_row_id < lo) lo = f->first_row_id;
        if (f->first_row_id + f->row_count - 1 > hi) hi = f->first_row_id + f->row_count - 1;
      }
    }
    pm_manifest_entries_clear(&e);
    PM_TRY(rc);
    if (all) {
      m->min_row_id = lo;
      m->max_row_id = hi;
      m->has_row_id_range = 1;
    }
  }
  return 0;
}

/* ---------------- merging ---------------- */

typedef struct merge_ctx {
  pm_fs *fs;
  pm_path_factory *pf;
  const pm_manifest_merge_options *o;
  pm_manifest_file_metas created; /* every file this merge wrote (also on failure) */
  const pm_manifest_file_meta **result; /* the merged list: input metas or created ones (by index, see below) */
  size_t n_result, cap_result;
  size_t *created_ref; /* result[i] is created.items[created_ref[i]] when != SIZE_MAX (created may move) */
} merge_ctx;

static int result_push(merge_ctx *c, const pm_manifest_file_meta *m, size_t created_index, pm_error *err) {
  if (c->n_result == c->cap_result) {
    size_t nc = c->cap_result ? 2 * c->cap_result : 32;
    const pm_manifest_file_meta **r = realloc(c->result, nc * sizeof *r);
    if (!r) return PM_NOMEM(err);
    c->result = r;
    size_t *cr = realloc(c->created_ref, nc * sizeof *cr);
    if (!cr) return PM_NOMEM(err);
    c->created_ref = cr;
    c->cap_result = nc;
  }
  c->result[c->n_result] = m;
  c->created_ref[c->n_result++] = created_index;
  return 0;
}

static char *manifest_path(const pm_path_factory *pf, const char *name) {
  size_t cap = strlen(pf->table_root) + strlen(name) + 16;
  char *p = malloc(cap);
  if (p) snprintf(p, cap, "%s/manifest/%s", pf->table_root, name);
  return p;
}

static int read_manifest(merge_ctx *c, const pm_manifest_file_meta *m, const pm_manifest_filters *f,
                         pm_manifest_entries *out, pm_error *err) {
  char *p = manifest_path(c->pf, m->file_name);
  if (!p) return PM_NOMEM(err);
  int rc = pm_manifest_read_filtered(c->fs, p, f, out, err);
  free(p);
  return rc;
}

/* Writes entries (rolling) and appends the new files to the result. */
static int write_merged(merge_ctx *c, const pm_manifest_entry *e, size_t n, pm_error *err) {
  size_t before = c->created.n;
  int rc = pm_manifest_write_rolling(c->fs, c->pf, e, n, c->o, &c->created, err);
  for (size_t i = before; !rc && i < c->created.n; i++) rc = result_push(c, NULL, i, err);
  return rc;
}

/* Java's mergeCandidates: one candidate stays; several are read and merged by identity. */
static int merge_candidates(merge_ctx *c, const pm_manifest_file_meta *cand, size_t n, pm_error *err) {
  if (n == 1) return result_push(c, &cand[0], SIZE_MAX, err);
  pm_manifest_entries all;
  pm_manifest_entries_init(&all);
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) rc = read_manifest(c, &cand[i], NULL, &all, err);
  pm_entry_merge em;
  int have = 0;
  if (!rc) {
    rc = pm_entry_merge_init(&em, all.n, err);
    have = !rc;
  }
  for (size_t i = 0; !rc && i < all.n; i++) rc = pm_entry_merge_apply(&em, &all.items[i], "manifest merge", err);
  if (!rc) { /* the survivors in Java's order (sequence order of the held entries) */
    size_t k = 0;
    for (size_t i = 0; i < all.n; i++)
      if (pm_entry_merge_held(&em, &all.items[i]) == &all.items[i]) all.items[k++] = all.items[i];
    rc = write_merged(c, all.items, k, err);
  }
  if (have) pm_entry_merge_free(&em);
  pm_manifest_entries_clear(&all);
  return rc;
}

static int minor_compaction(merge_ctx *c, const pm_manifest_file_meta *in, size_t n, pm_error *err) {
  size_t start = 0;
  int64_t total = 0;
  for (size_t i = 0; i < n; i++) {
    total += in[i].file_size;
    if (total >= c->o->target_file_size) {
      PM_TRY(merge_candidates(c, in + start, i + 1 - start, err));
      start = i + 1;
      total = 0;
    }
  }
  size_t tail = n - start;
  if (tail > 0 && tail >= (size_t)(c->o->merge_min_count > 0 ? c->o->merge_min_count : 1))
    return merge_candidates(c, in + start, tail, err);
  for (size_t i = start; i < n; i++) PM_TRY(result_push(c, &in[i], SIZE_MAX, err));
  return 0;
}

static int must_change(const merge_ctx *c, const pm_manifest_file_meta *m) {
  return m->num_deleted_files > 0 || m->file_size < c->o->target_file_size;
}

static int keep_deletes(void *ctx, const pm_entry_head *h) {
  (void)ctx;
  return h->kind == PM_FILE_DELETE;
}

static int keep_adds(void *ctx, const pm_entry_head *h) {
  (void)ctx;
  return h->kind == PM_FILE_ADD;
}

/* Bounds of the deleted entries' partitions per field (Java's PartitionPredicate.fromMultiple):
 * a manifest whose partition stats cannot overlap them holds none of the deleted files. */
typedef struct part_bounds {
  size_t arity;
  pm_value *min, *max; /* over non-null values (PM_V_NULL when every value is null) */
  int64_t *nulls;
  size_t n;            /* number of distinct delete partitions considered */
} part_bounds;

static int bounds_of_deletes(const pm_data_type *pt, const pm_manifest_entries *dels, part_bounds *b, pm_error *err) {
  memset(b, 0, sizeof *b);
  b->arity = pt ? pt->n_fields : 0;
  if (!b->arity) return 0;
  b->min = calloc(b->arity, sizeof *b->min);
  b->max = calloc(b->arity, sizeof *b->max);
  b->nulls = calloc(b->arity, sizeof *b->nulls);
  if (!b->min || !b->max || !b->nulls) return PM_NOMEM(err);
  for (size_t e = 0; e < dels->n; e++) {
    pm_binary_row row;
    PM_TRY(pm_binary_row_open_serialized(dels->items[e].partition.data, dels->items[e].partition.len, "_PARTITION", &row,
                                         err));
    if ((size_t)row.arity != b->arity)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "deleted file %s: partition of arity %d, table has %zu partition keys",
                       dels->items[e].file.file_name, row.arity, b->arity);
    b->n++;
    for (size_t i = 0; i < b->arity; i++) {
      pm_value v;
      PM_TRY(pm_binary_row_get(&row, (int32_t)i, pt->fields[i].type, &v, err));
      if (v.kind == PM_V_NULL) {
        b->nulls[i]++;
        continue;
      }
      if (b->min[i].kind == PM_V_NULL || pm_value_compare(&v, &b->min[i]) < 0) b->min[i] = v;
      if (b->max[i].kind == PM_V_NULL || pm_value_compare(&v, &b->max[i]) > 0) b->max[i] = v;
    }
  }
  return 0;
}

static void bounds_free(part_bounds *b) {
  free(b->min);
  free(b->max);
  free(b->nulls);
}

/* May manifest m hold a file of a deleted partition? (conservative: 1 when unsure) */
static int may_hold_deleted(const pm_data_type *pt, const part_bounds *b, const pm_manifest_file_meta *m) {
  const pm_simple_stats *ps = &m->partition_stats;
  pm_binary_row mn, mx;
  pm_error e2 = {0};
  if (pm_binary_row_open_serialized(ps->min_values.data, ps->min_values.len, "min", &mn, &e2) ||
      pm_binary_row_open_serialized(ps->max_values.data, ps->max_values.len, "max", &mx, &e2) ||
      (size_t)mn.arity != b->arity || (size_t)mx.arity != b->arity || ps->null_counts_is_null ||
      (size_t)ps->n_null_counts != b->arity)
    return 1;
  int64_t rows = m->num_added_files + m->num_deleted_files;
  for (size_t i = 0; i < b->arity; i++) {
    int64_t nc = ps->null_counts[i];
    int file_nulls = nc == PM_NULL_COUNT_UNKNOWN || nc > 0;
    int field_ok = 0;
    if (b->nulls[i] > 0 && file_nulls) field_ok = 1;
    if (!field_ok && b->min[i].kind != PM_V_NULL && !(nc != PM_NULL_COUNT_UNKNOWN && nc == rows)) {
      pm_value lo, hi;
      if (pm_binary_row_get(&mn, (int32_t)i, pt->fields[i].type, &lo, &e2) ||
          pm_binary_row_get(&mx, (int32_t)i, pt->fields[i].type, &hi, &e2))
        return 1;
      if (lo.kind == PM_V_NULL || hi.kind == PM_V_NULL) field_ok = 1; /* no bounds: cannot rule out */
      else field_ok = pm_value_compare(&hi, &b->min[i]) >= 0 && pm_value_compare(&lo, &b->max[i]) <= 0;
    }
    if (!field_ok) return 0;
  }
  return 1;
}

/* Java's tryFullCompaction. *done = 0 when it does not apply (then minor compaction runs). */
static int full_compaction(merge_ctx *c, const pm_manifest_file_meta *in, size_t n, int *done, pm_error *err) {
  *done = 0;
  int64_t delta_size = 0;
  for (size_t i = 0; i < n; i++)
    if (must_change(c, &in[i])) delta_size += in[i].file_size;
  if (delta_size < c->o->full_compaction_size) return 0;

  /* 1. the deleted identities */
  pm_manifest_entries dels;
  pm_manifest_entries_init(&dels);
  pm_manifest_filters only_del = {keep_deletes, NULL, NULL};
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++)
    if (in[i].num_deleted_files > 0) rc = read_manifest(c, &in[i], &only_del, &dels, err);
  pm_entry_merge del_set; /* the deleted identities (each once, as DELETE) */
  int have_set = 0;
  if (!rc) {
    rc = pm_entry_merge_init(&del_set, dels.n, err);
    have_set = !rc;
    for (size_t i = 0; !rc && i < dels.n; i++)
      if (pm_entry_merge_state(&del_set, &dels.items[i]) < 0)
        rc = pm_entry_merge_apply(&del_set, &dels.items[i], "manifest merge", err);
  }
  /* 2. manifests that need not change and hold no deleted partition stay as they are */
  part_bounds pb;
  memset(&pb, 0, sizeof pb);
  int partitioned = c->o->partition_type && c->o->partition_type->n_fields > 0;
  if (!rc && dels.n && partitioned) rc = bounds_of_deletes(c->o->partition_type, &dels, &pb, err);
  uint8_t *merge_it = NULL;
  size_t to_merge = 0;
  if (!rc && !(merge_it = calloc(n ? n : 1, 1))) rc = PM_NOMEM(err);
  size_t result_mark = c->n_result;
  for (size_t i = 0; !rc && i < n; i++) {
    int m = 1;
    if (!must_change(c, &in[i])) {
      if (!dels.n) m = 0;                                   /* nothing deleted: only small files change */
      else if (partitioned) m = may_hold_deleted(c->o->partition_type, &pb, &in[i]);
    }
    merge_it[i] = (uint8_t)m;
    to_merge += m;
    if (!m) rc = result_push(c, &in[i], SIZE_MAX, err);
  }
  if (!rc && to_merge <= 1) { /* nothing to gain: undo and let minor compaction decide */
    c->n_result = result_mark;
    goto out;
  }
  /* 3. read the ADDs of the rest: unchanged manifests stay, the others are rewritten together */
  pm_manifest_entries keep;
  pm_manifest_entries_init(&keep);
  pm_manifest_filters only_add = {keep_adds, NULL, NULL};
  for (size_t i = 0; !rc && i < n; i++) {
    if (!merge_it[i]) continue;
    size_t before = keep.n;
    rc = read_manifest(c, &in[i], &only_add, &keep, err);
    if (rc) break;
    int change = must_change(c, &in[i]);
    size_t k = before;
    for (size_t j = before; j < keep.n; j++) {
      if (have_set && pm_entry_merge_state(&del_set, &keep.items[j]) == PM_FILE_DELETE) change = 1;
      else keep.items[k++] = keep.items[j];
    }
    if (change) keep.n = k; /* arena memory of dropped entries stays until the end */
    else {
      keep.n = before;
      rc = result_push(c, &in[i], SIZE_MAX, err);
    }
  }
  if (!rc) rc = write_merged(c, keep.items, keep.n, err);
  pm_manifest_entries_clear(&keep);
  if (!rc) *done = 1;
out:
  free(merge_it);
  bounds_free(&pb);
  if (have_set) pm_entry_merge_free(&del_set);
  pm_manifest_entries_clear(&dels);
  return rc;
}

int pm_manifest_merge(pm_fs *fs, pm_path_factory *pf, const pm_manifest_file_meta *in, size_t n,
                      const pm_manifest_merge_options *o, pm_manifest_file_metas *out, char ***new_files,
                      size_t *n_new, pm_error *err) {
  *new_files = NULL;
  *n_new = 0;
  if (o->target_file_size <= 0 || o->full_compaction_size <= 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "manifest merge: target file size (%lld) and full compaction threshold (%lld) must be positive",
                     (long long)o->target_file_size, (long long)o->full_compaction_size);
  merge_ctx c;
  memset(&c, 0, sizeof c);
  c.fs = fs;
  c.pf = pf;
  c.o = o;
  pm_manifest_file_metas_init(&c.created);
  int done = 0;
  int rc = full_compaction(&c, in, n, &done, err);
  if (!rc && !done) {
    c.n_result = 0;
    rc = minor_compaction(&c, in, n, err);
  }
  for (size_t i = 0; !rc && i < c.n_result; i++) {
    const pm_manifest_file_meta *m = c.created_ref[i] != SIZE_MAX ? &c.created.items[c.created_ref[i]] : c.result[i];
    rc = pm_manifest_file_metas_push(out, m, err);
  }
  /* the files written, reported on success and on failure */
  if (c.created.n) {
    char **names = calloc(c.created.n, sizeof *names);
    int oom = !names;
    for (size_t i = 0; names && i < c.created.n; i++)
      if (!(names[i] = manifest_path(pf, c.created.items[i].file_name))) oom = 1;
    if (oom) {
      pm_free_names(names, names ? c.created.n : 0);
      if (!rc) rc = PM_NOMEM(err);
    } else {
      *new_files = names;
      *n_new = c.created.n;
    }
  }
  free(c.result);
  free(c.created_ref);
  pm_manifest_file_metas_clear(&c.created);
  return rc;
}
