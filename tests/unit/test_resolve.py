"""Call resolution on literal modules (no server): receivers, overrides, return types."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from ctxls.index.refs import extract as refs_of
from ctxls.index.related import dependencies
from ctxls.index.related import tests_for as find_tests  # a name pytest does not collect
from ctxls.index.resolve import FileInfo, RefIndex, references
from ctxls.index.tables import Tables
from ctxls.syntax import languages
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Decl, extract
from ctxls.syntax.symbols import resolve
from ctxls.syntax.text import LineIndex

LIB = b'''class Base:
    def run(self):
        return 1

    def stop(self):
        return 0


class Child(Base):
    def run(self):
        return super().run()


class Cursor:
    def next(self) -> "Cursor":
        return self


def open_cursor() -> Cursor:
    return Cursor()
'''

USE = b'''from lib import Child, Base, open_cursor


def go(c: Child, b: Base):
    c.run()
    b.run()
    c.stop()
    Child().run()
    x = open_cursor()
    x = x.next()
    x.next()
    for b in []:
        b.run()
'''


def _index(python: Language) -> RefIndex:
    index = RefIndex()
    for path, src in (("lib.py", LIB), ("use.py", USE)):
        tree = python.parser().parse(src)
        index.put(FileInfo(path, path, Tables.of(extract(python, tree, LineIndex(src)),
                                                 refs_of(python, tree.root_node))))
    return index


def _sites(index: RefIndex, name: str) -> tuple[list[int], list[int]]:
    decl = resolve(index.files["lib.py"].outline, name, "lib.py")
    resolved, candidates = references(index, "lib.py", decl)
    return ([r.call.row + 1 for r in resolved if r.path == "use.py"],
            [r.call.row + 1 for r in candidates if r.path == "use.py"])


def test_overrides_and_inherited_methods(python: Language) -> None:
    index = _index(python)
    assert _sites(index, "Child.run") == ([5, 8], [13])  # c.run(), Child().run()
    assert _sites(index, "Base.run") == ([6], [13])  # b.run(); the loop's b is unknown
    assert _sites(index, "Base.stop") == ([7], [])  # inherited: c.stop() reaches Base.stop


def test_return_annotations_type_receivers_without_looping(python: Language) -> None:
    index = _index(python)
    assert _sites(index, "Cursor.next") == ([10, 11], [])


def _is_test(path: str) -> bool:
    lang = languages.for_path(path)
    return lang is not None and lang.is_test_file(path)


def _workspace(files: dict[str, bytes], packed: bool = False) -> RefIndex:
    """An index of ``files``; ``packed``: each file's tables as the scan leaves them, a
    payload decoded when first read."""
    index = RefIndex()
    for path, src in files.items():
        lang = languages.for_path(path)
        assert lang is not None
        tree = lang.parser().parse(src)
        tables = Tables.of(extract(lang, tree, LineIndex(src)), refs_of(lang, tree.root_node))
        index.put(FileInfo(f"/ws/{path}", path, tables.packed() if packed else tables))
    return index


def test_tests_bring_the_files_their_runner_loads_implicitly() -> None:
    """pytest loads every conftest.py from a test's folder up to the root (Python's
    `[tests] injected`); a Go test beside them brings none: Go's runner loads no such file."""
    index = _workspace({
        "billing/money.py": b"def add(a, b):\n    return a + b\n",
        "tests/unit/test_money.py": (b"from billing.money import add\n\n\n"
                                     b"def test_add():\n    assert add(1, 2) == 3\n"),
        "tests/conftest.py": b"import pytest\n",
        "conftest.py": b"",
        "tests/go/cache.go": b"package cache\n\nfunc Evict() {}\n",
        "tests/go/cache_test.go": b"package cache\n\nfunc TestEvict() { Evict() }\n",
    })
    add = resolve(index.files["/ws/billing/money.py"].outline, "add", "billing/money.py")
    assert [tuple(h)[1:] for h in find_tests(index, "/ws/billing/money.py", add, _is_test)] == [
        ("tests/unit/test_money.py", "test_add", "calls add directly (line 5)", False),
        ("tests/conftest.py", None,
         "conftest.py that pytest loads for tests/unit/test_money.py", True),
        ("conftest.py", None, "conftest.py that pytest loads for tests/unit/test_money.py", True),
    ]
    evict = resolve(index.files["/ws/tests/go/cache.go"].outline, "Evict", "tests/go/cache.go")
    assert [tuple(h)[1:] for h in find_tests(index, "/ws/tests/go/cache.go", evict, _is_test)] == [
        ("tests/go/cache_test.go", "TestEvict", "calls Evict directly (line 3)", False)]


def test_every_way_of_importing_a_module_finds_its_tests() -> None:
    """Test files that import the target's module but do not call it: each import form
    (checked against ``ast``), and only those (a test importing a sibling is not one)."""
    import ast

    tests = {
        "tests/test_a.py": b"from billing.money import Coin\n",
        "tests/test_b.py": b"import billing.money as m\n",
        "tests/test_c.py": b"from billing import money\n",
        "tests/test_d.py": b"from billing.money import *\n",
        "tests/test_e.py": b"import billing.money\n",
        "billing/tests/test_f.py": b"from ..money import Coin\n",
        "tests/test_other.py": b"from billing.tax import rate\nfrom billing import tax\n",
    }
    index = _workspace({
        "billing/__init__.py": b"", "billing/tests/__init__.py": b"",
        "billing/money.py": b"class Coin:\n    pass\n\n\ndef add(a, b):\n    return a + b\n",
        "billing/tax.py": b"def rate():\n    return 1\n", **tests})

    def imports_money(path: str, src: bytes) -> bool:
        for node in ast.walk(ast.parse(src)):
            if isinstance(node, ast.Import) and any(a.name == "billing.money"
                                                    for a in node.names):
                return True
            if isinstance(node, ast.ImportFrom) and (
                    node.module == "billing.money" or (node.level and node.module == "money")
                    or (node.module == "billing" and any(a.name == "money"
                                                         for a in node.names))):
                return True
        return False

    add = resolve(index.files["/ws/billing/money.py"].outline, "add", "billing/money.py")
    found = {h.path for h in find_tests(index, "/ws/billing/money.py", add, _is_test)
             if h.evidence.startswith("imports")}
    assert found == {p for p, src in tests.items() if imports_money(p, src)}
    assert len(found) == 6


def test_calls_inside_rust_macros_are_calls() -> None:
    """assert_eq!(total(..)), println!("{}", cache::total(..)), vec![c.len()]: tree-sitter
    keeps macro arguments as tokens; the calls in them still resolve."""
    index = _workspace({
        "src/cache.rs": b"pub fn total(xs: &[u32]) -> u32 {\n    0\n}\n",
        "src/main.rs": (b"mod cache;\nuse crate::cache::total;\n\nfn main() {\n"
                        b"    assert_eq!(total(&[1]), 0);\n"
                        b"    println!(\"{}\", cache::total(&[2]));\n"
                        b"    let v = vec![total(&[3])];\n"
                        b"    format!(\"total(&[4])\");\n}\n"),
    })
    total = resolve(index.files["/ws/src/cache.rs"].outline, "total", "src/cache.rs")
    resolved, candidates = references(index, "/ws/src/cache.rs", total)
    assert sorted(r.call.row for r in resolved) == [4, 5, 6]  # not the string on row 7
    assert not candidates


