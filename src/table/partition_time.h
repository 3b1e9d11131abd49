/*
 * Time of a partition from its values (Java's PartitionTimeExtractor), for
 * partition expiry's values-time strategy (table/partition_expire.h).
 *
 * partition.timestamp-pattern: "$key" placeholders replaced by the values (longer
 * keys first, so "$dt" does not match inside "$dt1"); unset = the first value.
 * partition.timestamp-formatter: a java.time DateTimeFormatter pattern, parsed with
 * Java's SMART resolver (day clamped to the month's length): letters y u (year),
 * M (month number, one or two letters), d, H, m, s, S (fraction); '...' quoted text,
 * '' a quote, every other non-letter character literal; a variable-width number
 * followed directly by fixed-width ones leaves their digits to them ("yyyyMMdd").
 * Other letters are INVALID_ARGUMENT at compile time (text months, era, zones,
 * am/pm are not supported; Java would accept some of them). Without a time of day
 * the time is midnight (Java's LocalDate fallback). unset = Java's default
 * "y-M-d[ H:m:s[.fraction]]" parsed leniently (month 13 = January of the next year).
 * The whole text must be consumed.
 *
 * Times are local date-times: seconds since 1970-01-01T00:00 (no zone) plus nanos.
 * Layer: table (no I/O).
 */
#ifndef PM_TABLE_PARTITION_TIME_H
#define PM_TABLE_PARTITION_TIME_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"

typedef struct pm_local_time {
  int64_t seconds; /* since 1970-01-01T00:00 local */
  int32_t nanos;   /* 0..999999999 */
} pm_local_time;

/* -1, 0, 1 as a is before, equal to, after b. */
int pm_local_time_cmp(pm_local_time a, pm_local_time b);
/* The local time of ms milliseconds since 1970-01-01T00:00 local. */
pm_local_time pm_local_time_of_millis(int64_t ms);

typedef struct pm_ptime_format pm_ptime_format;

/* Compiles a formatter (NULL = Java's default lenient one). A bad or unsupported
 * pattern is INVALID_ARGUMENT naming partition.timestamp-formatter and the letter. */
int pm_ptime_format_compile(const char *formatter, pm_ptime_format **out, pm_error *err);
void pm_ptime_format_free(pm_ptime_format *f); /* NULL ok */

/* Parses text: 0 and *out, or PAIMON_ERR_INVALID_ARGUMENT when it does not parse
 * (Java's DateTimeParseException; err names the text, may be NULL). */
int pm_ptime_parse(const pm_ptime_format *f, const char *text, pm_local_time *out, pm_error *err);

/* The timestamp text of a partition: pattern (NULL = values[0]) with $key replaced.
 * A value it uses that is NULL (a null partition value) gives PAIMON_ERR_INVALID_ARGUMENT
 * (Java: NullPointerException, the partition is not expired). *out malloc'd. */
int pm_ptime_text(const char *pattern, const char *const *keys, const char *const *values, size_t n, char **out,
                  pm_error *err);

#endif
