"""The tools a model calls: one table of names, descriptions, argument schemas, the request
each becomes, and the text its result becomes.

The MCP server and the Python client's function-calling shapes both read it, so a model
sees the same tool, and the same error for the same wrong argument, whichever way it is
reached. Schemas are sent with every turn: descriptions stay short.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import attrs

from ctxls import protocol as p
from ctxls.errors import InvalidParams

_PATH = {"type": "string", "description": "File path from the repository root"}
_NAME = {"type": "string",
         "description": "Declaration: a qualified name like Cache.evict, or a unique bare name"}


@attrs.frozen
class Tool:
    name: str
    description: str
    properties: dict[str, dict[str, Any]]
    required: tuple[str, ...]
    method: str  # the ctx/* request it becomes
    result: type  # that request's result class
    params: Callable[[dict[str, Any]], Any]  # checked arguments -> the request's params
    render: Callable[[Any, dict[str, Any]], str]  # result, arguments -> text for the model
    uses_index: bool = False  # the answer depends on the workspace's index


class BadArgument(ValueError):
    """An argument the tool cannot take: the message says which, and what it must be."""


def check(tool: Tool, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments with defaults filled in, or BadArgument naming the one that is wrong
    and what it must be. Quoted integers are taken (models often quote numbers)."""
    shape = ", ".join(k if k in tool.required else f"{k}?" for k in tool.properties)
    unknown = sorted(set(args) - set(tool.properties))
    if unknown:
        raise BadArgument(f"{tool.name} takes {{{shape}}}; unknown argument(s): "
                          + ", ".join(unknown))
    out: dict[str, Any] = {}
    for key, prop in tool.properties.items():
        value = args.get(key)
        if value is None:
            if key in tool.required:
                raise BadArgument(f"{tool.name} takes {{{shape}}}; `{key}` is missing")
            if "default" in prop:
                out[key] = prop["default"]
            continue
        kind = prop["type"]
        if kind == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value)
            else:
                raise BadArgument(f"`{key}` must be an integer, got {json.dumps(value)}")
        if kind == "string" and not isinstance(value, str):
            raise BadArgument(f"`{key}` must be a string, got {json.dumps(value)}")
        if kind == "integer" and value < prop.get("minimum", value):
            raise BadArgument(f"`{key}` must be at least {prop['minimum']}, got {value}")
        if "enum" in prop and value not in prop["enum"]:
            raise BadArgument(f"`{key}` must be one of {', '.join(prop['enum'])}, got "
                              f"{json.dumps(value)}")
        out[key] = value
    return out


def schema(tool: Tool, strict: bool = False) -> dict[str, Any]:
    """The tool's JSON schema. ``strict``: OpenAI's structured-outputs form, where every
    property is required and an optional one is nullable instead (no defaults, no
    minimums)."""
    props = tool.properties
    if strict:
        props = {k: _nullable({kk: vv for kk, vv in v.items() if kk not in ("default", "minimum")},
                              k not in tool.required)
                 for k, v in props.items()}
    return {"type": "object", "properties": props,
            "required": list(props) if strict else list(tool.required),
            "additionalProperties": False}


def _nullable(prop: dict[str, Any], optional: bool) -> dict[str, Any]:
    if not optional:
        return prop
    out = prop | {"type": [prop["type"], "null"]}
    if "enum" in prop:
        out["enum"] = [*prop["enum"], None]
    return out


# ---- the text a model reads ------------------------------------------------------------
def _notes(notes: list[str]) -> str:
    return "".join(f"\nnote: {n}" for n in notes)


def _construct_text(r: p.DecisionContext, args: dict[str, Any]) -> str:
    rows = []
    for o in r.omitted:
        if o.path and o.symbol:
            how = f"read_symbol {o.path} {o.symbol}"
        elif o.path and o.start_line:
            how = f"read_range {o.path} {o.start_line}-{o.end_line}"
        else:
            how = f"{o.kind} {o.id}"
        rows.append(f"- {how} ({o.reason})")
    tail = ""
    if rows:
        tail = f"\n\nLeft out ({len(rows)}):\n" + "\n".join(rows[:30])
        if len(rows) > 30:
            tail += f"\n... and {len(rows) - 30} more"
    head = f"# context for {r.target}: {r.token_count} of {r.ceiling} tokens\n"
    return head + r.text.rstrip("\n") + tail + _notes(r.notes)


def _skeleton_text(r: p.SkeletonResult, args: dict[str, Any]) -> str:
    return (f"{r.path} ({r.mode}: {r.reason}; markers say what is elided, read_symbol "
            f"expands it)\n{r.text}" + _notes(r.notes))


def _read_symbol_text(r: p.ReadSymbolResult, args: dict[str, Any]) -> str:
    return f"{r.path} :: {r.symbol} ({r.kind})\n{r.text}" + _notes(r.notes)


def _read_range_text(r: p.ReadRangeResult, args: dict[str, Any]) -> str:
    more = (f"\n(lines {args['start_line']}-{args['end_line']} asked; the file has "
            f"{r.total_lines}; cut short)" if r.truncated else "")
    return (f"{r.path} lines {r.range.start.line + 1}-{r.range.end.line + 1}\n{r.text}{more}"
            + _notes(r.notes))


