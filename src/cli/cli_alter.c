/* paimon table alter DB.T <action> ...: schema changes through the public API (paimon/ddl.h). */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "cli/cli.h"
#include "paimon/ddl.h"
#include "paimon/paimon.h"

typedef struct action {
  const char *name, *args, *help;
} action;

static const action ACTIONS[] = {
    {"add-column", "'NAME TYPE [COMMENT ''text'']' [--first | --after COL]",
     "Adds a nullable column (NAME a.b adds field b inside ROW column a); by default after the last column\n"
     "(before the partition columns when the table sets add-column-before-partition). TYPE is a Paimon\n"
     "type string. The comment is a quoted string ('it''s': a quote written twice) or the rest of the text."},
    {"drop-column", "COL", "Drops a column (not a partition or primary-key column, not the last one)."},
    {"rename-column", "COL NEW", "Renames a column (not a partition column); primary keys and options follow."},
    {"update-column-type", "COL TYPE",
     "Changes a column's type where Java Paimon allows the cast (e.g. INT -> BIGINT); COL a.element /\n"
     "m.value reaches ARRAY elements and MAP values. TYPE's nullability is the new nullability."},
    {"update-column-nullability", "COL (null|not-null)",
     "Makes a column nullable or NOT NULL (NOT NULL needs alter-column-null-to-not-null.disabled = false)."},
    {"update-column-comment", "COL TEXT", "Sets a column's comment."},
    {"move-column", "COL (--first | --after COL2 | --last)", "Moves a top-level column."},
    {"set-option", "KEY=VALUE", "Sets a table option (immutable options are refused once the table has data)."},
    {"remove-option", "KEY", "Removes a table option."},
    {"update-comment", "TEXT", "Sets the table comment."},
};
#define N_ACTIONS (sizeof ACTIONS / sizeof ACTIONS[0])

static void usage(FILE *out) {
  fputs("usage: paimon [-w WAREHOUSE] table alter DB.T ACTION ARGS...\n\nactions:\n", out);
  for (size_t i = 0; i < N_ACTIONS; i++) fprintf(out, "  %s %s\n", ACTIONS[i].name, ACTIONS[i].args);
  fputs("\nOne action per call; it becomes the next schema file (schema-N), or nothing when refused.\n"
        "`paimon table alter ACTION --help` describes an action. The warehouse is -w PATH or $PAIMON_WAREHOUSE.\n",
        out);
}

static const action *find_action(const char *name) {
  for (size_t i = 0; i < N_ACTIONS; i++)
    if (!strcmp(ACTIONS[i].name, name)) return &ACTIONS[i];
  return NULL;
}

static int fail(const char *what, const paimon_error *err) {
  fprintf(stderr, "paimon table alter: %s%s%s\n", what ? what : "", what ? ": " : "",
          err->message[0] ? err->message : paimon_status_name(err->code));
  return 1;
}

static int usage_error(const char *fmt, const char *arg) {
  fputs("paimon table alter: ", stderr);
  fprintf(stderr, fmt, arg);
  fputs(" (see paimon table alter --help)\n", stderr);
  return 2;
}

/* ---- 'NAME TYPE [COMMENT ''text'']' */

typedef struct coldef {
  char *name, *type, *comment; /* malloc'd; comment NULL when absent */
} coldef;

static void coldef_clear(coldef *c) {
  free(c->name);
  free(c->type);
  free(c->comment);
  memset(c, 0, sizeof *c);
}

/* A SQL string literal at *p ('...' with '' for a quote); *p moves past it. NULL when malformed. */
static char *sql_string(const char **p) {
  const char *s = *p;
  if (*s != '\'') return NULL;
  s++;
  size_t cap = strlen(s) + 1, w = 0;
  char *out = malloc(cap);
  if (!out) return NULL;
  for (;;) {
    if (!*s) {
      free(out);
      return NULL;
    }
    if (*s == '\'') {
      if (s[1] == '\'') {
        out[w++] = '\'';
        s += 2;
        continue;
      }
      s++;
      break;
    }
    out[w++] = *s++;
  }
  out[w] = 0;
  *p = s;
  return out;
}

