/* `paimon db ...` and `paimon table ...`: browse a warehouse and read tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <errno.h>
#include <signal.h>

#include "cli/cli.h"
#include "cli/cli_output.h"
#include "paimon/paimon.h"
#include "paimon/stream.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] db list\n"
        "       paimon [-w WAREHOUSE] db list-tables DB\n"
        "       paimon [-w WAREHOUSE] db create DB [--ignore-if-exists] [--option k=v ...]\n"
        "       paimon [-w WAREHOUSE] db drop DB [--cascade] [--ignore-if-not-exists]\n"
        "       paimon [-w WAREHOUSE] table create DB.T (--schema FILE.json | --columns 'id INT, ...')\n"
        "              [--primary-key a,b] [--partition-keys p,q] [--option k=v ...] [--comment TEXT]\n"
        "              [--ignore-if-exists]\n"
        "       paimon [-w WAREHOUSE] table drop DB.T [--ignore-if-not-exists]\n"
        "       paimon [-w WAREHOUSE] table rename DB.T DB.T2\n"
        "       paimon [-w WAREHOUSE] table get DB.T            schema, keys and options\n"
        "       paimon [-w WAREHOUSE] table snapshots DB.T [--limit N] [--format F]   ($snapshots)\n"
        "       paimon [-w WAREHOUSE] table files DB.T [TIME-TRAVEL] [--option k=v ...] [--limit N] [--format F]\n"
        "       paimon [-w WAREHOUSE] table partitions DB.T [TIME-TRAVEL] [--option k=v ...] [--limit N]\n"
        "              [--format F]\n"
        "       paimon [-w WAREHOUSE] table explain DB.T [--where EXPR] [--limit N] [TIME-TRAVEL]\n"
        "              [--option k=v ...] [SELECTION]\n"
        "       paimon [-w WAREHOUSE] table read DB.T [--select a,b] [--where EXPR] [--limit N]\n"
        "              [TIME-TRAVEL] [--option k=v ...] [--row-kind] [--format F] [SELECTION]\n"
        "       paimon [-w WAREHOUSE] table stream DB.T [--from latest|earliest|snapshot:N|timestamp:TS]\n"
        "              [--consumer-id ID] [--select a,b] [--where EXPR] [--option k=v ...] [--row-kind]\n"
        "              [--format F] [--once]\n"
        "\n"
        "Each subcommand takes only the options shown; any other is an error (exit 2). --where may be\n"
        "repeated: the filters are ANDed. --select may be repeated: the column lists are concatenated.\n"
        "-w may appear anywhere on the line. Numbers that do not fit a 64-bit integer are refused.\n"
        "DB.T may be DB.T$branch_NAME; `table read DB.T$snapshots` (schemas, options, files, partitions,\n"
        "tags, branches, manifests, consumers, statistics) reads a system table.\n"
        "TIME-TRAVEL: --snapshot N | --tag NAME | --timestamp 'YYYY-MM-DD HH:MM:SS' | --timestamp-millis N |\n"
        "             --version V\n"
        "EXPR: id > 5 and name like 'a%' or x in (1, 2) ...\n"
        "SELECTION (read, explain): --row-slice START:END (row positions START..END-1 of an append or\n"
        "             data-evolution table, in split and file order) | --row-shard I/N (balanced shard I of N\n"
        "             of those positions) | --shard I/N (primary-key tables: the buckets with bucket % N == I;\n"
        "             append tables: --row-shard) [--row-ranges A-B,C-D (inclusive _ROW_IDs of a row-tracking\n"
        "             table; '' selects no row)]\n"
        "Incremental reads: --option incremental-between=A,B (snapshot ids, or tags: two tags read the\n"
        "             diff) [--option incremental-between-scan-mode=delta|changelog|diff] [--row-kind]\n"
        "Output: --format F is table, jsonl or csv; the default is table on a terminal, jsonl otherwise.\n"
        "             The table cuts text cells past --max-width N display columns (default 40; never\n"
        "             numbers; --no-truncate: never), paths at the start, fits $COLUMNS or the terminal\n"
        "             by leaving out the last columns, and prints NULL for a null.\n"
        "Streaming (table stream): prints the rows of the start, then the rows of each new commit as it\n"
        "             arrives, until Ctrl-C (the batch being printed is finished first; exit 0), or with\n"
        "             --once until everything committed so far is printed. --from: latest = only\n"
        "             commits after the start; earliest = all rows of the earliest snapshot, then every\n"
        "             change; snapshot:N = the changes from snapshot N on; timestamp:TS = the changes\n"
        "             committed at or after TS (epoch millis or 'YYYY-MM-DD HH:MM:SS'); without --from:\n"
        "             the consumer's saved progress when --consumer-id has one, else all rows of the\n"
        "             latest snapshot and then the changes (or --option scan.mode=...). With\n"
        "             --consumer-id the progress is saved after each printed batch (consumer/consumer-ID,\n"
        "             as Java's consumers; it keeps unread snapshots from expiring). Changes of tables\n"
        "             with a changelog producer are their changelog (--row-kind shows -U/+U/-D). New\n"
        "             commits are looked for every second (--option continuous.discovery-interval=D).\n"
        "The warehouse is -w PATH or $PAIMON_WAREHOUSE.\n",
        out);
}

static int fail(const paimon_error *err) {
  fprintf(stderr, "paimon: %s\n", err->message[0] ? err->message : paimon_status_name(err->code));
  return 1;
}

/* Unknown-option warnings of the library, printed once each on stderr (issue 10 #9). */
static void print_warnings(const char *const *w, size_t n) {
  for (size_t i = 0; i < n; i++) {
    int seen = 0;
    for (size_t j = 0; j < i && !seen; j++) seen = strcmp(w[i], w[j]) == 0;
    if (!seen) fprintf(stderr, "paimon: warning: %s\n", w[i]);
  }
}

