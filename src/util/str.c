#include "util/str.h"

#include <stdlib.h>
#include <string.h>

char *pm_strdup(const char *s) { return s ? pm_strndup(s, strlen(s)) : NULL; }

char *pm_strndup(const char *s, size_t n) {
  char *d = malloc(n + 1);
  if (!d) return NULL;
  if (n) memcpy(d, s, n);
  d[n] = 0;
  return d;
}

char **pm_strings_dup(char *const *src, size_t n) {
  if (!n) return NULL;
  char **out = calloc(n, sizeof *out);
  if (!out) return NULL;
  for (size_t i = 0; i < n; i++)
    if (src[i] && !(out[i] = pm_strdup(src[i]))) {
      pm_strings_free(out, i);
      return NULL;
    }
  return out;
}

void pm_strings_free(char **v, size_t n) {
  if (!v) return;
  for (size_t i = 0; i < n; i++) free(v[i]);
  free(v);
}
