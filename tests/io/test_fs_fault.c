/* The fault-injecting fs (io/fs_fault.h): counting, failing the Nth operation of each kind with an
 * error naming the path, short reads (retried by pm_file_read_at), lost effects, _exit at
 * operation N (in a child process), rule parsing. */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"
#include "io/file.h"
#include "io/fs.h"
#include "io/fs_fault.h"

static char g_dir[64];

/* pm_file_prefetch: one read of the region, reads inside it from memory (no file-system read),
 * reads outside or across its edge still from the file, vectored reads split between the two,
 * a failed prefetch reported and nothing kept. */
static void test_prefetch(void) {
  pm_error err;
  pm_fs *fs;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
  char p[128];
  snprintf(p, sizeof p, "%s/pf.bin", g_dir);
  uint8_t data[8192], got[8192];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 7 + 3);
  CHECK_OK(pm_fs_write_file(fs, p, data, sizeof data, PM_OUT_CREATE_IF_ABSENT, &err), &err);
  pm_fault_fs_disarm(fs);
  pm_file *f;
  CHECK_OK(pm_fs_open(fs, p, &f, &err), &err);
  CHECK_OK(pm_file_prefetch(f, 4096, 1 << 20, &err), &err); /* clipped to the file's end */
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_READ), 1);
  CHECK_OK(pm_file_read_at(f, 4096, got, 4096, &err), &err);
  CHECK(memcmp(got, data + 4096, 4096) == 0);
  CHECK_OK(pm_file_read_at(f, 8190, got, 2, &err), &err);
  CHECK(memcmp(got, data + 8190, 2) == 0);
  CHECK_OK(pm_file_prefetch(f, 5000, 100, &err), &err); /* inside: nothing read */
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_READ), 1);
  CHECK_OK(pm_file_read_at(f, 4000, got, 200, &err), &err); /* across the edge: from the file */
  CHECK(memcmp(got, data + 4000, 200) == 0);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_READ), 2);
  pm_read_range rr[] = {{5000, 10, got}, {10, 20, got + 10}, {0, 0, got + 30}, {8000, 192, got + 30}};
  CHECK_OK(pm_file_read_ranges(f, rr, 4, &err), &err);
  CHECK(memcmp(got, data + 5000, 10) == 0 && memcmp(got + 10, data + 10, 20) == 0 &&
        memcmp(got + 30, data + 8000, 192) == 0);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_READ), 3); /* only {10, 20} went to the file */
  pm_read_range bad[] = {{8000, 193, got}};
  CHECK_EQ_INT(pm_file_read_ranges(f, bad, 1, &err), PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "pf.bin") && strstr(err.message, "past the end"));
  /* a new region replaces the old one */
  CHECK_OK(pm_file_prefetch(f, 0, 100, &err), &err);
  CHECK_OK(pm_file_read_at(f, 20, got, 50, &err), &err);
  CHECK(memcmp(got, data + 20, 50) == 0);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_READ), 4);
  CHECK_OK(pm_file_read_at(f, 6000, got, 10, &err), &err);
  CHECK(memcmp(got, data + 6000, 10) == 0);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_READ), 5);
  /* an injected error fails the prefetch naming the file; reads still work afterwards */
  pm_fault_rule r = {PM_FAULT_OP_READ, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &r);
  CHECK_EQ_INT(pm_file_prefetch(f, 1000, 3000, &err), PAIMON_ERR_IO);
  CHECK(strstr(err.message, "pf.bin") != NULL);
  CHECK_OK(pm_file_read_at(f, 1500, got, 100, &err), &err);
  CHECK(memcmp(got, data + 1500, 100) == 0);
  pm_file_close(f);
  /* memory files: a no-op */
  CHECK_OK(pm_file_from_memory(data, sizeof data, "mem", &f, &err), &err);
  CHECK_OK(pm_file_prefetch(f, 0, 100, &err), &err);
  CHECK_OK(pm_file_read_at(f, 10, got, 10, &err), &err);
  CHECK(memcmp(got, data + 10, 10) == 0);
  pm_file_close(f);
  pm_fs_unref(fs);
}

