"""Module systems on literal inputs: the names a path is imported by, and the absolute
module an import names, for each system a language.toml can pick."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from ctxls.index import modules
from ctxls.index.modules import ModuleSystem, register
from ctxls.index.refs import extract as refs_of
from ctxls.index.resolve import FileInfo, RefIndex
from ctxls.index.tables import Tables
from ctxls.syntax import languages
from ctxls.syntax.outline import extract
from ctxls.syntax.text import LineIndex
from tests.unit.test_resolve import modules_sought
from tests.unit.test_walk import _listings


def test_every_system_is_registered_once_by_name() -> None:
    assert modules.names() == ["c", "ecmascript", "go", "java", "namespaces", "python", "ruby",
                               "rust"]
    with pytest.raises(ValueError, match="registered twice"):
        register("python")(type("Again", (ModuleSystem,), {}))
    assert type(modules.named("python")).__name__ == "PythonPackages"
    for lang in languages.registry().values():
        assert lang.module_system in modules.names(), lang.name


def test_python_packages() -> None:
    py = modules.named("python")
    assert py.module_name("pkg/sub/mod.py") == "pkg.sub.mod"
    assert py.module_name("pkg/__init__.py") == "pkg"
    assert py.module_names("src/pkg/mod.py") == ["src.pkg.mod", "pkg.mod"]  # src/ layout
    assert py.module_names("pkg/mod.pyi") == ["pkg.mod"]
    assert [py.relative_level(s) for s in ("a.b", ".", "..a")] == [0, 1, 2]
    assert py.absolute("a.b", 0, "p/q/m.py", "/r/") == "a.b"
    assert py.absolute("x", 1, "p/q/m.py", "/r/") == "p.q.x"  # from .x import y
    assert py.absolute("a", 2, "p/q/m.py", "/r/") == "p.a"  # from ..a import y
    assert py.absolute("", 1, "p/__init__.py", "/r/") == "p"  # from . import y in a package
    assert py.plain_local("a.b") == "a"
    assert py.plain_target("a", "a.b", "c", "a.b") == "a.c"  # import a.b; a.c.f()
    assert py.plain_target("x", "a.b", "c", "a.b") == "a.b.c"  # import a.b as x; x.c.f()
    assert not py.spans_files and not py.global_classes


def test_go_packages_read_go_mod_once_per_root(tmp_path: Path) -> None:
    go = modules.named("go")
    assert go.module_name("billing/cache.go") == "billing"
    assert go.module_name("main.go") == "."
    assert go.spans_files
    assert go.plain_local("example.com/app/billing") == "billing"
    assert go.plain_target("billing", "example.com/app/billing", "", "billing") == "billing"
    assert go.plain_target("billing", "example.com/app/billing", "x", "billing") is None
    one, two = tmp_path / "one", tmp_path / "two"
    for root, module in ((one, "example.com/app"), (two, '"example.org/other"')):
        root.mkdir()
        (root / "go.mod").write_text(f"module {module}\n\ngo 1.22\n")
    root = f"{one}/"
    assert go.absolute("example.com/app/billing", 0, "app/main.go", root) == "billing"
    assert go.absolute("example.com/app", 0, "app/main.go", root) == "."
    assert go.absolute("fmt", 0, "app/main.go", root) == "fmt"
    assert go.absolute("example.org/other/x", 0, "main.go", f"{two}/") == "x"  # quoted path
    assert go.absolute("example.com/app/billing", 0, "main.go", f"{tmp_path}/") == (
        "example.com/app/billing")  # no go.mod at that root: as written
    (one / "go.mod").write_text("module changed.example\n")
    assert go.absolute("example.com/app/billing", 0, "app/main.go", root) == "billing"


def test_java_packages() -> None:
    java = modules.named("java")
    path = "src/main/java/com/example/billing/InvoiceService.java"
    assert java.module_name(path) == "com.example.billing"
    assert java.module_names("src/com/x/A.java") == ["src.com.x", "com.x"]
    assert java.module_name("A.java") == "."
    assert java.absolute("com.example.billing", 0, path, "/r/") == "com.example.billing"
    assert java.spans_files


def test_ecmascript_modules() -> None:
    es = modules.named("ecmascript")
    assert es.module_name("billing/pricing.ts") == "billing/pricing"
    assert es.module_names("lib/index.js") == ["lib/index", "lib"]  # a folder's index file
    assert es.module_names("index.js") == ["index"]
    here = "src/billing/checkout.ts"
    assert es.absolute("./money.js", 0, here, "/r/") == "src/billing/money"
    assert es.absolute("../util", 0, here, "/r/") == "src/util"
    assert es.absolute("react", 0, here, "/r/") == "react"  # a package
    assert es.plain_target("m", "./money", "", "src/billing/money") == "src/billing/money"
    assert es.plain_target("m", "./money", "x", "src/billing/money") is None


def _files(root: Path, files: dict[str, str]) -> str:
    for rel, text in files.items():
        (root / rel).parent.mkdir(parents=True, exist_ok=True)
        (root / rel).write_text(text)
    return str(root)


def test_ecmascript_tsconfig_paths_and_base_url(tmp_path: Path) -> None:
    """`paths` patterns (longest prefix wins, targets relative to baseUrl or the config),
    `baseUrl`, a relative `extends`, comments and trailing commas; the nearest config
    applies; a target that names no file, or one outside the workspace, leaves the specifier
    a package."""
    (tmp_path / "outside.ts").write_text("")  # beside the workspace, not in it
    ws = tmp_path / "ws"
    root = _files(ws, {
        "tsconfig.base.json": '{"compilerOptions": {"paths": {"@lib/*": ["./libs/*/src"]}}}',
        "tsconfig.json": """{
          // the app's config
          "extends": "./tsconfig.base.json",
          "compilerOptions": {
            "baseUrl": "src", /* "@/*" is no comment */
            "paths": {"@/*": ["./*"], "@/deep/*": ["./other/*"], "cfg": ["../config/main.ts"],
                      "abs/*": ["OUTSIDE/*"], "up/*": ["../../*"]},
          },
        }""",
        "src/util/money.ts": "", "src/other/x.ts": "", "src/plain.ts": "",
        "config/main.ts": "", "libs/a/src/index.ts": "",
        "tools/jsconfig.json": '{"compilerOptions": {"paths": {"@lib/*": ["./vendor/*"]}}}',
        "tools/vendor/a.js": "",
    })
    config = ws / "tsconfig.json"
    config.write_text(config.read_text().replace("OUTSIDE", str(tmp_path)))
    es = type(modules.named("ecmascript"))()
    here = "src/app/main.ts"
    assert es.absolute("@/util/money", 0, here, root) == "src/util/money"
    assert es.absolute("@/deep/x", 0, here, root) == "src/other/x"  # the longer prefix
    assert es.absolute("cfg", 0, here, root) == "config/main"
    assert es.absolute("plain", 0, here, root) == "src/plain"  # baseUrl
    assert es.absolute("react", 0, here, root) == "react"  # no such file: a package
    # a target outside the workspace is never looked at: the specifier stays a package
    assert es.absolute("abs/outside", 0, here, root) == "abs/outside"
    assert es.absolute("up/outside", 0, here, root) == "up/outside"
    # paths of the nearest config; the extended config's own paths are relative to it
    assert es.absolute("@lib/a", 0, "tools/run.js", root) == "tools/vendor/a"
    fresh = type(es)()
    config.write_text('{"extends": "./tsconfig.base.json"}')
    assert fresh.absolute("@lib/a", 0, here, root) == "libs/a/src"


def test_ecmascript_a_base_config_shared_by_many_and_a_cycle(tmp_path: Path) -> None:
    """Configs that extend one base each take its paths (the base is read once), and
    configs that extend each other in a circle are read, not followed for ever."""
    root = _files(tmp_path, {
        "tsconfig.base.json": '{"compilerOptions": {"paths": {"@lib/*": ["./libs/*"]}}}',
        "a/tsconfig.json": '{"extends": "../tsconfig.base.json"}',
        "b/tsconfig.json": '{"extends": "../tsconfig.base.json", // ours\n}',
        "c/tsconfig.json": '{"extends": "../d/tsconfig.json",'
                           ' "compilerOptions": {"baseUrl": "."}}',
        "d/tsconfig.json": '{"extends": "../c/tsconfig.json"}',
        "libs/x.ts": "", "c/y.ts": "",
    })
    es = type(modules.named("ecmascript"))()
    assert es.absolute("@lib/x", 0, "a/m.ts", root) == "libs/x"
    assert es.absolute("@lib/x", 0, "b/m.ts", root) == "libs/x"
    assert es.absolute("y", 0, "c/m.ts", root) == "c/y"  # its own baseUrl, cycle or not
    assert es.absolute("y", 0, "d/m.ts", root) == "c/y"  # inherited through the circle


def test_ecmascript_workspace_packages(tmp_path: Path) -> None:
    """A package of the workspace imported by its name: `exports` (conditions in order,
    subpaths), then `module`/`main`, a build folder mapped to its source tree, `src/index`."""
    root = _files(tmp_path, {
        "package.json": '{"name": "mono", "workspaces": ["packages/*"]}',
        "packages/core/package.json": """{"name": "@acme/core", "main": "dist/index.cjs",
            "exports": {".": {"types": "./dist/index.d.ts", "dev": "./src/index.ts"},
                        "./money": {"import": "./dist/money.js"}}}""",
        "packages/core/src/index.ts": "", "packages/core/src/money.ts": "",
        "packages/util/package.json": '{"name": "util", "main": "./lib/main.js"}',
        "packages/util/src/main.ts": "", "packages/util/src/deep/x.ts": "",
        "packages/bare/package.json": '{"name": "bare"}', "packages/bare/index.js": "",
        "node_modules/dep/package.json": '{"name": "dep"}', "node_modules/dep/index.js": "",
    })
    es = type(modules.named("ecmascript"))()
    here = "packages/app/src/main.ts"
    assert es.absolute("@acme/core", 0, here, root) == "packages/core/src/index"
    assert es.absolute("@acme/core/money", 0, here, root) == "packages/core/src/money"
    assert es.absolute("util", 0, here, root) == "packages/util/src/main"  # lib/ -> src/
    assert es.absolute("util/deep/x", 0, here, root) == "packages/util/src/deep/x"
    assert es.absolute("bare", 0, here, root) == "packages/bare/index"
    assert es.absolute("dep", 0, here, root) == "dep"  # node_modules is not the workspace
    assert es.absolute("@acme/other", 0, here, root) == "@acme/other"


def test_rust_crates(tmp_path: Path) -> None:
    rust = modules.named("rust")
    assert rust.module_name("src/billing/cache.rs") == "@.billing.cache"
    assert rust.module_name("src/billing/mod.rs") == "@.billing"
    assert rust.module_name("src/lib.rs") == "@"
    assert rust.module_name("clap_builder/src/lib.rs") == "@clap_builder"
    assert rust.module_name("crates/core/src/a/b.rs") == "@crates/core.a.b"
    assert rust.module_name("tests/cli.rs") == "@#tests.cli"
    assert rust.module_name("tests/builder/main.rs") == "@#tests.builder"
    assert rust.module_name("tools/gen/tests/x.rs") == "@tools/gen#tests.x"
    root = str(tmp_path)
    assert rust.absolute("self.cache", 0, "src/billing/mod.rs", root) == "@.billing.cache"
    assert rust.absolute("super.money", 0, "src/billing/cache.rs", root) == "@.billing.money"
    assert rust.absolute("super.super.x", 0, "src/billing/cache.rs", root) == "@.x"
    assert rust.absolute("crate.billing", 0, "src/main.rs", root) == "@.billing"
    assert rust.absolute("crate.billing", 0, "core/src/a/b.rs", root) == "@core.billing"
    # an integration test's crate is its own: tests/builder/main.rs with its modules beside
    assert rust.absolute("crate.utils", 0, "tests/builder/error.rs", root) == \
        "@#tests.builder.utils"
    assert rust.absolute("crate.common", 0, "tests/cli.rs", root) == "@#tests.common"
    # 2018 paths: a child module of the file's own
    assert rust.absolute("ty", 0, "src/utils/mod.rs", root) == "@.utils.ty"
    assert rust.absolute("serde.Serialize", 0, "src/main.rs", root) == "@.serde.Serialize"
    # crate names come from the manifests; `-` is `_` in paths
    (tmp_path / "Cargo.toml").write_text('[workspace]\nmembers = ["core"]\n'
                                         '[package]\nname = "app"\n')
    (tmp_path / "core").mkdir()
    (tmp_path / "core" / "Cargo.toml").write_text('[package]\nname = "app-core"\n'
                                                  '[lib]\nname = "appcore"\n')
    (tmp_path / "target").mkdir()
    (tmp_path / "target" / "Cargo.toml").write_text('[package]\nname = "built"\n')
    fresh = type(rust)()
    assert fresh.crates(root) == {"app": "@", "app_core": "@core", "appcore": "@core"}
    assert fresh.absolute("app_core.money.add", 0, "src/main.rs", root) == "@core.money.add"
    assert fresh.absolute("app.Cli", 0, "tests/cli.rs", root) == "@.Cli"
    assert fresh.path_module("appcore.money", "src/main.rs", root) == "@core.money"


def test_ruby_requires_and_global_constants() -> None:
    ruby = modules.named("ruby")
    assert ruby.module_name("lib/billing/ledger.rb") == "lib/billing/ledger"
    assert ruby.global_classes and not ruby.spans_files


def test_a_file_without_reference_tables_is_no_module() -> None:
    assert modules.NONE.module_names("a.c") == []
    assert modules.NONE.absolute("x", 0, "a.c", "/r/") == "x"


GO_FILES = {
    "go.mod": "module example.com/app\n",
    "billing/cache.go": "package billing\n\nfunc Evict() int { return helper() }\n",
    "billing/evict.go": "package billing\n\nfunc helper() int { return 1 }\n",
    "app/main.go": ('package main\n\nimport "example.com/app/billing"\n\n'
                    "func main() { billing.Evict() }\n"),
}


def test_go_imports_resolve_through_the_index(tmp_path: Path) -> None:
    """Two workspaces whose go.mod declare different module paths: each keeps its own."""
    go = languages.registry()["go"]
    for root, module in ((tmp_path / "a", "example.com/app"), (tmp_path / "b", "other.org/x")):
        index = RefIndex()
        for path, text in GO_FILES.items():
            (root / path).parent.mkdir(parents=True, exist_ok=True)
            (root / path).write_text(text.replace("example.com/app", module))
            if path.endswith(".go"):
                src = (root / path).read_bytes()
                tree = go.parser().parse(src)
                index.put(FileInfo(str(root / path), path, Tables.of(
                    extract(go, tree, LineIndex(src)), refs_of(go, tree.root_node))))
        main = index.files[str(root / "app/main.go")]
        (imp,) = main.refs.imports
        assert imp.local == "billing"  # the last segment of the import path
        assert index.absolute(main, imp) == "billing"
        package = index.module_of(main, "billing")
        assert package is not None and package.path.startswith("billing/")
        found = index.export(package, "helper")  # declared in another file of the package
        assert found is not None and found[0].path == "billing/evict.go"


def _python_index(root: Path, files: dict[str, str]) -> RefIndex:
    py = languages.registry()["python"]
    index = RefIndex()
    for path, text in files.items():
        src = text.encode()
        tree = py.parser().parse(src)
        index.put(FileInfo(str(root / path), path, Tables.of(
            extract(py, tree, LineIndex(src)), refs_of(py, tree.root_node))))
    return index


def test_a_python_project_nested_in_a_folder_is_imported_from_its_root() -> None:
    """``proj/trunk/pkg/`` imports itself as ``pkg``: the folder above the highest
    ``__init__.py`` is the import root. Below a package, a short name is no module."""
    py = modules.named("python")
    assert py.rooted_names("a/b/c.py") == [("b.c", "a"), ("c", "a/b")]
    files = {
        "proj/trunk/pkg/__init__.py": "",
        "proj/trunk/pkg/conf.py": "settings = {}\n",
        "proj/trunk/pkg/core/__init__.py": "",
        "proj/trunk/pkg/core/log.py": "from pkg.conf import settings\n\ndef msg(x):\n    pass\n",
        "proj/trunk/pkg/tests/test_log.py": "from pkg.core import log\n",
        "lib/__init__.py": "",
        "lib/conf.py": "other = 1\n",
    }
    root = Path("/ws")
    index = _python_index(root, files)
    log = index.files["/ws/proj/trunk/pkg/core/log.py"]
    (imp,) = log.refs.imports
    found = index.imported(log, imp)
    assert found is not None and found[0].path == "proj/trunk/pkg/conf.py"
    assert found[1].name == "settings"
    test = index.files["/ws/proj/trunk/pkg/tests/test_log.py"]
    module = index.module_of(test, "log")
    assert module is not None and module.path == "proj/trunk/pkg/core/log.py"
    assert "pkg.core.log" in index.module_names_of(log)
    # lib/ is a package: its conf.py is lib.conf, never plain ``conf``
    assert index.module_file("conf") is None
    assert index.module_file("lib.conf") is not None
    assert "conf" not in index.module_names_of(index.files["/ws/lib/conf.py"])
    # the import root moves when the folder above becomes a package
    index.put(FileInfo("/ws/proj/trunk/__init__.py", "proj/trunk/__init__.py",
                       _python_index(root, {"x.py": ""}).files["/ws/x.py"].tables))
    assert index.module_file("pkg.conf") is None
    assert index.module_file("trunk.pkg.conf") is not None
    index.remove("/ws/proj/trunk/pkg/conf.py")
    assert index.module_file("trunk.pkg.conf") is None


def test_manifests_from_the_scan_s_listing_are_those_a_walk_finds(tmp_path: Path) -> None:
    """Module systems find package.json / tsconfig.json / Cargo.toml files among the files
    the scan listed, in the order a walk visits them, instead of walking the tree again."""
    from ctxls.index import modules
    from ctxls.index.walk import walk

    for rel in ("package.json", "a/package.json", "a/b/tsconfig.json", "a/b/package.json",
                "b/package.json", "ab/package.json", "node_modules/x/package.json",
                ".hidden/package.json", "c/d/e/package.json", "a/x.ts"):
        (tmp_path / rel).parent.mkdir(parents=True, exist_ok=True)
        (tmp_path / rel).write_text(f'{{"name": "{rel}"}}')
    names = ("tsconfig.json", "package.json")
    walked = list(modules.manifests(str(tmp_path), names))
    modules.listed(str(tmp_path), [rel for rel, _ in walk(tmp_path)])
    try:
        from_listing = list(modules.manifests(f"{tmp_path}/", names))
    finally:
        modules._LISTINGS.clear()
    assert from_listing == walked
    assert [r for r, _, _ in walked] == [".", "a", "a/b", "a/b", "ab", "b", "c/d/e"]


def test_a_request_and_the_prepare_thread_read_the_manifests_once() -> None:
    """The first request after a warm start resolved a package import while the prepare
    thread was still reading every tsconfig and package.json (57,000 files: both read them,
    1-2 s each); the later asker now waits for the first's answer."""
    import threading
    import time

    from ctxls.index.modules import named

    system = named("ecmascript")
    cache: dict[str, int] = {}
    reads: list[int] = []

    def read() -> int:
        reads.append(1)
        time.sleep(0.2)  # long enough that the second asker arrives mid-read
        return len(reads)

    answers: list[int] = []
    askers = [threading.Thread(target=lambda: answers.append(
        system.read_once(cache, "/ws/", read))) for _ in range(3)]
    for a in askers:
        a.start()
    for a in askers:
        a.join()
    assert reads == [1] and answers == [1, 1, 1] and cache == {"/ws/": 1}


