"""What the change affects: call sites, tests, and the wider impact as one digest line.

Proven call sites are items (the caller's signature and the call's lines); name matches on
receivers of unknown type are counted, not shown. Tests that exercise the target are names
with a one-line expectation, the one that calls it directly with the most fixtures is
shown whole (how this repository writes its tests), and the files the test runner loads
for them come along. Under intent ``rename`` the item is every reference, one per line.
"""

from __future__ import annotations

import re

import attrs

from ctxls import protocol as p
from ctxls.context.items import Collected, cut, name_line, sig_rows, symbol_view
from ctxls.context.limits import (
    MAX_CALLER_FILES,
    MAX_CALLERS,
    MAX_CANDIDATES,
    MAX_TEST_ITEMS,
    MAX_TESTS,
    SECOND_HOP,
)
from ctxls.context.model import Evidence, Text
from ctxls.errors import CtxError
from ctxls.index.related import TestHit, tests_for
from ctxls.index.resolve import FileInfo, Reference, bounded_references
from ctxls.requests.refs import is_test, mentions, unresolved_note
from ctxls.snapshot import Snapshot, View
from ctxls.syntax import languages
from ctxls.syntax.outline import Decl
from ctxls.syntax.symbols import at_row, tops


def impact(snap: Snapshot, out: Collected, params: p.ConstructParams, v: View,
           info: FileInfo | None, decl: Decl) -> None:
    items = out.items
    home_key = out.target
    resolved: list[Reference] = []
    candidates: list[Reference] = []
    judged = naming = 0
    if info is not None:
        resolved, candidates, judged, naming = bounded_references(
            snap.refs, info.key, decl, MAX_CALLER_FILES)
    else:  # no reference table for this language: word matches, counted as unproven
        candidates = mentions(snap, v, decl)
    callers = [r for r in resolved if not is_test(r.path)]
    if params.intent == "rename":
        listing = [f"{r.path}:{r.call.row + 1}:{r.call.col + 1} in {r.enclosing or '<module>'}"
                   f": {_line(snap, r.key, r.call.row)}" for r in resolved]
        listing += [f"{r.path}:{r.call.row + 1}:{r.call.col + 1} (unproven: {r.why}): "
                    f"{_line(snap, r.key, r.call.row)}" for r in candidates]
        body = (f"{len(resolved)} references of {decl.qualname}"
                + (f", {len(candidates)} unproven name matches" if candidates else "")
                + (" (index incomplete)" if snap.scanning else "") + "\n"
                + "\n".join(listing) + ("\n" if listing else ""))
        items.append(Evidence(relation="reference", content=body,
                              provenance="06: every reference (rename)",
                              renderings={"name": Text(body)}, key=f"refs:{home_key}"))
    for r in callers[:MAX_CALLERS]:
        cv = snap.view_at(r.key)
        rows = []
        if cv.outline is not None:
            binds = {decl.name, *(decl.parents[-1:] if decl.parents else ())}
            rows += [(h.span.start_row, h.span.last_row) for h in cv.outline.header
                     if h.kind == "import" and any(b in "\n".join(
                         cv.lines[h.span.start_row : h.span.last_row + 1]) for b in binds)]
            around = at_row(cv.outline, r.call.row)
            if around is not None:
                rows += sig_rows(around)[:1]
        rows.append((max(0, r.call.row - 1), min(len(cv.lines) - 1, r.call.row + 1)))
        items.append(Evidence(
            relation="caller", provenance=f"06: CalledBy {r.enclosing or cv.loc.path} "
            f"({r.why})",
            renderings={"signature": cut(snap, cv, rows),
                        "name": Text(f"{cv.loc.path}:{r.call.row + 1} in "
                                     f"{r.enclosing or '<module>'}: "
                                     f"{cv.lines[r.call.row].strip()}\n")},
            path=cv.loc.path, symbol=r.enclosing, rows=(r.call.row, r.call.row),
            key=f"{cv.loc.path}:{r.call.row}"))
    for r in candidates[:MAX_CANDIDATES]:
        items.append(Evidence(
            relation="candidate-caller", provenance=f"06: name match only ({r.why})"[:200],
            renderings={"name": Text(f"{r.path}:{r.call.row + 1}\n")},
            path=r.path, symbol=r.enclosing, key=f"{r.path}:{r.call.row}"))
    hits = tests_for(snap.refs, info.key, decl, is_test, found=(resolved, candidates)) \
        if info is not None else []
    _tests(snap, out, params, v, hits)
    second = 0
    for r in callers[:SECOND_HOP]:
        ci = snap.info(r.key)
        cd = next((d for d in ci.outline.decls if d.qualname == r.enclosing), None) \
            if ci and r.enclosing else None
        if cd is not None and cd.kind in ("function", "method", "class"):
            second += len(bounded_references(snap.refs, r.key, cd, MAX_CALLER_FILES)[0])
    unindexed = snap.unindexed(v.lang.name if v.lang else None)
    # the same rule as ctx/references: a use not resolved either way leaves it open
    out.complete = snap.indexed and unindexed == 0 and info is not None and not candidates \
        and judged == naming
    if judged < naming:
        out.notes.append(f"incomplete: call sites were looked for in {judged:,} of the "
                         f"{naming:,} files that name {decl.name}; ctx/references lists "
                         "them all")
    if info is not None and candidates:
        out.notes.append(unresolved_note(decl.name, candidates))
    spec = languages.spec_for(v.loc.path)
    injected = [n.split(".")[0] for n in spec.tests.injected] if spec else []
    setup = f" and {'/'.join(injected)} files" if injected else ""
    digest = (f"{len(callers)} callers ({min(len(callers), MAX_CALLERS)} as call sites), "
              f"{len(resolved) - len(callers)} direct calls from tests, "
              f"{len(candidates)} unproven name matches, {len(hits)} tests{setup}, "
              f"{second} second-hop call sites"
              + (f" (through the first {SECOND_HOP} callers)" if len(callers) > SECOND_HOP
                 else "")
              + (f"; counted in {judged:,} of the {naming:,} files naming it"
                 if judged < naming else "")
              + (f"; {unindexed} files not indexed" if unindexed else "")
              + ("; the scan is still running" if snap.scanning else "")
              + ("; no reference table for this language: counts are text matches"
                 if info is None else "")
              + " — no direct evidence requires source expansion yet\n")
    items.append(Evidence(relation="digest", content=digest,
                          provenance="06: the wider impact, counted",
                          renderings={"digest": Text(digest)}, key=f"digest:{home_key}"))


