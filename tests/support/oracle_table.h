/*
 * The independent table oracle for write tests: runs ../shared/tools/paimon-table
 * (`check [--after-crash]`, `read`) on a table directory, parses the rows it
 * prints (JSON objects, the fixtures' value encoding) and compares them as a
 * MULTISET with expected rows (float tolerance as fixtures/README.md says).
 * Plus a tiny model of what a table must contain after a sequence of
 * committed batches, overwrites and truncations.
 *
 * Header-only (static functions) like the other tests/support helpers.
 * Rows are jansson arrays of JSON objects keyed by column name; every
 * returned json_t is owned by the caller (json_decref), strings by free().
 *
 * Availability: the oracle needs node. ot_available() says 0 (and prints a
 * SKIP line once) only when node is not installed; when node is there the
 * tool must work, and a failing tool fails the test.
 */
#ifndef PM_TESTS_SUPPORT_ORACLE_TABLE_H
#define PM_TESTS_SUPPORT_ORACLE_TABLE_H

#include <jansson.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <dirent.h>
#include <pthread.h>
#include <stdint.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#define OT_TOOL PAIMON_SHARED_DIR "/tools/paimon-table"

/* ------------------------------------------------------------ running */

/* Runs a shell command; *out (may be NULL) gets its stdout (malloc'd, NUL-terminated).
 * Returns the exit code, 128+signal when killed, -1 when it could not run. */
static inline int ot_shell(const char *cmd, char **out) {
  if (out) *out = NULL;
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t cap = 1 << 16, n = 0, k;
  char *buf = malloc(cap);
  if (!buf) {
    pclose(p);
    return -1;
  }
  while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += k;
    if (cap - n < 2) {
      char *nb = realloc(buf, cap *= 2);
      if (!nb) break;
      buf = nb;
    }
  }
  buf[n] = 0;
  int st = pclose(p);
  if (out) *out = buf;
  else free(buf);
  if (st == -1) return -1;
  if (WIFEXITED(st)) return WEXITSTATUS(st);
  if (WIFSIGNALED(st)) return 128 + WTERMSIG(st);
  return -1;
}

/* 1 when paimon-table can run; 0 (after one "SKIP" line on stderr) when node is missing. */
static inline int ot_available(void) {
  static int state = -1;
  if (state >= 0) return state;
  if (ot_shell("command -v node >/dev/null 2>&1", NULL) != 0) {
    fprintf(stderr, "SKIP: node is not installed: the paimon-table oracle cannot run (.ci/run installs it)\n");
    return state = 0;
  }
  return state = 1;
}

/* Reads and removes a temporary file; malloc'd text ("" when empty/missing). */
static inline char *ot_slurp_remove(const char *path) {
  FILE *f = fopen(path, "rb");
  char *s = NULL;
  size_t n = 0;
  if (f) {
    fseek(f, 0, SEEK_END);
    long len = ftell(f);
    fseek(f, 0, SEEK_SET);
    s = malloc(len > 0 ? (size_t)len + 1 : 1);
    if (s && len > 0) n = fread(s, 1, (size_t)len, f);
    fclose(f);
  } else {
    s = malloc(1);
  }
  if (s) s[n] = 0;
  remove(path);
  return s;
}

/* Runs `paimon-table ARGS` (ARGS already shell-quoted); stdout into *out, stderr into *err_text
 * (either may be NULL). Returns the tool's exit code. */
static inline int ot_tool(const char *args, char **out, char **err_text) {
  char errf[] = "/tmp/pm_ot_err_XXXXXX";
  int fd = mkstemp(errf);
  if (fd < 0) return -1;
  close(fd);
  size_t len = strlen(args) + strlen(errf) + sizeof OT_TOOL + 16;
  char *cmd = malloc(len);
  if (!cmd) return -1;
  snprintf(cmd, len, "%s %s 2>%s", OT_TOOL, args, errf);
  int rc = ot_shell(cmd, out);
  free(cmd);
  char *e = ot_slurp_remove(errf);
  if (err_text) *err_text = e;
  else free(e);
  return rc;
}

/* ------------------------------------------------------------ verdict cache */

