"""Every use of a declaration (textDocument/references): which files are read and parsed."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest
import tree_sitter

from ctxls.index.scan import index_batch
from ctxls.requests.uses import uses
from ctxls.syntax.languages import Language
from ctxls.workspace import Workspace

FILES = {
    "shop/pricing.py": """\
        def total(items):
            return sum(items)
        """,
    "shop/cart.py": """\
        # cart
        from shop import pricing

        def checkout(items):
            return pricing.total(items)
        """,
    "shop/report.py": """\
        # report
        from shop import pricing

        SUM = pricing.total  # a use that is no call


        def show(thing):
            return thing.total()  # an unknown receiver's method: no use of the function


        def unrelated():
            return 1
        """,
    "shop/branch.py": """\
        # branch
        from shop import pricing

        if pricing:
            ALIAS = pricing.total  # in no item that starts a line
        """,
    "shop/ledger.py": """\
        # ledger
        from shop import pricing

        def book(entry):
            return entry.total()  # the same, in a file with no other match
        """,
}


def test_a_file_whose_every_match_is_a_judged_call_is_not_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for rel, text in FILES.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(textwrap.dedent(text))
    ws = Workspace([tmp_path])
    ws.add(index_batch([(rel, str(tmp_path / rel)) for rel in FILES], 1 << 20))
    snap = ws.snapshot(refs=True)
    key = str(tmp_path / "shop/pricing.py")
    decl = next(d for d in snap.refs.files[key].outline.decls if d.name == "total")

    whole: list[str] = []  # files parsed whole, by their first line
    items: list[tuple[str, list[tuple[int, int]]]] = []  # files parsed item by item
    make, real = Language.parser, tree_sitter.Parser

    class Whole:
        def __init__(self, parser: tree_sitter.Parser) -> None:
            self.parser = parser

        def parse(self, data: bytes) -> tree_sitter.Tree:
            whole.append(data.decode().splitlines()[0])
            return self.parser.parse(data)

    class Items:
        def __init__(self, language: tree_sitter.Language,
                     included_ranges: list[tree_sitter.Range]) -> None:
            self.parser = real(language, included_ranges=included_ranges)
            self.rows = [(r.start_point[0], r.end_point[0]) for r in included_ranges]

        def parse(self, data: bytes) -> tree_sitter.Tree:
            items.append((data.decode().splitlines()[0], self.rows))
            return self.parser.parse(data)

    monkeypatch.setattr(Language, "parser", lambda self: Whole(make(self)))
    monkeypatch.setattr(tree_sitter, "Parser", Items)
    found = sorted((r.path, r.call.row) for r in uses(snap, key, decl))
    assert found == [("shop/branch.py", 4), ("shop/cart.py", 4), ("shop/report.py", 3)]
    # cart.py's one match is a proven call, ledger.py's a call judged no use: neither is
    # read as a tree. report.py's other match is an assignment at the top, read alone (to
    # its line break); branch.py's lies in no item that starts a line: read whole.
    assert whole == ["# branch"] and items == [("# report", [(3, 4)])]


def test_mentions_reads_the_bytes_an_open_document_has_and_refuses_nothing_it_cannot_tell(
        tmp_path: Path) -> None:
    outside = tmp_path / "outside.py"
    outside.write_text("secret_total = 1\n")
    root = tmp_path / "ws"
    root.mkdir()
    (root / "a.py").write_text("def total(): ...\n")
    (root / "b.py").write_text("x = 1\n")
    (root / "c.py").write_bytes("# caf\xe9 total\n".encode("latin-1"))
    (root / "link.py").symlink_to(outside)
    ws = Workspace([root])
    ws.open((root / "b.py").as_uri(), "y = total\n", 2)
    snap = ws.snapshot()
    assert snap.mentions("a.py", [b"total"]) and not snap.mentions("a.py", [b"subtotal"])
    assert snap.mentions("b.py", [b"total"])  # the open document's text, not the disk's
    assert snap.mentions("c.py", [b"total"]) and not snap.mentions("c.py", [b"gross"])
    # a word that is not ASCII in a file that is not UTF-8: only its view can tell
    assert snap.mentions("c.py", ["café".encode()])
    # a link out of the workspace is not read here: its view refuses it
    assert snap.mentions("link.py", [b"nothing_there"])


def test_whether_a_function_binds_the_name_is_asked_once_per_function(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A struct field `t` and a Go test file whose every test takes a `t`: each bare `t` is
    no use, decided by whether its function binds `t`, which is searched once per function,
    not once per match (prometheus: 14,000 searches of test bodies, 4.4 s); a field read
    through a value of the struct is still found."""
    from ctxls.requests import uses as uses_mod

    files = {
        "go.mod": "module example.com/app\n\ngo 1.22\n",
        "chunk/triple.go": "package chunk\n\ntype triple struct {\n\tt int64\n}\n",
        "chunk/chunk_test.go": (
            "package chunk\n\nimport \"testing\"\n\n"
            + "".join(f"func TestN{i}(t *testing.T) {{\n"
                      + "".join(f"\tt.Log({j})\n" for j in range(12))
                      + "\tx := triple{}\n\t_ = x.t\n}\n\n" for i in range(5))),
    }
    for rel, text in files.items():
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(text)
    ws = Workspace([tmp_path])
    ws.add(index_batch([(rel, str(tmp_path / rel)) for rel in files if rel.endswith(".go")],
                       1 << 20))
    snap = ws.snapshot(refs=True)
    key = str(tmp_path / "chunk/triple.go")
    decl = next(d for d in snap.refs.files[key].outline.decls if d.name == "t")
    asked: list[tuple[str, int]] = []
    real = uses_mod._local

    def local(lines: list[str], around: object, name: str, spec: object) -> bool:
        asked.append((name, around.span.start_row))  # type: ignore[attr-defined]
        return real(lines, around, name, spec)  # type: ignore[arg-type]

    monkeypatch.setattr(uses_mod, "_local", local)
    found = sorted((r.path, r.call.row) for r in uses(snap, key, decl))
    assert [row for path, row in found if path == "chunk/chunk_test.go"] == [
        18 + 17 * i for i in range(5)]
    assert len(asked) == len(set(asked)) == 5
