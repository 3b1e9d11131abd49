"""Python's standard sqlite3 module over the paimon SQLite module (run by sql_test_sql_python).

Usage: sqlite3_dml.py EXTENSION WAREHOUSE. Loads the extension, creates db.t, and writes it with
INSERT (executemany, the module's default implicit transactions and commit()), SELECT, DELETE,
UPDATE and a rolled-back transaction; prints what it reads back as one JSON line per step.
"""
import json
import sqlite3
import sys

ext, wh = sys.argv[1], sys.argv[2]
con = sqlite3.connect(":memory:")  # default isolation level: implicit BEGIN before writes
con.enable_load_extension(True)
con.load_extension(ext)
con.enable_load_extension(False)
con.execute("SELECT paimon_attach(?)", ("warehouse=" + wh,))
con.execute("SELECT paimon_create_database('db')")
con.execute("CREATE VIRTUAL TABLE db.t USING paimon(id INT NOT NULL, name STRING, score DOUBLE, "
            "PRIMARY KEY (id), WITH ('bucket' = '1'))")


def rows(step):
    got = con.execute("SELECT id, name, score FROM db.t ORDER BY id").fetchall()
    print(json.dumps({"step": step, "rows": [list(r) for r in got]}))


con.executemany("INSERT INTO db.t VALUES (?, ?, ?)", [(1, "a", 1.5), (2, "b", None), (3, "c\u00e9", 0.1)])
con.commit()
rows("insert")
con.execute("DELETE FROM db.t WHERE id = ?", (2,))
con.commit()
rows("delete")
con.execute("UPDATE db.t SET score = score * 2, name = upper(name) WHERE id = 1")
con.commit()
rows("update")
con.execute("DELETE FROM db.t")
con.rollback()
rows("rollback")
n = con.execute("SELECT count(*) FROM db.t WHERE score > 1").fetchone()[0]
print(json.dumps({"step": "count", "n": n}))
con.close()
