"""Memory given back to the system: the allocator's side of a long session.

What a request builds and drops (a window's decoded tables, the parse trees of the files it
read, their texts) is freed, but glibc keeps freed chunks in its heaps (one per thread that
ever contended for one) unless they are at a heap's top, so the RSS keeps the high-water
mark of every heap. ``malloc_trim`` returns every heap's free pages (jsoup, 10,000
requests: 193 MiB without, 168-173 with; fewer heaps as well, ``mallopt(M_ARENA_MAX, 2)``,
changed nothing more). Elsewhere than glibc it does nothing.
"""

from __future__ import annotations

import contextlib
import ctypes
import sys
from typing import Any


def _glibc() -> Any:
    if not sys.platform.startswith("linux"):
        return None
    with contextlib.suppress(OSError, AttributeError):
        libc = ctypes.CDLL(None)  # the process's own symbols: its C library's among them
        if hasattr(libc, "malloc_trim"):  # (musl has none)
            return libc
    return None


_LIBC = _glibc()


def trim() -> bool:
    """Hand the free pages of every heap back to the system (a few milliseconds, without
    the GIL: ctypes releases it); whether any were."""
    return _LIBC is not None and _LIBC.malloc_trim(0) == 1
