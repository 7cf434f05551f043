"""End-to-end fixtures: the real server over stdio (pytest-lsp), on a copy of the example.

Each test gets its own copy of ``examples/workspace`` so tests may add files on disk (the
server itself never writes there). Files a test needs in the index go in with
``@pytest.mark.workspace_files({path: text})``: written before the server starts, so the scan
sees them whatever the timing. Clients are parameterised over real capability sets: VS Code
negotiates UTF-16 positions, Neovim 0.11 offers UTF-8 first.
"""

from __future__ import annotations

import shutil
import sys
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
import pytest_lsp
from lsprotocol import types as t
from pytest_lsp import ClientServerConfig, LanguageClient, client_capabilities

from ctxls_client import CtxClient

EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "workspace"
FIXTURES = Path(__file__).resolve().parents[1] / "fixtures"
# What the golden corpus keeps beside the fixtures (tests/fixtures/README.md) is no part of
# a workspace made from them: its expected outputs, its snippet cases, its lint settings.
NOT_WORKSPACE = shutil.ignore_patterns("*.outline", "*.skeleton", "cases", "ruff.toml")
SERVER = ClientServerConfig(server_command=[sys.executable, "-m", "ctxls", "serve"])
CLIENTS = {"vscode": "visual_studio_code", "neovim": "neovim@v0.11.0"}


def copy_fixtures(src: Path, dst: Path) -> Path:
    """A workspace made from fixtures under tests/fixtures/."""
    return Path(shutil.copytree(src, dst, ignore=NOT_WORKSPACE))


def plain(obj: Any) -> Any:
    """pygls hands custom results back as namedtuples; tests read them as JSON."""
    if hasattr(obj, "_asdict"):
        return {k: plain(v) for k, v in obj._asdict().items()}
    if isinstance(obj, list | tuple):
        return [plain(v) for v in obj]
    return obj


async def call(client: LanguageClient, method: str, params: dict[str, Any]) -> Any:
    return plain(await client.protocol.send_request_async(method, params))


async def construct(client: LanguageClient, **params: Any) -> dict[str, Any]:
    """``ctx/construct`` once the scan is done (the window names what the index knows)."""
    await call(client, "ctx/status", {"wait": True})
    result: dict[str, Any] = await call(client, "ctx/construct", params)
    return result


async def start(client: LanguageClient, root: Path, kind: str = "vscode",
                options: dict[str, Any] | None = None) -> None:
    @client.feature(t.CLIENT_REGISTER_CAPABILITY)
    def register(params: t.RegistrationParams) -> None:  # editors accept; so does this client
        client.registrations = params.registrations  # type: ignore[attr-defined]

    await client.initialize_session(t.InitializeParams(
        capabilities=client_capabilities(CLIENTS[kind]),
        root_uri=root.as_uri(),
        workspace_folders=[t.WorkspaceFolder(root.as_uri(), root.name)],
        initialization_options=options,
    ))


@pytest.fixture
def workspace(tmp_path: Path, request: pytest.FixtureRequest) -> Path:
    root = tmp_path / "ws"
    shutil.copytree(EXAMPLE, root)
    for marker in request.node.iter_markers("workspace_files"):
        for path, text in marker.args[0].items():
            (root / path).write_text(text, encoding="utf-8")
    return root


@pytest_lsp.fixture(config=SERVER, params=list(CLIENTS))
async def client(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    root = request.getfixturevalue("workspace")
    lsp_client.kind = request.param  # type: ignore[attr-defined]
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, request.param)
    yield
    await lsp_client.shutdown_session()


@pytest_lsp.fixture(config=SERVER)
async def vscode(lsp_client: LanguageClient, request: pytest.FixtureRequest):  # type: ignore[no-untyped-def]
    root = request.getfixturevalue("workspace")
    lsp_client.root = root  # type: ignore[attr-defined]
    await start(lsp_client, root, "vscode")
    yield
    await lsp_client.shutdown_session()


@pytest.fixture
async def ctx(workspace: Path) -> AsyncIterator[CtxClient]:
    """The project's own client on a copy of the example, its scan finished."""
    client = await CtxClient.start(workspace, options={"persist": False}, wait_for_index=True)
    yield client
    await client.close()
