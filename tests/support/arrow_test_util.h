/* Test helpers: schemas from a compact spec, arrays to JSON text. */
#ifndef PM_ARROW_TEST_UTIL_H
#define PM_ARROW_TEST_UTIL_H

#include "arrow/arrow.h"
#include "print/print.h"
#include "arrow/type.h"
#include "util/buf.h"

/* Spec: name ':' format [ '{' spec (';' spec)* '}' ], e.g.
 * "root:+s{a:i;b:+l{item:u};m:+m{entries:+s{key:u;value:d:10,2}}}". All nullable. */
__attribute__((unused)) static const char *tu_parse(const char *p, struct ArrowSchema *s) {
  char name[64], fmt[64];
  size_t n = 0;
  while (*p && *p != ':') name[n++] = *p++;
  name[n] = 0;
  p++;
  n = 0;
  while (*p && *p != '{' && *p != ';' && *p != '}') fmt[n++] = *p++;
  fmt[n] = 0;
  int nchild = 0;
  if (*p == '{') {
    int depth = 0;
    nchild = 1;
    for (const char *q = p + 1; *q; q++) {
      if (*q == '{') depth++;
      else if (*q == '}') {
        if (depth == 0) break;
        depth--;
      } else if (*q == ';' && depth == 0)
        nchild++;
    }
  }
  pm_error err;
  pm_schema_init(s, fmt, name, ARROW_FLAG_NULLABLE, nchild, &err);
  if (*p == '{') {
    p++;
    for (int i = 0; i < nchild; i++) {
      p = tu_parse(p, s->children[i]);
      p++; /* ';' or '}' */
    }
  }
  return p;
}

__attribute__((unused)) static void tu_schema(const char *spec, struct ArrowSchema *s) { tu_parse(spec, s); }

__attribute__((unused)) static void tu_type(const char *spec, pm_type *t) {
  struct ArrowSchema s;
  pm_error err;
  tu_schema(spec, &s);
  if (pm_type_from_schema(&s, t, &err)) fprintf(stderr, "bad spec %s: %s\n", spec, err.message);
  pm_schema_release(&s);
}

/* JSON text of rows [0, length) of a as "[v0,v1,...]" into a static buffer. */
__attribute__((unused)) static const char *tu_json(const pm_type *t, const struct ArrowArray *a) {
  static char text[65536];
  pm_buf out;
  pm_error err;
  pm_buf_init(&out);
  pm_buf_push_u8(&out, '[');
  for (int64_t i = 0; i < a->length; i++) {
    if (i) pm_buf_push_u8(&out, ',');
    if (pm_json_append_value(t, a, i, -1, &out, &err)) {
      snprintf(text, sizeof text, "ERROR %s", err.message);
      pm_buf_free(&out);
      return text;
    }
  }
  pm_buf_push_u8(&out, ']');
  size_t n = out.len < sizeof text - 1 ? out.len : sizeof text - 1;
  memcpy(text, out.data, n);
  text[n] = 0;
  pm_buf_free(&out);
  return text;
}

#endif
