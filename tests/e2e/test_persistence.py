"""The persistent index: warm restarts, changed files, corrupt caches."""

from __future__ import annotations

import asyncio
import contextlib
import os
from pathlib import Path

from ctxls_client import CtxClient


async def _start(root: Path, cache: Path) -> CtxClient:
    return await CtxClient.start(root, options={"cacheDir": str(cache)}, wait_for_index=True)


async def test_restart_reads_unchanged_files_from_the_cache(workspace: Path,
                                                            tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    async with await _start(workspace, cache) as ctx:
        cold = await ctx.status()
        assert cold.from_cache == 0 and cold.indexed >= 15
        assert cold.cache is not None and Path(cold.cache).parent == cache
        assert not Path(cold.cache).is_relative_to(workspace)  # never in the workspace
    pricing = workspace / "billing" / "pricing.py"
    pricing.write_text(pricing.read_text() + "\n\ndef added_later():\n    return 1\n")
    async with await _start(workspace, cache) as ctx:
        warm = await ctx.status()
        assert warm.from_cache == cold.indexed - 1  # every file but the changed one
        sym = await ctx.read_symbol("billing/pricing.py", "added_later")
        assert sym.kind == "function"
        refs = await ctx.request("ctx/references", {"path": "billing/pricing.py",
                                                    "name": "compute_line_total"})
        assert any(s["path"] == "billing/checkout.py" for s in refs["references"])


async def test_a_restart_lists_again_the_folders_changed_while_it_was_down(
        workspace: Path, tmp_path: Path) -> None:
    """A restart takes the folders whose times are those its last walk recorded from that
    record (times aged here, so none is too recent to trust); a folder that gained, lost
    or renamed a file is listed again."""
    past = 1_600_000_000_000_000_000
    for folder in [workspace, *(p for p in workspace.rglob("*") if p.is_dir())]:
        os.utime(folder, ns=(past, past))
    cache = tmp_path / "cache"
    async with await _start(workspace, cache) as ctx:
        cold = await ctx.status()
        await ctx.request("ctx/status", {"wait": True})
    for _ in range(100):  # (the record is written after ready)
        if (await asyncio.to_thread(_walked, cold.cache)):
            break
        await asyncio.sleep(0.05)
    (workspace / "billing" / "refunds.py").write_text("def refund_all():\n    return 0\n")
    (workspace / "auth" / "tokens.py").rename(workspace / "auth" / "tokens2.py")
    for folder in (workspace / "billing", workspace / "auth"):  # (old, yet not as recorded)
        os.utime(folder, ns=(past + 10**10, past + 10**10))
    async with await _start(workspace, cache) as ctx:
        warm = await ctx.status()
        assert warm.files == cold.files + 1
        assert (await ctx.read_symbol("billing/refunds.py", "refund_all")).kind == "function"
        assert (await ctx.read_symbol("auth/tokens2.py", "refresh_token")).kind == "function"
        listed = await ctx.request("workspace/symbol", {"query": "refresh_token"})
        names = {Path(h["location"]["uri"]).name for h in listed}
        assert "tokens2.py" in names and "tokens.py" not in names


def _walked(db: str | None) -> bool:
    import sqlite3

    with contextlib.closing(sqlite3.connect(db or "")) as con:
        return con.execute("SELECT count(*) FROM walked").fetchone()[0] > 0


async def test_a_corrupt_cache_is_rebuilt_not_trusted(workspace: Path, tmp_path: Path) -> None:
    cache = tmp_path / "cache"
    async with await _start(workspace, cache) as ctx:
        db = Path((await ctx.status()).cache or "")
    db.write_bytes(b"this is not a database" * 100)
    async with await _start(workspace, cache) as ctx:
        status = await ctx.status()
        assert status.from_cache == 0 and status.indexed >= 15
        assert (await ctx.skeleton("auth/tokens.py", "refresh_token")).mode == "skeleton"
    async with await _start(workspace, cache) as ctx:
        assert (await ctx.status()).from_cache >= 15  # rebuilt, and good again


def _children(pid: int) -> dict[int, str]:
    """Command lines by pid of every live descendant process but multiprocessing's resource
    tracker (which must outlive the pool's semaphores to unlink them) and the file watcher
    (which lives as long as the server); an exited process not yet reaped (a zombie) is
    gone."""
    out, todo = {}, [pid]
    while todo:
        p = todo.pop()
        try:
            kids = [int(k) for k in Path(f"/proc/{p}/task/{p}/children").read_text().split()]
        except OSError:
            continue
        for k in kids:
            with contextlib.suppress(OSError):
                state = Path(f"/proc/{k}/stat").read_text().rpartition(")")[2].split()[0]
                cmd = Path(f"/proc/{k}/cmdline").read_bytes().replace(b"\0", b" ").decode()
                if state != "Z" and "resource_tracker" not in cmd and "ctxls.watch" not in cmd:
                    out[k] = cmd
        todo.extend(kids)
    return out


async def _exited(pids: list[int], deadline: float) -> None:
    """Wait until every process of ``pids`` has exited (its pidfd becomes readable), for
    ``deadline`` seconds at most."""
    loop = asyncio.get_running_loop()
    for pid in pids:
        try:
            fd = os.pidfd_open(pid)
        except ProcessLookupError:
            continue  # gone already
        done: asyncio.Future[None] = loop.create_future()
        loop.add_reader(fd, lambda f=done: f.done() or f.set_result(None))
        try:
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(done, deadline)
        finally:
            loop.remove_reader(fd)
            os.close(fd)


async def test_a_scan_with_workers_leaves_no_process_behind(tmp_path: Path) -> None:
    root = tmp_path / "many"
    for i in range(400):  # over the pool threshold: the scan forks worker processes
        (root / f"pkg{i % 8}").mkdir(parents=True, exist_ok=True)
        (root / f"pkg{i % 8}" / f"m{i}.py").write_text(f"def f{i}(x):\n    return g(x) + {i}\n")
    async with await CtxClient.start(root, options={"persist": False, "scanProcesses": 2},
                                     wait_for_index=True) as ctx:
        assert (await ctx.status()).indexed == 400
        # The scan is done: the workers and their forkserver are being stopped, and no new
        # process starts. Wait for each to exit, then none may be left.
        await _exited(list(_children(ctx.proc.pid)), deadline=30)
        assert _children(ctx.proc.pid) == {}
        sym = await ctx.read_symbol("pkg7/m399.py", "f399")
        assert sym.kind == "function"  # still serving


async def test_a_cache_deleted_while_the_server_runs_is_opened_again(
        workspace: Path, tmp_path: Path) -> None:
    import shutil
    import sqlite3

    cache = tmp_path / "cache"
    async with await _start(workspace, cache) as ctx:
        db = Path((await ctx.status()).cache or "")
        assert (await ctx.search("compute line total")).hits  # the search index exists too
        shutil.rmtree(cache)  # the folder, the index and the search index, all gone
        new = workspace / "billing" / "fees.py"
        new.write_text("def late_fee(days):\n    return days * 2\n")
        ctx.notify("workspace/didChangeWatchedFiles",
                   {"changes": [{"uri": new.as_uri(), "type": 1}]})
        hits = (await ctx.search("late fee")).hits  # answered after the refresh above
        assert [h.symbol for h in hits][:1] == ["late_fee"]
        assert db.is_file()  # written again, not into an unlinked file
        with sqlite3.connect(db) as check:
            rows = check.execute("SELECT path FROM files").fetchall()
        assert ("billing/fees.py",) in rows


async def test_workers_exit_with_a_server_killed_mid_scan(tmp_path: Path) -> None:
    """However the server ends (here SIGKILL, which runs no cleanup), the scan's workers,
    their forkserver and multiprocessing's resource tracker do not outlive it."""
    import signal
    import sys

    root = tmp_path / "many"
    for i in range(3000):  # a scan of some seconds, with worker processes
        (root / f"pkg{i % 30}").mkdir(parents=True, exist_ok=True)
        (root / f"pkg{i % 30}" / f"m{i}.py").write_text(
            "".join(f"def f{i}_{j}(x):\n    return g(x) + {j}\n\n" for j in range(40)))
    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ctxls", "serve", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.DEVNULL)
    client = CtxClient(proc, root, 60.0)
    await client.request("initialize", {"processId": os.getpid(), "rootUri": root.as_uri(),
                                        "capabilities": {}, "initializationOptions": {
                                            "persist": False, "scanProcesses": 2}})
    client.notify("initialized", {})

    def everything() -> list[int]:  # the resource tracker included
        out, todo = [], [proc.pid]
        while todo:
            p = todo.pop()
            with contextlib.suppress(OSError):
                kids = [int(k) for k in
                        Path(f"/proc/{p}/task/{p}/children").read_text().split()]
                out += kids
                todo += kids
        return out

    loop = asyncio.get_running_loop()
    began = loop.time()
    while len(everything()) < 3:  # the forkserver and two workers are up
        assert loop.time() - began < 30, "the scan started no workers"
        await asyncio.sleep(0.02)
    assert (await client.status()).scanning  # killed in the middle of the scan
    family = everything()
    proc.send_signal(signal.SIGKILL)
    await proc.wait()
    await _exited(family, deadline=15)
    alive = [p for p in family if Path(f"/proc/{p}").exists() and
             Path(f"/proc/{p}/stat").read_text().rpartition(")")[2].split()[0] != "Z"]
    assert alive == []
    for task in client._tasks:
        task.cancel()


async def test_the_file_watcher_ends_with_the_server_however_it_ends(tmp_path: Path) -> None:
    """The watches are set by a child process: it ends when the server shuts down, and
    when the server is killed (SIGKILL runs no cleanup)."""
    import signal

    root = tmp_path / "w"
    root.mkdir()
    (root / "m.py").write_text("def f():\n    return 1\n")

    def watchers(pid: int) -> list[int]:
        kids = Path(f"/proc/{pid}/task/{pid}/children").read_text().split()
        return [int(k) for k in kids
                if b"ctxls.watch" in Path(f"/proc/{k}/cmdline").read_bytes()]

    async def started(ctx: CtxClient) -> list[int]:
        loop = asyncio.get_running_loop()
        began = loop.time()
        while not (found := watchers(ctx.proc.pid)):
            assert loop.time() - began < 30, "no watcher started"
            await asyncio.sleep(0.05)
        return found

    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        first = await started(ctx)
    await _exited(first, deadline=15)
    assert not _alive(first)

    ctx = await CtxClient.start(root, options={"persist": False}, wait_for_index=True)
    second = await started(ctx)
    ctx.proc.send_signal(signal.SIGKILL)
    await ctx.proc.wait()
    await _exited(second, deadline=15)
    assert not _alive(second)
    for task in ctx._tasks:
        task.cancel()


def _alive(pids: list[int]) -> list[int]:
    """Those of ``pids`` still running (an exited process not yet reaped is not)."""
    out = []
    for p in pids:
        with contextlib.suppress(OSError):
            if Path(f"/proc/{p}/stat").read_text().rpartition(")")[2].split()[0] != "Z":
                out.append(p)
    return out
