/*
 * ORC writer: Arrow batches in, an ORC file out, laid out as Java Paimon
 * writes `file.format = orc` (ZSTD by default, RLE v2 encodings, row index
 * every 10000 rows, column statistics, field ids as type attribute paimon.id).
 *
 * The file appears complete or not at all: it is written to an output sink
 * (io/file.h) only committed by pm_orc_writer_close.
 *
 * Accepted Arrow types: those pm_orc_reader produces ("b","c","s","i","l",
 * "f","g","d:p,s","tdD","u","z","ts?:"/"ts?:<zone>","+l","+m","+s"), plus
 * "U"/"Z" (large string/binary) and "tdm". Field metadata "PARQUET:field_id"
 * becomes the ORC attribute paimon.id. A timestamp with a non-empty zone is
 * written as TIMESTAMP_INSTANT (Paimon TIMESTAMP WITH LOCAL TIME ZONE).
 * A string field with metadata "ORC:type" = "char(N)" or "varchar(N)" is
 * written as ORC CHAR(N) (space-padded) / VARCHAR(N) (truncated), as Java
 * Paimon does for CHAR/VARCHAR columns.
 */
#ifndef PM_FORMAT_ORC_WRITER_H
#define PM_FORMAT_ORC_WRITER_H

#include <stddef.h>
#include <stdint.h>

#include "io/file.h"
#include "paimon/arrow_c.h"
#include "util/compress.h"
#include "util/error.h"

typedef struct pm_orc_writer_options {
  pm_codec codec;             /* NONE, DEFLATE (ORC ZLIB), SNAPPY, LZ4_RAW, ZSTD; default ZSTD */
  int compression_level;      /* 0 = codec default */
  uint64_t compression_block_size; /* 0 = 256 KiB */
  uint64_t stripe_size;       /* bytes of buffered column data per stripe (bounds memory); 0 = 64 MiB */
  uint32_t row_index_stride;  /* 0 = 10000 */
  int create_if_absent;       /* close publishes with PM_OUT_CREATE_IF_ABSENT (CONFLICT if the name exists) */
  /* Per-type-name extra attributes are not supported; field ids come from the schema. */
} pm_orc_writer_options;

void pm_orc_writer_options_init(pm_orc_writer_options *o);

typedef struct pm_orc_writer pm_orc_writer;

/* Starts writing an output sink (io/file.h) with the columns of `schema` (a struct "+s";
 * copied). The writer owns the sink from the call on (also when it fails): close commits it,
 * abort discards it. *out is owned by the caller: finish with pm_orc_writer_close or
 * pm_orc_writer_abort. */
int pm_orc_writer_open_sink(pm_out_file *sink, const struct ArrowSchema *schema, const pm_orc_writer_options *options,
                            pm_orc_writer **out, pm_error *err);
/* Convenience: pm_orc_writer_open_sink on a new sink for path on the local fs. */
int pm_orc_writer_open(const char *path, const struct ArrowSchema *schema, const pm_orc_writer_options *options,
                       pm_orc_writer **out, pm_error *err);
/* Appends the rows of a struct batch matching the schema (the batch stays owned by the caller). */
int pm_orc_writer_write(pm_orc_writer *w, const struct ArrowArray *batch, pm_error *err);
/* Writes the last stripe and the tail, commits the file and frees w (in every case).
 * For the file's column statistics (manifest min/max/null counts), open it
 * with pm_orc_reader and use pm_orc_reader_file_stats, as Java Paimon reads
 * them back from the footer. */
int pm_orc_writer_close(pm_orc_writer *w, pm_error *err);
/* pm_orc_writer_close that also gives the committed file's size (*file_size, may be NULL). */
int pm_orc_writer_finish(pm_orc_writer *w, uint64_t *file_size, pm_error *err);
/* Discards the file and frees w. NULL ok. */
void pm_orc_writer_abort(pm_orc_writer *w);

uint64_t pm_orc_writer_num_rows(const pm_orc_writer *w);
/* Bytes written so far (the final file size after a successful close is returned by close's caller via stat). */
uint64_t pm_orc_writer_bytes_written(const pm_orc_writer *w);
/* Bytes of column data buffered for the current stripe (not yet written). */
uint64_t pm_orc_writer_buffered_bytes(const pm_orc_writer *w);

#endif