def _tests(snap: Snapshot, out: Collected, params: p.ConstructParams, v: View,
           hits: list[TestHit]) -> None:
    items = out.items
    named = {n.rsplit("::", 1)[-1].rsplit(".", 1)[-1]: n
             for ob in params.obligations for n in ob.tests}
    seen_tests: set[str] = set()
    direct: list[tuple[int, int, str]] = []  # (fixtures taken, -row, key) of direct tests
    plain_tests = 0
    importers = [h for h in hits if h.symbol is None and not h.injected]
    if importers:  # test files that only import the module: one line for all of them
        importing = (f"{len(importers)} test files import {v.loc.path}'s module without a "
                     "proven call of the target: " + ", ".join(h.path for h in importers)
                     + "\n")
        items.append(Evidence(
            relation="test", content=importing, provenance="06: PreserveObligation — test "
            "files that import the target's module", renderings={"name": Text(importing)},
            key=f"importers:{out.target}"))
    for h in [h for h in hits if h not in importers][:MAX_TESTS]:
        setup = h.injected
        if h.symbol is not None and not setup and h.symbol.rsplit(".", 1)[-1] not in named:
            plain_tests += 1
            if plain_tests > MAX_TEST_ITEMS:
                continue  # counted in the digest; named tests and setup files always come
        tv = snap.view_at(h.key)
        td: Decl | None = next(
            (d for d in tv.outline.decls if d.qualname == h.symbol), None) \
            if tv.outline and h.symbol else None
        key = f"{tv.loc.path}::{td.qualname}" if td else f"{tv.loc.path}::*"
        seen_tests.add(key)
        if td is not None:
            rend = {"verbatim": cut(snap, tv, [(td.span.start_row, td.span.last_row)]),
                    "name": name_line(tv, td, f" — {_expectation(tv, td)}")}
            if h.evidence.startswith("calls ") and "directly" in h.evidence:
                direct.append((_params(tv, td), -td.span.start_row, key))
        else:
            public = [d for d in (tv.outline.decls if tv.outline else ()) if not d.parents]
            rend = {"signature": cut(snap, tv, [r for d in public for r in sig_rows(d)]),
                    "name": Text(f"{tv.loc.path}: {len(public)} top-level declarations; "
                                 f"{h.evidence}\n")}
        item = Evidence(
            relation="setup" if setup else (
                "named-test" if td is not None and td.name in named else "test"),
            provenance=f"06: PreserveObligation — {h.evidence}"[:200], renderings=rend,
            path=tv.loc.path, symbol=td.qualname if td else None,
            rows=(td.span.start_row, td.span.last_row) if td else None, key=key)
        # a file the runner loads is labelled by its own name
        items.append(attrs.evolve(item, label=h.path.rsplit("/", 1)[-1].split(".")[0])
                     if setup else item)
    if direct:  # one body shows how this repository builds fixtures and asserts
        out.exemplars.add(max(direct)[2])
    else:  # no test calls it: the module's own tests still show how they are written
        own = _module_test(snap, v, [h.key for h in importers])
        if own is not None and f"{own[0].loc.path}::{own[1].qualname}" not in seen_tests:
            tv, td, why = own
            key = f"{tv.loc.path}::{td.qualname}"
            items.append(Evidence(
                relation="module-test", provenance=f"06: the module's own tests ({why}); no test "
                "calls the target, this one is closest to it",
                renderings={"verbatim": cut(snap, tv, [(td.span.start_row, td.span.last_row)]),
                            "name": name_line(tv, td, f" — {_expectation(tv, td)}")},
                path=tv.loc.path, symbol=td.qualname,
                rows=(td.span.start_row, td.span.last_row), key=key))
            out.exemplars.add(key)
    for short, full in named.items():  # named tests the import graph did not reach
        if any(k.endswith(f"::{short}") or k.endswith(f".{short}") for k in seen_tests):
            continue
        named_test = None
        try:
            named_test = symbol_view(snap, full, v)
        except CtxError as exc:
            out.notes.append(f"named test `{full}`: {exc.message}")
        if named_test is None:
            out.notes.append(f"named test `{full}` not found")
            continue
        tv, nd = named_test
        items.append(Evidence(
            relation="named-test", source="07", provenance="07: a test the obligation names",
            renderings={"verbatim": cut(snap, tv, [(nd.span.start_row, nd.span.last_row)]),
                        "name": name_line(tv, nd, f" — {_expectation(tv, nd)}")},
            path=tv.loc.path, symbol=nd.qualname, rows=(nd.span.start_row, nd.span.last_row),
            key=f"{tv.loc.path}::{nd.qualname}"))


