"""Skeletons of literal sources, compared with the exact text expected."""

from __future__ import annotations

import ast
import textwrap

from ctxls.syntax.languages import Language
from ctxls.syntax.outline import outline_source
from ctxls.syntax.skeleton import Rendering, SkeletonOptions, render, split_lines
from ctxls.syntax.symbols import resolve

ALWAYS = SkeletonOptions(whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)

TOKENS = textwrap.dedent('''\
    import os
    from auth.clock import Clock, system_clock

    REFRESH_GRACE = 30
    REFRESH_DISABLED = os.environ.get("AUTH_REFRESH_DISABLED") == "1"


    def mint_token(subject: str, *, clock: Clock = system_clock) -> str:
        """Mint a token."""
        if REFRESH_DISABLED:
            raise RuntimeError("disabled")
        return f"{subject}:{clock.now()}"


    def refresh_token(token: str) -> str:
        if token:
            return token
        return mint_token("x")


    if __name__ == "__main__":
        print(mint_token("me"))
        print("done")
''')


def skel(python: Language, source: str, target: str | None = None,
         opts: SkeletonOptions = ALWAYS) -> Rendering:
    o = outline_source(python, source.encode())
    decl = resolve(o, target, "t.py") if target else None
    return render(o, split_lines(source), python.elision, python.line_comment, decl, None, opts)


def test_target_in_full_siblings_elided(python: Language) -> None:
    r = skel(python, TOKENS, "refresh_token")
    assert r.mode == "skeleton"
    assert r.text == textwrap.dedent('''\
         1 | import os
         2 | from auth.clock import Clock, system_clock
         3 |
         4 | REFRESH_GRACE = 30
         5 | REFRESH_DISABLED = os.environ.get("AUTH_REFRESH_DISABLED") == "1"
         6 |
         7 |
         8 | def mint_token(subject: str, *, clock: Clock = system_clock) -> str:
         9 |     """Mint a token."""
           |     ...  # 3 lines elided
        13 |
        14 |
        15 | def refresh_token(token: str) -> str:
        16 |     if token:
        17 |         return token
        18 |     return mint_token("x")
        19 |
        20 |
        21 | if __name__ == "__main__":
           |     ...  # 2 lines elided
        ''')
    assert [(e.first, e.last, e.symbol) for e in r.elided] == [(9, 11, "mint_token"),
                                                              (21, 22, None)]
    assert r.shown[0] == (0, 8)


def test_without_line_numbers_the_skeleton_is_python(python: Language) -> None:
    r = skel(python, TOKENS, None, SkeletonOptions(line_numbers=False, whole_max_lines=0,
                                                   whole_max_tokens=0, flat_ratio=0))
    ast.parse(r.text)
    assert "    ...  # 3 lines elided" in r.text.splitlines()


CACHE = textwrap.dedent('''\
    class ShardedLRUCache:
        """Invariant: a key lives in exactly one shard."""

        __slots__ = ("_shards", "_cap")

        def __init__(self, shards, cap):
            if shards < 1:
                raise ValueError(shards)
            self._shards = [dict() for _ in range(shards)]
            self._cap = cap
            log("made")

        def get(self, key):
            shard = self._shards[hash(key) % len(self._shards)]
            return shard.get(key)

        def _evict(self, shard):
            while len(shard) > self._cap:
                shard.pop(next(iter(shard)))
''')


def test_method_target_keeps_class_lineage_and_init_attributes(python: Language) -> None:
    r = skel(python, CACHE, "_evict")
    assert r.text == textwrap.dedent('''\
         1 | class ShardedLRUCache:
         2 |     """Invariant: a key lives in exactly one shard."""
         3 |
         4 |     __slots__ = ("_shards", "_cap")
         5 |
         6 |     def __init__(self, shards, cap):
           |         ...  # 2 lines elided
         9 |         self._shards = [dict() for _ in range(shards)]
        10 |         self._cap = cap
        11 |         log("made")
        12 |
        13 |     def get(self, key):
           |         ...  # 2 lines elided
        16 |
        17 |     def _evict(self, shard):
        18 |         while len(shard) > self._cap:
        19 |             shard.pop(next(iter(shard)))
        ''')


