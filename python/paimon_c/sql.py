"""SQL over Paimon tables through Python's standard sqlite3 module and paimon-c's SQLite module
(the loadable extension paimon_sqlite shipped inside this package).

    ctx = SQLContext()
    ctx.register_catalog("paimon", {"warehouse": "/tmp/wh"})
    ctx.sql("SELECT paimon_create_database('db')")
    ctx.sql("CREATE VIRTUAL TABLE db.t USING paimon(id INT, name STRING)")
    ctx.sql("INSERT INTO db.t VALUES (1, 'alice'), (2, 'bob')")
    ctx.sql("SELECT * FROM db.t ORDER BY id")   # [{'id': 1, 'name': 'alice'}, ...]

SQLite names tables with two parts: each Paimon database is a SQLite schema (db.t), so the
catalog name given to register_catalog is not part of table names. The SQL dialect is
SQLite's with the module's DDL (CREATE VIRTUAL TABLE ... USING paimon(...), DROP TABLE) and
functions (paimon_create_database, paimon_compact, paimon_create_tag, ...); see the project
README's SQL section.
"""
import os

from .errors import InvalidArgumentError

__all__ = ["SQLContext", "sqlite_extension_path"]


def sqlite_extension_path():
    """Path of the SQLite loadable extension (for sqlite3.Connection.load_extension or the
    sqlite3 shell's .load)."""
    here = os.path.dirname(os.path.abspath(__file__))
    for name in sorted(os.listdir(here)):
        if name.startswith("paimon_sqlite.") and name.endswith(".so"):
            return os.path.join(here, name)
    raise ImportError("paimon_c: the SQLite extension paimon_sqlite is not in %s (built without it?)" % here)


def _option_args(options):
    if not isinstance(options, dict):
        raise TypeError("catalog options are a dict of str to str, got %s" % type(options).__name__)
    out = []
    for k, v in options.items():
        if not isinstance(k, str) or "=" in k:
            raise InvalidArgumentError("catalog option key %r: a string without '='" % (k,))
        out.append("%s=%s" % (k, v))
    return out


class SQLContext:
    """A SQLite connection with the paimon module loaded. Each statement runs in autocommit mode
    (one Paimon commit per writing statement) unless the SQL opens a transaction (BEGIN ...
    COMMIT: one commit for all of it). `connection` is the sqlite3.Connection for anything else
    (executemany, parameters, cursors)."""

    def __init__(self, database=":memory:"):
        import sqlite3  # the standard module, needed only here

        con = sqlite3.connect(database, isolation_level=None, check_same_thread=False)
        try:
            con.enable_load_extension(True)
            con.load_extension(sqlite_extension_path())
            con.enable_load_extension(False)
        except AttributeError:
            con.close()
            raise ImportError("paimon_c.SQLContext: this Python's sqlite3 cannot load extensions")
        except Exception:
            con.close()
            raise
        self.connection = con
        self._catalogs = {}

    def register_catalog(self, name, options):
        """Attaches the catalog's databases as SQLite schemas (paimon_attach with the catalog
        options, e.g. {"warehouse": ...}; read options such as "scan.snapshot-id" apply to every
        table). Returns the databases attached."""
        if name in self._catalogs:
            raise InvalidArgumentError("catalog %r is registered already" % (name,))
        args = _option_args(options)
        if not any(a.startswith("warehouse=") for a in args):
            raise InvalidArgumentError("catalog %r: the options need 'warehouse'" % (name,))
        placeholders = ", ".join("?" for _ in args)
        res = self.connection.execute("SELECT paimon_attach(%s)" % placeholders, args).fetchone()[0]
        self._catalogs[name] = dict(options)
        return res

    def sql(self, query, parameters=()):
        """Runs one statement; returns its rows as a list of dicts keyed by column name (an empty
        list for statements without a result)."""
        cur = self.connection.execute(query, parameters)
        try:
            if cur.description is None:
                return []
            names = [d[0] for d in cur.description]
            return [dict(zip(names, r)) for r in cur.fetchall()]
        finally:
            cur.close()

    def close(self):
        con, self.connection = self.connection, None
        if con is not None:
            con.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False
