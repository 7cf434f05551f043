"""First-class languages through the real server: the fixtures of tests/fixtures/<lang>."""

from __future__ import annotations

import re
from pathlib import Path

from ctxls.syntax import languages
from ctxls_client import CtxClient

from .conftest import FIXTURES, copy_fixtures


async def test_go_method_by_receiver_with_its_struct(tmp_path: Path) -> None:
    copy_fixtures(FIXTURES, tmp_path / "fx")
    always = {"wholeMaxLines": 0, "wholeMaxTokens": 0, "flatRatio": 0}
    async with await CtxClient.start(tmp_path / "fx", options=always) as ctx:
        sym = await ctx.read_symbol("go/cache/cache.go", "Cache.Evict")
        assert sym.symbol == "Cache.Evict" and sym.kind == "method"
        text = sym.text
        assert "package cache" in text and "type Cache[K comparable, V any] struct {" in text
        assert "func (c *Cache[K, V]) Evict() {" in text
        assert text.index("struct {") < text.index("Evict() {")  # lineage first
        sk = await ctx.skeleton("go/cache/cache.go", "Cache.Evict", line_numbers=False)
        assert sk.mode == "skeleton" and "lines elided */" in sk.text
        go = languages.registry()["go"]
        assert not go.parser().parse(sk.text.encode()).root_node.has_error


async def test_each_first_class_language_answers_skeletons(tmp_path: Path) -> None:
    copy_fixtures(FIXTURES, tmp_path / "fx")
    root = tmp_path / "fx"
    files = {lang.name: next(p for p in sorted(root.rglob("*"))
                             if p.is_file() and p.suffix in lang.extensions)
             for lang in languages.registry().values()
             if any(p.suffix in lang.extensions for p in root.rglob("*"))}
    assert {"go", "java", "rust", "ruby"} <= set(files)
    always = {"wholeMaxLines": 0, "wholeMaxTokens": 0, "flatRatio": 0}
    async with await CtxClient.start(root, options=always) as ctx:
        for name, path in files.items():
            sk = await ctx.skeleton(str(path), line_numbers=False)
            assert sk.language == name and sk.mode == "skeleton", (name, sk.reason)
            lang = languages.registry()[name]
            assert not lang.parser().parse(sk.text.encode()).root_node.has_error, name


async def test_languages_without_reference_tables_answer_by_text(tmp_path: Path) -> None:
    root = tmp_path / "lua"
    root.mkdir()
    (root / "lib.lua").write_text("function add(a, b)\n    return a + b\nend\n")
    (root / "main.lua").write_text("require('lib')\n\nlocal function main()\n"
                                   "    return add(1, 2)\nend\n")
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        r = await ctx.request("ctx/references", {"path": "lib.lua", "name": "add"})
        assert r["references"] == [] and r["complete"] is False
        assert ("main.lua", 4) in {(c["path"], c["range"]["start"]["line"] + 1)
                                   for c in r["candidates"]}
        assert all(c["evidence"] == "text match only: no reference table for lua yet"
                   for c in r["candidates"])


async def test_a_c_function_is_global_across_files(tmp_path: Path) -> None:
    """No header: main.c declares add's prototype itself; the linker joins it to lib.c's."""
    root = tmp_path / "c"
    root.mkdir()
    (root / "lib.c").write_text("int add(int a, int b) {\n    return a + b;\n}\n")
    (root / "main.c").write_text("int add(int a, int b);\n\nint main(void) {\n"
                                 "    return add(1, 2);\n}\n")
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        r = await ctx.request("ctx/references", {"path": "lib.c", "name": "add"})
        assert [(s["path"], s["range"]["start"]["line"] + 1) for s in r["references"]] == [
            ("main.c", 4)]


