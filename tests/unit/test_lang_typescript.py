"""TypeScript, TSX and JavaScript: outlines, header items, skeletons and incremental updates
checked against literal expectations on the fixtures under tests/fixtures/{typescript,tsx,
javascript}/ (grammars/typescript, grammars/tsx, grammars/javascript)."""

from __future__ import annotations

from pathlib import Path

import pytest

from ctxls.syntax import languages
from ctxls.syntax.document import Document
from ctxls.syntax.languages import Language
from ctxls.syntax.outline import Outline, outline_source
from ctxls.syntax.skeleton import Rendering, SkeletonOptions, render, split_lines
from ctxls.syntax.symbols import enclosing, resolve

FIXTURES = Path(__file__).resolve().parent.parent / "fixtures"
SERVICE = FIXTURES / "typescript" / "service.ts"
COMPONENT = FIXTURES / "tsx" / "Component.tsx"
LEGACY = FIXTURES / "javascript" / "legacy.js"
ALWAYS = SkeletonOptions(whole_max_lines=0, whole_max_tokens=0, flat_ratio=0)
EditSpec = tuple[tuple[int, int], tuple[int, int], str]


@pytest.fixture(scope="module")
def ts_lang() -> Language:
    return languages.registry()["typescript"]


@pytest.fixture(scope="module")
def tsx_lang() -> Language:
    return languages.registry()["tsx"]


@pytest.fixture(scope="module")
def js_lang() -> Language:
    return languages.registry()["javascript"]


def outline(lang: Language, path: Path) -> Outline:
    return outline_source(lang, path.read_bytes())


def decls(o: Outline) -> list[tuple[str, str, int]]:
    return [(d.kind, d.qualname, d.span.start_row + 1) for d in o.decls]


def skeleton(lang: Language, path: Path, target: str | None, line: int | None = None,
             opts: SkeletonOptions = ALWAYS) -> Rendering:
    text = path.read_text(encoding="utf-8")
    o = outline_source(lang, text.encode())
    decl = resolve(o, target, path.name, line) if target else None
    return render(o, split_lines(text), lang.elision, lang.line_comment, decl, None, opts)


def reparses(lang: Language, text: str) -> bool:
    return not lang.parser().parse(text.encode()).root_node.has_error


def shown(r: Rendering) -> set[int]:
    """1-based numbers of the lines a rendering shows verbatim."""
    return {row + 1 for a, b in r.shown for row in range(a, b + 1)}


def lang_of(path: str) -> str | None:
    lang = languages.for_path(path)
    return lang.name if lang is not None else None


def test_extensions_and_test_files() -> None:
    assert {ext: lang_of(f"a/b{ext}")
            for ext in (".ts", ".mts", ".cts", ".tsx", ".js", ".mjs", ".cjs", ".jsx")} == {
        ".ts": "typescript", ".mts": "typescript", ".cts": "typescript", ".tsx": "tsx",
        ".js": "javascript", ".mjs": "javascript", ".cjs": "javascript", ".jsx": "javascript",
    }
    reg = languages.registry()
    assert reg["typescript"].is_test_file("src/token.spec.ts")
    assert reg["typescript"].is_test_file("src/token.test.ts")
    assert not reg["typescript"].is_test_file("src/token.ts")
    assert reg["tsx"].is_test_file("Profile.test.tsx")
    assert reg["javascript"].is_test_file("legacy.test.js")
    assert not reg["javascript"].is_test_file("test.js")


# --- TypeScript -------------------------------------------------------------------------


