"""The window's stable core (task, obligations, acceptance criteria), the live state (patch,
errors, test output) and the agent's own retrieved hits, as pool candidates."""

from __future__ import annotations

import hashlib
import re

from ctxls import protocol as p
from ctxls.context.items import Collected, cut, name_line, sig_rows
from ctxls.context.limits import SEARCH_HITS, TASK_NAMES
from ctxls.context.model import Evidence, Text
from ctxls.context.relations import LIVE_KINDS
from ctxls.errors import CtxError, InvalidParams, UnknownSymbol
from ctxls.index.search import IDENT
from ctxls.requests.search import hits as search_hits
from ctxls.snapshot import Snapshot
from ctxls.syntax.symbols import resolve


def core(items: list[Evidence], params: p.ConstructParams) -> None:
    if params.task.strip():
        items.append(Evidence(relation="task", content=params.task, provenance="07: the task",
                              renderings={"verbatim": Text(params.task.strip() + "\n")},
                              key="task"))
    for i, ob in enumerate(params.obligations):
        lines = [ob.text.strip()]
        if ob.targets:
            lines.append("targets: " + ", ".join(ob.targets))
        if ob.tests:
            lines.append("tests: " + ", ".join(ob.tests))
        body = "\n".join(x for x in lines if x) + "\n"
        items.append(Evidence(relation="plan", content=body,
                              provenance=f"07: obligation {ob.id or i + 1}"
                              + (" (current)" if i == 0 else ""),
                              renderings={"verbatim": Text(body)},
                              key="plan:current" if i == 0 else f"plan:{ob.id or i + 1}",
                              obligations=(ob.id or str(i + 1),)))
    for crit in params.acceptance_criteria:
        if crit.strip():
            items.append(Evidence(relation="acceptance", content=crit,
                                  provenance="07: acceptance criterion",
                                  renderings={"verbatim": Text(crit.strip() + "\n")},
                                  key=f"acceptance:{crit.strip()}"))


def live_and_retrieved(snap: Snapshot, out: Collected, params: p.ConstructParams) -> None:
    items = out.items
    for i, item in enumerate(params.live):
        if item.kind not in LIVE_KINDS:
            raise InvalidParams(f"live[{i}].kind must be one of {', '.join(LIVE_KINDS)}, "
                                f"not `{item.kind}`")
        text = item.text.rstrip("\n") + "\n"
        label = f"{item.kind}{f' ({item.name})' if item.name else ''}"
        pointer = (f"[{label}: {text.count(chr(10))} lines masked to save room; it is in the "
                   "agent's own tool log]\n")
        ident = re.sub(r"0x[0-9a-f]+|\d+(\.\d+)?s\b", "", text)  # addresses and timings
        items.append(Evidence(
            relation="live", kind=item.kind,  # checked above: a live kind
            source="patch" if item.kind == "patch" else "live", content=text,
            provenance=f"live: {label}, #{i + 1}",
            renderings={"verbatim": Text(text), "pointer": Text(pointer)},
            key=f"live:{hashlib.blake2b(ident.encode(), digest_size=8).hexdigest()}",
            superseded=item.superseded, order=i))
    retrieved = list(params.retrieved)
    if params.query and params.query.strip():  # the built-in lexical retriever fills the role
        found = [(h, round(h.score, 4)) for h in search_hits(snap, params.query, SEARCH_HITS)]
        top = max((score for _, score in found), default=1.0) or 1.0
        retrieved += [p.RetrievedHit(h.path, h.symbol, score=round(score / top, 3),
                                     query=params.query) for h, score in found if h.symbol]
    if not params.query and not params.retrieved and snap.search_ready:
        retrieved += task_names(snap, params.task)
    for i, hit in enumerate(retrieved):
        try:
            items.append(_retrieved(snap, hit))
        except CtxError as exc:
            out.notes.append(f"retrieved[{i}] {hit.path}: {exc.message}")


def task_names(snap: Snapshot, task: str) -> list[p.RetrievedHit]:
    """Declarations the task names exactly (``TooManyRedirects``, ``parse_header``): the
    identifiers in it that no prose word looks like, found through the search index."""
    seen: dict[str, None] = {}
    for ident in IDENT.findall(task):
        if len(ident) >= 4 and ("_" in ident.strip("_") or any(c.isupper() for c in ident[1:])):
            seen.setdefault(ident)
    found: dict[tuple[str, str], str] = {}
    for ident in list(seen)[:TASK_NAMES]:
        for h in search_hits(snap, ident, 5):
            parts = (h.symbol or "").split(".")
            if ident in parts:  # the declaration itself, or a member of it: the class
                found.setdefault((h.path, ".".join(parts[: parts.index(ident) + 1])), ident)
    return [p.RetrievedHit(path, symbol, score=1.0, query=f"task: {ident}")
            for (path, symbol), ident in found.items()]


def _retrieved(snap: Snapshot, hit: p.RetrievedHit) -> Evidence:
    hv = snap.view_at(hit.path)  # refuses paths outside the workspace
    prov = f"04: retrieved (score {hit.score:g})" + (f" by `{hit.query}`" if hit.query else "")
    if hit.symbol:
        if hv.outline is None:
            raise UnknownSymbol(f"{hv.loc.path} has no outline")
        d = resolve(hv.outline, hit.symbol, hv.loc.path)
        return Evidence(
            relation="retrieved", provenance=prov,
            renderings={"verbatim": cut(snap, hv, [(d.span.start_row, d.span.last_row)]),
                        "signature": cut(snap, hv, sig_rows(d)), "name": name_line(hv, d)},
            path=hv.loc.path, symbol=d.qualname, rows=(d.span.start_row, d.span.last_row),
            score=hit.score, key=f"{hv.loc.path}::{d.qualname}")
    n = len(hv.lines)
    a = max(0, (hit.start_line or 1) - 1)
    b = min(n - 1, (hit.end_line or hit.start_line or n) - 1)
    if a > b:
        raise InvalidParams(f"empty line range {hit.start_line}-{hit.end_line}")
    return Evidence(
        relation="retrieved", provenance=prov,
        renderings={"verbatim": cut(snap, hv, [(a, b)]),
                    "name": Text(f"{hv.loc.path}:{a + 1}-{b + 1}\n")},
        path=hv.loc.path, rows=(a, b), score=hit.score, key=f"{hv.loc.path}:{a}-{b}")
