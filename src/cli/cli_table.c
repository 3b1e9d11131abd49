/* `paimon db ...` and `paimon table ...`: browse a warehouse and read tables. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"
#include "cli/print/print.h"
#include "arrow/stream.h"
#include "cli/cli.h"
#include "paimon/paimon.h"
#include "table/catalog.h"
#include "table/scan.h"
#include "table/system_tables.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] db list\n"
        "       paimon [-w WAREHOUSE] db list-tables DB\n"
        "       paimon [-w WAREHOUSE] table get DB.T            schema, keys and options\n"
        "       paimon [-w WAREHOUSE] table snapshots DB.T      ($snapshots)\n"
        "       paimon [-w WAREHOUSE] table files DB.T [TIME-TRAVEL]   ($files)\n"
        "       paimon [-w WAREHOUSE] table partitions DB.T     ($partitions)\n"
        "       paimon [-w WAREHOUSE] table explain DB.T [--where EXPR] [--limit N] [TIME-TRAVEL]\n"
        "       paimon [-w WAREHOUSE] table read DB.T [--select a,b] [--where EXPR] [--limit N]\n"
        "              [TIME-TRAVEL] [--option k=v ...] [--row-kind] [--format table|jsonl|csv]\n"
        "\n"
        "DB.T may be DB.T$branch_NAME; `table read DB.T$snapshots` (schemas, options, files, partitions,\n"
        "tags, branches, manifests) reads a system table.\n"
        "TIME-TRAVEL: --snapshot N | --tag NAME | --timestamp 'YYYY-MM-DD HH:MM:SS' | --timestamp-millis N |\n"
        "             --version V\n"
        "EXPR: id > 5 and name like 'a%' or x in (1, 2) ...\n"
        "Incremental reads: --option incremental-between=A,B (snapshot ids, or tags: two tags read the\n"
        "             diff) [--option incremental-between-scan-mode=delta|changelog|diff] [--row-kind]\n"
        "The warehouse is -w PATH or $PAIMON_WAREHOUSE.\n",
        out);
}

static int fail(const paimon_error *err) {
  fprintf(stderr, "paimon: %s\n", err->message[0] ? err->message : paimon_status_name(err->code));
  return 1;
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
  return 0;
}

/* ------------------------------------------------------------- printing */

typedef struct print_args {
  pm_print_format format;
  int64_t limit; /* < 0: none */
  const int *digits;
  int n_digits;
} print_args;

/* Prints every batch of a stream; consumes (releases) it. */
static int print_stream(struct ArrowArrayStream *s, const print_args *pa) {
  pm_error err = {0};
  struct ArrowSchema schema;
  memset(&schema, 0, sizeof schema);
  int rc = pm_stream_get_schema(s, &schema, &err);
  pm_print_options po;
  memset(&po, 0, sizeof po);
  po.format = pa->format;
  po.fraction_digits = pa->digits;
  po.n_fraction_digits = pa->n_digits;
  pm_printer *pr = NULL;
  if (!rc) rc = pm_printer_new(&schema, &po, &pr, &err);
  int64_t printed = 0;
  while (!rc) {
    struct ArrowArray batch;
    memset(&batch, 0, sizeof batch);
    rc = pm_stream_get_next(s, &batch, &err);
    if (rc || !batch.release) break;
    if (pa->limit >= 0 && printed + batch.length > pa->limit) batch.length = pa->limit - printed;
    if (batch.length > 0) rc = pm_printer_print(pr, &batch, stdout, &err);
    printed += batch.length > 0 ? batch.length : 0;
    pm_array_release(&batch);
    if (pa->limit >= 0 && printed >= pa->limit) break;
  }
  if (!rc) rc = pm_printer_finish_file(pr, stdout, &err);
  pm_printer_free(pr);
  pm_schema_release(&schema);
  if (s->release) s->release(s);
  fflush(stdout);
  if (rc) return fail(&err);
  return 0;
}

static int parse_format(const char *s, pm_print_format *out) {
  if (!strcmp(s, "table")) *out = PM_PRINT_TABLE;
  else if (!strcmp(s, "jsonl") || !strcmp(s, "json")) *out = PM_PRINT_JSONL;
  else if (!strcmp(s, "csv")) *out = PM_PRINT_CSV;
  else return -1;
  return 0;
}

/* ---------------------------------------------------------------- db */