def test_typescript_outline(ts_lang: Language) -> None:
    assert decls(outline(ts_lang, SERVICE)) == [
        ("constant", "DEFAULT_TTL_MS", 13),
        ("constant", "REFRESH_DISABLED", 14),
        ("variable", "issued", 15),
        ("type", "Claims", 17),  # its JSDoc line
        ("interface", "TokenStore", 23),
        ("method", "TokenStore.get", 24),
        ("method", "TokenStore.put", 25),
        ("field", "TokenStore.size", 26),
        ("enum", "TokenState", 29),
        ("constant", "TokenState.Active", 30),
        ("constant", "TokenState.Revoked", 31),
        ("constant", "TokenState.Expired", 32),
        ("module", "express", 35),
        ("interface", "express.Request", 36),
        ("field", "express.Request.token", 37),
        ("interface", "Token", 41),
        ("field", "Token.id", 42),
        ("field", "Token.claims", 43),
        ("field", "Token.expiresAt", 44),
        ("function", "sealed", 47),
        ("function", "logged", 52),
        ("function", "logged.descriptor.value", 54),
        ("function", "parseToken", 60),  # overload signatures: declarations without a body
        ("function", "parseToken", 62),
        ("function", "parseToken", 63),
        ("function", "newId", 71),
        ("function", "verify", 73),
        ("function", "loadKeys", 80),
        ("class", "TokenService", 85),
        ("field", "TokenService.keys", 90),
        ("field", "TokenService.started", 91),
        ("field", "TokenService.revoked", 92),
        ("method", "TokenService.constructor", 94),
        ("field", "TokenService.store", 94),  # constructor parameter properties
        ("field", "TokenService.clock", 94),
        ("method", "TokenService.mint", 102),  # from its decorator
        ("method", "TokenService.refresh", 110),
        ("method", "TokenService.refresh", 111),
        ("method", "TokenService.refresh", 112),  # JSDoc and decorator of the implementation
        ("method", "TokenService.revoke", 122),
        ("method", "TokenService.onExpired", 127),
        ("object", "api", 133),
        ("method", "api.get", 134),
        ("method", "api.put", 138),
        ("namespace", "Tokens", 145),
        ("function", "Tokens.isToken", 147),
    ]


def test_typescript_kept_whole_and_signatures(ts_lang: Language) -> None:
    o = outline(ts_lang, SERVICE)
    whole = {d.qualname for d in o.decls if d.keep_whole}
    assert whole == {"Claims", "TokenStore", "TokenState", "express.Request", "Token"}
    cls = resolve(o, "TokenService", "service.ts")
    assert cls.decorators == ("@sealed",)
    assert (cls.span.start_row + 1, cls.signature.start_row + 1, cls.signature.end_row + 1) == \
        (85, 89, 89)
    verify = resolve(o, "verify", "service.ts")
    assert verify.body is not None and (verify.body.first + 1, verify.body.last + 1) == (74, 77)
    # An expression-bodied arrow is a function with nothing to elide.
    assert resolve(o, "newId", "service.ts").body is None


def test_typescript_header(ts_lang: Language) -> None:
    o = outline(ts_lang, SERVICE)
    assert [(h.kind, h.span.start_row + 1) for h in o.header] == [
        ("import", 4), ("import", 5), ("import", 6), ("import", 7),
        ("import", 8),  # import fs = require("node:fs")
        ("import", 10), ("import", 11),  # re-exports
        ("constant", 13), ("constant", 14), ("constant", 15),
        ("constant", 152),  # export default TokenService;
    ]


def test_typescript_overloads_resolve_to_the_implementation(ts_lang: Language) -> None:
    o = outline(ts_lang, SERVICE)
    overloads = [d for d in o.decls if d.qualname == "TokenService.refresh"]
    assert [d.span.start_row + 1 for d in overloads] == [110, 111, 112]
    impl = resolve(o, "TokenService.refresh", "service.ts")  # the one with a body
    assert impl.body is not None and impl.span.start_row + 1 == 112
    first = resolve(o, "TokenService.refresh", "service.ts", line=110)
    assert first.body is None


def test_typescript_method_lineage_is_the_generic_class(ts_lang: Language) -> None:
    o = outline(ts_lang, SERVICE)
    revoke = resolve(o, "TokenService.revoke", "service.ts")
    assert revoke.parents == ("TokenService",)
    (cls,) = enclosing(o, revoke)
    lines = split_lines(SERVICE.read_text(encoding="utf-8"))
    assert lines[cls.span.start_row: cls.signature.end_row + 1] == [
        "/**",
        " * Issues tokens for one store. Invariant: a revoked token never comes back from "
        "`refresh`.",
        " */",
        "@sealed",
        "export class TokenService<K extends string, S extends TokenStore<K>> extends "
        "EventEmitter {",
    ]
    aug = resolve(o, "express.Request", "service.ts")
    assert [d.qualname for d in enclosing(o, aug)] == ["express"]


