/* Manifest decoding paths added for speed: two-stage (head) filters give the
 * same entries as a full-head filter on Java fixtures; large multi-block
 * manifests decode identically when the entry array is pre-sized from the
 * first block, when appended to a non-empty container and when memory comes
 * back from the arena cache; key stats equal to the keys and runs of one
 * partition are shared, not copied. */
#include <inttypes.h>

#include "harness.h"
#include "io/file.h"
#include "meta/manifest.h"

#define PK09_MANIFEST \
  PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09/manifest/manifest-8cf79434-32e4-4029-bf8e-befe856d268f-0")

typedef struct counts {
  int head_calls, full_calls, head_saw_level;
  const pm_manifest_entry *first;
} counts;

static int head_bucket1(void *ctx, const pm_entry_head *h) {
  counts *c = ctx;
  c->head_calls++;
  if (h->level != -1) c->head_saw_level++;
  return h->bucket == 1;
}

static int full_level(void *ctx, const pm_entry_head *h) {
  counts *c = ctx;
  c->full_calls++;
  return h->level == c->first->file.level && h->file_name != NULL;
}

static int both(void *ctx, const pm_entry_head *h) { return head_bucket1(ctx, h) && full_level(ctx, h); }

static void test_head_filter_fixture(void) {
  pm_error err = {0};
  pm_manifest_entries all, one_stage, two_stage;
  pm_manifest_entries_init(&all);
  pm_manifest_entries_init(&one_stage);
  pm_manifest_entries_init(&two_stage);
  CHECK_OK(pm_manifest_read(pm_fs_local(), PK09_MANIFEST, NULL, NULL, &all, &err), &err);
  CHECK(all.n > 2);
  if (all.n == 0) return;
  counts c1 = {0, 0, 0, &all.items[0]}, c2 = {0, 0, 0, &all.items[0]};
  CHECK_OK(pm_manifest_read(pm_fs_local(), PK09_MANIFEST, both, &c1, &one_stage, &err), &err);
  pm_manifest_filters fs = {head_bucket1, full_level, &c2};
  CHECK_OK(pm_manifest_read_filtered(pm_fs_local(), PK09_MANIFEST, &fs, &two_stage, &err), &err);
  size_t expect = 0, pass_head = 0;
  for (size_t i = 0; i < all.n; i++) {
    pass_head += all.items[i].bucket == 1;
    expect += all.items[i].bucket == 1 && all.items[i].file.level == all.items[0].file.level;
  }
  CHECK(pass_head > 0 && pass_head < all.n);
  CHECK_EQ_INT(one_stage.n, expect);
  CHECK_EQ_INT(two_stage.n, expect);
  CHECK_EQ_INT(c2.head_calls, (int)all.n);
  CHECK_EQ_INT(c2.full_calls, (int)pass_head); /* rejected entries never reach the second stage */
  /* (a 0.9 manifest: the generic path may show the head stage the full head) */
  for (size_t i = 0; i < two_stage.n && i < one_stage.n; i++) {
    CHECK_EQ_STR(two_stage.items[i].file.file_name, one_stage.items[i].file.file_name);
    CHECK_EQ_INT(two_stage.items[i].file.row_count, one_stage.items[i].file.row_count);
    CHECK_EQ_INT(two_stage.items[i].bucket, 1);
  }
  /* consecutive entries of one partition share one copy of its bytes */
  int runs = 0, unshared = 0;
  for (size_t i = 1; i < all.n; i++) {
    const pm_bytes *a = &all.items[i - 1].partition, *b = &all.items[i].partition;
    if (a->len == b->len && !memcmp(a->data, b->data, a->len)) {
      runs++;
      unshared += a->data != b->data;
    }
  }
  CHECK(runs > 0);
  CHECK_EQ_INT(unshared, 0);
  /* NULL filters keep everything */
  pm_manifest_entries none;
  pm_manifest_entries_init(&none);
  CHECK_OK(pm_manifest_read_filtered(pm_fs_local(), PK09_MANIFEST, NULL, &none, &err), &err);
  CHECK_EQ_INT(none.n, all.n);
  pm_manifest_entries_clear(&none);
  pm_manifest_entries_clear(&all);
  pm_manifest_entries_clear(&one_stage);
  pm_manifest_entries_clear(&two_stage);
}

/* ---- a generated multi-block manifest ---- */

#define N_GEN 6000

typedef struct gen {
  pm_arena arena;
  pm_manifest_entry *e;
} gen;

static pm_bytes row_of(pm_arena *a, int64_t v) { /* arity 1 BinaryRow holding one BIGINT */
  uint8_t b[20] = {0, 0, 0, 1};
  for (int k = 0; k < 8; k++) b[12 + k] = (uint8_t)((uint64_t)v >> (8 * k));
  pm_bytes r = {pm_arena_memdup(a, b, sizeof b), sizeof b};
  return r;
}

