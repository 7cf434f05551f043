; Patterns that may only start at the top of a file (the source_file node and its
; children): the registry runs this query with a maximum start depth of 1.

; The header: the package, the imports, and top-level properties (`val DEFAULT_TTL = 30`).
(package_header) @header.package
(import_list) @header.import
(source_file (property_declaration) @header.constant)

; Top-level properties: `const val` ones are constants.
(source_file ((property_declaration (modifiers) @_m
  (variable_declaration (simple_identifier) @name)) @definition.constant
  (#match? @_m "\\bconst\\b")))
(source_file ((property_declaration
  (variable_declaration (simple_identifier) @name)) @definition.variable
  (#not-match? @definition.variable "^(?:@\\S+\\s+|\\w+\\s+)*const\\s")))
