/* Import inputs (write.h "import inputs"): a data file, JSON lines or CSV as
 * an Arrow stream for writing into a table. Text input is typed by the
 * table's columns and read incrementally (bounded memory). */
#include <errno.h>
#include <fcntl.h>
#include <jansson.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "arrow/builder.h"
#include "arrow/csv_read.h"
#include "arrow/json_read.h"
#include "arrow/type.h"
#include "format/format.h"
#include "paimon/write.h"
#include "util/buf.h"
#include "util/str.h"

#define INPUT_BATCH_ROWS 8192
#define INPUT_READ_BYTES (1u << 20)

enum { IN_FORMAT, IN_JSONL, IN_CSV };

typedef struct input {
  int kind;
  char *name;
  pm_format_reader *r; /* IN_FORMAT */
  pm_buf file_bytes;   /* IN_FORMAT from a descriptor: the bytes the memory file views */
  pm_type row;         /* IN_JSONL / IN_CSV: the table's row type */
  int fd, close_fd;
  pm_buf pending; /* unconsumed input text at [pos, len) */
  size_t pos;
  int eof;
  int64_t line; /* lines consumed */
  pm_csv_record rec;
  int header_done;
  size_t n_header;
  int64_t *col_of_field; /* csv header field -> table column */
  char *row_kind_column; /* CDC input: the extra string column (jsonl/csv), or NULL */
} input;

static void input_free(void *st) {
  input *in = st;
  if (!in) return;
  pm_format_reader_close(in->r);
  pm_buf_free(&in->file_bytes);
  pm_type_free(&in->row);
  if (in->close_fd && in->fd >= 0) close(in->fd);
  pm_buf_free(&in->pending);
  pm_csv_record_free(&in->rec);
  free(in->col_of_field);
  free(in->row_kind_column);
  free(in->name);
  free(in);
}

static int input_schema(void *st, struct ArrowSchema *out, pm_error *err) {
  input *in = st;
  if (in->kind == IN_FORMAT) return pm_format_reader_schema(in->r, out, err);
  return pm_type_to_schema(&in->row, out, err);
}

/* Reads up to INPUT_READ_BYTES more into pending (dropping the consumed prefix); sets eof at the end. */
static int read_more(input *in, pm_error *err) {
  if (in->pos) {
    memmove(in->pending.data, in->pending.data + in->pos, in->pending.len - in->pos);
    in->pending.len -= in->pos;
    in->pos = 0;
  }
  if (pm_buf_reserve(&in->pending, INPUT_READ_BYTES)) return PM_NOMEM(err);
  for (;;) {
    ssize_t n = read(in->fd, in->pending.data + in->pending.len, INPUT_READ_BYTES);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return pm_errorf(err, PAIMON_ERR_IO, "%s: read failed: %s", in->name, strerror(errno));
    if (n == 0) in->eof = 1;
    in->pending.len += (size_t)n;
    return 0;
  }
}

static int64_t column_index(const pm_type *row, const char *name, size_t len) {
  for (int64_t c = 0; c < row->n_children; c++) {
    const char *cn = row->children[c].name ? row->children[c].name : "";
    if (strlen(cn) == len && !memcmp(cn, name, len)) return c;
  }
  return -1;
}

static int jsonl_line(input *in, pm_builder *b, const char *s, size_t n, pm_error *err) {
  if (n && s[n - 1] == '\n') n--;
  size_t k = 0;
  while (k < n && (s[k] == ' ' || s[k] == '\t' || s[k] == '\r')) k++;
  if (k == n) return 0;
  json_error_t je;
  json_t *v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
  if (!v) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "column %d: %s", je.column, je.text);
  int rc = 0;
  if (json_is_object(v)) {
    const char *key;
    json_t *val;
    json_object_foreach(v, key, val) {
      if (column_index(&in->row, key, strlen(key)) < 0) {
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "'%s' is not a column of the table", key);
        break;
      }
    }
  } else if (!json_is_array(v)) {
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "expected a JSON object (one row)");
  }
  json_t *rk = !rc && in->row_kind_column && json_is_object(v) ? json_object_get(v, in->row_kind_column) : NULL;
  if (rk && json_is_integer(rk)) { /* a RowKind byte 0..3: as its text, the column is a string */
    char num[32];
    snprintf(num, sizeof num, "%lld", (long long)json_integer_value(rk));
    json_object_set_new(v, in->row_kind_column, json_string(num));
  }
  if (!rc) rc = pm_builder_append_json(b, v, err);
  json_decref(v);
  return rc;
}

