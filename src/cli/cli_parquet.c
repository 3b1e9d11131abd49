/* paimon parquet schema|meta|cat|scan|convert */
#include <errno.h>
#include <inttypes.h>
#ifdef __GLIBC__
#include <malloc.h>
#endif
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "arrow/arrow.h"
#include "cli/print/print.h"
#include "cli/cli.h"
#include "cli/cli_output.h"
#include "format/parquet/parquet_meta.h"
#include "format/parquet/parquet_reader.h"
#include "paimon/file.h"

/* Supplied by the writer (src/cli/cli_parquet_convert.c); this weak stub is used until then. */
int cli_parquet_convert(int argc, char **argv);

__attribute__((weak)) int cli_parquet_convert(int argc, char **argv) {
  (void)argc;
  (void)argv;
  fprintf(stderr, "paimon parquet convert: not implemented\n");
  return 2;
}

static void usage(FILE *out) {
  fputs("usage: paimon parquet schema FILE\n"
        "       paimon parquet meta FILE\n"
        "       paimon parquet cat FILE [--select a,b] [--limit N] [--format table|jsonl|csv]\n"
        "           [--max-width N | --no-truncate]   (format: table on a terminal, else jsonl)\n"
        "       paimon parquet scan FILE [--select a,b] [--runs N] [--string-view]\n"
        "       paimon parquet convert ...\n",
        out);
}

static int fail(const pm_error *err) {
  fprintf(stderr, "paimon parquet: %s\n", err->message);
  return 1;
}

/* Splits "a,b,c" into a malloc'd array of pointers into a malloc'd copy. */
static char **split_list(const char *s, size_t *n, char **storage) {
  *storage = strdup(s);
  if (!*storage) return NULL;
  size_t cap = 1;
  for (const char *p = s; *p; p++) cap += *p == ',';
  char **v = calloc(cap, sizeof(char *));
  if (!v) return NULL;
  size_t k = 0;
  char *save = NULL;
  for (char *tok = strtok_r(*storage, ",", &save); tok; tok = strtok_r(NULL, ",", &save)) v[k++] = tok;
  *n = k;
  return v;
}

static const char *rep_name(const pm_pq_schema_elem *e) {
  if (!e->has_repetition) return "";
  return e->repetition == PM_PQ_REQUIRED ? "required" : e->repetition == PM_PQ_OPTIONAL ? "optional" : "repeated";
}

static void print_logical(const pm_pq_schema_elem *e) {
  const pm_pq_logical *lt = &e->logical;
  static const char *units[] = {"MILLIS", "MICROS", "NANOS"};
  switch (lt->kind) {
    case PM_PQ_LT_STRING: printf(" (STRING)"); break;
    case PM_PQ_LT_MAP: printf(" (MAP)"); break;
    case PM_PQ_LT_LIST: printf(" (LIST)"); break;
    case PM_PQ_LT_ENUM: printf(" (ENUM)"); break;
    case PM_PQ_LT_DECIMAL: printf(" (DECIMAL(%d,%d))", lt->precision, lt->scale); break;
    case PM_PQ_LT_DATE: printf(" (DATE)"); break;
    case PM_PQ_LT_TIME: printf(" (TIME(%s,%s))", units[lt->unit], lt->utc ? "true" : "false"); break;
    case PM_PQ_LT_TIMESTAMP: printf(" (TIMESTAMP(%s,%s))", units[lt->unit], lt->utc ? "true" : "false"); break;
    case PM_PQ_LT_INTEGER: printf(" (INTEGER(%d,%s))", lt->bit_width, lt->is_signed ? "true" : "false"); break;
    case PM_PQ_LT_JSON: printf(" (JSON)"); break;
    case PM_PQ_LT_BSON: printf(" (BSON)"); break;
    case PM_PQ_LT_UUID: printf(" (UUID)"); break;
    case PM_PQ_LT_FLOAT16: printf(" (FLOAT16)"); break;
    case PM_PQ_LT_UNKNOWN: printf(" (UNKNOWN)"); break;
    default:
      if (e->has_converted) {
        if (e->converted == PM_PQ_CT_DECIMAL) printf(" (DECIMAL(%d,%d))", e->precision, e->scale);
        else printf(" (%s)", pm_pq_converted_name(e->converted));
      }
  }
}

