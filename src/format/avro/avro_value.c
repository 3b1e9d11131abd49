/* Generic (slow path) Avro values: decode into a tree, print as JSON, encode back. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/avro/avro.h"

void pm_avro_value_clear(pm_avro_value *v) {
  if (!v) return;
  free(v->bytes);
  if (v->items)
    for (size_t i = 0; i < v->count; i++) pm_avro_value_clear(&v->items[i]);
  free(v->items);
  if (v->keys)
    for (size_t i = 0; i < v->count; i++) free(v->keys[i]);
  free(v->keys);
  free(v->key_lens);
  memset(v, 0, sizeof *v);
}

static uint8_t *copy_bytes(pm_avro_bytes b) {
  uint8_t *p = malloc(b.len + 1);
  if (!p) return NULL;
  if (b.len) memcpy(p, b.ptr, b.len);
  p[b.len] = 0;
  return p;
}

static int decode(pm_avro_cursor *c, const pm_avro_schema *s, pm_avro_value *v, int depth, pm_error *err);

/* Array items or map entries, block by block. */
static int decode_blocks(pm_avro_cursor *c, const pm_avro_schema *s, pm_avro_value *v, int depth, pm_error *err) {
  int is_map = s->type == PM_AVRO_MAP;
  size_t cap = 0;
  for (;;) {
    int64_t n = pm_avro_read_block_count(c, NULL);
    if (n == 0 || c->error) return 0;
    if (s->items->fixed_width == 0 && !is_map && v->count + (size_t)n > PM_AVRO_MAX_ZERO_WIDTH_ITEMS) {
      pm_avro_cursor_fail(c, "too many zero-size array items");
      return 0;
    }
    if (v->count + (size_t)n > cap) {
      size_t ncap = cap ? cap : 4;
      while (ncap < v->count + (size_t)n) ncap *= 2;
      pm_avro_value *items = realloc(v->items, ncap * sizeof *items);
      if (!items) return PM_NOMEM(err);
      v->items = items;
      if (is_map) {
        char **keys = realloc(v->keys, ncap * sizeof *keys);
        if (!keys) return PM_NOMEM(err);
        v->keys = keys;
        size_t *lens = realloc(v->key_lens, ncap * sizeof *lens);
        if (!lens) return PM_NOMEM(err);
        v->key_lens = lens;
      }
      cap = ncap;
    }
    for (int64_t i = 0; i < n && !c->error; i++) {
      size_t k = v->count;
      memset(&v->items[k], 0, sizeof v->items[k]);
      if (is_map) {
        pm_avro_bytes key = pm_avro_read_string(c);
        v->keys[k] = (char *)copy_bytes(key);
        v->key_lens[k] = key.len;
        if (!v->keys[k]) return PM_NOMEM(err);
      }
      v->count++;
      PM_TRY(decode(c, s->items, &v->items[k], depth + 1, err));
    }
  }
}

