/* Public C API: plans and splits. */
#include "api/api_internal.h"

/* ---------------------------------------------------------------- scan */

int pm_api_plan_wrap(const paimon_read_builder *rb, pm_plan *p, paimon_plan **out, pm_error *err) {
  *out = NULL;
  paimon_plan *plan = calloc(1, sizeof *plan);
  if (!plan) {
    pm_plan_free(p);
    return PM_NOMEM(err);
  }
  plan->p = p;
  plan->origin = strdup(rb->origin);
  int rc = plan->origin ? 0 : PM_NOMEM(err);
  if (!rc && plan->p->n_splits && plan->p->n_incremental_splits)
    rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "plan of %s holds both DataSplits and incremental splits",
                   rb->table->identifier);
  if (!rc) plan->n_splits = plan->p->n_incremental_splits ? plan->p->n_incremental_splits : plan->p->n_splits;
  if (!rc && plan->n_splits) {
    plan->splits = calloc(plan->n_splits, sizeof *plan->splits);
    if (!plan->splits) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < plan->n_splits; i++) {
      plan->splits[i].origin = plan->origin;
      if (plan->p->n_incremental_splits) {
        plan->splits[i].inc = plan->p->incremental_splits[i];
        continue;
      }
      plan->splits[i].s = plan->p->splits[i];
      if (i >= plan->p->fallback_start) plan->splits[i].fallback_branch = plan->p->fallback_branch;
    }
  }
  if (rc) {
    paimon_plan_free(plan);
    return rc;
  }
  *out = plan;
  return 0;
}

paimon_status paimon_read_builder_plan(const paimon_read_builder *rb, paimon_plan **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(rb, "builder is NULL");
  pm_plan *p = NULL;
  int rc;
  if (rb->table->system_table) /* no splits: paimon_read_plan reads the system table */
    p = calloc(1, sizeof *p), rc = p ? 0 : PM_NOMEM(err);
  else {
    /* with row positions the limit applies after the selection (at read time) */
    int64_t limit = pm_scan_selection_active(&rb->sel) ? -1 : rb->limit;
    rc = pm_scan_plan_ex(rb->t, rb->filter, limit, 1, &p, err);
    if (!rc) rc = pm_scan_selection_apply(rb->t, &rb->sel, p, err);
    if (rc) {
      pm_plan_free(p);
      p = NULL;
    }
  }
  if (!rc) rc = pm_api_plan_wrap(rb, p, out, err);
  return (paimon_status)rc;
}

void paimon_plan_free(paimon_plan *plan) {
  if (!plan) return;
  pm_plan_free(plan->p);
  free(plan->splits);
  free(plan->origin);
  free(plan);
}

size_t paimon_plan_num_splits(const paimon_plan *plan) { return plan ? plan->n_splits : 0; }
const paimon_split *paimon_plan_split(const paimon_plan *plan, size_t i) {
  return plan && i < plan->n_splits ? &plan->splits[i] : NULL;
}
int paimon_plan_snapshot_id(const paimon_plan *plan, int64_t *id) {
  if (!plan || !plan->p->has_snapshot) return 0;
  if (id) *id = plan->p->snapshot_id;
  return 1;
}

paimon_status paimon_plan_explain(const paimon_plan *plan, char **text, paimon_error *err) {
  CHECK_ARG(plan && text, "NULL argument");
  *text = NULL;
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_scan_explain_format(&plan->p->explain, &b, err);
  if (!rc) {
    *text = malloc(b.len + 1);
    if (!*text) rc = PM_NOMEM(err);
    else {
      memcpy(*text, b.data, b.len);
      (*text)[b.len] = 0;
    }
  }
  pm_buf_free(&b);
  return (paimon_status)rc;
}

int paimon_split_is_incremental(const paimon_split *split) { return split && split->inc ? 1 : 0; }
int32_t paimon_split_bucket(const paimon_split *split) {
  if (!split) return -1;
  return split->inc ? split->inc->incremental.bucket : split->s->bucket;
}
size_t paimon_split_num_files(const paimon_split *split) {
  if (!split) return 0;
  return split->inc ? split->inc->incremental.n_after_files : split->s->n_data_files;
}
int64_t paimon_split_row_count(const paimon_split *split) {
  if (!split) return 0;
  const pm_data_file_meta *files = split->inc ? split->inc->incremental.after_files : split->s->data_files;
  size_t n_files = paimon_split_num_files(split);
  int64_t n = 0;
  for (size_t i = 0; i < n_files; i++) n += files[i].row_count;
  return n;
}
int64_t paimon_split_snapshot_id(const paimon_split *split) {
  if (!split) return 0;
  return split->inc ? split->inc->incremental.snapshot_id : split->s->snapshot_id;
}
int paimon_split_is_streaming(const paimon_split *split) {
  if (!split) return 0;
  return split->inc ? split->inc->incremental.is_streaming : split->s->is_streaming;
}
int paimon_split_raw_convertible(const paimon_split *split) {
  return split && !split->inc ? split->s->raw_convertible : 0;
}

