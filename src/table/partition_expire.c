/* Partition expiry (partition_expire.h): Java's NormalPartitionExpire. */
#include "table/partition_expire.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "meta/core_options.h"
#include "meta/snapshot.h"
#include "table/partition_time.h"
#include "table/scan.h"
#include "util/random.h"

int64_t pm_pexpire_local_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  time_t s = ts.tv_sec;
  localtime_r(&s, &tm);
  return ((int64_t)s + tm.tm_gmtoff) * 1000 + ts.tv_nsec / 1000000;
}

int pm_pexpire_config_from_table(const pm_table *t, pm_pexpire_config *c, pm_error *err) {
  memset(c, 0, sizeof *c);
  const pm_core_options *co = &t->co;
  c->enabled = co->set[PM_CO_PARTITION_EXPIRATION_TIME] && t->n_partition_keys > 0;
  c->expiration_ms = co->partition_expiration_ms;
  c->check_interval_ms = co->partition_expiration_check_interval_ms;
  c->formatter = co->partition_timestamp_formatter;
  c->pattern = co->partition_timestamp_pattern;
  c->max_num = co->partition_expiration_max_num;
  c->batch_size = co->set[PM_CO_PARTITION_EXPIRATION_BATCH_SIZE] ? co->partition_expiration_batch_size : 0;
  c->end_input_check = co->end_input_check_partition_expire;
  const char *st = co->partition_expiration_strategy ? co->partition_expiration_strategy : "values-time";
  if (!strcmp(st, "values-time")) c->strategy = PM_PEXPIRE_VALUES_TIME;
  else if (!strcmp(st, "update-time")) c->strategy = PM_PEXPIRE_UPDATE_TIME;
  else
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "option '%s': unknown partition expiration strategy '%s' (values-time or update-time)",
                     pm_core_option_key(PM_CO_PARTITION_EXPIRATION_STRATEGY), st);
  return 0;
}

void pm_pexpired_list_clear(pm_pexpired_list *l) {
  if (!l) return;
  for (size_t i = 0; i < l->n; i++) {
    free((void *)l->items[i].partition.data);
    free(l->items[i].spec);
    free(l->items[i].values); /* one block: pointers and texts */
  }
  free(l->items);
  memset(l, 0, sizeof *l);
}

/* ------------------------------------------------------------ partitions */

typedef struct part {
  pm_bytes partition; /* borrowed from the live entries */
  int64_t last_creation;
  int has_creation;
} part;

static int cmp_bytes(pm_bytes a, pm_bytes b) {
  if (a.len != b.len) return a.len < b.len ? -1 : 1;
  return a.len ? memcmp(a.data, b.data, a.len) : 0;
}

static int cmp_part(const void *x, const void *y) { return cmp_bytes(((const part *)x)->partition, ((const part *)y)->partition); }

/* The value texts of a partition: Java's partition object toString (a DATE is its day
 * number, as Java's internal Integer prints), NULL for a null. One malloc'd block. */
static int value_texts(const pm_table *t, pm_bytes p, char ***out, pm_error *err) {
  size_t n = t->n_partition_keys;
  char texts[64][512];
  int isnull[64];
  if (n > 64) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "partition expiry: more than 64 partition keys");
  size_t total = n * sizeof(char *);
  for (size_t i = 0; i < n; i++) {
    pm_value v;
    const pm_data_type *type = NULL;
    PM_TRY(pm_scan_partition_field(t, p.data, p.len, i, &v, &type, texts[i], sizeof texts[i], err));
    isnull[i] = v.kind == PM_V_NULL;
    if (!isnull[i] && type && type->root == PM_DT_DATE) snprintf(texts[i], sizeof texts[i], "%lld", (long long)v.u.i64);
    total += strlen(texts[i]) + 1;
  }
  char **vals = malloc(total ? total : 1);
  if (!vals) return PM_NOMEM(err);
  char *w = (char *)(vals + n);
  for (size_t i = 0; i < n; i++) {
    size_t l = strlen(texts[i]) + 1;
    memcpy(w, texts[i], l);
    vals[i] = isnull[i] ? NULL : w;
    w += l;
  }
  *out = vals;
  return 0;
}

typedef struct cand {
  pm_pexpired e;
  char *joined; /* sort key: values joined with ',' (null: partition.default-name) */
} cand;

static int cmp_cand(const void *x, const void *y) {
  return strcmp(((const cand *)x)->joined, ((const cand *)y)->joined);
}

