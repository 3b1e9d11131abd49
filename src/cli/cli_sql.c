/*
 * paimon sql [-w WAREHOUSE] [-e "SQL" | FILE] [--format table|jsonl|csv]: SQL over Paimon tables
 * through SQLite and the `paimon` virtual-table module (include/paimon/sqlite.h). With a
 * warehouse, its databases are attached first (SELECT paimon_attach('warehouse=...')).
 * Statements come from -e, FILE ("-" = stdin) or stdin; on a terminal, interactively with
 * line editing and history (libedit). Result rows go through the printers of `table read`
 * (paimon/print.h), a window of rows at a time; errors are one line naming the statement's
 * position ("paimon sql: line 3, column 1: no such table: db.x").
 */
#include <editline/readline.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>
#include <unistd.h>

#include "cli/cli.h"
#include "cli/cli_output.h"
#include "paimon/paimon.h"
#include "paimon/print.h"
#include "paimon/sqlite.h"

#define WINDOW_ROWS 1024

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] sql [-e SQL | FILE] " CLI_OUTPUT_USAGE "\n"
        "\n"
        "Runs SQL (SQLite's dialect) over Paimon tables: each database of the warehouse is a\n"
        "schema, each table a virtual table (SELECT * FROM db.t; system tables db.\"t$snapshots\",\n"
        "branches db.\"t$branch_b\"). Statements come from -e, FILE (- for stdin) or stdin, and\n"
        "interactively with line editing when stdin is a terminal. SQLite attaches at most 10\n"
        "databases: a warehouse with more has each attached when a statement first names it.\n"
        "Rows print as `table read` prints them.\n"
        "\n"
        "  -e SQL       run these statements\n"
        "  FILE         run the statements of FILE\n"
        "  --format F   table (default on a terminal), jsonl or csv\n",
        out);
}

/* ---------------------------------------------------------- rows as Arrow batches */

enum { K_NULL = 0, K_INT, K_REAL, K_TEXT, K_BLOB };

typedef struct col_buf {
  int kind;
  uint8_t *valid;
  int64_t *ints;
  double *reals;
  int32_t *offsets;
  char *data;
  size_t data_len, data_cap;
} col_buf;

typedef struct window {
  int n_cols;
  char **names;
  int *kinds;
  int64_t n_rows;
  sqlite3_value ***rows; /* [row][col] duplicates */
} window;

static void window_clear(window *w) {
  for (int64_t r = 0; r < w->n_rows; r++) {
    for (int c = 0; c < w->n_cols; c++) sqlite3_value_free(w->rows[r][c]);
    free(w->rows[r]);
  }
  w->n_rows = 0;
}

/* Column kinds of the window: the widest of its values (INT < REAL < TEXT; BLOB with BLOB or NULL only). */
static void window_kinds(window *w) {
  for (int c = 0; c < w->n_cols; c++) {
    int k = K_NULL;
    for (int64_t r = 0; r < w->n_rows; r++) {
      int t = sqlite3_value_type(w->rows[r][c]);
      int vk = t == SQLITE_INTEGER ? K_INT : t == SQLITE_FLOAT ? K_REAL : t == SQLITE_TEXT ? K_TEXT : t == SQLITE_BLOB ? K_BLOB : K_NULL;
      if (vk == K_NULL) continue;
      if (k == K_NULL) k = vk;
      else if (k == K_BLOB || vk == K_BLOB) k = k == vk ? K_BLOB : K_TEXT;
      else if (vk > k) k = vk;
    }
    w->kinds[c] = k == K_NULL ? K_TEXT : k;
  }
}

typedef struct batch_priv {
  int n;
  col_buf *cols;
  struct ArrowArray *children;
  struct ArrowArray **child_ptrs;
  const void **bufs; /* 3 per child */
  const void *top_buf[1];
} batch_priv;

static void release_child(struct ArrowArray *a) { a->release = NULL; }

static void release_batch(struct ArrowArray *a) {
  batch_priv *p = a->private_data;
  for (int c = 0; c < p->n; c++) {
    free(p->cols[c].valid);
    free(p->cols[c].ints);
    free(p->cols[c].reals);
    free(p->cols[c].offsets);
    free(p->cols[c].data);
  }
  free(p->cols);
  free(p->children);
  free(p->child_ptrs);
  free(p->bufs);
  free(p);
  a->release = NULL;
}

