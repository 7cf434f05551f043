"""Cross-file callees in the construct window, and construct latency, for any language.

The truth is independent of ctxls's own index: Universal Ctags (Debian's universal-ctags)
lists where every name is declared. For a seeded sample of functions and methods (the
targets come from ctxls's outline, which only says where a body is), every identifier in
the body that is called (`name(`, `name!(`-style macros aside) or, for Ruby, any
identifier, and that Ctags declares as a callable or a type in exactly one file other than
the target's (and nowhere in the target's file), is a cross-file callee: a name-only
upper bound, since a unique name elsewhere is almost always the callee. The window holds
it when an item of that file shows the declaration's line verbatim (its `shown` ranges).

Calls are bare, path-qualified (`T::f`, `T.f` with a capitalised or module receiver; in
Go, only a workspace package's name) or constructions; `x.f()` is counted apart as a
method name, since this truth cannot know the receiver's type (Rust's `.map(` is the
iterator's even when the workspace declares `map`).

Prints per run: targets, calls found / calls (and per target macro), construct latency
p50 / p95 / max through a real server with its index built, the slowest five, and the
most-missed callees with the target that missed them, for fixing.

Usage: python bench/callees.py LANG CORPUS [--sample N] [--seed S] [--ceiling N] [--show K]
"""

from __future__ import annotations

import argparse
import asyncio
import json
import random
import re
import subprocess
import sys
import tempfile
import time
from collections import Counter
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

from common import pct
from ctxls.syntax import languages
from ctxls.syntax.outline import outline_source
from ctxls_client import CtxClient
from ctxls_client.client import RpcError

CTAGS_LANG = {"python": "Python", "go": "Go", "java": "Java", "typescript": "TypeScript",
              "tsx": "TypeScript", "javascript": "JavaScript", "rust": "Rust", "ruby": "Ruby",
              "kotlin": "Kotlin", "csharp": "C#", "php": "PHP", "c": "C", "cpp": "C++"}
# Ctags kinds that can be called or constructed (names differ per language parser).
CALLABLE = {"function", "method", "class", "struct", "interface", "trait", "enum", "module",
            "constructor", "singletonMethod", "implementation", "func", "macro", "object",
            "generator", "typedef", "union", "namespace"}
CALL = re.compile(r"\b([A-Za-z_]\w*)\s*(?:::<[^()]*>\s*)?\(")
ATTRIBUTE = re.compile(r"#!?\[[^\]\n]*\]|@[A-Za-z_][\w.]*")
DOUBLE = re.compile(r'"(?:\\.|[^"\\\n])*"')
SINGLE = re.compile(r"'(?:\\.|[^'\\\n])*'")
HASH_COMMENT = re.compile(r"#.*")
SLASH_COMMENT = re.compile(r"//.*|/\*.*?\*/", re.S)
KEYWORDS = {"self", "nil", "true", "false", "end", "do", "if", "unless", "def", "class",
            "module", "return", "yield", "super", "then", "else", "elsif", "case", "when",
            "while", "until", "begin", "rescue", "ensure", "and", "or", "not", "in", "new"}
WORD = re.compile(r"\b([A-Za-z_]\w*[?!]?)")
SKIP_DIRS = ("/node_modules/", "/vendor/", "/target/", "/.git/")


def ctags(root: Path, lang: str) -> list[dict]:
    out = subprocess.run(
        ["ctags", "-R", "--output-format=json", f"--languages={CTAGS_LANG[lang]}",
         "--fields=+nK", "-f", "-", "."], cwd=root, capture_output=True, text=True,
        check=True).stdout
    tags = []
    for line in out.splitlines():
        try:
            tag = json.loads(line)
        except json.JSONDecodeError:
            continue
        path = tag.get("path", "").removeprefix("./")
        if tag.get("_type") == "tag" and not any(d in f"/{path}" for d in SKIP_DIRS):
            tag["path"] = path
            tags.append(tag)
    return tags


def unique_declarations(tags: list[dict]) -> tuple[dict[str, tuple[str, tuple[int, ...]]],
                                                     dict[str, set[str]]]:
    """name -> (path, 0-based lines) for names declared callable in exactly one file (a
    trait's method and its impls' in that file are all lines of it); and name -> files,
    for every declared name."""
    files: dict[str, set[str]] = {}
    rows: dict[str, list[int]] = {}
    where: dict[str, str] = {}
    for tag in tags:
        files.setdefault(tag["name"], set()).add(tag["path"])
        if tag.get("kind") in CALLABLE:
            where.setdefault(tag["name"], tag["path"])
            rows.setdefault(tag["name"], []).append(int(tag["line"]) - 1)
    return {n: (w, tuple(sorted(rows[n]))) for n, w in where.items()
            if len(files[n]) == 1}, files


