; Patterns that may only start at the top of a file (the module node and its children):
; the registry runs this query with a maximum start depth of 1, which costs almost
; nothing, instead of trying every pattern at every node of the tree.

; The module docstring.
(module . (string) @doc)

; Module-level names, also under module-level if/try/with (TYPE_CHECKING, optional imports).
(assignment left: (identifier) @name) @definition.variable
(type_alias_statement left: (type (identifier) @name)) @definition.type
(assignment) @header.constant
(augmented_assignment) @header.constant
(type_alias_statement) @header.constant
(if_statement (block (assignment left: (identifier) @name) @definition.variable @header.constant))
(try_statement (block (assignment left: (identifier) @name) @definition.variable @header.constant))
(with_statement (block (assignment left: (identifier) @name) @definition.variable @header.constant))
(if_statement (elif_clause (block (assignment left: (identifier) @name) @definition.variable @header.constant)))
(if_statement (else_clause (block (assignment left: (identifier) @name) @definition.variable @header.constant)))
(try_statement (except_clause (block (assignment left: (identifier) @name) @definition.variable @header.constant)))
(try_statement (else_clause (block (assignment left: (identifier) @name) @definition.variable @header.constant)))
(try_statement (finally_clause (block (assignment left: (identifier) @name) @definition.variable @header.constant)))
; Module-level blocks a skeleton may elide (unless they hold header items or declarations).
(if_statement consequence: (block) @elide)
(if_statement alternative: (elif_clause consequence: (block) @elide))
(if_statement alternative: (else_clause body: (block) @elide))
(for_statement body: (block) @elide)
(while_statement body: (block) @elide)
(with_statement body: (block) @elide)
(try_statement body: (block) @elide)
(try_statement (except_clause (block) @elide))
(try_statement (finally_clause (block) @elide))
