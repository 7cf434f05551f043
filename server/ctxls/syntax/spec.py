"""The schema of ``grammars/<lang>/language.toml`` and ``grammars/_generic/languages.toml``.

Each file is structured once into attrs classes by a cattrs converter that forbids keys the
schema does not have and checks every value's type, so a misspelt key is an error that
names the file and the key instead of a default silently applied. ``grammars/README.md``
says what each key means.
"""

from __future__ import annotations

import tomllib
from pathlib import Path
from typing import Any

import attrs
import cattrs

from ctxls.index import modules


class SpecError(ValueError):
    """A data file that does not fit its schema; the message names the file and the keys."""


@attrs.frozen
class RunnerSpec:
    """``[tests]``: what the language's test runner treats as tests."""

    files: tuple[str, ...] = ()  # globs of test files (a `/` in a glob: the relative path)
    # File names the runner loads for every test in their folder and below: no import
    # points at them, so they are found by folder.
    injected: tuple[str, ...] = ()
    runner: str = "the test runner"  # named in the evidence for an injected file


@attrs.frozen
class UsesSpec:
    """``[uses]``: how textDocument/references finds the uses of a name that are no calls
    (annotations, base classes, imports, attribute reads). Without it, calls only."""

    # A node in one of these fields of its parent binds a new name (``def name``, a keyword
    # argument's name, ``as name``); every identifier directly under these parents does too.
    binding_fields: tuple[str, ...] = ()
    binding_parents: tuple[str, ...] = ()
    # A line of a function that binds NAME as a local (``NAME`` is replaced by the name):
    # a bare NAME in that function is the local, not the declaration.
    local_binding: str = ""
    # Statements that import names: a name there is a use when the import binds this very
    # declaration (followed through re-exports).
    imports: tuple[str, ...] = ()
    # Names assigned a list of strings that name what the module exports (`__all__`): a
    # string there equal to the name is a use.
    export_lists: tuple[str, ...] = ()
    # Nodes inside a string that are code again (Python's f-string `interpolation`).
    string_code: tuple[str, ...] = ()
    # What joins a receiver to a member (``a.b``; PHP's ``$a->b``, ``A::b``).
    member_operators: tuple[str, ...] = (".",)
    # Parents under which a member's name is a property, never a method of that name
    # (PHP: `$this->path` is the property, `$this->path()` the method).
    property_reads: tuple[str, ...] = ()
    # Tags of doc comments whose group 1 is a type expression, as a regular expression:
    # names in it are uses (PHP: `@throws X`, `@return iterable<X>`).
    doc_types: str = ""
    # Nodes that are a whole qualified name: a use of its last segment starts at its first
    # (PHP: `use League\Flysystem\Config;`).
    qualified_names: tuple[str, ...] = ()
    # A top-level item (a declaration or import that starts a line) parses alone as it does
    # in its file, so only the items that hold a name are parsed.
    items_alone: bool = True
    # Where a file must be read from its start: a pattern whose first match ends what is
    # read before the items (PHP's `<?php` and the whitespace after it: a file is text
    # until then). No match: the whole file is parsed.
    items_after: str = ""
    # Methods of one name in one class are distinct, told apart by their arguments (Java's
    # overloads): the others are not this one's declarations, and a call passing a number
    # of arguments this one cannot take is another's.
    overloads: bool = False
    # Overloads of one argument count are told apart by what the arguments evidently are:
    # (a regular expression a whole argument matches, its type; `$1` is its group 1's last
    # dotted part); a bare name is typed by its local's declaration (``local_binding``'s
    # group `type`) or its field's. Unknown: any overload may take it.
    argument_types: tuple[tuple[str, str], ...] = ()
    # A regular expression over a member's head (its modifiers and annotations, before its
    # name): a member it matches is used in its own file only (Java's `private`).
    private: str = ""
    # (a type, what it may be passed as besides itself): the language's own types, whose
    # supertypes no workspace file declares. A type not listed may be passed as anything.
    supertypes: tuple[tuple[str, tuple[str, ...]], ...] = ()
    # A parameter type matching this is a type variable (`T`, `K2`), which takes anything.
    type_variable: str = ""
    # (a member every object has, the type it returns): `x.toString()` is a String whatever
    # x is.
    member_types: tuple[tuple[str, str], ...] = ()
    # The numeric types, narrowest first: `a * b` is of the wider operand's type, and an
    # arithmetic expression of unknown operands a number (``supertypes``' `(number)`).
    # None: arguments are not read as arithmetic.
    numeric: tuple[str, ...] = ()
    # A regular expression for what a parameter's text holds besides its type and name
    # (Java: annotations, `final`), taken out before its type is read.
    parameter_modifiers: str = ""


