"""The Python client, the tool-call bridge and the CLI, each against a real server process."""

from __future__ import annotations

import json
import re
import socket
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from ctxls_client import (
    CtxClient,
    RpcError,
    SyncClient,
    anthropic_tool,
    execute_tool_call,
    openai_tool,
)

from .conftest import EXAMPLE


async def test_client_typed_calls(workspace: Path) -> None:
    async with await CtxClient.start(workspace, wait_for_index=True) as ctx:
        status = await ctx.status()
        assert not status.scanning and status.indexed >= 15
        sk = await ctx.skeleton("auth/tokens.py", "refresh_token")
        assert sk.mode == "skeleton" and sk.target == "refresh_token"
        assert "REFRESH_DISABLED" in sk.text
        sym = await ctx.read_symbol("billing/cache.py", "ShardedLRUCache._evict")
        assert sym.kind == "method" and sym.range.start.line == 167
        rng = await ctx.read_range("settings.py", 1, 3)
        assert rng.text.count("\n") == 3 and not rng.truncated
        refs = await ctx.references("billing/pricing.py", "compute_line_total")
        assert refs.complete and {s.path for s in refs.references} >= {"billing/invoice.py"}
        tests = await ctx.tests("auth/tokens.py", "refresh_token")
        assert any(t.symbol == "test_refresh_keeps_live_token" for t in tests.tests)
        deps = await ctx.dependencies("auth/tokens.py", "refresh_token")
        assert any(d.relation == "constant" for d in deps.dependencies)
        with pytest.raises(RpcError) as err:
            await ctx.read_symbol("auth/tokens.py", "refresh_tokn")
        assert err.value.code == -32001 and "refresh_token" in err.value.data["suggestions"]


async def test_tool_calls_in_both_shapes(workspace: Path) -> None:
    schema = openai_tool()["function"]["parameters"]
    assert anthropic_tool()["input_schema"] == schema
    assert schema["required"] == ["path", "name"]
    async with await CtxClient.start(workspace) as ctx:
        openai_call = {"id": "call_1", "type": "function", "function": {
            "name": "read_symbol",
            "arguments": json.dumps({"path": "auth/tokens.py", "name": "mint_token"})}}
        text = await execute_tool_call(ctx, openai_call)
        assert text.startswith("auth/tokens.py :: mint_token (function)")
        assert "def mint_token(" in text and "REFRESH_DISABLED" in text
        anthropic_call = {"type": "tool_use", "id": "t1", "name": "read_symbol",
                          "input": {"path": "auth/tokens.py", "name": "refresh_tokn"}}
        text = await execute_tool_call(ctx, anthropic_call)
        assert text.startswith("error: no symbol `refresh_tokn`") and "refresh_token" in text
        bad = await execute_tool_call(ctx, {"name": "read_symbol", "input": {"file": "x"}})
        assert bad.startswith("error: read_symbol takes")
        broken = await execute_tool_call(ctx, {"function": {"name": "read_symbol",
                                                            "arguments": "{not json"}})
        assert broken.startswith("error: malformed tool call")


def test_sync_client(workspace: Path) -> None:
    with SyncClient(workspace) as ctx:
        assert ctx.skeleton("settings.py").mode == "whole"
        assert ctx.read_symbol("auth/tokens.py", "DEFAULT_TTL").kind == "variable"


