/* Java's DataTypeCasts tables and CastExecutors rule resolution (see type_cast.h). */
#include "data/type_cast.h"

#include <stdint.h>

/* DataTypeFamily, in Java's declaration order (the order EnumSet iterates). */
enum {
  F_PREDEFINED = 1u << 0,
  F_CONSTRUCTED = 1u << 1,
  F_CHARACTER_STRING = 1u << 2,
  F_BINARY_STRING = 1u << 3,
  F_NUMERIC = 1u << 4,
  F_INTEGER_NUMERIC = 1u << 5,
  F_EXACT_NUMERIC = 1u << 6,
  F_APPROXIMATE_NUMERIC = 1u << 7,
  F_DATETIME = 1u << 8,
  F_TIME = 1u << 9,
  F_TIMESTAMP = 1u << 10,
  F_COLLECTION = 1u << 11,
  F_EXTENSION = 1u << 12,
  F_COUNT = 13
};

#define R(x) (1u << (x))
#define N_ROOTS (PM_DT_VECTOR + 1)

static uint32_t families(pm_dtype_root r) {
  switch (r) {
    case PM_DT_CHAR:
    case PM_DT_VARCHAR: return F_PREDEFINED | F_CHARACTER_STRING;
    case PM_DT_BINARY:
    case PM_DT_VARBINARY: return F_PREDEFINED | F_BINARY_STRING;
    case PM_DT_DECIMAL: return F_PREDEFINED | F_NUMERIC | F_EXACT_NUMERIC;
    case PM_DT_TINYINT:
    case PM_DT_SMALLINT:
    case PM_DT_INT:
    case PM_DT_BIGINT: return F_PREDEFINED | F_NUMERIC | F_INTEGER_NUMERIC | F_EXACT_NUMERIC;
    case PM_DT_FLOAT:
    case PM_DT_DOUBLE: return F_PREDEFINED | F_NUMERIC | F_APPROXIMATE_NUMERIC;
    case PM_DT_DATE: return F_PREDEFINED | F_DATETIME;
    case PM_DT_TIME: return F_PREDEFINED | F_DATETIME | F_TIME;
    case PM_DT_TIMESTAMP: return F_PREDEFINED | F_DATETIME | F_TIMESTAMP;
    case PM_DT_TIMESTAMP_LTZ: return F_PREDEFINED | F_DATETIME | F_TIMESTAMP | F_EXTENSION;
    case PM_DT_ARRAY:
    case PM_DT_VECTOR:
    case PM_DT_MULTISET: return F_CONSTRUCTED | F_COLLECTION;
    case PM_DT_MAP: return F_CONSTRUCTED | F_EXTENSION;
    case PM_DT_ROW: return F_CONSTRUCTED;
    default: return F_PREDEFINED; /* BOOLEAN, VARIANT, BLOB, GEOMETRY, GEOGRAPHY */
  }
}

/* Roots of the given families. */
static uint32_t fam(uint32_t f) {
  uint32_t m = 0;
  for (int r = 0; r < N_ROOTS; r++)
    if (families((pm_dtype_root)r) & f) m |= R(r);
  return m;
}

#define TS_BOTH (R(PM_DT_TIMESTAMP) | R(PM_DT_TIMESTAMP_LTZ))
#define INTS (R(PM_DT_TINYINT) | R(PM_DT_SMALLINT) | R(PM_DT_INT) | R(PM_DT_BIGINT))

