"""An Arrow C stream consumer written with ctypes from the published Arrow C ABI
(independent of paimon_c's code): moves a stream out of a PyCapsule and reads it."""
import ctypes
from ctypes import CFUNCTYPE, POINTER, Structure, c_char_p, c_int, c_int64, c_void_p


class ArrowSchema(Structure):
    pass


ArrowSchema._fields_ = [("format", c_char_p), ("name", c_char_p), ("metadata", c_char_p), ("flags", c_int64),
                        ("n_children", c_int64), ("children", POINTER(POINTER(ArrowSchema))),
                        ("dictionary", POINTER(ArrowSchema)), ("release", CFUNCTYPE(None, POINTER(ArrowSchema))),
                        ("private_data", c_void_p)]


class ArrowArray(Structure):
    pass


ArrowArray._fields_ = [("length", c_int64), ("null_count", c_int64), ("offset", c_int64), ("n_buffers", c_int64),
                       ("n_children", c_int64), ("buffers", POINTER(c_void_p)),
                       ("children", POINTER(POINTER(ArrowArray))), ("dictionary", POINTER(ArrowArray)),
                       ("release", CFUNCTYPE(None, POINTER(ArrowArray))), ("private_data", c_void_p)]


class ArrowArrayStream(Structure):
    pass


ArrowArrayStream._fields_ = [
    ("get_schema", CFUNCTYPE(c_int, POINTER(ArrowArrayStream), POINTER(ArrowSchema))),
    ("get_next", CFUNCTYPE(c_int, POINTER(ArrowArrayStream), POINTER(ArrowArray))),
    ("get_last_error", CFUNCTYPE(c_char_p, POINTER(ArrowArrayStream))),
    ("release", CFUNCTYPE(None, POINTER(ArrowArrayStream))),
    ("private_data", c_void_p)]

_get_pointer = ctypes.pythonapi.PyCapsule_GetPointer
_get_pointer.restype = c_void_p
_get_pointer.argtypes = [ctypes.py_object, c_char_p]
_get_name = ctypes.pythonapi.PyCapsule_GetName
_get_name.restype = c_char_p
_get_name.argtypes = [ctypes.py_object]


def capsule_name(cap):
    return _get_name(cap)


def move_stream(cap):
    """Moves the stream out of an "arrow_array_stream" capsule (marking the capsule's copy released)."""
    p = ctypes.cast(_get_pointer(cap, b"arrow_array_stream"), POINTER(ArrowArrayStream))
    s = ArrowArrayStream()
    ctypes.memmove(ctypes.byref(s), p, ctypes.sizeof(ArrowArrayStream))
    p.contents.release = CFUNCTYPE(None, POINTER(ArrowArrayStream))()
    return s


def is_released(obj):
    return not bool(obj.release)


def schema_tree(schema):
    kids = [schema_tree(schema.children[i].contents) for i in range(schema.n_children)]
    return (schema.format.decode(), (schema.name or b"").decode(), kids)


def int32_values(array):
    """Values of an int32 array with validity (None for nulls)."""
    out = []
    valid = array.buffers[0]
    data = ctypes.cast(array.buffers[1], POINTER(ctypes.c_int32))
    vbits = ctypes.cast(valid, POINTER(ctypes.c_uint8)) if valid else None
    for i in range(array.length):
        j = array.offset + i
        if vbits is not None and array.null_count != 0 and not (vbits[j >> 3] >> (j & 7)) & 1:
            out.append(None)
        else:
            out.append(data[j])
    return out


def utf8_values(array):
    out = []
    off = ctypes.cast(array.buffers[1], POINTER(ctypes.c_int32))
    data = array.buffers[2]
    for i in range(array.length):
        j = array.offset + i
        out.append(ctypes.string_at(data + off[j], off[j + 1] - off[j]).decode() if off[j + 1] > off[j] else "")
    return out


