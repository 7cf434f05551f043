"""The single ranking call (spec 08 §4) against a real HTTP server on 127.0.0.1.

A stdlib HTTP server in the test process speaks the chat-completions shape and answers
from a script; the ctxls server under test calls it over real sockets (no mock of httpx).
"""

from __future__ import annotations

import json
import socket
import threading
import time
from collections.abc import Iterator
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

import pytest

from ctxls_client import CtxClient

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"
KEY = "sk-test-not-a-real-key-7f3a"


class Endpoint:
    def __init__(self) -> None:
        self.mode = "good"
        self.calls: list[dict[str, Any]] = []
        self.headers: list[dict[str, str]] = []
        endpoint = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args: Any) -> None:
                pass

            def do_POST(self) -> None:
                body = json.loads(self.rfile.read(int(self.headers["Content-Length"])))
                endpoint.calls.append({"path": self.path, "body": body})
                endpoint.headers.append(dict(self.headers))
                residue = json.loads(body["messages"][1]["content"].split("residue:\n", 1)[1])
                ids = [c["id"] for c in residue]
                mode = endpoint.mode
                if mode == "hang":
                    # The behaviour under test, not a wait: an endpoint slower than the
                    # client's timeout (0.5 s in test_a_hang_past_the_timeout).
                    time.sleep(2)
                if mode == "trickle":  # the behaviour under test: headers at 5 bytes a second
                    self.wfile.write(b"HTTP/1.1 200 OK\r\n")
                    for ch in b"Content-Type: application/json\r\n":
                        self.wfile.write(bytes([ch]))
                        self.wfile.flush()
                        time.sleep(0.2)
                    return
                if mode == "500":
                    self.send_response(500)
                    self.end_headers()
                    self.wfile.write(b"boom")
                    return
                content: Any = {
                    "good": {"rankings": [{"candidate_id": ids[0], "relevance_score": 0.9}]
                             + [{"candidate_id": i, "relevance_score": 0.1} for i in ids[1:]]},
                    "schema": {"rankings": [{"candidate_id": ids[0], "score": 1}]},
                    "unknown": {"rankings": [{"candidate_id": "E999", "relevance_score": 1}]},
                    "range": {"rankings": [{"candidate_id": ids[0], "relevance_score": 1.5}]},
                    "echo": {"rankings": [{"candidate_id": self.headers["Authorization"][7:],
                                           "relevance_score": 1}]},
                }.get(mode)
                text = "{not json" if mode == "malformed" else json.dumps(content)
                reply = {"choices": [{"message": {"role": "assistant", "content": text}}],
                         "usage": {"prompt_tokens": 321, "completion_tokens": 12}}
                if mode == "usage":
                    reply["usage"] = {"prompt_tokens": 10**30, "completion_tokens": 12,
                                      KEY: 1, "total_tokens": "x" * 100}
                data = json.dumps(reply).encode()
                self.send_response(200)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = self.server.server_address[1]
        threading.Thread(target=self.server.serve_forever, daemon=True).start()


@pytest.fixture
def endpoint() -> Iterator[Endpoint]:
    e = Endpoint()
    yield e
    e.server.shutdown()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


HITS = [{"path": "billing/ui.py", "symbol": "format_price_label", "score": 0.4},
        {"path": "billing/ui.py", "symbol": "format_discount_badge", "score": 0.3}]


async def construct(port: int, monkeypatch: pytest.MonkeyPatch, retrieved: list[dict[str, Any]],
                    timeout: float = 5.0) -> tuple[dict[str, Any], list[str]]:
    monkeypatch.setenv("CTXLS_TEST_KEY", KEY)
    options = {"persist": False, "ranking": {"baseUrl": f"http://127.0.0.1:{port}/v1",
                                             "model": "tiny", "apiKeyEnv": "CTXLS_TEST_KEY",
                                             "timeoutS": timeout}}
    async with await CtxClient.start(EXAMPLE, options=options, wait_for_index=True) as ctx:
        r = await ctx.request("ctx/construct", {
            "path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
            "task": "Show the bulk discount on price labels", "retrieved": retrieved})
        stderr = list(ctx.stderr)
    return r, stderr


def residue_decisions(r: dict[str, Any]) -> dict[str | None, dict[str, Any]]:
    return {g["symbol"]: g for g in r["gateLog"] if g["kind"] == "retrieved_hit"}


