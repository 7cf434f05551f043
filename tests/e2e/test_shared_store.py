"""The shared index end to end: a real PostgreSQL, ``ctxls index build``, and real sidecars
(``ctxls serve`` through the project's client) that start from it.

Every sidecar on the store is compared with a sidecar that indexes alone, on the same tree:
the answers must be the same, and each must have parsed only the files that are not the
commit's. The store going away, never being there, or refusing a password must leave a
working sidecar, a clear status, and no password anywhere.
"""

from __future__ import annotations

import asyncio
import shutil
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from ctxls.cli import main as cli
from ctxls_client import CtxClient
from tests.conftest import EXAMPLE
from tests.pgserver import Postgres, free_port

REPO = "example"
# A real project's source, available offline: a package installed in the test venv.
REAL = Path(attrs.__file__).resolve().parent.parent / "cattrs"

PROBES_EXAMPLE: list[tuple[str, dict[str, Any]]] = [
    ("ctx/references", {"path": "auth/tokens.py", "name": "refresh_token"}),
    ("ctx/references", {"path": "billing/pricing.py", "name": "compute_line_total"}),
    ("ctx/tests", {"path": "auth/tokens.py", "name": "refresh_token"}),
    ("ctx/dependencies", {"path": "auth/tokens.py", "name": "refresh_token"}),
    ("ctx/readSymbol", {"path": "billing/cache.py", "name": "ShardedLRUCache._evict"}),
    ("ctx/skeleton", {"path": "auth/tokens.py", "target": {"symbol": "refresh_token"}}),
    ("ctx/construct", {"path": "billing/pricing.py", "target": {"symbol": "compute_line_total"},
                       "task": "Bulk tiers should stack with coupons; see ShardedLRUCache "
                               "and verify_token", "ceiling": 6000}),
    ("ctx/search", {"query": "refresh token"}),
    ("ctx/search", {"query": "ShardedLRUCache"}),
    ("ctx/search", {"query": "cache evict"}),
    ("ctx/search", {"query": "price discount coupon"}),
]


def commit_tree(src: Path, dst: Path) -> Path:
    """``src`` copied into a new git repository at ``dst``, all of it in one commit."""
    shutil.copytree(src, dst, ignore=shutil.ignore_patterns("__pycache__"))
    env = ["-c", "user.email=t@example.com", "-c", "user.name=t"]
    subprocess.run(["git", "init", "-q"], cwd=dst, check=True)
    subprocess.run(["git", "add", "-A"], cwd=dst, check=True)
    subprocess.run(["git", *env, "commit", "-qm", "one commit"], cwd=dst, check=True)
    return dst


def build(root: Path, dsn: str, *extra: str) -> None:
    assert cli(["index", "build", str(root), "--store", dsn, "--repo", REPO,
                "--processes", "2", *extra]) == 0


async def sidecar(root: Path, tmp: Path, dsn: str | None, **options: Any) -> CtxClient:
    opts: dict[str, Any] = {"cacheDir": str(tmp / f"cache-{time.monotonic_ns()}"), **options}
    if dsn is not None:
        opts.update(store=dsn, storeRepo=REPO)
    return await CtxClient.start(root, options=opts, wait_for_index=True,
                                 command=[sys.executable, "-m", "ctxls", "serve",
                                          "--log-level", "info"])


def _stable(result: Any) -> Any:
    """Answers without the figures that differ from run to run (timings). Search hits of
    equal score have no order (FTS5 leaves ties unordered): they are sorted by chunk, and
    a tie cut by the limit is left out."""
    if isinstance(result, dict) and "hits" in result:
        hits = sorted(result["hits"], key=lambda h: (-h["score"], h["chunkId"]))
        if len(hits) == result.get("limit", 10) and hits:
            hits = [h for h in hits if h["score"] > hits[-1]["score"]]
        result = {**result, "hits": hits}
    if isinstance(result, dict):
        return {k: _stable(v) for k, v in result.items() if k not in ("timings", "indexed")}
    if isinstance(result, list):
        return [_stable(v) for v in result]
    return result


async def answers(client: CtxClient, probes: list[tuple[str, dict[str, Any]]]) -> list[Any]:
    await client.search("warm")  # the search index ready, so windows may use it alike
    return [_stable(await client.request(m, params)) for m, params in probes]


def language_files(root: Path) -> set[str]:
    from ctxls.index.walk import walk
    from ctxls.syntax import languages

    return {rel for rel, _ in walk(root) if languages.name_for(rel) is not None}


@pytest.fixture
def tree(tmp_path: Path) -> Path:
    return commit_tree(EXAMPLE, tmp_path / "ws")