static int parse_coldef(const char *text, coldef *c) {
  memset(c, 0, sizeof *c);
  const char *p = text;
  while (isspace((unsigned char)*p)) p++;
  /* name: `quoted` (`` for a backtick) or up to the first blank */
  if (*p == '`') {
    p++;
    size_t cap = strlen(p) + 1, w = 0;
    c->name = malloc(cap);
    if (!c->name) return -1;
    for (;;) {
      if (!*p) return -1;
      if (*p == '`') {
        if (p[1] == '`') {
          c->name[w++] = '`';
          p += 2;
          continue;
        }
        p++;
        break;
      }
      c->name[w++] = *p++;
    }
    c->name[w] = 0;
  } else {
    const char *a = p;
    while (*p && !isspace((unsigned char)*p)) p++;
    c->name = strndup(a, (size_t)(p - a));
  }
  if (!c->name || !*c->name) return -1;
  while (isspace((unsigned char)*p)) p++;
  /* type: up to a top-level COMMENT keyword */
  const char *t = p, *end = NULL;
  int depth = 0, quote = 0;
  for (const char *q = p; *q; q++) {
    if (quote) {
      if (*q == quote) quote = 0;
      continue;
    }
    if (*q == '\'' || *q == '`') quote = *q;
    else if (*q == '<' || *q == '(') depth++;
    else if (*q == '>' || *q == ')') depth--;
    else if (!depth && (q == p || isspace((unsigned char)q[-1])) && !strncasecmp(q, "COMMENT", 7) &&
             (isspace((unsigned char)q[7]) || q[7] == '\'')) {
      end = q;
      break;
    }
  }
  const char *te = end ? end : t + strlen(t);
  while (te > t && isspace((unsigned char)te[-1])) te--;
  if (te == t) return -1;
  c->type = strndup(t, (size_t)(te - t));
  if (!c->type) return -1;
  if (end) {
    const char *q = end + 7;
    while (isspace((unsigned char)*q)) q++;
    if (*q == '\'') {
      c->comment = sql_string(&q);
      if (!c->comment) return -1;
      while (isspace((unsigned char)*q)) q++;
      if (*q) return -1;
    } else {
      /* unquoted: the rest of the text (a shell turns 'c INT COMMENT ''x''' into c INT COMMENT x) */
      const char *qe = q + strlen(q);
      while (qe > q && isspace((unsigned char)qe[-1])) qe--;
      if (qe == q) return -1;
      c->comment = strndup(q, (size_t)(qe - q));
      if (!c->comment) return -1;
    }
  }
  return 0;
}

/* ---- positions: --first | --after COL | --last */

static int parse_position(int argc, char **argv, int i, paimon_column_position *pos, const char **ref, int allow_last) {
  *pos = PAIMON_COLUMN_LAST;
  *ref = NULL;
  int seen = 0;
  for (; i < argc; i++) {
    if (seen) return usage_error("unexpected argument '%s'", argv[i]);
    if (!strcmp(argv[i], "--first")) *pos = PAIMON_COLUMN_FIRST;
    else if (allow_last && !strcmp(argv[i], "--last")) *pos = PAIMON_COLUMN_LAST;
    else if (!strcmp(argv[i], "--after")) {
      if (i + 1 >= argc) return usage_error("%s needs a column", argv[i]);
      *pos = PAIMON_COLUMN_AFTER;
      *ref = argv[++i];
    } else if (!strncmp(argv[i], "--after=", 8)) {
      *pos = PAIMON_COLUMN_AFTER;
      *ref = argv[i] + 8;
    } else {
      return usage_error("unexpected argument '%s'", argv[i]);
    }
    seen = 1;
  }
  return 0;
}

static int want_args(const action *a, int have, int want) {
  if (have == want) return 0;
  fprintf(stderr, "paimon table alter %s: expected %s\n", a->name, a->args);
  return 2;
}

