/* paimon db create|drop, paimon table create|drop|rename (public API only: paimon/ddl.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "paimon/paimon.h"

#define MAX_KV 256

static const char DB_CREATE_USAGE[] =
    "usage: paimon [-w WAREHOUSE] db create DB [--ignore-if-exists] [--option k=v ...]\n"
    "  Creates database DB (directory WAREHOUSE/DB.db). An existing database is an error unless\n"
    "  --ignore-if-exists. A filesystem catalog keeps no database properties: --option values are\n"
    "  checked ('location' is refused) and dropped, as Java Paimon does.\n";
static const char DB_DROP_USAGE[] =
    "usage: paimon [-w WAREHOUSE] db drop DB [--cascade] [--ignore-if-not-exists]\n"
    "  Drops database DB. A database holding tables needs --cascade (drops them with their data);\n"
    "  a missing one is an error unless --ignore-if-not-exists.\n";
static const char TABLE_CREATE_USAGE[] =
    "usage: paimon [-w WAREHOUSE] table create DB.T (--schema FILE.json | --columns 'COLUMNS')\n"
    "              [--primary-key a,b] [--partition-keys p,q] [--option k=v ...] [--comment TEXT]\n"
    "              [--ignore-if-exists]\n"
    "  Creates table DB.T (schema-0 as Java Paimon writes it).\n"
    "  --schema FILE.json  Paimon's schema JSON ('-' = stdin): {\"fields\": [{\"id\": 0, \"name\": \"a\",\n"
    "                      \"type\": \"INT NOT NULL\"}, ...], \"partitionKeys\": [], \"primaryKeys\": [],\n"
    "                      \"options\": {}, \"comment\": \"...\"}; the flags below add to / replace its parts\n"
    "  --columns 'COLUMNS' 'id INT NOT NULL, name STRING COMMENT ''x'', tags ARRAY<STRING>, ...'\n"
    "                      types: BOOLEAN TINYINT SMALLINT INT BIGINT FLOAT DOUBLE DECIMAL(p, s) CHAR(n)\n"
    "                      VARCHAR(n) STRING BINARY(n) VARBINARY(n) BYTES DATE TIME(p) TIMESTAMP(p)\n"
    "                      TIMESTAMP(p) WITH LOCAL TIME ZONE ARRAY<T> MAP<K, V> MULTISET<T> ROW<a T, ...>\n"
    "  Primary-key columns become NOT NULL. An existing table is an error unless --ignore-if-exists.\n";
static const char TABLE_DROP_USAGE[] =
    "usage: paimon [-w WAREHOUSE] table drop DB.T [--ignore-if-not-exists]\n"
    "  Drops table DB.T with all its data.\n";
static const char TABLE_RENAME_USAGE[] =
    "usage: paimon [-w WAREHOUSE] table rename DB.T DB.T2 [--ignore-if-not-exists]\n"
    "  Renames a table within its database; an existing DB.T2 is an error.\n";

static int usage_error(const char *usage, const char *fmt, const char *arg) {
  fputs("paimon: ", stderr);
  fprintf(stderr, fmt, arg);
  fputc('\n', stderr);
  fputs(usage, stderr);
  return 2;
}

static int fail(const paimon_error *err) {
  fprintf(stderr, "paimon: %s\n", err->message[0] ? err->message : paimon_status_name(err->code));
  return 1;
}

/* k=v into a pair pointing into argv (the '=' replaced). */
static int parse_kv(char *arg, paimon_option *o) {
  char *eq = strchr(arg, '=');
  if (!eq || eq == arg) return -1;
  *eq = 0;
  o->key = arg;
  o->value = eq + 1;
  return 0;
}

/* "a,b" -> list of pointers into a copy (*buf owned by the caller). */
static size_t split_list(const char *text, char **buf, const char **items, size_t cap) {
  *buf = strdup(text);
  if (!*buf) return 0;
  size_t n = 0;
  for (char *p = *buf; p && n < cap;) {
    char *c = strchr(p, ',');
    if (c) *c = 0;
    while (*p == ' ') p++;
    char *e = p + strlen(p);
    while (e > p && e[-1] == ' ') *--e = 0;
    if (*p) items[n++] = p;
    p = c ? c + 1 : NULL;
  }
  return n;
}

