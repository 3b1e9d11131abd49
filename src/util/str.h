/* Small string helpers shared by every layer (the one strdup / free-list of the library). */
#ifndef PM_UTIL_STR_H
#define PM_UTIL_STR_H

#include <stddef.h>

/* malloc'd copy of s; NULL when s is NULL or out of memory. Free with free(). */
char *pm_strdup(const char *s);
/* malloc'd copy of the n bytes at s plus a NUL; NULL when out of memory. */
char *pm_strndup(const char *s, size_t n);
/* Copies of n strings (each pm_strdup, NULL entries stay NULL) in a new array;
 * NULL when n == 0 or out of memory (nothing is left allocated then). */
char **pm_strings_dup(char *const *src, size_t n);
/* Frees v[0..n) and v. NULL ok. */
void pm_strings_free(char **v, size_t n);

#endif
