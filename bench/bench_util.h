/* Shared helpers of the benchmark programs: monotonic clock, peak RSS, JSON output. */
#ifndef PM_BENCH_UTIL_H
#define PM_BENCH_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>

static inline double bench_now_ms(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

static inline long bench_peak_rss_kb(void) {
  struct rusage ru;
  getrusage(RUSAGE_SELF, &ru);
  return ru.ru_maxrss;
}

static inline int bench_cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return (x > y) - (x < y);
}

/* Sorts t[0..n) and prints {"min_ms","median_ms",...}. */
static inline void bench_report(const char *name, double *t, int n, long long rows) {
  qsort(t, (size_t)n, sizeof *t, bench_cmp_double);
  printf("{\"bench\":\"%s\",\"rows\":%lld,\"runs\":%d,\"min_ms\":%.3f,\"median_ms\":%.3f,\"rows_per_s\":%.0f,"
         "\"peak_rss_kb\":%ld}\n",
         name, rows, n, t[0], t[n / 2], t[0] > 0 ? rows / (t[0] / 1e3) : 0.0, bench_peak_rss_kb());
}

#endif
