#include "table/read.h"

#include <ctype.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/type.h"
#include "data/binary_row.h"
#include "format/format.h"
#include "io/file.h"
#include "meta/deletion_vector.h"
#include "meta/fileindex.h"
#include "table/evolution.h"
#include "table/file_check.h"
#include "table/merge.h"
#include "table/merge_table.h"
#include "table/scan.h"
#include "util/sort.h"
#include "util/str.h"

static int64_t floor_div_i64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

int pm_table_session_tz(const pm_table *t, const char *override, pm_tz **out, pm_error *err) {
  const char *name = override ? override : t->co.session_time_zone;
  /* No option: the process's local zone, as Java uses the JVM default zone. */
  return name ? pm_tz_load(name, out, err) : pm_tz_load_local(out, err);
}

void pm_read_options_init(pm_read_options *o) {
  memset(o, 0, sizeof *o);
  o->limit = -1;
}

/* ======================================================================
 * Read context: everything derived once from the table and the options
 * ====================================================================== */

enum { OUT_COL = 0, OUT_ROW_KIND = 1 };

#define MAX_NESTED_PATH 16

typedef struct out_col {
  int kind;  /* OUT_COL / OUT_ROW_KIND */
  int col;   /* layout child */
  char *name;
  int depth; /* > 0: struct member selection "a.b.c": child indices below col */
  int path[MAX_NESTED_PATH];
  const pm_type *type; /* type of the selected value */
} out_col;

typedef struct read_ctx {
  pm_table *t;
  const pm_table_schema *schema;
  size_t nf;                 /* table fields */
  pm_type layout;            /* struct: table fields + extras */
  struct ArrowSchema layout_schema;
  pm_evo_field *evo_fields;  /* per layout child */
  int n_cols;
  int col_seq, col_kind, col_row_id; /* -1 when absent */
  int col_level;             /* lookup tables: the file level of each record (not stored in files) */
  int lookup;
  int has_pk;
  pm_table_merge tm;          /* owns the merge configuration's arrays */
  int *key_cols;              /* aliases into tm */
  int n_keys;
  int *seq_field_cols;
  int n_seq_fields;
  pm_merge_config merge;
  int row_tracking, data_evolution;
  pm_tz *tz;
  pm_cast_options cast;
  out_col *out;
  int n_out;
  const pm_predicate *filter;
  int32_t *col_of_field;
  int64_t limit;
  int with_row_kind;
  int no_pushdown;
  int64_t batch_rows;
  int parallelism;
  pm_data_type **key_types; /* alias into tm: trimmed key field types (for min/max keys) */
  int *part_cols;            /* layout index of each partition key */
  int n_part;
} read_ctx;

static void ctx_free(read_ctx *c) {
  if (!c) return;
  pm_type_free(&c->layout);
  pm_schema_release(&c->layout_schema);
  free(c->evo_fields);
  pm_table_merge_free(&c->tm);
  pm_tz_free(c->tz);
  if (c->out)
    for (int i = 0; i < c->n_out; i++) free(c->out[i].name);
  free(c->out);
  free(c->col_of_field);
  free(c->part_cols);
  free(c);
}

/* Splits a comma list into trimmed tokens (malloc'd array of malloc'd strings). */
static int field_index(const pm_table_schema *s, const char *name) { return pm_schema_field_index(s, name); }

/* The table's merge configuration over the read layout (merge_table.h). */
static int setup_merge(read_ctx *c, pm_error *err) {
  pm_table_merge *tm = &c->tm;
  PM_TRY(pm_table_merge_init(c->t, &c->layout, c->n_cols, c->col_seq, c->col_kind, c->col_level, tm, err));
  c->n_keys = tm->n_keys;
  c->key_cols = tm->key_cols;
  c->key_types = tm->key_types;
  c->n_seq_fields = tm->n_seq_fields;
  c->seq_field_cols = tm->seq_field_cols;
  c->merge = tm->cfg;
  c->merge.keep_retracts = c->with_row_kind;
  c->merge.batch_rows = c->batch_rows;
  return 0;
}

static int find_out_column(read_ctx *c, const char *name) {
  for (size_t f = 0; f < c->nf; f++)
    if (!strcmp(c->schema->fields[f].name, name)) return (int)f;
  if (!strcmp(name, PM_SYSTEM_FIELD_ROW_ID) && c->col_row_id >= 0) return c->col_row_id;
  if (!strcmp(name, PM_SYSTEM_FIELD_SEQUENCE_NUMBER) && c->col_seq >= 0) return c->col_seq;
  return -1;
}

static int ctx_new(pm_table *t, const pm_read_options *opt, read_ctx **out, pm_error *err) {
  *out = NULL;
  PM_TRY(pm_table_options_ok(t, err));
  read_ctx *c = calloc(1, sizeof *c);
  if (!c) return PM_NOMEM(err);
  c->t = t;
  c->schema = t->schema;
  c->nf = t->schema->n_fields;
  c->has_pk = pm_table_has_pk(t);
  c->row_tracking = t->row_tracking && !c->has_pk;
  c->data_evolution = t->data_evolution && !c->has_pk;
  c->filter = opt->filter;
  c->limit = opt->limit;
  c->with_row_kind = opt->with_row_kind;
  c->no_pushdown = opt->no_filter_pushdown;
  c->col_seq = c->col_kind = c->col_row_id = c->col_level = -1;
  int rc = 0;
  int64_t bs = opt->batch_rows;
  if (bs <= 0) bs = t->co.set[PM_CO_READ_BATCH_SIZE] ? t->co.read_batch_size : PM_READ_DEFAULT_BATCH_ROWS;
  c->batch_rows = bs;
  int32_t par = opt->parallelism;
  if (par <= 0) par = t->co.read_parallelism;
  pm_executor ex = pm_table_executor(t);
  c->parallelism = pm_executor_width(&ex, par > 0 ? par : 1);
  rc = pm_table_session_tz(t, opt->session_time_zone, &c->tz, err);
  c->cast.session_tz = c->tz;
  if (rc) goto fail;

  /* layout: table fields + system columns */
  /* Lookup tables (changelog lookup, DVs, first-row, force-lookup) merge with
   * only the newest level > 0 record per key at read time too (SEMANTICS 3.6). */
  if (c->has_pk) {
    c->lookup = t->changelog_producer == PM_CHANGELOG_LOOKUP || t->deletion_vectors || t->co.force_lookup ||
                t->merge_engine == (pm_merge_engine)PM_ENGINE_FIRST_ROW;
    if (rc) goto fail;
  }
  int extras = c->has_pk ? (c->lookup ? 3 : 2) : c->row_tracking ? 2 : 0;
  c->n_cols = (int)c->nf + extras;
  struct ArrowSchema *ls = &c->layout_schema;
  if ((rc = pm_schema_init(ls, "+s", "", 0, c->n_cols, err))) goto fail;
  for (size_t f = 0; f < c->nf && !rc; f++) {
    pm_schema_release(ls->children[f]);
    rc = pm_dfield_to_arrow(&c->schema->fields[f], ls->children[f], err);
  }
  if (rc) goto fail;
  if (extras) {
    const char *names[3];
    const char *fmts[3];
    int32_t ids[3];
    if (c->has_pk) {
      c->col_seq = (int)c->nf;
      c->col_kind = (int)c->nf + 1;
      names[0] = PM_SYSTEM_FIELD_SEQUENCE_NUMBER, fmts[0] = "l", ids[0] = PM_FIELD_ID_SEQUENCE_NUMBER;
      names[1] = "_VALUE_KIND", fmts[1] = "c", ids[1] = PM_FIELD_ID_VALUE_KIND;
      if (c->lookup) {
        c->col_level = (int)c->nf + 2;
        names[2] = "_LEVEL", fmts[2] = "i", ids[2] = PM_FIELD_ID_LEVEL;
      }
    } else {
      c->col_row_id = (int)c->nf;
      c->col_seq = (int)c->nf + 1;
      names[0] = PM_SYSTEM_FIELD_ROW_ID, fmts[0] = "l", ids[0] = PM_FIELD_ID_ROW_ID;
      names[1] = PM_SYSTEM_FIELD_SEQUENCE_NUMBER, fmts[1] = "l", ids[1] = PM_FIELD_ID_SEQUENCE_NUMBER;
    }
    for (int e = 0; e < extras && !rc; e++) {
      struct ArrowSchema *ch = ls->children[c->nf + (size_t)e];
      pm_schema_release(ch);
      rc = pm_schema_init(ch, fmts[e], names[e], 0, 0, err);
      char idbuf[16];
      snprintf(idbuf, sizeof idbuf, "%d", (int)ids[e]);
      const char *k[1] = {"PARQUET:field_id"}, *v[1] = {idbuf};
      if (!rc) rc = pm_schema_set_metadata(ch, 1, k, v, err);
    }
    if (rc) goto fail;
  }
  if ((rc = pm_type_from_schema(ls, &c->layout, err))) goto fail;
  c->evo_fields = calloc((size_t)c->n_cols + 1, sizeof *c->evo_fields);
  if (!c->evo_fields) goto nomem;
  for (int i = 0; i < c->n_cols; i++) {
    c->evo_fields[i].id = pm_arrow_field_id(ls->children[i]);
    c->evo_fields[i].name = ls->children[i]->name;
    c->evo_fields[i].type = &c->layout.children[i];
    c->evo_fields[i].schema = ls->children[i];
  }
  c->col_of_field = malloc((c->nf + 1) * sizeof *c->col_of_field);
  if (!c->col_of_field) goto nomem;
  for (size_t f = 0; f < c->nf; f++) c->col_of_field[f] = (int32_t)f;

  if (c->has_pk && (rc = setup_merge(c, err))) goto fail;
  c->merge.lookup_merge = opt->lookup_merge;
  c->part_cols = calloc(t->n_partition_keys + 1, sizeof *c->part_cols);
  if (!c->part_cols) goto nomem;
  for (size_t k = 0; k < t->n_partition_keys; k++) {
    int idx = field_index(c->schema, t->partition_keys[k]);
    if (idx >= 0) c->part_cols[c->n_part++] = idx;
  }

  /* output columns: "_row_kind" first (as pypaimon), then the projection */
  size_t n_req = opt->columns ? opt->n_columns : c->nf;
  c->out = calloc(n_req + 2, sizeof *c->out);
  if (!c->out) goto nomem;
  if (c->with_row_kind) {
    c->out[c->n_out].kind = OUT_ROW_KIND;
    c->out[c->n_out].col = c->col_kind;
    c->out[c->n_out].name = strdup(PM_READ_ROW_KIND_COLUMN);
    if (!c->out[c->n_out++].name) goto nomem;
  }
  for (size_t i = 0; i < n_req; i++) {
    const char *name = opt->columns ? opt->columns[i] : c->schema->fields[i].name;
    int col = find_out_column(c, name);
    out_col *oc = &c->out[c->n_out];
    oc->depth = 0;
    if (col < 0 && strchr(name, '.')) {
      /* struct member: "a.b" walks ROW children by name */
      const char *dot = strchr(name, '.');
      char *top = strndup(name, (size_t)(dot - name));
      if (!top) goto nomem;
      col = find_out_column(c, top);
      free(top);
      const pm_type *ty = col >= 0 ? &c->layout.children[col] : NULL;
      const char *p = dot + 1;
      while (ty && *p) {
        const char *e = strchr(p, '.');
        size_t len = e ? (size_t)(e - p) : strlen(p);
        int found = -1;
        if (ty->id == PM_T_STRUCT)
          for (int64_t k = 0; k < ty->n_children; k++)
            if (ty->children[k].name && strlen(ty->children[k].name) == len && !strncmp(ty->children[k].name, p, len))
              found = (int)k;
        if (found < 0 || oc->depth >= MAX_NESTED_PATH) {
          ty = NULL;
          break;
        }
        oc->path[oc->depth++] = found;
        ty = &ty->children[found];
        p = e ? e + 1 : p + len;
      }
      if (!ty) col = -1;
    }
    if (col < 0) {
      rc = pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no column \"%s\" to read", t->root, name);
      goto fail;
    }
    oc->type = &c->layout.children[col];
    for (int d = 0; d < oc->depth; d++) oc->type = &oc->type->children[oc->path[d]];
    c->out[c->n_out].kind = OUT_COL;
    c->out[c->n_out].col = col;
    c->out[c->n_out].name = strdup(name);
    if (!c->out[c->n_out++].name) goto nomem;
  }
  *out = c;
  return 0;