/* DataTypeCasts: implicit / explicit source roots of a target root. */
static void cast_rules(pm_dtype_root t, uint32_t *implicit, uint32_t *explicit_) {
  uint32_t num_explicit = fam(F_NUMERIC | F_CHARACTER_STRING) | R(PM_DT_BOOLEAN) | TS_BOTH;
  *explicit_ = 0;
  switch (t) {
    case PM_DT_CHAR:
      *implicit = R(PM_DT_CHAR);
      *explicit_ = fam(F_PREDEFINED | F_CONSTRUCTED);
      break;
    case PM_DT_VARCHAR:
      *implicit = fam(F_CHARACTER_STRING);
      *explicit_ = fam(F_PREDEFINED | F_CONSTRUCTED);
      break;
    case PM_DT_BOOLEAN:
      *implicit = R(PM_DT_BOOLEAN);
      *explicit_ = fam(F_CHARACTER_STRING | F_INTEGER_NUMERIC);
      break;
    case PM_DT_BINARY:
      *implicit = R(PM_DT_BINARY);
      *explicit_ = fam(F_CHARACTER_STRING) | R(PM_DT_VARBINARY);
      break;
    case PM_DT_VARBINARY:
      *implicit = fam(F_BINARY_STRING);
      *explicit_ = fam(F_CHARACTER_STRING) | R(PM_DT_BINARY);
      break;
    case PM_DT_DECIMAL:
      *implicit = fam(F_NUMERIC);
      *explicit_ = fam(F_CHARACTER_STRING) | R(PM_DT_BOOLEAN) | TS_BOTH;
      break;
    case PM_DT_TINYINT:
      *implicit = R(PM_DT_TINYINT);
      *explicit_ = num_explicit;
      break;
    case PM_DT_SMALLINT:
      *implicit = R(PM_DT_TINYINT) | R(PM_DT_SMALLINT);
      *explicit_ = num_explicit;
      break;
    case PM_DT_INT:
      *implicit = R(PM_DT_TINYINT) | R(PM_DT_SMALLINT) | R(PM_DT_INT);
      *explicit_ = num_explicit;
      break;
    case PM_DT_BIGINT:
      *implicit = INTS;
      *explicit_ = num_explicit;
      break;
    case PM_DT_FLOAT:
      *implicit = INTS | R(PM_DT_FLOAT) | R(PM_DT_DECIMAL);
      *explicit_ = num_explicit;
      break;
    case PM_DT_DOUBLE:
      *implicit = fam(F_NUMERIC);
      *explicit_ = fam(F_CHARACTER_STRING) | R(PM_DT_BOOLEAN) | TS_BOTH;
      break;
    case PM_DT_DATE:
      *implicit = R(PM_DT_DATE) | R(PM_DT_TIMESTAMP);
      *explicit_ = fam(F_TIMESTAMP | F_CHARACTER_STRING);
      break;
    case PM_DT_TIME:
      *implicit = R(PM_DT_TIME) | R(PM_DT_TIMESTAMP);
      *explicit_ = fam(F_TIME | F_TIMESTAMP | F_CHARACTER_STRING);
      break;
    case PM_DT_TIMESTAMP:
    case PM_DT_TIMESTAMP_LTZ:
      *implicit = TS_BOTH;
      *explicit_ = fam(F_DATETIME | F_CHARACTER_STRING | F_NUMERIC);
      break;
    default: *implicit = R(t); break; /* identity only */
  }
}

int pm_dtype_equals_ignore_nullable(const pm_data_type *a, const pm_data_type *b) {
  if (!a || !b) return a == b;
  pm_data_type x = *a, y = *b;
  x.nullable = y.nullable = 1;
  return pm_dtype_equals(&x, &y);
}

static int is_geo(pm_dtype_root r) { return r == PM_DT_GEOMETRY || r == PM_DT_GEOGRAPHY; }

int pm_dtype_supports_cast(const pm_data_type *src, const pm_data_type *dst, int allow_explicit) {
  if (src->nullable && !dst->nullable && !allow_explicit) return 0;
  if (pm_dtype_equals_ignore_nullable(src, dst)) return 1;
  if (is_geo(src->root) || is_geo(dst->root)) return 0;
  uint32_t imp, exp;
  cast_rules(dst->root, &imp, &exp);
  if (imp & R(src->root)) return 1;
  return allow_explicit && (exp & R(src->root)) != 0;
}

/* ---- CastExecutors: rules registered in Java's order; a later rule replaces an earlier
 * one for the same (target key, input key) pair. */