static int put_data(col_buf *b, const void *s, size_t n) {
  if (b->data_len + n + 1 > b->data_cap) {
    size_t cap = b->data_cap ? b->data_cap * 2 : 256;
    while (cap < b->data_len + n + 1) cap *= 2;
    char *d = realloc(b->data, cap);
    if (!d) return -1;
    b->data = d;
    b->data_cap = cap;
  }
  if (n) memcpy(b->data + b->data_len, s, n);
  b->data_len += n;
  return 0;
}

/* The window as a struct batch of the given kinds. 0 on success. */
static int window_batch(const window *w, const int *kinds, struct ArrowArray *out) {
  batch_priv *p = calloc(1, sizeof *p);
  if (!p) return -1;
  int n = w->n_cols;
  p->n = n;
  p->cols = calloc((size_t)n + 1, sizeof *p->cols);
  p->children = calloc((size_t)n + 1, sizeof *p->children);
  p->child_ptrs = calloc((size_t)n + 1, sizeof *p->child_ptrs);
  p->bufs = calloc(3 * (size_t)n + 1, sizeof *p->bufs);
  int64_t rows = w->n_rows;
  int bad = !p->cols || !p->children || !p->child_ptrs || !p->bufs;
  for (int c = 0; c < n && !bad; c++) {
    col_buf *b = &p->cols[c];
    b->kind = kinds[c];
    b->valid = calloc((size_t)(rows + 8) / 8 + 1, 1);
    if (b->kind == K_INT) b->ints = calloc((size_t)rows + 1, sizeof *b->ints);
    else if (b->kind == K_REAL) b->reals = calloc((size_t)rows + 1, sizeof *b->reals);
    else b->offsets = calloc((size_t)rows + 2, sizeof *b->offsets);
    if (!b->valid || (!b->ints && !b->reals && !b->offsets)) {
      bad = 1;
      break;
    }
    int64_t nulls = 0;
    for (int64_t r = 0; r < rows && !bad; r++) {
      sqlite3_value *v = w->rows[r][c];
      int t = sqlite3_value_type(v);
      if (t == SQLITE_NULL) nulls++;
      else b->valid[r >> 3] |= (uint8_t)(1u << (r & 7));
      if (b->kind == K_INT) b->ints[r] = t == SQLITE_NULL ? 0 : sqlite3_value_int64(v);
      else if (b->kind == K_REAL) b->reals[r] = t == SQLITE_NULL ? 0 : sqlite3_value_double(v);
      else {
        if (t != SQLITE_NULL) {
          const void *s = b->kind == K_BLOB ? sqlite3_value_blob(v) : (const void *)sqlite3_value_text(v);
          if (put_data(b, s, (size_t)sqlite3_value_bytes(v))) bad = 1;
        }
        b->offsets[r + 1] = (int32_t)b->data_len;
      }
    }
    if (!b->data && b->offsets && put_data(b, "", 0)) bad = 1;
    struct ArrowArray *ch = &p->children[c];
    ch->length = rows;
    ch->null_count = nulls;
    ch->n_buffers = b->kind == K_INT || b->kind == K_REAL ? 2 : 3;
    ch->buffers = &p->bufs[3 * c];
    p->bufs[3 * c] = b->valid;
    p->bufs[3 * c + 1] = b->kind == K_INT ? (const void *)b->ints : b->kind == K_REAL ? (const void *)b->reals : (const void *)b->offsets;
    p->bufs[3 * c + 2] = b->data;
    ch->release = release_child;
    p->child_ptrs[c] = ch;
  }
  memset(out, 0, sizeof *out);
  out->length = rows;
  out->n_buffers = 1;
  out->buffers = p->top_buf;
  out->n_children = n;
  out->children = p->child_ptrs;
  out->release = release_batch;
  out->private_data = p;
  if (bad) {
    release_batch(out);
    return -1;
  }
  return 0;
}

static void release_child_schema_noop(struct ArrowSchema *s) { s->release = NULL; }

static void release_schema(struct ArrowSchema *s) {
  for (int64_t i = 0; i < s->n_children; i++) free(s->children[i]);
  free(s->children);
  s->release = NULL;
}

