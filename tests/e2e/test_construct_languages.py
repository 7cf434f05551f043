"""ctx/construct on every first-class language's reference fixture: the window is built,
fits, puts the target first, and carries the tests the index links to the target."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxls_client import CtxClient

from .conftest import FIXTURES, copy_fixtures

CASES = [  # (fixture root, file, symbol, a test file the window must name, or None)
    ("go/refs", "billing/evict.go", "Evict", "billing/evict_test.go"),
    ("java", "src/main/java/com/example/billing/InvoiceService.java", "draft",
     "src/test/java/com/example/billing/InvoiceServiceTest.java"),
    ("typescript/refs", "src/billing/pricing.ts", "computeLineTotal", None),
    ("rust/refs", "src/billing/cache.rs", "evict", None),
    ("ruby/refs", "lib/billing/ledger.rb", "record", None),
    ("javascript/refs", "money.js", "plus", None),
]


@pytest.mark.parametrize(("root", "path", "symbol", "test_file"), CASES,
                         ids=[c[0].split("/")[0] for c in CASES])
async def test_construct_in_every_language(tmp_path: Path, root: str, path: str, symbol: str,
                                           test_file: str | None) -> None:
    ws = tmp_path / "ws"
    copy_fixtures(FIXTURES / root, ws)
    async with await CtxClient.start(ws, options={"persist": False},
                                     wait_for_index=True) as ctx:
        r = await ctx.request("ctx/construct", {"path": path, "target": {"symbol": symbol},
                                                "task": f"change {symbol}", "ceiling": 3000})
    assert r["tokenCount"] <= 3000 and r["window"]
    target = next(w for w in r["window"] if w["role"] == "target")
    assert target["path"] == path and target["placement"] == "front"
    assert symbol in r["target"]
    source = (ws / path).read_text().splitlines()
    rows = {row for rg in target["shown"] for row in range(rg["start"]["line"],
                                                             rg["end"]["line"] + 1)}
    assert any(symbol in source[row] for row in rows)  # the target's own lines are shown
    tests = [w for w in r["window"] if w["role"] == "tests"]
    if test_file is not None:
        assert any(w["path"] == test_file for w in tests), [w["path"] for w in tests]
    assert any(w["rendering"] == "digest" for w in r["window"])


STATE_CASES = [  # (file, source, target, methods that must travel, one that must not)
    # Each constructor sets only what the target does not touch: it travels as the
    # constructor (the grammar's `constructors`), not as a mutator.
    ("cart.ts",
     "export class Cart {\n  private items: string[] = [];\n  private total = 0;\n"
     "  constructor() {\n    this.total = 1;\n  }\n"
     "  add(sku: string): void {\n    this.items.push(sku);\n  }\n"
     "  clear(): void {\n    this.items = [];\n  }\n"
     "  label(): string {\n    return 'cart';\n  }\n"
     "  count(): number {\n    return this.items.length;\n  }\n}\n",
     "Cart.count", {"Cart.constructor", "Cart.add", "Cart.clear"}, "Cart.label"),
    ("Cart.java",
     "class Cart {\n  private java.util.List<String> items = new java.util.ArrayList<>();\n"
     "  private String name;\n  Cart() {\n    this.name = \"cart\";\n  }\n"
     "  void add(String sku) {\n    this.items.add(sku);\n  }\n"
     "  String label() {\n    return \"cart\";\n  }\n"
     "  int count() {\n    return this.items.size();\n  }\n}\n",
     "Cart.count", {"Cart.Cart", "Cart.add"}, "Cart.label"),
    ("cart.rb",
     "class Cart\n  def initialize\n    @name = 'cart'\n  end\n\n"
     "  def add(sku)\n    @items << sku\n  end\n\n"
     "  def label\n    'cart'\n  end\n\n"
     "  def count\n    @items.size\n  end\nend\n",
     "Cart.count", {"Cart.initialize", "Cart.add"}, "Cart.label"),
]


@pytest.mark.parametrize(("path", "source", "symbol", "want", "not_want"), STATE_CASES,
                         ids=[c[0] for c in STATE_CASES])
async def test_intent_state_in_other_languages(tmp_path: Path, path: str, source: str,
                                               symbol: str, want: set[str],
                                               not_want: str) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / path).write_text(source)
    async with await CtxClient.start(ws, options={"persist": False},
                                     wait_for_index=True) as ctx:
        r = await ctx.request("ctx/construct", {"path": path, "target": {"symbol": symbol},
                                                "intent": "state", "ceiling": 3000})
    state = {w["symbol"] for w in r["window"] if w["provenance"].startswith("03: touches")}
    assert want <= state and not_want not in state, state


async def test_a_language_without_a_reference_table_counts_text_matches(tmp_path: Path
                                                                         ) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "cache.lua").write_text(
        "local limit = 10\n\nfunction evict(xs, n)\n    local dropped = 0\n"
        "    for i = 1, n do\n        if xs[i] > limit then dropped = dropped + 1 end\n"
        "    end\n    return dropped\nend\n\nfunction run()\n    local xs = {1, 20, 30}\n"
        "    return evict(xs, 3)\nend\n")
    (ws / "main.lua").write_text("require('cache')\n\n-- evict drops the big ones\n"
                                 "function main()\n    local xs = {99}\n"
                                 "    return evict(xs, 1)\nend\n")
    async with await CtxClient.start(ws, options={"persist": False},
                                     wait_for_index=True) as ctx:
        r = await ctx.request("ctx/construct", {"path": "cache.lua",
                                                "target": {"symbol": "evict"},
                                                "ceiling": 3000})
    digest = next(w for w in r["window"] if w["rendering"] == "digest")["text"]
    assert "3 unproven name matches" in digest and "text matches" in digest, digest
    gate = [g for g in r["gateLog"] if g["kind"] == "graph_edge" and g["path"] == "main.lua"]
    assert gate and all(g["decision"] == "rejected" for g in gate)  # counted, not shown


async def test_a_file_without_an_outline_gets_a_line_window_and_says_so(tmp_path: Path
                                                                        ) -> None:
    ws = tmp_path / "ws"
    ws.mkdir()
    (ws / "big.py").write_text("".join(f"def f{i}(x):\n    return x + {i}\n\n"
                                       for i in range(400)))
    (ws / "notes.txt").write_text("".join(f"line {i}\n" for i in range(300)))
    async with await CtxClient.start(ws, options={"persist": False, "maxFileBytes": 2000},
                                     wait_for_index=True) as ctx:
        by_name = await ctx.request("ctx/construct", {
            "path": "big.py", "target": {"symbol": "f250"}, "task": "guard f250",
            "ceiling": 2000, "live": [{"kind": "error", "text": "boom"}]})
        by_position = await ctx.request("ctx/construct", {
            "path": "notes.txt", "target": {"position": {"line": 200, "character": 0}}})
        missing = None
        try:
            await ctx.request("ctx/construct", {"path": "big.py",
                                                "target": {"symbol": "nowhere"}})
        except Exception as exc:  # a clear error, and the server keeps serving
            missing = str(exc)
        alive = await ctx.request("ctx/status", {})
    target = next(w for w in by_name["window"] if w["role"] == "target")
    assert "751 | def f250(x):" in target["text"] and target["rendering"] == "verbatim"
    assert any("no outline (too-large)" in n for n in by_name["notes"])
    assert [w["kind"] for w in by_name["window"]][-1] == "error"  # the pipeline still runs
    assert by_name["window"][0]["kind"] == "plan_node" and by_name["tokenCount"] <= 2000
    shown = next(w for w in by_position["window"] if w["role"] == "target")["shown"]
    assert shown[0]["start"]["line"] <= 200 <= shown[0]["end"]["line"]
    assert missing is not None and "no line names `nowhere`" in missing
    assert alive["indexed"] >= 0