def pick_targets(root: Path, lang_name: str, sample: int, seed: int
                 ) -> list[tuple[str, str, int, str, set[str]]]:
    lang = languages.registry()[lang_name]
    found: list[tuple[str, str, int, str, set[str]]] = []
    mod = re.search(r"^module\s+(\S+)", (root / "go.mod").read_text()
                    if (root / "go.mod").is_file() else "", re.M)
    gomod = mod.group(1).strip('"') if mod else None
    for path in sorted(root.rglob("*")):
        rel = path.relative_to(root).as_posix()
        if not path.is_file() or not rel.endswith(lang.extensions) or \
                any(d in f"/{rel}" for d in SKIP_DIRS) or path.stat().st_size > 1 << 20:
            continue
        data = path.read_bytes()
        lines = data.decode("utf-8", errors="replace").splitlines()
        for d in outline_source(lang, data).decls:
            if d.body is None or d.container:
                continue
            body = "\n".join(lines[d.body.first:d.body.last + 1])
            found.append((rel, d.qualname, d.name_span.start_row + 1, body,
                          module_aliases(lang_name, "\n".join(lines), gomod)))
    random.Random(seed).shuffle(found)
    return found[:sample] if sample else found


GO_IMPORT = re.compile(r'^\s*(?:import\s+)?(?:(\w+)\s+)?"([^"]*)"', re.M)
MODULE_ALIAS = {
    "ecmascript": re.compile(r"(?:import\s+\*\s+as\s+|import\s+|(?:const|let|var)\s+)(\w+)"
                             r"\s*(?:from\b|=\s*require\()"),
}


def module_aliases(lang: str, text: str, gomod: str | None = None) -> set[str]:
    """Names a file binds to a whole module: `x.f()` through them is a call of a module's
    function, not a method call on a value. In Go, only the workspace's own packages
    (below go.mod's module path): `errors.New` is never the workspace's `New`."""
    if lang == "go":
        return {alias or path.rsplit("/", 1)[-1] for alias, path in GO_IMPORT.findall(text)
                if gomod and (path == gomod or path.startswith(gomod + "/"))}
    key = "ecmascript" if lang in ("javascript", "typescript", "tsx") else lang
    pattern = MODULE_ALIAS.get(key)
    if pattern is None:
        return set()
    return {a for m in pattern.finditer(text) for a in m.groups() if a}


def callees_of(body: str, lang: str, rel: str, unique: dict, files: dict, aliases: set[str]
               ) -> dict[str, tuple[str, tuple[int, ...], str]]:
    """name -> (path, row, how): `call` for a bare, path-qualified (`T::f`, `T.f` with a
    capitalised or module receiver) or constructed callee, `method` for `x.f()`, whose
    receiver's type this name-only truth cannot know."""
    pattern = WORD if lang == "ruby" else CALL
    body = ATTRIBUTE.sub("", body)  # `#[derive(Parser)]`, `@Test(...)`: no calls
    body = DOUBLE.sub('""', body)
    if lang != "rust":  # (Rust's 'a is a lifetime)
        body = SINGLE.sub("''", body)
    body = (HASH_COMMENT if lang in ("ruby", "python") else SLASH_COMMENT).sub("", body)
    if lang == "ruby":  # `:name` is a symbol, `name:` a keyword argument
        body = re.sub(r"(?<![:\w]):\w+[?!]?|\b\w+:(?!:)", "", body)
    out: dict[str, tuple[str, tuple[int, ...], str]] = {}
    # Ruby's locals look like bare calls: names assigned, or bound by `|a, b|`, are none
    local = set(re.findall(r"\b(\w+)\s*(?:,\s*\w+\s*)*=(?![=~>])", body)) | {
        w for group in re.findall(r"\|([^|\n]*)\|", body) for w in re.findall(r"\w+", group)
    } if lang == "ruby" else set()
    for m in pattern.finditer(body):
        if m.group(1) in local:
            continue
        name = m.group(1)
        hit = unique.get(name) if name not in KEYWORDS else None
        if not hit or hit[0] == rel or rel in files.get(name, ()):
            continue
        before = body[:m.start()].rstrip()
        how = "call"
        if before.endswith((".", "->", "&.")):
            receiver = re.search(r"([A-Za-z_]\w*)\s*(?:\.|->|&\.)$", before)
            # (Go's capitalised receivers are exported fields and values as often as types)
            if not receiver or not ((receiver.group(1)[0].isupper() and lang != "go")
                                    or receiver.group(1) in aliases):
                how = "method"
        if out.get(name, ("", (), "method"))[2] == "method":
            out[name] = (hit[0], hit[1], how)
    return out