paimon_status paimon_split_serialize(const paimon_split *split, uint8_t **bytes, size_t *len, paimon_error *err) {
  CHECK_ARG(split && bytes && len, "NULL argument");
  *bytes = NULL;
  *len = 0;
  pm_buf b;
  pm_buf_init(&b);
  int rc;
  if (split->inc) {
    rc = pm_split_encode(split->inc, &b, err);
  } else if (split->s->has_row_ranges) { /* a row selection travels as an IndexedSplit */
    pm_split rec;
    memset(&rec, 0, sizeof rec);
    rec.type = PM_SPLIT_INDEXED;
    rec.data = split->s;
    rec.row_ranges = split->s->row_ranges;
    rec.n_row_ranges = split->s->n_row_ranges;
    rc = pm_split_encode(&rec, &b, err);
  } else {
    rc = pm_data_split_encode(split->s, &b, err);
  }
  if (!rc) {
    *bytes = malloc(b.len ? b.len : 1);
    if (!*bytes) rc = PM_NOMEM(err);
    else {
      memcpy(*bytes, b.data, b.len);
      *len = b.len;
    }
  }
  pm_buf_free(&b);
  return (paimon_status)rc;
}

/* SplitSerializer records start with the int64 magic "SPLIT_V1"; a DataSplit
 * starts with its own magic (versions >= 2) or with its snapshot id (version 1,
 * which would have to be 0x53504C49545F5631 = 6e18 to be mistaken). */
static int is_split_serializer_record(const uint8_t *bytes, size_t len) {
  if (len < 8) return 0;
  uint64_t v = 0;
  for (int i = 0; i < 8; i++) v = v << 8 | bytes[i];
  return (int64_t)v == PM_SPLIT_MAGIC;
}

/* An IndexedSplit's row ranges as the split's selection: sorted, overlaps joined (meta/split.h). */
static int set_selection(pm_data_split *s, const int64_t *ranges, size_t n, pm_error *err) {
  int64_t *v = malloc(n * 2 * sizeof *v + 16);
  if (!v) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) {
    if (ranges[2 * i] > ranges[2 * i + 1]) {
      free(v);
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "split bytes: IndexedSplit row range %zu is [%lld, %lld] (from > to)",
                       i, (long long)ranges[2 * i], (long long)ranges[2 * i + 1]);
    }
  }
  if (n) memcpy(v, ranges, n * 2 * sizeof *v);
  size_t k = pm_row_ranges_normalize(v, n);
  int rc = pm_data_split_set_row_ranges(s, v, k, err);
  free(v);
  return rc;
}

paimon_status paimon_split_deserialize(const uint8_t *bytes, size_t len, paimon_split **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(bytes || len == 0, "bytes is NULL");
  paimon_split *s = calloc(1, sizeof *s);
  if (!s) return (paimon_status)PM_NOMEM(err);
  int rc = 0;
  if (is_split_serializer_record(bytes, len)) {
    pm_split *rec = NULL;
    rc = pm_split_decode(bytes, len, &rec, err);
    if (!rc && rec->type == PM_SPLIT_INCREMENTAL) {
      s->inc = rec;
      rec = NULL;
    } else if (!rc && (rec->type == PM_SPLIT_DATA || rec->type == PM_SPLIT_INDEXED) && rec->data) {
      s->s = rec->data; /* the record's DataSplit stands alone (its own arena) */
      rec->data = NULL;
      if (rec->type == PM_SPLIT_INDEXED) rc = set_selection(s->s, rec->row_ranges, rec->n_row_ranges, err);
    } else if (!rc) {
      rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                     "split bytes: SplitSerializer record of type %d (only 1 DataSplit, 2 IncrementalSplit and 3 "
                     "IndexedSplit are supported)",
                     (int)rec->type);
    }
    pm_split_free(rec);
  } else {
    rc = pm_data_split_decode(bytes, len, &s->s, err);
  }
  if (rc) {
    pm_data_split_free(s->s);
    pm_split_free(s->inc);
    free(s);
    return (paimon_status)rc;
  }
  s->owned = 1;
  *out = s;
  return PAIMON_OK;
}

void paimon_split_free(paimon_split *split) {
  if (!split || !split->owned) return;
  pm_data_split_free(split->s);
  pm_split_free(split->inc);
  free(split);
}
