/* Manifest decoding speed, single thread: large manifests shaped like the
 * ones Java writes for a partitioned primary-key table (FORMAT.md 4.4),
 * written with our own manifest encoder (zstandard Avro), then decoded from
 * memory (a) completely and (b) with a partition filter keeping 1% of the
 * entries (lazy decoding: the filter sees the entry head, rejected entries
 * are never materialized).
 *
 *   bench_manifest DIR [RUNS] [ENTRIES] [ENTRIES_PER_MANIFEST] [pk|append]
 *
 * Defaults: 200000 entries in manifests of 50000 (Java rolls manifests at
 * 8 MB; ours come out at a few MB each). Table shape: partition (dt STRING,
 * hr INT), 100 partitions, entry i in partition i % 100, 16 buckets, primary
 * key id BIGINT (min/max key, key stats), value stats over 10 columns (dt, hr,
 * id, user_id, amount DECIMAL(10,2), price DOUBLE, qty INT, status STRING,
 * city STRING, created TIMESTAMP(3)), levels 0..5, sequence numbers,
 * creation time, delete row counts, some extra files, 5% DELETE entries,
 * embedded index null. Shape "append": an append-only table's entries instead
 * (no primary key: empty min/max key rows and key stats, level 0, same value
 * stats). Files are generated into DIR once (deterministic
 * content) and reused. Before timing, sampled entries are compared with the
 * generator and the filtered pass is checked to keep exactly the partition.
 * Output: JSON lines (bench_util.h). */
#include <inttypes.h>
#include <string.h>

#include "bench_util.h"
#include "data/binary_row.h"
#include "data/types.h"
#include "format/avro/avro.h"
#include "io/file.h"
#include "meta/arena.h"
#include "meta/manifest.h"

#define PARTITIONS 100
#define BUCKETS 16
#define N_VALUE_COLS 10
#define TARGET_PARTITION 42

static int append_shape; /* entries of an append-only table (no key) */

/* CPU time of the process: on a loaded machine wall time includes waiting
 * for a core, CPU time does not (single-threaded code here). */
static double cpu_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static const char *VALUE_TYPES[N_VALUE_COLS] = {"STRING", "INT", "BIGINT NOT NULL", "BIGINT", "DECIMAL(10, 2)",
                                                "DOUBLE", "INT", "STRING", "STRING", "TIMESTAMP(3)"};
static const char *STATUS[] = {"CANCELLED", "DELIVERED", "PENDING", "RETURNED", "SHIPPED"};
static const char *CITY[] = {"Amsterdam", "Berlin", "Copenhagen", "Dublin", "Hangzhou", "Lisbon",
                             "Madrid", "Oslo", "Paris", "Rome", "Stockholm", "Zurich"};

typedef struct shape {
  pm_data_field value_fields[N_VALUE_COLS]; /* only .type is used */
  pm_data_field part_fields[2];
  pm_data_type *partition_type; /* ROW<dt STRING, hr INT> for manifest-list stats */
} shape;

