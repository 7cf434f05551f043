"""The shared index in PostgreSQL: content-addressed tables, a manifest per commit, and
BM25 over the commit's chunks, in the database.

Five tables. ``ctxls_blobs`` holds a file content's tables (the same payload, names and
error count the SQLite cache holds), keyed by (fingerprint, digest, language): the
extraction version, the content hash and the grammar that read it (an empty
``__init__.py`` and an empty ``index.js`` share bytes, not tables), so every commit,
branch and repository that has the same file shares one row, and a new ctxls never reads
an older one's tables.
``ctxls_chunks`` names each blob's chunks, and ``ctxls_postings`` holds, per term and blob,
the chunks holding the term with its weighted count and their lengths (``index/terms.py``):
what BM25 needs, read by term.
``ctxls_manifests`` lists, per (repository, commit), each file's path, digest and size;
``ctxls_commits`` says which commits were built, by which version. The batch builder
writes (``publish``); sidecars only read, so they can run with a read-only role.

Connections fail fast: a short connect timeout, TCP keepalives and a user timeout, and a
statement timeout, so a store that goes away costs a request seconds, never a hang. No
address is ever shown with its password (``redact``), and no driver message is shown that
could quote one (``reason``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

if TYPE_CHECKING:
    import psycopg

CONNECT_TIMEOUT = 2.5  # seconds
STATEMENT_TIMEOUT_MS = 15_000
SCHEMA = """
CREATE TABLE IF NOT EXISTS ctxls_blobs (
  id bigint GENERATED ALWAYS AS IDENTITY UNIQUE,
  fingerprint text NOT NULL, digest text NOT NULL, language text NOT NULL,
  non_utf8 boolean NOT NULL, errors integer NOT NULL, names text, payload bytea NOT NULL,
  chunks integer NOT NULL, tokens bigint NOT NULL,
  PRIMARY KEY (fingerprint, digest, language));
CREATE TABLE IF NOT EXISTS ctxls_chunks (
  blob bigint NOT NULL, ord integer NOT NULL, suffix text NOT NULL, symbol text,
  kind text NOT NULL, granularity text NOT NULL, parents text NOT NULL,
  PRIMARY KEY (blob, ord));
CREATE TABLE IF NOT EXISTS ctxls_postings (
  term text NOT NULL, blob bigint NOT NULL, ords integer[] NOT NULL, freqs real[] NOT NULL,
  lengths integer[] NOT NULL, PRIMARY KEY (term, blob));
CREATE TABLE IF NOT EXISTS ctxls_manifests (
  repo text NOT NULL, commit text NOT NULL, path text NOT NULL, digest text NOT NULL,
  language text NOT NULL, size bigint NOT NULL, PRIMARY KEY (repo, commit, path));
CREATE TABLE IF NOT EXISTS ctxls_commits (
  repo text NOT NULL, commit text NOT NULL, fingerprint text NOT NULL, files integer NOT NULL,
  built_at timestamptz NOT NULL DEFAULT now(), PRIMARY KEY (repo, commit, fingerprint));
"""
# Where the builder stages a batch before it joins the tables (rows another builder wrote
# meanwhile are skipped, and blobs get their ids).
STAGING = """
CREATE TEMP TABLE IF NOT EXISTS new_blobs (
  fingerprint text, digest text, language text, non_utf8 boolean, errors integer,
  names text, payload bytea, chunks integer, tokens bigint) ON COMMIT DELETE ROWS;
CREATE TEMP TABLE IF NOT EXISTS new_chunks (
  digest text, language text, ord integer, suffix text, symbol text, kind text,
  granularity text, parents text, length integer, terms text[], freqs real[])
  ON COMMIT DELETE ROWS;
"""
TABLES = ("ctxls_blobs", "ctxls_chunks", "ctxls_postings", "ctxls_manifests",
          "ctxls_commits")


class StoreError(Exception):
    """The store could not be used; ``str()`` is safe to show (no password, no DSN)."""


class Blob(NamedTuple):
    digest: str
    language: str
    non_utf8: bool
    errors: int
    names: str | None
    payload: bytes


class ChunkRow(NamedTuple):
    """One chunk's search terms, without its path (blobs are shared between paths)."""

    ord: int
    suffix: str  # the chunk id after its path: ``::Class.method``, ``#L81``
    symbol: str | None
    kind: str
    granularity: str
    parents: str  # "\n"-joined
    length: int
    terms: list[str]
    freqs: list[float]


class Built(NamedTuple):
    """What the builder writes for one file content."""

    blob: Blob
    chunks: list[ChunkRow]


