/* The local file system of the fs seam (io/fs.h): create-if-absent conflict, overwrite,
 * invisible-until-commit, abort, rename, list (sorted, by prefix), stat, exists, delete,
 * mkdirs, the fsync path (commit into a directory that cannot be fsynced is still checked),
 * refusal of non-regular files (a FIFO must not hang: issue 10 #11), vectored and memory reads. */
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <unistd.h>

#include "harness.h"
#include "io/file.h"
#include "io/fs.h"

static char g_dir[64];

static void path_of(char *out, size_t cap, const char *rel) { snprintf(out, cap, "%s/%s", g_dir, rel); }

static size_t count_entries(const char *dir) {
  char **names;
  size_t n;
  pm_error err;
  if (pm_fs_list(pm_fs_local(), dir, NULL, &names, &n, &err)) return (size_t)-1;
  pm_free_names(names, n);
  return n;
}

static void test_create_if_absent(void) {
  pm_fs *fs = pm_fs_local();
  pm_error err;
  char sub[128], p[128];
  path_of(sub, sizeof sub, "c/d");
  CHECK_OK(pm_fs_mkdirs(fs, sub, &err), &err);
  CHECK_OK(pm_fs_mkdirs(fs, sub, &err), &err); /* existing is fine */
  path_of(p, sizeof p, "c/d/snapshot-1");
  pm_out_file *o;
  CHECK_OK(pm_fs_create(fs, p, &o, &err), &err);
  CHECK_OK(pm_out_write(o, "abc", 3, &err), &err);
  CHECK_OK(pm_out_write(o, "defg", 4, &err), &err);
  CHECK_EQ_INT(pm_out_pos(o), 7);
  CHECK_EQ_STR(pm_out_path(o), p);
  int ex = 1;
  CHECK_OK(pm_fs_exists(fs, p, &ex, &err), &err);
  CHECK_EQ_INT(ex, 0); /* invisible before commit */
  CHECK_OK(pm_out_commit(o, PM_OUT_CREATE_IF_ABSENT, &err), &err);
  CHECK_OK(pm_fs_exists(fs, p, &ex, &err), &err);
  CHECK_EQ_INT(ex, 1);
  /* The second create-if-absent loses with CONFLICT and leaves the first file untouched. */
  int rc = pm_fs_write_file(fs, p, "XYZ", 3, PM_OUT_CREATE_IF_ABSENT, &err);
  CHECK_EQ_INT(rc, PAIMON_ERR_CONFLICT);
  CHECK(strstr(err.message, "snapshot-1") != NULL);
  pm_buf b;
  pm_buf_init(&b);
  CHECK_OK(pm_fs_read_file(fs, p, &b, 0, &err), &err);
  CHECK(b.len == 7 && memcmp(b.data, "abcdefg", 7) == 0);
  /* Overwrite replaces it. */
  CHECK_OK(pm_fs_write_file(fs, p, "XYZ", 3, PM_OUT_OVERWRITE, &err), &err);
  b.len = 0;
  CHECK_OK(pm_fs_read_file(fs, p, &b, 0, &err), &err);
  CHECK(b.len == 3 && memcmp(b.data, "XYZ", 3) == 0);
  /* A limit below the size is refused naming the file. */
  b.len = 0;
  CHECK_EQ_INT(pm_fs_read_file(fs, p, &b, 2, &err), PAIMON_ERR_UNSUPPORTED);
  CHECK(strstr(err.message, "snapshot-1") != NULL);
  pm_buf_free(&b);
  /* No temporary file is left behind by commits, conflicts or aborts. */
  CHECK_OK(pm_fs_create(fs, p, &o, &err), &err);
  CHECK_OK(pm_out_write(o, "zz", 2, &err), &err);
  pm_out_abort(o);
  CHECK_EQ_INT(count_entries(sub), 1);
  /* A large write (over the batching size) goes straight through. */
  size_t big = (size_t)3 << 20;
  uint8_t *data = malloc(big);
  for (size_t i = 0; i < big; i++) data[i] = (uint8_t)(i * 31 + 7);
  path_of(p, sizeof p, "c/d/big");
  CHECK_OK(pm_fs_create(fs, p, &o, &err), &err);
  CHECK_OK(pm_out_write(o, data, 10, &err), &err);
  CHECK_OK(pm_out_write(o, data + 10, big - 10, &err), &err);
  CHECK_EQ_INT(pm_out_pos(o), big);
  CHECK_OK(pm_out_commit(o, PM_OUT_CREATE_IF_ABSENT, &err), &err);
  pm_file_stat st;
  CHECK_OK(pm_fs_stat(fs, p, &st, &err), &err);
  CHECK_EQ_INT(st.size, big);
  CHECK(st.is_regular && !st.is_dir);
  CHECK(st.mtime_millis > 1600000000000LL);
  /* Vectored read of several ranges, one of them empty. */
  pm_file *f;
  CHECK_OK(pm_fs_open(fs, p, &f, &err), &err);
  CHECK_EQ_INT(pm_file_size(f), big);
  uint8_t r1[100], r2[5000], r3[1];
  pm_read_range rr[] = {{big - 100, 100, r1}, {12345, 5000, r2}, {0, 0, r3}};
  CHECK_OK(pm_file_read_ranges(f, rr, 3, &err), &err);
  CHECK(memcmp(r1, data + big - 100, 100) == 0);
  CHECK(memcmp(r2, data + 12345, 5000) == 0);
  pm_read_range bad[] = {{big - 10, 11, r1}};
  CHECK_EQ_INT(pm_file_read_ranges(f, bad, 1, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "big") && strstr(err.message, "past the end"));
  pm_file_close(f);
  free(data);
  CHECK_EQ_INT(count_entries(sub), 2);
}