nomem:
  rc = PM_NOMEM(err);
fail:
  ctx_free(c);
  return rc;
}

/* Arrow schema of output column i, named as requested. */
static int out_field_schema(const read_ctx *c, int i, struct ArrowSchema *out, pm_error *err) {
  const out_col *oc = &c->out[i];
  if (oc->kind == OUT_ROW_KIND) return pm_schema_init(out, "u", oc->name, 0, 0, err);
  const struct ArrowSchema *src = c->layout_schema.children[oc->col];
  for (int d = 0; d < oc->depth; d++) src = src->children[oc->path[d]];
  struct ArrowSchema tmp;
  PM_TRY(pm_schema_copy(src, &tmp, err));
  if (oc->depth == 0 && !strcmp(tmp.name ? tmp.name : "", oc->name)) {
    pm_schema_move(&tmp, out);
    return 0;
  }
  /* rename: rebuild the node with the requested name, moving the children over */
  int rc = pm_schema_init(out, tmp.format, oc->name, tmp.flags | (oc->depth ? ARROW_FLAG_NULLABLE : 0), tmp.n_children,
                          err);
  for (int64_t k = 0; !rc && k < tmp.n_children; k++) {
    free(out->children[k]);
    out->children[k] = tmp.children[k];
    tmp.children[k] = NULL;
  }
  if (!rc && tmp.metadata) {
    char *id = pm_schema_metadata_get(&tmp, "PARQUET:field_id");
    if (id) {
      const char *k[1] = {"PARQUET:field_id"}, *v[1] = {id};
      rc = pm_schema_set_metadata(out, 1, k, v, err);
      free(id);
    }
  }
  if (!rc && tmp.dictionary) {
    out->dictionary = tmp.dictionary;
    tmp.dictionary = NULL;
  }
  pm_schema_release(&tmp);
  return rc;
}

int pm_read_schema(pm_table *t, const pm_read_options *opt, struct ArrowSchema *out, pm_error *err) {
  read_ctx *c;
  PM_TRY(ctx_new(t, opt, &c, err));
  int rc = pm_schema_init(out, "+s", "", 0, c->n_out, err);
  for (int i = 0; i < c->n_out && !rc; i++) {
    pm_schema_release(out->children[i]);
    rc = out_field_schema(c, i, out->children[i], err);
  }
  if (rc) pm_schema_release(out);
  ctx_free(c);
  return rc;
}

/* ======================================================================
 * File source: one data file -> batches in the layout
 * ====================================================================== */

typedef struct file_source {
  read_ctx *c;
  const pm_data_split *split;
  const pm_data_file_meta *meta;
  char *path;
  pm_format_reader *fr; /* NULL when every row is deleted */
  pm_evo_mapping map;
  int map_ready;
  int64_t *ranges; /* kept row ranges (pairs) or NULL = all rows */
  size_t n_ranges;
  const pm_table_schema *file_schema;
  int check_rows;    /* compare the rows read with the manifest's rowCount at the end */
  int64_t rows_read;
} file_source;

static void file_source_close(file_source *s) {
  if (!s) return;
  pm_format_reader_close(s->fr);
  if (s->map_ready) pm_evo_mapping_free(&s->map);
  free(s->ranges);
  free(s->path);
  free(s);
}

static int32_t name_to_id(void *ctx, const char *name) {
  file_source *s = ctx;
  if (!strcmp(name, "_SEQUENCE_NUMBER")) return PM_FIELD_ID_SEQUENCE_NUMBER;
  if (!strcmp(name, "_VALUE_KIND")) return PM_FIELD_ID_VALUE_KIND;
  if (!strcmp(name, "_ROW_ID")) return PM_FIELD_ID_ROW_ID;
  if (!strncmp(name, "_KEY_", 5)) return -1;
  if (s->file_schema) {
    int i = pm_schema_field_index(s->file_schema, name);
    if (i >= 0) return s->file_schema->fields[i].id;
  }
  return -1;
}

/* A TIMESTAMP_LTZ column stored without a UTC flag (Parquet INT96) is still
 * an instant, and a zone-less TIMESTAMP flagged as UTC is still wall-clock:
 * the file's schema decides. */
static int fix_file_type(void *ctx, int32_t id, pm_type *t, pm_error *err) {
  file_source *s = ctx;
  if ((t->id != PM_T_TIMESTAMP && t->id != PM_T_INT32) || !s->file_schema) return 0;
  int i = pm_schema_field_index_by_id(s->file_schema, id);
  if (i < 0) return 0;
  pm_dtype_root r = s->file_schema->fields[i].type->root;
  if (t->id == PM_T_INT32) {
    /* ORC has no TIME: Java stores millis of the day as INT, the same values as Arrow time32[ms] */
    if (r == PM_DT_TIME) {
      t->id = PM_T_TIME32;
      t->unit = PM_UNIT_MS;
    }
    return 0;
  }
  if (r == PM_DT_TIMESTAMP_LTZ && !t->tz) {
    t->tz = strdup("UTC");
    if (!t->tz) return PM_NOMEM(err);
  } else if (r == PM_DT_TIMESTAMP && t->tz) {
    free(t->tz);
    t->tz = NULL;
  }
  return 0;
}

/* Columns a data-evolution file physically holds (write_cols or its schema). */
static int file_has_field(read_ctx *c, const pm_data_file_meta *m, const pm_table_schema *fs, int32_t id) {
  if (id == PM_FIELD_ID_ROW_ID || id == PM_FIELD_ID_SEQUENCE_NUMBER) return 1;
  const char *name = NULL;
  if (fs) {
    int i = pm_schema_field_index_by_id(fs, id);
    if (i < 0) return 0;
    name = fs->fields[i].name;
  }
  if (m->write_cols.is_null || !m->write_cols.items) return fs != NULL;
  for (int32_t k = 0; k < m->write_cols.n; k++)
    if (name && !strcmp(m->write_cols.items[k], name)) return 1;
  (void)c;
  return 0;
}

/* Filter pushdown hints for the format readers (row group / stripe pruning
 * only; rows are still filtered exactly after reading). Only top-level AND
 * leaves on integer / DATE / STRING columns whose type in the file's schema
 * equals the read type, with non-null literals. */
#define MAX_PUSHED 32
#define MAX_PUSHED_LITS 256

typedef struct pushdown {
  size_t n;
  pm_fmt_predicate preds[MAX_PUSHED];
  pm_fmt_literal lits[MAX_PUSHED_LITS];
  size_t total_lits;
} pushdown;

static void build_pushdown(const read_ctx *c, const pm_table_schema *fs, pushdown *pd) {
  pd->n = 0;
  pd->total_lits = 0;
  if (!c->filter || !fs) return;
  const pm_predicate *conj[64];
  size_t nc = pm_pred_conjuncts(c->filter, conj, 64);
  if (nc > 64) nc = 64;
  for (size_t i = 0; i < nc && pd->n < MAX_PUSHED; i++) {
    const pm_predicate *p = conj[i];
    pm_fmt_op op;
    switch (p->op) {
      case PM_PRED_EQUAL: op = PM_FMT_OP_EQ; break;
      case PM_PRED_LESS_THAN: op = PM_FMT_OP_LT; break;
      case PM_PRED_LESS_OR_EQUAL: op = PM_FMT_OP_LE; break;
      case PM_PRED_GREATER_THAN: op = PM_FMT_OP_GT; break;
      case PM_PRED_GREATER_OR_EQUAL: op = PM_FMT_OP_GE; break;
      case PM_PRED_IS_NULL: op = PM_FMT_OP_IS_NULL; break;
      case PM_PRED_IS_NOT_NULL: op = PM_FMT_OP_IS_NOT_NULL; break;
      case PM_PRED_IN: op = PM_FMT_OP_IN; break;
      default: continue;
    }
    if (p->field_index < 0 || (size_t)p->field_index >= c->nf) continue;
    const pm_data_field *tf = &c->schema->fields[p->field_index];
    int fi = pm_schema_field_index_by_id(fs, tf->id);
    if (fi < 0 || !pm_dtype_equals(fs->fields[fi].type, tf->type)) continue;
    pm_dtype_root r = tf->type->root;
    int ints = r == PM_DT_TINYINT || r == PM_DT_SMALLINT || r == PM_DT_INT || r == PM_DT_BIGINT || r == PM_DT_DATE;
    int strs = r == PM_DT_CHAR || r == PM_DT_VARCHAR;
    if (!ints && !strs) continue;
    size_t want = (op == PM_FMT_OP_IS_NULL || op == PM_FMT_OP_IS_NOT_NULL) ? 0 : p->n_literals;
    if ((op != PM_FMT_OP_IS_NULL && op != PM_FMT_OP_IS_NOT_NULL && want == 0) || pd->total_lits + want > MAX_PUSHED_LITS)
      continue;
    int ok = 1;
    for (size_t k = 0; k < want && ok; k++) {
      const pm_value *v = &p->literals[k];
      pm_fmt_literal *l = &pd->lits[pd->total_lits + k];
      memset(l, 0, sizeof *l);
      if (ints && v->kind == PM_V_INT) {
        l->kind = PM_FMT_LIT_INT64;
        l->i64 = v->u.i64;
      } else if (strs && v->kind == PM_V_STRING) {
        l->kind = PM_FMT_LIT_BYTES;
        l->bytes = v->u.bytes.data;
        l->len = v->u.bytes.len;
      } else {
        ok = 0;
      }
    }
    if (!ok) continue;
    pm_fmt_predicate *q = &pd->preds[pd->n++];
    memset(q, 0, sizeof *q);
    q->column = NULL;
    q->field_id = tf->id;
    q->op = op;
    q->values = want ? &pd->lits[pd->total_lits] : NULL;
    q->n_values = want;
    pd->total_lits += want;
  }
}

static int32_t system_field_id(const char *name) {
  if (!strcmp(name, "_SEQUENCE_NUMBER")) return PM_FIELD_ID_SEQUENCE_NUMBER;
  if (!strcmp(name, "_VALUE_KIND")) return PM_FIELD_ID_VALUE_KIND;
  if (!strcmp(name, "_ROW_ID")) return PM_FIELD_ID_ROW_ID;
  return -1;
}

/* The schema a file was written with, as Arrow, for formats that need it
 * (Avro data files are typed by it; a blob file's single column is its
 * write column): the file schema's fields plus the system fields. */
static int file_data_schema(file_source *s, int blob, struct ArrowSchema *out, pm_error *err) {
  const pm_data_file_meta *m = s->meta;
  const pm_table_schema *fs = s->file_schema;
  if (blob) {
    /* the blob column is the file's single write column */
    const char *col = !m->write_cols.is_null && m->write_cols.n == 1 ? m->write_cols.items[0] : NULL;
    int fi = col && fs ? pm_schema_field_index(fs, col) : -1;
    if (fi < 0) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: blob file without a single known write column", s->path);
    PM_TRY(pm_schema_init(out, "+s", "", 0, 1, err));
    pm_schema_release(out->children[0]);
    int rc = pm_dfield_to_arrow(&fs->fields[fi], out->children[0], err);
    if (rc) pm_schema_release(out);
    return rc;
  }
  static const char *const sys[3] = {"_SEQUENCE_NUMBER", "_VALUE_KIND", "_ROW_ID"};
  static const char *const sys_fmt[3] = {"l", "c", "l"};
  size_t nf = fs ? fs->n_fields : 0;
  PM_TRY(pm_schema_init(out, "+s", "", 0, (int64_t)(nf + 3), err));
  int rc = 0;
  for (size_t i = 0; i < nf && !rc; i++) {
    pm_schema_release(out->children[i]);
    rc = pm_dfield_to_arrow(&fs->fields[i], out->children[i], err);
  }
  for (int k = 0; k < 3 && !rc; k++) {
    struct ArrowSchema *ch = out->children[nf + (size_t)k];
    pm_schema_release(ch);
    rc = pm_schema_init(ch, sys_fmt[k], sys[k], ARROW_FLAG_NULLABLE, 0, err);
    char idbuf[16];
    snprintf(idbuf, sizeof idbuf, "%d", (int)system_field_id(sys[k]));
    const char *key[1] = {"PARQUET:field_id"}, *val[1] = {idbuf};
    if (!rc) rc = pm_schema_set_metadata(ch, 1, key, val, err);
  }
  if (rc) pm_schema_release(out);
  return rc;
}

