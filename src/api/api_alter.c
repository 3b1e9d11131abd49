/* Public C API (include/paimon/ddl.h): schema changes and paimon_catalog_alter_table. */
#include "api/api_internal.h"
#include "meta/schema_change.h"

struct paimon_schema_change {
  pm_schema_change c;
};

static paimon_status new_change(pm_schema_change_kind kind, const char *column, paimon_schema_change **out,
                                paimon_error *err) {
  *out = NULL;
  paimon_schema_change *sc = calloc(1, sizeof *sc);
  if (!sc) return (paimon_status)PM_NOMEM(err);
  sc->c.kind = kind;
  if (column) {
    int rc = pm_schema_change_set_path(&sc->c, column, err);
    if (rc) {
      free(sc);
      return (paimon_status)rc;
    }
  }
  *out = sc;
  return PAIMON_OK;
}

static paimon_status fail(paimon_schema_change *sc, int rc) {
  paimon_schema_change_free(sc);
  return (paimon_status)rc;
}

static int set_str(char **dst, const char *s, paimon_error *err) {
  if (!s) return 0;
  if (!(*dst = strdup(s))) return PM_NOMEM(err);
  return 0;
}

/* A type string; a malformed or unknown type is the caller's error (naming the column). */
static int parse_type(const char *column, const char *type, pm_data_type **out, paimon_error *err) {
  int rc = pm_dtype_parse(type, out, err);
  if (rc == PAIMON_ERR_CORRUPT || rc == PAIMON_ERR_UNSUPPORTED) {
    pm_error_prefix(err, "column %s: ", column);
    if (err) err->code = PAIMON_ERR_INVALID_ARGUMENT;
    return PAIMON_ERR_INVALID_ARGUMENT;
  }
  return rc;
}

static int set_move(pm_schema_change *c, paimon_column_position pos, const char *reference, int for_add,
                    paimon_error *err) {
  switch (pos) {
    case PAIMON_COLUMN_LAST: c->move = for_add ? PM_MOVE_NONE : PM_MOVE_LAST; return 0;
    case PAIMON_COLUMN_FIRST: c->move = PM_MOVE_FIRST; return 0;
    case PAIMON_COLUMN_AFTER:
      if (!reference) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "PAIMON_COLUMN_AFTER needs a reference column");
      c->move = PM_MOVE_AFTER;
      return set_str(&c->reference, reference, err);
  }
  return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "unknown column position %d", (int)pos);
}

paimon_status paimon_schema_change_add_column(const char *column, const char *type, const char *comment,
                                              paimon_column_position position, const char *reference,
                                              paimon_schema_change **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(column && type, "NULL argument");
  paimon_schema_change *sc = NULL;
  paimon_status st = new_change(PM_SC_ADD_COLUMN, column, &sc, err);
  if (st) return st;
  int rc = parse_type(column, type, &sc->c.type, err);
  if (!rc) rc = set_str(&sc->c.comment, comment, err);
  if (!rc) rc = set_move(&sc->c, position, reference, 1, err);
  if (rc) return fail(sc, rc);
  *out = sc;
  return PAIMON_OK;
}

paimon_status paimon_schema_change_drop_column(const char *column, paimon_schema_change **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(column, "NULL argument");
  return new_change(PM_SC_DROP_COLUMN, column, out, err);
}

paimon_status paimon_schema_change_rename_column(const char *column, const char *new_name,
                                                 paimon_schema_change **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(column && new_name, "NULL argument");
  CHECK_ARG(*new_name, "empty new name");
  paimon_schema_change *sc = NULL;
  paimon_status st = new_change(PM_SC_RENAME_COLUMN, column, &sc, err);
  if (st) return st;
  int rc = set_str(&sc->c.new_name, new_name, err);
  if (rc) return fail(sc, rc);
  *out = sc;
  return PAIMON_OK;
}

paimon_status paimon_schema_change_update_column_type(const char *column, const char *type,
                                                      paimon_schema_change **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(column && type, "NULL argument");
  paimon_schema_change *sc = NULL;
  paimon_status st = new_change(PM_SC_UPDATE_COLUMN_TYPE, column, &sc, err);
  if (st) return st;
  int rc = parse_type(column, type, &sc->c.type, err);
  if (rc) return fail(sc, rc);
  sc->c.keep_nullability = 0; /* Java's SchemaChange.updateColumnType(name, type) */
  *out = sc;
  return PAIMON_OK;
}

paimon_status paimon_schema_change_update_column_nullability(const char *column, int nullable,
                                                             paimon_schema_change **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(column, "NULL argument");
  paimon_status st = new_change(PM_SC_UPDATE_COLUMN_NULLABILITY, column, out, err);
  if (!st) (*out)->c.nullable = nullable ? 1 : 0;
  return st;
}