/* Opt-in (ot_cache_enable): the oracle's output (exit code, stdout, stderr) of `check` and `read`
 * is remembered per (table state, arguments), so a test that verifies the same table state many
 * times (crash stops that changed no file) runs the tool once per distinct state and applies its
 * assertions to the remembered output every time. The state is ot_state_hash: every file under
 * the table directory by relative path, size and full content, so any byte that differs is a new
 * state the tool judges afresh. Thread-safe (a test may check and read at once). */
typedef struct ot_cache_entry {
  uint64_t state;
  char *args;
  int rc;
  char *out, *err;
} ot_cache_entry;

static struct {
  int enabled;
  pthread_mutex_t mu;
  ot_cache_entry *e;
  size_t n, cap;
  unsigned long hits, misses;
} ot_cache = {0, PTHREAD_MUTEX_INITIALIZER, NULL, 0, 0, 0, 0};

static inline void ot_cache_enable(int on) { ot_cache.enabled = on; }

static inline uint64_t ot_fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

static inline int ot_cmp_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Folds the files under dir (rel: its path relative to the table) into h, names sorted. */
static inline uint64_t ot_hash_dir(uint64_t h, const char *dir, const char *rel) {
  DIR *d = opendir(dir);
  if (!d) return ot_fnv(h, "?", 1);
  char **names = NULL;
  size_t n = 0, cap = 0;
  struct dirent *de;
  while ((de = readdir(d)) != NULL) {
    if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..")) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      char **nn = realloc(names, cap * sizeof *names);
      if (!nn) break;
      names = nn;
    }
    names[n++] = strdup(de->d_name);
  }
  closedir(d);
  if (n) qsort(names, n, sizeof *names, ot_cmp_name);
  char *buf = malloc(1 << 16);
  for (size_t i = 0; i < n; i++) {
    char path[4096], r[4096];
    snprintf(path, sizeof path, "%s/%s", dir, names[i]);
    snprintf(r, sizeof r, "%s/%s", rel, names[i]);
    struct stat st;
    if (lstat(path, &st) != 0) {
      h = ot_fnv(h, "!", 1);
    } else if (S_ISDIR(st.st_mode)) {
      h = ot_fnv(h, "d", 1);
      h = ot_fnv(h, r, strlen(r) + 1);
      h = ot_hash_dir(h, path, r);
    } else {
      long long size = (long long)st.st_size;
      h = ot_fnv(h, "f", 1);
      h = ot_fnv(h, r, strlen(r) + 1);
      h = ot_fnv(h, &size, sizeof size);
      FILE *f = buf ? fopen(path, "rb") : NULL;
      size_t k;
      while (f && (k = fread(buf, 1, 1 << 16, f)) > 0) h = ot_fnv(h, buf, k);
      if (f) fclose(f);
      else h = ot_fnv(h, "?", 1);
    }
    free(names[i]);
  }
  free(buf);
  free(names);
  return h;
}

/* The table directory's state: every file's relative path, size and content. */
static inline uint64_t ot_state_hash(const char *table_dir) { return ot_hash_dir(14695981039346656037ULL, table_dir, ""); }

static inline char *ot_strdup0(const char *s) { return strdup(s ? s : ""); }

/* ot_tool through the cache when enabled (table_dir: the directory whose state the verdict is of). */
static inline int ot_tool_on(const char *table_dir, const char *args, char **out, char **err_text) {
  if (!ot_cache.enabled) return ot_tool(args, out, err_text);
  uint64_t state = ot_state_hash(table_dir);
  pthread_mutex_lock(&ot_cache.mu);
  for (size_t i = 0; i < ot_cache.n; i++) {
    ot_cache_entry *e = &ot_cache.e[i];
    if (e->state == state && !strcmp(e->args, args)) {
      if (out) *out = ot_strdup0(e->out);
      if (err_text) *err_text = ot_strdup0(e->err);
      int rc = e->rc;
      ot_cache.hits++;
      pthread_mutex_unlock(&ot_cache.mu);
      return rc;
    }
  }
  ot_cache.misses++;
  pthread_mutex_unlock(&ot_cache.mu);
  char *o = NULL, *e = NULL;
  int rc = ot_tool(args, &o, &e);
  /* a tool that could not run (or was killed) is no verdict: not remembered */
  if (rc >= 0 && rc < 128) {
    pthread_mutex_lock(&ot_cache.mu);
    if (ot_cache.n == ot_cache.cap) {
      size_t nc = ot_cache.cap ? ot_cache.cap * 2 : 64;
      ot_cache_entry *ne = realloc(ot_cache.e, nc * sizeof *ne);
      if (ne) {
        ot_cache.e = ne;
        ot_cache.cap = nc;
      }
    }
    if (ot_cache.n < ot_cache.cap)
      ot_cache.e[ot_cache.n++] = (ot_cache_entry){state, strdup(args), rc, ot_strdup0(o), ot_strdup0(e)};
    pthread_mutex_unlock(&ot_cache.mu);
  }
  if (out) *out = o;
  else free(o);
  if (err_text) *err_text = e;
  else free(e);
  return rc;
}

