"""Outlines: every declaration of a file, its header items and its broken regions.

One compiled query per language (``grammars/<lang>/outline.scm``) finds the nodes; this module
turns captures into plain, picklable tables. The capture vocabulary is closed and documented in
``grammars/README.md``; nothing here names a language or a node type. Renderers and indexes
work from these tables alone, so no parse tree has to be kept once a file is outlined.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import NamedTuple

import attrs
import tree_sitter as ts

from ctxls.syntax.languages import Language, Matches
from ctxls.syntax.text import LineIndex

# Kinds whose body holds declarations to outline one by one rather than a body to elide.
CONTAINER_KINDS = frozenset({"class", "interface", "enum", "struct", "trait", "impl", "module",
                             "namespace", "object"})
# Containers whose functions are methods (a function in a namespace, such as a Rust
# `mod`, stays a function).
METHOD_HOSTS = CONTAINER_KINDS - {"namespace"}
# Kinds that name a value; a second assignment to the same name is not a second declaration.
VALUE_KINDS = frozenset({"variable", "constant", "attribute", "field"})
# Kinds that belong to the nearest container, not to the function that assigns them.
MEMBER_KINDS = frozenset({"field"})


class Span(NamedTuple):
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


class Body(NamedTuple):
    """The rows of a body that may be replaced by an elision marker, whole statements only."""

    first: int
    last: int
    indent: str
    doc: tuple[int, int] | None = None
    members: tuple[tuple[int, int], ...] = ()


class Decl(NamedTuple):
    """One declaration. A NamedTuple: outlines are pickled by the thousand (process pool,
    persistent index) and tuples load several times faster than attrs instances."""

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


class HeaderItem(NamedTuple):
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
    shadowed: tuple[Decl, ...] = ()  # later assignments to names declared earlier
    # Node types of declarations with bodies (what an incremental update looks for).
    bodied_types: frozenset[str] = attrs.field(default=frozenset(), eq=False)
    def_types: frozenset[str] = attrs.field(default=frozenset(), eq=False)  # all definitions


def _span(node: ts.Node) -> Span:
    s, e = node.start_point, node.end_point
    return Span(s.row, s.column, e.row, e.column)


def _blank(data: bytes) -> bool:
    return not data.strip()


def _starts_line(node: ts.Node, lines: LineIndex) -> bool:
    # (from byte offsets: a node's points are new objects each time they are read, and
    # every body of a cold scan asks this of its first children)
    data, start = lines.data, node.start_byte
    return _blank(data[data.rfind(b"\n", 0, start) + 1 : start])


def _ends_line(node: ts.Node, lines: LineIndex) -> bool:
    """Nothing but a separator (``,`` ``;``) follows the node on its last line."""
    data, end = lines.data, node.end_byte
    if end > node.start_byte and data[end - 1 : end] == b"\n":  # ends at a line's start
        return True
    stop = data.find(b"\n", end)
    return data[end : stop if stop >= 0 else len(data)].strip() in (b"", b",", b";")


def _last_row(node: ts.Node) -> int:
    """The last row holding text of the node (``Span.last_row``)."""
    end = node.end_point
    return end.row - 1 if end.column == 0 and end.row > node.start_point.row else end.row


def _rows(node: ts.Node) -> tuple[int, int]:
    span = _span(node)
    return span.start_row, span.last_row


def _closing(node: ts.Node, lang: Language) -> ts.Node | None:
    """The body's last anonymous child, if only comments follow it (a block's ``}``):
    read from the end, not by listing every child (a Python block has none)."""
    i = node.child_count - 1
    while i >= 0:
        child = node.child(i)
        if child is None or not child.is_named:
            return child
        if child.type not in lang.comment_nodes:
            return None
        i -= 1
    return None


def _body(
    node: ts.Node,
    lang: Language,
    lines: LineIndex,
    doc: ts.Node | None = None,
    members: Iterable[ts.Node] = (),
) -> Body | None:
    """Elidable rows of a body node: from its first to its last named child that own their lines."""
    kids = node.named_children
    closing = _closing(node, lang)
    if closing is not None and closing.type == "}":  # `{ ... } // c`: tree-sitter puts
        end = closing.start_byte                     # the comment inside the block
        kids = [k for k in kids if k.start_byte < end]
    lo, hi = 0, len(kids) - 1
    while lo <= hi and not _starts_line(kids[lo], lines):
        lo += 1
    while hi >= lo and not _ends_line(kids[hi], lines):
        hi -= 1
    if lo > hi:
        return None
    first, last = kids[lo], kids[hi]
    i = lo
    while i <= hi and kids[i].type in lang.comment_nodes:
        i += 1
    stmt = kids[i] if i <= hi else first
    data, start = lines.data, stmt.start_byte
    indent = data[data.rfind(b"\n", 0, start) + 1 : start].decode("utf-8", errors="replace")
    return Body(
        first=first.start_point.row,
        last=_last_row(last),
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


def _sort_key(d: Decl) -> tuple[int, int, int, int]:
    return (d.span.start_row, d.span.start_col, -d.span.end_row, -d.span.end_col)


def _dedup(decls: list[Decl]) -> tuple[list[Decl], list[Decl]]:
    """A second assignment to the same name is not a second declaration: first wins.

    Returns (declarations, shadowed assignments); an incremental update needs the shadowed
    ones back when an edit removes the first.
    """
    seen: set[str] = set()
    out, shadowed = [], []
    for d in decls:
        if d.kind in VALUE_KINDS:
            if d.qualname in seen:
                shadowed.append(d)
                continue
            seen.add(d.qualname)
        out.append(d)
    return out, shadowed


def _within(node: ts.Node, region: tuple[int, int] | None) -> bool:
    return region is None or (region[0] <= node.start_byte and node.end_byte <= region[1])


def _extract(lang: Language, root: ts.Node, lines: LineIndex,
             region: tuple[int, int] | None = None, seed: tuple[Decl, ...] = (),
             at: ts.Node | None = None, own: bool = False,
             extra_types: frozenset[str] = frozenset(), found: Matches | None = None,
             ) -> tuple[list[Decl], list[HeaderItem], list[Body], tuple[set[str], set[str]]]:
    """Declarations, header items and blocks found inside ``region`` (bytes; None = all).

    ``seed`` is the chain of declarations enclosing the region, outermost first; ``at``, a
    node whose subtree holds everything the region can yield (much cheaper to query);
    with ``own``, only the declaration ``at`` itself (patterns rooted at it). ``found``: the
    outline query's matches over the whole tree, when the caller has already run it.
    """
    cursors = []
    if found is None:
        cursor = ts.QueryCursor(lang.query)
        if own:
            cursor.set_max_start_depth(0)
        cursors.append((cursor, at or root))
        if region is not None and at is None:
            cursor.set_byte_range(*region)
    at_top = at is None or (at.parent is not None and at.parent.id == root.id)
    if lang.top_query is not None and at_top and not own:
        top = ts.QueryCursor(lang.top_query)
        top.set_max_start_depth(1)
        if region is not None:
            top.set_byte_range(*region)
        cursors.append((top, root))
    defs: dict[int, tuple[str, ts.Node, ts.Node, ts.Node | None, ts.Node | None]] = {}
    docs: dict[int, ts.Node] = {}  # parent (body or root) id -> doc node
    members: dict[int, list[ts.Node]] = {}  # body id -> member statements
    keep_whole: set[int] = set()
    header: list[tuple[str, ts.Node]] = []
    blocks: list[ts.Node] = []

    matches = [*(found or ()), *(m for c, node in cursors for m in c.matches(node))]
    for _, caps in matches:
        for cap, nodes in caps.items():
            if cap.startswith("definition."):
                node = nodes[0]
                names, bodies, scopes = caps.get("name"), caps.get("body"), caps.get("scope")
                if names and node.id not in defs and _within(node, region) and (
                        names[0].text not in lang.keywords):
                    defs[node.id] = (cap[len("definition.") :], node, names[0],
                                     bodies[0] if bodies else None,
                                     scopes[0] if scopes else None)
            elif cap == "doc":
                parent = nodes[0].parent
                if parent is not None and _within(nodes[0], region):
                    docs.setdefault(parent.id, nodes[0])
            elif cap == "member":
                for node in nodes:
                    if node.parent is not None:
                        members.setdefault(node.parent.id, []).append(node)
            elif cap == "keep.whole":
                keep_whole.update(n.id for n in nodes)
            elif cap.startswith("header."):
                header.extend((cap[len("header.") :], n) for n in nodes if _within(n, region))
            elif cap == "elide":
                blocks.extend(n for n in nodes if _within(n, region))

    # Declarations in file order; parents by containment of their full ranges.
    entries = []
    def_types = frozenset(e[1].type for e in defs.values()) | extra_types
    for kind, node, name_at, body_at, scope_at in defs.values():
        outer, first = _extent(node, lang, def_types)
        if _within(outer, region) and (region is None or first.start_byte >= region[0]):
            entries.append((first.start_byte, -outer.end_byte, kind, node, outer, first,
                            name_at, body_at, scope_at))
    entries.sort(key=lambda e: (e[0], e[1]))
    if own:  # patterns rooted at ``at`` also capture its members; keep ``at`` alone
        entries = [e for e in entries if at is not None and e[3].id == at.id]

    decls: list[Decl] = []
    stack: list[tuple[float, Decl]] = [(float("inf"), d) for d in seed]  # (end_byte, decl)
    bodied_ids = {e[1].id for e in defs.values() if e[3] is not None}
    bodied_types = {e[1].type for e in defs.values() if e[3] is not None}
    types = (bodied_types, set(def_types))
    for start, neg_end, kind, node, outer, first_node, name_node, body, scope_node in entries:
        while stack and stack[-1][0] <= start:
            stack.pop()
        chain = [d for _, d in stack]
        if kind in MEMBER_KINDS:
            while chain and not chain[-1].container:
                chain.pop()
            if not chain:
                continue  # `self.x = ...` in an `__init__` that belongs to no class
        if kind == "function" and chain and chain[-1].kind in METHOD_HOSTS:
            kind = "method"
        name = (name_node.text or b"").decode("utf-8", errors="replace")
        base = chain[-1].qualname if chain else ""
        parents = tuple(p.qualname for p in chain)
        if scope_node is not None:  # e.g. a Go method belongs to its receiver's type
            scope = (scope_node.text or b"").decode("utf-8", errors="replace")
            base = f"{base}.{scope}" if base else scope
            parents = (*parents, base)
        doc_node = docs.get(body.id) if body is not None else None
        sig_end = body.prev_sibling if body is not None and body.prev_sibling else node
        decl = Decl(
            name=name,
            qualname=f"{base}.{name}" if base else name,
            kind=kind,
            parents=parents,
            span=Span(first_node.start_point.row, first_node.start_point.column,
                      outer.end_point.row, outer.end_point.column),
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
                if c.type not in lang.comment_nodes
                and not (c.start_byte <= node.start_byte and node.end_byte <= c.end_byte)
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

    items = [  # (with a seed, the region lies in a body: no import of it is the file's)
        HeaderItem(kind, _span(n))
        for kind, n in header
        if kind != "import" or not (seed or inside_bodied_decl(n))
    ]
    if root.id in docs:
        items.append(HeaderItem("doc", _span(docs[root.id])))
    found_blocks = [b for b in (_body(n, lang, lines) for n in blocks) if b is not None]
    return decls, items, found_blocks, types


def _assemble(lang: Language, root: ts.Node, lines: LineIndex, decls: list[Decl],
              header: list[HeaderItem], blocks: list[Body],
              types: tuple[set[str], set[str]]) -> Outline:
    decls.sort(key=_sort_key)
    header.sort(key=lambda h: (h.span.start_row, h.span.start_col))
    blocks.sort(key=lambda b: (b.first, b.last))
    kept, shadowed = _dedup(decls)
    return Outline(
        language=lang.name,
        line_count=lines.line_count,
        decls=tuple(kept),
        shadowed=tuple(shadowed),
        header=tuple(header),
        blocks=tuple(blocks),
        errors=tuple(_errors(root)) if root.has_error else (),
        bodied_types=frozenset(types[0]),
        def_types=frozenset(types[1]),
    )


def extract(lang: Language, tree: ts.Tree, lines: LineIndex,
            found: Matches | None = None) -> Outline:
    """The outline of one parsed file. Pure: same tree and text, same outline.
    ``found``: the outline query's matches over the tree, if already run."""
    root = tree.root_node
    decls, header, blocks, types = _extract(lang, root, lines, found=found)
    return _assemble(lang, root, lines, decls, header, blocks, types)