async def test_a_c_function_passed_as_a_value_through_nested_headers(tmp_path: Path) -> None:
    """textDocument/references lists `a->cb = work_done` in loop.c, which sees work_done's
    prototype through internal.h -> uv.h and never calls it; other.c's `work_done` is its
    own static function; `a->work_done` is a field."""
    files = {
        "include/uv.h": "void work_done(int status);\n",
        "src/threadpool.c": ('#include "uv.h"\nvoid work_done(int status) {\n'
                             "    (void) status;\n}\n"),
        "src/internal.h": '#include "uv.h"\n',
        "src/loop.c": ('#include "internal.h"\nstruct async { void (*cb)(int); };\n'
                       "void loop_init(struct async *a) {\n    a->cb = work_done;\n"
                       "    a->work_done = 0;\n}\n"),
        "src/other.c": ("static void work_done(int s) {\n    (void) s;\n}\n"
                        "void g(struct async *a) {\n    a->cb = work_done;\n}\n"),
    }
    root = tmp_path / "c"
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        found = await ctx.request("textDocument/references", {
            "textDocument": {"uri": (root / "src/threadpool.c").as_uri()},
            "position": {"line": 1, "character": 6}, "context": {"includeDeclaration": False}})
    assert sorted((Path(r["uri"].removeprefix("file://")).relative_to(root).as_posix(),
                   r["range"]["start"]["line"], r["range"]["start"]["character"])
                  for r in found) == [("src/loop.c", 3, 12)]


PHP_FAMILY = {
    "src/Handler.php": ("<?php\nnamespace App;\n\ninterface Handler\n{\n"
                        "    public function handle(): bool;\n}\n"),
    "src/Formats.php": ("<?php\nnamespace App;\n\ntrait Formats\n{\n"
                        "    public function formatter(): string\n    {\n"
                        "        return 'x';\n    }\n}\n"),
    "src/Base.php": ("<?php\nnamespace App;\n\nabstract class Base implements Handler\n{\n"
                     "    use Formats;\n\n    public function __construct()\n    {\n    }\n\n"
                     "    public function handle(): bool\n    {\n"
                     "        return $this->formatter() !== '';\n    }\n}\n"),
    "src/Quiet.php": ("<?php\nnamespace App;\n\nuse App\\Sub\\Config;\n\n"
                     "class Quiet extends Base\n{\n    private $config;\n\n"
                     "    public function __construct()\n    {\n        parent::__construct();\n"
                     "        $this->config = new Config();\n    }\n\n"
                     "    /** @throws Config when it cannot */\n"
                     "    public function handle(): bool\n    {\n"
                     "        return parent::handle() && $this->config->path() !== '';\n"
                     "    }\n}\n"),
    "src/Sub/Config.php": ("<?php\nnamespace App\\Sub;\n\nclass Config\n{\n"
                           "    private string $path = '';\n\n"
                           "    public function path(): string\n    {\n"
                           "        return $this->path;\n    }\n}\n"),
}


async def test_php_references_as_intelephense_counts_them(tmp_path: Path) -> None:
    """`parent::handle()` and calls of any method of one family (an interface's method and
    its implementations) are references; a constructor is its class's own; `$this->path`
    is the property, not the method `path()`; a type in a doc comment's `@throws` is a use
    of the class; a `use App\\Sub\\Config;` line starts where its qualified name does; an
    untyped property is typed by `$this->config = new Config()`; `$this->formatter()` is
    the trait's method even though an interface comes first among the class's bases."""
    root = tmp_path / "php"
    for rel, text in PHP_FAMILY.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)

    async def refs(path: str, name: str) -> list[tuple[str, int, int]]:
        lines = PHP_FAMILY[path].splitlines()
        row = next(i for i, ln in enumerate(lines) if re.search(rf"(function|class|trait|"
                                                                  rf"interface) {name}\b", ln))
        found = await ctx.request("textDocument/references", {
            "textDocument": {"uri": (root / path).as_uri()},
            "position": {"line": row, "character": lines[row].index(name)},
            "context": {"includeDeclaration": False}})
        return sorted((Path(r["uri"].removeprefix("file://")).relative_to(root).as_posix(),
                       r["range"]["start"]["line"], r["range"]["start"]["character"])
                      for r in found)

    def at(path: str, needle: str, name: str) -> tuple[str, int, int]:
        """Where ``name`` is, inside the first line of ``path`` that holds ``needle``."""
        lines = PHP_FAMILY[path].splitlines()
        row = next(i for i, ln in enumerate(lines) if needle in ln)
        return path, row, lines[row].index(needle) + needle.index(name)

    quiet = "src/Quiet.php"
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        assert await refs("src/Base.php", "handle") == [at(quiet, "parent::handle", "handle")]
        assert await refs("src/Handler.php", "handle") == [at(quiet, "parent::handle", "handle")]
        assert await refs("src/Base.php", "__construct") == [
            at(quiet, "parent::__construct", "__construct")]
        assert await refs(quiet, "__construct") == []
        assert await refs("src/Sub/Config.php", "path") == [at(quiet, "->path()", "path")]
        assert await refs("src/Formats.php", "formatter") == [
            at("src/Base.php", "$this->formatter", "formatter")]
        assert await refs("src/Sub/Config.php", "Config") == [
            at(quiet, "use App", "App"), at(quiet, "new Config", "Config"),
            at(quiet, "@throws Config", "Config")]


