/* Snapshot expiry benchmark (issue 13 §6): expiring SNAPSHOTS snapshots over SNAPSHOTS x FILES
 * data files (default 1,000 x 100 = 100,000). The table is built in DIR/expire_work: each commit
 * is an OVERWRITE of the whole table with FILES new files (empty files on disk, created by the
 * bench; metadata through our committer), so every snapshot's delta deletes the files of the one
 * before. Then one expiry (retain 1, no time limit, no expire limit) is timed: it deletes the
 * snapshot files, ~SNAPSHOTS x FILES data files and the manifests. Checked: the counts reported
 * and the files left on disk. Output: one JSON line (ms, files deleted, files/s).
 *
 *   bench_expire DIR [SNAPSHOTS] [FILES]
 */
#include <fcntl.h>
#include <inttypes.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "bench_meta_table.h"
#include "bench_util.h"
#include "meta/path_factory.h"
#include "meta/snapshot.h"
#include "meta/wire.h"
#include "table/commit.h"
#include "table/expire.h"
#include "table/table.h"

static int touch_files(pm_table *t, const pm_manifest_committable *m, pm_error *err) {
  char *bdir = NULL;
  PM_TRY(pm_table_bucket_path(t, "", 0, &bdir, err));
  int rc = pm_fs_mkdirs(t->fs, bdir, err);
  const pm_file_list *l = &m->messages[0].new_files;
  for (size_t i = 0; !rc && i < l->n; i++) {
    char p[4096];
    snprintf(p, sizeof p, "%s/%s", bdir, l->items[i].file_name);
    int fd = open(p, O_CREAT | O_WRONLY | O_TRUNC, 0644);
    if (fd < 0) rc = pm_errorf(err, PAIMON_ERR_IO, "%s: cannot create", p);
    else close(fd);
  }
  free(bdir);
  return rc;
}

static long count_files(const char *dir) {
  char cmd[2300];
  snprintf(cmd, sizeof cmd, "find '%s' -type f | wc -l", dir);
  FILE *p = popen(cmd, "r");
  long n = -1;
  if (p) {
    if (fscanf(p, "%ld", &n) != 1) n = -1;
    pclose(p);
  }
  return n;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: bench_expire DIR [SNAPSHOTS] [FILES]\n");
    return 2;
  }
  int64_t snaps = argc > 2 ? atoll(argv[2]) : 1000;
  size_t files = argc > 3 ? (size_t)atoll(argv[3]) : 100;
  char dir[1000];
  snprintf(dir, sizeof dir, "%.900s/expire_work", argv[1]);
  pm_error err = {0};
  int rc = bench_make_table(dir, &err);
  pm_table *t = NULL;
  if (!rc) rc = bench_open_table(dir, &t, &err);
  pm_path_factory pf;
  if (!rc) pm_path_factory_init(&pf, t->fs, t->root);
  pm_commit *c = NULL;
  if (!rc) rc = pm_commit_open(t, "bench-expire", 0, &c, &err);
  double b0 = bench_now_ms();
  for (int64_t i = 0; !rc && i < snaps; i++) {
    pm_manifest_committable *m = bench_committable(t, &pf, files);
    int64_t sid = 0;
    rc = m ? touch_files(t, m, &err) : PM_NOMEM(&err);
    if (!rc) rc = pm_commit_overwrite(c, NULL, m, &sid, &err);
    pm_committable_free(m);
  }
  pm_commit_free(c);
  if (rc) {
    fprintf(stderr, "bench_expire: building %s: %s\n", dir, err.message);
    pm_table_free(t);
    return 1;
  }
  long before = count_files(dir);
  fprintf(stderr, "bench_expire: built %s (%" PRId64 " overwrites of %zu files, %ld files) in %.0f ms\n", dir, snaps,
          files, before, bench_now_ms() - b0);
  pm_expire_config cfg;
  memset(&cfg, 0, sizeof cfg);
  cfg.retain_min = cfg.retain_max = 1;
  cfg.max_deletes = INT32_MAX;
  cfg.changelog_retain_min = cfg.changelog_retain_max = 1;
  pm_expire_result r;
  double t0 = bench_now_ms(), c0 = bench_cpu_ms();
  rc = pm_expire_snapshots(t, &cfg, NULL, NULL, &r, &err);
  double ms = bench_now_ms() - t0, cms = bench_cpu_ms() - c0;
  pm_table_free(t);
  if (rc) {
    fprintf(stderr, "bench_expire: expiry: %s\n", err.message);
    return 1;
  }
  long after = count_files(dir);
  int64_t deleted = r.snapshots_expired + r.files.data_deleted + r.files.meta_deleted;
  int ok = r.snapshots_expired == snaps - 1 && r.files.data_deleted == (int64_t)((snaps - 1) * (int64_t)files) &&
           before - after == deleted && r.files.failed == 0 && r.files.missing == 0;
  printf("{\"bench\":\"expire\",\"snapshots\":%" PRId64 ",\"files_per_snapshot\":%zu,\"ms\":%.1f,\"cpu_ms\":%.1f,"
         "\"snapshots_expired\":%" PRId64 ",\"data_files_deleted\":%" PRId64 ",\"meta_files_deleted\":%" PRId64
         ",\"files_per_s\":%.0f,\"ok\":%s}\n",
         snaps, files, ms, cms, r.snapshots_expired, r.files.data_deleted, r.files.meta_deleted,
         ms > 0 ? deleted * 1000.0 / ms : 0.0, ok ? "true" : "false");
  return ok ? 0 : 1;
}
