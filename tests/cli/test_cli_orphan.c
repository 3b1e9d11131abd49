/* `paimon table remove-orphan-files` on a copy of a fixture table: --help, usage errors, a
 * future --older-than refused, --dry-run lists the old orphan and keeps it, the run deletes it
 * (printing path and bytes) and keeps the young file and every referenced file. */
#include <string.h>
#include <unistd.h>

#include "harness.h"
#include "support/cli_run.h"

#define CLI PAIMON_BINARY_DIR "/paimon"

int main(void) {
  char wh[] = "/tmp/pm_cli_orphan_XXXXXX";
  CHECK(mkdtemp(wh) != NULL);
  char cmd[8192], *out = NULL;
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/db.db' && cp -r '%s/fixtures/warehouse/parquet/append_09.db/append_09' '%s/db.db/t' && "
           "chmod -R u+w '%s' && touch -d '3 days ago' $(find '%s/db.db/t' -type f) && "
           "echo old > '%s/db.db/t/manifest/manifest-orphan-0' && touch -d '3 days ago' '%s/db.db/t/manifest/manifest-orphan-0' && "
           "echo young > '%s/db.db/t/manifest/manifest-young-0'",
           wh, PAIMON_SHARED_DIR, wh, wh, wh, wh, wh, wh);
  CHECK(system(cmd) == 0);
  snprintf(cmd, sizeof cmd, "find '%s/db.db/t' -type f | wc -l", wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  long files_before = atol(out);
  free(out);

  CHECK_EQ_INT(run(CLI " table remove-orphan-files --help", &out), 0);
  CHECK(strstr(out, "usage: paimon") && strstr(out, "--dry-run"));
  free(out);
  snprintf(cmd, sizeof cmd, CLI " -w '%s' table remove-orphan-files 2>/dev/null", wh);
  CHECK_EQ_INT(run(cmd, &out), 2);
  free(out);
  snprintf(cmd, sizeof cmd, CLI " -w '%s' table remove-orphan-files db.t --bogus 2>/dev/null", wh);
  CHECK_EQ_INT(run(cmd, &out), 2);
  free(out);
  snprintf(cmd, sizeof cmd, CLI " -w '%s' table remove-orphan-files db.t --older-than 'x' 2>/dev/null", wh);
  CHECK_EQ_INT(run(cmd, &out), 2);
  free(out);
  snprintf(cmd, sizeof cmd, CLI " -w '%s' table remove-orphan-files db.t --older-than '2999-01-01 00:00:00' 2>&1", wh);
  CHECK_EQ_INT(run(cmd, &out), 1);
  CHECK(strstr(out, "must be before now") != NULL);
  free(out);

  snprintf(cmd, sizeof cmd, CLI " -w '%s' table remove-orphan-files db.t --dry-run", wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_MSG(strstr(out, "would delete ") && strstr(out, "manifest-orphan-0 4\n") && strstr(out, "files 1\nbytes 4\n"),
            "dry run: %s", out);
  CHECK(!strstr(out, "manifest-young-0"));
  free(out);
  snprintf(cmd, sizeof cmd, "%s/db.db/t/manifest/manifest-orphan-0", wh);
  CHECK(access(cmd, F_OK) == 0);

  snprintf(cmd, sizeof cmd, CLI " -w '%s' table remove-orphan-files db.t", wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_MSG(strstr(out, "deleted ") && strstr(out, "files 1\nbytes 4\n"), "run: %s", out);
  free(out);
  snprintf(cmd, sizeof cmd, "%s/db.db/t/manifest/manifest-orphan-0", wh);
  CHECK(access(cmd, F_OK) != 0);
  snprintf(cmd, sizeof cmd, "%s/db.db/t/manifest/manifest-young-0", wh);
  CHECK(access(cmd, F_OK) == 0);
  snprintf(cmd, sizeof cmd, "find '%s/db.db/t' -type f | wc -l", wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  CHECK_EQ_INT(atol(out), files_before - 1); /* only the old orphan went */
  free(out);
  snprintf(cmd, sizeof cmd, CLI " -w '%s' table read db.t >/dev/null", wh);
  CHECK_EQ_INT(run(cmd, &out), 0);
  free(out);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  CHECK(system(cmd) == 0);
  TEST_MAIN_END();
}
