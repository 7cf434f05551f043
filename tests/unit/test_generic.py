"""Languages without a grammars/ folder: generic outline, fallback mode, and plain text."""

from __future__ import annotations

from pathlib import Path

from ctxls import protocol as p
from ctxls.requests.read import skeleton
from ctxls.syntax import languages
from ctxls.workspace import Workspace

LUA_SOURCE = """local counter = 0

local function point(x, y)
    local p = { x = x, y = y }
    counter = counter + 1
    return p
end

function add(a, b)
    local c = a + b
    counter = counter + 1
    return c
end
"""


def _workspace(tmp_path: Path) -> Workspace:
    (tmp_path / "a.lua").write_text(LUA_SOURCE)
    (tmp_path / "notes.xyz").write_text("\n".join(f"line {i}" for i in range(200)) + "\n")
    (tmp_path / "core.clj").write_text("(ns core)\n(defn f [x] (inc x))\n")
    return Workspace([tmp_path])


def test_generic_query_keeps_only_patterns_the_grammar_has() -> None:
    lua = languages.for_path("x.lua")
    assert lua is not None and lua.generic and lua.name == "lua"
    assert languages.for_path("x.c") is not None and not languages.for_path("x.c").generic
    assert languages.for_path("x.py") is not None and not languages.for_path("x.py").generic
    assert languages.for_path("x.unknownext") is None


def test_generic_skeleton_is_a_marked_fallback(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    ws.options.whole_max_lines = ws.options.whole_max_tokens = 0
    ws.options.flat_ratio = 0
    r = skeleton(ws.snapshot(), p.SkeletonParams(path="a.lua", target=p.Target(symbol="point")))
    assert r.mode == "fallback" and r.reason.startswith("generic-grammar: lua has no grammars/")
    assert "-- 3 lines elided" in r.text and r.target == "point"
    lua = languages.for_path("a.lua")
    assert lua is not None
    bare = skeleton(ws.snapshot(), p.SkeletonParams(path="a.lua", line_numbers=False))
    assert not lua.parser().parse(bare.text.encode()).root_node.has_error


def test_no_declarations_and_unknown_extensions_get_line_windows(tmp_path: Path) -> None:
    ws = _workspace(tmp_path)
    r = skeleton(ws.snapshot(), p.SkeletonParams(path="core.clj"))
    assert r.mode == "fallback" and "found no declarations" in r.reason
    r = skeleton(ws.snapshot(), p.SkeletonParams(path="notes.xyz"))
    assert (r.mode, r.reason) == ("fallback", "unsupported-language")
    assert r.text.splitlines()[0] == "  1 | line 0" and "lines elided" in r.text