def test_typescript_skeleton_with_a_method_target(ts_lang: Language) -> None:
    r = skeleton(ts_lang, SERVICE, "TokenService.revoke")
    assert r.mode == "skeleton"
    assert [(e.first + 1, e.last + 1, e.symbol) for e in r.elided] == [
        (48, 49, "sealed"),
        (53, 57, "logged"),
        (64, 68, "parseToken"),
        (74, 77, "verify"),
        (81, 82, "loadKeys"),
        (95, 97, "TokenService.constructor"),  # super() and listeners; fields kept
        (104, 107, "TokenService.mint"),
        (115, 119, "TokenService.refresh"),
        (128, 129, "TokenService.onExpired"),
        (135, 136, "api.get"),
        (139, 140, "api.put"),
    ]
    seen = shown(r)
    # Header: imports, re-exports, module constants.
    assert set(range(4, 16)) <= seen
    # Kept whole: type alias, interfaces, enum, the `declare module` augmentation.
    assert set(range(17, 46)) <= seen
    # Overload signatures, decorators and the class signature with its generics.
    assert {61, 62, 63, 88, 89, 90, 91, 92, 94, 98, 99, 102, 103, 110, 111, 112, 113, 114} <= seen
    # The target in full.
    assert {122, 123, 124, 125} <= seen
    text = r.text.splitlines()
    assert "    |     /* 3 lines elided */" in text
    assert "    |   /* 5 lines elided; hides value() */" in text
    plain = skeleton(ts_lang, SERVICE, "TokenService.revoke",
                     opts=SkeletonOptions(line_numbers=False, whole_max_lines=0,
                                          whole_max_tokens=0, flat_ratio=0))
    assert reparses(ts_lang, plain.text)


def test_typescript_skeleton_of_an_overloaded_method_keeps_its_signatures(
        ts_lang: Language) -> None:
    r = skeleton(ts_lang, SERVICE, "TokenService.refresh", line=112)
    assert {110, 111, 112, 113, 114, 115, 119} <= shown(r)
    assert (104, 107, "TokenService.mint") in [(e.first + 1, e.last + 1, e.symbol)
                                                for e in r.elided]


# --- TSX --------------------------------------------------------------------------------


def test_tsx_outline(tsx_lang: Language) -> None:
    assert decls(outline(tsx_lang, COMPONENT)) == [
        ("constant", "PAGE_SIZE", 6),
        ("constant", "ThemeContext", 7),
        ("type", "Size", 9),
        ("interface", "ProfileProps", 11),
        ("field", "ProfileProps.userId", 12),
        ("field", "ProfileProps.size", 13),
        ("field", "ProfileProps.render", 14),
        ("method", "ProfileProps.onSelect", 15),
        ("enum", "Tab", 18),
        ("constant", "Tab.Overview", 19),
        ("constant", "Tab.Activity", 20),
        ("function", "Avatar", 23),  # forwardRef((props, ref) => {...})
        ("function", "Badge", 31),
        ("function", "Profile", 33),
        ("function", "Profile.handleSelect", 47),  # useCallback(() => {...})
        ("type", "CounterState", 69),
        ("class", "Counter", 71),
        ("field", "Counter.contextType", 72),
        ("field", "Counter.state", 73),
        ("method", "Counter.increment", 75),  # a field holding an arrow function
        ("method", "Counter.componentDidMount", 80),
        ("method", "Counter.render", 85),
        ("function", "ProfilePage", 94),
    ]