static int csv_header(input *in, pm_error *err) {
  const pm_csv_record *r = &in->rec;
  in->col_of_field = malloc((r->n ? r->n : 1) * sizeof *in->col_of_field);
  if (!in->col_of_field) return PM_NOMEM(err);
  in->n_header = r->n;
  for (size_t i = 0; i < r->n; i++) {
    const char *nm = (const char *)r->buf.data + r->off[i];
    int64_t c = column_index(&in->row, nm, r->len[i]);
    if (c < 0)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "header: '%.*s' is not a column of the table",
                       (int)r->len[i], nm);
    for (size_t j = 0; j < i; j++)
      if (in->col_of_field[j] == c)
        return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "header: column '%.*s' appears twice", (int)r->len[i],
                         nm);
    in->col_of_field[i] = c;
  }
  in->header_done = 1;
  return 0;
}

static int csv_row(input *in, pm_builder *b, pm_error *err) {
  const pm_csv_record *r = &in->rec;
  if (r->n == 1 && !r->quoted[0] && r->len[0] == 0 && in->n_header > 1) return 0; /* blank line */
  if (r->n != in->n_header)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%zu fields, the header has %zu", r->n, in->n_header);
  for (int64_t c = 0; c < in->row.n_children; c++) {
    pm_builder *cb = pm_builder_child(b, c);
    size_t h = 0;
    while (h < in->n_header && in->col_of_field[h] != c) h++;
    int rc = h < in->n_header ? pm_csv_append_field(cb, r, h, err) : pm_builder_append_null(cb, err);
    if (rc) return pm_error_prefix(err, "column '%s': ", in->row.children[c].name ? in->row.children[c].name : "");
  }
  return pm_builder_append_valid(b, err);
}

static int text_next(input *in, struct ArrowArray *out, pm_error *err) {
  pm_builder *b;
  PM_TRY(pm_builder_new(&in->row, &b, err));
  int rc = 0;
  while (!rc && pm_builder_length(b) < INPUT_BATCH_ROWS) {
    const char *s = in->pending.data ? (const char *)in->pending.data + in->pos : "";
    size_t avail = in->pending.len - in->pos, n;
    if (in->kind == IN_JSONL) {
      const char *nl = avail ? memchr(s, '\n', avail) : NULL;
      n = nl ? (size_t)(nl - s) + 1 : (in->eof ? avail : 0);
    } else {
      n = pm_csv_record_span(s, avail, in->eof);
    }
    if (!n) {
      if (in->eof) break;
      rc = read_more(in, err);
      continue;
    }
    in->pos += n;
    int64_t first_line = in->line + 1;
    for (size_t k = 0; k < n; k++) in->line += s[k] == '\n';
    if (s[n - 1] != '\n') in->line++;
    if (in->kind == IN_JSONL) {
      rc = jsonl_line(in, b, s, n, err);
    } else {
      rc = pm_csv_parse_record(s, n, &in->rec, err);
      if (!rc) rc = in->header_done ? csv_row(in, b, err) : csv_header(in, err);
    }
    if (rc) pm_error_prefix(err, "%s: line %lld: ", in->name, (long long)first_line);
  }
  if (!rc && in->kind == IN_CSV && !in->header_done && in->eof)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "%s: no header row (CSV input needs one naming the columns)",
                   in->name);
  if (!rc && pm_builder_length(b) > 0) rc = pm_builder_finish(b, out, err);
  else if (!rc) out->release = NULL;
  pm_builder_free(b);
  return rc;
}