/* The split's row selection (meta/split.h) as kept ranges [start, end) of file m: row ids on
 * row-tracking tables, else positions counted over the split's files in order. */
static int file_selection(const read_ctx *c, const pm_data_split *sp, const pm_data_file_meta *m, int64_t **out,
                          size_t *n_out, pm_error *err) {
  int64_t base = 0;
  if (pm_data_split_selects_row_ids(sp, c->row_tracking)) {
    base = m->first_row_id;
  } else {
    for (size_t i = 0; i < sp->n_data_files && &sp->data_files[i] != m; i++) base += sp->data_files[i].row_count;
  }
  int64_t *v = malloc(sp->n_row_ranges * 2 * sizeof *v + 16);
  if (!v) return PM_NOMEM(err);
  size_t n = 0;
  for (size_t i = 0; i < sp->n_row_ranges; i++) {
    int64_t a = sp->row_ranges[2 * i] - base, b = sp->row_ranges[2 * i + 1] - base + 1;
    if (a < 0) a = 0;
    if (b > m->row_count) b = m->row_count;
    if (a >= b) continue;
    v[2 * n] = a, v[2 * n + 1] = b;
    n++;
  }
  *out = v;
  *n_out = n;
  return 0;
}

/* Intersects the kept ranges of s with sel (both sorted [start, end) pairs); takes sel. */
static int intersect_ranges(file_source *s, int64_t *sel, size_t n_sel, pm_error *err) {
  if (!s->ranges) {
    s->ranges = sel;
    s->n_ranges = n_sel;
    return 0;
  }
  int64_t *v = malloc((s->n_ranges + n_sel) * 2 * sizeof *v + 16);
  if (!v) {
    free(sel);
    return PM_NOMEM(err);
  }
  size_t n = 0, i = 0, j = 0;
  while (i < s->n_ranges && j < n_sel) {
    int64_t a = s->ranges[2 * i] > sel[2 * j] ? s->ranges[2 * i] : sel[2 * j];
    int64_t b = s->ranges[2 * i + 1] < sel[2 * j + 1] ? s->ranges[2 * i + 1] : sel[2 * j + 1];
    if (a < b) v[2 * n] = a, v[2 * n + 1] = b, n++;
    if (s->ranges[2 * i + 1] < sel[2 * j + 1]) i++;
    else j++;
  }
  free(sel);
  free(s->ranges);
  s->ranges = v;
  s->n_ranges = n;
  return 0;
}

/* The data file's index (embedded, else its "<file>.index" extra file next to it) against the
 * read filter: *remain = 0 when no row can match. */
static int file_index_remain(read_ctx *c, const pm_data_file_meta *m, const char *data_path,
                             const pm_table_schema *fs, int *remain, pm_error *err) {
  *remain = 1;
  if (!fs) return 0;
  const char *idx_name = NULL;
  size_t sl = strlen(PM_FIDX_FILE_SUFFIX);
  for (int32_t i = 0; i < m->extra_files.n; i++) {
    const char *x = m->extra_files.items[i];
    size_t xl = strlen(x);
    if (xl > sl && !strcmp(x + xl - sl, PM_FIDX_FILE_SUFFIX)) {
      if (idx_name)
        return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: more than one index file (%s and %s)", data_path, idx_name, x);
      idx_name = x;
    }
  }
  if (!(m->has_embedded_index && m->embedded_index.len) && !idx_name) return 0;
  pm_table *t = c->t;
  size_t nf = t->schema->n_fields;
  pm_fidx_col *cols = calloc(nf ? nf : 1, sizeof *cols);
  pm_buf file = {0};
  char *ipath = NULL;
  int rc = cols ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < nf; i++) {
    int fi = pm_schema_field_index_by_id(fs, t->schema->fields[i].id);
    if (fi >= 0) {
      cols[i].name = fs->fields[fi].name;
      cols[i].type = fs->fields[fi].type;
    }
  }
  const uint8_t *bytes = m->embedded_index.data;
  size_t len = m->embedded_index.len;
  if (!rc && !(m->has_embedded_index && m->embedded_index.len)) {
    const char *slash = strrchr(data_path, '/');
    size_t dl = slash ? (size_t)(slash - data_path) + 1 : 0;
    ipath = malloc(dl + strlen(idx_name) + 1);
    if (!ipath) rc = PM_NOMEM(err);
    else {
      memcpy(ipath, data_path, dl);
      strcpy(ipath + dl, idx_name);
      rc = pm_fs_read_file(t->fs, ipath, &file, (size_t)INT32_MAX, err);
      bytes = file.data;
      len = file.len;
    }
  }
  pm_fidx ix;
  memset(&ix, 0, sizeof ix);
  if (!rc) rc = pm_fidx_open_safe(bytes, len, ipath ? ipath : data_path, &ix, err);
  if (!rc) rc = pm_fidx_test(&ix, c->filter, cols, nf, m->row_count, remain, err);
  pm_fidx_clear(&ix);
  pm_buf_free(&file);
  free(ipath);
  free(cols);
  return rc;
}

/* Opens one data file; dv may be NULL. With `push`, the filter is given to the
 * format reader as a pruning hint (never for merge runs or stitched files). With
 * `select`, the split's row selection is applied to the file. */
static int file_source_open(read_ctx *c, const pm_data_split *split, const pm_data_file_meta *m,
                            const pm_deletion_file *dv, int push, int select, file_source **out, pm_error *err) {
  *out = NULL;
  file_source *s = calloc(1, sizeof *s);
  if (!s) return PM_NOMEM(err);
  s->c = c;
  s->split = split;
  s->meta = m;
  int rc = pm_table_data_file_path(c->t, split->bucket_path, m->file_name, m->external_path, &s->path, err);
  if (!rc) {
    rc = pm_table_schema_by_id(c->t, m->schema_id, &s->file_schema, err);
    if (rc == PAIMON_ERR_NOT_FOUND) { /* name mapping falls back to ids in the file */
      s->file_schema = NULL;
      rc = 0;
    }
  }
  if (!rc && dv && (dv->path || dv->vector)) {
    char *dvpath = NULL;
    if (dv->path) rc = pm_table_resolve_path(c->t, dv->path, &dvpath, err);
    pm_deletion_vector *v = NULL;
    if (!rc && dv->path) rc = pm_dv_read(c->t->fs, dvpath, dv->offset, dv->length, &v, err);
    if (!rc) {
      size_t n;
      rc = pm_dv_kept_ranges(dv->path ? v : dv->vector, m->row_count, &s->ranges, &n, err);
      s->n_ranges = n;
      if (!rc && !s->ranges) {
        s->ranges = malloc(2 * sizeof *s->ranges); /* everything deleted */
        if (!s->ranges) rc = PM_NOMEM(err);
        s->n_ranges = 0;
      }
    }
    pm_dv_free(v);
    free(dvpath);
  }
  if (!rc && select && split->has_row_ranges) {
    int64_t *sel = NULL;
    size_t n_sel = 0;
    rc = file_selection(c, split, m, &sel, &n_sel, err);
    if (!rc) rc = intersect_ranges(s, sel, n_sel, err);
  }
  /* Java's FileIndexEvaluator on raw file reads: a file its index proves free of matches is skipped */
  if (!rc && push && c->filter && c->t->co.file_index_read_enabled && (!s->ranges || s->n_ranges)) {
    int remain = 1;
    rc = file_index_remain(c, m, s->path, s->file_schema, &remain, err);
    if (!rc && !remain) {
      free(s->ranges);
      s->ranges = malloc(2 * sizeof *s->ranges);
      if (!s->ranges) rc = PM_NOMEM(err);
      s->n_ranges = 0;
    }
  }
  if (rc) goto fail;
  if (s->ranges && s->n_ranges == 0) { /* every row deleted: nothing to open */
    *out = s;
    return 0;
  }
  const pm_format *fmt = pm_format_for_file(m->file_name);
  if (!fmt) {
    const char *dot = strrchr(m->file_name, '.');
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: data file format \"%s\" is not supported for table reads",
                   s->path, dot ? dot + 1 : "?");
    goto fail;
  }
  int blob = !strcmp(fmt->name, "blob");
  /* projection: every layout column with a field id; timestamp units as the layout wants them */
  int32_t *ids = malloc(((size_t)c->n_cols + 1) * sizeof *ids);
  pm_format_ts_unit *units = malloc(((size_t)c->n_cols + 1) * sizeof *units);
  pushdown *pd = push ? malloc(sizeof *pd) : NULL;
  struct ArrowSchema ds;
  memset(&ds, 0, sizeof ds);
  if (!ids || !units || (push && !pd)) rc = PM_NOMEM(err);
  pm_format_read_options o;
  pm_format_read_options_init(&o);
  if (!rc) {
    size_t n_ids = 0, n_units = 0;
    for (int i = 0; i < c->n_cols; i++) {
      int32_t id = c->evo_fields[i].id;
      if (id < 0) continue;
      ids[n_ids++] = id;
      const pm_type *ty = &c->layout.children[i];
      if (ty->id == PM_T_TIMESTAMP) {
        static const char u[] = "smun";
        units[n_units].field_id = id;
        units[n_units].unit = u[ty->unit & 3];
        n_units++;
      }
    }
    o.field_ids = ids;
    o.n_field_ids = n_ids;
    o.ts_units = units;
    o.n_ts_units = n_units;
    o.batch_rows = c->batch_rows;
    o.row_ranges = s->ranges;
    o.n_row_ranges = s->ranges ? s->n_ranges : 0;
    if (pd) {
      build_pushdown(c, s->file_schema, pd);
      o.predicates = pd->preds;
      o.n_predicates = pd->n;
    }
  }
  if (!rc && fmt->needs_data_schema) {
    rc = file_data_schema(s, blob, &ds, err);
    o.data_schema = &ds;
  }
  if (!rc && blob && s->ranges)
    rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: deletion vectors on blob files are not supported", s->path);
  if (!rc && blob) rc = pm_table_read_coalesce(c->t, &o.coalesce_max_gap, &o.coalesce_max_block, err);
  pm_file *file = NULL;
  if (!rc) rc = pm_fs_open(c->t->fs, s->path, &file, err);
  if (!rc) rc = pm_data_file_check_size(s->path, m, pm_file_size(file), err);
  if (rc) pm_file_close(file);
  if (!rc) rc = pm_format_reader_open(fmt, file, &o, &s->fr, err); /* takes the file */
  s->check_rows = !s->ranges && !(push && c->filter); /* every row comes back: count them */
  pm_schema_release(&ds);
  free(ids);
  free(units);
  free(pd);
  if (rc) goto fail;
  struct ArrowSchema fs;
  rc = pm_format_reader_schema(s->fr, &fs, err);
  if (!rc) {
    rc = pm_evo_mapping_init2(&s->map, &fs, c->evo_fields, c->n_cols, name_to_id, fix_file_type, s, &c->cast,
                              s->path, err);
    pm_schema_release(&fs);
    s->map_ready = !rc;
  }
  if (rc) goto fail;
  *out = s;
  return 0;
fail:
  file_source_close(s);
  return rc;
}

