/* JSON lines and CSV output. */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "print/printer_impl.h"

#define LIT(out, s) PM_PRINT_LIT(out, s)
#define nomem pm_print_nomem

int pm_print_jsonl(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err) {
  int64_t nc = p->type.n_children;
  for (int64_t r = 0; r < b->length; r++) {
    int64_t pr = b->offset + r;
    if (!pm_array_is_valid(b, r)) {
      if (LIT(out, "null\n")) return nomem(err);
      continue;
    }
    if (pm_buf_push_u8(out, '{')) return nomem(err);
    for (int64_t c = 0; c < nc; c++) {
      if (pm_buf_append(out, p->col_names_json[c], p->col_names_len[c])) return nomem(err);
      PM_TRY(pm_json_append_value(&p->type.children[c], b->children[c], pr, p->digits[c], out, err));
    }
    if (LIT(out, "}\n")) return nomem(err);
  }
  return 0;
}

static int csv_field(pm_buf *out, const uint8_t *s, size_t n, int force_quote) {
  int quote = force_quote;
  for (size_t i = 0; i < n && !quote; i++)
    if (s[i] == ',' || s[i] == '"' || s[i] == '\n' || s[i] == '\r') quote = 1;
  if (!quote) return pm_buf_append(out, s, n);
  if (pm_buf_reserve(out, n * 2 + 2)) return PAIMON_ERR_NOMEM;
  uint8_t *w = out->data + out->len;
  *w++ = '"';
  for (size_t i = 0; i < n; i++) {
    if (s[i] == '"') *w++ = '"';
    *w++ = s[i];
  }
  *w++ = '"';
  out->len = (size_t)(w - out->data);
  return 0;
}

int pm_print_csv_header(pm_printer *p, pm_buf *out, pm_error *err) {
  for (int64_t c = 0; c < p->type.n_children; c++) {
    const char *name = p->type.children[c].name ? p->type.children[c].name : "";
    if ((c && pm_buf_push_u8(out, ',')) || csv_field(out, (const uint8_t *)name, strlen(name), 0))
      return nomem(err);
  }
  if (pm_buf_push_u8(out, '\n')) return nomem(err);
  return 0;
}

/* Renders a cell as raw text into p->cell (cleared first). Returns 1 in *is_null for nulls. */
static int render_cell(pm_printer *p, int64_t c, const struct ArrowArray *col, int64_t row, int *is_null,
                       pm_error *err) {
  p->cell.len = 0;
  const pm_type *t = &p->type.children[c];
  *is_null = t->id == PM_T_NULL || !pm_array_is_valid(col, row);
  if (*is_null) return 0;
  return pm_print_append_text(t, col, row, p->digits[c], &p->cell, err);
}

int pm_print_csv(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err) {
  int64_t nc = p->type.n_children;
  if (!p->started) {
    p->started = 1;
    if (!p->opts.no_header) PM_TRY(pm_print_csv_header(p, out, err));
  }
  for (int64_t r = 0; r < b->length; r++) {
    int64_t pr = b->offset + r;
    int row_valid = pm_array_is_valid(b, r); /* a null top-level row prints as all-null fields */
    for (int64_t c = 0; c < nc; c++) {
      if (c && pm_buf_push_u8(out, ',')) return nomem(err);
      if (!row_valid) continue;
      int is_null;
      PM_TRY(render_cell(p, c, b->children[c], pr, &is_null, err));
      if (is_null) continue;
      pm_type_id id = p->type.children[c].dict ? p->type.children[c].dict->id : p->type.children[c].id;
      /* A non-null empty value (string, or binary as empty base64) is "", so it reads back apart from null. */
      int empty_string = p->cell.len == 0 && (id == PM_T_UTF8 || id == PM_T_LARGE_UTF8 || id == PM_T_BINARY ||
                                              id == PM_T_LARGE_BINARY);
      if (csv_field(out, p->cell.data, p->cell.len, empty_string)) return nomem(err);
    }
    if (pm_buf_push_u8(out, '\n')) return nomem(err);
  }
  return 0;
}

