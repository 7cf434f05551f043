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
import gc
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


# The collector's young generation while requests are answered. A window or a search decodes
# the tables of hundreds of files, millions of small tuples: at Python's default (700) each
# 700 allocations began a collection, and every hundredth a full one over whatever was decoded
# since the index was frozen (bevy's `new`, judged in every file calling it: 819 collections,
# 362 of the request's 887 ms; 93 ms at 10,000). Little here makes cycles: refcounts free
# nearly everything, so a larger generation delays little garbage.
YOUNG = 10_000


def serving() -> None:
    """The collector once the index is built: the index kept out of its passes (frozen: it
    lives as long as the server), collections less often, and on again (off for the
    scan's bulk load, whose tables all survive it)."""
    gc.freeze()
    gc.set_threshold(YOUNG, *gc.get_threshold()[1:])
    gc.enable()


def trim() -> bool:
    """Hand the free pages of every heap back to the system (a few milliseconds, without
    the GIL: ctypes releases it); whether any were."""
    return _LIBC is not None and _LIBC.malloc_trim(0) == 1