async def test_typescript_references_through_es_imports(tmp_path: Path) -> None:
    root = tmp_path / "ts"
    copy_fixtures(FIXTURES / "typescript" / "refs", root)
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        pricing = "src/billing/pricing.ts"
        refs = await ctx.references(pricing, "computeLineTotal")
        assert refs.complete
        assert {(s.path, s.range.start.line + 1, s.evidence) for s in refs.references} == {
            ("src/billing/checkout.ts", 8, "imported name"),  # through an alias
            ("src/billing/checkout.ts", 9, "module attribute pricing.computeLineTotal"),
            ("test/pricing.test.ts", 5, "imported name"),  # ../src/billing/pricing
        }
        add = await ctx.references(pricing, "Ledger.add")
        assert {s.range.start.line + 1 for s in add.references} == {10, 12}  # this.ledger, fresh
        assert [c.enclosing for c in add.candidates] == ["unrelated"]  # x has no known type
        total = await ctx.references(pricing, "Ledger.total")
        assert {s.range.start.line + 1 for s in total.references} == {12, 13}  # via add()'s type
        tests = await ctx.tests(pricing, "computeLineTotal")
        assert [t.path for t in tests.tests] == ["test/pricing.test.ts"]


async def test_javascript_references_through_require_and_imports(tmp_path: Path) -> None:
    root = tmp_path / "js"
    copy_fixtures(FIXTURES / "javascript" / "refs", root)
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        fmt = await ctx.references("money.js", "formatCents")
        assert {(s.range.start.line + 1, s.evidence) for s in fmt.references} == {
            (11, "imported name"),  # fmt(...), from "./money.js"
            (11, "module attribute money.formatCents"),  # require("./money")
        }
        plus = await ctx.references("money.js", "Money.plus")
        assert {s.range.start.line + 1 for s in plus.references} == {7, 10}


async def test_go_references_across_the_files_of_a_package(tmp_path: Path) -> None:
    root = tmp_path / "go"
    copy_fixtures(FIXTURES / "go" / "refs", root)
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        evict = await ctx.references("billing/evict.go", "Cache.Evict")
        assert evict.complete
        assert {(s.path, s.range.start.line + 1, s.evidence) for s in evict.references} == {
            ("app/main.go", 11, "c: Cache"),  # c, _ := b.NewCache(3): its first result
            ("app/main.go", 14, "other: Cache"),  # var other b.Cache
            ("billing/evict.go", 18, "c: Cache"),  # a parameter
            ("billing/evict_test.go", 7, "c: Cache"),
        }
        total = await ctx.references("billing/evict.go", "Total")
        assert [(s.path, s.evidence) for s in total.references] == [
            ("app/main.go", "module attribute b.Total")]  # import alias b, go.mod prefix
        tests = await ctx.tests("billing/cache.go", "NewCache")
        assert [(t.path, t.symbol) for t in tests.tests] == [
            ("billing/evict_test.go", "TestEvict")]
        sym = await ctx.read_symbol("billing/evict.go", "Cache.Evict")
        assert "package billing" in sym.text


