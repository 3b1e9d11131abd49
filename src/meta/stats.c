/* Value / key statistics lookup (FORMAT.md 5.7-5.8). */
#include "meta/stats.h"
#include "util/utf8.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

static int stats_slot(const pm_simple_stats *s, int32_t idx, int32_t arity, const pm_data_type *type,
                      pm_col_stats *out, pm_error *err) {
  memset(out, 0, sizeof(*out));
  out->null_count = -1;
  if (!s->null_counts_is_null && idx < s->n_null_counts && s->null_counts[idx] != PM_NULL_COUNT_UNKNOWN)
    out->null_count = s->null_counts[idx];
  pm_binary_row lo, hi;
  PM_TRY(pm_binary_row_open_serialized(s->min_values.data, s->min_values.len, "_MIN_VALUES", &lo, err));
  PM_TRY(pm_binary_row_open_serialized(s->max_values.data, s->max_values.len, "_MAX_VALUES", &hi, err));
  if (lo.arity != arity || hi.arity != arity)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "stats rows have arity %d/%d, expected %d", lo.arity, hi.arity, arity);
  PM_TRY(pm_binary_row_get(&lo, idx, type, &out->min, err));
  PM_TRY(pm_binary_row_get(&hi, idx, type, &out->max, err));
  return 0;
}

int pm_value_stats_lookup(const pm_data_file_meta *f, const pm_table_schema *file_schema, int32_t field_id,
                          pm_col_stats *out, pm_error *err) {
  int fi = pm_schema_field_index_by_id(file_schema, field_id);
  if (fi < 0) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: field id %d not in schema %lld", f->file_name, field_id,
                               (long long)file_schema->id);
  const char *name = file_schema->fields[fi].name;
  const pm_data_type *type = file_schema->fields[fi].type;
  int32_t idx = -1, arity = 0;
  const pm_str_list *cols = !f->value_stats_cols.is_null ? &f->value_stats_cols
                            : !f->write_cols.is_null     ? &f->write_cols
                                                         : NULL;
  if (cols) {
    arity = cols->n;
    for (int32_t i = 0; i < cols->n; i++)
      if (cols->items[i] && strcmp(cols->items[i], name) == 0) idx = i;
  } else {
    arity = (int32_t)file_schema->n_fields;
    idx = fi;
  }
  if (idx < 0) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no stats for column %s", f->file_name, name);
  /* a nullable copy: stats rows hold nulls for unknown min/max */
  pm_data_type t = *type;
  t.nullable = 1;
  int rc = stats_slot(&f->value_stats, idx, arity, &t, out, err);
  if (rc) pm_error_prefix(err, "%s: _VALUE_STATS of %s: ", f->file_name, name);
  return rc;
}

int pm_key_stats_get(const pm_data_file_meta *f, int32_t i, const pm_data_type *key_type, pm_col_stats *out,
                     pm_error *err) {
  pm_binary_row lo;
  PM_TRY(pm_binary_row_open_serialized(f->key_stats.min_values.data, f->key_stats.min_values.len, "_KEY_STATS", &lo, err));
  if (i < 0 || i >= lo.arity) return pm_errorf(err, PAIMON_ERR_NOT_FOUND, "%s: no key stats for key field %d", f->file_name, i);
  int rc = stats_slot(&f->key_stats, i, lo.arity, key_type, out, err);
  if (rc) pm_error_prefix(err, "%s: _KEY_STATS: ", f->file_name);
  return rc;
}

/* ---------------- collector ---------------- */

int pm_stats_mode_parse(const char *text, pm_stats_mode *out, pm_error *err) {
  out->length = 0;
  if (!strcasecmp(text, "none")) out->kind = PM_STATS_NONE;
  else if (!strcasecmp(text, "counts")) out->kind = PM_STATS_COUNTS;
  else if (!strcasecmp(text, "full")) out->kind = PM_STATS_FULL;
  else if (!strncasecmp(text, "truncate(", 9)) {
    char *end;
    long n = strtol(text + 9, &end, 10);
    if (end == text + 9 || strcmp(end, ")") != 0 || n <= 0 || n > INT32_MAX)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "bad stats mode '%s'", text);
    out->kind = PM_STATS_TRUNCATE;
    out->length = (int32_t)n;
  } else {
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "unknown stats mode '%s'", text);
  }
  return 0;
}


size_t pm_stats_truncate_utf8_min(const uint8_t *s, size_t len, int32_t n) {
  size_t pos = 0;
  for (int32_t k = 0; k < n && pos < len; k++) {
    size_t l = pm_utf8_lead_len(s[pos]);
    pos = pos + l > len ? len : pos + l;
  }
  return pos;
}

