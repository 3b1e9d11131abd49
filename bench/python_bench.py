"""Python binding benchmarks (issue 15 section 4), run by bench/run-python.

  python_bench.py LIBPAIMON_SO WAREHOUSE TABLE RUNS

1. Read: the binding's to_arrow_stream consumed through the Arrow C stream ABI (a ctypes
   loop calling get_next / release) against the C API read of the same table driven the same
   way (ctypes over libpaimon.so: catalog -> read builder -> plan -> paimon_read_plan), so both
   sides share the consumer and differ only by the binding. Also to_pylist rows/s.
2. Write: every row of TABLE from an Arrow capsule stream into an empty table with the same
   schema, binding (write_arrow + prepare_commit + commit) against the C API
   (paimon_table_write_stream + prepare + commit) via ctypes.
Times are process CPU time (single-threaded reads), best of RUNS, runs alternating sides.
Prints one JSON line per measurement."""
import ctypes
import json
import os
import sys
import time
from ctypes import POINTER, byref, c_char, c_char_p, c_int, c_int64, c_size_t, c_void_p

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "python", "tests"))
import paimon_c  # noqa: E402
from arrow_c import ArrowArray, ArrowArrayStream, is_released, move_stream  # noqa: E402

so, wh, table, runs = sys.argv[1], sys.argv[2], sys.argv[3], int(sys.argv[4])
lib = ctypes.CDLL(so)
DYN = {"read.parallelism": "1"}


class Err(ctypes.Structure):
    _fields_ = [("code", c_int), ("message", c_char * 1024)]


class Opt(ctypes.Structure):
    _fields_ = [("key", c_char_p), ("value", c_char_p)]


def ok(rc, err):
    if rc:
        raise RuntimeError(err.message.decode())


def opts(d):
    arr = (Opt * max(len(d), 1))(*[Opt(k.encode(), v.encode()) for k, v in d.items()])
    return arr, len(d)


def consume(s):
    """Reads every batch of a moved ArrowArrayStream; returns rows."""
    rows = 0
    while True:
        a = ArrowArray()
        if s.get_next(byref(s), byref(a)):
            raise RuntimeError(s.get_last_error(byref(s)))
        if is_released(a):
            break
        rows += a.length
        a.release(byref(a))
    s.release(byref(s))
    return rows


def c_open(ident):
    err = Err()
    cat, t = c_void_p(), c_void_p()
    o, n = opts({"warehouse": wh})
    ok(lib.paimon_catalog_open(o, c_size_t(n), byref(cat), byref(err)), err)
    ok(lib.paimon_catalog_get_table(cat, ident.encode(), byref(t), byref(err)), err)
    return cat, t


def c_stream(t):
    err = Err()
    rb, plan = c_void_p(), c_void_p()
    o, n = opts(DYN)
    ok(lib.paimon_read_builder_new(t, o, c_size_t(n), byref(rb), byref(err)), err)
    ok(lib.paimon_read_builder_plan(rb, byref(plan), byref(err)), err)
    s = ArrowArrayStream()
    ok(lib.paimon_read_plan(rb, plan, byref(s), byref(err)), err)
    lib.paimon_plan_free(plan)
    lib.paimon_read_builder_free(rb)
    return s


def c_read():
    cat, t = c_open("default." + table)
    rows = consume(c_stream(t))
    lib.paimon_table_free(t)
    lib.paimon_catalog_free(cat)
    return rows


def py_read():
    with paimon_c.CatalogFactory.create({"warehouse": wh}) as cat, cat.get_table("default." + table) as t:
        rb = t.new_read_builder(DYN)
        st = rb.new_read().to_arrow_stream(rb.new_scan().plan().splits())
        return consume(move_stream(st.__arrow_c_stream__()))


def py_pylist():
    with paimon_c.CatalogFactory.create({"warehouse": wh}) as cat, cat.get_table("default." + table) as t:
        rb = t.new_read_builder(DYN)
        return len(rb.new_read().to_pylist(rb.new_scan().plan().splits()))


