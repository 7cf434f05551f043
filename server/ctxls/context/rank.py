"""The one learned step: rank the gate's residue with a single model call.

Fires iff the residue is non-empty and at most 32 items. One request to an OpenAI-
compatible ``{baseUrl}/chat/completions``: temperature 0, 1,024 completion tokens, a JSON
schema for the answer, and a prompt in a fixed order (current obligation,
decision question, residue as ``{id, kind, signature}``: signatures only, never bodies).
Anything but a well-formed ranking of residue ids with scores in [0, 1] is a no-op that
rejects the whole residue: no retry, no second call. The API key is read from the
environment variable the configuration names and goes nowhere but the request header.
"""

from __future__ import annotations

import json
import os
import queue
import threading
import time
from typing import TYPE_CHECKING, Any

import attrs

from ctxls.context.limits import MAX_RESIDUE, MAX_SIGNATURE
from ctxls.context.model import Evidence

if TYPE_CHECKING:
    import httpx

SCHEMA: dict[str, Any] = {
    "type": "object",
    "additionalProperties": False,
    "required": ["rankings"],
    "properties": {"rankings": {
        "type": "array", "maxItems": MAX_RESIDUE,
        "items": {"type": "object", "additionalProperties": False,
                  "required": ["candidate_id", "relevance_score"],
                  "properties": {"candidate_id": {"type": "string"},
                                 "relevance_score": {"type": "number", "minimum": 0,
                                                     "maximum": 1}}}}},
}


@attrs.frozen
class RankingConfig:
    base_url: str
    model: str
    api_key_env: str | None = None
    timeout_s: float = 20.0
    threshold: float = 0.5


@attrs.frozen
class Ranked:
    fired: bool
    scores: dict[str, float] | None  # None: no call, or a call that failed
    reason: str  # why it did not fire, or why its answer was discarded, or "ok"
    latency_ms: float | None = None
    usage: dict[str, int] | None = None
    request: dict[str, Any] | None = attrs.field(default=None, repr=False)


def signature(e: Evidence) -> str:
    """What the model sees of a candidate: its signature or its name, never a body."""
    for name in ("signature", "name", "pointer"):
        if name in e.renderings:
            return e.renderings[name].text.strip()[:MAX_SIGNATURE]
    return f"{e.path or ''} {e.symbol or ''}".strip()[:MAX_SIGNATURE]


def request_body(config: RankingConfig, obligation: str, question: str,
                 residue: list[Evidence]) -> dict[str, Any]:
    """Deterministic: the same decision gives the same bytes."""
    candidates = [{"id": e.id, "kind": e.kind, "signature": signature(e)} for e in residue]
    user = (f"current_obligation:\n{obligation.strip() or '(none given)'}\n\n"
            f"decision_question:\n{question.strip()}\n\n"
            f"residue:\n{json.dumps(candidates, ensure_ascii=False, indent=1)}")
    return {
        "model": config.model,
        "temperature": 0,
        "max_completion_tokens": 1024,
        "max_tokens": 1024,  # for servers that only know the older field
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "ranking", "strict": True, "schema": SCHEMA}},
        "messages": [
            {"role": "system", "content": (
                "You rank candidate context items for one coding decision. Score each "
                "candidate's relevance to the decision from 0 to 1. Answer with JSON only: "
                '{"rankings": [{"candidate_id": "...", "relevance_score": 0.0}]}, using '
                "only the ids given.")},
            {"role": "user", "content": user},
        ],
    }


USAGE_KEYS = ("prompt_tokens", "completion_tokens", "total_tokens")
QUOTE = 40  # characters of what an endpoint said that a reason may quote


def quote(value: Any, secret: str | None = None) -> str:
    """A short, printable excerpt of something an endpoint sent, never a piece of the key
    (an endpoint can echo what it was given)."""
    text = "".join(ch if ch.isprintable() else "?" for ch in repr(value)[: QUOTE + 2])
    if secret and any(text[i : i + 8] in secret for i in range(max(1, len(text) - 7))):
        return "<redacted: it matches the API key>"
    return text if len(text) <= QUOTE else text[: QUOTE - 3] + "..."