static int cmd_db(const char *warehouse, int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  paimon_catalog *cat = NULL;
  int rc = open_catalog(warehouse, &cat);
  if (rc) return rc;
  paimon_error err = {0};
  char **names = NULL;
  size_t n = 0;
  if (!strcmp(argv[1], "list") && argc == 2) {
    if (paimon_catalog_list_databases(cat, &names, &n, &err)) rc = fail(&err);
  } else if (!strcmp(argv[1], "list-tables") && argc == 3) {
    if (paimon_catalog_list_tables(cat, argv[2], &names, &n, &err)) rc = fail(&err);
  } else {
    fprintf(stderr, "paimon: unknown db command or wrong arguments\n");
    usage(stderr);
    rc = 2;
  }
  for (size_t i = 0; !rc && i < n; i++) printf("%s\n", names[i]);
  paimon_free_strings(names, n);
  paimon_catalog_free(cat);
  return rc;
}

/* ---------------------------------------------------------------- table */

typedef struct table_args {
  const char *ident;
  const char *select;
  const char *where;
  int64_t limit;
  int row_kind;
  pm_print_format format;
  int format_set;
  paimon_option opts[64];
  size_t n_opts;
} table_args;

static int add_opt(table_args *a, const char *k, const char *v) {
  if (a->n_opts >= 64) {
    fprintf(stderr, "paimon: too many options\n");
    return 2;
  }
  a->opts[a->n_opts].key = k;
  a->opts[a->n_opts].value = v;
  a->n_opts++;
  return 0;
}

static int parse_table_args(int argc, char **argv, table_args *a, char **kv_store, size_t *n_kv) {
  memset(a, 0, sizeof *a);
  a->limit = -1;
  a->format = PM_PRINT_TABLE;
  for (int i = 2; i < argc; i++) {
    const char *arg = argv[i];
    const char *val = i + 1 < argc ? argv[i + 1] : NULL;
#define NEED_VAL()                                                 \
  do {                                                             \
    if (!val) {                                                    \
      fprintf(stderr, "paimon: %s needs a value\n", arg);          \
      return 2;                                                    \
    }                                                              \
    i++;                                                           \
  } while (0)
    if (arg[0] != '-') {
      if (a->ident) {
        fprintf(stderr, "paimon: unexpected argument '%s'\n", arg);
        return 2;
      }
      a->ident = arg;
    } else if (!strcmp(arg, "--select")) {
      NEED_VAL();
      a->select = val;
    } else if (!strcmp(arg, "--where")) {
      NEED_VAL();
      a->where = val;
    } else if (!strcmp(arg, "--limit")) {
      NEED_VAL();
      char *end;
      a->limit = strtoll(val, &end, 10);
      if (*end || a->limit < 0) {
        fprintf(stderr, "paimon: --limit needs a non-negative integer\n");
        return 2;
      }
    } else if (!strcmp(arg, "--snapshot")) {
      NEED_VAL();
      if (add_opt(a, "scan.snapshot-id", val)) return 2;
    } else if (!strcmp(arg, "--tag")) {
      NEED_VAL();
      if (add_opt(a, "scan.tag-name", val)) return 2;
    } else if (!strcmp(arg, "--timestamp")) {
      NEED_VAL();
      if (add_opt(a, "scan.timestamp", val)) return 2;
    } else if (!strcmp(arg, "--timestamp-millis")) {
      NEED_VAL();
      if (add_opt(a, "scan.timestamp-millis", val)) return 2;
    } else if (!strcmp(arg, "--version")) {
      NEED_VAL();
      if (add_opt(a, "scan.version", val)) return 2;
    } else if (!strcmp(arg, "--option") || !strcmp(arg, "-o")) {
      NEED_VAL();
      const char *eq = strchr(val, '=');
      if (!eq || eq == val) {
        fprintf(stderr, "paimon: --option needs key=value\n");
        return 2;
      }
      char *k = strndup(val, (size_t)(eq - val));
      if (!k) return 1;
      kv_store[(*n_kv)++] = k;
      if (add_opt(a, k, eq + 1)) return 2;
    } else if (!strcmp(arg, "--row-kind")) {
      a->row_kind = 1;
    } else if (!strcmp(arg, "--format")) {
      NEED_VAL();
      if (parse_format(val, &a->format)) {
        fprintf(stderr, "paimon: --format must be table, jsonl or csv\n");
        return 2;
      }
      a->format_set = 1;
    } else {
      fprintf(stderr, "paimon: unknown option %s\n", arg);
      return 2;
    }
#undef NEED_VAL
  }
  if (!a->ident) {
    fprintf(stderr, "paimon: missing table identifier DB.T\n");
    return 2;
  }
  return 0;
}

static int system_table(paimon_catalog *cat, const char *ident, const char *sys, const table_args *a) {
  char buf[1024];
  snprintf(buf, sizeof buf, "%s$%s", ident, sys);
  paimon_error err = {0};
  struct ArrowArrayStream s;
  if (paimon_catalog_read_system_table(cat, buf, &s, &err)) return fail(&err);
  print_args pa = {a->format, a->limit, NULL, 0};
  return print_stream(&s, &pa);
}

