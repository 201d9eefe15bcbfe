"""Finds and loads libcairn.so with ctypes, and declares the C API's signatures (cairn.h).

Where the library is looked for, first found wins:
1. $CAIRN_LIBRARY, the path of the library file;
2. libcairn.so beside this package (an installed copy: cairn/libcairn.so);
3. build/server/embedded/libcairn.so of the repository this package sits in (a developer's
   build with tools/build.sh);
4. the dynamic loader's search path (ctypes.util.find_library("cairn")).
"""

import ctypes
import ctypes.util
import os
import pathlib
import threading

CAIRN_OK = 0
CAIRN_MISUSE = 1
CAIRN_ERROR = 2
CAIRN_NO_MEMORY = 3

_lock = threading.Lock()
_lib = None


def _candidates():
    env = os.environ.get("CAIRN_LIBRARY")
    if env:
        yield env
        return
    here = pathlib.Path(__file__).resolve().parent
    yield str(here / "libcairn.so")
    # server/embedded/python/cairn -> the repository's root is four levels up.
    repo = here.parents[3]
    yield str(repo / "build" / "server" / "embedded" / "libcairn.so")
    found = ctypes.util.find_library("cairn")
    if found:
        yield found


def _declare(lib):
    vp = ctypes.c_void_p
    lib.cairn_version.argtypes = []
    lib.cairn_version.restype = ctypes.c_char_p
    lib.cairn_open.argtypes = [ctypes.c_char_p, ctypes.c_char_p, ctypes.POINTER(vp),
                               ctypes.POINTER(vp)]
    lib.cairn_open.restype = ctypes.c_int
    lib.cairn_command.argtypes = [vp, ctypes.c_char_p, ctypes.c_char_p, ctypes.c_size_t,
                                  ctypes.POINTER(vp), ctypes.POINTER(ctypes.c_size_t)]
    lib.cairn_command.restype = ctypes.c_int
    lib.cairn_serve.argtypes = [vp, ctypes.c_char_p, ctypes.c_int, ctypes.POINTER(vp),
                                ctypes.POINTER(vp)]
    lib.cairn_serve.restype = ctypes.c_int
    lib.cairn_close.argtypes = [vp]
    lib.cairn_close.restype = None
    lib.cairn_free.argtypes = [vp]
    lib.cairn_free.restype = None
    return lib


def library():
    """The loaded libcairn (ctypes.CDLL: calls release the GIL, so threads run in parallel)."""
    global _lib
    with _lock:
        if _lib is None:
            tried = []
            for path in _candidates():
                if os.sep in path and not os.path.exists(path):
                    tried.append(path)
                    continue
                try:
                    _lib = _declare(ctypes.CDLL(path))
                    break
                except OSError as error:
                    tried.append(f"{path} ({error})")
            if _lib is None:
                raise OSError("libcairn not found; set CAIRN_LIBRARY to its path. Tried: "
                              + ", ".join(tried))
        return _lib


def take_string(pointer):
    """The C string at `pointer` (a c_void_p the library allocated), freed; None for NULL."""
    if not pointer.value:
        return None
    try:
        return ctypes.string_at(pointer.value).decode("utf-8", "replace")
    finally:
        library().cairn_free(pointer)
