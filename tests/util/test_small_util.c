/* util/tz.h, util/str.h, util/utf8.h: the shared small mechanisms. */
#include <stdlib.h>

#include <string.h>

#include "harness.h"
#include "util/error.h"
#include "util/str.h"
#include "util/tz.h"
#include "util/utf8.h"

static void test_error_prefix(void) {
  pm_error e = {0};
  pm_errorf(&e, PAIMON_ERR_IO, "injected I/O error");
  CHECK(pm_error_prefix(&e, "file %s", "a.parquet") == PAIMON_ERR_IO);
  CHECK_MSG(!strcmp(e.message, "file a.parquet: injected I/O error"), "got '%s'", e.message);
  pm_error_prefix(&e, "table %s: ", "db.t"); /* the caller's own separator is kept */
  CHECK_MSG(!strcmp(e.message, "table db.t: file a.parquet: injected I/O error"), "got '%s'", e.message);
  pm_error_prefix(&e, "file %s", "a.parquet"); /* context already given: unchanged */
  CHECK_MSG(!strcmp(e.message, "table db.t: file a.parquet: injected I/O error"), "got '%s'", e.message);
  CHECK(pm_error_prefix(NULL, "x") == PAIMON_ERR_INTERNAL);
}

static void test_tz(void) {
  pm_error err;
  pm_error_clear(&err);
  int32_t off = 1;
  CHECK(pm_tz_parse_offset("Z", 1, &off) == 0 && off == 0);
  CHECK(pm_tz_parse_offset("+08:00", 6, &off) == 0 && off == 8 * 3600);
  CHECK(pm_tz_parse_offset("-0330", 5, &off) == 0 && off == -(3 * 3600 + 1800));
  CHECK(pm_tz_parse_offset("+8", 2, &off) == 0 && off == 8 * 3600);
  CHECK(pm_tz_parse_offset("+19:00", 6, &off) != 0);
  CHECK(pm_tz_parse_offset("08:00", 5, &off) != 0);
  CHECK(pm_tz_parse_offset("+08:0", 5, &off) != 0);
  pm_tz *tz = NULL;
  CHECK_OK(pm_tz_load("America/New_York", &tz, &err), &err);
  CHECK_EQ_INT(pm_tz_offset_at_utc(tz, 1720000000), -4 * 3600); /* July 2024: EDT */
  CHECK_EQ_INT(pm_tz_offset_at_utc(tz, 1700000000), -5 * 3600); /* November 2023: EST */
  /* 2024-03-10 02:30 does not exist in New York: moves forward by the gap (03:30 EDT = 07:30Z) */
  CHECK_EQ_INT(pm_tz_local_to_utc(tz, 1710037800), 1710037800 + 5 * 3600);
  /* 2024-11-03 01:30 happens twice: the earlier offset (EDT) */
  CHECK_EQ_INT(pm_tz_local_to_utc(tz, 1730597400), 1730597400 + 4 * 3600);
  CHECK(!pm_tz_is_utc(tz));
  pm_tz_free(tz);
  CHECK_OK(pm_tz_load("UTC+05:30", &tz, &err), &err);
  CHECK_EQ_INT(pm_tz_offset_at_utc(tz, 0), 5 * 3600 + 1800);
  pm_tz_free(tz);
  CHECK_OK(pm_tz_load(NULL, &tz, &err), &err);
  CHECK(pm_tz_is_utc(tz));
  pm_tz_free(tz);
  CHECK(pm_tz_load("No/Such_Zone", &tz, &err) == PAIMON_ERR_NOT_FOUND && !tz);
  CHECK(strstr(err.message, "No/Such_Zone") != NULL);
  CHECK(pm_tz_load("../etc/passwd", &tz, &err) == PAIMON_ERR_INVALID_ARGUMENT && !tz);
  static const uint8_t junk[60] = "TZif2";
  CHECK(pm_tz_from_tzif(junk, sizeof junk, "junk", &tz, &err) == PAIMON_ERR_CORRUPT && !tz);
  CHECK(pm_tz_from_tzif(junk, 10, "short", &tz, &err) == PAIMON_ERR_CORRUPT);
  CHECK(strstr(err.message, "short") != NULL);
}

static void test_str(void) {
  char *s = pm_strdup("abc");
  CHECK_EQ_STR(s, "abc");
  free(s);
  CHECK(pm_strdup(NULL) == NULL);
  s = pm_strndup("abcdef", 2);
  CHECK_EQ_STR(s, "ab");
  free(s);
  char *src[3] = {"x", NULL, "zz"};
  char **d = pm_strings_dup(src, 3);
  CHECK(d && !strcmp(d[0], "x") && d[1] == NULL && !strcmp(d[2], "zz") && d[0] != src[0]);
  pm_strings_free(d, 3);
  CHECK(pm_strings_dup(src, 0) == NULL);
  pm_strings_free(NULL, 5);
}

static void test_utf8(void) {
  static const uint32_t cps[] = {0x41, 0x7F, 0x80, 0x7FF, 0x800, 0xFFFF, 0x10000, 0x10FFFF, 0xE9, 0x4E2D};
  for (size_t i = 0; i < sizeof cps / sizeof cps[0]; i++) {
    uint8_t b[4];
    size_t n = pm_utf8_encode(cps[i], b);
    CHECK_EQ_INT(n, cps[i] < 0x80 ? 1 : cps[i] < 0x800 ? 2 : cps[i] < 0x10000 ? 3 : 4);
    CHECK_EQ_INT(pm_utf8_lead_len(b[0]), n);
    CHECK_EQ_INT(pm_utf8_valid_seq(b, n), n);
    CHECK_EQ_INT(pm_utf8_decode(b, n), cps[i]);
  }
  size_t bad = 99;
  CHECK(pm_utf8_valid((const uint8_t *)"h\xc3\xa9llo", 6, &bad) == 1);
  CHECK(pm_utf8_valid((const uint8_t *)"ab\xc0\xaf", 4, &bad) == 0 && bad == 2);      /* overlong */
  CHECK(pm_utf8_valid((const uint8_t *)"\xed\xa0\x80", 3, &bad) == 0 && bad == 0);    /* surrogate */
  CHECK(pm_utf8_valid((const uint8_t *)"a\xf4\x90\x80\x80", 5, &bad) == 0 && bad == 1); /* > U+10FFFF */
  CHECK(pm_utf8_valid((const uint8_t *)"a\xe4\xb8", 3, &bad) == 0 && bad == 1);       /* truncated */
  CHECK_EQ_INT(pm_utf8_lead_len(0x80), 1);
  /* the ASCII scan: a high bit at every position of words, tails and short inputs */
  uint8_t buf[80];
  memset(buf, 'a', sizeof buf);
  CHECK(pm_utf8_all_ascii(buf, sizeof buf) && pm_utf8_all_ascii(buf, 0));
  for (size_t at = 0; at < sizeof buf; at++) {
    buf[at] = 0xC3;
    CHECK_MSG(!pm_utf8_all_ascii(buf, sizeof buf) && pm_utf8_all_ascii(buf, at) && !pm_utf8_all_ascii(buf, at + 1),
              "high byte at %zu", at);
    buf[at] = 'a';
  }
}

int main(void) {
  RUN_TEST(test_error_prefix);
  RUN_TEST(test_tz);
  RUN_TEST(test_str);
  RUN_TEST(test_utf8);
  TEST_MAIN_END();
}
