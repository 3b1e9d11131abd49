"""paimon_c: Apache Paimon tables from Python over libpaimon.

pypaimon's class and method names (pypaimon-rust's where pypaimon has none),
no required dependency: rows come back as Python values (to_pylist /
to_iterator), as an Arrow PyCapsule stream (to_arrow_stream, taken zero-copy
by pyarrow, polars or duckdb when installed), or as pandas / pyarrow objects
when those are installed.

    from paimon_c import CatalogFactory, Schema
    catalog = CatalogFactory.create({"warehouse": "/tmp/wh"})
    catalog.create_database("db", True)
    catalog.create_table("db.t", Schema([("id", "INT"), ("name", "STRING")]), True)
    table = catalog.get_table("db.t")
    wb = table.new_batch_write_builder()
    w = wb.new_write(); w.write_pylist([{"id": 1, "name": "a"}])
    wb.new_commit().commit(w.prepare_commit())
    rb = table.new_read_builder().with_filter({"method": "greaterThan", "field": "id", "literals": [0]})
    rows = rb.new_read().to_pylist(rb.new_scan().plan().splits())

Every object holding a C handle has close() and works as a context manager;
handles are also freed when the object is collected.
"""
import base64
import datetime as _dt
import decimal as _decimal
import json as _json
import math as _math

from . import _native
from ._values import Timestamp
from ._version import __version__
from .sql import SQLContext, sqlite_extension_path
from .errors import (AlreadyExistsError, CommitOutcomeUnknownError, ConflictError, CorruptError, InternalError,
                     InvalidArgumentError, NotFoundError, OutOfMemoryError, PaimonError, PaimonIOError,
                     UnsupportedError, _make_error)

_native._register_errors(_make_error)

BATCH_COMMIT_IDENTIFIER = (1 << 63) - 1

__all__ = [
    "CatalogFactory", "Catalog", "PaimonCatalog", "Schema", "DataField", "Table", "ReadBuilder", "PredicateBuilder",
    "Predicate", "TableScan", "Plan", "Split", "TableRead", "ArrowStream", "BatchWriteBuilder", "StreamWriteBuilder",
    "TableWrite", "TableCommit", "TableUpdate", "RowIdUpdate", "CommitMessage", "Snapshot", "Tag", "PartitionStat", "Timestamp", "PaimonError",
    "InvalidArgumentError", "PaimonIOError", "CorruptError", "NotFoundError", "UnsupportedError", "OutOfMemoryError",
    "ConflictError", "AlreadyExistsError", "InternalError", "CommitOutcomeUnknownError", "BATCH_COMMIT_IDENTIFIER",
    "SQLContext", "sqlite_extension_path", "__version__",
]


def _options(d):
    if d is None:
        return None
    return {str(k): (v if isinstance(v, str) else ("true" if v is True else "false" if v is False else str(v)))
            for k, v in d.items()}


class _Closeable:
    _h = None

    def close(self):
        h = self._h
        if h is not None:
            h.close()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()
        return False


def _identifier(ident):
    if isinstance(ident, str):
        return ident
    if hasattr(ident, "get_full_name"):
        return ident.get_full_name()
    if isinstance(ident, (tuple, list)) and len(ident) == 2:
        return "%s.%s" % tuple(ident)
    raise TypeError("a table identifier is 'db.table' (str), got %r" % (ident,))


def _is_system(ident):
    if "$" not in ident:
        return False
    last = ident.rsplit("$", 1)[1]
    return not last.startswith("branch_")


# ------------------------------------------------------------------ schema

class DataField:
    """A column: DataField(id, name, type, description=None); type is a Paimon type string."""

    def __init__(self, id, name, type, description=None):
        self.id = id
        self.name = name
        self.type = type
        self.description = description

    def __repr__(self):
        return "DataField(%r, %r, %r)" % (self.id, self.name, self.type)

    def __eq__(self, other):
        return isinstance(other, DataField) and (self.id, self.name, self.type, self.description) == (
            other.id, other.name, other.type, other.description)


class Schema:
    """Schema(fields, partition_keys=None, primary_keys=None, options=None, comment=None); each field is a
    (name, "PAIMON TYPE") pair or a DataField."""

    def __init__(self, fields, partition_keys=None, primary_keys=None, options=None, comment=None):
        self.fields = []
        for i, f in enumerate(fields):
            if isinstance(f, DataField):
                self.fields.append(f)
            elif isinstance(f, (tuple, list)) and len(f) in (2, 3):
                self.fields.append(DataField(i, f[0], f[1], f[2] if len(f) == 3 else None))
            else:
                raise TypeError("a schema field is (name, type) or DataField, got %r" % (f,))
        self.partition_keys = list(partition_keys or [])
        self.primary_keys = list(primary_keys or [])
        self.options = dict(options or {})
        self.comment = comment

    _arrow = None

    @classmethod
    def from_pyarrow_schema(cls, pa_schema, partition_keys=None, primary_keys=None, options=None, comment=None):
        """Columns from any object with __arrow_c_schema__ (a pyarrow.Schema, a paimon_c.ArrowStream, ...),
        mapped to Paimon types as libpaimon's read side maps them back (string -> STRING,
        timestamp[us] -> TIMESTAMP(6), ...)."""
        if not hasattr(pa_schema, "__arrow_c_schema__"):
            raise TypeError("from_pyarrow_schema takes an object implementing __arrow_c_schema__")
        s = cls([], partition_keys, primary_keys, options, comment)
        s._arrow = pa_schema
        s.fields = None
        return s

    def to_json(self):
        fields = []
        for f in self.fields:
            d = {"id": f.id, "name": f.name, "type": f.type}
            if f.description is not None:
                d["description"] = f.description
            fields.append(d)
        d = {"fields": fields, "partitionKeys": self.partition_keys, "primaryKeys": self.primary_keys,
             "options": _options(self.options)}
        if self.comment is not None:
            d["comment"] = self.comment
        return _json.dumps(d)

    def __repr__(self):
        return "Schema(%r, partition_keys=%r, primary_keys=%r, options=%r)" % (
            self.fields, self.partition_keys, self.primary_keys, self.options)


