/* Handles of one table are refused by another table's builder (issue 10 #21); released streams have
 * NULL callbacks (#22). */
#include "harness.h"
#include "paimon/paimon.h"

#define WH PM_SHARED("fixtures/warehouse/parquet")

typedef struct two_tables {
  paimon_catalog *cat;
  paimon_table *pk, *ap;
  paimon_read_builder *rb_pk, *rb_ap;
} two_tables;

static void open_two(two_tables *t, paimon_error *err) {
  memset(t, 0, sizeof *t);
  paimon_option o[] = {{"warehouse", WH}};
  CHECK_OK(paimon_catalog_open(o, 1, &t->cat, err), err);
  CHECK_OK(paimon_catalog_get_table(t->cat, "pk_09.pk_09", &t->pk, err), err);
  CHECK_OK(paimon_catalog_get_table(t->cat, "append_09.append_09", &t->ap, err), err);
  CHECK_OK(paimon_read_builder_new(t->pk, NULL, 0, &t->rb_pk, err), err);
  CHECK_OK(paimon_read_builder_new(t->ap, NULL, 0, &t->rb_ap, err), err);
}

static void close_two(two_tables *t) {
  paimon_read_builder_free(t->rb_pk);
  paimon_read_builder_free(t->rb_ap);
  paimon_table_free(t->pk);
  paimon_table_free(t->ap);
  paimon_catalog_free(t->cat);
}

static void test_plan_of_another_table(void) {
  paimon_error err = {0};
  two_tables t;
  open_two(&t, &err);
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_read_builder_plan(t.rb_ap, &plan, &err), &err);
  CHECK(paimon_plan_num_splits(plan) > 0);
  struct ArrowArrayStream s;
  memset(&s, 0xab, sizeof s);
  CHECK_EQ_INT(paimon_read_plan(t.rb_pk, plan, &s, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "another table") != NULL);
  CHECK(s.release == NULL);
  /* the plan's splits are refused the same way */
  const paimon_split *sp = paimon_plan_split(plan, 0);
  CHECK_EQ_INT(paimon_table_read_splits(t.rb_pk, &sp, 1, &s, &err), PAIMON_ERR_INVALID_ARGUMENT);
  /* its own builder and another builder of the same table still read it */
  paimon_read_builder *rb2 = NULL;
  CHECK_OK(paimon_read_builder_new(t.ap, NULL, 0, &rb2, &err), &err);
  CHECK_OK(paimon_read_plan(rb2, plan, &s, &err), &err);
  if (s.release) s.release(&s);
  CHECK_OK(paimon_read_plan(t.rb_ap, plan, &s, &err), &err);
  if (s.release) s.release(&s);
  paimon_read_builder_free(rb2);
  paimon_plan_free(plan);
  close_two(&t);
}

static void test_predicate_of_another_table(void) {
  paimon_error err = {0};
  two_tables t;
  open_two(&t, &err);
  paimon_predicate *p = NULL;
  struct ArrowSchema sch;
  CHECK_OK(paimon_table_arrow_schema(t.ap, &sch, &err), &err);
  const char *col = sch.n_children > 0 ? sch.children[0]->name : "f0";
  char colname[128];
  snprintf(colname, sizeof colname, "%s", col);
  sch.release(&sch);
  CHECK_OK(paimon_predicate_is_not_null(t.rb_ap, colname, &p, &err), &err);
  CHECK_EQ_INT(paimon_read_builder_with_filter(t.rb_pk, p, &err), PAIMON_ERR_INVALID_ARGUMENT); /* p consumed */
  CHECK(strstr(err.message, "another table") != NULL);
  /* and/or of children of two tables */
  paimon_predicate *a = NULL, *b = NULL, *ab = NULL;
  CHECK_OK(paimon_predicate_is_not_null(t.rb_ap, colname, &a, &err), &err);
  CHECK_OK(paimon_predicate_parse(t.rb_pk, "f1 = 10", &b, &err), &err);
  paimon_predicate *kids[2] = {a, b};
  CHECK_EQ_INT(paimon_predicate_and(kids, 2, &ab, &err), PAIMON_ERR_INVALID_ARGUMENT); /* children consumed */
  CHECK(ab == NULL);
  /* a predicate of the same table made by another builder is fine */
  paimon_read_builder *rb2 = NULL;
  CHECK_OK(paimon_read_builder_new(t.pk, NULL, 0, &rb2, &err), &err);
  CHECK_OK(paimon_predicate_parse(rb2, "f1 = 10", &p, &err), &err);
  CHECK_OK(paimon_read_builder_with_filter(t.rb_pk, p, &err), &err);
  CHECK_OK(paimon_predicate_parse(rb2, "f1 = 10", &a, &err), &err);
  CHECK_OK(paimon_predicate_parse(t.rb_pk, "f2 = 0", &b, &err), &err);
  paimon_predicate *kids2[2] = {a, b};
  CHECK_OK(paimon_predicate_or(kids2, 2, &ab, &err), &err);
  CHECK_OK(paimon_read_builder_with_filter(t.rb_pk, ab, &err), &err);
  paimon_read_builder_free(rb2);
  close_two(&t);
}

static void test_release_clears_callbacks(void) {
  paimon_error err = {0};
  two_tables t;
  open_two(&t, &err);
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_read_builder_plan(t.rb_pk, &plan, &err), &err);
  struct ArrowArrayStream s;
  CHECK_OK(paimon_read_plan(t.rb_pk, plan, &s, &err), &err);
  CHECK(s.get_next != NULL && s.release != NULL);
  s.release(&s);
  CHECK(s.get_schema == NULL && s.get_next == NULL && s.get_last_error == NULL && s.release == NULL &&
        s.private_data == NULL);
  /* system table streams too */
  CHECK_OK(paimon_catalog_read_system_table(t.cat, "pk_09.pk_09$snapshots", &s, &err), &err);
  CHECK(s.release != NULL);
  s.release(&s);
  CHECK(s.get_schema == NULL && s.get_next == NULL && s.get_last_error == NULL && s.release == NULL);
  CHECK_OK(paimon_read_builder_read_system_table(t.rb_pk, "files", &s, &err), &err);
  s.release(&s);
  CHECK(s.get_next == NULL && s.release == NULL);
  paimon_plan_free(plan);
  close_two(&t);
}

static void test_columns(void) {
  paimon_error err = {0};
  two_tables t;
  open_two(&t, &err);
  CHECK_EQ_INT(paimon_table_num_columns(t.pk), 4);
  CHECK_EQ_STR(paimon_table_column_name(t.pk, 0), "f0");
  CHECK(paimon_table_column_name(t.pk, 4) == NULL);
  char *ty = NULL;
  CHECK_OK(paimon_table_column_type(t.pk, 1, &ty, &err), &err);
  CHECK_EQ_STR(ty, "INT NOT NULL");
  paimon_free_string(ty);
  CHECK_OK(paimon_table_column_type(t.pk, 3, &ty, &err), &err);
  CHECK_EQ_STR(ty, "DOUBLE");
  paimon_free_string(ty);
  CHECK_EQ_INT(paimon_table_column_type(t.pk, 4, &ty, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(ty == NULL);
  CHECK(paimon_table_schema_id(t.pk) >= 0);
  close_two(&t);
}

int main(void) {
  RUN_TEST(test_columns);
  RUN_TEST(test_plan_of_another_table);
  RUN_TEST(test_predicate_of_another_table);
  RUN_TEST(test_release_clears_callbacks);
  TEST_MAIN_END();
}
