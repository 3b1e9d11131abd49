/*
 * Data-file indexes (FORMAT.md 7.6; Java's FileIndexFormat and its bloom-filter,
 * bitmap and bsi indexes): the container that `file-index.<type>.columns`
 * writers embed in a DataFileMeta (`_EMBEDDED_FILE_INDEX`) or store as
 * `<data file>.index` (listed in `_EXTRA_FILES`), its decoding, the test of a
 * filter against it, and the writer that builds it from the rows of one data
 * file.
 *
 * Decoding is bounds-checked over untrusted bytes (the `_safe` functions):
 * every length and offset is checked against the bytes given; a container
 * holds at most PM_FIDX_MAX_ENTRIES (column, index) entries; bitmaps are
 * read with CRoaring's portable deserializer limited to the bytes left.
 * Damage is PAIMON_ERR_CORRUPT naming `what` (the file) and the column.
 *
 * Index types this code does not know (e.g. range-bitmap) are ignored when
 * testing: they never prune.
 */
#ifndef PM_META_FILEINDEX_H
#define PM_META_FILEINDEX_H

#include <stddef.h>
#include <stdint.h>

#include "data/predicate.h"
#include "data/types.h"
#include "meta/schema.h"
#include "paimon/arrow_c.h"
#include "util/buf.h"
#include "util/error.h"

#define PM_FIDX_MAX_ENTRIES 65536

/* Index type names as Java writes them in the container. */
#define PM_FIDX_BLOOM "bloom-filter"
#define PM_FIDX_BITMAP "bitmap"
#define PM_FIDX_BSI "bsi"

/* Suffix of stand-alone index files: "<data file>.index". */
#define PM_FIDX_FILE_SUFFIX ".index"

typedef struct pm_fidx_entry {
  const uint8_t *column; /* Java modified UTF-8 (points into the container) */
  size_t column_len;
  const uint8_t *type;
  size_t type_len;
  int32_t start, length; /* absolute in the container; start -1 = empty index */
} pm_fidx_entry;

/* A parsed container; borrows the bytes given to pm_fidx_open_safe. */
typedef struct pm_fidx {
  const uint8_t *data;
  size_t len;
  pm_fidx_entry *entries; /* owned */
  size_t n;
  const char *what;
} pm_fidx;

int pm_fidx_open_safe(const uint8_t *data, size_t len, const char *what, pm_fidx *out, pm_error *err);
void pm_fidx_clear(pm_fidx *ix);

/* A column as the data file stores it: its name in the file's schema and its
 * type there; name NULL when the file lacks the column. */
typedef struct pm_fidx_col {
  const char *name;
  const pm_data_type *type;
} pm_fidx_col;

/* Tests filter p (leaves' field_index index cols[]) against the index of a
 * file of row_count rows, as Java's FileIndexPredicate: *remain = 0 when the
 * index proves that no row matches. */
int pm_fidx_test(const pm_fidx *ix, const pm_predicate *p, const pm_fidx_col *cols, size_t n_cols, int64_t row_count,
                 int *remain, pm_error *err);

/* ---- writing ---- */

typedef struct pm_fidx_writer pm_fidx_writer;

/* 1 when the options declare some `file-index.<type>.columns`. */
int pm_fidx_options_declared(const pm_options *opts);

/* Validates the file-index options against the row type written (the same
 * checks pm_fidx_writer_new does), without building a writer. */
int pm_fidx_options_validate(const pm_options *opts, const pm_data_field *fields, size_t n_fields, pm_error *err);

/* A writer for one data file whose rows have the given fields (Java's
 * DataFileIndexWriter): *out NULL when no index is declared. Errors name the
 * option key (unknown column, unsupported type, bad option value). */
int pm_fidx_writer_new(const pm_options *opts, const pm_data_field *fields, size_t n_fields, pm_fidx_writer **out,
                       pm_error *err);
