/*
 * The merge configuration of a primary-key table (SEMANTICS 2.2-2.3), built
 * once from the table's schema and options; shared by the merge-on-read
 * (read.c) and the write buffer (kv_write*.c), which both merge records laid
 * out as the table's columns followed by _SEQUENCE_NUMBER and _VALUE_KIND.
 */
#ifndef PM_TABLE_MERGE_TABLE_H
#define PM_TABLE_MERGE_TABLE_H

#include "table/merge.h"
#include "table/table.h"

typedef struct pm_table_merge {
  pm_merge_config cfg;           /* points into the arrays below and to the caller's layout */
  int n_keys;                    /* trimmed primary key */
  int *key_cols;                 /* layout index of each key column */
  pm_data_type **key_types;      /* borrowed from the table schema */
  int n_seq_fields;              /* sequence.field */
  int *seq_field_cols;
  pm_merge_column *columns;      /* per layout child */
  int n_seq_groups;
  pm_seq_group *seq_groups;
} pm_table_merge;

/* Fills *m for table t over `layout` (borrowed; must outlive m): children
 * [0, n_fields) are the table's fields in schema order, then n_cols -
 * n_fields extra columns, among them col_seq, col_kind and col_level (-1:
 * none). cfg.keep_retracts and cfg.batch_rows are left 0 for the caller.
 * Fails naming the option of an unknown sequence.field / sequence-group
 * column or an invalid aggregate function. On failure *m needs
 * pm_table_merge_free too. */
int pm_table_merge_init(pm_table *t, const pm_type *layout, int n_cols, int col_seq, int col_kind, int col_level,
                        pm_table_merge *m, pm_error *err);
void pm_table_merge_free(pm_table_merge *m);

#endif
