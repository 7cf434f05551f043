"""ECMAScript modules (and CommonJS ``require``): a relative specifier names a file beside
the importing one. A bare specifier is looked up as TypeScript's and a monorepo's tools do:
the ``paths`` (and ``baseUrl``) of the nearest ``tsconfig.json`` or ``jsconfig.json``, then
a workspace package by the ``name`` in its ``package.json`` (its ``exports``, ``module``,
``main`` or ``src/index``); anything else is a package outside the workspace.

The configuration files are read once per workspace root, like Cargo's manifests; a
specifier's answer is remembered, so a file created later under a ``paths`` folder is seen
after a restart.
"""

from __future__ import annotations

import json
import os
import posixpath
import re
import time
from dataclasses import dataclass, field
from typing import Any

from ctxls.index.modules import Indexed, ModuleSystem, manifests, register
from ctxls.paths import read_inside

EXTENSION = re.compile(r"\.(?:[cm]?[jt]sx?)$")
DECLARATION = re.compile(r"\.d\.[cm]?ts$")
SOURCES = (".ts", ".tsx", ".mts", ".cts", ".js", ".jsx", ".mjs", ".cjs")
CONFIGS = ("tsconfig.json", "jsconfig.json")
BUILT = ("dist", "build", "lib", "out", "esm", "cjs")  # output folders a source tree mirrors
# JSON with comments and trailing commas, as tsconfig.json is written: strings are kept
# whole so that "@/*" is not read as a comment.
# Text between comments (strings included) is one match, kept whole by the template: a
# match per string cost a Python call each (most of reading a monorepo's 1,000 manifests).
_JSONC = re.compile(r'((?:[^"/,]+|"(?:\\.|[^"\\])*"|/(?![/*])|,(?!\s*[}\]]))+)'
                    r"|//[^\n]*|/\*.*?\*/|,", re.S)


def jsonc(text: str) -> Any:
    try:  # most are plain JSON
        return json.loads(text)
    except ValueError:
        text = _JSONC.sub(r"\1", text)
    try:
        return json.loads(text)
    except ValueError:  # a trailing comma before a comment: bare once the comment is gone
        return json.loads(_JSONC.sub(r"\1", text))


@dataclass
class _Config:
    folder: str  # relative to the root, "" for the root
    base: str | None = None  # baseUrl, relative to the root
    paths: list[tuple[str, list[str]]] = field(default_factory=list)  # pattern, targets


@dataclass
class _Project:
    configs: dict[str, _Config]  # folder -> its config
    packages: dict[str, tuple[str, dict[str, Any]]]  # name -> (folder, package.json)
    answers: dict[tuple[str, str], str] = field(default_factory=dict)


