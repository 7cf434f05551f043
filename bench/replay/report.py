"""Tables from the per-edit records: recall and window tokens per method, per repository and
overall, the ctxls targets, and which kinds of facts ctxls misses most."""

from __future__ import annotations

import statistics
from collections import Counter, defaultdict
from typing import Any

TARGETS = {24000: (0.97, 4000), 4000: (0.90, None)}  # ceiling -> (recall, median tokens)


def pct(values: list[int], q: float) -> float:
    if not values:
        return float("nan")
    ordered = sorted(values)
    return ordered[min(len(ordered) - 1, round(q / 100 * (len(ordered) - 1)))]


def methods_of(records: list[dict[str, Any]], ceilings: list[int]) -> list[str]:
    seen = {m for r in records for m in r.get("windows", {})}
    order = [f"ctxls@{c}" for c in ceilings] + sorted(
        m for m in seen if m.startswith(f"ctxls@{ceilings[0]}-")) + [
        "whole file", "file+imports", "aider"]
    return [m for m in order if m in seen]


def summarise(records: list[dict[str, Any]], method: str) -> dict[str, Any]:
    """Recall macro (edits with facts) and micro (facts), tokens over every answered edit."""
    answered = [r for r in records if method in r.get("windows", {})
                and not r["windows"][method]["error"]]
    errors = Counter(r["windows"][method]["error"] for r in records
                     if method in r.get("windows", {}) and r["windows"][method]["error"])
    with_facts = [r for r in answered if r["facts"]]
    per_edit = [r["windows"][method]["recalled"] / len(r["facts"]) for r in with_facts]
    n_facts = sum(len(r["facts"]) for r in with_facts)
    recalled = sum(r["windows"][method]["recalled"] for r in with_facts)
    tokens = [r["windows"][method]["tokens"] for r in answered]
    precisions = [p for r in answered if (p := r["windows"][method].get("precision")) is not None]
    tests = [r["windows"][method].get("test_shown") for r in answered]
    return {"edits": len(answered), "with_facts": len(with_facts), "facts": n_facts,
            "macro": statistics.fmean(per_edit) if per_edit else float("nan"),
            "micro": recalled / n_facts if n_facts else float("nan"),
            "precision": statistics.fmean(precisions) if precisions else float("nan"),
            "tests": (sum(1 for t in tests if t), sum(1 for t in tests if t is not None)),
            "p50": pct(tokens, 50), "p90": pct(tokens, 90), "errors": errors,
            "empty_index": sum(1 for r in answered if r["windows"][method].get("indexed") == 0)}


def target_note(method: str, s: dict[str, Any]) -> str:
    if not method.startswith("ctxls@") or "-" in method or not s["edits"]:
        return ""
    ceiling = int(method.split("@")[1].split("-")[0])
    recall_target, tokens_target = TARGETS.get(ceiling, (None, None))
    if recall_target is None:
        return ""
    wanted = f"target recall ≥ {recall_target:.2f}" + (
        f", p50 ≤ {tokens_target:,}" if tokens_target else "")
    misses = [name for name, value in (("macro", s["macro"]), ("micro", s["micro"]))
              if not value >= recall_target]
    if tokens_target and not s["p50"] <= tokens_target:
        misses.append("p50 tokens")
    return f"{wanted}: " + ("met" if not misses else "missed (" + ", ".join(misses) + ")")


def print_table(title: str, records: list[dict[str, Any]], methods: list[str]) -> None:
    n = len(records)
    zero = sum(1 for r in records if not r["facts"])
    print(f"\n## {title}: {n} edits, {n - zero} with facts, {zero} needing no fact")
    print(f"{'method':14s} {'edits':>5s} {'facts':>5s} {'recall macro':>12s} "
          f"{'recall micro':>12s} {'precision':>9s} {'tokens p50':>10s} {'p90':>7s} "
          f"{'test file':>9s}  notes")
    for method in methods:
        s = summarise(records, method)
        notes = [target_note(method, s)] + [f"{k} × {v}" for k, v in s["errors"].items()]
        if s["empty_index"]:
            notes.append(f"no file indexed × {s['empty_index']}")
        tests = f"{s['tests'][0]}/{s['tests'][1]}"
        print(f"{method:14s} {s['edits']:5d} {s['facts']:5d} {s['macro']:12.3f} "
              f"{s['micro']:12.3f} {s['precision']:9.3f} {s['p50']:10,.0f} {s['p90']:7,.0f} "
              f"{tests:>9s}  " + "; ".join(x for x in notes if x))