async def test_java_references_through_packages_fields_and_implicit_this(
        tmp_path: Path) -> None:
    root = tmp_path / "java"
    copy_fixtures(FIXTURES / "java", root)
    service = "src/main/java/com/example/billing/InvoiceService.java"
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        draft = await ctx.references(service, "InvoiceService.draft")
        assert draft.complete
        assert {(s.enclosing, s.evidence) for s in draft.references} == {
            ("InvoiceServiceTest.draftRejectsAnEmptyOrder", "service: InvoiceService"),
            ("InvoiceServiceTest.Issue.capsTheDiscount", "service: InvoiceService"),
        }  # a field of the (outer) test class, same package from src/test
        load = await ctx.references(service, "InvoiceService.load")
        assert [(s.enclosing, s.evidence) for s in load.references] == [
            ("InvoiceService.issue", "load() in InvoiceService")]  # implicit this
        tests = await ctx.tests(service, "InvoiceService.draft")
        assert {t.path for t in tests.tests} == {
            "src/test/java/com/example/billing/InvoiceServiceTest.java"}


async def test_rust_references_through_use_paths_and_impl_types(tmp_path: Path) -> None:
    root = tmp_path / "rust"
    copy_fixtures(FIXTURES / "rust" / "refs", root)
    cache = "src/billing/cache.rs"
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        evict = await ctx.references(cache, "Cache.evict")
        assert evict.complete
        assert {(s.path, s.range.start.line + 1, s.evidence) for s in evict.references} == {
            ("src/billing/cache.rs", 19, "self: Cache"),
            ("src/main.rs", 8, "c: Cache"),  # let c = Cache::new(4): new() returns Self
        }
        total = await ctx.references(cache, "total")
        assert {(s.range.start.line + 1, s.evidence) for s in total.references} == {
            (11, "imported name"),  # use crate::billing::cache::total as sum_all
            (12, "module attribute cache.total"),  # use crate::billing::cache::{self}
        }


async def test_ruby_references_through_global_constants_and_implicit_self(
        tmp_path: Path) -> None:
    root = tmp_path / "ruby"
    copy_fixtures(FIXTURES / "ruby" / "refs", root)
    async with await CtxClient.start(root, wait_for_index=True) as ctx:
        save = await ctx.references("lib/billing/store.rb", "Billing.Store.save")
        assert save.complete
        assert {(s.path, s.evidence) for s in save.references} == {
            ("lib/billing/ledger.rb", "@store: Billing.Store"),  # @store = Store.new(...)
            ("test/ledger_test.rb", "store: Billing.Store"),  # Billing::Store.new in a test
        }
        check = await ctx.references("lib/billing/ledger.rb", "Billing.Ledger.check")
        assert [s.evidence for s in check.references] == ["check() in Billing.Ledger"]
        tests = await ctx.tests("lib/billing/store.rb", "Billing.Store.save")
        assert [(t.path, t.symbol) for t in tests.tests] == [
            ("test/ledger_test.rb", "LedgerTest.test_record")]


