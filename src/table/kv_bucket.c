/* Dynamic buckets of primary-key tables: hash index per partition, Java's
 * bucket assignment, HASH index files (kv_bucket.h). */
#include "table/kv_bucket.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "data/binary_row.h"
#include "data/bucket.h"
#include "io/fs.h"
#include "meta/hash_index.h"
#include "meta/snapshot.h"
#include "table/partition.h"
#include "table/write_slots.h"
#include "util/random.h"

/* Java stores buckets as shorts (Int2ShortHashMap): ids below 32767. */
#define KB_MAX_BUCKETS 32767

/* One assigner task's view of a partition (Java's PartitionIndex minus the map). */
typedef struct kb_assigner {
  int32_t *nf_bucket; /* buckets not yet full, ascending (Java's HashMap<Integer, Long> order) */
  int64_t *nf_count;
  size_t n_nf, cap_nf;
  int32_t *total; /* every bucket of this task, in creation order */
  size_t n_total, cap_total;
  int upper_reached;
} kb_assigner;

typedef struct kb_part {
  uint8_t *part; /* manifest form */
  size_t part_len;
  int32_t part_hash; /* BinaryRow hashCode */
  int32_t *keys;     /* hash -> bucket, open addressing; vals[i] < 0: empty */
  int16_t *vals;
  size_t cap, n;
  uint8_t *modified; /* per bucket id: got a new hash since the last prepare */
  size_t cap_modified;
  kb_assigner *asg; /* P */
} kb_part;

struct pm_kv_buckets {
  pm_table *t;
  int *cols;
  const pm_data_type **types;
  size_t n_cols;
  pm_binary_row_writer rw;
  int restore;
  int loaded; /* index manifest of the latest snapshot read */
  pm_index_entries hash_entries; /* its entries (HASH ones used) */
  int32_t p, a; /* assigner tasks, bucket-owning assigners */
  int64_t target;
  int32_t max_buckets; /* -1: unlimited */
  kb_part **parts;
  size_t n_parts, cap_parts;
  pm_slot_map part_map; /* (partition, 0) -> parts[i] */
  char uuid[PM_UUID_TEXT_SIZE];
  int64_t file_counter;
};

static uint64_t mix32(int32_t h) {
  uint64_t x = (uint32_t)h * 0x9e3779b97f4a7c15ull;
  return x ^ (x >> 29);
}

/* ------------------------------------------------------------ hash map */

static int map_grow(kb_part *p, pm_error *err) {
  size_t cap = p->cap ? 2 * p->cap : 1024;
  int32_t *keys = malloc(cap * sizeof *keys);
  int16_t *vals = malloc(cap * sizeof *vals);
  if (!keys || !vals) {
    free(keys);
    free(vals);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < cap; i++) vals[i] = -1;
  for (size_t i = 0; i < p->cap; i++) {
    if (p->vals[i] < 0) continue;
    size_t q = (size_t)mix32(p->keys[i]) & (cap - 1);
    while (vals[q] >= 0) q = (q + 1) & (cap - 1);
    keys[q] = p->keys[i];
    vals[q] = p->vals[i];
  }
  free(p->keys);
  free(p->vals);
  p->keys = keys;
  p->vals = vals;
  p->cap = cap;
  return 0;
}

/* Slot of hash h: its entry, or the empty slot where it would go. */
static size_t map_slot(const kb_part *p, int32_t h) {
  size_t q = (size_t)mix32(h) & (p->cap - 1);
  while (p->vals[q] >= 0 && p->keys[q] != h) q = (q + 1) & (p->cap - 1);
  return q;
}

static int map_put(kb_part *p, int32_t h, int32_t bucket, pm_error *err) {
  if ((p->n + 1) * 2 > p->cap) PM_TRY(map_grow(p, err));
  size_t q = map_slot(p, h);
  if (p->vals[q] < 0) p->n++;
  p->keys[q] = h;
  p->vals[q] = (int16_t)bucket;
  return 0;
}

