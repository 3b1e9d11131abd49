#include "format/parquet/parquet_meta.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <strings.h>

#include "format/parquet/thrift_read.h"

/* ---- A tiny arena: every metadata allocation is freed at once. ---- */
typedef struct arena_block {
  struct arena_block *next;
  max_align_t align[];
} arena_block;

static void *arena_alloc(void **arena, size_t size) {
  arena_block *b = calloc(1, sizeof(arena_block) + (size ? size : 1));
  if (!b) return NULL;
  b->next = *arena;
  *arena = b;
  return b->align;
}

static void arena_free(void *arena) {
  arena_block *b = arena;
  while (b) {
    arena_block *n = b->next;
    free(b);
    b = n;
  }
}

typedef struct meta_ctx {
  pm_thrift t;
  void **arena;
} meta_ctx;

#define EXPECT(type, want, name) PM_TRY(pm_thrift_expect(&c->t, type, want, name))

static int nomem(meta_ctx *c) { return PM_NOMEM(c->t.err); }

static int read_string(meta_ctx *c, char **out) {
  const uint8_t *d;
  uint32_t n;
  PM_TRY(pm_thrift_binary(&c->t, &d, &n));
  char *s = arena_alloc(c->arena, (size_t)n + 1);
  if (!s) return nomem(c);
  memcpy(s, d, n);
  s[n] = 0;
  *out = s;
  return 0;
}

static int read_bytes(meta_ctx *c, pm_pq_bytes *out) { return pm_thrift_binary(&c->t, &out->p, &out->len); }

static int read_i32_as_int(meta_ctx *c, int *out) {
  int32_t v;
  PM_TRY(pm_thrift_i32(&c->t, &v));
  *out = v;
  return 0;
}

static int parse_statistics(meta_ctx *c, pm_pq_stats *s) {
  int16_t last, id;
  int ft;
  memset(s, 0, sizeof *s);
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    switch (id) {
      case 1: EXPECT(ft, PM_TT_BINARY, "Statistics.max"); PM_TRY(read_bytes(c, &s->max_old)); s->has_max_old = 1; break;
      case 2: EXPECT(ft, PM_TT_BINARY, "Statistics.min"); PM_TRY(read_bytes(c, &s->min_old)); s->has_min_old = 1; break;
      case 3: EXPECT(ft, PM_TT_I64, "Statistics.null_count"); PM_TRY(pm_thrift_i64(&c->t, &s->null_count)); s->has_null_count = 1; break;
      case 4: EXPECT(ft, PM_TT_I64, "Statistics.distinct_count"); PM_TRY(pm_thrift_i64(&c->t, &s->distinct_count)); s->has_distinct_count = 1; break;
      case 5: EXPECT(ft, PM_TT_BINARY, "Statistics.max_value"); PM_TRY(read_bytes(c, &s->max)); s->has_max = 1; break;
      case 6: EXPECT(ft, PM_TT_BINARY, "Statistics.min_value"); PM_TRY(read_bytes(c, &s->min)); s->has_min = 1; break;
      default: PM_TRY(pm_thrift_skip(&c->t, ft));
    }
  }
  pm_thrift_struct_end(&c->t);
  return 0;
}

/* Parses a struct whose only interesting content is given by `fn` per field; used for union members. */
static int parse_time_unit(meta_ctx *c, int *unit) {
  int16_t last, id;
  int ft;
  *unit = PM_PQ_MILLIS;
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    if (id >= 1 && id <= 3) *unit = id == 1 ? PM_PQ_MILLIS : id == 2 ? PM_PQ_MICROS : PM_PQ_NANOS;
    PM_TRY(pm_thrift_skip(&c->t, ft));
  }
  pm_thrift_struct_end(&c->t);
  return 0;
}

static int parse_logical_member(meta_ctx *c, int kind, pm_pq_logical *lt) {
  int16_t last, id;
  int ft;
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    if (kind == PM_PQ_LT_DECIMAL && id == 1 && ft == PM_TT_I32) {
      PM_TRY(pm_thrift_i32(&c->t, &lt->scale));
    } else if (kind == PM_PQ_LT_DECIMAL && id == 2 && ft == PM_TT_I32) {
      PM_TRY(pm_thrift_i32(&c->t, &lt->precision));
    } else if ((kind == PM_PQ_LT_TIME || kind == PM_PQ_LT_TIMESTAMP) && id == 1 &&
               (ft == PM_TT_BOOL_TRUE || ft == PM_TT_BOOL_FALSE)) {
      lt->utc = pm_thrift_field_bool(ft);
    } else if ((kind == PM_PQ_LT_TIME || kind == PM_PQ_LT_TIMESTAMP) && id == 2 && ft == PM_TT_STRUCT) {
      PM_TRY(parse_time_unit(c, &lt->unit));
    } else if (kind == PM_PQ_LT_INTEGER && id == 1 && ft == PM_TT_BYTE) {
      if (c->t.p >= c->t.end) return pm_thrift_fail(&c->t, "truncated IntType.bitWidth");
      lt->bit_width = (int8_t)*c->t.p++;
    } else if (kind == PM_PQ_LT_INTEGER && id == 2 && (ft == PM_TT_BOOL_TRUE || ft == PM_TT_BOOL_FALSE)) {
      lt->is_signed = pm_thrift_field_bool(ft);
    } else {
      PM_TRY(pm_thrift_skip(&c->t, ft));
    }
  }
  pm_thrift_struct_end(&c->t);
  return 0;
}

