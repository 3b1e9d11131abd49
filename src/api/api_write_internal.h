/* Internal to src/api: the write side's handles (write.h), shared by
 * api_write_builder.c, api_write.c (table write), api_messages.c and api_commit.c. */
#ifndef PAIMON_API_WRITE_INTERNAL_H
#define PAIMON_API_WRITE_INTERNAL_H

#include "api/api_internal.h"
#include "meta/wire.h"
#include "paimon/write.h"
#include "table/commit.h"
#include "table/partition_expire.h"
#include "table/write.h"
#include "util/str.h"

/* A static overwrite / partition spec in text form (owned copies). */
typedef struct pm_api_spec {
  char **keys;
  char **values;
  size_t n;
} pm_api_spec;

struct paimon_write_builder {
  const paimon_table *table;
  pm_table *t; /* the table with the builder's dynamic options (owned reference) */
  char *commit_user;
  int streaming;
  int overwrite;     /* with_overwrite called */
  pm_api_spec spec;  /* its static spec (n = 0: whole table / dynamic) */
  pm_table *t_static; /* t with dynamic-partition-overwrite = false, for a static spec (owned) */
  pm_api_spec into;   /* with_partition: every new file must belong to it (n = 0: none) */
  pm_write_signal *signal; /* shared with its writers and commits (table/write.h) */
};

/* Commit messages: the committables of one or more writers (merge keeps
 * each, their arenas own the messages); commit and serialize see them
 * through one combined view. */
struct paimon_commit_messages {
  pm_manifest_committable **parts;
  size_t n_parts;
  /* > 0: row-id updates planned on this snapshot (update.h): their commit runs
   * the DML row-id check from it (the smallest of merged messages) */
  int64_t check_from_snapshot;
};

struct paimon_table_commit {
  pm_commit *c;
  pm_table *t; /* owned reference */
  int streaming;
  int committed; /* batch: commit done */
  int overwrite;
  pm_api_spec spec;
  pm_api_spec into; /* the builder's with_partition spec */
  char *commit_user;          /* the builder's (owned copy) */
  pm_write_signal *signal;     /* the builder's (a reference): bumped when a compaction is dropped */
  int rowid_check_set;         /* with_row_id_check called with a mode other than OFF */
};

/* A view of every message of m as one committable carrying `identifier`
 * (watermark and properties from the first part). view->messages is
 * malloc'd: pm_api_view_free. */
int pm_api_messages_view(const paimon_commit_messages *m, int64_t identifier, pm_manifest_committable *view,
                         pm_error *err);
void pm_api_view_free(pm_manifest_committable *view);
/* Wraps one committable (taken, also on failure) as messages. */
int pm_api_messages_wrap(pm_manifest_committable *c, paimon_commit_messages **out, pm_error *err);

/* Copies a partition spec, checking every key is a partition key of t. */
int pm_api_spec_copy(const pm_table *t, const paimon_option *spec, size_t n, pm_api_spec *out, pm_error *err);
void pm_api_spec_free(pm_api_spec *s);

/* The table writer behind a public one (api_write.c); NULL for NULL. */
struct pm_table_write;
struct pm_table_write *pm_api_table_write(paimon_table_write *w);

#endif
