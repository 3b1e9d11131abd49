/* Avro data files -> Arrow batches, typed by the writer's schema (see avro_data.h). */
#include "format/avro/avro_data.h"

#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/builder.h"
#include "arrow/type.h"
#include "format/avro/avro.h"

static int64_t floor_div_i64(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}

struct pm_avro_data_reader {
  pm_file *file;
  pm_avro_reader *r;
  const pm_avro_schema *rec;
  pm_type type;           /* struct of the decoded columns */
  struct ArrowSchema schema;
  int32_t *slot;          /* per Avro field: child index or -1 (skipped) */
  pm_builder *b;
  pm_avro_cursor cur;
  int64_t left_in_block;
  int64_t pos;            /* file row position of the next record */
  int64_t *ranges;        /* kept ranges (pairs, copied) or NULL */
  size_t n_ranges, range_i;
  int64_t batch_rows;
};
typedef pm_avro_data_reader avro_file;

void pm_avro_data_close(pm_avro_data_reader *a) {
  if (!a) return;
  pm_avro_reader_close(a->r);
  pm_file_close(a->file);
  free(a->ranges);
  pm_type_free(&a->type);
  pm_schema_release(&a->schema);
  free(a->slot);
  pm_builder_free(a->b);
  free(a);
}

static int64_t avro_unit_factor(const pm_avro_schema *s, const pm_type *t) {
  /* value * num / den converts the Avro unit to the builder's unit */
  int64_t from = 1000; /* millis */
  const char *lt = s->logical_type;
  if (lt && strstr(lt, "micros")) from = 1000000;
  else if (lt && strstr(lt, "nanos")) from = 1000000000;
  static const int64_t per[4] = {1, 1000, 1000000, 1000000000};
  int64_t to = per[t->unit & 3];
  return to >= from ? to / from : -(from / to);
}

static int avro_decode(avro_file *a, pm_avro_cursor *c, const pm_avro_schema *s, pm_builder *b, int depth,
                       pm_error *err) {
  if (depth > PM_AVRO_MAX_VALUE_DEPTH) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: Avro value nested too deeply", pm_avro_reader_path(a->r));
  const pm_type *t = pm_builder_type(b);
  switch (s->type) {
    case PM_AVRO_UNION: {
      int32_t br = pm_avro_read_union_of(c, s);
      if (pm_avro_cursor_failed(c)) return 0;
      if (br == s->null_branch) return pm_builder_append_null(b, err);
      return avro_decode(a, c, s->branches[br], b, depth + 1, err);
    }
    case PM_AVRO_NULL: return pm_builder_append_null(b, err);
    case PM_AVRO_BOOLEAN: return pm_builder_append_bool(b, pm_avro_read_boolean(c), err);
    case PM_AVRO_INT:
    case PM_AVRO_LONG: {
      int64_t v = s->type == PM_AVRO_INT ? pm_avro_read_int(c) : pm_avro_read_long(c);
      if (t->id == PM_T_TIMESTAMP) {
        int64_t f = avro_unit_factor(s, t);
        v = f >= 0 ? v * f : floor_div_i64(v, -f);
      } else if (t->id == PM_T_BOOL) {
        return pm_builder_append_bool(b, v != 0, err);
      } else if (t->id == PM_T_DECIMAL128) {
        return pm_builder_append_decimal_i64(b, v, err);
      }
      return pm_builder_append_int(b, v, err);
    }
    case PM_AVRO_FLOAT: return pm_builder_append_double(b, pm_avro_read_float(c), err);
    case PM_AVRO_DOUBLE: return pm_builder_append_double(b, pm_avro_read_double(c), err);
    case PM_AVRO_BYTES:
    case PM_AVRO_STRING:
    case PM_AVRO_FIXED: {
      pm_avro_bytes v = s->type == PM_AVRO_FIXED ? pm_avro_read_fixed(c, s->fixed_size) : pm_avro_read_bytes(c);
      if (pm_avro_cursor_failed(c)) return 0;
      if (t->id == PM_T_DECIMAL128) { /* big-endian two's complement unscaled */
        if (v.len > 16) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: decimal of %zu bytes", pm_avro_reader_path(a->r), v.len);
        uint8_t le[16];
        uint8_t fill = v.len && (v.ptr[0] & 0x80) ? 0xFF : 0;
        memset(le, fill, 16);
        for (size_t i = 0; i < v.len; i++) le[i] = v.ptr[v.len - 1 - i];
        return pm_builder_append_decimal128(b, le, err);
      }
      return pm_builder_append_bytes(b, v.ptr, v.len, err);
    }
    case PM_AVRO_ENUM: return pm_builder_append_int(b, pm_avro_read_enum(c), err);
    case PM_AVRO_RECORD: {
      if (t->id != PM_T_STRUCT || (int64_t)s->field_count != t->n_children)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: Avro record does not match the ROW type",
                         pm_avro_reader_path(a->r));
      for (size_t i = 0; i < s->field_count; i++)
        PM_TRY(avro_decode(a, c, s->fields[i].type, pm_builder_child(b, (int64_t)i), depth + 1, err));
      return pm_builder_append_valid(b, err);
    }
    case PM_AVRO_ARRAY:
    case PM_AVRO_MAP: {
      int is_map_type = t->id == PM_T_MAP;
      if (!is_map_type && t->id != PM_T_LIST && t->id != PM_T_LARGE_LIST)
        return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: Avro array/map for a non-nested column", pm_avro_reader_path(a->r));
      pm_builder *child = pm_builder_child(b, 0);
      for (;;) {
        int64_t n = pm_avro_read_block_count(c, NULL);
        if (n <= 0 || pm_avro_cursor_failed(c)) break;
        for (int64_t i = 0; i < n && !pm_avro_cursor_failed(c); i++) {
          if (s->type == PM_AVRO_MAP) { /* string key, then value */
            pm_avro_bytes k = pm_avro_read_bytes(c);
            PM_TRY(pm_builder_append_bytes(pm_builder_child(child, 0), k.ptr, k.len, err));
            PM_TRY(avro_decode(a, c, s->items, pm_builder_child(child, 1), depth + 1, err));
            PM_TRY(pm_builder_append_valid(child, err));
          } else if (is_map_type) { /* array of {key, value} records */
            const pm_avro_schema *kv = pm_avro_unwrap_nullable(s->items, NULL);
            if (kv->type != PM_AVRO_RECORD || kv->field_count != 2)
              return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: unexpected Avro map entry", pm_avro_reader_path(a->r));
            if (s->items->type == PM_AVRO_UNION) pm_avro_read_union_of(c, s->items);
            PM_TRY(avro_decode(a, c, kv->fields[0].type, pm_builder_child(child, 0), depth + 1, err));
            PM_TRY(avro_decode(a, c, kv->fields[1].type, pm_builder_child(child, 1), depth + 1, err));
            PM_TRY(pm_builder_append_valid(child, err));
          } else {
            PM_TRY(avro_decode(a, c, s->items, child, depth + 1, err));
          }
        }
      }
      return pm_builder_append_valid(b, err);
    }
  }
  return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: Avro type not supported", pm_avro_reader_path(a->r));
}