static void print_node(const pm_pq_node *n, int indent) {
  const pm_pq_schema_elem *e = n->elem;
  printf("%*s", indent, "");
  if (!n->parent) {
    printf("message %s {\n", e->name);
  } else if (n->leaf >= 0) {
    printf("%s %s", rep_name(e), pm_pq_type_name(e->type));
    if (e->type == PM_PQ_FIXED_LEN_BYTE_ARRAY) printf("(%d)", e->type_length);
    printf(" %s", e->name);
    print_logical(e);
    if (e->has_field_id) printf(" = %d", e->field_id);
    printf(";\n");
    return;
  } else {
    printf("%s group %s", rep_name(e), e->name);
    print_logical(e);
    if (e->has_field_id) printf(" = %d", e->field_id);
    printf(" {\n");
  }
  for (int i = 0; i < n->n_children; i++) print_node(n->children[i], indent + 2);
  printf("%*s}\n", indent, "");
}

static int cmd_schema(const char *path) {
  pm_error err;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(path, NULL, &r, &err)) return fail(&err);
  print_node(pm_pq_reader_meta(r)->root, 0);
  pm_pq_reader_close(r);
  return 0;
}

static void print_stat_value(const pm_pq_schema_elem *e, pm_pq_bytes v) {
  switch (e->type) {
    case PM_PQ_BOOLEAN:
      if (v.len >= 1) { printf("%s", v.p[0] ? "true" : "false"); return; }
      break;
    case PM_PQ_INT32:
      if (v.len == 4) {
        int32_t x;
        memcpy(&x, v.p, 4);
        int uns = (e->logical.kind == PM_PQ_LT_INTEGER && !e->logical.is_signed) ||
                  (e->has_converted && e->converted >= PM_PQ_CT_UINT_8 && e->converted <= PM_PQ_CT_UINT_32);
        if (uns) printf("%" PRIu32, (uint32_t)x);
        else printf("%" PRId32, x);
        return;
      }
      break;
    case PM_PQ_INT64:
      if (v.len == 8) {
        int64_t x;
        memcpy(&x, v.p, 8);
        int uns = (e->logical.kind == PM_PQ_LT_INTEGER && !e->logical.is_signed) ||
                  (e->has_converted && e->converted == PM_PQ_CT_UINT_64);
        if (uns) printf("%" PRIu64, (uint64_t)x);
        else printf("%" PRId64, x);
        return;
      }
      break;
    case PM_PQ_FLOAT:
      if (v.len == 4) {
        float f;
        memcpy(&f, v.p, 4);
        printf("%.9g", f);
        return;
      }
      break;
    case PM_PQ_DOUBLE:
      if (v.len == 8) {
        double d;
        memcpy(&d, v.p, 8);
        printf("%.17g", d);
        return;
      }
      break;
    default:
      break;
  }
  int text = e->type == PM_PQ_BYTE_ARRAY &&
             (e->logical.kind == PM_PQ_LT_STRING || (e->has_converted && e->converted == PM_PQ_CT_UTF8));
  if (text) {
    putchar('"');
    for (uint32_t i = 0; i < v.len && i < 64; i++) {
      unsigned char ch = v.p[i];
      if (ch == '"' || ch == '\\') printf("\\%c", ch);
      else if (ch < 0x20) printf("\\u%04x", ch);
      else putchar(ch);
    }
    printf(v.len > 64 ? "...\"" : "\"");
  } else {
    printf("0x");
    for (uint32_t i = 0; i < v.len && i < 32; i++) printf("%02x", v.p[i]);
    if (v.len > 32) printf("...");
  }
}