static int mark_modified(kb_part *p, int32_t bucket, pm_error *err) {
  if ((size_t)bucket >= p->cap_modified) {
    size_t cap = p->cap_modified ? p->cap_modified : 16;
    while (cap <= (size_t)bucket) cap *= 2;
    uint8_t *m = realloc(p->modified, cap);
    if (!m) return PM_NOMEM(err);
    memset(m + p->cap_modified, 0, cap - p->cap_modified);
    p->modified = m;
    p->cap_modified = cap;
  }
  p->modified[bucket] = 1;
  return 0;
}

/* ------------------------------------------------------------ assigners */

static int asg_has(const kb_assigner *a, int32_t bucket) {
  for (size_t i = 0; i < a->n_total; i++)
    if (a->total[i] == bucket) return 1;
  return 0;
}

static int asg_add_total(kb_assigner *a, int32_t bucket, pm_error *err) {
  if (a->n_total == a->cap_total) {
    size_t cap = a->cap_total ? 2 * a->cap_total : 8;
    int32_t *nt = realloc(a->total, cap * sizeof *nt);
    if (!nt) return PM_NOMEM(err);
    a->total = nt;
    a->cap_total = cap;
  }
  a->total[a->n_total++] = bucket;
  return 0;
}

/* Adds count to bucket's entry of the non-full list (created in order). */
static int asg_count(kb_assigner *a, int32_t bucket, int64_t count, pm_error *err) {
  size_t i = 0;
  while (i < a->n_nf && a->nf_bucket[i] < bucket) i++;
  if (i < a->n_nf && a->nf_bucket[i] == bucket) {
    a->nf_count[i] += count;
    return 0;
  }
  if (a->n_nf == a->cap_nf) {
    size_t cap = a->cap_nf ? 2 * a->cap_nf : 8;
    int32_t *nb = realloc(a->nf_bucket, cap * sizeof *nb);
    if (!nb) return PM_NOMEM(err);
    a->nf_bucket = nb;
    int64_t *nc = realloc(a->nf_count, cap * sizeof *nc);
    if (!nc) return PM_NOMEM(err);
    a->nf_count = nc;
    a->cap_nf = cap;
  }
  memmove(a->nf_bucket + i + 1, a->nf_bucket + i, (a->n_nf - i) * sizeof *a->nf_bucket);
  memmove(a->nf_count + i + 1, a->nf_count + i, (a->n_nf - i) * sizeof *a->nf_count);
  a->nf_bucket[i] = bucket;
  a->nf_count[i] = count;
  a->n_nf++;
  return 0;
}

static int is_my_bucket(const pm_kv_buckets *kb, int32_t bucket, int32_t task) {
  return bucket % kb->a == task % kb->a;
}

static int32_t java_abs_mod(int32_t x, int32_t m) {
  int32_t r = x % m;
  return r < 0 ? -r : r;
}

/* Java's PartitionIndex.assign for a hash not in the map. */
static int assign_new(pm_kv_buckets *kb, kb_part *p, int32_t task, int32_t *bucket, pm_error *err) {
  kb_assigner *a = &p->asg[task];
  size_t i = 0;
  while (i < a->n_nf) {
    if (a->nf_count[i] < kb->target) {
      a->nf_count[i]++;
      *bucket = a->nf_bucket[i];
      return 0;
    }
    memmove(a->nf_bucket + i, a->nf_bucket + i + 1, (a->n_nf - i - 1) * sizeof *a->nf_bucket);
    memmove(a->nf_count + i, a->nf_count + i + 1, (a->n_nf - i - 1) * sizeof *a->nf_count);
    a->n_nf--;
  }
  int32_t global_max = (kb->max_buckets == -1 ? KB_MAX_BUCKETS : kb->max_buckets) - 1;
  if (!a->upper_reached) {
    for (int32_t b = 0; b <= global_max; b++) {
      if (!is_my_bucket(kb, b, task) || asg_has(a, b)) continue;
      PM_TRY(asg_count(a, b, 1, err));
      PM_TRY(asg_add_total(a, b, err));
      *bucket = b;
      return 0;
    }
    if (kb->max_buckets == -1)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                       "table %s.%s: more than %d buckets in a partition: increase option '%s' (%lld)",
                       kb->t->database, kb->t->name, (int)global_max,
                       pm_core_option_key(PM_CO_DYNAMIC_BUCKET_TARGET_ROW_NUM), (long long)kb->target);
    a->upper_reached = 1;
  }
  if (!a->n_total)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "table %s.%s: option '%s' = %d leaves assigner %d of %d no bucket", kb->t->database,
                     kb->t->name, pm_core_option_key(PM_CO_DYNAMIC_BUCKET_MAX_BUCKETS), (int)kb->max_buckets,
                     (int)task, (int)kb->p);
  uint32_t r;
  pm_random_bytes(&r, sizeof r);
  *bucket = a->total[r % a->n_total];
  return 0;
}

