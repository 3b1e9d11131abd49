/*
 * Example: open the fixture warehouse through the public API, list a
 * database, plan a filtered read of a primary-key table and print its rows.
 *
 *   example_read_table /path/to/fixtures/warehouse
 *
 * Exits 0 when the table returned rows.
 */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "paimon/paimon.h"

static int die(const char *what, const paimon_error *err) {
  fprintf(stderr, "%s failed: %s\n", what, err->message);
  return 1;
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: %s FIXTURES_WAREHOUSE (the directory holding parquet/, e.g. ../shared/fixtures/warehouse)\n",
            argv[0]);
    return 2;
  }
  char warehouse[4096];
  snprintf(warehouse, sizeof warehouse, "%s/parquet", argv[1]);

  paimon_error err = {0};
  paimon_option catalog_opts[] = {{"warehouse", warehouse}};
  paimon_catalog *catalog = NULL;
  if (paimon_catalog_open(catalog_opts, 1, &catalog, &err)) return die("paimon_catalog_open", &err);

  char **tables = NULL;
  size_t n_tables = 0;
  if (paimon_catalog_list_tables(catalog, "pk_09", &tables, &n_tables, &err)) return die("list_tables", &err);
  printf("database pk_09 has %zu table(s)\n", n_tables);
  paimon_free_strings(tables, n_tables);

  paimon_table *table = NULL;
  if (paimon_catalog_get_table(catalog, "pk_09.pk_09", &table, &err)) return die("get_table", &err);

  /* Time travel would be e.g. {"scan.snapshot-id", "6"}; read the latest snapshot here. */
  paimon_read_builder *rb = NULL;
  if (paimon_read_builder_new(table, NULL, 0, &rb, &err)) return die("read_builder_new", &err);
  const char *columns[] = {"f0", "f2", "f3"};
  if (paimon_read_builder_with_projection(rb, columns, 3, &err)) return die("with_projection", &err);
  paimon_predicate *filter = NULL;
  if (paimon_predicate_greater_or_equal(rb, "f3", paimon_literal_double(12.0), &filter, &err))
    return die("predicate", &err);
  if (paimon_read_builder_with_filter(rb, filter, &err)) return die("with_filter", &err);

  paimon_plan *plan = NULL;
  if (paimon_read_builder_plan(rb, &plan, &err)) return die("plan", &err);
  int64_t snapshot = 0;
  paimon_plan_snapshot_id(plan, &snapshot);
  printf("snapshot %" PRId64 ", %zu split(s)\n", snapshot, paimon_plan_num_splits(plan));

  struct ArrowArrayStream stream;
  if (paimon_read_plan(rb, plan, &stream, &err)) return die("read", &err);
  struct ArrowSchema schema;
  if (stream.get_schema(&stream, &schema) != 0) {
    fprintf(stderr, "get_schema: %s\n", stream.get_last_error(&stream));
    return 1;
  }
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray batch;
    if (stream.get_next(&stream, &batch) != 0) {
      fprintf(stderr, "get_next: %s\n", stream.get_last_error(&stream));
      return 1;
    }
    if (!batch.release) break; /* end of stream */
    /* column 0 is f0 (utf8): offsets in buffers[1], bytes in buffers[2] */
    const struct ArrowArray *f0 = batch.children[0];
    const int32_t *off = f0->buffers[1];
    const char *bytes = f0->buffers[2];
    for (int64_t i = 0; i < batch.length; i++) {
      int64_t j = f0->offset + i;
      printf("  %.*s\n", (int)(off[j + 1] - off[j]), bytes + off[j]);
    }
    rows += batch.length;
    batch.release(&batch);
  }
  schema.release(&schema);
  stream.release(&stream);
  printf("%" PRId64 " row(s) with f3 >= 12\n", rows);

  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(table);
  paimon_catalog_free(catalog);
  return rows > 0 ? 0 : 1;
}
