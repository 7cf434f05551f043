"""Which of a name's uses are this declaration's, where methods are told apart from fields
and from each other by their arguments (Java, ``overloads`` in ``[uses]``).

A method's uses are its calls, references (`Type::name`) and static imports, a field's never
a call; a constructor's are the calls that pass arguments to it (`new Printer(a, b)`, and
`this(...)` / `super(...)` in constructors: the class's name as a type is the class's). Of
a method or constructor with overloads, a call is kept when this one can take its
arguments: their count, and the type of each argument whose text shows it
(``argument_types``: a literal, `new T(...)`, `T.class`, a cast; a bare name by its local's
or field's declaration; `a.f(x)` by what `f` is declared to return; arithmetic by its
operands). Only the language's own types' supertypes are known (``supertypes``); an
argument of another type may be passed as anything, so a call is dropped only when it
cannot be this overload's, or another takes it more closely (Java calls the most specific
overload, and one of a fixed count before one of a variable count).
"""

from __future__ import annotations

import re
from functools import lru_cache
from typing import Any

from ctxls.index.globals import CLASS_KINDS
from ctxls.index.refs import Binding, Call
from ctxls.index.resolve import FileInfo, Reference, return_annotation
from ctxls.snapshot import Snapshot
from ctxls.syntax import arity
from ctxls.syntax.outline import Decl
from ctxls.syntax.spec import LanguageSpec, UsesSpec

VALUE_KINDS = ("field", "constant", "variable")
IMPORTED = "imported by name"  # (``uses``' reason for an import that binds the declaration)
IDENT = re.compile(r"(?:([A-Za-z_$][\w$]*)\s*\.\s*)?([A-Za-z_$][\w$]*)")  # `x`, `this.x`
PARAMETER = re.compile(r"(?s)(.*?)\s*\b[A-Za-z_$][\w$]*\s*(?:\[\s*\])*\s*$")
TYPE_PARAMETERS = re.compile(r"<([^()]*)>\s*[\w.<>\[\]?, ]*$")

Params = list[str | None]  # each parameter's type (None: unknown)
NUMBER = "(number)"  # a number whose type is not known (``supertypes`` says what it takes)


def constructor(decl: Decl, spec: LanguageSpec) -> bool:
    """Whether a method is its class's constructor, where the language names constructors
    after their class (``constructors``: `<class>`)."""
    return decl.kind == "method" and bool(decl.parents) and "<class>" in spec.constructors \
        and decl.name == decl.parents[-1].rpartition(".")[2]


def own_uses(snap: Snapshot, home: FileInfo, decl: Decl, found: list[Reference],
             spec: LanguageSpec) -> list[Reference]:
    """The uses of ``found`` that are ``decl``'s (see the module's docstring)."""
    if not decl.parents or spec.uses is None:
        return found
    uses = spec.uses
    method = decl.kind in ("function", "method")
    ctor = constructor(decl, spec)
    twins = [d for d in home.outline.decls if d.qualname == decl.qualname
             and d.name_span != decl.name_span] if method else []
    mine = _signature(snap, home, decl, uses) if twins else None
    others = [s for s in (_signature(snap, home, d, uses) for d in twins) if s is not None]
    kept: list[Reference] = []
    for r in found:
        try:
            w = snap.view_at(r.key)
        except Exception:  # gone since: kept as found
            kept.append(r)
            continue
        args = arity.arguments(w.data, w.index.offset(r.call.row, r.call.end_col))
        if args is None:
            if r.why == IMPORTED and not ctor:
                kept.append(r)  # `import static a.B.name;` (a class's import is the class's)
                continue
            referenced = w.index.line(r.call.row)[: r.call.col].rstrip().endswith(b"::")
            if method and (ctor or not referenced):
                continue  # a field of the same name, or the class named as a type
            if referenced and decl.kind in VALUE_KINDS:
                continue  # `Money::cents`: a method of the same name
            kept.append(r)
            continue
        if decl.kind in VALUE_KINDS:
            continue  # a method of the same name
        if mine is None:
            kept.append(r)
            continue
        info, row = snap.refs.files.get(r.key), r.call.row
        types = [_argument_type(a.decode("utf-8", "replace"), spec, info, row, snap)
                 for a in args]
        if _takes(mine, types, uses) and not any(
                _takes(o, types, uses) and _closer(o, mine, types, uses) for o in others):
            kept.append(r)
    return kept


