/* The committer: changes from messages, the retry loop, snapshot building and
 * publication (SEMANTICS.md 7.4, 7.5, 7.8, 9.2; FORMAT.md 3, 9). */
#include "table/commit.h"

#include <errno.h>
#include <inttypes.h>
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/file.h"
#include "meta/json_util.h"
#include "meta/manifest_merge.h"
#include "table/commit_internal.h"
#include "table/scan.h"
#include "util/random.h"

/* ------------------------------------------------------------ changes */

void pm_commit_changes_free(pm_commit_changes *ch) {
  pm_manifest_entries_clear(&ch->table);
  pm_manifest_entries_clear(&ch->changelog);
  pm_index_entries_clear(&ch->index);
}

int pm_commit_changes_append(pm_commit_changes *dst, const pm_commit_changes *src, int with_changelog,
                             pm_error *err) {
  for (size_t i = 0; i < src->table.n; i++)
    PM_TRY(pm_manifest_entries_append_owned(&dst->table, &src->table.items[i], err));
  for (size_t i = 0; with_changelog && i < src->changelog.n; i++)
    PM_TRY(pm_manifest_entries_append_owned(&dst->changelog, &src->changelog.items[i], err));
  for (size_t i = 0; i < src->index.n; i++)
    PM_TRY(pm_index_entries_append_owned(&dst->index, &src->index.items[i], err));
  return 0;
}

int pm_commit_changes_empty(const pm_commit_changes *ch) {
  return !ch->table.n && !ch->changelog.n && !ch->index.n;
}

void pm_commit_collected_free(pm_commit_collected *cc) {
  pm_commit_changes_free(&cc->append);
  pm_commit_changes_free(&cc->compact);
}

/* ------------------------------------------------------------ collecting */

static int push_files(pm_manifest_entries *v, int8_t kind, const pm_commit_message *msg, int32_t total_buckets,
                      const pm_file_list *files, pm_error *err) {
  for (size_t i = 0; i < files->n; i++) {
    pm_manifest_entry e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.partition = msg->partition;
    e.bucket = msg->bucket;
    e.total_buckets = total_buckets;
    e.file = files->items[i];
    PM_TRY(pm_manifest_entries_append_owned(v, &e, err));
  }
  return 0;
}

static int push_index(pm_index_entries *v, int8_t kind, const pm_commit_message *msg, const pm_index_list *files,
                      pm_error *err) {
  for (size_t i = 0; i < files->n; i++) {
    pm_index_manifest_entry e;
    memset(&e, 0, sizeof e);
    e.kind = kind;
    e.partition = msg->partition;
    e.bucket = msg->bucket;
    e.index_file = files->items[i];
    PM_TRY(pm_index_entries_append_owned(v, &e, err));
  }
  return 0;
}

int pm_commit_collect(const pm_commit *c, const pm_manifest_committable *m, pm_commit_collected *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  for (size_t i = 0; m && i < m->n_messages; i++) {
    const pm_commit_message *msg = &m->messages[i];
    int32_t tb = msg->has_total_buckets ? msg->total_buckets : c->t->bucket;
    pm_commit_changes *a = &out->append, *k = &out->compact;
    int rc = push_files(&a->table, PM_FILE_ADD, msg, tb, &msg->new_files, err);
    if (!rc) rc = push_files(&a->table, PM_FILE_DELETE, msg, tb, &msg->deleted_files, err);
    if (!rc) rc = push_files(&a->changelog, PM_FILE_ADD, msg, tb, &msg->changelog_files, err);
    if (!rc) rc = push_index(&a->index, PM_FILE_DELETE, msg, &msg->deleted_index_files, err);
    if (!rc) rc = push_index(&a->index, PM_FILE_ADD, msg, &msg->new_index_files, err);
    if (!rc) rc = push_files(&k->table, PM_FILE_DELETE, msg, tb, &msg->compact_before, err);
    if (!rc) rc = push_files(&k->table, PM_FILE_ADD, msg, tb, &msg->compact_after, err);
    if (!rc) rc = push_files(&k->changelog, PM_FILE_ADD, msg, tb, &msg->compact_changelog, err);
    if (!rc) rc = push_index(&k->index, PM_FILE_DELETE, msg, &msg->compact_deleted_index_files, err);
    if (!rc) rc = push_index(&k->index, PM_FILE_ADD, msg, &msg->compact_new_index_files, err);
    if (rc) {
      pm_commit_collected_free(out);
      return rc;
    }
  }
  return 0;
}

/* ------------------------------------------------------------ open / free */

int pm_commit_open(pm_table *t, const char *commit_user, int streaming, pm_commit **out, pm_error *err) {
  *out = NULL;
  if (!commit_user || !*commit_user) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "commit: empty commit user");
  PM_TRY(pm_table_options_ok(t, err));
  pm_commit *c = calloc(1, sizeof *c);
  if (!c) return PM_NOMEM(err);
  c->user = strdup(commit_user);
  if (!c->user) {
    free(c);
    return PM_NOMEM(err);
  }
  int rc = pm_scan_partition_type(t, &c->partition_type, err);
  if (rc) {
    free(c->user);
    free(c);
    return rc;
  }
  c->t = pm_table_retain(t);
  c->streaming = streaming;
  pm_options_init(&c->props);
  pm_path_factory_init(&c->pf, t->fs, t->root);
  atomic_init(&c->index_manifests, 0);
  *out = c;
  return 0;
}

void pm_commit_free(pm_commit *c) {
  if (!c) return;
  pm_commit_maint_free(c); /* a background maintenance run uses c: wait for it */
  pm_options_clear(&c->props);
  pm_dtype_free(c->partition_type);
  pm_table_free(c->t);
  free(c->user);
  free(c);
}

int pm_commit_set_properties(pm_commit *c, const pm_options *props, pm_error *err) {
  pm_options_clear(&c->props);
  pm_options_init(&c->props);
  if (!props) return 0;
  return pm_options_copy(props, &c->props, err);
}

void pm_commit_set_watermark(pm_commit *c, int64_t watermark) {
  c->watermark = watermark;
  c->has_watermark = 1;
}

/* ------------------------------------------------------------ small helpers */

static int64_t wall_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static int64_t mono_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static void sleep_ms(int64_t ms) {
  if (ms <= 0) return;
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) != 0 && errno == EINTR) {
  }
}

