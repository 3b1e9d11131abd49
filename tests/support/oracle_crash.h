/*
 * Shared by the crash driver (tests/api/crash_driver.c) and the tests that run
 * it (tests/api/test_write_crash.c, test_write_concurrency.c): the table the
 * driver writes and the deterministic rows of batch b, so a test knows the
 * exact rows every committed batch must contribute.
 */
#ifndef PM_TESTS_SUPPORT_ORACLE_CRASH_H
#define PM_TESTS_SUPPORT_ORACLE_CRASH_H

#include <stdio.h>
#include <string.h>

/* The driver's table: partitioned by p (an append table). */
#define OC_COLUMNS "id BIGINT NOT NULL, batch INT, s STRING, p INT"
#define OC_PARTITION_KEY "p"
#define OC_EXIT_FAULT 42 /* exit code of an injected crash (rule action exit=42) */

/* Rows of batch b as JSON lines (objects): rows = 1 + b % 3 unless n_rows > 0; partition
 * p = b % 2 unless part >= 0. Returns the text length (truncated to cap). */
static inline size_t oc_batch_json(long long b, int n_rows, int part, char *buf, size_t cap) {
  int n = n_rows > 0 ? n_rows : 1 + (int)(b % 3);
  int p = part >= 0 ? part : (int)(b % 2);
  size_t len = 0;
  buf[0] = 0;
  for (int i = 0; i < n && len + 1 < cap; i++)
    len += (size_t)snprintf(buf + len, cap - len,
                            "{\"id\":%lld,\"batch\":%lld,\"s\":\"b%lld-%d \\\"q\\\" \\u00e9\",\"p\":%d}\n",
                            b * 1000 + i, b, b, i, p);
  return len < cap ? len : cap - 1;
}

#endif