def fresh_target(name):
    with paimon_c.CatalogFactory.create({"warehouse": wh}) as cat:
        cat.drop_table("default." + name, ignore_if_not_exists=True)
        with cat.get_table("default." + table) as src:
            rb = src.new_read_builder()
            like = rb.new_read().to_arrow_stream([])
            cat.create_table("default." + name, paimon_c.Schema.from_pyarrow_schema(like))


def c_write():
    fresh_target(table + "_cw")
    t0 = time.process_time()
    err = Err()
    cat, src = c_open("default." + table)
    _, dst = c_open("default." + table + "_cw")
    s = c_stream(src)
    wb, w, m, c = c_void_p(), c_void_p(), c_void_p(), c_void_p()
    ok(lib.paimon_write_builder_new(dst, 0, None, c_size_t(0), byref(wb), byref(err)), err)
    ok(lib.paimon_write_builder_new_write(wb, byref(w), byref(err)), err)
    ok(lib.paimon_table_write_stream(w, byref(s), byref(err)), err)
    ok(lib.paimon_table_write_prepare_commit(w, c_int64((1 << 63) - 1), byref(m), byref(err)), err)
    ok(lib.paimon_write_builder_new_commit(wb, byref(c), byref(err)), err)
    snap = c_int64()
    ok(lib.paimon_table_commit_commit(c, m, c_int64((1 << 63) - 1), byref(snap), byref(err)), err)
    for f, h in ((lib.paimon_commit_messages_free, m), (lib.paimon_table_commit_free, c),
                 (lib.paimon_table_write_free, w), (lib.paimon_write_builder_free, wb), (lib.paimon_table_free, dst),
                 (lib.paimon_table_free, src), (lib.paimon_catalog_free, cat)):
        f(h)
    return time.process_time() - t0


def py_write():
    fresh_target(table + "_pw")
    t0 = time.process_time()
    with paimon_c.CatalogFactory.create({"warehouse": wh}) as cat, cat.get_table("default." + table) as src, \
            cat.get_table("default." + table + "_pw") as dst:
        rb = src.new_read_builder(DYN)
        st = rb.new_read().to_arrow_stream(rb.new_scan().plan().splits())
        wb = dst.new_batch_write_builder()
        w = wb.new_write()
        w.write_arrow(st)
        wb.new_commit().commit(w.prepare_commit())
    return time.process_time() - t0


def emit(d):
    print(json.dumps(d, separators=(",", ":")), flush=True)


def best(fn, n):
    out = []
    for _ in range(n):
        t0 = time.process_time()
        r = fn()
        out.append((time.process_time() - t0, r))
    return min(out)


for f in (lib.paimon_catalog_open, lib.paimon_catalog_get_table, lib.paimon_read_builder_new,
          lib.paimon_read_builder_plan, lib.paimon_read_plan, lib.paimon_write_builder_new,
          lib.paimon_write_builder_new_write, lib.paimon_table_write_stream, lib.paimon_table_write_prepare_commit,
          lib.paimon_write_builder_new_commit, lib.paimon_table_commit_commit):
    f.restype = c_int
c_read()
py_read()  # warm-up
c_best, p_best, rows = 1e18, 1e18, 0
for _ in range(runs):
    t, rows = best(c_read, 1)
    c_best = min(c_best, t)
    t, r2 = best(py_read, 1)
    p_best = min(p_best, t)
    assert r2 == rows, (r2, rows)
emit({"bench": "python_read_capsule", "rows": rows, "c_api_cpu_ms": round(c_best * 1e3, 1),
                  "binding_cpu_ms": round(p_best * 1e3, 1), "ratio": round(p_best / c_best, 3)})
t, n = best(py_pylist, max(1, runs // 2))
emit({"bench": "python_to_pylist", "rows": n, "cpu_ms": round(t * 1e3, 1),
                  "rows_per_s": int(n / t) if t > 0 else 0})
cw, pw = 1e18, 1e18
for _ in range(max(1, runs // 2)):
    cw = min(cw, c_write())
    pw = min(pw, py_write())
emit({"bench": "python_write_capsule", "rows": rows, "c_api_cpu_ms": round(cw * 1e3, 1),
                  "binding_cpu_ms": round(pw * 1e3, 1), "ratio": round(pw / cw, 3)})
