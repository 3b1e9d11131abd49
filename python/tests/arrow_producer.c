/*
 * A standalone Arrow C data / stream producer for the binding's write tests: it shares no code
 * with libpaimon or paimon_c (the structs are declared here from the Arrow C ABI). Compiled by
 * test_arrow_input.py into a shared object and driven through ctypes.
 *
 * Rows: struct<id: int32 not null, name: utf8>, id = 0, 1, 2, ...; name = "n<id>", null when
 * id % 7 == 3 (the first column's name is set by ap_id_column). ap_live() counts the schemas, arrays and streams made and not yet released, so a
 * test can prove the consumer released everything it was handed.
 */
#define _POSIX_C_SOURCE 200809L
#include <poll.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

struct ArrowSchema {
  const char *format;
  const char *name;
  const char *metadata;
  int64_t flags;
  int64_t n_children;
  struct ArrowSchema **children;
  struct ArrowSchema *dictionary;
  void (*release)(struct ArrowSchema *);
  void *private_data;
};

struct ArrowArray {
  int64_t length;
  int64_t null_count;
  int64_t offset;
  int64_t n_buffers;
  int64_t n_children;
  const void **buffers;
  struct ArrowArray **children;
  struct ArrowArray *dictionary;
  void (*release)(struct ArrowArray *);
  void *private_data;
};

struct ArrowArrayStream {
  int (*get_schema)(struct ArrowArrayStream *, struct ArrowSchema *out);
  int (*get_next)(struct ArrowArrayStream *, struct ArrowArray *out);
  const char *(*get_last_error)(struct ArrowArrayStream *);
  void (*release)(struct ArrowArrayStream *);
  void *private_data;
};

static long live;
static char id_name[64] = "id";

long ap_live(void) { return live; }

/* The name of the first column (default "id"; "_ROW_ID" for row-id updates). */
void ap_id_column(const char *name) { snprintf(id_name, sizeof id_name, "%s", name); }

/* ---- schema: a parent "+s" owning two heap children */

static void schema_release_child(struct ArrowSchema *s) {
  s->release = NULL;
  live--;
}

static void schema_release(struct ArrowSchema *s) {
  for (int64_t i = 0; i < s->n_children; i++) {
    struct ArrowSchema *c = s->children[i];
    if (c->release) c->release(c);
    free(c);
  }
  free(s->children);
  s->release = NULL;
  live--;
}

static void make_schema(struct ArrowSchema *out) {
  static const char *const fmt[2] = {"i", "u"};
  const char *const nm[2] = {id_name, "name"};
  memset(out, 0, sizeof *out);
  out->format = "+s";
  out->name = "";
  out->n_children = 2;
  out->children = calloc(2, sizeof *out->children);
  for (int i = 0; i < 2; i++) {
    struct ArrowSchema *c = calloc(1, sizeof *c);
    c->format = fmt[i];
    c->name = nm[i];
    c->flags = i ? 2 : 0; /* ARROW_FLAG_NULLABLE on name */
    c->release = schema_release_child;
    out->children[i] = c;
    live++;
  }
  out->release = schema_release;
  live++;
}

/* ---- arrays: every array owns its buffers (freed by its release) */

static void array_release(struct ArrowArray *a) {
  for (int64_t i = 0; i < a->n_children; i++) {
    struct ArrowArray *c = a->children[i];
    if (c->release) c->release(c);
    free(c);
  }
  free(a->children);
  for (int64_t i = 0; i < a->n_buffers; i++) free((void *)a->buffers[i]);
  free(a->buffers);
  a->release = NULL;
  live--;
}

static struct ArrowArray *new_array(int64_t length, int64_t n_buffers) {
  struct ArrowArray *a = calloc(1, sizeof *a);
  a->length = length;
  a->n_buffers = n_buffers;
  a->buffers = calloc((size_t)n_buffers, sizeof *a->buffers);
  a->release = array_release;
  live++;
  return a;
}

