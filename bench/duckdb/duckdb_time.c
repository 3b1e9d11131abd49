/* Times one SQL statement in DuckDB, single-threaded, in-process (after a
 * warm-up run), so it compares fairly with our in-process timers.
 *   duckdb_time RUNS "SQL" ["SETUP SQL"]  ->  {"min_ms":..,"median_ms":..}
 * The optional setup statement runs once, untimed (e.g. loading a table).
 * Built by bench/run against the DuckDB loader header of the shared oracle
 * tools (dlopen, no link-time dependency); never part of the library. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "duckdb_min.h"

static double now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static int cmp(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

static int run(struct duckdb_min *d, duckdb_connection con, const char *sql) {
  duckdb_result res;
  if (d->query(con, sql, &res) != DuckDBSuccess) {
    fprintf(stderr, "duckdb: %s\n  in: %s\n", d->result_error(&res), sql);
    d->destroy_result(&res);
    return -1;
  }
  d->destroy_result(&res);
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 3) {
    fprintf(stderr, "usage: LIBDUCKDB=... %s RUNS SQL\n", argv[0]);
    return 2;
  }
  int runs = atoi(argv[1]);
  if (runs < 1 || runs > 100) return 2;
  const char *err = NULL;
  struct duckdb_min d;
  if (duckdb_min_load(&d, getenv("LIBDUCKDB"), &err)) {
    fprintf(stderr, "load: %s\n", err);
    return 1;
  }
  duckdb_database db;
  duckdb_connection con;
  if (d.open(NULL, &db) != DuckDBSuccess || d.connect(db, &con) != DuckDBSuccess) return 1;
  if (run(&d, con, "SET threads = 1") || run(&d, con, "SET enable_object_cache = false")) return 1;
  if (argc > 3 && run(&d, con, argv[3])) return 1;
  double *t = calloc((size_t)runs, sizeof *t);
  for (int r = 0; r <= runs; r++) {
    double t0 = now_ms();
    if (run(&d, con, argv[2])) return 1;
    if (r) t[r - 1] = now_ms() - t0;
  }
  qsort(t, (size_t)runs, sizeof *t, cmp);
  printf("{\"min_ms\":%.3f,\"median_ms\":%.3f}\n", t[0], t[runs / 2]);
  free(t);
  d.disconnect(&con);
  d.close(&db);
  return 0;
}