static int parse_logical(meta_ctx *c, pm_pq_logical *lt) {
  int16_t last, id;
  int ft;
  memset(lt, 0, sizeof *lt);
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    if (ft == PM_TT_STRUCT && id >= 1 && id <= 15 && id != 9) {
      lt->kind = id;
      PM_TRY(parse_logical_member(c, id, lt));
    } else {
      PM_TRY(pm_thrift_skip(&c->t, ft)); /* unknown logical type: treated as none */
    }
  }
  pm_thrift_struct_end(&c->t);
  return 0;
}

static int parse_schema_elem(meta_ctx *c, pm_pq_schema_elem *e) {
  int16_t last, id;
  int ft;
  memset(e, 0, sizeof *e);
  e->field_id = -1;
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    switch (id) {
      case 1: EXPECT(ft, PM_TT_I32, "SchemaElement.type"); PM_TRY(read_i32_as_int(c, &e->type)); e->has_type = 1; break;
      case 2: EXPECT(ft, PM_TT_I32, "SchemaElement.type_length"); PM_TRY(pm_thrift_i32(&c->t, &e->type_length)); break;
      case 3: EXPECT(ft, PM_TT_I32, "SchemaElement.repetition_type"); PM_TRY(read_i32_as_int(c, &e->repetition)); e->has_repetition = 1; break;
      case 4: EXPECT(ft, PM_TT_BINARY, "SchemaElement.name"); PM_TRY(read_string(c, &e->name)); break;
      case 5: EXPECT(ft, PM_TT_I32, "SchemaElement.num_children"); PM_TRY(pm_thrift_i32(&c->t, &e->num_children)); break;
      case 6: EXPECT(ft, PM_TT_I32, "SchemaElement.converted_type"); PM_TRY(read_i32_as_int(c, &e->converted)); e->has_converted = 1; break;
      case 7: EXPECT(ft, PM_TT_I32, "SchemaElement.scale"); PM_TRY(pm_thrift_i32(&c->t, &e->scale)); break;
      case 8: EXPECT(ft, PM_TT_I32, "SchemaElement.precision"); PM_TRY(pm_thrift_i32(&c->t, &e->precision)); break;
      case 9: EXPECT(ft, PM_TT_I32, "SchemaElement.field_id"); PM_TRY(pm_thrift_i32(&c->t, &e->field_id)); e->has_field_id = 1; break;
      case 10: EXPECT(ft, PM_TT_STRUCT, "SchemaElement.logicalType"); PM_TRY(parse_logical(c, &e->logical)); break;
      default: PM_TRY(pm_thrift_skip(&c->t, ft));
    }
  }
  pm_thrift_struct_end(&c->t);
  if (!e->name) return pm_thrift_fail(&c->t, "SchemaElement without a name");
  if (e->has_type && (e->type < 0 || e->type > PM_PQ_FIXED_LEN_BYTE_ARRAY))
    return pm_thrift_fail(&c->t, "SchemaElement.type is not a known physical type");
  if (e->has_repetition && (e->repetition < 0 || e->repetition > 2))
    return pm_thrift_fail(&c->t, "SchemaElement.repetition_type is invalid");
  if (e->num_children < 0) return pm_thrift_fail(&c->t, "SchemaElement.num_children is negative");
  return 0;
}

/* Generic list-of-struct helper. */
#define PARSE_LIST(c, name, ptr, count, elem_type, parse_fn)                                   \
  do {                                                                                         \
    int et_;                                                                                   \
    uint32_t n_;                                                                               \
    PM_TRY(pm_thrift_list_begin(&(c)->t, &et_, &n_));                                         \
    if (et_ != PM_TT_STRUCT) return pm_thrift_fail(&(c)->t, name " is not a list of structs"); \
    (ptr) = arena_alloc((c)->arena, sizeof(elem_type) * (size_t)n_);                            \
    if (!(ptr)) return nomem(c);                                                               \
    for (uint32_t i_ = 0; i_ < n_; i_++) PM_TRY(parse_fn((c), &(ptr)[i_]));                   \
    (count) = n_;                                                                              \
  } while (0)