# ---- addresses and messages ------------------------------------------------------------
def redact(dsn: str) -> str:
    """The store's address as status and logs show it: user, host, port and database,
    never a password (or anything else a malformed address holds)."""
    try:
        from psycopg.conninfo import conninfo_to_dict

        parts = conninfo_to_dict(dsn)
    except Exception:
        return "postgresql://(an address that does not parse)"
    user = f"{parts['user']}@" if parts.get("user") else ""
    host = str(parts.get("host") or "localhost")
    port = f":{parts['port']}" if parts.get("port") else ""
    return f"postgresql://{user}{host}{port}/{parts.get('dbname') or ''}"


def secrets(dsn: str) -> list[str]:
    """Strings that must never appear in a message: the password and the whole address."""
    out = [dsn]
    try:
        from psycopg.conninfo import conninfo_to_dict

        pw = conninfo_to_dict(dsn).get("password")
        if pw:
            out.append(str(pw))
    except Exception:
        m = re.search(r"://[^:/@]*:([^@]*)@", dsn) or re.search(r"password=(\S+)", dsn)
        if m:
            out.append(m.group(1))
    return [s for s in out if s]


def reason(exc: BaseException, dsn: str) -> str:
    """A one-line reason for a failure, with anything secret cut out."""
    name = type(exc).__name__
    text = str(exc).strip().splitlines()[0] if str(exc).strip() else name
    for s in secrets(dsn):
        text = text.replace(s, "***")
    return re.sub(r"password=\S+", "password=***", text)[:300]


# ---- connecting ------------------------------------------------------------------------
def connect(dsn: str, timeout: float = CONNECT_TIMEOUT, autocommit: bool = True
            ) -> psycopg.Connection[Any]:
    try:
        import psycopg
    except ImportError as exc:
        raise StoreError("psycopg is not installed (pip install 'ctxls[postgresql]')") \
            from exc
    try:
        from psycopg.conninfo import conninfo_to_dict

        conninfo_to_dict(dsn)
    except Exception as exc:  # its message quotes the address: never shown
        raise StoreError("the store's address does not parse") from exc
    try:
        return psycopg.connect(
            dsn, autocommit=autocommit, connect_timeout=max(1, round(timeout)),
            keepalives=1, keepalives_idle=5, keepalives_interval=2, keepalives_count=2,
            tcp_user_timeout=int(timeout * 1000) + 2000,
            options=f"-c statement_timeout={STATEMENT_TIMEOUT_MS}",
            application_name="ctxls")
    except Exception as exc:
        raise StoreError(reason(exc, dsn)) from exc


def create_schema(conn: psycopg.Connection[Any]) -> None:
    with conn.transaction():
        conn.execute("SELECT pg_advisory_xact_lock(hashtext('ctxls_schema'))")
        conn.execute(SCHEMA)


def has_schema(conn: psycopg.Connection[Any]) -> bool:
    row = conn.execute("SELECT to_regclass('ctxls_postings') IS NOT NULL").fetchone()
    return bool(row and row[0])


# ---- the builder's writes --------------------------------------------------------------
def known(conn: psycopg.Connection[Any], fingerprint: str,
          keys: Sequence[tuple[str, str]]) -> set[tuple[str, str]]:
    """Which (digest, language) contents the store already holds tables for (of this
    version)."""
    if not keys:
        return set()
    rows = conn.execute(
        "SELECT b.digest, b.language FROM ctxls_blobs b JOIN unnest(%s::text[], %s::text[]) "
        "AS k(digest, language) ON b.digest = k.digest AND b.language = k.language "
        "WHERE b.fingerprint = %s", ([k[0] for k in keys], [k[1] for k in keys],
                                     fingerprint)).fetchall()
    return {(r[0], r[1]) for r in rows}