static void test_rename_list_delete(void) {
  pm_fs *fs = pm_fs_local();
  pm_error err;
  char d[128], a[160], b[160];
  path_of(d, sizeof d, "l");
  CHECK_OK(pm_fs_mkdirs(fs, d, &err), &err);
  const char *names[] = {"snapshot-10", "snapshot-2", "LATEST", "EARLIEST", "snapshot-1"};
  for (size_t i = 0; i < 5; i++) {
    char p[160];
    snprintf(p, sizeof p, "%s/%s", d, names[i]);
    CHECK_OK(pm_fs_write_file(fs, p, names[i], strlen(names[i]), PM_OUT_CREATE_IF_ABSENT, &err), &err);
  }
  char **v;
  size_t n;
  CHECK_OK(pm_fs_list(fs, d, "snapshot-", &v, &n, &err), &err);
  CHECK_EQ_INT(n, 3);
  if (n == 3) {
    CHECK_EQ_STR(v[0], "snapshot-1");
    CHECK_EQ_STR(v[1], "snapshot-10");
    CHECK_EQ_STR(v[2], "snapshot-2");
  }
  pm_free_names(v, n);
  CHECK_OK(pm_fs_list(fs, d, NULL, &v, &n, &err), &err);
  CHECK_EQ_INT(n, 5);
  if (n == 5) CHECK_EQ_STR(v[0], "EARLIEST");
  pm_free_names(v, n);
  /* rename replaces the target */
  snprintf(a, sizeof a, "%s/snapshot-2", d);
  snprintf(b, sizeof b, "%s/snapshot-1", d);
  CHECK_OK(pm_fs_rename(fs, a, b, &err), &err);
  pm_buf buf;
  pm_buf_init(&buf);
  CHECK_OK(pm_fs_read_file(fs, b, &buf, 0, &err), &err);
  CHECK(buf.len == 10 && memcmp(buf.data, "snapshot-2", 10) == 0);
  pm_buf_free(&buf);
  CHECK_EQ_INT(pm_fs_rename(fs, a, b, &err), PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "snapshot-2") != NULL);
  /* delete, missing file, missing directory */
  CHECK_OK(pm_fs_delete(fs, b, &err), &err);
  CHECK_EQ_INT(pm_fs_delete(fs, b, &err), PAIMON_ERR_NOT_FOUND);
  int ex = 1;
  CHECK_OK(pm_fs_exists(fs, b, &ex, &err), &err);
  CHECK_EQ_INT(ex, 0);
  pm_file_stat st;
  CHECK_EQ_INT(pm_fs_stat(fs, b, &st, &err), PAIMON_ERR_NOT_FOUND);
  char missing[160];
  snprintf(missing, sizeof missing, "%s/nope", d);
  CHECK_EQ_INT(pm_fs_list(fs, missing, NULL, &v, &n, &err), PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "nope") != NULL);
  CHECK_OK(pm_fs_stat(fs, d, &st, &err), &err);
  CHECK(st.is_dir && !st.is_regular);
  /* an empty directory deletes too */
  char e[160];
  snprintf(e, sizeof e, "%s/empty", d);
  CHECK_OK(pm_fs_mkdirs(fs, e, &err), &err);
  CHECK_OK(pm_fs_delete(fs, e, &err), &err);
  CHECK_OK(pm_fs_exists(fs, e, &ex, &err), &err);
  CHECK_EQ_INT(ex, 0);
  /* creating in a missing directory fails naming the file */
  snprintf(e, sizeof e, "%s/no/dir/f", d);
  pm_out_file *o;
  CHECK(pm_fs_create(fs, e, &o, &err) != 0);
  CHECK(strstr(err.message, "no/dir/") != NULL);
}