static uint32_t random_u32(void) {
  uint32_t v;
  pm_random_bytes(&v, sizeof v);
  return v;
}

/* Java's RetryWaiter: min(minWait * 2^retry, maxWait) plus up to 20 % jitter. */
static int64_t retry_wait_ms(const pm_core_options *co, int retry) {
  double w = (double)co->commit_min_retry_wait_ms;
  for (int i = 0; i < retry && w < (double)co->commit_max_retry_wait_ms; i++) w *= 2;
  int64_t wait = (int64_t)w;
  if (wait > co->commit_max_retry_wait_ms) wait = co->commit_max_retry_wait_ms;
  int64_t span = (int64_t)((double)wait * 0.2);
  if (span < 1) span = 1;
  return wait + (int64_t)(random_u32() % (uint64_t)span);
}

/* Base name of a path (points into it). */
static const char *base_name(const char *p) {
  const char *s = strrchr(p, '/');
  return s ? s + 1 : p;
}

/* Paths of the files one attempt wrote (deleted when the attempt certainly failed)
 * and the sizes written (checked before publishing; -1 = not known yet). */
typedef struct written_files {
  char **paths;
  int64_t *sizes;
  size_t n, cap;
} written_files;

/* Takes path (freed on failure too). */
static int written_add(written_files *w, char *path, int64_t size, pm_error *err) {
  if (w->n == w->cap) {
    size_t nc = w->cap ? w->cap * 2 : 8;
    void *p = realloc(w->paths, nc * sizeof *w->paths);
    if (p) w->paths = p;
    void *s = p ? realloc(w->sizes, nc * sizeof *w->sizes) : NULL;
    if (s) w->sizes = s;
    if (!p || !s) {
      free(path);
      return PM_NOMEM(err);
    }
    w->cap = nc;
  }
  w->sizes[w->n] = size;
  w->paths[w->n++] = path;
  return 0;
}

static void written_delete(pm_fs *fs, written_files *w) {
  for (size_t i = 0; i < w->n; i++) {
    pm_error ignore = {0};
    pm_fs_delete(fs, w->paths[i], &ignore);
  }
}

static void written_free(written_files *w) {
  for (size_t i = 0; i < w->n; i++) free(w->paths[i]);
  free(w->paths);
  free(w->sizes);
  memset(w, 0, sizeof *w);
}

static char *manifest_path(const pm_commit *c, const char *name) {
  size_t n = strlen(name) + 16;
  char *sub = malloc(n);
  if (!sub) return NULL;
  snprintf(sub, n, "manifest/%s", name);
  char *p = pm_table_root_path(c->t, sub);
  free(sub);
  return p;
}

static char *new_index_manifest_path(pm_commit *c) {
  char name[128];
  long long k = (long long)atomic_fetch_add(&c->index_manifests, 1);
  snprintf(name, sizeof name, "index-manifest-%s-%lld", c->pf.uuid, k);
  return manifest_path(c, name);
}

/* Reads the data manifests of a snapshot (base list, then delta list). */
static int read_data_manifests(const pm_commit *c, const pm_snapshot *s, pm_manifest_file_metas *out, pm_error *err) {
  const char *lists[2] = {s->base_manifest_list, s->delta_manifest_list};
  for (int i = 0; i < 2; i++) {
    if (!lists[i]) continue;
    char *p = manifest_path(c, lists[i]);
    if (!p) return PM_NOMEM(err);
    int rc = pm_scan_manifest_error(c->t, p, pm_manifest_list_read(c->t->fs, p, out, err), err);
    free(p);
    PM_TRY(rc);
  }
  return 0;
}

/* Appends the manifest paths of metas[from..] to w. */
static int written_add_metas(const pm_commit *c, written_files *w, const pm_manifest_file_metas *metas, size_t from,
                             pm_error *err) {
  for (size_t i = from; i < metas->n; i++) {
    char *p = manifest_path(c, metas->items[i].file_name);
    if (!p) return PM_NOMEM(err);
    PM_TRY(written_add(w, p, metas->items[i].file_size, err));
  }
  return 0;
}

/* The size of the manifest a merge wrote at path, as the merged list records it (-1: not in it). */
static int64_t merged_size(const pm_manifest_file_metas *merged, const char *path) {
  for (size_t i = 0; i < merged->n; i++)
    if (!strcmp(merged->items[i].file_name, base_name(path))) return merged->items[i].file_size;
  return -1;
}

/* Writes a manifest list of metas; *list_name / *list_size describe it. */
static int write_list(pm_commit *c, const pm_manifest_file_meta *metas, size_t n, const pm_manifest_merge_options *o,
                      written_files *w, char **list_name, int64_t *list_size, pm_error *err) {
  *list_name = NULL;
  char *lp = pm_path_factory_new_manifest_list(&c->pf);
  if (!lp) return PM_NOMEM(err);
  PM_TRY(written_add(w, lp, -1, err));
  PM_TRY(pm_manifest_list_write(c->t->fs, lp, metas, n, &o->write, list_size, err));
  w->sizes[w->n - 1] = *list_size;
  *list_name = strdup(base_name(lp));
  return *list_name ? 0 : PM_NOMEM(err);
}

/* Writes entries to new manifest(s) (rolling at manifest.target-file-size; none
 * when n == 0) and their manifest list. */
static int write_manifests_and_list(pm_commit *c, const pm_manifest_entry *entries, size_t n,
                                    const pm_manifest_merge_options *o, written_files *w, char **list_name,
                                    int64_t *list_size, pm_error *err) {
  pm_manifest_file_metas metas;
  pm_manifest_file_metas_init(&metas);
  int rc = n ? pm_manifest_write_rolling(c->t->fs, &c->pf, entries, n, o, &metas, err) : 0;
  pm_error e2 = {0};
  int rc2 = written_add_metas(c, w, &metas, 0, rc ? &e2 : err); /* completed files, also on failure */
  if (!rc) rc = rc2;
  if (!rc) rc = write_list(c, metas.items, metas.n, o, w, list_name, list_size, err);
  pm_manifest_file_metas_clear(&metas);
  return rc;
}