async def test_kotlin_is_first_class(tmp_path: Path) -> None:
    """Kotlin: declarations, a method by name, a window around it, and references across
    files through a constructor property's type and a local built by a constructor."""
    root = copy_fixtures(FIXTURES / "kotlin", tmp_path / "kt")
    main = "src/main/kotlin/com/example/billing"
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        sym = await ctx.read_symbol(f"{main}/Invoice.kt", "Invoice.add")
        assert sym.kind == "method" and "fun add(line: Line): Invoice {" in sym.text
        assert "data class Invoice(" in sym.text  # its class travels with it
        window = await ctx.request("ctx/construct", {
            "path": f"{main}/Ledger.kt", "target": {"symbol": "Ledger.record"},
            "task": "count paid lines only", "ceiling": 6000})
        target = next(w for w in window["window"] if w["role"] == "target")
        assert target["symbol"] == "Ledger.record"
        lines = (root / f"{main}/Ledger.kt").read_text().splitlines()
        shown = {r for w in window["window"] if w["path"] == f"{main}/Ledger.kt"
                 for s in w["shown"] for r in range(s["start"]["line"], s["end"]["line"] + 1)}
        assert lines.index("    fun record(invoice: Invoice): Int {") in shown
        record = await ctx.request("ctx/references", {"path": f"{main}/Ledger.kt",
                                                      "name": "Ledger.record"})
        sites = {(s["path"], s["range"]["start"]["line"]) for s in record["references"]}
        test = "src/test/kotlin/com/example/billing/LedgerTest.kt"
        assert sites == {(f"{main}/Ledger.kt", lines.index("            record(found)")),
                         (test, 9)}
        save = await ctx.request("ctx/references", {"path": f"{main}/Invoice.kt",
                                                    "name": "Store.save"})
        assert [(s["path"], s["evidence"]) for s in save["references"]] == [
            (f"{main}/Ledger.kt", "store: Store")]
        tests = await ctx.request("ctx/tests", {"path": f"{main}/Ledger.kt",
                                                "name": "Ledger.record"})
        assert [(t["path"], t["symbol"]) for t in tests["tests"]][:1] == [
            (test, "LedgerTest.recordsAnInvoice")]


async def test_csharp_is_first_class(tmp_path: Path) -> None:
    """C#: a method by its short name inside a namespace, a window around it, references
    through a field's interface type and a `new` local, the test by name."""
    root = copy_fixtures(FIXTURES / "csharp", tmp_path / "cs")
    src = "src/Billing"
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        sym = await ctx.read_symbol(f"{src}/Invoice.cs", "Invoice.Add")
        assert sym.kind == "method" and "public Invoice Add(Line line)" in sym.text
        assert "public class Invoice : IPrintable" in sym.text
        window = await ctx.request("ctx/construct", {
            "path": f"{src}/Ledger.cs", "target": {"symbol": "Ledger.Record"},
            "task": "count paid invoices only", "ceiling": 6000})
        assert next(w for w in window["window"] if w["role"] == "target")["symbol"] == \
            "Ledger.Record"
        lines = (root / f"{src}/Ledger.cs").read_text().splitlines()
        record = await ctx.request("ctx/references", {"path": f"{src}/Ledger.cs",
                                                      "name": "Ledger.Record"})
        test = "tests/Billing.Tests/LedgerTests.cs"
        test_lines = (root / test).read_text().splitlines()
        assert {(s["path"], s["range"]["start"]["line"]) for s in record["references"]} == {
            (f"{src}/Ledger.cs", lines.index("            Record(found);")),
            (test, next(i for i, x in enumerate(test_lines) if "ledger.Record(" in x))}
        save = await ctx.request("ctx/references", {"path": f"{src}/Invoice.cs",
                                                    "name": "IStore.Save"})
        assert [(s["path"], s["evidence"]) for s in save["references"]] == [
            (f"{src}/Ledger.cs", "store: Billing.IStore")]
        tests = await ctx.request("ctx/tests", {"path": f"{src}/Ledger.cs",
                                                "name": "Ledger.Record"})
        assert [(t["path"], t["symbol"]) for t in tests["tests"]][:1] == [
            (test, "Billing.Tests.LedgerTests.RecordsAnInvoice")]


