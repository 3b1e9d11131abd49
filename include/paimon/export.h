/*
 * PAIMON_EXPORT marks the functions of the public API. libpaimon is built
 * with hidden visibility by default, so the shared library exports exactly
 * the functions declared with this macro (every one named paimon_*).
 */
#ifndef PAIMON_EXPORT_H
#define PAIMON_EXPORT_H

#if defined(__GNUC__) || defined(__clang__)
#define PAIMON_EXPORT __attribute__((visibility("default")))
#else
#define PAIMON_EXPORT
#endif

#endif /* PAIMON_EXPORT_H */