static int open_catalog(const char *warehouse, paimon_catalog **out) {
  if (!warehouse) warehouse = getenv("PAIMON_WAREHOUSE");
  if (!warehouse || !*warehouse) {
    fprintf(stderr, "paimon: no warehouse (use -w PATH or set PAIMON_WAREHOUSE)\n");
    return 2;
  }
  paimon_option opts[2] = {{"warehouse", warehouse}, {"path-rewrite", NULL}};
  size_t n = 1;
  const char *rw = getenv("PAIMON_PATH_REWRITE");
  if (rw && *rw) {
    opts[1].value = rw;
    n = 2;
  }
  paimon_error err = {0};
  if (paimon_catalog_open(opts, n, out, &err)) return fail(&err);
  size_t nw = 0;
  const char *const *w = paimon_catalog_warnings(*out, &nw);
  print_warnings(w, nw);
  return 0;
}

/* ------------------------------------------------------------- printing */

typedef struct print_args {
  const cli_output *out;
  int64_t limit; /* < 0: none */
  const int *digits;
  int n_digits;
} print_args;

/* Prints every batch of a stream; consumes (releases) it. */
static int print_stream(struct ArrowArrayStream *s, const print_args *pa) {
  paimon_error err = {0};
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  int rc = cli_stream_schema(s, &schema, &err);
  paimon_print_options po;
  memset(&po, 0, sizeof po);
  cli_output_apply(pa->out, &po);
  po.fraction_digits = pa->digits;
  po.n_fraction_digits = pa->n_digits;
  /* Table view: paths (file_path, external_path, ...) are cut at the start, keeping the file name. */
  int cut[256] = {0};
  for (int64_t c = 0; !rc && c < schema.n_children && c < 256; c++) {
    const char *nm = schema.children[c]->name ? schema.children[c]->name : "";
    size_t len = strlen(nm);
    cut[c] = !strcmp(nm, "path") || (len > 5 && !strcmp(nm + len - 5, "_path"));
  }
  po.cut_left = cut;
  po.n_cut_left = !rc && schema.n_children < 256 ? (int)schema.n_children : 256;
  paimon_printer *pr = NULL;
  if (!rc) rc = paimon_printer_new(&schema, &po, &pr, &err);
  int64_t printed = 0;
  while (!rc) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    rc = cli_stream_next(s, &batch, &err);
    if (rc || !batch.release) break;
    if (pa->limit >= 0 && printed + batch.length > pa->limit) batch.length = pa->limit - printed;
    if (batch.length > 0) rc = paimon_printer_print(pr, &batch, stdout, &err);
    printed += batch.length > 0 ? batch.length : 0;
    if (batch.release) batch.release(&batch);
    if (pa->limit >= 0 && printed >= pa->limit) break;
  }
  if (!rc) rc = paimon_printer_finish(pr, stdout, &err);
  paimon_printer_free(pr);
  if (schema.release) schema.release(&schema);
  if (s->release) s->release(s);
  fflush(stdout);
  if (rc) return fail(&err);
  return 0;
}

/* ---------------------------------------------------------------- db */

static int cmd_db(const char *warehouse, int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "paimon db: missing subcommand (list, list-tables DB, create DB, drop DB)\n");
    usage(stderr);
    return 2;
  }
  const char *sub = argv[1];
  int is_list = !strcmp(sub, "list"), is_tables = !strcmp(sub, "list-tables");
  if (!is_list && !is_tables) {
    fprintf(stderr, "paimon db: unknown subcommand '%s' (list, list-tables DB, create DB, drop DB)\n", sub);
    return 2;
  }
  for (int i = 2; i < argc; i++)
    if (argv[i][0] == '-' && argv[i][1]) {
      fprintf(stderr, "paimon db %s: unknown option %s\n", sub, argv[i]);
      return 2;
    }
  if (is_list && argc != 2) {
    fprintf(stderr, "paimon db list: unexpected argument '%s'\n", argv[2]);
    return 2;
  }
  if (is_tables && argc < 3) {
    fprintf(stderr, "paimon db list-tables: missing database name (paimon db list-tables DB)\n");
    return 2;
  }
  if (is_tables && argc > 3) {
    fprintf(stderr, "paimon db list-tables: unexpected argument '%s'\n", argv[3]);
    return 2;
  }
  paimon_catalog *cat = NULL;
  int rc = open_catalog(warehouse, &cat);
  if (rc) return rc;
  paimon_error err = {0};
  char **names = NULL;
  size_t n = 0;
  if (is_list) {
    if (paimon_catalog_list_databases(cat, &names, &n, &err)) rc = fail(&err);
  } else {
    if (paimon_catalog_list_tables(cat, argv[2], &names, &n, &err)) rc = fail(&err);
  }
  for (size_t i = 0; !rc && i < n; i++) printf("%s\n", names[i]);
  paimon_free_strings(names, n);
  paimon_catalog_free(cat);
  return rc;
}

/* ---------------------------------------------------------------- table */

/* Options a subcommand may take (anything else is exit 2). */
enum {
  OPT_SELECT = 1 << 0,
  OPT_WHERE = 1 << 1,
  OPT_LIMIT = 1 << 2,
  OPT_TIME_TRAVEL = 1 << 3, /* --snapshot --tag --timestamp --timestamp-millis --version */
  OPT_OPTION = 1 << 4,
  OPT_ROW_KIND = 1 << 5,
  OPT_FORMAT = 1 << 6,
  OPT_STREAM = 1 << 7, /* --from --consumer-id --once */
  OPT_SELECTION = 1 << 8, /* --row-slice --row-shard --shard --row-ranges */
};

