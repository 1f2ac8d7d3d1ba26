"""Two names swapped in one step: Linux's `renameat2(RENAME_EXCHANGE)`, through ctypes.

A plain rename over a file cannot be made conditional: whatever the file became between the
last look at it and the rename is replaced. An exchange replaces nothing: the file that was
there moves to the other name, whole, where it can be compared with what was read and put
back (`project.writer`). Where the call is missing (not Linux, a C library without it) or the
file system refuses it (EINVAL), `exchange` says so and the caller renames as before.
"""

from __future__ import annotations

import errno
import os
import sys
from collections.abc import Callable
from typing import Literal

#: linux/fcntl.h: the current directory as `dirfd`, and renameat2's swap flag.
_AT_FDCWD = -100
_RENAME_EXCHANGE = 2
#: What renameat2 answers where the swap cannot be done here (kernel, file system, seccomp).
_UNSUPPORTED = {errno.EINVAL, errno.ENOSYS, errno.EOPNOTSUPP, errno.ENOTSUP, errno.EPERM}

_call: Callable[..., int] | Literal[False] | None = None  # the C function once looked up; False: not available


def _renameat2():
    global _call
    if _call is None:
        _call = False
        if sys.platform.startswith("linux"):
            try:
                import ctypes

                function = ctypes.CDLL(None, use_errno=True).renameat2
                function.argtypes = (ctypes.c_int, ctypes.c_char_p, ctypes.c_int, ctypes.c_char_p, ctypes.c_uint)
                function.restype = ctypes.c_int
                _call = function
            except (OSError, AttributeError, ImportError):  # no such symbol (glibc < 2.28, musl)
                pass
    return _call


def exchange(first: str, second: str) -> bool | None:
    """Swap `first` and `second` atomically: True when done, None when this system cannot
    (the caller falls back to a rename). Raises OSError otherwise: FileNotFoundError when
    either name is gone (a file deleted since it was read)."""
    function = _renameat2()
    if not function:
        return None
    import ctypes

    if function(_AT_FDCWD, os.fsencode(first), _AT_FDCWD, os.fsencode(second), _RENAME_EXCHANGE) == 0:
        return True
    code = ctypes.get_errno()
    if code in _UNSUPPORTED:
        return None
    raise OSError(code, os.strerror(code), second)
