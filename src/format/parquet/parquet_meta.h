/*
 * Parquet FileMetaData model and its decoding from the file footer, plus
 * page headers and page indexes. Byte strings (statistics, names) point into
 * buffers owned by the pm_pq_meta (or by the caller's buffer for page
 * headers/indexes); everything is freed by pm_pq_meta_free.
 */
#ifndef PM_PARQUET_META_H
#define PM_PARQUET_META_H

#include <stddef.h>
#include <stdint.h>

#include "format/parquet/parquet_types.h"
#include "io/file.h"
#include "util/error.h"

typedef struct pm_pq_bytes {
  const uint8_t *p;
  uint32_t len;
} pm_pq_bytes;

typedef struct pm_pq_stats {
  int has_min, has_max; /* min_value / max_value (fields 6/5: correct sort order) */
  pm_pq_bytes min, max;
  int has_min_old, has_max_old; /* deprecated min / max (fields 2/1: signed order) */
  pm_pq_bytes min_old, max_old;
  int has_null_count;
  int64_t null_count;
  int has_distinct_count;
  int64_t distinct_count;
} pm_pq_stats;

enum pm_pq_time_unit { PM_PQ_MILLIS = 0, PM_PQ_MICROS = 1, PM_PQ_NANOS = 2 };

typedef struct pm_pq_logical {
  int kind; /* enum pm_pq_logical_kind */
  int32_t scale, precision; /* DECIMAL */
  int unit;                 /* TIME/TIMESTAMP: enum pm_pq_time_unit */
  int utc;                  /* TIME/TIMESTAMP isAdjustedToUTC */
  int bit_width;            /* INTEGER */
  int is_signed;            /* INTEGER */
} pm_pq_logical;

typedef struct pm_pq_schema_elem {
  char *name; /* NUL-terminated */
  int has_type;
  int type; /* enum pm_pq_type */
  int32_t type_length;
  int has_repetition;
  int repetition;
  int32_t num_children;
  int has_converted;
  int converted; /* enum pm_pq_converted_type */
  int32_t scale, precision;
  int has_field_id;
  int32_t field_id;
  pm_pq_logical logical;
} pm_pq_schema_elem;

typedef struct pm_pq_column_chunk {
  char *file_path; /* NULL if the chunk is in this file */
  int64_t file_offset;
  int has_meta_data;
  int type;
  int32_t *encodings;
  uint32_t n_encodings;
  char **path_in_schema;
  uint32_t n_path;
  int codec; /* enum pm_pq_codec */
  int64_t num_values;
  int64_t total_uncompressed_size;
  int64_t total_compressed_size;
  int64_t data_page_offset;
  int has_index_page_offset;
  int64_t index_page_offset;
  int has_dictionary_page_offset;
  int64_t dictionary_page_offset;
  int has_statistics;
  pm_pq_stats statistics;
  int has_offset_index;
  int64_t offset_index_offset;
  int32_t offset_index_length;
  int has_column_index;
  int64_t column_index_offset;
  int32_t column_index_length;
} pm_pq_column_chunk;

typedef struct pm_pq_row_group {
  pm_pq_column_chunk *columns;
  uint32_t n_columns;
  int64_t total_byte_size;
  int64_t num_rows;
  int has_file_offset;
  int64_t file_offset;
  int has_total_compressed_size;
  int64_t total_compressed_size;
  int has_ordinal;
  int32_t ordinal;
} pm_pq_row_group;

typedef struct pm_pq_kv {
  char *key;
  char *value; /* NULL if absent */
} pm_pq_kv;

/* Schema tree derived from the flat element list. */
typedef struct pm_pq_node {
  const pm_pq_schema_elem *elem;
  struct pm_pq_node *parent;
  struct pm_pq_node **children;
  int n_children;
  int def_level; /* max definition level at this node (counting it) */
  int rep_level; /* max repetition level at this node (counting it) */
  int leaf;      /* leaf column index, or -1 for groups */
  int depth;
} pm_pq_node;

typedef struct pm_pq_leaf {
  pm_pq_node *node;
  int max_def;
  int max_rep;
  char *path; /* dotted path of names from the root's child */
} pm_pq_leaf;

