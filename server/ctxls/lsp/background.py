"""The server's background work: the initial scan, then the search index's build, and the
file watcher for clients that do not watch files themselves.

Both run on the event loop beside the requests. The scan lists the workspace, restores
what the persistent index still holds, and parses the rest in worker processes, adding
each batch to the workspace as it arrives (between requests: handlers run on this loop
too) and reporting work-done progress to the client. The search index is then built in
short slices with pauses, so a request waits at most one slice.
"""

from __future__ import annotations

import asyncio
import contextlib
import gc
import logging
import multiprocessing
import multiprocessing.forkserver
import os
import time
import traceback
import uuid
from concurrent.futures import Executor, ProcessPoolExecutor
from pathlib import Path

import watchfiles
from lsprotocol import types as t

from ctxls.index import lifeline
from ctxls.index.scan import FileEntry, Ignores, index_batch, walk
from ctxls.lsp.host import CtxServer
from ctxls.policy import POLICY_PATH
from ctxls.requests import search
from ctxls.tokens import tokenizer

log = logging.getLogger("ctxls")
BATCH = 48  # files per unit of scan work: small enough for smooth progress reports
# The search index is built after the scan in slices of this much work, each followed by
# a pause: a request waits at most one slice, and the build takes ~1.5x its bare time.
SEARCH_SLICE = 0.02
POOL_THRESHOLD = 300  # below this many files a process pool costs more than it saves


def _stop_workers(pool: Executor) -> None:
    """Wait for the scan's worker processes to exit, then stop the forkserver they were
    forked from (about 40 MiB that would otherwise live as long as the server). The
    forkserver has no public stop; without this private one it is left running. The
    resource tracker (about 12 MiB) stays: it unlinks the pool's semaphores when they go."""
    pool.shutdown(wait=True, cancel_futures=True)
    server = getattr(multiprocessing.forkserver, "_forkserver", None)
    with contextlib.suppress(Exception):
        server._stop()  # type: ignore[union-attr]


async def scan(ls: CtxServer) -> None:
    """Cold scan in the background; requests are answered meanwhile (files read on demand)."""
    ws = ls.ws
    ws.scanning = True
    gc.disable()  # a bulk load of tables: collections would only rescan them, nothing is garbage
    loop = asyncio.get_running_loop()
    token: str | None = None
    fresh: list[FileEntry] = []
    started = time.perf_counter()
    # Every window counts tokens: load the tokenizer (0.3 s, 38 MiB) beside the scan, not
    # in the first request that needs it.
    counting = loop.run_in_executor(None, tokenizer, ws.options.encoding)
    try:
        plan = await loop.run_in_executor(None, ws.scan_plan)
        listed = time.perf_counter()
        window = ls.client_capabilities.window
        if window is not None and window.work_done_progress:
            token = f"ctxls-scan-{uuid.uuid4()}"
            await ls.work_done_progress.create_async(token)
            ls.work_done_progress.begin(token, t.WorkDoneProgressBegin(
                title="ctxls: indexing", message=f"0/{len(plan)} files", percentage=0))
        hits, misses = await loop.run_in_executor(None, ws.warm_start, plan)
        ws.add(hits)
        restored = time.perf_counter()
        done = len(hits)
        batches = [misses[i : i + BATCH] for i in range(0, len(misses), BATCH)]
        pool: Executor | None = None
        if len(misses) >= POOL_THRESHOLD and ws.options.scan_processes > 1:
            ctx = multiprocessing.get_context("forkserver")
            # the forkserver runs lifeline's bind at import: it dies with the server
            ctx.set_forkserver_preload(["ctxls.index.scan", "ctxls.index.lifeline_server"])
            pool = ProcessPoolExecutor(ws.options.scan_processes, mp_context=ctx,
                                       initializer=lifeline.bind)
        try:  # (a scan that used workers stops them, and their forkserver, when it is done)
            futures = [loop.run_in_executor(pool, index_batch, b, ws.options.max_file_bytes)
                       for b in batches]
            for fut in asyncio.as_completed(futures):
                entries = await fut
                ws.add(entries)
                fresh.extend(entries)
                done += len(entries)
                if token is not None:
                    ls.work_done_progress.report(token, t.WorkDoneProgressReport(
                        message=f"{done}/{len(plan)} files",
                        percentage=int(100 * done / max(1, len(plan)))))
        finally:
            if pool is not None:
                loop.run_in_executor(None, _stop_workers, pool)
        log.info("indexed %d files (%d from the cache) in %.2f s: listing %.2f s, cache %.2f s, "
                 "parsing %.2f s", done, len(hits), time.perf_counter() - started,
                 listed - started, restored - listed, time.perf_counter() - restored)
    except Exception:
        log.error("scan failed: %s", traceback.format_exc())
    finally:
        with contextlib.suppress(Exception):  # (a bad encoding is the requests' to report)
            await counting
        gc.enable()
        gc.freeze()  # the index lives as long as the server: keep it out of future collections
        ws.scanning = False
        ls.scan_done.set()
        ls.publish_policy()
        if token is not None:
            ls.work_done_progress.end(token, t.WorkDoneProgressEnd(
                message=f"{len(ws.entries)} files indexed"))
    if fresh:  # the index is ready; writing the cache must not delay the answers
        try:
            await loop.run_in_executor(None, ws.persist, fresh)
        except Exception:
            log.error("index cache not written: %s", traceback.format_exc())
    if ws.options.search_prebuild:
        ls.search_task = asyncio.create_task(build_search(ls))