def test_a_file_of_another_language_holds_no_use() -> None:
    """A Rust method's callers are Rust's: a TypeScript or Python file calling a `build`
    of its own receiver is neither a use nor a candidate (each was judged, and its module
    system's manifests read, in the first window after a start)."""
    index = _workspace({
        "src/world.rs": (b"pub struct World;\nimpl World {\n    pub fn build(&self) {}\n}\n"
                         b"fn make(w: World) {\n    w.build();\n}\n"),
        "web/app.ts": b"export function go(b: any) {\n  b.build();\n}\n",
        "tools/run.py": b"def go(b):\n    b.build()\n",
    })
    build = resolve(index.files["/ws/src/world.rs"].outline, "World.build", "src/world.rs")
    resolved, candidates = references(index, "/ws/src/world.rs", build)
    assert {r.path for r in resolved + candidates} == {"src/world.rs"}


def test_rust_workspace_crates_re_exports_and_traits_in_scope(tmp_path: Path) -> None:
    """A Cargo workspace: a crate named by its manifest (`app_core`, folder `core`), its
    modules re-exported through nested lists and a glob (`pub use self::{m::{..}}`,
    `pub use app_core::*`), a trait's method called on a type that derives it, and an
    integration test's own module (`crate::utils` beside tests/it/main.rs)."""
    files = {
        "Cargo.toml": b'[workspace]\nmembers = ["core"]\n[package]\nname = "app"\n',
        "core/Cargo.toml": b'[package]\nname = "app-core"\n',
        "core/src/lib.rs": b"pub mod money;\npub use self::{money::{add, Parse}};\n",
        "core/src/money.rs": (b"pub fn add(a: u32, b: u32) -> u32 {\n    a + b\n}\n\n"
                              b"pub trait Parse {\n    fn parse_from(s: &str) -> Self {\n"
                              b"        todo!()\n    }\n}\n"),
        "src/lib.rs": b"pub use app_core::*;\n",
        "tests/it/main.rs": b"mod utils;\nmod flows;\n",
        "tests/it/utils.rs": b"pub fn check(x: u32) {\n    assert_eq!(x, 1);\n}\n",
        "tests/it/flows.rs": (b"use app::{add, Parse};\nuse crate::utils::check;\n\n"
                              b"#[derive(Parse)]\nstruct Opt;\n\nfn flow() {\n"
                              b"    check(add(1, 2));\n    let o = Opt::parse_from(\"x\");\n}\n"),
    }
    index = _on_disk(tmp_path, files)
    flows = f"{tmp_path}/tests/it/flows.rs"
    for target, path in (("add", "core/src/money.rs"), ("check", "tests/it/utils.rs"),
                         ("Parse.parse_from", "core/src/money.rs")):
        row = 8 if target == "Parse.parse_from" else 7
        assert _proven(index, tmp_path, path, target) == [(flows, row)], target


def _proven(index: RefIndex, tmp_path: Path, path: str, name: str) -> list[tuple[str, int]]:
    """(file key, row) of each proven call of ``name`` declared in ``path``; asserts that
    no call is left unresolved."""
    decl = resolve(index.files[f"{tmp_path}/{path}"].outline, name, path)
    resolved, candidates = references(index, f"{tmp_path}/{path}", decl)
    assert not candidates, name
    return [(r.key, r.call.row) for r in resolved]


def _on_disk(tmp_path: Path, files: dict[str, bytes]) -> RefIndex:
    """An index of files written under tmp_path, for module systems that read manifests."""
    index = RefIndex()
    for path, src in files.items():
        (tmp_path / path).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / path).write_bytes(src)
        lang = languages.for_path(path)
        if lang is None:
            continue
        tree = lang.parser().parse(src)
        index.put(FileInfo(f"{tmp_path}/{path}", path, Tables.of(
            extract(lang, tree, LineIndex(src)), refs_of(lang, tree.root_node))))
    return index


def test_typescript_monorepo_names_resolve_through_paths_and_workspace_packages(
        tmp_path: Path) -> None:
    """`import { h } from '@vue/shared'` through tsconfig `paths` (`@vue/*` ->
    `packages/*/src`), and `import { add } from '@acme/core'` through the package's
    `exports`, reach the declarations in the workspace's own source files."""
    index = _on_disk(tmp_path, {
        "tsconfig.json": b'{"compilerOptions": {"paths": {"@vue/*": ["./packages/*/src"]}}}',
        "packages/shared/src/index.ts": b"export { h } from './h'\n",
        "packages/shared/src/h.ts": b"export function h(x: string): string {\n  return x\n}\n",
        "packages/core/package.json": (b'{"name": "@acme/core", "main": "dist/index.js", '
                                       b'"exports": {".": {"import": "./dist/index.js"}}}'),
        "packages/core/src/index.ts": b"export function add(a: number): number {\n  return a\n}\n",
        "packages/app/src/main.ts": (b"import { h } from '@vue/shared'\n"
                                     b"import { add } from '@acme/core'\n\n"
                                     b"export function run(): string {\n"
                                     b"  return h(String(add(1)))\n}\n"),
    })
    main = f"{tmp_path}/packages/app/src/main.ts"
    for name, path in (("h", "packages/shared/src/h.ts"), ("add", "packages/core/src/index.ts")):
        assert _proven(index, tmp_path, path, name) == [(main, 4)], name


def test_a_go_variable_bound_to_a_named_result_has_its_type() -> None:
    """``c, _ := CreateTestContext(w)`` with ``func CreateTestContext(..) (c *Context, r
    *Engine)``: c is a *Context, so c.JSON() is a proven call of Context.JSON."""
    index = _workspace({
        "ctx/ctx.go": (b"package ctx\n\ntype Context struct{}\n\n"
                       b"func (c *Context) JSON(code int) {}\n\n"
                       b"func CreateTestContext(w int) (c *Context, r int) {\n"
                       b"\treturn nil, 0\n}\n"),
        "ctx/ctx_test.go": (b"package ctx\n\nfunc TestX() {\n\tc, _ := CreateTestContext(1)\n"
                            b"\tc.JSON(200)\n}\n"),
    })
    json = resolve(index.files["/ws/ctx/ctx.go"].outline, "Context.JSON", "ctx/ctx.go")
    resolved, candidates = references(index, "/ws/ctx/ctx.go", json)
    assert [(r.path, r.call.row, r.why) for r in resolved] == [
        ("ctx/ctx_test.go", 4, "c: Context")]
    assert not candidates


def test_a_java_nested_class_calls_its_outer_classs_method_unqualified() -> None:
    index = _workspace({"src/a/Outer.java": (
        b"package a;\n\nclass Outer {\n    static int helper() { return 1; }\n\n"
        b"    static class Inner {\n        int run() { return helper(); }\n    }\n}\n")})
    outline = index.files["/ws/src/a/Outer.java"].outline
    helper = resolve(outline, "Outer.helper", "src/a/Outer.java")
    resolved, candidates = references(index, "/ws/src/a/Outer.java", helper)
    assert [(r.call.row, r.enclosing) for r in resolved] == [(6, "Outer.Inner.run")]
    assert not candidates


def test_a_bare_ruby_call_in_a_module_is_a_call() -> None:
    index = _workspace({"lib/helpers.rb": (
        b"module Helpers\n  def save\n    validate\n    persist(1)\n  end\n\n"
        b"  def validate\n    true\n  end\n\n  def persist(x)\n    x\n  end\nend\n")})
    outline = index.files["/ws/lib/helpers.rb"].outline
    for name, row in (("Helpers.validate", 2), ("Helpers.persist", 3)):
        decl = resolve(outline, name, "lib/helpers.rb")
        resolved, _ = references(index, "/ws/lib/helpers.rb", decl)
        assert [(r.call.row, r.enclosing) for r in resolved] == [(row, "Helpers.save")], name