def test_markers_name_hidden_declarations(python: Language) -> None:
    src = "def outer():\n    x = 1\n    def helper():\n        return x\n    class Box:\n" \
          "        pass\n    return helper\n"
    r = skel(python, src)
    assert "...  # 6 lines elided; hides helper(), class Box" in r.text


def test_keep_whole_enum_and_one_line_bodies(python: Language) -> None:
    src = "class Color(enum.Enum):\n    RED = 1\n    def label(self):\n        x = 1\n" \
          "        return x\n\ndef f():\n    return 1\n\ndef g():\n    a = 1\n    return a\n"
    r = skel(python, src)
    assert r.elided[0].symbol == "g" and len(r.elided) == 1


def test_short_and_flat_files_are_whole(python: Language) -> None:
    r = skel(python, TOKENS, "refresh_token", SkeletonOptions())
    assert (r.mode, r.reason) == ("whole", "short: 23 lines")
    assert "...  #" not in r.text
    flat = "\n".join(f"SETTING_{i} = {i}" for i in range(200)) + "\ndef f():\n    a = 1\n" \
                                                                  "    return a\n"
    r = skel(python, flat, None, SkeletonOptions(whole_max_lines=10, whole_max_tokens=0))
    assert r.mode == "whole" and r.reason.startswith("flat: a skeleton would elide only 1%")


BROKEN = textwrap.dedent('''\
    def good():
        a = 1
        return a


    def bad():
        x = call(1,
        y = 2
        z = 3
        w = 4
        v = 5
        return x


    def later():
        b = 2
        return b
''')


def test_broken_regions_are_line_windows(python: Language) -> None:
    o = outline_source(python, BROKEN.encode())
    assert o.errors
    r = skel(python, BROKEN, None, SkeletonOptions(whole_max_lines=0, whole_max_tokens=0,
                                                   error_window=1))
    assert r.mode == "skeleton" and "parse error" in r.reason
    assert "# ctxls: parse error;" in r.text
    assert "...  # 2 lines elided" in r.text  # good() still skeletonised
    bad = next(d for d in o.decls if d.name == "bad")
    target = render(o, split_lines(BROKEN), python.elision, "#", bad, None, ALWAYS)
    assert (target.mode, target.reason) == ("fallback", "parse-error")
    assert "7 |     x = call(1," in target.text


def focused(src: str, symbol: str, **opts: object) -> tuple[str, str]:
    """(plain, focused) skeleton texts of a Python source for one target."""
    from ctxls.syntax import languages
    from ctxls.syntax.outline import extract
    from ctxls.syntax.text import LineIndex

    data = src.encode()
    lang = languages.for_path("a.py")
    assert lang is not None
    outline = extract(lang, lang.parser().parse(data), LineIndex(data))
    lines = split_lines(src)
    target = resolve(outline, symbol, "a.py")
    plain = render(outline, lines, lang.elision, "#", target, None, SkeletonOptions())
    focus = render(outline, lines, lang.elision, "#", target, None,
                   SkeletonOptions(focus=True, **opts))  # type: ignore[arg-type]
    return plain.text, focus.text


def test_focus_collapses_the_classes_that_do_not_enclose_the_target() -> None:
    body = "".join(f"    def m{i}(self):\n        x = {i}\n        return x\n\n" for i in range(40))
    long_doc = '    """Invariant: one.\n\n    two\n    three\n    four\n    """\n'
    plain, focus = focused(f"class Other:\n    \"\"\"Doc.\"\"\"\n\n{body}\nclass Long:\n"
                           f"{long_doc}{body}\nclass Mine:\n{long_doc}{body}", "Mine.m3")
    assert "def m7(self):" in plain.split("class Mine")[0]  # Other's members shown
    head, mine = focus.split("class Mine")
    assert "def m7(self):" not in head and '"""Doc."""' in head  # collapsed, doc kept
    assert "Invariant" not in head and "class Long:" in head  # a long doc goes with it
    assert "hides m0(), m1(), m2(), m3(), +36 more" in head  # public names, four of them
    assert "def m7(self):" in mine and "x = 3" in mine  # the target's class as before
    assert "Invariant: one." in mine and "four" in mine  # with its whole docstring
    assert len(focus) < len(plain)


FUNCS = "".join(f"def f{i}():\n    x = {i}\n    return x\n\n\n" for i in range(40))


