/* `paimon table compact DB.T [--partition k=v,...]... [--full]`: one compaction commit of a
 * primary-key or append table through the public write API (paimon_table_write_compact), printing
 * what it did as the reference compact builder's metrics. Public API only. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli.h"
#include "cli/cli_write.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table compact DB.T [--partition k=v,...]... [--full]\n"
        "\n"
        "Compacts the partitions matching a --partition spec (all partitions without one; a spec\n"
        "may name some of the partition keys, values in the text form `table read` prints).\n"
        "Primary-key tables as Java's TableWrite.compact: every bucket with the table's universal\n"
        "compaction strategy, or with --full into the max level. Append tables with bucket -1 as\n"
        "Java's AppendCompactCoordinator: files below target-file-size * compaction.small-file-ratio\n"
        "packed per partition into rewrites (compaction.min.file-num, compaction.file-num-limit,\n"
        "source.split.open-file-cost). Fixed-bucket append tables per bucket as Java's\n"
        "BucketedAppendCompactManager (minor: compaction.min.file-num files in sequence order; --full:\n"
        "the small files after the leading big ones). Commits the result as a COMPACT\n"
        "snapshot and prints the snapshot id and the metrics: tasks, files_removed, files_added,\n"
        "rows_written, bytes_written, changelog_files_added, changelog_rows_written,\n"
        "changelog_bytes_written. Nothing is committed when there is nothing to compact.\n"
        "Deletion vectors: the rewrite drops the deleted rows and their index entries go in the same commit.\n"
        "Not supported yet on append tables: row tracking, data evolution.\n",
        out);
}

static int fail(const paimon_error *err) { return cli_write_fail("compact", err); }

int cli_compact_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    usage(stdout);
    return 0;
  }
  const char *ident = NULL;
  char *specs[MAX_ITEMS];
  int n_specs = 0, full = 0;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    if (!strcmp(s, "--partition") && i + 1 < argc && n_specs < MAX_ITEMS) {
      specs[n_specs++] = argv[++i];
    } else if (!strcmp(s, "--full")) {
      full = 1;
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table compact: unknown option %s%s\n", s,
              !strcmp(s, "--partition") ? " (its value is missing)" : "");
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
  size_t n_fields[MAX_ITEMS];
  for (int i = 0; i < n_specs; i++) {
    int n = cli_parse_spec("compact", specs[i], store[i], MAX_ITEMS);
    if (n < 0) return 2;
    n_fields[i] = (size_t)n;
  }
  if (!warehouse) warehouse = getenv("PAIMON_WAREHOUSE");
  if (!warehouse || !*warehouse) {
    fprintf(stderr, "paimon: no warehouse (use -w PATH or set PAIMON_WAREHOUSE)\n");
    return 2;
  }
  paimon_option o[] = {{"warehouse", warehouse}};
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int64_t snap = -1;
  int rc = paimon_catalog_open(o, 1, &cat, &err);
  if (!rc) rc = paimon_catalog_get_table(cat, ident, &t, &err);
  if (!rc) rc = paimon_write_builder_new(t, 0, NULL, 0, &wb, &err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, &err);
  if (!rc && !n_specs) rc = paimon_table_write_compact(w, NULL, 0, -1, full, &err);
  for (int i = 0; !rc && i < n_specs; i++) rc = paimon_table_write_compact(w, store[i], n_fields[i], -1, full, &err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, &err);
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, &err);
  if (!rc) rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
  int exit_code = rc ? fail(&err) : 0;
  if (rc == PAIMON_ERR_CONFLICT && c && m) {
    paimon_error e2 = {0};
    paimon_table_commit_abort(c, m, &e2); /* nothing was published: the compaction's new files go */
  }
  if (!rc) {
    paimon_compact_metrics mt;
    paimon_table_write_compact_metrics(w, &mt);
    if (snap >= 0) printf("snapshot %lld\n", (long long)snap);
    else printf("nothing to compact\n");
    printf("tasks %lld\nfiles_removed %lld\nfiles_added %lld\nrows_written %lld\nbytes_written %lld\n"
           "changelog_files_added %lld\nchangelog_rows_written %lld\nchangelog_bytes_written %lld\n",
           (long long)mt.tasks, (long long)mt.files_removed, (long long)mt.files_added, (long long)mt.rows_written,
           (long long)mt.bytes_written, (long long)mt.changelog_files_added, (long long)mt.changelog_rows_written,
           (long long)mt.changelog_bytes_written);
  }
  paimon_table_commit_free(c);
  paimon_commit_messages_free(m);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return exit_code;
}