/* System tables that follow time travel ($files, $partitions, $manifests) go through the
 * internal catalog so the dynamic options apply. */
static int files_table(pm_catalog *icat, const table_args *a, const char *sys) {
  pm_error err = {0};
  pm_options dyn;
  pm_options_init(&dyn);
  int rc = 0;
  for (size_t i = 0; !rc && i < a->n_opts; i++) rc = pm_options_set(&dyn, a->opts[i].key, a->opts[i].value, &err);
  pm_table *t = NULL;
  if (!rc) rc = pm_catalog_get_table(icat, a->ident, &dyn, &t, &err);
  pm_options_clear(&dyn);
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  if (!rc) rc = pm_system_table_read(t, sys, &s, &err);
  if (rc) {
    pm_table_free(t);
    return fail(&err);
  }
  print_args pa = {a->format, a->limit, NULL, 0};
  rc = print_stream(&s, &pa);
  pm_table_free(t);
  return rc;
}

static int cmd_get(paimon_catalog *cat, const table_args *a) {
  paimon_error err = {0};
  paimon_table *t = NULL;
  if (paimon_catalog_get_table(cat, a->ident, &t, &err)) return fail(&err);
  struct ArrowArrayStream s;
  char buf[1024];
  printf("table: %s\n", paimon_table_identifier(t));
  printf("branch: %s\n", paimon_table_branch(t));
  printf("partition keys:");
  for (size_t i = 0; i < paimon_table_num_partition_keys(t); i++) printf(" %s", paimon_table_partition_key(t, i));
  printf("\nprimary keys:");
  for (size_t i = 0; i < paimon_table_num_primary_keys(t); i++) printf(" %s", paimon_table_primary_key(t, i));
  printf("\n");
  int64_t latest = 0;
  if (!paimon_table_latest_snapshot_id(t, &latest, &err)) printf("latest snapshot: %lld\n", (long long)latest);
  paimon_table_free(t);
  fflush(stdout);
  snprintf(buf, sizeof buf, "%s$schemas", a->ident);
  /* Latest schema: fields, then options */
  if (paimon_catalog_read_system_table(cat, buf, &s, &err)) return fail(&err);
  pm_batch_vec v;
  pm_error e2 = {0};
  int rc = pm_stream_collect(&s, &v, &e2);
  s.release(&s);
  if (rc) return fail(&e2);
  if (v.n > 0 && v.batches[v.n - 1].length > 0) {
    const struct ArrowArray *b = &v.batches[v.n - 1];
    const struct ArrowArray *fields = b->children[1], *options = b->children[4];
    int64_t row = b->length - 1;
    const int32_t *off = fields->buffers[1];
    const char *data = fields->buffers[2];
    printf("schema id: %lld\n", (long long)((const int64_t *)b->children[0]->buffers[1])[row]);
    printf("fields: %.*s\n", (int)(off[row + 1] - off[row]), data + off[row]);
    off = options->buffers[1];
    data = options->buffers[2];
    printf("options: %.*s\n", (int)(off[row + 1] - off[row]), data + off[row]);
  }
  pm_batch_vec_free(&v);
  return 0;
}

static int make_builder(paimon_catalog *cat, const table_args *a, paimon_table **t, paimon_read_builder **rb) {
  paimon_error err = {0};
  if (paimon_catalog_get_table(cat, a->ident, t, &err)) return fail(&err);
  if (paimon_read_builder_new(*t, a->opts, a->n_opts, rb, &err)) return fail(&err);
  if (a->select) {
    char *copy = strdup(a->select);
    const char *cols[256];
    size_t n = 0;
    for (char *tok = strtok(copy, ","); tok && n < 256; tok = strtok(NULL, ",")) {
      while (*tok == ' ') tok++;
      char *e = tok + strlen(tok);
      while (e > tok && e[-1] == ' ') *--e = 0;
      if (*tok) cols[n++] = tok;
    }
    int rc = paimon_read_builder_with_projection(*rb, cols, n, &err);
    free(copy);
    if (rc) return fail(&err);
  }
  if (a->where) {
    paimon_predicate *p = NULL;
    if (paimon_predicate_parse(*rb, a->where, &p, &err)) return fail(&err);
    if (paimon_read_builder_with_filter(*rb, p, &err)) return fail(&err);
  }
  if (a->limit >= 0) paimon_read_builder_with_limit(*rb, a->limit);
  paimon_read_builder_with_row_kind(*rb, a->row_kind);
  return 0;
}

