"""What the reference index remembers between requests, bounded."""

from __future__ import annotations

import itertools
from collections.abc import Callable
from typing import Any, TypeVar

T = TypeVar("T")
MEMO_LIMIT = 1 << 14  # answers remembered per table
PER_FILE_LIMIT = 1 << 12  # files whose derived tables (rows, bindings, scopes) are kept
_NONE = object()


class Memo:
    """Answers that read other files, for one version of the index, held by the index and
    every view of it (a view is made per request: remembered on the view, nothing outlived
    its request). One tuple, swapped whole, so no thread reads one version's answers for
    another's; a view older than the newest version remembers nothing. Each table holds at
    most MEMO_LIMIT answers, so a long session's memory stays flat."""

    __slots__ = ("current",)

    def __init__(self) -> None:
        self.current: tuple[int, dict[str, dict[Any, Any]]] = (-1, {})

    def answer(self, version: int, table: str, key: Any, compute: Callable[[], T]) -> T:
        held, tables = self.current
        if held != version:
            tables = {}
            if version > held:
                self.current = (version, tables)
        memo = tables.setdefault(table, {})
        found = memo.get(key, _NONE)
        if found is _NONE:
            if len(memo) >= MEMO_LIMIT:
                memo.clear()
            found = memo[key] = compute()
        return found  # type: ignore[no-any-return]


class Recent(dict[str, Any]):
    """A dict that forgets its oldest quarter when it would grow past ``cap``: tables
    derived per file on demand, kept for the files read lately. Unbounded, a session over
    50,000 files kept one for every file it ever read (1.6 GiB after 120 requests)."""

    def __init__(self, cap: int = PER_FILE_LIMIT) -> None:
        super().__init__()
        self.cap = cap

    def __setitem__(self, key: str, value: Any) -> None:
        if len(self) >= self.cap and key not in self:
            for old in list(itertools.islice(self, max(1, self.cap // 4))):
                self.pop(old, None)
        super().__setitem__(key, value)
