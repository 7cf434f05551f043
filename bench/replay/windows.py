"""What each method shows: a window reduced to ``{path: shown line set}`` and a token count.

Every method is scored the same way: a fact is recalled when its definition line is among the
lines its window shows of its file. ctxls says which original lines it shows (``shown``
ranges per window item); the baselines show whole files; aider's map is text, matched back
to file lines.
"""

from __future__ import annotations

import ast
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from pyindex import Project, absolute_module

ALL = None  # a file shown whole


@dataclass
class Window:
    tokens: int
    shown: dict[str, set[int] | None] = field(default_factory=dict)  # 0-based lines or ALL
    error: str | None = None
    extra: dict[str, Any] = field(default_factory=dict)

    def shows(self, path: str, line0: int) -> bool:
        if path not in self.shown:
            return False
        lines = self.shown[path]
        return lines is ALL or line0 in lines


def precision(window: Window, relevant: dict[str, set[int]],
              line_tokens: Callable[[str], list[int]]) -> float | None:
    """The share of the tokens on the lines the window shows that lie on ``relevant`` lines
    (0-based, per path); each shown line counted on its own. None when it shows no token."""
    shown = on_topic = 0
    for path, lines in window.shown.items():
        counts = line_tokens(path)
        wanted = relevant.get(path, set())
        for i in range(len(counts)) if lines is ALL else sorted(lines):
            if i < len(counts):
                shown += counts[i]
                on_topic += counts[i] if i in wanted else 0
    return on_topic / shown if shown else None


# ---- ctxls --------------------------------------------------------------------------------
def from_construct(result: dict[str, Any], count: Any) -> Window:
    """A ``DecisionContext``: items' ``shown`` LSP ranges (end line inclusive) per path."""
    window = Window(tokens=0)
    for item in result.get("window") or []:
        path = item.get("path")
        if not path:
            continue
        lines = window.shown.setdefault(path, set())
        assert lines is not None
        for rng in item.get("shown") or []:
            lines.update(range(rng["start"]["line"], rng["end"]["line"] + 1))
    tokens = result.get("tokenCount")
    window.tokens = int(tokens) if tokens is not None else count(result.get("text") or "")
    roles: dict[str, int] = {}
    for item in result.get("window") or []:
        key = f"{item.get('role')}/{item.get('rendering')}"
        roles[key] = roles.get(key, 0) + int(item.get("tokens") or 0)
    # Each item's role, provenance, tokens and shown lines: what a fact's recall cost.
    detail = [{"role": item.get("role"), "relation": item.get("relation"),
               "rendering": item.get("rendering"),
               "provenance": item.get("provenance"), "tokens": item.get("tokens"),
               "path": item.get("path"),
               "lines": [[r["start"]["line"], r["end"]["line"]] for r in item.get("shown") or []]}
              for item in result.get("window") or []]
    window.extra = {"items": len(detail), "roles": roles, "detail": detail}
    return window


# Items that belong at the front (the task, the target, what it is built from) and at the
# back (live output, the freshest failure last); everything else is supporting.
FRONT = frozenset({"task", "plan", "acceptance", "target", "obligation-target", "fields",
                   "state", "dependency", "base"})


def placement(detail: list[dict[str, Any]], facts: list[tuple[str, int]]
              ) -> dict[str, Any] | None:
    """Lost in the middle, checked on the item order: ``edges``: no supporting item comes
    before a front item or after a live one; ``at_edges`` of ``shown`` facts (0-based
    lines) sit in an item outside the supporting run. None: no item says its relation."""
    if not detail or any(not d.get("relation") for d in detail):
        return None
    support = [i for i, d in enumerate(detail)
               if d["relation"] not in FRONT and d["relation"] != "live"]
    first, last = (support[0], support[-1]) if support else (len(detail), -1)
    edges = all(i < first for i, d in enumerate(detail) if d["relation"] in FRONT) and all(
        i > last for i, d in enumerate(detail) if d["relation"] == "live")
    at_edges = shown = 0
    for path, line0 in facts:
        holder = next((i for i, d in enumerate(detail) if d["path"] == path
                       and any(a <= line0 <= b for a, b in d["lines"])), None)
        if holder is not None:
            shown += 1
            at_edges += holder < first or holder > last
    return {"edges": edges, "at_edges": at_edges, "shown": shown}


# ---- baselines ----------------------------------------------------------------------------
def whole_file(project: Project, path: str, count: Any) -> Window:
    return Window(tokens=count(project.read(path) or ""), shown={path: ALL})


def imported_modules(project: Project, path: str) -> list[str]:
    """Project files the file imports anywhere (top level, ``TYPE_CHECKING``, functions):
    ``from a.b import c`` is ``a/b/c.py`` when that is a module, else ``a/b``'s file."""
    mod = project.module(path)
    if mod is None:
        return []
    package = mod.dotted if mod.is_package else mod.dotted.rpartition(".")[0]
    found: list[str] = []

    def add(dotted: str) -> None:
        target = project.module_paths.get(dotted)
        if target and target != path and target not in found:
            found.append(target)

    for node in ast.walk(mod.tree):
        if isinstance(node, ast.Import):
            for alias in node.names:
                add(alias.name)
        elif isinstance(node, ast.ImportFrom):
            base = absolute_module(package, node.module, node.level)
            for alias in node.names:
                sub = f"{base}.{alias.name}" if base else alias.name
                add(sub if sub in project.module_paths else base)
    return found


def file_and_imports(project: Project, path: str, count: Any) -> Window:
    files = [path, *imported_modules(project, path)]
    tokens = sum(count(f"{f}\n{project.read(f) or ''}") for f in files)
    return Window(tokens=tokens, shown=dict.fromkeys(files, ALL),
                  extra={"files": len(files)})


# ---- aider --------------------------------------------------------------------------------
def from_aider_map(project: Project, chat_path: str, map_text: str, count: Any) -> Window:
    """The chat file whole plus the lines the map prints, located in their files.

    The map lists ``path:`` then the lines it keeps, each prefixed ``│`` and cut at 100
    characters with the prefix, with ``⋮`` where it skips. Lines are matched in order
    against the file, so a repeated line (``pass``) is pinned to the right occurrence.
    """
    window = Window(tokens=count(project.read(chat_path) or "") + count(map_text),
                    shown={chat_path: ALL})
    for path, shown in _map_sections(map_text):
        source = (project.read(path) or "").splitlines()
        lines: set[int] = set()
        cursor = 0
        for text in shown:
            for i in range(cursor, len(source)):
                if ("│" + source[i])[:100][1:].rstrip() == text.rstrip():
                    lines.add(i)
                    cursor = i + 1
                    break
        if path != chat_path:
            window.shown[path] = lines
    window.extra = {"map_tokens": count(map_text), "map_files": len(window.shown) - 1}
    return window


def _map_sections(map_text: str) -> list[tuple[str, list[str]]]:
    sections: list[tuple[str, list[str]]] = []
    for line in map_text.splitlines():
        if line.startswith("│"):
            if sections:
                sections[-1][1].append(line[1:])
        elif line.startswith("⋮") or not line.strip():
            continue
        elif line.endswith(":"):
            sections.append((line[:-1], []))
    return sections