/* ------------------------------------------------------------ restore */

static int load_entries(pm_kv_buckets *kb, pm_error *err) {
  kb->loaded = 1;
  pm_snapshot_manager sm = pm_table_snapshots(kb->t);
  pm_snapshot *latest = NULL;
  PM_TRY(pm_snapshot_read_latest_checked(&sm, &latest, err));
  int rc = 0;
  if (latest && latest->index_manifest) {
    size_t n = strlen(latest->index_manifest) + 16;
    char *sub = malloc(n);
    char *path = NULL;
    if (sub) {
      snprintf(sub, n, "manifest/%s", latest->index_manifest);
      path = pm_table_root_path(kb->t, sub);
    }
    free(sub);
    rc = path ? pm_index_manifest_read(kb->t->fs, path, &kb->hash_entries, err) : PM_NOMEM(err);
    free(path);
  }
  pm_snapshot_free(latest);
  return rc;
}

/* Java's PartitionIndex.loadIndex for every assigner task at once. */
static int load_partition(pm_kv_buckets *kb, kb_part *p, pm_error *err) {
  if (!kb->loaded) PM_TRY(load_entries(kb, err));
  for (size_t i = 0; i < kb->hash_entries.n; i++) {
    const pm_index_manifest_entry *e = &kb->hash_entries.items[i];
    if (e->kind != PM_FILE_ADD || !e->index_file.index_type || strcmp(e->index_file.index_type, PM_INDEX_TYPE_HASH))
      continue;
    if (e->partition.len != p->part_len || memcmp(e->partition.data, p->part, p->part_len)) continue;
    if (e->bucket < 0 || e->bucket >= KB_MAX_BUCKETS)
      return pm_errorf(err, PAIMON_ERR_CORRUPT, "table %s.%s: HASH index file %s has bucket %d", kb->t->database,
                       kb->t->name, e->index_file.file_name, (int)e->bucket);
    char *pdir = NULL, *bdir = NULL, *path = NULL;
    int rc = pm_partition_path(kb->t, e->partition, &pdir, err);
    if (!rc) rc = pm_table_bucket_path(kb->t, pdir, e->bucket, &bdir, err);
    if (!rc) rc = pm_table_index_file_path(kb->t, bdir, e->index_file.file_name, e->index_file.external_path, &path, err);
    int32_t *h = NULL;
    size_t n = 0;
    if (!rc) rc = pm_hash_index_read(kb->t->fs, path, &h, &n, err);
    free(pdir);
    free(bdir);
    free(path);
    for (size_t k = 0; !rc && k < n; k++) rc = map_put(p, h[k], e->bucket, err);
    free(h);
    for (int32_t task = 0; !rc && task < kb->p; task++) {
      if (!is_my_bucket(kb, e->bucket, task)) continue;
      rc = asg_count(&p->asg[task], e->bucket, (int64_t)n, err);
      if (!rc && !asg_has(&p->asg[task], e->bucket)) rc = asg_add_total(&p->asg[task], e->bucket, err);
    }
    PM_TRY(rc);
  }
  /* Java's LinkedHashSet over a HashMap's keys: ascending ids */
  for (int32_t task = 0; task < kb->p; task++) {
    kb_assigner *a = &p->asg[task];
    for (size_t i = 1; i < a->n_total; i++)
      for (size_t j = i; j > 0 && a->total[j - 1] > a->total[j]; j--) {
        int32_t x = a->total[j];
        a->total[j] = a->total[j - 1];
        a->total[j - 1] = x;
      }
  }
  return 0;
}

