"""A module's top-level names, read name by name (``Tops``): the same answers as a build
of every name from every file, decoding only the files that declare or bind the name."""

from __future__ import annotations

import random
from pathlib import Path

import pytest

from ctxls.index.refindex import FileInfo
from ctxls.index.scan import index_batch
from ctxls.syntax.outline import Decl
from ctxls.workspace import Workspace

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"


def _workspace(root: Path) -> Workspace:
    ws = Workspace([root])
    ws.add(index_batch(ws.scan_plan(), 1 << 20))  # (packed, as a scan's workers send them)
    ws.refs.settle()
    return ws


def _every_name(members: list[FileInfo], exported: frozenset[str]
                ) -> dict[str, list[tuple[str, Decl]]]:
    """Every name of the module at once, from every file's decoded outline."""
    found: dict[str, list[tuple[str, Decl]]] = {}
    for member in members:
        decls = member.outline.decls
        namespaces = {d.qualname for d in decls if d.kind == "namespace"} | exported
        for d in decls:
            if all(p in namespaces for p in d.parents):
                found.setdefault(d.name, []).append((member.key, d))
            if "." in d.qualname and d.qualname != d.name:
                found.setdefault(d.qualname, []).append((member.key, d))
    return found


def test_every_name_of_every_fixture_module_means_what_a_full_build_says() -> None:
    from ctxls.index.refindex import _system

    checked = 0
    for lang_dir in sorted(p for p in FIXTURES.iterdir() if p.is_dir()):
        ws = _workspace(lang_dir)
        refs = ws.refs
        for info in list(refs.files.values()):
            members = sorted(refs.package(info), key=lambda m: m.key)  # (path order)
            exported = frozenset(_system(info.path).export_objects)
            truth = _every_name(members, exported)
            tops = refs.tops(info)
            for key, want in truth.items():
                assert [(m.key, d) for m, d in tops.get(key, ())] == want, (info.path, key)
                checked += 1
            for missing in ("no_such_name", "Nope.nothing"):
                assert list(tops.get(missing, ())) == []
    assert checked > 500  # (the fixtures of every language were read)


def test_a_package_lookup_decodes_only_the_files_that_declare_or_bind_the_name(
        tmp_path: Path) -> None:
    pkg = tmp_path / "src" / "main" / "java" / "org" / "shop"
    pkg.mkdir(parents=True)
    for name in ("Cart", "Order", "Price", "Tax", "Util"):
        (pkg / f"{name}.java").write_text(
            f"package org.shop;\n\npublic class {name} {{\n"
            f"    public int size() {{ return 1; }}\n}}\n")
    gopkg = tmp_path / "billing"
    gopkg.mkdir()
    (gopkg / "a.go").write_text("package billing\n\nvar client *http.Client\n\n"
                                "func A() int { return 1 }\n")
    for n in "bcd":
        (gopkg / f"{n}.go").write_text(
            f"package billing\n\nfunc {n.upper()}() int {{ return 1 }}\n")
    ws = _workspace(tmp_path)
    refs = ws.refs
    files = {Path(k).name: info for k, info in refs.files.items()}
    assert not any(info.tables.decoded for info in files.values())

    found = refs.tops(files["Cart.java"]).get("Tax", ())
    assert [(Path(m.key).name, d.qualname) for m, d in found] == [("Tax.java", "Tax")]
    assert [n for n, info in files.items() if info.tables.decoded] == ["Tax.java"]
    # a member's qualname, and a name every file declares only as a member, decode no file
    # but the one that holds the answer (each class's `size` was decoded for `Order.size`)
    assert [(Path(m.key).name, d.qualname) for m, d in refs.tops(files["Cart.java"]).get(
        "Order.size", ())] == [("Order.java", "Order.size")]
    assert list(refs.tops(files["Cart.java"]).get("size", ())) == []
    assert sorted(n for n, info in files.items() if info.tables.decoded) == ["Order.java",
                                                                            "Tax.java"]

    binders = refs.binders(files["b.go"], "client")
    assert [Path(m.key).name for m in binders] == ["a.go"]
    assert not any(files[n].tables.decoded for n in ("b.go", "c.go", "d.go"))


def test_a_modules_files_are_read_in_path_order_whatever_order_they_were_filed(
        tmp_path: Path) -> None:
    """The scan files a package's files as its batches come; the first of a name's
    declarations (Kotlin's `expect` and `actual` twins in one package) must not depend on
    that: okio's answers changed from run to run."""
    pkg = tmp_path / "billing"
    pkg.mkdir()
    for name in ("a", "b", "c"):
        (pkg / f"{name}.go").write_text(f"package billing\n\nfunc Same() int {{ return 1 }}\n"
                                        f"\nvar {name}Var = 1\n")
    ws = Workspace([tmp_path])
    ws.add(list(reversed(index_batch(ws.scan_plan(), 1 << 20))))
    ws.refs.settle()
    files = {Path(k).name: info for k, info in ws.refs.files.items()}
    assert list(files) == ["c.go", "b.go", "a.go"]  # (filed last to first)
    tops = ws.refs.tops(files["b.go"])
    assert [Path(m.key).name for m, _ in tops.get("Same", ())] == ["a.go", "b.go", "c.go"]


def _refile(ws: Workspace, root: Path, rel: str, text: str) -> FileInfo:
    """Write ``rel`` and file its new tables in the index, as a watched change does."""
    (root / rel).write_text(text)
    (entry,) = [e for e in index_batch(Workspace([root]).scan_plan(), 1 << 20) if e.path == rel]
    info = FileInfo(str(root / rel), rel, entry.tables)
    ws.refs.put(info)
    return info


