/* The data files of the table writer: names and locations (external paths),
 * the format writers, DataFileMeta with value stats as Java's append writer
 * makes them. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "io/fs.h"
#include "meta/fileindex.h"
#include "util/random.h"
#include "table/write_internal.h"

int64_t pm_write_local_millis(void) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  time_t s = ts.tv_sec;
  localtime_r(&s, &tm);
  return ((int64_t)s + tm.tm_gmtoff) * 1000 + ts.tv_nsec / 1000000;
}

/* ------------------------------------------------------------ external paths */

/* Java's Path(...).toString() of a configured root: "scheme:/path" when there
 * is no authority ("file:///tmp/x" -> "file:/tmp/x"), trailing '/' removed. */
static char *external_root(const char *text) {
  while (*text == ' ' || *text == '\t') text++;
  size_t n = strlen(text);
  while (n && (text[n - 1] == ' ' || text[n - 1] == '\t')) n--;
  const char *colon = memchr(text, ':', n);
  if (!colon || colon == text) return NULL;
  for (const char *p = text; p < colon; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') || *p == '+' ||
          *p == '-' || *p == '.'))
      return NULL;
  char *out = malloc(n + 1);
  if (!out) return NULL;
  size_t sl = (size_t)(colon - text);
  memcpy(out, text, sl + 1);
  size_t k = sl + 1;
  const char *rest = colon + 1, *end = text + n;
  if (end - rest >= 3 && rest[0] == '/' && rest[1] == '/' && rest[2] == '/') rest += 2; /* empty authority */
  memcpy(out + k, rest, (size_t)(end - rest));
  k += (size_t)(end - rest);
  while (k > sl + 2 && out[k - 1] == '/') k--;
  out[k] = 0;
  return out;
}

static int external_weights(pm_table_write *w, pm_error *err);

int pm_wfile_external_roots(pm_table_write *w, pm_error *err) {
  const pm_core_options *co = &w->t->co;
  const char *list = co->data_file_external_paths;
  if (!list || !*list || co->external_path_strategy == PM_EXT_PATH_NONE) return 0;
  const char *key = pm_core_option_key(PM_CO_DATA_FILE_EXTERNAL_PATHS_STRATEGY);
  const char *fs = co->data_file_external_paths_specific_fs;
  if (co->external_path_strategy == PM_EXT_PATH_SPECIFIC_FS && !fs)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s' is required when '%s' is specific-fs",
                     pm_core_option_key(PM_CO_DATA_FILE_EXTERNAL_PATHS_SPECIFIC_FS), key);
  const char *p = list;
  while (1) {
    const char *c = strchr(p, ',');
    size_t len = c ? (size_t)(c - p) : strlen(p);
    char *item = strndup(p, len);
    if (!item) return PM_NOMEM(err);
    char *root = external_root(item);
    if (!root) {
      int rc = pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': '%s' has no scheme (e.g. file:///dir)",
                         pm_core_option_key(PM_CO_DATA_FILE_EXTERNAL_PATHS), item);
      free(item);
      return rc;
    }
    free(item);
    size_t sl = (size_t)(strchr(root, ':') - root);
    if (co->external_path_strategy == PM_EXT_PATH_SPECIFIC_FS && (strlen(fs) != sl || strncasecmp(root, fs, sl))) {
      free(root);
    } else {
      char **nr = realloc(w->ext_roots, (w->n_ext + 1) * sizeof *nr);
      if (!nr) {
        free(root);
        return PM_NOMEM(err);
      }
      w->ext_roots = nr;
      w->ext_roots[w->n_ext++] = root;
    }
    if (!c) break;
    p = c + 1;
  }
  if (!w->n_ext)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': no external path matches the specific fs '%s'",
                     pm_core_option_key(PM_CO_DATA_FILE_EXTERNAL_PATHS), fs ? fs : "");
  w->ext_strategy = co->external_path_strategy;
  if (w->ext_strategy == PM_EXT_PATH_WEIGHT_ROBIN) return external_weights(w, err);
  return 0;
}

/* data-file.external-paths.weights (CoreOptions.externalPathWeights): positive integers, one per
 * path; without them (or with fewer than two paths) weight-robin is round-robin, as Java. */
