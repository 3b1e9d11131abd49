"""Read-builder features through the binding: the dict predicate format of reference 002 with its
literal types, pypaimon's predicate builder, projection, limit, case sensitivity, row kinds,
incremental and stream scans, system tables. Expected rows are computed in Python from the
rows written (an independent model of the filter), not from our own reads."""
import datetime as dt
import decimal

import pytest

import paimon_c
from paimon_c import Schema

UTC = dt.timezone.utc
SH = dt.timezone(dt.timedelta(hours=8))

ROWS = [
    {"id": i, "name": n, "dt": dt.date(2024, 1, 1) + dt.timedelta(days=i), "amount": decimal.Decimal(i * 100 + 45) / 100,
     "ts": dt.datetime(2024, 1, 1, 12, 0, 0) + dt.timedelta(hours=i),
     "ts_ltz": dt.datetime(2024, 1, 1, 4, 0, 0, tzinfo=UTC) + dt.timedelta(hours=i), "t": dt.time(i, 30),
     "b": bytes([i]), "f": i / 2, "ok": i % 2 == 0}
    for i, n in enumerate(["alice", "bob", "carol", None, "dave", "alicia"])
]


@pytest.fixture
def table(catalog):
    catalog.create_table("db.t", Schema([("id", "INT"), ("name", "STRING"), ("dt", "DATE"),
                                         ("amount", "DECIMAL(10, 2)"), ("ts", "TIMESTAMP(3)"),
                                         ("ts_ltz", "TIMESTAMP(3) WITH LOCAL TIME ZONE"), ("t", "TIME"),
                                         ("b", "BYTES"), ("f", "DOUBLE"), ("ok", "BOOLEAN")]))
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_pylist(ROWS[:3])
    wb.new_commit().commit(w.prepare_commit())
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_pylist(ROWS[3:])
    wb.new_commit().commit(w.prepare_commit())
    return t


def ids(table, pred, **opts):
    rb = table.new_read_builder(opts.get("options")).with_filter(pred)
    return sorted(r["id"] for r in rb.new_read().to_pylist(rb.new_scan().plan().splits()))


def model(f):
    return sorted(r["id"] for r in ROWS if f(r))


def leaf(method, field, *lits):
    return {"method": method, "field": field, "literals": list(lits)}


CASES = [
    (leaf("equal", "id", 1), lambda r: r["id"] == 1),
    (leaf("notEqual", "name", "bob"), lambda r: r["name"] is not None and r["name"] != "bob"),
    (leaf("lessThan", "id", 3), lambda r: r["id"] < 3),
    (leaf("lessOrEqual", "id", 2), lambda r: r["id"] <= 2),
    (leaf("greaterThan", "id", 1), lambda r: r["id"] > 1),
    (leaf("greaterOrEqual", "id", 2), lambda r: r["id"] >= 2),
    ({"method": "isNull", "field": "name"}, lambda r: r["name"] is None),
    ({"method": "isNotNull", "field": "name"}, lambda r: r["name"] is not None),
    (leaf("in", "id", 1, 2, 3), lambda r: r["id"] in (1, 2, 3)),
    (leaf("notIn", "name", "alice", "bob"), lambda r: r["name"] is not None and r["name"] not in ("alice", "bob")),
    (leaf("startsWith", "name", "al"), lambda r: (r["name"] or "").startswith("al")),
    (leaf("endsWith", "name", "ce"), lambda r: (r["name"] or "").endswith("ce")),
    (leaf("contains", "name", "ic"), lambda r: "ic" in (r["name"] or "")),
    (leaf("like", "name", "a%i%"), lambda r: r["name"] in ("alice", "alicia")),
    ({"method": "and", "children": [leaf("greaterOrEqual", "id", 1), leaf("lessOrEqual", "id", 3)]},
     lambda r: 1 <= r["id"] <= 3),
    ({"method": "and", "children": [{"method": "or", "children": [leaf("equal", "id", 1), leaf("equal", "id", 2)]},
                                    leaf("equal", "name", "bob")]}, lambda r: r["id"] in (1, 2) and r["name"] == "bob"),
    # literal types (reference 002 "Supported Literal Types")
    (leaf("equal", "dt", dt.date(2024, 1, 3)), lambda r: r["dt"] == dt.date(2024, 1, 3)),
    (leaf("equal", "amount", decimal.Decimal("1.45")), lambda r: r["id"] == 1),
    (leaf("greaterThan", "amount", 2), lambda r: r["amount"] > 2),
    (leaf("equal", "ts", dt.datetime(2024, 1, 1, 14, 0, 0)), lambda r: r["id"] == 2),
    (leaf("equal", "ts_ltz", dt.datetime(2024, 1, 1, 13, 0, 0, tzinfo=SH)), lambda r: r["id"] == 1),
    (leaf("lessThan", "t", dt.time(2, 0)), lambda r: r["id"] < 2),
    (leaf("equal", "b", b"\x04"), lambda r: r["id"] == 4),
    (leaf("greaterThan", "f", 1.0), lambda r: r["f"] > 1.0),
    (leaf("equal", "ok", True), lambda r: r["ok"]),
]


