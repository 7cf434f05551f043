"""Skeleton correctness on a real corpus, for any language with a grammars/ folder.

For every file of the language under CORPUS:
  parse      whether the original parses with no ERROR or MISSING node;
  validity   on clean files, whether the skeleton (line numbers off, every body elided that
             can be, once without and once with a target) re-parses with no ERROR/MISSING;
  coverage   on clean files, whether every top-level node of the original tree (comments
             aside) starts on a line the skeleton shows (raw tree: independent of our
             queries), and whether every top-level outline declaration's name line is shown.
Prints one summary line per run and the first failures, for fixing.

Usage: python bench/languages.py LANG CORPUS [--limit N] [--show K]
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from pathlib import Path

from ctxls.syntax import languages
from ctxls.syntax.outline import outline_source
from ctxls.syntax.skeleton import SkeletonOptions, render, split_lines

FORCE = SkeletonOptions(line_numbers=False, whole_max_lines=0, whole_max_tokens=0,
                        flat_ratio=0.0)


def files_of(corpus: Path, exts: tuple[str, ...], limit: int) -> list[Path]:
    out: list[Path] = []
    for folder, dirs, names in os.walk(corpus):
        dirs[:] = sorted(d for d in dirs if not d.startswith(".") and d != "node_modules")
        out.extend(Path(folder) / n for n in sorted(names) if n.endswith(exts))
    if limit and len(out) > limit:
        step = len(out) / limit
        out = [out[int(i * step)] for i in range(limit)]
    return out


def check(lang_name: str, path: Path) -> dict[str, object]:
    lang = languages.registry()[lang_name]
    data = path.read_bytes()
    if b"\0" in data[:8192] or len(data) > 1 << 20:
        return {"skipped": True}
    text = data.decode("utf-8", errors="replace")
    data = text.encode()
    tree = lang.parser().parse(data)
    clean = not tree.root_node.has_error
    outline = outline_source(lang, data)
    lines = split_lines(text)
    result: dict[str, object] = {"clean": clean, "decls": len(outline.decls)}
    if not clean or not lines:
        return result
    funcs = [d for d in outline.decls if d.body is not None and not d.container]
    problems: list[str] = []
    top_nodes = [c for c in tree.root_node.named_children if c.type not in lang.comment_nodes]
    covered = named = 0
    for target in (None, funcs[len(funcs) // 2] if funcs else None):
        r = render(outline, lines, lang.elision, lang.line_comment, target, None, FORCE)
        reparsed = lang.parser().parse(r.text.encode())
        if reparsed.root_node.has_error:
            problems.append(f"invalid skeleton (target={target.qualname if target else None})")
        if target is None:
            shown = {row for a, b in r.shown for row in range(a, b + 1)}
            missing = [c for c in top_nodes if c.start_point.row not in shown]
            covered = len(top_nodes) - len(missing)
            problems += [f"top-level {c.type} at line {c.start_point.row + 1} not shown"
                         for c in missing[:3]]
            tops = [d for d in outline.decls if not d.parents]
            hidden = [d for d in tops if d.name_span.start_row not in shown]
            named = len(tops) - len(hidden)
            problems += [f"decl {d.qualname} line {d.name_span.start_row + 1} not shown"
                         for d in hidden[:3]]
            result["tops"], result["decl_tops"] = len(top_nodes), len(tops)
    result.update(problems=problems, covered=covered, named=named)
    return result


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("lang")
    ap.add_argument("corpus", type=Path)
    ap.add_argument("--limit", type=int, default=0)
    ap.add_argument("--show", type=int, default=10)
    args = ap.parse_args()
    lang = languages.registry()[args.lang]
    paths = files_of(args.corpus, lang.extensions, args.limit)
    t0 = time.perf_counter()
    n = clean = valid = 0
    tops = covered = decl_tops = named = decls = 0
    failures: list[str] = []
    for path in paths:
        try:
            r = check(args.lang, path)
        except Exception as exc:  # a crash is a finding, not a reason to stop measuring
            failures.append(f"{path}: crash {type(exc).__name__}: {exc}")
            continue
        if r.get("skipped"):
            continue
        n += 1
        decls += int(r["decls"])  # type: ignore[call-overload]
        if not r["clean"]:
            continue
        clean += 1
        problems = r.get("problems", [])
        assert isinstance(problems, list)
        if not any(p.startswith("invalid") for p in problems):
            valid += 1
        tops += int(r.get("tops", 0))  # type: ignore[call-overload]
        covered += int(r.get("covered", 0))  # type: ignore[call-overload]
        decl_tops += int(r.get("decl_tops", 0))  # type: ignore[call-overload]
        named += int(r.get("named", 0))  # type: ignore[call-overload]
        failures += [f"{path}: {p}" for p in problems]
    elapsed = time.perf_counter() - t0
    pct = lambda a, b: f"{100 * a / b:.2f}%" if b else "n/a"  # noqa: E731
    print(f"{args.lang}: {n} files ({args.corpus}), parse clean {clean} ({pct(clean, n)}), "
          f"skeleton valid {valid}/{clean} ({pct(valid, clean)}), top-level nodes shown "
          f"{covered}/{tops} ({pct(covered, tops)}), top-level declarations shown "
          f"{named}/{decl_tops} ({pct(named, decl_tops)}), {decls} declarations, "
          f"{elapsed:.1f} s")
    for line in failures[: args.show]:
        print("  ", line)
    sys.stdout.flush()


if __name__ == "__main__":
    main()
