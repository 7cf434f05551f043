"""Symbol chunks with their lineage: what an embedding or lexical index stores.

One chunk per function and method (``fine``) and one per class-like declaration
(``coarse``). A chunk's text is the smallest set of enclosing declarations needed to read
it — the file header (imports, package clause) and, for a member, each enclosing
declaration's signature and docstring — marked as context, then the symbol itself. A body
over the size cap is split at statement boundaries (lines at the body's own indentation)
into parts that each carry the same header. Generated files are chunked by names only;
files that do not parse, have no grammar, or declare no function or class (scripts,
settings modules), by fixed line windows; any chunk still over the cap (one enormous
line) is cut by characters. Pure: a file's bytes,
lines and outline in, chunks out.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import attrs

from ctxls.syntax import languages
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Decl, Outline

FINE = frozenset({"function", "method"})
COARSE = frozenset({"class", "interface", "struct", "enum", "trait", "impl", "module",
                    "object", "type"})
BODY_MARK = "---- chunk body ----"
# A lineage longer than this keeps its innermost parts: in bundled code (a webpack or
# yarn bundle) every function's parents span the file, and each of 2,000 chunks carried
# a copy of it (900 KB of source became 295 MB of chunk text).
HEADER_CHARS = 6000
SNIFF = 2048  # bytes searched for a generated-file marker
MINIFIED_BYTES = 65536  # a file this large ...
MINIFIED_LINE = 1000  # ... whose lines average more bytes than this is minified


@attrs.frozen
class Chunk:
    chunk_id: str  # path::Qualified.name (#part), or path#window
    path: str
    symbol: str | None
    kind: str
    parents: tuple[str, ...]
    start_byte: int
    end_byte: int
    language: str | None
    header_bytes: int  # bytes of `text` that are context, not the unit
    granularity: str  # fine | coarse | window | names
    part: int  # 1-based
    parts: int
    tokens: int
    content_hash: str
    strategy: str  # symbol | window | names
    text: str


def generated(path: str, data: bytes, lang: Language | None) -> bool:
    """A file a generator wrote: by name (``*_pb2.py``), by a marker near its top, or
    minified (a bundler's output: at least ``MINIFIED_BYTES`` whose lines average over
    ``MINIFIED_LINE`` bytes; babel's 0.9 MB yarn plugin on 77 lines, chunked symbol by
    symbol, each nested function holding the text of those inside it, was 290 MB of
    chunks to index for search)."""
    if lang is None:
        return False
    name = path.rsplit("/", 1)[-1]
    by_name = languages.globs_pattern(lang.generated_files)
    if by_name is not None and by_name.match(name):
        return True
    head = data[:SNIFF].decode("utf-8", errors="replace")
    if any(marker in head for marker in lang.generated_markers):
        return True
    return len(data) >= MINIFIED_BYTES and len(data) > MINIFIED_LINE * (data.count(b"\n") + 1)


def _offsets(data: bytes) -> list[int]:
    """Byte offset of the start of every row, plus the end of the file."""
    out = [0]
    at = data.find(b"\n")
    while at != -1:
        out.append(at + 1)
        at = data.find(b"\n", at + 1)
    if out[-1] != len(data):
        out.append(len(data))
    return out


def _hash(text: str) -> str:
    return hashlib.blake2b(text.encode(), digest_size=12).hexdigest()


def chunk_file(path: str, data: bytes, lines: list[str], outline: Outline | None,
               lang: Language | None, count: Callable[[str], int] | None, cap: int = 8192,
               window: int = 80) -> list[Chunk]:
    """Without ``count`` (a search index needs no token counts), nothing is split and
    ``tokens`` is 0."""
    offsets = _offsets(data)

    def byte(row: int) -> int:
        return offsets[min(row, len(offsets) - 1)]

    language = lang.name if lang else None
    if outline is None or outline.errors or (not outline.decls and lang is None):
        return _capped(_windows(path, lines, byte, language, count, window), count, cap)
    if generated(path, data, lang):
        return [_chunk(path, d.qualname, d.kind, d.parents, byte(d.span.start_row),
                       byte(d.span.last_row + 1), language, "", f"{d.kind} {d.qualname}\n",
                       "names", "names", 1, 1, count)
                for d in outline.decls]
    head = [r for h in outline.header if h.kind in ("import", "package")
            for r in range(h.span.start_row, h.span.last_row + 1)]
    out: list[Chunk] = []
    for d in outline.decls:
        granularity = "fine" if d.kind in FINE else "coarse" if d.kind in COARSE else None
        if granularity is None:
            continue
        groups = [head]
        for parent in (p for q in d.parents for p in outline.decls if p.qualname == q
                       and p.span.start_row < d.span.start_row):
            rows = list(range(parent.span.start_row, parent.signature.end_row + 1))
            if parent.body is not None and parent.body.doc is not None:
                rows += range(parent.body.doc[0], parent.body.doc[1] + 1)
            groups.append(rows)
        header = f"# {path}\n" + _lineage(groups, lines) + f"{BODY_MARK}\n"
        body_rows = list(range(d.span.start_row, d.span.last_row + 1))
        pieces = _split(d, body_rows, lines, header, count, cap)
        for i, piece in enumerate(pieces, 1):
            text = header + "".join(f"{lines[r]}\n" for r in piece)
            out.append(_chunk(path, d.qualname, d.kind, d.parents, byte(piece[0]),
                              byte(piece[-1] + 1), language, header, text, granularity,
                              "symbol", i, len(pieces), count))
    if not out and lines:  # only statements and values (a script, a settings module)
        out = _windows(path, lines, byte, language, count, window)
    return _capped(out, count, cap)


def _lineage(groups: list[list[int]], lines: list[str]) -> str:
    """The header's rows (imports, then each parent's signature and docstring, outermost
    first) in file order, the innermost kept first when they exceed HEADER_CHARS; what is
    left out is one line that says so."""
    kept: set[int] = set()
    used = 0
    for r in (r for rows in reversed(groups) for r in rows):
        if r in kept:
            continue
        used += len(lines[r]) + 1
        if used > HEADER_CHARS:
            break
        kept.add(r)
    wanted = {r for rows in groups for r in rows}
    text = "".join(f"{lines[r]}\n" for r in sorted(kept))
    if len(kept) < len(wanted):
        text = f"# ... {len(wanted) - len(kept)} lines of context left out\n" + text
    return text


def _capped(chunks: list[Chunk], count: Callable[[str], int] | None,
            cap: int) -> list[Chunk]:
    """Any chunk still over the cap (one enormous line: minified code, a data blob) is cut
    by characters into parts that keep its header; the cap holds for every chunk."""
    if count is None:
        return chunks
    out: list[Chunk] = []
    for c in chunks:
        if c.tokens <= cap:
            out.append(c)
            continue
        head = c.text.encode()[: c.header_bytes].decode("utf-8", errors="ignore")
        body = c.text[len(head):]
        if count(head) > cap // 2:  # a lineage that is itself one enormous line
            head = f"# {c.path}\n{BODY_MARK}\n"
        room = max(16, cap - count(head))
        pieces: list[str] = []
        while body:
            size = min(len(body), room * 3)  # a token is rarely under 1/3 of a character
            while size > 1 and count(body[:size]) > room:
                size = size * 3 // 4
            pieces.append(body[:size])
            body = body[size:]
        at = c.start_byte
        base = c.chunk_id.split("#")[0]
        for i, piece in enumerate(pieces, 1):
            n = len(piece.encode())
            text = head + piece
            out.append(attrs.evolve(c, chunk_id=f"{base}#{c.part}.{i}", start_byte=at,
                                    end_byte=min(at + n, c.end_byte), part=i,
                                    parts=len(pieces), tokens=count(text),
                                    header_bytes=len(head.encode()),
                                    content_hash=_hash(text), text=text))
            at += n
    return out


def _split(d: Decl, rows: list[int], lines: list[str], header: str,
           count: Callable[[str], int] | None, cap: int) -> list[list[int]]:
    """The rows of ``d`` in parts under ``cap`` tokens each (with the header), cut only
    before a line at the body's own indentation: a statement boundary."""
    if count is None or d.body is None or count(
            header + "".join(f"{lines[r]}\n" for r in rows)) <= cap:
        return [rows]
    indent = d.body.indent
    room = cap - count(header)
    parts: list[list[int]] = [[]]
    used = 0
    for r in rows:
        line = lines[r]
        cost = count(line + "\n")
        boundary = line.startswith(indent) and line[len(indent):len(indent) + 1] not in (
            " ", "\t", ")", "]", "}", "") and r > d.body.first
        if parts[-1] and boundary and used + cost > room:
            parts.append([])
            used = 0
        parts[-1].append(r)
        used += cost
    return parts


def _windows(path: str, lines: list[str], byte: Callable[[int], int], language: str | None,
             count: Callable[[str], int] | None, window: int) -> list[Chunk]:
    starts = list(range(0, max(1, len(lines)), window))
    return [_chunk(path, None, "window", (), byte(a), byte(min(a + window, len(lines))),
                   language, "", "".join(f"{line}\n" for line in lines[a : a + window]),
                   "window", "window", i, len(starts), count, f"{path}#L{a + 1}")
            for i, a in enumerate(starts, 1)]


def _chunk(path: str, symbol: str | None, kind: str, parents: tuple[str, ...], start: int,
           end: int, language: str | None, header: str, text: str, granularity: str,
           strategy: str, part: int, parts: int, count: Callable[[str], int] | None,
           chunk_id: str | None = None) -> Chunk:
    cid = chunk_id or f"{path}::{symbol}" + (f"#{part}" if parts > 1 else "")
    return Chunk(cid, path, symbol, kind, parents, start, end, language,
                 len(header.encode()), granularity, part, parts,
                 count(text) if count is not None else 0, _hash(text),
                 strategy, text)
