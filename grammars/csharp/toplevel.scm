; Patterns that may only start at the top of a file (the compilation_unit and its
; children): the registry runs this query with a maximum start depth of 1.

; The header: `using` directives, a file-scoped `namespace X;`, assembly attributes.
(using_directive) @header.import
(file_scoped_namespace_declaration) @header.package
(global_attribute) @header.constant
