/*
 * Helpers of the expiry tests (tests/api/test_expire*.c): record what every
 * snapshot and tag of a table reads before an operation, with both readers
 * (ours and paimon-table), and verify afterwards that each one that is
 * retained reads exactly the same; collect the files the table references
 * (table/table_files.h walker) to check that files no longer referenced are
 * gone and every referenced file exists.
 *
 * Header-only (static functions).
 */
#ifndef PM_TESTS_SUPPORT_EXPIRE_CHECK_H
#define PM_TESTS_SUPPORT_EXPIRE_CHECK_H

#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "api/api_internal.h"
#include "harness.h"
#include "meta/snapshot.h"
#include "support/oracle_table.h"
#include "support/oracle_write.h"
#include "table/table.h"
#include "table/scan.h"
#include "table/table_files.h"

typedef struct ec_state {
  long long snap;  /* snapshot id, or the tag's snapshot id */
  char tag[64];    /* "" for snapshots */
  json_t *rows;    /* rows (oracle = ours), owned */
} ec_state;

typedef struct ec_record {
  ec_state *items;
  size_t n;
} ec_record;

/* paimon-table read of tag `tag` of table dir: a scratch copy of the table's metadata whose only
 * snapshot is the tag (data and manifests are read through the original directory). */
static inline json_t *ec_oracle_tag(const char *dir, const char *tag, const char *scratch_root) {
  if (strlen(dir) > 1500 || strlen(scratch_root) > 900 || strlen(tag) > 200) return NULL;
  char scratch[1024], cmd[16384];
  snprintf(scratch, sizeof scratch, "%s/tagread", scratch_root);
  /* the copy shares data and manifests by symlink; snapshot/ holds the tag only */
  snprintf(cmd, sizeof cmd,
           "rm -rf '%s' && mkdir -p '%s/snapshot' && for f in '%s'/*; do b=$(basename \"$f\"); "
           "[ \"$b\" = snapshot ] || [ \"$b\" = tag ] || ln -s \"$f\" '%s'/\"$b\"; done && "
           "id=$(sed -n 's/^  \"id\" : \\([0-9]*\\),$/\\1/p' '%s/tag/tag-%s' | head -1) && "
           "cp '%s/tag/tag-%s' '%s/snapshot/snapshot-'$id && printf %%s $id > '%s/snapshot/LATEST' && "
           "printf %%s $id > '%s/snapshot/EARLIEST'",
           scratch, scratch, dir, scratch, dir, tag, dir, tag, scratch, scratch, scratch);
  if (system(cmd) != 0) return NULL;
  int rc = 0;
  char *e = NULL;
  json_t *rows = ot_read(scratch, "", &rc, &e);
  if (!rows) fprintf(stderr, "paimon-table read of tag %s: exit %d %s\n", tag, rc, e ? e : "");
  free(e);
  return rows;
}

/* Rows of snapshot `snap` (tag NULL) or of tag `tag`, by our reader. */
static inline json_t *ec_ours(const paimon_table *t, long long snap, const char *tag) {
  char v[32];
  snprintf(v, sizeof v, "%lld", snap);
  paimon_option o = {tag ? "scan.tag-name" : "scan.snapshot-id", tag ? tag : v};
  paimon_error err = {0};
  json_t *rows = ow_read_ours_opts(t, &o, 1, &err);
  if (!rows) fprintf(stderr, "our read of %s %s: %s\n", tag ? "tag" : "snapshot", tag ? tag : v, err.message);
  return rows;
}

static inline json_t *ec_oracle(const char *dir, long long snap, const char *tag, const char *scratch_root) {
  if (tag) return ec_oracle_tag(dir, tag, scratch_root);
  char extra[64];
  snprintf(extra, sizeof extra, "--snapshot %lld", snap);
  int rc = 0;
  char *e = NULL;
  json_t *rows = ot_read(dir, extra, &rc, &e);
  if (!rows) fprintf(stderr, "paimon-table read %s %s: exit %d %s\n", dir, extra, rc, e ? e : "");
  free(e);
  return rows;
}

/* Records every snapshot and tag of the table's branch: both readers must agree (use_oracle 0:
 * our reader only, for tests that anchor a few of the states with the oracle themselves). */
