"""Write, commit and read back through the binding; overwrite, abort, truncate, stream commits,
pickled splits and commit messages in a subprocess, bad input and commit conflicts. Tables
written here are checked by the independent oracle `paimon-table check`."""
import datetime as dt
import decimal
import glob
import os
import pickle
import subprocess
import sys

import pytest

import paimon_c
from arrow_c import CtypesBatch
from conftest import oracle_check, oracle_read
from paimon_c import Schema

ALL_TYPES = Schema([("id", "INT NOT NULL"), ("name", "STRING"), ("d", "DECIMAL(10, 2)"), ("big", "DECIMAL(30, 4)"),
                    ("day", "DATE"), ("ts", "TIMESTAMP(6)"), ("tz", "TIMESTAMP(3) WITH LOCAL TIME ZONE"),
                    ("b", "BYTES"), ("a", "ARRAY<INT>"), ("m", "MAP<STRING, INT>"), ("r", "ROW<x INT, y STRING>"),
                    ("f", "DOUBLE"), ("tm", "TIME"), ("flag", "BOOLEAN"), ("l", "BIGINT")], partition_keys=["name"])

ROWS = [
    {"id": 1, "name": "a", "d": decimal.Decimal("1.25"), "big": decimal.Decimal("12345678901234567890.1234"),
     "day": dt.date(2024, 1, 2), "ts": dt.datetime(2024, 1, 2, 3, 4, 5, 678901),
     "tz": dt.datetime(2024, 1, 2, 3, 4, 5, 678000, tzinfo=dt.timezone.utc), "b": b"\x00\x01\xff",
     "a": [1, None, 3], "m": [("k", 1), ("z", None)], "r": {"x": 1, "y": "z"}, "f": 1.5, "tm": dt.time(1, 2, 3),
     "flag": True, "l": -(1 << 62)},
    {"id": 2, "name": None, "d": None, "big": None, "day": dt.date(1969, 12, 31),
     "ts": dt.datetime(1969, 12, 31, 23, 59, 59, 1), "tz": None, "b": b"", "a": [], "m": [], "r": None,
     "f": float("-inf"), "tm": None, "flag": False, "l": None},
    {"id": 3, "name": "b", "d": decimal.Decimal("-0.05"), "big": None, "day": None, "ts": None,
     "tz": dt.datetime(2024, 6, 1, 12, 0, 0, tzinfo=dt.timezone(dt.timedelta(hours=8))), "b": None, "a": None,
     "m": None, "r": {"x": None, "y": None}, "f": None, "tm": dt.time(23, 59, 59, 999000), "flag": None, "l": 0},
]


def read_all(table, **kw):
    rb = table.new_read_builder(kw.get("options"))
    return rb.new_read().to_pylist(rb.new_scan().plan().splits())


def by_id(rows):
    return sorted(rows, key=lambda r: r["id"])


def table_dir(warehouse, ident):
    db, t = ident.split(".")
    return os.path.join(warehouse, db + ".db", t)


def data_files(warehouse, ident):
    return sorted(p for p in glob.glob(os.path.join(table_dir(warehouse, ident), "**", "data-*"), recursive=True))


def test_write_pylist_all_types_and_read_back(catalog, warehouse):
    catalog.create_table("db.t", ALL_TYPES)
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder()
    with wb.new_write() as w:
        w.write_pylist(ROWS)
        msgs = w.prepare_commit()
        with pytest.raises(ValueError):
            w.prepare_commit()
    assert sum(m.row_count() for m in msgs) == 3
    assert wb.new_commit().commit(msgs) == 1
    got = by_id(read_all(t))
    want = [dict(r) for r in ROWS]
    want[2]["tz"] = want[2]["tz"].astimezone(dt.timezone.utc)
    assert got == want
    snap = t.latest_snapshot()
    assert snap.id() == 1 and snap.commit_kind() == "APPEND" and snap.total_record_count() == 3
    # the independent oracle agrees on the shape and the rows
    oracle_check(table_dir(warehouse, "db.t"))
    lines = oracle_read(table_dir(warehouse, "db.t"), "--columns", "id,d,day").strip().splitlines()
    assert sorted(lines) == sorted(['{"id":1,"d":"1.25","day":"2024-01-02"}', '{"id":2,"d":null,"day":"1969-12-31"}',
                                    '{"id":3,"d":"-0.05","day":null}'])