def dirty(root: Path) -> set[str]:
    """Change two committed files, add an untracked one: what a sidecar must parse."""
    tokens = root / "auth" / "tokens.py"
    tokens.write_text(tokens.read_text() + "\n\ndef rotate_token(session, token):\n"
                      "    return refresh_token(session, token)\n")
    cache = root / "billing" / "cache.py"
    cache.write_text(cache.read_text().replace("def _evict", "def _evict_oldest", 1)
                     .replace("self._evict(", "self._evict_oldest("))
    (root / "billing" / "promo.py").write_text(
        "from billing.pricing import compute_line_total\n\n\n"
        "def promo_total(item, quantity):\n"
        "    \"\"\"A promotion's line total: the usual price, then ten percent off.\"\"\"\n"
        "    return compute_line_total(item, quantity) * 0.9\n")
    return {"auth/tokens.py", "billing/cache.py", "billing/promo.py"}


async def test_sidecars_on_the_store_answer_as_a_local_one(tree: Path, store: str,
                                                           tmp_path: Path) -> None:
    build(tree, store)
    other = tmp_path / "other" / "ws"  # a second checkout of the same commit, made dirty
    shutil.copytree(tree, other)
    changed = dirty(other)
    on_dirty = [x for x in PROBES_EXAMPLE if x[1].get("name") != "ShardedLRUCache._evict"]
    on_dirty += [("ctx/readSymbol", {"path": "billing/cache.py",
                                     "name": "ShardedLRUCache._evict_oldest"}),
                 ("ctx/references", {"path": "auth/tokens.py", "name": "rotate_token"}),
                 ("ctx/search", {"query": "rotate token"}),
                 ("ctx/search", {"query": "promotion line total"})]
    for root, expect_local, probes in ((tree, set(), PROBES_EXAMPLE),
                                       (other, changed, on_dirty)):
        clients = await asyncio.gather(sidecar(root, tmp_path, store),
                                       sidecar(root, tmp_path, None, persist=False))
        shared, alone = clients
        try:
            status = await shared.status()
            assert status.store is not None and status.store.state == "connected"
            assert status.store.repository == REPO and status.store.commit
            assert set(status.store.local_paths) == expect_local
            assert status.indexed_locally == len(expect_local)
            assert status.from_store == len(language_files(root)) - len(expect_local)
            assert (await alone.status()).from_store == 0
            got, want = await answers(shared, probes), await answers(alone, probes)
            for probe, a, b in zip(probes, got, want, strict=True):
                assert a == b, probe
            hits = [h["chunkId"] for r in got if "hits" in r for h in r["hits"]]
            assert "billing/promo.py::promo_total" in hits if root == other else hits
        finally:
            await asyncio.gather(*(c.close() for c in clients))


