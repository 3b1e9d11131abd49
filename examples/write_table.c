/*
 * Example: create a table in a new warehouse, write two Arrow batches in one
 * commit, read the rows back and print them.
 *
 *   example_write_table [ANY]      (the argument is ignored; the warehouse is a new temp dir)
 *
 * Exits 0 when the rows read back are the rows written.
 */
#define _XOPEN_SOURCE 700
#include <ftw.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "paimon/paimon.h"

static int die(const char *what, const paimon_error *err) {
  fprintf(stderr, "%s failed: %s\n", what, err->message);
  return 1;
}

/* ---- a minimal Arrow batch (id BIGINT NOT NULL, name STRING, region STRING) built by hand ---- */

static void release_schema(struct ArrowSchema *s) {
  for (int64_t i = 0; i < s->n_children; i++) free(s->children[i]);
  free(s->children);
  s->release = NULL;
}

static void make_schema(struct ArrowSchema *s) {
  static const char *names[] = {"id", "name", "region"}, *formats[] = {"l", "u", "u"};
  memset(s, 0, sizeof *s);
  s->format = "+s";
  s->n_children = 3;
  s->children = calloc(3, sizeof *s->children);
  for (int i = 0; i < 3; i++) {
    struct ArrowSchema *c = s->children[i] = calloc(1, sizeof *c);
    c->format = formats[i];
    c->name = names[i];
    c->flags = i == 0 ? 0 : ARROW_FLAG_NULLABLE;
    c->release = release_schema;
  }
  s->release = release_schema;
}

/* Every buffer of one batch lives in a single malloc'd block, freed by the top-level release. */
typedef struct batch_memory {
  struct ArrowArray children[3];
  struct ArrowArray *child_ptrs[3];
  const void *top_buffers[1];
  const void *buffers[3][3];
  int64_t ids[8];
  int32_t offsets[2][9];
  char text[2][256];
} batch_memory;

static void release_child(struct ArrowArray *a) { a->release = NULL; }
static void release_batch(struct ArrowArray *a) {
  free(a->private_data);
  a->release = NULL;
}

static void make_batch(struct ArrowArray *out, int64_t n, const int64_t *ids, const char *const *names,
                       const char *const *regions) {
  batch_memory *m = calloc(1, sizeof *m);
  const char *const *cols[2] = {names, regions};
  for (int64_t i = 0; i < n; i++) m->ids[i] = ids[i];
  for (int c = 0; c < 2; c++) {
    int32_t off = 0;
    for (int64_t i = 0; i < n; i++) {
      m->offsets[c][i] = off;
      size_t len = strlen(cols[c][i]);
      memcpy(m->text[c] + off, cols[c][i], len);
      off += (int32_t)len;
    }
    m->offsets[c][n] = off;
  }
  for (int c = 0; c < 3; c++) {
    struct ArrowArray *a = &m->children[c];
    a->length = n;
    a->n_buffers = c == 0 ? 2 : 3;
    m->buffers[c][0] = NULL; /* no nulls */
    m->buffers[c][1] = c == 0 ? (const void *)m->ids : (const void *)m->offsets[c - 1];
    m->buffers[c][2] = c == 0 ? NULL : m->text[c - 1];
    a->buffers = m->buffers[c];
    a->release = release_child;
    m->child_ptrs[c] = a;
  }
  memset(out, 0, sizeof *out);
  out->length = n;
  out->n_buffers = 1;
  out->buffers = m->top_buffers;
  out->n_children = 3;
  out->children = m->child_ptrs;
  out->private_data = m;
  out->release = release_batch;
}

/* ---- the example ---- */

static int write_rows(paimon_table *table, paimon_error *err, int64_t *snapshot) {
  struct ArrowSchema schema;
  make_schema(&schema);
  const int64_t ids1[] = {1, 2, 3}, ids2[] = {4, 5};
  const char *names1[] = {"apple", "banana", "cherry"}, *regions1[] = {"eu", "us", "eu"};
  const char *names2[] = {"date", "elderberry"}, *regions2[] = {"us", "asia"};
  struct ArrowArray b1, b2;
  make_batch(&b1, 3, ids1, names1, regions1);
  make_batch(&b2, 2, ids2, names2, regions2);

  paimon_write_builder *wb = NULL;
  paimon_table_write *w = NULL;
  paimon_commit_messages *msgs = NULL;
  paimon_table_commit *commit = NULL;
  int rc = paimon_write_builder_new(table, 0, NULL, 0, &wb, err);
  if (!rc) rc = paimon_write_builder_new_write(wb, &w, err);
  if (!rc) rc = paimon_table_write_arrow(w, &schema, &b1, err); /* borrowed: released below */
  if (!rc) rc = paimon_table_write_arrow(w, &schema, &b2, err);
  if (!rc) rc = paimon_table_write_prepare_commit(w, PAIMON_BATCH_COMMIT_IDENTIFIER, &msgs, err);
  if (!rc)
    printf("prepared %zu message(s): %" PRId64 " rows in %" PRId64 " file(s)\n", paimon_commit_messages_count(msgs),
           paimon_commit_messages_row_count(msgs), paimon_commit_messages_file_count(msgs));
  if (!rc) rc = paimon_write_builder_new_commit(wb, &commit, err);
  if (!rc) rc = paimon_table_commit_commit(commit, msgs, PAIMON_BATCH_COMMIT_IDENTIFIER, snapshot, err);
  /* PAIMON_ERR_CONFLICT: nothing was published, the files may be deleted. Never abort an UNKNOWN_OUTCOME. */
  if (rc == PAIMON_ERR_CONFLICT && commit) paimon_table_commit_abort(commit, msgs, NULL);
  paimon_commit_messages_free(msgs);
  paimon_table_commit_free(commit);
  paimon_table_write_free(w);
  paimon_write_builder_free(wb);
  b1.release(&b1);
  b2.release(&b2);
  schema.release(&schema);
  return rc;
}

