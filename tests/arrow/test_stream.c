/* ArrowArrayStream helpers and release rules (run under ASan: no leak, no double free). */
#include <errno.h>

#include "arrow/builder.h"
#include "arrow/stream.h"
#include "support/arrow_test_util.h"
#include "harness.h"

static pm_error err;

static void make_batch(int base, int rows, struct ArrowArray *out) {
  pm_type t;
  tu_type("b:+s{a:i;l:+l{item:u}}", &t);
  pm_builder *b;
  pm_builder_new(&t, &b, &err);
  for (int r = 0; r < rows; r++) {
    pm_builder_append_int(pm_builder_child(b, 0), base + r, &err);
    pm_builder *l = pm_builder_child(b, 1);
    pm_builder_append_str(pm_builder_child(l, 0), "v", &err);
    pm_builder_append_valid(l, &err);
    pm_builder_append_valid(b, &err);
  }
  pm_builder_finish(b, out, &err);
  pm_builder_free(b);
  pm_type_free(&t);
}

static void test_from_batches_and_collect(void) {
  struct ArrowSchema s;
  tu_schema("b:+s{a:i;l:+l{item:u}}", &s);
  struct ArrowArray batches[3];
  make_batch(0, 3, &batches[0]);
  make_batch(3, 0, &batches[1]);
  make_batch(3, 4, &batches[2]);
  struct ArrowArrayStream st;
  CHECK_OK(pm_stream_from_batches(&s, batches, 3, &st, &err), &err);
  CHECK(s.release == NULL && batches[0].release == NULL && batches[2].release == NULL);
  /* get_schema can be called repeatedly; each result is independent. */
  struct ArrowSchema s1, s2;
  CHECK_EQ_INT(st.get_schema(&st, &s1), 0);
  CHECK_EQ_INT(st.get_schema(&st, &s2), 0);
  CHECK_EQ_STR(s1.children[1]->format, "+l");
  pm_schema_release(&s1);
  pm_schema_release(&s2);
  pm_batch_vec v;
  CHECK_OK(pm_stream_collect(&st, &v, &err), &err);
  CHECK_EQ_INT(v.n, 3);
  CHECK_EQ_INT(pm_batch_vec_rows(&v), 7);
  CHECK_EQ_STR(v.schema.format, "+s");
  /* End of stream is sticky. */
  struct ArrowArray end;
  CHECK_EQ_INT(st.get_next(&st, &end), 0);
  CHECK(end.release == NULL);
  CHECK(st.get_last_error(&st) == NULL);
  st.release(&st);
  CHECK(st.release == NULL);
  pm_type t;
  pm_type_from_schema(&v.schema, &t, &err);
  CHECK_EQ_STR(tu_json(&t, &v.batches[2]),
               "[{\"a\":3,\"l\":[\"v\"]},{\"a\":4,\"l\":[\"v\"]},{\"a\":5,\"l\":[\"v\"]},{\"a\":6,\"l\":[\"v\"]}]");
  pm_type_free(&t);
  pm_batch_vec_free(&v);
}

/* Releasing a stream with unread batches frees them. */
static void test_release_unread(void) {
  struct ArrowSchema s;
  tu_schema("b:+s{a:i;l:+l{item:u}}", &s);
  struct ArrowArray batches[2];
  make_batch(0, 5, &batches[0]);
  make_batch(5, 5, &batches[1]);
  struct ArrowArrayStream st;
  CHECK_OK(pm_stream_from_batches(&s, batches, 2, &st, &err), &err);
  struct ArrowArray first;
  CHECK_OK(pm_stream_get_next(&st, &first, &err), &err);
  CHECK(first.release != NULL);
  st.release(&st);
  /* The consumer moves children out of a batch, releases the parent, then the children. */
  struct ArrowArray col0, col1;
  pm_array_move(first.children[0], &col0);
  pm_array_move(first.children[1], &col1);
  first.release(&first);
  CHECK(first.release == NULL);
  CHECK_EQ_INT(col0.length, 5);
  CHECK_EQ_INT(((const int32_t *)col0.buffers[1])[4], 4);
  /* Move a grandchild out too. */
  struct ArrowArray items;
  pm_array_move(col1.children[0], &items);
  col1.release(&col1);
  CHECK_EQ_INT(items.length, 5);
  items.release(&items);
  col0.release(&col0);
}

/* A callback stream that fails on the third get_next. */
typedef struct fail_state {
  int calls;
  int released;
} fail_state;

static int fs_schema(void *st, struct ArrowSchema *out, pm_error *e) {
  (void)st;
  tu_schema("b:+s{a:i;l:+l{item:u}}", out);
  (void)e;
  return 0;
}
static int fs_next(void *st, struct ArrowArray *out, pm_error *e) {
  fail_state *f = st;
  f->calls++;
  if (f->calls == 3) {
    make_batch(0, 1, out); /* partially produced output must be released by the wrapper */
    return pm_errorf(e, PAIMON_ERR_CORRUPT, "part-0.parquet: bad page header at offset %d", 1234);
  }
  make_batch(f->calls, 2, out);
  return 0;
}
static void fs_release(void *st) { ((fail_state *)st)->released++; }

static void test_callback_errors(void) {
  fail_state f = {0, 0};
  pm_stream_callbacks cb = {fs_schema, fs_next, fs_release};
  struct ArrowArrayStream st;
  CHECK_OK(pm_stream_init(&st, &cb, &f, &err), &err);
  pm_batch_vec v;
  int rc = pm_stream_collect(&st, &v, &err);
  CHECK_EQ_INT(rc, PAIMON_ERR_IO); /* EIO maps back to IO */
  CHECK(strstr(err.message, "bad page header at offset 1234") != NULL);
  CHECK_EQ_INT(v.n, 0); /* collect frees what it had on error */
  struct ArrowArray a;
  CHECK_EQ_INT(st.get_next(&st, &a), EIO); /* sticky error, state not called again */
  CHECK(a.release == NULL);
  CHECK_EQ_INT(f.calls, 3);
  CHECK(strstr(st.get_last_error(&st), "offset 1234") != NULL);
  struct ArrowSchema s;
  CHECK_EQ_INT(st.get_schema(&st, &s), EIO);
  CHECK_EQ_INT(f.released, 0);
  st.release(&st);
  CHECK_EQ_INT(f.released, 1);
  CHECK(st.release == NULL);
  /* Errno mapping both ways. */
  CHECK_EQ_INT(pm_status_to_errno(PAIMON_ERR_INVALID_ARGUMENT), EINVAL);
  CHECK_EQ_INT(pm_status_to_errno(PAIMON_ERR_NOMEM), ENOMEM);
  CHECK_EQ_INT(pm_errno_to_status(ENOSYS), PAIMON_ERR_UNSUPPORTED);
  CHECK_EQ_INT(pm_errno_to_status(0), 0);
}

int main(void) {
  RUN_TEST(test_from_batches_and_collect);
  RUN_TEST(test_release_unread);
  RUN_TEST(test_callback_errors);
  TEST_MAIN_END();
}
