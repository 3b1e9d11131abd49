/* The write builder's signal (write.h pm_write_signal). */
#include <stdatomic.h>
#include <stdlib.h>

#include "table/write.h"

struct pm_write_signal {
  atomic_int refs;
  atomic_uint_fast64_t value;
};

pm_write_signal *pm_write_signal_new(void) {
  pm_write_signal *s = malloc(sizeof *s);
  if (!s) return NULL;
  atomic_init(&s->refs, 1);
  atomic_init(&s->value, 0);
  return s;
}

pm_write_signal *pm_write_signal_retain(pm_write_signal *s) {
  if (s) atomic_fetch_add(&s->refs, 1);
  return s;
}

void pm_write_signal_release(pm_write_signal *s) {
  if (s && atomic_fetch_sub(&s->refs, 1) == 1) free(s);
}

void pm_write_signal_bump(pm_write_signal *s) {
  if (s) atomic_fetch_add(&s->value, 1);
}

uint64_t pm_write_signal_value(const pm_write_signal *s) {
  return s ? (uint64_t)atomic_load(&((pm_write_signal *)s)->value) : 0;
}