static int is_expired(const pm_table *t, const pm_pexpire_config *c, const pm_ptime_format *fmt, const part *p,
                      char *const *vals, pm_local_time expire_at, int64_t expire_at_ms, int *expired, pm_error *err) {
  *expired = 0;
  if (c->strategy == PM_PEXPIRE_UPDATE_TIME) {
    /* files without a creation time never make a partition expire */
    *expired = p->has_creation && expire_at_ms > p->last_creation;
    return 0;
  }
  char *text = NULL;
  pm_error ignore = {0};
  if (pm_ptime_text(c->pattern, (const char *const *)t->partition_keys, (const char *const *)vals, t->n_partition_keys,
                    &text, &ignore)) {
    if (ignore.code == PAIMON_ERR_NOMEM) return PM_NOMEM(err);
    return 0; /* a null value: kept (Java: NullPointerException, logged) */
  }
  pm_local_time pt;
  if (!pm_ptime_parse(fmt, text, &pt, NULL)) *expired = pm_local_time_cmp(expire_at, pt) > 0;
  free(text);
  return 0;
}

int pm_partition_expire_plan(pm_table *t, const pm_pexpire_config *c, int64_t now_local_ms, pm_pexpired_list *out,
                             pm_error *err) {
  memset(out, 0, sizeof *out);
  if (!t->n_partition_keys)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition expiry: table %s.%s is not partitioned", t->database,
                     t->name);
  if (!now_local_ms) now_local_ms = pm_pexpire_local_now_ms();
  int64_t expire_at_ms = now_local_ms - c->expiration_ms;
  pm_local_time expire_at = pm_local_time_of_millis(expire_at_ms);
  pm_ptime_format *fmt = NULL;
  if (c->strategy == PM_PEXPIRE_VALUES_TIME) PM_TRY(pm_ptime_format_compile(c->formatter, &fmt, err));
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_snapshot *snap = NULL;
  pm_manifest_entries live;
  pm_manifest_entries_init(&live);
  part *parts = NULL;
  size_t np = 0;
  cand *cands = NULL;
  size_t nc = 0;
  int rc = pm_snapshot_read_latest(&sm, &snap, err);
  if (!rc && snap) rc = pm_scan_live_files(t, snap, NULL, &live, err);
  if (!rc && live.n) {
    parts = malloc(live.n * sizeof *parts);
    if (!parts) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < live.n; i++) {
      const pm_manifest_entry *e = &live.items[i];
      parts[i].partition = e->partition;
      parts[i].has_creation = e->file.has_creation_time;
      parts[i].last_creation = e->file.creation_time_millis;
    }
    if (!rc) {
      qsort(parts, live.n, sizeof *parts, cmp_part);
      for (size_t i = 0; i < live.n; i++) { /* merge: newest creation time per partition */
        if (np && !cmp_bytes(parts[np - 1].partition, parts[i].partition)) {
          part *m = &parts[np - 1];
          if (parts[i].has_creation && (!m->has_creation || parts[i].last_creation > m->last_creation)) {
            m->last_creation = parts[i].last_creation;
            m->has_creation = 1;
          }
        } else {
          parts[np++] = parts[i];
        }
      }
    }
  }
  out->candidates = np;
  if (!rc && np) {
    cands = calloc(np, sizeof *cands);
    if (!cands) rc = PM_NOMEM(err);
  }
  const char *dflt = t->partition_default_name;
  for (size_t i = 0; !rc && i < np; i++) {
    char **vals = NULL;
    rc = value_texts(t, parts[i].partition, &vals, err);
    int expired = 0;
    if (!rc) rc = is_expired(t, c, fmt, &parts[i], vals, expire_at, expire_at_ms, &expired, err);
    if (rc || !expired) {
      free(vals);
      continue;
    }
    size_t jl = 1, sl = 1;
    for (size_t k = 0; k < t->n_partition_keys; k++) {
      const char *v = vals[k] ? vals[k] : dflt;
      jl += strlen(v) + 1;
      sl += strlen(t->partition_keys[k]) + strlen(v) + 3;
    }
    cand *cd = &cands[nc];
    cd->joined = malloc(jl);
    cd->e.spec = malloc(sl);
    cd->e.values = vals;
    uint8_t *pb = malloc(parts[i].partition.len ? parts[i].partition.len : 1);
    nc++;
    if (!cd->joined || !cd->e.spec || !pb) {
      free(pb);
      rc = PM_NOMEM(err);
      break;
    }
    if (parts[i].partition.len) memcpy(pb, parts[i].partition.data, parts[i].partition.len);
    cd->e.partition.data = pb;
    cd->e.partition.len = parts[i].partition.len;
    size_t jo = 0, so = 0;
    for (size_t k = 0; k < t->n_partition_keys; k++) {
      const char *v = vals[k] ? vals[k] : dflt;
      jo += (size_t)snprintf(cd->joined + jo, jl - jo, "%s%s", k ? "," : "", v);
      so += (size_t)snprintf(cd->e.spec + so, sl - so, "%s%s=%s", k ? ", " : "", t->partition_keys[k], v);
    }
  }
  if (!rc && nc) qsort(cands, nc, sizeof *cands, cmp_cand);
  size_t keep = nc < (size_t)(c->max_num > 0 ? c->max_num : 0) ? nc : (size_t)(c->max_num > 0 ? c->max_num : 0);
  if (!rc && keep) {
    out->items = calloc(keep, sizeof *out->items);
    if (!out->items) rc = PM_NOMEM(err);
  }
  for (size_t i = 0; i < nc; i++) {
    if (!rc && i < keep) {
      out->items[out->n++] = cands[i].e;
    } else {
      free((void *)cands[i].e.partition.data);
      free(cands[i].e.spec);
      free(cands[i].e.values);
    }
    free(cands[i].joined);
  }
  free(cands);
  free(parts);
  pm_manifest_entries_clear(&live);
  pm_snapshot_free(snap);
  pm_ptime_format_free(fmt);
  if (rc) pm_pexpired_list_clear(out);
  return rc;
}