static int external_weights(pm_table_write *w, pm_error *err) {
  const char *key = pm_core_option_key(PM_CO_DATA_FILE_EXTERNAL_PATHS_WEIGHTS);
  const char *text = w->t->co.data_file_external_paths_weights;
  if (!text || w->n_ext < 2) {
    w->ext_strategy = PM_EXT_PATH_ROUND_ROBIN;
    return 0;
  }
  w->ext_weights = calloc(w->n_ext, sizeof *w->ext_weights);
  if (!w->ext_weights) return PM_NOMEM(err);
  size_t n = 0;
  for (const char *p = text;;) {
    while (*p == ' ' || *p == '\t') p++;
    char *end;
    long long v = strtoll(p, &end, 10);
    const char *q = end;
    while (*q == ' ' || *q == '\t') q++;
    if (end == p || (*q && *q != ',') || v > INT32_MAX)
      return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s' = '%s': not a list of integers", key, text);
    if (v <= 0) return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT, "option '%s': weight must be positive, got %lld", key, v);
    if (n < w->n_ext) w->ext_weights[n] = v;
    n++;
    if (!*q) break;
    p = q + 1;
  }
  if (n != w->n_ext)
    return pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                     "option '%s': the number of external paths and weights should be the same (paths: %zu, weights: %zu)",
                     key, w->n_ext, n);
  for (size_t i = 0; i < n; i++) w->ext_weight_total += w->ext_weights[i];
  return 0;
}

/* Guava's Hashing.murmur3_32() (MurmurHash3 x86_32, seed 0) of bytes, as HashCode.asInt(). */
static uint32_t murmur3_32(const uint8_t *d, size_t n) {
  const uint32_t c1 = 0xcc9e2d51u, c2 = 0x1b873593u;
  uint32_t h = 0, k;
  size_t i = 0;
  for (; i + 4 <= n; i += 4) {
    k = (uint32_t)d[i] | (uint32_t)d[i + 1] << 8 | (uint32_t)d[i + 2] << 16 | (uint32_t)d[i + 3] << 24;
    k *= c1;
    k = k << 15 | k >> 17;
    k *= c2;
    h ^= k;
    h = h << 13 | h >> 19;
    h = h * 5 + 0xe6546b64u;
  }
  k = 0;
  switch (n & 3) {
    case 3: k ^= (uint32_t)d[i + 2] << 16; /* fall through */
    case 2: k ^= (uint32_t)d[i + 1] << 8;  /* fall through */
    case 1:
      k ^= d[i];
      k *= c1;
      k = k << 15 | k >> 17;
      k *= c2;
      h ^= k;
  }
  h ^= (uint32_t)n;
  h ^= h >> 16;
  h *= 0x85ebca6bu;
  h ^= h >> 13;
  h *= 0xc2b2ae35u;
  h ^= h >> 16;
  return h;
}

/* EntropyInjectExternalPathProvider: the low 20 bits of the file name's hash, MSB first, as
 * directories "bbbb/bbbb/bbbb/bbbbbbbb". */
void pm_write_entropy_dirs(const char *file_name, char out[24]) {
  uint32_t h = murmur3_32((const uint8_t *)file_name, strlen(file_name)) | 0x80000000u;
  size_t k = 0;
  for (int i = 0; i < 20; i++) {
    if (i == 4 || i == 8 || i == 12) out[k++] = '/';
    out[k++] = (h >> (19 - i)) & 1 ? '1' : '0';
  }
  out[k] = 0;
}

/* Index of the external root for the next file of slot s (Java's providers; round-robin also for
 * specific-fs, as ExternalPathProvider.create). */
static size_t external_pick(pm_table_write *w, pm_wslot *s) {
  if (w->ext_strategy == PM_EXT_PATH_WEIGHT_ROBIN) {
    /* WeightedExternalPathProvider: a uniform draw in [0, total), the first cumulative weight above it */
    uint64_t r;
    pm_random_bytes(&r, sizeof r);
    double x = (double)(r >> 11) * (1.0 / 9007199254740992.0) * (double)w->ext_weight_total, cum = 0;
    for (size_t i = 0; i < w->n_ext; i++) {
      cum += (double)w->ext_weights[i];
      if (cum > x) return i;
    }
    return w->n_ext - 1;
  }
  s->ext_pos = (s->ext_pos + 1) % (int64_t)w->n_ext;
  return (size_t)s->ext_pos;
}

