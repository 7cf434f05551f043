"""``ctxls index build``: one commit's index, built once, written to the shared store.

For each root: the files the walk lists (the sidecar's own rules), of which only those
git tracks and that are unchanged belong to the commit (a dirty tree is built, but its
changed and untracked files are left out of the manifest and said so); their contents are
hashed, and the ones the store does not hold yet (of this extraction version) are indexed
in batches by an engine: worker processes here (``local``) or Ray tasks, one per batch, on
a local Ray or on a cluster (``ray.init(address=...)``), unchanged. Each batch comes back
as tables plus the search terms of its chunks and is written in bulk (COPY) as it arrives;
the commit's manifest is written last, in one transaction. A root outside git has no
commit: its contents are written, and sidecars find them by content hash.
"""

from __future__ import annotations

import gc
import multiprocessing
import os
import time
from collections.abc import Callable, Iterator
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path
from typing import Any

import attrs

from ctxls.config import MAX_FILE_BYTES
from ctxls.index import git
from ctxls.index import pgstore as pg
from ctxls.index import terms as tm
from ctxls.index.chunks import chunk_file
from ctxls.index.scan import SNIFF, content_digest, index_file
from ctxls.index.terms import fingerprint as store_fingerprint
from ctxls.index.walk import walk
from ctxls.paths import read_inside
from ctxls.syntax import languages
from ctxls.syntax.skeleton import split_lines

BATCH = 64  # files per task


def build_batch(batch: list[tuple[str, str]], max_bytes: int
                ) -> tuple[str, list[pg.Built]]:
    """Index a batch of files where it runs (a worker process, a Ray task): the tables the
    sidecars restore and the terms of the chunks they search. The worker's extraction
    fingerprint comes back with them: a worker of another ctxls would write tables no
    sidecar of this one may read."""
    enabled = gc.isenabled()
    gc.disable()  # many small tables that all survive the batch
    try:
        out: list[pg.Built] = []
        for rel, abspath in batch:
            e = index_file(rel, abspath, max_bytes, keep_data=True)
            if e.status != "ok" or e.tables is None or e.data is None or e.language is None:
                continue
            lines = split_lines(e.data.decode("utf-8", errors="replace"))
            chunks = chunk_file(rel, e.data, lines, e.tables.outline,
                                languages.for_path(rel), None)
            rows = []
            postings: dict[str, pg.Posting] = {}
            for i, c in enumerate(chunks):
                t = tm.chunk_terms(c)
                rows.append(pg.ChunkRow(i, c.chunk_id[len(rel):], c.symbol, c.kind,
                                        c.granularity, "\n".join(c.parents), t.length))
                for term, f in t.freqs.items():
                    p = postings.get(term)
                    if p is None:
                        p = postings[term] = pg.Posting(term, [], [], [])
                    p.ords.append(i)
                    p.freqs.append(f)
                    p.lengths.append(t.length)
            out.append(pg.Built(pg.Blob(e.digest, e.language, e.non_utf8, e.tables.errors,
                                        e.tables.names, e.tables.payload()), rows,
                                list(postings.values())))
        return store_fingerprint(), out
    finally:
        if enabled:
            gc.enable()


@attrs.define
class Figures:
    files: int = 0  # files in the manifests (the commit's, with tables)
    left_out: int = 0  # changed or untracked files not written to a manifest
    indexed: int = 0  # contents indexed by this build
    reused: int = 0  # contents the store already held
    blobs: int = 0
    chunks: int = 0
    manifest_rows: int = 0
    payload_bytes: int = 0
    seconds: float = 0.0
    index_seconds: float = 0.0
    commits: list[tuple[str, str]] = attrs.Factory(list)  # (repository, commit)


@attrs.frozen
class Planned:
    rel: str
    abspath: str
    path: str  # relative to the work tree's top (the manifest's path)
    key: tuple[str, str]  # (digest, language)
    size: int
    in_commit: bool


def plan_root(root: Path, excludes: list[str] | None, max_bytes: int
              ) -> tuple[git.Checkout | None, list[Planned], int]:
    """The root's checkout, its files worth indexing, and how many changed or untracked
    files are left out of the commit's manifest."""
    found = git.checkout(root)
    tracked = git.tracked(root) if found is not None else None
    prefix = found.prefix if found else ""
    out: list[Planned] = []
    left_out = 0
    for rel, abspath in walk(root, excludes):
        lang = languages.name_for(rel)
        if lang is None:
            continue
        path = prefix + rel
        in_commit = found is not None and tracked is not None and path in tracked \
            and path not in found.dirty
        if found is not None and not in_commit:
            left_out += 1
            continue  # a dirty file is no part of the commit: sidecars index their own
        try:
            if os.stat(abspath).st_size > max_bytes:
                continue
            raw = read_inside(abspath, root)
        except OSError:
            continue
        if b"\0" in raw[:SNIFF]:
            continue
        digest = content_digest(raw)
        out.append(Planned(rel, abspath, path, (digest, lang), len(raw), in_commit))
    return found, out, left_out