typedef enum rule_id {
  DECIMAL_TO_DECIMAL,
  NUMERIC_PRIMITIVE_TO_DECIMAL,
  DECIMAL_TO_NUMERIC_PRIMITIVE,
  NUMERIC_PRIMITIVE_CAST,
  NUMERIC_PRIMITIVE_TO_TIMESTAMP,
  BOOLEAN_TO_NUMERIC,
  NUMERIC_TO_BOOLEAN,
  NUMERIC_TO_STRING,
  BOOLEAN_TO_STRING,
  TIMESTAMP_TO_STRING,
  TIME_TO_STRING,
  DATE_TO_STRING,
  STRING_TO_STRING,
  ARRAY_TO_STRING,
  MAP_TO_STRING,
  ROW_TO_STRING,
  STRING_TO_BOOLEAN,
  STRING_TO_DECIMAL,
  STRING_TO_NUMERIC_PRIMITIVE,
  STRING_TO_DATE,
  STRING_TO_TIME,
  STRING_TO_TIMESTAMP,
  STRING_TO_BINARY,
  STRING_TO_ARRAY,
  STRING_TO_MAP,
  STRING_TO_ROW,
  TIMESTAMP_TO_TIMESTAMP,
  TIMESTAMP_TO_DATE,
  TIMESTAMP_TO_TIME,
  DATE_TO_TIMESTAMP,
  TIME_TO_TIMESTAMP,
  TIMESTAMP_TO_NUMERIC_PRIMITIVE,
  BINARY_TO_BINARY,
  BINARY_TO_STRING,
  N_RULES
} rule_id;

typedef struct cast_rule {
  uint32_t in_roots, in_fams;
  int to_string_type; /* target key DataTypes.STRING() (nullable VARCHAR(max)) */
  uint32_t to_roots, to_fams;
} cast_rule;

#define NUMP (F_INTEGER_NUMERIC | F_APPROXIMATE_NUMERIC)
static const cast_rule RULES[N_RULES] = {
    [DECIMAL_TO_DECIMAL] = {R(PM_DT_DECIMAL), 0, 0, R(PM_DT_DECIMAL), 0},
    [NUMERIC_PRIMITIVE_TO_DECIMAL] = {0, NUMP, 0, R(PM_DT_DECIMAL), 0},
    [DECIMAL_TO_NUMERIC_PRIMITIVE] = {R(PM_DT_DECIMAL), 0, 0, 0, NUMP},
    [NUMERIC_PRIMITIVE_CAST] = {0, NUMP, 0, 0, NUMP},
    [NUMERIC_PRIMITIVE_TO_TIMESTAMP] = {0, F_NUMERIC, 0, TS_BOTH, 0},
    [BOOLEAN_TO_NUMERIC] = {R(PM_DT_BOOLEAN), 0, 0, 0, F_NUMERIC},
    [NUMERIC_TO_BOOLEAN] = {0, F_INTEGER_NUMERIC, 0, R(PM_DT_BOOLEAN), 0},
    [NUMERIC_TO_STRING] = {0, F_NUMERIC, 0, 0, F_CHARACTER_STRING},
    [BOOLEAN_TO_STRING] = {R(PM_DT_BOOLEAN), 0, 0, 0, F_CHARACTER_STRING},
    [TIMESTAMP_TO_STRING] = {0, F_TIMESTAMP, 1, 0, 0},
    [TIME_TO_STRING] = {R(PM_DT_TIME), 0, 1, 0, 0},
    [DATE_TO_STRING] = {R(PM_DT_DATE), 0, 1, 0, 0},
    [STRING_TO_STRING] = {0, F_CHARACTER_STRING, 0, 0, F_CHARACTER_STRING},
    [ARRAY_TO_STRING] = {R(PM_DT_ARRAY), 0, 0, 0, F_CHARACTER_STRING},
    [MAP_TO_STRING] = {R(PM_DT_MAP), 0, 0, 0, F_CHARACTER_STRING},
    [ROW_TO_STRING] = {R(PM_DT_ROW), 0, 0, 0, F_CHARACTER_STRING},
    [STRING_TO_BOOLEAN] = {0, F_CHARACTER_STRING, 0, R(PM_DT_BOOLEAN), 0},
    [STRING_TO_DECIMAL] = {0, F_CHARACTER_STRING, 0, R(PM_DT_DECIMAL), 0},
    [STRING_TO_NUMERIC_PRIMITIVE] = {0, F_CHARACTER_STRING, 0, 0, NUMP},
    [STRING_TO_DATE] = {0, F_CHARACTER_STRING, 0, R(PM_DT_DATE), 0},
    [STRING_TO_TIME] = {0, F_CHARACTER_STRING, 0, R(PM_DT_TIME), 0},
    [STRING_TO_TIMESTAMP] = {0, F_CHARACTER_STRING, 0, 0, F_TIMESTAMP},
    [STRING_TO_BINARY] = {0, F_CHARACTER_STRING, 0, 0, F_BINARY_STRING},
    [STRING_TO_ARRAY] = {0, F_CHARACTER_STRING, 0, R(PM_DT_ARRAY), 0},
    [STRING_TO_MAP] = {0, F_CHARACTER_STRING, 0, R(PM_DT_MAP), 0},
    [STRING_TO_ROW] = {0, F_CHARACTER_STRING, 0, R(PM_DT_ROW), 0},
    [TIMESTAMP_TO_TIMESTAMP] = {TS_BOTH, 0, 0, TS_BOTH, 0},
    [TIMESTAMP_TO_DATE] = {TS_BOTH, 0, 0, R(PM_DT_DATE), 0},
    [TIMESTAMP_TO_TIME] = {TS_BOTH, 0, 0, R(PM_DT_TIME), 0},
    [DATE_TO_TIMESTAMP] = {R(PM_DT_DATE), 0, 0, TS_BOTH, 0},
    [TIME_TO_TIMESTAMP] = {R(PM_DT_TIME), 0, 0, TS_BOTH, 0},
    [TIMESTAMP_TO_NUMERIC_PRIMITIVE] = {TS_BOTH, 0, 0, R(PM_DT_BIGINT) | R(PM_DT_INT), 0},
    [BINARY_TO_BINARY] = {0, F_BINARY_STRING, 0, 0, F_BINARY_STRING},
    [BINARY_TO_STRING] = {0, F_BINARY_STRING, 0, 0, F_CHARACTER_STRING},
};