def write_blobs(conn: psycopg.Connection[Any], fingerprint: str, built: Iterable[Built]
                ) -> tuple[int, int, int]:
    """Write file contents' tables and chunks in bulk (COPY into a temporary table, then
    one insert that skips what another builder wrote meanwhile). (blobs, chunks, bytes)."""
    blobs = chunks = size = 0
    with conn.transaction():
        conn.execute(STAGING)
        with conn.cursor() as cur:
            with cur.copy("COPY new_blobs FROM STDIN") as cp_blobs:
                rows: list[tuple[Blob, ChunkRow]] = []
                for b in built:
                    blob = b.blob
                    cp_blobs.write_row((fingerprint, blob.digest, blob.language,
                                        blob.non_utf8, blob.errors, blob.names,
                                        blob.payload, len(b.chunks),
                                        sum(c.length for c in b.chunks)))
                    blobs += 1
                    size += len(blob.payload)
                    rows.extend((blob, c) for c in b.chunks)
            with cur.copy("COPY new_chunks FROM STDIN") as cp_chunks:
                for blob, c in rows:
                    cp_chunks.write_row((blob.digest, blob.language, c.ord, c.suffix, c.symbol,
                                         c.kind, c.granularity, c.parents, c.length,
                                         _array(c.terms), _array(c.freqs)))
                    chunks += 1
            cur.execute("INSERT INTO ctxls_blobs (fingerprint, digest, language, non_utf8, "
                        "errors, names, payload, chunks, tokens) SELECT DISTINCT ON (digest, "
                        "language) * FROM new_blobs ON CONFLICT DO NOTHING")
            # (the staged chunks, each content's once, with their blob's id)
            staged = ("(SELECT DISTINCT ON (n.digest, n.language, n.ord) b.id AS blob, n.* "
                      "FROM new_chunks n JOIN ctxls_blobs b ON b.fingerprint = %s "
                      "AND b.digest = n.digest AND b.language = n.language) s")
            cur.execute("INSERT INTO ctxls_chunks SELECT s.blob, s.ord, s.suffix, s.symbol, "
                        f"s.kind, s.granularity, s.parents FROM {staged} "
                        "ON CONFLICT DO NOTHING", (fingerprint,))
            cur.execute("INSERT INTO ctxls_postings SELECT x.t, s.blob, "
                        "array_agg(s.ord ORDER BY s.ord), array_agg(x.f ORDER BY s.ord), "
                        f"array_agg(s.length ORDER BY s.ord) FROM {staged} "
                        "CROSS JOIN LATERAL unnest(s.terms, s.freqs) AS x(t, f) "
                        "GROUP BY x.t, s.blob ON CONFLICT DO NOTHING", (fingerprint,))
    return blobs, chunks, size


def _array(values: Sequence[object]) -> str:
    """An array literal, written by hand: the driver's dumper costs a Python call per
    element. Terms are runs of letters and digits (never a quote, a backslash or a
    separator); every element is quoted, so a term ``null`` stays a word."""
    return '{"' + '","'.join(map(str, values)) + '"}' if values else "{}"


def write_manifest(conn: psycopg.Connection[Any], repo: str, commit: str, fingerprint: str,
                   files: Iterable[tuple[str, str, str, int]]) -> int:
    """Replace the commit's manifest with ``files`` (path, digest, language, size): one
    transaction, so a sidecar sees the old list or the new one, never half."""
    n = 0
    with conn.transaction(), conn.cursor() as cur:
        cur.execute("DELETE FROM ctxls_manifests WHERE repo = %s AND commit = %s",
                    (repo, commit))
        with cur.copy("COPY ctxls_manifests (repo, commit, path, digest, language, size) "
                      "FROM STDIN") as cp:
            for path, digest, language, size in files:
                cp.write_row((repo, commit, path, digest, language, size))
                n += 1
        cur.execute("INSERT INTO ctxls_commits (repo, commit, fingerprint, files) "
                    "VALUES (%s, %s, %s, %s) ON CONFLICT (repo, commit, fingerprint) DO "
                    "UPDATE SET files = EXCLUDED.files, built_at = now()",
                    (repo, commit, fingerprint, n))
    return n


def sizes(conn: psycopg.Connection[Any]) -> dict[str, int]:
    """Bytes on disk per table, indexes and TOAST included."""
    out = {}
    for t in TABLES:
        row = conn.execute("SELECT pg_total_relation_size(%s)", (t,)).fetchone()
        out[t] = int(row[0]) if row else 0
    return out


# ---- the sidecars' reads ---------------------------------------------------------------
def built_by(conn: psycopg.Connection[Any], repo: str, commit: str) -> list[str]:
    """The fingerprints (extraction versions) the commit was built by."""
    return [r[0] for r in conn.execute(
        "SELECT fingerprint FROM ctxls_commits WHERE repo = %s AND commit = %s",
        (repo, commit))]


class Listed(NamedTuple):
    digest: str
    language: str
    size: int


def manifest(conn: psycopg.Connection[Any], repo: str, commit: str, prefix: str
             ) -> dict[str, Listed]:
    """The commit's files under ``prefix`` by path (relative to the work tree's top)."""
    return {r[0]: Listed(r[1], r[2], r[3]) for r in conn.execute(
        "SELECT path, digest, language, size FROM ctxls_manifests WHERE repo = %s "
        "AND commit = %s AND starts_with(path, %s)", (repo, commit, prefix))}