# ----------------------------------------------------------------- catalog

class CatalogFactory:
    @staticmethod
    def create(options):
        return Catalog(options)


class Catalog(_Closeable):
    """A filesystem catalog over options["warehouse"] (pypaimon-rust: PaimonCatalog(options))."""

    def __init__(self, options):
        self._h = _native.catalog_open(_options(options))

    def list_databases(self):
        return _native.catalog_list_databases(self._h)

    def create_database(self, name, ignore_if_exists=False, properties=None):
        _native.catalog_create_database(self._h, name, _options(properties), ignore_if_exists)

    def drop_database(self, name, ignore_if_not_exists=False, cascade=False):
        _native.catalog_drop_database(self._h, name, cascade, ignore_if_not_exists)

    def list_tables(self, database_name):
        return _native.catalog_list_tables(self._h, database_name)

    def get_table(self, identifier):
        ident = _identifier(identifier)
        return Table(self, _native.catalog_get_table(self._h, ident, _is_system(ident)), ident)

    def create_table(self, identifier, schema, ignore_if_exists=False):
        if not isinstance(schema, Schema):
            raise TypeError("create_table takes a paimon_c.Schema")
        if schema._arrow is not None:
            _native.catalog_create_table_arrow(self._h, _identifier(identifier), schema._arrow.__arrow_c_schema__(),
                                               schema.primary_keys, schema.partition_keys, _options(schema.options),
                                               schema.comment, ignore_if_exists)
        else:
            _native.catalog_create_table(self._h, _identifier(identifier), schema.to_json(), ignore_if_exists)

    def drop_table(self, identifier, ignore_if_not_exists=False):
        _native.catalog_drop_table(self._h, _identifier(identifier), ignore_if_not_exists)

    def rename_table(self, from_identifier, to_identifier, ignore_if_not_exists=False):
        _native.catalog_rename_table(self._h, _identifier(from_identifier), _identifier(to_identifier),
                                     ignore_if_not_exists)

    def alter_table(self, identifier, changes, ignore_if_not_exists=False):
        """changes: tuples ("add_column", name, type, comment, position(0 last/1 first/2 after), reference),
        ("drop_column", name), ("rename_column", name, new_name), ("update_column_type", name, type),
        ("update_column_nullability", name, nullable), ("update_column_comment", name, comment),
        ("set_option", key, value), ("remove_option", key), ("update_comment", comment)."""
        norm = []
        for c in changes:
            c = tuple(c)
            if c and c[0] == "add_column":
                c = (c + (None, 0, None))[:6] if len(c) < 6 else c
            norm.append(c)
        _native.catalog_alter_table(self._h, _identifier(identifier), norm, ignore_if_not_exists)


PaimonCatalog = Catalog


# ------------------------------------------------------------------- table

class Snapshot:
    def __init__(self, row):
        self._row = row

    def id(self):
        return self._row.get("snapshot_id")

    def schema_id(self):
        return self._row.get("schema_id")

    def commit_user(self):
        return self._row.get("commit_user")

    def commit_identifier(self):
        return self._row.get("commit_identifier")

    def commit_kind(self):
        return self._row.get("commit_kind")

    def commit_time_ms(self):
        t = self._row.get("commit_time")
        if isinstance(t, _dt.datetime):
            return int((t.replace(tzinfo=None) - _dt.datetime(1970, 1, 1)).total_seconds() * 1000)
        return t

    def total_record_count(self):
        return self._row.get("total_record_count")

    def delta_record_count(self):
        return self._row.get("delta_record_count")

    def to_dict(self):
        return dict(self._row)

    def __repr__(self):
        return "Snapshot(%r)" % (self._row,)


class Tag:
    def __init__(self, name, snapshot_id, info=None):
        self._name = name
        self._snapshot_id = snapshot_id
        self._info = info or {}

    def name(self):
        return self._name

    def snapshot_id(self):
        return self._snapshot_id

    def __repr__(self):
        return "Tag(%r, %r)" % (self._name, self._snapshot_id)


class PartitionStat:
    def __init__(self, row):
        self._row = row

    def partition(self):
        return self._row.get("partition")

    def record_count(self):
        return self._row.get("record_count")

    def total_size_bytes(self):
        return self._row.get("file_size_in_bytes")

    def file_count(self):
        return self._row.get("file_count")

    def to_dict(self):
        return dict(self._row)


