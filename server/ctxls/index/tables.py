"""A file's extracted tables (outline and references), decoded on first use.

They cross the scan's process boundary and the persistent cache as one payload (``pack``),
beside the two facts every file is asked for up front: the names the inverted index files
it under, and its parse-error count. Unpickling every table costs more than a warm start's
whole budget, and most files are never asked about; a file pays when a request reads it.
"""

from __future__ import annotations

import functools
import io
import pickle
import re
import threading
import weakref
from collections import deque
from collections.abc import Callable, Iterable, Sequence
from typing import Any, NamedTuple, TypeVar

from ctxls.index import derived, modules
from ctxls.index.refs import Binding, Call, Import, Refs
from ctxls.syntax import languages
from ctxls.syntax.outline import Body, Decl, HeaderItem, Outline, Span
from ctxls.syntax.symbols import tops

T = TypeVar("T")

# ---- the payload codec: rows of NamedTuples travel as columns --------------------------
# Pickling a NamedTuple costs a Python call per object (``__getnewargs__``); a file has
# hundreds of calls and spans. ``zip(*rows)`` turns them into a few tuples of ints and
# strings in C, which pickle fast; decoding (only of files a request reads) rebuilds them.
_SPAN_FIELDS = tuple(i for i, f in enumerate(Decl._fields) if f in ("span", "name_span",
                                                                     "signature"))
_BODY_FIELD = Decl._fields.index("body")


def _cols(rows: Sequence[tuple[Any, ...]], width: int) -> list[tuple[Any, ...]]:
    return list(zip(*rows, strict=True)) if rows else [()] * width


def _rows(cls: type[T], cols: Iterable[tuple[Any, ...]]) -> tuple[T, ...]:
    # tuple.__new__ straight from C: a NamedTuple's own __new__ is a Python function, and
    # decoding is most of what the first request to read a file pays (0.1 s on jsoup)
    make = functools.partial(tuple.__new__, cls)  # type: ignore[type-var]
    return tuple(map(make, zip(*cols, strict=True)))


# Equal strings (and tuples of them) of one file made one object before pickling: pickle
# writes an object it has already written as a reference, and loads it once. A file names
# the same calls, parents, kinds and indents over and over (jsoup: 110,000 strings in its
# tables, 26,000 distinct per file), each otherwise its own object once decoded.
Memo = dict[Any, Any]


def _shared(values: Iterable[Any], memo: Memo) -> tuple[Any, ...]:
    values = tuple(values)
    return tuple(map(memo.setdefault, values, values))


def _shared_tuples(values: Sequence[tuple[Any, ...]], memo: Memo) -> tuple[Any, ...]:
    # (each distinct tuple rebuilt once: most declarations share their parents)
    made = {v: _shared(v, memo) for v in set(values)}
    return tuple(map(made.__getitem__, values))


_TEXT_FIELDS = tuple(Decl._fields.index(f) for f in ("name", "qualname", "kind", "doc"))
_TUPLE_FIELDS = tuple(Decl._fields.index(f) for f in ("parents", "decorators"))


def _decls_enc(decls: Sequence[Decl], memo: Memo) -> list[Any]:
    cols: list[Any] = _cols(decls, len(Decl._fields))
    for i in _SPAN_FIELDS:
        cols[i] = _cols(cols[i], 4)
    cols[_BODY_FIELD] = tuple(
        None if b is None else (b.first, b.last, memo.setdefault(b.indent, b.indent), b.doc,
                                b.members) for b in cols[_BODY_FIELD])
    for i in _TEXT_FIELDS:
        cols[i] = _shared(cols[i], memo)
    for i in _TUPLE_FIELDS:
        cols[i] = _shared_tuples(cols[i], memo)
    return cols


def _decls_dec(cols: list[Any]) -> tuple[Decl, ...]:
    cols = list(cols)
    for i in _SPAN_FIELDS:
        cols[i] = _rows(Span, cols[i])
    cols[_BODY_FIELD] = tuple(None if b is None else Body(*b) for b in cols[_BODY_FIELD])
    return _rows(Decl, cols)


