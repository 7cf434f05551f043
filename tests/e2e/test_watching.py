"""Files created, changed or deleted on disk are seen without the client saying so, when
the client does not watch files itself (the project's own client; Neovim on Linux).

The changes are made by this process on a real filesystem and seen through the server's
inotify watcher; each check asks the server until the change shows or a deadline passes
(there is nothing else to wait on: the watcher tells the client nothing).
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ctxls_client import CtxClient

# seconds: a bound for "never seen", not a speed check (the watcher debounces 0.2 s and a
# change shows inside 2 s on a quiet machine; one full-suite run under load took over 5 s)
DEADLINE = 20.0


async def until(probe: Callable[[], Awaitable[bool]]) -> float:
    """Seconds until ``probe`` is true; fails at the deadline."""
    began = time.perf_counter()
    while not await probe():
        assert time.perf_counter() - began < DEADLINE, "the change was not seen"
        await asyncio.sleep(0.05)
    return time.perf_counter() - began


async def callers(ctx: CtxClient) -> set[str]:
    r: dict[str, Any] = await ctx.request("ctx/references", {
        "path": "billing/pricing.py", "name": "compute_line_total"})
    return {s["path"] for s in r["references"]}


async def test_a_new_a_changed_and_a_deleted_file_are_seen(ctx: CtxClient) -> None:
    new = ctx.root / "billing" / "quote.py"
    new.write_text("from billing.pricing import compute_line_total\n\n\n"
                   "def quote(q, p):\n    return compute_line_total(q, p)\n")

    async def has_new() -> bool:
        return "billing/quote.py" in await callers(ctx)

    await until(has_new)
    new.write_text("def quote(q, p):\n    return q * p\n")  # no longer a caller

    async def no_call() -> bool:
        return "billing/quote.py" not in await callers(ctx)

    await until(no_call)
    new.write_text("from billing.pricing import compute_line_total\n\n\n"
                   "def quote(q, p):\n    return compute_line_total(q, p)\n")
    await until(has_new)
    new.unlink()
    await until(no_call)
    assert "billing/checkout.py" in await callers(ctx)  # the rest is untouched


async def test_a_deleted_folder_takes_its_files_with_it(ctx: CtxClient) -> None:
    extra = ctx.root / "extra"
    extra.mkdir()
    (extra / "use.py").write_text("from billing.pricing import compute_line_total\n\n\n"
                                  "def f():\n    return compute_line_total(1, 2)\n")

    async def seen() -> bool:
        return "extra/use.py" in await callers(ctx)

    await until(seen)
    shutil.rmtree(extra)

    async def gone() -> bool:
        return "extra/use.py" not in await callers(ctx)

    await until(gone)


async def test_ignored_files_stay_out(ctx: CtxClient) -> None:
    (ctx.root / ".gitignore").write_text("scratch/\n")
    for folder in ("scratch", "node_modules"):
        (ctx.root / folder).mkdir()
        (ctx.root / folder / "use.py").write_text(
            "from billing.pricing import compute_line_total\n\n\n"
            "def f():\n    return compute_line_total(1, 2)\n")
    marker = ctx.root / "billing" / "seen.py"  # a change that is not ignored, made after
    marker.write_text("from billing.pricing import compute_line_total\n\n\n"
                      "def g():\n    return compute_line_total(3, 4)\n")

    async def marker_seen() -> bool:
        return "billing/seen.py" in await callers(ctx)

    await until(marker_seen)
    found = await callers(ctx)
    assert "scratch/use.py" not in found and "node_modules/use.py" not in found


async def test_a_checkout_sized_change_is_indexed_again_in_one_batch(ctx: CtxClient) -> None:
    """Hundreds of files changed at once (a `git checkout`) go through worker processes in
    the background; ctx/status counts them, and the index then has every one."""
    before = (await ctx.status()).reindexed
    n = 320  # over the threshold at which worker processes index them
    for i in range(n):
        (ctx.root / "billing" / f"gen_{i:03}.py").write_text(
            "from billing.pricing import compute_line_total\n\n\n"
            f"def gen_{i}(q, p):\n    return compute_line_total(q, p)\n")
    began = time.perf_counter()
    while True:
        status = await ctx.status()
        if status.reindexed - before >= n and status.reindexing == 0:
            break
        assert time.perf_counter() - began < 60, status
        await asyncio.sleep(0.1)
    r = await ctx.request("ctx/references", {"path": "billing/pricing.py",
                                             "name": "compute_line_total", "limit": 1000})
    found = {s["path"] for s in r["references"] if s["path"].startswith("billing/gen_")}
    assert len(found) == n
    assert r["complete"] is True  # nothing left waiting
