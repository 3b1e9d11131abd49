"""Build of paimon-c's Python binding (import name paimon_c).

One CPython extension against the stable ABI (abi3, CPython >= 3.9), linked
statically with libpaimon (libpaimon.a, position-independent objects) and
dynamically with its compression / JSON / bitmap libraries.

libpaimon is found in $PAIMON_C_BUILD_DIR (a CMake build directory of this
repository holding libpaimon.a), else ../build; if neither has it, CMake
builds it into python/build/libpaimon. Offline install on Debian 12 (PEP 668):

    python3 -m venv --system-site-packages /tmp/venv
    /tmp/venv/bin/pip install --no-build-isolation ./python
"""
import os
import subprocess
import sys

from setuptools import Extension, setup

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)


def find_libpaimon():
    cands = []
    if os.environ.get("PAIMON_C_BUILD_DIR"):
        cands.append(os.environ["PAIMON_C_BUILD_DIR"])
    cands.append(os.path.join(ROOT, "build"))
    for d in cands:
        lib = os.path.join(d, "libpaimon.a")
        if os.path.exists(lib):
            return lib
    out = os.path.join(HERE, "build", "libpaimon")
    subprocess.check_call(["cmake", "-S", ROOT, "-B", out, "-DCMAKE_BUILD_TYPE=Release"])
    subprocess.check_call(["cmake", "--build", out, "--target", "paimon", "-j2"])
    return os.path.join(out, "libpaimon.a")


def version():
    with open(os.path.join(HERE, "paimon_c", "_version.py")) as f:
        ns = {}
        exec(f.read(), ns)
        return ns["__version__"]


building = any(a.startswith(("build", "bdist", "install", "develop", "editable", "dist_info")) for a in sys.argv[1:])
extra_objects = [find_libpaimon()] if building else []
sanitize = os.environ.get("PAIMON_C_SANITIZE") == "1"
cflags = ["-std=c11", "-fvisibility=hidden", "-Wall", "-Wextra", "-Werror", "-Wno-unused-parameter", "-Wno-missing-field-initializers",
          "-Wno-cast-function-type"]
ldflags = ["-Wl,--exclude-libs,ALL"]
if sanitize:
    cflags += ["-fsanitize=address,undefined", "-fno-omit-frame-pointer"]
    ldflags += ["-fsanitize=address,undefined"]

ext = Extension(
    "paimon_c._native",
    sources=["paimon_c/_native.c", "paimon_c/_read.c", "paimon_c/_write.c", "paimon_c/_convert.c"],
    include_dirs=[os.path.join(ROOT, "include")],
    define_macros=[("Py_LIMITED_API", "0x03090000"), ("_DEFAULT_SOURCE", None), ("_POSIX_C_SOURCE", "200809L")],
    py_limited_api=True,
    extra_objects=extra_objects,
    libraries=["zstd", "snappy", "lz4", "z", "jansson", "roaring", "m", "pthread"],
    extra_compile_args=cflags,
    extra_link_args=ldflags,
    depends=["paimon_c/_native.h"] + extra_objects,  # relink when libpaimon.a changes
)

# The SQLite module (src/sql, over the public API) as a loadable extension inside the package:
# paimon_c.SQLContext loads it into Python's sqlite3. Its file name paimon_sqlite.abi3.so makes
# SQLite derive the entry point sqlite3_paimonsqlite_init; it uses SQLite's API through
# sqlite3ext.h (no libsqlite3 link). -z nodelete: sqlite3_close unloads extensions, and a pool
# worker started for 'threads=N' must not outlive the code it runs.
sql_sources = sorted(os.path.join(ROOT, "src", "sql", f) for f in os.listdir(os.path.join(ROOT, "src", "sql")) if f.endswith(".c"))
sqlite_ext = Extension(
    "paimon_c.paimon_sqlite",
    sources=sql_sources,
    include_dirs=[os.path.join(ROOT, "include"), os.path.join(ROOT, "src")],
    define_macros=[("_DEFAULT_SOURCE", None), ("_POSIX_C_SOURCE", "200809L")],
    py_limited_api=True,
    extra_objects=extra_objects,
    libraries=["zstd", "snappy", "lz4", "z", "jansson", "roaring", "m", "pthread"],
    extra_compile_args=cflags,
    extra_link_args=ldflags + ["-Wl,-z,nodelete"],
    depends=extra_objects,
)

setup(
    name="paimon-c",
    version=version(),
    description="Apache Paimon tables from Python over libpaimon (no pyarrow needed)",
    long_description=open(os.path.join(HERE, "README.md")).read(),
    long_description_content_type="text/markdown",
    packages=["paimon_c"],
    ext_modules=[ext, sqlite_ext],
    python_requires=">=3.9",
    options={"bdist_wheel": {"py_limited_api": "cp39"}},
)
