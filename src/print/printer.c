/* The printer: schema, options, dispatch to a format, FILE output. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "print/printer_impl.h"

#define LIT(out, s) PM_PRINT_LIT(out, s)
#define nomem pm_print_nomem

void pm_printer_free(pm_printer *p) {
  if (!p) return;
  if (p->col_names_json)
    for (int64_t c = 0; c < p->type.n_children; c++) pm_aligned_free(p->col_names_json[c]);
  free(p->col_names_json);
  free(p->col_names_len);
  free(p->digits);
  free(p->widths);
  free(p->right_align);
  free(p->cut_left);
  pm_print_table_free(p);
  pm_buf_free(&p->cell);
  pm_buf_free(&p->fbuf);
  pm_type_free(&p->type);
  free(p);
}

static int is_numeric(pm_type_id id) {
  return (id >= PM_T_INT8 && id <= PM_T_DOUBLE) || id == PM_T_DECIMAL128;
}

int pm_printer_new(const struct ArrowSchema *schema, const pm_print_options *opts, pm_printer **out, pm_error *err) {
  *out = NULL;
  pm_printer *p = calloc(1, sizeof *p);
  if (!p) return PM_NOMEM(err);
  pm_buf_init(&p->cell);
  pm_buf_init(&p->fbuf);
  int rc = pm_type_from_schema(schema, &p->type, err);
  if (rc) {
    free(p);
    return rc;
  }
  if (p->type.id != PM_T_STRUCT || p->type.dict) {
    pm_printer_free(p);
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: batch schema must be a struct (\"+s\"), got \"%s\"",
                     schema->format);
  }
  if (opts) p->opts = *opts;
  p->opts.fraction_digits = NULL;
  p->opts.cut_left = NULL;
  if (p->opts.max_cell_width == 0) p->opts.max_cell_width = PM_PRINT_MAX_WIDTH;
  else if (p->opts.max_cell_width < 0) p->opts.max_cell_width = PM_PRINT_NO_TRUNCATE;
  else if (p->opts.max_cell_width < 4) p->opts.max_cell_width = 4;
  size_t nc = (size_t)p->type.n_children;
  p->digits = calloc(nc + 1, sizeof *p->digits);
  p->col_names_json = calloc(nc + 1, sizeof *p->col_names_json);
  p->col_names_len = calloc(nc + 1, sizeof *p->col_names_len);
  p->widths = calloc(nc + 1, sizeof *p->widths);
  p->right_align = calloc(nc + 1, sizeof *p->right_align);
  if (!p->digits || !p->col_names_json || !p->col_names_len || !p->widths || !p->right_align || pm_print_table_init(p))
    goto nomem;
  if (opts && opts->cut_left && opts->n_cut_left > 0) {
    int *cl = calloc((size_t)opts->n_cut_left, sizeof *cl);
    if (!cl) goto nomem;
    memcpy(cl, opts->cut_left, (size_t)opts->n_cut_left * sizeof *cl);
    p->cut_left = cl;
    p->opts.cut_left = cl;
  }
  for (size_t c = 0; c < nc; c++) {
    p->digits[c] = opts && opts->fraction_digits && (int)c < opts->n_fraction_digits && opts->fraction_digits[c] >= 0
                       ? opts->fraction_digits[c]
                       : -1;
    const pm_type *ct = &p->type.children[c];
    p->right_align[c] = is_numeric(ct->dict ? ct->dict->id : ct->id);
    pm_buf nb;
    pm_buf_init(&nb);
    const char *name = ct->name ? ct->name : "";
    if ((c && pm_buf_push_u8(&nb, ',')) || pm_print_append_string(&nb, (const uint8_t *)name, (int64_t)strlen(name), 1) ||
        pm_buf_push_u8(&nb, ':')) {
      pm_buf_free(&nb);
      goto nomem;
    }
    p->col_names_len[c] = nb.len;
    p->col_names_json[c] = pm_buf_detach(&nb, NULL);
  }
  *out = p;
  return 0;
nomem:
  pm_printer_free(p);
  return PM_NOMEM(err);
}

static int check_batch(pm_printer *p, const struct ArrowArray *b, pm_error *err) {
  if (!b || !b->release) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: batch is NULL or released");
  if (b->n_children != p->type.n_children)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: batch has %lld columns, schema has %lld",
                     (long long)b->n_children, (long long)p->type.n_children);
  for (int64_t c = 0; c < b->n_children; c++)
    if (!b->children[c] || b->children[c]->length < b->offset + b->length)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: column %lld (%s) is shorter than the batch",
                       (long long)c, p->type.children[c].name ? p->type.children[c].name : "");
  return 0;
}

int pm_printer_write(pm_printer *p, const struct ArrowArray *batch, pm_buf *out, pm_error *err) {
  PM_TRY(check_batch(p, batch, err));
  switch (p->opts.format) {
    case PM_PRINT_JSONL: return pm_print_jsonl(p, batch, out, err);
    case PM_PRINT_CSV: return pm_print_csv(p, batch, out, err);
    case PM_PRINT_TABLE: return pm_print_table(p, batch, out, 1, err);
  }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "print: unknown output format %d", (int)p->opts.format);
}

static int write_failed(pm_error *err) {
  int e = errno;
  return pm_errorf(err, PAIMON_ERR_IO, "cannot write output: %s", e ? strerror(e) : "write error");
}

/* Writes the staged bytes; a failed write (disk full, closed pipe...) is an
 * error naming the system's reason, at the first write that fails. */
