"""``ctxls index build``: what a build writes, with either engine, from a clean tree, a
dirty one, and a folder outside git."""

from __future__ import annotations

import shutil
from pathlib import Path
from typing import Any

import psycopg

from ctxls.index import build
from ctxls.index.tables import unpack
from tests.conftest import EXAMPLE
from tests.e2e.test_shared_store import commit_tree, dirty, language_files, sidecar

REPO = "example"


def rows(dsn: str) -> dict[str, Any]:
    with psycopg.connect(dsn) as conn:
        return {
            # (pickles of equal tables need not be equal bytes: compared decoded)
            "blobs": sorted((*r[:4], unpack(r[4]), *r[5:]) for r in conn.execute(
                "SELECT digest, language, errors, names, payload, chunks, tokens "
                "FROM ctxls_blobs")),
            "chunks": sorted(conn.execute(
                "SELECT b.digest, k.ord, k.suffix, k.symbol FROM ctxls_chunks k "
                "JOIN ctxls_blobs b ON b.id = k.blob").fetchall()),
            "postings": sorted(conn.execute(
                "SELECT p.term, b.digest, p.ords, p.freqs, p.lengths FROM ctxls_postings p "
                "JOIN ctxls_blobs b ON b.id = p.blob").fetchall()),
            "manifest": sorted(conn.execute("SELECT repo, commit, path, digest FROM "
                                            "ctxls_manifests").fetchall()),
        }


def test_a_ray_build_writes_what_a_local_build_writes(tmp_path: Path, postgres: Any,
                                                      ray_local: None) -> None:
    root = commit_tree(EXAMPLE, tmp_path / "ws")
    local_db = postgres.create_db("build_local")
    ray_db = postgres.create_db("build_ray")
    local = build.build([root], local_db, engine="local", repo=REPO, batch=4, say=print)
    on_ray = build.build([root], ray_db, engine="ray", repo=REPO, batch=4, say=print)
    assert local.files == on_ray.files == len(language_files(root))
    assert on_ray.indexed == local.indexed > 0 and on_ray.blobs == local.blobs
    assert rows(local_db) == rows(ray_db)
    again = build.build([root], ray_db, engine="ray", repo=REPO, say=print)
    assert again.indexed == 0 and again.reused == local.indexed  # content-addressed


async def test_a_dirty_tree_is_built_without_its_changes(tmp_path: Path, store: str) -> None:
    root = commit_tree(EXAMPLE, tmp_path / "ws")
    changed = dirty(root)
    said: list[str] = []
    fig = build.build([root], store, repo=REPO, say=said.append)
    assert fig.left_out == len(changed)
    listed = {r[2] for r in rows(store)["manifest"]}
    assert listed == language_files(root) - changed
    cache = str(tmp_path / "cache")
    client = await sidecar(root, tmp_path, store, cacheDir=cache)
    try:
        status = await client.status()
        assert set(status.store.local_paths) == changed  # type: ignore[union-attr]
    finally:
        await client.close()
    client = await sidecar(root, tmp_path, store, cacheDir=cache)  # a restart
    try:
        status = await client.status()  # the local cache kept what was parsed here
        assert (status.from_cache, status.indexed_locally) == (len(changed), 0)
        assert status.from_store == len(language_files(root)) - len(changed)
    finally:
        await client.close()


async def test_a_folder_outside_git_is_found_by_content(tmp_path: Path, store: str) -> None:
    plain = Path(shutil.copytree(EXAMPLE, tmp_path / "plain"))
    fig = build.build([plain], store, say=print)
    assert fig.commits == [] and fig.indexed > 0 and rows(store)["manifest"] == []
    (plain / "billing" / "promo.py").write_text("def promo():\n    return 1\n")
    client = await sidecar(plain, tmp_path, store)
    try:
        status = await client.status()
        assert status.store is not None and status.store.state == "connected"
        assert status.store.local_paths == ["billing/promo.py"]
        assert status.from_store == len(language_files(plain)) - 1
    finally:
        await client.close()


def test_contents_another_builder_wrote_meanwhile_are_skipped(
        tmp_path: Path, store: str, monkeypatch: Any) -> None:
    """Two builders racing on the same contents: the second's bulk copy meets the first's
    keys, and its batch is written again without them."""
    from ctxls.index import pgstore as pg
    from ctxls.index.terms import fingerprint

    root = commit_tree(EXAMPLE, tmp_path / "ws")
    build.build([root], store, repo=REPO, say=print)
    files = [("auth/tokens.py", str(root / "auth/tokens.py")),
             ("billing/promo.py", str(root / "billing/promo.py"))]
    (root / "billing" / "promo.py").write_text("def promo():\n    return 1\n")
    fp, built = build.build_batch(files, 1 << 20)
    real = pg.known
    asked: list[int] = []

    def blind_once(conn: Any, fingerprint: str, keys: Any) -> set[tuple[str, str]]:
        asked.append(len(keys))  # the first time, as if nothing were written yet
        return set() if len(asked) == 1 else real(conn, fingerprint, keys)

    monkeypatch.setattr(pg, "known", blind_once)
    with psycopg.connect(store, autocommit=True) as conn:
        assert pg.write_blobs(conn, fingerprint(), built)[0] == 1  # promo.py only
    assert len(asked) == 2
    assert fp == fingerprint()
