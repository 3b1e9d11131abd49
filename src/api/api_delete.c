/* Delete and update by predicate on primary-key tables (write.h): the rows
 * matching the filter are read (latest snapshot, the read path's exact
 * filter) and written back through the merge engine as -D rows (delete) or
 * as +U rows with the assigned columns replaced (update), in one commit.
 * Refusals follow Java (PrimaryKeyTableUtils.validatePKUpsertDeletable,
 * Flink's SupportsRowLevelOperationFlinkTableSink.applyRowLevelUpdate). */
#include "api/api_write_internal.h"
#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "arrow/csv_read.h"
#include "arrow/type.h"
#include "meta/core_options.h"

/* ------------------------------------------------------------ rules */

static int refuse(const pm_table *t, const char *op, const char *why, pm_error *err) {
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "table %s.%s: %s by predicate: %s", t->database, t->name, op, why);
}

/* Java's validatePKUpsertDeletable, and ignore-delete (its -D rows would be dropped). */
static int check_deletable(const pm_table *t, pm_error *err) {
  const pm_core_options *co = &t->co;
  char why[512];
  if (!pm_table_has_pk(t))
    return refuse(t, "delete",
                  "the table has no primary key (an append table's rows are removed by rewriting files or deletion "
                  "vectors, which this library does not do yet)",
                  err);
  const char *engine = pm_core_option_text(co, PM_CO_MERGE_ENGINE);
  switch (t->merge_engine) {
    case PM_MERGE_DEDUPLICATE: break;
    case PM_MERGE_PARTIAL_UPDATE:
      if (co->partial_update_remove_on_delete || co->partial_update_remove_on_seq_group) break;
      snprintf(why, sizeof why,
               "merge engine %s does not remove rows on delete: set '%s' = true (without sequence groups) or '%s'",
               engine, pm_core_option_key(PM_CO_PARTIAL_UPDATE_REMOVE_ON_DELETE),
               pm_core_option_key(PM_CO_PARTIAL_UPDATE_REMOVE_ON_SEQ_GROUP));
      return refuse(t, "delete", why, err);
    case PM_MERGE_AGGREGATION:
      if (co->aggregation_remove_on_delete) break;
      snprintf(why, sizeof why, "merge engine %s does not remove rows on delete: set '%s' = true", engine,
               pm_core_option_key(PM_CO_AGGREGATION_REMOVE_ON_DELETE));
      return refuse(t, "delete", why, err);
    default:
      snprintf(why, sizeof why, "merge engine %s can not support batch delete", engine);
      return refuse(t, "delete", why, err);
  }
  if (co->ignore_delete) {
    snprintf(why, sizeof why, "'%s' = true drops the delete rows", pm_core_option_key(PM_CO_IGNORE_DELETE));
    return refuse(t, "delete", why, err);
  }
  return 0;
}

static int check_updatable(const pm_table *t, pm_error *err) {
  if (!pm_table_has_pk(t))
    return refuse(t, "update", "the table has no primary key (append tables are not updated in place here)", err);
  if (t->merge_engine != PM_MERGE_DEDUPLICATE && t->merge_engine != PM_MERGE_PARTIAL_UPDATE) {
    char why[256];
    snprintf(why, sizeof why, "merge engine %s can not support batch update (deduplicate and partial-update can)",
             pm_core_option_text(&t->co, PM_CO_MERGE_ENGINE));
    return refuse(t, "update", why, err);
  }
  return 0;
}

/* ------------------------------------------------------------ assignments */

typedef struct assignment {
  int col;             /* index into the read batch (the table's columns) */
  pm_type type;        /* the column's Arrow type */
  struct ArrowArray one; /* the value, length 1 */
} assignment;

static void assignments_free(assignment *as, size_t n) {
  for (size_t i = 0; as && i < n; i++) {
    pm_type_free(&as[i].type);
    pm_array_release(&as[i].one);
  }
  free(as);
}

