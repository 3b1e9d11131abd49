"""Maintenance through the binding: snapshot expiry, orphan cleanup, branches (create from a tag,
read through "db.t$branch_b", fast-forward, delete). The table afterwards passes the oracle."""
import os
import time

import pytest

import paimon_c
from conftest import oracle_check
from paimon_c import Schema


def ids(t):
    rb = t.new_read_builder()
    return sorted(r["id"] for r in rb.new_read().to_pylist(rb.new_scan().plan().splits()))


def test_expire_orphans_branches(catalog, warehouse):
    catalog.create_table("db.t", Schema([("id", "INT")]))
    t = catalog.get_table("db.t")
    for i in range(5):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_pylist([{"id": i}])
        wb.new_commit().commit(w.prepare_commit())
    t.create_tag("v2", 2)
    dry = t.expire_snapshots(retain_max=2, retain_min=1, dry_run=True)
    assert dry["snapshots_expired"] == 3 and [s.id() for s in t.list_snapshots()] == [5, 4, 3, 2, 1]
    r = t.expire_snapshots(retain_max=2, retain_min=1)
    assert r["snapshots_expired"] == 3 and r["earliest_snapshot"] == 4
    assert [s.id() for s in t.list_snapshots()] == [5, 4]
    assert ids(t) == [0, 1, 2, 3, 4]
    with pytest.raises(paimon_c.InvalidArgumentError):
        t.expire_snapshots(retain_max=1, retain_min=2)
    # an unreferenced, old file in the bucket directory is an orphan
    orphan = os.path.join(warehouse, "db.db", "t", "bucket-0", "data-orphan.parquet")
    with open(orphan, "wb") as f:
        f.write(b"x")
    old = time.time() - 3 * 86400
    os.utime(orphan, (old, old))
    assert t.remove_orphan_files(int((time.time() - 86400) * 1000), dry_run=True)["files"] == 1
    assert os.path.exists(orphan)
    assert t.remove_orphan_files(int((time.time() - 86400) * 1000))["files"] == 1
    assert not os.path.exists(orphan)
    # branches
    t.create_branch("b", tag="v2")
    assert t.list_branches() == ["b"]
    with catalog.get_table("db.t$branch_b") as b:
        assert b.branch() == "b" and ids(b) == [0, 1]
        wb = b.new_batch_write_builder()
        w = wb.new_write()
        w.write_pylist([{"id": 10}])
        wb.new_commit().commit(w.prepare_commit())
        assert ids(b) == [0, 1, 10]
    assert ids(t) == [0, 1, 2, 3, 4]
    t.fast_forward("b")
    with catalog.get_table("db.t") as t2:
        assert ids(t2) == [0, 1, 10]
    t.delete_branch("b")
    assert t.list_branches() == []
    with pytest.raises(paimon_c.NotFoundError):
        t.delete_branch("b")
    oracle_check(os.path.join(warehouse, "db.db", "t"))
