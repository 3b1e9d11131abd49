/*
 * The Parquet, ORC and Avro writers on output sinks (io/file.h): a memory sink
 * holds a file that reads back with every row; on a fault-injecting fs
 * (io/fs_fault.h) a failing create, write, fsync or create-if-absent publish
 * makes the writer's close fail with an error naming the file, and neither the
 * file nor a temporary file is left in the directory. Manifest lists go
 * through the same Avro container writer on the table's fs.
 */
#include "format/avro/avro.h"
#include "format/orc/orc_reader.h"
#include "format/orc/orc_writer.h"
#include "format/parquet/parquet_reader.h"
#include "format/parquet/parquet_writer.h"
#include "harness.h"
#include "io/file.h"
#include "io/fs_fault.h"
#include "meta/manifest.h"

#define PQ_FIX PM_SHARED("fixtures/warehouse/parquet/pk_09.db/pk_09/f1=10/bucket-0")
#define ORC_FIX                                                                                             \
  PM_SHARED("fixtures/warehouse/orc/append_with_bitmap_alter_table.db/append_with_bitmap_alter_table/bucket-0/" \
            "data-68014988-5451-478f-a18a-a1668214cf3d-0.orc")

static char g_dir[64];

enum { F_PARQUET, F_ORC, F_AVRO };
static const char *const FORMAT_NAMES[] = {"parquet", "orc", "avro"};

static char g_pq_file[1024];

/* Any Parquet data file of the pk_09 fixture. */
static const char *pq_fixture(void) {
  if (g_pq_file[0]) return g_pq_file;
  char **names;
  size_t n;
  pm_error err;
  if (pm_fs_list(pm_fs_local(), PQ_FIX, "data-", &names, &n, &err) == 0) {
    if (n) snprintf(g_pq_file, sizeof g_pq_file, "%s/%s", PQ_FIX, names[0]);
    pm_free_names(names, n);
  }
  return g_pq_file;
}

/* Writes rows of a fixture file (Parquet, ORC) or 1000 generated records (Avro) to sink, which
 * the writer owns. Returns the status; *rows = rows written. */
static int write_to(int format, pm_out_file *sink, int64_t *rows, pm_error *err) {
  *rows = 0;
  if (format == F_AVRO) {
    pm_avro_writer *w;
    PM_TRY(pm_avro_writer_open_sink(sink, "{\"type\":\"record\",\"name\":\"r\",\"fields\":[{\"name\":\"a\",\"type\":\"long\"}]}",
                                    NULL, &w, err));
    int rc = 0;
    for (int64_t i = 0; i < 1000 && !rc; i++) {
      pm_avro_put_long(pm_avro_writer_encoder(w), i * 7);
      rc = pm_avro_writer_end_record(w, err);
    }
    if (rc) {
      pm_avro_writer_abort(w);
      return rc;
    }
    *rows = 1000;
    return pm_avro_writer_commit(w, NULL, err);
  }
  pm_file *in = NULL;
  int rc = pm_file_open(format == F_PARQUET ? pq_fixture() : ORC_FIX, &in, err);
  if (rc) {
    pm_out_abort(sink);
    return rc;
  }
  struct ArrowSchema s = {0};
  pm_pq_reader *pr = NULL;
  pm_orc_reader *orr = NULL;
  if (format == F_PARQUET) {
    pm_pq_read_options ro;
    pm_pq_read_options_init(&ro);
    rc = pm_pq_reader_open(in, &ro, &pr, err); /* owns in */
    in = NULL;
    if (!rc) rc = pm_pq_reader_schema(pr, &s, err);
  } else {
    pm_orc_read_options ro;
    pm_orc_read_options_init(&ro);
    rc = pm_orc_reader_open(in, &ro, &orr, err);
    if (!rc) rc = pm_orc_reader_schema(orr, &s, err);
  }
  pm_pq_writer *pw = NULL;
  pm_orc_writer *ow = NULL;
  if (rc) pm_out_abort(sink);
  else if (format == F_PARQUET) {
    pm_pq_write_options o;
    pm_pq_write_options_default(&o);
    o.no_overwrite = 1;
    rc = pm_pq_writer_open_sink(sink, &s, &o, &pw, err);
  } else {
    rc = pm_orc_writer_open_sink(sink, &s, NULL, &ow, err);
  }
  while (!rc) {
    struct ArrowArray b = {0};
    rc = format == F_PARQUET ? pm_pq_reader_next(pr, &b, err) : pm_orc_reader_next(orr, &b, err);
    if (rc || !b.release) break;
    *rows += b.length;
    rc = format == F_PARQUET ? pm_pq_writer_write(pw, &b, err) : pm_orc_writer_write(ow, &b, err);
    b.release(&b);
  }
  if (format == F_PARQUET) {
    if (!rc) rc = pm_pq_writer_close(pw, err);
    pm_pq_writer_free(pw);
    pm_pq_reader_close(pr);
  } else {
    if (!rc) rc = pm_orc_writer_close(ow, err);
    else pm_orc_writer_abort(ow);
    pm_orc_reader_close(orr);
    pm_file_close(in);
  }
  if (s.release) s.release(&s);
  return rc;
}

