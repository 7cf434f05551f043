; Outline of a PHP file: patterns tried at every node. Capture vocabulary:
; grammars/README.md. The namespace, `use`, `require` and constants live in toplevel.scm.
; A pattern that finds a declaration with a body is rooted at that declaration.

; A braced namespace (`namespace A { ... }`) is a container.
(namespace_definition name: (_) @name body: (compound_statement) @body) @definition.namespace

; Types: containers, their members outlined one by one.
(class_declaration name: (name) @name body: (declaration_list) @body) @definition.class
(interface_declaration name: (name) @name body: (declaration_list) @body) @definition.interface
(trait_declaration name: (name) @name body: (declaration_list) @body) @definition.trait
(enum_declaration name: (name) @name body: (enum_declaration_list) @body) @definition.enum @keep.whole
(enum_case name: (name) @name) @definition.constant

; Functions and methods; abstract and interface methods have no body.
(function_definition name: (name) @name body: (compound_statement) @body) @definition.function
(method_declaration name: (name) @name body: (compound_statement)? @body) @definition.function

; Class constants and properties (one entry per declaration, named by its first element).
(declaration_list (const_declaration (const_element (name) @name)) @definition.constant)
(property_declaration (property_element name: (variable_name (name) @name))) @definition.field

; What a constructor stores on the instance (`$this->x = $x;`).
(method_declaration name: (name) @_n body: (compound_statement
  (expression_statement (assignment_expression left: (member_access_expression
    object: (variable_name) @_this))) @member)
  (#eq? @_n "__construct") (#eq? @_this "$this"))
