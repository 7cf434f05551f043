"""Outlines: every declaration of a file, its header items and its broken regions.

One compiled query per language (``grammars/<lang>/outline.scm``) finds the nodes; this module
turns captures into plain, picklable tables. The capture vocabulary is closed and documented in
``grammars/README.md``; nothing here names a language or a node type. Renderers and indexes
work from these tables alone, so no parse tree has to be kept once a file is outlined.
"""

from __future__ import annotations

from collections.abc import Iterable

import attrs
import tree_sitter as ts

from ctxls.syntax.languages import Language
from ctxls.syntax.text import LineIndex

# Kinds whose body holds declarations to outline one by one rather than a body to elide.
CONTAINER_KINDS = frozenset(
    {"class", "interface", "enum", "struct", "trait", "impl", "module", "namespace", "object"}
)
# Kinds that name a value; a second assignment to the same name is not a second declaration.
VALUE_KINDS = frozenset({"variable", "constant", "attribute", "field"})
# Kinds that belong to the nearest container, not to the function that assigns them.
MEMBER_KINDS = frozenset({"field"})


@attrs.frozen(slots=True)
class Span:
    """Rows and byte columns, 0-based, end exclusive, as tree-sitter reports them."""

    start_row: int
    start_col: int
    end_row: int
    end_col: int

    @property
    def last_row(self) -> int:
        """The last row holding text of the span (a span may end at column 0 of the next)."""
        if self.end_col == 0 and self.end_row > self.start_row:
            return self.end_row - 1
        return self.end_row


@attrs.frozen(slots=True)
class Body:
    """The rows of a body that may be replaced by an elision marker, whole statements only."""

    first: int
    last: int
    indent: str
    doc: tuple[int, int] | None = None
    members: tuple[tuple[int, int], ...] = ()


@attrs.frozen(slots=True)
class Decl:
    name: str
    qualname: str
    kind: str
    parents: tuple[str, ...]
    span: Span  # whole declaration, decorators included
    name_span: Span
    signature: Span  # from the declaration keyword to the end of its signature
    body: Body | None
    doc: str | None
    decorators: tuple[str, ...]
    keep_whole: bool
    has_error: bool

    @property
    def container(self) -> bool:
        return self.kind in CONTAINER_KINDS


@attrs.frozen(slots=True)
class HeaderItem:
    kind: str  # import | constant | package | doc
    span: Span


@attrs.frozen(slots=True)
class Outline:
    language: str
    line_count: int
    decls: tuple[Decl, ...]
    header: tuple[HeaderItem, ...]
    blocks: tuple[Body, ...]  # module-level blocks a skeleton may elide
    errors: tuple[Span, ...]  # ERROR and MISSING nodes


def _span(node: ts.Node) -> Span:
    s, e = node.start_point, node.end_point
    return Span(s.row, s.column, e.row, e.column)


def _blank(data: bytes) -> bool:
    return not data.strip()


def _starts_line(node: ts.Node, lines: LineIndex) -> bool:
    p = node.start_point
    return _blank(lines.line(p.row)[: p.column])


def _ends_line(node: ts.Node, lines: LineIndex) -> bool:
    p = node.end_point
    if p.column == 0 and p.row > node.start_point.row:
        return True
    return _blank(lines.line(p.row)[p.column :])


def _rows(node: ts.Node) -> tuple[int, int]:
    span = _span(node)
    return span.start_row, span.last_row


def _body(
    node: ts.Node,
    lang: Language,
    lines: LineIndex,
    doc: ts.Node | None = None,
    members: Iterable[ts.Node] = (),
) -> Body | None:
    """Elidable rows of a body node: from its first to its last named child that own their lines."""
    count = node.named_child_count
    lo, hi = 0, count - 1
    while lo <= hi and not _starts_line(node.named_children[lo], lines):
        lo += 1
    while hi >= lo and not _ends_line(node.named_children[hi], lines):
        hi -= 1
    if lo > hi:
        return None
    kids = node.named_children
    first, last = kids[lo], kids[hi]
    stmt = next((k for k in kids[lo : hi + 1] if k.type not in lang.comment_nodes), first)
    p = stmt.start_point
    indent = lines.line(p.row)[: p.column].decode("utf-8", errors="replace")
    return Body(
        first=first.start_point.row,
        last=_rows(last)[1],
        indent=indent,
        doc=_rows(doc) if doc is not None and doc.start_point.row >= first.start_point.row
        else None,
        members=tuple(_rows(m) for m in members),
    )


def _errors(root: ts.Node) -> list[Span]:
    found: list[Span] = []
    stack = [root]
    while stack:
        node = stack.pop()
        if node.is_error or node.is_missing:
            found.append(_span(node))
        elif node.has_error:
            stack.extend(node.children)
    found.sort(key=lambda s: (s.start_row, s.start_col))
    return found


def _first_line(node: ts.Node) -> str:
    text = (node.text or b"").decode("utf-8", errors="replace")
    return text.split("\n", 1)[0].strip()


