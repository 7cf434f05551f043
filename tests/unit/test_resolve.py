"""Call resolution on literal modules (no server): receivers, overrides, return types."""

from __future__ import annotations

from ctxls.index.refs import extract as refs_of
from ctxls.index.resolve import FileInfo, RefIndex, references
from ctxls.index.tables import Tables
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import extract
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