/* Fills _ROW_ID / _SEQUENCE_NUMBER where the file has no (or a null) value (SEMANTICS 9.1). */
static int fill_row_tracking(file_source *s, struct ArrowArray *b, const int64_t *pos, pm_error *err) {
  read_ctx *c = s->c;
  const pm_data_file_meta *m = s->meta;
  int cols[2] = {c->col_row_id, c->col_seq};
  for (int k = 0; k < 2; k++) {
    struct ArrowArray *a = b->children[cols[k]];
    if (a->null_count == 0) continue;
    int64_t n = a->length;
    int64_t *vals = pm_aligned_alloc((size_t)n * 8 + 8);
    if (!vals) return PM_NOMEM(err);
    for (int64_t i = 0; i < n; i++) {
      if (pm_array_is_valid(a, i)) vals[i] = ((const int64_t *)a->buffers[1])[a->offset + i];
      else if (k == 0) vals[i] = (m->has_first_row_id ? m->first_row_id : 0) + pos[i];
      else vals[i] = m->max_sequence_number;
    }
    struct ArrowArray na;
    int rc = pm_array_init(&na, n, 2, 0, err);
    if (rc) {
      pm_aligned_free(vals);
      return rc;
    }
    pm_array_set_buffer(&na, 1, vals);
    pm_array_release(a);
    pm_array_move(&na, a);
  }
  return 0;
}

/* Partition columns a file does not hold (e.g. data-evolution files written
 * with only some columns) take the split's partition value, as Java fills
 * partition fields from the split. */
static int fill_partition(file_source *s, const pm_data_split *split, struct ArrowArray *b, pm_error *err) {
  read_ctx *c = s->c;
  for (int k = 0; k < c->n_part; k++) {
    int col = c->part_cols[k];
    if (s->map.source[col] >= 0) continue; /* read from the file */
    pm_binary_row row;
    PM_TRY(pm_binary_row_open_serialized(split->partition.data, split->partition.len, "split partition", &row, err));
    if (k >= row.arity) continue;
    pm_value v;
    PM_TRY(pm_binary_row_get(&row, k, c->schema->fields[col].type, &v, err));
    const pm_type *t = &c->layout.children[col];
    pm_builder *bld;
    PM_TRY(pm_builder_new(t, &bld, err));
    int rc = pm_builder_reserve(bld, b->length, err);
    for (int64_t i = 0; i < b->length && !rc; i++) {
      switch (v.kind) {
        case PM_V_NULL: rc = pm_builder_append_null(bld, err); break;
        case PM_V_BOOL: rc = pm_builder_append_bool(bld, (int)v.u.i64, err); break;
        case PM_V_INT:
          rc = t->id == PM_T_DATE64 ? pm_builder_append_int(bld, v.u.i64 * 86400000, err)
                                    : pm_builder_append_int(bld, v.u.i64, err);
          break;
        case PM_V_FLOAT:
        case PM_V_DOUBLE: rc = pm_builder_append_double(bld, v.u.f64, err); break;
        case PM_V_STRING:
        case PM_V_BINARY: rc = pm_builder_append_bytes(bld, v.u.bytes.data, v.u.bytes.len, err); break;
        case PM_V_DECIMAL: {
          uint8_t le[16];
          memcpy(le, &v.u.dec.lo, 8);
          memcpy(le + 8, &v.u.dec.hi, 8);
          rc = pm_builder_append_decimal128(bld, le, err);
          break;
        }
        case PM_V_TIMESTAMP: {
          int64_t ms = v.u.ts.millis, ns = v.u.ts.nanos; /* nanos of the millisecond */
          int64_t x = t->unit == PM_UNIT_S    ? floor_div_i64(ms, 1000)
                      : t->unit == PM_UNIT_MS ? ms
                      : t->unit == PM_UNIT_US ? ms * 1000 + ns / 1000
                                              : ms * 1000000 + ns;
          rc = pm_builder_append_int(bld, x, err);
          break;
        }
        default: rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "partition column of this type"); break;
      }
    }
    struct ArrowArray a;
    if (!rc) rc = pm_builder_finish(bld, &a, err);
    pm_builder_free(bld);
    if (rc) return rc;
    pm_array_release(b->children[col]);
    pm_array_move(&a, b->children[col]);
  }
  return 0;
}

static int file_source_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  file_source *s = ctx;
  memset(out, 0, sizeof *out);
  if (!s->fr) return 0;
  struct ArrowArray fb;
  int rc = pm_format_reader_next(s->fr, &fb, err);
  if (rc) return pm_error_prefix(err, "%s: ", s->path);
  if (!fb.release) return s->check_rows ? pm_data_file_check_rows(s->path, s->meta, s->rows_read, err) : 0;
  int64_t n = fb.length;
  s->rows_read += n;
  rc = pm_evo_apply(&s->map, &fb, out, err);
  if (rc) return rc;
  if (s->c->n_part && s->split && s->split->partition.len) {
    rc = fill_partition(s, s->split, out, err);
    if (rc) {
      pm_array_release(out);
      return rc;
    }
  }
  if (s->c->col_level >= 0) { /* constant: this file's level */
    struct ArrowArray lv;
    int32_t *v = pm_aligned_alloc((size_t)n * 4 + 4);
    rc = v ? pm_array_init(&lv, n, 2, 0, err) : PM_NOMEM(err);
    if (rc) {
      pm_aligned_free(v);
      pm_array_release(out);
      return rc;
    }
    for (int64_t i = 0; i < n; i++) v[i] = s->meta->level;
    pm_array_set_buffer(&lv, 1, v);
    pm_array_release(out->children[s->c->col_level]);
    pm_array_move(&lv, out->children[s->c->col_level]);
  }
  if (s->c->row_tracking) {
    int64_t np = 0;
    const int64_t *pos = pm_format_reader_positions(s->fr, &np);
    if (!pos || np != n)
      rc = pm_errorf(err, PAIMON_ERR_NOMEM, "%s: row positions of a batch of %lld rows unavailable", s->path,
                     (long long)n);
    if (!rc) rc = fill_row_tracking(s, out, pos, err);
    if (rc) pm_array_release(out);
    return rc;
  }
  return 0; /* positions are only needed for row tracking */
}

/* ======================================================================
 * Split readers
 * ====================================================================== */

typedef struct batch_source {
  void *ctx;
  int (*next)(void *ctx, struct ArrowArray *out, pm_error *err);
  void (*close)(void *ctx);
} batch_source;

/* --- raw: files one after another --- */

/* A chain of data files read one after another: a raw split, one sorted run
 * of a merge, or one column source of a data-evolution group. */
typedef struct run_source {
  read_ctx *c;
  const pm_data_split *split;
  int no_dv; /* data-evolution groups apply their DV after stitching */
  int push;  /* give the filter to the format readers as a pruning hint */
  size_t *files; /* indices into split->data_files, in read order */
  size_t n_files, next_file;
  file_source *cur;
} run_source;

static void run_source_close(void *ctx) {
  run_source *r = ctx;
  if (!r) return;
  file_source_close(r->cur);
  free(r->files);
  free(r);
}

static int run_source_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  run_source *r = ctx;
  memset(out, 0, sizeof *out);
  for (;;) {
    if (!r->cur) {
      if (r->next_file >= r->n_files) return 0;
      size_t fi = r->files[r->next_file++];
      const pm_deletion_file *dv = r->split->deletion_files && !r->no_dv ? &r->split->deletion_files[fi] : NULL;
      PM_TRY(file_source_open(r->c, r->split, &r->split->data_files[fi], dv, r->push, !r->no_dv, &r->cur, err));
    }
    PM_TRY(file_source_next(r->cur, out, err));
    if (out->release) return 0;
    file_source_close(r->cur);
    r->cur = NULL;
  }
}

static int raw_open(read_ctx *c, const pm_data_split *split, const size_t *files, size_t n, batch_source *out,
                    pm_error *err) {
  run_source *r = calloc(1, sizeof *r);
  if (!r) return PM_NOMEM(err);
  r->c = c;
  r->split = split;
  r->files = malloc((n + 1) * sizeof *r->files);
  if (!r->files) {
    free(r);
    return PM_NOMEM(err);
  }
  if (n) memcpy(r->files, files, n * sizeof *files);
  r->n_files = n;
  /* not with row tracking: computed _ROW_IDs need every file position */
  r->push = c->filter != NULL && !c->row_tracking && !c->no_pushdown;
  out->ctx = r;
  out->next = run_source_next;
  out->close = run_source_close;
  return 0;
}

/* --- merge: sections of sorted runs --- */

typedef struct key_bound {
  pm_value *min, *max; /* n_keys values each */
} key_bound;

static int key_values(read_ctx *c, const pm_bytes *b, pm_value *out, const char *what, pm_error *err) {
  pm_binary_row row;
  PM_TRY(pm_binary_row_open_serialized(b->data, b->len, what, &row, err));
  if (row.arity < c->n_keys)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: key row has arity %d, expected %d", what, (int)row.arity,
                     c->n_keys);
  for (int k = 0; k < c->n_keys; k++) PM_TRY(pm_binary_row_get(&row, k, c->key_types[k], &out[k], err));
  return 0;
}

static int key_values_cmp(const read_ctx *c, const pm_value *a, const pm_value *b) {
  for (int k = 0; k < c->n_keys; k++) {
    int na = a[k].kind == PM_V_NULL, nb = b[k].kind == PM_V_NULL;
    if (na || nb) {
      if (na != nb) return na ? -1 : 1;
      continue;
    }
    int r = pm_pred_value_compare(&a[k], &b[k]);
    if (r) return r;
  }
  return 0;
}


typedef struct section {
  size_t *files; /* sorted by (minKey, maxKey) */
  size_t n;
} section;

typedef struct merge_split_reader {
  read_ctx *c;
  const pm_data_split *split;
  section *sections;
  size_t n_sections, next_section;
  pm_value *mins, *maxs; /* per file n_keys values */
  pm_merge_reader *cur;
} merge_split_reader;

static void merge_split_close(void *ctx) {
  merge_split_reader *r = ctx;
  if (!r) return;
  pm_merge_close(r->cur);
  for (size_t i = 0; i < r->n_sections; i++) free(r->sections[i].files);
  free(r->sections);
  free(r->mins);
  free(r->maxs);
  free(r);
}

static int file_key_cmp(const void *ctx, size_t a, size_t b) {
  const merge_split_reader *r = ctx;
  int nk = r->c->n_keys;
  int c = key_values_cmp(r->c, &r->mins[a * (size_t)nk], &r->mins[b * (size_t)nk]);
  if (c) return c;
  c = key_values_cmp(r->c, &r->maxs[a * (size_t)nk], &r->maxs[b * (size_t)nk]);
  return c; /* ties keep file order: the sort is stable */
}

/* Greedy run assignment inside one section (SEMANTICS §5.2). */
static int open_section(merge_split_reader *r, section *sec, pm_error *err) {
  read_ctx *c = r->c;
  int nk = c->n_keys;
  size_t n = sec->n;
  /* runs: each a list of files; run_last = index of its last file */
  size_t *run_of = malloc((n + 1) * sizeof *run_of);
  size_t *run_last = malloc((n + 1) * sizeof *run_last);
  size_t *run_len = calloc(n + 1, sizeof *run_len);
  if (!run_of || !run_last || !run_len) {
    free(run_of);
    free(run_last);
    free(run_len);
    return PM_NOMEM(err);
  }
  size_t n_runs = 0;
  for (size_t i = 0; i < n; i++) {
    size_t f = sec->files[i];
    /* run with the smallest last maxKey */
    size_t best = (size_t)-1;
    for (size_t k = 0; k < n_runs; k++)
      if (best == (size_t)-1 ||
          key_values_cmp(c, &r->maxs[run_last[k] * (size_t)nk], &r->maxs[run_last[best] * (size_t)nk]) < 0)
        best = k;
    if (best != (size_t)-1 && key_values_cmp(c, &r->mins[f * (size_t)nk], &r->maxs[run_last[best] * (size_t)nk]) > 0) {
      run_of[i] = best;
    } else {
      best = n_runs++;
      run_of[i] = best;
    }
    run_last[best] = f;
    run_len[best]++;
  }
  pm_merge_source *sources = calloc(n_runs + 1, sizeof *sources);
  int rc = sources ? 0 : PM_NOMEM(err);
  size_t made = 0;
  for (size_t k = 0; k < n_runs && !rc; k++) {
    run_source *rs = calloc(1, sizeof *rs);
    if (rs) rs->files = malloc((run_len[k] + 1) * sizeof *rs->files);
    if (!rs || !rs->files) {
      free(rs);
      rc = PM_NOMEM(err);
      break;
    }
    rs->c = c;
    rs->split = r->split;
    for (size_t i = 0; i < n; i++)
      if (run_of[i] == k) rs->files[rs->n_files++] = sec->files[i];
    sources[k].ctx = rs;
    sources[k].next = run_source_next;
    sources[k].close = run_source_close;
    made++;
  }
  free(run_of);
  free(run_last);
  free(run_len);
  if (rc) {
    for (size_t k = 0; k < made; k++) run_source_close(sources[k].ctx);
    free(sources);
    return rc;
  }
  rc = pm_merge_open(&c->merge, sources, (int)n_runs, &r->cur, err);
  free(sources);
  return rc;
}

