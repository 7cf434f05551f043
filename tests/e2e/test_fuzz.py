"""A seeded fuzzer against the real server: frames, every method's params, and paths.

Several hundred messages, most of them wrong in some way, are written to the server's
stdin in one go. Every request with an id must get exactly one response, its error (if
any) one of the documented codes and never a traceback or an internal error; afterwards
the server must answer a known request exactly as it did before.
"""

from __future__ import annotations

import json
import random
from typing import Any

from tests.e2e.test_transport import Peer, peer  # noqa: F401 - the fixture

DOCUMENTED = {-32700, -32600, -32601, -32602, -32800, -32001, -32002, -32003, -32004,
              -32005, -32006}
METHODS = ["ctx/skeleton", "ctx/readSymbol", "ctx/readRange", "ctx/references", "ctx/tests",
           "ctx/dependencies", "ctx/construct", "ctx/chunks", "ctx/search", "ctx/stats",
           "ctx/status", "ctx/recordOutcome", "textDocument/documentSymbol",
           "textDocument/definition", "textDocument/references", "workspace/symbol"]
FIELDS = ["path", "name", "startLine", "endLine", "target", "task", "intent", "ceiling",
          "live", "retrieved", "query", "limit", "maxTokens", "line", "position", "runId",
          "success", "textDocument", "obligations", "acceptanceCriteria", "reservations",
          "includeText", "lineNumbers", "contextLines", "wait", "timeout", "waitForIndex",
          "context", "symbol", "includeDeclaration", "character"]
PATHS = ["auth/tokens.py", "billing/pricing.py", "../etc/passwd", "/etc/passwd",
         "auth/../../x.py", "auth/\u0000x.py", "a" * 5000, "%2e%2e/auth/tokens.py",
         "C:\\auth\\tokens.py", "auth/tok\ud800.py", "", ".", "auth", "broken/syntax_error.py",
         "build.log", "nope.py", "unicode_names.py"]


def value(rng: random.Random, depth: int = 0) -> Any:
    pick = rng.randrange(12 if depth < 2 else 8)
    if pick == 0:
        return None
    if pick == 1:
        return rng.choice([True, False])
    if pick == 2:
        return rng.choice([0, -1, 1, 7, 2**31, -(2**63), 10**20])
    if pick == 3:
        return rng.choice([1.5, -0.0, 1e308, 3.0])
    if pick in (4, 5):
        return rng.choice([*PATHS, "refresh_token", "Cart.subtotal", "x", "\udfff", "e" * 300])
    if pick in (6, 7):
        return rng.choice([{"symbol": "refresh_token"}, {"line": 3, "character": 4},
                           {"uri": "file:///etc/passwd"}, [], [1, "a"]])
    if pick in (8, 9):
        return [value(rng, depth + 1) for _ in range(rng.randrange(3))]
    return {rng.choice(FIELDS): value(rng, depth + 1) for _ in range(rng.randrange(4))}


# Params that are right, for each method; the fuzzer breaks one field of them at a time, so
# that the deep paths run too, not only the params check.
VALID: dict[str, dict[str, Any]] = {
    "ctx/skeleton": {"path": "auth/tokens.py", "target": {"symbol": "refresh_token"}},
    "ctx/readSymbol": {"path": "billing/cache.py", "name": "ShardedLRUCache._evict",
                       "contextLines": 2},
    "ctx/readRange": {"path": "auth/tokens.py", "startLine": 1, "endLine": 9},
    "ctx/references": {"path": "auth/tokens.py", "name": "refresh_token"},
    "ctx/tests": {"path": "billing/pricing.py", "name": "compute_line_total"},
    "ctx/dependencies": {"path": "billing/pricing.py", "name": "compute_line_total"},
    "ctx/construct": {"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
                      "task": "stack coupons", "ceiling": 3000},
    "ctx/chunks": {"path": "billing/pricing.py"},
    "ctx/search": {"query": "refresh token expiry", "limit": 5},
    "ctx/stats": {},
    "ctx/status": {"wait": False},
    "ctx/recordOutcome": {"runId": "fuzz", "success": True},
    "textDocument/documentSymbol": {"textDocument": {"uri": "auth/tokens.py"}},
    "textDocument/definition": {"textDocument": {"uri": "billing/pricing.py"},
                                "position": {"line": 10, "character": 8}},
    "textDocument/references": {"textDocument": {"uri": "auth/tokens.py"},
                                "position": {"line": 5, "character": 6},
                                "context": {"includeDeclaration": True}},
    "workspace/symbol": {"query": "refresh"},
}


def mutated(rng: random.Random, method: str, root_uri: str) -> dict[str, Any]:
    out = json.loads(json.dumps(VALID[method]))
    doc = out.get("textDocument")
    if doc is not None:
        doc["uri"] = f"{root_uri}/{doc['uri']}"
    roll = rng.random()
    if roll < 0.3 and out:
        out[rng.choice(sorted(out))] = value(rng)
    elif roll < 0.55 and "path" in out:
        out["path"] = rng.choice(PATHS)
    elif roll < 0.7 and doc is not None:
        doc["uri"] = f"{root_uri}/{rng.choice(PATHS)}"
    elif roll < 0.85:
        out[rng.choice(FIELDS)] = value(rng)
    return out  # else left right: it must succeed


