"""A long request blocks no other, and a cancelled one answers -32800 at once.

The long request is a ``ctx/construct`` whose one ranking call goes to a real endpoint on
127.0.0.1 that trickles its answer until the call's deadline (3 s): a construct that takes
that long whatever the machine. Meanwhile other requests must come back.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import AsyncIterator, Iterator
from typing import Any

import pytest

from ctxls_client import CtxClient
from ctxls_client.client import RpcError
from tests.e2e.test_ranking import EXAMPLE, HITS, KEY, Endpoint

DEADLINE_S = 3.0


@pytest.fixture
def trickling() -> Iterator[Endpoint]:
    e = Endpoint()
    e.mode = "trickle"
    yield e
    e.server.shutdown()


@pytest.fixture
async def ctx(trickling: Endpoint, monkeypatch: pytest.MonkeyPatch) -> AsyncIterator[CtxClient]:
    monkeypatch.setenv("CTXLS_TEST_KEY", KEY)
    options = {"persist": False, "ranking": {
        "baseUrl": f"http://127.0.0.1:{trickling.port}/v1", "model": "tiny",
        "apiKeyEnv": "CTXLS_TEST_KEY", "timeoutS": DEADLINE_S}}
    client = await CtxClient.start(EXAMPLE, options=options, wait_for_index=True)
    yield client
    await client.close()


LONG: dict[str, Any] = {"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
                        "task": "Show the bulk discount on price labels", "retrieved": HITS}


async def test_reads_are_answered_while_a_long_construct_runs(ctx: CtxClient) -> None:
    began = time.perf_counter()
    long = asyncio.ensure_future(ctx.request("ctx/construct", LONG))
    await asyncio.sleep(0.3)  # the construct is waiting on its endpoint by now
    waits = []
    for i in range(10):
        t0 = time.perf_counter()
        await ctx.request("ctx/skeleton", {"path": "auth/tokens.py"})
        await ctx.request("ctx/status", {})
        await ctx.request("ctx/references", {"path": "billing/pricing.py",
                                             "name": "compute_line_total"})
        waits.append(time.perf_counter() - t0)
        assert not long.done() or i > 0
    window = await long
    assert "timed out after 3 s" in window["ranking"]["reason"]
    assert time.perf_counter() - began >= DEADLINE_S
    assert max(waits) < 1.0  # not queued behind the construct


async def test_a_cancelled_request_answers_at_once(ctx: CtxClient) -> None:
    ctx._next += 1
    request_id = ctx._next
    fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
    ctx._pending[request_id] = fut
    ctx._send({"jsonrpc": "2.0", "id": request_id, "method": "ctx/construct",
               "params": LONG})
    await asyncio.sleep(0.3)
    t0 = time.perf_counter()
    ctx.notify("$/cancelRequest", {"id": request_id})
    with pytest.raises(RpcError) as caught:
        await asyncio.wait_for(fut, 5)
    assert caught.value.code == -32800
    assert time.perf_counter() - t0 < 1.0
    ok = await ctx.request("ctx/skeleton", {"path": "auth/tokens.py"})  # still serving
    assert ok["path"] == "auth/tokens.py"