/* Rows of a file read back from f (owned). */
static int64_t count_rows(int format, pm_file *f) {
  pm_error err;
  int64_t n = 0;
  if (format == F_AVRO) {
    pm_avro_reader *r;
    if (pm_avro_reader_open(f, &r, &err)) {
      pm_file_close(f);
      return -1;
    }
    pm_avro_cursor cur;
    int64_t k = 0;
    while (pm_avro_reader_next_block(r, &cur, &k, &err) == 0 && k > 0) n += k;
    pm_avro_reader_close(r);
    pm_file_close(f);
    return n;
  }
  if (format == F_PARQUET) {
    pm_pq_reader *r;
    pm_pq_read_options ro;
    pm_pq_read_options_init(&ro);
    if (pm_pq_reader_open(f, &ro, &r, &err)) return -1;
    n = pm_pq_reader_num_rows(r);
    pm_pq_reader_close(r);
    return n;
  }
  pm_orc_reader *r;
  pm_orc_read_options ro;
  pm_orc_read_options_init(&ro);
  if (pm_orc_reader_open(f, &ro, &r, &err)) {
    pm_file_close(f);
    return -1;
  }
  struct ArrowArray b;
  while (pm_orc_reader_next(r, &b, &err) == 0 && b.release) {
    n += b.length;
    b.release(&b);
  }
  pm_orc_reader_close(r);
  pm_file_close(f);
  return n;
}

static void test_memory_sinks(void) {
  for (int format = 0; format < 3; format++) {
    pm_error err;
    pm_buf buf;
    pm_buf_init(&buf);
    pm_out_file *sink;
    CHECK_OK(pm_out_open_buf(&buf, FORMAT_NAMES[format], &sink, &err), &err);
    int64_t rows = 0;
    CHECK_OK(write_to(format, sink, &rows, &err), &err);
    CHECK(rows > 0);
    pm_file *f;
    CHECK_OK(pm_file_from_memory(buf.data, buf.len, FORMAT_NAMES[format], &f, &err), &err);
    CHECK_MSG(count_rows(format, f) == rows, "%s: rows read back differ", FORMAT_NAMES[format]);
    pm_buf_free(&buf);
  }
}

static size_t dir_entries(void) {
  char **names;
  size_t n;
  pm_error err;
  if (pm_fs_list(pm_fs_local(), g_dir, NULL, &names, &n, &err)) return (size_t)-1;
  pm_free_names(names, n);
  return n;
}

static void test_fault_sinks(void) {
  pm_error err;
  pm_fs *fs;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
  pm_fault_op ops[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_WRITE, PM_FAULT_OP_FSYNC, PM_FAULT_OP_CREATE_IF_ABSENT,
                       PM_FAULT_OP_PUBLISH};
  for (int format = 0; format < 3; format++) {
    char path[256];
    snprintf(path, sizeof path, "%s/data-1.%s", g_dir, FORMAT_NAMES[format]);
    /* a clean write counts the operations; the file reads back */
    pm_fault_fs_disarm(fs);
    pm_out_file *sink;
    int64_t rows = 0;
    CHECK_OK(pm_fs_create(fs, path, &sink, &err), &err);
    CHECK_OK(write_to(format, sink, &rows, &err), &err);
    uint64_t counts[5];
    for (int k = 0; k < 5; k++) counts[k] = pm_fault_fs_count(fs, ops[k]);
    pm_file *f;
    CHECK_OK(pm_fs_open(fs, path, &f, &err), &err);
    CHECK_EQ_INT(count_rows(format, f), rows);
    CHECK_OK(pm_fs_delete(fs, path, &err), &err);
    CHECK_EQ_INT(dir_entries(), 0);
    for (int k = 0; k < 5; k++) {
      if (!counts[k]) continue; /* Parquet publishes create-if-absent, ORC and Avro overwrite */
      pm_fault_rule r = {ops[k], counts[k], 1, PM_FAULT_ERROR, 0};
      pm_fault_fs_arm(fs, &r);
      int rc = pm_fs_create(fs, path, &sink, &err);
      if (!rc) rc = write_to(format, sink, &rows, &err);
      CHECK_MSG(rc == PAIMON_ERR_IO, "%s, %s: rc %d", FORMAT_NAMES[format], pm_fault_op_name(ops[k]), rc);
      CHECK_MSG(strstr(err.message, path) && strstr(err.message, pm_fault_op_name(ops[k])), "%s", err.message);
      CHECK_MSG(dir_entries() == 0, "%s, %s: files left behind", FORMAT_NAMES[format], pm_fault_op_name(ops[k]));
    }
  }
  /* manifest lists: the same container writer through the table's fs */
  char lpath[256];
  snprintf(lpath, sizeof lpath, "%s/manifest-list-1", g_dir);
  pm_fault_fs_disarm(fs);
  int64_t size = 0;
  CHECK_OK(pm_manifest_list_write(fs, lpath, NULL, 0, NULL, &size, &err), &err);
  CHECK(size > 0);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_CREATE_IF_ABSENT), 1);
  CHECK_EQ_INT(pm_manifest_list_write(fs, lpath, NULL, 0, NULL, &size, &err), PAIMON_ERR_CONFLICT);
  CHECK_OK(pm_fs_delete(fs, lpath, &err), &err);
  pm_fault_rule r = {PM_FAULT_OP_WRITE, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &r);
  CHECK_EQ_INT(pm_manifest_list_write(fs, lpath, NULL, 0, NULL, &size, &err), PAIMON_ERR_IO);
  CHECK(strstr(err.message, "manifest-list-1") != NULL);
  CHECK_EQ_INT(dir_entries(), 0);
  pm_fs_unref(fs);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/pm_sink_XXXXXX");
  if (!mkdtemp(g_dir)) return 1;
  RUN_TEST(test_memory_sinks);
  RUN_TEST(test_fault_sinks);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  (void)!system(cmd);
  TEST_MAIN_END();
}