/* ------------------------------------------------------------ open */

/* "a/b" (c unused when empty: "a/b/c" otherwise). */
static char *join3(const char *a, const char *b, const char *c) {
  size_t n = strlen(a) + strlen(b) + strlen(c) + 3;
  char *s = malloc(n);
  if (s) snprintf(s, n, "%s/%s%s%s", a, b, *c ? "/" : "", c);
  return s;
}

static void wfile_free(pm_wfile *f) {
  if (!f) return;
  free(f->path);
  free(f->name);
  free(f->external);
  free(f->dec);
  pm_fidx_writer_free(f->fidx);
  free(f);
}

int pm_wfile_open(pm_table_write *w, pm_wslot *s, pm_error *err) {
  pm_wfile *f = calloc(1, sizeof *f);
  if (!f) return PM_NOMEM(err);
  f->dec = calloc(w->n_fields + 1, sizeof *f->dec);
  char name[256];
  snprintf(name, sizeof name, "%s%s-%lld.%s", w->t->co.data_file_prefix ? w->t->co.data_file_prefix : "data-",
           w->uuid, (long long)w->file_counter++, w->fmt->name);
  f->name = strdup(name);
  int rc = (!f->dec || !f->name) ? PM_NOMEM(err) : 0;
  char *dir = NULL;
  if (!rc && w->n_ext) {
    size_t root = external_pick(w, s);
    char entropy[24] = "";
    if (w->ext_strategy == PM_EXT_PATH_ENTROPY_INJECT) pm_write_entropy_dirs(name, entropy);
    char *ext_dir = join3(w->ext_roots[root], s->rel_dir, entropy);
    f->external = ext_dir ? join3(ext_dir, name, "") : NULL;
    if (!ext_dir || !f->external) rc = PM_NOMEM(err);
    if (!rc) rc = pm_table_resolve_path(w->t, ext_dir, &dir, err);
    if (!rc) rc = pm_table_resolve_path(w->t, f->external, &f->path, err);
    free(ext_dir);
  } else if (!rc) {
    dir = strdup(s->bucket_dir);
    size_t n = strlen(s->bucket_dir) + strlen(name) + 2;
    f->path = malloc(n);
    if (!dir || !f->path) rc = PM_NOMEM(err);
    else snprintf(f->path, n, "%s/%s", s->bucket_dir, name);
  }
  /* Java's DataFileIndexWriter over the file's rows; files of some columns only
   * (data-evolution write columns) carry none */
  if (!rc && !w->own_fields && pm_fidx_options_declared(&w->t->options))
    rc = pm_fidx_writer_new(&w->t->options, w->fields, w->n_fields, &f->fidx, err);
  if (!rc) rc = pm_fs_mkdirs(w->t->fs, dir, err);
  free(dir);
  pm_out_file *sink = NULL;
  if (!rc) rc = pm_fs_create(w->t->fs, f->path, &sink, err);
  if (!rc) rc = pm_format_writer_open_sink(w->fmt, sink, &w->schema, &w->wo, &f->fw, err); /* takes sink */
  if (rc) {
    wfile_free(f);
    return rc;
  }
  f->min_seq = s->next_seq;
  s->open = f;
  w->n_open++;
  return 0;
}

void pm_wfile_abort(pm_table_write *w, pm_wslot *s) {
  if (!s->open) return;
  pm_format_writer_abort(s->open->fw);
  wfile_free(s->open);
  s->open = NULL;
  w->n_open--;
}

/* ------------------------------------------------------------ write */

static int dec_cmp(const pm_decimal *a, const pm_decimal *b) {
  if (a->hi != b->hi) return a->hi < b->hi ? -1 : 1;
  return a->lo < b->lo ? -1 : a->lo > b->lo;
}

/* Double.compare's order as a key: NaN greatest, -0.0 < 0.0. */
static int64_t total_key(double x) {
  if (x != x) return INT64_MAX;
  int64_t b;
  memcpy(&b, &x, sizeof b);
  return b < 0 ? (int64_t)((uint64_t)b ^ 0x7fffffffffffffffULL) : b;
}