static inline void ec_record_all_with(const paimon_table *pt, const char *dir, const char *scratch_root, ec_record *r,
                                      int use_oracle) {
  memset(r, 0, sizeof *r);
  pm_table *t = pt->t;
  pm_snapshot_manager sm = pm_table_snapshots(t);
  pm_error err = {0};
  int64_t *ids = NULL;
  size_t n = 0;
  CHECK_OK(pm_snapshot_list_ids(&sm, &ids, &n, &err), &err);
  char **tags = NULL;
  size_t nt = 0;
  CHECK_OK(pm_tag_list(&sm, &tags, &nt, &err), &err);
  r->items = calloc(n + nt + 1, sizeof *r->items);
  for (size_t i = 0; i < n + nt; i++) {
    ec_state *s = &r->items[r->n];
    const char *tag = i < n ? NULL : tags[i - n];
    if (tag) {
      pm_snapshot *ts = NULL;
      CHECK_OK(pm_tag_read(&sm, tag, &ts, &err), &err);
      s->snap = ts ? ts->id : 0;
      pm_snapshot_free(ts);
      snprintf(s->tag, sizeof s->tag, "%s", tag);
    } else {
      s->snap = ids[i];
    }
    json_t *ours = ec_ours(pt, s->snap, tag);
    json_t *o = use_oracle ? ec_oracle(dir, s->snap, tag, scratch_root) : json_incref(ours);
    CHECK_MSG(o && ours, "%s %s %lld readable before", dir, tag ? tag : "snapshot", s->snap);
    if (o && ours && use_oracle) {
      char msg[8192];
      CHECK_MSG(ot_rows_match(o, ours, msg, sizeof msg), "%s %s %lld: our read != paimon-table: %s", dir,
                tag ? tag : "snapshot", s->snap, msg);
    }
    json_decref(ours);
    s->rows = o;
    if (o) r->n++;
  }
  free(ids);
  pm_free_names(tags, nt);
}

static inline void ec_record_all(const paimon_table *pt, const char *dir, const char *scratch_root, ec_record *r) {
  ec_record_all_with(pt, dir, scratch_root, r, 1);
}

/* Every recorded snapshot that still exists (and every recorded tag) reads as recorded with
 * both readers. Returns the number of retained states checked; *expired counts recorded
 * snapshots that are gone. */
static inline size_t ec_verify(const paimon_table *pt, const char *dir, const char *scratch_root,
                               const ec_record *r, size_t *expired, const char *what) {
  size_t checked = 0;
  if (expired) *expired = 0;
  pm_snapshot_manager sm = pm_table_snapshots(pt->t);
  for (size_t i = 0; i < r->n; i++) {
    const ec_state *s = &r->items[i];
    if (!s->tag[0]) {
      int exists = 0;
      pm_error err = {0};
      CHECK_OK(pm_snapshot_exists(&sm, s->snap, &exists, &err), &err);
      if (!exists) {
        if (expired) (*expired)++;
        continue;
      }
    }
    const char *tag = s->tag[0] ? s->tag : NULL;
    json_t *o = ec_oracle(dir, s->snap, tag, scratch_root);
    json_t *ours = ec_ours(pt, s->snap, tag);
    char msg[8192];
    CHECK_MSG(o && ot_rows_match(s->rows, o, msg, sizeof msg), "%s: %s %s %lld paimon-table read changed: %s", what,
              dir, tag ? tag : "snapshot", s->snap, o ? msg : "unreadable");
    CHECK_MSG(ours && ot_rows_match(s->rows, ours, msg, sizeof msg), "%s: %s %s %lld our read changed: %s", what,
              dir, tag ? tag : "snapshot", s->snap, ours ? msg : "unreadable");
    json_decref(o);
    json_decref(ours);
    checked++;
  }
  return checked;
}

static inline void ec_record_free(ec_record *r) {
  for (size_t i = 0; i < r->n; i++) json_decref(r->items[i].rows);
  free(r->items);
  memset(r, 0, sizeof *r);
}

/* ---- referenced files ---- */

/* The files a table needs: every metadata file the walker reaches (snapshots, tags, changelogs,
 * manifest lists, manifests, index manifests, index files, statistics), every changelog file
 * ADDed by a changelog manifest, and every data file live in a snapshot or tag of any branch
 * (with its extra files). A data file named by an ADD entry whose DELETE sits in another
 * manifest of the same snapshot is not needed (Java's expiry deletes those). */
typedef struct ec_files {
  pm_name_set set;
  char **paths;
  size_t n, cap;
  size_t missing;
  char first_missing[4096];
  pm_table *t;
} ec_files;

static inline int ec_add(ec_files *c, const char *path, const char *owner) {
  int added = 0;
  pm_error err = {0};
  if (pm_name_set_add(&c->set, path, &added, &err)) return -1;
  if (!added) return 0;
  if (access(path, F_OK) != 0) {
    if (!c->missing++) snprintf(c->first_missing, sizeof c->first_missing, "%.3000s (from %.900s)", path, owner ? owner : "?");
  }
  if (c->n == c->cap) {
    c->cap = c->cap ? c->cap * 2 : 256;
    c->paths = realloc(c->paths, c->cap * sizeof *c->paths);
  }
  c->paths[c->n++] = strdup(path);
  return 0;
}

