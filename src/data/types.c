/* Paimon data types: parse / print / JSON / Arrow mapping (FORMAT.md 2.2-2.4). */
#include "data/types.h"

#include <ctype.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "arrow/arrow.h"

static const char *const ROOT_NAMES[] = {
    "BOOLEAN", "TINYINT", "SMALLINT", "INT", "BIGINT", "FLOAT", "DOUBLE", "DECIMAL", "CHAR",
    "VARCHAR", "BINARY", "VARBINARY", "DATE", "TIME", "TIMESTAMP", "TIMESTAMP_LTZ", "VARIANT",
    "BLOB", "GEOMETRY", "GEOGRAPHY", "ARRAY", "MULTISET", "MAP", "ROW", "VECTOR"};

const char *pm_dtype_root_name(pm_dtype_root r) {
  if ((unsigned)r < sizeof(ROOT_NAMES) / sizeof(ROOT_NAMES[0])) return ROOT_NAMES[r];
  return "?";
}

int pm_dtype_is_nested(pm_dtype_root r) {
  return r == PM_DT_ARRAY || r == PM_DT_MULTISET || r == PM_DT_MAP || r == PM_DT_ROW || r == PM_DT_VECTOR;
}
int pm_dtype_is_string(pm_dtype_root r) { return r == PM_DT_CHAR || r == PM_DT_VARCHAR; }
int pm_dtype_is_binary(pm_dtype_root r) {
  return r == PM_DT_BINARY || r == PM_DT_VARBINARY || r == PM_DT_BLOB || r == PM_DT_GEOMETRY ||
         r == PM_DT_GEOGRAPHY;
}
int pm_dtype_is_compact(const pm_data_type *t) {
  switch (t->root) {
    case PM_DT_BOOLEAN: case PM_DT_TINYINT: case PM_DT_SMALLINT: case PM_DT_INT: case PM_DT_BIGINT:
    case PM_DT_FLOAT: case PM_DT_DOUBLE: case PM_DT_DATE: case PM_DT_TIME:
      return 1;
    case PM_DT_DECIMAL: return t->precision <= 18;
    case PM_DT_TIMESTAMP: case PM_DT_TIMESTAMP_LTZ: return t->precision <= 3;
    default: return 0;
  }
}

int pm_dtype_new(pm_dtype_root root, int nullable, pm_data_type **out, pm_error *err) {
  pm_data_type *t = calloc(1, sizeof(*t));
  if (!t) return PM_NOMEM(err);
  t->root = root;
  t->nullable = nullable;
  switch (root) {
    case PM_DT_DECIMAL: t->precision = 10; t->scale = 0; break;
    case PM_DT_CHAR: case PM_DT_VARCHAR: case PM_DT_BINARY: case PM_DT_VARBINARY: t->length = 1; break;
    case PM_DT_TIME: t->precision = 0; break;
    case PM_DT_TIMESTAMP: t->precision = 6; break;
    case PM_DT_TIMESTAMP_LTZ: t->precision = 6; break;
    default: break;
  }
  *out = t;
  return 0;
}

void pm_data_field_clear(pm_data_field *f) {
  if (!f) return;
  free(f->name);
  free(f->description);
  free(f->default_value);
  pm_dtype_free(f->type);
  memset(f, 0, sizeof(*f));
}

void pm_dtype_free(pm_data_type *t) {
  if (!t) return;
  free(t->crs);
  free(t->alg);
  pm_dtype_free(t->element);
  pm_dtype_free(t->key);
  pm_dtype_free(t->value);
  for (size_t i = 0; i < t->n_fields; i++) pm_data_field_clear(&t->fields[i]);
  free(t->fields);
  free(t);
}

static char *dup_or_null(const char *s, int *oom) {
  if (!s) return NULL;
  char *d = strdup(s);
  if (!d) *oom = 1;
  return d;
}

int pm_data_field_copy(const pm_data_field *src, pm_data_field *dst, pm_error *err) {
  int oom = 0;
  memset(dst, 0, sizeof(*dst));
  dst->id = src->id;
  dst->name = dup_or_null(src->name, &oom);
  dst->description = dup_or_null(src->description, &oom);
  dst->default_value = dup_or_null(src->default_value, &oom);
  if (oom) {
    pm_data_field_clear(dst);
    return PM_NOMEM(err);
  }
  if (src->type) {
    int rc = pm_dtype_copy(src->type, &dst->type, err);
    if (rc) {
      pm_data_field_clear(dst);
      return rc;
    }
  }
  return 0;
}