def test_write_arrow_capsules(catalog, warehouse):
    schema = Schema([("id", "INT"), ("name", "STRING")])
    catalog.create_table("db.src", schema)
    catalog.create_table("db.dst", schema)
    src = catalog.get_table("db.src")
    wb = src.new_batch_write_builder()
    w = wb.new_write()
    batch = CtypesBatch([1, None, 3], ["x", "", "zz"])
    w.write_arrow(batch)  # __arrow_c_array__ from a ctypes producer
    wb.new_commit().commit(w.prepare_commit())
    assert sorted(read_all(src), key=lambda r: r["name"]) == [{"id": None, "name": ""}, {"id": 1, "name": "x"},
                                                             {"id": 3, "name": "zz"}]
    # __arrow_c_stream__: our read stream of one table written into another
    dst = catalog.get_table("db.dst")
    rb = src.new_read_builder()
    stream = rb.new_read().to_arrow_stream(rb.new_scan().plan().splits())
    wb2 = dst.new_batch_write_builder()
    w2 = wb2.new_write()
    w2.write_arrow(stream)
    with pytest.raises(ValueError):
        w2.write_arrow(stream)  # consumed
    wb2.new_commit().commit(w2.prepare_commit())
    assert sorted(read_all(dst), key=lambda r: r["name"]) == sorted(read_all(src), key=lambda r: r["name"])
    with pytest.raises(TypeError):
        w2.write_arrow([1, 2])