@register("ecmascript")
class EcmascriptModules(ModuleSystem):
    default_exports = True
    imports_only = True
    export_objects = ("exports", "module.exports")

    def __init__(self) -> None:
        self._projects: dict[str, _Project] = {}

    def module_name(self, path: str) -> str | None:
        """The path without its extension: ``billing/pricing.ts`` -> ``billing/pricing``."""
        return path.rsplit(".", 1)[0]

    def module_names(self, path: str) -> list[str]:
        """A folder's ``index`` file also answers to the folder."""
        mod = path.rsplit(".", 1)[0]
        return [mod, mod[: -len("/index")]] if mod.endswith("/index") else [mod]

    def absolute(self, module: str, level: int, path: str, root: str,
                 indexed: Indexed | None = None) -> str:
        if not module.startswith("."):
            return self.bare(module, path, root)
        spec = EXTENSION.sub("", module)  # "./money.js" names money.ts or money.js
        return posixpath.normpath(posixpath.join(posixpath.dirname(path), spec))

    def plain_target(self, local: str, module: str, rest: str, absolute: str) -> str | None:
        return None if rest else absolute  # `import * as m`: m is the module itself

    def bare(self, spec: str, path: str, root: str) -> str:
        """The workspace module a bare specifier names in the file at ``path``, or the
        specifier itself (a package outside the workspace)."""
        project = self.project(root)
        config = _nearest(project.configs, path)
        key = (config.folder if config else "", spec)
        found = project.answers.get(key)
        if found is None:
            found = (_mapped(config, spec, root) if config else None) \
                or _package(project, spec, root) or spec
            project.answers[key] = found
        return found

    def prepare(self, root: str) -> None:
        self.project(root)

    def project(self, root: str) -> _Project:
        """Every tsconfig/jsconfig and package.json under ``root``, read once."""
        return self.read_once(self._projects, root, lambda: self._read(root))

    def _read(self, root: str) -> _Project:
        configs: dict[str, _Config] = {}
        bases: dict[str, _Config | None] = {}  # a shared base read once, not per config
        packages: dict[str, tuple[str, dict[str, Any]]] = {}
        for rel, name, text in manifests(root, (*CONFIGS, "package.json")):
            folder = "" if rel == "." else rel
            try:
                data = jsonc(text)
            except ValueError:
                continue
            if not isinstance(data, dict):
                continue
            if name == "package.json":
                if isinstance(data.get("name"), str):
                    packages.setdefault(data["name"], (folder, data))
            elif folder not in configs:
                configs[folder] = _config(folder, data, root, bases)
        return _Project(configs, packages)


def _nearest(configs: dict[str, _Config], path: str) -> _Config | None:
    """The config of the deepest folder above ``path``: its folders looked up one by one
    (a monorepo has hundreds of configs, and each bare import asked every one)."""
    folder = path
    while folder:
        folder = folder.rpartition("/")[0]
        if folder in configs:
            return configs[folder]
    return None


def _config(folder: str, data: dict[str, Any], root: str,
            bases: dict[str, _Config | None], depth: int = 0) -> _Config:
    """A config's ``baseUrl`` and ``paths``, each relative to the config that sets it,
    with a relative ``extends`` chain followed (a few levels; packages' bases are not)."""
    out = _Config(folder)
    parents = data.get("extends")
    for parent in [parents] if isinstance(parents, str) else parents or []:
        if not isinstance(parent, str) or not parent.startswith(".") or depth > 4:
            continue
        rel = posixpath.normpath(posixpath.join(folder, parent))
        rel = rel if rel.endswith(".json") else rel + ".json"
        if rel not in bases:
            bases[rel] = None  # (a cycle ends here)
            try:
                base = jsonc(read_inside(os.path.join(root, rel), root, 1 << 20).decode())
            except (OSError, ValueError, UnicodeDecodeError):
                continue
            if isinstance(base, dict):
                bases[rel] = _config(posixpath.dirname(rel), base, root, bases, depth + 1)
        inherited = bases[rel]
        if inherited is not None:
            out.base, out.paths = inherited.base or out.base, inherited.paths or out.paths
    options = data.get("compilerOptions")
    if not isinstance(options, dict):
        return out
    if isinstance(options.get("baseUrl"), str):
        out.base = posixpath.normpath(posixpath.join(folder, options["baseUrl"]))
    paths = options.get("paths")
    if isinstance(paths, dict):
        # targets are relative to baseUrl when this config sets one, else to its folder
        origin = out.base if "baseUrl" in options and out.base is not None else folder
        out.paths = [(pattern, [posixpath.normpath(posixpath.join(origin, t))
                                for t in targets if isinstance(t, str)])
                     for pattern, targets in paths.items() if isinstance(targets, list)]
    return out