static int flush_file(pm_buf *b, FILE *f, pm_error *err) {
  errno = 0;
  size_t n = b->len;
  b->len = 0;
  if ((n && fwrite(b->data, 1, n, f) != n) || ferror(f)) return write_failed(err);
  return 0;
}

int pm_printer_print(pm_printer *p, const struct ArrowArray *batch, FILE *f, pm_error *err) {
  PM_TRY(check_batch(p, batch, err));
  if (p->opts.format == PM_PRINT_TABLE) {
    int rc = pm_print_table(p, batch, &p->fbuf, 0, err);
    if (rc) {
      p->fbuf.len = 0;
      return rc;
    }
    return flush_file(&p->fbuf, f, err);
  }
  /* Chunk rows so the staging buffer stays around 1 MiB. */
  struct ArrowArray view = *batch;
  const int64_t chunk = 4096;
  for (int64_t r = 0; r < batch->length; r += chunk) {
    view.offset = batch->offset + r;
    view.length = batch->length - r < chunk ? batch->length - r : chunk;
    int rc = p->opts.format == PM_PRINT_CSV ? pm_print_csv(p, &view, &p->fbuf, err) : pm_print_jsonl(p, &view, &p->fbuf, err);
    if (rc) {
      p->fbuf.len = 0;
      return rc;
    }
    if (p->fbuf.len >= (1u << 20)) PM_TRY(flush_file(&p->fbuf, f, err));
  }
  return flush_file(&p->fbuf, f, err);
}

int pm_printer_finish(pm_printer *p, pm_buf *out, pm_error *err) {
  if (p->opts.format == PM_PRINT_TABLE) return pm_print_table_finish(p, out, err);
  if (p->started || p->opts.format == PM_PRINT_JSONL || p->opts.no_header) return 0;
  p->started = 1;
  return pm_print_csv_header(p, out, err);
}

int pm_printer_finish_file(pm_printer *p, FILE *f, pm_error *err) {
  PM_TRY(pm_printer_finish(p, &p->fbuf, err));
  PM_TRY(flush_file(&p->fbuf, f, err));
  errno = 0;
  if (fflush(f) || ferror(f)) return write_failed(err);
  return 0;
}

int pm_print_batch(const struct ArrowSchema *schema, const struct ArrowArray *batch, const pm_print_options *opts,
                   FILE *f, pm_error *err) {
  pm_printer *p;
  PM_TRY(pm_printer_new(schema, opts, &p, err));
  int rc = pm_printer_print(p, batch, f, err);
  pm_printer_free(p);
  return rc;
}

int pm_print_batch_to_buf(const struct ArrowSchema *schema, const struct ArrowArray *batch,
                          const pm_print_options *opts, pm_buf *out, pm_error *err) {
  pm_printer *p;
  PM_TRY(pm_printer_new(schema, opts, &p, err));
  int rc = pm_printer_write(p, batch, out, err);
  pm_printer_free(p);
  return rc;
}
