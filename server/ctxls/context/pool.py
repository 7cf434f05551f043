"""(a) Evidence-pool assembly: ids, caps, source priority. No selection."""

from __future__ import annotations

import attrs

from ctxls.context.limits import MAX_CONTENT, MAX_ITEMS, MAX_PROVENANCE
from ctxls.context.model import Evidence
from ctxls.context.relations import KINDS, SOURCES


def _cap_bytes(text: str, limit: int) -> str:
    raw = text.encode("utf-8")
    if len(raw) <= limit:
        return text
    note = f"\n... [capped at {limit} bytes of {len(raw)}]"
    return raw[: limit - len(note.encode())].decode("utf-8", errors="ignore") + note


def assemble(candidates: list[Evidence]) -> tuple[list[Evidence], list[Evidence]]:
    """(pool, queued out): every candidate normalised and numbered; over the cap, the
    lowest source priority waits outside (07 plan, 06 impact, 04 hits, 03 recon, live)."""
    for c in candidates:
        if c.kind not in KINDS:
            raise ValueError(f"evidence kind {c.kind!r} is not in the closed set")
    rank = {s: i for i, s in enumerate(SOURCES)}
    order = sorted(range(len(candidates)),
                   key=lambda i: (rank.get(candidates[i].source, len(rank)), i))
    keep = set(order[:MAX_ITEMS])
    pool: list[Evidence] = []
    out: list[Evidence] = []
    for i, c in enumerate(candidates):
        richest = c.best()
        content = c.renderings[richest].text if richest else c.content
        item = attrs.evolve(c, id=f"E{i + 1}", content=_cap_bytes(content, MAX_CONTENT),
                            provenance=c.provenance[:MAX_PROVENANCE])
        (pool if i in keep else out).append(item)
    return pool, out
