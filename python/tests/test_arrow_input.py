"""Writes and row-id updates from Arrow capsules made by a C producer that shares no code with
paimon_c (arrow_producer.c, compiled here): every row reads back, the table passes the oracle's
check and read, and everything the producer handed out was released (its live count is 0)."""
import ctypes
import json
import os
import subprocess
import sysconfig
import threading
import time

import pytest

import paimon_c
from arrow_c import ArrowArray, ArrowArrayStream, ArrowSchema, _capsule_new
from conftest import oracle_check, oracle_read
from paimon_c import Schema

HERE = os.path.dirname(os.path.abspath(__file__))


@pytest.fixture(scope="module")
def producer(tmp_path_factory):
    so = str(tmp_path_factory.mktemp("producer") / "arrow_producer.so")
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
    subprocess.run([cc, "-std=c11", "-O1", "-g", "-fPIC", "-shared", "-Wall", "-Werror", "-o", so,
                    os.path.join(HERE, "arrow_producer.c")], check=True)
    lib = ctypes.CDLL(so)
    lib.ap_live.restype = ctypes.c_long
    lib.ap_stream.argtypes = [ctypes.POINTER(ArrowArrayStream), ctypes.c_int64, ctypes.c_int64, ctypes.c_int64,
                              ctypes.c_int]
    lib.ap_batch.argtypes = [ctypes.POINTER(ArrowSchema), ctypes.POINTER(ArrowArray), ctypes.c_int64, ctypes.c_int64]
    lib.ap_release_batch.argtypes = [ctypes.POINTER(ArrowSchema), ctypes.POINTER(ArrowArray)]
    lib.ap_id_column.argtypes = [ctypes.c_char_p]
    lib.ap_release_stream.argtypes = [ctypes.POINTER(ArrowArrayStream)]
    return lib


class CStream:
    """__arrow_c_stream__ over the C producer's stream of rows [start, end) (capsule without a
    destructor: the struct lives in this object, release() drops an unconsumed stream)."""

    def __init__(self, lib, start, end, batch, gate=-1):
        self.lib, self.s = lib, ArrowArrayStream()
        lib.ap_stream(ctypes.byref(self.s), start, end, batch, gate)

    def __arrow_c_stream__(self, requested_schema=None):
        return _capsule_new(ctypes.addressof(self.s), b"arrow_array_stream", None)

    def release(self):
        self.lib.ap_release_stream(ctypes.byref(self.s))


class CBatch:
    def __init__(self, lib, start, n):
        self.lib, self.sc, self.ar = lib, ArrowSchema(), ArrowArray()
        lib.ap_batch(ctypes.byref(self.sc), ctypes.byref(self.ar), start, n)

    def __arrow_c_array__(self, requested_schema=None):
        return (_capsule_new(ctypes.addressof(self.sc), b"arrow_schema", None),
                _capsule_new(ctypes.addressof(self.ar), b"arrow_array", None))

    def release(self):  # the consumer borrows a batch: its owner releases it
        self.lib.ap_release_batch(ctypes.byref(self.sc), ctypes.byref(self.ar))


def expected(ids):
    return [{"id": i, "name": None if i % 7 == 3 else "n%d" % i} for i in ids]


def read_all(t, projection=None):
    rb = t.new_read_builder()
    if projection:
        rb.with_projection(projection)
    return rb.new_read().to_pylist(rb.new_scan().plan().splits())


def table_dir(warehouse, name):
    return os.path.join(warehouse, "db.db", name)


def test_write_from_c_stream_and_batch(catalog, warehouse, producer):
    catalog.create_table("db.t", Schema([("id", "INT NOT NULL"), ("name", "STRING")]))
    t = catalog.get_table("db.t")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    s = CStream(producer, 0, 10000, 999)
    w.write_arrow(s)
    assert producer.ap_live() == 0  # the stream and every batch it gave were released by the writer
    b = CBatch(producer, 10000, 500)
    w.write_arrow(b)
    assert producer.ap_live() > 0  # borrowed, not released by the writer
    b.release()
    assert producer.ap_live() == 0
    msgs = w.prepare_commit()
    assert msgs[0].row_count() == 10500
    assert wb.new_commit().commit(msgs) == 1
    assert sorted(read_all(t), key=lambda r: r["id"]) == expected(range(10500))
    oracle_check(table_dir(warehouse, "t"))
    got = sorted((json.loads(x) for x in oracle_read(table_dir(warehouse, "t")).splitlines()), key=lambda r: r["id"])
    assert got == expected(range(10500))


def test_write_releases_the_gil(catalog, producer):
    """write_arrow runs the producer's get_next without the GIL: each batch waits for a byte that
    only this (main) Python thread writes while another thread is inside write_arrow. Holding the
    GIL, the gate would time out (5 s) and the write fail."""
    catalog.create_table("db.g", Schema([("id", "INT NOT NULL"), ("name", "STRING")]))
    t = catalog.get_table("db.g")
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    r, wfd = os.pipe()
    errors = []

    def run():
        try:
            w.write_arrow(CStream(producer, 0, 30, 10, r))
        except Exception as e:  # pragma: no cover
            errors.append(e)

    th = threading.Thread(target=run)
    th.start()
    try:
        for _ in range(3):
            time.sleep(0.05)
            assert th.is_alive()  # blocked on the gate inside write_arrow, and we are running
            os.write(wfd, b"x")
        th.join(10)
    finally:
        os.close(wfd)
        os.close(r)
    assert not th.is_alive() and not errors, errors
    wb.new_commit().commit(w.prepare_commit())
    assert sorted(r["id"] for r in read_all(t)) == list(range(30))