#define MAX_CLAUSES 64

typedef struct table_args {
  const char *sub;
  const char *ident;
  const char *select;                /* the --select lists joined with ',' (owned by the caller's store) */
  const char *wheres[MAX_CLAUSES];   /* every --where, ANDed */
  size_t n_wheres;
  int64_t limit;
  int row_kind;
  cli_output out; /* --format, --max-width, --no-truncate */
  int system_table; /* ident names a system table (db.t$snapshots) */
  paimon_option opts[64];
  size_t n_opts;
  const char *from;        /* table stream --from */
  const char *consumer_id; /* table stream --consumer-id */
  int once;                /* table stream --once */
  const char *row_slice, *row_shard, *shard, *row_ranges; /* OPT_SELECTION values */
} table_args;

static int add_opt(table_args *a, const char *k, const char *v) {
  if (a->n_opts >= 64) {
    fprintf(stderr, "paimon table %s: too many options (at most 64)\n", a->sub);
    return 2;
  }
  a->opts[a->n_opts].key = k;
  a->opts[a->n_opts].value = v;
  a->n_opts++;
  return 0;
}

int cli_parse_int64(const char *s, int64_t min, int64_t *out) {
  char *end = NULL;
  errno = 0;
  long long v = strtoll(s, &end, 10);
  if (!*s || *end || errno == ERANGE || v < min) return -1;
  *out = v;
  return 0;
}

static int bad_int(const table_args *a, const char *opt, const char *val, int64_t min) {
  fprintf(stderr, "paimon table %s: invalid value for %s: '%s' (an integer from %lld to %lld)\n", a->sub, opt, val,
          (long long)min, (long long)INT64_MAX);
  return 2;
}

static int allowed_options(const char *sub) {
  if (!strcmp(sub, "read"))
    return OPT_SELECT | OPT_WHERE | OPT_LIMIT | OPT_TIME_TRAVEL | OPT_OPTION | OPT_ROW_KIND | OPT_FORMAT | OPT_SELECTION;
  if (!strcmp(sub, "stream")) return OPT_SELECT | OPT_WHERE | OPT_OPTION | OPT_ROW_KIND | OPT_FORMAT | OPT_STREAM;
  if (!strcmp(sub, "explain")) return OPT_WHERE | OPT_LIMIT | OPT_TIME_TRAVEL | OPT_OPTION | OPT_SELECTION;
  if (!strcmp(sub, "files") || !strcmp(sub, "partitions")) return OPT_LIMIT | OPT_TIME_TRAVEL | OPT_OPTION | OPT_FORMAT;
  if (!strcmp(sub, "snapshots")) return OPT_LIMIT | OPT_FORMAT;
  if (!strcmp(sub, "get")) return 0;
  return -1;
}

