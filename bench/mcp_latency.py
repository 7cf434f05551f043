"""The MCP path against the JSON-RPC path, side by side on one workspace: start-up to the
first answer, and tool-call latency once the index is built.

    .venv/bin/python bench/mcp_latency.py [--root DIR --file F --symbol S --calls N]

Both start a fresh server process (``ctxls mcp`` through the SDK's own client, ``ctxls
serve`` through the project's client) with the persistent index off, so both scan cold. The
first answer is a ``find_references`` (it waits for the scan); then ``read_symbol`` and
``read_range`` calls are timed one after another.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import statistics
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path[:0] = [str(ROOT / "server"), str(ROOT / "client")]

from mcp import Client  # noqa: E402
from mcp.client.stdio import StdioServerParameters  # noqa: E402

from ctxls_client import CtxClient, execute_tool_call  # noqa: E402


def p(xs: list[float], q: float) -> float:
    return sorted(xs)[min(len(xs) - 1, int(q * len(xs)))]


async def over_mcp(root: Path, file: str, symbol: str, calls: int) -> dict[str, float]:
    began = time.perf_counter()
    params = StdioServerParameters(command=sys.executable, args=[
        "-m", "ctxls", "mcp", "--root", str(root), "--options",
        json.dumps({"persist": False, "indexWait": 600})])
    async with Client(params, read_timeout_seconds=900) as client:
        await client.call_tool("find_references", {"path": file, "name": symbol})
        first = time.perf_counter() - began
        times = []
        for i in range(calls):
            t0 = time.perf_counter()
            if i % 2:
                await client.call_tool("read_range", {"path": file, "start_line": 1,
                                                      "end_line": 40})
            else:
                await client.call_tool("read_symbol", {"path": file, "name": symbol})
            times.append(time.perf_counter() - t0)
    return {"first": first, "p50": statistics.median(times), "p95": p(times, 0.95)}


async def over_jsonrpc(root: Path, file: str, symbol: str, calls: int) -> dict[str, float]:
    began = time.perf_counter()
    async with await CtxClient.start(root, options={"persist": False, "indexWait": 600}) as ctx:
        await execute_tool_call(ctx, {"name": "read_symbol", "input": {"path": file,
                                                                       "name": symbol}})
        await ctx.status(wait=True)
        await ctx.references(file, symbol)
        first = time.perf_counter() - began
        times = []
        for i in range(calls):
            t0 = time.perf_counter()
            call = ({"name": "read_range", "input": {"path": file, "start_line": 1,
                                                     "end_line": 40}} if i % 2 else
                    {"name": "read_symbol", "input": {"path": file, "name": symbol}})
            await execute_tool_call(ctx, call)
            times.append(time.perf_counter() - t0)
    return {"first": first, "p50": statistics.median(times), "p95": p(times, 0.95)}


async def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--root", default=str(ROOT / "examples" / "workspace"))
    ap.add_argument("--file", default="billing/pricing.py")
    ap.add_argument("--symbol", default="compute_line_total")
    ap.add_argument("--calls", type=int, default=200)
    a = ap.parse_args()
    root = Path(a.root).resolve()
    m = await over_mcp(root, a.file, a.symbol, a.calls)
    j = await over_jsonrpc(root, a.file, a.symbol, a.calls)
    print(f"{root.name}: {a.calls} calls of read_symbol / read_range on {a.file}")
    print(f"{'':24} {'MCP':>9} {'JSON-RPC':>9} {'ratio':>6}")
    for key, label in (("first", "start to first answer"), ("p50", "tool call p50"),
                       ("p95", "tool call p95")):
        print(f"{label:<24} {m[key] * 1000:>7.1f}ms {j[key] * 1000:>7.1f}ms "
              f"{m[key] / j[key]:>6.2f}")


if __name__ == "__main__":
    asyncio.run(main())
