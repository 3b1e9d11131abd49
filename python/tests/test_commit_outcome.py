"""A commit whose outcome is unknown: the file system reports the snapshot's create-if-absent
link as failed (EIO), once published (`after`) and once not (`before`), through an LD_PRELOAD
shim (fail_link.c, compiled here) in a child process. The commit raises
CommitOutcomeUnknownError (not ConflictError), the messages are not aborted, and committing them
again with the same commit user and identifier publishes the rows exactly once, in the same
process and, from pickled messages, in another process without the shim. Tables are checked by
the independent oracle."""
import json
import os
import pickle
import subprocess
import sys
import sysconfig

import pytest

from conftest import oracle_check, oracle_read

HERE = os.path.dirname(os.path.abspath(__file__))

CHILD = r"""
import pickle, sys
import paimon_c
wh, mode, out = sys.argv[1], sys.argv[2], sys.argv[3]
with paimon_c.CatalogFactory.create({"warehouse": wh}) as c:
    c.create_table("db.t", paimon_c.Schema([("k", "INT NOT NULL"), ("v", "STRING")], primary_keys=["k"],
                                           options={"bucket": "1", "commit.max-retries": "0"}))
    t = c.get_table("db.t")
    wb = t.new_stream_write_builder().with_commit_user("u1")
    w, cm = wb.new_write(), wb.new_commit()
    w.write_pylist([{"k": 1, "v": "a"}])
    assert cm.commit(w.prepare_commit(1), 1) == 1
    w.write_pylist([{"k": 2, "v": "b"}, {"k": 1, "v": "c"}])
    msgs = w.prepare_commit(2)
    try:
        cm.commit(msgs, 2)
        print("no error")
        sys.exit(1)
    except paimon_c.ConflictError as e:
        print("conflict:", e)
        sys.exit(1)
    except paimon_c.CommitOutcomeUnknownError as e:
        print("unknown:", e)
    with open(out, "wb") as f:
        pickle.dump(msgs, f)
    if sys.argv[4] == "same":
        print("snapshot", cm.commit(msgs, 2))
    w.close()
"""

RETRY = r"""
import pickle, sys
import paimon_c
wh, path = sys.argv[1], sys.argv[2]
with open(path, "rb") as f:
    msgs = pickle.load(f)
with paimon_c.CatalogFactory.create({"warehouse": wh}) as c:
    wb = c.get_table("db.t").new_stream_write_builder().with_commit_user("u1")
    print("snapshot", wb.new_commit().commit(msgs, 2))
"""


@pytest.fixture(scope="module")
def shim(tmp_path_factory):
    so = str(tmp_path_factory.mktemp("shim") / "fail_link.so")
    cc = os.environ.get("CC") or (sysconfig.get_config_var("CC") or "cc").split()[0]
    subprocess.run([cc, "-std=c11", "-O1", "-fPIC", "-shared", "-Wall", "-Werror", "-o", so,
                    os.path.join(HERE, "fail_link.c"), "-ldl"], check=True)
    return so


def run(code, args, env_extra=None):
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path))
    env.update(env_extra or {})
    r = subprocess.run([sys.executable, "-c", code] + args, capture_output=True, text=True, env=env)
    return r.returncode, r.stdout + r.stderr


def snapshots(warehouse):
    d = os.path.join(warehouse, "db.db", "t", "snapshot")
    return sorted(int(n[len("snapshot-"):]) for n in os.listdir(d) if n.startswith("snapshot-"))


@pytest.mark.parametrize("mode", ["after", "before"])
@pytest.mark.parametrize("retry_in", ["same", "other"])
def test_commit_outcome_unknown_then_exactly_once(shim, catalog, warehouse, tmp_path, mode, retry_in):
    preload = (os.environ.get("LD_PRELOAD", "") + " " + shim).strip()  # after the ASan runtime when present
    msgs = str(tmp_path / "msgs.pickle")
    rc, out = run(CHILD, [warehouse, mode, msgs, retry_in], {"LD_PRELOAD": preload, "PC_FAIL_LINK": mode,
                                                         "PC_FAIL_LINK_TO": "/snapshot/snapshot-2"})
    assert rc == 0, out
    assert "unknown:" in out and "may or may not be published" in out, out
    assert snapshots(warehouse) == ([1, 2] if mode == "after" or retry_in == "same" else [1]), out
    if retry_in == "same":
        assert "snapshot 2" in out, out
    else:
        rc, out2 = run(RETRY, [warehouse, msgs])
        assert rc == 0 and "snapshot 2" in out2, out2
    assert snapshots(warehouse) == [1, 2]
    tdir = os.path.join(warehouse, "db.db", "t")
    oracle_check(tdir)
    rows = [json.loads(x) for x in oracle_read(tdir).splitlines()]
    assert sorted((r["k"], r["v"]) for r in rows) == [(1, "c"), (2, "b")]