def test_a_destructured_require_binds_the_modules_names() -> None:
    """CommonJS: `const { add, sub: minus } = require("./ops")` imports add and sub (as
    minus), so their calls resolve to ops.js's declarations."""
    index = _workspace({
        "lib/ops.js": (b"function add(a, b) {\n  return a + b;\n}\n\n"
                       b"function sub(a, b) {\n  return a - b;\n}\n\n"
                       b"module.exports = { add, sub };\n"),
        "main.js": (b"const { add, sub: minus } = require(\"./lib/ops\");\n\n"
                    b"function run() {\n  return add(1, minus(3, 2));\n}\n"),
    })
    outline = index.files["/ws/lib/ops.js"].outline
    for name in ("add", "sub"):
        decl = resolve(outline, name, "lib/ops.js")
        resolved, _ = references(index, "/ws/lib/ops.js", decl)
        assert [(r.path, r.call.row) for r in resolved] == [("main.js", 3)], name


def test_default_exports_bind_through_default_imports_and_require() -> None:
    """`import View from './view'` and `const View = require('./view')` bind what the
    module exports by default (`export default class View`, `module.exports = View`); a
    member of a required module (`require('./utils').compile`) and CommonJS `exports.f =
    function` are the module's names."""
    index = _workspace({
        "src/view.ts": b"export default class View {\n  render(): void {}\n}\n",
        "src/page.ts": (b"import Page from './view';\n\nfunction show() {\n"
                        b"  const p = new Page();\n  p.render();\n}\n"),
        "lib/view.js": b"function View(name) {\n  this.name = name;\n}\n\nmodule.exports = View;\n",
        "lib/utils.js": b"exports.compile = function (x) {\n  return x;\n};\n",
        "lib/app.js": (b"var View = require('./view');\nvar compile = require('./utils').compile;\n"
                       b"var utils = require('./utils');\n\nfunction boot() {\n"
                       b"  var v = new View('x');\n  compile(1);\n  utils.compile(2);\n}\n"),
    })

    def uses(path: str, name: str) -> list[tuple[str, int]]:
        decl = resolve(index.files[f"/ws/{path}"].outline, name, path)
        resolved, candidates = references(index, f"/ws/{path}", decl)
        assert not candidates, (name, candidates)
        return [(r.path, r.call.row) for r in resolved]

    assert uses("src/view.ts", "View.render") == [("src/page.ts", 4)]
    assert uses("src/view.ts", "View") == [("src/page.ts", 3)]
    assert uses("lib/view.js", "View") == [("lib/app.js", 5)]
    assert uses("lib/utils.js", "exports.compile") == [("lib/app.js", 6), ("lib/app.js", 7)]


def test_a_call_through_an_interface_is_a_use_of_its_implementations_where_servers_say_so(
        ) -> None:
    """TypeScript (`calls_through_bases`, as tsserver counts it): `s.get()` on a `Store` is a
    use of `Memory.get` when Memory implements Store; Python (as pyright and jedi count it):
    a call through the base class is the base's alone."""
    index = _workspace({
        "store.ts": (b"export interface Store {\n  get(): number;\n}\n\n"
                     b"export class Memory implements Store {\n  get(): number {\n"
                     b"    return 1;\n  }\n}\n"),
        "use.ts": (b"import { Store } from './store';\n\n"
                   b"export function read(s: Store): number {\n  return s.get();\n}\n"),
        "store.py": (b"class Store:\n    def get(self):\n        return 0\n\n\n"
                     b"class Memory(Store):\n    def get(self):\n        return 1\n"),
        "use.py": b"from store import Store\n\n\ndef read(s: Store):\n    return s.get()\n",
    })
    for path, caller in (("store.ts", "use.ts"), ("store.py", "use.py")):
        decl = resolve(index.files[f"/ws/{path}"].outline, "Memory.get", path)
        resolved, _ = references(index, f"/ws/{path}", decl)
        assert [r.path for r in resolved] == ([caller] if path.endswith(".ts") else []), path


def test_a_module_name_two_languages_share_means_the_importers_own() -> None:
    """A top-level `store.py` and `store.ts` are both the module `store`: each language's
    import means its own file, whichever the index filed first (the TypeScript import took
    the Python file when it came first)."""
    files = {
        "store.py": b"def get():\n    return 0\n",
        "store.ts": b"export function get(): number {\n  return 1;\n}\n",
        "use.ts": b"import { get } from './store';\n\nexport const n = get();\n",
        "use.py": b"from store import get\n\nN = get()\n",
    }
    for order in (list(files), list(reversed(files))):
        index = _workspace({path: files[path] for path in order})
        for path, caller in (("store.ts", "use.ts"), ("store.py", "use.py")):
            decl = resolve(index.files[f"/ws/{path}"].outline, "get", path)
            resolved, _ = references(index, f"/ws/{path}", decl)
            assert [r.path for r in resolved] == [caller], (order, path)


def test_java_static_imports_reach_a_class_member() -> None:
    """`import static com.shop.Util.check;` binds Util.check: `check(x)` is its call."""
    index = _workspace({
        "src/main/java/com/shop/Util.java": (b"package com.shop;\n\nclass Util {\n"
                                             b"    static void check(int x) {}\n}\n"),
        "src/main/java/com/shop/app/App.java": (b"package com.shop.app;\n\n"
                                                b"import static com.shop.Util.check;\n\n"
                                                b"class App {\n    void run() {\n"
                                                b"        check(1);\n    }\n}\n"),
    })
    path = "src/main/java/com/shop/Util.java"
    decl = resolve(index.files[f"/ws/{path}"].outline, "Util.check", path)
    resolved, _ = references(index, f"/ws/{path}", decl)
    assert [(r.path, r.call.row) for r in resolved] == [
        ("src/main/java/com/shop/app/App.java", 6)]


def test_a_go_package_variable_of_another_file_types_its_calls() -> None:
    """`var root = &Command{}` in one file of a package: `root.Run()` in another file of
    the package is a proven call of Command.Run."""
    index = _workspace({
        "cmd/command.go": b"package cmd\n\ntype Command struct{}\n\nfunc (c *Command) Run() {}\n",
        "cmd/vars.go": b"package cmd\n\nvar root = &Command{}\n",
        "cmd/main.go": b"package cmd\n\nfunc Main() {\n\troot.Run()\n}\n",
    })
    decl = resolve(index.files["/ws/cmd/command.go"].outline, "Command.Run", "cmd/command.go")
    resolved, candidates = references(index, "/ws/cmd/command.go", decl)
    assert [(r.path, r.call.row) for r in resolved] == [("cmd/main.go", 3)]
    assert not candidates


def test_dependencies_show_unimported_package_types_and_a_mixins_one_method() -> None:
    """A Go body naming its package's type from another file (no import needed), and a
    Ruby mixin's bare call of the one workspace method of that name, are dependencies;
    a bare call whose name two methods share is not."""
    files = {
        "shop/money.go": b"package shop\n\ntype Money struct{}\n",
        "shop/cart.go": b"package shop\n\nfunc Total() {\n\tvar m Money\n\t_ = m\n}\n",
        "lib/helpers.rb": b"module Helpers\n  def price\n    cents\n    total\n  end\nend\n",
        "lib/base.rb": (b"class Base\n  def cents\n    1\n  end\n\n  def total\n    2\n  end\n"
                        b"end\n"),
        "lib/other.rb": b"class Other\n  def total\n    3\n  end\nend\n",
    }
    index = _workspace(files)

    def deps(path: str, name: str) -> set[tuple[str, str]]:
        info = index.files[f"/ws/{path}"]
        decl = resolve(info.outline, name, path)
        lines = files[path].decode().splitlines()
        return {(d.path, d.decl.qualname) for d in dependencies(index, info.key, decl, lines)}

    assert ("shop/money.go", "Money") in deps("shop/cart.go", "Total")
    got = deps("lib/helpers.rb", "Helpers.price")
    assert ("lib/base.rb", "Base.cents") in got
    assert not any(q.endswith(".total") for _, q in got)


