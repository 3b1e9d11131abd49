/* Parquet writer: several pages and row groups, the page row limit, and the
 * dictionary fallback to PLAIN (at the first page, and mid-chunk when the
 * dictionary outgrows its limit). Checked by the oracles. */
#include "support/test_write_util.h"

#define ROWS 50000

static char *text_of(int64_t i, char *buf) {
  snprintf(buf, 32, "k%03d", (int)(i % 300));
  return buf;
}

static char *fb_of(int64_t i, char *buf) {
  if (i < 8000) snprintf(buf, 32, "r%d", (int)(i % 10));
  else snprintf(buf, 32, "u%d", (int)i);
  return buf;
}

static void build(struct ArrowSchema *s, struct ArrowArray *a) {
  pm_error err;
  tw_schema(s, "+s", NULL, 0, 4);
  tw_schema(s->children[0], "l", "id", 0, 0);
  tw_schema(s->children[1], "u", "s", 1, 0);
  tw_schema(s->children[2], "g", "d", 1, 0);
  tw_schema(s->children[3], "u", "fb", 1, 0);
  if (pm_array_init(a, ROWS, 1, 4, &err)) abort();
  int64_t *ids = malloc(ROWS * 8);
  double *d = malloc(ROWS * 8);
  char *dv = malloc(ROWS + 1);
  const char **sv = malloc(ROWS * sizeof *sv);
  const char **fv = malloc(ROWS * sizeof *fv);
  char (*sbuf)[32] = malloc((size_t)ROWS * 32);
  char (*fbuf)[32] = malloc((size_t)ROWS * 32);
  for (int64_t i = 0; i < ROWS; i++) {
    ids[i] = i;
    d[i] = (double)i * 0.5;
    dv[i] = i % 7 == 0 ? '0' : '1';
    sv[i] = i % 11 == 0 ? NULL : text_of(i, sbuf[i]);
    fv[i] = fb_of(i, fbuf[i]);
  }
  dv[ROWS] = 0;
  tw_prim(a->children[0], ROWS, ids, 8, NULL);
  tw_str(a->children[1], ROWS, sv, NULL);
  tw_prim(a->children[2], ROWS, d, 8, dv);
  tw_str(a->children[3], ROWS, fv, NULL);
  free(ids);
  free(d);
  free(dv);
  free(sv);
  free(fv);
  free(sbuf);
  free(fbuf);
}

static char *expected_rows(void) {
  pm_buf b;
  pm_buf_init(&b);
  char line[160], t1[32], t2[32];
  for (int64_t i = 0; i < ROWS; i++) {
    char s[40], d[40];
    if (i % 11 == 0) snprintf(s, sizeof s, "null");
    else snprintf(s, sizeof s, "\"%s\"", text_of(i, t1));
    if (i % 7 == 0) snprintf(d, sizeof d, "null");
    else if (i % 2 == 0) snprintf(d, sizeof d, "%lld", (long long)(i / 2));
    else snprintf(d, sizeof d, "%lld.5", (long long)(i / 2));
    int n = snprintf(line, sizeof line, "[%lld,%s,%s,\"%s\"]\n", (long long)i, s, d, fb_of(i, t2));
    pm_buf_append(&b, line, (size_t)n);
  }
  pm_buf_push_u8(&b, 0);
  char *r = malloc(b.len);
  memcpy(r, b.data, b.len);
  pm_buf_free(&b);
  return r;
}

/* 1 if needle occurs in the line starting at l. */
static int in_line(const char *l, const char *needle) {
  if (!l) return 0;
  const char *e = strchr(l, '\n'), *f = strstr(l, needle);
  return f && (!e || f < e);
}

static void test_pages_and_row_groups(void) {
  struct ArrowSchema s;
  struct ArrowArray a;
  build(&s, &a);
  pm_pq_write_options o;
  pm_pq_write_options_default(&o);
  o.page_rows = 4000;
  o.row_group_rows = 20000;
  o.dictionary_page_bytes = 4096;
  pm_error err;
  pm_pq_writer *w = NULL;
  const char *p = tw_path("pages.parquet");
  CHECK_OK(pm_pq_writer_open(p, &s, &o, &w, &err), &err);
  if (!w) return;
  /* uneven batches */
  int64_t done = 0, step = 7777;
  while (done < ROWS) {
    struct ArrowArray part = a;
    part.offset = done;
    part.length = ROWS - done < step ? ROWS - done : step;
    CHECK_OK(pm_pq_writer_write(w, &part, &err), &err);
    done += part.length;
  }
  CHECK_OK(pm_pq_writer_close(w, &err), &err);
  const pm_pq_write_result *r = pm_pq_writer_result(w);
  CHECK(r && r->num_rows == ROWS && r->num_row_groups == 3);
  if (r) {
    CHECK(r->columns[0].min_i64 == 0 && r->columns[0].max_i64 == ROWS - 1);
    CHECK_EQ_INT(r->columns[1].null_count, (ROWS + 10) / 11);
    CHECK_EQ_INT(r->columns[2].null_count, (ROWS + 6) / 7);
    CHECK(r->columns[2].max_f64 == (ROWS - 1) * 0.5);
  }
  pm_pq_writer_free(w);
  pm_schema_release(&s);
  pm_array_release(&a);

  CHECK(tw_check(p));
  /* id, d: plain, 5+5+3 pages each; s: a dictionary page per row group + 5+5+3; fb: rg0 dictionary page,
   * 2 dictionary-encoded pages then plain after the dictionary passed 4096 bytes, rg1/rg2 plain */
  CHECK_MSG(strstr(tw_last_check, "(pages=56,crc=56)") != NULL, "%s", tw_last_check);
  char *meta = tw_dump(p, "--meta");
  CHECK(meta != NULL);
  if (meta) {
    int rg2 = strstr(meta, "\"row_group_id\":2") != NULL && strstr(meta, "\"row_group_id\":3") == NULL;
    CHECK(rg2);
    /* the fb chunk of row group 0 mixes both encodings; later ones are PLAIN only */
    const char *l = strstr(meta, "\"path_in_schema\":\"fb\"");
    CHECK(in_line(l, "\"encodings\":\"PLAIN_DICTIONARY, PLAIN, BIT_PACKED, RLE\""));
    const char *l2 = l ? strstr(l + 1, "\"path_in_schema\":\"fb\"") : NULL;
    CHECK(in_line(l2, "\"encodings\":\"PLAIN, BIT_PACKED, RLE\""));
    free(meta);
  }
  char *want = expected_rows();
  CHECK(tw_canon_equals(p, want));
  free(want);
}

int main(void) {
  RUN_TEST(test_pages_and_row_groups);
  tw_cleanup();
  TEST_MAIN_END();
}
