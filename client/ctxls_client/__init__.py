"""What an agent imports to use ctxls: spawn the server, call it, hand its tools to a model."""

from ctxls_client.client import CtxClient, RpcError, SyncClient
from ctxls_client.tools import (
    READ_SYMBOL_SCHEMA,
    anthropic_tool,
    execute_tool_call,
    openai_tool,
)

__all__ = [
    "READ_SYMBOL_SCHEMA",
    "CtxClient",
    "RpcError",
    "SyncClient",
    "anthropic_tool",
    "execute_tool_call",
    "openai_tool",
]
