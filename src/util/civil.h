/* Proleptic Gregorian calendar arithmetic (as java.time; H. Hinnant's algorithms) and floor
 * division, shared by casts, predicates and JSON parsing. */
#ifndef PM_UTIL_CIVIL_H
#define PM_UTIL_CIVIL_H

#include <stdint.h>

/* a / b rounded toward negative infinity (b > 0). */
static inline int64_t pm_floor_div(int64_t a, int64_t b) {
  int64_t q = a / b;
  if ((a % b != 0) && ((a < 0) != (b < 0))) q--;
  return q;
}
static inline int64_t pm_floor_mod(int64_t a, int64_t b) { return a - pm_floor_div(a, b) * b; }

/* Days since 1970-01-01 of year y, month m (1..12), day d (1..31). */
static inline int64_t pm_days_from_civil(int64_t y, int m, int d) {
  y -= m <= 2;
  int64_t era = pm_floor_div(y, 400);
  int64_t yoe = y - era * 400;
  int64_t doy = (153 * (m + (m > 2 ? -3 : 9)) + 2) / 5 + d - 1;
  int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

/* Year, month (1..12) and day (1..31) of days since 1970-01-01. */
static inline void pm_civil_from_days(int64_t z, int64_t *y, int *m, int *d) {
  z += 719468;
  int64_t era = pm_floor_div(z, 146097);
  int64_t doe = z - era * 146097;
  int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  int64_t mp = (5 * doy + 2) / 153;
  *d = (int)(doy - (153 * mp + 2) / 5 + 1);
  *m = (int)(mp < 10 ? mp + 3 : mp - 9);
  *y = yoe + era * 400 + (*m <= 2);
}

#endif