static int parse_column_meta(meta_ctx *c, pm_pq_column_chunk *cc) {
  int16_t last, id;
  int ft;
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  cc->has_meta_data = 1;
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    switch (id) {
      case 1: EXPECT(ft, PM_TT_I32, "ColumnMetaData.type"); PM_TRY(read_i32_as_int(c, &cc->type)); break;
      case 2: {
        EXPECT(ft, PM_TT_LIST, "ColumnMetaData.encodings");
        int et;
        uint32_t n;
        PM_TRY(pm_thrift_list_begin(&c->t, &et, &n));
        if (et != PM_TT_I32) return pm_thrift_fail(&c->t, "ColumnMetaData.encodings is not a list of i32");
        cc->encodings = arena_alloc(c->arena, sizeof(int32_t) * (size_t)n);
        if (!cc->encodings) return nomem(c);
        for (uint32_t i = 0; i < n; i++) PM_TRY(pm_thrift_i32(&c->t, &cc->encodings[i]));
        cc->n_encodings = n;
        break;
      }
      case 3: {
        EXPECT(ft, PM_TT_LIST, "ColumnMetaData.path_in_schema");
        int et;
        uint32_t n;
        PM_TRY(pm_thrift_list_begin(&c->t, &et, &n));
        if (et != PM_TT_BINARY) return pm_thrift_fail(&c->t, "ColumnMetaData.path_in_schema is not a list of strings");
        cc->path_in_schema = arena_alloc(c->arena, sizeof(char *) * (size_t)n);
        if (!cc->path_in_schema) return nomem(c);
        for (uint32_t i = 0; i < n; i++) PM_TRY(read_string(c, &cc->path_in_schema[i]));
        cc->n_path = n;
        break;
      }
      case 4: EXPECT(ft, PM_TT_I32, "ColumnMetaData.codec"); PM_TRY(read_i32_as_int(c, &cc->codec)); break;
      case 5: EXPECT(ft, PM_TT_I64, "ColumnMetaData.num_values"); PM_TRY(pm_thrift_i64(&c->t, &cc->num_values)); break;
      case 6: EXPECT(ft, PM_TT_I64, "ColumnMetaData.total_uncompressed_size"); PM_TRY(pm_thrift_i64(&c->t, &cc->total_uncompressed_size)); break;
      case 7: EXPECT(ft, PM_TT_I64, "ColumnMetaData.total_compressed_size"); PM_TRY(pm_thrift_i64(&c->t, &cc->total_compressed_size)); break;
      case 9: EXPECT(ft, PM_TT_I64, "ColumnMetaData.data_page_offset"); PM_TRY(pm_thrift_i64(&c->t, &cc->data_page_offset)); break;
      case 10: EXPECT(ft, PM_TT_I64, "ColumnMetaData.index_page_offset"); PM_TRY(pm_thrift_i64(&c->t, &cc->index_page_offset)); cc->has_index_page_offset = 1; break;
      case 11: EXPECT(ft, PM_TT_I64, "ColumnMetaData.dictionary_page_offset"); PM_TRY(pm_thrift_i64(&c->t, &cc->dictionary_page_offset)); cc->has_dictionary_page_offset = 1; break;
      case 12: EXPECT(ft, PM_TT_STRUCT, "ColumnMetaData.statistics"); PM_TRY(parse_statistics(c, &cc->statistics)); cc->has_statistics = 1; break;
      default: PM_TRY(pm_thrift_skip(&c->t, ft));
    }
  }
  pm_thrift_struct_end(&c->t);
  return 0;
}

static int parse_column_chunk(meta_ctx *c, pm_pq_column_chunk *cc) {
  int16_t last, id;
  int ft;
  memset(cc, 0, sizeof *cc);
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    switch (id) {
      case 1: EXPECT(ft, PM_TT_BINARY, "ColumnChunk.file_path"); PM_TRY(read_string(c, &cc->file_path)); break;
      case 2: EXPECT(ft, PM_TT_I64, "ColumnChunk.file_offset"); PM_TRY(pm_thrift_i64(&c->t, &cc->file_offset)); break;
      case 3: EXPECT(ft, PM_TT_STRUCT, "ColumnChunk.meta_data"); PM_TRY(parse_column_meta(c, cc)); break;
      case 4: EXPECT(ft, PM_TT_I64, "ColumnChunk.offset_index_offset"); PM_TRY(pm_thrift_i64(&c->t, &cc->offset_index_offset)); cc->has_offset_index = 1; break;
      case 5: EXPECT(ft, PM_TT_I32, "ColumnChunk.offset_index_length"); PM_TRY(pm_thrift_i32(&c->t, &cc->offset_index_length)); break;
      case 6: EXPECT(ft, PM_TT_I64, "ColumnChunk.column_index_offset"); PM_TRY(pm_thrift_i64(&c->t, &cc->column_index_offset)); cc->has_column_index = 1; break;
      case 7: EXPECT(ft, PM_TT_I32, "ColumnChunk.column_index_length"); PM_TRY(pm_thrift_i32(&c->t, &cc->column_index_length)); break;
      default: PM_TRY(pm_thrift_skip(&c->t, ft));
    }
  }
  pm_thrift_struct_end(&c->t);
  return 0;
}

static int parse_row_group(meta_ctx *c, pm_pq_row_group *rg) {
  int16_t last, id;
  int ft;
  memset(rg, 0, sizeof *rg);
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    switch (id) {
      case 1: EXPECT(ft, PM_TT_LIST, "RowGroup.columns"); PARSE_LIST(c, "RowGroup.columns", rg->columns, rg->n_columns, pm_pq_column_chunk, parse_column_chunk); break;
      case 2: EXPECT(ft, PM_TT_I64, "RowGroup.total_byte_size"); PM_TRY(pm_thrift_i64(&c->t, &rg->total_byte_size)); break;
      case 3: EXPECT(ft, PM_TT_I64, "RowGroup.num_rows"); PM_TRY(pm_thrift_i64(&c->t, &rg->num_rows)); break;
      case 5: EXPECT(ft, PM_TT_I64, "RowGroup.file_offset"); PM_TRY(pm_thrift_i64(&c->t, &rg->file_offset)); rg->has_file_offset = 1; break;
      case 6: EXPECT(ft, PM_TT_I64, "RowGroup.total_compressed_size"); PM_TRY(pm_thrift_i64(&c->t, &rg->total_compressed_size)); rg->has_total_compressed_size = 1; break;
      case 7: EXPECT(ft, PM_TT_I16, "RowGroup.ordinal"); { int64_t v; PM_TRY(pm_thrift_i64(&c->t, &v)); rg->ordinal = (int32_t)v; rg->has_ordinal = 1; } break;
      default: PM_TRY(pm_thrift_skip(&c->t, ft));
    }
  }
  pm_thrift_struct_end(&c->t);
  if (rg->num_rows < 0) return pm_thrift_fail(&c->t, "RowGroup.num_rows is negative");
  return 0;
}

