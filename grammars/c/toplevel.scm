; Patterns that may only start at the top of a file (the translation_unit and its
; children): the registry runs this query with a maximum start depth of 1.

; The header: includes, macros, file-level declarations (prototypes, externs, statics).
(preproc_include) @header.import
(preproc_def) @header.constant
(preproc_function_def) @header.constant
(translation_unit (declaration) @header.constant)

; The same inside a header's include guard (`#ifndef X_H` ... `#endif`).
(preproc_ifdef (preproc_include) @header.import)
(preproc_ifdef (preproc_def) @header.constant)
(preproc_ifdef (preproc_function_def) @header.constant)
(preproc_ifdef (declaration) @header.constant)

; Macros and file-level variables.
(preproc_def name: (identifier) @name) @definition.constant
(preproc_function_def name: (identifier) @name) @definition.function
(preproc_ifdef (preproc_def name: (identifier) @name) @definition.constant)
(preproc_ifdef (preproc_function_def name: (identifier) @name) @definition.function)
(translation_unit (declaration declarator: (init_declarator declarator: (identifier) @name)) @definition.variable)
(translation_unit (declaration declarator: (identifier) @name) @definition.variable)
