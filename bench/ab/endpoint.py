"""One OpenAI-compatible chat-completions endpoint: ``POST {base_url}/chat/completions``.

The key goes in the ``Authorization`` header and nowhere else; every text this module
returns (answers, errors) has it replaced by ``***`` in case an endpoint echoes it (keys of
8 characters or more; a shorter one is a local server's placeholder).
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from typing import Any

import httpx

RETRY_STATUS = {408, 409, 429, 500, 502, 503, 504}
MIN_REDACT = 8


@dataclass
class Reply:
    text: str | None  # None when the call failed
    usage: dict[str, Any] | None
    error: str | None
    seconds: float
    attempts: int


class ChatEndpoint:
    def __init__(self, base_url: str, model: str, key: str, *, timeout: float = 300,
                 max_tokens: int | None = 4096, temperature: float | None = 0,
                 extra_body: dict[str, Any] | None = None, retries: int = 2) -> None:
        self.url = base_url.rstrip("/") + "/chat/completions"
        self.model = model
        self._key = key
        self.max_tokens = max_tokens
        self.temperature = temperature
        self.extra_body = extra_body or {}
        self.retries = retries
        self._http = httpx.Client(timeout=httpx.Timeout(timeout, connect=min(timeout, 20.0)),
                                  headers={"Authorization": f"Bearer {key}"})

    def close(self) -> None:
        self._http.close()

    def redact(self, text: str) -> str:
        """``text`` with the key replaced; a key under 8 characters (a local server's
        placeholder, ``x``) is left alone, since replacing it would garble answers."""
        return text.replace(self._key, "***") if len(self._key) >= MIN_REDACT else text

    def body(self, prompt: str) -> dict[str, Any]:
        body: dict[str, Any] = {"model": self.model,
                                "messages": [{"role": "user", "content": prompt}]}
        if self.temperature is not None:
            body["temperature"] = self.temperature
        if self.max_tokens is not None:
            body["max_tokens"] = self.max_tokens
        for key, value in self.extra_body.items():  # null removes a field
            if value is None:
                body.pop(key, None)
            else:
                body[key] = value
        return body

    def complete(self, prompt: str) -> Reply:
        start = time.perf_counter()
        error = "no attempt made"
        for attempt in range(1, self.retries + 2):
            retry_after = 2.0 ** attempt
            try:
                resp = self._http.post(self.url, json=self.body(prompt))
            except httpx.HTTPError as exc:
                error = f"{type(exc).__name__}: {exc}"
            else:
                if resp.status_code == 200:
                    return self._parse(resp, start, attempt)
                error = f"HTTP {resp.status_code}: {resp.text[:500]}"
                if resp.status_code not in RETRY_STATUS:
                    break
                header = resp.headers.get("retry-after", "")
                if header.replace(".", "", 1).isdigit():
                    retry_after = min(float(header), 60.0)
            if attempt <= self.retries:
                time.sleep(retry_after)
        return Reply(None, None, self.redact(error), round(time.perf_counter() - start, 2),
                     attempt)

    def _parse(self, resp: httpx.Response, start: float, attempt: int) -> Reply:
        seconds = round(time.perf_counter() - start, 2)
        try:
            data = resp.json()
            message = data["choices"][0]["message"]
            content = message.get("content")
        except (ValueError, KeyError, IndexError, TypeError) as exc:
            return Reply(None, None, self.redact(f"unexpected answer ({exc}): "
                                                 f"{resp.text[:500]}"), seconds, attempt)
        if isinstance(content, list):  # content parts
            content = "".join(p.get("text", "") for p in content if isinstance(p, dict))
        usage = data.get("usage") if isinstance(data.get("usage"), dict) else None
        return Reply(self.redact(content or ""), usage, None, seconds, attempt)
