; Patterns that may only start at the top of a file (the program node and its children):
; run with a maximum start depth of 1.

; `require` / `require_relative` at file level, also in a file-level `begin ... rescue`.
((call method: (identifier) @_m) @header.import
  (#any-of? @_m "require" "require_relative"))
(begin (call method: (identifier) @_m) @header.import
  (#any-of? @_m "require" "require_relative"))

; File-level constants, `Foo::BAR = ...` (owned by Foo), and those set under a file-level
; if/unless. A constant whose value is a Struct/Class with a block of defs is header but
; not a declaration: the defs would sit inside a body-less declaration.
((assignment left: (constant) @name right: (_) @_v) @definition.constant
  (#not-match? @_v "^(Struct|Class|Module|Data)\\.(new|define)\\b"))
(assignment left: (constant) @name right: (call !block)) @definition.constant
((assignment left: (scope_resolution scope: (_) @scope name: (constant) @name) right: (_) @_v)
  @definition.constant (#not-match? @_v "^(Struct|Class|Module|Data)\\.(new|define)\\b"))
(assignment left: [(constant) (scope_resolution)]) @header.constant
(operator_assignment left: (constant)) @header.constant
(_ (then (assignment left: (constant) @name) @definition.constant @header.constant))

; File-level blocks a skeleton may elide (`if __FILE__ == $0`), unless they hold header
; items or declarations.
(if consequence: (then) @elide)
(unless consequence: (then) @elide)
(if alternative: (else) @elide)
(unless alternative: (else) @elide)