def _references_text(r: p.ReferencesResult, args: dict[str, Any]) -> str:
    n = len(r.references)
    out = [f"{n} call site{'s' if n != 1 else ''} of {r.path} :: {r.symbol}"
           + (" (complete)" if r.complete else " (may be incomplete: see notes)")]
    headed: set[str] = set()
    for title, sites in (("", r.references),
                         ("Candidates: the same name, not proven to be this one", r.candidates)):
        if title and sites:
            out.append(f"\n{title}:")
        for s in sites:
            where = f"{s.path}:{s.range.start.line + 1}" + (f" in {s.enclosing}"
                                                              if s.enclosing else "")
            out.append(f"\n{where} ({s.evidence})")
            if s.header and s.path not in headed:  # a file's imports once, at its first site
                headed.add(s.path)
                out.append(s.header.rstrip("\n") + "\n    | ...")
            out.append(s.text.rstrip("\n"))
    if r.truncated:
        out.append(f"\n(cut at {args.get('limit', 50)} sites)")
    return "\n".join(out) + _notes(r.notes)


def _tests_text(r: p.TestsResult, args: dict[str, Any]) -> str:
    head = (f"{len(r.tests)} test(s) exercise {r.path} :: {r.symbol}"
            + ("" if r.complete else " (may be incomplete: see notes)"))
    rows = [f"- {t.path}" + (f" :: {t.symbol}" if t.symbol else "") + f" ({t.evidence})"
            for t in r.tests]
    return "\n".join([head, *rows]) + _notes(r.notes)


def _search_text(r: p.SearchResult, args: dict[str, Any]) -> str:
    rows = [f"{i}. {h.path}" + (f" :: {h.symbol}" if h.symbol else "") + f" ({h.kind})"
            for i, h in enumerate(r.hits, 1)]
    return "\n".join([f"{len(r.hits)} result(s) for {r.query!r} (read_symbol shows one):",
                      *rows]) + _notes(r.notes)


# ---- the table -------------------------------------------------------------------------
def _construct(a: dict[str, Any]) -> p.ConstructParams:
    if not a.get("symbol") and a.get("line") is None:
        raise InvalidParams("construct_context needs `symbol` or `line`")
    return p.ConstructParams(
        path=a["path"], target=p.Target(symbol=a.get("symbol"), line=a.get("line")),
        task=a["task"], intent=a["intent"], ceiling=a.get("ceiling"),
        live=[p.LiveItem(kind="test_output", text=a["live"])] if a.get("live") else [])


TOOLS: dict[str, Tool] = {t.name: t for t in [
    Tool("construct_context",
         "Build the context for editing one declaration: its code, its file's rules, the "
         "tests, interfaces and call sites it touches, under a token budget. Then lists "
         "what was left out and how to read it.",
         {"path": _PATH,
          "symbol": {"type": "string", "description": "Declaration to edit, e.g. Cache.evict"},
          "line": {"type": "integer", "minimum": 1,
                   "description": "Or a line inside it (1-based)"},
          "task": {"type": "string", "description": "What the edit must do"},
          "intent": {"type": "string", "enum": ["edit", "rename", "state", "review"],
                     "default": "edit"},
          "ceiling": {"type": "integer", "minimum": 256, "description": "Token budget"},
          "live": {"type": "string", "description": "Failing test output or error text"}},
         ("path", "task"), p.CONSTRUCT, p.DecisionContext, _construct, _construct_text,
         uses_index=True),
    Tool("read_symbol",
         "Read the full source of one declaration whose body was elided, with its file's "
         "imports and enclosing lines, numbered.",
         {"path": _PATH, "name": _NAME,
          "context_lines": {"type": "integer", "minimum": 0, "default": 0,
                            "description": "Extra lines before and after"}},
         ("path", "name"), p.READ_SYMBOL, p.ReadSymbolResult,
         lambda a: p.ReadSymbolParams(name=a["name"], path=a["path"],
                                      context_lines=a["context_lines"]),
         _read_symbol_text),
    Tool("read_range",
         "Read lines of a file by number (1-based, inclusive, at most 400), e.g. lines a "
         "marker says were elided.",
         {"path": _PATH, "start_line": {"type": "integer", "minimum": 1},
          "end_line": {"type": "integer", "minimum": 1}},
         ("path", "start_line", "end_line"), p.READ_RANGE, p.ReadRangeResult,
         lambda a: p.ReadRangeParams(start_line=a["start_line"], end_line=a["end_line"],
                                     path=a["path"]),
         _read_range_text),
    Tool("skeleton",
         "A file's outline: imports, constants and every signature, bodies elided (the "
         "target's shown in full).",
         {"path": _PATH, "target": {"type": "string", "description": "Declaration to show"}},
         ("path",), p.SKELETON, p.SkeletonResult,
         lambda a: p.SkeletonParams(path=a["path"], target=p.Target(symbol=a["target"])
                                    if a.get("target") else None),
         _skeleton_text),
    Tool("find_references",
         "Call sites of a declaration across the workspace, with their lines and imports; "
         "says whether the list is complete.",
         {"path": _PATH, "name": _NAME},
         ("path", "name"), p.REFERENCES, p.ReferencesResult,
         lambda a: p.ReferencesParams(path=a["path"], name=a["name"], limit=50),
         _references_text, uses_index=True),
    Tool("find_tests",
         "Tests that exercise a declaration, with the evidence tying each to it.",
         {"path": _PATH, "name": _NAME},
         ("path", "name"), p.TESTS, p.TestsResult,
         lambda a: p.SymbolParams(name=a["name"], path=a["path"]),
         _tests_text, uses_index=True),
    Tool("search_code",
         "Search the workspace's code by words (identifiers, docstrings); ranked "
         "declarations.",
         {"query": {"type": "string"},
          "limit": {"type": "integer", "minimum": 1, "default": 10}},
         ("query",), p.SEARCH, p.SearchResult,
         lambda a: p.SearchParams(query=a["query"], limit=min(a["limit"], 50)),
         _search_text, uses_index=True),
]}


def unknown_tool(name: str, offered: list[str] | None = None) -> str:
    return (f"there is no tool `{name}`; the tools are "
            + ", ".join(offered if offered is not None else TOOLS))
