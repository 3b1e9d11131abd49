/*
 * Catalog and maintenance operations as SQL functions named after Java's procedures, each
 * returning a line saying what it did. The table argument is a Paimon identifier ('db.t',
 * 'db.t$branch_b'), looked up in the catalog of the paimon_attach that attached database db
 * (else the latest one):
 *   paimon_create_tag('db.t', 'tag' [, snapshot_id])   paimon_delete_tag('db.t', 'tag')
 *   paimon_rollback('db.t', snapshot_id | 'tag')       paimon_create_branch('db.t', 'b' [, 'tag'])
 *   paimon_delete_branch('db.t', 'b')                  paimon_compact('db.t' [, full])
 *   paimon_expire_snapshots('db.t', retain_max)        paimon_remove_orphan_files('db.t' [, older_than_ms [, dry_run]])
 *   paimon_drop_database('db' [, cascade])
 *   paimon_overwrite('db.t', 'SELECT ...' [, 'dt=2024-01-01,hr=1'])  (INSERT OVERWRITE: commits at once)
 *   paimon_alter_table('db.t', 'change', ...)  one schema change per argument, all in one new schema:
 *     'ADD COLUMN c TYPE' 'DROP COLUMN c' 'RENAME COLUMN a TO b' 'ALTER COLUMN c TYPE T'
 *     'SET key = value' 'RESET key'   (connections attached before see the new columns after
 *     re-attaching: a new connection)
 */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paimon/cleanup.h"
#include "paimon/compact.h"
#include "paimon/ddl.h"
#include "paimon/expire.h"
#include "sql/psql.h"

static psql_attach *attach_of(psql_conn *c, const char *ident) {
  const char *dot = ident ? strchr(ident, '.') : NULL;
  for (psql_attach *a = c->attaches; a && dot; a = a->next)
    for (size_t i = 0; i < a->n_schemas; i++)
      if (strlen(a->databases[i]) == (size_t)(dot - ident) && !strncmp(a->databases[i], ident, (size_t)(dot - ident))) return a;
  return c->attaches;
}

static void fail(sqlite3_context *ctx, const char *fn, const char *msg) {
  char *m = sqlite3_mprintf("%s: %s", fn, msg);
  sqlite3_result_error(ctx, m, -1);
  sqlite3_free(m);
}

/* Opens the table of argv[0]; NULL after setting the error. */
static paimon_table *open_table(sqlite3_context *ctx, const char *fn, sqlite3_value **argv) {
  psql_conn *c = sqlite3_user_data(ctx);
  const char *ident = (const char *)sqlite3_value_text(argv[0]);
  psql_attach *a = attach_of(c, ident);
  if (!a) {
    fail(ctx, fn, "run SELECT paimon_attach('warehouse=...') first");
    return NULL;
  }
  if (!ident) {
    fail(ctx, fn, "the first argument is the table ('db.t')");
    return NULL;
  }
  paimon_table *t = NULL;
  paimon_error e;
  if (paimon_catalog_get_table(a->catalog, ident, &t, &e)) {
    fail(ctx, fn, e.message);
    return NULL;
  }
  return t;
}

static void done(sqlite3_context *ctx, char *text) {
  if (text) sqlite3_result_text(ctx, text, -1, sqlite3_free);
  else sqlite3_result_error_nomem(ctx);
}

static void fn_create_tag(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  paimon_table *t = open_table(ctx, "paimon_create_tag", argv);
  if (!t) return;
  const char *tag = (const char *)sqlite3_value_text(argv[1]);
  int64_t snap = -1;
  paimon_error e;
  if (argc > 2) snap = sqlite3_value_int64(argv[2]);
  else if (paimon_table_latest_snapshot_id(t, &snap, &e)) snap = -1;
  if (!tag) fail(ctx, "paimon_create_tag", "needs a tag name");
  else if (paimon_table_create_tag(t, tag, snap, NULL, 0, &e)) fail(ctx, "paimon_create_tag", e.message);
  else done(ctx, sqlite3_mprintf("created tag %s of snapshot %lld", tag, (long long)snap));
  paimon_table_free(t);
}

static void fn_delete_tag(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  paimon_table *t = open_table(ctx, "paimon_delete_tag", argv);
  if (!t) return;
  const char *tag = (const char *)sqlite3_value_text(argv[1]);
  paimon_error e;
  if (!tag) fail(ctx, "paimon_delete_tag", "needs a tag name");
  else if (paimon_table_delete_tag(t, tag, &e)) fail(ctx, "paimon_delete_tag", e.message);
  else done(ctx, sqlite3_mprintf("deleted tag %s", tag));
  paimon_table_free(t);
}