MANIFESTS = [
    '[package]\nname = "serde_json"\nversion = "1"\n',
    "[package]\nversion = '1'\nname = 'my-crate' # the crate\n\n[lib]\nname = \"mine\"\n",
    '[workspace]\nmembers = ["a", "b"]\n',
    '[package]\nname = "a"\n[package.metadata.docs]\nname = "not this"\n',
    '[lib]\npath = "src/lib.rs"\n[package]\nname = "b"\n',
    '[package]\nname.workspace = true\n',
    '[ package ]\nname = "spaced"\n',
    'package = { name = "inline" }\n',
    '[package]\nname = """\nodd"""\n',
    '[dependencies]\nname = "not a crate"\n[package]\n  name   =   "indented"\n',
    '[package]\nname = "x"\n[package]\nname = "y"\n',  # not TOML: nothing
]


@pytest.mark.parametrize("text", MANIFESTS)
def test_a_crate_is_named_as_a_toml_parse_names_it(text: str) -> None:
    """The manifests' line scan gives what tomllib gives, or defers to it."""
    import tomllib

    from ctxls.index.modules.rust import _crate_names

    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError:
        data = {}
    want = [data[t]["name"] for t in ("package", "lib") if isinstance(data.get(t), dict)
            and isinstance(data[t].get("name"), str)]
    assert _crate_names(text) == want


