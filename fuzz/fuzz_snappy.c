/* libFuzzer target: our raw Snappy decoder (util/snappy_decode.c) against
 * libsnappy's. Both must accept and reject the same streams and produce the
 * same bytes. First input byte: odd = the rest is raw data, compressed with
 * libsnappy and then (if the byte's bit 1 is set) damaged at one position
 * derived from the input, so valid and nearly-valid streams are explored
 * deeply; even = the rest is a snappy stream as is. Odd with bit 2 set: the
 * rest first becomes INT64-column-like data (see below). */
#include <snappy-c.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "util/snappy_decode.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

#define MAX_OUTPUT ((size_t)1 << 22)

static void compare(const uint8_t *stream, size_t len) {
  size_t declared = 0, produced = 0;
  int header_ok = snappy_uncompressed_length((const char *)stream, len, &declared) == SNAPPY_OK;
  if (header_ok && declared > MAX_OUTPUT) { /* too big to compare: ours must say it does not fit */
    uint8_t small[64];
    if (pm_snappy_decompress(stream, len, small, sizeof small, &produced) == PM_SNAPPY_OK) abort();
    return;
  }
  size_t capacity = header_ok ? declared : 64;
  char *lib = malloc(capacity + 1);
  uint8_t *ours = malloc(capacity + 1);
  if (!lib || !ours) abort();
  size_t lib_len = capacity;
  int lib_ok = header_ok && snappy_uncompress((const char *)stream, len, lib, &lib_len) == SNAPPY_OK;
  int rc = pm_snappy_decompress(stream, len, ours, capacity, &produced);
  if ((rc == PM_SNAPPY_OK) != lib_ok) {
    fprintf(stderr, "verdicts differ: libsnappy %s, ours %s\n", lib_ok ? "accepts" : "rejects",
            pm_snappy_status_text(rc));
    abort();
  }
  if (lib_ok && (produced != lib_len || memcmp(ours, lib, lib_len) != 0)) {
    fprintf(stderr, "outputs differ\n");
    abort();
  }
  free(lib);
  free(ours);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  if (size == 0) return 0;
  uint8_t mode = data[0];
  data++;
  size--;
  if (!(mode & 1)) {
    compare(data, size);
    return 0;
  }
  const uint8_t *raw = data;
  size_t raw_len = size;
  uint8_t *column = NULL;
  if (mode & 4) {
    /* Column-like data, as Parquet INT64 pages hold: one 8-byte value per
     * input byte, each the previous one plus that byte as a signed delta
     * (runs of values differing in their low bytes only). */
    column = malloc(size * 8 + 8);
    if (!column) abort();
    uint64_t v = 0;
    if (size >= 8) memcpy(&v, data, 8);
    for (size_t i = 0; i < size; i++) {
      v += (uint64_t)(int64_t)(int8_t)data[i];
      memcpy(column + 8 * i, &v, 8);
    }
    raw = column;
    raw_len = size * 8;
  }
  size_t cap = snappy_max_compressed_length(raw_len);
  char *comp = malloc(cap + 1);
  if (!comp) abort();
  size_t clen = cap;
  if (snappy_compress((const char *)raw, raw_len, comp, &clen) != SNAPPY_OK) abort();
  if ((mode & 2) && clen > 0 && size >= 4) {
    uint32_t where;
    memcpy(&where, data, 4);
    comp[where % clen] ^= (char)(mode | 1);
  }
  compare((const uint8_t *)comp, clen);
  free(comp);
  free(column);
  return 0;
}
