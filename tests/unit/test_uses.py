"""Every use of a declaration (textDocument/references): which files are read and parsed."""

from __future__ import annotations

import re
import textwrap
from pathlib import Path

import pytest
import tree_sitter

from ctxls.index.scan import index_batch
from ctxls.requests.uses import uses
from ctxls.snapshot import Snapshot
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


def _indexed(root: Path, files: dict[str, str]) -> Snapshot:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(textwrap.dedent(text))
    ws = Workspace([root])
    ws.add(index_batch([(rel, str(root / rel)) for rel in files], 1 << 20))
    return ws.snapshot(refs=True)


def _record_parses(monkeypatch: pytest.MonkeyPatch
                   ) -> tuple[list[str], list[tuple[str, list[tuple[int, int]]]]]:
    """Files parsed whole, by their first line; and files parsed item by item, with the
    rows of the ranges read."""
    whole: list[str] = []
    items: list[tuple[str, list[tuple[int, int]]]] = []
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
    return whole, items


def test_a_file_whose_every_match_is_a_judged_call_is_not_parsed(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    snap = _indexed(tmp_path, FILES)
    key = str(tmp_path / "shop/pricing.py")
    decl = next(d for d in snap.refs.files[key].outline.decls if d.name == "total")
    whole, items = _record_parses(monkeypatch)
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


PHP = {
    "src/App/Errors/LogicException.php": """\
        <?php

        namespace App\\Errors;

        class LogicException extends \\Exception {}
        """,
    "src/App/Other/LogicException.php": """\
        <?php

        namespace App\\Other;

        class LogicException extends \\Exception {}
        """,
    "src/App/Guard.php": """\
        <p>text until the tag</p>
        <?php

        namespace App;

        use App\\Errors\\LogicException;

        function check(): LogicException
        {
            return new LogicException();
        }
        """,
    "src/App/Elsewhere.php": """\
        <?php

        namespace App;

        use App\\Other\\LogicException;

        /** @throws LogicException */
        function other(): void
        {
            try {
                throw new LogicException();
            } catch (LogicException $e) {
            }
        }
        """,
}


def test_a_php_file_is_read_from_its_tag_to_the_items_that_may_hold_uses(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A file whose every match the tables judge another class's (it imports another
    `LogicException`) is not parsed at all; a file with uses is parsed from its start to
    the end of its `<?php` and then only its items that hold a match."""
    snap = _indexed(tmp_path, PHP)
    key = str(tmp_path / "src/App/Errors/LogicException.php")
    decl = next(d for d in snap.refs.files[key].outline.decls if d.name == "LogicException")
    whole, items = _record_parses(monkeypatch)
    found = sorted((r.path, r.call.row, r.why) for r in uses(snap, key, decl))
    assert found == [("src/App/Guard.php", 5, "imported by name"),
                     ("src/App/Guard.php", 7, "a class in scope"),
                     ("src/App/Guard.php", 9, "a class in scope")] or [
        (path, row) for path, row, _ in found] == [("src/App/Guard.php", r) for r in (5, 7, 9)]
    assert whole == []
    assert items == [("<p>text until the tag</p>", [(0, 2), (5, 6), (7, 11)])]


@pytest.mark.parametrize("text", [
    *(p.read_text() for p in sorted((Path(__file__).parents[1] / "fixtures/php")
                                   .rglob("*.php"))),
    *(textwrap.dedent(t) for t in PHP.values()),
    "<?PHP\nuse A\\B;\nfunction f(B $b) { return $b; }\n?>\n<b>x</b>\n<?php\nclass C {}\n",
])
def test_a_php_item_read_after_the_tag_parses_as_in_its_file(text: str) -> None:
    """Independent truth, the whole file's parse: every word in every item that starts a
    line lies, in the parse of just that item after the file's `<?php`, in the same nodes
    (types and places) up to the item."""
    from ctxls.requests.uses import _items, _preamble
    from ctxls.syntax import languages
    from ctxls.syntax.outline import outline_source
    from ctxls.syntax.text import LineIndex

    lang, spec = languages.for_path("x.php"), languages.spec_for("x.php")
    assert lang is not None and spec is not None and spec.uses is not None
    data = text.encode()
    index, outline = LineIndex(data), outline_source(lang, data)
    tree = lang.parser().parse(data)
    compared = 0
    for row in range(index.line_count):
        line = index.line(row)
        for m in re.finditer(rb"[A-Za-z_]\w*", line):
            at = (row, m.start(), m.end())
            ranges = _items(outline, index, [at], _preamble(data, spec.uses.items_after))
            if ranges is None:
                continue
            assert ranges[0].start_byte == 0 and data[:ranges[0].end_byte].rstrip().lower(
                ).endswith(b"<?php")
            alone = tree_sitter.Parser(lang.ts_language, included_ranges=ranges).parse(data)
            chains = [_chain(t.root_node.descendant_for_point_range(at[:2], (row, m.end())))
                      for t in (tree, alone)]
            assert chains[0] == chains[1], (row, m.group())
            compared += 1
    assert compared > 5


def _chain(node: tree_sitter.Node | None) -> list[tuple[str, tuple[int, int], tuple[int, int]]]:
    """The node and its ancestors below the root, by type and place."""
    out = []
    while node is not None and node.parent is not None:
        out.append((node.type, node.start_point, node.end_point))
        node = node.parent
    return out


def test_a_php_import_names_the_class_of_its_namespace_among_classes_of_one_name(
        tmp_path: Path) -> None:
    """`use A\\B\\C;` means the `C` declared after `namespace A\\B;` (the last namespace
    statement before it, where a file has several) or inside `namespace A\\B { }`, not one
    of the other classes named `C`; by the short name alone it meant none."""
    snap = _indexed(tmp_path, {
        "lib/Two.php": """\
            <?php
            namespace App\\Errors;
            class Failure {}
            namespace App\\Other;
            class Failure {}
            """,
        "lib/Braced.php": """\
            <?php
            namespace App\\Braced {
                class Failure {}
            }
            """,
        "lib/User.php": """\
            <?php
            namespace App;
            use App\\Errors\\Failure;
            use App\\Other\\Failure as OtherFailure;
            use App\\Braced\\Failure as BracedFailure;
            use App\\Missing\\Failure as MissingFailure;
            """,
    })
    index = snap.refs
    user = index.files[str(tmp_path / "lib/User.php")]
    meant = [index.imported(user, imp) for imp in user.refs.imports]
    assert [(m[0].path, m[1].span.start_row) if m else None for m in meant] == [
        ("lib/Two.php", 2), ("lib/Two.php", 4), ("lib/Braced.php", 2), None]


def test_a_csharp_class_in_a_block_namespace_is_no_member_of_it(tmp_path: Path) -> None:
    """A class declared inside `namespace A.B { }` is a name of the namespace, not a member
    of a class: `new UserDto()` in a file that `using`s the namespace is its use (judged as
    a member's, none was ever found), and so is one in the namespace itself, while a
    method of the class keeps the class as its owner."""
    snap = _indexed(tmp_path, {
        "Model/Dto/UserDto.cs": """\
            namespace Model.Dto
            {
                public class UserDto
                {
                    public string Name() { return "x"; }
                }
            }
            """,
        "Model/Dto/Other.cs": """\
            namespace Model.Dto
            {
                public class Other
                {
                    public UserDto Make() { return new UserDto(); }
                }
            }
            """,
        "Server/Users.cs": """\
            using Model.Dto;

            namespace Server
            {
                public class Users
                {
                    public string Get() { var u = new UserDto(); return u.Name(); }
                }
            }
            """,
    })
    key = str(tmp_path / "Model/Dto/UserDto.cs")
    decls = {d.name: d for d in snap.refs.files[key].outline.decls}
    assert snap.refs.owner(snap.refs.files[key], decls["UserDto"]) is None
    assert snap.refs.owner(snap.refs.files[key], decls["Name"]) == decls["UserDto"].qualname
    found = sorted((r.path, r.call.row) for r in uses(snap, key, decls["UserDto"]))
    assert found == [("Model/Dto/Other.cs", 4), ("Server/Users.cs", 6)]
    assert [(r.path, r.call.row) for r in uses(snap, key, decls["Name"])] == [
        ("Server/Users.cs", 6)]


def test_a_csharp_name_means_the_class_of_a_namespace_in_scope_whatever_its_folder(
        tmp_path: Path) -> None:
    """`using A.B;` and the namespaces a file is in (and those around them) bring their
    classes into scope, though no folder is named after them: `new AB()` is the struct
    of the namespace used, `new Clock()` the class of an enclosing namespace, and a name
    two namespaces in scope declare is proven neither's, nor one the file declares itself
    (a nested class of its own comes first)."""
    snap = _indexed(tmp_path, {
        "test/Interfaces/Shapes.cs": """\
            namespace UnitTests.GrainInterfaces
            {
                public struct AB { public int A; }
                public class Twin { }
            }
            """,
        "lib/Clock.cs": """\
            namespace UnitTests;

            public class Clock { }
            public class Twin { }
            """,
        "test/Grains/LogGrain.cs": """\
            using UnitTests.GrainInterfaces;

            namespace UnitTests.Grains
            {
                public class LogGrain
                {
                    public AB Both() { var c = new Clock(); var t = new Twin(); return new AB(); }
                }
            }
            """,
        "test/Grains/Own.cs": """\
            using UnitTests.GrainInterfaces;

            namespace UnitTests.Grains
            {
                public class Own
                {
                    public class AB { }
                    public AB Make() { return new AB(); }
                }
            }
            """,
    })

    def calls_of(path: str, name: str) -> list[tuple[str, int]]:
        key = str(tmp_path / path)
        decl = next(d for d in snap.refs.files[key].outline.decls if d.name == name)
        return sorted((r.path, r.call.row) for r in uses(snap, key, decl))

    assert calls_of("test/Interfaces/Shapes.cs", "AB") == [("test/Grains/LogGrain.cs", 6)]
    assert calls_of("lib/Clock.cs", "Clock") == [("test/Grains/LogGrain.cs", 6)]
    assert calls_of("lib/Clock.cs", "Twin") == calls_of("test/Interfaces/Shapes.cs", "Twin") == []


def test_a_c_global_is_read_wherever_any_of_its_declarations_is_in_scope(
        tmp_path: Path) -> None:
    """A C function declared in several headers is in scope in every file including any of
    them, directly or through another header: its uses there (here taken as a pointer, no
    call) are found through each, in one walk of the includes for all."""
    snap = _indexed(tmp_path, {
        "total.c": "int total(int n) { return n; }\n",
        "a.h": "int total(int n);\n",
        "b.h": "int total(int n);\n",
        "c.h": '#include "b.h"\n',
        "x.c": '#include "a.h"\nint (*fa)(int) = total;\n',
        "y.c": '#include "c.h"\nint (*fb)(int) = total;\n',
        "z.c": "int (*fz)(int) = total;\n",
    })
    key = str(tmp_path / "total.c")
    decl = next(d for d in snap.refs.files[key].outline.decls if d.name == "total")
    found = sorted((r.path, r.call.row) for r in uses(snap, key, decl))
    assert ("x.c", 1) in found and ("y.c", 1) in found
    assert not any(path == "z.c" for path, _ in found)  # (no declaration of it in scope)