int pm_dtype_copy(const pm_data_type *src, pm_data_type **out, pm_error *err) {
  pm_data_type *t = calloc(1, sizeof(*t));
  if (!t) return PM_NOMEM(err);
  *t = *src;
  t->crs = t->alg = NULL;
  t->element = t->key = t->value = NULL;
  t->fields = NULL;
  t->n_fields = 0;
  int oom = 0, rc = 0;
  t->crs = dup_or_null(src->crs, &oom);
  t->alg = dup_or_null(src->alg, &oom);
  if (oom) rc = PM_NOMEM(err);
  if (!rc && src->element) rc = pm_dtype_copy(src->element, &t->element, err);
  if (!rc && src->key) rc = pm_dtype_copy(src->key, &t->key, err);
  if (!rc && src->value) rc = pm_dtype_copy(src->value, &t->value, err);
  if (!rc && src->n_fields) {
    t->fields = calloc(src->n_fields, sizeof(pm_data_field));
    if (!t->fields) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < src->n_fields; i++) {
      rc = pm_data_field_copy(&src->fields[i], &t->fields[i], err);
      if (!rc) t->n_fields = i + 1;
    }
  }
  if (rc) {
    pm_dtype_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

static int str_eq(const char *a, const char *b) {
  if (!a || !b) return a == b;
  return strcmp(a, b) == 0;
}

int pm_dtype_equals(const pm_data_type *a, const pm_data_type *b) {
  if (!a || !b) return a == b;
  if (a->root != b->root || a->nullable != b->nullable || a->length != b->length ||
      a->precision != b->precision || a->scale != b->scale || !str_eq(a->crs, b->crs) || !str_eq(a->alg, b->alg))
    return 0;
  if (!pm_dtype_equals(a->element, b->element) || !pm_dtype_equals(a->key, b->key) ||
      !pm_dtype_equals(a->value, b->value) || a->n_fields != b->n_fields)
    return 0;
  for (size_t i = 0; i < a->n_fields; i++) {
    const pm_data_field *x = &a->fields[i], *y = &b->fields[i];
    if (x->id != y->id || !str_eq(x->name, y->name) || !str_eq(x->description, y->description) ||
        !str_eq(x->default_value, y->default_value) || !pm_dtype_equals(x->type, y->type))
      return 0;
  }
  return 1;
}

/* ------------------------------------------------------------------ */
/* Atomic type string parser (FORMAT.md 2.3)                          */

typedef enum { TK_END, TK_WORD, TK_INT, TK_LIT, TK_IDENT, TK_DELIM } tok_kind;

typedef struct {
  tok_kind kind;
  char text[1024]; /* upper-cased word, literal content, or delimiter char */
  char raw[256];   /* a word as written (names of ROW fields and columns keep their case) */
  long long num;
} token;

typedef struct {
  const char *s;
  size_t pos;
  token cur;
  const char *input;
  pm_error *err;
  int failed;
} lexer;

static int lex_fail(lexer *lx, paimon_status code, const char *what) {
  if (!lx->failed) pm_errorf(lx->err, code, "type '%s': %s at position %zu", lx->input, what, lx->pos);
  lx->failed = 1;
  return code;
}

static int lex_next(lexer *lx) {
  const char *s = lx->s;
  while (s[lx->pos] && isspace((unsigned char)s[lx->pos])) lx->pos++;
  token *t = &lx->cur;
  memset(t, 0, sizeof(*t));
  char c = s[lx->pos];
  if (!c) {
    t->kind = TK_END;
    return 0;
  }
  if (strchr("<>(),.", c)) {
    t->kind = TK_DELIM;
    t->text[0] = c;
    lx->pos++;
    return 0;
  }
  if (c == '\'' || c == '`') {
    char q = c;
    size_t n = 0;
    lx->pos++;
    for (;;) {
      char d = s[lx->pos];
      if (!d) return lex_fail(lx, PAIMON_ERR_CORRUPT, "unterminated quote");
      if (d == q) {
        if (s[lx->pos + 1] == q) {
          lx->pos++;
        } else {
          lx->pos++;
          break;
        }
      }
      if (n + 1 >= sizeof(t->text)) return lex_fail(lx, PAIMON_ERR_CORRUPT, "quoted text too long");
      t->text[n++] = s[lx->pos++];
    }
    t->kind = q == '\'' ? TK_LIT : TK_IDENT;
    return 0;
  }
  if (isdigit((unsigned char)c)) {
    long long v = 0;
    while (isdigit((unsigned char)s[lx->pos])) {
      v = v * 10 + (s[lx->pos] - '0');
      if (v > 0x7fffffffLL) return lex_fail(lx, PAIMON_ERR_CORRUPT, "integer too large");
      lx->pos++;
    }
    t->kind = TK_INT;
    t->num = v;
    return 0;
  }
  size_t n = 0;
  while (s[lx->pos] && !isspace((unsigned char)s[lx->pos]) && !strchr("<>(),.'`", s[lx->pos])) {
    if (n + 1 >= sizeof(t->raw)) return lex_fail(lx, PAIMON_ERR_CORRUPT, "word too long");
    t->raw[n] = s[lx->pos];
    t->text[n++] = (char)toupper((unsigned char)s[lx->pos++]);
  }
  t->kind = TK_WORD;
  return 0;
}

static int is_word(lexer *lx, const char *w) { return lx->cur.kind == TK_WORD && strcmp(lx->cur.text, w) == 0; }
static int is_delim(lexer *lx, char c) { return lx->cur.kind == TK_DELIM && lx->cur.text[0] == c; }

static int expect_word(lexer *lx, const char *w) {
  if (!is_word(lx, w)) {
    char msg[64];
    snprintf(msg, sizeof msg, "expected %s", w);
    return lex_fail(lx, PAIMON_ERR_CORRUPT, msg);
  }
  return lex_next(lx);
}
static int expect_delim(lexer *lx, char c) {
  if (!is_delim(lx, c)) {
    char msg[32];
    snprintf(msg, sizeof msg, "expected '%c'", c);
    return lex_fail(lx, PAIMON_ERR_CORRUPT, msg);
  }
  return lex_next(lx);
}

/* Optional "(n)"; returns 1 in *present when given. */
static int opt_paren_int(lexer *lx, int32_t *v, int *present) {
  *present = 0;
  if (!is_delim(lx, '(')) return 0;
  PM_TRY(lex_next(lx));
  if (lx->cur.kind != TK_INT) return lex_fail(lx, PAIMON_ERR_CORRUPT, "expected an integer");
  *v = (int32_t)lx->cur.num;
  *present = 1;
  PM_TRY(lex_next(lx));
  return expect_delim(lx, ')');
}

static int parse_nullability(lexer *lx, int *nullable) {
  *nullable = 1;
  if (is_word(lx, "NOT")) {
    PM_TRY(lex_next(lx));
    PM_TRY(expect_word(lx, "NULL"));
    *nullable = 0;
  } else if (is_word(lx, "NULL")) {
    PM_TRY(lex_next(lx));
  }
  return 0;
}

static int parse_type_tokens(lexer *lx, int depth, pm_data_type **out);
static int parse_field_list(lexer *lx, int depth, char close, pm_data_field **out, size_t *n);

static int parse_base(lexer *lx, int depth, pm_data_type **out) {
  pm_data_type *t = NULL;
  int present = 0, rc;
  if (lx->cur.kind != TK_WORD) return lex_fail(lx, PAIMON_ERR_CORRUPT, "expected a type name");
  char w[sizeof lx->cur.text];
  memcpy(w, lx->cur.text, sizeof w);
  PM_TRY(lex_next(lx));
#define NEW(r) do { rc = pm_dtype_new((r), 1, &t, lx->err); if (rc) { lx->failed = 1; return rc; } } while (0)
  if (!strcmp(w, "CHAR") || !strcmp(w, "VARCHAR") || !strcmp(w, "BINARY") || !strcmp(w, "VARBINARY")) {
    pm_dtype_root r = !strcmp(w, "CHAR") ? PM_DT_CHAR : !strcmp(w, "VARCHAR") ? PM_DT_VARCHAR
                      : !strcmp(w, "BINARY") ? PM_DT_BINARY : PM_DT_VARBINARY;
    NEW(r);
    rc = opt_paren_int(lx, &t->length, &present);
    if (!rc && t->length < 1) rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "length must be at least 1");
  } else if (!strcmp(w, "STRING")) {
    NEW(PM_DT_VARCHAR);
    t->length = PM_DT_MAX_LENGTH;
    rc = 0;
  } else if (!strcmp(w, "BYTES")) {
    NEW(PM_DT_VARBINARY);
    t->length = PM_DT_MAX_LENGTH;
    rc = 0;
  } else if (!strcmp(w, "BOOLEAN")) { NEW(PM_DT_BOOLEAN); rc = 0; }
  else if (!strcmp(w, "TINYINT")) { NEW(PM_DT_TINYINT); rc = 0; }
  else if (!strcmp(w, "SMALLINT")) { NEW(PM_DT_SMALLINT); rc = 0; }
  else if (!strcmp(w, "INT") || !strcmp(w, "INTEGER")) { NEW(PM_DT_INT); rc = 0; }
  else if (!strcmp(w, "BIGINT")) { NEW(PM_DT_BIGINT); rc = 0; }
  else if (!strcmp(w, "FLOAT")) { NEW(PM_DT_FLOAT); rc = 0; }
  else if (!strcmp(w, "DOUBLE")) {
    NEW(PM_DT_DOUBLE);
    rc = is_word(lx, "PRECISION") ? lex_next(lx) : 0;
  } else if (!strcmp(w, "DATE")) { NEW(PM_DT_DATE); rc = 0; }
  else if (!strcmp(w, "VARIANT")) { NEW(PM_DT_VARIANT); rc = 0; }
  else if (!strcmp(w, "BLOB")) { NEW(PM_DT_BLOB); rc = 0; }
  else if (!strcmp(w, "DECIMAL") || !strcmp(w, "NUMERIC") || !strcmp(w, "DEC")) {
    NEW(PM_DT_DECIMAL);
    rc = 0;
    if (is_delim(lx, '(')) {
      rc = lex_next(lx);
      if (!rc && lx->cur.kind != TK_INT) rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "expected precision");
      if (!rc) {
        t->precision = (int32_t)lx->cur.num;
        t->scale = 0;
        rc = lex_next(lx);
      }
      if (!rc && is_delim(lx, ',')) {
        rc = lex_next(lx);
        if (!rc && lx->cur.kind != TK_INT) rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "expected scale");
        if (!rc) {
          t->scale = (int32_t)lx->cur.num;
          rc = lex_next(lx);
        }
      }
      if (!rc) rc = expect_delim(lx, ')');
    }
    if (!rc && (t->precision < 1 || t->precision > 38 || t->scale < 0 || t->scale > t->precision))
      rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "decimal precision/scale out of range");
  } else if (!strcmp(w, "TIME")) {
    NEW(PM_DT_TIME);
    rc = opt_paren_int(lx, &t->precision, &present);
    if (!rc && is_word(lx, "WITHOUT")) {
      rc = lex_next(lx);
      if (!rc) rc = expect_word(lx, "TIME");
      if (!rc) rc = expect_word(lx, "ZONE");
    }
    if (!rc && (t->precision < 0 || t->precision > 9)) rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "bad TIME precision");
  } else if (!strcmp(w, "TIMESTAMP") || !strcmp(w, "TIMESTAMP_LTZ")) {
    NEW(!strcmp(w, "TIMESTAMP") ? PM_DT_TIMESTAMP : PM_DT_TIMESTAMP_LTZ);
    rc = opt_paren_int(lx, &t->precision, &present);
    if (!rc && t->root == PM_DT_TIMESTAMP) {
      if (is_word(lx, "WITHOUT")) {
        rc = lex_next(lx);
        if (!rc) rc = expect_word(lx, "TIME");
        if (!rc) rc = expect_word(lx, "ZONE");
      } else if (is_word(lx, "WITH")) {
        rc = lex_next(lx);
        if (!rc) rc = expect_word(lx, "LOCAL");
        if (!rc) rc = expect_word(lx, "TIME");
        if (!rc) rc = expect_word(lx, "ZONE");
        t->root = PM_DT_TIMESTAMP_LTZ;
      }
    }
    if (!rc && (t->precision < 0 || t->precision > 9))
      rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "bad TIMESTAMP precision");
  } else if (!strcmp(w, "GEOMETRY") || !strcmp(w, "GEOGRAPHY")) {
    NEW(!strcmp(w, "GEOMETRY") ? PM_DT_GEOMETRY : PM_DT_GEOGRAPHY);
    rc = 0;
    if (is_delim(lx, '(')) {
      /* crs: a literal or a run of words/delims up to ',' or ')' */
      char buf[256];
      size_t n = 0;
      rc = lex_next(lx);
      while (!rc && lx->cur.kind != TK_END && !is_delim(lx, ',') && !is_delim(lx, ')')) {
        const char *piece = lx->cur.kind == TK_INT ? NULL : lx->cur.text;
        char num[24];
        if (!piece) {
          snprintf(num, sizeof num, "%lld", lx->cur.num);
          piece = num;
        }
        size_t pl = strlen(piece);
        if (n + pl + 1 >= sizeof buf) {
          rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "crs too long");
          break;
        }
        memcpy(buf + n, piece, pl);
        n += pl;
        rc = lex_next(lx);
      }
      buf[n] = 0;
      if (!rc) {
        t->crs = strdup(buf);
        if (!t->crs) rc = PM_NOMEM(lx->err);
      }
      if (!rc && is_delim(lx, ',')) {
        rc = lex_next(lx);
        if (!rc && lx->cur.kind != TK_WORD) rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "expected algorithm");
        if (!rc) {
          t->alg = strdup(lx->cur.text);
          for (char *p = t->alg; p && *p; p++) *p = (char)tolower((unsigned char)*p);
          if (!t->alg) rc = PM_NOMEM(lx->err);
          else rc = lex_next(lx);
        }
      }
      if (!rc) rc = expect_delim(lx, ')');
    }
  } else if ((!strcmp(w, "ARRAY") || !strcmp(w, "MULTISET")) && is_delim(lx, '<')) {
    NEW(!strcmp(w, "ARRAY") ? PM_DT_ARRAY : PM_DT_MULTISET);
    rc = lex_next(lx);
    if (!rc) rc = parse_type_tokens(lx, depth + 1, &t->element);
    if (!rc) rc = expect_delim(lx, '>');
  } else if (!strcmp(w, "MAP") && is_delim(lx, '<')) {
    NEW(PM_DT_MAP);
    rc = lex_next(lx);
    if (!rc) rc = parse_type_tokens(lx, depth + 1, &t->key);
    if (!rc) rc = expect_delim(lx, ',');
    if (!rc) rc = parse_type_tokens(lx, depth + 1, &t->value);
    if (!rc) rc = expect_delim(lx, '>');
  } else if (!strcmp(w, "ROW") && (is_delim(lx, '<') || is_delim(lx, '('))) {
    NEW(PM_DT_ROW);
    char close = is_delim(lx, '<') ? '>' : ')';
    rc = lex_next(lx);
    if (!rc) rc = parse_field_list(lx, depth + 1, close, &t->fields, &t->n_fields);
    if (!rc) rc = expect_delim(lx, close);
  } else if (!strcmp(w, "VECTOR")) {
    NEW(PM_DT_VECTOR);
    rc = expect_delim(lx, '<');
    if (!rc) rc = parse_type_tokens(lx, depth + 1, &t->element);
    if (!rc) rc = expect_delim(lx, ',');
    if (!rc && lx->cur.kind != TK_INT) rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "expected vector length");
    if (!rc) {
      t->length = (int32_t)lx->cur.num;
      rc = lex_next(lx);
    }
    if (!rc) rc = expect_delim(lx, '>');
  } else {
    char msg[128];
    snprintf(msg, sizeof msg, "unknown type '%s'", w);
    return lex_fail(lx, PAIMON_ERR_UNSUPPORTED, msg);
  }
