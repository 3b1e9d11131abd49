/* util/random.h: random bytes differ between calls and cover every byte value; UUIDs have
 * Java's text form (36 lowercase characters, dashes at 8/13/18/23, version 4, IETF variant). */
#include <ctype.h>

#include "harness.h"
#include "util/random.h"

static void test_bytes(void) {
  uint8_t a[64], b[64];
  pm_random_bytes(a, sizeof a);
  pm_random_bytes(b, sizeof b);
  CHECK(memcmp(a, b, sizeof a) != 0);
  int seen[256] = {0};
  uint8_t big[1 << 16];
  pm_random_bytes(big, sizeof big);
  for (size_t i = 0; i < sizeof big; i++) seen[big[i]]++;
  int all = 1;
  for (int v = 0; v < 256; v++)
    if (seen[v] < 100 || seen[v] > 450) all = 0; /* expected 256 each */
  CHECK(all);
  pm_random_bytes(a, 0); /* nothing to do */
}

static void test_uuid(void) {
  char u[PM_UUID_TEXT_SIZE], v[PM_UUID_TEXT_SIZE];
  pm_uuid_random(u);
  pm_uuid_random(v);
  CHECK_EQ_INT(strlen(u), 36);
  CHECK(strcmp(u, v) != 0);
  for (int i = 0; i < 36; i++) {
    if (i == 8 || i == 13 || i == 18 || i == 23) CHECK(u[i] == '-');
    else CHECK(isxdigit((unsigned char)u[i]) && !isupper((unsigned char)u[i]));
  }
  CHECK(u[14] == '4');
  CHECK(strchr("89ab", u[19]) != NULL);
  /* java.util.UUID.fromString("8cf79434-32e4-4029-bf8e-befe856d268f").toString() */
  const uint8_t b[16] = {0x8c, 0xf7, 0x94, 0x34, 0x32, 0xe4, 0x40, 0x29,
                         0xbf, 0x8e, 0xbe, 0xfe, 0x85, 0x6d, 0x26, 0x8f};
  pm_uuid_format(b, u);
  CHECK_EQ_STR(u, "8cf79434-32e4-4029-bf8e-befe856d268f");
}

int main(void) {
  RUN_TEST(test_bytes);
  RUN_TEST(test_uuid);
  TEST_MAIN_END();
}