static int decode(pm_avro_cursor *c, const pm_avro_schema *s, pm_avro_value *v, int depth, pm_error *err) {
  memset(v, 0, sizeof *v);
  v->declared = s;
  v->schema = s;
  v->branch = -1;
  if (depth > PM_AVRO_MAX_VALUE_DEPTH) {
    pm_avro_cursor_fail(c, "value nested too deeply");
    return 0;
  }
  if (s->type == PM_AVRO_UNION) {
    int32_t b = pm_avro_read_union_of(c, s);
    if (b < 0) return 0;
    v->branch = b;
    s = s->branches[b];
    v->schema = s;
  }
  switch (s->type) {
    case PM_AVRO_NULL:
      return 0;
    case PM_AVRO_BOOLEAN:
      v->u.boolean = pm_avro_read_boolean(c);
      return 0;
    case PM_AVRO_INT:
      v->u.l = pm_avro_read_int(c);
      return 0;
    case PM_AVRO_LONG:
      v->u.l = pm_avro_read_long(c);
      return 0;
    case PM_AVRO_ENUM:
      v->u.l = pm_avro_read_enum(c);
      if (!c->error && (v->u.l < 0 || (uint64_t)v->u.l >= s->symbol_count))
        pm_avro_cursor_fail(c, "enum index out of range");
      return 0;
    case PM_AVRO_FLOAT:
      v->u.f = pm_avro_read_float(c);
      return 0;
    case PM_AVRO_DOUBLE:
      v->u.d = pm_avro_read_double(c);
      return 0;
    case PM_AVRO_BYTES:
    case PM_AVRO_STRING:
    case PM_AVRO_FIXED: {
      pm_avro_bytes b = s->type == PM_AVRO_FIXED ? pm_avro_read_fixed(c, s->fixed_size) : pm_avro_read_bytes(c);
      v->bytes = copy_bytes(b);
      v->len = b.len;
      return v->bytes ? 0 : PM_NOMEM(err);
    }
    case PM_AVRO_RECORD:
      v->items = calloc(s->field_count ? s->field_count : 1, sizeof *v->items);
      if (!v->items) return PM_NOMEM(err);
      for (size_t i = 0; i < s->field_count && !c->error; i++) {
        v->count = i + 1;
        PM_TRY(decode(c, s->fields[i].type, &v->items[i], depth + 1, err));
      }
      return 0;
    case PM_AVRO_ARRAY:
    case PM_AVRO_MAP:
      return decode_blocks(c, s, v, depth, err);
    case PM_AVRO_UNION:
      break;
  }
  pm_avro_cursor_fail(c, "union directly inside a union");
  return 0;
}

int pm_avro_decode_value(pm_avro_cursor *c, const pm_avro_schema *s, pm_avro_value *out, pm_error *err) {
  int rc = decode(c, s, out, 0, err);
  if (rc) return rc;
  if (c->error)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "corrupt Avro data at byte %zu of the block: %s", c->error_offset,
                     c->error);
  return 0;
}

/* ---- JSON in avro-dump's form ------------------------------------------- */

static int put(pm_buf *o, const char *s) { return pm_buf_append(o, s, strlen(s)); }

/* Length of the valid UTF-8 sequence at s (1..4), or -(bytes of the maximal
 * invalid subpart) as a WHATWG decoder (Node's Buffer.toString) sees it. */
static int utf8_seq(const uint8_t *s, size_t n) {
  uint8_t c = s[0];
  if (c < 0x80) return 1;
  int need;
  uint8_t lo = 0x80, hi = 0xbf;
  if (c >= 0xc2 && c <= 0xdf) need = 1;
  else if (c >= 0xe0 && c <= 0xef) {
    need = 2;
    if (c == 0xe0) lo = 0xa0;
    if (c == 0xed) hi = 0x9f;
  } else if (c >= 0xf0 && c <= 0xf4) {
    need = 3;
    if (c == 0xf0) lo = 0x90;
    if (c == 0xf4) hi = 0x8f;
  } else {
    return -1;
  }
  for (int k = 1; k <= need; k++) {
    if ((size_t)k >= n || s[k] < lo || s[k] > hi) return -k;
    lo = 0x80, hi = 0xbf;
  }
  return need + 1;
}

static int put_json_string(pm_buf *o, const uint8_t *s, size_t n) {
  static const char hexd[] = "0123456789abcdef";
  if (pm_buf_push_u8(o, '"')) return -1;
  for (size_t i = 0; i < n; i++) {
    uint8_t ch = s[i];
    if (ch >= 0x80) { /* copy valid UTF-8, replace invalid bytes with U+FFFD as avsc does */
      int k = utf8_seq(s + i, n - i);
      if (k > 0) {
        if (pm_buf_append(o, s + i, (size_t)k)) return -1;
      } else if (pm_buf_append(o, "\xef\xbf\xbd", 3)) {
        return -1;
      }
      i += (size_t)(k > 0 ? k : -k) - 1;
      continue;
    }
    char esc[7] = {0};
    switch (ch) {
      case '"': strcpy(esc, "\\\""); break;
      case '\\': strcpy(esc, "\\\\"); break;
      case '\b': strcpy(esc, "\\b"); break;
      case '\f': strcpy(esc, "\\f"); break;
      case '\n': strcpy(esc, "\\n"); break;
      case '\r': strcpy(esc, "\\r"); break;
      case '\t': strcpy(esc, "\\t"); break;
      default:
        if (ch < 0x20) {
          esc[0] = '\\', esc[1] = 'u', esc[2] = '0', esc[3] = '0';
          esc[4] = hexd[ch >> 4], esc[5] = hexd[ch & 15];
        }
    }
    if (esc[0] ? put(o, esc) : pm_buf_push_u8(o, ch)) return -1;
  }
  return pm_buf_push_u8(o, '"');
}