def _ctxls(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([sys.executable, "-m", "ctxls", *args], capture_output=True,
                          text=True, timeout=120)


def test_cli_skeleton_read_and_range() -> None:
    root = str(EXAMPLE)
    out = _ctxls("skeleton", f"{root}/auth/tokens.py", "--target", "refresh_token",
                 "--root", root)
    assert out.returncode == 0, out.stderr
    assert "REFRESH_DISABLED = os.environ" in out.stdout and "lines elided" in out.stdout
    assert "skeleton (target)" in out.stderr
    out = _ctxls("read", f"{root}/billing/cache.py", "_evict", "--root", root, "--json")
    assert json.loads(out.stdout)["symbol"] == "ShardedLRUCache._evict"
    out = _ctxls("range", f"{root}/settings.py", "2", "3", "--root", root,
                 "--no-line-numbers")
    assert out.stdout == "".join(
        line + "\n" for line in (EXAMPLE / "settings.py").read_text().splitlines()[1:3])
    out = _ctxls("refs", f"{root}/billing/pricing.py", "compute_line_total", "--root", root)
    assert "billing/checkout.py:36  Cart.subtotal  imported name" in out.stdout.splitlines()
    out = _ctxls("deps", f"{root}/auth/tokens.py", "refresh_token", "--root", root, "--json")
    assert "_mint" in {d["symbol"] for d in json.loads(out.stdout)["dependencies"]}
    out = _ctxls("read", f"{root}/auth/tokens.py", "nope_nothing", "--root", root)
    assert out.returncode == 1 and out.stderr.startswith("ctxls: no symbol `nope_nothing`")
    out = _ctxls("construct", f"{root}/billing/pricing.py", "--symbol", "compute_line_total",
                 "--task", "stack coupons", "--ceiling", "3000", "--root", root)
    assert out.returncode == 0, out.stderr
    assert out.stdout.startswith("### E1 task") and "### E2 target" in out.stdout
    assert "of 3000 tokens" in out.stderr
    out = _ctxls("construct", f"{root}/billing/pricing.py", "--symbol", "compute_line_total",
                 "--intent", "rename", "--json", "--root", root)
    ctx = json.loads(out.stdout)
    assert ctx["intent"] == "rename" and ctx["tokenCount"] <= ctx["ceiling"] == 24000
    out = _ctxls("chunks", f"{root}/billing/cache.py", "--root", root, "--jsonl")
    rows = [json.loads(line) for line in out.stdout.splitlines()]
    evict = next(r for r in rows if r["chunk_id"] == "billing/cache.py::ShardedLRUCache._evict")
    assert {"path", "symbol", "kind", "parents", "start_byte", "end_byte", "language",
            "header_bytes", "granularity", "part", "parts", "tokens", "content_hash",
            "strategy"} <= set(evict)
    assert evict["parents"] == ["ShardedLRUCache"] and evict["granularity"] == "fine"


def _frame(message: dict[str, object]) -> bytes:
    body = json.dumps(message).encode()
    return b"Content-Length: %d\r\n\r\n" % len(body) + body


class _Reader:
    """LSP framing over a socket: messages may arrive split or several at once."""

    def __init__(self, sock: socket.socket) -> None:
        self.sock, self.buf = sock, b""

    def reply(self, msg_id: int) -> dict[str, Any]:
        while True:
            while b"\r\n\r\n" not in self.buf:
                self.buf += self.sock.recv(4096)
            head, _, self.buf = self.buf.partition(b"\r\n\r\n")
            length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                          if line.lower().startswith(b"content-length"))
            while len(self.buf) < length:
                self.buf += self.sock.recv(4096)
            body, self.buf = self.buf[:length], self.buf[length:]
            message: dict[str, Any] = json.loads(body)
            if message.get("id") == msg_id and "method" not in message:
                return message


def _listening(proc: subprocess.Popen[bytes]) -> int:
    """The port the server says it listens on (it is asked for port 0: any free one)."""
    assert proc.stderr is not None
    line = proc.stderr.readline().decode()
    assert line.startswith("ctxls: listening on "), line
    return int(line.rsplit(":", 1)[1])


def _hello(port: int, workspace: Path, msg_id: int = 1) -> tuple[socket.socket, _Reader]:
    sock = socket.create_connection(("127.0.0.1", port), timeout=20)
    sock.sendall(_frame({"jsonrpc": "2.0", "id": msg_id, "method": "initialize", "params": {
        "capabilities": {}, "rootUri": workspace.as_uri()}}))
    return sock, _Reader(sock)


def test_serve_over_tcp_one_client_at_a_time(workspace: Path) -> None:
    proc = subprocess.Popen([sys.executable, "-m", "ctxls", "serve", "--tcp", "127.0.0.1:0"],
                            stderr=subprocess.PIPE)
    try:
        port = _listening(proc)
        sock, reader = _hello(port, workspace)
        with sock:
            assert "capabilities" in reader.reply(1)["result"]
            sock.sendall(_frame({"jsonrpc": "2.0", "method": "initialized", "params": {}}))
            # Twenty more clients, all at once: each is told, and let go, at once.
            others = [_hello(port, workspace, 100 + n) for n in range(20)]
            for n, (other, other_reader) in enumerate(others):
                with other:
                    got = other_reader.reply(100 + n)
                    assert got["error"]["code"] == -32007
                    assert "one client at a time" in got["error"]["message"]
                    other.settimeout(5)
                    rest = other.recv(1 << 16)
                    while rest:  # then the server closes the connection
                        rest = other.recv(1 << 16)
            # The first client's session is untouched by them.
            sock.sendall(_frame({"jsonrpc": "2.0", "id": 2, "method": "ctx/readSymbol",
                                 "params": {"path": "auth/tokens.py", "name": "MAX_SCOPES"}}))
            assert reader.reply(2)["result"]["symbol"] == "MAX_SCOPES"
        assert proc.wait(timeout=20) == 0  # its client gone, the session is over
    finally:
        proc.kill()
        proc.wait()


def _sdk_calls(tool: str, args: dict[str, Any]) -> list[Any]:
    """One call in every shape an agent loop may hand over: the SDKs' own objects, dicts
    and JSON strings of both."""
    from anthropic.types import ToolUseBlock
    from openai.types.chat import ChatCompletionMessageFunctionToolCall

    openai_dict = {"id": "call_1", "type": "function",
                   "function": {"name": tool, "arguments": json.dumps(args)}}
    anthropic_dict = {"type": "tool_use", "id": "t1", "name": tool, "input": args}
    return [ChatCompletionMessageFunctionToolCall.model_validate(openai_dict),
            ToolUseBlock.model_validate(anthropic_dict), openai_dict, anthropic_dict,
            json.dumps(openai_dict), json.dumps(anthropic_dict)]