static int parse_kv(meta_ctx *c, pm_pq_kv *kv) {
  int16_t last, id;
  int ft;
  memset(kv, 0, sizeof *kv);
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    if (id == 1 && ft == PM_TT_BINARY) PM_TRY(read_string(c, &kv->key));
    else if (id == 2 && ft == PM_TT_BINARY) PM_TRY(read_string(c, &kv->value));
    else PM_TRY(pm_thrift_skip(&c->t, ft));
  }
  pm_thrift_struct_end(&c->t);
  if (!kv->key) return pm_thrift_fail(&c->t, "KeyValue without a key");
  return 0;
}

static int parse_file_meta(meta_ctx *c, pm_pq_meta *m) {
  int16_t last, id;
  int ft;
  int have_schema = 0, have_rows = 0;
  PM_TRY(pm_thrift_struct_begin(&c->t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&c->t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    switch (id) {
      case 1: EXPECT(ft, PM_TT_I32, "FileMetaData.version"); PM_TRY(pm_thrift_i32(&c->t, &m->version)); break;
      case 2: EXPECT(ft, PM_TT_LIST, "FileMetaData.schema"); PARSE_LIST(c, "FileMetaData.schema", m->schema, m->n_schema, pm_pq_schema_elem, parse_schema_elem); have_schema = 1; break;
      case 3: EXPECT(ft, PM_TT_I64, "FileMetaData.num_rows"); PM_TRY(pm_thrift_i64(&c->t, &m->num_rows)); have_rows = 1; break;
      case 4: EXPECT(ft, PM_TT_LIST, "FileMetaData.row_groups"); PARSE_LIST(c, "FileMetaData.row_groups", m->row_groups, m->n_row_groups, pm_pq_row_group, parse_row_group); break;
      case 5: EXPECT(ft, PM_TT_LIST, "FileMetaData.key_value_metadata"); PARSE_LIST(c, "FileMetaData.key_value_metadata", m->kv, m->n_kv, pm_pq_kv, parse_kv); break;
      case 6: EXPECT(ft, PM_TT_BINARY, "FileMetaData.created_by"); PM_TRY(read_string(c, &m->created_by)); break;
      default: PM_TRY(pm_thrift_skip(&c->t, ft));
    }
  }
  pm_thrift_struct_end(&c->t);
  if (!have_schema || m->n_schema == 0) return pm_thrift_fail(&c->t, "FileMetaData without a schema");
  if (!have_rows || m->num_rows < 0) return pm_thrift_fail(&c->t, "FileMetaData.num_rows missing or negative");
  return 0;
}

/* ---- Schema tree ---- */
typedef struct tree_ctx {
  pm_pq_meta *m;
  void **arena;
  uint32_t next;
  const char *path;
  pm_error *err;
  int n_leaves;
} tree_ctx;

static int build_node(tree_ctx *tc, pm_pq_node *parent, pm_pq_node **out) {
  if (tc->next >= tc->m->n_schema)
    return pm_errorf(tc->err, PAIMON_ERR_CORRUPT, "%s: schema element %u missing (num_children exceeds the list)",
                     tc->path, tc->next);
  int depth = parent ? parent->depth + 1 : 0;
  if (depth > PM_PQ_MAX_SCHEMA_DEPTH)
    return pm_errorf(tc->err, PAIMON_ERR_CORRUPT, "%s: schema nested deeper than %d levels", tc->path,
                     PM_PQ_MAX_SCHEMA_DEPTH);
  const pm_pq_schema_elem *e = &tc->m->schema[tc->next++];
  pm_pq_node *n = arena_alloc(tc->arena, sizeof *n);
  if (!n) return PM_NOMEM(tc->err);
  n->elem = e;
  n->parent = parent;
  n->depth = depth;
  n->leaf = -1;
  n->def_level = parent ? parent->def_level : 0;
  n->rep_level = parent ? parent->rep_level : 0;
  if (parent) {
    int rep = e->has_repetition ? e->repetition : PM_PQ_OPTIONAL;
    if (rep != PM_PQ_REQUIRED) n->def_level++;
    if (rep == PM_PQ_REPEATED) n->rep_level++;
  }
  int is_group = !parent || e->num_children > 0 || !e->has_type;
  if (is_group) {
    if (e->num_children == 0 && parent)
      return pm_errorf(tc->err, PAIMON_ERR_CORRUPT, "%s: schema group '%s' has no children", tc->path, e->name);
    if ((uint32_t)e->num_children > tc->m->n_schema - tc->next)
      return pm_errorf(tc->err, PAIMON_ERR_CORRUPT, "%s: schema group '%s' claims %d children, only %u elements remain",
                       tc->path, e->name, e->num_children, tc->m->n_schema - tc->next);
    n->n_children = e->num_children;
    n->children = arena_alloc(tc->arena, sizeof(pm_pq_node *) * (size_t)n->n_children);
    if (!n->children) return PM_NOMEM(tc->err);
    for (int i = 0; i < n->n_children; i++) PM_TRY(build_node(tc, n, &n->children[i]));
  } else {
    if (e->type == PM_PQ_FIXED_LEN_BYTE_ARRAY && (e->type_length <= 0 || e->type_length > (1 << 24)))
      return pm_errorf(tc->err, PAIMON_ERR_CORRUPT, "%s: column '%s' has invalid type_length %d", tc->path, e->name,
                       e->type_length);
    n->leaf = tc->n_leaves++;
  }
  *out = n;
  return 0;
}

static int collect_leaves(tree_ctx *tc, pm_pq_node *n) {
  if (n->leaf >= 0) {
    pm_pq_leaf *l = &tc->m->leaves[n->leaf];
    l->node = n;
    l->max_def = n->def_level;
    l->max_rep = n->rep_level;
    size_t len = 0;
    for (pm_pq_node *p = n; p->parent; p = p->parent) len += strlen(p->elem->name) + 1;
    l->path = arena_alloc(tc->arena, len + 1);
    if (!l->path) return PM_NOMEM(tc->err);
    size_t pos = len;
    l->path[len] = 0;
    for (pm_pq_node *p = n; p->parent; p = p->parent) {
      size_t nl = strlen(p->elem->name);
      if (pos != len) l->path[--pos] = '.';
      pos -= nl;
      memcpy(l->path + pos, p->elem->name, nl);
    }
    if (pos) memmove(l->path, l->path + pos, len - pos + 1);
    return 0;
  }
  for (int i = 0; i < n->n_children; i++) PM_TRY(collect_leaves(tc, n->children[i]));
  return 0;
}

int pm_pq_meta_parse(const uint8_t *footer, size_t len, uint64_t base_offset, const char *path, pm_pq_meta **out,
                     pm_error *err) {
  *out = NULL;
  path = path ? path : "(memory)";
  pm_pq_meta *m = calloc(1, sizeof *m);
  if (!m) return PM_NOMEM(err);
  m->footer = malloc(len ? len : 1);
  if (!m->footer) {
    free(m);
    return PM_NOMEM(err);
  }
  memcpy(m->footer, footer, len);
  m->footer_len = (uint32_t)len;
  meta_ctx c;
  pm_thrift_init(&c.t, m->footer, len, base_offset, path, "FileMetaData", err);
  c.arena = &m->arena;
  int rc = parse_file_meta(&c, m);
  if (rc == 0) {
    tree_ctx tc = {m, &m->arena, 0, path, err, 0};
    rc = build_node(&tc, NULL, &m->root);
    if (rc == 0 && tc.next != m->n_schema)
      rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: schema has %u elements but the tree uses %u", path, m->n_schema,
                     tc.next);
    if (rc == 0) {
      m->n_leaves = tc.n_leaves;
      m->leaves = arena_alloc(&m->arena, sizeof(pm_pq_leaf) * (size_t)(tc.n_leaves ? tc.n_leaves : 1));
      rc = m->leaves ? collect_leaves(&tc, m->root) : PM_NOMEM(err);
    }
  }
  if (rc == 0) {
    int64_t total = 0;
    for (uint32_t i = 0; i < m->n_row_groups && rc == 0; i++) {
      pm_pq_row_group *rg = &m->row_groups[i];
      if (rg->n_columns != (uint32_t)m->n_leaves) {
        rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: row group %u has %u column chunks, schema has %d leaf columns",
                       path, i, rg->n_columns, m->n_leaves);
        break;
      }
      for (uint32_t j = 0; j < rg->n_columns; j++) {
        pm_pq_column_chunk *cc = &rg->columns[j];
        if (!cc->has_meta_data) {
          rc = pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: row group %u column %u has no ColumnMetaData", path, i, j);
          break;
        }
        if (cc->type != m->leaves[j].node->elem->type) {
          rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: row group %u column %u type %d differs from the schema's %d",
                         path, i, j, cc->type, m->leaves[j].node->elem->type);
          break;
        }
      }
      total += rg->num_rows;
      if (total < 0) rc = pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: row counts overflow", path);
    }
  }
  if (rc) {
    pm_pq_meta_free(m);
    return rc;
  }
  *out = m;
  return 0;
}