_capsule_new = ctypes.pythonapi.PyCapsule_New
_capsule_new.restype = ctypes.py_object
_capsule_new.argtypes = [c_void_p, c_char_p, c_void_p]
_SCHEMA_NAME = b"arrow_schema"
_ARRAY_NAME = b"arrow_array"


class CtypesBatch:
    """An Arrow record batch struct<id: int32, name: utf8> built with ctypes (a producer that shares
    no code with paimon_c), exposed through __arrow_c_array__. Memory is owned by this object; the
    release callbacks only mark the structs released, and count how often they ran."""

    def __init__(self, ids, names):
        n = len(ids)
        self.released = []
        self._keep = []
        # schema
        self._cs = [ArrowSchema() for _ in range(3)]
        fmt = [b"+s", b"i", b"u"]
        nm = [b"", b"id", b"name"]
        rel = CFUNCTYPE(None, POINTER(ArrowSchema))(self._release_schema)
        self._keep += [rel]
        kids = (POINTER(ArrowSchema) * 2)(ctypes.pointer(self._cs[1]), ctypes.pointer(self._cs[2]))
        self._keep.append(kids)
        for i, s in enumerate(self._cs):
            s.format, s.name, s.flags = fmt[i], nm[i], 2 if i else 0
            s.release = rel
        self._cs[0].n_children = 2
        self._cs[0].children = kids
        # arrays
        valid_ids = bytes([sum(1 << b for b in range(8) if i * 8 + b < n and ids[i * 8 + b] is not None)
                           for i in range((n + 7) // 8 or 1)])
        ibuf = (ctypes.c_int32 * max(n, 1))(*[0 if v is None else v for v in ids])
        enc = [s.encode() for s in names]
        offs = [0]
        for e in enc:
            offs.append(offs[-1] + len(e))
        obuf = (ctypes.c_int32 * (n + 1))(*offs)
        dbuf = ctypes.create_string_buffer(b"".join(enc) or b"\0")
        vbuf = ctypes.create_string_buffer(valid_ids)
        self._keep += [ibuf, obuf, dbuf, vbuf]
        arel = CFUNCTYPE(None, POINTER(ArrowArray))(self._release_array)
        self._keep.append(arel)
        self._ca = [ArrowArray() for _ in range(3)]
        b0 = (c_void_p * 1)(None)
        b1 = (c_void_p * 2)(ctypes.cast(vbuf, c_void_p), ctypes.cast(ibuf, c_void_p))
        b2 = (c_void_p * 3)(None, ctypes.cast(obuf, c_void_p), ctypes.cast(dbuf, c_void_p))
        self._keep += [b0, b1, b2]
        akids = (POINTER(ArrowArray) * 2)(ctypes.pointer(self._ca[1]), ctypes.pointer(self._ca[2]))
        self._keep.append(akids)
        for a, bufs, nb in zip(self._ca, (b0, b1, b2), (1, 2, 3)):
            a.length, a.n_buffers, a.buffers, a.release = n, nb, bufs, arel
        self._ca[1].null_count = sum(v is None for v in ids)
        self._ca[0].n_children = 2
        self._ca[0].children = akids

    def _release_schema(self, p):
        self.released.append("schema")
        p.contents.release = CFUNCTYPE(None, POINTER(ArrowSchema))()

    def _release_array(self, p):
        self.released.append("array")
        p.contents.release = CFUNCTYPE(None, POINTER(ArrowArray))()

    def __arrow_c_array__(self, requested_schema=None):
        return (_capsule_new(ctypes.addressof(self._cs[0]), _SCHEMA_NAME, None),
                _capsule_new(ctypes.addressof(self._ca[0]), _ARRAY_NAME, None))


def _schema_capsule(self):
    return _capsule_new(ctypes.addressof(self._cs[0]), _SCHEMA_NAME, None)


CtypesBatch.__arrow_c_schema__ = _schema_capsule