def test_overwrite_abort_truncate(catalog, warehouse):
    catalog.create_table("db.t", Schema([("id", "INT"), ("p", "STRING")], partition_keys=["p"]))
    t = catalog.get_table("db.t")

    def commit(rows, overwrite=None):
        wb = t.new_batch_write_builder()
        if overwrite is not None:
            wb.overwrite(overwrite)
        w = wb.new_write()
        w.write_pylist(rows)
        return wb.new_commit().commit(w.prepare_commit())

    commit([{"id": 1, "p": "x"}, {"id": 2, "p": "y"}])
    commit([{"id": 3, "p": "x"}], overwrite={"p": "x"})
    assert by_id(read_all(t)) == [{"id": 2, "p": "y"}, {"id": 3, "p": "x"}]
    commit([{"id": 4, "p": "z"}], overwrite={})  # dynamic partition overwrite: only p=z replaced
    assert [r["id"] for r in by_id(read_all(t))] == [2, 3, 4]
    # abort: the prepared files are deleted, nothing published
    before = data_files(warehouse, "db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_pylist([{"id": 9, "p": "x"}])
    msgs = w.prepare_commit()
    assert len(data_files(warehouse, "db.t")) == len(before) + 1
    wb.new_commit().abort(msgs)
    assert data_files(warehouse, "db.t") == before
    assert t.latest_snapshot().id() == 3
    # truncate partitions, then the table
    c = t.new_batch_write_builder().new_commit()
    assert c.truncate_partitions([{"p": "x"}]) == 4
    assert [r["id"] for r in by_id(read_all(t))] == [2, 4]
    assert t.new_batch_write_builder().new_commit().truncate_table() == 5
    assert read_all(t) == []
    # time travel by snapshot id and tag
    t.create_tag("before-truncate", 3)
    assert [r["id"] for r in by_id(read_all(t, options={"scan.tag-name": "before-truncate"}))] == [2, 3, 4]
    assert [r["id"] for r in by_id(read_all(t, options={"scan.snapshot-id": "1"}))] == [1, 2]
    if os.environ.get("PAIMON_LONG_TESTS") == "1":  # the oracle costs ~1.2 s a call: long mode only here
        oracle_check(table_dir(warehouse, "db.t"))


def test_stream_write_commits(catalog):
    catalog.create_table("db.t", Schema([("k", "INT NOT NULL"), ("v", "STRING")], primary_keys=["k"],
                                        options={"bucket": "1"}))
    t = catalog.get_table("db.t")
    wb = t.new_stream_write_builder()
    w = wb.new_write()
    c = wb.new_commit()
    with pytest.raises(ValueError):
        w.prepare_commit()
    w.write_pylist([{"k": 1, "v": "a"}, {"k": 2, "v": "b"}])
    assert c.commit(w.prepare_commit(1), 1) == 1
    w.write_pylist([{"k": 1, "v": "c"}])
    assert c.commit(w.prepare_commit(2)) == 2  # identifier taken from the messages
    assert sorted(read_all(t), key=lambda r: r["k"]) == [{"k": 1, "v": "c"}, {"k": 2, "v": "b"}]


def test_bad_input_fails_before_writing(catalog, warehouse):
    catalog.create_table("db.t", Schema([("id", "INT NOT NULL"), ("s", "STRING")]))
    t = catalog.get_table("db.t")
    w = t.new_batch_write_builder().new_write()
    with pytest.raises(paimon_c.InvalidArgumentError, match="id"):
        w.write_pylist([{"id": None, "s": "x"}])
    with pytest.raises(paimon_c.InvalidArgumentError, match="nope"):
        w.write_pylist([{"id": 1, "nope": 2}])
    with pytest.raises(paimon_c.InvalidArgumentError):
        w.write_pylist([{"id": "not a number"}])
    with pytest.raises(TypeError):
        w.write_pylist([{"id": object()}])
    assert w.prepare_commit()[0].file_count() == 0
    assert data_files(warehouse, "db.t") == []


def test_commit_conflict(catalog):
    """Two writers compact the same bucket; the second commit of compaction results alone conflicts
    and publishes nothing."""
    catalog.create_table("db.t", Schema([("k", "INT NOT NULL"), ("v", "INT")], primary_keys=["k"],
                                        options={"bucket": "1"}))
    t = catalog.get_table("db.t")
    for i in range(3):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_pylist([{"k": i, "v": i}])
        wb.new_commit().commit(w.prepare_commit())
    wb1, wb2 = t.new_batch_write_builder(), t.new_batch_write_builder()
    w1, w2 = wb1.new_write(), wb2.new_write()
    w1.compact(full_compaction=True)
    w2.compact(full_compaction=True)
    m1, m2 = w1.prepare_commit(), w2.prepare_commit()
    assert wb1.new_commit().commit(m1) == 4
    with pytest.raises(paimon_c.ConflictError):
        wb2.new_commit().commit(m2)
    assert t.latest_snapshot().id() == 4
    wb2.new_commit().abort(m2)  # a conflict published nothing: abort is safe
    assert sorted(r["k"] for r in read_all(t)) == [0, 1, 2]


def test_error_classes():
    e = paimon_c.errors._make_error("maybe published", 9)
    assert isinstance(e, paimon_c.CommitOutcomeUnknownError) and not isinstance(e, paimon_c.ConflictError)
    assert isinstance(paimon_c.errors._make_error("x", 7), paimon_c.ConflictError)
    assert isinstance(paimon_c.errors._make_error("x", 2), OSError)
    assert isinstance(paimon_c.errors._make_error("x", 5), NotImplementedError)
    assert str(paimon_c.errors._make_error("msg", 3)) == "msg"


CHILD = r"""
import pickle, sys
import paimon_c
wh, kind = sys.argv[1], sys.argv[2]
data = pickle.loads(sys.stdin.buffer.read())
with paimon_c.CatalogFactory.create({"warehouse": wh}) as c:
    t = c.get_table("db.t")
    if kind == "splits":
        rows = t.new_read_builder().new_read().to_pylist(data)
        print(sorted(r["id"] for r in rows))
    else:
        print(t.new_batch_write_builder().new_commit().commit(data))
"""


def run_child(warehouse, kind, obj):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    r = subprocess.run([sys.executable, "-c", CHILD, warehouse, kind], input=pickle.dumps(obj), capture_output=True,
                       env=env)
    assert r.returncode == 0, r.stderr.decode()
    return r.stdout.decode().strip()


def test_pickled_messages_and_splits_in_subprocess(catalog, warehouse):
    catalog.create_table("db.t", Schema([("id", "INT"), ("p", "INT")], partition_keys=["p"]))
    t = catalog.get_table("db.t")
    w = t.new_batch_write_builder().new_write()
    w.write_pylist([{"id": i, "p": i % 3} for i in range(10)])
    msgs = w.prepare_commit()
    assert pickle.loads(pickle.dumps(msgs))[0].row_count() == 10
    assert run_child(warehouse, "messages", msgs) == "1"
    plan = t.new_read_builder().new_scan().plan()
    splits = plan.splits()
    assert len(splits) == 3 and plan.snapshot_id() == 1
    again = pickle.loads(pickle.dumps(splits))
    assert [s.serialize() for s in again] == [s.serialize() for s in splits]
    assert run_child(warehouse, "splits", splits) == str(list(range(10)))
    oracle_check(table_dir(warehouse, "db.t"))


def test_pandas_round_trip(catalog):
    pd = pytest.importorskip("pandas")
    catalog.create_table("db.t", Schema([("id", "BIGINT"), ("x", "DOUBLE"), ("s", "STRING"), ("ts", "TIMESTAMP(6)")]))
    t = catalog.get_table("db.t")
    df = pd.DataFrame({"id": [1, 2, 3], "x": [0.5, float("nan"), 2.0], "s": ["a", None, "c"],
                       "ts": pd.to_datetime(["2024-01-01 00:00:01", None, "2024-01-02 03:04:05.123456"])})
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_pandas(df)
    wb.new_commit().commit(w.prepare_commit())
    rb = t.new_read_builder()
    out = rb.new_read().to_pandas(rb.new_scan().plan().splits()).sort_values("id").reset_index(drop=True)
    assert list(out.columns) == ["id", "x", "s", "ts"]
    assert out["id"].tolist() == [1, 2, 3]
    assert out["s"].tolist() == ["a", None, "c"]
    assert out["x"].isna().tolist() == [False, True, False]
    assert out["ts"][2] == pd.Timestamp("2024-01-02 03:04:05.123456")
    empty = t.new_read_builder({"scan.snapshot-id": "1"}).with_filter({"method": "equal", "field": "id",
                                                                       "literals": [99]})
    e = empty.new_read().to_pandas(empty.new_scan().plan().splits())
    assert len(e) == 0 and list(e.columns) == ["id", "x", "s", "ts"]


def test_row_kinds_on_primary_key_table(catalog):
    from arrow_c import CtypesBatch
    catalog.create_table("db.t", Schema([("id", "INT NOT NULL"), ("name", "STRING")], primary_keys=["id"],
                                        options={"bucket": "1"}))
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_pylist([{"id": 1, "name": "a"}, {"id": 2, "name": "b"}, {"id": 3, "name": "c"}])
    w.write_pylist([{"id": 1, "op": "-D"}, {"id": 2, "name": "B", "op": "+U"}], row_kind_column="op")
    w.write_arrow(CtypesBatch([3], ["ignored"]), row_kind="-D")
    with pytest.raises(ValueError):
        w.write_arrow(CtypesBatch([3], ["x"]), row_kind="delete")
    wb.new_commit().commit(w.prepare_commit())
    assert read_all(t) == [{"id": 2, "name": "B"}]


def test_write_rows_tuples(catalog, warehouse):
    """write_rows takes tuples in the table's column order (or the columns named), no dependency;
    a wrong arity or type fails before anything is written."""
    catalog.create_table("db.t", Schema([("id", "INT NOT NULL"), ("s", "STRING"), ("x", "DOUBLE")]))
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_rows([(1, "a", 0.5), (2, None, None)])
    w.write_rows([("c", 3)], columns=["s", "id"])
    with pytest.raises(paimon_c.InvalidArgumentError, match="id"):
        w.write_rows([(None, "z", 1.0)])
    with pytest.raises(paimon_c.InvalidArgumentError):
        w.write_rows([("not an int", "z", 1.0)])
    with pytest.raises(paimon_c.InvalidArgumentError, match="row 1 has 2 values, expected 3"):
        w.write_rows([(9, "z", 1.0), (9, "z")])
    assert wb.new_commit().commit(w.prepare_commit()) == 1
    assert by_id(read_all(t)) == [{"id": 1, "s": "a", "x": 0.5}, {"id": 2, "s": None, "x": None},
                                  {"id": 3, "s": "c", "x": None}]
    lines = oracle_read(table_dir(warehouse, "db.t")).strip().splitlines()
    assert sorted(lines) == ['{"id":1,"s":"a","x":0.5}', '{"id":2,"s":null,"x":null}', '{"id":3,"s":"c","x":null}']
    oracle_check(table_dir(warehouse, "db.t"))