static void track_float(pm_wdec *d, const struct ArrowArray *c, int is_float) {
  for (int64_t r = 0; r < c->length; r++) {
    if (!pm_array_is_valid(c, r)) continue;
    int64_t k = c->offset + r;
    double x = is_float ? (double)((const float *)c->buffers[1])[k] : ((const double *)c->buffers[1])[k];
    if (!d->has) {
      d->fmin = d->fmax = x;
      d->has = 1;
      continue;
    }
    int64_t kx = total_key(x);
    if (kx < total_key(d->fmin)) d->fmin = x;
    if (kx > total_key(d->fmax)) d->fmax = x;
  }
}

void pm_write_track_decimals(const pm_data_field *fields, size_t n, pm_wdec *dec, const struct ArrowArray *b,
                             int64_t first) {
  for (size_t i = 0; i < n; i++) {
    const pm_data_type *t = fields[i].type;
    if (t->root == PM_DT_FLOAT || t->root == PM_DT_DOUBLE) {
      track_float(&dec[i], b->children[first + (int64_t)i], t->root == PM_DT_FLOAT);
      continue;
    }
    if (t->root != PM_DT_DECIMAL) continue;
    const struct ArrowArray *c = b->children[first + (int64_t)i];
    pm_wdec *d = &dec[i];
    for (int64_t r = 0; r < c->length; r++) {
      pm_value v;
      pm_error e;
      if (pm_write_value_at(t, c, r, &v, &e) || v.kind == PM_V_NULL) continue;
      if (!d->has) {
        d->min = d->max = v.u.dec;
        d->has = 1;
      } else {
        if (dec_cmp(&v.u.dec, &d->min) < 0) d->min = v.u.dec;
        if (dec_cmp(&v.u.dec, &d->max) > 0) d->max = v.u.dec;
      }
    }
  }
}

int pm_wfile_write(pm_table_write *w, pm_wslot *s, const struct ArrowArray *b, pm_error *err) {
  pm_wfile *f = s->open;
  pm_write_track_decimals(w->fields, w->n_fields, f->dec, b, 0);
  PM_TRY(pm_format_writer_write(f->fw, b, err));
  if (f->fidx) PM_TRY(pm_fidx_writer_add(f->fidx, &w->schema, b, 0, err));
  f->rows += b->length;
  s->next_seq += b->length;
  return 0;
}

/* ------------------------------------------------------------ close */

static int lit_value(const pm_data_type *t, const pm_fmt_literal *l, pm_value *v) {
  memset(v, 0, sizeof *v);
  switch (t->root) {
    case PM_DT_BOOLEAN: v->kind = PM_V_BOOL; v->u.i64 = l->i64 != 0; return 1;
    case PM_DT_TINYINT: case PM_DT_SMALLINT: case PM_DT_INT: case PM_DT_BIGINT: case PM_DT_DATE: case PM_DT_TIME:
      v->kind = PM_V_INT;
      v->u.i64 = l->i64;
      return l->kind == PM_FMT_LIT_INT64;
    case PM_DT_FLOAT: v->kind = PM_V_FLOAT; v->u.f64 = l->f64; return l->kind == PM_FMT_LIT_DOUBLE;
    case PM_DT_DOUBLE: v->kind = PM_V_DOUBLE; v->u.f64 = l->f64; return l->kind == PM_FMT_LIT_DOUBLE;
    case PM_DT_CHAR: case PM_DT_VARCHAR: case PM_DT_BINARY: case PM_DT_VARBINARY:
      v->kind = pm_dtype_is_string(t->root) ? PM_V_STRING : PM_V_BINARY;
      v->u.bytes.data = l->bytes;
      v->u.bytes.len = l->len;
      return l->kind == PM_FMT_LIT_BYTES;
    case PM_DT_TIMESTAMP:
    case PM_DT_TIMESTAMP_LTZ: {
      if (t->precision > 6 || l->kind != PM_FMT_LIT_INT64) return 0; /* INT96: Java keeps none */
      int64_t per = t->precision <= 3 ? 1 : 1000;
      int64_t ms = l->i64 / per, rem = l->i64 % per;
      if (rem < 0) {
        rem += per;
        ms--;
      }
      v->kind = PM_V_TIMESTAMP;
      v->u.ts.millis = ms;
      v->u.ts.nanos = (int32_t)(rem * (1000000 / per));
      return 1;
    }
    default: return 0;
  }
}

