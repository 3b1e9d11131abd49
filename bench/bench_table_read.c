/* Table read through the public API (catalog -> read builder -> plan -> read
 * every split as an Arrow stream, single thread) against a raw scan of the
 * same Parquet data files with the Parquet reader (as bench_parquet_scan does).
 *
 *   bench_table_read WAREHOUSE TABLE RUNS compare   append table: raw scan vs table read
 *   bench_table_read WAREHOUSE TABLE RUNS pk        PK table: raw scan vs merged read
 *   bench_table_read WAREHOUSE TABLE 1 mem          one table read only, one split per
 *                                                   file (small split target), for peak RSS
 *
 * TABLE is a table of database "default" written by gen_table: data files
 * in TABLE/bucket-0 (*.parquet), id = column 0. Before timing, the table read is
 * checked against the raw files: same row count and same sum of ids (append);
 * for the PK table, ids strictly increasing (merge order) and the row count
 * equal to the raw rows (gen_table's runs have disjoint interleaved keys).
 * Runs alternate raw / table so that machine load hits both alike; each side
 * reports its best run. Output: JSON lines (bench_util.h) plus an "info" line. */
#include <inttypes.h>
#include <string.h>

#include "bench_util.h"
#include "format/parquet/parquet_reader.h"
#include "io/file.h"
#include "paimon/paimon.h"

/* Process CPU time: on a loaded machine wall time also counts waiting for a
 * core. Reads run single-threaded here (read.parallelism 1). */
static double cpu_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

typedef struct read_stats {
  long long rows;
  long long id_sum;
  int ids_increasing; /* 1 while every id is greater than the previous one */
  long long last_id;
  size_t splits;
} read_stats;

static void stats_reset(read_stats *s) {
  memset(s, 0, sizeof *s);
  s->ids_increasing = 1;
  s->last_id = INT64_MIN;
}

/* Column 0 (id, int64) of a struct batch. */
static void account(read_stats *s, const struct ArrowArray *batch, int check_ids) {
  s->rows += batch->length;
  if (!check_ids || batch->n_children < 1) return;
  const struct ArrowArray *c = batch->children[0];
  const int64_t *v = (const int64_t *)c->buffers[1] + c->offset;
  for (int64_t i = 0; i < c->length; i++) {
    s->id_sum += v[i];
    if (v[i] <= s->last_id) s->ids_increasing = 0;
    s->last_id = v[i];
  }
}

/* ---- raw scan ---- */

static int list_data_files(const char *table_dir, char ***paths, size_t *n) {
  char dir[2048];
  snprintf(dir, sizeof dir, "%s/bucket-0", table_dir);
  char **names = NULL;
  size_t count = 0;
  pm_error err = {0};
  if (pm_list_dir(dir, &names, &count, &err)) {
    fprintf(stderr, "%s\n", err.message);
    return 1;
  }
  *paths = calloc(count ? count : 1, sizeof **paths);
  *n = 0;
  for (size_t i = 0; i < count; i++) {
    size_t len = strlen(names[i]);
    if (len < 8 || strcmp(names[i] + len - 8, ".parquet")) continue;
    char *p = malloc(strlen(dir) + len + 2);
    sprintf(p, "%s/%s", dir, names[i]);
    (*paths)[(*n)++] = p;
  }
  pm_free_names(names, count);
  return *n ? 0 : 1;
}

static int raw_scan(char **paths, size_t n, read_stats *s, int id_column) {
  pm_error err = {0};
  stats_reset(s);
  for (size_t f = 0; f < n; f++) {
    pm_pq_read_options opt;
    pm_pq_read_options_init(&opt);
    pm_pq_reader *r;
    if (pm_pq_reader_open_path(paths[f], &opt, &r, &err)) {
      fprintf(stderr, "%s\n", err.message);
      return 1;
    }
    for (;;) {
      struct ArrowArray a;
      if (pm_pq_reader_next(r, &a, &err)) {
        fprintf(stderr, "%s\n", err.message);
        pm_pq_reader_close(r);
        return 1;
      }
      if (!a.release) break;
      s->rows += a.length;
      if (id_column >= 0 && id_column < a.n_children) {
        const struct ArrowArray *c = a.children[id_column];
        const int64_t *v = (const int64_t *)c->buffers[1] + c->offset;
        for (int64_t i = 0; i < c->length; i++) s->id_sum += v[i];
      }
      a.release(&a);
    }
    pm_pq_reader_close(r);
  }
  return 0;
}

/* ---- table read through the public API ---- */