@attrs.frozen
class LanguageSpec:
    name: str
    grammar: str  # tree-sitter-language-pack grammar name
    extensions: tuple[str, ...]
    line_comment: str
    elision: str
    comment_nodes: tuple[str, ...] = ("comment",)
    wrappers: tuple[str, ...] = ()
    leading: tuple[str, ...] = ()
    tests: RunnerSpec = attrs.field(factory=RunnerSpec)
    generated_markers: tuple[str, ...] = ()
    generated_files: tuple[str, ...] = ()
    module_system: str = "python"  # a name registered in ctxls.index.modules
    self_names: tuple[str, ...] = ("self", "cls")
    super_names: tuple[str, ...] = ("super", "super()")
    implicit_self: bool = False
    # A call through a base class or an interface is a use of every override of the
    # method (tsserver and intelephense count it so; pyright and jedi do not).
    calls_through_bases: bool = False
    # A call's receiver is always a value (C: no type has members to call through its
    # name): its text is typed by its declaration, never sought as a class.
    receivers_are_values: bool = False
    # Words no declaration can be named (C's `if`: an `#ifdef` splitting an `else if` is
    # read by tree-sitter's error recovery as a function named `if`).
    keywords: tuple[str, ...] = ()
    sets_field: str | None = None  # regular expressions, compiled when the language loads
    reads_field: str | None = None
    mutates_field: str | None = None
    constructors: tuple[str, ...] = ()
    assertion: str | None = None
    # Folders under grammars/ whose query files come before this folder's own, in order.
    include: tuple[str, ...] = ()
    uses: UsesSpec | None = None
    # How documentSymbol names a member declared outside its type: "REGEX => FORMAT", the
    # regex over the signature, the format filled with its named groups (Go's receiver).
    owner_labels: tuple[str, ...] = ()


@attrs.frozen
class GenericRow:
    """One row of ``_generic/languages.toml``: ``".ext" = [grammar, comment, elision]``."""

    grammar: str
    line_comment: str
    elision: str


def _string(value: object, _: object) -> str:
    if not isinstance(value, str):
        raise TypeError(f"expected a string, got {_toml_type(value)}")
    return value


def _strings(value: object, _: object) -> tuple[str, ...]:
    if not isinstance(value, list) or not all(isinstance(v, str) for v in value):
        raise TypeError(f"expected a list of strings, got {_toml_type(value)}")
    return tuple(value)


def _boolean(value: object, _: object) -> bool:
    if not isinstance(value, bool):
        raise TypeError(f"expected true or false, got {_toml_type(value)}")
    return value


def _toml_type(value: object) -> str:
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    return {str: "a string", bool: "a boolean", int: "an integer", float: "a float",
            dict: "a table"}.get(type(value), type(value).__name__)


# cattrs alone would turn "abc" into ("a", "b", "c") and 1 into "1": every type is checked.
_converter = cattrs.Converter(forbid_extra_keys=True)
_converter.register_structure_hook(str, _string)
_converter.register_structure_hook(bool, _boolean)
_converter.register_structure_hook_func(lambda t: t == tuple[str, ...], _strings)


def _problems(exc: BaseException, where: str = "") -> list[str]:
    """What is wrong, one phrase per key (``tests.injected`` for a nested table's key)."""
    if isinstance(exc, cattrs.ForbiddenExtraKeysError):
        return [f"unknown key '{where}{key}'" for key in sorted(exc.extra_fields)]
    if not isinstance(exc, cattrs.ClassValidationError):
        return [str(exc)]
    out = []
    with_notes, without = exc.group_exceptions()
    for sub, note in with_notes:
        key = f"{where}{note.name}"
        if isinstance(sub, cattrs.ClassValidationError):
            out.extend(_problems(sub, f"{key}."))
        elif isinstance(sub, KeyError):
            out.append(f"missing key '{key}'")
        else:
            out.append(f"key '{key}': {sub}")
    for sub in without:
        out.extend(_problems(sub, where))
    return out


def _label(path: Path) -> str:
    """``grammars/go/language.toml``: the path from the grammars folder's own name."""
    return "/".join(path.parts[-3:])


def _table(path: Path) -> dict[str, Any]:
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise SpecError(f"{_label(path)}: {exc}") from None


def read_spec(path: Path) -> LanguageSpec:
    """A ``language.toml``, structured and checked: its keys, their types, the module
    system it names and the folders it includes (beside its own folder)."""
    data = _table(path)
    grammars = path.parent.parent
    if "uses" not in data:  # a `[uses]` in uses.toml, of its folder or one it includes
        shared = [grammars / name / "uses.toml"
                  for name in (*data.get("include", ()), path.parent.name)
                  if isinstance(name, str) and (grammars / name / "uses.toml").is_file()]
        if shared:
            data["uses"] = _table(shared[-1])
    try:
        spec = _converter.structure(data, LanguageSpec)
    except cattrs.ClassValidationError as exc:
        raise SpecError(f"{_label(path)}: {'; '.join(_problems(exc))}") from None
    problems = []
    if spec.module_system not in modules.names():
        problems.append(f"unknown module_system '{spec.module_system}' "
                        f"(one of {', '.join(modules.names())})")
    problems.extend(f"include '{name}': no folder {grammars.name}/{name}"
                    for name in spec.include if not (grammars / name).is_dir())
    if problems:
        raise SpecError(f"{_label(path)}: {'; '.join(problems)}")
    return spec


def read_generic(path: Path) -> tuple[dict[str, GenericRow], list[str]]:
    """``_generic/languages.toml``: the rows that fit, and a problem for each that does not
    (one bad row must not take the other languages down)."""
    rows: dict[str, GenericRow] = {}
    problems = []
    for ext, row in _table(path).items():
        fields = [f.name for f in attrs.fields(GenericRow)]
        if not ext.startswith(".") or not isinstance(row, list) or len(row) != len(fields):
            problems.append(f"{_label(path)}: key '{ext}': expected "
                            f"\".ext\" = [grammar, line comment, elision marker]")
            continue
        try:
            rows[ext] = _converter.structure(dict(zip(fields, row, strict=True)), GenericRow)
        except cattrs.ClassValidationError as exc:
            problems.append(f"{_label(path)}: key '{ext}': {'; '.join(_problems(exc))}")
    return rows, problems
