/* A plan pins the schema it was planned with: plan on a copy of a fixture table, commit a new
 * schema file (schema-1 renames column f0), then read the old plan: it reads under schema 0
 * (column f0, same rows), while a builder made afterwards sees schema 1. */
#include <jansson.h>
#include <stdlib.h>
#include <unistd.h>

#include "harness.h"
#include "paimon/paimon.h"

#define SRC PM_SHARED("fixtures/warehouse/parquet/append_09.db")

static int64_t drain(struct ArrowArrayStream *s) {
  int64_t rows = 0;
  for (;;) {
    struct ArrowArray a;
    if (s->get_next(s, &a)) return -1;
    if (!a.release) break;
    rows += a.length;
    a.release(&a);
  }
  return rows;
}

static void first_column(const paimon_read_builder *rb, char *name, size_t cap) {
  paimon_error err = {0};
  struct ArrowSchema sc;
  name[0] = 0;
  CHECK_OK(paimon_read_builder_read_schema(rb, &sc, &err), &err);
  if (sc.release) {
    if (sc.n_children > 0) snprintf(name, cap, "%s", sc.children[0]->name);
    sc.release(&sc);
  }
}

static void test_plan_reads_under_its_schema(void) {
  char wh[] = "/tmp/pm_schema_pin_XXXXXX";
  CHECK(mkdtemp(wh) != NULL);
  char cmd[1024], path[1024];
  snprintf(cmd, sizeof cmd, "cp -r '%s' '%s/'", SRC, wh);
  CHECK_EQ_INT(system(cmd), 0);
  paimon_error err = {0};
  paimon_option co[] = {{"warehouse", wh}};
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  paimon_read_builder *rb = NULL, *rb2 = NULL;
  paimon_plan *plan = NULL;
  CHECK_OK(paimon_catalog_open(co, 1, &cat, &err), &err);
  if (cat) CHECK_OK(paimon_catalog_get_table(cat, "append_09.append_09", &t, &err), &err);
  if (t) CHECK_OK(paimon_read_builder_new(t, NULL, 0, &rb, &err), &err);
  if (rb) CHECK_OK(paimon_read_builder_plan(rb, &plan, &err), &err);
  if (!plan) goto done;
  CHECK_EQ_INT(paimon_table_schema_id(t), 0);

  /* schema-1: f0 renamed */
  snprintf(path, sizeof path, "%s/append_09.db/append_09/schema/schema-0", wh);
  json_error_t je;
  json_t *js = json_load_file(path, 0, &je);
  CHECK(js != NULL);
  if (!js) goto done;
  json_object_set_new(js, "id", json_integer(1));
  json_object_set_new(json_array_get(json_object_get(js, "fields"), 0), "name", json_string("renamed"));
  snprintf(path, sizeof path, "%s/append_09.db/append_09/schema/schema-1", wh);
  CHECK_EQ_INT(json_dump_file(js, path, JSON_INDENT(2)), 0);
  json_decref(js);

  struct ArrowArrayStream s;
  CHECK_OK(paimon_read_plan(rb, plan, &s, &err), &err);
  if (s.release) {
    struct ArrowSchema sc;
    CHECK_EQ_INT(s.get_schema(&s, &sc), 0);
    if (sc.release) {
      CHECK_EQ_STR(sc.children[0]->name, "f0");
      sc.release(&sc);
    }
    CHECK(drain(&s) > 0);
    s.release(&s);
  }
  char name[64];
  first_column(rb, name, sizeof name);
  CHECK_EQ_STR(name, "f0");
  /* a builder made now opens the table again and sees schema 1 */
  paimon_table *t2 = NULL;
  CHECK_OK(paimon_catalog_get_table(cat, "append_09.append_09", &t2, &err), &err);
  if (t2) {
    CHECK_EQ_INT(paimon_table_schema_id(t2), 1);
    CHECK_OK(paimon_read_builder_new(t2, NULL, 0, &rb2, &err), &err);
    if (rb2) first_column(rb2, name, sizeof name);
    CHECK_EQ_STR(name, "renamed");
    paimon_read_builder_free(rb2);
    paimon_table_free(t2);
  }
done:
  paimon_plan_free(plan);
  paimon_read_builder_free(rb);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  CHECK_EQ_INT(system(cmd), 0);
}

int main(void) {
  RUN_TEST(test_plan_reads_under_its_schema);
  TEST_MAIN_END();
}
