"""The arguments a call passes and the parameters a declaration takes, read from the text
after the name: where a language's methods of one name are told apart by their arguments
(Java's overloads), a call passing what this declaration cannot take is another's.

Text, not a tree: a file's calls are judged from its tables, unparsed. Brackets nest and
string and character literals are skipped; a list that cannot be read is None (no
parenthesis after the name, one never closed).
"""

from __future__ import annotations

import re

OPEN = {ord("("): ord(")"), ord("["): ord("]"), ord("{"): ord("}")}
QUOTES = (ord('"'), ord("'"))
LIMIT = 1 << 14  # bytes read after a name: an argument list longer is not counted
# what a call calls: a dotted name, through calls (`a.b(x).c`), spaced as a chain is
CALLEE = re.compile(r"[A-Za-z_$][\w$]*(?:\s*\.\s*[A-Za-z_$][\w$]*|\([^;{}]*?\))*")
DOT = re.compile(r"\s*\.\s*")


def _list(data: bytes, start: int, angles: bool) -> list[bytes] | None:
    """The top-level items of the parenthesised list that follows ``start`` (whitespace
    between): a declaration's parameters or a call's arguments; ``angles``: ``<...>``
    nests too (a declaration's generic types, `Map<K, V> m`)."""
    i, end = start, min(len(data), start + LIMIT)
    while i < end and data[i] in b" \t\r\n":
        i += 1
    if i >= end or data[i] != ord("("):
        return None
    items: list[bytes] = []
    stack: list[int] = []
    begin = i = i + 1
    while i < end:
        c = data[i]
        if c in QUOTES:
            close = data.find(bytes((c,)), i + 1)
            while close != -1 and _escaped(data, close):
                close = data.find(bytes((c,)), close + 1)
            if close == -1:
                return None
            i = close + 1
            continue
        if c in OPEN or (angles and c == ord("<")):
            stack.append(OPEN.get(c, ord(">")))
        elif stack and c == stack[-1]:
            stack.pop()
        elif not stack and c == ord(")"):
            items.append(data[begin:i])
            return [] if len(items) == 1 and not items[0].strip() else items
        elif not stack and c == ord(","):
            items.append(data[begin:i])
            begin = i + 1
        i += 1
    return None


def _escaped(data: bytes, at: int) -> bool:
    n = 0
    while at - n - 1 >= 0 and data[at - n - 1] == ord("\\"):
        n += 1
    return n % 2 == 1


def arguments(data: bytes, after_name: int) -> list[bytes] | None:
    """The argument texts of the call whose name ends at ``after_name``."""
    return _list(data, after_name, angles=False)


def parameters(data: bytes, after_name: int) -> list[bytes] | None:
    """The parameter texts of the declaration whose name ends at ``after_name``."""
    return _list(data, after_name, angles=True)


def callee(text: str) -> str | None:
    """`a.b(x).c` of a call expression `a.b(x).c(y, z)`: what its last call calls (the space
    around its dots taken out: a chain over lines); None when it is no call of a name."""
    if not text.endswith(")"):
        return None
    depth = 0
    for i in range(len(text) - 1, -1, -1):
        depth += {")": 1, "(": -1}.get(text[i], 0)
        if depth == 0:
            called = text[:i].rstrip()
            return DOT.sub(".", called) if CALLEE.fullmatch(called) else None
    return None
