/* Random bytes and UUIDs (util/random.h). */
#include "util/random.h"

#include <errno.h>
#include <fcntl.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <unistd.h>

static size_t from_kernel(uint8_t *p, size_t n) {
  size_t got = 0;
  while (got < n) {
    ssize_t r = getrandom(p + got, n - got, 0);
    if (r < 0) {
      if (errno == EINTR) continue;
      break;
    }
    got += (size_t)r;
  }
  if (got == n) return got;
  int fd = open("/dev/urandom", O_RDONLY | O_CLOEXEC);
  if (fd < 0) return got;
  while (got < n) {
    ssize_t r = read(fd, p + got, n - got);
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    got += (size_t)r;
  }
  close(fd);
  return got;
}

void pm_random_bytes(void *buf, size_t n) {
  uint8_t *p = buf;
  size_t got = from_kernel(p, n);
  if (got == n) return;
  /* Fallback: splitmix64 over clock, pid, a process-wide counter and an address. */
  static atomic_uint_fast64_t counter;
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  uint64_t x = (uint64_t)ts.tv_sec * 1000000007u ^ (uint64_t)ts.tv_nsec ^ ((uint64_t)getpid() << 32) ^
               (uint64_t)(uintptr_t)buf ^ (atomic_fetch_add(&counter, 1) * 0x9e3779b97f4a7c15u);
  for (size_t i = got; i < n; i++) {
    x += 0x9e3779b97f4a7c15u;
    uint64_t z = x;
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9u;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebu;
    p[i] = (uint8_t)((z ^ (z >> 31)) >> 24);
  }
}

void pm_uuid_format(const uint8_t b[16], char out[PM_UUID_TEXT_SIZE]) {
  static const char hex[] = "0123456789abcdef";
  size_t k = 0;
  for (int i = 0; i < 16; i++) {
    if (i == 4 || i == 6 || i == 8 || i == 10) out[k++] = '-';
    out[k++] = hex[b[i] >> 4];
    out[k++] = hex[b[i] & 15];
  }
  out[k] = 0;
}

void pm_uuid_random(char out[PM_UUID_TEXT_SIZE]) {
  uint8_t b[16];
  pm_random_bytes(b, sizeof b);
  b[6] = (uint8_t)((b[6] & 0x0f) | 0x40); /* version 4 */
  b[8] = (uint8_t)((b[8] & 0x3f) | 0x80); /* IETF variant */
  pm_uuid_format(b, out);
}
