/* The merge configuration of a primary-key table (merge_table.h): keys,
 * sequence.field, partial-update sequence groups, per-column aggregate
 * functions and their options, from the table's schema and options. */
#include "table/merge_table.h"

#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "util/str.h"

static int split_list(const char *s, char ***out, int *n) {
  *out = NULL;
  *n = 0;
  if (!s) return 0;
  int cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  char **v = calloc((size_t)cap, sizeof *v);
  if (!v) return -1;
  const char *p = s;
  while (*p) {
    const char *e = strchr(p, ',');
    if (!e) e = p + strlen(p);
    const char *a = p, *b = e;
    while (a < b && isspace((unsigned char)*a)) a++;
    while (b > a && isspace((unsigned char)b[-1])) b--;
    if (b > a) {
      v[*n] = strndup(a, (size_t)(b - a));
      if (!v[*n]) {
        for (int i = 0; i < *n; i++) free(v[i]);
        free(v);
        return -1;
      }
      (*n)++;
    }
    p = *e ? e + 1 : e;
  }
  *out = v;
  return 0;
}

static int field_index(const pm_table_schema *s, const char *name) { return pm_schema_field_index(s, name); }

static const char *table_option_get(void *t, const char *key) { return pm_table_option(t, key); }

int pm_table_merge_init(pm_table *t, const pm_type *layout, int n_cols, int col_seq, int col_kind, int col_level,
                        pm_table_merge *c, pm_error *err) {
  memset(c, 0, sizeof *c);
  const pm_table_schema *s = t->schema;
  size_t nf = s->n_fields;
  c->n_keys = (int)t->n_trimmed_primary_keys;
  c->key_cols = calloc((size_t)c->n_keys + 1, sizeof *c->key_cols);
  c->key_types = calloc((size_t)c->n_keys + 1, sizeof *c->key_types);
  if (!c->key_cols || !c->key_types) return PM_NOMEM(err);
  for (int k = 0; k < c->n_keys; k++) {
    int idx = field_index(s, t->trimmed_primary_keys[k]);
    if (idx < 0)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: primary key \"%s\" is not a column", t->root,
                       t->trimmed_primary_keys[k]);
    c->key_cols[k] = idx;
    c->key_types[k] = s->fields[idx].type;
  }
  char **seq;
  int n_seq;
  if (split_list(t->co.sequence_field, &seq, &n_seq)) return PM_NOMEM(err);
  c->seq_field_cols = calloc((size_t)n_seq + 1, sizeof *c->seq_field_cols);
  if (!c->seq_field_cols) {
    pm_strings_free(seq, n_seq);
    return PM_NOMEM(err);
  }
  for (int k = 0; k < n_seq; k++) {
    int idx = field_index(s, seq[k]);
    if (idx < 0) {
      int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: sequence.field \"%s\" is not a column", t->root,
                         seq[k]);
      pm_strings_free(seq, n_seq);
      return rc;
    }
    c->seq_field_cols[k] = idx;
  }
  pm_strings_free(seq, n_seq);
  c->n_seq_fields = n_seq;
  int desc = t->co.sequence_field_sort_order == PM_SORT_DESCENDING;

  pm_merge_config *m = &c->cfg;
  memset(m, 0, sizeof *m);
  m->layout = layout;
  m->n_keys = c->n_keys;
  m->key_cols = c->key_cols;
  m->seq_col = col_seq;
  m->kind_col = col_kind;
  m->level_col = col_level;
  m->n_seq_fields = c->n_seq_fields;
  m->seq_field_cols = c->seq_field_cols;
  m->seq_descending = desc;
  m->engine = (int)t->merge_engine;
  m->ignore_delete = t->co.ignore_delete;
  int rr1 = t->co.partial_update_remove_on_delete, rr2 = t->co.aggregation_remove_on_delete;
  m->remove_record_on_delete = m->engine == PM_ENGINE_PARTIAL_UPDATE ? rr1 : m->engine == PM_ENGINE_AGGREGATION ? rr2 : 0;
  /* partial-update sequence groups: fields.<g1>[,<g2>].sequence-group = <f1>,<f2>,... */
  char **rm_groups = NULL;
  int n_rm_groups = 0;
  if (split_list(t->co.partial_update_remove_on_seq_group, &rm_groups, &n_rm_groups))
    return PM_NOMEM(err);
  int rc = 0;
  for (size_t i = 0; i < t->options.n && !rc; i++) {
    const char *k = t->options.keys[i];
    char *orders = NULL;
    int is_group = pm_field_sequence_group(&t->options, i, &orders);
    if (!is_group) continue;
    if (m->engine != PM_ENGINE_PARTIAL_UPDATE) {
      free(orders);
      continue;
    }
    char **ord = NULL, **prot = NULL;
    int n_ord = 0, n_prot = 0;
    if (is_group < 0 || split_list(orders, &ord, &n_ord) || split_list(t->options.values[i], &prot, &n_prot)) {
      free(orders);
      pm_strings_free(ord, n_ord);
      rc = PM_NOMEM(err);
      break;
    }
    free(orders);
    pm_seq_group *ng = realloc(c->seq_groups, ((size_t)c->n_seq_groups + 1) * sizeof *ng);
    int *oc = calloc((size_t)n_ord + 1, sizeof *oc), *pc = calloc((size_t)n_prot + 1, sizeof *pc);
    if (ng) c->seq_groups = ng;
    if (!ng || !oc || !pc) {
      free(oc);
      free(pc);
      rc = PM_NOMEM(err);
    }
    int remove = 0;
    for (int j = 0; j < n_ord && !rc; j++) {
      oc[j] = field_index(s, ord[j]);
      if (oc[j] < 0) rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: %s names unknown column \"%s\"", t->root, k, ord[j]);
      for (int q = 0; q < n_rm_groups; q++) remove |= !strcmp(rm_groups[q], ord[j]);
    }
    for (int j = 0; j < n_prot && !rc; j++) {
      pc[j] = field_index(s, prot[j]);
      if (pc[j] < 0)
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: %s protects unknown column \"%s\"", t->root, k, prot[j]);
    }
    if (ng && oc && pc) {
      pm_seq_group *sg = &c->seq_groups[c->n_seq_groups++];
      sg->n_order = n_ord;
      sg->order_cols = oc;
      sg->n_protected = n_prot;
      sg->protected_cols = pc;
      sg->remove_on_delete = remove;
    }
    pm_strings_free(ord, n_ord);
    pm_strings_free(prot, n_prot);
  }
  pm_strings_free(rm_groups, n_rm_groups);
  if (rc) return rc;
  m->n_seq_groups = c->n_seq_groups;
  m->seq_groups = c->seq_groups;
  c->columns = calloc((size_t)n_cols + 1, sizeof *c->columns);
  if (!c->columns) return PM_NOMEM(err);
  m->columns = c->columns;
  const char *def_agg = t->co.default_agg_function;
  for (size_t f = 0; f < nf; f++) {
    pm_merge_column *mc = &c->columns[f];
    const char *name = s->fields[f].name;
    const char *agg = pm_field_option(&t->options, name, PM_FIELD_AGG_FUNCTION);
    int is_key = 0;
    for (int k = 0; k < c->n_keys; k++) is_key |= c->key_cols[k] == (int)f;
    for (size_t k = 0; k < t->n_primary_keys; k++) is_key |= !strcmp(t->primary_keys[k], name);
    if (is_key) {
      mc->agg = PM_AGG_PRIMARY_KEY;
      continue;
    }
    /* partial-update: the merge checks that functions sit on sequence-group columns */
    if (!agg) agg = def_agg;
    if (agg && (m->engine == PM_ENGINE_AGGREGATION || m->engine == PM_ENGINE_PARTIAL_UPDATE)) {
      PM_TRY(pm_agg_func_parse(agg, &mc->agg, err));
      PM_TRY(pm_merge_column_options(mc, &layout->children[f], name, table_option_get, t, err));
    }
    PM_TRY(pm_field_option_bool(&t->options, name, PM_FIELD_IGNORE_RETRACT, 0, &mc->ignore_retract, err));
    PM_TRY(pm_field_option_bool(&t->options, name, PM_FIELD_DISTINCT, 0, &mc->distinct, err));
    /* borrowed from the table options */
    mc->listagg_delimiter = pm_field_option(&t->options, name, PM_FIELD_LIST_AGG_DELIMITER);
  }
  return 0;
}


void pm_table_merge_free(pm_table_merge *c) {
  if (!c) return;
  free(c->key_cols);
  free(c->key_types);
  free(c->seq_field_cols);
  free(c->columns);
  for (int g = 0; g < c->n_seq_groups; g++) {
    free((void *)c->seq_groups[g].order_cols);
    free((void *)c->seq_groups[g].protected_cols);
  }
  free(c->seq_groups);
  memset(c, 0, sizeof *c);
}
