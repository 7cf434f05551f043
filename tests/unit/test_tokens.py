"""Token counts: the encoding's tables come from a copy kept by an earlier load, and count
exactly as tiktoken's own encoding does."""

from __future__ import annotations

from pathlib import Path

import pytest
import tiktoken

from ctxls import tokens

TEXTS = ["def cents(amount: Decimal) -> int:\n    return int(amount * 100)\n",
         "naïve café — 価格 🙂\t\r\n", "", " " * 40 + "x" * 300, "<|endoftext|> is text here"]


def test_a_kept_copy_counts_as_tiktoken_does(tmp_path: Path,
                                             monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    name = tokens.DEFAULT_ENCODING
    truth = tiktoken.get_encoding(name)
    first = tokens._encoding(name)
    kept = tokens._kept_file(name)
    assert kept.is_file() and kept.parent == tmp_path / "ctxls"
    (kept.parent / f"tiktoken-{name}-old.marshal").write_bytes(b"x")  # another version's

    def unavailable(_: str) -> tiktoken.Encoding:
        raise AssertionError("loaded by tiktoken, not from the kept copy")

    monkeypatch.setattr(tiktoken, "get_encoding", unavailable)
    second = tokens._encoding(name)
    for text in TEXTS:
        assert second.encode_ordinary(text) == truth.encode_ordinary(text)
        assert first.encode_ordinary(text) == truth.encode_ordinary(text)
    assert second.n_vocab == truth.n_vocab
    monkeypatch.undo()
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    kept.write_bytes(b"\x00garbage")  # unreadable: loaded as tiktoken does, and kept again
    third = tokens._encoding(name)
    assert [third.encode_ordinary(t) for t in TEXTS] == [truth.encode_ordinary(t) for t in TEXTS]
    assert sorted(p.name for p in kept.parent.iterdir()) == [kept.name]


def test_no_home_folder_still_counts(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Where no home folder can be found, the copy is kept under the temporary folder."""
    import tempfile

    def homeless() -> Path:
        raise RuntimeError("Could not determine home directory.")

    monkeypatch.delenv("XDG_CACHE_HOME", raising=False)
    monkeypatch.setattr(Path, "home", staticmethod(homeless))
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    enc = tokens._encoding(tokens.DEFAULT_ENCODING)
    truth = tiktoken.get_encoding(tokens.DEFAULT_ENCODING)
    assert [enc.encode_ordinary(t) for t in TEXTS] == [truth.encode_ordinary(t) for t in TEXTS]
    assert tokens._kept_file(tokens.DEFAULT_ENCODING).is_relative_to(tmp_path)
    assert tokens._kept_file(tokens.DEFAULT_ENCODING).is_file()