/* JavaScript Number.prototype.toString of a double (shortest round trip). */
static int put_js_number(pm_buf *o, double d) {
  if (isnan(d)) return put(o, "\"NaN\"");
  if (isinf(d)) return put(o, d > 0 ? "\"Infinity\"" : "\"-Infinity\"");
  if (d == 0) return put(o, signbit(d) ? "-0" : "0");
  char buf[64];
  int prec;
  for (prec = 1; prec <= 17; prec++) {
    snprintf(buf, sizeof buf, "%.*e", prec - 1, d);
    if (strtod(buf, NULL) == d) break;
  }
  /* buf = [-]d[.ddd]e[+-]XX: split into digits and exponent */
  char digits[32];
  size_t k = 0;
  const char *p = buf;
  int neg = *p == '-';
  if (neg) p++;
  for (; *p && *p != 'e'; p++)
    if (*p != '.') digits[k++] = *p;
  digits[k] = 0;
  int n = atoi(p + 1) + 1; /* decimal point position */
  char out[64];
  size_t w = 0;
  if (neg) out[w++] = '-';
  if ((int)k <= n && n <= 21) {
    memcpy(out + w, digits, k), w += k;
    for (int i = (int)k; i < n; i++) out[w++] = '0';
  } else if (0 < n && n <= 21) {
    memcpy(out + w, digits, (size_t)n), w += (size_t)n;
    out[w++] = '.';
    memcpy(out + w, digits + n, k - (size_t)n), w += k - (size_t)n;
  } else if (-6 < n && n <= 0) {
    out[w++] = '0', out[w++] = '.';
    for (int i = 0; i < -n; i++) out[w++] = '0';
    memcpy(out + w, digits, k), w += k;
  } else {
    out[w++] = digits[0];
    if (k > 1) {
      out[w++] = '.';
      memcpy(out + w, digits + 1, k - 1), w += k - 1;
    }
    w += (size_t)snprintf(out + w, sizeof out - w, "e%c%d", n - 1 >= 0 ? '+' : '-', abs(n - 1));
  }
  return pm_buf_append(o, out, w);
}

static int put_hex(pm_buf *o, const uint8_t *b, size_t n) {
  static const char hexd[] = "0123456789abcdef";
  if (put(o, "\"0x") || pm_buf_reserve(o, 2 * n + 1)) return -1;
  for (size_t i = 0; i < n; i++) {
    o->data[o->len++] = (uint8_t)hexd[b[i] >> 4];
    o->data[o->len++] = (uint8_t)hexd[b[i] & 15];
  }
  return pm_buf_push_u8(o, '"');
}

/* avsc unwraps a union unless two branches fall in the same JavaScript bucket.
 * avro-dump decodes long with its own exact 64-bit type, which avsc puts in a
 * bucket of its own, so long never collides with int/float/double there. */
static int js_bucket(pm_avro_type t) {
  switch (t) {
    case PM_AVRO_NULL: return 0;
    case PM_AVRO_BOOLEAN: return 1;
    case PM_AVRO_LONG: return 7;
    case PM_AVRO_INT:
    case PM_AVRO_FLOAT:
    case PM_AVRO_DOUBLE: return 2;
    case PM_AVRO_STRING:
    case PM_AVRO_ENUM: return 3;
    case PM_AVRO_BYTES:
    case PM_AVRO_FIXED: return 4;
    case PM_AVRO_ARRAY: return 5;
    default: return 6; /* record, map */
  }
}