static void test_count_then_fail_each_read(void) {
  pm_error err;
  pm_fs *fs;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
  CHECK_EQ_STR(pm_fs_name(fs), "fault");
  char p[128];
  snprintf(p, sizeof p, "%s/r.bin", g_dir);
  uint8_t data[4096];
  for (size_t i = 0; i < sizeof data; i++) data[i] = (uint8_t)(i * 13);
  CHECK_OK(pm_fs_write_file(fs, p, data, sizeof data, PM_OUT_CREATE_IF_ABSENT, &err), &err);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_CREATE), 1);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_WRITE), 1);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_FSYNC), 1);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_CREATE_IF_ABSENT), 1);
  /* count the reads of a workload: three positional reads */
  pm_fault_fs_disarm(fs);
  pm_file *f;
  uint8_t got[4096];
  CHECK_OK(pm_fs_open(fs, p, &f, &err), &err);
  for (int k = 0; k < 3; k++) CHECK_OK(pm_file_read_at(f, (uint64_t)k * 1000, got, 1000, &err), &err);
  pm_file_close(f);
  uint64_t reads = pm_fault_fs_count(fs, PM_FAULT_OP_READ);
  CHECK_EQ_INT(reads, 3);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_OPEN), 1);
  for (uint64_t n = 1; n <= reads; n++) {
    pm_fault_rule r = {PM_FAULT_OP_READ, n, 1, PM_FAULT_ERROR, 0};
    pm_fault_fs_arm(fs, &r);
    CHECK_OK(pm_fs_open(fs, p, &f, &err), &err);
    int failed_at = 0;
    for (int k = 0; k < 3 && !failed_at; k++)
      if (pm_file_read_at(f, (uint64_t)k * 1000, got, 1000, &err)) failed_at = k + 1;
    pm_file_close(f);
    CHECK_EQ_INT(failed_at, n);
    CHECK(strstr(err.message, "r.bin") && strstr(err.message, "injected I/O error (read #"));
    CHECK_EQ_INT(pm_fault_fs_injected(fs), 1);
  }
  /* open fails naming the path */
  pm_fault_rule ro = {PM_FAULT_OP_OPEN, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &ro);
  CHECK_EQ_INT(pm_fs_open(fs, p, &f, &err), PAIMON_ERR_IO);
  CHECK(strstr(err.message, "r.bin") != NULL);
  CHECK_OK(pm_fs_open(fs, p, &f, &err), &err); /* times = 1: the second succeeds */
  pm_file_close(f);
  /* every read short: pm_file_read_at retries until it has all bytes */
  pm_fault_rule rs = {PM_FAULT_OP_READ, 1, 0, PM_FAULT_SHORT_READ, 0};
  pm_fault_fs_arm(fs, &rs);
  CHECK_OK(pm_fs_open(fs, p, &f, &err), &err);
  memset(got, 0, sizeof got);
  CHECK_OK(pm_file_read_at(f, 0, got, sizeof got, &err), &err);
  CHECK(memcmp(got, data, sizeof data) == 0);
  CHECK(pm_fault_fs_count(fs, PM_FAULT_OP_READ) >= 12); /* 4096 halved down to 1 byte */
  pm_read_range rr[] = {{100, 50, got}, {3000, 1000, got + 50}};
  CHECK_OK(pm_file_read_ranges(f, rr, 2, &err), &err);
  CHECK(memcmp(got, data + 100, 50) == 0 && memcmp(got + 50, data + 3000, 1000) == 0);
  pm_file_close(f);
  pm_fault_fs_disarm(fs);
  pm_fs_unref(fs);
}

static void test_write_side(void) {
  pm_error err;
  pm_fs *fs;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
  char p[128];
  snprintf(p, sizeof p, "%s/w.bin", g_dir);
  int ex;
  pm_fault_op ops[] = {PM_FAULT_OP_CREATE, PM_FAULT_OP_WRITE, PM_FAULT_OP_FSYNC, PM_FAULT_OP_CREATE_IF_ABSENT};
  for (size_t i = 0; i < 4; i++) {
    pm_fault_rule r = {ops[i], 1, 1, PM_FAULT_ERROR, 0};
    pm_fault_fs_arm(fs, &r);
    CHECK_EQ_INT(pm_fs_write_file(fs, p, "abc", 3, PM_OUT_CREATE_IF_ABSENT, &err), PAIMON_ERR_IO);
    CHECK_MSG(strstr(err.message, "w.bin") && strstr(err.message, pm_fault_op_name(ops[i])), "%s", err.message);
    CHECK_OK(pm_fs_exists(fs, p, &ex, &err), &err);
    CHECK_EQ_INT(ex, 0); /* nothing visible after a failed write */
  }
  char **names;
  size_t n;
  CHECK_OK(pm_fs_list(fs, g_dir, "w.bin", &names, &n, &err), &err);
  CHECK_EQ_INT(n, 0);
  pm_free_names(names, n);
  CHECK_OK(pm_fs_list(fs, g_dir, ".w.bin", &names, &n, &err), &err);
  CHECK_EQ_INT(n, 0); /* and no temporary file either */
  pm_free_names(names, n);
  /* a lost publish reports success, and the file never appears */
  pm_fault_rule lose = {PM_FAULT_OP_CREATE_IF_ABSENT, 1, 1, PM_FAULT_LOSE, 0};
  pm_fault_fs_arm(fs, &lose);
  CHECK_OK(pm_fs_write_file(fs, p, "abc", 3, PM_OUT_CREATE_IF_ABSENT, &err), &err);
  CHECK_OK(pm_fs_exists(fs, p, &ex, &err), &err);
  CHECK_EQ_INT(ex, 0);
  /* a lost write: success, but the bytes are missing */
  pm_fault_rule lw = {PM_FAULT_OP_WRITE, 1, 1, PM_FAULT_LOSE, 0};
  pm_fault_fs_arm(fs, &lw);
  CHECK_OK(pm_fs_write_file(fs, p, "abc", 3, PM_OUT_OVERWRITE, &err), &err);
  pm_file_stat st;
  CHECK_OK(pm_fs_stat(fs, p, &st, &err), &err);
  CHECK_EQ_INT(st.size, 0);
  CHECK_EQ_INT(pm_fault_fs_count(fs, PM_FAULT_OP_PUBLISH), 1);
  /* rename, delete, list, stat, mkdirs fail naming their path; lost delete keeps the file */
  char q[160];
  snprintf(q, sizeof q, "%s/moved", g_dir);
  pm_fault_rule rr = {PM_FAULT_OP_RENAME, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &rr);
  CHECK_EQ_INT(pm_fs_rename(fs, p, q, &err), PAIMON_ERR_IO);
  CHECK(strstr(err.message, "w.bin") != NULL);
  pm_fault_rule ld = {PM_FAULT_OP_DELETE, 1, 1, PM_FAULT_LOSE, 0};
  pm_fault_fs_arm(fs, &ld);
  CHECK_OK(pm_fs_delete(fs, p, &err), &err);
  CHECK_OK(pm_fs_exists(fs, p, &ex, &err), &err);
  CHECK_EQ_INT(ex, 1);
  pm_fault_rule rl = {PM_FAULT_OP_LIST, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &rl);
  CHECK_EQ_INT(pm_fs_list(fs, g_dir, NULL, &names, &n, &err), PAIMON_ERR_IO);
  CHECK(strstr(err.message, g_dir) != NULL);
  pm_fault_rule rst = {PM_FAULT_OP_STAT, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &rst);
  CHECK_EQ_INT(pm_fs_exists(fs, p, &ex, &err), PAIMON_ERR_IO); /* not "absent" */
  pm_fault_rule rm = {PM_FAULT_OP_MKDIRS, 1, 1, PM_FAULT_ERROR, 0};
  pm_fault_fs_arm(fs, &rm);
  CHECK_EQ_INT(pm_fs_mkdirs(fs, q, &err), PAIMON_ERR_IO);
  pm_fault_fs_disarm(fs);
  CHECK_OK(pm_fs_delete(fs, p, &err), &err);
  pm_fs_unref(fs);
}