/* out must hold len + 4 bytes. */
int pm_stats_truncate_utf8_max(const uint8_t *s, size_t len, int32_t n, uint8_t *out, size_t *out_len) {
  size_t cut = pm_stats_truncate_utf8_min(s, len, n);
  if (cut == len) { /* short enough: unchanged */
    memcpy(out, s, len);
    *out_len = len;
    return 0;
  }
  /* walk code points backwards from the cut (continuation bytes are 10xxxxxx) */
  size_t end = cut;
  while (end > 0) {
    size_t start = end - 1;
    while (start > 0 && (s[start] & 0xC0) == 0x80) start--;
    uint32_t cp = pm_utf8_decode(s + start, end - start) + 1;
    if (cp >= 0xD800 && cp <= 0xDFFF) cp = 0xE000; /* skip surrogates */
    if (cp <= 0x10FFFF) {
      memcpy(out, s, start);
      *out_len = start + pm_utf8_encode(cp, out + start);
      return 0;
    }
    end = start; /* overflow: try an earlier position */
  }
  return 1;
}

int pm_stats_truncate_bytes_max(const uint8_t *s, size_t len, int32_t n, uint8_t *out, size_t *out_len) {
  if (len <= (size_t)n) {
    memcpy(out, s, len);
    *out_len = len;
    return 0;
  }
  for (size_t k = (size_t)n; k-- > 0;) {
    if (s[k] != 0xFF) {
      memcpy(out, s, k);
      out[k] = (uint8_t)(s[k] + 1);
      *out_len = k + 1;
      return 0;
    }
  }
  return 1;
}

typedef struct col_acc {
  pm_value min, max;
  uint8_t *min_buf, *max_buf; /* owned copies of variable-length min/max */
  int64_t nulls;
  int has;
} col_acc;

struct pm_stats_collector {
  pm_data_field *fields;
  size_t n;
  pm_stats_mode *modes;
  col_acc *acc;
};

void pm_stats_collector_free(pm_stats_collector *c) {
  if (!c) return;
  for (size_t i = 0; i < c->n; i++) {
    pm_data_field_clear(&c->fields[i]);
    if (c->acc) {
      free(c->acc[i].min_buf);
      free(c->acc[i].max_buf);
    }
  }
  free(c->fields);
  free(c->modes);
  free(c->acc);
  free(c);
}

int pm_stats_collector_new(const pm_data_field *fields, size_t n, const pm_stats_mode *modes, pm_stats_collector **out,
                           pm_error *err) {
  pm_stats_collector *c = calloc(1, sizeof(*c));
  if (!c) return PM_NOMEM(err);
  c->fields = calloc(n ? n : 1, sizeof(pm_data_field));
  c->modes = calloc(n ? n : 1, sizeof(pm_stats_mode));
  c->acc = calloc(n ? n : 1, sizeof(col_acc));
  if (!c->fields || !c->modes || !c->acc) {
    pm_stats_collector_free(c);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < n; i++) {
    int rc = pm_data_field_copy(&fields[i], &c->fields[i], err);
    if (rc) {
      pm_stats_collector_free(c);
      return rc;
    }
    c->n = i + 1;
    if (modes) c->modes[i] = modes[i];
    else c->modes[i] = (pm_stats_mode){PM_STATS_TRUNCATE, 16};
  }
  *out = c;
  return 0;
}

static int is_var(pm_value_kind k) { return k == PM_V_STRING || k == PM_V_BINARY || k == PM_V_ARRAY || k == PM_V_MAP || k == PM_V_ROW || k == PM_V_VARIANT; }

static int keep_value(pm_value *dst, uint8_t **buf, const pm_value *v, pm_error *err) {
  *dst = *v;
  if (!is_var(v->kind)) return 0;
  uint8_t *nb = malloc(v->u.bytes.len ? v->u.bytes.len : 1);
  if (!nb) return PM_NOMEM(err);
  if (v->u.bytes.len) memcpy(nb, v->u.bytes.data, v->u.bytes.len);
  free(*buf);
  *buf = nb;
  dst->u.bytes.data = nb;
  return 0;
}

int pm_stats_collector_add(pm_stats_collector *c, size_t col, const pm_value *v, pm_error *err) {
  if (col >= c->n) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "stats column %zu out of range", col);
  col_acc *a = &c->acc[col];
  if (!v || v->kind == PM_V_NULL) {
    a->nulls++;
    return 0;
  }
  if (c->modes[col].kind == PM_STATS_NONE || c->modes[col].kind == PM_STATS_COUNTS) return 0;
  pm_dtype_root r = c->fields[col].type->root;
  if (pm_dtype_is_nested(r) || r == PM_DT_VARIANT || r == PM_DT_BLOB) return 0; /* no min/max for these */
  if (!a->has) {
    PM_TRY(keep_value(&a->min, &a->min_buf, v, err));
    PM_TRY(keep_value(&a->max, &a->max_buf, v, err));
    a->has = 1;
    return 0;
  }
  if (pm_value_compare(v, &a->min) < 0) PM_TRY(keep_value(&a->min, &a->min_buf, v, err));
  if (pm_value_compare(v, &a->max) > 0) PM_TRY(keep_value(&a->max, &a->max_buf, v, err));
  return 0;
}

