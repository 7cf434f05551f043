"""Per-arm figures and the spec 08 §7.4 decision rule.

Tokens per arm are prompt tokens (cl100k, counted on the prompt sent) plus completion
tokens (the API's ``usage.completion_tokens``; when an answer comes without usage, the
answer counted with cl100k, and the report says how many). Tokens per solved task are an
arm's tokens over all its tasks divided by the tasks it solved (none when it solved none).
Cost uses the API's ``usage.prompt_tokens`` where present (the billed figure), else the
cl100k count.
"""

from __future__ import annotations

import math
from typing import Any

STATUSES = ("solved", "failed", "could_not_run", "not_applied", "no_patch", "api_error")
MARGIN = 0.02  # two points of solve rate

RULE = ("the window arm wins when its solve rate is not lower than the stuff arm's by more "
        "than 2 points and its tokens per solved task are lower")


def arm_summary(records: list[dict[str, Any]], price_in: float, price_out: float
                ) -> dict[str, Any]:
    counts = dict.fromkeys(STATUSES, 0)
    prompt = completion = api_prompt = estimated = 0
    for rec in records:
        counts[rec["status"]] += 1
        prompt += rec["prompt_tokens"]
        completion += rec.get("completion_tokens") or 0
        estimated += rec.get("completion_source") == "cl100k"
        api_prompt += (rec.get("api_prompt_tokens") if rec.get("api_prompt_tokens")
                       is not None else rec["prompt_tokens"])
    tasks = len(records)
    solved = counts["solved"]
    total = prompt + completion
    cost = (api_prompt * price_in + completion * price_out) / 1e6
    return {"tasks": tasks, **counts,
            "solve_rate": solved / tasks if tasks else 0.0,
            "prompt_tokens": prompt, "completion_tokens": completion,
            "completion_estimated": estimated, "api_prompt_tokens": api_prompt,
            "tokens": total,
            "tokens_per_solved": total / solved if solved else None,
            "cost": round(cost, 6),
            "cost_per_solved": round(cost / solved, 6) if solved else None}


def decide(window: dict[str, Any], stuff: dict[str, Any]) -> dict[str, Any]:
    """The rule, with the figures it compared and why it came out as it did."""
    if not window["tasks"] or not stuff["tasks"]:
        return {"window_wins": False, "rule": RULE, "reason": "no tasks were run"}
    delta = window["solve_rate"] - stuff["solve_rate"]
    rate_ok = delta >= -MARGIN - 1e-12
    w_tps = window["tokens_per_solved"]
    s_tps = stuff["tokens_per_solved"]
    w_val = math.inf if w_tps is None else w_tps
    s_val = math.inf if s_tps is None else s_tps
    tokens_ok = w_val < s_val
    reasons = []
    reasons.append(f"solve rate {pct(window['solve_rate'])} vs {pct(stuff['solve_rate'])} "
                   f"({delta * 100:+.1f} points: "
                   f"{'within' if rate_ok else 'lower by more than'} 2 points)")
    reasons.append(f"tokens per solved task {tps(w_tps)} vs {tps(s_tps)} "
                   f"({'lower' if tokens_ok else 'not lower'})")
    return {"window_wins": rate_ok and tokens_ok, "rule": RULE,
            "solve_rate_delta_points": round(delta * 100, 2), "rate_ok": rate_ok,
            "tokens_ok": tokens_ok, "reason": "; ".join(reasons)}


def pct(x: float) -> str:
    return f"{x * 100:.1f}%"


def tps(x: float | None) -> str:
    return "n/a (none solved)" if x is None else f"{x:,.0f}"


def print_report(summaries: dict[str, dict[str, Any]], verdict: dict[str, Any],
                 header: str) -> None:
    print(header)
    cols = ["arm", "tasks", "solved", "rate", "failed", "not run", "not applied",
            "no patch", "api err", "prompt tok", "compl tok", "tok/solved", "cost"]
    rows = []
    for arm, s in summaries.items():
        rows.append([arm, str(s["tasks"]), str(s["solved"]), pct(s["solve_rate"]),
                     str(s["failed"]), str(s["could_not_run"]), str(s["not_applied"]),
                     str(s["no_patch"]), str(s["api_error"]), f"{s['prompt_tokens']:,}",
                     f"{s['completion_tokens']:,}"
                     + ("*" if s["completion_estimated"] else ""),
                     "-" if s["tokens_per_solved"] is None
                     else f"{s['tokens_per_solved']:,.0f}",
                     f"{s['cost']:.4f}"])
    widths = [max(len(c), *(len(r[i]) for r in rows)) for i, c in enumerate(cols)]
    print("  ".join(c.ljust(w) if i == 0 else c.rjust(w)
                    for i, (c, w) in enumerate(zip(cols, widths, strict=True))))
    for r in rows:
        print("  ".join(v.ljust(w) if i == 0 else v.rjust(w)
                        for i, (v, w) in enumerate(zip(r, widths, strict=True))))
    if any(s["completion_estimated"] for s in summaries.values()):
        print("* some answers came without usage: their completion tokens are cl100k counts")
    if any(s["api_error"] for s in summaries.values()):
        print("note: API errors count as unsolved; the verdict is unreliable until they are "
              "re-run")
    print(f"\nDecision rule (spec 08 §7.4): {RULE}.")
    word = "WINDOW WINS" if verdict["window_wins"] else "window does not win"
    print(f"Verdict: {word}: {verdict['reason']}.")
