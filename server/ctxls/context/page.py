"""One context window as a self-contained HTML page: what a person checks before the agent
acts. A bar of the budget by role, each item (collapsible) with its header, text and why it
was admitted, the omitted items with their reasons, and the gate and budget logs.

No scripts and nothing fetched: the page opens from a file, in a VS Code webview (whose
content security policy allows only the inline style), or in a browser. Every item carries
its figures as ``data-`` attributes so a test (or a script) can read them off the DOM.
"""

from __future__ import annotations

from html import escape

from ctxls import protocol as p

# One colour per role, in the order the budget reserves them.
ROLE_COLOURS = {
    "core": "#6b7280", "target": "#2563eb", "tests": "#16a34a", "interfaces": "#9333ea",
    "call_sites": "#ea580c", "retrieved": "#0891b2", "live": "#dc2626",
}
STYLE = """
body{font:14px/1.45 system-ui,sans-serif;margin:0;padding:16px 24px;color:#111;background:#fff}
h1{font-size:18px;margin:0 0 4px}h2{font-size:15px;margin:24px 0 8px}
.meta{color:#555;margin:0 0 12px}.task{white-space:pre-wrap;background:#f3f4f6;padding:8px}
.bar{display:flex;height:22px;border:1px solid #999;background:#fafafa;margin:8px 0}
.bar span{display:block;height:100%}.legend span{margin-right:14px;white-space:nowrap}
.legend i{display:inline-block;width:10px;height:10px;margin-right:4px}
details.item{border-left:4px solid #999;margin:6px 0;padding:2px 8px;background:#fcfcfc}
details.item summary{cursor:pointer;font-family:ui-monospace,monospace;font-size:13px}
.why{color:#555;font-size:12px;margin:4px 0}
pre{font:12px/1.4 ui-monospace,monospace;overflow-x:auto;margin:4px 0;padding:6px;
background:#f6f8fa}
table{border-collapse:collapse;font-size:12px}td,th{border:1px solid #ddd;padding:2px 6px;
text-align:left;vertical-align:top}th{background:#f3f4f6}
.flag{color:#b91c1c;font-weight:600}
"""


def render(ctx: p.DecisionContext) -> str:
    by_role: dict[str, int] = {}
    for item in ctx.window:
        by_role[item.role] = by_role.get(item.role, 0) + item.tokens
    width = max(ctx.ceiling, sum(by_role.values()), 1)
    bar = "".join(
        f'<span class="role" data-role="{escape(role)}" data-tokens="{tokens}" '
        f'title="{escape(role)}: {tokens} tokens" style="width:{100 * tokens / width:.2f}%;'
        f'background:{ROLE_COLOURS.get(role, "#999")}"></span>'
        for role, tokens in by_role.items())
    legend = "".join(
        f'<span><i style="background:{ROLE_COLOURS.get(role, "#999")}"></i>{escape(role)} '
        f"{tokens:,}</span>" for role, tokens in by_role.items())
    gate = {g.id: g for g in ctx.gate_log}
    items = "\n".join(_item(item, gate.get(item.id)) for item in ctx.window)
    omitted = _table(["id", "kind", "path", "symbol", "lines", "reason"], [
        [o.id, o.kind, o.path or "", o.symbol or "",
         f"{o.start_line}-{o.end_line}" if o.start_line else "", o.reason]
        for o in ctx.omitted], "omitted")
    notes = "".join(f"<li>{escape(n)}</li>" for n in ctx.notes)
    flags = ('<p class="flag">the stable core alone did not fit: it was emitted alone</p>'
             if ctx.flagged else "")
    return f"""<!doctype html>
<html lang="en"><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; style-src 'unsafe-inline'">
<title>ctxls: {escape(ctx.target)}</title><style>{STYLE}</style></head>
<body data-target="{escape(ctx.target)}" data-token-count="{ctx.token_count}" \
data-ceiling="{ctx.ceiling}" data-complete="{str(ctx.complete).lower()}">
<h1>Context window for {escape(ctx.target)}</h1>
<p class="meta"><span class="tokens">{ctx.token_count:,} of {ctx.ceiling:,} tokens</span> ·
{len(ctx.window)} items · {len(ctx.omitted)} omitted · intent {escape(ctx.intent)} ·
{escape(ctx.encoding)}{"" if ctx.complete else " · <b>incomplete</b> (see notes)"}</p>
{flags}<div class="task">{escape(ctx.task) or "(no task text)"}</div>
<div class="bar" aria-label="tokens by role">{bar}</div>
<div class="legend">{legend}</div>
{f"<h2>Notes</h2><ul class='notes'>{notes}</ul>" if notes else ""}
<h2>Window</h2>
{items}
<h2>Omitted ({len(ctx.omitted)})</h2>
{omitted}
<h2>Gate log</h2>
{_table(["id", "decision", "driver", "reason", "kind", "path", "symbol"], [
    [g.id, g.decision, g.driver, g.reason, g.kind, g.path or "", g.symbol or ""]
    for g in ctx.gate_log], "gate")}
<h2>Budget log</h2>
{_table(["step", "item", "detail", "tokens"], [
    [b.step, b.item or "", b.detail, str(b.tokens)] for b in ctx.budget_log], "budget")}
</body></html>
"""


def _item(item: p.WindowItem, gate: p.GateEntry | None) -> str:
    where = " :: ".join(x for x in (item.path, item.symbol) if x)
    why = escape(gate.reason) if gate else ""
    colour = ROLE_COLOURS.get(item.role, "#999")
    readonly = "" if item.writable else " · read-only"
    return (
        f'<details class="item" open id="{escape(item.id)}" data-id="{escape(item.id)}" '
        f'data-role="{escape(item.role)}" data-tokens="{item.tokens}" '
        f'data-rendering="{escape(item.rendering)}" style="border-left-color:{colour}">'
        f"<summary>{escape(item.id)} · {escape(item.role)} · {escape(item.rendering)} · "
        f"{item.tokens} tokens{' · ' + escape(where) if where else ''}{readonly}</summary>"
        f'<p class="why">{why}{" · " if why else ""}{escape(item.provenance)}</p>'
        f"<pre>{escape(item.text)}</pre></details>")


def _table(head: list[str], rows: list[list[str]], name: str) -> str:
    if not rows:
        return f'<p class="{name}">none</p>'
    cells = "".join("<tr>" + "".join(f"<td>{escape(c)}</td>" for c in r) + "</tr>"
                    for r in rows)
    return (f'<table class="{name}"><tr>' + "".join(f"<th>{h}</th>" for h in head)
            + f"</tr>{cells}</table>")
