"""The examples of reference 002 (pypaimon-rust's Python documentation: "Reading a Table",
"Writing to a Table", "Time Travel", "Table Inspection", "Table Maintenance", "Complete
Example"), adapted to our package name and to a machine without pyarrow: record batches come
from a ctypes Arrow producer (tests/arrow_c.py) and results are read with to_pylist. The SQL
parts run through paimon_c.SQLContext (Python's sqlite3 with our SQLite module) in SQLite's
syntax: tables are db.t (SQLite names have two parts, so no catalog prefix), CREATE SCHEMA is
paimon_create_database(), CREATE TABLE is CREATE VIRTUAL TABLE ... USING paimon(...), and
queries return lists of dicts. Every table is checked by the independent oracle."""
import datetime
from decimal import Decimal

import json
import os

import pytest

import paimon_c
from arrow_c import CtypesBatch
from conftest import oracle_check, oracle_read
from paimon_c import PaimonCatalog, Schema, SQLContext


def test_complete_example(warehouse):
    # 1. Write data via SQL (the database and table)
    ctx = SQLContext()
    ctx.register_catalog("paimon", {"warehouse": warehouse})
    ctx.sql("SELECT paimon_create_database('wdb')")
    ctx.sql("CREATE VIRTUAL TABLE wdb.t USING paimon(id INT, name STRING)")
    catalog = PaimonCatalog({"warehouse": warehouse})
    # 2. Write using the programmatic API
    table = catalog.get_table("wdb.t")
    batch = CtypesBatch([1, 2, 3], ["alice", "bob", "carol"])
    wb = table.new_batch_write_builder()
    write = wb.new_write()
    write.write_arrow(batch)
    wb.new_commit().commit(write.prepare_commit())
    # 3. Read with projection and filter
    rb = table.new_read_builder()
    rb.with_projection(["id", "name"])
    rb.with_filter({"method": "greaterThan", "field": "id", "literals": [0]})
    scan = rb.new_scan()
    plan = scan.plan()
    splits = plan.splits()
    read = rb.new_read()
    rows = sorted(read.to_pylist(splits), key=lambda r: r["id"])
    assert rows == [{"id": 1, "name": "alice"}, {"id": 2, "name": "bob"}, {"id": 3, "name": "carol"}]
    assert plan.snapshot_id() == 1
    # 4. Read via SQL
    assert ctx.sql("SELECT id, name FROM wdb.t ORDER BY id") == rows
    ctx.close()
    oracle_check(os.path.join(warehouse, "wdb.db", "t"))


def test_sql_context_sections(warehouse):
    """"SQL Context", "read via SQL" and "write via SQL": DDL, INSERT, SELECT; the rows written by
    SQL are read back by the programmatic API and by the oracle."""
    with SQLContext() as ctx:
        assert ctx.register_catalog("paimon", {"warehouse": warehouse}) is not None
        ctx.sql("SELECT paimon_create_database('my_db')")
        ctx.sql("CREATE VIRTUAL TABLE my_db.t USING paimon(id INT, name STRING)")
        ctx.sql("INSERT INTO my_db.t VALUES (1, 'alice'), (2, 'bob')")
        assert sorted(ctx.sql("SELECT * FROM my_db.t"), key=lambda r: r["id"]) == [
            {"id": 1, "name": "alice"}, {"id": 2, "name": "bob"}]
        # write via SQL into a table made by the programmatic API (the "default" database)
        catalog = PaimonCatalog({"warehouse": warehouse})
        catalog.create_database("default")
        catalog.create_table("default.my_table", Schema([("id", "INT"), ("name", "STRING")]))
        ctx.sql("SELECT paimon_attach(?, 'database=default')", ("warehouse=" + warehouse,))  # the new database
        ctx.sql("INSERT INTO \"default\".my_table VALUES (?, ?)", (1, "alice"))
        ctx.connection.executemany("INSERT INTO \"default\".my_table VALUES (?, ?)", [(2, "bob")])
        assert ctx.sql("SELECT id, name FROM \"default\".my_table ORDER BY id") == [
            {"id": 1, "name": "alice"}, {"id": 2, "name": "bob"}]
        # a transaction is one commit
        ctx.sql("BEGIN")
        ctx.sql("INSERT INTO my_db.t VALUES (3, 'carol')")
        ctx.sql("INSERT INTO my_db.t VALUES (4, 'dave')")
        ctx.sql("COMMIT")
    table = catalog.get_table("my_db.t")
    assert [s.id() for s in table.list_snapshots()] == [2, 1]
    rb = table.new_read_builder()
    assert sorted(r["id"] for r in rb.new_read().to_pylist(rb.new_scan().plan().splits())) == [1, 2, 3, 4]
    for t in ("my_db.db/t", "default.db/my_table"):
        d = os.path.join(warehouse, t)
        oracle_check(d)
    got = sorted(json.loads(x)["id"] for x in oracle_read(os.path.join(warehouse, "default.db", "my_table")).splitlines())
    assert got == [1, 2]