async def test_a_good_ranking_admits_by_threshold(endpoint: Endpoint,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    r, stderr = await construct(endpoint.port, monkeypatch, HITS)
    assert len(endpoint.calls) == 1 and endpoint.calls[0]["path"] == "/v1/chat/completions"
    body = endpoint.calls[0]["body"]
    assert body["temperature"] == 0 and body["max_completion_tokens"] == 1024
    assert body["max_tokens"] == 1024 and body["model"] == "tiny"
    assert body["response_format"]["type"] == "json_schema"
    prompt = body["messages"][1]["content"]
    assert prompt.index("current_obligation") < prompt.index("decision_question") < \
        prompt.index("residue")
    assert "format_price_label" in prompt  # its signature...
    assert "label = format_currency(price)" not in prompt  # ...never its body
    assert endpoint.headers[0]["Authorization"] == f"Bearer {KEY}"
    assert r["ranking"]["fired"] and r["ranking"]["reason"] == "ok"
    assert r["ranking"]["usage"] == {"prompt_tokens": 321, "completion_tokens": 12}
    got = residue_decisions(r)
    assert got["format_price_label"]["decision"] == "residue-admitted"
    assert got["format_price_label"]["driver"] == "ranking"
    assert got["format_discount_badge"]["decision"] == "rejected"
    assert any(w["symbol"] == "format_price_label" for w in r["window"])
    assert not any(w["symbol"] == "format_discount_badge" for w in r["window"])
    assert KEY not in json.dumps(r) and not any(KEY in line for line in stderr)


@pytest.mark.parametrize(("mode", "reason"), [
    ("malformed", "not JSON"), ("schema", "schema violation"),
    ("unknown", "unknown candidate id"), ("range", "outside [0, 1]"), ("500", "HTTP 500")])
async def test_a_bad_answer_rejects_the_residue_after_one_call(
        endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch, mode: str, reason: str) -> None:
    endpoint.mode = mode
    r, _ = await construct(endpoint.port, monkeypatch, HITS)
    assert len(endpoint.calls) == 1  # never a retry
    assert r["ranking"]["fired"] and reason in r["ranking"]["reason"]
    got = residue_decisions(r)
    assert all(g["decision"] == "rejected" and reason in g["reason"] for g in got.values())
    assert not any(w["kind"] == "retrieved_hit" for w in r["window"])


async def test_a_hang_past_the_timeout(endpoint: Endpoint,
                                       monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint.mode = "hang"
    r, _ = await construct(endpoint.port, monkeypatch, HITS, timeout=0.5)
    assert len(endpoint.calls) == 1 and "timed out after 0.5 s" in r["ranking"]["reason"]
    assert all(g["decision"] == "rejected" for g in residue_decisions(r).values())


async def test_a_refused_connection(monkeypatch: pytest.MonkeyPatch) -> None:
    r, _ = await construct(free_port(), monkeypatch, HITS)
    assert r["ranking"]["fired"] and "ConnectError" in r["ranking"]["reason"]
    assert all(g["decision"] == "rejected" for g in residue_decisions(r).values())


async def test_no_call_for_an_empty_or_oversized_residue(endpoint: Endpoint,
                                                         monkeypatch: pytest.MonkeyPatch
                                                         ) -> None:
    r, _ = await construct(endpoint.port, monkeypatch, [])
    assert not r["ranking"]["fired"] and not endpoint.calls
    many = [{"path": "billing/reports.py", "startLine": i, "endLine": i, "score": 0.5}
            for i in range(1, 34)]
    r, _ = await construct(endpoint.port, monkeypatch, many)
    assert not endpoint.calls and "over 32" in r["ranking"]["reason"]
    assert all(g["decision"] == "rejected" for g in r["gateLog"]
               if g["kind"] == "retrieved_hit")


async def test_the_timeout_is_a_deadline_for_the_whole_call(
        endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint.mode = "trickle"  # each byte within any per-read timeout, the whole far past it
    began = time.perf_counter()
    r, _ = await construct(endpoint.port, monkeypatch, HITS, timeout=0.5)
    assert "timed out after 0.5 s" in r["ranking"]["reason"]
    assert r["ranking"]["latencyMs"] < 2000
    assert time.perf_counter() - began < 6  # (the server's start and scan included)


async def test_what_the_endpoint_says_is_quoted_short_and_never_the_key(
        endpoint: Endpoint, monkeypatch: pytest.MonkeyPatch) -> None:
    endpoint.mode = "echo"  # answers the key it was sent as a candidate id
    r, stderr = await construct(endpoint.port, monkeypatch, HITS)
    assert "unknown candidate id <redacted" in r["ranking"]["reason"]
    assert KEY not in json.dumps(r) and not any(KEY in line for line in stderr)
    assert KEY[:12] not in json.dumps(r)
    endpoint.mode = "usage"
    r, _ = await construct(endpoint.port, monkeypatch, HITS)
    assert r["ranking"]["usage"] == {"completion_tokens": 12}