#undef NEW
  if (rc) {
    lx->failed = 1;
    pm_dtype_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

static int parse_type_tokens(lexer *lx, int depth, pm_data_type **out) {
  if (depth > PM_DT_MAX_DEPTH) return lex_fail(lx, PAIMON_ERR_CORRUPT, "type nested too deeply");
  pm_data_type *t = NULL;
  PM_TRY(parse_base(lx, depth, &t));
  int rc = parse_nullability(lx, &t->nullable);
  while (!rc && (is_word(lx, "ARRAY") || is_word(lx, "MULTISET"))) {
    pm_data_type *outer = NULL;
    rc = pm_dtype_new(is_word(lx, "ARRAY") ? PM_DT_ARRAY : PM_DT_MULTISET, 1, &outer, lx->err);
    if (rc) break;
    outer->element = t;
    t = outer;
    rc = lex_next(lx);
    if (!rc) rc = parse_nullability(lx, &t->nullable);
  }
  if (rc) {
    lx->failed = 1;
    pm_dtype_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

static void free_fields(pm_data_field *f, size_t n) {
  for (size_t i = 0; i < n; i++) pm_data_field_clear(&f[i]);
  free(f);
}

/* `name type [NOT NULL] [COMMENT 'text' | 'text']` separated by ',' up to `close`
 * (not consumed; 0 = end of input). Names are words (case kept) or `quoted`;
 * field ids are -1 (the caller numbers them). */
static int parse_field_list(lexer *lx, int depth, char close, pm_data_field **out, size_t *n) {
  pm_data_field *f = NULL;
  size_t cnt = 0, cap = 0;
  int rc = 0;
  *out = NULL;
  *n = 0;
  if (close && is_delim(lx, close)) return 0; /* ROW<> */
  for (;;) {
    if (lx->cur.kind != TK_WORD && lx->cur.kind != TK_IDENT) {
      rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "expected a field name");
      break;
    }
    if (cnt == cap) {
      size_t nc = cap ? cap * 2 : 8;
      pm_data_field *nf = realloc(f, nc * sizeof *nf);
      if (!nf) {
        rc = PM_NOMEM(lx->err);
        lx->failed = 1;
        break;
      }
      f = nf;
      cap = nc;
    }
    pm_data_field *x = &f[cnt];
    memset(x, 0, sizeof *x);
    x->id = -1;
    x->name = strdup(lx->cur.kind == TK_WORD ? lx->cur.raw : lx->cur.text);
    cnt++;
    if (!x->name) {
      rc = PM_NOMEM(lx->err);
      lx->failed = 1;
      break;
    }
    if ((rc = lex_next(lx))) break;
    if ((rc = parse_type_tokens(lx, depth, &x->type))) break;
    if (is_word(lx, "COMMENT")) {
      if ((rc = lex_next(lx))) break;
      if (lx->cur.kind != TK_LIT) {
        rc = lex_fail(lx, PAIMON_ERR_CORRUPT, "expected a quoted comment");
        break;
      }
    }
    if (lx->cur.kind == TK_LIT) {
      if (!(x->description = strdup(lx->cur.text))) {
        rc = PM_NOMEM(lx->err);
        lx->failed = 1;
        break;
      }
      if ((rc = lex_next(lx))) break;
    }
    if (!is_delim(lx, ',')) break;
    if ((rc = lex_next(lx))) break;
  }
  if (!rc && (close ? !is_delim(lx, close) : lx->cur.kind != TK_END))
    rc = lex_fail(lx, PAIMON_ERR_CORRUPT, close ? "expected ',' or the end of the field list" : "expected ',' or the end");
  if (rc) {
    free_fields(f, cnt);
    return rc;
  }
  *out = f;
  *n = cnt;
  return 0;
}

int pm_dtype_parse_fields(const char *text, pm_data_field **out, size_t *n, pm_error *err) {
  lexer lx = {.s = text, .input = text, .err = err};
  *out = NULL;
  *n = 0;
  PM_TRY(lex_next(&lx));
  if (lx.cur.kind == TK_END) return 0;
  return parse_field_list(&lx, 0, 0, out, n);
}

int pm_dtype_parse(const char *text, pm_data_type **out, pm_error *err) {
  lexer lx = {.s = text, .input = text, .err = err};
  pm_data_type *t = NULL;
  PM_TRY(lex_next(&lx));
  PM_TRY(parse_type_tokens(&lx, 0, &t));
  if (lx.cur.kind != TK_END) {
    pm_dtype_free(t);
    return lex_fail(&lx, PAIMON_ERR_CORRUPT, "unexpected trailing text");
  }
  *out = t;
  return 0;
}

/* ------------------------------------------------------------------ */
/* Printing                                                           */

static int crs_needs_quote(const char *crs) {
  if (!crs || !*crs) return 0;
  if (isdigit((unsigned char)crs[0])) return 1;
  for (const char *p = crs; *p; p++)
    if (strchr(" <>(),.'`", *p)) return 1;
  return 0;
}

static int buf_puts(pm_buf *b, const char *s) { return pm_buf_append(b, s, strlen(s)); }

static int print_atomic(const pm_data_type *t, pm_buf *out) {
  char tmp[96];
  switch (t->root) {
    case PM_DT_DECIMAL: snprintf(tmp, sizeof tmp, "DECIMAL(%d, %d)", t->precision, t->scale); break;
    case PM_DT_CHAR: snprintf(tmp, sizeof tmp, "CHAR(%d)", t->length); break;
    case PM_DT_VARCHAR:
      if (t->length == PM_DT_MAX_LENGTH) snprintf(tmp, sizeof tmp, "STRING");
      else snprintf(tmp, sizeof tmp, "VARCHAR(%d)", t->length);
      break;
    case PM_DT_BINARY: snprintf(tmp, sizeof tmp, "BINARY(%d)", t->length); break;
    case PM_DT_VARBINARY:
      if (t->length == PM_DT_MAX_LENGTH) snprintf(tmp, sizeof tmp, "BYTES");
      else snprintf(tmp, sizeof tmp, "VARBINARY(%d)", t->length);
      break;
    case PM_DT_TIME: snprintf(tmp, sizeof tmp, "TIME(%d)", t->precision); break;
    case PM_DT_TIMESTAMP: snprintf(tmp, sizeof tmp, "TIMESTAMP(%d)", t->precision); break;
    case PM_DT_TIMESTAMP_LTZ: snprintf(tmp, sizeof tmp, "TIMESTAMP(%d) WITH LOCAL TIME ZONE", t->precision); break;
    case PM_DT_GEOMETRY:
    case PM_DT_GEOGRAPHY: {
      PM_TRY(buf_puts(out, t->root == PM_DT_GEOMETRY ? "GEOMETRY" : "GEOGRAPHY"));
      if (t->crs || t->alg) {
        PM_TRY(buf_puts(out, "("));
        const char *crs = t->crs ? t->crs : "OGC:CRS84";
        if (crs_needs_quote(crs)) {
          PM_TRY(buf_puts(out, "'"));
          for (const char *p = crs; *p; p++) {
            if (*p == '\'') PM_TRY(buf_puts(out, "'"));
            PM_TRY(pm_buf_push_u8(out, (uint8_t)*p));
          }
          PM_TRY(buf_puts(out, "'"));
        } else {
          PM_TRY(buf_puts(out, crs));
        }
        if (t->alg) {
          PM_TRY(buf_puts(out, ", "));
          PM_TRY(buf_puts(out, t->alg));
        }
        PM_TRY(buf_puts(out, ")"));
      }
      return 0;
    }
    default: snprintf(tmp, sizeof tmp, "%s", pm_dtype_root_name(t->root)); break;
  }
  return buf_puts(out, tmp);
}

static int to_string_rec(const pm_data_type *t, pm_buf *out, int depth) {
  if (depth > PM_DT_MAX_DEPTH) return PAIMON_ERR_INVALID_ARGUMENT;
  switch (t->root) {
    case PM_DT_ARRAY:
    case PM_DT_MULTISET:
      PM_TRY(buf_puts(out, t->root == PM_DT_ARRAY ? "ARRAY<" : "MULTISET<"));
      PM_TRY(to_string_rec(t->element, out, depth + 1));
      PM_TRY(buf_puts(out, ">"));
      break;
    case PM_DT_VECTOR: {
      char tmp[32];
      PM_TRY(buf_puts(out, "VECTOR<"));
      PM_TRY(to_string_rec(t->element, out, depth + 1));
      snprintf(tmp, sizeof tmp, ", %d>", t->length);
      PM_TRY(buf_puts(out, tmp));
      break;
    }
    case PM_DT_MAP:
      PM_TRY(buf_puts(out, "MAP<"));
      PM_TRY(to_string_rec(t->key, out, depth + 1));
      PM_TRY(buf_puts(out, ", "));
      PM_TRY(to_string_rec(t->value, out, depth + 1));
      PM_TRY(buf_puts(out, ">"));
      break;
    case PM_DT_ROW:
      PM_TRY(buf_puts(out, "ROW<"));
      for (size_t i = 0; i < t->n_fields; i++) {
        if (i) PM_TRY(buf_puts(out, ", "));
        PM_TRY(buf_puts(out, "`"));
        PM_TRY(buf_puts(out, t->fields[i].name ? t->fields[i].name : ""));
        PM_TRY(buf_puts(out, "` "));
        PM_TRY(to_string_rec(t->fields[i].type, out, depth + 1));
        if (t->fields[i].description) {
          PM_TRY(buf_puts(out, " '"));
          PM_TRY(buf_puts(out, t->fields[i].description));
          PM_TRY(buf_puts(out, "'"));
        }
      }
      PM_TRY(buf_puts(out, ">"));
      break;
    default: PM_TRY(print_atomic(t, out)); break;
  }
  if (!t->nullable) PM_TRY(buf_puts(out, " NOT NULL"));
  return 0;
}

int pm_dtype_to_string(const pm_data_type *t, pm_buf *out, pm_error *err) {
  int rc = to_string_rec(t, out, 0);
  if (rc == PAIMON_ERR_NOMEM) return PM_NOMEM(err);
  if (rc) return pm_errorf(err, rc, "type nested too deeply");
  return 0;
}

char *pm_dtype_to_cstring(const pm_data_type *t) {
  pm_buf b;
  pm_buf_init(&b);
  if (to_string_rec(t, &b, 0) || pm_buf_push_u8(&b, 0)) {
    pm_buf_free(&b);
    return NULL;
  }
  char *s = strdup((const char *)b.data);
  pm_buf_free(&b);
  return s;
}

/* ------------------------------------------------------------------ */
/* JSON                                                               */

static int starts_with(const char *s, const char *p) { return strncmp(s, p, strlen(p)) == 0; }

int pm_data_field_from_json(const json_t *j, const char *where, int depth, pm_data_field *f, pm_error *err);

static int dtype_from_json_depth(const json_t *j, const char *where, int depth, pm_data_type **out, pm_error *err) {
  if (depth > PM_DT_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: type nested too deeply", where);
  if (json_is_string(j)) {
    int rc = pm_dtype_parse(json_string_value(j), out, err);
    if (rc) pm_error_prefix(err, "%s: ", where);
    return rc;
  }
  if (!json_is_object(j)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: type must be a string or an object", where);
  const json_t *jt = json_object_get(j, "type");
  if (!json_is_string(jt)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: type object without a \"type\" string", where);
  const char *ts = json_string_value(jt);
  pm_dtype_root root;
  if (starts_with(ts, "ARRAY")) root = PM_DT_ARRAY;
  else if (starts_with(ts, "VECTOR")) root = PM_DT_VECTOR;
  else if (starts_with(ts, "MULTISET")) root = PM_DT_MULTISET;
  else if (starts_with(ts, "MAP")) root = PM_DT_MAP;
  else if (starts_with(ts, "ROW")) root = PM_DT_ROW;
  else return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: unknown nested type '%s'", where, ts);
  pm_data_type *t = NULL;
  PM_TRY(pm_dtype_new(root, strstr(ts, "NOT NULL") == NULL, &t, err));
  int rc = 0;
  if (root == PM_DT_ARRAY || root == PM_DT_MULTISET || root == PM_DT_VECTOR) {
    const json_t *e = json_object_get(j, "element");
    if (!e) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: %s without \"element\"", where, ts);
    else rc = dtype_from_json_depth(e, where, depth + 1, &t->element, err);
    if (!rc && root == PM_DT_VECTOR) {
      const json_t *l = json_object_get(j, "length");
      if (!json_is_integer(l) || json_integer_value(l) < 1 || json_integer_value(l) > PM_DT_MAX_LENGTH)
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: VECTOR without a valid \"length\"", where);
      else t->length = (int32_t)json_integer_value(l);
    }
  } else if (root == PM_DT_MAP) {
    const json_t *k = json_object_get(j, "key"), *v = json_object_get(j, "value");
    if (!k || !v) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: MAP without \"key\"/\"value\"", where);
    if (!rc) rc = dtype_from_json_depth(k, where, depth + 1, &t->key, err);
    if (!rc) rc = dtype_from_json_depth(v, where, depth + 1, &t->value, err);
  } else {
    const json_t *fs = json_object_get(j, "fields");
    if (!json_is_array(fs)) {
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: ROW without a \"fields\" array", where);
    } else {
      size_t n = json_array_size(fs);
      t->fields = n ? calloc(n, sizeof(pm_data_field)) : NULL;
      if (n && !t->fields) rc = PM_NOMEM(err);
      for (size_t i = 0; !rc && i < n; i++) {
        rc = pm_data_field_from_json(json_array_get(fs, i), where, depth + 1, &t->fields[i], err);
        if (!rc) t->n_fields = i + 1;
      }
    }
  }
  if (rc) {
    pm_dtype_free(t);
    return rc;
  }
  *out = t;
  return 0;
}