def print_placement(records: list[dict[str, Any]], methods: list[str]) -> None:
    """Lost in the middle: windows whose front items (the target, the definitions it uses)
    precede every supporting item and whose live output follows them; where the recalled
    facts sit; and how long the window took (the first request of a fresh server)."""
    rows = [m for m in methods if m.startswith("ctxls@")]
    if not rows:
        return
    print("\n## placement and latency (ctxls windows)")
    print(f"{'method':30s} {'edges held':>11s} {'facts at edges':>15s} {'ms p50':>7s} "
          f"{'p95':>6s} {'max':>6s}  largest repository p95")
    sizes: dict[str, int] = {}
    for r in records:
        for w in r["windows"].values():
            sizes[r["edit"]["repo"]] = max(sizes.get(r["edit"]["repo"], 0),
                                           int(w.get("indexed") or 0))
    largest = max(sizes, key=lambda k: sizes[k]) if sizes else None
    for method in rows:
        placed = [p for r in records if (p := r["windows"].get(method, {}).get("placement"))]
        held = sum(1 for p in placed if p["edges"])
        at = sum(p["at_edges"] for p in placed)
        shown = sum(p["shown"] for p in placed)
        ms = [w["ms"] for r in records if (w := r["windows"].get(method)) and "ms" in w]
        big = [w["ms"] for r in records if r["edit"]["repo"] == largest
               and (w := r["windows"].get(method)) and "ms" in w]
        share = f"{at / shown:.3f}" if shown else "-"
        print(f"{method:30s} {held:5d}/{len(placed):<5d} {share:>15s} "
              f"{pct(ms, 50) if ms else float('nan'):7.0f} "
              f"{pct(ms, 95) if ms else float('nan'):6.0f} {max(ms) if ms else 0:6.0f}  "
              + (f"{largest} ({sizes[largest]:,} files): {pct(big, 95):.0f} ms" if big else ""))


def print_misses(records: list[dict[str, Any]], method: str, top: int = 10) -> None:
    """Missed facts by kind, then the (kind, what it is) groups missed most, with examples."""
    by_kind: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    by_origin: dict[str, list[int]] = defaultdict(lambda: [0, 0])
    groups: Counter[tuple[str, str]] = Counter()
    examples: dict[tuple[str, str], list[str]] = defaultdict(list)
    for r in records:
        window = r.get("windows", {}).get(method)
        if not window or window["error"]:
            continue
        missed = set(window["missed"])
        for fact in r["facts"]:
            key = f"{fact['path']}:{fact['line']}"
            origin = ("already used by the function's parent version"
                      if fact.get("used_before") else "new to the function (the edit added it)")
            by_kind[fact["kind"]][1] += 1
            by_origin[origin][1] += 1
            if key in missed:
                by_kind[fact["kind"]][0] += 1
                by_origin[origin][0] += 1
                group = (fact["kind"], fact["detail"])
                groups[group] += 1
                if len(examples[group]) < 2:
                    held = ("file in window" if fact["path"] in window.get("files", [])
                            else "file not in window")
                    examples[group].append(
                        f"{r['edit']['repo']} {r['edit']['sha'][:8]} {r['edit']['symbol']} "
                        f"-> {key} {fact['name']} (via {fact['via']}; {held})")
    if not by_kind:
        return
    print(f"\n## {method}: missed facts by kind (missed / all)")
    for kind, (miss, total) in sorted(by_kind.items()):
        print(f"  {kind:9s} {miss:4d} / {total:4d}")
    for label, (miss, total) in sorted(by_origin.items()):
        print(f"  {label:44s} {miss:4d} / {total:4d}")
    print(f"  most frequently missed (kind: what the definition is), top {top}:")
    for (kind, detail), n in groups.most_common(top):
        print(f"  {n:4d}  {kind}: {detail}")
        for example in examples[(kind, detail)]:
            print(f"          e.g. {example}")


def print_by_kind(records: list[dict[str, Any]], methods: list[str]) -> None:
    """Micro recall per fact kind, one column per method."""
    kinds = sorted({f["kind"] for r in records for f in r["facts"]})
    if not kinds:
        return
    print("\n## overall recall by fact kind (recalled / facts, micro)")
    print(f"{'kind':9s} {'facts':>5s} " + " ".join(f"{m:>14s}" for m in methods))
    for kind in kinds:
        cells = []
        total = 0
        for method in methods:
            hit = n = 0
            for r in records:
                window = r["windows"].get(method)
                if not window or window["error"]:
                    continue
                missed = set(window["missed"])
                facts = [f for f in r["facts"] if f["kind"] == kind]
                n += len(facts)
                hit += sum(1 for f in facts if f"{f['path']}:{f['line']}" not in missed)
            total = max(total, n)
            cells.append(f"{hit / n:14.3f}" if n else f"{'-':>14s}")
        print(f"{kind:9s} {total:5d} " + " ".join(cells))


def print_report(records: list[dict[str, Any]], ceilings: list[int], aider_status: str | None,
                 sampling: list[dict[str, Any]]) -> None:
    methods = methods_of(records, ceilings)
    repos = list(dict.fromkeys(r["edit"]["repo"] for r in records))
    for repo in repos:
        print_table(repo, [r for r in records if r["edit"]["repo"] == repo], methods)
    print_table("overall", records, methods)
    print_by_kind(records, methods)
    print_placement(records, methods)
    print("\nrecall macro: mean per-edit recall over edits with >= 1 fact; micro: recalled "
          "facts / all facts. precision: mean over edits of the share of the shown lines' "
          "tokens on a fact's definition or the target function. tokens: over every edit the "
          "method answered. test file: edits whose window holds a test file the commit "
          "changed that names the target / edits with such a file.")
    for stats in sampling:
        print(f"{stats['repo']}: {stats['sampled']} single-function edits sampled"
              + (f", {stats['zero_fact_skipped']} needing no fact skipped (--with-facts)"
                 if stats["zero_fact_skipped"] else "")
              + (f", {len(stats['unanalysed'])} not analysed" if stats["unanalysed"] else ""))
        for line in stats["unanalysed"]:
            print(f"  not analysed: {line}")
    if aider_status:
        print(f"aider: {aider_status}")
    for method in methods:
        if method.startswith("ctxls@"):
            print_misses(records, method)
