import pytest

from ctxls.errors import AmbiguousSymbol, UnknownSymbol
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import outline_source
from ctxls.syntax.symbols import at_row, resolve

SRC = b"""class A:
    def refresh_token(self): ...
    @property
    def x(self): return 1
    @x.setter
    def x(self, v): ...

class B:
    def refresh_token(self): ...

def mint_token(): ...
"""


def test_qualified_bare_and_line(python: Language) -> None:
    o = outline_source(python, SRC)
    assert resolve(o, "A.refresh_token", "f.py").span.start_row == 1
    assert resolve(o, "mint_token", "f.py").qualname == "mint_token"
    assert resolve(o, "A.x", "f.py", line=5).span.start_row == 4


def test_ambiguous_lists_candidates_with_lines(python: Language) -> None:
    o = outline_source(python, SRC)
    with pytest.raises(AmbiguousSymbol) as err:
        resolve(o, "refresh_token", "f.py")
    assert "A.refresh_token (method, line 2)" in err.value.message
    assert [c["line"] for c in err.value.data["candidates"]] == [2, 9]


def test_unknown_suggests_close_matches(python: Language) -> None:
    o = outline_source(python, SRC)
    with pytest.raises(UnknownSymbol) as err:
        resolve(o, "refresh_tokn", "auth/tokens.py")
    assert err.value.message.startswith("no symbol `refresh_tokn` in auth/tokens.py; did you mean")
    assert "A.refresh_token" in err.value.data["suggestions"]


def test_at_row_is_innermost(python: Language) -> None:
    o = outline_source(python, SRC)
    decl = at_row(o, 1)
    assert decl is not None and decl.qualname == "A.refresh_token"
    assert at_row(o, 6) is None


def test_a_line_picks_a_method_over_a_function_of_the_same_name(python: Language) -> None:
    """``resolve`` is also the qualified name of a top-level function: the line still
    decides (a method of that name at the line asked for)."""
    src = ("def resolve(x):\n    return x\n\n\nclass Finder:\n    def resolve(self, x):\n"
           "        return x\n")
    o = outline_source(python, src.encode())
    assert resolve(o, "resolve", "f.py").span.start_row == 0
    assert resolve(o, "resolve", "f.py", line=6).qualname == "Finder.resolve"
    assert resolve(o, "resolve", "f.py", line=7).qualname == "Finder.resolve"  # in its body
    assert resolve(o, "resolve", "f.py", line=2).qualname == "resolve"


def test_each_languages_own_spelling_of_a_member() -> None:
    from ctxls.syntax import languages

    languages_registry = languages.registry()
    ruby = languages_registry["ruby"]
    src = (b"module Rack\n  module Auth\n    class Basic\n      def call(env)\n      end\n"
           b"    end\n  end\nend\n")
    o = outline_source(ruby, src)
    assert resolve(o, "Rack::Auth::Basic#call", "b.rb").name == "call"
    js = languages_registry["javascript"]
    src = (b"function View(name) { this.name = name; }\n\n"
           b"View.prototype.resolve = function (x) {\n  return x;\n};\n")
    o = outline_source(js, src)
    found = resolve(o, "View.prototype.resolve", "v.js")
    assert found.name == "resolve" and found.span.start_row == 2
    go = languages_registry["go"]
    src = b"package cache\n\ntype Cache struct{}\n\nfunc (c *Cache) Get() int { return 1 }\n"
    o = outline_source(go, src)
    assert resolve(o, "cache.Cache.Get", "c.go").qualname == "Cache.Get"


def test_workspace_symbols_decode_only_the_files_that_declare_a_match(tmp_path) -> None:
    """``workspace/symbol`` gives what every file's outline gives (checked against a fresh
    parse of each), in path order, and decodes no file whose declared names cannot match."""
    from ctxls.index.scan import index_batch
    from ctxls.requests.symbols import _fuzzy, workspace_symbols
    from ctxls.syntax import languages
    from ctxls.workspace import Workspace

    files = {"auth/tokens.py": SRC, "billing/cart.py": b"class Cart:\n    def total(self): ...\n",
             "web/app.ts": b"export function refreshAll(): void {}\nclass Pane { toggle() {} }\n",
             "notes.md": b"# refresh\n"}
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_bytes(text)
    ws = Workspace([tmp_path])
    ws.add(index_batch(ws.scan_plan(), 1 << 20))  # (packed, as a scan leaves them)
    def decoded() -> set[str]:
        return {e.path for e in ws.entries.values() if e.tables is not None and e.tables.decoded}

    for query in ("refresh", "mint", "zzz", "tot"):
        got = workspace_symbols(ws.snapshot(), query)
        want = []
        for rel in sorted(f for f in files if languages.for_path(f) is not None):
            outline = outline_source(languages.for_path(rel), files[rel])
            want += [(rel, d.name) for d in outline.decls if _fuzzy(query, d.name.lower())]
        assert [(s.location.uri.split(f"{tmp_path.name}/", 1)[1], s.name) for s in got] == want
        if query == "zzz":  # no name of billing/cart.py holds r..f..., m..i..., z..z..z
            assert decoded() == {"auth/tokens.py", "web/app.ts"}
    assert "billing/cart.py" in decoded()  # (`total` holds t..o..t)