/* kv_store collects the strings the arguments point into (freed by the caller). */
static int parse_table_args(int argc, char **argv, table_args *a, char **kv_store, size_t *n_kv) {
  memset(a, 0, sizeof *a);
  a->sub = argv[1];
  a->limit = -1;
  cli_output_init(&a->out);
  int allowed = allowed_options(a->sub);
  char *select = NULL;
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
    if (arg[0] != '-' || !arg[1]) {
      if (a->ident) {
        fprintf(stderr, "paimon table %s: unexpected argument '%s'\n", a->sub, arg);
        free(select);
        return 2;
      }
      a->ident = arg;
      continue;
    }
    int kind = !strcmp(arg, "--select")                                       ? OPT_SELECT
               : !strcmp(arg, "--where")                                      ? OPT_WHERE
               : !strcmp(arg, "--limit")                                      ? OPT_LIMIT
               : !strcmp(arg, "--snapshot") || !strcmp(arg, "--tag") || !strcmp(arg, "--timestamp") ||
                       !strcmp(arg, "--timestamp-millis") || !strcmp(arg, "--version")
                   ? OPT_TIME_TRAVEL
               : !strcmp(arg, "--option") || !strcmp(arg, "-o") ? OPT_OPTION
               : !strcmp(arg, "--row-kind")                     ? OPT_ROW_KIND
               : !strcmp(arg, "--from") || !strcmp(arg, "--consumer-id") || !strcmp(arg, "--once") ? OPT_STREAM
               : !strcmp(arg, "--row-slice") || !strcmp(arg, "--row-shard") || !strcmp(arg, "--shard") ||
                       !strcmp(arg, "--row-ranges")
                   ? OPT_SELECTION
               : !strcmp(arg, "--format") || !strcmp(arg, "--max-width") || !strcmp(arg, "--no-truncate")
                   ? OPT_FORMAT
                                                                : 0;
    int rc = 0;
    int no_value = kind == OPT_ROW_KIND || !strcmp(arg, "--no-truncate") || !strcmp(arg, "--once");
    if (!kind) {
      fprintf(stderr, "paimon table %s: unknown option %s\n", a->sub, arg);
      rc = 2;
    } else if (!(allowed & kind)) {
      fprintf(stderr, "paimon table %s: option %s does not apply to this subcommand (see paimon table --help)\n",
              a->sub, arg);
      rc = 2;
    } else if (!no_value && !val) {
      fprintf(stderr, "paimon table %s: %s needs a value\n", a->sub, arg);
      rc = 2;
    }
    if (rc) {
      free(select);
      return rc;
    }
    if (!no_value) i++;
    int64_t n = 0;
    if (kind == OPT_SELECT) {
      size_t old = select ? strlen(select) : 0;
      char *v = realloc(select, old + strlen(val) + 2);
      if (!v) rc = 1;
      else {
        select = v;
        if (old) select[old++] = ',';
        strcpy(select + old, val);
      }
    } else if (kind == OPT_WHERE) {
      if (a->n_wheres >= MAX_CLAUSES) {
        fprintf(stderr, "paimon table %s: too many --where (at most %d)\n", a->sub, MAX_CLAUSES);
        rc = 2;
      } else {
        a->wheres[a->n_wheres++] = val;
      }
    } else if (kind == OPT_LIMIT) {
      if (cli_parse_int64(val, 0, &a->limit)) rc = bad_int(a, arg, val, 0);
    } else if (!strcmp(arg, "--snapshot")) {
      rc = cli_parse_int64(val, 1, &n) ? bad_int(a, arg, val, 1) : add_opt(a, "scan.snapshot-id", val);
    } else if (!strcmp(arg, "--tag")) {
      rc = add_opt(a, "scan.tag-name", val);
    } else if (!strcmp(arg, "--timestamp")) {
      rc = add_opt(a, "scan.timestamp", val);
    } else if (!strcmp(arg, "--timestamp-millis")) {
      rc = cli_parse_int64(val, INT64_MIN, &n) ? bad_int(a, arg, val, INT64_MIN) : add_opt(a, "scan.timestamp-millis", val);
    } else if (!strcmp(arg, "--version")) {
      rc = add_opt(a, "scan.version", val);
    } else if (kind == OPT_OPTION) {
      const char *eq = strchr(val, '=');
      if (!eq || eq == val) {
        fprintf(stderr, "paimon table %s: --option needs key=value, got '%s'\n", a->sub, val);
        rc = 2;
      } else {
        char *k = strndup(val, (size_t)(eq - val));
        if (!k) rc = 1;
        else {
          kv_store[(*n_kv)++] = k;
          rc = add_opt(a, k, eq + 1);
        }
      }
    } else if (kind == OPT_ROW_KIND) {
      a->row_kind = 1;
    } else if (!strcmp(arg, "--from")) {
      if (a->from) {
        fprintf(stderr, "paimon table %s: --from given twice\n", a->sub);
        rc = 2;
      }
      a->from = val;
    } else if (!strcmp(arg, "--consumer-id")) {
      if (!*val || strchr(val, '/')) {
        fprintf(stderr, "paimon table %s: invalid --consumer-id '%s' (a file name: no '/')\n", a->sub, val);
        rc = 2;
      }
      a->consumer_id = val;
    } else if (!strcmp(arg, "--once")) {
      a->once = 1;
    } else if (kind == OPT_SELECTION) {
      const char **slot = !strcmp(arg, "--row-slice")   ? &a->row_slice
                          : !strcmp(arg, "--row-shard") ? &a->row_shard
                          : !strcmp(arg, "--shard")     ? &a->shard
                                                        : &a->row_ranges;
      if (*slot) {
        fprintf(stderr, "paimon table %s: %s given twice\n", a->sub, arg);
        rc = 2;
      }
      *slot = val;
    } else if (kind == OPT_FORMAT) {
      int j = no_value ? i : i - 1; /* back at the option itself */
      char what[64];
      snprintf(what, sizeof what, "table %s", a->sub);
      if (cli_output_arg(&a->out, what, argc, argv, &j) <= 0) rc = 2;
    }
    if (rc) {
      free(select);
      return rc;
    }
  }
  if (select) {
    kv_store[(*n_kv)++] = select;
    a->select = select;
  }
  if (!a->ident) {
    fprintf(stderr, "paimon table %s: missing table identifier DB.T\n", a->sub);
    return 2;
  }
  return 0;
}

/* Splits "db.t[$branch_b][$sys]" into the table part (written to base) and the system table name or NULL. */
static const char *split_system_table(const char *ident, char *base, size_t cap) {
  snprintf(base, cap, "%s", ident);
  char *d = strrchr(base, '$');
  if (!d || !strncmp(d + 1, "branch_", 7)) return NULL;
  *d = 0;
  return ident + (d - base) + 1;
}

/* Reads system table sys of the table ident through its read builder, so the dynamic options apply. */
static int system_table(paimon_catalog *cat, const char *ident, const char *sys, const table_args *a) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL;
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  int rc = 0;
  if (paimon_catalog_get_table(cat, ident, &t, &err) || paimon_read_builder_new(t, a->opts, a->n_opts, &rb, &err) ||
      paimon_read_builder_read_system_table(rb, sys, &s, &err))
    rc = fail(&err);
  if (!rc) {
    print_args pa = {&a->out, a->limit, NULL, 0};
    rc = print_stream(&s, &pa);
  }
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  return rc;
}

/* Text of string column col at row of a batch (utf8 "u" or large "U"). */
static void print_string_cell(const char *label, const struct ArrowSchema *sc, const struct ArrowArray *col,
                              int64_t row) {
  int64_t j = col->offset + row;
  const char *data = col->buffers[2];
  int64_t a, b;
  if (!strcmp(sc->format, "U")) {
    const int64_t *off = col->buffers[1];
    a = off[j];
    b = off[j + 1];
  } else {
    const int32_t *off = col->buffers[1];
    a = off[j];
    b = off[j + 1];
  }
  printf("%s: %.*s\n", label, (int)(b - a), data + a);
}

