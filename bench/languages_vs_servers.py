"""textDocument/references of ctxls against a language's own server, side by side.

For a corpus of one language, a seeded sample of its declarations (functions, classes and
methods outside test files, from ctxls's outline) is asked of both servers at the
declaration's name: ``textDocument/references`` with ``includeDeclaration: false``, each
file opened first with ``didOpen``. The language's server is the truth: recall is the
share of its locations ctxls returns too, precision the share of ctxls's locations it
returns. Locations are compared as (path, line, UTF-16 column). Latency p50 / p95 of both,
in the same run.

Servers, when installed (``bench/servers.sh`` installs them outside the project):
  python      basedpyright-langserver --stdio   (pip install basedpyright, in its own venv)
  typescript  typescript-language-server --stdio (npm; tsserver from the typescript package)
  go          gopls                              (Debian's gopls)
  php         intelephense --stdio               (npm)
  c, cpp      clangd --background-index          (Debian's clangd; the corpus needs a
              compile_commands.json, e.g. cmake -DCMAKE_EXPORT_COMPILE_COMMANDS=ON)

Or, with ``--truth FILE``, no server: a table of every use and the declaration it binds to,
one per line (``use_path use_line use_col decl_path decl_line decl_col``, tab-separated,
0-based, UTF-16 columns), such as a compiler prints: for Java, ``java
bench/truth/JavaUses.java CORPUS > FILE`` (javac's own binding of every name).

Usage: python bench/languages_vs_servers.py LANG CORPUS [--server CMD | --truth FILE]
       [--symbols 60] [--seed 1] [--show 8]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import shlex
import sys
import time
from pathlib import Path
from typing import Any
from urllib.parse import unquote, urlparse

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct
from ctxls.syntax import languages
from ctxls.syntax.outline import outline_source
from ctxls_client import CtxClient

SERVERS = {
    "python": "basedpyright-langserver --stdio",
    "typescript": "typescript-language-server --stdio",
    "javascript": "typescript-language-server --stdio",
    "go": "gopls",
    "c": "clangd --background-index",
    "cpp": "clangd --background-index",
}
LANGUAGE_IDS = {"python": "python", "typescript": "typescript", "javascript": "javascript",
                "go": "go", "c": "c", "cpp": "cpp", "java": "java"}
Loc = tuple[str, int, int]


def utf16_col(line: bytes, byte_col: int) -> int:
    return len(line[:byte_col].decode("utf-8", errors="replace").encode("utf-16-le")) // 2


def sample(root: Path, lang_name: str, n: int, seed: int) -> list[tuple[str, str, int, int]]:
    """(path, qualname, line, UTF-16 column) of declarations outside tests."""
    lang = languages.registry()[lang_name]
    found: list[tuple[str, str, int, int]] = []
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if (not path.is_file() or path.suffix not in lang.extensions or lang.is_test_file(rel)
                or any(p.startswith(".") or p in ("node_modules", "vendor", "test", "tests")
                       for p in rel.split("/"))):
            continue
        data = path.read_bytes()
        if len(data) > 1 << 20:
            continue
        lines = data.split(b"\n")
        for d in outline_source(lang, data).decls:
            if d.kind in ("function", "method", "class", "struct", "interface"):
                row, col = d.name_span.start_row, d.name_span.start_col
                found.append((rel, d.qualname, row, utf16_col(lines[row], col)))
    random.Random(seed).shuffle(found)
    return found[:n]


def truth_table(path: Path) -> dict[Loc, set[Loc]]:
    """Each declaration's uses, from a ``--truth`` file."""
    uses: dict[Loc, set[Loc]] = {}
    for line in path.read_text().splitlines():
        up, ul, uc, dp, dl, dc = line.split("\t")
        if (up, ul, uc) != (dp, dl, dc):
            uses.setdefault((dp, int(dl), int(dc)), set()).add((up, int(ul), int(uc)))
    return uses