/* The statistics file name to carry over from latest (NULL when none or the schema changed). */
static int inherited_statistics(const pm_commit *c, const pm_snapshot *latest, int64_t schema_id, char **out,
                                pm_error *err) {
  *out = NULL;
  if (!latest || !latest->statistics) return 0;
  size_t n = strlen(latest->statistics) + 16;
  char *sub = malloc(n);
  if (!sub) return PM_NOMEM(err);
  snprintf(sub, n, "statistics/%s", latest->statistics); /* table root, every branch (Java) */
  char *p = pm_table_root_path(c->t, sub);
  free(sub);
  if (!p) return PM_NOMEM(err);
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fs_read_file(c->t->fs, p, &b, 0, err);
  if (!rc) {
    json_error_t je;
    json_t *j = json_loadb((const char *)b.data, b.len, 0, &je);
    json_t *sid = j ? json_object_get(j, "schemaId") : NULL;
    if (!json_is_integer(sid))
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: statistics file without an integer schemaId", p);
    else if (json_integer_value(sid) == schema_id && !(*out = strdup(latest->statistics)))
      rc = PM_NOMEM(err);
    json_decref(j);
  }
  pm_buf_free(&b);
  free(p);
  return rc;
}

static int latest_schema_id(const pm_commit *c, int64_t *id, pm_error *err) {
  pm_schema_manager sm = pm_table_schemas(c->t);
  int64_t *ids = NULL;
  size_t n = 0;
  PM_TRY(pm_schema_list_ids(&sm, &ids, &n, err));
  *id = n ? ids[n - 1] : c->t->schema_id;
  free(ids);
  return 0;
}

/* ---- row tracking (SEMANTICS 9.2) ---- */

static int is_blob_file(const char *name) {
  size_t n = strlen(name);
  return n >= 5 && !strcmp(name + n - 5, ".blob");
}

static int writes_row_id(const pm_data_file_meta *f) {
  if (f->write_cols.is_null) return 0;
  for (int32_t i = 0; i < f->write_cols.n; i++)
    if (!strcmp(f->write_cols.items[i], "_ROW_ID")) return 1;
  return 0;
}

/* Orders delta entries by partition (first appearance), as Java groups them. */
static int group_by_partition(pm_manifest_entries *d, pm_error *err) {
  if (d->n < 2) return 0;
  pm_manifest_entry *out = malloc(d->n * sizeof *out);
  char *taken = calloc(d->n, 1);
  if (!out || !taken) {
    free(out);
    free(taken);
    return PM_NOMEM(err);
  }
  size_t k = 0;
  for (size_t i = 0; i < d->n; i++) {
    if (taken[i]) continue;
    const pm_bytes *p = &d->items[i].partition;
    for (size_t j = i; j < d->n; j++)
      if (!taken[j] && d->items[j].partition.len == p->len &&
          (!p->len || !memcmp(d->items[j].partition.data, p->data, p->len))) {
        taken[j] = 1;
        out[k++] = d->items[j];
      }
  }
  memcpy(d->items, out, d->n * sizeof *out);
  free(out);
  free(taken);
  return 0;
}

static int assign_row_tracking(const pm_commit *c, int64_t snapshot_id, int64_t start, pm_manifest_entries *d,
                               int64_t *next_row_id, pm_error *err) {
  if (c->t->co.row_tracking_partition_group) PM_TRY(group_by_partition(d, err));
  for (size_t i = 0; i < d->n; i++) {
    pm_data_file_meta *f = &d->items[i].file;
    if (f->min_sequence_number == 0) {
      f->min_sequence_number = snapshot_id;
      f->max_sequence_number = snapshot_id;
    } else if (f->max_sequence_number == 0) {
      f->max_sequence_number = snapshot_id;
    }
  }
  int64_t blob_default = start, vector_start = start;
  /* blob cursors per blob column (first write column) */
  const char **blob_cols = NULL;
  int64_t *blob_starts = NULL;
  size_t n_blob = 0;
  int rc = 0;
  for (size_t i = 0; !rc && i < d->n; i++) {
    pm_data_file_meta *f = &d->items[i].file;
    if (f->file_source == PM_SOURCE_NULL) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "commit: data file %s has no file source (required on row-tracking tables)", f->file_name);
      break;
    }
    if (f->file_source != PM_SOURCE_APPEND || f->has_first_row_id || writes_row_id(f)) continue;
    if (is_blob_file(f->file_name)) {
      const char *col = (!f->write_cols.is_null && f->write_cols.n) ? f->write_cols.items[0] : "";
      size_t k = 0;
      while (k < n_blob && strcmp(blob_cols[k], col)) k++;
      if (k == n_blob) {
        const char **nc = realloc(blob_cols, (n_blob + 1) * sizeof *nc);
        if (nc) blob_cols = nc;
        int64_t *ns = realloc(blob_starts, (n_blob + 1) * sizeof *ns);
        if (ns) blob_starts = ns;
        if (!nc || !ns) {
          rc = PM_NOMEM(err);
          break;
        }
        blob_cols[n_blob] = col;
        blob_starts[n_blob++] = blob_default;
      }
      if (blob_starts[k] >= start) {
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "commit: blob file %s is not preceded by the data file of its rows", f->file_name);
        break;
      }
      f->first_row_id = blob_starts[k];
      blob_starts[k] += f->row_count;
    } else if (strstr(f->file_name, ".vector.")) {
      if (vector_start >= start) {
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "commit: vector-store file %s is not preceded by the data file of its rows", f->file_name);
        break;
      }
      f->first_row_id = vector_start;
      vector_start += f->row_count;
    } else {
      f->first_row_id = start;
      blob_default = start;
      n_blob = 0;
      start += f->row_count;
    }
    f->has_first_row_id = 1;
  }
  free(blob_cols);
  free(blob_starts);
  *next_row_id = start;
  return rc;
}

/* ---- publication ---- */

enum {
  PUB_OK = PM_PUB_OK,
  PUB_FAILED = PM_PUB_FAILED,
  PUB_UNCERTAIN = PM_PUB_UNCERTAIN,
  PUB_LOST = PM_PUB_LOST,
  PUB_UNSEEN = PM_PUB_UNSEEN
};

/* Creates snapshot-<id> if absent and reads it back. *outcome: PUB_OK, PUB_FAILED
 * (certainly not published: it exists already, or the write failed before
 * publishing), PUB_LOST (the fs lost the write; nothing visible), PUB_UNSEEN (reported
 * created but not found on reading back: maybe published) or PUB_UNCERTAIN (an error
 * while publishing or checking); err describes a failure. */
