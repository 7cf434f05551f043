"""A value made once and kept, though several threads ask for it together."""

from __future__ import annotations

from collections.abc import Callable, Hashable
from contextlib import AbstractContextManager
from typing import Any, TypeVar

K = TypeVar("K", bound=Hashable)
V = TypeVar("V")
_MISSING = object()


def once(cache: dict[K, V], key: K, lock: AbstractContextManager[Any],
         make: Callable[[], V]) -> V:
    """``cache[key]``, made by ``make()`` the first time it is asked for: callers asking
    together wait for the first one's (a tokenizer or a grammar's queries hold the GIL
    while they are built, and were built twice); most calls find it without the lock.
    A None that ``make()`` returns is kept too."""
    found = cache.get(key, _MISSING)
    if found is _MISSING:
        with lock:
            found = cache.get(key, _MISSING)
            if found is _MISSING:
                found = cache[key] = make()
    return found  # type: ignore[return-value]