async def build_search(ls: CtxServer) -> None:
    """The search index, built on the event loop in slices: requests are answered between
    slices, and nothing else touches the workspace meanwhile (handlers run on this loop)."""
    began = time.perf_counter()
    try:
        done = False
        while not done:
            end = time.perf_counter() + SEARCH_SLICE
            while not done and time.perf_counter() < end:
                done = search.refresh(ls.ws, 1)
            await asyncio.sleep(SEARCH_SLICE / 2)
        log.info("search index built in %.2f s", time.perf_counter() - began)
    except Exception:
        log.error("search index not built: %s", traceback.format_exc())


async def watch(ls: CtxServer) -> None:
    """Files created, changed or deleted on disk join the index within a second or so. The
    walk's rules apply (.gitignore files, excludes, the folders always skipped); the policy
    file is watched too, for its diagnostics."""
    ws = ls.ws
    ignores = {str(root): Ignores(root, ws.options.exclude) for root in ws.roots}

    def rel_of(path: str) -> tuple[str, str] | None:
        root = next((r for r in ignores if path.startswith(r + os.sep)), None)
        return (root, path[len(root) + 1 :].replace(os.sep, "/")) if root else None

    def wanted(change: watchfiles.Change, path: str) -> bool:
        found = rel_of(path)
        if found is None:
            return False
        root, rel = found
        if rel == POLICY_PATH:
            return True
        if rel.rsplit("/", 1)[-1] == ".gitignore":
            ignores[root].forget(rel.rpartition("/")[0])
        return not ignores[root].ignored(rel)

    try:
        async for changes in watchfiles.awatch(*ws.roots, watch_filter=wanted, debounce=200,
                                               step=50, stop_event=ls.stop_watching):
            for _, path in sorted(changes, key=lambda c: c[1]):
                found = rel_of(path)
                if found is not None and os.path.isdir(path):  # a new folder: files made
                    root, folder = found  # before its watch was set would be missed
                    for rel, abspath in walk(Path(path)):
                        if not ignores[root].ignored(f"{folder}/{rel}"):
                            ws.refresh(Path(abspath).as_uri())
                    continue
                ws.refresh(Path(path).as_uri())
            log.info("watched %d changes on disk", len(changes))
            if any(p.endswith(POLICY_PATH) for _, p in changes):
                ls.publish_policy()
    except Exception:
        log.error("file watching stopped: %s", traceback.format_exc())
