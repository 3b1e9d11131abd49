/* Shared by tests/arrow/test_json_roundtrip.c and fuzz/fuzz_arrow_json.c: JSON lines read into a nested batch
 * must validate, survive every kernel and printer, and print -> read -> print must be a fixed point. */
#ifndef PM_ARROW_JSON_ROUNDTRIP_H
#define PM_ARROW_JSON_ROUNDTRIP_H

#include <stdlib.h>
#include <string.h>

#include "arrow/builder.h"
#include "arrow/compute.h"
#include "arrow/json_read.h"
#include "print/print.h"
#include "arrow/validate.h"

/* The row type every input is read as. */
static int jrt_type(pm_type *t, pm_error *err) {
  struct {
    const char *name, *format;
  } leaves[] = {{"b", "b"},     {"i8", "c"},   {"i", "i"},      {"l", "l"},     {"f", "f"},
                {"g", "g"},     {"d", "d:9,3"}, {"dt", "tdD"},  {"tm", "ttu"},  {"ts", "tsn:"},
                {"tz", "tsm:UTC"}, {"s", "u"}, {"z", "z"},      {"w", "w:2"}};
  int nl = (int)(sizeof leaves / sizeof *leaves);
  PM_TRY(pm_type_init(t, PM_T_STRUCT, "row", 0, nl + 3, err));
  for (int i = 0; i < nl; i++) {
    int rc = pm_type_parse_format(leaves[i].format, &t->children[i], leaves[i].name, err);
    if (rc) return rc;
    t->children[i].name = strdup(leaves[i].name);
    t->children[i].nullable = 1;
  }
  /* a: list<struct<k: utf8, v: list<double>>> */
  pm_type *a = &t->children[nl];
  PM_TRY(pm_type_init(a, PM_T_LIST, "a", 1, 1, err));
  PM_TRY(pm_type_init(&a->children[0], PM_T_STRUCT, "item", 1, 2, err));
  PM_TRY(pm_type_init(&a->children[0].children[0], PM_T_UTF8, "k", 1, 0, err));
  PM_TRY(pm_type_init(&a->children[0].children[1], PM_T_LIST, "v", 1, 1, err));
  PM_TRY(pm_type_init(&a->children[0].children[1].children[0], PM_T_DOUBLE, "item", 1, 0, err));
  /* m: map<int32, fixed_list<2, int16>> */
  pm_type *m = &t->children[nl + 1];
  PM_TRY(pm_type_init(m, PM_T_MAP, "m", 1, 1, err));
  PM_TRY(pm_type_init(&m->children[0], PM_T_STRUCT, "entries", 0, 2, err));
  PM_TRY(pm_type_init(&m->children[0].children[0], PM_T_INT32, "key", 0, 0, err));
  PM_TRY(pm_type_init(&m->children[0].children[1], PM_T_FIXED_LIST, "value", 1, 1, err));
  m->children[0].children[1].width = 2;
  PM_TRY(pm_type_init(&m->children[0].children[1].children[0], PM_T_INT16, "item", 1, 0, err));
  /* r: struct<x: large_utf8, y: date32> */
  pm_type *r = &t->children[nl + 2];
  PM_TRY(pm_type_init(r, PM_T_STRUCT, "r", 1, 2, err));
  PM_TRY(pm_type_init(&r->children[0], PM_T_LARGE_UTF8, "x", 1, 0, err));
  PM_TRY(pm_type_init(&r->children[1], PM_T_DATE32, "y", 1, 0, err));
  return 0;
}

/* Returns 0 when the input was rejected or every property held, 1 on a property violation
 * (message in *why). */
static int jrt_check(const pm_type *t, const char *text, size_t len, const char **why) {
  pm_error err;
  struct ArrowArray a;
  *why = NULL;
  if (pm_json_lines_to_array(t, text, len, &a, &err)) return 0;
  struct ArrowSchema s;
  int bad = 0;
  pm_buf p1, p2;
  pm_buf_init(&p1);
  pm_buf_init(&p2);
  if (pm_type_to_schema(t, &s, &err)) {
    pm_array_release(&a);
    return 0;
  }
  if (pm_arrow_validate_ex(&s, &a, PM_VALIDATE_UTF8, &err)) {
    *why = "reader output does not validate";
    bad = 1;
    goto done;
  }
  for (int f = 1; f < 3; f++) {
    pm_print_options o = {.format = (pm_print_format)f};
    pm_buf tmp;
    pm_buf_init(&tmp);
    if (pm_print_batch_to_buf(&s, &a, &o, &tmp, &err)) bad = 1, *why = "csv/table printing failed";
    pm_buf_free(&tmp);
  }
  if (pm_print_batch_to_buf(&s, &a, NULL, &p1, &err)) {
    *why = "jsonl printing failed";
    bad = 1;
    goto done;
  }
  struct ArrowArray b;
  if (pm_json_lines_to_array(t, (const char *)p1.data, p1.len, &b, &err)) {
    *why = "printed JSONL does not read back";
    bad = 1;
    goto done;
  }
  int prc = pm_print_batch_to_buf(&s, &b, NULL, &p2, &err);
  if (prc || p1.len != p2.len || memcmp(p1.data, p2.data, p1.len) != 0) {
    *why = "print -> read -> print is not a fixed point";
    bad = 1;
  }
  if (!bad && a.length > 0) {
    int64_t idx[8];
    for (int i = 0; i < 8; i++) idx[i] = i % 3 == 2 ? -1 : (int64_t)((i * 7) % a.length);
    struct ArrowArray r;
    const struct ArrowArray *parts[2] = {&a, &b};
    if (pm_take(t, &a, idx, 8, &r, &err) == 0) {
      if (pm_arrow_validate(&s, &r, &err)) *why = "take output does not validate", bad = 1;
      pm_array_release(&r);
    } else {
      *why = "take failed", bad = 1;
    }
    if (pm_concat(t, parts, 2, &r, &err) == 0) {
      if (pm_arrow_validate(&s, &r, &err) || r.length != 2 * a.length) *why = "concat output invalid", bad = 1;
      pm_array_release(&r);
    } else {
      *why = "concat failed", bad = 1;
    }
  }
  pm_array_release(&b);
done:
  pm_buf_free(&p1);
  pm_buf_free(&p2);
  pm_schema_release(&s);
  pm_array_release(&a);
  return bad;
}

#endif
