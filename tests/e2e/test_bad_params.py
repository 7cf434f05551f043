"""Malformed params get -32602 with a message, never an internal error, and the server keeps
serving: wrong JSON types, lone surrogates, NUL bytes, symlink loops, paths too long, files
that do not exist, and requests before ``initialize``."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxls_client import CtxClient
from ctxls_client.client import RpcError

TOKENS = "auth/tokens.py"


async def error_of(ctx: CtxClient, method: str, params: object) -> RpcError:
    with pytest.raises(RpcError) as caught:
        await ctx.request(method, params)
    err = caught.value
    assert "Traceback" not in err.message and "Traceback" not in str(err.data)
    return err


@pytest.mark.parametrize(("method", "params", "says"), [
    ("ctx/skeleton", {"path": ["auth", "tokens.py"]}, "$.path"),  # not stringified
    ("ctx/skeleton", {"path": {"a": 1}}, "$.path"),
    ("ctx/skeleton", {"path": TOKENS, "lineNumbers": "yes"}, "$.lineNumbers"),
    ("ctx/readRange", {"path": TOKENS, "startLine": "1", "endLine": 2}, "$.startLine"),
    ("ctx/readRange", {"path": TOKENS, "startLine": True, "endLine": 2}, "$.startLine"),
    ("ctx/readSymbol", {"path": "auth/tok\ud800.py", "name": "f"}, "surrogate"),
    ("ctx/recordOutcome", {"runId": "r\udfff", "success": True}, "surrogate"),
    ("ctx/construct", {"path": TOKENS, "target": {"symbol": "refresh_token"},
                       "task": "fix \ud83d"}, "surrogate"),
    ("ctx/construct", {"path": TOKENS, "target": {"symbol": "refresh_token"},
                       "acceptanceCriteria": ["ok", "\udc80"]}, "acceptanceCriteria[1]"),
    ("ctx/skeleton", {"path": "auth/\u0000tokens.py"}, "NUL"),
    ("ctx/skeleton", {"path": "a/" * 600_000}, "longer than 4096 bytes"),
    ("ctx/skeleton", [TOKENS], "must be an object"),
])
async def test_malformed_params_are_invalid_params(ctx: CtxClient, method: str,
                                                   params: object, says: str) -> None:
    err = await error_of(ctx, method, params)
    assert err.code == -32602 and says in err.message
    ok = await ctx.request("ctx/skeleton", {"path": TOKENS})  # still serving
    assert ok["path"] == TOKENS


async def test_a_symlink_loop_is_invalid_params(ctx: CtxClient) -> None:
    os.symlink("loop_b.py", ctx.root / "loop_a.py")
    os.symlink("loop_a.py", ctx.root / "loop_b.py")
    err = await error_of(ctx, "ctx/readRange", {"path": "loop_a.py", "startLine": 1,
                                                "endLine": 1})
    assert err.code == -32602 and "symlink loop" in err.message


@pytest.mark.parametrize("path", ["%2e%2e/auth/tokens.py", "C:\\auth\\tokens.py",
                                  "auth/missing.py"])
async def test_chunks_of_a_file_that_is_not_there_is_an_error(ctx: CtxClient,
                                                              path: str) -> None:
    err = await error_of(ctx, "ctx/chunks", {"path": path})
    assert err.code == -32004 and "does not exist" in err.message


async def test_a_request_before_initialize_is_server_not_initialized(tmp_path: Path) -> None:
    import asyncio
    import sys

    proc = await asyncio.create_subprocess_exec(
        sys.executable, "-m", "ctxls", "serve", stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE)
    client = CtxClient(proc, tmp_path, 30.0)
    try:
        err = await error_of(client, "ctx/skeleton", {"path": TOKENS})
        assert err.code == -32002 and "initialize" in err.message
    finally:
        await client.close()


async def test_a_file_too_large_to_parse_gets_a_bounded_answer(ctx: CtxClient) -> None:
    big = ctx.root / "big.py"
    with big.open("w") as fh:  # 50 MB: over maxFileBytes, under the 64 MiB read limit
        for i in range(500_000):
            fh.write(f"def f{i}(x):\n    return x + {i}  # {'pad' * 20}\n")
    r = await ctx.request("ctx/skeleton", {"path": "big.py", "target": {"symbol": "f7"}})
    assert r["mode"] == "fallback" and r["reason"] == "too-large"
    assert len(r["text"].splitlines()) <= 90
    one_line = ctx.root / "one_line.py"
    one_line.write_text("X = '" + "y" * 5_000_000 + "'\n")
    r = await ctx.request("ctx/readRange", {"path": "one_line.py", "startLine": 1,
                                            "endLine": 3})
    assert len(r["text"]) < 3000 and "more characters]" in r["text"]
    assert any("cut" in n for n in r["notes"])
    ok = await ctx.request("ctx/skeleton", {"path": TOKENS})
    assert ok["mode"] == "skeleton"


async def test_a_missing_file_suggests_the_close_paths(ctx: CtxClient) -> None:
    err = await error_of(ctx, "ctx/readSymbol", {"path": "tokens.py", "name": "refresh_token"})
    assert err.code == -32004
    assert err.message == ("tokens.py does not exist in the workspace; did you mean "
                           "auth/tokens.py, tests/test_tokens.py?")  # the same name first
    assert err.data == {"suggestions": ["auth/tokens.py", "tests/test_tokens.py"]}
    err = await error_of(ctx, "ctx/construct", {"path": "billing/pricng.py",
                                                "target": {"symbol": "compute_line_total"}})
    assert err.code == -32004 and err.data == {"suggestions": ["billing/pricing.py"]}
    err = await error_of(ctx, "ctx/skeleton", {"path": "auth/missing.py"})  # nothing close
    assert err.message == "auth/missing.py does not exist in the workspace"
    assert err.data == {"suggestions": []}
