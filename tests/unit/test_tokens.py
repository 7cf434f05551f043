"""Token counts: the encoding's tables come from a copy kept by an earlier load, and count
exactly as tiktoken's own encoding does."""

from __future__ import annotations

from pathlib import Path

import pytest
import tiktoken
from hypothesis import given, settings
from hypothesis import strategies as st

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


class _Recording:
    """An encoding that records the length of every text it is given."""

    def __init__(self, enc: tiktoken.Encoding) -> None:
        self.enc, self.lengths = enc, list[int]()

    def encode_ordinary(self, text: str) -> list[int]:
        self.lengths.append(len(text))
        return self.enc.encode_ordinary(text)


_SHARED: list[tuple[tokens.Tokenizer, _Recording]] = []


def _fresh() -> tuple[tokens.Tokenizer, _Recording]:
    """A tokenizer that has counted nothing yet, recording what it encodes (one, made
    once: making one builds the encoding's tables)."""
    if not _SHARED:
        tok = tokens.Tokenizer()
        recording = _Recording(tok._enc)
        tok._enc = recording  # type: ignore[assignment]
        _SHARED.append((tok, recording))
    tok, recording = _SHARED[0]
    tok._counts.clear()
    recording.lengths.clear()
    return tok, recording


# Runs that a piece of tiktoken's pattern may carry across a line break: blank lines with
# blanks on them, a slash right after the break (o200k's punctuation pieces take slashes),
# \r\n, form feeds and other whitespace Python and Rust's regexes see differently.
SEAMS = ["a\n\n\n b", "});\n//x\n", "x \x0c y\n\r\n  \n\t1\n", "'s\n't", "\n" * 5,
         "foo  \n  \n\x0b\n \x1cbar\n\x85baz \n", "x;\r\n    y\r\n", "  \n\t\n/* c */\n",
         "a\u2028b\n \u3000c\n", "1\n22\n333\n"]


def test_a_long_text_counted_in_parts_counts_as_the_whole() -> None:
    """A long text is counted in parts cut between lines: the sum is tiktoken's count of
    the whole text, on every module of the standard library as it is and with line
    numbers, and on texts made of every seam that could carry a piece across a line."""
    import sysconfig

    truth = tiktoken.get_encoding(tokens.DEFAULT_ENCODING)
    texts = [seam * (tokens.LONG // len(seam) + 1) for seam in SEAMS]
    texts.append("".join(SEAMS) * (tokens.LONG // len("".join(SEAMS)) + 1))
    for path in sorted(Path(sysconfig.get_paths()["stdlib"]).glob("*.py")):
        text = path.read_text(encoding="utf-8", errors="replace")
        if len(text) >= tokens.LONG:
            width = len(str(text.count("\n") + 1))
            texts += [text, "".join(f"{i:>{width}} | {line}\n"
                                    for i, line in enumerate(text.split("\n"), 1))]
    assert len(texts) > 150
    for text in texts:
        tok, recording = _fresh()
        assert tok.count(text) == len(truth.encode_ordinary(text)), text[:60]
    assert max(recording.lengths) < len(text)  # (counted in parts)


@given(st.lists(st.sampled_from([*SEAMS, "x", " ", "\n", "/", "\t", "é", ";", "12"]),
                min_size=1, max_size=60))
@settings(max_examples=200, deadline=None)
def test_any_text_counted_in_parts_counts_as_the_whole(pieces: list[str]) -> None:
    unit = "".join(pieces)
    text = unit * (tokens.LONG // len(unit) + 1)
    truth = tiktoken.get_encoding(tokens.DEFAULT_ENCODING)
    tok, _ = _fresh()
    assert tok.count(text) == len(truth.encode_ordinary(text))


def test_counting_to_a_bound_stops_past_it() -> None:
    """lodash.js shown whole is 205,000 tokens against a room of a few thousand: counted
    only until past the room, and what is said then is a floor of the count, past it."""
    import sysconfig

    text = (Path(sysconfig.get_paths()["stdlib"]) / "typing.py").read_text(encoding="utf-8") * 4
    tok, recording = _fresh()
    n, exact = tok.count_to(text, 2000)
    whole = len(recording.enc.encode_ordinary(text))
    assert not exact and 2000 < n <= whole and n < whole // 4
    assert sum(recording.lengths) < len(text) // 4
    assert tok.count_to(text, whole) == (whole, True) == tok.count_to(text, 2000)  # (kept)
    assert tok.count_to("short text", 1) == (tok.count("short text"), True)