paimon_status paimon_schema_change_update_column_comment(const char *column, const char *comment,
                                                         paimon_schema_change **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(column, "NULL argument");
  paimon_schema_change *sc = NULL;
  paimon_status st = new_change(PM_SC_UPDATE_COLUMN_COMMENT, column, &sc, err);
  if (st) return st;
  int rc = set_str(&sc->c.comment, comment, err);
  if (rc) return fail(sc, rc);
  *out = sc;
  return PAIMON_OK;
}

paimon_status paimon_schema_change_update_column_position(const char *column, paimon_column_position position,
                                                          const char *reference, paimon_schema_change **out,
                                                          paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(column, "NULL argument");
  paimon_schema_change *sc = NULL;
  paimon_status st = new_change(PM_SC_UPDATE_COLUMN_POSITION, column, &sc, err);
  if (st) return st;
  int rc = set_move(&sc->c, position, reference, 0, err);
  if (rc) return fail(sc, rc);
  *out = sc;
  return PAIMON_OK;
}

paimon_status paimon_schema_change_set_option(const char *key, const char *value, paimon_schema_change **out,
                                              paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(key && value, "NULL argument");
  CHECK_ARG(*key, "empty option key");
  paimon_schema_change *sc = NULL;
  paimon_status st = new_change(PM_SC_SET_OPTION, NULL, &sc, err);
  if (st) return st;
  int rc = set_str(&sc->c.key, key, err);
  if (!rc) rc = set_str(&sc->c.value, value, err);
  if (rc) return fail(sc, rc);
  *out = sc;
  return PAIMON_OK;
}

paimon_status paimon_schema_change_remove_option(const char *key, paimon_schema_change **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(key, "NULL argument");
  paimon_schema_change *sc = NULL;
  paimon_status st = new_change(PM_SC_REMOVE_OPTION, NULL, &sc, err);
  if (st) return st;
  int rc = set_str(&sc->c.key, key, err);
  if (rc) return fail(sc, rc);
  *out = sc;
  return PAIMON_OK;
}

paimon_status paimon_schema_change_update_comment(const char *comment, paimon_schema_change **out,
                                                  paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  paimon_schema_change *sc = NULL;
  paimon_status st = new_change(PM_SC_UPDATE_COMMENT, NULL, &sc, err);
  if (st) return st;
  int rc = set_str(&sc->c.comment, comment, err);
  if (rc) return fail(sc, rc);
  *out = sc;
  return PAIMON_OK;
}

void paimon_schema_change_free(paimon_schema_change *change) {
  if (!change) return;
  pm_schema_change_clear(&change->c);
  free(change);
}

paimon_status paimon_catalog_alter_table(paimon_catalog *catalog, const char *identifier,
                                         const paimon_schema_change *const *changes, size_t n,
                                         int ignore_if_not_exists, paimon_error *err) {
  CHECK_ARG(catalog && identifier, "NULL argument");
  CHECK_ARG(changes || n == 0, "changes is NULL");
  for (size_t i = 0; i < n; i++) CHECK_ARG(changes[i], "a change is NULL");
  pm_identifier id;
  int rc = pm_identifier_parse(identifier, &id, err);
  if (rc) return (paimon_status)rc;
  char *root = NULL, *name = NULL;
  pm_schema_change *cs = NULL;
  if (id.system_table) {
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "'%s' is a system table: it cannot be altered", identifier);
    goto done;
  }
  root = pm_catalog_table_path(catalog->c, id.database, id.table);
  size_t len = strlen(id.database) + strlen(id.table) + 2;
  name = malloc(len);
  cs = n ? calloc(n, sizeof *cs) : NULL;
  if (!root || !name || (n && !cs)) {
    rc = PM_NOMEM(err);
    goto done;
  }
  snprintf(name, len, "%s.%s", id.database, id.table);
  for (size_t i = 0; i < n; i++) cs[i] = changes[i]->c; /* shallow: only read */
  pm_schema_manager m = pm_schema_manager_of(catalog->c->fs, root, id.branch);
  rc = pm_schema_commit_changes(&m, name, cs, n, 0, NULL, err);
  if (rc == PAIMON_ERR_NOT_FOUND && ignore_if_not_exists) {
    /* only a missing table is ignored, not a missing column */
    pm_table_schema *latest = NULL;
    pm_error e2 = {0};
    if (pm_schema_read_latest(&m, &latest, &e2) == PAIMON_ERR_NOT_FOUND) {
      pm_error_clear(err);
      rc = 0;
    }
    pm_schema_free(latest);
  }
done:
  free(cs);
  free(root);
  free(name);
  pm_identifier_clear(&id);
  return (paimon_status)rc;
}
