"""The window as a page (``ctx/page``, ``ctxls construct --html``), loaded by a real
headless Chromium: the DOM it builds is checked against ``ctx/construct``'s own answer, and
a screenshot is taken (into docs/img with CTXLS_UPDATE_DOCS=1)."""

from __future__ import annotations

import json
import os
import shutil
import struct
import subprocess
import sys
from html.parser import HTMLParser
from pathlib import Path
from typing import Any

import pytest

from ctxls_client import CtxClient

DOCS_IMG = Path(__file__).resolve().parents[2] / "docs" / "img"
PARAMS: dict[str, Any] = {"task": "Bulk tiers should stack with coupons up to MAX_DISCOUNT",
                          "ceiling": 4000}


def chromium() -> str:
    found = shutil.which("chromium") or shutil.which("chromium-browser")
    if found is None:
        pytest.fail("chromium is missing: `make test` installs it (scripts/test-deps.sh)")
    return found


def browse(page: Path, *flags: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([chromium(), "--headless", "--no-sandbox", "--disable-gpu",
                           "--hide-scrollbars", *flags, page.as_uri()],
                          capture_output=True, text=True, timeout=120, check=True)


class Dom(HTMLParser):
    """What the browser built: the body's data, each item's data and text, the bar."""

    def __init__(self) -> None:
        super().__init__()
        self.body: dict[str, str | None] = {}
        self.items: list[dict[str, Any]] = []
        self.bar: list[dict[str, str | None]] = []
        self._in_pre = False

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        a = dict(attrs)
        if tag == "body":
            self.body = a
        elif tag == "details" and a.get("class") == "item":
            self.items.append({**a, "text": ""})
        elif tag == "span" and a.get("class") == "role":
            self.bar.append(a)
        elif tag == "pre" and self.items:
            self._in_pre = True

    def handle_endtag(self, tag: str) -> None:
        if tag == "pre":
            self._in_pre = False

    def handle_data(self, data: str) -> None:
        if self._in_pre:
            self.items[-1]["text"] += data


def png_size(path: Path) -> tuple[int, int]:
    head = path.read_bytes()[:24]
    assert head[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", head[16:24])
    return width, height


async def test_the_page_shows_every_item_of_the_window(workspace: Path, tmp_path: Path) -> None:
    async with await CtxClient.start(workspace, wait_for_index=True) as ctx:
        window = await ctx.construct("billing/pricing.py", "compute_line_total", **PARAMS)
        page = await ctx.page("billing/pricing.py", "compute_line_total", **PARAMS)
    assert (page.target, page.token_count, page.ceiling) == (
        window.target, window.token_count, window.ceiling)
    file = tmp_path / "window.html"
    file.write_text(page.html, encoding="utf-8")
    dom = Dom()
    dom.feed(browse(file, "--dump-dom").stdout)
    assert dom.body["data-target"] == window.target
    assert dom.body["data-token-count"] == str(window.token_count)
    assert [i["data-id"] for i in dom.items] == [w.id for w in window.window]
    assert [i["data-role"] for i in dom.items] == [w.role for w in window.window]
    assert [int(i["data-tokens"]) for i in dom.items] == [w.tokens for w in window.window]
    for shown, item in zip(dom.items, window.window, strict=True):
        assert shown["text"] == item.text
    # The bar: one segment per role, adding up to what the items hold.
    roles = {w.role for w in window.window}
    assert {b["data-role"] for b in dom.bar} == roles
    assert sum(int(b["data-tokens"] or 0) for b in dom.bar) == sum(
        w.tokens for w in window.window)

    shot = tmp_path / "window.png"
    browse(file, f"--screenshot={shot}", "--window-size=1200,1400")
    assert png_size(shot) == (1200, 1400) and shot.stat().st_size > 20_000
    if os.environ.get("CTXLS_UPDATE_DOCS") == "1":
        DOCS_IMG.mkdir(parents=True, exist_ok=True)
        shutil.copy(shot, DOCS_IMG / "page.png")


def test_the_cli_writes_the_same_page(workspace: Path, tmp_path: Path) -> None:
    out = tmp_path / "cli.html"
    run = subprocess.run(
        [sys.executable, "-m", "ctxls", "construct", str(workspace / "billing/pricing.py"),
         "--symbol", "compute_line_total", "--task", PARAMS["task"], "--ceiling", "4000",
         "--root", str(workspace), "--html", str(out), "--json"],
        capture_output=True, text=True, timeout=120)
    assert run.returncode == 0, run.stderr
    result = json.loads(run.stdout)
    dom = Dom()
    dom.feed(browse(out, "--dump-dom").stdout)
    assert dom.body["data-token-count"] == str(result["tokenCount"])
    assert [i["data-id"] for i in dom.items] == [w["id"] for w in result["window"]]
