/* `paimon tag create|delete|rename|list|get` on a copy of a Java-written primary-key table
 * (5 snapshots): a tag without retention is byte for byte Java's snapshot file (Java's
 * TagManager writes snapshot.toJson then); with --time-retained the same JSON plus
 * tagCreateTime / tagTimeRetained (FORMAT.md 3.5); `table read --tag` = paimon-table read of the
 * tagged snapshot; paimon-table check passes after every change; every snapshot reads as before
 * (paimon-table read); Java's refusals: blank name, existing tag, missing snapshot / tag. */
#include <sys/stat.h>

#include "harness.h"
#pragma GCC diagnostic ignored "-Wunused-function"
#include "support/cli_fixture.h"

#define T "pk_table_scan_and_read_mor"
#define TT T "." T

static cf_fixture fx;
static const char *dir = fx.dir;

static int cli(const char *args, char **out) { return cf_cli(&fx, args, out); }

static char *slurp(const char *path) {
  FILE *f = fopen(path, "rb");
  if (!f) return NULL;
  char *s = calloc(1, 1 << 16);
  size_t n = s ? fread(s, 1, (1 << 16) - 1, f) : 0;
  (void)n;
  fclose(f);
  return s;
}

/* Java master's Snapshot.toJson of a snapshot file written by an older Java: the keys master no
 * longer writes (logOffsets; changelogManifestList when null) dropped. */
static char *as_master(char *java) {
  static const char *const gone[] = {"  \"logOffsets\" : { },\n", "  \"changelogManifestList\" : null,\n"};
  for (size_t g = 0; java && g < 2; g++) {
    char *p = strstr(java, gone[g]);
    if (p) memmove(p, p + strlen(gone[g]), strlen(p + strlen(gone[g])) + 1);
  }
  return java;
}

static void check_table(const char *what) {
  CHECK(ot_check_ok(dir, OT_ALLOW_OLD, what));
  CHECK_EQ_INT(cf_snapshots_differ(&fx, NULL, 1, 5, what), 0);
}

/* Our reader at tag `name` equals paimon-table's rows of snapshot id. */
static void read_tag_equals(const char *name, int id) {
  char args[256], what[64];
  snprintf(args, sizeof args, TT " --tag %s", name);
  snprintf(what, sizeof what, "tag %s", name);
  CHECK(cf_our_read_equals(&fx, args, fx.rows[id], what));
}

static void test_tags(void) {
  char *out = NULL, path[1200];
  CHECK_EQ_INT(cf_record_snapshots(&fx, 1, 5), 0);
  /* create from the latest snapshot: the file is Java's snapshot-5, byte for byte */
  CHECK_EQ_INT(cli("tag create " TT " t1", &out), 0);
  free(out);
  snprintf(path, sizeof path, "%s/snapshot/snapshot-5", dir);
  char *java = as_master(slurp(path));
  snprintf(path, sizeof path, "%s/tag/tag-t1", dir);
  char *ours = slurp(path);
  CHECK_MSG(java && ours && !strcmp(java, ours), "tag-t1 differs from snapshot-5:\n%s\n---\n%s", ours ? ours : "",
            java ? java : "");
  CHECK_EQ_INT(cli("tag get " TT " t1", &out), 0);
  CHECK_MSG(out && java && !strncmp(out, java, strlen(java)), "%s", out ? out : "");
  free(out);
  free(ours);
  free(java);
  /* with a retention, from snapshot 2: Java's snapshot-2 JSON plus the two tag keys */
  CHECK_EQ_INT(cli("tag create " TT " t2 --snapshot-id 2 --time-retained '1 d'", &out), 0);
  free(out);
  snprintf(path, sizeof path, "%s/snapshot/snapshot-2", dir);
  java = as_master(slurp(path));
  snprintf(path, sizeof path, "%s/tag/tag-t2", dir);
  ours = slurp(path);
  char *close = java ? strrchr(java, '}') : NULL;
  size_t keep = close ? (size_t)(close - java) : 0;
  while (keep && (java[keep - 1] == '\n' || java[keep - 1] == ' ')) keep--;
  CHECK_MSG(ours && java && !strncmp(ours, java, keep) && !strncmp(ours + keep, ",\n  \"tagCreateTime\" : [ 2", 25),
            "%s", ours ? ours : "");
  CHECK_MSG(ours && strstr(ours, "\"tagTimeRetained\" : 86400.000000000\n}"), "%s", ours ? ours : "");
  free(java);
  free(ours);
  CHECK_EQ_INT(cli("tag create " TT " t3 --snapshot 3", &out), 0);
  free(out);
  CHECK_EQ_INT(cli("tag list " TT, &out), 0);
  CHECK_MSG(out && !strcmp(out, "t1\t5\nt2\t2\nt3\t3\n"), "%s", out ? out : "");
  free(out);
  check_table("after tag create");
  read_tag_equals("t1", 5);
  read_tag_equals("t2", 2);
  read_tag_equals("t3", 3);
  /* the $tags system table sees them too */
  CHECK_EQ_INT(cli("table read '" TT "$tags' --format csv", &out), 0);
  CHECK_MSG(out && strstr(out, "t2,2,") && strstr(out, "t3,3,"), "%s", out ? out : "");
  free(out);
  /* rename, delete */
  CHECK_EQ_INT(cli("tag rename " TT " t3 t4", &out), 0);
  free(out);
  CHECK_EQ_INT(cli("tag list " TT, &out), 0);
  CHECK_MSG(out && !strcmp(out, "t1\t5\nt2\t2\nt4\t3\n"), "%s", out ? out : "");
  free(out);
  read_tag_equals("t4", 3);
  CHECK_EQ_INT(cli("tag delete " TT " t1", &out), 0);
  free(out);
  CHECK_EQ_INT(cli("tag list " TT, &out), 0);
  CHECK_MSG(out && !strcmp(out, "t2\t2\nt4\t3\n"), "%s", out ? out : "");
  free(out);
  check_table("after tag rename + delete");
}

