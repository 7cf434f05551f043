"""Every grammars/ folder loads: its data file parses and its queries compile."""

from __future__ import annotations

import contextlib
import shutil
from collections.abc import Iterator
from pathlib import Path

import pytest
import tree_sitter as ts

from ctxls.index.scan import index_bytes
from ctxls.syntax import languages
from ctxls.syntax.spec import SpecError, read_spec


def test_every_grammar_folder_loads() -> None:
    folders = sorted(d.name for d in languages.grammars_dir().iterdir()
                     if (d / "language.toml").is_file() and not d.name.startswith("_"))
    assert languages.load_errors() == {}
    assert sorted(languages.registry()) == folders
    assert "python" in folders


def test_extensions_are_claimed_once() -> None:
    seen: dict[str, str] = {}
    for lang in languages.registry().values():
        for ext in lang.extensions:
            assert ext not in seen, f"{ext} claimed by {seen.get(ext)} and {lang.name}"
            seen[ext] = lang.name


def test_names_without_compiling_agree_with_the_compiled_languages() -> None:
    exts = {ext for lang in languages.registry().values() for ext in lang.extensions}
    exts |= {".c", ".lua", ".zig", ".txt", ".md", "", ".PY"}
    for ext in sorted(exts):
        lang = languages.for_path(f"src/file{ext}")
        assert languages.name_for(f"src/file{ext}") == (lang.name if lang else None), ext


def test_module_systems_without_compiling_agree_with_the_compiled_languages() -> None:
    for lang in [*languages.registry().values(), None]:
        for ext in lang.extensions if lang else (".txt", ".lua"):
            want = lang.module_system if lang and lang.refs_query is not None else None
            assert languages.module_system(f"a/b{ext}") == want, ext


STATE = {  # language: (a line that sets a field, one that mutates it in place, the name,
    #                  an assertion line, a line that asserts nothing)
    "python": ("self.count: int = 0", "self.items.append(x)", "items",
               "assert total == Money(1)", "total = price * qty"),
    "java": ("this.count = 0;", "this.items.add(x);", "items",
             "assertEquals(expected, total);", "int total = price * qty;"),
    "javascript": ("this.count = 0;", "this.items.push(x);", "items",
                   "expect(total).toBe(3);", "const total = price * qty;"),
    "typescript": ("this.count = 0;", "delete this.items[key];", "items",
                   "assert.equal(total, 3);", "const total: number = price * qty;"),
    "rust": ("self.count = 0;", "self.items.push(x);", "items",
             "assert_eq!(total, 3);", "let total = price * qty;"),
    "ruby": ("@count = 0", "@items << x", "items", "expect(total).to eq(3)",
             "total = price * qty"),
}


def test_field_and_assertion_patterns_per_language() -> None:
    from ctxls.syntax.languages import registry

    langs = registry()
    for name, (sets, mutates, field, asserts, plain) in STATE.items():
        lang = langs[name]
        assert lang.sets_field and lang.reads_field and lang.mutates_field and lang.assertion
        m = lang.sets_field.search(sets)
        assert m is not None and m.group(1) == "count", name
        assert lang.sets_field.search(sets.replace("= 0", "== 0")) is None, name
        assert field in {g for m in lang.mutates_field.finditer(mutates) for g in m.groups()}
        assert lang.mutates_field.search(f"x = {sets.split('=')[0].strip()}") is None, name
        assert lang.assertion.search(asserts) and not lang.assertion.search(plain), name
    go = langs["go"]  # no fixed receiver name: no field patterns, but testing.T asserts
    assert go.sets_field is None and go.assertion and go.assertion.search('t.Fatalf("x")')


# ---- language.toml's schema ------------------------------------------------------------

GO_TOML = languages.grammars_dir() / "go" / "language.toml"


def _go_toml(tmp_path: Path, old: str, new: str) -> Path:
    """A copy of grammars/go/language.toml, under a folder named like the real one, with
    one edit."""
    text = GO_TOML.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "grammars" / "go" / "language.toml"
    path.parent.mkdir(parents=True)
    path.write_text(text.replace(old, new), encoding="utf-8")
    return path


