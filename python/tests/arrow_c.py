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
