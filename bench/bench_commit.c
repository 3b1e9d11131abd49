/* Commit-path benchmarks (issue 11 §6), single thread, through our committer
 * (src/table/commit.h) with the table's default manifest options
 * (manifest.target-file-size 8 MB, merge-min-count 30, full compaction 16 MB):
 *
 *   latency  one single-file APPEND commit onto a table with SNAPSHOTS snapshots
 *            and SNAPSHOTS x FILES live files (default 1,000 x 10 = 10,000):
 *            the table is built once into DIR/commit_<S>x<F> (one commit per
 *            snapshot), copied to DIR/commit_work, then RUNS commits are timed
 *            one by one (each lands one snapshot more: S+1, S+2, ...);
 *   plan     planning the latest snapshot (pm_scan_plan on a fresh table handle)
 *            after SNAPSHOTS single-file commits vs the same number of files
 *            committed at once (DIR/plan_<S>x1, DIR/plan_1x<S>); best of RUNS.
 *
 *   bench_commit DIR [RUNS] [SNAPSHOTS] [FILES]
 *
 * Data files are referenced, not written (metadata work only: committing and
 * planning never open them). Every timed commit and plan is checked (snapshot
 * id, live file count). Output: JSON lines (bench_util.h conventions). */
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>

#include "bench_meta_table.h"
#include "bench_util.h"
#include "meta/path_factory.h"
#include "meta/snapshot.h"
#include "meta/wire.h"
#include "table/commit.h"
#include "table/scan.h"
#include "table/table.h"

/* Builds dir with `commits` commits of `files` files each (once: a marker file says it is complete). */
static int build_table(const char *dir, int64_t commits, size_t files, pm_error *err) {
  char marker[2100];
  snprintf(marker, sizeof marker, "%s.complete", dir);
  struct stat st;
  if (stat(marker, &st) == 0) return 0;
  PM_TRY(bench_make_table(dir, err));
  pm_table *t = NULL;
  PM_TRY(bench_open_table(dir, &t, err));
  pm_path_factory pf;
  pm_path_factory_init(&pf, t->fs, t->root);
  pm_commit *c = NULL;
  int rc = pm_commit_open(t, "bench-commit", 0, &c, err);
  double t0 = bench_now_ms();
  for (int64_t i = 0; !rc && i < commits; i++) {
    pm_manifest_committable *m = bench_committable(t, &pf, files);
    int64_t sid = 0;
    rc = m ? pm_commit_append(c, m, 0, &sid, err) : PM_NOMEM(err);
    if (!rc && sid != i + 1) rc = pm_errorf(err, PAIMON_ERR_IO, "commit %" PRId64 " wrote snapshot %" PRId64, i + 1, sid);
    pm_committable_free(m);
  }
  pm_commit_free(c);
  pm_table_free(t);
  if (!rc) {
    fprintf(stderr, "bench_commit: built %s (%" PRId64 " commits of %zu files) in %.0f ms\n", dir, commits, files,
            bench_now_ms() - t0);
    rc = pm_fs_write_file(pm_fs_local(), marker, "", 0, PM_OUT_OVERWRITE, err);
  }
  return rc;
}

static size_t plan_files(const pm_plan *p) {
  size_t n = 0;
  for (size_t i = 0; i < p->n_splits; i++) n += p->splits[i]->n_data_files;
  return n;
}

/* Best-of-runs planning time of the latest snapshot; checks the live file count. */
static int time_plan(const char *dir, int runs, size_t want_files, double *t, double *cpu, pm_error *err) {
  for (int r = 0; r < runs; r++) {
    pm_table *tb = NULL;
    PM_TRY(bench_open_table(dir, &tb, err));
    pm_plan *p = NULL;
    double t0 = bench_now_ms(), c0 = bench_cpu_ms();
    int rc = pm_scan_plan(tb, NULL, -1, &p, err);
    t[r] = bench_now_ms() - t0;
    cpu[r] = bench_cpu_ms() - c0;
    if (!rc && plan_files(p) != want_files)
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: plan has %zu files, %zu committed", dir, plan_files(p), want_files);
    pm_plan_free(p);
    pm_table_free(tb);
    PM_TRY(rc);
  }
  return 0;
}

