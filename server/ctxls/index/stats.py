"""Index metrics: what makes degradation visible instead of silent.

Pure: one record per file (its language, whether it parsed cleanly, whether a generator
wrote it, its chunks) in; files by language, parse success by language and by top
directory, chunk size distribution, splits, generated files and fallbacks out.
"""

from __future__ import annotations

import statistics
from collections import Counter

import attrs

from ctxls.index.chunks import Chunk


@attrs.frozen
class FileRecord:
    path: str
    language: str | None
    parsed: bool  # a grammar parsed it without error nodes
    generated: bool
    chunks: tuple[Chunk, ...]


def _pct(values: list[int], q: float) -> int:
    if not values:
        return 0
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def _dist(values: list[int]) -> dict[str, int]:
    return {"median": int(statistics.median(values)) if values else 0,
            "p90": _pct(values, 90), "max": max(values, default=0)}


def summarize(records: list[FileRecord], cap: int) -> dict[str, object]:
    by_lang: Counter[str] = Counter(r.language or "(no grammar)" for r in records)
    parsed_lang: dict[str, list[int]] = {}
    parsed_dir: dict[str, list[int]] = {}
    for r in records:
        if r.language is None:
            continue
        top = r.path.split("/", 1)[0] if "/" in r.path else "."
        for table, key in ((parsed_lang, r.language), (parsed_dir, top)):
            cell = table.setdefault(key, [0, 0])
            cell[0] += int(r.parsed)
            cell[1] += 1
    chunks = [c for r in records for c in r.chunks]
    symbols = [c for c in chunks if c.strategy == "symbol"]
    split = {c.chunk_id.split("#")[0] for c in symbols if c.parts > 1}
    return {
        "files": len(records),
        "filesByLanguage": dict(by_lang.most_common()),
        "parseSuccessByLanguage": {k: round(v[0] / v[1], 4) for k, v in sorted(
            parsed_lang.items())},
        "parseSuccessByDirectory": {k: round(v[0] / v[1], 4) for k, v in sorted(
            parsed_dir.items(), key=lambda kv: -kv[1][1])[:20]},
        "chunks": len(chunks),
        "fineChunks": sum(1 for c in chunks if c.granularity == "fine"),
        "coarseChunks": sum(1 for c in chunks if c.granularity == "coarse"),
        "chunkChars": _dist([len(c.text) for c in chunks]),
        "chunkTokens": _dist([c.tokens for c in chunks]),
        "cap": cap,
        "symbolsOverCap": len(split),
        "splitParts": sum(1 for c in symbols if c.parts > 1),
        "generatedFiles": sum(1 for r in records if r.generated),
        "windowFallbackFiles": sum(1 for r in records if any(
            c.strategy == "window" for c in r.chunks)),
        "storedChars": {"fine": sum(len(c.text) for c in chunks if c.granularity == "fine"),
                        "all": sum(len(c.text) for c in chunks)},
    }


def render(summary: dict[str, object]) -> str:
    """Plain text for people (``ctxls stats``)."""
    out = []
    for key, value in summary.items():
        if isinstance(value, dict):
            out.append(f"{key}:")
            out += [f"  {k}: {v}" for k, v in value.items()]
        else:
            out.append(f"{key}: {value}")
    return "\n".join(out) + "\n"