int pm_pq_meta_read(pm_file *f, pm_pq_meta **out, pm_error *err) {
  *out = NULL;
  const char *path = pm_file_path(f);
  uint64_t size = pm_file_size(f);
  if (size < 12) return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: file of %llu bytes is too small for Parquet", path,
                                  (unsigned long long)size);
  uint8_t tail[8], head[4];
  /* One read for what follows: a small file whole (its chunks come from memory too), else a tail
   * that holds most footers; the reads below that fall inside it are served from memory. */
  size_t pre = size <= PM_PQ_PREFETCH_WHOLE ? (size_t)size : PM_PQ_PREFETCH_TAIL;
  PM_TRY(pm_file_prefetch(f, size - pre, pre, err));
  PM_TRY(pm_file_read_at(f, 0, head, 4, err));
  PM_TRY(pm_file_read_at(f, size - 8, tail, 8, err));
  if (memcmp(head, "PAR1", 4) != 0)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: bad magic at offset 0 (not a Parquet file)", path);
  if (memcmp(tail + 4, "PAR1", 4) != 0) {
    if (memcmp(tail + 4, "PARE", 4) == 0)
      return pm_errorf(err, PAIMON_ERR_UNSUPPORTED, "%s: encrypted Parquet footer is not supported", path);
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: bad magic at offset %llu (truncated file?)", path,
                     (unsigned long long)(size - 4));
  }
  uint32_t flen = (uint32_t)tail[0] | (uint32_t)tail[1] << 8 | (uint32_t)tail[2] << 16 | (uint32_t)tail[3] << 24;
  if ((uint64_t)flen > size - 12)
    return pm_errorf(err, PAIMON_ERR_CORRUPT, "%s: footer length %u at offset %llu exceeds the file size %llu", path,
                     flen, (unsigned long long)(size - 8), (unsigned long long)size);
  uint64_t off = size - 8 - flen;
  const uint8_t *mem = pm_file_memory(f);
  int rc;
  if (mem) {
    rc = pm_pq_meta_parse(mem + off, flen, off, path, out, err);
  } else {
    uint8_t *buf = malloc(flen ? flen : 1);
    if (!buf) return PM_NOMEM(err);
    rc = pm_file_read_at(f, off, buf, flen, err);
    if (rc == 0) rc = pm_pq_meta_parse(buf, flen, off, path, out, err);
    free(buf);
  }
  if (rc == 0) {
    (*out)->file_size = size;
  }
  return rc;
}

