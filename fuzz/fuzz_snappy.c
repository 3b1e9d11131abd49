/* libFuzzer target: our raw Snappy decoder (util/snappy_decode.c) against
 * libsnappy's. Both must accept and reject the same streams and produce the
 * same bytes. First input byte: odd = the rest is raw data, compressed with
 * libsnappy and then (if the byte's bit 1 is set) damaged at one position
 * derived from the input, so valid and nearly-valid streams are explored
 * deeply; even = the rest is a snappy stream as is. */
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
  size_t cap = snappy_max_compressed_length(size);
  char *comp = malloc(cap + 1);
  if (!comp) abort();
  size_t clen = cap;
  if (snappy_compress((const char *)data, size, comp, &clen) != SNAPPY_OK) abort();
  if ((mode & 2) && clen > 0 && size >= 4) {
    uint32_t where;
    memcpy(&where, data, 4);
    comp[where % clen] ^= (char)(mode | 1);
  }
  compare((const uint8_t *)comp, clen);
  free(comp);
  return 0;
}
