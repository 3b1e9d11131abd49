/* Public C API: streaming scans (paimon/stream.h) over table/stream_scan.h. */
#include <errno.h>
#include <time.h>

#include "api/api_internal.h"
#include "paimon/stream.h"
#include "table/stream_scan.h"

struct paimon_stream_scan {
  const paimon_read_builder *rb; /* borrowed */
  pm_stream_scan *s;
  pm_scan_selection sel; /* the builder's with_shard when the scan was made (no row ranges) */
};

paimon_status paimon_stream_scan_new(const paimon_read_builder *rb, paimon_stream_scan **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(rb, "builder is NULL");
  if (rb->table->system_table)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                    "stream scan: %s is a system table (only data tables stream)",
                                    rb->table->identifier);
  PM_TRY(pm_scan_selection_check_stream(&rb->sel, err));
  paimon_stream_scan *ss = calloc(1, sizeof *ss);
  if (!ss) return (paimon_status)PM_NOMEM(err);
  ss->rb = rb;
  ss->sel = rb->sel;
  ss->sel.row_ranges = NULL;
  int rc = pm_stream_scan_new(rb->t, rb->filter, &ss->s, err);
  if (rc) {
    free(ss);
    return (paimon_status)rc;
  }
  *out = ss;
  return PAIMON_OK;
}

void paimon_stream_scan_free(paimon_stream_scan *scan) {
  if (!scan) return;
  pm_stream_scan_free(scan->s);
  free(scan);
}

paimon_status paimon_stream_scan_plan(paimon_stream_scan *scan, paimon_plan **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(scan, "scan is NULL");
  pm_plan *p = NULL;
  int rc = pm_stream_scan_plan(scan->s, &p, err);
  if (!rc) rc = pm_scan_selection_apply_stream(scan->rb->t, &scan->sel, p, err);
  if (rc) {
    pm_plan_free(p);
    p = NULL;
  }
  if (!rc) rc = pm_api_plan_wrap(scan->rb, p, out, err);
  return (paimon_status)rc;
}

static void sleep_ms(int64_t ms) {
  struct timespec ts = {(time_t)(ms / 1000), (long)(ms % 1000) * 1000000L};
  while (nanosleep(&ts, &ts) && errno == EINTR) {
  }
}

paimon_status paimon_stream_scan_next(paimon_stream_scan *scan, paimon_stream_cancel_fn cancel, void *cancel_ctx,
                                      paimon_plan **out, paimon_error *err) {
  CHECK_ARG(out, "out is NULL");
  *out = NULL;
  CHECK_ARG(scan, "scan is NULL");
  int64_t interval = pm_stream_scan_discovery_interval_ms(scan->s);
  if (interval < 1) interval = 1;
  for (;;) {
    if (cancel && cancel(cancel_ctx)) return PAIMON_OK;
    paimon_plan *plan = NULL;
    paimon_status st = paimon_stream_scan_plan(scan, &plan, err);
    if (st) return st;
    if (paimon_plan_num_splits(plan)) {
      *out = plan;
      return PAIMON_OK;
    }
    paimon_plan_free(plan);
    if (pm_stream_scan_finished(scan->s)) return PAIMON_OK;
    /* sleep in slices so that cancellation is seen within 100 ms */
    for (int64_t left = interval; left > 0; left -= 100) {
      if (cancel && cancel(cancel_ctx)) return PAIMON_OK;
      sleep_ms(left < 100 ? left : 100);
    }
  }
}

int paimon_stream_scan_finished(const paimon_stream_scan *scan) {
  return scan ? pm_stream_scan_finished(scan->s) : 0;
}

int paimon_stream_scan_checkpoint(const paimon_stream_scan *scan, int64_t *next_snapshot_id) {
  return scan ? pm_stream_scan_checkpoint(scan->s, next_snapshot_id) : 0;
}

paimon_status paimon_stream_scan_restore(paimon_stream_scan *scan, int64_t next_snapshot_id, paimon_error *err) {
  CHECK_ARG(scan, "scan is NULL");
  if (next_snapshot_id < 0)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                    "stream scan restore: next snapshot id %lld is negative (>= 1, or 0 to start over)",
                                    (long long)next_snapshot_id);
  pm_stream_scan_restore(scan->s, next_snapshot_id);
  return PAIMON_OK;
}

int paimon_stream_scan_watermark(const paimon_stream_scan *scan, int64_t *watermark) {
  return scan ? pm_stream_scan_watermark(scan->s, watermark) : 0;
}

paimon_status paimon_stream_scan_notify_checkpoint_complete(paimon_stream_scan *scan, int64_t next_snapshot,
                                                            paimon_error *err) {
  CHECK_ARG(scan, "scan is NULL");
  if (next_snapshot < 0)
    return (paimon_status)pm_errorf(err, PAIMON_ERR_INVALID_ARGUMENT,
                                    "stream scan notify_checkpoint_complete: next snapshot %lld is negative",
                                    (long long)next_snapshot);
  if (next_snapshot == 0) return PAIMON_OK;
  return (paimon_status)pm_stream_scan_notify_checkpoint_complete(scan->s, next_snapshot, err);
}
