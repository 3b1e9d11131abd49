/* `paimon tag create|delete|rename|list|get DB.T ...` through the public tag API (paimon/tag.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cli/cli.h"
#include "paimon/paimon.h"
#include "paimon/tag.h"

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] tag <subcommand> DB.T ...\n"
        "\n"
        "  tag create DB.T NAME [--snapshot N | --snapshot-id N] [--time-retained D] [--ignore-if-exists]\n"
        "      tag the latest snapshot (or snapshot N); D is a duration (\"1 d\", \"12h\", \"30 min\"),\n"
        "      default the table's tag.default-time-retained (none when unset)\n"
        "  tag delete DB.T NAME         delete a tag\n"
        "  tag rename DB.T OLD NEW      rename a tag\n"
        "  tag list DB.T                one line per tag: NAME<TAB>SNAPSHOT_ID, sorted by name\n"
        "  tag get DB.T NAME            print the tag file (snapshot JSON)\n"
        "\n"
        "DB.T may name a branch as DB.T$branch_B (the branch's tags).\n",
        out);
}

int cli_tag_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv) || argc < 2) {
    usage(argc < 2 ? stderr : stdout);
    return argc < 2 ? 2 : 0;
  }
  const char *sub = argv[1];
  char cmd[64];
  snprintf(cmd, sizeof cmd, "tag %s", sub);
  const char *pos[3] = {0};
  int n_pos = 0, ignore = 0;
  int64_t snap = -1;
  const char *retained = NULL;
  int is_create = !strcmp(sub, "create");
  int want = is_create ? 2 : !strcmp(sub, "delete") || !strcmp(sub, "get") ? 2 : !strcmp(sub, "rename") ? 3
                                                                              : !strcmp(sub, "list")     ? 1
                                                                                                         : -1;
  if (want < 0) {
    fprintf(stderr, "paimon tag: unknown subcommand '%s' (create, delete, rename, list, get)\n", sub);
    return 2;
  }
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    if (is_create && (!strcmp(s, "--snapshot") || !strcmp(s, "--snapshot-id"))) {
      if (i + 1 >= argc || cli_parse_int64(argv[i + 1], 0, &snap)) {
        fprintf(stderr, "paimon tag create: %s needs a snapshot id (a non-negative integer)\n", s);
        return 2;
      }
      i++;
    } else if (is_create && !strcmp(s, "--time-retained")) {
      if (i + 1 >= argc) {
        fprintf(stderr, "paimon tag create: --time-retained needs a duration\n");
        return 2;
      }
      retained = argv[++i];
    } else if (is_create && !strcmp(s, "--ignore-if-exists")) {
      ignore = 1;
    } else if (cli_positional(cmd, s, pos, &n_pos, want)) {
      return 2;
    }
  }
  if (n_pos < want) {
    fprintf(stderr, "paimon tag %s: missing %s\n", sub,
            n_pos == 0 ? "table (DB.T)" : n_pos == 1 ? "tag name" : "new tag name");
    return 2;
  }
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  int code = cli_open_table(cmd, warehouse, pos[0], &cat, &t);
  paimon_error err = {0};
  int rc = 0;
  if (!code) {
    if (is_create) {
      rc = paimon_table_create_tag(t, pos[1], snap, retained, ignore, &err);
    } else if (!strcmp(sub, "delete")) {
      rc = paimon_table_delete_tag(t, pos[1], &err);
    } else if (!strcmp(sub, "rename")) {
      rc = paimon_table_rename_tag(t, pos[1], pos[2], &err);
    } else if (!strcmp(sub, "get")) {
      char *json = NULL;
      rc = paimon_table_get_tag(t, pos[1], NULL, &json, &err);
      if (!rc) {
        size_t len = strlen(json);
        fputs(json, stdout);
        if (!len || json[len - 1] != '\n') fputc('\n', stdout);
      }
      paimon_free_string(json);
    } else {
      char **names = NULL;
      size_t n = 0;
      rc = paimon_table_list_tags(t, &names, &n, &err);
      for (size_t i = 0; !rc && i < n; i++) {
        int64_t id = -1;
        rc = paimon_table_get_tag(t, names[i], &id, NULL, &err);
        if (!rc) printf("%s\t%lld\n", names[i], (long long)id);
      }
      paimon_free_strings(names, n);
    }
  }
  if (rc) code = cli_fail(cmd, &err);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return code;
}

static void rollback_usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table rollback DB.T (--snapshot N | --snapshot-id N | --tag T | --timestamp TS)\n"
        "\n"
        "Rolls the table (or DB.T$branch_B) back as Java's rollback_to: snapshot/LATEST set to the target,\n"
        "later snapshots, long-lived changelogs and tags of later snapshots deleted. TS: epoch milliseconds\n"
        "or local time 'YYYY-MM-DD HH:MM:SS' (the latest snapshot committed at or before it). Data files are\n"
        "left for `table remove-orphan-files`.\n",
        out);
}

int cli_rollback_main(const char *warehouse, int argc, char **argv) {
  if (cli_wants_help(argc, argv)) {
    rollback_usage(stdout);
    return 0;
  }
  const char *ident = NULL, *tag = NULL, *ts_text = NULL;
  int64_t snap = -1;
  int kinds = 0;
  for (int i = 2; i < argc; i++) {
    const char *s = argv[i];
    int has = i + 1 < argc;
    if (!strcmp(s, "--snapshot") || !strcmp(s, "--snapshot-id")) {
      if (!has || cli_parse_int64(argv[i + 1], 0, &snap)) {
        fprintf(stderr, "paimon table rollback: %s needs a snapshot id (a non-negative integer)\n", s);
        return 2;
      }
      i++;
      kinds++;
    } else if (!strcmp(s, "--tag") && has) {
      tag = argv[++i];
      kinds++;
    } else if (!strcmp(s, "--timestamp") && has) {
      ts_text = argv[++i];
      kinds++;
    } else if (s[0] == '-' && s[1]) {
      fprintf(stderr, "paimon table rollback: unknown option %s%s\n", s,
              !strcmp(s, "--tag") || !strcmp(s, "--timestamp") ? " (its value is missing)" : "");
      return 2;
    } else if (!ident) {
      ident = s;
    } else {
      fprintf(stderr, "paimon table rollback: unexpected argument '%s'\n", s);
      return 2;
    }
  }
  if (!ident) {
    fprintf(stderr, "paimon table rollback: missing table (DB.T)\n");
    return 2;
  }
  if (kinds != 1) {
    fprintf(stderr, "paimon table rollback: give exactly one of --snapshot N, --tag T, --timestamp TS\n");
    return 2;
  }
  int64_t ts = 0;
  if (ts_text && cli_parse_int64(ts_text, 0, &ts)) {
    struct tm tm;
    memset(&tm, 0, sizeof tm);
    int used = -1;
    if (sscanf(ts_text, "%d-%d-%d %d:%d:%d%n", &tm.tm_year, &tm.tm_mon, &tm.tm_mday, &tm.tm_hour, &tm.tm_min,
               &tm.tm_sec, &used) != 6 || used < 0 || ts_text[used]) {
      fprintf(stderr, "paimon table rollback: --timestamp '%s' is neither epoch milliseconds nor 'YYYY-MM-DD HH:MM:SS'\n",
              ts_text);
      return 2;
    }
    tm.tm_year -= 1900;
    tm.tm_mon -= 1;
    tm.tm_isdst = -1;
    ts = (int64_t)mktime(&tm) * 1000;
  }
  paimon_catalog *cat = NULL;
  paimon_table *t = NULL;
  int code = cli_open_table("table rollback", warehouse, ident, &cat, &t);
  paimon_error err = {0};
  int rc = 0;
  if (!code) {
    if (tag) rc = paimon_table_rollback_to_tag(t, tag, &err);
    else if (ts_text) rc = paimon_table_rollback_to_timestamp(t, ts, &err);
    else rc = paimon_table_rollback_to_snapshot(t, snap, &err);
  }
  if (rc) code = cli_fail("table rollback", &err);
  paimon_table_free(t);
  paimon_catalog_free(cat);
  return code;
}
