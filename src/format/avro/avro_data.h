/*
 * Avro data files (Paimon `file.format = avro`) -> Arrow batches.
 *
 * Avro's own schema does not say everything Paimon's types do (CHAR vs
 * STRING, decimal precision, timestamp with or without a zone), so columns
 * are typed by the schema the file was written with, given as Arrow
 * (data_schema: "+s" whose children carry "PARQUET:field_id" metadata):
 * an Avro field takes the type and id of the data_schema child of the same
 * name; fields without one (e.g. the _KEY_ copies of primary keys) are
 * skipped. Batches are struct arrays of the returned fields in file order.
 */
#ifndef PM_FORMAT_AVRO_DATA_H
#define PM_FORMAT_AVRO_DATA_H

#include <stddef.h>
#include <stdint.h>

#include "io/file.h"
#include "paimon/arrow_c.h"
#include "util/error.h"

typedef struct pm_avro_data_options {
  const struct ArrowSchema *data_schema; /* borrowed during open; NULL: no field is typed */
  /* Projection by field id, or NULL for every typed field. When none of the
   * ids is found, every typed field is returned (the caller maps by name). */
  const int32_t *field_ids;
  size_t n_field_ids;
  int64_t batch_rows; /* <= 0: 16384 */
  /* n_row_ranges pairs [start, end) of record positions, sorted; NULL = all (copied) */
  const int64_t *row_ranges;
  size_t n_row_ranges;
} pm_avro_data_options;

typedef struct pm_avro_data_reader pm_avro_data_reader;

/* Takes ownership of file in every case. *out: pm_avro_data_close. */
int pm_avro_data_open(pm_file *file, const pm_avro_data_options *o, pm_avro_data_reader **out, pm_error *err);
/* Arrow schema of the batches; caller releases *out. */
int pm_avro_data_schema(const pm_avro_data_reader *r, struct ArrowSchema *out, pm_error *err);
/* Next batch (caller owns it); at the end status 0 with out->release == NULL. */
int pm_avro_data_next(pm_avro_data_reader *r, struct ArrowArray *out, pm_error *err);
void pm_avro_data_close(pm_avro_data_reader *r); /* NULL ok */



/* ---- writing Arrow batches as an Avro data file ----
 * Columns of boolean, int8/16/32 (Avro int), int64 (long), float,
 * double, string, binary (also large), date32 (int date), time32 ms (int
 * time-millis), timestamp s/ms (long timestamp-millis; with a zone, i.e.
 * TIMESTAMP WITH LOCAL TIME ZONE, local-timestamp-millis, as Java Paimon
 * writes them), us (-micros), decimal128 (bytes decimal, minimal
 * two's complement), and nested: struct (record "<parent>_<field>"), list /
 * large list / fixed-size list (array), map with string keys (Avro map),
 * other maps (array of {key, value} records, logicalType "map"), as Java's
 * AvroSchemaConverter. A nullable field is the union ["null", T].
 * Timestamps in ns (Java refuses TIMESTAMP(7..9) for Avro) and other types
 * are PAIMON_ERR_UNSUPPORTED naming the column. */
typedef struct pm_avro_data_writer pm_avro_data_writer;

/* On an output sink (io/file.h), which the writer owns from the call on (also when it fails):
 * close commits it, abort discards it. schema: "+s" (borrowed during the call). codec:
 * PM_CODEC_ZSTD, NONE, DEFLATE or SNAPPY; level 0 = default. */
int pm_avro_data_writer_open_sink(pm_out_file *sink, const struct ArrowSchema *schema, int codec, int level,
                                  pm_avro_data_writer **out, pm_error *err);
/* Convenience: pm_avro_data_writer_open_sink on a new sink for path on the local fs. */
int pm_avro_data_writer_open(const char *path, const struct ArrowSchema *schema, int codec, int level,
                             pm_avro_data_writer **out, pm_error *err);
int pm_avro_data_writer_write(pm_avro_data_writer *w, const struct ArrowArray *batch, pm_error *err);
/* Commits the file; frees w in every case. */
int pm_avro_data_writer_close(pm_avro_data_writer *w, uint64_t *file_size, pm_error *err);
void pm_avro_data_writer_abort(pm_avro_data_writer *w); /* NULL ok */

#endif
