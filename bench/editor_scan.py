"""Why a cold scan can take far longer in an editor than in `bench/stdlib.py`.

A copy of N standard-library files (968 by default, as in the report) is scanned by a real
server driven by pytest-lsp's client with VS Code's capabilities, in three sessions:

  editor      the client answers everything at once;
  late-token  the client answers `window/workDoneProgress/create` only after --delay
              seconds (an editor busy with its own start-up);
  copying     the folder is filled while the server starts and the client sends a
              `workspace/didChangeWatchedFiles` event per file created, as VS Code's
              watcher does when a folder is copied or checked out under it.

For each: seconds from spawn until the scan's end (`ctx/status {wait}`), and until every
file is in the index (`indexed` equals the files copied). ``--server-path DIR`` runs the
server from another checkout's `server/` (a worktree of an older commit) beside this one.

Usage: python bench/editor_scan.py [--files 968] [--delay 20] [--server-path DIR]
"""

from __future__ import annotations

import argparse
import asyncio
import os
import shutil
import sys
import sysconfig
import tempfile
import time
from pathlib import Path
from typing import Any

from lsprotocol import types as t
from pytest_lsp import LanguageClient, client_capabilities

STDLIB = Path(sysconfig.get_paths()["stdlib"])


def sources(n: int) -> list[Path]:
    files = sorted(p for p in STDLIB.rglob("*.py") if "site-packages" not in p.parts
                   and "__pycache__" not in p.parts)
    return files[:n]


def copy(files: list[Path], dest: Path) -> list[Path]:
    out = []
    for src in files:
        to = dest / src.relative_to(STDLIB)
        to.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(src, to)
        out.append(to)
    return out


async def session(kind: str, files: list[Path], args: argparse.Namespace,
                  server_path: str | None) -> tuple[float, float, int]:
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as cache:
        root = Path(tmp) / "lib"
        root.mkdir()
        if kind != "copying":
            copy(files, root)
        client = LanguageClient()
        if kind == "late-token":
            @client.feature(t.WINDOW_WORK_DONE_PROGRESS_CREATE)
            async def create(params: t.WorkDoneProgressCreateParams) -> None:
                await asyncio.sleep(args.delay)
                client.progress_reports.setdefault(params.token, [])

        env = dict(os.environ)
        env.pop("PYTHONDONTWRITEBYTECODE", None)
        if server_path:
            env["PYTHONPATH"] = server_path
        began = time.perf_counter()
        await client.start_io(sys.executable, "-m", "ctxls", "serve", env=env)
        await client.initialize_session(t.InitializeParams(
            capabilities=client_capabilities("visual_studio_code"),
            root_uri=root.as_uri(), workspace_folders=[t.WorkspaceFolder(root.as_uri(), "lib")],
            initialization_options={"cacheDir": cache}))
        if kind == "copying":
            copied = copy(files, root)
            client.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams([
                t.FileEvent(uri=p.as_uri(), type=t.FileChangeType.Created) for p in copied]))
        status: Any = await client.protocol.send_request_async(
            "ctx/status", {"wait": True, "timeout": 600})
        scanned = time.perf_counter() - began
        while True:
            status = await client.protocol.send_request_async("ctx/status", {})
            if status.indexed >= len(files) and not getattr(status, "reindexing", 0):
                break
            if time.perf_counter() - began > 600:
                break
            await asyncio.sleep(0.05)
        complete = time.perf_counter() - began
        indexed = status.indexed
        await client.shutdown_session()
        return scanned, complete, indexed


async def run(args: argparse.Namespace) -> None:
    files = sources(args.files)
    print(f"{len(files)} standard-library files ({sum(p.stat().st_size for p in files) / 1e6:.1f}"
          f" MB); late-token delay {args.delay:.0f} s", flush=True)
    servers = [("this checkout", None)]
    if args.server_path:
        servers.append((args.server_path, args.server_path))
    for kind in ("editor", "late-token", "copying"):
        for label, path in servers:
            scanned, complete, indexed = await session(kind, files, args, path)
            print(f"{kind:10s} {label}: scan over {scanned:6.2f} s, every file indexed "
                  f"{complete:6.2f} s ({indexed} indexed)", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--files", type=int, default=968)
    ap.add_argument("--delay", type=float, default=20.0)
    ap.add_argument("--server-path", help="another checkout's server/ folder, to compare")
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