static int cmd_meta(const char *path) {
  pm_error err;
  pm_pq_reader *r;
  if (pm_pq_reader_open_path(path, NULL, &r, &err)) return fail(&err);
  const pm_pq_meta *m = pm_pq_reader_meta(r);
  printf("file: %s\n", path);
  printf("size: %llu bytes (footer %u bytes)\n", (unsigned long long)m->file_size, m->footer_len);
  printf("version: %d\n", m->version);
  printf("created_by: %s\n", m->created_by ? m->created_by : "");
  printf("num_rows: %lld\n", (long long)m->num_rows);
  printf("num_row_groups: %u\n", m->n_row_groups);
  printf("num_columns: %d\n", m->n_leaves);
  if (m->n_kv) {
    printf("key_value_metadata:\n");
    for (uint32_t i = 0; i < m->n_kv; i++) {
      const char *v = m->kv[i].value ? m->kv[i].value : "";
      size_t l = strlen(v);
      printf("  %s = %.*s%s\n", m->kv[i].key, (int)(l > 200 ? 200 : l), v, l > 200 ? "..." : "");
    }
  }
  for (uint32_t g = 0; g < m->n_row_groups; g++) {
    const pm_pq_row_group *rg = &m->row_groups[g];
    printf("row_group %u: num_rows=%lld total_byte_size=%lld", g, (long long)rg->num_rows,
           (long long)rg->total_byte_size);
    if (rg->has_total_compressed_size) printf(" total_compressed_size=%lld", (long long)rg->total_compressed_size);
    printf("\n");
    for (uint32_t c = 0; c < rg->n_columns; c++) {
      const pm_pq_column_chunk *cc = &rg->columns[c];
      const pm_pq_schema_elem *e = m->leaves[c].node->elem;
      printf("  column %u %s: type=%s codec=%s encodings=", c, m->leaves[c].path, pm_pq_type_name(cc->type),
             pm_pq_codec_name(cc->codec));
      for (uint32_t k = 0; k < cc->n_encodings; k++) printf("%s%s", k ? "," : "", pm_pq_encoding_name(cc->encodings[k]));
      printf(" num_values=%lld compressed=%lld uncompressed=%lld data_page_offset=%lld", (long long)cc->num_values,
             (long long)cc->total_compressed_size, (long long)cc->total_uncompressed_size,
             (long long)cc->data_page_offset);
      if (cc->has_dictionary_page_offset) printf(" dictionary_page_offset=%lld", (long long)cc->dictionary_page_offset);
      if (cc->has_column_index) printf(" column_index=%lld+%d", (long long)cc->column_index_offset, cc->column_index_length);
      if (cc->has_offset_index) printf(" offset_index=%lld+%d", (long long)cc->offset_index_offset, cc->offset_index_length);
      printf("\n");
      if (cc->has_statistics) {
        const pm_pq_stats *s = &cc->statistics;
        printf("    statistics:");
        if (s->has_null_count) printf(" null_count=%lld", (long long)s->null_count);
        if (s->has_distinct_count) printf(" distinct_count=%lld", (long long)s->distinct_count);
        if (s->has_min) { printf(" min="); print_stat_value(e, s->min); }
        if (s->has_max) { printf(" max="); print_stat_value(e, s->max); }
        if (!s->has_min && s->has_min_old) { printf(" min(old)="); print_stat_value(e, s->min_old); }
        if (!s->has_max && s->has_max_old) { printf(" max(old)="); print_stat_value(e, s->max_old); }
        printf("\n");
      }
    }
  }
  pm_pq_reader_close(r);
  return 0;
}

typedef struct cat_args {
  const char *path;
  const char *select;
  long long limit;
  int runs;
  int string_view; /* scan: decode strings as Arrow string views */
  cli_output out;
} cat_args;

static int parse_args(int argc, char **argv, cat_args *a, int allow_cat) {
  memset(a, 0, sizeof *a);
  a->limit = -1;
  a->runs = 1;
  cli_output_init(&a->out);
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "--select") && i + 1 < argc) {
      a->select = argv[++i];
    } else if (allow_cat && !strcmp(s, "--limit") && i + 1 < argc) {
      char *end;
      errno = 0;
      a->limit = strtoll(argv[++i], &end, 10);
      if (!*argv[i] || *end || a->limit < 0 || errno == ERANGE) {
        fprintf(stderr, "paimon parquet: invalid --limit '%s'\n", argv[i]);
        return 2;
      }
    } else if (!allow_cat && !strcmp(s, "--runs") && i + 1 < argc) {
      a->runs = atoi(argv[++i]);
      if (a->runs < 1 || a->runs > 1000) {
        fprintf(stderr, "paimon parquet: invalid --runs '%s'\n", argv[i]);
        return 2;
      }
    } else if (!allow_cat && !strcmp(s, "--string-view")) {
      a->string_view = 1;
    } else if (allow_cat && (!strcmp(s, "--format") || !strcmp(s, "--max-width") || !strcmp(s, "--no-truncate"))) {
      if (cli_output_arg(&a->out, "parquet cat", argc, argv, &i) <= 0) return 2;
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon parquet: unknown option %s\n", s);
      return 2;
    } else if (!a->path) {
      a->path = s;
    } else {
      fprintf(stderr, "paimon parquet: unexpected argument %s\n", s);
      return 2;
    }
  }
  if (!a->path) {
    usage(stderr);
    return 2;
  }
  return 0;
}