def test_focus_shows_an_overloaded_function_as_its_implementation() -> None:
    stubs = "".join(f"@overload\ndef conv(x: T{i}) -> T{i}: ...\n\n\n" for i in range(4))
    prop = ("class Box:\n    @property\n    def size(self):\n        return self._s\n\n"
            "    @size.setter\n    def size(self, v):\n        self._s = v\n\n"
            "    @size.deleter\n    def size(self):\n        del self._s\n\n"
            "    def other(self):\n        return 1\n\n")
    src = (f"from typing import overload\n\n\n{stubs}def conv(x):\n    return x\n\n\n"
           f"{prop}\n{FUNCS}def target():\n    return conv(1)\n")
    plain, focus = focused(src, "target")
    assert plain.count("def conv(x: T") == 4  # a plain skeleton keeps every signature
    assert "def conv(x: T" not in focus and "hides 4 overloads of conv()" in focus
    assert "def conv(x):" in focus
    assert focused(src, "Box.other")[1].count("def size(self") == 3  # accessors: no stubs
    ast.parse(focused(src, "target", line_numbers=False)[1])  # still Python


def test_focus_counts_a_collapsed_class_of_private_members() -> None:
    private = "".join(f"    def _p{i}(self):\n        return {i}\n\n" for i in range(30))
    _, focus = focused(f"class Hidden:\n{private}\n{FUNCS}def target():\n    return 1\n",
                       "target")
    assert "hides 30 declarations" in focus and "_p0()" not in focus


def test_focus_elides_method_bodies_of_an_enum_elsewhere() -> None:
    enum = ("class Kind(Enum):\n    A = 'a'\n    B = 'b'\n\n"
            "    def label(self) -> str:\n        text = self.value\n        text = text.upper()\n"
            "        return text\n\n")
    src = (f"from enum import Enum\n\n\n{enum}\n{FUNCS}def target():\n    return Kind.A\n"
           f"\n\n{enum.replace('Kind', 'Mine')}")
    plain, focus = focused(src, "target")
    assert "text.upper()" in plain  # kept whole in a plain skeleton
    kind, mine = focus.split("class Mine")
    assert "A = 'a'" in kind and "def label(self) -> str:" in kind  # values and signatures
    assert "text.upper()" not in kind and "text.upper()" not in mine  # bodies elided
    assert "text.upper()" in focused(src, "Mine.label")[1].split("class Mine")[1]


def test_an_excerpt_without_edges_keeps_only_the_interior_markers() -> None:
    from ctxls.syntax.skeleton import excerpt

    lines = [f"line {i}" for i in range(20)]
    opts = SkeletonOptions()
    full = excerpt(lines, [(4, 5), (9, 9)], "...  # {count} lines elided{names}", opts)
    bare = excerpt(lines, [(4, 5), (9, 9)], "...  # {count} lines elided{names}", opts,
                   edges=False)
    assert full.text.splitlines()[0].endswith("...  # 4 lines elided")
    assert full.text.splitlines()[-1].endswith("...  # 10 lines elided")
    assert bare.text.splitlines() == full.text.splitlines()[1:-1]
    assert "...  # 3 lines elided" in bare.text and bare.shown == full.shown
    top = excerpt(lines, [(0, 1), (19, 19)], "...", opts, edges=False)  # no edge to drop
    assert top.text == excerpt(lines, [(0, 1), (19, 19)], "...", opts).text


def test_numbered_lines_are_the_original_bytes_after_the_bar(python: Language) -> None:
    """Trailing blanks and tabs survive numbering: a shown line is the file's line."""
    source = TOKENS.replace("REFRESH_GRACE = 30\n", "REFRESH_GRACE = 30   \n").replace(
        "        return token\n", "        return token\t \n").replace("\n\n\n", "\n    \n\n")
    original = source.splitlines()
    for target in (None, "refresh_token"):
        text = skel(python, source, target, SkeletonOptions(
            whole_max_lines=0, whole_max_tokens=0, flat_ratio=0, line_numbers=True)).text
        numbered = [line for line in text.splitlines() if line.split("|", 1)[0].strip()]
        assert len(numbered) > 5
        for line in numbered:
            number, _, rest = line.partition(" |")
            assert rest[1:] == original[int(number) - 1] if rest else original[
                int(number) - 1] == "", line
        assert any(line.endswith("30   ") for line in numbered)
