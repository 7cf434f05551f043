"""The house rules a newcomer relies on, checked: no import cycle among the project's
modules (imports under ``TYPE_CHECKING`` count too), no module over 600 lines, and the
language-neutral code names no language's conventions."""

from __future__ import annotations

import ast
import re
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PACKAGES = {"ctxls": ROOT / "server" / "ctxls", "ctxls_client": ROOT / "client" / "ctxls_client"}


def _modules() -> dict[str, Path]:
    out = {}
    for name, folder in PACKAGES.items():
        for f in folder.rglob("*.py"):
            parts = [name, *f.relative_to(folder).with_suffix("").parts]
            if parts[-1] == "__init__":
                parts.pop()
            out[".".join(parts)] = f
    return out


def imports(path: Path, known: set[str]) -> set[str]:
    """Project modules a file imports anywhere (function bodies and TYPE_CHECKING too)."""
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Import):
            names = [a.name for a in node.names]
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names = [node.module, *(f"{node.module}.{a.name}" for a in node.names)]
        else:
            continue
        found |= {n for n in names if n in known}
    return found


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components with more than one module (Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on: set[str] = set()
    out: list[list[str]] = []

    def visit(v: str) -> None:
        index[v] = low[v] = len(index)
        stack.append(v)
        on.add(v)
        for w in sorted(graph[v]):
            if w not in index:
                visit(w)
                low[v] = min(low[v], low[w])
            elif w in on:
                low[v] = min(low[v], index[w])
        if low[v] == index[v]:
            comp = []
            while True:
                w = stack.pop()
                on.discard(w)
                comp.append(w)
                if w == v:
                    break
            if len(comp) > 1:
                out.append(sorted(comp))

    for v in sorted(graph):
        if v not in index:
            visit(v)
    return out


def test_cycles_are_found_when_there_are_some() -> None:
    assert cycles({"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def test_no_import_cycle_among_the_project_modules() -> None:
    mods = _modules()
    known = set(mods)
    # importing a package's submodule runs the package's __init__ first
    graph = {m: {i for i in imports(f, known) if i != m and not m.startswith(i + ".")}
             for m, f in mods.items()}
    assert cycles(graph) == []


def test_no_module_is_over_600_lines() -> None:
    sizes = {str(f.relative_to(ROOT)): len(f.read_text(encoding="utf-8").splitlines())
             for f in _modules().values()}
    assert {f: n for f, n in sizes.items() if n > 600} == {}


def test_language_neutral_code_names_no_test_runner_or_module_system() -> None:
    """Language conventions live in grammars/ and in the module systems' own code."""
    allowed = ROOT / "server" / "ctxls" / "index" / "modules"
    pattern = re.compile(r"module_style ==|conftest")
    hits = [f"{f.relative_to(ROOT)}:{i}" for f in (ROOT / "server").rglob("*.py")
            if not f.is_relative_to(allowed)
            for i, line in enumerate(f.read_text(encoding="utf-8").splitlines(), 1)
            if pattern.search(line)]
    assert hits == []