static void gen_init(gen *g) {
  pm_arena_init(&g->arena);
  g->e = calloc(N_GEN, sizeof *g->e);
  for (int i = 0; i < N_GEN; i++) {
    pm_manifest_entry *e = &g->e[i];
    char name[64];
    snprintf(name, sizeof name, "data-%06d-%08x.parquet", i, (unsigned)(i * 2654435761u));
    e->kind = i % 17 == 0 ? PM_FILE_DELETE : PM_FILE_ADD;
    e->partition = row_of(&g->arena, i % 10);
    e->bucket = i % 4;
    e->total_buckets = 4;
    pm_data_file_meta *f = &e->file;
    f->file_name = pm_arena_strdup(&g->arena, name);
    f->file_size = 1000 + i;
    f->row_count = 10 + i;
    f->min_key = row_of(&g->arena, i * 10);
    f->max_key = row_of(&g->arena, i * 10 + 9);
    /* key stats with the same bytes as the keys (separate copies), as Java writes for one key column */
    f->key_stats.min_values = row_of(&g->arena, i * 10);
    f->key_stats.max_values = row_of(&g->arena, i * 10 + 9);
    int64_t *nc = pm_arena_alloc(&g->arena, 2 * sizeof(int64_t));
    nc[0] = 0;
    nc[1] = i % 3 == 0 ? PM_NULL_COUNT_UNKNOWN : i;
    f->key_stats.null_counts = nc;
    f->key_stats.n_null_counts = 2;
    pm_simple_stats_empty(&f->value_stats);
    f->min_sequence_number = i;
    f->max_sequence_number = i + 5;
    f->level = i % 5;
    f->has_creation_time = 1;
    f->creation_time_millis = 1700000000000LL + i;
    f->file_source = (int8_t)(i % 2);
    f->value_stats_cols.is_null = 1;
    f->write_cols.is_null = 1;
    f->write_cols_sequences_is_null = 1;
    if (i % 7 == 0) {
      const char **items = pm_arena_alloc(&g->arena, sizeof *items);
      items[0] = pm_arena_strdup(&g->arena, "extra.index");
      f->extra_files.items = items;
      f->extra_files.n = 1;
    }
  }
}

static int bytes_eq(pm_bytes a, pm_bytes b) { return a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len)); }

static int same_entry(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  const pm_data_file_meta *x = &a->file, *y = &b->file;
  if (a->kind != b->kind || a->bucket != b->bucket || a->total_buckets != b->total_buckets) return 0;
  if (!bytes_eq(a->partition, b->partition) || strcmp(x->file_name, y->file_name)) return 0;
  if (x->file_size != y->file_size || x->row_count != y->row_count || x->level != y->level) return 0;
  if (!bytes_eq(x->min_key, y->min_key) || !bytes_eq(x->max_key, y->max_key)) return 0;
  if (!bytes_eq(x->key_stats.min_values, y->key_stats.min_values) ||
      !bytes_eq(x->key_stats.max_values, y->key_stats.max_values))
    return 0;
  if (x->key_stats.n_null_counts != y->key_stats.n_null_counts) return 0;
  for (int32_t k = 0; k < x->key_stats.n_null_counts; k++)
    if (x->key_stats.null_counts[k] != y->key_stats.null_counts[k]) return 0;
  if (!bytes_eq(x->value_stats.min_values, y->value_stats.min_values)) return 0;
  if (x->min_sequence_number != y->min_sequence_number || x->max_sequence_number != y->max_sequence_number) return 0;
  if (x->creation_time_millis != y->creation_time_millis || x->has_creation_time != y->has_creation_time) return 0;
  if (x->file_source != y->file_source || x->extra_files.n != y->extra_files.n) return 0;
  for (int32_t k = 0; k < x->extra_files.n; k++)
    if (strcmp(x->extra_files.items[k], y->extra_files.items[k])) return 0;
  return 1;
}

static int keep_partition3(void *ctx, const pm_entry_head *h) {
  if (ctx && (h->level != -1 || h->file_name)) (*(int *)ctx)++; /* head stage saw _FILE fields */
  return h->partition_len == 20 && h->partition[12] == 3;
}

