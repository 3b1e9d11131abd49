/* Text descriptions of an ORC file's types and footer (orc_describe.h). */
#include "format/orc/orc_describe.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/orc/orc_reader.h"
#include "io/file.h"

static void print_indent(FILE *f, int depth) {
  for (int i = 0; i < depth; i++) fputs("  ", f);
}

static void print_type(FILE *f, const pm_orc_reader *r, uint32_t id, int depth) {
  const pm_orc_column_info *c = pm_orc_reader_column(r, id);
  print_indent(f, depth);
  fprintf(f, "%u %s%s%s", id, c->name[0] ? c->name : "", c->name[0] ? ": " : "", pm_orc_kind_name(c->kind));
  if (c->kind == PM_ORC_DECIMAL) fprintf(f, "(%u,%u)", c->precision, c->scale);
  if (c->kind == PM_ORC_CHAR || c->kind == PM_ORC_VARCHAR) fprintf(f, "(%u)", c->max_length);
  size_t na = pm_orc_reader_column_attribute_count(r, id);
  for (size_t i = 0; i < na; i++) {
    const char *k, *v;
    pm_orc_reader_column_attribute(r, id, i, &k, &v);
    fprintf(f, " %s=%s", k, v);
  }
  fputc('\n', f);
  for (uint32_t i = 0; i < c->n_children; i++) print_type(f, r, c->children[i], depth + 1);
}

static void print_stats(FILE *f, const pm_orc_column_stats *s) {
  fprintf(f, "values=%llu", (unsigned long long)s->num_values);
  if (s->has_null >= 0) fprintf(f, " has_null=%s", s->has_null ? "true" : "false");
  if (s->null_count >= 0) fprintf(f, " nulls=%lld", (long long)s->null_count);
  if (s->has_int) fprintf(f, " min=%lld max=%lld", (long long)s->min_int, (long long)s->max_int);
  if (s->has_double) fprintf(f, " min=%.17g max=%.17g", s->min_double, s->max_double);
  if (s->has_bytes) fprintf(f, " min=\"%.*s\" max=\"%.*s\"", (int)s->min_len, s->min_bytes, (int)s->max_len, s->max_bytes);
  if (s->has_decimal) fprintf(f, " min=%s max=%s", s->min_decimal, s->max_decimal);
  if (s->has_timestamp)
    fprintf(f, " min_ms=%lld(+%dns) max_ms=%lld(+%dns)", (long long)s->min_ts_millis, (int)s->min_ts_nanos,
           (long long)s->max_ts_millis, (int)s->max_ts_nanos);
}

static int describe_meta(FILE *f, pm_orc_reader *r, pm_error *err) {
  fprintf(f, "rows: %llu\n", (unsigned long long)pm_orc_reader_num_rows(r));
  fprintf(f, "compression: %s (block size %llu)\n", pm_orc_reader_compression_name(r),
         (unsigned long long)pm_orc_reader_compression_block_size(r));
  fprintf(f, "writer version: %u\n", pm_orc_reader_writer_version(r));
  fprintf(f, "software version: %s\n", pm_orc_reader_software_version(r));
  fprintf(f, "row index stride: %u\n", pm_orc_reader_row_index_stride(r));
  size_t nm = pm_orc_reader_user_metadata_count(r);
  for (size_t i = 0; i < nm; i++) {
    const char *k;
    const uint8_t *v;
    size_t vl;
    pm_orc_reader_user_metadata(r, i, &k, &v, &vl);
    fprintf(f, "metadata: %s (%zu bytes)\n", k, vl);
  }
  fputs("types:" "\n", f);
  print_type(f, r, 0, 1);
  size_t nc = pm_orc_reader_num_columns(r);
  fputs("file statistics:" "\n", f);
  for (size_t c = 0; c < nc; c++) {
    pm_orc_column_stats s;
    if (pm_orc_reader_file_stats(r, c, &s, err) != 0) continue;
    fprintf(f, "  column %zu: ", c);
    print_stats(f, &s);
    fputc('\n', f);
  }
  size_t ns = pm_orc_reader_num_stripes(r);
  pm_orc_encoding *enc = calloc(nc ? nc : 1, sizeof *enc);
  uint32_t *dsz = calloc(nc ? nc : 1, sizeof *dsz);
  if (!enc || !dsz) {
    free(enc);
    free(dsz);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < ns; i++) {
    const pm_orc_stripe_info *s = pm_orc_reader_stripe(r, i);
    fprintf(f, "stripe %zu: offset=%llu index=%llu data=%llu footer=%llu rows=%llu\n", i, (unsigned long long)s->offset,
           (unsigned long long)s->index_length, (unsigned long long)s->data_length,
           (unsigned long long)s->footer_length, (unsigned long long)s->num_rows);
    if (pm_orc_reader_stripe_encodings(r, i, enc, dsz, err) == 0) {
      fprintf(f, "  encodings:");
      for (size_t c = 0; c < nc; c++) {
        fprintf(f, " %zu:%s", c, pm_orc_encoding_name(enc[c]));
        if (enc[c] == PM_ORC_ENC_DICTIONARY || enc[c] == PM_ORC_ENC_DICTIONARY_V2) fprintf(f, "[%u]", dsz[c]);
      }
      fputc('\n', f);
    } else {
      free(enc);
      free(dsz);
      return err->code;
    }
    for (size_t c = 0; c < nc; c++) {
      pm_orc_column_stats st;
      if (pm_orc_reader_stripe_stats(r, i, c, &st, err) != 0) break;
      fprintf(f, "  column %zu: ", c);
      print_stats(f, &st);
      fputc('\n', f);
    }
  }
  free(enc);
  free(dsz);
  pm_error_clear(err);
  return 0;
}

int pm_orc_describe(const char *path, const char *const *columns, size_t n_columns, int meta, char **text,
                    size_t *len, pm_error *err) {
  *text = NULL;
  *len = 0;
  pm_file *file = NULL;
  PM_TRY(pm_file_open(path, &file, err));
  pm_orc_read_options o;
  pm_orc_read_options_init(&o);
  o.columns = columns;
  o.n_columns = n_columns;
  pm_orc_reader *r = NULL;
  int rc = pm_orc_reader_open(file, &o, &r, err);
  if (rc) {
    pm_file_close(file);
    return rc;
  }
  FILE *f = open_memstream(text, len);
  if (!f) rc = PM_NOMEM(err);
  else if (meta) rc = describe_meta(f, r, err);
  else print_type(f, r, 0, 0);
  if (f) {
    int bad = ferror(f);
    if (fclose(f) != 0 || bad) {
      free(*text);
      *text = NULL;
      *len = 0;
      if (!rc) rc = PM_NOMEM(err);
    }
  }
  pm_orc_reader_close(r);
  pm_file_close(file);
  return rc;
}