static void fn_rollback(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  paimon_table *t = open_table(ctx, "paimon_rollback", argv);
  if (!t) return;
  paimon_error e;
  if (sqlite3_value_type(argv[1]) == SQLITE_INTEGER) {
    int64_t id = sqlite3_value_int64(argv[1]);
    if (paimon_table_rollback_to_snapshot(t, id, &e)) fail(ctx, "paimon_rollback", e.message);
    else done(ctx, sqlite3_mprintf("rolled back to snapshot %lld", (long long)id));
  } else {
    const char *tag = (const char *)sqlite3_value_text(argv[1]);
    if (!tag) fail(ctx, "paimon_rollback", "needs a snapshot id or a tag");
    else if (paimon_table_rollback_to_tag(t, tag, &e)) fail(ctx, "paimon_rollback", e.message);
    else done(ctx, sqlite3_mprintf("rolled back to tag %s", tag));
  }
  paimon_table_free(t);
}

static void fn_create_branch(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  paimon_table *t = open_table(ctx, "paimon_create_branch", argv);
  if (!t) return;
  const char *name = (const char *)sqlite3_value_text(argv[1]);
  const char *tag = argc > 2 ? (const char *)sqlite3_value_text(argv[2]) : NULL;
  paimon_error e;
  if (!name) fail(ctx, "paimon_create_branch", "needs a branch name");
  else if (paimon_table_create_branch(t, name, tag, -1, 0, &e)) fail(ctx, "paimon_create_branch", e.message);
  else done(ctx, tag ? sqlite3_mprintf("created branch %s from tag %s", name, tag) : sqlite3_mprintf("created branch %s", name));
  paimon_table_free(t);
}

static void fn_delete_branch(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  paimon_table *t = open_table(ctx, "paimon_delete_branch", argv);
  if (!t) return;
  const char *name = (const char *)sqlite3_value_text(argv[1]);
  paimon_error e;
  if (!name) fail(ctx, "paimon_delete_branch", "needs a branch name");
  else if (paimon_table_delete_branch(t, name, &e)) fail(ctx, "paimon_delete_branch", e.message);
  else done(ctx, sqlite3_mprintf("deleted branch %s", name));
  paimon_table_free(t);
}

static void fn_compact(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  paimon_table *t = open_table(ctx, "paimon_compact", argv);
  if (!t) return;
  paimon_compact_options o;
  paimon_compact_options_init(&o);
  o.full = argc > 1 ? sqlite3_value_int(argv[1]) != 0 : 0;
  paimon_compact_result r;
  memset(&r, 0, sizeof r);
  paimon_error e;
  if (paimon_table_compact(t, &o, &r, &e)) fail(ctx, "paimon_compact", e.message);
  else
    done(ctx, sqlite3_mprintf("compacted: %lld files removed, %lld added, snapshot %lld",
                              (long long)r.metrics.files_removed, (long long)r.metrics.files_added, (long long)r.snapshot_id));
  paimon_table_free(t);
}

static void fn_expire_snapshots(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  paimon_table *t = open_table(ctx, "paimon_expire_snapshots", argv);
  if (!t) return;
  paimon_expire_options o;
  paimon_expire_options_init(&o);
  if (argc > 1) o.retain_max = sqlite3_value_int(argv[1]);
  if (argc > 1 && o.retain_min > o.retain_max) o.retain_min = o.retain_max;
  if (argc > 1 && o.retain_min < 0) o.retain_min = 1;
  paimon_expire_result r;
  memset(&r, 0, sizeof r);
  paimon_error e;
  if (paimon_table_expire_snapshots(t, &o, NULL, NULL, &r, &e)) fail(ctx, "paimon_expire_snapshots", e.message);
  else
    done(ctx, sqlite3_mprintf("expired %llu snapshots (%llu data files, %llu metadata files deleted), earliest %lld",
                              (unsigned long long)r.snapshots_expired, (unsigned long long)r.data_files_deleted,
                              (unsigned long long)r.meta_files_deleted, (long long)r.earliest_snapshot));
  paimon_table_free(t);
}

static void fn_remove_orphan_files(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  paimon_table *t = open_table(ctx, "paimon_remove_orphan_files", argv);
  if (!t) return;
  int64_t older = argc > 1 ? sqlite3_value_int64(argv[1]) : 0;
  int dry = argc > 2 ? sqlite3_value_int(argv[2]) != 0 : 0;
  paimon_orphan_result r;
  memset(&r, 0, sizeof r);
  paimon_error e;
  if (paimon_table_remove_orphan_files(t, older, dry, NULL, NULL, NULL, &r, &e)) fail(ctx, "paimon_remove_orphan_files", e.message);
  else
    done(ctx, sqlite3_mprintf("%s %llu orphan files (%llu bytes)", dry ? "would delete" : "deleted", (unsigned long long)r.files,
                              (unsigned long long)r.bytes));
  paimon_table_free(t);
}

