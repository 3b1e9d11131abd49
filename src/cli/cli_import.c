/* `paimon table import DB.T FILE...`: every input file into one batch commit, through the public
 * write API (inputs from paimon_table_open_input*). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cli/cli_write.h"
#include "paimon/paimon.h"
#include "paimon/write.h"

void cli_import_usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table import DB.T FILE... [--format parquet|orc|avro|jsonl|csv]\n"
        "              [--overwrite] [--partition k=v,...] [--option k=v ...] [--row-kind-column NAME]\n"
        "\n"
        "Writes every FILE (- = stdin) into the table in one commit and prints the snapshot id and the\n"
        "row and file counts. The format comes from each file's extension (.parquet, .orc, .avro,\n"
        ".jsonl/.json/.ndjson, .csv; stdin: jsonl) unless --format says. jsonl is what `table read\n"
        "--format jsonl` prints, so `table read A --format jsonl | table import B -` copies a table;\n"
        "csv has a header row naming the columns (values as `table read --format csv` prints them).\n"
        "Columns match the table's by name; missing nullable columns are null.\n"
        "--partition k=v,... imports into that (possibly partial) partition: every row must fall inside\n"
        "             it (the partition columns are read from the input), else nothing is committed.\n"
        "--overwrite replaces the rows of the partitions the data touches (the whole table when it is\n"
        "             unpartitioned or dynamic-partition-overwrite=false); with --partition k=v,... that\n"
        "             (possibly partial) partition, and every row must fall inside it.\n"
        "--option k=v sets a write option (file.format, file.compression, target-file-size, ...).\n"
        "--row-kind-column NAME  CDC input for a primary-key table: column NAME of the input (not a table\n"
        "             column, not written) holds each row's kind, as Java's RowKind names them: +I (insert),\n"
        "             -U (update before), +U (update after), -D (delete), or the names INSERT,\n"
        "             UPDATE_BEFORE, UPDATE_AFTER, DELETE, or the RowKind bytes 0..3 (+I -U +U -D; integers\n"
        "             in data files and JSON, text in csv). Rows of a key merge in input order through the\n"
        "             table's merge engine (ignore-delete drops -U/-D). A null or other value fails the import.\n"
        "Nothing is visible unless the commit succeeds. The warehouse is -w PATH or $PAIMON_WAREHOUSE.\n",
        out);
}

int cli_import_run(paimon_table *t, cli_write_args *a) {
  paimon_error err = {0};
  paimon_option spec[MAX_ITEMS];
  int n_spec = a->n_specs ? cli_parse_spec(a->sub, a->specs[0], spec, MAX_ITEMS) : 0;
  if (n_spec < 0) return 2;
  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *m = NULL;
  paimon_table_commit *c = NULL;
  int rc = paimon_write_builder_new(t, 0, a->options, (size_t)a->n_options, &wb, &err);
  if (!rc && a->overwrite) rc = paimon_write_builder_with_overwrite(wb, spec, (size_t)n_spec, &err);
  if (!rc && n_spec) rc = paimon_write_builder_with_partition(wb, spec, (size_t)n_spec, &err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, &err);
  if (!rc && a->row_kind_column) rc = paimon_table_write_with_row_kind_column(w, a->row_kind_column, &err);
  for (int i = 0; !rc && i < a->n_files; i++) {
    struct ArrowArrayStream s;
    int is_stdin = !strcmp(a->files[i], "-");
    if (a->row_kind_column)
      rc = paimon_table_open_cdc_input(t, is_stdin ? NULL : a->files[i], 0,
                                       is_stdin && !a->format ? "jsonl" : a->format, a->row_kind_column, &s, &err);
    else if (is_stdin)
      rc = paimon_table_open_input_fd(t, 0, "stdin", a->format ? a->format : "jsonl", &s, &err);
    else
      rc = paimon_table_open_input(t, a->files[i], a->format, &s, &err);
    if (!rc) rc = paimon_table_write_stream(w, &s, &err);
  }
  int wrote = !rc;
  paimon_error perr = {0};
  /* On a failed write the files already written are handed out and removed again below. */
  int prc = w ? paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &m, wrote ? &err : &perr) : 1;
  if (wrote) rc = prc;
  if (!rc) rc = paimon_write_builder_new_commit(wb, &c, &err);
  int64_t snap = -1;
  if (!rc) {
    rc = paimon_table_commit_commit(c, m, PAIMON_BATCH_COMMIT_IDENTIFIER, &snap, &err);
    if (rc == PAIMON_ERR_UNKNOWN_OUTCOME) m = NULL; /* maybe published: never delete its files */
  }
  if (rc && m) {
    paimon_table_commit *ac = c;
    if (!ac) paimon_write_builder_new_commit(wb, &ac, &perr);
    if (ac) paimon_table_commit_abort(ac, m, &perr);
    if (ac != c) paimon_table_commit_free(ac);
  }
  int exit_code = 0;
  if (rc) {
    exit_code = cli_write_fail(a->sub, &err);
  } else if (snap < 0) {
    printf("nothing to commit: 0 rows\n");
  } else {
    printf("snapshot %lld: %lld rows in %lld files\n", (long long)snap, (long long)paimon_commit_messages_row_count(m),
           (long long)paimon_commit_messages_file_count(m));
  }
  paimon_commit_messages_free(m);
  paimon_table_commit_free(c);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  return exit_code;
}

