/* Install into a temporary prefix (issue 10 #3): paimon.pc follows the prefix (cmake --install --prefix,
 * DESTDIR, make install PREFIX=), and examples/read_table.c builds with `pkg-config --cflags --libs paimon`
 * against the installed library and reads the fixture warehouse. */
#include <sys/wait.h>
#include <unistd.h>

#include "harness.h"

static int run(const char *cmd, char **out) {
  FILE *p = popen(cmd, "r");
  if (!p) return -1;
  size_t cap = 4096, n = 0;
  char *buf = malloc(cap);
  size_t k;
  while ((k = fread(buf + n, 1, cap - n - 1, p)) > 0) {
    n += k;
    if (cap - n < 2) buf = realloc(buf, cap *= 2);
  }
  buf[n] = 0;
  int st = pclose(p);
  if (out) *out = buf;
  else free(buf);
  return WIFEXITED(st) ? WEXITSTATUS(st) : -1;
}

/* Directory holding paimon.pc under root (malloc'd, no trailing newline), or NULL. */
static char *pc_dir(const char *root) {
  char cmd[2048], *out = NULL;
  snprintf(cmd, sizeof cmd, "dirname \"$(find '%s' -name paimon.pc | head -1)\"", root);
  if (run(cmd, &out) != 0) {
    free(out);
    return NULL;
  }
  out[strcspn(out, "\n")] = 0;
  return out;
}

static void build_example(const char *tmp, const char *pcdir) {
  char cmd[8192], *out = NULL;
  snprintf(cmd, sizeof cmd,
           "export PKG_CONFIG_PATH='%s'; cc -o '%s/read_table' '%s/examples/read_table.c' "
           "$(pkg-config --cflags --libs paimon) 2>&1 && "
           "LD_LIBRARY_PATH=\"$(pkg-config --variable=libdir paimon)\" '%s/read_table' '%s/fixtures/warehouse' 2>&1",
           pcdir, tmp, PAIMON_SOURCE_DIR, tmp, PAIMON_SHARED_DIR);
  CHECK_MSG(run(cmd, &out) == 0, "%s\n%s", cmd, out);
  free(out);
}

static void test_install_prefix(void) {
  char tmp[] = "/tmp/pm_install_XXXXXX";
  CHECK(mkdtemp(tmp) != NULL);
  char cmd[4096], *out = NULL;
  snprintf(cmd, sizeof cmd, "cmake --install '%s' --prefix '%s/p' > /dev/null", PAIMON_BINARY_DIR, tmp);
  CHECK_EQ_INT(run(cmd, NULL), 0);
  char *dir = pc_dir(tmp);
  CHECK(dir && strstr(dir, "/p/"));
  if (dir) {
    snprintf(cmd, sizeof cmd, "PKG_CONFIG_PATH='%s' pkg-config --cflags --libs paimon", dir);
    CHECK_EQ_INT(run(cmd, &out), 0);
    CHECK_MSG(strstr(out, tmp) != NULL, "%s", out); /* -I and -L point into the prefix */
    CHECK(strstr(out, "-lpaimon") != NULL);
    free(out);
    snprintf(cmd, sizeof cmd, "test -f \"$(PKG_CONFIG_PATH='%s' pkg-config --variable=includedir paimon)/paimon/paimon.h\"",
             dir);
    CHECK_EQ_INT(run(cmd, NULL), 0);
    if (!getenv("PAIMON_SANITIZED")) build_example(tmp, dir); /* a sanitized .so needs the sanitizer runtime */
  }
  free(dir);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  run(cmd, NULL);
}

static void test_install_destdir(void) {
  char tmp[] = "/tmp/pm_install_XXXXXX";
  CHECK(mkdtemp(tmp) != NULL);
  char cmd[4096], *out = NULL;
  snprintf(cmd, sizeof cmd, "DESTDIR='%s/stage' cmake --install '%s' --prefix /opt/pm > /dev/null", tmp,
           PAIMON_BINARY_DIR);
  CHECK_EQ_INT(run(cmd, NULL), 0);
  char *dir = pc_dir(tmp);
  CHECK(dir && strstr(dir, "/stage/opt/pm/"));
  if (dir) {
    snprintf(cmd, sizeof cmd, "test -f \"$(PKG_CONFIG_PATH='%s' pkg-config --variable=includedir paimon)/paimon/paimon.h\"",
             dir);
    CHECK_EQ_INT(run(cmd, NULL), 0);
  }
  free(dir);
  /* make install PREFIX=... passes the prefix (and DESTDIR) to cmake --install */
  snprintf(cmd, sizeof cmd, "make -n -C '%s' install PREFIX=/x/prefix DESTDIR=/y/stage BUILD='%s' 2>/dev/null",
           PAIMON_SOURCE_DIR, PAIMON_BINARY_DIR);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_MSG(strstr(out, "--prefix \"/x/prefix\"") && strstr(out, "DESTDIR=\"/y/stage\""), "%s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
  run(cmd, NULL);
}

int main(void) {
  RUN_TEST(test_install_prefix);
  RUN_TEST(test_install_destdir);
  TEST_MAIN_END();
}
