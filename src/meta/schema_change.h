/*
 * Schema evolution (ALTER TABLE) as Java's SchemaManager.commitChanges does it.
 *
 * pm_schema_apply_changes is a pure function: the latest schema plus a list
 * of changes gives the next schema (id + 1, version 3, timeMillis = now,
 * highestFieldId never decreasing) or an error naming the column / option at
 * fault. It applies Java's generateTableSchema rules in order, then Java's
 * Schema normalisation (partition / primary-key options, primary-key columns
 * NOT NULL) and the table-schema checks the library implements.
 *
 * pm_schema_commit_changes publishes the result as schema-<latest+1> by
 * create-if-absent through the schema manager's fs. Retry policy (Java's
 * commitChanges loops until its write wins): when another writer published
 * that id first, the latest schema is read again and the changes are applied
 * to it again (so they are validated against what the winner wrote), at most
 * PM_SCHEMA_COMMIT_ATTEMPTS times; then PAIMON_ERR_CONFLICT. With
 * max_attempts = 1 a lost race is PAIMON_ERR_CONFLICT at once. Nothing is
 * written on any error.
 *
 * Column paths: names[0] is a top-level column, names[1..] walk into ROW
 * fields; ARRAY elements and MAP values are crossed by a path element of any
 * name (Java's "element" / "value"), as SchemaManager's NestedColumnModifier does.
 *
 * Ownership: a pm_schema_change owns every string and type it points to
 * (pm_schema_change_clear frees them); the apply / commit calls only read
 * the changes.
 */
#ifndef PM_META_SCHEMA_CHANGE_H
#define PM_META_SCHEMA_CHANGE_H

#include <stddef.h>
#include <stdint.h>

#include "data/types.h"
#include "meta/schema.h"
#include "util/error.h"

typedef enum pm_schema_change_kind {
  PM_SC_SET_OPTION,
  PM_SC_REMOVE_OPTION,
  PM_SC_UPDATE_COMMENT,
  PM_SC_ADD_COLUMN,
  PM_SC_RENAME_COLUMN,
  PM_SC_DROP_COLUMN,
  PM_SC_UPDATE_COLUMN_TYPE,
  PM_SC_UPDATE_COLUMN_NULLABILITY,
  PM_SC_UPDATE_COLUMN_COMMENT,
  PM_SC_UPDATE_COLUMN_POSITION
} pm_schema_change_kind;

/* Java's SchemaChange.Move types; NONE = no move given (add column appends). */
typedef enum pm_column_move {
  PM_MOVE_NONE = 0,
  PM_MOVE_FIRST,
  PM_MOVE_AFTER,
  PM_MOVE_BEFORE,
  PM_MOVE_LAST
} pm_column_move;

typedef struct pm_schema_change {
  pm_schema_change_kind kind;
  char **names;          /* column path (column kinds); UPDATE_COLUMN_POSITION: names[0] moves */
  size_t n_names;
  char *new_name;        /* RENAME_COLUMN */
  pm_data_type *type;    /* ADD_COLUMN, UPDATE_COLUMN_TYPE */
  char *comment;         /* ADD_COLUMN, UPDATE_COLUMN_COMMENT, UPDATE_COMMENT; NULL = none */
  int nullable;          /* UPDATE_COLUMN_NULLABILITY: the new nullability */
  int keep_nullability;  /* UPDATE_COLUMN_TYPE: keep the column's nullability (Java's keepNullability) */
  pm_column_move move;   /* ADD_COLUMN, UPDATE_COLUMN_POSITION */
  char *reference;       /* AFTER / BEFORE: the reference column */
  char *key, *value;     /* SET_OPTION (key, value), REMOVE_OPTION (key) */
} pm_schema_change;

/* Frees the members of c (not c). */
void pm_schema_change_clear(pm_schema_change *c);
/* Deep copy into *dst. */
int pm_schema_change_copy(const pm_schema_change *src, pm_schema_change *dst, pm_error *err);
/* Splits a dotted column path ("a.b"; "\." is a literal dot, "\\" a backslash) into names. */
int pm_schema_change_set_path(pm_schema_change *c, const char *path, pm_error *err);

typedef struct pm_schema_change_ctx {
  const char *table_name; /* for messages ("db.t"); NULL ok */
  int has_snapshots;      /* the table has a snapshot: immutable options are refused (Java) */
  int64_t now_millis;     /* timeMillis of the new schema; 0 = the current time */
} pm_schema_change_ctx;

/* The next schema. *out owned by the caller (pm_schema_free). */
int pm_schema_apply_changes(const pm_table_schema *old, const pm_schema_change *changes, size_t n,
                            const pm_schema_change_ctx *ctx, pm_table_schema **out, pm_error *err);

#define PM_SCHEMA_COMMIT_ATTEMPTS 100

/* Reads the latest schema of m, applies the changes, publishes schema-<id+1>
 * (see the retry policy above; max_attempts 0 = PM_SCHEMA_COMMIT_ATTEMPTS).
 * No schema = PAIMON_ERR_NOT_FOUND naming the table. *out (may be NULL)
 * receives the committed schema (pm_schema_free). */
int pm_schema_commit_changes(const pm_schema_manager *m, const char *table_name, const pm_schema_change *changes,
                             size_t n, int max_attempts, pm_table_schema **out, pm_error *err);

#endif
