/* paimon_split_partition: the partition values of planned (and deserialized)
 * splits match the partition columns of the rows the splits read. */
#include "harness.h"
#include "paimon/paimon.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")

static paimon_error err;
static paimon_catalog *cat;

/* Column `name` of every row a split reads, as text ("null" for a null); returns the number of rows. */
static size_t split_column(const paimon_read_builder *rb, const paimon_split *s, const char *name, char ***out) {
  *out = NULL;
  size_t n = 0;
  struct ArrowArrayStream st;
  if (paimon_table_read_splits(rb, &s, 1, &st, &err)) {
    CHECK_MSG(0, "%s", err.message);
    return 0;
  }
  struct ArrowSchema sc;
  CHECK(st.get_schema(&st, &sc) == 0);
  int col = -1;
  for (int64_t i = 0; i < sc.n_children; i++)
    if (!strcmp(sc.children[i]->name, name)) col = (int)i;
  CHECK(col >= 0);
  struct ArrowArray b;
  while (col >= 0 && st.get_next(&st, &b) == 0 && b.release) {
    const struct ArrowArray *a = b.children[col];
    const char *fmt = sc.children[col]->format;
    *out = realloc(*out, (n + (size_t)b.length + 1) * sizeof **out);
    for (int64_t i = 0; i < b.length; i++) {
      int64_t j = a->offset + i;
      const uint8_t *valid = a->buffers[0];
      char buf[256];
      if (valid && !((valid[j >> 3] >> (j & 7)) & 1)) snprintf(buf, sizeof buf, "null");
      else if (!strcmp(fmt, "i")) snprintf(buf, sizeof buf, "%d", ((const int32_t *)a->buffers[1])[j]);
      else if (!strcmp(fmt, "u")) {
        const int32_t *off = a->buffers[1];
        snprintf(buf, sizeof buf, "%.*s", (int)(off[j + 1] - off[j]), (const char *)a->buffers[2] + off[j]);
      } else snprintf(buf, sizeof buf, "?%s", fmt);
      (*out)[n++] = strdup(buf);
    }
    b.release(&b);
  }
  sc.release(&sc);
  st.release(&st);
  return n;
}

/* Every split of the table: one field per partition key, named as the key, and each
 * key's value equals that column in every row of the split. Returns the distinct texts of field 0. */
static void check_table(const char *ident, size_t want_fields, const char *const *want_texts, size_t n_want) {
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, ident, &t, &err), &err);
  if (t) CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  if (rb) CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  if (!plan) goto done;
  CHECK_EQ_INT(paimon_table_num_partition_keys(t), want_fields);
  CHECK(paimon_plan_num_splits(plan) > 0);
  size_t seen[16] = {0};
  for (size_t k = 0; k < paimon_plan_num_splits(plan); k++) {
    const paimon_split *s = paimon_plan_split(plan, k);
    paimon_partition *p = NULL;
    CHECK_OK(paimon_split_partition(t, s, &p, &err), &err);
    if (!p) continue;
    CHECK_EQ_INT(paimon_partition_num_fields(p), want_fields);
    for (size_t f = 0; f < paimon_partition_num_fields(p); f++) {
      CHECK_EQ_STR(paimon_partition_field_name(p, f), paimon_table_partition_key(t, f));
      const char *text = paimon_partition_value_text(p, f);
      paimon_literal v = paimon_partition_value(p, f);
      CHECK(text != NULL);
      if (!text) continue;
      /* the literal agrees with the text */
      if (!strcmp(text, "null")) {
        CHECK_EQ_INT(v.kind, PAIMON_LITERAL_NULL);
      } else if (v.kind == PAIMON_LITERAL_INT64) {
        char buf[32];
        snprintf(buf, sizeof buf, "%lld", (long long)v.i);
        CHECK_EQ_STR(buf, text);
      } else {
        CHECK_EQ_INT(v.kind, PAIMON_LITERAL_STRING);
        CHECK(v.s && v.len == strlen(text) && !strcmp(v.s, text));
      }
      for (size_t w = 0; f == 0 && w < n_want; w++) seen[w] += !strcmp(text, want_texts[w]);
      /* every row of the split carries this value */
      char **col = NULL;
      size_t n = split_column(rb, s, paimon_partition_field_name(p, f), &col);
      CHECK(n > 0);
      for (size_t i = 0; i < n; i++) {
        CHECK_MSG(!strcmp(col[i], text), "%s split %zu: row %zu has %s = %s, partition says %s", ident, k, i,
                  paimon_partition_field_name(p, f), col[i], text);
        free(col[i]);
      }
      free(col);
    }
    /* out of range */
    CHECK(paimon_partition_field_name(p, want_fields) == NULL);
    CHECK(paimon_partition_value_text(p, want_fields) == NULL);
    CHECK_EQ_INT(paimon_partition_value(p, want_fields).kind, PAIMON_LITERAL_NULL);
    paimon_partition_free(p);
    /* a deserialized copy of the split decodes the same, and outlives nothing it needs */
    uint8_t *bytes = NULL;
    size_t len = 0;
    paimon_split *copy = NULL;
    CHECK_OK(paimon_split_serialize(s, &bytes, &len, &err), &err);
    if (bytes) CHECK_OK(paimon_split_deserialize(bytes, len, &copy, &err), &err);
    paimon_free_bytes(bytes);
    paimon_partition *p1 = NULL, *p2 = NULL;
    if (copy) CHECK_OK(paimon_split_partition(t, copy, &p2, &err), &err);
    CHECK_OK(paimon_split_partition(t, s, &p1, &err), &err);
    for (size_t f = 0; p1 && p2 && f < want_fields; f++)
      CHECK_EQ_STR(paimon_partition_value_text(p1, f), paimon_partition_value_text(p2, f));
    paimon_split_free(copy);
    paimon_partition_free(p2);
    paimon_partition_free(p1);
  }
  for (size_t w = 0; w < n_want; w++) CHECK_MSG(seen[w] > 0, "%s: no split of partition %s", ident, want_texts[w]);
