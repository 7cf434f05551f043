; Patterns that may only start at the top of a file (the program node and its children):
; the registry runs this query with a maximum start depth of 1.

; The header: `declare`, the namespace statement, `use` imports, `require`s, constants.
(declare_statement) @header.constant
(namespace_definition !body) @header.package
(namespace_use_declaration) @header.import
(expression_statement (include_expression)) @header.import
(expression_statement (include_once_expression)) @header.import
(expression_statement (require_expression)) @header.import
(expression_statement (require_once_expression)) @header.import
(const_declaration) @header.constant
(const_declaration (const_element (name) @name)) @definition.constant
