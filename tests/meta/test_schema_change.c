/* ALTER TABLE as Java's SchemaManager: every change kind, Java's refusals, field ids,
 * Java's HashMap option order, the cast table, and Java-written evolved fixture schemas
 * reproduced byte for byte from their predecessors. */
#include <jansson.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "data/type_cast.h"
#include "harness.h"
#include "support/fixture_copy.h"
#include "io/fs.h"
#include "io/fs_impl.h"
#include "meta/java_hashmap.h"
#include "meta/schema.h"
#include "meta/schema_change.h"

#define WH PAIMON_SHARED_DIR "/fixtures/warehouse/"

/* ---------------------------------------------------------------- helpers */

static pm_table_schema *parse(const char *json) {
  pm_table_schema *s = NULL;
  pm_error err = {0};
  int rc = pm_schema_parse(json, strlen(json), "test", &s, &err);
  CHECK_MSG(rc == 0, "%s", err.message);
  return s;
}

static pm_table_schema *load(const char *path) {
  pm_buf b = {0};
  pm_error err = {0};
  pm_table_schema *s = NULL;
  if (pm_fs_read_file(pm_fs_local(), path, &b, 0, &err) == 0) pm_schema_parse((const char *)b.data, b.len, path, &s, &err);
  CHECK_MSG(s != NULL, "%s: %s", path, err.message);
  pm_buf_free(&b);
  return s;
}

static char *read_text(const char *path) {
  pm_buf b = {0};
  pm_error err = {0};
  if (pm_fs_read_file(pm_fs_local(), path, &b, 0, &err)) return NULL;
  char *s = strndup((const char *)b.data, b.len);
  pm_buf_free(&b);
  return s;
}

static pm_data_type *type_of(const char *text) {
  pm_data_type *t = NULL;
  pm_error err = {0};
  if (text[0] == '{' || text[0] == '"') {
    json_error_t je;
    json_t *j = json_loads(text, JSON_DECODE_ANY, &je);
    if (j) pm_dtype_from_json(j, "test", &t, &err);
    json_decref(j);
  } else {
    pm_dtype_parse(text, &t, &err);
  }
  CHECK_MSG(t != NULL, "type %s: %s", text, err.message);
  return t;
}

static pm_schema_change col(pm_schema_change_kind k, const char *path) {
  pm_schema_change c = {0};
  pm_error err = {0};
  c.kind = k;
  CHECK_OK(pm_schema_change_set_path(&c, path, &err), &err);
  return c;
}

static pm_schema_change add(const char *path, const char *type, const char *comment, pm_column_move mv,
                            const char *ref) {
  pm_schema_change c = col(PM_SC_ADD_COLUMN, path);
  c.type = type_of(type);
  c.comment = comment ? strdup(comment) : NULL;
  c.move = mv;
  c.reference = ref ? strdup(ref) : NULL;
  return c;
}
static pm_schema_change drop(const char *path) { return col(PM_SC_DROP_COLUMN, path); }
static pm_schema_change ren(const char *path, const char *to) {
  pm_schema_change c = col(PM_SC_RENAME_COLUMN, path);
  c.new_name = strdup(to);
  return c;
}
static pm_schema_change retype(const char *path, const char *type) {
  pm_schema_change c = col(PM_SC_UPDATE_COLUMN_TYPE, path);
  c.type = type_of(type);
  return c;
}
static pm_schema_change nullability(const char *path, int nullable) {
  pm_schema_change c = col(PM_SC_UPDATE_COLUMN_NULLABILITY, path);
  c.nullable = nullable;
  return c;
}
static pm_schema_change col_comment(const char *path, const char *text) {
  pm_schema_change c = col(PM_SC_UPDATE_COLUMN_COMMENT, path);
  c.comment = text ? strdup(text) : NULL;
  return c;
}
static pm_schema_change move(const char *path, pm_column_move mv, const char *ref) {
  pm_schema_change c = col(PM_SC_UPDATE_COLUMN_POSITION, path);
  c.move = mv;
  c.reference = ref ? strdup(ref) : NULL;
  return c;
}
static pm_schema_change set_opt(const char *k, const char *v) {
  pm_schema_change c = {0};
  c.kind = PM_SC_SET_OPTION;
  c.key = strdup(k);
  c.value = strdup(v);
  return c;
}
static pm_schema_change rm_opt(const char *k) {
  pm_schema_change c = {0};
  c.kind = PM_SC_REMOVE_OPTION;
  c.key = strdup(k);
  return c;
}
static pm_schema_change table_comment(const char *text) {
  pm_schema_change c = {0};
  c.kind = PM_SC_UPDATE_COMMENT;
  c.comment = text ? strdup(text) : NULL;
  return c;
}

/* Applies changes (consumed) to old; returns the new schema or NULL with *rc set. */
static pm_table_schema *apply_ex(const pm_table_schema *old, pm_schema_change *cs, size_t n, int has_snapshots,
                                 int64_t now, int *rc, pm_error *err) {
  pm_schema_change_ctx ctx = {"db.t", has_snapshots, now ? now : 42};
  pm_table_schema *out = NULL;
  *rc = pm_schema_apply_changes(old, cs, n, &ctx, &out, err);
  for (size_t i = 0; i < n; i++) pm_schema_change_clear(&cs[i]);
  return out;
}

static pm_table_schema *apply_ok(const pm_table_schema *old, pm_schema_change *cs, size_t n) {
  pm_error err = {0};
  int rc;
  pm_table_schema *s = apply_ex(old, cs, n, 0, 0, &rc, &err);
  CHECK_MSG(rc == 0 && s, "apply failed: %s", err.message);
  return s;
}

