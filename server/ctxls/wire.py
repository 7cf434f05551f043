"""Params off the wire, strictly: camelCase names, and JSON types as declared (a list is not
a path, "5" is not a number). Every front end structures its params here, so a wrong one
gets the same message over JSON-RPC as over MCP."""

from __future__ import annotations

import functools
import re
import typing
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import cattrs
from cattrs.gen import make_dict_structure_fn, override

from ctxls.errors import InvalidParams

P = TypeVar("P")


def structure(raw: Any, cls: type[P]) -> P:
    """``raw`` (a JSON object) as ``cls``, or InvalidParams naming what does not fit."""
    if raw is not None and not isinstance(raw, dict):
        raise InvalidParams(f"params of {cls.__name__} must be an object")
    try:
        return _converter().structure(raw or {}, cls)
    except Exception as exc:
        detail = "; ".join(cattrs.transform_error(exc)) if isinstance(
            exc, cattrs.BaseValidationError) else str(exc)
        detail = re.sub(r"\.([a-z]+(?:_[a-z0-9]+)+)", lambda m: "." + camel(m[1]), detail)
        raise InvalidParams(f"invalid params for {cls.__name__}: {detail}") from exc


def prepare(cls: type[Any]) -> None:
    """Build ``cls``'s converter now, and those of the classes inside it (cattrs writes and
    compiles one per class on first use: 3-4 ms of a server's first ``ctx/construct``, and
    a class's own leaves its optional fields' to theirs: a ``target``'s was 0.9 ms of the
    first ``ctx/construct`` a second after ready)."""
    converter = _converter()
    for kind, hook in hooks(converter.get_structure_hook, cls).items():
        converter.register_structure_hook(kind, hook)


def hooks(get: Callable[[Any], Any], kind: Any) -> dict[type, Any]:
    """``get`` (a converter's structure or unstructure hook) of ``kind`` and of every type
    inside it, built now: a class's own hook leaves those of its optional and union fields
    to their first use. This package's classes' hooks are returned, to be registered: a
    registered hook outlives the converter's cache, which cattrs clears whenever it builds
    one for a list type (every class's was then built again at its next use)."""
    built: dict[type, Any] = {}
    seen: set[Any] = set()
    todo = [kind]
    while todo:
        kind = todo.pop()
        if kind is None or kind in seen:
            continue
        seen.add(kind)
        try:
            hook = get(kind)
        except Exception:  # (a type cattrs cannot convert ahead: built on first use)
            continue
        todo += typing.get_args(kind)
        if isinstance(kind, type) and attrs.has(kind):
            todo += typing.get_type_hints(kind).values()
            if kind.__module__.startswith("ctxls."):  # (no subclasses: a registered hook
                built[kind] = hook                    # serves them too)
    return built


@functools.cache
def _converter() -> cattrs.Converter:
    """camelCase on the wire, as lsprotocol's converter, but no coercion of types (which
    lsprotocol's, built for messages already typed, does: a list becomes a str)."""
    converter = cattrs.Converter()
    for kind, ok in _JSON_TYPES.items():
        converter.register_structure_hook(kind, _exactly(kind, ok))

    def camel_case(cls: type[Any]) -> Callable[[Any, Any], Any]:
        renamed: dict[str, Any] = {a.name: override(rename=camel(a.name))
                                   for a in attrs.fields(cls)}
        return make_dict_structure_fn(cls, converter, **renamed)

    converter.register_structure_hook_factory(attrs.has, camel_case)
    return converter


_JSON_TYPES: dict[type, Callable[[Any], bool]] = {
    str: lambda v: isinstance(v, str),
    int: lambda v: isinstance(v, int) and not isinstance(v, bool),
    float: lambda v: isinstance(v, int | float) and not isinstance(v, bool),
    bool: lambda v: isinstance(v, bool),
}


def _exactly(kind: type, ok: Callable[[Any], bool]) -> Callable[[Any, Any], Any]:
    def structure(value: Any, _: Any) -> Any:
        if not ok(value):
            raise TypeError(f"expected {kind.__name__}, got {type(value).__name__}")
        return kind(value)

    return structure


def camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.title() for part in rest)