@attrs.frozen
class Edit:
    """One text edit, as given to ``Tree.edit`` (points are (row, byte column))."""

    start_byte: int
    old_end_byte: int
    new_end_byte: int
    start: tuple[int, int]
    old_end: tuple[int, int]
    new_end: tuple[int, int]

    def point(self, row: int, col: int) -> tuple[int, int]:
        """Where an old point that lies at or after the old end moves to."""
        if (row, col) < self.old_end:
            return row, col
        if row == self.old_end[0]:
            return self.new_end[0], self.new_end[1] + col - self.old_end[1]
        return row + self.new_end[0] - self.old_end[0], col

    def span(self, s: Span) -> Span:
        return Span(*self.point(s.start_row, s.start_col), *self.point(s.end_row, s.end_col))

    def moves(self, d: Decl) -> bool:
        """Whether any position of ``d`` (which does not contain the edit) changes."""
        if (d.span.end_row, d.span.end_col) < self.old_end:
            return False
        if self.new_end[0] != self.old_end[0]:
            return True
        row = self.old_end[0]  # same row count: only points on the edit's last row move
        return row in (d.span.start_row, d.span.end_row, d.signature.end_row,
                       d.name_span.start_row, d.name_span.end_row)

    def decl(self, d: Decl) -> Decl:
        """A declaration that lies wholly after the edit, moved."""
        return d._replace(span=self.span(d.span), signature=self.span(d.signature),
                          name_span=self.span(d.name_span), body=self.body(d.body))

    def body(self, b: Body | None) -> Body | None:
        """Rows of a body that lies wholly after the edit: they all move by the same amount
        (a row-only value cannot tell which side of the edit's column it was on, so this
        must never be used for a body that contains the edit)."""
        if b is None:
            return None
        n = self.new_end[0] - self.old_end[0]
        return Body(b.first + n, b.last + n, b.indent,
                    (b.doc[0] + n, b.doc[1] + n) if b.doc else None,
                    tuple((a + n, z + n) for a, z in b.members))

    def unshift(self, point: tuple[int, int]) -> tuple[int, int]:
        """Where a new point at or after the new end was before the edit."""
        row, col = point
        if (row, col) < self.new_end:
            return row, col
        if row == self.new_end[0]:
            return self.old_end[0], self.old_end[1] + col - self.new_end[1]
        return row - self.new_end[0] + self.old_end[0], col