done:
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
}

static void test_int_partition(void) {
  const char *want[] = {"10", "20"};
  check_table("pk_09.pk_09", 1, want, 2);
  check_table("append_09.append_09", 1, want, 2);
}

static void test_string_partition_with_null(void) {
  const char *want[] = {"2024", "2025", "null"};
  check_table("append_with_empty_partition.append_with_empty_partition", 1, want, 3);
}

static void test_two_keys(void) { check_table("pk_table_with_mor.pk_table_with_mor", 2, NULL, 0); }

static void test_unpartitioned_and_errors(void) {
  check_table("append_with_bitmap.append_with_bitmap", 0, NULL, 0);
  paimon_table *t = NULL, *sys = NULL;
  paimon_read_builder *rb = NULL;
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "pk_09.pk_09", &t, &err), &err);
  CHECK_OK(paimon_catalog_get_system_table(cat, "pk_09.pk_09$files", &sys, &err), &err);
  if (t) CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  if (rb) CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  paimon_partition *p = (paimon_partition *)&err; /* set to NULL on failure */
  if (plan && paimon_plan_num_splits(plan)) {
    CHECK_EQ_INT(paimon_split_partition(sys, paimon_plan_split(plan, 0), &p, &err), PAIMON_ERR_INVALID_ARGUMENT);
    CHECK(p == NULL);
    CHECK_EQ_INT(paimon_split_partition(t, NULL, &p, &err), PAIMON_ERR_INVALID_ARGUMENT);
    /* a split of another table whose partition row does not fit: pk_table_with_mor has 2 keys */
    paimon_table *t2 = NULL;
    CHECK_OK(paimon_catalog_get_table(cat, "pk_table_with_mor.pk_table_with_mor", &t2, &err), &err);
    if (t2) CHECK_EQ_INT(paimon_split_partition(t2, paimon_plan_split(plan, 0), &p, &err), PAIMON_ERR_CORRUPT);
    paimon_table_free(t2);
  }
  CHECK_EQ_INT(paimon_partition_num_fields(NULL), 0);
  paimon_partition_free(NULL);
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(sys);
  paimon_table_free(t);
}

int main(void) {
  paimon_option o[] = {{"warehouse", WH}};
  CHECK_OK(paimon_catalog_open(o, 1, &cat, &err), &err);
  if (!cat) TEST_MAIN_END();
  RUN_TEST(test_int_partition);
  RUN_TEST(test_string_partition_with_null);
  RUN_TEST(test_two_keys);
  RUN_TEST(test_unpartitioned_and_errors);
  paimon_catalog_free(cat);
  TEST_MAIN_END();
}