static int read_all(const char *path, char **out, size_t *len) {
  FILE *f = strcmp(path, "-") ? fopen(path, "rb") : stdin;
  if (!f) return -1;
  size_t cap = 4096, n = 0;
  char *b = malloc(cap);
  while (b) {
    if (n == cap) {
      char *nb = realloc(b, cap * 2);
      if (!nb) {
        free(b);
        b = NULL;
        break;
      }
      b = nb;
      cap *= 2;
    }
    size_t r = fread(b + n, 1, cap - n, f);
    n += r;
    if (r == 0) break;
  }
  int bad = ferror(f) || !b;
  if (f != stdin) fclose(f);
  if (bad) {
    free(b);
    return -1;
  }
  *out = b;
  *len = n;
  return 0;
}

/* ------------------------------------------------------------------ db */

static int db_create(const char *warehouse, int argc, char **argv) {
  const char *name = NULL;
  int ignore = 0;
  paimon_option kv[MAX_KV];
  size_t n_kv = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--ignore-if-exists")) ignore = 1;
    else if (!strcmp(a, "--option")) {
      if (i + 1 >= argc) return usage_error(DB_CREATE_USAGE, "db create: %s needs k=v", a);
      if (n_kv == MAX_KV) return usage_error(DB_CREATE_USAGE, "db create: too many %s", a);
      if (parse_kv(argv[++i], &kv[n_kv])) return usage_error(DB_CREATE_USAGE, "db create: --option '%s' is not k=v", argv[i]);
      n_kv++;
    } else if (a[0] == '-' && a[1]) return usage_error(DB_CREATE_USAGE, "db create: unknown option %s", a);
    else if (name) return usage_error(DB_CREATE_USAGE, "db create: unexpected argument '%s'", a);
    else name = a;
  }
  if (!name) return usage_error(DB_CREATE_USAGE, "db create: missing database name%s", "");
  paimon_catalog *cat = NULL;
  int rc = cli_open_catalog(warehouse, &cat);
  if (rc) return rc;
  paimon_error err = {0};
  if (paimon_catalog_create_database(cat, name, kv, n_kv, ignore, &err)) rc = fail(&err);
  paimon_catalog_free(cat);
  return rc;
}

static int db_drop(const char *warehouse, int argc, char **argv) {
  const char *name = NULL;
  int cascade = 0, ignore = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--cascade")) cascade = 1;
    else if (!strcmp(a, "--ignore-if-not-exists")) ignore = 1;
    else if (a[0] == '-' && a[1]) return usage_error(DB_DROP_USAGE, "db drop: unknown option %s", a);
    else if (name) return usage_error(DB_DROP_USAGE, "db drop: unexpected argument '%s'", a);
    else name = a;
  }
  if (!name) return usage_error(DB_DROP_USAGE, "db drop: missing database name%s", "");
  paimon_catalog *cat = NULL;
  int rc = cli_open_catalog(warehouse, &cat);
  if (rc) return rc;
  paimon_error err = {0};
  if (paimon_catalog_drop_database(cat, name, cascade, ignore, &err)) rc = fail(&err);
  paimon_catalog_free(cat);
  return rc;
}

/* --------------------------------------------------------------- table */