def test_a_static_c_function_is_its_files_own() -> None:
    """C links every top-level function across the program, except `static` ones: a call
    of `helper` in main.c means util.c's global helper, not the static one of log.c; the
    static `fmt` that only log.c has is no definition for main.c's undeclared `fmt`."""
    index = _workspace({
        "log.c": (b"static int helper(void) {\n    return 1;\n}\n\n"
                  b"static char *fmt(int x) {\n    return 0;\n}\n\n"
                  b"int log_it(void) {\n    return helper() + (fmt(1) != 0);\n}\n"),
        "util.c": b"int helper(void) {\n    return 2;\n}\n",
        "main.c": b"int main(void) {\n    fmt(2);\n    return helper();\n}\n",
    })

    def callers(path: str, name: str) -> list[tuple[str, int]]:
        decl = resolve(index.files[f"/ws/{path}"].outline, name, path)
        return [(r.path, r.call.row) for r in references(index, f"/ws/{path}", decl)[0]]

    assert callers("util.c", "helper") == [("main.c", 2)]
    assert callers("log.c", "helper") == [("log.c", 9)]
    assert callers("log.c", "fmt") == [("log.c", 9)]


def test_calls_in_a_c_macros_body_are_uses_at_the_macro() -> None:
    """`#define LOG(x) log_line(x)` uses log_line where the macro is defined (a string or
    comment naming it is not a call; `s.log_line(` is a member's)."""
    index = _workspace({
        "log.c": b"int log_line(int x) {\n    return x;\n}\n",
        "log.h": (b"#define LOG(x) log_line(x)\n#define NOTE \"log_line(1)\" /* log_line( */\n"
                  b"#define TWICE(x) do { \\\n    log_line(x); log_line(x); \\\n} while (0)\n"
                  b"#define MEMBER(s) s.log_line(1)\n"),
    })
    decl = resolve(index.files["/ws/log.c"].outline, "log_line", "log.c")
    resolved, _ = references(index, "/ws/log.c", decl)
    assert [(r.path, r.call.row, r.call.col) for r in resolved] == [
        ("log.h", 0, 15), ("log.h", 3, 4), ("log.h", 3, 17)]


def test_every_declaration_of_a_c_function_is_one_symbol() -> None:
    """A prototype in a header and each platform's definition (src/unix, src/win) are the
    one function the linker joins by name: asked at any of them, the call in test.c is a
    reference (as clangd answers); log.c's static uv_up is another function."""
    index = _workspace({
        "include/uv.h": b"int uv_up(void);\n",
        "src/unix/up.c": b"#include \"uv.h\"\nint uv_up(void) {\n    return 1;\n}\n",
        "src/win/up.c": b"#include \"uv.h\"\nint uv_up(void) {\n    return 2;\n}\n",
        "test.c": b"#include \"uv.h\"\nint main(void) {\n    return uv_up();\n}\n",
        "log.c": (b"static int uv_up(void) {\n    return 3;\n}\n"
                  b"int f(void) {\n    return uv_up();\n}\n"),
    })
    for path in ("include/uv.h", "src/unix/up.c", "src/win/up.c"):
        decl = resolve(index.files[f"/ws/{path}"].outline, "uv_up", path)
        resolved, candidates = references(index, f"/ws/{path}", decl)
        assert [(r.path, r.call.row) for r in resolved] == [("test.c", 2)], path
        assert not candidates
    decl = resolve(index.files["/ws/log.c"].outline, "uv_up", "log.c")
    assert [(r.path, r.call.row) for r in references(index, "/ws/log.c", decl)[0]] == [
        ("log.c", 4)]


def test_rust_modules_through_a_glob_import_and_a_nested_self(tmp_path: Path) -> None:
    """`use mock::*;` brings mock's module `expect`, so `expect::parent()` is its function;
    `use crate::{dispatch::{self, Handle}}` binds the module `dispatch` itself."""
    index = _on_disk(tmp_path, {
        "Cargo.toml": b'[package]\nname = "app"\n',
        "mock/Cargo.toml": b'[package]\nname = "mock"\n',
        "mock/src/lib.rs": b"pub mod expect;\n",
        "mock/src/expect.rs": b"pub fn parent() -> u32 {\n    1\n}\n",
        "src/dispatch.rs": b"pub struct Handle;\n\npub fn current() -> u32 {\n    2\n}\n",
        "src/lib.rs": (b"mod dispatch;\nuse mock::*;\nuse crate::{dispatch::{self, Handle}};\n\n"
                       b"fn run() -> u32 {\n    expect::parent() + dispatch::current()\n}\n"),
    })
    lib = f"{tmp_path}/src/lib.rs"
    for name, path in (("parent", "mock/src/expect.rs"), ("current", "src/dispatch.rs")):
        assert _proven(index, tmp_path, path, name) == [(lib, 5)], name


def test_a_name_through_barrels_that_star_export_each_other_is_searched_once(
        tmp_path: Path) -> None:
    """Six levels of barrels, each `export * from` four others: a name none declares was
    searched along every path (4^6 module visits per lookup, minutes on babel); each
    (module, name, depth) is now looked at once until the index changes."""
    files = {"leaf.ts": b"export function found() { return 1 }\n"}
    for level in range(6):
        for i in range(4):
            below = [f"./l{level - 1}_{j}" for j in range(4)] if level else ["./leaf"]
            files[f"l{level}_{i}.ts"] = b"".join(
                f"export * from '{b}';\n".encode() for b in below)
    index = _on_disk(tmp_path, files)
    calls = 0
    real = index._export

    def counting(info: FileInfo, name: str, hops: int) -> object:
        nonlocal calls
        calls += 1
        return real(info, name, hops)

    index._export = counting  # type: ignore[method-assign,assignment]
    top = index.files[f"{tmp_path}/l5_0.ts"]
    assert index.export(top, "missing") is None
    assert calls <= 4 * 6 * 7  # modules x names x depths, not 4 ** 6
    found = index.export(top, "found")
    assert found is not None and found[1].name == "found"


def _bounded_total(files: dict[str, bytes], n: int) -> tuple[RefIndex, str, Decl, Any]:
    """``pkg/core/money.py``'s ``total`` beside ``files``: the index, its key, the
    declaration, and its call sites judged in at most ``n`` files."""
    from ctxls.index.resolve import bounded_references

    index = _workspace({"pkg/core/money.py": b"def total(x):\n    return x\n", **files})
    home = "/ws/pkg/core/money.py"
    decl = resolve(index.files[home].outline, "total", "pkg/core/money.py")
    assert decl is not None
    return index, home, decl, bounded_references(index, home, decl, n)


def test_a_bounded_search_judges_the_nearest_files_and_counts_them() -> None:
    """A window looks for call sites in at most N of the files naming the target, those
    sharing the most folders with it first; the unbounded search finds them all."""
    from ctxls.index.reach import nearest

    files = {"pkg/core/use.py": b"from pkg.core.money import total\n\nprint(total(1))\n",
             "pkg/core/sub/deep.py": b"from pkg.core.money import total\n\ntotal(2)\n"}
    for i in range(6):  # far away, and first in path order
        files[f"aaa/far{i}.py"] = b"from pkg.core.money import total\n\ntotal(3)\n"
    index, home, decl, (resolved, _, judged, naming) = _bounded_total(files, 2)
    assert (judged, naming) == (2, 8)
    assert {r.path for r in resolved} == {"pkg/core/use.py", "pkg/core/sub/deep.py"}
    everything = references(index, home, decl)[0]
    assert len(everything) == 8 and {r.path for r in everything} >= {f"aaa/far{i}.py"
                                                                     for i in range(6)}
    assert nearest(["/a/b/c.py", "/x/y.py", "/a/z.py", "/a/b/d/e.py"], "/a/b/home.py", 3) == [
        "/a/b/c.py", "/a/b/d/e.py", "/a/z.py"]