def parse(payload: Any, ids: set[str], secret: str | None = None
          ) -> tuple[dict[str, float] | None, str]:
    """The scores in a chat-completions response, or None and what was wrong with it."""
    try:
        content = payload["choices"][0]["message"]["content"]
    except (KeyError, IndexError, TypeError):
        return None, "the response is not a chat completion (no choices[0].message.content)"
    try:
        data = json.loads(content) if isinstance(content, str) else content
    except ValueError as exc:
        return None, f"the answer is not JSON: {exc}"
    if not isinstance(data, dict) or set(data) != {"rankings"} or \
            not isinstance(data["rankings"], list):
        return None, "schema violation: expected exactly {\"rankings\": [...]}"
    if len(data["rankings"]) > MAX_RESIDUE:
        return None, f"schema violation: {len(data['rankings'])} rankings, at most {MAX_RESIDUE}"
    scores: dict[str, float] = {}
    for r in data["rankings"]:
        if not isinstance(r, dict) or set(r) != {"candidate_id", "relevance_score"}:
            return None, "schema violation: a ranking must be {candidate_id, relevance_score}"
        cid, score = r["candidate_id"], r["relevance_score"]
        if not isinstance(cid, str) or cid not in ids:
            return None, f"unknown candidate id {quote(cid, secret)}"
        if isinstance(score, bool) or not isinstance(score, int | float) or \
                not 0 <= score <= 1:
            return None, f"score {quote(score, secret)} for {cid} is outside [0, 1]"
        scores[cid] = float(score)
    return scores, "ok"


def rank(config: RankingConfig | None, obligation: str, question: str,
         residue: list[Evidence]) -> Ranked:
    """At most one call. Every failure is reported, none is retried."""
    if config is None:
        return Ranked(False, None, "no ranking endpoint configured")
    if not residue:
        return Ranked(False, None, "the residue is empty")
    if len(residue) > MAX_RESIDUE:
        return Ranked(False, None, f"the residue has {len(residue)} items, over "
                      f"{MAX_RESIDUE}: rejected without a call")
    body = request_body(config, obligation, question, residue)
    headers = {"Content-Type": "application/json"}
    key = os.environ.get(config.api_key_env) if config.api_key_env else None
    if key:
        headers["Authorization"] = f"Bearer {key}"
    url = f"{config.base_url.rstrip('/')}/chat/completions"
    import httpx  # only when a ranking endpoint is configured: 45 ms of every start-up

    start = time.perf_counter()
    try:
        response = _post(url, body, headers, config.timeout_s)
    except httpx.TimeoutException:
        return Ranked(True, None, f"timed out after {config.timeout_s:g} s", _ms(start),
                      request=body)
    except httpx.HTTPError as exc:  # refused, DNS, TLS: the class says enough, the key stays
        return Ranked(True, None, f"request failed: {type(exc).__name__}", _ms(start),
                      request=body)
    latency = _ms(start)
    if response.status_code != 200:
        return Ranked(True, None, f"HTTP {response.status_code}", latency, request=body)
    try:
        payload = response.json()
    except ValueError:
        return Ranked(True, None, "the response body is not JSON", latency, request=body)
    scores, why = parse(payload, {e.id for e in residue}, key)
    usage = payload.get("usage") if isinstance(payload, dict) else None
    usage = {k: usage[k] for k in USAGE_KEYS if isinstance(usage.get(k), int)
             and not isinstance(usage[k], bool) and 0 <= usage[k] < 10**9} \
        if isinstance(usage, dict) else None
    return Ranked(True, scores, why, latency, usage or None, body)


def _post(url: str, body: dict[str, Any], headers: dict[str, str],
          deadline_s: float) -> httpx.Response:
    """One POST that ends by the deadline, however slowly the endpoint trickles bytes:
    httpx's timeouts bound each read, not the call. The call runs on a thread of its own,
    and at the deadline its connection is closed under it."""
    import httpx

    client = httpx.Client(timeout=deadline_s)
    done: queue.Queue[httpx.Response | BaseException] = queue.Queue()

    def call() -> None:
        try:
            done.put(client.post(url, json=body, headers=headers))
        except BaseException as exc:  # handed to the waiting thread
            done.put(exc)

    threading.Thread(target=call, name="ctxls-ranking", daemon=True).start()
    try:
        got = done.get(timeout=deadline_s)
    except queue.Empty:
        raise httpx.TimeoutException("deadline") from None
    finally:
        client.close()  # ends a call still trickling in; a finished one is read already
    if isinstance(got, BaseException):
        raise got
    return got


def _ms(start: float) -> float:
    return round((time.perf_counter() - start) * 1000, 1)