int pm_stats_collector_add_nulls(pm_stats_collector *c, size_t col, int64_t n, pm_error *err) {
  if (col >= c->n) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "stats column %zu out of range", col);
  c->acc[col].nulls += n;
  return 0;
}

int pm_stats_collector_finish(pm_stats_collector *c, int dense, pm_arena *arena, pm_simple_stats *out,
                              pm_str_list *cols, pm_error *err) {
  size_t kept = 0;
  for (size_t i = 0; i < c->n; i++)
    if (!dense || c->modes[i].kind != PM_STATS_NONE) kept++;
  pm_binary_row_writer wmin, wmax;
  int inited = 0;
  int rc = pm_row_writer_init(&wmin, (int32_t)kept, err);
  if (!rc) {
    inited = 1;
    rc = pm_row_writer_init(&wmax, (int32_t)kept, err);
    if (!rc) inited = 2;
  }
  int64_t *nulls = pm_arena_alloc(arena, (kept ? kept : 1) * sizeof(int64_t));
  if (!rc && !nulls) rc = PM_NOMEM(err);
  size_t k = 0;
  uint8_t *tmp = NULL;
  for (size_t i = 0; !rc && i < c->n; i++) {
    const pm_stats_mode *m = &c->modes[i];
    if (dense && m->kind == PM_STATS_NONE) continue;
    col_acc *a = &c->acc[i];
    pm_data_type t = *c->fields[i].type;
    t.nullable = 1;
    pm_value lo = {.kind = PM_V_NULL}, hi = {.kind = PM_V_NULL};
    if (a->has && (m->kind == PM_STATS_FULL || m->kind == PM_STATS_TRUNCATE)) {
      lo = a->min;
      hi = a->max;
      if (m->kind == PM_STATS_TRUNCATE && (lo.kind == PM_V_STRING || lo.kind == PM_V_BINARY)) {
        free(tmp);
        tmp = malloc(hi.u.bytes.len + 8);
        if (!tmp) {
          rc = PM_NOMEM(err);
          break;
        }
        size_t hl = 0;
        int fail;
        if (lo.kind == PM_V_STRING) {
          lo.u.bytes.len = pm_stats_truncate_utf8_min(lo.u.bytes.data, lo.u.bytes.len, m->length);
          fail = pm_stats_truncate_utf8_max(hi.u.bytes.data, hi.u.bytes.len, m->length, tmp, &hl);
        } else {
          if (lo.u.bytes.len > (size_t)m->length) lo.u.bytes.len = (size_t)m->length;
          fail = pm_stats_truncate_bytes_max(hi.u.bytes.data, hi.u.bytes.len, m->length, tmp, &hl);
        }
        if (fail) {
          lo.kind = hi.kind = PM_V_NULL;
        } else {
          hi.u.bytes.data = tmp;
          hi.u.bytes.len = hl;
        }
      }
    }
    rc = pm_row_writer_write(&wmin, (int32_t)k, &t, &lo, err);
    if (!rc) rc = pm_row_writer_write(&wmax, (int32_t)k, &t, &hi, err);
    nulls[k] = m->kind == PM_STATS_NONE ? PM_NULL_COUNT_UNKNOWN : a->nulls;
    k++;
  }
  free(tmp);
  pm_buf bmin, bmax;
  pm_buf_init(&bmin);
  pm_buf_init(&bmax);
  if (!rc) rc = pm_row_writer_finish(&wmin, 1, &bmin, err);
  if (!rc) rc = pm_row_writer_finish(&wmax, 1, &bmax, err);
  if (!rc) {
    memset(out, 0, sizeof(*out));
    out->min_values.data = pm_arena_memdup(arena, bmin.data, bmin.len);
    out->min_values.len = bmin.len;
    out->max_values.data = pm_arena_memdup(arena, bmax.data, bmax.len);
    out->max_values.len = bmax.len;
    out->null_counts = nulls;
    out->n_null_counts = (int32_t)kept;
    if (!out->min_values.data || !out->max_values.data) rc = PM_NOMEM(err);
  }
  if (!rc && cols) {
    memset(cols, 0, sizeof(*cols));
    cols->is_null = !dense || kept == c->n;
    if (!cols->is_null) {
      cols->items = pm_arena_alloc(arena, (kept ? kept : 1) * sizeof(char *));
      if (!cols->items) rc = PM_NOMEM(err);
      for (size_t i = 0; !rc && i < c->n; i++) {
        if (c->modes[i].kind == PM_STATS_NONE) continue;
        cols->items[cols->n] = pm_arena_strdup(arena, c->fields[i].name);
        if (!cols->items[cols->n++]) rc = PM_NOMEM(err);
      }
    }
  }
  if (inited >= 1) pm_row_writer_free(&wmin);
  if (inited >= 2) pm_row_writer_free(&wmax);
  pm_buf_free(&bmin);
  pm_buf_free(&bmax);
  return rc;
}