static int input_next(void *st, struct ArrowArray *out, pm_error *err) {
  input *in = st;
  if (in->kind == IN_FORMAT) return pm_format_reader_next(in->r, out, err);
  return text_next(in, out, err);
}

static int kind_of(const char *format, const char *name, int *kind, const pm_format **f, pm_error *err) {
  *f = NULL;
  if (!format) {
    const char *dot = name ? strrchr(name, '.') : NULL;
    if (!dot)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "%s: cannot tell the format from the file name (give parquet, orc, avro, jsonl or csv)",
                       name ? name : "input");
    format = dot + 1;
    if (!strcasecmp(format, "json") || !strcasecmp(format, "ndjson")) format = "jsonl";
  }
  if (!strcasecmp(format, "jsonl")) *kind = IN_JSONL;
  else if (!strcasecmp(format, "csv")) *kind = IN_CSV;
  else if ((*f = pm_format_by_name(format)) && strcasecmp(format, "blob")) *kind = IN_FORMAT;
  else
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "%s: unknown input format '%s' (parquet, orc, avro, jsonl or csv)", name ? name : "input",
                     format);
  return 0;
}

/* Wanted timestamp units by field id, for ORC files (whose timestamps carry no unit): the
 * table's, so a Paimon-written ORC file reads back as the table types it. */
typedef struct ts_units {
  pm_format_ts_unit *v;
  size_t n, cap;
} ts_units;

static int collect_ts_units(const struct ArrowSchema *s, ts_units *u, pm_error *err) {
  for (int64_t i = 0; i < s->n_children; i++) {
    const struct ArrowSchema *c = s->children[i];
    char *id = pm_schema_metadata_get(c, "PARQUET:field_id");
    if (id && !strncmp(c->format, "ts", 2) && c->format[2]) {
      if (u->n == u->cap) {
        size_t cap = u->cap ? u->cap * 2 : 8;
        pm_format_ts_unit *v = realloc(u->v, cap * sizeof *v);
        if (!v) {
          free(id);
          return PM_NOMEM(err);
        }
        u->v = v;
        u->cap = cap;
      }
      u->v[u->n].field_id = (int32_t)atoi(id);
      u->v[u->n].unit = c->format[2];
      u->n++;
    }
    free(id);
    PM_TRY(collect_ts_units(c, u, err));
  }
  return 0;
}

/* The table's columns, plus a nullable string column rk when given (CDC text input). */
static int input_columns(const pm_table *t, const char *rk, struct ArrowSchema *out, pm_error *err) {
  size_t nf = t->schema->n_fields;
  if (!rk) return pm_dfields_to_arrow(t->schema->fields, nf, out, err);
  PM_TRY(pm_schema_init(out, "+s", "", 0, (int64_t)nf + 1, err));
  for (size_t f = 0; f < nf; f++) {
    pm_schema_release(out->children[f]);
    PM_TRY(pm_dfield_to_arrow(&t->schema->fields[f], out->children[f], err));
  }
  pm_schema_release(out->children[nf]);
  return pm_schema_init(out->children[nf], "u", rk, ARROW_FLAG_NULLABLE, 0, err);
}

