"""Every expected-result file of the Java-written fixtures reads through the binding's
to_pylist exactly as fixtures/README.md says (same cases and options as the C runner
tests/table/test_fixtures.c, through the public API only)."""
import glob
import json
import os

import pytest

import paimon_c
from conftest import FIXTURES
from fixture_values import rows_match

EXPECTED = sorted(glob.glob(os.path.join(FIXTURES, "expected", "*.json")))


def read_case(path):
    exp = json.load(open(path))
    table = exp["table"]  # [fmt/]name.db/name
    parts = table.split("/")
    warehouse = os.path.join(FIXTURES, "warehouse", *parts[:-2])
    ident = "%s.%s" % (parts[-2][:-3], parts[-1])
    if exp.get("branch"):
        ident += "$branch_" + exp["branch"]
    cat_opts = {"warehouse": warehouse}
    dyn = {}
    if exp.get("snapshot") is not None:
        dyn["scan.snapshot-id"] = str(exp["snapshot"])
    ro = exp.get("read_options") or {}
    if "session_time_zone" in ro:
        dyn["session_time_zone"] = ro["session_time_zone"]
    if "external_path_rewrite" in ro:
        to = os.path.join(FIXTURES, "warehouse", *parts[:-1], "external")
        to = os.path.join(os.path.dirname(os.path.join(FIXTURES, "warehouse", table)), "external")
        cat_opts["path-rewrite"] = "%s=%s" % (ro["external_path_rewrite"]["from"], to)
    with paimon_c.CatalogFactory.create(cat_opts) as cat, cat.get_table(ident) as t:
        rb = t.new_read_builder(dyn).with_projection(exp["columns"])
        plan = rb.new_scan().plan()
        rows = rb.new_read().to_pylist(plan.splits())
        rb.close()
    return exp, rows


@pytest.mark.parametrize("path", EXPECTED, ids=[os.path.basename(p)[:-5] for p in EXPECTED])
def test_fixture(path):
    exp, rows = read_case(path)
    assert rows_match(exp["rows"], [[r[c] for c in exp["columns"]] for r in rows]) is None, \
        rows_match(exp["rows"], [[r[c] for c in exp["columns"]] for r in rows])


def test_fixture_count():
    assert len(EXPECTED) == 90