def _mapped(config: _Config, spec: str, root: str) -> str | None:
    """``paths`` (the longest matching prefix wins, as in TypeScript), then ``baseUrl``."""
    best: tuple[int, list[str]] | None = None
    for pattern, targets in config.paths:
        head, star, tail = pattern.partition("*")
        if not star:
            if spec == pattern:
                best = (len(pattern) + 1, targets)
                break
        elif spec.startswith(head) and spec.endswith(tail) and len(spec) >= len(head + tail):
            stem = spec[len(head): len(spec) - len(tail)]
            if best is None or len(head) > best[0]:
                best = (len(head), [t.replace("*", stem, 1) for t in targets])
    for target in best[1] if best else []:
        found = _existing(target, root)
        if found:
            return found
    if config.base is not None:
        return _existing(posixpath.join(config.base, spec), root)
    return None


def _package(project: _Project, spec: str, root: str) -> str | None:
    """A workspace package imported by name (``@scope/pkg`` or ``@scope/pkg/sub``)."""
    parts = spec.split("/")
    name = "/".join(parts[:2] if spec.startswith("@") else parts[:1])
    got = project.packages.get(name)
    if got is None:
        return None
    folder, data = got
    sub = spec[len(name):].lstrip("/")
    targets: list[str] = []
    exports = data.get("exports")
    if isinstance(exports, dict) and any(k.startswith(".") for k in exports):
        _strings(exports.get("./" + sub if sub else "."), targets)
    elif not sub:
        _strings(exports, targets)
    if not sub:
        targets += [data[k] for k in ("source", "module", "main", "types")
                    if isinstance(data.get(k), str)]
        targets += ["src/index", "index"]
    else:
        targets += [sub, "src/" + sub]
    for target in targets:
        found = _existing(posixpath.normpath(posixpath.join(folder, target)), root)
        if found:
            return found
    return None


def _strings(value: Any, out: list[str]) -> None:
    """Every path in an ``exports`` entry, its conditions in the order written."""
    if isinstance(value, str):
        out.append(value)
    elif isinstance(value, dict):
        for v in value.values():
            _strings(v, out)
    elif isinstance(value, list):
        for v in value:
            _strings(v, out)


def _existing(target: str, root: str) -> str | None:
    """The module name of the source file ``target`` (relative to the root, with or without
    an extension, or a folder with an index) names, trying the source tree a build output
    folder mirrors (``dist/index.js`` -> ``src/index.ts``); None when there is none."""
    if target.startswith(("..", "/")):
        return None  # (outside the workspace: never looked at)
    stem = EXTENSION.sub("", DECLARATION.sub("", target))
    tries = [stem]
    parts = stem.split("/")
    for i, part in enumerate(parts):
        if part in BUILT:
            tries.append("/".join([*parts[:i], "src", *parts[i + 1:]]))
            break
    for stem in tries:
        base = os.path.join(root, stem)
        folder, _, name = base.rpartition(os.sep)
        beside = _files_in(folder)
        if any(name + ext in beside for ext in SOURCES):
            return stem
        inside = _files_in(base)
        if any("index" + ext in inside for ext in SOURCES):
            return stem
    return None


_FOLDERS: dict[str, tuple[int, frozenset[str]]] = {}  # folder -> (its time, its files)
FOLDERS_KEPT = 1 << 12


def _files_in(folder: str) -> frozenset[str]:
    """The names of the files in ``folder`` (none if it is no folder), listed again when
    its time changes: each candidate of an import was a file's stat, 16 per try (the
    first window on prisma resolved its test files' imports with 38,844 of them, 0.17 s).
    A folder changed in the last two seconds is not kept (its time may not move again)."""
    try:
        mtime = os.stat(folder).st_mtime_ns
    except OSError:
        return frozenset()
    held = _FOLDERS.get(folder)
    if held is not None and held[0] == mtime:
        return held[1]
    try:
        with os.scandir(folder) as entries:
            names = frozenset(e.name for e in entries if e.is_file())
    except OSError:
        return frozenset()
    if time.time_ns() - mtime > 2_000_000_000:
        if len(_FOLDERS) >= FOLDERS_KEPT:
            _FOLDERS.clear()
        _FOLDERS[folder] = (mtime, names)
    return names