def test_tsx_skeleton_with_a_method_target(tsx_lang: Language) -> None:
    r = skeleton(tsx_lang, COMPONENT, "Counter.render")
    assert [(e.first + 1, e.last + 1, e.symbol) for e in r.elided] == [
        (26, 27, "Avatar"),
        (34, 66, "Profile"),
        (76, 77, "Counter.increment"),
        (81, 82, "Counter.componentDidMount"),
        (95, 102, "ProfilePage"),
    ]
    assert "    |   /* 33 lines elided; hides handleSelect() */" in r.text.splitlines()
    assert set(range(1, 25)) | {71, 72, 73, 75, 80} | set(range(85, 92)) <= shown(r)
    plain = skeleton(tsx_lang, COMPONENT, "Counter.render",
                     opts=SkeletonOptions(line_numbers=False, whole_max_lines=0,
                                          whole_max_tokens=0, flat_ratio=0))
    assert reparses(tsx_lang, plain.text)


# --- JavaScript -------------------------------------------------------------------------


def test_javascript_outline(js_lang: Language) -> None:
    o = outline(js_lang, LEGACY)
    assert decls(o) == [
        ("variable", "DEFAULT_TTL", 20),
        ("constant", "SESSION_DIR", 21),
        ("variable", "instances", 22),
        ("function", "Store", 39),
        ("function", "Store.get", 55),  # Store.prototype.get = function get(...)
        ("function", "Store.set", 64),
        ("function", "Store.destroy", 70),
        ("class", "MemoryStore", 75),
        ("method", "MemoryStore.constructor", 76),
        ("method", "MemoryStore.get", 84),
        ("method", "MemoryStore.set", 89),
        ("function", "exports.readAll", 95),
        ("function", "exports.count", 104),
        ("object", "exports.helpers", 109),
        ("method", "exports.helpers.sessionPath", 110),
        ("method", "exports.helpers.isExpired", 113),
        ("function", "compact", 120),
        ("function", "cleanup", 122),
    ]
    get = resolve(o, "Store.get", "legacy.js")
    assert get.parents == ("Store",)
    assert [d.qualname for d in enclosing(o, get)] == ["Store"]


def test_javascript_commonjs_header(js_lang: Language) -> None:
    o = outline(js_lang, LEGACY)
    assert [(h.kind, h.span.start_row + 1) for h in o.header] == [
        ("import", 13), ("import", 14), ("import", 15), ("import", 16), ("import", 17),
        ("import", 18),  # require('./polyfills');
        ("constant", 20), ("constant", 21), ("constant", 22),
        ("constant", 29), ("constant", 30),  # module.exports = ...
    ]
    assert [(b.first + 1, b.last + 1) for b in o.blocks] == [(132, 133)]


def test_javascript_skeleton_with_a_method_target(js_lang: Language) -> None:
    r = skeleton(js_lang, LEGACY, "MemoryStore.set")
    assert [(e.first + 1, e.last + 1, e.symbol) for e in r.elided] == [
        (40, 46, "Store"),
        (56, 61, "Store.get"),
        (65, 67, "Store.set"),
        (71, 72, "Store.destroy"),
        (77, 79, "MemoryStore.constructor"),  # super() and the rest; `this.x = ` kept
        (85, 86, "MemoryStore.get"),
        (96, 101, "exports.readAll"),
        (105, 106, "exports.count"),
        (114, 115, "exports.helpers.isExpired"),
        (123, 128, "cleanup"),
        (132, 133, None),  # if (require.main === module) { ... }
    ]
    assert set(range(13, 31)) | {75, 76, 80, 81, 82, 89, 90, 91, 92} <= shown(r)
    plain = skeleton(js_lang, LEGACY, "MemoryStore.set",
                     opts=SkeletonOptions(line_numbers=False, whole_max_lines=0,
                                          whole_max_tokens=0, flat_ratio=0))
    assert reparses(js_lang, plain.text)


JSX = b"""import { h } from "preact";

export default function App({ items }) {
  const [open, setOpen] = useState(false);
  return (
    <ul className="list">
      {items.map((item) => <li key={item.id}>{item.name}</li>)}
    </ul>
  );
}

export const Row = memo(function Row({ item }) {
  const label = item.name.toUpperCase();
  return <li>{label}</li>;
});
"""