static int make_schema(const window *w, const int *kinds, struct ArrowSchema *out) {
  memset(out, 0, sizeof *out);
  out->format = "+s";
  out->name = "";
  out->children = calloc((size_t)w->n_cols + 1, sizeof *out->children);
  if (!out->children) return -1;
  out->n_children = w->n_cols;
  out->release = release_schema;
  for (int c = 0; c < w->n_cols; c++) {
    struct ArrowSchema *ch = calloc(1, sizeof *ch);
    if (!ch) {
      out->n_children = c;
      release_schema(out);
      return -1;
    }
    ch->format = kinds[c] == K_INT ? "l" : kinds[c] == K_REAL ? "g" : kinds[c] == K_BLOB ? "z" : "u";
    ch->name = w->names[c];
    ch->flags = ARROW_FLAG_NULLABLE;
    ch->release = release_child_schema_noop;
    out->children[c] = ch;
  }
  return 0;
}

/* ------------------------------------------------------------------ statements */

typedef struct sql_run {
  sqlite3 *db;
  cli_output out;
  int failed;
  /* lazy attach: a warehouse with more databases than SQLite attaches gets each
   * database attached when a statement first names it (db.t or "db".t) */
  const char *warehouse;
  char **lazy_dbs; /* names not attached yet (NULL once attached) */
  size_t n_lazy;
} sql_run;

/* Prints one window; (re)creates the printer when the kinds change. */
static int print_window(sql_run *r, window *w, paimon_printer **pr, int **kinds, int *printed_header) {
  if (w->n_rows == 0 && *pr) return 0;
  window_kinds(w);
  int same = *pr && !memcmp(*kinds, w->kinds, sizeof **kinds * (size_t)w->n_cols);
  paimon_error e;
  if (!same) {
    if (*pr) {
      if (paimon_printer_finish(*pr, stdout, &e)) {
        fprintf(stderr, "paimon sql: %s\n", e.message);
        return 1;
      }
      paimon_printer_free(*pr);
      *pr = NULL;
    }
    struct ArrowSchema s;
    if (make_schema(w, w->kinds, &s)) return 1;
    paimon_print_options po;
    paimon_print_options_init(&po);
    cli_output_apply(&r->out, &po);
    if (*printed_header && po.format == PAIMON_PRINT_CSV) po.no_header = 1;
    paimon_status st = paimon_printer_new(&s, &po, pr, &e);
    s.release(&s);
    if (st) {
      fprintf(stderr, "paimon sql: %s\n", e.message);
      return 1;
    }
    memcpy(*kinds, w->kinds, sizeof **kinds * (size_t)w->n_cols);
    *printed_header = 1;
  }
  struct ArrowArray b;
  if (window_batch(w, w->kinds, &b)) {
    fprintf(stderr, "paimon sql: out of memory\n");
    return 1;
  }
  paimon_status st = paimon_printer_print(*pr, &b, stdout, &e);
  b.release(&b);
  window_clear(w);
  if (st) {
    fprintf(stderr, "paimon sql: %s\n", e.message);
    return 1;
  }
  return 0;
}

/* Line and column (1-based) of offset `off` in text. */
static void position(const char *text, size_t off, int *line, int *col) {
  *line = 1;
  *col = 1;
  for (size_t i = 0; i < off && text[i]; i++) {
    if (text[i] == '\n') (*line)++, *col = 1;
    else (*col)++;
  }
}

/* Runs every statement of text; what = "-e", a file name or "stdin" for error positions.
 * Returns 0, or 1 after the first failing statement (its error on stderr). */
/* Attaches the not yet attached databases that `text` names as a qualifier (an
 * identifier, bare or in "", ``, [], directly followed by '.'). Failures are left to
 * the statement ("no such table"), which then names the position. */
static void attach_named(sql_run *r, const char *text) {
  if (!r->n_lazy) return;
  for (const char *p = text; *p;) {
    const char *b = p, *e;
    char close = 0;
    if (*p == '"' || *p == '`' || *p == '[') {
      close = *p == '[' ? ']' : *p;
      b = ++p;
      while (*p && *p != close) p++;
      e = p;
      if (*p) p++;
    } else if ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || *p == '_' || (unsigned char)*p >= 0x80) {
      while ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '_' ||
             (unsigned char)*p >= 0x80)
        p++;
      e = p;
    } else if (*p == '\'') { /* string literals name no database */
      p++;
      while (*p && *p != '\'') p++;
      if (*p) p++;
      continue;
    } else {
      p++;
      continue;
    }
    const char *q = p;
    while (*q == ' ' || *q == '\t' || *q == '\n' || *q == '\r') q++;
    if (*q != '.') continue;
    size_t n = (size_t)(e - b);
    for (size_t i = 0; i < r->n_lazy; i++) {
      if (!r->lazy_dbs[i] || strlen(r->lazy_dbs[i]) != n || strncasecmp(r->lazy_dbs[i], b, n)) continue;
      sqlite3_stmt *st = NULL;
      if (sqlite3_prepare_v2(r->db, "SELECT paimon_attach('warehouse=' || ?1, 'database=' || ?2)", -1, &st, NULL) ==
          SQLITE_OK) {
        sqlite3_bind_text(st, 1, r->warehouse, -1, SQLITE_STATIC);
        sqlite3_bind_text(st, 2, r->lazy_dbs[i], -1, SQLITE_STATIC);
        if (sqlite3_step(st) == SQLITE_ROW) {
          free(r->lazy_dbs[i]);
          r->lazy_dbs[i] = NULL;
        }
      }
      sqlite3_finalize(st);
    }
  }
}