static inline int ec_on_file(void *ctx, const pm_table_file_ref *f, pm_error *err) {
  (void)err;
  ec_files *c = ctx;
  if (f->kind == PM_TF_DATA_FILE || f->kind == PM_TF_EXTRA_FILE) return 0;
  if (f->kind == PM_TF_CHANGELOG_FILE && f->from_delete) return 0;
  /* a tag needs its data, not its changelog (table_files.h: what is left of it is reported) */
  if (f->kind == PM_TF_CHANGELOG_FILE && f->owner && strstr(f->owner, "/tag/tag-")) return 0;
  return ec_add(c, f->path, f->owner);
}

static inline void ec_add_live(ec_files *c, pm_table *t, const pm_snapshot *s, const char *owner) {
  pm_error err = {0};
  pm_manifest_entries es;
  pm_manifest_entries_init(&es);
  CHECK_OK(pm_scan_live_files(t, s, NULL, &es, &err), &err);
  for (size_t i = 0; i < es.n; i++) {
    const pm_manifest_entry *e = &es.items[i];
    char *pdir = NULL, *bpath = NULL, *fpath = NULL;
    CHECK_OK(pm_scan_partition_dir(t, e->partition.data, e->partition.len, &pdir, &err), &err);
    if (pdir) CHECK_OK(pm_table_bucket_path(t, pdir, e->bucket, &bpath, &err), &err);
    if (bpath) CHECK_OK(pm_table_data_file_path(t, bpath, e->file.file_name, e->file.external_path, &fpath, &err), &err);
    if (fpath) {
      ec_add(c, fpath, owner);
      char *sl = strrchr(fpath, '/');
      for (int32_t x = 0; sl && x < e->file.extra_files.n; x++) {
        char xp[8192];
        snprintf(xp, sizeof xp, "%.*s/%s", (int)(sl - fpath), fpath, e->file.extra_files.items[x]);
        ec_add(c, xp, owner);
      }
    }
    free(pdir);
    free(bpath);
    free(fpath);
  }
  pm_manifest_entries_clear(&es);
}

static inline void ec_add_branch_live(ec_files *c, pm_table *t) {
  pm_error err = {0};
  pm_snapshot_manager sm = pm_table_snapshots(t);
  int64_t *ids = NULL;
  size_t n = 0;
  CHECK_OK(pm_snapshot_list_ids(&sm, &ids, &n, &err), &err);
  for (size_t i = 0; i < n; i++) {
    pm_snapshot *s = NULL;
    CHECK_OK(pm_snapshot_read(&sm, ids[i], &s, &err), &err);
    if (s) ec_add_live(c, t, s, "snapshot");
    pm_snapshot_free(s);
  }
  free(ids);
  char **tags = NULL;
  size_t nt = 0;
  CHECK_OK(pm_tag_list(&sm, &tags, &nt, &err), &err);
  for (size_t i = 0; i < nt; i++) {
    pm_snapshot *s = NULL;
    CHECK_OK(pm_tag_read(&sm, tags[i], &s, &err), &err);
    if (s) ec_add_live(c, t, s, tags[i]);
    pm_snapshot_free(s);
  }
  pm_free_names(tags, nt);
}

/* The files t's table needs (fails the test on a walk error). */
static inline void ec_files_collect(pm_table *t, ec_files *c) {
  memset(c, 0, sizeof *c);
  pm_name_set_init(&c->set);
  pm_error err = {0};
  CHECK_OK(pm_table_files_walk(t, ec_on_file, c, &err), &err);
  ec_add_branch_live(c, t);
  char **branches = NULL;
  size_t nb = 0;
  CHECK_OK(pm_branch_list(t->fs, t->root, &branches, &nb, &err), &err);
  for (size_t i = 0; i < nb; i++) {
    pm_table *bt = NULL;
    CHECK_OK(pm_table_reopen(t, branches[i], NULL, &bt, &err), &err);
    if (bt) ec_add_branch_live(c, bt);
    pm_table_free(bt);
  }
  pm_free_names(branches, nb);
}

static inline void ec_files_free(ec_files *c) {
  pm_name_set_clear(&c->set);
  for (size_t i = 0; i < c->n; i++) free(c->paths[i]);
  free(c->paths);
  memset(c, 0, sizeof *c);
}

/* After an operation: every needed file exists; files needed before and not now are gone when
 * must_be_gone. Returns the number of files no longer needed. */