/* ------------------------------------------------------------ API */

int pm_kv_cross_partition(const pm_table *t) {
  if (!t->n_primary_keys || !t->n_partition_keys) return 0;
  for (size_t i = 0; i < t->n_partition_keys; i++) {
    int found = 0;
    for (size_t k = 0; k < t->n_primary_keys && !found; k++) found = !strcmp(t->partition_keys[i], t->primary_keys[k]);
    if (!found) return 1;
  }
  return 0;
}

static void part_free(pm_kv_buckets *kb, kb_part *p) {
  if (!p) return;
  for (int32_t i = 0; p->asg && i < kb->p; i++) {
    free(p->asg[i].nf_bucket);
    free(p->asg[i].nf_count);
    free(p->asg[i].total);
  }
  free(p->asg);
  free(p->keys);
  free(p->vals);
  free(p->modified);
  free(p->part);
  free(p);
}

int pm_kv_buckets_open(pm_table *t, const int *cols, const pm_data_type *const *types, size_t n, int restore,
                       pm_kv_buckets **out, pm_error *err) {
  *out = NULL;
  pm_kv_buckets *kb = calloc(1, sizeof *kb);
  if (!kb) return PM_NOMEM(err);
  kb->t = pm_table_retain(t);
  pm_index_entries_init(&kb->hash_entries);
  kb->restore = restore;
  kb->n_cols = n;
  kb->cols = calloc(n + 1, sizeof *kb->cols);
  kb->types = calloc(n + 1, sizeof *kb->types);
  int rc = kb->cols && kb->types ? 0 : PM_NOMEM(err);
  for (size_t i = 0; !rc && i < n; i++) {
    kb->cols[i] = cols[i];
    kb->types[i] = types[i];
  }
  if (!rc) rc = pm_row_writer_init(&kb->rw, (int32_t)n, err);
  const pm_core_options *co = &t->co;
  int32_t init = co->dynamic_bucket_initial_buckets;
  kb->p = co->dynamic_bucket_assigner_parallelism > 0 ? co->dynamic_bucket_assigner_parallelism : init > 0 ? init : 1;
  kb->a = init > 0 && init < kb->p ? init : kb->p;
  kb->target = co->dynamic_bucket_target_row_num;
  kb->max_buckets = co->dynamic_bucket_max_buckets;
  if (!rc && kb->max_buckets == 0)
    rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "table %s.%s: option '%s' must be -1 or positive", t->database,
                   t->name, pm_core_option_key(PM_CO_DYNAMIC_BUCKET_MAX_BUCKETS));
  pm_uuid_random(kb->uuid);
  if (rc) {
    pm_kv_buckets_free(kb);
    return rc;
  }
  *out = kb;
  return 0;
}