int pm_dtype_from_json(const json_t *j, const char *where, pm_data_type **out, pm_error *err) {
  return dtype_from_json_depth(j, where, 0, out, err);
}

int pm_data_field_from_json(const json_t *j, const char *where, int depth, pm_data_field *f, pm_error *err) {
  memset(f, 0, sizeof(*f));
  if (!json_is_object(j)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: field is not an object", where);
  const json_t *id = json_object_get(j, "id"), *name = json_object_get(j, "name"), *type = json_object_get(j, "type");
  if (!json_is_integer(id) || json_integer_value(id) < INT32_MIN || json_integer_value(id) > INT32_MAX)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: field without an integer \"id\"", where);
  if (!json_is_string(name)) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: field without a \"name\" string", where);
  if (!type) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: field '%s' without \"type\"", where, json_string_value(name));
  f->id = (int32_t)json_integer_value(id);
  f->name = strdup(json_string_value(name));
  if (!f->name) return PM_NOMEM(err);
  char sub[512];
  snprintf(sub, sizeof sub, "%s: field '%s'", where, f->name);
  int rc = dtype_from_json_depth(type, sub, depth, &f->type, err);
  const json_t *d = json_object_get(j, "description"), *dv = json_object_get(j, "defaultValue");
  if (!rc && json_is_string(d) && !(f->description = strdup(json_string_value(d)))) rc = PM_NOMEM(err);
  if (!rc && json_is_string(dv) && !(f->default_value = strdup(json_string_value(dv)))) rc = PM_NOMEM(err);
  if (rc) pm_data_field_clear(f);
  return rc;
}

