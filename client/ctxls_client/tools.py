"""The ``read_symbol`` tool a model calls, in the shapes function-calling APIs expect.

The model sees a skeleton whose markers say what was elided; it asks for any symbol by name,
and ``execute_tool_call`` forwards the call to ``ctx/readSymbol``. Errors come back as text the
model can act on (close matches, candidates), never as an exception in the agent loop.
"""

from __future__ import annotations

import json
from typing import Any

from ctxls_client.client import CtxClient, RpcError

READ_SYMBOL_SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {
        "path": {"type": "string",
                 "description": "File path relative to the repository root, e.g. auth/tokens.py"},
        "name": {"type": "string",
                 "description": "Symbol to expand: a qualified name such as "
                                "ShardedLRUCache._evict, or a bare name when unique"},
        "context_lines": {"type": "integer", "minimum": 0, "default": 0,
                          "description": "Extra lines to include before and after"},
    },
    "required": ["path", "name"],
    "additionalProperties": False,
}

DESCRIPTION = (
    "Read the full source of one declaration (function, method, class, constant) whose body "
    "was elided in the context you were shown. Returns the declaration with original line "
    "numbers, preceded by its file's imports and enclosing class lines."
)


def openai_tool(name: str = "read_symbol") -> dict[str, Any]:
    return {"type": "function",
            "function": {"name": name, "description": DESCRIPTION,
                         "parameters": READ_SYMBOL_SCHEMA}}


def anthropic_tool(name: str = "read_symbol") -> dict[str, Any]:
    return {"name": name, "description": DESCRIPTION, "input_schema": READ_SYMBOL_SCHEMA}


def _arguments(call: dict[str, Any]) -> dict[str, Any]:
    """Arguments from an OpenAI (``function.arguments`` JSON string) or Anthropic call."""
    if "function" in call:
        call = call["function"]
    args = call.get("arguments", call.get("input", {}))
    if isinstance(args, str):
        args = json.loads(args or "{}")
    if not isinstance(args, dict):
        raise ValueError("tool arguments must be an object")
    return args


async def execute_tool_call(client: CtxClient, call: dict[str, Any]) -> str:
    """Run one ``read_symbol`` call; the returned text goes back to the model as the result."""
    try:
        args = _arguments(call)
        unknown = set(args) - set(READ_SYMBOL_SCHEMA["properties"])
        if unknown or "path" not in args or "name" not in args:
            return ("error: read_symbol takes {path, name, context_lines?}; got "
                    + ", ".join(sorted(args)))
        result = await client.read_symbol(args["path"], args["name"],
                                          context_lines=int(args.get("context_lines", 0)))
    except RpcError as exc:
        return f"error: {exc.message}"
    except (ValueError, TypeError) as exc:
        return f"error: malformed tool call: {exc}"
    return f"{result.path} :: {result.symbol} ({result.kind})\n{result.text}"