static int merge_split_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  merge_split_reader *r = ctx;
  memset(out, 0, sizeof *out);
  for (;;) {
    if (!r->cur) {
      if (r->next_section >= r->n_sections) return 0;
      PM_TRY(open_section(r, &r->sections[r->next_section++], err));
    }
    PM_TRY(pm_merge_next(r->cur, out, err));
    if (out->release) return 0;
    pm_merge_close(r->cur);
    r->cur = NULL;
  }
}

static int merge_open(read_ctx *c, const pm_data_split *split, batch_source *out, pm_error *err) {
  merge_split_reader *r = calloc(1, sizeof *r);
  if (!r) return PM_NOMEM(err);
  r->c = c;
  r->split = split;
  size_t n = split->n_data_files;
  int nk = c->n_keys;
  r->mins = calloc(n * (size_t)nk + 1, sizeof *r->mins);
  r->maxs = calloc(n * (size_t)nk + 1, sizeof *r->maxs);
  size_t *order = malloc((n + 1) * sizeof *order);
  int rc = (r->mins && r->maxs && order) ? 0 : PM_NOMEM(err);
  for (size_t i = 0; i < n && !rc; i++) {
    order[i] = i;
    rc = key_values(c, &split->data_files[i].min_key, &r->mins[i * (size_t)nk], split->data_files[i].file_name, err);
    if (!rc)
      rc = key_values(c, &split->data_files[i].max_key, &r->maxs[i * (size_t)nk], split->data_files[i].file_name,
                      err);
  }
  if (!rc) {
    if (pm_sort_indices(order, n, file_key_cmp, r)) rc = PM_NOMEM(err);
    /* sections: a new one starts when minKey > bound (max maxKey so far) */
    r->sections = calloc(n + 1, sizeof *r->sections);
    if (!r->sections) rc = PM_NOMEM(err);
    size_t start = 0;
    const pm_value *bound = NULL;
    for (size_t i = 0; i <= n && !rc; i++) {
      int new_section = i == n || (bound && key_values_cmp(c, &r->mins[order[i] * (size_t)nk], bound) > 0);
      if (new_section && i > start) {
        section *s = &r->sections[r->n_sections++];
        s->files = malloc((i - start) * sizeof *s->files);
        if (!s->files) {
          rc = PM_NOMEM(err);
          break;
        }
        memcpy(s->files, order + start, (i - start) * sizeof *order);
        s->n = i - start;
        start = i;
        bound = NULL;
      }
      if (i < n) {
        const pm_value *mx = &r->maxs[order[i] * (size_t)nk];
        if (!bound || key_values_cmp(c, mx, bound) > 0) bound = mx;
      }
    }
  }
  free(order);
  if (rc) {
    merge_split_close(r);
    return rc;
  }
  out->ctx = r;
  out->next = merge_split_next;
  out->close = merge_split_close;
  return 0;
}

/* --- data evolution: groups of files covering the same row-id range --- */

typedef struct de_reader {
  read_ctx *c;
  const pm_data_split *split;
  size_t *order; /* files by first_row_id */
  size_t n;
  size_t next; /* next index into order */
  /* current group */
  run_source **srcs;      /* chains of files (one data file, or one blob column's files) */
  size_t n_srcs;
  int *col_src;            /* per layout column: index into srcs, or -1 */
  struct ArrowArray *bufs; /* per source current batch */
  int64_t *cur;            /* per source cursor within its batch */
  pm_deletion_vector *group_dv; /* multi-file group: the anchor's DV, positions relative to the group */
  int64_t group_pos;            /* group position of the next stitched row */
  int group_select;             /* multi-file group: apply the split's row selection after stitching */
  int64_t group_lo;             /* first row id of the group */
  size_t sel_next;              /* first selection range that may still hold rows of the group */
} de_reader;

static void de_close_group(de_reader *r) {
  for (size_t i = 0; i < r->n_srcs; i++) {
    run_source_close(r->srcs[i]);
    pm_array_release(&r->bufs[i]);
  }
  free(r->srcs);
  free(r->bufs);
  free(r->cur);
  free(r->col_src);
  pm_dv_free(r->group_dv);
  r->group_dv = NULL;
  r->group_pos = 0;
  r->srcs = NULL;
  r->bufs = NULL;
  r->cur = NULL;
  r->col_src = NULL;
  r->n_srcs = 0;
}

static void de_close(void *ctx) {
  de_reader *r = ctx;
  if (!r) return;
  de_close_group(r);
  free(r->order);
  free(r);
}

static int is_blob_file(const char *name) {
  const pm_format *f = pm_format_for_file(name);
  return f && !strcmp(f->name, "blob");
}

static int de_order_cmp(const void *ctx, size_t ia, size_t ib) {
  const pm_data_split *split = ctx;
  const pm_data_file_meta *a = &split->data_files[ia];
  const pm_data_file_meta *b = &split->data_files[ib];
  int64_t fa = a->has_first_row_id ? a->first_row_id : -1, fb = b->has_first_row_id ? b->first_row_id : -1;
  if (fa != fb) return fa < fb ? -1 : 1;
  int ba = is_blob_file(a->file_name), bb = is_blob_file(b->file_name);
  if (ba != bb) return ba - bb;
  if (a->max_sequence_number != b->max_sequence_number) return a->max_sequence_number > b->max_sequence_number ? -1 : 1;
  return 0;
}

static int de_open_group(de_reader *r, pm_error *err) {
  read_ctx *c = r->c;
  const pm_data_split *sp = r->split;
  size_t g0 = r->next;
  const pm_data_file_meta *first = &sp->data_files[r->order[g0]];
  int64_t lo = first->has_first_row_id ? first->first_row_id : 0;
  int64_t hi = lo + first->row_count;
  size_t g1 = g0 + 1;
  while (g1 < r->n) {
    const pm_data_file_meta *m = &sp->data_files[r->order[g1]];
    int64_t f = m->has_first_row_id ? m->first_row_id : 0;
    if (!first->has_first_row_id || f >= hi) break;
    if (f + m->row_count > hi) hi = f + m->row_count;
    g1++;
  }
  r->next = g1;
  size_t n = g1 - g0;
  r->group_select = n > 1 && sp->has_row_ranges;
  r->group_lo = lo;
  r->sel_next = 0;
  r->srcs = calloc(n + 1, sizeof *r->srcs);
  r->bufs = calloc(n + 1, sizeof *r->bufs);
  r->cur = calloc(n + 1, sizeof *r->cur);
  r->col_src = malloc(((size_t)c->n_cols + 1) * sizeof *r->col_src);
  if (!r->srcs || !r->bufs || !r->cur || !r->col_src) return PM_NOMEM(err);
  for (int k = 0; k < c->n_cols; k++) r->col_src[k] = -1;
  /* choose, per column, the first data file (newest first) that has it; blob
   * columns come from the chain of the group's blob files for that column */
  size_t used = 0;
  int rc = 0;
  char *taken = calloc(n + 1, 1);
  if (!taken) return PM_NOMEM(err);
  for (size_t i = 0; i < n && !rc; i++) {
    size_t fi = r->order[g0 + i];
    const pm_data_file_meta *m = &sp->data_files[fi];
    int blob = is_blob_file(m->file_name);
    if (taken[i]) continue;
    if (!blob && n > 1 && m->row_count != first->row_count) {
      rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: data-evolution group with data files of different row counts",
                     m->file_name);
      break;
    }
    const pm_deletion_file *dv = sp->deletion_files ? &sp->deletion_files[fi] : NULL;
    if (dv && dv->path && n > 1) {
      /* the group's DV (attached to its anchor file): applied after stitching */
      if (r->group_dv) {
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: second deletion vector in one data-evolution group", m->file_name);
        break;
      }
      char *dvpath = NULL;
      rc = pm_table_resolve_path(c->t, dv->path, &dvpath, err);
      if (!rc) rc = pm_dv_read(c->t->fs, dvpath, dv->offset, dv->length, &r->group_dv, err);
      free(dvpath);
      if (rc) break;
    }
    const pm_table_schema *fs = NULL;
    rc = pm_table_schema_by_id(c->t, m->schema_id, &fs, err);
    if (rc) break;
    int contributes = 0;
    for (int k = 0; k < c->n_cols; k++)
      if (r->col_src[k] < 0 && !(k == c->col_row_id || k == c->col_seq) &&
          file_has_field(c, m, fs, c->evo_fields[k].id)) {
        r->col_src[k] = (int)used;
        contributes = 1;
      }
    if (i == 0 && !blob) { /* row tracking columns come from the newest data file */
      if (c->col_row_id >= 0) r->col_src[c->col_row_id] = (int)used;
      if (c->col_seq >= 0) r->col_src[c->col_seq] = (int)used;
      contributes = 1;
    }
    if (!contributes) continue;
    run_source *rs = calloc(1, sizeof *rs);
    if (rs) rs->files = malloc((n + 1) * sizeof *rs->files);
    if (!rs || !rs->files) {
      free(rs);
      rc = PM_NOMEM(err);
      break;
    }
    rs->c = c;
    rs->split = sp;
    rs->no_dv = n > 1;
    rs->files[rs->n_files++] = fi;
    taken[i] = 1;
    if (blob) { /* later blob files of the same column continue this one */
      const char *col = !m->write_cols.is_null && m->write_cols.n > 0 ? m->write_cols.items[0] : "";
      for (size_t j = i + 1; j < n; j++) {
        const pm_data_file_meta *o = &sp->data_files[r->order[g0 + j]];
        if (!taken[j] && is_blob_file(o->file_name) && !o->write_cols.is_null && o->write_cols.n > 0 &&
            !strcmp(o->write_cols.items[0], col)) {
          rs->files[rs->n_files++] = r->order[g0 + j];
          taken[j] = 1;
        }
      }
    }
    r->srcs[used++] = rs;
    r->n_srcs = used;
  }
  free(taken);
  for (int k = 0; !rc && used > 0 && k < c->n_part; k++)
    if (r->col_src[c->part_cols[k]] < 0) r->col_src[c->part_cols[k]] = 0;
  return rc;
}

/* Whether row id `id` is in the split's selection (ids ascend across calls within a group). */
static int de_selected(de_reader *r, int64_t id) {
  const pm_data_split *sp = r->split;
  while (r->sel_next < sp->n_row_ranges && sp->row_ranges[2 * r->sel_next + 1] < id) r->sel_next++;
  return r->sel_next < sp->n_row_ranges && sp->row_ranges[2 * r->sel_next] <= id;
}

static int de_keep(de_reader *r, int64_t pos) {
  if (r->group_dv && pm_dv_is_deleted(r->group_dv, pos)) return 0;
  return !r->group_select || de_selected(r, r->group_lo + pos);
}

/* Drops the rows of a stitched batch that the group's DV deletes or the split's selection leaves out. */
static int de_apply_group_dv(de_reader *r, struct ArrowArray *b, pm_error *err) {
  int64_t n = b->length, base = r->group_pos;
  r->group_pos += n;
  if (!r->group_dv && !r->group_select) return 0;
  size_t sel0 = r->sel_next;
  int64_t keep = 0;
  for (int64_t i = 0; i < n; i++) keep += de_keep(r, base + i);
  if (keep == n) return 0;
  r->sel_next = sel0;
  read_ctx *c = r->c;
  int64_t *rows = malloc((size_t)keep * sizeof *rows + 8);
  int32_t *zeros = calloc((size_t)keep + 1, sizeof *zeros);
  struct ArrowArray nb;
  int rc = rows && zeros ? pm_array_init(&nb, keep, 1, c->n_cols, err) : PM_NOMEM(err);
  if (!rc) {
    int64_t j = 0;
    for (int64_t i = 0; i < n; i++)
      if (de_keep(r, base + i)) rows[j++] = i;
    for (int col = 0; col < c->n_cols && !rc; col++) {
      struct ArrowArray *src = b->children[col];
      rc = pm_gather(&c->layout.children[col], &src, zeros, rows, keep, nb.children[col], err);
    }
    if (rc) pm_array_release(&nb);
  }
  free(rows);
  free(zeros);
  pm_array_release(b);
  if (rc) return rc;
  pm_array_move(&nb, b);
  return 0;
}

