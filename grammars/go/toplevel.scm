; Patterns that may only start at the top of a file (the source_file node and its
; children): the registry runs this query with a maximum start depth of 1.

; The header: package clause, imports, package-level const and var declarations (type
; declarations are header too: see outline.scm).
(package_clause) @header.package
(import_declaration) @header.import
(const_declaration) @header.constant
(var_declaration) @header.constant

; Package-level names; each spec of a group `var ( ... )` is its own declaration, named by
; its first name; the other names of `var a, b int` are declarations of their own (the name
; alone). Blank names (`var _ io.Reader = (*T)(nil)`) declare nothing.
(const_declaration
  (const_spec . name: (identifier) @name (#not-eq? @name "_")) @definition.constant)
(const_declaration
  (const_spec
    name: (identifier) "," name: (identifier) @name @definition.constant
    (#not-eq? @name "_")))
(var_declaration
  (var_spec . name: (identifier) @name (#not-eq? @name "_")) @definition.variable)
(var_declaration
  (var_spec
    name: (identifier) "," name: (identifier) @name @definition.variable
    (#not-eq? @name "_")))
(var_declaration
  (var_spec_list
    (var_spec . name: (identifier) @name (#not-eq? @name "_")) @definition.variable))
(var_declaration
  (var_spec_list
    (var_spec
      name: (identifier) "," name: (identifier) @name @definition.variable
      (#not-eq? @name "_"))))