static json_t *nested_type_string(const pm_data_type *t, const char *name) {
  char tmp[32];
  snprintf(tmp, sizeof tmp, "%s%s", name, t->nullable ? "" : " NOT NULL");
  return json_string(tmp);
}

json_t *pm_dtype_to_json(const pm_data_type *t) {
  json_t *o = NULL;
  switch (t->root) {
    case PM_DT_ARRAY:
    case PM_DT_MULTISET:
    case PM_DT_VECTOR:
      o = json_object();
      if (!o) return NULL;
      if (json_object_set_new(o, "type", nested_type_string(t, pm_dtype_root_name(t->root))) ||
          json_object_set_new(o, "element", pm_dtype_to_json(t->element)) ||
          (t->root == PM_DT_VECTOR && json_object_set_new(o, "length", json_integer(t->length)))) {
        json_decref(o);
        return NULL;
      }
      return o;
    case PM_DT_MAP:
      o = json_object();
      if (!o) return NULL;
      if (json_object_set_new(o, "type", nested_type_string(t, "MAP")) ||
          json_object_set_new(o, "key", pm_dtype_to_json(t->key)) ||
          json_object_set_new(o, "value", pm_dtype_to_json(t->value))) {
        json_decref(o);
        return NULL;
      }
      return o;
    case PM_DT_ROW: {
      o = json_object();
      json_t *arr = json_array();
      if (!o || !arr || json_object_set_new(o, "type", nested_type_string(t, "ROW"))) {
        json_decref(o);
        json_decref(arr);
        return NULL;
      }
      for (size_t i = 0; i < t->n_fields; i++) {
        if (json_array_append_new(arr, pm_data_field_to_json(&t->fields[i]))) {
          json_decref(o);
          json_decref(arr);
          return NULL;
        }
      }
      if (json_object_set_new(o, "fields", arr)) {
        json_decref(o);
        return NULL;
      }
      return o;
    }
    default: {
      char *s = pm_dtype_to_cstring(t);
      if (!s) return NULL;
      json_t *j = json_string(s);
      free(s);
      return j;
    }
  }
}