static int cmd_get(paimon_catalog *cat, const table_args *a) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  if (paimon_catalog_get_table(cat, a->ident, &t, &err)) return fail(&err);
  printf("table: %s\n", paimon_table_identifier(t));
  printf("branch: %s\n", paimon_table_branch(t));
  printf("partition keys:");
  for (size_t i = 0; i < paimon_table_num_partition_keys(t); i++) printf(" %s", paimon_table_partition_key(t, i));
  printf("\nprimary keys:");
  for (size_t i = 0; i < paimon_table_num_primary_keys(t); i++) printf(" %s", paimon_table_primary_key(t, i));
  printf("\n");
  int64_t latest = 0;
  if (!paimon_table_latest_snapshot_id(t, &latest, &err)) printf("latest snapshot: %lld\n", (long long)latest);
  fflush(stdout);
  /* Latest schema (last row of $schemas): fields, then options */
  paimon_read_builder *rb = NULL;
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  int rc = paimon_read_builder_new(t, NULL, 0, &rb, &err) ||
           paimon_read_builder_read_system_table(rb, "schemas", &s, &err);
  struct ArrowSchema sc;
  memset(&sc, 0, sizeof sc);
  struct ArrowArray last;
  memset(&last, 0, sizeof last);
  if (!rc && s.get_schema(&s, &sc)) rc = 1;
  while (!rc) {
    struct ArrowArray b;
    memset(&b, 0, sizeof b);
    if (s.get_next(&s, &b)) {
      rc = 1;
      break;
    }
    if (!b.release) break;
    if (b.length > 0) {
      if (last.release) last.release(&last);
      last = b;
    } else {
      b.release(&b);
    }
  }
  if (rc && s.release && s.get_last_error(&s))
    snprintf(err.message, sizeof err.message, "%s", s.get_last_error(&s));
  if (!rc && last.release && sc.n_children >= 5 && last.n_children >= 5) {
    int64_t row = last.length - 1;
    const struct ArrowArray *id = last.children[0];
    printf("schema id: %lld\n", (long long)((const int64_t *)id->buffers[1])[id->offset + row]);
    print_string_cell("fields", sc.children[1], last.children[1], row);
    print_string_cell("options", sc.children[4], last.children[4], row);
  }
  if (last.release) last.release(&last);
  if (sc.release) sc.release(&sc);
  if (s.release) s.release(&s);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  return rc ? fail(&err) : 0;
}

/* Parses "A<sep>B" (two integers) of option opt; prints the error (exit 2). */
static int parse_pair(const table_args *a, const char *opt, const char *val, char sep, const char *form, int64_t *x,
                      int64_t *y) {
  const char *m = strchr(val, sep);
  char first[32];
  size_t n = m ? (size_t)(m - val) : 0;
  if (m && n < sizeof first) {
    memcpy(first, val, n);
    first[n] = 0;
  }
  if (!m || n >= sizeof first || cli_parse_int64(first, INT64_MIN, x) || cli_parse_int64(m + 1, INT64_MIN, y)) {
    fprintf(stderr, "paimon table %s: invalid value for %s: '%s' (%s)\n", a->sub, opt, val, form);
    return 2;
  }
  return 0;
}

/* --row-slice START:END, --row-shard I/N, --shard I/N, --row-ranges A-B,C-D ("" = none). */
static int apply_selection(const table_args *a, paimon_read_builder *rb) {
  paimon_error err = {0};
  int64_t x, y;
  if (a->row_slice) {
    if (parse_pair(a, "--row-slice", a->row_slice, ':', "START:END, half-open", &x, &y)) return 2;
    if (paimon_read_builder_with_row_position_slice(rb, x, y, &err)) return fail(&err);
  }
  if (a->row_shard) {
    if (parse_pair(a, "--row-shard", a->row_shard, '/', "INDEX/COUNT", &x, &y)) return 2;
    if (paimon_read_builder_with_row_position_shard(rb, x, y, &err)) return fail(&err);
  }
  if (a->shard) {
    if (parse_pair(a, "--shard", a->shard, '/', "INDEX/COUNT", &x, &y)) return 2;
    if (paimon_read_builder_with_shard(rb, x, y, &err)) return fail(&err);
  }
  if (a->row_ranges) {
    size_t cap = 1;
    for (const char *p = a->row_ranges; *p; p++) cap += *p == ',';
    int64_t *v = malloc(cap * 2 * sizeof *v);
    char *copy = strdup(a->row_ranges);
    size_t n = 0;
    int rc = v && copy ? 0 : 1;
    for (char *save = NULL, *tok = copy ? strtok_r(copy, ",", &save) : NULL; !rc && tok;
         tok = strtok_r(NULL, ",", &save)) {
      const char *dash = tok[0] == '-' ? strchr(tok + 1, '-') : strchr(tok, '-');
      if (!dash) { /* a single row id */
        if (cli_parse_int64(tok, INT64_MIN, &x)) rc = 2;
        y = x;
      } else {
        rc = parse_pair(a, "--row-ranges", tok, '-', "FROM-TO[,FROM-TO...], inclusive row ids", &x, &y);
      }
      if (rc == 2 && !dash)
        fprintf(stderr, "paimon table %s: invalid value for --row-ranges: '%s' (FROM-TO[,FROM-TO...], inclusive row ids)\n",
                a->sub, tok);
      v[2 * n] = x, v[2 * n + 1] = y;
      n++;
    }
    if (!rc && paimon_read_builder_with_row_ranges(rb, v, n, &err)) rc = fail(&err);
    free(v);
    free(copy);
    if (rc) return rc;
  }
  return 0;
}