def locations(result: Any, root: Path) -> set[Loc]:
    out: set[Loc] = set()
    for loc in result or []:
        path = Path(unquote(urlparse(loc["uri"]).path))
        try:
            rel = path.resolve().relative_to(root).as_posix()
        except ValueError:
            continue  # outside the workspace (a standard library, a dependency)
        out.add((rel, loc["range"]["start"]["line"], loc["range"]["start"]["character"]))
    return out


async def ask(client: CtxClient, root: Path, rel: str, row: int, col: int, language: str,
              opened: set[str]) -> tuple[set[Loc], float]:
    uri = (root / rel).as_uri()
    if rel not in opened:
        opened.add(rel)
        client.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": language, "version": 1,
            "text": (root / rel).read_text(encoding="utf-8", errors="replace")}})
    start = time.perf_counter()
    result = await client.request("textDocument/references", {
        "textDocument": {"uri": uri}, "position": {"line": row, "character": col},
        "context": {"includeDeclaration": False}}, timeout=300)
    return locations(result, root), (time.perf_counter() - start) * 1000


def server_options(cmd: list[str], given: str | None) -> dict[str, Any]:
    """initializationOptions for the language's server: typescript-language-server needs
    tsserver, which an npm install puts beside it (node_modules/typescript)."""
    if given:
        return dict(json.loads(given))
    binary = Path(cmd[0])
    tsserver = binary.parent.parent / "typescript" / "lib" / "tsserver.js"
    if binary.name == "typescript-language-server" and tsserver.is_file():
        return {"tsserver": {"path": str(tsserver)}}
    return {}


async def settled(client: CtxClient, quiet: float = 2.0, limit: float = 300.0) -> None:
    """Until every work-done progress the server began has ended and nothing began for
    ``quiet`` seconds (bounded by ``limit``): intelephense answers with what it has indexed
    so far while it indexes, which is no truth."""
    start = last = time.perf_counter()
    seen = 0
    while time.perf_counter() - start < limit:
        kinds: dict[Any, str] = {}
        for method, params in client.notifications:
            if method == "$/progress" and isinstance(params, dict):
                kinds[params.get("token")] = (params.get("value") or {}).get("kind", "")
        if len(client.notifications) != seen:
            seen, last = len(client.notifications), time.perf_counter()
        if all(k == "end" for k in kinds.values()) and time.perf_counter() - last >= quiet:
            return
        await asyncio.sleep(0.2)