/* Frees the remembered verdicts (the counters stay). */
static inline void ot_cache_clear(void) {
  pthread_mutex_lock(&ot_cache.mu);
  for (size_t i = 0; i < ot_cache.n; i++) {
    free(ot_cache.e[i].args);
    free(ot_cache.e[i].out);
    free(ot_cache.e[i].err);
  }
  free(ot_cache.e);
  ot_cache.e = NULL;
  ot_cache.n = ot_cache.cap = 0;
  pthread_mutex_unlock(&ot_cache.mu);
}

/* Flags of ot_check. */
#define OT_AFTER_CRASH 1 /* --after-crash: leftover temporary files are allowed */
#define OT_ALLOW_OLD 2   /* --allow-old: older Java shapes (fixture tables) are allowed */

/* `paimon-table check DIR [flags] -q`. Returns the exit code (0 = OK); *report (may be
 * NULL) gets stdout + stderr. */
static inline int ot_check(const char *table_dir, int flags, char **report) {
  char args[4096];
  int an = snprintf(args, sizeof args, "check '%s'%s%s -q", table_dir, (flags & OT_AFTER_CRASH) ? " --after-crash" : "",
                    (flags & OT_ALLOW_OLD) ? " --allow-old" : "");
  if (an < 0 || (size_t)an >= sizeof args) {
    if (report) *report = strdup("ot_check: table path too long");
    return -1;
  }
  char *out = NULL, *e = NULL;
  int rc = ot_tool_on(table_dir, args, &out, &e);
  if (report) {
    size_t n = (out ? strlen(out) : 0) + (e ? strlen(e) : 0) + 1;
    *report = malloc(n);
    if (*report) snprintf(*report, n, "%s%s", out ? out : "", e ? e : "");
  }
  free(out);
  free(e);
  return rc;
}

/* 1 when `check` passes; otherwise prints the report naming `what` and returns 0. */
static inline int ot_check_ok(const char *table_dir, int flags, const char *what) {
  char *rep = NULL;
  int rc = ot_check(table_dir, flags, &rep);
  if (rc != 0)
    fprintf(stderr, "paimon-table check%s%s %s (%s) exit %d:\n%s\n", (flags & OT_AFTER_CRASH) ? " --after-crash" : "",
            (flags & OT_ALLOW_OLD) ? " --allow-old" : "", table_dir, what ? what : "", rc, rep ? rep : "");
  free(rep);
  return rc == 0;
}

/* Like ot_check_ok, but FAIL lines containing one of allowed[0..n) are accepted (each such line is
 * still printed as a note). For states the oracle is stricter about than Java's readers, e.g. a
 * LATEST hint one commit behind after a crash between the snapshot and the hint. */
static inline int ot_check_ok_allowing(const char *table_dir, int flags, const char *const *allowed, size_t n,
                                       const char *what) {
  char *rep = NULL;
  int rc = ot_check(table_dir, flags, &rep);
  int ok = rc == 0, others = 0, accepted = 0;
  if (rc == 1 && rep) {
    for (const char *p = rep; p && *p;) {
      const char *nl = strchr(p, '\n');
      size_t len = nl ? (size_t)(nl - p) : strlen(p);
      char line[2048];
      snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
      if (!strncmp(line, "FAIL ", 5) && !strstr(line, " problems")) {
        int hit = 0;
        for (size_t i = 0; i < n && !hit; i++) hit = strstr(line, allowed[i]) != NULL;
        if (hit) accepted++;
        else others++;
      }
      p = nl ? nl + 1 : NULL;
    }
    ok = others == 0 && accepted > 0;
  }
  if (!ok)
    fprintf(stderr, "paimon-table check%s%s %s (%s) exit %d:\n%s\n", (flags & OT_AFTER_CRASH) ? " --after-crash" : "",
            (flags & OT_ALLOW_OLD) ? " --allow-old" : "", table_dir, what ? what : "", rc, rep ? rep : "");
  free(rep);
  return ok;
}