static void on_alarm(int sig) {
  (void)sig;
  static const char msg[] = "test_fs: opening a FIFO blocked\n";
  (void)!write(2, msg, sizeof msg - 1);
  _exit(3);
}

static void test_non_regular(void) {
  pm_fs *fs = pm_fs_local();
  pm_error err;
  char fifo[128];
  path_of(fifo, sizeof fifo, "data-1.parquet");
  CHECK(mkfifo(fifo, 0644) == 0);
  signal(SIGALRM, on_alarm);
  alarm(10); /* a regression would block here forever */
  pm_file *f = NULL;
  CHECK_EQ_INT(pm_fs_open(fs, fifo, &f, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "data-1.parquet") && strstr(err.message, "FIFO"));
  CHECK(f == NULL);
  pm_buf b;
  pm_buf_init(&b);
  CHECK_EQ_INT(pm_read_file(fifo, &b, 0, &err), PAIMON_ERR_INVALID_ARGUMENT);
  pm_buf_free(&b);
  CHECK_EQ_INT(pm_file_open(g_dir, &f, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "is a directory") != NULL);
  CHECK_EQ_INT(pm_file_open("/dev/null", &f, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "device") != NULL);
  alarm(0);
  pm_file_stat st;
  CHECK_OK(pm_fs_stat(fs, fifo, &st, &err), &err);
  CHECK(!st.is_regular && !st.is_dir);
  CHECK_OK(pm_fs_delete(fs, fifo, &err), &err);
  char missing[128];
  path_of(missing, sizeof missing, "missing.orc");
  CHECK_EQ_INT(pm_file_open(missing, &f, &err), PAIMON_ERR_NOT_FOUND);
  CHECK(strstr(err.message, "missing.orc") != NULL);
}