def _local(batches: list[list[tuple[str, str]]], max_bytes: int, processes: int
           ) -> Iterator[tuple[str, list[pg.Built]]]:
    if processes <= 1 or len(batches) <= 1:
        for b in batches:
            yield build_batch(b, max_bytes)
        return
    ctx = multiprocessing.get_context("forkserver")
    ctx.set_forkserver_preload(["ctxls.index.build"])
    with ProcessPoolExecutor(processes, mp_context=ctx) as pool:
        for fut in as_completed([pool.submit(build_batch, b, max_bytes) for b in batches]):
            yield fut.result()


def _ray(batches: list[list[tuple[str, str]]], max_bytes: int, processes: int,
         address: str | None) -> Iterator[tuple[str, list[pg.Built]]]:
    """One Ray task per batch; results are taken as they finish, so the driver writes
    while the cluster works. A local Ray gets ``processes`` CPUs; a cluster is used as it
    is (its workers need this ctxls installed: the fingerprint check below says so)."""
    import ray

    started = not ray.is_initialized()
    if started:
        if address:
            ray.init(address=address, log_to_driver=False)
        else:
            ray.init(num_cpus=processes, include_dashboard=False, log_to_driver=False)
    try:
        task = ray.remote(build_batch)
        pending = [task.remote(b, max_bytes) for b in batches]
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                yield ray.get(ref)
    finally:
        if started:
            ray.shutdown()


def build(roots: list[Path], dsn: str, *, engine: str = "local", repo: str | None = None,
          processes: int = 2, address: str | None = None, batch: int = BATCH,
          max_bytes: int = MAX_FILE_BYTES, excludes: list[str] | None = None,
          say: Callable[[str], None] = print) -> Figures:
    """Build ``roots`` into the store at ``dsn``. Raises ``pg.StoreError`` (its text safe
    to show) when the store cannot be used."""
    began = time.perf_counter()
    fig = Figures()
    fingerprint = store_fingerprint()
    conn = pg.connect(dsn)
    try:
        pg.create_schema(conn)
        manifests: dict[tuple[str, str], list[tuple[str, str, str, int]]] = {}
        todo: dict[tuple[str, str], Planned] = {}
        for root in roots:
            found, planned, left_out = plan_root(root.resolve(), excludes, max_bytes)
            fig.left_out += left_out
            name = git.repository(root.resolve(), repo, found)
            if found is None:
                say(f"{root}: not a git checkout; its contents are written without a "
                    "manifest (sidecars find them by content)")
            else:
                say(f"{root}: {name} at {found.commit[:12]}, {len(planned)} files"
                    + (f", {left_out} changed or untracked left out" if left_out else ""))
                rows = manifests.setdefault((name, found.commit), [])
                rows.extend((p.path, *p.key, p.size) for p in planned)
            for p in planned:
                todo.setdefault(p.key, p)
        have = pg.known(conn, fingerprint, sorted(todo))
        fig.reused = len(have)
        work = [(p.rel, p.abspath) for k, p in sorted(todo.items()) if k not in have]
        batches = [work[i : i + batch] for i in range(0, len(work), batch)]
        t0 = time.perf_counter()
        results = (_ray(batches, max_bytes, processes, address) if engine == "ray"
                   else _local(batches, max_bytes, processes))
        written: set[tuple[str, str]] = set(have)
        for worker_fp, built in results:
            if worker_fp != fingerprint:
                raise pg.StoreError("a worker runs another version of ctxls or its grammars "
                                    "(install the same one on every node)")
            b, c, n = pg.write_blobs(conn, fingerprint, built)
            fig.blobs += b
            fig.chunks += c
            fig.payload_bytes += n
            fig.indexed += len(built)
            written.update((x.blob.digest, x.blob.language) for x in built)
        fig.index_seconds = time.perf_counter() - t0
        for (name, commit), rows in manifests.items():
            kept = [r for r in rows if (r[1], r[2]) in written]  # files with tables
            fig.manifest_rows += pg.write_manifest(conn, name, commit, fingerprint, kept)
            fig.files += len(kept)
            fig.commits.append((name, commit))
        pg.analyze(conn)
    except pg.StoreError:
        raise
    except Exception as exc:
        raise pg.StoreError(pg.reason(exc, dsn)) from exc
    finally:
        conn.close()
    fig.seconds = time.perf_counter() - began
    return fig


def describe(fig: Figures, engine: str) -> str:
    rate = fig.indexed / fig.index_seconds if fig.index_seconds else 0.0
    return (f"built {fig.files} files of {len(fig.commits)} commit(s) in {fig.seconds:.2f} s "
            f"({engine}): {fig.indexed} indexed at {rate:.0f} files/s, {fig.reused} already "
            f"in the store; rows: {fig.blobs} blobs, {fig.chunks} chunks, "
            f"{fig.manifest_rows} manifest; {fig.payload_bytes / (1 << 20):.1f} MiB of tables"
            + (f"; {fig.left_out} changed or untracked files left out" if fig.left_out
               else ""))


def store_sizes(dsn: str) -> dict[str, Any]:
    conn = pg.connect(dsn)
    try:
        return dict(pg.sizes(conn))
    finally:
        conn.close()