def test_the_bound_counts_only_files_of_the_targets_module_system() -> None:
    """Files of another language that name the target (JavaScript calling its own `total`)
    cannot use a Python declaration: they neither fill the bound of nearest files nor count
    among the files naming it, nor have their imports resolved for aliases."""
    files = {"zzz/use.py": b"from pkg.core.money import total\n\nprint(total(1))\n"}
    for i in range(4):  # nearer to the target than the Python caller
        files[f"pkg/core/web{i}.js"] = b"import { total } from './sum';\ntotal(3);\n"
    _, _, _, (resolved, candidates, judged, naming) = _bounded_total(files, 2)
    assert (judged, naming) == (1, 1)
    assert [r.path for r in resolved] == ["zzz/use.py"] and not candidates


def test_fixtures_calling_a_shared_helper_are_not_candidates_of_their_own_function(
        tmp_path: Path) -> None:
    """svelte: thousands of `_config.js` call `test(...)` imported from a module that binds
    it by destructuring (the tables cannot follow that), and each fixture declares a `test`
    of its own. A call of a name imported from another module is no candidate use of a
    fixture's function unless that module imports the fixture's, nor is a method of a
    local object (`/re/.test(s)`)."""
    fixture = b"import { test } from '../../test';\n\nexport default test({\n  test() {}\n});\n"
    index = _on_disk(tmp_path, {
        "tests/suite.ts": b"export function suite() { return { test: 1, run: 2 }; }\n",
        "tests/test.ts": (b"import { suite } from './suite';\n"
                          b"const { test, run } = suite();\nexport { test, run };\n"),
        "tests/samples/a/_config.ts": fixture,
        "tests/samples/b/_config.ts": fixture,
        # a module the index cannot follow may be anything: its names stay candidates
        "tests/alias.ts": b"export * from '@scope/fixtures';\n",
        "tests/samples/c/run.ts": b"import { test } from '../../alias';\n\ntest();\n",
        # a local object's method of the name is no use of another module's function
        "tests/samples/d/check.ts": b"const re = /x/;\nre.test('a');\n",
    })
    home = "tests/samples/a/_config.ts"
    decl = resolve(index.files[f"{tmp_path}/{home}"].outline, "test", home)
    resolved, candidates = references(index, f"{tmp_path}/{home}", decl)
    assert resolved == []
    assert {(c.path, c.call.row) for c in candidates} == {("tests/samples/c/run.ts", 2)}


def test_a_file_whose_imports_never_lead_to_a_declaration_cannot_use_it() -> None:
    """textDocument/references reads only the files that import their way to the
    declaration (directly, through a re-export, or through its module or a package above
    it); where names are reached only by import (Python, ECMAScript)."""
    from ctxls.index.reach import may_use

    index = _workspace({
        "pkg/__init__.py": b"from .helpers import f\n",
        "pkg/helpers.py": b"def f():\n    return 1\n",
        "other.py": b"def f():\n    return 2\n",
        "by_reexport.py": b"from pkg import f\n\nf()\n",
        "by_package.py": b"import pkg\n\npkg.helpers.f()\n",
        "by_module.py": b"from pkg import helpers\n\nhelpers.f()\n",
        "by_alias.py": b"import pkg.helpers as h\n\nh.f()\n",
        "by_star.py": b"from pkg.helpers import *\n\nf()\n",
        "elsewhere.py": b"from other import f\n\nf()\n",
        "nothing.py": b"import os\n\nf = os.path.join\nf()\n",
        "lib/f.ts": b"export function f() { return 1; }\n",
        "lib/index.ts": b"export * from './f';\n",
        "ns.ts": b"import * as lib from './lib/index';\n\nlib.f();\n",
        "g.ts": b"export function f() { return 2; }\n",
        "not_ns.ts": b"import { f } from './g';\n\nf();\n",
    })
    for home, reaching, not_reaching in (
            ("pkg/helpers.py", {"by_reexport.py", "by_package.py", "by_module.py",
                                "by_alias.py", "by_star.py", "pkg/__init__.py"},
             {"elsewhere.py", "nothing.py", "other.py"}),
            ("lib/f.ts", {"ns.ts", "lib/index.ts"}, {"not_ns.ts", "g.ts"})):
        info = index.files[f"/ws/{home}"]
        decl = resolve(info.outline, "f", home)
        judged = {path: may_use(index, index.files[f"/ws/{path}"], info, decl, {"f"})
                  for path in reaching | not_reaching}
        assert judged == {p: p in reaching for p in judged}, home
    # a method: proven only through a receiver's type, which takes a workspace import
    svc = _workspace({"svc.py": b"class Svc:\n    def run(self):\n        return 1\n",
                      "use_svc.py": b"from svc import Svc\n\nSvc().run()\n",
                      "no_import.py": b"import os\n\nos.run()\n"})
    home = svc.files["/ws/svc.py"]
    method = resolve(home.outline, "Svc.run", "svc.py")
    assert may_use(svc, svc.files["/ws/use_svc.py"], home, method, {"run"})
    assert not may_use(svc, svc.files["/ws/no_import.py"], home, method, {"run"})
    assert may_use(svc, svc.files["/ws/no_import.py"], home, method, {"run"}, candidates=True)


def test_only_imports_that_lead_to_a_declaration_give_it_another_name(tmp_path: Path) -> None:
    """A default export is imported under any name, and every `import React from 'react'`
    made `React` an alias of each one (babel's `export default () => ...`: every default
    import's calls judged, 105 s for one textDocument/references); re-exports and default
    imports of the declaration itself still count, through barrels too."""
    from ctxls.index.reach import aliases

    index = _on_disk(tmp_path, {
        "src/view.ts": b"export default function View() { return 1; }\n",
        "src/barrel.ts": b"export { default as Screen } from './view';\n",
        "src/app.ts": (b"import React from 'react';\nimport V from './view';\n"
                       b"import { Screen as S } from './barrel';\nReact(); V(); S();\n"),
        "src/other.ts": b"export default function Other() {}\n",
        "src/more.ts": b"import O from './other';\nO();\n",
        "src/anon.ts": b"export default (x: number): number => {\n  return x;\n};\n",
        "src/use_anon.ts": b"import anon from './anon';\nanon(1);\n",
    })
    view = index.files[f"{tmp_path}/src/view.ts"]
    assert aliases(index, view, resolve(view.outline, "View", "src/view.ts")) == {
        "View", "Screen", "V", "S"}
    anon = index.files[f"{tmp_path}/src/anon.ts"]
    decl = anon.outline.decls[0]
    assert aliases(index, anon, decl) == {"anon"}
    resolved, candidates = references(index, anon.key, decl)
    assert [(r.path, r.call.row) for r in resolved] == [("src/use_anon.ts", 1)]
    assert candidates == []


def test_a_method_is_used_only_where_imports_lead_to_its_class() -> None:
    """A receiver's class reaches a file through what it imports (a subclass, a factory's
    return type), also through modules that import each other in a cycle; a file whose
    imports lead elsewhere in the workspace holds no proven use (a babel fixture's
    `Foo.test` was judged in 8,000 files that import some workspace module)."""
    from ctxls.index.reach import leads_to, may_use

    index = _workspace({
        "svc.py": b"class Svc:\n    def run(self):\n        return 1\n",
        "factory.py": b"from svc import Svc\n\n\ndef make() -> Svc:\n    return Svc()\n",
        "by_factory.py": b"from factory import make\n\nmake().run()\n",
        # a imports b before svc: a search that took b, met while a was open, for a
        # module that leads nowhere would answer c wrongly
        "a.py": b"import b\nimport svc\n",
        "b.py": b"import a\n",
        "c.py": b"import b\n\nthing.run()\n",
        "util.py": b"def run():\n    return 2\n",
        "unrelated.py": b"from util import run\n\nobj.run()\n",
    })
    home = index.files["/ws/svc.py"]
    own = {home.key}
    assert [leads_to(index, index.files[f"/ws/{p}"], own)
            for p in ("a.py", "b.py", "c.py", "util.py", "unrelated.py")] == [
        True, True, True, False, False]
    method = resolve(home.outline, "Svc.run", "svc.py")
    judged = {p: may_use(index, index.files[f"/ws/{p}"], home, method, {"run"})
              for p in ("by_factory.py", "c.py", "unrelated.py", "util.py")}
    assert judged == {"by_factory.py": True, "c.py": True, "unrelated.py": False,
                      "util.py": False}
    resolved, _ = references(index, "/ws/svc.py", method, proven=True)
    assert [(r.path, r.call.row) for r in resolved] == [("by_factory.py", 2)]