static void fn_drop_database(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  psql_conn *c = sqlite3_user_data(ctx);
  const char *name = (const char *)sqlite3_value_text(argv[0]);
  int cascade = argc > 1 ? sqlite3_value_int(argv[1]) != 0 : 0;
  psql_attach *a = NULL;
  for (psql_attach *x = c->attaches; x && !a; x = x->next)
    for (size_t i = 0; i < x->n_schemas; i++)
      if (name && !strcmp(x->databases[i], name)) a = x;
  if (!a) a = c->attaches;
  paimon_error e;
  if (!a) fail(ctx, "paimon_drop_database", "run SELECT paimon_attach('warehouse=...') first");
  else if (!name) fail(ctx, "paimon_drop_database", "needs a database name");
  else if (paimon_catalog_drop_database(a->catalog, name, cascade, 0, &e)) fail(ctx, "paimon_drop_database", e.message);
  else done(ctx, sqlite3_mprintf("dropped database %s (its schema stays attached until DETACH)", name));
}

/* INSERT OVERWRITE db.t [PARTITION (spec)] SELECT ...: the query's rows by position; without a
 * spec a partitioned table has the partitions they touch replaced (dynamic-partition-overwrite),
 * with one the spec's partition. Its own commit, outside the SQLite transaction. */
static void fn_overwrite(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  paimon_table *t = open_table(ctx, "paimon_overwrite", argv);
  if (!t) return;
  const char *select = (const char *)sqlite3_value_text(argv[1]);
  const char *spec = argc > 2 ? (const char *)sqlite3_value_text(argv[2]) : NULL;
  int64_t rows = 0, snap = -1;
  char *err = NULL;
  if (psql_overwrite(sqlite3_context_db_handle(ctx), t, select, spec, &rows, &snap, &err)) fail(ctx, "paimon_overwrite", err);
  else if (snap < 0) done(ctx, sqlite3_mprintf("overwrote %s with %lld rows (no snapshot)", paimon_table_identifier(t), (long long)rows));
  else done(ctx, sqlite3_mprintf("overwrote %s with %lld rows in snapshot %lld", paimon_table_identifier(t), (long long)rows, (long long)snap));
  sqlite3_free(err);
  paimon_table_free(t);
}

/* Case-insensitive keyword at *p followed by a space; advances past it and the spaces. */
static int keyword(const char **p, const char *kw) {
  size_t n = strlen(kw);
  if (sqlite3_strnicmp(*p, kw, (int)n) || ((*p)[n] && !isspace((unsigned char)(*p)[n]))) return 0;
  *p += n;
  while (isspace((unsigned char)**p)) (*p)++;
  return 1;
}

/* The next word (up to a space, or `quoted`) into buf; advances. */
static int word(const char **p, char *buf, size_t cap) {
  const char *s = *p;
  size_t n = 0;
  if (*s == '`' || *s == '"' || *s == '\'') {
    char q = *s++;
    while (*s && *s != q && n + 1 < cap) buf[n++] = *s++;
    if (*s != q) return 0;
    s++;
  } else {
    while (*s && !isspace((unsigned char)*s) && *s != '=' && n + 1 < cap) buf[n++] = *s++;
  }
  buf[n] = 0;
  while (isspace((unsigned char)*s)) s++;
  *p = s;
  return n > 0;
}

