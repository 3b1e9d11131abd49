/* The value encoding shared by every output format (see print.h). */
#include "print/value.h"

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "arrow/bits.h"
#include "print/format.h"

/* Length of a valid UTF-8 sequence at p (n bytes remain), 0 if invalid. */
static int utf8_seq_len(const uint8_t *p, int64_t n) {
  uint8_t c = p[0];
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) return n >= 2 && (p[1] & 0xC0) == 0x80 ? 2 : 0;
  if (c >= 0xE0 && c <= 0xEF) {
    if (n < 3 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80) return 0;
    if (c == 0xE0 && p[1] < 0xA0) return 0;
    if (c == 0xED && p[1] > 0x9F) return 0;
    return 3;
  }
  if (c >= 0xF0 && c <= 0xF4) {
    if (n < 4 || (p[1] & 0xC0) != 0x80 || (p[2] & 0xC0) != 0x80 || (p[3] & 0xC0) != 0x80) return 0;
    if (c == 0xF0 && p[1] < 0x90) return 0;
    if (c == 0xF4 && p[1] > 0x8F) return 0;
    return 4;
  }
  return 0;
}

static const char hex_digits[] = "0123456789abcdef";

/* Appends s as JSON string content (json=1, quotes included) or as raw text
 * with invalid UTF-8 replaced (json=0). */
int pm_print_append_string(pm_buf *out, const uint8_t *s, int64_t n, int json) {
  /* Worst case: every byte becomes \u00XX (6) or U+FFFD (6 JSON / 3 raw). */
  if ((uint64_t)n > (SIZE_MAX - 8) / 6) return PAIMON_ERR_NOMEM;
  if (pm_buf_reserve(out, (size_t)n * 6 + 2)) return PAIMON_ERR_NOMEM;
  uint8_t *w = out->data + out->len;
  if (json) *w++ = '"';
  int64_t i = 0;
  while (i < n) {
    uint8_t c = s[i];
    if (c >= 0x20 && c < 0x80 && c != '"' && c != '\\') {
      *w++ = c;
      i++;
      continue;
    }
    if (c >= 0x80) {
      int len = utf8_seq_len(s + i, n - i);
      if (len) {
        memcpy(w, s + i, (size_t)len);
        w += len;
        i += len;
      } else {
        if (json) {
          memcpy(w, "\\ufffd", 6);
          w += 6;
        } else {
          memcpy(w, "\xEF\xBF\xBD", 3);
          w += 3;
        }
        i++;
      }
      continue;
    }
    i++;
    if (!json) {
      *w++ = c;
      continue;
    }
    *w++ = '\\';
    switch (c) {
      case '"': *w++ = '"'; break;
      case '\\': *w++ = '\\'; break;
      case '\n': *w++ = 'n'; break;
      case '\r': *w++ = 'r'; break;
      case '\t': *w++ = 't'; break;
      case '\b': *w++ = 'b'; break;
      case '\f': *w++ = 'f'; break;
      default:
        *w++ = 'u';
        *w++ = '0';
        *w++ = '0';
        *w++ = (uint8_t)hex_digits[c >> 4];
        *w++ = (uint8_t)hex_digits[c & 15];
    }
  }
  if (json) *w++ = '"';
  out->len = (size_t)(w - out->data);
  return 0;
}

