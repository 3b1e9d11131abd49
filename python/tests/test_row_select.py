"""Row positions, row ranges and shards (paimon/scan_select.h through TableScan /
ReadBuilder): slices and shards of an append table are the plan's rows in order, shards
concatenate to the whole plan, row ranges of a Java-written data-evolution fixture return the
fixture's expected rows with those _ROW_IDs, primary-key shards go by bucket, selections survive
pickling, and bad arguments fail at once."""
import json
import os
import pickle

import pytest

import paimon_c
from conftest import FIXTURES
from fixture_values import rows_match
from paimon_c import Schema

DE = "parquet__append_table_alter_table_with_cast_with_data_evolution__snapshot-3.json"


def rows_of(rb, splits=None):
    return rb.new_read().to_pylist(rb.new_scan().plan().splits() if splits is None else splits)


@pytest.fixture
def append_table(catalog):
    catalog.create_table("db.a", Schema([("id", "INT"), ("p", "STRING")], partition_keys=["p"]))
    t = catalog.get_table("db.a")
    for c in range(4):  # 4 commits x 2 partitions: 8 files of 5 rows
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_pylist([{"id": c * 10 + i, "p": "p%d" % (i % 2)} for i in range(10)])
        wb.new_commit().commit(w.prepare_commit())
    return t


def test_slice_and_position_shards(append_table):
    t = append_table
    full = rows_of(t.new_read_builder())
    assert len(full) == 40
    for start, end in ((0, 40), (3, 17), (5, 10), (39, 40), (12, 100)):
        rb = t.new_read_builder()
        plan = rb.new_scan().with_row_position_slice(start, end).plan()
        assert rb.new_read().to_pylist(plan.splits()) == full[start:end], (start, end)
        # files holding no selected row are left out; partly selected splits carry their ranges
        assert sum(s.row_count for s in plan.splits()) >= len(full[start:end])
    for count in (1, 3, 7):
        parts = []
        for index in range(count):
            rb = t.new_read_builder()
            got = rows_of(rb.with_row_position_shard(index, count))
            n = 40 // count + (1 if index < 40 % count else 0)  # the first N % count shards get one more
            assert len(got) == n
            parts += got
        assert parts == full
    # ReadBuilder.with_shard on an append table is the row-position shard
    assert rows_of(t.new_read_builder().with_shard(1, 3)) == rows_of(t.new_read_builder().with_row_position_shard(1, 3))


def test_selection_survives_pickling(append_table):
    rb = append_table.new_read_builder()
    splits = rb.new_scan().with_row_position_slice(7, 23).plan().splits()
    assert any(s.row_ranges is not None for s in splits)
    back = pickle.loads(pickle.dumps(splits))
    assert [s.row_ranges for s in back] == [s.row_ranges for s in splits]
    assert rb.new_read().to_pylist(back) == rows_of(append_table.new_read_builder())[7:23]
    # a plain plan's splits read every row of their files
    assert all(s.row_ranges is None for s in append_table.new_read_builder().new_scan().plan().splits())


def test_bad_selection_arguments(append_table, catalog):
    rb = append_table.new_read_builder()
    for call, args in (("with_row_position_slice", (5, 5)), ("with_row_position_slice", (-1, 3)),
                       ("with_row_position_shard", (3, 3)), ("with_row_position_shard", (0, 0)),
                       ("with_shard", (-1, 2))):
        with pytest.raises(paimon_c.InvalidArgumentError):
            getattr(rb.new_scan(), call)(*args)
    with pytest.raises(TypeError):
        rb.with_row_ranges([(1, 2, 3)])
    with pytest.raises(paimon_c.InvalidArgumentError):
        rb.with_row_ranges([(5, 2)])
    # the failed calls left no selection behind
    assert len(rows_of(rb)) == 40
    # row ranges need a row-tracking table
    with pytest.raises((paimon_c.UnsupportedError, paimon_c.InvalidArgumentError)):
        rows_of(append_table.new_read_builder().with_row_ranges([(0, 3)]))


def test_row_ranges_on_java_fixture():
    exp = json.load(open(os.path.join(FIXTURES, "expected", DE)))
    parts = exp["table"].split("/")
    wh = os.path.join(FIXTURES, "warehouse", *parts[:-2])
    cols = exp["columns"]
    rid = cols.index("_ROW_ID")
    with paimon_c.CatalogFactory.create({"warehouse": wh}) as cat, \
            cat.get_table("%s.%s" % (parts[-2][:-3], parts[-1])) as t:
        opts = {"scan.snapshot-id": str(exp["snapshot"])}
        all_ids = sorted(r[rid] for r in exp["rows"])
        ranges = [(all_ids[0], all_ids[0]), (all_ids[2], all_ids[-2])]
        rb = t.new_read_builder(opts).with_projection(cols).with_row_ranges(ranges)
        got = sorted(([r[c] for c in cols] for r in rows_of(rb)), key=lambda r: r[rid])
        want = sorted((r for r in exp["rows"] if any(a <= r[rid] <= b for a, b in ranges)), key=lambda r: r[rid])
        assert [g[rid] for g in got] == [w[rid] for w in want]
        assert rows_match(want, got) is None, rows_match(want, got)  # the values as Java wrote them
        assert rows_of(t.new_read_builder(opts).with_row_ranges([])) == []  # empty: no row
        # position shards of a data-evolution table partition its rows (each row id once)
        seen = []
        for i in range(3):
            rb = t.new_read_builder(opts).with_projection(["_ROW_ID"]).with_row_position_shard(i, 3)
            seen += [r["_ROW_ID"] for r in rows_of(rb)]
        assert sorted(seen) == all_ids


def test_bucket_shards_on_primary_key_table(catalog):
    catalog.create_table("db.pk", Schema([("k", "INT NOT NULL"), ("v", "STRING")], primary_keys=["k"],
                                         options={"bucket": "4"}))
    t = catalog.get_table("db.pk")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_pylist([{"k": i, "v": "v%d" % i} for i in range(200)])
    wb.new_commit().commit(w.prepare_commit())
    keys = []
    for i in range(2):
        plan = t.new_read_builder().with_shard(i, 2).new_scan().plan()
        assert plan.splits() and all(s.bucket % 2 == i for s in plan.splits())
        keys += [r["k"] for r in t.new_read_builder().new_read().to_pylist(plan.splits())]
    assert sorted(keys) == list(range(200))
    with pytest.raises(paimon_c.UnsupportedError):  # row positions are for append / data-evolution tables
        t.new_read_builder().new_scan().with_row_position_slice(0, 10).plan()