static void publish_snapshot(pm_commit *c, const pm_snapshot *s, int *outcome, pm_error *err) {
  pm_snapshot_manager sm = pm_table_snapshots(c->t);
  *outcome = PUB_FAILED;
  char *dir = pm_table_meta_path(c->t, "snapshot");
  char *path = pm_snapshot_path(&sm, s->id);
  pm_buf b;
  pm_buf_init(&b);
  pm_out_file *out = NULL;
  int exists = 0;
  if (!dir || !path) {
    PM_NOMEM(err);
    goto done;
  }
  if (pm_fs_mkdirs(c->t->fs, dir, err) || pm_fs_exists(c->t->fs, path, &exists, err)) goto done;
  if (exists) {
    pm_errorf(err, PAIMON_ERR_CONFLICT, "%s: snapshot %" PRId64 " was committed by someone else", path, s->id);
    goto done;
  }
  if (pm_snapshot_to_json(s, &b, err) || pm_fs_create(c->t->fs, path, &out, err)) goto done;
  if (pm_out_write(out, b.data, b.len, err)) {
    pm_out_abort(out);
    goto done;
  }
  int rc = pm_out_commit(out, PM_OUT_CREATE_IF_ABSENT, err);
  if (rc == PAIMON_ERR_CONFLICT) {
    pm_errorf(err, PAIMON_ERR_CONFLICT, "%s: snapshot %" PRId64 " was committed by someone else", path, s->id);
    goto done;
  }
  if (rc) {
    *outcome = PUB_UNCERTAIN;
    goto done;
  }
  /* The file system said yes: make sure the snapshot is really there, with our bytes. */
  *outcome = pm_commit_check_published(c, path, s->id, b.data, b.len, err);
done:
  pm_buf_free(&b);
  free(dir);
  free(path);
}

/* Writes a hint with 3 tries, as Java's HintFileUtils; 0 when written and read back
 * as id (LATEST: or newer, a racing committer's), so a write the fs lost is retried. */
static int write_hint(pm_commit *c, const pm_snapshot_manager *sm, const char *name, int64_t id) {
  char sub[32];
  snprintf(sub, sizeof sub, "snapshot/%s", name);
  char *path = pm_table_meta_path(c->t, sub);
  int rc = -1;
  for (int i = 0; path && i < 3 && rc; i++) {
    pm_error e = {0};
    if (!pm_snapshot_write_hint(sm, name, id, &e) &&
        pm_commit_hint_reads(c->t->fs, path, id, !strcmp(name, "LATEST")))
      rc = 0;
    else if (i < 2)
      sleep_ms(500 + (int64_t)(random_u32() % 1000));
  }
  free(path);
  return rc;
}

/* LATEST = id, then EARLIEST when missing; best effort (the snapshot file is the
 * commit). Racing committers: whoever wrote LATEST and then sees a newer snapshot
 * rewrites it with the newest, so the last write names the latest snapshot; EARLIEST
 * is the smallest id listed, not our own. */
static void write_hints(pm_commit *c, int64_t id) {
  pm_snapshot_manager sm = pm_table_snapshots(c->t);
  for (int round = 0; round < 10; round++) {
    if (write_hint(c, &sm, "LATEST", id)) break;
    int exists = 0;
    pm_error e = {0};
    if (pm_snapshot_exists(&sm, id + 1, &exists, &e) || !exists) break;
    int64_t *ids = NULL;
    size_t n = 0;
    if (pm_snapshot_list_ids(&sm, &ids, &n, &e) || !n || ids[n - 1] <= id) {
      free(ids);
      break;
    }
    id = ids[n - 1];
    free(ids);
  }
  char *ep = pm_table_meta_path(c->t, "snapshot/EARLIEST");
  int exists = 1;
  pm_error e = {0};
  if (ep && !pm_fs_exists(c->t->fs, ep, &exists, &e) && !exists) {
    int64_t *ids = NULL;
    size_t n = 0;
    if (!pm_snapshot_list_ids(&sm, &ids, &n, &e) && n) write_hint(c, &sm, "EARLIEST", ids[0]);
    free(ids);
  }
  free(ep);
}

/* ---- one attempt ---- */

typedef struct retry_state {
  int failed;            /* an earlier attempt failed to publish */
  int uncertain;         /* ...and may have published (not yet resolved) */
  int64_t failed_latest; /* the latest id that attempt built on (0 = none) */
  /* An attempt's snapshot create was reported done but not found on reading back
   * (PUB_UNSEEN): not finding it on a later search does not prove it absent either,
   * so the call ends UNKNOWN_OUTCOME unless a later attempt publishes or finds it. */
  int unseen;
  int64_t unseen_latest; /* the latest id that attempt built on */
} retry_state;

/* Did an earlier attempt land? Scans the snapshots after the failed attempt's base. */
static int find_own_snapshot(pm_commit *c, const retry_state *st, const pm_snapshot *latest, int64_t identifier,
                             const char *kind, int64_t *found, pm_error *err) {
  *found = -1;
  pm_snapshot_manager sm = pm_table_snapshots(c->t);
  for (int64_t id = st->failed_latest + 1; id <= latest->id; id++) {
    const pm_snapshot *s = latest;
    pm_snapshot *own = NULL;
    if (id != latest->id) {
      int rc = pm_snapshot_read(&sm, id, &own, err);
      if (rc == PAIMON_ERR_NOT_FOUND) continue; /* expired meanwhile */
      PM_TRY(rc);
      s = own;
    }
    int same = s->commit_user && !strcmp(s->commit_user, c->user) && s->commit_identifier == identifier &&
               s->commit_kind && !strcmp(s->commit_kind, kind);
    pm_snapshot_free(own);
    if (same) {
      *found = id;
      return 0;
    }
  }
  return 0;
}

static int64_t sum_rows(const pm_manifest_entries *v, int8_t kind) {
  int64_t n = 0;
  for (size_t i = 0; i < v->n; i++)
    if (v->items[i].kind == kind) n += v->items[i].file.row_count;
  return n;
}