static int get_part(pm_kv_buckets *kb, const uint8_t *part, size_t part_len, kb_part **out, pm_error *err) {
  int64_t pos = pm_slot_map_find(&kb->part_map, part, part_len, 0);
  if (pos >= 0) {
    *out = kb->parts[pos];
    return 0;
  }
  kb_part *p = calloc(1, sizeof *p);
  if (!p) return PM_NOMEM(err);
  p->part = malloc(part_len ? part_len : 1);
  p->asg = calloc((size_t)kb->p, sizeof *p->asg);
  int rc = p->part && p->asg ? 0 : PM_NOMEM(err);
  if (!rc) {
    memcpy(p->part, part, part_len);
    p->part_len = part_len;
    p->part_hash = part_len >= 4 ? pm_bucket_hash(part + 4, part_len - 4) : 0;
    rc = map_grow(p, err);
  }
  if (!rc && kb->restore) rc = load_partition(kb, p, err);
  if (!rc && kb->n_parts == kb->cap_parts) {
    size_t cap = kb->cap_parts ? 2 * kb->cap_parts : 8;
    kb_part **np = realloc(kb->parts, cap * sizeof *np);
    if (!np) rc = PM_NOMEM(err);
    else {
      kb->parts = np;
      kb->cap_parts = cap;
    }
  }
  if (!rc) rc = pm_slot_map_add(&kb->part_map, p->part, part_len, 0, kb->n_parts, err);
  if (rc) {
    part_free(kb, p);
    return rc;
  }
  kb->parts[kb->n_parts++] = p;
  *out = p;
  return 0;
}

int pm_kv_buckets_route(pm_kv_buckets *kb, const struct ArrowArray *b, int64_t r, const uint8_t *part,
                        size_t part_len, int32_t *bucket, pm_error *err) {
  int32_t h;
  PM_TRY(pm_write_key_hash(kb->types, kb->cols, kb->n_cols, b, r, &kb->rw, &h, err));
  kb_part *p = NULL;
  PM_TRY(get_part(kb, part, part_len, &p, err));
  size_t q = map_slot(p, h);
  if (p->vals[q] >= 0) {
    *bucket = p->vals[q];
    return 0;
  }
  int32_t task = (java_abs_mod(p->part_hash, kb->p) + java_abs_mod(h, kb->a)) % kb->p;
  PM_TRY(assign_new(kb, p, task, bucket, err));
  PM_TRY(map_put(p, h, *bucket, err));
  return mark_modified(p, *bucket, err);
}

static int cmp_i32(const void *x, const void *y) {
  int32_t a = *(const int32_t *)x, b = *(const int32_t *)y;
  return a < b ? -1 : a > b;
}

/* c's message of (part, bucket), added when missing. */
static int message_of(pm_manifest_committable *c, const kb_part *p, int32_t bucket, int32_t total_buckets,
                      pm_commit_message **out, pm_error *err) {
  for (size_t i = 0; i < c->n_messages; i++) {
    pm_commit_message *m = &c->messages[i];
    if (m->bucket == bucket && m->partition.len == p->part_len && !memcmp(m->partition.data, p->part, p->part_len)) {
      *out = m;
      return 0;
    }
  }
  pm_commit_message *nm = pm_arena_alloc(&c->arena, (c->n_messages + 1) * sizeof *nm);
  if (!nm) return PM_NOMEM(err);
  if (c->n_messages) memcpy(nm, c->messages, c->n_messages * sizeof *nm);
  c->messages = nm;
  pm_commit_message *m = &nm[c->n_messages++];
  memset(m, 0, sizeof *m);
  m->partition.data = pm_arena_memdup(&c->arena, p->part, p->part_len);
  m->partition.len = p->part_len;
  m->bucket = bucket;
  m->total_buckets = total_buckets;
  m->has_total_buckets = 1;
  if (!m->partition.data) return PM_NOMEM(err);
  *out = m;
  return 0;
}

static int attach(pm_manifest_committable *c, pm_commit_message *m, const char *name, int64_t size, int64_t rows,
                  pm_error *err) {
  pm_index_file_meta *ni = pm_arena_alloc(&c->arena, (m->new_index_files.n + 1) * sizeof *ni);
  if (!ni) return PM_NOMEM(err);
  if (m->new_index_files.n) memcpy(ni, m->new_index_files.items, m->new_index_files.n * sizeof *ni);
  pm_index_file_meta *f = &ni[m->new_index_files.n];
  memset(f, 0, sizeof *f);
  f->index_type = pm_arena_strdup(&c->arena, PM_INDEX_TYPE_HASH);
  f->file_name = pm_arena_strdup(&c->arena, name);
  f->file_size = size;
  f->row_count = rows;
  f->dv_ranges_is_null = 1;
  if (!f->index_type || !f->file_name) return PM_NOMEM(err);
  m->new_index_files.items = ni;
  m->new_index_files.n++;
  return 0;
}