@pytest.mark.parametrize("pred,expect", CASES, ids=[str(i) for i in range(len(CASES))])
def test_dict_predicates(table, pred, expect):
    assert ids(table, pred) == model(expect)


def test_predicate_builder(table):
    pb = table.new_read_builder().new_predicate_builder()
    assert ids(table, pb.and_predicates([pb.greater_than("id", 0), pb.less_than("id", 4)])) == [1, 2, 3]
    assert ids(table, pb.or_predicates([pb.equal("id", 0), pb.is_null("name")])) == [0, 3]
    assert ids(table, pb.is_in("id", [4, 5])) == [4, 5]
    assert ids(table, pb.is_not_in("id", [4, 5])) == [0, 1, 2, 3]
    assert ids(table, pb.startswith("name", "ali")) == [0, 5]
    assert ids(table, pb.endswith("name", "b")) == [1]
    assert ids(table, pb.contains("name", "aro")) == [2]
    assert ids(table, pb.between("id", 2, 4)) == [2, 3, 4]
    assert ids(table, pb.not_equal("id", 0)) == [1, 2, 3, 4, 5]
    assert ids(table, pb.greater_or_equal("id", 5)) == [5]
    assert ids(table, pb.less_or_equal("id", 0)) == [0]
    assert ids(table, pb.is_not_null("name")) == [0, 1, 2, 4, 5]
    assert ids(table, "id > 3 and name like 'a%'") == [5]  # filter-expression text


def test_bad_predicates(table):
    rb = table.new_read_builder()
    with pytest.raises(paimon_c.NotFoundError):
        rb.with_filter(leaf("equal", "nope", 1))
    with pytest.raises(paimon_c.InvalidArgumentError):
        rb.with_filter(leaf("equal", "dt", "2024-13-45"))
    with pytest.raises(ValueError):
        rb.with_filter(leaf("equal", "id"))
    with pytest.raises(ValueError):
        rb.with_filter({"method": "and", "children": []})
    with pytest.raises(TypeError):
        rb.with_filter(leaf("startsWith", "name", 1))
    with pytest.raises(TypeError):
        rb.with_filter(leaf("equal", "id", object()))


def test_projection_limit_case_row_kind(table):
    rb = table.new_read_builder().with_projection(["name", "id"])
    rows = rb.new_read().to_pylist(rb.new_scan().plan().splits())
    assert all(list(r) == ["name", "id"] for r in rows) and len(rows) == 6
    rb = table.new_read_builder().with_limit(0)
    assert rb.new_read().to_pylist(rb.new_scan().plan().splits()) == []
    rb = table.new_read_builder().with_limit(2)
    assert 2 <= len(rb.new_read().to_pylist(rb.new_scan().plan().splits())) <= 6
    rb = table.new_read_builder().with_case_sensitive(False).with_projection(["ID"])
    assert sorted(r["id"] for r in rb.new_read().to_pylist(rb.new_scan().plan().splits())) == list(range(6))
    with pytest.raises(paimon_c.NotFoundError):
        table.new_read_builder().with_projection(["ID"])
    rb = table.new_read_builder().with_include_row_kind(True).with_projection(["id"])
    rows = rb.new_read().to_pylist(rb.new_scan().plan().splits())
    assert {r["_row_kind"] for r in rows} == {"+I"} and len(rows) == 6
    it = table.new_read_builder().new_read().to_iterator(table.new_read_builder().new_scan().plan().splits())
    assert sorted(r["id"] for r in it) == list(range(6))