class Table(_Closeable):
    def __init__(self, catalog, handle, identifier):
        self._catalog = catalog
        self._h = handle
        self._ident = identifier
        info = _native.table_info(handle)
        self.identifier = info["identifier"]
        self._branch = info["branch"]
        self.fields = [DataField(i, n, t) for i, (n, t) in enumerate(info["columns"])]
        self.primary_keys = info["primary_keys"]
        self.partition_keys = info["partition_keys"]
        self.schema_id = info["schema_id"]

    def branch(self):
        return self._branch

    def option(self, key):
        return _native.table_option(self._h, key)

    def column_names(self):
        return [f.name for f in self.fields]

    def new_read_builder(self, options=None):
        return ReadBuilder(self, options)

    def new_batch_write_builder(self, options=None):
        return BatchWriteBuilder(self, False, options)

    def new_stream_write_builder(self, options=None):
        return StreamWriteBuilder(self, True, options)

    # inspection
    def _system_rows(self, name):
        base = self._ident
        with self._catalog.get_table("%s$%s" % (base, name)) as t:
            rb = t.new_read_builder()
            return rb.new_read().to_pylist(rb.new_scan().plan().splits())

    def latest_snapshot(self):
        sid = _native.table_latest_snapshot_id(self._h)
        if not sid:
            return None
        for r in self._system_rows("snapshots"):
            if r.get("snapshot_id") == sid:
                return Snapshot(r)
        return None

    def list_snapshots(self):
        rows = self._system_rows("snapshots")
        return [Snapshot(r) for r in sorted(rows, key=lambda r: -r["snapshot_id"])]

    def list_tags(self):
        out = []
        for name in _native.table_list_tags(self._h):
            sid, js = _native.table_get_tag(self._h, name)
            out.append(Tag(name, sid, _json.loads(js)))
        return out

    def partition_stats(self):
        return [PartitionStat(r) for r in self._system_rows("partitions")]

    list_partitions = partition_stats

    def create_tag(self, name, snapshot_id=None, time_retained=None, ignore_if_exists=False):
        _native.table_create_tag(self._h, name, -1 if snapshot_id is None else snapshot_id, time_retained,
                                 ignore_if_exists)

    def delete_tag(self, name):
        _native.table_delete_tag(self._h, name)

    def rollback_to(self, snapshot_id_or_tag):
        _native.table_rollback(self._h, snapshot_id_or_tag)

    def expire_snapshots(self, retain_max=None, retain_min=None, older_than_ms=None, dry_run=False):
        """Expires snapshots beyond the retention (None: the table's option); returns what was done."""
        return _native.table_expire_snapshots(self._h, -1 if retain_max is None else retain_max,
                                              -1 if retain_min is None else retain_min,
                                              -1 if older_than_ms is None else older_than_ms, dry_run)

    def remove_orphan_files(self, older_than_ms=0, dry_run=False):
        """Deletes files nothing references that are older than older_than_ms (0: a day ago)."""
        return _native.table_remove_orphan_files(self._h, older_than_ms, dry_run)

    def create_branch(self, name, tag=None, snapshot_id=None, ignore_if_exists=False):
        _native.table_create_branch(self._h, name, tag, -1 if snapshot_id is None else snapshot_id,
                                    ignore_if_exists)

    def delete_branch(self, name):
        _native.table_branch_op(self._h, "delete", name)

    def fast_forward(self, name):
        _native.table_branch_op(self._h, "fast_forward", name)

    def list_branches(self):
        return _native.table_list_branches(self._h)

    def new_compact_builder(self):
        return CompactBuilder(self)


class CompactBuilder:
    def __init__(self, table):
        self._table = table
        self._full = False
        self._partition = None
        self._user = None
        self._filter = None

    def with_full_compaction(self, full=True):
        self._full = bool(full)
        return self

    def with_partition(self, spec):
        self._partition = _options(spec)
        return self

    def with_partition_filter(self, predicate):
        self._filter = _predicate_text(predicate)
        return self

    def with_commit_user(self, user):
        self._user = user
        return self

    def execute(self):
        return _native.table_compact(self._table._h, self._full, self._partition, self._user, self._filter)


# -------------------------------------------------------------- predicates

_LITERAL_NULL, _BOOL, _INT, _DOUBLE, _STRING, _BYTES, _DECIMAL, _DATE, _TIME, _TIMESTAMP = range(10)
_EPOCH = _dt.datetime(1970, 1, 1)
_EPOCH_DATE = _dt.date(1970, 1, 1)