static void test_exit(void) {
  pm_error err;
  pm_fs *fs;
  CHECK_OK(pm_fault_fs_new(pm_fs_local(), &fs, &err), &err);
  char p[128];
  snprintf(p, sizeof p, "%s/x.bin", g_dir);
  pm_fault_rule r;
  CHECK_OK(pm_fault_rule_parse("create-if-absent:1:exit=42", &r, &err), &err);
  pm_fault_fs_arm(fs, &r);
  fflush(stderr);
  pid_t pid = fork();
  if (pid == 0) {
    pm_error e2;
    pm_fs_write_file(fs, p, "abc", 3, PM_OUT_CREATE_IF_ABSENT, &e2);
    _exit(0); /* not reached */
  }
  int status = 0;
  CHECK(waitpid(pid, &status, 0) == pid);
  CHECK(WIFEXITED(status) && WEXITSTATUS(status) == 42);
  int ex = 1;
  CHECK_OK(pm_fs_exists(fs, p, &ex, &err), &err);
  CHECK_EQ_INT(ex, 0); /* the crash happened before publishing */
  pm_fs_unref(fs);
}

static void test_parse(void) {
  pm_error err;
  pm_fault_rule r;
  CHECK_OK(pm_fault_rule_parse("read:3", &r, &err), &err);
  CHECK(r.op == PM_FAULT_OP_READ && r.nth == 3 && r.times == 1 && r.action == PM_FAULT_ERROR);
  CHECK_OK(pm_fault_rule_parse("read:1:short:0", &r, &err), &err);
  CHECK(r.action == PM_FAULT_SHORT_READ && r.times == 0);
  CHECK_OK(pm_fault_rule_parse("delete:2:lose", &r, &err), &err);
  CHECK(r.op == PM_FAULT_OP_DELETE && r.action == PM_FAULT_LOSE);
  CHECK_OK(pm_fault_rule_parse("rename:5:exit", &r, &err), &err);
  CHECK(r.action == PM_FAULT_EXIT && r.exit_code == 99);
  CHECK_EQ_INT(pm_fault_rule_parse("read:0", &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK_EQ_INT(pm_fault_rule_parse("reed:1", &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "reed:1") != NULL);
  CHECK_EQ_INT(pm_fault_rule_parse("read:1:explode", &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
  CHECK(strstr(err.message, "explode") != NULL);
  CHECK_EQ_INT(pm_fault_rule_parse("read", &r, &err), PAIMON_ERR_INVALID_ARGUMENT);
}

int main(void) {
  snprintf(g_dir, sizeof g_dir, "/tmp/pm_fault_XXXXXX");
  if (!mkdtemp(g_dir)) return 1;
  RUN_TEST(test_count_then_fail_each_read);
  RUN_TEST(test_prefetch);
  RUN_TEST(test_write_side);
  RUN_TEST(test_exit);
  RUN_TEST(test_parse);
  char cmd[128];
  snprintf(cmd, sizeof cmd, "rm -rf %s", g_dir);
  (void)!system(cmd);
  TEST_MAIN_END();
}