static int run_text(sql_run *r, const char *text, const char *what, int line_base) {
  const char *p = text;
  attach_named(r, text);
  while (*p) {
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r') p++;
    if (!*p) break;
    sqlite3_stmt *st = NULL;
    const char *tail = NULL;
    int rc = sqlite3_prepare_v2(r->db, p, -1, &st, &tail);
    int line, col;
    size_t off = (size_t)(p - text);
    int eoff = rc ? sqlite3_error_offset(r->db) : -1;
    position(text, eoff >= 0 ? off + (size_t)eoff : off, &line, &col);
    if (rc) {
      fprintf(stderr, "paimon sql: %s line %d, column %d: %s\n", what, line + line_base, col, sqlite3_errmsg(r->db));
      return 1;
    }
    if (!st) { /* a comment or empty statement */
      p = tail;
      continue;
    }
    window w = {0};
    w.n_cols = sqlite3_column_count(st);
    paimon_printer *pr = NULL;
    int *kinds = calloc((size_t)w.n_cols + 1, sizeof *kinds);
    w.names = calloc((size_t)w.n_cols + 1, sizeof *w.names);
    w.kinds = calloc((size_t)w.n_cols + 1, sizeof *w.kinds);
    w.rows = calloc(WINDOW_ROWS, sizeof *w.rows);
    int bad = !kinds || !w.names || !w.kinds || !w.rows, header = 0;
    for (int c = 0; c < w.n_cols && !bad; c++) w.names[c] = (char *)sqlite3_column_name(st, c);
    while (!bad) {
      int s = sqlite3_step(st);
      if (s == SQLITE_DONE) break;
      if (s != SQLITE_ROW) {
        fprintf(stderr, "paimon sql: %s line %d, column %d: %s\n", what, line + line_base, col, sqlite3_errmsg(r->db));
        bad = 2;
        break;
      }
      sqlite3_value **row = calloc((size_t)w.n_cols + 1, sizeof *row);
      if (!row) {
        bad = 1;
        break;
      }
      for (int c = 0; c < w.n_cols; c++) row[c] = sqlite3_value_dup(sqlite3_column_value(st, c));
      w.rows[w.n_rows++] = row;
      if (w.n_rows == WINDOW_ROWS && print_window(r, &w, &pr, &kinds, &header)) bad = 2;
    }
    if (!bad && w.n_cols > 0 && (w.n_rows > 0 || !pr)) bad = print_window(r, &w, &pr, &kinds, &header) ? 2 : 0;
    paimon_error e;
    if (!bad && pr && paimon_printer_finish(pr, stdout, &e)) {
      fprintf(stderr, "paimon sql: %s\n", e.message);
      bad = 2;
    }
    if (bad == 1) fprintf(stderr, "paimon sql: out of memory\n");
    window_clear(&w);
    paimon_printer_free(pr);
    free(kinds);
    free(w.names);
    free(w.kinds);
    free(w.rows);
    sqlite3_finalize(st);
    if (bad) return 1;
    p = tail;
  }
  return 0;
}

static char *slurp(FILE *f) {
  size_t cap = 1 << 16, n = 0, k;
  char *buf = malloc(cap);
  while (buf && (k = fread(buf + n, 1, cap - n - 1, f)) > 0) {
    n += k;
    if (cap - n < 2) {
      char *b = realloc(buf, cap *= 2);
      if (!b) {
        free(buf);
        return NULL;
      }
      buf = b;
    }
  }
  if (buf) buf[n] = 0;
  return buf;
}

