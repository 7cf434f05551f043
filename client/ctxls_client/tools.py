"""The tools a model calls, in the shapes function-calling APIs expect.

The model sees a skeleton whose markers say what was elided; it asks for any symbol by name
(``read_symbol``) or any lines (``read_range``), and ``execute_tool_call`` runs the call it
made. A call may be the SDKs' own object (OpenAI's ``ChatCompletionMessageFunctionToolCall``,
Anthropic's ``ToolUseBlock``), a dict of either shape, or that dict as a JSON string. Errors
come back as text the model can act on (close matches, which argument is wrong and what it
must be, which tools there are), never as an exception in the agent loop.
"""

from __future__ import annotations

import json
from typing import Any

from ctxls_client.client import CtxClient, RpcError, SyncClient

_PATH = {"type": "string",
         "description": "File path relative to the repository root, e.g. auth/tokens.py"}

TOOLS: dict[str, dict[str, Any]] = {
    "read_symbol": {
        "description": (
            "Read the full source of one declaration (function, method, class, constant) "
            "whose body was elided in the context you were shown. Returns the declaration "
            "with original line numbers, preceded by its file's imports and enclosing class "
            "lines."),
        "properties": {
            "path": _PATH,
            "name": {"type": "string",
                     "description": "Symbol to expand: a qualified name such as "
                                    "ShardedLRUCache._evict, or a bare name when unique"},
            "context_lines": {"type": "integer", "minimum": 0, "default": 0,
                              "description": "Extra lines to include before and after"},
        },
        "required": ["path", "name"],
    },
    "read_range": {
        "description": (
            "Read lines of a file by number (1-based, inclusive, at most 400), e.g. the "
            "lines a marker in your context says were elided."),
        "properties": {
            "path": _PATH,
            "start_line": {"type": "integer", "minimum": 1, "description": "First line"},
            "end_line": {"type": "integer", "minimum": 1, "description": "Last line"},
        },
        "required": ["path", "start_line", "end_line"],
    },
}
# The schema of read_symbol, as earlier versions exported it.
READ_SYMBOL_SCHEMA: dict[str, Any] = {
    "type": "object", "properties": TOOLS["read_symbol"]["properties"],
    "required": TOOLS["read_symbol"]["required"], "additionalProperties": False}
DESCRIPTION = TOOLS["read_symbol"]["description"]


def schema(tool: str = "read_symbol", strict: bool = False) -> dict[str, Any]:
    """A tool's JSON schema. ``strict``: OpenAI's structured-outputs form, where every
    property is required and an optional one is nullable instead (no defaults)."""
    spec = TOOLS[tool]
    props = spec["properties"]
    if strict:
        props = {k: ({kk: vv for kk, vv in v.items() if kk not in ("default", "minimum")}
                     | ({} if k in spec["required"] else {"type": [v["type"], "null"]}))
                 for k, v in props.items()}
    return {"type": "object", "properties": props,
            "required": list(props) if strict else list(spec["required"]),
            "additionalProperties": False}


def openai_tool(name: str = "read_symbol", strict: bool = False,
                tool: str | None = None) -> dict[str, Any]:
    """One tool for OpenAI's chat completions; ``name`` renames it (``tool`` picks which,
    by default the one ``name`` names, else read_symbol)."""
    tool = tool or (name if name in TOOLS else "read_symbol")
    function: dict[str, Any] = {"name": name, "description": TOOLS[tool]["description"],
                                "parameters": schema(tool, strict)}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def anthropic_tool(name: str = "read_symbol", tool: str | None = None) -> dict[str, Any]:
    tool = tool or (name if name in TOOLS else "read_symbol")
    return {"name": name, "description": TOOLS[tool]["description"],
            "input_schema": schema(tool)}


def openai_tools(strict: bool = False) -> list[dict[str, Any]]:
    """Every tool, for OpenAI: what the window's markers and omitted handles point at."""
    return [openai_tool(t, strict) for t in TOOLS]


