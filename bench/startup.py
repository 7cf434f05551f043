"""Start-up floor: where the time from spawn to ready goes on an empty workspace.

Prints, each as the median (and best) of ``--runs`` fresh processes, side by side in one run:

  - the bare interpreter (``python -c pass``, with this venv's site);
  - importing lsprotocol's types, and pygls' server (which imports them);
  - importing everything ``ctxls serve`` imports before it reads stdin (with the cache of
    attrs' generated code that the server uses);
  - a real server: spawn -> the ``initialize`` response, and spawn -> ``ctx/status
    {wait: true}`` answered (ready) on an empty workspace.

With ``--workspace ROOT``, also a warm restart on ROOT: one server indexes it into a fresh
cacheDir, then ``--runs`` servers start on it from that cache, spawn -> ready each, and the
median's ratio to the empty workspace's.

The targets (issue 19): spawn -> ready on an empty workspace ≤ 0.5 s, and a warm restart
≤ 1.3x that; the import lines say which part of the floor is whose.

    python bench/startup.py [--runs 7] [--workspace ROOT]
"""

from __future__ import annotations

import argparse
import asyncio
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE.parent / "client"))

from ctxls_client import CtxClient  # noqa: E402

SNIPPETS = {
    "interpreter (python -c pass)": "pass",
    "import lsprotocol.types": "import lsprotocol.types",
    "import pygls.lsp.server": "import pygls.lsp.server",
    "ctxls serve's imports": ("from ctxls.startup import compiled_once\n"
                              "with compiled_once():\n"
                              "    from ctxls.lsp.server import serve"),
}


def timed_process(code: str) -> float:
    began = time.perf_counter()
    subprocess.run([sys.executable, "-c", code], check=True)
    return time.perf_counter() - began


async def timed_server(root: Path, cache: str) -> tuple[float, float]:
    began = time.perf_counter()
    client = await CtxClient.start(root, options={"cacheDir": cache}, timeout=600)
    initialized = time.perf_counter() - began
    await client.status(wait=True)
    ready = time.perf_counter() - began
    await client.close()
    return initialized, ready


def line(name: str, values: list[float]) -> None:
    print(f"  {name:<44} median {statistics.median(values) * 1000:6.0f} ms   "
          f"best {min(values) * 1000:6.0f} ms", flush=True)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--runs", type=int, default=7)
    ap.add_argument("--workspace", type=Path, help="also a warm restart on this folder")
    args = ap.parse_args()
    for code in SNIPPETS.values():  # warm the page cache and the generated-code cache
        timed_process(code)
    print(f"start-up floor, {args.runs} runs each (median, best):")
    for name, code in SNIPPETS.items():
        line(name, [timed_process(code) for _ in range(args.runs)])
    with tempfile.TemporaryDirectory() as empty, tempfile.TemporaryDirectory() as cache:
        asyncio.run(timed_server(Path(empty), cache))  # warm-up
        runs = [asyncio.run(timed_server(Path(empty), cache)) for _ in range(args.runs)]
    line("server: spawn -> initialize answered", [r[0] for r in runs])
    line("server: spawn -> ready (empty workspace)", [r[1] for r in runs])
    ready = statistics.median(r[1] for r in runs)
    print(f"floor {ready:.2f} s against the target 0.5 s: {'met' if ready <= 0.5 else 'missed'}")
    if args.workspace is None:
        return
    root = args.workspace.resolve()
    with tempfile.TemporaryDirectory() as cache:
        cold = asyncio.run(timed_server(root, cache))[1]
        print(f"{root.name}: cold scan, spawn -> ready {cold:.2f} s", flush=True)
        warm = [asyncio.run(timed_server(root, cache))[1] for _ in range(args.runs)]
    line(f"{root.name}: warm restart, spawn -> ready", warm)
    ratio = statistics.median(warm) / ready
    print(f"warm restart / floor: {ratio:.2f}x against the target 1.3x: "
          f"{'met' if ratio <= 1.3 else 'missed'}")


if __name__ == "__main__":
    main()
