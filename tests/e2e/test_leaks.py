"""Nothing outside the workspace is ever read: not through a link swapped in between the
check and the read, not through configuration files that are links out of it.

Each test puts a canary file outside the workspace and checks that its text appears in no
answer, no diagnostic and no note, under real symlinks and a real swapping thread.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import threading
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from ctxls_client import CtxClient
from ctxls_client.client import RpcError
from tests.e2e.conftest import EXAMPLE

CANARY = "CANARY-7f3a-do-not-leak"


@pytest.fixture
def outside(tmp_path: Path) -> Path:
    secret = tmp_path / "outside" / "secret.py"
    secret.parent.mkdir()
    secret.write_text(f"SECRET = '{CANARY}'\n\n\ndef f():\n    return SECRET\n" * 30)
    return secret


@pytest.fixture
def root(tmp_path: Path) -> Path:
    shutil.copytree(EXAMPLE, tmp_path / "ws")
    return tmp_path / "ws"


@pytest.fixture
async def started(root: Path) -> AsyncIterator[CtxClient]:
    client = await CtxClient.start(root, options={"persist": False}, wait_for_index=True)
    yield client
    await client.close()


async def test_a_link_swapped_in_after_the_check_is_not_followed(
        root: Path, outside: Path) -> None:
    swap = root / "swap.py"
    inside_text = "INSIDE = 1\n\n\ndef g():\n    return INSIDE\n" * 30
    swap.write_text(inside_text)
    stop = threading.Event()

    def flip() -> None:  # a file, then a link out of the workspace, then a file again
        tmp = root / ".swap.tmp"
        while not stop.is_set():
            tmp.unlink(missing_ok=True)
            os.symlink(outside, tmp)
            os.replace(tmp, swap)
            tmp.write_text(inside_text)
            os.replace(tmp, swap)

    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        thread = threading.Thread(target=flip, daemon=True)
        thread.start()
        answers = refused = 0
        try:
            for i in range(400):
                method, params = [
                    ("ctx/readRange", {"path": "swap.py", "startLine": 1, "endLine": 20}),
                    ("ctx/skeleton", {"path": "swap.py"}),
                    ("ctx/chunks", {"path": "swap.py"}),
                    ("ctx/readSymbol", {"path": "swap.py", "name": "g", "line": 4}),
                ][i % 4]
                try:
                    got = await ctx.request(method, params)
                    answers += 1
                    assert CANARY not in json.dumps(got), method
                except RpcError as err:
                    refused += 1
                    assert CANARY not in err.message
                    assert err.code in (-32003, -32004, -32001, -32005), err.message
        finally:
            stop.set()
            thread.join()
        assert answers > 0 and answers + refused == 400
        assert (await ctx.status()).files > 0  # still serving


async def test_a_policy_file_that_links_out_is_not_read(root: Path, outside: Path) -> None:
    evil = outside.parent / "policy.yaml"
    evil.write_text(f"version: 1\nexclude:\n  - glob: 'billing/**'\n    reason: {CANARY}\n"
                    f"  - glob: '{CANARY}/**'\n")
    (root / ".agent").mkdir(exist_ok=True)
    os.symlink(evil, root / ".agent" / "context-policy.yaml")
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        window = await ctx.request("ctx/construct", {
            "path": "billing/checkout.py", "target": {"symbol": "Cart.subtotal"}})
        assert CANARY not in json.dumps(window)
        assert any(g["path"] == "billing/pricing.py" and g["decision"] == "admitted"
                   for g in window["gateLog"])  # the outside rule was not applied
        await asyncio.sleep(0)
        shown = [p for m, p in ctx.notifications if m == "textDocument/publishDiagnostics"]
        assert CANARY not in json.dumps(shown)
        assert any("leads outside the workspace" in d["message"]
                   for p in shown for d in p["diagnostics"])


async def test_a_gitignore_that_links_out_is_not_applied(root: Path, outside: Path) -> None:
    ignore = outside.parent / "gitignore"
    ignore.write_text(f"*.py\n# {CANARY}\n")
    os.symlink(ignore, root / "billing" / ".gitignore")
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        found = await ctx.request("ctx/references", {"path": "billing/pricing.py",
                                                     "name": "compute_line_total"})
        assert any(r["path"] == "billing/checkout.py" for r in found["references"])
        status = await ctx.request("ctx/status", {})
        assert CANARY not in json.dumps(status)


async def test_a_link_out_of_the_workspace_is_refused_by_every_reader(
        started: CtxClient, outside: Path) -> None:
    os.symlink(outside, started.root / "link.py")
    for method, params in [
            ("ctx/readRange", {"path": "link.py", "startLine": 1, "endLine": 3}),
            ("ctx/skeleton", {"path": "link.py"}),
            ("ctx/chunks", {"path": "link.py"}),
            ("ctx/construct", {"path": "link.py", "target": {"symbol": "f"}}),
            ("ctx/references", {"path": "link.py", "name": "f"})]:
        with pytest.raises(RpcError) as caught:
            await started.request(method, params)
        assert caught.value.code == -32003 and CANARY not in caught.value.message


async def test_a_listed_file_swapped_for_a_link_out_is_not_read_by_its_key(
        started: CtxClient, outside: Path) -> None:
    """Files the index lists are found by their keys without resolving them again; a file
    replaced by a link out of the workspace after the scan is still refused when a window
    or a search for uses reads it."""
    checkout = started.root / "billing" / "checkout.py"
    outside.write_text(outside.read_text() + checkout.read_text())  # (still a caller)
    checkout.unlink()
    os.symlink(outside, checkout)
    for method, params in [
            ("ctx/references", {"path": "billing/pricing.py", "name": "compute_line_total"}),
            ("ctx/construct", {"path": "billing/pricing.py",
                               "target": {"symbol": "compute_line_total"}}),
            ("textDocument/references", {
                "textDocument": {"uri": (started.root / "billing" / "pricing.py").as_uri()},
                "position": {"line": 0, "character": 0},
                "context": {"includeDeclaration": True}})]:
        try:
            got = await started.request(method, params)
        except RpcError as err:
            assert CANARY not in err.message
            continue
        assert CANARY not in json.dumps(got), method
    assert (await started.status()).files > 0
