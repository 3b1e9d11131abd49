"""Catalog DDL through the binding, the exception hierarchy and handle lifetimes."""
import os

import pytest

import paimon_c
from paimon_c import Schema


def test_version():
    assert paimon_c.__version__ == "0.1.0"
    assert paimon_c._native.version() == "0.1.0"


def test_databases_and_tables(catalog, warehouse):
    assert catalog.list_databases() == ["db"]
    catalog.create_database("db2", properties={"k": "v"})
    with pytest.raises(paimon_c.AlreadyExistsError) as e:
        catalog.create_database("db2")
    assert isinstance(e.value, paimon_c.ConflictError) and e.value.code == 7
    catalog.create_database("db2", ignore_if_exists=True)
    schema = Schema([("id", "INT NOT NULL"), ("name", "STRING"), ("dt", "STRING")], partition_keys=["dt"],
                    primary_keys=["dt", "id"], options={"bucket": "2"}, comment="c")
    catalog.create_table("db.t", schema)
    catalog.create_table("db.t", schema, ignore_if_exists=True)
    with pytest.raises(paimon_c.ConflictError):
        catalog.create_table("db.t", schema)
    catalog.create_table("db.a", Schema([paimon_c.DataField(0, "x", "BIGINT")]))
    assert catalog.list_tables("db") == ["a", "t"]
    with catalog.get_table("db.t") as t:
        assert [(f.name, f.type) for f in t.fields] == [("id", "INT NOT NULL"), ("name", "STRING"), ("dt", "STRING NOT NULL")]
        assert t.primary_keys == ["dt", "id"] and t.partition_keys == ["dt"]
        assert t.branch() == "main"
        assert t.option("bucket") == "2"
        assert t.latest_snapshot() is None
        assert t.list_snapshots() == [] and t.list_tags() == []
    catalog.rename_table("db.a", "db.b")
    assert catalog.list_tables("db") == ["b", "t"]
    catalog.alter_table("db.b", [("add_column", "y", "STRING"), ("set_option", "k1", "v1")])
    with catalog.get_table("db.b") as t:
        assert [f.name for f in t.fields] == ["x", "y"] and t.option("k1") == "v1"
        assert t.schema_id == 1
    catalog.drop_table("db.b")
    catalog.drop_table("db.b", ignore_if_not_exists=True)
    with pytest.raises(paimon_c.NotFoundError) as e:
        catalog.get_table("db.b")
    assert isinstance(e.value, LookupError) and "db.b" in str(e.value)
    with pytest.raises(paimon_c.PaimonError):
        catalog.drop_database("db")  # not empty
    catalog.drop_database("db", cascade=True)
    assert catalog.list_databases() == ["db2"]


def test_invalid_arguments(catalog):
    with pytest.raises(paimon_c.InvalidArgumentError) as e:
        catalog.create_table("db.t", Schema([("id", "NOT_A_TYPE")]))
    assert isinstance(e.value, ValueError)
    catalog.create_table("db.t", Schema([("id", "INT")]))
    t = catalog.get_table("db.t")
    with pytest.raises(paimon_c.NotFoundError):
        t.new_read_builder().with_projection(["nope"])
    with pytest.raises(ValueError):
        t.new_read_builder().with_filter({"method": "nope", "field": "id", "literals": [1]})
    with pytest.raises(paimon_c.InvalidArgumentError):
        t.new_read_builder().with_filter({"method": "equal", "field": "id", "literals": ["abc"]})
    with pytest.raises(paimon_c.InvalidArgumentError):
        t.new_read_builder({"scan.snapshot-id": "1", "scan.tag-name": "x"}).new_scan().plan()


def test_closed_handles(warehouse):
    c = paimon_c.CatalogFactory.create({"warehouse": warehouse})
    c.close()
    c.close()
    with pytest.raises(ValueError, match="closed"):
        c.list_databases()


def test_missing_warehouse_option():
    with pytest.raises(paimon_c.InvalidArgumentError):
        paimon_c.CatalogFactory.create({})


def test_schema_from_arrow(catalog):
    from arrow_c import CtypesBatch
    catalog.create_table("db.a", Schema.from_pyarrow_schema(CtypesBatch([1], ["x"]), primary_keys=["id"],
                                                            options={"bucket": "1"}, comment="from arrow"))
    t = catalog.get_table("db.a")
    assert [(f.name, f.type) for f in t.fields] == [("id", "INT NOT NULL"), ("name", "STRING")]
    assert t.primary_keys == ["id"] and t.option("bucket") == "1"
    # a read stream's schema (any __arrow_c_schema__ object) makes a table like the source
    rb = t.new_read_builder()
    st = rb.new_read().to_arrow_stream(rb.new_scan().plan().splits())
    catalog.create_table("db.b", Schema.from_pyarrow_schema(st))
    assert [f.name for f in catalog.get_table("db.b").fields] == ["id", "name"]
    with pytest.raises(TypeError):
        Schema.from_pyarrow_schema(object())


def test_pyarrow_entry_points_need_pyarrow(catalog):
    try:
        import pyarrow  # noqa: F401
        pytest.skip("pyarrow is installed")
    except ImportError:
        pass
    catalog.create_table("db.t", Schema([("id", "INT")]))
    rb = catalog.get_table("db.t").new_read_builder()
    with pytest.raises(ImportError, match="pyarrow"):
        rb.new_read().to_arrow([])
    with pytest.raises(ImportError, match="pyarrow"):
        rb.new_read().to_arrow_batch_reader([])


def test_threads_read_concurrently():
    """The GIL is released around planning and decoding: threads read distinct handles at once."""
    import threading
    from conftest import FIXTURES
    wh = os.path.join(FIXTURES, "warehouse", "parquet")
    results, errors = [], []

    def work():
        try:
            with paimon_c.CatalogFactory.create({"warehouse": wh}) as c, c.get_table("pk_09.pk_09") as t:
                for _ in range(20):
                    rb = t.new_read_builder({"scan.snapshot-id": "8"})
                    results.append(len(rb.new_read().to_pylist(rb.new_scan().plan().splits())))
        except Exception as e:  # pragma: no cover
            errors.append(e)

    th = [threading.Thread(target=work) for _ in range(4)]
    for x in th:
        x.start()
    for x in th:
        x.join()
    assert not errors and results == [9] * 80