/* Column `name = value` (value in the CSV cell form `table read --format csv` prints; "" = null). */
static int assignment_parse(const pm_table *t, const struct ArrowSchema *rs, const paimon_option *o, assignment *a,
                            pm_error *err) {
  int col = -1;
  for (int64_t i = 0; i < rs->n_children; i++)
    if (rs->children[i]->name && !strcmp(rs->children[i]->name, o->key)) col = (int)i;
  if (col < 0)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: update assigns '%s', which is not a column",
                     t->database, t->name, o->key);
  for (size_t k = 0; k < t->n_primary_keys; k++)
    if (!strcmp(t->primary_keys[k], o->key))
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED,
                       "table %s.%s: update assigns primary key column '%s' (updates to primary keys are not "
                       "supported, as in Java)",
                       t->database, t->name, o->key);
  a->col = col;
  PM_TRY(pm_type_from_schema(rs->children[col], &a->type, err));
  const char *v = o->value ? o->value : "";
  pm_csv_record rec;
  pm_csv_record_init(&rec);
  pm_buf line;
  pm_buf_init(&line);
  int rc = 0;
  if (*v) { /* one quoted field: commas and quotes in the value stay literal */
    rc = pm_buf_append(&line, "\"", 1);
    for (const char *p = v; !rc && *p; p++) rc = pm_buf_append(&line, *p == '"' ? "\"\"" : p, *p == '"' ? 2 : 1);
    if (!rc) rc = pm_buf_append(&line, "\"", 1);
    if (rc) rc = PM_NOMEM(err);
  }
  if (!rc) rc = pm_csv_parse_record((const char *)(line.data ? line.data : (uint8_t *)""), line.len, &rec, err);
  pm_builder *b = NULL;
  if (!rc) rc = pm_builder_new(&a->type, &b, err);
  if (!rc) rc = pm_csv_append_field(b, &rec, 0, err);
  if (!rc) rc = pm_builder_finish(b, &a->one, err);
  pm_builder_free(b);
  pm_buf_free(&line);
  pm_csv_record_free(&rec);
  if (rc) return pm_error_prefix(err, "table %s.%s: update value of column '%s'", t->database, t->name, o->key);
  return 0;
}

/* The batch with the assigned columns replaced by their values repeated (a new array; the
 * other columns are copied). */
static int apply_assignments(const struct ArrowSchema *rs, const struct ArrowArray *in, const assignment *as,
                             size_t n, struct ArrowArray *out, pm_error *err) {
  pm_type st;
  PM_TRY(pm_type_from_schema(rs, &st, err));
  int rc = pm_array_init(out, in->length, 1, in->n_children, err);
  for (int64_t c = 0; !rc && c < in->n_children; c++) {
    const assignment *a = NULL;
    for (size_t i = 0; i < n; i++)
      if (as[i].col == c) a = &as[i];
    pm_builder *b = NULL;
    rc = pm_builder_new(&st.children[c], &b, err);
    if (!rc) rc = pm_builder_reserve(b, in->length, err);
    if (!rc && !a) rc = pm_builder_append_range(b, &st.children[c], in->children[c], in->offset, in->length, err);
    for (int64_t r = 0; !rc && a && r < in->length; r++) rc = pm_builder_append_from(b, &a->type, &a->one, 0, err);
    pm_array_release(out->children[c]);
    if (!rc) rc = pm_builder_finish(b, out->children[c], err);
    pm_builder_free(b);
  }
  pm_type_free(&st);
  if (rc) pm_array_release(out);
  return rc;
}

/* ------------------------------------------------------------ the operation */