def blobs(conn: psycopg.Connection[Any], fingerprint: str, keys: Sequence[tuple[str, str]]
          ) -> dict[tuple[str, str], Blob]:
    """The tables of each (digest, language) the store holds, in one query (binary: the
    payloads arrive as bytes, not hex)."""
    if not keys:
        return {}
    with conn.cursor(binary=True) as cur:
        cur.execute("SELECT b.digest, b.language, b.non_utf8, b.errors, b.names, b.payload "
                    "FROM ctxls_blobs b JOIN unnest(%s::text[], %s::text[]) AS k(digest, "
                    "language) ON b.digest = k.digest AND b.language = k.language "
                    "WHERE b.fingerprint = %s",
                    ([k[0] for k in keys], [k[1] for k in keys], fingerprint))
        return {(r[0], r[1]): Blob(r[0], r[1], r[2], r[3], r[4], bytes(r[5])) for r in cur}


# BM25 over the commit's chunks, less the files the sidecar holds itself, plus what those
# contribute (passed in): FTS5's formula (index/terms.py). One row even when nothing
# matches, carrying the corpus figures the sidecar scores its own chunks with.
SEARCH = """
WITH q AS (SELECT t, ldf FROM unnest(%(q)s::text[], %(ldf)s::int[]) AS x(t, ldf)),
corpus AS MATERIALIZED (
  SELECT m.path, b.id AS blob, b.chunks, b.tokens FROM ctxls_manifests m
  JOIN ctxls_blobs b ON b.fingerprint = %(fp)s AND b.digest = m.digest
    AND b.language = m.language
  WHERE m.repo = %(repo)s AND m.commit = %(commit)s AND starts_with(m.path, %(prefix)s)
    AND NOT (m.path = ANY(%(excluded)s))),
totals AS (
  SELECT (coalesce(sum(chunks), 0) + %(ln)s)::bigint AS n,
         (coalesce(sum(tokens), 0) + %(ltok)s)::bigint AS tok FROM corpus),
matched AS MATERIALIZED (
  SELECT c.path, p.blob, u.ord, u.len, p.term AS t, u.f
  FROM ctxls_postings p JOIN corpus c ON c.blob = p.blob
  CROSS JOIN LATERAL unnest(p.ords, p.freqs, p.lengths) AS u(ord, f, len)
  WHERE p.term = ANY(%(q)s::text[])),
idf AS (
  SELECT q.t, greatest(ln((totals.n::float8 - (q.ldf + count(m.t)) + 0.5)
                          / ((q.ldf + count(m.t)) + 0.5)), 1e-6)::float8 AS w
  FROM q CROSS JOIN totals LEFT JOIN matched m ON m.t = q.t GROUP BY q.t, q.ldf, totals.n),
scored AS (
  SELECT m.path, m.blob, m.ord,
         sum(idf.w * m.f * (%(k1)s + 1) / (m.f + %(k1)s * (1 - %(b)s + %(b)s * m.len
             / greatest(totals.tok::float8 / greatest(totals.n, 1), 1e-9)))) AS score
  FROM matched m JOIN idf ON idf.t = m.t CROSS JOIN totals
  GROUP BY m.path, m.blob, m.ord ORDER BY score DESC, m.path, m.ord LIMIT %(limit)s)
SELECT totals.n, totals.tok, (SELECT array_agg(idf.t ORDER BY idf.t) FROM idf),
       (SELECT array_agg(idf.w ORDER BY idf.t) FROM idf),
       s.path, k.suffix, k.symbol, k.kind, k.granularity, k.parents, s.score
FROM totals LEFT JOIN (scored s JOIN ctxls_chunks k ON k.blob = s.blob AND k.ord = s.ord)
  ON true
ORDER BY s.score DESC NULLS LAST, s.path, k.suffix
"""


class Found(NamedTuple):
    rows: int  # chunks in the corpus, the sidecar's own included
    tokens: int
    idf: dict[str, float]
    hits: list[tuple[str, str, str | None, str, str, str, float]]  # path, suffix, ... score


def search(conn: psycopg.Connection[Any], *, fingerprint: str, repo: str, commit: str,
           prefix: str, excluded: list[str], query: list[str], local_hits: list[int],
           local_rows: int, local_tokens: int, limit: int, k1: float, b: float) -> Found:
    rows = conn.execute(SEARCH, {
        "q": query, "ldf": local_hits, "repo": repo, "commit": commit, "prefix": prefix,
        "excluded": excluded, "fp": fingerprint, "ln": local_rows, "ltok": local_tokens,
        "k1": k1, "b": b, "limit": limit}).fetchall()
    first = rows[0]
    weights = dict(zip(first[2] or [], first[3] or [], strict=True))
    hits = [(r[4], r[5], r[6], r[7], r[8], r[9], float(r[10])) for r in rows if r[4] is not None]
    return Found(int(first[0]), int(first[1]), weights, hits)