async def test_php_is_first_class(tmp_path: Path) -> None:
    """PHP: a method by name, a window around it, references through a typed property
    ($this->store->save) and a `new` local, the test by name."""
    root = copy_fixtures(FIXTURES / "php", tmp_path / "php")
    src = "src/Billing"
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        sym = await ctx.read_symbol(f"{src}/Invoice.php", "Invoice.add")
        assert sym.kind == "method" and "public function add(Line $line): self" in sym.text
        assert "final class Invoice implements Printable" in sym.text
        window = await ctx.request("ctx/construct", {
            "path": f"{src}/Ledger.php", "target": {"symbol": "Ledger.record"},
            "task": "count paid invoices only", "ceiling": 6000})
        assert next(w for w in window["window"] if w["role"] == "target")["symbol"] == \
            "Ledger.record"
        lines = (root / f"{src}/Ledger.php").read_text().splitlines()
        test = "tests/LedgerTest.php"
        test_lines = (root / test).read_text().splitlines()
        record = await ctx.request("ctx/references", {"path": f"{src}/Ledger.php",
                                                      "name": "Ledger.record"})
        assert {(s["path"], s["range"]["start"]["line"]) for s in record["references"]} == {
            (f"{src}/Ledger.php", lines.index("            $this->record($found);")),
            (test, next(i for i, x in enumerate(test_lines) if "$ledger->record(" in x))}
        save = await ctx.request("ctx/references", {"path": f"{src}/Invoice.php",
                                                    "name": "Store.save"})
        assert [s["path"] for s in save["references"]] == [f"{src}/Ledger.php"]
        tests = await ctx.request("ctx/tests", {"path": f"{src}/Ledger.php",
                                                "name": "Ledger.record"})
        assert [(t["path"], t["symbol"]) for t in tests["tests"]][:1] == [
            (test, "LedgerTest.testRecordsAnInvoice")]


async def test_c_is_first_class(tmp_path: Path) -> None:
    """C: a function by name, the header's prototype beside its definition as one module,
    references from a test that includes the header by another path, the test by name."""
    root = copy_fixtures(FIXTURES / "c", tmp_path / "c")
    src = "src/billing"
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        sym = await ctx.read_symbol(f"{src}/ledger.c", "ledger_record")
        assert "enum ledger_status ledger_record(ledger_t *l, long cents) {" in sym.text
        window = await ctx.request("ctx/construct", {
            "path": f"{src}/ledger.c", "target": {"symbol": "ledger_total"},
            "task": "skip refunds", "ceiling": 6000})
        assert next(w for w in window["window"] if w["role"] == "target")["symbol"] == \
            "ledger_total"
        test = "tests/test_ledger.c"
        test_lines = (root / test).read_text().splitlines()
        total = await ctx.request("ctx/references", {"path": f"{src}/ledger.c",
                                                     "name": "ledger_total"})
        assert [(s["path"], s["range"]["start"]["line"]) for s in total["references"]] == [
            (test, next(i for i, x in enumerate(test_lines) if "ledger_total(" in x))]
        tests = await ctx.request("ctx/tests", {"path": f"{src}/ledger.c",
                                                "name": "ledger_total"})
        assert [(t["path"], t["symbol"]) for t in tests["tests"]][:1] == [
            (test, "test_record_then_total")]


async def test_cpp_is_first_class(tmp_path: Path) -> None:
    """C++: a method defined outside its class by its short name, with the class from the
    header as lineage; references through a namespaced local, found by the test."""
    root = copy_fixtures(FIXTURES / "cpp", tmp_path / "cpp")
    src = "src/billing"
    async with await CtxClient.start(root, options={"persist": False},
                                     wait_for_index=True) as ctx:
        sym = await ctx.read_symbol(f"{src}/ledger.cpp", "Ledger.record")
        assert "bool Ledger::record(long cents) {" in sym.text
        test = "tests/ledger_test.cpp"
        test_lines = (root / test).read_text().splitlines()
        record = await ctx.request("ctx/references", {"path": f"{src}/ledger.cpp",
                                                      "name": "Ledger.record"})
        assert [(s["path"], s["range"]["start"]["line"]) for s in record["references"]] == [
            (test, next(i for i, x in enumerate(test_lines) if "ledger.record(" in x))]
        clamp = await ctx.request("ctx/references", {"path": f"{src}/ledger.cpp",
                                                     "name": "Ledger.clamp"})
        assert [s["path"] for s in clamp["references"]] == [f"{src}/ledger.cpp"]
        tests = await ctx.request("ctx/tests", {"path": f"{src}/ledger.cpp",
                                                "name": "Ledger.total"})
        assert [(t["path"], t["symbol"]) for t in tests["tests"]][:1] == [
            (test, "test_record_then_total")]
