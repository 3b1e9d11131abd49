/* `paimon table compact DB.T [--partition k=v,...]... [--where EXPR] [--full] [--bucket N]
 * [--commit-user U]`: one compaction commit of a primary-key or append table through the public
 * compaction API (paimon/compact.h), printing the snapshot and the reference compact builder's
 * metrics; progress on stderr for work over a second. Public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "cli/cli_write.h"
#include "paimon/compact.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table compact DB.T [--partition k=v,...]... [--where EXPR] [--full]\n"
        "                                 [--bucket N] [--commit-user USER]\n"
        "\n"
        "Compacts the partitions matching one of the --partition specs (a spec may name some of the\n"
        "partition keys, values in the text form `table read` prints) and the --where filter (the\n"
        "filter syntax of `table read --where`, on partition columns only); all partitions without\n"
        "either. Primary-key tables as Java's TableWrite.compact: every bucket with the table's\n"
        "universal compaction strategy, or with --full into the max level (write-only is ignored,\n"
        "as Java's compact procedure does). Append tables with bucket -1 as Java's\n"
        "AppendCompactCoordinator: files below target-file-size * compaction.small-file-ratio\n"
        "packed per partition into rewrites (compaction.min.file-num, compaction.file-num-limit,\n"
        "source.split.open-file-cost). Fixed-bucket append tables per bucket as Java's\n"
        "BucketedAppendCompactManager (minor: compaction.min.file-num files in sequence order; --full:\n"
        "the small files after the leading big ones); --bucket N compacts only bucket N.\n"
        "Deletion vectors: the rewrite drops the deleted rows and their index entries go in the same commit.\n"
        "Commits the result as a COMPACT snapshot (commit user USER-compact-<uuid>, USER a UUID by\n"
        "default) and prints the snapshot id and the metrics: tasks, files_removed, files_added,\n"
        "rows_written, bytes_written, changelog_files_added, changelog_rows_written,\n"
        "changelog_bytes_written. Nothing is committed when there is nothing to compact.\n"
        "Exit 1 on an error: CONFLICT (a concurrent change, e.g. an overwrite; nothing published, the\n"
        "compaction's files deleted) or another failure (when the commit's outcome is unknown its\n"
        "files are kept). Data-evolution tables: the files of continuous row-id ranges (a base file and\n"
        "the column files of update by _ROW_ID) are merged into one file per task, row ids kept (as\n"
        "Java's data-evolution compaction). Not supported yet: row tracking without data evolution,\n"
        "data-evolution tables with BLOB columns or deletion vectors.\n",
        out);
}

static int fail(const paimon_error *err) { return cli_write_fail("compact", err); }

int cli_compact_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *ident = NULL, *where = NULL, *user = NULL;
  char *specs[MAX_ITEMS];
  int n_specs = 0, full = 0;
  long bucket = -1;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    int has_value = i + 1 < argc;
    if (!strcmp(s, "--partition") && has_value && n_specs < MAX_ITEMS) {
      specs[n_specs++] = argv[++i];
    } else if (!strcmp(s, "--where") && has_value && !where) {
      where = argv[++i];
    } else if (!strcmp(s, "--commit-user") && has_value && !user) {
      user = argv[++i];
    } else if (!strcmp(s, "--bucket") && has_value) {
      char *end = NULL;
      bucket = strtol(argv[++i], &end, 10);
      if (!*argv[i] || *end || bucket < 0 || bucket > 1000000) {
        fprintf(stderr, "paimon table compact: --bucket takes a bucket number, not '%s'\n", argv[i]);
        return 2;
      }
    } else if (!strcmp(s, "--full")) {
      full = 1;
    } else if (s[0] == '-' && s[1]) {
      int known = !strcmp(s, "--partition") || !strcmp(s, "--where") || !strcmp(s, "--commit-user") ||
                  !strcmp(s, "--bucket");
      fprintf(stderr, "paimon table compact: %s %s\n", known ? "missing or repeated value of" : "unknown option",
              s);
      return 2;
    } else if (!ident) {
      ident = s;
    } else {
      fprintf(stderr, "paimon table compact: unexpected argument '%s'\n", s);
      return 2;
    }
  }
  if (!ident) {
    fprintf(stderr, "paimon table compact: missing table (DB.T)\n");
    return 2;
  }
  static paimon_option store[MAX_ITEMS][MAX_ITEMS];
  paimon_partition_spec parts[MAX_ITEMS];
  for (int i = 0; i < n_specs; i++) {
    int n = cli_parse_spec("compact", specs[i], store[i], MAX_ITEMS);
    if (n < 0) return 2;
    parts[i].fields = store[i];
    parts[i].n = (size_t)n;
  }
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL;
  paimon_predicate *filter = NULL;
  int exit_code = cli_open_table("table compact", warehouse, ident, &cat, &t);
  int rc = PAIMON_OK;
  if (!exit_code && where) rc = paimon_read_builder_new(t, NULL, 0, &rb, &err);
  if (!exit_code && !rc && where) rc = paimon_predicate_parse(rb, where, &filter, &err);
  paimon_compact_result r;
  if (!exit_code && !rc) {
    paimon_compact_options co;
    paimon_compact_options_init(&co);
    co.full = full;
    co.partitions = parts;
    co.n_partitions = (size_t)n_specs;
    co.partition_filter = filter;
    co.bucket = (int32_t)bucket;
    co.commit_user = user;
    cli_progress p;
    memset(&p, 0, sizeof p);
    p.cmd = "compact";
    clock_gettime(CLOCK_MONOTONIC, &p.start);
    co.progress = cli_on_progress;
    co.ctx = &p;
    rc = paimon_table_compact(t, &co, &r, &err);
  }
  if (!exit_code && rc) exit_code = fail(&err);
  if (!exit_code) {
    const paimon_compact_metrics *mt = &r.metrics;
    if (r.snapshot_id >= 0) printf("snapshot %lld\n", (long long)r.snapshot_id);
    else printf("nothing to compact\n");
    printf("tasks %lld\nfiles_removed %lld\nfiles_added %lld\nrows_written %lld\nbytes_written %lld\n"
           "changelog_files_added %lld\nchangelog_rows_written %lld\nchangelog_bytes_written %lld\n",
           (long long)mt->tasks, (long long)mt->files_removed, (long long)mt->files_added,
           (long long)mt->rows_written, (long long)mt->bytes_written, (long long)mt->changelog_files_added,
           (long long)mt->changelog_rows_written, (long long)mt->changelog_bytes_written);
  }
  paimon_predicate_free(filter);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return exit_code;
}