def _judged(index: RefIndex, path: str, qualname: str) -> tuple[list[Any], list[Any]]:
    """(proven, candidate) references of ``qualname`` declared in ``/ws/path``."""
    home = index.files[f"/ws/{path}"]
    return references(index, home.key, resolve(home.outline, qualname, path))


def test_a_rust_parameter_with_a_lifetime_types_its_calls() -> None:
    """`ledger: &'a Ledger` is a Ledger (the lifetime was read as the type's name, and
    every call on such a parameter was unproven); a slice of them (`&'a [Ledger]`) is not,
    and its call stays unproven."""
    index = _workspace({"src/lib.rs": (
        b"pub struct Ledger;\n"
        b"impl Ledger {\n    pub fn total(&self) -> u32 { 0 }\n}\n"
        b"fn sum<'a>(ledger: &'a Ledger, rows: &'a [Ledger]) -> u32 {\n"
        b"    ledger.total() + rows.total()\n"
        b"}\n")})
    resolved, candidates = _judged(index, "src/lib.rs", "Ledger.total")
    assert [(r.call.obj, r.call.row) for r in resolved] == [("ledger", 5)]
    assert [(c.call.obj, c.call.row) for c in candidates] == [("rows", 5)]


def test_a_rust_receiver_spelled_as_a_value_is_not_sought_as_a_class() -> None:
    """Where types are spelled with a capital, `s.len()` is a value's call: its text is
    not sought as a class through every glob import (polars: 2,000 texts for one
    textDocument/references of `len`); `Ledger::new()`, `a::Ledger`, `Self` may be. In C
    no receiver is a class (git: every `->nr`'s receiver sought through every include)."""
    from ctxls.index.resolve import _may_name_class

    index = _workspace({"src/lib.rs": b"pub struct Ledger;\n", "app.py": b"x = 1\n",
                        "cache.c": b"int n;\n", "cache.cc": b"int n;\n"})
    rust, python = index.files["/ws/src/lib.rs"], index.files["/ws/app.py"]
    c, cpp = index.files["/ws/cache.c"], index.files["/ws/cache.cc"]
    # C's receivers are values (`values->nr`); C++'s `Ledger::make()` names a class
    assert not _may_name_class(index, c, "values") and not _may_name_class(index, c, "Ledger")
    assert _may_name_class(index, cpp, "Ledger")
    assert [_may_name_class(index, rust, t) for t in (
        "s", "ca", "self.series", "b.iter().collect", "", "_x")] == [False] * 6
    assert [_may_name_class(index, rust, t) for t in (
        "Ledger", "a::Ledger", "crate.a.Ledger", "Self", "Query::<T>", "T")] == [True] * 6
    assert _may_name_class(index, python, "s")


def test_a_rust_call_on_another_type_is_no_candidate_of_a_method() -> None:
    """`Vec::new()` and `Vec2::new()` (a prelude's, a glob's type) are no unproven uses of
    the workspace's `Handler::new`; `T::new()` (a generic parameter: any implementor's) is
    still a candidate and the type imported under another name resolves; a trait's own
    method is every implementor's."""
    index = _workspace({"src/other.rs": (b"use crate::Handler as Hd;\n"
                                         b"fn f() {\n    let h = Hd::new();\n"
                                         b"    let g = Gadget::new();\n}\n"),
                        "src/lib.rs": (
        b"pub struct Handler;\n"
        b"impl Handler {\n    pub fn new() -> Self { Handler }\n}\n"
        b"pub trait Make {\n    fn make() -> u8 { 1 }\n}\n"
        b"fn use_it() {\n"
        b"    let a = Handler::new();\n"
        b"    let b = Vec::new();\n"
        b"    let c = Vec2::new(1.0);\n"
        b"    let d = T::new();\n"
        b"    let e = Widget::make();\n"
        b"}\n")})
    resolved, candidates = _judged(index, "src/lib.rs", "Handler.new")
    assert sorted((r.path, r.call.row) for r in resolved) == [("src/lib.rs", 8),
                                                             ("src/other.rs", 2)]
    assert [(c.call.obj, c.call.row) for c in candidates] == [("T", 11)]
    resolved, candidates = _judged(index, "src/lib.rs", "Make.make")
    assert [(r.call.obj, r.call.row) for r in [*resolved, *candidates]] == [("Widget", 12)]


def test_a_rust_receiver_spelled_as_another_type_is_no_candidate() -> None:
    """A type a file imports (from a glob of an outside crate, so unresolvable), names by
    a path or with a turbofish, or declares itself (a struct) is not the class of the
    workspace's `Handler::new`, unless an import somewhere renames the class to that name
    (`Hd`, and `Hd2` re-exported from it); a type alias may name the class and stays."""
    index = _workspace({
        "src/other.rs": (b"use crate::Handler as Hd;\nuse crate::math::Vec3B;\n"
                         b"use crate::again::Hd2;\ntype Alias = crate::Handler;\nstruct Local;\n"
                         b"fn f() {\n    let h = Hd::new();\n    let v = Vec3B::new();\n"
                         b"    let p = crate::math::Vec3B::new();\n"
                         b"    let q = Query::<u8>::new();\n    let a = Alias::new();\n"
                         b"    let l = Local::new();\n    let h2 = Hd2::new();\n}\n"),
        "src/again.rs": b"pub use crate::other::Hd as Hd2;\n",
        "src/math.rs": b"pub use glam::*;\n",
        "src/lib.rs": (b"pub struct Handler;\n"
                       b"impl Handler {\n    pub fn new() -> Self { Handler }\n}\n")})
    home = index.files["/ws/src/lib.rs"]
    new = resolve(home.outline, "Handler.new", "src/lib.rs")
    resolved, candidates = references(index, "/ws/src/lib.rs", new)
    assert sorted((r.call.obj, r.call.row) for r in resolved) == [("Hd", 6), ("Hd2", 12)]
    assert [(c.call.obj, c.call.row) for c in candidates] == [("Alias", 10)]


def test_a_rust_file_calling_only_other_types_new_is_not_decoded() -> None:
    """A file whose every `new` call is spelled as another type is ruled out from its
    payload's head, never decoded; the answer is the one every file decoded gives, and a
    file with a call spelled as a rename of the class (`Hd::new`), a call through a value
    (`x.new()`) or the class's own name is still read and judged."""
    files = {
        "src/lib.rs": (b"pub struct Handler;\n"
                       b"impl Handler {\n    pub fn new() -> Self { Handler }\n}\n"),
        "src/vecs.rs": (b"use crate::math::Vec3B;\nstruct Local;\n"
                        b"fn f() {\n    let v = Vec3B::new();\n    let l = Local::new();\n"
                        b"    let p = std::path::PathBuf::new();\n}\n"),
        "src/renamed.rs": b"use crate::Handler as Hd;\nfn g() {\n    let h = Hd::new();\n}\n",
        "src/value.rs": b"fn k(x: Thing) {\n    let y = x.new();\n    let v = Vec3B::new();\n}\n",
        "src/own.rs": b"use crate::Handler;\nfn m() {\n    let h = Handler::new();\n}\n",
        "src/alias.rs": b"type Vec3B = crate::Handler;\nfn n() {\n    let v = Vec3B::new();\n}\n",
        "src/math.rs": b"pub use glam::*;\n",
    }
    answers = []
    for packed in (False, True):
        index = _workspace(files, packed)
        new = resolve(index.files["/ws/src/lib.rs"].outline, "Handler.new", "src/lib.rs")
        resolved, candidates = references(index, "/ws/src/lib.rs", new)
        answers.append(([(r.path, r.call.row, r.call.obj) for r in resolved],
                        [(c.path, c.call.row, c.call.obj) for c in candidates]))
        if packed:
            decoded = {info.path for info in index.files.values() if info.tables.decoded}
            assert "src/vecs.rs" not in decoded
            assert {"src/renamed.rs", "src/value.rs", "src/own.rs", "src/alias.rs"} <= decoded
    assert answers[0] == answers[1]
    assert {p for p, _, _ in answers[0][0]} == {"src/renamed.rs", "src/own.rs"}
    assert ("src/alias.rs", 2, "Vec3B") in answers[0][1]


