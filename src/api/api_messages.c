/* Commit messages (write.h): counts, Java ManifestCommittable bytes, merge. */
#include "api/api_write_internal.h"

void paimon_commit_messages_free(paimon_commit_messages *m) {
  if (!m) return;
  for (size_t i = 0; i < m->n_parts; i++) pm_committable_free(m->parts[i]);
  free(m->parts);
  free(m);
}

size_t paimon_commit_messages_count(const paimon_commit_messages *m) {
  size_t n = 0;
  for (size_t i = 0; m && i < m->n_parts; i++) n += m->parts[i]->n_messages;
  return n;
}

int64_t paimon_commit_messages_file_count(const paimon_commit_messages *m) {
  int64_t n = 0;
  for (size_t i = 0; m && i < m->n_parts; i++)
    for (size_t j = 0; j < m->parts[i]->n_messages; j++) n += (int64_t)m->parts[i]->messages[j].new_files.n;
  return n;
}

int64_t paimon_commit_messages_row_count(const paimon_commit_messages *m) {
  int64_t n = 0;
  for (size_t i = 0; m && i < m->n_parts; i++)
    for (size_t j = 0; j < m->parts[i]->n_messages; j++) {
      const pm_file_list *f = &m->parts[i]->messages[j].new_files;
      for (size_t k = 0; k < f->n; k++) n += f->items[k].row_count;
    }
  return n;
}

int pm_api_messages_view(const paimon_commit_messages *m, int64_t identifier, pm_manifest_committable *view,
                         pm_error *err) {
  memset(view, 0, sizeof *view);
  size_t n = paimon_commit_messages_count(m);
  if (m->n_parts) {
    const pm_manifest_committable *first = m->parts[0];
    view->watermark = first->watermark;
    view->has_watermark = first->has_watermark;
    view->property_keys = first->property_keys;
    view->property_values = first->property_values;
    view->n_properties = first->n_properties;
  }
  for (size_t i = 1; i < m->n_parts; i++)
    if (m->parts[i]->has_watermark && (!view->has_watermark || m->parts[i]->watermark > view->watermark)) {
      view->watermark = m->parts[i]->watermark;
      view->has_watermark = 1;
    }
  view->identifier = identifier;
  view->message_version = PM_COMMIT_MESSAGE_VERSION;
  view->messages = malloc((n ? n : 1) * sizeof *view->messages);
  if (!view->messages) return PM_NOMEM(err);
  size_t k = 0;
  for (size_t i = 0; i < m->n_parts; i++)
    for (size_t j = 0; j < m->parts[i]->n_messages; j++) view->messages[k++] = m->parts[i]->messages[j];
  view->n_messages = n;
  return 0;
}

void pm_api_view_free(pm_manifest_committable *view) {
  free(view->messages);
  view->messages = NULL;
  view->n_messages = 0;
}

paimon_status paimon_commit_messages_serialize(const paimon_commit_messages *m, int64_t commit_identifier,
                                               uint8_t **bytes, size_t *len, paimon_error *err) {
  CHECK_ARG(m && bytes && len, "NULL argument");
  *bytes = NULL;
  *len = 0;
  pm_manifest_committable view;
  PM_TRY(pm_api_messages_view(m, commit_identifier, &view, err));
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_committable_encode(&view, &b, err);
  pm_api_view_free(&view);
  if (rc) {
    pm_buf_free(&b);
    return (paimon_status)rc;
  }
  /* paimon_free_bytes frees with free(): hand out a malloc'd copy. */
  uint8_t *out = malloc(b.len ? b.len : 1);
  if (!out) {
    pm_buf_free(&b);
    return (paimon_status)PM_NOMEM(err);
  }
  if (b.len) memcpy(out, b.data, b.len);
  *bytes = out;
  *len = b.len;
  pm_buf_free(&b);
  return PAIMON_OK;
}