def test_c_includes_look_for_the_header_among_the_indexed_files(tmp_path: Path) -> None:
    """``"cache.h"`` names the header beside the includer when the index holds it, whatever
    the disk holds; a header indexed later changes the answer."""
    c = languages.registry()["c"]

    def info(path: str, text: str) -> FileInfo:
        src = text.encode()
        tree = c.parser().parse(src)
        return FileInfo(f"{tmp_path}/{path}", path, Tables.of(
            extract(c, tree, LineIndex(src)), refs_of(c, tree.root_node)))

    (tmp_path / "billing").mkdir()
    (tmp_path / "billing" / "cache.h").write_text("int evict(void);\n")  # on disk only
    index = RefIndex()
    ledger = info("billing/ledger.c", '#include "cache.h"\nint run(void) { return evict(); }\n')
    index.put(ledger)
    (imp,) = ledger.refs.imports
    assert index.absolute(ledger, imp) == "cache"  # not indexed: the path as written
    assert "billing/cache" not in index.imported_modules(ledger)
    index.put(info("billing/cache.h", "int evict(void);\n"))
    assert "billing/cache" in index.imported_modules(ledger)  # (the includer unchanged)
    assert index.absolute(index.files[ledger.key], imp) == "billing/cache"
    assert "billing/cache" in index.imported_modules(index.files[ledger.key])
    (tmp_path / "billing" / "cache.h").unlink()  # the index, not the disk, is asked
    index.put(info("billing/other.c", "int x;\n"))
    assert index.absolute(index.files[ledger.key], imp) == "billing/cache"