def test_javascript_jsx_and_default_exports(js_lang: Language) -> None:
    o = outline_source(js_lang, JSX)
    assert decls(o) == [("function", "App", 3), ("function", "Row", 12)]
    r = render(o, split_lines(JSX.decode()), js_lang.elision, js_lang.line_comment, None, None,
               SkeletonOptions(line_numbers=False, whole_max_lines=0, whole_max_tokens=0,
                               flat_ratio=0))
    assert r.text.splitlines()[3:6] == [
        "  /* 6 lines elided */", "}", "",
    ]
    assert reparses(js_lang, r.text)


# --- Incremental updates ------------------------------------------------------------------

# (row, col) to (row, col) replaced by text; 0-based, as an LSP client sends them.
EDITS: list[EditSpec] = [
    ((103, 4), (103, 4), "issued += 2;\n    "),  # service.ts: inside mint
    ((122, 25), (122, 25), "\n    this.revoked.delete(id);"),  # inside revoke
    ((127, 4), (127, 4), "this.emit('tick');\n    "),  # inside the onExpired arrow field
    ((134, 4), (134, 4), "void 0;\n    "),  # inside api.get
    ((12, 30), (12, 37), "60_000"),  # a module constant's value
    ((121, 2), (121, 2), "purge(): void {\n    this.revoked.clear();\n  }\n\n  "),  # a method
    ((3, 0), (3, 0), "import { x } from 'y';\n"),
]


@pytest.mark.parametrize("edit", EDITS)
def test_typescript_incremental_outline_equals_a_fresh_one(ts_lang: Language,
                                                           edit: EditSpec) -> None:
    text = SERVICE.read_text(encoding="utf-8")
    doc = Document(ts_lang, text, 1)
    doc.outline()
    (start, end, new) = edit
    doc.edit(start, end, new, "utf-16", 2)
    got = doc.outline()
    want = outline_source(ts_lang, doc.data)
    assert got is not None
    assert got.decls == want.decls
    assert sorted(got.header) == sorted(want.header)


@pytest.mark.parametrize("path,lang_name,edit", [
    (COMPONENT, "tsx", ((25, 4), (25, 4), "console.log(user);\n    ")),  # inside Avatar
    (COMPONENT, "tsx", ((48, 6), (48, 6), "console.log(user);\n      ")),  # in handleSelect
    (COMPONENT, "tsx", ((85, 4), (85, 4), "const n = 1;\n    ")),  # inside Counter.render
    (LEGACY, "javascript", ((55, 2), (55, 2), "debug('x');\n  ")),  # Store.prototype.get
    (LEGACY, "javascript", ((80, 4), (80, 4), "this.extra = 1;\n    ")),  # constructor
    (LEGACY, "javascript", ((110, 4), (110, 4), "void 0;\n    ")),  # helpers.sessionPath
])
def test_tsx_and_javascript_incremental_outline(path: Path, lang_name: str,
                                                edit: EditSpec) -> None:
    lang = languages.registry()[lang_name]
    doc = Document(lang, path.read_text(encoding="utf-8"), 1)
    doc.outline()
    (start, end, new) = edit
    doc.edit(start, end, new, "utf-16", 2)
    got = doc.outline()
    want = outline_source(lang, doc.data)
    assert got is not None
    assert got.decls == want.decls
    assert sorted(got.header) == sorted(want.header)


def test_comment_after_a_closing_brace_stays_outside_the_elision(ts_lang: Language) -> None:
    src = ("export const check = (val: number) => {\n  audit(val);\n  note(val);\n"
           "  return true;\n} // should be a number\n")
    o = outline_source(ts_lang, src.encode())
    r = render(o, split_lines(src), ts_lang.elision, "//", None, None,
               SkeletonOptions(line_numbers=False, whole_max_lines=0, whole_max_tokens=0,
                               flat_ratio=0))
    assert "} // should be a number" in r.text.splitlines() and "lines elided" in r.text
    assert not ts_lang.parser().parse(r.text.encode()).root_node.has_error
