/* Text descriptions of a Parquet file's schema and footer (parquet_describe.h). */
#include "format/parquet/parquet_describe.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"

static const char *rep_name(const pm_pq_schema_elem *e) {
  if (!e->has_repetition) return "";
  return e->repetition == PM_PQ_REQUIRED ? "required" : e->repetition == PM_PQ_OPTIONAL ? "optional" : "repeated";
}

static void print_logical(FILE *f, const pm_pq_schema_elem *e) {
  const pm_pq_logical *lt = &e->logical;
  static const char *units[] = {"MILLIS", "MICROS", "NANOS"};
  switch (lt->kind) {
    case PM_PQ_LT_STRING: fprintf(f, " (STRING)"); break;
    case PM_PQ_LT_MAP: fprintf(f, " (MAP)"); break;
    case PM_PQ_LT_LIST: fprintf(f, " (LIST)"); break;
    case PM_PQ_LT_ENUM: fprintf(f, " (ENUM)"); break;
    case PM_PQ_LT_DECIMAL: fprintf(f, " (DECIMAL(%d,%d))", lt->precision, lt->scale); break;
    case PM_PQ_LT_DATE: fprintf(f, " (DATE)"); break;
    case PM_PQ_LT_TIME: fprintf(f, " (TIME(%s,%s))", units[lt->unit], lt->utc ? "true" : "false"); break;
    case PM_PQ_LT_TIMESTAMP: fprintf(f, " (TIMESTAMP(%s,%s))", units[lt->unit], lt->utc ? "true" : "false"); break;
    case PM_PQ_LT_INTEGER: fprintf(f, " (INTEGER(%d,%s))", lt->bit_width, lt->is_signed ? "true" : "false"); break;
    case PM_PQ_LT_JSON: fprintf(f, " (JSON)"); break;
    case PM_PQ_LT_BSON: fprintf(f, " (BSON)"); break;
    case PM_PQ_LT_UUID: fprintf(f, " (UUID)"); break;
    case PM_PQ_LT_FLOAT16: fprintf(f, " (FLOAT16)"); break;
    case PM_PQ_LT_UNKNOWN: fprintf(f, " (UNKNOWN)"); break;
    default:
      if (e->has_converted) {
        if (e->converted == PM_PQ_CT_DECIMAL) fprintf(f, " (DECIMAL(%d,%d))", e->precision, e->scale);
        else fprintf(f, " (%s)", pm_pq_converted_name(e->converted));
      }
  }
}

static void print_node(FILE *f, const pm_pq_node *n, int indent) {
  const pm_pq_schema_elem *e = n->elem;
  fprintf(f, "%*s", indent, "");
  if (!n->parent) {
    fprintf(f, "message %s {\n", e->name);
  } else if (n->leaf >= 0) {
    fprintf(f, "%s %s", rep_name(e), pm_pq_type_name(e->type));
    if (e->type == PM_PQ_FIXED_LEN_BYTE_ARRAY) fprintf(f, "(%d)", e->type_length);
    fprintf(f, " %s", e->name);
    print_logical(f, e);
    if (e->has_field_id) fprintf(f, " = %d", e->field_id);
    fprintf(f, ";\n");
    return;
  } else {
    fprintf(f, "%s group %s", rep_name(e), e->name);
    print_logical(f, e);
    if (e->has_field_id) fprintf(f, " = %d", e->field_id);
    fprintf(f, " {\n");
  }
  for (int i = 0; i < n->n_children; i++) print_node(f, n->children[i], indent + 2);
  fprintf(f, "%*s}\n", indent, "");
}

static void describe_schema(FILE *f, const pm_pq_meta *m) { print_node(f, m->root, 0); }

static void print_stat_value(FILE *f, const pm_pq_schema_elem *e, pm_pq_bytes v) {
  switch (e->type) {
    case PM_PQ_BOOLEAN:
      if (v.len >= 1) { fprintf(f, "%s", v.p[0] ? "true" : "false"); return; }
      break;
    case PM_PQ_INT32:
      if (v.len == 4) {
        int32_t x;
        memcpy(&x, v.p, 4);
        int uns = (e->logical.kind == PM_PQ_LT_INTEGER && !e->logical.is_signed) ||
                  (e->has_converted && e->converted >= PM_PQ_CT_UINT_8 && e->converted <= PM_PQ_CT_UINT_32);
        if (uns) fprintf(f, "%" PRIu32, (uint32_t)x);
        else fprintf(f, "%" PRId32, x);
        return;
      }
      break;
    case PM_PQ_INT64:
      if (v.len == 8) {
        int64_t x;
        memcpy(&x, v.p, 8);
        int uns = (e->logical.kind == PM_PQ_LT_INTEGER && !e->logical.is_signed) ||
                  (e->has_converted && e->converted == PM_PQ_CT_UINT_64);
        if (uns) fprintf(f, "%" PRIu64, (uint64_t)x);
        else fprintf(f, "%" PRId64, x);
        return;
      }
      break;
    case PM_PQ_FLOAT:
      if (v.len == 4) {
        float x;
        memcpy(&x, v.p, 4);
        fprintf(f, "%.9g", x);
        return;
      }
      break;
    case PM_PQ_DOUBLE:
      if (v.len == 8) {
        double d;
        memcpy(&d, v.p, 8);
        fprintf(f, "%.17g", d);
        return;
      }
      break;
    default:
      break;
  }
  int text = e->type == PM_PQ_BYTE_ARRAY &&
             (e->logical.kind == PM_PQ_LT_STRING || (e->has_converted && e->converted == PM_PQ_CT_UTF8));
  if (text) {
    fputc('"', f);
    for (uint32_t i = 0; i < v.len && i < 64; i++) {
      unsigned char ch = v.p[i];
      if (ch == '"' || ch == '\\') fprintf(f, "\\%c", ch);
      else if (ch < 0x20) fprintf(f, "\\u%04x", ch);
      else fputc(ch, f);
    }
    fprintf(f, v.len > 64 ? "...\"" : "\"");
  } else {
    fprintf(f, "0x");
    for (uint32_t i = 0; i < v.len && i < 32; i++) fprintf(f, "%02x", v.p[i]);
    if (v.len > 32) fprintf(f, "...");
  }
}

