/*
 * Display width of UTF-8 text in terminal columns, for the table layout:
 * East Asian wide and fullwidth characters (CJK, Hangul, kana, fullwidth
 * forms, most emoji) take 2 columns, combining marks and format characters 0,
 * everything else 1 (control characters too: the table shows them as a
 * blank). Our own tables of the common Unicode blocks (no locale, no
 * wcwidth(3) dependency). Invalid UTF-8 bytes count as one column each.
 */
#ifndef PM_PRINT_H_WIDTH_H
#define PM_PRINT_H_WIDTH_H

#include <stddef.h>
#include <stdint.h>

int pm_print_cp_width(uint32_t cp);
/* Decodes one code point at s (n > 0 bytes remain); returns its byte length
 * (1 with U+FFFD for an invalid byte). */
size_t pm_print_utf8_next(const uint8_t *s, size_t n, uint32_t *cp);
int pm_print_text_width(const uint8_t *s, size_t n);
/* Byte length of the longest prefix of s that is at most `cols` columns wide
 * (its width in *used). */
size_t pm_print_prefix_fitting(const uint8_t *s, size_t n, int cols, int *used);
/* Byte offset where the longest suffix of s at most `cols` wide starts (its
 * width in *used). */
size_t pm_print_suffix_fitting(const uint8_t *s, size_t n, int cols, int *used);

#endif