/* Adds the rows of a struct batch whose children first_child + i hold field i. */
int pm_fidx_writer_add(pm_fidx_writer *w, const struct ArrowSchema *schema, const struct ArrowArray *batch,
                       size_t first_child, pm_error *err);
/* The container bytes of everything added (Java's byte order); out is appended to. */
int pm_fidx_writer_finish(pm_fidx_writer *w, pm_buf *out, pm_error *err);
void pm_fidx_writer_free(pm_fidx_writer *w); /* NULL ok */

/* ---- internal to the fileindex_*.c files ---- */

/* Result of one index for one leaf, as Java's FileIndexResult. */
typedef struct pm_fidx_result {
  int kind;   /* PM_FIDX_REMAIN, PM_FIDX_SKIP, PM_FIDX_ROWS */
  void *rows; /* roaring_bitmap_t * for PM_FIDX_ROWS (owned) */
} pm_fidx_result;
enum { PM_FIDX_REMAIN = 0, PM_FIDX_SKIP = 1, PM_FIDX_ROWS = 2 };

int pm_fidx_bloom_test(const uint8_t *b, size_t n, const pm_data_type *t, const pm_predicate *leaf,
                       pm_fidx_result *out, const char *what, pm_error *err);
int pm_fidx_bitmap_test(const uint8_t *b, size_t n, const pm_data_type *t, const pm_predicate *leaf,
                        pm_fidx_result *out, const char *what, pm_error *err);
int pm_fidx_bsi_test(const uint8_t *b, size_t n, const pm_data_type *t, const pm_predicate *leaf,
                     pm_fidx_result *out, const char *what, pm_error *err);

/* Per-column index builders (one column, one type). */
typedef struct pm_fidx_col_writer pm_fidx_col_writer;
typedef struct pm_fidx_col_writer_ops {
  int (*add)(pm_fidx_col_writer *w, const pm_value *v, pm_error *err); /* v NULL kind = null */
  int (*finish)(pm_fidx_col_writer *w, pm_buf *out, pm_error *err);
  void (*free)(pm_fidx_col_writer *w);
} pm_fidx_col_writer_ops;
struct pm_fidx_col_writer {
  const pm_fidx_col_writer_ops *ops;
};

/* Options of one (column, index type): raw "<opt>" -> value pairs. */
typedef struct pm_fidx_opts {
  const char **keys, **values;
  size_t n;
} pm_fidx_opts;
const char *pm_fidx_opt(const pm_fidx_opts *o, const char *key);

int pm_fidx_bloom_writer_new(const pm_data_type *t, const pm_fidx_opts *o, const char *column,
                             pm_fidx_col_writer **out, pm_error *err);
int pm_fidx_bitmap_writer_new(const pm_data_type *t, const pm_fidx_opts *o, const char *column,
                              pm_fidx_col_writer **out, pm_error *err);
int pm_fidx_bsi_writer_new(const pm_data_type *t, const pm_fidx_opts *o, const char *column,
                           pm_fidx_col_writer **out, pm_error *err);

/* Iteration order of a new java.util.HashMap into which n distinct keys with
 * the given hashCodes were inserted in index order, by put (appended to their
 * bin, resize after the insert) or by computeIfAbsent (prepended, resize
 * before it); the resize that a long bin forces below capacity 64 is
 * modelled, bins that Java turns into trees (64+) keep list order here.
 * order[] receives indices. */
int pm_java_hash_order(const int32_t *hashes, size_t n, int compute_if_absent, size_t *order, pm_error *err);
/* Appends a roaring_bitmap_t as Java's RoaringBitmap.runOptimize() + serialize() writes it. */
int pm_fidx_roaring_serialize(const void *bitmap, pm_buf *out, pm_error *err);
/* Java's BinaryString.hashCode of UTF-8 bytes. */
int32_t pm_java_binary_string_hash(const uint8_t *s, size_t n);

#endif
