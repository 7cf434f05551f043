; Patterns that may only start at the top of a file (the source_file node and its children):
; the registry runs this query with a maximum start depth of 1.

; The header: `use` and `extern crate` declarations, module-level `const` and `static`.
(use_declaration) @header.import
(extern_crate_declaration) @header.import
(const_item) @header.constant
(static_item) @header.constant

; Module-level values are declarations (constants inside impls and traits: outline.scm).
(const_item name: (identifier) @name) @definition.constant
(static_item name: (identifier) @name) @definition.variable