/* The data schema child named `name`; files usually keep the schema's order, so try `hint` first. */
static int32_t child_named(const struct ArrowSchema *s, const char *name, size_t hint) {
  if (s && (int64_t)hint < s->n_children && s->children[hint]->name && !strcmp(s->children[hint]->name, name))
    return (int32_t)hint;
  for (int64_t j = 0; s && j < s->n_children; j++)
    if (s->children[j]->name && !strcmp(s->children[j]->name, name)) return (int32_t)j;
  return -1;
}

static int32_t field_id_of(const struct ArrowSchema *f) {
  char *v = pm_schema_metadata_get(f, "PARQUET:field_id");
  if (!v) return -1;
  char *e;
  long x = strtol(v, &e, 10);
  int32_t id = (*v && !*e && x >= 0 && x <= INT32_MAX) ? (int32_t)x : -1;
  free(v);
  return id;
}

static int cmp_id(const void *a, const void *b) {
  int32_t x = *(const int32_t *)a, y = *(const int32_t *)b;
  return (x > y) - (x < y);
}

/* sorted: the projection's ids, sorted (wide tables: no quadratic matching) */
static int wanted(const int32_t *sorted, size_t n, int32_t id) {
  return bsearch(&id, sorted, n, sizeof *sorted, cmp_id) != NULL;
}

