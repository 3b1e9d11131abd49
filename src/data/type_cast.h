/*
 * Which type changes Java Paimon allows (ALTER TABLE ... TYPE): the rules of
 * Java's DataTypeCasts (implicit / explicit / compatible casting tables by
 * type root and family) and whether Java's CastExecutors resolves a cast
 * rule (with a non-null executor) for the pair. SchemaManager accepts an
 * update of a column's type only when both hold.
 */
#ifndef PM_DATA_TYPE_CAST_H
#define PM_DATA_TYPE_CAST_H

#include "data/types.h"

/* DataTypeCasts.supportsCast(src, dst, allow_explicit). */
int pm_dtype_supports_cast(const pm_data_type *src, const pm_data_type *dst, int allow_explicit);
/* CastExecutors.resolve(src, dst) != null. */
int pm_dtype_cast_resolvable(const pm_data_type *src, const pm_data_type *dst);
/* Equality ignoring the nullability of the two roots (Java: a.copy(true).equals(b.copy(true))). */
int pm_dtype_equals_ignore_nullable(const pm_data_type *a, const pm_data_type *b);

#endif
