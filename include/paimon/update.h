/*
 * libpaimon public API: row-id column updates of data-evolution tables
 * (reference 001 "Row ID column updates"; pypaimon's
 * new_update().new_update_by_row_id()). Same conventions as paimon/paimon.h.
 *
 *   paimon_write_builder *wb;  paimon_write_builder_new(table, 0, NULL, 0, &wb, &err);
 *   const char *cols[] = {"name"};
 *   paimon_table_update *u;    paimon_write_builder_new_update_by_row_id(wb, cols, 1, &u, &err);
 *   paimon_table_update_columns(u, &schema, &batch, &err);   (_ROW_ID + name; borrowed)
 *   paimon_commit_messages *m; paimon_table_update_prepare_commit(u, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
 *   paimon_table_commit *c;    paimon_write_builder_new_commit(wb, &c, &err);
 *   paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, &err);
 *
 * Tables: append tables with row-tracking.enabled and data-evolution.enabled
 * (else PAIMON_ERR_UNSUPPORTED naming the options).
 *
 * Each batch holds a `_ROW_ID` column (int64, as Java's BIGINT; narrower
 * integers and decimal text, as CSV / JSON-lines input carries it, are
 * accepted too; no nulls) and every column
 * being updated, matched by name (other columns are ignored; values typed
 * as for paimon_table_write_arrow). For every row-id range of the live files
 * (the latest snapshot when the first batch since creation or the last
 * prepare arrives) that a batch touches, the current values of the updated
 * columns are read, the batch's values put in at their row ids, and one data
 * file holding only those columns is written covering the whole range, as
 * Java's data-evolution writers do (_FIRST_ROW_ID = the range start,
 * _WRITE_COLS = the updated columns, sequence numbers from the commit): the
 * table then reads the new values for those rows, every other value as
 * before. Deletion vectors keep deleting the rows they delete.
 *
 * Invalid input fails with PAIMON_ERR_INVALID_ARGUMENT before anything of the
 * batch is written: no `_ROW_ID`, a missing update column, a null or repeated
 * row id, a row id no live file holds, values that do not fit, or a range a
 * previous batch of this updater already updated since its last prepare (put
 * all updates of one range in one batch, or prepare and commit in between).
 * After an I/O error the updater is failed: every later call returns it.
 *
 * Commit: the messages remember the snapshot they were planned on; a commit
 * of them runs the DML row-id check from it (Java's rowIdCheckConflict, see
 * paimon_table_commit_with_row_id_check in paimon/write.h) unless the
 * committer has a check set: when a concurrent commit after that snapshot
 * wrote one of the same columns of an overlapping row range, the commit
 * fails with PAIMON_ERR_CONFLICT and nothing is published (abort the
 * messages).
 */
#ifndef PAIMON_UPDATE_H
#define PAIMON_UPDATE_H

#include "paimon/write.h"

#ifdef __cplusplus
extern "C" {
#endif

typedef struct paimon_table_update paimon_table_update;

/* An updater of columns[0, n) (copied; non-empty, distinct, table columns,
 * not partition keys, not BLOB) sharing wb's commit user, batch or stream
 * mode and dynamic options (wb must outlive it; not an overwrite builder).
 * *out owned by the caller: paimon_table_update_free. */
PAIMON_EXPORT paimon_status paimon_write_builder_new_update_by_row_id(const paimon_write_builder *wb,
                                                                      const char *const *columns, size_t n,
                                                                      paimon_table_update **out, paimon_error *err);
/* Applies one batch (schema and batch borrowed: the caller releases them). */
PAIMON_EXPORT paimon_status paimon_table_update_columns(paimon_table_update *u, const struct ArrowSchema *schema,
                                                        const struct ArrowArray *batch, paimon_error *err);
/* Every batch of a stream; the stream is consumed and released (also on error). */
PAIMON_EXPORT paimon_status paimon_table_update_stream(paimon_table_update *u, struct ArrowArrayStream *stream,
                                                       paimon_error *err);
/* The messages of the files written since the last prepare (*out owned by
 * the caller). Batch updaters: once, PAIMON_BATCH_COMMIT_IDENTIFIER; stream
 * updaters: strictly increasing identifiers, one per commit. The files are
 * handed out: paimon_table_update_free never deletes them. */
PAIMON_EXPORT paimon_status paimon_table_update_prepare_commit(paimon_table_update *u, int64_t commit_identifier,
                                                               paimon_commit_messages **out, paimon_error *err);
/* Rows updated so far (all rounds). */
PAIMON_EXPORT int64_t paimon_table_update_rows(const paimon_table_update *u);
/* Frees the updater; files not handed out by a prepare are deleted. NULL ok. */
PAIMON_EXPORT void paimon_table_update_free(paimon_table_update *u);

#ifdef __cplusplus
}
#endif

#endif /* PAIMON_UPDATE_H */