/* Parses JSON lines into an array (NULL on a bad line; *bad_line set to its 1-based number). */
static inline json_t *ot_parse_lines(const char *text, size_t *bad_line) {
  json_t *rows = json_array();
  size_t lineno = 0;
  const char *p = text ? text : "";
  while (*p) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    lineno++;
    size_t k = 0;
    while (k < len && (p[k] == ' ' || p[k] == '\r' || p[k] == '\t')) k++;
    if (k < len) {
      json_error_t je;
      json_t *v = json_loadb(p, len, JSON_DECODE_ANY, &je);
      if (!v) {
        if (bad_line) *bad_line = lineno;
        json_decref(rows);
        return NULL;
      }
      json_array_append_new(rows, v);
    }
    p += len;
    if (*p == '\n') p++;
  }
  return rows;
}

/* `paimon-table read DIR EXTRA` (EXTRA: shell-quoted extra arguments or NULL). Returns the rows
 * (objects) or NULL; *rc gets the exit code (3 = unsupported); *err_text (may be NULL) stderr. */
static inline json_t *ot_read(const char *table_dir, const char *extra, int *rc, char **err_text) {
  char args[4096];
  snprintf(args, sizeof args, "read '%s' %s", table_dir, extra ? extra : "");
  char *out = NULL, *e = NULL;
  int r = ot_tool_on(table_dir, args, &out, &e);
  if (rc) *rc = r;
  json_t *rows = NULL;
  if (r == 0) {
    size_t bad = 0;
    rows = ot_parse_lines(out, &bad);
    if (!rows) fprintf(stderr, "paimon-table read %s: line %zu is not JSON\n", table_dir, bad);
  }
  if (err_text) *err_text = e;
  else free(e);
  free(out);
  return rows;
}

/* ------------------------------------------------------------ rows */

/* Fixture-style rows (arrays in `columns` order) as objects. */
static inline json_t *ot_rows_from_arrays(const json_t *arrays, const char *const *columns, size_t n_columns) {
  json_t *rows = json_array();
  size_t i;
  json_t *r;
  json_array_foreach(arrays, i, r) {
    json_t *o = json_object();
    for (size_t c = 0; c < n_columns && c < json_array_size(r); c++)
      json_object_set(o, columns[c], json_array_get(r, c));
    json_array_append_new(rows, o);
  }
  return rows;
}

/* Deep equality; numbers equal within |a-b| <= 1e-6 * max(1,|a|,|b|) or as float32. */
static inline int ot_value_equal(const json_t *a, const json_t *b) {
  if (json_is_number(a) && json_is_number(b)) {
    double x = json_number_value(a), y = json_number_value(b);
    if (x == y || (float)x == (float)y) return 1;
    double m = fabs(x) > fabs(y) ? fabs(x) : fabs(y);
    return fabs(x - y) <= 1e-6 * (m < 1 ? 1 : m);
  }
  if (json_typeof(a) != json_typeof(b)) return 0;
  if (json_is_array(a)) {
    if (json_array_size(a) != json_array_size(b)) return 0;
    for (size_t i = 0; i < json_array_size(a); i++)
      if (!ot_value_equal(json_array_get(a, i), json_array_get(b, i))) return 0;
    return 1;
  }
  if (json_is_object(a)) {
    if (json_object_size(a) != json_object_size(b)) return 0;
    const char *k;
    json_t *v;
    json_object_foreach((json_t *)a, k, v) {
      json_t *w = json_object_get(b, k);
      if (!w || !ot_value_equal(v, w)) return 0;
    }
    return 1;
  }
  return json_equal((json_t *)a, (json_t *)b);
}