static int de_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  de_reader *r = ctx;
  read_ctx *c = r->c;
  memset(out, 0, sizeof *out);
  for (;;) {
    if (!r->srcs) {
      if (r->next >= r->n) return 0;
      int rc = de_open_group(r, err);
      if (rc) {
        de_close_group(r);
        return rc;
      }
    }
    /* make sure every source has rows available */
    int ended = 0;
    int64_t avail = INT64_MAX;
    for (size_t i = 0; i < r->n_srcs; i++) {
      if (!r->bufs[i].release || r->cur[i] >= r->bufs[i].length) {
        pm_array_release(&r->bufs[i]);
        r->cur[i] = 0;
        PM_TRY(run_source_next(r->srcs[i], &r->bufs[i], err));
        if (!r->bufs[i].release) {
          ended = 1;
          continue;
        }
      }
      int64_t a = r->bufs[i].length - r->cur[i];
      if (a < avail) avail = a;
    }
    if (ended) {
      de_close_group(r);
      continue;
    }
    if (r->n_srcs == 1) { /* single file: pass the batch through */
      if (r->cur[0] == 0) {
        pm_array_move(&r->bufs[0], out);
        return de_apply_group_dv(r, out, err);
      }
    }
    int64_t *rows = malloc((size_t)avail * sizeof *rows + 8);
    int32_t *srcidx = malloc((size_t)avail * sizeof *srcidx + 8);
    int rc = (rows && srcidx) ? 0 : PM_NOMEM(err);
    if (!rc) rc = pm_array_init(out, avail, 1, c->n_cols, err);
    for (int k = 0; k < c->n_cols && !rc; k++) {
      int s = r->col_src[k];
      struct ArrowArray *child = out->children[k];
      if (s < 0) {
        rc = pm_make_null_array(&c->layout.children[k], avail, child, err);
        continue;
      }
      for (int64_t i = 0; i < avail; i++) {
        rows[i] = r->cur[s] + i;
        srcidx[i] = 0;
      }
      struct ArrowArray *src = r->bufs[s].children[k];
      rc = pm_gather(&c->layout.children[k], &src, srcidx, rows, avail, child, err);
    }
    free(rows);
    free(srcidx);
    if (rc) {
      pm_array_release(out);
      return rc;
    }
    for (size_t i = 0; i < r->n_srcs; i++) r->cur[i] += avail;
    return de_apply_group_dv(r, out, err);
  }
}

static int de_open(read_ctx *c, const pm_data_split *split, batch_source *out, pm_error *err) {
  de_reader *r = calloc(1, sizeof *r);
  if (!r) return PM_NOMEM(err);
  r->c = c;
  r->split = split;
  r->n = split->n_data_files;
  r->order = malloc((r->n + 1) * sizeof *r->order);
  if (!r->order) {
    free(r);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < r->n; i++) r->order[i] = i;
  if (pm_sort_indices(r->order, r->n, de_order_cmp, split)) {
    free(r->order);
    free(r);
    return PM_NOMEM(err);
  }
  out->ctx = r;
  out->next = de_next;
  out->close = de_close;
  return 0;
}

/* Chooses how to read one split. */
static int split_open(read_ctx *c, const pm_data_split *split, batch_source *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  size_t n = split->n_data_files;
  if (n == 0) return raw_open(c, split, NULL, 0, out, err);
  if (c->has_pk && (split->is_streaming || split->bucket == -2)) {
    /* streaming and postpone-bucket splits: no merge, every record in file
     * order; physical retractions stay separate rows (SEMANTICS 4.7, and the
     * pypaimon incremental-read contract) */
    size_t *files = malloc((n + 1) * sizeof *files);
    if (!files) return PM_NOMEM(err);
    for (size_t i = 0; i < n; i++) files[i] = i;
    int rc = raw_open(c, split, files, n, out, err);
    free(files);
    return rc;
  }
  if (c->has_pk) {
    int raw = split->raw_convertible && !split->is_streaming && !c->with_row_kind;
    for (size_t i = 0; i < n && raw; i++) raw = split->data_files[i].has_delete_row_count;
    if (!raw) return merge_open(c, split, out, err);
  } else if (c->data_evolution) {
    return de_open(c, split, out, err);
  }
  size_t *files = malloc((n + 1) * sizeof *files);
  if (!files) return PM_NOMEM(err);
  for (size_t i = 0; i < n; i++) files[i] = i;
  int rc = raw_open(c, split, files, n, out, err);
  free(files);
  return rc;
}

/* --- incremental diff: before and after of a bucket, each merged, then compared per key --- */

/* Deep equality of a[i] and b[j] (logical indices, same type). Java compares
 * the serialized value rows, so a changed float bit pattern is a change. */
static int values_equal(const pm_type *t, const struct ArrowArray *a, int64_t i, const struct ArrowArray *b,
                        int64_t j) {
  int va = pm_array_is_valid(a, i), vb = pm_array_is_valid(b, j);
  if (va != vb) return 0;
  if (!va) return 1;
  int64_t x = a->offset + i, y = b->offset + j;
  switch (t->id) {
    case PM_T_STRUCT:
      for (int64_t k = 0; k < t->n_children; k++)
        if (!values_equal(&t->children[k], a->children[k], x, b->children[k], y)) return 0;
      return 1;
    case PM_T_LIST:
    case PM_T_MAP:
    case PM_T_LARGE_LIST: {
      int64_t a0, a1, b0, b1;
      if (t->id == PM_T_LARGE_LIST) {
        const int64_t *oa = a->buffers[1], *ob = b->buffers[1];
        a0 = oa[x], a1 = oa[x + 1], b0 = ob[y], b1 = ob[y + 1];
      } else {
        const int32_t *oa = a->buffers[1], *ob = b->buffers[1];
        a0 = oa[x], a1 = oa[x + 1], b0 = ob[y], b1 = ob[y + 1];
      }
      if (a1 - a0 != b1 - b0) return 0;
      for (int64_t k = 0; k < a1 - a0; k++)
        if (!values_equal(&t->children[0], a->children[0], a0 + k, b->children[0], b0 + k)) return 0;
      return 1;
    }
    case PM_T_FIXED_LIST: {
      int64_t w = t->width;
      for (int64_t k = 0; k < w; k++)
        if (!values_equal(&t->children[0], a->children[0], x * w + k, b->children[0], y * w + k)) return 0;
      return 1;
    }
    case PM_T_FLOAT: {
      float p = ((const float *)a->buffers[1])[x], q = ((const float *)b->buffers[1])[y];
      return memcmp(&p, &q, sizeof p) == 0;
    }
    case PM_T_DOUBLE: {
      double p = ((const double *)a->buffers[1])[x], q = ((const double *)b->buffers[1])[y];
      return memcmp(&p, &q, sizeof p) == 0;
    }
    default: return pm_compare_values(t, a, i, b, j) == 0;
  }
}

enum { DIFF_BEFORE = 0, DIFF_AFTER = 1 };

typedef struct diff_reader {
  read_ctx *c;
  batch_source side[2];    /* merged before / after (ctx NULL when the side has no files) */
  struct ArrowArray cur[2]; /* current batch per side (released when none) */
  int64_t pos[2];
  int done[2];
  int used[2];             /* pending output rows refer to cur[side] */
  int32_t *src;            /* pending output: side and row of each record */
  int64_t *rows;
  uint8_t *to_delete;      /* pending output: emit as -D (a before-only key) */
  int64_t n, cap;
} diff_reader;

static void diff_close(void *ctx) {
  diff_reader *r = ctx;
  if (!r) return;
  for (int k = 0; k < 2; k++) {
    if (r->side[k].ctx) r->side[k].close(r->side[k].ctx);
    if (r->cur[k].release) pm_array_release(&r->cur[k]);
  }
  free(r->src);
  free(r->rows);
  free(r->to_delete);
  free(r);
}

/* Builds the pending records into one layout batch. */
static int diff_flush(diff_reader *r, struct ArrowArray *out, pm_error *err) {
  read_ctx *c = r->c;
  memset(out, 0, sizeof *out);
  int rc = pm_array_init(out, r->n, 1, c->n_cols, err);
  for (int col = 0; col < c->n_cols && !rc; col++) {
    /* a side without a current batch is never referenced by the pending records */
    struct ArrowArray *srcs[2] = {r->cur[0].release ? r->cur[0].children[col] : NULL,
                                  r->cur[1].release ? r->cur[1].children[col] : NULL};
    rc = pm_gather(&c->layout.children[col], srcs, r->src, r->rows, r->n, out->children[col], err);
  }
  if (!rc && c->col_kind >= 0) {
    struct ArrowArray *k = out->children[c->col_kind];
    int8_t *kinds = (int8_t *)k->buffers[1];
    for (int64_t i = 0; i < r->n; i++)
      if (r->to_delete[i]) kinds[k->offset + i] = PM_ROWKIND_DELETE;
  }
  if (rc && out->release) pm_array_release(out);
  r->n = 0;
  r->used[0] = r->used[1] = 0;
  return rc;
}

static int diff_push(diff_reader *r, int side, int64_t row, int to_delete, pm_error *err) {
  if (r->n == r->cap) {
    int64_t nc = r->cap ? r->cap * 2 : 1024;
    int32_t *s = realloc(r->src, (size_t)nc * sizeof *s);
    if (s) r->src = s;
    int64_t *w = realloc(r->rows, (size_t)nc * sizeof *w);
    if (w) r->rows = w;
    uint8_t *d = realloc(r->to_delete, (size_t)nc);
    if (d) r->to_delete = d;
    if (!s || !w || !d) return PM_NOMEM(err);
    r->cap = nc;
  }
  r->src[r->n] = side;
  r->rows[r->n] = row;
  r->to_delete[r->n] = (uint8_t)to_delete;
  r->n++;
  r->used[side] = 1;
  return 0;
}

static int diff_kind(const diff_reader *r, int side, int64_t row) {
  const struct ArrowArray *k = r->cur[side].children[r->c->col_kind];
  return ((const int8_t *)k->buffers[1])[k->offset + row];
}

/* Java IncrementalDiffSplitRead's DiffMerger; keep_delete = with_row_kind. */
static int diff_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  diff_reader *r = ctx;
  read_ctx *c = r->c;
  int keep_delete = c->with_row_kind;
  memset(out, 0, sizeof *out);
  for (;;) {
    /* make sure each unfinished side has a current row; a batch still referenced is flushed first */
    for (int k = 0; k < 2; k++) {
      while (!r->done[k] && (!r->cur[k].release || r->pos[k] >= r->cur[k].length)) {
        if (r->used[k]) return diff_flush(r, out, err);
        if (r->cur[k].release) pm_array_release(&r->cur[k]);
        r->pos[k] = 0;
        if (!r->side[k].ctx) {
          r->done[k] = 1;
          break;
        }
        PM_TRY(r->side[k].next(r->side[k].ctx, &r->cur[k], err));
        if (!r->cur[k].release) r->done[k] = 1;
      }
    }
    if (r->done[0] && r->done[1]) return r->n ? diff_flush(r, out, err) : 0;
    if (r->n >= c->batch_rows) return diff_flush(r, out, err);
    int cmp;
    if (r->done[DIFF_BEFORE]) cmp = 1;
    else if (r->done[DIFF_AFTER]) cmp = -1;
    else {
      cmp = 0;
      for (int k = 0; k < c->n_keys && !cmp; k++) {
        int col = c->key_cols[k];
        cmp = pm_compare_values(&c->layout.children[col], r->cur[0].children[col], r->pos[0], r->cur[1].children[col],
                                r->pos[1]);
      }
    }
    int64_t pb = r->pos[DIFF_BEFORE], pa = r->pos[DIFF_AFTER];
    if (cmp < 0) { /* key only before: gone */
      if (keep_delete && !pm_rowkind_is_retract(diff_kind(r, DIFF_BEFORE, pb)))
        PM_TRY(diff_push(r, DIFF_BEFORE, pb, 1, err));
      r->pos[DIFF_BEFORE]++;
    } else if (cmp > 0) { /* key only after: new */
      if (keep_delete || !pm_rowkind_is_retract(diff_kind(r, DIFF_AFTER, pa)))
        PM_TRY(diff_push(r, DIFF_AFTER, pa, 0, err));
      r->pos[DIFF_AFTER]++;
    } else {
      int add_b = !pm_rowkind_is_retract(diff_kind(r, DIFF_BEFORE, pb));
      int add_a = !pm_rowkind_is_retract(diff_kind(r, DIFF_AFTER, pa));
      int same = add_a == add_b;
      for (size_t f = 0; f < c->nf && same; f++)
        same = values_equal(&c->layout.children[f], r->cur[0].children[f], pb, r->cur[1].children[f], pa);
      if (!same && (keep_delete || add_a)) PM_TRY(diff_push(r, DIFF_AFTER, pa, 0, err));
      r->pos[DIFF_BEFORE]++;
      r->pos[DIFF_AFTER]++;
    }
  }
}

