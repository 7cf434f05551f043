"""``ctxls mcp``: the tools of ``ctxls.tools`` over the Model Context Protocol, on stdio.

Built on the official SDK's low-level server, so the schemas a host sends the model are
exactly the table's (short, no generated titles) and every argument is checked by the same
code as the Python client's. The engine is the LSP server's, in this process: the workspace
is scanned in the background, and a tool that needs the index waits for it (bounded by
`indexWait`) and then says how far it got. Errors are tool results with ``isError`` and the
same text as the JSON-RPC errors, never a crash.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import traceback
from pathlib import Path
from typing import Any

import mcp_types as types
from mcp.server.context import ServerRequestContext
from mcp.server.lowlevel import Server
from mcp.server.stdio import stdio_server
from mcp.shared.exceptions import MCPError

import ctxls
from ctxls import tools
from ctxls.config import Options
from ctxls.engine import BY_METHOD, Engine
from ctxls.errors import CtxError
from ctxls.wire import structure

log = logging.getLogger("ctxls")
PROMPT = "context_window"
INSTRUCTIONS = (
    "ctxls knows this repository's structure. Before editing a declaration, call "
    "construct_context with its path, its name and the task; expand anything elided with "
    "read_symbol or read_range.")


async def call(engine: Engine, name: str, arguments: dict[str, Any] | None) -> tuple[str, bool]:
    """(text for the model, whether it is an error) for one tool call."""
    tool = tools.TOOLS.get(name)
    if tool is None:
        return tools.unknown_tool(name), True
    try:
        args = tools.check(tool, arguments or {})
        params = tool.params(args)
        if tool.uses_index:  # bounded by indexWait; the answer then says how far it got
            await engine.index_ready()
        result = await engine.request(BY_METHOD[tool.method], params)
    except tools.BadArgument as exc:
        return str(exc), True
    except CtxError as exc:
        return exc.message, True
    except Exception as exc:  # a bug in ctxls: the log gets the traceback, the model a line
        log.error("tool %s failed: %s", name, traceback.format_exc())
        return f"internal error: {type(exc).__name__}: {exc}", True
    return tool.render(result, args), False


def build(engine: Engine) -> Server[Any]:
    async def list_tools(ctx: ServerRequestContext[Any, Any],
                         params: types.PaginatedRequestParams | None) -> types.ListToolsResult:
        return types.ListToolsResult(tools=[
            types.Tool(name=t.name, description=t.description, input_schema=tools.schema(t),
                       annotations=types.ToolAnnotations(read_only_hint=True,
                                                         open_world_hint=False))
            for t in tools.TOOLS.values()])

    async def call_tool(ctx: ServerRequestContext[Any, Any],
                        params: types.CallToolRequestParams) -> types.CallToolResult:
        text, failed = await call(engine, params.name, params.arguments)
        return types.CallToolResult(content=[types.TextContent(type="text", text=text)],
                                    is_error=failed)

    async def list_prompts(ctx: ServerRequestContext[Any, Any],
                           params: types.PaginatedRequestParams | None
                           ) -> types.ListPromptsResult:
        return types.ListPromptsResult(prompts=[types.Prompt(
            name=PROMPT, description="The context window for editing one declaration",
            arguments=[
                types.PromptArgument(name="path", description="File path", required=True),
                types.PromptArgument(name="symbol", description="Declaration to edit",
                                     required=True),
                types.PromptArgument(name="task", description="What the edit must do")])])

    async def get_prompt(ctx: ServerRequestContext[Any, Any],
                         params: types.GetPromptRequestParams) -> types.GetPromptResult:
        if params.name != PROMPT:
            raise MCPError(types.INVALID_PARAMS, f"there is no prompt `{params.name}`; "
                           f"the prompt is {PROMPT}")
        args = {"task": "", **(params.arguments or {})}
        text, failed = await call(engine, "construct_context", args)
        if failed:
            raise MCPError(types.INVALID_PARAMS, text)
        return types.GetPromptResult(
            description=f"context for {args.get('path')} :: {args.get('symbol')}",
            messages=[types.PromptMessage(role="user", content=types.TextContent(
                type="text", text=text))])

    return Server("ctxls", version=ctxls.__version__, instructions=INSTRUCTIONS,
                  on_list_tools=list_tools, on_call_tool=call_tool,
                  on_list_prompts=list_prompts, on_get_prompt=get_prompt)


async def run(root: Path, options: dict[str, Any] | None = None) -> None:
    engine = Engine()
    engine.open([root], structure(options or {}, Options))
    engine.start(watch=True)
    server = build(engine)
    try:
        async with stdio_server() as (read, write):
            await server.run(read, write, server.create_initialization_options())
    finally:
        await engine.stop()


def serve(root: Path, options: dict[str, Any] | None = None) -> None:
    with contextlib.suppress(KeyboardInterrupt):
        asyncio.run(run(root, options))
