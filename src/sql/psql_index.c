/*
 * xBestIndex and the pushdown of constraints into the read builder (see psql_index.h).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "sql/psql_index.h"

/* Columns whose SQLite comparison agrees with Paimon's for suitable values. */
static int pushable_type(const psql_type *t) {
  switch (t->kind) {
    case 'b':
    case 'i':
    case 'f':
    case 'g':
    case 's':
    case 'S':
    case 'D':
    case 'T': return 1;
    case 'u': return t->bytes < 8;
    default: return 0;
  }
}

static const char *op_name(int op) {
  switch (op) {
    case SQLITE_INDEX_CONSTRAINT_EQ: return "eq";
    case SQLITE_INDEX_CONSTRAINT_GT: return "gt";
    case SQLITE_INDEX_CONSTRAINT_LE: return "le";
    case SQLITE_INDEX_CONSTRAINT_LT: return "lt";
    case SQLITE_INDEX_CONSTRAINT_GE: return "ge";
    case SQLITE_INDEX_CONSTRAINT_NE: return "ne";
    case SQLITE_INDEX_CONSTRAINT_ISNULL: return "null";
    case SQLITE_INDEX_CONSTRAINT_ISNOTNULL: return "notnull";
    case SQLITE_INDEX_CONSTRAINT_LIKE: return "prefix";
    case SQLITE_INDEX_CONSTRAINT_GLOB: return "glob";
    default: return NULL;
  }
}

/* The prefix of a LIKE 'abc%' (no other wildcard, no ASCII letter: SQLite's LIKE folds
 * ASCII case) or GLOB 'abc*' (no other wildcard) pattern; NULL otherwise. sqlite3_malloc'd. */
