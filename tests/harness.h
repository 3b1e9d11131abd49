/* Minimal test harness: CHECK macros count failures; main returns non-zero on any. */
#ifndef PM_TEST_HARNESS_H
#define PM_TEST_HARNESS_H

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pm_test_failures = 0;
static int pm_test_checks = 0;

#define CHECK(cond)                                                              \
  do {                                                                           \
    pm_test_checks++;                                                            \
    if (!(cond)) {                                                               \
      pm_test_failures++;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond);   \
    }                                                                            \
  } while (0)

#define CHECK_MSG(cond, ...)                                                     \
  do {                                                                           \
    pm_test_checks++;                                                            \
    if (!(cond)) {                                                               \
      pm_test_failures++;                                                        \
      fprintf(stderr, "%s:%d: CHECK failed: %s: ", __FILE__, __LINE__, #cond);   \
      fprintf(stderr, __VA_ARGS__);                                              \
      fputc('\n', stderr);                                                       \
    }                                                                            \
  } while (0)

#define CHECK_EQ_INT(a, b)                                                                       \
  do {                                                                                           \
    long long pm_a_ = (long long)(a), pm_b_ = (long long)(b);                                    \
    pm_test_checks++;                                                                            \
    if (pm_a_ != pm_b_) {                                                                        \
      pm_test_failures++;                                                                        \
      fprintf(stderr, "%s:%d: CHECK_EQ_INT failed: %s = %lld, %s = %lld\n", __FILE__, __LINE__, #a, \
              pm_a_, #b, pm_b_);                                                                 \
    }                                                                                            \
  } while (0)

#define CHECK_EQ_STR(a, b)                                                                          \
  do {                                                                                              \
    const char *pm_a_ = (a), *pm_b_ = (b);                                                          \
    pm_test_checks++;                                                                               \
    if (!pm_a_ || !pm_b_ || strcmp(pm_a_, pm_b_) != 0) {                                            \
      pm_test_failures++;                                                                           \
      fprintf(stderr, "%s:%d: CHECK_EQ_STR failed: %s = \"%s\", %s = \"%s\"\n", __FILE__, __LINE__, #a, \
              pm_a_ ? pm_a_ : "(null)", #b, pm_b_ ? pm_b_ : "(null)");                              \
    }                                                                                               \
  } while (0)

/* Checks a status-returning call succeeded; prints the error message if not. errp must not be NULL. */
#define CHECK_OK(call, errp)                                                                   \
  do {                                                                                         \
    int pm_rc_ = (call);                                                                       \
    pm_test_checks++;                                                                          \
    if (pm_rc_ != 0) {                                                                         \
      pm_test_failures++;                                                                      \
      fprintf(stderr, "%s:%d: %s failed (%d): %s\n", __FILE__, __LINE__, #call, pm_rc_,        \
              (errp)->message);                                                                 \
    }                                                                                          \
  } while (0)

#define RUN_TEST(fn)                                         \
  do {                                                       \
    int pm_before_ = pm_test_failures;                       \
    fn();                                                    \
    fprintf(stderr, "%s %s\n", pm_test_failures == pm_before_ ? "ok  " : "FAIL", #fn); \
  } while (0)

#define TEST_MAIN_END()                                                                        \
  do {                                                                                         \
    fprintf(stderr, "%d checks, %d failed\n", pm_test_checks, pm_test_failures);               \
    return pm_test_failures ? 1 : 0;                                                           \
  } while (0)

/* Path of the shared fixtures directory (../shared next to the repo). */
#define PM_SHARED(rel) PAIMON_SHARED_DIR "/" rel

#endif
