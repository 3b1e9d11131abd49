/*
 * Blob files (.blob): the values of one BLOB column of a data-evolution
 * table, written next to the data file whose row-id range they share.
 *
 * Layout: records [magic cf 11 4e 58 | bytes | int64 LE record length |
 * CRC32 LE of the preceding record bytes], then the index (zigzag varints:
 * the first record's length, then the difference to the previous one; a
 * null value has no record and length -1, Java's placeholder -2 reads as
 * null too), an int32 LE index length and a version byte (1).
 *
 * The reader returns struct batches with one binary ("z") child named after
 * the column, carrying its field id as "PARQUET:field_id". The payloads of
 * a batch are read with io/coalesce.h (nearby records merged into one read
 * up to the reader's max gap / max block).
 */
#ifndef PM_FORMAT_BLOB_H
#define PM_FORMAT_BLOB_H

#include <stddef.h>
#include <stdint.h>

#include "io/file.h"
#include "paimon/arrow_c.h"
#include "util/error.h"

typedef struct pm_blob_reader pm_blob_reader;

/* Reads the index of a blob file. Takes ownership of file in every case.
 * column (copied) and field_id name the Arrow child. batch_rows <= 0: 16384. */
int pm_blob_reader_open(pm_file *file, const char *column, int32_t field_id, int64_t batch_rows,
                        pm_blob_reader **out, pm_error *err);
int64_t pm_blob_reader_num_rows(const pm_blob_reader *r);
/* Coalescing of the payload reads (file-io.read-coalesce.max-gap / .max-block; defaults 1 MiB / 8 MiB). */
void pm_blob_reader_set_coalesce(pm_blob_reader *r, uint64_t max_gap, uint64_t max_block);
int pm_blob_reader_schema(const pm_blob_reader *r, struct ArrowSchema *out, pm_error *err); /* caller releases */
/* Next batch (caller owns it); at the end status 0 with out->release == NULL. */
int pm_blob_reader_next(pm_blob_reader *r, struct ArrowArray *out, pm_error *err);
void pm_blob_reader_close(pm_blob_reader *r); /* NULL ok */

typedef struct pm_blob_writer pm_blob_writer;

/* Starts a blob file on an output sink (io/file.h), which the writer owns from the call on (also
 * when it fails): close commits it, abort discards it. */
int pm_blob_writer_open_sink(pm_out_file *sink, pm_blob_writer **out, pm_error *err);
/* Convenience: pm_blob_writer_open_sink on a new sink for path on the local fs. */
int pm_blob_writer_open(const char *path, pm_blob_writer **out, pm_error *err);
/* Appends the values of a binary/string array ("z", "u", "Z", "U"; borrowed); nulls as nulls. */
int pm_blob_writer_write(pm_blob_writer *w, const struct ArrowArray *values, const char *format, pm_error *err);
/* One value: len bytes at p (a record), or a null (no record, index length -1). */
int pm_blob_writer_put(pm_blob_writer *w, const uint8_t *p, size_t len, pm_error *err);
int pm_blob_writer_put_null(pm_blob_writer *w, pm_error *err);
uint64_t pm_blob_writer_pos(const pm_blob_writer *w); /* bytes of records so far (Java's getPos) */
int64_t pm_blob_writer_rows(const pm_blob_writer *w);
/* Writes the index and commits the file; frees w in every case. */
int pm_blob_writer_close(pm_blob_writer *w, uint64_t *file_size, pm_error *err);
void pm_blob_writer_abort(pm_blob_writer *w); /* NULL ok */

#endif
