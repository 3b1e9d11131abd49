/* libFuzzer target: arbitrary bytes as JSON lines read into a nested Arrow batch. Whatever the reader accepts must
 * validate, go through every printer and kernel, and print -> read -> print must be a fixed point. */
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

#include "../tests/arrow/json_roundtrip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static pm_type type;
  static int ready = 0;
  pm_error err;
  if (!ready) {
    if (jrt_type(&type, &err)) abort();
    ready = 1;
  }
  const char *why;
  if (jrt_check(&type, (const char *)data, size, &why)) {
    fprintf(stderr, "property violated: %s\n", why);
    abort();
  }
  return 0;
}