static void test_errors(void) {
  char *out = NULL;
  struct {
    const char *args;
    int code;
    const char *msg;
  } cases[] = {
      {"tag create " TT " t2", 1, "tag 't2' already exists"},
      {"tag create " TT " ' '", 1, "tag name shouldn't be blank"},
      {"tag create " TT " a/b", 1, "not a valid file name"},
      {"tag create " TT " t9 --snapshot 99", 1, "snapshot 99 doesn't exist"},
      {"tag create " TT " t9 --snapshot x", 2, "needs a snapshot id"},
      {"tag create " TT " t9 --time-retained 3parsecs", 1, "time_retained"},
      {"tag delete " TT " nope", 1, "tag 'nope' doesn't exist"},
      {"tag get " TT " nope", 1, "tag 'nope' doesn't exist"},
      {"tag rename " TT " nope x", 1, "tag 'nope' doesn't exist"},
      {"tag rename " TT " t2 t4", 1, "tag 't4' already exists"},
      {"tag rename " TT " t2", 2, "missing new tag name"},
      {"tag list", 2, "missing table"},
      {"tag bogus " TT, 2, "unknown subcommand"},
      {"tag list " TT " --bogus", 2, "unknown option --bogus"},
      {"tag create " T ".nope t", 1, "nope"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    CHECK_EQ_INT(cli(cases[i].args, &out), cases[i].code);
    CHECK_MSG(out && strstr(out, cases[i].msg), "%s: %s", cases[i].args, out ? out : "");
    free(out);
  }
  /* --ignore-if-exists keeps the existing tag */
  CHECK_EQ_INT(cli("tag create " TT " t2 --ignore-if-exists", &out), 0);
  free(out);
  CHECK_EQ_INT(cli("tag list " TT, &out), 0);
  CHECK_MSG(out && !strcmp(out, "t2\t2\nt4\t3\n"), "%s", out ? out : "");
  free(out);
  CHECK_EQ_INT(cli("tag --help", &out), 0);
  CHECK(out && strstr(out, "--time-retained"));
  free(out);
  check_table("after refused tag operations");
}

/* The commit path runs Java's maintenance: a batch import with tag.automatic-creation=batch tags
 * its snapshot (TagBatchCreation), tag.num-retained-max 2 then drops the oldest tag (t2). */
static void test_auto_tag_after_commit(void) {
  char path[1200], args[3000], *out = NULL;
  snprintf(path, sizeof path, "%s/row.jsonl", fx.wh);
  FILE *f = fopen(path, "w");
  CHECK(f != NULL);
  if (f) {
    fputs("{\"f0\":\"Zed\",\"f1\":10,\"f2\":1,\"f3\":1.5}\n", f);
    fclose(f);
  }
  snprintf(args, sizeof args,
           "table import " TT " '%s' --option tag.automatic-creation=batch --option tag.batch.customized-name=nightly"
           " --option tag.num-retained-max=2",
           path);
  CHECK_EQ_INT(cli(args, &out), 0);
  free(out);
  CHECK_EQ_INT(cli("tag list " TT, &out), 0);
  CHECK_MSG(out && !strcmp(out, "nightly\t6\nt4\t3\n"), "%s", out ? out : "");
  free(out);
  check_table("after an import with automatic batch tags");
}

int main(void) {
  if (cf_setup(&fx, "pm_cli_tag", T)) return 1;
  if (!ot_available()) {
    printf("SKIP: paimon-table oracle not available\n");
    return 0;
  }
  RUN_TEST(test_tags);
  RUN_TEST(test_errors);
  RUN_TEST(test_auto_tag_after_commit);
  if (cf_teardown(&fx, !pm_test_failures)) return 1;
  TEST_MAIN_END();
}
