/*
 * Row-id column updates of data-evolution tables (row-tracking.enabled and
 * data-evolution.enabled; reference 001 "Row ID column updates", pypaimon's
 * TableUpdateByRowId; SEMANTICS 9).
 *
 * Input batches carry `_ROW_ID` (int64, or narrower ints / decimal text; no nulls, each row id once per
 * round) and every column being updated (other columns are ignored). A
 * round starts with the first write after open or after a prepare: it plans
 * on the latest snapshot S (its live data files with row ids, grouped by
 * row-id range: the files of one range hold its columns). For every range a
 * batch touches, the updated columns' current values of the whole range are
 * read (deletion vectors not applied: every physical row), the new values
 * put in at their row ids, and one file holding only those columns is
 * written covering exactly that range: _FIRST_ROW_ID = the range's first row
 * id, _WRITE_COLS = the updated columns (table order), file source APPEND,
 * sequence numbers assigned by the commit (its snapshot id, above every
 * older file, so the reader takes these columns from it). One round updates
 * a range at most once (a second batch touching it is
 * PAIMON_ERR_INVALID_ARGUMENT: put all of a range's updates in one batch, or
 * prepare and commit in between).
 *
 * The commit of the prepared messages must run the DML row-id check from S
 * (pm_commit_set_rowid_check): a concurrent commit that wrote one of the
 * same columns of an overlapping range after S makes it PAIMON_ERR_CONFLICT.
 *
 * Invalid input (no `_ROW_ID`, a missing update column, a null or duplicate
 * row id, a row id no live file holds, a range already updated this round,
 * values that do not fit the columns) fails before anything of that batch is
 * written. After an I/O error the updater is failed (every later call returns
 * that error); pm_rowid_update_free deletes files never handed out.
 */
#ifndef PM_TABLE_ROWID_UPDATE_H
#define PM_TABLE_ROWID_UPDATE_H

#include <stddef.h>
#include <stdint.h>

#include "meta/split.h"
#include "meta/wire.h"
#include "paimon/arrow_c.h"
#include "table/table.h"
#include "table/write.h"
#include "util/error.h"

typedef struct pm_rowid_update pm_rowid_update;

/* An updater of columns cols[0, n) (copied; non-empty, distinct, table
 * columns that are not partition keys, not BLOB). t must be an append table
 * with row tracking and data evolution (else PAIMON_ERR_UNSUPPORTED naming
 * the option); retained. cfg as pm_table_write_open (may be NULL). */
int pm_rowid_update_open(pm_table *t, const pm_write_config *cfg, const char *const *cols, size_t n,
                         pm_rowid_update **out, pm_error *err);
/* Applies one batch (both borrowed). */
int pm_rowid_update_write(pm_rowid_update *u, const struct ArrowSchema *s, const struct ArrowArray *a, pm_error *err);
/* The messages of the round's files (*out owned by the caller, as
 * pm_table_write_prepare) and *check_from = S (0 when the round wrote
 * nothing); ends the round. */
int pm_rowid_update_prepare(pm_rowid_update *u, int64_t identifier, pm_manifest_committable **out,
                            int64_t *check_from, pm_error *err);
/* Rows updated so far. */
int64_t pm_rowid_update_rows(const pm_rowid_update *u);
void pm_rowid_update_free(pm_rowid_update *u); /* NULL ok */

/* ---- the plan of a round, shared with the shard updater (table/rowid_shard.c) ---- */

/* One row-id range of the live files: the data files (not blob / vector-store)
 * with exactly this range, and the blob files inside it. */
typedef struct pm_rowid_range {
  int64_t from, to; /* inclusive */
  const pm_manifest_entry **files;
  size_t n_files;
} pm_rowid_range;

typedef struct pm_rowid_plan {
  int64_t snapshot_id; /* 0: the table has no snapshot */
  pm_manifest_entries live;
  pm_rowid_range *ranges; /* sorted by from, disjoint */
  size_t n_ranges;
} pm_rowid_plan;

/* Plans on the latest snapshot of t. Overlapping data-file ranges that
 * differ (possible only in a damaged table) are PAIMON_ERR_CORRUPT. */
int pm_rowid_plan_latest(pm_table *t, pm_rowid_plan *out, pm_error *err);
void pm_rowid_plan_clear(pm_rowid_plan *p);
/* Index of the range holding row id r, or -1. */
int64_t pm_rowid_plan_find(const pm_rowid_plan *p, int64_t r);
/* Streams every physical row of range g (no deletion vectors) with columns
 * cols[0, n) then "_ROW_ID" (the split is kept in *split: free it with
 * pm_rowid_split_free after the stream). */
int pm_rowid_read_range(pm_table *t, const pm_rowid_plan *p, const pm_rowid_range *g, const char *const *cols,
                        size_t n, pm_data_split **split, struct ArrowArrayStream *out, pm_error *err);
void pm_rowid_split_free(pm_data_split *s);

#endif