/* Reads every row; prints them; returns the number of rows and the sum of ids. */
static int read_rows(paimon_table *table, int64_t *rows, int64_t *id_sum, paimon_error *err) {
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  struct ArrowArrayStream s;
  memset(&s, 0, sizeof s);
  *rows = *id_sum = 0;
  int rc = paimon_read_builder_new(table, NULL, 0, &rb, err);
  const char *cols[] = {"id", "name", "region"};
  if (!rc) rc = paimon_read_builder_with_projection(rb, cols, 3, err);
  if (!rc) rc = paimon_read_builder_plan(rb, &plan, err);
  if (!rc) rc = paimon_read_plan(rb, plan, &s, err);
  while (!rc) {
    struct ArrowArray b;
    if (s.get_next(&s, &b)) {
      snprintf(err->message, sizeof err->message, "%s", s.get_last_error(&s));
      rc = 1;
      break;
    }
    if (!b.release) break;
    const int64_t *id = (const int64_t *)b.children[0]->buffers[1] + b.children[0]->offset;
    for (int64_t i = 0; i < b.length; i++) {
      const char *str[2];
      int len[2];
      for (int c = 0; c < 2; c++) {
        const struct ArrowArray *col = b.children[c + 1];
        const int32_t *off = (const int32_t *)col->buffers[1] + col->offset;
        str[c] = (const char *)col->buffers[2] + off[i];
        len[c] = off[i + 1] - off[i];
      }
      printf("  id=%" PRId64 " name=%.*s region=%.*s\n", id[i], len[0], str[0], len[1], str[1]);
      *id_sum += id[i];
    }
    *rows += b.length;
    b.release(&b);
  }
  if (s.release) s.release(&s);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  return rc;
}

static int remove_entry(const char *path, const struct stat *st, int flag, struct FTW *ftw) {
  (void)st, (void)flag, (void)ftw;
  return remove(path);
}

int main(void) {
  char warehouse[] = "/tmp/paimon_example_XXXXXX";
  if (!mkdtemp(warehouse)) return 1;
  paimon_error err = {0};
  paimon_option catalog_opts[] = {{"warehouse", warehouse}};
  paimon_catalog *catalog = NULL;
  paimon_schema_builder *sb = NULL;
  paimon_table *table = NULL;
  int64_t snapshot = -1, rows = 0, id_sum = 0;
  const char *pkeys[] = {"region"};
  int rc = paimon_catalog_open(catalog_opts, 1, &catalog, &err) ? die("catalog_open", &err) : 0;
  if (!rc && paimon_catalog_create_database(catalog, "shop", NULL, 0, 0, &err)) rc = die("create_database", &err);
  if (!rc && (paimon_schema_builder_new(&sb, &err) ||
              paimon_schema_builder_columns_sql(sb, "id BIGINT NOT NULL, name STRING, region STRING", &err) ||
              paimon_schema_builder_partition_keys(sb, pkeys, 1, &err) ||
              paimon_catalog_create_table(catalog, "shop.fruit", sb, 0, &err)))
    rc = die("create_table", &err);
  if (!rc && paimon_catalog_get_table(catalog, "shop.fruit", &table, &err)) rc = die("get_table", &err);
  if (!rc && write_rows(table, &err, &snapshot)) rc = die("write", &err);
  if (!rc) printf("committed snapshot %" PRId64 "\n", snapshot);
  /* Read the rows back through a fresh handle of the table. */
  paimon_table_free(table);
  table = NULL;
  if (!rc && paimon_catalog_get_table(catalog, "shop.fruit", &table, &err)) rc = die("get_table", &err);
  if (!rc && read_rows(table, &rows, &id_sum, &err)) rc = die("read", &err);
  if (!rc && (rows != 5 || id_sum != 15 || snapshot != 1)) {
    fprintf(stderr, "read back %" PRId64 " rows (id sum %" PRId64 "), snapshot %" PRId64 "; want 5, 15, 1\n", rows,
            id_sum, snapshot);
    rc = 1;
  }
  if (!rc) printf("read back %" PRId64 " rows\n", rows);
  paimon_table_free(table);
  paimon_schema_builder_free(sb);
  paimon_catalog_free(catalog);
  nftw(warehouse, remove_entry, 16, FTW_DEPTH | FTW_PHYS);
  return rc;
}