/* Expects a refusal with code whose message contains `needle`. */
static void refused(const pm_table_schema *old, pm_schema_change *cs, size_t n, int has_snapshots, int code,
                    const char *needle) {
  pm_error err = {0};
  int rc;
  pm_table_schema *s = apply_ex(old, cs, n, has_snapshots, 0, &rc, &err);
  CHECK_MSG(rc == code && !s, "expected refusal %d (%s), got %d: %s", code, needle, rc, err.message);
  CHECK_MSG(strstr(err.message, needle) != NULL, "message '%s' lacks '%s'", err.message, needle);
  pm_schema_free(s);
}

static const pm_data_field *field(const pm_table_schema *s, const char *name) {
  int i = pm_schema_field_index(s, name);
  return i >= 0 ? &s->fields[i] : NULL;
}

static char *type_str(const pm_data_field *f) { return f ? pm_dtype_to_cstring(f->type) : strdup("(none)"); }

static void check_type(const pm_table_schema *s, const char *name, const char *want) {
  char *t = type_str(field(s, name));
  CHECK_MSG(t && !strcmp(t, want), "column %s: type %s, want %s", name, t, want);
  free(t);
}

static void check_order(const pm_table_schema *s, const char *names) {
  char buf[512] = "";
  for (size_t i = 0; i < s->n_fields; i++) {
    strcat(buf, i ? "," : "");
    strcat(buf, s->fields[i].name);
  }
  CHECK_MSG(!strcmp(buf, names), "columns %s, want %s", buf, names);
}

static const char *BASE =
    "{\"version\":3,\"id\":4,\"fields\":["
    "{\"id\":0,\"name\":\"k\",\"type\":\"INT NOT NULL\"},"
    "{\"id\":1,\"name\":\"p\",\"type\":\"STRING\"},"
    "{\"id\":2,\"name\":\"a\",\"type\":\"INT\",\"description\":\"the a\"},"
    "{\"id\":3,\"name\":\"s\",\"type\":{\"type\":\"ROW\",\"fields\":["
    "{\"id\":4,\"name\":\"x\",\"type\":\"INT\"},{\"id\":5,\"name\":\"y\",\"type\":\"STRING\"}]}},"
    "{\"id\":6,\"name\":\"arr\",\"type\":{\"type\":\"ARRAY\",\"element\":\"INT\"}},"
    "{\"id\":7,\"name\":\"m\",\"type\":{\"type\":\"MAP\",\"key\":\"STRING\",\"value\":{\"type\":\"ROW\",\"fields\":["
    "{\"id\":8,\"name\":\"v\",\"type\":\"INT\"}]}}}"
    "],\"highestFieldId\":10,\"partitionKeys\":[\"p\"],\"primaryKeys\":[\"k\",\"p\"],"
    "\"options\":{\"bucket\":\"2\",\"bucket-key\":\"k\",\"sequence.field\":\"a\",\"fields.a.aggregate-function\":\"sum\","
    "\"merge-engine\":\"deduplicate\"},\"timeMillis\":1}";

static const char *APPEND =
    "{\"version\":3,\"id\":0,\"fields\":["
    "{\"id\":0,\"name\":\"a\",\"type\":\"INT\"},{\"id\":1,\"name\":\"b\",\"type\":\"STRING\"},"
    "{\"id\":2,\"name\":\"c\",\"type\":\"BIGINT\"}],"
    "\"highestFieldId\":2,\"partitionKeys\":[],\"primaryKeys\":[],\"options\":{},\"timeMillis\":1}";

/* ------------------------------------------------------------------ tests */