static int union_is_wrapped(const pm_avro_schema *u) {
  int seen = 0;
  for (size_t i = 0; i < u->branch_count; i++) {
    int b = 1 << js_bucket(u->branches[i]->type);
    if (seen & b) return 1;
    seen |= b;
  }
  return 0;
}

static int to_json(const pm_avro_value *v, pm_buf *o);

/* JavaScript array-index key ("0".."4294967294", canonical): such keys come
 * first in a JS object, in numeric order. Returns the index or -1. */
static int64_t js_index_key(const char *k, size_t len) {
  if (len == 0 || len > 10 || (len > 1 && k[0] == '0')) return -1;
  int64_t v = 0;
  for (size_t i = 0; i < len; i++) {
    if (k[i] < '0' || k[i] > '9') return -1;
    v = v * 10 + (k[i] - '0');
  }
  return v <= 4294967294LL ? v : -1;
}

/* A map prints like the JS object avsc builds: index keys first (ascending),
 * then the others in first-insertion order; a repeated key keeps its first
 * position and takes the last value. */
static int put_map(const pm_avro_value *v, pm_buf *o) {
  size_t n = v->count;
  size_t *order = malloc((n ? n : 1) * sizeof *order);
  if (!order) return -1;
  size_t m = 0;
  for (size_t i = 0; i < n; i++) { /* first occurrences */
    size_t j = 0;
    while (j < i && !(v->key_lens[j] == v->key_lens[i] && !memcmp(v->keys[j], v->keys[i], v->key_lens[i]))) j++;
    if (j == i) order[m++] = i;
  }
  /* stable insertion sort: index keys ascending before the rest */
  for (size_t a = 1; a < m; a++) {
    size_t cur = order[a];
    int64_t ck = js_index_key(v->keys[cur], v->key_lens[cur]);
    size_t b = a;
    while (b > 0 && ck >= 0) {
      int64_t pk = js_index_key(v->keys[order[b - 1]], v->key_lens[order[b - 1]]);
      if (pk >= 0 && pk <= ck) break;
      order[b] = order[b - 1];
      b--;
    }
    order[b] = cur;
  }
  int rc = put(o, "{");
  for (size_t a = 0; a < m && !rc; a++) {
    size_t k = order[a], last = k;
    for (size_t j = k + 1; j < n; j++)
      if (v->key_lens[j] == v->key_lens[k] && !memcmp(v->keys[j], v->keys[k], v->key_lens[k])) last = j;
    rc = (a && put(o, ",")) || put_json_string(o, (const uint8_t *)v->keys[k], v->key_lens[k]) || put(o, ":") ||
         to_json(&v->items[last], o);
  }
  free(order);
  return rc || put(o, "}");
}

static int to_json(const pm_avro_value *v, pm_buf *o) {
  const pm_avro_schema *s = v->schema;
  int wrapped = 0;
  if (v->declared && v->declared->type == PM_AVRO_UNION && s->type != PM_AVRO_NULL && union_is_wrapped(v->declared)) {
    wrapped = 1;
    const char *name = s->name ? s->name : pm_avro_type_name(s->type);
    if (put(o, "{") || put_json_string(o, (const uint8_t *)name, strlen(name)) || put(o, ":")) return -1;
  }
  char num[32];
  int rc = 0;
  switch (s->type) {
    case PM_AVRO_NULL: rc = put(o, "null"); break;
    case PM_AVRO_BOOLEAN: rc = put(o, v->u.boolean ? "true" : "false"); break;
    case PM_AVRO_INT:
    case PM_AVRO_LONG:
      snprintf(num, sizeof num, "%lld", (long long)v->u.l);
      rc = put(o, num);
      break;
    case PM_AVRO_FLOAT: rc = put_js_number(o, (double)v->u.f); break;
    case PM_AVRO_DOUBLE: rc = put_js_number(o, v->u.d); break;
    case PM_AVRO_STRING: rc = put_json_string(o, v->bytes, v->len); break;
    case PM_AVRO_BYTES:
    case PM_AVRO_FIXED: rc = put_hex(o, v->bytes, v->len); break;
    case PM_AVRO_ENUM: {
      const char *sym = v->u.l >= 0 && (uint64_t)v->u.l < s->symbol_count ? s->symbols[v->u.l] : "?";
      rc = put_json_string(o, (const uint8_t *)sym, strlen(sym));
      break;
    }
    case PM_AVRO_RECORD:
      rc = put(o, "{");
      for (size_t i = 0; i < v->count && !rc; i++) {
        const char *name = s->fields[i].name;
        rc = (i && put(o, ",")) || put_json_string(o, (const uint8_t *)name, strlen(name)) || put(o, ":") ||
             to_json(&v->items[i], o);
      }
      rc = rc || put(o, "}");
      break;
    case PM_AVRO_ARRAY:
      rc = put(o, "[");
      for (size_t i = 0; i < v->count && !rc; i++) rc = (i && put(o, ",")) || to_json(&v->items[i], o);
      rc = rc || put(o, "]");
      break;
    case PM_AVRO_MAP:
      rc = put_map(v, o);
      break;
    case PM_AVRO_UNION: rc = put(o, "null"); break;
  }
  if (!rc && wrapped) rc = put(o, "}");
  return rc;
}