static int run(const paimon_write_builder *wb, const char *where, const paimon_option *assign, size_t n_assign,
               int is_update, int64_t *rows, int64_t *snapshot_id, pm_error *err) {
  const pm_table *t = wb->t;
  if (rows) *rows = 0;
  if (snapshot_id) *snapshot_id = -1;
  if (!where || !*where)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: %s needs a filter (a non-empty predicate)",
                     t->database, t->name, is_update ? "update" : "delete");
  if (wb->streaming || wb->overwrite)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s: %s by predicate needs a batch write builder without overwrite", t->database,
                     t->name, is_update ? "update" : "delete");
  PM_TRY(is_update ? check_updatable(t, err) : check_deletable(t, err));
  if (is_update && !n_assign)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: update needs at least one assignment",
                     t->database, t->name);
  paimon_read_builder *rb = NULL;
  paimon_predicate *p = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream st;
  memset(&st, 0, sizeof st);
  struct ArrowSchema rs;
  memset(&rs, 0, sizeof rs);
  assignment *as = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int64_t n_rows = 0;
  int rc = paimon_read_builder_new(wb->table, NULL, 0, &rb, err);
  if (!rc) rc = paimon_predicate_parse(rb, where, &p, err);
  if (!rc) {
    rc = paimon_read_builder_with_filter(rb, p, err);
    p = NULL;
  }
  if (!rc) rc = paimon_read_builder_plan(rb, &plan, err);
  if (!rc) rc = paimon_read_plan(rb, plan, &st, err);
  if (!rc && st.get_schema(&st, &rs)) rc = pm_errorf(err, PAIMON_ERR_INTERNAL, "read schema: %s", st.get_last_error(&st));
  if (!rc && is_update) {
    as = calloc(n_assign, sizeof *as);
    if (!as) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < n_assign; i++) {
      for (size_t j = 0; !rc && j < i; j++)
        if (!strcmp(assign[i].key, assign[j].key))
          rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: update assigns column '%s' twice",
                         t->database, t->name, assign[i].key);
      if (!rc) rc = assignment_parse(t, &rs, &assign[i], &as[i], err);
    }
  }
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  while (!rc) {
    struct ArrowArray a;
    if (st.get_next(&st, &a)) {
      const char *e = st.get_last_error(&st);
      rc = pm_errorf(err, PAIMON_ERR_IO, "reading the rows to %s: %s", is_update ? "update" : "delete", e ? e : "?");
      break;
    }
    if (!a.release) break;
    if (a.length && is_update) {
      struct ArrowArray u;
      rc = apply_assignments(&rs, &a, as, n_assign, &u, err);
      if (!rc) rc = paimon_table_write_arrow_kind(w, &rs, &u, PAIMON_ROW_KIND_UPDATE_AFTER, err);
      pm_array_release(&u);
    } else if (a.length) {
      rc = paimon_table_write_arrow_kind(w, &rs, &a, PAIMON_ROW_KIND_DELETE, err);
    }
    n_rows += a.length;
    a.release(&a);
  }
  if (!rc && n_rows) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, err);
  if (!rc && n_rows) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc && n_rows) {
    rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, snapshot_id, err);
    if (rc && rc != PAIMON_ERR_UNKNOWN_OUTCOME) {
      paimon_error e2 = {0};
      paimon_table_commit_abort(c, m, &e2); /* nothing published: remove the new files */
    }
  }
  if (!rc && rows) *rows = n_rows;
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  assignments_free(as, n_assign);
  if (rs.release) rs.release(&rs);
  if (st.release) st.release(&st);
  paimon_plan_free(plan);
  paimon_predicate_free(p);
  paimon_read_builder_free(rb);
  return rc;
}

paimon_status paimon_write_builder_delete_where(const paimon_write_builder *wb, const char *where, int64_t *rows,
                                                int64_t *snapshot_id, paimon_error *err) {
  CHECK_ARG(wb, "NULL write builder");
  return (paimon_status)run(wb, where, NULL, 0, 0, rows, snapshot_id, err);
}

paimon_status paimon_write_builder_update_where(const paimon_write_builder *wb, const char *where,
                                                const paimon_option *assignments, size_t n, int64_t *rows,
                                                int64_t *snapshot_id, paimon_error *err) {
  CHECK_ARG(wb && (assignments || !n), "NULL argument");
  return (paimon_status)run(wb, where, assignments, n, 1, rows, snapshot_id, err);
}
