/*
 * Shared by the crash driver (tests/api/crash_driver.c) and the tests that run
 * it (tests/api/test_write_crash.c, test_write_concurrency.c): the table the
 * driver writes and the deterministic rows of batch b, so a test knows the
 * exact rows every committed batch must contribute.
 *
 * The table: id INT NOT NULL, name STRING, dt STRING; by layout (oc_layout)
 * dt is the partition key with bucket -1 (the committer tests' scratch table,
 * support/commit_fixture.h, "dynamic"), or dt-partitioned with 2 fixed
 * buckets on id ("fixed"), or unpartitioned with bucket -1 ("unaware").
 * The driver creates it through paimon_catalog_create_table.
 *
 * The "mix" schedule (driver --mix): batch b is an OVERWRITE of the
 * partitions it touches (the whole table when unpartitioned) when
 * oc_mix_overwrite(b), else an APPEND; before batch OC_ALTER_AT is written the
 * driver adds column "extra INT" (paimon_catalog_alter_table), and every batch
 * b >= OC_ALTER_AT carries extra = b.
 */
#ifndef PM_TESTS_SUPPORT_ORACLE_CRASH_H
#define PM_TESTS_SUPPORT_ORACLE_CRASH_H

#include <errno.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#define OC_PARTITION_KEY "dt"
#define OC_EXIT_FAULT 42 /* exit code of an injected crash (rule action exit=42) */
#define OC_MAX_ROWS 64

/* Partition of batch b: "part<P>" when part >= 0, else null / "x" / "2026-12-01" by b % 3. */
static inline const char *oc_dt(long long b, int part, char *buf, size_t cap) {
  if (part >= 0) {
    snprintf(buf, cap, "part%d", part);
    return buf;
  }
  return b % 3 == 0 ? NULL : b % 3 == 1 ? "x" : "2026-12-01";
}

/* Number of rows of batch b: n_rows when > 0, else 1 + b % 3. */
static inline int oc_rows(long long b, int n_rows) { return n_rows > 0 ? n_rows : 1 + (int)(b % 3); }

/* Row i of batch b: id and name. */
static inline int oc_id(long long b, int i) { return (int)(b * 1000 + i); }
static inline void oc_name(long long b, int i, char *buf, size_t cap) { snprintf(buf, cap, "b%lld-%d \u00e9", b, i); }

/* Rows of batch b as JSON lines (objects {"id","name","dt"}, plus "extra": b when with_extra).
 * Returns the length. */
static inline size_t oc_batch_json_extra(long long b, int n_rows, int part, int with_extra, char *buf, size_t cap) {
  int n = oc_rows(b, n_rows);
  char dbuf[32], name[64], dq[48], ex[40] = "";
  const char *dt = oc_dt(b, part, dbuf, sizeof dbuf);
  if (dt) snprintf(dq, sizeof dq, "\"%s\"", dt);
  else snprintf(dq, sizeof dq, "null");
  if (with_extra) snprintf(ex, sizeof ex, ",\"extra\":%lld", b);
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len + 1 < cap; i++) {
    oc_name(b, i, name, sizeof name);
    len += (size_t)snprintf(buf + len, cap - len, "{\"id\":%d,\"name\":\"%s\",\"dt\":%s%s}\n", oc_id(b, i), name, dq,
                            ex);
  }
  return len < cap ? len : cap - 1;
}

/* Rows of batch b as JSON lines (objects {"id","name","dt"}). Returns the length. */
static inline size_t oc_batch_json(long long b, int n_rows, int part, char *buf, size_t cap) {
  return oc_batch_json_extra(b, n_rows, part, 0, buf, cap);
}

/* Primary-key batches (driver --upsert N, layout "pk"): row i of batch b has key
 * id = (5b + 3i) % n_keys in partition dt = "part<id % 2>" and name "b<b>-<i>"; it is a delete
 * (-D, written after the batch's upserts) when (b + i) % 4 == 3. want_deletes selects which rows
 * the JSON lines hold. Returns the length. */