static uint64_t mix(uint64_t x) { /* splitmix64 */
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

static int row_bytes(const pm_data_field *fields, const pm_value *vals, int32_t n, pm_arena *arena, pm_bytes *out,
                     pm_error *err) {
  pm_binary_row_writer w;
  PM_TRY(pm_row_writer_init(&w, n, err));
  int rc = 0;
  for (int32_t i = 0; !rc && i < n; i++) rc = pm_row_writer_write(&w, i, fields[i].type, &vals[i], err);
  pm_buf b;
  pm_buf_init(&b);
  if (!rc) rc = pm_row_writer_finish(&w, 1, &b, err);
  pm_row_writer_free(&w);
  if (!rc) {
    out->data = pm_arena_memdup(arena, b.data, b.len);
    out->len = b.len;
    if (!out->data) rc = PM_NOMEM(err);
  }
  pm_buf_free(&b);
  return rc;
}

static pm_value v_int(int64_t x) { return (pm_value){.kind = PM_V_INT, .u.i64 = x}; }
static pm_value v_str(const char *s) {
  pm_value v = {.kind = PM_V_STRING};
  v.u.bytes.data = (const uint8_t *)s;
  v.u.bytes.len = strlen(s);
  return v;
}

static void partition_values(int p, char dt[16], pm_value vals[2]) {
  snprintf(dt, 16, "2025-01-%02d", 1 + p / 4);
  vals[0] = v_str(dt);
  vals[1] = v_int((p % 4) * 6);
}

/* Entry number g, deterministic; memory in arena. */
static int gen_entry(const shape *sh, int64_t g, pm_arena *a, pm_manifest_entry *e, pm_error *err) {
  uint64_t r = mix((uint64_t)g);
  memset(e, 0, sizeof *e);
  int p = (int)(g % PARTITIONS);
  char dt[16];
  pm_value pv[2];
  partition_values(p, dt, pv);
  e->kind = g % 20 == 19 ? PM_FILE_DELETE : PM_FILE_ADD;
  PM_TRY(row_bytes(sh->part_fields, pv, 2, a, &e->partition, err));
  e->bucket = (int32_t)(r % BUCKETS);
  e->total_buckets = BUCKETS;
  pm_data_file_meta *f = &e->file;
  char name[96];
  snprintf(name, sizeof name, "data-%08" PRIx64 "-%04" PRIx64 "-4%03" PRIx64 "-8%03" PRIx64 "-%012" PRIx64 "-%d.parquet",
           r >> 32, (r >> 16) & 0xffff, r & 0xfff, (r >> 20) & 0xfff, (uint64_t)(mix(r) & 0xffffffffffffULL), (int)(g % 7));
  f->file_name = pm_arena_strdup(a, name);
  if (!f->file_name) return PM_NOMEM(err);
  uint64_t r2 = mix(r);
  f->row_count = 10000 + (int64_t)(r2 % 990000);
  f->file_size = f->row_count * 40 + (int64_t)(r2 % 4096);
  int64_t min_id = (int64_t)(r2 % 100000000), max_id = min_id + f->row_count * 3;
  pm_value k0 = v_int(min_id), k1 = v_int(max_id);
  PM_TRY(row_bytes(&sh->value_fields[2], &k0, 1, a, &f->min_key, err));
  PM_TRY(row_bytes(&sh->value_fields[2], &k1, 1, a, &f->max_key, err));
  f->key_stats.min_values = f->min_key;
  f->key_stats.max_values = f->max_key;
  int64_t *kn = pm_arena_alloc(a, sizeof(int64_t));
  int64_t *vn = pm_arena_alloc(a, sizeof(int64_t) * N_VALUE_COLS);
  if (!kn || !vn) return PM_NOMEM(err);
  kn[0] = 0;
  f->key_stats.null_counts = kn;
  f->key_stats.n_null_counts = 1;

  uint64_t r3 = mix(r2);
  pm_value mn[N_VALUE_COLS], mx[N_VALUE_COLS];
  mn[0] = mx[0] = pv[0];
  mn[1] = mx[1] = pv[1];
  mn[2] = k0;
  mx[2] = k1;
  mn[3] = v_int((int64_t)(r3 % 1000));
  mx[3] = v_int(1000000 + (int64_t)(r3 % 9000000));
  mn[4] = (pm_value){.kind = PM_V_DECIMAL};
  mx[4] = (pm_value){.kind = PM_V_DECIMAL};
  pm_decimal_from_int64(&mn[4].u.dec, (int64_t)(r3 % 500), 10, 2);
  pm_decimal_from_int64(&mx[4].u.dec, 99999999 - (int64_t)(r3 % 1000), 10, 2);
  mn[5] = (pm_value){.kind = PM_V_DOUBLE, .u.f64 = (double)(r3 % 100) / 8.0};
  mx[5] = (pm_value){.kind = PM_V_DOUBLE, .u.f64 = 5000.0 + (double)(r3 % 777) / 4.0};
  mn[6] = v_int(1);
  mx[6] = v_int(50 + (int64_t)(r3 % 50));
  mn[7] = v_str(STATUS[r3 % 2]);
  mx[7] = v_str(STATUS[2 + r3 % 3]);
  mn[8] = v_str(CITY[r3 % 4]);
  mx[8] = v_str(CITY[8 + r3 % 4]);
  int64_t t0 = 1735689600000LL + (int64_t)(p / 4) * 86400000LL + (int64_t)(p % 4) * 21600000LL;
  mn[9] = (pm_value){.kind = PM_V_TIMESTAMP, .u.ts = {t0 + (int64_t)(r3 % 1000), 0}};
  mx[9] = (pm_value){.kind = PM_V_TIMESTAMP, .u.ts = {t0 + 21599999 - (int64_t)(r3 % 1000), 0}};
  if (r3 % 13 == 0) mn[8] = mx[8] = (pm_value){.kind = PM_V_NULL}; /* all-null column in this file */
  PM_TRY(row_bytes(sh->value_fields, mn, N_VALUE_COLS, a, &f->value_stats.min_values, err));
  PM_TRY(row_bytes(sh->value_fields, mx, N_VALUE_COLS, a, &f->value_stats.max_values, err));
  for (int i = 0; i < N_VALUE_COLS; i++) vn[i] = (i == 3 || i == 8) ? (int64_t)(r3 >> (8 + i)) % 1000 : 0;
  if (r3 % 13 == 0) vn[8] = f->row_count;
  f->value_stats.null_counts = vn;
  f->value_stats.n_null_counts = N_VALUE_COLS;

  f->level = (int32_t)(g % 6);
  if (append_shape) { /* no primary key: Java writes empty rows and empty key stats */
    f->min_key.data = f->max_key.data = PM_EMPTY_ROW_BYTES;
    f->min_key.len = f->max_key.len = 12;
    pm_simple_stats_empty(&f->key_stats);
    f->level = 0;
  }
  f->min_sequence_number = g * 1000;
  f->max_sequence_number = g * 1000 + f->row_count - 1;
  f->schema_id = g % 3 == 0 ? 0 : 1;
  if (g % 10 == 3) {
    const char **items = pm_arena_alloc(a, sizeof *items);
    char idx[112];
    snprintf(idx, sizeof idx, "%s.index", name);
    if (!items || !(items[0] = pm_arena_strdup(a, idx))) return PM_NOMEM(err);
    f->extra_files.items = items;
    f->extra_files.n = 1;
  }
  f->has_creation_time = 1;
  f->creation_time_millis = 1735718400000LL + g * 37;
  f->has_delete_row_count = 1;
  f->delete_row_count = f->level == 0 ? (int64_t)(r3 % 100) : 0;
  f->file_source = f->level == 0 ? PM_SOURCE_APPEND : PM_SOURCE_COMPACT;
  f->value_stats_cols.is_null = 1;
  f->write_cols.is_null = 1;
  f->write_cols_sequences_is_null = 1;
  return 0;
}

static int shape_init(shape *sh, pm_error *err) {
  memset(sh, 0, sizeof *sh);
  for (int i = 0; i < N_VALUE_COLS; i++) PM_TRY(pm_dtype_parse(VALUE_TYPES[i], &sh->value_fields[i].type, err));
  PM_TRY(pm_dtype_parse("STRING", &sh->part_fields[0].type, err));
  PM_TRY(pm_dtype_parse("INT", &sh->part_fields[1].type, err));
  PM_TRY(pm_dtype_new(PM_DT_ROW, 1, &sh->partition_type, err));
  sh->partition_type->fields = calloc(2, sizeof(pm_data_field));
  if (!sh->partition_type->fields) return PM_NOMEM(err);
  sh->partition_type->n_fields = 2;
  static const char *names[2] = {"dt", "hr"};
  for (int i = 0; i < 2; i++) {
    pm_data_field *f = &sh->partition_type->fields[i];
    f->id = i;
    f->name = strdup(names[i]);
    if (!f->name) return PM_NOMEM(err);
    PM_TRY(pm_dtype_copy(sh->part_fields[i].type, &f->type, err));
  }
  return 0;
}

static void shape_free(shape *sh) {
  for (int i = 0; i < N_VALUE_COLS; i++) pm_dtype_free(sh->value_fields[i].type);
  for (int i = 0; i < 2; i++) pm_dtype_free(sh->part_fields[i].type);
  pm_dtype_free(sh->partition_type);
}

static int write_manifest(const shape *sh, const char *path, int64_t first, size_t n, pm_error *err) {
  pm_manifest_entry *entries = calloc(n, sizeof *entries);
  if (!entries) return PM_NOMEM(err);
  pm_arena a, meta_arena;
  pm_arena_init(&a);
  pm_arena_init(&meta_arena);
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) rc = gen_entry(sh, first + (int64_t)i, &a, &entries[i], err);
  pm_manifest_file_meta meta;
  if (!rc) rc = pm_manifest_write(pm_fs_local(), path, entries, n, sh->partition_type, 0, NULL, &meta_arena, &meta, err);
  pm_arena_free(&a);
  pm_arena_free(&meta_arena);
  free(entries);
  return rc;
}

