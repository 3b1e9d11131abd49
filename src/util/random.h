/*
 * The one source of random bytes (Avro sync markers, file names) and UUIDs in
 * Java's text form. Uniqueness, not secrecy, is what the callers need: the
 * bytes come from the kernel (getrandom, else /dev/urandom) and, should both
 * fail, from a mix of clock, pid, a counter and addresses. Thread-safe.
 */
#ifndef PM_UTIL_RANDOM_H
#define PM_UTIL_RANDOM_H

#include <stddef.h>
#include <stdint.h>

/* Fills buf with n random bytes. Never fails. */
void pm_random_bytes(void *buf, size_t n);

/* A random (version 4, IETF variant) UUID as java.util.UUID.toString() prints it:
 * 36 lowercase characters "xxxxxxxx-xxxx-4xxx-yxxx-xxxxxxxxxxxx" plus a NUL. */
#define PM_UUID_TEXT_SIZE 37
void pm_uuid_random(char out[PM_UUID_TEXT_SIZE]);
/* Formats 16 bytes (most significant first) in the same text form (no version bits set). */
void pm_uuid_format(const uint8_t bytes[16], char out[PM_UUID_TEXT_SIZE]);

#endif