static void test_generated(void) {
  gen g;
  gen_init(&g);
  pm_error err = {0};
  pm_buf file;
  pm_buf_init(&file);
  CHECK_OK(pm_manifest_encode(g.e, N_GEN, NULL, &file, &err), &err);
  for (int round = 0; round < 3; round++) { /* later rounds reuse cached memory */
    pm_manifest_entries v;
    pm_manifest_entries_init(&v);
    /* round 1 appends after existing entries (the size guess must account for them) */
    if (round == 1) CHECK_OK(pm_manifest_decode(file.data, file.len, "gen", NULL, NULL, &v, &err), &err);
    size_t base = v.n;
    CHECK_OK(pm_manifest_decode(file.data, file.len, "gen", NULL, NULL, &v, &err), &err);
    CHECK_EQ_INT(v.n - base, N_GEN);
    int bad = 0, shared = 0;
    for (size_t i = 0; i < N_GEN && i + base < v.n; i++) {
      const pm_manifest_entry *e = &v.items[base + i];
      bad += !same_entry(e, &g.e[i]);
      shared += e->file.key_stats.min_values.data == e->file.min_key.data &&
                e->file.key_stats.max_values.data == e->file.max_key.data;
      if (base) bad += !same_entry(&v.items[i], &g.e[i]);
    }
    CHECK_EQ_INT(bad, 0);
    CHECK_EQ_INT(shared, N_GEN);
    pm_manifest_entries_clear(&v);

    pm_manifest_entries f1, f2;
    pm_manifest_entries_init(&f1);
    pm_manifest_entries_init(&f2);
    int saw_file = 0;
    pm_manifest_filters head = {keep_partition3, NULL, &saw_file};
    CHECK_OK(pm_manifest_decode(file.data, file.len, "gen", keep_partition3, NULL, &f1, &err), &err);
    CHECK_OK(pm_manifest_decode_filtered(file.data, file.len, "gen", &head, &f2, &err), &err);
    CHECK_EQ_INT(saw_file, 0); /* current layout: the head stage runs before _FILE is read */
    CHECK_EQ_INT(f1.n, N_GEN / 10);
    CHECK_EQ_INT(f2.n, N_GEN / 10);
    for (size_t i = 0; i < f1.n && i < f2.n; i++) {
      bad += !same_entry(&f1.items[i], &g.e[3 + 10 * i]) || !same_entry(&f2.items[i], &g.e[3 + 10 * i]);
    }
    CHECK_EQ_INT(bad, 0);
    pm_manifest_entries_clear(&f1);
    pm_manifest_entries_clear(&f2);
  }
  /* a truncated copy still fails cleanly on every path */
  pm_manifest_entries v;
  pm_manifest_entries_init(&v);
  pm_manifest_filters head = {keep_partition3, NULL, NULL};
  CHECK(pm_manifest_decode(file.data, file.len - 40, "gen", NULL, NULL, &v, &err) != 0);
  pm_manifest_entries_clear(&v);
  CHECK(pm_manifest_decode_filtered(file.data, file.len - 40, "gen", &head, &v, &err) != 0);
  pm_manifest_entries_clear(&v);
  pm_buf_free(&file);
  pm_arena_free(&g.arena);
  free(g.e);
}

static void test_big_alloc_cache(void) {
  pm_mem_cache *cache = pm_mem_cache_new(PM_MEM_CACHE_DEFAULT_BYTES);
  CHECK(cache != NULL);
  if (!cache) return;
  size_t got = 0;
  uint8_t *p = pm_big_alloc(cache, 3u << 20, &got);
  CHECK(p != NULL && got >= (3u << 20));
  if (p) memset(p, 7, got);
  uintptr_t p_addr = (uintptr_t)p;
  pm_big_free(cache, p, got);
  size_t got2 = 0;
  uint8_t *q = pm_big_alloc(cache, 2u << 20, &got2); /* smaller request reuses the cached 3 MiB buffer */
  CHECK((uintptr_t)q == p_addr && got2 == got);
  pm_big_free(cache, q, got2);
  uint8_t *s = pm_big_alloc(cache, 100, &got2); /* small: plain malloc */
  CHECK(s != NULL && got2 == 100);
  pm_big_free(cache, s, got2);
  uint8_t *n = pm_big_alloc(NULL, 3u << 20, &got2); /* no cache: plain malloc */
  CHECK(n != NULL && got2 == (3u << 20));
  pm_big_free(NULL, n, got2);

  /* Arenas sharing the cache: the second reuses the first's chunks; the
   * arenas keep the cache alive after its creator lets go. */
  pm_arena a, b;
  pm_arena_init(&a);
  pm_arena_init(&b);
  pm_arena_use_cache(&a, cache);
  pm_arena_use_cache(&b, cache);
  pm_mem_cache_release(cache);
  for (int i = 0; i < 40; i++) CHECK(pm_arena_alloc(&a, 200000) != NULL);
  pm_arena_free(&a);
  for (int i = 0; i < 40; i++) CHECK(pm_arena_alloc(&b, 200000) != NULL); /* from the cache */
  pm_arena_free(&b);                                                        /* last reference: memory returned */
}

int main(void) {
  RUN_TEST(test_head_filter_fixture);
  RUN_TEST(test_generated);
  RUN_TEST(test_big_alloc_cache);
  TEST_MAIN_END();
}