def anthropic_tools() -> list[dict[str, Any]]:
    return [anthropic_tool(t) for t in TOOLS]


def parse_call(call: Any) -> tuple[str | None, dict[str, Any]]:
    """(tool name, arguments) of a call in any of the accepted shapes."""
    if isinstance(call, str | bytes):
        call = json.loads(call)
    if hasattr(call, "model_dump"):  # the SDKs' pydantic objects
        call = call.model_dump()
    if not isinstance(call, dict):
        raise ValueError(f"a tool call is an object, got {type(call).__name__}")
    if isinstance(call.get("function"), dict):  # OpenAI: {function: {name, arguments}}
        call = call["function"]
    args = call.get("arguments", call.get("input", {}))
    if isinstance(args, str):
        args = json.loads(args or "{}")
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ValueError("tool arguments must be an object")
    name = call.get("name")
    return (name if isinstance(name, str) else None), args


class BadArgument(ValueError):
    """An argument the tool cannot take: the message says which, and what it must be."""


def _checked(tool: str, args: dict[str, Any]) -> dict[str, Any]:
    """The arguments, or BadArgument naming the one that is wrong and what it must be."""
    spec = TOOLS[tool]
    shape = ", ".join(k if k in spec["required"] else f"{k}?" for k in spec["properties"])
    unknown = sorted(set(args) - set(spec["properties"]))
    if unknown:
        raise BadArgument(f"{tool} takes {{{shape}}}; unknown argument(s): {', '.join(unknown)}")
    out: dict[str, Any] = {}
    for key, prop in spec["properties"].items():
        value = args.get(key)
        if value is None:
            if key in spec["required"]:
                raise BadArgument(f"{tool} takes {{{shape}}}; `{key}` is missing")
            value = prop.get("default")
            if value is None:
                continue
        kind = prop["type"]
        if kind == "integer" and (isinstance(value, bool) or not isinstance(value, int)):
            if isinstance(value, str) and value.strip().isdigit():
                value = int(value)  # models often quote numbers
            else:
                raise BadArgument(f"`{key}` must be an integer, got {json.dumps(value)}")
        if kind == "string" and not isinstance(value, str):
            raise BadArgument(f"`{key}` must be a string, got {json.dumps(value)}")
        if kind == "integer" and value < prop.get("minimum", value):
            raise BadArgument(f"`{key}` must be at least {prop['minimum']}, got {value}")
        out[key] = value
    return out


async def execute_tool_call(client: CtxClient, call: Any) -> str:
    """Run one tool call; the returned text goes back to the model as the result. A call
    without a name is read_symbol (as the only tool once was)."""
    try:
        name, raw = parse_call(call)
        tool = name or "read_symbol"
        if tool not in TOOLS:
            return (f"error: there is no tool `{tool}`; the tools are "
                    + ", ".join(TOOLS))
        args = _checked(tool, raw)
        if tool == "read_range":
            r = await client.read_range(args["path"], args["start_line"], args["end_line"])
            more = (f"\n(lines {args['start_line']}-{args['end_line']} asked; the file has "
                    f"{r.total_lines}; cut at 400)" if r.truncated else "")
            return f"{r.path} lines {r.range.start.line + 1}-{r.range.end.line + 1}\n{r.text}{more}"
        result = await client.read_symbol(args["path"], args["name"],
                                          context_lines=args["context_lines"])
    except RpcError as exc:
        return f"error: {exc.message}"
    except BadArgument as exc:
        return f"error: {exc}"
    except ValueError as exc:  # (json.JSONDecodeError is one)
        return f"error: malformed tool call: {exc}"
    return f"{result.path} :: {result.symbol} ({result.kind})\n{result.text}"


def run_tool_call(client: SyncClient, call: Any) -> str:
    """``execute_tool_call`` for a ``SyncClient``: blocking, the text for the model."""
    return client._loop.run_until_complete(execute_tool_call(client._client, call))