/* One change text as a schema change; NULL with *msg (static text) when it does not parse. */
static paimon_schema_change *parse_change(const char *text, const char **msg, paimon_error *e) {
  const char *p = text;
  char a[512], b[512];
  paimon_schema_change *ch = NULL;
  paimon_status st = PAIMON_OK;
  *msg = "expected ADD COLUMN c TYPE, DROP COLUMN c, RENAME COLUMN a TO b, ALTER COLUMN c TYPE T, SET k = v or RESET k";
  while (isspace((unsigned char)*p)) p++;
  if (keyword(&p, "ADD")) {
    keyword(&p, "COLUMN");
    if (!word(&p, a, sizeof a) || !*p) return NULL;
    st = paimon_schema_change_add_column(a, p, NULL, PAIMON_COLUMN_LAST, NULL, &ch, e);
  } else if (keyword(&p, "DROP")) {
    keyword(&p, "COLUMN");
    if (!word(&p, a, sizeof a) || *p) return NULL;
    st = paimon_schema_change_drop_column(a, &ch, e);
  } else if (keyword(&p, "RENAME")) {
    keyword(&p, "COLUMN");
    if (!word(&p, a, sizeof a) || !keyword(&p, "TO") || !word(&p, b, sizeof b) || *p) return NULL;
    st = paimon_schema_change_rename_column(a, b, &ch, e);
  } else if (keyword(&p, "ALTER")) {
    keyword(&p, "COLUMN");
    if (!word(&p, a, sizeof a)) return NULL;
    keyword(&p, "TYPE");
    if (!*p) return NULL;
    st = paimon_schema_change_update_column_type(a, p, &ch, e);
  } else if (keyword(&p, "SET")) {
    if (!word(&p, a, sizeof a) || *p != '=') return NULL;
    p++;
    while (isspace((unsigned char)*p)) p++;
    if (!word(&p, b, sizeof b) || *p) return NULL;
    st = paimon_schema_change_set_option(a, b, &ch, e);
  } else if (keyword(&p, "RESET")) {
    if (!word(&p, a, sizeof a) || *p) return NULL;
    st = paimon_schema_change_remove_option(a, &ch, e);
  } else {
    return NULL;
  }
  if (st) *msg = e->message;
  return st ? NULL : ch;
}

static void fn_alter_table(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  psql_conn *c = sqlite3_user_data(ctx);
  const char *ident = (const char *)sqlite3_value_text(argv[0]);
  psql_attach *a = attach_of(c, ident);
  if (!a || !ident || argc < 2) {
    fail(ctx, "paimon_alter_table", !a ? "run SELECT paimon_attach('warehouse=...') first" : "needs the table and changes");
    return;
  }
  paimon_schema_change **chs = calloc((size_t)argc, sizeof *chs);
  if (!chs) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  paimon_error e;
  int n = 0, ok = 1;
  for (int i = 1; i < argc && ok; i++) {
    const char *text = (const char *)sqlite3_value_text(argv[i]);
    const char *msg = "a change is NULL";
    if (text) chs[n] = parse_change(text, &msg, &e);
    if (chs[n]) {
      n++;
    } else {
      char *m = sqlite3_mprintf("change '%s': %s", text ? text : "NULL", msg);
      fail(ctx, "paimon_alter_table", m ? m : "out of memory");
      sqlite3_free(m);
      ok = 0;
    }
  }
  if (ok) {
    if (paimon_catalog_alter_table(a->catalog, ident, (const paimon_schema_change *const *)chs, (size_t)n, 0, &e))
      fail(ctx, "paimon_alter_table", e.message);
    else done(ctx, sqlite3_mprintf("altered %s: %d changes", ident, n));
  }
  for (int i = 0; i < n; i++) paimon_schema_change_free(chs[i]);
  free(chs);
}

int psql_register_functions(sqlite3 *db, psql_conn *c) {
  static const struct {
    const char *name;
    int n_args;
    void (*fn)(sqlite3_context *, int, sqlite3_value **);
  } FNS[] = {
      {"paimon_create_tag", 2, fn_create_tag},       {"paimon_create_tag", 3, fn_create_tag},
      {"paimon_delete_tag", 2, fn_delete_tag},       {"paimon_rollback", 2, fn_rollback},
      {"paimon_create_branch", 2, fn_create_branch}, {"paimon_create_branch", 3, fn_create_branch},
      {"paimon_delete_branch", 2, fn_delete_branch}, {"paimon_compact", 1, fn_compact},
      {"paimon_compact", 2, fn_compact},             {"paimon_expire_snapshots", 1, fn_expire_snapshots},
      {"paimon_expire_snapshots", 2, fn_expire_snapshots}, {"paimon_remove_orphan_files", 1, fn_remove_orphan_files},
      {"paimon_remove_orphan_files", 2, fn_remove_orphan_files}, {"paimon_remove_orphan_files", 3, fn_remove_orphan_files},
      {"paimon_drop_database", 1, fn_drop_database}, {"paimon_drop_database", 2, fn_drop_database},
      {"paimon_overwrite", 2, fn_overwrite},         {"paimon_overwrite", 3, fn_overwrite},
      {"paimon_alter_table", -1, fn_alter_table},
  };
  for (size_t i = 0; i < sizeof FNS / sizeof *FNS; i++) {
    int rc = sqlite3_create_function(db, FNS[i].name, FNS[i].n_args, SQLITE_UTF8 | SQLITE_DIRECTONLY, c, FNS[i].fn, NULL, NULL);
    if (rc) return rc;
  }
  return SQLITE_OK;
}