def test_c_tests_are_found_by_the_header_they_include() -> None:
    """Every C include is a star import: the test files that include the target's header
    (beside it, by a path from the root, below ``include/``) are found, and only those;
    a relative star import that names no module (``from . import *``) still counts."""
    tests = {
        "test/test-cache.c": b'#include "../src/cache.h"\nint t1(void) { return 0; }\n',
        "test/test-path.c": b'#include "src/cache.h"\nint t2(void) { return 0; }\n',
        "src/test_beside.c": b'#include "cache.h"\nint t3(void) { return 0; }\n',
        "test/test-other.c": b'#include "src/ledger.h"\n#include <stdio.h>\nint t4(void);\n',
        "test/test-none.c": b"int t5(void) { return 0; }\n",
    }
    index = _workspace({
        "src/cache.h": b"int evict(int n);\n",
        "src/cache.c": b'#include "cache.h"\nint evict(int n) { return n; }\n',
        "src/ledger.h": b"int post(void);\n",
        "billing/__init__.py": b"def add(a, b):\n    return a + b\n",
        "billing/test_star.py": b"from . import *\n\n\ndef test_it():\n    pass\n",
        "billing/test_plain.py": b"import os\n",
        **tests})
    evict = resolve(index.files["/ws/src/cache.c"].outline, "evict", "src/cache.c")
    found = {h.path for h in find_tests(index, "/ws/src/cache.c", evict, _is_test)
             if h.evidence.startswith("imports")}
    assert found == {"test/test-cache.c", "test/test-path.c", "src/test_beside.c"}
    assert "/ws/test/test-other.c" not in index._imported  # its includes were never read
    add = resolve(index.files["/ws/billing/__init__.py"].outline, "add", "billing/__init__.py")
    found = {h.path for h in find_tests(index, "/ws/billing/__init__.py", add, _is_test)
             if h.evidence.startswith("imports")}
    assert found == {"billing/test_star.py"}


def test_a_java_or_csharp_import_binds_names_in_its_own_file_alone() -> None:
    """`using Deep;` in a file of namespace Mid brings Deep's classes into that file only:
    a file using Mid does not see them through it; a Java class imported into package p1 is
    not importable from p1. Python's `from m import *` and `from m import x` re-export."""
    csharp = _workspace({
        "Deep/Foo.cs": b"namespace Deep;\n\npublic class Foo { }\n",
        "Mid/B.cs": b"using Deep;\n\nnamespace Mid;\n\npublic class B { Foo f; }\n",
        "App/Use.cs": b"using Mid;\n\nnamespace App;\n\nclass Use { Foo f; B b; }\n",
    })
    use, mid = csharp.files["/ws/App/Use.cs"], csharp.files["/ws/Mid/B.cs"]
    assert csharp.export(use, "Foo") is None
    assert [f[0].path for f in (csharp.export(use, "B"), csharp.export(mid, "Foo")) if f] == [
        "Mid/B.cs", "Deep/Foo.cs"]
    java = _workspace({
        "src/main/java/p2/Foo.java": b"package p2;\n\npublic class Foo {\n}\n",
        "src/main/java/p1/B.java": b"package p1;\n\nimport p2.Foo;\n\nclass B {\n}\n",
        "src/main/java/app/App.java": (b"package app;\n\nimport p1.Foo;\n\n"
                                       b"class App {\n    Foo f;\n}\n"),
    })
    assert java.export(java.files["/ws/src/main/java/app/App.java"], "Foo") is None
    python = _workspace({"base.py": b"class Foo:\n    pass\n", "mid.py": b"from base import *\n",
                         "top.py": b"from mid import *\n", "one.py": b"from mid import Foo\n"})
    for path in ("top.py", "one.py"):
        found = python.export(python.files[f"/ws/{path}"], "Foo")
        assert found is not None and found[0].path == "base.py", path


def test_a_modules_files_are_in_path_order_however_they_were_filed() -> None:
    """A pooled scan files its batches as they finish: the first file of a C# namespace (what
    an import of it shows) was another from one scan to the next."""
    files = {f"Lib/{name}.cs": f"namespace Lib;\n\npublic class {name} {{ }}\n".encode()
             for name in ("Zeta", "Alpha", "Mid")}
    files["App/Use.cs"] = b"using Lib;\n\nnamespace App;\n\nclass Use { Alpha a; }\n"
    firsts = set()
    for order in (list(files), list(reversed(files))):
        index = _workspace({path: files[path] for path in order})
        assert index.modules["Lib"] == sorted(index.modules["Lib"]), order
        found = index.module_file("Lib", index.files["/ws/App/Use.cs"])
        assert found is not None
        firsts.add(found.path)
    assert firsts == {"Lib/Alpha.cs"}


def test_a_csharp_name_no_file_declares_is_sought_in_no_namespace() -> None:
    """Where class names are global, a name no file declares is no class: the namespaces
    the file uses are not searched for it (a C# window asks this of every member it reads:
    jellyfin's `LibraryController` searched 40 usings for each)."""
    index = _workspace({
        "Lib/Money.cs": b"namespace Lib;\n\npublic class Money { public int Value; }\n",
        "App/Use.cs": b"using Lib;\n\nnamespace App;\n\nclass Use { Money m; }\n",
    })
    use = index.files["/ws/App/Use.cs"]
    asked: list[str] = []
    tops = index.tops
    index.tops = lambda info: asked.append(info.path) or tops(info)  # type: ignore[method-assign]
    assert index.class_named(use, "_logger") is None
    assert asked == []
    found = index.class_named(use, "Money")
    assert found is not None and found[0].path == "Lib/Money.cs" and asked


def test_the_name_at_a_position_is_found_as_a_scan_of_the_whole_file_finds_it() -> None:
    """``definition`` finds the declaration or call at a position from per-row tables (a
    window asks it of every call in its body): at every call and every declaration's name
    of every fixture file, the same declaration, call and enclosing declaration as
    scanning all of the file's for the first one there."""
    from ctxls.index import derived
    from ctxls.index.resolve import definition
    from ctxls.syntax.symbols import at_row
    from tests.unit.test_tops import FIXTURES
    from tests.unit.test_tops import _workspace as fixture_workspace

    asked = 0
    for lang_dir in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        index = fixture_workspace(lang_dir).refs
        for info in index.files.values():
            if info.tables.refs is None:
                continue
            names, calls = derived.by_row(info.outline, info.refs)
            for row, col in ([(c.row, c.end_col) for c in info.refs.calls]
                             + [(d.name_span.start_row, d.name_span.start_col)
                                for d in info.outline.decls]):
                decl = next((d for d in info.outline.decls if d.name_span.start_row == row
                             and d.name_span.start_col <= col <= d.name_span.end_col), None)
                call = next((c for c in info.refs.calls
                             if c.row == row and c.col <= col <= c.end_col), None)
                assert decl == next((d for d in names.get(row, ()) if d.name_span.start_col
                                     <= col <= d.name_span.end_col), None), (info.path, row)
                assert call == next((c for c in calls.get(row, ())
                                     if c.col <= col <= c.end_col), None), (info.path, row)
                assert index.at_row(info, row) == at_row(info.outline, row), (info.path, row)
                if decl is not None:
                    assert definition(index, info, row, col) == (info, decl)
                asked += 1
    assert asked > 1000