int pm_write_stats(const pm_data_field *fields, size_t n, const pm_stats_mode *modes,
                   const pm_format_column_stats *cols, size_t n_cols, const pm_wdec *dec, int dense, pm_arena *arena,
                   pm_simple_stats *out, pm_str_list *out_cols, pm_error *err) {
  pm_stats_collector *sc = NULL;
  PM_TRY(pm_stats_collector_new(fields, n, modes, &sc, err));
  int rc = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    const pm_data_type *t = fields[i].type;
    const pm_format_column_stats *c = i < n_cols ? &cols[i] : NULL;
    if (!c) continue;
    rc = pm_stats_collector_add_nulls(sc, i, c->null_count, err);
    pm_value lo, hi;
    int have = 0;
    if (t->root == PM_DT_DECIMAL) {
      if (dec[i].has) {
        memset(&lo, 0, sizeof lo);
        memset(&hi, 0, sizeof hi);
        lo.kind = hi.kind = PM_V_DECIMAL;
        lo.u.dec = dec[i].min;
        hi.u.dec = dec[i].max;
        have = 1;
      }
    } else if (t->root == PM_DT_FLOAT || t->root == PM_DT_DOUBLE) {
      if (dec[i].has) {
        memset(&lo, 0, sizeof lo);
        memset(&hi, 0, sizeof hi);
        lo.kind = hi.kind = t->root == PM_DT_FLOAT ? PM_V_FLOAT : PM_V_DOUBLE;
        lo.u.f64 = dec[i].fmin;
        hi.u.f64 = dec[i].fmax;
        have = 1;
      }
    } else if (c->has_min_max) {
      have = lit_value(t, &c->min, &lo) && lit_value(t, &c->max, &hi);
    }
    if (!rc && have) rc = pm_stats_collector_add(sc, i, &lo, err);
    if (!rc && have) rc = pm_stats_collector_add(sc, i, &hi, err);
  }
  if (!rc) rc = pm_stats_collector_finish(sc, dense, arena, out, out_cols, err);
  pm_stats_collector_free(sc);
  return rc;
}

/* The file index of a completed data file as Java's DataFileIndexWriter.close decides:
 * embedded in the meta up to file-index.in-manifest-threshold bytes, else written as
 * "<file>.index" beside the data file (published whole, create-if-absent) and listed in
 * the meta's extra files; its path joins the slot's so that an abort deletes it. */
static int wfile_index(pm_table_write *w, pm_wslot *s, pm_wfile *f, const char *data_path, pm_data_file_meta *m,
                       pm_error *err) {
  pm_buf b;
  pm_buf_init(&b);
  int rc = pm_fidx_writer_finish(f->fidx, &b, err);
  if (!rc && (int64_t)b.len <= w->t->co.file_index_in_manifest_threshold) {
    uint8_t *copy = pm_arena_alloc(&w->arena, b.len ? b.len : 1);
    if (!copy) rc = PM_NOMEM(err);
    else {
      if (b.len) memcpy(copy, b.data, b.len);
      m->embedded_index.data = copy;
      m->embedded_index.len = b.len;
      m->has_embedded_index = 1;
    }
  } else if (!rc) {
    size_t pl = strlen(data_path) + sizeof PM_FIDX_FILE_SUFFIX;
    char *ipath = malloc(pl);
    char *iname = pm_arena_alloc(&w->arena, strlen(f->name) + sizeof PM_FIDX_FILE_SUFFIX);
    const char **list = pm_arena_alloc(&w->arena, sizeof *list);
    char **np = realloc(s->index_paths, (s->n_index_paths + 1) * sizeof *np);
    if (np) s->index_paths = np;
    if (!ipath || !iname || !list || !np) {
      free(ipath);
      rc = PM_NOMEM(err);
    } else {
      snprintf(ipath, pl, "%s%s", data_path, PM_FIDX_FILE_SUFFIX);
      snprintf(iname, strlen(f->name) + sizeof PM_FIDX_FILE_SUFFIX, "%s%s", f->name, PM_FIDX_FILE_SUFFIX);
      rc = pm_fs_write_file(w->t->fs, ipath, b.data, b.len, PM_OUT_CREATE_IF_ABSENT, err);
      if (rc) free(ipath);
      else {
        s->index_paths[s->n_index_paths++] = ipath;
        list[0] = iname;
        m->extra_files = (pm_str_list){list, 1, 0};
      }
    }
  }
  pm_buf_free(&b);
  return rc;
}