def test_a_module_as_written_is_its_absolute_module_and_is_not_worked_out(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where a system says an import's module is the module as written (Java, C#, Ruby;
    Python's absolute imports), its own ``absolute`` agrees on every import tried, and the
    index answers without asking it (a Java package's 1,370 test files' imports were each
    worked out through the memo: 70 ms of a first window)."""
    (tmp_path / "go.mod").write_text("module example.com/app\n")
    (tmp_path / "Cargo.toml").write_text('[package]\nname = "app"\n')
    written = {name: [lvl for lvl in (0, 1, 2) if modules.named(name).as_written(lvl)]
               for name in modules.names()}
    assert written == {"c": [], "ecmascript": [], "go": [], "java": [0, 1, 2],
                       "namespaces": [0, 1, 2], "python": [0], "ruby": [0, 1, 2], "rust": []}
    imports = ["a.b", "example.com/app/billing", "./pricing", "../a/b", "crate::a::b",
               "super::x", "stdio.h", "lib/x.h", "Shop.Billing", "org.x.Y", "json", "", "."]
    paths = ["p/q/m.py", "p/__init__.py", "src/a.ts", "billing/x.go", "src/lib.rs",
             "lib/x.c", "A/B.cs", "lib/x.rb", "com/a/B.java"]
    for name, levels in written.items():
        system = modules.named(name)
        for module in imports:
            for level in levels:
                for path in paths:
                    assert system.absolute(module, level, path, f"{tmp_path}/",
                                           lambda rel: False) == module, (name, module, path)
    java = languages.registry()["java"]
    src = b"package com.a;\n\nimport org.x.Y;\n\nclass B { void f() { Y.g(); } }\n"
    tree = java.parser().parse(src)
    index = RefIndex()
    index.put(FileInfo(str(tmp_path / "com/a/B.java"), "com/a/B.java", Tables.of(
        extract(java, tree, LineIndex(src)), refs_of(java, tree.root_node))))
    info = index.files[str(tmp_path / "com/a/B.java")]

    def worked_out(*_: object) -> str:
        raise AssertionError("worked out")

    monkeypatch.setattr(RefIndex, "remembered", worked_out)
    assert [index.absolute(info, imp) for imp in info.refs.imports] == ["org.x"]


def test_the_module_an_expression_names_is_worked_out_once_per_index_version(
        monkeypatch: pytest.MonkeyPatch) -> None:
    """A window's receivers ask the module of the same names in the same files thousands of
    times (cargo's `compile`: 14,000 asks, 4,500 answers): each is worked out once until
    the index changes, and is then worked out again (a module may have come or gone)."""
    files = {"shop/__init__.py": "", "shop/money.py": "def cents(x):\n    return x\n",
             "app.py": "from shop import money\n\nmoney.cents(1)\n"}
    index = _python_index(Path("/ws"), files)
    app = index.files["/ws/app.py"]
    worked = modules_sought(monkeypatch)
    for _ in range(3):
        found = index.module_of(app, "money")
        assert found is not None and found.path == "shop/money.py"
    assert worked == ["money"]
    index.remove("/ws/shop/money.py")
    assert index.module_of(app, "money") is None and worked == ["money", "money"]


def test_ecmascript_candidates_are_read_from_each_folder_s_listing_kept_while_it_is_unchanged(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """An import's candidate files (8 extensions, beside and as a folder's index) are
    looked up in the folder's listing, read once while the folder's time stays (a stat per
    candidate before: 38,844 for prisma's first window); a file created later is seen, a
    folder named like a file is none, and a folder changed within two seconds is read
    again each time."""
    from ctxls.index.modules import ecmascript

    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "a.ts").write_text("")
    (tmp_path / "pkg" / "c.js").mkdir()  # a folder, not a module
    old = 1_000_000_000
    os.utime(tmp_path / "pkg", (old, old))
    monkeypatch.setattr(ecmascript, "_FOLDERS", {})
    listed = _listings(monkeypatch)  # (every os.scandir)
    root = str(tmp_path)
    assert ecmascript._existing("pkg/a", root) == "pkg/a"
    assert ecmascript._existing("pkg/a.js", root) == "pkg/a"  # (any source extension)
    assert ecmascript._existing("pkg/b", root) is None
    assert ecmascript._existing("pkg/c", root) is None
    assert listed.count(str(tmp_path / "pkg")) == 1
    (tmp_path / "pkg" / "b.tsx").write_text("")  # the folder's time moves: read again
    assert ecmascript._existing("pkg/b", root) == "pkg/b"
    assert ecmascript._existing("pkg/b", root) == "pkg/b"
    assert listed.count(str(tmp_path / "pkg")) == 3  # (changed just now: not kept)
