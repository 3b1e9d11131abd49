/*
 * libpaimon for SQLite: the `paimon` virtual-table module (not part of libpaimon.so).
 *
 * Built as the loadable extension build/libpaimon_sqlite.so and linked into `paimon sql`:
 *
 *   sqlite3> .load build/libpaimon_sqlite
 *   sqlite3> SELECT paimon_attach('warehouse=/data/warehouse');
 *   sqlite3> SELECT * FROM db.orders WHERE id > 5;
 *   sqlite3> SELECT * FROM db."orders$snapshots";      (system tables)
 *   sqlite3> SELECT * FROM db."orders$branch_dev";     (branches)
 *
 * paimon_attach('key=value', ...) opens a catalog (warehouse, metastore, path-rewrite) and
 * makes each of its Paimon databases a SQLite schema (an attached in-memory database of that
 * name) with one virtual table per table, branch and system table; 'database=NAME' attaches
 * one database only, 'schema=NAME' names its schema, any other key is a read option of every
 * table read through the attach (e.g. 'scan.snapshot-id=3', 'session_time_zone=UTC'). It
 * returns the number of tables attached. The module starts no thread of its own: its
 * catalog runs every operation on the calling thread ('threads=1') unless the attach gives
 * 'threads=N' (N > 1: planning, reads and compaction may use up to N threads of a process-wide
 * pool, which stays until the process exits; the extension is never unloaded).
 *
 * Values: integers, floats, strings natively; BOOLEAN as 0/1; DECIMAL as exact text; DATE,
 * TIME and TIMESTAMP as ISO text ("2024-01-01", "10:00:00.123", "2024-01-01T10:00:00.123",
 * "...Z" with a local time zone), so SQLite's date functions read them; binary as blobs;
 * ARRAY / MAP / ROW as JSON text (maps as [key, value] pairs), so SQLite's JSON functions
 * read them.
 *
 * Writes: INSERT on every data table; DELETE and UPDATE on primary-key tables, written as -D /
 * +U rows through the table's merge engine (an UPDATE that changes the primary key as -D of the
 * old row and +I of the new one) and refused as Java refuses them: tables without a primary key,
 * first-row, partial-update without 'partial-update.remove-record-on-delete' /
 * '.remove-record-on-sequence-group', aggregation without 'aggregation.remove-record-on-delete',
 * 'ignore-delete' = true, and UPDATE on aggregation. A transaction (one statement or BEGIN ...
 * COMMIT) is one commit per table: rows are written at COMMIT (statements do not see the rows
 * earlier statements of their transaction wrote); ROLLBACK, or any statement of the transaction
 * failing (ROLLBACK TO included), publishes nothing and leaves no file. SQL functions:
 * paimon_overwrite('db.t', 'SELECT ...' [, 'dt=2024-01-01,hr=1']) is INSERT OVERWRITE (its own
 * commit, at once), paimon_alter_table('db.t', 'ADD COLUMN c INT', ...) alters the schema (new
 * connections see it), and paimon_compact, paimon_create_tag, ... follow Java's procedures.
 */
#ifndef PAIMON_SQLITE_H
#define PAIMON_SQLITE_H

#ifdef __cplusplus
extern "C" {
#endif

#if defined(__GNUC__) || defined(__clang__)
#define PAIMON_SQLITE_EXPORT __attribute__((visibility("default")))
#else
#define PAIMON_SQLITE_EXPORT
#endif

struct sqlite3;
struct sqlite3_api_routines;

/* SQLite's extension entry point (the name SQLite derives from libpaimon_sqlite.so): registers
 * the module and the paimon_* functions on db. A program linking the module registers it for
 * every connection with sqlite3_auto_extension((void (*)(void))sqlite3_paimonsqlite_init). */
PAIMON_SQLITE_EXPORT int sqlite3_paimonsqlite_init(struct sqlite3 *db, char **pzErrMsg,
                                                   const struct sqlite3_api_routines *pApi);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_SQLITE_H */