@pytest.mark.parametrize(("old", "new", "message"), [
    ("module_system =", "modul_system =", "unknown key 'modul_system'"),
    ('[tests]\nfiles = ["*_test.go"]', '[tests]\nfile = ["*_test.go"]', "unknown key 'tests.file'"),
    ('extensions = [".go"]', 'extensions = ".go"',
     "key 'extensions': expected a list of strings, got a string"),
    ('self_names = []', 'self_names = []\nimplicit_self = "yes"',
     "key 'implicit_self': expected true or false, got a string"),
    ('name = "go"\n', "", "missing key 'name'"),
    ('module_system = "go"', 'module_system = "cobol"', "unknown module_system 'cobol'"),
    ('name = "go"\n', 'name = "go"\ninclude = ["_nowhere"]\n',
     "include '_nowhere': no folder grammars/_nowhere"),
    ('name = "go"\n', 'name = "go"\nname = "golang"\n', "grammars/go/language.toml: Cannot"),
])
def test_a_bad_language_toml_names_the_file_and_the_key(
        tmp_path: Path, old: str, new: str, message: str) -> None:
    with pytest.raises(SpecError) as raised:
        read_spec(_go_toml(tmp_path, old, new))
    assert str(raised.value).startswith("grammars/go/language.toml: ")
    assert message in str(raised.value)


def test_the_schema_reads_every_key_of_the_shipped_files() -> None:
    spec = read_spec(languages.grammars_dir() / "python" / "language.toml")
    assert spec.module_system == "python" and spec.self_names == ("self", "cls")
    assert spec.tests.injected == ("conftest.py",) and spec.tests.runner == "pytest"
    assert "conftest.py" in spec.tests.files
    go = read_spec(GO_TOML)
    assert go.tests.files == ("*_test.go",) and go.tests.injected == ()
    assert go.sets_field is None and go.comment_nodes == ("comment",)


def test_a_uses_table_comes_from_an_included_folder_unless_the_language_has_its_own(
        tmp_path: Path) -> None:
    """JavaScript, TypeScript and TSX share grammars/_ecmascript/uses.toml; a language's
    own `[uses]` wins over an included one."""
    shipped = languages.grammars_dir()
    for lang in ("javascript", "typescript", "tsx"):
        spec = read_spec(shipped / lang / "language.toml")
        assert spec.uses is not None and "class_declaration.name" in spec.uses.binding_fields
        assert spec.uses.string_code == ("template_substitution",)
    path = _go_toml(tmp_path, 'name = "go"\n', 'name = "go"\ninclude = ["_shared"]\n')
    (tmp_path / "grammars" / "_shared").mkdir()
    (tmp_path / "grammars" / "_shared" / "uses.toml").write_text('imports = ["shared"]\n')
    assert read_spec(path).uses.imports == ("import_declaration",)  # type: ignore[union-attr]
    text = path.read_text()
    path.write_text(text[: text.index("\n[uses]")] + "\n")
    assert read_spec(path).uses.imports == ("shared",)  # type: ignore[union-attr]


