"""The shared index's pure parts: what git's status names, one name per remote, addresses
without passwords, and BM25 outside SQLite equal to FTS5's own."""

from __future__ import annotations

import sqlite3
from pathlib import Path

import pytest

from ctxls.index import git, terms
from ctxls.index.chunks import chunk_file
from ctxls.index.pgstore import StoreError, connect, reason, redact
from ctxls.index.scan import index_file
from ctxls.index.search import SearchIndex
from ctxls.syntax import languages
from ctxls.syntax.skeleton import split_lines
from tests.conftest import EXAMPLE


def test_porcelain_names_changed_untracked_and_both_sides_of_a_rename() -> None:
    raw = (b" M auth/tokens.py\0?? billing/promo.py\0R  new/name.py\0old/name.py\0"
           b"D  gone.py\0UU both.py\0?? folder/\0")
    assert git.porcelain(raw) == {"auth/tokens.py", "billing/promo.py", "new/name.py",
                                  "old/name.py", "gone.py", "both.py", "folder"}
    assert git.porcelain(b"") == frozenset()


@pytest.mark.parametrize(("url", "name"), [
    ("git@GitHub.com:org/Repo.git", "github.com/org/Repo"),
    ("https://user:secret@github.com/org/Repo.git", "github.com/org/Repo"),
    ("https://github.com/org/Repo/", "github.com/org/Repo"),
    ("ssh://git@gitlab.example.com:2222/group/sub/proj.git", "gitlab.example.com/group/sub/proj"),
    ("file:///srv/git/proj.git", "/srv/git/proj"),
    ("/srv/git/proj.git", "/srv/git/proj"),
])
def test_every_spelling_of_a_remote_is_one_name(url: str, name: str) -> None:
    assert git.normalise_url(url) == name


def test_the_repository_is_named_given_else_by_remote_else_by_folder(tmp_path: Path) -> None:
    co = git.Checkout(str(tmp_path / "top"), "", "c" * 40, "github.com/org/x", frozenset())
    assert git.repository(tmp_path, "mine", co) == "mine"
    assert git.repository(tmp_path, None, co) == "github.com/org/x"
    assert git.repository(tmp_path, None, git.Checkout(str(tmp_path / "top"), "", "c", None,
                                                       frozenset())) == "top"
    assert git.repository(tmp_path / "ws", None, None) == "ws"


def test_a_folder_outside_git_has_no_checkout(tmp_path: Path) -> None:
    assert git.checkout(tmp_path) is None


@pytest.mark.parametrize("dsn", [
    "postgresql://ctxls:s3cr3t@db.internal:5433/index",
    "host=db.internal port=5433 user=ctxls password=s3cr3t dbname=index",
    "postgresql://ctxls@db.internal:5433/index?password=s3cr3t",
])
def test_an_address_is_shown_without_its_password(dsn: str) -> None:
    assert redact(dsn) == "postgresql://ctxls@db.internal:5433/index"
    assert "s3cr3t" not in reason(RuntimeError(f"failed for {dsn} (password=s3cr3t)"), dsn)


def test_an_address_that_does_not_parse_is_never_quoted() -> None:
    bad = "postgresql://ctxls:s3 cr3t@db/x"
    assert "s3 cr3t" not in redact(bad)
    with pytest.raises(StoreError) as err:
        connect(bad)
    assert str(err.value) == "the store's address does not parse"


def test_tokens_are_fts5s_unicode61_tokens() -> None:
    assert terms.tokens("get_HTTPResponse(x1, café) -> Naïve") == [
        "get", "httpresponse", "x1", "cafe", "naive"]
    assert terms.query_terms("ShardedLRUCache compute_line_total a") == ["a",
        "cache", "compute", "line", "lru", "sharded", "shardedlrucache", "total"]


def test_bm25_here_equals_fts5s_bm25() -> None:
    """Every chunk of the example workspace in SQLite FTS5 and in ``terms``: the same
    score for every single-word query, chunk by chunk."""
    index = SearchIndex()
    chunks = []
    for f in sorted(EXAMPLE.rglob("*.py")):
        rel = f.relative_to(EXAMPLE).as_posix()
        e = index_file(rel, str(f), 1 << 20, keep_data=True)
        if e.tables is None or e.data is None:
            continue
        found = chunk_file(rel, e.data, split_lines(e.data.decode()), e.outline,
                           languages.for_path(rel), None)
        index.put(rel, e.digest, found)
        chunks += found
    all_terms = {c.chunk_id: terms.chunk_terms(c) for c in chunks}
    for word in ("token", "cache", "price", "refresh", "session", "discount"):
        rows, length, hits = terms.corpus_stats(all_terms.values(), [word])
        weights = {word: terms.idf(rows, hits[0])}
        mine = {cid: round(terms.score(t, weights, length / rows), 9)
                for cid, t in all_terms.items() if word in t.freqs}
        theirs = {r[0]: round(-r[1], 9) for r in index.db.execute(
            "SELECT m.chunk_id, bm25(chunks, 6.0, 2.0, 1.0) FROM chunks JOIN meta m "
            "ON m.id = chunks.rowid WHERE chunks MATCH ?", (f'"{word}"',))}
        assert mine == theirs and mine, word
    assert isinstance(index.db, sqlite3.Connection)