static int open_input(const paimon_table *table, const char *path, int fd, const char *name, const char *format,
                      const char *row_kind_column, struct ArrowArrayStream *out, pm_error *err) {
  int kind = IN_FORMAT;
  const pm_format *f;
  PM_TRY(kind_of(format, path ? path : name, &kind, &f, err));
  input *in = calloc(1, sizeof *in);
  if (!in) return PM_NOMEM(err);
  in->kind = kind;
  in->fd = -1;
  pm_buf_init(&in->pending);
  pm_buf_init(&in->file_bytes);
  pm_csv_record_init(&in->rec);
  in->name = pm_strdup(path ? path : name);
  int rc = in->name ? 0 : PM_NOMEM(err);
  if (!rc && row_kind_column && kind != IN_FORMAT && !(in->row_kind_column = pm_strdup(row_kind_column)))
    rc = PM_NOMEM(err);
  if (!rc && path && kind != IN_FORMAT) {
    in->fd = open(path, O_RDONLY | O_CLOEXEC);
    in->close_fd = 1;
    if (in->fd < 0)
      rc = pm_errorf(err, errno == ENOENT ? PAIMON_ERR_NOT_FOUND : PAIMON_ERR_IO, "%s: cannot open: %s", path,
                     strerror(errno));
  } else if (!path) {
    in->fd = fd;
  }
  struct ArrowSchema ts;
  memset(&ts, 0, sizeof ts);
  if (!rc) rc = pm_dfields_to_arrow(table->t->schema->fields, table->t->schema->n_fields, &ts, err);
  struct ArrowSchema tk;
  memset(&tk, 0, sizeof tk);
  if (!rc && kind != IN_FORMAT) rc = input_columns(table->t, in->row_kind_column, &tk, err);
  if (!rc && kind != IN_FORMAT) rc = pm_type_from_schema(&tk, &in->row, err);
  if (tk.release) tk.release(&tk);
  if (!rc && kind == IN_FORMAT) {
    pm_file *file = NULL;
    if (path) {
      rc = pm_file_open(path, &file, err);
    } else {
      while (!rc && !in->eof) {
        rc = read_more(in, err);
      }
      if (!rc) {
        in->file_bytes = in->pending;
        pm_buf_init(&in->pending);
        rc = pm_file_from_memory(in->file_bytes.data, in->file_bytes.len, in->name, &file, err);
      }
    }
    pm_format_read_options o;
    pm_format_read_options_init(&o);
    o.data_schema = &ts; /* Avro fields are typed by the table's columns of the same name */
    ts_units u = {0};
    if (!rc) rc = collect_ts_units(&ts, &u, err);
    o.ts_units = u.v;
    o.n_ts_units = u.n;
    if (!rc) rc = pm_format_reader_open(f, file, &o, &in->r, err);
    else pm_file_close(file);
    free(u.v);
  }
  if (ts.release) ts.release(&ts);
  if (rc) {
    input_free(in);
    return rc;
  }
  static const pm_stream_callbacks cb = {input_schema, input_next, input_free};
  return pm_stream_init(out, &cb, in, err);
}

paimon_status paimon_table_open_input(const paimon_table *table, const char *path, const char *format,
                                      struct ArrowArrayStream *out, paimon_error *err) {
  CHECK_ARG(table && path && out, "NULL argument");
  CHECK_ARG(!table->system_table, "a system table cannot be written");
  return (paimon_status)open_input(table, path, -1, NULL, format, NULL, out, err);
}

paimon_status paimon_table_open_input_fd(const paimon_table *table, int fd, const char *name, const char *format,
                                         struct ArrowArrayStream *out, paimon_error *err) {
  CHECK_ARG(table && fd >= 0 && format && out, "NULL argument, negative descriptor or no format");
  CHECK_ARG(!table->system_table, "a system table cannot be written");
  return (paimon_status)open_input(table, NULL, fd, name ? name : "stdin", format, NULL, out, err);
}

paimon_status paimon_table_open_cdc_input(const paimon_table *table, const char *path, int fd, const char *format,
                                          const char *row_kind_column, struct ArrowArrayStream *out,
                                          paimon_error *err) {
  CHECK_ARG(table && out && row_kind_column && *row_kind_column && (path || (fd >= 0 && format)),
            "NULL argument, no row-kind column, or a descriptor without format");
  CHECK_ARG(!table->system_table, "a system table cannot be written");
  CHECK_ARG(pm_schema_field_index(table->t->schema, row_kind_column) < 0,
            "the row-kind column must not be a column of the table");
  return (paimon_status)open_input(table, path, path ? -1 : fd, path ? NULL : "stdin", format, row_kind_column, out,
                                   err);
}