/* Interactive loop: statements end at ';' (sqlite3_complete), history in memory. */
static int interactive(sql_run *r) {
  char *acc = NULL;
  size_t len = 0;
  int lineno = 0, start_line = 1;
  for (;;) {
    char *line = readline(acc ? "   ...> " : "paimon> ");
    if (!line) break;
    lineno++;
    if (!acc) start_line = lineno;
    size_t l = strlen(line);
    char *n = realloc(acc, len + l + 2);
    if (!n) {
      free(line);
      break;
    }
    acc = n;
    memcpy(acc + len, line, l);
    len += l;
    acc[len++] = '\n';
    acc[len] = 0;
    if (l) add_history(line);
    free(line);
    if (sqlite3_complete(acc)) {
      if (run_text(r, acc, "stdin", start_line - 1)) r->failed = 1;
      fflush(stdout);
      free(acc);
      acc = NULL;
      len = 0;
    }
  }
  free(acc);
  return r->failed;
}

int cli_sql_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  sql_run r = {0};
  cli_output_init(&r.out);
  const char *exprs = NULL, *file = NULL;
  for (int i = 1; i < argc; i++) {
    int o = cli_output_arg(&r.out, "sql", argc, argv, &i);
    if (o < 0) return 2;
    if (o > 0) continue;
    if (!strcmp(argv[i], "-e") || !strcmp(argv[i], "--execute")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "paimon sql: %s needs the SQL text\n", argv[i]);
        return 2;
      }
      exprs = argv[++i];
    } else if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "paimon sql: unknown option %s\n", argv[i]);
      usage(stderr);
      return 2;
    } else if (!file) {
      file = argv[i];
    } else {
      fprintf(stderr, "paimon sql: more than one FILE (%s, %s)\n", file, argv[i]);
      return 2;
    }
  }
  if (exprs && file) {
    fprintf(stderr, "paimon sql: give -e SQL or FILE, not both\n");
    return 2;
  }
  if (!warehouse) warehouse = getenv("PAIMON_WAREHOUSE");
  sqlite3_auto_extension((void (*)(void))sqlite3_paimonsqlite_init);
  if (sqlite3_open(":memory:", &r.db) != SQLITE_OK) {
    fprintf(stderr, "paimon sql: cannot open SQLite: %s\n", r.db ? sqlite3_errmsg(r.db) : "out of memory");
    sqlite3_close(r.db);
    return 1;
  }
  int rc = 0;
  if (warehouse && *warehouse) {
    sqlite3_stmt *st = NULL;
    if (sqlite3_prepare_v2(r.db, "SELECT paimon_attach('warehouse=' || ?1)", -1, &st, NULL) == SQLITE_OK) {
      sqlite3_bind_text(st, 1, warehouse, -1, SQLITE_STATIC);
      if (sqlite3_step(st) != SQLITE_ROW) {
        /* a warehouse with more databases than SQLite attaches is no failure: each is
         * attached when a statement first names it */
        if (!strstr(sqlite3_errmsg(r.db), "SQLITE_LIMIT_ATTACHED")) {
          fprintf(stderr, "paimon sql: %s\n", sqlite3_errmsg(r.db));
          rc = 1;
        } else {
          paimon_option o = {"warehouse", warehouse};
          paimon_catalog *cat = NULL;
          paimon_error e;
          if (paimon_catalog_open(&o, 1, &cat, &e) || paimon_catalog_list_databases(cat, &r.lazy_dbs, &r.n_lazy, &e)) {
            fprintf(stderr, "paimon sql: %s\n", e.message);
            rc = 1;
          }
          paimon_catalog_free(cat);
          r.warehouse = warehouse;
        }
      }
    }
    sqlite3_finalize(st);
  }
  if (!rc) {
    if (exprs) {
      rc = run_text(&r, exprs, "-e", 0);
    } else if (file && strcmp(file, "-")) {
      FILE *f = fopen(file, "r");
      char *text = f ? slurp(f) : NULL;
      if (f) fclose(f);
      if (!text) {
        fprintf(stderr, "paimon sql: cannot read %s\n", file);
        rc = 1;
      } else {
        char what[1100];
        snprintf(what, sizeof what, "%s", file);
        rc = run_text(&r, text, what, 0);
      }
      free(text);
    } else if (!file && isatty(0)) {
      rc = interactive(&r);
    } else {
      char *text = slurp(stdin);
      rc = text ? run_text(&r, text, "stdin", 0) : 1;
      free(text);
    }
  }
  sqlite3_close(r.db);
  paimon_free_strings(r.lazy_dbs, r.n_lazy);
  return rc;
}