json_t *pm_data_field_to_json(const pm_data_field *f) {
  json_t *o = json_object();
  if (!o) return NULL;
  if (json_object_set_new(o, "id", json_integer(f->id)) || json_object_set_new(o, "name", json_string(f->name ? f->name : "")) ||
      json_object_set_new(o, "type", pm_dtype_to_json(f->type)) ||
      (f->description && json_object_set_new(o, "description", json_string(f->description))) ||
      (f->default_value && json_object_set_new(o, "defaultValue", json_string(f->default_value)))) {
    json_decref(o);
    return NULL;
  }
  return o;
}

/* ------------------------------------------------------------------ */
/* Arrow                                                              */

const char *pm_dtype_arrow_format(const pm_data_type *t, char *buf, size_t cap) {
  const char *f;
  switch (t->root) {
    case PM_DT_BOOLEAN: f = "b"; break;
    case PM_DT_TINYINT: f = "c"; break;
    case PM_DT_SMALLINT: f = "s"; break;
    case PM_DT_INT: f = "i"; break;
    case PM_DT_BIGINT: f = "l"; break;
    case PM_DT_FLOAT: f = "f"; break;
    case PM_DT_DOUBLE: f = "g"; break;
    case PM_DT_DECIMAL: snprintf(buf, cap, "d:%d,%d", t->precision, t->scale); return buf;
    case PM_DT_CHAR: case PM_DT_VARCHAR: f = "u"; break;
    case PM_DT_BINARY: case PM_DT_VARBINARY: case PM_DT_BLOB: case PM_DT_GEOMETRY: case PM_DT_GEOGRAPHY: f = "z"; break;
    case PM_DT_DATE: f = "tdD"; break;
    case PM_DT_TIME: f = "ttm"; break;
    case PM_DT_TIMESTAMP: f = t->precision <= 3 ? "tsm:" : t->precision <= 6 ? "tsu:" : "tsn:"; break;
    case PM_DT_TIMESTAMP_LTZ: f = t->precision <= 3 ? "tsm:UTC" : t->precision <= 6 ? "tsu:UTC" : "tsn:UTC"; break;
    case PM_DT_ARRAY: f = "+l"; break;
    case PM_DT_VECTOR: snprintf(buf, cap, "+w:%d", t->length); return buf;
    case PM_DT_MAP: case PM_DT_MULTISET: f = "+m"; break;
    case PM_DT_ROW: case PM_DT_VARIANT: f = "+s"; break;
    default: f = "n"; break;
  }
  snprintf(buf, cap, "%s", f);
  return buf;
}

