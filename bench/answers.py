"""Every answer the server gives on a workspace, recorded, so that a refactor can prove it
changed none of them.

For each workspace given, one server (index not persisted, search built on first use)
answers, for every file it lists with an outline: ``textDocument/documentSymbol``,
``ctx/skeleton`` without a target, ``ctx/chunks``; and for up to ``--per-file``
declarations of each file: ``ctx/skeleton`` with it as target, ``ctx/readSymbol``,
``ctx/references``, ``ctx/tests``, ``ctx/dependencies``, ``textDocument/definition`` and
``textDocument/references`` at its name and at every call site found, and ``ctx/construct``
at each ``--ceilings`` (edit intent, plus rename and state for the first declaration of a
file). Then ``workspace/symbol``, ``ctx/search`` and ``ctx/stats``. Errors are recorded as
answers too. Timing fields are dropped; everything else is compared as JSON.

Usage:
  .venv/bin/python bench/answers.py record OUT.jsonl WORKSPACE [WORKSPACE ...]
  .venv/bin/python bench/answers.py compare OLD.jsonl NEW.jsonl [--show 5] [--same 'A=>B']
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
import time
from pathlib import Path
from typing import Any

from ctxls_client import CtxClient
from ctxls_client.client import RpcError

VOLATILE = {"latencyMs", "cache"}


def _strip(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _strip(v) for k, v in obj.items() if k not in VOLATILE}
    if isinstance(obj, list):
        return [_strip(v) for v in obj]
    return obj


def _flatten(symbols: list[dict[str, Any]]) -> list[dict[str, Any]]:
    out: list[dict[str, Any]] = []
    for s in symbols or []:
        out.append(s)
        out.extend(_flatten(s.get("children") or []))
    return out


class Recorder:
    def __init__(self, client: CtxClient, root: Path, out: Any) -> None:
        self.client, self.root, self.out = client, root, out
        self.n = 0

    async def ask(self, method: str, params: Any) -> Any:
        try:
            result: Any = await self.client.request(method, params, timeout=300)
            answer = {"result": _strip(result)}
        except RpcError as exc:
            result = None
            answer = {"error": {"code": exc.code, "message": exc.message}}
        self.out.write(json.dumps({"method": method, "params": params, **answer},
                                  sort_keys=True, ensure_ascii=False) + "\n")
        self.n += 1
        return result


async def record_one(root: Path, out: Any, per_file: int, ceilings: list[int]) -> int:
    async with await CtxClient.start(root, wait_for_index=True, timeout=300, options={
            "persist": False, "searchPrebuild": False}) as client:
        rec = Recorder(client, root, out)
        chunks = await client.request("ctx/chunks", {"includeText": False}, timeout=600)
        paths = sorted({c["path"] for c in chunks["chunks"]})
        for path in paths:
            uri = (root / path).as_uri()
            doc = {"textDocument": {"uri": uri}}
            symbols = _flatten(await rec.ask("textDocument/documentSymbol", doc) or [])
            await rec.ask("ctx/skeleton", {"path": path})
            await rec.ask("ctx/chunks", {"path": path})
            seen: set[str] = set()
            decls = []
            for s in symbols:
                if s["name"] not in seen:
                    seen.add(s["name"])
                    decls.append(s)
            for i, s in enumerate(decls[:per_file]):
                line = s["selectionRange"]["start"]["line"] + 1
                name = s["name"]
                pos = s["selectionRange"]["start"]
                await rec.ask("ctx/skeleton", {"path": path, "target": {"symbol": name,
                                                                        "line": line}})
                await rec.ask("ctx/skeleton", {"path": path, "target": {"position": pos}})
                await rec.ask("ctx/readSymbol", {"path": path, "name": name, "line": line})
                refs = await rec.ask("ctx/references", {"path": path, "name": name,
                                                        "line": line})
                await rec.ask("ctx/references", {"path": path, "position": pos})
                await rec.ask("ctx/tests", {"path": path, "name": name, "line": line})
                await rec.ask("ctx/dependencies", {"path": path, "name": name, "line": line})
                await rec.ask("textDocument/definition", {**doc, "position": pos})
                await rec.ask("textDocument/references", {
                    **doc, "position": pos, "context": {"includeDeclaration": True}})
                for site in (refs or {}).get("references", [])[:6]:
                    await rec.ask("textDocument/definition", {
                        "textDocument": {"uri": site["uri"]}, "position": site["range"]["start"]})
                for ceiling in ceilings:
                    await rec.ask("ctx/construct", {
                        "path": path, "target": {"symbol": name, "line": line},
                        "task": f"Change {name} so that it handles the empty case",
                        "ceiling": ceiling})
                if i == 0:
                    for intent in ("rename", "state", "review"):
                        await rec.ask("ctx/construct", {
                            "path": path, "target": {"position": pos}, "intent": intent,
                            "task": f"{intent} {name}",
                            "live": [{"kind": "patch", "text": f"--- a\n+++ b\n+{name}\n"},
                                     {"kind": "traceback", "text": f"Traceback:\n  {name}\n"
                                      "AssertionError: 1 != 2"}]})
        for q in ("get", "parse", "cache", "token", "a", "Invoice total"):
            await rec.ask("workspace/symbol", {"query": q})
            await rec.ask("ctx/search", {"query": q, "limit": 10})
        await rec.ask("ctx/stats", {})
        return rec.n


def compare(old: Path, new: Path, show: int, same: list[str]) -> int:
    """``same``: ``OLD=>NEW`` substitutions made in the old answers first (a deliberate change
    of wording, so that everything else is still compared)."""
    def load(p: Path, subs: list[tuple[str, str]] = []) -> dict[str, Any]:  # noqa: B006
        out: dict[str, Any] = {}
        for line in p.read_text(encoding="utf-8").splitlines():
            for a, b in subs:
                line = line.replace(a, b)
            rec = json.loads(line)
            key = json.dumps([rec["method"], rec["params"]], sort_keys=True)
            out.setdefault(key, []).append(rec.get("result", rec.get("error")))
        return out

    a, b = load(old, [tuple(x.split("=>", 1)) for x in same]), load(new)  # type: ignore[misc]
    missing = [k for k in a if k not in b]
    extra = [k for k in b if k not in a]
    changed = [k for k in a if k in b and a[k] != b[k]]
    print(f"{sum(len(v) for v in a.values())} answers before, "
          f"{sum(len(v) for v in b.values())} after; {len(changed)} changed, "
          f"{len(missing)} missing, {len(extra)} new")
    for k in changed[:show]:
        print("---", k[:300])
        print("  before:", json.dumps(a[k])[:1500])
        print("  after: ", json.dumps(b[k])[:1500])
    for k in missing[:show]:
        print("--- missing:", k[:300])
    return 1 if changed or missing or extra else 0


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = ap.add_subparsers(dest="cmd", required=True)
    r = sub.add_parser("record")
    r.add_argument("out", type=Path)
    r.add_argument("roots", type=Path, nargs="+")
    r.add_argument("--per-file", type=int, default=6)
    r.add_argument("--ceilings", default="24000,4000")
    c = sub.add_parser("compare")
    c.add_argument("old", type=Path)
    c.add_argument("new", type=Path)
    c.add_argument("--show", type=int, default=5)
    c.add_argument("--same", action="append", default=[], metavar="OLD=>NEW",
                   help="a deliberate change of wording: replace OLD by NEW in the old answers")
    args = ap.parse_args()
    if args.cmd == "compare":
        sys.exit(compare(args.old, args.new, args.show, args.same))
    ceilings = [int(x) for x in args.ceilings.split(",")]
    with args.out.open("w", encoding="utf-8") as out:
        for root in args.roots:
            began = time.perf_counter()
            n = asyncio.run(record_one(root.resolve(), out, args.per_file, ceilings))
            print(f"{root}: {n} answers in {time.perf_counter() - began:.1f} s")


if __name__ == "__main__":
    main()