static void test_add_column(void) {
  pm_table_schema *old = parse(BASE);
  pm_schema_change cs[] = {add("n", "BIGINT", "new", PM_MOVE_NONE, NULL), add("f", "INT", NULL, PM_MOVE_FIRST, NULL),
                           add("af", "DOUBLE", NULL, PM_MOVE_AFTER, "a"), add("bf", "DATE", NULL, PM_MOVE_BEFORE, "p"),
                           add("s.z", "BOOLEAN", NULL, PM_MOVE_NONE, NULL),
                           add("m.value.w", "STRING", NULL, PM_MOVE_FIRST, NULL)};
  pm_table_schema *s = apply_ok(old, cs, 6);
  if (s) {
    CHECK_EQ_INT(s->id, 5);
    CHECK_EQ_INT(s->version, 3);
    CHECK_EQ_INT(s->time_millis, 42);
    check_order(s, "f,k,bf,p,a,af,s,arr,m,n");
    CHECK_EQ_INT(field(s, "n")->id, 11);
    CHECK_EQ_STR(field(s, "n")->description, "new");
    CHECK_EQ_INT(field(s, "f")->id, 12);
    CHECK_EQ_INT(field(s, "af")->id, 13);
    CHECK_EQ_INT(field(s, "bf")->id, 14);
    const pm_data_type *row = field(s, "s")->type;
    CHECK_EQ_INT(row->n_fields, 3);
    CHECK_EQ_STR(row->fields[2].name, "z");
    CHECK_EQ_INT(row->fields[2].id, 15);
    const pm_data_type *mv = field(s, "m")->type->value;
    CHECK_EQ_INT(mv->n_fields, 2);
    CHECK_EQ_STR(mv->fields[0].name, "w");
    CHECK_EQ_INT(mv->fields[0].id, 16);
    CHECK_EQ_INT(s->highest_field_id, 16);
  }
  pm_schema_free(s);
  /* a ROW column: Java's ReassignFieldId numbers the column, then nested fields with a
   * field's own nested ROW before the field itself */
  pm_schema_change c2[] = {add("r", "{\"type\":\"ROW\",\"fields\":[{\"id\":0,\"name\":\"q\",\"type\":{\"type\":\"ROW\","
                                    "\"fields\":[{\"id\":0,\"name\":\"q1\",\"type\":\"INT\"}]}},"
                                    "{\"id\":0,\"name\":\"t\",\"type\":\"INT\"}]}",
                               NULL, PM_MOVE_NONE, NULL)};
  s = apply_ok(old, c2, 1);
  if (s) {
    const pm_data_field *r = field(s, "r");
    CHECK_EQ_INT(r->id, 11);
    CHECK_EQ_INT(r->type->fields[0].type->fields[0].id, 12); /* q1 */
    CHECK_EQ_INT(r->type->fields[0].id, 13);                 /* q */
    CHECK_EQ_INT(r->type->fields[1].id, 14);                 /* t */
    CHECK_EQ_INT(s->highest_field_id, 14);
  }
  pm_schema_free(s);
  /* refusals */
  pm_schema_change r1[] = {add("n", "INT NOT NULL", NULL, PM_MOVE_NONE, NULL)};
  refused(old, r1, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot specify NOT NULL");
  pm_schema_change r2[] = {add("a", "INT", NULL, PM_MOVE_NONE, NULL)};
  refused(old, r2, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "column a already exists");
  pm_schema_change r3[] = {add("s.x", "INT", NULL, PM_MOVE_NONE, NULL)};
  refused(old, r3, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "column s.x already exists");
  pm_schema_change r4[] = {add("n", "INT", NULL, PM_MOVE_AFTER, "nope")};
  refused(old, r4, 1, 0, PAIMON_ERR_NOT_FOUND, "nope");
  pm_schema_change r5[] = {add("zz.q", "INT", NULL, PM_MOVE_NONE, NULL)};
  refused(old, r5, 1, 0, PAIMON_ERR_NOT_FOUND, "column zz does not exist");
  pm_schema_change r6[] = {add("_KEY_x", "INT", NULL, PM_MOVE_NONE, NULL)};
  refused(old, r6, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "_KEY_");
  pm_schema_free(old);
}

static void test_add_before_partition(void) {
  pm_table_schema *old = parse(BASE);
  pm_error err = {0};
  CHECK_OK(pm_options_set(&old->options, pm_core_option_key(PM_CO_ADD_COLUMN_BEFORE_PARTITION), "true", &err), &err);
  pm_schema_change cs[] = {add("n", "INT", NULL, PM_MOVE_NONE, NULL), add("s.n", "INT", NULL, PM_MOVE_NONE, NULL)};
  pm_table_schema *s = apply_ok(old, cs, 2);
  if (s) {
    check_order(s, "k,n,p,a,s,arr,m");
    CHECK_EQ_STR(field(s, "s")->type->fields[2].name, "n");
  }
  pm_schema_free(s);
  pm_schema_free(old);
}

static void test_drop_column(void) {
  pm_table_schema *old = parse(BASE);
  pm_schema_change cs[] = {drop("a"), drop("s.x")};
  pm_table_schema *s = apply_ok(old, cs, 2);
  if (s) {
    check_order(s, "k,p,s,arr,m");
    CHECK_EQ_INT(field(s, "s")->type->n_fields, 1);
    CHECK_EQ_INT(s->highest_field_id, 10); /* never decreases */
  }
  pm_schema_free(s);
  pm_schema_change r1[] = {drop("p")};
  refused(old, r1, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot drop partition key or primary key: [p]");
  pm_schema_change r2[] = {drop("k")};
  refused(old, r2, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "[k]");
  pm_schema_change r3[] = {drop("nope")};
  refused(old, r3, 1, 0, PAIMON_ERR_NOT_FOUND, "column nope does not exist");
  pm_schema_change r4[] = {drop("s.x"), drop("s.y")};
  refused(old, r4, 2, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot drop all fields");
  pm_schema_free(old);
  pm_table_schema *ap = parse(APPEND);
  pm_schema_change r5[] = {drop("a"), drop("b"), drop("c")};
  refused(ap, r5, 3, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot drop all fields");
  pm_schema_free(ap);
}

static void test_rename_column(void) {
  pm_table_schema *old = parse(BASE);
  pm_schema_change cs[] = {ren("a", "a2"), ren("k", "k2"), ren("s.x", "x2")};
  pm_table_schema *s = apply_ok(old, cs, 3);
  if (s) {
    check_order(s, "k2,p,a2,s,arr,m");
    CHECK_EQ_INT(field(s, "a2")->id, 2);
    CHECK_EQ_STR(field(s, "a2")->description, "the a");
    CHECK_EQ_STR(field(s, "s")->type->fields[0].name, "x2");
    CHECK_EQ_STR(s->primary_keys[0], "k2"); /* primary keys follow a rename */
    CHECK_EQ_STR(pm_options_get(&s->options, "bucket-key"), "k2");
    CHECK_EQ_STR(pm_options_get(&s->options, "sequence.field"), "a2");
    CHECK(pm_options_get(&s->options, "fields.a.aggregate-function") == NULL);
    CHECK_EQ_STR(pm_options_get(&s->options, "fields.a2.aggregate-function"), "sum");
  }
  pm_schema_free(s);
  pm_schema_change r1[] = {ren("p", "p2")};
  refused(old, r1, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot rename partition column: [p]");
  pm_schema_change r2[] = {ren("a", "k")};
  refused(old, r2, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "column k already exists");
  pm_schema_change r3[] = {ren("nope", "x")};
  refused(old, r3, 1, 0, PAIMON_ERR_NOT_FOUND, "nope");
  pm_schema_change r4[] = {ren("s.x", "y")};
  refused(old, r4, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "column s.y already exists");
  pm_schema_free(old);
}

static void test_update_column_type(void) {
  pm_table_schema *old = parse(BASE);
  pm_schema_change cs[] = {retype("a", "BIGINT"), retype("s.x", "DOUBLE"), retype("arr.element", "BIGINT"),
                           retype("m.value.v", "STRING")};
  pm_table_schema *s = apply_ok(old, cs, 4);
  if (s) {
    check_type(s, "a", "BIGINT");
    CHECK_EQ_INT(field(s, "a")->id, 2);
    char *t = pm_dtype_to_cstring(field(s, "s")->type->fields[0].type);
    CHECK_EQ_STR(t, "DOUBLE");
    free(t);
    t = pm_dtype_to_cstring(field(s, "arr")->type);
    CHECK_EQ_STR(t, "ARRAY<BIGINT>");
    free(t);
    t = pm_dtype_to_cstring(field(s, "m")->type->value->fields[0].type);
    CHECK_EQ_STR(t, "STRING");
    free(t);
  }
  pm_schema_free(s);
  pm_schema_change r1[] = {retype("p", "INT")};
  refused(old, r1, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot update partition column: [p]");
  pm_schema_change r2[] = {retype("k", "BIGINT")};
  refused(old, r2, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot update primary key");
  pm_schema_change r3[] = {retype("a", "DATE")};
  refused(old, r3, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "column type a[INT] cannot be converted to DATE");
  pm_schema_change r4[] = {retype("a", "INT NOT NULL")};
  refused(old, r4, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "nullable to non nullable");
  pm_schema_change r5[] = {retype("s", "STRING"), retype("arr", "{\"type\":\"ARRAY\",\"element\":\"BIGINT\"}")};
  pm_error err = {0};
  int rc;
  s = apply_ex(old, r5, 1, 0, 0, &rc, &err); /* ROW -> STRING: an explicit cast Java allows */
  CHECK_MSG(rc == 0, "%s", err.message);
  pm_schema_free(s);
  pm_schema_change_clear(&r5[1]);
  pm_schema_change r6[] = {retype("arr", "{\"type\":\"ARRAY\",\"element\":\"BIGINT\"}")};
  refused(old, r6, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot be converted"); /* whole ARRAY: no cast rule */
  pm_schema_change r7[] = {retype("zz", "INT")};
  refused(old, r7, 1, 0, PAIMON_ERR_NOT_FOUND, "column zz does not exist");
  /* disable-explicit-type-casting: only implicit (widening) casts */
  CHECK_OK(pm_options_set(&old->options, pm_core_option_key(PM_CO_DISABLE_EXPLICIT_TYPE_CASTING), "true", &err), &err);
  pm_schema_change r8[] = {retype("a", "SMALLINT")};
  refused(old, r8, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot be converted to SMALLINT");
  pm_schema_change ok2[] = {retype("a", "BIGINT")};
  s = apply_ok(old, ok2, 1);
  pm_schema_free(s);
  pm_schema_free(old);
}

static void test_cast_table(void) {
  struct {
    const char *from, *to;
    int allowed_explicit, allowed_implicit;
  } cases[] = {
      {"INT", "BIGINT", 1, 1},          {"BIGINT", "INT", 1, 0},          {"INT", "DOUBLE", 1, 1},
      {"FLOAT", "DOUBLE", 1, 1},        {"DOUBLE", "FLOAT", 1, 0},        {"INT", "STRING", 1, 0},
      {"STRING", "INT", 1, 0},          {"STRING", "BOOLEAN", 1, 0},      {"BOOLEAN", "STRING", 1, 0},
      {"STRING", "BYTES", 1, 0},        {"BYTES", "STRING", 1, 0},        {"DECIMAL(5, 2)", "DECIMAL(6, 3)", 1, 1},
      {"DATE", "TIMESTAMP(3)", 1, 0},   {"TIMESTAMP(3)", "DATE", 1, 1},   {"TIMESTAMP(6)", "STRING", 1, 0},
      {"TIMESTAMP(6)", "VARCHAR(10)", 0, 0}, {"DATE", "VARCHAR(10)", 0, 0}, {"INT", "DATE", 0, 0},
      {"DOUBLE", "TIMESTAMP(3)", 0, 0}, {"INT", "TIMESTAMP(0)", 1, 0},    {"TIMESTAMP(9)", "INT", 1, 0},
      {"TIMESTAMP(9)", "TIMESTAMP_LTZ(9)", 1, 1}, {"BOOLEAN", "INT", 1, 0}, {"INT", "BOOLEAN", 1, 0},
      {"DOUBLE", "BOOLEAN", 0, 0},      {"BOOLEAN", "BOOLEAN", 0, 0},     {"INT", "INT", 1, 1},
      {"VARIANT", "STRING", 0, 0},      {"STRING", "VARIANT", 0, 0},      {"TIME(0)", "TIMESTAMP(3)", 1, 0},
  };
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    pm_data_type *a = type_of(cases[i].from), *b = type_of(cases[i].to);
    if (!a || !b) continue;
    int ex = pm_dtype_supports_cast(a, b, 1) && pm_dtype_cast_resolvable(a, b);
    int im = pm_dtype_supports_cast(a, b, 0) && pm_dtype_cast_resolvable(a, b);
    CHECK_MSG(ex == cases[i].allowed_explicit && im == cases[i].allowed_implicit, "%s -> %s: explicit %d implicit %d",
              cases[i].from, cases[i].to, ex, im);
    pm_dtype_free(a);
    pm_dtype_free(b);
  }
}

static void test_nullability_and_comments(void) {
  pm_table_schema *old = parse(BASE);
  pm_schema_change cs[] = {nullability("k", 0), col_comment("a", "new a"), col_comment("s.y", "why"),
                           table_comment("the table")};
  pm_table_schema *s = apply_ok(old, cs, 4);
  if (s) {
    CHECK_EQ_STR(field(s, "a")->description, "new a");
    CHECK_EQ_STR(field(s, "s")->type->fields[1].description, "why");
    CHECK_EQ_STR(s->comment, "the table");
  }
  pm_schema_free(s);
  pm_schema_change r1[] = {nullability("a", 0)};
  refused(old, r1, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "column a from nullable to non nullable");
  pm_schema_change r2[] = {nullability("k", 1)};
  refused(old, r2, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot change nullability of primary key [k]");
  pm_schema_change r3[] = {nullability("s.q", 1)};
  refused(old, r3, 1, 0, PAIMON_ERR_NOT_FOUND, "column s.q does not exist");
  /* with alter-column-null-to-not-null.disabled = false Java allows it */
  pm_error err = {0};
  CHECK_OK(pm_options_set(&old->options, pm_core_option_key(PM_CO_ALTER_NULL_TO_NOT_NULL_DISABLED), "false", &err),
           &err);
  pm_schema_change ok2[] = {nullability("a", 0), nullability("arr.element", 0), table_comment(NULL)};
  s = apply_ok(old, ok2, 3);
  if (s) {
    check_type(s, "a", "INT NOT NULL");
    check_type(s, "arr", "ARRAY<INT NOT NULL>");
    CHECK(s->comment == NULL);
  }
  pm_schema_free(s);
  pm_schema_free(old);
}

static void test_position(void) {
  pm_table_schema *old = parse(APPEND);
  pm_schema_change cs[] = {move("c", PM_MOVE_FIRST, NULL)};
  pm_table_schema *s = apply_ok(old, cs, 1);
  if (s) check_order(s, "c,a,b");
  pm_schema_free(s);
  pm_schema_change c2[] = {move("a", PM_MOVE_AFTER, "b")};
  s = apply_ok(old, c2, 1);
  if (s) check_order(s, "b,a,c");
  pm_schema_free(s);
  pm_schema_change c3[] = {move("a", PM_MOVE_LAST, NULL)};
  s = apply_ok(old, c3, 1);
  if (s) check_order(s, "b,c,a");
  pm_schema_free(s);
  pm_schema_change c4[] = {move("c", PM_MOVE_BEFORE, "a")};
  s = apply_ok(old, c4, 1);
  if (s) check_order(s, "c,a,b");
  pm_schema_free(s);
  pm_schema_change r1[] = {move("a", PM_MOVE_FIRST, NULL)};
  refused(old, r1, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "cannot move itself for column a");
  pm_schema_change r2[] = {move("a", PM_MOVE_AFTER, "zz")};
  refused(old, r2, 1, 0, PAIMON_ERR_NOT_FOUND, "reference field name not found: zz");
  pm_schema_change r3[] = {move("zz", PM_MOVE_FIRST, NULL)};
  refused(old, r3, 1, 0, PAIMON_ERR_NOT_FOUND, "field name not found: zz");
  pm_schema_free(old);
}

static void test_options(void) {
  pm_table_schema *old = parse(BASE);
  pm_schema_change cs[] = {set_opt("snapshot.num-retained.min", "3"), rm_opt("sequence.field"),
                           set_opt("merge-engine", "partial-update")};
  pm_table_schema *s = apply_ok(old, cs, 3); /* no snapshot: immutable options may change */
  if (s) {
    CHECK_EQ_STR(pm_options_get(&s->options, "snapshot.num-retained.min"), "3");
    CHECK(pm_options_get(&s->options, "sequence.field") == NULL);
    CHECK_EQ_STR(pm_options_get(&s->options, "merge-engine"), "partial-update");
  }
  pm_schema_free(s);
  /* with a snapshot: Java's checkAlterTableOption / checkResetTableOption */
  pm_schema_change r1[] = {set_opt("merge-engine", "first-row")};
  refused(old, r1, 1, 1, PAIMON_ERR_INVALID_ARGUMENT, "change 'merge-engine' is not supported yet");
  pm_schema_change r2[] = {rm_opt("bucket-key")};
  refused(old, r2, 1, 1, PAIMON_ERR_INVALID_ARGUMENT, "change 'bucket-key' is not supported yet");
  pm_schema_change r3[] = {rm_opt("bucket")};
  refused(old, r3, 1, 1, PAIMON_ERR_INVALID_ARGUMENT, "cannot reset bucket");
  pm_schema_change r4[] = {set_opt("bucket", "-1")};
  refused(old, r4, 1, 1, PAIMON_ERR_INVALID_ARGUMENT, "cannot change bucket to -1");
  pm_schema_change r5[] = {set_opt("type", "format-table")};
  refused(old, r5, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "change 'type' is not supported yet");
  pm_schema_change r6[] = {set_opt("bucket", "abc")};
  refused(old, r6, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "'bucket'");
  pm_schema_change r7[] = {set_opt("snapshot.num-retained.min", "0")};
  refused(old, r7, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "snapshot.num-retained.min");
  pm_schema_change r8[] = {set_opt("deletion-vectors.enabled", "true")};
  refused(old, r8, 1, 1, PAIMON_ERR_INVALID_ARGUMENT, "deletion vectors mode");
  pm_schema_change r9[] = {set_opt("partition", "a")};
  refused(old, r9, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "partition on DDL and table options");
  /* unchanged values pass even when immutable */
  pm_schema_change ok1[] = {set_opt("merge-engine", "deduplicate"), set_opt("type", "TABLE"),
                            set_opt("bucket", "4")};
  pm_error err = {0};
  int rc;
  s = apply_ex(old, ok1, 3, 1, 0, &rc, &err);
  CHECK_MSG(rc == 0, "%s", err.message);
  if (s) CHECK(pm_options_get(&s->options, "type") == NULL);
  pm_schema_free(s);
  pm_schema_free(old);
  /* ignore-delete may turn on but not off again */
  pm_table_schema *ap = parse(APPEND);
  CHECK_OK(pm_options_set(&ap->options, "ignore-delete", "true", &err), &err);
  pm_schema_change r10[] = {set_opt("ignore-delete", "false")};
  refused(ap, r10, 1, 1, PAIMON_ERR_INVALID_ARGUMENT, "cannot change ignore-delete from true to false");
  pm_schema_change r11[] = {set_opt("bucket", "3")};
  refused(ap, r11, 1, 1, PAIMON_ERR_INVALID_ARGUMENT, "cannot change bucket when it is -1");
  pm_schema_change r12[] = {set_opt("changelog-producer", "input")};
  refused(ap, r12, 1, 0, PAIMON_ERR_INVALID_ARGUMENT, "without primary keys");
  /* partition option on a table without partition keys becomes its partition keys */
  pm_schema_change ok2[] = {set_opt("partition", "b")};
  s = apply_ok(ap, ok2, 1);
  if (s) {
    CHECK_EQ_INT(s->n_partition_keys, 1);
    if (s->n_partition_keys) CHECK_EQ_STR(s->partition_keys[0], "b");
    CHECK(pm_options_get(&s->options, "partition") == NULL);
  }
  pm_schema_free(s);
  pm_schema_free(ap);
}

/* Java's String.hashCode (s[0]*31^(n-1) + ... in 32 bits) and HashMap iteration order. */
static void test_java_hashmap(void) {
  CHECK_EQ_INT(pm_java_string_hash("bucket"), -1378203158);
  CHECK_EQ_INT(pm_java_string_hash(""), 0);
  CHECK_EQ_INT(pm_java_string_hash("a"), 97);
  pm_jmap m;
  pm_error err = {0};
  pm_jmap_init(&m);
  const char *keys[] = {"manifest.format", "file.format"};
  for (size_t i = 0; i < 2; i++) CHECK_OK(pm_jmap_put(&m, keys[i], &err), &err);
  const char **order = NULL;
  CHECK_OK(pm_jmap_order(&m, &order, &err), &err);
  if (order) CHECK_EQ_STR(order[0], "manifest.format");
  free(order);
  pm_jmap_clear(&m);
}

/* ----------------------------------------- Java-written evolved fixture schemas */

/* Applies cs to dir/schema-<from> and compares with dir/schema-<from+1> byte for byte
 * (timeMillis taken from the expected file). */
static void reproduce(const char *dir, int from, pm_schema_change *cs, size_t n, int has_snapshots) {
  char p0[1024], p1[1024];
  snprintf(p0, sizeof p0, WH "%s/schema/schema-%d", dir, from);
  snprintf(p1, sizeof p1, WH "%s/schema/schema-%d", dir, from + 1);
  pm_table_schema *old = load(p0), *want = load(p1);
  char *text = read_text(p1);
  if (!old || !want || !text) {
    for (size_t i = 0; i < n; i++) pm_schema_change_clear(&cs[i]);
    goto done;
  }
  pm_error err = {0};
  int rc;
  pm_table_schema *got = apply_ex(old, cs, n, has_snapshots, want->time_millis, &rc, &err);
  CHECK_MSG(rc == 0 && got, "%s schema-%d: %s", dir, from, err.message);
  if (got) {
    pm_buf b = {0};
    CHECK_OK(pm_schema_to_json(got, &b, &err), &err);
    CHECK_MSG(b.len == strlen(text) && !memcmp(b.data, text, b.len), "%s schema-%d:\n got: %.*s\nwant: %s", dir,
              from + 1, (int)b.len, (const char *)b.data, text);
    pm_buf_free(&b);
    CHECK_EQ_INT(got->highest_field_id, want->highest_field_id);
  }
  pm_schema_free(got);
done:
  free(text);
  pm_schema_free(old);
  pm_schema_free(want);
}

static void test_fixture_schemas(void) {
  const char *fmts[] = {"parquet", "orc"};
  for (int f = 0; f < 2; f++) {
    char dir[256];
    snprintf(dir, sizeof dir, "%s/append_table_with_alter_table.db/append_table_with_alter_table", fmts[f]);
    pm_schema_change a[] = {drop("a"),
                            drop("c"),
                            ren("b", "c"),
                            ren("d", "a"),
                            move("k", PM_MOVE_AFTER, "key1"),
                            add("d", "INT", "", PM_MOVE_AFTER, "c"),
                            add("e", "INT", NULL, PM_MOVE_NONE, NULL)};
    reproduce(dir, 0, a, 7, 1);

    snprintf(dir, sizeof dir, "%s/append_table_alter_table_with_cast.db/append_table_alter_table_with_cast", fmts[f]);
    pm_schema_change b[] = {drop("f5"),
                            retype("f0", "INT"),
                            retype("f3", "BOOLEAN"),
                            retype("f1", "STRING"),
                            retype("f2", "DECIMAL(6, 3)"),
                            retype("f4", "TIMESTAMP(9)"),
                            ren("f0", "tmp"),
                            ren("f3", "f0"),
                            ren("tmp", "f3"),
                            move("f4", PM_MOVE_FIRST, NULL),
                            add("f6", "INT", NULL, PM_MOVE_NONE, NULL)};
    reproduce(dir, 0, b, 11, 1);

    snprintf(dir, sizeof dir, "%s/append_with_bitmap_alter_table.db/append_with_bitmap_alter_table", fmts[f]);
    pm_schema_change c[] = {ren("f0", "f4"), retype("f1", "BIGINT"), drop("f2"), add("f5", "INT", NULL, PM_MOVE_NONE, NULL),
                            move("f1", PM_MOVE_FIRST, NULL), set_opt("file-index.bitmap.columns", "f1,f4,f5")};
    reproduce(dir, 0, c, 6, 1);

    snprintf(dir, sizeof dir, "%s/append_table_with_rt_branch.db/append_table_with_rt_branch", fmts[f]);
    pm_schema_change d[] = {set_opt("scan.fallback-branch", "rt")};
    reproduce(dir, 0, d, 1, 1);

    snprintf(dir, sizeof dir, "%s/append_with_cast_timestamp.db/append_with_cast_timestamp", fmts[f]);
    pm_schema_change e[] = {retype("ts_sec", "INT"),
                            retype("ts_milli", "DATE"),
                            retype("ts_micro", "STRING"),
                            retype("ts_nano", "TIMESTAMP(9) WITH LOCAL TIME ZONE"),
                            retype("ts_tz_sec", "INT"),
                            retype("ts_tz_milli", "DATE"),
                            retype("ts_tz_micro", "STRING"),
                            retype("ts_tz_nano", "TIMESTAMP(9)"),
                            retype("int_ts_sec", "TIMESTAMP(0)"),
                            retype("int_ts_tz_micro", "TIMESTAMP(6) WITH LOCAL TIME ZONE")};
    reproduce(dir, 0, e, 10, 1);
  }
  {
    const char *dir = "orc/append_table_with_alter_table_with_dense_field.db/append_table_with_alter_table_with_dense_field";
    pm_schema_change a[] = {drop("f0"), ren("f1", "tmp"), ren("f2", "f1"), ren("tmp", "f2"),
                            add("f4", "INT", NULL, PM_MOVE_NONE, NULL)};
    reproduce(dir, 0, a, 5, 1);
    const char *mf = "append_table_with_multiple_file_format.db/append_table_with_multiple_file_format";
    pm_schema_change b[] = {set_opt("file.format", "parquet")};
    reproduce(mf, 0, b, 1, 1);
  }
  /* primary-key table: renames of key columns carried into primaryKeys and sequence.field */
  const char *pk = "parquet/pk_table_with_mor.db/pk_table_with_mor";
  pm_schema_change s0[] = {ren("k1", "tmp")};
  reproduce(pk, 0, s0, 1, 1);
  pm_schema_change s1[] = {ren("k0", "k1")};
  reproduce(pk, 1, s1, 1, 1);
  pm_schema_change s2[] = {ren("tmp", "k0")};
  reproduce(pk, 2, s2, 1, 1);
  pm_schema_change s3[] = {ren("s1", "tmp"), retype("tmp", "BYTES"), add("v2", "INT", NULL, PM_MOVE_NONE, NULL)};
  reproduce(pk, 3, s3, 3, 1);
  pm_schema_change s4[] = {ren("s0", "s1")};
  reproduce(pk, 4, s4, 1, 1);
  pm_schema_change s5[] = {ren("tmp", "s0"), retype("v0", "INT"), retype("v1", "STRING")};
  reproduce(pk, 5, s5, 3, 1);
  pm_schema_change s6[] = {set_opt("sequence.field", "s0,s1")};
  reproduce(pk, 6, s6, 1, 1);
}

/* ------------------------------------------- commit: create-if-absent, Java's retry */

/* A file system where a concurrent writer publishes `competitor` as the schema file our
 * commit is about to create (once). */
typedef struct race {
  pm_fs *inner;
  const char *competitor;
  int raced;
} race;

static int r_open(pm_fs *fs, const char *p, pm_file **o, pm_error *e) { return pm_fs_open(((race *)fs->state)->inner, p, o, e); }
static int r_create(pm_fs *fs, const char *p, pm_out_file **o, pm_error *e) {
  race *r = fs->state;
  if (!r->raced && strstr(p, "/schema/schema-")) {
    r->raced = 1;
    PM_TRY(pm_fs_write_file(r->inner, p, r->competitor, strlen(r->competitor), PM_OUT_CREATE_IF_ABSENT, e));
  }
  return pm_fs_create(r->inner, p, o, e);
}
static int r_list(pm_fs *fs, const char *d, const char *pre, char ***n, size_t *c, pm_error *e) {
  return pm_fs_list(((race *)fs->state)->inner, d, pre, n, c, e);
}
static int r_stat(pm_fs *fs, const char *p, pm_file_stat *st, pm_error *e) { return pm_fs_stat(((race *)fs->state)->inner, p, st, e); }
static int r_remove(pm_fs *fs, const char *p, pm_error *e) { return pm_fs_delete(((race *)fs->state)->inner, p, e); }
static int r_mkdirs(pm_fs *fs, const char *p, pm_error *e) { return pm_fs_mkdirs(((race *)fs->state)->inner, p, e); }
static int r_rename(pm_fs *fs, const char *a, const char *b, pm_error *e) { return pm_fs_rename(((race *)fs->state)->inner, a, b, e); }
static const pm_fs_ops RACE_OPS = {"race", r_open, r_create, r_list, r_stat, r_remove, r_mkdirs, r_rename, NULL};


static void test_commit(void) {
  char dir[] = "/tmp/pm_schema_change_XXXXXX";
  CHECK(mkdtemp(dir) != NULL);
  char table[1200];
  snprintf(table, sizeof table, "%s/t", dir);
  CHECK_EQ_INT(fc_copy_tree(WH "parquet/append_table_with_alter_table.db/append_table_with_alter_table", table), 0);
  pm_error err = {0};
  pm_schema_manager m = pm_schema_manager_of(pm_fs_local(), table, NULL);
  pm_schema_change c1[] = {add("x", "INT", NULL, PM_MOVE_NONE, NULL)};
  pm_table_schema *s = NULL;
  CHECK_OK(pm_schema_commit_changes(&m, "db.t", c1, 1, 0, &s, &err), &err);
  pm_schema_change_clear(&c1[0]);
  CHECK(s && s->id == 2 && s->highest_field_id == 9);
  pm_schema_free(s);
  pm_table_schema *latest = NULL;
  CHECK_OK(pm_schema_read_latest(&m, &latest, &err), &err);
  CHECK(latest && latest->id == 2 && field(latest, "x") && field(latest, "x")->id == 9);
  /* immutable option on a table with snapshots: refused, nothing written */
  pm_schema_change c2[] = {set_opt("bucket-key", "k")};
  CHECK_EQ_INT(pm_schema_commit_changes(&m, "db.t", c2, 1, 0, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  pm_schema_change_clear(&c2[0]);
  int64_t *ids = NULL;
  size_t n = 0;
  CHECK_OK(pm_schema_list_ids(&m, &ids, &n, &err), &err);
  CHECK_EQ_INT(n, 3);
  free(ids);

  /* a concurrent change publishes schema-3 first (adding column w): we re-read it and apply
   * our change on top (Java's commitChanges loop) */
  pm_schema_change cw[] = {add("w", "INT", NULL, PM_MOVE_NONE, NULL)};
  pm_table_schema *theirs = apply_ok(latest, cw, 1);
  pm_buf b = {0};
  CHECK_OK(pm_schema_to_json(theirs, &b, &err), &err);
  char *competitor = strndup((const char *)b.data, b.len);
  pm_buf_free(&b);
  race r = {pm_fs_local(), competitor, 0};
  pm_fs *rfs = NULL;
  CHECK_OK(pm_fs_new(&RACE_OPS, &r, &rfs, &err), &err);
  pm_schema_manager rm = pm_schema_manager_of(rfs, table, NULL);
  pm_schema_change c3[] = {add("y", "STRING", NULL, PM_MOVE_NONE, NULL)};
  CHECK_OK(pm_schema_commit_changes(&rm, "db.t", c3, 1, 0, &s, &err), &err);
  CHECK(r.raced == 1);
  CHECK(s && s->id == 4 && field(s, "w") && field(s, "y") && field(s, "y")->id == 11);
  pm_schema_free(s);
  /* the same race with one attempt: PAIMON_ERR_CONFLICT, nothing of ours written */
  pm_schema_free(theirs);
  free(competitor);
  pm_schema_free(latest);
  CHECK_OK(pm_schema_read_latest(&m, &latest, &err), &err);
  pm_schema_change cz[] = {add("z", "INT", NULL, PM_MOVE_NONE, NULL)};
  theirs = apply_ok(latest, cz, 1);
  b = (pm_buf){0};
  CHECK_OK(pm_schema_to_json(theirs, &b, &err), &err);
  competitor = strndup((const char *)b.data, b.len);
  pm_buf_free(&b);
  r.competitor = competitor;
  r.raced = 0;
  pm_schema_change c4[] = {add("y2", "STRING", NULL, PM_MOVE_NONE, NULL)};
  CHECK_EQ_INT(pm_schema_commit_changes(&rm, "db.t", c4, 1, 1, NULL, &err), PAIMON_ERR_CONFLICT);
  pm_schema_change_clear(&c4[0]);
  CHECK(strstr(err.message, "concurrent") != NULL);
  /* and the loser's retry is validated against the winner: the same column twice is refused */
  pm_schema_free(latest);
  CHECK_OK(pm_schema_read_latest(&m, &latest, &err), &err);
  pm_schema_change cq[] = {add("q", "INT", NULL, PM_MOVE_NONE, NULL)};
  pm_table_schema *theirs2 = apply_ok(latest, cq, 1);
  b = (pm_buf){0};
  CHECK_OK(pm_schema_to_json(theirs2, &b, &err), &err);
  char *competitor2 = strndup((const char *)b.data, b.len);
  pm_buf_free(&b);
  r.competitor = competitor2;
  r.raced = 0;
  pm_schema_change mine[] = {add("q", "INT", NULL, PM_MOVE_NONE, NULL)};
  CHECK_EQ_INT(pm_schema_commit_changes(&rm, "db.t", mine, 1, 0, NULL, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "column q already exists") != NULL);
  pm_schema_change_clear(&mine[0]);
  pm_schema_change_clear(&c3[0]);
  CHECK_OK(pm_schema_list_ids(&m, &ids, &n, &err), &err);
  CHECK_EQ_INT(n, 7); /* 0..6: ours 1,2,4; theirs 3,5,6 */
  free(ids);
  /* a missing table */
  pm_schema_manager none = pm_schema_manager_of(pm_fs_local(), dir, NULL);
  pm_schema_change cn[] = {add("q", "INT", NULL, PM_MOVE_NONE, NULL)};
  CHECK_EQ_INT(pm_schema_commit_changes(&none, "db.none", cn, 1, 0, NULL, &err), PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "db.none") != NULL);
  pm_schema_change_clear(&cn[0]);
  pm_schema_free(theirs);
  pm_schema_free(theirs2);
  pm_schema_free(latest);
  free(competitor);
  free(competitor2);
  pm_fs_unref(rfs);
  char cmd[256];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  CHECK_EQ_INT(system(cmd), 0);
}

int main(void) {
  RUN_TEST(test_add_column);
  RUN_TEST(test_add_before_partition);
  RUN_TEST(test_drop_column);
  RUN_TEST(test_rename_column);
  RUN_TEST(test_update_column_type);
  RUN_TEST(test_cast_table);
  RUN_TEST(test_nullability_and_comments);
  RUN_TEST(test_position);
  RUN_TEST(test_options);
  RUN_TEST(test_java_hashmap);
  RUN_TEST(test_fixture_schemas);
  RUN_TEST(test_commit);
  TEST_MAIN_END();
}