def test_c_stream_with_bad_rows_fails_before_writing(catalog, warehouse, producer):
    # the table wants id < 100 as TINYINT: values of the producer's batch do not fit
    catalog.create_table("db.narrow", Schema([("id", "TINYINT NOT NULL"), ("name", "STRING")]))
    t = catalog.get_table("db.narrow")
    w = t.new_batch_write_builder().new_write()
    with pytest.raises(paimon_c.InvalidArgumentError):
        w.write_arrow(CStream(producer, 0, 1000, 100))
    assert producer.ap_live() == 0
    assert not [f for _, _, fs in os.walk(table_dir(warehouse, "narrow")) for f in fs if f.startswith("data-")]


def de_table(catalog, name):
    catalog.create_table("db." + name, Schema([("id", "INT"), ("name", "STRING"), ("score", "INT")],
                                              options={"row-tracking.enabled": "true",
                                                       "data-evolution.enabled": "true"}))
    t = catalog.get_table("db." + name)
    for part in (range(0, 6), range(6, 10)):
        wb = t.new_batch_write_builder()
        w = wb.new_write()
        w.write_pylist([{"id": i, "name": "a%d" % i, "score": i * 10} for i in part])
        wb.new_commit().commit(w.prepare_commit())
    return t


def test_update_columns_by_row_id(catalog, warehouse, producer):
    t = de_table(catalog, "de")
    rows = sorted(read_all(t, ["_ROW_ID", "id", "name", "score"]), key=lambda r: r["_ROW_ID"])
    assert [r["_ROW_ID"] for r in rows] == list(range(10))
    model = {r["_ROW_ID"]: {"id": r["id"], "name": r["name"], "score": r["score"]} for r in rows}
    # 1) a list of dicts: _ROW_ID + name (score given too: not updated, ignored)
    wb = t.new_batch_write_builder()
    up = wb.new_update().new_update_by_row_id()
    msgs = up.update_columns([{"_ROW_ID": 7, "name": "seven", "score": -1}, {"_ROW_ID": 2, "name": None}], ["name"])
    assert up.updated_rows == 2
    wb.new_commit().commit(msgs)
    model[7]["name"], model[2]["name"] = "seven", None
    # 2) a C producer's batch (_ROW_ID as int32, name) for rows 0..3, then its stream for rows 8..9
    producer.ap_id_column(b"_ROW_ID")
    try:
        b = CBatch(producer, 0, 4)
        msgs = wb.new_update().new_update_by_row_id().update_columns(b, ["name"])
        b.release()
        wb.new_commit().commit(msgs)
        wb3 = t.new_batch_write_builder()
        with pytest.raises(paimon_c.InvalidArgumentError, match="already updated"):  # one range, two batches
            wb3.new_update().new_update_by_row_id().update_columns(CStream(producer, 8, 10, 1), ["name"])
        msgs = wb3.new_update().new_update_by_row_id().update_columns(CStream(producer, 8, 10, 2), ["name"])
        wb3.new_commit().commit(msgs)
    finally:
        producer.ap_id_column(b"id")
    assert producer.ap_live() == 0
    for k in (0, 1, 2, 3, 8, 9):
        model[k]["name"] = None if k % 7 == 3 else "n%d" % k
    got = sorted(read_all(t, ["_ROW_ID", "id", "name", "score"]), key=lambda r: r["_ROW_ID"])
    assert got == [dict(_ROW_ID=k, **v) for k, v in sorted(model.items())]
    d = table_dir(warehouse, "de")
    oracle_check(d)
    ora = sorted((json.loads(x) for x in oracle_read(d, "--columns", "id,name,score").splitlines()),
                 key=lambda r: r["id"])
    assert ora == sorted(model.values(), key=lambda r: r["id"])
    # bad input fails before anything is written: a row id no live file holds, a missing column
    before = sorted(os.listdir(os.path.join(d, "bucket-0")))
    with pytest.raises(paimon_c.InvalidArgumentError):
        t.new_batch_write_builder().new_update().new_update_by_row_id().update_columns(
            [{"_ROW_ID": 99, "name": "x"}], ["name"])
    with pytest.raises(paimon_c.InvalidArgumentError):
        t.new_batch_write_builder().new_update().new_update_by_row_id().update_columns([{"_ROW_ID": 1}], ["nope"])
    assert sorted(os.listdir(os.path.join(d, "bucket-0"))) == before
    with pytest.raises(ValueError):
        t.new_stream_write_builder().new_update().new_update_by_row_id()  # needs an identifier


def test_update_conflict(catalog, producer):
    """Two updaters planned on the same snapshot update the same column of the same rows: the
    second commit is a ConflictError and publishes nothing."""
    t = de_table(catalog, "dc")
    wb1, wb2 = t.new_batch_write_builder(), t.new_batch_write_builder()
    m1 = wb1.new_update().new_update_by_row_id().update_columns([{"_ROW_ID": 1, "score": 1}], ["score"])
    m2 = wb2.new_update().new_update_by_row_id().update_columns([{"_ROW_ID": 1, "score": 2}], ["score"])
    snap = wb1.new_commit().commit(m1)
    with pytest.raises(paimon_c.ConflictError):
        wb2.new_commit().commit(m2)
    assert t.latest_snapshot().id() == snap
    wb2.new_commit().abort(m2)
    assert [r["score"] for r in read_all(t, ["_ROW_ID", "score"]) if r["_ROW_ID"] == 1] == [1]