/* ---- checks ---- */

static int bytes_eq(pm_bytes a, pm_bytes b) { return a.len == b.len && (!a.len || !memcmp(a.data, b.data, a.len)); }

static int stats_eq(const pm_simple_stats *a, const pm_simple_stats *b) {
  if (!bytes_eq(a->min_values, b->min_values) || !bytes_eq(a->max_values, b->max_values)) return 0;
  if (a->n_null_counts != b->n_null_counts || a->null_counts_is_null != b->null_counts_is_null) return 0;
  for (int32_t i = 0; i < a->n_null_counts; i++)
    if (a->null_counts[i] != b->null_counts[i]) return 0;
  return 1;
}

static int entry_eq(const pm_manifest_entry *x, const pm_manifest_entry *y) {
  const pm_data_file_meta *a = &x->file, *b = &y->file;
  if (x->kind != y->kind || !bytes_eq(x->partition, y->partition) || x->bucket != y->bucket ||
      x->total_buckets != y->total_buckets)
    return 0;
  if (strcmp(a->file_name, b->file_name) || a->file_size != b->file_size || a->row_count != b->row_count) return 0;
  if (!bytes_eq(a->min_key, b->min_key) || !bytes_eq(a->max_key, b->max_key)) return 0;
  if (!stats_eq(&a->key_stats, &b->key_stats) || !stats_eq(&a->value_stats, &b->value_stats)) return 0;
  if (a->min_sequence_number != b->min_sequence_number || a->max_sequence_number != b->max_sequence_number ||
      a->schema_id != b->schema_id || a->level != b->level)
    return 0;
  if (a->extra_files.n != b->extra_files.n) return 0;
  for (int32_t i = 0; i < a->extra_files.n; i++)
    if (strcmp(a->extra_files.items[i], b->extra_files.items[i])) return 0;
  if (a->has_creation_time != b->has_creation_time || a->creation_time_millis != b->creation_time_millis) return 0;
  if (a->has_delete_row_count != b->has_delete_row_count || a->delete_row_count != b->delete_row_count) return 0;
  if (a->has_embedded_index != b->has_embedded_index || a->file_source != b->file_source) return 0;
  if (a->value_stats_cols.is_null != b->value_stats_cols.is_null || a->external_path || a->has_first_row_id ||
      !a->write_cols.is_null || !a->write_cols_sequences_is_null)
    return 0;
  return 1;
}