paimon_status paimon_commit_messages_deserialize(const uint8_t *bytes, size_t len, int committable_version,
                                                 paimon_commit_messages **out, int64_t *commit_identifier,
                                                 paimon_error *err) {
  CHECK_ARG(bytes && out, "NULL argument");
  *out = NULL;
  CHECK_ARG(committable_version >= 2 && committable_version <= PM_MANIFEST_COMMITTABLE_VERSION,
            "committable version must be 2..5");
  paimon_commit_messages *m = calloc(1, sizeof *m);
  if (!m || !(m->parts = malloc(sizeof *m->parts))) {
    free(m);
    return (paimon_status)PM_NOMEM(err);
  }
  int rc = pm_committable_decode(bytes, len, committable_version, "commit messages", &m->parts[0], err);
  if (rc) {
    free(m->parts);
    free(m);
    return (paimon_status)rc;
  }
  m->n_parts = 1;
  if (commit_identifier) *commit_identifier = m->parts[0]->identifier;
  *out = m;
  return PAIMON_OK;
}

paimon_status paimon_commit_messages_merge(paimon_commit_messages *dst, paimon_commit_messages **src,
                                           paimon_error *err) {
  CHECK_ARG(dst && src && *src && dst != *src, "NULL argument or merging messages into themselves");
  paimon_commit_messages *s = *src;
  pm_manifest_committable **parts = realloc(dst->parts, (dst->n_parts + s->n_parts + 1) * sizeof *parts);
  if (!parts) return (paimon_status)PM_NOMEM(err);
  dst->parts = parts;
  for (size_t i = 0; i < s->n_parts; i++) dst->parts[dst->n_parts++] = s->parts[i];
  if (s->check_from_snapshot > 0 &&
      (dst->check_from_snapshot <= 0 || s->check_from_snapshot < dst->check_from_snapshot))
    dst->check_from_snapshot = s->check_from_snapshot;
  s->n_parts = 0;
  paimon_commit_messages_free(s);
  *src = NULL;
  return PAIMON_OK;
}

int pm_api_messages_wrap(pm_manifest_committable *c, paimon_commit_messages **out, pm_error *err) {
  paimon_commit_messages *m = calloc(1, sizeof *m);
  if (!m || !(m->parts = malloc(sizeof *m->parts))) {
    free(m);
    pm_committable_free(c);
    return PM_NOMEM(err);
  }
  m->parts[0] = c;
  m->n_parts = 1;
  *out = m;
  return 0;
}

int pm_api_spec_copy(const pm_table *t, const paimon_option *spec, size_t n, pm_api_spec *out, pm_error *err) {
  memset(out, 0, sizeof *out);
  if (!n) return 0;
  if (!spec) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec: NULL with %zu fields", n);
  out->keys = calloc(n, sizeof *out->keys);
  out->values = calloc(n, sizeof *out->values);
  if (!out->keys || !out->values) {
    pm_api_spec_free(out);
    return PM_NOMEM(err);
  }
  for (size_t i = 0; i < n; i++) {
    int rc = 0;
    if (!spec[i].key || !spec[i].value) {
      rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec: field %zu has a NULL key or value", i);
    } else {
      size_t k = 0;
      while (k < t->n_partition_keys && strcmp(t->partition_keys[k], spec[i].key)) k++;
      if (k == t->n_partition_keys)
        rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec: '%s' is not a partition key of the table",
                       spec[i].key);
      for (size_t j = 0; !rc && j < i; j++)
        if (!strcmp(out->keys[j], spec[i].key))
          rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "partition spec: '%s' given twice", spec[i].key);
    }
    if (!rc && (!(out->keys[i] = pm_strdup(spec[i].key)) || !(out->values[i] = pm_strdup(spec[i].value))))
      rc = PM_NOMEM(err);
    out->n = i + 1;
    if (rc) {
      pm_api_spec_free(out);
      return rc;
    }
  }
  return 0;
}

void pm_api_spec_free(pm_api_spec *s) {
  for (size_t i = 0; s->keys && i < s->n; i++) {
    free(s->keys[i]);
    if (s->values) free(s->values[i]);
  }
  free(s->keys);
  free(s->values);
  memset(s, 0, sizeof *s);
}