@pytest.fixture()
def grammars(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[Path]:
    """A grammars folder of the test's own (python and go copied from the real one)."""
    folder = tmp_path / "grammars"
    for name in ("python", "go", "_generic"):
        shutil.copytree(languages.grammars_dir() / name, folder / name)
    monkeypatch.setenv("CTXLS_GRAMMARS", str(folder))
    languages.reload()
    yield folder
    monkeypatch.undo()
    languages.reload()


def test_one_broken_language_does_not_take_the_others_down(grammars: Path) -> None:
    toml = grammars / "go" / "language.toml"
    toml.write_text(toml.read_text().replace("module_system =", "modul_system ="))
    generic = grammars / "_generic" / "languages.toml"
    generic.write_text(generic.read_text() + '".x1" = ["lua", "--"]\n')
    languages.reload()
    assert languages.load_errors() == {
        "go": "grammars/go/language.toml: unknown key 'modul_system'",
        "_generic": "grammars/_generic/languages.toml: key '.x1': expected "
                    '".ext" = [grammar, line comment, elision marker]'}
    assert sorted(languages.registry()) == ["python"]
    assert languages.for_path("a.go") is None and languages.name_for("a.go") is None
    assert languages.name_for("a.lua") == "lua"  # the generic rows that fit still load


def test_a_query_that_does_not_compile_is_reported_when_asked_for(grammars: Path) -> None:
    """A query that does not compile leaves the language loaded without that table, and
    `load_errors()` names it."""
    (grammars / "python" / "references.scm").write_text("(no_such_node) @call.name\n")
    languages.reload()
    lang = languages.for_path("a.py")
    assert lang is not None and lang.query.pattern_count > 0
    assert lang.refs_query is None and lang.scan_query is None
    errors = languages.load_errors()
    assert set(errors) == {"python:refs", "python:scan"}
    assert "no_such_node" in errors["python:refs"] or "node type" in errors["python:refs"]
    entry = index_bytes("m.py", "/m.py", b"def f():\n    g()\n", 0, 1 << 20)
    assert entry.tables is not None and entry.tables.refs is None  # the outline still is
    assert [d.qualname for d in entry.tables.outline.decls] == ["f"]


def test_an_outline_query_that_does_not_compile_makes_its_files_plain_text(
        grammars: Path) -> None:
    """Queries compile when first used, the outline's too (the first window after a warm
    restart reads cached tables and needs none): one that does not compile is found where
    it is used, its files are then indexed as plain text, and `load_errors()` names it."""
    (grammars / "python" / "outline.scm").write_text("(no_such_node) @definition.function\n")
    languages.reload()
    lang = languages.for_path("a.py")
    assert lang is not None and lang.name == "python"  # (nothing compiled yet)
    assert languages.outlined("a.py") is None and languages.outlined("a.go") is not None
    entry = index_bytes("m.py", "/m.py", b"def f():\n    g()\n", 0, 1 << 20)
    assert entry.status == "ok" and entry.tables is None
    go = index_bytes("m.go", "/m.go", b"package m\n\nfunc F() {}\n", 0, 1 << 20)
    assert go.tables is not None and [d.name for d in go.tables.outline.decls] == ["F"]
    assert {"python:outline", "python:scan"} <= set(languages.load_errors())


def test_whether_a_file_is_a_test_is_known_without_compiling(grammars: Path) -> None:
    languages.reload()
    assert languages.is_test_path("pkg/tests/test_money.py")
    assert not languages.is_test_path("pkg/money.py")
    assert not languages.is_test_path("notes/test_x.txt")  # no language, no test
    assert languages._loaded == {}
    lang = languages.for_path("x.py")
    assert lang is not None and lang.is_test_file("pkg/tests/test_money.py")


WARM_PLAN = [("a.go", "/a.go"), ("b.py", "/b.py"), ("c.py", "/c.py")]


@contextlib.contextmanager
def _compiles_recorded(order: list[str]) -> Iterator[None]:
    """Each query compiled meanwhile, as `language:query`, appended to ``order``."""
    real = languages.Language.compiled

    def compiled(self: languages.Language, name: str) -> ts.Query | None:
        order.append(f"{self.name}:{name}")
        return real(self, name)

    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(languages.Language, "compiled", compiled)
        yield


def test_the_warm_up_compiles_nothing_while_a_request_is_answered(grammars: Path) -> None:
    """The queries compiled behind the ready signal wait while requests are answered (a
    query compiles holding the GIL), and the languages with most files go first."""
    import threading

    from ctxls.warmup import load_languages as _load_languages

    languages.reload()
    answering = threading.Event()
    answering.set()
    order: list[str] = []
    with _compiles_recorded(order):
        worker = threading.Thread(target=_load_languages, args=(
            WARM_PLAN, [], answering.is_set, [lambda: order.append("converters")]))
        worker.start()
        worker.join(0.3)
        assert worker.is_alive() and order == []
        assert languages._loaded == {}  # not even an outline query
        answering.clear()
        worker.join(30)
    assert not worker.is_alive()
    assert order == ["python:top", "go:top", "python:refs", "python:scan", "python:outline",
                     "go:refs", "go:scan", "go:outline", "converters"]


def test_the_warm_up_beside_worker_processes_compiles_only_what_requests_read(
        grammars: Path) -> None:
    """``later=()`` (while the scan's workers parse): the top-level queries, then the
    converters; the queries only a change or an edit reads are left."""
    from ctxls.warmup import load_languages as _load_languages

    languages.reload()
    order: list[str] = []
    with _compiles_recorded(order):
        _load_languages(WARM_PLAN, [], lambda: False, [lambda: order.append("converters")],
                        later=())
    assert order == ["python:top", "go:top", "converters"]


# ---- include -------------------------------------------------------------------------

def test_an_include_puts_its_patterns_first(grammars: Path) -> None:
    """`include` prepends another folder's query files: the fragment's pattern and the
    folder's own both match, and the scan's combined query splits where the outline ends."""
    (grammars / "_defs").mkdir()
    (grammars / "_defs" / "outline.scm").write_text(
        "(function_definition name: (identifier) @name body: (block) @body) @definition.function\n")
    (grammars / "_defs" / "references.scm").write_text("(call function: (identifier) @call.name)\n")
    py = grammars / "python"
    own = py / "outline.scm"
    own.write_text("(class_definition name: (identifier) @name body: (block) @body)"
                   " @definition.class\n")
    (py / "references.scm").write_text(
        "(import_statement name: (dotted_name) @import.module)\n")
    (py / "toplevel.scm").unlink()
    toml = py / "language.toml"
    toml.write_text(toml.read_text().replace('name = "python"\n',
                                             'name = "python"\ninclude = ["_defs"]\n'))
    languages.reload()
    assert languages.load_errors() == {}
    lang = languages.registry()["python"]
    assert lang.query.pattern_count == 2 and lang.outline_patterns == 2
    assert lang.refs_query is not None and lang.refs_query.pattern_count == 2
    assert lang.scan_query is not None and lang.scan_query.pattern_count == 4
    src = b"import os\n\nclass A:\n    def f(self):\n        g()\n"
    entry = index_bytes("m.py", "/m.py", src, 0, 1 << 20)
    assert entry.tables is not None and entry.tables.refs is not None
    assert [(d.qualname, d.kind) for d in entry.tables.outline.decls] == [
        ("A", "class"), ("A.f", "method")]
    assert [i.module for i in entry.tables.refs.imports] == ["os"]
    assert [c.name for c in entry.tables.refs.calls] == ["g"]


def _patterns_of(folder: Path, name: str, lang: str) -> list[str]:
    spec = read_spec(folder / lang / "language.toml")
    return [" ".join(p.split()) for where in (*spec.include, lang)
            if (folder / where / name).is_file()
            for p in languages._patterns((folder / where / name).read_text(encoding="utf-8"))]


def test_every_language_compiles_its_queries_with_their_includes() -> None:
    """Each query file with its includes compiles for the language's grammar, no pattern is
    written twice, and the scan's combined query splits where the outline ends."""
    folder = languages.grammars_dir()
    for lang in languages.registry().values():
        for name in ("outline.scm", "toplevel.scm", "references.scm"):
            patterns = _patterns_of(folder, name, lang.name)
            assert len(patterns) == len(set(patterns)), (lang.name, name)
            if patterns:
                ts.Query(lang.ts_language, "\n".join(patterns))
        assert lang.query.pattern_count == len(_patterns_of(folder, "outline.scm", lang.name))
        assert lang.outline_patterns == lang.query.pattern_count
        if lang.refs_query is not None:
            assert lang.scan_query is not None
            assert lang.scan_query.pattern_count == (
                lang.outline_patterns + lang.refs_query.pattern_count)


def test_javascript_and_typescript_write_a_shared_rule_once() -> None:
    """A pattern both folders would hold lives in grammars/_ecmascript/, which both include
    (TSX includes TypeScript's folder too)."""
    folder = languages.grammars_dir()
    for name in ("outline.scm", "toplevel.scm", "references.scm"):
        shared = set(_patterns_of(folder, name, "javascript")) & set(
            _patterns_of(folder, name, "typescript"))
        text = (folder / "_ecmascript" / name).read_text(encoding="utf-8")
        assert shared == {" ".join(p.split()) for p in languages._patterns(text)}, name
        assert _patterns_of(folder, name, "tsx") == _patterns_of(folder, name, "typescript")