def _extent(node: ts.Node, lang: Language,
            def_types: frozenset[str] = frozenset()) -> tuple[ts.Node, ts.Node]:
    """(outermost node, first node) of a declaration.

    The declaration grows into a wrapper (decorators, ``export``) when it is the wrapper's
    last child and no other child is a definition (a Go ``type ( A ...; B = ... )`` group
    stays split), then back over adjacent ``leading`` siblings (doc comments, attributes)
    that start their own line (a trailing comment belongs to the line it ends).
    """
    outer = node
    while (parent := outer.parent) is not None and parent.type in lang.wrappers:
        kids = [c for c in parent.named_children if c.type not in lang.comment_nodes]
        if kids[-1].id != outer.id or any(
                c.type == outer.type or c.type in def_types for c in kids[:-1]):
            break
        outer = parent
    first = outer
    while ((prev := first.prev_named_sibling) is not None and prev.type in lang.leading
           and _span(prev).last_row >= first.start_point.row - 1):
        before = prev.prev_sibling
        if before is not None and _span(before).last_row == prev.start_point.row:
            break  # `A = 1  // about A` documents A, not what follows
        first = prev
    return outer, first


def _body_node(lang: Language, node: ts.Node, lo: int, hi: int) -> ts.Node | None:
    """The body the outline query captures for the declaration ``node``, if it holds lo-hi."""
    cursor = ts.QueryCursor(lang.query)
    cursor.set_max_start_depth(0)
    for _, caps in cursor.matches(node):
        for cap, nodes in caps.items():
            if cap.startswith("definition.") and nodes[0].id == node.id and "body" in caps:
                body = caps["body"][0]
                return body if body.start_byte <= lo and hi <= body.end_byte else None
    return None


