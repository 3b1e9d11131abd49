/* libpaimon.so exports only the public API: every defined dynamic symbol is a paimon_* function. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness.h"

#define NM_CMD "nm -D --defined-only " PAIMON_BINARY_DIR "/libpaimon.so"

/* Symbols every ELF shared object defines (linker-provided, not ours). */
static int is_linker_symbol(const char *name) {
  static const char *const v[] = {"_init", "_fini", "_edata", "_end", "__bss_start", "_DYNAMIC", "_GLOBAL_OFFSET_TABLE_"};
  for (size_t i = 0; i < sizeof v / sizeof *v; i++)
    if (!strcmp(name, v[i])) return 1;
  return 0;
}

static void test_dynamic_symbols(void) {
  FILE *p = popen(NM_CMD, "r");
  CHECK(p != NULL);
  if (!p) return;
  char line[1024];
  int n_paimon = 0, n_pm = 0, n_other = 0, has_open = 0, has_status_name = 0, has_version = 0;
  while (fgets(line, sizeof line, p)) {
    char addr[64], type[8], name[512];
    if (sscanf(line, "%63s %7s %511s", addr, type, name) != 3) continue;
    if (!strncmp(name, "pm_", 3)) {
      n_pm++;
      if (n_pm <= 5) fprintf(stderr, "exported internal symbol: %s", line);
    } else if (!strncmp(name, "paimon_", 7)) {
      n_paimon++;
      has_open |= !strcmp(name, "paimon_catalog_open");
      has_status_name |= !strcmp(name, "paimon_status_name");
      has_version |= !strcmp(name, "paimon_version");
    } else if (!is_linker_symbol(name)) {
      n_other++;
      if (n_other <= 5) fprintf(stderr, "exported non-API symbol: %s", line);
    }
  }
  CHECK_EQ_INT(pclose(p), 0);
  CHECK_EQ_INT(n_pm, 0);
  CHECK_EQ_INT(n_other, 0);
  CHECK(n_paimon >= 70);
  CHECK(has_open && has_status_name && has_version);
}

int main(void) {
  RUN_TEST(test_dynamic_symbols);
  TEST_MAIN_END();
}