def _refs_enc(refs: Refs, memo: Memo) -> tuple[Any, ...]:
    imports, calls, bindings = (_cols(refs.imports, 5), _cols(refs.calls, 5),
                                _cols(refs.bindings, 3))
    for cols, texts in ((imports, (0, 1, 2)), (calls, (3, 4)), (bindings, (1, 2))):
        for i in texts:
            cols[i] = _shared(cols[i], memo)
    bases = tuple((row, _shared(names, memo)) for row, names in refs.bases)
    returns = tuple((row, memo.setdefault(t, t)) for row, t in refs.returns)
    namespaces = tuple((row, memo.setdefault(n, n)) for row, n in refs.namespaces)
    return imports, calls, bindings, bases, returns, _shared(refs.internal, memo), namespaces


def encode(outline: Outline, refs: Refs | None) -> tuple[Any, ...]:
    memo: Memo = {}
    o = (outline.language, outline.line_count, _decls_enc(outline.decls, memo),
         _shared((h.kind for h in outline.header), memo),
         _cols([h.span for h in outline.header], 4),
         tuple(map(tuple, outline.blocks)), _cols(outline.errors, 4),
         _decls_enc(outline.shadowed, memo), outline.bodied_types, outline.def_types)
    return o, None if refs is None else _refs_enc(refs, memo)


CLASS_KINDS = frozenset({"class", "struct", "interface", "trait", "type", "enum", "object"})


class Head(NamedTuple):
    """The names a module of many files (a Java or Go package) is asked about, per file,
    each once, sorted: what it declares, what it binds, the qualnames of its declarations
    inside others (``Cls.method``), the names it declares at its top (inside nothing but
    namespaces), and its classes' (Ruby's modules too), nested or not: where class names
    are global, a lookup decodes only the files that declare a class of that name, not
    each declaring a property of it (C#'s `Value`: 109 of AutoMapper's files)."""

    declared: tuple[str, ...]
    bound: tuple[str, ...]
    members: tuple[str, ...]
    tops: tuple[str, ...]
    types: tuple[str, ...]


def head(outline: Outline, refs: Refs | None) -> Head:
    return Head(tuple(sorted({d.name for d in outline.decls})),
                () if refs is None else tuple(sorted({b.name for b in refs.bindings})),
                tuple(sorted({d.qualname for d in outline.decls if d.qualname != d.name})),
                tuple(sorted({d.name for d in tops(outline)})),
                tuple(sorted(class_names(outline))))


def class_names(outline: Outline, _: Refs | None = None) -> frozenset[str]:
    """The names of a file's classes (Ruby's modules too), nested or not."""
    return frozenset(d.name for d in outline.decls
                     if d.kind in CLASS_KINDS or d.kind == "module")


def _typed(outline: Outline, refs: Refs | None) -> tuple[str, ...]:
    """``derived.typed_calls`` where a capital spells a type (``typed_by_case``)."""
    system = languages.module_system_named(outline.language)
    return derived.typed_calls(outline, refs) \
        if system is not None and modules.named(system).typed_by_case else ()


def pack(outline: Outline, refs: Refs | None) -> bytes:
    """The payload: a head of the import rows, the names of ``head`` and the calls spelled
    as types (``_typed``), then the rest. A search asks thousands of files only whether
    their imports can reach a module, a module of many files (a Java or Go package) which
    of them declares or binds a name, and a Rust method's references which files call it
    on receivers of other types alone; unpickling a whole payload for that costs fifty
    times the head alone."""
    o, r = encode(outline, refs)
    first = (None if r is None else r[0], *head(outline, refs), _typed(outline, refs))
    return (pickle.dumps(first, protocol=pickle.HIGHEST_PROTOCOL)
            + pickle.dumps((o, None if r is None else r[1:]), protocol=pickle.HIGHEST_PROTOCOL))


def unpack(payload: bytes) -> tuple[Outline, Refs | None]:
    read = io.BytesIO(payload)  # (one unpickler each: each pickle numbers its own memo)
    imports = pickle.load(read)[0]
    o, rest = pickle.load(read)
    return decode((o, None if rest is None else (imports, *rest)))