/* A lookup key: kind 0 = the STRING type, 1 = a root, 2 = a family bit. */
typedef struct key {
  int kind;
  uint32_t v;
} key;

static int rule_has_target(const cast_rule *r, key k) {
  return k.kind == 0 ? r->to_string_type : k.kind == 1 ? (r->to_roots & R(k.v)) != 0 : (r->to_fams & k.v) != 0;
}
static int rule_has_input(const cast_rule *r, key k) {
  return k.kind == 1 ? (r->in_roots & R(k.v)) != 0 : (r->in_fams & k.v) != 0;
}

/* The rule stored under (tk, ik): the last registered one naming both; -1 when none. */
static int map_get(key tk, key ik) {
  for (int i = N_RULES - 1; i >= 0; i--)
    if (rule_has_target(&RULES[i], tk) && rule_has_input(&RULES[i], ik)) return i;
  return -1;
}

static int is_string_type(const pm_data_type *t) {
  return t->root == PM_DT_VARCHAR && t->length == PM_DT_MAX_LENGTH && t->nullable;
}

static int resolve(const pm_data_type *src, const pm_data_type *dst) {
  key tks[2 + F_COUNT];
  int ntk = 0;
  if (is_string_type(dst)) tks[ntk++] = (key){0, 0};
  tks[ntk++] = (key){1, (uint32_t)dst->root};
  for (int b = 0; b < F_COUNT; b++)
    if (families(dst->root) & (1u << b)) tks[ntk++] = (key){2, 1u << b};
  key iks[1 + F_COUNT];
  int nik = 0;
  iks[nik++] = (key){1, (uint32_t)src->root};
  for (int b = 0; b < F_COUNT; b++)
    if (families(src->root) & (1u << b)) iks[nik++] = (key){2, 1u << b};
  for (int t = 0; t < ntk; t++)
    for (int i = 0; i < nik; i++) {
      int r = map_get(tks[t], iks[i]);
      if (r >= 0) return r;
    }
  return -1;
}

int pm_dtype_cast_resolvable(const pm_data_type *src, const pm_data_type *dst) {
  int r = resolve(src, dst);
  if (r < 0) return 0;
  switch ((rule_id)r) {
    case NUMERIC_PRIMITIVE_TO_TIMESTAMP: /* its executor exists for INT and BIGINT inputs only */
      return src->root == PM_DT_INT || src->root == PM_DT_BIGINT;
    case STRING_TO_ARRAY: { /* Java throws when the element cannot be cast from STRING */
      pm_data_type s = {0};
      s.root = PM_DT_VARCHAR;
      s.nullable = 1;
      s.length = PM_DT_MAX_LENGTH;
      return dst->element && pm_dtype_cast_resolvable(&s, dst->element);
    }
    default: return 1;
  }
}