/* Fraction digits of temporal output columns from the Paimon types (TIMESTAMP(p), TIME(p)). */
static int *column_digits(pm_catalog *icat, const char *ident, const struct ArrowSchema *schema, int *n) {
  *n = (int)schema->n_children;
  int *d = calloc((size_t)(*n ? *n : 1), sizeof *d);
  if (!d) return NULL;
  for (int i = 0; i < *n; i++) d[i] = -1;
  pm_table *t = NULL;
  pm_error err = {0};
  if (pm_catalog_get_table(icat, ident, NULL, &t, &err)) return d;
  for (int i = 0; i < *n; i++) {
    const char *name = schema->children[i]->name;
    int idx = name ? pm_schema_field_index(t->schema, name) : -1;
    if (idx < 0) continue;
    const pm_data_type *ty = t->schema->fields[idx].type;
    if (ty->root == PM_DT_TIMESTAMP || ty->root == PM_DT_TIMESTAMP_LTZ || ty->root == PM_DT_TIME)
      d[i] = ty->precision;
  }
  pm_table_free(t);
  return d;
}

static int cmd_read_or_explain(paimon_catalog *cat, pm_catalog *icat, const table_args *a, int explain) {
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
        digits = column_digits(icat, a->ident, &schema, &nd);
        pm_schema_release(&schema);
      }
      print_args pa = {a->format, a->limit, digits, nd};
      rc = print_stream(&s, &pa);
      free(digits);
    }
  }
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  return rc;
}

static int cmd_table(const char *warehouse, int argc, char **argv) {
  if (argc < 2 || !strcmp(argv[1], "--help") || !strcmp(argv[1], "-h")) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  char *kv[64];
  size_t n_kv = 0;
  table_args a;
  int rc = parse_table_args(argc, argv, &a, kv, &n_kv);
  paimon_catalog *cat = NULL;
  pm_catalog *icat = NULL;
  if (!rc) rc = open_catalog(warehouse, &cat);
  if (!rc) {
    pm_options co;
    pm_options_init(&co);
    pm_error e0 = {0};
    const char *wh = warehouse ? warehouse : getenv("PAIMON_WAREHOUSE");
    const char *rw = getenv("PAIMON_PATH_REWRITE");
    rc = pm_options_set(&co, "warehouse", wh, &e0);
    if (!rc && rw && *rw) rc = pm_options_set(&co, "path-rewrite", rw, &e0);
    if (!rc) rc = pm_catalog_open(&co, &icat, &e0);
    pm_options_clear(&co);
    if (rc) rc = fail(&e0);
  }
  if (!rc) {
    pm_identifier id;
    pm_error err = {0};
    if (pm_identifier_parse(a.ident, &id, &err)) rc = fail(&err);
    else {
      if (!strcmp(sub, "read") && id.system_table) {
        char base[1024];
        snprintf(base, sizeof base, "%s.%s%s%s", id.database, id.table, id.branch ? "$branch_" : "",
                 id.branch ? id.branch : "");
        if (!strcmp(id.system_table, "files") || !strcmp(id.system_table, "partitions") ||
            !strcmp(id.system_table, "manifests")) {
          table_args b = a;
          b.ident = base;
          rc = files_table(icat, &b, id.system_table);
        } else {
          rc = system_table(cat, base, id.system_table, &a);
        }
      } else if (id.system_table) {
        fprintf(stderr, "paimon: system tables are read with `table read %s`\n", a.ident);
        rc = 2;
      } else if (!strcmp(sub, "get")) {
        rc = cmd_get(cat, &a);
      } else if (!strcmp(sub, "snapshots")) {
        rc = system_table(cat, a.ident, "snapshots", &a);
      } else if (!strcmp(sub, "files") || !strcmp(sub, "partitions")) {
        rc = files_table(icat, &a, sub);
      } else if (!strcmp(sub, "explain")) {
        rc = cmd_read_or_explain(cat, icat, &a, 1);
      } else if (!strcmp(sub, "read")) {
        rc = cmd_read_or_explain(cat, icat, &a, 0);
      } else {
        fprintf(stderr, "paimon: unknown table command '%s'\n", sub);
        usage(stderr);
        rc = 2;
      }
      pm_identifier_clear(&id);
    }
  }
  paimon_catalog_free(cat);
  pm_catalog_free(icat);
  for (size_t i = 0; i < n_kv; i++) free(kv[i]);
  return rc;
}

int cli_table_main(const char *warehouse, int argc, char **argv) {
  if (argc < 1) return 2;
  if (!strcmp(argv[0], "db")) return cmd_db(warehouse, argc, argv);
  return cmd_table(warehouse, argc, argv);
}