static int make_builder(paimon_catalog *cat, const table_args *a, paimon_table **t, paimon_read_builder **rb) {
  paimon_error err = {0};
  if ((a->system_table ? paimon_catalog_get_system_table : paimon_catalog_get_table)(cat, a->ident, t, &err))
    return fail(&err);
  if (paimon_read_builder_new(*t, a->opts, a->n_opts, rb, &err)) return fail(&err);
  size_t nw = 0;
  const char *const *w = paimon_read_builder_warnings(*rb, &nw);
  print_warnings(w, nw);
  if (a->select) {
    char *copy = strdup(a->select);
    if (!copy) return 1;
    size_t cap = 1;
    for (const char *p = copy; *p; p++) cap += *p == ',';
    const char **cols = calloc(cap, sizeof *cols);
    size_t n = 0;
    char *save = NULL;
    for (char *tok = strtok_r(copy, ",", &save); cols && tok; tok = strtok_r(NULL, ",", &save)) {
      while (*tok == ' ') tok++;
      char *e = tok + strlen(tok);
      while (e > tok && e[-1] == ' ') *--e = 0;
      if (*tok) cols[n++] = tok;
    }
    int rc = cols ? paimon_read_builder_with_projection(*rb, cols, n, &err) : 1;
    free(cols);
    free(copy);
    if (rc) return fail(&err);
  }
  if (a->n_wheres) {
    paimon_predicate *ps[MAX_CLAUSES] = {0}, *p = NULL;
    for (size_t i = 0; i < a->n_wheres; i++) {
      if (paimon_predicate_parse(*rb, a->wheres[i], &ps[i], &err)) {
        for (size_t k = 0; k < i; k++) paimon_predicate_free(ps[k]);
        return fail(&err);
      }
    }
    if (a->n_wheres == 1) p = ps[0];
    else if (paimon_predicate_and(ps, a->n_wheres, &p, &err)) return fail(&err);
    if (paimon_read_builder_with_filter(*rb, p, &err)) return fail(&err);
  }
  if (a->limit >= 0) paimon_read_builder_with_limit(*rb, a->limit);
  paimon_read_builder_with_row_kind(*rb, a->row_kind);
  return apply_selection(a, *rb);
}

/* Fraction digits of temporal output columns from the Paimon types (TIMESTAMP(p), TIME(p),
 * TIMESTAMP(p) WITH LOCAL TIME ZONE); -1 = from the Arrow unit. */
static int *column_digits(const paimon_table *t, const struct ArrowSchema *schema, int *n) {
  *n = (int)schema->n_children;
  int *d = calloc((size_t)(*n ? *n : 1), sizeof *d);
  if (!d) return NULL;
  for (int i = 0; i < *n; i++) {
    d[i] = -1;
    const char *name = schema->children[i]->name;
    for (size_t c = 0; name && c < paimon_table_num_columns(t); c++) {
      if (strcmp(paimon_table_column_name(t, c), name)) continue;
      char *ty = NULL;
      paimon_error err = {0};
      int p = -1;
      if (!paimon_table_column_type(t, c, &ty, &err) &&
          (!strncmp(ty, "TIMESTAMP", 9) || !strncmp(ty, "TIME(", 5) || !strcmp(ty, "TIME") ||
           !strncmp(ty, "TIME NOT", 8))) {
        const char *par = strchr(ty, '(');
        /* TIMESTAMP / TIME without a precision: Paimon's defaults 6 and 0 */
        p = par ? atoi(par + 1) : !strncmp(ty, "TIMESTAMP", 9) ? 6 : 0;
      }
      paimon_free_string(ty);
      d[i] = p;
      break;
    }
  }
  return d;
}

static int cmd_read_or_explain(paimon_catalog *cat, const table_args *a, int explain) {
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  paimon_error err = {0};
  int rc = make_builder(cat, a, &t, &rb);
  if (!rc && paimon_read_builder_plan(rb, &plan, &err)) rc = fail(&err);
  if (!rc && explain) {
    char *text = NULL;
    if (paimon_plan_explain(plan, &text, &err)) rc = fail(&err);
    else {
      fputs(text, stdout);
      for (size_t i = 0; i < paimon_plan_num_splits(plan); i++) {
        const paimon_split *s = paimon_plan_split(plan, i);
        printf("split %zu: bucket %d, %zu files, %lld rows, %s\n", i, (int)paimon_split_bucket(s),
               paimon_split_num_files(s), (long long)paimon_split_row_count(s),
               paimon_split_is_incremental(s) ? "diff" : paimon_split_raw_convertible(s) ? "raw" : "merge");
      }
    }
    paimon_free_string(text);
  } else if (!rc) {
    struct ArrowArrayStream s;
    if (paimon_read_plan(rb, plan, &s, &err)) rc = fail(&err);
    else {
      struct ArrowSchema schema;
      memset(&schema, 0, sizeof schema);
      int nd = 0;
      int *digits = NULL;
      if (!paimon_read_builder_read_schema(rb, &schema, &err)) {
        digits = a->system_table ? NULL : column_digits(t, &schema, &nd);
        schema.release(&schema);
      }
      print_args pa = {&a->out, a->limit, digits, nd};
      rc = print_stream(&s, &pa);
      free(digits);
    }
  }
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  return rc;
}

/* ------------------------------------------------------------- stream */

static volatile sig_atomic_t stream_stop;
static void on_stop_signal(int sig) {
  (void)sig;
  stream_stop = 1;
}
static int stream_cancel(void *ctx) {
  (void)ctx;
  return stream_stop;
}

static int has_opt(const table_args *a, const char *key) {
  for (size_t i = 0; i < a->n_opts; i++)
    if (!strcmp(a->opts[i].key, key)) return 1;
  return 0;
}