static int type_to_arrow(const pm_data_type *t, const char *name, int32_t field_id, int has_id, int depth,
                         struct ArrowSchema *out, pm_error *err) {
  if (depth > PM_DT_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "type nested too deeply");
  char fmt[32];
  pm_dtype_arrow_format(t, fmt, sizeof fmt);
  int64_t nchildren = 0;
  switch (t->root) {
    case PM_DT_ARRAY: case PM_DT_VECTOR: case PM_DT_MAP: case PM_DT_MULTISET: nchildren = 1; break;
    case PM_DT_ROW: nchildren = (int64_t)t->n_fields; break;
    case PM_DT_VARIANT: nchildren = 2; break;
    default: break;
  }
  int64_t flags = t->nullable ? ARROW_FLAG_NULLABLE : 0;
  if (t->root == PM_DT_MAP) flags |= 0; /* keys are not sorted */
  PM_TRY(pm_schema_init(out, fmt, name, flags, nchildren, err));
  int rc = 0;
  if (has_id) {
    char idbuf[16];
    snprintf(idbuf, sizeof idbuf, "%d", field_id);
    const char *k[1] = {"PARQUET:field_id"};
    const char *v[1] = {idbuf};
    rc = pm_schema_set_metadata(out, 1, k, v, err);
  }
  if (!rc) {
    switch (t->root) {
      case PM_DT_ARRAY:
      case PM_DT_VECTOR:
        rc = type_to_arrow(t->element, "element", 0, 0, depth + 1, out->children[0], err);
        break;
      case PM_DT_MAP:
      case PM_DT_MULTISET: {
        struct ArrowSchema *entries = out->children[0];
        rc = pm_schema_init(entries, "+s", "key_value", 0, 2, err);
        if (!rc) {
          pm_data_type key_copy = t->root == PM_DT_MAP ? *t->key : *t->element;
          key_copy.nullable = 0; /* Arrow maps require non-null keys */
          rc = type_to_arrow(&key_copy, "key", 0, 0, depth + 1, entries->children[0], err);
        }
        if (!rc) {
          if (t->root == PM_DT_MAP) {
            rc = type_to_arrow(t->value, "value", 0, 0, depth + 1, entries->children[1], err);
          } else {
            pm_data_type cnt = {.root = PM_DT_INT, .nullable = 0};
            rc = type_to_arrow(&cnt, "value", 0, 0, depth + 1, entries->children[1], err);
          }
        }
        break;
      }
      case PM_DT_ROW:
        for (size_t i = 0; !rc && i < t->n_fields; i++)
          rc = type_to_arrow(t->fields[i].type, t->fields[i].name, t->fields[i].id, 1, depth + 1, out->children[i],
                             err);
        break;
      case PM_DT_VARIANT: {
        pm_data_type b = {.root = PM_DT_VARBINARY, .nullable = 0, .length = PM_DT_MAX_LENGTH};
        rc = type_to_arrow(&b, "value", 0, 0, depth + 1, out->children[0], err);
        if (!rc) rc = type_to_arrow(&b, "metadata", 0, 0, depth + 1, out->children[1], err);
        break;
      }
      default: break;
    }
  }
  if (rc) pm_schema_release(out);
  return rc;
}

int pm_dfield_to_arrow(const pm_data_field *f, struct ArrowSchema *out, pm_error *err) {
  return type_to_arrow(f->type, f->name, f->id, 1, 0, out, err);
}

int pm_dfields_to_arrow(const pm_data_field *fields, size_t n, struct ArrowSchema *out, pm_error *err) {
  PM_TRY(pm_schema_init(out, "+s", "", 0, (int64_t)n, err));
  for (size_t i = 0; i < n; i++) {
    int rc = pm_dfield_to_arrow(&fields[i], out->children[i], err);
    if (rc) {
      pm_schema_release(out);
      return rc;
    }
  }
  return 0;
}

/* ------------------------------------------------------------------ */
/* Avro writer schema (FORMAT.md 4.2)                                 */

#define AVRO_NS "org.apache.paimon.avro.generated"

static int aput(pm_buf *b, const char *s) { return pm_buf_append(b, s, strlen(s)); }

static int aput_str(pm_buf *b, const char *s) {
  PM_TRY(pm_buf_push_u8(b, '"'));
  for (const char *p = s; *p; p++) {
    if (*p == '"' || *p == '\\') PM_TRY(pm_buf_push_u8(b, '\\'));
    PM_TRY(pm_buf_push_u8(b, (uint8_t)*p));
  }
  return pm_buf_push_u8(b, '"');
}

static int avro_type(const pm_data_type *t, const char *row_name, int top, int depth, pm_buf *b, pm_error *err);

/* Record body for ROW fields (or the top level). row_name is the short record name. */
static int avro_record(const pm_data_field *fields, size_t n, const char *row_name, int top, int depth, pm_buf *b,
                       pm_error *err) {
  int rc = aput(b, "{\"type\":\"record\",\"name\":");
  if (!rc) rc = aput_str(b, row_name);
  if (!rc && top) rc = aput(b, ",\"namespace\":\"" AVRO_NS "\"");
  if (!rc) rc = aput(b, ",\"fields\":[");
  for (size_t i = 0; !rc && i < n; i++) {
    if (i) rc = aput(b, ",");
    if (!rc) rc = aput(b, "{\"name\":");
    if (!rc) rc = aput_str(b, fields[i].name ? fields[i].name : "");
    if (!rc) rc = aput(b, ",\"type\":");
    size_t nl = strlen(row_name) + strlen(fields[i].name ? fields[i].name : "") + 2;
    char *sub = malloc(nl);
    if (!sub) return PM_NOMEM(err);
    snprintf(sub, nl, "%s_%s", row_name, fields[i].name ? fields[i].name : "");
    if (!rc) rc = avro_type(fields[i].type, sub, 0, depth + 1, b, err);
    free(sub);
    if (!rc && fields[i].type->nullable) rc = aput(b, ",\"default\":null");
    if (!rc) rc = aput(b, "}");
  }
  if (!rc) rc = aput(b, "]}");
  return rc;
}