def test_sql_context_errors(warehouse):
    with SQLContext() as ctx:
        with pytest.raises(paimon_c.InvalidArgumentError, match="warehouse"):
            ctx.register_catalog("paimon", {})
        ctx.register_catalog("paimon", {"warehouse": warehouse})
        with pytest.raises(paimon_c.InvalidArgumentError, match="registered already"):
            ctx.register_catalog("paimon", {"warehouse": warehouse})
        with pytest.raises(Exception, match="no such table"):
            ctx.sql("SELECT * FROM nope.t")
    assert paimon_c.sqlite_extension_path().endswith(".so")


def test_reading_writing_time_travel_inspection(warehouse):
    catalog = PaimonCatalog({"warehouse": warehouse})
    catalog.create_database("default")
    catalog.create_table("default.my_table", Schema([("id", "INT"), ("name", "STRING"), ("dt", "STRING")],
                                                    partition_keys=["dt"]))
    assert catalog.list_databases() == ["default"]
    assert catalog.list_tables("default") == ["my_table"]
    table = catalog.get_table("default.my_table")
    for day in ("2026-11-01", "2026-11-02"):
        wb = table.new_batch_write_builder()
        write = wb.new_write()
        write.write_pylist([{"id": 1, "name": "a", "dt": day}, {"id": 2, "name": "b", "dt": day}])
        messages = write.prepare_commit()
        wb.new_commit().commit(messages)
    # Reading a Table: scan then read
    rb = table.new_read_builder()
    plan = rb.new_scan().plan()
    splits = plan.splits()
    snapshot_id = plan.snapshot_id()
    assert snapshot_id == 2 and len(rb.new_read().to_pylist(splits)) == 4
    # Time Travel
    rb = table.new_read_builder({"scan.snapshot-id": "1"})
    assert len(rb.new_read().to_pylist(rb.new_scan().plan().splits())) == 2
    snap = table.latest_snapshot()
    rb = table.new_read_builder({"scan.timestamp-millis": str(snap.commit_time_ms())})
    assert rb.new_scan().plan().snapshot_id() == 2
    table.create_tag("release-1.0", 1)
    rb = table.new_read_builder({"scan.tag-name": "release-1.0"})
    assert rb.new_scan().plan().snapshot_id() == 1
    # Table Inspection
    assert table.branch() == "main"
    snap = table.latest_snapshot()
    assert snap.id() == 2 and snap.commit_kind() == "APPEND" and snap.total_record_count() == 4
    assert isinstance(snap.commit_time_ms(), int)
    assert [s.id() for s in table.list_snapshots()] == [2, 1]
    assert [(t.name(), t.snapshot_id()) for t in table.list_tags()] == [("release-1.0", 1)]
    stats = sorted((s.partition(), s.record_count()) for s in table.partition_stats())
    assert [c for _, c in stats] == [2, 2]
    assert all(s.total_size_bytes() > 0 for s in table.partition_stats())
    # Table Maintenance: compaction metrics
    metrics = (table.new_compact_builder()
               .with_partition_filter({"method": "equal", "field": "dt", "literals": ["2026-11-01"]})
               .with_commit_user("my-compactor").execute())
    assert set(metrics) >= {"tasks", "files_removed", "files_added", "rows_written", "bytes_written",
                            "changelog_files_added", "changelog_rows_written", "changelog_bytes_written"}


def test_literal_examples(warehouse):
    catalog = PaimonCatalog({"warehouse": warehouse})
    catalog.create_database("default")
    catalog.create_table("default.t", Schema([("dt", "DATE"), ("amount", "DECIMAL(10, 2)"), ("ts", "TIMESTAMP(3)"),
                                              ("ts_ltz", "TIMESTAMP(3) WITH LOCAL TIME ZONE")]))
    t = catalog.get_table("default.t")
    sh = datetime.timezone(datetime.timedelta(hours=8))
    row = {"dt": datetime.date(2024, 1, 1), "amount": Decimal("123.45"), "ts": datetime.datetime(2024, 1, 1, 12),
           "ts_ltz": datetime.datetime(2024, 1, 1, 12, tzinfo=sh)}
    wb = t.new_batch_write_builder()
    w = wb.new_write()
    w.write_pylist([row])
    wb.new_commit().commit(w.prepare_commit())
    for pred in ({"method": "equal", "field": "dt", "literals": [datetime.date(2024, 1, 1)]},
                 {"method": "equal", "field": "amount", "literals": [Decimal("123.45")]},
                 {"method": "equal", "field": "ts", "literals": [datetime.datetime(2024, 1, 1, 12, 0, 0)]},
                 {"method": "equal", "field": "ts_ltz", "literals": [datetime.datetime(2024, 1, 1, 12, 0, 0,
                                                                                      tzinfo=sh)]}):
        rb = t.new_read_builder().with_filter(pred)
        assert len(rb.new_read().to_pylist(rb.new_scan().plan().splits())) == 1, pred
