#include "meta/file_entry.h"

#include <stdlib.h>
#include <string.h>

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const uint8_t *b = p;
  for (size_t i = 0; i < n; i++) h = (h ^ b[i]) * 1099511628211ULL;
  return h;
}

uint64_t pm_file_entry_hash(const pm_manifest_entry *e) {
  uint64_t h = 1469598103934665603ULL;
  h = fnv(h, e->partition.data, e->partition.len);
  h = fnv(h, &e->bucket, sizeof e->bucket);
  h = fnv(h, &e->file.level, sizeof e->file.level);
  h = fnv(h, e->file.file_name, strlen(e->file.file_name));
  if (e->file.external_path) h = fnv(h, e->file.external_path, strlen(e->file.external_path));
  return h;
}

static int str_eq(const char *a, const char *b) { return a == b || (a && b && !strcmp(a, b)); }

int pm_file_entry_same(const pm_manifest_entry *a, const pm_manifest_entry *b) {
  if (a->bucket != b->bucket || a->file.level != b->file.level || a->partition.len != b->partition.len) return 0;
  if (a->partition.len && memcmp(a->partition.data, b->partition.data, a->partition.len)) return 0;
  if (strcmp(a->file.file_name, b->file.file_name) || !str_eq(a->file.external_path, b->file.external_path)) return 0;
  if (a->file.extra_files.n != b->file.extra_files.n) return 0;
  for (int32_t i = 0; i < a->file.extra_files.n; i++)
    if (strcmp(a->file.extra_files.items[i], b->file.extra_files.items[i])) return 0;
  if (a->file.has_embedded_index != b->file.has_embedded_index ||
      a->file.embedded_index.len != b->file.embedded_index.len ||
      (a->file.embedded_index.len &&
       memcmp(a->file.embedded_index.data, b->file.embedded_index.data, a->file.embedded_index.len)))
    return 0;
  return 1;
}

int pm_entry_merge_init(pm_entry_merge *m, size_t expected, pm_error *err) {
  m->cap = 16;
  m->used = 0;
  while (m->cap < expected * 2 + 1) m->cap *= 2;
  m->slots = calloc(m->cap, sizeof *m->slots);
  return m->slots ? 0 : PM_NOMEM(err);
}

void pm_entry_merge_free(pm_entry_merge *m) {
  free(m->slots);
  m->slots = NULL;
  m->cap = m->used = 0;
}

static pm_entry_merge_slot *find(const pm_entry_merge *m, const pm_manifest_entry *e) {
  size_t i = pm_file_entry_hash(e) & (m->cap - 1);
  while (m->slots[i].e) {
    if (pm_file_entry_same(m->slots[i].e, e)) return &m->slots[i];
    i = (i + 1) & (m->cap - 1);
  }
  return &m->slots[i];
}

static int grow(pm_entry_merge *m, pm_error *err) {
  pm_entry_merge old = *m;
  m->cap *= 2;
  m->used = 0;
  m->slots = calloc(m->cap, sizeof *m->slots);
  if (!m->slots) {
    *m = old;
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < old.cap; i++)
    if (old.slots[i].e && old.slots[i].state >= 0) {
      *find(m, old.slots[i].e) = old.slots[i];
      m->used++;
    }
  free(old.slots);
  return 0;
}

int pm_entry_merge_apply(pm_entry_merge *m, const pm_manifest_entry *e, const char *what, pm_error *err) {
  if ((m->used + 1) * 2 > m->cap) PM_TRY(grow(m, err));
  pm_entry_merge_slot *s = find(m, e);
  int held = s->e && s->state >= 0;
  if (e->kind == PM_FILE_ADD) {
    if (held)
      return pm_errorf(err, PAIMON_ERR_CONFLICT, "%s: trying to add file %s (bucket %d, level %d) which is already added",
                       what, e->file.file_name, (int)e->bucket, (int)e->file.level);
    if (!s->e) m->used++;
    s->e = e;
    s->state = PM_FILE_ADD;
    return 0;
  }
  if (held) {
    s->state = -1;
    return 0;
  }
  if (!s->e) m->used++;
  s->e = e;
  s->state = PM_FILE_DELETE;
  return 0;
}

int pm_entry_merge_state(const pm_entry_merge *m, const pm_manifest_entry *e) {
  const pm_entry_merge_slot *s = find(m, e);
  return s->e ? s->state : -1;
}

const pm_manifest_entry *pm_entry_merge_held(const pm_entry_merge *m, const pm_manifest_entry *e) {
  const pm_entry_merge_slot *s = find(m, e);
  return s->e && s->state >= 0 ? s->e : NULL;
}

const pm_manifest_entry *pm_entry_merge_first_delete(const pm_entry_merge *m) {
  for (size_t i = 0; i < m->cap; i++)
    if (m->slots[i].e && m->slots[i].state == PM_FILE_DELETE) return m->slots[i].e;
  return NULL;
}