/* Merged snapshot properties: the committable's, overlaid with the commit's. */
static int merged_properties(const pm_commit *c, const pm_manifest_committable *m, pm_options *out, pm_error *err) {
  pm_options_init(out);
  for (size_t i = 0; m && i < m->n_properties; i++)
    PM_TRY(pm_options_set(out, m->property_keys[i], m->property_values[i], err));
  for (size_t i = 0; i < c->props.n; i++) PM_TRY(pm_options_set(out, c->props.keys[i], c->props.values[i], err));
  return 0;
}

typedef struct attempt_in {
  const pm_commit_provider *p;
  int64_t identifier;
  const pm_manifest_committable *m;
  const char *kind;
  int detect;
} attempt_in;

/* 1 when the two lists name the same manifests (as sets). */
static int same_manifests(const pm_manifest_file_metas *a, const pm_manifest_file_metas *b) {
  if (a->n != b->n) return 0;
  for (size_t i = 0; i < a->n; i++) {
    size_t j = 0;
    while (j < b->n && strcmp(a->items[i].file_name, b->items[j].file_name)) j++;
    if (j == b->n) return 0;
  }
  return 1;
}

static int build_and_publish(pm_commit *c, const attempt_in *in, const pm_snapshot *latest, pm_commit_changes *ch,
                             written_files *w, int *outcome, pm_error *err) {
  const pm_table *t = c->t;
  int64_t new_id = latest ? latest->id + 1 : 1;
  int64_t row_start = latest && latest->has_next_row_id ? latest->next_row_id : 0;
  int64_t schema_id = 0;
  PM_TRY(latest_schema_id(c, &schema_id, err));
  pm_manifest_merge_options o;
  PM_TRY(pm_manifest_merge_options_init(&o, &t->co, c->partition_type, schema_id, err));
  if (c->manifests_full) { /* Java's manifestCompactionOptions */
    o.merge_min_count = 1;
    o.full_compaction_size = 1;
  }

  pm_manifest_file_metas base, merged;
  pm_manifest_file_metas_init(&base);
  pm_manifest_file_metas_init(&merged);
  pm_index_entries prev_index, new_index;
  pm_index_entries_init(&prev_index);
  pm_index_entries_init(&new_index);
  pm_options props;
  pm_options_init(&props);
  char *base_list = NULL, *delta_list = NULL, *changelog_list = NULL, *index_manifest = NULL, *stats = NULL;
  int64_t base_size = 0, delta_size = 0, changelog_size = 0;
  int64_t next_row_id = row_start;
  int rc = 0;

  char *mdir = pm_table_root_path(t, "manifest");
  rc = mdir ? pm_fs_mkdirs(t->fs, mdir, err) : PM_NOMEM(err);
  free(mdir);
  if (!rc && latest) rc = read_data_manifests(c, latest, &base, err);
  if (!rc && t->co.row_tracking) rc = pm_manifest_fill_row_id_ranges(t->fs, &c->pf, &base, err);
  /* base list = merge(latest base + latest delta) */
  if (!rc) {
    char **new_files = NULL;
    size_t n_new = 0;
    rc = pm_manifest_merge(t->fs, &c->pf, base.items, base.n, &o, &merged, &new_files, &n_new, err);
    for (size_t i = 0; i < n_new; i++) {
      pm_error e2 = {0};
      char *dup = strdup(new_files[i]);
      int r2 = dup ? written_add(w, dup, merged_size(&merged, dup), rc ? &e2 : err) : PM_NOMEM(rc ? &e2 : err);
      if (!rc) rc = r2;
    }
    pm_free_names(new_files, n_new);
  }
  if (!rc && c->manifests_full) {
    c->manifests_before = base.n;
    c->manifests_after = merged.n;
    c->manifests_noop = same_manifests(&base, &merged);
    if (c->manifests_noop) {
      *outcome = PUB_OK; /* nothing to publish (Java: no compaction happened) */
      goto out;
    }
  }
  if (!rc) rc = write_list(c, merged.items, merged.n, &o, w, &base_list, &base_size, err);
  if (!rc && t->co.row_tracking) rc = assign_row_tracking(c, new_id, row_start, &ch->table, &next_row_id, err);
  int64_t delta_rows = sum_rows(&ch->table, PM_FILE_ADD) - sum_rows(&ch->table, PM_FILE_DELETE);
  if (!rc) rc = write_manifests_and_list(c, ch->table.items, ch->table.n, &o, w, &delta_list, &delta_size, err);
  if (!rc && ch->changelog.n)
    rc = write_manifests_and_list(c, ch->changelog.items, ch->changelog.n, &o, w, &changelog_list, &changelog_size,
                                  err);
  /* index manifest: the previous one unless there are index changes */
  if (!rc && ch->index.n) {
    if (latest && latest->index_manifest) {
      char *ip = manifest_path(c, latest->index_manifest);
      rc = ip ? pm_index_manifest_read(t->fs, ip, &prev_index, err) : PM_NOMEM(err);
      free(ip);
    }
    if (!rc)
      rc = pm_index_manifest_combine(prev_index.items, prev_index.n, ch->index.items, ch->index.n,
                                     t->bucket_mode == PM_BUCKET_UNAWARE, &new_index, err);
    char *ip = NULL;
    if (!rc) {
      ip = new_index_manifest_path(c);
      if (!ip) rc = PM_NOMEM(err);
      else rc = written_add(w, ip, -1, err);
    }
    if (!rc) rc = pm_index_manifest_write(t->fs, ip, new_index.items, new_index.n, &o.write, &w->sizes[w->n - 1], err);
    if (!rc && !(index_manifest = strdup(base_name(ip)))) rc = PM_NOMEM(err);
  } else if (!rc && latest && latest->index_manifest && !(index_manifest = strdup(latest->index_manifest))) {
    rc = PM_NOMEM(err);
  }
  if (!rc) rc = inherited_statistics(c, latest, schema_id, &stats, err);
  if (!rc) rc = merged_properties(c, in->m, &props, err);

  if (!rc) {
    pm_snapshot s;
    memset(&s, 0, sizeof s);
    s.version = 3;
    s.id = new_id;
    s.schema_id = schema_id;
    s.base_manifest_list = base_list;
    s.base_manifest_list_size = base_size;
    s.has_base_manifest_list_size = 1;
    s.delta_manifest_list = delta_list;
    s.delta_manifest_list_size = delta_size;
    s.has_delta_manifest_list_size = 1;
    s.changelog_manifest_list = changelog_list;
    s.changelog_manifest_list_size = changelog_size;
    s.has_changelog_manifest_list_size = changelog_list != NULL;
    s.index_manifest = index_manifest;
    s.commit_user = c->user;
    s.commit_identifier = in->identifier;
    s.commit_kind = (char *)in->kind;
    s.time_millis = wall_ms();
    s.total_record_count = (latest && latest->has_total_record_count ? latest->total_record_count : 0) + delta_rows;
    s.has_total_record_count = 1;
    s.delta_record_count = delta_rows;
    s.has_delta_record_count = 1;
    if (ch->changelog.n) {
      s.changelog_record_count = sum_rows(&ch->changelog, PM_FILE_ADD);
      s.has_changelog_record_count = 1;
    }
    /* watermark = max(latest, committable, commit) */
    int has_wm = 0;
    int64_t wm = 0;
    if (in->m && in->m->has_watermark) wm = in->m->watermark, has_wm = 1;
    if (c->has_watermark && (!has_wm || c->watermark > wm)) wm = c->watermark, has_wm = 1;
    if (latest && latest->has_watermark && (!has_wm || latest->watermark > wm)) wm = latest->watermark, has_wm = 1;
    s.watermark = wm;
    s.has_watermark = has_wm;
    s.statistics = stats;
    s.properties = props; /* borrowed */
    s.next_row_id = next_row_id;
    s.has_next_row_id = 1;
    s.operation = (char *)c->operation;
    int lost = 0;
    rc = pm_commit_verify_sizes(t->fs, w->paths, w->sizes, w->n, &lost, err);
    if (lost) {
      rc = 0;
      *outcome = PUB_LOST;
    } else if (!rc) {
      publish_snapshot(c, &s, outcome, err);
    }
    if (*outcome == PUB_OK) write_hints(c, new_id);
  }
out:
  pm_manifest_file_metas_clear(&base);
  pm_manifest_file_metas_clear(&merged);
  pm_index_entries_clear(&prev_index);
  pm_index_entries_clear(&new_index);
  pm_options_clear(&props);
  free(base_list);
  free(delta_list);
  free(changelog_list);
  free(index_manifest);
  free(stats);
  return rc;
}