static inline int ot_cmp_str(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* Multiset comparison of two row arrays. Fast path: sorted canonical texts equal; otherwise a
 * tolerant matching (floats). On a difference, msg describes the first unmatched rows. */
static inline int ot_rows_match(const json_t *expected, const json_t *actual, char *msg, size_t cap) {
  size_t ne = json_array_size(expected), na = json_array_size(actual);
  if (msg && cap) msg[0] = 0;
  char **es = calloc(ne + 1, sizeof *es), **as = calloc(na + 1, sizeof *as);
  for (size_t i = 0; i < ne; i++) es[i] = json_dumps(json_array_get(expected, i), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
  for (size_t i = 0; i < na; i++) as[i] = json_dumps(json_array_get(actual, i), JSON_COMPACT | JSON_SORT_KEYS | JSON_ENCODE_ANY);
  int ok = ne == na;
  if (ok) {
    qsort(es, ne, sizeof *es, ot_cmp_str);
    qsort(as, na, sizeof *as, ot_cmp_str);
    for (size_t i = 0; i < ne && ok; i++) ok = strcmp(es[i], as[i]) == 0;
  }
  for (size_t i = 0; i < ne; i++) free(es[i]);
  for (size_t i = 0; i < na; i++) free(as[i]);
  free(es);
  free(as);
  if (ok) return 1;
  /* tolerant matching: every expected row takes a distinct equal actual row */
  char *used = calloc(na + 1, 1);
  size_t missing = 0, extra = 0;
  size_t len = 0;
  for (size_t i = 0; i < ne; i++) {
    const json_t *er = json_array_get(expected, i);
    size_t j = 0;
    for (; j < na; j++)
      if (!used[j] && ot_value_equal(er, json_array_get(actual, j))) break;
    if (j < na) {
      used[j] = 1;
      continue;
    }
    if (missing++ < 5 && msg && len + 1 < cap) {
      char *s = json_dumps(er, JSON_COMPACT | JSON_ENCODE_ANY);
      len += (size_t)snprintf(msg + len, cap - len, "missing %s; ", s ? s : "?");
      free(s);
    }
  }
  for (size_t j = 0; j < na; j++) {
    if (used[j]) continue;
    if (extra++ < 5 && msg && len + 1 < cap) {
      char *s = json_dumps(json_array_get(actual, j), JSON_COMPACT | JSON_ENCODE_ANY);
      len += (size_t)snprintf(msg + len, cap - len, "unexpected %s; ", s ? s : "?");
      free(s);
    }
  }
  free(used);
  if (msg && len + 1 < cap)
    snprintf(msg + len, cap - len, "(expected %zu rows, got %zu: %zu missing, %zu unexpected)", ne, na, missing, extra);
  return missing == 0 && extra == 0;
}

/* 1 when `paimon-table read DIR EXTRA` returns exactly `expected` (a multiset of objects);
 * otherwise prints why (naming `what`) and returns 0. */
static inline int ot_read_equals(const char *table_dir, const char *extra, const json_t *expected, const char *what) {
  int rc = 0;
  char *e = NULL;
  json_t *rows = ot_read(table_dir, extra, &rc, &e);
  int ok = 0;
  if (!rows) {
    fprintf(stderr, "paimon-table read %s (%s) exit %d: %s\n", table_dir, what ? what : "", rc, e ? e : "");
  } else {
    char msg[8192];
    ok = ot_rows_match(expected, rows, msg, sizeof msg);
    if (!ok) fprintf(stderr, "paimon-table read %s (%s): %s\n", table_dir, what ? what : "", msg);
  }
  json_decref(rows);
  free(e);
  return ok;
}

/* ------------------------------------------------------------ snapshots */

/* One snapshot file's identity, read straight from its JSON (no library code involved). */
typedef struct ot_snapshot {
  long long id, schema_id, commit_identifier, total_record_count;
  char commit_user[128];
  char commit_kind[32];
} ot_snapshot;

/* Snapshots 1.. of a table dir that exist as files (sorted by id; ids may have gaps: *gaps counts
 * missing ids below the highest). Returns the count; *out malloc'd (free). */
static inline size_t ot_snapshots(const char *table_dir, ot_snapshot **out, size_t *gaps) {
  *out = NULL;
  if (gaps) *gaps = 0;
  size_t n = 0, cap = 0, missing = 0;
  long long highest = 0;
  char dir[4096];
  snprintf(dir, sizeof dir, "%s/snapshot", table_dir);
  DIR *d = opendir(dir);
  struct dirent *de;
  while (d && (de = readdir(d)) != NULL) {
    const char *nm = de->d_name;
    if (strncmp(nm, "snapshot-", 9) != 0 || !nm[9] || strspn(nm + 9, "0123456789") != strlen(nm + 9)) continue;
    long long id = atoll(nm + 9);
    if (id > highest) highest = id;
  }
  if (d) closedir(d);
  for (long long id = 1; id <= highest; id++) {
    char path[4096];
    snprintf(path, sizeof path, "%s/snapshot/snapshot-%lld", table_dir, id);
    json_error_t je;
    json_t *j = json_load_file(path, 0, &je);
    if (!j) {
      missing++;
      continue;
    }
    if (n == cap) {
      cap = cap ? cap * 2 : 16;
      *out = realloc(*out, cap * sizeof **out);
    }
    ot_snapshot *s = &(*out)[n++];
    memset(s, 0, sizeof *s);
    s->id = json_integer_value(json_object_get(j, "id"));
    s->schema_id = json_integer_value(json_object_get(j, "schemaId"));
    s->commit_identifier = json_integer_value(json_object_get(j, "commitIdentifier"));
    s->total_record_count = json_integer_value(json_object_get(j, "totalRecordCount"));
    const char *u = json_string_value(json_object_get(j, "commitUser"));
    const char *k = json_string_value(json_object_get(j, "commitKind"));
    snprintf(s->commit_user, sizeof s->commit_user, "%s", u ? u : "");
    snprintf(s->commit_kind, sizeof s->commit_kind, "%s", k ? k : "");
    json_decref(j);
  }
  if (gaps) *gaps = missing;
  return n;
}

/* ------------------------------------------------------------ model */

/* What a table must hold: its live rows after the operations applied so far. */
typedef struct ot_model {
  json_t *live; /* array of row objects */
} ot_model;

static inline void ot_model_init(ot_model *m) { m->live = json_array(); }
static inline void ot_model_clear(ot_model *m) {
  json_decref(m->live);
  m->live = NULL;
}
/* A committed APPEND of `rows` (borrowed). */
static inline void ot_model_append(ot_model *m, const json_t *rows) {
  size_t i;
  json_t *r;
  json_array_foreach(rows, i, r) json_array_append(m->live, r);
}
/* Removes the rows whose columns keys[i] equal values[i] (json null matches null) for every i;
 * n = 0 removes every row (truncate table). */
static inline void ot_model_delete_where(ot_model *m, const char *const *keys, const json_t *const *values, size_t n) {
  json_t *keep = json_array();
  size_t i;
  json_t *r;
  json_array_foreach(m->live, i, r) {
    int match = 1;
    for (size_t k = 0; k < n && match; k++) {
      json_t *v = json_object_get(r, keys[k]);
      match = v ? json_equal(v, (json_t *)values[k]) : json_is_null(values[k]);
    }
    if (!match) json_array_append(keep, r);
  }
  json_decref(m->live);
  m->live = keep;
}
/* A static-partition OVERWRITE: delete_where(spec) then append(rows). */
static inline void ot_model_overwrite(ot_model *m, const char *const *keys, const json_t *const *values, size_t n,
                               const json_t *rows) {
  ot_model_delete_where(m, keys, values, n);
  ot_model_append(m, rows);
}

/* Rows of the batches whose ids are listed (batches: array indexed by batch id; each an array of rows).
 * An id may appear once only; a repeated or unknown id returns NULL. */
static inline json_t *ot_batches_rows(const json_t *batches, const long long *ids, size_t n) {
  json_t *rows = json_array();
  for (size_t i = 0; i < n; i++) {
    for (size_t j = 0; j < i; j++)
      if (ids[j] == ids[i]) {
        json_decref(rows);
        return NULL;
      }
    const json_t *b = ids[i] >= 0 ? json_array_get(batches, (size_t)ids[i]) : NULL;
    if (!b) {
      json_decref(rows);
      return NULL;
    }
    size_t k;
    json_t *r;
    json_array_foreach(b, k, r) json_array_append(rows, r);
  }
  return rows;
}

#endif