static char *pattern_prefix(const char *pat, int glob) {
  if (!pat) return NULL;
  size_t n = strlen(pat);
  if (n < 2 || pat[n - 1] != (glob ? '*' : '%')) return NULL;
  for (size_t i = 0; i + 1 < n; i++) {
    char c = pat[i];
    if (glob ? (c == '*' || c == '?' || c == '[') : (c == '%' || c == '_')) return NULL;
    if (!glob && ((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z'))) return NULL;
  }
  return sqlite3_mprintf("%.*s", (int)(n - 1), pat);
}

int psql_best_index(sqlite3_vtab *v, sqlite3_index_info *info) {
  psql_vtab *vt = (psql_vtab *)v;
  psql_buf b = {0};
  /* projection */
  psql_buf_puts(&b, "cols:");
  int first = 1;
  for (int i = 0; i < vt->n_cols; i++) {
    int used = i < 63 ? (info->colUsed >> i) & 1 : (int)((info->colUsed >> 63) & 1);
    if (!used) continue;
    psql_buf_printf(&b, first ? "%d" : ",%d", i);
    first = 0;
  }
  double rows = 1e6;
  int argv_index = 0;
  /* read options (the hidden paimon_optionN columns): required as EQ constraints, taken first
   * (argv 1..m in column order), each an "opt:N" token */
  for (int j = 0; j < PSQL_N_OPTIONS; j++) {
    int found = -1, unusable = 0;
    for (int i = 0; i < info->nConstraint && found < 0; i++) {
      const struct sqlite3_index_constraint *c = &info->aConstraint[i];
      if (c->iColumn != vt->n_cols + j || c->op != SQLITE_INDEX_CONSTRAINT_EQ) continue;
      if (c->usable) found = i;
      else unusable = 1;
    }
    if (found < 0 && unusable) {
      psql_buf_free(&b);
      return SQLITE_CONSTRAINT; /* a plan where the option's value is known */
    }
    if (found < 0) continue;
    info->aConstraintUsage[found].argvIndex = ++argv_index;
    info->aConstraintUsage[found].omit = 1;
    psql_buf_printf(&b, ";opt:%d", j + 1);
  }
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (!c->usable) continue;
    int op = c->op;
    if (op == SQLITE_INDEX_CONSTRAINT_LIMIT || op == SQLITE_INDEX_CONSTRAINT_OFFSET) {
      info->aConstraintUsage[i].argvIndex = ++argv_index;
      psql_buf_puts(&b, op == SQLITE_INDEX_CONSTRAINT_LIMIT ? ";limit" : ";offset");
      continue;
    }
    if (c->iColumn < 0 || c->iColumn >= vt->n_cols) continue;
    const psql_type *t = &vt->col_types[c->iColumn];
    const char *name = op_name(op);
    if (!name || !pushable_type(t)) continue;
    if ((t->kind == 's' || t->kind == 'S' || t->kind == 'D' || t->kind == 'T') &&
        op != SQLITE_INDEX_CONSTRAINT_ISNULL && op != SQLITE_INDEX_CONSTRAINT_ISNOTNULL) {
      const char *coll = sqlite3_vtab_collation(info, i);
      if (coll && sqlite3_stricmp(coll, "BINARY")) continue;
    }
    if (op == SQLITE_INDEX_CONSTRAINT_LIKE || op == SQLITE_INDEX_CONSTRAINT_GLOB) {
      if (t->kind != 's' && t->kind != 'S') continue;
      sqlite3_value *rhs = NULL;
      if (sqlite3_vtab_rhs_value(info, i, &rhs) != SQLITE_OK || !rhs) continue;
      char *pfx = pattern_prefix((const char *)sqlite3_value_text(rhs), op == SQLITE_INDEX_CONSTRAINT_GLOB);
      if (!pfx) continue;
      sqlite3_free(pfx);
      name = "prefix";
    }
    if (op == SQLITE_INDEX_CONSTRAINT_EQ && sqlite3_vtab_in(info, i, -1)) {
      sqlite3_vtab_in(info, i, 1);
      name = "in";
    }
    psql_buf_printf(&b, ";%s:%d:%s", name, c->iColumn, vt->col_names[c->iColumn]);
    if (op != SQLITE_INDEX_CONSTRAINT_ISNULL && op != SQLITE_INDEX_CONSTRAINT_ISNOTNULL)
      info->aConstraintUsage[i].argvIndex = ++argv_index;
    rows *= op == SQLITE_INDEX_CONSTRAINT_EQ ? 0.05 : op == SQLITE_INDEX_CONSTRAINT_NE ? 0.9 : 0.3;
  }
  if (b.oom) {
    psql_buf_free(&b);
    return SQLITE_NOMEM;
  }
  if (rows < 1) rows = 1;
  info->estimatedRows = (sqlite3_int64)rows;
  info->estimatedCost = rows * 10 + 100;
  info->idxStr = sqlite3_mprintf("%s", b.data);
  info->needToFreeIdxStr = 1;
  psql_buf_free(&b);
  return info->idxStr ? SQLITE_OK : SQLITE_NOMEM;
}

/* ------------------------------------------------------------------- xFilter side */

/* Text of the exact shape the column prints (so that text and value order agree). */
static int temporal_text_ok(const psql_type *t, const char *s, size_t n) {
  static const char DATE[] = "dddd-dd-dd";
  for (size_t i = 0; i < 10; i++) {
    if (i >= n) return 0;
    if (DATE[i] == 'd' ? (s[i] < '0' || s[i] > '9') : s[i] != '-') return 0;
  }
  if (t->kind == 'D') return n == 10;
  int digits = t->digits >= 0 ? t->digits : t->unit * 3;
  size_t want = 19 + (digits > 0 ? (size_t)digits + 1 : 0) + (t->zoned ? 1 : 0);
  if (n != want || s[10] != 'T' || s[13] != ':' || s[16] != ':') return 0;
  for (size_t i = 11; i < 19; i++)
    if (i != 13 && i != 16 && (s[i] < '0' || s[i] > '9')) return 0;
  if (digits > 0) {
    if (s[19] != '.') return 0;
    for (size_t i = 20; i < 20 + (size_t)digits; i++)
      if (s[i] < '0' || s[i] > '9') return 0;
  }
  if (t->zoned && s[n - 1] != 'Z') return 0;
  return 1;
}

/* A literal for value v of column type t; 0 when v is not pushable (then the constraint stays
 * with SQLite only). buf holds converted text. */
static int to_literal(const psql_type *t, sqlite3_value *v, paimon_literal *out, char *buf, size_t cap) {
  int vt = sqlite3_value_type(v);
  switch (t->kind) {
    case 'b':
      if (vt != SQLITE_INTEGER) return 0;
      *out = paimon_literal_bool(sqlite3_value_int64(v) != 0);
      return sqlite3_value_int64(v) == 0 || sqlite3_value_int64(v) == 1;
    case 'i':
    case 'u':
      if (vt != SQLITE_INTEGER) return 0;
      *out = paimon_literal_int64(sqlite3_value_int64(v));
      return 1;
    case 'f':
    case 'g':
      if (vt == SQLITE_INTEGER) {
        *out = paimon_literal_double((double)sqlite3_value_int64(v));
        return 1;
      }
      if (vt != SQLITE_FLOAT) return 0;
      *out = paimon_literal_double(sqlite3_value_double(v));
      return 1;
    case 's':
    case 'S':
      if (vt != SQLITE_TEXT) return 0;
      *out = paimon_literal_string((const char *)sqlite3_value_text(v));
      out->len = (size_t)sqlite3_value_bytes(v);
      return memchr(out->s, 0, out->len) == NULL;
    case 'D':
    case 'T': {
      if (vt != SQLITE_TEXT) return 0;
      const char *s = (const char *)sqlite3_value_text(v);
      size_t n = (size_t)sqlite3_value_bytes(v);
      if (!temporal_text_ok(t, s, n) || n + 1 > cap) return 0;
      memcpy(buf, s, n + 1);
      if (t->kind == 'T' && !t->zoned) buf[10] = ' ';
      *out = paimon_literal_string(buf);
      return 1;
    }
    default: return 0;
  }
}

static int parse_int(const char **p) {
  int v = 0;
  while (**p >= '0' && **p <= '9') v = v * 10 + (*(*p)++ - '0');
  return v;
}

int psql_index_apply(psql_vtab *vt, paimon_read_builder *rb, const char *idx, int argc, sqlite3_value **argv,
                     psql_pushed *out) {
  memset(out, 0, sizeof *out);
  out->limit = -1;
  out->cols = malloc(sizeof *out->cols * (size_t)(vt->n_cols + 1));
  if (!out->cols) return SQLITE_NOMEM;
  int no_push = vt->conn->no_pushdown;
  paimon_predicate **preds = calloc((size_t)argc + 64, sizeof *preds);
  size_t np = 0, cap_p = (size_t)argc + 64;
  if (!preds) return SQLITE_NOMEM;
  int64_t limit = -1, offset = 0;
  int k = 0, rc = SQLITE_OK;
  const char *p = idx ? idx : "";
  paimon_error e;
  while (*p && !rc) {
    const char *end = strchr(p, ';');
    size_t len = end ? (size_t)(end - p) : strlen(p);
    if (!strncmp(p, "cols:", 5)) {
      const char *q = p + 5;
      while (q < p + len) {
        int c = parse_int(&q);
        if (c < vt->n_cols) out->cols[out->n_cols++] = c;
        if (*q == ',') q++;
        else break;
      }
    } else if (!strncmp(p, "opt:", 4)) {
      /* a read option: consumed by the caller (psql_filter) before argv */
    } else if (!strncmp(p, "limit", 5) && len == 5) {
      if (k < argc) limit = sqlite3_value_int64(argv[k++]);
    } else if (!strncmp(p, "offset", 6) && len == 6) {
      if (k < argc) offset = sqlite3_value_int64(argv[k++]);
    } else {
      const char *colon = memchr(p, ':', len);
      const char *q = colon ? colon + 1 : p + len;
      int col = parse_int(&q);
      size_t oplen = colon ? (size_t)(colon - p) : len;
      int has_arg = !(oplen == 4 && !strncmp(p, "null", 4)) && !(oplen == 7 && !strncmp(p, "notnull", 7));
      sqlite3_value *arg = has_arg && k < argc ? argv[k++] : NULL;
      if (col >= vt->n_cols || no_push || np + 1 >= cap_p) goto next;
      const psql_type *t = &vt->col_types[col];
      const char *name = vt->col_names[col];
      paimon_predicate *pr = NULL;
      paimon_status st = PAIMON_OK;
      paimon_literal lit;
      char buf[64];
#define OP(s) (oplen == sizeof(s) - 1 && !strncmp(p, s, oplen))
      if (OP("null")) st = paimon_predicate_is_null(rb, name, &pr, &e);
      else if (OP("notnull")) st = paimon_predicate_is_not_null(rb, name, &pr, &e);
      else if (!arg) goto next;
      else if (OP("prefix") || OP("glob")) {
        char *pfx = pattern_prefix((const char *)sqlite3_value_text(arg), 0);
        if (!pfx) pfx = pattern_prefix((const char *)sqlite3_value_text(arg), 1);
        if (!pfx) goto next;
        st = paimon_predicate_starts_with(rb, name, pfx, &pr, &e);
        sqlite3_free(pfx);
      } else if (OP("in")) {
        size_t nv = 0, capv = 16;
        paimon_literal *vals = malloc(capv * sizeof *vals);
        char **owned = calloc(capv, sizeof *owned);
        int ok = vals && owned;
        sqlite3_value *x = NULL;
        for (int r = sqlite3_vtab_in_first(arg, &x); ok && r == SQLITE_OK && x; r = sqlite3_vtab_in_next(arg, &x)) {
          if (sqlite3_value_type(x) == SQLITE_NULL) continue; /* matches nothing */
          if (nv == capv) {
            paimon_literal *nvals = realloc(vals, 2 * capv * sizeof *vals);
            if (nvals) vals = nvals;
            char **no = nvals ? realloc(owned, 2 * capv * sizeof *owned) : NULL;
            if (no) owned = no;
            if (!nvals || !no) {
              ok = 0;
              break;
            }
            capv *= 2;
          }
          owned[nv] = NULL; /* (the slots realloc added are not zeroed) */
          if (!to_literal(t, x, &vals[nv], buf, sizeof buf)) {
            ok = 0;
            break;
          }
          if (vals[nv].kind == PAIMON_LITERAL_STRING) {
            /* a value of the IN list lives only until the next one is fetched */
            size_t l = vals[nv].len;
            owned[nv] = malloc(l + 1);
            if (!owned[nv]) {
              ok = 0;
              break;
            }
            memcpy(owned[nv], vals[nv].s, l);
            owned[nv][l] = 0;
            vals[nv].s = owned[nv];
          }
          nv++;
        }
        if (ok && nv == 0) out->empty = 1;
        else if (ok) st = paimon_predicate_in(rb, name, vals, nv, &pr, &e);
        for (size_t j = 0; owned && j < nv; j++) free(owned[j]);
        free(vals);
        free(owned);
        if (!ok || out->empty) goto next;
      } else {
        if (sqlite3_value_type(arg) == SQLITE_NULL) {
          out->empty = 1; /* a comparison with NULL is never true */
          goto next;
        }
        if (!to_literal(t, arg, &lit, buf, sizeof buf)) goto next;
        if (OP("eq")) st = paimon_predicate_equal(rb, name, lit, &pr, &e);
        else if (OP("ne")) st = paimon_predicate_not_equal(rb, name, lit, &pr, &e);
        else if (OP("lt")) st = paimon_predicate_less_than(rb, name, lit, &pr, &e);
        else if (OP("le")) st = paimon_predicate_less_or_equal(rb, name, lit, &pr, &e);
        else if (OP("gt")) st = paimon_predicate_greater_than(rb, name, lit, &pr, &e);
        else if (OP("ge")) st = paimon_predicate_greater_or_equal(rb, name, lit, &pr, &e);
      }
#undef OP
      /* a literal the table's type cannot hold: leave the constraint to SQLite */
      if (st == PAIMON_OK && pr) preds[np++] = pr;
    }
  next:
    p += len;
    if (*p == ';') p++;
  }
  if (out->n_cols == 0 && vt->n_cols > 0) out->cols[out->n_cols++] = 0; /* count(*): read one column */
  if (!no_push && limit >= 0) out->limit = limit + (offset > 0 ? offset : 0);
  if (!no_push && out->limit >= 0) paimon_read_builder_with_limit(rb, out->limit);
  if (np > 0) {
    paimon_predicate *all = NULL;
    paimon_status st = np == 1 ? (all = preds[0], PAIMON_OK) : paimon_predicate_and(preds, np, &all, &e);
    if (!st) st = paimon_read_builder_with_filter(rb, all, &e);
    if (st) rc = psql_vtab_error(vt, "paimon: pushing the filter of %s: %s", vt->ident, e.message);
  }
  free(preds);
  if (rc) {
    free(out->cols);
    out->cols = NULL;
  }
  return rc;
}
