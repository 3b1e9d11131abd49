"""Comparison of to_pylist values with the fixtures' expected JSON encoding
(fixtures/README.md "How a test should compare"): rows as multisets, floats with a
relative tolerance of 1e-6 (or equal as float32), timestamps compared after parsing."""
import base64
import datetime
import decimal
import math
import re

_TS = re.compile(r"^(-?\d{4,})-(\d\d)-(\d\d)T(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?(Z?)$")
_TIME = re.compile(r"^(\d\d):(\d\d):(\d\d)(?:\.(\d{1,9}))?$")


def _float_eq(e, a):
    if not isinstance(e, (int, float)) or isinstance(e, bool):
        if isinstance(e, str) and math.isnan(a) and e == "NaN":
            return True
        if isinstance(e, str) and math.isinf(a):
            return e == ("Infinity" if a > 0 else "-Infinity")
        return False
    if e == a:
        return True
    m = max(1.0, abs(e), abs(a))
    if abs(e - a) <= 1e-6 * m:
        return True
    import struct
    return struct.pack("f", e) == struct.pack("f", a)


def value_eq(e, a):
    if a is None or e is None:
        return a is None and e is None
    if isinstance(a, bool):
        return e is a
    if isinstance(a, int):
        return isinstance(e, (int, float)) and not isinstance(e, bool) and e == a
    if isinstance(a, float):
        return _float_eq(e, a)
    if isinstance(a, decimal.Decimal):
        return isinstance(e, str) and format(a, "f") == e
    if isinstance(a, str):
        return e == a
    if isinstance(a, bytes):
        try:
            return isinstance(e, str) and base64.b64decode(e, validate=True) == a
        except ValueError:
            return False
    if isinstance(a, datetime.datetime):
        m = _TS.match(e) if isinstance(e, str) else None
        if not m:
            return False
        frac = (m.group(7) or "").ljust(9, "0")
        zoned = m.group(8) == "Z"
        if zoned != (a.tzinfo is not None):
            return False
        want = (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(m.group(4)), int(m.group(5)),
                int(m.group(6)), int(frac))
        if zoned and a.utcoffset() != datetime.timedelta(0):
            return False
        got = (a.year, a.month, a.day, a.hour, a.minute, a.second, a.microsecond * 1000 + getattr(a, "nanosecond", 0))
        return want == got
    if isinstance(a, datetime.date):
        return e == a.isoformat()
    if isinstance(a, datetime.time):
        m = _TIME.match(e) if isinstance(e, str) else None
        if not m:
            return False
        frac = (m.group(4) or "").ljust(9, "0")
        return (int(m.group(1)), int(m.group(2)), int(m.group(3)), int(frac)) == (
            a.hour, a.minute, a.second, a.microsecond * 1000)
    if isinstance(a, dict):
        return isinstance(e, dict) and set(e) == set(a) and all(value_eq(e[k], a[k]) for k in a)
    if isinstance(a, list):
        if not isinstance(e, list) or len(e) != len(a):
            return False
        for x, y in zip(e, a):
            if isinstance(y, tuple):  # map entry (key, value) vs [key, value]
                if not (isinstance(x, list) and len(x) == 2 and value_eq(x[0], y[0]) and value_eq(x[1], y[1])):
                    return False
            elif not value_eq(x, y):
                return False
        return True
    return False


def rows_match(expected, actual):
    """Multiset match of expected rows (lists) and actual rows (lists). Returns None or a message."""
    if len(expected) != len(actual):
        return "row count: expected %d, got %d; actual %r" % (len(expected), len(actual), actual[:20])
    used = [False] * len(actual)
    for er in expected:
        for j, ar in enumerate(actual):
            if not used[j] and len(er) == len(ar) and all(value_eq(x, y) for x, y in zip(er, ar)):
                used[j] = True
                break
        else:
            return "expected row %r not found; actual rows %r" % (er, actual[:20])
    return None