async def run(args: argparse.Namespace) -> None:
    root = Path(args.corpus).resolve()
    syms = sample(root, args.lang, args.symbols, args.seed)
    table = truth_table(Path(args.truth)) if args.truth else None
    server_cmd = ["--truth", args.truth] if args.truth else \
        shlex.split(args.server or SERVERS[args.lang])
    language = LANGUAGE_IDS.get(args.lang, args.lang)
    ours = await CtxClient.start(root, options={"persist": False}, wait_for_index=True,
                                 timeout=300)
    theirs = None if table is not None else await CtxClient.start(
        root, command=server_cmd, timeout=300,
        options=server_options(server_cmd, args.server_options))
    rows: list[dict[str, Any]] = []
    try:
        opened_ours: set[str] = set()
        opened_theirs: set[str] = set()
        if theirs is not None:
            await settled(theirs)
        # tsserver answers from the projects it has loaded, no others
        if theirs is not None and args.open_all:
            lang = languages.registry()[args.lang]
            for path in sorted(root.rglob("*")):
                rel = path.relative_to(root).as_posix()
                if path.is_file() and path.suffix in lang.extensions and \
                        "node_modules" not in rel.split("/") and rel not in opened_theirs:
                    opened_theirs.add(rel)
                    theirs.notify("textDocument/didOpen", {"textDocument": {
                        "uri": path.as_uri(), "languageId": language, "version": 1,
                        "text": path.read_text(encoding="utf-8", errors="replace")}})
            await settled(theirs)
        # the language server indexes on its first request: one warm-up, not scored
        if syms and theirs is not None:
            rel, _, row, col = syms[0]
            await ask(theirs, root, rel, row, col, language, opened_theirs)
            await settled(theirs)  # clangd finds its compile database at the first open
        for rel, qual, row, col in syms:
            mine, t_mine = await ask(ours, root, rel, row, col, language, opened_ours)
            truth, t_truth = (table.get((rel, row, col), set()), 0.0) if table is not None \
                else await ask(theirs, root, rel, row, col, language, opened_theirs)
            rows.append({"symbol": f"{rel}::{qual}", "ours": mine, "truth": truth,
                         "ms_ours": t_mine, "ms_truth": t_truth})
    finally:
        await ours.close()
        if theirs is not None:
            await theirs.close()
    both = sum(len(r["ours"] & r["truth"]) for r in rows)
    truth_n = sum(len(r["truth"]) for r in rows)
    ours_n = sum(len(r["ours"]) for r in rows)
    print(f"{args.lang}: {root.name}, {len(rows)} declarations, server `{' '.join(server_cmd)}`")
    print(f"  references: theirs {truth_n}, ctxls {ours_n}, both {both}; "
          f"recall {both / truth_n if truth_n else float('nan'):.3f}, "
          f"precision {both / ours_n if ours_n else float('nan'):.3f}")
    # A server leaves out what its project configuration excludes (tsconfig `include`,
    # pyright's): precision again over the files it answered about at all.
    served = {loc[0] for r in rows for loc in r["truth"]}
    ours_served = sum(1 for r in rows for loc in r["ours"] if loc[0] in served)
    print(f"  precision within the {len(served)} files the server answered about: "
          f"{both / ours_served if ours_served else float('nan'):.3f} "
          f"({ours_n - ours_served} of ctxls's locations lie in other files)")
    # clangd knows only the files its compile database builds (one platform's: libuv's
    # src/win/ is never compiled on Linux) and the headers they include
    db = root / "compile_commands.json"
    if db.is_file():
        built = {Path(e.get("file", "")).resolve().relative_to(root).as_posix()
                 for e in json.loads(db.read_text()) if Path(e.get("file", "")).resolve()
                 .is_relative_to(root)}

        def compiled(path: str) -> bool:
            return path in built or Path(path).suffix in (".h", ".hh", ".hpp", ".hxx")

        ours_built = sum(1 for r in rows for loc in r["ours"] if compiled(loc[0]))
        both_built = sum(1 for r in rows for loc in r["ours"] & r["truth"] if compiled(loc[0]))
        print(f"  precision within the compile database's {len(built)} files and headers: "
              f"{both_built / ours_built if ours_built else float('nan'):.3f} "
              f"({ours_n - ours_built} of ctxls's locations lie in files it does not build)")
    mine_ms = [r["ms_ours"] for r in rows]
    their_ms = [r["ms_truth"] for r in rows]
    print(f"  latency ms: ctxls p50 {pct(mine_ms, 50):.1f} p95 {pct(mine_ms, 95):.1f} | "
          f"server p50 {pct(their_ms, 50):.1f} p95 {pct(their_ms, 95):.1f}")
    misses = [(r["symbol"], loc, "missed") for r in rows for loc in sorted(r["truth"] - r["ours"])]
    extra = [(r["symbol"], loc, "extra") for r in rows for loc in sorted(r["ours"] - r["truth"])]
    for sym, (path, line, col), kind in (misses[: args.show] + extra[: args.show]):
        text = (root / path).read_text(errors="replace").splitlines()[line].strip()
        print(f"  {kind:6s} {sym} <- {path}:{line + 1}:{col} | {text[:90]}")


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("lang")
    ap.add_argument("corpus")
    ap.add_argument("--server", help="the language server's command (default per language)")
    ap.add_argument("--server-options", help="initializationOptions for it, as JSON")
    ap.add_argument("--truth", help="a table of every use and its declaration instead of a "
                                    "server (see above)")
    ap.add_argument("--open-all", action="store_true",
                    help="open every file of the language in the server first (tsserver "
                         "searches only the projects of open files)")
    ap.add_argument("--symbols", type=int, default=60)
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--show", type=int, default=8)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
