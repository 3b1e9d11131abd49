import os
import shutil
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
REPO = os.path.dirname(os.path.dirname(HERE))
SHARED = os.environ.get("PAIMON_SHARED_DIR", os.path.join(os.path.dirname(REPO), "shared"))
FIXTURES = os.path.join(SHARED, "fixtures")
ORACLE = os.path.join(SHARED, "tools", "paimon-table")


@pytest.fixture
def warehouse(tmp_path):
    wh = tmp_path / "wh"
    wh.mkdir()
    return str(wh)


@pytest.fixture
def catalog(warehouse):
    import paimon_c
    with paimon_c.CatalogFactory.create({"warehouse": warehouse}) as c:
        c.create_database("db", True)
        yield c


def _oracle_env():
    # the oracle is node: keep a sanitizer runtime preloaded for our extension out of it
    return {k: v for k, v in os.environ.items() if k not in ("LD_PRELOAD", "ASAN_OPTIONS", "UBSAN_OPTIONS")}


def oracle_check(table_dir):
    """Runs the independent oracle `paimon-table check` on a table directory; returns its output."""
    if not os.path.exists(ORACLE):
        pytest.skip("paimon-table oracle not available")
    r = subprocess.run([ORACLE, "check", table_dir], capture_output=True, text=True, env=_oracle_env())
    assert r.returncode == 0, "paimon-table check %s failed:\n%s%s" % (table_dir, r.stdout, r.stderr)
    return r.stdout


def oracle_read(table_dir, *args):
    if not os.path.exists(ORACLE):
        pytest.skip("paimon-table oracle not available")
    r = subprocess.run([ORACLE, "read", table_dir] + list(args), capture_output=True, text=True, env=_oracle_env())
    assert r.returncode == 0, r.stderr
    return r.stdout
