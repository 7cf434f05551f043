"""Symbol chunks for retrieval: ``ctx/chunks`` and the index metrics of ``ctx/stats``.

A chunk is one declaration with its lineage attached (the file's header, each enclosing
declaration's signature and docstring), cut from a file's outline by ``index/chunks.py``.
A pass over every file (these two requests, the search index's build) returns each file's
tables to their compact payload afterwards: Django's, all decoded at once, held ~120 MiB.
"""

from __future__ import annotations

from collections.abc import Callable

from ctxls import protocol as p
from ctxls.errors import CtxError, InvalidParams
from ctxls.index.chunks import Chunk, chunk_file, generated
from ctxls.index.stats import FileRecord, summarize
from ctxls.snapshot import Snapshot, View
from ctxls.tokens import tokenizer


def chunks(snap: Snapshot, params: p.ChunksParams) -> p.ChunksResult:
    """Symbol chunks with their lineage, of one file or of every indexed one."""
    if params.max_tokens < 64:
        raise InvalidParams("`maxTokens` must be at least 64")
    count = tokenizer(snap.options.encoding).count
    if params.path or params.text_document:
        keys = [str(snap.view(snap.located(params)).loc.abspath)]  # a named file must exist
    else:
        keys = sorted(k for k, e in snap.entries() if e.language is not None
                      and e.status == "ok")
    out: list[p.ChunkItem] = []
    for key in keys:
        found = file_chunks(snap, key, count, params.max_tokens)
        for c in found[1] if found is not None else ():
            out.append(p.ChunkItem(
                c.chunk_id, c.path, c.symbol, c.kind, list(c.parents), c.start_byte,
                c.end_byte, c.language, c.header_bytes, c.granularity, c.part, c.parts,
                c.tokens, c.content_hash, c.strategy,
                c.text if params.include_text else None))
    one_file = bool(params.path or params.text_document)
    return p.ChunksResult(out, len(keys), sum(1 for c in out if c.parts > 1),
                          complete=one_file or snap.indexed,
                          notes=[] if one_file else snap.scan_notes())


def stats(snap: Snapshot, params: p.StatsParams) -> dict[str, object]:
    """Index metrics over every listed file (chunks every parsed file: seconds on a large
    workspace)."""
    count = tokenizer(snap.options.encoding).count
    records = []
    for key, e in sorted(snap.entries()):
        listed: tuple[Chunk, ...] = ()
        is_generated = False
        if e.language is not None and e.status == "ok":
            found = file_chunks(snap, key, count, params.max_tokens)
            if found is not None:
                v, chunked = found
                is_generated = generated(v.loc.path, v.data, v.lang)
                listed = tuple(chunked)
        records.append(FileRecord(e.path, e.language, e.tables is not None
                                  and e.tables.errors == 0, is_generated, listed))
    return {**summarize(records, params.max_tokens), "complete": snap.indexed,
            "notes": snap.scan_notes()}


def file_chunks(snap: Snapshot, key: str, count: Callable[[str], int] | None,
                cap: int = 8192) -> tuple[View, list[Chunk]] | None:
    """One file's chunks; tables decoded only for this go back to their payload after."""
    e = snap.entry(key)
    tables = e.tables if e is not None else None
    was = tables is None or tables.decoded
    try:
        v = snap.view_at(key)
        return v, chunk_file(v.loc.path, v.data, v.lines, v.outline, v.lang, count, cap)
    except CtxError:
        return None
    finally:
        if tables is not None and not was:
            tables.release()