def extract(lang: Language, tree: ts.Tree, lines: LineIndex) -> Outline:
    """The outline of one parsed file. Pure: same tree and text, same outline."""
    root = tree.root_node
    cursor = ts.QueryCursor(lang.query)
    defs: dict[int, tuple[str, ts.Node, ts.Node, ts.Node | None]] = {}
    docs: dict[int, ts.Node] = {}  # parent (body or root) id -> doc node
    members: dict[int, list[ts.Node]] = {}  # body id -> member statements
    keep_whole: set[int] = set()
    header: list[tuple[str, ts.Node]] = []
    blocks: list[ts.Node] = []

    for _, caps in cursor.matches(root):
        for cap, nodes in caps.items():
            if cap.startswith("definition."):
                node = nodes[0]
                names, bodies = caps.get("name"), caps.get("body")
                if names and node.id not in defs:
                    defs[node.id] = (cap[len("definition.") :], node, names[0],
                                     bodies[0] if bodies else None)
            elif cap == "doc":
                parent = nodes[0].parent
                if parent is not None:
                    docs.setdefault(parent.id, nodes[0])
            elif cap == "member":
                for node in nodes:
                    if node.parent is not None:
                        members.setdefault(node.parent.id, []).append(node)
            elif cap == "keep.whole":
                keep_whole.update(n.id for n in nodes)
            elif cap.startswith("header."):
                header.extend((cap[len("header.") :], n) for n in nodes)
            elif cap == "elide":
                blocks.extend(nodes)

    # Declarations in file order; parents by containment of their full ranges.
    entries = []
    for kind, node, name_at, body_at in defs.values():
        outer = node
        while outer.parent is not None and outer.parent.type in lang.wrappers:
            outer = outer.parent
        entries.append((outer.start_byte, -outer.end_byte, kind, node, outer, name_at, body_at))
    entries.sort(key=lambda e: (e[0], e[1]))

    decls: list[Decl] = []
    seen_values: set[str] = set()
    stack: list[tuple[int, Decl]] = []  # (end_byte, decl)
    bodied_ids = {node.id for _, node, _, body in defs.values() if body is not None}
    for start, neg_end, kind, node, outer, name_node, body in entries:
        while stack and stack[-1][0] <= start:
            stack.pop()
        chain = [d for _, d in stack]
        if kind in MEMBER_KINDS:
            while chain and not chain[-1].container:
                chain.pop()
        if kind == "function" and chain and chain[-1].container:
            kind = "method"
        name = (name_node.text or b"").decode("utf-8", errors="replace")
        qualname = ".".join([*(p.name for p in chain), name])
        parents = tuple(p.qualname for p in chain)
        if kind in VALUE_KINDS:
            if qualname in seen_values:
                continue
            seen_values.add(qualname)
        doc_node = docs.get(body.id) if body is not None else None
        sig_end = body.prev_sibling if body is not None and body.prev_sibling else node
        decl = Decl(
            name=name,
            qualname=qualname,
            kind=kind,
            parents=parents,
            span=_span(outer),
            name_span=_span(name_node),
            signature=Span(
                node.start_point.row,
                node.start_point.column,
                sig_end.end_point.row,
                sig_end.end_point.column,
            ),
            body=_body(body, lang, lines, doc_node, members.get(body.id, ()))
            if body is not None
            else None,
            doc=(doc_node.text or b"").decode("utf-8", errors="replace")[:2000]
            if doc_node is not None
            else None,
            decorators=tuple(
                _first_line(c)
                for c in (outer.named_children if outer is not node else ())
                if c.id != node.id and c.type not in lang.comment_nodes
            ),
            keep_whole=node.id in keep_whole,
            has_error=outer.has_error,
        )
        decls.append(decl)
        if body is not None:
            stack.append((-neg_end, decl))

    def inside_bodied_decl(node: ts.Node) -> bool:
        parent = node.parent
        while parent is not None:
            if parent.id in bodied_ids:
                return True
            parent = parent.parent
        return False

    items = [
        HeaderItem(kind, _span(n))
        for kind, n in header
        if kind != "import" or not inside_bodied_decl(n)
    ]
    if root.id in docs:
        items.append(HeaderItem("doc", _span(docs[root.id])))
    items.sort(key=lambda h: (h.span.start_row, h.span.start_col))
    return Outline(
        language=lang.name,
        line_count=lines.line_count,
        decls=tuple(decls),
        header=tuple(items),
        blocks=tuple(b for b in (_body(n, lang, lines) for n in blocks) if b is not None),
        errors=tuple(_errors(root)) if root.has_error else (),
    )


def parse(lang: Language, data: bytes, old: ts.Tree | None = None) -> ts.Tree:
    return lang.parser().parse(data, old) if old is not None else lang.parser().parse(data)


def outline_source(lang: Language, data: bytes) -> Outline:
    """Parse and outline in one step (the cold-scan path)."""
    return extract(lang, parse(lang, data), LineIndex(data))
