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