int pm_avro_data_open(pm_file *file, const pm_avro_data_options *o, pm_avro_data_reader **out, pm_error *err) {
  *out = NULL;
  avro_file *a = calloc(1, sizeof *a);
  if (!a) {
    pm_file_close(file);
    return PM_NOMEM(err);
  }
  a->file = file;
  const char *path = pm_file_path(file) ? pm_file_path(file) : "(memory)";
  a->batch_rows = o->batch_rows > 0 ? o->batch_rows : 16384;
  int rc = 0;
  if (o->row_ranges) {
    a->ranges = malloc(o->n_row_ranges * 2 * sizeof *a->ranges + 1);
    if (!a->ranges) rc = PM_NOMEM(err);
    else if (o->n_row_ranges) memcpy(a->ranges, o->row_ranges, o->n_row_ranges * 2 * sizeof *a->ranges);
    a->n_ranges = o->n_row_ranges;
  }
  if (!rc) rc = pm_avro_reader_open(file, &a->r, err);
  if (rc) goto fail;
  a->rec = pm_avro_unwrap_nullable(pm_avro_reader_schema(a->r), NULL);
  if (a->rec->type != PM_AVRO_RECORD) {
    rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: Avro data file schema is not a record", path);
    goto fail;
  }
  const struct ArrowSchema *ds = o->data_schema;
  size_t nf = a->rec->field_count;
  a->slot = malloc((nf + 1) * sizeof *a->slot);
  int32_t *typed = malloc((nf + 1) * sizeof *typed); /* data_schema child of each Avro field, or -1 */
  struct ArrowSchema *tmp = calloc(nf + 1, sizeof *tmp);
  int32_t *sorted = malloc((o->n_field_ids + 1) * sizeof *sorted);
  if (!a->slot || !tmp || !typed || !sorted) {
    free(tmp);
    free(typed);
    free(sorted);
    rc = PM_NOMEM(err);
    goto fail;
  }
  size_t n_ids = o->field_ids ? o->n_field_ids : 0;
  if (n_ids) memcpy(sorted, o->field_ids, n_ids * sizeof *sorted);
  qsort(sorted, n_ids, sizeof *sorted, cmp_id);
  int any_wanted = 0;
  for (size_t i = 0; i < nf; i++) {
    typed[i] = child_named(ds, a->rec->fields[i].name, i);
    if (typed[i] >= 0 && n_ids && wanted(sorted, n_ids, field_id_of(ds->children[typed[i]]))) any_wanted = 1;
  }
  int nout = 0;
  for (size_t i = 0; i < nf && !rc; i++) {
    a->slot[i] = -1;
    if (typed[i] < 0) continue; /* _KEY_ columns and unknown fields are skipped */
    const struct ArrowSchema *f = ds->children[typed[i]];
    if (any_wanted && !wanted(sorted, n_ids, field_id_of(f))) continue;
    rc = pm_schema_copy(f, &tmp[nout], err);
    if (!rc) a->slot[i] = nout++;
  }
  free(typed);
  free(sorted);
  if (!rc) rc = pm_schema_init(&a->schema, "+s", "", 0, nout, err);
  for (int i = 0; i < nout; i++) {
    if (!rc) {
      pm_schema_release(a->schema.children[i]);
      pm_schema_move(&tmp[i], a->schema.children[i]);
    } else {
      pm_schema_release(&tmp[i]);
    }
  }
  free(tmp);
  if (!rc) rc = pm_type_from_schema(&a->schema, &a->type, err);
  if (!rc) rc = pm_builder_new(&a->type, &a->b, err);
  if (rc) goto fail;
  *out = a;
  return 0;
fail:
  pm_avro_data_close(a);
  return rc;
}

int pm_avro_data_schema(const pm_avro_data_reader *r, struct ArrowSchema *out, pm_error *err) {
  return pm_schema_copy(&r->schema, out, err);
}

static int avro_row_kept(avro_file *a, int64_t pos) {
  if (!a->ranges) return 1;
  while (a->range_i < a->n_ranges && pos >= a->ranges[2 * a->range_i + 1]) a->range_i++;
  return a->range_i < a->n_ranges && pos >= a->ranges[2 * a->range_i];
}

int pm_avro_data_next(pm_avro_data_reader *a, struct ArrowArray *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  int64_t n = 0;
  while (n < a->batch_rows) {
    if (a->left_in_block == 0) {
      int64_t cnt;
      PM_TRY(pm_avro_reader_next_block(a->r, &a->cur, &cnt, err));
      if (cnt == 0) break;
      a->left_in_block = cnt;
    }
    pm_avro_cursor *c = &a->cur;
    int kept = avro_row_kept(a, a->pos);
    a->pos++;
    a->left_in_block--;
    if (!kept) {
      pm_avro_skip(c, pm_avro_reader_schema(a->r));
    } else {
      if (pm_avro_reader_schema(a->r)->type == PM_AVRO_UNION) pm_avro_read_union(c);
      for (size_t f = 0; f < a->rec->field_count; f++) {
        int32_t sl = a->slot[f];
        if (sl < 0) {
          pm_avro_skip(c, a->rec->fields[f].type);
          continue;
        }
        PM_TRY(avro_decode(a, c, a->rec->fields[f].type, pm_builder_child(a->b, sl), 0, err));
      }
      PM_TRY(pm_builder_append_valid(a->b, err));
      n++;
    }
    if (pm_avro_cursor_failed(c)) return pm_avro_reader_cursor_error(a->r, c, "data record", err);
  }
  if (n == 0) return 0;
  return pm_builder_finish(a->b, out, err);
}
