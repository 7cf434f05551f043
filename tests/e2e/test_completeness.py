"""`complete` over the real server: true only when every same-named use was resolved one
way or the other; a use left open is a candidate, and the note says what stopped it."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from ctxls_client import CtxClient


async def _refs(tmp_path: Path, files: dict[str, str], path: str, name: str,
                construct: bool = False) -> tuple[dict[str, Any], dict[str, Any] | None]:
    root = tmp_path / "ws"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text, encoding="utf-8")
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        r = await ctx.request("ctx/references", {"path": path, "name": name})
        window = await ctx.request("ctx/construct", {
            "path": path, "target": {"symbol": name}, "task": f"change {name}",
            "ceiling": 3000}) if construct else None
    return r, window


def _sites(r: dict[str, Any], key: str = "references") -> set[tuple[str, int]]:
    return {(s["path"], s["range"]["start"]["line"] + 1) for s in r[key]}


async def test_ts_barrel_re_exports_resolve(tmp_path: Path) -> None:
    r, _ = await _refs(tmp_path, {
        "src/lib/price.ts": "export function total(a: number): number {\n  return a;\n}\n",
        "src/lib/index.ts": "export * from './price';\nexport { total as sum } from './price';\n",
        "src/app.ts": ("import { total, sum } from './lib/index';\nimport * as lib from './lib';\n"
                       "export function run(): number {\n"
                       "  return total(1) + sum(2) + lib.total(3);\n}\n"),
    }, "src/lib/price.ts", "total")
    assert len(r["references"]) == 3 and _sites(r) == {("src/app.ts", 4)}
    assert r["complete"] is True and r["notes"] == [] and r["candidates"] == []


async def test_ts_barrel_that_leaves_the_workspace_is_not_complete(tmp_path: Path) -> None:
    # `@lib/price` is a tsconfig path alias: a package as far as the index knows
    r, _ = await _refs(tmp_path, {
        "src/lib/price.ts": "export function total(a: number): number {\n  return a;\n}\n",
        "src/lib/index.ts": "export * from '@lib/price';\n",
        "src/app.ts": ("import { total } from './lib/index';\n\n"
                       "export const run = () => total(1);\n"),
    }, "src/lib/price.ts", "total")
    assert r["references"] == [] and _sites(r, "candidates") == {("src/app.ts", 3)}
    assert r["complete"] is False
    assert ("incomplete: 1 use of total could not be resolved (import not followed: 1); "
            "see candidates") in r["notes"]


async def test_rust_crate_and_super_paths_resolve(tmp_path: Path) -> None:
    r, _ = await _refs(tmp_path, {
        "src/lib.rs": ("pub mod billing;\n\npub fn run() {\n"
                       "    crate::billing::cache::evict();\n}\n"),
        "src/billing/mod.rs": "pub mod cache;\npub mod report;\n",
        "src/billing/cache.rs": "pub fn evict() {}\n",
        "src/billing/report.rs": "pub fn daily() {\n    super::cache::evict();\n}\n",
    }, "src/billing/cache.rs", "evict")
    assert _sites(r) == {("src/lib.rs", 4), ("src/billing/report.rs", 2)}
    assert r["complete"] is True and r["notes"] == []


async def test_rust_path_into_an_inline_module_is_not_complete(tmp_path: Path) -> None:
    # super:: inside `mod tests {}` is the file's module; the index knows files, not blocks
    r, _ = await _refs(tmp_path, {
        "src/lib.rs": "pub mod cache;\n",
        "src/cache.rs": ("pub fn evict() {}\n\nmod tests {\n    fn t() {\n"
                         "        super::evict();\n    }\n}\n"),
    }, "src/cache.rs", "evict")
    assert _sites(r, "candidates") == {("src/cache.rs", 5)} and r["complete"] is False
    assert any("not found in the module it names: 1" in n for n in r["notes"])


async def test_js_receiver_of_unknown_type_is_not_complete(tmp_path: Path) -> None:
    r, window = await _refs(tmp_path, {
        "money.js": "export class Money {\n  plus(o) {\n    return o;\n  }\n}\n",
        "use.js": ("import { Money } from './money.js';\n\n"
                   "export function f(x) {\n  new Money().plus(1);\n  return x.plus(2);\n}\n"),
    }, "money.js", "Money.plus", construct=True)
    assert _sites(r) == {("use.js", 4)} and _sites(r, "candidates") == {("use.js", 5)}
    assert r["complete"] is False
    note = ("incomplete: 1 use of plus could not be resolved (receiver of unknown type: 1); "
            "see candidates")
    assert note in r["notes"]
    assert window is not None and window["complete"] is False and note in window["notes"]


async def test_ruby_bare_call_through_included_modules_resolves(tmp_path: Path) -> None:
    r, _ = await _refs(tmp_path, {
        "lib/audit.rb": "module Audit\n  def record(x)\n    x\n  end\nend\n",
        "lib/billing/log.rb": "module Billing\n  module Log\n    def note(x)\n      x\n"
                              "    end\n  end\nend\n",
        "lib/ledger.rb": ("class Ledger\n  include Audit\n  include Billing::Log\n\n"
                          "  def add(x)\n    record(x)\n    note(x)\n  end\nend\n"),
    }, "lib/audit.rb", "Audit.record")
    assert _sites(r) == {("lib/ledger.rb", 6)} and r["complete"] is True and r["notes"] == []


async def test_ruby_bare_call_in_a_class_with_an_unknown_base_is_not_complete(
        tmp_path: Path) -> None:
    # two workspace classes are named Base: which one Ledger extends is not known
    r, _ = await _refs(tmp_path, {
        "lib/audit.rb": "module Audit\n  def record(x)\n    x\n  end\nend\n",
        "lib/a/base.rb": "class Base\nend\n",
        "lib/b/base.rb": "class Base\n  include Audit\nend\n",
        "lib/ledger.rb": "class Ledger < Base\n  def add(x)\n    record(x)\n  end\nend\n",
    }, "lib/audit.rb", "Audit.record")
    assert r["references"] == [] and _sites(r, "candidates") == {("lib/ledger.rb", 3)}
    assert r["complete"] is False
    assert any("may be inherited from an unresolved base: 1" in n for n in r["notes"])


async def test_python_where_every_call_resolves_stays_complete(tmp_path: Path) -> None:
    r, window = await _refs(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/money.py": "def add(a, b):\n    return a + b\n",
        "pkg/use.py": ("from pkg.money import add\nimport pkg.money\n\n\n"
                       "def total(xs):\n    print(len(xs))\n"
                       "    return add(1, 2) + pkg.money.add(3, 4)\n"),
        "pkg/other.py": "def add(a, b):\n    return a - b\n\n\nadd(1, 2)\nsum([])\n",
    }, "pkg/money.py", "add", construct=True)
    assert _sites(r) == {("pkg/use.py", 7)} and len(r["references"]) == 2
    assert r["complete"] is True and r["notes"] == [] and r["candidates"] == []
    assert window is not None and window["complete"] is True