def test_time_travel_incremental_stream_scan(table):
    rb = table.new_read_builder({"scan.snapshot-id": "1"})
    plan = rb.new_scan().plan()
    assert plan.snapshot_id() == 1
    assert sorted(r["id"] for r in rb.new_read().to_pylist(plan.splits())) == [0, 1, 2]
    with pytest.raises(paimon_c.PaimonError):
        table.new_read_builder({"scan.snapshot-id": "9"}).new_scan().plan()
    rb = table.new_read_builder()
    plan = rb.new_incremental_scan(1, 2).plan()
    assert sorted(r["id"] for r in rb.new_read().to_pylist(plan.splits())) == [3, 4, 5]
    rb = table.new_read_builder({"scan.mode": "from-snapshot", "scan.snapshot-id": "1"})
    scan = rb.new_stream_scan()
    seen = []
    for _ in range(4):
        plan = scan.plan()
        if plan is None:
            break
        seen += [r["id"] for r in rb.new_read().to_pylist(plan.splits())]
        scan.notify_checkpoint_complete(scan.checkpoint())
    assert sorted(seen) == list(range(6))


def test_inspection_and_system_tables(catalog, table):
    snaps = table.list_snapshots()
    assert [s.id() for s in snaps] == [2, 1]
    assert table.latest_snapshot().total_record_count() == 6
    table.create_tag("v1", 1)
    table.create_tag("v2")
    with pytest.raises(paimon_c.ConflictError):
        table.create_tag("v1", 2)
    assert [(g.name(), g.snapshot_id()) for g in table.list_tags()] == [("v1", 1), ("v2", 2)]
    table.delete_tag("v2")
    with pytest.raises(paimon_c.NotFoundError):
        table.delete_tag("v2")
    stats = table.partition_stats()
    assert sum(s.record_count() for s in stats) == 6
    with catalog.get_table("db.t$snapshots") as st:
        rb = st.new_read_builder().with_projection(["snapshot_id", "commit_kind"])
        assert sorted(r["snapshot_id"] for r in rb.new_read().to_pylist(rb.new_scan().plan().splits())) == [1, 2]
    table.rollback_to(1)
    with catalog.get_table("db.t") as t2:
        assert t2.latest_snapshot().id() == 1
        rb = t2.new_read_builder()
        assert sorted(r["id"] for r in rb.new_read().to_pylist(rb.new_scan().plan().splits())) == [0, 1, 2]


def test_compact_builder(catalog):
    catalog.create_table("db.c", Schema([("k", "INT NOT NULL"), ("v", "INT"), ("p", "STRING NOT NULL")],
                                        primary_keys=["p", "k"], partition_keys=["p"], options={"bucket": "1"}))
    t = catalog.get_table("db.c")
    for i in range(3):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_pylist([{"k": i, "v": i, "p": "a"}, {"k": i, "v": i, "p": "b"}])
        wb.new_commit().commit(w.prepare_commit())
    m = (t.new_compact_builder().with_full_compaction()
         .with_partition_filter({"method": "equal", "field": "p", "literals": ["a"]})
         .with_commit_user("my-compactor").execute())
    assert m["tasks"] == 1 and m["files_removed"] == 3 and m["files_added"] == 1 and m["rows_written"] == 3
    snap = t.latest_snapshot()
    assert snap.commit_kind() == "COMPACT" and snap.commit_user().startswith("my-compactor-compact-")
    rb = t.new_read_builder()
    assert len(rb.new_read().to_pylist(rb.new_scan().plan().splits())) == 6


def test_stream_scan_checkpoint_restore(table):
    """A stream scan's checkpoint (the next snapshot to read) restores a new scan there: it
    continues with the later snapshots' rows only, as Java's StreamTableScan.restore."""
    rb = table.new_read_builder({"scan.mode": "from-snapshot-full", "scan.snapshot-id": "1"})
    scan = rb.new_stream_scan()
    first = scan.plan()
    assert sorted(r["id"] for r in rb.new_read().to_pylist(first.splits())) == [0, 1, 2]
    cp = scan.checkpoint()
    assert cp == 2
    again = rb.new_stream_scan()
    again.restore(cp)
    plan = again.plan()
    assert sorted(r["id"] for r in rb.new_read().to_pylist(plan.splits())) == [3, 4, 5]
    assert again.checkpoint() == 3
    assert again.plan() is None or not again.plan().splits()
    # restored at the first snapshot: its delta (rows 0-2), then snapshot 2's
    scan1 = rb.new_stream_scan()
    scan1.restore(1)
    seen = []
    for _ in range(3):
        p = scan1.plan()
        if p is None or not p.splits():
            break
        seen.append(sorted(r["id"] for r in rb.new_read().to_pylist(p.splits())))
    assert seen == [[0, 1, 2], [3, 4, 5]]
    with pytest.raises((TypeError, paimon_c.PaimonError)):
        rb.new_stream_scan().restore("x")
