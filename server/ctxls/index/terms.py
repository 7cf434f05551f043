"""The search index's terms outside SQLite: what a shared store holds per chunk, and the
BM25 that ranks them, written to match SQLite FTS5's ``bm25()`` as ``index/search.py``
uses it.

FTS5 scores a row as the sum, over the query's terms, of
``idf * f * (k1 + 1) / (f + k1 * (1 - b + b * D / avgdl))``, where ``f`` is the term's
count in each column times that column's weight (symbol 6, split identifiers 2, text 1),
``D`` the row's tokens over every column, ``avgdl`` the mean of ``D``,
``idf = ln((N - n + 0.5) / (n + 0.5))`` (at least 1e-6), ``N`` the rows and ``n`` the
rows holding the term; k1 = 1.2, b = 0.75. A shared store keeps, per chunk, its terms with
``f`` and its ``D``; the database counts ``N``, ``n`` and the tokens over the commit's
chunks, and the same formula ranks the chunks of the sidecar's own (uncommitted) files,
so one ordering covers both. Terms are single tokens: where FTS5 matches an identifier
query (``compute_line_total``) as a phrase, this matches its words.
"""

from __future__ import annotations

import functools
import hashlib
import itertools
import math
import re
import sys
import unicodedata
from collections import Counter
from collections.abc import Iterable
from pathlib import Path

import attrs

from ctxls.index import chunks as chunks_module
from ctxls.index import search as search_module
from ctxls.index.chunks import BODY_MARK, Chunk
from ctxls.index.search import IDENT, WEIGHTS, words
from ctxls.index.store import extraction_fingerprint

K1 = 1.2
B = 0.75
# FTS5's unicode61 tokenizer: runs of letters and digits, case-folded, diacritics removed.
TOKEN = re.compile(r"[^\W_]+")


@functools.cache
def fingerprint() -> str:
    """The shared index's version: the tables' (``extraction_fingerprint``) and the code
    that cuts chunks and counts their terms, since the store holds those too."""
    h = hashlib.blake2b(extraction_fingerprint().encode(), digest_size=12)
    for module in (chunks_module, search_module, sys.modules[__name__]):
        h.update(Path(module.__file__ or "").read_bytes())
    return h.hexdigest()


def tokens(text: str) -> list[str]:
    out = TOKEN.findall(text.lower())
    if not text.isascii():
        out = [_plain(t) for t in out]
    return out


def _plain(token: str) -> str:
    if token.isascii():
        return token
    return "".join(c for c in unicodedata.normalize("NFD", token)
                   if unicodedata.category(c) != "Mn")


def columns(chunk: Chunk) -> tuple[str, str, str]:
    """The three texts FTS5 holds for a chunk (``SearchIndex.put``)."""
    body = chunk.text.partition(f"{BODY_MARK}\n")[2] or chunk.text
    name = chunk.symbol or ""
    return f"{name} {words(name)}", words(body), body


@attrs.frozen
class Terms:
    """One chunk as BM25 sees it: weighted frequency per term, and its length."""

    freqs: dict[str, int]
    length: int  # tokens over every column


def chunk_terms(chunk: Chunk) -> Terms:
    symbol, split, body = columns(chunk)
    # ``words`` output is already unicode61's tokens (ASCII words, lower-cased)
    found = (tokens(symbol), split.split(), tokens(body))
    # Each column's tokens repeated by its (whole) weight, counted in C.
    weighted = Counter(itertools.chain.from_iterable(
        f * int(w) for w, f in zip(WEIGHTS, found, strict=True)))
    return Terms(dict(weighted), sum(map(len, found)))


def query_terms(query: str) -> list[str]:
    """The tokens a query searches for (what ``SearchIndex.search`` asks FTS5 for, with
    each identifier as its words)."""
    asked = {w for w in words(query).split() if len(w) > 1} | {
        w.lower() for w in IDENT.findall(query)}
    return sorted({t for a in asked for t in tokens(a)})


def idf(rows: int, hits: int) -> float:
    value = math.log((rows - hits + 0.5) / (hits + 0.5))
    return value if value > 0 else 1e-6


def score(terms: Terms, weights: dict[str, float], avgdl: float) -> float:
    """BM25 of one chunk, given each query term's idf (``weights``)."""
    norm = K1 * (1 - B + B * terms.length / avgdl) if avgdl > 0 else K1
    total = 0.0
    for t, w in weights.items():
        f = terms.freqs.get(t)
        if f:
            total += w * f * (K1 + 1) / (f + norm)
    return total


def corpus_stats(all_terms: Iterable[Terms], query: list[str]) -> tuple[int, int, list[int]]:
    """(rows, tokens, rows holding each query term) of a set of chunks."""
    rows = length = 0
    hits = [0] * len(query)
    for t in all_terms:
        rows += 1
        length += t.length
        for i, q in enumerate(query):
            if q in t.freqs:
                hits[i] += 1
    return rows, length, hits
