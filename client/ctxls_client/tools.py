"""The tools a model calls, in the shapes function-calling APIs expect.

The model sees a skeleton whose markers say what was elided; it asks for any symbol by name
(``read_symbol``) or any lines (``read_range``), and ``execute_tool_call`` runs the call it
made. The tools are the MCP server's (``ctxls.tools``: the same schemas, checks and text);
``read_symbol`` and ``read_range`` are offered by default, ``AGENT_TOOLS`` adds
``construct_context`` for an agent that lets the model ask for a window itself, and any of
the seven can be named. A call may be the SDKs' own object (OpenAI's
``ChatCompletionMessageFunctionToolCall``, Anthropic's ``ToolUseBlock``), a dict of either
shape, or that dict as a JSON string. Errors come back as text the model can act on (close
matches, which argument is wrong and what it must be, which tools there are), never as an
exception in the agent loop.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from ctxls import tools as spec
from ctxls.errors import CtxError
from ctxls.tools import TOOLS as TOOLS
from ctxls.tools import BadArgument
from ctxls_client.client import CtxClient, RpcError, SyncClient

DEFAULT_TOOLS = ("read_symbol", "read_range")  # what the window's markers and handles need
AGENT_TOOLS = ("construct_context", "read_symbol", "read_range")
# The schema of read_symbol, as earlier versions exported it.
READ_SYMBOL_SCHEMA: dict[str, Any] = spec.schema(TOOLS["read_symbol"])
DESCRIPTION = TOOLS["read_symbol"].description


def schema(tool: str = "read_symbol", strict: bool = False) -> dict[str, Any]:
    """A tool's JSON schema. ``strict``: OpenAI's structured-outputs form, where every
    property is required and an optional one is nullable instead (no defaults)."""
    return spec.schema(TOOLS[tool], strict)


def openai_tool(name: str = "read_symbol", strict: bool = False,
                tool: str | None = None) -> dict[str, Any]:
    """One tool for OpenAI's chat completions; ``name`` renames it (``tool`` picks which,
    by default the one ``name`` names, else read_symbol)."""
    tool = tool or (name if name in TOOLS else "read_symbol")
    function: dict[str, Any] = {"name": name, "description": TOOLS[tool].description,
                                "parameters": schema(tool, strict)}
    if strict:
        function["strict"] = True
    return {"type": "function", "function": function}


def anthropic_tool(name: str = "read_symbol", tool: str | None = None) -> dict[str, Any]:
    tool = tool or (name if name in TOOLS else "read_symbol")
    return {"name": name, "description": TOOLS[tool].description,
            "input_schema": schema(tool)}


def openai_tools(strict: bool = False,
                 tools: Sequence[str] = DEFAULT_TOOLS) -> list[dict[str, Any]]:
    """The named tools for OpenAI (by default read_symbol and read_range)."""
    return [openai_tool(t, strict) for t in tools]


def anthropic_tools(tools: Sequence[str] = DEFAULT_TOOLS) -> list[dict[str, Any]]:
    return [anthropic_tool(t) for t in tools]


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


async def execute_tool_call(client: CtxClient, call: Any,
                            tools: Sequence[str] = DEFAULT_TOOLS) -> str:
    """Run one tool call; the returned text goes back to the model as the result. ``tools``:
    the ones offered to the model (a call to any other is answered as text). A call without
    a name is read_symbol (as the only tool once was)."""
    try:
        name, raw = parse_call(call)
        name = name or "read_symbol"
        if name not in tools or name not in TOOLS:
            return f"error: {spec.unknown_tool(name, list(tools))}"
        tool = TOOLS[name]
        args = spec.check(tool, raw)
        params = tool.params(args)
        if tool.uses_index:  # as the MCP server: wait for the scan, bounded
            await client.status(wait=True, timeout=10)
        result: Any = await client._call(tool.method, params, tool.result)
    except RpcError as exc:
        return f"error: {exc.message}"
    except CtxError as exc:
        return f"error: {exc.message}"
    except BadArgument as exc:
        return f"error: {exc}"
    except ValueError as exc:  # (json.JSONDecodeError is one)
        return f"error: malformed tool call: {exc}"
    return tool.render(result, args)


def run_tool_call(client: SyncClient, call: Any, tools: Sequence[str] = DEFAULT_TOOLS) -> str:
    """``execute_tool_call`` for a ``SyncClient``: blocking, the text for the model."""
    return client._loop.run_until_complete(execute_tool_call(client._client, call, tools))
