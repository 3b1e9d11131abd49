/* UTF-8 helpers shared by the formats, stats and predicates (the one UTF-8 encoder of the library). */
#ifndef PM_UTIL_UTF8_H
#define PM_UTIL_UTF8_H

#include <stddef.h>
#include <stdint.h>

/* Writes code point cp (<= 0x10FFFF) to out (4 bytes room); returns the bytes written (1..4). */
size_t pm_utf8_encode(uint32_t cp, uint8_t *out);
/* Length of the sequence a lead byte starts, judged by that byte alone: 1..4 (1 for a byte that
 * cannot lead a sequence). */
size_t pm_utf8_lead_len(uint8_t lead);
/* Code point of a sequence of len (1..4) bytes, bits taken as they are (no validation). */
uint32_t pm_utf8_decode(const uint8_t *p, size_t len);
/* Length (1..4) of the well-formed UTF-8 sequence at p (n > 0 bytes left), 0 when ill-formed
 * (Unicode 3.9: no overlong forms, surrogates or values past U+10FFFF). */
size_t pm_utf8_valid_seq(const uint8_t *p, size_t n);
/* 1 if p[0..n) is well-formed UTF-8; else 0 and *bad_at (if not NULL) = offset of the first bad sequence. */
int pm_utf8_valid(const uint8_t *p, size_t n, size_t *bad_at);
/* 1 when p[0, n) is all ASCII (then every split of it is valid UTF-8), 8 bytes at a time. */
int pm_utf8_all_ascii(const uint8_t *p, size_t n);

#endif