/* One attempt. Returns 0 with *outcome set, or an error (nothing published by
 * this attempt: conflict, I/O before the snapshot write, ...). *snapshot_id is
 * set on success. */
static int try_once(pm_commit *c, const attempt_in *in, retry_state *st, int *outcome, int64_t *snapshot_id,
                    pm_error *err) {
  *outcome = PUB_FAILED;
  pm_snapshot_manager sm = pm_table_snapshots(c->t);
  pm_snapshot *latest = NULL;
  PM_TRY(pm_snapshot_read_latest(&sm, &latest, err));
  int rc = 0;
  if (st->failed) {
    int64_t found = -1;
    if (latest) rc = find_own_snapshot(c, st, latest, in->identifier, in->kind, &found, err);
    if (!rc) {
      st->uncertain = 0; /* resolved: either it landed or it did not */
      if (found > 0) {
        /* our earlier attempt landed; its hints may not have been written */
        if (found == latest->id) write_hints(c, found);
        *snapshot_id = found;
        *outcome = PUB_OK;
        pm_snapshot_free(latest);
        return 0;
      }
    }
  }
  pm_commit_changes ch;
  memset(&ch, 0, sizeof ch);
  if (!rc) rc = in->p->provide(in->p->ctx, c, latest, &ch, err);
  int discard = c->t->co.commit_discard_duplicate_files && !strcmp(in->kind, "APPEND");
  if (!rc && latest && (discard || in->detect))
    rc = pm_commit_check_conflicts(c, latest, &ch, in->kind, discard, err);
  written_files w = {0};
  if (!rc) rc = build_and_publish(c, in, latest, &ch, &w, outcome, err);
  if (!rc && *outcome == PUB_OK) *snapshot_id = c->manifests_noop ? -1 : latest ? latest->id + 1 : 1;
  /* a certain failure leaves nothing of this attempt behind */
  if (rc || *outcome == PUB_FAILED || *outcome == PUB_LOST) written_delete(c->t->fs, &w);
  written_free(&w);
  if (!rc && *outcome != PUB_OK) {
    st->failed = 1;
    st->uncertain = *outcome == PUB_UNCERTAIN || *outcome == PUB_UNSEEN;
    st->failed_latest = latest ? latest->id : 0;
    if (*outcome == PUB_UNSEEN && !st->unseen) {
      st->unseen = 1;
      st->unseen_latest = st->failed_latest;
    }
  }
  pm_commit_changes_free(&ch);
  pm_snapshot_free(latest);
  return rc;
}

/* A stream identifier this user already committed (an earlier call or process whose
 * outcome was unknown, or a restart): this user's newest snapshot has a larger
 * identifier, or the same one with this kind (or COMPACT, which follows the APPEND /
 * OVERWRITE of an identifier). Identifiers of one user only grow (Java's
 * filterCommitted rule); batch commits (Long.MAX_VALUE) are not checked. */
static int already_committed(pm_commit *c, int64_t identifier, const char *kind, int64_t *found, pm_error *err) {
  *found = -1;
  if (identifier == PM_BATCH_COMMIT_IDENTIFIER) return 0;
  pm_snapshot_manager sm = pm_table_snapshots(c->t);
  int64_t latest = 0, earliest = 0;
  PM_TRY(pm_snapshot_latest_id(&sm, &latest, err));
  if (latest <= 0) return 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &earliest, err));
  for (int64_t id = latest; id >= earliest && id > 0; id--) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_read(&sm, id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) return 0; /* expired while scanning */
    PM_TRY(rc);
    int mine = s->commit_user && !strcmp(s->commit_user, c->user);
    int done = mine && (s->commit_identifier > identifier ||
                        (s->commit_identifier == identifier && s->commit_kind &&
                         (!strcmp(s->commit_kind, kind) || (strcmp(kind, "COMPACT") && !strcmp(s->commit_kind, "COMPACT")))));
    pm_snapshot_free(s);
    if (mine) {
      if (done) *found = id;
      return 0;
    }
  }
  return 0;
}