/* Builds the change of argv[0] (the action) with its arguments argv[1..]. 0, or an exit code. */
static int build_change(int argc, char **argv, paimon_schema_change **out) {
  const action *a = find_action(argv[0]);
  if (!a) return usage_error("unknown action '%s'", argv[0]);
  paimon_error err = {0};
  paimon_status st = PAIMON_OK;
  int rc;
  const char *n = a->name;
  if (!strcmp(n, "add-column")) {
    if (argc < 2) return want_args(a, argc - 1, 1);
    coldef c;
    if (parse_coldef(argv[1], &c)) {
      coldef_clear(&c);
      fprintf(stderr, "paimon table alter add-column: cannot parse column '%s' (want 'NAME TYPE [COMMENT ''text'']')\n",
              argv[1]);
      return 2;
    }
    paimon_column_position pos;
    const char *ref;
    if ((rc = parse_position(argc, argv, 2, &pos, &ref, 0))) {
      coldef_clear(&c);
      return rc;
    }
    st = paimon_schema_change_add_column(c.name, c.type, c.comment, pos, ref, out, &err);
    coldef_clear(&c);
  } else if (!strcmp(n, "move-column")) {
    if (argc < 3) return want_args(a, argc - 1, 2);
    paimon_column_position pos;
    const char *ref;
    if ((rc = parse_position(argc, argv, 2, &pos, &ref, 1))) return rc;
    st = paimon_schema_change_update_column_position(argv[1], pos, ref, out, &err);
  } else if (!strcmp(n, "drop-column")) {
    if ((rc = want_args(a, argc - 1, 1))) return rc;
    st = paimon_schema_change_drop_column(argv[1], out, &err);
  } else if (!strcmp(n, "rename-column")) {
    if ((rc = want_args(a, argc - 1, 2))) return rc;
    st = paimon_schema_change_rename_column(argv[1], argv[2], out, &err);
  } else if (!strcmp(n, "update-column-type")) {
    if ((rc = want_args(a, argc - 1, 2))) return rc;
    st = paimon_schema_change_update_column_type(argv[1], argv[2], out, &err);
  } else if (!strcmp(n, "update-column-nullability")) {
    if ((rc = want_args(a, argc - 1, 2))) return rc;
    int nullable;
    if (!strcasecmp(argv[2], "null") || !strcasecmp(argv[2], "nullable")) nullable = 1;
    else if (!strcasecmp(argv[2], "not-null") || !strcasecmp(argv[2], "not null")) nullable = 0;
    else return usage_error("update-column-nullability wants null or not-null, got '%s'", argv[2]);
    st = paimon_schema_change_update_column_nullability(argv[1], nullable, out, &err);
  } else if (!strcmp(n, "update-column-comment")) {
    if ((rc = want_args(a, argc - 1, 2))) return rc;
    st = paimon_schema_change_update_column_comment(argv[1], argv[2], out, &err);
  } else if (!strcmp(n, "set-option")) {
    if ((rc = want_args(a, argc - 1, 1))) return rc;
    char *eq = strchr(argv[1], '=');
    if (!eq || eq == argv[1]) return usage_error("set-option wants KEY=VALUE, got '%s'", argv[1]);
    *eq = 0;
    st = paimon_schema_change_set_option(argv[1], eq + 1, out, &err);
    *eq = '=';
  } else if (!strcmp(n, "remove-option")) {
    if ((rc = want_args(a, argc - 1, 1))) return rc;
    st = paimon_schema_change_remove_option(argv[1], out, &err);
  } else { /* update-comment */
    if ((rc = want_args(a, argc - 1, 1))) return rc;
    st = paimon_schema_change_update_comment(argv[1], out, &err);
  }
  return st ? fail(a->name, &err) : 0;
}

int cli_alter_main(const char *warehouse, int argc, char **argv) {
  /* argv[0] = "table", argv[1] = "alter" */
  if (cli_wants_help(argc, argv)) {
    for (int i = 2; i < argc; i++) {
      const action *a = find_action(argv[i]);
      if (a) {
        printf("usage: paimon [-w WAREHOUSE] table alter DB.T %s %s\n\n%s\n", a->name, a->args, a->help);
        return 0;
      }
    }
    usage(stdout);
    return 0;
  }
  if (argc < 4) {
    fprintf(stderr, "paimon table alter: missing %s\n", argc < 3 ? "table (DB.T)" : "action");
    usage(stderr);
    return 2;
  }
  const char *ident = argv[2];
  paimon_schema_change *change = NULL;
  int rc = build_change(argc - 3, argv + 3, &change);
  if (rc) return rc;
  if (!warehouse) warehouse = getenv("PAIMON_WAREHOUSE");
  if (!warehouse || !*warehouse) {
    paimon_schema_change_free(change);
    fprintf(stderr, "paimon: no warehouse (use -w PATH or set PAIMON_WAREHOUSE)\n");
    return 2;
  }
  paimon_option o[] = {{"warehouse", warehouse}};
  paimon_error err = {0};
  paimon_catalog *cat = NULL;
  const paimon_schema_change *cs[] = {change};
  if (paimon_catalog_open(o, 1, &cat, &err) || paimon_catalog_alter_table(cat, ident, cs, 1, 0, &err))
    rc = fail(NULL, &err);
  paimon_schema_change_free(change);
  paimon_catalog_free(cat);
  return rc;
}