static void test_fsync_path(void) {
  /* Commit fsyncs the file and then its directory (two fsyncs), rename fsyncs the target's
   * directory; a directory that cannot be opened for the directory fsync makes the commit fail
   * (after publishing) instead of claiming durability. */
  pm_fs *fs = pm_fs_local();
  pm_error err;
  char d[128], p[160], q[160];
  path_of(d, sizeof d, "wx");
  CHECK_OK(pm_fs_mkdirs(fs, d, &err), &err);
  snprintf(p, sizeof p, "%s/f", d);
  snprintf(q, sizeof q, "%s/g", d);
  uint64_t n0 = pm_fs_local_fsync_count();
  CHECK_OK(pm_fs_write_file(fs, q, "1", 1, PM_OUT_CREATE_IF_ABSENT, &err), &err);
  CHECK_EQ_INT(pm_fs_local_fsync_count() - n0, 2);
  CHECK_OK(pm_fs_write_file(fs, q, "2", 1, PM_OUT_OVERWRITE, &err), &err);
  CHECK_EQ_INT(pm_fs_local_fsync_count() - n0, 4);
  CHECK_OK(pm_fs_rename(fs, q, p, &err), &err);
  CHECK_EQ_INT(pm_fs_local_fsync_count() - n0, 5);
  CHECK_OK(pm_fs_delete(fs, p, &err), &err);
  /* a failed publish (conflict) reports no durability it did not reach */
  CHECK_OK(pm_fs_write_file(fs, p, "1", 1, PM_OUT_CREATE_IF_ABSENT, &err), &err);
  n0 = pm_fs_local_fsync_count();
  CHECK_EQ_INT(pm_fs_write_file(fs, p, "1", 1, PM_OUT_CREATE_IF_ABSENT, &err), PAIMON_ERR_CONFLICT);
  CHECK_EQ_INT(pm_fs_local_fsync_count() - n0, 1); /* the temporary file only */
  CHECK_OK(pm_fs_delete(fs, p, &err), &err);
  if (geteuid() == 0) return; /* root ignores directory permissions */
  pm_out_file *o;
  CHECK_OK(pm_fs_create(fs, p, &o, &err), &err);
  CHECK_OK(pm_out_write(o, "1", 1, &err), &err);
  CHECK(chmod(d, 0300) == 0); /* writable, searchable, not readable: open(O_RDONLY) of it fails */
  int rc = pm_out_commit(o, PM_OUT_CREATE_IF_ABSENT, &err);
  CHECK_EQ_INT(rc, PAIMON_ERR_IO);
  CHECK(strstr(err.message, "fsync") != NULL);
  CHECK(chmod(d, 0755) == 0);
}

static void test_memory(void) {
  pm_error err;
  pm_buf dst;
  pm_buf_init(&dst);
  pm_out_file *o;
  CHECK_OK(pm_out_open_buf(&dst, "mem", &o, &err), &err);
  CHECK_OK(pm_out_write(o, "hello ", 6, &err), &err);
  CHECK_OK(pm_out_write(o, "world", 5, &err), &err);
  CHECK_OK(pm_out_commit(o, 0, &err), &err);
  CHECK(dst.len == 11 && memcmp(dst.data, "hello world", 11) == 0);
  CHECK_OK(pm_out_open_buf(&dst, "mem", &o, &err), &err);
  CHECK_OK(pm_out_write(o, "lost", 4, &err), &err);
  pm_out_abort(o);
  CHECK_EQ_INT(dst.len, 11);
  pm_file *f;
  CHECK_OK(pm_file_from_memory(dst.data, dst.len, "m", &f, &err), &err);
  char x[5];
  CHECK_OK(pm_file_read_at(f, 6, x, 5, &err), &err);
  CHECK(memcmp(x, "world", 5) == 0);
  CHECK(pm_file_memory(f) == dst.data);
  pm_file_close(f);
  pm_buf_free(&dst);
}

static void test_ref(void) {
  pm_fs *l = pm_fs_local();
  CHECK(pm_fs_ref(l) == l);
  pm_fs_unref(l);
  pm_fs_unref(l);
  CHECK_EQ_STR(pm_fs_name(l), "local");
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/pm_fs_XXXXXX");
  if (!mkdtemp(g_dir)) return 1;
  RUN_TEST(test_create_if_absent);
  RUN_TEST(test_rename_list_delete);
  RUN_TEST(test_non_regular);
  RUN_TEST(test_fsync_path);
  RUN_TEST(test_memory);
  RUN_TEST(test_ref);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  (void)!system(cmd);
  TEST_MAIN_END();
}