def _literal(v):
    """A Python literal as the tagged tuple the native layer takes (kind, i, scale, nanos, d, s)."""
    if v is None:
        return (_LITERAL_NULL, 0, 0, 0, 0.0, None)
    if isinstance(v, bool):
        return (_BOOL, int(v), 0, 0, 0.0, None)
    if isinstance(v, int):
        if -(1 << 63) <= v < (1 << 63):
            return (_INT, v, 0, 0, 0.0, None)
        return (_STRING, 0, 0, 0, 0.0, str(v))
    if isinstance(v, float):
        return (_DOUBLE, 0, 0, 0, v, None)
    if isinstance(v, str):
        return (_STRING, 0, 0, 0, 0.0, v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return (_BYTES, 0, 0, 0, 0.0, bytes(v))
    if isinstance(v, _decimal.Decimal):
        sign, digits, exp = v.as_tuple()
        if not isinstance(exp, int):
            raise ValueError("a Decimal literal must be finite, got %r" % (v,))
        unscaled = int("".join(map(str, digits)) or "0") * (-1 if sign else 1)
        scale = -exp
        if scale < 0:
            unscaled *= 10 ** (-scale)
            scale = 0
        if -(1 << 63) <= unscaled < (1 << 63):
            return (_DECIMAL, unscaled, scale, 0, 0.0, None)
        return (_STRING, 0, 0, 0, 0.0, str(v))
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None and v.utcoffset() is not None:
            v = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
        delta = v - _EPOCH
        us = (delta.days * 86400 + delta.seconds) * 1000000 + delta.microseconds
        nanos = getattr(v, "nanosecond", 0)
        return (_TIMESTAMP, us // 1000, 0, (us % 1000) * 1000 + nanos, 0.0, None)
    if isinstance(v, _dt.date):
        return (_DATE, (v - _EPOCH_DATE).days, 0, 0, 0.0, None)
    if isinstance(v, _dt.time):
        return (_TIME, ((v.hour * 60 + v.minute) * 60 + v.second) * 1000 + v.microsecond // 1000, 0, 0, 0.0, None)
    raise TypeError("unsupported literal type %s" % type(v).__name__)


_LEAVES = {"equal", "notEqual", "lessThan", "lessOrEqual", "greaterThan", "greaterOrEqual", "isNull", "isNotNull",
           "in", "notIn", "startsWith", "endsWith", "contains", "like", "between"}


def _tree(p):
    """A predicate (dict of reference 002's format, or Predicate) as the native layer's tuples."""
    if isinstance(p, Predicate):
        p = p.to_dict()
    if not isinstance(p, dict):
        raise TypeError("a predicate is a dict {'method': ..., ...} or a Predicate, got %r" % (p,))
    m = p.get("method")
    if m in ("and", "or"):
        kids = p.get("children")
        if not kids:
            raise ValueError("predicate '%s' needs a non-empty 'children' list" % m)
        return (m, [_tree(c) for c in kids])
    if m == "not":
        kids = p.get("children") or [p.get("child")]
        if len(kids) != 1 or kids[0] is None:
            raise ValueError("predicate 'not' takes one child")
        return ("not", _tree(kids[0]))
    if m not in _LEAVES:
        raise ValueError("unknown predicate method %r" % (m,))
    field = p.get("field")
    if not isinstance(field, str):
        raise ValueError("predicate '%s' needs a 'field' (str)" % m)
    lits = p.get("literals") or []
    if not isinstance(lits, (list, tuple)):
        raise ValueError("predicate '%s': 'literals' must be a list" % m)
    return (m, field, [_literal(v) for v in lits])


def _sql_literal(v):
    if v is None:
        return "NULL"
    if isinstance(v, bool):
        return "TRUE" if v else "FALSE"
    if isinstance(v, (int, float, _decimal.Decimal)):
        return str(v)
    if isinstance(v, _dt.datetime):
        return "TIMESTAMP '%s'" % v.replace(tzinfo=None).isoformat(" ")
    if isinstance(v, _dt.date):
        return "DATE '%s'" % v.isoformat()
    return "'%s'" % str(v).replace("'", "''")


def _predicate_text(p):
    """The filter-expression text (paimon_predicate_parse syntax) of a predicate dict."""
    if isinstance(p, Predicate):
        p = p.to_dict()
    m = p["method"]
    if m in ("and", "or"):
        return "(" + (" %s " % m).join(_predicate_text(c) for c in p["children"]) + ")"
    if m == "not":
        return "not (%s)" % _predicate_text((p.get("children") or [p.get("child")])[0])
    f = '"%s"' % p["field"].replace('"', '""')
    lits = p.get("literals") or []
    ops = {"equal": "=", "notEqual": "<>", "lessThan": "<", "lessOrEqual": "<=", "greaterThan": ">",
           "greaterOrEqual": ">="}
    if m in ops:
        return "%s %s %s" % (f, ops[m], _sql_literal(lits[0]))
    if m == "isNull":
        return "%s is null" % f
    if m == "isNotNull":
        return "%s is not null" % f
    if m in ("in", "notIn"):
        return "%s %s (%s)" % (f, "in" if m == "in" else "not in", ", ".join(_sql_literal(v) for v in lits))
    if m == "between":
        return "%s between %s and %s" % (f, _sql_literal(lits[0]), _sql_literal(lits[1]))
    esc = lambda s: s.replace("\\", "\\\\").replace("%", "\\%").replace("_", "\\_")
    if m == "startsWith":
        return "%s like %s" % (f, _sql_literal(esc(lits[0]) + "%"))
    if m == "endsWith":
        return "%s like %s" % (f, _sql_literal("%" + esc(lits[0])))
    if m == "contains":
        return "%s like %s" % (f, _sql_literal("%" + esc(lits[0]) + "%"))
    if m == "like":
        return "%s like %s" % (f, _sql_literal(lits[0]))
    raise ValueError("unknown predicate method %r" % (m,))


class Predicate:
    """A predicate made by PredicateBuilder; to_dict() gives reference 002's dict format."""

    def __init__(self, d):
        self._d = d

    def to_dict(self):
        return self._d

    def __repr__(self):
        return "Predicate(%r)" % (self._d,)


class PredicateBuilder:
    """pypaimon's predicate builder names."""

    def _leaf(self, method, field, literals=()):
        return Predicate({"method": method, "field": field, "literals": list(literals)})

    def equal(self, field, literal):
        return self._leaf("equal", field, [literal])

    def not_equal(self, field, literal):
        return self._leaf("notEqual", field, [literal])

    def less_than(self, field, literal):
        return self._leaf("lessThan", field, [literal])

    def less_or_equal(self, field, literal):
        return self._leaf("lessOrEqual", field, [literal])

    def greater_than(self, field, literal):
        return self._leaf("greaterThan", field, [literal])

    def greater_or_equal(self, field, literal):
        return self._leaf("greaterOrEqual", field, [literal])

    def is_null(self, field):
        return self._leaf("isNull", field)

    def is_not_null(self, field):
        return self._leaf("isNotNull", field)

    def startswith(self, field, pattern):
        return self._leaf("startsWith", field, [pattern])

    def endswith(self, field, pattern):
        return self._leaf("endsWith", field, [pattern])

    def contains(self, field, pattern):
        return self._leaf("contains", field, [pattern])

    def like(self, field, pattern):
        return self._leaf("like", field, [pattern])

    def is_in(self, field, literals):
        return self._leaf("in", field, literals)

    def is_not_in(self, field, literals):
        return self._leaf("notIn", field, literals)

    def between(self, field, included_lower_bound, included_upper_bound):
        return self._leaf("between", field, [included_lower_bound, included_upper_bound])

    def and_predicates(self, predicates):
        return Predicate({"method": "and", "children": [p.to_dict() if isinstance(p, Predicate) else p
                                                        for p in predicates]})

    def or_predicates(self, predicates):
        return Predicate({"method": "or", "children": [p.to_dict() if isinstance(p, Predicate) else p
                                                       for p in predicates]})

    def not_predicate(self, predicate):
        return Predicate({"method": "not", "children": [predicate.to_dict() if isinstance(predicate, Predicate)
                                                        else predicate]})


# -------------------------------------------------------------------- read

class ReadBuilder(_Closeable):
    def __init__(self, table, options=None):
        self._table = table
        self._options = _options(options)
        self._h = _native.read_builder_new(table._h, self._options)
        self._limit = -1
        self._case_sensitive = True
        self._row_kind = False
        self._projection = None

    def _apply(self):
        _native.rb_settings(self._h, self._limit, self._case_sensitive, self._row_kind)

    def with_projection(self, projection):
        _native.rb_projection(self._h, list(projection) if projection else [])
        self._projection = list(projection) if projection else None
        return self

    def with_filter(self, predicate):
        """A dict of reference 002's predicate format, a Predicate, a filter-expression str, or None."""
        if predicate is None:
            _native.rb_filter(self._h, None)
        elif isinstance(predicate, str):
            _native.rb_filter_text(self._h, predicate)
        else:
            _native.rb_filter(self._h, _tree(predicate))
        return self

    def with_limit(self, limit):
        self._limit = -1 if limit is None else int(limit)
        self._apply()
        return self

    def with_case_sensitive(self, case_sensitive):
        self._case_sensitive = bool(case_sensitive)
        self._apply()
        return self

    def with_include_row_kind(self, include=True):
        self._row_kind = bool(include)
        self._apply()
        return self

    def with_row_ranges(self, ranges):
        """Data-evolution (row-tracking) tables: only rows whose _ROW_ID is in one of the inclusive
        (from, to) ranges; an empty list selects no row; a second call replaces the ranges."""
        _native.rb_row_ranges(self._h, list(ranges))
        return self

    def with_shard(self, index, count):
        """Shard index of count: primary-key tables by bucket (bucket % count == index), append
        tables by row position (see TableScan.with_row_position_shard); stream scans as Java's."""
        _native.rb_select(self._h, "b", int(index), int(count))
        return self

    def with_row_position_slice(self, start, end):
        _native.rb_select(self._h, "s", int(start), int(end))
        return self

    def with_row_position_shard(self, index, count):
        _native.rb_select(self._h, "p", int(index), int(count))
        return self

    def new_predicate_builder(self):
        return PredicateBuilder()

    def new_scan(self):
        return TableScan(self)

    def new_incremental_scan(self, start, end, mode="delta"):
        opts = dict(self._options or {})
        opts["incremental-between"] = "%s,%s" % (start, end)
        opts["incremental-between-scan-mode"] = mode
        rb = ReadBuilder(self._table, opts)
        if self._projection:
            rb.with_projection(self._projection)
        rb._limit, rb._case_sensitive, rb._row_kind = self._limit, self._case_sensitive, self._row_kind
        rb._apply()
        return TableScan(rb)

    def new_stream_scan(self):
        return StreamTableScan(self)

    def new_read(self):
        return TableRead(self)

    def read_type(self):
        names = self._projection or self._table.column_names()
        return (["_row_kind"] if self._row_kind else []) + list(names)


class Split:
    """One split of a plan; pickles as its Java wire bytes (DataSplit.serialize)."""

    def __init__(self, handle):
        self._h = handle
        self._info = None

    def _i(self):
        if self._info is None:
            self._info = _native.split_info(self._h)
        return self._info

    @property
    def bucket(self):
        return self._i()["bucket"]

    @property
    def row_count(self):
        return self._i()["row_count"]

    @property
    def file_count(self):
        return self._i()["file_count"]

    @property
    def snapshot_id(self):
        return self._i()["snapshot_id"]

    def is_streaming(self):
        return self._i()["is_streaming"]

    @property
    def row_ranges(self):
        """The split's row selection as inclusive (from, to) pairs (row ids on row-tracking tables,
        else positions local to the split), or None when every row of its files is read."""
        return _native.split_row_ranges(self._h)

    def serialize(self):
        return _native.split_serialize(self._h)

    @staticmethod
    def deserialize(data):
        return Split(_native.split_deserialize(bytes(data)))

    def __reduce__(self):
        return (Split.deserialize, (self.serialize(),))

    def __repr__(self):
        return "Split(bucket=%d, files=%d, rows=%d)" % (self.bucket, self.file_count, self.row_count)


class Plan(_Closeable):
    def __init__(self, handle):
        self._h = handle
        self._splits = [Split(s) for s in _native.plan_splits(handle)]

    def splits(self):
        return list(self._splits)

    def snapshot_id(self):
        return _native.plan_snapshot_id(self._h)


class TableScan:
    def __init__(self, rb):
        self._rb = rb

    def with_row_position_slice(self, start, end):
        """Rows at plan positions [start, end) (append and data-evolution tables). The selection is
        set on the read builder (its later scans carry it) and encoded in the splits."""
        self._rb.with_row_position_slice(start, end)
        return self

    def with_row_position_shard(self, index, count):
        """Balanced shard index of count of the plan's row positions (first N % count shards get
        one row more)."""
        self._rb.with_row_position_shard(index, count)
        return self

    def with_shard(self, index, count):
        self._rb.with_shard(index, count)
        return self

    def plan(self):
        return Plan(_native.rb_plan(self._rb._h))


class StreamTableScan(_Closeable):
    """Continuous scan: plan() returns the next Plan or None; checkpoint / restore / notify_checkpoint_complete."""

    def __init__(self, rb):
        self._rb = rb
        self._h = _native.stream_scan_new(rb._h)

    def plan(self):
        h = _native.stream_scan_plan(self._h)
        return None if h is None else Plan(h)

    def checkpoint(self):
        return _native.stream_scan_checkpoint(self._h)

    def restore(self, next_snapshot_id):
        _native.stream_scan_restore(self._h, next_snapshot_id)

    def notify_checkpoint_complete(self, next_snapshot_id):
        if next_snapshot_id is not None:
            _native.stream_scan_notify(self._h, next_snapshot_id)


class ArrowStream(_Closeable):
    """Rows of a read as an Arrow C stream (Arrow PyCapsule interface): pyarrow.table(s),
    polars.from_arrow(s), duckdb.from_arrow(s) take it without pyarrow on our side. The stream owns
    everything it needs (the builder, plan and splits may be gone); it can be exported once."""

    def __init__(self, handle):
        self._h = handle

    def __arrow_c_stream__(self, requested_schema=None):
        if self._h is None or self._h.closed():
            raise ValueError("the Arrow stream was already consumed or closed")
        return _native.stream_export(self._h)

    def __arrow_c_schema__(self):
        return _native.stream_schema(self._h)


def _handles(splits):
    out = []
    for s in splits:
        if not isinstance(s, Split):
            raise TypeError("expected paimon_c.Split objects, got %s" % type(s).__name__)
        out.append(s._h)
    return out


class TableRead:
    def __init__(self, rb):
        self._rb = rb

    def _stream(self, splits):
        return _native.rb_read(self._rb._h, _handles(splits))

    def to_arrow_stream(self, splits):
        return ArrowStream(self._stream(splits))

    def to_iterator(self, splits):
        h = self._stream(splits)
        try:
            while True:
                rows = _native.stream_next_rows(h)
                if rows is None:
                    break
                yield from rows
        finally:
            h.close()

    def to_pylist(self, splits):
        h = self._stream(splits)
        out = []
        try:
            while True:
                rows = _native.stream_next_rows(h)
                if rows is None:
                    return out
                out.extend(rows)
        finally:
            h.close()

    def to_pandas(self, splits):
        import pandas as pd
        return pd.DataFrame(self.to_pylist(splits), columns=self._rb.read_type())

    def _pyarrow(self):
        try:
            import pyarrow
        except ImportError:
            raise ImportError("to_arrow / to_arrow_batch_reader need pyarrow; use to_arrow_stream, to_pylist or "
                              "to_pandas without it") from None
        return pyarrow

    def to_arrow(self, splits):
        pa = self._pyarrow()
        return pa.table(self.to_arrow_stream(splits))

    def to_arrow_batch_reader(self, splits):
        pa = self._pyarrow()
        return pa.RecordBatchReader.from_stream(self.to_arrow_stream(splits))

    def read(self, splits):
        return list(self.to_arrow_batch_reader(splits))


# ------------------------------------------------------------------- write

def _b64(b):
    return base64.b64encode(bytes(b)).decode("ascii")


def _json_value(v):
    if v is None or isinstance(v, (bool, str)):
        return v
    if isinstance(v, int):
        return v
    if isinstance(v, float):
        if _math.isnan(v):
            return "NaN"
        if _math.isinf(v):
            return "Infinity" if v > 0 else "-Infinity"
        return v
    if isinstance(v, _decimal.Decimal):
        return str(v)
    if isinstance(v, (bytes, bytearray, memoryview)):
        return _b64(v)
    if isinstance(v, _dt.datetime):
        if v.tzinfo is not None and v.utcoffset() is not None:
            u = v.astimezone(_dt.timezone.utc).replace(tzinfo=None)
            s = u.isoformat()
            ns = getattr(v, "nanosecond", 0)
            return (s + (".000000" if "." not in s and ns else "") + ("%03d" % ns if ns else "")) + "Z"
        s = v.isoformat()
        ns = getattr(v, "nanosecond", 0)
        return s + (".000000" if "." not in s and ns else "") + ("%03d" % ns if ns else "")
    if isinstance(v, _dt.date):
        return v.isoformat()
    if isinstance(v, _dt.time):
        return v.isoformat()
    if isinstance(v, dict):
        return {str(k): _json_value(x) for k, x in v.items()}
    if isinstance(v, (list, tuple)):
        return [_json_value(x) for x in v]
    if hasattr(v, "item"):  # numpy scalars
        return _json_value(v.item())
    if hasattr(v, "tolist"):  # numpy arrays
        return _json_value(v.tolist())
    raise TypeError("cannot write a value of type %s" % type(v).__name__)


class CommitMessage:
    """The commit messages of one prepare_commit; pickles as Java's ManifestCommittable bytes."""

    def __init__(self, handle, identifier=BATCH_COMMIT_IDENTIFIER):
        self._h = handle
        self._identifier = identifier

    def _info(self):
        return _native.messages_info(self._h)

    def is_empty(self):
        return self._info()[1] == 0 and self._info()[0] == 0

    def file_count(self):
        return self._info()[1]

    def row_count(self):
        return self._info()[2]

    def serialize(self):
        return _native.messages_serialize(self._h, self._identifier)

    @staticmethod
    def deserialize(data, version=5):
        h, ident = _native.messages_deserialize(bytes(data), version)
        return CommitMessage(h, ident)

    def __reduce__(self):
        return (CommitMessage.deserialize, (self.serialize(),))

    def close(self):
        self._h.close()

    def __repr__(self):
        n, files, rows = self._info()
        return "CommitMessage(messages=%d, files=%d, rows=%d)" % (n, files, rows)


class _WriteBuilder(_Closeable):
    def __init__(self, table, streaming, options):
        self._table = table
        self._h = _native.write_builder_new(table._h, streaming, _options(options))

    @property
    def commit_user(self):
        return _native.wb_commit_user(self._h)

    def with_commit_user(self, user):
        _native.wb_commit_user(self._h, user)
        return self

    def new_write(self):
        return TableWrite(self)

    def new_commit(self):
        return TableCommit(self)

    def new_update(self):
        return TableUpdate(self)


class TableUpdate:
    """builder.new_update(): column updates of data-evolution tables (row-tracking.enabled and
    data-evolution.enabled)."""

    def __init__(self, wb):
        self._wb = wb

    def new_update_by_row_id(self, commit_identifier=None):
        streaming = isinstance(self._wb, StreamWriteBuilder)
        if streaming and commit_identifier is None:
            raise ValueError("a stream update takes a commit identifier")
        if not streaming and commit_identifier not in (None, BATCH_COMMIT_IDENTIFIER):
            raise ValueError("a batch update takes no commit identifier")
        return RowIdUpdate(self._wb, BATCH_COMMIT_IDENTIFIER if commit_identifier is None else commit_identifier)


class RowIdUpdate:
    """update_columns(data, columns): data holds _ROW_ID and the columns to update (any
    __arrow_c_stream__ / __arrow_c_array__ object, or a list of dicts); returns the commit messages
    of the files written (commit them with a TableCommit of the same builder). Invalid input fails
    before anything is written."""

    def __init__(self, wb, identifier):
        self._wb = wb
        self._identifier = identifier
        self.updated_rows = 0

    def update_columns(self, data, columns):
        cols = [columns] if isinstance(columns, str) else list(columns)
        u = _native.wb_new_update(self._wb._h, cols)
        try:
            th = self._wb._table._h
            if isinstance(data, (list, tuple)):
                lines = []
                for r in data:
                    if not isinstance(r, dict):
                        raise TypeError("update_columns takes dicts keyed by column name, got %s" % type(r).__name__)
                    lines.append(_json.dumps({str(k): _json_value(v) for k, v in r.items()}, allow_nan=False))
                if lines:
                    _native.update_input(u, th, ("\n".join(lines) + "\n").encode("utf-8"))
            elif _is_stream(data):
                _native.update_input(u, th, data.__arrow_c_stream__())
            elif hasattr(data, "__arrow_c_array__"):
                schema, array = data.__arrow_c_array__()
                _native.update_input(u, th, schema, array)
            else:
                raise TypeError("update_columns takes an Arrow stream / batch object or a list of dicts")
            msgs = [CommitMessage(_native.update_prepare_commit(u, self._identifier), self._identifier)]
            self.updated_rows += _native.update_rows(u)
            return msgs
        finally:
            u.close()


class BatchWriteBuilder(_WriteBuilder):
    def overwrite(self, static_partition=None):
        """Overwrite the whole table (or, with dynamic-partition-overwrite, the partitions written),
        or the static partition given as a dict."""
        _native.wb_overwrite(self._h, _options(static_partition or {}))
        return self


class StreamWriteBuilder(_WriteBuilder):
    pass


_ROW_KINDS = {"+I": 0, "-U": 1, "+U": 2, "-D": 3}


def _is_stream(obj):
    return hasattr(obj, "__arrow_c_stream__")


class TableWrite(_Closeable):
    def __init__(self, wb):
        self._wb = wb
        self._h = _native.wb_new_write(wb._h)
        self._streaming = isinstance(wb, StreamWriteBuilder)
        self._prepared = False

    def write_arrow(self, data, row_kind=None):
        """Any object with __arrow_c_stream__ (a table, reader, stream) or __arrow_c_array__ (a batch).
        row_kind ("+I", "-U", "+U", "-D"; batches only): the kind of every row (primary-key tables)."""
        if row_kind is not None and row_kind not in _ROW_KINDS:
            raise ValueError("row_kind is one of %s" % ", ".join(_ROW_KINDS))
        if row_kind is not None and not hasattr(data, "__arrow_c_array__"):
            raise ValueError("row_kind applies to a record batch (__arrow_c_array__)")
        if _is_stream(data) and row_kind is None:
            _native.write_stream(self._h, data.__arrow_c_stream__())
        elif hasattr(data, "__arrow_c_array__"):
            schema, array = data.__arrow_c_array__()
            if row_kind is None:
                _native.write_array(self._h, schema, array)
            else:
                _native.write_array(self._h, schema, array, _ROW_KINDS[row_kind])
        else:
            raise TypeError("write_arrow takes an object implementing __arrow_c_stream__ or __arrow_c_array__")

    write_arrow_batch = write_arrow

    def write_pylist(self, rows, row_kind_column=None):
        """Rows as dicts keyed by column name (missing keys are null). Primary-key tables: with
        row_kind_column, each row's kind ("+I", "-U", "+U", "-D") is read from that key (not a column)."""
        lines = []
        for r in rows:
            if not isinstance(r, dict):
                raise TypeError("write_pylist takes dicts keyed by column name, got %s" % type(r).__name__)
            lines.append(_json.dumps({str(k): _json_value(v) for k, v in r.items()}, allow_nan=False))
        if lines:
            _native.write_jsonl(self._h, self._wb._table._h, ("\n".join(lines) + "\n").encode("utf-8"),
                                row_kind_column)

    def write_rows(self, rows, columns=None):
        """Rows as tuples / lists of values in the order of `columns` (default: the table's columns)."""
        cols = list(columns or self._wb._table.column_names())
        recs = []
        for i, r in enumerate(rows):
            r = tuple(r)
            if len(r) != len(cols):
                raise InvalidArgumentError("write_rows: row %d has %d values, expected %d (%s)"
                                           % (i, len(r), len(cols), ", ".join(cols)))
            recs.append(dict(zip(cols, r)))
        self.write_pylist(recs)

    def write_pandas(self, df):
        if _is_stream(df) and not hasattr(df, "to_dict"):
            return self.write_arrow(df)
        import pandas as pd
        recs = []
        for r in df.to_dict("records"):
            recs.append({k: (None if (v is None or (not isinstance(v, (list, tuple, dict, bytes, str))
                                                    and pd.isna(v) is True))
                             else (v.to_pydatetime() if isinstance(v, pd.Timestamp) else v))
                         for k, v in r.items()})
        self.write_pylist(recs)

    def compact(self, partition=None, bucket=-1, full_compaction=False):
        """Primary-key tables: compacts buckets in this writer (Java TableWrite.compact); the results are
        committed by the next prepare_commit + commit."""
        _native.write_compact(self._h, _options(partition), bucket, full_compaction)

    def prepare_commit(self, commit_identifier=None):
        if commit_identifier is None:
            if self._streaming:
                raise ValueError("a stream write's prepare_commit takes a commit identifier")
            commit_identifier = BATCH_COMMIT_IDENTIFIER
        elif not self._streaming and commit_identifier != BATCH_COMMIT_IDENTIFIER:
            raise ValueError("a batch write's prepare_commit takes no identifier")
        if not self._streaming and self._prepared:
            raise ValueError("a batch write prepares its commit once")
        self._prepared = True
        return [CommitMessage(_native.write_prepare_commit(self._h, commit_identifier), commit_identifier)]


def _merged(messages):
    msgs = [m for m in messages]
    for m in msgs:
        if not isinstance(m, CommitMessage):
            raise TypeError("expected paimon_c.CommitMessage objects, got %s" % type(m).__name__)
    if len(msgs) == 1:
        return msgs[0]._h, False
    if not msgs:
        return None, False
    first, _ = _native.messages_deserialize(msgs[0].serialize(), 5)
    for m in msgs[1:]:
        other, _ = _native.messages_deserialize(m.serialize(), 5)
        _native.messages_merge(first, other)
    return first, True


class TableCommit(_Closeable):
    def __init__(self, wb):
        self._wb = wb
        self._h = _native.wb_new_commit(wb._h)
        self._streaming = isinstance(wb, StreamWriteBuilder)

    def commit(self, messages, commit_identifier=None, properties=None):
        """Publishes the messages; returns the snapshot id (None for an ignored empty commit).
        ConflictError: nothing published (abort is safe); CommitOutcomeUnknownError: maybe published
        (never abort; commit again with the same user and identifier)."""
        if commit_identifier is None:
            if self._streaming:
                ids = {m._identifier for m in messages}
                commit_identifier = ids.pop() if len(ids) == 1 else None
                if commit_identifier is None:
                    raise ValueError("a stream commit takes a commit identifier")
            else:
                commit_identifier = BATCH_COMMIT_IDENTIFIER
        h, temp = _merged(messages)
        if h is None:
            return None
        try:
            snap = _native.commit_commit(self._h, h, commit_identifier, _options(properties))
        finally:
            if temp:
                h.close()
        return None if snap < 0 else snap

    def abort(self, messages):
        h, temp = _merged(messages)
        if h is None:
            return
        try:
            _native.commit_abort(self._h, h)
        finally:
            if temp:
                h.close()

    def truncate_table(self, commit_identifier=BATCH_COMMIT_IDENTIFIER):
        snap = _native.commit_truncate(self._h, None, commit_identifier)
        return None if snap < 0 else snap

    def truncate_partitions(self, partitions, commit_identifier=BATCH_COMMIT_IDENTIFIER):
        snap = _native.commit_truncate(self._h, [_options(p) for p in partitions], commit_identifier)
        return None if snap < 0 else snap


BatchTableWrite = StreamTableWrite = TableWrite
BatchTableCommit = StreamTableCommit = TableCommit