def decode(data: tuple[Any, ...]) -> tuple[Outline, Refs | None]:
    o, r = data
    outline = Outline(
        language=o[0], line_count=o[1], decls=_decls_dec(o[2]),
        header=tuple(map(HeaderItem, o[3], _rows(Span, o[4]))),
        blocks=tuple(Body(*b) for b in o[5]),
        errors=_rows(Span, o[6]), shadowed=_decls_dec(o[7]), bodied_types=o[8],
        def_types=o[9])
    refs = None if r is None else Refs(_rows(Import, r[0]), _rows(Call, r[1]),
                                       _rows(Binding, r[2]), r[3], r[4], r[5], r[6])
    return outline, refs


SEGMENT = re.compile(r"[^\w$]+")


def module_words(module: str) -> list[str]:
    """The parts of a module path as imports spell it: ``pkg.mod``, ``../billing/pricing``."""
    return [w for w in SEGMENT.split(module) if w]


def index_names(refs: Refs) -> frozenset[str]:
    """What a file is filed under: the names it calls, imports, or binds by import, and
    the parts of the modules it imports (so a module's importers are found by name). A
    star import is filed under ``*`` only when its module has no parts to be found by
    (``from . import *``): every C include is a star import."""
    return frozenset({c.name for c in refs.calls}
                     | {i.name for i in refs.imports
                        if i.name and (i.name != "*" or not module_words(i.module))}
                     | {i.local for i in refs.imports}
                     | {w for i in refs.imports for w in module_words(i.module)})


# Decoded tables kept at once. Past this, the longest-unused go back to their payload (a
# second chance for any read since its last turn): a long session over a large workspace
# otherwise ends up with every file it ever read decoded.
DECODED_LIMIT = 3000
# Weak: the tables of a file's older versions (each edit and re-read makes new ones) must
# not be kept alive, decoded, until their turn comes (a long session with edits grew by
# 140 MiB, to 2x, on jsoup's 400 files).
_decoded: deque[weakref.ref[Tables]] = deque()
_decoded_lock = threading.Lock()


def _keep_decoded(tables: Tables) -> None:
    with _decoded_lock:
        _decoded.append(weakref.ref(tables))
        turns = 2 * len(_decoded)
        while len(_decoded) > DECODED_LIMIT and turns:
            turns -= 1
            old = _decoded.popleft()()
            if old is None:  # freed: its file changed since
                continue
            if old._used:  # read since its last turn: one more round
                old._used = False
                _decoded.append(weakref.ref(old))
            else:
                old.release(encode_first=True)


