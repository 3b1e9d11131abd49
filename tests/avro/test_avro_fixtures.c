/* Every Avro container under shared/fixtures, decoded by our reader, compared
 * record by record with avro-dump (an independent avsc-based reader). The
 * oracle's output is recorded in oracle_dumps.jsonl.gz (gen_oracle.sh) so the
 * test stays fast; test_avro_writer runs avro-dump live on our own files. */
#include <jansson.h>
#include <zlib.h>

#include "format/avro/avro.h"
#include "harness.h"

typedef struct oracle_file {
  char *path;      /* relative to shared/ */
  char *header;    /* avro-dump header line */
  char **records;  /* one JSON line each */
  size_t count, cap;
} oracle_file;

static oracle_file *files;
static size_t file_count;

static char *dup_line(const char *s) {
  size_t n = strlen(s);
  while (n && (s[n - 1] == '\n' || s[n - 1] == '\r')) n--;
  char *p = malloc(n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

static void load_oracle(void) {
  gzFile gz = gzopen(PAIMON_SOURCE_DIR "/tests/avro/oracle_dumps.jsonl.gz", "rb");
  CHECK(gz != NULL);
  if (!gz) return;
  size_t cap = 1 << 20;
  char *line = malloc(cap);
  size_t cap_files = 0;
  while (gzgets(gz, line, (int)cap)) {
    CHECK(strlen(line) < cap - 1); /* no line longer than the buffer */
    if (!strncmp(line, "#FILE ", 6)) {
      if (file_count == cap_files) {
        cap_files = cap_files ? cap_files * 2 : 64;
        files = realloc(files, cap_files * sizeof *files);
      }
      memset(&files[file_count], 0, sizeof files[file_count]);
      files[file_count++].path = dup_line(line + 6);
    } else if (file_count) {
      oracle_file *f = &files[file_count - 1];
      if (!f->header) {
        f->header = dup_line(line);
      } else {
        if (f->count == f->cap) {
          f->cap = f->cap ? f->cap * 2 : 16;
          f->records = realloc(f->records, f->cap * sizeof *f->records);
        }
        f->records[f->count++] = dup_line(line);
      }
    }
  }
  free(line);
  gzclose(gz);
}

static void free_oracle(void) {
  for (size_t i = 0; i < file_count; i++) {
    free(files[i].path);
    free(files[i].header);
    for (size_t k = 0; k < files[i].count; k++) free(files[i].records[k]);
    free(files[i].records);
  }
  free(files);
}

static void full_path(char *out, size_t n, const char *rel) { snprintf(out, n, "%s/%s", PAIMON_SHARED_DIR, rel); }

static void hex16(char *out, const uint8_t *b) {
  strcpy(out, "0x");
  for (int i = 0; i < 16; i++) sprintf(out + 2 + 2 * i, "%02x", b[i]);
}

/* Header: codec, sync and schema (as JSON values) must match avro-dump's. */
static void compare_header(pm_avro_reader *r, const oracle_file *f) {
  json_error_t jerr;
  json_t *h = json_loads(f->header, 0, &jerr);
  CHECK_MSG(h != NULL, "%s: oracle header not JSON", f->path);
  if (!h) return;
  CHECK_EQ_STR(pm_avro_reader_codec_name(r), json_string_value(json_object_get(h, "codec")));
  char sync[40];
  hex16(sync, pm_avro_reader_sync(r));
  CHECK_EQ_STR(sync, json_string_value(json_object_get(h, "sync")));
  size_t len;
  const char *sj = pm_avro_reader_schema_json(r, &len);
  json_t *ours = json_loadb(sj, len, 0, &jerr);
  CHECK_MSG(ours && json_equal(ours, json_object_get(h, "schema")), "%s: schema differs", f->path);
  json_decref(ours);
  json_decref(h);
}

static size_t total_records, total_files;

static void check_file(const oracle_file *f) {
  char path[4096];
  full_path(path, sizeof path, f->path);
  pm_error err;
  pm_avro_reader *r;
  int rc = pm_avro_reader_open_path(path, &r, &err);
  CHECK_MSG(rc == 0, "%s: %s", f->path, err.message);
  if (rc) return;
  compare_header(r, f);
  const pm_avro_schema *root = pm_avro_reader_schema(r);
  pm_buf line;
  pm_buf_init(&line);
  size_t k = 0;
  int ok = 1;
  for (;;) {
    pm_avro_cursor cur;
    int64_t n;
    rc = pm_avro_reader_next_block(r, &cur, &n, &err);
    CHECK_MSG(rc == 0, "%s: %s", f->path, err.message);
    if (rc || n == 0) break;
    /* Fast path: skipping whole records lands exactly at the block end. */
    pm_avro_cursor skip = cur;
    for (int64_t i = 0; i < n; i++) pm_avro_skip(&skip, root);
    CHECK_MSG(!pm_avro_cursor_failed(&skip) && pm_avro_cursor_at_end(&skip), "%s: skip did not end at block end",
              f->path);
    for (int64_t i = 0; i < n; i++, k++) {
      pm_avro_value v;
      rc = pm_avro_decode_value(&cur, root, &v, &err);
      CHECK_MSG(rc == 0, "%s record %zu: %s", f->path, k, err.message);
      line.len = 0;
      CHECK_OK(pm_avro_value_to_json(&v, &line, &err), &err);
      pm_avro_value_clear(&v);
      if (rc) break;
      CHECK_OK(pm_buf_push_u8(&line, 0), &err);
      if (ok && (k >= f->count || strcmp((char *)line.data, f->records[k]) != 0)) {
        ok = 0;
        CHECK_MSG(0, "%s record %zu differs:\n ours:   %s\n oracle: %s", f->path, k, (char *)line.data,
                  k < f->count ? f->records[k] : "(none)");
      }
    }
    CHECK(pm_avro_cursor_at_end(&cur));
    if (rc) break;
  }
  CHECK_MSG(k == f->count, "%s: %zu records, oracle %zu", f->path, k, f->count);
  total_records += k;
  total_files++;
  pm_buf_free(&line);
  pm_avro_reader_close(r);
}

static void test_all_fixture_files(void) {
  CHECK(file_count >= 200); /* the fixtures hold 236 Avro containers */
  for (size_t i = 0; i < file_count; i++) check_file(&files[i]);
  fprintf(stderr, "compared %zu files, %zu records\n", total_files, total_records);
}

/* Field resolution by name on real manifests: old (0.9, nullable records) and new layouts. */
static void test_record_map_on_manifests(void) {
  size_t manifests = 0, nullable_file = 0;
  for (size_t i = 0; i < file_count; i++) {
    const char *base = strrchr(files[i].path, '/');
    if (!base || strncmp(base, "/manifest-", 10) || !strncmp(base, "/manifest-list-", 15)) continue;
    char path[4096];
    full_path(path, sizeof path, files[i].path);
    pm_error err;
    pm_avro_reader *r;
    if (pm_avro_reader_open_path(path, &r, &err)) continue;
    static const char *const top[] = {"_KIND", "_BUCKET", "_FILE", "_NO_SUCH_FIELD"};
    static const char *const inner[] = {"_FILE_NAME", "_ROW_COUNT", "_LEVEL", "_WRITE_COLS_SEQUENCES"};
    pm_avro_record_map tm, fm;
    CHECK_OK(pm_avro_record_map_init(&tm, pm_avro_reader_schema(r), top, 4, path, &err), &err);
    CHECK_EQ_INT(tm.wanted[3].writer_index, -1);
    CHECK(tm.wanted[2].writer_index >= 0);
    const pm_avro_schema *file_rec = tm.wanted[2].value_type;
    if (tm.wanted[2].null_branch >= 0) nullable_file++;
    CHECK_OK(pm_avro_record_map_init(&fm, file_rec, inner, 4, path, &err), &err);
    CHECK(fm.wanted[0].writer_index == 0);
    int top_null = pm_avro_reader_schema(r)->type == PM_AVRO_UNION;
    /* Decode the wanted fields with the fast cursor; check against the generic decoder. */
    pm_avro_cursor cur;
    int64_t n;
    while (pm_avro_reader_next_block(r, &cur, &n, &err) == 0 && n > 0) {
      pm_avro_cursor again = cur;
      for (int64_t e = 0; e < n; e++) {
        if (top_null) CHECK_EQ_INT(pm_avro_read_union(&cur), 1);
        int32_t kind = -1, bucket = -99, level = -1;
        int64_t rows = -1;
        pm_avro_bytes name = {0, 0};
        for (size_t w = 0; w < tm.writer_count; w++) {
          int32_t slot = tm.slot_of_writer_field[w];
          if (slot == 0) kind = pm_avro_read_int(&cur);
          else if (slot == 1) bucket = pm_avro_read_int(&cur);
          else if (slot == 2) {
            if (pm_avro_read_null_of(&cur, &tm.wanted[2])) continue;
            for (size_t g = 0; g < fm.writer_count; g++) {
              int32_t s2 = fm.slot_of_writer_field[g];
              if (s2 == 0) name = pm_avro_read_string(&cur);
              else if (s2 == 1) rows = pm_avro_read_long(&cur);
              else if (s2 == 2) level = pm_avro_read_int(&cur);
              else pm_avro_skip(&cur, fm.record->fields[g].type);
            }
          } else {
            pm_avro_skip(&cur, tm.record->fields[w].type);
          }
        }
        CHECK(!pm_avro_cursor_failed(&cur));
        /* The generic decoder agrees. */
        pm_avro_value v;
        CHECK_OK(pm_avro_decode_value(&again, pm_avro_reader_schema(r), &v, &err), &err);
        const pm_avro_value *rec = &v;
        int32_t ki = pm_avro_field_index(rec->schema, "_KIND"), bi = pm_avro_field_index(rec->schema, "_BUCKET");
        int32_t fi = pm_avro_field_index(rec->schema, "_FILE");
        CHECK(ki >= 0 && bi >= 0 && fi >= 0);
        if (ki >= 0 && bi >= 0 && fi >= 0) {
          CHECK_EQ_INT(rec->items[ki].u.l, kind);
          CHECK_EQ_INT(rec->items[bi].u.l, bucket);
          const pm_avro_value *fv = &rec->items[fi];
          CHECK(fv->schema->type == PM_AVRO_RECORD);
          CHECK(fv->items[0].len == name.len && memcmp(fv->items[0].bytes, name.ptr, name.len) == 0);
          CHECK_EQ_INT(fv->items[2].u.l, rows);
          int32_t li = pm_avro_field_index(fv->schema, "_LEVEL");
          CHECK(li >= 0 && fv->items[li].u.l == level);
        }
        pm_avro_value_clear(&v);
      }
      CHECK(pm_avro_cursor_at_end(&cur));
    }
    pm_avro_record_map_free(&fm);
    pm_avro_record_map_free(&tm);
    pm_avro_reader_close(r);
    manifests++;
  }
  CHECK(manifests > 50);
  CHECK(nullable_file > 0); /* the 0.9-era fixtures wrap _FILE in ["null", record] */
  fprintf(stderr, "resolved fields in %zu manifests (%zu with nullable _FILE)\n", manifests, nullable_file);
}

int main(void) {
  load_oracle();
  RUN_TEST(test_all_fixture_files);
  RUN_TEST(test_record_map_on_manifests);
  free_oracle();
  TEST_MAIN_END();
}
