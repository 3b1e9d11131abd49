/* Public C API: dedicated compaction (paimon/compact.h): plan, execute and commit through a
 * batch write builder of the table, partitions chosen by specs and a partition predicate. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "api/api_write_internal.h"
#include "data/predicate.h"
#include "meta/core_options.h"
#include "paimon/compact.h"
#include "table/write.h"
#include "util/random.h"

void paimon_compact_options_init(paimon_compact_options *o) {
  if (!o) return;
  memset(o, 0, sizeof *o);
  o->bucket = -1;
}

typedef struct progress_ctx {
  paimon_progress_fn fn;
  void *ctx;
} progress_ctx;

static void on_units(void *ctx, uint64_t done, uint64_t total) {
  progress_ctx *p = ctx;
  if (p->fn) p->fn(p->ctx, "compacting", done, total);
}

/* The partition filter remapped to partition-key positions (*out NULL without one). */
static int partition_filter(const pm_table *t, const paimon_predicate *p, pm_predicate **out, pm_error *err) {
  *out = NULL;
  if (!p) return 0;
  char *origin = pm_api_origin(t, err);
  if (!origin) return PAIMON_ERR_NOMEM;
  int same = p->origin && !strcmp(origin, p->origin);
  free(origin);
  if (!same)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "paimon_table_compact: the partition filter was made for another table or schema than %s.%s",
                     t->database, t->name);
  size_t nf = t->schema->n_fields;
  int32_t *map = malloc((nf ? nf : 1) * sizeof *map);
  if (!map) return PM_NOMEM(err);
  for (size_t i = 0; i < nf; i++) map[i] = -1;
  for (size_t k = 0; k < t->n_partition_keys; k++) {
    int idx = pm_schema_field_index(t->schema, t->partition_keys[k]);
    if (idx >= 0) map[idx] = (int32_t)k;
  }
  int rc = 0;
  if (!pm_pred_only_fields(p->p, map, nf))
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                   "paimon_table_compact: the partition filter of %s.%s may use partition columns only (%s%s)",
                   t->database, t->name, t->n_partition_keys ? "partition keys: " : "the table is not partitioned",
                   t->n_partition_keys ? t->partition_keys[0] : "");
  if (!rc) rc = pm_pred_remap(p->p, map, nf, out, err);
  free(map);
  return rc;
}

/* specs as the table layer's (keys / values borrowed from o); checks the keys. */
static int make_specs(const pm_table *t, const paimon_compact_options *o, pm_partition_spec **out, const char ***strs,
                      pm_error *err) {
  *out = NULL;
  *strs = NULL;
  size_t total = 0;
  for (size_t i = 0; i < o->n_partitions; i++) {
    if (!o->partitions[i].fields && o->partitions[i].n)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_table_compact: partition spec %zu has no fields", i);
    total += o->partitions[i].n;
  }
  pm_partition_spec *specs = calloc(o->n_partitions + 1, sizeof *specs);
  const char **s = calloc(2 * total + 1, sizeof *s);
  if (!specs || !s) {
    free(specs);
    free(s);
    return PM_NOMEM(err);
  }
  size_t k = 0;
  int rc = 0;
  for (size_t i = 0; !rc && i < o->n_partitions; i++) {
    const paimon_partition_spec *ps = &o->partitions[i];
    const char **keys = s + k, **values = s + total + k;
    for (size_t j = 0; !rc && j < ps->n; j++) {
      const char *key = ps->fields[j].key;
      size_t p = 0;
      while (key && p < t->n_partition_keys && strcmp(t->partition_keys[p], key)) p++;
      if (!key || p == t->n_partition_keys)
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "paimon_table_compact: partition spec %zu: '%s' is not a partition key of table %s.%s", i,
                       key ? key : "(null)", t->database, t->name);
      keys[j] = key;
      values[j] = ps->fields[j].value;
    }
    specs[i].keys = keys;
    specs[i].values = values;
    specs[i].n = ps->n;
    k += ps->n;
  }
  if (rc) {
    free(specs);
    free(s);
    return rc;
  }
  *out = specs;
  *strs = s;
  return 0;
}