static inline int oc_upsert_id(long long b, int i, int n_keys) { return (int)((5 * b + 3 * i) % n_keys); }
static inline int oc_upsert_is_delete(long long b, int i) { return (b + i) % 4 == 3; }
static inline size_t oc_upsert_json(long long b, int n_rows, int n_keys, int want_deletes, char *buf, size_t cap) {
  int n = oc_rows(b, n_rows);
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len + 1 < cap; i++) {
    if (oc_upsert_is_delete(b, i) != want_deletes) continue;
    int id = oc_upsert_id(b, i, n_keys);
    len += (size_t)snprintf(buf + len, cap - len, "{\"id\":%d,\"name\":\"b%lld-%d\",\"dt\":\"part%d\"}\n", id, b, i,
                            id % 2);
  }
  return len < cap ? len : cap - 1;
}

#define OC_ALTER_AT 4
#define OC_EXTRA_COLUMN "extra"

static inline int oc_mix_overwrite(long long b) { return b % 4 == 3; }

/* Table layouts the driver can create (--layout). */
typedef struct oc_layout {
  const char *name;
  const char *partition_keys; /* NULL: unpartitioned */
  const char *options[3];     /* "k=v" */
} oc_layout;

static inline const oc_layout *oc_layout_find(const char *name) {
  static const oc_layout layouts[] = {
      {"dynamic", "dt", {"bucket=-1", NULL, NULL}},
      {"fixed", "dt", {"bucket=2", "bucket-key=id", NULL}},
      {"unaware", NULL, {"bucket=-1", NULL, NULL}},
      {"pk", "dt", {"bucket=2", "primary-key=dt,id", NULL}}, /* with the driver's --upsert N */
  };
  for (size_t i = 0; i < sizeof layouts / sizeof layouts[0]; i++)
    if (!strcmp(layouts[i].name, name)) return &layouts[i];
  return NULL;
}

#define OC_COLUMNS "id INT NOT NULL, name STRING, dt STRING"

static inline int oc_mkdirs(const char *path) {
  char p[4200];
  snprintf(p, sizeof p, "%s", path);
  for (char *q = p + 1; *q; q++)
    if (*q == '/') {
      *q = 0;
      if (mkdir(p, 0755) && errno != EEXIST) return -1;
      *q = '/';
    }
  return mkdir(p, 0755) && errno != EEXIST ? -1 : 0;
}

/* schema-0 of <warehouse>/<db>.db/<name> unless it exists: written to a temporary name, then
 * link(2)ed to schema-0 (fails if present: the first of concurrent drivers wins). */
static inline int oc_create_table(const char *warehouse, const char *db, const char *name, const char *const *options,
                        size_t n_options) {
  char dir[4200], path[4300], tmp[4300];
  snprintf(dir, sizeof dir, "%s/%s.db/%s/schema", warehouse, db, name);
  snprintf(path, sizeof path, "%s/schema-0", dir);
  if (access(path, F_OK) == 0) return 0;
  if (oc_mkdirs(dir)) return -1;
  snprintf(tmp, sizeof tmp, "%s/.schema-0.%d.tmp", dir, (int)getpid());
  FILE *f = fopen(tmp, "w");
  if (!f) return -1;
  fprintf(f,
          "{\n  \"version\" : 3,\n  \"id\" : 0,\n  \"fields\" : [ {\n    \"id\" : 0,\n    \"name\" : \"id\",\n"
          "    \"type\" : \"INT NOT NULL\"\n  }, {\n    \"id\" : 1,\n    \"name\" : \"name\",\n    \"type\" : \"STRING\"\n"
          "  }, {\n    \"id\" : 2,\n    \"name\" : \"dt\",\n    \"type\" : \"STRING\"\n  } ],\n"
          "  \"highestFieldId\" : 2,\n  \"partitionKeys\" : [ \"dt\" ],\n  \"primaryKeys\" : [ ],\n"
          "  \"options\" : {\n    \"bucket\" : \"-1\"");
  for (size_t i = 0; i < n_options; i++) fprintf(f, ",\n    %s", options[i]);
  fprintf(f, "\n  },\n  \"timeMillis\" : 1733000000000\n}");
  if (fflush(f) || fsync(fileno(f)) || fclose(f)) return -1;
  int rc = link(tmp, path);
  int e = errno;
  unlink(tmp);
  if (rc && e != EEXIST) {
    errno = e;
    return -1;
  }
  return 0;
}

#endif