/* Writes bucket's hash set of p as a new index file into c. */
static int write_bucket(pm_kv_buckets *kb, kb_part *p, int32_t bucket, pm_manifest_committable *c, char ***written,
                        size_t *n_written, pm_error *err) {
  size_t n = 0;
  for (size_t i = 0; i < p->cap; i++) n += p->vals[i] == bucket;
  int32_t *h = malloc((n ? n : 1) * sizeof *h);
  if (!h) return PM_NOMEM(err);
  n = 0;
  for (size_t i = 0; i < p->cap; i++)
    if (p->vals[i] == bucket) h[n++] = p->keys[i];
  qsort(h, n, sizeof *h, cmp_i32);
  char name[96];
  snprintf(name, sizeof name, "index-%s-%lld", kb->uuid, (long long)kb->file_counter++);
  char *pdir = NULL, *bdir = NULL, *path = NULL, *dir = NULL;
  pm_bytes pb = {p->part, p->part_len};
  int rc = pm_partition_path(kb->t, pb, &pdir, err);
  if (!rc) rc = pm_table_bucket_path(kb->t, pdir, bucket, &bdir, err);
  if (!rc) rc = pm_table_index_file_path(kb->t, bdir, name, NULL, &path, err);
  if (!rc) {
    dir = strdup(path);
    char *slash = dir ? strrchr(dir, '/') : NULL;
    if (!slash) rc = PM_NOMEM(err);
    else *slash = 0;
  }
  char **nw = rc ? NULL : realloc(*written, (*n_written + 1) * sizeof *nw);
  if (!rc && !nw) rc = PM_NOMEM(err);
  int64_t size = 0;
  if (!rc) {
    *written = nw;
    rc = pm_hash_index_write(kb->t->fs, dir, path, h, n, &size, err);
  }
  if (!rc) {
    (*written)[(*n_written)++] = path;
    path = NULL;
  }
  pm_commit_message *m = NULL;
  if (!rc) rc = message_of(c, p, bucket, kb->t->bucket, &m, err);
  if (!rc) rc = attach(c, m, name, size, (int64_t)n, err);
  free(h);
  free(pdir);
  free(bdir);
  free(path);
  free(dir);
  return rc;
}

int pm_kv_buckets_prepare(pm_kv_buckets *kb, pm_manifest_committable *c, pm_error *err) {
  char **written = NULL;
  size_t n_written = 0;
  int rc = 0;
  for (size_t i = 0; !rc && i < kb->n_parts; i++) {
    kb_part *p = kb->parts[i];
    for (size_t b = 0; !rc && b < p->cap_modified; b++)
      if (p->modified[b]) rc = write_bucket(kb, p, (int32_t)b, c, &written, &n_written, err);
  }
  for (size_t i = 0; i < n_written; i++) {
    if (rc) {
      pm_error e;
      pm_fs_delete(kb->t->fs, written[i], &e);
    }
    free(written[i]);
  }
  free(written);
  if (rc) return rc;
  for (size_t i = 0; i < kb->n_parts; i++)
    if (kb->parts[i]->modified) memset(kb->parts[i]->modified, 0, kb->parts[i]->cap_modified);
  return 0;
}

void pm_kv_buckets_free(pm_kv_buckets *kb) {
  if (!kb) return;
  for (size_t i = 0; i < kb->n_parts; i++) part_free(kb, kb->parts[i]);
  free(kb->parts);
  pm_slot_map_free(&kb->part_map);
  pm_index_entries_clear(&kb->hash_entries);
  pm_row_writer_free(&kb->rw);
  free(kb->cols);
  free(kb->types);
  pm_table_free(kb->t);
  free(kb);
}
