/*
 * Low-level formatters of the printers' value encoding (see print.h). No NUL
 * terminator is added; each returns the bytes written. Buffers must hold at
 * least 48 bytes.
 */
#ifndef PM_PRINT_H_FORMAT_H
#define PM_PRINT_H_FORMAT_H

#include <stdint.h>

#include "arrow/type.h"

int pm_format_u64(uint64_t v, char *buf);
int pm_format_i64(int64_t v, char *buf);
/* Shortest text that reads back as the same value; NaN/Infinity/-Infinity for non-finite values. */
int pm_format_double(double v, char *buf);
int pm_format_float(float v, char *buf);
/* A little-endian 128-bit two's complement unscaled value with exactly `scale` fraction digits. */
int pm_format_decimal128(const uint8_t bytes16[16], int32_t scale, char *buf);
/* Days since 1970-01-01 as YYYY-MM-DD (proleptic Gregorian). */
int pm_format_date(int64_t days, char *buf);
/* fraction_digits < 0: as many as the unit has. */
int pm_format_time(int64_t value, pm_time_unit unit, int fraction_digits, char *buf);
int pm_format_timestamp(int64_t value, pm_time_unit unit, int fraction_digits, int zoned, char *buf);

/* Floor division (b > 0), no overflow even for INT64_MIN. */
int64_t pm_floordiv(int64_t a, int64_t b);

#endif
