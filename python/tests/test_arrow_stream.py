"""The Arrow PyCapsule stream of to_arrow_stream, consumed by a ctypes consumer of the Arrow C
stream ABI: capsule name, schema, batches, release rules (early release, reading after every
paimon_c object is gone, a capsule dropped unconsumed)."""
import collections
import ctypes
import gc
import json
import os

import pytest

import paimon_c
from arrow_c import ArrowArray, ArrowSchema, capsule_name, int32_values, is_released, move_stream, schema_tree, \
    utf8_values
from conftest import FIXTURES

WH = os.path.join(FIXTURES, "warehouse", "parquet")
EXP = os.path.join(FIXTURES, "expected", "parquet__pk_09__snapshot-8.json")


def open_stream():
    cat = paimon_c.CatalogFactory.create({"warehouse": WH})
    t = cat.get_table("pk_09.pk_09")
    rb = t.new_read_builder({"scan.snapshot-id": "8"}).with_projection(["f0", "f1"])
    return rb.new_read().to_arrow_stream(rb.new_scan().plan().splits())


def test_capsule_stream_after_objects_are_gone():
    st = open_stream()
    gc.collect()  # catalog, table, builder, plan and splits are unreachable now
    cap = st.__arrow_c_stream__()
    assert capsule_name(cap) == b"arrow_array_stream"
    with pytest.raises(ValueError):
        st.__arrow_c_stream__()  # exported once
    s = move_stream(cap)
    del cap, st
    gc.collect()
    schema = ArrowSchema()
    assert s.get_schema(ctypes.byref(s), ctypes.byref(schema)) == 0
    assert schema_tree(schema) == ("+s", "", [("u", "f0", []), ("i", "f1", [])])
    schema.release(ctypes.byref(schema))
    assert is_released(schema)
    got = []
    while True:
        a = ArrowArray()
        assert s.get_next(ctypes.byref(s), ctypes.byref(a)) == 0
        if is_released(a):
            break
        assert a.n_children == 2
        names = utf8_values(a.children[0].contents)
        ints = int32_values(a.children[1].contents)
        assert len(names) == len(ints) == a.length
        got += list(zip(names, ints))
        a.release(ctypes.byref(a))
        assert is_released(a)
    want = [(r[0], r[1]) for r in json.load(open(EXP))["rows"]]
    assert collections.Counter(got) == collections.Counter(want)
    s.release(ctypes.byref(s))
    assert is_released(s)


def test_release_early_keeps_batches_valid():
    s = move_stream(open_stream().__arrow_c_stream__())
    a = ArrowArray()
    assert s.get_next(ctypes.byref(s), ctypes.byref(a)) == 0
    assert not is_released(a)
    s.release(ctypes.byref(s))  # the stream goes first; the batch stays valid until released
    assert is_released(s)
    assert len(int32_values(a.children[1].contents)) == a.length
    a.release(ctypes.byref(a))


def test_capsule_dropped_unconsumed_and_schema_capsule():
    st = open_stream()
    sc = st.__arrow_c_schema__()
    assert capsule_name(sc) == b"arrow_schema"
    del sc
    cap = st.__arrow_c_stream__()
    del cap  # the capsule's destructor releases the stream
    gc.collect()