int main(int argc, char **argv) {
  if (argc < 2 || strlen(argv[1]) > 900) {
    fprintf(stderr, "usage: bench_commit DIR [RUNS] [SNAPSHOTS] [FILES]\n");
    return 2;
  }
  const char *dir = argv[1];
  int runs = argc > 2 ? atoi(argv[2]) : 5;
  int64_t snaps = argc > 3 ? atoll(argv[3]) : 1000;
  size_t files = argc > 4 ? (size_t)atoll(argv[4]) : 10;
  if (runs < 1 || snaps < 1 || files < 1) return 2;
  pm_error err;
  memset(&err, 0, sizeof err);
  char tmpl[1024], work[1024], cmd[4200];
  snprintf(tmpl, sizeof tmpl, "%s/commit_%" PRId64 "x%zu", dir, snaps, files);
  snprintf(work, sizeof work, "%s/commit_work", dir);
  snprintf(cmd, sizeof cmd, "mkdir -p '%s'", dir);
  if (system(cmd) != 0) return 1;
  int plan_only = getenv("BENCH_COMMIT_PLAN_ONLY") != NULL; /* (for profiling planning alone) */
  int rc = plan_only ? 0 : build_table(tmpl, snaps, files, &err);

  /* latency: RUNS single-file commits onto a copy of the table */
  double *t = calloc((size_t)runs, sizeof *t), *tc = calloc((size_t)runs, sizeof *tc);
  if (!rc && !plan_only) {
    snprintf(cmd, sizeof cmd, "rm -rf '%s' && cp -a '%s' '%s'", work, tmpl, work);
    if (system(cmd) != 0) rc = pm_errorf(&err, PAIMON_ERR_IO, "cannot copy %s", tmpl);
  }
  pm_table *tb = NULL;
  pm_commit *c = NULL;
  if (!rc && !plan_only) rc = bench_open_table(work, &tb, &err);
  pm_path_factory pf;
  if (!rc && !plan_only) {
    pm_path_factory_init(&pf, tb->fs, tb->root);
    rc = pm_commit_open(tb, "bench-latency", 0, &c, &err);
  }
  for (int r = 0; !rc && !plan_only && r < runs; r++) {
    pm_manifest_committable *m = bench_committable(tb, &pf, 1);
    int64_t sid = 0;
    double t0 = bench_now_ms(), c0 = bench_cpu_ms();
    rc = m ? pm_commit_append(c, m, 0, &sid, &err) : PM_NOMEM(&err);
    t[r] = bench_now_ms() - t0;
    tc[r] = bench_cpu_ms() - c0;
    if (!rc && sid != snaps + r + 1) rc = pm_errorf(&err, PAIMON_ERR_IO, "commit wrote snapshot %" PRId64, sid);
    pm_committable_free(m);
  }
  pm_commit_free(c);
  pm_table_free(tb);
  if (!rc && !plan_only) {
    /* the table after the timed commits: every file live */
    double pt = 0, pc = 0;
    rc = time_plan(work, 1, (size_t)snaps * files + (size_t)runs, &pt, &pc, &err);
  }
  if (!rc && !plan_only) {
    qsort(t, (size_t)runs, sizeof *t, bench_cmp_double);
    qsort(tc, (size_t)runs, sizeof *tc, bench_cmp_double);
    printf("{\"bench\":\"commit_latency\",\"snapshots\":%" PRId64 ",\"live_files\":%" PRId64
           ",\"runs\":%d,\"min_ms\":%.3f,\"median_ms\":%.3f,\"max_ms\":%.3f,\"cpu_min_ms\":%.3f,"
           "\"cpu_median_ms\":%.3f,\"peak_rss_kb\":%ld}\n",
           snaps, snaps * (int64_t)files, runs, t[0], t[runs / 2], t[runs - 1], tc[0], tc[runs / 2],
           bench_peak_rss_kb());
    fflush(stdout);
  }

  /* planning: S single-file commits vs S files at once */
  char many[2048], once[2048];
  snprintf(many, sizeof many, "%s/plan_%" PRId64 "x1", dir, snaps);
  snprintf(once, sizeof once, "%s/plan_1x%" PRId64, dir, snaps);
  if (!rc) rc = build_table(many, snaps, 1, &err);
  if (!rc) rc = build_table(once, 1, (size_t)snaps, &err);
  double *a = calloc((size_t)runs, sizeof *a), *b = calloc((size_t)runs, sizeof *b);
  double *ac = calloc((size_t)runs, sizeof *ac), *bc = calloc((size_t)runs, sizeof *bc);
  if (!rc) rc = time_plan(many, runs, (size_t)snaps, a, ac, &err);
  if (!rc) rc = time_plan(once, runs, (size_t)snaps, b, bc, &err);
  if (!rc) {
    qsort(a, (size_t)runs, sizeof *a, bench_cmp_double);
    qsort(b, (size_t)runs, sizeof *b, bench_cmp_double);
    qsort(ac, (size_t)runs, sizeof *ac, bench_cmp_double);
    qsort(bc, (size_t)runs, sizeof *bc, bench_cmp_double);
    pm_snapshot_manager sm = pm_snapshot_manager_of(pm_fs_local(), many, NULL);
    pm_snapshot *s = NULL;
    int64_t latest = 0;
    size_t base_manifests = 0;
    if (!pm_snapshot_latest_id(&sm, &latest, &err) && !pm_snapshot_read(&sm, latest, &s, &err)) {
      char lp[2300];
      snprintf(lp, sizeof lp, "%s/manifest/%s", many, s->base_manifest_list);
      pm_manifest_file_metas v;
      pm_manifest_file_metas_init(&v);
      if (!pm_manifest_list_read(pm_fs_local(), lp, &v, &err)) base_manifests = v.n;
      pm_manifest_file_metas_clear(&v);
    }
    pm_snapshot_free(s);
    printf("{\"bench\":\"plan_after_commits\",\"commits\":%" PRId64 ",\"files\":%" PRId64
           ",\"base_manifests\":%zu,\"runs\":%d,\"min_ms\":%.3f,\"median_ms\":%.3f,\"cpu_min_ms\":%.3f}\n",
           snaps, snaps, base_manifests, runs, a[0], a[runs / 2], ac[0]);
    printf("{\"bench\":\"plan_one_commit\",\"commits\":1,\"files\":%" PRId64 ",\"runs\":%d,\"min_ms\":%.3f,"
           "\"median_ms\":%.3f,\"cpu_min_ms\":%.3f}\n",
           snaps, runs, b[0], b[runs / 2], bc[0]);
  }
  free(a);
  free(b);
  free(ac);
  free(bc);
  free(t);
  free(tc);
  if (rc) {
    fprintf(stderr, "bench_commit: %s\n", err.message);
    return 1;
  }
  return 0;
}