int pm_partition_expire_run(pm_table *t, pm_commit *commit, const pm_pexpire_config *c, int64_t now_local_ms,
                            int64_t identifier, int dry_run, pm_pexpired_list *out, int64_t *snapshot_id,
                            pm_error *err) {
  if (snapshot_id) *snapshot_id = -1;
  pm_pexpired_list l;
  PM_TRY(pm_partition_expire_plan(t, c, now_local_ms, &l, err));
  int rc = 0;
  if (!dry_run && l.n) {
    pm_bytes *rows = malloc(l.n * sizeof *rows);
    if (!rows) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < l.n; i++) rows[i] = l.items[i].partition;
    size_t batch = c->batch_size > 0 ? (size_t)c->batch_size : l.n;
    for (size_t i = 0; !rc && i < l.n; i += batch) {
      size_t k = l.n - i < batch ? l.n - i : batch;
      int64_t sid = -1;
      rc = pm_commit_drop_partition_rows(commit, rows + i, k, identifier, &sid, err);
      if (!rc && snapshot_id && sid > 0) *snapshot_id = sid;
    }
    free(rows);
  }
  if (out) *out = l;
  else pm_pexpired_list_clear(&l);
  return rc;
}

int pm_pexpire_gate_due(pm_pexpire_gate *g, const pm_pexpire_config *c, int64_t now_local_ms, int64_t identifier) {
  if (!g->initialized) {
    int64_t rnd = 0, secs = c->check_interval_ms / 1000;
    if (secs > 0) {
      uint64_t r;
      pm_random_bytes(&r, sizeof r);
      rnd = (int64_t)(r % (uint64_t)secs);
    }
    g->last_check_ms = now_local_ms - rnd * 1000;
    g->initialized = 1;
  }
  if (c->check_interval_ms == 0 || now_local_ms > g->last_check_ms + c->check_interval_ms ||
      (c->end_input_check && identifier == PM_BATCH_COMMIT_IDENTIFIER)) {
    g->last_check_ms = now_local_ms;
    return 1;
  }
  return 0;
}

int pm_partition_expire_after_commit(pm_table *t, pm_pexpire_gate *g, const char *commit_user, int streaming,
                                     int64_t identifier, int64_t *snapshot_id, pm_error *err) {
  if (snapshot_id) *snapshot_id = -1;
  if (t->co.write_only) return 0;
  pm_pexpire_config c;
  PM_TRY(pm_pexpire_config_from_table(t, &c, err));
  if (!c.enabled) return 0;
  int64_t now = pm_pexpire_local_now_ms();
  if (!pm_pexpire_gate_due(g, &c, now, identifier)) return 0;
  pm_commit *commit = NULL;
  PM_TRY(pm_commit_open(t, commit_user, streaming, &commit, err));
  int rc = pm_partition_expire_run(t, commit, &c, now, identifier, 0, NULL, snapshot_id, err);
  pm_commit_free(commit);
  return rc;
}
