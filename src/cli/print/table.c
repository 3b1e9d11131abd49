/* Aligned text table output. */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "cli/print/printer_impl.h"

#define LIT(out, s) PM_PRINT_LIT(out, s)
#define nomem pm_print_nomem

/* Number of UTF-8 code points (continuation bytes not counted). */
static int utf8_width(const uint8_t *s, size_t n) {
  int w = 0;
  for (size_t i = 0; i < n; i++) w += (s[i] & 0xC0) != 0x80;
  return w;
}

/* Byte length of the first `cps` code points. */
static size_t utf8_prefix(const uint8_t *s, size_t n, int cps) {
  size_t i = 0;
  int seen = 0;
  while (i < n) {
    if ((s[i] & 0xC0) != 0x80) {
      if (seen == cps) break;
      seen++;
    }
    i++;
  }
  return i;
}

/* Appends a table cell of w code points: control characters shown as
 * spaces, truncated to `width` (with "..."), padded to `width`. */
static int table_cell(pm_buf *out, const uint8_t *s, size_t n, int w, int width, int right) {
  int trunc = w > width;
  size_t keep = n;
  int shown = w;
  if (trunc) {
    int cps = width - 3 < 0 ? 0 : width - 3;
    keep = utf8_prefix(s, n, cps);
    shown = cps + 3;
  }
  int pad = width > shown ? width - shown : 0;
  if (pm_buf_reserve(out, keep + (size_t)pad + 8)) return PAIMON_ERR_NOMEM;
  uint8_t *o = out->data + out->len;
  if (right) {
    memset(o, ' ', (size_t)pad);
    o += pad;
  }
  for (size_t i = 0; i < keep; i++) o[i] = s[i] < 0x20 ? ' ' : s[i];
  o += keep;
  if (trunc) {
    memcpy(o, "...", 3);
    o += 3;
  }
  if (!right) {
    memset(o, ' ', (size_t)pad);
    o += pad;
  }
  out->len = (size_t)(o - out->data);
  return 0;
}

int pm_print_table(pm_printer *p, const struct ArrowArray *b, pm_buf *out, pm_error *err) {
  int64_t nc = p->type.n_children;
  int max = p->opts.max_cell_width;
  /* Cell texts of this batch in one buffer, with end offsets and widths per cell. */
  pm_buf texts;
  pm_buf_init(&texts);
  size_t ncells = (size_t)b->length * (size_t)(nc ? nc : 1);
  size_t *ends = malloc((ncells + 1) * sizeof *ends);
  int *cw = malloc((ncells + 1) * sizeof *cw);
  int rc = 0;
  if (!ends || !cw) goto oom;
  size_t k = 0;
  for (int64_t r = 0; r < b->length; r++) {
    int64_t pr = b->offset + r;
    int row_valid = pm_array_is_valid(b, r);
    for (int64_t c = 0; c < nc; c++, k++) {
      size_t start = texts.len;
      const pm_type *t = &p->type.children[c];
      const struct ArrowArray *col = b->children[c];
      if (!row_valid || t->id == PM_T_NULL || !pm_array_is_valid(col, pr)) {
        if (LIT(&texts, "null")) goto oom;
      } else if ((rc = pm_print_append_text(t, col, pr, p->digits[c], &texts, err))) {
        goto done;
      }
      ends[k] = texts.len;
      cw[k] = utf8_width(texts.data + start, texts.len - start);
    }
  }
  if (!p->started) {
    p->started = 1;
    for (int64_t c = 0; c < nc; c++) {
      const char *name = p->type.children[c].name ? p->type.children[c].name : "";
      int w = utf8_width((const uint8_t *)name, strlen(name));
      for (int64_t r = 0; r < b->length; r++) {
        int x = cw[(size_t)r * (size_t)nc + (size_t)c];
        if (x > w) w = x;
      }
      p->widths[c] = w > max ? max : w;
      if (p->widths[c] < 1) p->widths[c] = 1;
    }
    if (!p->opts.no_header) {
      for (int64_t c = 0; c < nc; c++) {
        const char *name = p->type.children[c].name ? p->type.children[c].name : "";
        int last_left = c == nc - 1 && !p->right_align[c];
        int nw = utf8_width((const uint8_t *)name, strlen(name));
        int width = last_left ? (nw < p->widths[c] ? nw : p->widths[c]) : p->widths[c];
        if ((c && LIT(out, " | ")) ||
            table_cell(out, (const uint8_t *)name, strlen(name), nw, width, p->right_align[c]))
          goto oom;
      }
      if (pm_buf_push_u8(out, '\n')) goto oom;
      for (int64_t c = 0; c < nc; c++) {
        if (c && LIT(out, "-+-")) goto oom;
        for (int i = 0; i < p->widths[c]; i++)
          if (pm_buf_push_u8(out, '-')) goto oom;
      }
      if (pm_buf_push_u8(out, '\n')) goto oom;
    }
  }
  k = 0;
  for (int64_t r = 0; r < b->length; r++) {
    for (int64_t c = 0; c < nc; c++, k++) {
      size_t s = k ? ends[k - 1] : 0;
      if (c && LIT(out, " | ")) goto oom;
      /* The last column is not padded when left-aligned: no trailing blanks. */
      int width = p->widths[c];
      if (c == nc - 1 && !p->right_align[c] && cw[k] < width) width = cw[k];
      if (table_cell(out, texts.data + s, ends[k] - s, cw[k], width, p->right_align[c])) goto oom;
    }
    if (pm_buf_push_u8(out, '\n')) goto oom;
  }
  goto done;
oom:
  rc = nomem(err);
done:
  free(ends);
  free(cw);
  pm_buf_free(&texts);
  return rc;
}

int pm_print_table_finish(pm_printer *p, pm_buf *out, pm_error *err) {
  for (int64_t c = 0; c < p->type.n_children; c++) {
    const char *name = p->type.children[c].name ? p->type.children[c].name : "";
    if ((c && LIT(out, " | ")) || pm_buf_append(out, name, strlen(name))) return nomem(err);
  }
  if (pm_buf_push_u8(out, '\n')) return nomem(err);
  return 0;
}
