/* Aligned text table output: rows are rendered into a window, measured
 * together and laid out (the rule is in print.h). */
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "print/printer_impl.h"
#include "print/width.h"

#define LIT(out, s) PM_PRINT_LIT(out, s)
#define nomem pm_print_nomem

#define WINDOW_BYTES ((size_t)8 << 20) /* cell text of one window, at least one row */
#define NULL_TEXT "NULL"

void pm_print_table_free(pm_printer *p) {
  pm_buf_free(&p->win_text);
  free(p->win_end);
  free(p->win_w);
  free(p->shown);
}

int pm_print_table_init(pm_printer *p) {
  size_t nc = (size_t)p->type.n_children;
  pm_buf_init(&p->win_text);
  if (p->opts.window_rows <= 0) p->opts.window_rows = PM_PRINT_WINDOW_ROWS;
  p->shown = calloc(nc + 1, sizeof *p->shown);
  return p->shown ? 0 : PAIMON_ERR_NOMEM;
}

static const char *col_name(const pm_printer *p, int64_t c) {
  return p->type.children[c].name ? p->type.children[c].name : "";
}

/* The width a cell of w columns asks of column c: numbers in full, other
 * text up to the maximum width. */
static int wanted(const pm_printer *p, int64_t c, int w) {
  int max = p->opts.max_cell_width;
  return p->right_align[c] || max < 0 || w <= max ? w : max;
}

/* Appends a cell shown `width` columns wide: control characters as blanks,
 * cut with "..." (at the end, or at the start for cut-left columns) when
 * wider, padded with blanks unless pad == 0. */
static int table_cell(pm_buf *out, const uint8_t *s, size_t n, int w, int width, int right, int cut_left,
                      int pad_it) {
  const char *dots = NULL;
  if (w > width) {
    int keep_cols = width > 3 ? width - 3 : 0;
    size_t from = 0;
    if (cut_left) {
      from = pm_print_suffix_fitting(s, n, keep_cols, &w);
    } else {
      n = pm_print_prefix_fitting(s, n, keep_cols, &w);
    }
    s += from;
    n -= from;
    w += 3;
    dots = "...";
  }
  int pad = pad_it && width > w ? width - w : 0;
  if (pm_buf_reserve(out, n + (size_t)pad + 8)) return PAIMON_ERR_NOMEM;
  uint8_t *o = out->data + out->len;
  if (right) {
    memset(o, ' ', (size_t)pad);
    o += pad;
  }
  if (dots && cut_left) {
    memcpy(o, dots, 3);
    o += 3;
  }
  for (size_t i = 0; i < n; i++) o[i] = s[i] < 0x20 ? ' ' : s[i];
  o += n;
  if (dots && !cut_left) {
    memcpy(o, dots, 3);
    o += 3;
  }
  if (!right) {
    memset(o, ' ', (size_t)pad);
    o += pad;
  }
  out->len = (size_t)(o - out->data);
  return 0;
}

/* How many columns fit the terminal (all when term_width is 0), and the width
 * each is shown at: a table too wide shows the first columns that fit, then
 * "..."; the last shown column is cut to fit unless it is a number. */
static int64_t fit_columns(pm_printer *p) {
  int64_t nc = p->type.n_children;
  int avail = p->opts.term_width;
  for (int64_t c = 0; c < nc; c++) p->shown[c] = p->widths[c];
  if (avail <= 0) return nc;
  int used = 0;
  for (int64_t c = 0; c < nc; c++) {
    int sep = c ? 3 : 0;
    long rest = 0;
    for (int64_t k = c; k < nc; k++) rest += p->widths[k] + (k > c ? 3 : 0);
    if (used + sep + rest <= avail) return nc;
    /* keep room for the header's " | ... (K more)" after column c */
    int room = avail - used - sep - snprintf(NULL, 0, " | ... (%lld more)", (long long)(nc - c - 1));
    if (p->widths[c] <= room) {
      used += sep + p->widths[c];
      continue;
    }
    if (!p->right_align[c] && room >= 4) {
      p->shown[c] = room;
      return c + 1;
    }
    if (c == 0) return 1; /* the first column is always shown, a number in full */
    return c;
  }
  return nc;
}

static int cut_left(const pm_printer *p, int64_t c) {
  return p->opts.cut_left && c < p->opts.n_cut_left && p->opts.cut_left[c];
}

