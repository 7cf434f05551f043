from ctxls.syntax.text import LineIndex, decode

LINE = 'x = "🔑数据"; total = 1\n'  # 🔑 is astral (2 UTF-16 units), 数据 are BMP


def test_rows_split_on_newline_only() -> None:
    idx = LineIndex(b"a\r\nbc\n\nd")
    assert idx.line_count == 4
    assert [idx.line(r) for r in range(4)] == [b"a", b"bc", b"", b"d"]
    assert idx.point(4) == (1, 1)
    assert idx.offset(3, 0) == 7


def test_positions_in_every_encoding() -> None:
    data = LINE.encode()
    idx = LineIndex(data)
    col = data.index(b"total")  # byte column
    assert idx.to_lsp(0, col, "utf-8") == (0, col)
    assert idx.to_lsp(0, col, "utf-16") == (0, LINE.index("total") + 1)  # +1: surrogate pair
    assert idx.to_lsp(0, col, "utf-32") == (0, LINE.index("total"))
    for enc in ("utf-8", "utf-16", "utf-32"):
        line, ch = idx.to_lsp(0, col, enc)
        assert idx.from_lsp(line, ch, enc) == (0, col)


def test_positions_clamp_past_the_end() -> None:
    idx = LineIndex(b"ab\ncd")
    assert idx.from_lsp(0, 99, "utf-16") == (0, 2)
    assert idx.from_lsp(9, 0, "utf-16") == (1, 2)


def test_decode_flags_invalid_utf8() -> None:
    assert decode("ok é".encode()) == ("ok é".encode(), False)
    data, bad = decode(b"caf\xe9 = 1\n")
    assert bad and data == "caf\ufffd = 1\n".encode()


def test_edited_index_equals_a_fresh_one() -> None:
    data = "ab\ncd\n数据\n\nlast".encode()
    idx = LineIndex(data)
    end_ = len(data)
    cases = [(0, 0, b"x"), (1, 4, b""), (3, 9, b"\n\n"), (end_, end_, b"\nz"), (0, end_, b"")]
    for start, end, new in cases:
        result = data[:start] + new + data[end:]
        assert idx.edited(start, end, new, result).starts == LineIndex(result).starts