def delegations(snap: Snapshot, home: FileInfo, cls: Decl, decl: Decl,
                spec: LanguageSpec) -> list[Reference]:
    """The `this(...)` calls in the constructors of ``cls`` (but ``decl``, which cannot call
    itself) and the `super(...)` calls in those of the classes it is a base of: each calls
    one of its constructors."""
    index = snap.refs
    found: list[Reference] = []
    for key in sorted(index.by_name.get(cls.name, set()) | {home.key}):
        info = index.files.get(key)
        if info is None:
            continue
        bases = dict(info.refs.bases)
        for sub in (d for d in info.outline.decls if d.kind in CLASS_KINDS):
            if key == home.key and sub.name_span == cls.name_span and spec.self_names:
                keyword = spec.self_names[0]  # `this(...)`
            elif spec.super_names and any(index.class_named(info, base, sub) == (home, cls)
                                          for base in bases.get(sub.name_span.start_row, ())):
                keyword = spec.super_names[0]  # `super(...)`
            else:
                continue
            try:
                lines = snap.view_at(key).lines
            except Exception:
                continue
            call = re.compile(rf"(?<![\w$.]){keyword}\s*\(")
            for ctor in (d for d in info.outline.decls if constructor(d, spec)
                         and d.parents[-1] == sub.qualname and d.body is not None
                         and (key, d.name_span) != (home.key, decl.name_span)):
                for row in range(ctor.signature.end_row, ctor.span.last_row + 1):
                    for m in call.finditer(lines[row]):
                        col = len(lines[row][: m.start()].encode())
                        found.append(Reference(key, info.path, Call(
                            row, col, col + len(keyword), keyword, None), ctor.qualname,
                            f"`{keyword}(...)` calls a constructor"))
    return found


class _Signature:
    __slots__ = ("types", "variables", "variadic")

    def __init__(self, types: Params, variadic: bool, variables: frozenset[str]) -> None:
        self.types, self.variadic, self.variables = types, variadic, variables


def _signature(snap: Snapshot, home: FileInfo, decl: Decl, uses: UsesSpec
               ) -> _Signature | None:
    try:
        v = snap.view_at(home.key)
    except Exception:
        return None
    params = arity.parameters(v.data, v.index.offset(decl.name_span.end_row,
                                                     decl.name_span.end_col))
    if params is None:
        return None
    head = v.data[v.index.offset(decl.signature.start_row, decl.signature.start_col):
                  v.index.offset(decl.name_span.start_row, decl.name_span.start_col)]
    m = TYPE_PARAMETERS.search(head.decode("utf-8", "replace"))
    variables = frozenset(p.split()[0] for p in m.group(1).split(",") if p.split()) \
        if m else frozenset()
    noise = re.compile(uses.parameter_modifiers) if uses.parameter_modifiers else None
    texts = [p.decode("utf-8", "replace") for p in params]
    texts = [noise.sub(" ", t) for t in texts] if noise is not None else texts
    variadic = bool(texts) and "..." in texts[-1]
    types: Params = []
    for text in texts:
        m2 = PARAMETER.fullmatch(text.replace("...", "[]").strip())
        types.append(_simple(m2.group(1)) if m2 and m2.group(1) else None)
    return _Signature(types, variadic, variables)


def _simple(spelled: str) -> str:
    """`java.util.Map<K, V>[]` -> `Map[]`: the last dotted part, no type arguments."""
    depth, out = 0, []
    for ch in spelled:
        if ch == "<":
            depth += 1
        elif ch == ">":
            depth -= 1
        elif depth == 0:
            out.append(ch)
    text = "".join(out).replace(" ", "")
    dims = text.count("[]")
    return text.replace("[]", "").rpartition(".")[2] + "[]" * dims


def _argument_type(text: str, spec: LanguageSpec, info: FileInfo | None, row: int,
                   snap: Snapshot, operands: bool = True) -> str | None:
    uses = spec.uses
    assert uses is not None
    text = text.strip()
    parts = _operands(text) if operands and uses.numeric else []
    if len(parts) > 1:  # `cents * factor`, `"n=" + n`
        types = [_argument_type(p, spec, info, row, snap, False) for p in parts[::2]]
        if any(t == _string_type(uses) for t in types):
            return _string_type(uses)  # `+` joins strings
        numeric = [t for t in types if t in uses.numeric]
        if len(numeric) == len(types):
            return max(numeric, key=uses.numeric.index)
        return NUMBER if set(parts[1::2]) - {"+"} or numeric else None
    for pattern, typed in _argument_patterns(uses.argument_types):
        m = pattern.fullmatch(text)
        if m:
            return _simple(typed.replace("$1", m.group(1))) if "$1" in typed else typed
    m = IDENT.fullmatch(text)
    if m and (m.group(1) is None or m.group(1) in spec.self_names):  # `x`, `this.x`
        return _declared_type(snap, info, row, m.group(2), spec)
    callee = arity.callee(text)
    if callee is None or info is None:
        return None
    fixed: str | None = _table(uses.member_types).get(callee.rpartition(".")[2])
    if fixed is not None:  # `x.toString()`: what every object's member returns
        return fixed
    # (the return type, as written, of the function `callee` names, its receiver known)
    annotated = return_annotation(snap.refs, info, Binding(row + 1, "", callee),
                                  snap.refs.at_row(info, row), 0)
    return _simple(annotated[2]) if annotated else None