_WORD = re.compile(r"\w+")


def _module_test(snap: Snapshot, v: View, importers: list[str]) -> tuple[View, Decl, str] | None:
    """The test file of the target's module, by the language's test-file names filled with
    the module's name (``test_*.py`` -> ``test_tokens.py``), else the first test file that
    imports it; and in it the test that names the most of the module's declarations."""
    if v.lang is None or v.outline is None:
        return None
    stem = v.loc.path.rsplit("/", 1)[-1].split(".")[0]
    names = {pat.replace("*", stem) for pat in v.lang.test_files if "*" in pat}
    lang = v.lang.name
    found = [(key, "named after it")
             for key in sorted(k for name in names for k in snap.named(name))
             if getattr(snap.entry(key), "language", None) == lang]
    found += [(key, "imports it") for key in importers if key not in dict(found)]
    # (what a test can name: a namespace is no word, and C#'s holds the module's classes)
    module_names = {d.name for d in tops(v.outline) if d.kind != "namespace"}
    # (read whole only where a name may be: a Java package's hundred test files all
    # import the module, and few name it)
    needles = [n.encode() for n in module_names]
    for key, why in found:
        if not snap.mentions(key, needles):
            continue
        try:
            tv = snap.view_at(key)
        except CtxError:
            continue
        if tv.outline is None:
            continue
        scored = []
        for d in tv.outline.decls:
            if d.kind not in ("function", "method"):
                continue
            words = set(_WORD.findall(" ".join(tv.lines[d.span.start_row : d.span.last_row + 1])))
            hits = len(module_names & words)
            if hits:
                scored.append((hits, _params(tv, d), -d.span.start_row, d))
        if scored:
            best = max(scored, key=lambda x: x[:3])
            return tv, best[3], f"{tv.loc.path}, {why}"
    return None


def _expectation(v: View, d: Decl) -> str:
    if d.doc:
        first = d.doc.strip().strip("\"'").strip().split("\n", 1)[0].strip()
        if first:
            return first[:160]
    assertion = v.lang.assertion if v.lang else None
    for r in range(d.signature.end_row + 1, d.span.last_row + 1):
        line = v.lines[r].strip()
        if assertion is not None and assertion.search(line):
            return line[:160]
    return "no assertion found in its body"


def _params(v: View, d: Decl) -> int:
    """How many parameters a test takes (its fixtures): the richest shows the most style."""
    sig = " ".join(v.lines[d.span.start_row : d.signature.end_row + 1])
    inner = sig[sig.find("(") + 1 : sig.rfind(")")] if "(" in sig else ""
    return len([a for a in inner.split(",") if a.strip() and a.strip() not in ("self", "t")])


def _line(snap: Snapshot, key: str, row: int) -> str:
    lines = snap.view_at(key).lines
    return lines[row].strip() if 0 <= row < len(lines) else ""
