; Outline of a C file: patterns tried at every node. Capture vocabulary: grammars/README.md.
; Includes, macros and file-level variables live in toplevel.scm. A pattern that finds a
; declaration with a body is rooted at that declaration.

; Functions (a pointer-returning one's name sits under a pointer_declarator) and prototypes.
(function_definition declarator: (function_declarator declarator: (identifier) @name)
  body: (compound_statement) @body) @definition.function
(function_definition declarator: (pointer_declarator declarator: (function_declarator
  declarator: (identifier) @name)) body: (compound_statement) @body) @definition.function
(declaration declarator: (function_declarator declarator: (identifier) @name)) @definition.function
(declaration declarator: (pointer_declarator declarator: (function_declarator
  declarator: (identifier) @name))) @definition.function

; Types: structs and unions with their fields (kept whole: a struct is its fields), enums.
(struct_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct @keep.whole
(union_specifier name: (type_identifier) @name body: (field_declaration_list) @body) @definition.struct @keep.whole
(enum_specifier name: (type_identifier) @name body: (enumerator_list) @body) @definition.enum @keep.whole
(enumerator name: (identifier) @name) @definition.constant
(field_declaration declarator: (field_identifier) @name) @definition.field
(field_declaration declarator: (pointer_declarator declarator: (field_identifier) @name)) @definition.field
(field_declaration declarator: (array_declarator declarator: (field_identifier) @name)) @definition.field
; typedef struct {...} name_t; typedef int (*fn)(void); typedef unsigned long id_t;
(type_definition declarator: (type_identifier) @name) @definition.type