static void describe_meta(FILE *f, const char *path, const pm_pq_meta *m) {
  fprintf(f, "file: %s\n", path);
  fprintf(f, "size: %llu bytes (footer %u bytes)\n", (unsigned long long)m->file_size, m->footer_len);
  fprintf(f, "version: %d\n", m->version);
  fprintf(f, "created_by: %s\n", m->created_by ? m->created_by : "");
  fprintf(f, "num_rows: %lld\n", (long long)m->num_rows);
  fprintf(f, "num_row_groups: %u\n", m->n_row_groups);
  fprintf(f, "num_columns: %d\n", m->n_leaves);
  if (m->n_kv) {
    fprintf(f, "key_value_metadata:\n");
    for (uint32_t i = 0; i < m->n_kv; i++) {
      const char *v = m->kv[i].value ? m->kv[i].value : "";
      size_t l = strlen(v);
      fprintf(f, "  %s = %.*s%s\n", m->kv[i].key, (int)(l > 200 ? 200 : l), v, l > 200 ? "..." : "");
    }
  }
  for (uint32_t g = 0; g < m->n_row_groups; g++) {
    const pm_pq_row_group *rg = &m->row_groups[g];
    fprintf(f, "row_group %u: num_rows=%lld total_byte_size=%lld", g, (long long)rg->num_rows,
           (long long)rg->total_byte_size);
    if (rg->has_total_compressed_size) fprintf(f, " total_compressed_size=%lld", (long long)rg->total_compressed_size);
    fprintf(f, "\n");
    for (uint32_t c = 0; c < rg->n_columns; c++) {
      const pm_pq_column_chunk *cc = &rg->columns[c];
      const pm_pq_schema_elem *e = m->leaves[c].node->elem;
      fprintf(f, "  column %u %s: type=%s codec=%s encodings=", c, m->leaves[c].path, pm_pq_type_name(cc->type),
             pm_pq_codec_name(cc->codec));
      for (uint32_t k = 0; k < cc->n_encodings; k++) fprintf(f, "%s%s", k ? "," : "", pm_pq_encoding_name(cc->encodings[k]));
      fprintf(f, " num_values=%lld compressed=%lld uncompressed=%lld data_page_offset=%lld", (long long)cc->num_values,
             (long long)cc->total_compressed_size, (long long)cc->total_uncompressed_size,
             (long long)cc->data_page_offset);
      if (cc->has_dictionary_page_offset) fprintf(f, " dictionary_page_offset=%lld", (long long)cc->dictionary_page_offset);
      if (cc->has_column_index) fprintf(f, " column_index=%lld+%d", (long long)cc->column_index_offset, cc->column_index_length);
      if (cc->has_offset_index) fprintf(f, " offset_index=%lld+%d", (long long)cc->offset_index_offset, cc->offset_index_length);
      fprintf(f, "\n");
      if (cc->has_statistics) {
        const pm_pq_stats *s = &cc->statistics;
        fprintf(f, "    statistics:");
        if (s->has_null_count) fprintf(f, " null_count=%lld", (long long)s->null_count);
        if (s->has_distinct_count) fprintf(f, " distinct_count=%lld", (long long)s->distinct_count);
        if (s->has_min) { fprintf(f, " min="); print_stat_value(f, e, s->min); }
        if (s->has_max) { fprintf(f, " max="); print_stat_value(f, e, s->max); }
        if (!s->has_min && s->has_min_old) { fprintf(f, " min(old)="); print_stat_value(f, e, s->min_old); }
        if (!s->has_max && s->has_max_old) { fprintf(f, " max(old)="); print_stat_value(f, e, s->max_old); }
        fprintf(f, "\n");
      }
    }
  }
}

int pm_pq_describe(const char *path, int meta, char **text, size_t *len, pm_error *err) {
  *text = NULL;
  *len = 0;
  pm_pq_reader *r;
  PM_TRY(pm_pq_reader_open_path(path, NULL, &r, err));
  FILE *f = open_memstream(text, len);
  if (!f) {
    pm_pq_reader_close(r);
    return PM_NOMEM(err);
  }
  if (meta) describe_meta(f, path, pm_pq_reader_meta(r));
  else describe_schema(f, pm_pq_reader_meta(r));
  int bad = ferror(f);
  if (fclose(f) != 0) bad = 1;
  pm_pq_reader_close(r);
  if (bad) {
    free(*text);
    *text = NULL;
    *len = 0;
    return PM_NOMEM(err);
  }
  return 0;
}
