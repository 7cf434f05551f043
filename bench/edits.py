"""ctx/construct right after an edit of another file, beside the same requests unedited.

For each LANG:CORPUS pair a fresh server scans the corpus (no cache) and answers
ctx/construct for the first TARGETS bodied declarations of tail.py's seeded sample (once,
to warm it). One file of the sample that none of the asked targets is in (the largest
such) is opened; then, ROUNDS times, each target is asked plainly, then each target again
right after an edit of the open file: the whole text sent again with a line `// edited`
added (a client without incremental sync), then that line inserted at its last line
(what an editor sends; a comment in most languages, a line in error in Python and Ruby,
as these figures have been measured since stop 43). Then each target asked right after
an edit of its own file (a comment line typed inside its body, taken out again after: an
agent's edit-and-ask loop). Printed per corpus: the client's p50 / p95 of each, and the
medians of the server's own stages (``timings``): what an edit costs the next window
is the open document indexed again (before the snapshot: not in ``timings``) and every
answer the reference index remembered built again (in ``timings``: each edit moves the
index's version).

Usage: python bench/edits.py LANG:CORPUS [LANG:CORPUS ...] [--targets 30] [--rounds 3]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct
from ctxls.syntax import languages
from ctxls_client import CtxClient
from tail import _construct, targets


async def one(lang: str, corpus: Path, args: argparse.Namespace) -> None:
    picks = targets(corpus, lang, args.files, args.seed, 400)
    asked = picks[: args.targets]
    others = {pk[0] for pk in picks} - {pk[0] for pk in asked}
    if not others:
        print(f"{lang}: {corpus.name}: the sample has no file beside the targets'")
        return
    edited = max(sorted(others), key=lambda rel: (corpus / rel).stat().st_size)
    uri, text = (corpus / edited).as_uri(), (corpus / edited).read_text(errors="replace")
    times: dict[str, list[float]] = {"plain": [], "whole": [], "incremental": [], "own": []}
    stages: dict[str, list[dict[str, float]]] = {k: [] for k in times}
    with tempfile.TemporaryDirectory() as cache:
        async with await CtxClient.start(corpus, options={"cacheDir": cache, "persist": False},
                                         wait_for_index=True, timeout=900) as ctx:
            async def ask(pick: tuple[str, str, int], kind: str | None) -> None:
                began = time.perf_counter()
                result: dict[str, Any] = await ctx.request(
                    "ctx/construct", _construct(pick, args.ceiling), timeout=120)
                if kind is not None:
                    times[kind].append((time.perf_counter() - began) * 1000)
                    stages[kind].append(result.get("timings") or {})

            for pick in asked:
                await ask(pick, None)
            version = 1
            ctx.notify("textDocument/didOpen", {"textDocument": {
                "uri": uri, "languageId": lang, "version": version, "text": text}})
            await ask(asked[0], None)
            lines = text.count("\n")
            for _ in range(args.rounds):
                for pick in asked:
                    await ask(pick, "plain")
                for pick in asked:
                    version += 1
                    text += "\n// edited\n"
                    ctx.notify("textDocument/didChange", {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"text": text}]})
                    await ask(pick, "whole")
                for pick in asked:
                    version += 1
                    at = {"line": lines, "character": 0}
                    ctx.notify("textDocument/didChange", {
                        "textDocument": {"uri": uri, "version": version},
                        "contentChanges": [{"range": {"start": at, "end": at},
                                            "text": "// edited\n"}]})
                    await ask(pick, "incremental")
            # The agent's loop: its target's own file edited (a comment line typed inside
            # the target's body, below its first line), then its window asked again; the
            # line is taken out before the next target.
            versions: dict[str, int] = {}
            comment = f"{languages.registry()[lang].line_comment} edited\n"
            for _ in range(args.rounds):
                for pick in asked:
                    path, _, line = pick
                    own = (corpus / path).as_uri()
                    if path not in versions:
                        versions[path] = 1
                        ctx.notify("textDocument/didOpen", {"textDocument": {
                            "uri": own, "languageId": lang, "version": 1,
                            "text": (corpus / path).read_text(errors="replace")}})
                    for change in ({"start": {"line": line, "character": 0},
                                    "end": {"line": line, "character": 0}, "text": comment},
                                   {"start": {"line": line, "character": 0},
                                    "end": {"line": line + 1, "character": 0}, "text": ""}):
                        versions[path] += 1
                        ctx.notify("textDocument/didChange", {
                            "textDocument": {"uri": own, "version": versions[path]},
                            "contentChanges": [{"range": {"start": change["start"],
                                                          "end": change["end"]},
                                                "text": change["text"]}]})
                        if change["text"]:
                            await ask(pick, "own")
    size = (corpus / edited).stat().st_size
    print(f"{lang}: {corpus.name}, {len(asked)} targets x {args.rounds}, editing {edited} "
          f"({size:,} bytes)")
    for kind, ms in times.items():
        keys = [k for k in stages[kind][0] if k != "total"] if stages[kind] else []
        top = sorted(keys, key=lambda k: -statistics.median(s.get(k, 0) for s in stages[kind]))
        print(f"  {kind:<12} p50 {pct(ms, 50):6.1f}  p95 {pct(ms, 95):6.1f} ms; server total "
              f"{statistics.median(s.get('total', 0) for s in stages[kind]):5.1f}; " + ", ".join(
                  f"{k} {statistics.median(s.get(k, 0) for s in stages[kind]):.1f}"
                  for k in top[:4]), flush=True)


async def run(args: argparse.Namespace) -> None:
    for pair in args.pairs:
        lang, _, name = pair.partition(":")
        await one(lang, Path(name).resolve(), args)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("pairs", nargs="+", metavar="LANG:CORPUS")
    ap.add_argument("--targets", type=int, default=30)
    ap.add_argument("--rounds", type=int, default=3)
    ap.add_argument("--files", type=int, default=20)
    ap.add_argument("--seed", type=int, default=19)
    ap.add_argument("--ceiling", type=int, default=16000)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