def params(rng: random.Random, method: str, root_uri: str) -> Any:
    if rng.random() < 0.5:
        return mutated(rng, method, root_uri)
    if rng.random() < 0.1:
        return value(rng)
    out: dict[str, Any] = {}
    for _ in range(rng.randrange(6)):
        out[rng.choice(FIELDS)] = value(rng)
    if rng.random() < 0.5:
        out["path"] = rng.choice(PATHS)
    if rng.random() < 0.3:
        out["textDocument"] = {"uri": f"{root_uri}/{rng.choice(PATHS)}"}
    return out


def notification(rng: random.Random, root_uri: str) -> dict[str, Any]:
    """Document sync, right or wrong: ranges past the end, versions backwards, a close of
    what was never opened, garbage. (Only billing/cache.py is opened: the skeleton of
    auth/tokens.py is compared at the end.)"""
    doc = {"uri": f"{root_uri}/billing/cache.py", "version": rng.randrange(-2, 50)}
    pos = lambda: {"line": rng.choice([0, 3, 10**6, -1]),  # noqa: E731
                   "character": rng.choice([0, 2, 10**6])}
    method, params = rng.choice([
        ("textDocument/didOpen", {"textDocument": {**doc, "languageId": "python",
                                                   "text": rng.choice(["x = 1\n", "def (:\n",
                                                                       "\udcff\n", ""])}}),
        ("textDocument/didChange", {"textDocument": doc, "contentChanges": [
            {"range": {"start": pos(), "end": pos()}, "text": rng.choice(["y", "\n", ""])}]}),
        ("textDocument/didChange", {"textDocument": doc, "contentChanges": [{"text": "z\n"}]}),
        ("textDocument/didClose", {"textDocument": {"uri": doc["uri"]}}),
        ("textDocument/didChange", value(rng)),
        ("workspace/didChangeWatchedFiles", {"changes": [
            {"uri": f"{root_uri}/{rng.choice(PATHS)}", "type": rng.choice([1, 2, 3, 9])}]}),
    ])
    return {"jsonrpc": "2.0", "method": method, "params": params}


def framed(rng: random.Random, body: bytes) -> bytes:
    """One frame, its header written in one of the ways peers write it."""
    head = rng.choice([b"Content-Length: %d\r\n\r\n", b"content-length: %d\r\n\r\n",
                       b"Content-Length: %d\n\n", b"CONTENT-LENGTH:%d\r\n\r\n",
                       b"Content-Length: %d\r\nContent-Type: application/vscode-jsonrpc; "
                       b"charset=utf-8\r\n\r\n",
                       b"Content-Type: application/json\r\nContent-Length: %d\r\n\r\n"])
    return head % len(body) + body


async def test_a_fuzzed_stream_gets_an_answer_for_every_request(peer: Peer) -> None:  # noqa: F811
    rng = random.Random(20261201)
    root_uri = peer.root.as_uri()  # type: ignore[attr-defined]
    before = await peer.ask(1, "ctx/skeleton", {"path": "auth/tokens.py"})
    ids: list[int] = []
    garbled = 0
    blob = bytearray()
    for n in range(600):
        rid = 1000 + n
        method = rng.choice(METHODS)
        message = {"jsonrpc": "2.0", "id": rid, "method": method,
                   "params": params(rng, method, root_uri)}
        ids.append(rid)
        blob += framed(rng, json.dumps(message).encode())
        roll = rng.random()
        if roll < 0.05:  # a notification: no answer expected
            blob += framed(rng, json.dumps(notification(rng, root_uri)).encode())
        elif roll < 0.08:  # a body that is no JSON: -32700, id null
            blob += framed(rng, rng.choice([b"{", b"\xff\xfe", b"[1,", b"nul", b"{}}"]))
            garbled += 1
        elif roll < 0.1:  # JSON but no message: -32600, id null
            blob += framed(rng, rng.choice([b"[]", b"42", b'"x"', b'{"jsonrpc": "2.0"}']))
            garbled += 1
    peer.send(bytes(blob))
    seen: dict[int, dict[str, Any]] = {}
    for rid in ids:
        got = await peer.reply(rid, timeout=30)
        seen[rid] = got
        text = json.dumps(got)
        leaked = "Traceback" in text or 'File "/' in text  # (a plain bool: pytest's
        assert not leaked, text[:500]                       # diff of a long text is slow)
        if "error" in got:
            assert got["error"]["code"] in DOCUMENTED, got
    assert len(seen) == len(ids)
    nulls = [m for m in peer.inbox if "id" in m and m["id"] is None]
    assert len(nulls) == garbled
    assert {m["error"]["code"] for m in nulls} <= {-32700, -32600}
    assert not [m for m in peer.inbox if "id" in m and m["id"] in seen]  # one answer each
    after = await peer.ask(2, "ctx/skeleton", {"path": "auth/tokens.py"})
    same = after["result"] == before["result"]
    assert same
    log = peer.stderr.decode(errors="replace")
    faults = [line for line in log.splitlines() if "Traceback" in line or "Error:" in line]
    assert not faults, faults[:5]  # no handler failed: wrong input is dropped in one line
