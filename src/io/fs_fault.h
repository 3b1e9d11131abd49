/*
 * A fault-injecting file system for tests: wraps another pm_fs and counts
 * every operation by kind; an armed rule makes the Nth operation of a kind
 * (and optionally the following ones) fail with an I/O error naming the
 * path, return a short read, report success but lose the effect, or stop
 * the process with _exit. A test first runs with nothing armed to count the
 * operations, then arms each N in turn.
 *
 * Not a production file system: the library never creates one by itself.
 * Tests hand it to a catalog (pm_catalog_open_with_fs) or a table; a crash
 * test's child process can build one from a textual rule (pm_fault_rule_parse).
 */
#ifndef PM_IO_FS_FAULT_H
#define PM_IO_FS_FAULT_H

#include <stdint.h>

#include "io/fs.h"

typedef enum pm_fault_op {
  PM_FAULT_OP_OPEN,     /* pm_fs_open */
  PM_FAULT_OP_READ,     /* one positional read of an open file (each range of a vectored read) */
  PM_FAULT_OP_CREATE,   /* pm_fs_create (starting an output file) */
  PM_FAULT_OP_WRITE,    /* one write of an output file's bytes */
  PM_FAULT_OP_FSYNC,    /* making an output file's bytes durable */
  PM_FAULT_OP_PUBLISH,  /* publishing an output file under its name with overwrite */
  PM_FAULT_OP_CREATE_IF_ABSENT, /* publishing with PM_OUT_CREATE_IF_ABSENT (the commit primitive) */
  PM_FAULT_OP_RENAME,   /* pm_fs_rename */
  PM_FAULT_OP_DELETE,   /* pm_fs_delete */
  PM_FAULT_OP_LIST,     /* pm_fs_list */
  PM_FAULT_OP_STAT,     /* pm_fs_stat / pm_fs_exists */
  PM_FAULT_OP_MKDIRS,   /* pm_fs_mkdirs */
  PM_FAULT_OP_COUNT
} pm_fault_op;

typedef enum pm_fault_action {
  PM_FAULT_ERROR,      /* fail with PAIMON_ERR_IO: "<path>: injected I/O error (<op> #N)" */
  PM_FAULT_SHORT_READ, /* READ only: return about half the requested bytes (at least one) */
  PM_FAULT_LOSE,       /* report success but drop the effect (write bytes, publish, rename, delete) */
  PM_FAULT_EXIT        /* _exit(exit_code) before the operation: a crash at that point */
} pm_fault_action;

typedef struct pm_fault_rule {
  pm_fault_op op;
  uint64_t nth;     /* 1-based: the nth operation of this kind counted since arming */
  uint64_t times;   /* operations affected from the nth on (0 = every one after) */
  pm_fault_action action;
  int exit_code;    /* PM_FAULT_EXIT */
} pm_fault_rule;

/* A fault fs over inner (which it references). *out: pm_fs_unref. */
int pm_fault_fs_new(pm_fs *inner, pm_fs **out, pm_error *err);
/* Arms one rule (replacing any previous) and resets the counters. fs must come from pm_fault_fs_new. */
void pm_fault_fs_arm(pm_fs *fs, const pm_fault_rule *rule);
/* Disarms and resets the counters. */
void pm_fault_fs_disarm(pm_fs *fs);
/* Operations of a kind since the last arm / disarm. */
uint64_t pm_fault_fs_count(pm_fs *fs, pm_fault_op op);
/* Faults injected since the last arm / disarm. */
uint64_t pm_fault_fs_injected(pm_fs *fs);
/* "read", "write", "create-if-absent"... */
const char *pm_fault_op_name(pm_fault_op op);
/* Parses "OP:N[:ACTION[:TIMES]]" (ACTION error|short|lose|exit[=CODE], default error;
 * e.g. "read:3", "create-if-absent:1:exit=42", "read:1:short:0"). */
int pm_fault_rule_parse(const char *text, pm_fault_rule *out, pm_error *err);

#endif