static int table_create(const char *warehouse, int argc, char **argv) {
  const char *ident = NULL, *schema_file = NULL, *columns = NULL, *pk = NULL, *parts = NULL, *comment = NULL;
  int ignore = 0, comment_set = 0;
  paimon_option kv[MAX_KV];
  size_t n_kv = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    const char **slot = !strcmp(a, "--schema") ? &schema_file
                        : !strcmp(a, "--columns") ? &columns
                        : !strcmp(a, "--primary-key") ? &pk
                        : !strcmp(a, "--partition-keys") ? &parts
                        : !strcmp(a, "--comment") ? &comment
                                                   : NULL;
    if (slot) {
      if (i + 1 >= argc) return usage_error(TABLE_CREATE_USAGE, "table create: %s needs a value", a);
      if (*slot) return usage_error(TABLE_CREATE_USAGE, "table create: %s given twice", a);
      *slot = argv[++i];
      if (slot == &comment) comment_set = 1;
    } else if (!strcmp(a, "--option")) {
      if (i + 1 >= argc) return usage_error(TABLE_CREATE_USAGE, "table create: %s needs k=v", a);
      if (n_kv == MAX_KV) return usage_error(TABLE_CREATE_USAGE, "table create: too many %s", a);
      if (parse_kv(argv[++i], &kv[n_kv]))
        return usage_error(TABLE_CREATE_USAGE, "table create: --option '%s' is not k=v", argv[i]);
      n_kv++;
    } else if (!strcmp(a, "--ignore-if-exists")) ignore = 1;
    else if (a[0] == '-' && a[1]) return usage_error(TABLE_CREATE_USAGE, "table create: unknown option %s", a);
    else if (ident) return usage_error(TABLE_CREATE_USAGE, "table create: unexpected argument '%s'", a);
    else ident = a;
  }
  if (!ident) return usage_error(TABLE_CREATE_USAGE, "table create: missing table identifier DB.T%s", "");
  if (!schema_file == !columns)
    return usage_error(TABLE_CREATE_USAGE, "table create: give exactly one of --schema FILE.json and --columns%s", "");
  paimon_error err = {0};
  paimon_schema_builder *b = NULL;
  int rc = 0;
  if (schema_file) {
    char *json = NULL;
    size_t len = 0;
    if (read_all(schema_file, &json, &len)) {
      fprintf(stderr, "paimon: table create: cannot read schema file %s\n", schema_file);
      return 1;
    }
    if (paimon_schema_builder_from_json(json, len, &b, &err)) rc = fail(&err);
    free(json);
  } else {
    if (paimon_schema_builder_new(&b, &err) || paimon_schema_builder_columns_sql(b, columns, &err)) rc = fail(&err);
  }
  char *pk_buf = NULL, *part_buf = NULL;
  const char *items[256];
  if (!rc && pk) {
    size_t n = split_list(pk, &pk_buf, items, 256);
    if (paimon_schema_builder_primary_key(b, items, n, &err)) rc = fail(&err);
  }
  if (!rc && parts) {
    size_t n = split_list(parts, &part_buf, items, 256);
    if (paimon_schema_builder_partition_keys(b, items, n, &err)) rc = fail(&err);
  }
  for (size_t i = 0; !rc && i < n_kv; i++)
    if (paimon_schema_builder_option(b, kv[i].key, kv[i].value, &err)) rc = fail(&err);
  if (!rc && comment_set && paimon_schema_builder_comment(b, comment, &err)) rc = fail(&err);
  paimon_catalog *cat = NULL;
  if (!rc) rc = cli_open_catalog(warehouse, &cat);
  if (!rc && paimon_catalog_create_table(cat, ident, b, ignore, &err)) rc = fail(&err);
  paimon_catalog_free(cat);
  paimon_schema_builder_free(b);
  free(pk_buf);
  free(part_buf);
  return rc;
}

static int table_drop_or_rename(const char *warehouse, int argc, char **argv, int rename) {
  const char *usage = rename ? TABLE_RENAME_USAGE : TABLE_DROP_USAGE, *sub = argv[1];
  const char *args[2] = {NULL, NULL};
  int n = 0, ignore = 0;
  for (int i = 2; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "--ignore-if-not-exists")) ignore = 1;
    else if (a[0] == '-' && a[1]) return usage_error(usage, rename ? "table rename: unknown option %s" : "table drop: unknown option %s", a);
    else if (n == (rename ? 2 : 1)) return usage_error(usage, rename ? "table rename: unexpected argument '%s'" : "table drop: unexpected argument '%s'", a);
    else args[n++] = a;
  }
  if (n < (rename ? 2 : 1)) return usage_error(usage, "table %s: missing table identifier", sub);
  paimon_catalog *cat = NULL;
  int rc = cli_open_catalog(warehouse, &cat);
  if (rc) return rc;
  paimon_error err = {0};
  paimon_status st = rename ? paimon_catalog_rename_table(cat, args[0], args[1], ignore, &err)
                            : paimon_catalog_drop_table(cat, args[0], ignore, &err);
  if (st) rc = fail(&err);
  paimon_catalog_free(cat);
  return rc;
}

int cli_ddl_main(const char *warehouse, int argc, char **argv) {
  if (argc < 2) return -1;
  int db = !strcmp(argv[0], "db");
  const char *sub = argv[1];
  const char *usage = NULL;
  int which = -1;
  if (db && !strcmp(sub, "create")) usage = DB_CREATE_USAGE, which = 0;
  else if (db && !strcmp(sub, "drop")) usage = DB_DROP_USAGE, which = 1;
  else if (!db && !strcmp(sub, "create")) usage = TABLE_CREATE_USAGE, which = 2;
  else if (!db && !strcmp(sub, "drop")) usage = TABLE_DROP_USAGE, which = 3;
  else if (!db && !strcmp(sub, "rename")) usage = TABLE_RENAME_USAGE, which = 4;
  else return -1;
  if (cli_wants_help(argc, argv)) {
    fputs(usage, stdout);
    return 0;
  }
  switch (which) {
    case 0: return db_create(warehouse, argc, argv);
    case 1: return db_drop(warehouse, argc, argv);
    case 2: return table_create(warehouse, argc, argv);
    case 3: return table_drop_or_rename(warehouse, argc, argv, 0);
    default: return table_drop_or_rename(warehouse, argc, argv, 1);
  }
}
