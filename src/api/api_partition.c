/* Public C API: the partition values of a split (paimon_split_partition). */
#include "api/api_internal.h"

struct paimon_partition {
  size_t n;
  char **names;         /* partition keys (owned) */
  char **texts;         /* values as text (owned) */
  uint8_t **bytes;      /* NUL-terminated copies of string / binary values (owned, NULL otherwise) */
  paimon_literal *values;
};

void paimon_partition_free(paimon_partition *p) {
  if (!p) return;
  for (size_t i = 0; i < p->n; i++) {
    if (p->names) free(p->names[i]);
    if (p->texts) free(p->texts[i]);
    if (p->bytes) free(p->bytes[i]);
  }
  free(p->names);
  free(p->texts);
  free(p->bytes);
  free(p->values);
  free(p);
}

/* The literal of a decoded value; string / binary bytes copied into *copy. */
static int to_literal(const pm_value *v, const pm_data_type *type, const char *text, paimon_literal *out,
                      uint8_t **copy, pm_error *err) {
  *copy = NULL;
  switch (v->kind) {
    case PM_V_NULL: *out = paimon_literal_null(); return 0;
    case PM_V_BOOL: *out = paimon_literal_bool((int)v->u.i64); return 0;
    case PM_V_INT:
      *out = type->root == PM_DT_DATE   ? paimon_literal_date((int32_t)v->u.i64)
             : type->root == PM_DT_TIME ? paimon_literal_time((int32_t)v->u.i64)
                                        : paimon_literal_int64(v->u.i64);
      return 0;
    case PM_V_FLOAT:
    case PM_V_DOUBLE: *out = paimon_literal_double(v->u.f64); return 0;
    case PM_V_TIMESTAMP: *out = paimon_literal_timestamp(v->u.ts.millis, v->u.ts.nanos); return 0;
    case PM_V_DECIMAL: {
      int64_t unscaled;
      if (pm_decimal_to_int64(&v->u.dec, &unscaled) == 0) {
        *out = paimon_literal_decimal(unscaled, v->u.dec.scale);
        return 0;
      }
      break; /* wider than int64: the text */
    }
    case PM_V_STRING:
    case PM_V_BINARY:
      *copy = malloc(v->u.bytes.len + 1);
      if (!*copy) return PM_NOMEM(err);
      if (v->u.bytes.len) memcpy(*copy, v->u.bytes.data, v->u.bytes.len);
      (*copy)[v->u.bytes.len] = 0;
      *out = v->kind == PM_V_STRING ? paimon_literal_string((const char *)*copy)
                                    : paimon_literal_bytes(*copy, v->u.bytes.len);
      if (v->kind == PM_V_STRING) out->len = v->u.bytes.len;
      return 0;
    default: break;
  }
  *out = paimon_literal_string(text); /* text is owned by the partition too */
  return 0;
}

paimon_status paimon_split_partition(const paimon_table *table, const paimon_split *split, paimon_partition **out,
                                     paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(table && split, "NULL argument");
  CHECK_ARG(!table->system_table, "a system table has no partitions");
  const pm_table *t = table->t;
  const pm_bytes *row = split->inc ? &split->inc->incremental.partition : &split->s->partition;
  paimon_partition *p = calloc(1, sizeof *p);
  if (!p) return (paimon_status)PM_NOMEM(err);
  size_t n = t->n_partition_keys;
  int rc = 0;
  if (n) {
    p->names = calloc(n, sizeof *p->names);
    p->texts = calloc(n, sizeof *p->texts);
    p->bytes = calloc(n, sizeof *p->bytes);
    p->values = calloc(n, sizeof *p->values);
    if (!p->names || !p->texts || !p->bytes || !p->values) rc = PM_NOMEM(err);
  }
  for (size_t i = 0; !rc && i < n; i++) {
    p->n = i + 1;
    pm_value v;
    const pm_data_type *type = NULL;
    char text[1024];
    rc = pm_scan_partition_field(t, row->data, row->len, i, &v, &type, text, sizeof text, err);
    if (!rc) {
      p->names[i] = strdup(t->partition_keys[i]);
      p->texts[i] = strdup(text);
      if (!p->names[i] || !p->texts[i]) rc = PM_NOMEM(err);
    }
    if (!rc) rc = to_literal(&v, type, p->texts[i], &p->values[i], &p->bytes[i], err);
  }
  if (rc) {
    paimon_partition_free(p);
    return (paimon_status)rc;
  }
  *out = p;
  return PAIMON_OK;
}

size_t paimon_partition_num_fields(const paimon_partition *p) { return p ? p->n : 0; }
const char *paimon_partition_field_name(const paimon_partition *p, size_t i) {
  return p && i < p->n ? p->names[i] : NULL;
}
paimon_literal paimon_partition_value(const paimon_partition *p, size_t i) {
  return p && i < p->n ? p->values[i] : paimon_literal_null();
}
const char *paimon_partition_value_text(const paimon_partition *p, size_t i) {
  return p && i < p->n ? p->texts[i] : NULL;
}