typedef struct filter_ctx {
  const uint8_t *partition;
  size_t len;
} filter_ctx;

static int keep_partition(void *vctx, const pm_entry_head *h) {
  const filter_ctx *c = vctx;
  return h->partition_len == c->len && !memcmp(h->partition, c->partition, c->len);
}

/* Decodes every manifest, sharing one memory cache as a planning pass does;
 * returns entries kept (-1 on error). */
static long long decode_all_with(pm_buf *files, size_t n_files, char **names, const pm_manifest_filters *fs,
                                 int keep, pm_manifest_entries *kept) {
  long long n = 0;
  pm_mem_cache *cache = pm_mem_cache_new(PM_MEM_CACHE_DEFAULT_BYTES);
  if (!cache) return -1;
  for (size_t i = 0; i < n_files && n >= 0; i++) {
    pm_manifest_entries out;
    pm_manifest_entries_init(&out);
    pm_manifest_entries_use_cache(&out, cache);
    pm_error err = {0};
    if (pm_manifest_decode_filtered(files[i].data, files[i].len, names[i], fs, &out, &err)) {
      fprintf(stderr, "%s\n", err.message);
      n = -1;
    } else {
      n += (long long)out.n;
      for (size_t k = 0; keep && k < out.n && n >= 0; k++)
        if (pm_manifest_entries_push(kept, &out.items[k], &err)) n = -1;
    }
    pm_manifest_entries_clear(&out);
  }
  pm_mem_cache_release(cache);
  return n;
}

