/*
 * Time zones: UTC, fixed offsets and IANA zones read from the system TZif
 * database ($TZDIR, else /usr/share/zoneinfo), for the session time zone of
 * casts (table/evolution.h), the writer zone of ORC timestamps and zoned
 * timestamp literals. The one TZif reader of the library.
 *
 * The process's local zone follows the C library's rule (as Java's JVM
 * default zone does): TZ when set ("" = UTC, a leading ':' is ignored, an
 * absolute path names a TZif file, else a zone name as pm_tz_load takes or a
 * POSIX "STDoffset" string without DST rules), else /etc/localtime, else UTC.
 * A TZ that names no readable zone is UTC (Java: GMT).
 *
 * Ownership: every pm_tz is owned by the caller of the load function and
 * freed with pm_tz_free. A loaded zone is immutable (safe to share between
 * threads).
 */
#ifndef PM_UTIL_TZ_H
#define PM_UTIL_TZ_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct pm_tz pm_tz;

/* Loads a zone by name: NULL, "", "UTC", "GMT", "Z", "Etc/UTC" are UTC; a
 * fixed offset "+08:00", "-0330", "UTC+8", "GMT-03:30"; else an IANA name.
 * Unknown names are PAIMON_ERR_NOT_FOUND, malformed ones
 * PAIMON_ERR_INVALID_ARGUMENT, damaged TZif files PAIMON_ERR_CORRUPT. */
int pm_tz_load(const char *name, pm_tz **out, pm_error *err);
/* The process's local zone (rule above); fails only when out of memory. */
int pm_tz_load_local(pm_tz **out, pm_error *err);
/* A zone from TZif bytes (v1, or the 64-bit section of v2+); label names it in errors. */
int pm_tz_from_tzif(const uint8_t *data, size_t len, const char *label, pm_tz **out, pm_error *err);
void pm_tz_free(pm_tz *tz); /* NULL ok */

/* 1 if every offset of the zone is 0 (NULL is UTC). */
int pm_tz_is_utc(const pm_tz *tz);
/* Offset (seconds east of UTC) in effect at a UTC instant. NULL = UTC. */
int32_t pm_tz_offset_at_utc(const pm_tz *tz, int64_t utc_seconds);
/* UTC seconds of a local wall-clock time (java.time rules: a gap time moves
 * forward by the gap, an overlap takes the earlier offset). NULL = UTC. */
int64_t pm_tz_local_to_utc(const pm_tz *tz, int64_t local_seconds);

/* Parses a fixed UTC offset "+08:00", "+0800", "+8", "-03:30", "Z" (whole
 * text) into seconds east of UTC. 0 or -1. */
int pm_tz_parse_offset(const char *s, size_t n, int32_t *seconds);

#endif