async def test_tool_calls_as_the_sdks_hand_them_over(workspace: Path) -> None:
    async with await CtxClient.start(workspace) as ctx:
        for call in _sdk_calls("read_symbol", {"path": "auth/tokens.py", "name": "mint_token"}):
            text = await execute_tool_call(ctx, call)
            assert text.startswith("auth/tokens.py :: mint_token (function)"), (call, text)
        for call in _sdk_calls("read_range", {"path": "auth/tokens.py", "start_line": 2,
                                              "end_line": "4"}):
            text = await execute_tool_call(ctx, call)
            want = (workspace / "auth/tokens.py").read_text().splitlines()[1:4]
            assert text.startswith("auth/tokens.py lines 2-4"), text
            shown = [re.sub(r"^ *\d+ \|( |$)", "", line) for line in text.splitlines()[1:]]
            assert shown == want
        for call in _sdk_calls("run_tests", {"path": "auth/tokens.py"}):
            text = await execute_tool_call(ctx, call)
            assert text == "error: there is no tool `run_tests`; the tools are " \
                           "read_symbol, read_range"
        text = await execute_tool_call(ctx, _sdk_calls("read_symbol", {
            "path": "auth/tokens.py", "name": "mint_token", "context_lines": "two"})[1])
        assert text == 'error: `context_lines` must be an integer, got "two"'
        text = await execute_tool_call(ctx, _sdk_calls("read_range", {"path": "a.py"})[0])
        assert text.startswith("error: read_range takes {path, start_line, end_line}")
        assert "`start_line` is missing" in text


def test_the_sync_client_runs_tool_calls(workspace: Path) -> None:
    from ctxls_client import run_tool_call

    with SyncClient(workspace) as ctx:
        text = run_tool_call(ctx, _sdk_calls("read_symbol", {
            "path": "auth/tokens.py", "name": "DEFAULT_TTL"})[0])
        assert text.startswith("auth/tokens.py :: DEFAULT_TTL (variable)")


async def test_strict_schemas_fit_openai_structured_outputs(workspace: Path) -> None:
    from ctxls_client import openai_tools

    tools = openai_tools(strict=True)
    assert [t["function"]["name"] for t in tools] == ["read_symbol", "read_range"]
    for t in tools:
        fn = t["function"]
        params = fn["parameters"]
        assert fn["strict"] is True and params["additionalProperties"] is False
        assert params["required"] == list(params["properties"])  # every property required
        assert not any("default" in p for p in params["properties"].values())
    lines = tools[0]["function"]["parameters"]["properties"]["context_lines"]
    assert lines["type"] == ["integer", "null"]  # optional becomes nullable
    async with await CtxClient.start(workspace) as ctx:  # and null is taken as absent
        text = await execute_tool_call(ctx, _sdk_calls("read_symbol", {
            "path": "auth/tokens.py", "name": "mint_token", "context_lines": None})[0])
        assert text.startswith("auth/tokens.py :: mint_token (function)")


async def test_an_agent_can_offer_construct_context_and_follow_its_handles(
        workspace: Path) -> None:
    """The window the model asks for names what it left out; each handle is a call to a
    tool of the same set, and that call reads the file's own lines."""
    from ctxls_client import AGENT_TOOLS, anthropic_tools, openai_tools

    assert [t["name"] for t in anthropic_tools(AGENT_TOOLS)] == list(AGENT_TOOLS)
    strict = openai_tools(strict=True, tools=AGENT_TOOLS)[0]["function"]["parameters"]
    assert strict["required"] == list(strict["properties"])
    assert strict["properties"]["intent"]["enum"][-1] is None  # nullable enum
    async with await CtxClient.start(workspace) as ctx:
        args = {"path": "billing/pricing.py", "symbol": "compute_line_total",
                "task": "Bulk tiers should stack with coupons", "ceiling": 1200}
        refused = await execute_tool_call(ctx, _sdk_calls("construct_context", args)[1])
        assert refused.startswith("error: there is no tool `construct_context`")
        text = await execute_tool_call(ctx, _sdk_calls("construct_context", args)[1],
                                       tools=AGENT_TOOLS)
        assert text.startswith("# context for billing/pricing.py::compute_line_total: ")
        handles = re.findall(r"^- read_symbol (\S+) (\S+) \(", text, re.M)
        assert handles, text[-800:]
        path, symbol = handles[0]
        got = await execute_tool_call(ctx, {"name": "read_symbol", "input": {
            "path": path, "name": symbol}}, tools=AGENT_TOOLS)
        assert got.startswith(f"{path} :: {symbol} ("), got
        # Its lines are the file's own.
        lines = (workspace / path).read_text(encoding="utf-8").splitlines()
        for m in re.finditer(r"^ *(\d+) \| ?(.*)$", got, re.M):
            assert lines[int(m[1]) - 1].rstrip() == m[2].rstrip()
        wrong = await execute_tool_call(ctx, {"name": "construct_context", "input": {
            **args, "intent": "rewrite"}}, tools=AGENT_TOOLS)
        assert wrong == ('error: `intent` must be one of edit, rename, state, review, got '
                         '"rewrite"')