static int table_read(const char *warehouse, const char *table, const paimon_option *dyn, size_t n_dyn,
                      read_stats *s, int check_ids) {
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream stream = {0};
  char ident[512];
  snprintf(ident, sizeof ident, "default.%s", table);
  paimon_option copt[] = {{"warehouse", warehouse}};
  stats_reset(s);
  int rc = paimon_catalog_open(copt, 1, &cat, &err);
  if (!rc) rc = paimon_catalog_get_table(cat, ident, &t, &err);
  if (!rc) rc = paimon_read_builder_new(t, dyn, n_dyn, &rb, &err);
  if (!rc) rc = paimon_read_builder_plan(rb, &plan, &err);
  if (!rc) {
    s->splits = paimon_plan_num_splits(plan);
    rc = paimon_read_plan(rb, plan, &stream, &err);
  }
  while (!rc) {
    struct ArrowArray a;
    if (stream.get_next(&stream, &a)) {
      const char *m = stream.get_last_error ? stream.get_last_error(&stream) : NULL;
      fprintf(stderr, "%s: read: %s\n", table, m ? m : "error");
      rc = 1;
      break;
    }
    if (!a.release) break;
    account(s, &a, check_ids);
    a.release(&a);
  }
  if (rc && err.code) fprintf(stderr, "%s: %s\n", table, err.message);
  if (stream.release) stream.release(&stream);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return rc;
}

int main(int argc, char **argv) {
  if (argc != 5 || (strcmp(argv[4], "compare") && strcmp(argv[4], "pk") && strcmp(argv[4], "mem"))) {
    fprintf(stderr, "usage: %s WAREHOUSE TABLE RUNS compare|pk|mem\n", argv[0]);
    return 2;
  }
  const char *wh = argv[1], *table = argv[2], *mode = argv[4];
  int runs = atoi(argv[3]);
  if (runs < 1) runs = 1;
  if (runs > 100) runs = 100;
  int pk = !strcmp(mode, "pk");
  /* single-threaded read; mem: one split per data file */
  paimon_option dyn[] = {{"read.parallelism", "1"}, {"source.split.target-size", "1 kb"},
                         {"source.split.open-file-cost", "1 kb"}};
  size_t n_dyn = !strcmp(mode, "mem") ? 3 : 1;

  read_stats ts;
  if (!strcmp(mode, "mem")) {
    double t0 = bench_now_ms();
    if (table_read(wh, table, dyn, n_dyn, &ts, 0)) return 1;
    double t = bench_now_ms() - t0;
    char name[300];
    snprintf(name, sizeof name, "table-read-mem:%s", table);
    printf("{\"bench\":\"%s-info\",\"splits\":%zu}\n", name, ts.splits);
    bench_report(name, &t, 1, ts.rows);
    return 0;
  }

  char table_dir[1500];
  snprintf(table_dir, sizeof table_dir, "%s/default.db/%s", wh, table);
  char **paths = NULL;
  size_t n_paths = 0;
  if (list_data_files(table_dir, &paths, &n_paths)) {
    fprintf(stderr, "%s: no data files in bucket-0\n", table_dir);
    return 1;
  }
  /* PK files: _KEY_id, _SEQUENCE_NUMBER, _VALUE_KIND, id, ...: id is column 3 */
  int raw_id_col = pk ? 3 : 0;

  /* warm-up + correctness check */
  read_stats rs;
  if (raw_scan(paths, n_paths, &rs, raw_id_col)) return 1;
  if (table_read(wh, table, dyn, n_dyn, &ts, 1)) return 1;
  if (ts.rows != rs.rows || ts.id_sum != rs.id_sum || (pk && !ts.ids_increasing)) {
    fprintf(stderr,
            "%s: table read does not match the data files: rows %lld vs raw %lld, id sum %lld vs %lld%s\n", table,
            ts.rows, rs.rows, ts.id_sum, rs.id_sum, pk && !ts.ids_increasing ? ", merged ids not increasing" : "");
    return 1;
  }
  printf("{\"bench\":\"table-read-info:%s\",\"files\":%zu,\"splits\":%zu,\"rows\":%lld,\"verified\":true}\n", table,
         n_paths, ts.splits, ts.rows);
  fflush(stdout);

  double t_raw[100], t_table[100], c_raw[100], c_table[100];
  for (int i = 0; i < runs; i++) {
    double t0 = bench_now_ms(), c0 = cpu_now_ms();
    if (raw_scan(paths, n_paths, &rs, -1)) return 1;
    double t1 = bench_now_ms(), c1 = cpu_now_ms();
    if (table_read(wh, table, dyn, n_dyn, &ts, 0)) return 1;
    double t2 = bench_now_ms(), c2 = cpu_now_ms();
    t_raw[i] = t1 - t0;
    t_table[i] = t2 - t1;
    c_raw[i] = c1 - c0;
    c_table[i] = c2 - c1;
  }
  char name[300];
  snprintf(name, sizeof name, "%s:%s", pk ? "pk-raw-scan" : "raw-scan", table);
  bench_report(name, t_raw, runs, rs.rows);
  snprintf(name, sizeof name, "%s:%s", pk ? "pk-merge-read" : "table-read", table);
  bench_report(name, t_table, runs, ts.rows);
  snprintf(name, sizeof name, "%s:%s:cpu", pk ? "pk-raw-scan" : "raw-scan", table);
  bench_report(name, c_raw, runs, rs.rows);
  snprintf(name, sizeof name, "%s:%s:cpu", pk ? "pk-merge-read" : "table-read", table);
  bench_report(name, c_table, runs, ts.rows);
  for (size_t i = 0; i < n_paths; i++) free(paths[i]);
  free(paths);
  return 0;
}