int pm_commit_try(pm_commit *c, const pm_commit_provider *p, int64_t identifier, const pm_manifest_committable *m,
                  const char *kind, int detect, int64_t *snapshot_id, pm_error *err) {
  const pm_core_options *co = &c->t->co;
  attempt_in in = {p, identifier, m, kind, detect};
  retry_state st = {0};
  if (c->pending && c->pending_identifier == identifier && !strcmp(c->pending_kind, kind)) {
    st.failed = st.uncertain = 1;
    st.failed_latest = c->pending_latest;
    st.unseen = c->pending_unseen; /* that one may still appear */
    st.unseen_latest = c->pending_latest;
  }
  c->pending = 0;
  if (!st.failed) {
    int64_t found = -1;
    PM_TRY(already_committed(c, identifier, kind, &found, err));
    if (found > 0) {
      /* an earlier call or process published it, maybe without its hints (its outcome was
       * unknown to it): LATEST names the newest snapshot again when ours is that one */
      pm_snapshot_manager sm = pm_table_snapshots(c->t);
      int64_t latest = 0;
      pm_error e = {0};
      if (!pm_snapshot_latest_id(&sm, &latest, &e) && latest == found) write_hints(c, found);
      *snapshot_id = found;
      return 0;
    }
  }
  int64_t start = mono_ms();
  for (int retry = 0;; retry++) {
    int outcome = PUB_FAILED;
    int rc = try_once(c, &in, &st, &outcome, snapshot_id, err);
    if (rc && (st.uncertain || st.unseen)) {
      pm_error_prefix(err, "commit %s of user %s, identifier %" PRId64 ": an earlier attempt may have been "
                      "published and could not be checked", kind, c->user, identifier);
      rc = PAIMON_ERR_UNKNOWN_OUTCOME;
    }
    int timed_out = co->commit_timeout_ms > 0 && mono_ms() - start > co->commit_timeout_ms;
    if (!rc && outcome != PUB_OK && (retry >= co->commit_max_retries || timed_out)) {
      rc = outcome == PUB_UNCERTAIN || outcome == PUB_UNSEEN || st.unseen ? PAIMON_ERR_UNKNOWN_OUTCOME
           : outcome == PUB_LOST                                           ? PAIMON_ERR_IO
                                                                           : PAIMON_ERR_CONFLICT;
      pm_error_prefix(err, "commit %s of user %s, identifier %" PRId64 " %s after %d retries (%s)", kind, c->user,
                      identifier, rc == PAIMON_ERR_UNKNOWN_OUTCOME ? "may or may not be published" : "not published",
                      retry, timed_out ? "commit.timeout reached" : "commit.max-retries reached");
      err->code = rc;
    }
    if (rc == PAIMON_ERR_UNKNOWN_OUTCOME) {
      err->code = PAIMON_ERR_UNKNOWN_OUTCOME;
      c->pending = 1;
      c->pending_identifier = identifier;
      c->pending_latest = st.unseen && st.unseen_latest < st.failed_latest ? st.unseen_latest : st.failed_latest;
      c->pending_unseen = st.unseen;
      snprintf(c->pending_kind, sizeof c->pending_kind, "%s", kind);
    }
    if (rc) return rc;
    if (outcome == PUB_OK) return 0;
    sleep_ms(retry_wait_ms(co, retry));
  }
}

/* ------------------------------------------------------------ append */

static int provide_fixed(void *ctx, pm_commit *c, const pm_snapshot *latest, pm_commit_changes *out, pm_error *err) {
  (void)c;
  (void)latest;
  return pm_commit_changes_append(out, ctx, 1, err);
}

/* Java's shouldBeOverwriteCommit: deletes or deletion vectors in an append. */
static int append_is_overwrite(const pm_commit_changes *a) {
  for (size_t i = 0; i < a->table.n; i++)
    if (a->table.items[i].kind == PM_FILE_DELETE) return 1;
  for (size_t i = 0; i < a->index.n; i++)
    if (a->index.items[i].index_file.index_type && !strcmp(a->index.items[i].index_file.index_type, PM_INDEX_TYPE_DV))
      return 1;
  return 0;
}

static int adds_global_index(const pm_commit_changes *a) {
  for (size_t i = 0; i < a->index.n; i++)
    if (a->index.items[i].kind == PM_FILE_ADD && a->index.items[i].index_file.has_global_index) return 1;
  return 0;
}

static int ignore_empty_commit(const pm_commit *c) {
  const pm_core_options *co = &c->t->co;
  /* Java's stream commits never ignore (StreamWriteBuilder); batch ones follow the option */
  if (c->streaming || co->commit_force_create_snapshot) return 0;
  return co->set[PM_CO_SNAPSHOT_IGNORE_EMPTY_COMMIT] ? co->snapshot_ignore_empty_commit : 1;
}

int pm_commit_append(pm_commit *c, const pm_manifest_committable *m, int check_append_conflicts,
                     int64_t *snapshot_id, pm_error *err) {
  int64_t sid = -1;
  if (snapshot_id) *snapshot_id = -1;
  pm_commit_collected cc;
  PM_TRY(pm_commit_collect(c, m, &cc, err));
  int64_t identifier = m ? m->identifier : PM_BATCH_COMMIT_IDENTIFIER;
  int rc = 0;
  if (!ignore_empty_commit(c) || !pm_commit_changes_empty(&cc.append)) {
    int overwrite = append_is_overwrite(&cc.append);
    const char *kind = overwrite ? "OVERWRITE" : "APPEND";
    /* Java's checkAppendFiles: also under a row-id check and for new global-index files */
    int detect = check_append_conflicts || overwrite || pm_commit_rowid_check_applies(c, kind) ||
                 adds_global_index(&cc.append);
    pm_commit_provider p = {provide_fixed, &cc.append};
    rc = pm_commit_try(c, &p, identifier, m, kind, detect, &sid, err);
  }
  if (!rc && !pm_commit_changes_empty(&cc.compact)) {
    pm_commit_provider p = {provide_fixed, &cc.compact};
    rc = pm_commit_compact_part(c, &p, identifier, m, sid > 0, &sid, err);
  }
  pm_commit_collected_free(&cc);
  if (snapshot_id) *snapshot_id = sid;
  if (!rc) pm_commit_maintain(c, sid, identifier);
  return rc;
}

