"""An asyncio JSON-RPC client for ``ctxls serve`` over stdio, and a small sync facade.

Hand-rolled rather than pygls's client: results of custom methods come back as plain JSON here
(pygls turns them into namedtuples), stderr is drained so a chatty server cannot block on a
full pipe, and every request has a timeout so a lost reply cannot hang an agent.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

from lsprotocol.converters import get_converter

from ctxls import protocol as p

T = TypeVar("T")
_converter = get_converter()


class RpcError(Exception):
    """A JSON-RPC error answer: ``code``, ``message`` and optional ``data``."""

    def __init__(self, code: int, message: str, data: Any = None) -> None:
        super().__init__(f"[{code}] {message}")
        self.code = code
        self.message = message
        self.data = data


def _clean(obj: Any) -> Any:
    if isinstance(obj, dict):
        return {k: _clean(v) for k, v in obj.items() if v is not None}
    if isinstance(obj, list):
        return [_clean(v) for v in obj]
    return obj


class CtxClient:
    """One server process for one workspace root."""

    def __init__(self, proc: asyncio.subprocess.Process, root: Path, timeout: float) -> None:
        self.proc = proc
        self.root = root
        self.timeout = timeout
        self._next = 0
        self._pending: dict[int, asyncio.Future[Any]] = {}
        self.notifications: list[tuple[str, Any]] = []
        self.stderr: list[str] = []
        self.on_notification: Callable[[str, Any], None] | None = None
        self._tasks = [asyncio.create_task(self._read()), asyncio.create_task(self._drain())]

    # ---- lifecycle ---------------------------------------------------------------------
    @classmethod
    async def start(cls, root: str | os.PathLike[str], *, options: dict[str, Any] | None = None,
                    wait_for_index: bool = False, command: list[str] | None = None,
                    position_encodings: list[str] | None = None,
                    timeout: float = 60.0) -> CtxClient:
        root_path = Path(root).resolve()
        proc = await asyncio.create_subprocess_exec(
            *(command or [sys.executable, "-m", "ctxls", "serve"]),
            stdin=asyncio.subprocess.PIPE, stdout=asyncio.subprocess.PIPE,
            stderr=asyncio.subprocess.PIPE, limit=1 << 24)
        client = cls(proc, root_path, timeout)
        await client.request("initialize", {
            "processId": os.getpid(),
            "rootUri": root_path.as_uri(),
            "workspaceFolders": [{"uri": root_path.as_uri(), "name": root_path.name}],
            "capabilities": {"general": {"positionEncodings": position_encodings or ["utf-16"]},
                             "window": {"workDoneProgress": True}},
            "initializationOptions": options or {},
        })
        client.notify("initialized", {})
        if wait_for_index:
            await client.status(wait=True)
        return client

    async def close(self) -> None:
        if self.proc.returncode is None:
            with contextlib.suppress(Exception):
                await self.request("shutdown", None, timeout=5)
                self.notify("exit", None)
            try:
                await asyncio.wait_for(self.proc.wait(), 5)
            except TimeoutError:
                self.proc.kill()
                await self.proc.wait()
        for task in self._tasks:
            task.cancel()

    async def __aenter__(self) -> CtxClient:
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    # ---- transport ---------------------------------------------------------------------
    def _send(self, message: dict[str, Any]) -> None:
        body = json.dumps(message).encode("utf-8")
        assert self.proc.stdin is not None
        self.proc.stdin.write(b"Content-Length: %d\r\n\r\n" % len(body) + body)

    def notify(self, method: str, params: Any) -> None:
        self._send({"jsonrpc": "2.0", "method": method, "params": params})

    async def request(self, method: str, params: Any, timeout: float | None = None) -> Any:
        self._next += 1
        msg_id = self._next
        fut: asyncio.Future[Any] = asyncio.get_running_loop().create_future()
        self._pending[msg_id] = fut
        self._send({"jsonrpc": "2.0", "id": msg_id, "method": method, "params": params})
        try:
            return await asyncio.wait_for(fut, timeout or self.timeout)
        finally:
            self._pending.pop(msg_id, None)

    async def _read(self) -> None:
        out = self.proc.stdout
        assert out is not None
        try:
            while True:
                length = 0
                while True:
                    line = await out.readline()
                    if not line:
                        raise EOFError
                    if line in (b"\r\n", b"\n"):
                        break
                    name, _, value = line.decode("ascii").partition(":")
                    if name.strip().lower() == "content-length":
                        length = int(value)
                self._dispatch(json.loads(await out.readexactly(length)))
        except (EOFError, asyncio.IncompleteReadError, asyncio.CancelledError):
            err = RpcError(-32099, "server exited: " + " | ".join(self.stderr[-5:]))
            for fut in self._pending.values():
                if not fut.done():
                    fut.set_exception(err)

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "method" in msg:
            if "id" in msg:  # a request from the server: progress tokens, registrations
                self._send({"jsonrpc": "2.0", "id": msg["id"], "result": None})
                return
            self.notifications.append((msg["method"], msg.get("params")))
            if self.on_notification:
                self.on_notification(msg["method"], msg.get("params"))
            return
        fut = self._pending.get(msg.get("id", -1))
        if fut is None or fut.done():
            return
        if "error" in msg:
            e = msg["error"]
            fut.set_exception(RpcError(e.get("code", 0), e.get("message", ""), e.get("data")))
        else:
            fut.set_result(msg.get("result"))

    async def _drain(self) -> None:
        err = self.proc.stderr
        assert err is not None
        while line := await err.readline():
            self.stderr.append(line.decode("utf-8", errors="replace").rstrip())
            del self.stderr[:-200]

    # ---- typed calls -------------------------------------------------------------------
    async def _call(self, method: str, params: Any, cls: type[T]) -> T:
        raw = await self.request(method, _clean(_converter.unstructure(params)))
        return _converter.structure(raw, cls)

    def _where(self, path: str | os.PathLike[str]) -> str:
        return str(Path(path)) if Path(path).is_absolute() else str(path)

    async def skeleton(self, path: str | os.PathLike[str], target: str | None = None, *,
                       position: tuple[int, int] | None = None,
                       line_numbers: bool | None = None) -> p.SkeletonResult:
        from lsprotocol.types import Position

        tgt = None
        if target is not None or position is not None:
            tgt = p.Target(symbol=target, position=Position(*position) if position else None)
        return await self._call(p.SKELETON, p.SkeletonParams(
            path=self._where(path), target=tgt, line_numbers=line_numbers), p.SkeletonResult)

    async def read_symbol(self, path: str | os.PathLike[str], name: str, *,
                          include_header: bool = True, context_lines: int = 0,
                          line: int | None = None) -> p.ReadSymbolResult:
        return await self._call(p.READ_SYMBOL, p.ReadSymbolParams(
            name=name, path=self._where(path), include_header=include_header,
            context_lines=context_lines, line=line), p.ReadSymbolResult)

    async def read_range(self, path: str | os.PathLike[str], start_line: int,
                         end_line: int) -> p.ReadRangeResult:
        return await self._call(p.READ_RANGE, p.ReadRangeParams(
            start_line=start_line, end_line=end_line, path=self._where(path)), p.ReadRangeResult)

    async def references(self, path: str | os.PathLike[str], name: str, *,
                         include_candidates: bool = True, limit: int = 200,
                         line: int | None = None) -> p.ReferencesResult:
        return await self._call(p.REFERENCES, p.ReferencesParams(
            path=self._where(path), name=name, include_candidates=include_candidates,
            limit=limit, line=line), p.ReferencesResult)

    async def tests(self, path: str | os.PathLike[str], name: str,
                    line: int | None = None) -> p.TestsResult:
        return await self._call(p.TESTS, p.SymbolParams(name=name, path=self._where(path),
                                                        line=line), p.TestsResult)

    async def dependencies(self, path: str | os.PathLike[str], name: str,
                           line: int | None = None) -> p.DependenciesResult:
        return await self._call(p.DEPENDENCIES, p.SymbolParams(
            name=name, path=self._where(path), line=line), p.DependenciesResult)

    async def construct(self, path: str | os.PathLike[str], symbol: str, *, task: str = "",
                        intent: str = "edit", ceiling: int | None = None,
                        obligations: list[p.Obligation] | None = None,
                        acceptance_criteria: list[str] | None = None,
                        live: list[p.LiveItem] | None = None,
                        retrieved: list[p.RetrievedHit] | None = None,
                        reservations: dict[str, int] | None = None,
                        line: int | None = None) -> p.DecisionContext:
        """The context window for one decision about ``symbol`` (``ctx/construct``)."""
        return await self._call(p.CONSTRUCT, p.ConstructParams(
            path=self._where(path), target=p.Target(symbol=symbol, line=line), task=task,
            intent=intent, ceiling=ceiling, obligations=obligations or [],
            acceptance_criteria=acceptance_criteria or [], live=live or [],
            retrieved=retrieved or [], reservations=reservations), p.DecisionContext)

    async def page(self, path: str | os.PathLike[str], symbol: str, *, task: str = "",
                   intent: str = "edit", ceiling: int | None = None,
                   line: int | None = None) -> p.PageResult:
        """The window for ``symbol`` as a self-contained HTML page (``ctx/page``)."""
        return await self._call(p.PAGE, p.ConstructParams(
            path=self._where(path), target=p.Target(symbol=symbol, line=line), task=task,
            intent=intent, ceiling=ceiling), p.PageResult)

    async def chunks(self, path: str | os.PathLike[str] | None = None, *,
                     max_tokens: int = 8192, include_text: bool = True) -> p.ChunksResult:
        """Symbol chunks with their lineage, of one file or of the whole index."""
        return await self._call(p.CHUNKS, p.ChunksParams(
            path=self._where(path) if path is not None else None, max_tokens=max_tokens,
            include_text=include_text), p.ChunksResult)

    async def search(self, query: str, limit: int = 10) -> p.SearchResult:
        """BM25 over the workspace's symbol chunks (``ctx/search``)."""
        return await self._call(p.SEARCH, p.SearchParams(query=query, limit=limit),
                                p.SearchResult)

    async def stats(self, max_tokens: int = 8192) -> dict[str, Any]:
        """Index metrics: files by language, parse success, chunk sizes (``ctx/stats``)."""
        result: dict[str, Any] = await self.request(p.STATS, {"maxTokens": max_tokens},
                                                    timeout=600)
        return result

    async def status(self, wait: bool = False, timeout: float = 600.0) -> p.StatusResult:
        raw = await self.request(p.STATUS, {"wait": wait, "timeout": timeout},
                                 timeout=timeout + 5)
        return _converter.structure(raw, p.StatusResult)

    async def document_symbols(self, path: str | os.PathLike[str]) -> Any:
        uri = (self.root / path).resolve().as_uri()
        return await self.request("textDocument/documentSymbol", {"textDocument": {"uri": uri}})


class SyncClient:
    """Blocking facade over ``CtxClient`` for scripts and agents without an event loop."""

    def __init__(self, root: str | os.PathLike[str], **kwargs: Any) -> None:
        self._loop = asyncio.new_event_loop()
        self._client = self._loop.run_until_complete(CtxClient.start(root, **kwargs))

    def __getattr__(self, name: str) -> Any:
        attr = getattr(self._client, name)
        if not callable(attr):
            return attr

        def call(*args: Any, **kwargs: Any) -> Any:
            result = attr(*args, **kwargs)
            return self._loop.run_until_complete(result) if asyncio.iscoroutine(result) else result

        return call

    def close(self) -> None:
        self._loop.run_until_complete(self._client.close())
        self._loop.close()

    def __enter__(self) -> SyncClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()