/* A streaming IncrementalSplit (the changes of an OVERWRITE, Java's IncrementalChangelogReadProvider):
 * the before files merged with every row turned into a -D (ReverseReader), then the after files merged. */
typedef struct changes_reader {
  read_ctx *c;
  batch_source side[2];
  int phase;
} changes_reader;

static void changes_close(void *ctx) {
  changes_reader *r = ctx;
  if (!r) return;
  for (int k = 0; k < 2; k++)
    if (r->side[k].ctx) r->side[k].close(r->side[k].ctx);
  free(r);
}

static int changes_next(void *ctx, struct ArrowArray *out, pm_error *err) {
  changes_reader *r = ctx;
  memset(out, 0, sizeof *out);
  while (r->phase < 2) {
    batch_source *src = &r->side[r->phase];
    if (!src->ctx) {
      r->phase++;
      continue;
    }
    PM_TRY(src->next(src->ctx, out, err));
    if (!out->release) {
      r->phase++;
      continue;
    }
    if (r->phase == DIFF_BEFORE) {
      struct ArrowArray *k = out->children[r->c->col_kind];
      int8_t *kinds = (int8_t *)k->buffers[1];
      for (int64_t i = 0; i < out->length; i++) {
        if (pm_rowkind_is_retract(kinds[k->offset + i])) {
          pm_array_release(out);
          return pm_errorf(err, PAIMON_ERR_CORRUPT,
                           "%s: the removed files of an overwrite read a retract record (a reversed read needs "
                           "+I / +U records)",
                           r->c->t->root);
        }
        kinds[k->offset + i] = PM_ROWKIND_DELETE;
      }
    }
    return 0;
  }
  return 0;
}

/* Reads one IncrementalSplit given as its before / after halves. Append
 * tables read the after files only (Java RawFileSplitRead ignores before
 * files); PK tables merge both sides and compare them (SEMANTICS §5.4). */
static int diff_open(read_ctx *c, const pm_data_split *before, const pm_data_split *after, batch_source *out,
                     pm_error *err) {
  memset(out, 0, sizeof *out);
  if (!c->has_pk) return split_open(c, after, out, err);
  if (before->is_streaming) {
    changes_reader *q = calloc(1, sizeof *q);
    if (!q) return PM_NOMEM(err);
    q->c = c;
    int rc = before->n_data_files ? merge_open(c, before, &q->side[DIFF_BEFORE], err) : 0;
    if (!rc && after->n_data_files) rc = merge_open(c, after, &q->side[DIFF_AFTER], err);
    if (rc) {
      changes_close(q);
      return rc;
    }
    out->ctx = q;
    out->next = changes_next;
    out->close = changes_close;
    return 0;
  }
  diff_reader *r = calloc(1, sizeof *r);
  if (!r) return PM_NOMEM(err);
  r->c = c;
  int rc = 0;
  if (before->n_data_files) rc = merge_open(c, before, &r->side[DIFF_BEFORE], err);
  if (!rc && after->n_data_files) rc = merge_open(c, after, &r->side[DIFF_AFTER], err);
  if (rc) {
    diff_close(r);
    return rc;
  }
  out->ctx = r;
  out->next = diff_next;
  out->close = diff_close;
  return 0;
}

/* ======================================================================
 * Stream: splits -> filter -> projection -> limit
 * ====================================================================== */

typedef struct prefetch prefetch;

typedef struct read_stream {
  read_ctx *c;
  pm_data_split *const *splits;
  pm_data_split **owned_splits;
  /* incremental diff reads: units are (before, after) pairs built from the
   * IncrementalSplits (owned; their file lists are borrowed) */
  pm_data_split **diff_pairs;
  size_t n_splits;
  size_t next_split;
  batch_source cur;
  int64_t emitted;
  pm_error err;
  int failed;
  prefetch *pf;
} read_stream;

/* Filters, projects and builds the output batch. Consumes `b`. */
static int finish_batch(read_ctx *c, struct ArrowArray *b, struct ArrowArray *out, int64_t max_rows, pm_error *err) {
  memset(out, 0, sizeof *out);
  int64_t n = b->length;
  int64_t *sel = NULL;
  int64_t n_sel = n;
  if (c->filter) {
    size_t nb = (size_t)(n + 8) / 8;
    uint8_t *bits = calloc(nb, 1);
    sel = malloc((size_t)n * sizeof *sel + 8);
    if (!bits || !sel) {
      free(bits);
      free(sel);
      pm_array_release(b);
      return PM_NOMEM(err);
    }
    int rc = pm_pred_eval_batch(c->filter, &c->layout_schema, b, c->col_of_field, c->nf, bits, err);
    if (rc) {
      free(bits);
      free(sel);
      pm_array_release(b);
      return rc;
    }
    n_sel = 0;
    for (int64_t i = 0; i < n; i++)
      if (pm_bit_get(bits, i)) sel[n_sel++] = i;
    free(bits);
  }
  if (max_rows >= 0 && n_sel > max_rows) {
    if (!sel) {
      sel = malloc((size_t)max_rows * sizeof *sel + 8);
      if (!sel) {
        pm_array_release(b);
        return PM_NOMEM(err);
      }
      for (int64_t i = 0; i < max_rows; i++) sel[i] = i;
    }
    n_sel = max_rows;
  }
  int rc = pm_array_init(out, n_sel, 1, c->n_out, err);
  int32_t *zeros = NULL;
  if (!rc && sel) {
    zeros = calloc((size_t)n_sel + 1, sizeof *zeros);
    if (!zeros) rc = PM_NOMEM(err);
  }
  for (int i = 0; i < c->n_out && !rc; i++) {
    struct ArrowArray *dst = out->children[i];
    if (c->out[i].kind == OUT_ROW_KIND) {
      /* utf8 "+I"/"-U"/"+U"/"-D" from the kind column (PK) or "+I" */
      int32_t *offs = pm_aligned_alloc(((size_t)n_sel + 1) * 4);
      uint8_t *data = pm_aligned_alloc((size_t)n_sel * 2 + 1);
      if (!offs || !data) {
        pm_aligned_free(offs);
        pm_aligned_free(data);
        rc = PM_NOMEM(err);
        break;
      }
      offs[0] = 0;
      const struct ArrowArray *k = c->col_kind >= 0 ? b->children[c->col_kind] : NULL;
      for (int64_t r = 0; r < n_sel; r++) {
        int64_t row = sel ? sel[r] : r;
        int kind = k ? ((const int8_t *)k->buffers[1])[k->offset + row] : 0;
        const char *s = pm_rowkind_name(kind);
        if (!s) s = "+I";
        memcpy(data + 2 * r, s, 2);
        offs[r + 1] = (int32_t)(2 * (r + 1));
      }
      rc = pm_array_init(dst, n_sel, 3, 0, err);
      if (rc) {
        pm_aligned_free(offs);
        pm_aligned_free(data);
        break;
      }
      pm_array_set_buffer(dst, 1, offs);
      pm_array_set_buffer(dst, 2, data);
      continue;
    }
    int col = c->out[i].col;
    struct ArrowArray *src = b->children[col];
    if (c->out[i].depth > 0) {
      /* struct member: child row = parent offset + parent row; null where an ancestor is null */
      int64_t *rows = malloc((size_t)n_sel * sizeof *rows + 8);
      int32_t *srcs = malloc((size_t)n_sel * sizeof *srcs + 8);
      if (!rows || !srcs) rc = PM_NOMEM(err);
      for (int64_t r = 0; !rc && r < n_sel; r++) {
        rows[r] = sel ? sel[r] : r;
        srcs[r] = 0;
      }
      struct ArrowArray *node = src;
      for (int d = 0; !rc && d < c->out[i].depth; d++) {
        for (int64_t r = 0; r < n_sel; r++) {
          if (srcs[r] >= 0 && !pm_array_is_valid(node, rows[r])) srcs[r] = -1;
          rows[r] += node->offset;
        }
        node = node->children[c->out[i].path[d]];
      }
      if (!rc) rc = pm_gather(c->out[i].type, &node, srcs, rows, n_sel, dst, err);
      free(rows);
      free(srcs);
      continue;
    }
    int used_later = 0;
    for (int j = i + 1; j < c->n_out; j++) used_later |= c->out[j].kind == OUT_COL && c->out[j].col == col;
    for (int j = 0; j < c->n_out; j++) used_later |= j != i && c->out[j].depth > 0 && c->out[j].col == col;
    if (!sel && !used_later && src->release) {
      pm_array_move(src, dst);
    } else if (!sel) {
      int64_t *rows = malloc((size_t)n * sizeof *rows + 8);
      int32_t *z = calloc((size_t)n + 1, sizeof *z);
      if (!rows || !z) rc = PM_NOMEM(err);
      for (int64_t r = 0; r < n && !rc; r++) rows[r] = r;
      if (!rc) rc = pm_gather(&c->layout.children[col], &src, z, rows, n, dst, err);
      free(rows);
      free(z);
    } else {
      rc = pm_gather(&c->layout.children[col], &src, zeros, sel, n_sel, dst, err);
    }
  }
  free(zeros);
  free(sel);
  pm_array_release(b);
  if (rc) pm_array_release(out);
  return rc;
}

static void free_pairs(pm_data_split **pairs, size_t n) {
  if (!pairs) return;
  for (size_t i = 0; i < 2 * n; i++) pm_data_split_free(pairs[i]);
  free(pairs);
}

/* Opens read unit i: a DataSplit, or the two halves of an IncrementalSplit. */
static int unit_open(read_stream *s, size_t i, batch_source *out, pm_error *err) {
  if (s->diff_pairs) return diff_open(s->c, s->diff_pairs[2 * i], s->diff_pairs[2 * i + 1], out, err);
  return split_open(s->c, s->splits[i], out, err);
}

/* Next raw (unprojected) batch of split i's source. */
static int source_next_batch(read_stream *s, batch_source *src, struct ArrowArray *out, pm_error *err) {
  return src->next(src->ctx, out, err);
}

/* ---- parallel prefetch: worker threads read whole splits ahead ---- */

#define PF_QUEUE 4

typedef struct pf_slot {
  struct ArrowArray batches[PF_QUEUE];
  int head, count;
  int done;   /* producer finished this split */
  int rc;
  pm_error *err; /* allocated only on failure (slots exist per split: keep them small) */
} pf_slot;

struct prefetch {
  read_stream *s;
  pm_task **tasks; /* the workers, on the executor's pool */
  int n_threads;
  pthread_mutex_t mu;
  pthread_cond_t cv;
  size_t next_to_claim;
  size_t consumer_split;
  pf_slot *slots; /* one per split */
  int stop;
};