static void make_batch(struct ArrowArray *out, int64_t start, int64_t n) {
  struct ArrowArray *ids = new_array(n, 2), *names = new_array(n, 3);
  int32_t *iv = malloc((size_t)(n ? n : 1) * sizeof *iv);
  uint8_t *valid = calloc((size_t)(n + 7) / 8 + 1, 1);
  int32_t *offs = malloc((size_t)(n + 1) * sizeof *offs);
  char *data = malloc((size_t)n * 12 + 1);
  int32_t len = 0;
  offs[0] = 0;
  for (int64_t i = 0; i < n; i++) {
    int64_t id = start + i;
    iv[i] = (int32_t)id;
    if (id % 7 == 3) {
      names->null_count++;
    } else {
      valid[i / 8] |= (uint8_t)(1u << (i % 8));
      len += sprintf(data + len, "n%lld", (long long)id);
    }
    offs[i + 1] = len;
  }
  ids->buffers[1] = iv;
  names->buffers[0] = valid;
  names->buffers[1] = offs;
  names->buffers[2] = data;
  memset(out, 0, sizeof *out);
  out->length = n;
  out->n_buffers = 1;
  out->buffers = calloc(1, sizeof *out->buffers);
  out->n_children = 2;
  out->children = calloc(2, sizeof *out->children);
  out->children[0] = ids;
  out->children[1] = names;
  out->release = array_release;
  live++;
}

/* One batch of rows [start, start + n) as a schema + array pair. */
void ap_batch(struct ArrowSchema *schema, struct ArrowArray *array, int64_t start, int64_t n) {
  make_schema(schema);
  make_batch(array, start, n);
}

/* Releases whatever of a schema / array pair is still live. */
void ap_release_batch(struct ArrowSchema *schema, struct ArrowArray *array) {
  if (schema && schema->release) schema->release(schema);
  if (array && array->release) array->release(array);
}

/* ---- stream of rows [start, end) in batches of `batch` */

typedef struct {
  int64_t next, end, batch;
  int gate; /* >= 0: each batch waits for one byte on this descriptor (at most 5 s) */
} stream_state;

static int stream_get_schema(struct ArrowArrayStream *s, struct ArrowSchema *out) {
  (void)s;
  make_schema(out);
  return 0;
}

static int stream_get_next(struct ArrowArrayStream *s, struct ArrowArray *out) {
  stream_state *st = s->private_data;
  if (st->next >= st->end) {
    memset(out, 0, sizeof *out); /* end of stream: released array */
    return 0;
  }
  if (st->gate >= 0) {
    struct pollfd p = {.fd = st->gate, .events = POLLIN};
    char c;
    if (poll(&p, 1, 5000) != 1 || read(st->gate, &c, 1) != 1) return 5; /* EIO: the gate never opened */
  }
  int64_t n = st->end - st->next < st->batch ? st->end - st->next : st->batch;
  make_batch(out, st->next, n);
  st->next += n;
  return 0;
}

static const char *stream_last_error(struct ArrowArrayStream *s) {
  stream_state *st = s->private_data;
  return st->gate >= 0 ? "arrow_producer: no byte on the gate descriptor within 5 s" : NULL;
}

static void stream_release(struct ArrowArrayStream *s) {
  free(s->private_data);
  s->release = NULL;
  live--;
}

/* gate: -1, or a descriptor each batch first reads one byte from (a test proves the consumer
 * runs the stream without holding the GIL: the Python thread feeding the gate must run). */
void ap_stream(struct ArrowArrayStream *out, int64_t start, int64_t end, int64_t batch, int gate) {
  stream_state *st = calloc(1, sizeof *st);
  st->gate = gate;
  st->next = start;
  st->end = end;
  st->batch = batch > 0 ? batch : 1;
  out->get_schema = stream_get_schema;
  out->get_next = stream_get_next;
  out->get_last_error = stream_last_error;
  out->release = stream_release;
  out->private_data = st;
  live++;
}

void ap_release_stream(struct ArrowArrayStream *s) {
  if (s && s->release) s->release(s);
}