def _touched(lang: Language, kids: list[ts.Node], lo: int, hi: int) -> tuple[int, int]:
    """Indexes of the first and last of a body's members that bytes [lo, hi] touch (both
    neighbours of a gap), widened over the comments and attributes that lead a member and
    to members sharing a row with them."""
    hit = [k for k, c in enumerate(kids) if c.start_byte <= hi and lo <= c.end_byte]
    if hit:
        i, j = hit[0], hit[-1]
    else:
        j = next((k for k, c in enumerate(kids) if c.start_byte > hi), len(kids))
        i, j = max(j - 1, 0), min(j, len(kids) - 1)
    while i > 0 and _last_row(kids[i - 1]) >= kids[i].start_point.row - (
            1 if kids[i - 1].type in lang.leading else 0):
        i -= 1
    while j + 1 < len(kids) and kids[j + 1].start_point.row <= _last_row(kids[j]) + (
            1 if kids[j].type in lang.leading else 0):
        j += 1
    return i, j


def update(lang: Language, prev: Outline, tree: ts.Tree, lines: LineIndex, edit: Edit,
           changed: list[ts.Range]) -> Outline | None:
    """The outline after one edit (with every range the re-parse changed), which lies among
    the members of the innermost body around it, or the top level: the members it touches
    (``_touched``) are extracted again, the declarations around them from their own nodes,
    the rest kept or moved. None whenever that is not clearly right (the region cuts a
    declaration, header item or block): the caller then extracts from scratch."""
    root = tree.root_node
    lo = min([edit.start_byte, *(r.start_byte for r in changed)])
    hi = max([edit.new_end_byte, *(r.end_byte for r in changed)])
    bodied = {(d.span.start_row, d.span.start_col, d.span.end_row, d.span.end_col)
              for d in prev.decls if d.body is not None}
    node: ts.Node | None = root.descendant_for_byte_range(lo, hi)
    chain: list[ts.Node] = []  # declarations around the edit, innermost first
    while node is not None:
        if node.type in prev.bodied_types:
            outer, lead = _extent(node, lang, prev.def_types)
            old_end = edit.unshift((outer.end_point.row, outer.end_point.column))
            if (lead.start_byte < lo and hi < outer.end_byte
                    and (lead.start_point.row, lead.start_point.column, *old_end) in bodied):
                chain.append(node)
        node = node.parent
    body = root  # the innermost body that holds the edit (one in a declaration's header
    while chain and (body := _body_node(lang, chain[0], lo, hi) or root) is root:
        chain.pop(0)  # makes it a member of the next body out)
    kids = body.named_children
    if kids:
        i, j = _touched(lang, kids, lo, hi)
        region = (min(lo, kids[i].start_byte), max(hi, kids[j].end_byte))
    else:
        region = (lo, hi)
    old_first = lines.point(region[0])
    old_last = edit.unshift(lines.point(region[1]))

    def inside(s: Span) -> bool:
        return old_first <= (s.start_row, s.start_col) and (s.end_row, s.end_col) <= old_last

    def around(s: Span) -> bool:  # (a Python class ends where its last member does)
        return (s.start_row, s.start_col) < old_first and old_last <= (s.end_row, s.end_col)

    def outside(s: Span) -> bool:
        return (s.end_row, s.end_col) <= old_first or (s.start_row, s.start_col) >= old_last

    everything = (*prev.decls, *prev.shadowed)
    ancestors = [d for d in everything if around(d.span)]
    if (len(ancestors) != len(chain) or any(d.body is None for d in ancestors)
            or any(not (inside(d.span) or around(d.span) or outside(d.span))
                   for d in everything)
            or any(not (inside(h.span) or outside(h.span)) for h in prev.header)
            or any(not (b.last < old_first[0] or b.first > old_last[0]
                        or old_first[0] <= b.first <= b.last <= old_last[0])
                   for b in prev.blocks)):
        return None
    seed: tuple[Decl, ...] = ()
    for node in reversed(chain):  # outermost first, each seeded with its own parents
        own = _extract(lang, root, lines, None, seed, node, own=True,
                       extra_types=prev.def_types)[0]
        if len(own) != 1:
            return None
        seed = (*seed, own[0])
    kept = [edit.decl(d) if edit.moves(d) else d for d in everything
            if not inside(d.span) and not around(d.span)]
    decls, header, blocks, found = _extract(lang, root, lines, region, seed,
                                            extra_types=prev.def_types)
    header += [HeaderItem(h.kind, edit.span(h.span)) for h in prev.header if not inside(h.span)]
    blocks += [b2 for b in prev.blocks if not old_first[0] <= b.first <= b.last <= old_last[0]
               and (b2 := edit.body(b) if b.first > old_first[0] else b) is not None]
    return _assemble(lang, root, lines, [*seed, *kept, *decls], header, blocks,
                     (found[0] | prev.bodied_types, found[1] | prev.def_types))


def parse(lang: Language, data: bytes, old: ts.Tree | None = None) -> ts.Tree:
    return lang.parser().parse(data, old) if old is not None else lang.parser().parse(data)


def outline_source(lang: Language, data: bytes) -> Outline:
    """Parse and outline in one step (the cold-scan path)."""
    return extract(lang, parse(lang, data), LineIndex(data))