static void pf_worker(void *arg) {
  prefetch *p = arg;
  read_stream *s = p->s;
  for (;;) {
    pthread_mutex_lock(&p->mu);
    /* read ahead at most n_threads splits beyond the consumer */
    while (!p->stop && p->next_to_claim < s->n_splits &&
           p->next_to_claim >= p->consumer_split + (size_t)p->n_threads)
      pthread_cond_wait(&p->cv, &p->mu);
    if (p->stop || p->next_to_claim >= s->n_splits) {
      pthread_mutex_unlock(&p->mu);
      return;
    }
    size_t i = p->next_to_claim++;
    pthread_mutex_unlock(&p->mu);
    pf_slot *slot = &p->slots[i];
    batch_source src;
    pm_error err;
    pm_error_clear(&err);
    int rc = unit_open(s, i, &src, &err);
    while (!rc) {
      struct ArrowArray b;
      rc = src.next(src.ctx, &b, &err);
      if (rc || !b.release) break;
      pthread_mutex_lock(&p->mu);
      while (!p->stop && slot->count == PF_QUEUE) pthread_cond_wait(&p->cv, &p->mu);
      if (p->stop) {
        pthread_mutex_unlock(&p->mu);
        pm_array_release(&b);
        break;
      }
      pm_array_move(&b, &slot->batches[(slot->head + slot->count) % PF_QUEUE]);
      slot->count++;
      pthread_cond_broadcast(&p->cv);
      pthread_mutex_unlock(&p->mu);
    }
    if (src.close) src.close(src.ctx);
    pthread_mutex_lock(&p->mu);
    slot->done = 1;
    slot->rc = rc;
    if (rc) {
      slot->err = malloc(sizeof *slot->err);
      if (slot->err) *slot->err = err;
    }
    pthread_cond_broadcast(&p->cv);
    pthread_mutex_unlock(&p->mu);
  }
}

static void pf_free(prefetch *p) {
  if (!p) return;
  pthread_mutex_lock(&p->mu);
  p->stop = 1;
  pthread_cond_broadcast(&p->cv);
  pthread_mutex_unlock(&p->mu);
  for (int i = 0; i < p->n_threads; i++) pm_task_wait(p->tasks[i]);
  for (size_t i = 0; i < p->s->n_splits; i++) {
    for (int k = 0; k < p->slots[i].count; k++)
      pm_array_release(&p->slots[i].batches[(p->slots[i].head + k) % PF_QUEUE]);
    free(p->slots[i].err);
  }
  pthread_mutex_destroy(&p->mu);
  pthread_cond_destroy(&p->cv);
  free(p->slots);
  free(p->tasks);
  free(p);
}

static int pf_start(read_stream *s, int n_threads, pm_error *err) {
  prefetch *p = calloc(1, sizeof *p);
  if (!p) return PM_NOMEM(err);
  p->s = s;
  p->slots = calloc(s->n_splits + 1, sizeof *p->slots);
  p->tasks = calloc((size_t)n_threads, sizeof *p->tasks);
  if (!p->slots || !p->tasks) {
    free(p->slots);
    free(p->tasks);
    free(p);
    return PM_NOMEM(err);
  }
  pthread_mutex_init(&p->mu, NULL);
  pthread_cond_init(&p->cv, NULL);
  pm_executor ex = pm_table_executor(s->c->t);
  for (int i = 0; i < n_threads; i++) {
    pm_task *t;
    if (pm_executor_submit(&ex, pf_worker, p, &t) != 0) break;
    pthread_mutex_lock(&p->mu);
    p->tasks[p->n_threads++] = t;
    pthread_mutex_unlock(&p->mu);
  }
  if (p->n_threads == 0) {
    pf_free(p);
    return pm_errorf(err, PAIMON_ERR_IO, "cannot start read threads");
  }
  s->pf = p;
  return 0;
}

/* Next batch from the prefetch queues, in split order. */
static int pf_next(read_stream *s, struct ArrowArray *out, pm_error *err) {
  prefetch *p = s->pf;
  memset(out, 0, sizeof *out);
  pthread_mutex_lock(&p->mu);
  for (;;) {
    if (p->consumer_split >= s->n_splits) break;
    pf_slot *slot = &p->slots[p->consumer_split];
    if (slot->count > 0) {
      pm_array_move(&slot->batches[slot->head], out);
      slot->head = (slot->head + 1) % PF_QUEUE;
      slot->count--;
      pthread_cond_broadcast(&p->cv);
      break;
    }
    if (slot->done) {
      if (slot->rc) {
        int rc = slot->rc;
        if (slot->err) *err = *slot->err;
        else pm_errorf(err, (paimon_status)rc, "split %zu failed (no memory for its message)", p->consumer_split);
        pthread_mutex_unlock(&p->mu);
        return rc;
      }
      p->consumer_split++;
      pthread_cond_broadcast(&p->cv);
      continue;
    }
    pthread_cond_wait(&p->cv, &p->mu);
  }
  pthread_mutex_unlock(&p->mu);
  return 0;
}

static int stream_next_raw(read_stream *s, struct ArrowArray *out, pm_error *err) {
  if (s->pf) return pf_next(s, out, err);
  memset(out, 0, sizeof *out);
  for (;;) {
    if (!s->cur.ctx) {
      if (s->next_split >= s->n_splits) return 0;
      PM_TRY(unit_open(s, s->next_split++, &s->cur, err));
    }
    PM_TRY(source_next_batch(s, &s->cur, out, err));
    if (out->release) return 0;
    s->cur.close(s->cur.ctx);
    memset(&s->cur, 0, sizeof s->cur);
  }
}

static int rs_get_schema(struct ArrowArrayStream *st, struct ArrowSchema *out) {
  read_stream *s = st->private_data;
  read_ctx *c = s->c;
  pm_error *err = &s->err;
  int rc = pm_schema_init(out, "+s", "", 0, c->n_out, err);
  for (int i = 0; i < c->n_out && !rc; i++) {
    pm_schema_release(out->children[i]);
    rc = out_field_schema(c, i, out->children[i], err);
  }
  if (rc) pm_schema_release(out);
  return rc ? 5 /* EIO */ : 0;
}

static int rs_get_next(struct ArrowArrayStream *st, struct ArrowArray *out) {
  read_stream *s = st->private_data;
  memset(out, 0, sizeof *out);
  if (s->failed) return 5;
  for (;;) {
    if (s->c->limit >= 0 && s->emitted >= s->c->limit) return 0;
    struct ArrowArray b;
    int rc = stream_next_raw(s, &b, &s->err);
    if (!rc && !b.release) return 0;
    if (!rc) {
      int64_t left = s->c->limit >= 0 ? s->c->limit - s->emitted : -1;
      rc = finish_batch(s->c, &b, out, left, &s->err);
    }
    if (rc) {
      s->failed = 1;
      return 5;
    }
    if (out->length == 0) {
      pm_array_release(out);
      continue;
    }
    s->emitted += out->length;
    return 0;
  }
}

static const char *rs_last_error(struct ArrowArrayStream *st) {
  read_stream *s = st->private_data;
  return s->err.message[0] ? s->err.message : NULL;
}

static void rs_release(struct ArrowArrayStream *st) {
  if (!st || !st->release) return;
  read_stream *s = st->private_data;
  pf_free(s->pf);
  if (s->cur.ctx) s->cur.close(s->cur.ctx);
  ctx_free(s->c);
  free(s->owned_splits);
  free_pairs(s->diff_pairs, s->n_splits);
  free(s);
  memset(st, 0, sizeof *st); /* a released stream has no callbacks */
}

/* Opens a stream over n units: splits[i], or diff_pairs[2i], [2i+1] when
 * diff_pairs is set (the stream then owns diff_pairs, also on failure). */
static int stream_open(pm_table *t, pm_data_split *const *splits, pm_data_split **diff_pairs, size_t n,
                       const pm_read_options *opt, struct ArrowArrayStream *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  pm_read_options defaults;
  if (!opt) {
    pm_read_options_init(&defaults);
    opt = &defaults;
  }
  read_stream *s = calloc(1, sizeof *s);
  int rc = s ? ctx_new(t, opt, &s->c, err) : PM_NOMEM(err);
  if (rc) {
    free(s);
    free_pairs(diff_pairs, n);
    return rc;
  }
  s->splits = splits;
  s->diff_pairs = diff_pairs;
  s->n_splits = n;
  if (s->c->parallelism > 1 && n > 1) {
    rc = pf_start(s, s->c->parallelism < (int)n ? s->c->parallelism : (int)n, err);
    if (rc) {
      ctx_free(s->c);
      free(s);
      free_pairs(diff_pairs, n);
      return rc;
    }
  }
  out->get_schema = rs_get_schema;
  out->get_next = rs_get_next;
  out->get_last_error = rs_last_error;
  out->release = rs_release;
  out->private_data = s;
  return 0;
}

int pm_read_splits(pm_table *t, pm_data_split *const *splits, size_t n, const pm_read_options *opt,
                   struct ArrowArrayStream *out, pm_error *err) {
  return stream_open(t, splits, NULL, n, opt, out, err);
}

int pm_read_split(pm_table *t, const pm_data_split *split, const pm_read_options *opt, struct ArrowArrayStream *out,
                  pm_error *err) {
  /* The stream keeps the array of split pointers: a one-element array it owns. */
  pm_data_split **holder = malloc(sizeof *holder);
  if (!holder) return PM_NOMEM(err);
  holder[0] = (pm_data_split *)split;
  int rc = pm_read_splits(t, holder, 1, opt, out, err);
  if (rc) {
    free(holder);
    return rc;
  }
  read_stream *s = out->private_data;
  s->owned_splits = holder; /* freed with the stream */
  return 0;
}

/* One half of an IncrementalSplit as a DataSplit; files borrowed from x. */
static int diff_half(pm_table *t, const pm_incremental_split *x, int after, pm_data_split **out, pm_error *err) {
  pm_data_split *d = NULL;
  PM_TRY(pm_data_split_new(&d, err));
  d->snapshot_id = x->snapshot_id;
  d->partition = x->partition;
  d->bucket = x->bucket;
  d->total_buckets = x->total_buckets;
  d->has_total_buckets = 1;
  d->data_files = after ? x->after_files : x->before_files;
  d->n_data_files = after ? x->n_after_files : x->n_before_files;
  d->deletion_files = after ? x->after_deletion_files : x->before_deletion_files;
  d->is_streaming = x->is_streaming; /* diff_open: a streaming pair is an overwrite's changes */
  char *pdir = NULL, *bpath = NULL;
  const uint8_t *pdata = x->partition.data ? x->partition.data : (const uint8_t *)"";
  int rc = pm_scan_partition_dir(t, pdata, x->partition.len, &pdir, err);
  if (!rc) rc = pm_table_bucket_path(t, pdir, x->bucket, &bpath, err);
  if (!rc && !(d->bucket_path = pm_arena_strdup(&d->arena, bpath))) rc = PM_NOMEM(err);
  free(pdir);
  free(bpath);
  if (rc) {
    pm_data_split_free(d);
    return rc;
  }
  *out = d;
  return 0;
}

int pm_read_incremental_splits(pm_table *t, pm_split *const *splits, size_t n, const pm_read_options *opt,
                               struct ArrowArrayStream *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  pm_data_split **pairs = calloc(2 * n + 1, sizeof *pairs);
  if (!pairs) return PM_NOMEM(err);
  int rc = 0;
  for (size_t i = 0; i < n && !rc; i++) {
    if (splits[i]->type != PM_SPLIT_INCREMENTAL) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: split %zu is not an IncrementalSplit (type %d)", t->root,
                     i, (int)splits[i]->type);
      break;
    }
    if (splits[i]->incremental.is_streaming != splits[0]->incremental.is_streaming) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "%s: split %zu: streaming and batch IncrementalSplits cannot be read in one call", t->root, i);
      break;
    }
    rc = diff_half(t, &splits[i]->incremental, 0, &pairs[2 * i], err);
    if (!rc) rc = diff_half(t, &splits[i]->incremental, 1, &pairs[2 * i + 1], err);
  }
  if (rc) {
    free_pairs(pairs, n);
    return rc;
  }
  return stream_open(t, NULL, pairs, n, opt, out, err);
}