static int append_base64(pm_buf *out, const uint8_t *s, int64_t n, int json) {
  static const char tbl[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  if ((uint64_t)n > (SIZE_MAX - 8) / 2) return PAIMON_ERR_NOMEM;
  if (pm_buf_reserve(out, (size_t)(n + 2) / 3 * 4 + 2)) return PAIMON_ERR_NOMEM;
  uint8_t *w = out->data + out->len;
  if (json) *w++ = '"';
  int64_t i = 0;
  for (; i + 3 <= n; i += 3) {
    uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8 | s[i + 2];
    *w++ = (uint8_t)tbl[v >> 18];
    *w++ = (uint8_t)tbl[(v >> 12) & 63];
    *w++ = (uint8_t)tbl[(v >> 6) & 63];
    *w++ = (uint8_t)tbl[v & 63];
  }
  if (n - i == 1) {
    uint32_t v = (uint32_t)s[i] << 16;
    *w++ = (uint8_t)tbl[v >> 18];
    *w++ = (uint8_t)tbl[(v >> 12) & 63];
    *w++ = '=';
    *w++ = '=';
  } else if (n - i == 2) {
    uint32_t v = (uint32_t)s[i] << 16 | (uint32_t)s[i + 1] << 8;
    *w++ = (uint8_t)tbl[v >> 18];
    *w++ = (uint8_t)tbl[(v >> 12) & 63];
    *w++ = (uint8_t)tbl[(v >> 6) & 63];
    *w++ = '=';
  }
  if (json) *w++ = '"';
  out->len = (size_t)(w - out->data);
  return 0;
}

/* ---------- value writer ---------- */

#define LIT(out, s) PM_PRINT_LIT(out, s)

static int index_at(const pm_type *t, const struct ArrowArray *a, int64_t p, int64_t *k) {
  const void *d = a->buffers[1];
  switch (t->id) {
    case PM_T_INT8: *k = ((const int8_t *)d)[p]; break;
    case PM_T_UINT8: *k = ((const uint8_t *)d)[p]; break;
    case PM_T_INT16: *k = ((const int16_t *)d)[p]; break;
    case PM_T_UINT16: *k = ((const uint16_t *)d)[p]; break;
    case PM_T_INT32: *k = ((const int32_t *)d)[p]; break;
    case PM_T_UINT32: *k = ((const uint32_t *)d)[p]; break;
    case PM_T_INT64: *k = ((const int64_t *)d)[p]; break;
    case PM_T_UINT64: {
      uint64_t u = ((const uint64_t *)d)[p];
      *k = u > INT64_MAX ? -1 : (int64_t)u;
      break;
    }
    default: return -1;
  }
  return 0;
}

static int write_value(const pm_type *t, const struct ArrowArray *a, int64_t i, int digits, pm_buf *out, int raw,
                       int depth, pm_error *err);

static int nomem(pm_error *err) { return PM_NOMEM(err); }

static int write_list_items(const pm_type *ct, const struct ArrowArray *child, int64_t start, int64_t end, int digits,
                            pm_buf *out, int depth, pm_error *err) {
  if (pm_buf_push_u8(out, '[')) return nomem(err);
  for (int64_t k = start; k < end; k++) {
    if (k > start && pm_buf_push_u8(out, ',')) return nomem(err);
    PM_TRY(write_value(ct, child, k, digits, out, 0, depth + 1, err));
  }
  if (pm_buf_push_u8(out, ']')) return nomem(err);
  return 0;
}

static int write_value(const pm_type *t, const struct ArrowArray *a, int64_t i, int digits, pm_buf *out, int raw,
                       int depth, pm_error *err) {
  if (depth > PM_ARROW_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: nesting too deep");
  if (t->id == PM_T_NULL || !pm_array_is_valid(a, i)) {
    if (LIT(out, "null")) return nomem(err);
    return 0;
  }
  int64_t p = a->offset + i;
  if (t->dict) {
    int64_t k;
    if (index_at(t, a, p, &k) || !a->dictionary || k < 0 || k >= a->dictionary->length)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "print: dictionary index out of range at row %lld", (long long)i);
    return write_value(t->dict, a->dictionary, k, digits, out, raw, depth + 1, err);
  }
  if (pm_buf_reserve(out, 96)) return nomem(err);
  char *w = (char *)out->data + out->len;
  const void *d = a->n_buffers > 1 ? a->buffers[1] : NULL;
  int n = 0;
  switch (t->id) {
    case PM_T_BOOL:
      if (pm_bit_get(d, p)) {
        memcpy(w, "true", 4);
        n = 4;
      } else {
        memcpy(w, "false", 5);
        n = 5;
      }
      break;
    case PM_T_INT8: n = pm_format_i64(((const int8_t *)d)[p], w); break;
    case PM_T_UINT8: n = pm_format_u64(((const uint8_t *)d)[p], w); break;
    case PM_T_INT16: n = pm_format_i64(((const int16_t *)d)[p], w); break;
    case PM_T_UINT16: n = pm_format_u64(((const uint16_t *)d)[p], w); break;
    case PM_T_INT32: n = pm_format_i64(((const int32_t *)d)[p], w); break;
    case PM_T_UINT32: n = pm_format_u64(((const uint32_t *)d)[p], w); break;
    case PM_T_INT64: n = pm_format_i64(((const int64_t *)d)[p], w); break;
    case PM_T_UINT64: n = pm_format_u64(((const uint64_t *)d)[p], w); break;
    case PM_T_HALF_FLOAT: {
      uint16_t h = ((const uint16_t *)d)[p];
      int e = (h >> 10) & 31, m = h & 1023;
      double v = e == 0 ? ldexp(m, -24) : e == 31 ? (m ? NAN : INFINITY) : ldexp(m + 1024, e - 25);
      if (h & 0x8000) v = -v;
      float fv = (float)v;
      if (!isfinite(fv) && !raw) w[n++] = '"';
      n += pm_format_float(fv, w + n);
      if (!isfinite(fv) && !raw) w[n++] = '"';
      break;
    }
    case PM_T_FLOAT: {
      float v = ((const float *)d)[p];
      if (!isfinite(v) && !raw) w[n++] = '"';
      n += pm_format_float(v, w + n);
      if (!isfinite(v) && !raw) w[n++] = '"';
      break;
    }
    case PM_T_DOUBLE: {
      double v = ((const double *)d)[p];
      if (!isfinite(v) && !raw) w[n++] = '"';
      n += pm_format_double(v, w + n);
      if (!isfinite(v) && !raw) w[n++] = '"';
      break;
    }
    case PM_T_DECIMAL128:
      if (!raw) w[n++] = '"';
      n += pm_format_decimal128((const uint8_t *)d + p * 16, t->scale, w + n);
      if (!raw) w[n++] = '"';
      break;
    case PM_T_DATE32:
    case PM_T_DATE64: {
      int64_t days = t->id == PM_T_DATE32 ? ((const int32_t *)d)[p] : pm_floordiv(((const int64_t *)d)[p], 86400000);
      if (!raw) w[n++] = '"';
      n += pm_format_date(days, w + n);
      if (!raw) w[n++] = '"';
      break;
    }
    case PM_T_TIME32:
    case PM_T_TIME64: {
      int64_t v = t->id == PM_T_TIME32 ? ((const int32_t *)d)[p] : ((const int64_t *)d)[p];
      if (!raw) w[n++] = '"';
      n += pm_format_time(v, t->unit, digits, w + n);
      if (!raw) w[n++] = '"';
      break;
    }
    case PM_T_TIMESTAMP:
      if (!raw) w[n++] = '"';
      n += pm_format_timestamp(((const int64_t *)d)[p], t->unit, digits, t->tz != NULL, w + n);
      if (!raw) w[n++] = '"';
      break;
    case PM_T_UTF8:
    case PM_T_BINARY: {
      const int32_t *off = d;
      const uint8_t *data = a->buffers[2];
      int64_t s = off[p], len = (int64_t)off[p + 1] - s;
      int rc = t->id == PM_T_UTF8 ? pm_print_append_string(out, data + s, len, !raw) : append_base64(out, data + s, len, !raw);
      return rc ? nomem(err) : 0;
    }
    case PM_T_LARGE_UTF8:
    case PM_T_LARGE_BINARY: {
      const int64_t *off = d;
      const uint8_t *data = a->buffers[2];
      int64_t s = off[p], len = off[p + 1] - s;
      int rc = t->id == PM_T_LARGE_UTF8 ? pm_print_append_string(out, data + s, len, !raw)
                                        : append_base64(out, data + s, len, !raw);
      return rc ? nomem(err) : 0;
    }
    case PM_T_FIXED_BINARY:
      return append_base64(out, (const uint8_t *)d + p * t->width, t->width, !raw) ? nomem(err) : 0;
    case PM_T_LIST: {
      const int32_t *off = d;
      return write_list_items(&t->children[0], a->children[0], off[p], off[p + 1], digits, out, depth, err);
    }
    case PM_T_LARGE_LIST: {
      const int64_t *off = d;
      return write_list_items(&t->children[0], a->children[0], off[p], off[p + 1], digits, out, depth, err);
    }
    case PM_T_FIXED_LIST:
      return write_list_items(&t->children[0], a->children[0], p * t->width, (p + 1) * t->width, digits, out, depth,
                              err);
    case PM_T_MAP: {
      const int32_t *off = d;
      const pm_type *et = &t->children[0];
      const struct ArrowArray *ea = a->children[0];
      if (pm_buf_push_u8(out, '[')) return nomem(err);
      for (int64_t k = off[p]; k < off[p + 1]; k++) {
        if (k > off[p] && pm_buf_push_u8(out, ',')) return nomem(err);
        int64_t ep = ea->offset + k;
        if (pm_buf_push_u8(out, '[')) return nomem(err);
        PM_TRY(write_value(&et->children[0], ea->children[0], ep, digits, out, 0, depth + 1, err));
        if (pm_buf_push_u8(out, ',')) return nomem(err);
        PM_TRY(write_value(&et->children[1], ea->children[1], ep, digits, out, 0, depth + 1, err));
        if (pm_buf_push_u8(out, ']')) return nomem(err);
      }
      if (pm_buf_push_u8(out, ']')) return nomem(err);
      return 0;
    }
    case PM_T_STRUCT: {
      if (pm_buf_push_u8(out, '{')) return nomem(err);
      for (int64_t c = 0; c < t->n_children; c++) {
        if (c && pm_buf_push_u8(out, ',')) return nomem(err);
        const char *name = t->children[c].name ? t->children[c].name : "";
        if (pm_print_append_string(out, (const uint8_t *)name, (int64_t)strlen(name), 1) || pm_buf_push_u8(out, ':'))
          return nomem(err);
        PM_TRY(write_value(&t->children[c], a->children[c], p, digits, out, 0, depth + 1, err));
      }
      if (pm_buf_push_u8(out, '}')) return nomem(err);
      return 0;
    }
    case PM_T_NULL: break;
  }
  out->len += (size_t)n;
  return 0;
}

int pm_json_append_value(const pm_type *t, const struct ArrowArray *a, int64_t row, int fraction_digits, pm_buf *out,
                         pm_error *err) {
  return write_value(t, a, row, fraction_digits, out, 0, 0, err);
}

int pm_print_append_text(const pm_type *t, const struct ArrowArray *a, int64_t row, int fraction_digits, pm_buf *out,
                         pm_error *err) {
  return write_value(t, a, row, fraction_digits, out, 1, 1, err);
}
