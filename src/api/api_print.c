/* Public C API: the printer (include/paimon/print.h) over print/print.h. */
#include <stdlib.h>
#include <string.h>

#include "paimon/print.h"
#include "print/print.h"

struct paimon_printer {
  pm_printer *p;
};

void paimon_print_options_init(paimon_print_options *o) {
  if (o) memset(o, 0, sizeof *o);
}

paimon_status paimon_printer_new(const struct ArrowSchema *schema, const paimon_print_options *o,
                                 paimon_printer **out, paimon_error *err) {
  if (!out) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_printer_new: out is NULL");
  *out = NULL;
  if (!schema || !schema->format)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_printer_new: schema is NULL or released");
  if (o && (o->format < PAIMON_PRINT_JSONL || o->format > PAIMON_PRINT_TABLE))
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_printer_new: unknown format %d", (int)o->format);
  pm_print_options po;
  memset(&po, 0, sizeof po);
  if (o) {
    po.format = o->format == PAIMON_PRINT_CSV ? PM_PRINT_CSV : o->format == PAIMON_PRINT_TABLE ? PM_PRINT_TABLE : PM_PRINT_JSONL;
    po.fraction_digits = o->fraction_digits;
    po.n_fraction_digits = o->n_fraction_digits;
    po.no_header = o->no_header;
    po.max_cell_width = o->max_cell_width < 0 ? PM_PRINT_NO_TRUNCATE : o->max_cell_width;
    po.term_width = o->term_width;
    po.window_rows = o->window_rows;
    po.cut_left = o->cut_left;
    po.n_cut_left = o->n_cut_left;
  }
  paimon_printer *h = calloc(1, sizeof *h);
  if (!h) return PM_NOMEM(err);
  int rc = pm_printer_new(schema, &po, &h->p, err);
  if (rc) {
    free(h);
    return (paimon_status)rc;
  }
  *out = h;
  return PAIMON_OK;
}

paimon_status paimon_printer_print(paimon_printer *p, const struct ArrowArray *batch, FILE *f, paimon_error *err) {
  if (!p || !batch || !f) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_printer_print: NULL argument");
  return (paimon_status)pm_printer_print(p->p, batch, f, err);
}

paimon_status paimon_printer_finish(paimon_printer *p, FILE *f, paimon_error *err) {
  if (!p || !f) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "paimon_printer_finish: NULL argument");
  return (paimon_status)pm_printer_finish_file(p->p, f, err);
}

void paimon_printer_free(paimon_printer *p) {
  if (!p) return;
  pm_printer_free(p->p);
  free(p);
}