int pm_wfile_close(pm_table_write *w, pm_wslot *s, pm_error *err) {
  pm_wfile *f = s->open;
  if (!f) return 0;
  s->open = NULL;
  w->n_open--;
  if (s->n_files == s->cap_files) {
    size_t cap = s->cap_files ? 2 * s->cap_files : 4;
    pm_data_file_meta *nf = realloc(s->files, cap * sizeof *nf);
    if (nf) s->files = nf;
    char **np = nf ? realloc(s->file_paths, cap * sizeof *np) : NULL;
    if (np) s->file_paths = np;
    if (!nf || !np) {
      pm_format_writer_abort(f->fw);
      wfile_free(f);
      return PM_NOMEM(err);
    }
    s->cap_files = cap;
  }
  pm_format_write_result res;
  memset(&res, 0, sizeof res);
  int rc = pm_format_writer_close(f->fw, &res, err);
  f->fw = NULL;
  if (rc) {
    wfile_free(f);
    return rc;
  }
  /* from here the file is complete: keep its path so that free can delete it */
  pm_data_file_meta *m = &s->files[s->n_files];
  memset(m, 0, sizeof *m);
  s->file_paths[s->n_files] = f->path;
  f->path = NULL;
  s->n_files++;
  m->file_name = pm_arena_strdup(&w->arena, f->name);
  m->external_path = f->external ? pm_arena_strdup(&w->arena, f->external) : NULL;
  if (!m->file_name || (f->external && !m->external_path)) rc = PM_NOMEM(err);
  m->file_size = (int64_t)res.file_size;
  m->row_count = res.row_count;
  m->min_key.data = PM_EMPTY_ROW_BYTES;
  m->min_key.len = sizeof PM_EMPTY_ROW_BYTES;
  m->max_key = m->min_key;
  pm_simple_stats_empty(&m->key_stats);
  m->min_sequence_number = f->min_seq;
  m->max_sequence_number = f->min_seq + res.row_count - 1;
  m->schema_id = w->t->schema_id;
  m->level = 0;
  m->creation_time_millis = pm_write_local_millis();
  m->has_creation_time = 1;
  m->delete_row_count = 0;
  m->has_delete_row_count = 1;
  m->file_source = PM_SOURCE_APPEND;
  m->write_cols.is_null = 1;
  m->write_cols_sequences_is_null = 1;
  if (!rc && f->fidx) rc = wfile_index(w, s, f, s->file_paths[s->n_files - 1], m, err);
  if (!rc && w->own_fields) { /* Java's withWriteType: the file's columns */
    const char **v = pm_arena_alloc(&w->arena, (w->n_fields + 1) * sizeof *v);
    if (!v) rc = PM_NOMEM(err);
    for (size_t i = 0; !rc && i < w->n_fields; i++)
      if (!(v[i] = pm_arena_strdup(&w->arena, w->fields[i].name))) rc = PM_NOMEM(err);
    if (!rc) m->write_cols = (pm_str_list){v, (int32_t)w->n_fields, 0};
  }
  if (!rc)
    rc = pm_write_stats(w->fields, w->n_fields, w->modes, res.columns, res.n_columns, f->dec, w->dense, &w->arena,
                        &m->value_stats, &m->value_stats_cols, err);
  if (!rc) {
    w->closed_fed += f->fed;
    w->closed_bytes += res.file_size;
  }
  if (w->seq_per_file) s->next_seq = 0;
  pm_format_write_result_free(&res);
  wfile_free(f);
  return rc;
}