static int write_header(pm_printer *p, int64_t nvis, pm_buf *out, pm_error *err) {
  int64_t nc = p->type.n_children;
  for (int64_t c = 0; c < nvis; c++) {
    const char *name = col_name(p, c);
    int nw = pm_print_text_width((const uint8_t *)name, strlen(name));
    int last = c == nvis - 1 && nvis == nc && !p->right_align[c];
    if ((c && LIT(out, " | ")) ||
        table_cell(out, (const uint8_t *)name, strlen(name), nw, p->shown[c], p->right_align[c], 0, !last))
      return nomem(err);
  }
  if (nvis < nc) {
    char more[48];
    int n = snprintf(more, sizeof more, " | ... (%lld more)", (long long)(nc - nvis));
    if (pm_buf_append(out, more, (size_t)n)) return nomem(err);
  }
  if (pm_buf_push_u8(out, '\n')) return nomem(err);
  for (int64_t c = 0; c < nvis; c++) {
    if (c && LIT(out, "-+-")) return nomem(err);
    if (pm_buf_reserve(out, (size_t)p->shown[c])) return nomem(err);
    memset(out->data + out->len, '-', (size_t)p->shown[c]);
    out->len += (size_t)p->shown[c];
  }
  if (nvis < nc && LIT(out, "-+----")) return nomem(err);
  if (pm_buf_push_u8(out, '\n')) return nomem(err);
  return 0;
}

/* Lays out the rows of the window into out and empties it. */
static int flush_window(pm_printer *p, pm_buf *out, pm_error *err) {
  int64_t nc = p->type.n_children;
  if (p->win_rows == 0 && p->header_done) return 0;
  /* Widths: the widest of header and cells, never narrower than before. */
  int grew = 0;
  for (int64_t c = 0; c < nc; c++) {
    const char *name = col_name(p, c);
    int w = wanted(p, c, pm_print_text_width((const uint8_t *)name, strlen(name)));
    for (int64_t r = 0; r < p->win_rows; r++) {
      int x = wanted(p, c, p->win_w[(size_t)r * (size_t)nc + (size_t)c]);
      if (x > w) w = x;
    }
    if (w < 1) w = 1;
    if (w > p->widths[c]) {
      grew |= p->header_done;
      p->widths[c] = w;
    }
  }
  int64_t nvis = fit_columns(p);
  if (!p->opts.no_header && (!p->header_done || grew)) PM_TRY(write_header(p, nvis, out, err));
  p->header_done = 1;
  size_t k = 0;
  for (int64_t r = 0; r < p->win_rows; r++) {
    for (int64_t c = 0; c < nc; c++, k++) {
      if (c >= nvis) continue;
      size_t s = k ? p->win_end[k - 1] : 0;
      /* The last column is not padded when left-aligned: no trailing blanks. */
      int last = c == nc - 1 && !p->right_align[c];
      if ((c && LIT(out, " | ")) || table_cell(out, p->win_text.data + s, p->win_end[k] - s, p->win_w[k], p->shown[c],
                                               p->right_align[c], cut_left(p, c), !last))
        return nomem(err);
    }
    if (nvis < nc && LIT(out, " | ...")) return nomem(err);
    if (pm_buf_push_u8(out, '\n')) return nomem(err);
  }
  p->win_rows = 0;
  p->win_text.len = 0;
  return 0;
}

static int grow_window(pm_printer *p, pm_error *err) {
  size_t nc = (size_t)(p->type.n_children ? p->type.n_children : 1);
  int64_t cap = p->win_cap ? p->win_cap * 2 : 64;
  if (cap > p->opts.window_rows) cap = p->opts.window_rows;
  size_t *e = realloc(p->win_end, (size_t)cap * nc * sizeof *e);
  if (!e) return nomem(err);
  p->win_end = e;
  int *w = realloc(p->win_w, (size_t)cap * nc * sizeof *w);
  if (!w) return nomem(err);
  p->win_w = w;
  p->win_cap = cap;
  return 0;
}

int pm_print_table(pm_printer *p, const struct ArrowArray *b, pm_buf *out, int flush, pm_error *err) {
  int64_t nc = p->type.n_children;
  for (int64_t r = 0; r < b->length; r++) {
    if (p->win_rows >= p->opts.window_rows || p->win_text.len >= WINDOW_BYTES) PM_TRY(flush_window(p, out, err));
    if (p->win_rows >= p->win_cap) PM_TRY(grow_window(p, err));
    int64_t pr = b->offset + r;
    int row_valid = pm_array_is_valid(b, r); /* a null top-level row prints as all-null fields */
    size_t k = (size_t)p->win_rows * (size_t)nc;
    for (int64_t c = 0; c < nc; c++, k++) {
      size_t start = p->win_text.len;
      const pm_type *t = &p->type.children[c];
      const struct ArrowArray *col = b->children[c];
      if (!row_valid || t->id == PM_T_NULL || !pm_array_is_valid(col, pr)) {
        if (LIT(&p->win_text, NULL_TEXT)) return nomem(err);
      } else {
        PM_TRY(pm_print_append_text(t, col, pr, p->digits[c], &p->win_text, err));
      }
      p->win_end[k] = p->win_text.len;
      p->win_w[k] = pm_print_text_width(p->win_text.data + start, p->win_text.len - start);
    }
    p->win_rows++;
  }
  if (flush && p->win_rows) PM_TRY(flush_window(p, out, err));
  return 0;
}

int pm_print_table_finish(pm_printer *p, pm_buf *out, pm_error *err) { return flush_window(p, out, err); }