def test_a_c_name_no_file_declares_at_its_top_is_sought_through_no_include() -> None:
    """A C call of `free` or a use of an enum's member: no file declares it at its top, so
    it is no function any include could bring, and no include is followed for it (git's
    `send_pack` window followed every header's includes, six deep, for each: 1.2 s)."""
    index = _workspace({
        "deep.h": (b"enum status { STATUS_OK, STATUS_NONE };\n"
                   b"struct pack { int (*close)(void); };\n"
                   b"int deep_helper(int x);\n"),
        "mid.h": b"#include \"deep.h\"\n\nint mid_helper(int x);\n",
        "send.c": (b"#include \"mid.h\"\n\nint send(struct pack *p) {\n"
                   b"    free(p);\n    p->close();\n    return deep_helper(STATUS_OK);\n}\n"),
    })
    send = index.files["/ws/send.c"]
    asked: list[str] = []
    tops = index.tops
    index.tops = lambda info: asked.append(info.path) or tops(info)  # type: ignore[method-assign]
    for name in ("free", "STATUS_OK", "close"):
        assert index.export(send, name) is None
    assert asked == []
    found = index.export(send, "deep_helper")
    assert found is not None and found[0].path == "deep.h" and "mid.h" in asked


def test_a_cpp_member_is_found_by_its_qualified_name_though_c_files_top_names_only() -> None:
    """C and C++ file only their top-level names as global (a class's method is no
    function the linker joins), so a dotted name's last part may be filed nowhere and still
    be a class's member: `store.Cache.get` and `store.Cache.Entry` are found through the
    include, not answered None for want of a filed `get`."""
    index = _workspace({
        "cache.hpp": (b"namespace store {\nclass Cache {\n public:\n  int get(int k);\n"
                      b"  struct Entry { int v; };\n};\n}\n"),
        "cache.cpp": (b"#include \"cache.hpp\"\n\nnamespace store {\n"
                      b"int Cache::get(int k) { return k; }\n}\n"),
        "use.cpp": (b"#include \"cache.hpp\"\n\nint run() {\n  store::Cache c;\n"
                    b"  return c.get(1);\n}\n"),
    })
    use = index.files["/ws/use.cpp"]
    assert "get" not in index.declared_by and "Entry" not in index.declared_by
    found = {name: index.export(use, name) for name in ("store.Cache.get", "store.Cache.Entry")}
    assert {n: (f[0].path, f[1].kind) for n, f in found.items() if f} == {
        "store.Cache.get": ("cache.cpp", "method"), "store.Cache.Entry": ("cache.hpp", "struct")}
    assert index.export(use, "get") is None  # (undotted: no top-level `get` anywhere)


def test_a_go_field_is_used_only_where_imports_lead_to_its_package(tmp_path: Path) -> None:
    """Go has no qualified name without an import: a file is judged for a struct's field
    only when its imports lead to the struct's package, through any file of each package
    on the way (a package imports what any of its files does). terraform's `Backend.Type`
    read and parsed every Go file naming `Type`: 3.8 s."""
    from ctxls.index.reach import leads_to, may_use

    index = _on_disk(tmp_path, {
        "go.mod": b"module example.com/app\n\ngo 1.22\n",
        "p/t.go": b"package p\n\ntype T struct {\n\tField int\n}\n",
        # q's first file imports nothing; its second one makes a p.T
        "q/a.go": b"package q\n\nfunc Helper() int { return 1 }\n",
        "q/b.go": (b"package q\n\nimport \"example.com/app/p\"\n\n"
                   b"func Make() *p.T { return &p.T{} }\n"),
        "main/main.go": (b"package main\n\nimport \"example.com/app/q\"\n\n"
                         b"func main() {\n\tx := q.Make()\n\t_ = x.Field\n}\n"),
        "other/o.go": (b"package other\n\nimport \"fmt\"\n\ntype U struct{ Field int }\n\n"
                       b"func f(u U) { fmt.Println(u.Field) }\n"),
    })
    home = index.files[f"{tmp_path}/p/t.go"]
    field = next(d for d in home.outline.decls if d.name == "Field")
    own = {home.key}
    assert leads_to(index, index.files[f"{tmp_path}/q/a.go"], own)  # (through q/b.go)
    judged = {p: may_use(index, index.files[f"{tmp_path}/{p}"], home, field, {"Field"})
              for p in ("main/main.go", "other/o.go", "q/a.go")}
    assert judged == {"main/main.go": True, "other/o.go": False, "q/a.go": True}


def modules_sought(monkeypatch: pytest.MonkeyPatch) -> list[str]:
    """The expressions ``RefIndex`` works out as modules from now on, in order."""
    sought: list[str] = []
    real = RefIndex._module_of

    def seeking(self: RefIndex, info: FileInfo, expr: str) -> FileInfo | None:
        sought.append(expr)
        return real(self, info, expr)

    monkeypatch.setattr(RefIndex, "_module_of", seeking)
    return sought


def test_a_call_in_a_receivers_text_is_sought_as_no_module(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """`p = project().file(1).build()`: p's class comes from what build() returns, and the
    text before it names no module; it was sought as one (cargo's builder chains: 2,000
    of a window's 17,000 module lookups). The use through it is still proven."""
    index = _workspace({
        "b.py": (b"class B:\n    def file(self, x) -> 'B':\n        return self\n\n"
                 b"    def build(self) -> 'B':\n        return self\n\n"
                 b"    def run(self):\n        return 1\n\n\ndef project() -> B:\n"
                 b"    return B()\n"),
        "use.py": b"from b import project\n\np = project().file(1).build()\np.run()\n",
    })
    sought = modules_sought(monkeypatch)
    home = index.files["/ws/b.py"]
    resolved, _ = references(index, home.key, resolve(home.outline, "B.run", "b.py"))
    assert [(r.path, r.call.row) for r in resolved] == [("use.py", 3)]
    assert not any("(" in expr for expr in sought)


def test_a_go_packages_files_share_one_answer_of_where_their_imports_lead(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Whether a Go file's package imports its way to a struct's package is asked of the
    package's first file, whose answer all its files share: each of forty files asking
    for itself read the forty files' imports again (1,600 reads for one package)."""
    from ctxls.index import reach

    files = {"go.mod": b"module example.com/app\n\ngo 1.22\n",
             "p/t.go": b"package p\n\ntype T struct {\n\tField int\n}\n"}
    for i in range(40):
        files[f"q/f{i:02}.go"] = (b"package q\n\nimport \"fmt\"\n\n"
                                  b"func F%d() { fmt.Println(%d) }\n" % (i, i))
    index = _on_disk(tmp_path, files)
    home = index.files[f"{tmp_path}/p/t.go"]
    field = next(d for d in home.outline.decls if d.name == "Field")
    read: list[str] = []
    real = reach.resolved_imports

    def reading(ix: RefIndex, info: FileInfo) -> Any:
        read.append(info.path)
        return real(ix, info)

    monkeypatch.setattr(reach, "resolved_imports", reading)
    assert not any(reach.may_use(index, index.files[f"{tmp_path}/q/f{i:02}.go"], home, field,
                                 {"Field"}) for i in range(40))
    assert len(read) <= 2 * 40