static int avro_type(const pm_data_type *t, const char *row_name, int top, int depth, pm_buf *b, pm_error *err) {
  if (depth > PM_DT_MAX_DEPTH) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "type nested too deeply");
  int rc = 0;
  if (t->nullable) rc = aput(b, "[\"null\",");
  char tmp[128];
  switch (t->root) {
    case PM_DT_BOOLEAN: rc = rc ? rc : aput(b, "\"boolean\""); break;
    case PM_DT_TINYINT: case PM_DT_SMALLINT: case PM_DT_INT: rc = rc ? rc : aput(b, "\"int\""); break;
    case PM_DT_BIGINT: rc = rc ? rc : aput(b, "\"long\""); break;
    case PM_DT_FLOAT: rc = rc ? rc : aput(b, "\"float\""); break;
    case PM_DT_DOUBLE: rc = rc ? rc : aput(b, "\"double\""); break;
    case PM_DT_CHAR: case PM_DT_VARCHAR: rc = rc ? rc : aput(b, "\"string\""); break;
    case PM_DT_BINARY: case PM_DT_VARBINARY: case PM_DT_BLOB: rc = rc ? rc : aput(b, "\"bytes\""); break;
    case PM_DT_DATE: rc = rc ? rc : aput(b, "{\"type\":\"int\",\"logicalType\":\"date\"}"); break;
    case PM_DT_TIME:
      if (t->precision > 3) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "Avro cannot store TIME(%d)", t->precision);
      rc = rc ? rc : aput(b, "{\"type\":\"int\",\"logicalType\":\"time-millis\"}");
      break;
    case PM_DT_TIMESTAMP:
    case PM_DT_TIMESTAMP_LTZ:
      if (t->precision > 6) return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "Avro cannot store TIMESTAMP(%d)", t->precision);
      snprintf(tmp, sizeof tmp, "{\"type\":\"long\",\"logicalType\":\"%s%s\"}", t->root == PM_DT_TIMESTAMP_LTZ ? "local-" : "",
               t->precision <= 3 ? "timestamp-millis" : "timestamp-micros");
      rc = rc ? rc : aput(b, tmp);
      break;
    case PM_DT_DECIMAL:
      snprintf(tmp, sizeof tmp, "{\"type\":\"bytes\",\"logicalType\":\"decimal\",\"precision\":%d,\"scale\":%d}", t->precision,
               t->scale);
      rc = rc ? rc : aput(b, tmp);
      break;
    case PM_DT_ROW:
      if (!rc) rc = avro_record(t->fields, t->n_fields, row_name, top, depth, b, err);
      break;
    case PM_DT_ARRAY:
    case PM_DT_VECTOR:
      if (!rc) rc = aput(b, "{\"type\":\"array\",\"items\":");
      if (!rc) rc = avro_type(t->element, row_name, 0, depth + 1, b, err);
      if (!rc) rc = aput(b, "}");
      break;
    case PM_DT_MAP:
    case PM_DT_MULTISET: {
      const pm_data_type *kt = t->root == PM_DT_MAP ? t->key : t->element;
      pm_data_type count = {.root = PM_DT_INT, .nullable = 1};
      const pm_data_type *vt = t->root == PM_DT_MAP ? t->value : &count;
      if (kt->root == PM_DT_VARCHAR || kt->root == PM_DT_CHAR) {
        if (!rc) rc = aput(b, "{\"type\":\"map\",\"values\":");
        if (!rc) rc = avro_type(vt, row_name, 0, depth + 1, b, err);
        if (!rc) rc = aput(b, "}");
      } else {
        /* non-string keys: array of {key, value} records named after the field */
        size_t nl = strlen(row_name) + 8;
        char *kn = malloc(nl), *vn = malloc(nl);
        if (!kn || !vn) {
          free(kn);
          free(vn);
          return PM_NOMEM(err);
        }
        snprintf(kn, nl, "%s_key", row_name);
        snprintf(vn, nl, "%s_value", row_name);
        if (!rc) rc = aput(b, "{\"type\":\"array\",\"items\":{\"type\":\"record\",\"name\":");
        if (!rc) rc = aput_str(b, row_name);
        if (!rc) rc = aput(b, ",\"fields\":[{\"name\":\"key\",\"type\":");
        if (!rc) rc = avro_type(kt, kn, 0, depth + 1, b, err);
        if (!rc) rc = aput(b, "},{\"name\":\"value\",\"type\":");
        if (!rc) rc = avro_type(vt, vn, 0, depth + 1, b, err);
        if (!rc && vt->nullable) rc = aput(b, ",\"default\":null");
        if (!rc) rc = aput(b, "}]},\"logicalType\":\"map\"}");
        free(kn);
        free(vn);
      }
      break;
    }
    default:
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "no Avro mapping for %s", pm_dtype_root_name(t->root));
  }
  if (!rc && t->nullable) rc = aput(b, "]");
  if (rc == PAIMON_ERR_NOMEM) return PM_NOMEM(err);
  return rc;
}

int pm_dtype_avro_schema_json(const pm_data_field *fields, size_t n, pm_buf *out, pm_error *err) {
  return avro_record(fields, n, "record", 1, 0, out, err);
}

/* ------------------------------------------------------------------ */
/* Field ids (FORMAT.md 2.4)                                          */

static void assign_type_ids(pm_data_type *t, int32_t *next, int depth);

/* Java's Schema.Builder.column numbers a top-level column, then its type through
 * ReassignFieldId, whose ROW visitor evaluates a field's type before RowType.Builder.field
 * takes the field's id: inside a ROW a field's nested ROW fields come before the field. */
static void assign_fields(pm_data_field *fields, size_t n, int32_t *next, int depth) {
  for (size_t i = 0; i < n; i++) {
    if (depth == 0) fields[i].id = (*next)++;
    if (fields[i].type) assign_type_ids(fields[i].type, next, depth + 1);
    if (depth > 0) fields[i].id = (*next)++;
  }
}

static void assign_type_ids(pm_data_type *t, int32_t *next, int depth) {
  if (!t || depth > PM_DT_MAX_DEPTH) return;
  switch (t->root) {
    case PM_DT_ROW: assign_fields(t->fields, t->n_fields, next, depth); break;
    case PM_DT_ARRAY: case PM_DT_MULTISET: case PM_DT_VECTOR: assign_type_ids(t->element, next, depth + 1); break;
    case PM_DT_MAP:
      assign_type_ids(t->key, next, depth + 1);
      assign_type_ids(t->value, next, depth + 1);
      break;
    default: break;
  }
}

void pm_dfields_assign_ids(pm_data_field *fields, size_t n, int32_t first_id, int32_t *highest) {
  int32_t next = first_id;
  assign_fields(fields, n, &next, 0);
  if (highest) *highest = next - 1;
}
