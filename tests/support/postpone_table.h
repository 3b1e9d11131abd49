/*
 * Shared by the postpone-bucket tests (test_write_pk_postpone*.c): the table
 * (id INT NOT NULL, dt STRING NOT NULL, v STRING, n BIGINT; primary key
 * (id, dt), partitioned by dt, bucket = -2), writes of rows with a row-kind
 * column through the public API (support/pk_write.h) fed to a model
 * (support/pk_model.h) as well, and `paimon-table check` allowing what the
 * oracle does not know of Java's postpone writer: its data-file names
 * (<data-file.prefix>u-<commit user>-s-<write id>-w-<uuid>-<n>.<format>,
 * PostponeBucketFileStoreWrite) are refused by the oracle's data-<uuid>-<n>
 * rule; such a FAIL line is accepted only for a name of exactly that shape.
 *
 * Header-only; needs harness.h before it.
 */
#ifndef PM_TESTS_SUPPORT_POSTPONE_TABLE_H
#define PM_TESTS_SUPPORT_POSTPONE_TABLE_H

#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paimon/compact.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "support/pk_model.h"
#include "support/pk_write.h"

#define PP_COLUMNS "id INT NOT NULL, dt STRING NOT NULL, v STRING, n BIGINT"
static const char *const PP_ARROW_COLS[] = {"id:i:notnull", "dt:u:notnull", "v:u", "n:l", "k:i"};
static const pkm_column PP_MODEL_COLS[] = {
    {"id", PKM_INT, PKM_AGG_DEFAULT, 0, -1}, {"dt", PKM_STRING, PKM_AGG_DEFAULT, 0, -1},
    {"v", PKM_STRING, PKM_AGG_DEFAULT, 0, -1}, {"n", PKM_INT, PKM_AGG_DEFAULT, 0, -1}};

/* d.<name>: the postpone table with options opts (bucket=-2 first, so opts may not repeat it). */
static inline paimon_table *pp_create(paimon_catalog *cat, const char *name, const char *const *opts, size_t n) {
  const char *all[24] = {"bucket=-2", "primary-key=id,dt"};
  size_t k = 2;
  for (size_t i = 0; i < n && k < 24; i++) all[k++] = opts[i];
  paimon_error err = {0};
  CHECK_OK(ow_create_table(cat, "d", name, PP_COLUMNS, "dt", all, k, 0, &err), &err);
  char id[128];
  snprintf(id, sizeof id, "d.%s", name);
  return pkw_get_table(cat, id);
}

/* A name of Java's postpone writer for commit user `user` (NULL: any). */
static inline int pp_is_postpone_name(const char *name, const char *user) {
  const char *p = strstr(name, "-u-");
  if (!p) return 0;
  p += 3;
  const char *s = strstr(p, "-s-");
  if (!s || (user && ((size_t)(s - p) != strlen(user) || strncmp(p, user, strlen(user))))) return 0;
  s += 3;
  if (!isdigit((unsigned char)*s)) return 0;
  while (isdigit((unsigned char)*s)) s++;
  if (strncmp(s, "-w-", 3)) return 0;
  s += 3;
  for (int i = 0; i < 36; i++, s++)
    if (!(isxdigit((unsigned char)*s) || (*s == '-' && (i == 8 || i == 13 || i == 18 || i == 23)))) return 0;
  if (*s++ != '-' || !isdigit((unsigned char)*s)) return 0;
  while (isdigit((unsigned char)*s)) s++;
  return *s == '.' && strchr(s + 1, '.') == NULL && s[1];
}

/* `paimon-table check` passes but for postpone file names (and, with OT_AFTER_CRASH, a LATEST
 * hint one commit behind). Prints the report naming `what` otherwise. */
static inline int pp_check_ok(const char *dir, int flags, const char *what) {
  char *rep = NULL;
  int rc = ot_check(dir, flags, &rep);
  int ok = rc == 0;
  if (rc == 1 && rep) {
    int others = 0;
    for (const char *p = rep; *p;) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      char line[2048];
      snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
      if (!strncmp(line, "FAIL ", 5) && !strstr(line, " problems")) {
        const char *n = strstr(line, "data file name ");
        char name[512] = "";
        if (n) sscanf(n + 15, "%511s", name);
        int accepted = n && strstr(line, " does not follow Java's data-") && pp_is_postpone_name(name, NULL);
        accepted |= (flags & OT_AFTER_CRASH) && strstr(line, "snapshot/LATEST: says ") != NULL;
        others += !accepted;
      }
      p = nl ? nl + 1 : p + len;
    }
    ok = others == 0;
  }
  if (!ok) fprintf(stderr, "paimon-table check %s (%s) exit %d:\n%s\n", dir, what ? what : "", rc, rep ? rep : "");
  free(rep);
  return ok;
}

/* Rows of one write: (id, dt, v, n, kind). */
typedef struct pp_row {
  int id;
  const char *dt;
  const char *v; /* NULL: null */
  long long n;
  int kind;
} pp_row;

/* The rows as JSON lines with their kind in column k. *out malloc'd. */
static inline char *pp_jsonl(const pp_row *r, size_t n) {
  size_t cap = n * 128 + 16, len = 0;
  char *s = malloc(cap);
  s[0] = 0;
  for (size_t i = 0; i < n; i++) {
    char v[80];
    if (r[i].v) snprintf(v, sizeof v, "\"%s\"", r[i].v);
    else snprintf(v, sizeof v, "null");
    len += (size_t)snprintf(s + len, cap - len, "{\"id\":%d,\"dt\":\"%s\",\"v\":%s,\"n\":%lld,\"k\":%d}\n", r[i].id,
                            r[i].dt, v, r[i].n, r[i].kind);
  }
  return s;
}

/* Writes rows (their kinds from column k) with one batch writer of commit user `user` (NULL:
 * generated) and commits; on success the rows go to model m (may be NULL; not flushed: a
 * postpone write merges nothing). Returns the status. */
static inline int pp_write(paimon_table *t, const char *user, const pp_row *r, size_t n, pkm_model *m,
                           paimon_error *err) {
  char *jsonl = pp_jsonl(r, n);
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *msgs = NULL;
  paimon_table_commit *c = NULL;
  struct ArrowSchema s;
  struct ArrowArray a;
  pkw_batch(PP_ARROW_COLS, 5, jsonl, &s, &a);
  int rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, err);
  if (!rc && user) rc = paimon_write_builder_with_commit_user(wb, user, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) rc = paimon_table_write_with_row_kind_column(w, "k", err);
  if (!rc) rc = paimon_table_write_arrow(w, &s, &a, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &msgs, err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, err);
  if (!rc) rc = paimon_table_commit_commit(c, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, NULL, err);
  a.release(&a);
  s.release(&s);
  paimon_commit_messages_free(msgs);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  free(jsonl);
  for (size_t i = 0; !rc && m && i < n; i++) {
    pkm_value v[4] = {pkm_int(r[i].id), pkm_str(r[i].dt), pkm_str(r[i].v), pkm_int(r[i].n)};
    CHECK_MSG(pkm_add(m, r[i].kind, v) == 0, "model: %s", pkm_last_error(m));
  }
  return rc;
}

/* paimon_table_compact (o may be NULL). */
static inline int pp_compact(paimon_table *t, const paimon_compact_options *o, paimon_compact_result *r,
                             paimon_error *err) {
  return paimon_table_compact(t, o, r, err);
}

#endif
