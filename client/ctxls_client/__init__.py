"""What an agent imports to use ctxls: spawn the server, call it, hand its tools to a model."""

from ctxls_client.client import CtxClient, RpcError, SyncClient
from ctxls_client.tools import (
    AGENT_TOOLS,
    DEFAULT_TOOLS,
    READ_SYMBOL_SCHEMA,
    TOOLS,
    anthropic_tool,
    anthropic_tools,
    execute_tool_call,
    openai_tool,
    openai_tools,
    parse_call,
    run_tool_call,
)

__all__ = [
    "AGENT_TOOLS",
    "DEFAULT_TOOLS",
    "READ_SYMBOL_SCHEMA",
    "TOOLS",
    "CtxClient",
    "RpcError",
    "SyncClient",
    "anthropic_tool",
    "anthropic_tools",
    "execute_tool_call",
    "openai_tool",
    "openai_tools",
    "parse_call",
    "run_tool_call",
]