/* --from and --consumer-id as options of the read builder. */
static int stream_options(table_args *a) {
  int rc = 0;
  if (a->from && (has_opt(a, "scan.mode") || has_opt(a, "scan.snapshot-id") || has_opt(a, "scan.timestamp") ||
                  has_opt(a, "scan.timestamp-millis"))) {
    fprintf(stderr, "paimon table stream: --from and --option scan.mode / scan.snapshot-id / scan.timestamp[-millis] "
                    "both choose the start; give one\n");
    return 2;
  }
  const char *f = a->from;
  int64_t n = 0;
  if (!f) {
  } else if (!strcmp(f, "latest")) {
    rc = add_opt(a, "scan.mode", "latest");
  } else if (!strcmp(f, "earliest")) {
    rc = add_opt(a, "scan.mode", "from-snapshot-full");
    if (!rc) rc = add_opt(a, "scan.snapshot-id", "0"); /* 0: the earliest snapshot */
  } else if (!strncmp(f, "snapshot:", 9)) {
    if (cli_parse_int64(f + 9, 1, &n)) {
      fprintf(stderr, "paimon table stream: invalid --from '%s' (snapshot:N with N a snapshot id >= 1)\n", f);
      return 2;
    }
    rc = add_opt(a, "scan.mode", "from-snapshot");
    if (!rc) rc = add_opt(a, "scan.snapshot-id", f + 9);
  } else if (!strncmp(f, "timestamp:", 10) && f[10]) {
    rc = add_opt(a, "scan.mode", "from-timestamp");
    if (!rc) rc = add_opt(a, cli_parse_int64(f + 10, INT64_MIN, &n) ? "scan.timestamp" : "scan.timestamp-millis", f + 10);
  } else {
    fprintf(stderr, "paimon table stream: invalid --from '%s' (latest, earliest, snapshot:N or timestamp:TS)\n", f);
    return 2;
  }
  if (!rc && a->consumer_id) {
    if (has_opt(a, "consumer-id")) {
      fprintf(stderr, "paimon table stream: --consumer-id and --option consumer-id both given; give one\n");
      return 2;
    }
    rc = add_opt(a, "consumer-id", a->consumer_id);
    /* an explicit start wins over the consumer's saved progress */
    if (!rc && a->from && !has_opt(a, "consumer.ignore-progress")) rc = add_opt(a, "consumer.ignore-progress", "true");
  }
  if (!rc && !a->once && !has_opt(a, "continuous.discovery-interval"))
    rc = add_opt(a, "continuous.discovery-interval", "1 s");
  return rc;
}

/* Prints one plan's rows: into *shared (JSONL / CSV: one printer for the whole stream, created on
 * the first plan), or a printer of its own (table view: a table per batch). */
static int stream_print_plan(paimon_read_builder *rb, const paimon_plan *plan, const paimon_print_options *po,
                             paimon_printer **shared, paimon_error *err) {
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  paimon_printer *own = NULL;
  int rc = paimon_read_plan(rb, plan, &s, err);
  if (!rc) rc = cli_stream_schema(&s, &schema, err);
  paimon_printer **pr = po->format == PAIMON_PRINT_TABLE ? &own : shared;
  if (!rc && !*pr) rc = paimon_printer_new(&schema, po, pr, err);
  while (!rc) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    rc = cli_stream_next(&s, &batch, err);
    if (rc || !batch.release) break;
    if (batch.length > 0) rc = paimon_printer_print(*pr, &batch, stdout, err);
    batch.release(&batch);
  }
  if (!rc && own) rc = paimon_printer_finish(own, stdout, err);
  paimon_printer_free(own);
  if (schema.release) schema.release(&schema);
  if (s.release) s.release(&s);
  if (!rc && fflush(stdout)) rc = cli_errorf(err, PAIMON_ERR_IO, "cannot write output: %s", strerror(errno));
  return rc;
}

