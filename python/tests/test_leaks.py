"""1,000 open / plan / read / close cycles keep the process's RSS flat (handles, streams,
capsules and converted values are all freed)."""
import gc
import os

import pytest

import paimon_c
from conftest import FIXTURES

WH = os.path.join(FIXTURES, "warehouse", "parquet")


def rss_kb():
    with open("/proc/self/statm") as f:
        return int(f.read().split()[1]) * os.sysconf("SC_PAGE_SIZE") // 1024


def cycle(i):
    with paimon_c.CatalogFactory.create({"warehouse": WH}) as cat, cat.get_table("pk_09.pk_09") as t:
        rb = t.new_read_builder({"scan.snapshot-id": "8"})
        rb.with_filter({"method": "greaterThan", "field": "f3", "literals": [float(i % 20)]})
        splits = rb.new_scan().plan().splits()
        rows = rb.new_read().to_pylist(splits)
        if i % 2:
            st = rb.new_read().to_arrow_stream(splits)
            cap = st.__arrow_c_stream__()
            del cap  # released by the capsule destructor
        else:
            _ = [s.serialize() for s in splits]
        rb.close()
        return len(rows)


@pytest.mark.skipif(os.environ.get("PAIMON_SANITIZED") == "1", reason="ASan's quarantine grows RSS; LSan checks leaks")
def test_rss_flat_over_1000_cycles():
    for i in range(100):  # warm-up: allocator pools, imports, caches
        cycle(i)
    gc.collect()
    before = rss_kb()
    n = sum(cycle(i) for i in range(1000))
    gc.collect()
    after = rss_kb()
    assert n > 0
    assert after - before < 1536, "RSS grew by %d KiB over 1000 cycles (%d -> %d)" % (after - before, before, after)