/* Deletes the new files of messages m known not to be committed (best effort: a failure is
 * appended to err's message, whose status stays the commit's). */
static void abort_new_files(paimon_table_commit *c, const paimon_commit_messages *m, paimon_error *err) {
  paimon_error e2 = {0};
  if (!paimon_table_commit_abort(c, m, &e2) || !err) return;
  size_t len = strlen(err->message);
  if (len + 1 < sizeof err->message)
    snprintf(err->message + len, sizeof err->message - len, "; deleting the compaction's new files failed: %.400s",
             e2.message);
}

paimon_status paimon_table_compact(const paimon_table *table, const paimon_compact_options *o,
                                   paimon_compact_result *out, paimon_error *err) {
  if (out) {
    memset(out, 0, sizeof *out);
    out->snapshot_id = -1;
  }
  CHECK_ARG(table && table->t, "NULL table");
  CHECK_ARG(!table->system_table, "a system table has no files of its own");
  paimon_compact_options def;
  if (!o) {
    paimon_compact_options_init(&def);
    o = &def;
  }
  CHECK_ARG(o->partitions || !o->n_partitions, "partitions is NULL with n_partitions > 0");
  CHECK_ARG(o->bucket >= -1, "bucket must be -1 (all) or a bucket number");
  pm_table *t = table->t;
  pm_predicate *filter = NULL;
  pm_partition_spec *specs = NULL;
  const char **strs = NULL;
  int rc = partition_filter(t, o->partition_filter, &filter, err);
  if (!rc) rc = make_specs(t, o, &specs, &strs, err);
  /* the commit user: <user>-compact-<uuid> */
  char uuid[PM_UUID_TEXT_SIZE], suffix[PM_UUID_TEXT_SIZE];
  pm_uuid_random(uuid);
  pm_uuid_random(suffix);
  const char *user = o->commit_user && *o->commit_user ? o->commit_user : uuid;
  size_t ulen = strlen(user) + sizeof "-compact-" + sizeof suffix;
  char *commit_user = rc ? NULL : malloc(ulen);
  if (!rc && !commit_user) rc = PM_NOMEM(err);
  if (commit_user) snprintf(commit_user, ulen, "%s-compact-%s", user, suffix);
  /* Java's compact procedure compacts write-only tables too */
  paimon_option dyn[] = {{pm_core_option_key(PM_CO_WRITE_ONLY), "false"}};
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int64_t snap = -1;
  progress_ctx pc = {o->progress, o->ctx};
  if (!rc) rc = paimon_write_builder_new(table, 0, dyn, 1, &wb, err);
  if (!rc) rc = paimon_write_builder_with_commit_user(wb, commit_user, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) {
    pm_compact_request req = {specs, o->n_partitions, filter, o->bucket, o->full != 0, on_units, &pc};
    rc = pm_table_write_compact_req(pm_api_table_write(w), &req, err);
  }
  /* the commit first: once prepare_commit hands the results out, only an abort deletes them */
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc && o->progress) o->progress(o->ctx, "committing", 0, 1);
  int committed = 0;
  if (!rc) {
    committed = 1;
    rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, err);
  }
  /* A failed commit published nothing (CONFLICT, IO, ...: write.h) and the compaction's new
   * files go; an UNKNOWN_OUTCOME snapshot may reference them: they stay. */
  if (committed && rc && rc != PAIMON_ERR_UNKNOWN_OUTCOME) abort_new_files(c, m, err);
  if (!rc && o->progress) o->progress(o->ctx, "committing", 1, 1);
  if (out) {
    if (w) paimon_table_write_compact_metrics(w, &out->metrics);
    out->snapshot_id = rc ? -1 : snap;
  }
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w); /* results never handed out (a failed task) are deleted here */
  paimon_write_builder_free(wb);
  free(commit_user);
  free(strs);
  free(specs);
  pm_pred_free(filter);
  return (paimon_status)rc;
}