static inline size_t ec_files_compare(const ec_files *before, const ec_files *after, int must_be_gone,
                                      const char *what) {
  CHECK_MSG(after->missing == 0, "%s: %zu needed files missing, first %s", what, after->missing,
            after->first_missing);
  size_t dropped = 0, left = 0;
  for (size_t i = 0; i < before->n; i++) {
    if (pm_name_set_has(&after->set, before->paths[i])) continue;
    dropped++;
    if (access(before->paths[i], F_OK) == 0) {
      if (must_be_gone && !left) fprintf(stderr, "%s: unneeded file left: %s\n", what, before->paths[i]);
      left++;
    }
  }
  if (must_be_gone) CHECK_MSG(left == 0, "%s: %zu of %zu unneeded files left", what, left, dropped);
  return dropped;
}

/* `paimon-table check DIR` (flags as ot_check) passes and reports no orphan file other than files
 * in `needed` (reached from long-lived changelogs, which the oracle does not read). One kind of
 * FAIL line is accepted: "data file P referenced but missing" where P is not needed (see
 * ec_files: an ADD entry cancelled by a DELETE in another manifest of a retained snapshot,
 * whose file Java's expiry deletes too; paimon-table checks every ADD entry's file). Pass
 * needed = NULL to accept none. */
static inline int ec_check_needed_ex(const char *dir, int flags, const ec_files *needed, int allow_orphans,
                                     const char *const *allowed, size_t n_allowed, const char *what);
static inline int ec_check_no_orphans_needed(const char *dir, int flags, const ec_files *needed, const char *what) {
  return ec_check_needed_ex(dir, flags, needed, 0, NULL, 0, what);
}

/* ec_check_no_orphans_needed with orphans allowed (allow_orphans: the state after a stop) and
 * FAIL lines containing one of allowed[0..n_allowed) accepted too. */
static inline int ec_check_needed_ex(const char *dir, int flags, const ec_files *needed, int allow_orphans,
                                     const char *const *allowed, size_t n_allowed, const char *what) {
  char args[4200];
  snprintf(args, sizeof args, "check '%s'%s%s", dir, (flags & OT_AFTER_CRASH) ? " --after-crash" : "",
           (flags & OT_ALLOW_OLD) ? " --allow-old" : "");
  char *out = NULL, *e = NULL;
  int rc = ot_tool_on(dir, args, &out, &e);
  int orphans = 0, bad = 0, accepted = 0;
  for (const char *p = out; p && *p;) {
    const char *nl = strchr(p, '\n');
    size_t len = nl ? (size_t)(nl - p) : strlen(p);
    char line[4096];
    snprintf(line, sizeof line, "%.*s", (int)(len < sizeof line ? len : sizeof line - 1), p);
    if (strstr(line, "orphan")) {
      /* the oracle does not look into long-lived changelogs (changelog/changelog-<id>): what our
       * walker reaches from them is needed, not an orphan */
      const char *o = strstr(line, ": orphan");
      char abs[12288] = "";
      if (!strncmp(line, "WARN ", 5) && o && needed)
        snprintf(abs, sizeof abs, "%s%s%.*s", line[5] == '/' ? "" : dir, line[5] == '/' ? "" : "/",
                 (int)(o - line - 5), line + 5);
      if (*abs && pm_name_set_has(&needed->set, abs)) accepted++;
      else orphans++;
    }
    if (!strncmp(line, "FAIL ", 5) && !strstr(line, " problems")) {
      const char *q = strstr(line, ": data file ");
      const char *m = q ? strstr(q, " referenced but missing") : NULL;
      int ok_line = 0;
      for (size_t k = 0; k < n_allowed; k++)
        if (strstr(line, allowed[k])) ok_line = 1;
      if (!ok_line && q && m && needed) {
        char abs[12288];
        q += strlen(": data file ");
        snprintf(abs, sizeof abs, "%s/%.*s", dir, (int)(m - q), q);
        ok_line = !pm_name_set_has(&needed->set, abs);
      }
      if (ok_line) accepted++;
      else bad++;
    }
    p = nl ? nl + 1 : NULL;
  }
  int ok = (rc == 0 || (rc == 1 && bad == 0 && accepted > 0)) && (orphans == 0 || allow_orphans);
  if (!ok) fprintf(stderr, "%s: paimon-table %s: exit %d, %d orphan lines, %d FAIL lines not accepted:\n%s%s\n",
                   what, args, rc, orphans, bad, out ? out : "", e ? e : "");
  free(out);
  free(e);
  return ok;
}

static inline int ec_check_no_orphans(const char *dir, int flags, const char *what) {
  return ec_check_no_orphans_needed(dir, flags, NULL, what);
}

#endif
