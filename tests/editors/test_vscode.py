"""The VS Code extension (editors/vscode): its Node tests against a real `ctxls serve` from
this checkout, then the .vsix it packages.

VS Code itself cannot be downloaded here, so the Node tests run the extension's commands
with stand-ins for the `vscode` module and the LanguageClient, and its pure modules (params,
renderings, the webview html) directly; `tsc` type-checks all of it against @types/vscode.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
EXT = REPO / "editors" / "vscode"
# Node tests that talk to the server: the extension's own commands in a stand-in VS Code
# (src/test/extension.test.ts), and its params and renderings (src/test/server.test.ts).
SERVER_TESTS = [
    "starts the server from the settings, with their initializationOptions",
    "shows the window at the cursor as the server page, and its figures in the status bar",
    "shows the window as Markdown, with the intent the setting names",
    "shows the skeleton with the declaration at the cursor in full",
    "reads a symbol, offering the word at the cursor",
    "shows the server's message for a misspelled symbol, once",
    "drops a window whose request was cancelled, without an error",
    "restarts the server when what it is started with changes",
    "negotiates UTF-16 positions, which is what VS Code sends",
    "builds the window at the cursor and renders every item, the figures and the omissions",
    "sends the intent and ceiling settings to the server",
    "reads the cursor as UTF-16 on a line with an astral character before it",
    "shows the skeleton with the declaration at the cursor in full",
    "reads a symbol by qualified name",
    "turns a misspelled symbol into the message the extension shows",
    "shows the server page in a webview with every item and the token count",
]


def _npm() -> str:
    npm = shutil.which("npm")
    if npm is None:
        pytest.fail("npm is not on PATH: the VS Code extension's tests need Node 20+ and npm")
    return npm


def _run(cmd: list[str], *, timeout: float, env: dict[str, str] | None = None) -> str:
    proc = subprocess.run(
        cmd, cwd=EXT, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=timeout, check=False,
    )
    assert proc.returncode == 0, (
        f"{' '.join(cmd)} exited {proc.returncode}\n--- stdout\n{proc.stdout[-12000:]}"
        f"\n--- stderr\n{proc.stderr[-6000:]}"
    )
    return proc.stdout


@pytest.fixture(scope="module")
def built() -> str:
    """node_modules installed from the lock file (again when the lock is newer), then tsc."""
    npm = _npm()
    installed = EXT / "node_modules" / ".package-lock.json"
    lock = EXT / "package-lock.json"
    if not installed.exists() or installed.stat().st_mtime < lock.stat().st_mtime:
        _run([npm, "ci", "--no-audit", "--no-fund"], timeout=600)
    _run([npm, "run", "compile"], timeout=180)
    return npm


def test_node_tests_pass_against_the_server_from_this_checkout(built: str) -> None:
    env = dict(os.environ)
    env["CTXLS_SERVER_CMD"] = json.dumps([sys.executable, "-m", "ctxls", "serve"])
    # The server (and client) of this checkout, ahead of whatever is installed.
    env["PYTHONPATH"] = os.pathsep.join(
        [str(REPO / "server"), str(REPO / "client"), *filter(None, [env.get("PYTHONPATH")])])
    out = _run([built, "test"], timeout=300, env=env)
    counts = dict(re.findall(r"^# (pass|fail|skipped|cancelled) (\d+)$", out, re.M))
    assert counts.get("fail") == "0" and counts.get("cancelled") == "0", out[-4000:]
    # A run that lost the server tests would pass too: they must each have run and passed.
    passed = set(re.findall(r"^\s*ok \d+ - (.+)$", out, re.M))
    for name in SERVER_TESTS:
        assert name in passed, f"{name!r} did not pass:\n{out[-4000:]}"


def test_the_vsix_holds_the_manifest_the_code_and_its_runtime_dependency(
    built: str, tmp_path: Path,
) -> None:
    vsix = tmp_path / "ctxls.vsix"
    _run([built, "run", "package", "--", "--out", str(vsix)], timeout=300)
    with zipfile.ZipFile(vsix) as z:
        names = set(z.namelist())
        manifest = json.loads(z.read("extension/package.json"))
    assert {"extension/package.json", "extension/out/extension.js",
            "extension/out/requests.js", "extension/out/render.js",
            "extension/out/webview.js", "extension/LICENSE.txt"} <= names
    # The client is loaded at activation: without it the extension fails in VS Code.
    assert "extension/node_modules/vscode-languageclient/package.json" in names
    assert not [n for n in names if n.startswith(("extension/src/", "extension/out/test/"))]
    assert manifest["name"] == "ctxls" and manifest["main"] == "./out/extension.js"
    commands = {c["command"] for c in manifest["contributes"]["commands"]}
    assert {"ctxls.showWindow", "ctxls.showSkeleton", "ctxls.readSymbol"} <= commands