class Tables:
    __slots__ = ("__weakref__", "_derived", "_payload", "_source", "_typed", "_used", "_value",
                 "errors", "names")

    def __init__(self, payload: bytes | None, names: str | None, errors: int,
                 value: tuple[Outline, Refs | None] | None = None,
                 source: Callable[[], bytes] | None = None) -> None:
        self._payload = payload
        self._value = value
        # Reads the payload when it is first needed: a warm start restores thousands of
        # files and reads none of their payloads (Django's: 20 MB, half the cache's load).
        self._source = source
        self._used = False
        self._typed: dict[str, tuple[str, ...]] | None = None
        # Tables the index derives from the decoded ones (row -> declaration, bindings by
        # name), dropped with them: kept apart, they held every decoded file's
        # declarations alive after its release (laravel: +17 MiB over 1,500 requests).
        self._derived: dict[str, Any] | None = None
        self.names = names  # "\n"-joined index names; None: the language has no refs query
        self.errors = errors  # ERROR/MISSING nodes in the parse

    @classmethod
    def of(cls, outline: Outline, refs: Refs | None) -> Tables:
        names = None if refs is None else "\n".join(sorted(index_names(refs)))
        made = cls(None, names, len(outline.errors), (outline, refs))
        _keep_decoded(made)  # (files indexed here, not by the scan's workers, count too)
        return made

    def _get(self) -> tuple[Outline, Refs | None]:
        value = self._value
        if value is None:
            value = self._value = unpack(self._bytes())
            _keep_decoded(self)
        else:
            self._used = True
        return value

    @property
    def outline(self) -> Outline:
        return self._get()[0]

    @property
    def refs(self) -> Refs | None:
        return self._get()[1]

    def imports(self) -> tuple[Import, ...]:
        """The import rows alone, without decoding (or keeping) the rest: whether a file can
        use a declaration is asked of thousands of files that name it, and rebuilding each
        one's calls and outline was most of a search (svelte's `test`, on 50,000 files)."""
        value = self._value
        if value is not None:
            self._used = True
            return value[1].imports if value[1] is not None else ()
        imports = pickle.loads(self._bytes())[0]  # (the payload's head alone)
        return () if imports is None else _rows(Import, imports)

    def head_names(self) -> Head:
        """The names of ``head``, without decoding the tables."""
        value = self._value
        if value is not None:
            return head(*value)
        return Head(*pickle.loads(self._bytes())[1:6])

    def typed_calls(self) -> dict[str, tuple[str, ...]]:
        """``derived.typed_calls`` by call name, from the payload's head when the tables
        are not decoded (nor decoded for it); kept (a few
        names: each request for a common method asks it of the same thousands of files)."""
        typed = self._typed
        if typed is None:
            value = self._value
            rows = _typed(*value) if value is not None else pickle.loads(self._bytes())[6]
            typed = self._typed = {name: tuple(types) for name, *types in
                                   (row.split("\t") for row in rows)}
        return typed

    @property
    def decoded(self) -> bool:
        return self._value is not None

    def derived(self, name: str, compute: Callable[[Outline, Refs | None], T]) -> T:
        """``compute(outline, refs)``, kept as long as these tables stay decoded."""
        value = self._get()
        derived = self._derived
        found = derived.get(name) if derived is not None else None
        if found is None:
            found = compute(*value)
            if self._value is value:  # (not released meanwhile, by another thread)
                if self._derived is None:
                    self._derived = {}
                self._derived[name] = found
        return found

    def release(self, encode_first: bool = False) -> None:
        """Back to the compact payload alone: a pass over every file (the search index's
        build) decodes each once, and keeping them all decoded cost ~120 MiB on Django.
        Tables made here rather than decoded have no payload until ``encode_first``."""
        if self._payload is None and encode_first and self._value is not None:
            self.payload()
        if self._payload is not None:
            self._value = self._derived = None

    def name_set(self) -> frozenset[str]:
        return frozenset(self.names.split("\n")) if self.names else frozenset()

    def payload(self) -> bytes:
        if self._payload is None and self._value is not None:
            self._payload = pack(*self._value)
        return self._bytes()

    def _bytes(self) -> bytes:
        payload = self._payload
        if payload is None:
            source = self._source
            if source is None:  # (read meanwhile by another thread, or a prefetch)
                payload = self._payload
                assert payload is not None
                return payload
            payload = self._payload = source()
            self._source = None
        return payload

    def packed(self) -> Tables:
        """The same tables holding only the payload (what a scan worker sends back)."""
        return Tables(self.payload(), self.names, self.errors)

    def __reduce__(self) -> tuple[Any, ...]:
        return (Tables, (self.payload(), self.names, self.errors))


def prefetch(tables: Iterable[Tables]) -> None:
    """Read together the payloads of those of ``tables`` not read yet, when their source
    can (a restored file's, ``store.Fetch``: one query for a few hundred files, not one
    each)."""
    groups: dict[int, tuple[Any, list[tuple[Tables, Any]]]] = {}
    for t in tables:
        source = t._source  # (once: another thread may read the payload meanwhile)
        store = getattr(source, "store", None)
        if t._payload is None and store is not None and hasattr(store, "fetch_many"):
            groups.setdefault(id(store), (store, []))[1].append((t, source))
    for store, todo in groups.values():
        payloads = store.fetch_many([source for _, source in todo])
        for (t, _), payload in zip(todo, payloads, strict=True):
            if t._payload is None:
                t._payload = payload
            t._source = None