void pm_pq_meta_free(pm_pq_meta *m) {
  if (!m) return;
  arena_free(m->arena);
  free(m->footer);
  free(m);
}

static int name_eq(const char *a, const char *b, int ci) { return ci ? strcasecmp(a, b) == 0 : strcmp(a, b) == 0; }

int pm_pq_meta_find_leaf(const pm_pq_meta *m, const char *path, int ci) {
  for (int i = 0; i < m->n_leaves; i++)
    if (name_eq(m->leaves[i].path, path, ci)) return i;
  return -1;
}

int pm_pq_meta_find_leaf_by_id(const pm_pq_meta *m, int32_t field_id) {
  for (int i = 0; i < m->n_leaves; i++) {
    const pm_pq_schema_elem *e = m->leaves[i].node->elem;
    if (e->has_field_id && e->field_id == field_id) return i;
  }
  return -1;
}

/* ---- Page headers ---- */
static int parse_data_page_header(pm_thrift *t, pm_pq_page_header *h, int v2) {
  int16_t last, id;
  int ft;
  PM_TRY(pm_thrift_struct_begin(t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    int32_t v;
    if (id == 1 && ft == PM_TT_I32) {
      PM_TRY(pm_thrift_i32(t, &h->num_values));
    } else if (!v2 && id >= 2 && id <= 4 && ft == PM_TT_I32) {
      PM_TRY(pm_thrift_i32(t, &v));
      if (id == 2) h->encoding = v;
      else if (id == 3) h->def_encoding = v;
      else h->rep_encoding = v;
    } else if (v2 && id >= 2 && id <= 6 && ft == PM_TT_I32) {
      PM_TRY(pm_thrift_i32(t, &v));
      if (id == 2) h->num_nulls = v;
      else if (id == 3) h->num_rows = v;
      else if (id == 4) h->encoding = v;
      else if (id == 5) h->def_len = v;
      else h->rep_len = v;
    } else if (v2 && id == 7 && (ft == PM_TT_BOOL_TRUE || ft == PM_TT_BOOL_FALSE)) {
      h->is_compressed = pm_thrift_field_bool(ft);
    } else {
      PM_TRY(pm_thrift_skip(t, ft));
    }
  }
  pm_thrift_struct_end(t);
  return 0;
}

static int parse_dict_page_header(pm_thrift *t, pm_pq_page_header *h) {
  int16_t last, id;
  int ft;
  PM_TRY(pm_thrift_struct_begin(t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    int32_t v;
    if (id == 1 && ft == PM_TT_I32) PM_TRY(pm_thrift_i32(t, &h->num_values));
    else if (id == 2 && ft == PM_TT_I32) {
      PM_TRY(pm_thrift_i32(t, &v));
      h->encoding = v;
    } else PM_TRY(pm_thrift_skip(t, ft));
  }
  pm_thrift_struct_end(t);
  return 0;
}

int pm_pq_page_header_parse(const uint8_t *data, size_t len, uint64_t base_offset, const char *path,
                            pm_pq_page_header *h, size_t *consumed, pm_error *err) {
  pm_thrift t;
  pm_thrift_init(&t, data, len, base_offset, path, "PageHeader", err);
  memset(h, 0, sizeof *h);
  h->type = -1;
  h->is_compressed = 1;
  int16_t last, id;
  int ft;
  int have_sizes = 0;
  PM_TRY(pm_thrift_struct_begin(&t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(&t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    int32_t v;
    switch (id) {
      case 1: PM_TRY(pm_thrift_expect(&t, ft, PM_TT_I32, "PageHeader.type")); PM_TRY(pm_thrift_i32(&t, &v)); h->type = v; break;
      case 2: PM_TRY(pm_thrift_expect(&t, ft, PM_TT_I32, "PageHeader.uncompressed_page_size")); PM_TRY(pm_thrift_i32(&t, &h->uncompressed_size)); have_sizes |= 1; break;
      case 3: PM_TRY(pm_thrift_expect(&t, ft, PM_TT_I32, "PageHeader.compressed_page_size")); PM_TRY(pm_thrift_i32(&t, &h->compressed_size)); have_sizes |= 2; break;
      case 4: PM_TRY(pm_thrift_expect(&t, ft, PM_TT_I32, "PageHeader.crc")); PM_TRY(pm_thrift_i32(&t, &h->crc)); h->has_crc = 1; break;
      case 5: PM_TRY(pm_thrift_expect(&t, ft, PM_TT_STRUCT, "PageHeader.data_page_header")); PM_TRY(parse_data_page_header(&t, h, 0)); if (h->type == PM_PQ_PAGE_DATA) h->has_data_header = 1; break;
      case 7: PM_TRY(pm_thrift_expect(&t, ft, PM_TT_STRUCT, "PageHeader.dictionary_page_header")); PM_TRY(parse_dict_page_header(&t, h)); if (h->type == PM_PQ_PAGE_DICTIONARY) h->has_data_header = 1; break;
      case 8: PM_TRY(pm_thrift_expect(&t, ft, PM_TT_STRUCT, "PageHeader.data_page_header_v2")); PM_TRY(parse_data_page_header(&t, h, 1)); if (h->type == PM_PQ_PAGE_DATA_V2) h->has_data_header = 1; break;
      default: PM_TRY(pm_thrift_skip(&t, ft));
    }
  }
  pm_thrift_struct_end(&t);
  if (have_sizes != 3 || h->type < 0) return pm_thrift_fail(&t, "PageHeader lacks type or sizes");
  if (h->uncompressed_size < 0 || h->compressed_size < 0) return pm_thrift_fail(&t, "negative page size");
  if (h->num_values < 0 || h->num_nulls < 0 || h->num_rows < 0 || h->def_len < 0 || h->rep_len < 0)
    return pm_thrift_fail(&t, "negative count in page header");
  *consumed = (size_t)(t.p - t.begin);
  return 0;
}

/* ---- Page index ---- */
int pm_pq_column_index_parse(const uint8_t *data, size_t len, uint64_t base_offset, const char *path,
                             pm_pq_column_index *out, pm_error *err) {
  pm_thrift t;
  pm_thrift_init(&t, data, len, base_offset, path, "ColumnIndex", err);
  memset(out, 0, sizeof *out);
  int16_t last, id;
  int ft, et;
  uint32_t n;
  int rc = 0;
  uint32_t n_null = 0, n_min = 0, n_max = 0, n_nc = 0;
  int have[3] = {0, 0, 0};
  if ((rc = pm_thrift_struct_begin(&t, &last))) return rc;
  for (;;) {
    if ((rc = pm_thrift_field(&t, &last, &id, &ft))) goto fail;
    if (ft == PM_TT_STOP) break;
    if (id == 1 && ft == PM_TT_LIST) {
      if ((rc = pm_thrift_list_begin(&t, &et, &n))) goto fail;
      free(out->null_pages);
      out->null_pages = malloc(n ? n : 1);
      if (!out->null_pages) { rc = PM_NOMEM(err); goto fail; }
      for (uint32_t i = 0; i < n; i++) {
        int b;
        if ((rc = pm_thrift_list_bool(&t, &b))) goto fail;
        out->null_pages[i] = (uint8_t)b;
      }
      n_null = n;
      have[0] = 1;
    } else if ((id == 2 || id == 3) && ft == PM_TT_LIST) {
      if ((rc = pm_thrift_list_begin(&t, &et, &n))) goto fail;
      if (et != PM_TT_BINARY) { rc = pm_thrift_fail(&t, "min/max_values is not a list of binary"); goto fail; }
      pm_pq_bytes *arr = malloc(sizeof(pm_pq_bytes) * (n ? n : 1));
      if (!arr) { rc = PM_NOMEM(err); goto fail; }
      if (id == 2) { free(out->min_values); out->min_values = arr; n_min = n; have[1] = 1; }
      else { free(out->max_values); out->max_values = arr; n_max = n; have[2] = 1; }
      for (uint32_t i = 0; i < n; i++)
        if ((rc = pm_thrift_binary(&t, &arr[i].p, &arr[i].len))) goto fail;
    } else if (id == 4 && ft == PM_TT_I32) {
      int32_t v;
      if ((rc = pm_thrift_i32(&t, &v))) goto fail;
      out->boundary_order = v;
    } else if (id == 5 && ft == PM_TT_LIST) {
      if ((rc = pm_thrift_list_begin(&t, &et, &n))) goto fail;
      free(out->null_counts);
      out->null_counts = malloc(sizeof(int64_t) * (n ? n : 1));
      if (!out->null_counts) { rc = PM_NOMEM(err); goto fail; }
      for (uint32_t i = 0; i < n; i++)
        if ((rc = pm_thrift_i64(&t, &out->null_counts[i]))) goto fail;
      n_nc = n;
      out->has_null_counts = 1;
    } else {
      if ((rc = pm_thrift_skip(&t, ft))) goto fail;
    }
  }
  pm_thrift_struct_end(&t);
  if (!have[0] || !have[1] || !have[2] || n_min != n_null || n_max != n_null ||
      (out->has_null_counts && n_nc != n_null)) {
    rc = pm_thrift_fail(&t, "ColumnIndex lists missing or of different lengths");
    goto fail;
  }
  out->n_pages = n_null;
  return 0;
fail:
  pm_pq_column_index_free(out);
  return rc;
}

void pm_pq_column_index_free(pm_pq_column_index *ci) {
  free(ci->null_pages);
  free(ci->min_values);
  free(ci->max_values);
  free(ci->null_counts);
  memset(ci, 0, sizeof *ci);
}

static int parse_page_location(pm_thrift *t, pm_pq_page_location *pl) {
  int16_t last, id;
  int ft;
  int have = 0;
  PM_TRY(pm_thrift_struct_begin(t, &last));
  for (;;) {
    PM_TRY(pm_thrift_field(t, &last, &id, &ft));
    if (ft == PM_TT_STOP) break;
    if (id == 1 && ft == PM_TT_I64) { PM_TRY(pm_thrift_i64(t, &pl->offset)); have |= 1; }
    else if (id == 2 && ft == PM_TT_I32) { PM_TRY(pm_thrift_i32(t, &pl->compressed_page_size)); have |= 2; }
    else if (id == 3 && ft == PM_TT_I64) { PM_TRY(pm_thrift_i64(t, &pl->first_row_index)); have |= 4; }
    else PM_TRY(pm_thrift_skip(t, ft));
  }
  pm_thrift_struct_end(t);
  if (have != 7) return pm_thrift_fail(t, "PageLocation lacks a required field");
  return 0;
}

int pm_pq_offset_index_parse(const uint8_t *data, size_t len, uint64_t base_offset, const char *path,
                             pm_pq_offset_index *out, pm_error *err) {
  pm_thrift t;
  pm_thrift_init(&t, data, len, base_offset, path, "OffsetIndex", err);
  memset(out, 0, sizeof *out);
  int16_t last, id;
  int ft, et;
  uint32_t n;
  int rc, have = 0;
  if ((rc = pm_thrift_struct_begin(&t, &last))) return rc;
  for (;;) {
    if ((rc = pm_thrift_field(&t, &last, &id, &ft))) goto fail;
    if (ft == PM_TT_STOP) break;
    if (id == 1 && ft == PM_TT_LIST) {
      if ((rc = pm_thrift_list_begin(&t, &et, &n))) goto fail;
      if (et != PM_TT_STRUCT) { rc = pm_thrift_fail(&t, "page_locations is not a list of structs"); goto fail; }
      free(out->pages);
      out->pages = calloc(n ? n : 1, sizeof(pm_pq_page_location));
      if (!out->pages) { rc = PM_NOMEM(err); goto fail; }
      for (uint32_t i = 0; i < n; i++)
        if ((rc = parse_page_location(&t, &out->pages[i]))) goto fail;
      out->n_pages = n;
      have = 1;
    } else {
      if ((rc = pm_thrift_skip(&t, ft))) goto fail;
    }
  }
  pm_thrift_struct_end(&t);
  if (!have) { rc = pm_thrift_fail(&t, "OffsetIndex without page_locations"); goto fail; }
  return 0;
fail:
  pm_pq_offset_index_free(out);
  return rc;
}

void pm_pq_offset_index_free(pm_pq_offset_index *oi) {
  free(oi->pages);
  memset(oi, 0, sizeof *oi);
}

const char *pm_pq_type_name(int type) {
  static const char *n[] = {"BOOLEAN", "INT32", "INT64", "INT96", "FLOAT", "DOUBLE", "BYTE_ARRAY", "FIXED_LEN_BYTE_ARRAY"};
  return type >= 0 && type < 8 ? n[type] : "UNKNOWN";
}

const char *pm_pq_encoding_name(int enc) {
  static const char *n[] = {"PLAIN", "GROUP_VAR_INT", "PLAIN_DICTIONARY", "RLE", "BIT_PACKED", "DELTA_BINARY_PACKED",
                            "DELTA_LENGTH_BYTE_ARRAY", "DELTA_BYTE_ARRAY", "RLE_DICTIONARY", "BYTE_STREAM_SPLIT"};
  return enc >= 0 && enc < 10 ? n[enc] : "UNKNOWN";
}

const char *pm_pq_codec_name(int codec) {
  static const char *n[] = {"UNCOMPRESSED", "SNAPPY", "GZIP", "LZO", "BROTLI", "LZ4", "ZSTD", "LZ4_RAW"};
  return codec >= 0 && codec < 8 ? n[codec] : "UNKNOWN";
}

const char *pm_pq_converted_name(int ct) {
  static const char *n[] = {"UTF8", "MAP", "MAP_KEY_VALUE", "LIST", "ENUM", "DECIMAL", "DATE", "TIME_MILLIS",
                            "TIME_MICROS", "TIMESTAMP_MILLIS", "TIMESTAMP_MICROS", "UINT_8", "UINT_16", "UINT_32",
                            "UINT_64", "INT_8", "INT_16", "INT_32", "INT_64", "JSON", "BSON", "INTERVAL"};
  return ct >= 0 && ct < 22 ? n[ct] : "UNKNOWN";
}
