/*
 * Commit messages of the crash driver's batches (support/oracle_crash.h) made
 * without the table writer: one Parquet data file per batch, written and
 * described as the committer tests do it (support/commit_fixture.h: every
 * column, value stats as Java's default truncate(16)), wrapped as public
 * paimon_commit_messages (api/api_write_internal.h). The data file is written
 * to the local file system directly; the manifests, lists and snapshots of
 * the commit go through the table's fs.
 */
#ifndef PM_TESTS_SUPPORT_ORACLE_MESSAGES_H
#define PM_TESTS_SUPPORT_ORACLE_MESSAGES_H

#include "api/api_write_internal.h"
#include "support/commit_fixture.h"
#include "support/oracle_crash.h"

/* Messages of batch b (oc_rows(b, n_rows) rows, partition oc_dt(b, part)) carrying ident.
 * *out owned by the caller (paimon_commit_messages_free). */
static inline paimon_status oc_batch_messages(pm_table *t, long long b, int n_rows, int part, int64_t ident,
                                              paimon_commit_messages **out, paimon_error *err) {
  int n = oc_rows(b, n_rows);
  if (n > OC_MAX_ROWS) n = OC_MAX_ROWS;
  int32_t ids[OC_MAX_ROWS];
  char names_buf[OC_MAX_ROWS][64], dbuf[32];
  const char *names[OC_MAX_ROWS];
  for (int i = 0; i < n; i++) {
    ids[i] = oc_id(b, i);
    oc_name(b, i, names_buf[i], sizeof names_buf[i]);
    names[i] = names_buf[i];
  }
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_manifest_committable *c = cf_committable(ident, 1);
  cf_add_file(c, t, &pf, oc_dt(b, part, dbuf, sizeof dbuf), ids, names, n);
  pm_error e;
  pm_error_clear(&e);
  int rc = pm_api_messages_wrap(c, out, &e);
  if (rc) {
    err->code = (paimon_status)rc;
    snprintf(err->message, sizeof err->message, "%s", e.message);
  }
  return (paimon_status)rc;
}

#endif