def _operands(text: str) -> list[str]:
    """An expression split at its top-level binary arithmetic operators (operands at even
    places, operators between); one item when there are none."""
    parts, depth, start, i = [], 0, 0, 0
    while i < len(text):
        ch = text[i]
        if ch in "\"'":
            close = text.find(ch, i + 1)
            while close > 0 and text[close - 1] == "\\":
                close = text.find(ch, close + 1)
            if close < 0:
                return [text]
            i = close
        elif ch in "([{":
            depth += 1
        elif ch in ")]}":
            depth -= 1
        elif depth == 0 and ch in "+-*/%" and _after_operand(text[:i]) and \
                text[i + 1 : i + 2] not in ("=", ch):
            parts += [text[start:i].strip(), ch]
            start = i + 1
        elif depth == 0 and ch in "?:<>=&|!^~":
            return [text]  # a comparison, a condition, a shift: not arithmetic
        i += 1
    return [*parts, text[start:].strip()]


def _after_operand(before: str) -> bool:
    """Whether an operator after this text is binary (`a - b`, not `-b` or `a = -b`)."""
    last = before.rstrip()[-1:]
    return last.isalnum() or last in (")", "]", "_", "$", '"', "'")


def _string_type(uses: UsesSpec) -> str | None:
    """The type of a string literal (`argument_types`' first row that a quoted text has)."""
    return next((t for p, t in _argument_patterns(uses.argument_types) if p.fullmatch('""')),
                None)


@lru_cache(maxsize=16)
def _argument_patterns(table: tuple[tuple[str, str], ...]
                       ) -> list[tuple[re.Pattern[str], str]]:
    return [(re.compile(p), t) for p, t in table]


def _declared_type(snap: Snapshot, info: FileInfo | None, row: int, name: str,
                   spec: LanguageSpec) -> str | None:
    """The type a local, parameter or field named ``name`` is declared with, seen from
    ``row`` of the file: the last declaration of it in the function around the row before
    it, else the class's field."""
    if info is None or spec.uses is None:
        return None
    around = snap.refs.at_row(info, row)
    if around is not None and around.kind in ("function", "method") and \
            spec.uses.local_binding:
        try:
            lines = snap.view_at(info.key).lines
        except Exception:
            return None
        text = "\n".join(lines[around.signature.start_row : row + 1])
        pattern = re.compile(spec.uses.local_binding.replace("NAME", re.escape(name)), re.M)
        if "type" in pattern.groupindex and (found := list(pattern.finditer(text))):
            typed = found[-1].group("type")  # (none: `var x = ...`, a type inferred)
            return _simple(typed) if typed else None
    field = f"{spec.self_names[0]}.{name}" if spec.self_names else name
    return next((_simple(b.type) for b in info.refs.bindings if b.name == field and b.type),
                None)


def _takes(sig: _Signature, types: Params, uses: UsesSpec) -> bool:
    n = len(sig.types)
    if len(types) != n and not (sig.variadic and len(types) >= n - 1):
        return False
    fixed = n - 1 if sig.variadic else n
    return all(_may_pass(a, p, sig, uses) for a, p in zip(types[:fixed], sig.types[:fixed],
                                                          strict=False))


def _closer(one: _Signature, other: _Signature, types: Params, uses: UsesSpec) -> bool:
    """Whether ``one`` takes the arguments more closely than ``other`` (no argument's type
    further from its parameter's, one nearer): Java calls the most specific overload
    (`value(5)` is `value(long)`'s, not `value(double)`'s), and one that takes a variable
    number of arguments only when none other takes them (`isExtension(f, "txt")`)."""
    if one.variadic or other.variadic:
        return other.variadic and not one.variadic
    a, b = _distances(one, types, uses), _distances(other, types, uses)
    return all(x <= y for x, y in zip(a, b, strict=False)) and a != b


def _distances(sig: _Signature, types: Params, uses: UsesSpec) -> list[int]:
    """How far each argument of a known type is from the parameter taking it: 0 the same
    type (or either unknown), then its place among the type's supertypes (1 for a type
    whose supertypes are not listed)."""
    out = []
    for arg, param in zip(types, sig.types, strict=False):
        known = _table(uses.supertypes).get(arg) if arg is not None else None
        if arg is None or param is None or arg == param:
            out.append(0)
        elif known is None:
            out.append(1)
        else:
            out.append(known.index(param) + 1 if param in known else len(known) + 1)
    return out


def _may_pass(arg: str | None, param: str | None, sig: _Signature, uses: UsesSpec) -> bool:
    if arg is None or param is None or arg == param:
        return True
    if param.removesuffix("[]") in sig.variables or (
            uses.type_variable and re.fullmatch(uses.type_variable, param.removesuffix("[]"))):
        return True
    if arg.endswith("[]"):
        if param.endswith("[]"):
            return _may_pass(arg[:-2], param[:-2], sig, uses)
        return param in ("Object", "Cloneable", "Serializable")
    known = _table(uses.supertypes).get(arg)
    return known is None or param in known


@lru_cache(maxsize=16)
def _table(rows: tuple[tuple[str, Any], ...]) -> dict[str, Any]:
    """A data file's pairs as a dict (made once per table)."""
    return dict(rows)