def test_a_modules_names_are_kept_across_a_change_elsewhere_and_never_taken_stale(
        tmp_path: Path) -> None:
    """A module's ``Tops`` read its own files only: an edit of another module's file keeps
    them (every window after an edit built them all again), an edit of one of its files or
    a file joining it does not, and a view never takes one made of other files than its
    own (another view may have replaced the kept one meanwhile)."""
    from ctxls.index.refindex import _package_tag

    shop, other = tmp_path / "org" / "shop", tmp_path / "org" / "other"
    shop.mkdir(parents=True)
    other.mkdir(parents=True)
    (shop / "A.java").write_text("package org.shop;\nclass A { void a() {} }\n")
    (shop / "B.java").write_text("package org.shop;\nclass B {}\n")
    (other / "C.java").write_text("package org.other;\nclass C {}\n")
    ws = _workspace(tmp_path)
    index = ws.refs
    a, c = (index.files[str(tmp_path / r)] for r in ("org/shop/A.java", "org/other/C.java"))
    assert _package_tag(a.path) == _package_tag("org/shop/B.java") != _package_tag(c.path)
    first = index.frozen()
    shop_tops, other_tops = first.tops(a), first.tops(c)
    assert [d.name for _, d in shop_tops.get("B")] == ["B"]

    c2 = _refile(ws, tmp_path, "org/other/C.java",
                 "package org.other;\nclass C { void c() {} }\n")
    second = index.frozen()
    assert second.tops(a) is shop_tops  # (kept: nothing of org.shop changed)
    assert second.tops(c2) is not other_tops
    assert [d.qualname for _, d in second.tops(c2).get("C.c")] == ["C.c"]

    before = index.frozen()  # (asks org.shop only after the next view rebuilt it)
    _refile(ws, tmp_path, "org/shop/B.java", "package org.shop;\nclass B2 {}\n")
    third = index.frozen()
    assert third.tops(a) is not shop_tops
    assert list(third.tops(a).get("B")) == [] and len(third.tops(a).get("B2")) == 1
    assert [d.name for _, d in before.tops(a).get("B")] == ["B"]  # (its own files)
    assert not before.tops(a).get("B2")
    assert first.tops(a) is shop_tops and first.tops(c) is other_tops  # (what it checked)

    (shop / "D.java").write_text("package org.shop;\nclass D {}\n")
    (entry,) = [e for e in index_batch(Workspace([tmp_path]).scan_plan(), 1 << 20)
                if e.path == "org/shop/D.java"]
    index.put(FileInfo(str(shop / "D.java"), "org/shop/D.java", entry.tables))
    fourth = index.frozen()
    assert [m.path for m, _ in fourth.tops(a).get("D")] == ["org/shop/D.java"]


def test_after_an_edit_of_one_file_only_its_names_are_read_again(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """A module's names after one of its files changed are the names before it with that
    file's read again (its old names out, its new in): the same answers as names read from
    every file, and no other file's names read."""
    from ctxls.index.refindex import _system
    from ctxls.index.tables import Tables
    from ctxls.index.tops import Tops

    pkg = tmp_path / "billing"
    pkg.mkdir()
    for n in "abcdefgh":
        (pkg / f"{n}.go").write_text(f"package billing\n\nvar {n}Client *http.Client\n\n"
                                     f"func {n.upper()}() int {{ return 1 }}\n")
    ws = _workspace(tmp_path)
    rng = random.Random(4)
    original = Tables.head_names
    read: list[int] = []

    def counted(self: Tables) -> object:
        read.append(id(self))
        return original(self)
    bodies = ["func Shared() int { return 2 }\n", "var aClient *http.Client\n",
              "type T struct{}\n\nfunc (t T) M() int { return 1 }\n", "const K = 1\n", ""]
    for step in range(30):
        any_info = ws.refs.files[str(pkg / "a.go")]
        before = ws.refs.tops(any_info)
        before.prepare()  # (the names read, as a window reads them)
        kept = {key: [m.key for m in before.binders(key)] for key in ("aClient", "bClient")}
        name = rng.choice("abcdefgh")
        text = "package billing\n\n" + "\n".join(rng.sample(bodies, 2))
        read.clear()
        monkeypatch.setattr(Tables, "head_names", counted)
        old = ws.refs.files[str(pkg / f"{name}.go")].tables
        new = _refile(ws, tmp_path, f"billing/{name}.go", text).tables
        ws.refs.settle()
        tops = ws.refs.tops(any_info)
        tops.prepare()
        monkeypatch.setattr(Tables, "head_names", original)
        assert set(read) <= {id(old), id(new)}, step
        # (a view that took the module's names before the edit reads them unchanged)
        assert {key: [m.key for m in before.binders(key)] for key in kept} == kept
        members = sorted(ws.refs.package(any_info), key=lambda m: m.key)
        fresh = Tops(members, _system(any_info.path).export_objects)
        truth = _every_name(members, frozenset())
        for key in [*truth, "aClient", "bClient", "Shared", "K", "T.M", "missing"]:
            assert ([(m.key, d) for m, d in tops.get(key, ())]
                    == [(m.key, d) for m, d in fresh.get(key, ())]), (step, key)
            assert ([m.key for m in tops.binders(key)]
                    == [m.key for m in fresh.binders(key)]), (step, key)