int pm_avro_value_to_json(const pm_avro_value *v, pm_buf *out, pm_error *err) {
  return to_json(v, out) ? PM_NOMEM(err) : 0;
}

/* ---- encoding ------------------------------------------------------------ */

static int encode(pm_avro_encoder *e, const pm_avro_schema *s, const pm_avro_value *v, int depth, pm_error *err) {
  if (depth > PM_AVRO_MAX_VALUE_DEPTH)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro value nested too deeply to encode");
  if (s->type == PM_AVRO_UNION) {
    if (v->branch < 0 || (size_t)v->branch >= s->branch_count)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro union value without a valid branch");
    pm_avro_put_union(e, v->branch);
    s = s->branches[v->branch];
  }
  if (v->schema && v->schema->type != s->type)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro value of type %s where the schema has %s",
                     pm_avro_type_name(v->schema->type), pm_avro_type_name(s->type));
  switch (s->type) {
    case PM_AVRO_NULL: break;
    case PM_AVRO_BOOLEAN: pm_avro_put_boolean(e, v->u.boolean); break;
    case PM_AVRO_INT:
    case PM_AVRO_LONG:
    case PM_AVRO_ENUM: pm_avro_put_long(e, v->u.l); break;
    case PM_AVRO_FLOAT: pm_avro_put_float(e, v->u.f); break;
    case PM_AVRO_DOUBLE: pm_avro_put_double(e, v->u.d); break;
    case PM_AVRO_BYTES:
    case PM_AVRO_STRING: pm_avro_put_bytes(e, v->bytes, v->len); break;
    case PM_AVRO_FIXED:
      if (v->len != s->fixed_size)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro fixed value of %zu bytes for %s (size %zu)", v->len,
                         s->name, s->fixed_size);
      pm_avro_put_fixed(e, v->bytes, v->len);
      break;
    case PM_AVRO_RECORD:
      if (v->count != s->field_count)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro record %s value has %zu fields, schema %zu", s->name,
                         v->count, s->field_count);
      for (size_t i = 0; i < v->count; i++) PM_TRY(encode(e, s->fields[i].type, &v->items[i], depth + 1, err));
      break;
    case PM_AVRO_ARRAY:
    case PM_AVRO_MAP:
      if (v->count) {
        pm_avro_put_block_count(e, (int64_t)v->count);
        for (size_t i = 0; i < v->count; i++) {
          if (s->type == PM_AVRO_MAP) pm_avro_put_bytes(e, v->keys[i], v->key_lens[i]);
          PM_TRY(encode(e, s->items, &v->items[i], depth + 1, err));
        }
      }
      pm_avro_put_block_end(e);
      break;
    case PM_AVRO_UNION:
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "Avro union directly inside a union");
  }
  return e->failed ? PM_NOMEM(err) : 0;
}

int pm_avro_encode_value(pm_avro_encoder *e, const pm_avro_schema *s, const pm_avro_value *v, pm_error *err) {
  return encode(e, s, v, 0, err);
}