static int cmd_stream(paimon_catalog *cat, table_args *a) {
  int rc = stream_options(a);
  if (rc) return rc;
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL;
  paimon_stream_scan *ss = NULL;
  paimon_printer *shared = NULL;
  paimon_error err = {0};
  rc = make_builder(cat, a, &t, &rb);
  if (!rc && paimon_stream_scan_new(rb, &ss, &err)) rc = fail(&err);
  int *digits = NULL, nd = 0;
  paimon_print_options po;
  paimon_print_options_init(&po);
  cli_output_apply(&a->out, &po);
  if (!rc) {
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    if (!paimon_read_builder_read_schema(rb, &schema, &err)) {
      digits = column_digits(t, &schema, &nd);
      schema.release(&schema);
    }
    po.fraction_digits = digits;
    po.n_fraction_digits = nd;
  }
  struct sigaction sa, old_int, old_term;
  memset(&sa, 0, sizeof sa);
  sa.sa_handler = on_stop_signal;
  sigemptyset(&sa.sa_mask);
  stream_stop = 0;
  sigaction(SIGINT, &sa, &old_int);
  sigaction(SIGTERM, &sa, &old_term);
  int announced = 0, caught_up = 0;
  for (int first = 1; !rc && !stream_stop && !caught_up; first = 0) {
    paimon_plan *plan = NULL;
    if (a->once) {
      if (paimon_stream_scan_plan(ss, &plan, &err)) rc = fail(&err);
      if (!rc && !paimon_plan_num_splits(plan) && !first) caught_up = 1; /* everything committed so far is printed */
    } else {
      if (!announced) {
        int64_t next = 0;
        if (!paimon_stream_scan_plan(ss, &plan, &err)) {
          announced = 1;
          if (paimon_stream_scan_checkpoint(ss, &next))
            fprintf(stderr, "paimon table stream: %s: following from snapshot %lld (Ctrl-C stops)\n", a->ident,
                    (long long)next);
          else
            fprintf(stderr, "paimon table stream: %s: no snapshot yet, waiting for the first commit (Ctrl-C stops)\n",
                    a->ident);
        } else {
          rc = fail(&err);
        }
      } else if (paimon_stream_scan_next(ss, stream_cancel, NULL, &plan, &err)) {
        rc = fail(&err);
      }
      if (!rc && !plan && !paimon_stream_scan_finished(ss)) break; /* cancelled */
      if (!rc && !plan) break;                                      /* end of input */
    }
    if (!rc && paimon_plan_num_splits(plan) && stream_print_plan(rb, plan, &po, &shared, &err)) rc = fail(&err);
    paimon_plan_free(plan);
    int64_t next = 0;
    if (!rc && a->consumer_id && paimon_stream_scan_checkpoint(ss, &next) &&
        paimon_stream_scan_notify_checkpoint_complete(ss, next, &err))
      rc = fail(&err);
    if (!rc && paimon_stream_scan_finished(ss)) break;
  }
  sigaction(SIGINT, &old_int, NULL);
  sigaction(SIGTERM, &old_term, NULL);
  if (!rc && shared && paimon_printer_finish(shared, stdout, &err)) rc = fail(&err);
  if (!rc && !shared && po.format == PAIMON_PRINT_CSV && ss) {
    /* nothing streamed: the CSV header alone, as table read prints it for no rows */
    struct ArrowSchema schema;
    memset(&schema, 0, sizeof schema);
    if (!paimon_read_builder_read_schema(rb, &schema, &err)) {
      if (!paimon_printer_new(&schema, &po, &shared, &err)) paimon_printer_finish(shared, stdout, &err);
      schema.release(&schema);
    }
  }
  paimon_printer_free(shared);
  free(digits);
  paimon_stream_scan_free(ss);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  return rc;
}

static int cmd_table(const char *warehouse, int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "paimon table: missing subcommand (get, read, stream, snapshots, files, partitions, explain, create, drop, rename)\n");
    usage(stderr);
    return 2;
  }
  const char *sub = argv[1];
  if (allowed_options(sub) < 0) {
    fprintf(stderr, "paimon table: unknown subcommand '%s' (get, read, stream, snapshots, files, partitions, explain, create, drop, rename)\n",
            sub);
    return 2;
  }
  char *kv[66];
  size_t n_kv = 0;
  table_args a;
  int rc = parse_table_args(argc, argv, &a, kv, &n_kv);
  paimon_catalog *cat = NULL;
  if (!rc) rc = open_catalog(warehouse, &cat);
  if (!rc) {
    char base[1024];
    const char *sys = split_system_table(a.ident, base, sizeof base);
    if (!strcmp(sub, "stream") && sys) {
      fprintf(stderr, "paimon table stream: %s is a system table (only data tables stream)\n", a.ident);
      rc = 2;
    } else if (!strcmp(sub, "stream")) {
      rc = cmd_stream(cat, &a);
    } else if (!strcmp(sub, "read") && sys) {
      a.system_table = 1; /* read like a data table: --select, --where, --limit, time travel */
      rc = cmd_read_or_explain(cat, &a, 0);
    } else if (sys) {
      fprintf(stderr, "paimon table %s: system tables are read with `table read %s`\n", sub, a.ident);
      rc = 2;
    } else if (!strcmp(sub, "get")) {
      rc = cmd_get(cat, &a);
    } else if (!strcmp(sub, "snapshots") || !strcmp(sub, "files") || !strcmp(sub, "partitions")) {
      rc = system_table(cat, a.ident, sub, &a);
    } else {
      rc = cmd_read_or_explain(cat, &a, !strcmp(sub, "explain"));
    }
  }
  paimon_catalog_free(cat);
  for (size_t i = 0; i < n_kv; i++) free(kv[i]);
  return rc;
}

int cli_open_catalog(const char *warehouse, paimon_catalog **out) { return open_catalog(warehouse, out); }

int cli_positional(const char *cmd, const char *arg, const char **pos, int *n_pos, int want) {
  if (arg[0] == '-' && arg[1]) {
    fprintf(stderr, "paimon %s: unknown option %s\n", cmd, arg);
    return 2;
  }
  if (*n_pos >= want) {
    fprintf(stderr, "paimon %s: unexpected argument '%s'\n", cmd, arg);
    return 2;
  }
  pos[(*n_pos)++] = arg;
  return 0;
}

int cli_fail(const char *cmd, const paimon_error *err) {
  fprintf(stderr, "paimon %s: %s\n", cmd, err->message[0] ? err->message : paimon_status_name(err->code));
  return 1;
}

int cli_open_table(const char *cmd, const char *warehouse, const char *ident, paimon_catalog **cat, paimon_table **t) {
  *cat = NULL;
  *t = NULL;
  int rc = open_catalog(warehouse, cat);
  if (rc) return rc;
  paimon_error err = {0};
  if (paimon_catalog_get_table(*cat, ident, t, &err)) return cli_fail(cmd, &err);
  return 0;
}

int cli_table_main(const char *warehouse, int argc, char **argv) {
  if (argc < 1) return 2;
  int ddl = cli_ddl_main(warehouse, argc, argv);
  if (ddl >= 0) return ddl;
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  if (!strcmp(argv[0], "db")) return cmd_db(warehouse, argc, argv);
  return cmd_table(warehouse, argc, argv);
}