def holds(window: list[dict], path: str, rows: tuple[int, ...]) -> bool:
    return any(item.get("path") == path and any(
        r["start"]["line"] <= row <= r["end"]["line"] for r in item.get("shown") or []
        for row in rows) for item in window)


async def run(args: argparse.Namespace) -> None:
    root = args.corpus.resolve()
    unique, files = unique_declarations(ctags(root, args.lang))
    picks = pick_targets(root, args.lang, 0, args.seed)
    chosen = [(p, q, ln, callees_of(b, args.lang, p, unique, files, al))
              for p, q, ln, b, al in picks]
    has_call = [c for c in chosen if any(h == "call" for *_, h in c[3].values())]
    with_callees = has_call[: args.sample]
    rest = [c for c in chosen if not c[3]][: max(0, args.sample // 4)]
    ms: list[tuple[float, str]] = []
    tally = {"call": [0, 0], "method": [0, 0]}
    per_target: list[float] = []
    missed: Counter[tuple[str, str]] = Counter()
    example: dict[tuple[str, str], str] = {}
    errors: list[str] = []
    with tempfile.TemporaryDirectory() as cache:
        async with await CtxClient.start(root, options={"cacheDir": cache},
                                         timeout=600) as client:
            t0 = time.perf_counter()
            await client.status(wait=True)
            scan = time.perf_counter() - t0
            for path, qual, line, callees in with_callees + rest:
                t1 = time.perf_counter()
                try:
                    r = await client.request("ctx/construct", {
                        "path": path, "target": {"symbol": qual, "line": line},
                        "task": f"change {qual}", "ceiling": args.ceiling}, timeout=120)
                except RpcError as exc:
                    errors.append(f"{path}::{qual}: {exc}")
                    continue
                ms.append(((time.perf_counter() - t1) * 1000, f"{path}::{qual}"))
                calls = 0
                hits = 0
                for name, (p, row, how) in callees.items():
                    held = holds(r["window"], p, row)
                    tally[how][0] += held
                    tally[how][1] += 1
                    if how == "call":
                        calls += 1
                        hits += held
                    if not held:
                        missed[(how, name)] += 1
                        example.setdefault((how, name), f"{path}::{qual} -> {p}:{row[0] + 1}")
                if calls:
                    per_target.append(hits / calls)
    times = [t for t, _ in ms]
    macro = sum(per_target) / len(per_target) if per_target else 0.0
    (cf, ct), (mf, mt) = tally["call"], tally["method"]
    print(f"{args.lang}: {root.name}, {len(with_callees)} targets with cross-file calls "
          f"(+{len(rest)} without), scan {scan:.1f} s; calls in window {cf}/{ct} "
          f"({cf / ct if ct else 0:.3f} micro, {macro:.3f} macro); method names "
          f"{mf}/{mt} ({mf / mt if mt else 0:.3f}); construct p50 {pct(times, 50):.0f} ms, "
          f"p95 {pct(times, 95):.0f} ms, max {max(times, default=0):.0f} ms; "
          f"{len(errors)} errors")
    for t, name in sorted(ms, reverse=True)[:5]:
        print(f"   slow {t:7.0f} ms  {name}")
    for (how, n), c in missed.most_common(args.show):
        print(f"   missed {how} {c}x {n}: {example[(how, n)]}")
    for e in errors[: args.show]:
        print("   error", e)


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("lang", choices=sorted(CTAGS_LANG))
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--sample", type=int, default=60)
    ap.add_argument("--seed", type=int, default=18)
    ap.add_argument("--ceiling", type=int, default=16000)
    ap.add_argument("--show", type=int, default=12)
    asyncio.run(run(ap.parse_args()))


if __name__ == "__main__":
    main()
