/*
 * Issue 9 §6: casts that depend on the session time zone use the process's
 * local zone (TZ, else /etc/localtime) when no session_time_zone /
 * local-time-zone option is given, as Java uses the JVM default zone.
 * append_with_cast_timestamp's expected values hold for Asia/Shanghai.
 */
#include <stdlib.h>
#include <string.h>

#include "harness.h"
#include "support/fixture_case.h"
#include "util/tz.h"

static const char *CASES[] = {"parquet__append_with_cast_timestamp__snapshot-1.json",
                              "orc__append_with_cast_timestamp__snapshot-1.json"};

static int run(const char *file, int ignore_read_tz, char *msg, size_t cap) {
  char path[4096];
  snprintf(path, sizeof path, "%s/%s", PM_SHARED("fixtures/expected"), file);
  return fxc_run_case(path, file, ignore_read_tz, msg, cap, 0);
}

/* TZ=Asia/Shanghai and no option: reads exactly as the expected file says. */
static void test_tz_env_is_session_zone(void) {
  setenv("TZ", "Asia/Shanghai", 1);
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    char msg[4096] = "";
    CHECK_MSG(run(CASES[i], 1, msg, sizeof msg) == 0, "%s: %s", CASES[i], msg);
  }
  setenv("TZ", ":Asia/Shanghai", 1);
  char msg[4096] = "";
  CHECK_MSG(run(CASES[0], 1, msg, sizeof msg) == 0, "TZ=:Asia/Shanghai: %s", msg);
}

/* The local zone really is used: under UTC the same read differs, and an
 * explicit option wins over TZ. */
static void test_other_zone_differs_option_wins(void) {
  setenv("TZ", "UTC", 1);
  for (size_t i = 0; i < sizeof CASES / sizeof CASES[0]; i++) {
    char msg[4096] = "";
    CHECK_MSG(run(CASES[i], 1, msg, sizeof msg) != 0, "%s read as Shanghai under TZ=UTC", CASES[i]);
    CHECK_MSG(run(CASES[i], 0, msg, sizeof msg) == 0, "%s with the option: %s", CASES[i], msg);
  }
  setenv("TZ", "Europe/Berlin", 1);
  char msg[4096] = "";
  CHECK_MSG(run(CASES[0], 0, msg, sizeof msg) == 0, "option under TZ=Europe/Berlin: %s", msg);
}

/* The local-zone rule of util/tz.h. */
static void test_local_zone_rule(void) {
  pm_error err;
  pm_error_clear(&err);
  struct {
    const char *tz;
    int32_t offset_at_0;
  } cases[] = {{"Asia/Shanghai", 8 * 3600}, {":Asia/Kolkata", 5 * 3600 + 1800}, {"", 0},
               {"CST-8", 8 * 3600},         {"EST5", -5 * 3600},               {"No/Such_Zone", 0},
               {"/usr/share/zoneinfo/Asia/Shanghai", 8 * 3600}};
  for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
    setenv("TZ", cases[i].tz, 1);
    pm_tz *tz = NULL;
    CHECK_OK(pm_tz_load_local(&tz, &err), &err);
    CHECK_MSG(pm_tz_offset_at_utc(tz, 0) == cases[i].offset_at_0, "TZ=%s: offset %d", cases[i].tz,
              (int)pm_tz_offset_at_utc(tz, 0));
    pm_tz_free(tz);
  }
  unsetenv("TZ"); /* /etc/localtime, whatever it is, loads */
  pm_tz *tz = NULL;
  CHECK_OK(pm_tz_load_local(&tz, &err), &err);
  CHECK(tz != NULL);
  pm_tz_free(tz);
}

int main(void) {
  RUN_TEST(test_tz_env_is_session_zone);
  RUN_TEST(test_other_zone_differs_option_wins);
  RUN_TEST(test_local_zone_rule);
  TEST_MAIN_END();
}
