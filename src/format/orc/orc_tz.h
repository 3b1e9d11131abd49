/* Internal: UTC offsets of the writer time zone named in ORC stripe footers,
 * from the system TZif database ($TZDIR or /usr/share/zoneinfo). */
#ifndef PM_FORMAT_ORC_TZ_H
#define PM_FORMAT_ORC_TZ_H

#include <stddef.h>
#include <stdint.h>

typedef struct pm_orc_tz {
  char name[64];
  int utc;          /* UTC/GMT or unknown zone: every offset is 0 */
  size_t n;         /* transitions */
  int64_t *times;   /* transition instants (epoch seconds), ascending */
  int32_t *offsets; /* offset in effect from times[i] */
  int32_t initial;  /* offset before the first transition */
} pm_orc_tz;

/* Loads zone `name` into tz (replacing previous contents). Unknown or
 * unreadable zones load as UTC and return 1; 0 when found. */
int pm_orc_tz_load(pm_orc_tz *tz, const char *name);
void pm_orc_tz_free(pm_orc_tz *tz);
/* Offset (seconds east of UTC) in effect at instant t. */
int32_t pm_orc_tz_offset(const pm_orc_tz *tz, int64_t t);
/* Offset for a local wall-clock time (seconds since epoch as if UTC). */
int32_t pm_orc_tz_offset_local(const pm_orc_tz *tz, int64_t local);

#endif