static long long decode_all(pm_buf *files, size_t n_files, char **names, pm_entry_filter_fn filter, void *ctx,
                            int keep, pm_manifest_entries *kept) {
  pm_manifest_filters fs = {NULL, filter, ctx};
  return decode_all_with(files, n_files, names, &fs, keep, kept);
}

/* Same, the filter given as a head filter (runs before the _FILE record is read). */
static long long decode_all_head(pm_buf *files, size_t n_files, char **names, pm_entry_filter_fn head_filter,
                                 void *ctx, int keep, pm_manifest_entries *kept) {
  pm_manifest_filters fs = {head_filter, NULL, ctx};
  return decode_all_with(files, n_files, names, &fs, keep, kept);
}

/* Only the container work: every block read and decompressed, no record
 * decoded (the floor the codec sets). Returns records seen (-1 on error). */
static long long blocks_only(pm_buf *files, size_t n_files, char **names) {
  long long n = 0;
  for (size_t i = 0; i < n_files; i++) {
    pm_error err = {0};
    pm_file *f = NULL;
    pm_avro_reader *r = NULL;
    int rc = pm_file_from_memory(files[i].data, files[i].len, names[i], &f, &err);
    if (!rc) rc = pm_avro_reader_open(f, &r, &err);
    for (int64_t count = 1; !rc && count > 0;) {
      pm_avro_cursor cur;
      rc = pm_avro_reader_next_block(r, &cur, &count, &err);
      n += count;
    }
    pm_avro_reader_close(r);
    pm_file_close(f);
    if (rc) {
      fprintf(stderr, "%s\n", err.message);
      return -1;
    }
  }
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s DIR [RUNS] [ENTRIES] [ENTRIES_PER_MANIFEST] [pk|append]\n", argv[0]);
    return 2;
  }
  const char *dir = argv[1];
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  long long total = argc > 3 ? atoll(argv[3]) : 200000;
  long long per = argc > 4 ? atoll(argv[4]) : 50000;
  append_shape = argc > 5 && strcmp(argv[5], "append") == 0;
  if (argc > 5 && !append_shape && strcmp(argv[5], "pk") != 0) {
    fprintf(stderr, "shape must be pk or append\n");
    return 2;
  }
  if (runs < 1) runs = 1;
  if (runs > 100) runs = 100;
  if (total < PARTITIONS || per < 1 || total % PARTITIONS) {
    fprintf(stderr, "ENTRIES must be a positive multiple of %d\n", PARTITIONS);
    return 2;
  }
  pm_error err = {0};
  shape sh;
  if (shape_init(&sh, &err) || pm_mkdirs(dir, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  size_t n_files = (size_t)((total + per - 1) / per);
  char **names = calloc(n_files, sizeof *names);
  pm_buf *files = calloc(n_files, sizeof *files);
  size_t bytes = 0;
  double g0 = bench_now_ms();
  for (size_t i = 0; i < n_files; i++) {
    names[i] = malloc(strlen(dir) + 80);
    sprintf(names[i], "%s/manifest-bench-%s%lld-%lld-%zu", dir, append_shape ? "append-" : "", total, per, i);
    long long first = (long long)i * per, n = total - first < per ? total - first : per;
    if (!pm_path_exists(names[i]) && write_manifest(&sh, names[i], first, (size_t)n, &err)) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    pm_buf_init(&files[i]);
    if (pm_read_file(names[i], &files[i], 0, &err)) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    bytes += files[i].len;
  }
  fprintf(stderr, "bench_manifest: %zu manifests, %zu bytes, ready in %.0f ms\n", n_files, bytes,
          bench_now_ms() - g0);

  /* target partition bytes, as the filter compares them */
  pm_arena pa;
  pm_arena_init(&pa);
  char dt[16];
  pm_value pv[2];
  partition_values(TARGET_PARTITION, dt, pv);
  pm_bytes target;
  if (row_bytes(sh.part_fields, pv, 2, &pa, &target, &err)) return 1;
  filter_ctx fc = {target.data, target.len};

  /* checks (also the warm-up) */
  pm_manifest_entries all, some;
  pm_manifest_entries_init(&all);
  pm_manifest_entries_init(&some);
  long long n_all = decode_all(files, n_files, names, NULL, NULL, 1, &all);
  long long n_some = decode_all(files, n_files, names, keep_partition, &fc, 1, &some);
  pm_manifest_entries some_head;
  pm_manifest_entries_init(&some_head);
  long long n_some_head = decode_all_head(files, n_files, names, keep_partition, &fc, 1, &some_head);
  int ok = n_all == total && n_some == total / PARTITIONS && n_some_head == n_some;
  for (size_t i = 0; ok && i < some.n; i++) {
    ok = entry_eq(&some.items[i], &some_head.items[i]);
    if (!ok) fprintf(stderr, "head-filtered entry %zu differs from the filtered one\n", i);
  }
  pm_manifest_entries_clear(&some_head);
  /* size of the same entries without compression, for bytes/entry */
  pm_buf plain;
  pm_buf_init(&plain);
  pm_manifest_write_opts no_codec = {.codec = PM_CODEC_NONE};
  if (ok && pm_manifest_encode(all.items, all.n, &no_codec, &plain, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  size_t plain_bytes = plain.len;
  char *plain_name = "uncompressed";
  for (size_t i = 0; ok && i < all.n; i += 997) {
    pm_arena a;
    pm_arena_init(&a);
    pm_manifest_entry want;
    ok = !gen_entry(&sh, (int64_t)i, &a, &want, &err) && entry_eq(&all.items[i], &want);
    if (!ok) fprintf(stderr, "entry %zu differs from what was written\n", i);
    pm_arena_free(&a);
  }
  for (size_t i = 0; ok && i < some.n; i++) {
    pm_arena a;
    pm_arena_init(&a);
    pm_manifest_entry want;
    int64_t g = TARGET_PARTITION + (int64_t)i * PARTITIONS;
    ok = !gen_entry(&sh, g, &a, &want, &err) && entry_eq(&some.items[i], &want);
    if (!ok) fprintf(stderr, "filtered entry %zu (entry %" PRId64 ") differs from what was written\n", i, g);
    pm_arena_free(&a);
  }
  pm_manifest_entries_clear(&all);
  pm_manifest_entries_clear(&some);
  if (!ok) {
    fprintf(stderr, "bench_manifest: decoded %lld / filtered %lld entries (want %lld / %lld); check failed\n", n_all,
            n_some, total, total / PARTITIONS);
    return 1;
  }
  printf("{\"bench\":\"manifest-info\",\"manifests\":%zu,\"bytes\":%zu,\"uncompressed_bytes\":%zu,"
         "\"entries\":%lld,\"kept\":%lld,\"verified\":true}\n",
         n_files, bytes, plain_bytes, n_all, n_some);
  fflush(stdout);

  double t_full[100], t_filt[100], c_full[100], c_filt[100], c_blocks[100], c_plain[100], c_plain_filt[100];
  double c_head[100], c_plain_head[100];
  for (int r = 0; r < runs; r++) {
    double b0 = cpu_now_ms();
    if (blocks_only(files, n_files, names) != total) return 1;
    double b1 = cpu_now_ms();
    if (decode_all(&plain, 1, &plain_name, NULL, NULL, 0, NULL) != total) return 1;
    double b2 = cpu_now_ms();
    if (decode_all(&plain, 1, &plain_name, keep_partition, &fc, 0, NULL) != total / PARTITIONS) return 1;
    double b3 = cpu_now_ms();
    c_blocks[r] = b1 - b0;
    c_plain[r] = b2 - b1;
    c_plain_filt[r] = b3 - b2;
    double t0 = bench_now_ms(), c0 = cpu_now_ms();
    if (decode_all(files, n_files, names, NULL, NULL, 0, NULL) != total) return 1;
    double t1 = bench_now_ms(), c1 = cpu_now_ms();
    if (decode_all(files, n_files, names, keep_partition, &fc, 0, NULL) != total / PARTITIONS) return 1;
    double t2 = bench_now_ms(), c2 = cpu_now_ms();
    t_full[r] = t1 - t0;
    t_filt[r] = t2 - t1;
    c_full[r] = c1 - c0;
    c_filt[r] = c2 - c1;
    if (decode_all_head(files, n_files, names, keep_partition, &fc, 0, NULL) != total / PARTITIONS) return 1;
    double c3 = cpu_now_ms();
    if (decode_all_head(&plain, 1, &plain_name, keep_partition, &fc, 0, NULL) != total / PARTITIONS) return 1;
    c_head[r] = c3 - c2;
    c_plain_head[r] = cpu_now_ms() - c3;
  }
  /* rows = entries scanned in both cases, so rows_per_s compare directly;
   * the ":cpu" lines hold process CPU time instead of wall time */
  bench_report("manifest-decode", t_full, runs, total);
  bench_report("manifest-decode-filtered-1pct", t_filt, runs, total);
  bench_report("manifest-decode:cpu", c_full, runs, total);
  bench_report("manifest-decode-filtered-1pct:cpu", c_filt, runs, total);
  /* breakdown: zstd blocks only, and decoding the same entries stored uncompressed */
  bench_report("manifest-blocks-only:cpu", c_blocks, runs, total);
  bench_report("manifest-decode-uncompressed:cpu", c_plain, runs, total);
  bench_report("manifest-decode-uncompressed-filtered-1pct:cpu", c_plain_filt, runs, total);
  /* the same partition filter as a head filter: rejected entries skip _FILE undecoded */
  bench_report("manifest-decode-head-filtered-1pct:cpu", c_head, runs, total);
  bench_report("manifest-decode-uncompressed-head-filtered-1pct:cpu", c_plain_head, runs, total);
  pm_buf_free(&plain);

  for (size_t i = 0; i < n_files; i++) {
    pm_buf_free(&files[i]);
    free(names[i]);
  }
  free(files);
  free(names);
  pm_arena_free(&pa);
  shape_free(&sh);
  return 0;
}