/* Opens the file as a stream (paimon/file.h) with --select, --limit and --string-view. */
static int open_with(const cat_args *a, struct ArrowArrayStream *s, pm_error *err) {
  paimon_file_read_options opt;
  paimon_file_read_options_init(&opt);
  opt.format = "parquet";
  opt.string_view = a->string_view;
  opt.limit = a->limit;
  char **names = NULL, *storage = NULL;
  size_t n = 0;
  if (a->select) {
    names = split_list(a->select, &n, &storage);
    if (!names) {
      free(storage);
      return pm_errorf(err, PAIMON_ERR_NOMEM, "out of memory");
    }
    opt.columns = (const char *const *)names;
    opt.n_columns = n;
  }
  int rc = (int)paimon_file_open(a->path, &opt, s, err);
  free(names);
  free(storage);
  return rc;
}

static int stream_error(struct ArrowArrayStream *s, pm_error *err) {
  const char *m = s->get_last_error(s);
  return pm_errorf(err, PAIMON_ERR_IO, "%s", m ? m : "read failed");
}

static int cmd_cat(int argc, char **argv) {
  cat_args a;
  int rc = parse_args(argc, argv, &a, 1);
  if (rc) return rc;
  pm_error err;
  struct ArrowArrayStream r;
  if (open_with(&a, &r, &err)) return fail(&err);
  struct ArrowSchema schema;
  if (r.get_schema(&r, &schema)) {
    stream_error(&r, &err);
    r.release(&r);
    return fail(&err);
  }
  pm_print_options po;
  memset(&po, 0, sizeof po);
  cli_output_apply(&a.out, &po);
  pm_printer *pr = NULL;
  rc = pm_printer_new(&schema, &po, &pr, &err);
  while (rc == 0) {
    struct ArrowArray batch;
    rc = r.get_next(&r, &batch) ? stream_error(&r, &err) : 0;
    if (rc || !batch.release) break;
    rc = pm_printer_print(pr, &batch, stdout, &err);
    batch.release(&batch);
  }
  if (rc == 0) rc = pm_printer_finish_file(pr, stdout, &err);
  fflush(stdout);
  pm_printer_free(pr);
  schema.release(&schema);
  r.release(&r);
  return rc ? fail(&err) : 0;
}

static double now_ms(void) {
  struct timespec t;
  clock_gettime(CLOCK_MONOTONIC, &t);
  return (double)t.tv_sec * 1e3 + (double)t.tv_nsec / 1e6;
}

/* Decodes every selected column completely and discards it. With --runs N
 * the scan repeats and the fastest run is reported. */
static int cmd_scan(int argc, char **argv) {
  cat_args a;
  int rc = parse_args(argc, argv, &a, 0);
  if (rc) return rc;
  double best = -1;
  int64_t rows = 0;
  for (int run = 0; run < a.runs; run++) {
    double t0 = now_ms();
    pm_error err;
    struct ArrowArrayStream r;
    if (open_with(&a, &r, &err)) return fail(&err);
    rows = 0;
    for (;;) {
      struct ArrowArray batch;
      rc = r.get_next(&r, &batch) ? stream_error(&r, &err) : 0;
      if (rc || !batch.release) break;
      rows += batch.length;
      batch.release(&batch);
    }
    r.release(&r);
    if (rc) return fail(&err);
    double ms = now_ms() - t0;
    if (best < 0 || ms < best) best = ms;
  }
  printf("rows=%lld elapsed_ms=%.3f\n", (long long)rows, best);
  return 0;
}

int cli_parquet_main(int argc, char **argv) {
#ifdef __GLIBC__
  /* Batches allocate and free large buffers repeatedly: keep them in the heap
   * instead of mmap/munmap (and page faults) for every batch. */
  mallopt(M_MMAP_THRESHOLD, 64 << 20);
  mallopt(M_TRIM_THRESHOLD, 256 << 20);
#endif
  if (argc >= 2 && !strcmp(argv[1], "convert")) return cli_parquet_convert(argc - 1, argv + 1); /* own --help */
  if (argc < 2 || cli_wants_help(argc, argv)) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  if (!strcmp(sub, "schema") || !strcmp(sub, "meta")) {
    if (argc != 3) {
      usage(stderr);
      return 2;
    }
    return !strcmp(sub, "schema") ? cmd_schema(argv[2]) : cmd_meta(argv[2]);
  }
  if (!strcmp(sub, "cat")) return cmd_cat(argc, argv);
  if (!strcmp(sub, "scan")) return cmd_scan(argc, argv);
  fprintf(stderr, "paimon parquet: unknown subcommand '%s'\n", sub);
  usage(stderr);
  return 2;
}