typedef struct pm_pq_meta {
  int32_t version;
  pm_pq_schema_elem *schema;
  uint32_t n_schema;
  int64_t num_rows;
  pm_pq_row_group *row_groups;
  uint32_t n_row_groups;
  pm_pq_kv *kv;
  uint32_t n_kv;
  char *created_by;
  /* derived */
  pm_pq_node *root;
  pm_pq_leaf *leaves;
  int n_leaves;
  uint64_t file_size;
  uint32_t footer_len;
  /* internal */
  uint8_t *footer;
  void *arena;
} pm_pq_meta;

#define PM_PQ_MAX_SCHEMA_DEPTH 48

/* Decodes FileMetaData from `footer` (copied) of length len; base_offset is
 * its position in the file (for messages). Validates the schema tree and
 * that each row group has one chunk per leaf. *out owned: pm_pq_meta_free. */
int pm_pq_meta_parse(const uint8_t *footer, size_t len, uint64_t base_offset, const char *path, pm_pq_meta **out,
                     pm_error *err);
/* Files up to this size are read whole by pm_pq_meta_read (pm_file_prefetch), so that opening one
 * and reading its column chunks is one read; larger files get one read of their last
 * PM_PQ_PREFETCH_TAIL bytes for the footer. */
#define PM_PQ_PREFETCH_WHOLE PM_FILE_PREFETCH_WHOLE
#define PM_PQ_PREFETCH_TAIL ((size_t)64 << 10)

/* Reads magic + footer of a file and parses it (prefetching as above: the bytes stay with f). */
int pm_pq_meta_read(pm_file *f, pm_pq_meta **out, pm_error *err);
void pm_pq_meta_free(pm_pq_meta *m);

/* Leaf index by dotted path (case-insensitive when ci) or by field id; -1 if absent. */
int pm_pq_meta_find_leaf(const pm_pq_meta *m, const char *path, int ci);
int pm_pq_meta_find_leaf_by_id(const pm_pq_meta *m, int32_t field_id);

/* ---- Page headers ---- */
typedef struct pm_pq_page_header {
  int type; /* enum pm_pq_page_type */
  int32_t uncompressed_size;
  int32_t compressed_size;
  int has_crc;
  int32_t crc;
  /* data page v1 / v2 / dictionary */
  int32_t num_values;
  int encoding;
  int def_encoding, rep_encoding; /* v1 */
  int32_t num_nulls, num_rows;    /* v2 */
  int32_t def_len, rep_len;       /* v2 */
  int is_compressed;              /* v2, default 1 */
  int has_data_header;            /* the header for `type` was present */
} pm_pq_page_header;

/* Decodes a page header from data[0..len); *consumed = header size. */
int pm_pq_page_header_parse(const uint8_t *data, size_t len, uint64_t base_offset, const char *path,
                            pm_pq_page_header *h, size_t *consumed, pm_error *err);

/* ---- Page index ---- */
typedef struct pm_pq_column_index {
  uint32_t n_pages;
  uint8_t *null_pages;     /* n_pages flags */
  pm_pq_bytes *min_values; /* point into the caller's buffer */
  pm_pq_bytes *max_values;
  int boundary_order;
  int has_null_counts;
  int64_t *null_counts;
} pm_pq_column_index;

typedef struct pm_pq_page_location {
  int64_t offset;
  int32_t compressed_page_size;
  int64_t first_row_index;
} pm_pq_page_location;

typedef struct pm_pq_offset_index {
  uint32_t n_pages;
  pm_pq_page_location *pages;
} pm_pq_offset_index;

/* Parse from a caller buffer (which must outlive the result). Free with the _free functions. */
int pm_pq_column_index_parse(const uint8_t *data, size_t len, uint64_t base_offset, const char *path,
                             pm_pq_column_index *out, pm_error *err);
void pm_pq_column_index_free(pm_pq_column_index *ci);
int pm_pq_offset_index_parse(const uint8_t *data, size_t len, uint64_t base_offset, const char *path,
                             pm_pq_offset_index *out, pm_error *err);
void pm_pq_offset_index_free(pm_pq_offset_index *oi);

const char *pm_pq_type_name(int type);
const char *pm_pq_encoding_name(int enc);
const char *pm_pq_codec_name(int codec);
const char *pm_pq_converted_name(int ct);

#endif