async def test_a_real_project_from_the_store_answers_as_a_local_one(store: str,
                                                                    tmp_path: Path) -> None:
    import ast

    root = commit_tree(REAL, tmp_path / "cattrs")
    build(root, store)
    names: list[tuple[str, str]] = []
    for f in sorted(root.rglob("*.py")):
        rel = f.relative_to(root).as_posix()
        for node in ast.parse(f.read_text()).body:
            if isinstance(node, ast.FunctionDef | ast.ClassDef) and not node.name.startswith("_"):
                names.append((rel, node.name))
    sample = names[:: max(1, len(names) // 25)]
    probes = [("ctx/references", {"path": p, "name": n}) for p, n in sample]
    probes += [("ctx/readSymbol", {"path": p, "name": n}) for p, n in sample[:10]]
    probes += [("ctx/skeleton", {"path": p}) for p, _ in sample[:5]]
    probes += [("ctx/search", {"query": n.replace("_", " ")}) for _, n in sample[:10]]
    shared, alone = await asyncio.gather(sidecar(root, tmp_path, store),
                                         sidecar(root, tmp_path, None, persist=False))
    try:
        status = await shared.status()
        assert status.indexed_locally == 0 and status.from_store > 20
        got, want = await answers(shared, probes), await answers(alone, probes)
        for probe, a, b in zip(probes, got, want, strict=True):
            assert a == b, probe
    finally:
        await asyncio.gather(shared.close(), alone.close())


async def test_an_unreachable_store_leaves_a_sidecar_that_indexes_alone(
        tree: Path, postgres: Postgres, tmp_path: Path) -> None:
    closed = free_port()  # nothing listens there
    dsn = f"postgresql://ctxls:{postgres.password}@127.0.0.1:{closed}/postgres"
    t0 = time.perf_counter()
    client = await sidecar(tree, tmp_path, dsn)
    try:
        ready = time.perf_counter() - t0
        status = await client.status()
        assert status.store is not None and status.store.state == "unreachable"
        assert status.store.reason and "refused" in status.store.reason
        assert status.from_store == 0 and status.indexed_locally == len(language_files(tree))
        assert ready < 15
        assert (await client.search("refresh token")).hits
        _no_secret(postgres.password, client, status)
        warned = [line for line in client.stderr if "WARNING shared index" in line]
        assert len(warned) == 1, warned  # (not the test's own folder: its name says unreachable)
        assert not [line for line in client.stderr if "was removed" in line], client.stderr
    finally:
        await client.close()


async def test_a_store_that_never_answers_costs_the_connect_timeout(
        tree: Path, postgres: Postgres, tmp_path: Path) -> None:
    """A listener that accepts and says nothing (a hung server): start-up goes on alone
    after the connect timeout."""
    with socket.socket() as silent:
        silent.bind(("127.0.0.1", 0))
        silent.listen(8)
        port = silent.getsockname()[1]
        dsn = f"postgresql://ctxls:{postgres.password}@127.0.0.1:{port}/postgres"
        t0 = time.perf_counter()
        client = await sidecar(tree, tmp_path, dsn, storeTimeout=2.0)
        try:
            elapsed = time.perf_counter() - t0
            status = await client.status()
            assert status.store is not None and status.store.state == "unreachable"
            assert elapsed < 12, elapsed
            assert status.indexed_locally == len(language_files(tree))
            _no_secret(postgres.password, client, status)
        finally:
            await client.close()


async def test_a_bad_password_is_never_echoed(tree: Path, postgres: Postgres, store: str,
                                              tmp_path: Path,
                                              capsys: pytest.CaptureFixture[str]) -> None:
    wrong = "Wr0ng-" + postgres.password[::-1]
    dsn = store.replace(postgres.password, wrong)
    assert cli(["index", "build", str(tree), "--store", dsn]) == 1
    out = capsys.readouterr()
    assert "password authentication failed" in out.err
    assert wrong not in out.out + out.err
    client = await sidecar(tree, tmp_path, dsn)
    try:
        status = await client.status()
        assert status.store is not None and status.store.state == "unreachable"
        assert "password authentication failed" in (status.store.reason or "")
        assert status.store.location.startswith("postgresql://ctxls@127.0.0.1:")
        _no_secret(wrong, client, status)
    finally:
        await client.close()
    malformed = f"postgresql://ctxls:{wrong} with spaces@127.0.0.1/x"
    client = await sidecar(tree, tmp_path, malformed)
    try:
        status = await client.status()
        assert status.store is not None and status.store.reason == \
            "the store's address does not parse"
        _no_secret(wrong, client, status)
    finally:
        await client.close()


@pytest.fixture
def private_postgres() -> Iterator[Postgres]:
    """A server of the test's own, to stop in the middle of a session."""
    server = Postgres()
    yield server
    server.close()


async def test_the_store_lost_mid_session_is_survived(tree: Path, private_postgres: Postgres,
                                                      tmp_path: Path) -> None:
    dsn = private_postgres.create_db("lost")
    build(tree, dsn)
    client = await sidecar(tree, tmp_path, dsn)
    alone = await sidecar(tree, tmp_path, None, persist=False)
    try:
        before = await client.search("refresh token")
        assert before.complete and before.hits
        assert (await client.status()).store.state == "connected"  # type: ignore[union-attr]
        private_postgres.stop("immediate")
        t0 = time.perf_counter()
        during = await client.request("ctx/search", {"query": "refresh token"})
        assert time.perf_counter() - t0 < 10
        assert any("shared index was lost" in n for n in during["notes"])
        assert _stable(during) == {**_stable(await alone.request(
            "ctx/search", {"query": "refresh token"})), "notes": during["notes"]}
        status = await client.status()
        assert status.store is not None and status.store.state == "lost"
        assert status.store.reason
        after = await client.request("ctx/search", {"query": "refresh token"})
        assert after["complete"]  # every file indexed here now
        assert _stable(after) == _stable(await alone.request("ctx/search",
                                                             {"query": "refresh token"}))
        refs = await client.references("billing/pricing.py", "compute_line_total")
        assert refs.references
        _no_secret(private_postgres.password, client, status)
    finally:
        await client.close()
        await alone.close()


def _no_secret(secret: str, client: CtxClient, status: Any) -> None:
    assert secret not in repr(status)
    assert not any(secret in line for line in client.stderr)
    assert not any(secret in repr(n) for n in client.notifications)


async def test_the_mcp_server_starts_from_the_store(tree: Path, store: str,
                                                    tmp_path: Path) -> None:
    import json
    import os

    from mcp import Client
    from mcp.client.stdio import StdioServerParameters

    build(tree, store)
    log = tmp_path / "mcp.log"

    def mcp(*extra: str) -> Client:
        return Client(StdioServerParameters(
            command=sys.executable, args=["-m", "ctxls", "mcp", "--root", str(tree),
                                          "--options", json.dumps({"storeRepo": REPO,
                                                                   "persist": False}),
                                          *extra],
            env={"PYTHONPATH": os.pathsep.join(sys.path)}), read_timeout_seconds=120)

    calls = [("find_references", {"path": "billing/pricing.py", "name": "compute_line_total"}),
             ("search_code", {"query": "refresh token"})]
    texts = []
    for extra in (("--store", store, "--log-file", str(log), "--log-level", "info"), ()):
        async with mcp(*extra) as client:
            texts.append([(await client.call_tool(t, a)).content[0].text  # type: ignore[union-attr]
                          for t, a in calls])
    assert texts[0] == texts[1]
    logged = log.read_text()
    assert f"shared index connected: {len(language_files(tree))} files from it, 0 to parse" \
        in logged
    assert store.split(":")[2].split("@")[0] not in logged  # (the password)