/* The compaction part of a commit runs after its data part. Once the data
 * snapshot is published the commit has happened: a compaction that then meets
 * a concurrent change (CONFLICT: nothing of it published) is dropped and its
 * new files deleted, a compaction that fails otherwise is left as it is (its
 * files may be referenced if the outcome was unknown), and the commit returns
 * OK with the data snapshot. Returning CONFLICT there would tell the caller
 * that nothing was published and that the messages may be aborted, and
 * aborting them deletes the published data files. */
int pm_commit_compact_part(pm_commit *c, const pm_commit_provider *p, int64_t identifier,
                           const pm_manifest_committable *m, int data_published, int64_t *sid, pm_error *err) {
  int64_t csid = -1;
  int rc = pm_commit_try(c, p, identifier, m, "COMPACT", 1, &csid, err);
  c->compaction_dropped = 0;
  if (!rc) {
    *sid = csid;
    return 0;
  }
  if (!data_published) return rc;
  c->compaction_dropped = rc;
  if (rc == PAIMON_ERR_CONFLICT) {
    pm_error e = {0};
    (void)pm_commit_abort_parts(c->t, m, PM_ABORT_COMPACTION, &e); /* best effort: leftovers are orphans */
  }
  pm_error_clear(err);
  return 0;
}

/* ------------------------------------------------------------ filter committed */

int pm_commit_filter_committed(pm_commit *c, const int64_t *ids, size_t n, int *committed, pm_error *err) {
  for (size_t i = 0; i < n; i++) committed[i] = 0;
  pm_snapshot_manager sm = pm_table_snapshots(c->t);
  int64_t latest = 0, earliest = 0;
  PM_TRY(pm_snapshot_latest_id(&sm, &latest, err));
  if (latest <= 0) return 0;
  PM_TRY(pm_snapshot_earliest_id(&sm, &earliest, err));
  for (int64_t id = latest; id >= earliest && id > 0; id--) {
    pm_snapshot *s = NULL;
    int rc = pm_snapshot_read(&sm, id, &s, err);
    if (rc == PAIMON_ERR_NOT_FOUND) break; /* expired while scanning */
    PM_TRY(rc);
    int mine = s->commit_user && !strcmp(s->commit_user, c->user);
    int64_t ident = s->commit_identifier;
    pm_snapshot_free(s);
    if (mine) {
      for (size_t i = 0; i < n; i++) committed[i] = ids[i] <= ident;
      return 0;
    }
  }
  return 0;
}

/* ------------------------------------------------------------ abort */

static int delete_quietly(pm_fs *fs, const char *path, int *first_rc, pm_error *err) {
  pm_error e = {0};
  int rc = pm_fs_delete(fs, path, &e);
  if (rc && rc != PAIMON_ERR_NOT_FOUND && !*first_rc) {
    *first_rc = rc;
    *err = e;
  }
  return 0;
}

/* A compact-after file that is also compact-before: an upgrade (same file, new level). */
static int is_upgrade(const pm_commit_message *msg, const pm_data_file_meta *f) {
  for (size_t i = 0; i < msg->compact_before.n; i++)
    if (!strcmp(msg->compact_before.items[i].file_name, f->file_name)) return 1;
  return 0;
}

int pm_commit_abort(pm_table *t, const pm_manifest_committable *m, pm_error *err) {
  return pm_commit_abort_parts(t, m, PM_ABORT_DATA | PM_ABORT_COMPACTION, err);
}

int pm_commit_abort_parts(pm_table *t, const pm_manifest_committable *m, int parts, pm_error *err) {
  int first = 0;
  for (size_t i = 0; m && i < m->n_messages; i++) {
    const pm_commit_message *msg = &m->messages[i];
    char *pdir = NULL, *bdir = NULL;
    int rc = pm_scan_partition_dir(t, msg->partition.data, msg->partition.len, &pdir, err);
    if (!rc) rc = pm_table_bucket_path(t, pdir, msg->bucket, &bdir, err);
    free(pdir);
    if (rc) {
      if (!first) first = rc;
      continue;
    }
    const pm_file_list *lists[4] = {&msg->new_files, &msg->changelog_files, &msg->compact_after,
                                    &msg->compact_changelog};
    for (int l = 0; l < 4; l++)
      for (size_t k = 0; (parts & (l < 2 ? PM_ABORT_DATA : PM_ABORT_COMPACTION)) && k < lists[l]->n; k++) {
        const pm_data_file_meta *f = &lists[l]->items[k];
        if (l == 2 && is_upgrade(msg, f)) continue; /* the file was there before: not ours to delete */
        char *p = NULL;
        pm_error e = {0};
        if (pm_table_data_file_path(t, bdir, f->file_name, f->external_path, &p, &e)) {
          if (!first) first = e.code, *err = e;
          continue;
        }
        delete_quietly(t->fs, p, &first, err);
        const char *slash = strrchr(p, '/');
        for (int32_t x = 0; slash && x < f->extra_files.n; x++) { /* "<file>.index" beside it */
          size_t need = (size_t)(slash - p) + strlen(f->extra_files.items[x]) + 2;
          char *xp = malloc(need);
          if (!xp) {
            if (!first) first = PM_NOMEM(err);
            break;
          }
          snprintf(xp, need, "%.*s/%s", (int)(slash - p), p, f->extra_files.items[x]);
          delete_quietly(t->fs, xp, &first, err);
          free(xp);
        }
        free(p);
      }
    const pm_index_list *idx[2] = {&msg->new_index_files, &msg->compact_new_index_files};
    for (int l = 0; l < 2; l++)
      for (size_t k = 0; (parts & (l == 0 ? PM_ABORT_DATA : PM_ABORT_COMPACTION)) && k < idx[l]->n; k++) {
        const pm_index_file_meta *f = &idx[l]->items[k];
        char *p = NULL;
        pm_error e = {0};
        if (pm_table_index_file_path(t, bdir, f->file_name, f->external_path, &p, &e)) {
          if (!first) first = e.code, *err = e;
          continue;
        }
        delete_quietly(t->fs, p, &first, err);
        free(p);
      }
    free(bdir);
  }
  return first;
}

int pm_commit_compaction_dropped(const pm_commit *c) { return c ? c->compaction_dropped : 0; }

