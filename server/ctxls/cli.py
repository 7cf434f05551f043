"""``ctxls serve | mcp | index build | skeleton | read | range | refs | tests | deps |
construct | chunks | stats | policy check | policy report``.

Every command but ``serve`` goes through the Python client and a real server process, the same
code path an agent uses, so what the shell shows is what an agent gets.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import logging
import os
import sys
from pathlib import Path
from typing import Any

import attrs

from ctxls.startup import compiled_once


def _root_for(path: Path, root: str | None) -> Path:
    if root:
        return Path(root).resolve()
    here = path.resolve()
    for folder in [here, *here.parents]:
        if (folder / ".git").exists():
            return folder
    cwd = Path.cwd().resolve()
    return cwd if here.is_relative_to(cwd) else here.parent


def _listing(result: Any) -> str:
    """One line per finding, grep-friendly: path:line  symbol  evidence."""
    out: list[str] = []
    if hasattr(result, "references"):
        for title, sites in (("references", result.references),
                             ("candidates", result.candidates)):
            out.append(f"# {title} of {result.symbol}: {len(sites)}")
            out += [f"{s.path}:{s.range.start.line + 1}  {s.enclosing or '-'}  {s.evidence}"
                    for s in sites]
        if not result.complete:
            out.append(f"# incomplete: {result.unindexed_files} file(s) not indexed, "
                       "or no reference table for this language")
    elif hasattr(result, "tests"):
        out += [f"{t.path}  {t.symbol or '-'}  {t.evidence}" for t in result.tests]
    else:
        out += [f"{d.path}:{d.range.start.line + 1}  {d.symbol}  {d.relation}"
                for d in result.dependencies]
    return "\n".join(out)


def _print(result: Any, as_json: bool) -> None:
    if as_json:
        from lsprotocol.converters import get_converter

        print(json.dumps(get_converter().unstructure(result), indent=2, ensure_ascii=False))
    else:
        sys.stdout.write(result.text)


async def _run(args: argparse.Namespace) -> int:
    from ctxls_client import CtxClient, RpcError

    path = Path(args.path)
    root = _root_for(path, args.root)
    options = {"lineNumbers": not args.no_line_numbers}
    async with await CtxClient.start(root, options=options) as client:
        try:
            target = str(path.resolve())
            if args.command == "skeleton":
                result: Any = await client.skeleton(target, args.target)
                if not args.json:
                    print(f"# {result.path}: {result.mode} ({result.reason}), "
                          f"{result.tokens} tokens", file=sys.stderr)
            elif args.command == "read":
                result = await client.read_symbol(target, args.name,
                                                  include_header=not args.no_header,
                                                  context_lines=args.context)
            elif args.command == "range":
                result = await client.read_range(target, args.start, args.end)
            elif args.command == "construct":
                await client.status(wait=True)
                result = await client.construct(target, args.symbol, task=args.task,
                                                intent=args.intent, ceiling=args.ceiling)
                if not args.json:
                    print(f"# {result.target}: {result.token_count} of {result.ceiling} tokens, "
                          f"{len(result.window)} items, {len(result.omitted)} omitted",
                          file=sys.stderr)
                if args.html:  # the page the editors preview, from the same result
                    from ctxls.context.page import render

                    Path(args.html).write_text(render(result), encoding="utf-8")
                    print(f"# page written to {args.html}", file=sys.stderr)
            else:
                await client.status(wait=True)
                found: Any
                if args.command == "refs":
                    found = await client.references(target, args.name)
                elif args.command == "tests":
                    found = await client.tests(target, args.name)
                else:
                    found = await client.dependencies(target, args.name)
                if args.json:
                    _print(found, True)
                else:
                    print(_listing(found))
                return 0
        except RpcError as exc:
            print(f"ctxls: {exc.message}", file=sys.stderr)
            return 1
        _print(result, args.json)
    return 0


async def _chunks(args: argparse.Namespace) -> int:
    """Chunks of the given files (or of the whole workspace): one JSON object per line
    with ``--jsonl``, else a line per chunk."""
    from ctxls_client import CtxClient, RpcError

    paths = [Path(x) for x in args.paths] or [Path.cwd()]
    root = _root_for(paths[0], args.root)
    async with await CtxClient.start(root) as client:
        await client.status(wait=True)
        try:
            results = ([await client.chunks(str(x.resolve()), max_tokens=args.max_tokens)
                        for x in paths if x.is_file()]
                       if any(x.is_file() for x in paths)
                       else [await client.chunks(max_tokens=args.max_tokens)])
        except RpcError as exc:
            print(f"ctxls: {exc.message}", file=sys.stderr)
            return 1
    for result in results:
        for c in result.chunks:
            if args.jsonl:  # snake_case field names, what indexers store
                print(json.dumps(attrs.asdict(c), ensure_ascii=False))
            else:
                print(f"{c.chunk_id}  {c.kind}  {c.granularity}  {c.tokens} tokens  "
                      f"{c.strategy}")
    return 0


async def _stats(args: argparse.Namespace) -> int:
    from ctxls.index.stats import render
    from ctxls_client import CtxClient

    root = _root_for(Path(args.path), args.root)
    async with await CtxClient.start(root) as client:
        await client.status(wait=True)
        summary = await client.stats(args.max_tokens)
    print(json.dumps(summary, indent=2) if args.json else render(summary), end="")
    return 0


def _policy(args: argparse.Namespace) -> int:
    """`check`: the policy's problems and undocumented vendor patches, like a linter (exit
    1 on an error). `report`: the escape-hatch log, most requested excluded paths first."""
    import datetime as dt

    from ctxls import policy as pol
    from ctxls.index.walk import walk

    root = _root_for(Path(args.path), args.root)
    if args.action == "report":
        log = root / args.log
        if not log.is_file():
            print(f"ctxls: no log at {log}", file=sys.stderr)
            return 1
        rows = pol.report(log.read_text(encoding="utf-8").splitlines())
        print("reads  runs ended  succeeded  path")
        for path, reads, ended, ok in rows:
            rate = f"{ok}/{ended}" if ended else "-"
            print(f"{reads:5d}  {ended:10d}  {rate:>9}  {path}")
        return 0
    files = [rel for rel, _ in walk(root)]
    found = pol.load(root, dt.date.today(), files)
    if not found.found:
        print(f"no {pol.POLICY_PATH} in {root}: the defaults apply")
        return 0
    for x in found.problems:
        print(f"{pol.POLICY_PATH}:{x.line + 1}: {x.severity}: {x.message}")
    for rule in found.rules:
        if rule.view == "interface":
            for line in pol.undocumented_patches(root, rule):
                print(f"{pol.POLICY_PATH}:{rule.line + 1}: warning: {line}")
    return 1 if any(x.severity == "error" for x in found.problems) else 0


def _logging(log_file: str | None, level: str) -> None:
    """Logs go to ``log_file`` if given, else to stderr, which editors and agent hosts show
    as errors: by default only warnings and faults are logged."""
    handler: logging.Handler = (logging.FileHandler(log_file, encoding="utf-8") if log_file
                                else logging.StreamHandler())
    logging.basicConfig(level=level.upper(), handlers=[handler],
                        format="ctxls %(asctime)s %(levelname)s %(message)s")


def _mcp_root(given: str | None) -> Path | None:
    """The workspace of an MCP server: ``--root``; else the folder Cursor names in
    WORKSPACE_FOLDER_PATHS (it starts servers in /); else the enclosing git repository of
    the working directory (Claude Code and Codex start servers in the project); never / or
    the home folder as a whole."""
    if given:
        return Path(given).resolve()
    named = os.environ.get("WORKSPACE_FOLDER_PATHS", "").split(",")[0].strip()
    if named and Path(named).is_dir():
        return Path(named).resolve()
    root = _root_for(Path.cwd(), None)
    return None if root in (Path("/"), Path.home().resolve()) else root


def _mcp(args: argparse.Namespace) -> int:
    try:
        with compiled_once():
            from ctxls.mcp.server import serve as run
    except ImportError as exc:
        print(f"ctxls: the MCP server needs the mcp package ({exc}); "
              "install it with: pip install 'ctxls[mcp]'", file=sys.stderr)
        return 2
    try:
        options = json.loads(args.options) if args.options else None
    except json.JSONDecodeError as exc:
        print(f"ctxls: --options is not JSON: {exc}", file=sys.stderr)
        return 2
    if args.store:  # (--options wins)
        options = {"store": args.store, **(options or {})}
    _logging(args.log_file, args.log_level)
    root = _mcp_root(args.root)
    if root is None:
        print("ctxls: no workspace: start `ctxls mcp` in the repository or pass --root DIR",
              file=sys.stderr)
        return 2
    from ctxls.errors import CtxError

    try:
        run(root, options)
    except CtxError as exc:  # bad options
        print(f"ctxls: {exc.message}", file=sys.stderr)
        return 2
    return 0


def _index(args: argparse.Namespace) -> int:
    """`index build`: the shared index of each root's commit, written to the store."""
    from ctxls.index import build as builder
    from ctxls.index.pgstore import StoreError, redact

    if not args.store:
        print("ctxls: give the store: --store postgresql://... (or CTXLS_STORE)",
              file=sys.stderr)
        return 2
    logging.basicConfig(level="WARNING", format="ctxls %(levelname)s %(message)s")
    print(f"store {redact(args.store)}, engine {args.engine}", flush=True)
    try:
        fig = builder.build([Path(r) for r in args.roots], args.store, engine=args.engine,
                            repo=args.repo, processes=args.processes,
                            address=args.ray_address, batch=args.batch,
                            say=lambda line: print(line, flush=True))
        sizes = builder.store_sizes(args.store)
    except StoreError as exc:
        print(f"ctxls: the store could not be used: {exc}", file=sys.stderr)
        return 1
    print(builder.describe(fig, args.engine))
    print("store size: " + ", ".join(f"{k} {v / (1 << 20):.1f} MiB" for k, v in sizes.items())
          + f"; total {sum(sizes.values()) / (1 << 20):.1f} MiB")
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="ctxls", description=__doc__)
    sub = parser.add_subparsers(dest="command", required=True)
    serve = sub.add_parser("serve", help="run the language server (stdio by default)")
    serve.add_argument("--tcp", metavar="HOST:PORT", help="listen on TCP instead of stdio")
    mcp = sub.add_parser("mcp", help="run the MCP server on stdio (needs ctxls[mcp])")
    mcp.add_argument("--root", help="workspace root (default: the enclosing git repository "
                     "of the current directory)")
    mcp.add_argument("--options", metavar="JSON", default=None,
                     help="server options, as initializationOptions (e.g. '{\"indexWait\": 30}')")
    store_help = ("the shared index (postgresql://user@host/db; the password from "
                  "PGPASSWORD or ~/.pgpass), default $CTXLS_STORE")
    for p in (serve, mcp):
        p.add_argument("--store", default=os.environ.get("CTXLS_STORE"), metavar="DSN",
                       help=store_help + "; start from it, index the rest here")
        p.add_argument("--log-file", metavar="PATH", help="log here instead of to stderr")
        p.add_argument("--log-level", default="warning",
                       choices=["debug", "info", "warning", "error"],
                       help="the least severe level logged (default: warning)")

    def common(p: argparse.ArgumentParser) -> None:
        p.add_argument("path")
        p.add_argument("--root", help="workspace root (default: the enclosing git repository)")
        p.add_argument("--json", action="store_true", help="print the whole result as JSON")
        p.add_argument("--no-line-numbers", action="store_true")

    sk = sub.add_parser("skeleton", help="print a file's skeleton")
    common(sk)
    sk.add_argument("--target", help="declaration to show in full, e.g. Class.method")
    rd = sub.add_parser("read", help="print one symbol with its lineage")
    common(rd)
    rd.add_argument("name")
    rd.add_argument("--context", type=int, default=0, help="extra lines around the symbol")
    rd.add_argument("--no-header", action="store_true", help="omit imports and enclosing lines")
    rg = sub.add_parser("range", help="print lines START..END (1-based, inclusive)")
    common(rg)
    rg.add_argument("start", type=int)
    rg.add_argument("end", type=int)

    cs = sub.add_parser("construct", help="the context window for one decision")
    common(cs)
    cs.add_argument("--symbol", required=True, help="the declaration being edited")
    cs.add_argument("--task", default="", help="the ticket text")
    cs.add_argument("--intent", default="edit", choices=("edit", "rename", "state", "review"))
    cs.add_argument("--ceiling", type=int, default=None,
                    help="hard token ceiling (default: the policy's, else 24000)")
    cs.add_argument("--html", metavar="FILE", help="also write the window as an HTML page")

    ch = sub.add_parser("chunks", help="symbol chunks with their lineage (for an index)")
    ch.add_argument("paths", nargs="*", help="files (default: the whole workspace)")
    ch.add_argument("--root", help="workspace root (default: the enclosing git repository)")
    ch.add_argument("--jsonl", action="store_true", help="one JSON object per chunk")
    ch.add_argument("--max-tokens", type=int, default=8192, help="size cap per chunk")

    st = sub.add_parser("stats", help="index metrics: languages, parse success, chunk sizes")
    st.add_argument("path", nargs="?", default=".", help="a folder in the workspace")
    st.add_argument("--root", help="workspace root (default: the enclosing git repository)")
    st.add_argument("--json", action="store_true")
    st.add_argument("--max-tokens", type=int, default=8192, help="chunk size cap")

    po = sub.add_parser("policy", help="check the context policy, or report its log")
    po.add_argument("action", choices=("check", "report"))
    po.add_argument("path", nargs="?", default=".", help="a folder in the workspace")
    po.add_argument("--root", help="workspace root (default: the enclosing git repository)")
    po.add_argument("--log", default=".agent/context-log.jsonl", help="the escape-hatch log")

    for command, what in (("refs", "call sites of a symbol (resolved, then candidates)"),
                          ("tests", "tests that exercise a symbol, with their evidence"),
                          ("deps", "project declarations a symbol's body uses")):
        sub_parser = sub.add_parser(command, help=what)
        common(sub_parser)
        sub_parser.add_argument("name")

    ix = sub.add_parser("index", help="the shared index (PostgreSQL)")
    ix_sub = ix.add_subparsers(dest="action", required=True)
    bd = ix_sub.add_parser("build", help="index each root's commit into the shared store")
    bd.add_argument("roots", nargs="+", metavar="ROOT")
    bd.add_argument("--store", default=os.environ.get("CTXLS_STORE"), metavar="DSN",
                    help=store_help)
    bd.add_argument("--engine", choices=("local", "ray"), default="local",
                    help="worker processes here, or Ray tasks (local Ray, or --ray-address)")
    bd.add_argument("--repo", help="the repository's name (default: its remote's URL, "
                    "else the folder's name)")
    bd.add_argument("--processes", type=int, default=os.cpu_count() or 2,
                    help="worker processes, or a local Ray's CPUs")
    bd.add_argument("--ray-address", default=None, help="a Ray cluster (ray.init(address=))")
    bd.add_argument("--batch", type=int, default=64, help="files per task")

    args = parser.parse_args(argv)
    if args.command == "policy":
        return _policy(args)
    if args.command == "index":
        return _index(args)
    if args.command == "serve":
        with compiled_once():
            from ctxls.lsp.server import serve as run

        _logging(args.log_file, args.log_level)
        run(args.tcp, {"store": args.store} if args.store else None)
        return 0
    if args.command == "mcp":
        return _mcp(args)
    try:
        runner = {"chunks": _chunks, "stats": _stats}.get(args.command, _run)
        return asyncio.run(runner(args))
    except BrokenPipeError:  # `ctxls ... | head`: the reader left, nothing is wrong
        sys.stderr.close()
        return 0


if __name__ == "__main__":
    raise SystemExit(main())
